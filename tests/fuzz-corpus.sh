#!/bin/sh
# tests/fuzz-corpus.sh GEN DIR - seed corpus for the input fuzzer: small
# generated inputs, raw and gzip, a multi-member gzip and a few broken ones.
set -eu
gen=$1
dir=$2
mkdir -p "$dir"
i=0
seed() { i=$((i + 1)); ext=$1; shift; "$gen" -o "$dir/seed$i$ext" "$@"; }
for args in "--image 1x1 --histo 1x1 --dist onebin" \
            "--image 3x2 --histo 4x2 --dist uniform" \
            "--image 8x8 --histo 16x16" \
            "--image 5x7 --histo 100x37 --dist twoeye --row-sigma 3 --col-sigma 9" \
            "--image 16x4 --histo 8x8 --dist sweep"; do
    # shellcheck disable=SC2086
    seed "" $args
    # shellcheck disable=SC2086
    seed ".gz" $args --gzip
done
printf 'short' >"$dir/short"
head -c 40 "$dir/seed5" >"$dir/truncated"
cat "$dir/seed3" "$dir/seed1" >"$dir/trailing"
head -c 30 "$dir/seed4.gz" >"$dir/truncated.gz"
# gzip members: two holding one input, a trailer cut short, bytes after
head -c 20 "$dir/seed3" | gzip -n >"$dir/members.gz"
tail -c +21 "$dir/seed3" | gzip -n >>"$dir/members.gz"
head -c -4 "$dir/seed4.gz" >"$dir/no-trailer.gz"
{ cat "$dir/seed2.gz"; printf 'x'; } >"$dir/trailing.gz"
