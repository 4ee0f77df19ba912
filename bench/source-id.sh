#!/bin/sh
# bench/source-id.sh - which source ran, for make bench and make scaling
# rows: prints "COMMIT MODIFIED", the short commit id and whether the
# tracked files differ from it (true/false). HISTO_COMMIT names the
# commit for a copy of a clean tree without its history, as on a lent GPU
# machine.
if [ -n "${HISTO_COMMIT:-}" ]; then
    echo "$HISTO_COMMIT false"
    exit 0
fi
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
modified=false
[ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || modified=true
echo "$commit $modified"
