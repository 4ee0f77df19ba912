#!/bin/sh
# bench/gpu-variants.sh - build histo with changed constants of src/params.h
# (each variant in its own build folder; the tree is restored after) and
# time every variant on inputs of gpu-inputs.sh, byte-checked against
# the reference.
#   VARIANTS="name:sed-expression
#   name2:sed-expression" sh bench/gpu-variants.sh   (one variant a line;
#   INPUTS, ITERATIONS, ROUNDS; STRATEGY, default eye)
set -u
cd "$(dirname "$0")/.." || exit 1
platform=${PLATFORM:-NVIDIA CUDA}
device=${DEVICE:-GPU}
its=${ITERATIONS:-2000}
make -j8 all >/dev/null 2>&1 || exit 1
. bench/gpu-inputs.sh
cp src/params.h "$w/params.h.orig"
bins="base:./histo"
printf '%s\n' "$VARIANTS" >"$w/variants.txt"
while IFS= read -r v; do
    [ -n "$v" ] || continue
    tag=${v%%:*}
    expr=${v#*:}
    cp "$w/params.h.orig" src/params.h
    sed -i "$expr" src/params.h
    if cmp -s src/params.h "$w/params.h.orig"; then
        echo "$tag: the expression changed nothing"; continue
    fi
    make BUILD="build-$tag" HISTO_BIN="build-$tag/histo" "build-$tag/histo" \
        >"$w/build-$tag.log" 2>&1 || { echo "$tag: build failed"; continue; }
    bins="$bins $tag:build-$tag/histo"
done <"$w/variants.txt"
cp "$w/params.h.orig" src/params.h
printf '%-12s %-8s %5s %5s %6s %9s %9s %9s %s\n' variant input group B tiles tile_us \
    reduce_us iter_us check
# ROUNDS passes over all variants, interleaved, so drift shows as spread
for round in $(seq "${ROUNDS:-1}"); do
for b in $bins; do
    tag=${b%%:*}
    exe=${b#*:}
    for name in ${INPUTS:-spec test wide uniform onebin}; do
        $exe --platform "$platform" --device "$device" --strategy "${STRATEGY:-eye}" \
            -i "$w/$name.bin" -o "$w/v.bmp" --raw "$w/v.raw" --timing "$w/v.out" -- "$its" \
            >/dev/null 2>"$w/v.err" || { echo "$tag $name: $(tail -n 1 "$w/v.err")"; continue; }
        get() { sed -n "s/^$1 = //p" "$w/v.out"; }
        printf '%-12s %-8s %5s %5s %6s %9s %9s %9s %s\n' "$tag" "$name" \
            "$(get config.work_group.eye_tile)" "$(get config.batches)" "$(get eye.tiles_used)" \
            "$(get kernel.eye_tile.median_us)" "$(get kernel.eye_reduce.median_us)" \
            "$(get iteration.device.median_us)" \
            "$(cmp -s "$w/v.raw" "$w/$name.ref.raw" && cmp -s "$w/v.bmp" "$w/$name.ref.bmp" \
               && echo byte-exact || echo DIFFERS)"
    done
done
done
