#!/bin/sh
# bench/curve.sh - make curve: the cost of an iteration against the
# input's size, each size beside its floor, every output checked byte for
# byte against the sequential reference.
#
#   make curve [PLATFORM=...] [DEVICE=...] [SIZES="262K 1M ..."]
#              [STRATEGIES="auto eye fused global"] [ITERATIONS=2000]
#
# Inputs: the Gaussian eye of the Spec datasets (histo-gen's default, seed
# 5, into 256x8192) at 512x512 (262K values), 1024x1024 (1M), 1024x2048
# (2M), 2048x2048 (4M), 2048x4096 (8M), 4096x4096 (16M) and 8192x8192
# (67M) values, written into build/curve and kept.
#
# Columns: size, values, strategy (auto: the one it chose), batches B,
# tiles T, counting groups and groups launched, launches an iteration,
# partial bytes written and read (B x T x a tile's bytes), each kernel's
# median, the iteration's device median (us), and the floor of this many
# values measured by build/atomic-probe in the same run: one kernel that
# reads every value, counts it by a local atomic and writes the 2 MiB of
# counters (kernel_floor), with an empty kernel's span beside it; x floor
# is the iteration over that floor. Rows are appended to
# results/curve.jsonl ($RESULTS_ROOT instead of results/ where set), and
# drawn in curve.svg beside it (bench/plot.sh: log-log, with the floor).
set -u
cd "$(dirname "$0")/.." || exit 1
B=build
W=$B/curve
mkdir -p "$W" "${RESULTS_ROOT:-results}" || exit 1
SIZES=${SIZES:-262K 1M 2M 4M 8M 16M 67M}
STRATEGIES=${STRATEGIES:-auto eye fused global}
ITERATIONS=${ITERATIONS:-2000}
unset HISTO_PLATFORM HISTO_DEVICE HISTO_KERNEL_DIR
read -r commit modified sources <<EOF_ID
$(sh tools/provenance.sh ./histo)
EOF_ID
. validate/record.sh
set --
[ -n "${PLATFORM:-}" ] && set -- "$@" --platform "$PLATFORM"
[ -n "${DEVICE:-}" ] && set -- "$@" --device "$DEVICE"
key() { sed -n "s/^$2 = //p" "$1"; }

# image SIZE: the image's WxH
image() {
    case $1 in
        262K) echo 512x512 ;;
        1M) echo 1024x1024 ;;
        2M) echo 1024x2048 ;;
        4M) echo 2048x2048 ;;
        8M) echo 2048x4096 ;;
        16M) echo 4096x4096 ;;
        67M) echo 8192x8192 ;;
        *) echo "curve: unknown size '$1' ($SIZES)" >&2; return 1 ;;
    esac
}

stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
printf '%-5s %9s %-7s %4s %3s %5s %5s %3s %9s %13s %8s %8s %7s %7s %s\n' \
    size values strat B T count launch L partial_B kernels_us iter_us \
    floor_us x_floor empty check
