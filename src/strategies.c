/* strategies.c - the table of strategies: their names, lookup by name,
 * and the default for the devices (see strategy.h). It stands above the
 * strategies it lists, and none of them calls into it. */
#include "strategy.h"

#include "cpu.h"
#include "eye.h"
#include "global.h"

#include <stdio.h>
#include <string.h>

static const struct strategy *const table[] = {
    &eye_strategy,
    &fused_strategy,
    &cpu_strategy,
    &global_strategy,
    &replicated_strategy,
};
#define NSTRATEGIES (sizeof table / sizeof table[0])

const struct strategy *strategy_find(const char *name)
{
    for (size_t i = 0; i < NSTRATEGIES; ++i)
        if (strcmp(table[i]->name, name) == 0)
            return table[i];
    return NULL;
}

/* What --strategy auto tries, best first; each strategy's fits says
 * where it suits (the device's memory, its loop limit, the input). Of
 * those that suit one device: fused saves eye's second launch, eye's
 * tiles beat cpu's private histograms where local memory is a
 * scratchpad, and global, which suits every device, is what is left
 * where cpu cannot clear its output within the loop limit. */
static const struct strategy *const preferred[] = {
    &fused_strategy,
    &eye_strategy,
    &cpu_strategy,
    &global_strategy,
};
#define NPREFERRED (sizeof preferred / sizeof preferred[0])

/* The share's own default: the first preferred strategy that fits it. */
static const struct strategy *first_fit(const struct strategy_share *sh)
{
    for (size_t i = 0; i < NPREFERRED; ++i)
        if (preferred[i]->fits != NULL && preferred[i]->fits(sh))
            return preferred[i];
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
        if (fprintf(f, "%s\n", table[i]->name) < 0)
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
                                    i > 0 ? ", " : "", table[i]->name);
    }
    return names;
}
