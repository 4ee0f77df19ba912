#!/bin/sh
# validate/harness.sh - the run harness of 116.histo, behind make run,
# make validate, make dataset and make references (docs/harness.md).
#
#   harness.sh dataset SIZE     generate input if missing, check its sha256
#   harness.sh run SIZE         run the dataset's command, validate, report
#   harness.sh validate [SIZE]  validate a run again (default: the last one)
#   harness.sh reference SIZE   rewrite output/ from the sequential program
#   harness.sh check-spec SIZE  the dataset's Spec keys agree with each other
#   harness.sh last-run SIZE    the folder of SIZE's last complete run
#
# Everything about a dataset comes from Spec/benchmark.conf and
# Spec/SIZE.conf. The environment may set PLATFORM and DEVICE (passed to
# histo as --platform / --device), ITERATIONS (replaces the Spec's count;
# such a run is marked not reportable), REPEAT (complete runs whose median
# is the result: 3, or 1 with ITERATIONS), REFERENCE (spec: the ratio's
# reference time is the Spec's; host: sequential C timed here now) and
# RESULTS_LOG (where the JSON line goes instead of the Spec's results_log).
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

die() {
    echo "harness: $*" >&2
    exit 1
}

# spec FILE KEY: the value of KEY in FILE (empty if absent).
spec() {
    sed -n "s/^$2[[:space:]]*=[[:space:]]*//p" "$1" | sed -n '1p'
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
    echo "$NAME $1: generating $d_input ($d_image values)" >&2
    # shellcheck disable=SC2086 # generator_args is a list of words
    if ! "$GEN" -o "$tmp" $gz $d_gen; then
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
    [ -r "$d_timing" ] && sed -n "s/^$1 = //p" "$d_timing" | sed -n '1p'
}

# build_info KEY: how histo was built (build/build-info, written by make).
build_info() {
    [ -r build/build-info ] && sed -n "s/^$1 = //p" build/build-info | sed -n '1p'
}

json_str() {
    printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g' | tr -d '\000-\037')"
}

# json_num VALUE: the value if it is a plain number, else null.
json_num() {
    case $1 in
        '' | *[!0-9.e+-]*) printf null ;;
        *) printf '%s' "$1" ;;
    esac
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
        && note=" (Spec: $d_iterations, not reportable)"
    verdict_text=$v_result
    [ -n "$v_why" ] && verdict_text="$v_result ($v_why)"
}

# result_line SIZE: the one line a run or re-validation ends with.
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
# and ref_label, what it is.
reference_times() {
    ref_s="" ref_label=""
    case ${REFERENCE:-spec} in
        spec)
            ref_s=$(spec "$SPEC/$1.conf" reference_seconds_per_iteration)
            ref_label=$(spec "$SPEC/$1.conf" reference_platform) ;;
        host)
            [ -x build/ref-bench ] || die "build/ref-bench is missing: run make"
            us=$(build/ref-bench "$d_input" 1 | sed -n 's/^reference.median_us = //p')
            [ -n "$us" ] || die "build/ref-bench gave no time for $d_input"
            ref_s=$(awk -v u="$us" 'BEGIN { printf "%.7f", u / 1e6 }')
            ref_label="sequential C, build/ref-bench, this host ($(uname -n)), this run" ;;
        *) die "REFERENCE must be spec or host, not '$REFERENCE'" ;;
    esac
}

# summary_line SIZE: the line a run ends with: the median seconds per
# iteration over the runs, the fastest and slowest, the ratio to the
# reference time, and the verdict over all the runs.
summary_line() {
    device=$(timing selected.name)
    platform=$(timing selected.platform_name)
    iters=$(timing iterations)
    line_fields
    printf '%s %s | %s | %s iterations%s | %s run%s | median %s s/iteration (min %s, max %s) | ratio %s | %s\n' \
        "$NAME" "$1" "$device" "${iters:-?}" "$note" "$repeat" \
        "$([ "$repeat" -eq 1 ] || echo s)" "$median" "$fastest" "$slowest" \
        "${ratio:--}" "$verdict_text"
}

