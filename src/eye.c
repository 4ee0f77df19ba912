/*
 * eye.c - host side of the eye strategy: plan the grid from the device's
 * properties, own the buffers, enqueue sample -> tile -> reduce.
 *
 * Nothing is read back inside an iteration: the eye window lives in a small
 * device buffer that the tile and reduce kernels read, and the out-of-eye
 * histogram is cleared by the reduction that consumes it.
 */
#include "eye.h"

#include "params.h"

#include <stdlib.h>
#include <string.h>

static const char *const sources[] = {
    "eye_sample.cl", "eye_tile.cl", "eye_reduce.cl",
};
static const char *const kernel_names[] = {
    "eye_sample", "eye_tile", "eye_reduce",
};
enum { K_SAMPLE, K_TILE, K_REDUCE, K_COUNT };

struct eye_plan {
    cl_uint batches;         /* B: input slices                        */
    cl_uint slice;           /* values per batch                       */
    cl_uint tile_rows;       /* w: histogram rows per tile (0: < 1 row) */
    cl_uint tile_bins;       /* bins per tile                          */
    cl_uint tiles_launched;  /* T: work-groups per batch               */
    size_t group[K_COUNT];   /* work-group size of each kernel         */
    size_t local_bytes;      /* dynamic local memory of a tile group   */
    size_t partial_bytes;
};

struct eye_state {
    cl_kernel kernel[K_COUNT];
    cl_mem values, eye, partial, outer, histo;
    struct eye_plan plan;
    const struct histo_input *input;
    const struct device_info *device;
    cl_uint eye_words[HISTO_EYE_WORDS]; /* read back with the histogram */
};

static void eye_release(void *opaque)
{
    struct eye_state *s = opaque;
    if (s == NULL)
        return;
    for (int k = 0; k < K_COUNT; ++k)
        if (s->kernel[k] != NULL)
            clReleaseKernel(s->kernel[k]);
    const cl_mem mems[] = {s->values, s->eye, s->partial, s->outer, s->histo};
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; ++i)
        if (mems[i] != NULL)
            clReleaseMemObject(mems[i]);
    free(s);
}

/* Largest work-group the device and this kernel accept, up to the target. */
static int group_size(cl_kernel kernel, const struct device_info *dev,
                      size_t *size)
{
    int status = HISTO_OK;
    size_t kmax = 0;
    CL_CALL(clGetKernelWorkGroupInfo(kernel, dev->id,
                                     CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax,
                                     &kmax, NULL));
    *size = HISTO_WORK_GROUP;
    if (*size > dev->max_work_group)
        *size = dev->max_work_group;
    if (*size > kmax)
        *size = kmax;
fail:
    return status;
}

/* B, w and T from the device: w as many rows as local memory holds, T
 * enough tiles to cover the histogram up to HISTO_MAX_TILES, B one batch
 * per compute unit (so a narrow eye still fills the device) but never
 * batches smaller than one work-group's worth of values. */
