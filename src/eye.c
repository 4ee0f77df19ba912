/*
 * eye.c - host side of the eye strategy: plan the grid from the device's
 * properties (asking the runtime and the environment here, the arithmetic
 * in eye_plan.c), own the buffers, enqueue tile -> reduce (or, for the fused
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
#include "eye_internal.h"

#include "eye_plan.h"
#include "params.h"
#include "program.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The tile kernels' files in the order each needs the one before:
 * arguments, sampling, window, counting, buckets, then the grid and the
 * entries (eye_tile.cl); the reduction; the fused kernels use them all. */
#define EYE_TILE_SOURCES                                                  \
    "eye_args.cl", "eye_sample.cl", "eye_window.cl", "eye_count.cl",      \
        "eye_bucket.cl", "eye_tile.cl", "eye_reduce.cl"
static const char *const sources[] = {EYE_TILE_SOURCES};
static const char *const fused_sources[] = {EYE_TILE_SOURCES,
                                            "eye_fused.cl"};
/* The timing names; where the input may take a 2-D window eye_tile_2d is
 * launched in eye_tile's place (tile_name()). The fused strategy launches
 * eye_fused (or eye_fused_2d) alone, in K_TILE's place: the reduction's
 * kernel is created for its plan only. */
static const char *const kernel_names[] = {"eye_tile", "eye_reduce"};
static const char *const fused_names[] = {"eye_fused"};

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

const char *eye_tile_name(const struct eye_state *s)
{
    if (s->fused)
        return s->plan.two_d ? "eye_fused_2d" : "eye_fused";
    if (!s->plan.two_d)
        return "eye_tile";
    return s->plan.narrow_possible ? "eye_tile_2d_narrow" : "eye_tile_2d";
}

/* The reduction kernel created with the tile kernel (the fused strategy
 * launches neither: the reduction is eye_fused's own). */
const char *eye_reduce_name(const struct eye_state *s)
{
    return s->plan.narrow_possible ? "eye_reduce_narrow"
                                   : kernel_names[K_REDUCE];
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
        status = env_whole(ENV_HISTO_TEST_TILE_GROUP, &forced);
    *target = forced != 0 ? (size_t)forced
                          : min_size(*target, HISTO_TILE_GROUP);
    return status;
}

/* Build options: the tile kernels with reqd_work_group_size for the size
 * they will run at, or, where the runtime cannot build that, without.
 * HISTO_ONE_COPY=1 for the eye strategy: one copy of each tile, known to
 * the compiler, so that eye's kernels are those of a single tile (a
 * runtime copy count is slower: docs/design.md, "Strategy
 * `replicated`"); 0 for the replicated strategy, whose copies are a kernel
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

/* The values from which the program may choose 8-bit counters into
 * *min: HISTO_NARROW_MIN_VALUES, or $HISTO_TEST_NARROW_MIN_VALUES; 0
 * (none) unless `narrow`: the eye strategy's alone (in the fused kernels
 * their code made PoCL's build of eye_fused_2d take minutes; the
 * replicated tiles keep 16-bit counters, their copies sharing the
 * group's local memory). */
static int narrow_min(bool narrow, unsigned long *min)
{
    const int status = env_whole(ENV_HISTO_TEST_NARROW_MIN_VALUES, min);
    if (*min == 0)
        *min = HISTO_NARROW_MIN_VALUES;
    if (!narrow)
        *min = 0;
    return status;
}

/* The -D option after each alternative's; none where 8-bit counters are
 * off, so that the other strategies build as without them. */
static void narrow_defines(unsigned long min, struct program_defines *d)
{
    if (min == 0)
        return;
    for (size_t i = 0; i < d->count; ++i) {
        const size_t len = strlen(d->text[i]);
        snprintf(d->text[i] + len, sizeof d->text[i] - len,
                 " -DHISTO_NARROW_AUTO=%luu", min);
    }
}

static int defines(const struct device_info *dev, bool replicated,
                   bool fused, struct program_defines *d)
{
    size_t target;
    unsigned long min;
    int status = tile_target(dev, &target);
    if (status == HISTO_OK)
        status = narrow_min(!replicated && !fused, &min);
    if (status == HISTO_OK) {
        tile_defines(target, replicated, d);
        narrow_defines(min, d);
    }
    return status;
}