# run_once SIZE I N: run I of N of the dataset's command ($run_command)
# in a folder of its own, validated; sets run_dir, stamp, histo_status,
# v_result, v_why and per (seconds per iteration) and prints its lines.
run_once() {
    run_i=$2 run_n=$3
    # This run's own folder, and its files there under the Spec's names.
    stamp=$(date -u +%Y%m%dT%H%M%SZ)-$$-$2
    run_dir=results/$1/$stamp
    d_output=$run_dir/$(basename "$spec_output")
    d_raw=$run_dir/$(basename "$spec_raw")
    d_timing=$run_dir/$(basename "$spec_timing")
    # The Spec's command is a list of plain words (no quotes, no globs);
    # its output, raw and timing paths become this run's.
    set -f
    # shellcheck disable=SC2086
    set -- $run_command
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
    echo "$NAME $size: $shown"
    "$program" "$@" >"$log" 2>&1
    histo_status=$?
    if [ -z "$caught" ] && [ "$histo_status" -gt 128 ]; then
        caught=$((histo_status - 128))
    fi
    interrupted
    if [ "$histo_status" -ne 0 ]; then
        sed 's/^/  /' "$log" | tail -n 20
        v_result=FAIL v_why="histo exited with status $histo_status"
    else
        verdict "$size"
    fi
    interrupted
    [ "$run_n" -gt 1 ] && printf 'run %s of %s: ' "$run_i" "$run_n"
    result_line "$size"
}

run() {
    check_spec "$1"
    [ -r "$d_input" ] || die "$d_input is missing: make dataset SIZE=$1"
    command=$d_command
    if [ -n "${ITERATIONS:-}" ]; then
        case $ITERATIONS in
            *[!0-9]* | 0*) die "ITERATIONS must be a positive whole number, not '$ITERATIONS'" ;;
        esac
        command="${command% -- *} -- $ITERATIONS"
    fi
    run_command=$command
    spec_output=$d_output spec_raw=$d_raw spec_timing=$d_timing
    # REPEAT complete runs, each validated: 3 for a reportable result, 1
    # for a quick check with ITERATIONS
    repeat=${REPEAT:-}
    if [ -z "$repeat" ]; then
        repeat=3
        [ -n "${ITERATIONS:-}" ] && repeat=1
    fi
    case $repeat in
        *[!0-9]* | 0*) die "REPEAT must be a positive whole number, not '$repeat'" ;;
    esac
    [ "$repeat" -le 100 ] || die "REPEAT must be at most 100, not $repeat"
    reference_times "$1"
    # A signal waits for histo (which removes its own unfinished outputs)
    # or the validator to end; then the run stops, recording nothing.
    caught=""
    trap 'caught=${caught:-2}' INT
    trap 'caught=${caught:-15}' TERM
    trap 'caught=${caught:-1}' HUP
    runs="" all_result=PASS all_why="" i=0
    while [ "$i" -lt "$repeat" ]; do
        i=$((i + 1))
        run_once "$1" "$i" "$repeat"
        runs="$runs${per:--} $run_dir $histo_status
