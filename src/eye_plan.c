/* eye_plan.c - the eye strategy's plan as arithmetic (see eye_plan.h). */
#include "eye_plan.h"

#include "params.h"

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* Tile groups a compute unit: HISTO_CU_THREADS work-items' worth, 1 to
 * HISTO_MAX_GROUPS_PER_CU. */
static uint64_t groups_per_unit(const struct eye_plan *p)
{
    uint64_t per_cu = HISTO_CU_THREADS / p->group[K_TILE];
    if (per_cu < 1)
        per_cu = 1;
    if (per_cu > HISTO_MAX_GROUPS_PER_CU)
        per_cu = HISTO_MAX_GROUPS_PER_CU;
    return per_cu;
}

size_t eye_plan_tile_group(size_t compiled, size_t accepted, size_t target,
                           size_t kernel_max, size_t device_max)
{
    const size_t limit = min_size(device_max, HISTO_TILE_GROUP_MAX);
    const size_t size = compiled != 0 ? compiled
                      : accepted != 0 ? min_size(accepted, limit)
                                      : min_size(min_size(target, kernel_max),
                                                 limit);
    return size < 1 ? 1 : size;
}

/* Part B gives each window quad HISTO_REDUCE_LANES work-items of one
 * group. */
size_t eye_plan_reduce_group(size_t allowed)
{
    if (allowed >= HISTO_REDUCE_LANES)
        allowed -= allowed % HISTO_REDUCE_LANES;
    return allowed;
}

uint64_t eye_width_recip(uint32_t width)
{
    /* ceil(2^64 / w) = floor((2^64 - 1) / w) + 1 for every w >= 1 */
    return width < 2 ? 0 : UINT64_MAX / width + 1;
}

uint32_t eye_width_shift(uint32_t width)
{
    if (width == 0 || (width & (width - 1)) != 0)
        return 32;
    uint32_t s = 0;
    while ((UINT32_C(1) << s) != width)
        ++s;
    return s;
}

uint64_t eye_plan_local_words(uint64_t local_mem, uint64_t static_local)
{
    const uint64_t reserved = HISTO_LOCAL_HEADROOM + static_local;
    return (local_mem > reserved ? local_mem - reserved : 0)
         / sizeof(cl_uint);
}

/* A 2-D window needs whole quads of columns (the reduction reads four
 * bins at a time); eye_window.cl's can_2d adds that a row fits a tile. */
bool eye_plan_may_use_2d(const struct histo_input *in, uint64_t min_values)
{
    return in->histo_width % 4 == 0 && in->histo_width >= 8
        && in->nvalues >= min_values;
}

/* The tile's words also hold the eye's column buckets, a grid of cell
 * counts, the 2-D window's row buckets twice over and a few more words
 * (eye_sample.cl). */
static const uint64_t eye_scratch = 2 + HISTO_EYE_COL_BUCKETS
                                  + 2 * HISTO_EYE_ROW_BUCKETS;

/* 16-bit tile counters, two a word (eye_count.cl). */
#define BINS_PER_WORD 2

/* Tiles as large as local memory allows (R copies share it, each
 * holding 1/R of the bins), whole rows when a row fits, at most
 * --tile-rows rows. */
int eye_plan_tiles(struct eye_plan *p, const struct strategy_env *env,
                   bool replicated, uint64_t words_avail)
{
    const struct device_info *dev = env->device;
    const struct histo_input *in = env->input;
    p->replicas = !replicated ? 1
                : env->knobs.v[KNOB_REPLICAS] != 0 ? env->knobs.v[KNOB_REPLICAS]
                                                   : HISTO_REPLICAS;
    uint64_t bins = words_avail * BINS_PER_WORD / p->replicas;
    if (bins < 64 || words_avail < eye_scratch + 32) {
        histo_error("device '%s' has %llu bytes of local memory, too few for "
                    "%u %s of counters", dev->name,
                    (unsigned long long)dev->local_mem, p->replicas,
                    p->replicas == 1 ? "tile" : "copies of a tile");
        return HISTO_EXIT_DEVICE;
    }
    const uint64_t all_bins = ((uint64_t)in->nbins + 3) & ~(uint64_t)3;
    if (bins > all_bins)
        bins = all_bins;
    const unsigned rows = env->knobs.v[KNOB_TILE_ROWS];
    if (rows != 0 && (uint64_t)rows * in->histo_width < bins)
        bins = (uint64_t)rows * in->histo_width;
    if (bins >= in->histo_width && bins < all_bins)
        bins = bins / in->histo_width * in->histo_width;
    if (bins < 4)
        bins = 4;
    bins &= ~(uint64_t)3;
    /* bins <= local memory * 2, far below 2^32 on any device */
    p->tile_bins = (cl_uint)bins;
    p->tile_rows = (cl_uint)(bins / in->histo_width);
    return HISTO_OK;
}

