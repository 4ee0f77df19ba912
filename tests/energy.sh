#!/bin/sh
# tests/energy.sh - energy per iteration on a device without a counter of
# its own (PoCL here: a CPU device, so powercap's RAPL counters, through
# fake folders in $W): the documented energy.* keys, the reason when
# there is no figure, a figure from a counter that moves, and a run
# otherwise unchanged (exit 0, the counters exact, the console's lines).
# The NVML path and the arithmetic are unit tests (unit.energy.*, on
# tests/fake_nvml.c).
# ids: energy
SUBJECT=energy
. "$(dirname "$0")/lib.sh"

need_case gauss || exit 0
in=$INPUTS/gauss.bin
ref=$INPUTS/gauss.ref.raw
# the test device's type, from a run on it
cpu=no
run_histo -i "$in" --no-bmp --raw "$W/type.raw" --timing "$W/type.out" -- 1 \
    >/dev/null 2>&1 && grep -q "^selected.type = .*CPU" "$W/type.out" && cpu=yes

# key FILE KEY: its value in a histo.out
key() { sed -n "s/^$2 = //p" "$1"; }

# energy_run ID ITERATIONS [ARGS...]: histo on the test device into
# $W/ID.*, the environment set by the caller; FAIL unless exit 0 with
# exact counters.
energy_run() {
    e_id=$1 e_n=$2
    shift 2
    if ! run_histo "$@" -i "$in" --no-bmp --raw "$W/$e_id.raw" \
            --timing "$W/$e_id.out" -- "$e_n" >"$W/$e_id.log" 2>&1; then
        bad "$e_id" "histo failed: $(tail -n 2 "$W/$e_id.log")"
        return 1
    elif ! cmp -s "$W/$e_id.raw" "$ref"; then
        bad "$e_id" "the counters differ from the reference"
        return 1
    fi
}

# a fake powercap folder: one package, a sub-domain, counters at 1000 uJ
fake_rapl() {
    rm -rf "$W/$1"
    sh tests/fake-rapl.sh "$W/$1"
}

if [ "$cpu" = no ]; then
    echo "SKIP energy: the test device is not a CPU, whose counters the fakes stand in for"
    exit 0
fi

# no counter: the reason, and nothing else changes
if HISTO_POWERCAP_DIR=$W/no-such-folder energy_run energy.none 3; then
    if [ "$(key "$W/energy.none.out" energy.source)" = none ] \
       && key "$W/energy.none.out" energy.reason | grep -q "no RAPL package counter under $W/no-such-folder" \
       && ! grep -q "^energy.joules = " "$W/energy.none.out" \
       && ! grep -q "^histo: energy" "$W/energy.none.log" \
       && [ "$(grep -c '^histo: ' "$W/energy.none.log")" -eq 4 ]; then
        ok energy.none
    else
        bad energy.none "$(grep '^energy' "$W/energy.none.out" | head -n 3 | tr '\n' ' ')"
    fi
fi

# a counter that does not move: no quotient of noise
fake_rapl still
if HISTO_POWERCAP_DIR=$W/still HISTO_ENERGY_MIN_S=0 energy_run energy.still 3; then
    if [ "$(key "$W/energy.still.out" energy.source)" = rapl ] \
       && key "$W/energy.still.out" energy.reason | grep -q "under 100 of its steps" \
       && ! grep -q "^energy.joules = " "$W/energy.still.out"; then
        ok energy.still_counter
    else
        bad energy.still_counter "$(grep '^energy' "$W/energy.still.out" | head -n 4 | tr '\n' ' ')"
    fi
fi

# too short a run for the counter
fake_rapl short
if HISTO_POWERCAP_DIR=$W/short energy_run energy.short 1; then
    if key "$W/energy.short.out" energy.reason | grep -q "shorter than the 0.1 s this counter needs"; then
        ok energy.too_short
    else
        bad energy.too_short "$(key "$W/energy.short.out" energy.reason)"
    fi
fi

