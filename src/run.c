/*
 * run.c - the iteration loop (see run.h).
 *
 * Iterations are enqueued in batches. While batch k runs, the host waits for
 * batch k-1 and reads its events, so the device always has work queued and
 * the number of live events stays bounded whatever the iteration count.
 * Progress is told the iterations whose events the host has just waited
 * for, so it adds a clock read per batch and never a wait of its own.
 */
#include "run.h"

#include "timer.h"

#include <stdlib.h>
#include <string.h>

/* Iterations a batch at most, and events a batch at most (work of many
 * chunks takes fewer iterations a batch). */
#define BATCH 32
#define BATCH_EVENTS 4096

/* *after: whether `start` (on another device's clock) is no earlier than
 * the end of `before`, which the event that started then waited for; one
 * microsecond is allowed for the two clocks' rounding. */
static int clock_after(cl_event before, cl_ulong start, bool *after)
{
    int status = HISTO_OK;
    cl_ulong end = 0;
    CL_CALL(clGetEventProfilingInfo(before, CL_PROFILING_COMMAND_END,
                                    sizeof end, &end, NULL));
    *after = start + 1000 >= end;
fail:
    return status;
}

/* An event's `us` into iteration it's totals, by its tag. */
static void charge(struct run_times *t, struct run_tag tag, unsigned long it,
                   double us)
{
    if (tag.kind == RUN_TAG_TRANSFER)
        t->transfer_us[it] += us;
    else if (tag.kind == RUN_TAG_COMBINE || tag.kind == RUN_TAG_GATHER)
        t->combine_us[it] += us;
    else if (tag.kind == RUN_TAG_MOVE)
        t->move_us[it] += us;
    else {
        t->kernel_us[it * t->nkernels + tag.kind] += us;
        t->kernels_launched |= 1u << tag.kind;
    }
    /* a share is busy counting; its partial's copies and the additions
     * on the first device run on queues beside that (and a kernel's span
     * there includes waiting for the counting kernel's processors) */
    if (tag.kind != RUN_TAG_MOVE && tag.kind != RUN_TAG_GATHER)
        t->share_us[it * t->nshares + tag.share] += us;
}

/* The events of `count` sampled iterations, rows first.. of t's
 * tables. */
static int harvest(const struct run_plan *p, cl_event *events,
                   unsigned long count, unsigned long first,
                   struct run_times *t)
{
    int status = HISTO_OK;
    const size_t n = (size_t)count * p->nevents;
    if (n > 0)
        CL_CALL(clWaitForEvents((cl_uint)n, events));
    for (unsigned long i = 0; i < count; ++i) {
        const unsigned long it = first + i;
        cl_ulong lo = 0, hi = 0;
        for (size_t e = 0; e < p->nevents; ++e) {
            cl_ulong start = 0, end = 0;
            cl_event ev = events[i * p->nevents + e];
            /* the event of the slot before again: a kernel the plan did
             * not launch (strategy.h), timed once */
            if (e > 0 && ev == events[i * p->nevents + e - 1])
                continue;
            CL_CALL(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START,
                                            sizeof start, &start, NULL));
            CL_CALL(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END,
                                            sizeof end, &end, NULL));
            const struct run_tag tag = p->tags[e];
            charge(t, tag, it, (double)(end - start) * 1e-3);
            if (tag.after != 0) {
                bool after = true;
                if ((status = clock_after(events[i * p->nevents + tag.after
                                                 - 1], start, &after))
                        != HISTO_OK)
                    goto fail;
                t->clocks_apart |= !after;
            }
            if (e == 0 || start < lo)
                lo = start;
            if (e == 0 || end > hi)
                hi = end;
            if (end < start)
                t->clock_backwards = true;
        }
        if (it > 0 && lo < t->last_start)
            t->clock_backwards = true;
        /* Iterations may overlap (a streamed input's first copy starts
         * while the iteration before still counts): each is charged from
         * the later of its first start and the end of the one before, so
         * the spans add up to at most the device's busy time. */
        if (!p->synced) {
            const cl_ulong from = it > 0 && t->last_end > lo ? t->last_end
                                                             : lo;
            t->span_us[it] = hi > from ? (double)(hi - from) * 1e-3 : 0;
        }
        t->last_start = lo;
        if (it == 0 || hi > t->last_end)
            t->last_end = hi;
    }
fail:
    /* emptied, so that a failure before a slot is filled again (an
     * addition on the first device trails its counting) releases nothing
     * twice */
    for (size_t e = 0; e < n; ++e) {
        clReleaseEvent(events[e]);
        events[e] = NULL;
    }
    return status;
}

