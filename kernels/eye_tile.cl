/*
 * eye_tile.cl - one pass over the input: find the eye, count it in
 * local-memory tiles, send the rest to global atomics.
 *
 * Eye. Every work-group reads the same HISTO_EYE_SAMPLES values (runs of
 * HISTO_EYE_RUN consecutive values at evenly spaced points: whole memory
 * sectors, shared through the cache by all groups) and counts them per
 * cell, a tile-sized range of bins (or cell_tiles tiles, where more than
 * the ncells the host allows would be needed: the cells always cover the
 * whole histogram evenly, so no cell gathers the rest of it and draws the
 * window to an empty band), in local memory. The whole-row window is
 * grown from the densest cell, one neighbouring cell at a time (the
 * denser side first), while the next cell holds at least min_samples
 * samples and at most max_tiles tiles are taken: a tile pays for
 * re-reading its batch's input only where it catches enough values,
 * otherwise global atomics are cheaper. For large inputs every group also
 * counts the samples' columns, cuts the sparse columns at both sides and,
 * where what is left spans at most half a row, counts the samples in
 * those columns per bucket of rows (about 1/HISTO_EYE_ROW_SUB of a tile
 * of those columns): a 2-D window of t tiles is placed where t tiles'
 * worth of buckets hold the most samples, and t grows while each tile
 * more catches min_samples_2d more. Sliding by buckets centres the window
 * on the eye; a fixed grid of cells would make the same eye take 2 or 3
 * tiles by where its centre fell (docs/design.md). The 2-D window is
 * taken where it needs at most half the tiles of whole rows (or whole rows
 * find no window). Every group computes the same window (no host round
 * trip, no extra kernel); group 0 publishes it in eye[] (layout in
 * params.h) for the reduction. The estimate affects only speed. The
 * densest cell is found with one local atomic_max per cell (barriers cost
 * ~0.4 us each on an H200, a tree took nine); the growth is a short serial
 * walk.
 *
 * Grid. The groups are re-dealt once the window is known: with T tiles the
 * input splits into B = groups / T batches (or the B given by the host),
 * group g counting tile g % T of batch g / T. Every group of a batch reads
 * the batch's whole slice but counts only its own tile's bins, with local
 * atomics that contend only inside the group. The values outside the
 * window are shared out: tile t sends those of the t-th part of the slice
 * to `outer`, a full-size 32-bit histogram, with global atomics. With no
 * tile (a flat distribution) every group takes its own slice to `outer`.
 *
 * Counters. Two 16-bit counters per 32-bit word double the rows a tile
 * holds. A work-item reads a counter before adding to it and adds only
 * while it shows less than 255, so a counter reaches 255 exactly when its
 * true count does (an increment is dropped only once 255 are counted) and
 * ends at most 255 plus one increment per work-item of the group (each
 * work-item's read precedes its add, and after its add it reads again):
 * far below 65536, so it never carries into its neighbour. The add's
 * result is not used, so nothing waits for it; a bin many work-items
 * share costs a broadcast read once saturated, and a work-item remembers
 * the last counter it found saturated, so a run of equal values (one bin
 * hammered) costs a compare each. Values are read as uint4, four quads
 * per step to keep loads in flight. (8-bit counters, four a word, would
 * need a compare-and-swap to stop at 255 without carrying into the
 * neighbour: 3-8x slower on an H100, docs/design.md.)
 *
 * Copies. The replicated strategy runs these kernels with `replicas` R
 * copies of the tile per group (the eye strategy with 1): copy c holds
 * tile_bins counters from word c * tile_bins / 2, work-item lid counts
 * into copy lid % R, and the copies are added up as the tile is written
 * out. 1/R of the work-items contend for a counter, against 1/R of the
 * rows per copy, so a window takes more tiles and its batch is re-read
 * more often. The host plans tile_bins for one copy.
 *
 * Each tile leaves saturated to 8 bits in `partial`, laid out
 * [batch][tile][bins of the tile, row by row], for eye_reduce.cl.
 *
 * Group size. Every loop over samples, buckets, cells, values and bins
 * strides by the group's size, and the serial steps are one work-item's,
 * so a group of any size, down to one work-item, gives the same window
 * and the same counts (tests/run.sh caps groups at 1, 2, 3, 7, 8, 32).
 */

