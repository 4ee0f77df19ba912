#!/bin/sh
# tests/mutants.sh - make mutants: how strong the suite is, measured by
# the small faults of tests/mutants.tsv, each applied alone to a scratch
# copy of the tree and followed by the suite; a mutant the suite fails
# is killed (by the first case that fails), one it passes survived.
#
#   make mutants [SHARD=K/N] [MUTANTS="ID..."] [TIER=pairs|full]
#
# SHARD=K/N takes every N-th mutant from the K-th (the list in pieces, for
# several machines or sessions); MUTANTS names some by id; TIER=full runs
# make test-full's cells instead of make test's. Not part of make test or
# CI: a mutant costs up to one whole suite.
#
# The scratch copy, in MUTANTS_DIR (default build/mutants/tree), holds the
# working tree's tracked files committed in a repository of its own, so
# that a mutant is the only change git sees there. The
# suite first runs there unmutated (MUTANTS_BASELINE=0 skips it): it must
# pass, or no verdict would mean anything. Then for each mutant: its sed
# script must change exactly one line of its file (else "inapplicable"),
# the tree must build (else "stillborn"; neither counts in the score),
# and the suite runs until its first FAIL line (the suite is then stopped)
# or its end. Each verdict is appended to build/mutants/results.tsv
# (MUTANTS_RESULTS elsewhere: ID, verdict, the killing case, seconds,
# file) as it comes; the last
# lines give the score, killed over killed and survived, and the
# survivors.
set -u
cd "$(dirname "$0")/.." || exit 1
TOP=$(pwd)
LIST=$TOP/tests/mutants.tsv
OUT=$TOP/build/mutants
S=${MUTANTS_DIR:-$OUT/tree}
RESULTS=${MUTANTS_RESULTS:-$OUT/results.tsv}
TIER=${TIER:-pairs}
case $TIER in pairs | full) ;; *) echo "mutants: TIER must be pairs or full, not '$TIER'" >&2; exit 2 ;; esac
shard=${SHARD:-1/1}
k=${shard%/*} n=${shard#*/}
case "$k/$n" in
    *[!0-9/]* | /* | */ | 0/* | */0) echo "mutants: SHARD must be K/N with 1 <= K <= N, not '$shard'" >&2; exit 2 ;;
esac
[ "$k" -le "$n" ] || { echo "mutants: SHARD must be K/N with 1 <= K <= N, not '$shard'" >&2; exit 2; }
[ -r "$LIST" ] || { echo "mutants: cannot read $LIST" >&2; exit 1; }
tab=$(printf '\t')
mkdir -p "$OUT" || exit 1

# the mutants of this shard (and of MUTANTS, where given), in list order
chosen=$OUT/chosen.$$
awk -F '\t' -v k="$k" -v n="$n" -v only=" ${MUTANTS:-} " '
    /^#/ || NF == 0 { next }
    NF != 4 { printf "mutants: tests/mutants.tsv line %d: %d fields, not 4\n", NR, NF > "/dev/stderr"; bad = 1; next }
    ($1 in seen) { printf "mutants: tests/mutants.tsv line %d: id %s given twice\n", NR, $1 > "/dev/stderr"; bad = 1; next }
    { seen[$1] = 1; i++ }
    only != "  " && index(only, " " $1 " ") == 0 { next }
    (i - 1) % n == k - 1 { print }
    END { exit bad }' "$LIST" >"$chosen" || { rm -f "$chosen"; exit 1; }
total=$(grep -c . "$chosen")
[ "$total" -gt 0 ] || { echo "mutants: no mutant chosen (SHARD=$shard MUTANTS=${MUTANTS:-})"; rm -f "$chosen"; exit 1; }

# g ARGS...: git in the scratch copy, never asking, never signing
g() { git -C "$S" -c user.name=histo-mutants -c user.email=mutants@histo.invalid \
          -c commit.gpgsign=false "$@"; }

# the scratch copy: the working tree's tracked files (every file but the
# builds and the tests' work where git cannot list them, as in a copied
# tree), committed in a repository of its own
echo "mutants: scratch copy in $S"
rm -rf "$S"
mkdir -p "$S" || exit 1
if git rev-parse --show-toplevel >/dev/null 2>&1; then
    # tracked and untracked files git does not ignore, those that exist
    # (a copied tree's index may be out of date), in no hidden folder but
    # .ci (a session's scratch folders are not the tree's)
    { git ls-files -z --cached --others --exclude-standard | grep -zv '^\.[^/]*/'
      git ls-files -z --cached --others --exclude-standard .ci; } \
        | tar --null --ignore-failed-read -T - -cf - 2>/dev/null
else
    tar --exclude=./build --exclude='./build-*' --exclude=./tests/work \
        --exclude=./results --exclude=./histo --exclude=./.git -cf - .
fi | tar -xf - -C "$S" || exit 1
g init -q && g add -A >/dev/null && g commit -q -m "the working tree" || exit 1
build() { make -C "$S" -s -j"$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)" all >"$OUT/build.log" 2>&1; }

