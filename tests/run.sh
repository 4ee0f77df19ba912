#!/bin/sh
# tests/run.sh [T] - the test suite (make test, make test T=...). Last
# lines: "N skipped (...)", then "N passed, N failed".
#
# The suite is one file per subject in tests/, each runnable alone
# (sh tests/device.sh), sharing tests/lib.sh. This runs the subjects
# HISTO_TEST_JOBS at a time (default: the cores online and one more, which
# keeps the cores busy while a subject sleeps or waits), the longest
# first, and as they go prints when each starts and ends (its counts and
# seconds) and every failure at once, with the path of its subject's log.
# A subject prints "PASS id", "FAIL id: why" or "SKIP id: why" lines;
# any other line of its output goes to its log only. Its stderr goes to
# tests/work/SUBJECT.err.
#
# A test's id starts with its subject's name: a line whose id does not
# is counted as SUBJECT.id (contract.sh's "cli.bad_iterations" is
# contract.cli.bad_iterations). T re-runs part of it: a subject's name
# (T=device: tests/device.sh alone) or the start of an id
# (T=device.eye.gauss, T=work.streamed): that subject runs, and only the
# lines of matching ids count.
#
# A subject whose file names parts (a "# parts: A B" line) runs as one
# job per part, side by side, each with HISTO_TEST_PART set, its own
# folder and log (tests/work/SUBJECT.PART); its ids are still the
# subject's (impl.rusticl...).
#
# A subject that passes leaves only its log and .err (HISTO_TEST_KEEP=1
# keeps its folder too); the shared inputs stay until the next suite.
#
# Every verdict also goes to tests/work/suite.tap as it arrives (TAP 13:
# "ok N - id", "not ok N - id: why", "ok N - id # SKIP why", the plan
# last), for CI tools that read TAP.
#
# Every line's arrival is timed: tests/work/times.tsv holds, per test,
# the seconds since the line before it in the same subject (what the
# test took, roughly), and tests/work/subjects.tsv each subject's
# seconds; make test's summary names the slowest.
#
# HISTO_TEST_TIER (pairs, the default, or full: make test-full) and
# HISTO_TEST_SLICE choose the cells of the products that run
# (tests/tier.sh); the first lines say which.
#
# A subject that prints a FAIL line, ends with a status other than 0 (a
# crash, a kill), or prints no result at all has failed. Only one suite
# runs in a work folder at a time (a lock beside it, WORK.lock). An
# interrupt (Ctrl-C, SIGTERM) stops every subject and its children at
# once and ends suite.tap with "Bail out!" and the plan.
#
# First, the warm-up (tests/warm.sh): histo once per strategy on a small
# input of the datasets' histogram shape, those with a 2-D window twice,
# so that the device's kernel builds are paid there, the longest first,
# and not by the first case that needs a kernel. It runs as two jobs,
# warm.pole (the fused strategy's 2-D kernel) and warm.rest, their
# seconds said apart. Until warm.rest ends, only the other
# implementations' jobs (impl.*, which build nothing of PoCL's) start
# beside them; until warm.pole ends, no job of the subjects that run the
# fused strategy on inputs of 8M values or more (device, work, eye).
#
# HISTO_TEST_SUBJECTS replaces the list of subjects (make test-asan
# names the host code's); HISTO_TEST_SUBJECT_DIR (test-only) their
# folder, with no warm-up: tests/suite.sh runs this runner on fake
# subjects so.
#
# Correctness cases compare histo's raw 8-bit counters (--raw) byte for
# byte with the sequential reference's (build/histo-ref), and its BMP with
# the reference BMP. The device is PoCL unless HISTO_TEST_PLATFORM /
# HISTO_TEST_DEVICE name another (tests/lib.sh).
set -u
cd "$(dirname "$0")/.." || exit 1
T=${1:-${T:-}}
ROOT=${HISTO_TEST_WORK:-tests/work}
# the longest first (docs/testing.md has their times), so that the
# short ones fill in beside them
SUBJECTS=${HISTO_TEST_SUBJECTS:-"impl harness eye work device big saturation tune
          contract outputs progress energy docs self install suite asan unit"}
DIR=${HISTO_TEST_SUBJECT_DIR:-tests}
JOBS=${HISTO_TEST_JOBS:-$(($(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1) + 1))}
case $JOBS in '' | *[!0-9]* | 0) JOBS=1 ;; esac

