/*
 * eye_window.cl - choosing the eye window from eye_sample.cl's counts.
 * The whole-row window is grown from the densest cell, one neighbouring
 * cell at a time (the denser side first), while the next cell holds at
 * least min_samples samples and at most max_tiles tiles are taken: a tile
 * pays for re-reading its batch's input only where it catches enough
 * values, otherwise global atomics are cheaper. A 2-D window of t tiles
 * is placed where t tiles' worth of row buckets hold the most samples,
 * and t grows while each tile more catches min_samples_2d more. Sliding
 * by buckets centres the window on the eye; a fixed grid of cells would
 * make the same eye take 2 or 3 tiles by where its centre fell
 * (docs/design.md). The 2-D window is taken where it needs at most half
 * the tiles of whole rows (or whole rows find no window). Every group
 * computes the same window (no host round trip, no extra kernel); group 0
 * publishes it in eye[] (layout in params.h) for the reduction
 * (eye_tile.cl, publish). The estimate affects only speed. The densest
 * cell is found with one local atomic_max per cell (one barrier, where a
 * tree takes nine); the growth is a short serial walk.
 *
 * Order: built after eye_args.cl and eye_sample.cl (the list is eye.c's
 * EYE_TILE_SOURCES).
 */

/* Where this group counts. Whole rows (cols == 0): the window is bins
 * [lo, lo + len) of the flat histogram, the tile [tile_lo, tile_lo +
 * tile_len). 2-D (cols > 0): the window is `cols` columns from bin lo
 * (its first row and column) over len bins of the flat histogram (first
 * to last row); the tile is `cols` columns from bin tile_lo over
 * tile_span bins, its counters row by row. */
struct place {
    uint lo, len, tile_lo, tile_len, cols, tile_span, width, width_shift;
    ulong width_recip; /* the histogram's width, its shift and its
                          reciprocal (eye_args.cl, width_div) */
};

/* The eye window in one grid of cells of cell_tiles tiles each (the last
 * may hold fewer; tiles tiles in all): grown from the densest cell (key:
 * count << 16 | (0xffff - cell)) one neighbour at a time, the denser side
 * first, while the next cell holds at least min_samples samples and the
 * cells' tiles stay within max_tiles. window[0] = first tile, window[1] =
 * tiles (0: no window); a single cell of more than max_tiles tiles keeps
 * its middle max_tiles. */
static void grow(local const uint *cell, uint cells, uint cell_tiles,
                 uint tiles, uint key, uint min_samples, uint max_tiles,
                 local uint *window)
{
    const uint best = key != 0 ? 0xffff - (key & 0xffff) : 0;
    uint k0 = best, k1 = best; /* window = cells [k0, k1) */
    if (cell[best] >= min_samples) {
        k1 = best + 1;
        /* (k1 - k0 + 1) * cell_tiles: cell_tiles is 1 or the histogram's
         * tiles over at least 32 cells (eye_plan.c), so this cannot wrap */
        while ((k1 - k0 + 1) * cell_tiles <= max_tiles) {
            const uint left = k0 > 0 ? cell[k0 - 1] : 0;
            const uint right = k1 < cells ? cell[k1] : 0;
            if (max(left, right) < min_samples)
                break;
            if (left >= right)
                --k0;
            else
                ++k1;
        }
    }
    uint t0 = k0 * cell_tiles;
    uint t = min((k1 - k0) * cell_tiles, tiles - t0);
    if (t > max_tiles) {
        t0 += (t - max_tiles) / 2;
        t = max_tiles;
    }
    window[0] = t0;
    window[1] = t;
}

/* 2-D window candidates from the row buckets (bucket[k]: the samples in
 * the window's columns and rows [k, k + 1) x bucket_rows; `sub` buckets
 * fit a tile). run[p] = the samples of the sub buckets from p; then, for
 * t tiles (t = 1 .. max_t), the densest run of t x sub buckets from any
 * p, as best2[t - 1] = count << 16 | (0xffff - p) (lowest p on ties).
 * Sliding by buckets, not a fixed grid of tile-sized cells, centres the
 * window on the eye wherever it lies. A work-item takes one t and
 * HISTO_EYE_SLIDE_SPAN starting buckets, moving the run along one bucket
 * at a time (one bucket leaves, one joins), and posts one atomic_max: a
 * few dozen on each word instead of one per bucket, and one running
 * count a work-item, where a count per t would not fit its registers. */