static int eye_defines(const struct device_info *dev,
                       uint32_t loop_limit,
                       struct program_defines *d)
{
    (void)loop_limit;
    return defines(dev, false, false, d);
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
    const int status = defines(dev, false, true, d);
    if (status == HISTO_OK)
        fence_defines(dev->fence, d);
    return status;
}

static int replicated_defines(const struct device_info *dev,
                              uint32_t loop_limit,
                              struct program_defines *d)
{
    (void)loop_limit;
    return defines(dev, true, false, d);
}

/* The work-group size the runtime built eye_tile for in the same
 * program (CL_KERNEL_COMPILE_WORK_GROUP_SIZE[0]), 0 where none: what
 * eye_tile_2d and the fused kernels run at. */
static int eye_tile_compiled(struct eye_state *s, size_t *accepted)
{
    int status = HISTO_OK;
    cl_kernel one_d = NULL;
    size_t c1[3] = {0, 0, 0};
    CL_CREATE(one_d, clCreateKernel(s->env.program, "eye_tile", &cl_err_));
    const cl_int err = clGetKernelWorkGroupInfo(
        one_d, s->env.device->id, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
        sizeof c1, c1, NULL);
    clReleaseKernel(one_d);
    CL_CALL(err);
    *accepted = c1[0];
fail:
    return status;
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
                    "work-items, not one row", eye_tile_name(s), compiled[0],
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
    if (compiled[0] == 0 && (s->plan.two_d || s->fused)
        && (status = eye_tile_compiled(s, &accepted)) != HISTO_OK)
        return status;
    p->tile_accepted = accepted;
    p->group[K_TILE] = eye_plan_tile_group(compiled[0], accepted, target,
                                           kmax, limit);
fail:
    return status;
}

/* The reduction's work-group size: HISTO_WORK_GROUP (what NVIDIA reports
 * anyway), at most the device's and the kernel's limits, never above
 * what it reports, in whole window quads' lanes (eye_plan.h). */
static int reduce_group(struct eye_state *s)
{
    struct eye_plan *p = &s->plan;
    size_t size;
    const int status = strategy_group_size(s->env.device, s->kernel[K_REDUCE],
                                           HISTO_WORK_GROUP, &size,
                                           &p->group_limit[K_REDUCE]);
    if (status != HISTO_OK)
        return status;
    p->group[K_REDUCE] = eye_plan_reduce_group(size);
    return HISTO_OK;
}

/* The share of samples a cell needs to join the eye window, as 1/N:
 * HISTO_EYE_SHARE_INV, or $HISTO_EYE_SHARE_INV when tuning. */
static int share_inverse(cl_uint *inv)
{
    unsigned long v;
    const int status = env_whole(ENV_HISTO_EYE_SHARE_INV, &v);
    *inv = v != 0 ? (cl_uint)v : HISTO_EYE_SHARE_INV;
    return status;
}

/* $HISTO_EYE_BUCKET_CAP (eye_plan_buckets): 0, no buckets; else the
 * entries an area holds. */
static int bucket_ask(struct eye_bucket_ask *ask)
{
    const int status = env_whole(ENV_HISTO_EYE_BUCKET_CAP, &ask->cap);
    /* set to 0: no buckets; unset (also 0 here): the plan's own cap */
    ask->off = status == HISTO_OK && ask->cap == 0
               && env_value(ENV_HISTO_EYE_BUCKET_CAP) != NULL;
    return status;
}

_Static_assert(HISTO_EYE_SAMPLES < 65536 && HISTO_EYE_SAMPLES % HISTO_EYE_RUN == 0
                   && HISTO_EYE_SAMPLES >= 2 * HISTO_EYE_RUN,
               "eye_sample.cl packs sample counts in 16 bits and samples "
               "whole runs at two points at least");
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

/* Whether eye_window.cl may choose a 2-D window for the input (can_2d,
 * where a row also fits a tile): then the kernel eye_tile_2d runs, else
 * eye_tile, which has whole rows only. From HISTO_EYE_2D_MIN_VALUES
 * values, or from $HISTO_TEST_2D_MIN_VALUES (test-only: small inputs that
 * take 2-D windows, for the kernel checker's simulator). */
