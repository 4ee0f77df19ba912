#!/bin/sh
# tools/commit-id.sh - the commit a build is made from, for histo --version
# (the GNUmakefile runs it on every make): the short id, with "-modified"
# when tracked files differ from it (untracked files do not count), or
# "unknown" outside a git checkout of this tree's own (a copy inside
# another repository's work tree too) or when git cannot tell.
#
# git runs without its optional locks, so that a build never writes the
# repository, and with this tree marked safe, so that make install run by
# another user (sudo) reads the same id instead of git's refusal of a
# repository it does not own.
cd "$(dirname "$0")/.." || exit 1
top=$(pwd -P)
g() { git -c safe.directory="$top" --no-optional-locks "$@" 2>/dev/null; }
# only a repository whose top level is this tree: a tree copied into
# another repository's work tree would otherwise take that one's commit
if [ "$(g rev-parse --show-toplevel)" = "$top" ] \
   && id=$(g rev-parse --short HEAD) \
   && changes=$(g status --porcelain --untracked-files=no); then
    [ -z "$changes" ] || id=$id-modified
    echo "$id"
else
    echo unknown
fi
