/*
 * bench/atomic_probe.c - the floors histo is measured against, on one
 * OpenCL device (make bench): N global atomic increments and nothing
 * else, N local atomic increments and nothing else, a read of N values
 * and nothing else, and two empty kernels back to back.
 *
 *   build/atomic-probe PLATFORM DEVICE [N [NBINS [RUNS]]]
 *       (indexes as histo --list shows them; N = 16777216 values,
 *        NBINS = 256 * 8192, RUNS = 200 by default)
 *
 * "atomics": work-item i of a grid-stride loop increments counter
 * hash(i) % NBINS with atomic_inc, for i < N: the same number of atomics
 * as a histogram of N values spread evenly over NBINS bins (the uniform
 * input), without reading any input. "read": the same loop reads N
 * values as uint4 and keeps their sum (one store per work-item), without
 * atomics. Each is launched as the global strategy launches its count
 * (HISTO_GLOBAL_GROUPS_PER_CU groups of 256 a compute unit) and timed by
 * profiling events; the median of RUNS launches is printed, as
 *   atomics_median_us = X
 *   read_median_us = Y
 * "local_atomics": the same loop increments a local counter (one of
 * TILE_WORDS words per group, spread by the same hash) with
 * atomic_inc, then each group writes one word: what counting every value
 * in local memory costs, without reading any input. "launch2": pairs of
 * empty kernels of one work-group, all enqueued back to back as histo
 * enqueues its iterations, from a pair's first start to its second end:
 * the fixed cost of an iteration of two kernels.
 *   local_atomics_median_us = Z
 *   launch2_median_us = L
 * The floors make bench divides by are whole iterations of two kernels,
 * enqueued back to back the same way, whose first kernel reads every
 * value (as uint4) and nothing else, or reads every value and counts it
 * by a local atomic (a tile of TILE_WORDS words a group), or by a
 * global atomic (into NBINS counters), the address hashed from the value
 * and its index; the second kernel is empty:
 *   iteration_read_median_us, iteration_local_median_us,
 *   iteration_global_median_us
 * What an iteration of one kernel would cost (history/perf-log.md): one
 * empty kernel, and one kernel that reads every value and counts it by a
 * local atomic, each alone and waited for; and
 * the iteration whose first kernel counts every value into 8-bit counters
 * in global memory with atomic_cmpxchg, the only way to count a value
 * outside every tile without a pass over 32-bit counters after the last
 * group (each try guesses the word, the first 0, then what the failed
 * try returned; the byte wraps instead of saturating, so repeated runs
 * cost the same):
 *   kernel_empty_median_us, kernel_read_local_median_us,
 *   iteration_cas_median_us
 * and what the last group to finish would take to saturate NBINS 32-bit
 * counters into bytes and clear them alone (one group of up to 1024
 * work-items, a uint4 a step):
 *   kernel_one_group_pass_median_us
 * and the floor of an iteration of one launch: one kernel that reads
 * every value, counts it by a local atomic and writes NBINS bytes of
 * counters (a uint4 a work-item a step), alone and waited for:
 *   kernel_floor_median_us
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "../src/params.h"

#include <stdio.h>
#include <stdlib.h>

#define PROBE_NAME "atomic-probe"
#include "probe.h"

/* Local counters a group: 32 KiB, within every full-profile device's
 * local memory, about the eye's 16-bit tile of 46 KiB in words. */
#define TILE_WORDS 8192u

