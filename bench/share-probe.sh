#!/bin/sh
# bench/share-probe.sh - build/share-probe's arrangements of the host's
# enqueues over several GPUs (issue 58), on the shapes of histo's shares:
#
#   sh bench/share-probe.sh [PLATFORM]
#
# PLATFORM: the index histo --list gives (default: the first NVIDIA
# one, else 0). For each shape (devices, values a share, the share
# kernel's device time: what histo's kernel took on such a share on one
# H200, docs/bench/h200-cc806da-curve.txt and the scaling rows), in this
# order: a process on the first device alone (solo), one thread and a
# thread a device in one context (shared), a thread a device each in a
# context of its own (own, and the combine probes), then a process a
# device at once (solo, started together, with the solo run's rounds).
set -u
cd "$(dirname "$0")/.." || exit 1
P=${1:-$(./histo --list 2>/dev/null | awk '/^platform [0-9]+:.*NVIDIA/ { sub(":", "", $2); print $2; exit }')}
P=${P:-0}
n_gpus=$(./histo --list 2>/dev/null | awk -v p="platform $P:" '
    index($0, p) == 1 { on = 1; next } /^platform/ { on = 0 } on && /^  device/ { n++ }
    END { print n + 0 }')
status=0
# devices values target_us
while read -r devs values target; do
    n=$(echo "$devs" | awk -F, '{ print NF }')
    [ "$n" -le "$n_gpus" ] || { echo "# $devs: only $n_gpus devices"; continue; }
    echo "## devices $devs, $values values a share, kernel ~$target us"
    echo "# solo, alone"
    ./build/share-probe solo "$P" 0 "$values" "$target" >build/share-probe.solo.txt || status=1
    cat build/share-probe.solo.txt
    rounds=$(sed -n 's/^rounds = //p' build/share-probe.solo.txt)
    echo "# shared"
    ./build/share-probe shared "$P" "$devs" "$values" "$target" || status=1
    echo "# own"
    ./build/share-probe own "$P" "$devs" "$values" "$target" || status=1
    echo "# a process a device"
    start=$(( $(date +%s%3N) + 6000 ))
    pids=""
    for d in $(echo "$devs" | tr ',' ' '); do
        SHARE_PROBE_ROUNDS=$rounds ./build/share-probe solo "$P" "$d" "$values" "$target" "$start" \
            >"build/share-probe.$d.txt" 2>&1 &
        pids="$pids $!"
    done
    for p in $pids; do wait "$p" || status=1; done
    for d in $(echo "$devs" | tr ',' ' '); do
        sed "s/^/process$d./" "build/share-probe.$d.txt"
    done
done <<'EOF_SHAPES'
0,1,2,3 4194304 34
0,1 8388608 46
0,1,2,3 16777216 64
0,1 33554432 115
EOF_SHAPES
exit $status
