#!/bin/sh
# validate/report.sh - make report: the results log (make run's records)
# and the bench log (make bench's rows) as a table, a CSV and a plot.
#
#   [METRIC=all|wall|device|energy] [BY=device|commit|strategy]
#       sh validate/report.sh [-o PREFIX] LOG...
#
# Like is compared with like: a column holds one value of BY (device,
# the default, commit or strategy), one strategy and one metric, each
# named in the header. The metrics: wall (make run: the median over its
# runs of the host clock over the timed iterations, per iteration) and
# device (make bench: the median device time of one iteration, from
# OpenCL profiling events; make run's own with METRIC=device). METRIC=all
# (the default) takes each record's own metric; energy: millijoules per
# iteration from the device's own counter (histo.out's
# energy.joules_per_iteration; a record without one has no cell). Rows
# are datasets (make
# run: "dataset") or inputs (make bench: "input"). A cell is the latest
# record of its row and column: microseconds per iteration, the ratio (x:
# against the Spec's reference machine; host x: sequential C on the same
# host, make bench's and REFERENCE=host's) and PASS or FAIL. A failed
# record shows FAIL and no time. The table goes to standard output;
# PREFIX.csv (default results/report) holds the same, one column per
# field, PREFIX.html the table as a page with PREFIX.svg, the table as
# bars drawn by this script; PREFIX.png, where gnuplot is
# installed, draws the times as bars, one cluster per row, one bar per
# column. Every log is read by jq: a line that is not a JSON object is
# left out and named (on stderr, under the table and on the page);
# control characters in a record's text show as \xNN.
set -u
prefix=results/report
if [ "${1:-}" = -o ]; then
    prefix=$2
    shift 2
fi
by=${BY:-device}
case $by in
    device | commit | strategy) ;;
    *) echo "report: BY must be device, commit or strategy, not '$by'" >&2; exit 2 ;;
esac
metric=${METRIC:-all}
case $metric in
    all | wall | device | energy) ;;
    *) echo "report: METRIC must be all, wall, device or energy, not '$metric'" >&2; exit 2 ;;
