/*
 * tune.h - histo --tune: measures the strategy's candidate knobs (knobs.h)
 * on this run's device, program and input, and keeps
 * the fastest in the tune cache (tune_cache.h), where later runs without
 * --tune find it. Only the measuring is here; the cache's file format and
 * storage are tune_cache.h's.
 */
#ifndef HISTO_TUNE_H
#define HISTO_TUNE_H

#include "knobs.h"
#include "progress.h"
#include "strategy.h"
#include "tune_cache.h"

#include <stdbool.h>
#include <stdio.h>

#define TUNE_MAX_CANDIDATES 64

struct tune_candidate {
    struct knob_values asked;    /* 0 = the strategy decides             */
    struct knob_used used;       /* what it used, -1: a knob it lacks    */
    double median_us, mean_us;   /* device time per iteration, or the
                                    wall mean where wall_timed         */
    bool wall_timed;             /* the device's timestamps were
                                    unusable (run_device_clock_check)  */
    bool skipped;                /* the strategy could not set it up     */
    bool differs;                /* histogram unlike the first one's     */
};

/* What histo --tune measured, for histo.out. */
struct tune_result {
    unsigned long iterations;    /* per candidate */
    size_t ncandidates;
    size_t best;
    struct tune_candidate candidates[TUNE_MAX_CANDIDATES];
};

/* histo --tune: sets the strategy up with each candidate (every
 * combination of the knobs' candidates, knobs.h) on the program and input
 * values in base (uploaded once, shared by every candidate), runs the
 * iterations, checks every histogram against the first candidate's,
 * prints the table on out, stores the best in the tune cache (unless
 * no_tune_cache; a cache that cannot be written is a warning) and returns
 * it in knobs; progress (may be NULL) follows
 * the candidates' timed iterations. Returns 0, HISTO_EXIT_DEVICE
 * (also when a candidate's histogram differs) or HISTO_EXIT_INTERNAL. */
int tune_run(const struct strategy *strategy,
             const struct strategy_env *base, unsigned long iterations,
             bool no_tune_cache, const struct tune_key *key,
             struct tune_result *result, struct tune_knobs *knobs,
             struct progress *progress, FILE *out);

#endif
