#!/bin/sh
# tests/docs-check.sh - the example outputs in README.md and docs/*.md
# against what the programs print now.
#
#   sh tests/docs-check.sh           check them (make docs-check; make test)
#   sh tests/docs-check.sh --update  rewrite each from a real run
#   sh tests/docs-check.sh --lists   only the lists the docs keep in one
#                                    place (options, strategies, layout;
#                                    below), without running anything
#                                    (make check)
#
# An example is a fenced block right after a line
#   <!-- example: ID -->
# (the update adds "; device: NAME" when the output names the device it ran
# on). produce() below runs each ID's command once on the default device.
# The check prints "PASS docs.ID (FILE:LINE)" or "FAIL docs.ID ..." per
# example, with no summary line (tests/run.sh counts them; alone it exits
# non-zero on a failure). Numbers, digests, commit ids (histo --version's
# commit line whole, and what built it: its cc, compiler, cflags, ldflags
# and ldlibs lines), runs of spaces and the device's name may differ;
# the words, the fields and their order may not. The results tables are
# compared exactly: bench/results-table.sh and bench/scaling-table.sh
# compute them from the committed rows.
set -u
cd "$(dirname "$0")/.." || exit 1
W=${HISTO_TEST_WORK:-tests/work}/docs-check
mode=check
[ "${1:-}" = --update ] && mode=update
[ "${1:-}" = --lists ] && mode=lists
B=${HISTO_BUILD:-build}
HISTO=./histo
[ "$B" = build ] || HISTO=$B/histo
# under the suite's time limit where a subject runs this (tests/lib.sh)
HISTO=${HISTO_TIMED:-$HISTO}
rm -rf "$W"
mkdir -p "$W/ex"
unset HISTO_PLATFORM HISTO_DEVICE HISTO_KERNEL_DIR HISTO_CL_OPTIONS PLATFORM DEVICE \
      ITERATIONS SIZE
HISTO_TUNE_FILE=$W/tune.conf
export HISTO_TUNE_FILE
# make run writes under $W, never into the user's results/
RESULTS_ROOT=$W/results
export RESULTS_ROOT
failed=0

# --- the examples, each written to $W/ex/ID ---
produce() {
    # the test dataset through the harness: its result line and JSON record
    make --no-print-directory run RESULTS_LOG="$W/runs.jsonl" >"$W/run.log" 2>&1 \
        || { echo "FAIL docs.produce: make run failed: $(tail -n 3 "$W/run.log")"; return 1; }
    tail -n 1 "$W/run.log" >"$W/ex/run-result"
    tail -n 1 "$W/runs.jsonl" >"$W/ex/runs-jsonl"
    # histo itself on that dataset: its summary and histo.out
    $HISTO -i input/test.bin.gz -o "$W/test.bmp" --timing "$W/histo.out" \
        -- 30 >"$W/ex/summary" 2>"$W/summary.err" \
        || { echo "FAIL docs.produce: histo failed: $(cat "$W/summary.err")"; return 1; }
    grep -E '^(format|input\.(histogram|values)|histogram\.digest|iterations|selected\.name|strategy|config\.batches|iteration\.device\.median_us|kernel\.[a-z_]+\.median_us) = ' \
        "$W/histo.out" >"$W/ex/histo-out"
    sed -n 's/^selected\.name = //p' "$W/histo.out" >"$W/device"
    # its environment table, as --help prints it
    $HISTO --help | awk '/^Environment:$/ { on = 1 } /^Files:$/ { on = 0 } on' \
        | sed '$d' >"$W/ex/environment"
    # what histo says it is
    $HISTO --version >"$W/ex/version" 2>"$W/version.err" \
        || { echo "FAIL docs.produce: histo --version failed: $(cat "$W/version.err")"; return 1; }
    # --tune on a small input: the tune cache line it stores
    $B/histo-gen -o "$W/small.bin" --image 512x512 >/dev/null 2>&1
    $HISTO --tune -i "$W/small.bin" -o "$W/small.bmp" --timing "$W/small.out" \
        -- 3 >"$W/tune.log" 2>"$W/tune.err" \
        || { echo "FAIL docs.produce: histo --tune failed: $(cat "$W/tune.err")"; return 1; }
    cp "$HISTO_TUNE_FILE" "$W/ex/tune-line"
    # the validator on a copy of the run's counters with bin 1039743 (the
    # first bin of the test reference that counts 253) made 254, and on a
    # copy of its BMP with pixel (row 4100, column 130) made black
    mkdir -p "$W/v/results/test"
    # -n: a link left there by another run is replaced, not followed (a
    # link inside output/ would be made)
    ln -sfn "$(pwd)/output" "$W/v/output"
    last=$(sh validate/harness.sh last-run test) || return 1
    cp "$last/histo.raw" "$last/histo.bmp" "$W/v/results/test/"
    printf '\376' | dd of="$W/v/results/test/histo.raw" bs=1 seek=1039743 conv=notrunc 2>/dev/null
    (cd "$W/v" && "$OLDPWD/$B/histo-validate" --raw 256x8192 results/test/histo.raw \
        output/test.raw.gz) >"$W/ex/validate-raw" 2>&1
    # BMP rows are stored bottom-up, 3 bytes a pixel after the 54-byte header
    printf '\0\0\0' | dd of="$W/v/results/test/histo.bmp" bs=1 \
        seek=$((54 + ((8191 - 4100) * 256 + 130) * 3)) conv=notrunc 2>/dev/null
    (cd "$W/v" && "$OLDPWD/$B/histo-validate" results/test/histo.bmp \
        output/test.bmp.gz) >"$W/ex/validate-bmp" 2>&1
    sh bench/results-table.sh >"$W/ex/results-table" 2>&1
    sh bench/curve-line.sh >"$W/ex/curve-line" 2>&1
    sh bench/scaling-table.sh >"$W/ex/scaling-table" 2>&1
    # make report on the committed sample: its table and its CSV
    sh validate/report.sh -o "$W/report" tests/data/report-sample.jsonl \
        2>&1 | grep -v '^CSV: \|^HTML: \|^chart: \|^(gnuplot' >"$W/ex/report"
    cp "$W/report.csv" "$W/ex/report-csv"
}

