#!/bin/sh
# tests/big-input.sh WORK PLATFORM [DEVICE] - a 4 GiB input, 2^30 values,
# counted resident and streamed, each time generated into a FIFO in WORK
# as histo reads it, so that it never takes disk space.
#
# The values sweep a 1024x8192 histogram: every bin gets exactly 128, so
# a chunk counted twice or left out shows in every bin it covers. Each
# run must give those counts with a peak resident set (histo.out's
# memory.peak_rss_bytes) of at most 1.25 times the input's bytes: the
# values are held once, in the device's buffers or, streamed, in host
# memory, never copied whole. Prints PASS/FAIL lines for tests/run.sh,
# or one "SKIP" line where memory is short.
set -u
W=$1 PLATFORM=$2 DEVICE=${3:-}
B=${HISTO_BUILD:-build}
HISTO=./histo
[ "$B" = build ] || HISTO=$B/histo
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
set -- --platform "$PLATFORM"
[ -z "$DEVICE" ] || set -- "$@" --device "$DEVICE"
for mode in device streamed; do
    id=big_input.$mode
    extra=""
    # a budget of 1 GiB: two chunks of 2^25 values, 31 chunks in host memory
    [ $mode = device ] || extra="--device-budget 1G"
    rm -f "$in"
    mkfifo "$in" || { echo "FAIL $id: cannot make the FIFO $in"; continue; }
    $B/histo-gen -o "$in" --seed 1 --dist sweep --image 32768x32768 \
        --histo 1024x8192 >/dev/null 2>"$W/$id.gen.err" &
    gen_pid=$!
    # shellcheck disable=SC2086
    $HISTO "$@" $extra -i "$in" -o "$W/$id.bmp" --raw "$W/$id.raw" \
        --timing "$W/$id.out" -- 2 >"$W/$id.log" 2>&1
    st=$?
    # a histo that stopped before opening the FIFO leaves the generator
    # waiting for a reader
    [ "$st" -eq 0 ] || kill "$gen_pid" 2>/dev/null
    wait "$gen_pid"
    gen_st=$?
    gen_pid=""
    if [ "$st" -eq 0 ] && [ "$gen_st" -ne 0 ]; then
        echo "FAIL $id: the generator failed (exit $gen_st): $(head -c 300 "$W/$id.gen.err")"
        continue
    elif [ "$st" -ne 0 ]; then
        echo "FAIL $id: histo failed: $(tail -n 2 "$W/$id.log" | tr '\n' ' ')"
        continue
    fi
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
