# validate/system.sh - the system under test, as SPEC's config file
# describes it, for make run's record (sourced by validate/harness.sh: it
# uses its rec_put, timing and usage_error and the host_cpu, host_os and
# host_kernel it reads once for the record).
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
# system_check reads the file before any work (make run checks it with
# the variables, before the dataset is made): a regular file of at most
# SYSTEM_MAX_BYTES, or a refusal that never opens it (a FIFO, a folder, a
# device, a missing or unreadable file); every line a comment, blank, or
# `key = value` with a key of SYSTEM_KEYS or notes_*, each key once, each
# value at most SYSTEM_MAX_VALUE bytes; else a refusal naming the line (both
# lines for a key given twice). Values are kept byte for byte, tabs and
# other control characters too (the record escapes them). Sets
# system_file (the file read, or ""), system_missing (the required
# fields not given, space-separated), sysu_KEY (each value given) and
# system_notes (the notes_* keys in the file's order).
# system_fields puts the system object into the record.

# the fields the user must give (SPEC's names)
SYSTEM_REQUIRED="hw_vendor hw_model hw_avail sw_avail test_sponsor tested_by sw_state"
# the fields the machine tells, which the file may give instead
SYSTEM_AUTO="hw_cpu_name hw_cpu_mhz hw_cpu_max_mhz hw_nchips hw_ncores
hw_nthreadspercore hw_pcache hw_scache hw_tcache hw_memory hw_accel_vendor
hw_accel_model hw_accel_type hw_accel_memory hw_accel_ecc hw_accel_connect
hw_accel_clock_mhz sw_accel_driver sw_os sw_kernel sw_file sw_governor sw_other"
SYSTEM_MAX_BYTES=65536
SYSTEM_MAX_VALUE=1024

system_check() {
    system_file=${SYSTEM:-} system_missing="" system_notes=""
    for k in $SYSTEM_REQUIRED $SYSTEM_AUTO; do eval "unset sysu_$k"; done
    if [ -z "$system_file" ]; then
        # config/system.conf where there is one (a broken one is refused
        # like SYSTEM=FILE: it would be read)
        [ -e config/system.conf ] || [ -L config/system.conf ] || system_file=-
        [ "$system_file" = - ] || system_file=config/system.conf
    fi
    if [ "$system_file" = - ]; then
        system_file=""
    else
        s_what="SYSTEM=$system_file"
        [ -n "${SYSTEM:-}" ] || s_what="$system_file"
        if [ ! -e "$system_file" ]; then
            usage_error "$s_what: no such file (a system description: config/system.conf.example says what it holds)"
        elif [ -d "$system_file" ]; then
            usage_error "$s_what is a folder, not a system description file"
        elif [ ! -f "$system_file" ]; then
            usage_error "$s_what is not a regular file (a FIFO, a socket or a device is never read)"
        elif [ ! -r "$system_file" ]; then
            usage_error "$s_what: cannot read it (permissions)"
        fi
        s_bytes=$(wc -c <"$system_file") || usage_error "$s_what: cannot read it"
        [ "$s_bytes" -le "$SYSTEM_MAX_BYTES" ] \
            || usage_error "$s_what is $s_bytes bytes; a system description is at most $SYSTEM_MAX_BYTES"
        [ "$(tr -d '\000' <"$system_file" | wc -c)" -eq "$s_bytes" ] \
            || usage_error "$s_what holds a NUL byte: it is not a text file"
        # one pass: "key<TAB>value" lines, or "!message" for the first
        # line that is wrong
        s_parsed=$(LC_ALL=C awk -v keys="$SYSTEM_REQUIRED $SYSTEM_AUTO" -v max="$SYSTEM_MAX_VALUE" '
            BEGIN { n = split(keys, k, /[ \n]+/); for (i = 1; i <= n; i++) known[k[i]] = 1 }
            { sub(/\r$/, "") }
            /^[ \t]*(#|$)/ { next }
            {
                if (!match($0, /^[ \t]*[A-Za-z0-9_]+[ \t]*=/)) {
                    printf "!line %d: not \"key = value\" nor a comment: %s\n", NR, substr($0, 1, 60); exit
                }
                key = substr($0, 1, RLENGTH - 1); gsub(/[ \t]/, "", key)
                value = substr($0, RLENGTH + 1)
                sub(/^[ \t]+/, "", value); sub(/[ \t]+$/, "", value)
                if (!(key in known) && key !~ /^notes_[A-Za-z0-9_]+$/) {
                    printf "!line %d: unknown key \"%s\" (the keys: config/system.conf.example; free text goes in notes_NAME)\n", NR, key; exit
                }
                if (key in seen) {
                    printf "!key \"%s\" given twice: lines %d and %d\n", key, seen[key], NR; exit
                }
                if (length(value) > max) {
                    printf "!line %d: the value of %s is %d bytes, more than %d\n", NR, key, length(value), max; exit
                }
                seen[key] = NR
                printf "%s\t%s\n", key, value
            }' "$system_file") || usage_error "$s_what: cannot read it"
        case $s_parsed in
            '!'*) usage_error "$s_what: ${s_parsed#!}" ;;
            *"
!"*) usage_error "$s_what: ${s_parsed##*
!}" ;;
        esac
        s_tab=$(printf '\t')
        while IFS= read -r s_line; do
            [ -n "$s_line" ] || continue
            s_key=${s_line%%"$s_tab"*}
            eval "sysu_$s_key=\${s_line#*\"\$s_tab\"}"
            case $s_key in notes_*) system_notes="$system_notes $s_key" ;; esac
        done <<EOF_SYSTEM
$s_parsed
EOF_SYSTEM
    fi
    for k in $SYSTEM_REQUIRED; do
        eval "s_v=\${sysu_$k-}"
        [ -n "$s_v" ] || system_missing="$system_missing${system_missing:+ }$k"
    done
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

# sys_add KEY AUTO: the field, the file's value winning over AUTO
sys_add() {
    eval "s_v=\${sysu_$1-}"
    [ -n "$s_v" ] || s_v=$2
    rec_put s "system.$1" "${s_v:-n/a}"
}

# accel_memory: the device's memory as a property of the device: a GPU's
# global memory; for a device of type CPU the host's memory it shares
# (PoCL reports a share of the memory free at the moment as its global
# memory, which differs from run to run)
accel_memory() {
    case $(timing selected.type) in
        *CPU*)
            awk '/^MemTotal:/ { printf "%.1f GiB (the host'"'"'s memory, shared)", $2 / 1048576 }' /proc/meminfo 2>/dev/null ;;
        *)
            awk -v b="$(timing selected.global_mem_bytes)" 'BEGIN { if (b > 0) printf "%.1f GiB", b / 1073741824 }' ;;
    esac
}

