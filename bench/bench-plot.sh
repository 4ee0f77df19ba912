#!/bin/sh
# bench/bench-plot.sh JSONL PNG - median device time per iteration of
# every strategy on every input (the latest row of each input, strategy and
# device), as clustered bars: one cluster per input, one bar per strategy
# (and device, where the rows hold several), on a log scale (CPU and GPU
# times differ by 1000x), with gnuplot.
set -eu
jsonl=$1
png=$2
data=$(mktemp)
trap 'rm -f "$data"' EXIT
awk "$(cat "$(dirname "$0")/../validate/jsonl.awk")"'
{
    input = field($0, "input")
    series = field($0, "strategy") "/" substr(field($0, "device"), 1, 14)
    gsub(/ /, "_", series)
    if (!(input in seen_in)) { inputs[++ni] = input; seen_in[input] = 1 }
    if (!(series in seen_s)) { names[++ns] = series; seen_s[series] = 1 }
    us[input, series] = field($0, "iteration_device_median_us")
}
END {
    printf "input"; for (s = 1; s <= ns; ++s) printf " %s", names[s]; printf "\n"
    for (i = 1; i <= ni; ++i) {
        printf "%s", inputs[i]
        for (s = 1; s <= ns; ++s)
            printf " %s", ((inputs[i], names[s]) in us) ? us[inputs[i], names[s]] : "NaN"
        printf "\n"
    }
}' "$jsonl" >"$data"
cols=$(head -n 1 "$data" | wc -w)
gnuplot <<GP
set terminal pngcairo size 1200,700 noenhanced
set output "$png"
set title "histo: median device time per iteration, by input and strategy"
set ylabel "microseconds per iteration"
set logscale y
# from 1 us: a GPU iteration of ~10 us must still show as a bar
set yrange [1:*]
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set key outside right
plot for [i=2:$cols] "$data" using i:xtic(1) title columnhead(i)
GP
