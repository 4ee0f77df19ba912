/* input.c - read, decode and validate the input file (see input.h). */
#include "input.h"

#include "error.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int input_check_header(const unsigned char header[HISTO_HEADER_BYTES],
                       struct histo_input *in, char *why, size_t why_len)
{
    in->img_width = input_le32(header);
    in->img_height = input_le32(header + 4);
    in->histo_width = input_le32(header + 8);
    in->histo_height = input_le32(header + 12);

    if (in->img_width == 0 || in->img_height == 0) {
        snprintf(why, why_len, "image size %" PRIu32 "x%" PRIu32
                 " has a zero dimension", in->img_width, in->img_height);
        return -1;
    }
    if (in->histo_width == 0 || in->histo_height == 0) {
        snprintf(why, why_len, "histogram size %" PRIu32 "x%" PRIu32
                 " has a zero dimension", in->histo_width, in->histo_height);
        return -1;
    }
    const uint64_t nvalues = (uint64_t)in->img_width * in->img_height;
    if (nvalues > HISTO_MAX_VALUES) {
        snprintf(why, why_len, "image %" PRIu32 "x%" PRIu32 " has %" PRIu64
                 " values, more than the %" PRIu64 " histo can process",
                 in->img_width, in->img_height, nvalues, HISTO_MAX_VALUES);
        return -1;
    }
    /* read_values() sizes the buffer as nvalues * 4 in size_t: on a host
     * whose size_t is 32 bits that would wrap above 2^30 values. */
    if (nvalues > SIZE_MAX / sizeof(uint32_t)) {
        snprintf(why, why_len, "image %" PRIu32 "x%" PRIu32 " has %" PRIu64
                 " values, more than this host can address",
                 in->img_width, in->img_height, nvalues);
        return -1;
    }
    const uint64_t nbins = (uint64_t)in->histo_width * in->histo_height;
    if (nbins > UINT32_MAX) {
        snprintf(why, why_len, "histogram %" PRIu32 "x%" PRIu32 " has %"
                 PRIu64 " bins, more than 32-bit bin indexes can address",
                 in->histo_width, in->histo_height, nbins);
        return -1;
    }
    in->nvalues = (size_t)nvalues;
    in->nbins = (uint32_t)nbins;
    return 0;
}

/* Reads exactly len bytes unless the stream ends; returns bytes read or -1
 * on a zlib/IO error. gzread takes an unsigned count, so read in chunks. */
static long long read_fully(gzFile gz, unsigned char *dst, size_t len)
{
    size_t done = 0;
    while (done < len) {
        size_t want = len - done;
        if (want > (1u << 30))
            want = 1u << 30;
        int got = gzread(gz, dst + done, (unsigned)want);
        if (got < 0)
            return -1;
        if (got == 0)
            break;
        done += (size_t)got;
    }
    return (long long)done;
}

/* zlib's message for the last error, without the "path: " it prefixes. */
static const char *gz_reason(gzFile gz)
{
    int code = Z_OK;
    const char *msg = gzerror(gz, &code);
    if (code == Z_ERRNO)
        return strerror(errno);
    if (msg == NULL || *msg == '\0')
        return "read error";
    const char *sep = strstr(msg, ": ");
    return sep != NULL ? sep + 2 : msg;
}

/* Reads the promised values, growing the buffer as data arrives: a short
 * file that promises 2^31 values costs what it holds, not 8 GiB. */
static int read_values(gzFile gz, const char *name, struct histo_input *in)
{
    const size_t want = in->nvalues * sizeof *in->values;
    size_t have = 0, cap = 0;
    unsigned char *buf = NULL;
    while (have < want) {
        if (have == cap) {
            size_t next = cap == 0 ? (size_t)1 << 22 : cap * 2;
            if (next > want)
                next = want;
            unsigned char *grown = realloc(buf, next);
            if (grown == NULL) {
                free(buf);
                histo_error("out of host memory reading '%s' (%zu bytes)",
                            name, next);
                return HISTO_EXIT_INTERNAL;
            }
            buf = grown;
            cap = next;
        }
        const long long got = read_fully(gz, buf + have, cap - have);
        if (got < 0) {
            free(buf);
            histo_error("cannot read input '%s': %s", name, gz_reason(gz));
            return HISTO_EXIT_INPUT;
        }
        have += (size_t)got;
        if (have < cap)
            break; /* end of data */
    }
    in->values = (uint32_t *)(void *)buf;
    if (have < want) {
        histo_error("input '%s': header promises %zu values (%" PRIu32 "x%"
                    PRIu32 ") but the file holds %zu bytes of data, %zu"
                    " needed", name, in->nvalues, in->img_width,
                    in->img_height, have, want);
        return HISTO_EXIT_INPUT;
    }
    return HISTO_OK;
}

int input_read_gz(gzFile gz, const char *name, struct histo_input *in)
{
    int status = HISTO_EXIT_INPUT;
    unsigned char header[HISTO_HEADER_BYTES];
    char why[256];

    memset(in, 0, sizeof *in);
    gzbuffer(gz, 1u << 18);
    long long got = read_fully(gz, header, sizeof header);
    if (got < 0) {
        histo_error("cannot read input '%s': %s", name, gz_reason(gz));
        goto fail;
    }
    if (got < (long long)sizeof header) {
        histo_error("input '%s': header is %lld bytes, expected %u", name,
                    got, HISTO_HEADER_BYTES);
        goto fail;
    }
    if (input_check_header(header, in, why, sizeof why) != 0) {
        histo_error("input '%s': %s", name, why);
        goto fail;
    }
    if ((status = read_values(gz, name, in)) != HISTO_OK)
        goto fail;
    status = HISTO_EXIT_INPUT;

    unsigned char extra;
    got = read_fully(gz, &extra, 1);
    if (got != 0) {
        if (got < 0)
            histo_error("cannot read input '%s': %s", name, gz_reason(gz));
        else
            histo_error("input '%s': trailing data after the %zu values the"
                        " header promises", name, in->nvalues);
        goto fail;
    }

    /* Decode in place: the same bytes give the same values on any host. */
    const unsigned char *raw = (const unsigned char *)in->values;
    for (size_t i = 0; i < in->nvalues; ++i) {
        const uint32_t v = input_le32(raw + 4 * i);
        if (v >= in->nbins) {
            histo_error("input '%s': value %zu (image row %zu, column %zu) is"
                        " %" PRIu32 ", outside the %" PRIu32 "x%" PRIu32
                        " histogram (%" PRIu32 " bins)", name, i,
                        i / in->img_width, i % in->img_width, v,
                        in->histo_width, in->histo_height, in->nbins);
            goto fail;
        }
        in->values[i] = v;
    }
    gzclose(gz);
    return HISTO_OK;

fail:
    gzclose(gz);
    input_free(in);
    return status;
}

int input_read(const char *path, struct histo_input *in)
{
    memset(in, 0, sizeof *in);
    errno = 0;
    gzFile gz = gzopen(path, "rb");
    if (gz == NULL) {
        histo_error("cannot open input '%s': %s", path,
                    errno ? strerror(errno) : "out of memory");
        return HISTO_EXIT_INPUT;
    }
    return input_read_gz(gz, path, in);
}

void input_free(struct histo_input *in)
{
    free(in->values);
    in->values = NULL;
}
