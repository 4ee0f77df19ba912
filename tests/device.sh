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

# The cpu strategy's two plans of several batches: one command (its
# groups meet, then merge: the default where the device has a fence of
# device scope and ends no loop early) and two (count, then cpu_merge:
# elsewhere, forced here by HISTO_TEST_CPU_COMMANDS), each exact at 2, 3
# and 16 batches on a shape whose lines end part-way (h100x37), one
# saturated bin and a band at 255; histo.out names the plan run.
if printf '%s\n' $STRATEGIES | grep -qx cpu; then
    for name in gauss h100x37 one_bin band_255; do
        for c in 1 2; do
            for b in 2 3 16; do
                id=device.cpu.commands_$c.$name.batches_$b
                wanted "$id" || continue
                need_case "$name" || continue
                (HISTO_TEST_CPU_COMMANDS=$c
                 export HISTO_TEST_CPU_COMMANDS
                 exact "$id" "$W/$name.cpu$c.b$b" "$INPUTS/$name.ref.bmp" \
                     "cpu.commands_per_iteration = $c" \
                     --strategy cpu --batches "$b" -i "$INPUTS/$name.bin")
            done
        done
    done
    # the default plan of several batches: one command where the fence
    # is of device scope (OpenCL C 2.0 or 3.0's) and no loop ends early
    # (PoCL, Intel's runtime), else two
    id=device.cpu.default_plan
    if wanted "$id" && need_case gauss; then
        exact "$id" "$W/gauss.cpu.default2" "$INPUTS/gauss.ref.bmp" "" \
            --strategy cpu --batches 2 -i "$INPUTS/gauss.bin"
        f=$W/gauss.cpu.default2.out
        fence=$(sed -n 's/^config\.fence = //p' "$f")
        cmds=$(sed -n 's/^cpu\.commands_per_iteration = //p' "$f")
        case $fence in
            *"device scope (OpenCL C"*) want=1 ;;
            *) want=2 ;;
        esac
        [ "$cmds" = "$want" ] || bad "$id.plan" "$cmds commands an iteration of 2 batches with the fence '$fence' (want $want)"
    fi
fi
