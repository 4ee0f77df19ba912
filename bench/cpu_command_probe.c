/*
 * bench/cpu_command_probe.c - what one command costs a CPU OpenCL device
 * (PoCL's pthread device wakes its workers for every kernel), and whether
 * fewer work-groups or a sub-device of fewer compute units make it
 * cheaper: the question behind the cpu strategy's plan (docs/design.md,
 * "Strategy cpu").
 *
 *   build/cpu-command-probe PLATFORM DEVICE [UNITS...]
 *       (indexes as histo --list shows them; UNITS: sub-device sizes,
 *        default 4 8 16 32)
 *
 * For the device itself and for a sub-device of each size in UNITS
 * (clCreateSubDevices, CL_DEVICE_PARTITION_BY_COUNTS, in a context of its
 * own), prints one line a measure, median host wall time per iteration
 * over RUNS iterations after a warm-up, each iteration ended by clFinish:
 *   one_cmd_gG_us   one empty kernel of G one-item work-groups
 *   two_cmd_gG_us   two of them back to back on an in-order queue
 *   spin_gG_us      one kernel of G groups that each spin a fixed time
 *                   (about 50 us on one core): how many cores the
 *                   (sub-)device really runs them on
 * for G = 1, the compute units and 4x them.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PROBE_NAME "cpu-command-probe"
#include "probe.h"

#define RUNS 300
#define WARM 30

static const char *source =
    "__attribute__((reqd_work_group_size(1, 1, 1)))\n"
    "kernel void nop(global uint *p, uint n)\n"
    "{ if (get_group_id(0) >= n) p[0] = 1; }\n"
    "__attribute__((reqd_work_group_size(1, 1, 1)))\n"
    "kernel void spin(global uint *p, uint iters)\n"
    "{ uint x = get_group_id(0);\n"
    "  for (uint i = 0; i < iters; ++i) x = x * 1664525u + 1013904223u;\n"
    "  if (x == 7u) p[0] = x; }\n";


/* Median wall time of an iteration of `cmds` launches of kernel k over
 * `groups` one-item groups, each iteration waited for. */
static double timed(cl_command_queue q, cl_kernel k, size_t groups, int cmds)
{
    static double t[RUNS];
    const size_t one = 1;
    for (int r = -WARM; r < RUNS; ++r) {
        const double t0 = now_us();
        for (int c = 0; c < cmds; ++c)
            CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &groups, &one, 0,
                                         NULL, NULL));
        CHECK(clFinish(q));
        if (r >= 0)
            t[r] = now_us() - t0;
    }
    qsort(t, RUNS, sizeof t[0], by_value);
    return t[RUNS / 2];
}

static void measure(const char *label, cl_device_id dev)
{
    cl_int err;
    cl_uint units = 0;
    CHECK(clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units,
                          &units, NULL));
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    CHECK(err);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    CHECK(err);
    cl_program p = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
    CHECK(err);
    CHECK(clBuildProgram(p, 1, &dev, "", NULL, NULL));
    cl_kernel nop = clCreateKernel(p, "nop", &err);
    CHECK(err);
    cl_kernel spin = clCreateKernel(p, "spin", &err);
    CHECK(err);
    const cl_uint big = 0xffffffffu;
    CHECK(clSetKernelArg(nop, 0, sizeof buf, &buf));
    CHECK(clSetKernelArg(nop, 1, sizeof big, &big));
    CHECK(clSetKernelArg(spin, 0, sizeof buf, &buf));
    /* about 50 us on one core: calibrated on one group */
    cl_uint iters = 1000;
    CHECK(clSetKernelArg(spin, 1, sizeof iters, &iters));
    const double base = timed(q, spin, 1, 1);
    iters = 100000;
    CHECK(clSetKernelArg(spin, 1, sizeof iters, &iters));
    const double more = timed(q, spin, 1, 1);
    const double per_iter = (more - base) / (100000 - 1000);
    iters = per_iter > 0 ? (cl_uint)(50.0 / per_iter) : 100000;
    CHECK(clSetKernelArg(spin, 1, sizeof iters, &iters));
    printf("## %s: %u compute units, spin %u iterations a group\n", label,
           units, iters);
    const size_t groups[] = {1, units, 4 * (size_t)units};
    for (size_t g = 0; g < 3; ++g) {
        if (g > 0 && groups[g] == groups[g - 1])
            continue;
        printf("one_cmd_g%zu_us = %.1f\n", groups[g],
               timed(q, nop, groups[g], 1));
        printf("two_cmd_g%zu_us = %.1f\n", groups[g],
               timed(q, nop, groups[g], 2));
        printf("spin_g%zu_us = %.1f\n", groups[g],
               timed(q, spin, groups[g], 1));
    }
    fflush(stdout);
    clReleaseKernel(nop);
    clReleaseKernel(spin);
    clReleaseProgram(p);
    clReleaseMemObject(buf);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: cpu-command-probe PLATFORM DEVICE "
                        "[UNITS...]\n");
        return 2;
    }
    const unsigned pi = (unsigned)atoi(argv[1]);
    const unsigned di = (unsigned)atoi(argv[2]);
    cl_platform_id plats[16];
    cl_uint np = 0;
    CHECK(clGetPlatformIDs(16, plats, &np));
    if (pi >= np) {
        fprintf(stderr, "cpu-command-probe: no platform %u\n", pi);
        return 1;
    }
    cl_device_id devs[16];
    cl_uint nd = 0;
    CHECK(clGetDeviceIDs(plats[pi], CL_DEVICE_TYPE_ALL, 16, devs, &nd));
    if (di >= nd) {
        fprintf(stderr, "cpu-command-probe: no device %u\n", di);
        return 1;
    }
    measure("device", devs[di]);
    static const unsigned dflt[] = {4, 8, 16, 32};
    const int nsizes = argc > 3 ? argc - 3 : 4;
    for (int s = 0; s < nsizes; ++s) {
        const unsigned u = argc > 3 ? (unsigned)atoi(argv[3 + s]) : dflt[s];
        const cl_device_partition_property props[] = {
            CL_DEVICE_PARTITION_BY_COUNTS, (cl_device_partition_property)u,
            CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
        cl_device_id sub;
        cl_uint got = 0;
        const cl_int e = clCreateSubDevices(devs[di], props, 1, &sub, &got);
        if (e != CL_SUCCESS || got != 1) {
            printf("## sub-device of %u: clCreateSubDevices %d\n", u, e);
            continue;
        }
        char label[64];
        snprintf(label, sizeof label, "sub-device of %u", u);
        measure(label, sub);
        clReleaseDevice(sub);
    }
    return 0;
}
