/*
 * eye_sample.cl - sampling the eye, the first phase of eye_tile.cl's
 * kernels: every work-group reads the same HISTO_EYE_SAMPLES values (runs
 * of HISTO_EYE_RUN consecutive values at evenly spaced points: whole
 * memory sectors, shared through the cache by all groups) and counts them
 * per cell, a tile-sized range of bins (or cell_tiles tiles, where more
 * than the ncells the host allows would be needed: the cells always cover
 * the whole histogram evenly, so no cell gathers the rest of it and draws
 * the window to an empty band), in local memory. For large inputs every
 * group also counts the samples' columns, cuts the sparse columns at both
 * sides and, where what is left spans at most half a row, counts the
 * samples in those columns per bucket of rows (about 1/HISTO_EYE_ROW_SUB
 * of a tile of those columns). eye_window.cl chooses the window from these
 * counts.
 *
 * Memory: the counts live in the tile's local memory before the tile
 * does (struct scratch: column buckets, cells, row buckets, each in
 * replicas to spread the contention of dense cells); what every
 * work-item reads once the windows are chosen lives in struct eye_small.
 *
 * Order: built after eye_args.cl (the list is eye.c's EYE_TILE_SOURCES).
 */

/* The words every work-item reads once the windows are chosen, apart
 * from the tile's memory (which the counting reuses). */
struct eye_small {
    uint window[2];  /* whole rows: first tile, tiles (0: no window) */
    uint window2[2]; /* 2-D: first row, tiles (0: no window) */
    uint edges[2];   /* the sampled columns' first and last bucket */
    uint best2[HISTO_EYE_2D_MAX_TILES]; /* slide()'s best run per size */
    uint hot; /* eye_tile's find_eye: HOT_NO, HOT_YES, HOT_UNSAMPLED */
};

/* What the samples say of a hammered bin (struct eye_small's hot). */
#define HOT_NO 0u
#define HOT_YES 1u
#define HOT_UNSAMPLED 2u

/* The eye's sampling: HISTO_EYE_SAMPLES values (or all n), in runs of
 * HISTO_EYE_RUN at `stride` apart. */
struct sampling {
    uint samples, stride;
};

/* A 2-D candidate: columns [c0, c0 + cols), tiles of cell_rows rows of
 * them, sampled in cells2 buckets of bucket_rows rows (cols == 0,
 * cells2 == 0: none). */
struct span2 {
    uint c0, cols, cell_rows, bucket_rows, cells2;
};

/* The eye's scratch in the tile's memory, in this order: the column
 * buckets, `copies` replicas of the whole-row cells' (cell1) and of the
 * 2-D row buckets' (cell2) counters (spreading the contention of dense
 * cells), a word for the densest whole-row cell's key, then slide()'s
 * sums per bucket. */
struct scratch {
    local uint *bucket, *cell1, *cell2, *best_key, *run;
    uint cells1, copies;
};

/* Sample s of the HISTO_EYE_SAMPLES: runs of HISTO_EYE_RUN consecutive
 * values at `stride` apart (or the whole input when it is that small). */
static uint sample_index(uint s, uint stride)
{
    return stride ? (s / HISTO_EYE_RUN) * stride + s % HISTO_EYE_RUN : s;
}

static struct sampling sampling(uint n)
{
    struct sampling sp;
    sp.samples = min(n, (uint)HISTO_EYE_SAMPLES);
    /* points - 1 apart, points = HISTO_EYE_SAMPLES / HISTO_EYE_RUN where
     * n is larger: a constant divisor (eye_tile.cl, "Uniform values") */
    sp.stride = n > HISTO_EYE_SAMPLES
              ? (n - HISTO_EYE_RUN) / (HISTO_EYE_SAMPLES / HISTO_EYE_RUN - 1)
              : 0;
    return sp;
}

/* Zeroes the first `words` of the tile's memory and the small words. */
static void clear_scratch(local uint *tile, uint words,
                          local struct eye_small *sm, uint lid, uint size)
{
    for (uint i = lid; i < words; i += size)
        tile[i] = 0;
    if (lid == 0) {
        sm->edges[0] = HISTO_EYE_COL_BUCKETS - 1;
        sm->edges[1] = 0;
    }
    for (uint t = lid; t < HISTO_EYE_2D_MAX_TILES; t += size)
        sm->best2[t] = 0;
}

/* Whether sample s has a next one in its run (the value after it in the
 * input). */
