/*
 * choose.h - how many of the devices `--device all` names count the
 * input.
 *
 * More devices are not always faster: each other share's sum must go to
 * the first device, and the host's enqueuing of those copies and of the
 * waits between devices (docs/design.md) can take longer than one device
 * needs to count a small input. So, where the whole input is resident on
 * the first device after the fill (work_can_reshare), each count from
 * one to all is measured: the input split over the first m devices, a
 * few iterations timed by the wall clock; the fewest devices within
 * CHOOSE_MARGIN of the least wall time an iteration are kept. An explicit
 * --device list is used as given.
 *
 * The count of all is measured in the context of all (work_reshare);
 * each fewer is measured, and then counts, in a context of its own
 * devices, filled from the input held in host memory (work_hold,
 * work_recontext): with NVIDIA's OpenCL, devices counted slower in the
 * context of all than in one of their own (not a launch's own host cost,
 * which a probe found the same in either; docs/design.md, "Chunks,
 * streaming and several devices").
 */
#ifndef HISTO_CHOOSE_H
#define HISTO_CHOOSE_H

#include "work.h"

#include <stdbool.h>
#include <stddef.h>

/* Counts this close to the fastest measured are as fast: a device more
 * must save more than run-to-run noise to be used. */
#define CHOOSE_MARGIN_PERCENT 2
#define CHOOSE_MARGIN (CHOOSE_MARGIN_PERCENT / 100.0)
/* Iterations each count runs untimed first (and one more a set of sums
 * with several devices), and the least and most it is timed over: as
 * many as fill CHOOSE_TIMED_S, within those. */
#define CHOOSE_WARMUP 4
#define CHOOSE_MIN_TIMED 16
#define CHOOSE_MAX_TIMED 256
#define CHOOSE_TIMED_S 0.02

struct choice {
    bool all;            /* --device all                              */
    size_t named;        /* devices the option names                  */
    size_t used;         /* devices with a share                      */
    const char *why;
    const char *context; /* all, measured: in which contexts the counts
                            ran, else NULL                           */
    size_t measured;     /* counts 1..measured were timed (0: none)   */
    double wall_us[WORK_MAX_SHARES];           /* [m-1]: wall mean an
                                                  iteration on m     */
    unsigned long iterations[WORK_MAX_SHARES]; /* [m-1]: timed over  */
};

/* Fills `c` and, for `all` over several devices with a resident whole,
 * measures each count and splits the work over the fastest (w set up,
 * work_setup done): the count of all devices in w's context, the others
 * each in its own. Returns 0 or an exit status. */
int choose_devices(struct work *w, bool all, struct choice *c);

/* The count to use from wall means of 1..n devices (wall_us[m-1]): the
 * fewest within CHOOSE_MARGIN of the least. */
size_t choose_fastest(const double *wall_us, size_t n);

#endif
