#!/bin/sh
# tests/outputs.sh - what histo's outputs may and may not do to the files
# their paths name: the input, each other, the tune cache, FIFOs, folders,
# symbolic links, character devices, and runs ended by signals. Prints
# "PASS name" or "FAIL name: why" per test and no summary: tests/run.sh
# counts the lines.
#
# Every file is made here, in a temporary folder; character devices only
# with mknod in that folder (as root; skipped with a message otherwise).
# No test points histo at the machine's own /dev entries. Expected bytes
# come from build/histo-ref, the sequential reference.
# ids: output
set -u
SUBJECT=outputs
ID_PREFIX=output.
. "$(dirname "$0")/lib.sh"
HISTO_TUNE_FILE=$W/tune.conf
export HISTO_TUNE_FILE
histo() { histo_in_w "$@"; }

$B/histo-gen -o "$W/in.bin" --seed 11 --image 300x200 >/dev/null \
    && $B/histo-ref "$W/in.bin" "$W/ref.bmp" >/dev/null \
    && cp "$W/in.bin" "$W/in.copy" \
    || { bad setup "cannot make the input and its reference"; exit 0; }

# leftovers NAME: the temporary files histo left in $W (none expected).
leftovers() { (cd "$W" && ls -A | grep '\.tmp\.' | tr '\n' ' '); }

# --- two options naming the same file: exit 2, nothing touched ---
# refused NAME PATTERN FILE COPY [histo args]: exit 2, stderr matching
# PATTERN, FILE still equal to COPY.
refused() {
    name=$1 pattern=$2 file=$3 copy=$4
    shift 4
    histo "$@" >"$W/$name.log" 2>&1
    st=$?
    if [ "$st" -ne 2 ]; then
        bad "$name" "exit status $st, expected 2: $(tail -n 2 "$W/$name.log")"
    elif ! grep -q -- "$pattern" "$W/$name.log"; then
        bad "$name" "message lacks '$pattern': $(head -c 300 "$W/$name.log")"
    elif ! cmp -s "$W/$file" "$W/$copy"; then
        bad "$name" "$file was changed or removed"
    else
        ok "$name"
    fi
    cp "$W/$copy" "$W/$file" # the next test starts from it whatever happened
}
refused same.output_is_input "-i 'in.bin' and -o 'in.bin' are the same file" \
    in.bin in.copy -i in.bin -o in.bin -- 1
refused same.timing_is_input "-i 'in.bin' and --timing 'in.bin'" \
    in.bin in.copy -i in.bin -o a.bmp --timing in.bin -- 1
ln -s in.bin "$W/in.link"
refused same.output_is_input_by_link "-i 'in.link' and -o 'in.bin'" \
    in.bin in.copy -i in.link -o in.bin -- 1
mkdir "$W/sub"
refused same.output_is_input_other_spelling "-o 'sub/../in.bin'" \
    in.bin in.copy -i in.bin -o sub/../in.bin -- 1
printf '# a tune cache\n' >"$W/tune.conf"
cp "$W/tune.conf" "$W/tune.copy"
refused same.output_is_tune_cache "-o 'tune.conf' and the tune cache" \
    tune.conf tune.copy -i in.bin -o tune.conf -- 1
# neither exists: the same path once resolved
refused same.output_is_timing "-o 'same' and --timing 'sub/../same'" \
    in.bin in.copy -i in.bin -o same --timing sub/../same -- 1
[ -e "$W/same" ] && bad same.output_is_timing_nothing_written "'same' exists"

