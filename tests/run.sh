#!/bin/sh
# tests/run.sh - the test suite (make test). Last line: "N passed, N failed".
#
# Correctness cases compare histo's raw 8-bit counters (--raw) byte for
# byte with the sequential reference's (build/histo-ref), and its BMP with
# the reference BMP, over many distributions and batch counts, under every
# strategy (HISTO_TEST_STRATEGIES, default every strategy histo lists). The counters are
# the result: the BMP's colour map gives several counts one colour.
# The device is PoCL unless HISTO_TEST_PLATFORM / HISTO_TEST_DEVICE name
# another, e.g. HISTO_TEST_PLATFORM="NVIDIA CUDA" HISTO_TEST_DEVICE=GPU.
set -u
cd "$(dirname "$0")/.." || exit 1
W=${HISTO_TEST_WORK:-tests/work}
rm -rf "$W"
mkdir -p "$W"
B=${HISTO_BUILD:-build}
GEN=$B/histo-gen
# Under the sanitizers (make test-asan) every histo run loads each library
# the ICD loader lists, and Mesa's (rusticl, Clover: registered in
# /etc/OpenCL/vendors by Debian's mesa-opencl-icd) leak at load, which
# LeakSanitizer reports as histo's. The suite there sees the system's
# other implementations through a vendors folder of its own; each
# implementation alone is still tried below.
if [ "$B" != build ] && [ -z "${OCL_ICD_VENDORS:-}" ] && [ -d /etc/OpenCL/vendors ]; then
    mkdir -p "$W/asan-vendors"
    for f in /etc/OpenCL/vendors/*.icd; do
        case $(cat "$f") in *Rusticl*|*MesaOpenCL*) continue ;; esac
        cp "$f" "$W/asan-vendors/"
    done
    OCL_ICD_VENDORS=$(cd "$W/asan-vendors" && pwd)
    export OCL_ICD_VENDORS
fi
REF=$B/histo-ref
HISTO=./histo
[ "$B" = build ] || HISTO=$B/histo
PLATFORM=${HISTO_TEST_PLATFORM:-Portable Computing Language}
DEVICE=${HISTO_TEST_DEVICE:-}
# every strategy histo has, by the list its error message gives
STRATEGIES=${HISTO_TEST_STRATEGIES:-$($HISTO --strategy none-such 2>&1 \
    | sed -n 's/.*(choose from: auto, \(.*\))$/\1/p' | tr -d ,)}
[ -n "$STRATEGIES" ] || { echo "tests/run.sh: histo names no strategy"; exit 1; }
unset HISTO_PLATFORM HISTO_DEVICE HISTO_KERNEL_DIR HISTO_NO_TUNE_CACHE
# No test may read or write a real tune cache (~/.cache/histo/tune.conf):
# every run sees this file, which nothing writes; the tuning tests below
# name their own.
HISTO_TUNE_FILE=$(cd "$W" && pwd)/no-tune-cache.conf
export HISTO_TUNE_FILE

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }

# histo on the test device; extra arguments go before "--". A BMP output
# X.bmp gets its raw counters beside it as X.raw (--raw).
run_histo() {
    raw="" prev=""
    for a in "$@"; do
        if [ "$prev" = -o ]; then
            case $a in *.bmp) raw=${a%.bmp}.raw ;; esac
        fi
        prev=$a
    done
    [ -z "$raw" ] || set -- --raw "$raw" "$@"
    if [ -n "$DEVICE" ]; then
        $HISTO --platform "$PLATFORM" --device "$DEVICE" "$@"
    else
        $HISTO --platform "$PLATFORM" "$@"
    fi
}

# ref_counts INPUT OUT.bmp: the sequential reference's BMP and, beside it,
# its raw counters OUT.raw.
ref_counts() { $REF "$1" "$2" "${2%.bmp}.raw"; }

# same_counts GOT.bmp REF.bmp: byte-exact means the raw counters (GOT.raw,
# REF.raw) are equal, and the BMPs too (the BMP writer). On a difference
# $W/last.diff says which bins (histo-validate --raw, the shape from
# GOT.out) or that the counters agree and only the BMP differs.
same_counts() {
    if ! cmp -s "${1%.bmp}.raw" "${2%.bmp}.raw"; then
        shape=$(sed -n 's/^input.histogram = //p' "${1%.bmp}.out" 2>/dev/null)
        { echo "counts differ from the reference:"
          $B/histo-validate --raw "${shape:-1x1}" "${1%.bmp}.raw" "${2%.bmp}.raw" 2>&1 | head -n 4
        } | tr '\n' ' ' >"$W/last.diff"
        return 1
    fi
    if ! cmp -s "$1" "$2"; then
        echo "counts equal, but the BMP differs from the reference BMP" >"$W/last.diff"
        return 1
    fi
}

# --- unit tests (BMP writer, colour table, input reader, CLI, reference) ---
$B/unit-tests "$W" >"$W/unit.log" 2>"$W/unit.err"
while read -r verdict rest; do
    case $verdict in
        PASS) ok "unit.$rest" ;;
        FAIL) bad "unit.${rest%%:*}" "${rest#*: }" ;;
    esac
done <"$W/unit.log"
grep -q . "$W/unit.log" || bad unit.ran "build/unit-tests printed nothing"

# --- correctness: name, generator arguments, batch counts to try ---
# "default" lets histo choose B from the device.
cases='
gauss      --image 996x1040                                   default 1 3 16
uniform    --dist uniform --image 512x512                     default 1 5
twoeye     --dist twoeye --image 600x600 --row-sigma 30       default 2 7
first_row  --image 500x500 --row-mean 0 --row-sigma 40        default 3
last_row   --image 500x500 --row-mean 8191 --row-sigma 40     default 3
one_bin    --dist onebin --image 1000x1000 --bin 1048577      default 1 4
one_value  --dist onebin --image 1x1 --bin 7                  default 1 8
h100x37    --image 640x480 --histo 100x37 --row-mean 18 --row-sigma 5 --col-mean 50 --col-sigma 20 default 1 3
band_255   --dist sweep --image 1024x1024 --histo 64x64       default 1 3
band_sweep --dist sweep --image 700x900 --bin 12345           default 2
wide_rows  --dist uniform --image 400x400 --histo 1000000x2   default 2
one_bin_h  --dist onebin --image 300x200 --histo 1x1          default 3
no_eye     --image 800x800 --row-sigma 3000 --outliers 200000 default 4
one_bin_16m --dist onebin --image 4096x4096 --bin 1000000     default
band_16m   --dist sweep --image 4096x4096 --bin 1048576 --span 65600 default
'
echo "$cases" | while read -r name rest; do
    [ -n "$name" ] || continue
    gen_args=${rest%% default*}
    batches="default${rest#*default}"
    echo "$name|$gen_args|$batches"
done >"$W/cases.txt"

while IFS='|' read -r name gen_args batches; do
    in="$W/$name.bin"
    # shellcheck disable=SC2086
    if ! $GEN -o "$in" --seed 7 $gen_args 2>"$W/$name.gen.err"; then
        bad "gen.$name" "$(cat "$W/$name.gen.err")"
        continue
    fi
    if ! ref_counts "$in" "$W/$name.ref.bmp" 2>"$W/$name.ref.err"; then
        bad "ref.$name" "$(cat "$W/$name.ref.err")"
        continue
    fi
    # 3 iterations: state left over from one iteration would show.
    for s in $STRATEGIES; do
        for b in $batches; do
            id="$name.$s.b$b"
            set -- --strategy "$s"
            [ "$b" = default ] || set -- "$@" --batches "$b"
            if ! run_histo "$@" -i "$in" -o "$W/$id.bmp" \
                --timing "$W/$id.out" -- 3 >"$W/$id.log" 2>&1; then
                bad "device.$s.$name.batches_$b" "histo failed: $(tail -n 3 "$W/$id.log")"
            elif same_counts "$W/$id.bmp" "$W/$name.ref.bmp"; then
                ok "device.$s.$name.batches_$b"
            else
                bad "device.$s.$name.batches_$b" "$(cat "$W/last.diff")"
            fi
        done
    done
done <"$W/cases.txt"

# --- counts around saturation, checked bin by bin ---
# Bins that receive exactly 1, 240..256, 300 and 70,000 values, one set
# in the eye's tile (row 4096, next to the 70,000-value bin) and one far
# from it (row 100, outside any eye window); every other bin receives
# none. The expected count of each is min(values, 255), computed here.
hot=$((4096 * 256 + 128))
spec="$hot:70000"
expect_bins="$hot:255"
total=70000
for base in $((4096 * 256 + 130)) $((100 * 256 + 10)); do
    k=0
    for n in 1 240 241 242 243 244 245 246 247 248 249 250 251 252 253 254 255 256 300; do
        bin=$((base + k))
        spec="$spec,$bin:$n"
        expect_bins="$expect_bins $bin:$([ "$n" -gt 255 ] && echo 255 || echo "$n")"
        total=$((total + n))
        k=$((k + 1))
    done
done
$GEN -o "$W/sat.bin" --seed 5 --image "${total}x1" --dist counts --counts "$spec" \
    && ref_counts "$W/sat.bin" "$W/sat.ref.bmp" \
    || bad saturation.input "histo-gen --dist counts failed"
nbins_set=$(echo "$expect_bins" | wc -w)
# check_sat ID HISTO-ARGS...: the set's bins hold their expected counts,
# no other bin counts anything, and the BMP is the reference's; status 1
# after a FAIL line.
check_sat() {
    id=$1
    shift
    if ! run_histo "$@" -i "$W/sat.bin" -o "$W/$id.bmp" \
            --timing "$W/$id.out" -- 3 >"$W/$id.log" 2>&1; then
        bad "$id" "histo failed: $(tail -n 2 "$W/$id.log")"
        return 1
    fi
    wrong=""
    for pair in $expect_bins; do
        got=$(od -An -tu1 -j "${pair%%:*}" -N 1 "$W/$id.raw" | tr -d ' ')
        [ "$got" = "${pair#*:}" ] || wrong="$wrong bin ${pair%%:*}: got $got, expected ${pair#*:};"
    done
    others=$(od -An -v -tu1 "$W/$id.raw" | tr -s ' ' '\n' | grep -c '^[1-9]')
    if [ -n "$wrong" ]; then
        bad "$id" "$wrong"
    elif [ "$others" -ne "$nbins_set" ]; then
        bad "$id" "$others bins counted, expected $nbins_set"
    elif ! same_counts "$W/$id.bmp" "$W/sat.ref.bmp"; then
        bad "$id" "$(cat "$W/last.diff")"
    else
        ok "$id"
        return 0
    fi
    return 1
}
for s in $STRATEGIES; do
    check_sat "saturation.$s" --strategy "$s"
    # in chunks of 997 values: every bin of the set is split among
    # chunks, whose 8-bit partials must add up with saturation
    check_sat "saturation.chunks.$s" --strategy "$s" --chunk-values 997
done
# A combine that wraps instead of saturating must be caught.
mkdir -p "$W/wrap-kernels"
cp kernels/*.cl "$W/wrap-kernels/"
sed 's/convert_uchar16(min(sum, top))/convert_uchar16(sum)/' \
    kernels/combine.cl >"$W/wrap-kernels/combine.cl"
if cmp -s kernels/combine.cl "$W/wrap-kernels/combine.cl"; then
    bad saturation.planted_wrap "cannot plant the bug: kernels/combine.cl changed; update this test"
elif (check_sat saturation.planted_wrap.run --strategy cpu --chunk-values 997 \
        --kernels "$W/wrap-kernels") >"$W/planted_wrap.log"; then
    bad saturation.planted_wrap "a combine that wraps at 256 gave the right counts"
else
    ok saturation.planted_wrap
fi
# kernels/combine.cl against 64-bit sums: counts past 2^32 in one bin.
build/combine-test "$PLATFORM" $DEVICE >"$W/combine.log" 2>&1
while read -r verdict rest; do
    case $verdict in
        PASS) ok "$rest" ;;
        FAIL) bad "${rest%%:*}" "${rest#*: }" ;;
    esac
done <"$W/combine.log"
grep -q '^PASS combine.tree_order' "$W/combine.log" \
    || bad combine.ran "build/combine-test: $(tail -n 2 "$W/combine.log")"

# --- chunks, streaming and several devices (work.h) ---
# Every distribution above with its input in about 3 chunks on the
# device; streamed past a device budget of two chunks (about 5 chunks,
# copied every iteration); and split between two queues on the test
# device named twice, each share in 2 chunks. 3 iterations each.
twice=${DEVICE:-0},${DEVICE:-0}
while IFS='|' read -r name gen_args batches; do
    in="$W/$name.bin"
    [ -f "$W/$name.ref.raw" ] || continue
    n=$(( $(wc -c <"$in") / 4 - 4 ))
    for mode in chunks streamed shares; do
        want="input.residency = device"
        case $mode in
            chunks) set -- --chunk-values $((n / 3 + 1)) ;;
            streamed)
                c=$((n / 5 + 1))
                set -- --chunk-values $c --device-budget $((8 * c))
                [ $((4 * n)) -le $((8 * c)) ] || want="input.residency = streamed" ;;
            shares)
                set -- --chunk-values $((n / 4 + 1)) --device "$twice"
                want="shares = 2" ;;
        esac
        for s in $STRATEGIES; do
            id="$name.$s.$mode"
            if ! run_histo --strategy "$s" "$@" -i "$in" -o "$W/$id.bmp" \
                --timing "$W/$id.out" -- 3 >"$W/$id.log" 2>&1; then
                bad "work.$mode.$s.$name" "histo failed: $(tail -n 3 "$W/$id.log")"
            elif ! grep -q "^$want$" "$W/$id.out"; then
                bad "work.$mode.$s.$name" "histo.out lacks '$want'"
            elif same_counts "$W/$id.bmp" "$W/$name.ref.bmp"; then
                ok "work.$mode.$s.$name"
            else
                bad "work.$mode.$s.$name" "$(cat "$W/last.diff")"
            fi
        done
    done
done <"$W/cases.txt"

# A planted off-by-one near saturation: cpu_merge.cl turns a merged count
# of 253 into 254. 253 and 254 have one colour, so the BMP cannot see it;
# the raw counters must. Two batches, so the merge sums every bin of the
# set (its values are shuffled over the whole input). histo's own check
# must fail the run (exit 6) naming the two bins; with --keep-wrong the
# outputs hold the wrong counters, which the validator must see too.
mkdir -p "$W/offbyone-kernels"
cp kernels/*.cl "$W/offbyone-kernels/"
sed 's/o\[i\] = (uchar)min((uint)o\[i\] + p\[i\], HISTO_SATURATE);/{ const uint s_ = min((uint)o[i] + p[i], HISTO_SATURATE); o[i] = (uchar)(s_ + (s_ == HISTO_SATURATE - 2)); }/' \
    kernels/cpu_merge.cl >"$W/offbyone-kernels/cpu_merge.cl"
run_histo --strategy cpu --batches 2 --kernels "$W/offbyone-kernels" \
    -i "$W/sat.bin" -o "$W/offbyone.bmp" --timing "$W/offbyone.out" -- 1 \
    >"$W/offbyone.log" 2>&1
st=$?
run_histo --strategy cpu --batches 2 --kernels "$W/offbyone-kernels" \
    -i "$W/sat.bin" -o "$W/offbyone.bmp" --timing "$W/offbyone.out" \
    --keep-wrong -- 1 >"$W/offbyone.keep.log" 2>&1
st_keep=$?
if cmp -s kernels/cpu_merge.cl "$W/offbyone-kernels/cpu_merge.cl"; then
    bad saturation.planted_off_by_one "cannot plant the bug: kernels/cpu_merge.cl changed; update this test"
elif [ "$st" -ne 6 ] || [ "$st_keep" -ne 6 ] \
     || ! grep -q "^histo: check FAIL: 2 of 2097152 bins differ.*got 254, expected 253" "$W/offbyone.log" \
     || ! grep -q "^check = FAIL" "$W/offbyone.out"; then
    bad saturation.planted_off_by_one "histo's check missed it (exit $st, $st_keep): $(tail -n 3 "$W/offbyone.log")"
elif ! cmp -s "$W/offbyone.bmp" "$W/sat.ref.bmp"; then
    bad saturation.planted_off_by_one "the BMP shows the planted error: the test no longer proves the point"
elif same_counts "$W/offbyone.bmp" "$W/sat.ref.bmp" \
     || ! grep -q "FAIL: 2 of 2097152 bins differ.*got 254, expected 253" "$W/last.diff"; then
    bad saturation.planted_off_by_one "the raw check missed it: $(cat "$W/last.diff")"
else
    ok saturation.planted_off_by_one
fi

# gzip input gives the same bytes as raw input
$GEN -o "$W/gz.bin.gz" --gzip --seed 3 --image 700x700
$GEN -o "$W/gz.bin" --seed 3 --image 700x700
ref_counts "$W/gz.bin" "$W/gz.ref.bmp"
for s in $STRATEGIES; do
    if run_histo --strategy "$s" -i "$W/gz.bin.gz" -o "$W/gz.$s.bmp" \
            --timing "$W/gz.$s.out" -- 2 >"$W/gz.$s.log" 2>&1 \
            && same_counts "$W/gz.$s.bmp" "$W/gz.ref.bmp"; then
        ok "device.$s.gzip_input"
    else
        bad "device.$s.gzip_input" "$(tail -n 3 "$W/gz.$s.log")"
    fi
done

# --- tuning: --tune, the tune cache, --tile-rows ---
# Every candidate's histogram is checked inside histo --tune; here the
# results must equal the reference whatever knobs ran.
TIN="$W/tune.bin"
TC="$W/tune.conf"
$GEN -o "$TIN" --seed 5 --image 200x200
ref_counts "$TIN" "$W/tune.ref.bmp"
# with_cache FILE COMMAND...: COMMAND with HISTO_TUNE_FILE=FILE
with_cache() (
    HISTO_TUNE_FILE=$1
    export HISTO_TUNE_FILE
    shift
    "$@"
)
# key_line STRATEGY FILE: the cache line for the tuning input
key_line() { grep "| $1 | 256x8192 | 2^15 = batches [0-9]* tile_rows [0-9]*\( replicas [0-9]*\)\{0,1\}$" "$2"; }
for s in $STRATEGIES auto; do
    id=tune.$s
    with_cache "$TC" run_histo --tune --strategy "$s" -i "$TIN" \
        -o "$W/$id.bmp" --timing "$W/$id.out" -- 2 >"$W/$id.log" \
        2>"$W/$id.err"
    st=$?
    if [ "$st" -ne 0 ]; then
        bad "$id" "exit status $st: $(tail -n 3 "$W/$id.err")"
        continue
    fi
    ran=$(sed -n 's/^strategy = //p' "$W/$id.out")
    if ! grep -q "median us .* mean us .* x best" "$W/$id.log" \
       || ! grep -q "^histo: tune: best B=.* stored in $TC$" "$W/$id.log"; then
        bad "$id" "no table or no best line on stdout"
    elif [ "$(key_line "$ran" "$TC" | wc -l)" -ne 1 ]; then
        bad "$id" "$TC lacks one line for $ran: $(cat "$TC")"
    elif ! grep -q "^config.knobs_from = tuning$" "$W/$id.out" \
       || ! grep -q "^config.tuned = yes$" "$W/$id.out"; then
        bad "$id" "histo.out does not say the knobs came from tuning"
    elif ! same_counts "$W/$id.bmp" "$W/tune.ref.bmp"; then
        bad "$id" "$(cat "$W/last.diff")"
    else
        ok "$id"
    fi
done
# the eye's table tries fewer tile rows than the maximum too
if echo "$STRATEGIES" | grep -qw eye; then
    if awk '$1 ~ /^[0-9]+$/ && $2 > 0 { n++ } END { exit !(n > 0) }' \
           "$W/tune.eye.log"; then
        ok tune.eye_tries_tile_rows
    else
        bad tune.eye_tries_tile_rows "no candidate with w > 0"
    fi
fi
# --tune copies the input to the device once, for every candidate and the
# run after: counted in PoCL's debug log (POCL_DEBUG=events names each
# command; histo writes no other buffer), so PoCL only.
if [ "$PLATFORM" = "Portable Computing Language" ]; then
    for s in $STRATEGIES; do
        id=tune.one_upload.$s
        (
            POCL_DEBUG=events
            export POCL_DEBUG
            run_histo --tune --no-tune-cache --strategy "$s" -i "$TIN" \
                -o "$W/$id.bmp" --timing "$W/$id.out" -- 1
        ) >"$W/$id.log" 2>"$W/$id.err"
        st=$?
        n=$(sed -n 's/^histo: tune: .*, \([0-9]*\) candidates, .*/\1/p' \
            "$W/$id.log")
        writes=$(cat "$W/$id.log" "$W/$id.err" | grep -c "type: write_buffer")
        if [ "$st" -ne 0 ]; then
            bad "$id" "exit status $st: $(grep -v INFO "$W/$id.err" | tail -n 3)"
        elif [ "${n:-0}" -lt 2 ] && ! grep -q "^strategy.knobs = none$" "$W/$id.out"; then
            bad "$id" "fewer than 2 candidates: $(head -n 1 "$W/$id.log")"
        elif [ "${n:-0}" -ne 1 ] && grep -q "^strategy.knobs = none$" "$W/$id.out"; then
            bad "$id" "$n candidates for a strategy without knobs"
        elif [ "$writes" -eq 0 ]; then
            bad "$id" "no write_buffer in PoCL's debug log: cannot count uploads; update this test"
        elif [ "$writes" -ne 1 ]; then
            bad "$id" "$writes input uploads for $n candidates and the run, not 1"
        elif ! same_counts "$W/$id.bmp" "$W/tune.ref.bmp"; then
            bad "$id" "$(cat "$W/last.diff")"
        else
            ok "$id"
        fi
    done
