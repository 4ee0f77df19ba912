#!/bin/sh
# validate/harness.sh - the run harness of 116.histo, behind make run,
# make validate, make dataset and make references (docs/harness.md).
#
#   harness.sh dataset SIZE     generate input if missing, check its sha256
#   harness.sh run SIZE         run the dataset's command, validate, report
#   harness.sh check-variables  the make variables, before anything is made
#   harness.sh validate [SIZE]  validate a run again (default: the last one)
#   harness.sh reference SIZE   rewrite output/ from the sequential program
#   harness.sh check-spec SIZE  the dataset's Spec keys agree with each other
#   harness.sh last-run SIZE    the folder of SIZE's last run that passed
#   harness.sh list             the platforms make run sees (make list)
#   harness.sh vendors          the OCL_ICD_VENDORS folder for PLATFORM
#
# Everything about a dataset comes from Spec/benchmark.conf and
# Spec/SIZE.conf. The environment may set PLATFORM and DEVICE (passed to
# histo as --platform / --device), ITERATIONS (replaces the Spec's count;
# such a run is marked not reportable), REPEAT (complete runs whose median
# is the result: 3, or 1 with ITERATIONS), REFERENCE (spec: the ratio's
# reference time is the Spec's; host: sequential C timed here now) and
# RESULTS_LOG (where the JSON line goes instead of the Spec's results_log)
# and RESULTS_ROOT (the folder instead of results/).
#
# Each run writes into a folder of its own, results/SIZE/STAMP-PID-I/ (the
# Spec's output, raw and timing file names, with histo.log), validates
# that folder's files and appends one whole JSON line to the results log
# under a lock (validate/append-line.sh), so that runs started together
# never read or record each other's files. When it completes, PASS or
# FAIL, results/SIZE/last-run names its folder and results/last-run its
# size (each written to a temporary file, then renamed over). An
# interrupted run (SIGINT, SIGTERM, SIGHUP) records nothing, leaves both
# pointers on the previous complete run and exits with 128 + the signal.
#
# Exit status: 0 PASS or done, 1 FAIL or a step failed, 2 usage.
set -u
cd "$(dirname "$0")/.." || exit 1
# The harness chooses the device only through PLATFORM and DEVICE, so that
# the result line and the JSON record say what was asked for.
unset HISTO_PLATFORM HISTO_DEVICE HISTO_KERNEL_DIR

SPEC=Spec
BENCH=$SPEC/benchmark.conf
# Where results go: RESULTS_ROOT (tests set their own folder), else
# results/: each run's folder, the latest/reportable links, last-run and
# the default results log.
RESULTS_ROOT=${RESULTS_ROOT:-results}
. validate/reportable.sh
. validate/record.sh
. validate/system.sh

die() {
    echo "harness: $*" >&2
    exit 1
}

# spec FILE KEY: the value of KEY in FILE (empty if absent).
spec() {
    sed -n "/^$2[[:space:]]*=[[:space:]]*/{s///p;q;}" "$1"
}

# need FILE KEY: like spec, but a missing key is an error.
need() {
    v=$(spec "$1" "$2")
    [ -n "$v" ] || die "$1 has no '$2 = ...' line"
    printf '%s\n' "$v"
}

[ -r "$BENCH" ] || die "cannot read $BENCH"
NAME=$(need "$BENCH" name) || exit 1
DATASETS=$(need "$BENCH" datasets) || exit 1
VALIDATOR=$(need "$BENCH" validator) || exit 1
GEN=$(need "$BENCH" generator) || exit 1
REFPROG=$(need "$BENCH" reference_program) || exit 1
DIGEST_KEY=$(need "$BENCH" digest_key) || exit 1

# load SIZE: reads Spec/SIZE.conf into the d_* variables.
load() {
    size=$1
    case " $DATASETS " in
        *" $size "*) ;;
        *) die "unknown dataset '$size' (Spec/benchmark.conf lists: $DATASETS)" ;;
    esac
    conf=$SPEC/$size.conf
    [ -r "$conf" ] || die "cannot read $conf"
    d_input=$(need "$conf" input) || exit 1
    d_gen=$(need "$conf" generator_args) || exit 1
    d_sha=$(need "$conf" input_sha256) || exit 1
    d_iterations=$(need "$conf" iterations) || exit 1
    d_command=$(need "$conf" command) || exit 1
    d_output=$(need "$conf" output) || exit 1
    d_raw=$(need "$conf" raw) || exit 1
    d_timing=$(need "$conf" timing) || exit 1
    d_reference=$(need "$conf" reference) || exit 1
    d_reference_raw=$(need "$conf" reference_raw) || exit 1
    d_reference_raw_sha=$(need "$conf" reference_raw_sha256) || exit 1
    d_image=$(need "$conf" image) || exit 1
    d_histogram=$(need "$conf" histogram) || exit 1
}

# The Spec repeats a few facts inside the command; they must agree.
check_spec() {
    load "$1"
    bad=""
    case " $d_command " in *" -i $d_input "*) ;; *) bad="$bad input" ;; esac
    case " $d_command " in *" -o $d_output "*) ;; *) bad="$bad output" ;; esac
    case " $d_command " in *" --raw $d_raw "*) ;; *) bad="$bad raw" ;; esac
    case " $d_command " in *" --timing $d_timing "*) ;; *) bad="$bad timing" ;; esac
    case "$d_command" in *" -- $d_iterations") ;; *) bad="$bad iterations" ;; esac
    case " $d_gen " in *" --image $d_image "*) ;; *) bad="$bad image" ;; esac
    case " $d_gen " in *" --histo $d_histogram "*) ;; *) bad="$bad histogram" ;; esac
    case $d_command in ./histo\ *) ;; *) bad="$bad command(must start with ./histo)" ;; esac
    # The digest in histo.out is lowercase hex; so must the Spec's be.
    case $d_reference_raw_sha in
        *[!0-9a-f]*) bad="$bad reference_raw_sha256(not lowercase hex)" ;;
    esac
    [ ${#d_reference_raw_sha} -eq 64 ] || bad="$bad reference_raw_sha256(not 64 digits)"
    [ -z "$bad" ] || die "$conf: the command, generator_args or reference keys disagree with:$bad"
}

# sha256 of the uncompressed content of FILE.
content_sha256() {
    case $1 in
        *.gz) { gzip -dc "$1" || echo "gzip failed"; } | sha256sum ;;
        *) sha256sum <"$1" ;;
    esac | sed 's/[[:space:]].*//'
}

