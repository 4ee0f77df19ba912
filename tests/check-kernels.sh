#!/bin/sh
# tests/check-kernels.sh - every kernel under the Oclgrind simulator's
# checks (make check-kernels; CI runs it). Last line: "N passed, N failed".
#
# Oclgrind runs each work-item of each kernel in turn and reports every
# out-of-bounds access and invalid use of memory (always on), barrier
# divergence (always on), misuse of the OpenCL API (OCLGRIND_CHECK_API=1)
# and data races in global and local memory (OCLGRIND_DATA_RACES=1). The
# small inputs below reach every path of the kernels: several tiles and
# batches, a 2-D window, values outside the eye, no window at all (its
# values sorted into buckets, full ones too, or sent to atomics), one
# bin, a single value, a histogram smaller than one tile, groups of odd
# size, the workload's own histogram shape, the cpu strategy's count and
# merge, the global strategy's count and saturating pass, and the
# replicated strategy's copies of a tile (2, 3 and 4, whole rows and 2-D),
# and the fused strategy's one launch, alone and with groups that meet.
# A case passes when histo succeeds, its raw counters equal the
# sequential reference's, histo.out shows the path the case is for, and
# Oclgrind reported nothing but the race the design accepts: a read of a
# counter before the atomic add to it (tile_add in eye_count.cl), a pair
# of lines marked "race: pre-read" and "race: its add" in one kernel
# file (its bound, and why the read is not an atomic load, are in
# docs/design.md). Any other report, on any line or kernel, fails the
# case and is shown.
#
# Needs Oclgrind installed by make platforms (.ci/platforms).
set -u
cd "$(dirname "$0")/.." || exit 1
W=${HISTO_TEST_WORK:-tests/work}/check-kernels
B=${HISTO_BUILD:-build}
GEN=$B/histo-gen
REF=$B/histo-ref
HISTO=./histo
[ "$B" = build ] || HISTO=$B/histo
# under the suite's time limit where a subject runs this (tests/lib.sh)
HISTO=${HISTO_TIMED:-$HISTO}
unset HISTO_PLATFORM HISTO_DEVICE HISTO_KERNEL_DIR HISTO_CL_OPTIONS \
      HISTO_EYE_BUCKET_CAP HISTO_TEST_MAX_GROUP HISTO_TEST_TILE_GROUP HISTO_TEST_2D_MIN_VALUES
HISTO_NO_TUNE_CACHE=1
export HISTO_NO_TUNE_CACHE

icd=${HISTO_OCL_DIR:-${HOME:-/nonexistent}/.cache/histo/ocl}/vendors/oclgrind.icd
if [ ! -f "$icd" ]; then
    echo "check-kernels: Oclgrind is not installed ($icd is missing): make platforms" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
rm -rf "$W"
mkdir -p "$W/icd"
cp "$icd" "$W/icd/"
OCL_ICD_VENDORS=$(cd "$W/icd" && pwd)
export OCL_ICD_VENDORS
OCLGRIND_CHECK_API=1 OCLGRIND_DATA_RACES=1
# every report, however many: the accepted race repeats once per
# contended counter, and a cap would hide what follows it
OCLGRIND_MAX_ERRORS=4000000000
export OCLGRIND_CHECK_API OCLGRIND_DATA_RACES OCLGRIND_MAX_ERRORS

# the accepted races: "FILE READ-LINE ADD-LINE" for each kernel file
# that marks one pair of lines (two marks of a kind in one file is an
# error: the pairs would be ambiguous)
pairs=""
for f in kernels/*.cl; do
    r=$(grep -n 'race: pre-read \*/' "$f" | cut -d: -f1)
    a=$(grep -n 'race: its add \*/' "$f" | cut -d: -f1)
    [ -z "$r$a" ] && continue
    case "$r $a" in
        *[!0-9\ ]* | " "* | *" ")
            echo "check-kernels: $f must mark one line 'race: pre-read' and one 'race: its add'" >&2
            echo "0 passed, 1 failed"
            exit 1 ;;
    esac
    pairs="$pairs$(basename "$f") $r $a;"
done

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }

# reports LOG: Oclgrind's reports in histo's standard error, each a line
# at the margin followed by indented lines, other than the accepted race;
# prints them (at most 40 lines) and the number of accepted ones last.
reports() {
    awk -v pairs="$pairs" '
        BEGIN {
            n = split(pairs, p, ";")
            for (i = 1; i <= n; i++) {
                if (split(p[i], f, " ") != 3) continue
                pair[f[1] ":" f[2] " " f[1] ":" f[3]] = 1
                pair[f[1] ":" f[3] " " f[1] ":" f[2]] = 1
            }
        }
        function close_block() {
            if (head == "") return
            ok = head ~ /^Read-write data race at (local|global) memory address / \
                 && nat == 2 && ((at[1] " " at[2]) in pair)
            if (ok) accepted++
            else {
                others++
                if (shown < 40) { print text; shown += lines }
            }
            head = ""
        }
        /^histo: / { close_block(); next }
        /^[^ \t]/ {
            close_block()
            head = $0; text = $0; lines = 1; nat = 0
            next
        }
        head != "" {
            text = text "\n" $0; lines++
            if ($0 ~ /^\tAt line [0-9]+ \(column [0-9]+\) of .*:$/) {
                file = $0
                sub(/^.* of /, "", file); sub(/:$/, "", file); sub(/.*\//, "", file)
                split($0, w, " "); at[++nat] = file ":" w[3]
            }
        }
        END { close_block(); print "accepted " accepted + 0 " others " others + 0 }
    ' "$1"
}

# run_case NAME 'HISTO-GEN ARGS' 'HISTO ARGS' 'ENV' 'EXPECTED histo.out LINES'
# (ENV: VAR=VALUE words for histo; EXPECTED: lines, "|"-separated, that
# histo.out must hold, as grep patterns: the path the case is for). Sets
# why: empty when the case is clean, else what went wrong. $kernels, when
# set, is the kernel folder histo builds from.
run_case() {
    name=$1 gen=$2 args=$3 env=$4 expect=$5
    in=$W/$name.bin
    why=""
    # shellcheck disable=SC2086 # argument lists are lists of words
    if ! $GEN -o "$in" --seed 7 $gen >/dev/null 2>"$W/$name.gen.log" \
       || ! $REF "$in" "$W/$name.ref.bmp" "$W/$name.ref.raw" >/dev/null 2>&1; then
        why="input or reference failed: $(head -c 300 "$W/$name.gen.log")"
        return
    fi
    # shellcheck disable=SC2086
    env $env $HISTO --platform Oclgrind ${kernels:+--kernels "$kernels"} $args \
        -i "$in" -o "$W/$name.bmp" --raw "$W/$name.raw" \
        --timing "$W/$name.out" -- 2 >"$W/$name.stdout" 2>"$W/$name.log"
    st=$?
    verdict=$(reports "$W/$name.log")
    summary=$(echo "$verdict" | tail -n 1)
    case $summary in
        *" others 0") ;;
        *) why="Oclgrind reported ($summary):
$(echo "$verdict" | sed '$d')"
           return ;;
    esac
    if [ "$st" -ne 0 ]; then
        why="histo exit $st: $(grep '^histo' "$W/$name.log" | tail -n 3 | tr '\n' ' ')"
    elif ! cmp -s "$W/$name.raw" "$W/$name.ref.raw"; then
        why="counters differ from the sequential reference"
    else
        missing=$(echo "$expect" | tr '|' '\n' | while read -r pat; do
            [ -z "$pat" ] || grep -q -e "$pat" "$W/$name.out" || echo "$pat"
        done)
        [ -z "$missing" ] \
            || why="histo.out lacks the path this case is for: $(echo "$missing" | tr '\n' ' ')"
    fi
}

check_case() {
    run_case "$@"
    if [ -z "$why" ]; then ok "$1 ($summary)"; else bad "$1" "$why"; fi
}