# one suite at a time in a work folder: the lock is held by this shell
# and every process it starts, and dies with the last of them
mkdir -p "$(dirname "$ROOT")"
exec 9>"$ROOT.lock"
if ! flock -n 9; then
    echo "tests/run.sh: another suite is running in $ROOT (its lock: $ROOT.lock); wait for it, or set HISTO_TEST_WORK to another folder"
    echo "0 passed, 1 failed"
    exit 1
fi
# stop: the verdict of a suite that could not start, in suite.tap too
stop() {
    mkdir -p "$ROOT"
    printf 'TAP version 13\nnot ok 1 - %s\n1..1\n' "$1" >"$ROOT/suite.tap"
    echo "$1"
    echo "0 passed, 1 failed"
    exit 1
}
. tests/tier.sh
[ -z "$tier_error" ] || stop "run.tier: $tier_error"

selected=""
if [ -z "$T" ]; then
    # shellcheck disable=SC2086,SC2116 # the list on one line
    selected=$(echo $SUBJECTS)
    rm -rf "$ROOT"
else
    first=${T%%.*}
    for s in $SUBJECTS; do
        [ "$s" = "$first" ] && selected=$s
    done
    # shellcheck disable=SC2086,SC2116 # the list on one line
    [ -n "$selected" ] \
        || stop "run.subject: no subject is '$first' (the subjects: $(echo $SUBJECTS))"
    # the shared inputs are made again, from this build's tools
    rm -rf "$ROOT/inputs"
fi
# a subject named by T runs whole; otherwise only T's ids count
filter=""
[ "$selected" = "$T" ] || filter=$T
# the jobs: a subject, or SUBJECT.PART for each of its parts
jobs=""
for s in $selected; do
    parts=$(sed -n 's/^# parts: //p' "$DIR/$s.sh")
    if [ -z "$parts" ]; then
        jobs="$jobs $s"
    else
        for p in $parts; do jobs="$jobs $s.$p"; done
    fi
done
# the warm-up (tests/warm.sh): its slowest build first, then the rest
if [ -z "$T" ] && [ -z "${HISTO_TEST_SUBJECT_DIR:-}" ]; then
    jobs="warm.pole warm.rest$jobs"
fi
mkdir -p "$ROOT"
ROOT=$(cd "$ROOT" && pwd)
. tests/asan-vendors.sh
echo "tier: $(tier_name)"

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

