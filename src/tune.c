/*
 * tune.c - histo --tune: measuring candidate knobs (see tune.h).
 *
 * histo --tune times every candidate (a value of each knob) with the same
 * program, input and iteration count, one strategy setup each on the
 * input values uploaded once for all of them and the run after, and keeps
 * the lowest median device time per iteration: medians, because the
 * first iterations of a setup and the odd preempted one on a shared CPU
 * device would skew a mean. Every candidate must give the same bytes; one
 * that does not is a bug in the strategy, reported as such, and nothing
 * is stored.
 */
#include "tune.h"

#include "error.h"
#include "run.h"

#include <stdlib.h>
#include <string.h>

/* Sets up, runs, downloads and releases one candidate on the input
 * values already on the device (base->values); fills its times and the
 * histogram. Returns 0 or an exit status; *in_setup tells a failed setup
 * (a candidate the strategy refuses, e.g. too large for the device, or
 * whose new buffers the device cannot fill) from a failure after it. */
static int measure(const struct strategy *strategy,
                   const struct strategy_env *base, unsigned long iterations,
                   struct progress *progress, struct tune_candidate *c,
                   uint8_t *histo, bool *in_setup)
{
    struct strategy_env env = *base;
    struct run_times times = {0};
    void *state = NULL;
    env.knobs = c->asked;
    int status = strategy_setup(strategy, &env, &state);
    *in_setup = status != HISTO_OK;
    if (status != HISTO_OK)
        return status;
    /* One untimed iteration first: runtimes like PoCL compile a kernel
     * for its launch sizes when it is first enqueued. */
    if ((status = run_iterations(strategy, state, env.queue, 1, NULL,
                                 &times))
            != HISTO_OK)
        goto done;
    run_times_free(&times);
    if ((status = run_iterations(strategy, state, env.queue, iterations,
                                 progress, &times)) != HISTO_OK
        || (status = strategy->download(state, env.queue, histo))
               != HISTO_OK)
        goto done;
    /* Device times where the device's clock can be believed, else the
     * host's wall time per iteration (rusticl's spans are 1 ns). */
    c->wall_timed = run_device_clock_check(&times) != NULL;
    const struct run_stats s = run_stats(times.span_us, times.samples);
    c->median_us = s.median;
    c->mean_us = s.mean;
    if (c->wall_timed)
        c->median_us = c->mean_us
            = times.wall_s * 1e6 / (double)times.iterations;
    for (size_t k = 0; k < KNOB_COUNT; ++k)
        c->used.v[k] = -1;
    if (strategy->used != NULL)
        strategy->used(state, &c->used);
done:
    run_times_free(&times);
    strategy->release(state);
    return status;
}

static void print_used(FILE *out, long v)
{
    if (v < 0)
        fprintf(out, " %7s", "-");
    else
        fprintf(out, " %7ld", v);
}

static void print_table(FILE *out, const struct tune_result *r)
{
    const double best = r->candidates[r->best].median_us;
    for (size_t i = 0; i < r->ncandidates; ++i)
        if (r->candidates[i].wall_timed) {
            fputs("histo: the device's profiling timestamps are unusable: "
                  "the times below are wall-clock means on the host\n", out);
            break;
        }
    for (size_t k = 0; k < KNOB_COUNT; ++k)
        fprintf(out, "%s%*s", k ? " " : "", knob_table[k].width,
                knob_table[k].letter);
    for (size_t k = 0; k < KNOB_COUNT; ++k)
        fprintf(out, " %2s used", knob_table[k].letter);
    fprintf(out, " %12s %12s %7s\n", "median us", "mean us", "x best");
    for (size_t i = 0; i < r->ncandidates; ++i) {
        const struct tune_candidate *c = &r->candidates[i];
        for (size_t k = 0; k < KNOB_COUNT; ++k)
            fprintf(out, "%s%*u", k ? " " : "", knob_table[k].width,
                    c->asked.v[k]);
        if (c->skipped) {
            fprintf(out, "  skipped: the strategy cannot set it up\n");
            continue;
        }
        for (size_t k = 0; k < KNOB_COUNT; ++k)
            print_used(out, c->used.v[k]);
        fprintf(out, " %12.1f %12.1f %7.3f%s\n", c->median_us, c->mean_us,
                best > 0 ? c->median_us / best : 1.0,
                c->differs ? "  DIFFERENT HISTOGRAM"
                           : i == r->best ? "  best" : "");
    }
}

