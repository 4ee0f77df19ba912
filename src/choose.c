/* choose.c - the device count of --device all, measured (see choose.h). */
#include "choose.h"

#include "error.h"
#include "run.h"

#include <math.h>
#include <stdlib.h>

#define TEXT_(x) #x
#define TEXT(x) TEXT_(x)

size_t choose_fastest(const double *wall_us, size_t n)
{
    size_t best = 0;
    for (size_t m = 1; m < n; ++m)
        if (wall_us[m] < wall_us[best])
            best = m;
    for (size_t m = 0; m < best; ++m)
        if (wall_us[m] <= wall_us[best] * (1.0 + CHOOSE_MARGIN))
            return m + 1;
    return best + 1;
}

/* The current split's wall mean an iteration: `warmup` iterations, then
 * as many as fill CHOOSE_TIMED_S by their time, within the bounds. */
static int measure(struct work *w, double *wall_us, unsigned long *timed)
{
    struct run_plan plan;
    struct run_times t;
    work_run_plan(w, &plan);
    int status = run_plan(&plan, CHOOSE_WARMUP, &t);
    if (status != HISTO_OK) {
        run_times_free(&t);
        return status;
    }
    const double each = t.wall_s / CHOOSE_WARMUP;
    run_times_free(&t);
    double n = each > 0 ? CHOOSE_TIMED_S / each : CHOOSE_MAX_TIMED;
    n = n < CHOOSE_MIN_TIMED ? CHOOSE_MIN_TIMED
      : n > CHOOSE_MAX_TIMED ? CHOOSE_MAX_TIMED : n;
    *timed = (unsigned long)n;
    if ((status = run_plan(&plan, *timed, &t)) == HISTO_OK)
        *wall_us = t.wall_s * 1e6 / (double)*timed;
    run_times_free(&t);
    return status;
}

double choose_first_fewer(const double *busy_us, const size_t *count,
                          const uint64_t *units, size_t n)
{
    if (n < 2 || count[0] == 0 || units[0] == 0)
        return 0;
    double t0 = 0, others = 0;
    size_t m = 0;
    for (size_t s = 1; s < n; ++s) {
        others += (double)units[s];
        if (count[s] == 0 || !(busy_us[s] > 0))
            continue;
        t0 += busy_us[s] / (double)count[s] * (double)units[s]
              / (double)units[0];
        ++m;
    }
    if (m == 0 || !(busy_us[0] > 0))
        return 0;
    t0 /= (double)m;
    const double extra = busy_us[0] - (double)count[0] * t0;
    return extra / (t0 * (1.0 + (double)units[0] / others));
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int choose_balance(struct work *w, struct choice *c)
{
    const size_t n = work_nshares(w);
    c->balance_why = "compute units (one share)";
    if (n < 2)
        return HISTO_OK;
    if (!work_can_reshare(w)) {
        c->balance_why = "compute units (the input is larger than the "
                         "first device's budget: not measured)";
        return HISTO_OK;
    }
    struct run_plan plan;
    struct run_times t;
    work_run_plan(w, &plan);
    int status = run_plan(&plan, CHOOSE_WARMUP, &t);
    if (status != HISTO_OK) {
        run_times_free(&t);
        return status;
    }
    const double each = t.wall_s / CHOOSE_WARMUP;
    run_times_free(&t);
    const double most = (double)BALANCE_SAMPLES
                        * (double)(plan.sample > 1 ? plan.sample : 1);
    double k = each > 0 ? BALANCE_S / each : most;
    k = k > most ? most : k;
    k = k < CHOOSE_MIN_TIMED ? CHOOSE_MIN_TIMED : k;
    c->balance_iterations = (unsigned long)k;
    if ((status = run_plan(&plan, c->balance_iterations, &t)) != HISTO_OK) {
        run_times_free(&t);
        return status;
    }
    c->balance_samples = t.samples;
    size_t count[WORK_MAX_SHARES];
    uint64_t units[WORK_MAX_SHARES];
    double *col = malloc((t.samples > 0 ? t.samples : 1) * sizeof *col);
    if (col == NULL) {
        run_times_free(&t);
        histo_error("out of host memory for the balance's times");
        return HISTO_EXIT_INTERNAL;
    }
    for (size_t s = 0; s < n; ++s) {
        const struct work_share_info sh = work_share_info(w, s);
        count[s] = sh.count;
        units[s] = device_units(sh.device);
        for (unsigned long i = 0; i < t.samples; ++i)
            col[i] = t.share_us[i * t.nshares + s];
        qsort(col, t.samples, sizeof *col, cmp_double);
        c->busy_us[s] = t.samples == 0 ? 0
                      : t.samples % 2 ? col[t.samples / 2]
                      : (col[t.samples / 2 - 1] + col[t.samples / 2]) / 2;
    }
    free(col);
    run_times_free(&t);
    const double fewer = choose_first_fewer(c->busy_us, count, units, n);
    c->first_fewer = (int64_t)llround(fewer);
    c->balance_why = "measured: the first share counts as many values "
                     "fewer as its extra busy time (the addition of the "
                     "others' sums) takes";
    c->balanced = true;
    if (c->first_fewer == 0)
        return HISTO_OK;
    work_set_first_fewer(w, c->first_fewer);
    status = work_reshare(w, n);
    c->first_fewer = work_first_fewer(w);
    return status;
}

int choose_devices(struct work *w, bool all, struct choice *c)
{
    *c = (struct choice){
        .all = all,
        .named = work_ndevices(w),
        .used = work_nshares(w),
    };
    if (!all) {
        c->why = "the devices --device names";
        /* the whole input went to the first device (work_plan): the
         * list's devices share it */
        if (work_can_reshare(w) && c->named > 1) {
            c->used = c->named;
            return work_reshare(w, c->named);
        }
        return HISTO_OK;
    }
    if (c->named == 1) {
        c->why = "the only device of the platform";
        return HISTO_OK;
    }
    if (!work_can_reshare(w)) {
        c->why = "the input is larger than the first device's budget, so "
                 "every device counts a share (not measured)";
        return HISTO_OK;
    }
    int status = HISTO_OK;
    for (size_t m = 1; m <= c->named; ++m) {
        if ((m > 1 && (status = work_reshare(w, m)) != HISTO_OK)
            || (status = measure(w, &c->wall_us[m - 1],
                                 &c->iterations[m - 1])) != HISTO_OK)
            return status;
        c->measured = m;
    }
    c->used = choose_fastest(c->wall_us, c->measured);
    c->why = "the fewest devices within " TEXT(CHOOSE_MARGIN_PERCENT)
             "% of the least wall time an iteration, each count measured";
    /* Tests: a count other than the fastest, so that every split after a
     * measured one is checked where one device is always fastest. */
    unsigned long forced = 0;
    if ((status = strategy_env_number("HISTO_TEST_DEVICES_USED", c->named,
                                      &forced)) != HISTO_OK)
        return status;
    if (forced != 0) {
        c->used = forced;
        c->why = "forced by HISTO_TEST_DEVICES_USED (for tests), each count "
                 "measured";
    }
    if (c->used != c->measured)
        status = work_reshare(w, c->used);
    return status;
}
