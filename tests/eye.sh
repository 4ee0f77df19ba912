#!/bin/sh
# tests/eye.sh - the eye kernels however the input and device shape them:
# cells over narrow eyes, the 2-D window on odd widths, the covering
# array of width classes, windows, tiles, strategies and cuts, any work-group
# size (HISTO_TEST_MAX_GROUP) with the same window, the tile kernel's
# reqd_work_group_size and a device that refuses it; cpu's groups too;
# buckets for iterations without a window; plain adds and hammered bins.
# ids: eye_cells eye2d array group reqd buckets plain
# parts: window array group buckets counters
SUBJECT=eye
. "$(dirname "$0")/lib.sh"

# HISTO_TEST_PART (tests/run.sh): one part, each its own job, since with
# a cold kernel cache each builds kernels for minutes; unset: all of them.
in_part() { [ -z "${HISTO_TEST_PART:-}" ] || [ "$HISTO_TEST_PART" = "$1" ]; }
# need_carry: $INPUTS/carry.bin, 66,000 values in bin 1000 among 80 bins
# of 4,000 (the plain adds' and the counter widths' cases)
need_carry() {
    n_counts=1000:66000
    for k in $(seq 1 80); do n_counts=$n_counts,$((1000 + 10 * k)):4000; done
    make_input carry --dist counts --counts "$n_counts" --image 772x500
}