/* First bin where a and b differ, and how many do. */
static size_t first_difference(const uint8_t *a, const uint8_t *b, size_t n,
                               size_t *count)
{
    size_t first = n;
    *count = 0;
    for (size_t i = 0; i < n; ++i)
        if (a[i] != b[i]) {
            if (first == n)
                first = i;
            ++*count;
        }
    return first;
}

/* Candidate c measured against the strategy's own choice (first);
 * returns 0, or an exit status that ends the tuning (a failed run, or a
 * different histogram: a bug in the strategy, said on stderr). A
 * candidate the strategy cannot set up is marked skipped. */
static int try_candidate(const struct strategy *strategy,
                         const struct strategy_env *base,
                         unsigned long iterations, struct progress *progress,
                         struct tune_candidate *c, const uint8_t *first,
                         uint8_t *histo)
{
    bool in_setup;
    const size_t nbins = base->input->nbins;
    const int st = measure(strategy, base, iterations, progress, c, histo,
                           &in_setup);
    char asked[64];
    knob_format(asked, sizeof asked, &c->asked);
    if (st != HISTO_OK && in_setup) { /* setup said why */
        histo_error("warning: tune: %s skipped", asked);
        c->skipped = true;
        return HISTO_OK;
    }
    if (st != HISTO_OK)
        return st;
    size_t ndiff;
    const size_t at = first_difference(first, histo, nbins, &ndiff);
    if (ndiff == 0)
        return HISTO_OK;
    c->differs = true;
    char first_asked[64];
    const struct knob_values none = {{0}};
    knob_format(first_asked, sizeof first_asked, &none);
    histo_error("tune: %s gives a different histogram from %s: %zu bin%s "
                "differ, the first is bin %zu (%u, not %u): a bug in "
                "strategy %s", asked, first_asked, ndiff,
                ndiff == 1 ? "" : "s", at, (unsigned)histo[at],
                (unsigned)first[at], strategy->name);
    return HISTO_EXIT_DEVICE;
}

/* Each knob's candidates (knob->candidates for a knob the strategy
 * honours, else only 0) into lists[k], their counts into n[k]; returns
 * how many combinations there are. */
static size_t knob_lists(const struct strategy *strategy,
                         const struct strategy_env *base,
                         const struct knob_used *first,
                         unsigned lists[][KNOB_MAX_CANDIDATES], size_t *n)
{
    size_t total = 1;
    struct knob_tune_context ctx = {
        .compute_units = device_units(base->device),
        .values = base->input->nvalues,
    };
    for (size_t k = 0; k < KNOB_COUNT; ++k) {
        ctx.first_used = first->v[k];
        lists[k][0] = 0;
        n[k] = strategy->knobs & KNOB_BIT(k)
               ? knob_table[k].candidates(&ctx, lists[k]) : 1;
        total *= n[k];
    }
    return total;
}

/* Every candidate after the first, r->candidates[0] (every knob 0, the
 * strategy's own choice), whose histogram `first` is: each combination of
 * the knobs' candidates, the last knob's varying fastest. A disagreement
 * sets *disagree and the others still run, so the table shows them all;
 * any other failure ends the tuning. */
static int try_candidates(const struct strategy *strategy,
                          const struct strategy_env *base,
                          unsigned long iterations, struct progress *progress,
                          struct tune_result *r, const uint8_t *first,
                          uint8_t *histo, bool *disagree)
{
    unsigned lists[KNOB_COUNT][KNOB_MAX_CANDIDATES];
    size_t n[KNOB_COUNT];
    const size_t total = knob_lists(strategy, base, &r->candidates[0].used,
                                    lists, n);
    const size_t planned = total < TUNE_MAX_CANDIDATES ? total
                                                       : TUNE_MAX_CANDIDATES;
    *disagree = false;
    for (size_t x = 1; x < total && r->ncandidates < TUNE_MAX_CANDIDATES;
         ++x) {
        struct tune_candidate *c = &r->candidates[r->ncandidates];
        memset(c, 0, sizeof *c);
        for (size_t k = KNOB_COUNT, rest = x; k-- > 0; rest /= n[k])
            c->asked.v[k] = lists[k][rest % n[k]];
        if (!knob_any(&c->asked)) /* the first */
            continue;
        ++r->ncandidates;
        progress_rebase(progress, (r->ncandidates - 1) * iterations,
                        planned * iterations);
        const int st = try_candidate(strategy, base, iterations, progress, c,
                                     first, histo);
        if (st != HISTO_OK && !c->differs)
            return st;
        *disagree = *disagree || c->differs;
    }
    return HISTO_OK;
}

