#!/bin/sh
# tests/contract.sh - the program's contract: every strategy on gzip
# input, the keys histo.out must hold, the default strategy, exit
# statuses and messages for bad options, inputs, kernels and devices, no
# stale outputs, and histograms too large for the device or for 32-bit
# indexes' loops.
# ids: device report strategy cli work input output kernels cl_options tune huge_bins
SUBJECT=contract
. "$(dirname "$0")/lib.sh"
# PoCL sizes its device from the memory free when it starts (allocations
# of 2 GiB and of 8 GiB seen on one 24 GiB machine, minutes apart), which
# would move the limits these tests are about between one run and the
# next: 4 GiB of device memory pins its largest allocation at 1 GiB.
case $PLATFORM in
    "Portable Computing Language"*) POCL_MEMORY_LIMIT=4; export POCL_MEMORY_LIMIT ;;
esac

need_gz || exit 0
need_tune_input || exit 0
need_case gauss || exit 0
TIN=$INPUTS/tune.bin

# gzip input gives the same bytes as raw input
for s in $STRATEGIES; do
    if run_histo --strategy "$s" -i "$INPUTS/gz.bin.gz" -o "$W/gz.$s.bmp" \
            --timing "$W/gz.$s.out" -- 2 >"$W/gz.$s.log" 2>&1 \
            && same_counts "$W/gz.$s.bmp" "$INPUTS/gz.ref.bmp"; then
        ok "device.$s.gzip_input"
    else
        bad "device.$s.gzip_input" "$(tail -n 3 "$W/gz.$s.log")"
    fi
done

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
                 eye.first_row eye.last_row eye.buckets_used eye.hot_bin \
                 eye.plain_adds config.bucket_cap \
                 kernel.eye_tile.median_us \
                 kernel.eye_tile.total_us kernel.eye_reduce.median_us ;;
        cpu) # one batch (config.merge_groups = 0) counts into the output
             # itself, and one command merges in cpu_count: no merge
             # kernel runs, and none is timed
             merge=kernel.cpu_merge.total_us
             grep -q '^config.merge_groups = 0$' "$W/gz.cpu.out" && merge=""
             grep -q '^cpu.commands_per_iteration = 1$' "$W/gz.cpu.out" && merge=""
             report_keys report.keys.cpu "$W/gz.cpu.out" config.line_bins \
                 config.private_histograms config.merge_groups \
                 config.partial_bytes kernel.cpu_count.median_us $merge ;;
    esac
done

# Without --strategy, dedicated local memory (CL_LOCAL) gets fused for
# gz's 490,000 values (fewer than the 2^23 from which the tile kernel's
# 2-D window makes eye the default) where the device has no loop limit
# and a fence of device scope (the fused run's config.fence), else eye;
# local memory in global memory or none gets cpu, whatever the device
# type; the option overrides that, and histo.out names what ran.
if run_histo -i "$INPUTS/gz.bin" -o "$W/auto.bmp" --timing "$W/auto.out" -- 1 \
        >"$W/auto.log" 2>&1; then
    want=cpu
    if grep -q "^selected.local_mem_type = local$" "$W/auto.out"; then
        want=eye
        grep -q "^share.0.loop_limit = none$" "$W/auto.out" \
            && grep -q "^config.fence = device scope" "$W/gz.fused.out" \
            && want=fused
    fi
    if grep -q "^strategy = $want$" "$W/auto.out" \
       && grep -q "^strategy.requested = auto$" "$W/auto.out" \
       && same_counts "$W/auto.bmp" "$INPUTS/gz.ref.bmp"; then
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

IN=$INPUTS/gz.bin
expect cli.missing_input 2 "missing -i" $HISTO -o "$W/x.bmp" -- 1
expect cli.bad_iterations 2 "iteration count" $HISTO -i "$IN" -o "$W/x.bmp" -- zero
expect cli.bad_tile_rows 2 "tile-rows must be a whole number" $HISTO --tile-rows 0 -i "$IN" -o "$W/x.bmp" -- 1
expect cli.tune_with_batches 2 "give none of them" $HISTO --tune --batches 2 -i "$IN" -o "$W/x.bmp" -- 1
expect cli.tune_with_replicas 2 "give none of them" $HISTO --tune --replicas 2 -i "$IN" -o "$W/x.bmp" -- 1
expect cli.bad_chunk_values 2 "chunk-values must be a whole number from 1 to 2147483648" \
    $HISTO --chunk-values 0 -i "$IN" -o "$W/x.bmp" -- 1