need_case gauss || exit 0
# Cells cover the histogram evenly however small the tiles: with
# --tile-rows 1 a 256x8192 histogram has 8192 tiles but at most
# HISTO_EYE_CELLS (1024) cells, and a last cell gathering every row past
# 1023 won the densest-cell choice and put the window on an empty band.
# Narrow eyes (row sigma 4) centred on rows 100, 3003 and 7000 must get a
# window holding their centre row; the test dataset's eye (row 4096,
# sigma 32) one within a sigma of its centre. Each byte for byte.
if in_part window && echo "$STRATEGIES" | grep -qw eye; then
    $GEN -o "$W/cells.test.bin" --seed 11601 --image 996x1040 --histo 256x8192 \
        --dist gauss --row-mean 4096 --row-sigma 32 --col-mean 128 --col-sigma 12 \
        --outliers 5000 >/dev/null && ref_counts "$W/cells.test.bin" "$W/cells.test.ref.bmp"
    for r in 100 3003 7000; do
        $GEN -o "$W/cells.row$r.bin" --seed 7 --image 996x1040 --row-mean "$r" \
            --row-sigma 4 >/dev/null && ref_counts "$W/cells.row$r.bin" "$W/cells.row$r.ref.bmp"
    done
    for spec in row100:100:0 row3003:3003:0 row7000:7000:0 test:4096:32; do
        name=${spec%%:*}
        rest=${spec#*:}
        centre=${rest%:*}
        slack=${rest#*:}
        id=eye_cells.$name.w1
        if ! run_histo --strategy eye --tile-rows 1 -i "$W/cells.$name.bin" \
                -o "$W/$id.bmp" --timing "$W/$id.out" -- 2 >"$W/$id.log" 2>&1; then
            bad "$id" "$(tail -n 2 "$W/$id.log")"
            continue
        fi
        r0=$(sed -n 's/^eye.first_row = //p' "$W/$id.out")
        r1=$(sed -n 's/^eye.last_row = //p' "$W/$id.out")
        if ! same_counts "$W/$id.bmp" "$W/cells.$name.ref.bmp"; then
            bad "$id" "$(cat "$W/last.diff")"
        elif grep -q "^eye.tiles_used = 0$" "$W/$id.out" \
             || [ "$r0" -gt $((centre + slack)) ] || [ "$r1" -lt $((centre - slack)) ]; then
            bad "$id" "window rows $r0-$r1, want one holding a row within $slack of $centre"
        else
            ok "$id"
        fi
    done
fi
# 2-D eye windows at the size that takes them unforced (>= 8M values):
# an eye at the centre, tiles of 16 and 64 rows (small tiles make several
# tiles on any device); every output exact, and the 2-D window must have
# been taken where whole rows need many tiles. A width that is not a
# multiple of 4 keeps whole rows. An eye centred on row 3000 (no multiple
# of the tiles' height) must get a window centred on it, within 1/8 of
# the window's rows. (The width classes, edges and tiles the kernels
# branch on are the covering array's, below, on small inputs.)
if in_part window && echo "$STRATEGIES" | grep -qw eye; then
    for spec in "centre:--row-sigma 205 --col-sigma 16:256x8192" \
                "odd_width:--col-mean 100 --col-sigma 5 --row-sigma 40:254x4096" \
                "off_grid:--row-mean 3000 --row-sigma 205 --col-sigma 16:256x8192"; do
        name=${spec%%:*}
        rest=${spec#*:}
        args=${rest%:*}
        # shellcheck disable=SC2086
        $GEN -o "$W/eye2d.$name.bin" --seed 3 --image 2900x2900 \
            --histo "${rest##*:}" $args >/dev/null \
            && ref_counts "$W/eye2d.$name.bin" "$W/eye2d.$name.ref.bmp" \
            || { bad "eye2d.$name" "input generation failed"; continue; }
        for w in 16 64; do
            id=eye2d.$name.w$w
            if run_histo --strategy eye --tile-rows "$w" -i "$W/eye2d.$name.bin" \
                    -o "$W/$id.bmp" --timing "$W/$id.out" -- 2 >"$W/$id.log" 2>&1 \
               && same_counts "$W/$id.bmp" "$W/eye2d.$name.ref.bmp"; then
                ok "$id"
            else
                bad "$id" "$(cat "$W/last.diff" 2>/dev/null) $(tail -n 2 "$W/$id.log")"
            fi
        done
        # the narrowest window of the two runs
        cols=$(sed -n 's/^eye.cols = //p' "$W/eye2d.$name.w16.out" \
               "$W/eye2d.$name.w64.out" | sort -n | head -n 1)
        # at most 128 columns, or three of the sampling's 64 column
        # buckets where a bucket is wider (width 70000: 1094 columns)
        hw=${rest##*:}
        hw=${hw%x*}
        most=$((3 * hw / 64 > 128 ? 3 * hw / 64 : 128))
        case $name in
            odd_width) want=254; test "$cols" = "$want" ;;
            *) want="< $most"; test -n "$cols" && test "$cols" -lt "$most" ;;
        esac && ok "eye2d.$name.columns" \
            || bad "eye2d.$name.columns" "eye.cols = '$cols', want $want"
        [ "$name" = off_grid ] || continue
        r0=$(sed -n 's/^eye.first_row = //p' "$W/eye2d.$name.w64.out")
        r1=$(sed -n 's/^eye.last_row = //p' "$W/eye2d.$name.w64.out")
        # |(r0 + r1) / 2 - 3000| <= (r1 - r0 + 1) / 8, in whole numbers
        if [ -n "$r0" ] && [ -n "$r1" ] \
           && off=$((r0 + r1 - 6000)) && [ $((8 * (off < 0 ? -off : off))) \
                -le $((2 * (r1 - r0 + 1))) ]; then
            ok "eye2d.$name.centred"
        else
            bad "eye2d.$name.centred" "window rows $r0-$r1, want its middle within 1/8 of its rows of 3000"
        fi
    done
fi
# The covering array of the shapes the eye kernels branch on
# (tests/pairs/eye.pict: width class x window x tiles x strategy x cut;
# make test its rows, make test-full every cell). Each input is 160,000
# values, 2% of them anywhere and 0.2% at a row's first or last column,
# the rest an eye shaped for its cell from the device's own tile (the
# bins a default tile holds, found by a first run): whole rows one tile
# holds; whole rows over tiles of a quarter of that; a 2-D eye of two
# whole-row tiles, which one 2-D tile holds; a 2-D eye over tiles of one
# row; and the last two in 8-bit tiles (HISTO_TEST_NARROW_MIN_VALUES=1).
# HISTO_TEST_2D_MIN_VALUES=1 lets eye_tile_2d count inputs of any size.
# Every output exact, and histo.out must say the cell's window was taken
# (its columns, and for the eye strategy its tiles and counters), so that
# a cell cannot pass on a path it was not made for.
if in_part array && echo "$STRATEGIES" | grep -qw eye; then
    # array_factor NAME: the values of a factor of the model
    array_factor() { sed -n "s/^$1: *//p" tests/pairs/eye.pict | tr -d ,; }
    # array_cells: the product's cells the model allows, one a line
    array_cells() {
        for w in $(array_factor width); do
            for win in $(array_factor window); do
                for t in $(array_factor tiles); do
                    case $w in w1 | w254) [ "$win" = rows ] && [ "$t" != narrow ] || continue ;; esac
                    for s in $(array_factor strategy); do
                        for cut in $(array_factor cut); do echo "$w $win $t $s $cut"; done
                    done
                done
            done
        done
    }
    # the bins a default tile holds: a width of 1 leaves no row to round to
    $GEN -o "$W/array.probe.bin" --image 16x16 --histo 1x1048576 >/dev/null
    run_histo --strategy eye -i "$W/array.probe.bin" -o "$W/array.probe.bmp" \
        --timing "$W/array.probe.out" -- 1 >"$W/array.probe.log" 2>&1
    cap=$(sed -n 's/^config.tile_bins = //p' "$W/array.probe.out" 2>/dev/null)
    [ -n "$cap" ] || bad array.probe "no config.tile_bins: $(tail -n 2 "$W/array.probe.log")"
    twice=${DEVICE:-0},${DEVICE:-0}
    # key NAME: the value of NAME in the cell's histo.out
    key() { sed -n "s/^$1 = //p" "$W/$id.out" 2>/dev/null | head -n 1; }
    array_cells | while read -r w win t s cut; do
        id=array.$w.$win.$t.$s.$cut
        [ -n "$cap" ] && wanted "eye.$id" || continue
        # the array's rows alone, or every cell (no slice of the rest)
        [ "$TIER" = full ] || grep -qxF -- "$w $win $t $s $cut" tests/pairs/eye.pairs || continue
        width=${w#w}
        r=$((cap / width))  # whole rows a default tile holds
        # rows, in proportion to the tile: these for a tile of about 2^18
        # bins (512 KiB of local memory), twice as many for 2^19 (1 MiB)
        case $width in
            1) h=1048576 ;; 64) h=8192 ;; 254 | 256 | 300) h=4096 ;;
            1000) h=1024 ;; 4096) h=256 ;; *) h=192 ;;
        esac
        h=$((h * ((cap + 262143) / 262144)))
        case $win in
            rows) c="--col-mean $((width / 2)) --col-sigma $((2 * width + 1))" ;;
            left) c="--col-mean 1 --col-sigma 2" ;;
            middle) c="--col-mean $((width / 2)) --col-sigma 3" ;;
            right) c="--col-mean $((width - 2)) --col-sigma 2" ;;
        esac
        # whole-row windows start at a tile's first row: an eye one tile
        # holds sits in the middle of the second tile
        rows="" mean=$((h / 2))
        case $win:$t in
            rows:one) sigma=$((r / 16)) && [ $((2 * r)) -gt "$h" ] || mean=$((3 * r / 2)) ;;
            # (--tile-rows takes at most 65535: a width of 1 under a
            # device of 1 MiB of local memory holds twice that)
            rows:*) sigma=$((r / 4)) rows=$((r / 4 < 65535 ? r / 4 : 65535)) ;;
            *:one) sigma=$((2 * r / 5 < h / 4 ? 2 * r / 5 : h / 4)) ;;
            right:*) sigma=$((width < 4096 ? 20 : 40)) rows=1 ;;
            *) sigma=$((width == 4096 ? 40 : 20)) rows=1 ;;
        esac
        # (rows:one may be 0: an eye of one row)
        [ "$sigma" -ge 1 ] || [ "$win:$t" = rows:one ] || sigma=1
        [ -z "$rows" ] || [ "$rows" -ge 1 ] || rows=1
        name=array.$w.$win.$t
        in=$W/$name.bin
        if [ ! -s "$W/$name.ref.raw" ]; then
            rm -f "$W"/array.*.ref.bmp "$W"/array.*.ref.raw "$W"/array.*.bin
            # shellcheck disable=SC2086 # the eye's arguments are words
            $GEN -o "$in" --seed 5 --image 400x400 --histo "${width}x$h" \
                --row-mean "$mean" --row-sigma "$sigma" $c \
                --outliers 20000 --ends 2000 >/dev/null \
                && ref_counts "$in" "$W/$name.ref.bmp" \
                || { bad "$id" "input generation failed"; continue; }
        fi
        set -- --strategy "$s"
        [ -z "$rows" ] || set -- "$@" --tile-rows "$rows"
        case $cut in
            chunks) set -- "$@" --chunk-values $((160000 / 3 + 1)) ;;
            shares) set -- "$@" --chunk-values $((160000 / 4 + 1)) --device "$twice" ;;
        esac
        (HISTO_TEST_2D_MIN_VALUES=1
         export HISTO_TEST_2D_MIN_VALUES
         [ "$t" = narrow ] && { HISTO_TEST_NARROW_MIN_VALUES=1; export HISTO_TEST_NARROW_MIN_VALUES; }
         run_histo "$@" -i "$in" -o "$W/$id.bmp" --timing "$W/$id.out" -- 2 >"$W/$id.log" 2>&1)
        st=$?
        first=$(key eye.first_col) cols=$(key eye.cols) tiles=$(key eye.tiles_used)
        bits=$(key eye.counter_bits)
        why=""
        [ "$s:$cut" = eye:whole ] && case $win in
            rows) [ "$cols" = "$width" ] || why="whole rows" ;;
            left) [ "$first" = 0 ] && [ "${cols:-$width}" -lt "$width" ] || why="a 2-D window at the left edge" ;;
            middle) [ "${first:-0}" -gt 0 ] && [ $((first + cols)) -lt "$width" ] || why="a 2-D window in the middle" ;;
            right) [ "${first:-0}" -gt 0 ] && [ $((first + cols)) -eq "$width" ] || why="a 2-D window at the right edge" ;;
        esac
        if [ "$s:$cut" = eye:whole ] && [ -z "$why" ]; then
            case $t in
                one) [ "$tiles" = 1 ] && [ "$bits" = 16 ] || why="one 16-bit tile" ;;
                several) [ "${tiles:-0}" -ge 2 ] && [ "$bits" = 16 ] || why="several 16-bit tiles" ;;
                narrow) [ "$bits" = 8 ] || why="8-bit tiles" ;;
            esac
        fi
        if [ "$st" -ne 0 ]; then
            bad "$id" "exit status $st: $(tail -n 2 "$W/$id.log")"
        elif ! same_counts "$W/$id.bmp" "$W/$name.ref.bmp"; then
            bad "$id" "$(cat "$W/last.diff")"
        elif [ -n "$why" ]; then
            bad "$id" "want $why; histo.out says first_col $first, cols $cols, tiles $tiles, counter bits $bits ($(key config.tile_kernel))"
        else
            ok "$id"
        fi
    done
