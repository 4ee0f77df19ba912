# tests/lib.sh - what every subject of the suite shares; sourced by the
# subject files in tests/ (device.sh, tune.sh, ...) after they set
# SUBJECT, never run alone. tests/run.sh runs the subjects and counts
# their lines; a subject also runs by itself: sh tests/device.sh.
#
# A subject prints "PASS id", "FAIL id: why" or, for a case this machine
# cannot run, "SKIP id: why" per test, any other line for its log, and no
# summary; tests/run.sh runs several subjects at once, so what they share
# (the inputs below) is made under a lock. It works in a folder
# of its own, $W (tests/work/SUBJECT, or SUBJECT.PART when tests/run.sh
# runs one of the parts its file names as HISTO_TEST_PART), and builds
# every input it needs:
# the shared ones below (need_case, need_gz, need_tune_input) go to
# $INPUTS (tests/work/inputs), made once per suite run and again by a
# subject that finds them missing.
#
# The device is PoCL unless HISTO_TEST_PLATFORM / HISTO_TEST_DEVICE name
# another, e.g. HISTO_TEST_PLATFORM="NVIDIA CUDA" HISTO_TEST_DEVICE=GPU;
# HISTO_TEST_STRATEGIES narrows the strategies (default: every strategy
# histo lists); HISTO_TEST_TIER and HISTO_TEST_SLICE pick the cells of
# the products that run (tests/tier.sh); HISTO_BUILD names the build (build-asan for make
# test-asan); TEST_FILTER, an id prefix, lets a subject skip the cases
# whose ids it cannot match (wanted).
cd "$(dirname "$0")/.." || exit 1
ROOT=${HISTO_TEST_WORK:-tests/work}
mkdir -p "$ROOT"
ROOT=$(cd "$ROOT" && pwd)
W=$ROOT/${SUBJECT:?tests/lib.sh: set SUBJECT first}${HISTO_TEST_PART:+.$HISTO_TEST_PART}
rm -rf "$W"
mkdir -p "$W"
INPUTS=$ROOT/inputs
mkdir -p "$INPUTS"
B=${HISTO_BUILD:-build}
GEN=$B/histo-gen
REF=$B/histo-ref
HISTO=$(pwd)/histo
[ "$B" = build ] || HISTO=$(pwd)/$B/histo
# every histo run under the suite's time limit (tests/timed.sh)
. tests/timed.sh
PLATFORM=${HISTO_TEST_PLATFORM:-Portable Computing Language}
DEVICE=${HISTO_TEST_DEVICE:-}
. tests/asan-vendors.sh
# which cells of a product run (make test, make test-full): in_tier
. tests/tier.sh
[ -z "$tier_error" ] || { echo "FAIL $SUBJECT.setup: $tier_error"; exit 1; }
# every strategy histo has (histo --list-strategies)
STRATEGIES=${HISTO_TEST_STRATEGIES:-$($HISTO --list-strategies | tr '\n' ' ')}
[ -n "$STRATEGIES" ] || { echo "FAIL $SUBJECT.setup: histo names no strategy"; exit 1; }
unset HISTO_PLATFORM HISTO_DEVICE HISTO_KERNEL_DIR HISTO_NO_TUNE_CACHE
# No test may read or write a real tune cache (~/.cache/histo/tune.conf):
# every run sees this file, which nothing writes; the tuning tests name
# their own.
HISTO_TUNE_FILE=$W/no-tune-cache.conf
export HISTO_TUNE_FILE
# No test may touch the user's results/: every make run of the tests
# writes under the subject's own folder (tests/harness.sh checks).
RESULTS_ROOT=$W/results
export RESULTS_ROOT

# ok ID, bad ID WHY: a test's line; ID_PREFIX (a subject's own, e.g.
# "output.") goes before every id.
ok() { echo "PASS ${ID_PREFIX:-}$1"; }
bad() { echo "FAIL ${ID_PREFIX:-}$1: $2"; }

# wanted ID: true unless TEST_FILTER is set and ID neither starts with it
# nor is a prefix of it (a loop over cases skips the others' work).
wanted() {
    [ -z "${TEST_FILTER:-}" ] && return 0
    case $1 in "$TEST_FILTER"*) return 0 ;; esac
    case $TEST_FILTER in "$1"*) return 0 ;; esac
    return 1
}

