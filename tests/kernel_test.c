/* kernel_test.c - the kernel tests' device and kernel (kernel_test.h). */
#include "kernel_test.h"

#include "error.h"

#include <stdlib.h>
#include <string.h>

int kernel_test_open(struct kernel_test *t, int argc, char **argv,
                     const char *const *files, size_t nfiles,
                     uint32_t width, const struct program_defines *defines,
                     const char *name)
{
    int status = HISTO_OK;
    const char *dir = getenv("HISTO_KERNEL_DIR");
    memset(t, 0, sizeof *t);
    if ((status = device_enumerate(&t->list)) != HISTO_OK
        || (status = device_select(&t->list, argc > 1 ? argv[1] : NULL,
                                   argc > 2 ? argv[2] : NULL)) != HISTO_OK
        || (status = device_open(&t->list, &t->ctx, &t->queue)) != HISTO_OK
        || (status = program_build(t->ctx, device_selected(&t->list),
                                   dir != NULL ? dir : "kernels", files,
                                   nfiles, width, defines, &t->program))
               != HISTO_OK)
        return status;
    CL_CREATE(t->kernel, clCreateKernel(t->program, name, &cl_err_));
fail:
    return status;
}

void kernel_test_close(struct kernel_test *t)
{
    if (t->kernel != NULL)
        clReleaseKernel(t->kernel);
    if (t->program != NULL)
        clReleaseProgram(t->program);
    if (t->queue != NULL)
        clReleaseCommandQueue(t->queue);
    if (t->ctx != NULL)
        clReleaseContext(t->ctx);
    device_list_free(&t->list);
}
