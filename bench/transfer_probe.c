/*
 * bench/transfer_probe.c - what moving one partial histogram between two
 * devices of one context costs, each path alone, on one OpenCL platform
 * (issue 42's breakdown of an iteration on several devices).
 *
 *   build/transfer-probe PLATFORM DEVICES [NBYTES [RUNS]]
 *       (PLATFORM and the comma-separated DEVICES as histo --list shows
 *        them, at least two; NBYTES = 256 * 8192, the partial of the
 *        default histogram, 4096 at least; RUNS = 200)
 *
 * One context over the devices, as histo makes. Every figure is a median
 * over RUNS, in microseconds, on one line "key = value":
 *   finish_empty_us      host: clFinish of an empty queue
 *   kernel_finish_us     host: one small kernel enqueued, then clFinish
 *   enqueue_kernel_us    host: one clEnqueueNDRangeKernel, not waited for
 *   flush_us             host: clFlush of a queue holding one kernel
 *   d2d_copy_us          device: NBYTES copied within the first device
 *   d2h_us               device: NBYTES from the second device into
 *                        pinned host memory (a mapped ALLOC_HOST_PTR buffer)
 *   h2d_us               device: NBYTES from pinned host memory into the
 *                        first device
 *   chain_host_us        host: the two copies above, one after the other
 *                        through an event, enqueued and waited for
 *   chain_pipelined_us   host: RUNS such chains back to back, each of its
 *                        own pair of buffers of two, over RUNS
 *   gather_pipelined_us  the same from every other device into the first
 *                        at once (DEVICES - 1 chains a round), over RUNS
 *   implicit_host_us     host: a kernel on the second device writes a
 *                        buffer, a kernel on the first reads it (the
 *                        implementation moves it), both waited for
 *   implicit_kernel_us   device: the reading kernel's own time in that
 *   implicit_pipelined_us host: RUNS such pairs back to back through
 *                        events, over RUNS
 *   touch_kernel_us      device: the writing kernel alone on one device
 *   cross_wait_enqueue_us host: enqueuing a copy on the first device that
 *                        waits for the last of 200 kernels just enqueued
 *                        on the second (near cross_wait_total_us: the
 *                        enqueue blocks until the other device is done)
 *   cross_wait_total_us  host: from that enqueue to the copy's end
 *   serial_enqueue_us    host: one thread enqueues ENQ small kernels on
 *                        each device's queue in turn, an event each: per
 *                        enqueue
 *   parallel_enqueue_us  host: a thread a device, each enqueuing ENQ
 *                        kernels on its own device at once: per enqueue
 *                        of one thread (equal to serial: the threads do
 *                        not slow each other)
 *   parallel_wait_enqueue_us   the same while one more thread waits in
 *                        clWaitForEvents for a long run of kernels
 *   parallel_poll_enqueue_us   ... while it polls the event's status
 *   enq_{prof,plain}_{event,none}_us  host: one small kernel enqueued,
 *                        ENQ a device in turn, on a queue with profiling
 *                        (prof) or without (plain), with an event or none
 *   enq_read_{event,none}_us   the same for a 4 KiB copy to pinned memory
 *   enq_wait1_event_us   a kernel that waits for a done event of the same
 *                        device (another queue), with an event
 *   enq_prof_event_flush_us    enq_prof_event_us with a flush after each
 *   event_status_us, event_profile_us, event_release_us   host: a done
 *                        event's status, its start and end, its release
 *   set_arg_us           host: one clSetKernelArg of a buffer
 *   pending_wait_{read,kernel}_us  host: enqueuing a 4 KiB copy (or a
 *                        small kernel) that waits for a kernel still
 *                        running on another queue of the same device
 *                        (pending_spin_us long): near it, the enqueue
 *                        blocks until that kernel ends
 *   enq_{read,write}{,_rect,_rect_gaps}_us  host: enqueuing one NBYTES
 *                        copy between the second device and pinned
 *                        memory, not waited for: plain, as a rectangle of
 *                        4 rows, and of 4 half rows with gaps (near
 *                        copy_*_us, the same command enqueued and
 *                        finished: the enqueue waits for the copy)
 *   enq_args{1,8}_{all,one}_us  host: one launch, on a queue without
 *                        profiling and no event, of a kernel of one
 *                        buffer argument or eight, in the context of
 *                        every device or of the first alone
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROBE_NAME "transfer-probe"
#include "probe.h"

#define MAX_DEVICES 16

static const char source[] =
    "kernel void touch(global uint4 *b, uint quads, uint v) {\n"
    "    for (uint i = get_global_id(0); i < quads; i += get_global_size(0))\n"
    "        b[i] = (uint4)(v + i);\n"
    "}\n"
    "kernel void spin(global uint *b, uint n) {\n"
    "    uint v = b[0];\n"
    "    for (uint i = 0; i < n; ++i) v = v * 3u + 1u;\n"
    "    b[0] = v;\n"
    "}\n"
    "kernel void add(global uint4 *acc, global const uint4 *part, uint quads) {\n"
    "    for (uint i = get_global_id(0); i < quads; i += get_global_size(0))\n"
    "        acc[i] += part[i];\n"
    "}\n"
    "kernel void args8(global uint *a, global uint *b, global uint *c,\n"
    "                  global uint *d, global uint *e, global uint *f,\n"
    "                  global uint *g, global uint *h, uint v) {\n"
    "    if (get_global_id(0) == 0)\n"
    "        a[0] = b[0] + c[0] + d[0] + e[0] + f[0] + g[0] + h[0] + v;\n"
    "}\n";


static double event_us(cl_event ev)
{
    cl_ulong t0 = 0, t1 = 0;
    CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0,
                                  &t0, NULL));
    CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1,
                                  &t1, NULL));
    return (double)(t1 - t0) * 1e-3;
}

/* Small kernels a thread enqueues in the parallel probes. */
#define ENQ 400

