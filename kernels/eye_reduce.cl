/*
 * eye_reduce.cl - combine the batches' partial tiles and the out-of-eye
 * histogram into the final 8-bit histogram.
 *
 * Two parts in one launch. Part A, the first part_a_groups groups, one
 * work-item per quad of bins at a time (grid-strided): a quad reads its
 * out-of-eye counts from `outer` (16 bytes), clears those read non-zero
 * so `outer` is all zero for the next iteration, and writes 4 bytes. The
 * window's quads go to part B, the groups after: a quad's partials of
 * every batch, walked by one work-item, would take batches / 8 rounds of
 * dependent loads (most window bins of a small input stay below 255, so
 * the walk rarely stops early), so part B gives each window quad
 * HISTO_REDUCE_LANES work-items, each adding every HISTO_REDUCE_LANES-th
 * batch's partial; the lanes of a quad lie a group's size /
 * HISTO_REDUCE_LANES apart, so a warp reads one batch's partials of
 * consecutive quads; one adds the lanes' sums in local memory and writes
 * the quad (no value inside the window goes to `outer`). Part B deals
 * window quads to its groups in a grid-strided loop. The host launches
 * at most HISTO_REDUCE_GROUPS_PER_CU groups a compute unit for each part
 * (docs/design.md).
 *
 * Any group size of at most HISTO_WORK_GROUP works: part B's groups use
 * their first size / HISTO_REDUCE_LANES * HISTO_REDUCE_LANES work-items,
 * and where the groups hold fewer than HISTO_REDUCE_LANES, or the host
 * launched no part B, part A adds the window's quads too (one work-item a
 * quad, eight batches' loads in flight).
 *
 * The window (whole rows from bin lo to hi, or `cols` columns of `rows`
 * rows from bin lo, laid out row by row in `partial`, HISTO_EYE_STRIDE bins
 * a tile), tile count and batch count come from eye[], written by
 * eye_tile.cl.
 *
 * Order: built after eye_args.cl to eye_tile.cl (the list is eye.c's
 * EYE_TILE_SOURCES).
 */

/* A window bin's count starts from its `outer` word: 0 with 16-bit tile
 * counters (no value inside the window goes to `outer`), the tiles'
 * records with 8-bit ones (`records`: eye_count.cl, Narrow counters),
 * while its partials hold the rest. As a number, a bin's records lie
 * between minus its partials' sum (one partial a batch, at most 255
 * each, and at most 65536 batches: above -2^24) and its count (at most
 * 2^31: a launch counts at most 2^31 values, work.h); as a signed 32-bit
 * number 2^31 would read below zero. So where there are records every
 * sum starts from the `outer` word plus RECORDS_BIAS (2^30) and is
 * unsigned: on its way from above 2^30 - 2^24 to the count plus the bias,
 * at most 2^31 + 2^30, it neither wraps nor goes below zero, and it
 * stops early only once it shows 255 past the bias, since the partials
 * still to come add nothing below zero. Outside the window `outer` holds
 * counts, saturated first (and biased too where the window has
 * records). */
#define RECORDS_BIAS 0x40000000u

/* The sum's start for an `outer` quad o, in the window or not. */
static uint4 start4(uint4 o, bool in, const bool records)
{
    if (!records || !in)
        o = min(o, (uint4)(HISTO_SATURATE));
    return records ? o + (uint4)(RECORDS_BIAS) : o;
}

static bool done(uint c, const bool records)
{
    return c >= (records ? RECORDS_BIAS : 0u) + HISTO_SATURATE;
}

static bool done4(uint4 c, const bool records)
{
    return all(c >= (uint4)((records ? RECORDS_BIAS : 0u) + HISTO_SATURATE));
}

static uchar4 saturated4(uint4 c, const bool records)
{
    const uint bias = records ? RECORDS_BIAS : 0u;
    return convert_uchar4(clamp(c, (uint4)(bias),
                                (uint4)(bias + HISTO_SATURATE))
                          - (uint4)(bias));
}

/* The helpers below take plain pointers, the kernel restrict ones:
 * eye_fused.cl calls the helpers on partials and counters that other
 * groups of the same launch wrote. */

/* The histogram's last bins when nbins is not a multiple of 4 (only whole
 * rows then: a 2-D window needs the width a multiple of 4). */
