/*
 * eye_tile.cl - one pass over the input: find the eye (eye_sample.cl,
 * eye_window.cl), count it in local-memory tiles (eye_count.cl), send the
 * rest to global atomics or, with no tile at all, to buckets
 * (eye_bucket.cl); the kernels' arguments are eye_args.cl's. This file:
 * the grid, a group's part of it, and the entry kernels eye_tile and
 * eye_tile_2d (eye_fused.cl runs the same phases, and the reduction, in
 * one launch).
 *
 * Grid. The groups are re-dealt once the window is known: with T tiles the
 * input splits into B = groups / T batches (or the B given by the host),
 * group g counting tile g % T of batch g / T. Every group of a batch reads
 * the batch's whole slice but counts only its own tile's bins, with local
 * atomics that contend only inside the group. The values outside the
 * window are shared out: tile t sends those of the t-th part of the slice
 * to `outer`, a full-size 32-bit histogram, with global atomics. With no
 * tile (a flat distribution) every group takes its own slice into the
 * buckets (eye_bucket.cl) where the host gave them room, else to
 * `outer`.
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
 *
 * Order: built after eye_args.cl to eye_bucket.cl (the list is eye.c's
 * EYE_TILE_SOURCES).
 */

/* Where an iteration's groups count, once the eye is found: the window
 * and its tiles, B batches of per_batch groups (group g counting tile
 * g % per_batch of batch g / per_batch), and the layout of `partial`. */
struct grid {
    struct place pl;
    uint tiles, per_batch, batches, slice_q, win_rows, tile_stride,
         cell_rows, tile_bins;
    bool narrow; /* 8-bit counters (HISTO_NARROW_AUTO), twice the bins */
};

/* The eye, then the grid for `groups` counting groups (the host's plan,
 * eye.c; the fused kernel launches more, for its reduction). More
 * batches mean more partial tiles to write and add up: at most
 * HISTO_MAX_BATCHES. Without tiles there are no partials and every
 * group works. */
static void find_grid(global const uint *restrict in,
                      const struct eye_args *a, local uint *tile,
                      local struct eye_small *sm, uint groups,
                      const bool allow_2d, const bool allow_narrow,
                      struct grid *g)
{
    g->tiles = find_eye(in, a, tile, sm, allow_2d, &g->pl, &g->win_rows,
                        &g->tile_stride, &g->cell_rows);
    g->tile_bins = a->tile_bins;
    g->narrow = false;
#if HISTO_NARROW_AUTO
    /* a large input whose window takes two 16-bit tiles or more: 8-bit
     * tiles of twice the bins (rows) each, so the batch is read half as
     * often (eye_count.cl, Narrow counters; the host sized `partial`
     * for them) */
    if (allow_narrow && g->tiles >= 2 && a->n >= HISTO_NARROW_AUTO) {
        g->narrow = true;
        g->tiles = (g->tiles + 1) / 2;
        g->tile_bins *= 2;
        g->cell_rows *= 2;
        g->tile_stride *= 2;
    }
#endif
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
    return sm->hot == HOT_NO
        && slice_q <= HISTO_PLAIN_MAX_VALUES / 4;
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
        eye[HISTO_EYE_ADDS] = HISTO_ADDS_UNSAMPLED
                            | (g->narrow ? HISTO_ADDS_NARROW : 0u);
        return;
    }
    eye[HISTO_EYE_ADDS] =
        (g->narrow ? HISTO_ADDS_NARROW : 0u)
        | (sm->hot == HOT_YES ? HISTO_ADDS_HOT : 0u)
        | (g->tiles != 0 && plain_adds(sm, g->slice_q)
               ? HISTO_ADDS_PLAIN : 0u)
        | (sm->hot == HOT_UNSAMPLED ? HISTO_ADDS_UNSAMPLED : 0u);
}

/* Group `group` of the grid (below batches * per_batch): its slice into
 * its tile (and its share of the values outside the window into
 * `outer`), the tile flushed to `partial`; without a tile, its share into
 * the buckets where the host gave them room (a->bucket_cap, eye_tile_2d
 * only), else into `outer`. The tile's memory is free again once the
 * group has passed a barrier. Always inlined, with eye_fused_body
 * (eye_fused.cl): PoCL 5.0 with LLVM 16 aborts (Kernel.cc:129,
 * region_entry_barrier) on eye_fused's loop over groups when this is a
 * call whose allow_2d is not a constant. */
