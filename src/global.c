/*
 * global.c - host side of the global strategy: one atomic increment of a
 * 32-bit global counter per value, then saturate to 8 bits and clear
 * (kernels/global_*.cl).
 *
 * The textbook OpenCL histogram ("atomic reduction"): the baseline the
 * other strategies are measured against, and on a GPU close to the
 * device's global-atomic throughput (bench/atomic_probe.c). No knob
 * changes it: --batches and --tile-rows are ignored.
 *
 * No state survives an iteration: the counters are zero when one starts
 * because the saturating pass of the one before cleared them (they are
 * filled with zeros once, at setup).
 */
#include "global.h"

#include "params.h"

static const char *const sources[] = {"global_count.cl",
                                      "global_saturate.cl"};
static const char *const kernel_names[] = {"global_count",
                                           "global_saturate"};
enum { K_COUNT, K_SATURATE, K_NUM };

struct global_plan {
    size_t group[K_NUM];        /* work-items per group               */
    size_t group_limit[K_NUM];  /* what each kernel reports            */
    size_t groups[K_NUM];       /* groups launched                     */
};

/* b first, so that the strategy_buffers_ functions take the state as
 * theirs (strategy.h); b.scratch holds the 32-bit counters. */
struct global_state {
    struct strategy_buffers b;
    struct global_plan plan;
};

/* Every device and input: each of its loops is one the planner spreads
 * over more work-items within a loop limit (strategy_stride_groups). */
static bool global_fits(const struct strategy_share *sh)
{
    (void)sh;
    return true;
}

static int global_setup(const struct strategy_env *env, void **opaque)
{
    int status = HISTO_OK;
    struct global_state *s = NULL;
    const struct histo_input *in = env->input;
    const struct device_info *dev = env->device;
    HOST_ALLOC(s, 1);
    struct global_plan *p = &s->plan;
    /* The output first: a histogram of up to 2^32 - 1 bins passes the
     * input check but not every device's allocation limit. */
    const uint64_t count_bytes = (uint64_t)in->nbins * sizeof(cl_uint);
    if ((status = device_check_alloc(dev, "histogram", in->nbins))
            != HISTO_OK
        || (status = device_check_alloc(dev, "32-bit counters", count_bytes))
            != HISTO_OK
        || (status = strategy_buffers_create(&s->b, env, kernel_names, K_NUM,
                                             (size_t)count_bytes))
            != HISTO_OK)
        goto fail;
    /* what each kernel strides over: the values, the counters, in quads */
    const uint64_t quads[K_NUM] = {in->nvalues / 4 + 1, in->nbins / 4 + 1};
    for (int k = 0; k < K_NUM; ++k) {
        if ((status = strategy_group_size(dev, s->b.kernel[k],
                                          HISTO_WORK_GROUP, &p->group[k],
                                          &p->group_limit[k])) != HISTO_OK)
            goto fail;
        p->groups[k] = (size_t)strategy_stride_groups(
            env->device, HISTO_GLOBAL_GROUPS_PER_CU, quads[k], p->group[k],
            env->loop_limit);
        s->b.global[k] = p->groups[k] * p->group[k];
        s->b.local[k] = p->group[k];
    }

    /* A chunk holds at most WORK_MAX_CHUNK_VALUES = 2^31 values: fits
     * in cl_uint. */
    const cl_uint n = (cl_uint)in->nvalues;
    const cl_uint nbins = in->nbins;
    cl_kernel k = s->b.kernel[K_COUNT];
    CL_CALL(clSetKernelArg(k, 0, sizeof(cl_mem), &s->b.values));
    CL_CALL(clSetKernelArg(k, 1, sizeof n, &n));
    CL_CALL(clSetKernelArg(k, 2, sizeof(cl_mem), &s->b.scratch));
    k = s->b.kernel[K_SATURATE];
    CL_CALL(clSetKernelArg(k, 0, sizeof(cl_mem), &s->b.scratch));
    CL_CALL(clSetKernelArg(k, 1, sizeof nbins, &nbins));
    CL_CALL(clSetKernelArg(k, 2, sizeof(cl_mem), &s->b.histo));
    *opaque = s;
    return HISTO_OK;
fail:
    strategy_buffers_release(s);
    return status;
}

static void global_report(const void *opaque, FILE *f)
{
    const struct global_state *s = opaque;
    const struct global_plan *p = &s->plan;
    fprintf(f, "config.counter_bits = 32\n");
    for (int k = 0; k < K_NUM; ++k) {
        fprintf(f, "config.work_group.%s = %zu\n", kernel_names[k],
                p->group[k]);
        fprintf(f, "config.work_group_limit.%s = %zu\n", kernel_names[k],
                p->group_limit[k]);
        fprintf(f, "config.groups.%s = %zu\n", kernel_names[k],
                p->groups[k]);
    }
}

static void global_summary(const void *opaque, FILE *f)
{
    const struct global_state *s = opaque;
    const struct global_plan *p = &s->plan;
    fprintf(f, "%zu groups of %zu count with global atomics into 32-bit "
               "counters, %zu groups saturate and clear them",
            p->groups[K_COUNT], p->group[K_COUNT], p->groups[K_SATURATE]);
}

const struct strategy global_strategy = {
    .name = "global",
    .sources = sources,
    .nsources = sizeof sources / sizeof sources[0],
    .kernels = kernel_names,
    .nkernels = K_NUM,
    .fits = global_fits,
    .setup = global_setup,
    STRATEGY_BUFFERS_METHODS,
    .report = global_report,
    .summary = global_summary,
};