esac
[ $# -gt 0 ] || { echo "usage: [METRIC=all|wall|device|energy] [BY=device|commit|strategy] report.sh [-o PREFIX] LOG..." >&2; exit 2; }
for f in "$@"; do
    [ -r "$f" ] || { echo "report: cannot read $f" >&2; exit 1; }
done
mkdir -p "$(dirname "$prefix")" || exit 1
. "$(dirname "$0")/record.sh"
# every line of every log through jq: a record again as one line of JSON,
# its strings with control characters as \xHH (REC_SHOW_DEFS), or, for a
# line that is not a JSON object (a run killed while it wrote, an edit by
# hand), "#NOTJSON<TAB>FILE<TAB>LINE<TAB>WHY"
for f in "$@"; do
    jq -R -r --arg file "$f" "$REC_SHOW_DEFS"'
        . as $line | input_line_number as $n
        | try ($line | fromjson
               | if type == "object" then walk(if type == "string" then shown else . end) | tojson
                 else error("not an object") end)
          catch "#NOTJSON\t\($file | shown)\t\($n)\t\(. | tostring | sub(" \\(while parsing .*"; "") | shown)"' "$f" || exit 1
done | awk -v by="$by" -v metric="$metric" -v csv="$prefix.csv" -v html="$prefix.html" -v dat="$prefix.dat" -v svg="$prefix.svg" -v svg_name="$(basename "$prefix").svg" "$(cat "$(dirname "$0")/jsonl.awk")"'
/^#NOTJSON\t/ { skipped[++nskip] = substr($0, 10); next }
/^\{/ {
    row = field($0, "dataset")
    if (row != "") {                      # make run
        kind = "wall"
        us = field($0, "s_per_iteration")
        ratio = field($0, "ratio")
        host = field($0, "reference_kind") == "host"
        result = field($0, "result")
        bad = ""
        if (metric == "device") {
            kind = "device"
            us = checked(field($0, "iteration_device_median_us"), "iteration_device_median_us", 1)
            ratio = ""
        } else {
            us = checked(field($0, "s_per_iteration"), "s_per_iteration", 1e6)
            ratio = checked(ratio, "ratio", 1)
            ratio = ratio == "" ? "" : sprintf("%.2f", ratio)
        }
        us = shown(us)
    } else {                              # make bench
        row = field($0, "input")
        if (row == "" || metric == "wall") next
        kind = "device"
        bad = ""
        us = checked(field($0, "iteration_device_median_us"), "iteration_device_median_us", 1)
        ref = checked(field($0, "reference_median_us"), "reference_median_us", 1)
        ratio = us != "" && ref != "" ? sprintf("%.2f", ref / us) : ""
        us = shown(us)
        host = 1
        result = field($0, "check") == "byte-exact" ? "PASS" : "FAIL"
    }
    if (metric == "energy") {
        kind = "energy"
        bad = ""
        us = checked(field($0, "energy_j_per_iteration"), "energy_j_per_iteration", 1e3)
        us = us == "" ? "" : sprintf("%.3f", us)
        ratio = ""
    }
    # a record whose figures cannot be (not a number, not above zero, not
    # finite) is INVALID, whatever its result says
    if (bad != "" && result == "PASS") result = "INVALID (" bad ")"
    # a failed record has no time and no ratio
    if (result != "PASS") { us = ""; ratio = "" }
    # a passing record without a figure in this metric has no cell
    c1 = named(field($0, by))
    # what else the column holds one of: the device and the strategy
    c2 = ""
    if (by != "device") c2 = named(field($0, "device"))
    if (by != "strategy") c2 = c2 (c2 != "" ? ", " : "") "strategy " named(field($0, "strategy"))
    col = c1 SUBSEP c2 SUBSEP kind
    if (result == "PASS" && us == "") { delete has[row, col]; next }
    if (!(row in seen_row)) { seen_row[row] = 1; rows[++nr] = row }
    if (!(col in seen_col)) {
        seen_col[col] = 1; cols[++nc] = col
        head1[nc] = c1; head2[nc] = c2
        head3[nc] = kind (kind == "energy" ? " mJ" : " us") "/iteration, ratio, result"
    }
    cell_us[row, col] = us; cell_ratio[row, col] = ratio == "" ? "" : (host ? "host x" : "x") ratio
    cell_result[row, col] = result; has[row, col] = 1
    # what a reviewer asks of the cell: base or peak, reportable, when,
    # which source (make bench rows have neither tuning nor reportable)
    t = field($0, "tuning"); cell_tuning[row, col] = t == "" || t == "null" ? "-" : t
    t = field($0, "reportable"); cell_rep[row, col] = t == "true" ? "reportable" : t == "false" ? "not reportable" : "-"
    cell_date[row, col] = substr(field($0, "time"), 1, 10)
    t = field($0, "commit"); m = field($0, "modified")
    cell_commit[row, col] = t == "" || t == "null" ? "-" : t (m == "true" ? "-modified" : m == "unknown" ? "-unverified" : "")
}
function named(x) { return x == "" || x == "null" ? "(none)" : x }
# checked(VALUE, NAME, SCALE): VALUE times SCALE where VALUE is a plain
# positive finite number; "" where absent (null); else "" and NAME noted
# in bad, the record then INVALID.
function checked(v, name, scale,    x) {
    if (v == "" || v == "null") return ""
    if (v !~ /^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/ || v + 0 <= 0 || v + 0 > 1e300) {
        bad = bad (bad != "" ? "; " : "") name " " v
        return ""
    }
    return v * scale
}
# a figure: one decimal, or three significant digits below 1
function shown(x) { return x == "" ? "" : x >= 1 ? sprintf("%.1f", x) : sprintf("%.3g", x) }
# a CSV field, quoted where it holds a comma, a quote or a line break
function csvf(x) { if (x ~ /[",\r\n]/) { gsub(/"/, "\"\"", x); x = "\"" x "\"" } return x }
function hline(label, h,    line, c) {
    line = sprintf("%-10s", label)
    for (c = 1; c <= nc; c++) line = line sprintf(" | %-*s", w, h[c])
    sub(/ +$/, "", line); print line
}
function esc(x) { gsub(/&/, "\\&amp;", x); gsub(/</, "\\&lt;", x); gsub(/>/, "\\&gt;", x); return x }
# The table as a bar chart (svg, beside the page, which shows it): a
# group of bars a row, a bar a column with a figure, each as long as its
# figure on one linear scale, labelled with it; each column a colour, in
# a legend. Written by the report itself: no plotting program needed.
function chart(    r, c, k, y, maxv, bar, gap, left, width, h, i, color, n, len) {
    split("#1b6ca8 #d1495b #edae49 #00798c #66a182 #8d6a9f #2e4057 #c97c5d", color, " ")
    maxv = 0
    for (r = 1; r <= nr; r++)
        for (c = 1; c <= nc; c++) {
            k = rows[r] SUBSEP cols[c]
            if ((k in has) && cell_us[k] != "" && cell_us[k] + 0 > maxv) maxv = cell_us[k] + 0
        }
    bar = 14; gap = 10; left = 150; width = 560
    h = 24 + 18 * nc + 10
    for (r = 1; r <= nr; r++) h += nc * bar + gap
    printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">\n", left + width + 120, h > svg
    printf "<title>%s per iteration by dataset and %s</title>\n", metric == "energy" ? "millijoules" : "microseconds", xesc(by) > svg
    y = 16
    for (c = 1; c <= nc; c++) {
        printf "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s</text>\n", left, y - 10, color[(c - 1) % 8 + 1], left + 18, y, xesc(head1[c] " " head2[c] " " substr(head3[c], 1, index(head3[c], ",") - 1)) > svg
        y += 18
    }
    y += 10
    n = 0
    for (r = 1; r <= nr; r++) {
        printf "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", left - 6, y + bar * nc / 2 + 4, xesc(rows[r]) > svg
        for (c = 1; c <= nc; c++) {
            k = rows[r] SUBSEP cols[c]
            if ((k in has) && cell_us[k] != "" && maxv > 0) {
                len = cell_us[k] / maxv * width
                if (len < 1) len = 1
                printf "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>", left, y, len, bar - 2, color[(c - 1) % 8 + 1] > svg
                printf "<text x=\"%.1f\" y=\"%d\">%s</text>\n", left + len + 4, y + bar - 4, cell_us[k] > svg
                n++
            }
            y += bar
        }
        y += gap
    }
    print "</svg>" > svg
    close(svg)
}
function xesc(x) { x = esc(x); gsub(/"/, "\\&quot;", x); return x }
END {
    left = ""
    for (i = 1; i <= nskip; i++) {
        if (skipped[i] == "") continue
        split(skipped[i], part, "\t")
        printf "report: %s line %s is not JSON (%s): left out\n", part[1], part[2], part[3] > "/dev/stderr"
        left = left (left != "" ? "; " : "") part[1] " line " part[2]
    }
    if (nr == 0) { print "report: no record has a figure for METRIC=" metric > "/dev/stderr"; exit 1 }
    w = 27
    for (c = 1; c <= nc; c++) {
        if (length(head1[c]) > w) w = length(head1[c])
        if (length(head2[c]) > w) w = length(head2[c])
        if (length(head3[c]) > w) w = length(head3[c])
    }
    hline("dataset", head1)
    hline("", head2)
    hline("", head3)
    printf "dataset," > csv
    for (c = 1; c <= nc; c++) {
        t = head1[c] " " head2[c] " " substr(head3[c], 1, index(head3[c], " ") - 1)
        printf "%s,%s,%s,%s,%s,%s,%s%s", csvf(t " " (metric == "energy" ? "mJ" : "us") " per iteration"), csvf(t " ratio"), csvf(t " result"), csvf(t " tuning"), csvf(t " reportable"), csvf(t " date"), csvf(t " commit"), c < nc ? "," : "\n" > csv
    }
    print "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\" />\n<title>histo: make report</title>" > html
    print "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}th,td{border:1px solid #999;padding:2px 8px;text-align:left}th{background:#eee}</style>\n</head>\n<body>\n<h1>histo: make report</h1>\n<table>" > html
    for (k = 1; k <= 3; k++) {
        printf "<tr><th>%s</th>", k == 1 ? "dataset" : "" > html
        for (c = 1; c <= nc; c++) printf "<th>%s</th>", esc(k == 1 ? head1[c] : k == 2 ? head2[c] : head3[c]) > html
        print "</tr>" > html
    }
    printf "row" > dat
    for (c = 1; c <= nc; c++) {
        t = head1[c] "/" head2[c] "/" substr(head3[c], 1, index(head3[c], " ") - 1)
        gsub(/strategy /, "", t); gsub(/, /, "/", t)
        gsub(/[ \t]/, "_", t); printf " %s", t > dat
    }
    printf "\n" > dat
    for (r = 1; r <= nr; r++) {
        line = sprintf("%-10s", rows[r])
        printf "%s,", csvf(rows[r]) > csv
        printf "%s", rows[r] > dat
        printf "<tr><th>%s</th>", esc(rows[r]) > html
        for (c = 1; c <= nc; c++) {
            k = rows[r] SUBSEP cols[c]
            if (!(k in has)) cell = "-"
            else if (cell_result[k] != "PASS") cell = cell_result[k]
            else cell = sprintf("%s %s, %s, %s", cell_us[k] == "" ? "-" : cell_us[k],
                                metric == "energy" ? "mJ" : "us",
                                cell_ratio[k] == "" ? "-" : cell_ratio[k], cell_result[k])
            line = line sprintf(" | %-*s", w, cell)
            if (k in has)
                printf "<td>%s<br /><small>%s, %s, %s, %s</small></td>", esc(cell), esc(cell_tuning[k]), esc(cell_rep[k]), esc(cell_date[k]), esc(cell_commit[k]) > html
            else
                printf "<td>%s</td>", esc(cell) > html
            printf "%s,%s,%s,%s,%s,%s,%s%s", (k in has) ? cell_us[k] : "", (k in has) ? cell_ratio[k] : "",
                   (k in has) ? csvf(cell_result[k]) : "", (k in has) ? csvf(cell_tuning[k]) : "",
                   (k in has) ? cell_rep[k] : "", (k in has) ? cell_date[k] : "",
                   (k in has) ? csvf(cell_commit[k]) : "", c < nc ? "," : "\n" > csv
            printf " %s", (k in has) && cell_us[k] != "" ? cell_us[k] : "NaN" > dat
        }
        sub(/ +$/, "", line); print line
        printf "\n" > dat
        print "</tr>" > html
    }
    if (left != "") print "(left out, not JSON: " left ")"
    print "</table>" > html
    if (left != "") print "<p>Left out, not JSON: " esc(left) ".</p>" > html
    chart()
    printf "<p><img src=\"%s\" alt=\"%s per iteration by %s and %s, one bar a cell with a figure\" /></p>\n", svg_name, metric == "energy" ? "millijoules" : "microseconds", "dataset", by > html
    # the legend: only what the table shows
    for (c = 1; c <= nc; c++) shown_kind[substr(head3[c], 1, index(head3[c], " ") - 1)] = 1
    for (k in cell_ratio) { if (cell_ratio[k] ~ /^host x/) shown_host = 1; else if (cell_ratio[k] ~ /^x/) shown_x = 1 }
    legend = ""
    if ("wall" in shown_kind) legend = legend "wall: make run, the median over its runs of the host clock over the timed iterations. "
    if ("device" in shown_kind) legend = legend "device: the median device time of one iteration (OpenCL profiling events). "
    if ("energy" in shown_kind) legend = legend "energy: millijoules per iteration from the device\047s own counter (NVML, RAPL). "
    if (shown_x) legend = legend "x: the ratio to the Spec reference machine. "
    if (shown_host) legend = legend "host x: the ratio to sequential C on the same host. "
    legend = legend "Under each figure: base or peak, reportable or not (make run), the date and the commit. A failed record shows no time."
    print "<p>" legend "</p>\n</body>\n</html>" > html
}' || exit 1
echo "CSV: $prefix.csv"
echo "HTML: $prefix.html (its chart: $prefix.svg)"
if command -v gnuplot >/dev/null 2>&1; then
    cols=$(head -n 1 "$prefix.dat" | wc -w)
    gnuplot <<GP || exit 1
set terminal pngcairo size 1200,700 noenhanced
set output "$prefix.png"
set title "histo: $([ "$metric" = energy ] && echo millijoules || echo microseconds) per iteration, by dataset and $by"
set ylabel "$([ "$metric" = energy ] && echo millijoules || echo microseconds) per iteration"
set logscale y
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key outside right
plot for [i=2:$cols] "$prefix.dat" using i:xtic(1) title columnhead(i)
GP
    echo "plot: $prefix.png"
else
    echo "(gnuplot not installed: no plot)"
fi
rm -f "$prefix.dat"