static int plan(struct eye_state *s, const struct strategy_env *env)
{
    int status = HISTO_OK;
    const struct device_info *dev = env->device;
    const struct histo_input *in = env->input;
    struct eye_plan *p = &s->plan;

    for (int k = 0; k < K_COUNT; ++k)
        if ((status = group_size(s->kernel[k], dev, &p->group[k])) != 0)
            return status;

    cl_ulong static_local = 0;
    CL_CALL(clGetKernelWorkGroupInfo(s->kernel[K_TILE], dev->id,
                                     CL_KERNEL_LOCAL_MEM_SIZE,
                                     sizeof static_local, &static_local,
                                     NULL));
    const cl_ulong reserved = HISTO_LOCAL_HEADROOM + static_local;
    const cl_ulong avail = dev->local_mem > reserved
                         ? dev->local_mem - reserved : 0;
    uint64_t tile_bins = avail / sizeof(cl_uint);
    if (tile_bins < 64) {
        histo_error("device '%s' has %llu bytes of local memory, too few for "
                    "a tile of counters", dev->name,
                    (unsigned long long)dev->local_mem);
        return HISTO_EXIT_DEVICE;
    }
    if (tile_bins >= in->histo_width) {
        uint64_t rows = tile_bins / in->histo_width;
        if (rows > in->histo_height)
            rows = in->histo_height;
        p->tile_rows = (cl_uint)rows;
        tile_bins = rows * in->histo_width;
    } else {
        p->tile_rows = 0; /* rows wider than a tile: tiles cut rows */
    }
    p->tile_bins = (cl_uint)tile_bins;
    p->local_bytes = (size_t)tile_bins * sizeof(cl_uint);

    uint64_t tiles = ((uint64_t)in->nbins + tile_bins - 1) / tile_bins;
    p->tiles_launched = (cl_uint)(tiles < HISTO_MAX_TILES ? tiles
                                                          : HISTO_MAX_TILES);

    uint64_t batches = env->batches;
    if (batches == 0) {
        const uint64_t most = (in->nvalues + p->group[K_TILE] - 1)
                            / p->group[K_TILE];
        batches = dev->compute_units > 0 ? dev->compute_units : 1;
        if (batches > most)
            batches = most;
    }
    p->batches = (cl_uint)batches;
    p->slice = (cl_uint)((in->nvalues + batches - 1) / batches);
    p->partial_bytes = (size_t)batches * p->tiles_launched * tile_bins;

    if ((status = device_check_alloc(dev, "input",
                                     (uint64_t)in->nvalues * 4)) != 0
        || (status = device_check_alloc(dev, "partial tiles",
                                        p->partial_bytes)) != 0
        || (status = device_check_alloc(dev, "out-of-eye histogram",
                                        (uint64_t)in->nbins * 4)) != 0)
        return status;
fail:
    return status;
}

