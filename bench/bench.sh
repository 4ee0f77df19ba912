#!/bin/sh
# bench/bench.sh - make bench: per-kernel and per-iteration times of histo
# on one device over a set of inputs, next to the sequential C reference
# timed in the same run on this host, every output checked byte for byte.
#
#   make bench [PLATFORM=...] [DEVICE=...] [INPUTS="..."] [STRATEGY=...]
#              [STRATEGIES=all|"S1 S2..."] [MIN_SECONDS=1]
#
# STRATEGIES (default: STRATEGY, else the device's default) runs each
# strategy on every input, "all" every strategy histo has; with more than
# one, a comparison follows the rows: each strategy's median per input,
# its ratio to the fastest strategy on that input and its check, and per
# strategy the spread across inputs (slowest / fastest time per value).
# Where global runs, build/atomic-probe measures its floors on the same
# device in the same run: the uniform input's number of global atomics
# alone, and reading the input alone.
#
# INPUTS (default all): the datasets test, train, ref (Spec/, generated and
# checked by validate/harness.sh) and three 4096x4096 images into 256x8192:
# wide (rows Gaussian around the centre, sigma 205 rows, columns
# sigma 16, 0.5% uniform), uniform (every bin equally likely), onebin (all
# values equal); and two shapes the GPU targets name: h1k (4096x4096
# Gaussian values, sigma 64 both ways, 0.5% uniform, into a 1024x2048
# histogram) and big67 (8192x8192 values, 67M, sigma 64 rows x 16
# columns, into 256x8192); and wide's eye at the two other sizes, since
# what holds for narrow eyes need not for wide ones: wide1m (1024x1024
# values, 1M: the fused strategy's size) and wide67 (8192x8192, 67M).
# Each input is run for enough iterations to give at least MIN_SECONDS
# of work, after a short run (200 iterations) that sizes the count.
#
# Columns: device median us per iteration (start of the first kernel to end
# of the last, from profiling events), each kernel's median, wall-clock mean
# per iteration of the loop, effective GB/s (input bytes / device median),
# the reference's median us and ref/iteration (> 1: histo is faster), the
# two floors on this device with x floor (the iteration / the floor), and
# x_read (the iteration / reading the values alone, HBM on a GPU).
#
# The floors are measured for every input by build/atomic-probe in the
# same run, on the same device, for the input's number of values, each
# counting every value the way histo's run did: by a local atomic where
# histo's eye found a window (eye.tiles_used > 0) or, finding none,
# sorted the values into buckets that are counted in local memory
# (eye.buckets_used = yes), by a global atomic where it sent them to
# global atomics or the strategy is global, not at all for the cpu
# strategy (private histograms, no atomics). floor1 is the hardware's:
# one kernel that reads every value once and counts it (global: the
# atomics alone). floor is the eye
# strategy's shape: an iteration of two kernels enqueued back to back,
# the first reading and counting every value, the second empty, as its
# iterations end with a kernel that reads little (the fused strategy's
# one launch can go below it).
# Rows are appended to results/bench.jsonl ($RESULTS_ROOT instead of
# results/ where set); bench.svg beside it draws them (bench/plot.sh:
# time against values, log-log, the floor beside each device).
set -u
cd "$(dirname "$0")/.." || exit 1
B=build
W=$B/bench
mkdir -p "$W" "${RESULTS_ROOT:-results}" || exit 1
INPUTS=${INPUTS:-test train ref wide uniform onebin h1k big67 wide1m wide67}
MIN_SECONDS=${MIN_SECONDS:-1}
unset HISTO_PLATFORM HISTO_DEVICE HISTO_KERNEL_DIR
# the implementations make run would see for this PLATFORM
OCL_ICD_VENDORS=$(sh validate/harness.sh vendors) || exit 1
[ -n "$OCL_ICD_VENDORS" ] && export OCL_ICD_VENDORS || unset OCL_ICD_VENDORS
# which source ran (tools/provenance.sh)
read -r commit modified sources <<EOF_ID
$(sh tools/provenance.sh ./histo)
EOF_ID
. validate/record.sh
set --
[ -n "${PLATFORM:-}" ] && set -- "$@" --platform "$PLATFORM"
[ -n "${DEVICE:-}" ] && set -- "$@" --device "$DEVICE"
case ${STRATEGIES:-} in
    all) STRATEGIES=$(./histo --list-strategies | tr '\n' ' ') ;;
    "") STRATEGIES=${STRATEGY:-auto} ;;