/* Cells of one tile where at most HISTO_EYE_CELLS (and what local memory
 * holds, at least 32) cover the histogram, else of as many tiles as it
 * takes: every cell covers the same share of it, so no cell gathers the
 * bins past the others and wins the densest-cell choice by that alone.
 * Then the largest window and the tile group's local words. */
void eye_plan_cells(struct eye_plan *p, const struct histo_input *in,
                    uint64_t words_avail)
{
    const uint64_t bins = p->tile_bins;
    const uint64_t tiles = ((uint64_t)in->nbins + bins - 1) / bins;
    uint64_t cells = tiles;
    if (cells > HISTO_EYE_CELLS)
        cells = HISTO_EYE_CELLS;
    if (cells > words_avail - eye_scratch)
        cells = words_avail - eye_scratch;
    const uint64_t cell_tiles = (tiles + cells - 1) / cells;
    p->cell_tiles = (cl_uint)cell_tiles;
    p->ncells = (cl_uint)((tiles + cell_tiles - 1) / cell_tiles);
    p->max_tiles = (cl_uint)(tiles < HISTO_MAX_TILES ? tiles
                                                     : HISTO_MAX_TILES);
    uint64_t words = bins / BINS_PER_WORD * p->replicas;
    if (words < p->ncells + eye_scratch)
        words = p->ncells + eye_scratch;
    p->tile_words = (cl_uint)words;
    p->local_bytes = (size_t)words * sizeof(cl_uint);
}

/* --batches x the largest window, or as many as the compute units keep
 * busy, fewer for small inputs (batches then follow on the device from
 * the tiles the eye needs). At most the --batches maximum (knobs.c) x
 * HISTO_MAX_TILES, or a few a compute unit. */
void eye_plan_groups(struct eye_plan *p, const struct strategy_env *env)
{
    uint64_t groups;
    if (env->knobs.v[KNOB_BATCHES] != 0) {
        p->forced_batches = env->knobs.v[KNOB_BATCHES];
        groups = (uint64_t)p->forced_batches * p->max_tiles;
    } else {
        groups = device_units(env->device) * groups_per_unit(p);
        const uint64_t useful = (env->input->nvalues
                                 + HISTO_MIN_GROUP_VALUES - 1)
                              / HISTO_MIN_GROUP_VALUES;
        if (groups > useful)
            groups = useful;
        if (groups < p->max_tiles)
            groups = p->max_tiles;
    }
    p->groups = (cl_uint)groups;
    p->count_groups = p->groups;
}

void eye_plan_fused_groups(struct eye_plan *p, uint64_t units)
{
    const uint64_t all = units * groups_per_unit(p);
    if (all > p->groups)
        p->groups = (cl_uint)all;
}

void eye_plan_samples(struct eye_plan *p, const struct histo_input *in,
                      cl_uint share_inv)
{
    const uint64_t samples = in->nvalues < HISTO_EYE_SAMPLES
                           ? in->nvalues : HISTO_EYE_SAMPLES;
    p->min_samples = (cl_uint)((samples + share_inv - 1) / share_inv);
    if (p->min_samples == 0)
        p->min_samples = 1;
    p->min_samples_2d = (cl_uint)((samples + HISTO_EYE_2D_SHARE_INV - 1)
                                  / HISTO_EYE_2D_SHARE_INV);
    if (p->min_samples_2d == 0)
        p->min_samples_2d = 1;
}

/* Part A, one work-item per quad of bins, then part B,
 * HISTO_REDUCE_LANES per quad of the largest window (max_tiles tiles; a
 * 2-D window has fewer); each loops over its quads, so neither needs more
 * than HISTO_REDUCE_GROUPS_PER_CU groups a compute unit (launching
 * thousands of groups costs microseconds: docs/design.md). Any group size
 * gives the same result. */
