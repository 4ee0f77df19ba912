/*
 * eye_fused.cl - a whole iteration of the eye strategy in one launch:
 * the tile kernels' counting (eye_count.cl), a barrier across the groups
 * that run together, then eye_reduce.cl's reduction by those same groups.
 *
 * OpenCL 1.2 promises no forward progress between work-groups: a group
 * may wait for another only if both are known to run at the same time.
 * The groups that do are found when the kernel starts (occupancy
 * discovery, after Sorensen et al., "Portable Inter-workgroup Barrier
 * Synchronisation for GPUs", OOPSLA 2016): each group takes a ticket
 * from a counter whose top bit is the closed poll; a group that finds
 * it closed leaves, having written nothing but its local memory (it
 * looks at its ticket once it has sampled the eye, so that the ticket's
 * round trip overlaps the sampling). A group holding a ticket is
 * running, and every group closes the poll once it has sampled the eye
 * (a few microseconds, time for the groups of the first wave to take
 * their tickets). The first close fixes the participants, P, and
 * publishes P; the others wait for it. The participants then deal the
 * planned groups among them (participant p counts groups p, p + P, ...,
 * so the counts are the same whatever P), and meet at an arrival counter
 * before the reduction, which they share out the same way. A runtime
 * that runs one group at a time (Oclgrind) gets P = 1: the first group
 * does everything and the barrier waits for no one; no path waits for a
 * group that has not taken a ticket, so the kernel ends on any
 * scheduler that keeps running a group once it has started.
 *
 * Memory: a group's global writes (partial tiles, the out-of-eye
 * atomics) are fenced before it arrives; a group reads the others'
 * partials and `outer` only after the arrival counter shows all P, read
 * atomically, and a fence. The fence must order memory for the other
 * groups: OpenCL C 1.2's mem_fence promises order for the work-item
 * alone (NVIDIA's compiler makes it membar.cta, the group's scope), so
 * the host builds this program with the device's strongest (HISTO_FENCE,
 * below) and defaults to fused only where that is of device scope
 * (eye.c's fused_fits). Those buffers are never read before the barrier in the
 * same launch, so no stale cached copy can be read. Only
 * the input is a restrict pointer: it alone is read-only for the whole
 * launch (and may take the read-only cache path); partial, outer and
 * hist are written by some groups and read by others.
 *
 * Control words: two blocks of HISTO_FUSED_CTL_WORDS, used by alternate
 * launches (`launch`, the host's count of launches, set for each). The
 * first close zeroes the other block for the next launch; nothing of this launch
 * touches it, and the launch before has ended (an in-order queue), so
 * no late group of either can meet the zeroing. The host zeroes both
 * once. Nothing computed from the input is carried to the next launch:
 * `outer` is left zero by the reduction, as with two launches.
 *
 * Order: built last, after eye_args.cl to eye_reduce.cl, whose functions
 * it calls (the list is eye.c's EYE_TILE_SOURCES).
 */

/* The barrier's fence (the host's -DHISTO_FENCE, eye.c): 1, OpenCL C 2.0
 * or 3.0's acquire-release fence at device scope (the program is then
 * built as that version); 2, NVIDIA's PTX membar.gl, where the device
 * offers no such fence but its compiler takes PTX; 3, the same from
 * compute capability 7, where grid_barrier() arrives by a release add and
 * waits by acquire loads of gpu scope instead of a fence each side, which
 * wait for every write of the group (docs/design.md says what each costs);
 * 0, mem_fence. */
#if HISTO_FENCE == 1
#define DEVICE_FENCE()                                                   \
    atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acq_rel,   \
                           memory_scope_device)
#elif HISTO_FENCE == 2
#define DEVICE_FENCE() asm volatile("membar.gl;" ::: "memory")
#else
#define DEVICE_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif

/* The poll's closed bit, on the ticket counter. */
#define CLOSED 0x80000000u

/* An atomic read of a control word. */
static uint ctl_read(volatile global uint *w)
{
    return atomic_or(w, 0u);
}

