#!/bin/sh
# tests/pairs/make-pairs.sh [PICT] - the suite's covering arrays: for
# each model NAME.pict in this folder, NAME.pairs, the rows Microsoft's
# PICT generates from it (one a line, the values in the model's order,
# space-separated, under two comment lines). The suite reads the tables
# (tests/tier.sh) and never runs PICT; tests/suite.sh checks that each
# table covers its model.
#
# Run it (`make pairs PICT=...`) after changing a model or a list a model
# copies (tests/lib.sh's cases and batch counts, tests/impl.sh's
# implementations and inputs, tests/work.sh's modes), and commit the
# models and the tables together. The models that run every strategy
# take their strategy factor from `histo --list-strategies` here (impl's
# with the default beside them); eye.pict lists the eye design's own. PICT is not a dependency of histo or
# its tests; build version 3.7.4 from https://github.com/microsoft/pict
# (tag v3.7.4) with cmake -S . -B build && cmake --build build, and pass
# build/cli/pict as PICT. Its generation is deterministic: the same
# model gives the same table.
set -eu
cd "$(dirname "$0")"
pict=${1:-pict}
strategies=$(../../histo --list-strategies | paste -sd, | sed 's/,/, /g')
[ -n "$strategies" ] || { echo "make-pairs.sh: histo --list-strategies gave nothing" >&2; exit 1; }
for model in device work impl-queues impl; do
    extra=""
    [ $model = impl ] && extra=", default"
    sed "s/^strategy: .*/strategy: $strategies$extra/" "$model.pict" >"$model.pict.new"
    mv "$model.pict.new" "$model.pict"
done
for model in *.pict; do
    name=${model%.pict}
    {
        echo "# tests/pairs/$name.pairs: made by tests/pairs/make-pairs.sh from $model with PICT 3.7.4 (its default order, 2); do not edit"
        "$pict" "$model" | tr '\t' ' ' | sed '1s/^/# factors: /'
    } >"$name.pairs.new"
    mv "$name.pairs.new" "$name.pairs"
    echo "$name.pairs: $(grep -vc '^#' "$name.pairs") rows"
done
