/*
 * eye_reduce.cl - combine the batches' partial tiles and the out-of-eye
 * histogram into the final 8-bit histogram.
 *
 * One work-item per four bins (one 4-byte read per batch of `partial`,
 * one 4-byte write). A bin inside the eye window adds its saturated
 * partial from every batch (four batches per step, loads in flight); every
 * bin adds its out-of-eye count, saturated first so the sum stays small.
 *
 * With an eye window, out-of-eye counts are read only in chunks of
 * 2^HISTO_DIRTY_SHIFT bins that eye_tile.cl marked dirty this iteration;
 * the rest of `outer` is known to be zero. Without one, all of it is read. Counters read non-zero are cleared, so `outer` is all
 * zero again for the next iteration. Dirty flags come in two sets used by
 * alternate iterations: this one reads set `parity` and clears the other,
 * which the next iteration's tile kernel marks (clearing the set being
 * read would race with its other readers). The window, tile count and
 * batch count come from eye[], written by eye_tile.cl.
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
                       uint tile_bins, global uint *restrict dirty,
                       uint nchunks, uint parity, global uchar *restrict hist)
{
    const uint q = (uint)get_global_id(0);
    const uint first = 4 * q;
    if (first >= nbins)
        return;
    const uint chunk = first >> HISTO_DIRTY_SHIFT;
    const bool touched = eye[HISTO_EYE_TILES] == 0 /* nothing was marked */
                      || dirty[parity * nchunks + chunk] != 0;
    if ((first & ((1u << HISTO_DIRTY_SHIFT) - 1)) == 0)
        dirty[(1 - parity) * nchunks + chunk] = 0;
    const uint lo = eye[HISTO_EYE_LO];
    const uint hi = eye[HISTO_EYE_HI];
    const uint tiles = eye[HISTO_EYE_TILES];
    const uint batches = tiles ? eye[HISTO_EYE_BATCHES] : 0;
    const ulong stride = (ulong)tiles * tile_bins;

    /* lo and tile_bins are multiples of 4, so a quad is wholly in or out */
    if (first + 4 <= nbins) {
        uint4 c = (uint4)(0);
        if (touched) {
            c = vload4(q, outer);
            if (c.x | c.y | c.z | c.w)
                vstore4((uint4)(0), q, outer);
        }
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
