#!/bin/sh
# tests/asan.sh - under the sanitizers (make test-asan): every object
# released, with no leak suppressed. make test-asan suppresses the leaks
# of PoCL's compiles (tests/lsan.supp says which and why), and those
# stacks would hide a CL object histo forgot to release. With the kernel
# cache warm there is no compile: each path runs once to warm it, then
# again with LeakSanitizer suppressing nothing, and must exit 0.
# And the fuzzer's seed corpus through histo, in the instrumented process.
# ids: asan
SUBJECT=asan
. "$(dirname "$0")/lib.sh"

if [ "$B" = build ]; then
    echo "SKIP asan.no_leaks: $B is not the sanitizer build (make test-asan runs them)"
    echo "SKIP asan.fuzz_corpus: $B is not the sanitizer build (make test-asan runs it)"
    exit 0
fi
# The fuzzer's seed corpus (tests/fuzz-corpus.sh: small inputs raw and
# gzip, several gzip members, and broken ones) through histo: each read
# and counted (status 0) or refused as an input error (status 3), with no
# sanitizer report.
mkdir -p "$W/corpus"
if ! sh tests/fuzz-corpus.sh "$GEN" "$W/corpus" >"$W/corpus.log" 2>&1; then
    bad asan.fuzz_corpus "tests/fuzz-corpus.sh failed: $(tail -n 2 "$W/corpus.log")"
else
    why=""
    for f in "$W"/corpus/*; do
        run_histo -i "$f" --no-bmp --raw "$W/corpus.raw" --timing "$W/corpus.out" -- 1 \
            >"$W/corpus.one.log" 2>&1
        st=$?
        case $st in
            0 | 3) grep -q -e 'Sanitizer' -e 'runtime error' "$W/corpus.one.log" \
                       && why="$why $(basename "$f"): a sanitizer report;" ;;
            *) why="$why $(basename "$f"): status $st;" ;;
        esac
    done
    if [ -z "$why" ]; then
        ok "asan.fuzz_corpus ($(ls "$W/corpus" | wc -l) inputs)"
    else
        bad asan.fuzz_corpus "$why"
    fi
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
