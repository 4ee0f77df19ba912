/*
 * cpu_count.cl - the counting pass of the cpu strategy, for devices with an
 * implicit cache (PoCL's pthread device and other CPU runtimes), where local
 * memory is ordinary cached memory and atomics and barriers cost far more
 * than they save.
 *
 * One work-item per work-group, so a runtime like PoCL compiles the kernel
 * to a plain loop. Work-group g owns the input slice [g*slice, (g+1)*slice)
 * and a private histogram of 8-bit counters in global memory,
 * partial[g*stride .. g*stride + nbins). A single work-item owns that
 * memory, so plain increments are exact: no atomics, no barriers. Counters
 * saturate at HISTO_SATURATE, which is exact too: if one slice reaches 255
 * in a bin, so does the sum of all slices. Bytes keep the private histogram
 * as small as the output, so the hot part of it stays in the core's cache.
 *
 * Beside each private histogram, dirty[g*nlines + line] is set for every
 * line of 2^HISTO_CPU_LINE_LOG2 bins the slice touches, so the merge reads
 * only those lines: a typical input touches a small part of a large
 * histogram. The flag is stored unconditionally, without a test: a store to
 * a small array that stays in the first-level cache costs less than a
 * branch that mispredicts on every first touch.
 *
 * partial and dirty are all zero on entry: filled once when the buffers are
 * created, then restored by cpu_merge.cl, which clears every line it
 * consumes. No state survives an iteration.
 */
__attribute__((reqd_work_group_size(1, 1, 1)))
kernel void cpu_count(global const uint *restrict in, uint n, uint slice,
                      uint nlines, global uchar *restrict partial,
                      global uchar *restrict dirty)
{
    const uint g = get_group_id(0);
    const ulong stride = (ulong)nlines << HISTO_CPU_LINE_LOG2;
    global uchar *restrict h = partial + g * stride;
    global uchar *restrict d = dirty + (ulong)g * nlines;

    /* n <= 2^31 (checked by the host), so the slice bounds fit in uint. */
    const uint start = (uint)min((ulong)g * slice, (ulong)n);
    const uint end = min(start + slice, n);
    for (uint i = start; i < end; ++i) {
        const uint v = in[i];
        const uchar c = h[v];
        d[v >> HISTO_CPU_LINE_LOG2] = 1;
        if (c < HISTO_SATURATE)
            h[v] = c + 1;
    }
}
