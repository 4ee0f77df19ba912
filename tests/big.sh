#!/bin/sh
# tests/big.sh - a 4 GiB input through a FIFO, byte-exact, its peak RSS
# within 1.25x, and (make test-full) 2^31 + 1 values in one bin by every
# strategy (tests/big-input.sh). Not under the sanitizers (make
# test-asan): their shadow memory is not the program's.
# ids: big_input
SUBJECT=big
. "$(dirname "$0")/lib.sh"

if [ "$B" != build ]; then
    echo "SKIP big_input: $B is not the plain build (its RSS is the sanitizer's)"
    exit 0
fi
# make test-full adds 2^31 + 1 values in one bin, by every strategy
if [ "$TIER" = full ]; then
    sh tests/big-input.sh "$W" "$PLATFORM" "$DEVICE" "$STRATEGIES"
else
    sh tests/big-input.sh "$W" "$PLATFORM" "$DEVICE"
fi
