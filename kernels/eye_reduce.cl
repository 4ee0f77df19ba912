/*
 * eye_reduce.cl - combine the batches' partial tiles and the out-of-eye
 * histogram into the final 8-bit histogram.
 *
 * One work-item per four bins. A bin inside the eye window (rows and
 * columns in eye[], written by eye_tile.cl) adds its saturated partial
 * from every batch, four batches per step so loads are in flight; every
 * bin adds its out-of-eye count, saturated first so the sum stays small.
 * When rows are a multiple of 4 wide (the window's columns then are too),
 * four bins lie in one row and wholly in or out of the window: one 16-byte
 * read of `outer`, 4-byte reads of `partial`, one 4-byte write. Otherwise
 * the four bins go one by one.
 *
 * With an eye window, out-of-eye counts are read only in chunks of
 * 2^HISTO_DIRTY_SHIFT bins that eye_tile.cl marked dirty this iteration;
 * the rest of `outer` is known to be zero. Without one, all of it is read.
 * Counters read non-zero are cleared, so `outer` is all zero again for the
 * next iteration. Dirty flags come in two sets used by alternate
 * iterations: this one reads set `parity` and clears the other, which the
 * next iteration's tile kernel marks (clearing the set being read would
 * race with its other readers).
 */
#define ROW_OF(v, width, width_log2) \
    ((width_log2) < 32 ? (v) >> (width_log2) : (v) / (width))

struct eye_window {
    uint row0, rows, col0, cols, batches;
    ulong stride; /* bytes of partial tiles per batch */
};

/* Offset of bin (row, col) in a batch's partial tiles, or ~0 outside. */
static uint window_offset(const struct eye_window *w, uint row, uint col)
{
    if (col - w->col0 < w->cols && row - w->row0 < w->rows)
        return (row - w->row0) * w->cols + (col - w->col0);
    return ~0u;
}

static uint bin_count(global uint *outer, global const uchar *partial,
                      const struct eye_window *w, uint bin, uint width,
                      uint width_log2, bool touched)
{
    uint c = 0;
    if (touched) {
        c = outer[bin];
        if (c != 0)
            outer[bin] = 0;
        c = min(c, (uint)HISTO_SATURATE);
    }
    const uint row = ROW_OF(bin, width, width_log2);
    const uint offset = window_offset(w, row, bin - row * width);
    if (offset != ~0u)
        for (uint b = 0; b < w->batches && c < HISTO_SATURATE; ++b)
            c += partial[b * w->stride + offset];
    return min(c, (uint)HISTO_SATURATE);
}

kernel void eye_reduce(global uint *restrict outer,
                       global const uchar *restrict partial,
                       global const uint *restrict eye, uint nbins,
                       uint width, uint width_log2,
                       global uint *restrict dirty, uint nchunks, uint parity,
                       global uchar *restrict hist)
{
    const uint q = (uint)get_global_id(0);
    const uint first = 4 * q;
    if (first >= nbins)
        return;
    const uint chunk = first >> HISTO_DIRTY_SHIFT;
    const uint tiles = eye[HISTO_EYE_TILES];
    const bool touched = tiles == 0 /* nothing was marked */
                      || dirty[parity * nchunks + chunk] != 0;
    if ((first & ((1u << HISTO_DIRTY_SHIFT) - 1)) == 0)
        dirty[(1 - parity) * nchunks + chunk] = 0;

    struct eye_window w;
    w.row0 = eye[HISTO_EYE_ROW0];
    w.rows = tiles ? eye[HISTO_EYE_ROWS] : 0;
    w.col0 = eye[HISTO_EYE_COL0];
    w.cols = eye[HISTO_EYE_COLS];
    w.batches = tiles ? eye[HISTO_EYE_BATCHES] : 0;
    w.stride = (ulong)tiles * eye[HISTO_EYE_TILE_ROWS] * w.cols;

    if (first + 4 <= nbins && width % 4 == 0) {
        uint4 c = (uint4)(0);
        if (touched) {
            c = vload4(q, outer);
            if (c.x | c.y | c.z | c.w)
                vstore4((uint4)(0), q, outer);
            c = min(c, (uint4)(HISTO_SATURATE));
        }
        const uint row = ROW_OF(first, width, width_log2);
        const uint offset = window_offset(&w, row, first - row * width);
        if (offset != ~0u) {
            const global uchar *p = partial + offset;
            uint b = 0;
            for (; b + 4 <= w.batches; b += 4) {
                if (all(c >= (uint4)(HISTO_SATURATE)))
                    break;
                c += convert_uint4(vload4(0, p + b * w.stride))
                   + convert_uint4(vload4(0, p + (b + 1) * w.stride))
                   + convert_uint4(vload4(0, p + (b + 2) * w.stride))
                   + convert_uint4(vload4(0, p + (b + 3) * w.stride));
            }
            for (; b < w.batches; ++b)
                c += convert_uint4(vload4(0, p + b * w.stride));
        }
        vstore4(convert_uchar4(min(c, (uint4)(HISTO_SATURATE))), q, hist);
    } else {
        for (uint bin = first; bin < min(first + 4, nbins); ++bin)
            hist[bin] = (uchar)bin_count(outer, partial, &w, bin, width,
                                         width_log2, touched);
    }
}
