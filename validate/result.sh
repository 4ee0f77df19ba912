#!/bin/sh
# validate/result.sh - the result file of one make run, as text or HTML,
# generated from its JSON record alone (the harness writes both beside
# the record, RESULT_DIR/result.{json,txt,html}).
#
#   sh validate/result.sh txt|html|csv RECORD.json
#
# RECORD.json holds one record as make run appends it to the results log
# (docs/harness.md, "Results"); a line of the log will do. The page gives
# the result line, whether it is reportable and why not, base or peak,
# every run (the warm-up too), the median, the ratio and what it is
# against, the validation, the median run's time in each phase, and the
# provenance: host, OS, kernel, memory, CPU, device and driver, build,
# kernel build options, knobs and the OpenCL environment. The page also
# shows the histogram (the median run's BMP) and links each run's
# histo.out, log and outputs, and the flags' page. csv: every field of
# the record, one "field,value" line each (the harness writes it as
# result.csv, a CSV per result).
set -u
[ $# -eq 2 ] && { [ "$1" = txt ] || [ "$1" = html ] || [ "$1" = csv ]; } \
    || { echo "usage: result.sh txt|html|csv RECORD.json" >&2; exit 2; }
[ -r "$2" ] || { echo "result: cannot read $2" >&2; exit 1; }
here=$(dirname "$0")
. "$here/record.sh"
# the record's scalars as "PATH<TAB>VALUE" lines, read by jq (control
# characters as \xHH)
flat=$(head -n 1 "$2" | rec_show) || { echo "result: $2 is not a JSON record" >&2; exit 1; }
if [ "$1" = csv ]; then
    printf 'field,value\n'
    printf '%s\n' "$flat" | awk -F '\t' '
        function csvf(x) { if (x ~ /[",\r\n]/) { gsub(/"/, "\"\"", x); x = "\"" x "\"" } return x }
        { k = $1; sub(/^[^\t]*\t/, ""); print csvf(k) "," csvf($0) }'
    exit 0
fi
# what each compiler flag and kernel option means, for its link: the copy
# the harness puts in the result's folder (which then stands alone), else
# docs/flags.md as a path from the page's folder
page_dir=$(cd "$(dirname "$2")" && pwd -P)
flags_doc=$(cd "$here/../docs" && pwd -P)/flags.md
[ -r "$page_dir/flags.md" ] && flags_doc=$page_dir/flags.md
[ -r "$page_dir/flags.html" ] && flags_doc=$page_dir/flags.html
flags_rel=$(awk -v from="$page_dir" -v to="$flags_doc" 'BEGIN {
    nf = split(from, f, "/"); nt = split(to, t, "/")
    for (i = 2; i <= nf && i < nt && f[i] == t[i]; i++) ;
    rel = ""
    for (j = i; j <= nf; j++) if (f[j] != "") rel = rel "../"
    for (j = i; j <= nt; j++) rel = rel t[j] (j < nt ? "/" : "")
    print rel }')
printf '%s\n' "$flat" | awk -F '\t' -v fmt="$1" -v flags_rel="$flags_rel" '
function get(k) { return (k in v) ? v[k] : "" }
# the last part of a path: the folder of a run, as the page links it
function leaf(x) { sub(/.*\//, "", x); return x }
function orna(x) { return x == "" || x == "null" ? "n/a" : x }
function unit(x, u) { return x == "" || x == "null" ? "n/a" : x " " u }
function esc(x) {
    gsub(/&/, "\\&amp;", x); gsub(/</, "\\&lt;", x); gsub(/>/, "\\&gt;", x)
    gsub(/"/, "\\&quot;", x)
    return x
}
function section(t) {
    if (fmt == "txt") { printf "\n%s\n", t; u = t; gsub(/./, "-", u); print u }
    else { if (open_table) print "</table>"; printf "<h2>%s</h2>\n<table>\n", esc(t); open_table = 1 }
}
function row(label, x) {
    if (fmt == "txt") printf "%-22s %s\n", label, x
    else printf "<tr><th>%s</th><td>%s</td></tr>\n", esc(label), esc(x)
}
function link_row(label, x, href) {
    if (fmt == "txt") printf "%-22s %s\n", label, x
    else printf "<tr><th>%s</th><td><a href=\"%s\">%s</a></td></tr>\n", esc(label), esc(href), esc(x)
}
function runs_head() {
    if (fmt == "txt")
        printf "%-20s %6s %6s %11s %13s %10s  %s\n", "run", "status", "result", "iterations", "s/iteration", "total s", "folder"
    else
        print "<tr><th>run</th><th>status</th><th>result</th><th>iterations</th><th>s/iteration</th><th>total s</th><th>folder</th><th>why</th></tr>"
}
function run_row(p,    why, label) {
    why = get(p ".why")
    label = get(p ".run")
    if (get(p ".run_dir") == get("run_dir") && p != "warmup") label = label " (median)"
    if (fmt == "txt") {
        printf "%-20s %6s %6s %11s %13s %10s  %s\n", label, get(p ".histo_status"),
            get(p ".result"), orna(get(p ".iterations")), orna(get(p ".s_per_iteration")),
            orna(get(p ".total_s")), get(p ".run_dir")
        if (why != "") printf "%-20s %s\n", "", why
        if (get(p ".outputs") != "" && get(p ".outputs") != "kept") printf "%-20s outputs: %s\n", "", get(p ".outputs")
    } else {
        # the files of the run, as links from the folder of the page
        d = leaf(get(p ".run_dir"))
        files = sprintf("<a href=\"%s/histo.out\">histo.out</a>, <a href=\"%s/histo.log\">log</a>", esc(d), esc(d))
        if (get(p ".outputs") == "kept")
            files = files sprintf(", <a href=\"%s/histo.bmp\">histo.bmp</a>, <a href=\"%s/histo.raw\">histo.raw</a>", esc(d), esc(d))
        else if (get(p ".outputs") != "")
            files = files " (outputs: " esc(get(p ".outputs")) ")"
        printf "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s<br />%s</td><td>%s</td></tr>\n",
            esc(label), esc(get(p ".histo_status")), esc(get(p ".result")),
            esc(orna(get(p ".iterations"))), esc(orna(get(p ".s_per_iteration"))),
            esc(orna(get(p ".total_s"))), esc(get(p ".run_dir")), files, esc(why)
    }
}
{ k = $1; sub(/^[^\t]*\t/, ""); v[k] = $0; order[++n] = k }
END {
    rep = get("reportable") == "true"
    why_not = ""
    for (i = 0; ("not_reportable." i) in v; i++)
        why_not = why_not (i ? "; " : "") v["not_reportable." i]
    ratio = get("reference_kind") == "host" ? "host ratio " orna(get("ratio")) : "ratio " orna(get("ratio"))
    title = sprintf("%s %s: %s s/iteration host wall, %s, %s, %s, %s", get("benchmark"), get("dataset"),
                    orna(get("s_per_iteration")), ratio, get("tuning") == "null" ? "n/a" : get("tuning"),
                    get("result"), rep ? "reportable" : "NOT REPORTABLE")
    if (fmt == "txt") { print title; u = title; gsub(/./, "=", u); print u }
    else {
        print "<!DOCTYPE html>"
        print "<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\" />"
        printf "<title>%s</title>\n", esc(title)
        print "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:1em}th,td{border:1px solid #999;padding:2px 8px;text-align:left;vertical-align:top}th{background:#eee}.fail{color:#b00}</style>"
        print "</head>\n<body>"
        printf "<h1>%s</h1>\n", esc(title)
        if (!rep) printf "<p class=\"fail\">Not reportable: %s</p>\n", esc(why_not)
    }
    section("Result")
    row("result", get("result") (get("why") != "" ? " (" get("why") ")" : ""))
    row("reportable", rep ? "yes" : "no: " why_not)
    row("tuning", get("tuning") == "peak" ? "peak: " get("knobs_why") : get("tuning") == "base" ? "base: histo'"'"'s defaults" : "n/a")
    row("median, host wall", orna(get("s_per_iteration")) " s/iteration: the host clock over each run'"'"'s timed iterations over their count, the median of " get("runs_passed") " of " get("runs") " runs that passed (min " orna(get("s_per_iteration_min")) ", max " orna(get("s_per_iteration_max")) ")")
    row("spread", get("spread") == "null" || get("spread") == "" ? "n/a (one run)" \
        : get("spread") "x, slowest over fastest run (reportable up to " get("spread_max") "x)")
    row("load", "1-minute load average " orna(get("load_before")) " when the run began, " \
        orna(get("load_after")) " at its end, on " orna(get("cpu_cores")) " cores; " \
        orna(get("busy_before")) " cores busy just before it began")
    row(get("reference_kind") == "host" ? "host ratio" : "ratio", orna(get("ratio")) " = reference " orna(get("reference_s_per_iteration")) " s/iteration / median")
    row("ratio against", get("ratio_against"))
    row("iterations", get("iterations") " (Spec: " get("spec_iterations") ")")
    row("iteration, device", unit(get("iteration_device_median_us"), "us median (OpenCL profiling events)"))
    row("iteration, host", unit(get("iteration_host_median_us"), "us median (host clock, each iteration waited for)"))
    row("histo'"'"'s figure timed by", orna(get("timed_by")) " (the iteration rows above; not the median)")
    row("energy", get("energy_j_per_iteration") != "null" && get("energy_j_per_iteration") != "" \
        ? sprintf("%.3f mJ/iteration, %s W mean (%s W before the run), %s: the device'"'"'s own counter", \
                  get("energy_j_per_iteration") * 1e3, orna(get("energy_mean_watts")), \
                  orna(get("energy_idle_watts")), get("energy_source")) \
        : "not measured: " orna(get("energy_reason")))
    row("validation", get("validation"))
    row("digest", orna(get("digest")))
    row("histo exit status", get("histo_status"))
    row("time", get("time"))
    section("Runs (the warm-up is untimed: not in the median)")
    runs_head()
    run_row("warmup")
    for (i = 0; ("run_list." i ".run") in v; i++) run_row("run_list." i)
    section("Phases of the median run (time.* in its histo.out, seconds)")
    # the phases in the order of the record (the harness sets it), each named here
    split("input_read:input read|opencl_setup:OpenCL setup|program_build:kernel build|upload:input upload|strategy_setup:strategy setup|iterations_wall:iterations (wall)|download:counters download|check:self-check|bmp_write:BMP write|total:total", ph, "|")
    for (i = 1; i in ph; i++) { split(ph[i], kv, ":"); phase_name["phases." kv[1] "_s"] = kv[2] }
    for (i = 1; i <= n; i++)
        if (order[i] ~ /^phases\./)
            row(order[i] in phase_name ? phase_name[order[i]] : substr(order[i], 8), unit(v[order[i]], "s"))
    if (fmt == "html" && get("run_dir") != "" && get("run_dir") != "null") {
        d = leaf(get("run_dir"))
        print "</table>"; open_table = 0
        print "<h2>Histogram</h2>"
        printf "<p>The median run\047s output, <a href=\"%s/histo.bmp\">%s/histo.bmp</a> (the whole picture, a pixel a bin): its count (0 to 255) in red, the histogram\047s first row at the top, drawn here in 512 x 1024 pixels, each row of pixels several rows of bins.</p>\n", esc(d), esc(d)
        printf "<p><img src=\"%s/histo.bmp\" style=\"width:512px;height:1024px;border:1px solid #999\" alt=\"the histogram of the median run, the count of each bin in red\" /></p>\n", esc(d)
    }
    section("Device")
    row("device", orna(get("device")) " (" orna(get("device_type")) ", " orna(get("device_kind")) ")")
    if (get("device_kind_why") != "null") row("device kind", get("device_kind_why"))
    row("platform", orna(get("platform")))
    row("platform version", orna(get("platform_version")))
    row("device version", orna(get("device_version")))
    row("driver", orna(get("driver")))
    row("device memory", unit(get("device_memory_bytes"), "bytes"))
    section("Knobs")
    row("strategy", orna(get("strategy")) " (requested " orna(get("strategy_requested")) ")")
    row("knobs from", orna(get("knobs_from")))
    row("batches", orna(get("knobs.batches")) " (0: the strategy decides)")
    row("tile_rows", orna(get("knobs.tile_rows")))
    row("replicas", orna(get("knobs.replicas")))
    row("HISTO_CL_OPTIONS", orna(get("knobs.cl_options")))
    row("kernel build options", orna(get("build_options")))
    section("Host and build")
    row("host", get("host"))
    row("OS", get("os"))
    row("kernel", get("kernel"))
    row("memory", unit(get("memory_bytes"), "bytes"))
    row("CPU", get("cpu_model") " (" orna(get("cpu_cores")) " cores online)")
    row("compiler", get("compiler") (get("cc") != "" ? " (CC " get("cc") ")" : ""))
    row("cflags", get("cflags"))
    row("ldflags", get("ldflags"))
    row("ldlibs", get("ldlibs"))
    link_row("flags described in", flags_rel, flags_rel)
    row("commit", get("commit") (get("modified") == "true" ? " (tree modified)" \
        : get("modified") == "unknown" ? " (not verified: git cannot see the tree)" : ""))
    row("host sources", orna(get("host_sources")))
    row("kernel sources", orna(get("kernel_sources")))
    row("command", get("command") " (the median run" "\047" "s)")
    row("results", get("result_dir"))
    section("System under test (" (get("system.file") == "null" || get("system.file") == "" ? "no description file" : get("system.file")) ")")
    for (i = 1; i <= n; i++)
        if (order[i] ~ /^system\./ && order[i] != "system.file") {
            label = substr(order[i], 8)
            sub(/^notes\./, "", label)
            row(label, v[order[i]])
        }
    section("OpenCL environment")
    any = 0
    for (i = 1; i <= n; i++)
        if (order[i] ~ /^env\./) { row(substr(order[i], 5), v[order[i]]); any = 1 }
    if (!any) row("(none set)", "")
    if (fmt == "html") print "</table>\n</body>\n</html>"
}'
