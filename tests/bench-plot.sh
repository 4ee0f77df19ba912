#!/bin/sh
# tests/bench-plot.sh JSONL PNG - per-kernel median time per input, device
# and strategy (the latest row of each) as bars side by side on a log
# scale (CPU and GPU times differ by 1000x), with gnuplot.
set -eu
jsonl=$1
png=$2
data=$(mktemp)
trap 'rm -f "$data"' EXIT
# latest row per (input, device, strategy): label, then every kernel's
# median in us, 0 where a strategy has no such kernel
awk '
function field(line, k,    m) {
    if (match(line, "\"" k "\":\"?[^,\"}]*")) {
        m = substr(line, RSTART, RLENGTH); sub("^\"" k "\":\"?", "", m)
        return m
    }
    return ""
}
{
    label = field($0, "input") "/" field($0, "strategy") "/" \
            substr(field($0, "device"), 1, 14)
    gsub(/ /, "_", label)
    if (!(label in seen)) { order[++n] = label; seen[label] = 1 }
    delete row
    line = $0
    while (match(line, /"kernel_[a-z0-9_]*_median_us":[0-9.]*/)) {
        kv = substr(line, RSTART, RLENGTH); line = substr(line, RSTART + RLENGTH)
        split(kv, p, ":"); name = p[1]; gsub(/"|kernel_|_median_us/, "", name)
        if (!(name in known)) { kernels[++nk] = name; known[name] = 1 }
        value[label, name] = p[2]
    }
}
END {
    printf "label"; for (k = 1; k <= nk; ++k) printf " %s", kernels[k]; printf "\n"
    for (i = 1; i <= n; ++i) {
        printf "%s", order[i]
        for (k = 1; k <= nk; ++k) printf " %s", ((order[i], kernels[k]) in value) ? value[order[i], kernels[k]] : 0
        printf "\n"
    }
}' "$jsonl" >"$data"
cols=$(head -n 1 "$data" | wc -w)
gnuplot <<GP
set terminal pngcairo size 1200,700 noenhanced
set output "$png"
set title "histo: median device time per iteration, by kernel"
set ylabel "microseconds per iteration"
set logscale y
# from 1 us: a GPU kernel of ~10 us must still show as a bar
set yrange [1:*]
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.7
set xtics rotate by -30 font ",9"
set key outside right
plot for [i=2:$cols] "$data" using i:xtic(1) title columnhead(i)
GP