static int input_may_use_2d(const struct histo_input *in, bool *may)
{
    unsigned long min_values;
    const int status = env_whole(ENV_HISTO_TEST_2D_MIN_VALUES, &min_values);
    if (min_values == 0)
        min_values = HISTO_EYE_2D_MIN_VALUES;
    *may = eye_plan_may_use_2d(in, min_values);
    return status;
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
    *words = eye_plan_local_words(dev->local_mem, static_local);
fail:
    return status;
}

/* The allocations the plan needs, checked before anything is allocated:
 * a histogram of up to 2^32 - 1 bins passes the input check but not
 * every device's allocation limit. batches x tiles never exceeds the
 * groups, so neither do the partials; the output histogram is a quarter
 * of the out-of-eye one, so these checks cover it too. */
static int check_allocs(struct eye_plan *p, const struct strategy_env *env)
{
    int status;
    const struct device_info *dev = env->device;
    const uint64_t all_bins = ((uint64_t)env->input->nbins + 3)
                            & ~(uint64_t)3;
    /* a group's tile of 8-bit counters holds twice the bins */
    p->partial_bytes = (size_t)p->count_groups * p->tile_bins
                     * (p->narrow_possible ? 2 : 1);
    if ((p->bucket_cap != 0
         && (status = device_check_alloc(dev, "bucket", p->bucket_bytes))
                != HISTO_OK)
        || (status = device_check_alloc(dev, "partial tiles",
                                        p->partial_bytes)) != HISTO_OK
        || (status = device_check_alloc(dev, "out-of-eye histogram",
                                        all_bins * 4)) != HISTO_OK)
        return status;
    return HISTO_OK;
}

/* The plan, in phases (eye_plan.h): work-group sizes (those of the
 * kernels created, the ones launched), local memory, tiles, cells,
 * groups, sample thresholds, the reduction's groups, buckets; then the
 * allocations it needs. */
static int plan(struct eye_state *s, const struct strategy_env *env)
{
    int status;
    const struct device_info *dev = env->device;
    struct eye_plan *p = &s->plan;
    uint64_t words_avail = 0;
    cl_uint share_inv;
    struct eye_bucket_ask ask;
    if ((status = tile_target(dev, &p->tile_target)) != HISTO_OK
        || (status = tile_group(s, p->tile_target)) != HISTO_OK
        || (status = reduce_group(s)) != HISTO_OK
        || (status = local_words(s, dev, &words_avail)) != HISTO_OK)
        return status;
    if ((status = eye_plan_tiles(p, env, s->replicated, words_avail))
        != HISTO_OK)
        return status;
    eye_plan_cells(p, env->input, words_avail);
    eye_plan_groups(p, env);
    if (s->fused)
        eye_plan_fused_groups(p, device_units(dev));
    if ((status = share_inverse(&share_inv)) != HISTO_OK)
        return status;
    eye_plan_samples(p, env->input, share_inv);
    eye_plan_reduce(p, env->input->nbins, device_units(dev));
    if ((status = bucket_ask(&ask)) != HISTO_OK)
        return status;
    eye_plan_buckets(p, env, s->fused, &ask);
    return check_allocs(p, env);
}

/* Where the counters end: the output bound (bind_output), else the
 * strategy's own histogram. */
static cl_mem eye_output(const void *opaque)
{
    const struct eye_state *s = opaque;
    return s->out != NULL ? s->out : s->histo;
}

/* The histogram's width, its shift and its reciprocal (the kernels'
 * width_div, kernels/eye_args.cl) as kernel k's arguments *a on. */
