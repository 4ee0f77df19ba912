#!/bin/sh
# bench/gpu-fixed-cost.sh - where the eye kernels' fixed cost goes: the
# same run with one phase cut out of a copy of the kernels at a time
# (--kernels), on a 64x64 image and the test-size image. The cut variants
# give wrong histograms on purpose; only their times matter here.
#   PLATFORM/DEVICE as for gpu-check.sh; sh bench/gpu-fixed-cost.sh
set -u
cd "$(dirname "$0")/.." || exit 1
platform=${PLATFORM:-NVIDIA CUDA}
device=${DEVICE:-GPU}
its=${ITERATIONS:-2000}
w=tests/work/fixed
mkdir -p "$w"
build/histo-gen -o "$w/tiny.bin" --seed 1 --image 64x64
build/histo-gen -o "$w/test.bin" --seed 1

variant() { # NAME FILE SED-EXPRESSION
    rm -rf "$w/$1"
    cp -r kernels "$w/$1"
    [ -n "$2" ] && sed -i "$3" "$w/$1/$2"
}
variant base "" ""
variant no_sampling eye_sample.cl 's/base < samples; base += 8 \* size/base < 0; base += 8 * size/'
variant no_zeroing eye_count.cl 's|i < (tile_len + 1) / 2; i += size)|i < 0; i += size)|'
variant no_flush eye_count.cl 's/i < tile_len; i += 4 \* size/i < 0; i += 4 * size/'
variant after_eye eye_tile.cl 's|^    const uint batch = group / per_batch;|    return;\n    const uint batch = group / per_batch;|'
variant empty_tile eye_window.cl '0,/^    const uint lid = get_local_id(0);/s//    return;\n    const uint lid = get_local_id(0);/'
variant empty_reduce eye_reduce.cl 's|^    const uint gid = (uint)get_global_id(0);|    return;\n    const uint gid = (uint)get_global_id(0);|'

printf '%-13s %-5s %9s %9s %9s\n' variant input tile_us reduce_us iter_us
for v in base no_sampling no_zeroing no_flush after_eye empty_tile empty_reduce; do
    for f in tiny test; do
        ./histo --platform "$platform" --device "$device" --strategy eye \
            --kernels "$w/$v" -i "$w/$f.bin" -o "$w/x.bmp" --timing "$w/x.out" \
            -- "$its" >/dev/null 2>"$w/err" || { echo "$v $f: $(tail -n 2 "$w/err")"; continue; }
        get() { sed -n "s/^$1 = //p" "$w/x.out"; }
        printf '%-13s %-5s %9s %9s %9s\n' "$v" "$f" "$(get kernel.eye_tile.median_us)" \
            "$(get kernel.eye_reduce.median_us)" "$(get iteration.device.median_us)"
    done
done
