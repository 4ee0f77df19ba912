#!/bin/sh
# tests/saturation.sh - counts around saturation, checked bin by bin, on
# every strategy, whole and in chunks; a combine that wraps and a merge
# off by one, planted, must be caught (the second by histo's own check);
# kernels/combine.cl against 64-bit sums (build/combine-test), and the
# 8-bit tiles' records in eye_reduce_narrow (build/records-test).
# ids: saturation combine records
SUBJECT=saturation
. "$(dirname "$0")/lib.sh"

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
    # in 8 chunks of 9,973 values: every bin of the set is split among
    # chunks, whose 8-bit partials must add up with saturation (the
    # 70,000-value bin's are each saturated already, the 256-value bins'
    # saturate only in the sum)
    check_sat "saturation.chunks.$s" --strategy "$s" --chunk-values 9973
done
# The cpu strategy's counting loop at saturation in its branching form:
# band_255's sweep brings every bin to 254 in the same chunk, where
# nearly every value then meets a saturated counter, which keeps the
# branching loop (the set above, one hammered bin, leaves it for the
# branch-free one); one batch, so that each bin's 255th value reaches the
# one counter (split among batches, no private counter reaches 254)
if echo "$STRATEGIES" | grep -qw cpu; then
    need_case band_255
    exact saturation.cpu.branching_one_batch "$W/cpu_b1" "$INPUTS/band_255.ref.bmp" \
        "config.batches = 1" --strategy cpu --batches 1 -i "$INPUTS/band_255.bin"
fi
# A combine that wraps instead of saturating (its 16-byte add a plain
# one) must be caught.
mkdir -p "$W/wrap-kernels"
cp kernels/*.cl "$W/wrap-kernels/"
sed 's/^#define SAT_ADD16(a, b) add_sat((a), (b))$/#define SAT_ADD16(a, b) ((a) + (b))/' \
    kernels/combine.cl >"$W/wrap-kernels/combine.cl"
if cmp -s kernels/combine.cl "$W/wrap-kernels/combine.cl"; then
    bad saturation.planted_wrap "cannot plant the bug: kernels/combine.cl changed; update this test"
elif (check_sat saturation.planted_wrap.run --strategy cpu --chunk-values 9973 \
        --kernels "$W/wrap-kernels") >"$W/planted_wrap.log"; then
    bad saturation.planted_wrap "a combine that wraps at 256 gave the right counts"
else
    ok saturation.planted_wrap
fi
# kernels/combine.cl against 64-bit sums: counts past 2^32 in one bin.
$B/combine-test "$PLATFORM" $DEVICE >"$W/combine.log" 2>&1
relay "$W/combine.log" ""
grep -q '^PASS combine.tree_order' "$W/combine.log" \
    || bad combine.ran "$B/combine-test: $(tail -n 2 "$W/combine.log")"
# eye_reduce_narrow's sums of 8-bit tiles' records against 64-bit
# arithmetic: a bin of 2^31 values, records down to -255 x 65536.
$B/records-test "$PLATFORM" $DEVICE >"$W/records.log" 2>&1
relay "$W/records.log" ""
grep -q '^PASS records.two_d.parts_ab' "$W/records.log" \
    || bad records.ran "$B/records-test: $(tail -n 2 "$W/records.log")"

# A planted off-by-one near saturation: cpu_merge.cl turns a merged count
# of 253 into 254. 253 and 254 have one colour, so the BMP cannot see it;
# the raw counters must. Two batches, so the merge sums every bin of the
# set (its values are shuffled over the whole input). histo's own check
# must fail the run (exit 6) naming the two bins; with --keep-wrong the
# outputs hold the wrong counters, which the validator must see too. The
# two-command plan (HISTO_TEST_CPU_COMMANDS=2): in one command the first
# participant may count both batches itself, and nothing is merged.
mkdir -p "$W/offbyone-kernels"
cp kernels/*.cl "$W/offbyone-kernels/"
sed 's/o\[i\] = (uchar)min((uint)o\[i\] + p\[i\], HISTO_SATURATE);/{ const uint s_ = min((uint)o[i] + p[i], HISTO_SATURATE); o[i] = (uchar)(s_ + (s_ == HISTO_SATURATE - 2)); }/' \
    kernels/cpu_merge.cl >"$W/offbyone-kernels/cpu_merge.cl"
HISTO_TEST_CPU_COMMANDS=2
export HISTO_TEST_CPU_COMMANDS
run_histo --strategy cpu --batches 2 --kernels "$W/offbyone-kernels" \
    -i "$W/sat.bin" -o "$W/offbyone.bmp" --timing "$W/offbyone.out" -- 1 \
    >"$W/offbyone.log" 2>&1
st=$?
run_histo --strategy cpu --batches 2 --kernels "$W/offbyone-kernels" \
    -i "$W/sat.bin" -o "$W/offbyone.bmp" --timing "$W/offbyone.out" \
    --keep-wrong -- 1 >"$W/offbyone.keep.log" 2>&1
st_keep=$?
unset HISTO_TEST_CPU_COMMANDS
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