# --- an output that is also standard error (the shell opened it for
# 2>p.bmp): exit 2 before any work, the message, and nothing else
# written. An output that is standard output's file is written through
# it (stdout_link below). ---
# into_stderr NAME STATUS FILE PATTERN: a run's verdict: exit status
# STATUS 2, FILE (standard error's) holding the message PATTERN, and no
# histo.out (--timing NAME.out) written
into_stderr() {
    if [ "$2" -ne 2 ]; then
        bad "$1" "exit status $2, expected 2"
    elif ! grep -q "^histo: $4 and standard error are the same file" "$W/$3"; then
        bad "$1" "$3 lacks the message: $(head -c 200 "$W/$3")"
    elif [ -e "$W/$1.out" ]; then
        bad "$1" "histo.out was written"
    else
        ok "$1"
    fi
}
histo -i in.bin -o p.bmp --timing same.output_is_stderr.out -- 1 2>"$W/p.bmp"
into_stderr same.output_is_stderr $? p.bmp "-o 'p.bmp'"
# --raw - with stderr into the same file (2>&1): refused the same way
histo -i in.bin --no-bmp --raw - --timing same.raw_dash_is_stderr.out -- 1 \
    >"$W/r.raw" 2>&1
into_stderr same.raw_dash_is_stderr $? r.raw "--raw '-'"

# --- a FIFO is written in place: the reader gets the exact bytes ---
mkfifo "$W/fifo" "$W/tfifo"
timeout 60 cat "$W/fifo" >"$W/fifo.got" &
reader=$!
timeout 60 cat "$W/tfifo" >"$W/tfifo.got" &
treader=$!
histo -i in.bin -o fifo --timing tfifo -- 2 >"$W/fifo.log" 2>&1
st=$?
wait $reader $treader
if [ "$st" -ne 0 ]; then
    bad fifo "exit status $st: $(tail -n 2 "$W/fifo.log")"
elif ! cmp -s "$W/fifo.got" "$W/ref.bmp"; then
    bad fifo "the reader got other bytes than the reference BMP"
elif ! grep -q '^iterations = 2$' "$W/tfifo.got"; then
    bad fifo "the report's reader got no report"
elif [ ! -p "$W/fifo" ] || [ ! -p "$W/tfifo" ]; then
    bad fifo "a FIFO is no longer a FIFO"
else
    ok fifo
fi

# --- standard output: "-", and a link to /proc/self/fd/1 made here (what
# /dev/stdout is): histo's own stream, written in place ---
if histo -i in.bin -o - -- 1 >"$W/stdout.got" 2>"$W/stdout.err" \
   && cmp -s "$W/stdout.got" "$W/ref.bmp" \
   && grep -q "^histo: iteration" "$W/stdout.err"; then
    ok stdout_dash
else
    bad stdout_dash "stdout is not the BMP, or the summary is not on stderr"
fi
ln -s /proc/self/fd/1 "$W/stdout.link"
if histo -i in.bin -o stdout.link -- 1 2>/dev/null | cmp -s - "$W/ref.bmp" \
   && histo -i in.bin -o stdout.link -- 1 >"$W/redirected.bmp" 2>/dev/null \
   && cmp -s "$W/redirected.bmp" "$W/ref.bmp" && [ -z "$(leftovers)" ]; then
    ok stdout_link
else
    bad stdout_link "-o to stdout (a pipe, a redirected file) is not the BMP"
fi

# --- a folder is refused and kept, empty or not ---
mkdir "$W/empty" "$W/full-dir"
echo keep >"$W/full-dir/keep"
for d in empty full-dir; do
    histo -i in.bin -o "$d" -- 1 >"$W/dir.$d.log" 2>&1
    st=$?
    if [ "$st" -eq 5 ] && grep -q "'$d': is a directory" "$W/dir.$d.log" \
       && [ -d "$W/$d" ] && { [ "$d" = empty ] || [ -f "$W/$d/keep" ]; }; then
        ok "folder.$d"
    else
        bad "folder.$d" "exit status $st, folder kept: $([ -d "$W/$d" ] && echo yes || echo no); $(tail -n 1 "$W/dir.$d.log")"
    fi
done
histo -i in.bin -o a.bmp --timing empty -- 1 >"$W/dir.timing.log" 2>&1
st=$?
if [ "$st" -eq 5 ] && [ -d "$W/empty" ] && [ ! -e "$W/a.bmp" ]; then
    ok folder.timing