fi

# later runs use the cached knobs unless told not to
for s in $STRATEGIES; do
    id=tune.cached.$s
    line=$(key_line "$s" "$TC")
    b=${line##*batches }
    b=${b%% *}
    w=${line##*tile_rows }
    w=${w%% *}
    r=0
    case $line in *" replicas "*) r=${line##*replicas } ;; esac
    if with_cache "$TC" run_histo --strategy "$s" -i "$TIN" \
            -o "$W/$id.bmp" --timing "$W/$id.out" -- 2 >"$W/$id.log" 2>&1 \
       && grep -q "^config.knobs_from = tune cache $TC$" "$W/$id.out" \
       && grep -q "^config.tuned = yes$" "$W/$id.out" \
       && grep -q "^config.knobs.batches = $b$" "$W/$id.out" \
       && grep -q "^config.knobs.tile_rows = $w$" "$W/$id.out" \
       && grep -q "^config.knobs.replicas = $r$" "$W/$id.out" \
       && same_counts "$W/$id.bmp" "$W/tune.ref.bmp"; then
        ok "$id"
    else
        bad "$id" "cache line '$line'; $(grep '^config.knobs' "$W/$id.out")"
    fi
done
# knobs_from NAME WANT CACHE NO_CACHE [histo args]: where the knobs came
# from with HISTO_TUNE_FILE=CACHE and HISTO_NO_TUNE_CACHE=NO_CACHE.
knobs_from() {
    name=$1 want=$2
    if (HISTO_TUNE_FILE=$3 HISTO_NO_TUNE_CACHE=$4
        export HISTO_TUNE_FILE HISTO_NO_TUNE_CACHE
        shift 4
        run_histo "$@" -i "$TIN" -o "$W/$name.bmp" --timing "$W/$name.out" \
            -- 1 >"$W/$name.log" 2>&1) \
       && grep -q "^config.knobs_from = $want$" "$W/$name.out" \
       && same_counts "$W/$name.bmp" "$W/tune.ref.bmp"; then
        ok "$name"
    else
        bad "$name" "$(grep '^config.knobs_from' "$W/$name.out" 2>/dev/null || tail -n 2 "$W/$name.log")"
    fi
}
knobs_from tune.no_tune_cache default "$TC" "" --no-tune-cache
knobs_from tune.no_tune_cache_env default "$TC" 1
knobs_from tune.command_line_wins "command line" "$TC" "" --batches 3
knobs_from tune.unreadable_cache default "$W" ""
knobs_from tune.missing_cache default "$W/none/tune.conf" ""

# a hand-written entry is used; a malformed line costs one warning only
if echo "$STRATEGIES" | grep -qw eye; then
    name=$(sed -n 's/^selected.name = //p' "$W/tune.eye.out")
    {
        echo "# written by tests/run.sh"
        echo "this line is not a tune cache entry"
        echo "$name | eye | 256x8192 | 2^15 = batches 3 tile_rows 7"
    } >"$W/tune-hand.conf"
    id=tune.hand_written
    if with_cache "$W/tune-hand.conf" run_histo --strategy eye \
            -i "$TIN" -o "$W/$id.bmp" --timing "$W/$id.out" -- 2 \
            >"$W/$id.log" 2>"$W/$id.err" \
       && grep -q "^config.batches_forced = 3$" "$W/$id.out" \
       && grep -q "^config.tile_rows = 7$" "$W/$id.out" \
       && same_counts "$W/$id.bmp" "$W/tune.ref.bmp"; then
        ok "$id"
    else
        bad "$id" "$(grep -e '^config.batches_forced' -e '^config.tile_rows' "$W/$id.out" 2>/dev/null) $(tail -n 2 "$W/$id.err")"
    fi
    if [ "$(wc -l <"$W/$id.err")" -eq 1 ] \
       && grep -q "tune-hand.conf:2: malformed tune cache line ignored" "$W/$id.err"; then
        ok tune.malformed_line_warns
    else
        bad tune.malformed_line_warns "stderr: $(head -c 300 "$W/$id.err")"
    fi
fi

# --tile-rows changes speed only: w = 1, 7, 64 and the maximum (default)
if echo "$STRATEGIES" | grep -qw eye; then
    for name in tune twoeye h100x37; do
        for w in 1 7 64 default; do
            id=tile_rows.$name.w$w
            set -- --strategy eye
            [ "$w" = default ] || set -- "$@" --tile-rows "$w"
            if run_histo "$@" -i "$W/$name.bin" -o "$W/$id.bmp" \
                    --timing "$W/$id.out" -- 2 >"$W/$id.log" 2>&1 \
               && same_counts "$W/$id.bmp" "$W/$name.ref.bmp"; then
                ok "$id"
            else
                bad "$id" "$(cat "$W/last.diff" 2>/dev/null) $(tail -n 2 "$W/$id.log")"
            fi
        done
    done
fi
# Cells cover the histogram evenly however small the tiles: with
# --tile-rows 1 a 256x8192 histogram has 8192 tiles but at most
# HISTO_EYE_CELLS (1024) cells, and a last cell gathering every row past
# 1023 won the densest-cell choice and put the window on an empty band.
# Narrow eyes (row sigma 4) centred on rows 100, 3003 and 7000 must get a
# window holding their centre row; the test dataset's eye (row 4096,
# sigma 32) one within a sigma of its centre. Each byte for byte.
if echo "$STRATEGIES" | grep -qw eye; then
    $GEN -o "$W/cells.test.bin" --seed 11601 --image 996x1040 --histo 256x8192 \
        --dist gauss --row-mean 4096 --row-sigma 32 --col-mean 128 --col-sigma 12 \
        --outliers 5000 >/dev/null && ref_counts "$W/cells.test.bin" "$W/cells.test.ref.bmp"
    for r in 100 3003 7000; do
        $GEN -o "$W/cells.row$r.bin" --seed 7 --image 996x1040 --row-mean "$r" \
            --row-sigma 4 >/dev/null && ref_counts "$W/cells.row$r.bin" "$W/cells.row$r.ref.bmp"
    done
    for spec in row100:100:0 row3003:3003:0 row7000:7000:0 test:4096:32; do
        name=${spec%%:*}
        rest=${spec#*:}
        centre=${rest%:*}
        slack=${rest#*:}
        id=eye_cells.$name.w1
        if ! run_histo --strategy eye --tile-rows 1 -i "$W/cells.$name.bin" \
                -o "$W/$id.bmp" --timing "$W/$id.out" -- 2 >"$W/$id.log" 2>&1; then
            bad "$id" "$(tail -n 2 "$W/$id.log")"
            continue
        fi
        r0=$(sed -n 's/^eye.first_row = //p' "$W/$id.out")
        r1=$(sed -n 's/^eye.last_row = //p' "$W/$id.out")
        if ! same_counts "$W/$id.bmp" "$W/cells.$name.ref.bmp"; then
            bad "$id" "$(cat "$W/last.diff")"
        elif grep -q "^eye.tiles_used = 0$" "$W/$id.out" \
             || [ "$r0" -gt $((centre + slack)) ] || [ "$r1" -lt $((centre - slack)) ]; then
            bad "$id" "window rows $r0-$r1, want one holding a row within $slack of $centre"
        else
            ok "$id"
        fi
    done
fi
# 2-D eye windows (the eye's columns only; inputs of >= 8M values): an
# eye at the centre, at the left and at the right edge, tiles of 16 and 64
# rows (small tiles make several tiles on any device); every output exact,
# and the 2-D window must have been taken where whole rows need many tiles.
# A width that is not a multiple of 4 keeps whole rows. An eye centred on
# row 3000 (no multiple of the tiles' height) must get a window centred on
# it, within 1/8 of the window's rows.
if echo "$STRATEGIES" | grep -qw eye; then
    for spec in "centre:--row-sigma 205 --col-sigma 16:256x8192" \
                "left:--col-mean 2 --col-sigma 3 --row-sigma 100:256x8192" \
                "right:--col-mean 253 --col-sigma 3 --row-sigma 100:256x8192" \
                "odd_width:--col-mean 100 --col-sigma 5 --row-sigma 40:254x4096" \
                "off_grid:--row-mean 3000 --row-sigma 205 --col-sigma 16:256x8192"; do
        name=${spec%%:*}
        rest=${spec#*:}
        args=${rest%:*}
        # shellcheck disable=SC2086
        $GEN -o "$W/eye2d.$name.bin" --seed 3 --image 2900x2900 \
            --histo "${rest##*:}" $args >/dev/null \
            && ref_counts "$W/eye2d.$name.bin" "$W/eye2d.$name.ref.bmp" \
            || { bad "eye2d.$name" "input generation failed"; continue; }
        for w in 16 64; do
            id=eye2d.$name.w$w
            if run_histo --strategy eye --tile-rows "$w" -i "$W/eye2d.$name.bin" \
                    -o "$W/$id.bmp" --timing "$W/$id.out" -- 2 >"$W/$id.log" 2>&1 \
               && same_counts "$W/$id.bmp" "$W/eye2d.$name.ref.bmp"; then
                ok "$id"
            else
                bad "$id" "$(cat "$W/last.diff" 2>/dev/null) $(tail -n 2 "$W/$id.log")"
            fi
        done
        # the narrowest window of the two runs
        cols=$(sed -n 's/^eye.cols = //p' "$W/eye2d.$name.w16.out" \
               "$W/eye2d.$name.w64.out" | sort -n | head -n 1)
        case $name in
            odd_width) want=254; test "$cols" = "$want" ;;
            *) want="< 128"; test -n "$cols" && test "$cols" -lt 128 ;;
        esac && ok "eye2d.$name.columns" \
            || bad "eye2d.$name.columns" "eye.cols = '$cols', want $want"
        [ "$name" = off_grid ] || continue
        r0=$(sed -n 's/^eye.first_row = //p' "$W/eye2d.$name.w64.out")
        r1=$(sed -n 's/^eye.last_row = //p' "$W/eye2d.$name.w64.out")
        # |(r0 + r1) / 2 - 3000| <= (r1 - r0 + 1) / 8, in whole numbers
        if [ -n "$r0" ] && [ -n "$r1" ] \
           && off=$((r0 + r1 - 6000)) && [ $((8 * (off < 0 ? -off : off))) \
                -le $((2 * (r1 - r0 + 1))) ]; then
            ok "eye2d.$name.centred"
        else
            bad "eye2d.$name.centred" "window rows $r0-$r1, want its middle within 1/8 of its rows of 3000"
        fi
    done
fi
# Any work-group size gives the same histogram and the same eye window:
# $HISTO_TEST_MAX_GROUP (test-only, docs/testing.md) caps every group at
# 1, 2, 3, 7, 8 and 32 work-items, on an eye of several tiles with values
# outside the window (gauss, tiles of 16 rows), a second eye outside the
# window (twoeye), one bin, and a 2-D window (eye2d.centre, tiles of 16
# rows). A device may refuse such groups only with exit status 4 and a
# message naming the group size. The cpu strategy runs groups of one
# work-item whatever the cap.
# window_of FILE: the eye window's keys in a timing file, on one line
window_of() {
    grep -e '^eye.tiles_used = ' -e '^eye.first_bin = ' -e '^eye.end_bin = ' \
        -e '^eye.cols = ' "$1" 2>/dev/null | tr '\n' ' '
}
if echo "$STRATEGIES" | grep -qw eye; then
    for spec in gauss:16 twoeye: one_bin: eye2d.centre:16; do
        name=${spec%%:*}
        w=${spec#*:}
        set -- --strategy eye
        [ -z "$w" ] || set -- "$@" --tile-rows "$w"
        for g in default 1 2 3 7 8 32; do
            id=group.$name.g$g
            (if [ "$g" != default ]; then
                 HISTO_TEST_MAX_GROUP=$g
                 export HISTO_TEST_MAX_GROUP
             fi
             run_histo "$@" -i "$W/$name.bin" -o "$W/$id.bmp" \
                 --timing "$W/$id.out" -- 2 >"$W/$id.log" 2>&1)
            st=$?
            tile=$(sed -n 's/^config.work_group.eye_tile = //p' "$W/$id.out" 2>/dev/null)
            reduce=$(sed -n 's/^config.work_group.eye_reduce = //p' "$W/$id.out" 2>/dev/null)
            if [ "$st" -eq 4 ] && [ "$g" != default ] \
               && grep -q "groups of" "$W/$id.log"; then
                ok "$id (refused: $(tail -n 1 "$W/$id.log"))"
            elif [ "$st" -ne 0 ]; then
                bad "$id" "exit status $st: $(tail -n 2 "$W/$id.log")"
            elif ! same_counts "$W/$id.bmp" "$W/$name.ref.bmp"; then
                bad "$id" "BMP differs from the reference (groups of $tile and $reduce)"
            elif [ "$g" != default ] \
                 && { [ -z "$tile" ] || [ "$tile" -gt "$g" ] \
                      || [ -z "$reduce" ] || [ "$reduce" -gt "$g" ]; }; then
                bad "$id" "ran groups of $tile and $reduce, more than $g"
            elif [ "$(window_of "$W/$id.out")" != "$(window_of "$W/group.$name.gdefault.out")" ]; then
                bad "$id" "window '$(window_of "$W/$id.out")', with the default groups '$(window_of "$W/group.$name.gdefault.out")'"
            else
                ok "$id"
            fi
        done
    done
fi
# The tile kernels are built with reqd_work_group_size for the size they
# run at (-DHISTO_TILE_REQD_SIZE); a runtime that refuses that launch gets
# them built again for the size it reports, and one that cannot build them
# so gets them without the attribute. $HISTO_TEST_TILE_GROUP (test-only)
# asks for groups of 65280, beyond every device's limit; a kernel copy
# that fails to build with the attribute stands for a runtime that cannot
# build it. Each must end with the reference's BMP, a note, and histo.out
# saying what ran.
# tile_keys FILE: the tile kernel's group keys, on one line
tile_keys() {
    grep -e '^config.work_group.eye_tile = ' -e '^config.work_group_required.eye_tile = ' \
        -e '^config.work_group_from.eye_tile = ' -e '^config.tile_rebuilt = ' \
        "$1" 2>/dev/null | tr '\n' ' '
}
if echo "$STRATEGIES" | grep -qw eye; then
    # a runtime may refuse 65280 at build time instead: then no attribute
    id=reqd.refused_launch
    if (HISTO_TEST_TILE_GROUP=65280
        export HISTO_TEST_TILE_GROUP
        run_histo --strategy eye -i "$W/gauss.bin" -o "$W/$id.bmp" \
            --timing "$W/$id.out" -- 2 >"$W/$id.log" 2>&1) \
       && same_counts "$W/$id.bmp" "$W/gauss.ref.bmp" \
       && g=$(sed -n 's/^config.work_group.eye_tile = //p' "$W/$id.out") \
       && [ -n "$g" ] && [ "$g" -lt 65280 ] \
       && { { grep -q "note: groups of 65280 refused for kernel eye_tile (CL_INVALID_" "$W/$id.log" \
              && grep -q "^config.tile_rebuilt = groups of 65280 refused (CL_INVALID_" "$W/$id.out" \
              && grep -q "^config.work_group_required.eye_tile = $g$" "$W/$id.out" \
              && grep -q "^build.options = .* -DHISTO_TILE_REQD_SIZE=$g\( \|$\)" "$W/$id.out"; } \
            || { grep -q "note: the build with -DHISTO_TILE_REQD_SIZE=65280 .*failed" "$W/$id.log" \
                 && grep -q "^config.work_group_required.eye_tile = 0$" "$W/$id.out"; }; }; then
        ok "$id"
    else
        bad "$id" "$(tile_keys "$W/$id.out") $(tail -n 2 "$W/$id.log")"
    fi
    id=reqd.build_refused
    mkdir -p "$W/noreqd-kernels"
    cp kernels/*.cl "$W/noreqd-kernels/"
    { printf '#if HISTO_TILE_REQD_SIZE > 0\n#error "reqd_work_group_size refused"\n#endif\n'
      cat kernels/eye_tile.cl; } >"$W/noreqd-kernels/eye_tile.cl"
    if run_histo --strategy eye --kernels "$W/noreqd-kernels" -i "$W/gauss.bin" \
            -o "$W/$id.bmp" --timing "$W/$id.out" -- 2 >"$W/$id.log" 2>&1 \
       && same_counts "$W/$id.bmp" "$W/gauss.ref.bmp" \
       && grep -q "note: the build with -DHISTO_TILE_REQD_SIZE=[0-9]* .*failed (CL_BUILD_PROGRAM_FAILURE); building with -DHISTO_TILE_REQD_SIZE=0 .*instead" "$W/$id.log" \
       && grep -q "^config.work_group_required.eye_tile = 0$" "$W/$id.out" \
       && grep -q "^config.work_group_from.eye_tile = CL_KERNEL_WORK_GROUP_SIZE$" "$W/$id.out"; then
        ok "$id"
    else
        bad "$id" "$(tile_keys "$W/$id.out") $(tail -n 2 "$W/$id.log")"
    fi
    # Every eye run of the suite: groups never above what the launched
    # kernel reports, unless it was built for exactly that size, or it is
    # eye_tile_2d run at the size the runtime built eye_tile for in the
    # same program (eye_tile.cl says why it has no attribute).
    over=""
    for t in "$W"/*.out; do
        grep -q "^strategy = eye$" "$t" || continue
        g=$(sed -n 's/^config.work_group.eye_tile = //p' "$t")
        lim=$(sed -n 's/^config.work_group_limit.eye_tile = //p' "$t")
        req=$(sed -n 's/^config.work_group_required.eye_tile = //p' "$t")
        rg=$(sed -n 's/^config.work_group.eye_reduce = //p' "$t")
        rlim=$(sed -n 's/^config.work_group_limit.eye_reduce = //p' "$t")
        acc=$(sed -n 's/^config.work_group_accepted.eye_tile = //p' "$t")
        if [ -z "$g" ] || [ -z "$rg" ] \
           || { [ "$g" -gt "$lim" ] && [ "$g" != "$req" ] \
                && [ "$g" != "$acc" ]; } \
           || [ "$rg" -gt "$rlim" ]; then
            over="$over ${t##*/}($g/$lim/$req, $rg/$rlim)"
        fi
    done
    if [ -z "$over" ]; then
        ok reqd.never_above_the_limit
    else
        bad reqd.never_above_the_limit "group/limit/required:$over"
    fi
fi
if echo "$STRATEGIES" | grep -qw cpu; then
    for g in 1 2 3 7 8 32; do
        id=group.cpu.g$g
        if (HISTO_TEST_MAX_GROUP=$g
            export HISTO_TEST_MAX_GROUP
            run_histo --strategy cpu -i "$W/gauss.bin" -o "$W/$id.bmp" \
                --timing "$W/$id.out" -- 2 >"$W/$id.log" 2>&1) \
           && grep -q "^config.work_group.cpu_count = 1$" "$W/$id.out" \
           && same_counts "$W/$id.bmp" "$W/gauss.ref.bmp"; then
            ok "$id"
        else
            bad "$id" "$(tail -n 2 "$W/$id.log")"
        fi
    done
fi
if run_histo --strategy cpu --tile-rows 7 -i "$TIN" -o "$W/tile_rows.cpu.bmp" \
        --timing "$W/tile_rows.cpu.out" -- 1 >"$W/tile_rows.cpu.log" 2>&1 \
   && grep -q "strategy cpu has no tiles; --tile-rows ignored" "$W/tile_rows.cpu.log" \
   && same_counts "$W/tile_rows.cpu.bmp" "$W/tune.ref.bmp"; then
    ok tile_rows.cpu_ignores
else
    bad tile_rows.cpu_ignores "$(tail -n 2 "$W/tile_rows.cpu.log")"
fi

# --- the program's contract: reports, exit statuses, no stale outputs ---
# report_keys NAME FILE KEY...: every key present in the timing file.
report_keys() {
    name=$1 t=$2
    shift 2
    missing=""
    for key in format selected.name selected.type selected.local_mem_type \
               strategy strategy.requested config.batches time.input_read_s \
               time.program_build_s time.upload_s time.strategy_setup_s \
               iteration.device.median_us iteration.kernels.median_us \
               input.residency input.chunks input.chunk_values shares \
               share.0.values memory.peak_rss_bytes \
               iteration.wall_mean_us time.download_s time.bmp_write_s \
               time.total_s "$@"; do
        grep -q "^$key = " "$t" 2>/dev/null || missing="$missing $key"
    done
    if [ -z "$missing" ] && grep -q "^platform.0.device.0.name = " "$t" \
       && grep -q "\.selected = yes$" "$t"; then
        ok "$name"
    else
        bad "$name" "$t lacks:$missing"
    fi
}
for s in $STRATEGIES; do
    case $s in
        eye) report_keys report.keys.eye "$W/gz.eye.out" config.tile_rows \
                 eye.first_row eye.last_row kernel.eye_tile.median_us \
                 kernel.eye_tile.total_us kernel.eye_reduce.median_us ;;
        cpu) report_keys report.keys.cpu "$W/gz.cpu.out" config.line_bins \
                 config.private_histograms config.merge_groups \
                 config.partial_bytes \
                 kernel.cpu_count.median_us kernel.cpu_merge.total_us ;;
    esac
done

# Without --strategy, dedicated local memory (CL_LOCAL) gets eye and local
# memory in global memory or none gets cpu, whatever the device type; the
# option overrides that, and histo.out names what ran.
if run_histo -i "$W/gz.bin" -o "$W/auto.bmp" --timing "$W/auto.out" -- 1 \
        >"$W/auto.log" 2>&1; then
    want=cpu
    grep -q "^selected.local_mem_type = local$" "$W/auto.out" && want=eye
    if grep -q "^strategy = $want$" "$W/auto.out" \
       && grep -q "^strategy.requested = auto$" "$W/auto.out" \
       && same_counts "$W/auto.bmp" "$W/gz.ref.bmp"; then
        ok "strategy.default_is_$want"
    else
        bad "strategy.default_is_$want" "$(grep '^strategy' "$W/auto.out")"
    fi
else
    bad strategy.default "$(tail -n 3 "$W/auto.log")"
fi
for s in $STRATEGIES; do
    if grep -q "^strategy = $s$" "$W/gz.$s.out" \
       && grep -q "^strategy.requested = $s$" "$W/gz.$s.out" \
       && grep -q "^histo: strategy $s: " "$W/gz.$s.log"; then
        ok "strategy.forced_$s"
    else
        bad "strategy.forced_$s" "$(grep '^strategy' "$W/gz.$s.out")"
    fi
done

# expect NAME STATUS PATTERN [histo args...]: exit status, stderr matching
# PATTERN, and neither output file left behind.
expect() {
    name=$1 want=$2 pattern=$3
    shift 3
    rm -f "$W/x.bmp" "$W/x.out" "$W/x.raw"
    "$@" >"$W/$name.stdout" 2>"$W/$name.stderr"
    got=$?
    if [ "$got" -ne "$want" ]; then
        bad "$name" "exit status $got, expected $want"
    elif ! grep -q -- "$pattern" "$W/$name.stderr"; then
        bad "$name" "stderr lacks '$pattern': $(head -c 300 "$W/$name.stderr")"
    elif [ -e "$W/x.bmp" ] || [ -e "$W/x.out" ] || [ -e "$W/x.raw" ]; then
        bad "$name" "an output file was left behind"
    else
        ok "$name"
    fi
}
IN="$W/gz.bin"
expect cli.missing_input 2 "missing -i" $HISTO -o "$W/x.bmp" -- 1
expect cli.bad_iterations 2 "iteration count" $HISTO -i "$IN" -o "$W/x.bmp" -- zero
expect cli.bad_tile_rows 2 "tile-rows must be a whole number" $HISTO --tile-rows 0 -i "$IN" -o "$W/x.bmp" -- 1
expect cli.tune_with_batches 2 "give none of them" $HISTO --tune --batches 2 -i "$IN" -o "$W/x.bmp" -- 1
expect cli.tune_with_replicas 2 "give none of them" $HISTO --tune --replicas 2 -i "$IN" -o "$W/x.bmp" -- 1
expect cli.bad_chunk_values 2 "chunk-values must be a whole number from 1 to 2147483648" \
    $HISTO --chunk-values 0 -i "$IN" -o "$W/x.bmp" -- 1
expect cli.bad_device_budget 2 "device-budget must be a whole number" \
    $HISTO --device-budget 12X -i "$IN" -o "$W/x.bmp" -- 1
expect cli.empty_device_item 2 "an empty or overlong item" \
    run_histo --device 0, -i "$IN" -o "$W/x.bmp" -- 1
expect work.budget_below_two_values 2 "cannot hold two chunks of one value each" \
    run_histo --device-budget 7 -i "$IN" -o "$W/x.bmp" -- 1
expect work.tune_streamed 2 "this input is streamed" \
    run_histo --tune --no-tune-cache --device-budget 64K -i "$IN" -o "$W/x.bmp" -- 1
# suffixes are powers of 1024: 4K is 4096 bytes, two chunks of 512 values
run_histo --device-budget 4K -i "$IN" -o "$W/k.bmp" --timing "$W/k.out" -- 1 >"$W/k.log" 2>&1
if grep -q "^input.chunk_values = 512$" "$W/k.out" 2>/dev/null \
   && grep -q "^input.residency = streamed$" "$W/k.out" && same_counts "$W/k.bmp" "$W/gz.ref.bmp"; then
    ok cli.budget_suffix
else
    bad cli.budget_suffix "--device-budget 4K: $(grep '^input\.' "$W/k.out" 2>/dev/null | tr '\n' ' ') $(tail -n 2 "$W/k.log")"
fi
# every device of the platform (PoCL has one): one share
run_histo --device all -i "$IN" -o "$W/all.bmp" --timing "$W/all.out" -- 1 >"$W/all.log" 2>&1
if grep -q "^shares = [1-9]" "$W/all.out" 2>/dev/null && same_counts "$W/all.bmp" "$W/gz.ref.bmp"; then
    ok cli.device_all
else
    bad cli.device_all "$(tail -n 2 "$W/all.log")"
fi
for v in 0 17 x; do
    expect "cli.bad_replicas_$v" 2 "replicas must be a whole number" \
        $HISTO --replicas "$v" -i "$IN" -o "$W/x.bmp" -- 1
done
expect cli.unknown_strategy 2 "unknown strategy 'gpu' (choose from: auto, eye, cpu, global, replicated)" \
    $HISTO --strategy gpu -i "$IN" -o "$W/x.bmp" --timing "$W/x.out" -- 1
expect input.missing_file 3 "cannot open input" \
    run_histo -i "$W/nope.bin" -o "$W/x.bmp" --timing "$W/x.out" -- 1
printf 'short' >"$W/short.bin"
expect input.short_header 3 "header is 5 bytes" \
    run_histo -i "$W/short.bin" -o "$W/x.bmp" --timing "$W/x.out" -- 1
# gzip members are read to their trailers (CRC-32, length) and nothing
# may follow the last one; gz.bin.gz is a single member.
gz_size=$(wc -c <"$W/gz.bin.gz")
for cut in 1 9 1000; do
    head -c $((gz_size - cut)) "$W/gz.bin.gz" >"$W/cut$cut.gz"
    expect "input.gzip_cut_$cut" 3 "truncated gzip stream" \
        run_histo -i "$W/cut$cut.gz" -o "$W/x.bmp" --timing "$W/x.out" -- 1
done
cp "$W/gz.bin.gz" "$W/crc.gz"
crc0=$(od -An -tu1 -j $((gz_size - 8)) -N1 "$W/crc.gz" | tr -d ' ')
# shellcheck disable=SC2059
printf "\\$(printf %o $((crc0 ^ 1)))" \
    | dd of="$W/crc.gz" bs=1 seek=$((gz_size - 8)) conv=notrunc 2>/dev/null
expect input.gzip_crc_mismatch 3 "gzip trailer CRC mismatch" \
    run_histo -i "$W/crc.gz" -o "$W/x.bmp" --timing "$W/x.out" -- 1
{ cat "$W/gz.bin.gz"; printf 'x'; } >"$W/trailing.gz"
expect input.gzip_trailing_bytes 3 "trailing bytes after the gzip data" \
    run_histo -i "$W/trailing.gz" -o "$W/x.bmp" --timing "$W/x.out" -- 1
# two members that together hold the input, and an empty one after them,
# give the raw input's histogram
head -c 1000001 "$W/gz.bin" | gzip -n >"$W/members.gz"
tail -c +1000002 "$W/gz.bin" | gzip -n >>"$W/members.gz"
printf '' | gzip -n >>"$W/members.gz"
if run_histo -i "$W/members.gz" -o "$W/members.bmp" --timing "$W/members.out" \
        -- 1 >"$W/members.log" 2>&1 \
   && same_counts "$W/members.bmp" "$W/gz.ref.bmp"; then
    ok input.gzip_members
else
    bad input.gzip_members "$(tail -n 3 "$W/members.log")"
fi
for v in 0 65537 -1 8x; do
    expect "group_cap.bad_value_$v" 2 "HISTO_TEST_MAX_GROUP must be a whole number" \
        env HISTO_TEST_MAX_GROUP="$v" $HISTO --platform "$PLATFORM" --strategy eye \
        -i "$IN" -o "$W/x.bmp" --timing "$W/x.out" -- 1
    expect "tile_group.bad_value_$v" 2 "HISTO_TEST_TILE_GROUP must be a whole number" \
        env HISTO_TEST_TILE_GROUP="$v" $HISTO --platform "$PLATFORM" --strategy eye \
        -i "$IN" -o "$W/x.bmp" --timing "$W/x.out" -- 1
done
# 65281 work-items could carry a 16-bit tile counter into its neighbour
expect tile_group.past_counter_bound 2 "HISTO_TEST_TILE_GROUP must be a whole number from 1 to 65280" \
    env HISTO_TEST_TILE_GROUP=65281 $HISTO --platform "$PLATFORM" --strategy eye \
    -i "$IN" -o "$W/x.bmp" --timing "$W/x.out" -- 1
for v in 0 4294967296 -1 8x; do
    expect "min_2d.bad_value_$v" 2 "HISTO_TEST_2D_MIN_VALUES must be a whole number" \
        env HISTO_TEST_2D_MIN_VALUES="$v" $HISTO --platform "$PLATFORM" --strategy eye \
        -i "$IN" -o "$W/x.bmp" --timing "$W/x.out" -- 1
done
expect device.unknown_platform 4 "no OpenCL platform matches" \
    $HISTO --platform "no such platform" -i "$IN" -o "$W/x.bmp" --timing "$W/x.out" -- 1
expect device.unknown_device 4 "no OpenCL device matches" \
    $HISTO --platform "$PLATFORM" --device "no such device" -i "$IN" -o "$W/x.bmp" --timing "$W/x.out" -- 1
expect device.missing_kernels 4 "cannot open kernel source" \
    run_histo --kernels "$W/no-kernels" -i "$IN" -o "$W/x.bmp" --timing "$W/x.out" -- 1
# A broken line at the end of every strategy's kernel file: the build
# fails, and its log names each file as --kernels gives it, at the broken
# line (FILE:LINE:), not the runtime's temporary copy of the sources. The
# line differs on every run, so no kernel cache can hold a build of these
# sources. combine.cl and probe.cl, built before any strategy's, stay whole.
mkdir -p "$W/broken-kernels"
for f in kernels/*.cl; do
    cp "$f" "$W/broken-kernels/"
    case $f in */combine.cl|*/probe.cl) continue ;; esac
    echo "this is not OpenCL C $$ $(date +%s);" >>"$W/broken-kernels/${f#kernels/}"
