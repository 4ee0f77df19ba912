/*
 * tune.c - knobs from the command line, the tune cache or measurement
 * (see tune.h).
 *
 * histo --tune times every candidate (B, w) with the same program, input
 * and iteration count, one strategy setup each on the input values
 * uploaded once for all of them and the run after, and keeps the lowest
 * median device time per iteration: medians, because the first iterations
 * of a setup and the odd preempted one on a shared CPU device would skew a
 * mean. Every candidate must give the same bytes; one that does not is a
 * bug in the strategy, reported as such, and nothing is stored.
 */
#include "tune.h"

#include "outfile.h"
#include "params.h"
#include "run.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Larger cache files are ignored: they are not what --tune writes. */
#define CACHE_MAX_BYTES (1u << 20)
#define LINE_MAX_CHARS 1024

static const char *const source_names[] = {
    [TUNE_FROM_DEFAULT] = "default",
    [TUNE_FROM_COMMAND_LINE] = "command line",
    [TUNE_FROM_CACHE] = "tune cache",
    [TUNE_FROM_TUNING] = "tuning",
};

const char *tune_source_name(enum tune_source from)
{
    return source_names[from];
}

unsigned tune_values_log2(uint64_t n)
{
    unsigned k = 0;
    while (n > 1) {
        n >>= 1;
        ++k;
    }
    return k;
}

/* Copies src into dst (size len) without leading and trailing white space
 * and with control characters as '?', so every key fits on one line and
 * reads back the same. */
static void copy_trimmed(char *dst, size_t len, const char *src)
{
    while (isspace((unsigned char)*src))
        ++src;
    size_t n = strlen(src);
    while (n > 0 && isspace((unsigned char)src[n - 1]))
        --n;
    if (n >= len)
        n = len - 1;
    for (size_t i = 0; i < n; ++i)
        dst[i] = iscntrl((unsigned char)src[i]) ? '?' : src[i];
    dst[n] = '\0';
}

void tune_key_of(struct tune_key *key, const struct device_info *device,
                 const struct strategy *strategy,
                 const struct histo_input *input)
{
    memset(key, 0, sizeof *key);
    copy_trimmed(key->device, sizeof key->device, device->name);
    copy_trimmed(key->strategy, sizeof key->strategy, strategy->name);
    key->histo_width = input->histo_width;
    key->histo_height = input->histo_height;
    key->values_log2 = tune_values_log2(input->nvalues);
}

static bool key_equal(const struct tune_key *a, const struct tune_key *b)
{
    return strcmp(a->device, b->device) == 0
        && strcmp(a->strategy, b->strategy) == 0
        && a->histo_width == b->histo_width
        && a->histo_height == b->histo_height
        && a->values_log2 == b->values_log2;
}

int tune_cache_path(char *buf, size_t len)
{
    const char *file = getenv("HISTO_TUNE_FILE");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (file != NULL && *file != '\0')
        n = snprintf(buf, len, "%s", file);
    else if (xdg != NULL && xdg[0] == '/') /* relative ones are invalid */
        n = snprintf(buf, len, "%s/histo/tune.conf", xdg);
    else if (home != NULL && *home != '\0')
        n = snprintf(buf, len, "%s/.cache/histo/tune.conf", home);
    else
        n = -1;
    if (n < 0 || (size_t)n >= len) {
        if (len > 0)
            buf[0] = '\0';
        return -1;
    }
    return 0;
}

/* ---- cache lines ---- */

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        ++s;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* A decimal number in [min, max] at *p (after blanks), advancing *p. */
static bool number(char **p, unsigned long min, unsigned long max,
                   unsigned long *v)
{
    while (**p == ' ' || **p == '\t')
        ++*p;
    if (!isdigit((unsigned char)**p))
        return false;
    char *end = NULL;
    errno = 0;
    *v = strtoul(*p, &end, 10);
    if (errno == ERANGE || *v < min || *v > max)
        return false;
    *p = end;
    return true;
}

