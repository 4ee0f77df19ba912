#!/bin/sh
# bench/gpu-check.sh - one batch of work for a lent GPU machine: build, run
# the whole correctness suite on the GPU, then time the workload on
# inputs of gpu-inputs.sh, byte-checked against the sequential reference.
#   sh bench/gpu-check.sh [OUTDIR]   (PLATFORM/DEVICE default to NVIDIA's GPU)
#   SHARES="16 32 64" sweeps $HISTO_EYE_SHARE_INV (default 16, as shipped).
set -u
cd "$(dirname "$0")/.." || exit 1
out=${1:-${OUT:-/tmp/gpu-check}}
mkdir -p "$out"
platform=${PLATFORM:-NVIDIA CUDA}
device=${DEVICE:-GPU}
iterations=${ITERATIONS:-2000}
{
    date
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv 2>&1
    make -j8 all 2>&1 | tail -n 3
    ./histo --list
} >"$out/setup.log" 2>&1
cat "$out/setup.log"

if [ -z "${SKIP_TESTS:-}" ]; then
    HISTO_TEST_PLATFORM="$platform" HISTO_TEST_DEVICE="$device" sh tests/run.sh \
        >"$out/tests.log" 2>&1
    grep -v '^PASS' "$out/tests.log"
fi

. bench/gpu-inputs.sh
# wg: the tile kernel's work-group size; reqd: the size it was built for
# with reqd_work_group_size (0: built without; docs/design.md)
printf '%-8s %5s %6s %6s %5s %5s %5s %9s %9s %9s %9s %s\n' input share groups batch \
    tiles wg reqd tile_us reduce_us iter_us wall_us check | tee "$out/summary.txt"
for share in ${SHARES:-16}; do
    for name in test wide uniform onebin; do
        tag="$name.s$share"
        HISTO_EYE_SHARE_INV=$share ./histo --platform "$platform" --device "$device" \
            -i "$w/$name.bin" -o "$w/$tag.bmp" --raw "$w/$tag.raw" --timing "$out/$tag.out" \
            -- "$iterations" >"$out/$tag.log" 2>&1
        rc=$?
        check=$(cmp -s "$w/$tag.raw" "$w/$name.ref.raw" && cmp -s "$w/$tag.bmp" "$w/$name.ref.bmp" \
                && echo byte-exact || echo "DIFFERS rc=$rc")
        get() { sed -n "s/^$1 = //p" "$out/$tag.out"; }
        printf '%-8s %5s %6s %6s %5s %5s %5s %9s %9s %9s %9s %s\n' "$name" "$share" \
            "$(get config.groups)" "$(get config.batches)" "$(get eye.tiles_used)" \
            "$(get config.work_group.eye_tile)" "$(get config.work_group_required.eye_tile)" \
            "$(get kernel.eye_tile.median_us)" "$(get kernel.eye_reduce.median_us)" \
            "$(get iteration.device.median_us)" "$(get iteration.wall_mean_us)" \
            "$check" | tee -a "$out/summary.txt"
    done
done

# EXTRA=1: where the time of a small input goes (fixed cost per group,
# batches).
if [ -n "${EXTRA:-}" ]; then
    build/histo-gen -o "$w/tiny.bin" --seed 1 --image 64x64
    for args in "tiny.bin" "tiny.bin --batches 1" "test.bin --batches 8" \
                "test.bin --batches 16" "test.bin --batches 64" "test.bin --batches 128"; do
        set -- $args
        f=$1
        shift
        ./histo --platform "$platform" --device "$device" -i "$w/$f" "$@" \
            -o "$w/x.bmp" --timing "$out/x.out" -- "$iterations" >/dev/null 2>&1
        get() { sed -n "s/^$1 = //p" "$out/x.out"; }
        echo "$args: groups $(get config.groups) batches $(get config.batches) tiles $(get eye.tiles_used)" \
             "tile $(get kernel.eye_tile.median_us) reduce $(get kernel.eye_reduce.median_us)" \
             "iter $(get iteration.device.median_us)" | tee -a "$out/summary.txt"
    done
fi