# dataset SIZE: make sure the input exists and holds the committed bytes.
# A stamp in build/ remembers a file already checked, so later runs skip
# the checksum; it is renewed when the Spec's arguments or checksum change.
dataset() {
    check_spec "$1"
    stamp=build/datasets/$1.ok
    want="$d_gen $d_sha"
    if [ -f "$d_input" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] \
        && [ ! "$d_input" -nt "$stamp" ]; then
        return 0
    fi
    mkdir -p build/datasets "$(dirname "$d_input")" || exit 1
    if [ -f "$d_input" ]; then
        got=$(content_sha256 "$d_input")
        if [ "$got" = "$d_sha" ]; then
            echo "$want" >"$stamp"
            return 0
        fi
        echo "harness: $d_input is not the dataset $conf describes (sha256 $got); generating it again" >&2
    fi
    [ -x "$GEN" ] || die "$GEN is missing: run make"
    # Same suffix as the final name (it tells content_sha256 and histo
    # the format) and matched by the same .gitignore pattern; this
    # process's own, so that runs started together each generate theirs
    # and rename it into place whole.
    tmp=$(dirname "$d_input")/tmp-$$-$(basename "$d_input")
    bad=$(dirname "$d_input")/bad-$$-$(basename "$d_input")
    gz=""
    case $d_input in *.gz) gz=--gzip ;; esac
    echo "$NAME $1: generating $d_input ($d_image values; a line at each tenth)" >&2
    # shellcheck disable=SC2086 # generator_args is a list of words
    if ! "$GEN" --progress -o "$tmp" $gz $d_gen; then
        rm -f "$tmp"
        die "$GEN failed for $1"
    fi
    got=$(content_sha256 "$tmp")
    if [ "$got" != "$d_sha" ]; then
        mv -f "$tmp" "$bad"
        die "$GEN wrote a $1 input with sha256 $got, but $conf expects $d_sha (kept as $bad): the generator does not reproduce the committed dataset"
    fi
    mv -f "$tmp" "$d_input" || exit 1
    echo "$want" >"$stamp.$$" && mv -f "$stamp.$$" "$stamp"
    echo "$NAME $1: $d_input generated, sha256 matches $conf" >&2
}

# timing KEY: a value from the run's timing file (empty when absent).
timing() {
    [ -r "$d_timing" ] && sed -n "/^$1 = /{s///p;q;}" "$d_timing"
}

# build_info KEY: how the histo that ran was built, from the binary itself
# (histo --version: cc, compiler, cflags, ldflags, ldlibs).
build_info() {
    [ -n "${build_text:-}" ] || build_text=$(./histo --version 2>/dev/null)
    printf '%s\n' "$build_text" | sed -n "/^$1 = /{s///p;q;}"
}

# verdict SIZE: validates the run's files against the dataset's references
# in three checks, all of which must hold (Spec/benchmark.conf's
# validation rule): the raw counters byte for byte (the result itself),
# the BMP byte for byte (the BMP writer), and the timing file's digest
# against reference_raw_sha256 (what histo says it counted). Sets v_result
# (PASS/FAIL) and v_why (each failed check, "; " between them); the
# validator's lines, which name the first differing bins, are printed.
verdict() {
    v_why=""
    for f in "$d_reference_raw" "$d_reference"; do
        [ -r "$f" ] || add_why "no reference $f (make references SIZE=$1)"
    done
    if [ -n "$v_why" ]; then
        v_result=FAIL
        echo "harness: $v_why" >&2
        return
    fi
    [ -x "$VALIDATOR" ] || die "$VALIDATOR is missing: run make"

    "$VALIDATOR" --raw "$d_histogram" "$d_raw" "$d_reference_raw"
    case $? in
        0) ;;
        1) add_why "raw counters differ from $d_reference_raw" ;;
        3) add_why "raw counters $d_raw missing, unreadable or not $d_histogram counters" ;;
        *) add_why "$VALIDATOR --raw failed" ;;
    esac

    "$VALIDATOR" "$d_output" "$d_reference"
    case $? in
        0) ;;
        1) add_why "BMP differs from $d_reference" ;;
        3) add_why "BMP $d_output missing, unreadable or not a valid BMP" ;;
        *) add_why "$VALIDATOR failed on the BMP" ;;
    esac

    digest=$(timing "$DIGEST_KEY")
    want="sha256:$d_reference_raw_sha"
    if [ -z "$digest" ]; then
        add_why "no $DIGEST_KEY in $d_timing"
    elif [ "$digest" != "$want" ]; then
        add_why "$DIGEST_KEY in $d_timing is $digest, expected $want (reference_raw_sha256)"
    else
        echo "PASS: $DIGEST_KEY in $d_timing is reference_raw_sha256"
    fi

    if [ -z "$v_why" ]; then
        v_result=PASS
    else
        v_result=FAIL
    fi
}

# add_why TEXT: one more reason the run fails.
add_why() {
    v_why="${v_why:+$v_why; }$1"
}

# line_fields: the fields every result line shares, from the timing file
# and the verdict: device (with its platform), note (a count not the
# Spec's) and verdict_text.
line_fields() {
    if [ -n "$device" ]; then
        device="$device ($platform)"
    else
        device="none opened (platform ${PLATFORM:-default}, device ${DEVICE:-default})"
    fi
    note=""
    [ -n "$iters" ] && [ "$iters" != "$d_iterations" ] \
        && note=" (Spec: $d_iterations)"
    verdict_text=$v_result
    [ -n "$v_why" ] && verdict_text="$v_result ($v_why)"
}

# result_line SIZE: the line one run or a re-validation ends with.
result_line() {
    device=$(timing selected.name)
    platform=$(timing selected.platform_name)
    iters=$(timing iterations)
    total=$(timing "$(spec "$BENCH" total_seconds_key)")
    wall=$(timing "$(spec "$BENCH" iterations_seconds_key)")
    per=""
    [ -n "$total" ] && total=$(awk -v t="$total" 'BEGIN { printf "%.3f", t }')
    if [ -n "$iters" ] && [ -n "$wall" ]; then
        per=$(awk -v w="$wall" -v n="$iters" 'BEGIN { printf "%.7f", w / n }')
    fi
    line_fields
    printf '%s %s | %s | %s iterations%s | %s s total | %s s/iteration | %s\n' \
        "$NAME" "$1" "$device" "${iters:-?}" "$note" \
        "${total:--}" "${per:--}" "$verdict_text"
}

