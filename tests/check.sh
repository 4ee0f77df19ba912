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
# off-by-one ending the run with status 6); usage errors; and one short
# make run through the harness. Like make test it runs on PoCL unless
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
TEST_PLATFORM=${HISTO_TEST_PLATFORM:-Portable Computing Language}
TEST_DEVICE=${HISTO_TEST_DEVICE:-}
# every strategy histo has, by the list its error message gives
STRATEGIES=$($HISTO --strategy none-such 2>&1 \
    | sed -n 's/.*(choose from: auto, \(.*\))$/\1/p' | tr -d ,)
[ -n "$STRATEGIES" ] || { echo "tests/check.sh: histo names no strategy"; exit 1; }
unset HISTO_PLATFORM HISTO_DEVICE HISTO_KERNEL_DIR HISTO_NO_TUNE_CACHE \
      PLATFORM DEVICE ITERATIONS SIZE
# No case may read or write a real tune cache.
HISTO_TUNE_FILE=$(cd "$W" && pwd)/no-tune-cache.conf
export HISTO_TUNE_FILE

pass=0
fail=0
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
# 3 iterations: state left over from one iteration would show.
cases='
gauss    --image 996x1040
one_bin  --dist onebin --image 1000x1000 --bin 1048577
h100x37  --image 640x480 --histo 100x37 --row-mean 18 --row-sigma 5 --col-mean 50 --col-sigma 20
'
echo "$cases" | while read -r name gen_args; do
    [ -n "$name" ] || continue
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
done >"$W/device.log"
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
    if ! run_histo "$@" -i "$in" --raw "$W/$id.raw" --no-bmp \
            --timing "$W/$id.out" -- 3 >"$W/$id.log" 2>&1; then
        bad "$id" "histo failed: $(tail -n 2 "$W/$id.log" | tr '\n' ' ')"
    elif ! grep -q "^$want\$" "$W/$id.out"; then
        bad "$id" "histo.out lacks '$want'"
    elif ! cmp -s "$W/$id.raw" "$W/gauss.ref.raw"; then
        bad "$id" "counters differ from the reference"
    else
        ok "$id"
    fi
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
    if ! printf '%s\n' "$line" | grep -q '^116\.histo test | .* | 3 iterations (Spec: [0-9]*) | 1 of 1 run passed | median [0-9.]* s/iteration .* | PASS | '; then
        bad harness.make_run "unexpected last line: $line"
    elif [ "$(wc -l <"$LOG")" -ne 1 ] || ! grep -q '"result":"PASS"' "$LOG"; then
        bad harness.make_run "$LOG is not one PASS record: $(head -c 200 "$LOG")"
    else
        ok harness.make_run
    fi
else
    bad harness.make_run "make run failed: $(tail -n 3 "$W/run.log" | tr '\n' ' ')"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
