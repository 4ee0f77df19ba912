#!/bin/sh
# bench/gpu-builds.sh - time whole source trees side by side on inputs of
# gpu-inputs.sh, each output compared byte for byte with the sequential
# reference: sh bench/gpu-builds.sh OUTDIR DIR... (DIR: a source tree with
# its own src/ and kernels/, such as `git archive COMMIT | tar -x -C DIR`
# makes; "." is this one). Where gpu-compare.sh swaps kernel folders under
# one host program, this compares commits whose host and kernels both
# changed. Each tree is built in place; its histo runs its own kernels.
# Every input runs ROUNDS times per tree, trees interleaved, so drift
# shows as spread.
#   PLATFORM/DEVICE as for gpu-check.sh; INPUTS, ITERATIONS, ROUNDS;
#   STRATEGY (default: the device's default strategy); ENV: VAR=value
#   words every run gets.
set -u
cd "$(dirname "$0")/.." || exit 1
out=$1
shift
mkdir -p "$out" || exit 1
platform=${PLATFORM:-NVIDIA CUDA}
device=${DEVICE:-GPU}
its=${ITERATIONS:-3000}
make -j8 all >"$out/build.log" 2>&1 || { echo "build of . failed: $out/build.log"; exit 1; }
for dir in "$@"; do
    [ "$dir" = . ] && continue
    (cd "$dir" && make -j8 all) >"$out/build-$(basename "$dir").log" 2>&1 \
        || { echo "build of $dir failed"; exit 1; }
done
. bench/gpu-inputs.sh
printf '%-12s %-8s %-6s %5s %5s %9s %9s %s\n' tree input strat tiles bkts \
    iter_us wall_us check | tee -a "$out/builds.txt"
for round in $(seq "${ROUNDS:-2}"); do
    for name in ${INPUTS:-uniform wide5 spec train ref onebin}; do
        for dir in "$@"; do
            tag=$(basename "$(cd "$dir" && pwd)")
            run=$out/$tag.$name.$round
            # shellcheck disable=SC2086 # ENV is a list of words
            env ${ENV:-} "$dir/histo" --platform "$platform" --device "$device" \
                ${STRATEGY:+--strategy "$STRATEGY"} --kernels "$dir/kernels" \
                -i "$w/$name.bin" -o "$run.bmp" --raw "$run.raw" \
                --timing "$run.out" -- "$its" >"$run.log" 2>&1
            check=$(verdict "$run" "$name" $?)
            get() { sed -n "s/^$1 = //p" "$run.out"; }
            printf '%-12s %-8s %-6s %5s %5s %9s %9s %s\n' "$tag" "$name" \
                "$(get strategy)" "$(get eye.tiles_used)" "$(get eye.buckets_used)" \
                "$(get iteration.device.median_us)" "$(get iteration.wall_mean_us)" \
                "$check" | tee -a "$out/builds.txt"
        done
    done
done
