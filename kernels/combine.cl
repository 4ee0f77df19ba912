/*
 * combine.cl - adds one partial 8-bit histogram into another, saturating
 * at HISTO_SATURATE. A partial is the saturated count of one chunk of the
 * input (or one device's share); min(a + b, 255) of two saturated counts
 * is the saturated count of both parts together, and the operation is
 * associative, so partials combine exactly in any grouping: no counter
 * ever holds more than 255, whatever a bin receives in all.
 *
 * `first` copies instead of adding: the iteration's first partial starts
 * the sum, so nothing is cleared between iterations.
 *
 * Work-items stride over the bins sixteen at a time; the first nbins % 16
 * work-items take the bins past the last whole run.
 */
kernel void combine(global uchar *restrict acc,
                    global const uchar *restrict part, uint nbins, uint first)
{
    const ulong size = get_global_size(0);
    const ulong whole = nbins / 16;
    const ushort16 top = (ushort16)(HISTO_SATURATE);
    for (ulong i = get_global_id(0); i < whole; i += size) {
        const uchar16 p = vload16(i, part);
        if (first) {
            vstore16(p, i, acc);
        } else {
            const ushort16 sum = convert_ushort16(vload16(i, acc))
                               + convert_ushort16(p);
            vstore16(convert_uchar16(min(sum, top)), i, acc);
        }
    }
    if (get_global_id(0) < nbins % 16) {
        const ulong b = whole * 16 + get_global_id(0);
        const uint sum = first ? 0u : acc[b];
        acc[b] = (uchar)min(sum + part[b], (uint)HISTO_SATURATE);
    }
}

/*
 * combine_slices - one device's slice of the bins, acc[lo, lo + len),
 * plus the other devices' parts of it: nparts runs of len bytes in
 * `parts`, `stride` bytes apart, each added with saturation (several
 * devices' reduce-scatter, src/work.c). The running sum stays at most
 * HISTO_SATURATE after each addition, so a ushort never overflows
 * whatever nparts is.
 */
kernel void combine_slices(global uchar *restrict acc,
                           global const uchar *restrict parts, uint lo,
                           uint len, uint stride, uint nparts)
{
    const ulong size = get_global_size(0);
    const ulong whole = len / 16;
    const ushort16 top = (ushort16)(HISTO_SATURATE);
    global uchar *restrict a = acc + lo;
    for (ulong i = get_global_id(0); i < whole; i += size) {
        ushort16 sum = convert_ushort16(vload16(i, a));
        for (uint p = 0; p < nparts; ++p)
            sum = min(sum + convert_ushort16(vload16(i, parts
                                                        + (ulong)p * stride)),
                      top);
        vstore16(convert_uchar16(sum), i, a);
    }
    if (get_global_id(0) < len % 16) {
        const ulong b = whole * 16 + get_global_id(0);
        uint sum = a[b];
        for (uint p = 0; p < nparts; ++p)
            sum = min(sum + parts[(ulong)p * stride + b],
                      (uint)HISTO_SATURATE);
        a[b] = (uchar)sum;
    }
}
