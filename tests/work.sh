#!/bin/sh
# tests/work.sh - the input in pieces (work.h), byte for byte against the
# reference on every correctness input and strategy: in about 3 chunks
# on the device; streamed past a device budget of two chunks (about 5
# chunks, copied every iteration); and split between two queues on the
# test device named twice, each share in 2 chunks. 3 iterations each.
# And three shares on the device named three times, each streamed in
# chunks, with 3 sets of partial sums in flight (HISTO_TEST_SETS) over 7
# iterations: every set is used again, its reuse ordered by events
# alone; and once with all 16 sets (work.h) over 17 iterations. Several
# shares profile one iteration in 32 and each batch's last (work.h,
# run.h), and move the sums of up to 4 unprofiled iterations together
# (a batch within a block of sets; a profiled iteration alone): the
# shares' 3 iterations profile the last alone, after a batch of two;
# the sets' 7 one in 4 (HISTO_TEST_PROFILE_EVERY), so that with 3 sets a
# batch they make a whole batch, a profiled one alone, a batch cut by a
# block's end and one by the run's, and leave the last unprofiled
# (HISTO_TEST_LAST_PLAIN), so that the histogram checked is one made on
# the queues without profiling and moved in a batch; all 16 sets' 17
# profile every one, as one share does. Then batches of 4 as they run
# by default, each set used again: the three streamed shares over 23
# iterations (two sending shares, a copy each in rows), and each
# strategy that counts into the sums in place on two shares of one
# chunk (one sending share) with 4 sets over 11. make test runs the
# cells of tests/pairs/work.pairs (mode x strategy x input) and a slice of
# the rest, make test-full all of them (tests/tier.sh).
# ids: work
# parts: sets streamed shares chunks
SUBJECT=work
. "$(dirname "$0")/lib.sh"

# HISTO_TEST_PART (tests/run.sh): one mode alone, --device all with the
# shares; unset: every mode.
modes=${HISTO_TEST_PART:-chunks streamed shares sets}

twice=${DEVICE:-0},${DEVICE:-0}
for name in $(case_names); do
    any=""
    for mode in $modes; do
        for s in $STRATEGIES; do
            wanted "work.$mode.$s.$name" && in_tier work "$mode $s $name" && any=yes
        done
    done
    [ -n "$any" ] || continue
    need_case "$name" || continue
    in=$INPUTS/$name.bin
    n=$(( $(wc -c <"$in") / 4 - 4 ))
    for mode in $modes; do
        want="input.residency = device"
        iters=3
        case $mode in
            chunks) set -- --chunk-values $((n / 3 + 1)) ;;
            streamed)
                c=$((n / 5 + 1))
                set -- --chunk-values $c --device-budget $((8 * c))
                [ $((4 * n)) -le $((8 * c)) ] || want="input.residency = streamed" ;;
            shares)
                set -- --chunk-values $((n / 4 + 1)) --device "$twice"
                want="shares = 2" ;;
            sets)
                c=$((n / 9 + 1))
                set -- --chunk-values $c --device-budget $((8 * c)) \
                    --device "$twice,${DEVICE:-0}"
                want="shares = 3" iters=7 ;;
        esac
        HISTO_TEST_SETS="" HISTO_TEST_PROFILE_EVERY="" HISTO_TEST_LAST_PLAIN=""
        [ "$mode" != sets ] \
            || HISTO_TEST_SETS=3 HISTO_TEST_PROFILE_EVERY=4 HISTO_TEST_LAST_PLAIN=1
        export HISTO_TEST_SETS HISTO_TEST_PROFILE_EVERY HISTO_TEST_LAST_PLAIN
        for s in $STRATEGIES; do
            id=work.$mode.$s.$name
            wanted "$id" && in_tier work "$mode $s $name" || continue
            X_ITERS=$iters exact "$id" "$W/$name.$s.$mode" "$INPUTS/$name.ref.bmp" \
                "$want" --strategy "$s" "$@" -i "$in"
        done
        unset HISTO_TEST_SETS HISTO_TEST_PROFILE_EVERY HISTO_TEST_LAST_PLAIN
    done
