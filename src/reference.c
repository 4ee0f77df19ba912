/* reference.c - sequential saturating histogram (see reference.h). */
#include "reference.h"

#include "error.h"
#include "params.h"

#include <stdlib.h>
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

int reference_read(const char *path, struct reference_file *ref)
{
    struct histo_input *in = &ref->input;
    const int status = input_read(path, in);
    if (status != HISTO_OK)
        return status;
    if ((ref->histo = histo_calloc(in->nbins, 1, "histogram")) == NULL) {
        input_free(in);
        return HISTO_EXIT_INTERNAL;
    }
    reference_histogram(in->values, in->nvalues, in->nbins, ref->histo);
    return HISTO_OK;
}

void reference_free(struct reference_file *ref)
{
    free(ref->histo);
    ref->histo = NULL;
    input_free(&ref->input);
}