# normal ID DEVICE < TEXT: what may differ taken out (see the top)
normal() {
    awk -v id="$1" -v dev="$2" '
    {
        if (id ~ /^(results-table|curve-line|scaling-table|report)/) { print; next }
        if (dev != "") while ((i = index($0, dev)) > 0)
            $0 = substr($0, 1, i - 1) "@DEVICE@" substr($0, i + length(dev))
        # what depends on the machine and the tree: the environment, the
        # reasons a run is not reportable
        if (id == "runs-jsonl") {
            gsub(/"env":\{[^}]*\}/, "\"env\":{}")
            gsub(/"not_reportable":\[[^]]*\]/, "\"not_reportable\":[]")
            gsub(/":("[^"]*"|[^,}]*)/, "\":_")
        }
        if (id == "run-result") sub(/\| (reportable|not reportable: .*)$/, "| @REPORTABLE@")
        # the commit: an id, -modified with uncommitted changes, or unknown
        if (id == "version") sub(/^commit: .*/, "commit: @COMMIT@")
        # and what built it: a sanitizer build (make test-asan) has other
        # flags, another machine another compiler
        if (id == "version" && $0 ~ /^(cc|compiler|cflags|ldflags|ldlibs) = /) sub(/ = .*/, " = @BUILD@")
        gsub(/[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]+/, "@HEX@")
        gsub(/[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?/, "#")
        gsub(/[ \t]+/, " ")
        sub(/ $/, "")
        print
    }'
}

# blocks FILE: "LINE ID DEVICE" per example of FILE (tab-separated)
blocks() {
    awk '/^<!-- example: [a-z0-9-]+(; device: .*)? -->$/ {
        id = $3; sub(/;$/, "", id)
        dev = ""
        if (match($0, /; device: .* -->$/)) dev = substr($0, RSTART + 10, RLENGTH - 14)
        printf "%d\t%s\t%s\n", NR, id, dev
    }' "$1"
}

