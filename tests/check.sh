#!/bin/sh
# tests/check.sh - make check: a quick subset of make test, for the edit,
# build, check loop (under a minute on the 2-core development machine
# with PoCL; make test takes several). Last line: "N passed, N failed";
# exit status 1 on any failure.
#
# The cases that catch most regressions for their cost: the unit tests;
# every strategy histo lists, byte for byte (--raw) against the
# sequential reference build/histo-ref on three small generated inputs
# (an eye, one saturated bin, an odd 100x37 histogram) and on the eye in
# chunks; the default strategy on the eye streamed, split between two
# queues and read from gzip; histo's own check (PASS, and a planted
# off-by-one ending the run with status 6); usage errors; one short
# make run through the harness; and one case from every other subject of
# make test, named by it: another implementation (impl), one-row tiles
# on the eye (eye), a saturated band (saturation), an input through a FIFO
# (big), --tune (tune), progress lines (progress), a fake RAPL counter
# (energy), a folder as -o (outputs), a missing input (contract),
# --version (install), the docs' lists (docs) and a streamed input's times
# (self); asan is make test-asan's. Like make test it runs on PoCL unless
# HISTO_TEST_PLATFORM / HISTO_TEST_DEVICE name another device.
#
# Its files go to ${HISTO_TEST_WORK:-tests/work}/check, which make test
# removes with the rest of its work folder: run make check and make test
# one after the other in a checkout, not at once. Like make test, the
# make run case writes results/test/ and generates input/test.bin.gz when
# missing; its results log goes to the work folder.
set -u
cd "$(dirname "$0")/.." || exit 1
W=${HISTO_TEST_WORK:-tests/work}/check
rm -rf "$W"
mkdir -p "$W" || exit 1
B=${HISTO_BUILD:-build}
GEN=$B/histo-gen
REF=$B/histo-ref
HISTO=./histo
[ "$B" = build ] || HISTO=$B/histo
# under the suite's time limit where a subject runs this (tests/lib.sh)
HISTO=${HISTO_TIMED:-$HISTO}
TEST_PLATFORM=${HISTO_TEST_PLATFORM:-Portable Computing Language}
TEST_DEVICE=${HISTO_TEST_DEVICE:-}
# every strategy histo has (histo --list-strategies)
STRATEGIES=$($HISTO --list-strategies | tr '\n' ' ')
[ -n "$STRATEGIES" ] || { echo "tests/check.sh: histo names no strategy"; exit 1; }
unset HISTO_PLATFORM HISTO_DEVICE HISTO_KERNEL_DIR HISTO_NO_TUNE_CACHE \
      PLATFORM DEVICE ITERATIONS SIZE
# No case may read or write a real tune cache.
HISTO_TUNE_FILE=$(cd "$W" && pwd)/no-tune-cache.conf
export HISTO_TUNE_FILE

pass=0
fail=0
skip=0
ok() { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }

# histo on the test device; arguments as histo takes them.
run_histo() {
    if [ -n "$TEST_DEVICE" ]; then
        $HISTO --platform "$TEST_PLATFORM" --device "$TEST_DEVICE" "$@"
    else
        $HISTO --platform "$TEST_PLATFORM" "$@"
    fi
}

# same_raw ID STATUS REF.raw [LINE]: the verdict on the run whose files
# are $W/ID.log, .out and .raw, which exited with STATUS: its counters
# equal to REF.raw, and LINE in its histo.out
same_raw() {
    if [ "$2" -ne 0 ]; then
        bad "$1" "histo failed (exit $2): $(tail -n 2 "$W/$1.log" | tr '\n' ' ')"
    elif [ -n "${4:-}" ] && ! grep -q "^$4\$" "$W/$1.out"; then
        bad "$1" "histo.out lacks '$4'"
    elif ! cmp -s "$W/$1.raw" "$3"; then
        bad "$1" "counters differ from the reference"
    else
        ok "$1"
    fi
}

# --- unit tests (BMP writer, colour table, input reader, CLI, ...) ---
$B/unit-tests "$W" >"$W/unit.log" 2>"$W/unit.err"
while read -r verdict rest; do
    case $verdict in
        PASS) ok "unit.$rest" ;;
        FAIL) bad "unit.${rest%%:*}" "${rest#*: }" ;;
    esac
done <"$W/unit.log"
grep -q . "$W/unit.log" || bad unit.ran "$B/unit-tests printed nothing"