fi
# Any work-group size gives the same histogram and the same eye window:
# $HISTO_TEST_MAX_GROUP (test-only, docs/testing.md) caps every group at
# 1, 2, 3, 7, 8 and 32 work-items, on an eye of several tiles with values
# outside the window (gauss, tiles of 16 rows), a second eye outside the
# window (twoeye), one bin, and a 2-D window (eye2d.centre, tiles of 16
# rows). A device may refuse such groups only with exit status 4 and a
# message naming the group size. The cpu strategy runs groups of one
# work-item whatever the cap.
# window_of FILE: the eye window's keys in a timing file, on one line
window_of() {
    grep -e '^eye.tiles_used = ' -e '^eye.first_bin = ' -e '^eye.end_bin = ' \
        -e '^eye.cols = ' "$1" 2>/dev/null | tr '\n' ' '
}
if in_part group && echo "$STRATEGIES" | grep -qw eye; then
    for spec in gauss:16 twoeye: one_bin: eye2d.centre:16; do
        name=${spec%%:*}
        w=${spec#*:}
        dir=$INPUTS
        case $name in
            # eye2d.sh's centre input, made here too when this part runs alone
            eye2d.centre)
                dir=$W
                [ -s "$W/$name.ref.raw" ] \
                    || { $GEN -o "$W/$name.bin" --seed 3 --image 2900x2900 --histo 256x8192 \
                             --row-sigma 205 --col-sigma 16 >/dev/null \
                         && ref_counts "$W/$name.bin" "$W/$name.ref.bmp"; } \
                    || { bad "group.$name" "input generation failed"; continue; } ;;
            *) need_case "$name" ;;
        esac
        set -- --strategy eye
        [ -z "$w" ] || set -- "$@" --tile-rows "$w"
        for g in default 1 2 3 7 8 32; do
            id=group.$name.g$g
            (if [ "$g" != default ]; then
                 HISTO_TEST_MAX_GROUP=$g
                 export HISTO_TEST_MAX_GROUP
             fi
             run_histo "$@" -i "$dir/$name.bin" -o "$W/$id.bmp" \
                 --timing "$W/$id.out" -- 2 >"$W/$id.log" 2>&1)
            st=$?
            tile=$(sed -n 's/^config.work_group.eye_tile = //p' "$W/$id.out" 2>/dev/null)
            reduce=$(sed -n 's/^config.work_group.eye_reduce = //p' "$W/$id.out" 2>/dev/null)
            if [ "$st" -eq 4 ] && [ "$g" != default ] \
               && grep -q "groups of" "$W/$id.log"; then
                ok "$id (refused: $(tail -n 1 "$W/$id.log"))"
            elif [ "$st" -ne 0 ]; then
                bad "$id" "exit status $st: $(tail -n 2 "$W/$id.log")"
            elif ! same_counts "$W/$id.bmp" "$dir/$name.ref.bmp"; then
                bad "$id" "BMP differs from the reference (groups of $tile and $reduce)"
            elif [ "$g" != default ] \
                 && { [ -z "$tile" ] || [ "$tile" -gt "$g" ] \
                      || [ -z "$reduce" ] || [ "$reduce" -gt "$g" ]; }; then
                bad "$id" "ran groups of $tile and $reduce, more than $g"
            elif [ "$(window_of "$W/$id.out")" != "$(window_of "$W/group.$name.gdefault.out")" ]; then
                bad "$id" "window '$(window_of "$W/$id.out")', with the default groups '$(window_of "$W/group.$name.gdefault.out")'"
            else
                ok "$id"
            fi
        done
    done
