#!/bin/sh
# tests/run.sh [T] - the test suite (make test, make test T=...). Last
# line: "N passed, N failed".
#
# The suite is one file per subject in tests/, each runnable alone
# (sh tests/device.sh), sharing tests/lib.sh; this runs them in the order
# below, counts their "PASS id" / "FAIL id: why" lines and passes on any
# other line (a "skipped" note). A subject's stderr goes to
# tests/work/SUBJECT.err, whose "skipped" lines are shown.
#
# T re-runs part of it: a subject's name (T=device: that file alone), or
# a test id or the start of one (T=device.eye.gauss, T=work.streamed):
# the subjects whose "# ids:" line names the id's first part run,
# skipping what they can, and only the lines of matching ids count.
#
# Correctness cases compare histo's raw 8-bit counters (--raw) byte for
# byte with the sequential reference's (build/histo-ref), and its BMP with
# the reference BMP. The device is PoCL unless HISTO_TEST_PLATFORM /
# HISTO_TEST_DEVICE name another (tests/lib.sh).
set -u
cd "$(dirname "$0")/.." || exit 1
T=${1:-${T:-}}
ROOT=${HISTO_TEST_WORK:-tests/work}
SUBJECTS="unit device saturation work tune eye contract self energy impl
          outputs progress harness install docs asan big"

# ids_of SUBJECT: the id prefixes its file names.
ids_of() { sed -n 's/^# ids: //p' "tests/$1.sh"; }

selected=""
if [ -z "$T" ]; then
    # shellcheck disable=SC2086,SC2116 # the list on one line
    selected=$(echo $SUBJECTS)
    rm -rf "$ROOT"
else
    first=${T%%.*}
    for s in $SUBJECTS; do
        if [ "$s" = "$T" ]; then
            selected=$s
            break
        fi
        if ids_of "$s" | tr ' ' '\n' | grep -qx "$first"; then
            selected="$selected $s"
        fi
    done
    if [ -z "$selected" ]; then
        # shellcheck disable=SC2086,SC2116 # the list on one line
        echo "tests/run.sh: no subject is '$T' or has ids starting '$first.' (subjects: $(echo $SUBJECTS))"
        echo "0 passed, 1 failed"
        exit 1
    fi
    # the shared inputs are made again, from this build's tools
    rm -rf "$ROOT/inputs"
fi
# a subject named by T runs whole; otherwise only T's ids count
filter=""
[ "$selected" = "$T" ] || filter=$T
mkdir -p "$ROOT"
. tests/asan-vendors.sh

# the user's results/ (make run's): every file's bytes and every link's
# target, or "none"; the suite must leave it as it found it
results_state() {
    if [ -e results ] || [ -L results ]; then
        find results \( -type f -exec cksum {} + \) -o \( -type l -printf '%p -> %l\n' \) \
            -o \( -type d -printf '%p/\n' \) | sort
    else
        echo none
    fi
}
results_state >"$ROOT/results.before"

pass=0
fail=0
for s in $selected; do
    TEST_FILTER=$filter sh "tests/$s.sh" >"$ROOT/$s.log" 2>"$ROOT/$s.err"
    st=$?
    while IFS= read -r line; do
        case $line in
            "PASS "*|"FAIL "*)
                id=${line#* }
                id=${id%%:*}
                case $id in "$filter"*) ;; *) continue ;; esac
                echo "$line"
                case $line in PASS*) pass=$((pass + 1)) ;; *) fail=$((fail + 1)) ;; esac ;;
            *) [ -n "$filter" ] || echo "$line" ;;
        esac
    done <"$ROOT/$s.log"
    grep "skipped" "$ROOT/$s.err"
    if ! grep -q '^PASS \|^FAIL \|skipped' "$ROOT/$s.log"; then
        echo "FAIL $s.ran: tests/$s.sh gave no result (exit $st): $(head -c 300 "$ROOT/$s.err")"
        fail=$((fail + 1))
    fi
done

results_state >"$ROOT/results.after"
if [ -z "$filter" ]; then
    if cmp -s "$ROOT/results.before" "$ROOT/results.after"; then
        echo "PASS run.results_untouched"
        pass=$((pass + 1))
    else
        echo "FAIL run.results_untouched: the suite changed results/: $(diff "$ROOT/results.before" "$ROOT/results.after" | head -n 5 | tr '\n' ' ')"
        fail=$((fail + 1))
    fi
fi
if [ -n "$filter" ] && [ $((pass + fail)) -eq 0 ]; then
    echo "FAIL run.filter: no test id starts with '$filter'"
    fail=1
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
