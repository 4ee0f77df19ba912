/*
 * kernel_test.h - what the kernel tests (combine-test, records-test)
 * share: a device chosen as histo chooses it ([PLATFORM [DEVICE]]), one
 * kernel of a program built from the kernels folder ($HISTO_KERNEL_DIR,
 * else kernels/), their release, and the PASS/FAIL lines tests/run.sh
 * reads ("PASS SUITE.NAME").
 */
#ifndef HISTO_KERNEL_TEST_H
#define HISTO_KERNEL_TEST_H

#include "device.h"
#include "program.h"

struct kernel_test {
    const char *suite;       /* the ids' first word: "combine"          */
    int failures;
    struct device_list list;
    cl_context ctx;
    cl_command_queue queue;
    cl_program program;
    cl_kernel kernel;
};

/* Opens the device argv names and builds `name` from files (with defines
 * or NULL) for the tests of `suite`. 0, or
 * an exit status after a message; kernel_test_close either way. */
int kernel_test_open(struct kernel_test *t, const char *suite, int argc,
                     char **argv, const char *const *files, size_t nfiles,
                     const struct program_defines *defines,
                     const char *name);

/* "PASS SUITE.NAME", or "FAIL SUITE.NAME: DETAIL" counted. */
void kernel_test_check(struct kernel_test *t, bool ok, const char *name,
                       const char *detail);

/* Releases what kernel_test_open made; the program's exit status: 1
 * after a failed check, or after `status` (an exit status) with "FAIL
 * SUITE.ran", else 0. */
int kernel_test_close(struct kernel_test *t, int status);

#endif