# planted NAME FILE SED-SCRIPT CASE-ARGS...: the case on a copy of the
# kernels with FILE edited by SED-SCRIPT (a bug planted, lines kept in
# place) must fail on an Oclgrind report: the checker sees what it is for.
planted() {
    pname=$1 file=$2 script=$3
    shift 3
    kernels=$W/planted.$pname
    mkdir -p "$kernels"
    cp kernels/*.cl "$kernels/"
    sed "$script" "kernels/$file" >"$kernels/$file"
    if cmp -s "kernels/$file" "$kernels/$file"; then
        bad "planted.$pname" "the edit '$script' no longer changes kernels/$file"
    else
        run_case "planted.$pname" "$@"
        case $why in
            "Oclgrind reported"*) ok "planted.$pname (caught: $summary)" ;;
            *) bad "planted.$pname" "not reported by Oclgrind: ${why:-the case passed}" ;;
        esac
    fi
    kernels=""
}
kernels=""

eye='--strategy eye'
cpu='--strategy cpu'
small='--image 333x77 --histo 100x37 --row-mean 18 --row-sigma 5 --col-mean 50 --col-sigma 20 --outliers 50000'
wide='--image 200x100 --histo 256x64 --row-mean 32 --row-sigma 10 --col-mean 128 --col-sigma 6 --outliers 20000'
# the same, taller: its samples favour whole rows (in eye_tile_2d)
tall='--image 200x100 --histo 256x64 --row-mean 32 --row-sigma 12 --col-mean 128 --col-sigma 6 --outliers 20000'
many='^eye.tiles_used = [2-9]'
onebin='--dist onebin --image 64x64 --histo 100x37 --bin 1234'
single='--dist onebin --image 1x1 --histo 100x37 --bin 7'
odd='--image 7x3 --histo 5x3 --dist uniform'
shape='--image 64x64'

check_case eye.tiles_batches "$small" "$eye --tile-rows 4 --batches 3" '' \
    "^config.tile_kernel = eye_tile\$|$many|^config.batches = 3\$"
check_case eye.window_2d "$wide" "$eye --tile-rows 2" HISTO_TEST_2D_MIN_VALUES=1 \
    "^config.tile_kernel = eye_tile_2d\$|$many|^eye.cols = [1-9][0-9]\$"
# taller still: a window of several 16-bit tiles, so 8-bit ones
check_case eye.narrow_2d "${wide%% --row-sigma*} --row-sigma 16 --col-mean 128 --col-sigma 6 --outliers 20000" \
    "$eye --tile-rows 1" 'HISTO_TEST_2D_MIN_VALUES=1 HISTO_TEST_NARROW_MIN_VALUES=1' \
    "^config.tile_kernel = eye_tile_2d_narrow\$|$many|^eye.counter_bits = 8\$"
check_case eye.rows_in_2d_kernel "$tall" "$eye --tile-rows 2" HISTO_TEST_2D_MIN_VALUES=1 \
    "^config.tile_kernel = eye_tile_2d\$|$many|^eye.cols = 256\$"
check_case eye.groups_of_7 "$small" "$eye --tile-rows 4 --batches 2" HISTO_TEST_MAX_GROUP=7 \
    "^config.work_group.eye_tile = 7\$|^config.work_group.eye_reduce = 7\$|$many"
check_case eye.2d_groups_of_3 "$wide" "$eye --tile-rows 2" \
    'HISTO_TEST_2D_MIN_VALUES=1 HISTO_TEST_MAX_GROUP=3' \
    "^config.tile_kernel = eye_tile_2d\$|^config.work_group.eye_tile = 3\$|^eye.cols = [1-9][0-9]\$"
check_case eye.no_window "--image 200x100 --histo 256x64 --dist uniform" "$eye --tile-rows 2" '' \
    '^eye.tiles_used = 0$|^eye.buckets_used = no$'
check_case eye.no_window_buckets "--image 200x100 --histo 256x64 --dist uniform" "$eye --tile-rows 2" \
    HISTO_TEST_2D_MIN_VALUES=1 \
    '^config.tile_kernel = eye_tile_2d$|^eye.tiles_used = 0$|^eye.buckets_used = yes$'
check_case eye.no_window_2d_atomics "--image 200x100 --histo 256x64 --dist uniform" "$eye --tile-rows 2" \
    'HISTO_TEST_2D_MIN_VALUES=1 HISTO_EYE_BUCKET_CAP=0' \
    '^config.tile_kernel = eye_tile_2d$|^eye.tiles_used = 0$|^eye.buckets_used = no$'
check_case eye.buckets_full "--image 150x101 --histo 204x97 --dist uniform" "$eye --tile-rows 2" \
    'HISTO_TEST_2D_MIN_VALUES=1 HISTO_EYE_BUCKET_CAP=8 HISTO_TEST_MAX_GROUP=7' \
    '^eye.buckets_used = yes$|^config.buckets = 3$|^config.bucket_cap = 8$'
check_case eye.one_bin "$onebin" "$eye" '' \
    '^eye.tiles_used = 1$'
check_case eye.one_value "$single" "$eye" '' \
    '^input.values = 1$'
check_case eye.below_one_tile "$odd" "$eye" '' \
    '^eye.tiles_used = 1$|^eye.end_bin = 15$'
check_case eye.workload_shape "$shape" "$eye" '' \
    '^input.histogram = 256x8192$|^eye.tiles_used = [1-9]|^eye.plain_adds = yes$'
check_case cpu.batches "$small" "$cpu --batches 3" '' \
    '^strategy = cpu$|^config.batches = 3$'
check_case cpu.one_batch "$small" "$cpu --batches 1" '' \
    '^strategy = cpu$|^config.batches = 1$'
check_case cpu.one_bin "$onebin" "$cpu --batches 2" '' \
    '^strategy = cpu$'
check_case cpu.one_value "$single" "$cpu" '' \
    '^strategy = cpu$'
check_case cpu.below_one_line "$odd" "$cpu --batches 2" '' \
    '^strategy = cpu$'
check_case cpu.workload_shape "$shape" "$cpu --batches 2" '' \
    '^input.histogram = 256x8192$'
# The one-command plan (its groups meet, then merge), mem_fence standing
# in for the device-scope fence Oclgrind lacks: one group at a time, so
# the first participant does it all and every check applies; then on
# four threads, groups meeting, the race check off (as for fused, below).
check_case cpu.one_command "$small" "$cpu --batches 3" \
    'HISTO_TEST_CPU_COMMANDS=1 OCLGRIND_NUM_THREADS=1' \
    '^cpu.commands_per_iteration = 1$|^config.batches = 3$'
check_case cpu.one_command_together "$small" "$cpu --batches 4" \
    'HISTO_TEST_CPU_COMMANDS=1 OCLGRIND_NUM_THREADS=4 OCLGRIND_DATA_RACES=0' \
    '^cpu.commands_per_iteration = 1$|^config.batches = 4$'

# The fused kernels: one group at a time (OCLGRIND_NUM_THREADS=1) the
# first group to take a ticket counts every planned group and the barrier
# waits for no other, so every check applies, data races included. On
# four threads several groups take part and meet at the barrier, which
# must end and leave exact counters; there the race check is off:
# Oclgrind knows no synchronisation between groups inside a launch and
# reports every read, after the barrier, of what other groups wrote
# before it (bounds, barriers and API use are still checked).
fus='--strategy fused'
one=OCLGRIND_NUM_THREADS=1
check_case fused.tiles_batches "$small" "$fus --tile-rows 4 --batches 3" "$one" \
    "^config.tile_kernel = eye_fused\$|$many|^config.batches = 3\$|^eye.groups_counted = 1\$"
check_case fused.window_2d "$wide" "$fus --tile-rows 2" "$one HISTO_TEST_2D_MIN_VALUES=1" \
    "^config.tile_kernel = eye_fused_2d\$|$many|^eye.cols = [1-9][0-9]\$"
check_case fused.groups_of_7 "$small" "$fus --tile-rows 4 --batches 2" "$one HISTO_TEST_MAX_GROUP=7" \
    "^config.work_group.eye_tile = 7\$|$many"
check_case fused.no_window "--image 200x100 --histo 256x64 --dist uniform" "$fus --tile-rows 2" "$one" \
    '^eye.tiles_used = 0$'
check_case fused.one_bin "$onebin" "$fus" "$one" \
    '^eye.tiles_used = 1$'
check_case fused.one_value "$single" "$fus" "$one" \
    '^input.values = 1$'
check_case fused.workload_shape "$shape" "$fus" "$one" \
    '^input.histogram = 256x8192$|^eye.tiles_used = [1-9]|^eye.plain_adds = yes$'
check_case fused.chunks "$small" "$fus --chunk-values 7000" "$one" \
    '^input.chunks = 4$|^strategy = fused$'
check_case fused.groups_together "$small" "$fus --tile-rows 4 --batches 6" \
    'OCLGRIND_NUM_THREADS=4 OCLGRIND_DATA_RACES=0' \
    "^config.tile_kernel = eye_fused\$|$many|^eye.groups_counted = [1-9]"

rep='--strategy replicated'
check_case replicated.tiles_batches "$small" "$rep --replicas 2 --tile-rows 2 --batches 3" '' \
    "^config.replicas = 2\$|$many|^config.batches = 3\$"
check_case replicated.window_2d "$wide" "$rep --replicas 3 --tile-rows 2" HISTO_TEST_2D_MIN_VALUES=1 \
    "^config.tile_kernel = eye_tile_2d\$|^config.replicas = 3\$|$many"
check_case replicated.groups_of_7 "$small" "$rep --replicas 4" HISTO_TEST_MAX_GROUP=7 \
    '^config.work_group.eye_tile = 7$|^config.replicas = 4$|^eye.plain_adds = yes$'
check_case replicated.one_bin "$onebin" "$rep" '' \
    '^config.replicas = 2$'

glob='--strategy global'
check_case global.eye "$small" "$glob" '' \
    '^strategy = global$|^config.counter_bits = 32$'
check_case global.groups_of_7 "$small" "$glob" HISTO_TEST_MAX_GROUP=7 \
    '^config.work_group.global_count = 7$|^config.work_group.global_saturate = 7$'
check_case global.one_bin "$onebin" "$glob" '' \
    '^strategy = global$'
check_case global.one_value "$single" "$glob" '' \
    '^strategy = global$'
check_case global.odd_shape "$odd" "$glob" '' \
    '^input.histogram = 5x3$'
check_case global.workload_shape "$shape" "$glob" '' \
    '^input.histogram = 256x8192$'

# Chunks added up by combine.cl (work.c), streamed through a second
# queue, split between two queues on the one device; the odd histogram's
# 15 bins take combine's tail path alone, in groups of 3.
check_case work.chunks "$small" "$eye --chunk-values 7000" '' \
    '^input.chunks = 4$|^input.residency = device$'
check_case work.streamed "$small" "$cpu --chunk-values 6000 --device-budget 48000" '' \
    '^input.residency = streamed$|^input.chunks = 5$'
check_case work.shares "$small" "$glob --device 0,0 --chunk-values 9000" '' \
    '^shares = 2$|^share.1.chunks = 2$'
check_case work.combine_tail "$odd" "$glob --chunk-values 5" HISTO_TEST_MAX_GROUP=3 \
    '^input.chunks = 5$|^input.histogram = 5x3$'

# A read past the input's end, a barrier missing before the window the
# group's first work-item chose is read, and a combine reading past the
# partial histogram.
planted read_past_end cpu_count.cl '0,/const uint v = in\[i\];/s//const uint v = in[i + 1];/' \
    "$small" "$cpu --batches 2" '' ''
planted missing_barrier eye_window.cl '/pick(sm->best2, max_tiles2/,/barrier(CLK_LOCAL_MEM_FENCE);/s/barrier(CLK_LOCAL_MEM_FENCE);/;/' \
    "$small" "$eye --tile-rows 4" '' ''
planted combine_past_end combine.cl 's/min(sum + part\[b\]/min(sum + part[b + 1]/' \
    "$odd" "$glob --chunk-values 5" '' ''

# Every strategy histo lists has a case here (a strategy's kernels are
# checked before it lands: docs/design.md, "Adding a strategy").
for st in $($HISTO --list-strategies); do
    grep -q "^check_case $st\." "$0" || bad "every_strategy.$st" \
        "no check_case $st.NAME in tests/check-kernels.sh: add one for its kernels (docs/design.md, \"Adding a strategy\")"
done

echo "checked under Oclgrind $(OCL_ICD_VENDORS=$OCL_ICD_VENDORS $HISTO --list 2>/dev/null | sed -n 's/^platform 0: .*(Oclgrind \([0-9.]*\)).*/\1/p'): bounds, API use, barriers, data races (accepted: $pairs)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
