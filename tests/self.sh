#!/bin/sh
# tests/self.sh - what histo says about itself: a BMP the format cannot
# hold refused at once, --no-bmp and --raw to standard output, raw inputs
# that start like gzip, device times within the wall time they are part
# of, and --no-check.
# ids: output cli input times check program_cache
SUBJECT=self
. "$(dirname "$0")/lib.sh"

need_gz || exit 0
IN=$INPUTS/gz.bin
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
# Two shares on one device (one clock), every iteration profiled
# (HISTO_TEST_PROFILE_EVERY=1): no iteration finished before the next,
# the span over both shares' events, the partials' copies and the host's
# enqueuing reported.
if HISTO_TEST_PROFILE_EVERY=1 run_histo --device 0,0 -i "$IN" -o "$W/times2.bmp" \
        --timing "$W/times2.out" -- 3 >"$W/times2.log" 2>&1 \
   && grep -q "us median on the devices, .* us wall mean" "$W/times2.log" \
   && grep -q "^iteration.device.median_us" "$W/times2.out" \
   && grep -q "^iteration.timed_by = device (first start to last end over every device" "$W/times2.out" \
   && grep -q "^iteration.move.median_us" "$W/times2.out" \
   && grep -q "^iteration.enqueue_host_mean_us" "$W/times2.out" \
   && ! grep -q "^iteration.host.median_us" "$W/times2.out"; then
    ok times.two_queues_on_devices
else
    bad times.two_queues_on_devices "$(grep "us median\|us wall" "$W/times2.log")"
fi
# ... and as they run by default, one iteration in 32 profiled: timed by
# the wall, which the summary and histo.out say, with no device span
# (got: the iteration.device lines / iterations.profiled_every /
# iteration.timed_by's first word)
run_histo --device 0,0 -i "$IN" -o "$W/times3.bmp" --timing "$W/times3.out" -- 3 \
    >"$W/times3.log" 2>&1
st=$?
got=$(grep -c '^iteration\.device\.' "$W/times3.out")/$(sed -n 's/^iterations\.profiled_every = //p' "$W/times3.out")/$(sed -n 's/^iteration\.timed_by = \([a-z]*\).*/\1/p' "$W/times3.out")
if [ "$st" -eq 0 ] && [ "$got" = 0/32/wall ] && grep -q "us wall mean over the timed loop" "$W/times3.log"; then
    ok times.two_queues_sampled
else
    bad times.two_queues_sampled "exit $st, got $got (want 0/32/wall): $(tail -n 1 "$W/times3.log")"
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


# The program cache ($HISTO_PROGRAM_CACHE, src/progcache.h): built and
# stored, then found; an entry damaged, another program's entry under
# this one's name, a kernel source changed, or other options: built from
# source again, exact; an entry's name taken by a FIFO or a link: built
# from source, the FIFO, the link and the link's target left as they
# were; a folder that cannot be written: a note, exit 0. Each run exact.
PC=$W/programs
# pc_run NAME [histo options...]: one run with the cache, its line of
# histo.out in $pc_line; status 1 when it failed or was not exact.
pc_run() {
    pc_name=$1
    shift
    HISTO_PROGRAM_CACHE=${PC_DIR:-$PC} run_histo --strategy global "$@" -i "$IN" \
        -o "$W/$pc_name.bmp" --timing "$W/$pc_name.out" -- 2 \
        >"$W/$pc_name.log" 2>&1 \
        && same_counts "$W/$pc_name.bmp" "$W/stdout.ref.bmp" || return 1
    pc_line=$(sed -n 's/^build\.program_cache = //p' "$W/$pc_name.out")
}
entries() { find "$PC" -name '*.clbin' -type f | sort; }
if pc_run pc_first && [ "$pc_line" = "$PC: 0 found, 2 built and stored, 0 built and not stored" ] \
   && [ "$(entries | wc -l)" -eq 2 ] && [ -z "$(find "$PC" -name '.histo-tmp-*')" ] \
   && pc_run pc_second && [ "$pc_line" = "$PC: 2 found, 0 built and stored, 0 built and not stored" ]; then
    ok program_cache.stored_then_found
