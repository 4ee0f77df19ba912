# validate/jsonl.awk - field(line, key): the value of "key" in one flat
# JSON line as the harness and make bench write them (strings, numbers,
# true/false/null), quotes removed and a string's escapes \" \\ \/ \n \t
# \r \b \f undone (\uXXXX stays as written); "" when absent.
# Prepended to the awk programs of validate/report.sh, bench/bench-plot.sh,
# bench/results-table.sh and bench/scaling-table.sh.
function field(line, key,    m, out, c, i) {
    if (!match(line, "\"" key "\":(\"([^\"\\\\]|\\\\.)*\"|[^,}]*)"))
        return ""
    m = substr(line, RSTART + length(key) + 3, RLENGTH - length(key) - 3)
    if (substr(m, 1, 1) != "\"")
        return m
    m = substr(m, 2, length(m) - 2)
    if (index(m, "\\") == 0)
        return m
    out = ""
    for (i = 1; i <= length(m); i++) {
        c = substr(m, i, 1)
        if (c == "\\" && i < length(m)) {
            c = substr(m, ++i, 1)
            if (c == "n") c = "\n"
            else if (c == "t") c = "\t"
            else if (c == "r") c = "\r"
            else if (c == "b") c = "\b"
            else if (c == "f") c = "\f"
            else if (c == "u") c = "\\u"
        }
        out = out c
    }
    return out
}