done
# all 16 sets, each used again, every iteration profiled: the default
# strategy on the eye, 17 iterations. Then batches of 4 (the last
# unprofiled, moved in a batch): three streamed shares over 23
# iterations, every set used again; two shares of one chunk, with 4
# sets, over 11, for each strategy that counts into the sums in place.
case " $modes " in
    *" sets "*)
        if need_case gauss && { wanted work.sets.all.gauss \
                || wanted work.sets.batched.gauss \
                || wanted work.sets.batched_direct; }; then
            in=$INPUTS/gauss.bin
            n=$(( $(wc -c <"$in") / 4 - 4 ))
            c=$((n / 9 + 1))
            ! wanted work.sets.all.gauss \
                || HISTO_TEST_PROFILE_EVERY=1 X_ITERS=17 exact work.sets.all.gauss "$W/gauss.all16" \
                    "$INPUTS/gauss.ref.bmp" "shares.sets = 16" --chunk-values $c \
                    --device-budget $((8 * c)) --device "$twice,${DEVICE:-0}" -i "$in"
            ! wanted work.sets.batched.gauss \
                || HISTO_TEST_LAST_PLAIN=1 X_ITERS=23 exact work.sets.batched.gauss \
                    "$W/gauss.batched" "$INPUTS/gauss.ref.bmp" "shares.gather_sets = 4" \
                    --chunk-values $c --device-budget $((8 * c)) \
                    --device "$twice,${DEVICE:-0}" -i "$in"
            for s in eye replicated fused; do
                case " $STRATEGIES " in *" $s "*) ;; *) continue ;; esac
                id=work.sets.batched_direct.$s.gauss
                wanted "$id" || continue
                HISTO_TEST_SETS=4 HISTO_TEST_LAST_PLAIN=1 X_ITERS=11 exact "$id" \
                    "$W/gauss.direct.$s" "$INPUTS/gauss.ref.bmp" "shares.gather_sets = 4" \
                    --strategy $s --device "$twice" -i "$in"
            done
        fi
        # an 8 MiB histogram: the sets its bytes allow (WORK_SETS_BYTES,
        # 64 MiB: 8), in batches of 4, exact over 19 iterations
        if wanted work.sets.large_histogram \
           && make_input bighisto --seed 3 --image 256x256 --histo 2048x4096 \
                  --row-mean 2048 --col-mean 1024; then
            HISTO_TEST_PROFILE_EVERY=8 HISTO_TEST_LAST_PLAIN=1 X_ITERS=19 \
                exact work.sets.large_histogram "$W/bighisto" \
                "$INPUTS/bighisto.ref.bmp" "shares.sets = 8" \
                --device "$twice" -i "$INPUTS/bighisto.bin"
        fi ;;
esac

# The host commands histo.out counts (commands.*), against what the plan
# makes by hand: fused on one device is one launch an iteration and
# nothing else enqueued (one chunk, resident; no share to gather). On the
# device named twice, 32 iterations, each share one chunk counted by
# fused into its sum in place: 32 launches a share; iteration 31 is
# profiled (one in 32, and the run's last), the others move in batches of
# 4 by their block of sets (0-3, ..., 24-27), 28-30 closed before the
# profiled 31 moves alone: 9 batches, each one copy to host memory (share
# 1), one copy into the first device and one addition there (share 0):
# launches 32 + 9 and 32, copies 9 each, 73 and 18 over 32 iterations.
commands_case() {
    c_id=$1 c_out=$2 c_want=$3
    shift 3
    c_line=$(X_ITERS=$C_ITERS exact "$c_id" "$c_out" "$INPUTS/gauss.ref.bmp" "" \
                 --strategy fused "$@" -i "$INPUTS/gauss.bin")
    case $c_line in
        PASS*)
            c_got=$(awk -F' = ' '$1 == "commands.launches_per_iteration" { l = $2 }
                $1 == "commands.copies_per_iteration" { c = $2 }
                $1 == "commands.per_iteration" { a = $2 }
                END { print l, c, a }' "$c_out.out")
            case "$c_got" in
                $c_want) ok "$c_id" ;;
                *) bad "$c_id" "exact, but histo.out's launches, copies and commands an iteration are '$c_got', not '$c_want'" ;;
            esac ;;
        *) echo "$c_line" ;;
    esac
}
case " $STRATEGIES " in
    *" fused "*)
        if { wanted work.commands.one || wanted work.commands.shares; } \
           && { [ -z "${HISTO_TEST_PART:-}" ] || [ "$HISTO_TEST_PART" = shares ]; } \
           && need_case gauss; then
            unset HISTO_TEST_SETS HISTO_TEST_PROFILE_EVERY HISTO_TEST_LAST_PLAIN
            ! wanted work.commands.one \
                || C_ITERS=30 commands_case work.commands.one "$W/gauss.commands1" \
                       "1.000 0.000 1.000"
            # markers and barriers vary (a barrier only where a set's last
            # use is not yet seen done): launches and copies exact
            ! wanted work.commands.shares \
                || C_ITERS=32 commands_case work.commands.shares "$W/gauss.commands2" \
                       "2.281 0.562 *" --device "$twice"
        fi ;;