done
for s in $STRATEGIES; do
    expect "device.$s.build_failure_log" 4 "build log" \
        run_histo --strategy "$s" --kernels "$W/broken-kernels" -i "$IN" \
        -o "$W/x.bmp" --timing "$W/x.out" -- 1
    # A strategy's kernel files are named after it (cpu_*.cl, eye_*.cl),
    # but for the replicated strategy, which runs the eye kernels.
    # Compilers that honour #line name them (PoCL, Intel's); NVIDIA's
    # reports "<kernel>:LINE" of the joined sources whatever #line says.
    if grep -q "<kernel>:[0-9]" "$W/device.$s.build_failure_log.stderr"; then
        echo "device.$s.build_log_names_kernel_lines: skipped: this compiler ignores #line"
        continue
    fi
    missing=""
    files=$s
    [ "$s" = replicated ] && files=eye
    for f in "$W/broken-kernels/${files}"_*.cl; do
        at="$f:$(wc -l <"$f" | tr -d ' '):"
        grep -qF -- "$at" "$W/device.$s.build_failure_log.stderr" \
            || missing="$missing $at"
    done
    if [ -z "$missing" ]; then
        ok "device.$s.build_log_names_kernel_lines"
    else
        bad "device.$s.build_log_names_kernel_lines" "log lacks$missing: $(grep -m 2 "error:" "$W/device.$s.build_failure_log.stderr")"
    fi
