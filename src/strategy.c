/* strategy.c - the table of device strategies (see strategy.h). */
#include "strategy.h"

#include "cpu.h"
#include "eye.h"

#include <string.h>

static const struct strategy *const table[] = {
    &eye_strategy,
    &cpu_strategy,
};
#define NSTRATEGIES (sizeof table / sizeof table[0])

const struct strategy *strategy_default(const struct device_info *device)
{
    /* The published eye design targets scratchpad memories: dedicated
     * local memory (CL_LOCAL) whose tiles save global atomics. Where local
     * memory is global memory behind an implicit cache (CL_GLOBAL, as on
     * CPUs) the eye analysis buys nothing and local atomics cost more than
     * private histograms (docs/perf-notes.md); without local memory
     * (CL_NONE) the eye cannot run at all. The memory, not the device
     * type, decides: a device may report several types. */
    if (device->local_mem_type == CL_LOCAL)
        return &eye_strategy;
    return &cpu_strategy;
}

const struct strategy *strategy_find(const char *name)
{
    for (size_t i = 0; i < NSTRATEGIES; ++i)
        if (strcmp(table[i]->name, name) == 0)
            return table[i];
    return NULL;
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

int strategy_upload_values(cl_command_queue queue, cl_mem values,
                           const struct histo_input *in)
{
    int status = HISTO_OK;
    CL_CALL(clEnqueueWriteBuffer(queue, values, CL_TRUE, 0,
                                 in->nvalues * sizeof(cl_uint), in->values, 0,
                                 NULL, NULL));
    CL_CALL(clFinish(queue));
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
