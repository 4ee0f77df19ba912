#!/bin/sh
# tests/self.sh - what histo says about itself: a BMP the format cannot
# hold refused at once, --no-bmp and --raw to standard output, raw inputs
# that start like gzip, device times within the wall time they are part
# of, and --no-check.
# ids: output cli input times check
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
# Two shares on one device (one clock): no iteration finished before the
# next, the span over both shares' events, the partials' copies and the
# host's enqueuing reported.
if run_histo --device 0,0 -i "$IN" -o "$W/times2.bmp" --timing "$W/times2.out" -- 3 \
        >"$W/times2.log" 2>&1 \
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