esac
key() { sed -n "s/^$2 = //p" "$1"; }

input_file() {
    case $1 in
        test | train | ref)
            sh validate/harness.sh dataset "$1" >&2 || return 1
            sed -n 's/^input = //p' "Spec/$1.conf" ;;
        wide | uniform | onebin | h1k | big67 | wide1m | wide67)
            f=$W/$1.bin
            case $1 in
                wide) args="--image 4096x4096 --row-sigma 205 --col-sigma 16 --outliers 5000" ;;
                uniform) args="--image 4096x4096 --dist uniform" ;;
                onebin) args="--image 4096x4096 --dist onebin --bin 1048704" ;;
                h1k) args="--image 4096x4096 --histo 1024x2048 --row-mean 1024 \
                          --col-mean 512 --row-sigma 64 --col-sigma 64 --outliers 5000" ;;
                big67) args="--image 8192x8192 --row-sigma 64 --col-sigma 16 --outliers 5000" ;;
                wide1m) args="--image 1024x1024 --row-sigma 205 --col-sigma 16 --outliers 5000" ;;
                wide67) args="--image 8192x8192 --row-sigma 205 --col-sigma 16 --outliers 5000" ;;
            esac
            # shellcheck disable=SC2086
            [ -s "$f" ] || $B/histo-gen -o "$f" --seed 5 $args || return 1
            echo "$f" ;;
        *) echo "bench: unknown input '$1'" >&2; return 1 ;;
    esac
}

stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
printf '%-8s %9s %-26s %-5s %5s %5s %10s %10s %10s %8s %10s %8s %8s %7s %8s %7s %7s %s\n' \
    input values device strat B w iter_us kernels_us wall_us GB/s ref_us ref/it floor1_us x_floor1 floor_us x_floor x_read check
