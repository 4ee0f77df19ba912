/*
 * eye.c - host side of the eye strategy: plan the grid from the device's
 * properties, own the buffers, enqueue tile -> reduce (or, for the fused
 * strategy, the one kernel that does both: eye_fused.cl). The replicated
 * strategy is the same with R copies of each tile per work-group (each
 * counted by 1/R of the group's work-items, added up when the tile is
 * written out): less contention on dense bins, 1/R of the rows a tile.
 *
 * Nothing is read back inside an iteration: the eye window lives in a small
 * device buffer that the tile and reduce kernels read, and the out-of-eye
 * histogram is cleared by the reduction that consumes it.
 */
#include "eye.h"

#include "params.h"
#include "program.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const sources[] = {"eye_tile.cl", "eye_reduce.cl"};
static const char *const fused_sources[] = {"eye_tile.cl", "eye_reduce.cl",
                                            "eye_fused.cl"};
/* The timing names; where the input may take a 2-D window eye_tile_2d is
 * launched in eye_tile's place (tile_name()). The fused strategy launches
 * eye_fused (or eye_fused_2d) alone, in K_TILE's place: the reduction's
 * kernel is created for its plan only. */
static const char *const kernel_names[] = {"eye_tile", "eye_reduce"};
static const char *const fused_names[] = {"eye_fused"};
enum { K_TILE, K_REDUCE, K_COUNT };

