/* choose.c - the device count of --device all, measured (see choose.h). */
#include "choose.h"

#include "error.h"
#include "run.h"

_Static_assert(WORK_MAX_SHARES == 16,
               "env.h bounds HISTO_TEST_DEVICES_USED by WORK_MAX_SHARES");

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

/* The current split's wall mean an iteration: CHOOSE_WARMUP iterations
 * and one more for each set of sums (work_nsets: a set's buffers are
 * first used by its first iteration, which can cost the implementation
 * a first touch), then as many as fill CHOOSE_TIMED_S by their time,
 * within the bounds. */
static int measure(struct work *w, double *wall_us, unsigned long *timed)
{
    struct run_plan plan;
    struct run_times t;
    const unsigned long warmup = CHOOSE_WARMUP + work_nsets(w);
    work_run_plan(w, &plan);
    int status = run_plan(&plan, warmup, &t);
    if (status != HISTO_OK) {
        run_times_free(&t);
        return status;
    }
    const double each = t.wall_s / (double)warmup;
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

int choose_devices(struct work *w, bool all, struct choice *c)
{
    *c = (struct choice){
        .all = all,
        .named = work_ndevices(w),
        .used = work_nshares(w),
    };
    if (!all) {
        c->why = "the devices --device names";
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
    /* all of them first, in this context of all; then each fewer, in
     * its own, filled from the input held in host memory, where the host
     * has room for it (else in the context of all); the work holds the
     * last */
    bool held = false;
    int status = work_hold(w, &held);
    c->context = held ? "each count's devices alone (the input held in "
                        "host memory, read once)"
                      : "every device named (too little host memory to "
                        "hold a copy of the input)";
    for (size_t i = 0; i < c->named && status == HISTO_OK; ++i) {
        const size_t m = i == 0 ? c->named : i;
        if ((status = i > 0 && held ? work_recontext(w, m)
                                    : work_reshare(w, m)) == HISTO_OK)
            status = measure(w, &c->wall_us[m - 1], &c->iterations[m - 1]);
    }
    if (status != HISTO_OK)
        return status;
    c->measured = c->named;
    c->used = choose_fastest(c->wall_us, c->measured);
    c->why = "the fewest devices within " TEXT(CHOOSE_MARGIN_PERCENT)
             "% of the least wall time an iteration, each count measured";
    /* Tests: a count other than the fastest, so that every split after a
     * measured one is checked where one device is always fastest. */
    unsigned long forced = 0;
    if ((status = env_whole(ENV_HISTO_TEST_DEVICES_USED, &forced))
        != HISTO_OK)
        return status;
    if (forced > c->named) {
        histo_error("HISTO_TEST_DEVICES_USED is %lu, more than the %zu "
                    "devices named", forced, c->named);
        return HISTO_EXIT_USAGE;
    }
    if (forced != 0) {
        c->used = forced;
        c->why = "forced by HISTO_TEST_DEVICES_USED (for tests), each count "
                 "measured";
    }
    if (c->used != c->named - 1)
        status = held ? work_recontext(w, c->used)
                      : work_reshare(w, c->used);
    work_unhold(w);
    return status;
}
