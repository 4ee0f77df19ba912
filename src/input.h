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

/* Reads and validates a whole input file into in->values. Returns 0 or
 * HISTO_EXIT_INPUT (message printed) / HISTO_EXIT_INTERNAL (host memory).
 * A short file that promises many values costs what it holds. */
int input_read(const char *path, struct histo_input *in);

/* The same from an open stream, read to its end through its descriptor
 * (stdio's buffer is not used) but not closed; name is used in messages.
 * For callers that do not read from a path (the fuzzer). */
int input_read_stream(FILE *file, const char *name, struct histo_input *in);

/* An input read a piece at a time, so that its values can go straight
 * where they are counted (device buffers) without a whole copy in host
 * memory: input_open reads and checks the header and fills the sizes of
 * `in` (values stays NULL); input_next reads the next n values into dst,
 * decoded and each checked against the histogram; input_end checks that
 * nothing follows the last value (and that every gzip member was read to
 * its trailer); input_close frees the stream (NULL is fine). Each returns
 * 0 or an exit status after printing why. */
struct input_stream;
int input_open(const char *path, struct input_stream **stream,
               struct histo_input *in);
int input_next(struct input_stream *stream, uint32_t *dst, size_t n);
int input_end(struct input_stream *stream);
void input_close(struct input_stream *stream);

void input_free(struct histo_input *in);

static inline uint32_t input_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16
         | (uint32_t)p[3] << 24;
}

#endif
