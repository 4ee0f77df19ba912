#!/bin/sh
# validate/report.sh - make report: the results log (make run's records)
# and the bench log (make bench's rows) as a table, a CSV and a plot.
#
#   sh validate/report.sh [-o PREFIX] [BY] LOG...
#
# BY (default device) is device, commit or strategy: one column per value.
# Rows are datasets (make run: "dataset") or inputs (make bench: "input").
# A cell is the latest record of its row and column: microseconds per
# iteration (make run: the median seconds per iteration of its runs, wall
# clock; make bench: the median device time), the ratio (make run: its
# "ratio"; make bench: sequential C's time over histo's on that host) and
# PASS or FAIL (make bench: byte-exact or not). The table goes to standard
# output; PREFIX.csv (default results/report) holds the same, one column
# per field; PREFIX.png, where gnuplot is installed, draws the times as
# bars, one cluster per row, one bar per column.
set -u
prefix=results/report
if [ "${1:-}" = -o ]; then
    prefix=$2
    shift 2
fi
by=device
case ${1:-} in
    device | commit | strategy) by=$1; shift ;;
esac
[ $# -gt 0 ] || { echo "usage: report.sh [-o PREFIX] [device|commit|strategy] LOG..." >&2; exit 2; }
for f in "$@"; do
    [ -r "$f" ] || { echo "report: cannot read $f" >&2; exit 1; }
done
mkdir -p "$(dirname "$prefix")" || exit 1
awk -v by="$by" -v csv="$prefix.csv" -v dat="$prefix.dat" "$(cat "$(dirname "$0")/jsonl.awk")"'
/^\{/ {
    row = field($0, "dataset")
    if (row != "") {                      # make run
        us = field($0, "s_per_iteration")
        us = us == "" || us == "null" ? "" : sprintf("%.1f", us * 1e6)
        ratio = field($0, "ratio")
        result = field($0, "result")
    } else {                              # make bench
        row = field($0, "input")
        if (row == "") next
        us = field($0, "iteration_device_median_us")
        us = us == "" ? "" : sprintf("%.1f", us)
        ref = field($0, "reference_median_us")
        ratio = us != "" && ref != "" && us > 0 ? sprintf("%.2f", ref / us) : ""
        result = field($0, "check") == "byte-exact" ? "PASS" : "FAIL"
    }
    if (ratio == "null") ratio = ""
    col = field($0, by)
    if (col == "") col = "(none)"
    if (!(row in seen_row)) { seen_row[row] = 1; rows[++nr] = row }
    if (!(col in seen_col)) { seen_col[col] = 1; cols[++nc] = col }
    cell_us[row, col] = us; cell_ratio[row, col] = ratio
    cell_result[row, col] = result; has[row, col] = 1
}
END {
    if (nr == 0) { print "report: no records" > "/dev/stderr"; exit 1 }
    w = 27
    for (c = 1; c <= nc; c++) if (length(cols[c]) > w) w = length(cols[c])
    line = sprintf("%-10s", "dataset")
    for (c = 1; c <= nc; c++) line = line sprintf(" | %-*s", w, cols[c])
    sub(/ +$/, "", line); print line
    line = sprintf("%-10s", "")
    for (c = 1; c <= nc; c++) line = line sprintf(" | %-*s", w, "us/iteration, ratio, result")
    sub(/ +$/, "", line); print line
    printf "dataset," > csv
    for (c = 1; c <= nc; c++)
        printf "%s us per iteration,%s ratio,%s result%s", cols[c], cols[c], cols[c], c < nc ? "," : "\n" > csv
    printf "row" > dat
    for (c = 1; c <= nc; c++) { t = cols[c]; gsub(/[ \t]/, "_", t); printf " %s", t > dat }
    printf "\n" > dat
    for (r = 1; r <= nr; r++) {
        line = sprintf("%-10s", rows[r])
        printf "%s,", rows[r] > csv
        printf "%s", rows[r] > dat
        for (c = 1; c <= nc; c++) {
            k = rows[r] SUBSEP cols[c]
            if (k in has)
                cell = sprintf("%s us, x%s, %s", cell_us[k] == "" ? "-" : cell_us[k],
                               cell_ratio[k] == "" ? "-" : cell_ratio[k], cell_result[k])
            else
                cell = "-"
            line = line sprintf(" | %-*s", w, cell)
            printf "%s,%s,%s%s", (k in has) ? cell_us[k] : "", (k in has) ? cell_ratio[k] : "",
                   (k in has) ? cell_result[k] : "", c < nc ? "," : "\n" > csv
            printf " %s", (k in has) && cell_us[k] != "" ? cell_us[k] : "NaN" > dat
        }
        sub(/ +$/, "", line); print line
        printf "\n" > dat
    }
}' "$@" || exit 1
echo "CSV: $prefix.csv"
if command -v gnuplot >/dev/null 2>&1; then
    cols=$(head -n 1 "$prefix.dat" | wc -w)
    gnuplot <<GP || exit 1
set terminal pngcairo size 1200,700 noenhanced
set output "$prefix.png"
set title "histo: microseconds per iteration, by dataset and $by"
set ylabel "microseconds per iteration"
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
