#!/bin/sh
# validate/append-line.sh FILE - appends standard input, one line composed
# whole beforehand, to FILE under a lock on FILE.lock (flock(1), from
# util-linux, part of every Debian system), so that concurrent writers
# (make run, make bench) never interleave their records and a reader never
# sees half a line. Without flock, one printf of the whole line: a single
# write with O_APPEND, which Linux keeps whole on local file systems.
set -u
file=$1
line=$(cat) || exit 1
case $line in *"
"*) echo "append-line: one line only" >&2; exit 1 ;; esac
if command -v flock >/dev/null 2>&1; then
    printf '%s\n' "$line" | flock "$file.lock" sh -c 'cat >>"$1"' sh "$file"
else
    printf '%s\n' "$line" >>"$file"
fi