# --- every strategy, byte for byte against the sequential reference ---
# 3 iterations: state left over from one iteration would show. The
# 256-wide histograms and the 100-wide one need programs of their own
# (the width is a build option): the two groups run side by side, so
# that a cold kernel cache builds them on two cores.
cases='
gauss    --image 996x1040
one_bin  --dist onebin --image 1000x1000 --bin 1048577
h100x37  --image 640x480 --histo 100x37 --row-mean 18 --row-sigma 5 --col-mean 50 --col-sigma 20
'
# strategy_cases NAME...: every strategy on the named cases, their lines
strategy_cases() {
    for only in "$@"; do
        echo "$cases" | awk -v n="$only" '$1 == n'
    done | while read -r name gen_args; do
        in="$W/$name.bin"
        # shellcheck disable=SC2086
        if ! $GEN -o "$in" --seed 7 $gen_args >/dev/null 2>"$W/$name.gen.err" \
           || ! $REF "$in" "$W/$name.ref.bmp" "$W/$name.ref.raw" >/dev/null 2>"$W/$name.ref.err"; then
            echo "FAIL setup.$name: $(cat "$W/$name.gen.err" "$W/$name.ref.err")"
            continue
        fi
        for s in $STRATEGIES; do
            id="$name.$s"
            if ! run_histo --strategy "$s" -i "$in" --raw "$W/$id.raw" --no-bmp \
                    --timing "$W/$id.out" -- 3 >"$W/$id.log" 2>&1; then
                echo "FAIL device.$s.$name: histo failed: $(tail -n 2 "$W/$id.log" | tr '\n' ' ')"
            elif ! cmp -s "$W/$id.raw" "$W/$name.ref.raw"; then
                echo "FAIL device.$s.$name: counters differ from the reference: $($B/histo-validate --raw "$(sed -n 's/^input.histogram = //p' "$W/$id.out")" "$W/$id.raw" "$W/$name.ref.raw" 2>&1 | head -n 2 | tr '\n' ' ')"
            else
                echo "PASS device.$s.$name"
            fi
        done
    done
}
strategy_cases gauss one_bin >"$W/device.256.log" &
strategy_cases h100x37 >"$W/device.100.log"
wait
cat "$W/device.256.log" "$W/device.100.log" >"$W/device.log"
while read -r verdict rest; do
    case $verdict in
        PASS) ok "$rest" ;;
        FAIL) bad "${rest%%:*}" "${rest#*: }" ;;
    esac
done <"$W/device.log"

# The input in pieces (work.h), on the eye: about 3 chunks on the device
# with every strategy; with the default strategy, streamed past a device
# budget of two chunks (about 5 copied and added every iteration), split
# between two queues on the test device named twice, and read from gzip.
n=$((996 * 1040))
twice=${TEST_DEVICE:-0},${TEST_DEVICE:-0}
gzip -c "$W/gauss.bin" >"$W/gauss.bin.gz"
for mode in $STRATEGIES streamed shares gzip; do
    in=$W/gauss.bin
    case $mode in
        streamed)
            c=$((n / 5 + 1))
            set -- --chunk-values $c --device-budget $((8 * c))
            want="input.residency = streamed" ;;
        shares)
            set -- --chunk-values $((n / 4 + 1)) --device "$twice"
            want="shares = 2" ;;
        gzip)
            set --
            in=$W/gauss.bin.gz
            want="input.residency = device" ;;
        *)
            set -- --strategy "$mode" --chunk-values $((n / 3 + 1))
            want="input.chunks = 3" ;;
    esac
    id=work.$mode
    run_histo "$@" -i "$in" --raw "$W/$id.raw" --no-bmp \
        --timing "$W/$id.out" -- 3 >"$W/$id.log" 2>&1
    same_raw "$id" $? "$W/gauss.ref.raw" "$want"
done

# --- histo's own check: PASS and status 0; a planted bug: status 6 ---
if run_histo -i "$W/h100x37.bin" -o "$W/self.bmp" --timing "$W/self.out" -- 1 \
        >"$W/self.stdout" 2>"$W/self.stderr" \
   && grep -q '^histo: check PASS: ' "$W/self.stdout" \
   && grep -q '^check = PASS$' "$W/self.out" \
   && cmp -s "$W/self.bmp" "$W/h100x37.ref.bmp"; then
    ok check.pass
else
    bad check.pass "$(tail -n 2 "$W/self.stdout" "$W/self.stderr" | tr '\n' ' ')"
