/*
 * tune.c - histo --tune: measuring candidate knobs (see tune.h).
 *
 * histo --tune times every candidate (B, w, R) with the same program, input
 * and iteration count, one strategy setup each on the input values
 * uploaded once for all of them and the run after, and keeps the lowest
 * median device time per iteration: medians, because the first iterations
 * of a setup and the odd preempted one on a shared CPU device would skew a
 * mean. Every candidate must give the same bytes; one that does not is a
 * bug in the strategy, reported as such, and nothing is stored.
 */
#include "tune.h"

#include "error.h"
#include "params.h"
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
    env.batches = c->batches;
    env.tile_rows = c->tile_rows;
    env.replicas = c->replicas;
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
    const struct run_stats s = run_stats(times.span_us, times.iterations);
    c->median_us = s.median;
    c->mean_us = s.mean;
    if (c->wall_timed)
        c->median_us = c->mean_us
            = times.wall_s * 1e6 / (double)times.iterations;
    struct strategy_used used;
    strategy->used(state, &used);
    c->batches_used = used.batches;
    c->tile_rows_used = used.tile_rows;
    c->replicas_used = used.replicas;
done:
    run_times_free(&times);
    strategy->release(state);
    return status;
}

/* Adds v to the n values of list unless it is there. */
static void add_unique(unsigned *list, size_t *n, unsigned v)
{
    for (size_t i = 0; i < *n; ++i)
        if (list[i] == v)
            return;
    list[(*n)++] = v;
}

/* B: automatic, then, for strategies with batches, a spread around one
 * batch per compute unit, at most one batch per HISTO_MIN_GROUP_VALUES
 * values (fewer are not worth a batch's fixed cost) and never more than
 * --batches accepts. */
static size_t batch_candidates(const struct strategy *strategy,
                               const struct strategy_env *env, unsigned *b)
{
    size_t n = 0;
    add_unique(b, &n, 0);
    if (!strategy->uses_batches)
        return n;
    const uint64_t units = device_units(env->device);
    uint64_t cap = env->input->nvalues / HISTO_MIN_GROUP_VALUES;
    if (cap < 1)
        cap = 1;
    if (cap > CLI_MAX_BATCHES)
        cap = CLI_MAX_BATCHES;
    const uint64_t spread[] = {units / 4, units / 2, units, 2 * units,
                               4 * units};
    for (size_t i = 0; i < sizeof spread / sizeof spread[0]; ++i)
        if (spread[i] >= 1)
            add_unique(b, &n, (unsigned)(spread[i] < cap ? spread[i] : cap));
    return n;
}

/* w: the maximum (0), a half and a quarter of it, for strategies with
 * tiles whose maximum is known and at least a row. */
static size_t row_candidates(const struct strategy *strategy, long max,
                             unsigned *w)
{
    size_t n = 0;
    add_unique(w, &n, 0);
    if (!strategy->uses_tiles || max < 2)
        return n;
    if (max / 2 >= 1)
        add_unique(w, &n, (unsigned)(max / 2));
    if (max / 4 >= 1)
        add_unique(w, &n, (unsigned)(max / 4));
    return n;
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
    fprintf(out, "%6s %6s %3s %7s %7s %7s %12s %12s %7s\n", "B", "w", "R",
            "B used", "w used", "R used", "median us", "mean us", "x best");
    for (size_t i = 0; i < r->ncandidates; ++i) {
        const struct tune_candidate *c = &r->candidates[i];
        fprintf(out, "%6u %6u %3u", c->batches, c->tile_rows, c->replicas);
        if (c->skipped) {
            fprintf(out, "  skipped: the strategy cannot set it up\n");
            continue;
        }
        print_used(out, c->batches_used);
        print_used(out, c->tile_rows_used);
        print_used(out, c->replicas_used);
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
    if (st != HISTO_OK && in_setup) { /* setup said why */
        histo_error("warning: tune: B=%u w=%u R=%u skipped", c->batches,
                    c->tile_rows, c->replicas);
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
    histo_error("tune: B=%u w=%u R=%u gives a different histogram from "
                "B=0 w=0 R=0: %zu bin%s differ, the first is bin %zu (%u, "
                "not %u): a bug in strategy %s",
                c->batches, c->tile_rows, c->replicas, ndiff,
                ndiff == 1 ? "" : "s", at, (unsigned)histo[at],
                (unsigned)first[at], strategy->name);
    return HISTO_EXIT_DEVICE;
}

/* Every candidate (B, w, R) after the first, r->candidates[0], whose
 * histogram `first` is: B from batch_candidates, w from row_candidates
 * (the first's rows and fractions of them), R the strategy's default (0),
 * one copy and four. A disagreement sets *disagree and the others still
 * run, so the table shows them all; any other failure ends the tuning. */
static int try_candidates(const struct strategy *strategy,
                          const struct strategy_env *base,
                          unsigned long iterations, struct progress *progress,
                          struct tune_result *r, const uint8_t *first,
                          uint8_t *histo, bool *disagree)
{
    unsigned bs[8], ws[4];
    const size_t nb = batch_candidates(strategy, base, bs);
    const size_t nw = row_candidates(strategy,
                                     r->candidates[0].tile_rows_used, ws);
    const unsigned rs[] = {0, 1, 4};
    const size_t nr = strategy->uses_replicas ? 3 : 1;
    const size_t planned = nb * nw * nr < TUNE_MAX_CANDIDATES
                           ? nb * nw * nr : TUNE_MAX_CANDIDATES;
    *disagree = false;
    for (size_t x = 0; x < nb * nw * nr; ++x) {
        const unsigned b = bs[x / (nw * nr)], w = ws[x / nr % nw];
        const unsigned copies = rs[x % nr];
        /* (0, 0, 0) is the first */
        if ((b == 0 && w == 0 && copies == 0)
            || r->ncandidates == TUNE_MAX_CANDIDATES)
            continue;
        struct tune_candidate *c = &r->candidates[r->ncandidates++];
        c->batches = b;
        c->tile_rows = w;
        c->replicas = copies;
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
    k->batches = best->batches;
    k->tile_rows = best->tile_rows;
    k->replicas = best->replicas;
    k->from = TUNE_FROM_TUNING;
    fprintf(out, "histo: tune: best B=%u w=%u R=%u (0: the strategy "
                 "decides), %.1f us median", best->batches, best->tile_rows,
            best->replicas, best->median_us);
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
    const struct tune_entry e = {
        .key = *key,
        .batches = best->batches,
        .tile_rows = best->tile_rows,
        .replicas = best->replicas,
    };
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
             const struct histo_options *opt, const struct tune_key *key,
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
    store_best(r, key, opt->no_tune_cache, k, out);
fail:
    free(first);
    free(histo);
    return status;
}
