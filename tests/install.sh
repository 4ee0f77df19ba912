#!/bin/sh
# tests/install.sh - what histo says about itself and how it is installed:
# --version, the man page, make install / uninstall, where an installed
# histo finds its kernels, and make help. Prints "PASS name" or
# "FAIL name: why" per test and no summary: tests/run.sh counts the lines;
# skipped tests print "SKIP id: why".
#
# Expectations come from elsewhere than the code under test: the version
# from src/version.h's define, the commit from git itself, the installed
# files from the source tree's own listing, the counters from
# build/histo-ref (the sequential reference), the man page's validity from
# groff where it is installed. Everything is written under the work folder
# ($HISTO_TEST_WORK, default tests/work): installs go to a PREFIX there.
#
# Under the sanitizers (HISTO_BUILD=build-asan) the checks run on
# build-asan/histo; make install, which installs the plain build's
# ./histo, is replaced by the same layout made by hand around
# build-asan/histo, and make uninstall is not run.
# ids: install
set -u
cd "$(dirname "$0")/.." || exit 1
TREE=$(pwd -P)
mkdir -p "${HISTO_TEST_WORK:-tests/work}" || exit 1
W=$(cd "${HISTO_TEST_WORK:-tests/work}" && pwd -P)/install
rm -rf "$W"
mkdir -p "$W" || exit 1
B=${HISTO_BUILD:-build}
HISTO=$TREE/histo
[ "$B" = build ] || HISTO=$TREE/$B/histo
# under the suite's time limit (tests/timed.sh)
SUBJECT=install ROOT=$(dirname "$W")
. tests/timed.sh
GEN=$TREE/$B/histo-gen
REF=$TREE/$B/histo-ref
PLATFORM=${HISTO_TEST_PLATFORM:-Portable Computing Language}
DEVICE=${HISTO_TEST_DEVICE:-}
MAKE_CMD=${MAKE:-make}
# every strategy histo has, by the list its error message gives (as
# tests/lib.sh finds them)
STRATEGIES=$($HISTO --list-strategies | tr '\n' ' ')
unset HISTO_PLATFORM HISTO_DEVICE HISTO_KERNEL_DIR HISTO_NO_TUNE_CACHE \
      HISTO_CL_OPTIONS DESTDIR
HISTO_TUNE_FILE=$W/tune.conf
export HISTO_TUNE_FILE

ok() { echo "PASS install.$1"; }
bad() { echo "FAIL install.$1: $2"; }
skip() { echo "SKIP install.$1: $2"; }

# run_in DIR PROGRAM ARGS...: PROGRAM on the test device, from inside DIR.
run_in() {
    dir=$1 prog=$2
    shift 2
    if [ -n "$DEVICE" ]; then
        (cd "$dir" && exec "$prog" --platform "$PLATFORM" --device "$DEVICE" "$@")
    else
        (cd "$dir" && exec "$prog" --platform "$PLATFORM" "$@")
    fi
}

# key FILE KEY: the value of KEY in a histo.out.
key() { sed -n "s/^$2 = //p" "$1"; }

# --- a small input and its reference counters, made here ---
mkdir -p "$W/data"
if ! "$GEN" -o "$W/data/in.bin.gz" --gzip --seed 5 --image 320x240 --histo 48x40 \
        --row-mean 20 --row-sigma 4 --col-mean 24 --col-sigma 6 --outliers 20000 \
        >/dev/null 2>"$W/gen.err" \
   || ! "$REF" "$W/data/in.bin.gz" "$W/data/ref.bmp" "$W/data/ref.raw" 2>"$W/ref.err"; then
    bad setup "cannot make the input and its reference: $(cat "$W/gen.err" "$W/ref.err")"
    exit 0
fi

# --- --version: "histo VERSION", "commit: ID", "sources = sha256:...",
# "kernel build options: ..." ---
version=$(sed -n 's/^#define HISTO_VERSION "\(.*\)"$/\1/p' src/version.h)
# the commit as git sees the tree; HISTO_COMMIT names it only where git
# does not (ID-unverified)
if commit=$(git rev-parse --short HEAD 2>/dev/null); then
    [ -z "$(git --no-optional-locks status --porcelain --untracked-files=no 2>/dev/null)" ] \
        || commit=$commit-modified
