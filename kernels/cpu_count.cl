/*
 * cpu_count.cl - the counting pass of the cpu strategy, for devices with an
 * implicit cache (PoCL's pthread device and other CPU runtimes), where local
 * memory is ordinary cached memory and local atomics and barriers cost far
 * more than they save.
 *
 * One work-item per work-group, so a runtime like PoCL compiles the kernel
 * to a plain loop on one core. The input is cut into batches: batch 0 is
 * [0, first), batch b > 0 is [first + (b-1)*slice, first + b*slice).
 *
 * Work-group 0 owns the output histogram `hist` for this pass: it zeroes it
 * and counts batch 0 straight into it. Every other work-group b owns a
 * private histogram, partial[(b-1)*stride ..], and counts its batch there.
 * A single work-item owns each histogram, so plain increments are exact: no
 * atomics. Counters are bytes saturating at HISTO_SATURATE, which is exact
 * too (if one batch reaches 255 in a bin, so does the sum) and keeps each
 * histogram as small as the output, so its hot part stays in the core's
 * cache. The host makes batch 0 shorter to pay for the zeroing
 * (HISTO_CPU_ZERO_BYTES_PER_VALUE).
 *
 * The private histograms are all zero on entry: filled once when created,
 * then restored by cpu_merge.cl, which clears every line it consumes. The
 * output is rebuilt from zero by every pass. No state survives an
 * iteration.
 *
 * Where the host compiles it in (HISTO_CPU_ONE_COMMAND), the groups of one
 * launch may also meet and merge (count_merge, below), so that an
 * iteration of several batches is one command; built after cpu_merge.cl,
 * whose merge_lines() it calls.
 */
/* Zeroes the output histogram. 64-byte stores: one per cache line. The
 * bound is the last whole line's end, not i + 64 <= nbins: nbins may be
 * up to 2^32 - 1, where i + 64 wraps to a small number and the loop would
 * never end. i stops at whole <= nbins, and ++i at nbins. */
static void zero_hist(global uchar *restrict hist, uint nbins)
{
    const uint whole = nbins & ~63u;
    uint i = 0;
    for (; i < whole; i += 64)
        vstore8((ulong8)0, 0, (global ulong *)(hist + i));
    for (; i < nbins; ++i)
        hist[i] = 0;
}

/* Counts batch b of the input into h. n <= 2^31 (checked by the host),
 * so the bounds, clamped to n, fit in uint; the sums are taken in ulong
 * (start + slice could reach 2^32). */
static void count_batch(global const uint *restrict in, uint n, uint first,
                        uint slice, uint b, global uchar *restrict h)
{
    uint start, end;
    if (b == 0) {
        start = 0;
        end = min(first, n);
    } else {
        start = (uint)min((ulong)first + (ulong)(b - 1) * slice, (ulong)n);
        end = (uint)min((ulong)start + slice, (ulong)n);
    }
    /* Two loops, chosen per chunk from the share of saturated counters the
     * previous chunk met: a branch on saturation is the fastest while it
     * is predictable, that is while almost no counter is saturated or
     * almost every one is (one bin hammered), and costs a misprediction at
     * many values in between; the branch-free loop costs a little on every
     * value instead, and stores even to a saturated counter (a chain of
     * stores to one byte when one bin is hammered, slower there than the
     * sequential loop).
     * With HISTO_CPU_ONE_LOOP (devices that end loops early: the host
     * plans every work-item's iterations within the limit, one a value)
     * only the branch-free loop is compiled: with both loops live and
     * chosen by the data, llvmpipe ends them early (docs/design.md). */
    const bool adapt = !HISTO_CPU_ONE_LOOP;
    bool branchy = adapt;
    /* i < end <= n <= 2^31: i + HISTO_CPU_CHUNK fits in uint. Values
     * are < nbins (checked by the host), so h[v] stays in the histogram. */
    for (uint i = start; i < end;) {
        const uint stop = min(i + HISTO_CPU_CHUNK, end);
        uint full = 0;
        if (branchy) {
            for (; i < stop; ++i) {
                const uint v = in[i];
                const uchar c = h[v];
                if (c < HISTO_SATURATE)
                    h[v] = c + 1;
                else
                    ++full;
            }
        } else {
            for (; i < stop; ++i) {
                const uint v = in[i];
                const uchar c = h[v];
                h[v] = c + (c < HISTO_SATURATE);
                full += c >= HISTO_SATURATE;
            }
        }
        branchy = adapt
               && (full < HISTO_CPU_CHUNK / HISTO_CPU_BRANCHY_SHARE
                   || full > HISTO_CPU_CHUNK - HISTO_CPU_CHUNK
                                               / HISTO_CPU_BRANCHY_SHARE);
    }
}

