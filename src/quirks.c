/* quirks.c - the table of OpenCL implementations' quirks (quirks.h). */
#include "quirks.h"

#include "error.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A row: the platform whose CL_PLATFORM_NAME contains `platform` (any
 * case), its device's driver's major version from `from` to `to` (0: open;
 * both 0: any version, or none known; both UNPARSED: a driver version
 * that does not start with a number), what it sets, and why, with where
 * the data is. */
#define UNPARSED (~0u)
static const struct quirk_row {
    const char *platform;
    unsigned from, to;
    unsigned flags;
    const char *cpu_units;
    const char *why;
} table[] = {
    {"Portable Computing Language", 0, 0, QUIRK_DEFAULT_PLATFORM, NULL,
     "the CPU implementation Debian packages: what a plain histo runs on "
     "(README, Dependencies)"},
    {"Portable Computing Language", 1, 3, 0, "POCL_MAX_PTHREAD_COUNT",
     "PoCL 3.x reads its thread count there (docs/usage.md)"},
    {"Portable Computing Language", 4, 0, 0, "POCL_CPU_MAX_CU_COUNT",
     "PoCL 4.0 renamed POCL_MAX_PTHREAD_COUNT (docs/usage.md)"},
    {"Portable Computing Language", UNPARSED, UNPARSED, 0,
     "POCL_CPU_MAX_CU_COUNT (PoCL 4.0 on; POCL_MAX_PTHREAD_COUNT before)",
     "a driver version without a number: both names"},
    {"Oclgrind", 0, 0, QUIRK_NO_RESTRICT, NULL,
     "its bundled compiler cannot link the noalias scope declarations "
     "that inlining restrict parameters makes (clCreateKernel: "
     "llvm.experimental.noalias.scope.decl); restrict only promises the "
     "optimizer"},
    {"rusticl", 0, 0, QUIRK_NEEDS_RUSTICL_ENABLE, NULL,
     "Mesa's rusticl lists no device unless RUSTICL_ENABLE names a "
     "driver (llvmpipe: its CPU device)"},
};
#define NROWS (sizeof table / sizeof table[0])

bool quirks_contains_nocase(const char *hay, const char *needle)
{
    const size_t n = strlen(needle);
    for (; *hay != '\0'; ++hay) {
        size_t i = 0;
        while (i < n && hay[i] != '\0'
               && tolower((unsigned char)hay[i])
                      == tolower((unsigned char)needle[i]))
            ++i;
        if (i == n)
            return true;
    }
    return n == 0;
}

struct quirks quirks_match(const char *platform_name, const char *driver)
{
    struct quirks q = {0, NULL};
    if (platform_name == NULL)
        return q;
    /* the driver's major version: its leading number */
    const bool parsed = driver != NULL && isdigit((unsigned char)driver[0]);
    const unsigned long major = parsed ? strtoul(driver, NULL, 10) : 0;
    for (size_t i = 0; i < NROWS; ++i) {
        const struct quirk_row *r = &table[i];
        bool versions;
        if (r->from == 0 && r->to == 0)
            versions = true;
        else if (r->from == UNPARSED)
            versions = driver != NULL && !parsed;
        else
            versions = parsed && major >= r->from
                    && (r->to == 0 || major <= r->to);
        if (!versions || !quirks_contains_nocase(platform_name, r->platform))
            continue;
        q.flags |= r->flags;
        if (q.cpu_units == NULL)
            q.cpu_units = r->cpu_units;
    }
    return q;
}