static int set_width_args(cl_kernel k, cl_uint *a, cl_uint width)
{
    int status = HISTO_OK;
    const cl_uint shift = eye_width_shift(width);
    const cl_ulong recip = eye_width_recip(width);
    CL_CALL(clSetKernelArg(k, (*a)++, sizeof width, &width));
    CL_CALL(clSetKernelArg(k, (*a)++, sizeof shift, &shift));
    CL_CALL(clSetKernelArg(k, (*a)++, sizeof recip, &recip));
fail:
    return status;
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
    if ((status = set_width_args(k, &a, s->input->histo_width)) != HISTO_OK)
        return status;
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
    CL_CALL(clSetKernelArg(k, a++, sizeof p->count_groups,
                           &p->count_groups));
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
        /* the output bound (fused_bind_output), else its own */
        const cl_mem hist = eye_output(s);
        s->fused_hist_arg = a;
        CL_CALL(clSetKernelArg(k, a++, sizeof(cl_mem), &hist));
        CL_CALL(clSetKernelArg(k, a++, sizeof(cl_mem), &s->control));
        s->launch_arg = a;
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
    if ((status = set_width_args(k, &a, s->input->histo_width)) != HISTO_OK)
        return status;
    s->hist_arg = a;
    CL_CALL(clSetKernelArg(k, a++, sizeof(cl_mem), &s->histo));
    CL_CALL(clSetKernelArg(k, a++, sizeof(cl_uint),
                           &s->plan.reduce_groups[0]));
    CL_CALL(clSetKernelArg(k, a++, sizeof s->plan.bucket_cap,
                           &s->plan.bucket_cap));
    CL_CALL(clSetKernelArg(k, a++, sizeof(cl_mem), &s->buckets));
    if (s->plan.narrow_possible) /* eye_reduce_narrow's lanes */
        CL_CALL(clSetKernelArg(k, a++,
                               HISTO_BUCKET_LOCAL_WORDS * sizeof(cl_uint),
                               NULL));
fail:
    return status;
}

/* eye_fused.cl waits for other groups in loops of no fixed length: a
 * device that ends loops early would let a group past the barrier before
 * the others have counted (wrong counters, silently). */
static int fused_refused(const struct strategy_env *env)
{
    if (env->loop_limit == 0)
        return HISTO_OK;
    histo_error("the fused strategy waits for other work-groups in loops "
                "of no fixed length, and '%s' ends a work-item's loops "
                "after %u iterations: use --strategy eye",
                env->device->name, env->loop_limit);
    return HISTO_EXIT_DEVICE;
}

/* Whether the tile kernel may be eye_tile_2d_narrow: a 2-D window of a
 * large enough input, where the build allows 8-bit counters. */
static bool narrow_possible(const struct eye_state *s,
                            const struct histo_input *in)
{
    return s->narrow_min != 0 && s->plan.two_d
        && in->nvalues >= s->narrow_min;
}

/* The tile kernel that will run, its reduction, and the plan made with
 * them. A tile of less than a row takes no 2-D window: then eye_tile runs
 * with eye_reduce, planned with their own figures. eye_tile_2d_narrow's
 * reduction is eye_reduce_narrow, which adds the records its 8-bit tiles
 * leave (eye_reduce.cl). */
static int tile_kernel(struct eye_state *s, const struct strategy_env *env)
{
    int status = HISTO_OK;
    for (;;) {
        s->plan.narrow_possible = narrow_possible(s, env->input);
        CL_CREATE(s->kernel[K_REDUCE], clCreateKernel(env->program,
                                                      eye_reduce_name(s),
                                                      &cl_err_));
        CL_CREATE(s->kernel[K_TILE], clCreateKernel(env->program,
                                                    eye_tile_name(s),
                                                    &cl_err_));
        if ((status = plan(s, env)) != HISTO_OK)
            return status;
        if (!s->plan.two_d || env->input->histo_width <= s->plan.tile_bins)
            break;
        for (size_t k = 0; k < K_COUNT; ++k) {
            clReleaseKernel(s->kernel[k]);
            s->kernel[k] = NULL;
        }
        s->plan.two_d = false;
    }
fail:
    return status;
}

/* Bins rounded up to whole quads: the reduction reads and writes four at
 * a time. */
static size_t quad_bins(const struct histo_input *in)
{
    return ((size_t)in->nbins + 3) & ~(size_t)3;
}

/* The buffers of the plan, and the caller's input buffer, held until
 * release. What was made before a failure stays in *s for the release. */