# relay FILE PREFIX: a tool's "PASS name" / "FAIL name: why" lines as
# this subject's, each name given PREFIX (may be empty); FAIL
# PREFIX...ran when it printed none.
relay() {
    grep -q '^PASS \|^FAIL ' "$1" || bad "${2}ran" "$1 holds no result: $(head -c 300 "$1")"
    while read -r verdict rest; do
        case $verdict in
            PASS) ok "$2$rest" ;;
            FAIL) bad "$2${rest%%:*}" "${rest#*: }" ;;
            SKIP) echo "SKIP ${ID_PREFIX:-}$2$rest" ;;
        esac
    done <"$1"
}

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

# with_cache FILE COMMAND...: COMMAND with HISTO_TUNE_FILE=FILE
with_cache() (
    HISTO_TUNE_FILE=$1
    export HISTO_TUNE_FILE
    shift
    "$@"
)

# histo_in_w ARGS...: histo on the test device, run from inside $W (its
# relative paths are $W's).
histo_in_w() {
    if [ -n "$DEVICE" ]; then
        (cd "$W" && exec "$HISTO" --platform "$PLATFORM" --device "$DEVICE" "$@")
    else
        (cd "$W" && exec "$HISTO" --platform "$PLATFORM" "$@")
    fi
}

# ref_counts INPUT OUT.bmp: the sequential reference's BMP and, beside it,
# its raw counters OUT.raw.
ref_counts() { $REF "$1" "$2" "${2%.bmp}.raw"; }

