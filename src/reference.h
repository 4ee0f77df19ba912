/*
 * reference.h - the plain sequential histogram every device result must
 * equal byte for byte. Deliberately the simplest possible loop.
 */
#ifndef HISTO_REFERENCE_H
#define HISTO_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

/* histo[0..nbins) = number of values equal to each bin, saturated at 255.
 * Every value must be < nbins. */
void reference_histogram(const uint32_t *values, size_t nvalues,
                         uint32_t nbins, uint8_t *histo);

/* The same, counting nvalues more values into histo as it is: a histogram
 * of an input read a piece at a time is the sum of its pieces'. */
void reference_add(const uint32_t *values, size_t nvalues, uint8_t *histo);

#endif
