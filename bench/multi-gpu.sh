#!/bin/sh
# bench/multi-gpu.sh - one GPU against several in the same run (issue 42):
# the copy path's floors alone (build/transfer-probe), then histo on each
# device list at each size, every output checked byte for byte against
# the sequential reference.
#
#   sh bench/multi-gpu.sh OUTDIR [SIZES [LISTS]]
#       SIZES: of make scaling's inputs (default "16M 67M 268M");
#       LISTS: --device values (default "0 0,1 all"); BASE=DIR adds runs
#       of DIR/histo (another build) at BASE_SIZES (default 16M) on
#       BASE_LISTS (default "0 0,1"), before the same size's own; ITERS
#       iterations a run (default 2000, fewer for larger inputs: about a
#       second); PROBE=0 leaves out build/transfer-probe.
#
# Each row: size, devices, shares used, the iteration's device median
# (over every device's clock; '-' where the clocks cannot time one), the
# wall mean over the timed loop, the host's enqueuing time per iteration,
# each share's busy median, the
# partials' copies (iteration.move) and combines medians, check. Every
# histo.out is kept in OUTDIR.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${1:?OUTDIR}
SIZES=${2:-16M 67M 268M}
LISTS=${3:-0 0,1 all}
mkdir -p "$OUT" || exit 1
W=build/scaling
key() { sed -n "s/^$2 = //p" "$1" | head -n 1; }
platform=$(./histo --list | awk '/^platform [0-9]+: NVIDIA/ { sub(":", "", $2); print $2; exit }')
platform=${platform:-0}
ndev=$(./histo --list | awk -v p="platform $platform:" 'index($0, p) == 1 { on = 1; next }
    /^platform/ { on = 0 } on && /^  device/ { n++ } END { print n + 0 }')
all=$(awk -v n="$ndev" 'BEGIN { s = "0"; for (i = 1; i < n; i++) s = s "," i; print s }')
echo "platform $platform, $ndev devices"
if [ "$ndev" -ge 2 ] && [ "${PROBE:-1}" = 1 ]; then
    build/transfer-probe "$platform" "$all" >"$OUT/transfer-probe.txt" 2>&1
    echo "transfer-probe $all:"; cat "$OUT/transfer-probe.txt"
fi
printf '%-5s %-8s %-8s %6s %10s %10s %8s %-22s %8s %8s %s\n' size run devices shares \
    device_us wall_us enq_us share_busy_us move_us comb_us check
# make_input SIZE: make scaling's input and its reference, if missing
make_input() {
    mkdir -p "$W"
    case $1 in
        1M) side=1024 ;; 16M) side=4096 ;; 67M) side=8192 ;; 268M) side=16384 ;;
        1G) side=32768 ;;
    esac
    f=$W/eye$1.bin
    if [ ! -s "$f" ] && [ "$1" = 1G ]; then
        make_input 268M
        f=$W/eye1G.bin
        { printf '\000\200\000\000\000\200\000\000\000\001\000\000\000\040\000\000'
          for i in 1 2 3 4; do tail -c +17 "$W/eye268M.bin"; done; } >"$f"
    elif [ ! -s "$f" ]; then
        build/histo-gen -o "$f" --seed 5 --image "${side}x$side" || return 1
    fi
    [ -s "$W/$1.ref.raw" ] || build/histo-ref "$f" "$W/$1.ref.bmp" "$W/$1.ref.raw" >/dev/null
}
row() { # BIN TAG SIZE DEVICES ITERS
    in=$W/eye$3.bin
    o=$OUT/$2.$3.$(echo "$4" | tr ',' '_')
    timeout 120 "$1" --platform "$platform" --device "$4" -i "$in" --no-bmp --raw "$o.raw" \
        --timing "$o.out" -- "$5" >"$o.log" 2>&1
    rc=$?
    if cmp -s "$o.raw" "$W/$3.ref.raw"; then ch=exact; else ch="DIFFERS(rc=$rc)"; fi
    rm -f "$o.raw"
    busy=""
    s=0
    while [ -n "$(key "$o.out" share.$s.busy.median_us)" ]; do
        busy="$busy${busy:+/}$(key "$o.out" share.$s.busy.median_us | cut -d. -f1)"
        s=$((s + 1))
    done
    printf '%-5s %-8s %-8s %6s %10s %10s %8s %-22s %8s %8s %s\n' "$3" "$2" "$4" \
        "$(key "$o.out" shares)" "$(key "$o.out" iteration.device.median_us)" \
        "$(key "$o.out" iteration.wall_mean_us)" \
        "$(key "$o.out" iteration.enqueue_host_mean_us)" "${busy:--}" \
        "$(key "$o.out" iteration.move.median_us)" \
        "$(key "$o.out" kernel.combine.median_us)" "$ch"
}
for size in $SIZES; do
    make_input "$size"
    [ -s "$W/eye$size.bin" ] && [ -s "$W/$size.ref.raw" ] || { echo "no input $size"; continue; }
    case $size in
        1M|16M) its=${ITERS:-2000} ;;
        67M) its=1000 ;;
        268M) its=400 ;;
        *) its=100 ;;
    esac
    if [ -n "${BASE:-}" ]; then
        case " ${BASE_SIZES:-16M} " in
            *" $size "*)
                for d in ${BASE_LISTS:-0 0,1}; do
                    row "$BASE/histo" base "$size" "$d" "$its"
                done ;;
        esac
    fi
    for d in $LISTS; do row ./histo new "$size" "$d" "$its"; done
done
