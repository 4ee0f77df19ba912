#!/bin/sh
# tests/device.sh - every strategy byte for byte against the sequential
# reference on the correctness inputs (lib.sh's CASES: distributions,
# shapes, one bin, sweeps, 16.7M values), at the batch counts each case
# names; 3 iterations each, so that state left over from one iteration
# would show.
# ids: device gen ref
SUBJECT=device
. "$(dirname "$0")/lib.sh"

for name in $(case_names); do
    any=""
    for s in $STRATEGIES; do wanted "device.$s.$name" && any=yes; done
    [ -n "$any" ] || continue
    need_case "$name" || continue
    in=$INPUTS/$name.bin
    for s in $STRATEGIES; do
        for b in $(case_batches "$name"); do
            id=device.$s.$name.batches_$b
            wanted "$id" || continue
            set -- --strategy "$s"
            [ "$b" = default ] || set -- "$@" --batches "$b"
            exact "$id" "$W/$name.$s.b$b" "$INPUTS/$name.ref.bmp" "" \
                "$@" -i "$in"
        done
    done
done