struct dev;
struct enq_arg {
    cl_command_queue queue;
    cl_kernel kernel;
    size_t group;
    double per_us;             /* out: host time per enqueue           */
};

/* ENQ kernels on one queue, an event each (released), then a finish. */
static void *enqueue_run(void *opaque)
{
    struct enq_arg *a = opaque;
    const double t0 = now_us();
    for (int r = 0; r < ENQ; ++r) {
        cl_event ev;
        CHECK(clEnqueueNDRangeKernel(a->queue, a->kernel, 1, NULL, &a->group,
                                     &a->group, 0, NULL, &ev));
        clReleaseEvent(ev);
    }
    a->per_us = (now_us() - t0) / ENQ;
    CHECK(clFinish(a->queue));
    return NULL;
}

struct waiter {
    cl_event event;
    int poll;
};

static void *wait_run(void *opaque)
{
    struct waiter *wt = opaque;
    if (!wt->poll) {
        CHECK(clWaitForEvents(1, &wt->event));
        return NULL;
    }
    for (;;) {
        cl_int st = CL_QUEUED;
        CHECK(clGetEventInfo(wt->event, CL_EVENT_COMMAND_EXECUTION_STATUS,
                             sizeof st, &st, NULL));
        if (st <= CL_COMPLETE)
            break;
        sched_yield();
    }
    return NULL;
}

struct dev {
    cl_device_id id;
    cl_command_queue queue, copy;
    cl_mem part[2], land[2];   /* device buffers of NBYTES             */
    cl_mem pinned_mem[2];
    void *pinned[2];           /* mapped: host memory the driver pins  */
};

/* Host time per round of `runs` rounds enqueued back to back, each
 * round copying every sender's (devices 1..senders) partial into the
 * first device through pinned memory: round r uses buffers r % 2, and
 * its read waits, through an event, for round r - 2's write of them. */
