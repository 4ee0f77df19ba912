/* strategies.c - the table of strategies: their names, help and rank,
 * lookup by name, and the default for the devices (see strategy.h). It
 * stands above the strategies it lists, and none of them calls into it. */
#include "strategy.h"

#include "cpu.h"
#include "eye.h"
#include "global.h"
#include "params.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The strategies, a row each: the only place that names them. A row
 * gives the strategy (its name, knobs, sources and kernels: its own
 * file), a phrase for --help, its rank and where --strategy auto picks
 * it. Auto tries the rows by rank, 1 first, and runs the first whose
 * fits() holds on the share; rank 0 is run only when named (fits NULL).
 * Of those that suit one device: fused saves eye's second launch, eye's
 * tiles beat cpu's private histograms where local memory is a
 * scratchpad, and global, which suits every device, is what is left
 * where cpu cannot clear its output within the loop limit. Adding a
 * strategy: docs/design.md, "Adding a strategy". */
static const struct strategy_row table[] = {
    {&eye_strategy, "the published local-memory design, for GPUs", 2,
     "where local memory is dedicated"},
    {&fused_strategy, "eye in one launch an iteration", 1,
     "where local memory is dedicated (CL_LOCAL), below 2^23 values, the "
     "device ends no loop early and its compiler has a fence of device "
     "scope (histo.out: config.fence)"},
    {&cpu_strategy, "private histograms, for implicit caches", 3,
     "where local memory is global memory or none, as on CPUs"},
    {&global_strategy,
     "one global atomic per value, the textbook baseline", 4,
     "where the device's loop limit is too short for cpu; it fits every "
     "device"},
    {&replicated_strategy, "eye with several copies of each tile", 0, ""},
};
#define NSTRATEGIES (sizeof table / sizeof table[0])

/* fused's phrase above names the size params.h sets */
_Static_assert(HISTO_FUSED_MAX_VALUES == (1u << 23) - 1u,
               "strategies.c: fused's help says below 2^23 values");

const struct strategy *strategy_find(const char *name)
{
    for (size_t i = 0; i < NSTRATEGIES; ++i)
        if (strcmp(table[i].strategy->name, name) == 0)
            return table[i].strategy;
    return NULL;
}

/* The share's own default: by rank, the first strategy that fits it. */
static const struct strategy *first_fit(const struct strategy_share *sh)
{
    for (unsigned rank = 1; rank <= NSTRATEGIES; ++rank)
        for (size_t i = 0; i < NSTRATEGIES; ++i)
            if (table[i].rank == rank && table[i].strategy->fits != NULL
                && table[i].strategy->fits(sh))
                return table[i].strategy;
    return NULL;
}

int strategy_name_check(const char *name)
{
    if (strcmp(name, "auto") == 0 || strategy_find(name) != NULL)
        return HISTO_OK;
    histo_error("unknown strategy '%s' (choose from: auto, %s)", name,
                strategy_names());
    return HISTO_EXIT_USAGE;
}

int strategy_choose(const char *requested,
                    const struct strategy_share *shares, size_t nshares,
                    struct strategy_choice *choice)
{
    if (requested != NULL && strcmp(requested, "auto") == 0)
        requested = NULL;
    const struct strategy *first = first_fit(&shares[0]);
    size_t differs = 0;
    for (size_t i = 1; i < nshares && differs == 0; ++i)
        if (first_fit(&shares[i]) != first)
            differs = i;
    choice->by_default = differs == 0 ? first : NULL;
    choice->run = requested != NULL ? strategy_find(requested)
                                    : choice->by_default;
    if (choice->run != NULL)
        return HISTO_OK;
    if (requested != NULL)
        return strategy_name_check(requested);
    histo_error("'%s' and '%s' default to different strategies (%s "
                "and %s): name one with --strategy",
                shares[0].device->name, shares[differs].device->name,
                first->name, first_fit(&shares[differs])->name);
    return HISTO_EXIT_USAGE;
}

