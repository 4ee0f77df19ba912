/*
 * check.h - histo's own check of its result: the device's counters against
 * a sequential host histogram of the same values (reference.c), counted
 * while the input is read, so the timed iterations never include it.
 *
 * An implementation nobody has tried can be wrong in silence (a loop ended
 * early, an atomic lost); the check makes such a run fail loudly, naming
 * the bins that differ, with its own exit status (HISTO_EXIT_CHECK).
 */
#ifndef HISTO_CHECK_H
#define HISTO_CHECK_H

#include "input.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Mismatches kept for the message and histo.out. */
#define CHECK_SHOWN 8

struct check_mismatch {
    uint32_t bin;
    uint8_t got, want;
};

struct check_result {
    bool done;            /* false: --no-check                          */
    uint64_t wrong;       /* bins whose counters differ                 */
    size_t shown;         /* mismatches in first[]                      */
    struct check_mismatch first[CHECK_SHOWN];
    uint64_t got_sum, want_sum; /* sums of the counters, as a scale     */
    double seconds;       /* host histogram and comparison              */
};

/* Compares the device's counters with the expected ones (nbins each) and
 * fills r, r->seconds 0 (the caller times the check). */
void check_compare(const uint8_t *got, const uint8_t *want,
                   const struct histo_input *in, struct check_result *r);

/* One line: "PASS ..." or "FAIL: N of M bins differ ...", naming the first
 * mismatches by bin, row and column. */
void check_describe(const struct check_result *r,
                    const struct histo_input *in, FILE *f);

/* histo.out's check.* keys. */
void check_report(const struct check_result *r, const struct histo_input *in,
                  FILE *f);

#endif
