/*
 * eye_args.cl - what every entry kernel of the eye design takes: the
 * leading parameters of eye_tile.cl's and eye_fused.cl's entries, in the
 * order eye.c sets them (set_tile_args), and struct eye_args, which
 * carries their scalars to the helpers. One definition for the four
 * entries, so that they cannot drift apart.
 */

/* The kernel's scalar arguments (eye.c sets them: set_tile_args). */
struct eye_args {
    uint n, nbins, tile_bins, tile_words, ncells, cell_tiles, max_tiles,
         min_samples, min_samples_2d, forced_batches, count_groups, replicas,
         bucket_cap;
};

/* The parameters every entry opens with; each adds its own after them. */
#define EYE_PARAMS                                                        \
    global const uint *restrict in, uint n, uint nbins, uint tile_bins,   \
        uint tile_words, uint ncells, uint cell_tiles, uint max_tiles,    \
        uint min_samples, uint min_samples_2d, uint forced_batches,       \
        uint count_groups, uint replicas, local uint *tile

/* struct eye_args from an entry's EYE_PARAMS and its bucket_cap (0u for
 * the entries without buckets). */
#define EYE_ARGS(bucket_cap)                                              \
    {n, nbins, tile_bins, tile_words, ncells, cell_tiles, max_tiles,      \
     min_samples, min_samples_2d, forced_batches, count_groups, replicas, \
     bucket_cap}
