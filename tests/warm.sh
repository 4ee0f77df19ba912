#!/bin/sh
# tests/warm.sh DIR PART - the suite's warm-up (tests/run.sh), so that a
# cold kernel cache is filled first, timed apart from the cases, and not
# by the first case that needs a kernel: histo once per strategy on
# 64x64 values in the datasets' 256x8192 histogram, one run at a time.
# PART "pole" is the slowest build, the fused strategy's 2-D kernel
# (eye_fused_2d: minutes on PoCL), run first beside the rest; "rest" is
# eye's and replicated's 2-D kernels and every strategy without a
# window. HISTO_TEST_2D_MIN_VALUES=1 lets the small input take the 2-D
# window. Each run's seconds go to stdout; its failures are only noted
# there: the cases that need the kernel fail under their own ids. The
# device is the suite's (HISTO_TEST_PLATFORM, HISTO_TEST_DEVICE; build
# HISTO_BUILD).
set -u
cd "$(dirname "$0")/.." || exit 1
w=$1 part=$2
mkdir -p "$w"
b=${HISTO_BUILD:-build}
histo=./histo
[ "$b" = build ] || histo=$b/histo
unset HISTO_PLATFORM HISTO_DEVICE HISTO_KERNEL_DIR HISTO_NO_TUNE_CACHE
# no real tune cache is read or written (tests/lib.sh)
HISTO_TUNE_FILE=$w/no-tune-cache.$part.conf
export HISTO_TUNE_FILE
set -- --platform "${HISTO_TEST_PLATFORM:-Portable Computing Language}"
[ -z "${HISTO_TEST_DEVICE:-}" ] || set -- "$@" --device "$HISTO_TEST_DEVICE"
in=$w/warm.$part.bin
$b/histo-gen -o "$in" --seed 1 --image 64x64 >/dev/null 2>"$w/gen.$part.err" \
    || { echo "warm-up: histo-gen failed: $(cat "$w/gen.$part.err")"; exit 0; }
listed=$($histo --list-strategies | tr '\n' ' ')
case $part in
    pole) runs="fused:2d" ;;
    *) runs="eye:2d replicated:2d"
       for s in fused eye replicated global cpu $listed; do
           case " $runs " in *" $s "*) ;; *) runs="$runs $s" ;; esac
       done ;;
esac
for run in $runs; do
    s=${run%:*}
    case " $listed " in *" $s "*) ;; *) continue ;; esac
    t0=$(date +%s.%N)
    (if [ "$run" != "$s" ]; then
         HISTO_TEST_2D_MIN_VALUES=1
         export HISTO_TEST_2D_MIN_VALUES
     fi
     exec $histo "$@" --strategy "$s" -i "$in" --no-bmp --raw "$w/$run.raw" \
         --timing "$w/$run.out" -- 1 >"$w/$run.log" 2>&1)
    st=$?
    secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    if [ "$st" -eq 0 ]; then
        echo "warm-up: $run $secs s"
    else
        echo "warm-up: $run failed (exit $st) after $secs s: $(tail -n 1 "$w/$run.log")"
    fi
done
