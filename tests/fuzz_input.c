/*
 * fuzz_input.c - libFuzzer target for the input parser (header + values,
 * raw and gzip): src/input.c's input_read_stream over arbitrary bytes.
 *
 * The bytes go into an anonymous in-memory file that is read like any
 * input, so raw and gzip streams take the same path as histo's own reads.
 * Beyond "no crash, no leak, no sanitizer report", an accepted input must
 * be self-consistent: as many values as the header promises, each one
 * inside the histogram. Build and run: make fuzz (docs/testing.md).
 */
#define _GNU_SOURCE /* memfd_create */
#include "input.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const int fd = memfd_create("histo-fuzz", 0);
    if (fd < 0)
        abort();
    for (size_t done = 0; done < size;) {
        const ssize_t n = write(fd, data + done, size - done);
        if (n <= 0)
            abort();
        done += (size_t)n;
    }
    if (lseek(fd, 0, SEEK_SET) != 0)
        abort();
    FILE *file = fdopen(fd, "rb");
    if (file == NULL)
        abort();

    struct histo_input in;
    const int status = input_read_stream(file, "fuzz", &in);
    fclose(file);
    if (status == 0) {
        if (in.nvalues != (size_t)in.img_width * in.img_height
            || in.nbins != (uint64_t)in.histo_width * in.histo_height)
            abort();
        for (size_t i = 0; i < in.nvalues; ++i)
            if (in.values[i] >= in.nbins)
                abort();
        input_free(&in);
    }
    return 0;
}