status=0
rm -f "$W/compare"
for name in $INPUTS; do
    in=$(input_file "$name") || { status=1; continue; }
    [ -s "$W/$name.ref.raw" ] && [ "$W/$name.ref.raw" -nt "$in" ] \
        || $B/histo-ref "$in" "$W/$name.ref.bmp" "$W/$name.ref.raw" \
        || { status=1; continue; }
    ref_us=$($B/ref-bench "$in" "$MIN_SECONDS" | sed -n 's/^reference.median_us = //p')
    for strategy in $STRATEGIES; do
    tag=$name.$strategy
    # size the run: 200 iterations first (with fewer, the first one's cost
    # inflates the mean and the run comes out too short, for an energy
    # counter too), then enough for MIN_SECONDS
    ./histo "$@" --strategy "$strategy" -i "$in" -o "$W/$tag.bmp" --timing "$W/$tag.probe.out" -- 200 \
        >/dev/null 2>"$W/$tag.err" \
        || { cat "$W/$tag.err" >&2; echo "$name $strategy - FAILED" >>"$W/compare"; status=1; continue; }
    per=$(key "$W/$tag.probe.out" iteration.wall_mean_us)
    its=$(awk -v s="$MIN_SECONDS" -v p="$per" 'BEGIN { n = int(s * 1e6 / p) + 1;
        if (n < 10) n = 10; if (n > 1000000) n = 1000000; print n }')
    out=$W/$tag.out
    # the short run's mean includes its start, so the count can come out
    # short of MIN_SECONDS (and of the 1 s NVML's counter needs for an
    # energy figure): then once more, scaled by what the timed loop took
    ran=yes
    for _ in 1 2; do
        ./histo "$@" --strategy "$strategy" -i "$in" -o "$W/$tag.bmp" --raw "$W/$tag.raw" \
            --timing "$out" -- "$its" >/dev/null 2>"$W/$tag.err" || { ran=no; break; }
        its=$(awk -v s="$MIN_SECONDS" -v t="$(key "$out" time.iterations_wall_s)" -v n="$its" \
            'BEGIN { if (t >= s || t <= 0) print 0; else print int(n * s * 1.1 / t) + 1 }')
        [ "$its" -gt 0 ] || break
    done
    [ "$ran" = yes ] \
        || { cat "$W/$tag.err" >&2; echo "$name $strategy - FAILED" >>"$W/compare"; status=1; continue; }
    # byte-exact: the raw counters, then the BMP
    if cmp -s "$W/$tag.raw" "$W/$name.ref.raw" \
       && cmp -s "$W/$tag.bmp" "$W/$name.ref.bmp"; then check=byte-exact
    else check=DIFFERS; status=1; fi
    values=$(key "$out" input.values)
    iter=$(key "$out" iteration.device.median_us)
    # several devices, or unusable device timestamps: timed on the host
    [ -n "$iter" ] || iter=$(key "$out" iteration.host.median_us)
    # the floor (see the top), measured for this many values
    bins=$(key "$out" input.histogram | awk -Fx '{ print $1 * $2 }')
    # shellcheck disable=SC2046 # two indexes
    $B/atomic-probe $(key "$out" selected.platform) $(key "$out" selected.device) \
        "$values" "$bins" "${PROBE_RUNS:-50}" >"$W/$tag.probe" 2>&1 || cat "$W/$tag.probe" >&2
    count_by=local
    [ "$(key "$out" strategy)" = global ] \
        || { [ "$(key "$out" eye.tiles_used)" = 0 ] \
             && [ "$(key "$out" eye.buckets_used)" != yes ]; } \
        && count_by=global
    [ "$(key "$out" strategy)" = cpu ] && count_by=none
    # floor: an iteration of two kernels counting the same way (histo's
    # shape); floor1: one kernel alone (the hardware's); read: reading the
    # values and nothing else
    case $count_by in
        local) floor=$(key "$W/$tag.probe" iteration_local_median_us)
               floor1=$(key "$W/$tag.probe" kernel_read_local_median_us) ;;
        global) floor=$(key "$W/$tag.probe" iteration_global_median_us)
                floor1=$(key "$W/$tag.probe" atomics_median_us) ;;
        # no atomics: reading the values, the faster of the two shapes
        # measured (on a CPU the global strategy's launch shape is slower)
        none) floor=$(key "$W/$tag.probe" iteration_read_median_us)
              floor1=$(awk -v a="$(key "$W/$tag.probe" read_median_us)" -v b="$floor" \
                       'BEGIN { print (a + 0 > 0 && (a < b || b + 0 == 0)) ? a : b }') ;;
    esac
    floor=${floor:-0}
    floor1=${floor1:-0}
    read_us=$(key "$W/$tag.probe" read_median_us)
    read_us=${read_us:-0}
    kernels=""
    for k in $(sed -n 's/^kernel\.\(.*\)\.median_us = .*/\1/p' "$out"); do
        kernels="$kernels${kernels:+/}$(key "$out" "kernel.$k.median_us" | cut -d. -f1)"
    done
    awk -v name="$name" -v values="$values" -v dev="$(key "$out" selected.name)" \
        -v strat="$(key "$out" strategy)" -v b="$(key "$out" config.batches)" \
        -v w="$(key "$out" config.tile_rows)" -v iter="$iter" -v kernels="$kernels" \
        -v wall="$(key "$out" iteration.wall_mean_us)" -v ref="$ref_us" \
        -v check="$check" -v floor="$floor" -v floor1="$floor1" -v rd="$read_us" 'BEGIN {
        printf "%-8s %9d %-26.26s %-5s %5s %5s %10.1f %10s %10.1f %8.1f %10.1f %8.2f %8.1f %7.2f %8.1f %7.2f %7.2f %s\n",
            name, values, dev, strat, b, w, iter, kernels, wall,
            values * 4 / (iter * 1e3), ref, ref / iter, floor1,
            (floor1 > 0 ? iter / floor1 : 0), floor,
            (floor > 0 ? iter / floor : 0), (rd > 0 ? iter / rd : 0), check }'
    rec_start "$W/$tag.fields"
    rec_put s time "$stamp"
    rec_put s input "$name"
    rec_put n values "$values"
    rec_put z device "$(key "$out" selected.name)"
    rec_put z platform "$(key "$out" selected.platform_name)"
    rec_put z strategy "$(key "$out" strategy)"
    rec_put n iterations "$(key "$out" iterations)"
    rec_put n iteration_device_median_us "$iter"
    rec_put n iteration_wall_mean_us "$(key "$out" iteration.wall_mean_us)"
    rec_put n reference_median_us "$ref_us"
    for k in $(sed -n 's/^kernel\.\([A-Za-z0-9_]*\)\.median_us = .*/\1/p' "$out"); do
        rec_put n "kernel_${k}_median_us" "$(key "$out" "kernel.$k.median_us")"
    done
    rec_put n floor_us "$floor"
    rec_put n floor1_us "$floor1"
    rec_put n read_us "$read_us"
    rec_put z floor_count_by "$count_by"
    for k in launch2 read local_atomics atomics kernel_empty \
             kernel_read_local iteration_cas kernel_one_group_pass; do
        rec_put n "probe_${k}_median_us" "$(key "$W/$tag.probe" "${k}_median_us")"
    done
    # energy from the device's own counter (histo.out's energy.*), null
    # where it has none or the run was too short for it
    rec_put z energy_source "$(key "$out" energy.source)"
    rec_put n energy_j_per_iteration "$(key "$out" energy.joules_per_iteration)"
    rec_put n energy_mean_watts "$(key "$out" energy.mean_watts)"
    rec_put s check "$check"
    rec_source_fields "$commit" "$modified" "$sources" "$(key "$out" build.kernel_sources)"
    # one JSON line per row, made by jq, appended under a lock
    rec_append "${RESULTS_ROOT:-results}/bench.jsonl" "bench: $name" || status=1
    echo "$name $(key "$out" strategy) $iter $check $values" >>"$W/compare"
    [ "$(key "$out" strategy)" = global ] && [ "$name" = uniform ] \
        && global_uniform=$iter && probe_at="$(key "$out" selected.platform) $(key "$out" selected.device)"
    done