expect cli.bad_device_budget 2 "device-budget must be a number of bytes from 1 to 2^60, digits with an optional K, M, G or T (powers of 1024), not '12X'" \
    $HISTO --device-budget 12X -i "$IN" -o "$W/x.bmp" -- 1
expect cli.empty_device_item 2 "an empty or overlong item" \
    run_histo --device 0, -i "$IN" -o "$W/x.bmp" -- 1
expect work.budget_below_two_values 2 "cannot hold two chunks of one value each" \
    run_histo --device-budget 7 -i "$IN" -o "$W/x.bmp" -- 1
# an output that cannot be created fails before any work: exit 5 and no
# iteration (3,000 asked), nothing left behind
for o in -o --timing --raw; do
    case $o in
        -o) set -- -o "$W/no-such-folder/x.bmp" ;;
        --timing) set -- -o "$W/x.bmp" --timing "$W/no-such-folder/x.out" ;;
        --raw) set -- -o "$W/x.bmp" --raw "$W/no-such-folder/x.raw" ;;
    esac
    id=output.fails_first${o#-}
    id=${id%-}
    expect "$id" 5 "cannot create output '$W/no-such-folder/x\.[a-z]*': No such file or directory" \
        run_histo -i "$IN" "$@" -- 3000
    if grep -q "iteration" "$W/$id.stderr"; then
        bad "$id.no_work" "it iterated first: $(head -c 300 "$W/$id.stderr")"
    fi
done
# a file whose header cannot be a histo image: said so, with its numbers
printf '\007\000\000\000\000\000\000\000\004\000\000\000\002\000\000\000' >"$W/not-histo.bin"
expect input.not_histo 3 "input '$W/not-histo.bin': not a 116.histo input: its header (four little-endian 32-bit numbers) reads image 7x0, histogram 4x2: image size 7x0 has a zero dimension" \
    run_histo -i "$W/not-histo.bin" -o "$W/x.bmp" -- 1
expect input.text_file 3 "input 'README.md': not a 116.histo input: its header" \
    run_histo -i README.md -o "$W/x.bmp" -- 1
# --name=value for every option that takes a value
if $HISTO --platform="$PLATFORM" ${DEVICE:+--device="$DEVICE"} --strategy=cpu \
        --batches=2 --timing="$W/inline.out" --raw="$W/inline.raw" \
        --chunk-values=100000 --device-budget=64M --kernels="$(pwd)/kernels" \
        -i "$IN" -o "$W/inline.bmp" -- 1 >"$W/inline.log" 2>&1 \
   && grep -q "^strategy = cpu$" "$W/inline.out" \
   && grep -q "^config.knobs.batches = 2$" "$W/inline.out" \
   && grep -q "^input.chunks = 5$" "$W/inline.out" \
   && same_counts "$W/inline.bmp" "$INPUTS/gz.ref.bmp"; then
    ok cli.inline_values
else
    bad cli.inline_values "$(tail -n 2 "$W/inline.log") $(cat "$W/last.diff" 2>/dev/null)"
fi
expect cli.flag_with_value 2 "option --tune takes no value ('--tune=1')" \
    run_histo --tune=1 -i "$IN" -o "$W/x.bmp" -- 1
expect work.too_many_chunks 2 "make 490000 chunks, more than the 65536 histo runs.*use chunks of at least 8 values" \
    run_histo --chunk-values 1 -i "$IN" -o "$W/x.bmp" -- 1
# thousands of small chunks: a warning before the run, which is exact
if make_input many_chunks --image 80x64 --histo 16x16 --dist uniform --seed 5 >/dev/null \
   && run_histo --chunk-values 1 -i "$INPUTS/many_chunks.bin" -o "$W/many.bmp" \
          --raw "$W/many.raw" -- 1 >"$W/many.log" 2>&1 \
   && grep -q "^histo: warning: 5120 values on .* in chunks of 1 (--chunk-values) make 5120 chunks" "$W/many.log" \
   && [ "$(grep -n 'warning: 5120 values' "$W/many.log" | cut -d: -f1)" -eq 1 ] \
   && same_counts "$W/many.bmp" "$INPUTS/many_chunks.ref.bmp"; then
    ok work.many_chunks_warned
else
    bad work.many_chunks_warned "$(head -n 2 "$W/many.log") $(cat "$W/last.diff" 2>/dev/null)"
fi
expect work.tune_streamed 2 "this input is streamed" \
    run_histo --tune --no-tune-cache --device-budget 64K -i "$IN" -o "$W/x.bmp" -- 1
# suffixes are powers of 1024: 4K is 4096 bytes, two chunks of 512 values
run_histo --device-budget 4K -i "$IN" -o "$W/k.bmp" --timing "$W/k.out" -- 1 >"$W/k.log" 2>&1
if grep -q "^input.chunk_values = 512$" "$W/k.out" 2>/dev/null \
   && grep -q "^input.residency = streamed$" "$W/k.out" && same_counts "$W/k.bmp" "$INPUTS/gz.ref.bmp"; then
    ok cli.budget_suffix
else
    bad cli.budget_suffix "--device-budget 4K: $(grep '^input\.' "$W/k.out" 2>/dev/null | tr '\n' ' ') $(tail -n 2 "$W/k.log")"
fi
# every device of the platform (PoCL has one): one share
run_histo --device all -i "$IN" -o "$W/all.bmp" --timing "$W/all.out" -- 1 >"$W/all.log" 2>&1
if grep -q "^shares = [1-9]" "$W/all.out" 2>/dev/null && same_counts "$W/all.bmp" "$INPUTS/gz.ref.bmp"; then
    ok cli.device_all
else
    bad cli.device_all "$(tail -n 2 "$W/all.log")"
fi
for v in 0 17 x; do
    expect "cli.bad_replicas_$v" 2 "replicas must be a whole number" \
        $HISTO --replicas "$v" -i "$IN" -o "$W/x.bmp" -- 1
done
# the names as --list-strategies gives them, every one
expect cli.unknown_strategy 2 "unknown strategy 'gpu' (choose from: auto, $($HISTO --list-strategies | paste -sd, | sed 's/,/, /g'))" \
    $HISTO --strategy gpu -i "$IN" -o "$W/x.bmp" --timing "$W/x.out" -- 1
# --list-strategies: the strategies, one a line, the same as the unknown
# strategy's message names, without an OpenCL platform (an empty vendors
# folder)
mkdir -p "$W/no-vendors"
if OCL_ICD_VENDORS=$W/no-vendors $HISTO --list-strategies >"$W/strategies.txt" 2>"$W/strategies.err" \
   && [ ! -s "$W/strategies.err" ] \
   && [ "$(tr '\n' ' ' <"$W/strategies.txt")" = "$(sed -n 's/.*(choose from: auto, \(.*\))$/\1/p' "$W/cli.unknown_strategy.stderr" | tr -d ,) " ]; then
    ok cli.list_strategies
else
    bad cli.list_strategies "$(head -c 200 "$W/strategies.txt" "$W/strategies.err")"
fi
expect input.missing_file 3 "cannot open input" \
    run_histo -i "$W/nope.bin" -o "$W/x.bmp" --timing "$W/x.out" -- 1
# -i - reads standard input: raw through a pipe, gzip redirected from a
# file, and with --device all, which reads it once (not a file it can
# open again); each exact, histo.out naming "-"
for how in pipe redirect; do
    id=input.stdin_$how
    if [ $how = pipe ]; then
        cat "$INPUTS/gz.bin" | run_histo --device all -i - -o "$W/$id.bmp" \
            --timing "$W/$id.out" -- 2 >"$W/$id.log" 2>&1
    else
        run_histo -i - -o "$W/$id.bmp" --timing "$W/$id.out" -- 2 \
            <"$INPUTS/gz.bin.gz" >"$W/$id.log" 2>&1
    fi
    st=$?
    if [ "$st" -eq 0 ] && same_counts "$W/$id.bmp" "$INPUTS/gz.ref.bmp" \
       && grep -qx "input.path = -" "$W/$id.out"; then
        ok "$id"
    else
        bad "$id" "status $st: $(tail -n 2 "$W/$id.log")"
    fi
done
# a header that promises 10,000 values before 10: the bytes the data held
printf '\144\0\0\0\144\0\0\0\20\0\0\0\20\0\0\0' >"$W/ends_early.bin"
for _ in 1 2 3 4 5 6 7 8 9 10; do printf '\0\0\0\0'; done >>"$W/ends_early.bin"
expect input.data_ends_early 3 "header promises 10000 values (100x100) but its data ended after 40 bytes, 40000 needed" \
    run_histo -i "$W/ends_early.bin" -o "$W/x.bmp" --timing "$W/x.out" -- 1
printf 'short' >"$W/short.bin"
expect input.short_header 3 "header is 5 bytes" \
    run_histo -i "$W/short.bin" -o "$W/x.bmp" --timing "$W/x.out" -- 1
# gzip members are read to their trailers (CRC-32, length) and nothing
# may follow the last one; gz.bin.gz is a single member.
gz_size=$(wc -c <"$INPUTS/gz.bin.gz")
for cut in 1 9 1000; do
    head -c $((gz_size - cut)) "$INPUTS/gz.bin.gz" >"$W/cut$cut.gz"
    expect "input.gzip_cut_$cut" 3 "truncated gzip stream" \
        run_histo -i "$W/cut$cut.gz" -o "$W/x.bmp" --timing "$W/x.out" -- 1
done
cp "$INPUTS/gz.bin.gz" "$W/crc.gz"
crc0=$(od -An -tu1 -j $((gz_size - 8)) -N1 "$W/crc.gz" | tr -d ' ')
# shellcheck disable=SC2059
printf "\\$(printf %o $((crc0 ^ 1)))" \
    | dd of="$W/crc.gz" bs=1 seek=$((gz_size - 8)) conv=notrunc 2>/dev/null
expect input.gzip_crc_mismatch 3 "gzip trailer CRC mismatch" \
    run_histo -i "$W/crc.gz" -o "$W/x.bmp" --timing "$W/x.out" -- 1
{ cat "$INPUTS/gz.bin.gz"; printf 'x'; } >"$W/trailing.gz"
expect input.gzip_trailing_bytes 3 "trailing bytes after the gzip data" \
    run_histo -i "$W/trailing.gz" -o "$W/x.bmp" --timing "$W/x.out" -- 1
# two members that together hold the input, and an empty one after them,
# give the raw input's histogram
head -c 1000001 "$INPUTS/gz.bin" | gzip -n >"$W/members.gz"
tail -c +1000002 "$INPUTS/gz.bin" | gzip -n >>"$W/members.gz"
printf '' | gzip -n >>"$W/members.gz"
if run_histo -i "$W/members.gz" -o "$W/members.bmp" --timing "$W/members.out" \
        -- 1 >"$W/members.log" 2>&1 \
   && same_counts "$W/members.bmp" "$INPUTS/gz.ref.bmp"; then
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
# a number variable outside its bounds (env.h's table) stops the run
# before the iterations, whichever reads it
for v in abc 1e9 0x10; do
    expect "env.energy_min_s_$v" 2 "HISTO_ENERGY_MIN_S must be a number of seconds from 0 to 86400, not '$v'" \
        env HISTO_ENERGY_MIN_S="$v" $HISTO --platform "$PLATFORM" \
        -i "$IN" -o "$W/x.bmp" --timing "$W/x.out" -- 1
done
# ... also one this run would not read (the cpu strategy has no buckets),
# and a whole number written as a float
expect env.checked_unread 2 "HISTO_EYE_BUCKET_CAP must be a whole number from 0 to 268435456, not 'abc'" \
    env HISTO_EYE_BUCKET_CAP=abc $HISTO --platform "$PLATFORM" --strategy cpu \
    -i "$IN" -o "$W/x.bmp" --timing "$W/x.out" -- 1
expect env.whole_in_digits 2 "HISTO_TEST_SETS must be a whole number from 1 to 16, not '1e1'" \
    env HISTO_TEST_SETS=1e1 $HISTO --platform "$PLATFORM" \
    -i "$IN" -o "$W/x.bmp" --timing "$W/x.out" -- 1
for v in 268435457 -1 8x; do
    expect "bucket_cap.bad_value_$v" 2 "HISTO_EYE_BUCKET_CAP must be a whole number from 0 to 268435456, not '$v'" \
        env HISTO_EYE_BUCKET_CAP="$v" $HISTO --platform "$PLATFORM" --strategy eye \
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
    # A strategy's kernel files are named after it (cpu_*.cl, global_*.cl),
    # but for the eye design's: eye and replicated build the eye_*.cl
    # files but eye_fused.cl, fused all of them.
    # Compilers that honour #line name them (PoCL, Intel's); NVIDIA's
    # reports "<kernel>:LINE" of the joined sources whatever #line says.
    if grep -q "<kernel>:[0-9]" "$W/device.$s.build_failure_log.stderr"; then
        echo "SKIP device.$s.build_log_names_kernel_lines: this compiler ignores #line"
        continue
    fi
    missing=""
    case $s in
        eye | replicated) files="eye_args.cl eye_sample.cl eye_window.cl eye_count.cl eye_bucket.cl eye_tile.cl eye_reduce.cl" ;;
        fused) files="eye_args.cl eye_sample.cl eye_window.cl eye_count.cl eye_bucket.cl eye_tile.cl eye_reduce.cl eye_fused.cl" ;;
        *) files=$(cd "$W/broken-kernels" && echo "${s}"_*.cl) ;;
    esac
    for f in $files; do
        f=$W/broken-kernels/$f
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
# the build log shown), and a bad one fails the build loudly. No build
# option depends on the input (no -DHISTO_WIDTH: the eye kernels take the
# width as an argument), so one build serves every histogram shape.
if HISTO_CL_OPTIONS="-DHISTO_TEST_EXTRA=1" run_histo --strategy cpu -i "$IN" -o "$W/clopt.bmp" \
        --timing "$W/clopt.out" -- 1 >"$W/clopt.log" 2>&1 \
   && grep -q "^build.options = -cl-std=.* -DHISTO_TEST_EXTRA=1$" "$W/clopt.out" \
   && ! grep -q "^build.options = .*HISTO_WIDTH" "$W/clopt.out" \
   && grep -q "build log" "$W/clopt.log"; then
    ok cl_options.appended