# reference_times SIZE: ref_s, the reference seconds per iteration the
# ratio divides (the Spec's reference_seconds_per_iteration, or with
# REFERENCE=host sequential C timed now on this host by build/ref-bench),
# ref_label, what it is, and ref_kind (spec or host).
reference_times() {
    ref_s="" ref_label="" ref_kind=${REFERENCE:-spec}
    case $ref_kind in
        spec)
            ref_s=$(spec "$SPEC/$1.conf" reference_seconds_per_iteration)
            ref_label=$(spec "$SPEC/$1.conf" reference_platform) ;;
        host)
            [ -x build/ref-bench ] || die "build/ref-bench is missing: run make"
            us=$(build/ref-bench "$d_input" 1 | sed -n 's/^reference.median_us = //p')
            [ -n "$us" ] || die "build/ref-bench gave no time for $d_input"
            ref_s=$(awk -v u="$us" 'BEGIN { printf "%.7f", u / 1e6 }')
            ref_label="sequential C, build/ref-bench, this host ($(uname -n)), this run" ;;
        *) usage_error "REFERENCE must be spec or host, not '$REFERENCE'" ;;
    esac
}

# usage_error TEXT: a harness variable is wrong; nothing is run (exit 2).
usage_error() {
    echo "harness: $*" >&2
    exit 2
}

# check_variables: make variables given on the command line
# ($HISTO_MAKE_VARS, from the GNUmakefile) that spell one of histo's
# options but are not the harness's (PLATFORM, DEVICE, STRATEGY) are
# refused: the harness would not pass them, and a run that silently
# ignored BATCHES=4 would be recorded as if it had used it.
# Then the values of the harness's own, so that a typo fails before a
# dataset is made, a results folder created or anything is run: STRATEGY
# one of histo's, ITERATIONS and REPEAT whole numbers, REFERENCE spec or
# host, and RESULTS_LOG and RESULTS_ROOT places a file can be created in.
check_variables() {
    if [ -n "${HISTO_MAKE_VARS:-}" ]; then
        options=$(./histo --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u)
        for v in $HISTO_MAKE_VARS; do
            case $v in PLATFORM | DEVICE | STRATEGY) continue ;; esac
            opt=--$(printf '%s' "$v" | tr 'A-Z_' 'a-z-')
            if printf '%s\n' "$options" | grep -qx -- "$opt"; then
                usage_error "$v is not a harness variable: the harness does not pass histo's $opt (its variables: SIZE, PLATFORM, DEVICE, STRATEGY, ITERATIONS, REPEAT, REFERENCE, RESULTS_LOG, RESULTS_ROOT, SYSTEM; knobs come from the tune cache, which makes a run peak)"
            fi
        done
    fi
    if [ -n "${STRATEGY:-}" ] && [ "$STRATEGY" != auto ]; then
        known=$(./histo --list-strategies)
        printf '%s\n' "$known" | grep -qx -- "$STRATEGY" \
            || usage_error "STRATEGY must be one of histo's strategies (auto, $(printf '%s' "$known" | tr '\n' ' ' | sed 's/ /, /g')), not '$STRATEGY'"
    fi
    # whole numbers as histo reads its variables (histo --help,
    # "Environment"): digits alone, leading zeros allowed
    if [ -n "${ITERATIONS:-}" ]; then
        ITERATIONS=$(whole "$ITERATIONS" 1 1000000000) \
            || usage_error "ITERATIONS must be a whole number from 1 to 1000000000, not '$ITERATIONS'"
    fi
    if [ -n "${REPEAT:-}" ]; then
        REPEAT=$(whole "$REPEAT" 1 100) \
            || usage_error "REPEAT must be a whole number from 1 to 100, not '$REPEAT'"
    fi
    case ${REFERENCE:-spec} in
        spec | host) ;;
        *) usage_error "REFERENCE must be spec or host, not '$REFERENCE'" ;;
    esac
    writable_place RESULTS_ROOT "$RESULTS_ROOT/.probe"
    [ -z "${RESULTS_LOG:-}" ] || writable_place RESULTS_LOG "$RESULTS_LOG"
    # the system description (validate/system.sh): read now, before any
    # work, so that a file that is wrong costs nothing
    system_check
}

# whole TEXT LO HI: TEXT as a whole number without leading zeros, when it
# is digits alone from LO to HI; else status 1
whole() {
    case $1 in '' | *[!0-9]*) return 1 ;; esac
    w_v=$(printf '%s' "$1" | sed 's/^0*//')
    [ ${#w_v} -le 12 ] || return 1
    w_v=${w_v:-0}
    [ "$w_v" -ge "$2" ] && [ "$w_v" -le "$3" ] || return 1
    printf '%s\n' "$w_v"
}

# writable_place NAME PATH: PATH can be appended to, or created: its
# folder is made if missing and a file is made and removed in it.
writable_place() {
    if [ -e "$2" ]; then
        { [ -f "$2" ] && [ -w "$2" ]; } \
            || usage_error "$1: '$2' is not a regular file histo's harness can append to"
        return 0
    fi
    w_dir=$(dirname "$2")
    mkdir -p "$w_dir" 2>/dev/null \
        || usage_error "$1: cannot create the folder '$w_dir' for '$2'"
    w_probe=$(mktemp "$w_dir/.harness-probe.XXXXXX" 2>/dev/null) \
        || usage_error "$1: cannot create files in '$w_dir' (for '$2')"
    rm -f "$w_probe"
}

# vendors: which OpenCL implementations histo sees. The user's own
# OCL_ICD_VENDORS wins. Otherwise the system's, so that PLATFORM=N is
# the platform ./histo --list calls N; the extra implementations of make
# platforms ($HISTO_EXTRA_VENDORS: Intel's CPU runtime, Oclgrind) only
# when PLATFORM is a name that none of the system's platforms has.
vendors() {
    [ -z "${OCL_ICD_VENDORS:-}" ] || return 0
    extra=${HISTO_EXTRA_VENDORS:-}
    [ -n "$extra" ] && [ -d "$extra" ] || return 0
    case ${PLATFORM:-} in '' | *[!0-9]*) ;; *) return 0 ;; esac
    [ -n "${PLATFORM:-}" ] || return 0
    if ! platform_names | grep -qiF -- "$PLATFORM"; then
        OCL_ICD_VENDORS=$extra
        export OCL_ICD_VENDORS
    fi
}

# platform_names: "NAME (VENDOR" of each platform histo --list shows.
platform_names() {
    ./histo --list 2>/dev/null | sed -n 's/^platform [0-9]*: \([^,]*\), .*/\1/p'
}

