#!/bin/sh
# tests/suite.sh - the suite's own machinery: each covering array
# (tests/pairs) covers its model and the model is the product the
# subjects run today; the slices split the rest; and tests/run.sh's
# verdicts on fake subjects: one killed, one that exits non-zero, a bad
# T, a second suite in the same folder, an interrupt.
# ids: suite
SUBJECT=suite
. "$(dirname "$0")/lib.sh"

# each table covers its model (tests/pairs/cover.awk works it out)
for model in tests/pairs/*.pict; do
    name=$(basename "$model" .pict)
    id=suite.pairs.$name.cover
    got=$(awk -f tests/pairs/cover.awk "$model" "tests/pairs/$name.pairs" 2>&1)
    case $got in
        "ok "*) ok "$id ($got)" ;;
        *) bad "$id" "$(echo "$got" | head -n 3 | tr '\n' ';') (make pairs: tests/pairs/make-pairs.sh)" ;;
    esac
done

# factor MODEL NAME: the values of the factor NAME of tests/pairs/MODEL.pict
factor() {
    sed -n "s/^$2: *//p" "tests/pairs/$1.pict" | tr -d ' ' | tr ',' ' '
}
# same_set ID WHAT GOT WANT: ok when the two lists hold the same words
same_set() {
    a=$(echo "$3" | tr ' ' '\n' | sed '/^$/d' | sort | tr '\n' ' ')
    b=$(echo "$4" | tr ' ' '\n' | sed '/^$/d' | sort | tr '\n' ' ')
    [ "$a" = "$b" ] && return 0
    bad "$1" "$2: the model has '$a', the suite '$b' (make pairs: tests/pairs/make-pairs.sh)"
    return 1
}
# The models are the products the subjects run: the strategies histo
# lists, tests/lib.sh's cases and batch counts, tests/work.sh's modes,
# tests/impl.sh's implementations named apart, its inputs and queues.
cases=$(case_names | tr '\n' ' ')
limits=$(sed -n "/^limit_cases='$/,/^'$/p" tests/impl.sh | awk 'NF > 1 { print $1 }' | tr '\n' ' ')
named=$(sed -n 's/^# parts: //p' tests/impl.sh | tr ' ' '\n' | grep -v -x -e oclgrind -e other | tr '\n' ' ')
hows=$(grep -o '[a-z]*:--device' tests/impl.sh | sed 's/:.*//' | sort -u | tr '\n' ' ')
id=suite.pairs.device.current
same_set $id strategy "$(factor device strategy)" "$STRATEGIES" \
    && same_set $id case "$(factor device case)" "$cases" \
    && {
        why=""
        for c in $cases; do
            want=$(case_batches "$c")
            got=$(sed -n "s/^IF \[case\] = \"$c\" THEN \[batches\] IN {\(.*\)};$/\1/p" \
                  tests/pairs/device.pict | tr -d '", ' | tr -s ' ')
            [ "$(echo $want | tr -d ' ')" = "$(echo "$got" | tr -d ' ')" ] \
                || why="$why $c: the model allows '$got', lib.sh names '$want';"
        done
        [ -z "$why" ] && ok $id || bad $id "$why (make pairs: tests/pairs/make-pairs.sh)"
    }
id=suite.pairs.work.current
same_set $id mode "$(factor work mode)" "$(sed -n 's/^# parts: //p' tests/work.sh)" \
    && same_set $id strategy "$(factor work strategy)" "$STRATEGIES" \
    && same_set $id case "$(factor work case)" "$cases" && ok $id
id=suite.pairs.impl.current
same_set $id impl "$(factor impl impl)" "$named" \
    && same_set $id strategy "$(factor impl strategy)" "$STRATEGIES default" \
    && same_set $id case "$(factor impl case)" "$cases $limits" && ok $id
id=suite.pairs.impl-queues.current
same_set $id impl "$(factor impl-queues impl)" "$named" \
    && same_set $id strategy "$(factor impl-queues strategy)" "$STRATEGIES" \
    && same_set $id how "$(factor impl-queues how)" "$hows" && ok $id

# The slices split what the array leaves out: every cell of device.sh's
# product outside the array is taken by the slice its key's cksum names
# (worked out here), not by the slices beside it nor by slice none; slice
# none takes only the array.
id=suite.slices.device
cells=""
for s in $(factor device strategy); do
    for c in $(factor device case); do
        for b in $(case_batches "$c"); do cells="$cells $s:$c:$b"; done
    done