now() { date +%s.%N; }
# times_cpu FILE FROM: the CPU seconds (user and system) in the shell's
# `times` output FILE, its lines FROM on (1: the shell's and its waited
# children's, 2: the children's alone); "?" where it has none
times_cpu() {
    [ -f "$1" ] || { printf '?'; return; }
    awk -v from="$2" 'NR >= from { for (i = 1; i <= 2; ++i) { split($i, p, "m"); t += p[1] * 60 + p[2] }
                                   found = 1 }
        END { if (found) printf "%.1f", t; else printf "?" }' "$1"
}
# cpu_of SUBJECT: the CPU seconds of the subject's process and every
# child it waited for, as its wrapper's `times` wrote them ("?" when it
# ended without: killed)
cpu_of() { times_cpu "$ROOT/$1.cpu" 2; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

: >"$ROOT/times.tsv"
: >"$ROOT/subjects.tsv"
echo "TAP version 13" >"$ROOT/suite.tap"
pass=0 fail=0 skip=0 tap_n=0
# tap VERDICT LINE: LINE ("PASS id", "FAIL id: why", "SKIP id: why") in
# suite.tap, on one line, a '#' escaped (TAP reads "# SKIP" and "# TODO"
# in a description as directives)
tap() {
    tap_n=$((tap_n + 1))
    t_rest=$(printf '%s' "${2#* }" | tr '\n' ' ' | sed 's/#/\\#/g')
    case $1 in
        PASS) echo "ok $tap_n - $t_rest" ;;
        FAIL) echo "not ok $tap_n - $t_rest" ;;
        SKIP) case $t_rest in
                  *": "*) echo "ok $tap_n - ${t_rest%%: *} # SKIP ${t_rest#*: }" ;;
                  *) echo "ok $tap_n - $t_rest # SKIP" ;;
              esac ;;
    esac >>"$ROOT/suite.tap"
}
# per running subject: its start, the lines of its log already read and
# the time of the last one, its counts
running=""
# var JOB: v = the job's name as a shell variable's (impl.intel-cpu:
# impl_intel_cpu), without a process: the loop below asks it for every
# running job twice a second
var() {
    v="" v_rest=$1
    while :; do
        case $v_rest in
            *[.-]*) v=$v${v_rest%%[.-]*}_ v_rest=${v_rest#*[.-]} ;;
            *) v=$v$v_rest; return ;;
        esac
    done
}
start_subject() {
    s=$1
    var "$1"
    echo "== $s: started"
    said=$(now) said_pass=$sampled
    rm -f "$ROOT/$s.status" "$ROOT/$s.new" "$ROOT/$s.cpu"
    : >"$ROOT/$s.log"
    eval "started_$v=$(now) read_$v=0 last_$v=\$started_$v pass_$v=0 fail_$v=0 skip_$v=0"
    part=""
    [ "$s" = "${s%%.*}" ] || part=${s#*.}
    # in a process group of its own, so that an interrupt stops it and
    # every process it started (a background job ignores SIGINT)
    case $s in
        warm.*) setsid sh -c 'sh tests/warm.sh "$1" "$2" >"$3" 2>"$4"; st=$?; times >"$6"; echo $st >"$5"' sh \
                    "$ROOT/warm" "$part" "$ROOT/$s.log" "$ROOT/$s.err" "$ROOT/$s.status" "$ROOT/$s.cpu" & ;;
        *) TEST_FILTER=$filter HISTO_TEST_PART=$part setsid sh -c \
               'sh "$1" >"$2" 2>"$3"; st=$?; times >"$5"; echo $st >"$4"' sh "$DIR/${s%%.*}.sh" \
               "$ROOT/$s.log" "$ROOT/$s.err" "$ROOT/$s.status" "$ROOT/$s.cpu" & ;;
    esac
    eval "pid_$v=$!"
    running="$running $s"
}

# take_lines SUBJECT: counts and prints the subject's new lines: a FAIL at
# once with the log's path, the others counted; times each.
take_lines() {
    s=$1 subject=${1%%.*}
    var "$1"
    eval "n=\$read_$v last=\$last_$v"
    total=$(wc -l <"$ROOT/$s.log")
    [ "$total" -gt "$n" ] || return 0
    t=$(now)
    sed -n "$((n + 1)),${total}p" "$ROOT/$s.log" >"$ROOT/$s.new"
    while IFS= read -r line; do
        case $line in
            "PASS "* | "FAIL "* | "SKIP "*) ;;
            *) continue ;;
        esac
        verdict=${line%% *}
        rest=${line#* }
        id=${rest%%:*}
        case $id in "$subject" | "$subject."*) ;; *) id=$subject.$id; line="$verdict $id${rest#"${rest%%:*}"}" ;; esac
        case $id in "$filter"*) ;; *) continue ;; esac
        printf '%s\t%s\t%s\n' "$s" "$id" "$(awk -v a="$last" -v b="$t" 'BEGIN { printf "%.2f", b - a }')" >>"$ROOT/times.tsv"
        last=$t
        tap "$verdict" "$line"
        case $verdict in
            PASS) eval "pass_$v=\$((pass_$v + 1))" ;;
            SKIP) eval "skip_$v=\$((skip_$v + 1))"; echo "$line" ;;
            FAIL) eval "fail_$v=\$((fail_$v + 1))"; echo "$line (log: $ROOT/$s.log)" ;;
        esac
    done <"$ROOT/$s.new"
    eval "read_$v=$total last_$v=$last"
}