status=0
for size in $SIZES; do
    img=$(image "$size") || { status=1; continue; }
    in=$W/eye$size.bin
    [ -s "$in" ] || $B/histo-gen -o "$in" --seed 5 --image "$img" \
        || { status=1; continue; }
    [ -s "$in.ref.raw" ] && [ "$in.ref.raw" -nt "$in" ] \
        || $B/histo-ref "$in" "$in.ref.bmp" "$in.ref.raw" \
        || { status=1; continue; }
    probe=$W/eye$size.probe
    rm -f "$probe"
    for strategy in $STRATEGIES; do
        out=$W/eye$size.$strategy.out
        ./histo "$@" --strategy "$strategy" -i "$in" --no-bmp \
            --raw "$W/got.raw" --timing "$out" -- "$ITERATIONS" \
            >/dev/null 2>"$W/err" \
            || { echo "$size $strategy: $(tail -n 1 "$W/err")"; status=1; continue; }
        if cmp -s "$W/got.raw" "$in.ref.raw"; then check=byte-exact
        else check=DIFFERS; status=1; fi
        values=$(key "$out" input.values)
        # the floor, once a size, on the device histo ran on
        # shellcheck disable=SC2046 # two indexes
        [ -s "$probe" ] || $B/atomic-probe $(key "$out" selected.platform) \
            $(key "$out" selected.device) "$values" 2097152 \
            "${PROBE_RUNS:-200}" >"$probe" 2>&1 || cat "$probe" >&2
        floor=$(key "$probe" kernel_floor_median_us)
        empty=$(key "$probe" kernel_empty_median_us)
        kernels="" launches=0
        for k in $(sed -n 's/^kernel\.\(.*\)\.median_us = .*/\1/p' "$out"); do
            kernels="$kernels${kernels:+/}$(key "$out" "kernel.$k.median_us")"
            launches=$((launches + 1))
        done
        tiles=$(key "$out" eye.tiles_used)
        bits=$(key "$out" eye.counter_bits)
        partial=$(awk -v b="$(key "$out" config.batches)" -v t="${tiles:-0}" \
            -v bins="$(key "$out" config.tile_bins)" -v bits="${bits:-16}" \
            'BEGIN { print (b + 0) * (t + 0) * (bins + 0) * (bits == 8 ? 2 : 1) }')
        iter=$(key "$out" iteration.device.median_us)
        awk -v size="$size" -v values="$values" -v strat="$(key "$out" strategy)" \
            -v b="$(key "$out" config.batches)" -v t="${tiles:--}" \
            -v cg="$(key "$out" config.count_groups)" -v g="$(key "$out" config.groups)" \
            -v l="$launches" -v partial="$partial" -v kernels="$kernels" \
            -v iter="$iter" -v floor="${floor:-0}" -v empty="${empty:-0}" \
            -v check="$check" 'BEGIN {
            printf "%-5s %9d %-7s %4s %3s %5s %5s %3d %9d %13s %8.1f %8.1f %7.2f %7.1f %s\n",
                size, values, strat, b == "" ? "-" : b, t, cg == "" ? "-" : cg,
                g == "" ? "-" : g, l, partial, kernels, iter, floor,
                (floor > 0 ? iter / floor : 0), empty, check }'
        rec_start "$W/row.fields"
        rec_put s time "$stamp"
        rec_put s size "$size"
        rec_put n values "$values"
        rec_put z device "$(key "$out" selected.name)"
        rec_put z platform "$(key "$out" selected.platform_name)"
        rec_put z strategy "$(key "$out" strategy)"
        rec_put s asked "$strategy"
        rec_put n iterations "$(key "$out" iterations)"
        rec_put n iteration_device_median_us "$iter"
        rec_put n iteration_wall_mean_us "$(key "$out" iteration.wall_mean_us)"
        for k in $(sed -n 's/^kernel\.\([A-Za-z0-9_]*\)\.median_us = .*/\1/p' "$out"); do
            rec_put n "kernel_${k}_median_us" "$(key "$out" "kernel.$k.median_us")"
        done
        rec_put n launches "$launches"
        rec_put n batches "$(key "$out" config.batches)"
        rec_put n tiles "$tiles"
        rec_put n count_groups "$(key "$out" config.count_groups)"
        rec_put n groups "$(key "$out" config.groups)"
        rec_put n partial_bytes "$partial"
        rec_put n tile_bins "$(key "$out" config.tile_bins)"
        for k in kernel_floor kernel_empty kernel_read_local launch2; do
            rec_put n "probe_${k}_median_us" "$(key "$probe" "${k}_median_us")"
        done
        rec_put s check "$check"
        rec_source_fields "$commit" "$modified" "$sources" "$(key "$out" build.kernel_sources)"
        # one JSON line per row, made by jq, appended under a lock
        rec_append "${RESULTS_ROOT:-results}/curve.jsonl" "curve: $size $strategy" || status=1
    done
done
sh bench/plot.sh "${RESULTS_ROOT:-results}/curve.jsonl" "${RESULTS_ROOT:-results}/curve.svg" "make curve" || status=1
exit "$status"
