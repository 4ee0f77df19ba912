#!/bin/sh
# validate/report.sh - make report: the results log (make run's records)
# and the bench log (make bench's rows) as a table, a CSV and a plot.
#
#   [METRIC=all|wall|device|energy] [BY=device|commit|strategy] [ALL=1]
#       sh validate/report.sh [-o PREFIX] LOG...
#
# Like is compared with like. A column holds one value of BY (device,
# the default, named with its platform; commit or strategy), and one of
# each of the rest: platform and device, strategy, base or peak, the
# Spec's iterations or fewer (a quick run), the ratio's reference (the
# Spec's machine or this host's sequential C; make bench rows are their
# own), and the metric; the header names each, under the column's number.
# The metrics: wall (make run: the median over its runs of the host
# clock over the timed iterations, per iteration) and device (make bench:
# the median device time of one iteration, from OpenCL profiling events;
# make run's own with METRIC=device). METRIC=all (the default) takes
# each record's own metric; energy: millijoules per iteration from the
# device's own counter (histo.out's energy.joules_per_iteration; a record
# without one has no cell). Rows are datasets (make run: "dataset") or
# inputs (make bench: "input"). A cell shows one record of its row and
# column: a reportable one before others, then one of 3 runs or more,
# then the newest; microseconds per iteration, the ratio (x: against the
# Spec's reference machine; host x: sequential C on the same host) and
# PASS or FAIL. A failed record shows FAIL and no time. ALL=1 lists every
# record under the table, with its time and commit. The table goes to
# standard output; PREFIX.csv (default results/report) holds the same,
# one column per field, PREFIX.html the table as a page, with its chart
# PREFIX.svg drawn by gnuplot: a panel a dataset on its own log scale, a
# bar a column, base and peak apart, the runs' fastest and slowest as
# whiskers, R over a reportable result. Every log is read by jq: a line
# that is not a JSON object is left out and named (on stderr, under the
# table and on the page); control characters in a record's text show as
# \xNN.
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
done | awk -v by="$by" -v metric="$metric" -v csv="$prefix.csv" -v html="$prefix.html" -v dat="$prefix.dat" -v svg_name="$(basename "$prefix").svg" -v chart="$(command -v gnuplot >/dev/null 2>&1 && echo 1)" -v all_records="${ALL:-}" "$(cat "$(dirname "$0")/jsonl.awk")"'
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
    pf = field($0, "platform")
    if (by == "device" && pf != "" && pf != "null") c1 = pf ": " c1
    # what else the column holds one of: the device and the strategy
    c2 = ""
    if (by != "device") c2 = (pf != "" && pf != "null" ? pf ": " : "") named(field($0, "device"))
    if (by != "strategy") c2 = c2 (c2 != "" ? ", " : "") "strategy " named(field($0, "strategy"))
    # like with like: base or peak, the Spec iterations or fewer (a
    # quick run), and what the ratio is against
    if (field($0, "dataset") != "") {
        t = field($0, "tuning"); t = t == "" || t == "null" ? "base" : t
        it = field($0, "iterations"); si = field($0, "spec_iterations")
        c3 = t ", " (si == "" || si == "null" || it == si ? "Spec iterations" : "quick: " it " iterations") \
             ", " (host ? "vs host C" : "vs Spec reference")
    } else
        c3 = "make bench, vs host C"
    col = c1 SUBSEP c2 SUBSEP c3 SUBSEP kind
    # every record, for ALL=1
    all[++nall] = sprintf("%s | %s | %s | %s | %s | %s | %s", row, c1 " " c2 " " c3, substr(field($0, "time"), 1, 16),
                          named(field($0, "commit")), result, us == "" ? "-" : us " " (kind == "energy" ? "mJ" : "us"),
                          field($0, "reportable") == "true" ? "reportable" : "not reportable")
    # which record a cell shows: a reportable one before others, then
    # one of 3 runs or more, then the newest (the logs are in time order)
    rank = (field($0, "reportable") == "true" ? 2 : 0) + (field($0, "runs") + 0 >= 3 ? 1 : 0)
    if ((row, col) in cell_rank && rank < cell_rank[row, col]) { superseded[row, col]++; next }
    if ((row, col) in cell_rank) superseded[row, col]++
    cell_rank[row, col] = rank
    if (result == "PASS" && us == "") { delete has[row, col]; next }
    if (!(row in seen_row)) { seen_row[row] = 1; rows[++nr] = row }
    if (!(col in seen_col)) {
        seen_col[col] = 1; cols[++nc] = col
        head1[nc] = c1; head2[nc] = c2; head3[nc] = c3
        head4[nc] = kind (kind == "energy" ? " mJ" : " us") "/iteration, ratio, result"
    }
    cell_us[row, col] = us; cell_ratio[row, col] = ratio == "" ? "" : (host ? "host x" : "x") ratio
    cell_min[row, col] = ""; cell_max[row, col] = ""
    if (kind == "wall" && metric != "energy" && result == "PASS") {
        lo = checked(field($0, "s_per_iteration_min"), "s_per_iteration_min", 1e6)
        hi = checked(field($0, "s_per_iteration_max"), "s_per_iteration_max", 1e6)
        if (lo != "" && hi != "") { cell_min[row, col] = lo; cell_max[row, col] = hi }
    }
    cell_result[row, col] = result; has[row, col] = 1
    # what a reviewer asks of the cell: reportable, when, which source
    # (make bench rows have no reportable)
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
        if (length(head4[c]) > w) w = length(head4[c])
    }
    for (c = 1; c <= nc; c++) colnum[c] = "column " c
    hline("", colnum)
    hline("dataset", head1)
    hline("", head2)
    hline("", head3)
    hline("", head4)
    printf "dataset," > csv
    for (c = 1; c <= nc; c++) {
        t = head1[c] " " head2[c] " " head3[c] " " substr(head4[c], 1, index(head4[c], " ") - 1)
        printf "%s,%s,%s,%s,%s,%s,%s%s", csvf(t " " (metric == "energy" ? "mJ" : "us") " per iteration"), csvf(t " ratio"), csvf(t " result"), csvf(t " tuning"), csvf(t " reportable"), csvf(t " date"), csvf(t " commit"), c < nc ? "," : "\n" > csv
    }
    print "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\" />\n<title>histo: make report</title>" > html
    print "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}th,td{border:1px solid #999;padding:2px 8px;text-align:left}th{background:#eee}</style>\n</head>\n<body>\n<h1>histo: make report</h1>\n<table>" > html
    for (k = 0; k <= 4; k++) {
        printf "<tr><th>%s</th>", k == 1 ? "dataset" : "" > html
        for (c = 1; c <= nc; c++) printf "<th>%s</th>", k == 0 ? "column " c : esc(k == 1 ? head1[c] : k == 2 ? head2[c] : k == 3 ? head3[c] : head4[c]) > html
        print "</tr>" > html
    }
    for (r = 1; r <= nr; r++) {
        line = sprintf("%-10s", rows[r])
        printf "%s,", csvf(rows[r]) > csv
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
                printf "<td>%s<br /><small>%s, %s, %s, %s%s</small></td>", esc(cell), esc(cell_tuning[k]), esc(cell_rep[k]), esc(cell_date[k]), esc(cell_commit[k]), superseded[k] ? sprintf("; %d other record%s (ALL=1)", superseded[k], superseded[k] > 1 ? "s" : "") : "" > html
            else
                printf "<td>%s</td>", esc(cell) > html
            printf "%s,%s,%s,%s,%s,%s,%s%s", (k in has) ? cell_us[k] : "", (k in has) ? cell_ratio[k] : "",
                   (k in has) ? csvf(cell_result[k]) : "", (k in has) ? csvf(cell_tuning[k]) : "",
                   (k in has) ? cell_rep[k] : "", (k in has) ? cell_date[k] : "",
                   (k in has) ? csvf(cell_commit[k]) : "", c < nc ? "," : "\n" > csv
            # the data of the chart: a block a dataset, a line a figure
            if ((k in has) && cell_us[k] != "" && ++row_figures[rows[r]])
                printf "%d %s %s %s %d %s %d\n", c, cell_us[k], cell_min[k] != "" ? cell_min[k] : cell_us[k],
                       cell_max[k] != "" ? cell_max[k] : cell_us[k], head3[c] ~ /^peak/ ? 2 : 1,
                       cell_rep[k] == "reportable" ? "R" : "\"\"", head3[c] ~ /quick:/ ? 1 : 0 > dat
        }
        sub(/ +$/, "", line); print line
        if (row_figures[rows[r]]) printf "\n\n" > dat
        print "</tr>" > html
    }
    if (left != "") print "(left out, not JSON: " left ")"
    print "</table>" > html
    if (left != "") print "<p>Left out, not JSON: " esc(left) ".</p>" > html
    if (chart)
        printf "<p><img src=\"%s\" alt=\"%s per iteration, a panel a dataset, a bar a column of the table\" /></p>\n", svg_name, metric == "energy" ? "millijoules" : "microseconds" > html
    else
        print "<p>No chart: gnuplot is not installed (make deps installs it).</p>" > html
    close(dat)
    for (r = 1; r <= nr; r++) if (row_figures[rows[r]]) print rows[r] > (dat ".names")
    close(dat ".names")
    print nc > (dat ".columns")
    # every record, newest last (ALL=1)
    if (all_records) {
        print ""
        print "every record (dataset | column | time | commit | result | figure | reportable):"
        for (i = 1; i <= nall; i++) print all[i]
    }
    # the legend: only what the table shows
    for (c = 1; c <= nc; c++) shown_kind[substr(head4[c], 1, index(head4[c], " ") - 1)] = 1
    for (k in cell_ratio) { if (cell_ratio[k] ~ /^host x/) shown_host = 1; else if (cell_ratio[k] ~ /^x/) shown_x = 1 }
    legend = ""
    if ("wall" in shown_kind) legend = legend "wall: make run, the median over its runs of the host clock over the timed iterations. "
    if ("device" in shown_kind) legend = legend "device: the median device time of one iteration (OpenCL profiling events). "
    if ("energy" in shown_kind) legend = legend "energy: millijoules per iteration from the device\047s own counter (NVML, RAPL). "
    if (shown_x) legend = legend "x: the ratio to the Spec reference machine. "
    if (shown_host) legend = legend "host x: the ratio to sequential C on the same host. "
    legend = legend "A column is one platform and device, strategy, base or peak, the Spec\047s iterations or fewer (quick), and what the ratio is against: a quick or peak run never stands in for a full base result. A cell shows a reportable record before others, then one of 3 runs or more, then the newest. Under each figure: base or peak, reportable or not (make run), the date, the commit, and how many other records the cell has (ALL=1 lists them). A failed record shows no time."
    print "<p>" legend "</p>\n</body>\n</html>" > html
}' || exit 1
echo "CSV: $prefix.csv"
echo "HTML: $prefix.html"
# the chart: a panel a dataset (its own log scale), a bar a column of
# the table with a figure, base and peak in two colours, a quick run's
# bar hatched, the runs' fastest
# and slowest as whiskers (make run's wall times), R over a reportable one
if command -v gnuplot >/dev/null 2>&1; then
    panels=$(grep -c . "$prefix.dat.names")
    columns=$(cat "$prefix.dat.columns")
    unit=$([ "$metric" = energy ] && echo "millijoules" || echo "microseconds")
    {
        echo "set terminal svg size $((260 + 60 * columns)),$((60 + 230 * panels)) font 'sans,11' noenhanced"
        echo "set output '$(echo "$prefix.svg" | sed "s/'/''/g")'"
        echo "set multiplot layout $panels,1 title '$unit per iteration, one panel a dataset (log scale; lower is better)'"
        echo "set logscale y"
        echo "set ylabel '$unit per iteration'"
        echo "set xlabel 'column of the table (R: reportable)'"
        echo "set xrange [0.4:$columns + 0.6]"
        echo "set xtics 1 nomirror"
        echo "set grid ytics"
        echo "set boxwidth 0.6"
        echo "set style fill solid 0.75 border -1"
        echo "set linetype 1 lc rgb '#1b6ca8'"
        echo "set linetype 2 lc rgb '#d1495b'"
        echo "set key outside right top"
        i=0
        while IFS= read -r name; do
            echo "set title 'dataset $(printf '%s' "$name" | sed "s/'/''/g")'"
            echo "plot '$prefix.dat' index $i using 1:(\$7 == 0 ? \$2 : 1/0):5 with boxes lc variable notitle, \\"
            echo "     '' index $i using 1:(\$7 == 1 ? \$2 : 1/0):5 with boxes lc variable fs pattern 4 border notitle, \\"
            echo "     '' index $i using 1:2:3:4 with yerrorbars lc rgb 'black' pt 0 title 'fastest to slowest run', \\"
            echo "     '' index $i using 1:2:6 with labels offset 0,0.8 notitle, \\"
            echo "     keyentry with boxes lc 1 title 'base', keyentry with boxes lc 2 title 'peak', \\"
            echo "     keyentry with boxes lc rgb 'gray40' fs pattern 4 border title 'quick: fewer iterations than the Spec'"
            i=$((i + 1))
        done <"$prefix.dat.names"
        echo "unset multiplot"
    } >"$prefix.gp"
    gnuplot "$prefix.gp" >"$prefix.gp.log" 2>&1 \
        || { echo "report: gnuplot failed: $(head -c 300 "$prefix.gp.log")" >&2; exit 1; }
    rm -f "$prefix.gp" "$prefix.gp.log"
    echo "chart: $prefix.svg"
else
    echo "(gnuplot not installed: no chart; make deps installs it)"
fi
rm -f "$prefix.dat" "$prefix.dat.names" "$prefix.dat.columns"