/* Sample s of the HISTO_EYE_SAMPLES: runs of HISTO_EYE_RUN consecutive
 * values at `stride` apart (or the whole input when it is that small). */
static uint sample_index(uint s, uint stride)
{
    return stride ? (s / HISTO_EYE_RUN) * stride + s % HISTO_EYE_RUN : s;
}

/* The copies of each tile a group counts into (see Copies above): the
 * eye strategy builds with HISTO_ONE_COPY=1, a constant the compiler folds;
 * the replicated strategy with 0, taking the kernel argument. */
#if HISTO_ONE_COPY
#define COPIES 1u
#else
#define COPIES replicas
#endif

/* The counters' bound (see Counters above): 255 plus one increment per
 * work-item must fit 16 bits. The host never launches groups over
 * HISTO_TILE_GROUP_MAX (eye.c); this stops a build for a larger one. */
#if HISTO_TILE_REQD_SIZE > HISTO_TILE_GROUP_BOUND
#error "16-bit tile counters cannot hold 255 plus one increment per work-item of so large a group"
#endif

/* One value into its tile counter, unless the counter already shows 255:
 * read first (a broadcast when many work-items share a bin, so a
 * saturated bin costs no atomic), then add without using the result.
 * *sat remembers the last offset this work-item found saturated, so a run
 * of equal values (one bin hammered) costs one compare each.
 *
 * The read is a plain (volatile) load that may meet other work-items'
 * atomic_add on the same word. Under OpenCL C 1.2, which the kernels are
 * built as, it returns the word before or after such an add, and either
 * keeps the bound above. It is the one access the kernel checker accepts
 * a data race on (tests/check-kernels.sh finds these two lines by their
 * marks; docs/design.md says why it is not an atomic load). */
static void tile_add(local uint *tile, uint offset, uint *sat)
{
    if (offset == *sat)
        return;
    const uint shift = (offset & 1) << 4;
    volatile local uint *word = tile + (offset >> 1);
    if (((*word >> shift) & 0xffff) < HISTO_SATURATE) /* race: pre-read */
        atomic_add(word, 1u << shift);                 /* race: its add */
    else
        *sat = offset;
}

/* Where this group counts. Whole rows (cols == 0): the window is bins
 * [lo, lo + len) of the flat histogram, the tile [tile_lo, tile_lo +
 * tile_len). 2-D (cols > 0): the window is `cols` columns from bin lo
 * (its first row and column) over len bins of the flat histogram (first
 * to last row); the tile is `cols` columns from bin tile_lo over
 * tile_span bins, its counters row by row. */
struct place {
    uint lo, len, tile_lo, tile_len, cols, tile_span;
};

/* Whether d bins past a 2-D window's (or tile's) first bin, within its
 * span, lies in its columns; *offset = the bin's counter, row by row. */
static bool in_cols(uint d, uint cols, uint *offset)
{
    const uint r = d / HISTO_WIDTH;
    const uint c = d - r * HISTO_WIDTH;
    *offset = r * cols + c;
    return c < cols;
}

/* One value: into the tile, or to `outer` when it lies outside the
 * window and this group is in charge of it. A value left of a 2-D
 * window's columns gets a column offset >= W - c0 >= cols: outside. The
 * differences are unsigned: a value below the window's (or tile's) first
 * bin wraps to at least 2^32 - lo, past its end (windows end at or before
 * nbins <= 2^32 - 1), so one compare tests both sides. */
static inline void count(local uint *tile, uint *sat, global uint *outer,
                         uint v, const struct place *pl, bool duty,
                         const bool two_d)
{
    uint offset;
    if (!two_d) {
        offset = v - pl->tile_lo;
        if (offset < pl->tile_len)
            tile_add(tile, offset, sat);
        else if (duty && v - pl->lo >= pl->len)
            atomic_inc(&outer[v]);
        return;
    }
    const uint d = v - pl->tile_lo;
    if (d < pl->tile_span && in_cols(d, pl->cols, &offset)) {
        tile_add(tile, offset, sat);
    } else if (duty) {
        const uint e = v - pl->lo;
        if (!(e < pl->len && in_cols(e, pl->cols, &offset)))
            atomic_inc(&outer[v]);
    }
}