else
    bad folder.timing "exit status $st; a.bmp left: $([ -e "$W/a.bmp" ] && echo yes || echo no)"
fi

# --- a symbolic link is followed; the link stays a link ---
echo stale >"$W/target.bmp"
ln -s target.bmp "$W/link.bmp"
if histo -i in.bin -o link.bmp -- 1 >"$W/link.log" 2>&1 \
   && [ -L "$W/link.bmp" ] && [ "$(readlink "$W/link.bmp")" = target.bmp ] \
   && cmp -s "$W/target.bmp" "$W/ref.bmp" && [ -z "$(leftovers)" ]; then
    ok symlink.to_file
else
    bad symlink.to_file "link replaced, or its target not the BMP: $(ls -l "$W/link.bmp")"
fi
ln -s sub/new.bmp "$W/dangling.bmp"
if histo -i in.bin -o dangling.bmp -- 1 >"$W/dangling.log" 2>&1 \
   && [ -L "$W/dangling.bmp" ] && cmp -s "$W/sub/new.bmp" "$W/ref.bmp"; then
    ok symlink.dangling_creates_target
else
    bad symlink.dangling_creates_target "$(tail -n 1 "$W/dangling.log")"
fi
mkfifo "$W/lfifo"
ln -s lfifo "$W/fifo.link"
timeout 60 cat "$W/lfifo" >"$W/lfifo.got" &
reader=$!
histo -i in.bin -o fifo.link -- 1 >"$W/lfifo.log" 2>&1
st=$?
wait $reader
if [ "$st" -eq 0 ] && [ -L "$W/fifo.link" ] && [ -p "$W/lfifo" ] \
   && cmp -s "$W/lfifo.got" "$W/ref.bmp"; then
    ok symlink.to_fifo
else
    bad symlink.to_fifo "exit status $st; $(tail -n 1 "$W/lfifo.log")"
fi

# --- character devices of our own (root only): /dev/null and /dev/full ---
if mknod "$W/null" c 1 3 2>/dev/null && mknod "$W/full" c 1 7 2>/dev/null \
   && (echo probe >"$W/null") 2>/dev/null; then
    if histo -i in.bin -o null --timing null -- 1 >"$W/null.log" 2>&1 \
       && [ -c "$W/null" ] && [ -z "$(leftovers)" ]; then
        ok chardev.null
    else
        bad chardev.null "$(tail -n 1 "$W/null.log"); still a device: $([ -c "$W/null" ] && echo yes || echo no)"
    fi
    for which in bmp timing; do
        if [ $which = bmp ]; then set -- -o full; else set -- -o f.bmp --timing full; fi
        histo -i in.bin "$@" -- 1 >"$W/full.$which.log" 2>&1
        st=$?
        if [ "$st" -eq 5 ] && [ -c "$W/full" ] && [ ! -e "$W/f.bmp" ] \
           && grep -q "No space left on device" "$W/full.$which.log"; then
            ok "chardev.full_$which"
        else
            bad "chardev.full_$which" "exit status $st: $(tail -n 1 "$W/full.$which.log")"
        fi
    done
else
    echo "SKIP output.chardev: mknod refused here (not root, or a nodev file system)"
fi

