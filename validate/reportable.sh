# validate/reportable.sh - reportable_reasons: why a make run result is
# not reportable, one reason a line, nothing when it is (SPEC's rules as
# docs/harness.md, "Reportable", maps them). Sourced by the harness, and by
# tests/harness.sh to check each rule alone.
#
# Reads: size (the dataset), n and d_iterations (the iterations run and
# the Spec's), repeat (validated runs), all_result (PASS or FAIL),
# ref_kind (spec or host), kind and kind_why (the device's kind), info
# (empty when no device opened), modified (true, false or unknown:
# tools/provenance.sh),
# commit, env_not_reportable (histo.out's environment.not_reportable),
# spread (slowest over fastest run), load_before (the 1-minute load
# average before the warm-up), busy_before (the cores busy in the half
# second before it), cores (online), system_missing and
# system_file (validate/system.sh). Base and peak (tuning) are both
# reportable: peak's knobs are in the record.
# The largest spread of a reportable result's runs: 1.15, above every
# quiet machine measured (docs/harness.md, "Run quality").
SPREAD_MAX=1.15
reportable_reasons() {
    [ "$size" = ref ] || echo "workload: $size, not ref (SPEC reports the ref workload only)"
    [ "$n" = "$d_iterations" ] || echo "iterations: $n, not the Spec's $d_iterations"
    [ "$repeat" -ge 3 ] || echo "runs: $repeat, fewer than 3"
    [ "$all_result" = PASS ] || echo "result: FAIL"
    [ "$ref_kind" = spec ] || echo "ratio against this host's sequential C (REFERENCE=host), not the Spec's reference machine"
    [ "$kind" != simulator ] || echo "device: a simulator ($kind_why)"
    [ -n "$info" ] || echo "device: none opened"
    case $modified in
        false) ;;
        true) echo "source: the tree has uncommitted changes to tracked files" ;;
        *) if [ "$commit" = unknown ]; then
               echo "source: not a git checkout, so the commit that built it is unknown"
           else
               echo "source: git cannot verify the tree against commit $commit (a copy named by HISTO_COMMIT, or a tree changed since the build)"
           fi ;;
    esac
    [ "${env_not_reportable:-none}" = none ] || echo "environment: $env_not_reportable set (for measuring and tests only)"
    [ -z "${system_missing:-}" ] || echo "system description: $system_missing not given (${system_file:-no config/system.conf: copy config/system.conf.example, or SYSTEM=FILE})"
    # stricter than SPEC, on purpose (docs/harness.md, "Run quality"):
    # runs that disagree, or a machine already busy when the run began
    if above "${spread:-}" "$SPREAD_MAX"; then
        echo "noisy: spread ${spread}x > ${SPREAD_MAX}x (slowest over fastest run)"
    fi
    # the load the machine carried before histo ran, as its 1-minute
    # average and as the cores busy just before: each at most half its
    # cores (at least 1)
    l_max=$(awk -v c="${cores:-0}" 'BEGIN { print (c / 2 > 1 ? c / 2 : 1) }')
    if [ -n "${cores:-}" ] && above "${load_before:-}" "$l_max"; then
        echo "load $load_before on $cores cores when the run began (more than $l_max)"
    fi
    if [ -n "${cores:-}" ] && above "${busy_before:-}" "$l_max"; then
        echo "busy: $busy_before of $cores cores busy when the run began (more than $l_max)"
    fi
}

# above VALUE MAX: whether VALUE is given and a number above MAX
above() {
    [ -n "$1" ] && awk -v v="$1" -v m="$2" 'BEGIN { exit !(v > m) }'
}
