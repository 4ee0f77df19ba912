/*
 * eye_reduce.cl - combine the batches' partial tiles and the out-of-eye
 * histogram into the final 8-bit histogram.
 *
 * Work-items stride over the histogram's quads (four bins: one 16-byte
 * read of `outer`, one 4-byte read per batch of `partial`, one 4-byte
 * write), HISTO_REDUCE_QUADS quads a step with every load of the step
 * issued before the sums: the host launches one work-item per
 * HISTO_REDUCE_QUADS quads, so a step is usually the whole job. A quad
 * inside the eye window adds its saturated partial from every batch (eight
 * batches per step, loads in flight); every quad adds its out-of-eye
 * count, saturated first so the sum stays small. Counters read non-zero
 * are cleared, so `outer` is all zero again for the next iteration. The
 * window, tile count and batch count come from eye[], written by
 * eye_tile.cl.
 */

/* Window quad at offset `off` from the window start: outer count c plus
 * the partials of every batch, saturated. */
static uint4 add_partials(uint4 c, global const uchar *restrict partial,
                          uint off, uint batches, ulong stride)
{
    const global uchar *p = partial + off;
    uint b = 0;
    for (; b + 8 <= batches; b += 8) {
        if (all(c >= (uint4)(HISTO_SATURATE)))
            return c;
        uint4 t[8];
        for (uint j = 0; j < 8; ++j)
            t[j] = convert_uint4(vload4(0, p + (b + j) * stride));
        c += ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]));
    }
    for (; b < batches; ++b)
        c += convert_uint4(vload4(0, p + b * stride));
    return c;
}

/* The histogram's last bins when nbins is not a multiple of 4. */
static void tail_bins(global uint *restrict outer,
                      global const uchar *restrict partial, uint first,
                      uint nbins, uint lo, uint hi, uint batches,
                      ulong stride, global uchar *restrict hist)
{
    for (uint bin = first; bin < nbins; ++bin) {
        uint c = outer[bin];
        if (c != 0)
            outer[bin] = 0;
        c = min(c, (uint)HISTO_SATURATE);
        if (bin - lo < hi - lo)
            for (uint b = 0; b < batches && c < HISTO_SATURATE; ++b)
                c += partial[b * stride + (bin - lo)];
        hist[bin] = (uchar)min(c, (uint)HISTO_SATURATE);
    }
}

kernel void eye_reduce(global uint *restrict outer,
                       global const uchar *restrict partial,
                       global const uint *restrict eye, uint nbins,
                       uint tile_bins, global uchar *restrict hist)
{
    const uint lo = eye[HISTO_EYE_LO];
    const uint hi = eye[HISTO_EYE_HI];
    const uint tiles = eye[HISTO_EYE_TILES];
    const uint batches = tiles ? eye[HISTO_EYE_BATCHES] : 0;
    const ulong stride = (ulong)tiles * tile_bins;
    const uint full = nbins / 4; /* quads wholly inside the histogram */
    const uint items = (uint)get_global_size(0);

    for (uint q0 = (uint)get_global_id(0); q0 < full;
         q0 += HISTO_REDUCE_QUADS * items) {
        uint4 c[HISTO_REDUCE_QUADS];
        for (uint k = 0; k < HISTO_REDUCE_QUADS; ++k) {
            const uint q = q0 + k * items;
            c[k] = q < full ? vload4(q, outer) : (uint4)(0);
        }
        for (uint k = 0; k < HISTO_REDUCE_QUADS; ++k) {
            const uint q = q0 + k * items;
            if (q >= full)
                break;
            if (c[k].x | c[k].y | c[k].z | c[k].w)
                vstore4((uint4)(0), q, outer);
            c[k] = min(c[k], (uint4)(HISTO_SATURATE));
            /* lo and tile_bins are multiples of 4: a quad is wholly in
             * the window or wholly out */
            if (4 * q - lo < hi - lo)
                c[k] = add_partials(c[k], partial, 4 * q - lo, batches,
                                    stride);
            vstore4(convert_uchar4(min(c[k], (uint4)(HISTO_SATURATE))), q,
                    hist);
        }
    }
    if (get_global_id(0) == 0)
        tail_bins(outer, partial, 4 * full, nbins, lo, hi, batches, stride,
                  hist);
}
