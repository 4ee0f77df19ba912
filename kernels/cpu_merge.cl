/*
 * cpu_merge.cl - the merge pass of the cpu strategy: the final 8-bit
 * histogram from the slices' private histograms (cpu_count.cl), leaving
 * those all zero for the next iteration.
 *
 * One work-item per work-group. Work-group r owns the lines
 * [r*lines_per_group, (r+1)*lines_per_group) of the histogram (a line is
 * 2^HISTO_CPU_LINE_LOG2 bins) and writes every output byte of them: zero
 * where no slice touched the line, else the sum of the slices that did,
 * saturated at HISTO_SATURATE. The groups' ranges are disjoint, so no
 * atomics are needed; there are several groups per core, so the runtime's
 * dynamic scheduling evens out ranges with more touched lines than others.
 *
 * Each private line it adds, and its dirty flag, is cleared at once, while
 * still in cache: that restores the all-zero state cpu_count relies on
 * without a separate fill. Lines no slice touched cost one flag read per
 * slice and a run of zeros in the output.
 */
#define LINE (1u << HISTO_CPU_LINE_LOG2)

static void zero_bytes(global uchar *p, ulong len)
{
    ulong i = 0;
    for (; i + 16 <= len; i += 16)
        vstore16((uchar16)0, 0, p + i);
    for (; i < len; ++i)
        p[i] = 0;
}

/* o[0..len) += p[0..len) saturating, then p[0..len) = 0. The constant trip
 * count of full lines lets the compiler vectorize the loop. */
static void add_clear(global uchar *restrict o, global uchar *restrict p,
                      uint len)
{
    if (len == LINE) {
        for (uint b = 0; b < LINE; ++b) {
            o[b] = (uchar)min((uint)o[b] + p[b], HISTO_SATURATE);
            p[b] = 0;
        }
    } else {
        for (uint b = 0; b < len; ++b) {
            o[b] = (uchar)min((uint)o[b] + p[b], HISTO_SATURATE);
            p[b] = 0;
        }
    }
}

__attribute__((reqd_work_group_size(1, 1, 1)))
kernel void cpu_merge(global uchar *restrict partial,
                      global uchar *restrict dirty, uint nbins, uint nlines,
                      uint slices, uint lines_per_group,
                      global uchar *restrict hist)
{
    const ulong stride = (ulong)nlines << HISTO_CPU_LINE_LOG2;
    const uint first = (uint)min((ulong)get_group_id(0) * lines_per_group,
                                 (ulong)nlines);
    const uint last = min(first + lines_per_group, nlines);
    const ulong end = min((ulong)last << HISTO_CPU_LINE_LOG2, (ulong)nbins);

    /* Output bytes before `clean` still have to be zeroed (a run of lines
     * no slice touched). */
    ulong clean = (ulong)first << HISTO_CPU_LINE_LOG2;
    for (uint line = first; line < last; ++line) {
        uchar touched = 0;
        for (uint g = 0; g < slices; ++g)
            touched |= dirty[(ulong)g * nlines + line];
        if (!touched)
            continue;

        const ulong b0 = (ulong)line << HISTO_CPU_LINE_LOG2;
        const uint len = (uint)min((ulong)LINE, (ulong)nbins - b0);
        zero_bytes(hist + clean, b0 + len - clean);
        for (uint g = 0; g < slices; ++g) {
            global uchar *d = dirty + (ulong)g * nlines + line;
            if (*d) {
                *d = 0;
                add_clear(hist + b0, partial + g * stride + b0, len);
            }
        }
        clean = b0 + len;
    }
    zero_bytes(hist + clean, end - clean);
}
