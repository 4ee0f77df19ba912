/*
 * histo_ref.c - the sequential reference: reads a 116.histo input, counts
 * it with the plain loop of src/reference.c and writes the BMP and, when
 * asked, the raw 8-bit counters (row-major, no header, as histo --raw).
 * Its counters are what every device and strategy must reproduce.
 *
 *   histo-ref INPUT OUTPUT.bmp|- [OUTPUT.raw]
 *
 * "-" writes no BMP: a histogram whose BMP the format cannot hold (over
 * 2^32 - 1 bytes) still has its counters.
 */
#include "bmp.h"
#include "counts.h"
#include "error.h"
#include "reference.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fputs("usage: histo-ref INPUT OUTPUT.bmp|- [OUTPUT.raw]\n", stderr);
        return HISTO_EXIT_USAGE;
    }
    struct reference_file ref;
    int status = reference_read(argv[1], &ref);
    if (status != HISTO_OK)
        return status;
    if (strcmp(argv[2], "-") != 0)
        status = bmp_save(argv[2], ref.histo, ref.input.histo_width,
                          ref.input.histo_height);
    if (status == HISTO_OK && argc == 4)
        status = counts_save(argv[3], ref.histo, ref.input.nbins);
    reference_free(&ref);
    return status;
}