fi
# cpu_merge.cl turning a merged count of 253 into 254: bin 1000 gets 253
# values over two batches, bin 2000 gets 100 (untouched by the bug).
mkdir -p "$W/planted-kernels"
cp kernels/*.cl "$W/planted-kernels/"
sed 's/o\[i\] = (uchar)min((uint)o\[i\] + p\[i\], HISTO_SATURATE);/{ const uint s_ = min((uint)o[i] + p[i], HISTO_SATURATE); o[i] = (uchar)(s_ + (s_ == HISTO_SATURATE - 2)); }/' \
    kernels/cpu_merge.cl >"$W/planted-kernels/cpu_merge.cl"
$GEN -o "$W/planted.bin" --seed 5 --image 353x1 --dist counts --counts 1000:253,2000:100 \
    >/dev/null 2>&1
run_histo --strategy cpu --batches 2 --kernels "$W/planted-kernels" \
    -i "$W/planted.bin" -o "$W/planted.bmp" --timing "$W/planted.out" -- 1 \
    >"$W/planted.log" 2>&1
st=$?
if cmp -s kernels/cpu_merge.cl "$W/planted-kernels/cpu_merge.cl"; then
    bad check.planted_off_by_one "cannot plant the bug: kernels/cpu_merge.cl changed; update this test"
elif [ "$st" -ne 6 ] \
     || ! grep -q '^histo: check FAIL: 1 of 2097152 bins differ.*got 254, expected 253' "$W/planted.log" \
     || ! grep -q '^check = FAIL$' "$W/planted.out" || [ -e "$W/planted.bmp" ]; then
    bad check.planted_off_by_one "exit status $st: $(grep -v '^histo: [0-9]' "$W/planted.log" | head -n 2 | tr '\n' ' ')"
else
    ok check.planted_off_by_one
fi

# --- usage errors: status 2, a message, no output left ---
# usage NAME PATTERN [histo args...]
usage() {
    name=$1 pattern=$2
    shift 2
    "$@" >"$W/$name.stdout" 2>"$W/$name.stderr"
    st=$?
    if [ "$st" -ne 2 ]; then
        bad "$name" "exit status $st, expected 2"
    elif ! grep -q -- "$pattern" "$W/$name.stderr"; then
        bad "$name" "stderr lacks '$pattern': $(head -c 200 "$W/$name.stderr")"
    elif [ -e "$W/usage.bmp" ] || [ -e "$W/usage.out" ]; then
        bad "$name" "an output file was left behind"
    else
        ok "$name"
    fi
}
usage cli.bad_iterations "the iteration count must be a whole number" \
    run_histo -i "$W/gauss.bin" -o "$W/usage.bmp" --timing "$W/usage.out" -- 0
usage cli.unknown_option "unknown option '--frobnicate'" \
    run_histo --frobnicate -i "$W/gauss.bin" -o "$W/usage.bmp" --timing "$W/usage.out" -- 1

# --- the harness: one short make run on the default device, its record
# in the work folder ---
LOG=$(cd "$W" && pwd)/runs.jsonl
if RESULTS_ROOT=$(cd "$W" && pwd)/results ${MAKE:-make} --no-print-directory run \
        ITERATIONS=3 REPEAT=1 RESULTS_LOG="$LOG" \
        >"$W/run.log" 2>&1; then
    line=$(tail -n 1 "$W/run.log")
    if ! printf '%s\n' "$line" | grep -q '^116\.histo test | .* | 3 iterations (Spec: [0-9]*) | 1 of 1 run passed | median [0-9.]* s/iteration.* | PASS | '; then
        bad harness.make_run "unexpected last line: $line"
    elif [ "$(wc -l <"$LOG")" -ne 1 ] || ! grep -q '"result":"PASS"' "$LOG"; then
        bad harness.make_run "$LOG is not one PASS record: $(head -c 200 "$LOG")"
    else
        ok harness.make_run
    fi
else
    bad harness.make_run "make run failed: $(tail -n 3 "$W/run.log" | tr '\n' ' ')"
fi

# --- one case from each other subject of make test (tests/*.sh) ---
# impl: the cpu strategy on another implementation, the first installed
# of Intel's CPU runtime and rusticl (make platforms), alone in a vendors
# folder of its own
vendors=${HISTO_OCL_DIR:-${HOME:-/nonexistent}/.cache/histo/ocl}/vendors
other=""
for tag in intel-cpu rusticl; do
    [ -z "$other" ] && [ -f "$vendors/$tag.icd" ] && other=$tag
done
if [ -z "$other" ]; then
    skip=$((skip + 1))
    echo "SKIP impl: neither Intel's CPU runtime nor rusticl is installed (make platforms)"
else
    mkdir -p "$W/icd"
    cp "$vendors/$other.icd" "$W/icd/"
    id=impl.$other.cpu.h100x37
    OCL_ICD_VENDORS=$W/icd RUSTICL_ENABLE=llvmpipe $HISTO --platform 0 --strategy cpu \
        -i "$W/h100x37.bin" --no-bmp --raw "$W/$id.raw" --timing "$W/$id.out" -- 2 \
        >"$W/$id.log" 2>&1
    same_raw "$id" $? "$W/h100x37.ref.raw"
fi
# eye: tiles of one row (8192 tiles over at most 1024 cells), the eye
# strategy's program as above: the window holds a row within a sigma of
# the eye's centre (row 4096, sigma 64), and the counters are exact. (The
# 2-D window's kernel, eye_tile_2d, is left to make test: PoCL takes
# about 40 s to build it cold.)
id=eye.eye_cells.w1
run_histo --strategy eye --tile-rows 1 -i "$W/gauss.bin" --no-bmp \
    --raw "$W/$id.raw" --timing "$W/$id.out" -- 2 >"$W/$id.log" 2>&1
st=$?
r0=$(sed -n 's/^eye.first_row = //p' "$W/$id.out" 2>/dev/null)
r1=$(sed -n 's/^eye.last_row = //p' "$W/$id.out" 2>/dev/null)
if [ "$st" -eq 0 ] && { [ -z "$r0" ] || [ -z "$r1" ] || [ "$r0" -gt 4160 ] || [ "$r1" -lt 4032 ]; }; then
    bad "$id" "window rows '$r0'-'$r1', want one holding a row within 64 of 4096"
else
    same_raw "$id" "$st" "$W/gauss.ref.raw"
fi
# saturation: every bin of a 256x16 histogram hit exactly 256 times (the
# width of the cases above: no program built for it alone)
$GEN -o "$W/band.bin" --seed 7 --dist sweep --image 1024x1024 --histo 256x16 >/dev/null 2>&1
$REF "$W/band.bin" "$W/band.ref.bmp" "$W/band.ref.raw" >/dev/null 2>&1
run_histo -i "$W/band.bin" --no-bmp --raw "$W/saturation.band_256.raw" \
    --timing "$W/saturation.band_256.out" -- 2 >"$W/saturation.band_256.log" 2>&1
same_raw saturation.band_256 $? "$W/band.ref.raw"
# big: an input through a FIFO, streamed past a budget of 2^20 values
# (tests/big-input.sh does 2^30)
rm -f "$W/big.fifo"
mkfifo "$W/big.fifo"
$GEN -o "$W/big.fifo" --seed 1 --dist sweep --image 2048x2048 --histo 256x128 >/dev/null 2>&1 &
gen=$!
run_histo --device-budget 4M -i "$W/big.fifo" --no-bmp --raw "$W/big_input.fifo_streamed.raw" \
    --timing "$W/big_input.fifo_streamed.out" -- 2 >"$W/big_input.fifo_streamed.log" 2>&1
st=$?
[ "$st" -eq 0 ] || kill $gen 2>/dev/null
wait $gen
if [ "$st" -eq 0 ] && [ "$(od -An -v -tu1 "$W/big_input.fifo_streamed.raw" | tr -s ' ' '\n' | grep -c '^128$')" -ne 32768 ]; then
    bad big_input.fifo_streamed "not every one of the 32768 bins is 128"
elif [ "$st" -ne 0 ] || ! grep -q "^input.residency = streamed$" "$W/big_input.fifo_streamed.out"; then
    bad big_input.fifo_streamed "exit $st: $(tail -n 1 "$W/big_input.fifo_streamed.log") $(grep '^input.residency' "$W/big_input.fifo_streamed.out")"
else
    ok big_input.fifo_streamed
fi
# tune: --tune on a small input: one entry in the tune cache (below its
# two comment lines), and the picture exact
if run_histo --tune --strategy cpu -i "$W/h100x37.bin" -o "$W/tune.bmp" \
        --timing "$W/tune.out" -- 2 >"$W/tune.log" 2>&1 \
   && [ "$(grep -v '^#' "$HISTO_TUNE_FILE" 2>/dev/null | grep -c .)" = 1 ] \
   && cmp -s "$W/tune.bmp" "$W/h100x37.ref.bmp"; then
    ok tune.stored
else
    bad tune.stored "$(tail -n 2 "$W/tune.log" | tr '\n' ' ')"
fi
rm -f "$HISTO_TUNE_FILE"
# progress: lines on stderr every 0.01 s of a run of 400 iterations
if HISTO_PROGRESS_INTERVAL=0.01 run_histo --strategy cpu -i "$W/one_bin.bin" --no-bmp \
        --timing "$W/progress.out" -- 400 >/dev/null 2>"$W/progress.err" \
   && grep -q "^histo: iteration [0-9]* of 400" "$W/progress.err"; then
    ok progress.lines
else
    bad progress.lines "$(head -c 200 "$W/progress.err")"
fi
# energy: a fake RAPL package counter (tests/fake-rapl.sh) found and read
sh tests/fake-rapl.sh "$W/rapl"
if HISTO_POWERCAP_DIR=$W/rapl HISTO_ENERGY_MIN_S=0 run_histo -i "$W/one_bin.bin" --no-bmp \
        --timing "$W/energy.out" -- 3 >/dev/null 2>&1 \
   && grep -q "^energy.source = rapl$" "$W/energy.out"; then
    ok energy.fake_rapl
else
    bad energy.fake_rapl "$(grep '^energy' "$W/energy.out" | head -n 2 | tr '\n' ' ')"
fi
# outputs: -o naming a folder: status 5, the folder left as it was
mkdir -p "$W/a-folder"
run_histo -i "$W/one_bin.bin" -o "$W/a-folder" --timing "$W/outputs.out" -- 1 >/dev/null 2>&1
st=$?
if [ "$st" -eq 5 ] && [ -d "$W/a-folder" ] && [ ! -e "$W/outputs.out" ]; then
    ok outputs.folder_refused
else
    bad outputs.folder_refused "exit status $st"
fi
# contract: an input that is not there: status 3, no output
run_histo -i "$W/no-such.bin" -o "$W/usage.bmp" --timing "$W/usage.out" -- 1 >/dev/null 2>"$W/missing.err"
st=$?
if [ "$st" -eq 3 ] && [ ! -e "$W/usage.bmp" ] && [ ! -e "$W/usage.out" ]; then
    ok contract.missing_input
else
    bad contract.missing_input "exit status $st: $(head -c 200 "$W/missing.err")"
fi
# install: --version names src/version.h's number
v=$(sed -n 's/^#define HISTO_VERSION "\(.*\)"$/\1/p' src/version.h)
if [ "$($HISTO --version | head -n 1)" = "histo $v" ]; then
    ok install.version
else
    bad install.version "'$($HISTO --version | head -n 1)', not 'histo $v'"
fi
# docs: the lists the docs keep in one place (tests/docs-check.sh --lists;
# make test also checks every example against a real run)
sh tests/docs-check.sh --lists >"$W/docs.log" 2>&1
while read -r verdict rest; do
    case $verdict in
        PASS) ok "${rest%% *}" ;;
        FAIL) bad "${rest%%:*}" "${rest#*: }" ;;
    esac
done <"$W/docs.log"
grep -q '^PASS \|^FAIL ' "$W/docs.log" || bad docs.ran "$(head -c 200 "$W/docs.log")"
# self: a streamed input's device time per iteration adds up to no more
# than the wall time it is part of, and the counters are exact
# (self.program_cache is make test's only: storing makes PoCL build every
# kernel again for any group size)
id=self.times.streamed_within_wall
run_histo --device-budget 1M --chunk-values 65536 -i "$W/gauss.bin" --no-bmp \
    --raw "$W/$id.raw" --timing "$W/$id.out" -- 5 >"$W/$id.log" 2>&1
st=$?
dev=$(sed -n 's/^iteration\.device\.total_us = //p' "$W/$id.out" 2>/dev/null)
wall=$(sed -n 's/^time\.iterations_wall_s = //p' "$W/$id.out" 2>/dev/null)
if [ "$st" -eq 0 ] && ! awk -v d="$dev" -v w="$wall" 'BEGIN { exit !(d > 0 && d <= w * 1e6 * 1.05) }'; then
    bad "$id" "device total ${dev:-none} us, wall ${wall:-none} s"
else
    same_raw "$id" "$st" "$W/gauss.ref.raw" "input.residency = streamed"
fi

echo "$skip skipped"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
