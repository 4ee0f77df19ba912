/*
 * cpu.c - host side of the cpu strategy: plan the slices and merge ranges
 * from the device's compute units, own the buffers, enqueue count -> merge.
 *
 * The 116.histo description lets architectures with an implicit cache skip
 * the eye analysis; on them local memory is just cached memory and local
 * atomics and barriers are expensive (PoCL's pthread device). So each
 * compute unit counts a slice of the input into its own byte histogram
 * with plain increments, and the merge adds up only the lines of those
 * histograms that were touched. One work-item per work-group throughout:
 * on PoCL a work-group runs on one core as a plain loop.
 *
 * Nothing is read back inside an iteration, and no state survives one: the
 * private histograms and their dirty flags are zero when an iteration
 * starts because the merge that consumed them cleared them (the buffers are
 * filled with zeros once, at setup).
 */
#include "cpu.h"

#include "params.h"

#include <stdlib.h>

static const char *const sources[] = {"cpu_count.cl", "cpu_merge.cl"};
static const char *const kernel_names[] = {"cpu_count", "cpu_merge"};
enum { K_COUNT, K_MERGE, K_NUM };

struct cpu_plan {
    cl_uint slices;          /* B: input slices, one private histogram each */
    cl_uint slice;           /* values per slice                           */
    cl_uint nlines;          /* lines of 2^HISTO_CPU_LINE_LOG2 bins         */
    cl_uint merge_groups;    /* work-groups of the merge                    */
    cl_uint lines_per_group; /* lines each merge work-group owns            */
    uint64_t partial_bytes;  /* B private histograms, each nlines lines     */
    uint64_t dirty_bytes;    /* B * nlines flags                            */
};

struct cpu_state {
    cl_kernel kernel[K_NUM];
    cl_mem values, partial, dirty, histo;
    struct cpu_plan plan;
    const struct histo_input *input;
};

static void cpu_release(void *opaque)
{
    struct cpu_state *s = opaque;
    if (s == NULL)
        return;
    for (int k = 0; k < K_NUM; ++k)
        if (s->kernel[k] != NULL)
            clReleaseKernel(s->kernel[k]);
    const cl_mem mems[] = {s->values, s->partial, s->dirty, s->histo};
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; ++i)
        if (mems[i] != NULL)
            clReleaseMemObject(mems[i]);
    free(s);
}

/* B one slice per compute unit (--batches overrides), never more slices
 * than values and, unless asked for, never more private histograms than
 * one allocation holds; the merge split into HISTO_CPU_MERGE_SPLIT ranges
 * per compute unit. */
static int plan(struct cpu_plan *p, const struct strategy_env *env)
{
    int status = HISTO_OK;
    const struct device_info *dev = env->device;
    const struct histo_input *in = env->input;
    const uint64_t line = UINT64_C(1) << HISTO_CPU_LINE_LOG2;
    const uint64_t nlines = (in->nbins + line - 1) / line;
    const uint64_t histo_bytes = nlines * line;
    const uint64_t units = dev->compute_units > 0 ? dev->compute_units : 1;

    uint64_t slices = env->batches;
    if (slices == 0) {
        slices = units;
        if (slices > in->nvalues)
            slices = in->nvalues;
        if (slices * histo_bytes > dev->max_alloc)
            slices = dev->max_alloc / histo_bytes;
        if (slices == 0)
            slices = 1; /* too big even for one: reported below */
    }
    p->slices = (cl_uint)slices;
    p->slice = (cl_uint)((in->nvalues + slices - 1) / slices);
    p->nlines = (cl_uint)nlines;

    uint64_t groups = units * HISTO_CPU_MERGE_SPLIT;
    if (groups > nlines)
        groups = nlines;
    p->merge_groups = (cl_uint)groups;
    p->lines_per_group = (cl_uint)((nlines + groups - 1) / groups);
    p->partial_bytes = slices * histo_bytes;
    p->dirty_bytes = slices * nlines;

    if ((status = device_check_alloc(dev, "input",
                                     (uint64_t)in->nvalues * 4)) == 0
        && (status = device_check_alloc(dev, "private histograms",
                                        p->partial_bytes)) == 0)
        status = device_check_alloc(dev, "dirty-line flags", p->dirty_bytes);
    return status;
}

