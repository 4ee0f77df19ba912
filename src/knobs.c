/* knobs.c - the knob table (see knobs.h). */
#include "knobs.h"

#include "params.h"

#include <stdio.h>
#include <string.h>

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
static size_t batch_candidates(const struct knob_tune_context *c,
                               unsigned *b)
{
    size_t n = 0;
    add_unique(b, &n, 0);
    const uint64_t units = c->compute_units;
    uint64_t cap = c->values / HISTO_MIN_GROUP_VALUES;
    if (cap < 1)
        cap = 1;
    if (cap > knob_table[KNOB_BATCHES].max)
        cap = knob_table[KNOB_BATCHES].max;
    const uint64_t spread[] = {units / 4, units / 2, units, 2 * units,
                               4 * units};
    for (size_t i = 0; i < sizeof spread / sizeof spread[0]; ++i)
        if (spread[i] >= 1)
            add_unique(b, &n, (unsigned)(spread[i] < cap ? spread[i] : cap));
    return n;
}

/* w: the most rows a tile holds (0, what the strategy chose by itself), a
 * half and a quarter of it, where that is known and at least two rows. */
static size_t row_candidates(const struct knob_tune_context *c, unsigned *w)
{
    size_t n = 0;
    add_unique(w, &n, 0);
    const long max = c->first_used;
    if (max < 2)
        return n;
    add_unique(w, &n, (unsigned)(max / 2));
    if (max / 4 >= 1)
        add_unique(w, &n, (unsigned)(max / 4));
    return n;
}

/* R: the strategy's default, one copy (the eye design) and four. */
static size_t replica_candidates(const struct knob_tune_context *c,
                                 unsigned *r)
{
    (void)c;
    r[0] = 0;
    r[1] = 1;
    r[2] = 4;
    return 3;
}

const struct knob knob_table[KNOB_COUNT] = {
    [KNOB_BATCHES] = {
        .name = "batches", .option = "--batches", .letter = "B",
        .width = 6, .max = 65536,
        .help =
"  --batches N         number of input batches, each counted separately\n"
"                      (default: the strategy's plan, histo.out's\n"
"                      config.batches, or the tune cache)\n",
        .candidates = batch_candidates,
    },
    [KNOB_TILE_ROWS] = {
        .name = "tile_rows", .option = "--tile-rows", .letter = "w",
        .width = 6, .max = 65535,
        .help =
"  --tile-rows N       eye and replicated strategies: local tiles of\n"
"                      at most N histogram rows (a 2-D window spreads\n"
"                      them over more rows of fewer columns; default:\n"
"                      as many as local memory holds, or the tune cache)\n",
        .candidates = row_candidates,
    },
    [KNOB_REPLICAS] = {
        .name = "replicas", .option = "--replicas", .letter = "R",
        .width = 3, .max = 16, .cache_optional = true,
        .help =
"  --replicas R        replicated strategy: R copies of each tile per\n"
"                      work-group, each counted by 1/R of its work-items\n"
"                      (1 to 16; default 2, or the tune cache)\n",
        .candidates = replica_candidates,
    },
};

const struct knob *knob_by_option(const char *option)
{
    for (size_t i = 0; i < KNOB_COUNT; ++i)
        if (strcmp(knob_table[i].option, option) == 0)
            return &knob_table[i];
    return NULL;
}

bool knob_any(const struct knob_values *k)
{
    for (size_t i = 0; i < KNOB_COUNT; ++i)
        if (k->v[i] != 0)
            return true;
    return false;
}

void knob_format(char *buf, size_t len, const struct knob_values *k)
{
    size_t at = 0;
    if (len > 0)
        buf[0] = '\0';
    for (size_t i = 0; i < KNOB_COUNT && at < len; ++i) {
        const int n = snprintf(buf + at, len - at, "%s%s=%u", i ? " " : "",
                               knob_table[i].letter, k->v[i]);
        if (n < 0)
            return;
        at += (size_t)n;
    }
}