static int create_buffers(struct eye_state *s, const struct strategy_env *env)
{
    int status = HISTO_OK;
    const struct eye_plan *p = &s->plan;
    const size_t quads = quad_bins(env->input);
    CL_CALL(clRetainMemObject(env->values));
    s->values = env->values;
    CL_CREATE(s->eye, clCreateBuffer(env->context, CL_MEM_READ_WRITE,
                                     HISTO_EYE_WORDS * sizeof(cl_uint), NULL,
                                     &cl_err_));
    CL_CREATE(s->partial, clCreateBuffer(env->context, CL_MEM_READ_WRITE,
                                         p->partial_bytes, NULL, &cl_err_));
    CL_CREATE(s->outer, clCreateBuffer(env->context, CL_MEM_READ_WRITE,
                                       quads * sizeof(cl_uint), NULL,
                                       &cl_err_));
    CL_CREATE(s->histo, clCreateBuffer(env->context, CL_MEM_READ_WRITE,
                                       quads, NULL, &cl_err_));
    /* without buckets the kernels take a buffer they never touch */
    const size_t bucket_bytes = p->bucket_cap != 0
                              ? p->bucket_bytes
                              : HISTO_BUCKET_PAD * sizeof(cl_uint);
    CL_CREATE(s->buckets, clCreateBuffer(env->context, CL_MEM_READ_WRITE,
                                         bucket_bytes, NULL, &cl_err_));
    if (s->fused)
        CL_CREATE(s->control,
                  clCreateBuffer(env->context, CL_MEM_READ_WRITE,
                                 2 * HISTO_FUSED_CTL_WORDS * sizeof(cl_uint),
                                 NULL, &cl_err_));
fail:
    return status;
}

/* The fills the first iteration needs; the iterations leave the buffers
 * as they found them. */
static int fill_buffers(struct eye_state *s, const struct strategy_env *env)
{
    int status = HISTO_OK;
    const cl_uint zero = 0;
    /* The reduction leaves `outer` zeroed for the next iteration; only the
     * first needs this fill. */
    CL_CALL(clEnqueueFillBuffer(env->queue, s->outer, &zero, sizeof zero, 0,
                                quad_bins(env->input) * sizeof(cl_uint), 0,
                                NULL, NULL));
    CL_CALL(clEnqueueFillBuffer(env->queue, s->eye, &zero, sizeof zero, 0,
                                HISTO_EYE_WORDS * sizeof(cl_uint), 0, NULL,
                                NULL));
    /* the cursors, which the reduction zeroes after each iteration */
    if (s->plan.bucket_cap != 0)
        CL_CALL(clEnqueueFillBuffer(env->queue, s->buckets, &zero,
                                    sizeof zero, 0,
                                    (size_t)s->plan.nbuckets
                                        * sizeof(cl_uint),
                                    0, NULL, NULL));
    /* each launch zeroes the other block for the next (eye_fused.cl) */
    if (s->fused)
        CL_CALL(clEnqueueFillBuffer(env->queue, s->control, &zero,
                                    sizeof zero, 0,
                                    2 * HISTO_FUSED_CTL_WORDS
                                        * sizeof(cl_uint),
                                    0, NULL, NULL));
fail:
    return status;
}

/* The state, in phases: the kernels and the plan, the buffers, their
 * first fills, the kernels' arguments. */
