/*
 * eye_tile.cl - one pass over the input: find the eye, count it in
 * local-memory tiles, send the rest to global atomics.
 *
 * Eye. Every work-group reads the same HISTO_EYE_SAMPLES values (runs of
 * HISTO_EYE_RUN consecutive values at evenly spaced points: whole memory
 * sectors, shared through the cache by all groups) and counts them per
 * cell, a tile-sized range of bins, in local memory. The window is grown
 * from the densest cell, one neighbouring cell at a time (the denser side
 * first), while the next cell holds at least min_samples samples and fewer
 * than max_tiles cells are taken: a tile pays for re-reading its batch's
 * input only where it catches enough values, otherwise global atomics are
 * cheaper. Every group computes the same window (no host round trip, no
 * extra kernel); group 0 publishes it in eye[] (layout in params.h) for
 * the reduction. The estimate affects only speed. The densest cell is
 * found with one local atomic_max per cell (barriers cost ~0.4 us each on
 * an H200, a tree took nine); the growth is a short serial walk.
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
 * per step to keep loads in flight.
 *
 * Each tile leaves saturated to 8 bits in `partial`, laid out
 * [batch][bin - window start], for eye_reduce.cl.
 */

#define CELL_OF(v) min((v) / tile_bins, ncells - 1)

/* One value into its 16-bit counter, unless the counter already shows
 * 255: read first (a broadcast when many work-items share a bin, so a
 * saturated bin costs no atomic), then add without using the result.
 * *sat remembers the last offset this work-item found saturated, so a run
 * of equal values (one bin hammered) costs one compare each. */
static void tile_add(local uint *tile, uint offset, uint *sat)
{
    if (offset == *sat)
        return;
    const uint shift = (offset & 1) << 4;
    volatile local uint *word = tile + (offset >> 1);
    if (((*word >> shift) & 0xffff) < HISTO_SATURATE)
        atomic_add(word, 1u << shift);
    else
        *sat = offset;
}

/* One value: into the tile, or to `outer` when it lies outside the
 * window and this group is in charge of it. */
static void count(local uint *tile, uint *sat, global uint *outer, uint v,
                  uint tile_lo, uint tile_len, uint win_lo, uint win_len,
                  bool outer_duty)
{
    const uint offset = v - tile_lo;
    if (offset < tile_len) {
        tile_add(tile, offset, sat);
    } else if (outer_duty && v - win_lo >= win_len) {
        atomic_inc(&outer[v]);
    }
}

static void count4(local uint *tile, uint *sat, global uint *outer, uint4 v, uint tile_lo, uint tile_len, uint win_lo,
                   uint win_len, bool duty)
{
    count(tile, sat, outer, v.x, tile_lo, tile_len, win_lo, win_len, duty);
    count(tile, sat, outer, v.y, tile_lo, tile_len, win_lo, win_len, duty);
    count(tile, sat, outer, v.z, tile_lo, tile_len, win_lo, win_len, duty);
    count(tile, sat, outer, v.w, tile_lo, tile_len, win_lo, win_len, duty);
}

