/* input.c - read, decode and validate the input file (see input.h). */
#include "input.h"

#include "error.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
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
    /* Values are counted and addressed in bytes as size_t: on a host whose
     * size_t is 32 bits nvalues * 4 would wrap above 2^30 values. */
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

/*
 * The reader. A file that starts with the gzip magic bytes 1f 8b is a
 * series of gzip members (RFC 1952: `cat a.gz b.gz` is one valid stream);
 * anything else is raw. zlib's gzread is not used because it forgives what
 * an input must not get away with: a stream that ends before a member's
 * trailer (CRC-32 and length) gives its data and no error, so a truncated
 * file is never checked, and whatever non-gzip bytes follow a member are
 * skipped in silence. Driving inflate() here, each member is decoded to its
 * trailer, which inflate checks, and the bytes after it must be another
 * member or the end of the file. Speed is gzread's: inflate writes
 * straight into the values' buffer, as gzread does for large reads (a
 * 64 MiB input, 40 MiB compressed, decompresses in the same time).
 */
enum { READ_CHUNK = 1 << 18 }; /* bytes read from the file at a time */

struct reader {
    FILE *file;
    const char *name;
    unsigned char *chunk;       /* READ_CHUNK bytes read ahead             */
    unsigned char *next;        /* the chunk's unused bytes: next..+avail  */
    size_t avail;
    unsigned long long read;    /* bytes read from the file so far         */
    bool eof;                   /* the file has no more bytes              */
    bool gzip;                  /* it starts with the gzip magic bytes     */
    bool in_member;             /* a member's trailer is still to come     */
    unsigned members;           /* gzip members begun                      */
    int failed;                 /* status of the failure reported, or 0    */
    long long size_at_open;     /* a regular file's size when opened, or -1 */
    z_stream z;                 /* inflate's state, when gzip              */
};

/* Records the status of a failure just reported; returns -1. */
static int reader_failed(struct reader *r, int status)
{
    r->failed = status;
    return -1;
}

/* Offset in the file of the next unused byte. */
static unsigned long long reader_offset(const struct reader *r)
{
    return r->read - r->avail;
}

/* Reads what the file has ready, up to len bytes, from its descriptor:
 * a FIFO or a terminal gives what was written so far, so the header can
 * be checked before the writer has sent the values. Returns the bytes
 * read (0 only at the end of the file), or -1 on a read error. */
static long long read_some(struct reader *r, unsigned char *dst, size_t len)
{
    ssize_t got;
    if (len > (size_t)1 << 30)
        len = (size_t)1 << 30; /* within any read()'s SSIZE_MAX */
    do
        got = read(fileno(r->file), dst, len);
    while (got < 0 && errno == EINTR);
    if (got < 0) {
        histo_error("cannot read input '%s': %s", r->name, strerror(errno));
        return reader_failed(r, HISTO_EXIT_INPUT);
    }
    r->read += (size_t)got;
    if (got == 0)
        r->eof = true;
    return got;
}

/* Moves the unused bytes to the chunk's start and reads what is ready
 * behind them. Returns 0, or -1 on a read error. */
static int refill(struct reader *r)
{
    if (r->eof)
        return 0;
    if (r->avail > 0 && r->next != r->chunk)
        memmove(r->chunk, r->next, r->avail);
    r->next = r->chunk;
    const long long got = read_some(r, r->chunk + r->avail,
                                    READ_CHUNK - r->avail);
    if (got < 0)
        return -1;
    r->avail += (size_t)got;
    return 0;
}

/* Makes at least n (<= READ_CHUNK) bytes available unless the file ends
 * first. Returns 0, or -1 on a read error. */
static int look_ahead(struct reader *r, size_t n)
{
    while (r->avail < n && !r->eof)
        if (refill(r) != 0)
            return -1;
    return 0;
}

static long long raw_read(struct reader *r, unsigned char *dst, size_t len)
{
    size_t done = r->avail < len ? r->avail : len;
    memcpy(dst, r->next, done);
    r->next += done;
    r->avail -= done;
    /* The rest straight into dst: no copy through the chunk. */
    while (done < len && !r->eof) {
        const long long got = read_some(r, dst + done, len - done);
        if (got < 0)
            return -1;
        done += (size_t)got;
    }
    return (long long)done;
}

/* At the start or after a member's trailer: returns 1 when another member
 * begins (inflate reset for it), 0 at the end of the file, -1 when the
 * bytes that follow are not a gzip member. */
