/*
 * eye_tile.cl - one pass over the input: find the eye, count it in
 * local-memory tiles, send the rest to global atomics.
 *
 * Geometry. The histogram is seen as `rows` rows of `width` bins (its own
 * shape, or one bin per row when a row is wider than a tile). A bin is
 * v = row * width + col.
 *
 * Eye. Every work-group reads the same HISTO_EYE_SAMPLES values (runs of
 * HISTO_EYE_RUN consecutive values at evenly spaced points: whole memory
 * sectors, shared through the cache by all groups). From their columns it
 * takes a column window, mean +- HISTO_EYE_COL_SIGMAS deviations rounded
 * out to multiples of 4 (all columns when that is most of the row, or when
 * rows are not a multiple of 4 wide). A tile then holds `trows` rows of
 * those columns only, as many as fit in local memory: a narrow eye gets
 * tall tiles. The sampled values inside the column window are counted per
 * cell, a band of `trows` rows, and the window is grown from the densest
 * cell, one neighbouring cell at a time (the denser side first), while the
 * next cell holds at least min_samples samples and fewer than max_tiles
 * cells are taken: a tile pays for re-reading its batch's input only where
 * it catches enough values, otherwise global atomics are cheaper. Every
 * group computes the same window (no host round trip, no extra kernel);
 * group 0 publishes it in eye[] (layout in params.h) for the reduction.
 * The estimate affects only speed.
 *
 * Grid. The groups are re-dealt once the window is known: with T tiles the
 * input splits into B = groups / T batches (at most HISTO_MAX_BATCHES, or
 * the B given by the host), group g counting tile g % T of batch g / T.
 * Every group of a batch reads the batch's whole slice but counts only its
 * own tile's bins, with local atomics that contend only inside the group.
 * The values outside the window are shared out: tile t sends those of the
 * t-th part of the slice to `outer`, a full-size 32-bit histogram, with
 * global atomics. With no tile (a flat distribution) every group takes its
 * own slice to `outer`. When the eye has tiles, each such value also marks
 * its chunk of `outer` dirty in this iteration's set of flags (see
 * eye_reduce.cl), so the reduction reads only the chunks that can hold
 * counts.
 *
 * Counters. Two 16-bit counters per 32-bit word. An increment that finds
 * its counter already at 255 or more is taken back, so a counter never
 * exceeds 255 plus the increments in flight in its group (far below 65536)
 * and never carries into its neighbour; it reaches 255 exactly when its
 * true count does. Each work-item merges runs of equal tile values in
 * registers and adds a run with one atomic, at most HISTO_RUN_CAP at a
 * time, so in-flight additions stay below group size x HISTO_RUN_CAP and
 * the bound above holds (the host keeps groups at most 1024 work-items):
 * one bin hammered costs few atomics. Values are read as uint4, four quads
 * per step to keep loads in flight.
 *
 * Each tile leaves saturated to 8 bits in `partial`, laid out per batch as
 * the window's rows one after another, each `cols` bytes:
 * [batch][(row - first row) * cols + col - first col], for eye_reduce.cl.
 */

/* Row of bin v: a shift when rows are a power of two wide (the default
 * 256), else a division. */
#define ROW_OF(v, width, width_log2) \
    ((width_log2) < 32 ? (v) >> (width_log2) : (v) / (width))

/* The window a group works with (identical in every group). */
struct window {
    uint row0, trows, tiles; /* rows [row0, row0 + tiles * trows)  */
    uint col0, cols;         /* columns [col0, col0 + cols)         */
};

static void tile_add(local uint *tile, uint offset, uint k)
{
    const uint shift = (offset & 1) << 4;
    const uint old = atomic_add(&tile[offset >> 1], k << shift);
    if (((old >> shift) & 0xffff) >= HISTO_SATURATE)
        atomic_sub(&tile[offset >> 1], k << shift);
}

/* A run of equal tile values being merged by one work-item. */
struct run {
    uint offset, length;
};

