/*
 * cpu_merge.cl - the merge pass of the cpu strategy: adds the private
 * histograms of batches 1.. (cpu_count.cl) into the output histogram, which
 * batch 0 already holds, and leaves them all zero for the next iteration.
 *
 * One work-item per work-group. Work-group r owns the lines
 * [r*lines_per_group, (r+1)*lines_per_group) of the histogram, a line being
 * 2^HISTO_CPU_LINE_LOG2 bins (one 64-byte cache line of counters). The
 * groups' ranges are disjoint, so no atomics are needed, and there are
 * several groups per core, so the runtime's dynamic scheduling evens out
 * ranges that hold more counts than others.
 *
 * For each line and each private histogram, the line is read as blocks of
 * eight 64-bit words; an all-zero line (most of them: a typical input
 * touches a small part of a large histogram) costs that read alone.
 * Otherwise its counts are added to the output with saturation at
 * HISTO_SATURATE and the private line is cleared while it is still in
 * cache, which restores the all-zero state cpu_count relies on without a
 * separate fill. The private histograms are padded to whole lines, and the
 * padding is never written, so whole-line reads are safe at the end of the
 * histogram; the output's last, partial line is added apart.
 *
 * merge_lines() is also what cpu_count.cl's one-command plan runs once its
 * groups have met: this file is built first.
 */
#define LINE (1u << HISTO_CPU_LINE_LOG2)

#if HISTO_CPU_LINE_LOG2 < 6
#error "a line must hold whole 64-byte blocks"
#endif

static bool line_is_zero(global const uchar *p)
{
    global const ulong *w = (global const ulong *)p;
    ulong8 any = vload8(0, w);
    for (uint i = 1; i < LINE / 64; ++i)
        any |= vload8(i, w);
    const ulong4 y = any.lo | any.hi;
    const ulong2 z = y.lo | y.hi;
    return (z.x | z.y) == 0;
}

/* o[0..len) += p[0..len) saturating, then p[0..len) = 0. */
static void add_clear(global uchar *restrict o, global uchar *restrict p,
                      uint len)
{
    for (uint i = 0; i < len; ++i) {
        o[i] = (uchar)min((uint)o[i] + p[i], HISTO_SATURATE);
        p[i] = 0;
    }
}

/* Adds `privates` private histograms into hist over the lines [first,
 * last) of the histogram (clamped to its lines), clearing them: whole
 * lines with a constant length the compiler vectorizes, then the
 * histogram's last, partial line if the range holds it. */
static void merge_lines(global uchar *restrict partial, uint privates,
                        ulong stride, uint nbins, ulong first, ulong last,
                        global uchar *restrict hist)
{
    const uint whole = nbins >> HISTO_CPU_LINE_LOG2;
    const uint nlines = whole + ((nbins & (LINE - 1)) != 0);
    const uint lo = (uint)min(first, (ulong)nlines);
    const uint hi = (uint)min(last, (ulong)nlines);
    const uint hi_whole = min(hi, whole);
    for (uint p = 0; p < privates; ++p) {
        global uchar *h = partial + p * stride;
        for (uint line = lo; line < hi_whole; ++line) {
            const ulong b0 = (ulong)line << HISTO_CPU_LINE_LOG2;
            if (!line_is_zero(h + b0))
                add_clear(hist + b0, h + b0, LINE);
        }
        if (hi > whole) {
            const ulong b0 = (ulong)whole << HISTO_CPU_LINE_LOG2;
            if (!line_is_zero(h + b0))
                add_clear(hist + b0, h + b0, nbins & (LINE - 1));
        }
    }
}

__attribute__((reqd_work_group_size(1, 1, 1)))
kernel void cpu_merge(global uchar *restrict partial, uint privates,
                      ulong stride, uint nbins, uint lines_per_group,
                      global uchar *restrict hist)
{
    const ulong first = (ulong)get_group_id(0) * lines_per_group;
    merge_lines(partial, privates, stride, nbins, first,
                first + lines_per_group, hist);
}
