#!/bin/sh
# tests/big-input.sh WORK PLATFORM [DEVICE [MODES [STRATEGIES]]] - a 4 GiB
# input, 2^30 values, counted in each of MODES (default "device streamed":
# resident, and streamed through host memory), each time generated into a
# FIFO in WORK as histo reads it, so that it never takes disk space; with
# STRATEGIES (make test-full), also 2^31 + 1 values in one bin, resident,
# by each strategy named.
#
# The values sweep a 1024x8192 histogram: every bin gets exactly 128, so
# a chunk counted twice or left out shows in every bin it covers. Each
# run must give those counts with a peak resident set (histo.out's
# memory.peak_rss_bytes) of at most 1.25 times the input's bytes: the
# values are held once, in the device's buffers or, streamed, in host
# memory, never copied whole. Prints PASS/FAIL lines for tests/run.sh,
# or one "SKIP" line where memory is short.
set -u
W=$1 PLATFORM=$2 DEVICE=${3:-} MODES=${4:-device streamed} STRATEGIES=${5:-}
B=${HISTO_BUILD:-build}
HISTO=./histo
[ "$B" = build ] || HISTO=$B/histo
# under the suite's time limit where a subject runs this (tests/lib.sh)
HISTO=${HISTO_TIMED:-$HISTO}
in=$W/big30.fifo
bytes=$((16 + 4 * 1073741824))
need_kb=$((bytes / 1024 + 1048576))  # the input and a GiB to spare
avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null)
if [ "${avail_kb:-0}" -lt $((need_kb + 2097152)) ]; then
    echo "SKIP big_input: ${avail_kb:-?} KiB of memory available, $((need_kb + 2097152)) needed"
    exit 0
fi
gen_pid=""
trap 'rm -f "$in"; [ -z "$gen_pid" ] || kill "$gen_pid" 2>/dev/null' EXIT INT TERM
# fed ID ITERATIONS EXTRA GEN-ARGS...: histo (on PLATFORM and DEVICE, with
# EXTRA) counts what histo-gen writes into the FIFO; false, with a FAIL
# line, where either failed
fed() {
    f_id=$1 f_iters=$2 f_extra=$3
    shift 3
    rm -f "$in"
    mkfifo "$in" || { echo "FAIL $f_id: cannot make the FIFO $in"; return 1; }
    $B/histo-gen -o "$in" "$@" >/dev/null 2>"$W/$f_id.gen.err" &
    gen_pid=$!
    # shellcheck disable=SC2086
    $HISTO --platform "$PLATFORM" ${DEVICE:+--device "$DEVICE"} $f_extra \
        -i "$in" -o "$W/$f_id.bmp" --raw "$W/$f_id.raw" \
        --timing "$W/$f_id.out" -- "$f_iters" >"$W/$f_id.log" 2>&1
    f_st=$?
    # a histo that stopped before opening the FIFO leaves the generator
    # waiting for a reader
    [ "$f_st" -eq 0 ] || kill "$gen_pid" 2>/dev/null
    wait "$gen_pid"
    f_gen=$?
    gen_pid=""
    if [ "$f_st" -eq 0 ] && [ "$f_gen" -ne 0 ]; then
        echo "FAIL $f_id: the generator failed (exit $f_gen): $(head -c 300 "$W/$f_id.gen.err")"
        return 1
    elif [ "$f_st" -ne 0 ]; then
        echo "FAIL $f_id: histo failed: $(tail -n 2 "$W/$f_id.log" | tr '\n' ' ')"
        return 1
    fi
}
for mode in $MODES; do
    id=big_input.$mode
    extra=""
    # a budget of 1 GiB: two chunks of 2^25 values, 31 chunks in host memory
    [ $mode = device ] || extra="--device-budget 1G"
    fed "$id" 2 "$extra" --seed 1 --dist sweep --image 32768x32768 \
        --histo 1024x8192 || continue
    rss=$(sed -n 's/^memory.peak_rss_bytes = //p' "$W/$id.out")
    where=$(sed -n 's/^input.residency = //p' "$W/$id.out")
    # bins other than 128, counted without holding 8 MiB in a variable
    off=$(od -An -v -tu1 "$W/$id.raw" | tr -s ' ' '\n' | grep -v '^$' \
          | grep -vc '^128$')
    size=$(wc -c <"$W/$id.raw")
    if [ "$size" -ne 8388608 ] || [ "$off" -ne 0 ]; then
        echo "FAIL $id: $off of $size bins are not 128"
    elif [ "$where" != "$mode" ]; then
        echo "FAIL $id: input.residency = $where, expected $mode"
    elif ! awk -v r="${rss:-0}" -v b="$bytes" 'BEGIN { exit !(r > 0 && r <= 1.25 * b) }'; then
        echo "FAIL $id: peak RSS ${rss:-?} bytes, more than 1.25 x $bytes"
    else
        echo "$id: peak RSS $rss bytes for $bytes bytes of input"
        echo "PASS $id"
    fi
    rm -f "$W/$id.bmp" "$W/$id.raw"
done

# 2^31 + 1 values in bin 1,048,704 of 256x8192 (the eye's centre), resident
# (make test-full): a chunk of 2^31 values, the most one launch counts,
# then a chunk of 1. Every strategy must give 255 there and 0 elsewhere.
[ -n "$STRATEGIES" ] || exit 0
bytes=$((16 + 4 * 2147483649))
need_kb=$((bytes / 1024 + 1048576))
if [ "${avail_kb:-0}" -lt $((need_kb + 2097152)) ]; then
    echo "SKIP big_input.one_bin_2g: ${avail_kb:-?} KiB of memory available, $((need_kb + 2097152)) needed"
    exit 0
fi
hot=1048704
for strategy in $STRATEGIES; do
    id=big_input.one_bin_2g.$strategy
    fed "$id" 1 "--strategy $strategy" --dist onebin --bin $hot \
        --image 3x715827883 --histo 256x8192 || continue
    # the raw counters' bins other than 0, as "bin:count"
    got=$(od -An -v -tu1 "$W/$id.raw" | tr -s ' ' '\n' | grep -v '^$' \
          | awk '$1 != 0 { printf "%s%d:%d", sep, NR - 1, $1; sep = " " }')
    if [ "$got" = "$hot:255" ]; then
        echo "PASS $id"
    else
        echo "FAIL $id: non-zero bins '$(echo "$got" | cut -c1-200)', want '$hot:255'"
    fi
    rm -f "$W/$id.bmp" "$W/$id.raw"
done
