#!/bin/sh
# tests/tune.sh - histo --tune, the tune cache and the knobs' options:
# every candidate's histogram is checked inside histo --tune; here the
# results must equal the reference whatever knobs ran.
# ids: tune tile_rows
SUBJECT=tune
. "$(dirname "$0")/lib.sh"

need_tune_input || exit 0
TIN=$INPUTS/tune.bin
TC=$W/tune.conf
# key_line STRATEGY FILE: the cache line for the tuning input
key_line() { grep "| $1 | 256x8192 | 2^15 = batches [0-9]* tile_rows [0-9]*\( replicas [0-9]*\)\{0,1\}$" "$2"; }
for s in $STRATEGIES auto; do
    id=tune.$s
    with_cache "$TC" run_histo --tune --strategy "$s" -i "$TIN" \
        -o "$W/$id.bmp" --timing "$W/$id.out" -- 2 >"$W/$id.log" \
        2>"$W/$id.err"
    st=$?
    if [ "$st" -ne 0 ]; then
        bad "$id" "exit status $st: $(tail -n 3 "$W/$id.err")"
        continue
    fi
    ran=$(sed -n 's/^strategy = //p' "$W/$id.out")
    if ! grep -q "median us .* mean us .* x best" "$W/$id.log" \
       || ! grep -q "^histo: tune: best B=.* stored in $TC$" "$W/$id.log"; then
        bad "$id" "no table or no best line on stdout"
    elif [ "$(key_line "$ran" "$TC" | wc -l)" -ne 1 ]; then
        bad "$id" "$TC lacks one line for $ran: $(cat "$TC")"
    elif ! grep -q "^config.knobs_from = tuning$" "$W/$id.out" \
       || ! grep -q "^config.tuned = yes$" "$W/$id.out"; then
        bad "$id" "histo.out does not say the knobs came from tuning"
    elif ! same_counts "$W/$id.bmp" "$INPUTS/tune.ref.bmp"; then
        bad "$id" "$(cat "$W/last.diff")"
    else
        ok "$id"
    fi
done
# the eye's table tries fewer tile rows than the maximum too
if echo "$STRATEGIES" | grep -qw eye; then
    if awk '$1 ~ /^[0-9]+$/ && $2 > 0 { n++ } END { exit !(n > 0) }' \
           "$W/tune.eye.log"; then
        ok tune.eye_tries_tile_rows
    else
        bad tune.eye_tries_tile_rows "no candidate with w > 0"
    fi
fi
# --tune copies the input to the device once, for every candidate and the
# run after: counted in PoCL's debug log (POCL_DEBUG=events names each
# command; histo writes no other buffer), so PoCL only.
if [ "$PLATFORM" = "Portable Computing Language" ]; then
    for s in $STRATEGIES; do
        id=tune.one_upload.$s
        (
            POCL_DEBUG=events
            export POCL_DEBUG
            run_histo --tune --no-tune-cache --strategy "$s" -i "$TIN" \
                -o "$W/$id.bmp" --timing "$W/$id.out" -- 1
        ) >"$W/$id.log" 2>"$W/$id.err"
        st=$?
        n=$(sed -n 's/^histo: tune: .*, \([0-9]*\) candidates, .*/\1/p' \
            "$W/$id.log")
        writes=$(cat "$W/$id.log" "$W/$id.err" | grep -c "type: write_buffer")
        if [ "$st" -ne 0 ]; then
            bad "$id" "exit status $st: $(grep -v INFO "$W/$id.err" | tail -n 3)"
        elif [ "${n:-0}" -lt 2 ] && ! grep -q "^strategy.knobs = none$" "$W/$id.out"; then
            bad "$id" "fewer than 2 candidates: $(head -n 1 "$W/$id.log")"
        elif [ "${n:-0}" -ne 1 ] && grep -q "^strategy.knobs = none$" "$W/$id.out"; then
            bad "$id" "$n candidates for a strategy without knobs"
        elif [ "$writes" -eq 0 ]; then
            bad "$id" "no write_buffer in PoCL's debug log: cannot count uploads; update this test"
        elif [ "$writes" -ne 1 ]; then
            bad "$id" "$writes input uploads for $n candidates and the run, not 1"
        elif ! same_counts "$W/$id.bmp" "$INPUTS/tune.ref.bmp"; then
            bad "$id" "$(cat "$W/last.diff")"
        else
            ok "$id"
        fi
    done
fi

