#!/bin/sh
# tests/big.sh - a 4 GiB input through a FIFO, byte-exact, its peak RSS
# within 1.25x (tests/big-input.sh): make test counts it in one mode,
# resident or streamed by turns, the slice's K even or odd (tests/tier.sh:
# two commits in a row run both; work.sh runs both modes every time on
# smaller inputs); make test-full in both, and 2^31 + 1 values in one bin
# by every strategy. Not under the sanitizers (make test-asan): their
# shadow memory is not the program's.
# ids: big_input
SUBJECT=big
. "$(dirname "$0")/lib.sh"

if [ "$B" != build ]; then
    echo "SKIP big_input: $B is not the plain build (its RSS is the sanitizer's)"
    exit 0
fi
if [ "$TIER" = full ]; then
    sh tests/big-input.sh "$W" "$PLATFORM" "$DEVICE" "device streamed" "$STRATEGIES"
else
    # each mode takes 20-30 s of this machine's 2 cores, mostly moving
    # 4 GiB through the FIFO and into the device's buffers
    case $HISTO_TEST_SLICE in
        none) mode=device ;;
        *) k=$(echo "${HISTO_TEST_SLICE%/*}" | sed 's/^0*//')  # 08: not octal
           mode=$(( ${k:-0} % 2 )) ;;
    esac
    case $mode in 0) mode=device ;; 1) mode=streamed ;; esac
    echo "big_input: $mode this run (HISTO_TEST_SLICE=$HISTO_TEST_SLICE)"
    sh tests/big-input.sh "$W" "$PLATFORM" "$DEVICE" "$mode"
fi
