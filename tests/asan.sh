#!/bin/sh
# tests/asan.sh - under the sanitizers (make test-asan): every object
# released, with no leak suppressed. make test-asan suppresses the leaks
# of PoCL's compiles (tests/lsan.supp says which and why), and those
# stacks would hide a CL object histo forgot to release. With the kernel
# cache warm there is no compile: each path runs once to warm it, then
# again with LeakSanitizer suppressing nothing, and must exit 0.
# ids: asan
SUBJECT=asan
. "$(dirname "$0")/lib.sh"

if [ "$B" = build ]; then
    echo "SKIP asan.no_leaks: $B is not the sanitizer build (make test-asan runs them)"
    exit 0
fi
need_case gauss || exit 0
n=$((996 * 1040))
twice=${DEVICE:-0},${DEVICE:-0}
for mode in $STRATEGIES streamed shares tune; do
    case $mode in
        streamed) set -- --chunk-values $((n / 5 + 1)) --device-budget $((8 * (n / 5 + 1))) ;;
        shares) set -- --chunk-values $((n / 4 + 1)) --device "$twice" ;;
        tune) set -- --tune ;;
        *) set -- --strategy "$mode" --chunk-values $((n / 3 + 1)) ;;
    esac
    id=asan.no_leaks.$mode
    HISTO_TUNE_FILE=$W/leak-tune.conf run_histo "$@" -i "$INPUTS/gauss.bin" \
        --no-bmp --raw "$W/leak.raw" --timing "$W/leak.out" -- 2 >"$W/$id.warm.log" 2>&1
    if HISTO_TUNE_FILE=$W/leak-tune.conf LSAN_OPTIONS= run_histo "$@" -i "$INPUTS/gauss.bin" --no-bmp \
           --raw "$W/leak.raw" --timing "$W/leak.out" -- 2 >"$W/$id.log" 2>&1; then
        ok "$id"
    else
        bad "$id" "exit status $?: $(grep -m 1 -A 3 'leak of' "$W/$id.log" | tr '\n' ' ' | head -c 400)"
    fi
done
