#!/bin/sh
# bench/gpu-compare.sh - time kernel folders side by side on inputs
# of gpu-inputs.sh, each output compared byte for byte with the sequential
# reference: sh bench/gpu-compare.sh OUTDIR DIR... (DIR: a copy of
# kernels/ with one change; "kernels" is the tree's own; a file DIR/ENV
# holds VAR=value words to run that folder's histo with). Each input runs
# ROUNDS times per folder, folders interleaved, so drift shows as spread.
#   PLATFORM/DEVICE as for gpu-check.sh; INPUTS, ITERATIONS, ROUNDS;
#   STRATEGY (default eye).
set -u
cd "$(dirname "$0")/.." || exit 1
out=$1
shift
mkdir -p "$out"
platform=${PLATFORM:-NVIDIA CUDA}
device=${DEVICE:-GPU}
its=${ITERATIONS:-2000}
. bench/gpu-inputs.sh
printf '%-8s %-22s %5s %5s %9s %9s %9s %s\n' input kernels B tiles tile_us \
    reduce_us iter_us check | tee -a "$out/compare.txt"
for name in ${INPUTS:-spec test wide uniform onebin}; do
    for round in $(seq "${ROUNDS:-2}"); do
        for dir in "$@"; do
            tag=$(basename "$dir").$name.$round
            # shellcheck disable=SC2046
            env $(cat "$dir/ENV" 2>/dev/null) ./histo --platform "$platform" --device "$device" --strategy "${STRATEGY:-eye}" \
                --kernels "$dir" -i "$w/$name.bin" -o "$w/$tag.bmp" --raw "$w/$tag.raw" \
                --timing "$out/$tag.out" -- "$its" >"$out/$tag.log" 2>&1
            check=$(verdict "$w/$tag" "$name" $?)
            get() { sed -n "s/^$1 = //p" "$out/$tag.out"; }
            printf '%-8s %-22s %5s %5s %9s %9s %9s %s\n' "$name" "$(basename "$dir")" \
                "$(get config.batches)" "$(get eye.tiles_used)" \
                "$(get kernel.eye_tile.median_us)" "$(get kernel.eye_reduce.median_us)" \
                "$(get iteration.device.median_us)" "$check" | tee -a "$out/compare.txt"
        done
    done
done
