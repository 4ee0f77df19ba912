# tests/tier.sh - which cells of the suite's products run; sourced by
# tests/run.sh and tests/lib.sh from the checkout's root.
#
# A product (device.sh's strategies x inputs x batch counts, work.sh's
# modes x strategies x inputs, impl.sh's implementations x strategies x
# inputs and x queues) runs in one of two tiers, HISTO_TEST_TIER:
#   pairs  (make test, make test-asan) the rows of its covering array,
#          tests/pairs/PRODUCT.pairs: every value of every factor, every
#          pair of values of two factors at least once; and one slice of
#          the cells the array leaves out, HISTO_TEST_SLICE;
#   full   (make test-full) every cell.
# HISTO_TEST_SLICE=K/N takes the cells whose key's cksum is K mod N;
# "none" takes none (make test-asan). By default make test takes slice
# C mod 16, C the number of commits to HEAD, so that sixteen commits in a
# row cover the whole product between them (0/16 outside a git checkout).
#
# A cell with a value its model lacks (a strategy or input added since
# the table was made) runs in every tier; tests/suite.sh fails until the
# table is made again (tests/pairs/make-pairs.sh).
TIER_SLICES=16
TIER=${HISTO_TEST_TIER:-pairs}
# tier_error: what is wrong with the two variables, or empty; tests/run.sh
# and tests/lib.sh stop on it
tier_error=""
case $TIER in
    pairs | full) ;;
    *) tier_error="HISTO_TEST_TIER is '$TIER': pairs or full" ;;
esac
# tier_commits: the number of commits to HEAD, or nothing outside a git
# checkout (or in a shallow one, whose count is not the history's)
tier_commits() {
    [ "$(git rev-parse --is-shallow-repository 2>/dev/null)" = false ] || return 0
    git rev-list --count HEAD 2>/dev/null
}
if [ -z "${HISTO_TEST_SLICE:-}" ]; then
    tier_count=$(tier_commits)
    HISTO_TEST_SLICE=$((${tier_count:-0} % TIER_SLICES))/$TIER_SLICES
    export HISTO_TEST_SLICE
fi
case $HISTO_TEST_SLICE in
    none) ;;
    [0-9]*/[0-9]*)
        tier_k=${HISTO_TEST_SLICE%/*} tier_n=${HISTO_TEST_SLICE#*/}
        case $tier_k$tier_n in
            *[!0-9]*) tier_error="HISTO_TEST_SLICE is '$HISTO_TEST_SLICE'" ;;
            *) [ "$tier_k" -lt "$tier_n" ] || tier_error="HISTO_TEST_SLICE is '$HISTO_TEST_SLICE'" ;;
        esac ;;
    *) tier_error="HISTO_TEST_SLICE is '$HISTO_TEST_SLICE'" ;;
esac
case $tier_error in
    HISTO_TEST_SLICE*) tier_error="$tier_error: K/N with 0 <= K < N, or none" ;;
esac

# tier_name: the tier and slice in words, for the suite's first lines
tier_name() {
    if [ "$TIER" = full ]; then
        echo "full (every cell of every product)"
    elif [ "$HISTO_TEST_SLICE" = none ]; then
        echo "pairs (the covering arrays alone)"
    else
        echo "pairs (the covering arrays) and slice $HISTO_TEST_SLICE of the rest (HISTO_TEST_SLICE=$HISTO_TEST_SLICE repeats it)"
    fi
}

tier_nl='
'
# in_tier PRODUCT CELL: whether this run takes CELL ("eye gauss 3": one
# value a factor, in tests/pairs/PRODUCT.pict's order) of PRODUCT.
in_tier() {
    [ "$TIER" = full ] && return 0
    # the table's comment lines begin with '#', which no cell does
    grep -qxF -- "$2" "tests/pairs/$1.pairs" && return 0
    # the model's values, one factor a line, read once a product
    t_var=tier_values_$(echo "$1" | tr -c 'a-z0-9\n' '_')
    eval "t_values=\${$t_var:-}"
    if [ -z "$t_values" ]; then
        t_values=$(sed -n 's/^[a-z_]*: *//p' "tests/pairs/$1.pict" | tr -d ' ' | sed 's/^/,/; s/$/,/')
        eval "$t_var=\$t_values"
    fi
    t_rest=$t_values
    for t_v in $2; do
        t_line=${t_rest%%"$tier_nl"*}
        t_rest=${t_rest#*"$tier_nl"}
        case $t_line in *",$t_v,"*) ;; *) return 0 ;; esac
    done
    [ "$HISTO_TEST_SLICE" != none ] || return 1
    t_sum=$(printf '%s\n' "$2" | cksum)
    [ $((${t_sum%% *} % ${HISTO_TEST_SLICE#*/})) -eq "${HISTO_TEST_SLICE%/*}" ]
}
