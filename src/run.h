/*
 * run.h - the timed iteration loop: enqueue every iteration back to back,
 * harvest each kernel's profiling times as chunks complete.
 */
#ifndef HISTO_RUN_H
#define HISTO_RUN_H

#include "strategy.h"

struct run_times {
    unsigned long iterations;
    size_t nkernels;
    double *kernel_us;  /* [iteration * nkernels + k], device time      */
    double *span_us;    /* [iteration]: first kernel start to last end  */
    double wall_s;      /* host clock: first enqueue to the last finish */
};

/* Runs the iterations; fills times (free with run_times_free).
 * Returns 0 or an exit status. */
int run_iterations(const struct strategy *strategy, void *state,
                   cl_command_queue queue, unsigned long iterations,
                   struct run_times *times);

void run_times_free(struct run_times *times);

/* Order statistics of n samples (the array is sorted in place). */
struct run_stats {
    double median, mean, min, max, total;
};
struct run_stats run_stats(double *samples, size_t n);

#endif