done
arr=0 taken=0 twice=0 rest=0 none_extra=0
# the pairs tier's rule, whichever tier this suite runs
saved_tier=$TIER saved_slice=$HISTO_TEST_SLICE
TIER=pairs
for cell in $cells; do
    row=$(echo "$cell" | tr ':' ' ')
    if grep -v '^#' tests/pairs/device.pairs | grep -qxF -- "$row"; then
        arr=$((arr + 1))
        continue
    fi
    rest=$((rest + 1))
    sum=$(printf '%s\n' "$row" | cksum)
    k=$((${sum%% *} % TIER_SLICES))
    HISTO_TEST_SLICE=$k/$TIER_SLICES
    in_tier device "$row" && taken=$((taken + 1))
    for o in 1 $((TIER_SLICES - 1)); do
        HISTO_TEST_SLICE=$(((k + o) % TIER_SLICES))/$TIER_SLICES
        ! in_tier device "$row" || twice=$((twice + 1))
    done
    HISTO_TEST_SLICE=none
    in_tier device "$row" && none_extra=$((none_extra + 1))
done
TIER=$saved_tier HISTO_TEST_SLICE=$saved_slice
if [ "$taken" -eq "$rest" ] && [ "$twice" -eq 0 ] && [ "$none_extra" -eq 0 ] \
   && [ $((arr + rest)) -eq 180 ]; then
    ok "$id ($arr cells in the array, $rest in $TIER_SLICES slices)"
else
    bad "$id" "$((arr + rest)) cells (180 expected), $arr in the array; of the $rest others $taken taken by their slice, $twice times by a slice beside it, $none_extra by slice none"
fi

# The runner on fake subjects, each run in a work folder of its own.
fake=$W/fake
mkdir -p "$fake"
printf '#!/bin/sh\necho "PASS good.one"\necho "PASS good.two"\n' >"$fake/good.sh"
printf '#!/bin/sh\necho "PASS killed.before"\nkill -9 $$\necho "PASS killed.after"\n' >"$fake/killed.sh"
printf '#!/bin/sh\necho "PASS failing.before"\nexit 3\n' >"$fake/failing.sh"
# slow: a child that would outlive it, its pid written down, then a wait
printf '#!/bin/sh\necho "PASS slow.started"\nsleep 60 &\necho $! >"%s/slow.child"\nsleep 60\n' \
    "$fake" >"$fake/slow.sh"
# runner WORK SUBJECTS [T]: tests/run.sh on fake subjects into $W/WORK,
# its output in $W/WORK.log, its status returned
runner() {
    T="" HISTO_TEST_WORK=$W/$1 HISTO_TEST_SUBJECT_DIR=$fake HISTO_TEST_SUBJECTS=$2 \
        sh tests/run.sh ${3:-} >"$W/$1.log" 2>&1
}
runner_ok() {
    runner ok good
    st=$?
    if [ "$st" -eq 0 ] && [ "$(tail -n 1 "$W/ok.log")" = "3 passed, 0 failed" ] \
       && [ "$(tail -n 1 "$W/ok/suite.tap")" = "1..3" ]; then
        ok suite.runner.passes
    else
        bad suite.runner.passes "exit $st, $(tail -n 1 "$W/ok.log"), tap ends '$(tail -n 1 "$W/ok/suite.tap")'"
    fi
}
runner_ok
# killed by signal 9 after one PASS, and one that exits 3: each a FAIL
# naming its status, the suite's status non-zero
for spec in killed:"status 137 (killed by signal 9)" failing:"status 3"; do
    s=${spec%%:*}
    runner "$s" "good $s"
    st=$?
    if [ "$st" -ne 0 ] && grep -q "^FAIL $s.exit: .*ended with ${spec#*:}" "$W/$s.log" \
       && [ "$(tail -n 1 "$W/$s.log")" = "4 passed, 1 failed" ] \
       && grep -q "^not ok .* - $s.exit" "$W/$s/suite.tap"; then
        ok "suite.runner.$s"
    else
        bad "suite.runner.$s" "exit $st: $(grep -e '^FAIL' -e 'passed,' "$W/$s.log" | tr '\n' ' ')"
    fi
