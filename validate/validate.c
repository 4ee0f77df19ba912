/*
 * validate.c - the validator of 116.histo: compares the raw counters a
 * run produced (histo --raw) with the reference counters of its dataset,
 * and its BMP with the reference BMP, byte for byte, and names the bins
 * that differ.
 *
 *   histo-validate --raw WxH GOT EXPECTED  raw 8-bit counters, W x H of
 *                                          them, row-major; either file
 *                                          may be gzip-compressed
 *   histo-validate GOT.bmp EXPECTED.bmp    BMPs, either may be .gz
 *   histo-validate --stats FILE.bmp        how many bins are empty,
 *                                          counted, saturated
 *
 * The counters are the result: the BMP's colour map gives several counts
 * one colour (253 and 254 are both red 254), so only the raw comparison
 * sees an off-by-one near saturation; the BMP comparison checks the BMP
 * writer.
 *
 * For counters: "PASS: ..." on stdout, or "FAIL: N of M bins differ"
 * followed by the first differing bins in order, each as
 * (row, column) bin B: got COUNT, expected COUNT.
 * For BMPs:
 * Prints "PASS: ..." on stdout, or "FAIL: N of M pixels differ" followed by
 * the first differing pixels in histogram order, each as
 * (row, column): got COUNT (red R), expected COUNT (red R). Row 0 is the
 * first histogram row, which a BMP stores last (rows go bottom-up). The
 * colour table (src/bmp.c) maps several counts to one red value, so a
 * colour stands for a range of counts.
 *
 * Exit status: 0 identical, 1 the files differ, 2 usage, 3 a file is
 * missing, unreadable, truncated or not a 24-bit BMP as histo writes them,
 * 4 out of host memory.
 */
#include "bmp.h"
#include "params.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

enum validate_exit {
    VALIDATE_PASS = 0,
    VALIDATE_FAIL = 1,
    VALIDATE_USAGE = 2,
    VALIDATE_BAD_FILE = 3,
    VALIDATE_MEMORY = 4
};

/* Differing pixels listed before "... and N more": enough to see a
 * pattern (one row, one column, a block), short enough to read. */
#define VALIDATE_SHOWN 10u

struct bmp_image {
    const char *path;
    uint32_t width, height;
    size_t stride;        /* bytes per stored row, padding included */
    size_t size;          /* whole file                             */
    unsigned char *bytes; /* the whole file, header first           */
};

