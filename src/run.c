/*
 * run.c - the iteration loop (see run.h).
 *
 * Iterations are enqueued in chunks. While chunk k runs, the host waits for
 * chunk k-1 and reads its events, so the device always has work queued and
 * the number of live events stays bounded whatever the iteration count.
 */
#include "run.h"

#include "timer.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK 32

static int harvest(cl_event *events, size_t count, size_t nkernels,
                   unsigned long first, struct run_times *t)
{
    int status = HISTO_OK;
    cl_ulong span_start = 0;
    CL_CALL(clWaitForEvents((cl_uint)count, events));
    for (size_t e = 0; e < count; ++e) {
        cl_ulong start = 0, end = 0;
        CL_CALL(clGetEventProfilingInfo(events[e], CL_PROFILING_COMMAND_START,
                                        sizeof start, &start, NULL));
        CL_CALL(clGetEventProfilingInfo(events[e], CL_PROFILING_COMMAND_END,
                                        sizeof end, &end, NULL));
        const unsigned long it = first + e / nkernels;
        const size_t k = e % nkernels;
        t->kernel_us[it * nkernels + k] = (double)(end - start) * 1e-3;
        if (k == 0)
            span_start = start;
        if (k == nkernels - 1)
            t->span_us[it] = (double)(end - span_start) * 1e-3;
    }
fail:
    for (size_t e = 0; e < count; ++e)
        clReleaseEvent(events[e]);
    return status;
}

int run_iterations(const struct strategy *strategy, void *state,
                   cl_command_queue queue, unsigned long iterations,
                   struct run_times *t)
{
    int status = HISTO_OK;
    const size_t nk = strategy->nkernels;
    cl_event events[2][CHUNK * STRATEGY_MAX_KERNELS];
    size_t live[2] = {0, 0};
    unsigned long chunk_first[2] = {0, 0};

    memset(t, 0, sizeof *t);
    t->iterations = iterations;
    t->nkernels = nk;
    HOST_ALLOC(t->kernel_us, (size_t)iterations * nk);
    HOST_ALLOC(t->span_us, iterations);

    const double t0 = timer_now();
    int cur = 0;
    for (unsigned long first = 0; first < iterations; first += CHUNK) {
        const unsigned long count = iterations - first < CHUNK
                                  ? iterations - first : CHUNK;
        chunk_first[cur] = first;
        for (unsigned long i = 0; i < count; ++i) {
            status = strategy->enqueue(state, queue, &events[cur][live[cur]]);
            if (status != HISTO_OK)
                goto fail;
            live[cur] += nk;
        }
        CL_CALL(clFlush(queue));
        const int prev = 1 - cur;
        if (live[prev] > 0) {
            const size_t n = live[prev];
            live[prev] = 0;
            if ((status = harvest(events[prev], n, nk, chunk_first[prev], t))
                != HISTO_OK)
                goto fail;
        }
        cur = prev;
    }
    CL_CALL(clFinish(queue));
    t->wall_s = timer_now() - t0;
    const int last = 1 - cur;
    if (live[last] > 0) {
        const size_t n = live[last];
        live[last] = 0;
        status = harvest(events[last], n, nk, chunk_first[last], t);
    }
    return status;
fail:
    /* An iteration whose enqueue failed half-way is not counted in live;
     * its few events go with the context when histo exits. */
    for (int c = 0; c < 2; ++c)
        for (size_t e = 0; e < live[c]; ++e)
            clReleaseEvent(events[c][e]);
    return status;
}

void run_times_free(struct run_times *t)
{
    free(t->kernel_us);
    free(t->span_us);
    memset(t, 0, sizeof *t);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct run_stats run_stats(double *v, size_t n)
{
    struct run_stats s = {0, 0, 0, 0, 0};
    if (n == 0)
        return s;
    qsort(v, n, sizeof *v, cmp_double);
    for (size_t i = 0; i < n; ++i)
        s.total += v[i];
    s.mean = s.total / (double)n;
    s.min = v[0];
    s.max = v[n - 1];
    s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    return s;
}