done
# $HISTO_CL_OPTIONS: appended to the build options (recorded in histo.out,
# the build log shown), and a bad one fails the build loudly.
if HISTO_CL_OPTIONS="-DHISTO_TEST_EXTRA=1" run_histo -i "$IN" -o "$W/clopt.bmp" \
        --timing "$W/clopt.out" -- 1 >"$W/clopt.log" 2>&1 \
   && grep -q "^build.options = .*-DHISTO_WIDTH=[0-9]*u.* -DHISTO_TEST_EXTRA=1$" "$W/clopt.out" \
   && grep -q "build log" "$W/clopt.log"; then
    ok cl_options.appended
else
    bad cl_options.appended "$(grep build.options "$W/clopt.out" 2>/dev/null | head -c 300)"
fi
expect cl_options.bad_option 4 "clBuildProgram" \
    env HISTO_CL_OPTIONS="-cl-no-such-option" $HISTO --platform "$PLATFORM" \
    -i "$IN" -o "$W/x.bmp" --timing "$W/x.out" -- 1
# --tune checks every candidate against the first: a count kernel that
# drops the last value when there is a single slice (B=1) must be caught,
# with nothing written, not even the tune cache. Only where B=1 is among
# the candidates: PoCL here (2 compute units); a 132-unit GPU tries none.
if [ "$PLATFORM" = "Portable Computing Language" ]; then
mkdir -p "$W/bug-kernels"
cp kernels/*.cl "$W/bug-kernels/"
sed 's/        end = min(first, n);/        end = min(first, n) - (first >= n);/' \
    kernels/cpu_count.cl >"$W/bug-kernels/cpu_count.cl"
if cmp -s kernels/cpu_count.cl "$W/bug-kernels/cpu_count.cl"; then
    bad tune.candidate_differs "cannot plant the bug: kernels/cpu_count.cl changed; update this test"
else
    expect tune.candidate_differs 4 "gives a different histogram" \
        with_cache "$W/bug-tune.conf" run_histo --tune --strategy cpu \
        --kernels "$W/bug-kernels" -i "$TIN" -o "$W/x.bmp" --timing "$W/x.out" -- 1
    if [ -e "$W/bug-tune.conf" ] \
       || ! grep -q "DIFFERENT HISTOGRAM" "$W/tune.candidate_differs.stdout"; then
        bad tune.candidate_differs_nothing_stored "cache written or no mark in the table"
    else
        ok tune.candidate_differs_nothing_stored
    fi
fi
fi
expect output.missing_folder 5 "cannot create output" \
    run_histo -i "$IN" -o "$W/no-folder/x.bmp" --timing "$W/x.out" -- 1
expect output.folder_is_a_file 5 "Not a directory" \
    run_histo -i "$IN" -o "$IN/x.bmp" --timing "$W/x.out" -- 1
# a timing file that cannot be written takes the finished BMP back
expect output.timing_unwritable 5 "cannot create output" \
    run_histo -i "$IN" -o "$W/x.bmp" --timing "$W/no-folder/x.out" -- 1
if [ "$PLATFORM" = "Portable Computing Language" ]; then
    # 65536 batches x 5 tiles x 2 MiB of partial tiles: far beyond PoCL's
    # 1 GiB CL_DEVICE_MAX_MEM_ALLOC_SIZE here.
    expect device.allocation_too_large 4 "CL_DEVICE_MAX_MEM_ALLOC_SIZE" \
        run_histo --batches 65536 -i "$W/gauss.bin" -o "$W/x.bmp" --timing "$W/x.out" -- 1
fi
# A histogram larger than the device allows is refused from the header,
# before any value is read: here the header comes through a FIFO whose
# writer then sends nothing more, so a reader that waited for the values
# would block until the timeout. (Inputs of any size are accepted: they
# are split into chunks, and streamed past the device's memory.)
max_alloc=$(cat "$W"/gz.*.out 2>/dev/null | sed -n 's/^selected.max_alloc_bytes = //p' | head -n 1)
if [ -z "$max_alloc" ] || [ "$max_alloc" -ge 4294901760 ]; then
    echo "input.too_large_from_header: skipped: the device allows ${max_alloc:-?} bytes, not less than a 65535x65536 histogram needs"
else
    rm -f "$W/big.fifo"
    mkfifo "$W/big.fifo"
    # 65536 x 32768 values (2^31, 8 GiB) into 65535 x 65536 bins
    { printf '\000\000\001\000\000\200\000\000\377\377\000\000\000\000\001\000'; sleep 60; } >"$W/big.fifo" &
    writer=$!
    set -- --platform "$PLATFORM"
    [ -z "$DEVICE" ] || set -- "$@" --device "$DEVICE"
    # --no-bmp: that histogram's BMP (12.9 GB) is refused before the device
    # is asked (output.bmp_too_large); the counters alone reach the limit.
    expect input.too_large_from_header 4 "histogram buffer needs 4294901760 bytes.*CL_DEVICE_MAX_MEM_ALLOC_SIZE" \
        timeout 30 $HISTO "$@" -i "$W/big.fifo" --no-bmp --raw "$W/x.raw" --timing "$W/x.out" -- 1
    kill $writer 2>/dev/null
    wait $writer 2>/dev/null
fi

# Histograms of up to 2^32 - 1 bins pass the input check, so no loop or
# index over bins may wrap: with 2^32 - 64 bins (the 20-byte input below,
# one value 0) cpu_count's clearing loop once stepped i + 64 past 2^32 and
# never ended. Their BMPs are over the format's 4 GiB, so the runs write
# the counters alone (--no-bmp --raw). Each run, on every strategy, must
# end (timeout 60) with the reference's counters, or with exit status 4
# naming the device's allocation limit and no output left (PoCL on a
# 24 GiB host allows 2 GiB). Neighbours: 2^32 - 1 bins
# (65535x65537) and 2^32 - 66 (310x13854733, not a multiple of 4 or 64),
# each with a value in the first and the last bin.
# le32 N...: each N as four little-endian bytes
le32() {
    for v in "$@"; do
        # shellcheck disable=SC2059
        printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((v & 255)) \
            $((v >> 8 & 255)) $((v >> 16 & 255)) $((v >> 24 & 255)))"
    done
}
le32 1 1 64 67108863 0 >"$W/bins_2p32m64.bin"
le32 2 1 65535 65537 0 4294967294 >"$W/bins_2p32m1.bin"
le32 2 1 310 13854733 0 4294967229 >"$W/bins_2p32m66.bin"
# A device that can hold such a histogram runs them for real: each run
# and its reference then write 4 GiB of counters, so that is asked for
# with HISTO_TEST_HUGE=1.
huge_names="2p32m64 2p32m1 2p32m66"
if [ -n "$max_alloc" ] && [ "$max_alloc" -ge 4294967232 ] && [ -z "${HISTO_TEST_HUGE:-}" ]; then
    echo "huge_bins: skipped: the device allows $max_alloc bytes in one allocation; HISTO_TEST_HUGE=1 runs them (4 GiB of counters each)"
    huge_names=""
fi
for name in $huge_names; do
    in="$W/bins_$name.bin"
    for s in $STRATEGIES; do
        id=huge_bins.$s.$name
        rm -f "$W/x.raw" "$W/x.out"
        # run_histo's arguments: timeout runs programs, not functions
        set -- --platform "$PLATFORM"
        [ -z "$DEVICE" ] || set -- "$@" --device "$DEVICE"
        timeout 60 $HISTO "$@" --strategy "$s" -i "$in" --no-bmp \
            --raw "$W/x.raw" --timing "$W/x.out" -- 1 >"$W/$id.log" 2>&1
        st=$?
        if [ "$st" -eq 4 ]; then
            if ! grep -q "CL_DEVICE_MAX_MEM_ALLOC_SIZE" "$W/$id.log"; then
                bad "$id" "exit status 4 without naming the limit: $(tail -n 2 "$W/$id.log")"
            elif [ -e "$W/x.raw" ] || [ -e "$W/x.out" ]; then
                bad "$id" "an output file was left behind"
            else
                ok "$id"
            fi
        elif [ "$st" -ne 0 ]; then
            [ "$st" -eq 124 ] && st="124 (still running after 60 s)"
            bad "$id" "exit status $st: $(tail -n 2 "$W/$id.log")"
        elif [ -e "$W/bins_$name.ref.raw" ] \
             || timeout 300 $REF "$in" - "$W/bins_$name.ref.raw" >/dev/null 2>&1; then
            if cmp -s "$W/x.raw" "$W/bins_$name.ref.raw"; then
                ok "$id"
            else
                bad "$id" "counts differ from the reference: $(cmp "$W/x.raw" "$W/bins_$name.ref.raw" 2>&1 | head -n 1)"
            fi
        else
            bad "$id" "the reference could not be computed"
        fi
        rm -f "$W/x.bmp" "$W/x.out" "$W/x.raw"
    done
    rm -f "$W/bins_$name.ref.bmp" "$W/bins_$name.ref.raw"
done

# a failed run removes an earlier run's outputs
echo stale >"$W/x.bmp"
echo stale >"$W/x.out"
run_histo -i "$W/nope.bin" -o "$W/x.bmp" --timing "$W/x.out" -- 1 2>/dev/null
if [ -e "$W/x.bmp" ] || [ -e "$W/x.out" ]; then
    bad output.stale_removed "an earlier output survived a failed run"
else
    ok output.stale_removed
fi

if $HISTO --list >"$W/list.txt" 2>&1 && grep -q "device 0:" "$W/list.txt"; then
    ok cli.list
else
    bad cli.list "$(head -c 300 "$W/list.txt")"
fi
if $HISTO --help | grep -q "usage: histo"; then ok cli.help; else bad cli.help "no usage text"; fi

# --- what histo says about itself: its check, its times, its outputs ---
# A BMP whose sizes overflow the format's 32-bit fields: refused from the
# header (20 bytes: 64 x 67108863 bins), in well under a second, nothing
# written; --no-bmp --raw is what the message points to.
printf '\100\000\000\000\377\377\377\003\100\000\000\000\377\377\377\003\000\000\000\000' >"$W/bmp-huge.bin"
t0=$(date +%s)
expect output.bmp_too_large 5 "write the counters alone with --no-bmp --raw" \
    run_histo -i "$W/bmp-huge.bin" -o "$W/x.bmp" --timing "$W/x.out" -- 1
[ $(($(date +%s) - t0)) -le 2 ] || bad output.bmp_too_large_fast "took $(($(date +%s) - t0)) s"
expect cli.no_bmp_with_o 2 "give no -o" \
    run_histo --no-bmp -i "$IN" -o "$W/x.bmp" --timing "$W/x.out" -- 1
# --raw to standard output: exactly the counters, the summary elsewhere;
# --no-bmp: no BMP, the counters alone.
ref_counts "$IN" "$W/stdout.ref.bmp" >/dev/null 2>&1
if run_histo --no-bmp -i "$IN" --raw - --timing "$W/stdout.out" -- 1 \
        >"$W/stdout.raw" 2>"$W/stdout.err" \
   && cmp -s "$W/stdout.raw" "$W/stdout.ref.raw" \
   && grep -q "^histo: check PASS" "$W/stdout.err" \
   && grep -q "^output.path = none" "$W/stdout.out"; then
    ok output.raw_to_stdout
else
    bad output.raw_to_stdout "$(wc -c <"$W/stdout.raw") bytes on stdout, $(wc -c <"$W/stdout.ref.raw") expected: $(head -c 200 "$W/stdout.err")"
fi
# Raw inputs whose image width starts the file with gzip's magic bytes:
# 1f 8b 00 00 (width 35615) and 1f 8b 08 00 (width 559903, deflate's
# method too), each read as raw and counted exactly.
for w in 35615 559903; do
    $GEN -o "$W/w$w.bin" --seed 5 --image "${w}x1" --histo 16x16 --dist uniform >/dev/null 2>&1
    ref_counts "$W/w$w.bin" "$W/w$w.ref.bmp" >/dev/null 2>&1
    if [ "$(od -An -tx1 -N3 "$W/w$w.bin" | tr -d ' ')" != "$(printf '%06x' $((w & 0xffffff)) | sed 's/\(..\)\(..\)\(..\)/\3\2\1/')" ]; then
        bad "input.gzip_magic_raw_$w" "the generator's header is not the width's bytes"
    elif run_histo -i "$W/w$w.bin" -o "$W/w$w.bmp" --timing "$W/w$w.out" -- 1 >"$W/w$w.log" 2>&1 \
         && same_counts "$W/w$w.bmp" "$W/w$w.ref.bmp"; then
        ok "input.gzip_magic_raw_$w"
    else
        bad "input.gzip_magic_raw_$w" "$(tail -n 1 "$W/w$w.log")"
    fi
done
# Times: a streamed input's device time per iteration adds up to no more
# than the wall time it is part of; two queues are timed on the host and
# the summary says so; no device median of 0.0.
if run_histo --device-budget 1M --chunk-values 65536 -i "$IN" -o "$W/times.bmp" \
        --timing "$W/times.out" -- 5 >"$W/times.log" 2>&1; then
    dev=$(sed -n 's/^iteration\.device\.total_us = //p' "$W/times.out")
    wall=$(sed -n 's/^time\.iterations_wall_s = //p' "$W/times.out")
    if grep -q "^input.residency = streamed" "$W/times.out" \
       && awk -v d="$dev" -v w="$wall" 'BEGIN { exit !(d > 0 && d <= w * 1e6 * 1.05) }'; then
        ok times.streamed_within_wall
    else
        bad times.streamed_within_wall "device total ${dev:-none} us, wall ${wall:-none} s"
    fi
else
    bad times.streamed_within_wall "histo failed: $(tail -n 2 "$W/times.log")"
fi
if run_histo --device 0,0 -i "$IN" -o "$W/times2.bmp" --timing "$W/times2.out" -- 3 \
        >"$W/times2.log" 2>&1 \
   && grep -q "us median on the host (each finished before the next)" "$W/times2.log" \
   && grep -q "^iteration.host.median_us" "$W/times2.out" \
   && ! grep -q "^iteration.device.median_us" "$W/times2.out"; then
    ok times.two_queues_on_host
else
    bad times.two_queues_on_host "$(grep "us median" "$W/times2.log")"
fi
# The check: PASS by default, skipped with --no-check, and --no-check with
# --keep-wrong refused.
if grep -q "^check = PASS" "$W/times.out" && grep -q "^time.check_s = " "$W/times.out"; then
    ok check.pass_reported
else
    bad check.pass_reported "$(grep '^check' "$W/times.out" | head -n 2)"
fi
if run_histo --no-check -i "$IN" -o "$W/nocheck.bmp" --timing "$W/nocheck.out" -- 1 >/dev/null 2>&1 \
   && grep -q "^check = skipped" "$W/nocheck.out"; then
    ok check.skipped
else
    bad check.skipped "$(grep '^check' "$W/nocheck.out" | head -n 1)"
fi
expect cli.no_check_keep_wrong 2 "with --no-check there is none" \
    run_histo --no-check --keep-wrong -i "$IN" -o "$W/x.bmp" --timing "$W/x.out" -- 1

# --- the byte-exact cases on every other OpenCL implementation ---
# Each implementation the ICD loader can list other than the test
# platform (the system's /etc/OpenCL/vendors, or with make platforms the
# folder that adds Intel's CPU runtime and Oclgrind) runs alone, through a
# vendors folder of its one .icd file, every strategy on the correctness
# inputs at default batches, and with the strategy it defaults to; the
# Oclgrind simulator, which runs every work-item in turn, on small inputs
# only. Mesa's rusticl shows its CPU device (llvmpipe) only when
# RUSTICL_ENABLE names it.
export RUSTICL_ENABLE="${RUSTICL_ENABLE:-llvmpipe}"
vendors=${HISTO_OCL_DIR:-${HOME:-/nonexistent}/.cache/histo/ocl}/vendors
[ -d "$vendors" ] || vendors=/etc/OpenCL/vendors
ran_impl="" skipped_impl=""
[ -d "${HISTO_OCL_DIR:-${HOME:-/nonexistent}/.cache/histo/ocl}/vendors" ] \
    || skipped_impl="Intel and Oclgrind (not installed: make platforms);"
small_cases='
g_small  --image 333x77 --histo 100x37 --row-mean 18 --row-sigma 5 --col-mean 50 --col-sigma 20
g_tiny   --image 7x3 --histo 5x3 --dist uniform
g_one    --dist onebin --image 1x1 --bin 7
g_64     --image 64x64
g_onebin --dist onebin --image 40x40 --bin 1048704
'
for icd in "$vendors"/*.icd; do
    [ -f "$icd" ] || continue
    tag=$(basename "$icd" .icd)
    dir="$W/icd/$tag"
    mkdir -p "$dir"
    cp "$icd" "$dir/"
    # the platform's name: what --list shows before " (vendor, version)"
    name=$(OCL_ICD_VENDORS=$dir $HISTO --list 2>/dev/null \
           | sed -n '/^platform 0: /{s/^platform 0: //; s/ (.*//; p; q; }')
    if [ -z "$name" ]; then
        skipped_impl="$skipped_impl $tag (its library lists no platform here);"
        continue
    fi
    if ! OCL_ICD_VENDORS=$dir $HISTO --list 2>/dev/null | grep -q "^  device "; then
        skipped_impl="$skipped_impl $name (no device here);"
        continue
    fi
    case $name in "$PLATFORM"*) continue ;; esac
    case $name in
        Oclgrind*) list=$small_cases ;;
        *) list=$(cut -d'|' -f1,2 "$W/cases.txt" | tr '|' ' ') ;;
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
            continue
        fi
    fi
    ran_impl="$ran_impl $name;"
    echo "$list" | while read -r case_name gen_args; do
        [ -n "$case_name" ] || continue
        in="$W/$case_name.bin"
        if [ ! -s "$W/$case_name.ref.raw" ]; then
            # shellcheck disable=SC2086
            $GEN -o "$in" --seed 7 $gen_args >/dev/null 2>&1 \
                && ref_counts "$in" "$W/$case_name.ref.bmp" >/dev/null 2>&1 \
                || { echo "FAIL impl.$tag.$case_name: input generation failed"; continue; }
        fi
        for s in $STRATEGIES default; do
            id=impl.$tag.$s.$case_name
            pick="--strategy $s"
            [ "$s" = default ] && pick=""
            # shellcheck disable=SC2086 # pick is no words or two
            if ! OCL_ICD_VENDORS=$dir $HISTO --platform 0 $pick \
                    -i "$in" -o "$W/$id.bmp" --raw "$W/$id.raw" \
                    --timing "$W/$id.out" -- 2 >"$W/$id.log" 2>&1; then
                echo "FAIL $id: histo failed: $(tail -n 2 "$W/$id.log" | tr '\n' ' ')"
            elif same_counts "$W/$id.bmp" "$W/$case_name.ref.bmp"; then
                echo "PASS $id"
            else
                echo "FAIL $id: $(cat "$W/last.diff")"
            fi
            rm -f "$W/$id.bmp"
        done
    done >"$W/impl.$tag.log"
    # kernels/probe.cl's loop limit against tests/loop_limit.c, which
    # counts a long loop in a kernel of its own: the two must agree on
    # whether this implementation ends loops early.
    id=impl.$tag.loop_limit
    # Its verdict is its line, not its exit status: under the sanitizers
    # an implementation's leaks at exit abort it after it has answered.
    OCL_ICD_VENDORS=$dir $B/loop-limit "$name" >"$W/$id.log" 2>&1
    repro=$(sed -n 's/^loop-limit: .*expected \([0-9]*\), got \([0-9]*\)$/\1 \2/p' "$W/$id.log" \
            | awk '{ print ($1 == $2) ? 0 : 1 }')
    probe=$(sed -n 's/^share\.0\.loop_limit = //p' "$W/impl.$tag.default.g_one.out" \
            "$W/impl.$tag.default.$(head -n 1 "$W/cases.txt" | cut -d'|' -f1).out" 2>/dev/null | head -n 1)
    if [ -z "$repro" ] || [ -z "$probe" ]; then
        echo "FAIL $id: no answer: $(head -n 1 "$W/$id.log") probe '$probe'" >>"$W/impl.$tag.log"
    elif { [ "$repro" -eq 0 ] && [ "$probe" = none ]; } \
         || { [ "$repro" -eq 1 ] && [ "$probe" != none ]; }; then
        echo "PASS $id" >>"$W/impl.$tag.log"
        echo "$name: loop limit $probe ($(head -n 1 "$W/$id.log"))"
    else
        echo "FAIL $id: histo's probe says '$probe', the reproducer: $(head -n 1 "$W/$id.log")" >>"$W/impl.$tag.log"
    fi
    while read -r verdict rest; do
        case $verdict in
            PASS) ok "$rest" ;;
            FAIL) bad "${rest%%:*}" "${rest#*: }" ;;
        esac
    done <"$W/impl.$tag.log"