static int setup(const struct strategy_env *env, bool replicated,
                 bool fused, void **opaque)
{
    int status = HISTO_OK;
    struct eye_state *s = NULL;
    if (fused && (status = fused_refused(env)) != HISTO_OK)
        return status;
    HOST_ALLOC(s, 1);
    s->input = env->input;
    s->env = *env;
    s->replicated = replicated;
    s->fused = fused;
    if ((status = input_may_use_2d(env->input, &s->plan.two_d)) != HISTO_OK
        || (status = narrow_min(!s->replicated && !s->fused, &s->narrow_min))
               != HISTO_OK)
        goto fail;
    if ((status = tile_kernel(s, env)) != HISTO_OK
        || (status = create_buffers(s, env)) != HISTO_OK
        || (status = fill_buffers(s, env)) != HISTO_OK
        || (status = set_tile_args(s)) != HISTO_OK
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
    narrow_defines(s->narrow_min, &defines);
    if (s->fused)
        fence_defines(s->env.device->fence, &defines);
    if ((status = program_build(s->env.context, s->env.device,
                                s->env.kernel_dir,
                                s->fused ? fused_sources : sources,
                                s->fused ? sizeof fused_sources
                                               / sizeof fused_sources[0]
                                         : sizeof sources / sizeof sources[0],
                                &defines, &program))
        != HISTO_OK)
        return status;
    if (s->rebuilt != NULL)
        clReleaseProgram(s->rebuilt);
    s->rebuilt = program;
    clReleaseKernel(s->kernel[K_TILE]);
    s->kernel[K_TILE] = NULL;
    CL_CREATE(s->kernel[K_TILE], clCreateKernel(program, eye_tile_name(s),
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
        if (err == CL_SUCCESS) {
            if (s->env.launches != NULL)
                ++*s->env.launches;
            return HISTO_OK;
        }
        size_t limit = 0;
        if ((status = strategy_device_group_limit(s->env.device, &limit))
            != HISTO_OK)
            return status;
        /* HISTO_TILE_GROUP_MAX at most: 16-bit tile counters hold 255
         * plus one increment per work-item */
        limit = min_size(min_size(limit, s->plan.group_limit[k]),
                         HISTO_TILE_GROUP_MAX);
        const char *name = k == K_TILE ? eye_tile_name(s) : kernel_names[k];
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
    CL_CALL(clSetKernelArg(s->kernel[K_TILE], s->launch_arg,
                           sizeof s->launch, &s->launch));
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

/* Output `out` (NULL: the strategy's own histogram) bound to argument
 * `arg` of kernel k, the kernel that writes every bin last. */
static int bind_output_to(struct eye_state *s, cl_mem out, int k,
                          cl_uint arg)
{
    int status = HISTO_OK;
    if (s->out == out)
        return HISTO_OK;
    const cl_mem hist = out != NULL ? out : s->histo;
    CL_CALL(clSetKernelArg(s->kernel[k], arg, sizeof hist, &hist));
    s->out = out;
fail:
    return status;
}

/* The reduction's output (two launches an iteration: eye_reduce writes
 * every bin, and is the last kernel). */
static int eye_bind_output(void *opaque, cl_mem out)
{
    struct eye_state *s = opaque;
    return bind_output_to(s, out, K_REDUCE, s->hist_arg);
}

/* The fused kernel's output: its reduction writes every bin, and it is
 * the iteration's one launch, so that with several shares it counts
 * into a share's sum itself, one launch a share and iteration. */
static int fused_bind_output(void *opaque, cl_mem out)
{
    struct eye_state *s = opaque;
    return bind_output_to(s, out, K_TILE, s->fused_hist_arg);
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

/* A strategy of the eye design from what sets it apart (its name,
 * knobs, sources, kernels, defines, fits, setup, enqueue and
 * bind_output); the rest is the same for all three. */
#define EYE_STRATEGY(name_, knobs_, sources_, kernels_, defines_, fits_,    \
                     setup_, enqueue_, bind_output_)                       \
    {                                                                      \
        .name = (name_), .knobs = (knobs_), .sources = (sources_),         \
        .nsources = sizeof(sources_) / sizeof(sources_)[0],                \
        .kernels = (kernels_),                                             \
        .nkernels = sizeof(kernels_) / sizeof(kernels_)[0],                \
        .defines = (defines_), .fits = (fits_), .setup = (setup_),         \
        .enqueue = (enqueue_), .download = eye_download,                   \
        .output = eye_output, .bind = eye_bind,                            \
        .bind_output = (bind_output_), .report = eye_report,               \
        .used = eye_used, .summary = eye_summary, .release = eye_release,  \
    }

#define EYE_KNOBS (KNOB_BIT(KNOB_BATCHES) | KNOB_BIT(KNOB_TILE_ROWS))

const struct strategy eye_strategy =
    EYE_STRATEGY("eye", EYE_KNOBS, sources, kernel_names, eye_defines,
                 eye_fits, eye_setup, eye_enqueue, eye_bind_output);

const struct strategy fused_strategy =
    EYE_STRATEGY("fused", EYE_KNOBS, fused_sources, fused_names,
                 fused_defines, fused_fits, fused_setup, fused_enqueue,
                 fused_bind_output);

const struct strategy replicated_strategy =
    EYE_STRATEGY("replicated", EYE_KNOBS | KNOB_BIT(KNOB_REPLICAS), sources,
                 kernel_names, replicated_defines, NULL, replicated_setup,
                 eye_enqueue, eye_bind_output);
