/*
 * eye_reduce.cl - combine the batches' partial tiles and the out-of-eye
 * histogram into the final 8-bit histogram.
 *
 * One work-item per bin. A bin inside the eye window adds its saturated
 * partial from every batch; every bin adds its out-of-eye count. The sum is
 * kept small (the out-of-eye count is saturated first) and saturated to 255.
 * The work-item then clears its out-of-eye counter, so the next iteration
 * starts from zero without a separate fill.
 */
kernel void eye_reduce(global uint *restrict outer,
                       global const uchar *restrict partial,
                       global const uint *restrict eye, uint nbins,
                       uint batches, uint tiles_launched, uint tile_bins,
                       global uchar *restrict hist)
{
    const size_t bin = get_global_id(0);
    if (bin >= nbins)
        return;

    uint count = min(outer[bin], (uint)HISTO_SATURATE);
    outer[bin] = 0;

    const uint lo = eye[HISTO_EYE_LO];
    const uint offset = (uint)bin - lo;
    if (offset < eye[HISTO_EYE_HI] - lo) {
        const ulong stride = (ulong)tiles_launched * tile_bins;
        for (uint b = 0; b < batches && count < HISTO_SATURATE; ++b)
            count += partial[b * stride + offset];
    }
    hist[bin] = (uchar)min(count, (uint)HISTO_SATURATE);
}