static int eye_setup(const struct strategy_env *env, void **opaque)
{
    int status = HISTO_OK;
    struct eye_state *s = NULL;
    const struct histo_input *in = env->input;
    HOST_ALLOC(s, 1);
    s->input = in;
    s->device = env->device;
    for (int k = 0; k < K_COUNT; ++k)
        CL_CREATE(s->kernel[k], clCreateKernel(env->program, kernel_names[k],
                                               &cl_err_));
    if ((status = plan(s, env)) != HISTO_OK)
        goto fail;

    const struct eye_plan *p = &s->plan;
    const cl_uint n = (cl_uint)in->nvalues;
    const cl_uint nbins = in->nbins;
    const cl_uint max_tiles = p->tiles_launched;
    const cl_uint hw = in->histo_width;
    CL_CREATE(s->values, clCreateBuffer(env->context, CL_MEM_READ_ONLY,
                                        in->nvalues * sizeof(cl_uint), NULL,
                                        &cl_err_));
    CL_CREATE(s->eye, clCreateBuffer(env->context, CL_MEM_READ_WRITE,
                                     HISTO_EYE_WORDS * sizeof(cl_uint), NULL,
                                     &cl_err_));
    CL_CREATE(s->partial, clCreateBuffer(env->context, CL_MEM_READ_WRITE,
                                         p->partial_bytes, NULL, &cl_err_));
    CL_CREATE(s->outer, clCreateBuffer(env->context, CL_MEM_READ_WRITE,
                                       (size_t)nbins * sizeof(cl_uint), NULL,
                                       &cl_err_));
    CL_CREATE(s->histo, clCreateBuffer(env->context, CL_MEM_WRITE_ONLY,
                                       nbins, NULL, &cl_err_));

    /* The reduction leaves `outer` zeroed for the next iteration; only the
     * first needs this fill. */
    const cl_uint zero = 0;
    CL_CALL(clEnqueueFillBuffer(env->queue, s->outer, &zero, sizeof zero, 0,
                                (size_t)nbins * sizeof(cl_uint), 0, NULL,
                                NULL));

    cl_kernel k = s->kernel[K_SAMPLE];
    CL_CALL(clSetKernelArg(k, 0, sizeof(cl_mem), &s->values));
    CL_CALL(clSetKernelArg(k, 1, sizeof n, &n));
    CL_CALL(clSetKernelArg(k, 2, sizeof hw, &hw));
    CL_CALL(clSetKernelArg(k, 3, sizeof nbins, &nbins));
    CL_CALL(clSetKernelArg(k, 4, sizeof p->tile_bins, &p->tile_bins));
    CL_CALL(clSetKernelArg(k, 5, sizeof max_tiles, &max_tiles));
    CL_CALL(clSetKernelArg(k, 6, p->group[K_SAMPLE] * sizeof(cl_ulong), NULL));
    CL_CALL(clSetKernelArg(k, 7, sizeof(cl_mem), &s->eye));

    k = s->kernel[K_TILE];
    CL_CALL(clSetKernelArg(k, 0, sizeof(cl_mem), &s->values));
    CL_CALL(clSetKernelArg(k, 1, sizeof n, &n));
    CL_CALL(clSetKernelArg(k, 2, sizeof p->slice, &p->slice));
    CL_CALL(clSetKernelArg(k, 3, sizeof(cl_mem), &s->eye));
    CL_CALL(clSetKernelArg(k, 4, sizeof p->tile_bins, &p->tile_bins));
    CL_CALL(clSetKernelArg(k, 5, sizeof max_tiles, &max_tiles));
    CL_CALL(clSetKernelArg(k, 6, p->local_bytes, NULL));
    CL_CALL(clSetKernelArg(k, 7, sizeof(cl_mem), &s->partial));
    CL_CALL(clSetKernelArg(k, 8, sizeof(cl_mem), &s->outer));

    k = s->kernel[K_REDUCE];
    CL_CALL(clSetKernelArg(k, 0, sizeof(cl_mem), &s->outer));
    CL_CALL(clSetKernelArg(k, 1, sizeof(cl_mem), &s->partial));
    CL_CALL(clSetKernelArg(k, 2, sizeof(cl_mem), &s->eye));
    CL_CALL(clSetKernelArg(k, 3, sizeof nbins, &nbins));
    CL_CALL(clSetKernelArg(k, 4, sizeof p->batches, &p->batches));
    CL_CALL(clSetKernelArg(k, 5, sizeof max_tiles, &max_tiles));
    CL_CALL(clSetKernelArg(k, 6, sizeof p->tile_bins, &p->tile_bins));
    CL_CALL(clSetKernelArg(k, 7, sizeof(cl_mem), &s->histo));

    *opaque = s;
    return HISTO_OK;
fail:
    eye_release(s);
    return status;
}

static int eye_upload(void *opaque, cl_command_queue queue,
                      const struct histo_input *in)
{
    int status = HISTO_OK;
    struct eye_state *s = opaque;
    CL_CALL(clEnqueueWriteBuffer(queue, s->values, CL_TRUE, 0,
                                 in->nvalues * sizeof(cl_uint), in->values, 0,
                                 NULL, NULL));
    CL_CALL(clFinish(queue)); /* the first fill of `outer` too */
fail:
    return status;
}