else
    bad program_cache.stored_then_found "'${pc_line:-}': $(tail -n 2 "$W/$pc_name.log" | tr '\n' ' ')"
fi
# the last byte of the larger entry (its binary) changed
big=$(ls -S $(entries) | head -n 1)
cp "$big" "$W/entry.saved"
printf '\001' | dd of="$big" bs=1 seek=$(($(wc -c <"$big") - 1)) conv=notrunc 2>/dev/null
cmp -s "$big" "$W/entry.saved" && bad program_cache.damaged "the entry did not change"
if pc_run pc_damaged && case $pc_line in *": 1 found, 1 built and stored, 0 built and not stored; $big holds another program, or is damaged") ;; *) false ;; esac \
   && pc_run pc_mended && case $pc_line in *": 2 found,"*) ;; *) false ;; esac; then
    ok program_cache.damaged
else
    bad program_cache.damaged "'${pc_line:-}'"
fi
# the other entry's bytes under this one's name
small=$(ls -S $(entries) | tail -n 1)
cp "$small" "$big"
if pc_run pc_other && case $pc_line in *": 1 found, 1 built and stored, 0 built and not stored; $big holds another program, or is damaged") ;; *) false ;; esac; then
    ok program_cache.other_program
else
    bad program_cache.other_program "'${pc_line:-}'"
fi
# a kernel source with one comment added, and one more build option:
# neither may meet the entries built without them
rm -rf "$W/kernels" && cp -R kernels "$W/kernels"
if pc_run pc_copy --kernels "$W/kernels" && echo "/* changed */" >>"$W/kernels/global_count.cl" \
   && pc_run pc_changed --kernels "$W/kernels" && case $pc_line in *": 1 found, 1 built and stored, 0 built and not stored") ;; *) false ;; esac \
   && HISTO_CL_OPTIONS=-DHISTO_TEST_UNUSED=1 pc_run pc_options && case $pc_line in *": 0 found, 2 built and stored, "*) ;; *) false ;; esac; then
    ok program_cache.key_changed
else
    bad program_cache.key_changed "'${pc_line:-}'"
fi
# entries' names taken by a FIFO and by a link to a file of the test's
rm -f "$big" "$small"
echo "not an entry" >"$W/link.target"
mkfifo "$big" && ln -s "$W/link.target" "$small"
if pc_run pc_fifo && case $pc_line in *": 0 found, 0 built and stored, 2 built and not stored; $PC/"*" unread: "*) ;; *) false ;; esac \
   && [ -p "$big" ] && [ -L "$small" ] && [ "$(cat "$W/link.target")" = "not an entry" ] \
   && grep -q "^histo: note: program cache: .* is there and is not a regular file" "$W/pc_fifo.log" \
   && [ -z "$(find "$PC" -name '.histo-tmp-*')" ]; then
    ok program_cache.not_regular
else
    bad program_cache.not_regular "'${pc_line:-}'; $(ls -l "$PC" | tr '\n' ' ')"
fi
# a cache folder that is a file
echo "a file" >"$W/not-a-folder"
if PC_DIR=$W/not-a-folder pc_run pc_file && case $pc_line in *": 0 found, 0 built and stored, 2 built and not stored; "*) ;; *) false ;; esac \
   && grep -q "^histo: note: program cache: cannot create $W/not-a-folder/" "$W/pc_file.log" \
   && [ "$(cat "$W/not-a-folder")" = "a file" ]; then
    ok program_cache.unwritable
else
    bad program_cache.unwritable "'${pc_line:-}'"
fi
if run_histo -i "$IN" -o "$W/pc_off.bmp" --timing "$W/pc_off.out" -- 1 >/dev/null 2>&1 \
   && grep -q "^build.program_cache = off$" "$W/pc_off.out"; then
    ok program_cache.off
else
    bad program_cache.off "$(grep program_cache "$W/pc_off.out")"
fi
