/*
 * report.h - histo.out and the console summary.
 *
 * histo.out is "key = value" lines, one fact each, in a fixed order; keys
 * are dotted paths (platform.0.device.1.name, kernel.eye_tile.median_us).
 * New keys may be added; existing keys keep their name and meaning.
 */
#ifndef HISTO_REPORT_H
#define HISTO_REPORT_H

#include "check.h"
#include "choose.h"
#include "energy.h"
#include "cli.h"
#include "device.h"
#include "input.h"
#include "run.h"
#include "strategy.h"
#include "tune.h"
#include "work.h"

#define REPORT_FORMAT "histo.out/1"

struct phase_times {
    double read_s;      /* reading and validating the input      */
    double setup_s;     /* platforms, devices, context, queue    */
    double build_s;     /* kernel sources to program             */
    double tune_s;      /* histo --tune's candidates, 0 without  */
    double upload_s;    /* input values: device buffer and copy  */
    double strategy_setup_s; /* the run's strategy: plan, buffers,
                                arguments, first fills            */
    double choose_s;    /* --device all: each device count measured */
    double download_s;  /* histogram read back                   */
    double bmp_s;       /* BMP written                           */
    double total_s;     /* start of main to BMP written          */
};

struct report {
    const struct histo_options *options;
    const struct histo_input *input;
    const struct device_list *devices;
    const struct strategy *strategy;
    const struct strategy *default_strategy; /* the devices' own, what
                                      --strategy auto runs; NULL where
                                      they differ */
    const void *state;                /* the first chunk's        */
    const struct work *work;
    struct run_times *times; /* sorted in place while reporting */
    const struct tune_knobs *knobs;
    const struct tune_result *tuning; /* NULL without --tune */
    const struct choice *choice;      /* how many devices count, why */
    struct phase_times phases;
    const char *digest;               /* counts_digest of the result */
    const struct check_result *check;
    const struct energy *energy;      /* over the timed iterations */
};

/* Writes the timing file atomically; returns 0 or HISTO_EXIT_OUTPUT. */
int report_write(const struct report *r, const char *path);

/* A few lines for stdout. */
void report_summary(const struct report *r, FILE *f);

#endif
