/*
 * run.h - the timed iteration loop: enqueue every iteration back to back,
 * harvest the profiling times of each iteration's events as batches of
 * iterations complete.
 */
#ifndef HISTO_RUN_H
#define HISTO_RUN_H

#include "progress.h"
#include "strategy.h"

/* What an event of an iteration is: kernel k of the strategy (0..), a
 * copy of input values to the device, or a combine of two partial
 * histograms (work.c); and the share (device) it ran on. */
enum { RUN_TAG_TRANSFER = 250, RUN_TAG_COMBINE = 251 };
struct run_tag {
    uint8_t kind;   /* k < STRATEGY_MAX_KERNELS, or RUN_TAG_*   */
    uint8_t share;
};

/* One iteration's work: `enqueue` enqueues a whole iteration and returns
 * its events in the order of `tags` (nevents of them, the same every
 * iteration); `flush` and `finish` act on every queue it uses. `synced`:
 * each iteration is finished before the next starts and timed on the
 * host, for work on several devices, whose profiling clocks need not
 * agree; otherwise an iteration's time is its events' span on the device
 * clock. `progress`, when not NULL, is told how many iterations are done
 * each time the loop has waited for some (progress.h): batches of up to
 * 32, or each iteration when synced. */
struct run_plan {
    size_t nevents;
    const struct run_tag *tags;
    size_t nkernels;
    size_t nshares;
    bool synced;
    int (*enqueue)(void *ctx, cl_event *events);
    int (*flush)(void *ctx);
    int (*finish)(void *ctx);
    void *ctx;
    struct progress *progress;
};

struct run_times {
    unsigned long iterations;
    size_t nkernels, nshares;
    double *kernel_us;   /* [iteration * nkernels + k]: device time of
                            kernel k, summed over chunks and shares   */
    double *transfer_us; /* [iteration]: copies to the device, summed  */
    double *combine_us;  /* [iteration]: combines, summed              */
    double *share_us;    /* [iteration * nshares + s]: kernel, combine
                            and copy time on share s                  */
    double *span_us;     /* [iteration]: first start to last end on the
                            device, or host time when synced          */
    bool has_transfer, has_combine, synced;
    double wall_s;       /* host clock: first enqueue to the last event's
                            completion                                */
    bool clock_backwards;        /* an event ended before it started, or
                                    an iteration began before the one
                                    before it                         */
    cl_ulong last_start, last_end; /* device clock, while harvesting  */
    const char *host_reason;     /* synced because the device's
                                    timestamps were unusable: why      */
};

/* Runs the iterations of a plan; fills times (free with run_times_free).
 * Returns 0 or an exit status. */
int run_plan(const struct run_plan *plan, unsigned long iterations,
             struct run_times *times);

/* run_plan for one strategy state on one queue; progress may be NULL. */
int run_iterations(const struct strategy *strategy, void *state,
                   cl_command_queue queue, unsigned long iterations,
                   struct progress *progress, struct run_times *times);

/* NULL when the device timestamps of a run that was not synced can be
 * taken as its iterations' device time, else why not: they go backwards,
 * or their sum is impossible beside the host's wall time for the same
 * iterations (more than it, or under 1/1000 of it). */
const char *run_device_clock_check(const struct run_times *times);

void run_times_free(struct run_times *times);

/* Order statistics of n samples (the array is sorted in place). */
struct run_stats {
    double median, mean, min, max, total;
};
struct run_stats run_stats(double *samples, size_t n);

#endif
