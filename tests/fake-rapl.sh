#!/bin/sh
# tests/fake-rapl.sh DIR [--tick] - a powercap folder for the energy tests
# (tests/energy.sh, tests/harness.sh), read by histo through
# $HISTO_POWERCAP_DIR: DIR/intel-rapl:0, one package whose energy_uj
# starts at 1000 and whose max_energy_range_uj is a real one's, and its
# sub-domain intel-rapl:0:0 (a package's core, which histo must not add
# to the package). With --tick it then moves the package's counter 5 mJ
# every 10 ms, each value written whole (a rename), until killed or DIR
# is gone: run it in the background, and kill it before removing DIR (a
# tick landing while rm -rf empties DIR makes rm fail and leaves DIR).
# With --back it moves the counter 1 uJ back each tick instead: a counter
# that steps back by far less than its range, which is no wrap.
set -u
dir=$1
for d in intel-rapl:0 intel-rapl:0:0; do
    mkdir -p "$dir/$d" || exit 1
    [ -f "$dir/$d/energy_uj" ] || echo 1000 >"$dir/$d/energy_uj"
    echo 262143328850 >"$dir/$d/max_energy_range_uj"
done
case ${2:-} in
    --tick) step=5000 ;;
    --back) step=-1 ;;
    *) exit 0 ;;
esac
while [ -d "$dir" ]; do
    v=$(cat "$dir/intel-rapl:0/energy_uj" 2>/dev/null) || exit 0
    echo $((v + step)) >"$dir/next" 2>/dev/null || exit 0
    mv "$dir/next" "$dir/intel-rapl:0/energy_uj" 2>/dev/null || exit 0
    sleep 0.01
done
