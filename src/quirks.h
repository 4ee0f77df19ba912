/*
 * quirks.h - what histo does differently on one OpenCL implementation:
 * one table (quirks.c), matched once when a platform and its devices
 * are found (device.c), by the platform's name and its driver's major
 * version. Nothing else in histo compares a platform's name.
 */
#ifndef HISTO_QUIRKS_H
#define HISTO_QUIRKS_H

#include <stdbool.h>

/* What a row sets, or'ed over every row that matches. */
enum quirk_flag {
    /* the platform histo picks where neither --platform nor
     * $HISTO_PLATFORM names one (if it has the device asked for) */
    QUIRK_DEFAULT_PLATFORM = 1u << 0,
    /* kernels built with `restrict` defined away (-Drestrict=) */
    QUIRK_NO_RESTRICT = 1u << 1,
    /* lists no device until $RUSTICL_ENABLE names a driver: --list and a
     * failed choice say so */
    QUIRK_NEEDS_RUSTICL_ENABLE = 1u << 2,
};

struct quirks {
    unsigned flags;          /* enum quirk_flag bits                    */
    const char *cpu_units;   /* the variable that sets a CPU device's
                                threads, for hints; NULL: none known    */
};

/* The rows matching a platform named `platform_name` (CL_PLATFORM_NAME)
 * whose device reports `driver` (CL_DRIVER_VERSION; NULL for the
 * platform alone, which matches only rows of any version). Either may be
 * NULL (unknown): a NULL name matches nothing. */
struct quirks quirks_match(const char *platform_name, const char *driver);

/* Whether `hay` contains `needle`, ignoring ASCII case (an empty needle
 * is contained): how rows match, and --platform and --device too. */
bool quirks_contains_nocase(const char *hay, const char *needle);

#endif