static void run_flush(local uint *tile, struct run *r)
{
    if (r->length != 0)
        tile_add(tile, r->offset, r->length);
    r->length = 0;
}

/* Where a group's counting goes: its tile's rows and the window. */
struct target {
    uint width, width_log2;   /* bins per row; log2 of it, or 32  */
    uint tile_row0, tile_rows;
    uint win_row0, win_rows;
    uint col0, cols;
};

/* One value: into the run (tile), or to `outer` when it lies outside the
 * window and this group is in charge of it. */
static void count(local uint *tile, global uint *outer, global uint *dirty,
                  struct run *r, const struct target *g, uint v,
                  bool outer_duty)
{
    const uint row = ROW_OF(v, g->width, g->width_log2);
    const uint col = v - row * g->width - g->col0;
    if (col < g->cols && row - g->tile_row0 < g->tile_rows) {
        const uint offset = (row - g->tile_row0) * g->cols + col;
        if (offset != r->offset || r->length == HISTO_RUN_CAP) {
            run_flush(tile, r);
            r->offset = offset;
        }
        ++r->length;
    } else if (outer_duty && (col >= g->cols
                              || row - g->win_row0 >= g->win_rows)) {
        atomic_inc(&outer[v]);
        if (dirty != 0 && !dirty[v >> HISTO_DIRTY_SHIFT])
            dirty[v >> HISTO_DIRTY_SHIFT] = 1;
    }
}

static void count4(local uint *tile, global uint *outer, global uint *dirty,
                   struct run *r, const struct target *g, uint4 v, bool duty)
{
    count(tile, outer, dirty, r, g, v.x, duty);
    count(tile, outer, dirty, r, g, v.y, duty);
    count(tile, outer, dirty, r, g, v.z, duty);
    count(tile, outer, dirty, r, g, v.w, duty);
}

/* Index of sample s among the n input values. */
static uint sample_index(uint s, uint n, uint points)
{
    if (n <= HISTO_EYE_SAMPLES)
        return s;
    return (s / HISTO_EYE_RUN) * ((n - HISTO_EYE_RUN) / (points - 1))
         + s % HISTO_EYE_RUN;
}

/* Sum over the work-group of one ulong per work-item (scratch: one ulong
 * per work-item, as two uints); every work-item gets the total. */