# finish_subject SUBJECT: its last lines, its summary line; a subject that
# printed no result at all fails.
finish_subject() {
    s=$1
    var "$1"
    case $s in
        warm.*)
            sed 's/^/  /' "$ROOT/$s.log"
            eval "t0=\$started_$v"
            secs=$(since "$t0")
            cpu=$(cpu_of "$s")
            printf '%s\t%s\t%s\n' "$s" "$secs" "$cpu" >>"$ROOT/subjects.tsv"
            echo "== $s: $secs s, $cpu CPU-s (kernel builds, apart from the cases)"
            said=$(now) said_pass=$sampled
            return ;;
    esac
    take_lines "$s"
    st=$(cat "$ROOT/$s.status" 2>/dev/null)
    eval "p=\$pass_$v f=\$fail_$v k=\$skip_$v t0=\$started_$v"
    why=""
    case $st in
        0) [ $((p + f + k)) -ne 0 ] || [ -n "$filter" ] || why="gave no result (exit 0)" ;;
        '') why="ended without a status (its runner was killed)" ;;
        *) why="ended with status $st"
           [ "$st" -le 128 ] || why="$why (killed by signal $((st - 128)))" ;;
    esac
    if [ -n "$why" ]; then
        line="FAIL $s.exit: $DIR/${s%%.*}.sh $why after $p passed, $f failed: $(tail -c 300 "$ROOT/$s.err" | tr '\n' ' ')"
        echo "$line (log: $ROOT/$s.log)"
        tap FAIL "$line"
        f=$((f + 1))
    fi
    grep "skipped" "$ROOT/$s.err" | sed "s/^/  /"
    secs=$(since "$t0")
    cpu=$(cpu_of "$s")
    printf '%s\t%s\t%s\n' "$s" "$secs" "$cpu" >>"$ROOT/subjects.tsv"
    # a subject that passed leaves its log and no outputs; a failed one
    # keeps them for whoever looks
    [ "$f" -ne 0 ] || [ -n "${HISTO_TEST_KEEP:-}" ] || rm -rf "${ROOT:?}/$s"
    echo "== $s: $p passed, $f failed, $k skipped ($secs s, $cpu CPU-s)"
    said=$(now) said_pass=$sampled
    pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + k))
}

# interrupted SIGNAL: every running subject and its children stopped at
# once, their lines so far counted, suite.tap ended with "Bail out!" and
# the plan
interrupted() {
    trap '' INT TERM HUP
    for s in $running; do
        var "$s"
        eval "pid=\$pid_$v"
        kill -TERM "-$pid" 2>/dev/null
        take_lines "$s"
        eval "pass=\$((pass + pass_$v)) fail=\$((fail + fail_$v)) skip=\$((skip + skip_$v))"
    done
    # shellcheck disable=SC2086,SC2116 # the list on one line
    what="interrupted by $1 with $(echo $running) running"
    echo "Bail out! $what" >>"$ROOT/suite.tap"
    echo "1..$tap_n" >>"$ROOT/suite.tap"
    echo "$what: stopped"
    echo "$skip skipped"
    echo "$pass passed, $fail failed"
    exit 130
}
trap 'interrupted SIGINT' INT
trap 'interrupted SIGTERM' TERM
trap 'interrupted SIGHUP' HUP