done
echo "implementations: $PLATFORM (the test platform);$ran_impl skipped: ${skipped_impl:-none}"

# --- what outputs do to the files they name (tests/outputs.sh) ---
sh tests/outputs.sh >"$W/outputs.log" 2>"$W/outputs.err"
while read -r verdict rest; do
    case $verdict in
        PASS) ok "$rest" ;;
        FAIL) bad "${rest%%:*}" "${rest#*: }" ;;
    esac
done <"$W/outputs.log"
grep -q . "$W/outputs.log" || bad outputs.ran "tests/outputs.sh printed nothing"
grep "skipped" "$W/outputs.err"

# --- progress on stderr during long runs (tests/progress.sh) ---
sh tests/progress.sh >"$W/progress.log" 2>"$W/progress.err"
while read -r verdict rest; do
    case $verdict in
        PASS) ok "$rest" ;;
        FAIL) bad "${rest%%:*}" "${rest#*: }" ;;
    esac
done <"$W/progress.log"
grep -q . "$W/progress.log" || bad progress.ran "tests/progress.sh printed nothing: $(head -c 300 "$W/progress.err")"
grep "skipped" "$W/progress.err"

# --- datasets, validator and run harness (tests/harness.sh) ---
sh tests/harness.sh >"$W/harness.log" 2>"$W/harness.err"
while read -r verdict rest; do
    case $verdict in
        PASS) ok "$rest" ;;
        FAIL) bad "${rest%%:*}" "${rest#*: }" ;;
    esac