static double gather(struct dev *d, int senders, size_t nbytes, int runs)
{
    const size_t m = (size_t)runs * (size_t)(senders + 1);
    cl_event *rd = calloc(m, sizeof *rd), *wr = calloc(m, sizeof *wr);
    if (rd == NULL || wr == NULL) {
        fprintf(stderr, "transfer-probe: out of memory\n");
        exit(1);
    }
    const int stride = senders + 1;
    const double t0 = now_us();
    for (int r = 0; r < runs; ++r) {
        const int b = r % 2;
        for (int s = 1; s <= senders; ++s) {
            const int e = r * stride + s;
            CHECK(clEnqueueReadBuffer(d[s].copy, d[s].part[b], CL_FALSE, 0,
                                      nbytes, d[s].pinned[b], r >= 2,
                                      r >= 2 ? &wr[e - 2 * stride] : NULL,
                                      &rd[e]));
            CHECK(clFlush(d[s].copy));
            CHECK(clEnqueueWriteBuffer(d[0].copy, d[s].land[b], CL_FALSE, 0,
                                       nbytes, d[s].pinned[b], 1, &rd[e],
                                       &wr[e]));
        }
        CHECK(clFlush(d[0].copy));
    }
    for (size_t e = 0; e < m; ++e)
        if (wr[e] != NULL)
            CHECK(clWaitForEvents(1, &wr[e]));
    const double per = (now_us() - t0) / runs;
    for (size_t e = 0; e < m; ++e) {
        if (rd[e] != NULL)
            clReleaseEvent(rd[e]);
        if (wr[e] != NULL)
            clReleaseEvent(wr[e]);
    }
    free(rd);
    free(wr);
    return per;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: transfer-probe PLATFORM DEVICES [NBYTES "
                        "[RUNS]]\n");
        return 2;
    }
    const unsigned platform_index = (unsigned)strtoul(argv[1], NULL, 10);
    const size_t nbytes = argc > 3 ? strtoul(argv[3], NULL, 10)
                                   : (size_t)256 * 8192;
    const int runs = argc > 4 ? atoi(argv[4]) : 200;
    /* the host-cost sections copy 4 KiB of a partial */
    if (nbytes < 4096 || nbytes % 16 != 0 || runs < 1) {
        fprintf(stderr, "transfer-probe: NBYTES a multiple of 16 of at "
                        "least 4096, RUNS at least 1\n");
        return 2;
    }
    cl_platform_id platforms[16];
    cl_uint np = 0;
    CHECK(clGetPlatformIDs(16, platforms, &np));
    if (platform_index >= np) {
        fprintf(stderr, "transfer-probe: no platform %u\n", platform_index);
        return 2;
    }
    cl_device_id all[MAX_DEVICES];
    cl_uint nall = 0;
    CHECK(clGetDeviceIDs(platforms[platform_index], CL_DEVICE_TYPE_ALL,
                         MAX_DEVICES, all, &nall));
    struct dev d[MAX_DEVICES];
    cl_device_id ids[MAX_DEVICES];
    int n = 0;
    for (char *item = strtok(argv[2], ","); item != NULL && n < MAX_DEVICES;
         item = strtok(NULL, ",")) {
        const unsigned i = (unsigned)strtoul(item, NULL, 10);
        if (i >= nall) {
            fprintf(stderr, "transfer-probe: no device %u\n", i);
            return 2;
        }
        memset(&d[n], 0, sizeof d[n]);
        d[n].id = all[i];
        ++n;
    }
    if (n < 2) {
        fprintf(stderr, "transfer-probe: name two devices or more\n");
        return 2;
    }
    /* a device named twice (one device of a CPU platform) is in the
     * context once */
    cl_uint nids = 0;
    for (int i = 0; i < n; ++i) {
        cl_uint j = 0;
        while (j < nids && ids[j] != d[i].id)
            ++j;
        if (j == nids)
            ids[nids++] = d[i].id;
    }
    cl_context ctx;
    CREATE(ctx, clCreateContext(NULL, nids, ids, NULL, NULL, &err));
    cl_program prog;
    const char *src = source;
    CREATE(prog, clCreateProgramWithSource(ctx, 1, &src, NULL, &err));
    CHECK(clBuildProgram(prog, 0, NULL, "", NULL, NULL));
    const cl_uint quads = (cl_uint)(nbytes / 16);
    const size_t global = 132 * 256, group = 256;
    for (int i = 0; i < n; ++i) {
        CREATE(d[i].queue, clCreateCommandQueue(ctx, d[i].id,
                                                CL_QUEUE_PROFILING_ENABLE,
                                                &err));
        CREATE(d[i].copy, clCreateCommandQueue(ctx, d[i].id,
                                               CL_QUEUE_PROFILING_ENABLE,
                                               &err));
        for (int b = 0; b < 2; ++b) {
            CREATE(d[i].part[b], clCreateBuffer(ctx, CL_MEM_READ_WRITE,
                                                nbytes, NULL, &err));
            CREATE(d[i].land[b], clCreateBuffer(ctx, CL_MEM_READ_WRITE,
                                                nbytes, NULL, &err));
            CREATE(d[i].pinned_mem[b],
                   clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR
                                  | CL_MEM_READ_WRITE, nbytes, NULL, &err));
            CREATE(d[i].pinned[b],
                   clEnqueueMapBuffer(d[0].queue, d[i].pinned_mem[b], CL_TRUE,
                                      CL_MAP_READ | CL_MAP_WRITE, 0, nbytes,
                                      0, NULL, NULL, &err));
        }
    }
    cl_kernel touch[MAX_DEVICES], add[MAX_DEVICES];
    for (int i = 0; i < n; ++i) {
        CREATE(touch[i], clCreateKernel(prog, "touch", &err));
        CREATE(add[i], clCreateKernel(prog, "add", &err));
    }
    /* every buffer used once on the device that uses it from now on */
    for (int i = 0; i < n; ++i) {
        for (int b = 0; b < 2; ++b) {
            const cl_uint v = (cl_uint)(i * 2 + b);
            CHECK(clSetKernelArg(touch[i], 0, sizeof(cl_mem), &d[i].part[b]));
            CHECK(clSetKernelArg(touch[i], 1, sizeof quads, &quads));
            CHECK(clSetKernelArg(touch[i], 2, sizeof v, &v));
            CHECK(clEnqueueNDRangeKernel(d[i].queue, touch[i], 1, NULL,
                                         &global, &group, 0, NULL, NULL));
            CHECK(clSetKernelArg(touch[i], 0, sizeof(cl_mem), &d[i].land[b]));
            CHECK(clEnqueueNDRangeKernel(d[i].queue, touch[i], 1, NULL,
                                         &global, &group, 0, NULL, NULL));
        }
        CHECK(clFinish(d[i].queue));
    }
    double *v = malloc(sizeof *v * (size_t)runs);
    double *w = malloc(sizeof *w * (size_t)runs);
    if (v == NULL || w == NULL)
        return 1;
    const int warm = runs < 10 ? runs : 10;

    /* host costs */
    for (int r = 0; r < runs; ++r) {
        const double t0 = now_us();
        CHECK(clFinish(d[0].queue));
        v[r] = now_us() - t0;
    }
    printf("finish_empty_us = %.2f\n", median(v, runs));
    CHECK(clSetKernelArg(touch[0], 0, sizeof(cl_mem), &d[0].part[0]));
    for (int r = 0; r < runs + warm; ++r) {
        const double t0 = now_us();
        CHECK(clEnqueueNDRangeKernel(d[0].queue, touch[0], 1, NULL, &group,
                                     &group, 0, NULL, NULL));
        const double t1 = now_us();
        CHECK(clFlush(d[0].queue));
        const double t2 = now_us();
        CHECK(clFinish(d[0].queue));
        if (r >= warm) {
            v[r - warm] = t1 - t0;
            w[r - warm] = t2 - t1;
        }
    }
    printf("enqueue_kernel_us = %.2f\n", median(v, runs));
    printf("flush_us = %.2f\n", median(w, runs));
    for (int r = 0; r < runs + warm; ++r) {
        const double t0 = now_us();
        CHECK(clEnqueueNDRangeKernel(d[0].queue, touch[0], 1, NULL, &group,
                                     &group, 0, NULL, NULL));
        CHECK(clFinish(d[0].queue));
        if (r >= warm)
            v[r - warm] = now_us() - t0;
    }
    printf("kernel_finish_us = %.2f\n", median(v, runs));
    CHECK(clSetKernelArg(touch[0], 0, sizeof(cl_mem), &d[0].land[0]));
    for (int r = 0; r < runs + warm; ++r) {
        cl_event ev;
        CHECK(clEnqueueNDRangeKernel(d[0].queue, touch[0], 1, NULL, &global,
                                     &group, 0, NULL, &ev));
        CHECK(clWaitForEvents(1, &ev));
        if (r >= warm)
            v[r - warm] = event_us(ev);
        clReleaseEvent(ev);
    }
    printf("touch_kernel_us = %.2f\n", median(v, runs));

    /* explicit copies, each alone */
    for (int r = 0; r < runs + warm; ++r) {
        cl_event ev;
        CHECK(clEnqueueCopyBuffer(d[0].queue, d[0].part[0], d[0].land[0], 0, 0,
                                  nbytes, 0, NULL, &ev));
        CHECK(clWaitForEvents(1, &ev));
        if (r >= warm)
            v[r - warm] = event_us(ev);
        clReleaseEvent(ev);
    }
    printf("d2d_copy_us = %.2f\n", median(v, runs));
    for (int r = 0; r < runs + warm; ++r) {
        cl_event ev;
        CHECK(clEnqueueReadBuffer(d[1].copy, d[1].part[0], CL_FALSE, 0, nbytes,
                                  d[1].pinned[0], 0, NULL, &ev));
        CHECK(clWaitForEvents(1, &ev));
        if (r >= warm)
            v[r - warm] = event_us(ev);
        clReleaseEvent(ev);
    }
    printf("d2h_us = %.2f\n", median(v, runs));
    for (int r = 0; r < runs + warm; ++r) {
        cl_event ev;
        CHECK(clEnqueueWriteBuffer(d[0].copy, d[0].land[0], CL_FALSE, 0,
                                   nbytes, d[1].pinned[0], 0, NULL, &ev));
        CHECK(clWaitForEvents(1, &ev));
        if (r >= warm)
            v[r - warm] = event_us(ev);
        clReleaseEvent(ev);
    }
    printf("h2d_us = %.2f\n", median(v, runs));

    /* the chain, waited for each time */
    for (int r = 0; r < runs + warm; ++r) {
        cl_event rd, wr;
        const double t0 = now_us();
        CHECK(clEnqueueReadBuffer(d[1].copy, d[1].part[0], CL_FALSE, 0, nbytes,
                                  d[1].pinned[0], 0, NULL, &rd));
        CHECK(clFlush(d[1].copy));
        CHECK(clEnqueueWriteBuffer(d[0].copy, d[0].land[0], CL_FALSE, 0,
                                   nbytes, d[1].pinned[0], 1, &rd, &wr));
        CHECK(clFlush(d[0].copy));
        CHECK(clWaitForEvents(1, &wr));
        if (r >= warm)
            v[r - warm] = now_us() - t0;
        clReleaseEvent(rd);
        clReleaseEvent(wr);
    }
    printf("chain_host_us = %.2f\n", median(v, runs));

    gather(d, n - 1, nbytes, warm); /* landing buffers onto device 0 */
    printf("chain_pipelined_us = %.2f\n", gather(d, 1, nbytes, runs));
    printf("gather_pipelined_us = %.2f\n", gather(d, n - 1, nbytes, runs));

    /* implicit migration: written on device 1, read on device 0 */
    CHECK(clSetKernelArg(touch[1], 0, sizeof(cl_mem), &d[1].part[1]));
    CHECK(clSetKernelArg(add[0], 0, sizeof(cl_mem), &d[0].land[1]));
    CHECK(clSetKernelArg(add[0], 1, sizeof(cl_mem), &d[1].part[1]));
    CHECK(clSetKernelArg(add[0], 2, sizeof quads, &quads));
    for (int r = 0; r < runs + warm; ++r) {
        cl_event wrote, read;
        const cl_uint val = (cl_uint)r;
        CHECK(clSetKernelArg(touch[1], 2, sizeof val, &val));
        const double t0 = now_us();
        CHECK(clEnqueueNDRangeKernel(d[1].queue, touch[1], 1, NULL, &global,
                                     &group, 0, NULL, &wrote));
        CHECK(clFlush(d[1].queue));
        CHECK(clEnqueueNDRangeKernel(d[0].queue, add[0], 1, NULL, &global,
                                     &group, 1, &wrote, &read));
        CHECK(clFlush(d[0].queue));
        CHECK(clWaitForEvents(1, &read));
        if (r >= warm) {
            v[r - warm] = now_us() - t0;
            w[r - warm] = event_us(read);
        }
        clReleaseEvent(wrote);
        clReleaseEvent(read);
    }
    printf("implicit_host_us = %.2f\n", median(v, runs));
    printf("implicit_kernel_us = %.2f\n", median(w, runs));
    {
        cl_event prev = NULL;
        const double t0 = now_us();
        for (int r = 0; r < runs; ++r) {
            cl_event wrote, read;
            CHECK(clEnqueueNDRangeKernel(d[1].queue, touch[1], 1, NULL,
                                         &global, &group, prev != NULL,
                                         prev != NULL ? &prev : NULL,
                                         &wrote));
            CHECK(clFlush(d[1].queue));
            CHECK(clEnqueueNDRangeKernel(d[0].queue, add[0], 1, NULL, &global,
                                         &group, 1, &wrote, &read));
            CHECK(clFlush(d[0].queue));
            clReleaseEvent(wrote);
            if (prev != NULL)
                clReleaseEvent(prev);
            prev = read;
        }
        CHECK(clWaitForEvents(1, &prev));
        printf("implicit_pipelined_us = %.2f\n", (now_us() - t0) / runs);
        clReleaseEvent(prev);
    }
    /* does an enqueue that waits for another device's unfinished event
     * return at once? a long run of kernels on the second device, then a
     * copy on the first that waits for its last */
    {
        cl_event last = NULL;
        CHECK(clSetKernelArg(touch[1], 0, sizeof(cl_mem), &d[1].part[0]));
        for (int r = 0; r < 200; ++r) {
            if (last != NULL)
                clReleaseEvent(last);
            CHECK(clEnqueueNDRangeKernel(d[1].queue, touch[1], 1, NULL,
                                         &global, &group, 0, NULL, &last));
        }
        CHECK(clFlush(d[1].queue));
        cl_event wr;
        const double t0 = now_us();
        CHECK(clEnqueueWriteBuffer(d[0].copy, d[0].land[0], CL_FALSE, 0,
                                   nbytes, d[1].pinned[0], 1, &last, &wr));
        const double t1 = now_us();
        CHECK(clFlush(d[0].copy));
        CHECK(clWaitForEvents(1, &wr));
        const double t2 = now_us();
        printf("cross_wait_enqueue_us = %.2f\ncross_wait_total_us = %.2f\n",
               t1 - t0, t2 - t0);
        clReleaseEvent(last);
        clReleaseEvent(wr);
    }
    for (int i = 0; i < n; ++i) {
        CHECK(clFinish(d[i].queue));
        CHECK(clFinish(d[i].copy));
    }
    /* the host's cost of one command, as an iteration pays it: ENQ
     * commands on each device's queue in turn (small ones, so that the
     * devices keep up), on a queue with profiling and on one without,
     * with an event or none */
    {
        cl_command_queue plain[MAX_DEVICES];
        for (int i = 0; i < n; ++i)
            CREATE(plain[i], clCreateCommandQueue(ctx, d[i].id, 0, &err));
        cl_event *evs = calloc((size_t)ENQ * (size_t)n, sizeof *evs);
        if (evs == NULL)
            return 1;
        for (int i = 0; i < n; ++i)
            CHECK(clSetKernelArg(touch[i], 0, sizeof(cl_mem), &d[i].part[0]));
        const char *names[] = {"enq_prof_event_us", "enq_prof_none_us",
                               "enq_plain_event_us", "enq_plain_none_us",
                               "enq_read_event_us", "enq_read_none_us",
                               "enq_wait1_event_us", "enq_prof_event_flush_us"};
        cl_event done = NULL;
        CHECK(clEnqueueMarkerWithWaitList(d[0].copy, 0, NULL, &done));
        CHECK(clFinish(d[0].copy));
        for (int mode = 0; mode < 8; ++mode) {
            for (int rep = 0; rep < 2; ++rep) { /* the first warms up */
                size_t m = 0;
                const double t0 = now_us();
                for (int r = 0; r < ENQ; ++r)
                    for (int i = 0; i < n; ++i) {
                        const int prof = mode != 2 && mode != 3;
                        cl_command_queue q = prof ? d[i].queue : plain[i];
                        const int event = mode % 2 == 0 || mode == 7;
                        cl_event *ev = event ? &evs[m++] : NULL;
                        if (mode == 4 || mode == 5)
                            CHECK(clEnqueueReadBuffer(q, d[i].part[0],
                                                      CL_FALSE, 0, 4096,
                                                      d[i].pinned[0], 0, NULL,
                                                      ev));
                        else if (mode == 6)
                            CHECK(clEnqueueNDRangeKernel(q, touch[i], 1, NULL,
                                                         &group, &group, 1,
                                                         &done, ev));
                        else
                            CHECK(clEnqueueNDRangeKernel(q, touch[i], 1, NULL,
                                                         &group, &group, 0,
                                                         NULL, ev));
                        if (mode == 7)
                            CHECK(clFlush(q));
                    }
                const double per = (now_us() - t0) / (ENQ * n);
                for (int i = 0; i < n; ++i) {
                    CHECK(clFinish(d[i].queue));
                    CHECK(clFinish(plain[i]));
                }
                if (rep == 1)
                    printf("%s = %.2f\n", names[mode], per);
                if (rep == 1 && mode == 0) {
                    /* what the host pays to read and drop them */
                    double t1 = now_us();
                    for (size_t e = 0; e < m; ++e) {
                        cl_int st;
                        CHECK(clGetEventInfo(evs[e],
                                             CL_EVENT_COMMAND_EXECUTION_STATUS,
                                             sizeof st, &st, NULL));
                    }
                    printf("event_status_us = %.2f\n", (now_us() - t1) / m);
                    t1 = now_us();
                    for (size_t e = 0; e < m; ++e)
                        (void)event_us(evs[e]);
                    printf("event_profile_us = %.2f\n", (now_us() - t1) / m);
                    t1 = now_us();
                    for (size_t e = 0; e < m; ++e)
                        clReleaseEvent(evs[e]);
                    printf("event_release_us = %.2f\n", (now_us() - t1) / m);
                    m = 0;
                }
                for (size_t e = 0; e < m; ++e)
                    clReleaseEvent(evs[e]);
            }
        }
        const double t1 = now_us();
        for (int r = 0; r < ENQ; ++r)
            for (int i = 0; i < n; ++i)
                CHECK(clSetKernelArg(touch[i], 0, sizeof(cl_mem),
                                     &d[i].part[r % 2]));
        printf("set_arg_us = %.2f\n", (now_us() - t1) / (ENQ * n));
        clReleaseEvent(done);
        free(evs);
        for (int i = 0; i < n; ++i)
            clReleaseCommandQueue(plain[i]);
    }
    /* does an enqueue that waits for a pending event of the same device
     * (another queue) return at once? a kernel of one work-item's loop
     * on the counting queue, then a copy (or a kernel) on a second queue
     * that waits for it: the enqueue's host time, and the loop's */
    {
        cl_kernel spin;
        CREATE(spin, clCreateKernel(prog, "spin", &err));
        const size_t one = 1;
        const cl_uint trips = 1u << 17;
        CHECK(clSetKernelArg(spin, 0, sizeof(cl_mem), &d[0].land[1]));
        CHECK(clSetKernelArg(spin, 1, sizeof trips, &trips));
        CHECK(clSetKernelArg(touch[0], 0, sizeof(cl_mem), &d[0].part[0]));
        double *u = malloc(sizeof *u * 40), *x = malloc(sizeof *x * 40);
        for (int kind = 0; kind < 2; ++kind) {
            for (int r = 0; r < 40; ++r) {
                cl_event sp, after;
                CHECK(clEnqueueNDRangeKernel(d[0].queue, spin, 1, NULL, &one,
                                             &one, 0, NULL, &sp));
                CHECK(clFlush(d[0].queue));
                const double t0 = now_us();
                if (kind == 0)
                    CHECK(clEnqueueReadBuffer(d[0].copy, d[0].part[0],
                                              CL_FALSE, 0, 4096,
                                              d[0].pinned[0], 1, &sp,
                                              &after));
                else
                    CHECK(clEnqueueNDRangeKernel(d[0].copy, touch[0], 1, NULL,
                                                 &group, &group, 1, &sp,
                                                 &after));
                u[r] = now_us() - t0;
                CHECK(clFlush(d[0].copy));
                CHECK(clWaitForEvents(1, &after));
                x[r] = event_us(sp);
                clReleaseEvent(sp);
                clReleaseEvent(after);
            }
            printf("%s = %.2f\n", kind == 0 ? "pending_wait_read_us"
                                            : "pending_wait_kernel_us",
                   median(u, 40));
        }
        printf("pending_spin_us = %.2f\n", median(x, 40));
        free(u);
        free(x);
        clReleaseKernel(spin);
    }
    /* the host's cost of enqueuing one NBYTES copy between the second
     * device and pinned host memory, not waited for, plain and as a
     * rectangle (4 rows, contiguous, and 4 rows of half a row each with
     * gaps between them, as a batch of slices): near the copy's own
     * time, the enqueue waits for the copy */
    {
        const char *names[] = {"read", "read_rect", "read_rect_gaps",
                               "write", "write_rect", "write_rect_gaps"};
        const size_t row = nbytes / 4;
        double *u = malloc(sizeof *u * 40);
        double *x = malloc(sizeof *x * 40);
        if (u == NULL || x == NULL)
            return 1;
        for (int kind = 0; kind < 6; ++kind) {
            const int write = kind >= 3, shape = kind % 3;
            const size_t origin[3] = {0, 0, 0};
            const size_t region[3] = {shape == 2 ? row / 2 : row, 4, 1};
            for (int r = 0; r < 40; ++r) {
                const double t0 = now_us();
                cl_mem b = d[1].part[0];
                void *h = d[1].pinned[0];
                if (shape == 0 && write)
                    CHECK(clEnqueueWriteBuffer(d[1].copy, b, CL_FALSE, 0,
                                               nbytes, h, 0, NULL, NULL));
                else if (shape == 0)
                    CHECK(clEnqueueReadBuffer(d[1].copy, b, CL_FALSE, 0,
                                              nbytes, h, 0, NULL, NULL));
                else if (write)
                    CHECK(clEnqueueWriteBufferRect(d[1].copy, b, CL_FALSE,
                                                   origin, origin, region,
                                                   row, 0, row, 0, h, 0,
                                                   NULL, NULL));
                else
                    CHECK(clEnqueueReadBufferRect(d[1].copy, b, CL_FALSE,
                                                  origin, origin, region,
                                                  row, 0, row, 0, h, 0,
                                                  NULL, NULL));
                const double t1 = now_us();
                CHECK(clFinish(d[1].copy));
                u[r] = t1 - t0;
                x[r] = now_us() - t0;
            }
            printf("enq_%s_us = %.2f\n", names[kind], median(u, 40));
            printf("copy_%s_us = %.2f\n", names[kind], median(x, 40));
        }
        free(u);
        free(x);
    }
    /* what a launch's host cost grows with: ENQ launches of a kernel of
     * one buffer argument and of eight, on a queue without profiling,
     * no event, in this context of every device and in one of the first
     * device alone */
    {
        cl_context one;
        CREATE(one, clCreateContext(NULL, 1, &d[0].id, NULL, NULL, &err));
        cl_program p1;
        CREATE(p1, clCreateProgramWithSource(one, 1, &src, NULL, &err));
        CHECK(clBuildProgram(p1, 0, NULL, "", NULL, NULL));
        for (int c = 0; c < 2; ++c) {
            cl_context cx = c == 0 ? ctx : one;
            cl_program px = c == 0 ? prog : p1;
            cl_command_queue q;
            CREATE(q, clCreateCommandQueue(cx, d[0].id, 0, &err));
            cl_mem bufs[8];
            for (int b = 0; b < 8; ++b)
                CREATE(bufs[b], clCreateBuffer(cx, CL_MEM_READ_WRITE, nbytes,
                                               NULL, &err));
            cl_kernel k1, k8;
            CREATE(k1, clCreateKernel(px, "touch", &err));
            CREATE(k8, clCreateKernel(px, "args8", &err));
            /* touch writes 4 quads at most, within any NBYTES */
            const cl_uint zero = 0, few = quads < 4 ? quads : 4;
            CHECK(clSetKernelArg(k1, 0, sizeof(cl_mem), &bufs[0]));
            CHECK(clSetKernelArg(k1, 1, sizeof few, &few));
            CHECK(clSetKernelArg(k1, 2, sizeof zero, &zero));
            for (int b = 0; b < 8; ++b)
                CHECK(clSetKernelArg(k8, (cl_uint)b, sizeof(cl_mem),
                                     &bufs[b]));
            CHECK(clSetKernelArg(k8, 8, sizeof zero, &zero));
            for (int kind = 0; kind < 2; ++kind)
                for (int rep = 0; rep < 2; ++rep) {
                    const double t0 = now_us();
                    for (int r = 0; r < ENQ; ++r)
                        CHECK(clEnqueueNDRangeKernel(q, kind ? k8 : k1, 1,
                                                     NULL, &group, &group, 0,
                                                     NULL, NULL));
                    const double per = (now_us() - t0) / ENQ;
                    CHECK(clFinish(q));
                    if (rep == 1)
                        printf("enq_args%d_%s_us = %.2f\n", kind ? 8 : 1,
                               c == 0 ? "all" : "one", per);
                }
            clReleaseKernel(k1);
            clReleaseKernel(k8);
            for (int b = 0; b < 8; ++b)
                clReleaseMemObject(bufs[b]);
            clReleaseCommandQueue(q);
        }
        clReleaseProgram(p1);
        clReleaseContext(one);
    }
    /* enqueuing from several threads at once */
    {
        cl_kernel spin;
        CREATE(spin, clCreateKernel(prog, "spin", &err));
        struct enq_arg a[MAX_DEVICES];
        for (int i = 0; i < n; ++i) {
            CHECK(clSetKernelArg(touch[i], 0, sizeof(cl_mem), &d[i].part[0]));
            a[i] = (struct enq_arg){d[i].queue, touch[i], group, 0};
        }
        const double t0 = now_us();
        for (int r = 0; r < ENQ; ++r)
            for (int i = 0; i < n; ++i) {
                cl_event ev;
                CHECK(clEnqueueNDRangeKernel(d[i].queue, touch[i], 1, NULL,
                                             &group, &group, 0, NULL, &ev));
                clReleaseEvent(ev);
            }
        printf("serial_enqueue_us = %.2f\n", (now_us() - t0) / (ENQ * n));
        for (int i = 0; i < n; ++i)
            CHECK(clFinish(d[i].queue));
        const char *names[] = {"parallel_enqueue_us",
                               "parallel_wait_enqueue_us",
                               "parallel_poll_enqueue_us"};
        for (int mode = 0; mode < 3; ++mode) {
            pthread_t th[MAX_DEVICES + 1];
            struct waiter wt = {NULL, mode == 2};
            if (mode > 0) {
                /* one work-item's long loop on the first device's copy
                 * queue (tens of ms), waited for by one more thread */
                const size_t one = 1;
                const cl_uint trips = 1u << 24;
                CHECK(clSetKernelArg(spin, 0, sizeof(cl_mem), &d[0].land[1]));
                CHECK(clSetKernelArg(spin, 1, sizeof trips, &trips));
                CHECK(clEnqueueNDRangeKernel(d[0].copy, spin, 1, NULL, &one,
                                             &one, 0, NULL, &wt.event));
                CHECK(clFlush(d[0].copy));
                if (pthread_create(&th[n], NULL, wait_run, &wt) != 0)
                    return 1;
            }
            for (int i = 0; i < n; ++i)
                if (pthread_create(&th[i], NULL, enqueue_run, &a[i]) != 0)
                    return 1;
            double most = 0;
            for (int i = 0; i < n; ++i) {
                pthread_join(th[i], NULL);
                most = a[i].per_us > most ? a[i].per_us : most;
            }
            if (mode > 0) {
                pthread_join(th[n], NULL);
                clReleaseEvent(wt.event);
            }
            printf("%s = %.2f\n", names[mode], most);
        }
        clReleaseKernel(spin);
    }
    printf("nbytes = %zu\nruns = %d\ndevices = %d\n", nbytes, runs, n);
    return 0;
}