fi
# Buckets: an iteration of eye_tile_2d without a window sorts its values
# into buckets of 8192 bins (eye_bucket.cl); HISTO_TEST_2D_MIN_VALUES=1
# (test-only) runs eye_tile_2d for inputs of any size where the width is
# a multiple of 4, and tiles of 64 rows leave a flat input without a
# window on any device. A uniform input, one with a third of its values
# outliers (no_eye) and one of 2,999,000 bins (no multiple of a bucket)
# must come out exact with histo.out saying buckets were used: with the default groups, with
# groups of 1, 3 and 32 work-items, with areas of 8 entries (nearly every
# value past an area's end goes to a global atomic), in the replicated
# strategy; and without them, histo.out saying so, with the buckets off
# (HISTO_EYE_BUCKET_CAP=0) and in eye_tile (eyetile: inputs below the
# 2-D window's size). 4.2M values into 256x64 bins (tiles of 1 row) fill
# each of its two buckets with 32 of the reduction's chunks and saturate
# every bin.
if in_part buckets && echo "$STRATEGIES" | grep -qw eye; then
    need_case uniform && need_case no_eye
    make_input odd_bins --seed 2 --dist uniform --image 1001x333 \
        --histo 1000x2999
    make_input full_bins --seed 4 --dist uniform --image 2048x2048 \
        --histo 256x64
    for spec in "uniform:default g1 g3 g32 cap8 replicated off eyetile" \
                "no_eye:default cap8" "odd_bins:default g3 cap8 off" \
                "full_bins:default g32"; do
        name=${spec%%:*}
        dir=$INPUTS
        rows=64
        [ "$name" = full_bins ] && rows=1
        for v in ${spec#*:}; do
            id=buckets.$name.$v
            strategy=eye want=yes
            ([ "$v" = eyetile ] || { HISTO_TEST_2D_MIN_VALUES=1; export HISTO_TEST_2D_MIN_VALUES; }
             case $v in
                 g*) HISTO_TEST_MAX_GROUP=${v#g}; export HISTO_TEST_MAX_GROUP ;;
                 cap8) HISTO_EYE_BUCKET_CAP=8; export HISTO_EYE_BUCKET_CAP ;;
                 off) HISTO_EYE_BUCKET_CAP=0; export HISTO_EYE_BUCKET_CAP ;;
             esac
             [ "$v" = replicated ] && strategy=replicated
             run_histo --strategy "$strategy" --tile-rows "$rows" -i "$dir/$name.bin" \
                 -o "$W/$id.bmp" --timing "$W/$id.out" -- 2 >"$W/$id.log" 2>&1)
            st=$?
            case $v in off | eyetile) want=no ;; esac
            used=$(sed -n 's/^eye.buckets_used = //p' "$W/$id.out" 2>/dev/null)
            if [ "$st" -ne 0 ]; then
                bad "$id" "exit status $st: $(tail -n 2 "$W/$id.log")"
            elif ! same_counts "$W/$id.bmp" "$dir/$name.ref.bmp"; then
                bad "$id" "$(cat "$W/last.diff")"
            elif [ "$used" != "$want" ]; then
                bad "$id" "eye.buckets_used = '$used', want $want ($(grep -e '^config.buckets' -e '^eye.tiles_used' "$W/$id.out" | tr '\n' ' '))"
            else
                ok "$id"
            fi
        done
    done