static int next_member(struct reader *r)
{
    if (look_ahead(r, 2) != 0)
        return -1;
    if (r->avail == 0)
        return 0;
    if (r->avail < 2 || r->next[0] != 0x1f || r->next[1] != 0x8b) {
        histo_error("input '%s': trailing bytes after the gzip data: the "
                    "bytes from offset %llu on are not a gzip member",
                    r->name, reader_offset(r));
        return reader_failed(r, HISTO_EXIT_INPUT);
    }
    if (inflateReset(&r->z) != Z_OK) {
        histo_error("input '%s': zlib cannot reset its stream", r->name);
        return reader_failed(r, HISTO_EXIT_INTERNAL);
    }
    ++r->members;
    r->in_member = true;
    return 1;
}

/* Reports why inflate returned ret; returns -1. */
static int inflate_failed(struct reader *r, int ret)
{
    const char *msg = r->z.msg != NULL ? r->z.msg : "zlib error";
    if (ret == Z_MEM_ERROR) {
        histo_error("out of host memory decompressing '%s'", r->name);
        return reader_failed(r, HISTO_EXIT_INTERNAL);
    }
    /* zlib's words for the trailer's two checks, said plainly. */
    if (strcmp(msg, "incorrect data check") == 0)
        histo_error("input '%s': gzip trailer CRC mismatch in member %u: the"
                    " data is corrupt", r->name, r->members);
    else if (strcmp(msg, "incorrect length check") == 0)
        histo_error("input '%s': gzip trailer length mismatch in member %u:"
                    " the data is corrupt", r->name, r->members);
    else
        histo_error("input '%s': corrupt gzip data in member %u near offset"
                    " %llu: %s", r->name, r->members, reader_offset(r), msg);
    return reader_failed(r, HISTO_EXIT_INPUT);
}

static long long gzip_read(struct reader *r, unsigned char *dst, size_t len)
{
    size_t left = len;
    r->z.next_out = dst;
    while (left > 0) {
        if (!r->in_member) {
            const int more = next_member(r);
            if (more < 0)
                return -1;
            if (more == 0)
                break;
        }
        if (r->avail == 0) {
            if (refill(r) != 0)
                return -1;
            if (r->avail == 0) {
                histo_error("input '%s': truncated gzip stream: the file ends"
                            " after %llu bytes, inside member %u, before its"
                            " CRC-32 and length trailer", r->name, r->read,
                            r->members);
                return reader_failed(r, HISTO_EXIT_INPUT);
            }
        }
        const uInt out = left > UINT_MAX ? UINT_MAX : (uInt)left;
        r->z.next_in = r->next;
        r->z.avail_in = (uInt)r->avail;
        r->z.avail_out = out;
        /* With input and room for output inflate always progresses, so any
         * status but these two is an error, Z_BUF_ERROR included. */
        const int ret = inflate(&r->z, Z_NO_FLUSH);
        r->next = r->z.next_in;
        r->avail = r->z.avail_in;
        left -= out - r->z.avail_out;
        if (ret == Z_STREAM_END)
            r->in_member = false; /* inflate checked its CRC-32 and length */
        else if (ret != Z_OK)
            return inflate_failed(r, ret);
    }
    return (long long)(len - left);
}

/* Reads len bytes, fewer only where the data ends cleanly (a raw file's
 * end, or the end of the last gzip member). Returns the count, or -1 after
 * reporting the failure (status in r->failed). */
static long long reader_read(struct reader *r, unsigned char *dst,
                             size_t len)
{
    if (r->failed != HISTO_OK)
        return -1;
    return r->gzip ? gzip_read(r, dst, len) : raw_read(r, dst, len);
}

/* A file that starts with gzip's magic bytes and deflate's method (1f 8b
 * 08) may still be a raw input whose image width ends in those bytes
 * (width 0x??088b1f). It is raw when its first 16 bytes are a valid raw
 * header and inflate rejects the bytes read so far; a true gzip file is
 * never taken for raw, as inflate accepts its start. */
static bool raw_after_all(const struct reader *r)
{
    struct histo_input in;
    char why[256];
    if (r->avail < HISTO_HEADER_BYTES
        || input_check_header(r->next, &in, why, sizeof why) != 0)
        return false;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        return false;
    unsigned char out[4096];
    z.next_in = r->next;
    z.avail_in = (uInt)r->avail;
    int ret = Z_OK;
    while (ret == Z_OK && z.avail_in > 0) {
        z.next_out = out;
        z.avail_out = sizeof out;
        ret = inflate(&z, Z_NO_FLUSH);
    }
    inflateEnd(&z);
    return ret == Z_DATA_ERROR || ret == Z_NEED_DICT || ret == Z_STREAM_ERROR;
}

/* Reads the file's first bytes to tell gzip from raw. Returns 0, or an exit
 * status after reporting; call reader_close either way. */