esac

# --device all on three PoCL devices (POCL_DEVICES): every count from one
# to three is measured, and the one used is the rule's (choose.h: the
# fewest within 2% of the least wall mean) applied here to the means
# histo.out reports, whichever it is; the counters exact. Then the count
# forced to one of three (HISTO_TEST_DEVICES_USED), the last measured
# being two, so that the work made again after the measuring is checked
# byte for byte too, in a context of its own, filled from the input
# held in host memory: from the file, and from a FIFO (read once, too).
all_devices() (
    POCL_DEVICES="pthread pthread pthread"
    export POCL_DEVICES
    DEVICE=all
    exact "$@"
)
# forced_one ID OUT CONTEXT ARGS...: with the count forced to one, exact,
# histo.out's devices.context CONTEXT, and one share
forced_one() {
    f_id=$1 f_out=$2 f_context=$3
    shift 3
    f_line=$(HISTO_TEST_DEVICES_USED=1 X_ITERS=5 all_devices "$f_id" "$f_out" \
                 "$INPUTS/gauss.ref.bmp" "devices.context = $f_context" "$@")
    case $f_line in
        PASS*)
            f_shares=$(sed -n 's/^shares = //p' "$f_out.out")
            if [ "$f_shares" = 1 ]; then
                ok "$f_id"
            else
                bad "$f_id" "exact, but histo.out says shares = '$f_shares', not 1"
            fi ;;
        *) echo "$f_line" ;;
    esac
}
if ! wanted work.all_chooses && ! wanted work.all_forced \
        && ! wanted work.all_forced_fifo && ! wanted work.all_forced_unheld \
        && ! wanted work.all_input_edited; then
    :
elif [ -n "${HISTO_TEST_PART:-}" ] && [ "$HISTO_TEST_PART" != shares ]; then
    :
elif [ "$PLATFORM" != "Portable Computing Language" ] || [ -n "${HISTO_TEST_DEVICE:-}" ]; then
    echo "work.all_*: skipped: they register three PoCL devices, and the test device is another"
