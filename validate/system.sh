# validate/system.sh - system_describe: the system under test, as SPEC's
# config file describes it, for make run's record (sourced by
# validate/harness.sh: it uses its json_str, json_strn, timing, die and
# the host_cpu, host_os and host_kernel it reads once for the record).
#
# The user's fields come from a file the user keeps: SYSTEM=FILE, else
# config/system.conf (config/system.conf.example says what each field is;
# `key = value` lines, '#' comments). What the machine can tell is read
# from it (a field the file gives wins): the CPUs from /proc/cpuinfo and
# sysfs, memory, OS, the results folder's file system, the frequency
# governor, and the accelerator from histo.out (the median run's). A
# required field the user left empty is named in system_missing, which
# makes the result not reportable (validate/reportable.sh), as SPEC's
# reportable results need a complete description.
#
# Sets system_file (the file read, or ""), system_json (a JSON object)
# and system_missing (the required fields not given, space-separated).

# the fields the user must give (SPEC's names)
SYSTEM_REQUIRED="hw_vendor hw_model hw_avail sw_avail test_sponsor tested_by sw_state"

# sys_user KEY: the file's value for KEY ("" when absent)
sys_user() {
    [ -n "$system_file" ] || return 0
    sed -n "/^$1[[:space:]]*=[[:space:]]*/{s///;s/[[:space:]]*\$//;h;}; \${x;p;}" "$system_file"
}

# sys_cache LEVEL [TYPE]: cpu0's cache of that level (and type), as
# sysfs says its size ("32K"), "" where unknown
sys_cache() {
    for d in /sys/devices/system/cpu/cpu0/cache/index*; do
        [ "$(cat "$d/level" 2>/dev/null)" = "$1" ] || continue
        [ -z "${2:-}" ] || [ "$(cat "$d/type" 2>/dev/null)" = "$2" ] || continue
        cat "$d/size" 2>/dev/null
        return 0
    done
}

system_describe() {
    system_file=${SYSTEM:-}
    if [ -z "$system_file" ] && [ -r config/system.conf ]; then
        system_file=config/system.conf
    fi
    [ -z "$system_file" ] || [ -r "$system_file" ] \
        || die "SYSTEM=$system_file: cannot read it"
    cpuinfo=/proc/cpuinfo
    s_chips=$(sed -n 's/^physical id[[:space:]]*: //p' $cpuinfo 2>/dev/null | sort -u | grep -c .)
    s_cores=$(awk -F': ' '/^physical id/ { p = $2 } /^core id/ { print p ":" $2 }' $cpuinfo 2>/dev/null | sort -u | grep -c .)
    s_threads=$(grep -c '^processor' $cpuinfo 2>/dev/null)
    tpc=""
    [ "${s_cores:-0}" -gt 0 ] && tpc=$((s_threads / s_cores))
    maxf=$(cat /sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq 2>/dev/null)
    l1i=$(sys_cache 1 Instruction) l1d=$(sys_cache 1 Data)
    system_json="" system_missing=""
    # sys_add KEY AUTO: the field, the file's value winning over AUTO
    sys_add() {
        s_v=$(sys_user "$1")
        [ -n "$s_v" ] || s_v=$2
        system_json="$system_json,\"$1\":$(json_str "${s_v:-n/a}")"
    }
    for k in $SYSTEM_REQUIRED; do
        s_v=$(sys_user "$k")
        [ -n "$s_v" ] || system_missing="$system_missing${system_missing:+ }$k"
        system_json="$system_json,\"$k\":$(json_str "${s_v:-not given}")"
    done
    sys_add hw_cpu_name "$host_cpu"
    sys_add hw_cpu_mhz "$(sed -n 's/^cpu MHz[[:space:]]*: //p' $cpuinfo 2>/dev/null | sed -n 1p)"
    sys_add hw_cpu_max_mhz "${maxf:+$((maxf / 1000))}"
    sys_add hw_nchips "$s_chips"
    sys_add hw_ncores "$s_cores"
    sys_add hw_nthreadspercore "$tpc"
    sys_add hw_pcache "${l1i:+$l1i I + }${l1d:+$l1d D on chip per core}"
    sys_add hw_scache "$(sys_cache 2)"
    sys_add hw_tcache "$(sys_cache 3)"
    sys_add hw_memory "$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null)"
    sys_add hw_accel_vendor "$(timing selected.vendor)"
    sys_add hw_accel_model "$(timing selected.name)"
    sys_add hw_accel_type "$(timing selected.type)"
    sys_add hw_accel_memory "$(awk -v b="$(timing selected.global_mem_bytes)" 'BEGIN { if (b > 0) printf "%.1f GiB", b / 1073741824 }')"
    sys_add hw_accel_ecc "$(timing selected.ecc)"
    sys_add hw_accel_connect "$(p=$(timing selected.pci); [ -z "$p" ] || [ "$p" = unknown ] || echo "PCI $p")"
    sys_add hw_accel_clock_mhz "$(timing selected.max_clock_mhz)"
    sys_add sw_accel_driver "$(timing selected.driver) ($(timing selected.platform_name))"
    sys_add sw_os "$host_os"
    sys_add sw_kernel "$host_kernel"
    sys_add sw_file "$(stat -f -c %T "$RESULTS_ROOT" 2>/dev/null)"
    sys_add sw_governor "$(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null)"
    sys_add sw_other ""
    # free text, each notes_* line in the file's order
    notes=""
    if [ -n "$system_file" ]; then
        notes=$(sed -n 's/^\(notes_[A-Za-z0-9_]*\)[[:space:]]*=[[:space:]]*\(.*\)$/\1\t\2/p' "$system_file" \
            | while IFS="$(printf '\t')" read -r k v; do
                  printf '%s:%s\n' "$(json_str "$k")" "$(json_str "$v")"
              done | paste -sd, -)
    fi
    system_json="{\"file\":$(json_strn "$system_file")${system_json},\"notes\":{$notes}}"
}
