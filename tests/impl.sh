#!/bin/sh
# tests/impl.sh - the byte-exact cases on every other OpenCL
# implementation, and each one's loop limit against tests/loop_limit.c.
# ids: impl
# parts: rusticl intel-cpu oclgrind other
SUBJECT=impl
. "$(dirname "$0")/lib.sh"

# Each implementation the ICD loader can list other than the test
# platform (the system's /etc/OpenCL/vendors, or with make platforms the
# folder that adds Intel's CPU runtime and Oclgrind) runs alone, through a
# vendors folder of its one .icd file, every strategy on the correctness
# inputs at default batches, and with the strategy it defaults to; the
# Oclgrind simulator, which runs every work-item in turn, on small inputs
# only. On the implementations tests/pairs/impl.pict names, make test
# runs the cells of its covering arrays (impl.pairs, impl-queues.pairs)
# and a slice of the rest, make test-full all of them (tests/tier.sh);
# Oclgrind's cells, and any other implementation's, all run, but for
# those make check-kernels runs the same way under Oclgrind's checks
# (kernel_checked, below). Mesa's rusticl shows its CPU device
# (llvmpipe) only when RUSTICL_ENABLE names it.
export RUSTICL_ENABLE="${RUSTICL_ENABLE:-llvmpipe}"
# Programs built once per implementation, options and sources, and found
# by every later run (src/progcache.h): Intel's runtime has no cache of
# its own and takes about 6 s to build the tile kernels. The first run of
# each program still builds it from source.
HISTO_PROGRAM_CACHE=$ROOT/programs
export HISTO_PROGRAM_CACHE
vendors=${HISTO_OCL_DIR:-${HOME:-/nonexistent}/.cache/histo/ocl}/vendors
[ -d "$vendors" ] || vendors=/etc/OpenCL/vendors
ran_impl="" skipped_impl=""
# HISTO_TEST_PART (tests/run.sh): one of the implementations named in
# "parts" above, each a job of its own, or "other" for the rest; unset:
# all of them.
part=${HISTO_TEST_PART:-}
# in_part TAG: whether this run takes the implementation TAG
in_part() {
    case $part in
        "") ;;
        other) case $1 in intel-cpu | rusticl | oclgrind) return 1 ;; esac ;;
        *) [ "$1" = "$part" ] || return 1 ;;
    esac
    wanted "impl.$1"
}
taken=""
for tag in intel-cpu oclgrind; do
    if in_part $tag && [ "$part" != other ] && [ ! -f "$vendors/$tag.icd" ]; then
        skipped_impl="$skipped_impl $tag (not installed: make platforms);"
        echo "SKIP impl.$tag: not installed (make platforms)"
    fi
done
if in_part rusticl && [ "$part" != other ] && [ ! -f "$vendors/rusticl.icd" ]; then
    skipped_impl="$skipped_impl rusticl (not installed: Debian's mesa-opencl-icd);"
    echo "SKIP impl.rusticl: not installed (Debian's mesa-opencl-icd)"
