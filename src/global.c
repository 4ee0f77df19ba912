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

#include <stdlib.h>

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

struct global_state {
    cl_kernel kernel[K_NUM];
    cl_mem values, counts, histo;
    struct global_plan plan;
    const struct histo_input *input;
};

static void global_release(void *opaque)
{
    struct global_state *s = opaque;
    if (s == NULL)
        return;
    const cl_mem mems[] = {s->values, s->counts, s->histo};
    strategy_release_objects(s->kernel, K_NUM, mems,
                             sizeof mems / sizeof mems[0]);
    free(s);
}

/* Groups of a kernel that strides over `items` things in groups of
 * `group`: HISTO_GLOBAL_GROUPS_PER_CU per compute unit, no more than the
 * things need, at least one. */
static size_t groups_for(const struct strategy_env *env, uint64_t items,
                         size_t group)
{
    const uint64_t units = device_units(env->device);
    uint64_t groups = units * HISTO_GLOBAL_GROUPS_PER_CU;
    const uint64_t needed = (items + group - 1) / group;
    if (groups > needed)
        groups = needed;
    groups = strategy_loop_groups(groups, items, group, env->loop_limit);
    return groups > 0 ? (size_t)groups : 1;
}

/* Every device and input: each of its loops is one the planner spreads
 * over more work-items within a loop limit (groups_for). */
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
    s->input = in;
    struct global_plan *p = &s->plan;
    /* The output first: a histogram of up to 2^32 - 1 bins passes the
     * input check but not every device's allocation limit. */
    const uint64_t count_bytes = (uint64_t)in->nbins * sizeof(cl_uint);
    if ((status = device_check_alloc(dev, "histogram", in->nbins))
            != HISTO_OK
        || (status = device_check_alloc(dev, "32-bit counters", count_bytes))
            != HISTO_OK)
        goto fail;
    for (int k = 0; k < K_NUM; ++k) {
        CL_CREATE(s->kernel[k], clCreateKernel(env->program, kernel_names[k],
                                               &cl_err_));
        if ((status = strategy_group_size(dev, s->kernel[k],
                                          HISTO_WORK_GROUP, &p->group[k],
                                          &p->group_limit[k])) != HISTO_OK)
            goto fail;
    }
    p->groups[K_COUNT] = groups_for(env, in->nvalues / 4 + 1,
                                    p->group[K_COUNT]);
    p->groups[K_SATURATE] = groups_for(env, in->nbins / 4 + 1,
                                       p->group[K_SATURATE]);

    /* A chunk holds at most WORK_MAX_CHUNK_VALUES = 2^31 values: fits
     * in cl_uint. */
    const cl_uint n = (cl_uint)in->nvalues;
    const cl_uint nbins = in->nbins;
    CL_CALL(clRetainMemObject(env->values));
    s->values = env->values;
    CL_CREATE(s->counts, clCreateBuffer(env->context, CL_MEM_READ_WRITE,
                                        (size_t)count_bytes, NULL,
                                        &cl_err_));
    CL_CREATE(s->histo, clCreateBuffer(env->context, CL_MEM_READ_WRITE,
                                       nbins, NULL, &cl_err_));
    /* The saturating pass leaves the counters zero for the next
     * iteration; only the first needs this fill. */
    const cl_uint zero = 0;
    CL_CALL(clEnqueueFillBuffer(env->queue, s->counts, &zero, sizeof zero, 0,
                                (size_t)count_bytes, 0, NULL, NULL));

    cl_kernel k = s->kernel[K_COUNT];
    CL_CALL(clSetKernelArg(k, 0, sizeof(cl_mem), &s->values));
    CL_CALL(clSetKernelArg(k, 1, sizeof n, &n));
    CL_CALL(clSetKernelArg(k, 2, sizeof(cl_mem), &s->counts));
    k = s->kernel[K_SATURATE];
    CL_CALL(clSetKernelArg(k, 0, sizeof(cl_mem), &s->counts));
    CL_CALL(clSetKernelArg(k, 1, sizeof nbins, &nbins));
    CL_CALL(clSetKernelArg(k, 2, sizeof(cl_mem), &s->histo));
    *opaque = s;
    return HISTO_OK;
fail:
    global_release(s);
    return status;
}

static int global_enqueue(void *opaque, cl_command_queue queue, cl_event *ev)
{
    int status = HISTO_OK;
    struct global_state *s = opaque;
    const struct global_plan *p = &s->plan;
    for (int k = 0; k < K_NUM; ++k) {
        const size_t global = p->groups[k] * p->group[k];
        CL_CALL(clEnqueueNDRangeKernel(queue, s->kernel[k], 1, NULL, &global,
                                       &p->group[k], 0, NULL, &ev[k]));
    }
fail:
    return status;
}

/* Counts another chunk of the same length from now on. */
static int global_bind(void *opaque, cl_mem values)
{
    struct global_state *s = opaque;
    return strategy_bind_values(&s->values, s->kernel[K_COUNT], values);
}

/* The buffer an iteration leaves the histogram in. */
static cl_mem global_output(const void *opaque)
{
    const struct global_state *s = opaque;
    return s->histo;
}

static int global_download(void *opaque, cl_command_queue queue,
                           uint8_t *histo)
{
    int status = HISTO_OK;
    struct global_state *s = opaque;
    CL_CALL(clEnqueueReadBuffer(queue, s->histo, CL_TRUE, 0,
                                s->input->nbins, histo, 0, NULL, NULL));
fail:
    return status;
}

/* No knob: the groups follow from the device and the loop limit. */
static void global_used(const void *opaque, struct knob_used *u)
{
    (void)opaque;
    for (size_t i = 0; i < KNOB_COUNT; ++i)
        u->v[i] = -1;
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
    .enqueue = global_enqueue,
    .download = global_download,
    .output = global_output,
    .bind = global_bind,
    .report = global_report,
    .used = global_used,
    .summary = global_summary,
    .release = global_release,
};