elif [ -n "${HISTO_COMMIT:-}" ]; then
    commit=$HISTO_COMMIT-unverified
else
    commit=unknown
fi
# the host sources' digest, worked out here as docs/harness.md says
sources=sha256:$(LC_ALL=C sha256sum src/*.c src/*.h | sha256sum | cut -c1-64)
"$HISTO" --version >"$W/version.out" 2>"$W/version.err"
st=$?
if [ "$st" -ne 0 ] || [ -s "$W/version.err" ]; then
    bad version.runs "exit status $st: $(head -c 300 "$W/version.err")"
elif [ "$(wc -l <"$W/version.out")" -ne 9 ]; then
    bad version.runs "$(wc -l <"$W/version.out") lines, expected 9"
else
    ok version.runs
fi
# what built it: the compiler, named as make's CC would name it, and the
# flags, each line "KEY = VALUE" in this order
keys=$(sed -n '4,8s/ = .*//p' "$W/version.out" | tr '\n' ' ')
cc_line=$(sed -n 's/^compiler = //p' "$W/version.out")
if [ "$keys" = "cc compiler cflags ldflags ldlibs " ] \
   && [ "$cc_line" = "$(${CC:-cc} --version 2>/dev/null | head -n 1)" ] \
   && grep -q "^cflags = .*-std=c11" "$W/version.out" \
   && grep -q "^ldlibs = .*-lOpenCL" "$W/version.out"; then
    ok version.build_flags
else
    bad version.build_flags "keys '$keys', compiler '$cc_line'"
fi
got=$(sed -n '1p' "$W/version.out")
if [ -n "$version" ] && [ "$got" = "histo $version" ]; then
    ok version.number
else
    bad version.number "'$got', src/version.h says '$version'"
fi
got=$(sed -n '2p' "$W/version.out")
if [ "$got" = "commit: $commit" ]; then
    ok version.commit
else
    bad version.commit "'$got', the tree is at '$commit' (run make after a change or a commit)"
fi
got=$(sed -n '3p' "$W/version.out")
if [ "$got" = "sources = $sources" ]; then
    ok version.sources
else
    bad version.sources "'$got', the tree's sources are '$sources' (run make after a change)"
fi
# the options every kernel is built with: histo.out's build.options of a
# real run of the eye strategy (a 48-bin-wide histogram here) starts with
# them, then the strategy's and the device's own, and none from the input
# (no -DHISTO_WIDTH: the width is a kernel argument)
opts=$(sed -n 's/^kernel build options: //p' "$W/version.out")
mkdir -p "$W/opts"
run_in "$W/opts" "$HISTO" --strategy eye -i ../data/in.bin.gz --no-bmp --raw got.raw -- 1 >"$W/opts.log" 2>&1
st=$?
built=$(key "$W/opts/histo.out" build.options 2>/dev/null)
case $built in
    *HISTO_WIDTH*) bad version.build_options "histo.out has '$built': an option from the input" ;;
    "$opts" | "$opts "*)
        [ -n "$opts" ] && [ "$st" -eq 0 ] && ok version.build_options \
            || bad version.build_options "exit status $st, --version gave no options" ;;
    *) bad version.build_options "histo.out has '$built', --version '$opts' (exit status $st: $(tail -n 1 "$W/opts.log"))" ;;
esac
# the executable the build wrote reads the source tree's kernels
got=$(key "$W/opts/histo.out" build.kernels 2>/dev/null)
if [ "$got" = "$TREE/kernels" ]; then
    ok kernels.source_tree
else
    bad kernels.source_tree "build.kernels = '$got', expected '$TREE/kernels'"
