/*
 * eye_count.cl - counting a slice of the input into a group's tile of
 * local-memory counters, and writing the tile out (eye_tile.cl deals the
 * slices and tiles to the groups).
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
 * 255 without a carry: far slower, docs/design.md, "Rejected, with
 * measured cost".)
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
 * Narrow counters (HISTO_NARROW_AUTO: eye_tile_2d_narrow alone, which the
 * host runs for large inputs; eye_tile.cl chooses them where the window
 * takes two 16-bit tiles or more). Four 8-bit counters a word hold twice
 * the bins of 16-bit ones, so a wide eye takes half the tiles and its
 * batch is read half as often. Every add takes the word before it from
 * its atomic, and with it the exact carry chain it set off: where its
 * counter showed 255, the add wrapped the counter to 0 and carried 1
 * into the next counter of the word (and on while those showed 255
 * too). Each wrap is seen by exactly one add, the one that made it, so
 * that add records it in `outer`: 256 for its own bin, 255 for a bin the
 * carry wrapped on its way (1 in, 256 out), -1 (modulo 2^32) for the bin
 * where the carry stopped, whose counter holds 1 that is not its own. A
 * counter's value plus its bin's records is then its exact count,
 * whatever the order of the adds: nothing is undone in local memory, so
 * nothing races. Counters past the tile's last bin (in its last word)
 * are never flushed and get no record; a carry out of the word's top
 * counter leaves the word. Tiles leave their counters as they are in
 * `partial`; the reduction adds a window bin's records to its partials
 * (eye_reduce.cl says why its sums cannot overflow). Nothing stops at
 * 255: a bin hammered within one group costs a global atomic every 256
 * of its values.
 *
 * Order: built after eye_args.cl, eye_sample.cl and eye_window.cl (the
 * list is eye.c's EYE_TILE_SOURCES).
 */

/* Two 16-bit tile counters a 32-bit word (four 8-bit narrow ones). */
#define BINS_PER_WORD 2u
/* 8-bit counters chosen in eye_tile_2d where the 16-bit window takes two
 * tiles or more, for inputs of at least HISTO_NARROW_AUTO values (the
 * host's HISTO_NARROW_MIN_VALUES; 0: never; see Narrow counters
 * above). */
#ifndef HISTO_NARROW_AUTO
#define HISTO_NARROW_AUTO 0
#endif

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

#if HISTO_NARROW_AUTO
/* The histogram bin of the tile's counter `offset` (*pl's tile: whole
 * rows from tile_lo, or cols columns a row). */
static uint tile_bin(const struct place *pl, uint offset)
{
    if (pl->cols == 0)
        return pl->tile_lo + offset;
    const uint r = offset / pl->cols;
    return pl->tile_lo + r * pl->width + (offset - r * pl->cols);
}

/* The records in `outer` of an add to 8-bit counter `offset` that
 * wrapped it (`old`, the word before the add): see Narrow counters
 * above. */
static void spill(global uint *outer, const struct place *pl, uint old,
                  uint offset)
{
    const uint first = offset & ~3u;
    uint k = offset & 3u;
    uint amount = 256u;
    for (;;) {
        atomic_add(&outer[tile_bin(pl, first + k)], amount);
        if (k == 3u || first + k + 1u >= pl->tile_len)
            return; /* the carry left the word, or reached no bin */
        ++k;
        if (((old >> (8u * k)) & 0xffu) != 0xffu) {
            atomic_dec(&outer[tile_bin(pl, first + k)]);
            return;
        }
        amount = 255u;
    }
}

/* One value into its 8-bit counter, a wrap recorded. */
static void narrow_add(local uint *tile, uint offset, global uint *outer,
                       const struct place *pl)
{
    const uint shift = (offset & 3u) * 8u;
    const uint old = atomic_add(tile + offset / 4u, 1u << shift);
    if (((old >> shift) & 0xffu) == 0xffu)
        spill(outer, pl, old, offset);
}

/* The 8-bit counters (as they are, one copy; their wraps are in
 * `outer`) into dst, four bins a store. */
static void flush_narrow(local const uint *tile, uint tile_len,
                         global uchar *restrict dst, uint lid, uint size)
{
    for (uint i = 4 * lid; i < tile_len; i += 4 * size) {
        if (i + 4 <= tile_len) {
            const uint h = tile[i / 4];
            vstore4((uchar4)(h, h >> 8, h >> 16, h >> 24), i / 4, dst);
        } else {
            for (uint j = i; j < tile_len; ++j)
                dst[j] = (uchar)(tile[j / 4] >> ((j & 3u) * 8u));
        }
    }
}
#endif

