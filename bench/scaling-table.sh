#!/bin/sh
# bench/scaling-table.sh - the README's scaling table from make scaling
# rows committed in docs/bench/ (one file per device and run), or with
# arguments from any others.
#
#   sh bench/scaling-table.sh [ROWS.jsonl...]
#
# One column per file, in the order given: a cell is the median time per
# iteration (with several devices the timed loop's wall mean) and, in
# brackets, the effective rate (input bytes / time). Rows
# are input size x residency x devices, in the order first seen. The
# caption names each column's device, platform, strategy, date, commit
# and file. docs-check compares the table in README.md with this output.
set -u
cd "$(dirname "$0")/.." || exit 1
[ $# -gt 0 ] || set -- docs/bench/h100-c063043-scaling.jsonl docs/bench/h200-b03c675-scaling.jsonl \
    docs/bench/pocl-2core-5c31465-scaling.jsonl docs/bench/h200x2-a90f267-scaling.jsonl \
    docs/bench/h200x4-dcef8ea-scaling.jsonl docs/bench/h200x4-be73bda-streamed.jsonl
col=0
for f in "$@"; do
    col=$((col + 1))
    [ -s "$f" ] || { echo "scaling-table: $f is missing or empty" >&2; exit 1; }
    sed "s|^|$col	$f	|" "$f"
done | awk -F '\t' "$(cat validate/jsonl.awk)"'
function size(v) {
    return v >= 1e9 ? sprintf("%.2fG", v / 1e9) : sprintf("%.2fM", v / 1e6)
}
{
    c = $1; line = $3
    if (c > ncol) ncol = c
    if (!(c in file)) {
        file[c] = $2
        device[c] = field(line, "device")
        platform[c] = field(line, "platform")
        strategy[c] = field(line, "strategy")
        date[c] = substr(field(line, "time"), 1, 10)
        commit[c] = field(line, "commit")
    }
    v = field(line, "values") + 0
    n = field(line, "shares") + 0
    mode = field(line, "mode") == "device" ? "resident" : "streamed"
    if (mode == "streamed" && field(line, "host_memory") != "")
        host[c] = field(line, "host_memory")
    # --device all: a row of its own, each cell saying how many it used
    all = field(line, "devices") == "all"
    row = size(v) " | " mode " | " (all ? "all" : n == 1 ? "one" : n " devices")
    if (!(row in seen)) { seen[row] = 1; order[++nrows] = row }
    if ((row, c) in us) next
    # several devices: the wall mean of the timed loop (their clocks need not
    # agree), where the row has it
    us[row, c] = n > 1 && field(line, "wall_mean_us") != "" \
        ? field(line, "wall_mean_us") : field(line, "iteration_median_us")
    bytes[row, c] = v * 4
    ok[row, c] = field(line, "check")
    used[row, c] = all ? ", " n " used" : ""
}
END {
    printf "| values | input | devices |"
    for (c = 1; c <= ncol; c++) printf " (%d) us (GB/s) |", c
    printf "\n| ---: | --- | --- |"
    for (c = 1; c <= ncol; c++) printf " ---: |"
    printf "\n"
    for (r = 1; r <= nrows; r++) {
        row = order[r]
        printf "| %s |", row
        for (c = 1; c <= ncol; c++) {
            if (!((row, c) in us)) { printf " - |"; continue }
            u = us[row, c]
            printf " %.1f (%.1f)%s%s |", u, bytes[row, c] / (u * 1e3),
                used[row, c], ok[row, c] == "byte-exact" ? "" : " " ok[row, c]
        }
        printf "\n"
    }
    printf "\nSeveral devices: the wall time of the timed loop over its iterations; all: --device all, and how many devices it used.\n"
    for (c = 1; c <= ncol; c++)
        printf "(%d) %s (%s), %s strategy, %s, commit %s%s (`%s`).\n", c,
            device[c], platform[c], strategy[c], date[c], commit[c],
            c in host ? ", streamed from " host[c] " host memory" : "",
            file[c]
}'
