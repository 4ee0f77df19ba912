#!/bin/sh
# bench/scaling.sh - make scaling: time per iteration and effective GB/s
# as the input grows, resident and streamed, on one device or several,
# every output checked byte for byte against the sequential reference.
#
#   make scaling [PLATFORM=...] [DEVICE=...] [SIZES="1M 16M 268M 1G"]
#                [MODES="device streamed"] [SHARES="0 0,1"] [MIN_SECONDS=1]
#
# Inputs: the Gaussian eye of the Spec datasets (histo-gen's default, into
# 256x8192) at 1024^2 (1M), 4096^2 (16M), 16384^2 (268M) and 32768^2 (1G,
# the 268M image's values four times over, under its own header: the same
# shape, without generating 4 GiB value by value). They are written into
# build/scaling (5.4 GB for all four; sizes that do not fit the free disk
# space are skipped with a message) and kept for the next run.
#
# MODES: device (resident: the input in device buffers, read once) and
# streamed (--device-budget half of each device's share of the input's
# bytes: the input stays in host memory and is copied to the device every iteration). SHARES: the
# --device values to run with, e.g. "0 0,1" for one GPU and two (default:
# DEVICE, else the platform's first device).
#
# Columns: input, values, mode, devices, us per iteration (one device:
# the median of histo.out's iteration.device, on the device clock;
# several devices, or unusable timestamps: the timed loop's wall mean,
# iteration.wall_mean_us, which every row also carries: their gathers
# trail their counting, so an iteration's span is not its time), effective GB/s
# (input bytes / median), the median copy and
# kernel time per iteration (their sum above the iteration's time is the
# overlap achieved), chunks, peak RSS, check. Rows are appended to
# results/scaling.jsonl, drawn in scaling.svg beside it (bench/plot.sh: log-log;
# make scaling measures no floor).
set -u
cd "$(dirname "$0")/.." || exit 1
B=build
W=$B/scaling
mkdir -p "$W" results || exit 1
SIZES=${SIZES:-1M 16M 268M 1G}
MODES=${MODES:-device streamed}
MIN_SECONDS=${MIN_SECONDS:-1}
unset HISTO_PLATFORM HISTO_DEVICE HISTO_KERNEL_DIR
# which source ran (tools/provenance.sh)
read -r commit modified sources <<EOF_ID
$(sh tools/provenance.sh ./histo)
EOF_ID
. validate/record.sh
SHARES=${SHARES:-${DEVICE:-first}}
key() { sed -n "s/^$2 = //p" "$1"; }

# input_file SIZE: the input's path, generated if missing.
input_file() {
    # the 1G input is made from the 268M one (its variables first: this
    # function sets globals)
    src=""
    [ "$1" = 1G ] && { src=$(input_file 268M) || return 1; }
    case $1 in
        1M) side=1024 ;;
        16M) side=4096 ;;
        67M) side=8192 ;;
        268M) side=16384 ;;
        1G) side=32768 ;;
        *) echo "scaling: unknown size '$1' (1M, 16M, 67M, 268M, 1G)" >&2; return 1 ;;
    esac
    f=$W/eye$1.bin
    if [ -s "$f" ]; then echo "$f"; return 0; fi
    need_kb=$((side / 1024 * side / 1024 * 4 * 1024 + 1048576))
    free_kb=$(df -Pk "$W" | awk 'NR == 2 { print $4 }')
    if [ "${free_kb:-0}" -lt "$need_kb" ]; then
        echo "scaling: $1 skipped: ${free_kb:-?} KiB free in $W, $need_kb needed" >&2
        return 1
    fi
    if [ "$1" = 1G ]; then
        # header: 32768 x 32768 into 256 x 8192, then the 268M values x4
        { printf '\000\200\000\000\000\200\000\000\000\001\000\000\000\040\000\000'
          for i in 1 2 3 4; do tail -c +17 "$src"; done
        } >"$f.tmp" && mv "$f.tmp" "$f" || { rm -f "$f.tmp"; return 1; }
    else
        $B/histo-gen -o "$f.tmp" --seed 5 --image "${side}x$side" \
            && mv "$f.tmp" "$f" || { rm -f "$f.tmp"; return 1; }
    fi
    echo "$f"
}

stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
printf '%-5s %10s %-8s %-8s %-26s %11s %7s %11s %11s %6s %8s %s\n' \
    input values mode devices device iter_us GB/s copy_us kernels_us chunks RSS_MB check
