/*
 * bench/share_probe.c - where the host's enqueues for several GPUs can
 * run (issue 58): a realistic share loop timed on one thread in one
 * context, on a thread a device in one context, on a thread a device
 * each in a context of its own, and (run as one process a device) a
 * process a device; and what combining the shares' 8-bit counters costs
 * where the contexts differ.
 *
 *   build/share-probe MODE PLATFORM DEVICES VALUES TARGET_US [START_MS]
 *
 * MODE: shared (one context over DEVICES: one thread, then a thread a
 * device), own (a thread a device, each in a context of its own, then
 * the combine probes), solo (one device: run one process a device, all
 * given the same START_MS, CLOCK_REALTIME milliseconds, at which the
 * loops start). PLATFORM and DEVICES (comma-separated) as histo --list
 * shows them. VALUES: each share's 32-bit values. TARGET_US: the share
 * kernel's device time, calibrated (its read of the values repeated):
 * the time histo's one-launch kernel takes on such a share.
 *
 * The share loop, ITERS iterations: one launch of the share kernel (no
 * event, queue without profiling; it writes its 2 MiB of counters into
 * set i % 4 of a device buffer of 4 sets), and every 4 iterations the
 * 4 sets copied to pinned host memory on a second queue (one copy, 8
 * MiB, after the 4th launch's event), as histo moves a batch; every 32
 * iterations the host waits for the batch of 32 before (as run.c).
 * Lines "key = value":
 *   ARR.enqueue_us   host time in one clEnqueueNDRangeKernel of the
 *                    loop (the most of any thread), mean
 *   ARR.iter_us      the loop's wall time an iteration (the longest
 *                    thread's)
 *   kernel_us        the share kernel's device time alone (median)
 *   own: h2d_own_us, h2d_other_us, h2d_pageable_us: 2 MiB written into
 *   the first device from pinned memory of its own context, of the
 *   second device's context, and from malloc'd memory (blocking, host
 *   time, median); d2h_us: 2 MiB read from the second device into its
 *   context's pinned memory; host_add_us: 2 MiB added into 2 MiB with
 *   saturation at 255 on the host (one thread).
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROBE_NAME "share-probe"
#include "probe.h"

#define MAX_DEV 16
#ifndef ITERS
#define ITERS 2048
#endif
#define SETS 4
#define NBYTES ((size_t)256 * 8192)

static const char source[] =
    "kernel void share(global const uint4 *in, uint quads, uint rounds,\n"
    "                  global uchar4 *out, uint out_quads) {\n"
    "    uint acc = 0;\n"
    "    for (uint r = 0; r < rounds; ++r)\n"
    "        for (uint i = get_global_id(0); i < quads;\n"
    "             i += get_global_size(0)) {\n"
    "            uint4 v = in[i];\n"
    "            acc += (v.x ^ v.y ^ v.z ^ v.w) + r;\n"
    "        }\n"
    "    for (uint j = get_global_id(0); j < out_quads;\n"
    "         j += get_global_size(0))\n"
    "        out[j] = (uchar4)((uchar)acc, (uchar)(acc >> 8), (uchar)j,\n"
    "                          (uchar)(j >> 8));\n"
    "}\n";


/* One device's share: its context (shared or its own), queues, kernel,
 * values, sums and pinned host memory; the loop's results. */
struct share {
    cl_device_id id;
    cl_context ctx;
    cl_command_queue queue, copy, prof;
    cl_kernel kernel;
    cl_mem values, sums, pinned_mem;
    uint8_t *pinned;
    size_t global, local;
    double enqueue_us, iter_us;
};

