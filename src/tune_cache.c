/*
 * tune_cache.c - the tune cache file and the knobs of a run without --tune
 * (see tune_cache.h).
 *
 * Lines are parsed and checked in full before they count, and a line that
 * does not parse is warned about but never dropped: the store writes it
 * back as it was, so a hand-edited cache loses nothing to a typo.
 */
#include "tune_cache.h"

#include "env.h"
#include "error.h"
#include "outfile.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
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
    const char *file = env_value(ENV_HISTO_TUNE_FILE);
    const char *xdg = env_value(ENV_XDG_CACHE_HOME);
    const char *home = env_value(ENV_HOME);
    int n;
    if (file != NULL)
        n = snprintf(buf, len, "%s", file);
    else if (xdg != NULL && xdg[0] == '/') /* relative ones are invalid */
        n = snprintf(buf, len, "%s/histo/tune.conf", xdg);
    else if (home != NULL)
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

/* A line's knobs, "batches B tile_rows W ...": each knob of the table in
 * its order, by name, from 0 to its maximum; an optional one
 * (cache_optional) may be left out and is then 0, and is never written
 * as 0. */
static bool parse_knobs(char *value, struct knob_values *k)
{
    for (size_t i = 0; i < KNOB_COUNT; ++i) {
        const struct knob *kn = &knob_table[i];
        unsigned long v;
        if (kn->cache_optional && *value == '\0')
            continue;
        if (!word(&value, kn->name)
            || !number(&value, kn->cache_optional ? 1 : 0, kn->max, &v))
            return false;
        k->v[i] = (unsigned)v;
    }
    return *value == '\0';
}

/* "batches B tile_rows W [NAME X]...": the fields a line's knobs take,
 * optional ones in brackets. */
static void format_fields(char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < KNOB_COUNT && at < len; ++i) {
        const struct knob *kn = &knob_table[i];
        const int n = snprintf(buf + at, len - at,
                               kn->cache_optional ? "%s[%s %c]" : "%s%s %c",
                               i ? " " : "", kn->name,
                               toupper((unsigned char)kn->letter[0]));
        if (n < 0)
            return;
        at += (size_t)n;
    }
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

    unsigned long w, h, k;
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
    if (!parse_knobs(value, &e->knobs))
        return -1;
    e->key.histo_width = (uint32_t)w;
    e->key.histo_height = (uint32_t)h;
    e->key.values_log2 = (unsigned)k;
    return 1;
}

void tune_format_line(FILE *f, const struct tune_entry *e)
{
    fprintf(f, "%s | %s | %" PRIu32 "x%" PRIu32 " | 2^%u =", e->key.device,
            e->key.strategy, e->key.histo_width, e->key.histo_height,
            e->key.values_log2);
    for (size_t i = 0; i < KNOB_COUNT; ++i)
        if (!knob_table[i].cache_optional || e->knobs.v[i] != 0)
            fprintf(f, " %s %u", knob_table[i].name, e->knobs.v[i]);
    fputc('\n', f);
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
    char fields[128];
    format_fields(fields, sizeof fields);
    histo_error("warning: %s:%lu: malformed tune cache line ignored "
                "(expected 'DEVICE | STRATEGY | WxH | 2^K = %s')", path,
                lineno, fields);
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
    int status = outfile_open_text(&out, path);
    if (status != HISTO_OK) {
        free(text);
        outfile_unlock(lock);
        return status;
    }
    out.shared = true;
    bool replaced = false;
    if (text == NULL || len == 0) {
        char fields[128];
        format_fields(fields, sizeof fields);
        fprintf(out.f, "# histo --tune: the best knobs per device, strategy, "
                       "histogram and 2^K values\n# DEVICE | STRATEGY | WxH "
                       "| 2^K = %s (0: the strategy decides)\n", fields);
    }
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

/* ---- knobs without measuring ---- */

void tune_choose(const struct knob_values *given, bool no_tune_cache,
                 const struct tune_key *key, const struct strategy *strategy,
                 struct tune_knobs *k)
{
    memset(k, 0, sizeof *k);
    k->from = TUNE_FROM_DEFAULT;
    for (size_t i = 0; i < KNOB_COUNT; ++i)
        if (given->v[i] != 0 && !(strategy->knobs & KNOB_BIT(i)))
            histo_error("warning: strategy %s does not use %s; ignored",
                        strategy->name, knob_table[i].option);
    struct knob_values from = *given;
    if (knob_any(given)) {
        k->from = TUNE_FROM_COMMAND_LINE;
    } else {
        struct tune_entry e;
        if (no_tune_cache || tune_cache_path(k->cache, sizeof k->cache) != 0
            || !tune_cache_lookup(k->cache, key, &e)) {
            k->cache[0] = '\0';
            return;
        }
        from = e.knobs;
        k->from = TUNE_FROM_CACHE;
    }
    /* a knob the strategy does not use is not used */
    for (size_t i = 0; i < KNOB_COUNT; ++i)
        k->values.v[i] = strategy->knobs & KNOB_BIT(i) ? from.v[i] : 0;
}
