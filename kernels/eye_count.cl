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
 * Narrow counters (HISTO_COUNTER_BITS 4 or 8, the host's
 * HISTO_EYE_COUNTER_BITS; the eye and fused strategies). Eight 4-bit or
 * four 8-bit counters a word hold four or two times the bins of 16-bit
 * ones, so a wide eye takes fewer tiles and its batch is read that much
 * less often. Every add takes the word before it from its atomic, and
 * with it the exact carry chain it set off: where its counter showed its
 * largest value TOP (15 or 255), the add wrapped the counter to 0 and
 * carried 1 into the next counter of the word (and on while those showed
 * TOP too). Each wrap is seen by exactly one add, the one that made it,
 * so that add records it in `outer`: TOP + 1 for its own bin, TOP for a
 * bin the carry wrapped on its way (1 in, TOP + 1 out), -1 (modulo 2^32)
 * for the bin where the carry stopped, whose counter holds 1 that is not
 * its own. A counter's value plus its bin's records is then its exact
 * count, whatever the order of the adds: nothing is undone in local
 * memory, so nothing races. Counters past the tile's last bin (in its
 * last word) are never flushed and get no record; a carry out of the
 * word's top counter leaves the word. Tiles leave their counters as they
 * are in `partial`; the reduction adds a window bin's records to its
 * partials with signed sums (eye_reduce.cl). Nothing stops at 255: a bin
 * hammered within one group costs a global atomic every TOP + 1 of its
 * values.
 *
 * 32-bit counters (HISTO_COUNTER_BITS=32): one a word, nothing read,
 * every value an atomic_inc, which NVIDIA can make ATOMS.POPC.INC (a
 * warp's increments of one word merged); half the bins of 16-bit ones.
 *
 * Outer cache (HISTO_OUTER_CACHE_BITS > 0, the host's
 * HISTO_EYE_OUTER_CACHE slots; one copy of the tile): the group's values
 * outside the window go through a small hash table in local memory just
 * before the tile's counters (the host takes its words from the tile's),
 * 2^bits keys then as many 32-bit counts, so that it lies a constant
 * offset below the tile pointer in hand. A value whose slot shows its
 * bin adds to the slot's count; one whose slot shows empty claims it with
 * a compare-and-swap (or finds its bin put there meanwhile) and adds; a
 * slot another bin holds sends it to `outer` at once. A key changes only
 * from empty to a bin while the group counts, so the read before the
 * compare-and-swap can only be stale in showing empty, and a slot's
 * count is its bin's alone; after the group's barrier each slot adds its
 * count to `outer` once and empties itself. A bin hit often within a
 * group's slice then costs `outer` one global atomic a group instead of
 * one a value.
 */

/* The tile counters' bits (the host's HISTO_EYE_COUNTER_BITS: 16, or 4
 * or 32 for the eye and fused strategies), and the counters a 32-bit
 * word holds. */
#ifndef HISTO_COUNTER_BITS
#define HISTO_COUNTER_BITS 16
#endif
/* Counters narrower than 16 bits record their wraps in `outer` */
#define HISTO_RECORDS (HISTO_COUNTER_BITS < 16)
#define BINS_PER_WORD (32u / HISTO_COUNTER_BITS)
#if HISTO_COUNTER_BITS != 16 && !HISTO_ONE_COPY
#error "4-, 8- and 32-bit tile counters are built for one copy of each tile"
#endif
#if HISTO_COUNTER_BITS != 4 && HISTO_COUNTER_BITS != 8 \
    && HISTO_COUNTER_BITS != 16 && HISTO_COUNTER_BITS != 32
#error "tile counters of 4, 8, 16 or 32 bits"
#endif
#ifndef HISTO_RLE
#define HISTO_RLE 0
#endif
/* 8-bit counters chosen in eye_tile_2d where the 16-bit window takes two
 * tiles or more, for inputs of at least HISTO_NARROW_AUTO values (the
 * host's HISTO_NARROW_MIN_VALUES; 0: never; see Narrow counters
 * above). */