# list: the platforms and devices make run sees, by index, and those it
# reaches by name only.
list() {
    echo "make run PLATFORM=N (the indexes of ./histo --list):"
    ./histo --list || exit 1
    extra=${HISTO_EXTRA_VENDORS:-}
    [ -z "${OCL_ICD_VENDORS:-}" ] && [ -n "$extra" ] && [ -d "$extra" ] || return 0
    platform_names >"${TMPDIR:-/tmp}/histo-list.$$"
    echo "make run PLATFORM=NAME only (make platforms' implementations, $extra):"
    OCL_ICD_VENDORS=$extra ./histo --list | awk -v known="${TMPDIR:-/tmp}/histo-list.$$" '
        BEGIN { while ((getline l < known) > 0) have[l] = 1 }
        /^platform / { n = $0; sub(/^platform [0-9]*: /, "", n); sub(/, .*/, "", n)
                       show = !(n in have); if (show) { sub(/^platform [0-9]*: /, "platform NAME: ") } }
        show { print }'
    rm -f "${TMPDIR:-/tmp}/histo-list.$$"
}

# device_kind: kind (hardware, software or simulator) and kind_why of the
# device the timing file names. A simulator's times measure the
# simulator; a software device is the host CPU behind a GPU's interface.
device_kind() {
    kind=hardware kind_why=""
    case $(timing selected.platform_name) in
        *[Oo]clgrind*)
            kind=simulator
            kind_why="Oclgrind interprets every work-item in software: its times are the simulator's, not a device's" ;;
    esac
    case $(timing selected.name) in
        *llvmpipe* | *lavapipe* | *[Ss]wift[Ss]hader*)
            kind=software
            kind_why="$(timing selected.name) is a software renderer running on the host CPU, typed $(timing selected.type)" ;;
    esac
}

# knobs: tuning (base or peak) and knobs_why from the timing file and the
# environment: base is histo's defaults (the device's default strategy,
# asked for or not, no tune cache line, no --batches/--tile-rows/
# --replicas, no extra kernel options); anything else is peak, as SPEC's
# base and peak metrics mean, recorded in full. Either can be reportable.
knobs() {
    knobs_why=""
    req=$(timing strategy.requested)
    from=$(timing config.knobs_from)
    [ -n "$req" ] && [ "$req" != auto ] && [ "$req" != "$(timing strategy.default)" ] \
        && knobs_why="strategy $req requested (the device's default: $(timing strategy.default))"
    # knobs from the tune cache (or --tune) make a run peak unless they
    # are histo's defaults (0 each: the strategy decides), which change
    # nothing
    k_values="batches $(timing config.knobs.batches), tile_rows $(timing config.knobs.tile_rows), replicas $(timing config.knobs.replicas)"
    if [ -n "$from" ] && [ "$from" != default ] \
       && [ "$k_values" != "batches 0, tile_rows 0, replicas 0" ]; then
        case $from in
            "tune cache "*) k_from="the tune cache ${from#tune cache }" ;;
            *) k_from=$from ;;
        esac
        knobs_why="${knobs_why:+$knobs_why, }knobs from $k_from ($k_values)"
    fi
    # the environment variables that change the kernels, a plan or a
    # hook (histo's table: histo --help, "Environment"), with their values
    for v in $(timing environment.peak); do
        [ "$v" = none ] || knobs_why="${knobs_why:+$knobs_why, }$v=$(timing "environment.$v")"
    done
    tuning=base
    [ -z "$knobs_why" ] || tuning=peak
}

# run_once SIZE LABEL DIR COMMAND PATH: one run of COMMAND (the Spec's,
# its output, raw and timing paths moved into DIR), validated; sets
# histo_status, v_result, v_why and per (seconds per iteration), puts its
# fields at PATH of the record (validate/record.sh) and prints its lines.
# LABEL: "warm-up" or "run I of N".
run_once() {
    run_label=$2 run_dir=$3 run_path=$5
    d_output=$run_dir/$(basename "$spec_output")
    d_raw=$run_dir/$(basename "$spec_raw")
    d_timing=$run_dir/$(basename "$spec_timing")
    # The Spec's command is a list of plain words (no quotes, no globs);
    # its output, raw and timing paths become this run's.
    set -f
    # shellcheck disable=SC2086
    set -- $4
    set +f
    for word do
        shift
        case $word in
            "$spec_output") word=$d_output ;;
            "$spec_raw") word=$d_raw ;;
            "$spec_timing") word=$d_timing ;;
        esac
        set -- "$@" "$word"
    done
    program=$1
    shift
    [ -n "${STRATEGY:-}" ] && set -- --strategy "$STRATEGY" "$@"
    [ -n "${DEVICE:-}" ] && set -- --device "$DEVICE" "$@"
    [ -n "${PLATFORM:-}" ] && set -- --platform "$PLATFORM" "$@"
    shown=$program
    for word in "$@"; do
        case $word in
            *[!A-Za-z0-9_./=:+-]* | '') shown="$shown '$word'" ;;
            *) shown="$shown $word" ;;
        esac
    done

    mkdir -p "$run_dir" || exit 1
    log=$run_dir/histo.log
    echo "$NAME $size: $run_label: $shown"
    # histo's console output goes to the log; its progress lines (about
    # one every 10 s when its stderr is not a terminal) also to the screen
    # as each comes: read a line at a time by the shell, which, unlike
    # awk reading a pipe, holds nothing back.
    rm -f "$run_dir/status"
    { "$program" "$@" 2>&1; echo "$?" >"$run_dir/status"; } | tee "$log" \
        | while IFS= read -r p_line; do
              case $p_line in
                  "histo: iteration "[0-9]*" of "[0-9]*) printf '  %s\n' "$p_line" >&2 ;;
              esac
          done
    histo_status=$(cat "$run_dir/status" 2>/dev/null)
    rm -f "$run_dir/status"
    [ -n "$histo_status" ] || histo_status=$((128 + ${caught:-9}))
    if [ -z "$caught" ] && [ "$histo_status" -gt 128 ]; then
        caught=$((histo_status - 128))
    fi
    interrupted
    if [ "$histo_status" -ne 0 ]; then
        sed 's/^/  /' "$log" | tail -n 20
        v_result=FAIL v_why="histo exited with status $histo_status$(exit_meaning "$histo_status")"
    else
        verdict "$size"
    fi
    interrupted
    printf '%s: ' "$run_label"
    result_line "$size"
    # the run's fields in the record (its path: warmup or run_list.I)
    rec_put s "$run_path.run" "$run_label"
    rec_put s "$run_path.run_dir" "$run_dir"
    rec_put n "$run_path.histo_status" "$histo_status"
    rec_put s "$run_path.result" "$v_result"
    rec_put s "$run_path.why" "$v_why"
    rec_put n "$run_path.iterations" "$iters"
    rec_put n "$run_path.total_s" "$(timing time.total_s)"
    rec_put n "$run_path.iterations_wall_s" "$(timing time.iterations_wall_s)"
    rec_put n "$run_path.s_per_iteration" "$per"
    rec_put z "$run_path.timed_by" "$(timing iteration.timed_by)"
}