fi
# The simulator's inputs: g_64 is the workload's shape (the 256x8192
# histogram), g_onebin one bin saturated (1,600 values) at the centre of
# a histogram of 256x512 bins, several tiles of the eye strategies, not
# the workload's 8192 rows: the tile strategies spend their time on the
# simulator in passes over every bin (6-8 s a run at 8192 rows, each).
small_cases='
g_small  --image 333x77 --histo 100x37 --row-mean 18 --row-sigma 5 --col-mean 50 --col-sigma 20
g_tiny   --image 7x3 --histo 5x3 --dist uniform
g_one    --dist onebin --image 1x1 --histo 64x32 --bin 7
g_64     --image 64x64
g_onebin --dist onebin --image 40x40 --histo 256x512 --bin 65664
'
limit_cases='
l_narrow  --image 1001x999 --histo 257x33 --row-mean 16 --row-sigma 1 --col-mean 128 --col-sigma 4
l_twoeye  --image 1001x999 --histo 256x33 --dist twoeye --row-mean 8 --second-row 20 --row-sigma 2 --col-mean 100 --col-sigma 2
l_edge    --image 1001x999 --histo 257x32 --row-mean 0 --row-sigma 2 --col-mean 200 --col-sigma 2
'
# kernel_checked STRATEGY CASE: succeeds, in the pairs tier, where
# tests/check-kernels.sh (make check-kernels, which CI runs) has a case
# of the same strategy on the same input at its default plan, here the
# 2-D histogram's 64x64 values (a case of several seconds on the
# simulator) and the 7x3 input; make test-full runs them here too.
kernel_checked() {
    [ "$TIER" = full ] && return 1
    case $1.$2 in
        eye.g_64 | fused.g_64 | global.g_64) k_var=shape k_case=workload_shape ;;
        eye.g_tiny) k_var=odd k_case=below_one_tile ;;
        global.g_tiny) k_var=odd k_case=odd_shape ;;
        *) return 1 ;;
    esac
    k_opt=$(echo "$1" | sed 's/^fused$/fus/; s/^global$/glob/')
    k_gen=$(echo "$small_cases" | sed -n "s/^$2  *//p")
    grep -qxF "$k_var='$k_gen'" tests/check-kernels.sh \
        && grep -qF "check_case $1.$k_case \"\$$k_var\" \"\$$k_opt\" " tests/check-kernels.sh
}
# verdict ID STATUS STRATEGY REF.bmp: a run's line. fused waits for other
# groups in loops of no fixed length: where the device ends loops early it
# must refuse, loudly, and write nothing; 124 is timeout's (a queue that
# waits on one never flushed hangs); else exact counters.
verdict() {
    if [ "$3" = fused ] && [ "$2" -eq 4 ] \
       && grep -q "ends a work-item's loops after [0-9]* iterations: use --strategy eye" "$W/$1.log" \
       && [ ! -e "$W/$1.bmp" ] && [ ! -e "$W/$1.raw" ]; then
        echo "PASS $1 (refused: the device's loop limit)"
    elif [ "$2" -eq 124 ]; then
        echo "FAIL $1: no answer in 120 s (a queue waits on one never flushed?)"
    elif [ "$2" -ne 0 ]; then
        echo "FAIL $1: histo failed: $(tail -n 2 "$W/$1.log" | tr '\n' ' ')"
    elif same_counts "$W/$1.bmp" "$4"; then
        echo "PASS $1"
    else
        echo "FAIL $1: $(cat "$W/last.diff")"
    fi
}
# ran_first STRATEGY: $W/impl.$tag.STRATEGY.CASE for the first input of
# the list that STRATEGY ran on here (its .out exists)
ran_first() {
    for r_case in $(echo "$list" | awk 'NF { print $1 }'); do
        [ -f "$W/impl.$tag.$1.$r_case.out" ] && { echo "$W/impl.$tag.$1.$r_case"; return; }
    done
    echo "$W/impl.$tag.$1.none"
}
for icd in "$vendors"/*.icd; do
    [ -f "$icd" ] || continue
    tag=$(basename "$icd" .icd)
    in_part "$tag" || continue
    taken=yes
    dir="$W/icd/$tag"
    mkdir -p "$dir"
    cp "$icd" "$dir/"
    # the platform's name: what --list shows before " (vendor, version)"
    name=$(OCL_ICD_VENDORS=$dir $HISTO --list 2>/dev/null \
           | sed -n '/^platform 0: /{s/^platform 0: //; s/ (.*//; p; q; }')
    if [ -z "$name" ]; then
        skipped_impl="$skipped_impl $tag (its library lists no platform here);"
        echo "SKIP impl.$tag: its library lists no platform here"
        continue
    fi
    if ! OCL_ICD_VENDORS=$dir $HISTO --list 2>/dev/null | grep -q "^  device "; then
        skipped_impl="$skipped_impl $name (no device here);"
        echo "SKIP impl.$tag: $name has no device here"
        continue
    fi
    case $name in "$PLATFORM"*) continue ;; esac
    # Two iterations, so that state left from the first would show; one on
    # the simulator, whose point is the kernels' memory behaviour (state
    # between iterations is checked on every other implementation here,
    # and on the test platform at 3), and which spends about 5 s an
    # iteration on the 256x8192 histogram.
    iters=2 simulator=""
    case $name in
        Oclgrind*) list=$small_cases iters=1 simulator=yes ;;
        *) list=$(for c in $(case_names); do echo "$c $(case_gen "$c")"; done) ;;
    esac
    # Under the sanitizers (make test-asan) an implementation's library
    # may not survive being loaded into an instrumented process (Intel's
    # aborts: "Pure virtual function called"); it is then skipped there,
    # and make test runs it.
    if [ "$B" != build ]; then
        $GEN -o "$W/probe.bin" --dist onebin --image 1x1 --bin 7 >/dev/null 2>&1
        OCL_ICD_VENDORS=$dir $HISTO --platform 0 -i "$W/probe.bin" \
            -o "$W/probe.bmp" --timing "$W/probe.out" -- 1 >"$W/probe.$tag.log" 2>&1
        st=$?
        if [ "$st" -ge 128 ]; then
            skipped_impl="$skipped_impl $name (ends by signal $((st - 128)) in the sanitizer build: $(tail -n 1 "$W/probe.$tag.log"); make test runs it);"
            echo "SKIP impl.$tag: ends by signal $((st - 128)) in the sanitizer build (make test runs it)"
            continue
        fi
    fi
    ran_impl="$ran_impl $name;"
    # Small histograms whose counters saturate in part, so that the cpu
    # strategy's count meets saturated and open bins in one chunk: where a
    # device ends loops early (rusticl's llvmpipe) these lost counts while
    # every other case passed.
    case $name in
        Oclgrind*) ;;
        *) list="$list