# counters that cannot be read, each with its own reason: a folder and a
# FIFO in a counter's place (not regular files: a FIFO would block a
# plain open forever, so histo must finish, within 60 s here), and a
# counter holding no number
fake_rapl unreadable
rm "$W/unreadable/intel-rapl:0/energy_uj"
mkdir "$W/unreadable/intel-rapl:0/energy_uj"
fake_rapl fifo
rm "$W/fifo/intel-rapl:0/energy_uj"
mkfifo "$W/fifo/intel-rapl:0/energy_uj"
fake_rapl garbage
printf 'twelve\n' >"$W/garbage/intel-rapl:0/energy_uj"
for spec in unreadable:"intel-rapl:0/energy_uj is not a regular file" \
            fifo:"intel-rapl:0/energy_uj is not a regular file" \
            garbage:"intel-rapl:0/energy_uj holds no number: 'twelve'"; do
    name=${spec%%:*} want=${spec#*:}
    HISTO_POWERCAP_DIR=$W/$name timeout 60 $HISTO --platform "$PLATFORM" \
        ${DEVICE:+--device "$DEVICE"} -i "$in" --no-bmp --raw "$W/energy.$name.raw" \
        --timing "$W/energy.$name.out" -- 3 >"$W/energy.$name.log" 2>&1
    st=$?
    if [ "$st" -ne 0 ]; then
        bad "energy.$name" "histo did not finish within 60 s, or failed (status $st): $(tail -n 2 "$W/energy.$name.log")"
    elif ! cmp -s "$W/energy.$name.raw" "$ref"; then
        bad "energy.$name" "the counters differ from the reference"
    elif [ "$(key "$W/energy.$name.out" energy.source)" = none ] \
       && key "$W/energy.$name.out" energy.reason | grep -qF "$want"; then
        ok "energy.$name"
    else
        bad "energy.$name" "$(key "$W/energy.$name.out" energy.reason)"
    fi
done

# a counter that moves 5 mJ every 10 ms while histo runs for more than
# 0.05 s: a figure, its keys and the console line
fake_rapl moving
sh tests/fake-rapl.sh "$W/moving" --tick &
ticker=$!
if HISTO_POWERCAP_DIR=$W/moving HISTO_ENERGY_MIN_S=0.05 energy_run energy.moving 1000; then
    o=$W/energy.moving.out
    j=$(key "$o" energy.joules)
    jpi=$(key "$o" energy.joules_per_iteration)
    s=$(key "$o" energy.seconds)
    w=$(key "$o" energy.mean_watts)
    if [ -n "$j" ] && [ -n "$jpi" ] && [ -n "$w" ] && [ -n "$s" ] \
       && awk -v j="$j" -v jpi="$jpi" -v w="$w" -v s="$s" 'BEGIN {
              # mean_watts has three decimals: w * s is j within half of
              # its last digit times the seconds (a loaded machine makes
              # the run, and that error, longer)
              exit !(j > 0 && (jpi * 1000 - j) ^ 2 < 1e-12 \
                     && (w * s - j) ^ 2 <= (0.0005 * s + 1e-6) ^ 2) }' \
       && [ "$(key "$o" energy.device.0.resolution_j)" = 1e-06 ] \
       && grep -q "^histo: energy .* mJ an iteration, .* W mean over the timed iterations .*RAPL" "$W/energy.moving.log"; then
        ok energy.moving_counter
    else
        bad energy.moving_counter "$(grep '^energy' "$o" | head -n 6 | tr '\n' ' ')"
    fi
fi
# stopped before its folder goes: a tick landing while rm -rf empties
# the folder leaves it behind, and the ticker then never ends
kill "$ticker" 2>/dev/null
wait "$ticker" 2>/dev/null
rm -rf "$W/moving"

# a counter that steps back 1 uJ a tick: no wrap, so no figure, and the
# reason says why (never the range taken for joules)
fake_rapl back
sh tests/fake-rapl.sh "$W/back" --back &
ticker=$!
if HISTO_POWERCAP_DIR=$W/back HISTO_ENERGY_MIN_S=0.05 energy_run energy.back 1000; then
    if key "$W/energy.back.out" energy.reason | grep -q "^unreliable: .*stepped back from [0-9]* to [0-9]*, which is no wrap" \
       && ! grep -q "^energy.joules\|^energy.mean_watts\|^energy.idle_watts" "$W/energy.back.out" \
       && ! grep -q "^histo: energy" "$W/energy.back.log"; then
        ok energy.steps_back
    else
        bad energy.steps_back "$(grep '^energy' "$W/energy.back.out" | head -n 4 | tr '\n' ' ')"
    fi
fi
kill "$ticker" 2>/dev/null
wait "$ticker" 2>/dev/null
rm -rf "$W/back"

# a reading above the counter's own range: no figure either
fake_rapl above
echo 262143328851 >"$W/above/intel-rapl:0/energy_uj"
if HISTO_POWERCAP_DIR=$W/above HISTO_ENERGY_MIN_S=0 energy_run energy.above 3; then
    if key "$W/energy.above.out" energy.reason | grep -q "^unreliable: .*above its max_energy_range_uj 262143328850" \
       && ! grep -q "^energy.joules\|^energy.idle_watts" "$W/energy.above.out"; then
        ok energy.above_range
    else
        bad energy.above_range "$(grep '^energy' "$W/energy.above.out" | head -n 4 | tr '\n' ' ')"
    fi
fi

# two queues on one device: it is measured once
fake_rapl twice
if HISTO_POWERCAP_DIR=$W/twice energy_run energy.two_queues 3 \
        --device "${DEVICE:-0},${DEVICE:-0}"; then
    if [ "$(key "$W/energy.two_queues.out" shares)" = 2 ] \
       && [ "$(key "$W/energy.two_queues.out" energy.devices)" = 1 ]; then
        ok energy.two_queues_one_device
    else
        bad energy.two_queues_one_device "shares $(key "$W/energy.two_queues.out" shares), energy.devices $(key "$W/energy.two_queues.out" energy.devices)"
    fi
fi
