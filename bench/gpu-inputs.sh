# bench/gpu-inputs.sh - sourced by the GPU scripts: the GPU benchmark inputs
# (the test, train and ref datasets, test-size, wide eye twice, uniform, one
# bin; issue 32's 1024x2048 histogram and 67M values, and make bench's
# wide eye at 1M and 67M values, where $INPUTS names them) and their
# reference BMPs and raw counters in tests/work/gpu,
# generated in parallel where missing. Sets $w.
w=tests/work/gpu
mkdir -p "$w"
gen_input() { # NAME histo-gen ARGS...
    name=$1
    shift
    [ -s "$w/$name.bin" ] || build/histo-gen -o "$w/$name.bin" --seed 1 "$@"
}
gen_input test &
# the test dataset of Spec/test.conf (its GPU target: 30 us)
gen_input spec --seed 11601 --image 996x1040 --row-sigma 32 --col-sigma 12 \
    --outliers 5000 &
# the train dataset (Spec/train.conf) and 1M values in one bin
gen_input train --seed 11602 --image 2048x2048 --row-sigma 64 --col-sigma 16 \
    --outliers 5000 &
gen_input spike --dist onebin --bin 1048704 &
# the ref dataset's values (Spec/ref.conf's generator arguments, whose
# --seed comes last and wins)
# shellcheck disable=SC2046
gen_input ref $(sed -n 's/^generator_args = //p' Spec/ref.conf) &
gen_input wide --image 4096x4096 --row-sigma 205 --col-sigma 16 &
# make bench's wide eye (bench/bench.sh: seed 5)
gen_input wide5 --seed 5 --image 4096x4096 --row-sigma 205 --col-sigma 16 \
    --outliers 5000 &
gen_input uniform --image 4096x4096 --dist uniform &
gen_input onebin --image 4096x4096 --dist onebin --bin 1048704 &
# issue 32's two further shapes, made only where $INPUTS names them (67M
# values are 268 MB and a few seconds): a 1024x2048 histogram, and 67M
# values
case " ${INPUTS:-} " in *" h1k "*)
    gen_input h1k --image 4096x4096 --histo 1024x2048 --row-mean 1024 \
        --col-mean 512 --row-sigma 64 --col-sigma 64 --outliers 5000 & ;;
esac
case " ${INPUTS:-} " in *" big67 "*)
    gen_input big67 --image 8192x8192 --row-sigma 64 --col-sigma 16 \
        --outliers 5000 & ;;
esac
# make bench's wide eye at 1M and 67M values (bench/bench.sh: seed 5)
case " ${INPUTS:-} " in *" wide1m "*)
    gen_input wide1m --seed 5 --image 1024x1024 --row-sigma 205 \
        --col-sigma 16 --outliers 5000 & ;;
esac
case " ${INPUTS:-} " in *" wide67 "*)
    gen_input wide67 --seed 5 --image 8192x8192 --row-sigma 205 \
        --col-sigma 16 --outliers 5000 & ;;
esac
wait
for name in spec test train ref spike wide wide5 uniform onebin h1k big67 \
    wide1m wide67; do
    [ -s "$w/$name.bin" ] || continue
    [ -s "$w/$name.ref.raw" ] && [ "$w/$name.ref.raw" -nt "$w/$name.bin" ] \
        || build/histo-ref "$w/$name.bin" "$w/$name.ref.bmp" "$w/$name.ref.raw" &
done
wait
# verdict OUT NAME RC: "byte-exact" where OUT.bmp and OUT.raw equal input
# NAME's reference, else "DIFFERS rc=RC" (histo's exit status); removes
# both outputs.
verdict() {
    if cmp -s "$1.raw" "$w/$2.ref.raw" && cmp -s "$1.bmp" "$w/$2.ref.bmp"; then
        echo byte-exact
    else
        echo "DIFFERS rc=$3"
    fi
    rm -f "$1.bmp" "$1.raw"
}