done <"$W/harness.log"
grep -q . "$W/harness.log" || bad harness.ran "tests/harness.sh printed nothing"

# --- --version, the man page, make install / uninstall (tests/install.sh) ---
sh tests/install.sh >"$W/install.log" 2>"$W/install.err"
while read -r verdict rest; do
    case $verdict in
        PASS) ok "$rest" ;;
        FAIL) bad "${rest%%:*}" "${rest#*: }" ;;
    esac
done <"$W/install.log"
grep -q . "$W/install.log" || bad install.ran "tests/install.sh printed nothing: $(head -c 300 "$W/install.err")"
grep "skipped" "$W/install.err"

# --- the example outputs in README.md and docs/ (tests/docs-check.sh) ---
sh tests/docs-check.sh >"$W/docs.log" 2>"$W/docs.err"
while read -r verdict rest; do
    case $verdict in
        PASS) ok "$rest" ;;
        FAIL) bad "${rest%%:*}" "${rest#*: }" ;;
    esac
done <"$W/docs.log"
grep -q . "$W/docs.log" || bad docs.ran "tests/docs-check.sh printed nothing: $(head -c 300 "$W/docs.err")"
# an example whose words changed, and one that lost a field, must fail
sed 's/us median on the device/us middle on the device/' README.md >"$W/drift-words.md"
awk '/^<!-- example: histo-out/ { on = 1 } on && /^config\.batches = / { on = 0; next } { print }' \
    README.md >"$W/drift-field.md"