static void setup_share(struct share *s, cl_context ctx, cl_program prog,
                        size_t values, cl_uint rounds)
{
    s->ctx = ctx;
    CREATE(s->queue, clCreateCommandQueue(ctx, s->id, 0, &err));
    CREATE(s->copy, clCreateCommandQueue(ctx, s->id, 0, &err));
    CREATE(s->prof, clCreateCommandQueue(ctx, s->id,
                                         CL_QUEUE_PROFILING_ENABLE, &err));
    CREATE(s->kernel, clCreateKernel(prog, "share", &err));
    CREATE(s->values, clCreateBuffer(ctx, CL_MEM_READ_ONLY, values * 4, NULL,
                                     &err));
    CREATE(s->sums, clCreateBuffer(ctx, CL_MEM_READ_WRITE, SETS * NBYTES,
                                   NULL, &err));
    CREATE(s->pinned_mem, clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR,
                                         SETS * NBYTES, NULL, &err));
    CREATE(s->pinned, clEnqueueMapBuffer(s->copy, s->pinned_mem, CL_TRUE,
                                         CL_MAP_READ | CL_MAP_WRITE, 0,
                                         SETS * NBYTES, 0, NULL, NULL, &err));
    const cl_uint v = 7;
    CHECK(clEnqueueFillBuffer(s->queue, s->values, &v, sizeof v, 0,
                              values * 4, 0, NULL, NULL));
    CHECK(clFinish(s->queue));
    cl_uint cus = 1;
    CHECK(clGetDeviceInfo(s->id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus,
                          &cus, NULL));
    s->local = 256;
    s->global = (size_t)cus * 2048;
    const cl_uint quads = (cl_uint)(values / 4);
    const cl_uint out_quads = (cl_uint)(NBYTES / 4);
    CHECK(clSetKernelArg(s->kernel, 0, sizeof(cl_mem), &s->values));
    CHECK(clSetKernelArg(s->kernel, 1, sizeof quads, &quads));
    CHECK(clSetKernelArg(s->kernel, 2, sizeof rounds, &rounds));
    CHECK(clSetKernelArg(s->kernel, 4, sizeof out_quads, &out_quads));
}

/* The kernel's device time on its profiling queue, median of 21. */
static double kernel_us(struct share *s, cl_uint rounds)
{
    double t[21];
    CHECK(clSetKernelArg(s->kernel, 2, sizeof rounds, &rounds));
    cl_mem out = NULL;
    const cl_buffer_region r = {0, NBYTES};
    CREATE(out, clCreateSubBuffer(s->sums, CL_MEM_READ_WRITE,
                                  CL_BUFFER_CREATE_TYPE_REGION, &r, &err));
    CHECK(clSetKernelArg(s->kernel, 3, sizeof out, &out));
    for (int i = 0; i < 21; ++i) {
        cl_event ev;
        CHECK(clEnqueueNDRangeKernel(s->prof, s->kernel, 1, NULL, &s->global,
                                     &s->local, 0, NULL, &ev));
        CHECK(clWaitForEvents(1, &ev));
        cl_ulong a = 0, b = 0;
        CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START,
                                      sizeof a, &a, NULL));
        CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END,
                                      sizeof b, &b, NULL));
        t[i] = (double)(b - a) * 1e-3;
        clReleaseEvent(ev);
    }
    clReleaseMemObject(out);
    return median(t, 21);
}

/* Rounds whose device time is nearest `target` (linear in rounds), or
 * $SHARE_PROBE_ROUNDS where set (processes started together calibrate
 * while the others set up: bench/share-probe.sh gives them the solo
 * run's). */
static cl_uint calibrate(struct share *s, double target, double *got)
{
    const char *fixed = getenv("SHARE_PROBE_ROUNDS");
    const double t1 = kernel_us(s, 1), t2 = kernel_us(s, 2);
    const double per = t2 - t1 > 0.1 ? t2 - t1 : 0.1;
    double r = (target - (t1 - per)) / per + 0.5;
    if (fixed != NULL && *fixed != '\0')
        r = strtod(fixed, NULL);
    const cl_uint rounds = r < 1 ? 1 : (cl_uint)r;
    *got = kernel_us(s, rounds);
    CHECK(clSetKernelArg(s->kernel, 2, sizeof rounds, &rounds));
    return rounds;
}

/* The sets' sub-buffers of a share's sums. */
static void make_sets(struct share *s, cl_mem *set)
{
    for (int k = 0; k < SETS; ++k) {
        const cl_buffer_region r = {(size_t)k * NBYTES, NBYTES};
        CREATE(set[k], clCreateSubBuffer(s->sums, CL_MEM_READ_WRITE,
                                         CL_BUFFER_CREATE_TYPE_REGION, &r,
                                         &err));
    }
}

/* Iteration i of a share: its launch into set i % SETS (timed into
 * *enq), and after each SETS-th the sets' copy to host memory; every 32
 * iterations a marker, the one of 32 before waited for. */
static void step(struct share *s, const cl_mem *set, int i, double *enq,
                 cl_event *batch)
{
    const int k = i % SETS;
    cl_event last = NULL;
    CHECK(clSetKernelArg(s->kernel, 3, sizeof(cl_mem), &set[k]));
    const double t0 = now_us();
    CHECK(clEnqueueNDRangeKernel(s->queue, s->kernel, 1, NULL, &s->global,
                                 &s->local, 0, NULL,
                                 k == SETS - 1 ? &last : NULL));
    *enq += now_us() - t0;
    if (k == SETS - 1) {
        CHECK(clFlush(s->queue));
        CHECK(clEnqueueReadBuffer(s->copy, s->sums, CL_FALSE, 0,
                                  SETS * NBYTES, s->pinned, 1, &last, NULL));
        CHECK(clFlush(s->copy));
        clReleaseEvent(last);
    }
    if (i % 32 == 31) {
        if (batch[1] != NULL) {
            CHECK(clWaitForEvents(1, &batch[1]));
            clReleaseEvent(batch[1]);
        }
        batch[1] = batch[0];
        CHECK(clEnqueueMarkerWithWaitList(s->copy, 0, NULL, &batch[0]));
        CHECK(clFlush(s->copy));
    }
}

