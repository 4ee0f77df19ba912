/*
 * kernel_test.h - what the kernel tests (combine-test, records-test)
 * share: a device chosen as histo chooses it ([PLATFORM [DEVICE]]), one
 * kernel of a program built from the kernels folder ($HISTO_KERNEL_DIR,
 * else kernels/), and their release.
 */
#ifndef HISTO_KERNEL_TEST_H
#define HISTO_KERNEL_TEST_H

#include "device.h"
#include "program.h"

struct kernel_test {
    struct device_list list;
    cl_context ctx;
    cl_command_queue queue;
    cl_program program;
    cl_kernel kernel;
};

/* Opens the device argv names and builds `name` from files (histogram
 * width `width`, with defines or NULL). 0, or an exit status after a
 * message; kernel_test_close either way. */
int kernel_test_open(struct kernel_test *t, int argc, char **argv,
                     const char *const *files, size_t nfiles,
                     uint32_t width, const struct program_defines *defines,
                     const char *name);

void kernel_test_close(struct kernel_test *t);

#endif
