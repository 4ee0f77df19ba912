#!/bin/sh
# tests/gpu-check.sh - one batch of work for a lent GPU machine: build, run
# the whole correctness suite on the GPU, then time the workload.
#   sh tests/gpu-check.sh [OUTDIR]   (PLATFORM/DEVICE default to NVIDIA's GPU)
set -u
cd "$(dirname "$0")/.." || exit 1
out=${1:-${OUT:-/tmp/gpu-check}}
mkdir -p "$out"
platform=${PLATFORM:-NVIDIA CUDA}
device=${DEVICE:-GPU}
{
    date
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv 2>&1
    make -j8 all 2>&1 | tail -n 3
    ./histo --list
} >"$out/setup.log" 2>&1
cat "$out/setup.log"

HISTO_TEST_PLATFORM="$platform" HISTO_TEST_DEVICE="$device" sh tests/run.sh \
    >"$out/tests.log" 2>&1
grep -v '^PASS' "$out/tests.log"

w=tests/work/gpu
mkdir -p "$w"
build/histo-gen -o "$w/test.bin" --seed 1
build/histo-gen -o "$w/wide.bin" --seed 1 --image 4096x4096 --row-sigma 205 --col-sigma 16
for name in test wide; do
    build/histo-ref "$w/$name.bin" "$w/$name.ref.bmp"
    ./histo --platform "$platform" --device "$device" -i "$w/$name.bin" \
        -o "$w/$name.bmp" --timing "$out/$name.histo.out" -- 2000 \
        >"$out/$name.log" 2>&1
    echo "$name: rc=$? $(cmp -s "$w/$name.bmp" "$w/$name.ref.bmp" && echo byte-exact || echo DIFFERS)"
    cat "$out/$name.log"
    grep -E '^(config|eye|kernel\..*median|iteration)' "$out/$name.histo.out"
done