$limit_cases" ;;
    esac
    echo "$list" | while read -r case_name gen_args; do
        [ -n "$case_name" ] || continue
        in=$INPUTS/$case_name.bin
        # shellcheck disable=SC2086 # the generator arguments are words
        make_input "$case_name" --seed 7 $gen_args >/dev/null \
            || { echo "FAIL impl.$tag.$case_name: input generation failed"; continue; }
        # The 16.7M-value inputs check counts past 2^24 (one bin; a band
        # of 65,600 bins at 255 and 256 each): one iteration, since
        # every smaller input checks the state between iterations, and
        # rusticl's llvmpipe spends about 5 s an iteration on them.
        it=$iters
        case $case_name in *_16m) it=1 ;; esac
        for s in $STRATEGIES default; do
            id=impl.$tag.$s.$case_name
            in_tier impl "$tag $s $case_name" || continue
            [ -z "$simulator" ] || ! kernel_checked "$s" "$case_name" || continue
            pick="--strategy $s"
            [ "$s" = default ] && pick=""
            # shellcheck disable=SC2086 # pick is no words or two
            OCL_ICD_VENDORS=$dir $HISTO --platform 0 $pick \
                -i "$in" -o "$W/$id.bmp" --raw "$W/$id.raw" \
                --timing "$W/$id.out" -- "$it" >"$W/$id.log" 2>&1
            verdict "$id" $? "$s" "$INPUTS/$case_name.ref.bmp"
            rm -f "$W/$id.bmp"
        done
    done | tee "$W/impl.$tag.log"
    # Streamed input (a second queue copies while the first counts) and
    # two shares of one device, for every strategy: each queue that
    # another waits on must be flushed, or an implementation that starts
    # only flushed commands (rusticl) waits forever. A hang is a FAIL
    # after 120 s, not a stuck suite.
    case $name in
        Oclgrind*) ;;
        *)
        first=$(echo "$list" | awk 'NF { print $1; exit }')
        for s in $STRATEGIES; do
            for how in stream:--device-budget=1M share:--device=0,0 \
                       both:--device=0,0,--device-budget=1M; do
                id=impl.$tag.$s.${how%%:*}
                in_tier impl-queues "$tag $s ${how%%:*}" || continue
                # shellcheck disable=SC2046 # the options are words
                OCL_ICD_VENDORS=$dir timeout -k 5 120 $HISTO --platform 0 \
                    --strategy $s $(echo "${how#*:}" | tr ',=' '  ') \
                    -i "$INPUTS/$first.bin" -o "$W/$id.bmp" \
                    --raw "$W/$id.raw" --timing "$W/$id.out" -- 2 \
                    >"$W/$id.log" 2>&1
                verdict "$id" $? "$s" "$INPUTS/$first.ref.bmp"
                rm -f "$W/$id.bmp" "$W/$id.raw"
            done
        done | tee -a "$W/impl.$tag.log" ;;
    esac
    # the fused program built with the fence its histo.out names, and the
    # default fused only where that fence is of device scope (device.h),
    # read from the first input each ran on
    id=impl.$tag.fence
    f=$(ran_first fused)
    if [ -f "$f.out" ]; then
        why=$(fence_mismatch "$f")
        dflt=$(sed -n 's/^strategy = //p' "$(ran_first default).out")
        case $(sed -n 's/^config\.fence = //p' "$f.out") in
            work-item*) [ "$dflt" != fused ] \
                || why="${why:+$why; }the default is fused with mem_fence alone" ;;
        esac
        if [ -n "$why" ]; then
            echo "FAIL $id: $why"
        else
            echo "PASS $id ($(sed -n 's/^config\.fence = //p' "$f.out"); default $dflt)"
        fi | tee -a "$W/impl.$tag.log"
    fi
    # rusticl's timestamps (1 ns a kernel) are found unusable by the loop
    # probe, before the iterations: timed on the host from the start,
    # not run twice; Intel's and Oclgrind's time kernels, so they time
    # the iterations; another implementation may go either way.
    id=impl.$tag.clock
    f=$(ran_first cpu)
    timed=$(sed -n 's/^iteration\.timed_by = //p' "$f.out" 2>/dev/null)
    case $name:$timed in
        rusticl*:"host ("*"loop probe"*) grep -q "run again" "$f.log" \
            && echo "FAIL $id: timed on the host, but the iterations ran twice" \
            || echo "PASS $id (timed on the host from the start)" ;;
        rusticl*:*) echo "FAIL $id: iteration.timed_by = '$timed', expected the host, by the loop probe" ;;
        *:"device ("*) echo "PASS $id ($timed)" ;;
        Intel*:* | Oclgrind*:*) echo "FAIL $id: iteration.timed_by = '$timed': this implementation's timestamps time kernels" ;;
        *:"host ("*) echo "PASS $id ($timed)" ;;
        *) echo "FAIL $id: iteration.timed_by = '$timed'" ;;
    esac | tee -a "$W/impl.$tag.log"
    # kernels/probe.cl's loop limit against tests/loop_limit.c, which
    # counts a long loop in a kernel of its own: the two must agree on
    # whether this implementation ends loops early.
    id=impl.$tag.loop_limit
    # Its verdict is its line, not its exit status: under the sanitizers
    # an implementation's leaks at exit abort it after it has answered.
    OCL_ICD_VENDORS=$dir $B/loop-limit "$name" >"$W/$id.log" 2>&1
    repro=$(sed -n 's/^loop-limit: .*expected \([0-9]*\), got \([0-9]*\)$/\1 \2/p' "$W/$id.log" \
            | awk '{ print ($1 == $2) ? 0 : 1 }')
    probe=$(sed -n 's/^share\.0\.loop_limit = //p' "$(ran_first default).out" 2>/dev/null)
    if [ -z "$repro" ] || [ -z "$probe" ]; then
        echo "FAIL $id: no answer: $(head -n 1 "$W/$id.log") probe '$probe'"
    elif { [ "$repro" -eq 0 ] && [ "$probe" = none ]; } \
         || { [ "$repro" -eq 1 ] && [ "$probe" != none ]; }; then
        echo "PASS $id"
        echo "$name: loop limit $probe ($(head -n 1 "$W/$id.log"))"
    else
        echo "FAIL $id: histo's probe says '$probe', the reproducer: $(head -n 1 "$W/$id.log")"
    fi
    grep -q '^PASS \|^FAIL ' "$W/impl.$tag.log" \
        || echo "FAIL impl.$tag.ran: no case gave a result"
done
[ -n "$taken" ] || [ "$part" != other ] \
    || echo "SKIP impl.other: no implementation here but the test platform and those named apart"
echo "implementations: $PLATFORM (the test platform);$ran_impl skipped: ${skipped_impl:-none}"