static int reader_open(struct reader *r, FILE *file, const char *name)
{
    memset(r, 0, sizeof *r);
    r->file = file;
    r->name = name;
    struct stat st;
    r->size_at_open = fstat(fileno(file), &st) == 0 && S_ISREG(st.st_mode)
                    ? (long long)st.st_size : -1;
    r->chunk = malloc(READ_CHUNK);
    if (r->chunk == NULL) {
        histo_error("out of host memory reading '%s'", name);
        return HISTO_EXIT_INTERNAL;
    }
    r->next = r->chunk;
    if (look_ahead(r, 3) != 0)
        return r->failed;
    r->gzip = r->avail >= 3 && r->next[0] == 0x1f && r->next[1] == 0x8b
              && r->next[2] == 8 && !raw_after_all(r);
    if (!r->gzip)
        return HISTO_OK;
    /* 16 + MAX_WBITS: gzip members only, windows up to deflate's largest;
     * inflate checks each member's trailer. */
    const int ret = inflateInit2(&r->z, 16 + MAX_WBITS);
    if (ret != Z_OK) {
        r->gzip = false;
        histo_error("%s reading '%s'", ret == Z_MEM_ERROR
                    ? "out of host memory" : "zlib cannot start inflating",
                    name);
        return HISTO_EXIT_INTERNAL;
    }
    return HISTO_OK;
}

static void reader_close(struct reader *r)
{
    if (r->gzip)
        inflateEnd(&r->z);
    free(r->chunk);
}

/* Reads n values into dst and decodes them in place, checking each:
 * the same bytes give the same values on any host. `first` is the index
 * of dst[0] in the input, for messages. A file that ends early is
 * reported with the bytes it held. Returns 0 or an exit status. */
static int read_values(struct reader *r, const struct histo_input *in,
                       uint32_t *dst, size_t n, size_t first)
{
    const long long got = reader_read(r, (unsigned char *)dst,
                                      n * sizeof *dst);
    if (got < 0)
        return r->failed;
    if ((size_t)got < n * sizeof *dst) {
        /* what was read is what the data held when it ended; a regular
         * file whose size moved since it was opened changed meanwhile */
        char changed[128] = "";
        struct stat st;
        if (r->size_at_open >= 0 && fstat(fileno(r->file), &st) == 0
            && (long long)st.st_size != r->size_at_open)
            snprintf(changed, sizeof changed, "; the file changed while it "
                     "was read: %lld bytes when opened, %lld now",
                     r->size_at_open, (long long)st.st_size);
        histo_error("input '%s': header promises %zu values (%" PRIu32 "x%"
                    PRIu32 ") but its data ended after %zu bytes, %zu"
                    " needed%s", r->name, in->nvalues, in->img_width,
                    in->img_height, first * sizeof *dst + (size_t)got,
                    in->nvalues * sizeof *dst, changed);
        return HISTO_EXIT_INPUT;
    }
    const unsigned char *raw = (const unsigned char *)dst;
    for (size_t i = 0; i < n; ++i) {
        const uint32_t v = input_le32(raw + 4 * i);
        if (v >= in->nbins) {
            const size_t at = first + i;
            histo_error("input '%s': value %zu (image row %zu, column %zu) is"
                        " %" PRIu32 ", outside the %" PRIu32 "x%" PRIu32
                        " histogram (%" PRIu32 " bins)", r->name, at,
                        at / in->img_width, at % in->img_width, v,
                        in->histo_width, in->histo_height, in->nbins);
            return HISTO_EXIT_INPUT;
        }
        dst[i] = v;
    }
    return HISTO_OK;
}

struct input_stream {
    struct reader r;
    struct histo_input in;  /* sizes only                                */
    size_t next;            /* index of the next value to read           */
    bool owns_file;
};

static int stream_begin(struct input_stream *s, FILE *file, const char *name,
                        struct histo_input *in)
{
    unsigned char header[HISTO_HEADER_BYTES];
    char why[256];
    int status = reader_open(&s->r, file, name);
    if (status != HISTO_OK)
        return status;
    const long long got = reader_read(&s->r, header, sizeof header);
    if (got < 0)
        return s->r.failed;
    if (got < (long long)sizeof header) {
        histo_error("input '%s': header is %lld bytes, expected %u", name,
                    got, HISTO_HEADER_BYTES);
        return HISTO_EXIT_INPUT;
    }
    if (input_check_header(header, &s->in, why, sizeof why) != 0) {
        histo_error("input '%s': not a 116.histo input: its header (four "
                    "little-endian 32-bit numbers) reads image %" PRIu32
                    "x%" PRIu32 ", histogram %" PRIu32 "x%" PRIu32 ": %s",
                    name, s->in.img_width, s->in.img_height,
                    s->in.histo_width, s->in.histo_height, why);
        return HISTO_EXIT_INPUT;
    }
    *in = s->in;
    return HISTO_OK;
}