# the peak size of the work folder, sampled every 20 s
peak_kb=0 sampled=0
sample_size() {
    kb=$(du -sk "$ROOT" 2>/dev/null | cut -f1)
    [ "${kb:-0}" -le "$peak_kb" ] || peak_kb=$kb
}
t_all=$(now)
said=$t_all said_pass=0
HEARTBEAT_S=${HISTO_TEST_HEARTBEAT_S:-30}
# shellcheck disable=SC2086,SC2116 # the list on one line
queue=$(echo $jobs)
while [ -n "$queue" ] || [ -n "$running" ]; do
    # start jobs while there are free slots, those the warm-up lets start
    slots=$(echo $running | wc -w)
    while [ -n "$queue" ] && [ "$slots" -lt "$JOBS" ]; do
        case " $queue $running " in
            *" warm.rest "*) warming=all ;;
            *" warm.pole "*) warming=pole ;;
            *) warming="" ;;
        esac
        next=""
        for j in $queue; do
            case $warming:$j in
                *:warm.* | *:impl.* | :*) next=$j; break ;;
                pole:eye.* | pole:work.* | pole:device) ;;
                pole:*) next=$j; break ;;
            esac
        done
        [ -n "$next" ] || break
        queue=$(echo " $queue " | sed "s/ $next / /; s/^ *//; s/ *$//")
        start_subject "$next"
        slots=$((slots + 1))
    done
    still=""
    for s in $running; do
        var "$s"
        eval "pid=\$pid_$v"
        if [ -f "$ROOT/$s.status" ] || ! kill -0 "$pid" 2>/dev/null; then
            finish_subject "$s"
        else
            take_lines "$s"
            still="$still $s"
        fi
    done
    running=$still
    # never silent for more than HEARTBEAT_S: what runs, and its cases
    # (the clock read only once as many passes as half-seconds in
    # HEARTBEAT_S went by since the last line, not every pass: each
    # reading is a few processes)
    if [ -n "$running" ] && [ $((sampled - said_pass)) -ge $((2 * HEARTBEAT_S)) ] \
       && [ "$(since "$said" | cut -d. -f1)" -ge "$HEARTBEAT_S" ]; then
        busy=""
        for s in $running; do
            var "$s"
            eval "c=\$((pass_$v + fail_$v + skip_$v))"
            busy="$busy${busy:+, }$s ($c cases)"
        done
        echo "== still running after $(since "$t_all") s: $busy"
        said=$(now) said_pass=$sampled
    fi
    sampled=$((sampled + 1))
    [ $((sampled % 40)) -ne 1 ] || sample_size
    [ -z "$running" ] || sleep 0.5
done
sample_size

results_state >"$ROOT/results.after"
if [ -z "$filter" ] && [ -z "$T" ]; then
    if cmp -s "$ROOT/results.before" "$ROOT/results.after"; then
        line="PASS run.results_untouched"
        pass=$((pass + 1))
    else
        line="FAIL run.results_untouched: the suite changed results/: $(diff "$ROOT/results.before" "$ROOT/results.after" | head -n 5 | tr '\n' ' ')"
        fail=$((fail + 1))
    fi
    echo "$line"
    tap "${line%% *}" "$line"
fi
if [ -n "$filter" ] && [ $((pass + fail + skip)) -eq 0 ]; then
    line="FAIL run.filter: no test id starts with '$filter'"
    echo "$line"
    tap FAIL "$line"
    fail=1
fi
echo "1..$tap_n" >>"$ROOT/suite.tap"
if [ -z "$T" ]; then
    echo "slowest tests (s): $(sort -t "$(printf '\t')" -k3 -rn "$ROOT/times.tsv" | head -n 10 \
        | awk -F '\t' '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $3 }')"
    # CPU: the subjects' own (subjects.tsv), and this runner's with the
    # processes it waited for (its clock readings, the subjects' wrappers)
    sub_cpu=$(awk -F '\t' '{ t += $3 } END { printf "%.1f", t }' "$ROOT/subjects.tsv")
    times >"$ROOT/runner.cpu"
    all_cpu=$(times_cpu "$ROOT/runner.cpu" 1)
    echo "suite: $(since "$t_all") s with $JOBS at a time, $sub_cpu CPU-s in the subjects ($all_cpu with the runner's own); $ROOT at most $((peak_kb / 1024)) MiB (sampled every 20 s), $(du -sm "$ROOT" 2>/dev/null | cut -f1) MiB at the end"
fi
echo "$skip skipped (each SKIP line above says why)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