# suite: runs the suite in the scratch copy until its first FAIL line or
# its end; sets verdict_fail (the first FAIL line, "" when none), suite_end
# (its last line) and suite_s (seconds)
suite() {
    s_log=$OUT/suite.log
    : >"$s_log"
    s_start=$(date +%s)
    # its own session, so that stopping it stops every subject
    (cd "$S" && HISTO_TEST_TIER=$TIER exec setsid sh tests/run.sh) >"$s_log" 2>&1 &
    s_pid=$!
    verdict_fail=""
    while kill -0 "$s_pid" 2>/dev/null; do
        verdict_fail=$(grep -m 1 '^FAIL ' "$s_log")
        [ -z "$verdict_fail" ] || break
        sleep 1
    done
    if [ -n "$verdict_fail" ]; then
        kill -TERM -- "-$s_pid" 2>/dev/null || kill -TERM "$s_pid" 2>/dev/null
    fi
    wait "$s_pid" 2>/dev/null
    # until every process of its session is gone (they hold the suite's
    # lock, which the next mutant's suite needs): those in other process
    # groups get SIGTERM after 5 s, SIGKILL after 60
    s_wait=0
    while pgrep -s "$s_pid" >/dev/null 2>&1; do
        [ "$s_wait" -lt 300 ] || { pkill -KILL -s "$s_pid" 2>/dev/null; sleep 1; break; }
        [ "$s_wait" -ne 25 ] || pkill -TERM -s "$s_pid" 2>/dev/null
        sleep 0.2
        s_wait=$((s_wait + 1))
    done
    [ -n "$verdict_fail" ] || verdict_fail=$(grep -m 1 '^FAIL ' "$s_log")
    suite_end=$(tail -n 1 "$s_log")
    suite_s=$(( $(date +%s) - s_start ))
}

if [ "${MUTANTS_BASELINE:-1}" != 0 ]; then
    echo "mutants: the suite on the scratch copy, unmutated (TIER=$TIER)"
    build || { echo "mutants: the scratch copy does not build: $(tail -n 3 "$OUT/build.log")"; exit 1; }
    suite
    case $suite_end in
        *" passed, 0 failed") echo "mutants: baseline $suite_end ($suite_s s)" ;;
        *) echo "mutants: the unmutated suite does not pass (${verdict_fail:-$suite_end}): no verdict would mean anything"; exit 1 ;;
    esac
fi

i=0
while IFS="$tab" read -r id file sedx what; do
    i=$((i + 1))
    [ -f "$S/$file" ] || { printf '%s\tinapplicable\tno file %s\t0\t%s\n' "$id" "$file" "$file" >>"$RESULTS"; continue; }
    sed -e "$sedx" "$S/$file" >"$OUT/mutated" 2>"$OUT/sed.err"
    changed=$(diff "$S/$file" "$OUT/mutated" | grep -c '^<')
    if [ "$changed" -ne 1 ]; then
        echo "mutants: [$i/$total] $id: inapplicable ($changed lines changed)"
        printf '%s\tinapplicable\t%s lines changed\t0\t%s\n' "$id" "$changed" "$file" >>"$RESULTS"
        continue
    fi
    cp "$OUT/mutated" "$S/$file"
    if ! build; then
        echo "mutants: [$i/$total] $id: stillborn (does not build)"
        printf '%s\tstillborn\t-\t0\t%s\n' "$id" "$file" >>"$RESULTS"
        g checkout -q -- "$file"
        continue
    fi
    suite
    if [ -n "$verdict_fail" ]; then
        killer=$(printf '%s\n' "$verdict_fail" | sed 's/^FAIL \([^:]*\):.*/\1/')
        echo "mutants: [$i/$total] $id: killed by $killer ($suite_s s)"
        printf '%s\tkilled\t%s\t%s\t%s\n' "$id" "$killer" "$suite_s" "$file" >>"$RESULTS"
    else
        case $suite_end in
            *" passed, 0 failed") v=survived ;;
            *) v="killed" ;;
        esac
        echo "mutants: [$i/$total] $id: $v ($suite_end; $suite_s s)"
        printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$v" "$([ "$v" = killed ] && echo "the suite: $suite_end" || echo -)" "$suite_s" "$file" >>"$RESULTS"
    fi
    g checkout -q -- "$file"
done <"$chosen"
rm -f "$chosen"

# the score of every verdict recorded so far (all shards run here)
awk -F '\t' '
    { last[$1] = $2; killer[$1] = $3 }
    END {
        for (m in last) { n[last[m]]++; if (last[m] == "survived") surv = surv "\n  " m }
        k = n["killed"] + 0; s = n["survived"] + 0
        printf "mutants: %d killed, %d survived, %d stillborn, %d inapplicable", k, s, n["stillborn"] + 0, n["inapplicable"] + 0
        if (k + s > 0) printf "; score %.1f%% (killed over killed and survived)", 100 * k / (k + s)
        printf "\n"
        if (surv != "") printf "survivors:%s\n", surv
    }' "$RESULTS"
