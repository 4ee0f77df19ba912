/*
 * eye_sample.cl - estimate the eye: the band of histogram rows that holds
 * most of the input.
 *
 * One work-group reads min(n, HISTO_EYE_SAMPLES) evenly spaced values. The
 * sampled rows, then their squared deviations from the mean row, are summed
 * exactly in ulong through a tree reduction in the __local scratch array
 * (one ulong per work-item): the estimate does not depend on the order in
 * which work-items add up.
 *
 * The band mean +- HISTO_EYE_SIGMAS deviations is widened to a window of
 * whole tiles (at most max_tiles of tile_bins bins each), centred on the band,
 * kept inside the histogram and started on a row boundary. The window is
 * written to eye[] (layout in params.h) and drives the tile and reduce
 * kernels straight from device memory: the host never reads it back inside
 * an iteration. Only speed depends on the estimate; every value outside the
 * window is still counted, through global atomics.
 */

static ulong group_sum(local ulong *scratch, ulong mine)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);

    scratch[lid] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint step = 1; step < size; step <<= 1) {
        if ((lid & (2 * step - 1)) == 0 && lid + step < size)
            scratch[lid] += scratch[lid + step];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const ulong total = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}

static ulong sampled_row(global const uint *in, uint n, uint samples,
                         uint s, uint histo_width)
{
    return in[(uint)((ulong)s * n / samples)] / histo_width;
}

kernel void eye_sample(global const uint *restrict in, uint n,
                       uint histo_width, uint nbins, uint tile_bins,
                       uint max_tiles, local ulong *scratch,
                       global uint *restrict eye)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint samples = min(n, (uint)HISTO_EYE_SAMPLES);
    const uint rows = nbins / histo_width;

    ulong row_sum = 0;
    for (uint s = lid; s < samples; s += size)
        row_sum += sampled_row(in, n, samples, s, histo_width);
    const ulong mean_row = group_sum(scratch, row_sum) / samples;

    /* Rows and the mean are integers, so squared deviations add up exactly
     * in ulong; capping a deviation at 2^20 rows keeps 4096 of them far from
     * overflow and only flattens estimates no tile window could cover. */
    ulong dev_sum = 0;
    for (uint s = lid; s < samples; s += size) {
        const ulong row = sampled_row(in, n, samples, s, histo_width);
        const ulong d = min(row > mean_row ? row - mean_row : mean_row - row,
                            (ulong)1 << 20);
        dev_sum += d * d;
    }
    const float variance = (float)group_sum(scratch, dev_sum) / (float)samples;

    if (lid != 0)
        return;

    const float sigma = sqrt(variance);
    const float spread = HISTO_EYE_SIGMAS * sigma;
    /* Clamp in float before converting: a negative float converted to an
     * unsigned integer is undefined. */
    const float lo_f = clamp((float)mean_row - spread, 0.0f, (float)rows);
    const float hi_f = clamp((float)mean_row + 1.0f + spread, 0.0f, (float)rows);
    const ulong band_lo = (ulong)floor(lo_f) * histo_width;
    ulong band_hi = (ulong)ceil(hi_f) * histo_width;
    band_hi = max(min(band_hi, (ulong)nbins), band_lo + 1);

    ulong tiles = (band_hi - band_lo + tile_bins - 1) / tile_bins;
    tiles = clamp(tiles, (ulong)1, (ulong)max_tiles);
    const ulong window = tiles * tile_bins;

    ulong lo = 0;
    if (window < nbins) {
        const ulong centre = (band_lo + band_hi) / 2;
        lo = centre > window / 2 ? centre - window / 2 : 0;
        lo = min(lo, (ulong)nbins - window);
        lo -= lo % histo_width;
    }
    const ulong hi = min(lo + window, (ulong)nbins);

    eye[HISTO_EYE_LO] = (uint)lo;
    eye[HISTO_EYE_HI] = (uint)hi;
    eye[HISTO_EYE_TILES] = (uint)tiles;
    eye[HISTO_EYE_ROW_MEAN] = (uint)mean_row;
    eye[HISTO_EYE_ROW_SIGMA] = (uint)ceil(sigma);
}
