#!/bin/sh
# bench/curve-line.sh [ROWS.jsonl] - README's make curve line from committed
# make curve rows: the default strategy's (asked "auto") device median at
# each size, with its ratio to the one-kernel floor measured in the same
# run (probe_kernel_floor_median_us), and the device, date and commit the
# rows name. docs-check compares README's line with this output.
set -eu
# README's rows by default
[ $# -gt 0 ] || set -- docs/bench/h200-6db5c00-curve.jsonl
[ $# -eq 1 ] && [ -s "$1" ] || { echo "usage: curve-line.sh [ROWS.jsonl] (a file of make curve rows)" >&2; exit 2; }
jq -r -s --arg file "$1" '
    # one and two decimals, the zeros kept
    def one: (. * 10 | round) as $t | "\($t / 10 | floor).\($t % 10)";
    def two: (. * 100 | round) as $t | "\($t / 100 | floor).\($t % 100 / 10 | floor)\($t % 10)";
    map(select(.asked == "auto" and (.iteration_device_median_us | type) == "number"))
    | if length == 0 then error("no row of the default strategy (asked auto)") else . end
    | (.[0]) as $first
    | "make curve, the default strategy on the Gaussian eye beside one kernel'"'"'s floor (\($first.device), \($first.time[0:10]), commit \($first.commit), `\($file)`): "
      + (map("\(.size) \(.iteration_device_median_us | one) us (\(.strategy), \(.iteration_device_median_us / .probe_kernel_floor_median_us | two)x)") | join(", ")) + "."' "$1"