static void tail_bins(global uint *outer,
                      global const uchar *partial, uint first,
                      uint nbins, uint lo, uint hi, uint batches,
                      ulong stride, global uchar *hist, const bool records)
{
    /* nbins <= 2^32 - 1: bin ends at nbins without wrapping */
    for (uint bin = first; bin < nbins; ++bin) {
        const uint o = outer[bin];
        if (o != 0)
            outer[bin] = 0;
        const bool in = bin - lo < hi - lo;
        uint c = start4((uint4)(o), in, records).x;
        if (in)
            for (uint b = 0; b < batches && !done(c, records); ++b)
                c += partial[b * stride + (bin - lo)];
        hist[bin] = saturated4((uint4)(c), records).x;
    }
}

/* A window quad at offset `off`, where part A adds it: c plus the
 * partials of every batch, eight loads in flight. */
static uint4 add_partials(uint4 c, global const uchar *partial,
                          uint off, uint batches, ulong stride,
                          const bool records)
{
    const global uchar *p = partial + off;
    uint b = 0;
    for (; b + 8 <= batches; b += 8) {
        if (done4(c, records))
            return c;
        uint4 t[8];
        for (uint j = 0; j < 8; ++j)
            t[j] = convert_uint4(vload4(0, p + (b + j) * stride));
        c += ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]));
    }
    for (; b < batches; ++b)
        c += convert_uint4(vload4(0, p + b * stride));
    return c;
}

/* One lane's share of a window quad, from c: batches lane, lane + L,
 * ... */
static uint4 lane_sum(uint4 c, global const uchar *p, uint lane,
                      uint batches, ulong stride, const bool records)
{
    uint b = lane;
    for (; b + 7 * HISTO_REDUCE_LANES < batches; b += 8 * HISTO_REDUCE_LANES) {
        uint4 t[8];
        for (uint j = 0; j < 8; ++j)
            t[j] = convert_uint4(
                vload4(0, p + (b + j * HISTO_REDUCE_LANES) * stride));
        c += ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]));
        if (done4(c, records))
            return c;
    }
    for (; b < batches; b += HISTO_REDUCE_LANES)
        c += convert_uint4(vload4(0, p + b * stride));
    return c;
}

/* The window eye_tile published in eye[] (params.h): bins [lo, hi) of
 * the flat histogram, or (cols != 0) `cols` columns from lo over `rows`
 * rows; the tiles' partials, `stride` bytes from one batch to the next. */
struct window {
    uint lo, hi, batches, cols, rows, width, width_shift;
    ulong stride, width_recip; /* width: the histogram's (width_div) */
    bool records; /* the window's bins have records in `outer` */
};

/* Fills *w rather than returning it, as window_of (eye_fused.cl) and
 * find_grid (eye_tile.cl) fill theirs: Oclgrind cannot run the noalias
 * scope markers LLVM leaves where it inlines a function that returns
 * such a struct. */
static void read_window(global const uint *eye, uint width,
                        uint width_shift, ulong width_recip,
                        struct window *w, const bool may_record)
{
    w->width = width;
    w->width_shift = width_shift;
    w->width_recip = width_recip;
    const uint tiles = eye[HISTO_EYE_TILES];
    w->lo = eye[HISTO_EYE_LO];
    w->hi = eye[HISTO_EYE_HI];
    w->batches = tiles ? eye[HISTO_EYE_BATCHES] : 0;
    w->cols = eye[HISTO_EYE_COLS];
    w->rows = eye[HISTO_EYE_ROWS];
    w->stride = (ulong)tiles * eye[HISTO_EYE_STRIDE];
    w->records = may_record && (eye[HISTO_EYE_ADDS] & HISTO_ADDS_NARROW) != 0;
}

/* Part A: work-item gid of part_a clears `outer` and writes every quad
 * outside the window (and, without part B, inside it too, adding the
 * partials), then work-item 0 the bins past the last whole quad. */
