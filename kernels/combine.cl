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

/* a + b per byte, saturating at HISTO_SATURATE: the byte-saturating add
 * where that is 255 (one instruction per four bytes on NVIDIA GPUs) */
#if HISTO_SATURATE == 255
#define SAT_ADD16(a, b) add_sat((a), (b))
#else
#define SAT_ADD16(a, b) convert_uchar16(min(convert_ushort16(a)              \
                                            + convert_ushort16(b),           \
                                            (ushort16)(HISTO_SATURATE)))
#endif

/*
 * Whole runs of 16 bins are read and written as uint4: the buffers start
 * aligned (and combine_parts' on multiples of 64), and
 * vload16 of bytes, which promises 1-byte alignment only, compiled to a
 * load per byte.
 */
kernel void combine(global uchar *restrict acc,
                    global const uchar *restrict part, uint nbins, uint first)
{
    const ulong size = get_global_size(0);
    const ulong whole = nbins / 16;
    global uint4 *restrict acc4 = (global uint4 *)acc;
    global const uint4 *restrict part4 = (global const uint4 *)part;
    for (ulong i = get_global_id(0); i < whole; i += size) {
        const uint4 p = part4[i];
        acc4[i] = first ? p
                        : as_uint4(SAT_ADD16(as_uchar16(acc4[i]),
                                             as_uchar16(p)));
    }
    if (get_global_id(0) < nbins % 16) {
        const ulong b = whole * 16 + get_global_id(0);
        const uint sum = first ? 0u : acc[b];
        acc[b] = (uchar)min(sum + part[b], (uint)HISTO_SATURATE);
    }
}

/*
 * combine_parts - for each of get_global_size(1) consecutive sets t (a
 * row of work-items each): the len bytes at acc + t * stride plus nparts
 * runs of len bytes at parts + t * set_pitch, `stride` bytes apart, each
 * added with saturation: the other devices' sums of a batch of
 * iterations, copied into the first device, added in one launch
 * (src/work.c). stride and set_pitch are multiples of 64.
 */
kernel void combine_parts(global uchar *restrict acc,
                          global const uchar *restrict parts, uint len,
                          ulong stride, ulong set_pitch, uint nparts)
{
    const ulong size = get_global_size(0);
    const ulong whole = len / 16;
    const ulong t = get_global_id(1);
    global uchar *restrict a = acc + t * stride;
    global const uchar *restrict from = parts + t * set_pitch;
    global uint4 *restrict a4 = (global uint4 *)a;
    global const uint4 *restrict p4 = (global const uint4 *)from;
    const ulong stride4 = stride / 16;
    for (ulong i = get_global_id(0); i < whole; i += size) {
        uchar16 sum = as_uchar16(a4[i]);
        for (uint p = 0; p < nparts; ++p)
            sum = SAT_ADD16(sum, as_uchar16(p4[p * stride4 + i]));
        a4[i] = as_uint4(sum);
    }
    if (get_global_id(0) < len % 16) {
        const ulong b = whole * 16 + get_global_id(0);
        uint sum = a[b];
        for (uint p = 0; p < nparts; ++p)
            sum = min(sum + from[(ulong)p * stride + b],
                      (uint)HISTO_SATURATE);
        a[b] = (uchar)sum;
    }
}
