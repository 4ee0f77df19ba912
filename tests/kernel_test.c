/* kernel_test.c - the kernel tests' device and kernel (kernel_test.h). */
#include "kernel_test.h"

#include "error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kernel_test_open(struct kernel_test *t, const char *suite, int argc,
                     char **argv, const char *const *files, size_t nfiles,
                     const struct program_defines *defines,
                     const char *name)
{
    int status = HISTO_OK;
    const char *dir = getenv("HISTO_KERNEL_DIR");
    memset(t, 0, sizeof *t);
    t->suite = suite;
    if ((status = device_enumerate(&t->list)) != HISTO_OK
        || (status = device_select(&t->list, argc > 1 ? argv[1] : NULL,
                                   argc > 2 ? argv[2] : NULL)) != HISTO_OK
        || (status = device_open(&t->list, &t->ctx, &t->queue)) != HISTO_OK
        || (status = program_build(t->ctx, device_selected(&t->list),
                                   dir != NULL ? dir : "kernels", files,
                                   nfiles, defines, &t->program))
               != HISTO_OK)
        return status;
    CL_CREATE(t->kernel, clCreateKernel(t->program, name, &cl_err_));
fail:
    return status;
}

void kernel_test_check(struct kernel_test *t, bool ok, const char *name,
                       const char *detail)
{
    printf("%s %s.%s%s%s\n", ok ? "PASS" : "FAIL", t->suite, name,
           ok ? "" : ": ", ok ? "" : detail);
    if (!ok)
        ++t->failures;
}

int kernel_test_close(struct kernel_test *t, int status)
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
    if (status != HISTO_OK) {
        printf("FAIL %s.ran: status %d\n", t->suite, status);
        return 1;
    }
    return t->failures != 0;
}