/* The word w at *p (after blanks), followed by a blank; advances *p. */
static bool word(char **p, const char *w)
{
    while (**p == ' ' || **p == '\t')
        ++*p;
    const size_t n = strlen(w);
    if (strncmp(*p, w, n) != 0 || ((*p)[n] != ' ' && (*p)[n] != '\t'))
        return false;
    *p += n;
    return true;
}

/* Splits s at its last c: returns what follows (s keeps what precedes). */
static char *split_last(char *s, int c)
{
    char *at = strrchr(s, c);
    if (at == NULL)
        return NULL;
    *at = '\0';
    return at + 1;
}

int tune_parse_line(const char *line, struct tune_entry *e)
{
    char buf[LINE_MAX_CHARS];
    const size_t len = strlen(line);
    if (len >= sizeof buf)
        return -1;
    memcpy(buf, line, len + 1);
    char *s = trim(buf);
    if (*s == '\0' || *s == '#')
        return 0;

    /* From the right: a device name may hold '|' or '=', nothing else
     * may. */
    memset(e, 0, sizeof *e);
    char *value = split_last(s, '=');
    char *bucket = value != NULL ? split_last(s, '|') : NULL;
    char *shape = bucket != NULL ? split_last(s, '|') : NULL;
    char *strategy = shape != NULL ? split_last(s, '|') : NULL;
    if (strategy == NULL)
        return -1;
    char *device = trim(s);
    strategy = trim(strategy);
    if (*device == '\0' || strlen(device) >= sizeof e->key.device
        || *strategy == '\0' || strlen(strategy) >= sizeof e->key.strategy
        || strpbrk(strategy, " \t") != NULL)
        return -1;
    strcpy(e->key.device, device);
    strcpy(e->key.strategy, strategy);

    unsigned long w, h, k, b, rows;
    shape = trim(shape);
    if (!number(&shape, 1, UINT32_MAX, &w) || *shape++ != 'x'
        || !number(&shape, 1, UINT32_MAX, &h) || *shape != '\0')
        return -1;
    bucket = trim(bucket);
    if (strncmp(bucket, "2^", 2) != 0)
        return -1;
    bucket += 2;
    if (!number(&bucket, 0, 63, &k) || *bucket != '\0')
        return -1;
    value = trim(value);
    if (!word(&value, "batches") || !number(&value, 0, CLI_MAX_BATCHES, &b)
        || !word(&value, "tile_rows")
        || !number(&value, 0, CLI_MAX_TILE_ROWS, &rows) || *value != '\0')
        return -1;
    e->key.histo_width = (uint32_t)w;
    e->key.histo_height = (uint32_t)h;
    e->key.values_log2 = (unsigned)k;
    e->batches = (unsigned)b;
    e->tile_rows = (unsigned)rows;
    return 1;
}

void tune_format_line(FILE *f, const struct tune_entry *e)
{
    fprintf(f, "%s | %s | %" PRIu32 "x%" PRIu32 " | 2^%u = batches %u "
               "tile_rows %u\n", e->key.device, e->key.strategy,
            e->key.histo_width, e->key.histo_height, e->key.values_log2,
            e->batches, e->tile_rows);
}

/* ---- the cache file ---- */

/* The whole file, NUL-terminated, or NULL when it is missing, unreadable
 * or too large (then like no cache; too large is said). */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *text = malloc(CACHE_MAX_BYTES + 1);
    if (text == NULL) {
        fclose(f);
        return NULL;
    }
    *len = fread(text, 1, CACHE_MAX_BYTES + 1, f);
    const bool failed = ferror(f) != 0;
    fclose(f);
    if (failed || *len > CACHE_MAX_BYTES) {
        if (!failed)
            histo_error("warning: tune cache '%s' is over %u bytes; ignored",
                        path, CACHE_MAX_BYTES);
        free(text);
        return NULL;
    }
    text[*len] = '\0';
    return text;
}

/* The next line of *p, NUL-terminated in place; NULL at the end. */
static char *next_line(char **p, char *end)
{
    if (*p >= end)
        return NULL;
    char *line = *p;
    char *nl = memchr(line, '\n', (size_t)(end - line));
    if (nl != NULL) {
        *nl = '\0';
        *p = nl + 1;
    } else {
        *p = end;
    }
    return line;
}

