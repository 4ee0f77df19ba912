/*
 * histo_ref.c - the sequential reference: reads a 116.histo input, counts
 * it with the plain loop of src/reference.c and writes the BMP. Its output
 * is what every device and strategy must reproduce byte for byte.
 *
 *   histo-ref INPUT OUTPUT.bmp
 */
#include "bmp.h"
#include "error.h"
#include "input.h"
#include "reference.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fputs("usage: histo-ref INPUT OUTPUT.bmp\n", stderr);
        return HISTO_EXIT_USAGE;
    }
    struct histo_input in;
    int status = input_read(argv[1], &in);
    if (status != HISTO_OK)
        return status;
    uint8_t *histo = histo_calloc(in.nbins, 1, "histogram");
    if (histo == NULL) {
        input_free(&in);
        return HISTO_EXIT_INTERNAL;
    }
    reference_histogram(in.values, in.nvalues, in.nbins, histo);
    status = bmp_save(argv[2], histo, in.histo_width, in.histo_height);
    free(histo);
    input_free(&in);
    return status;
}