static int stream_open(FILE *file, bool owns_file, const char *name,
                       struct input_stream **stream, struct histo_input *in)
{
    memset(in, 0, sizeof *in);
    struct input_stream *s = calloc(1, sizeof *s);
    *stream = NULL;
    if (s == NULL) {
        if (owns_file)
            fclose(file);
        histo_error("out of host memory reading '%s'", name);
        return HISTO_EXIT_INTERNAL;
    }
    s->owns_file = owns_file;
    const int status = stream_begin(s, file, name, in);
    if (status != HISTO_OK) {
        input_close(s);
        memset(in, 0, sizeof *in);
        return status;
    }
    *stream = s;
    return HISTO_OK;
}

int input_open(const char *path, struct input_stream **stream,
               struct histo_input *in)
{
    memset(in, 0, sizeof *in);
    *stream = NULL;
    if (strcmp(path, "-") == 0)
        return stream_open(stdin, false, "standard input", stream, in);
    errno = 0;
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        histo_error("cannot open input '%s': %s", path,
                    errno ? strerror(errno) : "out of memory");
        return HISTO_EXIT_INPUT;
    }
    return stream_open(file, true, path, stream, in);
}

int input_next(struct input_stream *s, uint32_t *dst, size_t n)
{
    if (n > s->in.nvalues - s->next) {
        histo_error("internal: %zu values asked of '%s' past its %zu",
                    n, s->r.name, s->in.nvalues);
        return HISTO_EXIT_INTERNAL;
    }
    /* In pieces within any read's reach, so that one huge request does
     * not ask zlib or read() for more than they take at once. */
    const size_t piece = (size_t)1 << 28;
    while (n > 0) {
        const size_t k = n < piece ? n : piece;
        const int status = read_values(&s->r, &s->in, dst, k, s->next);
        if (status != HISTO_OK)
            return status;
        dst += k;
        n -= k;
        s->next += k;
    }
    return HISTO_OK;
}

int input_end(struct input_stream *s)
{
    unsigned char extra;
    if (s->next != s->in.nvalues) {
        histo_error("internal: '%s' closed after %zu of its %zu values",
                    s->r.name, s->next, s->in.nvalues);
        return HISTO_EXIT_INTERNAL;
    }
    const long long got = reader_read(&s->r, &extra, 1);
    if (got < 0)
        return s->r.failed;
    if (got != 0) {
        histo_error("input '%s': trailing data after the %zu values the"
                    " header promises", s->r.name, s->in.nvalues);
        return HISTO_EXIT_INPUT;
    }
    return HISTO_OK;
}

void input_close(struct input_stream *s)
{
    if (s == NULL)
        return;
    reader_close(&s->r);
    if (s->owns_file)
        fclose(s->r.file);
    free(s);
}

/* The whole input into one host buffer that grows as data arrives: a
 * short file that promises 2^31 values costs what it holds, not 8 GiB. */
static int read_whole(struct input_stream *s, struct histo_input *in)
{
    size_t have = 0, cap = 0;
    while (have < in->nvalues) {
        if (have == cap) {
            size_t next = cap == 0 ? (size_t)1 << 20 : cap * 2;
            if (next > in->nvalues)
                next = in->nvalues;
            uint32_t *grown = realloc(in->values, next * sizeof *grown);
            if (grown == NULL) {
                histo_error("out of host memory reading '%s' (%zu bytes)",
                            s->r.name, next * sizeof *grown);
                return HISTO_EXIT_INTERNAL;
            }
            in->values = grown;
            cap = next;
        }
        const int status = input_next(s, in->values + have, cap - have);
        if (status != HISTO_OK)
            return status;
        have = cap;
    }
    return input_end(s);
}

/* The rest of an opened input into one buffer, then closed. */
static int read_rest(int status, struct input_stream *s,
                     struct histo_input *in)
{
    if (status == HISTO_OK)
        status = read_whole(s, in);
    input_close(s);
    if (status != HISTO_OK)
        input_free(in);
    return status;
}

int input_read_stream(FILE *file, const char *name, struct histo_input *in)
{
    struct input_stream *s;
    const int status = stream_open(file, false, name, &s, in);
    return read_rest(status, s, in);
}

int input_read(const char *path, struct histo_input *in)
{
    struct input_stream *s;
    const int status = input_open(path, &s, in);
    return read_rest(status, s, in);
}

void input_free(struct histo_input *in)
{
    free(in->values);
    in->values = NULL;
}
