#!/bin/sh
# tools/man.sh - histo's man page, made from what histo says about itself.
#
#   sh tools/man.sh HISTO >histo.1
#
# Reads HISTO --help and HISTO --version and writes the page in troff's
# man format on stdout. The help text's layout (src/cli.c) is the input
# format: its first line "histo - SUMMARY" is NAME, the "usage:" lines are
# SYNOPSIS, the untitled paragraphs after them DESCRIPTION, and each
# "Title:" line alone starts a section (Options, Exit status, Environment,
# Files) whose entries start two spaces in with a term, the text after two
# or more spaces or on the lines below, indented further. The page's
# sections: NAME, SYNOPSIS, DESCRIPTION, OPTIONS, EXIT STATUS,
# ENVIRONMENT, FILES, then any other titled section of the help in its
# order; words are not hyphenated (.nh), so that option and variable
# names stay whole. A help text without one of them, or a histo that fails, stops the
# script with a message and exit status 1: the page never goes out of step
# with the program silently.
set -u
[ $# -eq 1 ] || { echo "usage: sh tools/man.sh HISTO >histo.1" >&2; exit 2; }
histo=$1
help=$("$histo" --help) || { echo "tools/man.sh: '$histo --help' failed" >&2; exit 1; }
version=$("$histo" --version) || { echo "tools/man.sh: '$histo --version' failed" >&2; exit 1; }
version=$(printf '%s\n' "$version" | sed -n '1{/^histo [0-9][0-9.]*$/p;}')
[ -n "$version" ] || { echo "tools/man.sh: '$histo --version' does not start with 'histo VERSION'" >&2; exit 1; }

printf '%s\n' "$help" | awk -v version="$version" '
# Plain text for troff: backslashes shown as such, a line that would
# start with a control character made text, and the hyphens of options
# (a word starting with "-": -i, --raw, "- for standard output") made
# minus signs, so that they can be copied from the rendered page; other
# hyphens (row-major, 2-D) stay hyphens.
function text(s,    out, i, c, prev, inopt) {
    gsub(/\\/, "\\e", s)
    out = ""; prev = " "; inopt = 0
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "-" && (inopt || index(" ([,|\"'\''", prev) > 0)) {
            out = out "\\-"; inopt = 1
        } else {
            if (c !~ /[A-Za-z0-9]/) inopt = 0
            out = out c
        }
        prev = c
    }
    if (out ~ /^[.'\'']/) out = "\\&" out
    return out
}
function fail(msg) { print "tools/man.sh: " msg > "/dev/stderr"; failed = 1; exit 1 }
function add(sec, s) { body[sec] = body[sec] s "\n" }
# a list entry: its tag line and the text after the term on the same line
function entry(sec, term, rest,    w, n, i, tag) {
    if (sec == "OPTIONS") {
        n = split(term, w, " ")
        tag = "\\fB" text(w[1]) "\\fR"
        for (i = 2; i <= n; i++) tag = tag " \\fI" text(w[i]) "\\fR"
    } else if (sec == "ENVIRONMENT") {
        tag = "\\fB" text(term) "\\fR"
    } else if (sec == "FILES") {
        tag = "\\fI" text(term) "\\fR"
    } else {
        tag = text(term)
    }
    add(sec, ".TP\n" tag)
    if (rest != "") add(sec, text(rest))
}
NR == 1 {
    if ($0 !~ /^histo - /) fail("the help text does not start with \"histo - SUMMARY\"")
    name = text(substr($0, 9))
    next
}
/^usage: / { sub(/^usage: /, ""); in_usage = 1 }
in_usage && /^ *histo / {
    sub(/^ +/, "")
    sub(/^histo/, "")
    synopsis = synopsis "\\fBhisto\\fR" text($0) "\n"
    next
}
/^$/ { in_usage = 0; blank = 1; next }
/^[A-Z][A-Za-z ]*:$/ {
    sec = toupper(substr($0, 1, length($0) - 1))
    if (!(sec in body)) { order[++nsec] = sec; body[sec] = "" }
    blank = 0
    next
}
{
    s = sec == "" ? "DESCRIPTION" : sec
    if (!(s in body)) { order[++nsec] = s; body[s] = "" }
    if (sec != "" && /^  [^ ]/) {
        line = substr($0, 3)
        if (match(line, /  +/)) {
            term = substr(line, 1, RSTART - 1)
            rest = substr(line, RSTART + RLENGTH)
        } else {
            term = line; rest = ""
        }
        entry(sec, term, rest)
    } else {
        line = $0
        sub(/^ +/, "", line)
        if (blank && body[s] != "") add(s, ".PP")
        add(s, text(line))
    }
    blank = 0
}
END {
    if (failed) exit 1
    if (name == "") fail("no summary line")
    if (synopsis == "") fail("no usage lines")
    n = split("DESCRIPTION OPTIONS EXIT STATUS ENVIRONMENT FILES", want, " ")
    # "EXIT STATUS" is two words of that list
    for (i = 1; i <= n; i++) {
        w = want[i]
        if (w == "EXIT") { w = "EXIT STATUS"; i++ }
        if (!(w in body) || body[w] == "") fail("the help text has no " w " section")
        std[w] = 1; stdorder[++nstd] = w
    }
    print ".\\\" Made by tools/man.sh from histo --help and --version; edit src/cli.c."
    print ".TH HISTO 1 \"\" \"" text(version) "\" \"User Commands\""
    print ".nh"
    print ".SH NAME"
    print "histo \\- " name
    print ".SH SYNOPSIS"
    print ".nf"
    printf "%s", synopsis
    print ".fi"
    for (i = 1; i <= nstd; i++) printf ".SH %s\n%s", stdorder[i], body[stdorder[i]]
    for (i = 1; i <= nsec; i++)
        if (!(order[i] in std)) printf ".SH %s\n%s", order[i], body[order[i]]
}'
