#!/bin/sh
# bench/results-table.sh - a results table from make bench rows committed
# in docs/bench/ (one file per device and run): the README's, or with
# arguments any other.
#
#   sh bench/results-table.sh [ROWS.jsonl[:STRATEGY]...]
#
# One column per argument, in the order given (default: the files named
# below): the rows of that file, of STRATEGY only where given. A cell is
# the median device time per iteration and, in brackets, the sequential C
# reference's median on the same host in the same run divided by it (> 1:
# histo is faster), where the rows have them, histo's time over the
# floors make bench measured (bench/bench.sh): first one kernel that
# reads and counts every value (locally, or by global atomics where the
# eye found no window and sent its values to them, not to buckets), the
# hardware's floor; then an iteration of two
# kernels, histo's own shape; then reading the values alone (x read: HBM
# on a GPU); and where they have it the energy of an
# iteration from the device's own counter (mJ). The caption names each
# column's device, platform, strategy, date and commit (the rows' "commit", else the part of the file
# name after its last '-' where that is a commit id). A column with
# several rows of one input gives the first. docs-check compares the
# tables in README.md and docs/ with this output.
set -u
cd "$(dirname "$0")/.." || exit 1
[ $# -gt 0 ] || set -- docs/bench/h200-6db5c00-default.jsonl docs/bench/pocl-2core-14b558c-cpu.jsonl:cpu
col=0
for arg in "$@"; do
    col=$((col + 1))
    f=${arg%%:*} strategy=""
    [ "$f" = "$arg" ] || strategy=${arg#*:}
    [ -s "$f" ] || { echo "results-table: $f is missing or empty" >&2; exit 1; }
    if [ -n "$strategy" ]; then
        grep -F "\"strategy\":\"$strategy\"" "$f"
    else
        cat "$f"
    fi | sed "s|^|$col	$f	|"
done | awk -F '\t' "$(cat validate/jsonl.awk)"'
{
    c = $1; line = $3
    if (c > ncol) ncol = c
    if (!(c in file)) {
        file[c] = $2
        k = field(line, "commit")
        if (k == "") { k = $2; sub(/.*-/, "", k); sub(/\.jsonl$/, "", k) }
        commit[c] = k ~ /^[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]+$/ \
                  ? "commit " k : "commit not recorded"
        device[c] = field(line, "device")
        platform[c] = field(line, "platform")
        date[c] = substr(field(line, "time"), 1, 10)
    }
    in_ = field(line, "input")
    if (!((in_, c) in us)) {   # the strategies of the rows shown, in order
        st = field(line, "strategy")
        if (!((c, st) in has_st)) {
            has_st[c, st] = 1; nst[c]++
            strategies[c] = strategies[c] (nst[c] > 1 ? " and " : "") st
        }
    }
    if (!(in_ in seen)) { seen[in_] = 1; order[++ninputs] = in_; values[in_] = field(line, "values") }
    if ((in_, c) in us) next   # the first row of each input in the column
    us[in_, c] = field(line, "iteration_device_median_us")
    ref[in_, c] = field(line, "reference_median_us")
    ok[in_, c] = field(line, "check")
    floor[in_, c] = field(line, "floor_us")
    if (floor[in_, c] + 0 > 0) floors[c] = 1
    # the one-kernel floor: the row field, else from its probe fields
    f1 = field(line, "floor1_us")
    if (f1 == "" || f1 == "null") {
        by = field(line, "floor_count_by")
        f1 = field(line, by == "global" ? "probe_atomics_median_us" \
                      : by == "local" ? "probe_kernel_read_local_median_us" \
                      : "probe_read_median_us")
    }
    floor1[in_, c] = f1
    rd[in_, c] = field(line, "read_us")
    if (rd[in_, c] + 0 > 0) reads[c] = 1
    energy[in_, c] = field(line, "energy_j_per_iteration")
    if (energy[in_, c] + 0 > 0) energies[c] = 1
}
END {
    names["test"] = "test dataset"; names["train"] = "train dataset"
    names["ref"] = "ref dataset"; names["wide"] = "wide eye (sigma 205 rows x 16 columns)"
    names["uniform"] = "uniform"; names["onebin"] = "one bin"
    names["h1k"] = "gauss into 1024x2048 bins"; names["big67"] = "67M values"
    names["wide1m"] = "wide eye, 1M values"; names["wide67"] = "wide eye, 67M values"
    printf "| input | values |"
    for (c = 1; c <= ncol; c++)
        printf " (%d) us (x C%s%s%s) |", c,
               (c in floors) ? "; x 1-kernel floor; x 2-kernel floor" : "",
               (c in reads) ? "; x read" : "",
               (c in energies) ? "; mJ" : ""
    printf "\n| --- | ---: |"
    for (c = 1; c <= ncol; c++) printf " ---: |"
    printf "\n"
    for (i = 1; i <= ninputs; i++) {
        n = order[i]
        printf "| %s | %.2fM |", (n in names ? names[n] : n), values[n] / 1e6
        for (c = 1; c <= ncol; c++) {
            if ((n, c) in us && us[n, c] != "" && ok[n, c] == "byte-exact") {
                fmt = ref[n, c] / us[n, c] < 10 ? " %.1f (%.1fx" : " %.1f (%.0fx"
                printf fmt, us[n, c], ref[n, c] / us[n, c]
                if (floor1[n, c] + 0 > 0) printf "; %.2fx", us[n, c] / floor1[n, c]
                if (floor[n, c] + 0 > 0) printf "; %.2fx", us[n, c] / floor[n, c]
                if (rd[n, c] + 0 > 0) printf "; %.2fx", us[n, c] / rd[n, c]
                if (energy[n, c] + 0 > 0) printf "; %.1f mJ", energy[n, c] * 1e3
                printf ") |"
            } else if ((n, c) in us)
                printf " %s |", (ok[n, c] == "" ? "-" : ok[n, c])
            else
                printf " - |"
        }
        printf "\n"
    }
    printf "\n"
    for (c = 1; c <= ncol; c++)
        printf "(%d) %s (%s), %s %s, %s, %s (`%s`).\n", c, device[c],
               platform[c], strategies[c], (nst[c] > 1 ? "strategies" : "strategy"),
               date[c], commit[c], file[c]
}'