fi
# Plain adds: where every slice holds at most 65535 values (65532 in
# whole quads), eye_tile's groups add to their 16-bit tile counters
# without reading them first (no counter can pass 65535), unless 1/16 of
# the eye's samples share a counter word with the value after them (a
# hammered bin). Values alternating between bins 1001 and 1002 (two
# words) show the samples nothing hammered and put 32766 values on each
# of two counters: 65532 values in one batch are counted with plain adds,
# 65536 with the read first. 66,000 values in bin 1000 among 80 bins of
# 4,000 (shuffled: few neighbours share a word) in one batch must read
# first: plain adds would carry bin 1000's counter into bin 1001's. The
# test dataset's shape in 16 batches (64,740 values each) adds plainly,
# in the replicated strategy too and in the fused one where it takes a
# window; in one batch it reads first, and eye_tile_2d
# (HISTO_TEST_2D_MIN_VALUES=1) always reads first, its samples not
# looked at for hammered bins. 327,684 values in 5 batches (four slices
# of 16,385 quads, the last of 16,381) read first in every group, as
# histo.out says. A million values in one bin are hammered: the read
# first, in any batches.
if in_part buckets && echo "$STRATEGIES" | grep -qw eye; then
    need_case one_bin
    for size in 65532 65536; do
        make_input "alt$size" --dist sweep --bin 1001 --span 2 \
            --image "${size}x1"
    done
    need_carry
    make_input short_last --seed 7 --image 987x332
    for spec in alt65532:1:eye:yes:no alt65536:1:eye:no:no \
                carry:1:eye:no:no short_last:5:eye:no:no \
                gauss:16:eye:yes:no gauss:16:eye2d:no:unsampled \
                gauss:16:replicated:yes:no gauss:16:fused:tiles:no \
                gauss:1:eye:no:no one_bin:16:eye:no:yes \
                one_bin:default:eye:no:yes; do
        IFS=: read -r name batches how want_plain want_hot <<EOT