else
    bad cl_options.appended "$(grep build.options "$W/clopt.out" 2>/dev/null | head -c 300)"
fi
expect cl_options.bad_option 4 "clBuildProgram" \
    env HISTO_CL_OPTIONS="-cl-no-such-option" $HISTO --platform "$PLATFORM" \
    -i "$IN" -o "$W/x.bmp" --timing "$W/x.out" -- 1
# --no-bmp without --raw writes no counters: histo says so (a note
# naming the timing file) and runs; with --raw it says nothing of it.
if run_histo -i "$IN" --no-bmp --timing "$W/nobmp.out" -- 1 >"$W/nobmp.log" 2>&1 \
   && grep -qx "histo: note: --no-bmp without --raw writes no counters: the check and $W/nobmp.out alone say what was counted" "$W/nobmp.log" \
   && run_histo -i "$IN" --no-bmp --raw "$W/nobmp.raw" --timing "$W/nobmp.out" -- 1 >"$W/nobmp2.log" 2>&1 \
   && ! grep -q "without --raw" "$W/nobmp2.log"; then
    ok cli.no_bmp_without_raw
else
    bad cli.no_bmp_without_raw "$(head -c 300 "$W/nobmp.log")"
fi
rm -f "$W/nobmp.raw"

# histo.out names each variable of histo's table that is set, and the
# lists the harness judges a run by: HISTO_CL_OPTIONS makes it peak, a
# test variable peak and not reportable, a user's variable neither; a
# value's line break cannot start a key of its own.
nl='
'
if HISTO_CL_OPTIONS="-DHISTO_TEST_EXTRA=1" HISTO_TEST_MAX_GROUP=64 \
   HISTO_PROGRESS_INTERVAL=60 HISTO_TUNE_FILE="$W/no${nl}key = 1" \
        run_histo -i "$IN" --no-bmp --timing "$W/env.out" -- 1 >"$W/env.log" 2>&1 \
   && grep -qx "environment.HISTO_CL_OPTIONS = -DHISTO_TEST_EXTRA=1" "$W/env.out" \
   && grep -qx "environment.HISTO_TEST_MAX_GROUP = 64" "$W/env.out" \
   && grep -qx "environment.HISTO_PROGRESS_INTERVAL = 60" "$W/env.out" \
   && grep -qx "environment.HISTO_TUNE_FILE = $W/no key = 1" "$W/env.out" \
   && ! grep -q "^key = " "$W/env.out" \
   && grep -qx "environment.peak = HISTO_CL_OPTIONS HISTO_TEST_MAX_GROUP" "$W/env.out" \
   && grep -qx "environment.not_reportable = HISTO_TEST_MAX_GROUP" "$W/env.out" \
   && grep -qx "environment.peak = none" "$W/auto.out" \
   && grep -qx "environment.not_reportable = none" "$W/auto.out"; then
    ok report.environment