static void finish(struct share *s, cl_event *batch)
{
    for (int b = 0; b < 2; ++b)
        if (batch[b] != NULL) {
            CHECK(clWaitForEvents(1, &batch[b]));
            clReleaseEvent(batch[b]);
            batch[b] = NULL;
        }
    CHECK(clFinish(s->queue));
    CHECK(clFinish(s->copy));
}

/* The share loop for n shares on this one thread, device after device
 * each iteration; every share's enqueue_us and iter_us. */
static void loop(struct share *sh, int n)
{
    cl_mem set[MAX_DEV][SETS];
    cl_event batch[MAX_DEV][2];
    double enq[MAX_DEV] = {0};
    memset(batch, 0, sizeof batch);
    for (int d = 0; d < n; ++d)
        make_sets(&sh[d], set[d]);
    const double t0 = now_us();
    for (int i = 0; i < ITERS; ++i)
        for (int d = 0; d < n; ++d)
            step(&sh[d], set[d], i, &enq[d], batch[d]);
    for (int d = 0; d < n; ++d)
        finish(&sh[d], batch[d]);
    const double wall = now_us() - t0;
    for (int d = 0; d < n; ++d) {
        sh[d].enqueue_us = enq[d] / ITERS;
        sh[d].iter_us = wall / ITERS;
        for (int k = 0; k < SETS; ++k)
            clReleaseMemObject(set[d][k]);
    }
}

/* Threads released together (a barrier all threads reach before their
 * loop), so that their loops overlap. */
static pthread_barrier_t start_line;

static void *thread_loop(void *opaque)
{
    pthread_barrier_wait(&start_line);
    loop(opaque, 1);
    return NULL;
}

/* A thread a share, all at once. */
static void threads(struct share *sh, int n)
{
    pthread_t th[MAX_DEV];
    pthread_barrier_init(&start_line, NULL, (unsigned)n);
    for (int d = 0; d < n; ++d)
        if (pthread_create(&th[d], NULL, thread_loop, &sh[d]) != 0)
            exit(1);
    for (int d = 0; d < n; ++d)
        pthread_join(th[d], NULL);
    pthread_barrier_destroy(&start_line);
}

static void print(const char *arr, const struct share *sh, int n)
{
    double enq = 0, iter = 0;
    for (int d = 0; d < n; ++d) {
        enq = sh[d].enqueue_us > enq ? sh[d].enqueue_us : enq;
        iter = sh[d].iter_us > iter ? sh[d].iter_us : iter;
    }
    printf("%s.enqueue_us = %.2f\n%s.iter_us = %.2f\n", arr, enq, arr, iter);
}

static cl_program build(cl_context ctx)
{
    cl_program p;
    const char *src = source;
    CREATE(p, clCreateProgramWithSource(ctx, 1, &src, NULL, &err));
    CHECK(clBuildProgram(p, 0, NULL, "", NULL, NULL));
    return p;
}

/* Blocking 2 MiB copies' host time, median of 41: into the first share's
 * device from `from`, or (to NULL) out of share `s` into its pinned
 * memory. */
static double copy_us(struct share *s, const void *from)
{
    double t[41];
    for (int r = 0; r < 41; ++r) {
        const double t0 = now_us();
        if (from != NULL)
            CHECK(clEnqueueWriteBuffer(s->copy, s->sums, CL_TRUE, 0, NBYTES,
                                       from, 0, NULL, NULL));
        else
            CHECK(clEnqueueReadBuffer(s->copy, s->sums, CL_TRUE, 0, NBYTES,
                                      s->pinned, 0, NULL, NULL));
        t[r] = now_us() - t0;
    }
    return median(t, 41);
}

/* 2 MiB added into 2 MiB with saturation at 255, host time, median of
 * 41: eight counters a 64-bit word (the low seven bits of each added
 * apart from the top bit, a carry out of the top bit saturating the
 * byte). */