# exit_meaning STATUS: what histo's exit status means (src/error.h).
exit_meaning() {
    case $1 in
        1) echo " (internal error)" ;;
        2) echo " (usage error)" ;;
        3) echo " (input error)" ;;
        4) echo " (OpenCL platform, device, build or run error)" ;;
        5) echo " (output not written)" ;;
        6) echo " (its own check found wrong counters)" ;;
    esac
}

# env_fields: the environment that changes what OpenCL and histo do, as
# the record's env object (the ICD loader's, PoCL's, Mesa's, NVIDIA's,
# Intel's, Oclgrind's and histo's own variables; the harness's plumbing
# left out). The names come from jq, which sees the environment whole (a
# value may hold newlines); each value from the shell, byte for byte.
env_fields() {
    rec_put j env '{}'
    for e_name in $(jq -n -r '$ENV | keys[]
            | select(test("\\A(OCL_ICD_|OPENCL_|POCL_|RUSTICL_|MESA_|GALLIUM_|LP_|CUDA_|NVIDIA_|__GL_|INTEL_|SYCL_|ZE_|OCLGRIND_|CL_|HISTO_)[A-Za-z0-9_]*\\z"))'); do
        case $e_name in HISTO_MAKE_VARS | HISTO_EXTRA_VENDORS | HISTO_OCL_DIR) continue ;; esac
        eval "e_value=\${$e_name-}"
        rec_put s "env.$e_name" "$e_value"
    done
}

# busy_cores CORES: how many of the CORES were busy (not idle, not waiting
# for I/O) over half a second, from /proc/stat's totals; nothing where it
# cannot be read
busy_cores() {
    b_a=$(sed -n 's/^cpu  *//p' /proc/stat 2>/dev/null)
    sleep 0.5
    b_b=$(sed -n 's/^cpu  *//p' /proc/stat 2>/dev/null)
    [ -n "$b_a" ] && [ -n "$b_b" ] || return 0
    printf '%s\n%s\n' "$b_a" "$b_b" | awk -v c="$1" '
        # user nice system idle iowait irq softirq steal; guest and
        # guest_nice, after them, are already in user and nice
        { t[NR] = 0; for (i = 1; i <= 8 && i <= NF; ++i) t[NR] += $i
          idle[NR] = $4 + $5 }
        END { dt = t[2] - t[1]; if (dt > 0 && c > 0)
                  printf "%.2f", (dt - (idle[2] - idle[1])) / dt * c }'
}

# os_name: the distribution's name and version (/etc/os-release).
os_name() {
    if [ -r /etc/os-release ]; then
        (. /etc/os-release && printf '%s\n' "${PRETTY_NAME:-$NAME}")
    else
        uname -s
    fi
}

run() {
    check_spec "$1"
    # ITERATIONS, REPEAT and the rest are checked there
    check_variables
    [ -r "$d_input" ] || die "$d_input is missing: make dataset SIZE=$1"
    command=$d_command
    [ -z "${ITERATIONS:-}" ] || command="${command% -- *} -- $ITERATIONS"
    spec_output=$d_output spec_raw=$d_raw spec_timing=$d_timing
    # REPEAT complete runs, each validated: 3 for a reportable result, 1
    # for a quick check with ITERATIONS
    repeat=${REPEAT:-}
    if [ -z "$repeat" ]; then
        repeat=3
        [ -n "${ITERATIONS:-}" ] && repeat=1
    fi
    vendors
    reference_times "$1"
    # One untimed warm-up first (kernel caches, page cache, clocks), a
    # tenth of the iterations (at least one), validated like the others.
    n=${command##* -- }
    warm_n=$(( (n + 9) / 10 ))
    warm_command="${command% -- *} -- $warm_n"
    # A signal waits for histo (which removes its own unfinished outputs)
    # or the validator to end; then the run stops, recording nothing.
    caught=""
    trap 'caught=${caught:-2}' INT
    trap 'caught=${caught:-15}' TERM
    trap 'caught=${caught:-1}' HUP
    base_dir=$RESULTS_ROOT/$1/$(date -u +%Y%m%dT%H%M%SZ)-$$
    mkdir -p "$base_dir" || exit 1
    # the runs' fields, put as each run ends (validate/record.sh), after
    # the result's own in the record
    runs_fields=$base_dir/runs.fields
    rec_start "$runs_fields"
    runs="" all_result=PASS all_why="" first_status=0 info="" attempted=0
    commands=""
    # fail_run REASON: this run failed; the result fails with it.
    fail_run() {
        all_result=FAIL
        all_why="${all_why:+$all_why; }$1"
        [ "$first_status" -ne 0 ] || first_status=$histo_status
    }
    # the machine's load as the run begins, for the noise rule, before
    # its own processes: the 1-minute average, which lags a load begun
    # in the last minute (24 busy loops begun 20 s before on 16 cores
    # read 7.1), and the cores busy over the last half second
    # (/proc/stat), which does not; and its cores
    load_before=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null)
    cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null)
    busy_before=$(busy_cores "${cores:-0}")
    run_once "$1" warm-up "$base_dir/warmup" "$warm_command" warmup
    rec_put j run_list '[]'
    [ -r "$d_timing" ] && info=$d_timing
    [ "$v_result" = PASS ] || fail_run "warm-up: $v_why"
    stop=""
    case $histo_status in 2 | 4) stop="warm-up" ;; esac
    # a run that will take over a minute ($HARNESS_ESTIMATE_S seconds, for
    # the tests) says so first, from the warm-up's seconds per iteration
    # (cold caches make it an upper estimate)
    if [ -z "$stop" ] && [ -n "$per" ]; then
        awk -v p="$per" -v n="$n" -v r="$repeat" -v name="$NAME $1" \
            -v over="${HARNESS_ESTIMATE_S:-60}" 'BEGIN {
            s = p * n * r
            if (s > over)
                printf "%s: about %s for %d run%s of %d iterations (the warm-up took %.6g s an iteration; each run'"'"'s progress lines give its own estimate)\n",
                    name, s < 90 ? sprintf("%.0f s", s) : s < 5400 ? sprintf("%.0f min", s / 60) : sprintf("%.1f h", s / 3600),
                    r, r == 1 ? "" : "s", n, p
        }' >&2
    fi
    if [ -n "$info" ]; then
        device_kind
        case $kind in
            simulator | software)
                echo "$NAME $1: $(timing selected.name) ($(timing selected.platform_name)) is a $kind: $kind_why" >&2 ;;
        esac
    fi
    i=0
    while [ -z "$stop" ] && [ "$i" -lt "$repeat" ]; do
        i=$((i + 1))
        attempted=$i
        label="run $i of $repeat"
        [ "$repeat" -gt 1 ] || label="run 1 of 1"
        run_once "$1" "$label" "$base_dir/run-$i" "$command" "run_list.$((i - 1))"
        [ -r "$d_timing" ] && [ -z "$info" ] && info=$d_timing
        if [ "$v_result" = PASS ]; then
            runs="$runs$per $run_dir
