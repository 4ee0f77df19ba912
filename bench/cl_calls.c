/*
 * bench/cl_calls.c - the host's time in each OpenCL entry point histo
 * calls while it enqueues, counted by a library put in front of the ICD
 * loader: where the host's enqueuing paces several devices, it says which
 * calls take the time (docs/design.md, "The host's launches pace several
 * GPUs").
 *
 *   CL_CALLS_OUT=FILE LD_PRELOAD=build/libcl-calls.so ./histo ...
 *
 * At exit, a process that made any of these calls appends to FILE (else
 * writes to standard error) a line "# pid N", then one line an entry
 * point called: its name, calls, total and mean host microseconds.
 * Other processes that inherit LD_PRELOAD (a shell around histo) write
 * nothing. Waits (clWaitForEvents, clFinish) are the devices' time, not
 * the host's work.
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

enum { NCALLS = 16 };
static const char *names[NCALLS];
static double total_us[NCALLS];
static unsigned long calls[NCALLS];

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

__attribute__((destructor)) static void report(void)
{
    unsigned long any = 0;
    for (int i = 0; i < NCALLS; ++i)
        any += calls[i];
    if (any == 0)
        return;
    const char *path = getenv("CL_CALLS_OUT");
    FILE *f = path != NULL ? fopen(path, "a") : stderr;
    if (f == NULL)
        return;
    fprintf(f, "# pid %ld\n", (long)getpid());
    for (int i = 0; i < NCALLS; ++i)
        if (calls[i] > 0)
            fprintf(f, "%-30s %9lu calls %12.1f us %8.2f us/call\n",
                    names[i], calls[i], total_us[i],
                    total_us[i] / (double)calls[i]);
    if (f != stderr)
        fclose(f);
}

/* NAME(PARAMS) timed around the loader's NAME(ARGS), entry I. */
#define TIMED(I, NAME, PARAMS, ARGS)                                       \
    cl_int NAME PARAMS                                                     \
    {                                                                      \
        static cl_int (*next) PARAMS;                                      \
        if (next == NULL) {                                                \
            *(void **)&next = dlsym(RTLD_NEXT, #NAME);                     \
            names[I] = #NAME;                                              \
        }                                                                  \
        if (next == NULL)                                                  \
            return CL_INVALID_OPERATION;                                   \
        const double t0 = now_us();                                        \
        const cl_int status_ = next ARGS;                                  \
        total_us[I] += now_us() - t0;                                      \
        calls[I]++;                                                        \
        return status_;                                                    \
    }

TIMED(0, clEnqueueNDRangeKernel,
      (cl_command_queue q, cl_kernel k, cl_uint dims, const size_t *offset,
       const size_t *global, const size_t *local, cl_uint n,
       const cl_event *wait, cl_event *ev),
      (q, k, dims, offset, global, local, n, wait, ev))
TIMED(1, clEnqueueReadBuffer,
      (cl_command_queue q, cl_mem b, cl_bool block, size_t at, size_t size,
       void *p, cl_uint n, const cl_event *wait, cl_event *ev),
      (q, b, block, at, size, p, n, wait, ev))
TIMED(2, clEnqueueWriteBuffer,
      (cl_command_queue q, cl_mem b, cl_bool block, size_t at, size_t size,
       const void *p, cl_uint n, const cl_event *wait, cl_event *ev),
      (q, b, block, at, size, p, n, wait, ev))
TIMED(3, clEnqueueReadBufferRect,
      (cl_command_queue q, cl_mem b, cl_bool block, const size_t *bo,
       const size_t *ho, const size_t *region, size_t brow, size_t bslice,
       size_t hrow, size_t hslice, void *p, cl_uint n, const cl_event *wait,
       cl_event *ev),
      (q, b, block, bo, ho, region, brow, bslice, hrow, hslice, p, n, wait,
       ev))
TIMED(4, clEnqueueWriteBufferRect,
      (cl_command_queue q, cl_mem b, cl_bool block, const size_t *bo,
       const size_t *ho, const size_t *region, size_t brow, size_t bslice,
       size_t hrow, size_t hslice, const void *p, cl_uint n,
       const cl_event *wait, cl_event *ev),
      (q, b, block, bo, ho, region, brow, bslice, hrow, hslice, p, n, wait,
       ev))
TIMED(5, clFlush, (cl_command_queue q), (q))
TIMED(6, clGetEventInfo,
      (cl_event e, cl_event_info what, size_t size, void *v, size_t *got),
      (e, what, size, v, got))
TIMED(7, clRetainEvent, (cl_event e), (e))
TIMED(8, clReleaseEvent, (cl_event e), (e))
TIMED(9, clWaitForEvents, (cl_uint n, const cl_event *e), (n, e))
TIMED(10, clGetEventProfilingInfo,
      (cl_event e, cl_profiling_info what, size_t size, void *v,
       size_t *got),
      (e, what, size, v, got))
TIMED(11, clSetKernelArg,
      (cl_kernel k, cl_uint i, size_t size, const void *v), (k, i, size, v))
TIMED(12, clEnqueueMarkerWithWaitList,
      (cl_command_queue q, cl_uint n, const cl_event *wait, cl_event *ev),
      (q, n, wait, ev))
TIMED(13, clEnqueueBarrierWithWaitList,
      (cl_command_queue q, cl_uint n, const cl_event *wait, cl_event *ev),
      (q, n, wait, ev))
TIMED(14, clEnqueueFillBuffer,
      (cl_command_queue q, cl_mem b, const void *pattern, size_t psize,
       size_t at, size_t size, cl_uint n, const cl_event *wait,
       cl_event *ev),
      (q, b, pattern, psize, at, size, n, wait, ev))
TIMED(15, clFinish, (cl_command_queue q), (q))