# later runs use the cached knobs unless told not to
for s in $STRATEGIES; do
    id=tune.cached.$s
    line=$(key_line "$s" "$TC")
    b=${line##*batches }
    b=${b%% *}
    w=${line##*tile_rows }
    w=${w%% *}
    r=0
    case $line in *" replicas "*) r=${line##*replicas } ;; esac
    if with_cache "$TC" run_histo --strategy "$s" -i "$TIN" \
            -o "$W/$id.bmp" --timing "$W/$id.out" -- 2 >"$W/$id.log" 2>&1 \
       && grep -q "^config.knobs_from = tune cache $TC$" "$W/$id.out" \
       && grep -q "^config.tuned = yes$" "$W/$id.out" \
       && grep -q "^config.knobs.batches = $b$" "$W/$id.out" \
       && grep -q "^config.knobs.tile_rows = $w$" "$W/$id.out" \
       && grep -q "^config.knobs.replicas = $r$" "$W/$id.out" \
       && same_counts "$W/$id.bmp" "$INPUTS/tune.ref.bmp"; then
        ok "$id"
    else
        bad "$id" "cache line '$line'; $(grep '^config.knobs' "$W/$id.out")"
    fi
done
# knobs_from NAME WANT CACHE NO_CACHE [histo args]: where the knobs came
# from with HISTO_TUNE_FILE=CACHE and HISTO_NO_TUNE_CACHE=NO_CACHE.
knobs_from() {
    name=$1 want=$2
    if (HISTO_TUNE_FILE=$3 HISTO_NO_TUNE_CACHE=$4
        export HISTO_TUNE_FILE HISTO_NO_TUNE_CACHE
        shift 4
        run_histo "$@" -i "$TIN" -o "$W/$name.bmp" --timing "$W/$name.out" \
            -- 1 >"$W/$name.log" 2>&1) \
       && grep -q "^config.knobs_from = $want$" "$W/$name.out" \
       && same_counts "$W/$name.bmp" "$INPUTS/tune.ref.bmp"; then
        ok "$name"
    else
        bad "$name" "$(grep '^config.knobs_from' "$W/$name.out" 2>/dev/null || tail -n 2 "$W/$name.log")"
    fi
}
knobs_from tune.no_tune_cache default "$TC" "" --no-tune-cache
knobs_from tune.no_tune_cache_env default "$TC" 1
knobs_from tune.command_line_wins "command line" "$TC" "" --batches 3
knobs_from tune.unreadable_cache default "$W" ""
knobs_from tune.missing_cache default "$W/none/tune.conf" ""

# a hand-written entry is used; a malformed line costs one warning only
if echo "$STRATEGIES" | grep -qw eye; then
    name=$(sed -n 's/^selected.name = //p' "$W/tune.eye.out")
    {
        echo "# written by tests/run.sh"
        echo "this line is not a tune cache entry"
        echo "$name | eye | 256x8192 | 2^15 = batches 3 tile_rows 7"
    } >"$W/tune-hand.conf"
    id=tune.hand_written
    if with_cache "$W/tune-hand.conf" run_histo --strategy eye \
            -i "$TIN" -o "$W/$id.bmp" --timing "$W/$id.out" -- 2 \
            >"$W/$id.log" 2>"$W/$id.err" \
       && grep -q "^config.batches_forced = 3$" "$W/$id.out" \
       && grep -q "^config.tile_rows = 7$" "$W/$id.out" \
       && same_counts "$W/$id.bmp" "$INPUTS/tune.ref.bmp"; then
        ok "$id"
    else
        bad "$id" "$(grep -e '^config.batches_forced' -e '^config.tile_rows' "$W/$id.out" 2>/dev/null) $(tail -n 2 "$W/$id.err")"
    fi
    if [ "$(wc -l <"$W/$id.err")" -eq 1 ] \
       && grep -q "tune-hand.conf:2: malformed tune cache line ignored" "$W/$id.err"; then
        ok tune.malformed_line_warns
    else
        bad tune.malformed_line_warns "stderr: $(head -c 300 "$W/$id.err")"
    fi
fi

# a cached knob the device cannot take: refused before the run, and the
# error names the cache as the knob's source (the user gave no --batches)
if echo "$STRATEGIES" | grep -qw cpu; then
    name=$(sed -n 's/^selected.name = //p' "$W/tune.no_tune_cache.out")
    echo "$name | cpu | 256x8192 | 2^15 = batches 65536 tile_rows 0" >"$W/tune-big.conf"
    id=tune.cached_knob_refused
    with_cache "$W/tune-big.conf" run_histo --strategy cpu \
        -i "$TIN" -o "$W/$id.bmp" --timing "$W/$id.out" -- 2 \
        >"$W/$id.log" 2>&1
    st=$?
    if [ "$st" -eq 4 ] && [ ! -e "$W/$id.bmp" ] \
       && grep -q "the knobs (batches 65536) came from the tune cache $W/tune-big.conf" "$W/$id.log"; then
        ok "$id"
    else
        bad "$id" "exit $st: $(tail -n 2 "$W/$id.log")"
    fi
fi

# --tile-rows changes speed only: w = 1, 7, 64 and the maximum (default)
if echo "$STRATEGIES" | grep -qw eye; then
    need_case twoeye
    need_case h100x37
    for name in tune twoeye h100x37; do
        for w in 1 7 64 default; do
            id=tile_rows.$name.w$w
            set -- --strategy eye
            [ "$w" = default ] || set -- "$@" --tile-rows "$w"
            if run_histo "$@" -i "$INPUTS/$name.bin" -o "$W/$id.bmp" \
                    --timing "$W/$id.out" -- 2 >"$W/$id.log" 2>&1 \
               && same_counts "$W/$id.bmp" "$INPUTS/$name.ref.bmp"; then
                ok "$id"
            else
                bad "$id" "$(cat "$W/last.diff" 2>/dev/null) $(tail -n 2 "$W/$id.log")"
            fi
        done
    done
fi
if run_histo --strategy cpu --tile-rows 7 -i "$TIN" -o "$W/tile_rows.cpu.bmp" \
        --timing "$W/tile_rows.cpu.out" -- 1 >"$W/tile_rows.cpu.log" 2>&1 \
   && grep -q "strategy cpu does not use --tile-rows; ignored" "$W/tile_rows.cpu.log" \
   && same_counts "$W/tile_rows.cpu.bmp" "$INPUTS/tune.ref.bmp"; then
    ok tile_rows.cpu_ignores
else
    bad tile_rows.cpu_ignores "$(tail -n 2 "$W/tile_rows.cpu.log")"
fi