# file_system DIR: the file system type of DIR as the kernel's mount table
# names it (df reads it; stat -f would say ext2/ext3 for ext4)
file_system() {
    df --output=fstype "$1" 2>/dev/null | sed -n 2p
}

system_fields() {
    cpuinfo=/proc/cpuinfo
    s_chips=$(sed -n 's/^physical id[[:space:]]*: //p' $cpuinfo 2>/dev/null | sort -u | grep -c .)
    s_cores=$(awk -F': ' '/^physical id/ { p = $2 } /^core id/ { print p ":" $2 }' $cpuinfo 2>/dev/null | sort -u | grep -c .)
    s_threads=$(grep -c '^processor' $cpuinfo 2>/dev/null)
    tpc=""
    [ "${s_cores:-0}" -gt 0 ] && tpc=$((s_threads / s_cores))
    maxf=$(cat /sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq 2>/dev/null)
    l1i=$(sys_cache 1 Instruction) l1d=$(sys_cache 1 Data)
    rec_put z system.file "$system_file"
    for k in $SYSTEM_REQUIRED; do
        eval "s_v=\${sysu_$k-}"
        rec_put s "system.$k" "${s_v:-not given}"
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
    sys_add hw_accel_memory "$(accel_memory)"
    sys_add hw_accel_ecc "$(timing selected.ecc)"
    sys_add hw_accel_connect "$(p=$(timing selected.pci); [ -z "$p" ] || [ "$p" = unknown ] || echo "PCI $p")"
    sys_add hw_accel_clock_mhz "$(timing selected.max_clock_mhz)"
    sys_add sw_accel_driver "$(timing selected.driver) ($(timing selected.platform_name))"
    sys_add sw_os "$host_os"
    sys_add sw_kernel "$host_kernel"
    sys_add sw_file "$(file_system "$RESULTS_ROOT")"
    sys_add sw_governor "$(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null)"
    sys_add sw_other ""
    # free text, each notes_* line in the file's order
    rec_put j system.notes '{}'
    for k in $system_notes; do
        eval "rec_put s \"system.notes.\$k\" \"\$sysu_$k\""
    done
}
