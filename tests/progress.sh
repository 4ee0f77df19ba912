#!/bin/sh
# tests/progress.sh - histo's progress on stderr during long runs
# (docs/usage.md, "Outputs"). Prints "PASS name" or "FAIL name: why" per
# test and no summary: tests/run.sh counts the lines.
#
# A long run is made cheap with HISTO_PROGRESS_INTERVAL (seconds between
# lines when stderr is not a terminal): iteration counts are chosen from a
# short run's wall time per iteration so that a run lasts about 1.5 s on
# any device (2.5 s on a terminal, whose line starts after a second), and
# lines come every 0.25 s. No test asserts a speed: the numbers in the
# lines are checked against each other and against the run's own
# histo.out. Every file is made here, in a temporary folder.
# ids: progress
set -u
SUBJECT=progress
ID_PREFIX=progress.
. "$(dirname "$0")/lib.sh"
unset HISTO_PROGRESS_INTERVAL
HISTO_TUNE_FILE=$W/tune.conf
export HISTO_TUNE_FILE
histo() { histo_in_w "$@"; }

$B/histo-gen -o "$W/in.bin" --seed 13 --image 600x500 >/dev/null \
    && $B/histo-ref "$W/in.bin" "$W/ref.bmp" "$W/ref.raw" >/dev/null \
    || { bad setup "cannot make the input and its reference"; exit 0; }

# Iterations for about 2.5 s (N) and 1.5 s (N15): from a short run's wall
# mean per iteration, at least 100, at most histo's limit. Where 30
# iterations say more than 3,000 (a GPU, whose first iterations cost more
# than the rest), a tenth of that again, for the steady mean.
# calibrate ITERATIONS: N from a run of that many
calibrate() {
    if ! histo -i in.bin -o cal.bmp --timing cal.out -- "$1" >"$W/cal.log" 2>&1; then
        bad setup "the calibration run failed: $(tail -n 2 "$W/cal.log")"
        exit 0
    fi
    N=$(awk '/^iteration.wall_mean_us = / { n = 2.5e6 / ($3 > 0 ? $3 : 1);
             if (n < 100) n = 100; if (n > 10000000) n = 10000000;
             printf "%d", n }' "$W/cal.out")
    [ -n "$N" ] || { bad setup "no iteration.wall_mean_us in histo.out"; exit 0; }
}
calibrate 30
[ "$N" -le 3000 ] || calibrate $((N / 10))
N15=$((N * 3 / 5))

# secs: awk function turning "12.0 s", "4 min 48 s" or "2 h 5 min" into
# seconds, -1 for anything else.
SECS='function secs(t,   n, a) {
    n = split(t, a, " ")
    if (n == 2 && a[2] == "s" && a[1] ~ /^[0-9]+(\.[0-9])?$/) return a[1]
    if (n == 4 && a[2] == "min" && a[4] == "s") return a[1] * 60 + a[3]
    if (n == 4 && a[2] == "h" && a[4] == "min") return a[1] * 3600 + a[3] * 60
    return -1
}'

# check_lines NAME FILE TOTAL WALL_S: every line of FILE that starts
# "histo: iteration N of" is a progress line of the documented form; at
# least one; counts rise and stay within TOTAL, each percentage is the
# count's, elapsed times rise and stay within the run's wall time WALL_S
# (histo.out, with 0.1 s for the line's rounding), every time left is a
# duration >= 0. Prints why not, or nothing.
check_lines() {
    grep '^histo: iteration [0-9]* of ' "$2" \
    | sed 's/^histo: iteration \([0-9]*\) of \([0-9]*\) (\([0-9]*\)%), \(.*\) elapsed, about \(.*\) left$/\1|\2|\3|\4|\5/' \
    | awk -F'|' -v total="$3" -v wall="$4" "$SECS"'
        NF != 5 { print "not the documented form: " $0; bad = 1; exit }
        {
            n++
            el = secs($4); left = secs($5)
            if ($2 != total) why = "total " $2 ", not " total
            else if ($1 < 1 || $1 > total) why = "count " $1 " outside 1.." total
            else if ($1 <= last) why = "count " $1 " after " last
            else if ($3 != int($1 * 100 / total)) why = $3 "% for " $1 " of " total
            else if (el < 0 || el < lastel) why = "elapsed \"" $4 "\" after " lastel " s"
            else if (el > wall + 0.1) why = "elapsed " el " s beyond the run'"'"'s " wall " s"
            else if (left < 0) why = "time left \"" $5 "\""
            if (why != "") { print why; bad = 1; exit }
            last = $1; lastel = el
        }
        END { if (!bad && n == 0) print "no progress line" }'
}