for d in words:summary field:histo-out; do
    if cmp -s README.md "$W/drift-${d%%:*}.md"; then
        bad "docs.drift_${d%%:*}" "the edit no longer changes README.md"
    elif DOCS_FILES="$W/drift-${d%%:*}.md" sh tests/docs-check.sh >"$W/drift.log" 2>&1; then
        bad "docs.drift_${d%%:*}" "docs-check passed an example that drifted"
    elif grep -q "^FAIL docs.${d#*:} " "$W/drift.log" \
         && [ "$(grep -c '^FAIL' "$W/drift.log")" -eq 1 ]; then
        ok "docs.drift_${d%%:*}"
    else
        bad "docs.drift_${d%%:*}" "not the one failure expected: $(grep -v '^PASS' "$W/drift.log" | head -n 3 | tr '\n' ' ')"
    fi
done

# --- under the sanitizers: every object released, no suppression ---
# make test-asan suppresses the leaks of PoCL's compiles (tests/lsan.supp
# says which and why), and those stacks would hide a CL object histo
# forgot to release. With the kernel cache warm there is no compile: each
# path runs once to warm it, then again with LeakSanitizer suppressing
# nothing, and must exit 0.
if [ "$B" = build ]; then
    echo "asan.no_leaks: skipped: $B is not the sanitizer build (make test-asan runs them)"
