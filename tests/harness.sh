#!/bin/sh
# tests/harness.sh - tests of the datasets, the validator and the run
# harness (Spec/, input/, output/, validate/). Prints "PASS name" or
# "FAIL name: why" per test and no summary: tests/run.sh counts the lines.
#
# Expected results come from the Spec's committed checksums, from bytes
# this script changes itself at positions it computes, from the colour
# formula of README.md worked out here in awk, and from the committed
# reference outputs; never from the code under test.
# Only the test dataset is generated here (train and ref are checked by
# make run); one test-size run goes through make run on the default device.
# ids: gen harness reference spec validate
set -u
cd "$(dirname "$0")/.." || exit 1
W=${HISTO_TEST_WORK:-tests/work}/harness
rm -rf "$W"
mkdir -p "$W"
# Tools from $HISTO_BUILD like tests/run.sh (make test-asan); the make run
# cases use the ordinary build, which make run builds when missing.
B=${HISTO_BUILD:-build}
VALIDATE=$B/histo-validate
GEN=$B/histo-gen
# every make run here under a time limit, as tests/lib.sh puts histo
MAKE_CMD="timeout --foreground -k 10 ${HISTO_TEST_TIMEOUT:-600} ${MAKE:-make}"
unset HISTO_PLATFORM HISTO_DEVICE HISTO_KERNEL_DIR PLATFORM DEVICE ITERATIONS SIZE
# every make run here writes under $W, never into the user's results/
RESULTS_ROOT=$(cd "$W" && pwd)/results
export RESULTS_ROOT
# a complete description of the system under test for every make run
# here (the missing-fields rule has a test of its own, below)
SYSTEM=$(cd "$W" && pwd)/system.conf
sed 's/^\(hw_vendor\|hw_model\|hw_avail\|sw_avail\|test_sponsor\|tested_by\|sw_state\) =$/\1 = histo tests/' \
    config/system.conf.example >"$SYSTEM"
printf 'notes_tests = written by tests/harness.sh\nhw_accel_connect = on the host\n' >>"$SYSTEM"
export SYSTEM

ok() { echo "PASS $1"; }
bad() { echo "FAIL $1: $2"; }

spec() {
    sed -n "s/^$2[[:space:]]*=[[:space:]]*//p" "Spec/$1.conf" | sed -n '1p'
}

# --- Spec: every dataset complete and consistent ---
datasets=$(sh validate/harness.sh datasets 2>"$W/spec.err")
[ -n "$datasets" ] || bad spec.datasets "$(cat "$W/spec.err")"
for d in $datasets; do
    if sh validate/harness.sh check-spec "$d" 2>"$W/spec.$d.err"; then
        ok "spec.$d"
    else
        bad "spec.$d" "$(cat "$W/spec.$d.err")"
    fi
done

# --- generator: the test dataset reproduces its committed checksum, raw
# and through --gzip (the checksum is of the uncompressed bytes) ---
args=$(spec test generator_args)
want=$(spec test input_sha256)
# shellcheck disable=SC2086
if $GEN -o "$W/test.bin" $args 2>"$W/gen.err"; then
    got=$(sha256sum <"$W/test.bin" | sed 's/ .*//')
    if [ "$got" = "$want" ]; then
        ok gen.test_checksum
    else
        bad gen.test_checksum "sha256 $got, Spec/test.conf says $want"
    fi
else
    bad gen.test_checksum "$(cat "$W/gen.err")"
fi
# shellcheck disable=SC2086
if $GEN -o "$W/test.bin.gz" --gzip $args 2>"$W/gengz.err" \
    && [ "$(gzip -dc "$W/test.bin.gz" | sha256sum | sed 's/ .*//')" = "$want" ]; then
    ok gen.test_checksum_gzip
else
    bad gen.test_checksum_gzip "gzip-compressed output differs $(cat "$W/gengz.err")"
fi

# --- two runs that need the dataset, started together on a fresh
# checkout: each generates its own temporary file and renames it into
# place whole, so both succeed and nothing is left beside it; each says
# how far it is, a line at each tenth of the values. In a copy of the
# Spec and harness, so the checkout's dataset is not touched. ---
R=$W/race
mkdir -p "$R/validate" "$R/build"
cp -r Spec "$R/" && cp validate/harness.sh validate/reportable.sh validate/record.sh validate/system.sh "$R/validate/" \
    && cp "$GEN" "$R/build/histo-gen"
(sh "$R/validate/harness.sh" dataset test >"$R/a.log" 2>&1; echo $? >"$R/a.rc") &
(sh "$R/validate/harness.sh" dataset test >"$R/b.log" 2>&1; echo $? >"$R/b.rc") &
wait
left=$(ls -A "$R/input" 2>/dev/null | grep -v '^test\.bin\.gz$')
if [ "$(cat "$R/a.rc" "$R/b.rc" | tr '\n' ' ')" = "0 0 " ] \
   && [ "$(gzip -dc "$R/input/test.bin.gz" | sha256sum | sed 's/ .*//')" = "$want" ] \
   && [ -z "$left" ] \
   && [ "$(grep -c "^histo-gen: .*tmp-[0-9]*-test.bin.gz: [0-9]*0% ([0-9]* of 1035840 values)\$" "$R/a.log")" -eq 10 ] \
   && grep -q "^histo-gen: .*: 100% (1035840 of 1035840 values)\$" "$R/b.log"; then
    ok harness.dataset_concurrent
else
    bad harness.dataset_concurrent "exit $(cat "$R/a.rc" "$R/b.rc" | tr '\n' ' '), left: ${left:-nothing}: $(cat "$R/a.log" "$R/b.log" | tail -n 2 | tr '\n' ' ')"
fi

# --- references: each committed output has the saturated core the Spec
# records (an independent property of the dataset, not a copy of it) ---
for d in $datasets; do
    ref=$(spec "$d" reference)
    sat=$(spec "$d" reference_saturated_bins)
    line=$($VALIDATE --stats "$ref" 2>&1)
    case $line in
        *" $sat saturated"*) ok "reference.$d.saturated_core" ;;
        *) bad "reference.$d.saturated_core" "expected $sat saturated bins: $line" ;;
    esac
done

