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
            out=$W/$name.$s.b$b
            if ! run_histo "$@" -i "$in" -o "$out.bmp" \
                --timing "$out.out" -- 3 >"$out.log" 2>&1; then
                bad "$id" "histo failed: $(tail -n 3 "$out.log")"
            elif same_counts "$out.bmp" "$INPUTS/$name.ref.bmp"; then
                ok "$id"
            else
                bad "$id" "$(cat "$W/last.diff")"
            fi
        done
    done
done