# same_counts GOT.bmp REF.bmp: byte-exact means the raw counters (GOT.raw,
# REF.raw) are equal, and the BMPs too (the BMP writer). On a difference
# $W/last.diff says which bins (histo-validate --raw, the shape from
# GOT.out) or that the counters agree and only the BMP differs; when they
# are equal GOT.bmp and GOT.raw are removed (if under $W).
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
    # a run that passed keeps its histo.out and log, not its 8 MiB of
    # counters and picture (HISTO_TEST_KEEP=1 keeps them too)
    [ -n "${HISTO_TEST_KEEP:-}" ] || case $1 in "$W"/*) rm -f "$1" "${1%.bmp}.raw" ;; esac
}

# exact ID OUT REF.bmp WANT HISTO-ARGS...: histo with HISTO-ARGS, 3
# iterations (state left over from one would show), into OUT.bmp,
# OUT.raw and OUT.out, must give REF's counters and BMP, and OUT.out must
# hold the line WANT unless it is empty.
exact() {
    x_id=$1 x_out=$2 x_ref=$3 x_want=$4
    shift 4
    if ! run_histo "$@" -o "$x_out.bmp" --timing "$x_out.out" -- "${X_ITERS:-3}" \
            >"$x_out.log" 2>&1; then
        bad "$x_id" "histo failed: $(tail -n 3 "$x_out.log")"
    elif [ -n "$x_want" ] && ! grep -q "^$x_want$" "$x_out.out"; then
        bad "$x_id" "histo.out lacks '$x_want'"
    elif same_counts "$x_out.bmp" "$x_ref"; then
        ok "$x_id"
    else
        bad "$x_id" "$(cat "$W/last.diff")"
    fi
}

# fence_mismatch OUT: "" where the fused run's OUT.out was built as its
# config.fence says (src/device.h: OpenCL C 3.0 or 2.0 with
# HISTO_FENCE=1, NVIDIA's PTX with 2 or 3, mem_fence with 1.2 and 0), else
# what differs.
fence_mismatch() {
    f_fence=$(sed -n 's/^config\.fence = //p' "$1.out")
    f_opts=$(sed -n 's/^build\.options = //p' "$1.out")
    case $f_fence in
        *"OpenCL C 3.0"*) f_want="-cl-std=CL3.0 HISTO_FENCE=1" ;;
        *"OpenCL C 2.0"*) f_want="-cl-std=CL2.0 HISTO_FENCE=1" ;;
        *"NVIDIA PTX membar.gl"*) f_want="-cl-std=CL1.2 HISTO_FENCE=2" ;;
        *"NVIDIA PTX red.release"*) f_want="-cl-std=CL1.2 HISTO_FENCE=3" ;;
        work-item*) f_want="-cl-std=CL1.2 HISTO_FENCE=0" ;;
        *) echo "config.fence is '$f_fence'"; return ;;
    esac
    case "$f_opts " in
        "${f_want%% *} "*" -D${f_want#* } "*) ;;
        *) echo "config.fence '$f_fence' but build.options '$f_opts'" ;;
    esac
}

# expect NAME STATUS PATTERN [command...]: exit status, stderr matching
# PATTERN, and none of $W/x.bmp, x.out, x.raw left behind.
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

# The correctness inputs: name, generator arguments (seed 7), the batch
# counts device.sh tries ("default" lets histo choose B from the device).
# band_255 puts 255 values in 1,024 bins and 256 in 3,076, in the width
# h100x37 has: each histogram width is a kernel build of its own.
CASES='
gauss      --image 996x1040                                   default 1 3 16
uniform    --dist uniform --image 512x512                     default 1 5
twoeye     --dist twoeye --image 600x600 --row-sigma 30       default 2 7
first_row  --image 500x500 --row-mean 0 --row-sigma 40        default 3
last_row   --image 500x500 --row-mean 8191 --row-sigma 40     default 3
one_bin    --dist onebin --image 1000x1000 --bin 1048577      default 1 4
one_value  --dist onebin --image 1x1 --bin 7                  default 1 8
h100x37    --image 640x480 --histo 100x37 --row-mean 18 --row-sigma 5 --col-mean 50 --col-sigma 20 default 1 3
band_255   --dist sweep --image 1024x1024 --histo 100x41      default 1 3
band_sweep --dist sweep --image 700x900 --bin 12345           default 2
wide_rows  --dist uniform --image 400x400 --histo 1000000x2   default 2
one_bin_h  --dist onebin --image 300x200 --histo 1x1          default 3
no_eye     --image 800x800 --row-sigma 3000 --outliers 200000 default 4
one_bin_16m --dist onebin --image 4096x4096 --bin 1000000     default
band_16m   --dist sweep --image 4096x4096 --bin 1048576 --span 65600 default
'
# case_names: the cases' names, one a line.
case_names() { echo "$CASES" | awk 'NF { print $1 }'; }
# case_gen NAME: its generator arguments.
case_gen() {
    echo "$CASES" | awk -v n="$1" '$1 == n { sub(/^[^ ]+ +/, ""); sub(/ +default.*$/, ""); print }'
}
# case_batches NAME: the batch counts to try.
case_batches() { echo "$CASES" | awk -v n="$1" '$1 == n { sub(/^.* default/, "default"); print }'; }

# make_input NAME GEN-ARGS...: $INPUTS/NAME.bin and its reference
# NAME.ref.bmp / NAME.ref.raw, unless there; FAIL gen.NAME or ref.NAME
# and status 1 when they cannot be made.
make_input() {
    name=$1
    shift
    [ -s "$INPUTS/$name.ref.raw" ] && return 0
    # another subject may be making it now: one makes it, the others wait
    input_lock "$name"
    m_status=0
    if [ -s "$INPUTS/$name.ref.raw" ]; then
        :
    elif ! $GEN -o "$INPUTS/$name.bin" "$@" >/dev/null 2>"$W/$name.gen.err"; then
        bad "gen.$name" "$(cat "$W/$name.gen.err")"
        m_status=1
    elif ! ref_counts "$INPUTS/$name.bin" "$INPUTS/$name.ref.bmp" 2>"$W/$name.ref.err"; then
        bad "ref.$name" "$(cat "$W/$name.ref.err")"
        m_status=1
    fi
    input_unlock "$name"
    return $m_status
}

# input_lock NAME, input_unlock NAME: NAME's lock in $INPUTS (a folder,
# made by one process at a time), for inputs several subjects make.
input_lock() {
    until mkdir "$INPUTS/.$1.lock" 2>/dev/null; do sleep 0.1; done
}
input_unlock() { rmdir "$INPUTS/.$1.lock"; }

# need_case NAME: the correctness input NAME ($INPUTS/NAME.bin, .ref.bmp,
# .ref.raw).
need_case() {
    # shellcheck disable=SC2046 # the generator arguments are words
    make_input "$1" --seed 7 $(case_gen "$1")
}

# need_gz: $INPUTS/gz.bin (700x700, seed 3), its gzip form gz.bin.gz and
# its reference gz.ref.bmp / gz.ref.raw.
need_gz() {
    make_input gz --seed 3 --image 700x700 || return 1
    [ -s "$INPUTS/gz.bin.gz" ] && return 0
    input_lock gz.gzip
    [ -s "$INPUTS/gz.bin.gz" ] \
        || { $GEN -o "$INPUTS/gz.tmp.gz" --gzip --seed 3 --image 700x700 >/dev/null \
             && mv "$INPUTS/gz.tmp.gz" "$INPUTS/gz.bin.gz"; }
    input_unlock gz.gzip
}

# need_tune_input: $INPUTS/tune.bin (200x200, seed 5) and its reference.
need_tune_input() { make_input tune --seed 5 --image 200x200; }
