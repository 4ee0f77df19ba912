/* bmp.c - colour table and BMP writer (see bmp.h). */
#include "bmp.h"

#include "error.h"
#include "outfile.h"
#include "params.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const uint8_t *bmp_red_table(void)
{
    static uint8_t red[HISTO_SATURATE + 1];
    static int ready;
    if (!ready) {
        red[0] = 0;
        for (unsigned v = 1; v <= HISTO_SATURATE; ++v) {
            /* The reference computes in double, passes the value on as a
             * float and scales it in float; keep each step's precision. */
            const double x = 1 + 63.0 * (float)v / (float)HISTO_SATURATE;
            const float f = (float)(cbrt(x) / 4);
            red[v] = (uint8_t)(unsigned)(f * 255);
        }
        ready = 1;
    }
    return red;
}

static size_t row_bytes(uint32_t width)
{
    return ((size_t)width * 3 + 3) & ~(size_t)3;
}

uint64_t bmp_file_bytes(uint32_t width, uint32_t height)
{
    return BMP_HEADER_BYTES + (uint64_t)row_bytes(width) * height;
}

int bmp_check_size(uint32_t width, uint32_t height)
{
    const uint64_t bytes = bmp_file_bytes(width, height);
    if (bytes <= UINT32_MAX && width <= INT32_MAX && height <= INT32_MAX)
        return HISTO_OK;
    histo_error("a %" PRIu32 "x%" PRIu32 " histogram's BMP would be %"
                PRIu64 " bytes, more than its 32-bit size fields hold (%"
                PRIu32 "): write the counters alone with --no-bmp --raw "
                "FILE", width, height, bytes, UINT32_MAX);
    return HISTO_EXIT_OUTPUT;
}

static void put16(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
    put16(p, v);
    put16(p + 2, v >> 16);
}

void bmp_header(unsigned char h[BMP_HEADER_BYTES], uint32_t width,
                uint32_t height)
{
    /* The reference stores these sizes in 32-bit fields without padding;
     * a histogram too large for them wraps exactly as it does there. */
    const uint32_t pixel_bytes = (uint32_t)((uint64_t)width * height * 3);
    memset(h, 0, BMP_HEADER_BYTES);
    h[0] = 'B';
    h[1] = 'M';
    put32(h + 2, BMP_HEADER_BYTES + pixel_bytes); /* file size         */
    put32(h + 10, BMP_HEADER_BYTES);               /* pixel data offset */
    put32(h + 14, 40);                              /* info header size  */
    put32(h + 18, width);
    put32(h + 22, height);
    put16(h + 26, 1);                               /* planes            */
    put16(h + 28, 24);                              /* bits per pixel    */
    put32(h + 34, pixel_bytes);                     /* image size        */
    /* compression, resolution and palette fields stay 0 */
}

int bmp_write(FILE *f, const uint8_t *histo, uint32_t width, uint32_t height)
{
    const uint8_t *red = bmp_red_table();
    unsigned char header[BMP_HEADER_BYTES];
    bmp_header(header, width, height);
    if (fwrite(header, 1, sizeof header, f) != sizeof header)
        return -1;

    const size_t stride = row_bytes(width);
    unsigned char *line = calloc(stride, 1); /* padding stays zero */
    if (line == NULL)
        return -1;
    for (uint32_t r = height; r-- > 0;) {
        const uint8_t *bins = histo + (size_t)r * width;
        for (uint32_t c = 0; c < width; ++c)
            line[3 * (size_t)c + 2] = red[bins[c]]; /* B, G stay 0 */
        if (fwrite(line, 1, stride, f) != stride) {
            free(line);
            return -1;
        }
    }
    free(line);
    return 0;
}

int bmp_save(const char *path, const uint8_t *histo, uint32_t width,
             uint32_t height)
{
    struct outfile out;
    int status = outfile_open(&out, path);
    if (status != HISTO_OK)
        return status;
    if (bmp_write(out.f, histo, width, height) != 0) {
        if (!ferror(out.f)) {
            histo_error("out of host memory writing BMP '%s'", path);
            outfile_abort(&out);
            return HISTO_EXIT_OUTPUT;
        }
        out.err = errno; /* ENOSPC, EPIPE: commit reports it */
    }
    return outfile_commit(&out);
}