/* The fastest candidate that ran and agreed. */
static void pick_best(struct tune_result *r)
{
    for (size_t i = 1; i < r->ncandidates; ++i) {
        const struct tune_candidate *ci = &r->candidates[i];
        if (!ci->skipped && !ci->differs
            && ci->median_us < r->candidates[r->best].median_us)
            r->best = i;
    }
}

/* The best knobs into k and, unless --no-tune-cache or there is no cache
 * file, into the tune cache; the end of the line "best ..." says which. */
static void store_best(const struct tune_result *r, const struct tune_key *key,
                       bool no_tune_cache, struct tune_knobs *k, FILE *out)
{
    const struct tune_candidate *best = &r->candidates[r->best];
    k->values = best->asked;
    k->from = TUNE_FROM_TUNING;
    char asked[64];
    knob_format(asked, sizeof asked, &best->asked);
    fprintf(out, "histo: tune: best %s (0: the strategy decides), %.1f us "
                 "median", asked, best->median_us);
    if (no_tune_cache) {
        fputs("; not stored (--no-tune-cache)\n", out);
        return;
    }
    if (tune_cache_path(k->cache, sizeof k->cache) != 0) {
        fputs("; not stored\n", out);
        histo_error("warning: no tune cache file (set HISTO_TUNE_FILE, "
                    "XDG_CACHE_HOME or HOME); the result is not stored");
        return;
    }
    const struct tune_entry e = {.key = *key, .knobs = best->asked};
    /* The cache is a convenience; the run's outputs are its job. */
    if (tune_cache_store(k->cache, &e) != HISTO_OK) {
        fputs("; not stored\n", out);
        histo_error("warning: the tune cache '%s' was not written; the run "
                    "goes on with the best knobs", k->cache);
        k->cache[0] = '\0';
    } else {
        fprintf(out, "; stored in %s\n", k->cache);
    }
}

int tune_run(const struct strategy *strategy,
             const struct strategy_env *base, unsigned long iterations,
             bool no_tune_cache, const struct tune_key *key,
             struct tune_result *r, struct tune_knobs *k,
             struct progress *progress, FILE *out)
{
    int status = HISTO_OK;
    const size_t nbins = base->input->nbins;
    uint8_t *first = NULL, *histo = NULL;
    memset(r, 0, sizeof *r);
    memset(k, 0, sizeof *k);
    r->iterations = iterations;
    HOST_ALLOC(first, nbins);
    HOST_ALLOC(histo, nbins);

    /* The strategy's own choice first: its histogram is the one every
     * other candidate must match, and it tells the most rows a tile
     * holds. Progress counts timed iterations; the candidates' number is
     * known once the first has run. */
    bool in_setup, disagree;
    r->ncandidates = 1;
    progress_begin(progress, "tune: candidate", "", 0, iterations);
    if ((status = measure(strategy, base, iterations, progress,
                          &r->candidates[0], first, &in_setup)) != HISTO_OK)
        goto fail;
    if ((status = try_candidates(strategy, base, iterations, progress, r,
                                 first, histo, &disagree)) != HISTO_OK)
        goto fail;
    pick_best(r);
    fprintf(out, "histo: tune: strategy %s on %s, %zu candidates, %lu "
                 "timed iteration%s each\n", strategy->name, key->device,
            r->ncandidates, iterations, iterations == 1 ? "" : "s");
    print_table(out, r);
    if (disagree) {
        status = HISTO_EXIT_DEVICE;
        histo_error("tune: candidates disagree on the histogram (a "
                    "correctness bug); nothing stored, no output written");
        goto fail;
    }
    store_best(r, key, no_tune_cache, k, out);
fail:
    free(first);
    free(histo);
    return status;
}