static void warn_malformed(const char *path, unsigned long lineno)
{
    histo_error("warning: %s:%lu: malformed tune cache line ignored "
                "(expected 'DEVICE | STRATEGY | WxH | 2^K = batches B "
                "tile_rows W')", path, lineno);
}

int tune_cache_lookup(const char *path, const struct tune_key *key,
                      struct tune_entry *e)
{
    size_t len = 0;
    char *text = slurp(path, &len);
    if (text == NULL)
        return 0;
    int found = 0;
    char *p = text, *line;
    unsigned long lineno = 0;
    struct tune_entry cand;
    while ((line = next_line(&p, text + len)) != NULL) {
        ++lineno;
        const int kind = tune_parse_line(line, &cand);
        if (kind < 0)
            warn_malformed(path, lineno);
        else if (kind > 0 && !found && key_equal(&cand.key, key)) {
            *e = cand;
            found = 1;
        }
    }
    free(text);
    return found;
}

/* Creates the folders above path (those that exist are fine). */
static void make_parents(const char *path)
{
    char dir[TUNE_PATH_MAX];
    if (strlen(path) >= sizeof dir)
        return;
    strcpy(dir, path);
    for (char *s = dir + 1; *s != '\0'; ++s) {
        if (*s != '/')
            continue;
        *s = '\0';
        (void)mkdir(dir, 0777); /* failures show when the file is opened */
        *s = '/';
    }
}

int tune_cache_store(const char *path, const struct tune_entry *e)
{
    /* Read, change and replace under the lock, so concurrent --tune runs
     * each add their line; without a lock (a device, or none to be had)
     * the write itself still replaces the file whole. */
    make_parents(path);
    const int lock = outfile_lock(path);
    size_t len = 0;
    char *text = slurp(path, &len);
    struct outfile out;
    int status = outfile_open(&out, path);
    if (status != HISTO_OK) {
        free(text);
        outfile_unlock(lock);
        return status;
    }
    out.shared = true;
    bool replaced = false;
    if (text == NULL || len == 0)
        fputs("# histo --tune: the best knobs per device, strategy, "
              "histogram and 2^K values\n# DEVICE | STRATEGY | WxH | 2^K = "
              "batches B tile_rows W (0: the strategy decides)\n", out.f);
    if (text != NULL) {
        char *p = text, *line;
        unsigned long lineno = 0;
        struct tune_entry old;
        while ((line = next_line(&p, text + len)) != NULL) {
            ++lineno;
            const int kind = tune_parse_line(line, &old);
            if (kind > 0 && key_equal(&old.key, &e->key)) {
                if (!replaced)
                    tune_format_line(out.f, e);
                replaced = true; /* later duplicates go */
                continue;
            }
            if (kind < 0)
                warn_malformed(path, lineno); /* kept as the user wrote it */
            fprintf(out.f, "%s\n", line);
        }
        free(text);
    }
    if (!replaced)
        tune_format_line(out.f, e);
    status = outfile_commit(&out);
    outfile_unlock(lock);
    return status;
}

void tune_choose(const struct histo_options *opt, const struct tune_key *key,
                 const struct strategy *strategy, struct tune_knobs *k)
{
    memset(k, 0, sizeof *k);
    k->from = TUNE_FROM_DEFAULT;
    if (opt->tile_rows != 0 && !strategy->uses_tiles)
        histo_error("warning: strategy %s has no tiles; --tile-rows "
                    "ignored", strategy->name);
    if (opt->batches != 0 || opt->tile_rows != 0) {
        k->batches = opt->batches;
        k->tile_rows = opt->tile_rows;
        k->from = TUNE_FROM_COMMAND_LINE;
        return;
    }
    struct tune_entry e;
    if (opt->no_tune_cache || tune_cache_path(k->cache, sizeof k->cache) != 0
        || !tune_cache_lookup(k->cache, key, &e)) {
        k->cache[0] = '\0';
        return;
    }
    k->batches = e.batches;
    k->tile_rows = strategy->uses_tiles ? e.tile_rows : 0;
    k->from = TUNE_FROM_CACHE;
}