else
    bad report.environment "$(grep '^environment' "$W/env.out" 2>/dev/null | head -c 400) $(tail -n 2 "$W/env.log")"
fi
# Code reads the environment through env.c's table alone, so that
# --help and histo.out list every variable that can change a run.
stray=$(grep -n 'getenv(' src/*.c src/*.h | grep -v '^src/env\.c:')
if [ -z "$stray" ]; then
    ok report.environment_table_complete
else
    bad report.environment_table_complete "read outside the table: $stray"
fi
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
        run_histo --batches 65536 -i "$INPUTS/gauss.bin" -o "$W/x.bmp" --timing "$W/x.out" -- 1
fi
# A histogram larger than the device allows is refused from the header,
# before any value is read: here the header comes through a FIFO whose
# writer then sends nothing more, so a reader that waited for the values
# would block until the timeout. (Inputs of any size are accepted: they
# are split into chunks, and streamed past the device's memory.)
max_alloc=$(cat "$W"/gz.*.out 2>/dev/null | sed -n 's/^selected.max_alloc_bytes = //p' | head -n 1)
if [ -z "$max_alloc" ] || [ "$max_alloc" -ge 4294901760 ]; then
    echo "SKIP input.too_large_from_header: the device allows ${max_alloc:-?} bytes, not less than a 65535x65536 histogram needs"
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
# 4 GiB device, above, allows 1 GiB). Neighbours: 2^32 - 1 bins
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
    echo "SKIP huge_bins: the device allows $max_alloc bytes in one allocation; HISTO_TEST_HUGE=1 runs them (4 GiB of counters each)"
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

# every histo run of the suite has a time limit (tests/timed.sh): one
# that overruns is stopped, exits 124 and is named on the subject's
# output (here its descriptor 9 goes to a file, so that this intended
# overrun is not counted)
HISTO_TEST_TIMEOUT=1 $HISTO --platform "$PLATFORM" -i "$IN" --no-bmp \
    --timing "$W/limit.out" -- 10000000 >/dev/null 2>"$W/limit.err" 9>"$W/limit.fd9"
st=$?
if [ "$st" -eq 124 ] && grep -q "^FAIL contract.time_limit: histo .* ran over 1 s$" "$W/limit.fd9" \
   && grep -q "stopped by the suite's time limit (1 s)" "$W/limit.err"; then
    ok suite.time_limit
else
    bad suite.time_limit "exit status $st: $(cat "$W/limit.fd9" "$W/limit.err" | head -c 300)"
fi
