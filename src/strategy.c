/* strategy.c - what the strategies share: setting up, binding the
 * values, releasing, the buffers and launches of cpu and global,
 * work-group sizes and loop limits (see strategy.h). It knows no
 * strategy by name: the table is strategies.c's. */
#include "strategy.h"

#include <stdlib.h>

int strategy_setup(const struct strategy *strategy,
                   const struct strategy_env *env, void **state)
{
    int status = HISTO_OK;
    *state = NULL;
    if ((status = strategy->setup(env, state)) != HISTO_OK) {
        *state = NULL;
        return status;
    }
    CL_CALL(clFinish(env->queue));
    return HISTO_OK;
fail:
    strategy->release(*state);
    *state = NULL;
    return status;
}

int strategy_bind_values(cl_mem *held, cl_kernel kernel, cl_mem values)
{
    int status = HISTO_OK;
    if (*held == values)
        return HISTO_OK;
    CL_CALL(clSetKernelArg(kernel, 0, sizeof values, &values));
    CL_CALL(clRetainMemObject(values));
    clReleaseMemObject(*held);
    *held = values;
fail:
    return status;
}

void strategy_release_objects(const cl_kernel *kernels, size_t nkernels,
                              const cl_mem *mems, size_t nmems)
{
    for (size_t k = 0; k < nkernels; ++k)
        if (kernels[k] != NULL)
            clReleaseKernel(kernels[k]);
    for (size_t i = 0; i < nmems; ++i)
        if (mems[i] != NULL)
            clReleaseMemObject(mems[i]);
}

int strategy_buffers_create(struct strategy_buffers *b,
                            const struct strategy_env *env,
                            const char *const *kernels, size_t nkernels,
                            size_t scratch_bytes)
{
    int status = HISTO_OK;
    b->nbins = env->input->nbins;
    b->launches = env->launches;
    b->nkernels = nkernels < STRATEGY_MAX_KERNELS ? nkernels
                                                  : STRATEGY_MAX_KERNELS;
    for (size_t k = 0; k < b->nkernels; ++k)
        CL_CREATE(b->kernel[k], clCreateKernel(env->program, kernels[k],
                                               &cl_err_));
    CL_CALL(clRetainMemObject(env->values));
    b->values = env->values;
    CL_CREATE(b->scratch, clCreateBuffer(env->context, CL_MEM_READ_WRITE,
                                         scratch_bytes, NULL, &cl_err_));
    CL_CREATE(b->histo, clCreateBuffer(env->context, CL_MEM_READ_WRITE,
                                       b->nbins, NULL, &cl_err_));
    const cl_uint zero = 0;
    CL_CALL(clEnqueueFillBuffer(env->queue, b->scratch, &zero, sizeof zero,
                                0, scratch_bytes, 0, NULL, NULL));
fail:
    return status;
}

/* The kernels in turn on queue: each with its event in events[k], or,
 * with events NULL, only the last, into *last. */
static int enqueue_kernels(const struct strategy_buffers *b,
                           cl_command_queue queue, cl_event *events,
                           cl_event *last)
{
    int status = HISTO_OK;
    for (size_t k = 0; k < b->nkernels; ++k) {
        cl_event *ev = events != NULL ? &events[k]
                       : k + 1 == b->nkernels ? last : NULL;
        CL_CALL(clEnqueueNDRangeKernel(queue, b->kernel[k], 1, NULL,
                                       &b->global[k], &b->local[k], 0, NULL,
                                       ev));
        if (b->launches != NULL)
            ++*b->launches;
    }
fail:
    return status;
}

int strategy_buffers_enqueue(void *state, cl_command_queue queue,
                             cl_event *events)
{
    return enqueue_kernels(state, queue, events, NULL);
}

int strategy_buffers_enqueue_last(void *state, cl_command_queue queue,
                                  cl_event *last)
{
    return enqueue_kernels(state, queue, NULL, last);
}

int strategy_buffers_bind(void *state, cl_mem values)
{
    struct strategy_buffers *b = state;
    return strategy_bind_values(&b->values, b->kernel[0], values);
}

cl_mem strategy_buffers_output(const void *state)
{
    const struct strategy_buffers *b = state;
    return b->histo;
}

int strategy_buffers_download(void *state, cl_command_queue queue,
                              uint8_t *histo)
{
    int status = HISTO_OK;
    struct strategy_buffers *b = state;
    CL_CALL(clEnqueueReadBuffer(queue, b->histo, CL_TRUE, 0, b->nbins, histo,
                                0, NULL, NULL));
fail:
    return status;
}

void strategy_buffers_release(void *state)
{
    struct strategy_buffers *b = state;
    if (b == NULL)
        return;
    const cl_mem mems[] = {b->values, b->scratch, b->histo};
    strategy_release_objects(b->kernel, STRATEGY_MAX_KERNELS, mems,
                             sizeof mems / sizeof mems[0]);
    free(state);
}

static size_t smaller(size_t a, size_t b)
{
    return a < b ? a : b;
}

int strategy_device_group_limit(const struct device_info *dev, size_t *limit)
{
    unsigned long cap;
    const int status = env_whole(ENV_HISTO_TEST_MAX_GROUP, &cap);
    *limit = smaller(dev->max_work_group, dev->max_work_items);
    if (cap != 0)
        *limit = smaller(*limit, (size_t)cap);
    if (*limit < 1)
        *limit = 1;
    return status;
}

int strategy_group_size(const struct device_info *dev, cl_kernel kernel,
                        size_t want, size_t *size, size_t *kernel_limit)
{
    int status = HISTO_OK;
    size_t kmax = 0, limit;
    if ((status = strategy_device_group_limit(dev, &limit)) != HISTO_OK)
        return status;
    CL_CALL(clGetKernelWorkGroupInfo(kernel, dev->id,
                                     CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax,
                                     &kmax, NULL));
    *size = smaller(smaller(want, kmax), limit);
    if (*size < 1)
        *size = 1;
    if (kernel_limit != NULL)
        *kernel_limit = kmax;
fail:
    return status;
}

/* `groups` groups of `group` work-items striding over `items` things,
 * raised where needed so that none makes more than
 * STRATEGY_LOOP_SHARE(limit) strides (limit 0: unchanged). */
static uint64_t loop_groups(uint64_t groups, uint64_t items, size_t group,
                            uint32_t limit)
{
    if (limit == 0)
        return groups;
    const uint64_t per_item = STRATEGY_LOOP_SHARE(limit);
    const uint64_t strides = (items + per_item - 1) / per_item;
    const uint64_t needed = (strides + group - 1) / group;
    return groups > needed ? groups : needed;
}

uint64_t strategy_stride_groups(const struct device_info *device,
                                uint64_t per_cu, uint64_t items, size_t group,
                                uint32_t limit)
{
    /* the fewest the loop limit allows, then as many as the compute
     * units take, within what the things need */
    const uint64_t least = loop_groups(1, items, group, limit);
    const uint64_t needed = (items + group - 1) / group;
    uint64_t groups = device_units(device) * per_cu;
    if (groups > needed)
        groups = needed;
    return groups > least ? groups : least;
}