/* Whether d bins past a 2-D window's (or tile's) first bin, within its
 * span, lies in its columns; *offset = the bin's counter, row by row.
 * `workload` (a constant at each call): the histogram is the workload's
 * width, HISTO_WORKLOAD_WIDTH, split by the constant; any other width by
 * its reciprocal (eye_args.cl). */
static bool in_cols(uint d, const struct place *pl, uint *offset,
                    const bool workload)
{
    const uint r = workload ? d / HISTO_WORKLOAD_WIDTH
                            : (uint)mul_hi((ulong)d, pl->width_recip);
    const uint c = workload ? d % HISTO_WORKLOAD_WIDTH : d - r * pl->width;
    *offset = r * pl->cols + c;
    return c < pl->cols;
}

/* One value of bin v into `outer`, the result unused (so that NVIDIA's
 * ptxas makes it the no-return REDG). */
static inline void outer_add(global uint *outer, uint v)
{
    atomic_inc(&outer[v]);
}

/* One value into its tile counter: 8-bit where the group counts narrow
 * (a constant at each call), else 16-bit. */
static inline void counter_add(local uint *tile, uint offset, uint *sat,
                               global uint *outer, const struct place *pl,
                               const bool plain, const bool narrow)
{
#if HISTO_NARROW_AUTO
    if (narrow) {
        narrow_add(tile, offset, outer, pl);
        return;
    }
#endif
    tile_add(tile, offset, sat, plain);
}

/* One value of bin v: into the tile, or to `outer` when it lies outside
 * the window and this group is in charge of it. A value left of a 2-D
 * window's columns gets a column offset >= W - c0 >= cols: outside. The
 * differences are unsigned: a value below the window's (or tile's) first
 * bin wraps to at least 2^32 - lo, past its end (windows end at or before
 * nbins <= 2^32 - 1), so one compare tests both sides. */
static inline void count(local uint *tile, uint *sat, global uint *outer,
                         uint v, const struct place *pl, bool duty,
                         const bool two_d, const bool workload,
                         const bool plain, const bool narrow)
{
    uint offset;
    if (!two_d) {
        offset = v - pl->tile_lo;
        if (offset < pl->tile_len)
            counter_add(tile, offset, sat, outer, pl, plain, narrow);
        else if (duty && v - pl->lo >= pl->len)
            outer_add(outer, v);
        return;
    }
    const uint d = v - pl->tile_lo;
    if (d < pl->tile_span && in_cols(d, pl, &offset, workload)) {
        counter_add(tile, offset, sat, outer, pl, plain, narrow);
    } else if (duty) {
        const uint e = v - pl->lo;
        if (!(e < pl->len && in_cols(e, pl, &offset, workload)))
            outer_add(outer, v);
    }
}

static inline void count4(local uint *tile, uint *sat, global uint *outer,
                          uint4 v, const struct place *pl, bool duty,
                          const bool two_d, const bool workload,
                          const bool plain, const bool narrow)
{
    count(tile, sat, outer, v.x, pl, duty, two_d, workload, plain, narrow);
    count(tile, sat, outer, v.y, pl, duty, two_d, workload, plain, narrow);
    count(tile, sat, outer, v.z, pl, duty, two_d, workload, plain, narrow);
    count(tile, sat, outer, v.w, pl, duty, two_d, workload, plain, narrow);
}

/* The group's quads [from_q, to_q) of the input, four quads a step to
 * keep loads in flight; `duty` for quads [duty_lo, duty_hi). Called with
 * two_d, workload and plain constants, so each kind of window, of width
 * and of add gets a loop of its own. */
static inline void count_slice(global const uint *restrict in, uint n,
                               local uint *tile, global uint *outer,
                               const struct place *pl, uint from_q,
                               uint to_q, uint duty_lo, uint duty_hi,
                               const bool two_d, const bool workload,
                               const bool plain, const bool narrow)
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
                   two_d, workload, plain, narrow);
        }
    }
    for (; q < to_q; q += size) {
        const bool duty = q >= duty_lo && q < duty_hi;
        if (q < full_q) {
            count4(tile, &sat, outer, vload4(q, in), pl, duty, two_d,
                   workload, plain, narrow);
        } else {
            for (uint i = 4 * q; i < n; ++i)
                count(tile, &sat, outer, in[i], pl, duty, two_d, workload,
                      plain, narrow);
        }
    }
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
        pl->tile_lo = pl->lo + t * cell_rows * pl->width;
        pl->tile_span = (rows - 1) * pl->width + pl->cols;
        pl->tile_len = rows * pl->cols;
    }
}

/* Zeroes each copy of the tile (see Copies above); the scratch is free:
 * the windows were chosen from it before the last barrier and live in
 * struct eye_small. */
static void zero_tile(local uint *tile, uint tile_len, uint copy_words,
                      uint replicas, uint per_word, uint lid, uint size)
{
    const uint zero_words = (tile_len + per_word - 1) / per_word;
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