static bool has_next(const struct sampling *sp, uint s)
{
    return s + 1 < sp->samples && (s + 1) % HISTO_EYE_RUN != 0;
}

/* The value of sample s + size (this work-item's next), 0 past the
 * samples: loaded before sample s's atomics, so that one load is always
 * in flight (a group smaller than the samples takes several each). */
static uint sample_after(global const uint *restrict in,
                         const struct sampling *sp, uint s, uint size)
{
    return s + size < sp->samples
         ? in[sample_index(s + size, sp->stride)] : 0;
}

/* Column window from the samples' column buckets (HISTO_EYE_COL_BUCKETS
 * of W / buckets columns): the buckets left once fewer than `tail`
 * samples are cut from each side. Bucket b's work-item (work-item b, or
 * b % size in groups smaller than the buckets) sums the buckets up to b
 * and from b, so each side's edge is found in one step. */
static void column_window(local const uint *bucket, local uint *edges,
                          uint tail, uint lid, uint size)
{
    for (uint c = lid; c < HISTO_EYE_COL_BUCKETS; c += size) {
        uint left = 0, right = 0;
#pragma unroll
        for (uint k = 0; k < HISTO_EYE_COL_BUCKETS; ++k) {
            const uint b = bucket[k];
            left += k <= c ? b : 0;
            right += k >= c ? b : 0;
        }
        if (left > tail)
            atomic_min(&edges[0], c);
        if (right > tail)
            atomic_max(&edges[1], c);
    }
}

/* Pass 1 (2-D candidates only): samples per column bucket, then the
 * columns' edges. Called by every 2-D kernel (allow_2d), `active` where
 * a row fits a tile (can_2d): its barriers are passed either way. A
 * barrier under a run-time branch makes PoCL (BarrierTailReplication)
 * copy all of the kernel's code after the branch's join, once a branch,
 * the copies multiplying with this branch and choose_windows'
 * (docs/design.md, "Barriers outside run-time branches"). */