/* Asks for a ticket: lid 0's atomic on the ticket counter, whose value
 * (this group's participant number, with CLOSED set if the poll was
 * closed) is looked at only in share_ticket(), after the eye is found,
 * so that its round trip overlaps the sampling. Other work-items get 0. */
static uint ask_ticket(volatile global uint *ctl)
{
    return get_local_id(0) == 0 ? atomic_inc(&ctl[HISTO_FUSED_TICKETS]) : 0u;
}

/* The ticket for every work-item: the participant number, or CLOSED when
 * the group takes no part. */
static uint share_ticket(uint ticket, local uint *shared)
{
    if (get_local_id(0) == 0)
        shared[0] = ticket;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint t = shared[0];
    return (t & CLOSED) ? CLOSED : t;
}

/* Closes the poll, if no other group has: lid 0's atomic, whose value
 * (the counter before) settle_poll() looks at after the group's first
 * counted group, so that its round trip overlaps the counting. */
static uint close_poll(volatile global uint *ctl)
{
    return get_local_id(0) == 0 ? atomic_or(&ctl[HISTO_FUSED_TICKETS], CLOSED)
                                : 0u;
}

/* The number of participants, from close_poll()'s value: the first
 * close (the value without CLOSED) publishes it and zeroes the next
 * launch's control block `next`; the others wait for it. */
static uint settle_poll(uint before, volatile global uint *ctl,
                        volatile global uint *next, local uint *shared)
{
    if (get_local_id(0) == 0) {
        if (!(before & CLOSED)) {
            for (uint i = 0; i < HISTO_FUSED_CTL_WORDS; ++i)
                atomic_xchg(&next[i], 0u);
            atomic_xchg(&ctl[HISTO_FUSED_PARTICIPANTS], before);
        }
        uint p;
        while ((p = ctl_read(&ctl[HISTO_FUSED_PARTICIPANTS])) == 0)
            ;
        shared[1] = p;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return shared[1];
}

/* Waits until all `participants` groups have arrived; every work-item's
 * global writes before it are seen by every group after it (lid 0 fences
 * after the group's barrier, before its arrival, or arrives by a release
 * add: the writes of the group are ordered before it by the barrier, and
 * a device-scope release is cumulative; its fence after the wait, or its
 * acquire loads, order the group's later reads). */
static void grid_barrier(volatile global uint *ctl, uint participants)
{
    volatile global uint *arrived = &ctl[HISTO_FUSED_ARRIVED];
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
#if HISTO_FENCE == 3
        asm volatile("red.release.gpu.global.add.u32 [%0], 1;"
                     :: "l"(arrived) : "memory");
        for (;;) {
            uint seen;
            asm volatile("ld.acquire.gpu.global.u32 %0, [%1];"
                         : "=r"(seen) : "l"(arrived) : "memory");
            if (seen >= participants)
                break;
        }
#else
        DEVICE_FENCE();
        atomic_inc(arrived);
        while (ctl_read(arrived) < participants)
            ;
        DEVICE_FENCE();
#endif
    }
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
}

/* The reduction's view of the grid (eye_reduce.cl's struct window). */
static void window_of(const struct grid *g, struct window *w)
{
    w->lo = g->pl.lo;
    w->hi = g->pl.lo + g->pl.len;
    w->batches = g->tiles ? g->batches : 0;
    w->cols = g->pl.cols;
    w->rows = g->win_rows;
    w->width = g->pl.width;
    w->width_shift = g->pl.width_shift;
    w->width_recip = g->pl.width_recip;
    w->stride = (ulong)g->tiles * g->tile_stride;
    w->records = g->narrow;
}

/* The body: tickets, the eye, the poll closed, the planned groups
 * counted, the barrier, the reduction (part A over every participant's
 * work-items, then part B where the tile's memory holds its lanes).
 * Neither the ticket's nor the close's round trip is waited for where it
 * is asked: the ticket is looked at once the eye is found, the close once
 * the group has counted its first group (participant p counts group p
 * first, whatever P; only the groups after it need P). Always inlined,
 * so that allow_2d is a constant in count_group (eye_tile.cl says why). */
