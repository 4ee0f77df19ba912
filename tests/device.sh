#!/bin/sh
# tests/device.sh - every strategy byte for byte against the sequential
# reference on the correctness inputs (lib.sh's CASES: distributions,
# shapes, one bin, sweeps, 16.7M values), at the batch counts each case
# names; 3 iterations each, so that state left over from one iteration
# would show. make test runs the cells of tests/pairs/device.pairs and a
# slice of the rest, make test-full all of them (tests/tier.sh).
# ids: device gen ref
SUBJECT=device
. "$(dirname "$0")/lib.sh"

for name in $(case_names); do
    any=""
    for s in $STRATEGIES; do
        for b in $(case_batches "$name"); do
            wanted "device.$s.$name.batches_$b" && in_tier device "$s $name $b" && any=yes
        done
    done
    [ -n "$any" ] || continue
    need_case "$name" || continue
    in=$INPUTS/$name.bin
    for s in $STRATEGIES; do
        for b in $(case_batches "$name"); do
            id=device.$s.$name.batches_$b
            wanted "$id" && in_tier device "$s $name $b" || continue
            set -- --strategy "$s"
            [ "$b" = default ] || set -- "$@" --batches "$b"
            exact "$id" "$W/$name.$s.b$b" "$INPUTS/$name.ref.bmp" "" \
                "$@" -i "$in"
        done
    done
done

# The fused program is built with the fence histo.out names (src/device.h),
# and fused is the default only where that fence is of device scope: read
# from the first fused run above.
id=device.fused.fence
f=$(ls "$W"/*.fused.b*.out 2>/dev/null | head -n 1)
if wanted "$id" && [ -n "$f" ]; then
    why=$(fence_mismatch "${f%.out}")
    if [ -n "$why" ]; then
        bad "$id" "$why"
    else
        ok "$id ($(sed -n 's/^config\.fence = //p' "$f"))"
    fi
fi