static inline void count4(local uint *tile, uint *sat, global uint *outer,
                          uint4 v, const struct place *pl, bool duty,
                          const bool two_d)
{
    count(tile, sat, outer, v.x, pl, duty, two_d);
    count(tile, sat, outer, v.y, pl, duty, two_d);
    count(tile, sat, outer, v.z, pl, duty, two_d);
    count(tile, sat, outer, v.w, pl, duty, two_d);
}

/* The group's quads [from_q, to_q) of the input, four quads a step to
 * keep loads in flight; `duty` for quads [duty_lo, duty_hi). Called with
 * two_d a constant, so each kind of window gets a loop of its own. */
static inline void count_slice(global const uint *restrict in, uint n,
                               local uint *tile, global uint *outer,
                               const struct place *pl, uint from_q,
                               uint to_q, uint duty_lo, uint duty_hi,
                               const bool two_d)
{
    const uint size = get_local_size(0);
    /* n <= 2^31 (checked by the host): q stays below 2^29 + 4 * size,
     * so q + 3 * size and 4 * q fit in uint. */
    const uint full_q = n / 4; /* quads lying wholly inside the input */
    uint sat = ~0u;
    uint q = from_q + get_local_id(0);
    const uint quad_end = min(to_q, full_q);
    for (; q + 3 * size < quad_end; q += 4 * size) {
        uint4 v[4];
        for (uint j = 0; j < 4; ++j)
            v[j] = vload4(q + j * size, in);
        for (uint j = 0; j < 4; ++j) {
            const uint qj = q + j * size;
            count4(tile, &sat, outer, v[j], pl, qj >= duty_lo && qj < duty_hi,
                   two_d);
        }
    }
    for (; q < to_q; q += size) {
        const bool duty = q >= duty_lo && q < duty_hi;
        if (q < full_q) {
            count4(tile, &sat, outer, vload4(q, in), pl, duty, two_d);
        } else {
            for (uint i = 4 * q; i < n; ++i)
                count(tile, &sat, outer, in[i], pl, duty, two_d);
        }
    }
}

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
         * tiles over at least 32 cells (eye.c), so this cannot wrap */
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
 * window on the eye wherever it lies. Each work-item takes
 * HISTO_EYE_SLIDE_SPAN starting buckets and posts one atomic_max per t:
 * a few dozen on each word instead of one per bucket. */
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
    for (uint g = lid; g < spans; g += size) {
        uint key[HISTO_EYE_2D_MAX_TILES];
        for (uint t = 0; t < HISTO_EYE_2D_MAX_TILES; ++t)
            key[t] = 0;
        const uint p_end = min((g + 1) * HISTO_EYE_SLIDE_SPAN, buckets);
        for (uint p = g * HISTO_EYE_SLIDE_SPAN; p < p_end; ++p) {
            uint c = 0;
            for (uint t = 0; t < HISTO_EYE_2D_MAX_TILES; ++t) {
                const uint i = p + t * sub;
                c += i < buckets ? run[i] : 0;
                key[t] = max(key[t], c << 16 | (0xffff - p));
            }
        }
        for (uint t = 0; t < HISTO_EYE_2D_MAX_TILES; ++t)
            if (t < max_t)
                atomic_max(&best2[t], key[t]);
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

/* The kernel's body; allow_2d (a constant at each entry point below)
 * adds the 2-D window: the host runs eye_tile_2d only for inputs large
 * enough for it (HISTO_EYE_2D_MIN_VALUES values, eye.c). */
static inline void eye_tile_body(global const uint *restrict in, uint n,
                                 uint nbins, uint tile_bins, uint tile_words,
                                 uint ncells, uint cell_tiles,
                                 uint max_tiles,
                                 uint min_samples, uint min_samples_2d,
                                 uint forced_batches, uint replicas,
                                 local uint *tile,
                                 global uchar *restrict partial,
                                 global uint *restrict outer,
                                 global uint *restrict eye,
                                 local uint *small, const bool allow_2d)
{
    /* first cell (row) and cells (tiles) of each window; the column
     * buckets' edges; the best 2-D windows of 1, 2, ... tiles */
    local uint *window = small, *window2 = small + 2, *edges = small + 4;
    local uint *best2 = small + 6;
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint group = get_group_id(0);
    const uint groups = get_num_groups(0);
    const uint samples = min(n, (uint)HISTO_EYE_SAMPLES);
    const uint points = samples / HISTO_EYE_RUN;
    const uint stride = n > HISTO_EYE_SAMPLES
                      ? (n - HISTO_EYE_RUN) / (points - 1) : 0;
    const uint height = nbins / HISTO_WIDTH;
    /* A 2-D window needs whole quads of columns (the reduction reads four
     * bins at a time) and a whole row per tile. */
#if HISTO_WIDTH % 4 == 0 && HISTO_WIDTH >= 8
    const bool can_2d = allow_2d && HISTO_WIDTH <= tile_bins;
#else
    const bool can_2d = false;
#endif

    /* --- the eye, in the tile's memory: column buckets, `copies`
     * replicas of the whole-row cells' and the 2-D row buckets' counters
     * (spreading the contention of dense cells), a word for the densest
     * cell's key, then slide()'s sums per bucket --- */
    local uint *bucket = tile;
    local uint *cell = tile + HISTO_EYE_COL_BUCKETS;
    const uint scratch = min(tile_words, HISTO_EYE_COL_BUCKETS
                                         + (ncells + (can_2d
                                                      ? HISTO_EYE_ROW_BUCKETS
                                                      : 0))
                                               * HISTO_EYE_COPIES
                                         + 2);
    /* this work-item's first sample, loaded before the scratch is zeroed
     * so that its wait overlaps the zeroing and a barrier (both passes
     * use it) */
    const uint mine = lid < samples ? in[sample_index(lid, stride)] : 0;
    for (uint i = lid; i < scratch; i += size)
        tile[i] = 0;
    if (lid == 0) {
        edges[0] = HISTO_EYE_COL_BUCKETS - 1;
        edges[1] = 0;
    }
    for (uint t = lid; t < HISTO_EYE_2D_MAX_TILES; t += size)
        best2[t] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    /* Pass 1 (2-D candidates only): samples per column bucket. All of a
     * step's loads are issued before its atomics. */
    if (can_2d) {
        for (uint base = lid; base < samples; base += 8 * size) {
            uint b[8];
            for (uint j = 0; j < 8; ++j) {
                const uint s = base + j * size;
                const uint v = s == lid ? mine
                             : s < samples ? in[sample_index(s, stride)] : 0;
                b[j] = s < samples
                     ? (uint)((ulong)(v % HISTO_WIDTH) * HISTO_EYE_COL_BUCKETS
                              / HISTO_WIDTH)
                     : HISTO_EYE_COL_BUCKETS;
            }
            for (uint j = 0; j < 8; ++j)
                if (b[j] < HISTO_EYE_COL_BUCKETS)
                    atomic_inc(&bucket[b[j]]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        column_window(bucket, edges, samples / HISTO_EYE_COL_TAIL_INV, lid,
                      size);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    /* Columns [c0, c0 + cols): whole quads; none (cols == 0) where the
     * sampled columns span more than half a row. */
    uint c0 = 0, cols = 0, cell_rows = 1, cells2 = 0, bucket_rows = 1;
    if (can_2d && edges[0] <= edges[1]) {
        c0 = (uint)((ulong)edges[0] * HISTO_WIDTH / HISTO_EYE_COL_BUCKETS)
             & ~3u;
        uint c1 = (uint)(((ulong)edges[1] + 1) * HISTO_WIDTH
                         / HISTO_EYE_COL_BUCKETS);
        c1 = min((c1 + 3) & ~3u, (uint)HISTO_WIDTH);
        if (2 * (c1 - c0) <= HISTO_WIDTH) {
            cols = c1 - c0;
            cell_rows = tile_bins / cols;
            /* row buckets of about 1/HISTO_EYE_ROW_SUB of a tile, or
             * taller where HISTO_EYE_ROW_BUCKETS would not reach the
             * last row */
            bucket_rows = max(max(cell_rows / HISTO_EYE_ROW_SUB, 1u),
                              (height + HISTO_EYE_ROW_BUCKETS - 1)
                                  / HISTO_EYE_ROW_BUCKETS);
            cells2 = min((height + bucket_rows - 1) / bucket_rows,
                         (uint)HISTO_EYE_ROW_BUCKETS);
        }
    }
    /* Whole-row cells (cell1) and, for a 2-D candidate, buckets of
     * bucket_rows rows of its columns (cell2), side by side, then a word
     * for the densest cell's key. */
    const uint cells1 = ncells;
    const uint copies = max(1u, min((uint)HISTO_EYE_COPIES,
                                    (tile_words - HISTO_EYE_COL_BUCKETS - 1
                                     - cells2)
                                        / (cells1 + cells2)));
    local uint *cell1 = cell;
    local uint *cell2 = cell + cells1 * copies;
    local uint *best_key = cell2 + cells2 * copies; /* one word */
    /* per bucket, the samples of a tile's worth of buckets from it
     * (slide()) */
    local uint *run = best_key + 1;

    /* Pass 2: samples per cell. */
    for (uint base = lid; base < samples; base += 8 * size) {
        uint k1[8], k2[8];
        for (uint j = 0; j < 8; ++j) {
            const uint s = base + j * size;
            const uint v = s == lid ? mine
                         : s < samples ? in[sample_index(s, stride)] : 0;
            const uint row = v / HISTO_WIDTH;
            const uint col = v - row * HISTO_WIDTH;
            /* v < nbins (checked by the host), so v's cell < cells1 */
            const uint t = v / tile_bins;
            k1[j] = s < samples ? (cell_tiles == 1 ? t : t / cell_tiles)
                                : cells1;
            k2[j] = s < samples && col - c0 < cols
                  ? min(row / bucket_rows, cells2 - 1) : cells2;
        }
        for (uint j = 0; j < 8; ++j) {
            if (k1[j] < cells1)
                atomic_inc(&cell1[(lid % copies) * cells1 + k1[j]]);
            if (k2[j] < cells2)
                atomic_inc(&cell2[(lid % copies) * cells2 + k2[j]]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* The replicas summed; the densest whole-row cell, lowest index on
     * ties, in one step: each cell's total goes into one atomic_max as
     * count << 16 | (0xffff - cell). Counts <= HISTO_EYE_SAMPLES (a few
     * thousand) and cells <= 1024 fit. */
    for (uint c = lid; c < cells1 + cells2; c += size) {
        const bool first = c < cells1;
        local uint *grid = first ? cell1 : cell2;
        const uint k = first ? c : c - cells1;
        const uint grid_cells = first ? cells1 : cells2;
        uint total = grid[k];
        for (uint r = 1; r < copies; ++r)
            total += grid[r * grid_cells + k];
        grid[k] = total;
        if (first && total != 0)
            atomic_max(&best_key[0], total << 16 | (0xffff - k));
    }
    /* 2-D windows of at most HISTO_EYE_2D_MAX_TILES tiles (one is taken
     * only with at most half the tiles of whole rows, which has at most
     * HISTO_MAX_TILES), and never more than the rows hold (cell_rows is 1
     * without a 2-D candidate, else height <= nbins / 8: no wrap) */
    const uint max_tiles2 = min(min(max_tiles,
                                    (uint)HISTO_EYE_2D_MAX_TILES),
                                (height + cell_rows - 1) / cell_rows);
    if (cells2 != 0) {
        barrier(CLK_LOCAL_MEM_FENCE); /* the buckets are summed */
        slide(cell2, cells2, max(cell_rows / bucket_rows, 1u), max_tiles2,
              run, best2, lid, size);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* Both windows chosen at once, by work-items of different warps. */
    if (lid == 0)
        grow(cell1, cells1, cell_tiles, (nbins - 1) / tile_bins + 1,
             best_key[0], min_samples, max_tiles, window);
    if (lid == (size > 32 ? 32 : 0) && cells2 != 0)
        pick(best2, max_tiles2, min_samples_2d, bucket_rows, cell_rows,
             height, window2);
    barrier(CLK_LOCAL_MEM_FENCE);
    /* The 2-D window where it needs at most half the tiles of whole rows
     * (each value then costs a row and column split, which fewer tiles
     * must pay for), or where whole rows find no window at all. */
    const bool use_2d = cells2 != 0 && window2[1] != 0
                     && (window[1] == 0 || 2 * window2[1] <= window[1]);
    const uint tiles = use_2d ? window2[1] : window[1];

    struct place pl;
    pl.cols = use_2d ? cols : 0;
    uint tile_stride; /* bins from one tile to the next in `partial` */
    uint win_rows = 0;
    if (!use_2d) {
        pl.lo = window[0] * tile_bins;
        pl.len = min(tiles * tile_bins, nbins - pl.lo);
        tile_stride = tile_bins;
    } else {
        const uint r0 = window2[0];
        pl.lo = r0 * HISTO_WIDTH + c0;
        win_rows = min(tiles * cell_rows, height - r0);
        /* bins from the first to one past the last in the window */
        pl.len = (win_rows - 1) * HISTO_WIDTH + cols;
        tile_stride = cell_rows * cols;
    }
    const uint per_batch = max(tiles, 1u);
    /* More batches mean more partial tiles to write and add up: at most
     * HISTO_MAX_BATCHES. Without tiles there are no partials and every
     * group works. */
    uint batches = forced_batches ? forced_batches : groups / per_batch;
    if (!forced_batches && tiles != 0)
        batches = min(batches, (uint)HISTO_MAX_BATCHES);
    if (group == 0 && lid == 0) {
        eye[HISTO_EYE_LO] = pl.lo;
        eye[HISTO_EYE_HI] = pl.lo + pl.len;
        eye[HISTO_EYE_TILES] = tiles;
        eye[HISTO_EYE_BATCHES] = batches;
        eye[HISTO_EYE_COLS] = pl.cols;
        eye[HISTO_EYE_ROWS] = win_rows;
        eye[HISTO_EYE_STRIDE] = tile_stride;
    }
    const uint batch = group / per_batch;
    const uint t = group % per_batch;
    if (batch >= batches)
        return; /* uniform across the group: no barrier is skipped unevenly */

    /* --- this group's tile (none when tiles == 0) --- */
    if (!use_2d) {
        pl.tile_lo = pl.lo + t * tile_bins;
        pl.tile_len = tiles ? min(tile_bins, pl.lo + pl.len - pl.tile_lo)
                            : 0;
        pl.tile_span = 0;
    } else {
        const uint rows = min(cell_rows, win_rows - t * cell_rows);
        pl.tile_lo = pl.lo + t * cell_rows * HISTO_WIDTH;
        pl.tile_span = (rows - 1) * HISTO_WIDTH + cols;
        pl.tile_len = rows * cols;
    }
    /* The scratch is free: the windows were chosen (from it) before the
     * last barrier and live in small[]. Each copy of the tile (see Copies
     * above) is zeroed; this work-item counts into its own. */
    const uint tile_len = pl.tile_len;
    const uint copy_words = tile_bins / 2;
    const uint zero_words = (tile_len + 1) / 2;
    for (uint r = 0; r < COPIES; ++r)
        for (uint i = lid; i < zero_words; i += size)
            tile[r * copy_words + i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    local uint *my_copy = tile + (lid % COPIES) * copy_words;

    /* Slices are whole multiples of 4 values except the last. n <= 2^31,
     * so these uint indexes cannot wrap. */
    const uint quads = (n + 3) / 4;
    const uint slice_q = (quads + batches - 1) / batches;
    const uint start_q = min(batch * slice_q, quads);
    const uint end_q = min(start_q + slice_q, quads);
    /* the part of the slice whose out-of-window values are ours */
    const uint part_q = (end_q - start_q + per_batch - 1) / per_batch;
    const uint duty_lo = start_q + min(t * part_q, end_q - start_q);
    const uint duty_hi = min(duty_lo + part_q, end_q);
    /* a group without a tile needs only its own part */
    const uint from_q = tiles ? start_q : duty_lo;
    const uint to_q = tiles ? end_q : duty_hi;
    if (allow_2d && use_2d)
        count_slice(in, n, my_copy, outer, &pl, from_q, to_q, duty_lo,
                    duty_hi, true);
    else
        count_slice(in, n, my_copy, outer, &pl, from_q, to_q, duty_lo,
                    duty_hi, false);
    barrier(CLK_LOCAL_MEM_FENCE);

    global uchar *dst = partial
                      + ((ulong)batch * per_batch + t) * tile_stride;
    /* four bins (two words) per store, the copies' counts added (each at
     * most 255 plus one increment per work-item, so their sum fits) and
     * saturated; tile_stride and dst are multiples of 4 */
    for (uint i = 4 * lid; i < tile_len; i += 4 * size) {
        if (i + 4 <= tile_len) {
            uint4 c = (uint4)(0);
            for (uint r = 0; r < COPIES; ++r) {
                /* words i/2, i/2 + 1 of copy r */
                const uint2 w = vload2(i / 4, tile + r * copy_words);
                c += (uint4)(w.x & 0xffff, w.x >> 16, w.y & 0xffff,
                             w.y >> 16);
            }
            vstore4(convert_uchar4(min(c, (uint4)(HISTO_SATURATE))), i / 4,
                    dst);
        } else {
            for (uint j = i; j < tile_len; ++j) {
                uint c = 0;
                for (uint r = 0; r < COPIES; ++r)
                    c += (tile[r * copy_words + (j >> 1)] >> ((j & 1) << 4))
                       & 0xffff;
                dst[j] = (uchar)min(c, (uint)HISTO_SATURATE);
            }
        }
    }
}

/* The host builds the tile kernels for the one work-group size it
 * launches them with, HISTO_TILE_REQD_SIZE (eye.c): the compiler then fits
 * registers to that size, and the runtime says at build time whether it
 * runs it (NVIDIA's reports a CL_KERNEL_WORK_GROUP_SIZE of 256 for every
 * kernel, yet builds and runs these at 1024). 0 (a runtime that refused to
 * build them so): no attribute, and groups of the size it reports. */
#if HISTO_TILE_REQD_SIZE > 0
#define TILE_GROUP_SIZE \
    __attribute__((reqd_work_group_size(HISTO_TILE_REQD_SIZE, 1, 1)))
#else
#define TILE_GROUP_SIZE
#endif

/* Whole-row windows only: for inputs the host knows cannot take a 2-D
 * window (eye.c), without its sampling pass, second grid of cells and
 * second counting loop (they cost 2-8 us an iteration on an H200:
 * docs/design.md). */
TILE_GROUP_SIZE
kernel void eye_tile(global const uint *restrict in, uint n, uint nbins,
                     uint tile_bins, uint tile_words, uint ncells,
                     uint cell_tiles, uint max_tiles, uint min_samples,
                     uint min_samples_2d, uint forced_batches,
                     uint replicas, local uint *tile,
                     global uchar *restrict partial,
                     global uint *restrict outer, global uint *restrict eye)
{
    local uint small[6 + HISTO_EYE_2D_MAX_TILES];
    eye_tile_body(in, n, nbins, tile_bins, tile_words, ncells, cell_tiles,
                  max_tiles, min_samples, min_samples_2d, forced_batches,
                  replicas, tile, partial, outer, eye, small, false);
}

/* Whole-row or 2-D windows, whichever the samples favour. Built without
 * reqd_work_group_size: given it, NVIDIA's compiler drops the register
 * cap of -cl-nv-maxrregcount=32 for this kernel (55 registers, one group
 * of 1024 a multiprocessor instead of two: 91 instead of 75 us on an
 * H100's 16.7M-value wide eye). The host runs it at the size the runtime
 * accepted for eye_tile in the same program (eye.c, tile_group). */
kernel void eye_tile_2d(global const uint *restrict in, uint n, uint nbins,
                        uint tile_bins, uint tile_words, uint ncells,
                        uint cell_tiles, uint max_tiles, uint min_samples,
                        uint min_samples_2d, uint forced_batches,
                        uint replicas, local uint *tile,
                        global uchar *restrict partial,
                        global uint *restrict outer,
                        global uint *restrict eye)
{
    local uint small[6 + HISTO_EYE_2D_MAX_TILES];
    eye_tile_body(in, n, nbins, tile_bins, tile_words, ncells, cell_tiles,
                  max_tiles, min_samples, min_samples_2d, forced_batches,
                  replicas, tile, partial, outer, eye, small, true);
}
