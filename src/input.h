/*
 * input.h - reading a 116.histo "differential image".
 *
 * File layout, all little-endian u32: img_width, img_height, histo_width,
 * histo_height, then img_width * img_height bin indexes, each
 * row * histo_width + column. The file may be gzip-compressed (any name):
 * one or more gzip members, each read to its trailer and checked, with
 * nothing after the last.
 */
#ifndef HISTO_INPUT_H
#define HISTO_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The device kernels index values and bins with 32-bit integers and step
 * past the end by up to a work-group, so inputs stop at 2^31 values. */
#define HISTO_MAX_VALUES (UINT64_C(1) << 31)
#define HISTO_HEADER_BYTES 16u

struct histo_input {
    uint32_t img_width, img_height;
    uint32_t histo_width, histo_height;
    size_t nvalues;  /* img_width * img_height                     */
    uint32_t nbins;  /* histo_width * histo_height                 */
    uint32_t *values;
};

/* Checks a decoded header; on success fills the sizes of `in` (not its
 * values) and returns 0, else writes a reason into why and returns -1. */
int input_check_header(const unsigned char header[HISTO_HEADER_BYTES],
                       struct histo_input *in, char *why, size_t why_len);

/* Reads and validates a whole input file. Returns 0 or HISTO_EXIT_INPUT
 * (message printed) / HISTO_EXIT_INTERNAL (host memory). */
int input_read(const char *path, struct histo_input *in);

/* Called once the header is checked, before any value is read or
 * decompressed, with the sizes of `in` filled: returns 0 to go on, or an
 * exit status (after printing why) that input_read_checked returns. */
typedef int (*input_size_check)(const struct histo_input *in, void *arg);

/* input_read with check(in, arg) between the header and the values. */
int input_read_checked(const char *path, struct histo_input *in,
                       input_size_check check, void *arg);

/* The same from an open stream, read to its end through its descriptor
 * (stdio's buffer is not used) but not closed; name is used in messages.
 * For callers that do not read from a path (the fuzzer). */
int input_read_stream(FILE *file, const char *name, struct histo_input *in);

void input_free(struct histo_input *in);

static inline uint32_t input_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16
         | (uint32_t)p[3] << 24;
}

#endif
