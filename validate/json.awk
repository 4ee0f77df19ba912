# validate/json.awk - flattens JSON text (one document per input line, as
# the harness's records are) into "PATH<TAB>VALUE" lines, one per scalar,
# in document order: PATH is the keys and array indexes from the top,
# joined by dots (run_list.0.result, env.POCL_DEVICES); strings are
# unescaped (\uXXXX kept as written), numbers, true, false and null are
# as written. A document that is not JSON ends the program with status 1
# and a message naming the line and the offset. validate/result.sh reads
# records through it. With -v check=1 nothing is flattened: each line
# that is not JSON prints "LINE: offset N: WHAT" on standard output, and
# the program goes on to the next (validate/report.sh).
function fail(what) {
    if (err != "") return
    err = what
    if (check) return
    printf "json.awk: line %d, offset %d: %s\n", NR, pos, what > "/dev/stderr"
    bad = 1
    exit 1
}
function emit(path, v) { if (!check) printf "%s\t%s\n", path, v }
function ws() { while (pos <= len && index(" \t\r\n", substr(s, pos, 1))) pos++ }
function str(    out, c, e) {
    if (substr(s, pos, 1) != "\"") { fail("a string expected"); return }
    pos++
    out = ""
    while (pos <= len) {
        c = substr(s, pos, 1)
        if (c == "\"") { pos++; return out }
        if (c == "\\") {
            e = substr(s, pos + 1, 1)
            if (e == "n") out = out "\n"
            else if (e == "t") out = out "\t"
            else if (e == "r") out = out "\r"
            else if (e == "b" || e == "f") out = out " "
            else if (e == "u") { out = out substr(s, pos, 6); pos += 4 }
            else if (e == "\"" || e == "\\" || e == "/") out = out e
            else { fail("a bad escape"); return }
            pos += 2
            continue
        }
        if (c < " ") { fail("a control character in a string"); return }
        out = out c
        pos++
    }
    fail("an unterminated string")
}
function value(path,    c, k, i, m) {
    ws()
    c = substr(s, pos, 1)
    if (c == "{") {
        pos++; ws()
        if (substr(s, pos, 1) == "}") { pos++; return }
        for (;;) {
            ws(); k = str(); ws()
            if (err != "") return
            if (substr(s, pos, 1) != ":") { fail("':' expected"); return }
            pos++
            value(path == "" ? k : path "." k)
            if (err != "") return
            ws(); c = substr(s, pos, 1); pos++
            if (c == "}") return
            if (c != ",") { fail("',' or '}' expected"); return }
        }
    }
    if (c == "[") {
        pos++; ws()
        if (substr(s, pos, 1) == "]") { pos++; return }
        for (i = 0; ; i++) {
            value(path "." i)
            if (err != "") return
            ws(); c = substr(s, pos, 1); pos++
            if (c == "]") return
            if (c != ",") { fail("',' or ']' expected"); return }
        }
    }
    if (c == "\"") { k = str(); if (err == "") emit(path, k); return }
    if (match(substr(s, pos), /^(-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?|true|false|null)/)) {
        emit(path, substr(s, pos, RLENGTH))
        pos += RLENGTH
        return
    }
    fail("a value expected")
}
{
    s = $0; len = length(s); pos = 1; err = ""
    ws()
    if (pos > len) next
    value("")
    ws()
    if (err == "" && pos <= len) fail("text after the document")
    if (check && err != "") printf "%d: offset %d: %s\n", NR, pos, err
}
END { if (bad) exit 1 }