static inline __attribute__((always_inline)) void
eye_fused_body(global const uint *restrict in, const struct eye_args *a,
               local uint *tile, global uchar *partial, global uint *outer,
               global uint *eye, global uchar *hist, global uint *control,
               uint launch, local struct eye_small *sm, local uint *shared,
               const bool allow_2d)
{
    const uint parity = launch & 1u;
    volatile global uint *ctl = control + parity * HISTO_FUSED_CTL_WORDS;
    volatile global uint *next = control
                               + (parity ^ 1u) * HISTO_FUSED_CTL_WORDS;
    const uint ticket = ask_ticket(ctl);
    /* the groups planned to count (the host launches one a tile group's
     * place on every compute unit, so that all of them share the
     * reduction, whatever few count a small input) */
    const uint planned = a->count_groups;
    struct grid g;
    find_grid(in, a, tile, sm, planned, allow_2d, false, &g);
    const uint me = share_ticket(ticket, shared);
    if (me == CLOSED)
        return; /* the whole group: no barrier is skipped unevenly */
    const uint before = close_poll(ctl);
    const uint counting = min(planned, g.batches * g.per_batch);
    if (me < counting) {
        count_group(in, a, tile, partial, outer, 0, &g, sm, me, allow_2d,
                    false);
        barrier(CLK_LOCAL_MEM_FENCE); /* the tile is free again */
    }
    const uint participants = settle_poll(before, ctl, next, shared);
    if (me == 0 && get_local_id(0) == 0)
        publish(eye, &g, sm, a->n, min(participants, counting), allow_2d);
    for (uint group = me + participants; group < counting;
         group += participants) {
        count_group(in, a, tile, partial, outer, 0, &g, sm, group, allow_2d,
                    false);
        barrier(CLK_LOCAL_MEM_FENCE); /* the tile is free again */
    }
    grid_barrier(ctl, participants);

    struct window w;
    window_of(&g, &w);
    const uint size = get_local_size(0);
    const uint nbins = a->nbins;
    /* part B's lanes need four words a work-item in the tile's memory */
    const bool has_part_b = size >= HISTO_REDUCE_LANES
                         && a->tile_words / 4 >= size;
    reduce_outer(outer, partial, &w, nbins, hist, me * size + get_local_id(0),
                 participants * size, has_part_b, w.records);
    if (w.batches != 0 && has_part_b)
        reduce_window(outer, partial, &w, nbins, hist, me, participants,
                      tile, w.records);
}

/* The fused kernels' parameters after EYE_PARAMS (eye_args.cl), and
 * their one body: allow_2d, a constant at each entry below, adds the 2-D
 * window. */
#define EYE_FUSED_PARAMS                                                  \
    EYE_PARAMS, global uchar *partial, global uint *outer,                \
        global uint *eye, global uchar *hist, global uint *control,       \
        uint launch
#define EYE_FUSED_ENTRY(allow_2d)                                         \
    local struct eye_small small;                                         \
    local uint shared[2];                                                 \
    const struct eye_args a = EYE_ARGS(0u);                               \
    eye_fused_body(in, &a, tile, partial, outer, eye, hist, control,      \
                   launch, &small, shared, allow_2d)

/* Whole rows only. Both fused kernels are built without
 * reqd_work_group_size, as eye_tile_2d is and for its reason (eye_tile.cl):
 * given it, NVIDIA's compiler drops the register cap, and a group of 1024
 * no longer leaves room for a second on a multiprocessor. The host runs
 * them at the size the runtime built eye_tile for (eye.c, tile_group). */
kernel void eye_fused(EYE_FUSED_PARAMS)
{
    EYE_FUSED_ENTRY(false);
}

/* Whole-row or 2-D windows. */
kernel void eye_fused_2d(EYE_FUSED_PARAMS)
{
    EYE_FUSED_ENTRY(true);
}