static void reduce_outer(global uint *outer,
                         global const uchar *partial,
                         const struct window *w, uint nbins,
                         global uchar *hist, uint gid, uint part_a,
                         bool has_part_b, const bool records)
{
    const uint lo = w->lo, hi = w->hi, cols = w->cols;
    const uint full = nbins / 4; /* quads wholly inside the histogram */
    /* q < full < 2^30: 4 * q and q + part_a fit in uint */
    for (uint q = gid; q < full; q += part_a) {
        /* lo and the window's edges are multiples of 4: a quad is wholly
         * in the window or wholly out. A quad before lo wraps d to at
         * least 2^32 - lo > nbins - lo: past hi - lo, and in a 2-D window
         * past rows * W - c0 (its rows end by nbins), so if r < rows its
         * column is >= W - c0 >= cols: outside. */
        const uint d = 4 * q - lo;
        bool in = d < hi - lo;
        uint off = d; /* the quad's offset in a tile of `partial` */
        if (cols != 0) {
            const uint r = width_div(d, w->width_shift, w->width_recip);
            const uint c = d - r * w->width;
            in = c < cols && r < w->rows;
            off = r * cols + c;
        }
        /* window quads are part B's where there is one */
        if (!in || !has_part_b) {
            const uint4 o = vload4(q, outer);
            if (o.x | o.y | o.z | o.w)
                vstore4((uint4)(0), q, outer);
            uint4 c = start4(o, in, records);
            if (in)
                c = add_partials(c, partial, off, w->batches, w->stride,
                                 records);
            vstore4(saturated4(c, records), q, hist);
        }
    }
    if (gid == 0 && cols == 0)
        tail_bins(outer, partial, 4 * full, nbins, lo, hi, w->batches,
                  w->stride, hist, records);
}

/* Part B: the window's quads, HISTO_REDUCE_LANES work-items each, their
 * lanes' sums added in `lanes` (four words per work-item). Whole rows: the
 * window's quads wholly inside the histogram (lo is a multiple of 4 and
 * lo <= 4 * full; a last partial quad is tail_bins()'s), at offset
 * 4 * wq in a batch's tiles. 2-D: rows of cols / 4 quads, at
 * r * cols + 4 * cq. This is group `group` of `groups` part B
 * groups. */
