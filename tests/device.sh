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

# The fused program is built with the fence histo.out names (src/device.h),
# and fused is the default only where that fence is of device scope.
id=device.fused.fence
first=$(case_names | head -n 1)
if wanted "$id" && [ -f "$W/$first.fused.bdefault.out" ]; then
    why=$(fence_mismatch "$W/$first.fused.bdefault")
    if [ -n "$why" ]; then
        bad "$id" "$why"
    else
        ok "$id ($(sed -n 's/^config\.fence = //p' "$W/$first.fused.bdefault.out"))"
    fi
fi
