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
 */
__attribute__((reqd_work_group_size(1, 1, 1)))
kernel void cpu_count(global const uint *restrict in, uint n, uint first,
                      uint slice, uint nbins, ulong stride,
                      global uchar *restrict partial,
                      global uchar *restrict hist)
{
    const uint b = get_group_id(0);
    global uchar *restrict h;
    uint start, end;
    if (b == 0) {
        /* 64-byte stores: one per cache line. The bound is the last
         * whole line's end, not i + 64 <= nbins: nbins may be up to
         * 2^32 - 1, where i + 64 wraps to a small number and the loop
         * would never end. i stops at whole <= nbins, and ++i at nbins. */
        const uint whole = nbins & ~63u;
        uint i = 0;
        for (; i < whole; i += 64)
            vstore8((ulong8)0, 0, (global ulong *)(hist + i));
        for (; i < nbins; ++i)
            hist[i] = 0;
        h = hist;
        start = 0;
        end = min(first, n);
    } else {
        h = partial + (b - 1) * stride;
        /* n <= 2^31 (checked by the host), so the bounds, clamped to n,
         * fit in uint; the sums are taken in ulong (start + slice could
         * reach 2^32). */
        start = (uint)min((ulong)first + (ulong)(b - 1) * slice, (ulong)n);
        end = (uint)min((ulong)start + slice, (ulong)n);
    }
    /* Two loops, chosen per chunk from the share of saturated counters the
     * previous chunk met: a branch on saturation is the fastest while it
     * is predictable, that is while almost no counter is saturated or
     * almost every one is (one bin hammered), and costs a misprediction at
     * many values in between; the branch-free loop costs a little on every
     * value instead, and stores even to a saturated counter (a chain of
     * stores to one byte when one bin is hammered: docs/design.md,
     * "Strategy `cpu`").
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
