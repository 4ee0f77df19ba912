/*
 * eye_reduce.cl - combine the batches' partial tiles and the out-of-eye
 * histogram into the final 8-bit histogram.
 *
 * One work-item per four bins (one 16-byte read of `outer`, one 4-byte
 * read per batch of `partial`, one 4-byte write). A bin inside the eye
 * window adds its saturated partial from every batch; every bin adds its
 * out-of-eye count, saturated first so the sum stays small. Counters found
 * non-zero are cleared, so the next iteration starts from zero without a
 * separate fill and untouched memory is only read. The window, tile count
 * and batch count come from eye[], written by eye_tile.cl.
 */
static uint bin_count(global uint *outer, global const uchar *partial,
                      uint bin, uint lo, uint hi, uint batches, ulong stride)
{
    uint c = outer[bin];
    if (c != 0)
        outer[bin] = 0;
    c = min(c, (uint)HISTO_SATURATE);
    if (bin - lo < hi - lo)
        for (uint b = 0; b < batches && c < HISTO_SATURATE; ++b)
            c += partial[b * stride + (bin - lo)];
    return min(c, (uint)HISTO_SATURATE);
}

kernel void eye_reduce(global uint *restrict outer,
                       global const uchar *restrict partial,
                       global const uint *restrict eye, uint nbins,
                       uint tile_bins, global uchar *restrict hist)
{
    const uint q = (uint)get_global_id(0);
    const uint first = 4 * q;
    if (first >= nbins)
        return;
    const uint lo = eye[HISTO_EYE_LO];
    const uint hi = eye[HISTO_EYE_HI];
    const uint tiles = eye[HISTO_EYE_TILES];
    const uint batches = tiles ? eye[HISTO_EYE_BATCHES] : 0;
    const ulong stride = (ulong)tiles * tile_bins;

    /* lo and tile_bins are multiples of 4, so a quad is wholly in or out */
    if (first + 4 <= nbins) {
        uint4 c = vload4(q, outer);
        if (c.x | c.y | c.z | c.w)
            vstore4((uint4)(0), q, outer);
        c = min(c, (uint4)(HISTO_SATURATE));
        if (first - lo < hi - lo) {
            /* four batches per step: independent loads in flight */
            const global uchar *p = partial + (first - lo);
            uint b = 0;
            for (; b + 4 <= batches; b += 4) {
                if (all(c >= (uint4)(HISTO_SATURATE)))
                    break;
                c += convert_uint4(vload4(0, p + b * stride))
                   + convert_uint4(vload4(0, p + (b + 1) * stride))
                   + convert_uint4(vload4(0, p + (b + 2) * stride))
                   + convert_uint4(vload4(0, p + (b + 3) * stride));
            }
            for (; b < batches; ++b)
                c += convert_uint4(vload4(0, p + b * stride));
        }
        vstore4(convert_uchar4(min(c, (uint4)(HISTO_SATURATE))), q, hist);
    } else {
        for (uint bin = first; bin < nbins; ++bin)
            hist[bin] = (uchar)bin_count(outer, partial, bin, lo, hi,
                                         batches, stride);
    }
}