"
            commands="$commands$run_dir $shown
"
        else
            fail_run "$([ "$repeat" -gt 1 ] && echo "run $i: ")$v_why"
            case $histo_status in 2 | 4) stop="run $i" ;; esac
        fi
    done
    if [ -n "$stop" ] && [ "$attempted" -lt "$repeat" ]; then
        all_why="$all_why; $((repeat - attempted)) of $repeat runs not attempted after the $stop's status $first_status"
    fi
    # the median over the runs that passed, and the run that has it (the
    # lower of the two middle ones for an even count)
    set -- $(printf '%s' "$runs" | sort -g | awk '
        { t[NR] = $1; d[NR] = $2 }
        END {
            if (NR == 0) { print "- - - -"; exit }
            m = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
            printf "%.7f %.7f %.7f %s\n", m, t[1], t[NR], d[int((NR + 1) / 2)]
        }')
    median=$1 fastest=$2 slowest=$3 median_dir=$4
    passed=$(printf '%s' "$runs" | grep -c .)
    [ "$median" = - ] && median="" fastest="" slowest="" median_dir=""
    # A result that failed has no time: its passing runs' times stay in
    # run_list, never as the result's.
    [ "$all_result" = PASS ] || median="" fastest="" slowest=""
    load_after=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null)
    # the median run's command, and how far apart the runs were
    [ -z "$median_dir" ] || shown=$(printf '%s' "$commands" \
        | awk -v d="$median_dir" 'index($0, d " ") == 1 { print substr($0, length(d) + 2); exit }')
    spread=""
    [ -n "$fastest" ] && [ "$passed" -gt 1 ] \
        && spread=$(awk -v a="$fastest" -v b="$slowest" 'BEGIN { if (a > 0) printf "%.3f", b / a }')
    if [ -n "$median_dir" ]; then
        info=$median_dir/$(basename "$spec_timing")
    fi
    d_timing=${info:-/nonexistent}
    ratio=""
    [ -n "$ref_s" ] && [ -n "$median" ] && [ "$all_result" = PASS ] \
        && ratio=$(awk -v r="$ref_s" -v m="$median" 'BEGIN { printf "%.2f", r / m }')
    v_result=$all_result v_why=$all_why
    kind="" kind_why="" tuning="" knobs_why=""
    if [ -n "$info" ]; then
        device_kind
        knobs
    fi

    # which source ran: the commit and host sources' digest the binary
    # names, modified as git sees it (tools/provenance.sh): true, false,
    # or unknown where git cannot see the tree
    set -- $(sh tools/provenance.sh ./histo)
    commit=$1 modified=$2 sources=$3
    set -- "$size"
    env_not_reportable=$(timing environment.not_reportable)
    # the host, for the record's fields and the system description's
    host_os=$(os_name)
    host_kernel=$(uname -srm)
    host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | sed -n 1p)
    # Reportable, as runspec means it: every condition holds.
    nr=$(reportable_reasons)
    reportable=true
    [ -z "$nr" ] || reportable=false

    device=$(timing selected.name)
    platform=$(timing selected.platform_name)
    iters=$n
    line_fields
    if [ "$ref_kind" = host ]; then
        ratio_text="host ratio ${ratio:--} (against this host's sequential C)"
        ratio_against="sequential C on this host, timed in this run: not comparable across machines"
    else
        ratio_text="ratio ${ratio:--}"
        ratio_against="the Spec's reference machine: $ref_label"
    fi
    # energy per iteration where the device has a counter (histo.out's
    # energy.*, the median run's)
    ej=$(timing energy.joules_per_iteration)
    if [ -n "$ej" ] && [ -n "$median" ]; then
        ratio_text="$ratio_text | $(awk -v j="$ej" 'BEGIN { printf "%.3f", j * 1e3 }') mJ/iteration ($(timing energy.source))"
    fi
    if [ "$reportable" = true ]; then
        report_text=reportable
    else
        report_text="not reportable: $(printf '%s\n' "$nr" | awk '{ printf "%s%s", (NR > 1 ? "; " : ""), $0 }')"
    fi
    result_text=$(printf '%s %s | %s | %s iterations%s | %s of %s run%s passed | median %s s/iteration, host wall (min %s, max %s) | %s | %s | %s | %s\n' \
        "$NAME" "$size" "$device" "$n" "$note" "$passed" "$repeat" \
        "$([ "$repeat" -eq 1 ] || echo s)" "${median:--}" "${fastest:--}" \
        "${slowest:--}" "$ratio_text" "${tuning:-base}${knobs_why:+: $knobs_why}" "$verdict_text" "$report_text")

    results_log=${RESULTS_LOG:-$RESULTS_ROOT/$(basename "$(spec "$BENCH" results_log)")}
    mkdir -p "$(dirname "$results_log")" || exit 1
    rec_start "$base_dir/record.fields"
    rec_put s time "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    rec_put s benchmark "$NAME"
    rec_put s dataset "$size"
    rec_put s result "$v_result"
    rec_put s why "$v_why"
    rec_put b reportable "$reportable"
    rec_put j not_reportable '[]'
    r_i=0
    while IFS= read -r r_line; do
        [ -n "$r_line" ] || continue
        rec_put s "not_reportable.$r_i" "$r_line"
        r_i=$((r_i + 1))
    done <<EOF_REASONS