# block FILE LINE: the fenced block after the marker at LINE
block() {
    awk -v at="$2" 'NR == at + 1 && !/^```/ { exit 1 }
        NR > at + 1 && /^```/ { exit }
        NR > at + 1 { print }' "$1"
}

[ "$mode" = lists ] || produce || exit 1
device=$(cat "$W/device" 2>/dev/null)
# $DOCS_FILES: other files to check instead (tests/run.sh's drift tests)
files=${DOCS_FILES:-README.md docs/*.md}
[ "$mode" = lists ] && files=""
for f in $files; do
    blocks "$f" >"$W/blocks"
    [ -s "$W/blocks" ] || continue
    if [ "$mode" = update ]; then
        # each marker gets the device its output names, each block its output
        awk -v dir="$W/ex" -v dev="$device" '
            function emit(id,    line, names) {
                names = 0
                while ((getline line < (dir "/" id)) > 0) {
                    if (dev != "" && index(line, dev) \
                        && id !~ /^(results-table|curve-line|scaling-table|report)/) names = 1
                    out[++n] = line
                }
                close(dir "/" id)
                return names
            }
            /^<!-- example: [a-z0-9-]+(; device: .*)? -->$/ {
                id = $3; sub(/;$/, "", id); n = 0
                names = emit(id)
                print "<!-- example: " id (names ? "; device: " dev : "") " -->"
                getline; print          # the opening fence
                for (i = 1; i <= n; i++) print out[i]
                while ((getline line) > 0 && line !~ /^```/) ;
                print line              # the closing fence
                next
            }
            { print }' "$f" >"$W/updated" && cat "$W/updated" >"$f"
        echo "updated $f: $(wc -l <"$W/blocks") examples"
        continue
    fi
    while IFS="$(printf '\t')" read -r line id dev; do
        if [ ! -f "$W/ex/$id" ]; then
            echo "FAIL docs.$id ($f:$line): no such example in tests/docs-check.sh"
            failed=1
            continue
        fi
        if ! block "$f" "$line" >"$W/doc.$id"; then
            echo "FAIL docs.$id ($f:$line): no fenced block after the marker"
            failed=1
            continue
        fi
        normal "$id" "$dev" <"$W/doc.$id" >"$W/doc.$id.n"
        normal "$id" "$device" <"$W/ex/$id" >"$W/ex.$id.n"
        if cmp -s "$W/doc.$id.n" "$W/ex.$id.n"; then
            echo "PASS docs.$id ($f:$line)"
        else
            echo "FAIL docs.$id ($f:$line): the example no longer matches what the program prints (sh tests/docs-check.sh --update rewrites it): $(diff "$W/doc.$id.n" "$W/ex.$id.n" | head -n 6 | tr '\n' ' ')"
            failed=1
        fi
    done <"$W/blocks"
done

# README's option table names every option of histo --help and no
# other, and both name every strategy histo has.
if [ "$mode" != update ] && [ -z "${DOCS_FILES:-}" ]; then
    $HISTO --help 2>&1 | sed -n 's/^  \(--*[a-z][a-z-]*\).*/\1/p' | sort -u >"$W/help.options"
    sed -n 's/^| `\(--*[a-z][a-z-]*\).*/\1/p' README.md | sort -u >"$W/readme.options"
    strategies=$($HISTO --list-strategies | tr '\n' ' ')
    missing=""
    for st in $strategies; do
        grep -q "^| \`--strategy S\` | .*\`$st\`" README.md || missing="$missing README:$st"
        $HISTO --help | tr -s ' \n' '  ' | grep -q -- "--strategy S .*[ (]$st[ ,)]" \
            || missing="$missing --help:$st"
    done
    if [ -n "$strategies" ] && cmp -s "$W/help.options" "$W/readme.options" && [ -z "$missing" ]; then
        echo "PASS docs.options_match (README.md's option table, histo --help)"
    else
        echo "FAIL docs.options_match: only in --help: $(comm -23 "$W/help.options" "$W/readme.options" | tr '\n' ' ')only in README: $(comm -13 "$W/help.options" "$W/readme.options" | tr '\n' ' ')strategies missing:${missing:- none}"
        failed=1
    fi