# --- stderr a file: lines of the documented form, nothing else there ---
if HISTO_PROGRESS_INTERVAL=0.25 histo -i in.bin -o long.bmp --raw long.raw \
        --timing long.out -- "$N15" >"$W/long.stdout" 2>"$W/long.stderr"; then
    wall=$(sed -n 's/^time\.iterations_wall_s = //p' "$W/long.out")
    why=$(check_lines long "$W/long.stderr" "$N15" "${wall:-0}")
    others=$(grep -v '^histo: iteration [0-9]* of ' "$W/long.stderr" | head -n 2)
    if [ -n "$why" ]; then
        bad file_lines "$why"
    elif [ -n "$others" ]; then
        bad file_lines "stderr holds more than progress: $others"
    elif ! cmp -s "$W/long.raw" "$W/ref.raw"; then
        bad file_lines "the counters differ from the reference"
    elif ! grep -q '^histo: check PASS' "$W/long.stdout" \
         || grep -q '^histo: iteration [0-9]* of ' "$W/long.stdout"; then
        bad file_lines "stdout is not the summary alone: $(head -c 300 "$W/long.stdout")"
    else
        ok file_lines
    fi
else
    bad file_lines "histo failed: $(tail -n 2 "$W/long.stderr")"
fi

# --- a short run: no progress at all, whatever the interval ---
if histo -i in.bin -o short.bmp --timing short.out -- 3 \
        >"$W/short.stdout" 2>"$W/short.stderr" \
   && HISTO_PROGRESS_INTERVAL=60 histo -i in.bin -o short.bmp --timing short.out \
        -- 30 >/dev/null 2>>"$W/short.stderr"; then
    if [ -s "$W/short.stderr" ]; then
        bad short_silent "stderr: $(head -c 300 "$W/short.stderr")"
    else
        ok short_silent
    fi
else
    bad short_silent "histo failed: $(tail -n 2 "$W/short.stderr")"
fi

# --- a bad HISTO_PROGRESS_INTERVAL: exit 2 (=0 is tested on a terminal) ---
refused=""
for v in abc -1 1e9 1e1 . 0x5 ' 5' 5s inf; do
    HISTO_PROGRESS_INTERVAL=$v histo -i in.bin -o bad.bmp --timing bad.out -- 3 \
        >/dev/null 2>"$W/bad.stderr"
    st=$?
    if [ "$st" -ne 2 ] \
       || ! grep -q "HISTO_PROGRESS_INTERVAL must be a number of seconds" "$W/bad.stderr"; then
        refused="$refused '$v': exit status $st, $(head -c 100 "$W/bad.stderr");"
    fi
done
if [ -n "$refused" ]; then
    bad interval_refused "$refused"
else
    ok interval_refused
fi
# the one grammar of histo's numbers (histo --help, "Environment"):
# either side of the decimal point may be empty, not both
taken=""
for v in .5 5. 0.25 7; do
    HISTO_PROGRESS_INTERVAL=$v histo -i in.bin -o good.bmp --timing good.out -- 3 \
        >/dev/null 2>"$W/good.stderr" || taken="$taken '$v': $(head -c 100 "$W/good.stderr");"
done
if [ -n "$taken" ]; then
    bad interval_grammar "refused:$taken"
else
    ok interval_grammar
fi

# --- --raw -: the counters alone on stdout, progress on stderr ---
if HISTO_PROGRESS_INTERVAL=0.25 histo --no-bmp -i in.bin --raw - \
        --timing stdout.out -- "$N15" >"$W/stdout.raw" 2>"$W/stdout.stderr"; then
    wall=$(sed -n 's/^time\.iterations_wall_s = //p' "$W/stdout.out")
    why=$(check_lines stdout "$W/stdout.stderr" "$N15" "${wall:-0}")
    if ! cmp -s "$W/stdout.raw" "$W/ref.raw"; then
        bad raw_stdout "stdout is not exactly the counters ($(wc -c <"$W/stdout.raw") bytes, $(wc -c <"$W/ref.raw") expected)"
    elif [ -n "$why" ]; then
        bad raw_stdout "$why"
    elif ! grep -q '^histo: check PASS' "$W/stdout.stderr"; then
        bad raw_stdout "no summary on stderr"
    else
        ok raw_stdout
    fi
else
    bad raw_stdout "histo failed: $(tail -n 2 "$W/stdout.stderr")"
fi

