/*
 * eye_plan.h - the eye strategy's plan as arithmetic: the tiles, the
 * cells the eye is sampled in, the tile kernel's groups, the samples a
 * cell needs, the reduction's groups and the buckets, from the figures of
 * the device, the input and the knobs. No OpenCL call and no environment
 * variable: eye.c asks the runtime and the environment, and hands the
 * answers in, so that tests/unit_tests.c checks the plan without a device.
 */
#ifndef HISTO_EYE_PLAN_H
#define HISTO_EYE_PLAN_H

#include "strategy.h"

#include <stdbool.h>
#include <stdint.h>

/* The kernels of an iteration, in launch order (eye.c's kernel_names). */
enum { K_TILE, K_REDUCE, K_COUNT };

struct eye_plan {
    bool two_d;              /* the tile kernel is eye_tile_2d          */
    cl_uint groups;          /* work-groups of the tile kernel          */
    cl_uint count_groups;    /* ... of which count (B = these / tiles)  */
    cl_uint forced_batches;  /* --batches, 0 = groups / tiles used      */
    cl_uint tile_rows;       /* w: whole rows per tile (0: < 1 row)     */
    cl_uint tile_bins;       /* bins per tile, a multiple of 4          */
    cl_uint tile_words;      /* local words: counters, or eye scratch   */
    cl_uint replicas;        /* R: copies of the tile per group         */
    bool narrow_possible;    /* eye_tile_2d may take 8-bit counters     */
    cl_uint ncells;          /* cells the eye is sampled in ...         */
    cl_uint cell_tiles;      /* ... of this many tiles each             */
    cl_uint max_tiles;       /* largest eye window, in tiles            */
    cl_uint min_samples;     /* samples a cell needs to join the window */
    cl_uint min_samples_2d;  /* the same for a 2-D window's cells       */
    size_t group[K_COUNT];   /* work-group size of each kernel          */
    size_t group_limit[K_COUNT]; /* their CL_KERNEL_WORK_GROUP_SIZE     */
    size_t tile_target;      /* tile group the program was asked for    */
    size_t tile_accepted;    /* eye_tile's reqd_work_group_size that
                                eye_tile_2d runs at (tile_group), or 0  */
    size_t tile_required;    /* the tile kernel's reqd_work_group_size
                                (CL_KERNEL_COMPILE_WORK_GROUP_SIZE[0]),
                                0: built without one                   */
    size_t local_bytes;      /* dynamic local memory of a tile group    */
    cl_uint reduce_groups[2]; /* groups of the reduction's parts A, B  */
    size_t partial_bytes;
    cl_uint nbuckets;        /* buckets of an iteration without a tile  */
    cl_uint bucket_cap;      /* entries an area holds, 0: no buckets    */
    const char *buckets_why; /* why there are none, else NULL           */
    size_t bucket_bytes;     /* the cursors and the areas               */
};

/* The tile kernel's work-group size: `compiled` (its
 * reqd_work_group_size) where it has one; else `accepted` (eye_tile's, in
 * the same program), or else `target` at most `kernel_max` (what it
 * reports); either at most `device_max` and HISTO_TILE_GROUP_MAX; at
 * least 1. */
size_t eye_plan_tile_group(size_t compiled, size_t accepted, size_t target,
                           size_t kernel_max, size_t device_max);

/* The reduction's work-group size from what the device and kernel allow
 * (`allowed`): a multiple of HISTO_REDUCE_LANES where it holds any. */
size_t eye_plan_reduce_group(size_t allowed);

/* The eye kernels' reciprocal of the histogram's width (their width_div,
 * kernels/eye_args.cl): ceil(2^64 / width), so that d / width is the
 * high 64 bits of d times it for every 32-bit d; 0 for a width of 1,
 * which has no such reciprocal (the kernels divide a power of two by its
 * shift, below). */
uint64_t eye_width_recip(uint32_t width);
/* Their shift for the width: log2(width) where it is a power of two, 32
 * (none) where it is not. */
uint32_t eye_width_shift(uint32_t width);

/* Local words a tile group may take of `local_mem` bytes, less the tile
 * kernel's static local memory and HISTO_LOCAL_HEADROOM. */
uint64_t eye_plan_local_words(uint64_t local_mem, uint64_t static_local);

/* Whether the tile kernel may choose a 2-D window (eye_tile_2d): the
 * width a multiple of 4, at least 8, and at least `min_values` values. */
bool eye_plan_may_use_2d(const struct histo_input *in, uint64_t min_values);

/* Tiles from `words_avail` local words: replicas (1, --replicas or
 * HISTO_REPLICAS where `replicated`), tile_bins and tile_rows, two
 * 16-bit counters a word. Returns 0,
 * or HISTO_EXIT_DEVICE (a message) where the words hold too few. */
int eye_plan_tiles(struct eye_plan *p, const struct strategy_env *env,
                   bool replicated, uint64_t words_avail);

/* The cells, the largest window, tile_words and local_bytes. */
void eye_plan_cells(struct eye_plan *p, const struct histo_input *in,
                    uint64_t words_avail);

/* The tile kernel's groups (and forced_batches), once group[K_TILE] and
 * max_tiles are planned. */
void eye_plan_groups(struct eye_plan *p, const struct strategy_env *env);

/* The fused kernel's launch: a tile group's place on every one of
 * `units` compute units, all of them sharing the reduction, however few
 * of them count (count_groups, from eye_plan_groups). */
void eye_plan_fused_groups(struct eye_plan *p, uint64_t units);

/* min_samples (from the share 1/share_inv) and min_samples_2d. */
void eye_plan_samples(struct eye_plan *p, const struct histo_input *in,
                      cl_uint share_inv);

/* The reduction's groups of parts A and B, once group[K_REDUCE],
 * max_tiles and tile_bins are planned. */
void eye_plan_reduce(struct eye_plan *p, uint64_t nbins, uint64_t units);

/* What the environment asks of the buckets ($HISTO_EYE_BUCKET_CAP). */
struct eye_bucket_ask {
    bool off;          /* "0": no buckets                               */
    unsigned long cap; /* entries an area holds, 0: the plan decides    */
};

/* The buckets (nbuckets, bucket_cap, bucket_bytes; else buckets_why),
 * once two_d and tile_words are planned. fused: none. */
void eye_plan_buckets(struct eye_plan *p, const struct strategy_env *env,
                      bool fused, const struct eye_bucket_ask *ask);

#endif