static void complain(const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void complain(const char *path, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "histo-validate: %s: ", path);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static uint32_t le16(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const unsigned char *p)
{
    return le16(p) | le16(p + 2) << 16;
}

/* Reads up to len bytes; returns the count read (short only at the end of
 * the data), or -1 after reporting a read or decompression error. */
static long long read_fully(gzFile gz, const char *path, unsigned char *buf,
                            size_t len)
{
    size_t got = 0;
    while (got < len) {
        const size_t chunk = len - got < (1u << 30) ? len - got : 1u << 30;
        const int n = gzread(gz, buf + got, (unsigned)chunk);
        if (n < 0) {
            int zerr;
            const char *msg = gzerror(gz, &zerr);
            complain(path, "cannot read: %s",
                     zerr == Z_ERRNO ? strerror(errno) : msg);
            return -1;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    return (long long)got;
}

/* Opens path (raw or gzip-compressed) for reading. Returns VALIDATE_PASS,
 * or VALIDATE_BAD_FILE / VALIDATE_MEMORY after saying why. */
static int open_gz(const char *path, gzFile *gz)
{
    errno = 0;
    if ((*gz = gzopen(path, "rb")) != NULL)
        return VALIDATE_PASS;
    const int err = errno;
    complain(path, "cannot open: %s",
             err != 0 ? strerror(err) : "out of memory");
    return err != 0 ? VALIDATE_BAD_FILE : VALIDATE_MEMORY;
}

/* Checks the 54-byte header against what src/bmp.c writes and fills the
 * image's shape. Returns 0, or VALIDATE_BAD_FILE after saying why. */
static int check_header(struct bmp_image *img, const unsigned char *h,
                        size_t have)
{
    if (have < 2 || h[0] != 'B' || h[1] != 'M') {
        if (have < 2)
            complain(img->path, "not a BMP file: only %zu byte%s", have,
                     have == 1 ? "" : "s");
        else
            complain(img->path, "not a BMP file: it starts with 0x%02x "
                     "0x%02x, not \"BM\"", h[0], h[1]);
        return VALIDATE_BAD_FILE;
    }
    if (have < BMP_HEADER_BYTES) {
        complain(img->path, "truncated BMP: the header is %zu of %u bytes",
                 have, BMP_HEADER_BYTES);
        return VALIDATE_BAD_FILE;
    }
    const uint32_t offset = le32(h + 10), info = le32(h + 14);
    const uint32_t planes = le16(h + 26), bits = le16(h + 28);
    const uint32_t compression = le32(h + 30);
    const int32_t width = (int32_t)le32(h + 18);
    const int32_t height = (int32_t)le32(h + 22);
    if (offset != BMP_HEADER_BYTES || info != 40) {
        complain(img->path, "unsupported BMP layout: pixels at offset %"
                 PRIu32 " after a %" PRIu32 "-byte info header (histo "
                 "writes %u and 40)", offset, info, BMP_HEADER_BYTES);
        return VALIDATE_BAD_FILE;
    }
    if (planes != 1 || bits != 24 || compression != 0) {
        complain(img->path, "unsupported BMP: %" PRIu32 " plane(s), %"
                 PRIu32 " bits per pixel, compression %" PRIu32
                 " (histo writes 1, 24, 0)", planes, bits, compression);
        return VALIDATE_BAD_FILE;
    }
    if (width <= 0 || height <= 0) {
        complain(img->path, "bad BMP dimensions %" PRId32 " x %" PRId32
                 " (histo writes positive ones, rows bottom-up)", width,
                 height);
        return VALIDATE_BAD_FILE;
    }
    img->width = (uint32_t)width;
    img->height = (uint32_t)height;
    const uint64_t size = bmp_file_bytes(img->width, img->height);
    if (size > SIZE_MAX) {
        complain(img->path, "BMP of %" PRIu32 " x %" PRIu32 " pixels is too "
                 "large for this host", img->width, img->height);
        return VALIDATE_BAD_FILE;
    }
    img->stride = ((size_t)img->width * 3 + 3) & ~(size_t)3;
    img->size = (size_t)size;
    return 0;
}

/* Loads a whole BMP, raw or gzip-compressed, and checks that it is one
 * histo could have written: its header, then exactly the pixel bytes the
 * header promises. The buffer grows as data arrives, so a header that
 * claims a huge image costs memory only if the data is really there. */
static int bmp_load(struct bmp_image *img, const char *path)
{
    *img = (struct bmp_image){.path = path};
    gzFile gz = NULL;
    const int opened = open_gz(path, &gz);
    if (opened != VALIDATE_PASS)
        return opened;
    int status = VALIDATE_BAD_FILE;
    unsigned char header[BMP_HEADER_BYTES];
    const long long have = read_fully(gz, path, header, sizeof header);
    if (have < 0 || (status = check_header(img, header, (size_t)have)) != 0)
        goto fail;

    size_t cap = img->size < (size_t)1 << 20 ? img->size : (size_t)1 << 20;
    size_t got = BMP_HEADER_BYTES;
    if ((img->bytes = malloc(cap)) == NULL) {
        complain(path, "out of memory for %zu bytes", cap);
        status = VALIDATE_MEMORY;
        goto fail;
    }
    memcpy(img->bytes, header, BMP_HEADER_BYTES);
    for (;;) {
        const long long n = read_fully(gz, path, img->bytes + got, cap - got);
        if (n < 0) {
            status = VALIDATE_BAD_FILE;
            goto fail;
        }
        got += (size_t)n;
        if (got < cap || cap == img->size)
            break;
        const size_t more = cap > img->size - cap ? img->size : 2 * cap;
        unsigned char *grown = realloc(img->bytes, more);
        if (grown == NULL) {
            complain(path, "out of memory for %zu bytes", more);
            status = VALIDATE_MEMORY;
            goto fail;
        }
        img->bytes = grown;
        cap = more;
    }
    status = VALIDATE_BAD_FILE;
    if (got < img->size) {
        complain(path, "truncated BMP: its header promises %" PRIu32 "x%"
                 PRIu32 " pixels in %zu bytes, the file holds %zu", img->width,
                 img->height, img->size, got);
        goto fail;
    }
    unsigned char extra[4096];
    long long after = 0, n;
    while ((n = read_fully(gz, path, extra, sizeof extra)) > 0)
        after += n;
    if (n < 0)
        goto fail;
    if (after > 0) {
        complain(path, "%lld byte%s after the last row of a %" PRIu32 "x%"
                 PRIu32 " BMP", after, after == 1 ? "" : "s", img->width,
                 img->height);
        goto fail;
    }
    status = gzclose(gz) == Z_OK ? 0 : VALIDATE_BAD_FILE;
    if (status != 0)
        complain(path, "cannot read to the end of the file");
    return status;

fail:
    gzclose(gz);
    free(img->bytes);
    img->bytes = NULL;
    return status;
}

/* "count 150-152 (red 200)": the counts src/bmp.c paints in this colour. */
static void describe(char *buf, size_t len, const unsigned char *bgr)
{
    if (bgr[0] != 0 || bgr[1] != 0) {
        snprintf(buf, len, "(B,G,R) = (%u,%u,%u) (not a histo colour)",
                 bgr[0], bgr[1], bgr[2]);
        return;
    }
    const uint8_t *red = bmp_red_table();
    unsigned lo = HISTO_SATURATE + 1, hi = 0;
    for (unsigned v = 0; v <= HISTO_SATURATE; ++v)
        if (red[v] == bgr[2]) {
            lo = v < lo ? v : lo;
            hi = v;
        }
    if (hi < lo)
        snprintf(buf, len, "red %u (no count has this colour)", bgr[2]);
    else if (lo == hi)
        snprintf(buf, len, "count %u (red %u%s)", lo, bgr[2],
                 lo == HISTO_SATURATE ? ", saturated" : "");
    else
        snprintf(buf, len, "count %u-%u (red %u)", lo, hi, bgr[2]);
}

struct header_field {
    unsigned offset, bytes;
    const char *name;
};

static const struct header_field header_fields[] = {
    {0, 2, "signature"},        {2, 4, "file size"},
    {6, 4, "reserved"},         {10, 4, "pixel data offset"},
    {14, 4, "info header size"}, {18, 4, "width"},
    {22, 4, "height"},          {26, 2, "planes"},
    {28, 2, "bits per pixel"},  {30, 4, "compression"},
    {34, 4, "image size"},      {38, 4, "horizontal resolution"},
    {42, 4, "vertical resolution"}, {46, 4, "palette colours"},
    {50, 4, "important colours"},
};

static int compare(const struct bmp_image *got, const struct bmp_image *want)
{
    if (got->width != want->width || got->height != want->height) {
        printf("FAIL: %s is a %" PRIu32 "x%" PRIu32 " BMP, expected %" PRIu32
               "x%" PRIu32 " like %s\n", got->path, got->width, got->height,
               want->width, want->height, want->path);
        return VALIDATE_FAIL;
    }
    unsigned header_diffs = 0;
    for (size_t f = 0; f < sizeof header_fields / sizeof *header_fields;
         ++f) {
        const struct header_field *hf = &header_fields[f];
        if (memcmp(got->bytes + hf->offset, want->bytes + hf->offset,
                   hf->bytes) == 0)
            continue;
        const uint32_t a = hf->bytes == 2 ? le16(got->bytes + hf->offset)
                                          : le32(got->bytes + hf->offset);
        const uint32_t b = hf->bytes == 2 ? le16(want->bytes + hf->offset)
                                          : le32(want->bytes + hf->offset);
        if (header_diffs++ == 0)
            printf("FAIL: the BMP headers differ\n");
        printf("  header bytes %u-%u (%s): got %" PRIu32 ", expected %"
               PRIu32 "\n", hf->offset, hf->offset + hf->bytes - 1, hf->name,
               a, b);
    }

    /* Count first, then show the first few in histogram order (row 0 is
     * stored last). */
    const uint32_t w = want->width, h = want->height;
    const size_t pixel_bytes = (size_t)w * 3;
    uint64_t diffs = 0, padding_diffs = 0;
    for (size_t at = BMP_HEADER_BYTES; at < want->size; at += want->stride) {
        const unsigned char *a = got->bytes + at, *b = want->bytes + at;
        if (memcmp(a, b, want->stride) == 0)
            continue;
        for (size_t k = 0; k < pixel_bytes; k += 3)
            diffs += memcmp(a + k, b + k, 3) != 0;
        for (size_t k = pixel_bytes; k < want->stride; ++k)
            padding_diffs += a[k] != b[k];
    }
    if (diffs > 0)
        printf("FAIL: %" PRIu64 " of %" PRIu64 " pixels differ (got %s, "
               "expected %s)\n", diffs, (uint64_t)w * h, got->path,
               want->path);
    uint64_t shown = 0;
    for (uint32_t row = 0; row < h && shown < diffs && shown < VALIDATE_SHOWN;
         ++row) {
        const size_t at = BMP_HEADER_BYTES + (size_t)(h - 1 - row)
                                                 * want->stride;
        const unsigned char *a = got->bytes + at, *b = want->bytes + at;
        for (uint32_t col = 0; col < w && shown < VALIDATE_SHOWN; ++col) {
            const unsigned char *pa = a + 3 * (size_t)col;
            const unsigned char *pb = b + 3 * (size_t)col;
            if (memcmp(pa, pb, 3) == 0)
                continue;
            char ga[96], wa[96];
            describe(ga, sizeof ga, pa);
            describe(wa, sizeof wa, pb);
            printf("  (row %" PRIu32 ", column %" PRIu32 "): got %s, "
                   "expected %s\n", row, col, ga, wa);
            ++shown;
        }
    }
    if (diffs > shown)
        printf("  ... and %" PRIu64 " more\n", diffs - shown);
    if (padding_diffs > 0)
        printf("FAIL: %" PRIu64 " row padding byte%s differ%s\n",
               padding_diffs, padding_diffs == 1 ? "" : "s",
               padding_diffs == 1 ? "s" : "");
    if (diffs > 0 || padding_diffs > 0 || header_diffs > 0)
        return VALIDATE_FAIL;
    printf("PASS: %s matches %s (%" PRIu32 "x%" PRIu32 " pixels)\n",
           got->path, want->path, w, h);
    return VALIDATE_PASS;
}

/* Bins by colour class; used to check that a dataset has a saturated core
 * (Spec/). Rows are histogram rows. */
static int stats(const struct bmp_image *img)
{
    const uint8_t *red = bmp_red_table();
    const uint32_t w = img->width, h = img->height;
    uint64_t empty = 0, counted = 0, saturated = 0, odd = 0;
    uint32_t first = UINT32_MAX, last = 0;
    for (uint32_t row = 0; row < h; ++row) {
        const unsigned char *p = img->bytes + BMP_HEADER_BYTES
                               + (size_t)(h - 1 - row) * img->stride;
        for (uint32_t col = 0; col < w; ++col, p += 3) {
            if (p[0] != 0 || p[1] != 0)
                ++odd;
            else if (p[2] == 0)
                ++empty;
            else if (p[2] == red[HISTO_SATURATE]) {
                ++saturated;
                first = row < first ? row : first;
                last = row;
            } else
                ++counted;
        }
    }
    printf("%s: %" PRIu32 "x%" PRIu32 " bins: %" PRIu64 " empty, %" PRIu64
           " counted below saturation, %" PRIu64 " saturated", img->path, w,
           h, empty, counted, saturated);
    if (saturated > 0)
        printf(" (rows %" PRIu32 "-%" PRIu32 ")", first, last);
    if (odd > 0)
        printf(", %" PRIu64 " not histo colours", odd);
    putchar('\n');
    return odd > 0 ? VALIDATE_BAD_FILE : VALIDATE_PASS;
}

/* Loads exactly n raw counters (raw or gzip-compressed): fewer or more
 * bytes in the file is VALIDATE_BAD_FILE. */
static int counts_load(const char *path, size_t n, unsigned char **out)
{
    *out = NULL;
    gzFile gz = NULL;
    const int opened = open_gz(path, &gz);
    if (opened != VALIDATE_PASS)
        return opened;
    int status = VALIDATE_BAD_FILE;
    unsigned char *buf = malloc(n + 1);
    if (buf == NULL) {
        complain(path, "out of memory for %zu bytes", n);
        status = VALIDATE_MEMORY;
        goto fail;
    }
    /* One byte more than expected tells a longer file. */
    const long long got = read_fully(gz, path, buf, n + 1);
    if (got < 0)
        goto fail;
    if ((size_t)got != n) {
        complain(path, "%s counters: the file holds %s%lld bytes, the "
                 "histogram %zu bins", (size_t)got < n ? "too few"
                 : "too many", (size_t)got > n ? "more than " : "",
                 (size_t)got > n ? (long long)n : got, n);
        goto fail;
    }
    *out = buf;
    buf = NULL;
    status = VALIDATE_PASS;
fail:
    free(buf);
    gzclose(gz);
    return status;
}

static int compare_counts(const char *got_path, const char *want_path,
                          uint32_t w, uint32_t h)
{
    const size_t n = (size_t)w * h;
    unsigned char *got = NULL, *want = NULL;
    int status = counts_load(got_path, n, &got);
    if (status == VALIDATE_PASS)
        status = counts_load(want_path, n, &want);
    if (status != VALIDATE_PASS)
        goto done;
    uint64_t diffs = 0;
    for (size_t i = 0; i < n; ++i)
        diffs += got[i] != want[i];
    if (diffs == 0) {
        printf("PASS: %s matches %s (%" PRIu32 "x%" PRIu32 " counters)\n",
               got_path, want_path, w, h);
        goto done;
    }
    printf("FAIL: %" PRIu64 " of %zu bins differ\n", diffs, n);
    unsigned shown = 0;
    for (size_t i = 0; i < n && shown < VALIDATE_SHOWN; ++i)
        if (got[i] != want[i]) {
            printf("  (row %zu, column %zu) bin %zu: got %u, expected %u\n",
                   i / w, i % w, i, got[i], want[i]);
            ++shown;
        }
    if (diffs > shown)
        printf("  ... and %" PRIu64 " more\n", diffs - shown);
    status = VALIDATE_FAIL;
done:
    free(got);
    free(want);
    return status;
}

/* "WxH" with both sides in 1..2^32-1 and a product that fits size_t. */
static int parse_shape(const char *text, uint32_t *w, uint32_t *h)
{
    char *end = NULL;
    errno = 0;
    const unsigned long long a = strtoull(text, &end, 10);
    if (end == text || *end != 'x' || errno != 0 || a == 0 || a > UINT32_MAX)
        return -1;
    const char *rest = end + 1;
    const unsigned long long b = strtoull(rest, &end, 10);
    if (end == rest || *end != '\0' || errno != 0 || b == 0 || b > UINT32_MAX
        || a * b > SIZE_MAX - 1 || text[0] == '-' || rest[0] == '-')
        return -1;
    *w = (uint32_t)a;
    *h = (uint32_t)b;
    return 0;
}

static int usage(void)
{
    fputs("usage: histo-validate --raw WxH GOT EXPECTED  (either may be .gz)\n"
          "       histo-validate GOT.bmp EXPECTED.bmp  (either may be .gz)\n"
          "       histo-validate --stats FILE.bmp\n", stderr);
    return VALIDATE_USAGE;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--raw") == 0) {
        uint32_t w, h;
        if (parse_shape(argv[2], &w, &h) != 0)
            return usage();
        return compare_counts(argv[3], argv[4], w, h);
    }
    if (argc != 3)
        return usage();
    struct bmp_image a, b = {0};
    int status;
    if (strcmp(argv[1], "--stats") == 0) {
        if ((status = bmp_load(&a, argv[2])) == 0)
            status = stats(&a);
    } else if (argv[1][0] == '-' || argv[2][0] == '-') {
        return usage();
    } else if ((status = bmp_load(&a, argv[1])) == 0
               && (status = bmp_load(&b, argv[2])) == 0) {
        status = compare(&a, &b);
    }
    free(a.bytes);
    free(b.bytes);
    return status;
}
