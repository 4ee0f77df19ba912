/*
 * counts.h - the raw result: histo_width x histo_height 8-bit counters,
 * row-major, as a file (--raw) and as a digest (histo.out).
 *
 * The counters are what the workload computes and what validation
 * compares; the BMP's colour map gives several counts one colour (253 and
 * 254 are both red 254), so a picture cannot tell them apart.
 *
 * The digest is SHA-256 (FIPS 180-4) of the counters in that order, the
 * bytes a --raw file holds, so `sha256sum FILE` reproduces it. Written as
 * "sha256:" and 64 lowercase hex digits.
 */
#ifndef HISTO_COUNTS_H
#define HISTO_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#define COUNTS_DIGEST_CHARS (7 + 64 + 1) /* "sha256:" + hex + NUL */

/* "sha256:<hex>" of n bytes into out. */
void counts_digest(const uint8_t *counts, size_t n,
                   char out[COUNTS_DIGEST_CHARS]);

/* Writes the n counters to path under outfile's rules. Returns 0 or
 * HISTO_EXIT_OUTPUT after printing why. */
int counts_save(const char *path, const uint8_t *counts, size_t n);

#endif