fi
# an unwritable stdout is an error, not a silent success
for o in version help; do
    "$HISTO" --$o >&- 2>"$W/$o.closed.err"
    st=$?
    if [ "$st" -eq 5 ] && grep -q "^histo: cannot write" "$W/$o.closed.err"; then
        ok "$o.stdout_closed"
    else
        bad "$o.stdout_closed" "exit status $st, expected 5: $(head -c 200 "$W/$o.closed.err")"
    fi
done

# --- the man page made from --help and --version ---
if sh tools/man.sh "$HISTO" >"$W/histo.1" 2>"$W/man.err"; then
    # every section in order, right after the title line
    got=$(sed -n 's/^\.SH //p' "$W/histo.1" | tr '\n' '|')
    first=$(grep -v '^\.\\"' "$W/histo.1" | sed -n '1p')
    want='NAME|SYNOPSIS|DESCRIPTION|OPTIONS|EXIT STATUS|ENVIRONMENT|FILES|'
    if [ "$first" = ".TH HISTO 1 \"\" \"histo $version\" \"User Commands\"" ] \
       && [ "$got" = "$want" ]; then
        ok man.sections
    else
        bad man.sections "title '$first', sections '$got', expected '$want'"
    fi
    # every option and variable of --help is an entry of the page, its
    # hyphens escaped as troff wants them in options
    missing="" n=0
    for o in $("$HISTO" --help | sed -n 's/^  \(-[-a-z]*\).*/\1/p'); do
        n=$((n + 1))
        t=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
        grep -q "^\\\\fB$t\\\\fR" "$W/histo.1" || missing="$missing $o"
    done
    [ "$n" -ge 20 ] || missing="$missing (only $n options found in --help)"
    for v in HISTO_PLATFORM HISTO_DEVICE HISTO_KERNEL_DIR HISTO_NO_TUNE_CACHE \
             HISTO_TUNE_FILE HISTO_CL_OPTIONS; do
        grep -q "^\\\\fB$v\\\\fR$" "$W/histo.1" || missing="$missing $v"
    done
    if [ -z "$missing" ]; then
        ok man.entries
    else
        bad man.entries "not in the page:$missing"
    fi
    if command -v groff >/dev/null 2>&1; then
        groff -man -Tutf8 -ww -z "$W/histo.1" >"$W/groff.err" 2>&1
        st=$?
        if [ "$st" -eq 0 ] && [ ! -s "$W/groff.err" ]; then
            ok man.groff
        else
            bad man.groff "groff -man -ww: status $st: $(head -c 300 "$W/groff.err")"
        fi
    else
        skip man.groff "groff is not installed (the structure was checked above)"
    fi
else
    bad man.sections "tools/man.sh failed: $(head -c 300 "$W/man.err")"
fi

# --- the installation: make install, or by hand under the sanitizers ---
P=$W/prefix
if [ "$B" = build ]; then
    if $MAKE_CMD --no-print-directory install PREFIX="$P" >"$W/install.log" 2>&1; then
        ok make_install
    else
        bad make_install "$(tail -n 3 "$W/install.log")"
    fi