static void reduce_window(global uint *outer, global const uchar *partial,
                          const struct window *w, uint nbins,
                          global uchar *hist, uint group,
                          uint groups, local uint *lanes,
                          const bool records)
{
    const uint cols = w->cols, lo = w->lo;
    const uint size = (uint)get_local_size(0);
    const uint full = nbins / 4;
    const uint win_quads = cols != 0 ? w->rows * (cols / 4)
                                     : (min(w->hi, 4 * full) - lo) / 4;
    const uint lid = (uint)get_local_id(0);
    const uint per_group = size / HISTO_REDUCE_LANES;
    /* lanes of a quad lie per_group work-items apart, so a warp reads one
     * batch's partials of consecutive quads: whole sectors. Work-items
     * past per_group * HISTO_REDUCE_LANES (a size that is no multiple of
     * it) get lane >= HISTO_REDUCE_LANES and add nothing. */
    const uint lane = lid / per_group;
    const uint slot = lid - lane * per_group;
    /* the loop's bounds are the same for every work-item of a group */
    for (uint base = group * per_group; base < win_quads;
         base += groups * per_group) {
        const uint wq = base + slot;
        uint off = 4 * wq, q = lo / 4 + wq;
        if (cols != 0) {
            const uint r = wq / (cols / 4);
            const uint cq = wq - r * (cols / 4);
            off = r * cols + 4 * cq;
            q = (lo + r * w->width) / 4 + cq;
        }
        const bool mine = wq < win_quads && lane < HISTO_REDUCE_LANES;
        /* every lane starts from the quad's records, biased (see
         * RECORDS_BIAS above) */
        const uint4 o = records && mine ? start4(vload4(q, outer), true, true)
                                        : (uint4)(0);
        vstore4(mine ? lane_sum(o, partial + off, lane, w->batches,
                                w->stride, records)
                     : (uint4)(0),
                lid, lanes);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lane == 0 && wq < win_quads) {
            uint4 c = vload4(lid, lanes);
            for (uint k = 1; k < HISTO_REDUCE_LANES; ++k) {
                const uint4 l = vload4(lid + k * per_group, lanes);
                /* with records exact: the lane's partials, without the
                 * records again */
                c += records ? l - o : min(l, (uint4)(HISTO_SATURATE));
            }
            if (records && any(o != (uint4)(RECORDS_BIAS)))
                vstore4((uint4)(0), q, outer);
            vstore4(saturated4(c, records), q, hist);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* The buckets' counts (eye_bucket.cl), for an iteration without
 * a tile that used them: group `group` of `groups` takes buckets group,
 * group + groups, ...; the bucket's cursor is zeroed for the next
 * iteration. A bucket's entries are counted HISTO_BUCKET_CHUNK at a time
 * into 16-bit local counters, two a word, with plain adds: a chunk holds
 * fewer than 65536 entries, so no counter carries into its neighbour, and
 * an add needs no read before it (faster than tile_add's: docs/design.md,
 * "Buckets"). After each chunk the counts are added, saturated, into the
 * bucket's bins of hist, and after the last its `outer` counts too.
 * Entries are read as 8 ushorts a work-item (the areas and the chunks
 * start on 16-byte boundaries: eye_plan.c keeps bucket_cap a multiple
 * of 8),
 * two in flight. */
static void count_offset(local uint *pairs, uint off)
{
    atomic_add(&pairs[off >> 1], 1u << ((off & 1) << 4));
}

/* The four words of q: eight entries. */
static void count_quad(local uint *pairs, uint4 q)
{
    const uint w[4] = {q.x, q.y, q.z, q.w};
    for (uint j = 0; j < 4; ++j) {
        count_offset(pairs, w[j] & 0xffff);
        count_offset(pairs, w[j] >> 16);
    }
}

static void count_chunk(global const ushort *area, uint count,
                        local uint *pairs, uint lid, uint size)
{
    global const uint *words = (global const uint *)area;
    const uint whole = count / 8;
    uint i = lid;
    for (; i + size < whole; i += 2 * size) {
        const uint4 a = vload4(i, words);
        const uint4 b = vload4(i + size, words);
        count_quad(pairs, a);
        count_quad(pairs, b);
    }
    for (; i < whole; i += size)
        count_quad(pairs, vload4(i, words));
    for (uint e = 8 * whole + lid; e < count; e += size)
        count_offset(pairs, area[e]);
}

/* Bins [first, first + len) of the histogram after a chunk: its 16-bit
 * counts added to what hist holds (nothing before the first chunk) and,
 * after the last, to the bins' `outer` counts (cleared where non-zero),
 * saturated into hist; the counters left zero. Each work-item reads back
 * only the bytes it wrote itself. first is a multiple of 4. */
static void fold_chunk(local uint *pairs, uint first, uint len,
                       bool first_chunk, bool last_chunk, global uint *outer,
                       global uchar *hist, uint lid, uint size)
{
    const uint4 top = (uint4)(HISTO_SATURATE);
    for (uint j = 4 * lid; j < len; j += 4 * size) {
        const uint q = (first + j) / 4;
        if (j + 4 <= len) {
            const uint2 h = vload2(j / 4, pairs);
            vstore2((uint2)(0), j / 4, pairs);
            uint4 c = (uint4)(h.x & 0xffff, h.x >> 16, h.y & 0xffff,
                              h.y >> 16);
            if (!first_chunk)
                c += convert_uint4(vload4(q, hist));
            if (last_chunk) {
                const uint4 o = vload4(q, outer);
                if (o.x | o.y | o.z | o.w)
                    vstore4((uint4)(0), q, outer);
                c += min(o, top);
            }
            vstore4(convert_uchar4(min(c, top)), q, hist);
        } else {
            for (uint b = j; b < len; ++b) {
                uint c = (pairs[b >> 1] >> ((b & 1) << 4)) & 0xffff;
                if (!first_chunk)
                    c += hist[first + b];
                if (last_chunk) {
                    const uint o = outer[first + b];
                    if (o != 0)
                        outer[first + b] = 0;
                    c += min(o, (uint)HISTO_SATURATE);
                }
                hist[first + b] = (uchar)min(c, (uint)HISTO_SATURATE);
            }
            for (uint w = j / 2; w < (len + 1) / 2; ++w)
                pairs[w] = 0;
        }
    }
}

/* `local_words` holds HISTO_BUCKET_LOCAL_WORDS: the 16-bit counters and
 * a word for the bucket's entries (read, and its cursor zeroed, by one
 * work-item). Bucket k's bins of hist are this group's alone, so hist
 * holds the saturated counts between chunks, and 16 KiB of local memory
 * a group is all it takes: 8 groups of 256 fill a 2048-thread SM,
 * as without buckets (32-bit counters, 32 KiB, would fit fewer and slow
 * the reduction of inputs with a window). */
static void reduce_buckets(global uint *outer, global uint *buckets,
                           uint cap, uint nbins, global uchar *hist,
                           uint group, uint groups, local uint *local_words)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint nb = bucket_count(nbins);
    local uint *pairs = local_words;
    local uint *entries = pairs + HISTO_BUCKET_BINS / 2;
    for (uint i = lid; i < HISTO_BUCKET_BINS / 2; i += size)
        pairs[i] = 0;
    for (uint k = group; k < nb; k += groups) {
        if (lid == 0) {
            *entries = min(buckets[k], cap);
            buckets[k] = 0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        global const ushort *area = bucket_area(buckets, nb, k, cap);
        const uint count = *entries;
        const uint first = k * HISTO_BUCKET_BINS;
        const uint len = min((uint)HISTO_BUCKET_BINS, nbins - first);
        /* one chunk at least: an empty bucket's bins are written too */
        uint c0 = 0;
        do {
            const uint n = min(count - c0, (uint)HISTO_BUCKET_CHUNK);
            count_chunk(area + c0, n, pairs, lid, size);
            barrier(CLK_LOCAL_MEM_FENCE);
            fold_chunk(pairs, first, len, c0 == 0, c0 + n == count, outer,
                       hist, lid, size);
            barrier(CLK_LOCAL_MEM_FENCE);
            c0 += n;
        } while (c0 < count);
    }
}

/* An iteration without a tile that used the buckets: every group counts
 * buckets (reduce_buckets). Otherwise the first part_a_groups groups are
 * part A (reduce_outer), the rest part B (reduce_window) where the groups
 * hold HISTO_REDUCE_LANES work-items. The local words serve as part B's
 * lanes or as a bucket's counters (eye.c checks that they hold
 * either). */
static inline void eye_reduce_body(global uint *restrict outer,
                                   global const uchar *restrict partial,
                                   global const uint *restrict eye,
                                   uint nbins, uint width, uint width_shift,
                                   ulong width_recip,
                                   global uchar *restrict hist,
                                   uint part_a_groups, uint bucket_cap,
                                   global uint *restrict buckets,
                                   local uint *lanes, const bool may_record)
{
    if (eye[HISTO_EYE_TILES] == 0 && bucket_cap != 0) {
        reduce_buckets(outer, buckets, bucket_cap, nbins, hist,
                       get_group_id(0), get_num_groups(0), lanes);
        return;
    }
    struct window w;
    read_window(eye, width, width_shift, width_recip, &w, may_record);
    const uint gid = (uint)get_global_id(0);
    const uint size = (uint)get_local_size(0);
    const uint part_a = part_a_groups * size;
    /* the same for every work-item */
    const bool has_part_b = size >= HISTO_REDUCE_LANES
                         && (uint)get_global_size(0) > part_a;
    /* each part built twice, records a constant in each (the same for
     * every work-item) */
    const uint group = (gid - part_a) / size;
    const uint groups = ((uint)get_global_size(0) - part_a) / size;
    if (gid < part_a && w.records)
        reduce_outer(outer, partial, &w, nbins, hist, gid, part_a,
                     has_part_b, true);
    else if (gid < part_a)
        reduce_outer(outer, partial, &w, nbins, hist, gid, part_a,
                     has_part_b, false);
    else if (w.batches != 0 && has_part_b && w.records)
        reduce_window(outer, partial, &w, nbins, hist, group, groups, lanes,
                      true);
    else if (w.batches != 0 && has_part_b) /* uniform: whole groups */
        reduce_window(outer, partial, &w, nbins, hist, group, groups, lanes,
                      false);
}

#define EYE_REDUCE_PARAMS                                                 \
    global uint *restrict outer, global const uchar *restrict partial,    \
        global const uint *restrict eye, uint nbins, uint width,          \
        uint width_shift, ulong width_recip, global uchar *restrict hist, \
        uint part_a_groups, uint bucket_cap, global uint *restrict buckets

kernel void eye_reduce(EYE_REDUCE_PARAMS)
{
    local uint lanes[HISTO_BUCKET_LOCAL_WORDS];
    eye_reduce_body(outer, partial, eye, nbins, width, width_shift,
                    width_recip, hist, part_a_groups, bucket_cap, buckets,
                    lanes, false);
}

#if HISTO_NARROW_AUTO
/* After eye_tile_2d_narrow: the window's bins may hold records in
 * `outer` (eye_count.cl, Narrow counters). A kernel of its own, so that
 * eye_reduce lacks their code (both in one kernel slowed the rest:
 * docs/design.md, "8-bit tiles for wide eyes"). Its lanes are an
 * argument of HISTO_BUCKET_LOCAL_WORDS words (eye.c): Oclgrind counts
 * every kernel's local arrays against each kernel of a program, and two
 * of these overflow its 32 KiB. */
kernel void eye_reduce_narrow(EYE_REDUCE_PARAMS, local uint *lanes)
{
    eye_reduce_body(outer, partial, eye, nbins, width, width_shift,
                    width_recip, hist, part_a_groups, bucket_cap, buckets,
                    lanes, true);
}
#endif
