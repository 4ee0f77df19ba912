/*
 * bmp.h - the histogram as a 24-bit BMP, byte-compatible with the
 * reference outputs of 116.histo.
 *
 * One pixel per bin; rows are written bottom-up (last histogram row first),
 * each padded with zeros to a multiple of 4 bytes. The header's file-size
 * field is 54 + width * height * 3 and its image-size field width * height
 * * 3, both without the padding, as in the reference writer.
 */
#ifndef HISTO_BMP_H
#define HISTO_BMP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BMP_HEADER_BYTES 54u

/* Red channel of a bin holding count v (blue and green are 0):
 * 0 for v == 0, else (unsigned)(255 * f) with
 * f = (float)(cbrt(1 + 63.0 * v / 255) / 4), evaluated in exactly these
 * precisions. Built once, on first use. */
const uint8_t *bmp_red_table(void);

/* Size of the whole file, padding included; 0 if it would overflow. */
uint64_t bmp_file_bytes(uint32_t width, uint32_t height);

/* Whether a width x height histogram's BMP can be written: its sizes fit
 * the header's 32-bit fields and its dimensions the signed ones. Returns
 * 0, or HISTO_EXIT_OUTPUT after saying why and pointing to --no-bmp and
 * --raw. */
int bmp_check_size(uint32_t width, uint32_t height);

/* Fills the 54-byte header. */
void bmp_header(unsigned char header[BMP_HEADER_BYTES], uint32_t width,
                uint32_t height);

/* Writes header and pixels of the width x height histogram to f.
 * Returns 0, or -1 when a write failed (errno/ferror tell why). */
int bmp_write(FILE *f, const uint8_t *histo, uint32_t width,
              uint32_t height);

/* bmp_write into a new file at path, atomically (outfile.h).
 * Returns 0 or HISTO_EXIT_OUTPUT (message printed). */
int bmp_save(const char *path, const uint8_t *histo, uint32_t width,
             uint32_t height);

#endif