static int cpu_setup(const struct strategy_env *env, void **opaque)
{
    int status = HISTO_OK;
    struct cpu_state *s = NULL;
    const struct histo_input *in = env->input;
    HOST_ALLOC(s, 1);
    s->input = in;
    if ((status = plan(&s->plan, env)) != HISTO_OK)
        goto fail;
    const struct cpu_plan *p = &s->plan;
    for (int k = 0; k < K_NUM; ++k)
        CL_CREATE(s->kernel[k], clCreateKernel(env->program, kernel_names[k],
                                               &cl_err_));

    const cl_uint n = (cl_uint)in->nvalues;
    const cl_uint nbins = in->nbins;
    CL_CREATE(s->values, clCreateBuffer(env->context, CL_MEM_READ_ONLY,
                                        in->nvalues * sizeof(cl_uint), NULL,
                                        &cl_err_));
    CL_CREATE(s->partial, clCreateBuffer(env->context, CL_MEM_READ_WRITE,
                                         (size_t)p->partial_bytes, NULL,
                                         &cl_err_));
    CL_CREATE(s->dirty, clCreateBuffer(env->context, CL_MEM_READ_WRITE,
                                       (size_t)p->dirty_bytes, NULL,
                                       &cl_err_));
    CL_CREATE(s->histo, clCreateBuffer(env->context, CL_MEM_WRITE_ONLY,
                                       nbins, NULL, &cl_err_));

    /* The merge leaves both zeroed for the next iteration; only the first
     * needs these fills. */
    const cl_uchar zero = 0;
    CL_CALL(clEnqueueFillBuffer(env->queue, s->partial, &zero, sizeof zero, 0,
                                (size_t)p->partial_bytes, 0, NULL, NULL));
    CL_CALL(clEnqueueFillBuffer(env->queue, s->dirty, &zero, sizeof zero, 0,
                                (size_t)p->dirty_bytes, 0, NULL, NULL));

    cl_kernel k = s->kernel[K_COUNT];
    CL_CALL(clSetKernelArg(k, 0, sizeof(cl_mem), &s->values));
    CL_CALL(clSetKernelArg(k, 1, sizeof n, &n));
    CL_CALL(clSetKernelArg(k, 2, sizeof p->slice, &p->slice));
    CL_CALL(clSetKernelArg(k, 3, sizeof p->nlines, &p->nlines));
    CL_CALL(clSetKernelArg(k, 4, sizeof(cl_mem), &s->partial));
    CL_CALL(clSetKernelArg(k, 5, sizeof(cl_mem), &s->dirty));

    k = s->kernel[K_MERGE];
    CL_CALL(clSetKernelArg(k, 0, sizeof(cl_mem), &s->partial));
    CL_CALL(clSetKernelArg(k, 1, sizeof(cl_mem), &s->dirty));
    CL_CALL(clSetKernelArg(k, 2, sizeof nbins, &nbins));
    CL_CALL(clSetKernelArg(k, 3, sizeof p->nlines, &p->nlines));
    CL_CALL(clSetKernelArg(k, 4, sizeof p->slices, &p->slices));
    CL_CALL(clSetKernelArg(k, 5, sizeof p->lines_per_group,
                           &p->lines_per_group));
    CL_CALL(clSetKernelArg(k, 6, sizeof(cl_mem), &s->histo));

    *opaque = s;
    return HISTO_OK;
fail:
    cpu_release(s);
    return status;
}

static int cpu_upload(void *opaque, cl_command_queue queue,
                      const struct histo_input *in)
{
    int status = HISTO_OK;
    struct cpu_state *s = opaque;
    CL_CALL(clEnqueueWriteBuffer(queue, s->values, CL_TRUE, 0,
                                 in->nvalues * sizeof(cl_uint), in->values, 0,
                                 NULL, NULL));
    CL_CALL(clFinish(queue)); /* the first fills too */
fail:
    return status;
}

static int cpu_enqueue(void *opaque, cl_command_queue queue, cl_event *ev)
{
    int status = HISTO_OK;
    struct cpu_state *s = opaque;
    const size_t one = 1;
    const size_t count_global = s->plan.slices;
    const size_t merge_global = s->plan.merge_groups;
    CL_CALL(clEnqueueNDRangeKernel(queue, s->kernel[K_COUNT], 1, NULL,
                                   &count_global, &one, 0, NULL,
                                   &ev[K_COUNT]));
    CL_CALL(clEnqueueNDRangeKernel(queue, s->kernel[K_MERGE], 1, NULL,
                                   &merge_global, &one, 0, NULL,
                                   &ev[K_MERGE]));
fail:
    return status;
}

static int cpu_download(void *opaque, cl_command_queue queue, uint8_t *histo)
{
    int status = HISTO_OK;
    struct cpu_state *s = opaque;
    CL_CALL(clEnqueueReadBuffer(queue, s->histo, CL_TRUE, 0,
                                s->input->nbins, histo, 0, NULL, NULL));
fail:
    return status;
}

static void cpu_report(const void *opaque, FILE *f)
{
    const struct cpu_state *s = opaque;
    const struct cpu_plan *p = &s->plan;
    fprintf(f, "config.batches = %u\n", p->slices);
    fprintf(f, "config.values_per_batch = %u\n", p->slice);
    fprintf(f, "config.counter_bits = 8\n");
    fprintf(f, "config.line_bins = %u\n", 1u << HISTO_CPU_LINE_LOG2);
    fprintf(f, "config.lines = %u\n", p->nlines);
    fprintf(f, "config.merge_groups = %u\n", p->merge_groups);
    fprintf(f, "config.lines_per_merge_group = %u\n", p->lines_per_group);
    fprintf(f, "config.work_group.cpu_count = 1\n");
    fprintf(f, "config.work_group.cpu_merge = 1\n");
    fprintf(f, "config.partial_bytes = %llu\n",
            (unsigned long long)p->partial_bytes);
    fprintf(f, "config.dirty_bytes = %llu\n",
            (unsigned long long)p->dirty_bytes);
}

static void cpu_summary(const void *opaque, FILE *f)
{
    const struct cpu_state *s = opaque;
    fprintf(f, "B=%u private 8-bit histograms, merged in %u ranges of %u "
               "lines of %u bins", s->plan.slices, s->plan.merge_groups,
            s->plan.lines_per_group, 1u << HISTO_CPU_LINE_LOG2);
}

const struct strategy cpu_strategy = {
    .name = "cpu",
    .sources = sources,
    .nsources = sizeof sources / sizeof sources[0],
    .kernels = kernel_names,
    .nkernels = K_NUM,
    .setup = cpu_setup,
    .upload = cpu_upload,
    .enqueue = cpu_enqueue,
    .download = cpu_download,
    .report = cpu_report,
    .summary = cpu_summary,
    .release = cpu_release,
};