# --- signals: nothing left at the output paths, 128 + N ---
# interrupted NAME SIGNAL WAIT_FOR_BMP: a run stopped by SIGNAL, either
# while iterating or (WAIT_FOR_BMP=yes) with the BMP written and the
# report blocked on a FIFO nobody reads.
interrupted() {
    name=$1 sig=$2 blocked=$3 want=$4
    echo stale >"$W/s.bmp"
    rm -f "$W/s.out"
    if [ "$blocked" = yes ]; then
        rm -f "$W/s.fifo"
        mkfifo "$W/s.fifo"
        set -- --timing s.fifo -- 1
    else
        set -- --timing s.out -- 1000000
    fi
    # INT and HUP as if histo were started from a terminal: a background
    # job of a non-interactive shell ignores SIGINT, and under nohup (a
    # detached CI job) SIGHUP is ignored
    case $sig in
        INT | HUP) start="env --default-signal=$sig" ;;
        *) start="" ;;
    esac
    # the binary itself, not the time limit's wrapper (tests/timed.sh):
    # the signal is for histo, and this case bounds its own wait
    if [ -n "$DEVICE" ]; then
        (cd "$W" && exec $start "$HISTO_REAL" --platform "$PLATFORM" --device "$DEVICE" -i in.bin -o s.bmp "$@") >"$W/sig.$name.log" 2>&1 &
    else
        (cd "$W" && exec $start "$HISTO_REAL" --platform "$PLATFORM" -i in.bin -o s.bmp "$@") >"$W/sig.$name.log" 2>&1 &
    fi
    pid=$!
    # what its one line says: blocked, it removes the BMP's temporary
    # file; while iterating nothing has been written yet
    said="no output was written"
    [ "$blocked" = yes ] && said="unfinished outputs removed"
    # until the run is under way: the stale BMP is gone, and, blocked,
    # the BMP's temporary file exists
    tries=0
    while [ $tries -lt 300 ]; do
        if [ ! -e "$W/s.bmp" ] && { [ "$blocked" = no ] || [ -n "$(leftovers)" ]; }; then
            break
        fi
        sleep 0.1
        tries=$((tries + 1))
    done
    sleep 0.5
    kill -"$sig" $pid
    wait $pid
    st=$?
    left=$(leftovers)
    if [ "$st" -ne "$want" ]; then
        bad "signal.$name" "exit status $st, expected $want: $(tail -n 2 "$W/sig.$name.log")"
    elif [ "$sig" = KILL ]; then
        if [ -e "$W/s.bmp" ] || [ -e "$W/s.out" ]; then
            bad "signal.$name" "an output file was left at its path"
        elif ! (cd "$W" && ls -A) | grep -qx '\.s\.bmp\.tmp\.......'; then
            bad "signal.$name" "no .s.bmp.tmp.XXXXXX file: $(cd "$W" && ls -A | tr '\n' ' ')"
        else
            ok "signal.$name"
            rm -f "$W"/.s.bmp.tmp.*
        fi
    elif [ -e "$W/s.bmp" ] || [ -e "$W/s.out" ] || [ -n "$left" ]; then
        bad "signal.$name" "files left behind: $(cd "$W" && ls -A s.bmp s.out 2>/dev/null) $left"
    elif [ "$(wc -l <"$W/sig.$name.log")" -ne 1 ] \
         || ! grep -q "^histo: .*(SIG$sig); $said$" "$W/sig.$name.log"; then
        bad "signal.$name" "not one line on stderr: $(head -c 300 "$W/sig.$name.log")"
    elif [ "$blocked" = yes ] && [ ! -p "$W/s.fifo" ]; then
        bad "signal.$name" "the FIFO is gone"
    else
        ok "signal.$name"
    fi
}
interrupted term_iterating TERM no 143
interrupted term_bmp_written TERM yes 143
if env --default-signal=INT true 2>/dev/null; then
    interrupted hup_bmp_written HUP yes 129
    interrupted int_iterating INT no 130
else
    echo "SKIP output.signal.hup_bmp_written, int_iterating: env has no --default-signal"