static const char source[] =
    "uint mix(uint x) {\n"
    "    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15;\n"
    "    x *= 0x846ca68bu; x ^= x >> 16; return x;\n"
    "}\n"
    "kernel void atomics(uint n, uint nbins, global uint *counts) {\n"
    "    const uint size = get_global_size(0);\n"
    "    for (uint i = get_global_id(0); i < n; i += size)\n"
    "        atomic_inc(&counts[mix(i) % nbins]);\n"
    "}\n"
    "kernel void local_atomics(uint n, global uint *out) {\n"
    "    local uint tile[TILE_WORDS];\n"
    "    for (uint w = get_local_id(0); w < TILE_WORDS; w += get_local_size(0))\n"
    "        tile[w] = 0;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    const uint size = get_global_size(0);\n"
    "    for (uint i = get_global_id(0); i < n; i += size)\n"
    "        atomic_inc(&tile[mix(i) % TILE_WORDS]);\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (get_local_id(0) == 0)\n"
    "        out[get_group_id(0)] = tile[get_group_id(0) % TILE_WORDS];\n"
    "}\n"
    "/* every value read once, counted by a local atomic in a zeroed tile */\n"
    "void count_quads(global const uint4 *in, uint quads, local uint *tile) {\n"
    "    for (uint w = get_local_id(0); w < TILE_WORDS; w += get_local_size(0))\n"
    "        tile[w] = 0;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    const uint size = get_global_size(0);\n"
    "    for (uint q = get_global_id(0); q < quads; q += size) {\n"
    "        const uint4 v = in[q] ^ (uint4)(4 * q, 4 * q + 1, 4 * q + 2, 4 * q + 3);\n"
    "        atomic_inc(&tile[mix(v.x) % TILE_WORDS]);\n"
    "        atomic_inc(&tile[mix(v.y) % TILE_WORDS]);\n"
    "        atomic_inc(&tile[mix(v.z) % TILE_WORDS]);\n"
    "        atomic_inc(&tile[mix(v.w) % TILE_WORDS]);\n"
    "    }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "}\n"
    "kernel void read_local(global const uint4 *in, uint quads, global uint *out) {\n"
    "    local uint tile[TILE_WORDS];\n"
    "    count_quads(in, quads, tile);\n"
    "    if (get_local_id(0) == 0)\n"
    "        out[get_group_id(0)] = tile[get_group_id(0) % TILE_WORDS];\n"
    "}\n";
/* The rest, in a second string: C99 promises string literals of 4095
 * characters only. */
static const char source_rest[] =
    "kernel void read_floor(global const uint4 *in, uint quads, uint nbins,\n"
    "                       global uint4 *bytes) {\n"
    "    local uint tile[TILE_WORDS];\n"
    "    count_quads(in, quads, tile);\n"
    "    const uint size = get_global_size(0);\n"
    "    const uint t = tile[get_local_id(0) % TILE_WORDS];\n"
    "    for (uint b = get_global_id(0); b < nbins / 16; b += size)\n"
    "        bytes[b] = (uint4)(t);\n"
    "}\n"
    "kernel void read_global(global const uint4 *in, uint quads, uint nbins,\n"
    "                        global uint *counts) {\n"
    "    const uint size = get_global_size(0);\n"
    "    for (uint q = get_global_id(0); q < quads; q += size) {\n"
    "        const uint4 v = in[q] ^ (uint4)(4 * q, 4 * q + 1, 4 * q + 2, 4 * q + 3);\n"
    "        atomic_inc(&counts[mix(v.x) % nbins]);\n"
    "        atomic_inc(&counts[mix(v.y) % nbins]);\n"
    "        atomic_inc(&counts[mix(v.z) % nbins]);\n"
    "        atomic_inc(&counts[mix(v.w) % nbins]);\n"
    "    }\n"
    "}\n"
    "kernel void read_cas(global const uint4 *in, uint quads, uint nbins,\n"
    "                     global uint *words) {\n"
    "    const uint size = get_global_size(0);\n"
    "    for (uint q = get_global_id(0); q < quads; q += size) {\n"
    "        const uint4 v = in[q] ^ (uint4)(4 * q, 4 * q + 1, 4 * q + 2, 4 * q + 3);\n"
    "        const uint b[4] = {mix(v.x) % nbins, mix(v.y) % nbins,\n"
    "                           mix(v.z) % nbins, mix(v.w) % nbins};\n"
    "        for (uint j = 0; j < 4; ++j) {\n"
    "            global uint *p = words + b[j] / 4;\n"
    "            const uint shift = (b[j] % 4) * 8, mask = 0xffu << shift;\n"
    "            uint old = 0;\n"
    "            for (;;) {\n"
    "                const uint next = (old & ~mask) | ((old + (1u << shift)) & mask);\n"
    "                const uint seen = atomic_cmpxchg(p, old, next);\n"
    "                if (seen == old) break;\n"
    "                old = seen;\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "}\n"
    "__attribute__((reqd_work_group_size(ONE_GROUP, 1, 1)))\n"
    "kernel void one_group_pass(global uint4 *counts, uint quads,\n"
    "                           global uchar4 *bytes) {\n"
    "    for (uint q = get_local_id(0); q < quads; q += ONE_GROUP) {\n"
    "        const uint4 c = counts[q];\n"
    "        if (c.x | c.y | c.z | c.w) counts[q] = (uint4)(0);\n"
    "        bytes[q] = convert_uchar4(min(c, (uint4)(255)));\n"
    "    }\n"
    "}\n"
    "kernel void empty(global uint *out) {\n"
    "    if (get_global_id(0) == 1u << 30) out[0] = 1;\n"
    "}\n"
    "kernel void stream(global const uint4 *in, uint quads, global uint *out) {\n"
    "    const uint size = get_global_size(0);\n"
    "    uint4 s = (uint4)(0);\n"
    "    for (uint q = get_global_id(0); q < quads; q += size)\n"
    "        s += in[q];\n"
    "    out[get_global_id(0)] = s.x + s.y + s.z + s.w;\n"
    "}\n";


