/*
 * bench/wg_probe.c - does an OpenCL implementation run work-groups larger
 * than the CL_KERNEL_WORK_GROUP_SIZE it reports? For each GPU it builds
 * six small kernels (plain; a barrier and a __local argument; a
 * reqd_work_group_size of 512, 1024 and 2048; a static __local array),
 * prints the size each reports and its CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
 * and launches each with groups of 256, 512 and 1024, printing the
 * enqueue and finish status (0 = CL_SUCCESS, -54 =
 * CL_INVALID_WORK_GROUP_SIZE). docs/design.md ("Work-group sizes") has
 * what NVIDIA's OpenCL answered.
 *   cc -o wg-probe bench/wg_probe.c -lOpenCL && ./wg-probe
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

static const char *sources[] = {
    "kernel void plain(global int *p) { p[get_global_id(0)] = 1; }",
    "kernel void shared(global int *p, local int *l) {"
    " l[get_local_id(0)] = 1; barrier(CLK_LOCAL_MEM_FENCE);"
    " p[get_global_id(0)] = l[0]; }",
    "kernel __attribute__((reqd_work_group_size(512, 1, 1)))"
    " void required(global int *p) { p[get_global_id(0)] = 1; }",
    "kernel __attribute__((reqd_work_group_size(1024, 1, 1)))"
    " void req1024(global int *p, local int *l) {"
    " l[get_local_id(0)] = 1; barrier(CLK_LOCAL_MEM_FENCE);"
    " p[get_global_id(0)] = l[0]; }",
    "kernel __attribute__((reqd_work_group_size(2048, 1, 1)))"
    " void req2048(global int *p) { p[get_global_id(0)] = 1; }",
    "kernel void fixed(global int *p) { volatile local int x[16];"
    " x[get_local_id(0) & 15] = 1; p[get_global_id(0)] = x[3]; }",
};
static const char *const names[] = {"plain",   "shared",  "required",
                                    "req1024", "req2048", "fixed"};
#define NKERNELS (sizeof names / sizeof names[0])

static int probe(cl_device_id dev)
{
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return printf("clCreateContext: %d\n", err), 1;
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 1 << 20, NULL, &err);
    if (q == NULL || buf == NULL)
        return printf("queue or buffer: %d\n", err), 1;
    for (size_t k = 0; k < NKERNELS; ++k) {
        cl_program p = clCreateProgramWithSource(ctx, 1, &sources[k], NULL,
                                                 &err);
        if (p == NULL || clBuildProgram(p, 1, &dev, "", NULL, NULL) != 0)
            return printf("%s: build failed\n", names[k]), 1;
        cl_kernel kern = clCreateKernel(p, names[k], &err);
        size_t reported = 0, compiled[3] = {0, 0, 0};
        const int shared = k == 1 || k == 3;
        if (kern == NULL
            || clGetKernelWorkGroupInfo(kern, dev, CL_KERNEL_WORK_GROUP_SIZE,
                                        sizeof reported, &reported,
                                        NULL) != 0
            || clGetKernelWorkGroupInfo(kern, dev,
                                        CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                        sizeof compiled, compiled, NULL) != 0
            || clSetKernelArg(kern, 0, sizeof buf, &buf) != 0
            || (shared && clSetKernelArg(kern, 1, 4096, NULL) != 0))
            return printf("%s: kernel setup failed\n", names[k]), 1;
        printf("%-8s reports %4zu, compiled for %zu x %zu x %zu; launches:",
               names[k], reported, compiled[0], compiled[1], compiled[2]);
        const size_t sizes[] = {256, 512, 1024};
        for (int i = 0; i < 3; ++i) {
            const size_t local = sizes[i], global = 4 * sizes[i];
            const cl_int e = clEnqueueNDRangeKernel(q, kern, 1, NULL, &global,
                                                    &local, 0, NULL, NULL);
            printf(" %zu: %d/%d", local, e, clFinish(q));
        }
        printf("\n");
        clReleaseKernel(kern);
        clReleaseProgram(p);
    }
    clReleaseMemObject(buf);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return 0;
}

int main(void)
{
    cl_platform_id platforms[16];
    cl_uint np = 0;
    if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS || np == 0)
        return printf("no OpenCL platform\n"), 1;
    int status = 0;
    for (cl_uint i = 0; i < np && i < 16; ++i) {
        cl_device_id devs[8];
        cl_uint nd = 0;
        char name[256] = "";
        clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name,
                          NULL);
        if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_GPU, 8, devs, &nd)
            != CL_SUCCESS)
            continue;
        for (cl_uint d = 0; d < nd && d < 8; ++d) {
            printf("platform %s, GPU %u:\n", name, d);
            status |= probe(devs[d]);
        }
    }
    return status;
}