#ifndef HISTO_NARROW_AUTO
#define HISTO_NARROW_AUTO 0
#endif
#if HISTO_NARROW_AUTO && HISTO_COUNTER_BITS != 16
#error "8-bit counters by choice only beside 16-bit ones"
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
#if HISTO_RLE && HISTO_TILE_REQD_SIZE > HISTO_TILE_GROUP_BOUND / 4
#error "16-bit tile counters cannot hold 255 plus a run of four per work-item of so large a group"
#endif
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
                     const bool plain, uint amount)
{
    const uint shift = (offset & 1) << 4;
    volatile local uint *word = tile + (offset >> 1);
    if (plain) {
        atomic_add(word, amount << shift);
        return;
    }
    if (offset == *sat)
        return;
    if (((*word >> shift) & 0xffff) < HISTO_SATURATE) /* race: pre-read */
        atomic_add(word, amount << shift);             /* race: its add */
    else
        *sat = offset;
}

#if HISTO_RECORDS || HISTO_NARROW_AUTO
/* The histogram bin of the tile's counter `offset` (*pl's tile: whole
 * rows from tile_lo, or cols columns a row). */
static uint tile_bin(const struct place *pl, uint offset)
{
    if (pl->cols == 0)
        return pl->tile_lo + offset;
    const uint r = offset / pl->cols;
    return pl->tile_lo + r * HISTO_WIDTH + (offset - r * pl->cols);
}

/* The records in `outer` of an add to counter `offset` of `bits` bits
 * (a constant at each call: 4 or 8; 32 / bits a word, the largest
 * value top) that wrapped it (`old`, the word before the add): see
 * Narrow counters above. */
static void spill(global uint *outer, const struct place *pl, uint old,
                  uint offset, const uint bits)
{
    const uint per_word = 32u / bits, top = (1u << bits) - 1u;
    const uint first = offset & ~(per_word - 1u);
    uint k = offset & (per_word - 1u);
    uint amount = top + 1u;
    for (;;) {
        atomic_add(&outer[tile_bin(pl, first + k)], amount);
        if (k == per_word - 1u || first + k + 1u >= pl->tile_len)
            return; /* the carry left the word, or reached no bin */
        ++k;
        if (((old >> (bits * k)) & top) != top) {
            atomic_dec(&outer[tile_bin(pl, first + k)]);
            return;
        }
        amount = top;
    }
}

/* `amount` values (at most top) into their narrow counter, the add's
 * wraps recorded: it wrapped the counter where the counter showed
 * top + 1 - amount or more. */
static void narrow_add(local uint *tile, uint offset, global uint *outer,
                       const struct place *pl, uint amount, const uint bits)
{
    const uint per_word = 32u / bits, top = (1u << bits) - 1u;
    const uint shift = (offset & (per_word - 1u)) * bits;
    const uint old = atomic_add(tile + offset / per_word, amount << shift);
    if (((old >> shift) & top) + amount > top)
        spill(outer, pl, old, offset, bits);
}

/* The narrow counters (as they are, one copy; their wraps are in
 * `outer`) into dst, four bins in 4 * bits bits a store. */
static void flush_narrow(local const uint *tile, uint tile_len,
                         global uchar *restrict dst, uint lid, uint size,
                         const uint bits)
{
    const uint per_word = 32u / bits, top = (1u << bits) - 1u;
    for (uint i = 4 * lid; i < tile_len; i += 4 * size) {
        if (i + 4 <= tile_len) {
            const uint h = tile[i / per_word] >> ((i & (per_word - 1u)) * bits);
            vstore4((uchar4)(h & top, (h >> bits) & top,
                             (h >> (2 * bits)) & top,
                             (h >> (3 * bits)) & top),
                    i / 4, dst);
        } else {
            for (uint j = i; j < tile_len; ++j)
                dst[j] = (uchar)((tile[j / per_word]
                                  >> ((j & (per_word - 1u)) * bits)) & top);
        }
    }
}
#endif

#if HISTO_RECORDS
#define COUNTER_ADD(tile, offset, sat, plain, amount) \
    narrow_add(tile, offset, outer, pl, amount, HISTO_COUNTER_BITS)
#elif HISTO_COUNTER_BITS == 32
/* `amount` values into their 32-bit counter: nothing read, nothing can
 * carry (a slice holds fewer than 2^32 values); an increment by one is
 * atomic_inc, which NVIDIA's ptxas can make ATOMS.POPC.INC (a warp's
 * increments of one word merged). */
