/*
 * reference.h - the plain sequential histogram every device result must
 * equal byte for byte. Deliberately the simplest possible loop.
 */
#ifndef HISTO_REFERENCE_H
#define HISTO_REFERENCE_H

#include "input.h"

#include <stddef.h>
#include <stdint.h>

/* histo[0..nbins) = number of values equal to each bin, saturated at 255.
 * Every value must be < nbins. */
void reference_histogram(const uint32_t *values, size_t nvalues,
                         uint32_t nbins, uint8_t *histo);

/* The same, counting nvalues more values into histo as it is: a histogram
 * of an input read a piece at a time is the sum of its pieces'. */
void reference_add(const uint32_t *values, size_t nvalues, uint8_t *histo);

/* An input file and its reference histogram, for the tools that need
 * the reference of a file (histo-ref, ref-bench). They read it through
 * input.c as histo does, not with a reader of their own: the reader is
 * tested on its own, against bytes written by hand (tests/unit_tests.c)
 * and counts the generator planted (tests/saturation.sh), so what the
 * reference keeps apart from the code under test is the counting. */
struct reference_file {
    struct histo_input input;
    uint8_t *histo;            /* input.nbins counters */
};

/* Reads `path` (input_read) and counts it. Returns 0 or an exit status,
 * with nothing to free on a failure; else reference_free frees it. */
int reference_read(const char *path, struct reference_file *ref);

void reference_free(struct reference_file *ref);

#endif
