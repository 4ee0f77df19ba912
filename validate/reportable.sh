# validate/reportable.sh - reportable_reasons: why a make run result is
# not reportable, one reason a line, nothing when it is (SPEC's rules as
# docs/harness.md, "Reportable", maps them). Sourced by the harness, and by
# tests/harness.sh to check each rule alone.
#
# Reads: size (the dataset), n and d_iterations (the iterations run and
# the Spec's), repeat (validated runs), all_result (PASS or FAIL),
# ref_kind (spec or host), kind and kind_why (the device's kind), info
# (empty when no device opened), modified (true, false or null),
# commit and env_not_reportable (histo.out's environment.not_reportable). Base and peak (tuning) are both reportable: peak's knobs are
# in the record.
reportable_reasons() {
    [ "$size" = ref ] || echo "workload: $size, not ref (SPEC reports the ref workload only)"
    [ "$n" = "$d_iterations" ] || echo "iterations: $n, not the Spec's $d_iterations"
    [ "$repeat" -ge 3 ] || echo "runs: $repeat, fewer than 3"
    [ "$all_result" = PASS ] || echo "result: FAIL"
    [ "$ref_kind" = spec ] || echo "ratio against this host's sequential C (REFERENCE=host), not the Spec's reference machine"
    [ "$kind" != simulator ] || echo "device: a simulator ($kind_why)"
    [ -n "$info" ] || echo "device: none opened"
    [ "$modified" != true ] || echo "source: the tree has uncommitted changes to tracked files"
    [ "$commit" != unknown ] || echo "source: not a git checkout, so the commit that built it is unknown"
    [ "${env_not_reportable:-none}" = none ] || echo "environment: $env_not_reportable set (for measuring and tests only)"
}