elif need_case gauss; then
    in=$INPUTS/gauss.bin
    if wanted work.all_chooses; then
        out=$W/gauss.all
        line=$(all_devices work.all_chooses "$out" "$INPUTS/gauss.ref.bmp" \
                   "devices.named = 3" -i "$in")
        case $line in
            PASS*)
                want=$(awk -F' = ' '
                    /^devices\.measured\.[0-9]+\.wall_mean_us = / {
                        split($1, k, "."); t[k[3]] = $2; if (k[3] > n) n = k[3] }
                    END {
                        best = 1
                        for (m = 2; m <= n; ++m) if (t[m] < t[best]) best = m
                        for (m = 1; m < best; ++m) if (t[m] <= t[best] * 1.02) { best = m; break }
                        print n, best }' "$out.out")
                used=$(sed -n 's/^devices\.used = //p' "$out.out")
                shares=$(sed -n 's/^shares = //p' "$out.out")
                if [ "$want" = "3 $used" ] && [ "$shares" = "$used" ] \
                        && grep -q "^histo: --device all: $used of 3 devices" "$out.log"; then
                    ok work.all_chooses
                else
                    bad work.all_chooses "measured, and the count the rule gives: '$want'; devices.used '$used', shares '$shares'"
                fi ;;
            *) echo "$line" ;;
        esac
    fi
    if wanted work.all_forced; then
        forced_one work.all_forced "$W/gauss.forced" \
            "each count's devices alone (the input held in host memory, read once)" \
            -i "$in"
    fi
    # where the host has too little memory for a copy of the input
    # (HISTO_TEST_HOST_BYTES=1, test-only), every count runs in the context
    # of all, the values copied between devices through host memory
    if wanted work.all_forced_unheld; then
        HISTO_TEST_HOST_BYTES=1 forced_one work.all_forced_unheld \
            "$W/gauss.unheld" \
            "every device named (too little host memory to hold a copy of the input)" \
            -i "$in"
    fi
    if wanted work.all_forced_fifo; then
        fifo=$W/gauss.all.fifo
        rm -f "$fifo"
        if mkfifo "$fifo"; then
            cat "$in" >"$fifo" &
            writer=$!
            forced_one work.all_forced_fifo "$W/gauss.forced_fifo" \
                "each count's devices alone (the input held in host memory, read once)" \
                -i "$fifo"
            # a histo that failed before it opened the FIFO leaves the
            # writer waiting
            kill "$writer" 2>/dev/null
            wait "$writer" 2>/dev/null
            rm -f "$fifo"
        else
            bad work.all_forced_fifo "cannot make the FIFO $fifo"
        fi
    fi
    # the file edited in place, its size and time kept, once histo has
    # read it (its descriptor closed, seen in /proc) and while it measures
    # each count: histo reads it once, so the counters are the first
    # read's, exact, the check passed. 300 iterations keep histo running
    # well after its read, whatever the strategy's speed.
    if wanted work.all_input_edited && [ -d /proc/self/fd ]; then
        cp "$in" "$W/edited.bin"
        (POCL_DEVICES="pthread pthread pthread"
         export POCL_DEVICES
         HISTO_TEST_DEVICES_USED=1 $HISTO --platform "$PLATFORM" --device all \
             -i "$W/edited.bin" --no-bmp --raw "$W/edited.raw" \
             --timing "$W/edited.out" -- 300 >"$W/edited.log" 2>&1
         echo $? >"$W/edited.status") &
        runner=$!
        hpid=""
        # the real histo, not the time limit's wrapper or timeout around it
        for _ in $(seq 1 200); do
            hpid=$(pgrep -n -f -- "^$HISTO_REAL .*-i $W/edited.bin") && break
            sleep 0.01
        done
        # until the read is over: as many bytes read as the file holds
        # (rchar only grows, so a poll cannot miss it however short the
        # read) and the file no longer open
        want=$(wc -c <"$W/edited.bin")
        for _ in $(seq 1 2000); do
            kill -0 "$hpid" 2>/dev/null || break
            got=$(sed -n 's/^rchar: //p' "/proc/$hpid/io" 2>/dev/null)
            [ "${got:-0}" -ge "$want" ] \
                && ! ls -l "/proc/$hpid/fd" 2>/dev/null | grep -q "$W/edited.bin" \
                && break
            sleep 0.01
        done
        # the first value's bin moved by one, size and times kept, while
        # histo still runs (else the case would show nothing)
        running=no
        [ -n "$hpid" ] && kill -0 "$hpid" 2>/dev/null && running=yes
        size=$(wc -c <"$W/edited.bin")
        first=$(od -An -tu4 -j16 -N4 "$W/edited.bin" | tr -d ' ')
        touch -r "$W/edited.bin" "$W/edited.time"
        printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $(( (first + 1) % 256 )) $(( (first + 1) / 256 % 256 )) $(( (first + 1) / 65536 % 256 )) 0)" \
            | dd of="$W/edited.bin" bs=1 seek=16 conv=notrunc 2>/dev/null
        touch -r "$W/edited.time" "$W/edited.bin"
        wait "$runner"
        st=$(cat "$W/edited.status")
        if [ "$running" = no ]; then
            bad work.all_input_edited "histo was not seen running when the file was edited (pid '${hpid:-none}')"
        elif [ "$st" = 0 ] && [ "$(wc -c <"$W/edited.bin")" = "$size" ] \
           && ! cmp -s "$in" "$W/edited.bin" \
           && grep -q '^check = PASS$' "$W/edited.out" \
           && cmp -s "$W/edited.raw" "$INPUTS/gauss.ref.raw"; then
            ok work.all_input_edited
        else
            bad work.all_input_edited "status $st, the file $(cmp -s "$in" "$W/edited.bin" && echo unchanged || echo edited): $(tail -n 2 "$W/edited.log")"
        fi
    fi
fi
