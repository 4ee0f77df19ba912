/*
 * tests/loop_limit.c - a stand-alone reproducer, for an OpenCL
 * implementer, of a device that ends a kernel's loops early: one
 * work-item counts N values of 1 into one 8-bit counter per value's bin,
 * the way the cpu strategy counts a batch, and the host compares the
 * counters' sum with N.
 *
 * Mesa's rusticl on llvmpipe (Mesa 22.3, RUSTICL_ENABLE=llvmpipe) stops
 * every loop of a work-item once their iterations together reach 65535
 * (gallivm's loop limiter, LP_MAX_TGSI_LOOP_ITERATIONS), with no error:
 *   expected 200000, got 65535
 * OpenCL sets no such limit. histo measures it with kernels/probe.cl and
 * plans within it (docs/usage.md, "Tested implementations").
 *
 *   cc -o loop-limit tests/loop_limit.c -lOpenCL
 *   RUSTICL_ENABLE=llvmpipe ./loop-limit rusticl
 * The argument is (part of) a platform name, default the first platform.
 * Prints one line; exit 0 when the sum is N, 1 when it is not, 2 when
 * OpenCL fails.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 200000u
#define BINS 4096u

static const char *source =
    "kernel void count(global const uint *in, uint n, global uchar *h)\n"
    "{\n"
    "    for (uint i = 0; i < n; ++i)\n"
    "        h[in[i]] += 1;\n"
    "}\n";

static int fail(const char *what, cl_int err)
{
    printf("loop-limit: %s failed: %d\n", what, err);
    return 2;
}

int main(int argc, char **argv)
{
    const char *want = argc > 1 ? argv[1] : "";
    cl_platform_id plats[16];
    cl_uint nplat = 0;
    cl_int err = clGetPlatformIDs(16, plats, &nplat);
    if (err != CL_SUCCESS || nplat == 0)
        return fail("clGetPlatformIDs", err);
    cl_platform_id plat = NULL;
    char name[256] = "";
    for (cl_uint i = 0; i < nplat && plat == NULL; ++i) {
        clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof name, name,
                          NULL);
        if (strstr(name, want) != NULL)
            plat = plats[i];
    }
    if (plat == NULL) {
        printf("loop-limit: no platform named '%s'\n", want);
        return 2;
    }
    cl_device_id dev;
    if ((err = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL))
        != CL_SUCCESS)
        return fail("clGetDeviceIDs", err);
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (ctx == NULL)
        return fail("clCreateContext", err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    if (q == NULL)
        return fail("clCreateCommandQueue", err);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
    if (prog == NULL)
        return fail("clCreateProgramWithSource", err);
    if ((err = clBuildProgram(prog, 1, &dev, "", NULL, NULL)) != CL_SUCCESS)
        return fail("clBuildProgram", err);
    cl_kernel k = clCreateKernel(prog, "count", &err);
    if (k == NULL)
        return fail("clCreateKernel", err);

    /* values spread over BINS bins, fewer than 255 each: no saturation */
    cl_uint *values = malloc(N * sizeof *values);
    unsigned char *h = calloc(BINS, 1);
    if (values == NULL || h == NULL)
        return fail("malloc", 0);
    for (cl_uint i = 0; i < N; ++i)
        values[i] = (i * 2654435761u) % BINS;
    cl_mem in = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               N * sizeof *values, values, &err);
    if (in == NULL)
        return fail("clCreateBuffer", err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                BINS, h, &err);
    if (out == NULL)
        return fail("clCreateBuffer", err);
    const cl_uint n = N;
    const size_t one = 1;
    if ((err = clSetKernelArg(k, 0, sizeof in, &in)) != CL_SUCCESS
        || (err = clSetKernelArg(k, 1, sizeof n, &n)) != CL_SUCCESS
        || (err = clSetKernelArg(k, 2, sizeof out, &out)) != CL_SUCCESS)
        return fail("clSetKernelArg", err);
    if ((err = clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL,
                                      NULL)) != CL_SUCCESS)
        return fail("clEnqueueNDRangeKernel", err);
    if ((err = clEnqueueReadBuffer(q, out, CL_TRUE, 0, BINS, h, 0, NULL,
                                   NULL)) != CL_SUCCESS)
        return fail("clEnqueueReadBuffer", err);
    unsigned long sum = 0;
    for (cl_uint b = 0; b < BINS; ++b)
        sum += h[b];
    printf("loop-limit: %s: one work-item, a loop of %u iterations: "
           "expected %u, got %lu\n", name, N, N, sum);
    return sum == N ? 0 : 1;
}
