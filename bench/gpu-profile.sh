#!/bin/sh
# bench/gpu-profile.sh - NVIDIA's register report for the eye kernels
# (-cl-nv-verbose through $HISTO_CL_OPTIONS): registers, spills and local
# memory per kernel, which decide how many groups an SM holds.
#   sh bench/gpu-profile.sh OUTDIR [KERNEL_DIR]   (INPUT: an input of
#   gpu-inputs.sh, default test; wide also builds eye_tile_2d)
# Nsight Compute 2025.3 does not see OpenCL kernels ("No kernels were
# profiled"), so there is no counter profile here.
set -u
cd "$(dirname "$0")/.." || exit 1
out=$1
kdir=${2:-kernels}
mkdir -p "$out"
platform=${PLATFORM:-NVIDIA CUDA}
device=${DEVICE:-GPU}
. bench/gpu-inputs.sh
HISTO_CL_OPTIONS=-cl-nv-verbose ./histo --platform "$platform" --device "$device" \
    --strategy eye --kernels "$kdir" -i "$w/${INPUT:-test}.bin" -o "$w/p.bmp" -- 1 \
    >"$out/regs.log" 2>&1
grep -E "Compiling entry|registers|spill" "$out/regs.log"