$spec
EOT
        dir=$INPUTS
        [ "$want_hot" = unsampled ] && want_hot="not sampled"
        id=plain.$name.b$batches.$how
        strategy=$how
        [ "$how" = eye2d ] && strategy=eye
        set -- --strategy "$strategy"
        [ "$batches" = default ] || set -- "$@" --batches "$batches"
        ([ "$how" = eye2d ] && { HISTO_TEST_2D_MIN_VALUES=1; export HISTO_TEST_2D_MIN_VALUES; }
         run_histo "$@" -i "$dir/$name.bin" -o "$W/$id.bmp" --timing "$W/$id.out" -- 2 \
             >"$W/$id.log" 2>&1)
        st=$?
        plain=$(sed -n 's/^eye.plain_adds = //p' "$W/$id.out" 2>/dev/null)
        hot=$(sed -n 's/^eye.hot_bin = //p' "$W/$id.out" 2>/dev/null)
        cols=$(sed -n 's/^eye.cols = //p' "$W/$id.out" 2>/dev/null)
        # "tiles": plain where the iteration took a window (the fused
        # kernel on PoCL's CPU device takes none for this input)
        [ "$want_plain" = tiles ] && { want_plain=yes
            grep -q '^eye.tiles_used = 0$' "$W/$id.out" 2>/dev/null && want_plain=no; }
        if [ "$st" -ne 0 ]; then
            bad "$id" "exit status $st: $(tail -n 2 "$W/$id.log")"
        elif ! same_counts "$W/$id.bmp" "$dir/$name.ref.bmp"; then
            bad "$id" "$(cat "$W/last.diff")"
        elif [ "$plain" != "$want_plain" ] || [ "$hot" != "$want_hot" ]; then
            bad "$id" "eye.plain_adds = '$plain', eye.hot_bin = '$hot'; want $want_plain, $want_hot"
        elif [ "$how" = eye2d ] && [ "$cols" = 256 ]; then
            bad "$id" "no 2-D window (eye.cols = $cols)"
        else
            ok "$id"
        fi
    done
