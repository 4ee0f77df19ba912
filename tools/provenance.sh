#!/bin/sh
# tools/provenance.sh [HISTO] - which source a histo binary (default
# ./histo) runs, for make run's records and make bench's, curve's and
# scaling's rows: prints "COMMIT MODIFIED SOURCES".
#
# COMMIT and the host sources' digest SOURCES come from HISTO --version,
# so that a record and the binary never disagree. MODIFIED is what git
# says, never what a variable says: true when the binary was built from
# a tree with uncommitted changes to tracked files, or the tree has them
# now (kernels are read when histo runs); false when the tree is still
# the commit it was built from; unknown where git cannot see the tree (a
# copy: HISTO_COMMIT then only names the commit, as ID-unverified) or the
# tree is no longer the commit the binary was built from.
bin=${1:-$(dirname "$0")/../histo}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
cd "$(dirname "$0")/.." || exit 1
version=$("$bin" --version 2>/dev/null) || { echo "unknown unknown unknown"; exit 0; }
built=$(printf '%s\n' "$version" | sed -n 's/^commit: //p')
sources=$(printf '%s\n' "$version" | sed -n 's/^sources = //p')
now=$(sh tools/commit-id.sh)
case ${built:-unknown} in
    unknown) commit=unknown modified=unknown ;;
    *-unverified) commit=${built%-unverified} modified=unknown ;;
    *-modified) commit=${built%-modified} modified=true ;;
    *)
        commit=$built
        case $now in
            "$built") modified=false ;;
            "$built-modified") modified=true ;;
            *) modified=unknown ;;
        esac ;;
esac
echo "$commit $modified ${sources:-unknown}"