static int eye_enqueue(void *opaque, cl_command_queue queue, cl_event *ev)
{
    int status = HISTO_OK;
    struct eye_state *s = opaque;
    const struct eye_plan *p = &s->plan;
    const size_t one = p->group[K_SAMPLE];
    const size_t tile_groups = (size_t)p->batches * p->tiles_launched;
    const size_t tile_global = tile_groups * p->group[K_TILE];
    const size_t rg = p->group[K_REDUCE];
    const size_t reduce_global = ((size_t)s->input->nbins + rg - 1) / rg * rg;

    CL_CALL(clEnqueueNDRangeKernel(queue, s->kernel[K_SAMPLE], 1, NULL, &one,
                                   &one, 0, NULL, &ev[K_SAMPLE]));
    CL_CALL(clEnqueueNDRangeKernel(queue, s->kernel[K_TILE], 1, NULL,
                                   &tile_global, &p->group[K_TILE], 0, NULL,
                                   &ev[K_TILE]));
    CL_CALL(clEnqueueNDRangeKernel(queue, s->kernel[K_REDUCE], 1, NULL,
                                   &reduce_global, &rg, 0, NULL,
                                   &ev[K_REDUCE]));
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
    CL_CALL(clEnqueueReadBuffer(queue, s->histo, CL_TRUE, 0,
                                s->input->nbins, histo, 0, NULL, NULL));
fail:
    return status;
}

/* First and last histogram row of the eye window, from the read-back. */
static void eye_rows(const struct eye_state *s, cl_uint *first, cl_uint *last)
{
    const cl_uint hw = s->input->histo_width;
    *first = s->eye_words[HISTO_EYE_LO] / hw;
    *last = (s->eye_words[HISTO_EYE_HI] - 1) / hw;
}

static void eye_report(const void *opaque, FILE *f)
{
    const struct eye_state *s = opaque;
    const struct eye_plan *p = &s->plan;
    cl_uint first, last;
    eye_rows(s, &first, &last);
    fprintf(f, "config.batches = %u\n", p->batches);
    fprintf(f, "config.values_per_batch = %u\n", p->slice);
    fprintf(f, "config.tile_rows = %u\n", p->tile_rows);
    fprintf(f, "config.tile_bins = %u\n", p->tile_bins);
    fprintf(f, "config.tile_local_bytes = %zu\n", p->local_bytes);
    fprintf(f, "config.tiles_per_batch = %u\n", p->tiles_launched);
    fprintf(f, "config.work_group.eye_sample = %zu\n", p->group[K_SAMPLE]);
    fprintf(f, "config.work_group.eye_tile = %zu\n", p->group[K_TILE]);
    fprintf(f, "config.work_group.eye_reduce = %zu\n", p->group[K_REDUCE]);
    fprintf(f, "config.global_size.eye_tile = %zu\n",
            (size_t)p->batches * p->tiles_launched * p->group[K_TILE]);
    fprintf(f, "config.partial_bytes = %zu\n", p->partial_bytes);
    fprintf(f, "eye.sampled_row_mean = %u\n", s->eye_words[HISTO_EYE_ROW_MEAN]);
    fprintf(f, "eye.sampled_row_sigma = %u\n",
            s->eye_words[HISTO_EYE_ROW_SIGMA]);
    fprintf(f, "eye.first_bin = %u\n", s->eye_words[HISTO_EYE_LO]);
    fprintf(f, "eye.end_bin = %u\n", s->eye_words[HISTO_EYE_HI]);
    fprintf(f, "eye.first_row = %u\n", first);
    fprintf(f, "eye.last_row = %u\n", last);
    fprintf(f, "eye.tiles_used = %u\n", s->eye_words[HISTO_EYE_TILES]);
}

static void eye_summary(const void *opaque, FILE *f)
{
    const struct eye_state *s = opaque;
    cl_uint first, last;
    eye_rows(s, &first, &last);
    fprintf(f, "B=%u batches, w=%u rows/tile, eye rows %u-%u in %u of %u "
               "tiles", s->plan.batches, s->plan.tile_rows, first, last,
            s->eye_words[HISTO_EYE_TILES], s->plan.tiles_launched);
}

const struct strategy eye_strategy = {
    .name = "eye",
    .sources = sources,
    .nsources = sizeof sources / sizeof sources[0],
    .kernels = kernel_names,
    .nkernels = K_COUNT,
    .setup = eye_setup,
    .upload = eye_upload,
    .enqueue = eye_enqueue,
    .download = eye_download,
    .report = eye_report,
    .summary = eye_summary,
    .release = eye_release,
};