/* t's shape and its zeroed per-iteration tables. Returns 0 or
 * HISTO_EXIT_INTERNAL (what was allocated is freed by run_times_free). */
static int times_init(const struct run_plan *p, unsigned long iterations,
                      struct run_times *t)
{
    int status = HISTO_OK;
    memset(t, 0, sizeof *t);
    t->iterations = iterations;
    t->sample = p->synced || p->sample < 2 ? 1 : p->sample;
    t->nkernels = p->nkernels;
    t->nshares = p->nshares;
    t->synced = p->synced;
    for (size_t e = 0; e < p->nevents; ++e) {
        t->has_transfer |= p->tags[e].kind == RUN_TAG_TRANSFER;
        t->has_combine |= p->tags[e].kind == RUN_TAG_COMBINE
                          || p->tags[e].kind == RUN_TAG_GATHER;
        t->has_move |= p->tags[e].kind == RUN_TAG_MOVE;
    }
    HOST_ALLOC(t->kernel_us, (size_t)iterations * p->nkernels);
    HOST_ALLOC(t->transfer_us, iterations);
    HOST_ALLOC(t->combine_us, iterations);
    HOST_ALLOC(t->move_us, iterations);
    HOST_ALLOC(t->share_us, (size_t)iterations * p->nshares);
    HOST_ALLOC(t->span_us, iterations);
fail:
    return status;
}

/* The plan's host waits for its devices so far (plan->waited_s). */
static double waited(const struct run_plan *p)
{
    return p->waited_s != NULL ? p->waited_s(p->ctx) : 0;
}

/* One batch of iterations in flight: its sampled iterations' events
 * (live of them), the row of the first in the run_times, its iterations,
 * and the iterations done once it is. */
struct batch {
    cl_event *events;
    unsigned long live, first_sample, n, end;
};

/* Enqueues iterations [first, first + count) of `total` as batch b:
 * the batch's last, so that the host waits for every batch (it runs at
 * most two ahead), and one in t->sample keep their events (but the
 * run's last where the plan says last_plain). */
static int enqueue_batch(const struct run_plan *p, struct run_times *t,
                         struct batch *b, unsigned long first,
                         unsigned long count, unsigned long total)
{
    int status = HISTO_OK;
    b->first_sample = t->samples;
    b->n = count;
    b->end = first + count;
    for (unsigned long i = 0; i < count; ++i) {
        const bool plain_last = p->last_plain && t->sample > 1
                                && first + i + 1 == total;
        const bool sampled = t->sample == 1
                             || (!plain_last
                                 && (i + 1 == count
                                     || (first + i + 1) % t->sample == 0));
        cl_event *ev = sampled ? &b->events[b->live * p->nevents] : NULL;
        const double it0 = timer_now(), w0 = waited(p);
        if ((status = p->enqueue(p->ctx, ev)) != HISTO_OK)
            goto fail;
        t->enqueue_s += timer_now() - it0 - (waited(p) - w0);
        if (!sampled)
            continue;
        ++b->live;
        ++t->samples;
        if (p->synced) {
            /* its events too: clFinish may return before them */
            if ((status = p->finish(p->ctx)) != HISTO_OK)
                goto fail;
            CL_CALL(clWaitForEvents((cl_uint)p->nevents, ev));
            t->span_us[t->samples - 1] = (timer_now() - it0) * 1e6;
            progress_update(p->progress, first + i + 1);
        }
    }
fail:
    return status;
}

/* The times of batch b, whose events are all complete; it is empty
 * after. */
static int harvest_batch(const struct run_plan *p, struct run_times *t,
                         struct batch *b)
{
    const unsigned long n = b->live;
    b->live = 0;
    b->n = 0;
    return harvest(p, b->events, n, b->first_sample, t);
}

int run_plan(const struct run_plan *p, unsigned long iterations,
             struct run_times *t)
{
    struct batch b[2] = {{0}, {0}};
    int status = times_init(p, iterations, t);
    if (status != HISTO_OK)
        goto fail;
    unsigned long batch = p->synced ? 1 : BATCH;
    while (batch > 1 && batch * p->nevents > BATCH_EVENTS)
        batch /= 2;
    HOST_ALLOC(b[0].events, batch * p->nevents);
    HOST_ALLOC(b[1].events, batch * p->nevents);