#if HISTO_CPU_ONE_COMMAND
/* The one-command plan's meeting, for one work-item groups (after
 * eye_fused.cl's, which says why it terminates). Control words of a
 * block: the tickets (CLOSED: the poll is closed), the participants, the
 * arrivals, the next merge range. The fence is OpenCL C 2.0 or 3.0's of
 * device scope: the host compiles this plan in only where the device has
 * it (cpu.c), or for a test with mem_fence standing in. */
#define CPU_TICKETS 0
#define CPU_PARTICIPANTS 1
#define CPU_ARRIVED 2
#define CPU_NEXT_RANGE 3
#define CLOSED 0x80000000u
#if HISTO_CPU_DEVICE_FENCE
#define CPU_FENCE()                                                       \
    atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acq_rel,   \
                           memory_scope_device)
#else
#define CPU_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif

/* An atomic read of a control word. */
static uint cpu_ctl_read(volatile global uint *w)
{
    return atomic_or(w, 0u);
}

/* The whole iteration in one launch of `batches` groups. Each group
 * takes a ticket; one that finds the poll closed leaves at once. A
 * ticket holder, participant t, counts batch t into its histogram (0:
 * the output, zeroed first; t > 0: private t - 1), then closes the poll:
 * the first close fixes P, the participants, publishes it and zeroes the
 * next launch's block. Participant t then counts batches t + P, t + 2P,
 * ... into the same histogram, the participants meet, and each takes
 * merge ranges of lines_per_range lines from a counter until none is
 * left, adding the P - 1 private histograms in and clearing them. Every
 * wait is for groups that hold a ticket, so it ends on any runtime that
 * keeps running a group once it has started; one that runs a group at a
 * time gets P = 1. */
static void count_merge(global const uint *restrict in, uint n, uint first,
                        uint slice, uint nbins, ulong stride,
                        global uchar *partial, global uchar *hist,
                        global uint *control, uint launch, uint ranges,
                        uint lines_per_range)
{
    const uint batches = get_num_groups(0);
    const uint parity = launch & 1u;
    volatile global uint *ctl = control + parity * HISTO_CPU_CTL_WORDS;
    volatile global uint *next = control
                               + (parity ^ 1u) * HISTO_CPU_CTL_WORDS;
    const uint t = atomic_inc(&ctl[CPU_TICKETS]);
    if (t & CLOSED)
        return;
    global uchar *h = t == 0 ? hist : partial + (t - 1) * stride;
    if (t == 0)
        zero_hist(hist, nbins);
    count_batch(in, n, first, slice, t, h);
    const uint before = atomic_or(&ctl[CPU_TICKETS], CLOSED);
    if (!(before & CLOSED)) {
        for (uint i = 0; i < HISTO_CPU_CTL_WORDS; ++i)
            atomic_xchg(&next[i], 0u);
        atomic_xchg(&ctl[CPU_PARTICIPANTS], before);
    }
    uint p;
    while ((p = cpu_ctl_read(&ctl[CPU_PARTICIPANTS])) == 0)
        ;
    for (uint b = t + p; b < batches; b += p)
        count_batch(in, n, first, slice, b, h);
    CPU_FENCE();
    atomic_inc(&ctl[CPU_ARRIVED]);
    while (cpu_ctl_read(&ctl[CPU_ARRIVED]) < p)
        ;
    CPU_FENCE();
    for (uint r = atomic_inc(&ctl[CPU_NEXT_RANGE]); r < ranges;
         r = atomic_inc(&ctl[CPU_NEXT_RANGE])) {
        const ulong lo = (ulong)r * lines_per_range;
        merge_lines(partial, p - 1, stride, nbins, lo, lo + lines_per_range,
                    hist);
    }
}
#endif

/* ranges 0: the two-command plan, group b counting batch b (cpu_merge
 * follows where there are several); else the one-command plan, merging
 * in `ranges` ranges (count_merge). */
__attribute__((reqd_work_group_size(1, 1, 1)))
kernel void cpu_count(global const uint *restrict in, uint n, uint first,
                      uint slice, uint nbins, ulong stride,
                      global uchar *partial, global uchar *hist,
                      global uint *control, uint launch, uint ranges,
                      uint lines_per_range)
{
#if HISTO_CPU_ONE_COMMAND
    if (ranges != 0) {
        count_merge(in, n, first, slice, nbins, stride, partial, hist,
                    control, launch, ranges, lines_per_range);
        return;
    }
#endif
    const uint b = get_group_id(0);
    if (b == 0)
        zero_hist(hist, nbins);
    count_batch(in, n, first, slice, b,
                b == 0 ? hist : partial + (b - 1) * stride);
}