static double host_add_us(uint8_t *acc, const uint8_t *part)
{
    const uint64_t lo7 = UINT64_C(0x7f7f7f7f7f7f7f7f), top = ~lo7;
    double t[41];
    for (int r = 0; r < 41; ++r) {
        const double t0 = now_us();
        for (size_t i = 0; i < NBYTES; i += 8) {
            uint64_t a, b;
            memcpy(&a, acc + i, 8);
            memcpy(&b, part + i, 8);
            const uint64_t low = (a & lo7) + (b & lo7);
            const uint64_t sum = low ^ ((a ^ b) & top);
            const uint64_t over = ((a & b) | ((a | b) & ~sum)) & top;
            const uint64_t v = sum | ((over >> 7) * 0xff);
            memcpy(acc + i, &v, 8);
        }
        t[r] = now_us() - t0;
    }
    return median(t, 41);
}

static void combine_probes(struct share *sh, int n)
{
    if (n < 2)
        return;
    uint8_t *plain = malloc(NBYTES);
    if (plain == NULL)
        exit(1);
    memset(plain, 3, NBYTES);
    printf("h2d_own_us = %.2f\n", copy_us(&sh[0], sh[0].pinned));
    printf("h2d_other_us = %.2f\n", copy_us(&sh[0], sh[1].pinned));
    printf("h2d_pageable_us = %.2f\n", copy_us(&sh[0], plain));
    printf("d2h_us = %.2f\n", copy_us(&sh[1], NULL));
    printf("host_add_us = %.2f\n", host_add_us(sh[0].pinned, sh[1].pinned));
    printf("host_add_sum = %u\n", (unsigned)sh[0].pinned[12345]);
    free(plain);
}

/* Sleeps until CLOCK_REALTIME reaches start_ms; late if it had. */
static void wait_start(long long start_ms)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    const long long now = (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
    if (now >= start_ms) {
        printf("late_ms = %lld\n", now - start_ms);
        return;
    }
    const long long ms = start_ms - now;
    const struct timespec d = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&d, NULL);
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: share-probe shared|own|solo PLATFORM "
                        "DEVICES VALUES TARGET_US [START_MS]\n");
        return 2;
    }
    const char *mode = argv[1];
    const size_t values = strtoull(argv[4], NULL, 10) / 4 * 4;
    const double target = strtod(argv[5], NULL);
    cl_platform_id plats[16];
    cl_uint np = 0;
    CHECK(clGetPlatformIDs(16, plats, &np));
    const cl_platform_id plat = plats[atoi(argv[2])];
    cl_device_id all[MAX_DEV];
    cl_uint nall = 0;
    CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, MAX_DEV, all, &nall));
    struct share sh[MAX_DEV];
    memset(sh, 0, sizeof sh);
    int n = 0;
    for (char *p = argv[3]; *p != '\0' && n < MAX_DEV; ++n) {
        char *end;
        sh[n].id = all[strtoul(p, &end, 10) % nall];
        p = *end == ',' ? end + 1 : end;
    }
    cl_context shared_ctx = NULL;
    cl_program shared_prog = NULL;
    cl_uint rounds = 1;
    double got = 0;
    for (int d = 0; d < n; ++d) {
        cl_context ctx;
        cl_program prog;
        if (strcmp(mode, "shared") == 0 && shared_ctx != NULL) {
            ctx = shared_ctx;
            prog = shared_prog;
        } else {
            cl_device_id ids[MAX_DEV];
            const int m = strcmp(mode, "shared") == 0 ? n : 1;
            for (int i = 0; i < m; ++i)
                ids[i] = m == 1 ? sh[d].id : sh[i].id;
            CREATE(ctx, clCreateContext(NULL, (cl_uint)m, ids, NULL, NULL,
                                        &err));
            prog = build(ctx);
            shared_ctx = ctx;
            shared_prog = prog;
        }
        setup_share(&sh[d], ctx, prog, values, rounds);
        if (d == 0)
            rounds = calibrate(&sh[0], target, &got);
        CHECK(clSetKernelArg(sh[d].kernel, 2, sizeof rounds, &rounds));
    }
    printf("values = %zu\nrounds = %u\nkernel_us = %.2f\n", values, rounds,
           got);
    if (strcmp(mode, "shared") == 0) {
        loop(sh, n);
        print("one_thread_shared", sh, n);
        threads(sh, n);
        print("threads_shared", sh, n);
    } else if (strcmp(mode, "own") == 0) {
        threads(sh, n);
        print("threads_own", sh, n);
        combine_probes(sh, n);
    } else {
        if (argc > 6)
            wait_start(atoll(argv[6]));
        loop(sh, 1);
        print("solo", sh, 1);
    }
    return 0;
}