status=0
for size in $SIZES; do
    in=$(input_file "$size") || { status=1; continue; }
    [ -s "$W/$size.ref.raw" ] && [ "$W/$size.ref.raw" -nt "$in" ] \
        || $B/histo-ref "$in" "$W/$size.ref.bmp" "$W/$size.ref.raw" >/dev/null \
        || { status=1; continue; }
    bytes=$(($(wc -c <"$in") - 16))
    for devs in $SHARES; do
        for mode in $MODES; do
            set --
            [ -n "${PLATFORM:-}" ] && set -- "$@" --platform "$PLATFORM"
            [ "$devs" = first ] || set -- "$@" --device "$devs"
            # streamed: every device's share over its budget
            ndev=$(echo "$devs" | awk -F, '{ print NF }')
            # all: the platform's devices (PLATFORM by number, else 0)
            [ "$devs" = all ] && ndev=$(./histo --list | awk -v p="platform ${PLATFORM:-0}:" '
                index($0, p) == 1 { on = 1; next } /^platform/ { on = 0 }
                on && /^  device/ { n++ } END { print (n > 0 ? n : 1) }')
            [ "$mode" = device ] || set -- "$@" --device-budget $((bytes / 2 / ndev))
            tag=$size.$mode.$(echo "$devs" | tr ',' '_')
            out=$W/$tag.out
            ./histo "$@" -i "$in" -o "$W/$tag.bmp" --timing "$W/$tag.probe.out" -- 3 \
                >/dev/null 2>"$W/$tag.err" \
                || { cat "$W/$tag.err" >&2; status=1; continue; }
            per=$(key "$W/$tag.probe.out" iteration.wall_mean_us)
            its=$(awk -v s="$MIN_SECONDS" -v p="$per" 'BEGIN { n = int(s * 1e6 / p) + 1;
                if (n < 5) n = 5; if (n > 100000) n = 100000; print n }')
            ./histo "$@" -i "$in" -o "$W/$tag.bmp" --raw "$W/$tag.raw" \
                --timing "$out" -- "$its" >/dev/null 2>"$W/$tag.err" \
                || { cat "$W/$tag.err" >&2; status=1; continue; }
            if cmp -s "$W/$tag.raw" "$W/$size.ref.raw"; then check=byte-exact
            else check=DIFFERS; status=1; fi
            rm -f "$W/$tag.bmp" "$W/$tag.raw"
            iter=""
            [ "$(key "$out" shares)" = 1 ] && iter=$(key "$out" iteration.device.median_us)
            # unusable device timestamps: timed on the host; several
            # devices whose clocks disagree: the timed loop's wall mean
            [ -n "$iter" ] || iter=$(key "$out" iteration.host.median_us)
            [ -n "$iter" ] || iter=$(key "$out" iteration.wall_mean_us)
            copy=$(key "$out" iteration.transfer.median_us)
            kern=$(key "$out" iteration.kernels.median_us)
            rss=$(key "$out" memory.peak_rss_bytes)
            awk -v s="$size" -v v="$(key "$out" input.values)" -v m="$mode" \
                -v d="$devs" -v dev="$(key "$out" selected.name)" -v it="$iter" \
                -v b="$bytes" -v c="${copy:--}" -v k="$kern" \
                -v n="$(key "$out" input.chunks)" -v r="$rss" -v ch="$check" 'BEGIN {
                printf "%-5s %10d %-8s %-8s %-26.26s %11.1f %7.1f %11s %11.1f %6d %8.0f %s\n",
                    s, v, m, d, dev, it, b / (it * 1e3), c, k, n, r / 1e6, ch }'
            rec_start "$W/row.fields"
            rec_put s time "$stamp"
            rec_put s input "eye$size"
            rec_put n values "$(key "$out" input.values)"
            rec_put s mode "$mode"
            rec_put s devices "$devs"
            rec_put n shares "$(key "$out" shares)"
            rec_put z device "$(key "$out" selected.name)"
            rec_put z platform "$(key "$out" selected.platform_name)"
            rec_put z strategy "$(key "$out" strategy)"
            rec_put n iterations "$its"
            rec_put n iteration_median_us "$iter"
            rec_put n wall_mean_us "$(key "$out" iteration.wall_mean_us)"
            rec_put n commands_per_iteration "$(key "$out" commands.per_iteration)"
            rec_put n launches_per_iteration "$(key "$out" commands.launches_per_iteration)"
            rec_put z timed_by "$(key "$out" iteration.timed_by | cut -d' ' -f1)"
            rec_put n transfer_median_us "$copy"
            rec_put n kernels_median_us "$kern"
            rec_put n chunks "$(key "$out" input.chunks)"
            rec_put n chunk_values "$(key "$out" input.chunk_values)"
            rec_put z host_memory "$(key "$out" input.host_memory)"
            rec_put n peak_rss_bytes "$rss"
            rec_put s check "$check"
            rec_source_fields "$commit" "$modified" "$sources" "$(key "$out" build.kernel_sources)"
            # one JSON line per row, made by jq, appended under a lock
            rec_append "${RESULTS_ROOT:-results}/scaling.jsonl" "scaling: eye$size $mode" || status=1
        done
    done
done
sh bench/plot.sh "${RESULTS_ROOT:-results}/scaling.jsonl" "${RESULTS_ROOT:-results}/scaling.svg" "make scaling" || status=1
exit $status
