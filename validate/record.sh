# validate/record.sh - JSON records made by jq from values put one at a
# time (sourced by validate/harness.sh and the bench scripts; needs jq and
# build/histo-text, which make builds and installs).
#
#   rec_start FILE          begin a record whose fields go to FILE
#   rec_put TYPE PATH VALUE a field: TYPE s (string), z (string, null when
#                           empty), n (a JSON number, else null), b (true,
#                           false, else null), j (JSON text made by jq);
#                           PATH is keys joined by dots, a whole number a
#                           list's index (run_list.0.result)
#   rec_json                the record as one line of compact JSON, or a
#                           message naming the field that broke it and
#                           status 1
#
# Values go to jq as they are, NUL-separated in FILE (no shell variable
# can hold a NUL), so every byte reaches it: jq escapes quotes,
# backslashes and control characters as JSON does. A value that is not
# UTF-8 would be changed by jq (U+FFFD for each bad byte), so build/histo-text
# writes it in the records' escaped form first (docs/harness.md, "Records":
# backslashes doubled, each bad byte as \xHH) and the record's not_utf8
# list names the field.
REC_TEXT=${HISTO_BUILD:-build}/histo-text

rec_start() {
    rec_file=$1 rec_escaped=0
    : >"$rec_file"
}

rec_put() {
    r_v=$3
    case $1 in
        s | z)
            # printable ASCII (nearly every value) needs no process
            case $r_v in
                *[!\ -~]*)
                    r_v=$(printf '%s' "$r_v" | "$REC_TEXT")
                    case $? in
                        0) ;;
                        1) printf 's\0not_utf8.%s\0%s\0' "$rec_escaped" "$2" >>"$rec_file"
                           rec_escaped=$((rec_escaped + 1)) ;;
                        *) r_v="(histo-text failed on this value)." ;;
                    esac
                    r_v=${r_v%.} ;;
            esac ;;
    esac
    printf '%s\0%s\0%s\0' "$1" "$2" "$r_v" >>"$rec_file"
}

# rec_modified VALUE: the record's modified field from tools/provenance.sh:
# true or false, else the string unknown
rec_modified() {
    case $1 in
        true | false) rec_put b modified "$1" ;;
        *) rec_put s modified unknown ;;
    esac
}

# rec_source_fields COMMIT MODIFIED HOST_SOURCES KERNEL_SOURCES: which
# source ran (tools/provenance.sh's three, histo.out's
# build.kernel_sources), as every record and row ends
rec_source_fields() {
    rec_put s commit "$1"
    rec_modified "$2"
    rec_put s host_sources "$3"
    rec_put z kernel_sources "$4"
}

# rec_append LOG WHAT: the record appended to LOG as one line under its
# lock (validate/append-line.sh); where it cannot be made, a message
# naming WHAT and the field, and status 1
rec_append() {
    r_json=$(rec_json) || { echo "$2: no record: $r_json" >&2; return 1; }
    printf '%s\n' "$r_json" | sh validate/append-line.sh "$1"
}

rec_json() {
    jq -c -n --rawfile f "$rec_file" '
        def num: if test("\\A-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][-+]?[0-9]+)?\\z")
                 then tonumber else null end;
        def at: split(".") | map(if test("\\A[0-9]+\\z") then tonumber else . end);
        ($f | split("\u0000")) as $a
        | reduce range(0; ($a | length) - 2; 3) as $i (null;
            $a[$i] as $t | $a[$i + 1] as $k | $a[$i + 2] as $v
            | setpath($k | at;
                if $t == "s" then $v
                elif $t == "z" then (if $v == "" then null else $v end)
                elif $t == "n" then ($v | num)
                elif $t == "b" then (if $v == "true" then true
                                     elif $v == "false" then false else null end)
                elif $t == "j" then ($v | try fromjson
                                     catch error("field \($k): not JSON: \($v)"))
                else error("field \($k): unknown type \($t)") end))' 2>&1
}

# rec_show: a record (standard input, one JSON document) as lines
# "PATH<TAB>VALUE", one per scalar in document order, strings with every
# control character written \xHH (so a value never breaks a line or a
# column), null as null. validate/result.sh formats its pages from them.
REC_SHOW_DEFS='
    def hex2: [(. / 16 | floor), (. % 16)] | map("0123456789abcdef"[.:. + 1]) | join("");
    def shown: if type == "string"
               then gsub("(?<c>[\u0000-\u001f\u007f])"; "\\x\(.c | explode[0] | hex2)")
               else tostring end;'
rec_show() {
    jq -r "$REC_SHOW_DEFS"'
        . as $d | [paths] [] as $p | ($d | getpath($p)) as $v
        | select(($v | type) != "object" and ($v | type) != "array")
        | ($p | map(tostring) | join(".")) + "\t" + ($v | shown)'
}
