#!/bin/sh
# tests/docs.sh - the example outputs in README.md and docs/ against what
# the programs print now (tests/docs-check.sh), and two planted drifts
# (words changed, a field lost) that it must catch.
# ids: docs
SUBJECT=docs
. "$(dirname "$0")/lib.sh"

HISTO_TEST_WORK=$W sh tests/docs-check.sh >"$W/docs.log" 2>"$W/docs.err"
relay "$W/docs.log" ""
# an example whose words changed (README.md's summary) and one that lost
# a field (docs/usage.md's histo.out excerpt) must each fail, alone
sed 's/us median on the device/us middle on the device/' README.md >"$W/drift-words.md"
awk '/^<!-- example: histo-out/ { on = 1 } on && /^config\.batches = / { on = 0; next } { print }' \
    docs/usage.md >"$W/drift-field.md"
for d in words:summary:README.md field:histo-out:docs/usage.md; do
    kind=${d%%:*} rest=${d#*:}
    id=${rest%%:*} from=${rest#*:}
    if cmp -s "$from" "$W/drift-$kind.md"; then
        bad "docs.drift_$kind" "the edit no longer changes $from"
    elif DOCS_FILES="$W/drift-$kind.md" HISTO_TEST_WORK=$W sh tests/docs-check.sh >"$W/drift.log" 2>&1; then
        bad "docs.drift_$kind" "docs-check passed an example that drifted"
    elif grep -q "^FAIL docs.$id " "$W/drift.log" \
         && [ "$(grep -c '^FAIL' "$W/drift.log")" -eq 1 ]; then
        ok "docs.drift_$kind"
    else
        bad "docs.drift_$kind" "not the one failure expected: $(grep -v '^PASS' "$W/drift.log" | head -n 3 | tr '\n' ' ')"
    fi
done
