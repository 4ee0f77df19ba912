#!/bin/sh
# bench/plot.sh ROWS.jsonl OUT.svg WHAT - the chart of make bench, make
# curve or make scaling rows (WHAT names them in the title): time per
# iteration against the input's values, both on log scales, a series per
# strategy, mode, devices and device (points joined in order of size),
# and beside each device the floor measured in the same run (make
# bench's one kernel reading and counting every value, floor1_us; make
# curve's probe_kernel_floor_median_us; make scaling measures none, and
# its chart says so). Drawn by gnuplot into an SVG; the rows are read by
# jq (a line that is not JSON is left out).
set -eu
rows=$1 svg=$2 what=$3
command -v gnuplot >/dev/null 2>&1 || { echo "(gnuplot not installed: no chart; make deps installs it)"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# one block a series (blank lines apart, sorted by values): "values us";
# its name in names, in the same order
jq -R -r 'fromjson? | select(type == "object" and (.values | type) == "number")
    | (.iteration_device_median_us // .iteration_median_us) as $us
    | select(($us | type) == "number" and $us > 0)
    | [(.strategy // "?") + (if .mode then " " + .mode else "" end)
       + (if .devices and (.devices | tostring | contains(",")) then " on devices " + (.devices | tostring) else "" end)
       + ", " + (.device // "?"), .values, $us,
       (.floor1_us // .probe_kernel_floor_median_us // ""), (.input // .size // "")] | @tsv' "$rows" >"$tmp/all"
[ -s "$tmp/all" ] || { echo "plot: no row of $rows has a time per iteration" >&2; exit 1; }
# the series, and the floors a device apiece
awk -F '\t' -v dir="$tmp" '
    !($1 in seen) { seen[$1] = 1; names[++n] = $1 }
    { lab = $5; gsub(/[^A-Za-z0-9_.-]/, "_", lab)
      # a series holds an input once: its first row
      if (!(($1, $2, lab) in once)) { once[$1, $2, lab] = 1; pts[$1] = pts[$1] $2 " " $3 " " lab "\n" }
      dev = $1; sub(/.*, /, "", dev)
      # a floor a size: the first row of the size measured it
      if ($4 != "" && !((dev, $2) in fone)) { fone[dev, $2] = 1
          if (!(dev in fseen)) { fseen[dev] = 1; fdev[++nf] = dev }; fl[dev] = fl[dev] $2 " " $4 "\n" } }
    END {
        for (i = 1; i <= n; i++) { printf "%s", pts[names[i]] > (dir "/s" i); print names[i] > (dir "/names") }
        for (i = 1; i <= nf; i++) { printf "%s", fl[fdev[i]] > (dir "/f" i); print fdev[i] > (dir "/fnames") }
    }' "$tmp/all"
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/''/g")"; }
{
    echo "set terminal svg size 1000,600 font 'sans,11' noenhanced"
    echo "set output $(q "$svg")"
    echo "set title $(q "histo, $what: time per iteration against the input's values (log-log; lower is better)")"
    echo "set logscale xy"
    echo "set xlabel 'values in the input'"
    echo "set ylabel 'microseconds per iteration'"
    echo "set format x '%.0s%c'"
    echo "set grid xtics ytics"
    echo "set offsets graph 0.05, graph 0.25, graph 0.05, graph 0.05"
    echo "set key outside right top"
    printf 'plot '
    i=0 sep=""
    while IFS= read -r name; do
        i=$((i + 1))
        sort -g "$tmp/s$i" >"$tmp/s$i.sorted"
        # a series of several inputs of one size (make bench): points,
        # each named, not a line
        if [ -n "$(cut -d' ' -f1 "$tmp/s$i.sorted" | uniq -d)" ]; then
            printf '%s%s using 1:2 with points pt 7 title %s, %s using 1:2:3 with labels left offset 1,0 font ",9" notitle' \
                "$sep" "$(q "$tmp/s$i.sorted")" "$(q "$name")" "$(q "$tmp/s$i.sorted")"
        else
            printf '%s%s using 1:2 with linespoints pt 7 title %s' "$sep" "$(q "$tmp/s$i.sorted")" "$(q "$name")"
        fi
        sep=", \\
     "
    done <"$tmp/names"
    i=0
    if [ -s "$tmp/fnames" ]; then
        while IFS= read -r dev; do
            i=$((i + 1))
            sort -g "$tmp/f$i" >"$tmp/f$i.sorted"
            printf '%s%s using 1:2 with linespoints dt 2 lc rgb "gray40" pt 1 title %s' "$sep" "$(q "$tmp/f$i.sorted")" "$(q "floor: one kernel reading and counting every value, $dev")"
        done <"$tmp/fnames"
    else
        printf '%skeyentry with points pt -1 title %s' "$sep" "$(q "(no floor measured in these rows)")"
    fi
    echo
} >"$tmp/plot.gp"
gnuplot "$tmp/plot.gp" 2>"$tmp/gp.err" || { echo "plot: gnuplot failed: $(head -c 300 "$tmp/gp.err")" >&2; exit 1; }
echo "chart: $svg"