void eye_plan_reduce(struct eye_plan *p, uint64_t nbins, uint64_t units)
{
    const uint64_t group = p->group[K_REDUCE];
    const uint64_t cap = units * HISTO_REDUCE_GROUPS_PER_CU;
    const uint64_t full = nbins / 4;
    uint64_t window = (uint64_t)p->max_tiles * p->tile_bins / 4;
    if (window > full)
        window = full;
    const uint64_t a = (full + group - 1) / group;
    /* groups of fewer than HISTO_REDUCE_LANES have no part B: part A then
     * adds the window's quads too */
    const uint64_t b = group < HISTO_REDUCE_LANES
                     ? 0 : (window * HISTO_REDUCE_LANES + group - 1) / group;
    p->reduce_groups[0] = (cl_uint)(a < 1 ? 1 : a < cap ? a : cap);
    p->reduce_groups[1] = (cl_uint)(b < cap ? b : cap);
}

/* The reasons there are none, before any figure is weighed. */
static bool buckets_ruled_out(struct eye_plan *p, bool fused,
                              const struct eye_bucket_ask *ask,
                              uint64_t nb)
{
    if (ask->off)
        p->buckets_why = "HISTO_EYE_BUCKET_CAP=0";
    else if (fused)
        p->buckets_why = "the fused kernel";
    else if (!p->two_d)
        p->buckets_why = "eye_tile (no 2-D window for this input)";
    else if ((uint64_t)p->tile_words < nb * (2 + HISTO_BUCKET_MIN_SLOTS / 2))
        p->buckets_why = "too little local memory for their staging";
    else
        return false;
    return true;
}

/* Buckets for iterations without a tile (eye_bucket.cl): the
 * tile's memory must hold the staging of HISTO_BUCKET_MIN_SLOTS values a
 * bucket, and each area about twice an even share of the input, never
 * more than the input (values past an area's end take global atomics),
 * within 1/HISTO_BUCKET_MEM_INV of the device's memory and one
 * allocation. A cap asked for sets the entries an area holds, checked
 * against one allocation only (by eye.c). Only eye_tile_2d has them
 * (eye_tile.cl, count_group). The fused kernels take none: their
 * reduction would need a bucket's counters in the tile's memory. */
void eye_plan_buckets(struct eye_plan *p, const struct strategy_env *env,
                      bool fused, const struct eye_bucket_ask *ask)
{
    const uint64_t nb = ((uint64_t)env->input->nbins - 1) / HISTO_BUCKET_BINS
                      + 1;
    const uint64_t pad_bytes = (nb + HISTO_BUCKET_PAD - 1) / HISTO_BUCKET_PAD
                             * HISTO_BUCKET_PAD * sizeof(cl_uint);
    p->nbuckets = 0;
    p->bucket_cap = 0;
    p->bucket_bytes = 0;
    if (buckets_ruled_out(p, fused, ask, nb))
        return;
    const uint64_t cap = ask->cap;
    const uint64_t n = env->input->nvalues;
    uint64_t entries = cap != 0 ? cap : 2 * ((n + nb - 1) / nb);
    if (entries > n)
        entries = n;
    /* areas on 16-byte bounds; n <= 2^31: fits cl_uint */
    entries = (entries + 7) & ~(uint64_t)7;
    uint64_t limit = env->device->global_mem / HISTO_BUCKET_MEM_INV;
    if (limit > env->device->max_alloc)
        limit = env->device->max_alloc;
    const uint64_t room = limit > pad_bytes
                        ? (limit - pad_bytes) / (2 * nb) & ~(uint64_t)7 : 0;
    if (cap == 0 && entries > room)
        entries = room;
    if (entries < (cap != 0 ? 8 : HISTO_BUCKET_MIN_CAP)) {
        p->buckets_why = "too little device memory";
        return;
    }
    p->nbuckets = (cl_uint)nb;
    p->bucket_cap = (cl_uint)entries;
    p->bucket_bytes = (size_t)(pad_bytes + 2 * nb * entries);
    p->buckets_why = NULL;
}