struct eye_plan {
    bool two_d;              /* the tile kernel is eye_tile_2d          */
    cl_uint groups;          /* work-groups of the tile kernel          */
    cl_uint forced_batches;  /* --batches, 0 = groups / tiles used      */
    cl_uint tile_rows;       /* w: whole rows per tile (0: < 1 row)     */
    cl_uint tile_bins;       /* bins per tile, a multiple of 4          */
    cl_uint tile_words;      /* local words: counters, or eye scratch   */
    cl_uint replicas;        /* R: copies of the tile per group         */
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

struct eye_state {
    cl_kernel kernel[K_COUNT];
    cl_program rebuilt;      /* the tile kernel's program after a refused
                                launch (tile_rebuild()), else NULL      */
    char rebuilt_why[96];    /* what was refused, "" if nothing         */
    cl_mem values, eye, partial, outer, histo;
    cl_mem out;              /* bind_output's buffer (not held), or NULL:
                                the reduction writes it, not histo     */
    cl_mem buckets;          /* eye_tile.cl's "Buckets": cursors, areas */
    cl_mem control;          /* fused: eye_fused.cl's two control blocks */
    cl_uint launch;          /* fused: launches so far (eye_fused.cl)    */
    struct eye_plan plan;
    struct strategy_env env;
    bool replicated;         /* the replicated strategy (R from env)    */
    bool fused;              /* one launch an iteration (eye_fused.cl)  */
    const struct histo_input *input;
    cl_uint eye_words[HISTO_EYE_WORDS]; /* read back with the histogram */
};

static void eye_release(void *opaque)
{
    struct eye_state *s = opaque;
    if (s == NULL)
        return;
    const cl_mem mems[] = {s->values, s->eye, s->partial, s->outer,
                           s->histo, s->buckets, s->control};
    strategy_release_objects(s->kernel, K_COUNT, mems,
                             sizeof mems / sizeof mems[0]);
    if (s->rebuilt != NULL)
        clReleaseProgram(s->rebuilt);
    free(s);
}

static const char *tile_name(const struct eye_state *s)
{
    if (s->fused)
        return s->plan.two_d ? "eye_fused_2d" : "eye_fused";
    return s->plan.two_d ? "eye_tile_2d" : "eye_tile";
}

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* The work-group size the tile kernels are built for (HISTO_TILE_REQD_SIZE
 * in eye_tile.cl): HISTO_TILE_GROUP, at most what the device runs.
 * $HISTO_TEST_TILE_GROUP, test-only, replaces it unchecked, so that a
 * size the runtime refuses can be tried on any device. */
static int tile_target(const struct device_info *dev, size_t *target)
{
    unsigned long forced = 0;
    int status = strategy_device_group_limit(dev, target);
    if (status == HISTO_OK)
        status = strategy_env_number("HISTO_TEST_TILE_GROUP",
                                     HISTO_TILE_GROUP_BOUND, &forced);
    *target = forced != 0 ? (size_t)forced
                          : min_size(*target, HISTO_TILE_GROUP);
    return status;
}

/* Build options: the tile kernels with reqd_work_group_size for the size
 * they will run at, or, where the runtime cannot build that, without.
 * HISTO_ONE_COPY=1 for the eye strategy: one copy of each tile, known to
 * the compiler, so that eye's kernels are those of a single tile (a
 * runtime count of copies cost the train input 5 us an iteration on an
 * H100); 0 for the replicated strategy, whose copies are a kernel
 * argument (--tune tries several on one program). */
static void tile_defines(size_t size, bool replicated,
                         struct program_defines *d)
{
    snprintf(d->text[0], sizeof d->text[0],
             "-DHISTO_TILE_REQD_SIZE=%zu -DHISTO_ONE_COPY=%d", size,
             !replicated);
    snprintf(d->text[1], sizeof d->text[1],
             "-DHISTO_TILE_REQD_SIZE=0 -DHISTO_ONE_COPY=%d", !replicated);
    d->count = 2;
    d->std[0] = '\0';
}

static int defines(const struct device_info *dev, bool replicated,
                   struct program_defines *d)
{
    size_t target;
    const int status = tile_target(dev, &target);
    if (status == HISTO_OK)
        tile_defines(target, replicated, d);
    return status;
}

static int eye_defines(const struct device_info *dev,
                       uint32_t loop_limit,
                       struct program_defines *d)
{
    (void)loop_limit;
    return defines(dev, false, d);
}

/* The fused kernel's barrier fence (eye_fused.cl, HISTO_FENCE): built as
 * the OpenCL C version whose atomic_work_item_fence it takes, or with
 * NVIDIA's assembly, or mem_fence alone (device.h). */
static void fence_defines(enum device_fence fence, struct program_defines *d)
{
    const char *opt = fence == DEVICE_FENCE_C30 || fence == DEVICE_FENCE_C20
                    ? " -DHISTO_FENCE=1"
                    : fence == DEVICE_FENCE_PTX     ? " -DHISTO_FENCE=2"
                    : fence == DEVICE_FENCE_PTX_ACQ ? " -DHISTO_FENCE=3"
                                                    : " -DHISTO_FENCE=0";
    snprintf(d->std, sizeof d->std, "%s",
             fence == DEVICE_FENCE_C30   ? "CL3.0"
             : fence == DEVICE_FENCE_C20 ? "CL2.0"
                                         : "");
    for (size_t i = 0; i < d->count; ++i) {
        const size_t len = strlen(d->text[i]);
        snprintf(d->text[i] + len, sizeof d->text[i] - len, "%s", opt);
    }
}

static int fused_defines(const struct device_info *dev,
                         uint32_t loop_limit,
                         struct program_defines *d)
{
    (void)loop_limit;
    const int status = defines(dev, false, d);
    if (status == HISTO_OK)
        fence_defines(dev->fence, d);
    return status;
}

static int replicated_defines(const struct device_info *dev,
                              uint32_t loop_limit,
                              struct program_defines *d)
{
    (void)loop_limit;
    return defines(dev, true, d);
}

/* The tile kernel's work-group size. Built with reqd_work_group_size
 * (CL_KERNEL_COMPILE_WORK_GROUP_SIZE not 0) it runs at that size, the
 * only one it may: the runtime built it for that size, even where it
 * reports a smaller CL_KERNEL_WORK_GROUP_SIZE (NVIDIA's OpenCL reports
 * 256 for every kernel, yet builds and runs these at 1024:
 * docs/design.md). Built without, at `target`, at most the size it
 * reports, what the device runs and HISTO_TILE_GROUP_MAX. */
static int tile_group(struct eye_state *s, size_t target)
{
    int status = HISTO_OK;
    struct eye_plan *p = &s->plan;
    const cl_device_id dev = s->env.device->id;
    size_t kmax = 0, compiled[3] = {0, 0, 0};
    CL_CALL(clGetKernelWorkGroupInfo(s->kernel[K_TILE], dev,
                                     CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax,
                                     &kmax, NULL));
    CL_CALL(clGetKernelWorkGroupInfo(s->kernel[K_TILE], dev,
                                     CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                     sizeof compiled, compiled, NULL));
    p->group_limit[K_TILE] = kmax;
    p->tile_required = compiled[0];
    if (compiled[0] != 0 && (compiled[1] != 1 || compiled[2] != 1)) {
        histo_error("kernel %s was built for groups of %zu x %zu x %zu "
                    "work-items, not one row", tile_name(s), compiled[0],
                    compiled[1], compiled[2]);
        return HISTO_EXIT_DEVICE;
    }
    size_t limit;
    if ((status = strategy_device_group_limit(s->env.device, &limit))
        != HISTO_OK)
        return status;
    /* eye_tile_2d and the fused kernels have no reqd_work_group_size
     * (eye_tile.cl, eye_fused.cl say why): they run at the size the
     * runtime built eye_tile for in the same program, where it built it
     * with one; a launch it then refuses rebuilds the program for a size
     * it reports (launch). */
    size_t accepted = 0;
    if (compiled[0] == 0 && (s->plan.two_d || s->fused)) {
        cl_kernel one_d = NULL;
        size_t c1[3] = {0, 0, 0};
        CL_CREATE(one_d, clCreateKernel(s->env.program, "eye_tile",
                                        &cl_err_));
        const cl_int err = clGetKernelWorkGroupInfo(
            one_d, dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof c1, c1,
            NULL);
        clReleaseKernel(one_d);
        CL_CALL(err);
        accepted = c1[0];
    }
    p->tile_accepted = compiled[0] == 0 ? accepted : 0;
    p->group[K_TILE] = compiled[0] != 0 ? compiled[0]
                     : accepted != 0
                         ? min_size(accepted,
                                    min_size(limit, HISTO_TILE_GROUP_MAX))
                         : min_size(min_size(target, kmax),
                                    min_size(limit, HISTO_TILE_GROUP_MAX));
    if (p->group[K_TILE] < 1)
        p->group[K_TILE] = 1;
fail:
    return status;
}

/* The reduction's work-group size: HISTO_WORK_GROUP (what NVIDIA reports
 * anyway), at most the device's and the kernel's limits, never above
 * what it reports. Its part B gives each window quad HISTO_REDUCE_LANES
 * work-items of one group, so a group holds a multiple of them where it
 * holds any. */
static int reduce_group(struct eye_state *s)
{
    struct eye_plan *p = &s->plan;
    size_t size;
    const int status = strategy_group_size(s->env.device, s->kernel[K_REDUCE],
                                           HISTO_WORK_GROUP, &size,
                                           &p->group_limit[K_REDUCE]);
    if (status != HISTO_OK)
        return status;
    if (size >= HISTO_REDUCE_LANES)
        size -= size % HISTO_REDUCE_LANES;
    p->group[K_REDUCE] = size;
    return HISTO_OK;
}

/* The share of samples a cell needs to join the eye window, as 1/N:
 * HISTO_EYE_SHARE_INV, or $HISTO_EYE_SHARE_INV when tuning. */
static int share_inverse(cl_uint *inv)
{
    unsigned long v;
    const int status = strategy_env_number("HISTO_EYE_SHARE_INV",
                                           HISTO_EYE_SAMPLES, &v);
    *inv = v != 0 ? (cl_uint)v : HISTO_EYE_SHARE_INV;
    return status;
}

_Static_assert(HISTO_EYE_SAMPLES < 65536 && HISTO_EYE_SAMPLES % HISTO_EYE_RUN == 0
                   && HISTO_EYE_SAMPLES >= 2 * HISTO_EYE_RUN,
               "eye_tile.cl packs sample counts in 16 bits and samples whole "
               "runs at two points at least");
_Static_assert(HISTO_BUCKET_BINS % 8 == 0 && HISTO_BUCKET_BINS <= 65536
                   && HISTO_BUCKET_LOCAL_WORDS
                          == HISTO_BUCKET_BINS / 2 + 1
                   && HISTO_BUCKET_LOCAL_WORDS >= 4 * HISTO_WORK_GROUP
                   && HISTO_BUCKET_CHUNK % 8 == 0
                   && HISTO_BUCKET_CHUNK < 65536
                   && HISTO_BUCKET_MIN_SLOTS % 2 == 0,
               "buckets: 16-bit offsets, whole quads, and the reduction's "
               "local words hold a bucket or part B's lanes");
_Static_assert(HISTO_WORK_GROUP % HISTO_REDUCE_LANES == 0,
               "reduction groups hold whole window quads");
_Static_assert(HISTO_TILE_GROUP <= HISTO_TILE_GROUP_MAX
                   && HISTO_TILE_GROUP_MAX <= HISTO_TILE_GROUP_BOUND
                   && HISTO_TILE_GROUP_BOUND == 0xffffu - HISTO_SATURATE,
               "16-bit tile counters hold 255 plus one increment per item");

/* Whether eye_tile.cl may choose a 2-D window for the input (its can_2d,
 * where a row also fits a tile): then the kernel eye_tile_2d runs, else
 * eye_tile, which has whole rows only. From HISTO_EYE_2D_MIN_VALUES
 * values, or from $HISTO_TEST_2D_MIN_VALUES (test-only: small inputs that
 * take 2-D windows, for the kernel checker's simulator). */
static int input_may_use_2d(const struct histo_input *in, bool *may)
{
    unsigned long min_values;
    const int status = strategy_env_number("HISTO_TEST_2D_MIN_VALUES",
                                           UINT32_MAX, &min_values);
    if (min_values == 0)
        min_values = HISTO_EYE_2D_MIN_VALUES;
    *may = in->histo_width % 4 == 0 && in->histo_width >= 8
        && in->nvalues >= min_values;
    return status;
}

/* Groups of the reduction (eye_reduce.cl): part A, one work-item per quad
 * of bins, then part B, HISTO_REDUCE_LANES per quad of the largest
 * window (max_tiles tiles; a 2-D window has fewer); each loops over its
 * quads, so neither needs more than HISTO_REDUCE_GROUPS_PER_CU groups a
 * compute unit (launching thousands of groups costs microseconds:
 * docs/design.md). Any group size gives the same result. */
static void reduce_groups(struct eye_state *s, uint64_t units)
{
    struct eye_plan *p = &s->plan;
    const uint64_t group = p->group[K_REDUCE];
    const uint64_t cap = units * HISTO_REDUCE_GROUPS_PER_CU;
    const uint64_t full = s->input->nbins / 4;
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

/* Local words a tile group may take: the device's local memory less the
 * tile kernel's static local memory and a headroom. */
static int local_words(struct eye_state *s, const struct device_info *dev,
                       uint64_t *words)
{
    int status = HISTO_OK;
    cl_ulong static_local = 0;
    CL_CALL(clGetKernelWorkGroupInfo(s->kernel[K_TILE], dev->id,
                                     CL_KERNEL_LOCAL_MEM_SIZE,
                                     sizeof static_local, &static_local,
                                     NULL));
    const cl_ulong reserved = HISTO_LOCAL_HEADROOM + static_local;
    *words = (dev->local_mem > reserved ? dev->local_mem - reserved : 0)
           / sizeof(cl_uint);
fail:
    return status;
}

/* The tile's words also hold the eye's column buckets, a grid of cell
 * counts, the 2-D window's row buckets twice over and a few more words
 * (eye_tile.cl). */
static const uint64_t eye_scratch = 2 + HISTO_EYE_COL_BUCKETS
                                  + 2 * HISTO_EYE_ROW_BUCKETS;

/* Tiles as large as local memory allows (two 16-bit counters a word; R
 * copies share it, each holding 1/R of the bins), whole rows when a row
 * fits, at most --tile-rows rows. */
static int plan_tiles(struct eye_state *s, const struct strategy_env *env,
                      uint64_t words_avail)
{
    const struct device_info *dev = env->device;
    const struct histo_input *in = env->input;
    struct eye_plan *p = &s->plan;
    p->replicas = !s->replicated ? 1
                : env->knobs.v[KNOB_REPLICAS] != 0 ? env->knobs.v[KNOB_REPLICAS]
                                                   : HISTO_REPLICAS;
    uint64_t bins = words_avail * 2 / p->replicas;
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
    /* bins <= local memory / 2 bytes, far below 2^32 on any device */
    p->tile_bins = (cl_uint)bins;
    p->tile_rows = (cl_uint)(bins / in->histo_width);
    return HISTO_OK;
}

/* Cells of one tile where at most HISTO_EYE_CELLS (and what local memory
 * holds, at least 32) cover the histogram, else of as many tiles as it
 * takes: every cell covers the same share of it, so no cell gathers the
 * bins past the others and wins the densest-cell choice by that alone.
 * Then the largest window and the tile group's local words. */
static void plan_cells(struct eye_plan *p, const struct histo_input *in,
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
    uint64_t words = bins / 2 * p->replicas;
    if (words < p->ncells + eye_scratch)
        words = p->ncells + eye_scratch;
    p->tile_words = (cl_uint)words;
    p->local_bytes = (size_t)words * sizeof(cl_uint);
}

/* The tile kernel's groups: --batches x the largest window, or as many
 * as the compute units keep busy, fewer for small inputs (batches then
 * follow on the device from the tiles the eye needs). At most
 * the --batches maximum (knobs.c) x HISTO_MAX_TILES, or a few a compute
 * unit. */
static void plan_groups(struct eye_plan *p, const struct strategy_env *env)
{
    uint64_t groups;
    if (env->knobs.v[KNOB_BATCHES] != 0) {
        p->forced_batches = env->knobs.v[KNOB_BATCHES];
        groups = (uint64_t)p->forced_batches * p->max_tiles;
    } else {
        uint64_t per_cu = HISTO_CU_THREADS / p->group[K_TILE];
        if (per_cu < 1)
            per_cu = 1;
        if (per_cu > HISTO_MAX_GROUPS_PER_CU)
            per_cu = HISTO_MAX_GROUPS_PER_CU;
        groups = device_units(env->device) * per_cu;
        const uint64_t useful = (env->input->nvalues
                                 + HISTO_MIN_GROUP_VALUES - 1)
                              / HISTO_MIN_GROUP_VALUES;
        if (groups > useful)
            groups = useful;
        if (groups < p->max_tiles)
            groups = p->max_tiles;
    }
    p->groups = (cl_uint)groups;
}

/* The samples a cell needs to join the window, whole-row and 2-D. */
static int plan_samples(struct eye_plan *p, const struct histo_input *in)
{
    cl_uint inv;
    const int status = share_inverse(&inv);
    if (status != HISTO_OK)
        return status;
    const uint64_t samples = in->nvalues < HISTO_EYE_SAMPLES
                           ? in->nvalues : HISTO_EYE_SAMPLES;
    p->min_samples = (cl_uint)((samples + inv - 1) / inv);
    if (p->min_samples == 0)
        p->min_samples = 1;
    p->min_samples_2d = (cl_uint)((samples + HISTO_EYE_2D_SHARE_INV - 1)
                                  / HISTO_EYE_2D_SHARE_INV);
    if (p->min_samples_2d == 0)
        p->min_samples_2d = 1;
    return HISTO_OK;
}

/* Buckets for iterations without a tile (eye_tile.cl, "Buckets"): the
 * tile's memory must hold the staging of HISTO_BUCKET_MIN_SLOTS values a
 * bucket, and each area about twice an even share of the input, never
 * more than the input (values past an area's end take global atomics),
 * within 1/HISTO_BUCKET_MEM_INV of the device's memory and one
 * allocation. $HISTO_EYE_BUCKET_CAP sets the entries an area holds (0: no
 * buckets), checked against one allocation only. Only eye_tile_2d has them
 * (eye_tile.cl, count_group). The fused kernels take none: their
 * reduction would need a bucket's counters in the tile's memory. */
static int plan_buckets(struct eye_plan *p, const struct strategy_env *env,
                        bool fused)
{
    const uint64_t nb = ((uint64_t)env->input->nbins - 1) / HISTO_BUCKET_BINS
                      + 1;
    const uint64_t pad_bytes = (nb + HISTO_BUCKET_PAD - 1) / HISTO_BUCKET_PAD
                             * HISTO_BUCKET_PAD * sizeof(cl_uint);
    p->nbuckets = 0;
    p->bucket_cap = 0;
    p->bucket_bytes = 0;
    const char *forced = getenv("HISTO_EYE_BUCKET_CAP");
    unsigned long cap = 0;
    if (forced != NULL && strcmp(forced, "0") == 0) {
        p->buckets_why = "HISTO_EYE_BUCKET_CAP=0";
        return HISTO_OK;
    }
    if (strategy_env_number("HISTO_EYE_BUCKET_CAP", 1ul << 28, &cap)
        != HISTO_OK) {
        histo_error("HISTO_EYE_BUCKET_CAP may also be 0: no buckets");
        return HISTO_EXIT_USAGE;
    }
    if (fused) {
        p->buckets_why = "the fused kernel";
        return HISTO_OK;
    }
    if (!p->two_d) {
        p->buckets_why = "eye_tile (no 2-D window for this input)";
        return HISTO_OK;
    }
    if ((uint64_t)p->tile_words < nb * (2 + HISTO_BUCKET_MIN_SLOTS / 2)) {
        p->buckets_why = "too little local memory for their staging";
        return HISTO_OK;
    }
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
        return HISTO_OK;
    }
    p->nbuckets = (cl_uint)nb;
    p->bucket_cap = (cl_uint)entries;
    p->bucket_bytes = (size_t)(pad_bytes + 2 * nb * entries);
    p->buckets_why = NULL;
    return device_check_alloc(env->device, "bucket", p->bucket_bytes);
}

/* The plan, in phases: work-group sizes (those of the kernels created,
 * the ones launched), local memory, tiles, cells, groups, sample
 * thresholds, the reduction's groups; then the allocations it needs,
 * checked before anything is allocated: a histogram of up to 2^32 - 1
 * bins passes the input check but not every device's allocation limit.
 * batches x tiles never exceeds the groups, so neither do the partials;
 * the output histogram is a quarter of the out-of-eye one, so these
 * checks cover it too. */
static int plan(struct eye_state *s, const struct strategy_env *env)
{
    int status;
    const struct device_info *dev = env->device;
    struct eye_plan *p = &s->plan;
    uint64_t words_avail = 0;
    if ((status = tile_target(dev, &p->tile_target)) != HISTO_OK
        || (status = tile_group(s, p->tile_target)) != HISTO_OK
        || (status = reduce_group(s)) != HISTO_OK
        || (status = local_words(s, dev, &words_avail)) != HISTO_OK
        || (status = plan_tiles(s, env, words_avail)) != HISTO_OK)
        return status;
    plan_cells(p, env->input, words_avail);
    plan_groups(p, env);
    if ((status = plan_samples(p, env->input)) != HISTO_OK)
        return status;
    reduce_groups(s, device_units(dev));
    if ((status = plan_buckets(p, env, s->fused)) != HISTO_OK)
        return status;
    const uint64_t all_bins = ((uint64_t)env->input->nbins + 3)
                            & ~(uint64_t)3;
    p->partial_bytes = (size_t)p->groups * p->tile_bins;
    if ((status = device_check_alloc(dev, "partial tiles",
                                     p->partial_bytes)) != 0
        || (status = device_check_alloc(dev, "out-of-eye histogram",
                                        all_bins * 4)) != 0)
        return status;
    return HISTO_OK;
}

static int set_tile_args(struct eye_state *s)
{
    int status = HISTO_OK;
    const struct eye_plan *p = &s->plan;
    /* A chunk holds at most WORK_MAX_CHUNK_VALUES = 2^31 values: fits
     * in cl_uint. */
    const cl_uint n = (cl_uint)s->input->nvalues;
    const cl_uint nbins = s->input->nbins;
    const cl_kernel k = s->kernel[K_TILE];
    cl_uint a = 0;
    CL_CALL(clSetKernelArg(k, a++, sizeof(cl_mem), &s->values));
    CL_CALL(clSetKernelArg(k, a++, sizeof n, &n));
    CL_CALL(clSetKernelArg(k, a++, sizeof nbins, &nbins));
    CL_CALL(clSetKernelArg(k, a++, sizeof p->tile_bins, &p->tile_bins));
    CL_CALL(clSetKernelArg(k, a++, sizeof p->tile_words, &p->tile_words));
    CL_CALL(clSetKernelArg(k, a++, sizeof p->ncells, &p->ncells));
    CL_CALL(clSetKernelArg(k, a++, sizeof p->cell_tiles, &p->cell_tiles));
    CL_CALL(clSetKernelArg(k, a++, sizeof p->max_tiles, &p->max_tiles));
    CL_CALL(clSetKernelArg(k, a++, sizeof p->min_samples, &p->min_samples));
    CL_CALL(clSetKernelArg(k, a++, sizeof p->min_samples_2d,
                           &p->min_samples_2d));
    CL_CALL(clSetKernelArg(k, a++, sizeof p->forced_batches,
                           &p->forced_batches));
    CL_CALL(clSetKernelArg(k, a++, sizeof p->replicas, &p->replicas));
    CL_CALL(clSetKernelArg(k, a++, p->local_bytes, NULL));
    CL_CALL(clSetKernelArg(k, a++, sizeof(cl_mem), &s->partial));
    CL_CALL(clSetKernelArg(k, a++, sizeof(cl_mem), &s->outer));
    CL_CALL(clSetKernelArg(k, a++, sizeof(cl_mem), &s->eye));
    if (!s->fused) {
        CL_CALL(clSetKernelArg(k, a++, sizeof p->bucket_cap,
                               &p->bucket_cap));
        CL_CALL(clSetKernelArg(k, a++, sizeof(cl_mem), &s->buckets));
    } else {
        CL_CALL(clSetKernelArg(k, a++, sizeof(cl_mem), &s->histo));
        CL_CALL(clSetKernelArg(k, a++, sizeof(cl_mem), &s->control));
        CL_CALL(clSetKernelArg(k, a++, sizeof s->launch, &s->launch));
    }
fail:
    return status;
}

static int set_reduce_args(struct eye_state *s)
{
    int status = HISTO_OK;
    const cl_uint nbins = s->input->nbins;
    const cl_kernel k = s->kernel[K_REDUCE];
    cl_uint a = 0;
    CL_CALL(clSetKernelArg(k, a++, sizeof(cl_mem), &s->outer));
    CL_CALL(clSetKernelArg(k, a++, sizeof(cl_mem), &s->partial));
    CL_CALL(clSetKernelArg(k, a++, sizeof(cl_mem), &s->eye));
    CL_CALL(clSetKernelArg(k, a++, sizeof nbins, &nbins));
    CL_CALL(clSetKernelArg(k, a++, sizeof(cl_mem), &s->histo));
    CL_CALL(clSetKernelArg(k, a++, sizeof(cl_uint),
                           &s->plan.reduce_groups[0]));
    CL_CALL(clSetKernelArg(k, a++, sizeof s->plan.bucket_cap,
                           &s->plan.bucket_cap));
    CL_CALL(clSetKernelArg(k, a++, sizeof(cl_mem), &s->buckets));
fail:
    return status;
}

static int setup(const struct strategy_env *env, bool replicated,
                 bool fused, void **opaque)
{
    int status = HISTO_OK;
    struct eye_state *s = NULL;
    const struct histo_input *in = env->input;
    /* eye_fused.cl waits for other groups in loops of no fixed length: a
     * device that ends loops early would let a group past the barrier
     * before the others have counted (wrong counters, silently). */
    if (fused && env->loop_limit != 0) {
        histo_error("the fused strategy waits for other work-groups in "
                    "loops of no fixed length, and '%s' ends a work-item's "
                    "loops after %u iterations: use --strategy eye",
                    env->device->name, env->loop_limit);
        return HISTO_EXIT_DEVICE;
    }
    HOST_ALLOC(s, 1);
    s->input = in;
    s->env = *env;
    s->replicated = replicated;
    s->fused = fused;
    CL_CREATE(s->kernel[K_REDUCE], clCreateKernel(env->program,
                                                  kernel_names[K_REDUCE],
                                                  &cl_err_));
    /* Planned with the tile kernel that will run. A tile of less than a
     * row takes no 2-D window: then eye_tile runs, planned with its own
     * figures. */
    if ((status = input_may_use_2d(in, &s->plan.two_d)) != HISTO_OK)
        goto fail;
    for (;;) {
        CL_CREATE(s->kernel[K_TILE], clCreateKernel(env->program,
                                                    tile_name(s), &cl_err_));
        if ((status = plan(s, env)) != HISTO_OK)
            goto fail;
        if (!s->plan.two_d || in->histo_width <= s->plan.tile_bins)
            break;
        clReleaseKernel(s->kernel[K_TILE]);
        s->kernel[K_TILE] = NULL;
        s->plan.two_d = false;
    }

    const struct eye_plan *p = &s->plan;
    /* Bins rounded up to whole quads: the reduction reads and writes four
     * at a time. */
    const size_t quad_bins = ((size_t)in->nbins + 3) & ~(size_t)3;
    /* The caller's input buffer, held until release. */
    CL_CALL(clRetainMemObject(env->values));
    s->values = env->values;
    CL_CREATE(s->eye, clCreateBuffer(env->context, CL_MEM_READ_WRITE,
                                     HISTO_EYE_WORDS * sizeof(cl_uint), NULL,
                                     &cl_err_));
    CL_CREATE(s->partial, clCreateBuffer(env->context, CL_MEM_READ_WRITE,
                                         p->partial_bytes, NULL, &cl_err_));
    CL_CREATE(s->outer, clCreateBuffer(env->context, CL_MEM_READ_WRITE,
                                       quad_bins * sizeof(cl_uint), NULL,
                                       &cl_err_));
    CL_CREATE(s->histo, clCreateBuffer(env->context, CL_MEM_READ_WRITE,
                                       quad_bins, NULL, &cl_err_));
    /* without buckets the kernels take a buffer they never touch */
    const size_t bucket_bytes = p->bucket_cap != 0
                              ? p->bucket_bytes
                              : HISTO_BUCKET_PAD * sizeof(cl_uint);
    CL_CREATE(s->buckets, clCreateBuffer(env->context, CL_MEM_READ_WRITE,
                                         bucket_bytes, NULL, &cl_err_));
    if (fused)
        CL_CREATE(s->control,
                  clCreateBuffer(env->context, CL_MEM_READ_WRITE,
                                 2 * HISTO_FUSED_CTL_WORDS * sizeof(cl_uint),
                                 NULL, &cl_err_));

    /* The reduction leaves `outer` zeroed for the next iteration; only the
     * first needs this fill. */
    const cl_uint zero = 0;
    CL_CALL(clEnqueueFillBuffer(env->queue, s->outer, &zero, sizeof zero, 0,
                                quad_bins * sizeof(cl_uint), 0, NULL, NULL));
    CL_CALL(clEnqueueFillBuffer(env->queue, s->eye, &zero, sizeof zero, 0,
                                HISTO_EYE_WORDS * sizeof(cl_uint), 0, NULL,
                                NULL));
    /* the cursors, which the reduction zeroes after each iteration */
    if (p->bucket_cap != 0)
        CL_CALL(clEnqueueFillBuffer(env->queue, s->buckets, &zero,
                                    sizeof zero, 0,
                                    (size_t)p->nbuckets * sizeof(cl_uint), 0,
                                    NULL, NULL));
    /* each launch zeroes the other block for the next (eye_fused.cl) */
    if (fused)
        CL_CALL(clEnqueueFillBuffer(env->queue, s->control, &zero,
                                    sizeof zero, 0,
                                    2 * HISTO_FUSED_CTL_WORDS
                                        * sizeof(cl_uint),
                                    0, NULL, NULL));
    if ((status = set_tile_args(s)) != HISTO_OK
        || (status = set_reduce_args(s)) != HISTO_OK)
        goto fail;

    *opaque = s;
    return HISTO_OK;
fail:
    eye_release(s);
    return status;
}

static int eye_setup(const struct strategy_env *env, void **opaque)
{
    return setup(env, false, false, opaque);
}

static int replicated_setup(const struct strategy_env *env, void **opaque)
{
    return setup(env, true, false, opaque);
}

static int fused_setup(const struct strategy_env *env, void **opaque)
{
    return setup(env, false, true, opaque);
}

/* Work-items of each kernel for a work-group size. */
static size_t tile_items(const struct eye_state *s, size_t group)
{
    return (size_t)s->plan.groups * group;
}

/* The reduction's parts A and B (reduce_groups()). */
static size_t reduce_items(const struct eye_state *s, size_t group)
{
    return ((size_t)s->plan.reduce_groups[0] + s->plan.reduce_groups[1])
         * group;
}

/* The tile kernel again, from the strategy's program built anew for
 * groups of `size` (or, where the runtime cannot build that, without
 * reqd_work_group_size, at most `size` and what it reports); the grid
 * stays as planned. */
static int tile_rebuild(struct eye_state *s, size_t size)
{
    int status = HISTO_OK;
    struct program_defines defines;
    cl_program program = NULL;
    tile_defines(size, s->replicated, &defines);
    if (s->fused)
        fence_defines(s->env.device->fence, &defines);
    if ((status = program_build(s->env.context, s->env.device,
                                s->env.kernel_dir,
                                s->fused ? fused_sources : sources,
                                s->fused ? sizeof fused_sources
                                               / sizeof fused_sources[0]
                                         : sizeof sources / sizeof sources[0],
                                s->input->histo_width, &defines, &program))
        != HISTO_OK)
        return status;
    if (s->rebuilt != NULL)
        clReleaseProgram(s->rebuilt);
    s->rebuilt = program;
    clReleaseKernel(s->kernel[K_TILE]);
    s->kernel[K_TILE] = NULL;
    CL_CREATE(s->kernel[K_TILE], clCreateKernel(program, tile_name(s),
                                                &cl_err_));
    if ((status = tile_group(s, size)) != HISTO_OK
        || (status = set_tile_args(s)) != HISTO_OK)
        return status;
fail:
    return status;
}

static bool group_refused(cl_int err)
{
    return err == CL_INVALID_WORK_GROUP_SIZE
        || err == CL_INVALID_WORK_ITEM_SIZE || err == CL_OUT_OF_RESOURCES;
}

/* Enqueues kernel k over items(s, group) work-items. Where the runtime
 * refuses the tile kernel's groups (the size it was built for, above what
 * it reports), the kernel is built again, once, for the largest group the
 * kernel and the device report, with a note. */
static int launch(struct eye_state *s, cl_command_queue queue, int k,
                  size_t (*items)(const struct eye_state *, size_t),
                  cl_event *ev)
{
    int status;
    for (;;) {
        const size_t group = s->plan.group[k];
        const size_t global = items(s, group);
        const cl_int err = clEnqueueNDRangeKernel(queue, s->kernel[k], 1,
                                                  NULL, &global, &group, 0,
                                                  NULL, ev);
        if (err == CL_SUCCESS)
            return HISTO_OK;
        size_t limit = 0;
        if ((status = strategy_device_group_limit(s->env.device, &limit))
            != HISTO_OK)
            return status;
        /* HISTO_TILE_GROUP_MAX at most: 16-bit tile counters hold 255
         * plus one increment per work-item */
        limit = min_size(min_size(limit, s->plan.group_limit[k]),
                         HISTO_TILE_GROUP_MAX);
        const char *name = k == K_TILE ? tile_name(s) : kernel_names[k];
        if (k != K_TILE || s->rebuilt_why[0] != '\0' || !group_refused(err)
            || group <= limit || limit < 1) {
            cl_report("clEnqueueNDRangeKernel(queue, kernel, 1, NULL, "
                      "&global, &group, 0, NULL, ev)",
                      err, __FILE__, __LINE__);
            histo_error("kernel %s, %zu work-items in groups of %zu",
                        name, global, group);
            return HISTO_EXIT_DEVICE;
        }
        snprintf(s->rebuilt_why, sizeof s->rebuilt_why,
                 "groups of %zu refused (%s)", group, cl_error_name(err));
        fprintf(stderr, "histo: note: groups of %zu refused for kernel %s "
                        "(%s); building it for groups of %zu, what it and "
                        "the device report\n",
                group, name, cl_error_name(err), limit);
        if ((status = tile_rebuild(s, limit)) != HISTO_OK)
            return status;
    }
}

static int eye_enqueue(void *opaque, cl_command_queue queue, cl_event *ev)
{
    int status;
    struct eye_state *s = opaque;
    if ((status = launch(s, queue, K_TILE, tile_items, &ev[K_TILE]))
        != HISTO_OK)
        return status;
    return launch(s, queue, K_REDUCE, reduce_items, &ev[K_REDUCE]);
}

/* The fused kernel alone, on the control block after the last launch's. */
static int fused_enqueue(void *opaque, cl_command_queue queue, cl_event *ev)
{
    int status = HISTO_OK;
    struct eye_state *s = opaque;
    CL_CALL(clSetKernelArg(s->kernel[K_TILE], 18, sizeof s->launch,
                           &s->launch));
    if ((status = launch(s, queue, K_TILE, tile_items, &ev[0])) != HISTO_OK)
        return status;
    ++s->launch;
fail:
    return status;
}

/* Counts another chunk of the same length from now on. */
static int eye_bind(void *opaque, cl_mem values)
{
    struct eye_state *s = opaque;
    return strategy_bind_values(&s->values, s->kernel[K_TILE], values);
}

/* The buffer an iteration leaves the histogram in. */
static cl_mem eye_output(const void *opaque)
{
    const struct eye_state *s = opaque;
    return s->out != NULL ? s->out : s->histo;
}

/* The reduction's output (two launches an iteration: eye_reduce writes
 * every bin, and is the last kernel). */
static int eye_bind_output(void *opaque, cl_mem out)
{
    int status = HISTO_OK;
    struct eye_state *s = opaque;
    if (s->out == out)
        return HISTO_OK;
    const cl_mem hist = out != NULL ? out : s->histo;
    CL_CALL(clSetKernelArg(s->kernel[K_REDUCE], 4, sizeof hist, &hist));
    s->out = out;
fail:
    return status;
}

static int eye_download(void *opaque, cl_command_queue queue, uint8_t *histo)
{
    int status = HISTO_OK;
    struct eye_state *s = opaque;
    CL_CALL(clEnqueueReadBuffer(queue, s->eye, CL_TRUE, 0,
                                sizeof s->eye_words, s->eye_words, 0, NULL,
                                NULL));
    CL_CALL(clEnqueueReadBuffer(queue, eye_output(s), CL_TRUE, 0,
                                s->input->nbins, histo, 0, NULL, NULL));
fail:
    return status;
}

/* First and last histogram row of the eye window, from the read-back;
 * both 0 when the window is empty. */
static void eye_rows(const struct eye_state *s, cl_uint *first, cl_uint *last)
{
    const cl_uint hw = s->input->histo_width;
    const cl_uint lo = s->eye_words[HISTO_EYE_LO];
    const cl_uint hi = s->eye_words[HISTO_EYE_HI];
    /* a 2-D window's last bin lies in its last row too (c0 + cols <= W) */
    *first = lo / hw;
    *last = hi > lo ? (hi - 1) / hw : *first;
}

/* The window's columns: first and count (the whole row without a 2-D
 * window). */
static void eye_cols(const struct eye_state *s, cl_uint *first, cl_uint *cols)
{
    const cl_uint hw = s->input->histo_width;
    *cols = s->eye_words[HISTO_EYE_COLS];
    *first = *cols != 0 ? s->eye_words[HISTO_EYE_LO] % hw : 0;
    if (*cols == 0)
        *cols = hw;
}

/* The batches are the device's choice, read back with the histogram. */
static void eye_used(const void *opaque, struct knob_used *u)
{
    const struct eye_state *s = opaque;
    u->v[KNOB_BATCHES] = (long)s->eye_words[HISTO_EYE_BATCHES];
    u->v[KNOB_TILE_ROWS] = (long)s->plan.tile_rows;
    u->v[KNOB_REPLICAS] = s->replicated ? (long)s->plan.replicas : -1;
}

/* Whether the last iteration sorted its values into buckets: it had no
 * tile, and the plan gave them room. */
static bool used_buckets(const struct eye_state *s)
{
    return s->eye_words[HISTO_EYE_TILES] == 0 && s->plan.bucket_cap != 0;
}

static void eye_report(const void *opaque, FILE *f)
{
    const struct eye_state *s = opaque;
    const struct eye_plan *p = &s->plan;
    cl_uint first, last;
    eye_rows(s, &first, &last);
    fprintf(f, "config.groups = %u\n", p->groups);
    fprintf(f, "config.tile_kernel = %s\n", tile_name(s));
    if (s->fused)
        fprintf(f, "config.fence = %s\n",
                device_fence_name(s->env.device->fence));
    fprintf(f, "config.batches_forced = %u\n", p->forced_batches);
    fprintf(f, "config.tile_rows = %u\n", p->tile_rows);
    fprintf(f, "config.tile_bins = %u\n", p->tile_bins);
    fprintf(f, "config.tile_counter_bits = 16\n");
    fprintf(f, "config.replicas = %u\n", p->replicas);
    fprintf(f, "config.tile_local_bytes = %zu\n", p->local_bytes);
    fprintf(f, "config.max_tiles = %u\n", p->max_tiles);
    fprintf(f, "config.eye_cells = %u\n", p->ncells);
    fprintf(f, "config.eye_cell_tiles = %u\n", p->cell_tiles);
    fprintf(f, "config.eye_min_samples = %u\n", p->min_samples);
    fprintf(f, "config.eye_min_samples_2d = %u\n", p->min_samples_2d);
    fprintf(f, "config.work_group.eye_tile = %zu\n", p->group[K_TILE]);
    fprintf(f, "config.work_group.eye_reduce = %zu\n", p->group[K_REDUCE]);
    fprintf(f, "config.work_group_limit.eye_tile = %zu\n",
            p->group_limit[K_TILE]);
    fprintf(f, "config.work_group_limit.eye_reduce = %zu\n",
            p->group_limit[K_REDUCE]);
    fprintf(f, "config.work_group_target.eye_tile = %zu\n", p->tile_target);
    fprintf(f, "config.work_group_required.eye_tile = %zu\n",
            p->tile_required);
    fprintf(f, "config.work_group_from.eye_tile = %s\n",
            p->tile_required != 0 ? "reqd_work_group_size"
            : p->tile_accepted != 0 ? "eye_tile's reqd_work_group_size"
                                    : "CL_KERNEL_WORK_GROUP_SIZE");
    fprintf(f, "config.work_group_accepted.eye_tile = %zu\n",
            p->tile_accepted);
    fprintf(f, "config.tile_rebuilt = %s\n",
            s->rebuilt_why[0] != '\0' ? s->rebuilt_why : "no");
    fprintf(f, "config.global_size.eye_tile = %zu\n",
            (size_t)p->groups * p->group[K_TILE]);
    fprintf(f, "config.reduce_groups = %u + %u\n", p->reduce_groups[0],
            p->reduce_groups[1]);
    fprintf(f, "config.partial_bytes = %zu\n", p->partial_bytes);
    fprintf(f, "config.buckets = %u\n", p->nbuckets);
    fprintf(f, "config.bucket_cap = %u\n", p->bucket_cap);
    fprintf(f, "config.bucket_bytes = %zu\n", p->bucket_bytes);
    fprintf(f, "config.buckets_off = %s\n",
            p->buckets_why != NULL ? p->buckets_why : "no");
    fprintf(f, "config.batches = %u\n", s->eye_words[HISTO_EYE_BATCHES]);
    fprintf(f, "eye.groups_counted = %u\n", s->eye_words[HISTO_EYE_RAN]);
    fprintf(f, "eye.tiles_used = %u\n", s->eye_words[HISTO_EYE_TILES]);
    fprintf(f, "eye.buckets_used = %s\n", used_buckets(s) ? "yes" : "no");
    const cl_uint adds = s->eye_words[HISTO_EYE_ADDS];
    fprintf(f, "eye.hot_bin = %s\n",
            adds & HISTO_ADDS_UNSAMPLED ? "not sampled"
            : adds & HISTO_ADDS_HOT     ? "yes"
                                        : "no");
    fprintf(f, "eye.plain_adds = %s\n",
            adds & HISTO_ADDS_PLAIN ? "yes" : "no");
    fprintf(f, "eye.first_bin = %u\n", s->eye_words[HISTO_EYE_LO]);
    fprintf(f, "eye.end_bin = %u\n", s->eye_words[HISTO_EYE_HI]);
    fprintf(f, "eye.first_row = %u\n", first);
    fprintf(f, "eye.last_row = %u\n", last);
    eye_cols(s, &first, &last);
    fprintf(f, "eye.first_col = %u\n", first);
    fprintf(f, "eye.cols = %u\n", last);
}

static void eye_summary(const void *opaque, FILE *f)
{
    const struct eye_state *s = opaque;
    cl_uint first, last;
    eye_rows(s, &first, &last);
    fprintf(f, "B=%u batches, w=%u rows/tile, ", s->eye_words[HISTO_EYE_BATCHES],
            s->plan.tile_rows);
    if (used_buckets(s))
        fprintf(f, "no eye window (values sorted into %u buckets)",
                s->plan.nbuckets);
    else if (s->eye_words[HISTO_EYE_TILES] == 0)
        fprintf(f, "no eye window (all values through global atomics)");
    else
        fprintf(f, "eye rows %u-%u", first, last);
    cl_uint c0, cols;
    eye_cols(s, &c0, &cols);
    if (s->eye_words[HISTO_EYE_TILES] != 0 && cols != s->input->histo_width)
        fprintf(f, ", columns %u-%u", c0, c0 + cols - 1);
    if (s->eye_words[HISTO_EYE_TILES] != 0)
        fprintf(f, " in %u tiles", s->eye_words[HISTO_EYE_TILES]);
    if (s->replicated)
        fprintf(f, ", %u copies of each", s->plan.replicas);
}

/* Dedicated local memory (CL_LOCAL, a scratchpad), whose tiles save
 * global atomics: where local memory is global memory behind a cache
 * (CL_GLOBAL, as on CPUs) the eye analysis buys nothing, and without
 * local memory (CL_NONE) it cannot run. The memory, not the device type,
 * decides: a device may report several types. */
static bool eye_fits(const struct strategy_share *sh)
{
    return sh->device->local_mem_type == CL_LOCAL;
}

/* Inputs of at most HISTO_FUSED_MAX_VALUES values: the barrier waits in
 * loops that a loop limit would cut short, and needs a fence that orders
 * memory for the other groups (device.h). */
static bool fused_fits(const struct strategy_share *sh)
{
    return eye_fits(sh) && sh->nvalues <= HISTO_FUSED_MAX_VALUES
        && sh->loop_limit == 0 && sh->device->fence != DEVICE_FENCE_NONE;
}

const struct strategy eye_strategy = {
    .name = "eye",
    .knobs = KNOB_BIT(KNOB_BATCHES) | KNOB_BIT(KNOB_TILE_ROWS),
    .sources = sources,
    .nsources = sizeof sources / sizeof sources[0],
    .kernels = kernel_names,
    .nkernels = K_COUNT,
    .defines = eye_defines,
    .fits = eye_fits,
    .setup = eye_setup,
    .enqueue = eye_enqueue,
    .download = eye_download,
    .output = eye_output,
    .bind = eye_bind,
    .bind_output = eye_bind_output,
    .report = eye_report,
    .used = eye_used,
    .summary = eye_summary,
    .release = eye_release,
};

const struct strategy fused_strategy = {
    .name = "fused",
    .knobs = KNOB_BIT(KNOB_BATCHES) | KNOB_BIT(KNOB_TILE_ROWS),
    .sources = fused_sources,
    .nsources = sizeof fused_sources / sizeof fused_sources[0],
    .kernels = fused_names,
    .nkernels = 1,
    .defines = fused_defines,
    .fits = fused_fits,
    .setup = fused_setup,
    .enqueue = fused_enqueue,
    .download = eye_download,
    .output = eye_output,
    .bind = eye_bind,
    .report = eye_report,
    .used = eye_used,
    .summary = eye_summary,
    .release = eye_release,
};

const struct strategy replicated_strategy = {
    .name = "replicated",
    .knobs = KNOB_BIT(KNOB_BATCHES) | KNOB_BIT(KNOB_TILE_ROWS)
             | KNOB_BIT(KNOB_REPLICAS),
    .sources = sources,
    .nsources = sizeof sources / sizeof sources[0],
    .kernels = kernel_names,
    .nkernels = K_COUNT,
    .defines = replicated_defines,
    .setup = replicated_setup,
    .enqueue = eye_enqueue,
    .download = eye_download,
    .output = eye_output,
    .bind = eye_bind,
    .bind_output = eye_bind_output,
    .report = eye_report,
    .used = eye_used,
    .summary = eye_summary,
    .release = eye_release,
};