done

# the strategies side by side
if [ "$(echo "$STRATEGIES" | wc -w)" -gt 1 ] && [ -s "$W/compare" ]; then
    echo
    echo "strategies: median us per iteration (x the fastest on that input), check"
    awk -v list="$STRATEGIES" '
    BEGIN { ns = split(list, st, " ") }
    {
        if (!($1 in seen)) { seen[$1] = 1; order[++ni] = $1 }
        us[$1, $2] = $3; ok[$1, $2] = $4; vals[$1] = $5
        if ($3 != "-" && $4 == "byte-exact" && (!($1 in best) || $3 < best[$1])) best[$1] = $3
    }
    END {
        printf "%-8s", "input"; for (j = 1; j <= ns; j++) printf " %22s", st[j]; printf "\n"
        for (i = 1; i <= ni; i++) {
            n = order[i]; printf "%-8s", n
            for (j = 1; j <= ns; j++) {
                s = st[j]
                if (!((n, s) in us)) cell = "-"
                else if (us[n, s] == "-") cell = "failed"
                else cell = sprintf("%.1f (%.2fx) %s", us[n, s], us[n, s] / best[n],
                                    ok[n, s] == "byte-exact" ? "ok" : "DIFFERS")
                printf " %22s", cell
            }
            printf "\n"
        }
        printf "%-8s", "spread"
        for (j = 1; j <= ns; j++) {
            s = st[j]; lo = hi = ""
            for (i = 1; i <= ni; i++) {
                n = order[i]
                if (!((n, s) in us) || us[n, s] == "-" || vals[n] == 0) continue
                v = us[n, s] / vals[n]
                if (lo == "" || v < lo) lo = v
                if (hi == "" || v > hi) hi = v
            }
            printf " %22s", lo == "" ? "-" : sprintf("%.2fx", hi / lo)
        }
        printf "\n(spread: slowest / fastest time per value across the inputs)\n"
    }' "$W/compare"
fi
rm -f "$W/compare"
if [ -n "${global_uniform:-}" ] && [ -x $B/atomic-probe ]; then
    # shellcheck disable=SC2086 # two indexes
    $B/atomic-probe $probe_at >"$W/probe.out" 2>&1 || cat "$W/probe.out" >&2
    floor=$(key "$W/probe.out" atomics_median_us)
    read_us=$(key "$W/probe.out" read_median_us)
    [ -n "$floor" ] && awk -v g="$global_uniform" -v f="$floor" -v r="$read_us" 'BEGIN {
        printf "global on uniform: %.1f us; floors on this device: %.1f us of atomics alone (%.2fx), %.1f us of reading alone\n",
            g, f, g / f, r }'
fi

sh bench/plot.sh "${RESULTS_ROOT:-results}/bench.jsonl" "${RESULTS_ROOT:-results}/bench.svg" "make bench" || status=1
exit $status
