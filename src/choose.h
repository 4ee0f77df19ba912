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
/* Iterations each count runs untimed first, and the least and most it
 * is timed over: as many as fill CHOOSE_TIMED_S, within those. */
#define CHOOSE_WARMUP 4
#define CHOOSE_MIN_TIMED 16
#define CHOOSE_MAX_TIMED 256
#define CHOOSE_TIMED_S 0.02

/* The balance (choose_balance): iterations untimed, then as many as fill
 * BALANCE_S by their time, within CHOOSE_MIN_TIMED and BALANCE_SAMPLES
 * profiled ones' worth (one in iterations.profiled_every). */
#define BALANCE_S 0.1
#define BALANCE_SAMPLES 8

struct choice {
    bool all;            /* --device all                              */
    size_t named;        /* devices the option names                  */
    size_t used;         /* devices with a share                      */
    const char *why;
    size_t measured;     /* counts 1..measured were timed (0: none)   */
    double wall_us[WORK_MAX_SHARES];           /* [m-1]: wall mean an
                                                  iteration on m     */
    unsigned long iterations[WORK_MAX_SHARES]; /* [m-1]: timed over  */
    /* choose_balance: the split measured (units: by compute units
     * alone, and why), each share's busy median over `balance_samples`
     * profiled iterations of `balance_iterations` with it, and the values
     * share 0 counts fewer after */
    const char *balance_why;
    bool balanced;
    unsigned long balance_iterations, balance_samples;
    double busy_us[WORK_MAX_SHARES];
    int64_t first_fewer;
};

/* Fills `c` and, for `all` over several devices with a resident whole,
 * measures each count and splits the work over the fastest (w set up,
 * work_setup done). Returns 0 or an exit status. */
int choose_devices(struct work *w, bool all, struct choice *c);

/* With several shares and a resident whole (work_can_reshare): a few
 * iterations of the current split measured, each share's busy median
 * (run_times.share_us) taken, and the split made again so that the
 * first share, which also adds the others' sums beside its counting
 * (work.c), takes as many values fewer as that extra time counts; the
 * others are split by compute units. The extra time is a fixed cost an
 * iteration (n-1 sums of nbins bytes added), not proportional to the
 * values, so it is measured in time and turned into values by the other
 * shares' measured rate. Returns 0 or an exit status. */
int choose_balance(struct work *w, struct choice *c);

/* The values share 0 should count fewer (the rule choose_balance
 * applies): with busy_us[s] the busy medians of shares with `count[s]`
 * values on devices of `units[s]` compute units, t0 the first device's
 * time a value from the others' (b_s / c_s * u_s / u_0, their mean), its
 * extra E = b_0 - c_0 * t0, and share 0's E spread so that all end
 * together: E / (t0 * (1 + u_0 / (u_1 + ...))). 0 where nothing was
 * measured. */
double choose_first_fewer(const double *busy_us, const size_t *count,
                          const uint64_t *units, size_t n);

/* The count to use from wall means of 1..n devices (wall_us[m-1]): the
 * fewest within CHOOSE_MARGIN of the least. */
size_t choose_fastest(const double *wall_us, size_t n);

#endif
