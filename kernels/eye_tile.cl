/*
 * eye_tile.cl - the main pass: batches of work-groups, each holding one tile
 * of eye bins in local memory.
 *
 * The grid is batches x tiles_launched work-groups. Batch b owns the input
 * slice [b*slice, (b+1)*slice). Within a batch, work-group t owns the bins
 * [lo + t*tile_bins, lo + (t+1)*tile_bins) of the eye window (eye[] from
 * eye_sample.cl) as 32-bit counters in local memory. It reads the whole
 * slice and counts the values that fall in its tile with local atomics,
 * which only contend within the group. Tiles the eye does not need return
 * at once, so the grid can be sized before the eye is known.
 *
 * Work-group t == 0 of every batch also counts the values outside the eye
 * window into `outer`, a full-size 32-bit histogram, with global atomics:
 * rare by construction, so their contention is low.
 *
 * Each tile's counts leave saturated to 8 bits in `partial`, laid out
 * [batch][bin - lo], so the reduction finds a bin at one offset per batch.
 * Saturating each partial is exact: if any batch reaches 255 the sum does.
 */
kernel void eye_tile(global const uint *restrict in, uint n, uint slice,
                     global const uint *restrict eye, uint tile_bins,
                     uint tiles_launched, local uint *tile,
                     global uchar *restrict partial,
                     global uint *restrict outer)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint batch = get_group_id(0) / tiles_launched;
    const uint t = get_group_id(0) % tiles_launched;

    if (t >= eye[HISTO_EYE_TILES])
        return;

    const uint lo = eye[HISTO_EYE_LO];
    const uint hi = eye[HISTO_EYE_HI];
    const uint tile_lo = lo + t * tile_bins;
    const uint tile_len = min(tile_bins, hi - tile_lo);
    const bool outer_duty = (t == 0);

    for (uint i = lid; i < tile_len; i += size)
        tile[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    /* n <= 2^31 (checked by the host), so these uint indexes cannot wrap. */
    const uint start = min(batch * slice, n);
    const uint end = min(start + slice, n);
    for (uint i = start + lid; i < end; i += size) {
        const uint v = in[i];
        if (v - tile_lo < tile_len)
            atomic_inc(&tile[v - tile_lo]);
        else if (outer_duty && v - lo >= hi - lo)
            atomic_inc(&outer[v]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    global uchar *dst = partial
                      + ((ulong)batch * tiles_launched + t) * tile_bins;
    for (uint i = lid; i < tile_len; i += size)
        dst[i] = (uchar)min(tile[i], (uint)HISTO_SATURATE);
}