done
# a subject quiet for longer than the heartbeat (HISTO_TEST_HEARTBEAT_S,
# 30 by default; 1 here): the runner says what is running meanwhile
printf '#!/bin/sh\necho "PASS quiet.first"\nsleep 3\necho "PASS quiet.second"\n' >"$fake/quiet.sh"
HISTO_TEST_HEARTBEAT_S=1 runner quiet quiet
st=$?
if [ "$st" -eq 0 ] && grep -q "^== still running after [0-9.]* s: quiet (1 cases)$" "$W/quiet.log"; then
    ok suite.runner.heartbeat
else
    bad suite.runner.heartbeat "exit $st: $(tr '\n' ' ' <"$W/quiet.log" | head -c 300)"
fi
# a bad T after a suite that passed: this run's suite.tap, not the last
runner ok good nosuch
st=$?
if [ "$st" -ne 0 ] && [ "$(tail -n 1 "$W/ok.log")" = "0 passed, 1 failed" ] \
   && [ "$(sed -n 2p "$W/ok/suite.tap")" = "not ok 1 - run.subject: no subject is 'nosuch' (the subjects: good)" ] \
   && [ "$(wc -l <"$W/ok/suite.tap")" -eq 3 ]; then
    ok suite.runner.bad_t
else
    bad suite.runner.bad_t "exit $st, $(tail -n 1 "$W/ok.log"); suite.tap: $(tr '\n' ' ' <"$W/ok/suite.tap")"
fi
# a second suite in a folder another is running in: refused at once
T="" HISTO_TEST_WORK=$W/busy HISTO_TEST_SUBJECT_DIR=$fake HISTO_TEST_SUBJECTS=slow \
    sh tests/run.sh >"$W/busy.first.log" 2>&1 &
first=$!
i=0
until [ -s "$fake/slow.child" ] || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
runner busy good
st=$?
if [ "$st" -ne 0 ] && grep -q "another suite is running in $W/busy" "$W/busy.log" \
   && [ "$(tail -n 1 "$W/busy.log")" = "0 passed, 1 failed" ]; then
    ok suite.runner.locked
else
    bad suite.runner.locked "exit $st: $(tr '\n' ' ' <"$W/busy.log" | head -c 300)"
fi
# alive PID: the process runs (a zombie, killed and not yet reaped by
# whoever inherited it, does not)
alive() {
    [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null
}
# the interrupt: SIGTERM to the first suite, then SIGINT to another (its
# disposition reset to the default first, as a terminal's would be: a
# background job of a shell ignores it): each stops within 5 s with
# status 130, the subject's child gone, suite.tap ended by "Bail out!"
# and the plan
interrupt() {
    i_id=$1 i_pid=$2 i_sig=$3 i_work=$4
    kill "-$i_sig" "$i_pid"
    i=0
    while kill -0 "$i_pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    wait "$i_pid"
    i_st=$?
    child=$(cat "$fake/slow.child" 2>/dev/null)
    # a process just killed may take a moment to be reaped
    j=0
    while [ -n "$child" ] && alive "$child" && [ $j -lt 20 ]; do
        sleep 0.1
        j=$((j + 1))
    done
    if [ "$i_st" -eq 130 ] && [ -n "$child" ] && ! alive "$child" \
       && grep -q "^Bail out! interrupted by SIG$i_sig with slow running" "$i_work/suite.tap" \
       && [ "$(tail -n 1 "$i_work/suite.tap")" = "1..1" ]; then
        ok "$i_id"
    else
        [ -z "$child" ] || kill "$child" 2>/dev/null
        bad "$i_id" "exit $i_st after $((i / 10)) s, the child ${child:-unknown} $(alive "$child" && echo alive || echo gone); suite.tap: $(tr '\n' ' ' <"$i_work/suite.tap")"
    fi
}
interrupt suite.runner.interrupt_term "$first" TERM "$W/busy"
rm -f "$fake/slow.child"
perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or die' env T= HISTO_TEST_WORK="$W/int" \
    HISTO_TEST_SUBJECT_DIR="$fake" HISTO_TEST_SUBJECTS=slow sh tests/run.sh \
    >"$W/int.log" 2>&1 &
second=$!
i=0
until [ -s "$fake/slow.child" ] || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
interrupt suite.runner.interrupt_int "$second" INT "$W/int"