# --- raw references: the committed counters are the Spec's (sha256 of
# the uncompressed bytes, by gzip and sha256sum alone), one byte per bin of
# the dataset's histogram, and their 255s are the saturated bins the Spec
# records for the BMP ---
for d in $datasets; do
    raw=$(spec "$d" reference_raw)
    want=$(spec "$d" reference_raw_sha256)
    shape=$(spec "$d" histogram)
    if [ ! -r "$raw" ]; then
        bad "reference.$d.raw_sha256" "cannot read $raw"
        continue
    fi
    got=$(gzip -dc "$raw" | sha256sum | sed 's/ .*//')
    if [ "$got" = "$want" ]; then
        ok "reference.$d.raw_sha256"
    else
        bad "reference.$d.raw_sha256" "$raw holds counters with sha256 $got, Spec/$d.conf says $want"
    fi
    n=$(gzip -dc "$raw" | wc -c)
    sat=$(gzip -dc "$raw" | tr -cd '\377' | wc -c)
    if [ "$n" -eq $((${shape%x*} * ${shape#*x})) ] \
        && [ "$sat" -eq "$(spec "$d" reference_saturated_bins)" ]; then
        ok "reference.$d.raw_shape_saturated"
    else
        bad "reference.$d.raw_shape_saturated" "$n bytes for a $shape histogram, $sat at 255"
    fi
done

# --- validator ---
REF=$(spec test reference)
REF_RAW=$(spec test reference_raw)
HIST=$(spec test histogram)
gzip -dc "$REF" >"$W/ref.bmp"
gzip -dc "$REF_RAW" >"$W/ref.raw"
HWIDTH=${HIST%x*}
HEIGHT=${HIST#*x}
NBINS=$((HWIDTH * HEIGHT))
STRIDE=$((HWIDTH * 3)) # BMP row bytes: a multiple of 4 for 256 pixels

# check NAME WANT_STATUS PATTERN ARGS...: the validator's exit status on ARGS
# and a line of its output (stdout and stderr) matching PATTERN.
check() {
    name=$1 want=$2 pattern=$3
    shift 3
    $VALIDATE "$@" >"$W/$name.log" 2>&1
    got=$?
    if [ "$got" -ne "$want" ]; then
        bad "$name" "exit status $got, expected $want: $(head -c 300 "$W/$name.log")"
    elif ! grep -q -- "$pattern" "$W/$name.log"; then
        bad "$name" "output lacks '$pattern': $(head -c 300 "$W/$name.log")"
    else
        ok "$name"
    fi
}

# poke FILE ROW COLUMN BYTE: sets the red byte of histogram bin (ROW,
# COLUMN), which a bottom-up BMP stores in row HEIGHT-1-ROW.
poke() {
    off=$((54 + (HEIGHT - 1 - $2) * STRIDE + 3 * $3 + 2))
    printf "\\$(printf '%03o' "$4")" \
        | dd of="$1" bs=1 seek="$off" conv=notrunc 2>/dev/null
}

check validate.identical_gz_vs_raw 0 "^PASS" "$W/ref.bmp" "$REF"
check validate.identical_raw 0 "^PASS" "$W/ref.bmp" "$W/ref.bmp"

# One pixel in the saturated core: count 255 (red 255) becomes 0.
cp "$W/ref.bmp" "$W/one.bmp"
poke "$W/one.bmp" 4100 130 0
check validate.one_pixel_core 1 \
    "(row 4100, column 130): got count 0 (red 0), expected count 255" \
    "$W/one.bmp" "$REF"
grep -q "^FAIL: 1 of 2097152 pixels differ" "$W/validate.one_pixel_core.log" \
    && ok validate.one_pixel_count \
    || bad validate.one_pixel_count "$(head -c 300 "$W/validate.one_pixel_core.log")"

# Row 0 is the last row stored: orientation, and a colour no count has.
cp "$W/ref.bmp" "$W/corner.bmp"
poke "$W/corner.bmp" 0 255 1
check validate.one_pixel_row0 1 \
    "(row 0, column 255): got red 1 (no count has this colour), expected count 0 (red 0)" \
    "$W/corner.bmp" "$REF"

head -c 100000 "$W/ref.bmp" >"$W/truncated.bmp"
check validate.truncated 3 "truncated BMP" "$W/truncated.bmp" "$REF"
head -c 30 "$W/ref.bmp" >"$W/short.bmp"
check validate.short_header 3 "the header is 30 of 54 bytes" "$W/short.bmp" "$REF"
echo "this is not an image" >"$W/text.bmp"
check validate.not_bmp 3 "not a BMP file" "$W/text.bmp" "$REF"
: >"$W/empty.bmp"
check validate.empty 3 "not a BMP file" "$W/empty.bmp" "$REF"
cp "$W/ref.bmp" "$W/long.bmp"
echo extra >>"$W/long.bmp"
check validate.trailing_bytes 3 "6 bytes after the last row" "$W/long.bmp" "$REF"
check validate.missing 3 "cannot open" "$W/nope.bmp" "$REF"
check validate.missing_reference 3 "cannot open" "$W/ref.bmp" "$W/nope.bmp.gz"
head -c 1000 "$REF" >"$W/cut.bmp.gz"
check validate.truncated_gzip 3 "histo-validate: $W/cut.bmp.gz" "$W/ref.bmp" "$W/cut.bmp.gz"

# setbyte FILE OFFSET BYTE: writes one byte in place.
setbyte() {
    printf "\\$(printf '%03o' "$3")" \
        | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

# red COUNT: the BMP's red value of a count, by README.md's formula
# (0 is black; else (unsigned)(255 * f), f = cbrt(1 + 63 v / 255) / 4).
red() {
    awk -v v="$1" 'BEGIN { if (v == 0) print 0;
        else print int(255 * exp(log(1 + 63 * v / 255) / 3) / 4) }'
}

# check_raw NAME WANT_STATUS PATTERN GOT EXPECTED: as check, for the
# counters of the test histogram.
check_raw() { check "$1" "$2" "$3" --raw "$HIST" "$4" "$5"; }

# The first bin of the test reference that counts 253, found by od; row
# and column from the histogram's width. 253 and 254 have one colour, so
# a count one too high there leaves the BMP as it was.
B253=$(od -An -v -tu1 -w1 "$W/ref.raw" | awk '$1 == 253 { print NR - 1; exit }')
if [ -n "$B253" ]; then
    R253=$((B253 / HWIDTH)) C253=$((B253 % HWIDTH))
    ref_red=$(od -An -tu1 -j $((54 + (HEIGHT - 1 - R253) * STRIDE + 3 * C253 + 2)) \
        -N 1 "$W/ref.bmp" | tr -d ' ')
    if [ "$(red 253)" -eq "$(red 254)" ] && [ "$ref_red" -eq "$(red 253)" ]; then
        ok validate.colour_253_is_254
    else
        bad validate.colour_253_is_254 "red(253) $(red 253), red(254) $(red 254), reference BMP has $ref_red at bin $B253"
    fi
else
    bad validate.colour_253_is_254 "no bin of $REF_RAW counts 253"
    B253=0 R253=0 C253=0
fi

check_raw validate.raw_identical 0 "^PASS" "$W/ref.raw" "$REF_RAW"
cp "$W/ref.raw" "$W/raw253.raw"
setbyte "$W/raw253.raw" "$B253" 254
check_raw validate.raw_253_to_254 1 \
    "^  (row $R253, column $C253) bin $B253: got 254, expected 253$" \
    "$W/raw253.raw" "$REF_RAW"
grep -q "^FAIL: 1 of $NBINS bins differ$" "$W/validate.raw_253_to_254.log" \
    && ok validate.raw_253_count \
    || bad validate.raw_253_count "$(head -c 300 "$W/validate.raw_253_to_254.log")"
head -c $((NBINS - 1)) "$W/ref.raw" >"$W/short.raw"
check_raw validate.raw_short 3 "too few counters" "$W/short.raw" "$REF_RAW"
{ cat "$W/ref.raw"; printf '\000'; } >"$W/long.raw"
check_raw validate.raw_long 3 "too many counters" "$W/long.raw" "$REF_RAW"

# A 16x16 histogram is a valid BMP of the wrong shape.
$GEN -o "$W/small.bin" --image 10x10 --histo 16x16 2>/dev/null \
    && $B/histo-ref "$W/small.bin" "$W/small.bmp" 2>/dev/null
check validate.wrong_shape 1 "is a 16x16 BMP, expected 256x8192" "$W/small.bmp" "$REF"

# The bits-per-pixel field (offset 28) says 32: a BMP histo never writes.
cp "$W/ref.bmp" "$W/bpp.bmp"
printf ' ' | dd of="$W/bpp.bmp" bs=1 seek=28 conv=notrunc 2>/dev/null
check validate.not_24bit 3 "32 bits per pixel" "$W/bpp.bmp" "$REF"

# --- the harness ---
LOG=$W/runs.jsonl
ITER=$(spec test iterations)
WARM=$(( (ITER + 9) / 10 ))
# Every record is read back with a real JSON parser, jq (make test
# installs it with tidy: .ci/deps).
jget() { jq -r "$2 | if . == null then \"null\" else tostring end" "$1" 2>&1; }
jcheck() { jq -e . "$1" >/dev/null 2>&1; }
command -v jq >/dev/null 2>&1 || bad harness.jq "jq is not installed: sh .ci/deps jq tidy"
# last_record LOG: the log's last line, alone in $W/last.json
last_record() { tail -n 1 "$1" >"$W/last.json" 2>/dev/null; }
# reportable_text: what a run of the Spec's command says on this tree:
# the test workload is never reportable (SPEC reports ref only), nor is a
# tree with uncommitted changes to tracked files.
test_why="workload: test, not ref (SPEC reports the ref workload only)"
modified_why="source: the tree has uncommitted changes to tracked files"
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    reportable_text="not reportable: $test_why; $modified_why"
    test_reasons="$test_why|$modified_why"
else
    reportable_text="not reportable: $test_why"
    test_reasons=$test_why
fi

# SPEC's rules one at a time (validate/reportable.sh): a ref run with the
# Spec's iterations, 3 validated runs, the Spec's reference, a device that
# is not a simulator and a committed tree is reportable, base or peak;
# test and train never are.
reasons() (
    size=ref n=50000 d_iterations=50000 repeat=3 all_result=PASS ref_kind=spec
    kind=hardware kind_why="" info=yes modified=false commit=abc1234
    spread="" load_before="" busy_before="" cores=""
    for a in "$@"; do eval "$a"; done
    . validate/reportable.sh
    reportable_reasons | paste -sd'|' -
)
if [ -z "$(reasons)" ] && [ -z "$(reasons tuning=peak)" ]; then
    ok harness.reportable_ref
else
    bad harness.reportable_ref "$(reasons)"
fi
for s in test train; do
    if [ "$(reasons size=$s n=30 d_iterations=30)" = "workload: $s, not ref (SPEC reports the ref workload only)" ]; then
        ok "harness.not_reportable_$s"
    else
        bad "harness.not_reportable_$s" "$(reasons size=$s n=30 d_iterations=30)"
    fi
done
# the source: a tree git sees as changed, a tree git cannot see (named or
# not by HISTO_COMMIT): never reportable, each with its reason
if [ "$(reasons repeat=2 commit=unknown modified=unknown)" = "runs: 2, fewer than 3|source: not a git checkout, so the commit that built it is unknown" ] \
   && [ "$(reasons modified=true)" = "source: the tree has uncommitted changes to tracked files" ] \
   && [ "$(reasons modified=unknown)" = "source: git cannot verify the tree against commit abc1234 (a copy named by HISTO_COMMIT, or a tree changed since the build)" ]; then
    ok harness.reportable_rules
else
    bad harness.reportable_rules "$(reasons repeat=2 commit=unknown modified=unknown) / $(reasons modified=unknown)"
fi
# run quality, stricter than SPEC: runs more than 1.15x apart, or a
# machine carrying more load than half its cores (at least 1) when the
# run began; a quiet machine's figures pass
if [ "$(reasons spread=1.870 load_before=3.2 cores=2)" = "noisy: spread 1.870x > 1.15x (slowest over fastest run)|load 3.2 on 2 cores when the run began (more than 1)" ] \
   && [ -z "$(reasons spread=1.011 load_before=0.15 cores=16)" ] \
   && [ -z "$(reasons spread=1.150 load_before=8 cores=16)" ] \
   && [ "$(reasons load_before=8.5 cores=16)" = "load 8.5 on 16 cores when the run began (more than 8)" ] \
   && [ "$(reasons load_before=7.13 busy_before=15.9 cores=16)" = "busy: 15.9 of 16 cores busy when the run began (more than 8)" ] \
   && [ -z "$(reasons busy_before=0.9 cores=2)" ]; then
    ok harness.reportable_run_quality
else
    bad harness.reportable_run_quality "$(reasons spread=1.870 load_before=3.2 cores=2)"
fi

# PLATFORM and DEVICE reach histo as --platform/--device, spaces intact.
# A device error stops the run after the warm-up: a valid record with
# the real exit status, null figures, and last-run left where it was.
# (The runs that fail come first, so the tree ends with a good test run
# for make validate.)
# what results/test/last-run holds ("none" when there is none yet)
last_run_now() { cat "$RESULTS_ROOT/test/last-run" 2>/dev/null || echo none; }
last_run_now >"$W/last-run.before"
$MAKE_CMD --no-print-directory run PLATFORM="no such platform" \
    RESULTS_LOG="$LOG" >"$W/platform.log" 2>&1
st=$?
last_record "$LOG"
if [ "$st" -ne 0 ] && grep -q -- "--platform 'no such platform'" "$W/platform.log" \
    && grep -q "no OpenCL platform matches 'no such platform'" "$W/platform.log" \
    && grep -q "^116.histo test | none opened (platform no such platform, device default) | $ITER iterations | 0 of 3 runs passed | median - s/iteration, host wall (min -, max -) | ratio - | base | FAIL (warm-up: histo exited with status 4 (OpenCL platform, device, build or run error); 3 of 3 runs not attempted after the warm-up's status 4) | not reportable: $test_why; result: FAIL; device: none opened" "$W/platform.log" \
    && [ "$(grep -c "^116.histo test: run [0-9]" "$W/platform.log")" -eq 0 ]; then
    ok harness.platform_passed
else
    bad harness.platform_passed "status $st: $(tail -n 3 "$W/platform.log")"
fi
if jcheck "$W/last.json" && [ "$(jget "$W/last.json" .histo_status)" = 4 ] \
   && [ "$(jget "$W/last.json" .s_per_iteration)" = null ] \
   && [ "$(jget "$W/last.json" .ratio)" = null ] \
   && [ "$(jget "$W/last.json" .device)" = null ] \
   && [ "$(jget "$W/last.json" .result)" = FAIL ] \
   && [ "$(jget "$W/last.json" .reportable)" = false ] \
   && [ "$(jget "$W/last.json" .runs_attempted)" = 0 ] \
   && [ "$(jget "$W/last.json" .warmup.histo_status)" = 4 ] \
   && [ "$(last_run_now)" = "$(cat "$W/last-run.before")" ]; then
    ok harness.failed_run_record
else
    bad harness.failed_run_record "$(head -c 600 "$W/last.json"); last-run $(last_run_now) (was $(cat "$W/last-run.before"))"
fi
$MAKE_CMD --no-print-directory run PLATFORM="Portable Computing Language" \
    DEVICE="no such device" RESULTS_LOG="$LOG" >"$W/device.log" 2>&1
st=$?
if [ "$st" -ne 0 ] && grep -q "no OpenCL device matches 'no such device'" "$W/device.log" \
   && [ "$(grep -c "^116.histo test: run [0-9]" "$W/device.log")" -eq 0 ]; then
    ok harness.device_passed
else
    bad harness.device_passed "status $st: $(tail -n 3 "$W/device.log")"
fi
# a make variable that is not UTF-8 (a byte 0xFF) still gives a record
# that is valid UTF-8 JSON, the byte written as the text \xFF
$MAKE_CMD --no-print-directory run PLATFORM="$(printf 'no\377such')" \
    RESULTS_LOG="$LOG" >"$W/utf8.log" 2>&1
last_record "$LOG"
if iconv -f UTF-8 -t UTF-8 "$LOG" >/dev/null 2>&1 && jcheck "$W/last.json" \
   && grep -q 'no\\\\xFFsuch' "$W/last.json"; then
    ok harness.record_utf8
else
    bad harness.record_utf8 "$(head -c 400 "$W/last.json")"
fi
# Hostile values in the environment and the system description: a
# backslash at the end, a quote, tabs, a newline, a control character and
# bytes that are not UTF-8. The run passes and its record is JSON that
# holds each value: byte for byte where it is UTF-8, in the records'
# escaped form (backslashes doubled, bad bytes as \xHH, the field named
# in not_utf8) where it is not; result.txt shows control characters as
# \xHH, never deleted.
HOSTILE_SYS=$W/hostile-system.conf
tab=$(printf '\t')
{
    sed 's/^hw_model =.*/hw_model = a'"$tab"'tab\\ "q" \\x41/' "$SYSTEM"
    printf 'notes_ctl = one\001two\n'
    printf 'notes_bytes = caf\351 \\ x\n'
} >"$HOSTILE_SYS"
q_value=$(printf 'a"b\\c%sd\ne\001f' "$tab")
OCL_ICD_ZZZ='x\' POCL_HOSTILE_Q=$q_value POCL_HOSTILE_BYTES=$(printf 'no\377 \\ ok') \
    $MAKE_CMD --no-print-directory run ITERATIONS=1 REPEAT=1 SYSTEM="$HOSTILE_SYS" \
    RESULTS_LOG="$W/hostile.jsonl" >"$W/hostile.log" 2>&1
st=$?
last_record "$W/hostile.jsonl"
why=""
[ "$st" -eq 0 ] || why="make run exited $st: $(tail -n 2 "$W/hostile.log");"
jcheck "$W/last.json" || why="$why the record is not JSON;"
[ "$(jq -j '.env.OCL_ICD_ZZZ' "$W/last.json")" = 'x\' ] || why="$why OCL_ICD_ZZZ is '$(jget "$W/last.json" .env.OCL_ICD_ZZZ)';"
printf '%s' "$q_value" >"$W/q.want"
jq -j '.env.POCL_HOSTILE_Q' "$W/last.json" >"$W/q.got" 2>/dev/null
cmp -s "$W/q.want" "$W/q.got" || why="$why POCL_HOSTILE_Q does not round-trip;"
[ "$(jq -j '.env.POCL_HOSTILE_BYTES' "$W/last.json")" = 'no\xFF \\ ok' ] || why="$why POCL_HOSTILE_BYTES is '$(jget "$W/last.json" .env.POCL_HOSTILE_BYTES)';"
[ "$(jq -j '.system.hw_model' "$W/last.json")" = "a${tab}tab\\ \"q\" \\x41" ] || why="$why hw_model is '$(jget "$W/last.json" .system.hw_model)';"
[ "$(jq -j '.system.notes.notes_ctl' "$W/last.json")" = "$(printf 'one\001two')" ] || why="$why notes_ctl lost its control character;"
[ "$(jq -j '.system.notes.notes_bytes' "$W/last.json")" = 'caf\xE9 \\ x' ] || why="$why notes_bytes is '$(jget "$W/last.json" .system.notes.notes_bytes)';"
[ "$(jq -c '.not_utf8 | sort' "$W/last.json")" = '["env.POCL_HOSTILE_BYTES","system.notes.notes_bytes"]' ] || why="$why not_utf8 is $(jq -c .not_utf8 "$W/last.json");"
iconv -f UTF-8 -t UTF-8 "$W/hostile.jsonl" >/dev/null 2>&1 || why="$why the log is not UTF-8;"
hrd=$(jget "$W/last.json" .result_dir)
grep -qF "hw_model               a\\x09tab\\ \"q\" \\x41" "$hrd/result.txt" 2>/dev/null || why="$why result.txt does not show hw_model escaped;"
grep -qF 'one\x01two' "$hrd/result.txt" 2>/dev/null || why="$why result.txt does not show notes_ctl escaped;"
if [ -z "$why" ]; then
    ok harness.record_hostile_values
else
    bad harness.record_hostile_values "$why"
fi

# A system description that cannot be read as one is refused with a
# clear message before any work: no dataset step, no results folder, in
# seconds (a FIFO is never opened, so nothing waits on it).
mkfifo "$W/system.fifo" 2>/dev/null
mkdir -p "$W/system.folder"
printf 'hw_model = a\nhw_vendor = v\nhw_model = b\n' >"$W/system.twice"
printf 'bogus_field = 1\n' >"$W/system.unknown"
printf 'hw_model = %s\n' "$(head -c 1500 /dev/zero | tr '\0' x)" >"$W/system.long"
printf 'hw_model a\n' >"$W/system.noequals"
for c in "fifo| is not a regular file (a FIFO, a socket or a device is never read)" \
         "folder| is a folder, not a system description file" \
         "missing|: no such file" \
         "twice|: key \"hw_model\" given twice: lines 1 and 3" \
         "unknown|: line 1: unknown key \"bogus_field\"" \
         "long|: line 1: the value of hw_model is 1500 bytes, more than 1024" \
         "noequals|: line 1: not \"key = value\" nor a comment"; do
    name=${c%%|*} want=${c#*|}
    folders=$(ls "$RESULTS_ROOT/test" 2>/dev/null | wc -l)
    started=$(date +%s)
    timeout --foreground 60 $MAKE_CMD --no-print-directory run ITERATIONS=1 REPEAT=1 SYSTEM="$W/system.$name" \
        RESULTS_LOG="$W/refused.jsonl" >"$W/system-$name.log" 2>&1
    st=$?
    took=$(( $(date +%s) - started ))
    if [ "$st" -ne 0 ] && [ "$st" -ne 124 ] && [ "$took" -le 30 ] \
       && grep -qF "harness: SYSTEM=$W/system.$name$want" "$W/system-$name.log" \
       && ! grep -q "warm-up\|generating" "$W/system-$name.log" \
       && [ "$(ls "$RESULTS_ROOT/test" 2>/dev/null | wc -l)" -eq "$folders" ] \
       && [ ! -s "$W/refused.jsonl" ]; then
        ok "harness.system_refused_$name"
    else
        bad "harness.system_refused_$name" "status $st after $took s: $(tail -n 2 "$W/system-$name.log")"
    fi
done

# Provenance: where git sees the tree, the build's commit and a record's
# modified are git's, whatever HISTO_COMMIT says; where it does not,
# HISTO_COMMIT only names the commit (ID-unverified) and modified is
# unknown. The make variable first (make --eval prints what the build
# would use, building nothing), then tools/provenance.sh in a scratch
# repository with a stand-in binary.
built_as() { $MAKE_CMD --no-print-directory -s "$@" --eval 'show-built-commit: ; @echo $(BUILT_COMMIT)' show-built-commit 2>/dev/null; }
git_id=$(sh tools/commit-id.sh)
if [ "$(built_as HISTO_COMMIT=abc1234)" = "$git_id" ] \
   && [ "$(GIT_DIR=$W/no-repository built_as HISTO_COMMIT=abc1234)" = abc1234-unverified ] \
   && [ "$(GIT_DIR=$W/no-repository built_as)" = unknown ] \
   && ! GIT_DIR=$W/no-repository built_as "HISTO_COMMIT=a'b" >/dev/null; then
    ok harness.commit_from_git
else
    bad harness.commit_from_git "HISTO_COMMIT=abc1234 builds as '$(built_as HISTO_COMMIT=abc1234)' (git: $git_id), outside git as '$(GIT_DIR=$W/no-repository built_as HISTO_COMMIT=abc1234)'"
fi
P=$W/provenance
rm -rf "$P" && mkdir -p "$P/tools" && cp tools/commit-id.sh tools/provenance.sh "$P/tools/"
pg() { git -C "$P" -c user.name=histo-tests -c user.email=tests@histo.invalid "$@" >/dev/null 2>&1; }
# the stand-in binary names its folder's HEAD as its commit, or what the
# untracked file built says (a build of another kind)
cat >"$P/histo" <<'EOF_STAND_IN'
#!/bin/sh
d=$(dirname "$0")
c=$(cat "$d/built" 2>/dev/null || git -C "$d" rev-parse --short HEAD)
printf 'histo 1.0.0\ncommit: %s\nsources = sha256:00\n' "$c"
EOF_STAND_IN
chmod +x "$P/histo"
echo one >"$P/file.txt"
pg init -q && pg add -A && pg commit -q -m one
head_id=$(git -C "$P" rev-parse --short HEAD 2>/dev/null)
prov() { sh "$P/tools/provenance.sh" "$P/histo" | cut -d' ' -f1-2; }
stand_in() { printf '%s\n' "$1" >"$P/built"; }
why=""
[ "$(prov)" = "$head_id false" ] || why="$why clean tree: '$(prov)';"
[ "$(HISTO_COMMIT=ffff000 prov)" = "$head_id false" ] || why="$why HISTO_COMMIT changed it: '$(HISTO_COMMIT=ffff000 prov)';"
echo changed >>"$P/file.txt"
[ "$(HISTO_COMMIT=$head_id prov)" = "$head_id true" ] || why="$why changed tree under HISTO_COMMIT: '$(HISTO_COMMIT=$head_id prov)';"
pg checkout -- file.txt
stand_in "$head_id-modified"
[ "$(prov)" = "$head_id true" ] || why="$why a binary built from changes: '$(prov)';"
stand_in "abc1234-unverified"
[ "$(prov)" = "abc1234 unknown" ] || why="$why a copy named by HISTO_COMMIT: '$(prov)';"
stand_in "0000000"
[ "$(prov)" = "0000000 unknown" ] || why="$why a binary of another commit: '$(prov)';"
if [ -z "$why" ]; then
    ok harness.provenance
else
    bad harness.provenance "$why"
fi
if $MAKE_CMD --no-print-directory run SIZE=nosuch >"$W/size.log" 2>&1; then
    bad harness.unknown_size "make run SIZE=nosuch succeeded"
elif grep -q "unknown dataset 'nosuch'" "$W/size.log"; then
    ok harness.unknown_size
else
    bad harness.unknown_size "$(tail -n 3 "$W/size.log")"
fi
# A make variable that spells a histo option the harness does not pass is
# refused before anything runs (exit 2 from the harness).
before=$(wc -l <"$LOG")
$MAKE_CMD --no-print-directory run BATCHES=4 RESULTS_LOG="$LOG" >"$W/batches.log" 2>&1
st=$?
if [ "$st" -ne 0 ] && grep -q "harness: BATCHES is not a harness variable: the harness does not pass histo's --batches" "$W/batches.log" \
   && ! grep -q "warm-up" "$W/batches.log" && [ "$(wc -l <"$LOG")" -eq "$before" ]; then
    ok harness.option_variable_refused
else
    bad harness.option_variable_refused "status $st: $(tail -n 2 "$W/batches.log")"
fi
# make run shows histo's progress lines as they come, not at the end (one
# appears while the run is still going), indented, one every
# HISTO_PROGRESS_INTERVAL seconds (about 10 by default), and the record
# names the variable among the environment it ran in: one run for both
HISTO_PROGRESS_INTERVAL=0.2 $MAKE_CMD --no-print-directory run ITERATIONS=2000 \
    REPEAT=1 RESULTS_LOG="$W/progress.jsonl" >"$W/progress.log" 2>&1 &
live=$!
seen=no
while kill -0 "$live" 2>/dev/null; do
    if grep -q "^  histo: iteration [0-9]* of 2000" "$W/progress.log"; then
        seen=yes
        break
    fi
    sleep 0.05
done
wait "$live"
if [ "$seen" = yes ]; then
    ok harness.live_progress
else
    bad harness.live_progress "no progress line before the end: $(tail -n 3 "$W/progress.log")"
fi
last_record "$W/progress.jsonl"
if grep -q "^  histo: iteration [0-9]* of 2000 ([0-9]*%), [0-9.]* s elapsed, about .* left$" "$W/progress.log" \
   && [ "$(jget "$W/last.json" .env.HISTO_PROGRESS_INTERVAL)" = 0.2 ] \
   && [ "$(jget "$W/last.json" .result)" = PASS ]; then
    ok harness.progress_relayed
else
    bad harness.progress_relayed "$(grep -c 'histo: iteration' "$W/progress.log") progress lines; $(tail -n 1 "$W/progress.log")"
fi
# a run that will take over a minute says so before it starts
# (HARNESS_ESTIMATE_S lowers the minute for the test)
HARNESS_ESTIMATE_S=0.05 $MAKE_CMD --no-print-directory run ITERATIONS=500 REPEAT=2 \
    RESULTS_LOG="$W/long.jsonl" >"$W/long.log" 2>&1
if grep -q "^116.histo test: about [0-9.]* s for 2 runs of 500 iterations (the warm-up took [0-9.e-]* s an iteration" "$W/long.log" \
   && [ "$(grep -n 'about [0-9.]* s for 2 runs' "$W/long.log" | cut -d: -f1)" -lt "$(grep -n 'run 1 of 2' "$W/long.log" | head -n 1 | cut -d: -f1)" ]; then
    ok harness.long_run_estimate
else
    bad harness.long_run_estimate "$(head -n 6 "$W/long.log")"
fi
# A wrong value of the harness's own variables is refused the same way,
# before a results folder is made: a misspelt strategy, a results log
# where no file can be made.
for v in "STRATEGY=eyes|STRATEGY must be one of histo's strategies (auto, .*), not 'eyes'" \
         "RESULTS_LOG=/proc/histo-no-such/runs.jsonl|RESULTS_LOG: cannot create the folder '/proc/histo-no-such'" \
         "REFERENCE=hots|REFERENCE must be spec or host, not 'hots'"; do
    assign=${v%%|*} want=${v#*|}
    name=$(printf '%s' "${assign%%=*}" | tr 'A-Z' 'a-z')
    folders=$(ls "$RESULTS_ROOT/test" 2>/dev/null | wc -l)
    before=$(wc -l <"$LOG")
    case $assign in RESULTS_LOG=*) log=${assign#RESULTS_LOG=} ;; *) log=$LOG ;; esac
    $MAKE_CMD --no-print-directory run "$assign" RESULTS_LOG="$log" >"$W/var.$name.log" 2>&1
    st=$?
    if [ "$st" -ne 0 ] && grep -q "harness: $want" "$W/var.$name.log" \
       && ! grep -q "warm-up" "$W/var.$name.log" && [ "$(wc -l <"$LOG")" -eq "$before" ] \
       && [ "$(ls "$RESULTS_ROOT/test" 2>/dev/null | wc -l)" -eq "$folders" ]; then
        ok "harness.bad_variable_$name"
    else
        bad "harness.bad_variable_$name" "status $st: $(tail -n 2 "$W/var.$name.log")"
    fi
done

# A machine without a GPU: DEVICE=GPU opens nothing and says so (the
# extra implementations of make platforms, the Oclgrind simulator among
# them, are reached by name only).
if ./histo --list 2>/dev/null | grep -q '\[[A-Z|]*GPU'; then
    echo "SKIP harness.device_gpu_none: this machine has a GPU"
else
    $MAKE_CMD --no-print-directory run DEVICE=GPU RESULTS_LOG="$LOG" >"$W/gpu.log" 2>&1
    st=$?
    if [ "$st" -ne 0 ] && grep -q "no OpenCL device matches 'GPU'" "$W/gpu.log" \
       && grep -q "^116.histo test | none opened (platform default, device GPU) | .* | FAIL (warm-up: histo exited with status 4" "$W/gpu.log" \
       && ! grep -qi "oclgrind" "$W/gpu.log"; then
        ok harness.device_gpu_none
    else
        bad harness.device_gpu_none "status $st: $(tail -n 2 "$W/gpu.log")"
    fi
fi

# PLATFORM=N is the platform ./histo --list calls N, as make list says.
want=$(./histo --list | sed -n 's/^platform 0: \([^,]*\) (.*/\1/p' | sed -n 1p)
$MAKE_CMD --no-print-directory list >"$W/list.log" 2>&1
$MAKE_CMD --no-print-directory run PLATFORM=0 ITERATIONS=1 REPEAT=1 \
    RESULTS_LOG="$W/index.jsonl" >"$W/index.log" 2>&1
last_record "$W/index.jsonl"
if [ -n "$want" ] && grep -q "^platform 0: $want " "$W/list.log" \
   && case $want in *"$(jget "$W/last.json" .platform)"*) true ;; *) false ;; esac; then
    ok harness.platform_index
else
    bad harness.platform_index "./histo --list: '$want'; make list: $(sed -n 2p "$W/list.log"); make run: $(jget "$W/last.json" .platform)"
fi

# One test-size run on the default device: a warm-up, three runs, PASS.
if $MAKE_CMD --no-print-directory run RESULTS_LOG="$LOG" >"$W/run.log" 2>&1; then
    # the run-quality reasons (noisy, load, busy) come last and depend on the
    # machine's state: left out of the comparison
    line=$(grep '^116.histo test | ' "$W/run.log" | tail -n 1 \
           | sed 's/; \(noisy: \|load [0-9.]* on \|busy: \).*$//')
    if printf '%s\n' "$line" | grep -q "^116.histo test | .* | $ITER iterations | 3 of 3 runs passed | median [0-9.]* s/iteration, host wall (min [0-9.]*, max [0-9.]*) | ratio [0-9.]* | base | PASS | $reportable_text$" \
       && [ "$(grep -c "^run [123] of 3: 116.histo test | .* | $ITER iterations | .* s total | .* s/iteration | PASS$" "$W/run.log")" -eq 3 ] \
       && grep -q "^warm-up: 116.histo test | .* | $WARM iterations (Spec: $ITER) | .* | PASS$" "$W/run.log"; then
        ok harness.run_test_pass
    else
        bad harness.run_test_pass "unexpected result line: $line"
    fi
else
    bad harness.run_test_pass "make run failed: $(tail -n 5 "$W/run.log")"
fi
last_record "$LOG"
cp "$W/last.json" "$W/pass.json"
if [ "$(jget "$W/pass.json" .result)" = PASS ] \
   && [ "$(jget "$W/pass.json" .iterations)" = "$ITER" ] \
   && [ "$(jget "$W/pass.json" .digest)" = "sha256:$(spec test reference_raw_sha256)" ]; then
    ok harness.results_json
else
    bad harness.results_json "$(head -c 300 "$W/pass.json")"
fi

# the record of three runs: their count, median, fastest, slowest, the
# Spec's reference time and the ratio, each run and the warm-up
ref_s=$(spec test reference_seconds_per_iteration)
# as written in the record (jq would drop trailing zeros the result
# files keep)
median=$(grep -o '"s_per_iteration":[0-9.]*' "$W/pass.json" | sed -n '1s/.*://p')
ratio=$(grep -o '"ratio":[0-9.]*' "$W/pass.json" | sed -n '1s/.*://p')
want_ratio=$(awk -v r="$ref_s" -v m="$median" 'BEGIN { if (m > 0) printf "%.2f", r / m }')
if [ "$(jget "$W/pass.json" .runs)" = 3 ] && [ "$(jget "$W/pass.json" .runs_passed)" = 3 ] \
   && [ "$(jget "$W/pass.json" '.run_list | length')" = 3 ] \
   && [ "$(jget "$W/pass.json" .warmup.iterations)" = "$WARM" ] \
   && [ "$(jget "$W/pass.json" .warmup.result)" = PASS ] \
   && awk -v r="$ref_s" -v x="$(jget "$W/pass.json" .reference_s_per_iteration)" 'BEGIN { exit !(r == x) }' \
   && [ "$(jget "$W/pass.json" .reference_kind)" = spec ] \
   && [ -n "$want_ratio" ] && awk -v a="$ratio" -v b="$want_ratio" 'BEGIN { exit !(a == b) }' \
   && [ "$(jget "$W/pass.json" .tuning)" = base ] \
   && [ "$(jget "$W/pass.json" .device_kind)" = hardware ]; then
    ok harness.results_json_repeat
else
    bad harness.results_json_repeat "$(head -c 600 "$W/pass.json")"
fi

# how histo was built and where it ran, for whoever reproduces a figure
if [ "$(jget "$W/pass.json" .platform_version)" != null ] \
   && [ "$(jget "$W/pass.json" .cpu_cores)" -ge 1 ] 2>/dev/null \
   && [ "$(jget "$W/pass.json" .os)" != null ] && [ "$(jget "$W/pass.json" .kernel)" != null ] \
   && [ "$(jget "$W/pass.json" .memory_bytes)" -gt 0 ] 2>/dev/null \
   && jget "$W/pass.json" .cflags | grep -q -- -std=c11 \
   && jget "$W/pass.json" .build_options | grep -q '^-cl-std=CL[0-9.]* ' \
   && [ "$(jget "$W/pass.json" .knobs_from)" = default ] \
   && [ "$(jget "$W/pass.json" .env.RUSTICL_ENABLE)" = "${RUSTICL_ENABLE:-null}" ]; then
    ok harness.results_json_build
else
    bad harness.results_json_build "the record lacks the build or host fields: $(head -c 400 "$W/pass.json")"
fi
# the build fields are the binary's own (histo --version), with the
# flags description beside them
why=""
for k in cc compiler cflags ldflags ldlibs; do
    [ "$(jget "$W/pass.json" ".$k")" = "$(./histo --version | sed -n "s/^$k = //p")" ] \
        || why="$why $k: record '$(jget "$W/pass.json" ".$k")';"
done
[ "$(jget "$W/pass.json" .flags_description)" = flags.md ] || why="$why flags_description;"
grep -q "flags described in" "$(jget "$W/pass.json" .result_dir)/result.txt" 2>/dev/null || why="$why result.txt names no flags description;"
# the result folder stands alone: the flags described in a copy of
# docs/flags.md beside the page and as a page of its own (flags.html),
# linked as such, so that a copy of the folder elsewhere keeps the link; the median run named in the runs
# table, and the record's command the median run's; the runs' spread and
# the machine's load recorded
rd=$(jget "$W/pass.json" .result_dir)
md=$(jget "$W/pass.json" .run_dir)
cp -r "$rd" "$W/result-copy"
sh validate/result.sh html "$W/result-copy/result.json" >"$W/result-copy/again.html"
cmp -s docs/flags.md "$rd/flags.md" || why="$why no copy of docs/flags.md in $rd;"
grep -q 'href="flags.html"' "$rd/result.html" || why="$why result.html does not link flags.html beside it;"
grep -q 'href="flags.html"' "$W/result-copy/again.html" || why="$why the copied folder's page does not link its flags.html;"
jget "$W/pass.json" .command | grep -qF "$md/" || why="$why command '$(jget "$W/pass.json" .command)' is not the median run's ($md);"
grep -q "^run [123] of 3 (median) .*$md\$" "$rd/result.txt" || why="$why the runs table marks no median;"
for k in spread load_before busy_before load_after; do
    jget "$W/pass.json" ".$k" | grep -q '^[0-9][0-9.]*$' || why="$why no $k;"
done
rm -rf "$W/result-copy"
if [ -z "$why" ]; then
    ok harness.record_flags_from_binary
else
    bad harness.record_flags_from_binary "$why"
fi

# A change of OPTIMIZE rebuilds everything it affects, and the binary
# says which flags built it (in a build folder of its own)
fb=$W/flags-build
if $MAKE_CMD --no-print-directory BUILD="$fb" HISTO_BIN="$fb/histo" OPTIMIZE=-O1 \
        "$fb/histo" >"$W/flags1.log" 2>&1 \
   && "$fb/histo" --version | grep -q "^cflags = -O1 -g " \
   && $MAKE_CMD --no-print-directory BUILD="$fb" HISTO_BIN="$fb/histo" OPTIMIZE=-O0 \
        "$fb/histo" >"$W/flags2.log" 2>&1 \
   && "$fb/histo" --version | grep -q "^cflags = -O0 -g " \
   && grep -q -- "-O0 .*-c src/main.c" "$W/flags2.log" \
   && grep -q -- "-O0 .*-c src/work.c" "$W/flags2.log"; then
    ok harness.flags_change_rebuilds
else
    bad harness.flags_change_rebuilds "$(tail -n 2 "$W/flags2.log" 2>/dev/null) $("$fb/histo" --version 2>&1 | grep cflags)"
fi
rm -rf "$fb"
# reportable only when every condition holds: a test run is not, and says
# why
nr=$(jget "$W/pass.json" '[.not_reportable[] | select((startswith("noisy: ") or startswith("load ") or startswith("busy: ")) | not)] | join("|")' 2>/dev/null)
[ "$(jget "$W/pass.json" .reportable)" = false ] && [ "$nr" = "$test_reasons" ] \
    && ok harness.reportable || bad harness.reportable "reportable $(jget "$W/pass.json" .reportable): $nr"

# the result files: txt and HTML from the record, in the run's folder,
# linked from results/test/
rdir=$(jget "$W/pass.json" .result_dir)
if [ -f "$rdir/result.txt" ] && [ -f "$rdir/result.html" ] && [ -f "$rdir/result.json" ] \
   && [ "$(readlink "$RESULTS_ROOT/test/latest.txt")" = "$(basename "$rdir")/result.txt" ] \
   && [ "$(readlink "$RESULTS_ROOT/test/latest.html")" = "$(basename "$rdir")/result.html" ] \
   && grep -q "^116.histo test: $median s/iteration host wall, ratio $ratio, base, PASS, " "$rdir/result.txt" \
   && [ "$(grep -c "^run [123] of 3 .* PASS .*  $rdir/run-[123]\$" "$rdir/result.txt")" -eq 3 ] \
   && grep -q "^warm-up .* PASS .*  $rdir/warmup\$" "$rdir/result.txt" \
   && grep -q "^ratio against  *the Spec's reference machine: $(spec test reference_platform)\$" "$rdir/result.txt" \
   && grep -q "^OS  *$(jget "$W/pass.json" .os)\$" "$rdir/result.txt"; then
    ok harness.result_files
else
    bad harness.result_files "$rdir: $(head -n 3 "$rdir/result.txt" 2>/dev/null)"
fi
# the HTML is valid: tidy (CI installs it) reports no error or warning
if command -v tidy >/dev/null 2>&1; then
    if tidy -q -e "$rdir/result.html" >"$W/tidy.log" 2>&1 \
       && grep -q "<h1>116.histo test: $median s/iteration host wall" "$rdir/result.html" \
       && [ "$(grep -c "<tr><td>run [123] of 3\( (median)\)\{0,1\}</td>" "$rdir/result.html")" -eq 3 ] \
       && [ "$(grep -c "<tr><td>run [123] of 3 (median)</td>" "$rdir/result.html")" -eq 1 ]; then
        ok harness.result_html
    else
        bad harness.result_html "$(head -c 400 "$W/tidy.log")"
    fi
else
    echo "SKIP harness.result_html: tidy is not installed (sh .ci/deps tidy)"
fi

# The result page shows the run: each run's histo.out and log linked,
# the median run's BMP and raw counters linked and shown (an img of its
# BMP), the other runs' outputs, the same bytes, not kept (one copy of
# the picture in the folder) and said so; each phase's seconds in the
# text and the page, equal to the median run's histo.out; result.csv
# holds every field of the record ("field,value", the dataset and the
# median among them); flags.html is a valid page with the flags' table.
why=""
mb=$(basename "$md")
for d in warmup run-1 run-2 run-3; do
    grep -qF "<a href=\"$d/histo.out\">histo.out</a>, <a href=\"$d/histo.log\">log</a>" "$rdir/result.html" \
        || why="$why no links to $d's histo.out and log;"
    if [ "$d" = "$mb" ]; then
        [ -f "$rdir/$d/histo.bmp" ] && [ -f "$rdir/$d/histo.raw" ] || why="$why the median run's outputs are gone;"
    else
        [ ! -e "$rdir/$d/histo.bmp" ] && [ ! -e "$rdir/$d/histo.raw" ] || why="$why $d keeps a copy of the outputs;"
        grep -q "^ *outputs: the same bytes as $mb's (cmp): not kept\$" "$rdir/result.txt" || why="$why the text does not say $d's outputs were the same;"
    fi
done
grep -qF "<img src=\"$mb/histo.bmp\" " "$rdir/result.html" || why="$why the page does not show the histogram;"
grep -qF "<a href=\"$mb/histo.raw\">histo.raw</a>" "$rdir/result.html" || why="$why the median run's raw counters are not linked;"
for k in input_read opencl_setup program_build upload iterations_wall download bmp_write total; do
    want=$(sed -n "s/^time.${k}_s = //p" "$md/histo.out")
    got=$(jget "$W/pass.json" ".phases.${k}_s")
    awk -v a="$want" -v b="$got" 'BEGIN { exit !(a != "" && a + 0 == b + 0) }' || why="$why phase $k: record '$got', histo.out '$want';"
done
grep -q "^iterations (wall)  *$(jget "$W/pass.json" .phases.iterations_wall_s) s\$" "$rdir/result.txt" || why="$why the text has no phases;"
grep -q "<tr><th>kernel build</th><td>$(jget "$W/pass.json" .phases.program_build_s) s</td></tr>" "$rdir/result.html" || why="$why the page has no phases;"
[ "$(head -n 1 "$rdir/result.csv")" = field,value ] && grep -qx dataset,test "$rdir/result.csv" \
    && grep -qx "s_per_iteration,$median" "$rdir/result.csv" || why="$why result.csv lacks its fields;"
[ "$(grep -c . "$rdir/result.csv")" -eq $(($(jq -r '[paths(type != "object" and type != "array")] | length' "$rdir/result.json") + 1)) ] \
    || why="$why result.csv has $(grep -c . "$rdir/result.csv") lines for $(jq -r '[paths(type != "object" and type != "array")] | length' "$rdir/result.json") fields;"
if command -v tidy >/dev/null 2>&1; then
    tidy -q -e "$rdir/flags.html" >"$W/flags-tidy.log" 2>&1 || why="$why flags.html: $(head -c 200 "$W/flags-tidy.log");"
fi
grep -q '<tr><th>flag</th><th>where it comes from</th><th>what it does and why</th></tr>' "$rdir/flags.html" \
    && grep -q '<td><code>-O2</code></td>' "$rdir/flags.html" || why="$why flags.html lacks the flags' table;"
[ -z "$why" ] && ok harness.result_page_shows_run || bad harness.result_page_shows_run "$why"

# REFERENCE=host times sequential C now; REPEAT=2 gives two runs; not
# reportable, and the line and the record say the ratio is this host's
$MAKE_CMD --no-print-directory run ITERATIONS=5 REPEAT=2 REFERENCE=host \
    RESULTS_LOG="$W/host.jsonl" >"$W/host.log" 2>&1
last_record "$W/host.jsonl"
if grep '^116.histo test | ' "$W/host.log" | tail -n 1 | grep -q "^116.histo test | .* | 5 iterations (Spec: $ITER) | 2 of 2 runs passed | median [0-9.]* s/iteration, host wall (min [0-9.]*, max [0-9.]*) | host ratio [0-9.]* (against this host's sequential C) | base | PASS | not reportable: $test_why; iterations: 5, not the Spec's $ITER; runs: 2, fewer than 3; ratio against this host's sequential C (REFERENCE=host), not the Spec's reference machine" \
   && [ "$(jget "$W/last.json" .reference_kind)" = host ] \
   && jget "$W/last.json" .reference | grep -q "^sequential C, build/ref-bench, this host" \
   && [ "$(jget "$W/last.json" .reportable)" = false ]; then
    ok harness.reference_host
else
    bad harness.reference_host "$(tail -n 2 "$W/host.log")"
fi
# a tree git does not see (a copy, git archive's output: here GIT_DIR
# names no repository): the commit is the binary's, but git cannot verify
# the tree against it, so modified is unknown and the run not reportable
# (in a working tree whose binary was built from changes, modified stays
# true)
GIT_DIR=$W/no-repository ITERATIONS=2 REPEAT=1 RESULTS_LOG="$W/nogit.jsonl" \
    sh validate/harness.sh run test >"$W/nogit.log" 2>&1
last_record "$W/nogit.jsonl"
built=$(./histo --version | sed -n 's/^commit: //p')
case $built in
    *-modified) want_mod=true want_why="source: the tree has uncommitted changes to tracked files" ;;
    *) want_mod=unknown want_why="source: git cannot verify the tree against commit $built" ;;
esac
if [ "$(jget "$W/last.json" .commit)" = "${built%-modified}" ] \
   && [ "$(jget "$W/last.json" .modified)" = "$want_mod" ] \
   && [ "$(jget "$W/last.json" .reportable)" = false ] \
   && jget "$W/last.json" '.not_reportable | join("|")' | grep -qF "$want_why"; then
    ok harness.unknown_commit_not_reportable
else
    bad harness.unknown_commit_not_reportable "$(tail -n 2 "$W/nogit.log") $(head -c 300 "$W/last.json")"
fi
# a tree copied into another repository's work tree takes no commit
# from it (tools/commit-id.sh: unknown), while a repository's own top
# level names its commit
O=$W/enclosing
rm -rf "$O" && mkdir -p "$O/copy/tools" "$O/tools" \
    && cp tools/commit-id.sh "$O/copy/tools/" && cp tools/commit-id.sh "$O/tools/" \
    && git -C "$O" init -q && git -C "$O" add -A \
    && git -C "$O" -c user.name=histo -c user.email=histo@example.invalid \
           commit -qm enclosing
own=$(git -C "$O" rev-parse --short HEAD 2>/dev/null)
inner=$(sh "$O/copy/tools/commit-id.sh")
top=$(sh "$O/tools/commit-id.sh")
if [ "$inner" = unknown ] && [ -n "$own" ] && [ "$top" = "$own" ]; then
    ok harness.enclosing_repository_commit_unknown
else
    bad harness.enclosing_repository_commit_unknown "copy inside: '$inner', want unknown; top level: '$top', want '$own'"
fi
# the system under test in the record, the text and the page: the
# file's fields, what the machine tells (a field the file gives wins), the
# notes; without a file, each required field named and the result not
# reportable for it
last_record "$LOG"
why=""
for k in hw_vendor tested_by sw_state; do
    [ "$(jget "$W/last.json" ".system.$k")" = "histo tests" ] || why="$why $k;"
done
[ "$(jget "$W/last.json" .system.hw_accel_connect)" = "on the host" ] || why="$why hw_accel_connect;"
[ "$(jget "$W/last.json" .system.notes.notes_tests)" = "written by tests/harness.sh" ] || why="$why notes;"
[ "$(jget "$W/last.json" .system.hw_cpu_name)" != n/a ] || why="$why hw_cpu_name;"
[ "$(jget "$W/last.json" .system.hw_accel_model)" = "$(jget "$W/last.json" .device)" ] || why="$why hw_accel_model;"
jget "$W/last.json" '.not_reportable | join("|")' | grep -q "system description" && why="$why a reason though complete;"
rd=$(jget "$W/last.json" .result_dir)
grep -q "^System under test ($SYSTEM)" "$rd/result.txt" 2>/dev/null || why="$why no section in result.txt;"
grep -q "^tested_by  *histo tests$" "$rd/result.txt" 2>/dev/null || why="$why tested_by not in result.txt;"
SYSTEM="" ITERATIONS=2 REPEAT=1 RESULTS_LOG="$W/nosystem.jsonl" \
    sh validate/harness.sh run test >"$W/nosystem.log" 2>&1
last_record "$W/nosystem.jsonl"
jget "$W/last.json" '.not_reportable | join("|")' \
    | grep -q "system description: hw_vendor hw_model hw_avail sw_avail test_sponsor tested_by sw_state not given (no config/system.conf: copy config/system.conf.example, or SYSTEM=FILE)" \
    || why="$why no reason without a file: $(jget "$W/last.json" '.not_reportable | join("|")');"
[ "$(jget "$W/last.json" .system.hw_vendor)" = "not given" ] || why="$why hw_vendor without a file;"
if [ -z "$why" ]; then
    ok harness.system_description
else
    bad harness.system_description "$why"
fi
for v in 0 x 101; do
    if REPEAT=$v sh validate/harness.sh run test >"$W/repeat.$v.log" 2>&1; then
        bad "harness.bad_repeat_$v" "REPEAT=$v accepted"
    elif grep -q "REPEAT must be" "$W/repeat.$v.log"; then
        ok "harness.bad_repeat_$v"
    else
        bad "harness.bad_repeat_$v" "$(head -c 200 "$W/repeat.$v.log")"
    fi
done

# STRATEGY= reaches histo; a strategy other than the device's default, or
# knobs from the tune cache, make the run peak, its knobs recorded; peak
# is no reason by itself not to report. The device's default asked for
# by name is base.
dflt=$(jget "$W/pass.json" .strategy)
other=global
[ "$dflt" = global ] && other=cpu
$MAKE_CMD --no-print-directory run STRATEGY=$other ITERATIONS=3 REPEAT=1 \
    RESULTS_LOG="$W/peak.jsonl" >"$W/strategy.log" 2>&1
last_record "$W/peak.jsonl"
if grep -q "^116.histo test: run 1 of 1: ./histo --strategy $other -i " "$W/strategy.log" \
   && [ "$(jget "$W/last.json" .strategy)" = $other ] \
   && [ "$(jget "$W/last.json" .tuning)" = peak ] \
   && [ "$(jget "$W/last.json" .knobs_why)" = "strategy $other requested (the device's default: $dflt)" ] \
   && ! jget "$W/last.json" '.not_reportable | join("|")' | grep -q "peak" \
   && grep '^116.histo test | ' "$W/strategy.log" | grep -qF "| peak: strategy $other requested (the device's default: $dflt) | PASS | not reportable: "; then
    ok harness.strategy_peak
else
    bad harness.strategy_peak "$(tail -n 2 "$W/strategy.log") $(jget "$W/last.json" .knobs_why)"
fi
# a variable for tests changes a plan: the run is peak and not
# reportable, the variable named in the line and the record
HISTO_TEST_MAX_GROUP=64 $MAKE_CMD --no-print-directory run ITERATIONS=3 REPEAT=1 \
    RESULTS_LOG="$W/peak.jsonl" >"$W/env-test.log" 2>&1
last_record "$W/peak.jsonl"
env_why="environment: HISTO_TEST_MAX_GROUP set (for measuring and tests only)"
if [ "$(jget "$W/last.json" .tuning)" = peak ] \
   && [ "$(jget "$W/last.json" .knobs_why)" = "HISTO_TEST_MAX_GROUP=64" ] \
   && [ "$(jget "$W/last.json" .env.HISTO_TEST_MAX_GROUP)" = 64 ] \
   && jget "$W/last.json" '.not_reportable | join("|")' | grep -qF "$env_why" \
   && grep '^116.histo test | ' "$W/env-test.log" | grep -qF "| peak: HISTO_TEST_MAX_GROUP=64 | PASS | not reportable: " \
   && grep '^116.histo test | ' "$W/env-test.log" | grep -qF "$env_why"; then
    ok harness.test_variable_not_reportable
else
    bad harness.test_variable_not_reportable "$(tail -n 2 "$W/env-test.log"); knobs_why $(jget "$W/last.json" .knobs_why)"
fi
$MAKE_CMD --no-print-directory run STRATEGY="$dflt" ITERATIONS=3 REPEAT=1 \
    RESULTS_LOG="$W/peak.jsonl" >"$W/default-named.log" 2>&1
last_record "$W/peak.jsonl"
if [ "$(jget "$W/last.json" .strategy)" = "$dflt" ] \
   && [ "$(jget "$W/last.json" .tuning)" = base ] \
   && grep '^116.histo test | ' "$W/default-named.log" | grep -q "| base | PASS | "; then
    ok harness.default_strategy_named_is_base
else
    bad harness.default_strategy_named_is_base "$(tail -n 2 "$W/default-named.log")"
fi
# knobs from the tune cache make a run peak, the cache named in the line
# and the record; a cache whose knobs are histo's defaults (0: the
# strategy decides) changes nothing, and the run stays base. The cache's
# line comes from --tune (its key: this device, strategy, histogram and
# size), its knobs set here.
TUNE=$W/tune.conf
rm -f "$TUNE"
if HISTO_TUNE_FILE=$TUNE ./histo --tune -i "$(spec test input)" -o "$W/tune.bmp" \
       --timing "$W/tune.out" -- 3 >"$W/tune.log" 2>&1 \
   && sed 's/= batches [0-9]* tile_rows [0-9]*/= batches 4 tile_rows 0/' "$TUNE" >"$W/tune4.conf" \
   && sed 's/= batches [0-9]* tile_rows [0-9]*/= batches 0 tile_rows 0/' "$TUNE" >"$W/tune0.conf"; then
    HISTO_TUNE_FILE=$W/tune4.conf $MAKE_CMD --no-print-directory run ITERATIONS=3 REPEAT=1 \
        RESULTS_LOG="$W/peak.jsonl" >"$W/tuned.log" 2>&1
    last_record "$W/peak.jsonl"
    knobs4="knobs from the tune cache $W/tune4.conf (batches 4, tile_rows 0, replicas 0)"
    if [ "$(jget "$W/last.json" .tuning)" = peak ] \
       && jget "$W/last.json" .knobs_from | grep -qF "tune cache $W/tune4.conf" \
       && [ "$(jget "$W/last.json" .env.HISTO_TUNE_FILE)" = "$W/tune4.conf" ] \
       && [ "$(jget "$W/last.json" .knobs_why)" = "$knobs4" ] \
       && grep '^116.histo test | ' "$W/tuned.log" | grep -qF "| peak: $knobs4 | PASS | not reportable: "; then
        ok harness.tuned_is_peak
    else
        bad harness.tuned_is_peak "$(tail -n 2 "$W/tuned.log"); knobs_why $(jget "$W/last.json" .knobs_why)"
    fi
    HISTO_TUNE_FILE=$W/tune0.conf $MAKE_CMD --no-print-directory run ITERATIONS=3 REPEAT=1 \
        RESULTS_LOG="$W/peak.jsonl" >"$W/tuned0.log" 2>&1
    last_record "$W/peak.jsonl"
    if [ "$(jget "$W/last.json" .tuning)" = base ] \
       && jget "$W/last.json" .knobs_from | grep -qF "tune cache $W/tune0.conf" \
       && [ "$(jget "$W/last.json" .knobs_why)" = null ] \
       && grep '^116.histo test | ' "$W/tuned0.log" | grep -qF "| base | PASS | "; then
        ok harness.tuned_defaults_are_base
    else
        bad harness.tuned_defaults_are_base "$(tail -n 1 "$W/tuned0.log"); knobs_why $(jget "$W/last.json" .knobs_why)"
    fi
else
    bad harness.tuned_is_peak "histo --tune failed: $(tail -n 2 "$W/tune.log")"
fi

# Like with like from real runs in one log: the full base run (pass.json:
# the Spec's iterations, 3 runs, the device's default strategy) and this
# section's quick runs of 3 iterations (peak by another strategy, by a
# test variable and by the tune cache's knobs; base from a cache of the
# defaults). make report's cell for the default strategy, base and the
# Spec's iterations is the full run's median, however many quick runs
# came after it; the quick runs have columns of their own, marked quick
# and peak.
cat "$W/pass.json" "$W/peak.jsonl" >"$W/like-real.jsonl"
why=""
sh validate/report.sh -o "$W/like-real" "$W/like-real.jsonl" >"$W/like-real.out" 2>&1 || why="exit status $?;"
# col_of HEADER3 STRATEGY: the column whose third header line is HEADER3
# and whose second names STRATEGY (fields split at " | ")
col_of() {
    awk -F ' [|] ' -v h="$1" -v s="strategy $2" '
        NR == 3 { for (i = 2; i <= NF; i++) { t = $i; sub(/ +$/, "", t); st[i] = t } }
        NR == 4 { for (i = 2; i <= NF; i++) { t = $i; sub(/ +$/, "", t); if (t == h && st[i] == s) { print i; exit } } }' "$W/like-real.out"
}
cell() { awk -F ' [|] ' -v c="$1" '$1 ~ /^test / { t = $c; sub(/ +$/, "", t); print t }' "$W/like-real.out"; }
full=$(col_of "base, Spec iterations, vs Spec reference" "$dflt")
quick=$(col_of "base, quick: 3 iterations, vs Spec reference" "$dflt")
peak=$(col_of "peak, quick: 3 iterations, vs Spec reference" "$dflt")
want=$(awk -v m="$median" 'BEGIN { printf "%.1f us", m * 1e6 }')
[ -n "$full" ] && cell "$full" | grep -q "^$want, x[0-9.]*, PASS\$" \
    || why="$why the full base cell is '$( [ -n "$full" ] && cell "$full")', want $want;"
[ -n "$quick" ] && cell "$quick" | grep -q "^[0-9.]* us, x[0-9.]*, PASS\$" || why="$why no quick base column;"
[ -n "$peak" ] && cell "$peak" | grep -q "^[0-9.]* us, x[0-9.]*, PASS\$" || why="$why no quick peak column;"
[ -n "$(col_of "peak, quick: 3 iterations, vs Spec reference" "$other")" ] || why="$why no column for strategy $other;"
[ -z "$why" ] && ok harness.report_real_runs || bad harness.report_real_runs "$why $(head -c 300 "$W/like-real.out")"

# The Oclgrind simulator (make platforms), by name: one clear line, and
# the record says simulator and not reportable. The cpu strategy: the
# simulator runs it in about 3 s an iteration of the test dataset, the
# default in about 20.
if [ -f "${HISTO_OCL_DIR:-$HOME/.cache/histo/ocl}/installed" ] && [ "$B" = build ]; then
    $MAKE_CMD --no-print-directory run PLATFORM=Oclgrind ITERATIONS=1 REPEAT=1 STRATEGY=cpu \
        RESULTS_LOG="$W/sim.jsonl" >"$W/sim.log" 2>&1
    st=$?
    last_record "$W/sim.jsonl"
    if [ "$st" -eq 0 ] && grep -q "^116.histo test: Oclgrind Simulator (Oclgrind) is a simulator: Oclgrind interprets every work-item in software" "$W/sim.log" \
       && [ "$(jget "$W/last.json" .device_kind)" = simulator ] \
       && jget "$W/last.json" '.not_reportable | join("|")' | grep -q "device: a simulator"; then
        ok harness.simulator_marked
    else
        bad harness.simulator_marked "status $st: $(tail -n 2 "$W/sim.log")"
    fi
else
    echo "SKIP harness.simulator_marked: Oclgrind not installed (make platforms), or a sanitizer build"
fi

# validate_fails NAME WHY PATTERN: make validate fails, its result line
# ends in "| FAIL (WHY)" exactly (so no other check failed) and a line of
# its output matches PATTERN.
validate_fails() {
    $MAKE_CMD --no-print-directory validate >"$W/$1.log" 2>&1
    st=$?
    line=$(grep '^116.histo test | ' "$W/$1.log" | tail -n 1)
    case $line in
        *"| FAIL ($2)") ends=yes ;;
        *) ends=no ;;
    esac
    if [ "$st" -ne 0 ] && [ "$ends" = yes ] && grep -q -- "$3" "$W/$1.log"; then
        ok "$1"
    else
        bad "$1" "status $st: $(head -c 600 "$W/$1.log")"
    fi
}

# the run's own files, in its folder (results/test/STAMP-PID/)
last=$(sh validate/harness.sh last-run test 2>/dev/null)
OUT=$last/$(basename "$(spec test output)")
RAW=$last/$(basename "$(spec test raw)")
TIMING=$last/$(basename "$(spec test timing)")
if [ -n "$last" ] && [ -f "$OUT" ] && [ -f "$RAW" ] && [ -f "$TIMING" ]; then
    cp "$OUT" "$W/run-output.bmp"
    cp "$RAW" "$W/run-output.raw"
    cp "$TIMING" "$W/run-output.out"

    # One changed byte in the run's BMP fails, naming the pixel; the
    # counters and the digest still pass.
    poke "$OUT" 4096 128 7
    validate_fails harness.validate_names_pixel "BMP differs from $REF" \
        "(row 4096, column 128): got red 7"
    cp "$W/run-output.bmp" "$OUT"

    # A count one too high where the reference has 253: the counters fail
    # and name the bin, while the BMP comparison alone passes. The BMP
    # those counters make is the run's BMP with the bin's pixel in the
    # colour of 254 (the formula above), the same byte it already holds.
    setbyte "$RAW" "$B253" 254
    poke "$OUT" "$R253" "$C253" "$(red 254)"
    validate_fails harness.validate_raw_253 "raw counters differ from $REF_RAW" \
        "^  (row $R253, column $C253) bin $B253: got 254, expected 253$"
    if $VALIDATE "$OUT" "$REF" >"$W/bmp253.log" 2>&1 \
        && grep -q "^PASS: $OUT matches" "$W/harness.validate_raw_253.log"; then
        ok harness.validate_raw_253_bmp_passes
    else
        bad harness.validate_raw_253_bmp_passes "$(head -c 400 "$W/bmp253.log")"
    fi
    cp "$W/run-output.raw" "$RAW"
    cp "$W/run-output.bmp" "$OUT"

    # Counters one byte short fail (the validator says why).
    head -c $((NBINS - 1)) "$W/run-output.raw" >"$RAW"
    validate_fails harness.validate_raw_short \
        "raw counters $RAW missing, unreadable or not $HIST counters" "too few counters"
    cp "$W/run-output.raw" "$RAW"

    # A digest in histo.out other than the reference's fails: the last hex
    # digit of the Spec's value changed (0 becomes 1, anything else 0).
    sha=$(spec test reference_raw_sha256)
    case $sha in *0) other=${sha%?}1 ;; *) other=${sha%?}0 ;; esac
    sed "s/^histogram.digest = .*/histogram.digest = sha256:$other/" \
        "$W/run-output.out" >"$TIMING"
    validate_fails harness.validate_digest \
        "histogram.digest in $TIMING is sha256:$other, expected sha256:$sha (reference_raw_sha256)" \
        "^PASS: $RAW matches"
    cp "$W/run-output.out" "$TIMING"

    if $MAKE_CMD --no-print-directory validate SIZE=test >"$W/validate2.log" 2>&1; then
        ok harness.validate_restored
    else
        bad harness.validate_restored "$(head -c 400 "$W/validate2.log")"
    fi
else
    bad harness.validate_names_pixel "no $OUT, $RAW or $TIMING after the run"
fi

# --- runs started together, and an interrupted run ---
# Four make runs at once in this checkout (twice this machine's cores),
# with distinct iteration counts: every record is one whole line, one per
# run with its own count and a PASS, and every run's result line reports
# its own count.
CLOG=$W/concurrent.jsonl
rm -f "$CLOG"
for k in 21 22 23 24; do
    $MAKE_CMD --no-print-directory run ITERATIONS=$k RESULTS_LOG="$CLOG" \
        >"$W/concurrent.$k.log" 2>&1 &
done
wait
lines=$(wc -l <"$CLOG" 2>/dev/null || echo 0)
whole=$(grep -c '^{"time":"[^"]*","benchmark":"116.histo",.*}$' "$CLOG" 2>/dev/null)
wrong=""
for k in 21 22 23 24; do
    [ "$(grep -c "\"iterations\":$k,.*\"result\":\"PASS\"\|\"result\":\"PASS\",.*\"iterations\":$k," "$CLOG")" -eq 1 ] \
        || wrong="$wrong record of $k;"
    grep '^116.histo test | ' "$W/concurrent.$k.log" | tail -n 1 | grep -q "^116.histo test | .* | $k iterations (Spec: .*) | .* | PASS | not reportable: " \
        || wrong="$wrong result line of $k: $(tail -n 1 "$W/concurrent.$k.log");"
done
if [ "$lines" -eq 4 ] && [ "$whole" -eq 4 ] && [ -z "$wrong" ]; then
    ok harness.concurrent_runs
else
    bad harness.concurrent_runs "$lines lines, $whole whole records;$wrong"
fi

# Every line of every results log written above is one JSON document.
bad_lines=""
for f in "$W"/*.jsonl; do
    n=0
    while IFS= read -r line; do
        n=$((n + 1))
        printf '%s\n' "$line" >"$W/line.json"
        jcheck "$W/line.json" || bad_lines="$bad_lines $(basename "$f"):$n"
    done <"$f"
done
if [ -z "$bad_lines" ] && [ "$(cat "$W"/*.jsonl | wc -l)" -ge 15 ]; then
    ok harness.every_record_json
else
    bad harness.every_record_json "not JSON:${bad_lines:- (or too few records)}"
fi

# SIGTERM to a run's process group (as Ctrl-C signals the terminal's)
# while histo runs: exit 128 + 15, no record, last-run pointers unchanged.
if command -v setsid >/dev/null 2>&1; then
    cp "$RESULTS_ROOT/last-run" "$W/last-run.before"
    cp "$RESULTS_ROOT/test/last-run" "$W/test-last-run.before"
    before=$(wc -l <"$CLOG")
    setsid sh -c "ITERATIONS=1000000 RESULTS_LOG='$CLOG' exec sh validate/harness.sh run test" \
        >"$W/interrupted.log" 2>&1 &
    pid=$!
    # until histo has started (its folder holds histo.log)
    for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
        grep -q "^116.histo test: warm-up: ./histo" "$W/interrupted.log" 2>/dev/null && break
        sleep 0.25
    done
    sleep 0.5
    kill -TERM "-$pid" 2>/dev/null
    wait "$pid"
    st=$?
    if [ "$st" -eq 143 ] && [ "$(wc -l <"$CLOG")" -eq "$before" ] \
       && cmp -s "$RESULTS_ROOT/last-run" "$W/last-run.before" \
       && cmp -s "$RESULTS_ROOT/test/last-run" "$W/test-last-run.before" \
       && grep -q "interrupted by signal 15; nothing recorded" "$W/interrupted.log"; then
        ok harness.interrupted_run
    else
        bad harness.interrupted_run "status $st: $(tail -n 2 "$W/interrupted.log" | tr '\n' ' ')"
    fi
else
    echo "SKIP harness.interrupted_run: no setsid"
fi

# report_matches NAME: make report (METRIC from the environment) on
# tests/data/NAME.jsonl gives tests/data/NAME.txt and NAME.csv exactly.
report_matches() {
    sh validate/report.sh -o "$W/$1" "tests/data/$1.jsonl" >"$W/$1.out" 2>&1 \
        && grep -v '^CSV: \|^HTML: \|^chart: \|^(gnuplot' "$W/$1.out" | cmp -s - "tests/data/$1.txt" \
        && cmp -s "$W/$1.csv" "tests/data/$1.csv"
}
# make report on a committed sample with known numbers (tests/data/:
# two devices, a later record replacing an earlier one, a bench row): the
# table and the CSV exactly as committed, worked out by hand from the
# sample; its chart (make deps installs gnuplot).
if report_matches report-sample && [ -s "$W/report-sample.svg" ]; then
    ok harness.report
else
    bad harness.report "$(head -c 400 "$W/report-sample.out")"
fi
# the page's chart, drawn by gnuplot: an SVG beside the page, which
# shows it; well-formed XML (xmllint, where installed); a panel a dataset
# with a figure (the sample's three, titled), each with its log axis of
# microseconds, its ticks (powers of ten) and its column axis, said to be
# lower-is-better, with base, peak and quick in the key; and the page still
# valid for tidy
svg=$W/report-sample.svg
why=""
[ -s "$svg" ] || why="no $svg;"
for text in "microseconds per iteration, one panel a dataset (log scale; lower is better)" \
            "dataset test" "dataset train" "dataset uniform" "microseconds per iteration" \
            "column of the table (R: reportable)" "> 1000<" "> 10000<" ">base<" ">peak<" \
            ">quick: fewer iterations than the Spec<" \
            "fastest to slowest run"; do
    grep -qF -- "$text" "$svg" 2>/dev/null || why="$why no '$text' in the chart;"
done
[ "$(grep -c 'microseconds per iteration</text>' "$svg" 2>/dev/null)" -eq 3 ] \
    || why="$why $(grep -c 'microseconds per iteration</text>' "$svg" 2>/dev/null) y axes labelled, not 3;"
grep -q '<img src="report-sample.svg" ' "$W/report-sample.html" || why="$why the page does not show it;"
# and under each figure of the page: base or peak, reportable, date, commit
grep -q '<td>14880.0 us, x0.08, PASS<br /><small>-, not reportable, 2026-11-24, ccccccc</small></td>' "$W/report-sample.html" \
    || why="$why the page's cells lack tuning, reportable, date and commit;"
grep -q 'energy: millijoules' "$W/report-sample.html" && why="$why the legend explains energy the table does not show;"
if command -v xmllint >/dev/null 2>&1; then
    xmllint --noout "$svg" 2>"$W/svg.lint" || why="$why not well-formed: $(head -c 200 "$W/svg.lint");"
fi
if command -v tidy >/dev/null 2>&1; then
    tidy -q -e "$W/report-sample.html" >"$W/report-tidy.log" 2>&1 || why="$why tidy: $(head -c 200 "$W/report-tidy.log");"
fi
if [ -z "$why" ]; then
    ok harness.report_chart
else
    bad harness.report_chart "$why"
fi
# Like with like (tests/data/report-like.jsonl, one dataset, device and
# strategy): a full base run (30 iterations, 3 runs), then a quick run (3
# iterations), a peak run, a base run of 1 run, one against this host's
# sequential C and one on another platform. The full base run is its
# column's cell (not the newer runs of fewer runs or iterations), the
# others each a column of their own, said so in the header (quick, peak,
# vs host C, the platform named); the page says the cell has another
# record, and ALL=1 lists all six.
out=$W/report-like.out
why=""
ALL=1 sh validate/report.sh -o "$W/report-like" tests/data/report-like.jsonl >"$out" 2>&1 || why="exit status $?;"
line() { sed -n "$1p" "$out" | tr -s ' '; }
[ "$(line 2)" = "dataset | Portable Computing Language: cpu-x | Portable Computing Language: cpu-x | Portable Computing Language: cpu-x | Portable Computing Language: cpu-x | Intel(R) OpenCL: cpu-x" ] \
    || why="$why header names '$(line 2)';"
[ "$(line 4)" = " | base, Spec iterations, vs Spec reference | base, quick: 3 iterations, vs Spec reference | peak, Spec iterations, vs Spec reference | base, Spec iterations, vs host C | base, Spec iterations, vs Spec reference" ] \
    || why="$why header kinds '$(line 4)';"
[ "$(line 6)" = "test | 900.0 us, x1.38, PASS | 400.0 us, x3.10, PASS | 700.0 us, x1.77, PASS | 800.0 us, host x2.30, PASS | 1100.0 us, x1.13, PASS" ] \
    || why="$why cells '$(line 6)';"
[ "$(grep -c '^test | ' "$out")" -eq 6 ] || why="$why ALL=1 lists $(grep -c '^test | ' "$out") records, not 6;"
grep -q '900.0 us, x1.38, PASS<br /><small>base, not reportable, 2026-12-01, aaaaaaa; 1 other record (ALL=1)</small>' "$W/report-like.html" \
    || why="$why the page does not say the cell has another record;"
[ -z "$why" ] && ok harness.report_like_with_like || bad harness.report_like_with_like "$why"
# make bench's, make curve's and make scaling's charts (bench/plot.sh)
# from committed rows: an SVG each, well-formed where xmllint is, with
# both log axes labelled and the title's "lower is better", a series per
# strategy and device in the key, the floor beside the curve's and the
# bench's device, and said to be missing from the scaling rows
why=""
for spec in "curve|docs/bench/h200-cc806da-curve.jsonl|eye, NVIDIA H200|floor: one kernel reading and counting every value, NVIDIA H200" \
            "bench|docs/bench/h200-4c67d7b-default.jsonl|eye, NVIDIA H200|floor: one kernel reading and counting every value, NVIDIA H200" \
            "scaling|docs/bench/h200x4-59b5e8e-scaling.jsonl|eye device on devices 0,1, NVIDIA H200|(no floor measured in these rows)"; do
    IFS='|' read -r what rows series floor <<EOT
$spec
EOT
    svg=$W/plot-$what.svg
    sh bench/plot.sh "$rows" "$svg" "make $what" >"$W/plot-$what.log" 2>&1 || why="$why $what: $(head -c 200 "$W/plot-$what.log");"
    for text in "histo, make $what: time per iteration against the input's values (log-log; lower is better)" \
                ">values in the input<" ">microseconds per iteration<" ">$series<" ">$floor<"; do
        grep -qF -- "$text" "$svg" 2>/dev/null || why="$why $what: no '$text';"
    done
    if command -v xmllint >/dev/null 2>&1; then
        xmllint --noout "$svg" 2>"$W/plot.lint" || why="$why $what: not well-formed: $(head -c 200 "$W/plot.lint");"
    fi
done
[ -z "$why" ] && ok harness.bench_charts || bad harness.bench_charts "$why"
# METRIC=energy: millijoules per iteration, a record without a figure
# (train: energy_j_per_iteration null) left out; the sample's 0.009165733
# and 0.0757326 J are 9.166 and 75.733 mJ.
if METRIC=energy report_matches report-energy; then
    ok harness.report_energy
else
    bad harness.report_energy "$(head -c 400 "$W/report-energy.out")"
fi
# impossible figures (below or at zero, not a number, not finite) are
# INVALID, never PASS; a device time under 1 us keeps its digits and its
# ratio is finite; names with commas and quotes are CSV-escaped. The
# figures are shown as jq reads them (1e999 is the largest double, -0.000002
# is -2e-06).
if report_matches report-odd; then
    ok harness.report_odd_values
else
    bad harness.report_odd_values "$(head -c 600 "$W/report-odd.out")"
fi
# a line that is not JSON (a record cut short) is left out and named, on
# stderr and under the table; control characters a record's strings
# spell (\n, \t, \r) show as \xNN in the table and the CSV
if sh validate/report.sh -o "$W/report-notjson" tests/data/report-notjson.jsonl \
        >"$W/report-notjson.out" 2>"$W/report-notjson.err" \
   && grep -v '^CSV: \|^HTML: \|^chart: \|^(gnuplot' "$W/report-notjson.out" \
      | cmp -s - tests/data/report-notjson.txt \
   && cmp -s "$W/report-notjson.csv" tests/data/report-notjson.csv \
   && grep -qx "report: tests/data/report-notjson.jsonl line 2 is not JSON (Unfinished JSON term at EOF at line 1, column 185): left out" "$W/report-notjson.err" \
   && grep -q "<p>Left out, not JSON: tests/data/report-notjson.jsonl line 2.</p>" "$W/report-notjson.html"; then
    ok harness.report_not_json
else
    bad harness.report_not_json "$(head -c 400 "$W/report-notjson.out") $(head -c 200 "$W/report-notjson.err")"
fi
if sh validate/report.sh -o "$W/report-bad" nosuch.jsonl >/dev/null 2>&1; then
    bad harness.report_missing_log "a missing log was accepted"
else
    ok harness.report_missing_log
fi
# BY names a column's kind: anything else is refused, not read as a log
if $MAKE_CMD --no-print-directory report BY=nope RESULTS=tests/data/report-sample.jsonl \
       RESULTS_ROOT="$W/report-by" >"$W/report-by.log" 2>&1; then
    bad harness.report_bad_by "make report BY=nope succeeded"
elif grep -q "report: BY must be device, commit or strategy, not 'nope'" "$W/report-by.log" \
     && [ ! -e "$W/report-by/report.csv" ]; then
    ok harness.report_bad_by
else
    bad harness.report_bad_by "$(tail -n 2 "$W/report-by.log")"
fi


# Energy in the record and the result line: none, with its reason, where
# the device has no counter; mJ/iteration on the line and a figure in the
# record where it has one (a fake powercap folder whose counter a
# background loop moves 5 mJ every 10 ms; PoCL's CPU device reads it).
if $MAKE_CMD --no-print-directory run ITERATIONS=3 REPEAT=1 RESULTS_LOG="$W/energy-none.jsonl" \
        HISTO_POWERCAP_DIR="$W/no-powercap" >"$W/energy-none.log" 2>&1 \
   && last_record "$W/energy-none.jsonl" \
   && [ "$(jget "$W/last.json" .energy_source)" = none ] \
   && [ "$(jget "$W/last.json" .energy_j_per_iteration)" = null ] \
   && jget "$W/last.json" .energy_reason | grep -q "no RAPL package counter" \
   && ! grep -q "mJ/iteration" "$W/energy-none.log"; then
    ok harness.energy_none
else
    bad harness.energy_none "$(tail -n 1 "$W/energy-none.log")"
fi
if ./histo --list 2>/dev/null | grep -q "^  device 0: .*\[CPU"; then
    p=$W/powercap
    sh tests/fake-rapl.sh "$p"
    sh tests/fake-rapl.sh "$p" --tick &
    ticker=$!
    if HISTO_POWERCAP_DIR=$p HISTO_ENERGY_MIN_S=0.05 $MAKE_CMD --no-print-directory run \
            ITERATIONS=300 REPEAT=1 RESULTS_LOG="$W/energy.jsonl" >"$W/energy.log" 2>&1 \
       && last_record "$W/energy.jsonl" \
       && [ "$(jget "$W/last.json" .energy_source)" = rapl ] \
       && awk -v j="$(jget "$W/last.json" .energy_j_per_iteration)" 'BEGIN { exit !(j > 0) }' \
       && grep -q "^116.histo test | .* | ratio [0-9.]* | [0-9.]* mJ/iteration (rapl) | base | PASS" "$W/energy.log" \
       && [ "$(jget "$W/last.json" .env.HISTO_POWERCAP_DIR)" = "$p" ]; then
        ok harness.energy_measured
    else
        bad harness.energy_measured "$(tail -n 1 "$W/energy.log")"
    fi
    kill "$ticker" 2>/dev/null # before its folder goes (energy.sh says why)
    wait "$ticker" 2>/dev/null
    rm -rf "$p"
else
    echo "SKIP harness.energy_measured: device 0 of platform 0 is not a CPU"
fi