    const double t0 = timer_now();
    int cur = 0;
    for (unsigned long first = 0; first < iterations; first += batch) {
        const unsigned long count = iterations - first < batch
                                  ? iterations - first : batch;
        if ((status = enqueue_batch(p, t, &b[cur], first, count, iterations))
                != HISTO_OK
            || (status = p->flush(p->ctx)) != HISTO_OK)
            goto fail;
        const int prev = 1 - cur;
        /* the batch before has all its events */
        if (b[prev].n > 0 && p->settle != NULL) {
            const double s0 = timer_now(), w0 = waited(p);
            if ((status = p->settle(p->ctx, b[cur].n)) != HISTO_OK)
                goto fail;
            t->enqueue_s += timer_now() - s0 - (waited(p) - w0);
        }
        if (b[prev].n > 0) {
            if ((status = harvest_batch(p, t, &b[prev])) != HISTO_OK)
                goto fail;
            progress_update(p->progress, b[prev].end);
        }
        cur = prev;
    }
    if ((status = p->finish(p->ctx)) != HISTO_OK)
        goto fail;
    /* The clock stops when the last iteration's events are complete, not
     * when clFinish returns: an implementation may return from it first
     * (rusticl does). */
    struct batch *last = &b[1 - cur];
    if (last->live > 0)
        CL_CALL(clWaitForEvents((cl_uint)(last->live * p->nevents),
                                last->events));
    t->wall_s = timer_now() - t0;
    if (last->live > 0)
        status = harvest_batch(p, t, last);
fail:
    /* What follows (the summary, an error) starts on a clean line. */
    progress_clear(p->progress);
    /* An iteration whose enqueue failed half-way is not counted in live;
     * its few events go with the context when histo exits. */
    for (int c = 0; c < 2; ++c) {
        for (size_t e = 0; e < b[c].live * p->nevents; ++e)
            if (b[c].events[e] != NULL)
                clReleaseEvent(b[c].events[e]);
        free(b[c].events);
    }
    return status;
}

/* A plan of one strategy state on one queue. */
struct single {
    const struct strategy *strategy;
    void *state;
    cl_command_queue queue;
};

static int single_enqueue(void *ctx, cl_event *events)
{
    struct single *s = ctx;
    return s->strategy->enqueue(s->state, s->queue, events);
}

static int single_flush(void *ctx)
{
    int status = HISTO_OK;
    CL_CALL(clFlush(((struct single *)ctx)->queue));
fail:
    return status;
}

static int single_finish(void *ctx)
{
    int status = HISTO_OK;
    CL_CALL(clFinish(((struct single *)ctx)->queue));
fail:
    return status;
}

int run_iterations(const struct strategy *strategy, void *state,
                   cl_command_queue queue, unsigned long iterations,
                   struct progress *progress, struct run_times *t)
{
    struct run_tag tags[STRATEGY_MAX_KERNELS];
    for (size_t k = 0; k < strategy->nkernels; ++k)
        tags[k] = (struct run_tag){.kind = (uint8_t)k};
    struct single s = {strategy, state, queue};
    const struct run_plan plan = {
        .nevents = strategy->nkernels,
        .tags = tags,
        .nkernels = strategy->nkernels,
        .nshares = 1,
        .enqueue = single_enqueue,
        .flush = single_flush,
        .finish = single_finish,
        .ctx = &s,
        .progress = progress,
    };
    return run_plan(&plan, iterations, t);
}

const char *run_device_clock_check(const struct run_times *t)
{
    if (t->synced)
        return NULL;
    if (t->clock_backwards)
        return "they go backwards";
    if (t->clocks_apart)
        return "the devices' clocks disagree: an event began before the "
               "event of another device it waited for had ended";
    /* Sampled: a profiled iteration's span cannot leave out its overlap
     * with the unprofiled ones before it, so the spans are no part of
     * the wall time to compare (the caller times by the wall). */
    if (t->sample > 1)
        return NULL;
    double sum = 0;
    for (unsigned long i = 0; i < t->samples; ++i)
        sum += t->span_us[i];
    const double wall_us = t->wall_s * 1e6;
    /* The spans are disjoint parts of the timed wall time: more than it
     * (with 5% and 1 us an iteration for two clocks' rounding) is not
     * time; under 1/1000 of it, a device that did nothing. */
    if (sum > wall_us * 1.05 + (double)t->samples)
        return "their sum exceeds the wall time of the same iterations";
    if (sum < wall_us / 1000)
        return "their sum is under 1/1000 of the wall time of the same "
               "iterations";
    return NULL;
}

void run_times_free(struct run_times *t)
{
    free(t->kernel_us);
    free(t->transfer_us);
    free(t->combine_us);
    free(t->move_us);
    free(t->share_us);
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