kernel void eye_tile(global const uint *restrict in, uint n, uint nbins,
                     uint tile_bins, uint tile_words, uint ncells, uint max_tiles,
                     uint min_samples, uint forced_batches,
                     local uint *tile, global uchar *restrict partial,
                     global uint *restrict outer, global uint *restrict eye)
{
    local uint window[2];
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint group = get_group_id(0);
    const uint groups = get_num_groups(0);

    /* --- the eye: sample counts per cell, in the tile's memory; `copies`
     * replicas of the counters spread the contention of dense cells --- */
    const uint copies = max(1u, min((uint)HISTO_EYE_COPIES,
                                    (tile_words - 1) / ncells));
    /* the cell counters, then one word for the densest cell's key */
    local uint *best_key = tile + ncells * copies;
    for (uint c = lid; c <= ncells * copies; c += size)
        tile[c] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint samples = min(n, (uint)HISTO_EYE_SAMPLES);
    const uint points = samples / HISTO_EYE_RUN;
    const uint stride = n > HISTO_EYE_SAMPLES
                      ? (n - HISTO_EYE_RUN) / (points - 1) : 0;
    /* All of a step's loads are issued before its atomics. */
    for (uint base = lid; base < samples; base += 8 * size) {
        uint cell[8];
        for (uint j = 0; j < 8; ++j) {
            const uint s = base + j * size;
            const uint idx = stride ? (s / HISTO_EYE_RUN) * stride
                                      + s % HISTO_EYE_RUN
                                    : s;
            cell[j] = s < samples ? CELL_OF(in[idx]) : ncells;
        }
        for (uint j = 0; j < 8; ++j)
            if (cell[j] < ncells)
                atomic_inc(&tile[(lid % copies) * ncells + cell[j]]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* Densest cell, lowest index on ties, in one step: each cell's total
     * (the replicas summed) goes into one atomic_max as
     * count << 16 | (0xffff - cell). Counts <= HISTO_EYE_SAMPLES (a few thousand) and cells <= 1024 fit. */
    for (uint c = lid; c < ncells; c += size) {
        uint total = tile[c];
        for (uint k = 1; k < copies; ++k)
            total += tile[k * ncells + c];
        tile[c] = total;
        if (total != 0)
            atomic_max(best_key, total << 16 | (0xffff - c));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        const uint key = *best_key;
        const uint best = key != 0 ? 0xffff - (key & 0xffff) : 0;
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
        window[0] = c0;
        window[1] = c1 - c0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint tiles = window[1];
    const uint win_lo = window[0] * tile_bins;
    const uint win_len = min(tiles * tile_bins, nbins - win_lo);
    const uint per_batch = max(tiles, 1u);
    /* More batches mean more partial tiles to write and add up: past
     * HISTO_MAX_BATCHES the reduction costs more than the extra groups
     * save. Without tiles there are no partials and every group works. */
    uint batches = forced_batches ? forced_batches : groups / per_batch;
    if (!forced_batches && tiles != 0)
        batches = min(batches, (uint)HISTO_MAX_BATCHES);
    if (group == 0 && lid == 0) {
        eye[HISTO_EYE_LO] = win_lo;
        eye[HISTO_EYE_HI] = win_lo + win_len;
        eye[HISTO_EYE_TILES] = tiles;
        eye[HISTO_EYE_BATCHES] = batches;
    }
    const uint batch = group / per_batch;
    const uint t = group % per_batch;
    if (batch >= batches)
        return; /* uniform across the group: no barrier is skipped unevenly */

    /* --- this group's tile (none when tiles == 0) --- */
    const uint tile_lo = win_lo + t * tile_bins;
    const uint tile_len = tiles ? min(tile_bins, win_lo + win_len - tile_lo)
                                : 0;
    barrier(CLK_LOCAL_MEM_FENCE); /* everyone has read the cell counts */
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
    const uint from_q = tiles ? start_q : duty_lo;
    const uint to_q = tiles ? end_q : duty_hi;

    const uint full_q = n / 4; /* quads lying wholly inside the input */
    uint sat = ~0u;
    uint q = from_q + lid;
    const uint quad_end = min(to_q, full_q);
    for (; q + 3 * size < quad_end; q += 4 * size) {
        uint4 v[4];
        for (uint j = 0; j < 4; ++j)
            v[j] = vload4(q + j * size, in);
        for (uint j = 0; j < 4; ++j) {
            const uint qj = q + j * size;
            count4(tile, &sat, outer, v[j], tile_lo, tile_len, win_lo,
                   win_len, qj >= duty_lo && qj < duty_hi);
        }
    }
    for (; q < to_q; q += size) {
        const bool duty = q >= duty_lo && q < duty_hi;
        if (q < full_q) {
            count4(tile, &sat, outer, vload4(q, in), tile_lo, tile_len,
                   win_lo, win_len, duty);
        } else {
            for (uint i = 4 * q; i < n; ++i)
                count(tile, &sat, outer, in[i], tile_lo, tile_len, win_lo,
                      win_len, duty);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    global uchar *dst = partial
                      + ((ulong)batch * per_batch + t) * tile_bins;
    /* four bins (two words) per store; tile_bins and dst are multiples of 4 */
    for (uint i = 4 * lid; i < tile_len; i += 4 * size) {
        if (i + 4 <= tile_len) {
            const uint2 w = vload2(i / 4, tile); /* words i/2, i/2 + 1 */
            const uint4 c = min((uint4)(w.x & 0xffff, w.x >> 16,
                                        w.y & 0xffff, w.y >> 16),
                                (uint4)(HISTO_SATURATE));
            vstore4(convert_uchar4(c), i / 4, dst);
        } else {
            for (uint j = i; j < tile_len; ++j)
                dst[j] = (uchar)min((tile[j >> 1] >> ((j & 1) << 4)) & 0xffff,
                                    (uint)HISTO_SATURATE);
        }
    }
}
