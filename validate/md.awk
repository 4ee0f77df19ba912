# validate/md.awk - the Markdown that docs/flags.md uses, as an HTML page
# (make run puts flags.html beside each result; awk -v title=T -f md.awk
# FILE.md): "#" headings, paragraphs, "- " lists with continued lines,
# pipe tables (the row after the header is the rule), `code` and
# [text](href) inline. Nothing else of Markdown is read: a construct
# outside this subset is shown as its text, escaped.
function esc(x) { gsub(/&/, "\\&amp;", x); gsub(/</, "\\&lt;", x); gsub(/>/, "\\&gt;", x); gsub(/"/, "\\&quot;", x); return x }
# inline: code spans first (their text is literal), then links elsewhere
function inline(x,    out, i, j, seg, t, u, k) {
    out = ""
    while ((i = index(x, "`")) > 0 && (j = index(substr(x, i + 1), "`")) > 0) {
        out = out links(substr(x, 1, i - 1)) "<code>" esc(substr(x, i + 1, j - 1)) "</code>"
        x = substr(x, i + j + 1)
    }
    return out links(x)
}
function links(x,    out) {
    out = ""
    while (match(x, /\[[^]]*\]\([^) ]*\)/)) {
        seg = substr(x, RSTART, RLENGTH)
        k = index(seg, "](")
        t = substr(seg, 2, k - 2); u = substr(seg, k + 2, length(seg) - k - 2)
        out = out esc(substr(x, 1, RSTART - 1)) "<a href=\"" esc(u) "\">" esc(t) "</a>"
        x = substr(x, RSTART + RLENGTH)
    }
    return out esc(x)
}
function close_block() {
    if (para != "") { print "<p>" inline(para) "</p>"; para = "" }
    if (item != "") { print "<li>" inline(item) "</li>"; item = "" }
    if (in_list) { print "</ul>"; in_list = 0 }
    if (in_table) { print "</table>"; in_table = 0 }
}
function cells(line, tag,    n, c, i, s) {
    sub(/^ *\| */, "", line); sub(/ *\| *$/, "", line)
    n = split(line, c, / *\| */)
    s = "<tr>"
    for (i = 1; i <= n; i++) s = s "<" tag ">" inline(c[i]) "</" tag ">"
    return s "</tr>"
}
BEGIN {
    print "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\" />"
    printf "<title>%s</title>\n", esc(title)
    print "<style>body{font-family:sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse}th,td{border:1px solid #999;padding:2px 8px;text-align:left;vertical-align:top}th{background:#eee}code{background:#f4f4f4}</style>"
    print "</head>\n<body>"
}
/^#+ / {
    close_block()
    n = match($0, /^#+/); lvl = RLENGTH > 6 ? 6 : RLENGTH
    printf "<h%d>%s</h%d>\n", lvl, inline(substr($0, lvl + 2)), lvl
    next
}
/^ *\|/ {
    if (!in_table) { close_block(); print "<table>"; in_table = 1; print cells($0, "th"); rule = 1; next }
    if (rule) { rule = 0; if ($0 ~ /^ *\|[ :|-]*$/) next }
    print cells($0, "td")
    next
}
/^- / {
    if (para != "" || in_table) close_block()
    if (!in_list) { print "<ul>"; in_list = 1 }
    if (item != "") print "<li>" inline(item) "</li>"
    item = substr($0, 3)
    next
}
/^[ \t]*$/ { close_block(); next }
{
    if (in_table) close_block()
    if (in_list && /^  /) { sub(/^ +/, ""); item = item " " $0; next }
    if (in_list) close_block()
    para = para (para != "" ? " " : "") $0
}
END { close_block(); print "</body>\n</html>" }