static void sample_columns(global const uint *restrict in,
                           const struct sampling *sp, uint mine,
                           local uint *bucket, local struct eye_small *sm,
                           uint width, uint width_shift, ulong width_recip,
                           uint lid, uint size, bool active)
{
    uint v = mine;
    for (uint s = lid; active && s < sp->samples; s += size) {
        const uint next = sample_after(in, sp, s, size);
        /* active: a row fits a tile, so c * HISTO_EYE_COL_BUCKETS <
         * width * 64 fits 32 bits, a quotient width_div takes */
        const uint c = v - width_div(v, width_shift, width_recip) * width;
        atomic_inc(&bucket[width_div(c * HISTO_EYE_COL_BUCKETS, width_shift,
                                     width_recip)]);
        v = next;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (active)
        column_window(bucket, sm->edges,
                      sp->samples / HISTO_EYE_COL_TAIL_INV, lid, size);
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* The 2-D candidate from the columns' edges: whole quads of columns;
 * none where the sampled columns span more than half a row. */
static struct span2 column_span(local const struct eye_small *sm,
                                uint width, uint tile_bins, uint height,
                                bool can_2d)
{
    struct span2 sq;
    sq.c0 = 0;
    sq.cols = 0;
    sq.cell_rows = 1;
    sq.bucket_rows = 1;
    sq.cells2 = 0;
    if (!can_2d || sm->edges[0] > sm->edges[1])
        return sq;
    const uint c0 = (uint)((ulong)sm->edges[0] * width
                           / HISTO_EYE_COL_BUCKETS) & ~3u;
    uint c1 = (uint)(((ulong)sm->edges[1] + 1) * width
                     / HISTO_EYE_COL_BUCKETS);
    c1 = min((c1 + 3) & ~3u, width);
    if (2 * (c1 - c0) > width)
        return sq;
    sq.c0 = c0;
    sq.cols = c1 - c0;
    sq.cell_rows = tile_bins / sq.cols;
    /* row buckets of about 1/HISTO_EYE_ROW_SUB of a tile, or taller
     * where HISTO_EYE_ROW_BUCKETS would not reach the last row */
    sq.bucket_rows = max(max(sq.cell_rows / HISTO_EYE_ROW_SUB, 1u),
                         (height + HISTO_EYE_ROW_BUCKETS - 1)
                             / HISTO_EYE_ROW_BUCKETS);
    sq.cells2 = min((height + sq.bucket_rows - 1) / sq.bucket_rows,
                    (uint)HISTO_EYE_ROW_BUCKETS);
    return sq;
}

/* The scratch's layout (struct scratch) once cells2 is known. */
static struct scratch scratch_layout(local uint *tile, uint tile_words,
                                     uint ncells, uint cells2)
{
    struct scratch sc;
    sc.cells1 = ncells;
    /* the most replicas that fit, a power of two (a work-item's replica
     * is then lid & (copies - 1)), found without a division */
    const uint avail = tile_words - HISTO_EYE_COL_BUCKETS - 1 - cells2;
    sc.copies = HISTO_EYE_COPIES;
    while (sc.copies > 1 && sc.copies * (ncells + cells2) > avail)
        sc.copies >>= 1;
    sc.bucket = tile;
    sc.cell1 = tile + HISTO_EYE_COL_BUCKETS;
    sc.cell2 = sc.cell1 + sc.cells1 * sc.copies;
    sc.best_key = sc.cell2 + cells2 * sc.copies;
    sc.run = sc.best_key + 1;
    return sc;
}

/* The samples laid out in order at xs (past the scratch), and equal[]
 * zeroed, for count_equal after the next barrier. */
static void post_samples(global const uint *restrict in,
                         const struct sampling *sp, uint mine,
                         local uint *xs, local uint *equal, uint lid,
                         uint size)
{
    uint v = mine;
    for (uint s = lid; s < sp->samples; s += size) {
        const uint next = sample_after(in, sp, s, size);
        xs[s] = v;
        v = next;
    }
    for (uint c = lid; c < HISTO_EYE_COPIES; c += size)
        equal[c] = 0;
}

/* The samples whose next value (in their run) falls in the same counter
 * word, into equal[] (replicas spread a hammered word's atomics), from
 * post_samples(); read after a later barrier. */
static void count_equal(const struct sampling *sp, local const uint *xs,
                        local uint *equal, uint lid, uint size)
{
    for (uint s = lid; s < sp->samples; s += size)
        if (has_next(sp, s) && (xs[s] >> 1) == (xs[s + 1] >> 1))
            atomic_inc(&equal[lid % HISTO_EYE_COPIES]);
}

/* Pass 2: samples per whole-row cell and per 2-D row bucket, each
 * work-item into its replica, one sample at a time: a cell is worked out
 * only for a sample that exists (the divisions by run-time sizes are
 * most of the pass). */
static void sample_cells(global const uint *restrict in,
                         const struct sampling *sp, uint mine,
                         const struct scratch *sc, const struct span2 *sq,
                         uint width, uint width_shift, ulong width_recip,
                         uint tile_bins, uint cell_tiles, uint lid,
                         uint size)
{
    const uint cells1 = sc->cells1, cells2 = sq->cells2;
    const uint copy = lid & (sc->copies - 1);
    local uint *cell1 = sc->cell1 + copy * cells1;
    local uint *cell2 = sc->cell2 + copy * cells2;
    uint v = mine;
    for (uint s = lid; s < sp->samples; s += size) {
        const uint next = sample_after(in, sp, s, size);
        /* v < nbins (checked by the host), so v's cell < cells1 */
        const uint t = v / tile_bins;
        atomic_inc(&cell1[cell_tiles == 1 ? t : t / cell_tiles]);
        if (cells2 != 0) {
            const uint row = width_div(v, width_shift, width_recip);
            if (v - row * width - sq->c0 < sq->cols)
                atomic_inc(&cell2[min(row / sq->bucket_rows, cells2 - 1)]);
        }
        v = next;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* The replicas summed into the first; the densest whole-row cell, lowest
 * index on ties, in one step: each cell's total goes into one atomic_max
 * as count << 16 | (0xffff - cell). Counts <= HISTO_EYE_SAMPLES (a few
 * thousand) and cells <= 1024 fit. */
static void sum_cells(const struct scratch *sc, uint cells2, uint lid,
                      uint size)
{
    const uint cells1 = sc->cells1;
    for (uint c = lid; c < cells1 + cells2; c += size) {
        const bool first = c < cells1;
        local uint *grid = first ? sc->cell1 : sc->cell2;
        const uint k = first ? c : c - cells1;
        const uint grid_cells = first ? cells1 : cells2;
        uint total = grid[k];
        for (uint r = 1; r < sc->copies; ++r)
            total += grid[r * grid_cells + k];
        grid[k] = total;
        if (first && total != 0)
            atomic_max(&sc->best_key[0], total << 16 | (0xffff - k));
    }
}