static inline __attribute__((always_inline)) void
count_group(global const uint *restrict in, const struct eye_args *a,
            local uint *tile, global uchar *restrict partial,
            global uint *restrict outer, global uint *restrict buckets,
            const struct grid *g, local const struct eye_small *sm,
            uint group, const bool allow_2d, const bool allow_narrow)
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
    place_tile(&pl, t, tiles, g->tile_bins, g->cell_rows, g->win_rows);
    const uint copy_words = a->tile_bins / BINS_PER_WORD;
    const bool narrow = HISTO_NARROW_AUTO && allow_narrow && g->narrow;
    zero_tile(tile, pl.tile_len, copy_words, replicas,
              narrow ? 4u : BINS_PER_WORD, lid, size);
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
    /* 2-D: a loop for the workload's width, one for the others */
    const bool workload = pl.width == HISTO_WORKLOAD_WIDTH;
    if (narrow) {
        if (pl.cols != 0 && workload)
            count_slice(in, n, my_copy, outer, &pl, from_q, to_q, duty_lo,
                        duty_hi, true, true, false, true);
        else if (pl.cols != 0)
            count_slice(in, n, my_copy, outer, &pl, from_q, to_q, duty_lo,
                        duty_hi, true, false, false, true);
        else
            count_slice(in, n, my_copy, outer, &pl, from_q, to_q, duty_lo,
                        duty_hi, false, false, false, true);
    } else {
        /* four exclusive ifs, not an else-if chain: nested else-ifs make
         * regions that all end at the barrier below, and PoCL 5.0's
         * region isolation then leaves blocks without predecessors in
         * front of it, on which it aborts inside eye_fused_2d's loop over
         * groups (its issue 1435; docs/design.md) */
        const bool two_d = allow_2d && pl.cols != 0;
        if (two_d && workload)
            count_slice(in, n, my_copy, outer, &pl, from_q, to_q, duty_lo,
                        duty_hi, true, true, false, false);
        if (two_d && !workload)
            count_slice(in, n, my_copy, outer, &pl, from_q, to_q, duty_lo,
                        duty_hi, true, false, false, false);
        if (!two_d && plain)
            count_slice(in, n, my_copy, outer, &pl, from_q, to_q, duty_lo,
                        duty_hi, false, false, true, false);
        if (!two_d && !plain)
            count_slice(in, n, my_copy, outer, &pl, from_q, to_q, duty_lo,
                        duty_hi, false, false, false, false);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    global uchar *restrict dst =
        partial + ((ulong)batch * per_batch + t) * g->tile_stride;
#if HISTO_NARROW_AUTO
    if (narrow) {
        flush_narrow(tile, pl.tile_len, dst, lid, size);
        return;
    }
#endif
    flush_tile(tile, pl.tile_len, copy_words, replicas, dst, lid, size);
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
                                 const bool allow_2d,
                                 const bool allow_narrow)
{
    const uint group = get_group_id(0);
    const uint groups = a->count_groups;
    struct grid g;
    find_grid(in, a, tile, sm, groups, allow_2d, allow_narrow, &g);
    if (group == 0 && get_local_id(0) == 0)
        publish(eye, &g, sm, a->n, min(groups, g.batches * g.per_batch),
                allow_2d);
    if (group >= g.batches * g.per_batch)
        return; /* uniform across the group: no barrier is skipped unevenly */
    count_group(in, a, tile, partial, outer, buckets, &g, sm, group,
                allow_2d, allow_narrow);
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

/* The tile kernels' parameters after EYE_PARAMS, and their one body:
 * allow_2d, a constant at each entry below, adds the 2-D window. */
#define EYE_TILE_PARAMS                                                   \
    EYE_PARAMS, global uchar *restrict partial,                           \
        global uint *restrict outer, global uint *restrict eye,           \
        uint bucket_cap, global uint *restrict buckets
#define EYE_TILE_ENTRY(allow_2d, allow_narrow)                            \
    local struct eye_small small;                                         \
    const struct eye_args a = EYE_ARGS(bucket_cap);                       \
    eye_tile_body(in, &a, tile, partial, outer, eye, buckets, &small,     \
                  allow_2d, allow_narrow)

/* Whole-row windows only: for inputs the host knows cannot take a 2-D
 * window (eye.c), without its sampling pass, second grid of cells and
 * second counting loop, costly everywhere (docs/design.md, "The 2-D
 * window for large inputs"). */
TILE_GROUP_SIZE
kernel void eye_tile(EYE_TILE_PARAMS)
{
    EYE_TILE_ENTRY(false, false);
}

/* Whole-row or 2-D windows, whichever the samples favour. Built without
 * reqd_work_group_size: given it, NVIDIA's compiler drops the register
 * cap of -cl-nv-maxrregcount=32 for this kernel (55 registers, one group
 * of 1024 a multiprocessor, not two: docs/design.md, "Rejected, with
 * measured cost"). The host runs it at the size the runtime
 * accepted for eye_tile in the same program (eye.c, tile_group). */
kernel void eye_tile_2d(EYE_TILE_PARAMS)
{
    EYE_TILE_ENTRY(true, false);
}

#if HISTO_NARROW_AUTO
/* eye_tile_2d that counts a window of two 16-bit tiles or more in 8-bit
 * tiles (eye_count.cl, Narrow counters), for inputs of at least
 * HISTO_NARROW_AUTO values: the host runs it in eye_tile_2d's place for
 * those alone, since its second kind of counting costs eye_tile_2d's
 * other inputs registers (ptxas spills at 32). */
kernel void eye_tile_2d_narrow(EYE_TILE_PARAMS)
{
    EYE_TILE_ENTRY(true, true);
}
#endif
