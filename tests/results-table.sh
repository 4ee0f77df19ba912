#!/bin/sh
# tests/results-table.sh - the README's results table, from make bench rows
# committed in docs/bench/ (one file per device and run).
#
#   sh tests/results-table.sh [ROWS.jsonl...]
#
# One column per file, in the order given (default: the files named
# below, the newest full run on each device). A cell is the median device
# time per iteration and, in brackets, the sequential C reference's median
# on the same host in the same run divided by it (> 1: histo is faster).
# The caption names each column's device, platform, strategy, date and
# commit (the rows' "commit", else the part of the file name after its
# last '-' where that is a commit id). A file with several rows of one input
# gives the first. docs-check compares the README's table with this output.
set -u
cd "$(dirname "$0")/.." || exit 1
[ $# -gt 0 ] || set -- docs/bench/h200-e84ec6c.jsonl docs/bench/h100-ad73deb.jsonl \
    docs/bench/pocl-2core-cpu-fix.jsonl
for f in "$@"; do
    [ -s "$f" ] || { echo "results-table: $f is missing or empty" >&2; exit 1; }
done
awk '
function field(line, key,    m) {
    if (match(line, "\"" key "\":(\"[^\"]*\"|[^,}]*)")) {
        m = substr(line, RSTART + length(key) + 3, RLENGTH - length(key) - 3)
        gsub(/"/, "", m)
        return m
    }
    return ""
}
FNR == 1 {
    col++
    file[col] = FILENAME
    c = field($0, "commit")
    if (c == "") { c = FILENAME; sub(/.*-/, "", c); sub(/\.jsonl$/, "", c) }
    if (c !~ /^[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]+$/) c = "not recorded"
    commit[col] = c == "not recorded" ? c : "commit " c
    device[col] = field($0, "device")
    platform[col] = field($0, "platform")
    strategy[col] = field($0, "strategy")
    date[col] = substr(field($0, "time"), 1, 10)
}
{
    in_ = field($0, "input")
    if (!(in_ in seen)) { seen[in_] = 1; order[++ninputs] = in_; values[in_] = field($0, "values") }
    if ((in_, col) in us) next   # the first row of each input in the file
    us[in_, col] = field($0, "iteration_device_median_us")
    ref[in_, col] = field($0, "reference_median_us")
    ok[in_, col] = field($0, "check")
}
END {
    names["test"] = "test dataset"; names["train"] = "train dataset"
    names["ref"] = "ref dataset"; names["wide"] = "wide eye (sigma 205 rows x 16 columns)"
    names["uniform"] = "uniform"; names["onebin"] = "one bin"
    printf "| input | values |"
    for (c = 1; c <= col; c++) printf " (%d) us (x C) |", c
    printf "\n| --- | ---: |"
    for (c = 1; c <= col; c++) printf " ---: |"
    printf "\n"
    for (i = 1; i <= ninputs; i++) {
        n = order[i]
        printf "| %s | %.2fM |", (n in names ? names[n] : n), values[n] / 1e6
        for (c = 1; c <= col; c++) {
            if ((n, c) in us && us[n, c] != "" && ok[n, c] == "byte-exact") {
                fmt = ref[n, c] / us[n, c] < 10 ? " %.1f (%.1fx) |" : " %.1f (%.0fx) |"
                printf fmt, us[n, c], ref[n, c] / us[n, c]
            } else if ((n, c) in us)
                printf " %s |", (ok[n, c] == "" ? "-" : ok[n, c])
            else
                printf " - |"
        }
        printf "\n"
    }
    printf "\n"
    for (c = 1; c <= col; c++)
        printf "(%d) %s (%s), %s strategy, %s, %s (`%s`).\n", c, device[c],
               platform[c], strategy[c], date[c], commit[c], file[c]
}' "$@"
