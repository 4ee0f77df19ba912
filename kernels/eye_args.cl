/*
 * eye_args.cl - what every entry kernel of the eye design takes: the
 * leading parameters of eye_tile.cl's and eye_fused.cl's entries, in the
 * order eye.c sets them (set_tile_args), and struct eye_args, which
 * carries their scalars to the helpers. One definition for the four
 * entries, so that they cannot drift apart.
 *
 * Order: first of the eye program's files: every other file uses its
 * struct eye_args (the list is eye.c's EYE_TILE_SOURCES).
 */

/* The kernel's scalar arguments (eye.c sets them: set_tile_args). */
struct eye_args {
    uint n, nbins, width, width_shift, tile_bins, tile_words, ncells,
         cell_tiles, max_tiles, min_samples, min_samples_2d,
         forced_batches, count_groups, replicas, bucket_cap;
    ulong width_recip;
};

/* The parameters every entry opens with; each adds its own after them. */
#define EYE_PARAMS                                                        \
    global const uint *restrict in, uint n, uint nbins, uint width,       \
        uint width_shift, ulong width_recip, uint tile_bins,              \
        uint tile_words, uint ncells, uint cell_tiles, uint max_tiles,    \
        uint min_samples, uint min_samples_2d, uint forced_batches,       \
        uint count_groups, uint replicas, local uint *tile

/* struct eye_args from an entry's EYE_PARAMS and its bucket_cap (0u for
 * the entries without buckets). */
#define EYE_ARGS(bucket_cap)                                              \
    {n, nbins, width, width_shift, tile_bins, tile_words, ncells,         \
     cell_tiles, max_tiles, min_samples, min_samples_2d, forced_batches,  \
     count_groups, replicas, bucket_cap, width_recip}

/*
 * The histogram's width (bins a row) is an argument, not a build option,
 * so that one program serves every histogram shape: PoCL, rusticl and
 * Intel's runtime build a program once for its sources and options. Its
 * quotients in the loops over values and bins take no division. A width
 * that is a power of two divides by a shift (width_shift; 32: none), any
 * other by its reciprocal (both worked out by the host: Oclgrind cannot
 * run the llvm.ctpop LLVM makes of a power-of-two test): with
 * width_recip = ceil(2^64 / width) (eye_plan.c, eye_width_recip),
 * d / width is the high 64 bits of d * width_recip for every 32-bit d (Lemire, Kaser and Kurz, "Faster
 * remainder by direct computation", 2019: exact where the reciprocal
 * has the numerator's 32 bits and the divisor's bits together). The 2-D
 * count, where the quotient is most of a value's work, runs a loop of
 * its own for the workload's width, HISTO_WORKLOAD_WIDTH, a constant
 * there, and one by the reciprocal for any other (eye_count.cl,
 * in_cols).
 */
static inline uint width_div(uint d, uint width_shift, ulong width_recip)
{
    return width_shift < 32u ? d >> width_shift
                             : (uint)mul_hi((ulong)d, width_recip);
}