static void word_add(local uint *tile, uint offset, uint amount)
{
    if (amount == 1u)
        atomic_inc(tile + offset);
    else
        atomic_add(tile + offset, amount);
}
#define COUNTER_ADD(tile, offset, sat, plain, amount) \
    word_add(tile, offset, amount)
#else
#define COUNTER_ADD(tile, offset, sat, plain, amount) \
    tile_add(tile, offset, sat, plain, amount)
#endif

/* Whether d bins past a 2-D window's (or tile's) first bin, within its
 * span, lies in its columns; *offset = the bin's counter, row by row. */
static bool in_cols(uint d, uint cols, uint *offset)
{
    const uint r = d / HISTO_WIDTH;
    const uint c = d - r * HISTO_WIDTH;
    *offset = r * cols + c;
    return c < cols;
}

/* `amount` values of bin v into `outer`, the result unused (so that
 * NVIDIA's ptxas makes it the no-return REDG). */
static inline void outer_add(global uint *outer, uint v, uint amount)
{
    if (amount == 1u)
        atomic_inc(&outer[v]);
    else
        atomic_add(&outer[v], amount);
}

#if HISTO_OUTER_CACHE_BITS
#if !HISTO_ONE_COPY
#error "the outer cache is built for one copy of each tile"
#endif
#define CACHE_SLOTS (1u << HISTO_OUTER_CACHE_BITS)
#define CACHE_WORDS (2u * CACHE_SLOTS)
#define CACHE_EMPTY 0xffffffffu /* no bin: nbins <= 2^32 - 1 */

/* `amount` values of bin v through the group's cache (see Outer cache
 * above), `cache` CACHE_WORDS below the tile: its slot by Fibonacci
 * hashing, so neighbouring bins spread. */
static inline void cached_outer_add(local uint *cache, global uint *outer,
                                    uint v, uint amount)
{
    const uint slot = (v * 0x9e3779b9u) >> (32 - HISTO_OUTER_CACHE_BITS);
    volatile local uint *key = cache + slot;
    uint k = *key; /* race: pre-read of a key */
    if (k == CACHE_EMPTY)
        k = atomic_cmpxchg(key, CACHE_EMPTY, v);
    if (k == CACHE_EMPTY || k == v)
        atomic_add(cache + CACHE_SLOTS + slot, amount);
    else
        outer_add(outer, v, amount);
}

/* The cache emptied, slot by slot, each work-item its own slots: so
 * flush_cache's slots are the same work-item's, and no barrier is needed
 * between a flush and the next group's empty cache. */
static void empty_cache(local uint *cache, uint lid, uint size)
{
    for (uint i = lid; i < CACHE_SLOTS; i += size) {
        cache[i] = CACHE_EMPTY;
        cache[CACHE_SLOTS + i] = 0;
    }
}

/* Each held slot's count into `outer` (after the group's barrier), the
 * slot emptied. */
static void flush_cache(local uint *cache, global uint *outer, uint lid,
                        uint size)
{
    for (uint i = lid; i < CACHE_SLOTS; i += size) {
        const uint key = cache[i];
        if (key != CACHE_EMPTY) {
            atomic_add(&outer[key], cache[CACHE_SLOTS + i]);
            cache[i] = CACHE_EMPTY;
            cache[CACHE_SLOTS + i] = 0;
        }
    }
}
#define OUTER_ADD(outer, v, amount) \
    cached_outer_add(tile - CACHE_WORDS, outer, v, amount)
#else
#define OUTER_ADD outer_add
#endif

/* `amount` values (1, or a run of 4: HISTO_RLE) of bin v: into the
 * tile, or to `outer` when it lies outside the
 * window and this group is in charge of it. A value left of a 2-D
 * window's columns gets a column offset >= W - c0 >= cols: outside. The
 * differences are unsigned: a value below the window's (or tile's) first
 * bin wraps to at least 2^32 - lo, past its end (windows end at or before
 * nbins <= 2^32 - 1), so one compare tests both sides. */