fi
# A signal ignored when histo starts stays ignored, also once the
# implementation has compiled kernels in the process (PoCL's LLVM puts
# handlers of its own in place, which re-raise an ignored signal and
# return, turning a blocking open into EINTR): with SIGHUP ignored and
# the kernels compiled anew (POCL_KERNEL_CACHE=0), a hangup while histo
# waits to open its timing FIFO changes nothing, and a reader then lets
# the run end well.
if env --ignore-signal=HUP true 2>/dev/null; then
    rm -f "$W/h.fifo" "$W/h.bmp"
    mkfifo "$W/h.fifo"
    set -- --platform "$PLATFORM"
    [ -z "$DEVICE" ] || set -- "$@" --device "$DEVICE"
    (cd "$W" && POCL_KERNEL_CACHE=0 exec env --ignore-signal=HUP "$HISTO_REAL" "$@" \
         -i in.bin -o h.bmp --timing h.fifo -- 1) >"$W/sig.hup_ignored.log" 2>&1 &
    pid=$!
    tries=0
    while [ $tries -lt 300 ] && ! (cd "$W" && ls -A) | grep -q '^\.h\.bmp\.tmp\.'; do
        sleep 0.1
        tries=$((tries + 1))
    done
    sleep 0.5
    kill -HUP $pid
    sleep 1
    if ! kill -0 $pid 2>/dev/null; then
        wait $pid
        bad signal.hup_ignored "histo ended on an ignored SIGHUP (exit status $?): $(tail -n 2 "$W/sig.hup_ignored.log")"
    else
        cat "$W/h.fifo" >"$W/h.report"
        wait $pid
        st=$?
        if [ "$st" -eq 0 ] && grep -q '^format = histo.out/1$' "$W/h.report" \
           && cmp -s "$W/h.bmp" "$W/ref.bmp"; then
            ok signal.hup_ignored
        else
            bad signal.hup_ignored "exit status $st: $(tail -n 2 "$W/sig.hup_ignored.log")"
        fi
    fi
    rm -f "$W/h.fifo" "$W/h.bmp" "$W/h.report"
else
    echo "SKIP output.signal.hup_ignored: env has no --ignore-signal"
fi
interrupted kill_bmp_written KILL yes 137

# --- concurrent --tune runs keep every line of the tune cache ---
# Four histogram shapes give four cache lines; each is written by two
# runs at once.
rm -f "$W/tune.conf"
pids=""
for h in 64x32 64x48 96x32 96x48; do
    $B/histo-gen -o "$W/t$h.bin" --seed 3 --image 64x64 --histo "$h" \
        --row-sigma 5 --col-sigma 5 --row-mean 10 --col-mean 20 >/dev/null
    for k in 1 2; do
        histo --tune -i "t$h.bin" -o "t$h.$k.bmp" --timing "t$h.$k.out" \
            -- 1 >"$W/t$h.$k.log" 2>&1 &
        pids="$pids $!"
    done
done
failed=0
for p in $pids; do wait "$p" || failed=$((failed + 1)); done
lines=$(grep -c ' = batches [0-9]* tile_rows [0-9]*$' "$W/tune.conf" 2>/dev/null)
if [ "$failed" -ne 0 ]; then
    bad tune_cache.concurrent "$failed of 8 runs failed: $(cat "$W"/t*.log | grep -v '^histo: [0-9]' | head -c 300)"
elif [ "$lines" != 4 ]; then
    bad tune_cache.concurrent "$lines cache lines, expected 4: $(cat "$W/tune.conf")"
elif grep -v -e '^#' -e ' = batches [0-9]* tile_rows [0-9]*$' "$W/tune.conf" | grep -q .; then
    bad tune_cache.concurrent "a malformed line: $(cat "$W/tune.conf")"
elif [ -n "$(leftovers)" ]; then
    bad tune_cache.concurrent "temporary files left: $(leftovers)"
else
    ok tune_cache.concurrent
fi
# a tune cache that cannot be written is a warning; the run succeeds
(HISTO_TUNE_FILE=$W/empty
 export HISTO_TUNE_FILE
 histo --tune -i in.bin -o tw.bmp --timing tw.out -- 1) \
    >"$W/tune_unwritable.log" 2>&1
st=$?
if [ "$st" -eq 0 ] && cmp -s "$W/tw.bmp" "$W/ref.bmp" && [ -d "$W/empty" ] \
   && grep -q "warning: the tune cache .* was not written" "$W/tune_unwritable.log"; then
    ok tune_cache.unwritable_warns
else
    bad tune_cache.unwritable_warns "exit status $st: $(tail -n 2 "$W/tune_unwritable.log")"
fi