fi
# One source for each list a reader meets twice: usage.md keeps no option
# table of its own (README's is checked above); README's layout table
# names every top-level folder of the tree and every kernel file; make
# bench's inputs are told alike by bench.sh, make help and README; the
# run times in harness.md's dataset table say when and where they were
# measured.
if [ "$mode" != update ] && [ -z "${DOCS_FILES:-}" ]; then
    why=""
    grep -q '^| `-[-a-z]' docs/usage.md && why="$why usage.md has an option table;"
    layout=$(sed -n '/^## Layout/,/^## /p' README.md)
    for d in $(git ls-files 2>/dev/null | sed -n 's|^\([^/]*\)/.*|\1|p' | sort -u); do
        printf '%s\n' "$layout" | grep -q "\`$d/\`" || why="$why layout lacks $d/;"
    done
    for k in kernels/*.cl; do
        printf '%s\n' "$layout" | grep -q "\`$(basename "$k")\`" || why="$why layout lacks $(basename "$k");"
    done
    # make bench's inputs, told three times: bench.sh's list, make help
    # and README's Results; the words below must stand in both texts (a
    # new input changes the list and then the texts)
    [ "$(sed -n 's/^INPUTS=${INPUTS:-\(.*\)}$/\1/p' bench/bench.sh)" = "test train ref wide uniform onebin h1k big67 wide1m wide67" ] \
        || why="$why bench.sh's inputs are not the ones README and make help describe;"
    for f in README.md GNUmakefile; do
        flat=$(tr -s ' \n#' '   ' <"$f")
        for words in "four 16.7M-value images (one into 1024x2048 bins)" "67M values" "wide eye at 1M and 67M values"; do
            case $flat in *"$words"*) ;; *) why="$why $f does not say make bench runs '$words';" ;; esac
        done
    done
    # the size where the GPU default turns from fused to eye, told by
    # --help and README (the option table, the NVIDIA row, the
    # strategies): the params.h constant it is, a power of two
    min=$(sed -n 's/^#define HISTO_EYE_2D_MIN_VALUES \([0-9]*\)u$/\1/p' src/params.h)
    pow=$(awk -v m="${min:-0}" 'BEGIN { n = 0; while (2 ^ n < m) n++; if (2 ^ n == m) print n }')
    if [ -z "$pow" ]; then
        why="$why HISTO_EYE_2D_MIN_VALUES ('$min') is no power of two;"
    else
        $HISTO --help | tr -s ' \n' '  ' | grep -qF "fused where local memory is dedicated (CL_LOCAL), below 2^$pow values" \
            || why="$why --help does not say fused below 2^$pow values (HISTO_EYE_2D_MIN_VALUES);"
        [ "$(tr -s ' \n' '  ' <README.md | grep -oF "below $((min >> 20))M (2^$pow) values" | wc -l)" -ge 3 ] \
            || why="$why README does not say $((min >> 20))M (2^$pow) values three times (options, NVIDIA, strategies);"
    fi
    sed -n '/^| dataset | image (values)/,/^$/p;/^The times are/,/^$/p' docs/harness.md >"$W/times"
    grep -q '[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]' "$W/times" && grep -q 'core' "$W/times" \
        || why="$why harness.md's dataset times name no date or machine;"
    if [ -z "$why" ]; then
        echo "PASS docs.one_source (usage.md, README's layout, make bench's inputs, the default strategy's size, harness.md's times)"
    else
        echo "FAIL docs.one_source:$why"
        failed=1
    fi
fi
# README's Results cite rows measured on the code that runs now: every
# docs/bench file its Results section names was made (its rows'
# "commit", else the commit id in its name) on the code that runs now (the
# same code at that commit and HEAD), or at or after the last change to
# the code its rows ran, or its line says plainly "before the kernel
# changes of COMMIT" with that last change's commit. The code a row ran
# is its strategy's kernels and host code (what plans and launches
# them) and what every strategy shares (params.h, combine.cl, probe.cl);
# a file whose rows name no strategy is dated by every strategy's. A
# change of comments alone changes no code (cpp -fpreprocessed strips
# them; without cpp every change counts). The table of strategies names
# them and picks the default; a change of that pick shows in the rows'
# "strategy". Needs git's history (a shallow clone cannot tell: skipped).
STRATEGY_SHARED="kernels/combine.cl kernels/probe.cl src/params.h"
strategy_code() {
    case $1 in
        eye | fused | replicated) echo "$STRATEGY_SHARED kernels/eye_*.cl src/eye.c src/eye_plan.c src/eye_report.c" ;;
        cpu) echo "$STRATEGY_SHARED kernels/cpu_*.cl src/cpu.c src/cpu_plan.c" ;;
        global) echo "$STRATEGY_SHARED kernels/global_*.cl src/global.c" ;;
        *) echo "kernels src/eye.c src/eye_plan.c src/eye_report.c src/cpu.c src/cpu_plan.c src/global.c src/params.h" ;;
    esac
}
# code_of COMMIT FILE: the file at that commit, comments and spacing aside
code_of() {
    if command -v cpp >/dev/null 2>&1; then
        git show "$1:$2" 2>/dev/null | cpp -fpreprocessed -dD -E -P -x c - 2>/dev/null | tr -s ' \t\n' '   '
    else
        git show "$1:$2" 2>/dev/null
    fi
}
# same_code COMMIT PATTERN...: true where every file the patterns name
# (at COMMIT or HEAD) has the same code at both, comments aside
same_code() {
    s_c=$1
    shift
    for f in $( { git ls-tree -r --name-only "$s_c" -- kernels src; git ls-tree -r --name-only HEAD -- kernels src; } | sort -u); do
        s_in=""
        for pat in "$@"; do
            # shellcheck disable=SC2254 # the pattern is a glob
            case $f in $pat | $pat/*) s_in=yes ;; esac
        done
        [ -z "$s_in" ] || [ "$(code_of "$s_c" "$f")" = "$(code_of HEAD "$f")" ] || return 1
    done
}
# last_code_change PATH...: the newest commit that changed the code of
# one of the files (not their comments alone)
last_code_change() {
    for c in $(git log --format=%h -n 60 -- "$@"); do
        for f in $(git diff --name-only "$c^" "$c" -- "$@" 2>/dev/null || echo "$*"); do
            [ "$(code_of "$c^" "$f")" = "$(code_of "$c" "$f")" ] || { echo "$c"; return; }
        done
    done
    git log -1 --format=%h -- "$@"
}
if [ "$mode" != update ] && [ -z "${DOCS_FILES:-}" ]; then
    if [ "$(git rev-parse --is-shallow-repository 2>/dev/null)" != false ] \
       || [ -z "$(git log -1 --format=%h -- kernels 2>/dev/null)" ]; then
        echo "SKIP docs.bench_current: no git history here to date the rows by"
    else
        why=""
        sed -n '/^## Results/,/^## /p' README.md >"$W/results.md"
        for f in $(grep -o 'docs/bench/[A-Za-z0-9._-]\+' "$W/results.md" | sort -u); do
            [ -f "$f" ] || { why="$why $f is cited but missing;"; continue; }
            c="" strategies=""
            case $f in *.jsonl)
                c=$(jq -r 'select(.commit != null) | .commit' "$f" 2>/dev/null | head -n 1)
                strategies=$(jq -r 'select(.strategy != null) | .strategy' "$f" 2>/dev/null | sort -u) ;;
            esac
            [ -n "$c" ] || c=$(basename "${f%.*}" | tr '-' '\n' | grep -x '[0-9a-f]\{7,40\}' | head -n 1)
            code=$(for st in ${strategies:-all}; do strategy_code "$st"; done | tr ' ' '\n' | sort -u)
            # the rows ran the code that runs now: current, whatever came between
            # shellcheck disable=SC2086 # a list of patterns
            [ -n "$c" ] && same_code "$c" $code && continue
            # shellcheck disable=SC2086 # a list of paths
            last=$(last_code_change $code)
            # the paragraph that cites it, on one line
            if awk -v RS= '{ gsub(/\n/, " "); print }' "$W/results.md" | grep -F "$f" \
               | grep -qF "before the kernel changes of $last"; then
                continue
            elif [ -z "$c" ]; then
                why="$why $f names no commit;"
            elif ! git merge-base --is-ancestor "$last" "$c" 2>/dev/null; then
                why="$why $f is from $c, before $last (the last change to the code its rows ran: ${strategies:-every strategy}): measure it again, or say \"before the kernel changes of $last\";"
            fi
        done
        if [ -z "$why" ]; then
            echo "PASS docs.bench_current (README's Results cite rows from the last change to the code they ran or later, or say they are older)"
        else
            echo "FAIL docs.bench_current:$why"
            failed=1
        fi
    fi
fi
[ "$failed" -eq 0 ]