static ulong group_sum(local uint *scratch, ulong mine)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    scratch[2 * lid] = (uint)mine;
    scratch[2 * lid + 1] = (uint)(mine >> 32);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint step = 1; step < size; step <<= 1) {
        if ((lid & (2 * step - 1)) == 0 && lid + step < size) {
            const ulong sum = ((ulong)scratch[2 * lid + 1] << 32)
                            + scratch[2 * lid]
                            + ((ulong)scratch[2 * (lid + step) + 1] << 32)
                            + scratch[2 * (lid + step)];
            scratch[2 * lid] = (uint)sum;
            scratch[2 * lid + 1] = (uint)(sum >> 32);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const ulong total = ((ulong)scratch[1] << 32) + scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}

/* The eye window from the samples (see the top of this file). Uses the
 * tile's words as scratch; leaves the result in *w for every work-item. */
static void find_window(global const uint *in, uint n, uint width,
                        uint width_log2, uint rows,
                        uint tile_cap, uint tile_words, uint max_cells,
                        uint max_tiles, uint min_samples, local uint *tile,
                        local struct window *w)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint samples = min(n, (uint)HISTO_EYE_SAMPLES);
    const uint points = samples / HISTO_EYE_RUN;

    /* column window: mean +- HISTO_EYE_COL_SIGMAS deviations */
    uint col0 = 0, cols = width;
    if (width % 4 == 0 && width >= 16 && width <= 65536) {
        ulong sum = 0, squares = 0;
        for (uint s = lid; s < samples; s += size) {
            const uint v = in[sample_index(s, n, points)];
            const ulong col = v - ROW_OF(v, width, width_log2) * width;
            sum += col;
            squares += col * col; /* < 2^32: width <= 65536 */
        }
        sum = group_sum(tile, sum);
        squares = group_sum(tile, squares);
        const float mean = (float)sum / (float)samples;
        const float var = max((float)squares / (float)samples - mean * mean,
                              0.0f);
        const float spread = HISTO_EYE_COL_SIGMAS * sqrt(var);
        /* clamp in float before converting: no negative to unsigned */
        const uint lo = (uint)clamp(mean - spread, 0.0f, (float)width);
        const uint hi = (uint)clamp(ceil(mean + spread) + 1.0f, 0.0f,
                                    (float)width);
        const uint lo4 = lo & ~3u;
        const uint hi4 = min((hi + 3) & ~3u, width);
        if (hi4 > lo4 && 4 * (hi4 - lo4) <= 3 * width) {
            col0 = lo4;
            cols = hi4 - lo4;
        }
    }
    const uint trows = max(tile_cap / cols, 1u);
    const uint ncells = min((rows + trows - 1) / trows, max_cells);

    /* sampled values inside the column window, per cell of trows rows;
     * `copies` replicas of the counters spread dense cells' contention */
    const uint copies = max(1u, min((uint)HISTO_EYE_COPIES,
                                    (tile_words - 2 * size) / ncells));
    for (uint c = lid; c < ncells * copies; c += size)
        tile[c] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* all of a step's loads are issued before its atomics */
    for (uint base = lid; base < samples; base += 8 * size) {
        uint cell[8];
        for (uint j = 0; j < 8; ++j) {
            const uint s = base + j * size;
            cell[j] = ncells;
            if (s < samples) {
                const uint v = in[sample_index(s, n, points)];
                const uint row = ROW_OF(v, width, width_log2);
                if (v - row * width - col0 < cols)
                    cell[j] = min(row / trows, ncells - 1);
            }
        }
        for (uint j = 0; j < 8; ++j)
            if (cell[j] < ncells)
                atomic_inc(&tile[(lid % copies) * ncells + cell[j]]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint c = lid; c < ncells; c += size)
        for (uint k = 1; k < copies; ++k)
            tile[c] += tile[k * ncells + c];
    barrier(CLK_LOCAL_MEM_FENCE);

    /* densest cell, lowest index on ties: a tree over the group in the
     * words after the cell counters */
    local uint *best_count = tile + ncells * copies;
    local uint *best_cell = best_count + size;
    uint bc = 0, bi = ncells;
    for (uint c = lid; c < ncells; c += size)
        if (tile[c] > bc) {
            bc = tile[c];
            bi = c;
        }
    best_count[lid] = bc;
    best_cell[lid] = bi;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint step = 1; step < size; step <<= 1) {
        if ((lid & (2 * step - 1)) == 0 && lid + step < size) {
            const uint oc = best_count[lid + step], oi = best_cell[lid + step];
            if (oc > best_count[lid]
                || (oc == best_count[lid] && oi < best_cell[lid])) {
                best_count[lid] = oc;
                best_cell[lid] = oi;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        const uint best = best_cell[0] < ncells ? best_cell[0] : 0;
        uint c0 = best, c1 = best; /* window = cells [c0, c1) */
        if (tile[best] >= min_samples) {
            c1 = best + 1;
            while (c1 - c0 < max_tiles) {
                const uint left = c0 > 0 ? tile[c0 - 1] : 0;
                const uint right = c1 < ncells ? tile[c1] : 0;
                if (max(left, right) < min_samples)
                    break;
                if (left >= right)
                    --c0;
                else
                    ++c1;
            }
        }
        w->row0 = c0 * trows;
        w->trows = trows;
        w->tiles = c1 - c0;
        w->col0 = col0;
        w->cols = cols;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

kernel void eye_tile(global const uint *restrict in, uint n, uint width,
                     uint width_log2, uint rows, uint tile_cap, uint tile_words,
                     uint max_cells, uint max_tiles, uint min_samples,
                     uint forced_batches, local uint *tile,
                     global uchar *restrict partial,
                     global uint *restrict outer, global uint *restrict flags,
                     uint nchunks, uint parity, global uint *restrict eye)
{
    local struct window win;
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint group = get_group_id(0);
    const uint groups = get_num_groups(0);

    find_window(in, n, width, width_log2, rows, tile_cap, tile_words, max_cells,
                max_tiles, min_samples, tile, &win);
    const struct window w = win;
    const uint per_batch = max(w.tiles, 1u);
    /* More batches mean more partial tiles to write and add up: past
     * HISTO_MAX_BATCHES the reduction costs more than the extra groups
     * save. Without tiles there are no partials and every group works. */
    uint batches = forced_batches ? forced_batches : groups / per_batch;
    if (!forced_batches && w.tiles != 0)
        batches = min(batches, (uint)HISTO_MAX_BATCHES);
    if (group == 0 && lid == 0) {
        eye[HISTO_EYE_ROW0] = w.row0;
        eye[HISTO_EYE_ROWS] = min(w.tiles * w.trows, rows - w.row0);
        eye[HISTO_EYE_COL0] = w.col0;
        eye[HISTO_EYE_COLS] = w.cols;
        eye[HISTO_EYE_TILES] = w.tiles;
        eye[HISTO_EYE_TILE_ROWS] = w.trows;
        eye[HISTO_EYE_BATCHES] = batches;
    }
    const uint batch = group / per_batch;
    const uint t = group % per_batch;
    if (batch >= batches)
        return; /* the whole group: no barrier is left half-passed */

    /* --- this group's tile (none when there are no tiles) --- */
    struct target g;
    g.width = width;
    g.width_log2 = width_log2;
    g.col0 = w.col0;
    g.cols = w.cols;
    g.win_row0 = w.row0;
    g.win_rows = w.tiles ? min(w.tiles * w.trows, rows - w.row0) : 0;
    g.tile_row0 = w.row0 + t * w.trows;
    g.tile_rows = w.tiles ? min(w.trows, rows - g.tile_row0) : 0;
    const uint tile_len = g.tile_rows * g.cols;
    /* Without tiles every value goes to `outer` and the reduction reads it
     * all: marking would only cost a store per value. */
    global uint *dirty = w.tiles ? flags + parity * nchunks : 0;

    for (uint i = lid; i < (tile_len + 1) / 2; i += size)
        tile[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

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
    const uint from_q = w.tiles ? start_q : duty_lo;
    const uint to_q = w.tiles ? end_q : duty_hi;

    const uint full_q = n / 4; /* quads lying wholly inside the input */
    struct run run = {0, 0};
    uint q = from_q + lid;
    const uint quad_end = min(to_q, full_q);
    for (; q + 3 * size < quad_end; q += 4 * size) {
        uint4 v[4];
        for (uint j = 0; j < 4; ++j)
            v[j] = vload4(q + j * size, in);
        for (uint j = 0; j < 4; ++j) {
            const uint qj = q + j * size;
            count4(tile, outer, dirty, &run, &g, v[j],
                   qj >= duty_lo && qj < duty_hi);
        }
    }
    for (; q < to_q; q += size) {
        const bool duty = q >= duty_lo && q < duty_hi;
        if (q < full_q) {
            count4(tile, outer, dirty, &run, &g, vload4(q, in), duty);
        } else {
            for (uint i = 4 * q; i < n; ++i)
                count(tile, outer, dirty, &run, &g, in[i], duty);
        }
    }
    run_flush(tile, &run);
    barrier(CLK_LOCAL_MEM_FENCE);

    /* tile t of batch b at b * (tiles * trows * cols) + t * trows * cols */
    global uchar *dst = partial
                      + ((ulong)batch * w.tiles + t) * w.trows * w.cols;
    for (uint i = lid; i < tile_len; i += size)
        dst[i] = (uchar)min((tile[i >> 1] >> ((i & 1) << 4)) & 0xffff,
                            (uint)HISTO_SATURATE);
}
