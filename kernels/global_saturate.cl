/*
 * global_saturate.cl - the second pass of the global-atomics strategy:
 * the 32-bit counters global_count.cl left become the 8-bit histogram,
 * min(count, 255), and are cleared, so the next iteration starts from
 * zero without a fill (the host fills them once, at setup).
 *
 * Work-items stride over the counters four at a time (uint4 in, uchar4
 * out); the first nbins % 4 work-items take the counters past the last
 * whole quad.
 */
kernel void global_saturate(global uint *restrict counts, uint nbins,
                            global uchar *restrict hist)
{
    const uint size = get_global_size(0);
    const uint whole = nbins / 4;
    global uint4 *c4 = (global uint4 *)counts;
    const uint4 zero = (uint4)(0);
    for (uint i = get_global_id(0); i < whole; i += size) {
        const uint4 c = c4[i];
        vstore4(convert_uchar4(min(c, (uint4)(HISTO_SATURATE))), i, hist);
        c4[i] = zero;
    }
    /* the nbins % 4 counters past the last whole quad */
    if (get_global_id(0) < nbins % 4) {
        const uint tail = whole * 4 + get_global_id(0);
        hist[tail] = (uchar)min(counts[tail], (uint)HISTO_SATURATE);
        counts[tail] = 0;
    }
}
