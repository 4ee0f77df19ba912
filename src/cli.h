/*
 * cli.h - the command line, compatible with Parboil/SPEC:
 *   histo -i INPUT -o OUTPUT.bmp [options] -- ITERATIONS [ignored...]
 *
 * cli_usage's text is also the man page's (tools/man.sh): its sections
 * and two-column lists are what that script reads.
 */
#ifndef HISTO_CLI_H
#define HISTO_CLI_H

#include "knobs.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Upper bounds accepted on the command line (larger values are rejected,
 * never clamped; the knobs' are in knobs.c's table). Per-iteration
 * timings are kept for every iteration. */
#define CLI_MAX_ITERATIONS 10000000ul
#define CLI_MAX_CHUNK_VALUES (1ul << 31)

struct histo_options {
    const char *input;       /* -i FILE (required)                      */
    const char *output;      /* -o FILE.bmp (required)                  */
    const char *timing;      /* --timing FILE, default "histo.out"      */
    const char *raw;         /* --raw FILE: the counters, NULL = none   */
    const char *platform;    /* --platform or $HISTO_PLATFORM, NULL=auto */
    const char *device;      /* --device or $HISTO_DEVICE, NULL = auto  */
    const char *kernel_dir;  /* --kernels, $HISTO_KERNEL_DIR, else the
                                installed or source tree's kernels     */
    unsigned long iterations;/* after "--" (required, >= 1)             */
    struct knob_values knobs;/* the knobs' options (knobs.h): 0 = the
                                strategy decides                       */
    uint64_t device_budget;  /* --device-budget bytes, 0 = the device's */
    uint64_t chunk_values;   /* --chunk-values, 0 = the largest allowed */
    bool tune;               /* --tune: measure knobs, store the best   */
    bool no_tune_cache;      /* --no-tune-cache or $HISTO_NO_TUNE_CACHE */
    bool no_check;           /* --no-check: no host histogram           */
    bool no_bmp;             /* --no-bmp: no -o, no BMP written         */
    bool keep_wrong;         /* --keep-wrong: a failed check still
                                writes the BMP and --raw               */
    const char *strategy;    /* --strategy NAME, NULL = by local memory */
    bool list;               /* --list: show platforms and devices      */
    bool help;               /* --help                                  */
    bool version;            /* --version                               */
    bool list_strategies;    /* --list-strategies                       */
};

/* Fills opt from argv and the environment. Returns 0, or HISTO_EXIT_USAGE
 * after printing what is wrong on stderr. --help and --version end the
 * parsing: the rest is not looked at. */
int cli_parse(int argc, char **argv, struct histo_options *opt);

/* Writes the --help text to f. Returns 0, or HISTO_EXIT_OUTPUT after
 * saying why when f cannot be written. */
int cli_usage(FILE *f);

#endif