/* ---- measuring ---- */

/* The value of "key = N" in the strategy's report lines (documented,
 * stable keys), or -1 when it has none. */
static long report_value(const struct strategy *strategy, const void *state,
                         const char *key)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return -1;
    strategy->report(state, f);
    if (fclose(f) != 0) {
        free(text);
        return -1;
    }
    long v = -1;
    const size_t klen = strlen(key);
    for (const char *p = text; p != NULL && *p != '\0';) {
        if (strncmp(p, key, klen) == 0 && strncmp(p + klen, " = ", 3) == 0
            && isdigit((unsigned char)p[klen + 3])) {
            char *end = NULL;
            errno = 0;
            const unsigned long u = strtoul(p + klen + 3, &end, 10);
            if (errno == 0 && (*end == '\n' || *end == '\0')
                && u <= (unsigned long)LONG_MAX)
                v = (long)u;
            break;
        }
        p = strchr(p, '\n');
        if (p != NULL)
            ++p;
    }
    free(text);
    return v;
}

/* Sets up, runs, downloads and releases one candidate on the input
 * values already on the device (base->values); fills its times and the
 * histogram. Returns 0 or an exit status; *in_setup tells a failed setup
 * (a candidate the strategy refuses, e.g. too large for the device, or
 * whose new buffers the device cannot fill) from a failure after it. */
