/* reference.c - sequential saturating histogram (see reference.h). */
#include "reference.h"

#include "params.h"

#include <string.h>

void reference_add(const uint32_t *values, size_t nvalues, uint8_t *histo)
{
    /* every values[i] < nbins (input.c checks each one) */
    for (size_t i = 0; i < nvalues; ++i)
        if (histo[values[i]] < HISTO_SATURATE)
            ++histo[values[i]];
}

void reference_histogram(const uint32_t *values, size_t nvalues,
                         uint32_t nbins, uint8_t *histo)
{
    memset(histo, 0, nbins);
    reference_add(values, nvalues, histo);
}