/* Median device time of `runs` launches of k over `global` items, us. */
static double time_kernel(cl_command_queue q, cl_kernel k, size_t global,
                          size_t group, int runs)
{
    double *us = malloc(sizeof *us * (size_t)runs);
    if (us == NULL) {
        fprintf(stderr, "atomic-probe: out of memory\n");
        exit(1);
    }
    for (int r = 0; r < runs; ++r) {
        cl_event ev;
        cl_ulong t0 = 0, t1 = 0;
        CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &group, 0, NULL,
                                     &ev));
        CHECK(clWaitForEvents(1, &ev));
        CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START,
                                      sizeof t0, &t0, NULL));
        CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END,
                                      sizeof t1, &t1, NULL));
        clReleaseEvent(ev);
        us[r] = (double)(t1 - t0) / 1e3;
    }
    qsort(us, (size_t)runs, sizeof *us, by_value);
    const double median = us[runs / 2];
    free(us);
    return median;
}

/* Median over `runs` iterations of two kernels, `first` over `global`
 * items (NULL: an empty one too) then `empty` (one group of 64), all
 * enqueued back to back as histo enqueues its iterations: each
 * iteration's first start to second end, us. */
static double time_pair(cl_command_queue q, cl_kernel first, size_t global,
                        size_t group, cl_kernel empty, int runs)
{
    double *us = malloc(sizeof *us * (size_t)runs);
    cl_event *ev = calloc(2 * (size_t)runs, sizeof *ev);
    if (us == NULL || ev == NULL) {
        fprintf(stderr, "atomic-probe: out of memory\n");
        exit(1);
    }
    const size_t one = 64;
    for (int r = 0; r < runs; ++r) {
        if (first != NULL)
            CHECK(clEnqueueNDRangeKernel(q, first, 1, NULL, &global, &group,
                                         0, NULL, &ev[2 * r]));
        else
            CHECK(clEnqueueNDRangeKernel(q, empty, 1, NULL, &one, &one, 0,
                                         NULL, &ev[2 * r]));
        CHECK(clEnqueueNDRangeKernel(q, empty, 1, NULL, &one, &one, 0, NULL,
                                     &ev[2 * r + 1]));
    }
    CHECK(clWaitForEvents((cl_uint)(2 * runs), ev));
    for (int r = 0; r < runs; ++r) {
        cl_ulong t0 = 0, t1 = 0;
        CHECK(clGetEventProfilingInfo(ev[2 * r], CL_PROFILING_COMMAND_START,
                                      sizeof t0, &t0, NULL));
        CHECK(clGetEventProfilingInfo(ev[2 * r + 1], CL_PROFILING_COMMAND_END,
                                      sizeof t1, &t1, NULL));
        us[r] = (double)(t1 - t0) / 1e3;
    }
    for (int r = 0; r < 2 * runs; ++r)
        clReleaseEvent(ev[r]);
    qsort(us, (size_t)runs, sizeof *us, by_value);
    const double median = us[runs / 2];
    free(us);
    free(ev);
    return median;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: atomic-probe PLATFORM DEVICE [N [NBINS [RUNS]]]\n");
        return 2;
    }
    const unsigned pi = (unsigned)atoi(argv[1]), di = (unsigned)atoi(argv[2]);
    const cl_uint n = argc > 3 ? (cl_uint)strtoul(argv[3], NULL, 10) : 16777216u;
    const cl_uint nbins = argc > 4 ? (cl_uint)strtoul(argv[4], NULL, 10)
                                   : 256u * 8192u;
    const int runs = argc > 5 ? atoi(argv[5]) : 200;
    if (n < 4 || nbins < 1 || runs < 1) {
        fprintf(stderr, "atomic-probe: N >= 4, NBINS >= 1, RUNS >= 1\n");
        return 2;
    }
    cl_platform_id plats[16];
    cl_uint np = 0, nd = 0;
    CHECK(clGetPlatformIDs(16, plats, &np));
    if (pi >= np) {
        fprintf(stderr, "atomic-probe: no platform %u\n", pi);
        return 2;
    }
    cl_device_id devs[16];
    CHECK(clGetDeviceIDs(plats[pi], CL_DEVICE_TYPE_ALL, 16, devs, &nd));
    if (di >= nd) {
        fprintf(stderr, "atomic-probe: no device %u\n", di);
        return 2;
    }
    const cl_device_id dev = devs[di];
    char name[256] = "";
    cl_uint units = 1;
    CHECK(clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name - 1, name, NULL));
    CHECK(clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units,
                          &units, NULL));
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev,
                                              CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err);
    const char *src[] = {source, source_rest};
    cl_program prog = clCreateProgramWithSource(ctx, 2, src, NULL, &err);
    CHECK(err);
    size_t dev_group = 1;
    CHECK(clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                          sizeof dev_group, &dev_group, NULL));
    const size_t one_group = dev_group < 1024 ? dev_group : 1024;
    char options[96];
    snprintf(options, sizeof options,
             "-cl-std=CL1.2 -DTILE_WORDS=%uu -DONE_GROUP=%zuu", TILE_WORDS,
             one_group);
    CHECK(clBuildProgram(prog, 1, &dev, options, NULL, NULL));
    cl_kernel ka = clCreateKernel(prog, "atomics", &err);
    CHECK(err);
    cl_kernel kr = clCreateKernel(prog, "stream", &err);
    CHECK(err);
    cl_kernel kl = clCreateKernel(prog, "local_atomics", &err);
    CHECK(err);
    cl_kernel ke = clCreateKernel(prog, "empty", &err);
    CHECK(err);
    cl_kernel krl = clCreateKernel(prog, "read_local", &err);
    CHECK(err);
    cl_kernel krg = clCreateKernel(prog, "read_global", &err);
    CHECK(err);
    cl_kernel kc = clCreateKernel(prog, "read_cas", &err);
    CHECK(err);
    cl_kernel kp = clCreateKernel(prog, "one_group_pass", &err);
    CHECK(err);
    cl_kernel kw = clCreateKernel(prog, "read_floor", &err);
    CHECK(err);

    size_t group = HISTO_WORK_GROUP, kmax = 0;
    CHECK(clGetKernelWorkGroupInfo(ka, dev, CL_KERNEL_WORK_GROUP_SIZE,
                                   sizeof kmax, &kmax, NULL));
    if (kmax < group)
        group = kmax;
    const size_t global = (size_t)units * HISTO_GLOBAL_GROUPS_PER_CU * group;
    const cl_uint quads = n / 4;
    cl_mem counts = clCreateBuffer(ctx, CL_MEM_READ_WRITE,
                                   (size_t)nbins * sizeof(cl_uint), NULL, &err);
    CHECK(err);
    cl_mem in = clCreateBuffer(ctx, CL_MEM_READ_ONLY,
                               (size_t)quads * 4 * sizeof(cl_uint), NULL, &err);
    CHECK(err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY,
                                global * sizeof(cl_uint), NULL, &err);
    CHECK(err);
    const cl_uint zero = 0;
    CHECK(clEnqueueFillBuffer(q, counts, &zero, sizeof zero, 0,
                              (size_t)nbins * sizeof(cl_uint), 0, NULL, NULL));
    CHECK(clEnqueueFillBuffer(q, in, &zero, sizeof zero, 0,
                              (size_t)quads * 4 * sizeof(cl_uint), 0, NULL,
                              NULL));
    CHECK(clSetKernelArg(ka, 0, sizeof n, &n));
    CHECK(clSetKernelArg(ka, 1, sizeof nbins, &nbins));
    CHECK(clSetKernelArg(ka, 2, sizeof counts, &counts));
    CHECK(clSetKernelArg(kr, 0, sizeof in, &in));
    CHECK(clSetKernelArg(kr, 1, sizeof quads, &quads));
    CHECK(clSetKernelArg(kr, 2, sizeof out, &out));
    CHECK(clSetKernelArg(kl, 0, sizeof n, &n));
    CHECK(clSetKernelArg(kl, 1, sizeof out, &out));
    CHECK(clSetKernelArg(ke, 0, sizeof out, &out));
    CHECK(clSetKernelArg(krl, 0, sizeof in, &in));
    CHECK(clSetKernelArg(krl, 1, sizeof quads, &quads));
    CHECK(clSetKernelArg(krl, 2, sizeof out, &out));
    CHECK(clSetKernelArg(krg, 0, sizeof in, &in));
    CHECK(clSetKernelArg(krg, 1, sizeof quads, &quads));
    CHECK(clSetKernelArg(krg, 2, sizeof nbins, &nbins));
    CHECK(clSetKernelArg(krg, 3, sizeof counts, &counts));
    CHECK(clSetKernelArg(kc, 0, sizeof in, &in));
    CHECK(clSetKernelArg(kc, 1, sizeof quads, &quads));
    CHECK(clSetKernelArg(kc, 2, sizeof nbins, &nbins));
    CHECK(clSetKernelArg(kc, 3, sizeof counts, &counts));
    const cl_uint bin_quads = nbins / 4;
    cl_mem bytes = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY,
                                  (size_t)nbins + 4, NULL, &err);
    CHECK(err);
    CHECK(clSetKernelArg(kp, 0, sizeof counts, &counts));
    CHECK(clSetKernelArg(kp, 1, sizeof bin_quads, &bin_quads));
    CHECK(clSetKernelArg(kp, 2, sizeof bytes, &bytes));
    CHECK(clSetKernelArg(kw, 0, sizeof in, &in));
    CHECK(clSetKernelArg(kw, 1, sizeof quads, &quads));
    CHECK(clSetKernelArg(kw, 2, sizeof nbins, &nbins));
    CHECK(clSetKernelArg(kw, 3, sizeof bytes, &bytes));
    CHECK(clFinish(q));
    time_kernel(q, ka, global, group, 3); /* warm up */
    printf("device = %s\n", name);
    printf("values = %u\nbins = %u\nwork_items = %zu\nwork_group = %zu\n",
           n, nbins, global, group);
    printf("atomics_median_us = %.3f\n", time_kernel(q, ka, global, group, runs));
    printf("read_median_us = %.3f\n", time_kernel(q, kr, global, group, runs));
    time_kernel(q, kl, global, group, 3); /* warm up */
    printf("local_atomics_median_us = %.3f\n",
           time_kernel(q, kl, global, group, runs));
    time_pair(q, NULL, 0, 0, ke, 3);
    printf("launch2_median_us = %.3f\n", time_pair(q, NULL, 0, 0, ke, runs));
    time_pair(q, kr, global, group, ke, 3);
    printf("iteration_read_median_us = %.3f\n",
           time_pair(q, kr, global, group, ke, runs));
    time_pair(q, krl, global, group, ke, 3);
    printf("iteration_local_median_us = %.3f\n",
           time_pair(q, krl, global, group, ke, runs));
    time_pair(q, krg, global, group, ke, 3);
    printf("iteration_global_median_us = %.3f\n",
           time_pair(q, krg, global, group, ke, runs));
    const size_t one = 64;
    time_kernel(q, ke, one, one, 3);
    printf("kernel_empty_median_us = %.3f\n",
           time_kernel(q, ke, one, one, runs));
    printf("kernel_read_local_median_us = %.3f\n",
           time_kernel(q, krl, global, group, runs));
    time_kernel(q, kw, global, group, 3);
    printf("kernel_floor_median_us = %.3f\n",
           time_kernel(q, kw, global, group, runs));
    time_pair(q, kc, global, group, ke, 3);
    printf("iteration_cas_median_us = %.3f\n",
           time_pair(q, kc, global, group, ke, runs));
    time_kernel(q, kp, one_group, one_group, 3);
    printf("kernel_one_group_pass_median_us = %.3f\n",
           time_kernel(q, kp, one_group, one_group, runs));
    clReleaseMemObject(out);
    clReleaseMemObject(bytes);
    clReleaseMemObject(in);
    clReleaseMemObject(counts);
    clReleaseKernel(kr);
    clReleaseKernel(kl);
    clReleaseKernel(ke);
    clReleaseKernel(krl);
    clReleaseKernel(krg);
    clReleaseKernel(kc);
    clReleaseKernel(kp);
    clReleaseKernel(kw);
    clReleaseKernel(ka);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return 0;
}
