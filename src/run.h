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
 * copy of input values to the device, a combine of two partial
 * histograms, a copy of a share's partial histogram on its way to the
 * first device, or its addition there (a combine on a queue beside that
 * device's counting) (work.c); the share (device) it ran on; and, for an event
 * that waited for an event of the same iteration on another device, that
 * event (its index + 1; 0: none), so that the devices' clocks can be
 * checked against the order the events must have run in. */
enum {
    RUN_TAG_TRANSFER = 250,
    RUN_TAG_COMBINE = 251,
    RUN_TAG_MOVE = 252,
    RUN_TAG_GATHER = 253
};
struct run_tag {
    uint8_t kind;   /* k < STRATEGY_MAX_KERNELS, or RUN_TAG_*   */
    uint8_t share;
    uint16_t after;
};

/* One iteration's work: `enqueue` enqueues a whole iteration and returns
 * its events in the order of `tags` (nevents of them, the same every
 * iteration); `flush` and `finish` act on every queue it uses. `synced`:
 * each iteration is finished before the next starts and timed on the
 * host, where the device's timestamps are unusable; otherwise an
 * iteration's time is its events' span on the device clock (over every
 * device's, where several devices' clocks agree: run_device_clock_check).
 * `progress`, when not NULL, is told how many iterations are done each
 * time the loop has waited for some (progress.h): batches of up to 32,
 * or each iteration when synced.
 *
 * `sample` > 1: only the last iteration of each batch and one in `sample`
 * are profiled (sampled); the others get `events` NULL and make no event
 * that nothing waits on (an event costs host time, docs/design.md,
 * "Chunks, streaming and several devices"). The times are then those
 * of the sampled iterations alone (run_times.samples); the wall time is
 * every iteration's. The last iteration is always sampled: the clock
 * stops at its events; `last_plain` (tests only) leaves it unsampled,
 * so that the histogram written is made on queues without profiling
 * (the clock then stops at `finish`). Synced runs sample every
 * iteration. */
struct run_plan {
    size_t nevents;
    const struct run_tag *tags;
    size_t nkernels;
    size_t nshares;
    bool synced;
    unsigned long sample;  /* 0 or 1: every iteration profiled          */
    bool last_plain;       /* sample > 1: the last iteration unsampled */
    int (*enqueue)(void *ctx, cl_event *events);
    int (*flush)(void *ctx);
    int (*finish)(void *ctx);
    /* Optional, where enqueue makes some of an iteration's events later
     * (several devices: its gather is enqueued with the next one):
     * makes every event of the iterations enqueued but the last
     * `pending`. */
    int (*settle)(void *ctx, unsigned long pending);
    /* Optional: the host's time so far waiting for devices inside
     * enqueue and settle (not enqueuing: enqueue_s leaves it out). */
    double (*waited_s)(void *ctx);
    void *ctx;
    struct progress *progress;
};

struct run_times {
    unsigned long iterations;
    unsigned long samples; /* iterations profiled: the tables below have
                              one row each, in order (all iterations
                              unless the plan sampled)                 */
    unsigned long sample;  /* the plan's: 1 profiled in `sample`       */
    size_t nkernels, nshares;
    double *kernel_us;   /* [sample * nkernels + k]: device time of
                            kernel k, summed over chunks and shares   */
    double *transfer_us; /* [sample]: copies to the device, summed     */
    double *combine_us;  /* [sample]: combines (gathers too), summed   */
    double *move_us;     /* [sample]: partials' copies between
                            devices, summed                           */
    double *share_us;    /* [sample * nshares + s]: kernel, combine
                            and input copy time on share s (not the
                            moves and gathers, which run beside it)   */
    double *span_us;     /* [sample]: first start to last end on the
                            device, or host time when synced          */
    unsigned kernels_launched; /* bit k: kernel k ran in a profiled
                                  iteration (a plan may launch fewer
                                  than the strategy has)              */
    bool has_transfer, has_combine, has_move, synced;
    double wall_s;       /* host clock: first enqueue to the last event's
                            completion                                */
    double enqueue_s;    /* host clock: time spent in plan->enqueue
                            (and settle), less their waits for the
                            devices (plan->waited_s)                  */
    bool clock_backwards;        /* an event ended before it started, or
                                    an iteration began before the one
                                    before it                         */
    bool clocks_apart;           /* an event began, on its device's clock,
                                    before the event of another device it
                                    waited for had ended on that one's */
    cl_ulong last_start, last_end; /* device clock, while harvesting  */
    const char *host_reason;     /* synced because the device's
                                    timestamps were unusable: why      */
    const char *wall_reason;     /* several devices whose timestamps
                                    cannot give an iteration's span:
                                    why (the wall mean is the figure)  */
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
 * several devices' clocks disagree (clocks_apart), or their sum is
 * impossible beside the host's wall time for the same iterations (more
 * than it, or under 1/1000 of it; not checked where the run sampled,
 * whose spans are no iteration's time: RUN_SAMPLED_REASON). */
const char *run_device_clock_check(const struct run_times *times);

void run_times_free(struct run_times *times);

/* Why a sampled run (sample > 1) is timed by the wall. */
#define RUN_SAMPLED_REASON "one iteration in a few was profiled " \
    "(iterations.profiled_every), and its span includes its overlap " \
    "with the unprofiled ones before it"


/* Order statistics of n samples (the array is sorted in place). */
struct run_stats {
    double median, mean, min, max, total;
};
struct run_stats run_stats(double *samples, size_t n);

#endif