$nr
EOF_REASONS
    rec_put z tuning "$tuning"
    rec_put z knobs_why "$knobs_why"
    rec_put s validation "raw counters byte-exact against $d_reference_raw, BMP byte-exact against $d_reference, $DIGEST_KEY = sha256:$d_reference_raw_sha (Spec/benchmark.conf: validation)"
    rec_put z digest "$(timing "$DIGEST_KEY")"
    rec_put z platform "$(timing selected.platform_name)"
    rec_put z device "$(timing selected.name)"
    rec_put z device_type "$(timing selected.type)"
    rec_put z device_kind "$kind"
    rec_put z device_kind_why "$kind_why"
    rec_put z driver "$(timing selected.driver)"
    rec_put z platform_version "$(timing "platform.$(timing selected.platform).version")"
    rec_put z device_version "$(timing selected.version)"
    rec_put n device_memory_bytes "$(timing selected.global_mem_bytes)"
    rec_put z strategy "$(timing strategy)"
    rec_put z strategy_requested "$(timing strategy.requested)"
    rec_put z knobs_from "$(timing config.knobs_from)"
    rec_put n knobs.batches "$(timing config.knobs.batches)"
    rec_put n knobs.tile_rows "$(timing config.knobs.tile_rows)"
    rec_put n knobs.replicas "$(timing config.knobs.replicas)"
    rec_put z knobs.cl_options "${HISTO_CL_OPTIONS:-}"
    rec_put n iterations "$n"
    rec_put n spec_iterations "$d_iterations"
    rec_put n runs "$repeat"
    rec_put n runs_attempted "$attempted"
    rec_put n runs_passed "$passed"
    rec_put n s_per_iteration "$median"
    rec_put n s_per_iteration_min "$fastest"
    rec_put n s_per_iteration_max "$slowest"
    rec_put n spread "$spread"
    rec_put n spread_max "$SPREAD_MAX"
    rec_put n load_before "$load_before"
    rec_put n load_after "$load_after"
    rec_put n busy_before "$busy_before"
    rec_put s reference_kind "$ref_kind"
    rec_put n reference_s_per_iteration "$ref_s"
    rec_put s reference "$ref_label"
    rec_put n ratio "$ratio"
    rec_put s ratio_against "$ratio_against"
    rec_put n iteration_device_median_us "$(timing iteration.device.median_us)"
    rec_put n iteration_host_median_us "$(timing iteration.host.median_us)"
    rec_put z energy_source "$(timing energy.source)"
    rec_put n energy_j_per_iteration "$(timing energy.joules_per_iteration)"
    rec_put n energy_mean_watts "$(timing energy.mean_watts)"
    rec_put n energy_idle_watts "$(timing energy.idle_watts)"
    rec_put z energy_reason "$(timing energy.reason)"
    rec_put z timed_by "$(timing iteration.timed_by)"
    rec_put n total_s "$(timing time.total_s)"
    rec_put n iterations_wall_s "$(timing time.iterations_wall_s)"
    rec_put n histo_status "$first_status"
    rec_put s command "$shown"
    rec_put s host "$(uname -n)"
    rec_put s os "$host_os"
    rec_put s kernel "$host_kernel"
    rec_put n memory_bytes "$(awk '/^MemTotal:/ { printf "%.0f", $2 * 1024 }' /proc/meminfo 2>/dev/null)"
    rec_put s cpu_model "$host_cpu"
    rec_put n cpu_cores "$cores"
    rec_put s compiler "$(build_info compiler)"
    rec_put s cc "$(build_info cc)"
    rec_put s cflags "$(build_info cflags)"
    rec_put s ldflags "$(build_info ldflags)"
    rec_put s ldlibs "$(build_info ldlibs)"
    rec_put s flags_description flags.md
    rec_put z build_options "$(timing build.options)"
    rec_put z kernel_sources "$(timing build.kernel_sources)"
    rec_put s host_sources "$sources"
    env_fields
    system_fields
    rec_put s commit "$commit"
    rec_modified "$modified"
    rec_put s result_dir "$base_dir"
    rec_put z run_dir "$median_dir"
    phase_fields
    cat "$runs_fields" >>"$rec_file" || exit 1
    outputs_once
    # A record that cannot be made costs nothing of the run: its folder
    # stays, with the fields that were to make it, and the status is 1.
    record=$(rec_json) || {
        echo "harness: could not make the record of $base_dir: $record (the fields: $rec_file)" >&2
        exit 1
    }
    rm -f "$rec_file" "$runs_fields"
    interrupted
    # the folder stands alone: what the flags mean is copied in, as the
    # Markdown and as a page
    cp docs/flags.md "$base_dir/flags.md" || die "could not copy docs/flags.md into $base_dir"
    awk -v title="Flags of $NAME" -f validate/md.awk docs/flags.md >"$base_dir/flags.html" \
        || die "could not write $base_dir/flags.html"
    printf '%s\n' "$record" >"$base_dir/result.json" || exit 1
    sh validate/result.sh csv "$base_dir/result.json" >"$base_dir/result.csv" \
        || die "could not write $base_dir/result.csv"
    for f in txt html; do
        sh validate/result.sh "$f" "$base_dir/result.json" >"$base_dir/result.$f" \
            || die "could not write $base_dir/result.$f"
        link "$RESULTS_ROOT/$size/latest.$f" "$(basename "$base_dir")/result.$f"
        [ "$reportable" = false ] \
            || link "$RESULTS_ROOT/$size/reportable.$f" "$(basename "$base_dir")/result.$f"
    done
    printf '%s\n' "$record" | sh validate/append-line.sh "$results_log" \
        || die "could not append the record to $results_log"
    echo "$NAME $size: result files: $base_dir/result.txt, $base_dir/result.html"
    printf '%s\n' "$result_text"
    # Only a run that passed moves the pointers make validate reads.
    if [ "$all_result" = PASS ]; then
        point "$RESULTS_ROOT/$size/last-run" "$(basename "$base_dir")/$(basename "$median_dir")"
        point "$RESULTS_ROOT/last-run" "$size"
    fi
    trap - INT TERM HUP
    [ "$v_result" = PASS ]
}

# phase_fields: the median run's time in each phase (histo.out's time.*,
# seconds), in the order histo spends them
phase_fields() {
    for p_key in input_read opencl_setup program_build upload strategy_setup \
                 iterations_wall download check bmp_write total; do
        rec_put n "phases.${p_key}_s" "$(timing "time.${p_key}_s")"
    done
}

