# validate/jsonl.awk - field(line, key): the value of "key" in one flat
# JSON line as the harness and make bench write them (strings without
# escapes, numbers, true/false/null), quotes removed; "" when absent.
# Prepended to the awk programs of validate/report.sh, bench/bench-plot.sh,
# bench/results-table.sh and bench/scaling-table.sh.
function field(line, key,    m) {
    if (match(line, "\"" key "\":(\"[^\"]*\"|[^,}]*)")) {
        m = substr(line, RSTART + length(key) + 3, RLENGTH - length(key) - 3)
        gsub(/"/, "", m)
        return m
    }
    return ""
}