static inline void count_n(local uint *tile, uint *sat, global uint *outer,
                           uint v, const struct place *pl, bool duty,
                           const bool two_d, const bool plain,
                           const bool narrow, uint amount)
{
    uint offset;
#if HISTO_NARROW_AUTO
#define ADD(tile, offset, sat, plain, amount)                             \
    if (narrow)                                                           \
        narrow_add(tile, offset, outer, pl, amount, 8u);                  \
    else                                                                  \
        COUNTER_ADD(tile, offset, sat, plain, amount)
#else
#define ADD COUNTER_ADD
#endif
    if (!two_d) {
        offset = v - pl->tile_lo;
        if (offset < pl->tile_len) {
            ADD(tile, offset, sat, plain, amount);
        }
        else if (duty && v - pl->lo >= pl->len)
            OUTER_ADD(outer, v, amount);
        return;
    }
    const uint d = v - pl->tile_lo;
    if (d < pl->tile_span && in_cols(d, pl->cols, &offset)) {
        ADD(tile, offset, sat, plain, amount);
    } else if (duty) {
        const uint e = v - pl->lo;
        if (!(e < pl->len && in_cols(e, pl->cols, &offset)))
            OUTER_ADD(outer, v, amount);
    }
#undef ADD
}

/* One value (count_n's amount a constant 1). */
static inline void count(local uint *tile, uint *sat, global uint *outer,
                         uint v, const struct place *pl, bool duty,
                         const bool two_d, const bool plain,
                         const bool narrow)
{
    count_n(tile, sat, outer, v, pl, duty, two_d, plain, narrow, 1u);
}

static inline void count4(local uint *tile, uint *sat, global uint *outer,
                          uint4 v, const struct place *pl, bool duty,
                          const bool two_d, const bool plain,
                          const bool narrow)
{
#if HISTO_RLE
    /* a run of four equal values: one add of 4 (lever 3, run-length
     * within a work-item; HISTO_EYE_RLE=1) */
    if (v.x == v.y && v.x == v.z && v.x == v.w) {
        count_n(tile, sat, outer, v.x, pl, duty, two_d, plain, narrow, 4u);
        return;
    }
#endif
    count(tile, sat, outer, v.x, pl, duty, two_d, plain, narrow);
    count(tile, sat, outer, v.y, pl, duty, two_d, plain, narrow);
    count(tile, sat, outer, v.z, pl, duty, two_d, plain, narrow);
    count(tile, sat, outer, v.w, pl, duty, two_d, plain, narrow);
}

/* The group's quads [from_q, to_q) of the input, four quads a step to
 * keep loads in flight; `duty` for quads [duty_lo, duty_hi). Called with
 * two_d and plain constants, so each kind of window and of add gets a
 * loop of its own. */
static inline void count_slice(global const uint *restrict in, uint n,
                               local uint *tile, global uint *outer,
                               const struct place *pl, uint from_q,
                               uint to_q, uint duty_lo, uint duty_hi,
                               const bool two_d, const bool plain,
                               const bool narrow)
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
                   two_d, plain, narrow);
        }
    }
    for (; q < to_q; q += size) {
        const bool duty = q >= duty_lo && q < duty_hi;
        if (q < full_q) {
            count4(tile, &sat, outer, vload4(q, in), pl, duty, two_d, plain,
                   narrow);
        } else {
            for (uint i = 4 * q; i < n; ++i)
                count(tile, &sat, outer, in[i], pl, duty, two_d, plain,
                      narrow);
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
        pl->tile_lo = pl->lo + t * cell_rows * HISTO_WIDTH;
        pl->tile_span = (rows - 1) * HISTO_WIDTH + pl->cols;
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
#if HISTO_COUNTER_BITS == 32
    /* 32-bit counters (one copy), saturated: four bins four words */
    for (uint i = 4 * lid; i < tile_len; i += 4 * size) {
        if (i + 4 <= tile_len) {
            vstore4(convert_uchar4(min(vload4(i / 4, tile),
                                       (uint4)(HISTO_SATURATE))),
                    i / 4, dst);
        } else {
            for (uint j = i; j < tile_len; ++j)
                dst[j] = (uchar)min(tile[j], (uint)HISTO_SATURATE);
        }
    }
#elif HISTO_RECORDS
    flush_narrow(tile, tile_len, dst, lid, size, HISTO_COUNTER_BITS);
#else
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
#endif
}
