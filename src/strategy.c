/* strategy.c - the table of device strategies (see strategy.h). */
#include "strategy.h"

#include "cpu.h"
#include "eye.h"
#include "global.h"

#include <stdlib.h>
#include <string.h>

static const struct strategy *const table[] = {
    &eye_strategy,
    &fused_strategy,
    &cpu_strategy,
    &global_strategy,
    &replicated_strategy,
};
#define NSTRATEGIES (sizeof table / sizeof table[0])

const struct strategy *strategy_find(const char *name)
{
    for (size_t i = 0; i < NSTRATEGIES; ++i)
        if (strcmp(table[i]->name, name) == 0)
            return table[i];
    return NULL;
}

/* What --strategy auto tries, best first; each strategy's fits says
 * where it suits (the device's memory, its loop limit, the input). Of
 * those that suit one device: fused saves eye's second launch, eye's
 * tiles beat cpu's private histograms where local memory is a
 * scratchpad, and global, which suits every device, is what is left
 * where cpu cannot clear its output within the loop limit. */
static const struct strategy *const preferred[] = {
    &fused_strategy,
    &eye_strategy,
    &cpu_strategy,
    &global_strategy,
};
#define NPREFERRED (sizeof preferred / sizeof preferred[0])

/* The share's own default: the first preferred strategy that fits it. */
static const struct strategy *first_fit(const struct strategy_share *sh)
{
    for (size_t i = 0; i < NPREFERRED; ++i)
        if (preferred[i]->fits != NULL && preferred[i]->fits(sh))
            return preferred[i];
    return NULL;
}

int strategy_choose(const char *requested,
                    const struct strategy_share *shares, size_t nshares,
                    struct strategy_choice *choice)
{
    const struct strategy *first = first_fit(&shares[0]);
    size_t differs = 0;
    for (size_t i = 1; i < nshares && differs == 0; ++i)
        if (first_fit(&shares[i]) != first)
            differs = i;
    choice->by_default = differs == 0 ? first : NULL;
    choice->run = requested != NULL ? strategy_find(requested)
                                    : choice->by_default;
    if (choice->run != NULL)
        return HISTO_OK;
    if (requested != NULL)
        histo_error("unknown strategy '%s' (choose from: auto, %s)",
                    requested, strategy_names());
    else
        histo_error("'%s' and '%s' default to different strategies (%s "
                    "and %s): name one with --strategy",
                    shares[0].device->name, shares[differs].device->name,
                    first->name, first_fit(&shares[differs])->name);
    return HISTO_EXIT_USAGE;
}

const char *strategy_names(void)
{
    static char names[128];
    if (names[0] == '\0') {
        size_t len = 0;
        for (size_t i = 0; i < NSTRATEGIES && len < sizeof names; ++i)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s",
                                    i > 0 ? ", " : "", table[i]->name);
    }
    return names;
}

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

int strategy_env_number(const char *name, unsigned long max, unsigned long *v)
{
    *v = 0;
    const char *env = getenv(name);
    if (env == NULL || *env == '\0')
        return HISTO_OK;
    char *end = NULL;
    const unsigned long n = strtoul(env, &end, 10);
    if (*end != '\0' || n < 1 || n > max || env[0] == '-') {
        histo_error("%s must be a whole number from 1 to %lu, not '%s'",
                    name, max, env);
        return HISTO_EXIT_USAGE;
    }
    *v = n;
    return HISTO_OK;
}

static size_t smaller(size_t a, size_t b)
{
    return a < b ? a : b;
}

int strategy_device_group_limit(const struct device_info *dev, size_t *limit)
{
    unsigned long cap;
    const int status = strategy_env_number("HISTO_TEST_MAX_GROUP", 65536,
                                           &cap);
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
    CL_CALL(clGetKernelWorkGroupInfo(kernel, dev->id,
                                     CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax,
                                     &kmax, NULL));
    if ((status = strategy_device_group_limit(dev, &limit)) != HISTO_OK)
        return status;
    *size = smaller(smaller(want, kmax), limit);
    if (*size < 1)
        *size = 1;
    if (kernel_limit != NULL)
        *kernel_limit = kmax;
fail:
    return status;
}

uint64_t strategy_loop_groups(uint64_t groups, uint64_t items, size_t group,
                              uint32_t limit)
{
    if (limit == 0)
        return groups;
    const uint64_t per_item = STRATEGY_LOOP_SHARE(limit);
    const uint64_t strides = (items + per_item - 1) / per_item;
    const uint64_t needed = (strides + group - 1) / group;
    return groups > needed ? groups : needed;
}
