#!/bin/sh
# bench/cpu-bench.sh - per-iteration times of the strategies on PoCL (or the
# test device) next to the sequential C reference, measured in the same run.
#
#   sh bench/cpu-bench.sh [OUTDIR]          (default build/cpu-bench)
#   SIZES="test gen big" STRATEGIES="eye cpu" MIN_SECONDS=1 REPEAT=3 \
#       sh bench/cpu-bench.sh
#
# Inputs: "test" is the test dataset (996x1040 values into 256x8192 bins,
# row sigma 32, column sigma 12: generator_args of Spec/test.conf when the
# tree has it, else the same arguments written below); "gen" is
# build/histo-gen's default image (same size, row sigma 64, column sigma
# 16: a wider eye that never saturates); "big" the generator's default on a
# 4096x4096 image (16.7M values, heavily saturated).
#
# For each input: build/ref-bench times reference.c's loop (median of >=
# MIN_SECONDS of runs); then, per strategy, a short run sizes the iteration
# count to >= MIN_SECONDS of work (and warms PoCL's kernel cache), then
# REPEAT (default 3) runs are timed; the one with the middle device
# median is reported. Each line: the device median per iteration (first
# kernel start to last kernel end, from profiling events), the host
# wall-clock mean per iteration, the reference median, their ratio
# (device / reference: below 1 is faster than sequential C), whether the
# BMP equals the reference byte for byte, and both runs' program build
# times. The timing files stay in OUTDIR. Busy neighbours distort all of
# it: the header shows the load average.
set -u
cd "$(dirname "$0")/.." || exit 1
W=${1:-build/cpu-bench}
SIZES=${SIZES:-test gen big}
STRATEGIES=${STRATEGIES:-eye cpu}
MIN_SECONDS=${MIN_SECONDS:-1}
REPEAT=${REPEAT:-3}
PLATFORM=${HISTO_TEST_PLATFORM:-Portable Computing Language}
DEVICE=${HISTO_TEST_DEVICE:-}
unset HISTO_PLATFORM HISTO_DEVICE HISTO_KERNEL_DIR
mkdir -p "$W" || exit 1

run_histo() {
    if [ -n "$DEVICE" ]; then
        ./histo --platform "$PLATFORM" --device "$DEVICE" "$@"
    else
        ./histo --platform "$PLATFORM" "$@"
    fi
}
# key FILE NAME: the value of "NAME = value" in FILE.
key() { sed -n "s/^$2 = //p" "$1"; }

echo "host: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "(other busy processes make these numbers meaningless: check the load)"
printf '%-5s %-8s %6s %12s %12s %12s %6s %-6s %s\n' input strategy iters \
    device_us wall_us seq_c_us ratio exact build_s
status=0
for size in $SIZES; do
    in="$W/$size.bin"
    case $size in
        test)
            args=$(sed -n 's/^generator_args = //p' Spec/test.conf 2>/dev/null)
            [ -n "$args" ] || args="--seed 11601 --image 996x1040 \
--histo 256x8192 --dist gauss --row-mean 4096 --row-sigma 32 --col-mean 128 \
--col-sigma 12 --outliers 5000" ;;
        gen) args="" ;;
        big) args="--image 4096x4096" ;;
        *) echo "unknown size '$size' (test, gen, big)" >&2; exit 2 ;;
    esac
    # shellcheck disable=SC2086
    [ -s "$in" ] || build/histo-gen -o "$in" $args || exit 1
    build/histo-ref "$in" "$W/$size.ref.bmp" "$W/$size.ref.raw" || exit 1
    build/ref-bench "$in" "$MIN_SECONDS" >"$W/$size.ref.txt" || exit 1
    ref=$(key "$W/$size.ref.txt" reference.median_us)
    for s in $STRATEGIES; do
        t="$W/$size.$s"
        if ! run_histo --strategy "$s" -i "$in" -o "$t.bmp" \
                --timing "$t.probe.out" -- 10 >"$t.log" 2>&1; then
            echo "$size $s: histo failed: $(tail -n 3 "$t.log")"
            status=1
            continue
        fi
        first_build=$(key "$t.probe.out" time.program_build_s)
        iters=$(awk -v w="$(key "$t.probe.out" iteration.wall_mean_us)" \
            -v s="$MIN_SECONDS" 'BEGIN { n = int(s * 1e6 / w) + 1;
                                         print (n < 50 ? 50 : n) }')
        # REPEAT timed runs; the run with the middle device median counts.
        exact=yes
        : >"$t.runs"
        r=0
        while [ $r -lt "$REPEAT" ]; do
            r=$((r + 1))
            if ! run_histo --strategy "$s" -i "$in" -o "$t.bmp" --raw "$t.raw" \
                    --timing "$t.$r.out" -- "$iters" >"$t.log" 2>&1; then
                echo "$size $s: histo failed: $(tail -n 3 "$t.log")"
                exact=failed
                break
            fi
            cmp -s "$t.raw" "$W/$size.ref.raw" && cmp -s "$t.bmp" "$W/$size.ref.bmp" \
                || exact=no
            echo "$(key "$t.$r.out" iteration.device.median_us) $r" >>"$t.runs"
        done
        [ $exact = yes ] || { status=1; [ $exact = failed ] && continue; }
        mid=$(( (REPEAT + 1) / 2 ))
        r=$(sort -n "$t.runs" | sed -n "${mid}p" | cut -d' ' -f2)
        cp "$t.$r.out" "$t.out"
        dev=$(key "$t.out" iteration.device.median_us)
        printf '%-5s %-8s %6s %12s %12s %12s %6s %-6s %s\n' "$size" "$s" \
            "$iters" "$dev" "$(key "$t.out" iteration.wall_mean_us)" "$ref" \
            "$(awk -v a="$dev" -v b="$ref" 'BEGIN { printf "%.2f", a / b }')" \
            "$exact" "$first_build, $(key "$t.out" time.program_build_s)"
    done
done
exit $status