"
        if [ "$v_result" != PASS ]; then
            all_result=FAIL
            reason=$v_why
            [ "$repeat" -gt 1 ] && reason="run $i: $v_why"
            all_why="${all_why:+$all_why; }$reason"
        fi
    done
    # the median over the runs that have a time, and the run that has it
    # (the lower of the two middle ones for an even count)
    stats=$(printf '%s' "$runs" | awk '$1 != "-"' | sort -g | awk '
        { t[NR] = $1; d[NR] = $2; s[NR] = $3 }
        END {
            if (NR == 0) { print "- - - - 0"; exit }
            m = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
            k = int((NR + 1) / 2)
            printf "%.7f %.7f %.7f %s %s\n", m, t[1], t[NR], d[k], s[k]
        }')
    set -- $stats
    median=$1 fastest=$2 slowest=$3 run_dir=$4 histo_status=$5
    d_timing=$run_dir/$(basename "$spec_timing")
    ratio=""
    [ -n "$ref_s" ] && [ "$median" != - ] \
        && ratio=$(awk -v r="$ref_s" -v m="$median" 'BEGIN { printf "%.2f", r / m }')
    v_result=$all_result v_why=$all_why
    summary_line "$size"


    results_log=${RESULTS_LOG:-$(spec "$BENCH" results_log)}
    mkdir -p "$(dirname "$results_log")" || exit 1
    commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
    modified=false
    [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] && modified=true
    reportable=true
    [ -n "${ITERATIONS:-}" ] && [ "$ITERATIONS" != "$d_iterations" ] && reportable=false
    record=$({
        printf '{"time":%s,' "$(json_str "$(date -u +%Y-%m-%dT%H:%M:%SZ)")"
        printf '"benchmark":%s,"dataset":%s,' "$(json_str "$NAME")" "$(json_str "$size")"
        printf '"result":%s,' "$(json_str "$v_result")"
        printf '"why":%s,' "$(json_str "$v_why")"
        digest=$(timing "$DIGEST_KEY")
        if [ -n "$digest" ]; then
            printf '"digest":%s,' "$(json_str "$digest")"
        else
            printf '"digest":null,'
        fi
        printf '"platform":%s,' "$(json_str "$(timing selected.platform_name)")"
        printf '"device":%s,' "$(json_str "$(timing selected.name)")"
        printf '"device_type":%s,' "$(json_str "$(timing selected.type)")"
        printf '"driver":%s,' "$(json_str "$(timing selected.driver)")"
        printf '"platform_version":%s,' \
            "$(json_str "$(timing "platform.$(timing selected.platform).version")")"
        printf '"device_version":%s,' "$(json_str "$(timing selected.version)")"
        printf '"strategy":%s,' "$(json_str "$(timing strategy)")"
        printf '"iterations":%s,' "$(json_num "$(timing iterations)")"
        printf '"reportable":%s,' "$reportable"
        printf '"total_s":%s,' "$(json_num "$(timing time.total_s)")"
        printf '"iterations_wall_s":%s,' "$(json_num "$(timing time.iterations_wall_s)")"
        printf '"runs":%s,' "$repeat"
        printf '"s_per_iteration":%s,' "$(json_num "$median")"
        printf '"s_per_iteration_min":%s,' "$(json_num "$fastest")"
        printf '"s_per_iteration_max":%s,' "$(json_num "$slowest")"
        printf '"reference_s_per_iteration":%s,' "$(json_num "$ref_s")"
        printf '"reference":%s,' "$(json_str "$ref_label")"
        printf '"ratio":%s,' "$(json_num "$ratio")"
        printf '"iteration_device_median_us":%s,' "$(json_num "$(timing iteration.device.median_us)")"
        printf '"histo_status":%s,' "$histo_status"
        printf '"command":%s,' "$(json_str "$shown")"
        printf '"host":%s,' "$(json_str "$(uname -n)")"
        printf '"cpu_model":%s,' "$(json_str "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | sed -n 1p)")"
        printf '"cpu_cores":%s,' "$(json_num "$(getconf _NPROCESSORS_ONLN 2>/dev/null)")"
        printf '"compiler":%s,' "$(json_str "$(build_info compiler)")"
        printf '"cflags":%s,' "$(json_str "$(build_info cflags)")"
        printf '"build_options":%s,' "$(json_str "$(timing build.options)")"
        printf '"run_dir":%s,' "$(json_str "$run_dir")"
        printf '"run_dirs":[%s],' "$(printf '%s' "$runs" \
            | awk '{ printf "%s\"%s\"", (NR > 1 ? "," : ""), $2 }')"
        printf '"commit":%s,"modified":%s}' "$(json_str "$commit")" "$modified"
    })
    interrupted
    printf '%s\n' "$record" | sh validate/append-line.sh "$results_log" \
        || die "could not append the record to $results_log"
    point "results/$size/last-run" "$(basename "$run_dir")"
    point results/last-run "$size"
    trap - INT TERM HUP
    [ "$v_result" = PASS ]
}

# interrupted: after a signal (caught), stops the run with nothing recorded
# and the last-run pointers left where they were.
interrupted() {
    [ -n "$caught" ] || return 0
    echo "$NAME $size: interrupted by signal $caught; nothing recorded, results/last-run unchanged (this run's files: $run_dir)" >&2
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
    [ -r "results/$1/last-run" ] || die "no complete run of $1 yet: make run SIZE=$1 first"
    run_dir=results/$1/$(cat "results/$1/last-run")
    d_output=$run_dir/$(basename "$d_output")
    d_raw=$run_dir/$(basename "$d_raw")
    d_timing=$run_dir/$(basename "$d_timing")
}

revalidate() {
    size=${1:-}
    if [ -z "$size" ]; then
        [ -r results/last-run ] || die "no run to validate yet: make run first"
        size=$(cat results/last-run)
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
    validate) [ $# -le 1 ] || usage; revalidate "${1:-}" ;;
    reference) [ $# -eq 1 ] || usage; reference "$1" ;;
    check-spec) [ $# -eq 1 ] || usage; check_spec "$1" ;;
    datasets) echo "$DATASETS" ;;
    last-run) [ $# -eq 1 ] || usage; load "$1"; last_run "$1"; echo "$run_dir" ;;
    *) echo "harness: unknown step '$step'" >&2; exit 2 ;;
esac