# outputs_once: one copy of the histogram in the result's folder. Every
# other run whose BMP and raw counters are byte for byte the median
# run's (cmp) keeps its histo.out and log, not those copies (files this
# harness had histo write in the run's own new folder); its record says
# whose they equal. Outputs that differ, and a failed result's, stay.
outputs_once() {
    [ -n "$median_dir" ] && [ "$all_result" = PASS ] || return 0
    o_bmp=$(basename "$spec_output") o_raw=$(basename "$spec_raw")
    for o_dir in "$base_dir/warmup" "$base_dir"/run-*; do
        [ -d "$o_dir" ] || continue
        case $o_dir in
            */warmup) o_path=warmup ;;
            *) o_path=run_list.$((${o_dir##*/run-} - 1)) ;;
        esac
        if [ "$o_dir" != "$median_dir" ] && [ -f "$o_dir/$o_bmp" ] && [ -f "$o_dir/$o_raw" ] \
           && cmp -s "$o_dir/$o_bmp" "$median_dir/$o_bmp" \
           && cmp -s "$o_dir/$o_raw" "$median_dir/$o_raw"; then
            rm -f "$o_dir/$o_bmp" "$o_dir/$o_raw"
            rec_put s "$o_path.outputs" "the same bytes as $(basename "$median_dir")'s (cmp): not kept"
        else
            rec_put s "$o_path.outputs" "kept"
        fi
    done
}

# link NAME TARGET: NAME is a symbolic link to TARGET, replaced whole.
link() {
    ln -s "$2" "$1.tmp.$$" && mv -f "$1.tmp.$$" "$1" || die "could not link $1"
}

# interrupted: after a signal (caught), stops the run with nothing recorded
# and the last-run pointers left where they were.
interrupted() {
    [ -n "$caught" ] || return 0
    echo "$NAME $size: interrupted by signal $caught; nothing recorded, $RESULTS_ROOT/last-run unchanged (this run's files: $run_dir)" >&2
    exit $((128 + caught))
}

# point FILE TEXT: FILE holds TEXT, replaced whole (a temporary file beside
# it, renamed over), so that a reader sees the old or the new, never half.
point() {
    printf '%s\n' "$2" >"$1.tmp.$$" && mv -f "$1.tmp.$$" "$1" \
        || die "could not write $1"
}

# last_run SIZE: sets d_output, d_raw and d_timing to SIZE's last complete
# run's files (results/SIZE/last-run names its folder).
last_run() {
    [ -r "$RESULTS_ROOT/$1/last-run" ] || die "no complete run of $1 yet: make run SIZE=$1 first"
    run_dir=$RESULTS_ROOT/$1/$(cat "$RESULTS_ROOT/$1/last-run")
    d_output=$run_dir/$(basename "$d_output")
    d_raw=$run_dir/$(basename "$d_raw")
    d_timing=$run_dir/$(basename "$d_timing")
}

revalidate() {
    size=${1:-}
    if [ -z "$size" ]; then
        [ -r "$RESULTS_ROOT/last-run" ] || die "no run to validate yet: make run first"
        size=$(cat "$RESULTS_ROOT/last-run")
    fi
    load "$size"
    last_run "$size"
    [ -e "$d_output" ] || die "$d_output is missing: make run SIZE=$size first"
    verdict "$size"
    result_line "$size"
    [ "$v_result" = PASS ]
}

# reference SIZE: the dataset's reference BMP and raw counters from the
# sequential program, gzip-compressed. A file whose content is unchanged is
# kept as it is (another gzip may compress the same bytes differently). The
# counters' sha256 must be the Spec's reference_raw_sha256: when it is not,
# the files are still written and the step fails, printing the new value.
reference() {
    dataset "$1" || exit 1
    [ -x "$REFPROG" ] || die "$REFPROG is missing: run make"
    [ -x "$VALIDATOR" ] || die "$VALIDATOR is missing: run make"
    tmp=build/reference-$1.bmp
    tmp_raw=build/reference-$1.raw
    echo "$NAME $1: $REFPROG $d_input $tmp $tmp_raw" >&2
    "$REFPROG" "$d_input" "$tmp" "$tmp_raw" || die "$REFPROG failed for $1"
    publish "$tmp" "$d_reference" "$VALIDATOR"
    publish "$tmp_raw" "$d_reference_raw" "$VALIDATOR" --raw "$d_histogram"
    got=$(content_sha256 "$tmp_raw")
    rm -f "$tmp" "$tmp_raw"
    "$VALIDATOR" --stats "$d_reference"
    if [ "$got" != "$d_reference_raw_sha" ]; then
        die "the counters in $d_reference_raw have sha256 $got, but $conf says reference_raw_sha256 = $d_reference_raw_sha: put the new value there"
    fi
    echo "$NAME $1: $d_reference_raw sha256 matches $conf" >&2
}

# publish NEW DEST COMPARE...: gzip -n -9 NEW into DEST unless COMPARE (a
# validator command line) finds DEST's content already equal to NEW's.
publish() {
    new=$1 dest=$2
    shift 2
    mkdir -p "$(dirname "$dest")" || exit 1
    if [ -r "$dest" ] && "$@" "$new" "$dest" >/dev/null 2>&1; then
        echo "$NAME $size: $dest unchanged" >&2
        return 0
    fi
    # -n: no name or time stamp, so the same content gives the same file.
    gzip -n -9 -c "$new" >"$dest.tmp" || die "gzip failed"
    mv -f "$dest.tmp" "$dest" || exit 1
    echo "$NAME $size: $dest written" >&2
}

usage() {
    sed -n '2,18s/^# \{0,1\}//p' "$0" >&2
    exit 2
}
[ $# -ge 1 ] || usage
step=$1
shift
case $step in
    dataset) [ $# -eq 1 ] || usage; dataset "$1" ;;
    run) [ $# -eq 1 ] || usage; run "$1" ;;
    check-variables) [ $# -eq 0 ] || usage; check_variables ;;
    validate) [ $# -le 1 ] || usage; revalidate "${1:-}" ;;
    reference) [ $# -eq 1 ] || usage; reference "$1" ;;
    check-spec) [ $# -eq 1 ] || usage; check_spec "$1" ;;
    datasets) echo "$DATASETS" ;;
    list) [ $# -eq 0 ] || usage; list ;;
    vendors) [ $# -eq 0 ] || usage; vendors; printf '%s\n' "${OCL_ICD_VENDORS:-}" ;;
    last-run) [ $# -eq 1 ] || usage; load "$1"; last_run "$1"; echo "$run_dir" ;;
    *) echo "harness: unknown step '$step'" >&2; exit 2 ;;
esac