int strategy_list(FILE *f)
{
    for (size_t i = 0; i < NSTRATEGIES; ++i)
        if (fprintf(f, "%s\n", table[i].strategy->name) < 0)
            break;
    if (fflush(f) != 0 || ferror(f)) {
        histo_error("cannot write the strategies' list");
        return HISTO_EXIT_INTERNAL;
    }
    return HISTO_OK;
}

const char *strategy_names(void)
{
    static char names[128];
    if (names[0] == '\0') {
        size_t len = 0;
        for (size_t i = 0; i < NSTRATEGIES && len < sizeof names; ++i)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s",
                                    i > 0 ? ", " : "", table[i].strategy->name);
    }
    return names;
}

/* Appends to text (cap bytes, *len used), cutting at the end. */
static void append(char *text, size_t cap, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(text + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (n > 0)
        *len = *len + (size_t)n < cap ? *len + (size_t)n : cap - 1;
}

const char *strategy_help(void)
{
    static char text[2048];
    if (text[0] != '\0')
        return text;
    size_t len = 0;
    append(text, sizeof text, &len, "how the device computes it:");
    for (size_t i = 0; i < NSTRATEGIES; ++i)
        append(text, sizeof text, &len, "%s %s (%s)", i == 0 ? "" : ",",
               table[i].strategy->name, table[i].help);
    append(text, sizeof text, &len,
           " or auto (the default: the first of these that fits the device "
           "and input:");
    unsigned ranked = 0;
    for (unsigned rank = 1; rank <= NSTRATEGIES; ++rank)
        for (size_t i = 0; i < NSTRATEGIES; ++i)
            if (table[i].rank == rank)
                append(text, sizeof text, &len, "%s %s %s",
                       ranked++ == 0 ? "" : ";", table[i].strategy->name,
                       table[i].picked);
    append(text, sizeof text, &len, ")");
    return text;
}

/* How many of the rows are named `name`. */
static size_t name_rows(const struct strategy_row *rows, size_t n,
                        const char *name)
{
    size_t k = 0;
    for (size_t i = 0; i < n; ++i)
        k += rows[i].strategy->name != NULL
             && strcmp(rows[i].strategy->name, name) == 0;
    return k;
}

int strategy_rows_check(const struct strategy_row *rows, size_t n, FILE *f)
{
    int wrong = 0;
    unsigned ranks = 0;
    for (size_t i = 0; i < n; ++i) {
        const struct strategy_row *r = &rows[i];
        const struct strategy *s = r->strategy;
        const char *why = NULL;
        if (s->name == NULL || s->name[0] == '\0'
            || strcmp(s->name, "auto") == 0)
            why = "a name, and not auto";
        else if (name_rows(rows, n, s->name) != 1)
            why = "a name no other row has";
        else if (r->help == NULL || r->help[0] == '\0' || strchr(r->help, '\n'))
            why = "a help phrase of one line";
        else if (s->nsources == 0 || s->nkernels == 0
                 || s->nkernels > STRATEGY_MAX_KERNELS)
            why = "its sources and 1 to STRATEGY_MAX_KERNELS kernels";
        else if ((r->rank == 0) != (s->fits == NULL))
            why = "a rank above 0 exactly when it has fits()";
        else if (r->rank > n || (r->rank > 0 && (ranks >> r->rank & 1u)))
            why = "a rank no other row has, at most the rows' count";
        else if (r->rank > 0 && (r->picked == NULL || r->picked[0] == '\0'))
            why = "where auto picks it (picked)";
        if (why != NULL) {
            fprintf(f, "strategies.c: row %zu (%s) needs %s (docs/design.md, "
                       "\"Adding a strategy\")\n",
                    i, s->name != NULL ? s->name : "no name", why);
            wrong = 1;
        }
        ranks |= r->rank > 0 && r->rank <= n ? 1u << r->rank : 0u;
    }
    for (unsigned rank = 1; rank <= n; ++rank)
        if (!(ranks >> rank & 1u) && (ranks >> rank) != 0) {
            fprintf(f, "strategies.c: no row has rank %u, and a later one does "
                       "(docs/design.md, \"Adding a strategy\")\n", rank);
            wrong = 1;
        }
    return wrong;
}

int strategy_table_check(FILE *f)
{
    return strategy_rows_check(table, NSTRATEGIES, f);
}