else
    skip make_install "make install installs the plain build's ./histo; $HISTO is installed by hand"
    mkdir -p "$P/bin" "$P/share/histo/kernels" "$P/share/histo/Spec" "$P/share/man/man1" \
        && cp "$HISTO_REAL" "$P/bin/histo" && cp kernels/*.cl "$P/share/histo/kernels/" \
        && cp Spec/*.conf "$P/share/histo/Spec/" && cp "$W/histo.1" "$P/share/man/man1/" \
        || bad layout "cannot copy histo's files into $P"
fi
# the files expected, from the source tree's own listing
{
    echo bin/histo
    for f in kernels/*.cl kernels/*.h Spec/*.conf; do
        [ -e "$f" ] && echo "share/histo/$f"
    done
    echo share/man/man1/histo.1
} | sort >"$W/want.files"
(cd "$P" && find . -type f | sed 's|^\./||' | sort) >"$W/got.files" 2>/dev/null
differ=""
while read -r f; do
    case $f in
        bin/histo) src=$HISTO_REAL ;;
        share/man/man1/histo.1) src=$W/histo.1 ;;
        *) src=${f#share/histo/} ;;
    esac
    cmp -s "$src" "$P/$f" || differ="$differ $f"
done <"$W/want.files"
if ! cmp -s "$W/want.files" "$W/got.files"; then
    bad files "installed files differ from the list: $(diff "$W/want.files" "$W/got.files" | grep '^[<>]' | head -n 5 | tr '\n' ' ')"
elif [ -n "$differ" ]; then
    bad files "not the tree's bytes:$differ"
elif [ ! -x "$P/bin/histo" ]; then
    bad files "bin/histo is not executable"
else
    ok files
fi

# --- the installed histo, run from elsewhere ---
mkdir -p "$W/elsewhere"
if (cd "$W/elsewhere" && "$P/bin/histo" --list) >"$W/list.log" 2>&1 \
   && grep -q '^platform 0: ' "$W/list.log"; then
    ok installed.list
else
    bad installed.list "$(head -c 300 "$W/list.log")"
fi
# installed_run NAME PROGRAM KERNELS [ENV=VALUE...]: PROGRAM counts the
# input from its own folder, checks itself (PASS), writes the reference's
# counters, and says it read the kernels in KERNELS.
installed_run() {
    name=$1 prog=$2 kdir=$3
    shift 3
    d=$W/run.$name
    mkdir -p "$d"
    cp "$W/data/in.bin.gz" "$d/"
    set -- "$@" "$prog" --platform "$PLATFORM"
    [ -z "$DEVICE" ] || set -- "$@" --device "$DEVICE"
    (cd "$d" && exec env "$@" -i in.bin.gz -o out.bmp --raw out.raw -- 2) \
        >"$d/stdout" 2>"$d/stderr"
    st=$?
    got=$(key "$d/histo.out" build.kernels 2>/dev/null)
    if [ "$st" -ne 0 ]; then
        bad "$name" "exit status $st: $(tail -n 2 "$d/stderr")"
    elif ! grep -q '^histo: check PASS' "$d/stdout"; then
        bad "$name" "no 'histo: check PASS' line: $(tail -n 1 "$d/stdout")"
    elif ! cmp -s "$d/out.raw" "$W/data/ref.raw"; then
        bad "$name" "counters differ from build/histo-ref's"
    elif [ "$got" != "$kdir" ]; then
        bad "$name" "kernels read from '$got', expected '$kdir'"
    else
        ok "$name"
    fi
}
installed_run installed.run "$P/bin/histo" "$P/share/histo/kernels"
ln -s "$P/bin/histo" "$W/histo.link"
installed_run installed.through_link "$W/histo.link" "$P/share/histo/kernels"
installed_run installed.env_wins "$P/bin/histo" "$TREE/kernels" HISTO_KERNEL_DIR="$TREE/kernels"
# moved whole, it reads the kernels where it is now
cp -R "$P" "$W/moved"
installed_run installed.moved "$W/moved/bin/histo" "$W/moved/share/histo/kernels"
# a copy with no kernels beside it falls back to the source tree's
mkdir -p "$W/bare/bin" && cp "$P/bin/histo" "$W/bare/bin/histo"
installed_run installed.bare_copy "$W/bare/bin/histo" "$TREE/kernels"
# and it really compiles the kernels it names: the moved copy's, broken
# here, stop it with exit status 4 naming them
for f in "$W/moved/share/histo/kernels"/*.cl; do
    echo '#error planted by tests/install.sh' >>"$f"
done
mkdir -p "$W/run.broken"
run_in "$W/run.broken" "$W/moved/bin/histo" -i ../data/in.bin.gz --no-bmp --raw out.raw -- 1 \
    >"$W/broken.log" 2>&1
st=$?
if [ "$st" -eq 4 ] && grep -q "$W/moved/share/histo/kernels/[a-z_]*\.cl:.*planted" "$W/broken.log"; then
    ok installed.kernels_compiled
else
    bad installed.kernels_compiled "exit status $st, expected 4 naming the moved kernels: $(grep -m 1 'error' "$W/broken.log" | head -c 300)"
fi
# the installed man page is the one made from this histo
if [ "$B" = build ] && command -v man >/dev/null 2>&1; then
    if MANPAGER=cat MANWIDTH=80 man -l "$P/share/man/man1/histo.1" >"$W/man.txt" 2>"$W/man.txt.err" \
       && grep -q -- '--kernels DIR' "$W/man.txt" && [ ! -s "$W/man.txt.err" ]; then
        ok man.installed
    else
        bad man.installed "man -l failed or lacks --kernels: $(head -c 300 "$W/man.txt.err")"
    fi
fi

# --- make uninstall: nothing of histo's left, nothing else removed ---
if [ "$B" = build ]; then
    echo mine >"$W/prefix/bin/other-program"
    if $MAKE_CMD --no-print-directory uninstall PREFIX="$P" >"$W/uninstall.log" 2>&1; then
        left=$(cd "$P" && find . \( -type f -o -name '*histo*' \) | sed 's|^\./||' | sort | tr '\n' ' ')
        if [ "$left" = "bin/other-program " ]; then
            ok make_uninstall
        else
            bad make_uninstall "left under PREFIX: $left"
        fi
    else
        bad make_uninstall "$(tail -n 3 "$W/uninstall.log")"
    fi
    # a file make install did not put there is kept, and its folder
    $MAKE_CMD --no-print-directory install PREFIX="$P" >"$W/install2.log" 2>&1
    echo mine >"$P/share/histo/kernels/mine.cl"
    $MAKE_CMD --no-print-directory uninstall PREFIX="$P" >"$W/uninstall2.log" 2>&1
    st=$?
    left=$(cd "$P" && find . -type f | sed 's|^\./||' | sort | tr '\n' ' ')
    if [ "$st" -eq 0 ] && [ "$left" = "bin/other-program share/histo/kernels/mine.cl " ] \
       && grep -q "kept .*share/histo/kernels" "$W/uninstall2.log"; then
        ok make_uninstall_keeps_others
    else
        bad make_uninstall_keeps_others "exit status $st, left: $left"
    fi
    # DESTDIR: a staged install under DESTDIR/PREFIX, removed the same way
    S=$W/stage
    if $MAKE_CMD --no-print-directory install DESTDIR="$S" PREFIX=/opt/histo >"$W/stage.log" 2>&1 \
       && [ -x "$S/opt/histo/bin/histo" ] && [ -f "$S/opt/histo/share/histo/kernels/probe.cl" ] \
       && [ "$(cd "$S" && ls)" = opt ] \
       && $MAKE_CMD --no-print-directory uninstall DESTDIR="$S" PREFIX=/opt/histo >>"$W/stage.log" 2>&1 \
       && [ -z "$(find "$S" -type f)" ]; then
        ok destdir
    else
        bad destdir "$(tail -n 3 "$W/stage.log")"
    fi
else
    skip make_uninstall "no make install under $B"
fi

# --- make help names every .PHONY target of the GNUmakefile and the
# main variables ---
if $MAKE_CMD --no-print-directory help >"$W/help.txt" 2>"$W/help.err"; then
    missing=""
    for t in $(sed -n 's/^\.PHONY:*//p' GNUmakefile); do
        [ "$t" = FORCE ] && continue
        grep -Eq "^  make (\\[$t\\]|$t) " "$W/help.txt" || missing="$missing $t"
    done
    for v in SIZE PLATFORM DEVICE STRATEGY ITERATIONS REPEAT REFERENCE RESULTS_ROOT PREFIX; do
        grep -q "^  $v=" "$W/help.txt" || missing="$missing $v="
    done
    # STRATEGY's line names every strategy histo has, and only those
    for st in $STRATEGIES; do
        grep "^  STRATEGY=" "$W/help.txt" | grep -q "[ ,]$st[ ,]" \
            || missing="$missing STRATEGY:$st"
    done
    if [ -z "$missing" ]; then
        ok make_help
    else
        bad make_help "not in make help:$missing"
    fi
else
    bad make_help "make help failed: $(head -c 300 "$W/help.err")"
fi