# --- --tune: a line per interval naming the candidate under way ---
# Iterations for about 0.3 s a candidate; the first candidate's lines
# cannot know the total yet.
NT=$((N / 8 + 1))
if HISTO_PROGRESS_INTERVAL=0.25 histo --tune --no-tune-cache -i in.bin -o tune.bmp \
        --timing tune.out -- "$NT" >"$W/tune.stdout" 2>"$W/tune.stderr"; then
    ncand=$(sed -n 's/^histo: tune: strategy .*, \([0-9]*\) candidates, .*/\1/p' "$W/tune.stdout")
    why=$(grep '^histo: tune: candidate ' "$W/tune.stderr" | awk -v nc="${ncand:-0}" "$SECS"'
        /^histo: tune: candidate 1, [^,]* elapsed$/ { n++; next }
        {
            line = $0
            if (sub(/^histo: tune: candidate /, "", line) != 1) { print "form: " $0; bad = 1; exit }
            split(line, f, ", ")
            # f[1] = "K of N (P%)", f[2] = "X elapsed", f[3] = "about Y left"
            split(f[1], k, " ")
            sub(/ elapsed$/, "", f[2]); sub(/^about /, "", f[3]); sub(/ left$/, "", f[3])
            if (k[2] != "of" || k[3] != nc || k[1] < 1 || k[1] > nc || k[1] < last \
                || k[4] !~ /^\([0-9]+%\)$/ || secs(f[2]) < 0 || secs(f[3]) < 0) {
                print "not a sensible line for " nc " candidates: " $0; bad = 1; exit
            }
            last = k[1]; n++
        }
        END { if (!bad && n == 0) print "no progress line" }')
    if [ -z "$ncand" ]; then
        bad tune_lines "no candidate count in the tune table"
    elif [ -n "$why" ]; then
        bad tune_lines "$why"
    else
        ok tune_lines
    fi
else
    bad tune_lines "histo --tune failed: $(tail -n 2 "$W/tune.stderr")"
fi

# --- a terminal: one line rewritten with \r, erased before the summary ---
# Under a pseudo-terminal from util-linux's script; stdout and stderr are
# both the terminal there, as in an interactive shell.
if ! command -v script >/dev/null 2>&1 \
   || ! script --version 2>/dev/null | grep -q util-linux; then
    echo "SKIP progress.terminal: no util-linux script to make a pseudo-terminal"
else
    dev=""
    [ -z "$DEVICE" ] || dev="--device '$DEVICE'"
    # twice N: the calibration's 30 iterations include the first, slow
    # ones, and a run over in under a second shows no line on a terminal
    NTTY=$((N * 2))
    cmd="cd '$W' && exec '$HISTO' --platform '$PLATFORM' $dev -i in.bin -o tty.bmp --timing tty.out -- $NTTY"
    if script -qec "$cmd" /dev/null >"$W/tty.typescript" 2>"$W/tty.err"; then
        # Segments between \r and \n; the terminal adds \r before each \n.
        why=$(tr '\r' '\n' <"$W/tty.typescript" | awk -v total="$NTTY" '
            /^histo: iteration [0-9]+\/[0-9]+ \([0-9]+%\), .* elapsed(, .* left)? *$/ {
                if (summary) { print "a progress line after the summary: " $0; bad = 1; exit }
                split($3, c, "/")
                if (c[2] != total || c[1] < 1 || c[1] > total) { print "count " $3; bad = 1; exit }
                t = $0; sub(/ +$/, "", t); width = length(t)
                n++; cleared = 0; next
            }
            /^ +$/ { if (n > 0 && length($0) >= width) cleared = 1; next }
            /^histo: / && !summary {
                summary = 1
                if (n > 0 && !cleared) { print "the summary follows an unerased line"; bad = 1; exit }
            }
            END { if (!bad && n == 0) print "no progress line"; else if (!bad && !summary) print "no summary" }')
        # Nothing but progress before the summary's first line: no newline
        # ends a progress line.
        first=$(head -n 1 "$W/tty.typescript" | tr -d '\n' | tr '\r' '\n' | grep -v '^ *$' | tail -n 1)
        if [ -n "$why" ]; then
            bad terminal "$why"
        elif ! echo "$first" | grep -q '^histo: .* values into '; then
            bad terminal "the first line the terminal keeps is not the summary's: $first"
        else
            ok terminal
        fi
    else
        bad terminal "histo under script failed: $(tail -c 300 "$W/tty.typescript")"
    fi
    # HISTO_PROGRESS_INTERVAL=0: no progress on a terminal either; the
    # only carriage returns are the terminal's before each newline.
    if script -qec "HISTO_PROGRESS_INTERVAL=0; export HISTO_PROGRESS_INTERVAL; $cmd" /dev/null >"$W/off.typescript" 2>"$W/off.err"; then
        if [ "$(sed 's/\r$//' "$W/off.typescript" | tr -cd '\r' | wc -c)" -ne 0 ] \
           || grep -q 'histo: iteration [0-9]*/' "$W/off.typescript"; then
            bad terminal_off "progress shown: $(tr '\r' '|' <"$W/off.typescript" | head -c 200)"
        elif ! grep -q '^histo: check PASS' "$W/off.typescript"; then
            bad terminal_off "no summary: $(head -c 200 "$W/off.typescript")"
        else
            ok terminal_off
        fi
    else
        bad terminal_off "histo under script failed: $(tail -c 300 "$W/off.typescript")"
    fi
fi