static int measure(const struct strategy *strategy,
                   const struct strategy_env *base, unsigned long iterations,
                   struct tune_candidate *c, uint8_t *histo, bool *in_setup)
{
    struct strategy_env env = *base;
    struct run_times times = {0};
    void *state = NULL;
    env.batches = c->batches;
    env.tile_rows = c->tile_rows;
    int status = strategy_setup(strategy, &env, &state);
    *in_setup = status != HISTO_OK;
    if (status != HISTO_OK)
        return status;
    /* One untimed iteration first: runtimes like PoCL compile a kernel
     * for its launch sizes when it is first enqueued. */
    if ((status = run_iterations(strategy, state, env.queue, 1, &times))
            != HISTO_OK)
        goto done;
    run_times_free(&times);
    if ((status = run_iterations(strategy, state, env.queue, iterations,
                                 &times)) != HISTO_OK
        || (status = strategy->download(state, env.queue, histo))
               != HISTO_OK)
        goto done;
    const struct run_stats s = run_stats(times.span_us, times.iterations);
    c->median_us = s.median;
    c->mean_us = s.mean;
    c->batches_used = report_value(strategy, state, "config.batches");
    c->tile_rows_used = report_value(strategy, state, "config.tile_rows");
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

/* B: automatic, then a spread around one batch per compute unit, at most
 * one batch per HISTO_MIN_GROUP_VALUES values (fewer are not worth a
 * batch's fixed cost) and never more than --batches accepts. */
static size_t batch_candidates(const struct strategy_env *env, unsigned *b)
{
    const uint64_t units = env->device->compute_units > 0
                         ? env->device->compute_units : 1;
    uint64_t cap = env->input->nvalues / HISTO_MIN_GROUP_VALUES;
    if (cap < 1)
        cap = 1;
    if (cap > CLI_MAX_BATCHES)
        cap = CLI_MAX_BATCHES;
    const uint64_t spread[] = {units / 4, units / 2, units, 2 * units,
                               4 * units};
    size_t n = 0;
    add_unique(b, &n, 0);
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
    fprintf(out, "%6s %6s %7s %7s %12s %12s %7s\n", "B", "w", "B used",
            "w used", "median us", "mean us", "x best");
    for (size_t i = 0; i < r->ncandidates; ++i) {
        const struct tune_candidate *c = &r->candidates[i];
        fprintf(out, "%6u %6u", c->batches, c->tile_rows);
        if (c->skipped) {
            fprintf(out, "  skipped: the strategy cannot set it up\n");
            continue;
        }
        print_used(out, c->batches_used);
        print_used(out, c->tile_rows_used);
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

int tune_run(const struct strategy *strategy,
             const struct strategy_env *base, unsigned long iterations,
             const struct histo_options *opt, const struct tune_key *key,
             struct tune_result *r, struct tune_knobs *k, FILE *out)
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
     * holds. */
    struct tune_candidate *c = &r->candidates[0];
    bool in_setup;
    r->ncandidates = 1;
    if ((status = measure(strategy, base, iterations, c, first, &in_setup))
        != HISTO_OK)
        goto fail;
    unsigned bs[8], ws[4];
    const size_t nb = batch_candidates(base, bs);
    const size_t nw = row_candidates(strategy, c->tile_rows_used, ws);
    for (size_t i = 0; i < nb; ++i)
        for (size_t j = 0; j < nw; ++j) {
            if ((bs[i] == 0 && ws[j] == 0)
                || r->ncandidates == TUNE_MAX_CANDIDATES)
                continue;
            c = &r->candidates[r->ncandidates++];
            c->batches = bs[i];
            c->tile_rows = ws[j];
            const int st = measure(strategy, base, iterations, c, histo,
                                   &in_setup);
            if (st != HISTO_OK && in_setup) { /* setup said why */
                histo_error("warning: tune: B=%u w=%u skipped",
                            c->batches, c->tile_rows);
                c->skipped = true;
                continue;
            }
            if (st != HISTO_OK) {
                status = st;
                goto fail;
            }
            size_t ndiff;
            const size_t at = first_difference(first, histo, nbins, &ndiff);
            if (ndiff > 0) {
                c->differs = true;
                histo_error("tune: B=%u w=%u gives a different histogram "
                            "from B=0 w=0: %zu bin%s differ, the first is "
                            "bin %zu (%u, not %u): a bug in strategy %s",
                            c->batches, c->tile_rows, ndiff,
                            ndiff == 1 ? "" : "s", at,
                            (unsigned)histo[at], (unsigned)first[at],
                            strategy->name);
                status = HISTO_EXIT_DEVICE;
            }
        }

    for (size_t i = 1; i < r->ncandidates; ++i) {
        const struct tune_candidate *ci = &r->candidates[i];
        if (!ci->skipped && !ci->differs
            && ci->median_us < r->candidates[r->best].median_us)
            r->best = i;
    }
    const struct tune_candidate *best = &r->candidates[r->best];
    fprintf(out, "histo: tune: strategy %s on %s, %zu candidates, %lu "
                 "timed iteration%s each\n", strategy->name, key->device,
            r->ncandidates, iterations, iterations == 1 ? "" : "s");
    print_table(out, r);
    if (status != HISTO_OK) {
        histo_error("tune: candidates disagree on the histogram (a "
                    "correctness bug); nothing stored, no output written");
        goto fail;
    }

    k->batches = best->batches;
    k->tile_rows = best->tile_rows;
    k->from = TUNE_FROM_TUNING;
    fprintf(out, "histo: tune: best B=%u w=%u (0: the strategy decides), "
                 "%.1f us median", best->batches, best->tile_rows,
            best->median_us);
    if (opt->no_tune_cache) {
        fputs("; not stored (--no-tune-cache)\n", out);
    } else if (tune_cache_path(k->cache, sizeof k->cache) != 0) {
        fputs("; not stored\n", out);
        histo_error("warning: no tune cache file (set HISTO_TUNE_FILE, "
                    "XDG_CACHE_HOME or HOME); the result is not stored");
    } else {
        const struct tune_entry e = {
            .key = *key,
            .batches = best->batches,
            .tile_rows = best->tile_rows,
        };
        /* The cache is a convenience; the run's outputs are its job. */
        if (tune_cache_store(k->cache, &e) != HISTO_OK) {
            fputs("; not stored\n", out);
            histo_error("warning: the tune cache '%s' was not written; the "
                        "run goes on with the best knobs", k->cache);
            k->cache[0] = '\0';
        } else {
            fprintf(out, "; stored in %s\n", k->cache);
        }
    }
fail:
    free(first);
    free(histo);
    return status;
}
