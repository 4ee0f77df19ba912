/*
 * eye_reduce.cl - combine the batches' partial tiles and the out-of-eye
 * histogram into the final 8-bit histogram.
 *
 * HISTO_REDUCE_LANES work-items ("lanes") per four bins. Inside the eye window each lane
 * adds the saturated partials of every HISTO_REDUCE_LANES-th batch (4-byte reads), so a
 * bin's batches are summed that many ways in parallel rather than in one long
 * chain; the lanes' sums meet in local memory. Lane 0 adds the out-of-eye
 * counts (one 16-byte read, saturated first so the sum stays small),
 * clears those found non-zero, so the next iteration starts from zero
 * without a separate fill and untouched memory is only read, and writes
 * the four saturated bytes. The window, tile count and batch count come
 * from eye[], written by eye_tile.cl.
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
                       uint tile_bins, local uint4 *lane_sums,
                       global uchar *restrict hist)
{
    const uint lid = get_local_id(0);
    const uint lane = lid % HISTO_REDUCE_LANES;
    const uint q = (uint)(get_global_id(0) / HISTO_REDUCE_LANES);
    const uint first = 4 * q;
    const uint lo = eye[HISTO_EYE_LO];
    const uint hi = eye[HISTO_EYE_HI];
    const uint tiles = eye[HISTO_EYE_TILES];
    const uint batches = tiles ? eye[HISTO_EYE_BATCHES] : 0;
    const ulong stride = (ulong)tiles * tile_bins; /* one batch's tiles */

    /* lo and the tile size are multiples of 4, so a whole quad is either
     * in the window or out of it; a partial last quad goes bin by bin. */
    const bool whole = first + 4 <= nbins;
    uint4 c = (uint4)(0);
    if (whole && first - lo < hi - lo) {
        const global uchar *p = partial + (first - lo);
        for (uint b = lane; b < batches; b += HISTO_REDUCE_LANES)
            c += convert_uint4(vload4(0, p + b * stride));
    }
    lane_sums[lid] = c;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lane != 0 || first >= nbins)
        return;

    if (whole) {
        for (uint l = 1; l < HISTO_REDUCE_LANES; ++l)
            c += lane_sums[lid + l];
        uint4 o = vload4(q, outer);
        if (o.x | o.y | o.z | o.w)
            vstore4((uint4)(0), q, outer);
        c += min(o, (uint4)(HISTO_SATURATE));
        vstore4(convert_uchar4(min(c, (uint4)(HISTO_SATURATE))), q, hist);
    } else {
        for (uint bin = first; bin < nbins; ++bin)
            hist[bin] = (uchar)bin_count(outer, partial, bin, lo, hi,
                                         batches, stride);
    }
}
