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
 * tile (a flat distribution) every group takes its own slice into the
 * buckets (below) where the host gave them room, else to `outer`.
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
 * hammered) costs a compare each. In eye_tile, where no counter can
 * pass 65535 (the longest slice holds at most HISTO_PLAIN_MAX_VALUES
 * values, in whole quads: 65532), the read is left out and every value
 * is a plain add, saturated only when the tile is written out, unless
 * the eye's samples show a bin hammered (at least 1/HISTO_EYE_HOT_INV of
 * them in the same counter word as the value after them), where adds
 * without the read would all meet on one word. eye_tile_2d always reads
 * first: there the look and the plain loops cost its other inputs more
 * than the few whose slices are short enough gain (docs/design.md).
 * Values are read as uint4, four quads per step to keep loads in flight.
 * (8-bit counters, four a word, would need a compare-and-swap to stop at
 * 255 without carrying into the neighbour: 3-8x slower on an H100,
 * docs/design.md.)
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
 *
 * Uniform values. What every work-item of a group works out alike (the
 * window, the grid, a slice's bounds) costs the issue slots of all of
 * them: two groups of 1024 on a multiprocessor, 64 warps, make each
 * instruction of it some 16 cycles of the multiprocessor's, and a
 * division by a run-time value is some 25 instructions: a few of them a
 * work-item show in an iteration's time (docs/design.md, "Sampling the
 * eye"). So divisors are constants where they can be, and one tile a
 * batch (the common case) takes no division at all.
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

/* One value into its tile counter. plain (a constant at each call): an
 * add, nothing read (the caller knows the counter cannot pass 65535).
 * Else unless the counter already shows 255:
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
static void tile_add(local uint *tile, uint offset, uint *sat,
                     const bool plain)
{
    const uint shift = (offset & 1) << 4;
    volatile local uint *word = tile + (offset >> 1);
    if (plain) {
        atomic_add(word, 1u << shift);
        return;
    }
    if (offset == *sat)
        return;
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
                         const bool two_d, const bool plain)
{
    uint offset;
    if (!two_d) {
        offset = v - pl->tile_lo;
        if (offset < pl->tile_len)
            tile_add(tile, offset, sat, plain);
        else if (duty && v - pl->lo >= pl->len)
            atomic_inc(&outer[v]);
        return;
    }
    const uint d = v - pl->tile_lo;
    if (d < pl->tile_span && in_cols(d, pl->cols, &offset)) {
        tile_add(tile, offset, sat, plain);
    } else if (duty) {
        const uint e = v - pl->lo;
        if (!(e < pl->len && in_cols(e, pl->cols, &offset)))
            atomic_inc(&outer[v]);
    }
}

static inline void count4(local uint *tile, uint *sat, global uint *outer,
                          uint4 v, const struct place *pl, bool duty,
                          const bool two_d, const bool plain)
{
    count(tile, sat, outer, v.x, pl, duty, two_d, plain);
    count(tile, sat, outer, v.y, pl, duty, two_d, plain);
    count(tile, sat, outer, v.z, pl, duty, two_d, plain);
    count(tile, sat, outer, v.w, pl, duty, two_d, plain);
}

/* The group's quads [from_q, to_q) of the input, four quads a step to
 * keep loads in flight; `duty` for quads [duty_lo, duty_hi). Called with
 * two_d and plain constants, so each kind of window and of add gets a
 * loop of its own. */
static inline void count_slice(global const uint *restrict in, uint n,
                               local uint *tile, global uint *outer,
                               const struct place *pl, uint from_q,
                               uint to_q, uint duty_lo, uint duty_hi,
                               const bool two_d, const bool plain)
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
                   two_d, plain);
        }
    }
    for (; q < to_q; q += size) {
        const bool duty = q >= duty_lo && q < duty_hi;
        if (q < full_q) {
            count4(tile, &sat, outer, vload4(q, in), pl, duty, two_d, plain);
        } else {
            for (uint i = 4 * q; i < n; ++i)
                count(tile, &sat, outer, in[i], pl, duty, two_d, plain);
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

/* The kernel's scalar arguments (eye.c sets them; eye_tile() below says
 * what each is). */
struct eye_args {
    uint n, nbins, tile_bins, tile_words, ncells, cell_tiles, max_tiles,
         min_samples, min_samples_2d, forced_batches, replicas, bucket_cap;
};

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

static struct sampling sampling(uint n)
{
    struct sampling sp;
    sp.samples = min(n, (uint)HISTO_EYE_SAMPLES);
    /* points - 1 apart, points = HISTO_EYE_SAMPLES / HISTO_EYE_RUN where
     * n is larger: a constant divisor (see "Uniform values" above) */
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

/* Pass 1 (2-D candidates only): samples per column bucket, then the
 * columns' edges. */
static void sample_columns(global const uint *restrict in,
                           const struct sampling *sp, uint mine,
                           local uint *bucket, local struct eye_small *sm,
                           uint lid, uint size)
{
    uint v = mine;
    for (uint s = lid; s < sp->samples; s += size) {
        const uint next = sample_after(in, sp, s, size);
        atomic_inc(&bucket[(uint)((ulong)(v % HISTO_WIDTH)
                                  * HISTO_EYE_COL_BUCKETS / HISTO_WIDTH)]);
        v = next;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    column_window(bucket, sm->edges, sp->samples / HISTO_EYE_COL_TAIL_INV,
                  lid, size);
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* The 2-D candidate from the columns' edges: whole quads of columns;
 * none where the sampled columns span more than half a row. */
static struct span2 column_span(local const struct eye_small *sm,
                                uint tile_bins, uint height, bool can_2d)
{
    struct span2 sq;
    sq.c0 = 0;
    sq.cols = 0;
    sq.cell_rows = 1;
    sq.bucket_rows = 1;
    sq.cells2 = 0;
    if (!can_2d || sm->edges[0] > sm->edges[1])
        return sq;
    const uint c0 = (uint)((ulong)sm->edges[0] * HISTO_WIDTH
                           / HISTO_EYE_COL_BUCKETS) & ~3u;
    uint c1 = (uint)(((ulong)sm->edges[1] + 1) * HISTO_WIDTH
                     / HISTO_EYE_COL_BUCKETS);
    c1 = min((c1 + 3) & ~3u, (uint)HISTO_WIDTH);
    if (2 * (c1 - c0) > HISTO_WIDTH)
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
            const uint row = v / HISTO_WIDTH;
            if (v - row * HISTO_WIDTH - sq->c0 < sq->cols)
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
                           bool *use_2d)
{
    uint max_tiles2 = 0;
    if (sq->cells2 != 0) {
        max_tiles2 = min(min(a->max_tiles, (uint)HISTO_EYE_2D_MAX_TILES),
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
 * a bin is hammered (HISTO_EYE_HOT_INV above). */
static uint find_eye(global const uint *restrict in, const struct eye_args *a,
                     local uint *tile, local struct eye_small *sm,
                     bool allow_2d, struct place *pl, uint *win_rows,
                     uint *tile_stride, uint *cell_rows)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const struct sampling sp = sampling(a->n);
    const uint height = a->nbins / HISTO_WIDTH;
    /* A 2-D window needs whole quads of columns (the reduction reads four
     * bins at a time) and a whole row per tile. */
#if HISTO_WIDTH % 4 == 0 && HISTO_WIDTH >= 8
    const bool can_2d = allow_2d && HISTO_WIDTH <= a->tile_bins;
#else
    const bool can_2d = false;
#endif
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
    if (can_2d)
        sample_columns(in, &sp, mine, tile, sm, lid, size);
    const struct span2 sq = column_span(sm, a->tile_bins, height, can_2d);
    const struct scratch sc = scratch_layout(tile, a->tile_words, a->ncells,
                                             sq.cells2);
    sample_cells(in, &sp, mine, &sc, &sq, a->tile_bins, a->cell_tiles, lid,
                 size);
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
                                      &use_2d);
    pl->cols = use_2d ? sq.cols : 0;
    *win_rows = 0;
    *cell_rows = sq.cell_rows;
    if (!use_2d) {
        pl->lo = sm->window[0] * a->tile_bins;
        pl->len = min(tiles * a->tile_bins, a->nbins - pl->lo);
        *tile_stride = a->tile_bins;
    } else {
        const uint r0 = sm->window2[0];
        pl->lo = r0 * HISTO_WIDTH + sq.c0;
        *win_rows = min(tiles * sq.cell_rows, height - r0);
        /* bins from the first to one past the last in the window */
        pl->len = (*win_rows - 1) * HISTO_WIDTH + sq.cols;
        *tile_stride = sq.cell_rows * sq.cols;
    }
    return tiles;
}

/* Tile t of the window in *pl: its first bin, its counters and (2-D) the
 * bins it spans. */
static void place_tile(struct place *pl, uint t, uint tiles, uint tile_bins,
                       uint cell_rows, uint win_rows)
{
    if (pl->cols == 0) {
        pl->tile_lo = pl->lo + t * tile_bins;
        pl->tile_len = tiles ? min(tile_bins, pl->lo + pl->len - pl->tile_lo)
                             : 0;
        pl->tile_span = 0;
    } else {
        const uint rows = min(cell_rows, win_rows - t * cell_rows);
        pl->tile_lo = pl->lo + t * cell_rows * HISTO_WIDTH;
        pl->tile_span = (rows - 1) * HISTO_WIDTH + pl->cols;
        pl->tile_len = rows * pl->cols;
    }
}

/* Zeroes each copy of the tile (see Copies above); the scratch is free:
 * the windows were chosen from it before the last barrier and live in
 * struct eye_small. */
static void zero_tile(local uint *tile, uint tile_len, uint copy_words,
                      uint replicas, uint lid, uint size)
{
    const uint zero_words = (tile_len + 1) / 2;
    for (uint r = 0; r < COPIES; ++r)
        for (uint i = lid; i < zero_words; i += size)
            tile[r * copy_words + i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* The tile into dst, four bins (two words) per store, the copies' counts
 * added (each at most 255 plus one increment per work-item after reads
 * first, or together at most the slice's values after plain adds: their
 * sum fits) and saturated; the tile's stride and dst are multiples of
 * 4. */
static void flush_tile(local const uint *tile, uint tile_len,
                       uint copy_words, uint replicas,
                       global uchar *restrict dst, uint lid, uint size)
{
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

/* Buckets (an iteration without a tile, where bucket_cap != 0). Every
 * value then lies outside the window; instead of a global atomic each,
 * a group sorts its values by bucket (HISTO_BUCKET_BINS consecutive bins)
 * in local memory and appends each bucket's run to that bucket's area of
 * `buckets` as 16-bit offsets, and eye_reduce.cl counts each bucket in
 * local memory. Layout of `buckets` (eye.c): nb cursors (entries taken in
 * each area; the reduction zeroes them for the next iteration), padded to
 * HISTO_BUCKET_PAD words, then nb areas of bucket_cap ushorts. An entry
 * whose place lies past its area's end goes to `outer` with a global
 * atomic instead, so a bucket that fills up costs speed, never a count.
 *
 * The tile's memory holds nb staging counters (values a bucket took this
 * step), nb bases (where the step's run starts in the area), then nb
 * rows of `per` staging slots. A step takes at most per * nb / 8 quads, so
 * that an even spread half fills each row; a value past its row's end
 * goes to `outer` too. */
static uint bucket_count(uint nbins)
{
    return (nbins - 1) / HISTO_BUCKET_BINS + 1;
}

/* The first ushort of bucket k's area. */
static global ushort *bucket_area(global uint *buckets, uint nb, uint k,
                                  uint cap)
{
    const uint pad = (nb + HISTO_BUCKET_PAD - 1) / HISTO_BUCKET_PAD
                   * HISTO_BUCKET_PAD;
    return (global ushort *)(buckets + pad) + (ulong)k * cap;
}

/* Value v into its bucket's staging row, or `outer` when the row is full. */
static inline void stage(local uint *fill, local ushort *slot, uint per,
                         global uint *outer, uint v)
{
    const uint k = v / HISTO_BUCKET_BINS;
    const uint s = atomic_inc(&fill[k]);
    if (s < per)
        slot[k * per + s] = (ushort)(v - k * HISTO_BUCKET_BINS);
    else
        atomic_inc(&outer[v]);
}

static inline void stage4(local uint *fill, local ushort *slot, uint per,
                          global uint *outer, uint4 v)
{
    stage(fill, slot, per, outer, v.x);
    stage(fill, slot, per, outer, v.y);
    stage(fill, slot, per, outer, v.z);
    stage(fill, slot, per, outer, v.w);
}

/* The staged runs into their areas: each bucket's run gets its place with
 * one global atomic on the bucket's cursor, then teams of
 * HISTO_BUCKET_TEAM work-items (a warp on NVIDIA) copy one bucket's run
 * each, so that a team's stores are consecutive. Leaves the staging
 * counters zero. */
static void bucket_flush(local uint *fill, local uint *base,
                         local const ushort *slot, uint per, uint nb,
                         uint cap, global uint *buckets, global uint *outer,
                         uint lid, uint size)
{
    for (uint k = lid; k < nb; k += size) {
        const uint f = min(fill[k], per);
        fill[k] = f;
        base[k] = f != 0 ? atomic_add(&buckets[k], f) : 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint team = min((uint)HISTO_BUCKET_TEAM, size);
    const uint teams = size / team;
    if (lid < teams * team) {
        for (uint k = lid / team; k < nb; k += teams) {
            const uint f = fill[k], b = base[k];
            global ushort *area = bucket_area(buckets, nb, k, cap);
            for (uint i = lid % team; i < f; i += team) {
                const ushort off = slot[k * per + i];
                /* b + i <= the input's values < 2^31: no wrap */
                if (b + i < cap)
                    area[b + i] = off;
                else
                    atomic_inc(&outer[k * HISTO_BUCKET_BINS + off]);
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = lid; k < nb; k += size)
        fill[k] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* The group's quads [from_q, to_q) of the input into the buckets, a step
 * at a time: HISTO_BUCKET_ROUNDS rounds of HISTO_BUCKET_QUADS quads per
 * work-item at most, each round's loads issued before its staging
 * atomics (rounds keep the registers of QUADS quads while a step, and
 * its flush, covers more values). The steps' bounds are the same for
 * every work-item (the barriers are reached by all). */
static void bucket_slice(global const uint *restrict in, uint n,
                         local uint *tile, uint tile_words, uint nbins,
                         global uint *outer, global uint *buckets, uint cap,
                         uint from_q, uint to_q)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint nb = bucket_count(nbins);
    local uint *fill = tile;
    local uint *base = tile + nb;
    local ushort *slot = (local ushort *)(tile + 2 * nb);
    /* the host leaves room for HISTO_BUCKET_MIN_SLOTS a bucket (eye.c) */
    const uint per = (tile_words - 2 * nb) * 2 / nb;
    const uint round_q = size * HISTO_BUCKET_QUADS;
    const uint step_q = clamp(per * nb / 8, 1u,
                              round_q * HISTO_BUCKET_ROUNDS);
    const uint full_q = n / 4;
    for (uint k = lid; k < nb; k += size)
        fill[k] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* q0 + step_q <= 2^29 + 2^16 * 4 * HISTO_BUCKET_ROUNDS: no wrap */
    for (uint q0 = from_q; q0 < to_q; q0 += step_q) {
        const uint q_end = min(q0 + step_q, to_q);
        for (uint r = q0; r < q_end; r += round_q) {
            uint4 v[HISTO_BUCKET_QUADS];
            for (uint j = 0; j < HISTO_BUCKET_QUADS; ++j) {
                const uint q = r + lid + j * size;
                v[j] = q < q_end && q < full_q ? vload4(q, in) : (uint4)(0);
            }
            for (uint j = 0; j < HISTO_BUCKET_QUADS; ++j) {
                const uint q = r + lid + j * size;
                if (q < q_end && q < full_q) {
                    stage4(fill, slot, per, outer, v[j]);
                } else if (q < q_end) {
                    for (uint i = 4 * q; i < n; ++i)
                        stage(fill, slot, per, outer, in[i]);
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        bucket_flush(fill, base, slot, per, nb, cap, buckets, outer, lid,
                     size);
    }
}

/* Where an iteration's groups count, once the eye is found: the window
 * and its tiles, B batches of per_batch groups (group g counting tile
 * g % per_batch of batch g / per_batch), and the layout of `partial`. */
struct grid {
    struct place pl;
    uint tiles, per_batch, batches, slice_q, win_rows, tile_stride,
         cell_rows;
};

/* The eye, then the grid for `groups` groups. More batches mean more
 * partial tiles to write and add up: at most HISTO_MAX_BATCHES. Without
 * tiles there are no partials and every group works. */
static void find_grid(global const uint *restrict in,
                      const struct eye_args *a, local uint *tile,
                      local struct eye_small *sm, uint groups,
                      const bool allow_2d, struct grid *g)
{
    g->tiles = find_eye(in, a, tile, sm, allow_2d, &g->pl, &g->win_rows,
                        &g->tile_stride, &g->cell_rows);
    g->per_batch = max(g->tiles, 1u);
    g->batches = a->forced_batches ? a->forced_batches
                                   : groups / g->per_batch;
    if (!a->forced_batches && g->tiles != 0)
        g->batches = min(g->batches, (uint)HISTO_MAX_BATCHES);
    /* the quads of a batch's slice (the last may hold fewer) */
    g->slice_q = ((a->n + 3) / 4 + g->batches - 1) / g->batches;
}

/* Whether the tile groups add without reading the counter first
 * (tile_add): no bin hammered, and slices of slice_q quads (the
 * longest; at most HISTO_PLAIN_MAX_VALUES / 4 = 16383 quads, 65532
 * values), so no counter can pass 65535. One answer for every group. */
static bool plain_adds(local const struct eye_small *sm, uint slice_q)
{
    return sm->hot == HOT_NO && slice_q <= HISTO_PLAIN_MAX_VALUES / 4;
}

/* The window in eye[] (layout in params.h), for the reduction and the
 * host; `ran` is the number of groups that counted. eye_tile_2d's
 * samples are not looked at for hammered bins. */
static void publish(global uint *restrict eye, const struct grid *g,
                    local const struct eye_small *sm, uint n, uint ran,
                    const bool allow_2d)
{
    eye[HISTO_EYE_LO] = g->pl.lo;
    eye[HISTO_EYE_HI] = g->pl.lo + g->pl.len;
    eye[HISTO_EYE_TILES] = g->tiles;
    eye[HISTO_EYE_BATCHES] = g->batches;
    eye[HISTO_EYE_COLS] = g->pl.cols;
    eye[HISTO_EYE_ROWS] = g->win_rows;
    eye[HISTO_EYE_STRIDE] = g->tile_stride;
    eye[HISTO_EYE_RAN] = ran;
    if (allow_2d) {
        eye[HISTO_EYE_ADDS] = HISTO_ADDS_UNSAMPLED;
        return;
    }
    eye[HISTO_EYE_ADDS] =
        (sm->hot == HOT_YES ? HISTO_ADDS_HOT : 0u)
        | (g->tiles != 0 && plain_adds(sm, g->slice_q)
               ? HISTO_ADDS_PLAIN : 0u)
        | (sm->hot == HOT_UNSAMPLED ? HISTO_ADDS_UNSAMPLED : 0u);
}

/* Group `group` of the grid (below batches * per_batch): its slice into
 * its tile (and its share of the values outside the window into
 * `outer`), the tile flushed to `partial`; without a tile, its share into
 * the buckets where the host gave them room (a->bucket_cap, eye_tile_2d
 * only), else into `outer`. The tile's memory is free again once the
 * group has passed a barrier. */
static void count_group(global const uint *restrict in,
                        const struct eye_args *a, local uint *tile,
                        global uchar *restrict partial,
                        global uint *restrict outer,
                        global uint *restrict buckets, const struct grid *g,
                        local const struct eye_small *sm, uint group,
                        const bool allow_2d)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint n = a->n;
    const uint replicas = a->replicas;
    const uint per_batch = g->per_batch, tiles = g->tiles;
    /* one tile a batch (the common case) needs no division */
    const uint batch = per_batch == 1 ? group : group / per_batch;
    const uint t = group - batch * per_batch;
    struct place pl = g->pl;
    place_tile(&pl, t, tiles, a->tile_bins, g->cell_rows, g->win_rows);
    const uint copy_words = a->tile_bins / 2;
    zero_tile(tile, pl.tile_len, copy_words, replicas, lid, size);
    local uint *my_copy = tile + (lid % COPIES) * copy_words;

    /* Slices are whole multiples of 4 values except the last. n <= 2^31,
     * so these uint indexes cannot wrap. */
    const uint quads = (n + 3) / 4;
    const uint slice_q = g->slice_q;
    const uint start_q = min(batch * slice_q, quads);
    const uint end_q = min(start_q + slice_q, quads);
    /* the part of the slice whose out-of-window values are ours */
    const uint part_q = per_batch == 1
                      ? end_q - start_q
                      : (end_q - start_q + per_batch - 1) / per_batch;
    const uint duty_lo = start_q + min(t * part_q, end_q - start_q);
    const uint duty_hi = min(duty_lo + part_q, end_q);
    /* a group without a tile needs only its own part */
    const uint from_q = tiles ? start_q : duty_lo;
    const uint to_q = tiles ? end_q : duty_hi;
    /* eye_tile_2d alone has the bucket path: in eye_tile (inputs below
     * HISTO_EYE_2D_MIN_VALUES) its code would take registers from the
     * counting loops (the host gives eye_tile no buckets) */
    if (allow_2d && tiles == 0 && a->bucket_cap != 0) {
        bucket_slice(in, n, tile, a->tile_words, a->nbins, outer, buckets,
                     a->bucket_cap, from_q, to_q);
        return;
    }
    /* never in eye_tile_2d (sm->hot unset there): !allow_2d folds its
     * plain loop away */
    const bool plain = !allow_2d && plain_adds(sm, slice_q);
    if (allow_2d && pl.cols != 0) {
        count_slice(in, n, my_copy, outer, &pl, from_q, to_q, duty_lo,
                    duty_hi, true, false);
    } else if (plain) {
        count_slice(in, n, my_copy, outer, &pl, from_q, to_q, duty_lo,
                    duty_hi, false, true);
    } else {
        count_slice(in, n, my_copy, outer, &pl, from_q, to_q, duty_lo,
                    duty_hi, false, false);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    flush_tile(tile, pl.tile_len, copy_words, replicas,
               partial + ((ulong)batch * per_batch + t) * g->tile_stride,
               lid, size);
}

/* The kernel's body, in phases: find the eye and deal the groups over
 * batches and tiles, group 0 publishes the window, then this group counts
 * its part. allow_2d (a constant at each entry point below) adds the 2-D
 * window: the host runs eye_tile_2d only for inputs large enough for it
 * (HISTO_EYE_2D_MIN_VALUES values, eye.c). */
static inline void eye_tile_body(global const uint *restrict in,
                                 const struct eye_args *a, local uint *tile,
                                 global uchar *restrict partial,
                                 global uint *restrict outer,
                                 global uint *restrict eye,
                                 global uint *restrict buckets,
                                 local struct eye_small *sm,
                                 const bool allow_2d)
{
    const uint group = get_group_id(0);
    const uint groups = get_num_groups(0);
    struct grid g;
    find_grid(in, a, tile, sm, groups, allow_2d, &g);
    if (group == 0 && get_local_id(0) == 0)
        publish(eye, &g, sm, a->n, min(groups, g.batches * g.per_batch),
                allow_2d);
    if (group >= g.batches * g.per_batch)
        return; /* uniform across the group: no barrier is skipped unevenly */
    count_group(in, a, tile, partial, outer, buckets, &g, sm, group,
                allow_2d);
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
                     global uint *restrict outer, global uint *restrict eye,
                     uint bucket_cap, global uint *restrict buckets)
{
    local struct eye_small small;
    const struct eye_args a = {n, nbins, tile_bins, tile_words, ncells,
                               cell_tiles, max_tiles, min_samples,
                               min_samples_2d, forced_batches, replicas,
                               bucket_cap};
    eye_tile_body(in, &a, tile, partial, outer, eye, buckets, &small, false);
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
                        global uint *restrict eye, uint bucket_cap,
                        global uint *restrict buckets)
{
    local struct eye_small small;
    const struct eye_args a = {n, nbins, tile_bins, tile_words, ncells,
                               cell_tiles, max_tiles, min_samples,
                               min_samples_2d, forced_batches, replicas,
                               bucket_cap};
    eye_tile_body(in, &a, tile, partial, outer, eye, buckets, &small, true);
}