else
    n=$((996 * 1040))
    twice=${DEVICE:-0},${DEVICE:-0}
    for mode in $STRATEGIES streamed shares tune; do
        case $mode in
            streamed) set -- --chunk-values $((n / 5 + 1)) --device-budget $((8 * (n / 5 + 1))) ;;
            shares) set -- --chunk-values $((n / 4 + 1)) --device "$twice" ;;
            tune) set -- --tune ;;
            *) set -- --strategy "$mode" --chunk-values $((n / 3 + 1)) ;;
        esac
        id=asan.no_leaks.$mode
        HISTO_TUNE_FILE=$W/leak-tune.conf run_histo "$@" -i "$W/gauss.bin" \
            --no-bmp --raw "$W/leak.raw" --timing "$W/leak.out" -- 2 >"$W/$id.warm.log" 2>&1
        if HISTO_TUNE_FILE=$W/leak-tune.conf LSAN_OPTIONS= run_histo "$@" -i "$W/gauss.bin" --no-bmp \
               --raw "$W/leak.raw" --timing "$W/leak.out" -- 2 >"$W/$id.log" 2>&1; then
            ok "$id"
        else
            bad "$id" "exit status $?: $(grep -m 1 -A 3 'leak of' "$W/$id.log" | tr '\n' ' ' | head -c 400)"
        fi
    done
fi

# --- a 4 GiB input: byte-exact, peak RSS within 1.25x (tests/big-input.sh) ---
# Not under the sanitizers (make test-asan): their shadow memory is not
# the program's.
if [ "$B" != build ]; then
    echo "big_input: skipped: $B is not the plain build (its RSS is the sanitizer's)"
else
    sh tests/big-input.sh "$W" "$PLATFORM" "$DEVICE" >"$W/big.log" 2>&1
    while read -r verdict rest; do
        case $verdict in
            PASS) ok "$rest" ;;
            FAIL) bad "${rest%%:*}" "${rest#*: }" ;;
            *) echo "$verdict $rest" ;;
        esac
    done <"$W/big.log"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