fi
# 8-bit counters (eye_count.cl, Narrow counters): large inputs whose 2-D
# window takes two 16-bit tiles or more run eye_tile_2d_narrow, 8-bit
# tiles of twice the rows that record every wrap in `outer`.
# HISTO_TEST_NARROW_MIN_VALUES=1 (test-only) takes it, in tiles of one
# row, for a dense 2-D eye, in one batch and in the default batches, and
# for a bin of 66,000 values in one batch (257 wraps of its counter, each
# carrying into its neighbours). Each exact, histo.out saying what
# counted. (build/records-test checks the reduction's sums of records up
# to a bin of 2^31 values: tests/saturation.sh.)
# counted ID STATUS REF.bmp WHAT WANT: run ID ($W/ID.*) ended with STATUS
# 0, REF's counters, and histo.out saying WHAT where WANT is wanted.
counted() {
    if [ "$2" -ne 0 ]; then
        bad "$1" "exit status $2: $(tail -n 2 "$W/$1.log")"
    elif ! same_counts "$W/$1.bmp" "$3"; then
        bad "$1" "$(cat "$W/last.diff")"
    elif [ "$4" != "$5" ]; then
        bad "$1" "histo.out says '$4', want '$5'"
    else
        ok "$1"
    fi
}
if in_part counters && echo "$STRATEGIES" | grep -qw eye; then
    need_carry
    make_input narrow_eye --image 400x400 --histo 256x64 --row-mean 32 \
        --row-sigma 3 --col-mean 127 --col-sigma 5 --outliers 20000
    # a window of three 16-bit tiles of one row (two 8-bit ones): an odd
    # count, where halving must round up
    make_input narrow_odd --seed 7 --image 400x400 --histo 256x64 --row-mean 32 \
        --row-sigma 4 --col-mean 127 --col-sigma 12 --outliers 20000
    for spec in narrow_eye:1 narrow_eye:default carry:1 narrow_odd:1; do
        name=${spec%%:*} batches=${spec#*:}
        id=counters.$name.eye2d.narrow.b$batches
        wanted "eye.$id" || continue
        set -- --strategy eye --tile-rows 1
        [ "$batches" = default ] || set -- "$@" --batches "$batches"
        HISTO_TEST_2D_MIN_VALUES=1 HISTO_TEST_NARROW_MIN_VALUES=1 \
            run_histo "$@" -i "$INPUTS/$name.bin" -o "$W/$id.bmp" \
            --timing "$W/$id.out" -- 2 >"$W/$id.log" 2>&1
        st=$?
        what="$(sed -n 's/^config.tile_kernel = //p; s/^eye.counter_bits = //p' "$W/$id.out" 2>/dev/null | tr '\n' ' ')"
        counted "$id" "$st" "$INPUTS/$name.ref.bmp" "$what" "eye_tile_2d_narrow 8 "
    done
    # A row wider than a 16-bit tile takes no 2-D window: eye_tile runs,
    # and with it eye_reduce, not eye_reduce_narrow, though the input is
    # large enough for 8-bit tiles. Intel's CPU runtime (make platforms)
    # has 256 KiB of local memory, a tile of about 130,000 bins: a
    # 200000x2 histogram falls back there (PoCL's 2 MiB would take a tile
    # of a million bins, minutes an iteration).
    id=counters.narrow_fallback
    icd=${HISTO_OCL_DIR:-${HOME:-/nonexistent}/.cache/histo/ocl}/vendors/intel-cpu.icd
    if ! wanted "eye.$id"; then
        :
    elif [ ! -f "$icd" ]; then
        echo "SKIP eye.$id: Intel's CPU runtime not installed (make platforms)"
    elif [ "$B" != build ]; then
        # its library aborts when loaded into an instrumented process
        # ("Pure virtual function called"; tests/impl.sh)
        echo "SKIP eye.$id: Intel's CPU runtime does not survive the sanitizer build (make test runs it)"
    else
        mkdir -p "$W/icd.intel" && cp "$icd" "$W/icd.intel/"
        make_input narrow_row --image 200x200 --histo 200000x2 --row-mean 1 \
            --row-sigma 1 --col-mean 100000 --col-sigma 30 --outliers 100
        HISTO_TEST_2D_MIN_VALUES=1 HISTO_TEST_NARROW_MIN_VALUES=1 \
        OCL_ICD_VENDORS=$W/icd.intel $HISTO --platform 0 --strategy eye \
            -i "$INPUTS/narrow_row.bin" -o "$W/$id.bmp" --raw "$W/$id.raw" \
            --timing "$W/$id.out" -- 2 >"$W/$id.log" 2>&1
        st=$?
        what="$(sed -n 's/^config.tile_kernel = //p; s/^config.reduce_kernel = //p' "$W/$id.out" 2>/dev/null | tr '\n' ' ')"
        counted "$id" "$st" "$INPUTS/narrow_row.ref.bmp" "$what" "eye_tile eye_reduce "
    fi
fi
# The tile kernels are built with reqd_work_group_size for the size they
# run at (-DHISTO_TILE_REQD_SIZE); a runtime that refuses that launch gets
# them built again for the size it reports, and one that cannot build them
# so gets them without the attribute. $HISTO_TEST_TILE_GROUP (test-only)
# asks for groups of 65280, beyond every device's limit; a kernel copy
# that fails to build with the attribute stands for a runtime that cannot
# build it. Each must end with the reference's BMP, a note, and histo.out
# saying what ran.
# tile_keys FILE: the tile kernel's group keys, on one line
tile_keys() {
    grep -e '^config.work_group.eye_tile = ' -e '^config.work_group_required.eye_tile = ' \
        -e '^config.work_group_from.eye_tile = ' -e '^config.tile_rebuilt = ' \
        "$1" 2>/dev/null | tr '\n' ' '
}
if in_part group && echo "$STRATEGIES" | grep -qw eye; then
    # a runtime may refuse 65280 at build time instead: then no attribute
    id=reqd.refused_launch
    if (HISTO_TEST_TILE_GROUP=65280
        export HISTO_TEST_TILE_GROUP
        run_histo --strategy eye -i "$INPUTS/gauss.bin" -o "$W/$id.bmp" \
            --timing "$W/$id.out" -- 2 >"$W/$id.log" 2>&1) \
       && same_counts "$W/$id.bmp" "$INPUTS/gauss.ref.bmp" \
       && g=$(sed -n 's/^config.work_group.eye_tile = //p' "$W/$id.out") \
       && [ -n "$g" ] && [ "$g" -lt 65280 ] \
       && { { grep -q "note: groups of 65280 refused for kernel eye_tile (CL_INVALID_" "$W/$id.log" \
              && grep -q "^config.tile_rebuilt = groups of 65280 refused (CL_INVALID_" "$W/$id.out" \
              && grep -q "^config.work_group_required.eye_tile = $g$" "$W/$id.out" \
              && grep -q "^build.options = .* -DHISTO_TILE_REQD_SIZE=$g\( \|$\)" "$W/$id.out"; } \
            || { grep -q "note: the build with -DHISTO_TILE_REQD_SIZE=65280 .*failed" "$W/$id.log" \
                 && grep -q "^config.work_group_required.eye_tile = 0$" "$W/$id.out"; }; }; then
        ok "$id"
    else
        bad "$id" "$(tile_keys "$W/$id.out") $(tail -n 2 "$W/$id.log")"
    fi
    id=reqd.build_refused
    mkdir -p "$W/noreqd-kernels"
    cp kernels/*.cl "$W/noreqd-kernels/"
    { printf '#if HISTO_TILE_REQD_SIZE > 0\n#error "reqd_work_group_size refused"\n#endif\n'
      cat kernels/eye_tile.cl; } >"$W/noreqd-kernels/eye_tile.cl"
    if run_histo --strategy eye --kernels "$W/noreqd-kernels" -i "$INPUTS/gauss.bin" \
            -o "$W/$id.bmp" --timing "$W/$id.out" -- 2 >"$W/$id.log" 2>&1 \
       && same_counts "$W/$id.bmp" "$INPUTS/gauss.ref.bmp" \
       && grep -q "note: the build with -DHISTO_TILE_REQD_SIZE=[0-9]* .*failed (CL_BUILD_PROGRAM_FAILURE); building with -DHISTO_TILE_REQD_SIZE=0 .*instead" "$W/$id.log" \
       && grep -q "^config.work_group_required.eye_tile = 0$" "$W/$id.out" \
       && grep -q "^config.work_group_from.eye_tile = CL_KERNEL_WORK_GROUP_SIZE$" "$W/$id.out"; then
        ok "$id"
    else
        bad "$id" "$(tile_keys "$W/$id.out") $(tail -n 2 "$W/$id.log")"
    fi
    # Every eye run of the suite so far (this subject's and those run
    # before it, tests/run.sh's order): groups never above what the
    # launched kernel reports, unless it was built for exactly that size,
    # or it is eye_tile_2d run at the size the runtime built eye_tile for
    # in the same program (eye_tile.cl says why it has no attribute).
    # Each file is read once: a subject running beside this one removes
    # its folder when it passes, which may be between two reads.
    over=""
    out_key() { printf '%s\n' "$text" | sed -n "s/^$1 = //p"; }
    for t in "$ROOT"/*/*.out; do
        text=$(cat "$t" 2>/dev/null) || continue
        [ "$(out_key strategy)" = eye ] || continue
        g=$(out_key config.work_group.eye_tile)
        lim=$(out_key config.work_group_limit.eye_tile)
        req=$(out_key config.work_group_required.eye_tile)
        rg=$(out_key config.work_group.eye_reduce)
        rlim=$(out_key config.work_group_limit.eye_reduce)
        acc=$(out_key config.work_group_accepted.eye_tile)
        if [ -z "$g" ] || [ -z "$rg" ] \
           || { [ "$g" -gt "$lim" ] && [ "$g" != "$req" ] \
                && [ "$g" != "$acc" ]; } \
           || [ "$rg" -gt "$rlim" ]; then
            over="$over ${t##*/}($g/$lim/$req, $rg/$rlim)"
        fi
    done
    if [ -z "$over" ]; then
        ok reqd.never_above_the_limit
    else
        bad reqd.never_above_the_limit "group/limit/required:$over"
    fi
fi
if in_part group && echo "$STRATEGIES" | grep -qw cpu; then
    for g in 1 2 3 7 8 32; do
        id=group.cpu.g$g
        if (HISTO_TEST_MAX_GROUP=$g
            export HISTO_TEST_MAX_GROUP
            run_histo --strategy cpu -i "$INPUTS/gauss.bin" -o "$W/$id.bmp" \
                --timing "$W/$id.out" -- 2 >"$W/$id.log" 2>&1) \
           && grep -q "^config.work_group.cpu_count = 1$" "$W/$id.out" \
           && same_counts "$W/$id.bmp" "$INPUTS/gauss.ref.bmp"; then
            ok "$id"
        else
            bad "$id" "$(tail -n 2 "$W/$id.log")"
        fi
    done
fi
