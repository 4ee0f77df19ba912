#!/bin/sh
# tests/work.sh - the input in pieces (work.h), byte for byte against the
# reference on every correctness input and strategy: in about 3 chunks
# on the device; streamed past a device budget of two chunks (about 5
# chunks, copied every iteration); and split between two queues on the
# test device named twice, each share in 2 chunks. 3 iterations each.
# And three shares on the device named three times, each streamed in
# chunks, over 9 iterations: every set of partial sums in flight (4,
# work.h) is used again, its reuse ordered by events alone.
# ids: work
SUBJECT=work
. "$(dirname "$0")/lib.sh"

twice=${DEVICE:-0},${DEVICE:-0}
for name in $(case_names); do
    any=""
    for mode in chunks streamed shares sets; do
        for s in $STRATEGIES; do wanted "work.$mode.$s.$name" && any=yes; done
    done
    [ -n "$any" ] || continue
    need_case "$name" || continue
    in=$INPUTS/$name.bin
    n=$(( $(wc -c <"$in") / 4 - 4 ))
    for mode in chunks streamed shares sets; do
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
                want="shares = 3" iters=9 ;;
        esac
        for s in $STRATEGIES; do
            id=work.$mode.$s.$name
            wanted "$id" || continue
            X_ITERS=$iters exact "$id" "$W/$name.$s.$mode" "$INPUTS/$name.ref.bmp" \
                "$want" --strategy "$s" "$@" -i "$in"
        done
    done
done
