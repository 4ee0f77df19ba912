#!/bin/sh
# bench/cpu-plan.sh - the cpu strategy's wall time per iteration on PoCL
# at several thread counts and input sizes, next to sequential C measured
# in the same call: the rows of docs/bench/cpu-plan-*.md.
#
#   sh bench/cpu-plan.sh OUTDIR LABEL=HISTO [LABEL=HISTO...]
#   RUNS=3 SIZES="1M 4M 16M" THREADS="16 32 default" sh bench/cpu-plan.sh ...
#
# Inputs (build/histo-gen, made once in OUTDIR): 256K = histo-gen's
# default eye on 512x512, 1M = the test dataset (Spec/test.conf's
# generator_args), 4M = the default eye on 2048x2048, 16M = on 4096x4096;
# 256x8192 bins. For each input,
# build/ref-bench INPUT 0.5 runs once per pass (RUNS passes); then each
# HISTO binary (say before and after a change) runs with --strategy cpu
# at each thread count: POCL_CPU_MAX_CU_COUNT and POCL_MAX_PTHREAD_COUNT
# set to T, both unset for "default". Iterations: 200 at 256K, 100 at 1M,
# 40 at 4M, 20 at 16M, after one 3-iteration warm-up per binary and input. Every
# run's own check must pass (else the row says FAIL and the exit status
# is 1). Prints one tab-separated row a run:
#   label threads input values pass wall_us device_us count_us merge_us
#   commands batches units seq_c_us check
# wall_us = iteration.wall_mean_us; commands = kernel entries in histo.out
# (commands per iteration); units = cpu.compute_units where histo.out has
# it, else selected.compute_units.
set -u
[ $# -ge 2 ] || { echo "usage: sh bench/cpu-plan.sh OUTDIR LABEL=HISTO..." >&2; exit 2; }
cd "$(dirname "$0")/.." || exit 1
W=$1
shift
RUNS=${RUNS:-3}
SIZES=${SIZES:-1M 4M 16M}
THREADS=${THREADS:-default}
unset HISTO_PLATFORM HISTO_DEVICE HISTO_KERNEL_DIR POCL_CPU_MAX_CU_COUNT \
    POCL_MAX_PTHREAD_COUNT
mkdir -p "$W" || exit 1
key() { sed -n "s/^$2 = //p" "$1"; }

# run HISTO T INPUT ITERS OUT: one histo run at T threads.
run() {
    if [ "$2" = default ]; then
        "$1" --platform Portable --device CPU --strategy cpu --no-tune-cache \
            -i "$3" --no-bmp --timing "$5" -- "$4"
    else
        POCL_CPU_MAX_CU_COUNT=$2 POCL_MAX_PTHREAD_COUNT=$2 \
            "$1" --platform Portable --device CPU --strategy cpu \
            --no-tune-cache -i "$3" --no-bmp --timing "$5" -- "$4"
    fi
}

status=0
printf 'label\tthreads\tinput\tvalues\tpass\twall_us\tdevice_us\tcount_us\tmerge_us\tcommands\tbatches\tunits\tseq_c_us\tcheck\n'
for size in $SIZES; do
    in="$W/$size.bin"
    case $size in
        256K) args="--image 512x512"; iters=200 ;;
        1M) args=$(sed -n 's/^generator_args = //p' Spec/test.conf); iters=100 ;;
        4M) args="--image 2048x2048"; iters=40 ;;
        16M) args="--image 4096x4096"; iters=20 ;;
        *) echo "unknown size '$size' (256K, 1M, 4M, 16M)" >&2; exit 2 ;;
    esac
    # shellcheck disable=SC2086
    [ -s "$in" ] || build/histo-gen -o "$in" $args >/dev/null || exit 1
    for pair in "$@"; do
        run "${pair#*=}" default "$in" 3 "$W/warm.out" >/dev/null 2>&1
    done
    pass=0
    while [ $pass -lt "$RUNS" ]; do
        pass=$((pass + 1))
        build/ref-bench "$in" 0.5 >"$W/ref.txt" || exit 1
        seq=$(key "$W/ref.txt" reference.median_us)
        for pair in "$@"; do
            label=${pair%%=*}
            for t in $THREADS; do
                o="$W/$label.$t.$size.$pass.out"
                if run "${pair#*=}" "$t" "$in" $iters "$o" >"$W/log" 2>&1 \
                        && [ "$(key "$o" check)" = PASS ]; then
                    check=PASS
                else
                    check=FAIL
                    status=1
                    sed 's/^/  /' "$W/log" >&2
                fi
                units=$(key "$o" cpu.compute_units)
                [ -n "$units" ] || units=$(key "$o" selected.compute_units)
                printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
                    "$label" "$t" "$size" "$(key "$o" input.values)" "$pass" \
                    "$(key "$o" iteration.wall_mean_us)" \
                    "$(key "$o" iteration.device.median_us)" \
                    "$(key "$o" kernel.cpu_count.median_us)" \
                    "$(key "$o" kernel.cpu_merge.median_us)" \
                    "$(grep -c '^kernel\..*\.median_us = ' "$o")" \
                    "$(key "$o" config.batches)" "$units" "$seq" "$check"
            done
        done
    done
done
exit $status