#define HISTO_EYE_SLIDE_SPAN 8u
static void slide(local const uint *bucket, uint buckets, uint sub,
                  uint max_t, local uint *run, local uint *best2, uint lid,
                  uint size)
{
    for (uint p = lid; p < buckets; p += size) {
        uint c = 0;
        for (uint i = p; i < min(p + sub, buckets); ++i)
            c += bucket[i];
        run[p] = c;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint spans = (buckets + HISTO_EYE_SLIDE_SPAN - 1)
                     / HISTO_EYE_SLIDE_SPAN;
    for (uint job = lid; job < spans * max_t; job += size) {
        const uint t = job / spans;
        const uint p0 = (job - t * spans) * HISTO_EYE_SLIDE_SPAN;
        const uint p_end = min(p0 + HISTO_EYE_SLIDE_SPAN, buckets);
        const uint len = (t + 1) * sub; /* buckets in the run */
        uint c = 0;
        for (uint k = 0; k <= t; ++k) {
            const uint i = p0 + k * sub;
            c += i < buckets ? run[i] : 0;
        }
        uint key = c << 16 | (0xffff - p0);
        for (uint p = p0 + 1; p < p_end; ++p) {
            c += (p - 1 + len < buckets ? bucket[p - 1 + len] : 0)
               - bucket[p - 1];
            key = max(key, c << 16 | (0xffff - p));
        }
        atomic_max(&best2[t], key);
    }
}

/* The 2-D window from slide()'s candidates: one tile more while it
 * catches at least min_samples more samples (at most max_t tiles),
 * placed where the best run of that many tiles starts, moved up where it
 * would pass the last row. window[0] = first row, window[1] = tiles (0:
 * no window). */
static void pick(local const uint *best2, uint max_t, uint min_samples,
                 uint bucket_rows, uint cell_rows, uint height,
                 local uint *window)
{
    uint t = 0, taken = 0;
    while (t < max_t && (best2[t] >> 16) >= taken + min_samples)
        taken = best2[t++] >> 16;
    uint r0 = 0;
    if (t != 0) {
        const uint rows = min(t * cell_rows, height);
        r0 = min((0xffff - (best2[t - 1] & 0xffff)) * bucket_rows,
                 height - rows);
    }
    window[0] = r0;
    window[1] = t;
}

/* Both windows from the summed cells, chosen at once by work-items of
 * different warps; returns the tiles of the one taken, *use_2d whether
 * it is the 2-D one: where it needs at most half the tiles of whole rows
 * (each value then costs a row and column split, which fewer tiles must
 * pay for), or where whole rows find no window at all. 2-D windows have
 * at most HISTO_EYE_2D_MAX_TILES tiles (one is taken only with at most
 * half the tiles of whole rows, which has at most HISTO_MAX_TILES), and
 * never more than the rows hold (cell_rows is 1 without a 2-D candidate,
 * else height <= nbins / 8: no wrap). */
static uint choose_windows(const struct eye_args *a, const struct scratch *sc,
                           const struct span2 *sq, uint height,
                           local struct eye_small *sm, uint lid, uint size,
                           const bool allow_2d, bool *use_2d)
{
    uint max_tiles2 = 0;
    /* every 2-D kernel passes slide()'s barriers, which does nothing
     * without a 2-D candidate (cells2 == 0): no barrier under a run-time
     * branch (sample_columns says why) */
    if (allow_2d) {
        if (sq->cells2 != 0)
            max_tiles2 = min(min(a->max_tiles,
                                 (uint)HISTO_EYE_2D_MAX_TILES),
                             (height + sq->cell_rows - 1) / sq->cell_rows);
        barrier(CLK_LOCAL_MEM_FENCE); /* the buckets are summed */
        slide(sc->cell2, sq->cells2,
              max(sq->cell_rows / sq->bucket_rows, 1u), max_tiles2, sc->run,
              sm->best2, lid, size);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0)
        grow(sc->cell1, sc->cells1, a->cell_tiles,
             (a->nbins - 1) / a->tile_bins + 1, sc->best_key[0],
             a->min_samples, a->max_tiles, sm->window);
    if (lid == (size > 32 ? 32 : 0) && sq->cells2 != 0)
        pick(sm->best2, max_tiles2, a->min_samples_2d, sq->bucket_rows,
             sq->cell_rows, height, sm->window2);
    barrier(CLK_LOCAL_MEM_FENCE);
    *use_2d = sq->cells2 != 0 && sm->window2[1] != 0
           && (sm->window[1] == 0 || 2 * sm->window2[1] <= sm->window[1]);
    return *use_2d ? sm->window2[1] : sm->window[1];
}

/* The eye: sampled by every group alike, so every group chooses the same
 * window with no host round trip. Returns its tiles (0: none), the
 * window in *pl (lo, len, cols), *win_rows (2-D), *tile_stride (bins
 * from one tile to the next in `partial`); in eye_tile, sm->hot whether
 * a bin is hammered (eye_count.cl, "Counters"). */
static uint find_eye(global const uint *restrict in, const struct eye_args *a,
                     local uint *tile, local struct eye_small *sm,
                     bool allow_2d, struct place *pl, uint *win_rows,
                     uint *tile_stride, uint *cell_rows)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const struct sampling sp = sampling(a->n);
    const uint width = a->width, shift = a->width_shift;
    const uint height = width_div(a->nbins, shift, a->width_recip);
    /* A 2-D window needs whole quads of columns (the reduction reads four
     * bins at a time) and a whole row per tile. */
    const bool can_2d = allow_2d && width % 4 == 0 && width >= 8
                        && width <= a->tile_bins;
    const uint words = min(a->tile_words,
                           HISTO_EYE_COL_BUCKETS
                               + (a->ncells + (can_2d ? HISTO_EYE_ROW_BUCKETS
                                                      : 0))
                                     * HISTO_EYE_COPIES
                               + 2);
    /* this work-item's first sample, loaded before the scratch is zeroed
     * so that its wait overlaps the zeroing and a barrier (both passes
     * use it) */
    const uint mine = lid < sp.samples ? in[sample_index(lid, sp.stride)]
                                       : 0;
    /* eye_tile: the samples, in order, and count_equal's replicas at
     * the tile's end, past the words the scratch uses (the scratch of
     * whole rows alone lies within `words`); where the tile leaves no
     * room for them, HOT_UNSAMPLED */
    const uint xs_words = sp.samples + HISTO_EYE_COPIES;
    const uint xs_at = a->tile_words - min(xs_words, a->tile_words);
    local uint *equal = tile + xs_at + sp.samples;
    const bool have_xs = !allow_2d && xs_at >= words;
    clear_scratch(tile, words, sm, lid, size);
    if (have_xs)
        post_samples(in, &sp, mine, tile + xs_at, equal, lid, size);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (have_xs)
        count_equal(&sp, tile + xs_at, equal, lid, size);
    if (allow_2d)
        sample_columns(in, &sp, mine, tile, sm, width, shift, a->width_recip,
                       lid, size, can_2d);
    const struct span2 sq = column_span(sm, width, a->tile_bins, height,
                                        can_2d);
    const struct scratch sc = scratch_layout(tile, a->tile_words, a->ncells,
                                             sq.cells2);
    sample_cells(in, &sp, mine, &sc, &sq, width, shift, a->width_recip,
                 a->tile_bins, a->cell_tiles, lid, size);
    /* in local memory, not a register: read only when the counting
     * starts (count_group); eye_tile_2d touches none of it */
    if (!allow_2d && lid == 0) {
        uint same = 0;
        for (uint c = 0; have_xs && c < HISTO_EYE_COPIES; ++c)
            same += equal[c];
        sm->hot = !have_xs ? HOT_UNSAMPLED
                : same * HISTO_EYE_HOT_INV >= sp.samples ? HOT_YES : HOT_NO;
    }
    sum_cells(&sc, sq.cells2, lid, size);
    bool use_2d;
    const uint tiles = choose_windows(a, &sc, &sq, height, sm, lid, size,
                                      allow_2d, &use_2d);
    pl->cols = use_2d ? sq.cols : 0;
    pl->width = width;
    pl->width_shift = shift;
    pl->width_recip = a->width_recip;
    *win_rows = 0;
    *cell_rows = sq.cell_rows;
    if (!use_2d) {
        pl->lo = sm->window[0] * a->tile_bins;
        pl->len = min(tiles * a->tile_bins, a->nbins - pl->lo);
        *tile_stride = a->tile_bins;
    } else {
        const uint r0 = sm->window2[0];
        pl->lo = r0 * width + sq.c0;
        *win_rows = min(tiles * sq.cell_rows, height - r0);
        /* bins from the first to one past the last in the window */
        pl->len = (*win_rows - 1) * width + sq.cols;
        *tile_stride = sq.cell_rows * sq.cols;
    }
    return tiles;
}
