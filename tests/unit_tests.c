/*
 * unit_tests.c - the BMP writer and colour table, the input reader, the
 * command line, the reference loop, progress lines and device discovery
 * (against a fake OpenCL), each against expectations written out independently of the
 * code under test.
 *
 * Prints one "PASS name" or "FAIL name: why" line per test; tests/run.sh
 * counts them. Exit status: 0 when all pass.
 */
#include "bmp.h"
#include "choose.h"
#include "cli.h"
#include "counts.h"
#include "cpu_plan.h"
#include "device.h"
#include "energy.h"
#include "error.h"
#include "eye_plan.h"
#include "input.h"
#include "params.h"
#include "outfile.h"
#include "progress.h"
#include "reference.h"
#include "strategy.h"
#include "tune_cache.h"
#include "work.h"

#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

static int failures;
/* the folder every test file goes in: argv[1], never the current one */
static const char *workdir;

static int check(int ok, const char *name, const char *fmt, ...)
{
    if (ok) {
        printf("PASS %s\n", name);
        return 1;
    }
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL %s: ", name);
    vprintf(fmt, ap);
    putchar('\n');
    va_end(ap);
    ++failures;
    return 0;
}

/* A child that writes one output, deferred, and raises SIGTERM before or
 * after outfile_publish_all: its status, its one stderr line and whether
 * the output is there afterwards. */
static void signal_child(const char *name, bool publish, const char *want,
                         bool kept)
{
    char path[512], err[512], line[256] = "";
    snprintf(path, sizeof path, "%s/signal-%s.txt", workdir, name);
    snprintf(err, sizeof err, "%s/signal-%s.err", workdir, name);
    unlink(path);
    fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        if (freopen(err, "w", stderr) == NULL)
            _exit(3);
        struct outfile o;
        outfile_handle_signals();
        outfile_defer();
        if (outfile_open_text(&o, path) != 0)
            _exit(4);
        fprintf(o.f, "whole\n");
        if (outfile_commit(&o) != 0 || (publish && outfile_publish_all() != 0))
            _exit(5);
        raise(SIGTERM);
        _exit(6);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    FILE *f = fopen(err, "r");
    if (f != NULL) {
        if (fgets(line, sizeof line, f) == NULL)
            line[0] = '\0';
        fclose(f);
    }
    line[strcspn(line, "\n")] = '\0';
    struct stat sb;
    const bool there = stat(path, &sb) == 0;
    char id[64];
    snprintf(id, sizeof id, "outfile.signal.%s", name);
    check(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM && there == kept
              && strcmp(line, want) == 0,
          id, "status %#x, output %s, stderr '%s' (expected '%s', %s)", st,
          there ? "there" : "gone", line, want, kept ? "kept" : "gone");
    unlink(path);
}

/* Once every output is renamed into place a signal keeps them and says
 * so; before, it removes them and says that. */
static void test_outfile_signal(void)
{
    signal_child("before_publish", false,
                 "histo: terminated (SIGTERM); unfinished outputs removed",
                 false);
    signal_child("after_publish", true,
                 "histo: terminated (SIGTERM) after its outputs were "
                 "complete: they are kept",
                 true);
}

/* red channel per count, computed separately in Python (IEEE float32
 * rounding emulated with struct): int(f32(f32(cbrt(1+63v/255)/4)*255)) */
static const unsigned char expected_red[256] = {
    0, 68, 72, 76, 80, 83, 86, 89, 91, 94, 96, 98, 100, 102, 104, 106, 108,
    110, 112, 113, 115, 117, 118, 120, 121, 122, 124, 125, 127, 128, 129, 130,
    132, 133, 134, 135, 136, 137, 139, 140, 141, 142, 143, 144, 145, 146, 147,
    148, 149, 150, 151, 152, 153, 153, 154, 155, 156, 157, 158, 159, 160, 160,
    161, 162, 163, 164, 164, 165, 166, 167, 167, 168, 169, 170, 170, 171, 172,
    173, 173, 174, 175, 175, 176, 177, 177, 178, 179, 179, 180, 181, 181, 182,
    183, 183, 184, 185, 185, 186, 186, 187, 188, 188, 189, 189, 190, 191, 191,
    192, 192, 193, 193, 194, 195, 195, 196, 196, 197, 197, 198, 198, 199, 200,
    200, 201, 201, 202, 202, 203, 203, 204, 204, 205, 205, 206, 206, 207, 207,
    208, 208, 209, 209, 210, 210, 211, 211, 212, 212, 213, 213, 213, 214, 214,
    215, 215, 216, 216, 217, 217, 218, 218, 218, 219, 219, 220, 220, 221, 221,
    222, 222, 222, 223, 223, 224, 224, 225, 225, 225, 226, 226, 227, 227, 227,
    228, 228, 229, 229, 229, 230, 230, 231, 231, 231, 232, 232, 233, 233, 233,
    234, 234, 235, 235, 235, 236, 236, 237, 237, 237, 238, 238, 238, 239, 239,
    240, 240, 240, 241, 241, 241, 242, 242, 242, 243, 243, 244, 244, 244, 245,
    245, 245, 246, 246, 246, 247, 247, 247, 248, 248, 248, 249, 249, 249, 250,
    250, 251, 251, 251, 252, 252, 252, 253, 253, 253, 254, 254, 254, 255,
};

static void test_colour_table(void)
{
    const uint8_t *red = bmp_red_table();
    int bad = -1;
    for (int v = 0; v < 256 && bad < 0; ++v)
        if (red[v] != expected_red[v])
            bad = v;
    check(bad < 0, "bmp.colour_table", "count %d gives red %d, expected %d",
          bad, bad < 0 ? 0 : red[bad], bad < 0 ? 0 : expected_red[bad]);
}

static char *path_in_workdir(const char *name)
{
    static char buf[4][1024];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", workdir, name);
    return p;
}

static unsigned char *slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    *len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)*len + 1);
    if (buf != NULL && fread(buf, 1, (size_t)*len, f) != (size_t)*len) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

/* 3 x 2 histogram: rows of 9 pixel bytes padded to 12; bottom row first. */
static void test_bmp_layout(void)
{
    const uint8_t histo[6] = {0, 1, 255, /* row 0 */ 2, 0, 3 /* row 1 */};
    const unsigned char expected[54 + 24] = {
        'B', 'M', 72, 0, 0, 0,      /* 54 + 3*2*3 (no padding counted) */
        0, 0, 0, 0, 54, 0, 0, 0,    /* reserved, pixel offset          */
        40, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, /* info size, w, h        */
        1, 0, 24, 0, 0, 0, 0, 0,    /* planes, bpp, compression        */
        18, 0, 0, 0,                /* image size 3*2*3                */
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* res, colours */
        /* row 1 (last) first: counts 2, 0, 3 -> B G R */
        0, 0, 72, 0, 0, 0, 0, 0, 76, 0, 0, 0,
        /* row 0: counts 0, 1, 255 */
        0, 0, 0, 0, 0, 68, 0, 0, 255, 0, 0, 0,
    };
    const char *path = path_in_workdir("unit_layout.bmp");
    int status = bmp_save(path, histo, 3, 2);
    long len = 0;
    unsigned char *got = status == 0 ? slurp(path, &len) : NULL;
    long diff = -1;
    if (got != NULL && len == (long)sizeof expected)
        for (long i = 0; i < len && diff < 0; ++i)
            if (got[i] != expected[i])
                diff = i;
    check(got != NULL && len == (long)sizeof expected && diff < 0,
          "bmp.layout_3x2", "status %d, %ld bytes, first difference at %ld",
          status, len, diff);
    check(bmp_file_bytes(3, 2) == sizeof expected, "bmp.file_bytes",
          "bmp_file_bytes(3,2) = %llu",
          (unsigned long long)bmp_file_bytes(3, 2));
    free(got);
    remove(path);
}

static void test_bmp_unwritable(void)
{
    const uint8_t histo[1] = {1};
    const char *path = path_in_workdir("no-such-folder/out.bmp");
    check(bmp_save(path, histo, 1, 1) == HISTO_EXIT_OUTPUT,
          "bmp.unwritable_folder", "expected exit status %d",
          HISTO_EXIT_OUTPUT);
}

static void put_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* Writes header + values (+ extra bytes) raw, or gzip-compressed. */
static const char *write_input(const char *name, const uint32_t hdr[4],
                               const uint32_t *values, size_t n,
                               size_t cut_bytes, size_t extra, int gz)
{
    const char *path = path_in_workdir(name);
    size_t len = 16 + 4 * n + extra;
    unsigned char *buf = calloc(len, 1);
    for (int i = 0; i < 4; ++i)
        put_le32(buf + 4 * i, hdr[i]);
    for (size_t i = 0; i < n; ++i)
        put_le32(buf + 16 + 4 * i, values[i]);
    len -= cut_bytes;
    if (gz) {
        gzFile f = gzopen(path, "wb");
        gzwrite(f, buf, (unsigned)len);
        gzclose(f);
    } else {
        FILE *f = fopen(path, "wb");
        fwrite(buf, 1, len, f);
        fclose(f);
    }
    free(buf);
    return path;
}

static void test_input_reader(void)
{
    const uint32_t hdr[4] = {3, 2, 4, 2};
    const uint32_t vals[6] = {0, 7, 3, 3, 0x00000004, 5};
    struct histo_input in;

    for (int gz = 0; gz < 2; ++gz) {
        const char *p = write_input(gz ? "ok.bin.gz" : "ok.bin", hdr, vals, 6,
                                    0, 0, gz);
        int st = input_read(p, &in);
        int same = st == 0 && in.nvalues == 6 && in.nbins == 8
                && in.img_width == 3 && in.histo_height == 2
                && memcmp(in.values, vals, sizeof vals) == 0;
        check(same, gz ? "input.gzip" : "input.raw",
              "status %d or decoded values differ", st);
        if (st == 0)
            input_free(&in);
    }

    struct { const char *name; uint32_t hdr[4]; size_t cut, extra;
             uint32_t bad_value; int gz; } cases[] = {
        {"input.truncated_data", {3, 2, 4, 2}, 3, 0, 0, 0},
        {"input.trailing_data", {3, 2, 4, 2}, 0, 1, 0, 0},
        {"input.value_out_of_range", {3, 2, 4, 2}, 0, 0, 8, 0},
        {"input.zero_image", {0, 2, 4, 2}, 0, 0, 0, 0},
        {"input.zero_histogram", {3, 2, 4, 0}, 0, 0, 0, 0},
        {"input.bins_overflow", {3, 2, 65536, 65536}, 0, 0, 0, 0},
        {"input.too_many_values", {65536, 32769, 4, 2}, 0, 0, 0, 0},
        {"input.truncated_gzip_data", {3, 2, 4, 2}, 5, 0, 0, 1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        uint32_t v[6];
        memcpy(v, vals, sizeof v);
        if (cases[c].bad_value)
            v[4] = cases[c].bad_value;
        const char *p = write_input("bad.bin", cases[c].hdr, v, 6,
                                    cases[c].cut, cases[c].extra,
                                    cases[c].gz);
        const int st = input_read(p, &in);
        check(st == HISTO_EXIT_INPUT && in.values == NULL, cases[c].name,
              "status %d, expected %d", st, HISTO_EXIT_INPUT);
    }

    /* a short header */
    const char *p = path_in_workdir("short.bin");
    FILE *f = fopen(p, "wb");
    fwrite("\1\0\0\0\1\0\0", 1, 7, f);
    fclose(f);
    check(input_read(p, &in) == HISTO_EXIT_INPUT, "input.short_header",
          "accepted a 7-byte file");

    /* gzip magic followed by garbage */
    f = fopen(p, "wb");
    fwrite("\x1f\x8b\x08\x00garbage-garbage-garbage", 1, 27, f);
    fclose(f);
    check(input_read(p, &in) == HISTO_EXIT_INPUT, "input.corrupt_gzip",
          "accepted a corrupt gzip stream");
    check(input_read(path_in_workdir("missing.bin"), &in) == HISTO_EXIT_INPUT,
          "input.missing_file", "accepted a missing file");
}

/* Appends one gzip member holding data[0..len) to out (level 0: stored
 * blocks, the data verbatim); returns the new length, 0 if it overflowed. */
static size_t gzip_member(const unsigned char *data, size_t len, int level,
                          unsigned char *out, size_t used, size_t room)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, level, Z_DEFLATED, 16 + MAX_WBITS, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK)
        return 0;
    z.next_in = (unsigned char *)data;
    z.avail_in = (uInt)len;
    z.next_out = out + used;
    z.avail_out = (uInt)(room - used);
    const int ret = deflate(&z, Z_FINISH);
    used = ret == Z_STREAM_END ? room - z.avail_out : 0;
    deflateEnd(&z);
    return used;
}

static const char *write_bytes(const char *name, const void *buf, size_t len)
{
    const char *path = path_in_workdir(name);
    FILE *f = fopen(path, "wb");
    fwrite(buf, 1, len, f);
    fclose(f);
    return path;
}

/* Reads path; 1 when it is accepted with exactly the values want. */
static int reads_as(const char *path, const uint32_t *want, size_t n)
{
    struct histo_input in;
    if (input_read(path, &in) != 0)
        return 0;
    const int same = in.nvalues == n
                  && memcmp(in.values, want, n * sizeof *want) == 0;
    input_free(&in);
    return same;
}

/* Exit status of reading path, and no values left behind on failure. */
static int read_status(const char *path)
{
    struct histo_input in;
    const int st = input_read(path, &in);
    if (st == 0)
        input_free(&in);
    else if (in.values != NULL)
        return -1;
    return st;
}

/* gzip streams built member by member: each member must be read to its
 * trailer (CRC-32 and length), several members are one stream, and nothing
 * but the end of the file may follow the last. */
static void test_input_gzip_members(void)
{
    /* a 4x4 image over a 4x4 histogram: 80 bytes */
    uint32_t vals[16];
    unsigned char raw[80];
    const uint32_t hdr[4] = {4, 4, 4, 4};
    for (int i = 0; i < 4; ++i)
        put_le32(raw + 4 * i, hdr[i]);
    for (int i = 0; i < 16; ++i) {
        vals[i] = (uint32_t)(i * 7) % 16;
        put_le32(raw + 16 + 4 * i, vals[i]);
    }
    enum { ROOM = 1024 };
    static unsigned char gz[2][ROOM], file[ROOM];
    size_t gz_len[2];
    const char *const kind[2] = {"stored", "deflated"};
    gz_len[0] = gzip_member(raw, sizeof raw, 0, gz[0], 0, ROOM);
    gz_len[1] = gzip_member(raw, sizeof raw, 9, gz[1], 0, ROOM);
    if (!check(gz_len[0] > sizeof raw && gz_len[1] > 18, "input.gzip_build",
               "zlib made members of %zu and %zu bytes", gz_len[0],
               gz_len[1]))
        return;
    char name[64];
    const char *p;
    int st;

    /* a member cut anywhere, its trailer or more: refused */
    const size_t cuts[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 30};
    for (int k = 0; k < 2; ++k) {
        p = write_bytes("cut.gz", gz[k], gz_len[k]);
        snprintf(name, sizeof name, "input.gzip_%s_whole", kind[k]);
        check(reads_as(p, vals, 16), name, "a whole member was refused");
        for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; ++c) {
            if (cuts[c] + 10 >= gz_len[k])
                continue;
            p = write_bytes("cut.gz", gz[k], gz_len[k] - cuts[c]);
            snprintf(name, sizeof name, "input.gzip_%s_cut_%zu", kind[k],
                     cuts[c]);
            st = read_status(p);
            check(st == HISTO_EXIT_INPUT, name, "last %zu of %zu bytes cut:"
                  " status %d, expected %d", cuts[c], gz_len[k], st,
                  HISTO_EXIT_INPUT);
        }
    }

    /* one value changed in the stored data (still inside the histogram):
     * the CRC-32 no longer matches; without the trailer it is unchecked */
    size_t at = 0;
    while (at + sizeof raw <= gz_len[0]
           && memcmp(gz[0] + at, raw, sizeof raw) != 0)
        ++at;
    if (check(at + sizeof raw <= gz_len[0], "input.gzip_stored_verbatim",
              "the values are not stored verbatim in the member")) {
        memcpy(file, gz[0], gz_len[0]);
        file[at + 16 + 4 * 5] ^= 1; /* value 5: 3 becomes 2 */
        st = read_status(write_bytes("flip.gz", file, gz_len[0]));
        check(st == HISTO_EXIT_INPUT, "input.gzip_crc_mismatch",
              "status %d, expected %d", st, HISTO_EXIT_INPUT);
        st = read_status(write_bytes("flip.gz", file, gz_len[0] - 8));
        check(st == HISTO_EXIT_INPUT, "input.gzip_changed_trailer_cut",
              "status %d, expected %d", st, HISTO_EXIT_INPUT);
    }
    memcpy(file, gz[1], gz_len[1]);
    file[gz_len[1] - 4] ^= 1; /* ISIZE */
    st = read_status(write_bytes("isize.gz", file, gz_len[1]));
    check(st == HISTO_EXIT_INPUT, "input.gzip_length_mismatch",
          "status %d, expected %d", st, HISTO_EXIT_INPUT);

    /* bytes after the last member that are no gzip member: refused */
    const struct { const char *name, *bytes; size_t len; } tails[] = {
        {"input.gzip_trailing_byte", "x", 1},
        {"input.gzip_trailing_zeros", "\0\0\0\0\0\0\0\0", 8},
        {"input.gzip_trailing_half_magic", "\x1f", 1},
        {"input.gzip_trailing_magic_only", "\x1f\x8b", 2},
        {"input.gzip_trailing_bad_member", "\x1f\x8b\x08\x00garbage!", 12},
    };
    for (size_t t = 0; t < sizeof tails / sizeof tails[0]; ++t) {
        memcpy(file, gz[1], gz_len[1]);
        memcpy(file + gz_len[1], tails[t].bytes, tails[t].len);
        st = read_status(write_bytes("tail.gz", file,
                                     gz_len[1] + tails[t].len));
        check(st == HISTO_EXIT_INPUT, tails[t].name, "status %d, expected %d",
              st, HISTO_EXIT_INPUT);
    }

    /* members that together hold the input, empty ones anywhere: one
     * stream (a split inside the header, inside a value, at the values) */
    const size_t splits[] = {7, 23, 16};
    for (size_t s = 0; s < sizeof splits / sizeof splits[0]; ++s) {
        const size_t a = splits[s];
        size_t n = gzip_member(raw, a, 0, file, 0, ROOM);
        n = n ? gzip_member(raw + a, sizeof raw - a, 9, file, n, ROOM) : 0;
        snprintf(name, sizeof name, "input.gzip_two_members_%zu", a);
        check(n > 0 && reads_as(write_bytes("members.gz", file, n), vals, 16),
              name, "two members, %zu + %zu bytes, were not read as one",
              a, sizeof raw - a);
    }
    size_t n = gzip_member(raw, 0, 6, file, 0, ROOM);
    n = n ? gzip_member(raw, 40, 6, file, n, ROOM) : 0;
    n = n ? gzip_member(raw, 0, 6, file, n, ROOM) : 0;
    n = n ? gzip_member(raw + 40, 40, 6, file, n, ROOM) : 0;
    n = n ? gzip_member(raw, 0, 6, file, n, ROOM) : 0;
    check(n > 0 && reads_as(write_bytes("members.gz", file, n), vals, 16),
          "input.gzip_empty_members", "empty members before, between and"
          " after the data were not ignored");
    memcpy(file, gz[1], gz_len[1]);
    n = gzip_member(raw, 0, 6, file, gz_len[1], ROOM);
    check(n > 0 && reads_as(write_bytes("members.gz", file, n), vals, 16),
          "input.gzip_empty_last_member", "refused");
    /* a second member that holds more than the header promises */
    n = gzip_member(raw, 4, 6, file, gz_len[1], ROOM);
    st = n > 0 ? read_status(write_bytes("members.gz", file, n)) : -2;
    check(st == HISTO_EXIT_INPUT, "input.gzip_member_past_the_values",
          "status %d, expected %d", st, HISTO_EXIT_INPUT);
    /* the last member of several cut short */
    n = gzip_member(raw, 40, 6, file, 0, ROOM);
    n = n ? gzip_member(raw + 40, 40, 6, file, n, ROOM) : 0;
    st = n > 4 ? read_status(write_bytes("members.gz", file, n - 4)) : -2;
    check(st == HISTO_EXIT_INPUT, "input.gzip_second_member_cut",
          "status %d, expected %d", st, HISTO_EXIT_INPUT);
}

static int parse(const char *const *words, struct histo_options *opt)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = "histo";
    for (; *words != NULL; ++words)
        argv[argc++] = (char *)*words;
    argv[argc] = NULL;
    return cli_parse(argc, argv, opt);
}

static void test_cli(void)
{
    struct histo_options o;
    unsetenv("HISTO_PLATFORM");
    unsetenv("HISTO_DEVICE");
    const char *full[] = {"-i", "in.bin", "-o", "out.bmp", "--platform",
                          "NVIDIA CUDA", "--device", "GPU", "--batches", "12",
                          "--timing", "t.out", "--", "20", "4", "x", NULL};
    int st = parse(full, &o);
    check(st == 0 && strcmp(o.input, "in.bin") == 0
              && strcmp(o.output, "out.bmp") == 0
              && strcmp(o.platform, "NVIDIA CUDA") == 0
              && strcmp(o.device, "GPU") == 0 && o.knobs.v[KNOB_BATCHES] == 12
              && strcmp(o.timing, "t.out") == 0 && o.iterations == 20,
          "cli.full_command", "status %d or fields wrong", st);

    const char *dflt[] = {"-i", "a", "-o", "b", "--", "1", NULL};
    st = parse(dflt, &o);
    check(st == 0 && strcmp(o.timing, "histo.out") == 0 && o.knobs.v[KNOB_BATCHES] == 0
              && o.platform == NULL && o.device == NULL,
          "cli.defaults", "status %d", st);

    setenv("HISTO_DEVICE", "CPU", 1);
    setenv("HISTO_PLATFORM", "1", 1);
    st = parse(dflt, &o);
    check(st == 0 && o.device != NULL && strcmp(o.device, "CPU") == 0
              && strcmp(o.platform, "1") == 0, "cli.environment_fallback",
          "status %d", st);
    const char *over[] = {"-i", "a", "-o", "b", "--device", "0", "--", "1",
                          NULL};
    st = parse(over, &o);
    check(st == 0 && strcmp(o.device, "0") == 0, "cli.option_beats_env",
          "status %d", st);
    unsetenv("HISTO_DEVICE");
    unsetenv("HISTO_PLATFORM");

    const char *strat[] = {"-i", "a", "-o", "b", "--strategy", "eye", "--",
                           "1", NULL};
    st = parse(strat, &o);
    check(st == 0 && o.strategy != NULL && strcmp(o.strategy, "eye") == 0,
          "cli.strategy_eye", "status %d", st);
    strat[5] = "cpu";
    st = parse(strat, &o);
    check(st == 0 && o.strategy != NULL && strcmp(o.strategy, "cpu") == 0,
          "cli.strategy_cpu", "status %d", st);
    strat[5] = "auto";
    st = parse(strat, &o);
    check(st == 0 && o.strategy == NULL, "cli.strategy_auto", "status %d",
          st);
    parse(strat, &o);
    st = parse(dflt, &o);
    check(st == 0 && o.strategy == NULL, "cli.strategy_default_auto",
          "status %d or a strategy without --strategy", st);

    const char *list[] = {"--list", NULL};
    st = parse(list, &o);
    check(st == 0 && o.list, "cli.list", "status %d", st);

    static const struct { const char *name; const char *words[10]; } bad[] = {
        {"cli.missing_input", {"-o", "b", "--", "1"}},
        {"cli.missing_output", {"-i", "a", "--", "1"}},
        {"cli.missing_iterations", {"-i", "a", "-o", "b"}},
        {"cli.missing_iterations_after_dashes", {"-i", "a", "-o", "b", "--"}},
        {"cli.zero_iterations", {"-i", "a", "-o", "b", "--", "0"}},
        {"cli.negative_iterations", {"-i", "a", "-o", "b", "--", "-3"}},
        {"cli.text_iterations", {"-i", "a", "-o", "b", "--", "ten"}},
        {"cli.partly_numeric", {"-i", "a", "-o", "b", "--", "10x"}},
        {"cli.huge_iterations",
         {"-i", "a", "-o", "b", "--", "99999999999999999999"}},
        {"cli.unknown_option", {"-i", "a", "-o", "b", "--frobnicate", "--",
                                "1"}},
        {"cli.option_without_value", {"-o", "b", "-i"}},
        {"cli.zero_batches", {"-i", "a", "-o", "b", "--batches", "0", "--",
                              "1"}},
        {"cli.too_many_batches", {"-i", "a", "-o", "b", "--batches",
                                  "1000000", "--", "1"}},
        {"cli.unknown_strategy", {"-i", "a", "-o", "b", "--strategy", "gpu",
                                  "--", "1"}},
        {"cli.strategy_case", {"-i", "a", "-o", "b", "--strategy", "CPU",
                               "--", "1"}},
        {"cli.strategy_without_value", {"-i", "a", "-o", "b", "--strategy"}},
        {"cli.zero_tile_rows", {"-i", "a", "-o", "b", "--tile-rows", "0",
                                "--", "1"}},
        {"cli.too_many_tile_rows", {"-i", "a", "-o", "b", "--tile-rows",
                                    "65536", "--", "1"}},
        {"cli.negative_tile_rows", {"-i", "a", "-o", "b", "--tile-rows",
                                    "-7", "--", "1"}},
        {"cli.text_tile_rows", {"-i", "a", "-o", "b", "--tile-rows", "7x",
                                "--", "1"}},
        {"cli.tune_with_batches", {"-i", "a", "-o", "b", "--tune",
                                   "--batches", "4", "--", "1"}},
        {"cli.tune_with_tile_rows", {"-i", "a", "-o", "b", "--tile-rows",
                                     "4", "--tune", "--", "1"}},
    };
    for (size_t c = 0; c < sizeof bad / sizeof bad[0]; ++c) {
        fflush(stdout);
        st = parse(bad[c].words, &o);
        check(st == HISTO_EXIT_USAGE, bad[c].name, "status %d, expected %d",
              st, HISTO_EXIT_USAGE);
    }
}

/* --tile-rows, --tune, --no-tune-cache and $HISTO_NO_TUNE_CACHE. */
static void test_cli_tune(void)
{
    struct histo_options o;
    unsetenv("HISTO_NO_TUNE_CACHE");
    const char *rows[] = {"-i", "a", "-o", "b", "--tile-rows", "7", "--",
                          "1", NULL};
    int st = parse(rows, &o);
    check(st == 0 && o.knobs.v[KNOB_TILE_ROWS] == 7 && o.knobs.v[KNOB_BATCHES] == 0 && !o.tune
              && !o.no_tune_cache, "cli.tile_rows", "status %d, rows %u",
          st, o.knobs.v[KNOB_TILE_ROWS]);
    rows[5] = "65535";
    st = parse(rows, &o);
    check(st == 0 && o.knobs.v[KNOB_TILE_ROWS] == 65535, "cli.tile_rows_max",
          "status %d, rows %u", st, o.knobs.v[KNOB_TILE_ROWS]);
    const char *tune[] = {"-i", "a", "-o", "b", "--tune", "--no-tune-cache",
                          "--", "1", NULL};
    st = parse(tune, &o);
    check(st == 0 && o.tune && o.no_tune_cache && o.knobs.v[KNOB_TILE_ROWS] == 0,
          "cli.tune_flags", "status %d", st);
    const char *plain[] = {"-i", "a", "-o", "b", "--", "1", NULL};
    setenv("HISTO_NO_TUNE_CACHE", "1", 1);
    st = parse(plain, &o);
    const int env_on = st == 0 && o.no_tune_cache;
    setenv("HISTO_NO_TUNE_CACHE", "0", 1);
    st = parse(plain, &o);
    check(env_on && st == 0 && !o.no_tune_cache, "cli.no_tune_cache_env",
          "HISTO_NO_TUNE_CACHE=1 or =0 read wrong");
    unsetenv("HISTO_NO_TUNE_CACHE");
}

static void test_tune_values_log2(void)
{
    static const struct { uint64_t n; unsigned k; } cases[] = {
        {0, 0}, {1, 0}, {2, 1}, {3, 1}, {4, 2}, {40000, 15},
        {(1u << 24) - 1, 23}, {1u << 24, 24}, {UINT64_C(1) << 31, 31},
    };
    int bad = -1;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0] && bad < 0; ++i)
        if (tune_values_log2(cases[i].n) != cases[i].k)
            bad = (int)i;
    check(bad < 0, "tune.values_log2", "case %d", bad);
}

static void test_tune_parse(void)
{
    struct tune_entry e;
    int r = tune_parse_line("NVIDIA H200 | eye | 256x8192 | 2^24 = batches "
                            "64 tile_rows 0\n", &e);
    check(r == 1 && strcmp(e.key.device, "NVIDIA H200") == 0
              && strcmp(e.key.strategy, "eye") == 0
              && e.key.histo_width == 256 && e.key.histo_height == 8192
              && e.key.values_log2 == 24 && e.knobs.v[KNOB_BATCHES] == 64
              && e.knobs.v[KNOB_TILE_ROWS] == 0,
          "tune.parse_line", "result %d", r);
    r = tune_parse_line("  A|B = C  |cpu|1x1|2^0=batches 65536 tile_rows "
                        "65535\r\n", &e);
    check(r == 1 && strcmp(e.key.device, "A|B = C") == 0
              && strcmp(e.key.strategy, "cpu") == 0 && e.knobs.v[KNOB_BATCHES] == 65536
              && e.knobs.v[KNOB_TILE_ROWS] == 65535, "tune.parse_line_odd_name",
          "result %d, device '%s'", r, e.key.device);
    check(tune_parse_line("", &e) == 0 && tune_parse_line("  \t\n", &e) == 0
              && tune_parse_line("# DEVICE | eye | 1x1 | 2^0 = batches 1 "
                                 "tile_rows 1", &e) == 0,
          "tune.parse_comments", "a comment or blank line is not skipped");
    r = tune_parse_line("D | replicated | 256x8192 | 2^24 = batches 0 "
                        "tile_rows 0 replicas 16", &e);
    check(r == 1 && strcmp(e.key.strategy, "replicated") == 0
              && e.knobs.v[KNOB_REPLICAS] == 16 && e.knobs.v[KNOB_BATCHES] == 0,
          "tune.parse_replicas", "result %d, replicas %u", r, e.knobs.v[KNOB_REPLICAS]);
    r = tune_parse_line("D | eye | 256x8192 | 2^24 = batches 3 tile_rows 0",
                        &e);
    check(r == 1 && e.knobs.v[KNOB_REPLICAS] == 0, "tune.parse_no_replicas",
          "result %d, replicas %u", r, e.knobs.v[KNOB_REPLICAS]);

    static const char *const bad[] = {
        "garbage",
        "NVIDIA H200 | eye | 256x8192 | 2^24",
        "NVIDIA H200 | eye | 256x8192 = batches 64 tile_rows 0",
        "eye | 256x8192 | 2^24 = batches 64 tile_rows 0",
        " | eye | 256x8192 | 2^24 = batches 64 tile_rows 0",
        "D |  | 256x8192 | 2^24 = batches 64 tile_rows 0",
        "D | e y e | 256x8192 | 2^24 = batches 64 tile_rows 0",
        "D | eye | 256x | 2^24 = batches 64 tile_rows 0",
        "D | eye | 0x8192 | 2^24 = batches 64 tile_rows 0",
        "D | eye | 256x8192x2 | 2^24 = batches 64 tile_rows 0",
        "D | eye | 256*8192 | 2^24 = batches 64 tile_rows 0",
        "D | eye | 4294967296x1 | 2^24 = batches 64 tile_rows 0",
        "D | eye | 256x8192 | 24 = batches 64 tile_rows 0",
        "D | eye | 256x8192 | 2^64 = batches 64 tile_rows 0",
        "D | eye | 256x8192 | 2^ = batches 64 tile_rows 0",
        "D | eye | 256x8192 | 2^24 = batches 64",
        "D | eye | 256x8192 | 2^24 = batches tile_rows 0",
        "D | eye | 256x8192 | 2^24 = batches -1 tile_rows 0",
        "D | eye | 256x8192 | 2^24 = batches +1 tile_rows 0",
        "D | eye | 256x8192 | 2^24 = batches 65537 tile_rows 0",
        "D | eye | 256x8192 | 2^24 = batches 64 tile_rows 65536",
        "D | eye | 256x8192 | 2^24 = batches 64 tile_rows 1e3",
        "D | eye | 256x8192 | 2^24 = batches 64 tile_rows 0 extra",
        "D | eye | 256x8192 | 2^24 = batches64 tile_rows 0",
        "D | eye | 256x8192 | 2^24 = tile_rows 0 batches 64",
        "D | eye | 256x8192 | 2^24 = batches 99999999999999999999 tile_rows 0",
        "D | eye | 256x8192 | 2^24 = batches 64 tile_rows 0 replicas 0",
        "D | eye | 256x8192 | 2^24 = batches 64 tile_rows 0 replicas 17",
        "D | eye | 256x8192 | 2^24 = batches 64 tile_rows 0 replicas",
        "D | eye | 256x8192 | 2^24 = batches 64 tile_rows 0 replicas 2 x",
        "D | eye | 256x8192 | 2^24 = batches 64 replicas 2 tile_rows 0",
    };
    int which = -1;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0] && which < 0; ++i)
        if (tune_parse_line(bad[i], &e) != -1)
            which = (int)i;
    check(which < 0, "tune.parse_malformed", "accepted '%s'",
          which < 0 ? "" : bad[which]);

    char long_line[2000];
    memset(long_line, 'a', sizeof long_line - 1);
    long_line[sizeof long_line - 1] = '\0';
    check(tune_parse_line(long_line, &e) == -1, "tune.parse_long_line",
          "accepted a 2000-character line");

    /* what tune_format_line writes reads back as the same entry */
    struct tune_entry w = {.knobs = {{12, 345, 4}}};
    strcpy(w.key.device, "Dev | with = odd characters");
    strcpy(w.key.strategy, "eye");
    w.key.histo_width = 1000000;
    w.key.histo_height = 2;
    w.key.values_log2 = 31;
    char line[600] = "";
    FILE *f = fopen(path_in_workdir("line.txt"), "w+");
    if (f != NULL) {
        tune_format_line(f, &w);
        rewind(f);
        if (fgets(line, sizeof line, f) == NULL)
            line[0] = '\0';
        fclose(f);
    }
    r = tune_parse_line(line, &e);
    check(r == 1 && memcmp(&e.key, &w.key, sizeof e.key) == 0
              && memcmp(&e.knobs, &w.knobs, sizeof e.knobs) == 0,
          "tune.format_round_trip", "'%s' read back as %d", line, r);
}

/* The knob table drives the options, the cache line and the messages:
 * each knob's option sets its own slot, within its own bounds; the
 * formats name every knob in the table's order. */
static void test_knobs(void)
{
    for (size_t k = 0; k < KNOB_COUNT; ++k) {
        const struct knob *kn = &knob_table[k];
        char top[32], over[32], name[64];
        snprintf(top, sizeof top, "%lu", kn->max);
        snprintf(over, sizeof over, "%lu", kn->max + 1);
        const char *const at_max[] = {"-i", "a", "-o", "b", kn->option, top,
                                      "--", "1", NULL};
        const char *const past[] = {"-i", "a", "-o", "b", kn->option, over,
                                    "--", "1", NULL};
        struct histo_options o;
        int st = parse(at_max, &o);
        bool only = st == 0 && o.knobs.v[k] == kn->max;
        for (size_t j = 0; j < KNOB_COUNT; ++j)
            only = only && (j == k || o.knobs.v[j] == 0);
        snprintf(name, sizeof name, "knobs.%s.option_sets_its_slot", kn->name);
        check(only, name, "status %d", st);
        snprintf(name, sizeof name, "knobs.%s.above_max_refused", kn->name);
        st = parse(past, &o);
        check(st == HISTO_EXIT_USAGE, name, "status %d for %s", st, over);
        snprintf(name, sizeof name, "knobs.%s.found_by_option", kn->name);
        check(knob_by_option(kn->option) == kn && kn->help != NULL
                  && strstr(kn->help, kn->option) != NULL,
              name, "option %s", kn->option);
    }
    check(knob_by_option("--no-such-knob") == NULL, "knobs.unknown_option",
          "found a row");

    const struct knob_values v = {{[KNOB_BATCHES] = 4, [KNOB_REPLICAS] = 1}};
    char text[64];
    knob_format(text, sizeof text, &v);
    check(strcmp(text, "B=4 w=0 R=1") == 0, "knobs.format", "'%s'", text);
    check(knob_any(&v) && !knob_any(&(struct knob_values){{0}}),
          "knobs.any", "wrong");

    /* an optional cache field at 0 is left out, and reads back as 0 */
    struct tune_entry e = {.knobs = {{[KNOB_BATCHES] = 7}}}, got;
    strcpy(e.key.device, "D");
    strcpy(e.key.strategy, "cpu");
    e.key.histo_width = e.key.histo_height = 1;
    char line[256] = "";
    FILE *f = fopen(path_in_workdir("knobs.txt"), "w+");
    if (f != NULL) {
        tune_format_line(f, &e);
        rewind(f);
        if (fgets(line, sizeof line, f) == NULL)
            line[0] = '\0';
        fclose(f);
    }
    check(strcmp(line, "D | cpu | 1x1 | 2^0 = batches 7 tile_rows 0\n") == 0
              && tune_parse_line(line, &got) == 1
              && memcmp(&got.knobs, &e.knobs, sizeof e.knobs) == 0,
          "knobs.cache_line_optional_field", "'%s'", line);

    /* --tune's candidates: 0 first, no repeats, within the bounds */
    const struct knob_tune_context ctx = {.compute_units = 132,
                                          .values = 1u << 24,
                                          .first_used = 1022};
    bool sane = true;
    for (size_t k = 0; k < KNOB_COUNT; ++k) {
        unsigned c[KNOB_MAX_CANDIDATES];
        const size_t n = knob_table[k].candidates(&ctx, c);
        sane = sane && n >= 1 && n <= KNOB_MAX_CANDIDATES && c[0] == 0;
        for (size_t i = 0; i < n; ++i) {
            sane = sane && c[i] <= knob_table[k].max;
            for (size_t j = 0; j < i; ++j)
                sane = sane && c[i] != c[j];
        }
    }
    check(sane, "knobs.tune_candidates", "a list starts without 0, repeats "
                                         "or passes its bound");
}

/* energy.c on fakes: build/libfake-nvml.so ($FAKE_NVML_LIB) for NVML,
 * folders of files for powercap. A device's PCI address is set by hand. */
static void energy_case(const char *name, const struct device_info *dev,
                        double want_joules, const char *want_reason)
{
    struct energy e;
    const struct device_info *devs[] = {dev};
    energy_open(&e, devs, 1);
    energy_start(&e);
    energy_stop(&e, 10);
    double joules = -1;
    const bool measured = energy_total(&e, &joules);
    if (want_reason == NULL)
        check(measured && joules > want_joules - 1e-9
                  && joules < want_joules + 1e-9,
              name, "measured %d, %.6f J, reason '%s'", measured, joules,
              e.dev[0].reason);
    else
        check(!measured && strstr(e.dev[0].reason, want_reason) != NULL,
              name, "measured %d, reason '%s'", measured, e.dev[0].reason);
    energy_close(&e);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_energy(void)
{
    uint64_t m[4] = {9, 9, 9, 9};
    const bool moves =
        energy_counter_delta(100, 350, 1000, &m[0]) == ENERGY_DELTA_OK
        && energy_counter_delta(990, 10, 1000, &m[1]) == ENERGY_DELTA_OK
        && energy_counter_delta(0, 0, 1000, &m[2]) == ENERGY_DELTA_OK
        && energy_counter_delta(600, 99, 1000, &m[3]) == ENERGY_DELTA_OK;
    check(moves && m[0] == 250 && m[1] == 20 && m[2] == 0 && m[3] == 499,
          "energy.counter_wraps", "wrong delta: %llu %llu %llu %llu",
          (unsigned long long)m[0], (unsigned long long)m[1],
          (unsigned long long)m[2], (unsigned long long)m[3]);
    /* a step back of less than half the range, or any step back of a
     * counter that never wraps, or a reading above the range: no figure */
    uint64_t z = 9;
    const bool refused =
        energy_counter_delta(500, 499, 1000, &z) == ENERGY_DELTA_BACK
        && energy_counter_delta(600, 101, 1000, &z) == ENERGY_DELTA_BACK
        && energy_counter_delta(5, 4, 0, &z) == ENERGY_DELTA_BACK
        && energy_counter_delta(1001, 1002, 1000, &z)
               == ENERGY_DELTA_ABOVE_RANGE
        && energy_counter_delta(10, 2000, 1000, &z)
               == ENERGY_DELTA_ABOVE_RANGE;
    check(refused && z == 0,
          "energy.counter_steps_back", "a step back or an out-of-range "
          "reading was taken for a movement (%llu)", (unsigned long long)z);

    const char *lib = getenv("FAKE_NVML_LIB");
    struct device_info gpu = {.name = "Fake GPU", .type = CL_DEVICE_TYPE_GPU,
                              .pci_known = true, .pci_domain = 0,
                              .pci_bus = 0x65, .pci_device = 0,
                              .pci_function = 0};
    setenv("HISTO_NVML_LIB", lib != NULL ? lib : "build/libfake-nvml.so", 1);
    setenv("HISTO_ENERGY_MIN_S", "0", 1);
    setenv("FAKE_NVML_BUS", "00000000:65:00.0", 1);
    setenv("FAKE_NVML_STEP_MJ", "500", 1);
    setenv("FAKE_NVML_MW", "61000", 1);
    energy_case("energy.nvml.matched_by_pci_address", &gpu, 0.5, NULL);
    struct energy e;
    const struct device_info *one[] = {&gpu};
    energy_open(&e, one, 1);
    check(e.dev[0].source == ENERGY_NVML && e.dev[0].idle_watts == 61.0
              && e.dev[0].resolution_j == 1e-3,
          "energy.nvml.idle_and_resolution", "source %d, idle %.3f",
          (int)e.dev[0].source, e.dev[0].idle_watts);
    energy_close(&e);
    gpu.pci_bus = 0x66;
    energy_case("energy.nvml.other_address", &gpu, 0, "NVML has no GPU at "
                "the device's PCI address 00000000:66:00.0");
    gpu.pci_bus = 0x65;
    setenv("FAKE_NVML_NO_ENERGY", "1", 1);
    energy_case("energy.nvml.no_counter", &gpu, 0, "has no energy counter");
    unsetenv("FAKE_NVML_NO_ENERGY");
    setenv("FAKE_NVML_INIT_FAILS", "1", 1);
    energy_case("energy.nvml.init_fails", &gpu, 0, "nvmlInit failed");
    unsetenv("FAKE_NVML_INIT_FAILS");
    setenv("FAKE_NVML_STEP_MJ", "50", 1);
    energy_case("energy.nvml.under_100_steps", &gpu, 0, "under 100 of its "
                "steps");
    setenv("HISTO_ENERGY_MIN_S", "1000", 1);
    setenv("FAKE_NVML_STEP_MJ", "500", 1);
    energy_case("energy.nvml.too_short", &gpu, 0, "shorter than the "
                "1000.0 s this counter needs");
    setenv("HISTO_ENERGY_MIN_S", "0", 1);
    setenv("HISTO_NVML_LIB", path_in_workdir("no-such-libnvml.so"), 1);
    energy_case("energy.nvml.library_missing", &gpu, 0, "cannot be loaded");

    /* powercap: two packages, and a sub-domain that must not count */
    struct device_info cpu = {.name = "Fake CPU", .type = CL_DEVICE_TYPE_CPU};
    const char *dir = path_in_workdir("powercap");
    char path[1200];
    const char *const made[] = {"", "/intel-rapl:0", "/intel-rapl:1",
                                "/intel-rapl:0:0"};
    for (size_t i = 0; i < sizeof made / sizeof made[0]; ++i) {
        snprintf(path, sizeof path, "%s%s", dir, made[i]);
        mkdir(path, 0755);
    }
    for (int k = 0; k < 3; ++k) {
        const char *sub = k == 0 ? "0" : k == 1 ? "1" : "0:0";
        snprintf(path, sizeof path, "%s/intel-rapl:%s/energy_uj", dir, sub);
        write_text(path, "1000\n");
        snprintf(path, sizeof path, "%s/intel-rapl:%s/max_energy_range_uj",
                 dir, sub);
        write_text(path, "262143328850\n");
    }
    setenv("HISTO_POWERCAP_DIR", dir, 1);
    energy_open(&e, (const struct device_info *[]){&cpu}, 1);
    energy_start(&e);
    snprintf(path, sizeof path, "%s/intel-rapl:0/energy_uj", dir);
    write_text(path, "251000\n");         /* 0.25 J */
    snprintf(path, sizeof path, "%s/intel-rapl:1/energy_uj", dir);
    write_text(path, "262143328000\n");   /* wrapped: 0.00085 + ... */
    snprintf(path, sizeof path, "%s/intel-rapl:0:0/energy_uj", dir);
    write_text(path, "999999000\n");      /* a sub-domain: not counted */
    energy_stop(&e, 10);
    double joules = -1;
    /* package 1 went from 1000 to 262143328000 uJ: forward, no wrap */
    check(e.dev[0].source == ENERGY_RAPL && e.dev[0].ndomains == 2
              && energy_total(&e, &joules)
              && joules > 0.25 + 262143.327 - 1e-6
              && joules < 0.25 + 262143.327 + 1e-6,
          "energy.rapl.packages_summed", "source %d, %zu domains, %.6f J, "
          "'%s'", (int)e.dev[0].source, e.dev[0].ndomains, joules,
          e.dev[0].reason);
    energy_start(&e);
    write_text(path, "1000\n");
    snprintf(path, sizeof path, "%s/intel-rapl:1/energy_uj", dir);
    write_text(path, "1000\n");           /* wraps past 262143328850 */
    snprintf(path, sizeof path, "%s/intel-rapl:0/energy_uj", dir);
    write_text(path, "251000\n");         /* unchanged */
    energy_stop(&e, 10);
    check(energy_total(&e, &joules) && joules > 0.00185 - 1e-9
              && joules < 0.00185 + 1e-9,
          "energy.rapl.wraps", "%.9f J, '%s'", joules, e.dev[0].reason);
    energy_close(&e);
    setenv("HISTO_POWERCAP_DIR", path_in_workdir("no-powercap"), 1);
    energy_case("energy.rapl.missing", &cpu, 0, "no RAPL package counter");
    setenv("HISTO_POWERCAP_DIR", dir, 1);
    snprintf(path, sizeof path, "%s/intel-rapl:1/energy_uj", dir);
    remove(path);
    mkdir(path, 0755);                      /* a folder: no counter */
    energy_case("energy.rapl.unreadable", &cpu, 0, "is not a regular file");
    rmdir(path);

    struct device_info other = {.name = "Fake accelerator",
                                .type = CL_DEVICE_TYPE_ACCELERATOR};
    energy_case("energy.none.no_pci_not_cpu", &other, 0, "no PCI address");
    unsetenv("HISTO_POWERCAP_DIR");
    unsetenv("HISTO_NVML_LIB");
    unsetenv("HISTO_ENERGY_MIN_S");
}

static void test_tune_cache_path(void)
{
    char saved[TUNE_PATH_MAX] = "";
    const char *s = getenv("HISTO_TUNE_FILE");
    const int had = s != NULL;
    if (had)
        snprintf(saved, sizeof saved, "%s", s);
    const char *x = getenv("XDG_CACHE_HOME");
    char saved_xdg[TUNE_PATH_MAX] = "";
    const int had_xdg = x != NULL;
    if (had_xdg)
        snprintf(saved_xdg, sizeof saved_xdg, "%s", x);
    const char *h = getenv("HOME");
    char saved_home[TUNE_PATH_MAX] = "";
    const int had_home = h != NULL;
    if (had_home)
        snprintf(saved_home, sizeof saved_home, "%s", h);

    char p[TUNE_PATH_MAX];
    setenv("HISTO_TUNE_FILE", "/t/f.conf", 1);
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    setenv("HOME", "/home/u", 1);
    int ok = tune_cache_path(p, sizeof p) == 0
          && strcmp(p, "/t/f.conf") == 0;
    unsetenv("HISTO_TUNE_FILE");
    ok = ok && tune_cache_path(p, sizeof p) == 0
          && strcmp(p, "/xdg/histo/tune.conf") == 0;
    setenv("XDG_CACHE_HOME", "relative", 1);
    ok = ok && tune_cache_path(p, sizeof p) == 0
          && strcmp(p, "/home/u/.cache/histo/tune.conf") == 0;
    unsetenv("XDG_CACHE_HOME");
    ok = ok && tune_cache_path(p, sizeof p) == 0
          && strcmp(p, "/home/u/.cache/histo/tune.conf") == 0;
    unsetenv("HOME");
    ok = ok && tune_cache_path(p, sizeof p) == -1;
    setenv("HISTO_TUNE_FILE", "/t/f.conf", 1);
    ok = ok && tune_cache_path(p, 5) == -1; /* does not fit */
    check(ok, "tune.cache_path", "last path '%s'", p);

    if (had)
        setenv("HISTO_TUNE_FILE", saved, 1);
    else
        unsetenv("HISTO_TUNE_FILE");
    if (had_xdg)
        setenv("XDG_CACHE_HOME", saved_xdg, 1);
    if (had_home)
        setenv("HOME", saved_home, 1);
}

/* Store, replace, keep other lines, look up; folders created. */
static void test_tune_cache_file(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tune-dir/sub/tune.conf", workdir);
    remove(path);
    struct tune_entry a = {.knobs = {{[KNOB_BATCHES] = 3, [KNOB_TILE_ROWS] = 7}}};
    strcpy(a.key.device, "Device A");
    strcpy(a.key.strategy, "eye");
    a.key.histo_width = 256;
    a.key.histo_height = 8192;
    a.key.values_log2 = 20;
    struct tune_entry b = a;
    strcpy(b.key.strategy, "cpu");
    b.knobs.v[KNOB_TILE_ROWS] = 0;
    struct tune_entry got;

    check(tune_cache_lookup(path, &a.key, &got) == 0,
          "tune.cache_missing_file", "found an entry in a missing file");
    int ok = tune_cache_store(path, &a) == 0
          && tune_cache_store(path, &b) == 0;
    FILE *f = fopen(path, "a");
    if (f != NULL) {
        fputs("not a tune line\n", f);
        fclose(f);
    }
    a.knobs.v[KNOB_BATCHES] = 64;
    a.knobs.v[KNOB_TILE_ROWS] = 0;
    ok = ok && tune_cache_store(path, &a) == 0;
    check(ok, "tune.cache_store", "a store failed");

    long len = 0;
    unsigned char *text = slurp(path, &len);
    int entries = 0, a_lines = 0, kept = 0;
    if (text != NULL) {
        text[len] = '\0'; /* slurp leaves room for it */
        char *line = strtok((char *)text, "\n");
        for (; line != NULL; line = strtok(NULL, "\n")) {
            struct tune_entry e;
            if (tune_parse_line(line, &e) == 1) {
                ++entries;
                a_lines += strcmp(e.key.strategy, "eye") == 0;
            }
            kept += strcmp(line, "not a tune line") == 0;
        }
        free(text);
    }
    check(entries == 2 && a_lines == 1 && kept == 1, "tune.cache_replaces",
          "%d entries, %d for the key, malformed line kept %d times",
          entries, a_lines, kept);

    int found = tune_cache_lookup(path, &a.key, &got);
    check(found == 1 && got.knobs.v[KNOB_BATCHES] == 64 && got.knobs.v[KNOB_TILE_ROWS] == 0,
          "tune.cache_lookup", "found %d, batches %u", found, got.knobs.v[KNOB_BATCHES]);
    struct tune_key other = a.key;
    other.values_log2 = 21;
    check(tune_cache_lookup(path, &other, &got) == 0,
          "tune.cache_other_bucket", "another value-count bucket matched");
    strcpy(other.device, "Device AB");
    other.values_log2 = 20;
    check(tune_cache_lookup(path, &other, &got) == 0,
          "tune.cache_other_device", "another device matched");
}

/* Writers in several processes at once: every line survives (the store
 * locks PATH.lock around its read-modify-write). */
static void test_tune_cache_concurrent(void)
{
    enum { WRITERS = 4, EACH = 25 };
    char path[1024];
    snprintf(path, sizeof path, "%s/tune-concurrent.conf", workdir);
    remove(path);
    pid_t pids[WRITERS];
    for (int w = 0; w < WRITERS; ++w) {
        if ((pids[w] = fork()) == 0) {
            int failed = 0;
            for (int k = 0; k < EACH; ++k) {
                struct tune_entry e = {
                    .knobs = {{[KNOB_BATCHES] = (unsigned)w + 1,
                               [KNOB_TILE_ROWS] = (unsigned)k}}};
                snprintf(e.key.device, sizeof e.key.device, "Writer %d", w);
                strcpy(e.key.strategy, "eye");
                e.key.histo_width = 256;
                e.key.histo_height = 8192;
                e.key.values_log2 = (unsigned)k;
                failed |= tune_cache_store(path, &e) != HISTO_OK;
            }
            _exit(failed);
        }
    }
    int children_ok = 1;
    for (int w = 0; w < WRITERS; ++w) {
        int st = 0;
        children_ok &= pids[w] > 0 && waitpid(pids[w], &st, 0) == pids[w]
                       && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    int found = 0;
    for (int w = 0; w < WRITERS; ++w)
        for (int k = 0; k < EACH; ++k) {
            struct tune_key key = {.histo_width = 256, .histo_height = 8192,
                                   .values_log2 = (unsigned)k};
            snprintf(key.device, sizeof key.device, "Writer %d", w);
            strcpy(key.strategy, "eye");
            struct tune_entry e;
            found += tune_cache_lookup(path, &key, &e)
                     && e.knobs.v[KNOB_BATCHES] == (unsigned)w + 1
                     && e.knobs.v[KNOB_TILE_ROWS] == (unsigned)k;
        }
    check(children_ok && found == WRITERS * EACH, "tune.cache_concurrent",
          "writers ok %d, %d of %d lines found", children_ok, found,
          WRITERS * EACH);
    remove(path);
}

/* SHA-256 against the published FIPS 180 examples, around the padding's
 * block boundary too, and the raw file's bytes. */
static void test_counts_digest(void)
{
    static const struct {
        const char *text;
        const char *hex;
    } known[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; ++i) {
        char got[COUNTS_DIGEST_CHARS], name[64];
        counts_digest((const uint8_t *)known[i].text, strlen(known[i].text),
                      got);
        snprintf(name, sizeof name, "counts.sha256_%zu_bytes",
                 strlen(known[i].text));
        check(strncmp(got, "sha256:", 7) == 0
                  && strcmp(got + 7, known[i].hex) == 0,
              name, "got %s", got);
    }
    /* one million 'a': many whole blocks */
    uint8_t *a = malloc(1000000);
    if (a != NULL) {
        char got[COUNTS_DIGEST_CHARS];
        memset(a, 'a', 1000000);
        counts_digest(a, 1000000, got);
        check(strcmp(got, "sha256:cdc76e5c9914fb9281a1c7e284d73e67f1809a48"
                          "a497200e046d39ccc7112cd0") == 0,
              "counts.sha256_million_a", "got %s", got);
        free(a);
    }
    const uint8_t counts[5] = {0, 1, 254, 255, 7};
    const char *path = path_in_workdir("counts.raw");
    long len = 0;
    unsigned char *back = NULL;
    if (counts_save(path, counts, sizeof counts) == HISTO_OK)
        back = slurp(path, &len);
    check(back != NULL && len == (long)sizeof counts
              && memcmp(back, counts, sizeof counts) == 0,
          "counts.raw_file", "%ld bytes back", len);
    free(back);
    remove(path);
}

static void test_reference(void)
{
    enum { N = 700 };
    uint32_t v[N];
    for (int i = 0; i < N; ++i)
        v[i] = i < 300 ? 5 : i < 555 ? 2 : i < 699 ? 7 : 0;
    uint8_t h[9];
    reference_histogram(v, N, 9, h);
    const uint8_t want[9] = {1, 0, 255, 0, 0, 255, 0, 144, 0};
    check(memcmp(h, want, sizeof want) == 0, "reference.saturates",
          "counts differ");
}

/* --device all's count from wall means given here, worked out by hand:
 * the least; a count within CHOOSE_MARGIN of it with fewer devices
 * instead; ties to the fewer. */
/* The cpu strategy's plan (cpu_plan.h): batches by the cost model, the
 * merge's groups, the commands an iteration. */
static void test_cpu_plan(void)
{
    const uint64_t mib2 = 2097152; /* 256x8192 bins */
    check(cpu_plan_merge_groups(1, 32768) == 0
              && cpu_plan_merge_groups(2, 32768) == 8
              && cpu_plan_merge_groups(16, 32768) == 64
              && cpu_plan_merge_groups(16, 3) == 3,
          "cpu_plan.merge_groups", "a count differs");
    check(cpu_plan_commands(1, false) == 1 && cpu_plan_commands(2, false) == 2
              && cpu_plan_commands(64, false) == 2 && cpu_plan_commands(1, true) == 1
              && cpu_plan_commands(64, true) == 1,
          "cpu_plan.commands", "a count differs");
    /* the test dataset: a batch a core on 2 to 8 cores, fewer beyond */
    const uint64_t test = 996 * 1040;
    check(cpu_plan_batches(test, mib2, 1, false) == 1
              && cpu_plan_batches(test, mib2, 2, false) == 2
              && cpu_plan_batches(test, mib2, 8, false) == 8
              && cpu_plan_batches(test, mib2, 16, false) == 8
              && cpu_plan_batches(test, mib2, 64, false) == 16,
          "cpu_plan.batches_test_input", "%llu at 64 units",
          (unsigned long long)cpu_plan_batches(test, mib2, 64, false));
    /* 16.7M values: every core */
    check(cpu_plan_batches(16777216, mib2, 16, false) == 16
              && cpu_plan_batches(16777216, mib2, 64, false) == 64,
          "cpu_plan.batches_large_input", "%llu at 64 units",
          (unsigned long long)cpu_plan_batches(16777216, mib2, 64, false));
    /* a small input: one batch, one command; and a small histogram with
     * many values: every core */
    check(cpu_plan_batches(1000, mib2, 64, false) == 1
              && cpu_plan_batches(100000, mib2, 2, false) == 1
              && cpu_plan_batches(1000000, 4096, 64, false) == 64,
          "cpu_plan.batches_small", "a count differs");
    /* never beyond the units, a power of two, never 0 */
    bool ok = cpu_plan_batches(test, mib2, 0, false) == 1;
    for (uint64_t u = 1; u <= 200 && ok; ++u) {
        const uint64_t b = cpu_plan_batches(test, mib2, u, false);
        ok = b >= 1 && b <= u && (b & (b - 1)) == 0;
    }
    check(ok, "cpu_plan.batches_bounds", "a count out of bounds");
    /* the threads the model would rather have on many cores (the hint
     * of histo.out): 16 of 64 for the test dataset, all 16 of 16 */
    double us64 = 0, us16 = 0;
    check(cpu_plan_units(test, mib2, 64, false, &us64) == 16
              && cpu_plan_units(test, mib2, 16, false, &us16) == 16
              && us64 == us16
              && us64 < cpu_plan_cost_us(test, mib2, 64, 16, false),
          "cpu_plan.units", "%.1f, %.1f us", us64, us16);
    /* the cost it minimises: a merge only with batches, the count shared */
    check(cpu_plan_cost_us(test, mib2, 2, 2, false) < cpu_plan_cost_us(test, mib2, 2, 1, false)
              && cpu_plan_cost_us(0, mib2, 64, 1, false)
                     < cpu_plan_cost_us(0, mib2, 64, 2, false),
          "cpu_plan.cost", "%.1f, %.1f us", cpu_plan_cost_us(test, mib2, 2, 2, false),
          cpu_plan_cost_us(test, mib2, 2, 1, false));
    /* one command: a command fewer where there are batches, so at least
     * as many batches as with two */
    bool more = true;
    for (uint64_t u = 1; u <= 64 && more; u *= 2)
        more = cpu_plan_batches(test, mib2, u, true)
               >= cpu_plan_batches(test, mib2, u, false);
    check(cpu_plan_cost_us(test, mib2, 2, 2, true)
                  < cpu_plan_cost_us(test, mib2, 2, 2, false)
              && cpu_plan_cost_us(test, mib2, 2, 1, true)
                     == cpu_plan_cost_us(test, mib2, 2, 1, false)
              && more,
          "cpu_plan.one_command", "%.1f against %.1f us",
          cpu_plan_cost_us(test, mib2, 2, 2, true),
          cpu_plan_cost_us(test, mib2, 2, 2, false));
}

static void test_choose_fastest(void)
{
    const double small[] = {67.3, 169.6, 250.0, 313.8};
    const double large[] = {1843.8, 978.3, 700.0, 566.3};
    const double middle[] = {516.7, 307.6, 330.0, 336.5};
    const double near[] = {100.0, 99.0, 98.5, 150.0};
    const double tie[] = {200.0, 100.0, 100.0};
    const double one[] = {42.0};
    check(choose_fastest(small, 4) == 1, "choose.small_one", "got %zu",
          choose_fastest(small, 4));
    check(choose_fastest(large, 4) == 4, "choose.large_all", "got %zu",
          choose_fastest(large, 4));
    check(choose_fastest(middle, 4) == 2, "choose.middle_two", "got %zu",
          choose_fastest(middle, 4));
    /* 98.5 least; 100.0 is 1.5% above it: one device */
    check(choose_fastest(near, 4) == 1, "choose.within_margin_fewer",
          "got %zu", choose_fastest(near, 4));
    check(choose_fastest(tie, 3) == 2, "choose.tie_fewer", "got %zu",
          choose_fastest(tie, 3));
    check(choose_fastest(one, 1) == 1, "choose.one", "got %zu",
          choose_fastest(one, 1));
}

/* The table: names found, unknown ones not, CPU devices get cpu. */
/* Progress lines at fixed clock readings, against text worked out by
 * hand: ETA = elapsed * (total - done) / done. */
static void test_progress_line(void)
{
    static const struct {
        const char *name, *what, *note;
        bool tty;
        unsigned long total, base, per_item, done;
        double elapsed;
        const char *want;
    } cases[] = {
        {"progress.line", "iteration", "", false, 30000, 0, 0, 1200, 12.0,
         "histo: iteration 1200 of 30000 (4%), 12.0 s elapsed, about 4 min "
         "48 s left"},
        {"progress.line_tty", "iteration", "", true, 30000, 0, 0, 1200, 12.0,
         "histo: iteration 1200/30000 (4%), 12.0 s elapsed, 4 min 48 s "
         "left"},
        /* 3725 s = 62.1 min; left 9 x 3725 = 33525 s = 558.75 min */
        {"progress.line_hours", "iteration", "", false, 10000000, 0, 0,
         1000000, 3725.0,
         "histo: iteration 1000000 of 10000000 (10%), 1 h 2 min elapsed, "
         "about 9 h 19 min left"},
        /* left 3 x 3.2 = 9.6 s: tenths under 10 s; 2 x 30 = 60 s */
        {"progress.line_short_left", "iteration", "", false, 400, 0, 0, 100,
         3.2, "histo: iteration 100 of 400 (25%), 3.2 s elapsed, about "
              "9.6 s left"},
        /* 29% (29 / 100 as a double times 100 is 28.999...) */
        {"progress.line_percent", "iteration", "", false, 100, 0, 0, 29, 2.9,
         "histo: iteration 29 of 100 (29%), 2.9 s elapsed, about 7.1 s "
         "left"},
        {"progress.line_minute_left", "iteration", "", false, 300, 0, 0, 100,
         30.0, "histo: iteration 100 of 300 (33%), 30.0 s elapsed, about "
               "1 min 0 s left"},
        {"progress.line_done", "iteration", " of the host-timed run", false,
         64, 0, 0, 64, 2.0,
         "histo: iteration 64 of 64 (100%) of the host-timed run, 2.0 s "
         "elapsed, about 0.0 s left"},
        /* 1250 of 3000 units in items of 500: the third under way */
        {"progress.line_items", "tune: candidate", "", false, 3000, 1000, 500,
         250, 10.0,
         "histo: tune: candidate 3 of 6 (41%), 10.0 s elapsed, about 14 s "
         "left"},
        {"progress.line_items_last", "tune: candidate", "", false, 3000, 2500,
         500, 500, 10.0,
         "histo: tune: candidate 6 of 6 (100%), 10.0 s elapsed, about 0.0 s "
         "left"},
        {"progress.line_total_unknown", "tune: candidate", "", false, 0, 0,
         500, 100, 2.0, "histo: tune: candidate 1, 2.0 s elapsed"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const struct progress p = {
            .tty = cases[i].tty,
            .start_s = 1000.0,
            .what = cases[i].what,
            .note = cases[i].note,
            .total = cases[i].total,
            .base = cases[i].base,
            .per_item = cases[i].per_item,
        };
        char line[PROGRESS_LINE_MAX];
        progress_line(&p, cases[i].done, 1000.0 + cases[i].elapsed, line,
                      sizeof line);
        check(strcmp(line, cases[i].want) == 0, cases[i].name,
              "'%s', expected '%s'", line, cases[i].want);
    }
}

/* The strategy --strategy auto runs on one device (strategy_choose). */
static const char *default_for(const struct device_info *dev,
                               uint32_t loop_limit, uint64_t nbins,
                               uint64_t nvalues)
{
    const struct strategy_share share = {
        .device = dev,
        .loop_limit = loop_limit,
        .nbins = nbins,
        .nvalues = nvalues,
    };
    struct strategy_choice c;
    if (strategy_choose(NULL, &share, 1, &c) != HISTO_OK || c.run == NULL)
        return "(none)";
    return c.run == c.by_default ? c.run->name : "(not the default)";
}

static void test_strategy_table(void)
{
    const struct strategy *eye = strategy_find("eye");
    const struct strategy *cpu = strategy_find("cpu");
    check(eye != NULL && strcmp(eye->name, "eye") == 0 && cpu != NULL
              && strcmp(cpu->name, "cpu") == 0 && strategy_find("") == NULL
              && strategy_find("ey") == NULL,
          "strategy.find", "lookup by name wrong");
    /* the names every script reads: the table's, each once */
    const char *names = strategy_names();
    check(strstr(names, "eye, ") == names && strstr(names, "fused") != NULL
              && strstr(names, "cpu") != NULL && strstr(names, "global") != NULL
              && strstr(names, "replicated") != NULL,
          "strategy.names", "'%s'", names);
    check(strategy_table_check(stderr) == 0, "strategy.table_rows",
          "a row of strategies.c's table is not whole (above)");
    /* a row missing a step is named with the step */
    static const char *const src[] = {"x.cl"}, *const kern[] = {"x"};
    struct strategy a = {.name = "a", .sources = src, .nsources = 1,
                         .kernels = kern, .nkernels = 1};
    struct strategy b = a;
    b.name = "b";
    static const struct {
        const char *help;
        unsigned rank_a, rank_b;
        const char *b_name, *want;
    } rows_cases[] = {
        {"x", 0, 0, "b", NULL},
        {"", 0, 0, "b", "row 0 (a) needs a help phrase of one line"},
        {"x", 1, 0, "b", "row 0 (a) needs a rank above 0 exactly when it has fits()"},
        {"x", 0, 0, "a", "row 0 (a) needs a name no other row has"},
        {"x", 0, 0, "auto", "row 1 (auto) needs a name, and not auto"},
    };
    int bad_case = -1, bad_wrong = 0;
    char bad_out[512] = "";
    for (size_t i = 0; i < sizeof rows_cases / sizeof rows_cases[0]; ++i) {
        b.name = rows_cases[i].b_name;
        const struct strategy_row rows[] = {
            {&a, rows_cases[i].help, rows_cases[i].rank_a, "p"},
            {&b, "y", rows_cases[i].rank_b, "p"},
        };
        char out[512] = "";
        FILE *m = fmemopen(out, sizeof out - 1, "w");
        const int wrong = m != NULL ? strategy_rows_check(rows, 2, m) : -1;
        if (m != NULL)
            fclose(m);
        const char *want = rows_cases[i].want;
        const bool named = want == NULL
            ? wrong == 0 && out[0] == '\0'
            : wrong == 1 && strstr(out, want) != NULL
                  && strstr(out, "Adding a strategy") != NULL;
        if (!named && bad_case < 0) {
            bad_case = (int)i;
            bad_wrong = wrong;
            memcpy(bad_out, out, sizeof out);
        }
    }
    check(bad_case < 0, "strategy.rows_check", "case %d: %d '%s'", bad_case,
          bad_wrong, bad_out);
    /* by local memory, whatever the type: a scratchpad gets eye */
    static const struct {
        cl_device_type type;
        cl_device_local_mem_type mem;
        const char *want;
    } cases[] = {
        {CL_DEVICE_TYPE_CPU, CL_GLOBAL, "cpu"},
        {CL_DEVICE_TYPE_GPU, CL_LOCAL, "eye"},
        {CL_DEVICE_TYPE_ACCELERATOR, CL_LOCAL, "eye"},
        {CL_DEVICE_TYPE_GPU, CL_GLOBAL, "cpu"},
        {CL_DEVICE_TYPE_CPU, CL_LOCAL, "eye"},
        {CL_DEVICE_TYPE_ACCELERATOR, CL_NONE, "cpu"},
        {CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_CPU
             | CL_DEVICE_TYPE_ACCELERATOR, CL_LOCAL, "eye"},
    };
    int bad = -1;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0] && bad < 0; ++i) {
        struct device_info dev;
        memset(&dev, 0, sizeof dev);
        dev.type = cases[i].type;
        dev.local_mem_type = cases[i].mem;
        if (strcmp(default_for(&dev, 0, 2097152, 16777216), cases[i].want)
            != 0)
            bad = (int)i;
    }
    check(bad < 0, "strategy.default_by_local_mem", "case %d", bad);
    /* scratchpad memory: one launch an iteration up to
     * HISTO_FUSED_MAX_VALUES values, two above; one only where the device
     * has a fence of device scope (each kind), never with mem_fence alone */
    {
        struct device_info dev;
        memset(&dev, 0, sizeof dev);
        dev.type = CL_DEVICE_TYPE_GPU;
        dev.local_mem_type = CL_LOCAL;
        dev.fence = DEVICE_FENCE_C30;
        const char *below = default_for(&dev, 0, 2097152,
                                        HISTO_FUSED_MAX_VALUES);
        const char *at = default_for(&dev, 0, 2097152,
                                     HISTO_FUSED_MAX_VALUES + 1);
        const char *limited = default_for(&dev, 65535, 2097152, 1000);
        check(strcmp(below, "fused") == 0 && strcmp(at, "eye") == 0
                  && strcmp(limited, "eye") == 0,
              "strategy.default_fused_by_size", "%s, %s, %s", below, at,
              limited);
        const enum device_fence kinds[] = {DEVICE_FENCE_C20, DEVICE_FENCE_PTX,
                                           DEVICE_FENCE_PTX_ACQ,
                                           DEVICE_FENCE_NONE};
        const char *const want[] = {"fused", "fused", "fused", "eye"};
        int wrong = -1;
        for (int k = 0; k < 4 && wrong < 0; ++k) {
            dev.fence = kinds[k];
            if (strcmp(default_for(&dev, 0, 2097152, 1000), want[k]) != 0)
                wrong = k;
        }
        check(wrong < 0, "strategy.default_fused_needs_device_fence",
              "fence kind %d", wrong);
    }
    /* a device that ends loops after 65535 iterations (Mesa's llvmpipe):
     * cpu while one work-item can clear the output, else global */
    {
        struct device_info dev;
        memset(&dev, 0, sizeof dev);
        dev.type = CL_DEVICE_TYPE_CPU;
        dev.local_mem_type = CL_GLOBAL;
        const char *small = default_for(&dev, 65535, 2097152, 16777216);
        const char *large = default_for(&dev, 65535, 16777216, 16777216);
        const char *gpu = (dev.local_mem_type = CL_LOCAL,
                           default_for(&dev, 65535, 16777216, 16777216));
        check(strcmp(small, "cpu") == 0 && strcmp(large, "global") == 0
                  && strcmp(gpu, "eye") == 0,
              "strategy.default_loop_limit", "%s, %s, %s", small, large, gpu);
    }
    const struct strategy *const all[] = {eye, cpu};
    const char *const shape[] = {"strategy.eye_shape", "strategy.cpu_shape"};
    for (size_t i = 0; i < 2; ++i)
        check(all[i]->nkernels >= 1 && all[i]->nkernels <= STRATEGY_MAX_KERNELS
                  && all[i]->nsources >= 1,
              shape[i], "%zu kernels, %zu sources", all[i]->nkernels,
              all[i]->nsources);
}

/* --- device discovery against a fake OpenCL (struct device_cl_api) --- */

/* A fake device answers every query device.c makes; `fail` names the one
 * query that fails (0: none), with CL_OUT_OF_RESOURCES. */
struct fake_device {
    const char *name;
    cl_device_type type;
    cl_device_local_mem_type mem;
    int other_byte_order;   /* the byte order the host does not have */
    int four_dims;          /* 4 work-item dimensions, the first 128 */
    cl_device_info fail;
    const char *version;    /* CL_DEVICE_VERSION; NULL: "OpenCL 1.2 fake" */
    const char *c_version;  /* NULL: "OpenCL C 1.2 fake" */
    int features;           /* OpenCL C 3.0 features listed: FAKE_* bits */
    const char *extensions; /* NULL: none */
    cl_uint cc_major;       /* NVIDIA's compute capability; 0: no answer */
};

/* The two OpenCL C 3.0 features a device-scope fence needs. */
#define FAKE_SCOPE_DEVICE 1
#define FAKE_ACQ_REL 2

static int host_little_endian(void)
{
    const unsigned char bytes[4] = {1, 0, 0, 0};
    uint32_t v;
    memcpy(&v, bytes, sizeof v);
    return v == 1;
}

struct fake_platform {
    const char *name;
    cl_platform_info fail;  /* 0: none                        */
    int fail_device_ids;    /* clGetDeviceIDs fails            */
    cl_uint ndevices;
    struct fake_device devices[3];
};

#define FAKE_MAX_PLATFORMS 4
static struct fake_platform fake_platforms[FAKE_MAX_PLATFORMS];
static cl_uint fake_nplatforms;

/* Copies an answer of len bytes as the OpenCL queries do: the size to
 * size_ret, the value when the buffer holds it, else CL_INVALID_VALUE. */
static cl_int fake_answer(const void *data, size_t len, size_t size,
                          void *value, size_t *size_ret)
{
    if (size_ret != NULL)
        *size_ret = len;
    if (value == NULL)
        return CL_SUCCESS;
    if (size < len)
        return CL_INVALID_VALUE;
    memcpy(value, data, len);
    return CL_SUCCESS;
}

static cl_int CL_API_CALL fake_platform_ids(cl_uint n, cl_platform_id *ids,
                                            cl_uint *count)
{
    if (count != NULL)
        *count = fake_nplatforms;
    for (cl_uint p = 0; ids != NULL && p < n && p < fake_nplatforms; ++p)
        ids[p] = (cl_platform_id)(void *)&fake_platforms[p];
    return fake_nplatforms == 0 ? -1001 /* CL_PLATFORM_NOT_FOUND_KHR */
                                : CL_SUCCESS;
}

static cl_int CL_API_CALL fake_platform_info(cl_platform_id id,
                                             cl_platform_info param,
                                             size_t size, void *value,
                                             size_t *size_ret)
{
    const struct fake_platform *p = (const struct fake_platform *)(void *)id;
    if (param == p->fail)
        return CL_OUT_OF_RESOURCES;
    const char *text = param == CL_PLATFORM_NAME ? p->name
                     : param == CL_PLATFORM_VENDOR ? "fake vendor"
                     : param == CL_PLATFORM_VERSION ? "OpenCL 1.2 fake"
                     : NULL;
    if (text == NULL)
        return CL_INVALID_VALUE;
    return fake_answer(text, strlen(text) + 1, size, value, size_ret);
}

static cl_int CL_API_CALL fake_device_ids(cl_platform_id id,
                                          cl_device_type type, cl_uint n,
                                          cl_device_id *ids, cl_uint *count)
{
    struct fake_platform *p = (struct fake_platform *)(void *)id;
    if (p->fail_device_ids)
        return CL_OUT_OF_HOST_MEMORY;
    if (type != CL_DEVICE_TYPE_ALL)
        return CL_INVALID_DEVICE_TYPE;
    if (p->ndevices == 0)
        return CL_DEVICE_NOT_FOUND;
    if (count != NULL)
        *count = p->ndevices;
    for (cl_uint d = 0; ids != NULL && d < n && d < p->ndevices; ++d)
        ids[d] = (cl_device_id)(void *)&p->devices[d];
    return CL_SUCCESS;
}

static cl_int CL_API_CALL fake_device_info(cl_device_id id,
                                           cl_device_info param, size_t size,
                                           void *value, size_t *size_ret)
{
    const struct fake_device *d = (const struct fake_device *)(void *)id;
    if (param == d->fail)
        return CL_OUT_OF_RESOURCES;
    const char *text = param == CL_DEVICE_NAME ? d->name
                     : param == CL_DEVICE_VENDOR ? "fake vendor"
                     : param == CL_DEVICE_VERSION
                         ? (d->version ? d->version : "OpenCL 1.2 fake")
                     : param == CL_DEVICE_OPENCL_C_VERSION
                         ? (d->c_version ? d->c_version : "OpenCL C 1.2 fake")
                     : param == CL_DEVICE_EXTENSIONS
                         ? (d->extensions ? d->extensions : "")
                     : param == CL_DRIVER_VERSION ? "1.0"
                     : NULL;
    if (text != NULL)
        return fake_answer(text, strlen(text) + 1, size, value, size_ret);
    const cl_uint units = 4;
    const cl_ulong local = 32768, global = 1u << 30, alloc = 1u << 28;
    const size_t group = 256, items[3] = {256, 256, 64};
    const size_t items4[4] = {128, 64, 32, 16};
    const cl_bool little = (cl_bool)(host_little_endian()
                                     != d->other_byte_order);
    switch (param) {
    case CL_DEVICE_TYPE:
        return fake_answer(&d->type, sizeof d->type, size, value, size_ret);
    case CL_DEVICE_MAX_COMPUTE_UNITS:
        return fake_answer(&units, sizeof units, size, value, size_ret);
    case CL_DEVICE_LOCAL_MEM_SIZE:
        return fake_answer(&local, sizeof local, size, value, size_ret);
    case CL_DEVICE_LOCAL_MEM_TYPE:
        return fake_answer(&d->mem, sizeof d->mem, size, value, size_ret);
    case CL_DEVICE_ENDIAN_LITTLE:
        return fake_answer(&little, sizeof little, size, value, size_ret);
    case CL_DEVICE_GLOBAL_MEM_SIZE:
        return fake_answer(&global, sizeof global, size, value, size_ret);
    case CL_DEVICE_MAX_MEM_ALLOC_SIZE:
        return fake_answer(&alloc, sizeof alloc, size, value, size_ret);
    case CL_DEVICE_MAX_WORK_GROUP_SIZE:
        return fake_answer(&group, sizeof group, size, value, size_ret);
    case CL_DEVICE_MAX_WORK_ITEM_SIZES:
        return d->four_dims
                   ? fake_answer(items4, sizeof items4, size, value, size_ret)
                   : fake_answer(items, sizeof items, size, value, size_ret);
    case 0x4000: /* CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV */
        if (d->cc_major == 0)
            return CL_INVALID_VALUE;
        return fake_answer(&d->cc_major, sizeof d->cc_major, size, value,
                           size_ret);
    case 0x106F: { /* CL_DEVICE_OPENCL_C_FEATURES: cl_name_version[] */
        struct {
            cl_uint version;
            char name[64];
        } f[3];
        memset(f, 0, sizeof f);
        size_t n = 0;
        snprintf(f[n++].name, sizeof f[0].name, "__opencl_c_int64");
        if (d->features & FAKE_SCOPE_DEVICE)
            snprintf(f[n++].name, sizeof f[0].name,
                     "__opencl_c_atomic_scope_device");
        if (d->features & FAKE_ACQ_REL)
            snprintf(f[n++].name, sizeof f[0].name,
                     "__opencl_c_atomic_order_acq_rel");
        return fake_answer(f, n * sizeof f[0], size, value, size_ret);
    }
    default:
        return CL_INVALID_VALUE;
    }
}

static const struct device_cl_api fake_cl = {
    .get_platform_ids = fake_platform_ids,
    .get_platform_info = fake_platform_info,
    .get_device_ids = fake_device_ids,
    .get_device_info = fake_device_info,
};

/* Two platforms of two GPUs and a CPU each, nothing failing, all in the
 * host's byte order. */
static void fake_reset(void)
{
    memset(fake_platforms, 0, sizeof fake_platforms);
    static const char *const names[FAKE_MAX_PLATFORMS] = {
        "Fake Zero", "Fake One", "Fake Two", "Fake Three"};
    for (cl_uint p = 0; p < FAKE_MAX_PLATFORMS; ++p) {
        fake_platforms[p].name = names[p];
        fake_platforms[p].ndevices = 3;
        fake_platforms[p].devices[0] = (struct fake_device){
            .name = "gpu zero", .type = CL_DEVICE_TYPE_GPU, .mem = CL_LOCAL};
        fake_platforms[p].devices[1] = (struct fake_device){
            .name = "gpu one", .type = CL_DEVICE_TYPE_GPU, .mem = CL_LOCAL};
        fake_platforms[p].devices[2] = (struct fake_device){
            .name = "cpu two", .type = CL_DEVICE_TYPE_CPU, .mem = CL_GLOBAL};
    }
    fake_nplatforms = 2;
}

/* What device_enumerate_with (or device_select) wrote on stderr: fd 2 is
 * pointed at a file for the call. */
static int saved_stderr = -1;

static void stderr_to(const char *path)
{
    fflush(stderr);
    saved_stderr = dup(2);
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
        dup2(fd, 2);
        close(fd);
    }
}

static void stderr_back(void)
{
    fflush(stderr);
    if (saved_stderr >= 0) {
        dup2(saved_stderr, 2);
        close(saved_stderr);
        saved_stderr = -1;
    }
}

/* The text of a captured stderr (cut to size), its line count in *lines;
 * the file is removed. */
static void captured(const char *path, char *text, size_t size, int *lines)
{
    long len = 0;
    unsigned char *got = slurp(path, &len);
    text[0] = '\0';
    *lines = 0;
    if (got != NULL) {
        snprintf(text, size, "%.*s", (int)len, (const char *)got);
        for (long i = 0; i < len; ++i)
            *lines += got[i] == '\n';
        free(got);
    }
    remove(path);
}

/* Enumerates the fake platforms; their stderr lands in `text` (with its
 * line count in *lines). */
static int fake_enumerate(struct device_list *list, char *text, size_t size,
                          int *lines)
{
    const char *path = path_in_workdir("device-stderr.txt");
    stderr_to(path);
    const int st = device_enumerate_with(&fake_cl, list);
    stderr_back();
    captured(path, text, size, lines);
    return st;
}

/* device_select with its stderr in err[256]; "p.d" of the choice, or
 * "-". */
static int fake_select_says(struct device_list *list, const char *platform,
                            const char *device, char choice[16],
                            char err[256])
{
    const char *path = path_in_workdir("device-stderr.txt");
    int lines;
    stderr_to(path);
    const int st = device_select(list, platform, device);
    stderr_back();
    captured(path, err, 256, &lines);
    if (st == 0)
        snprintf(choice, 16, "%u.%u", list->platform, list->device);
    else
        snprintf(choice, 16, "-");
    return st;
}

static int fake_select(struct device_list *list, const char *platform,
                       const char *device, char choice[16])
{
    char err[256];
    return fake_select_says(list, platform, device, choice, err);
}

/* --list's text of the fake platforms. */
static void fake_listing(const struct device_list *list, char *text,
                         size_t size)
{
    const char *path = path_in_workdir("device-list.txt");
    FILE *f = fopen(path, "w");
    text[0] = '\0';
    if (f == NULL)
        return;
    device_print(f, list, false);
    fclose(f);
    long len = 0;
    unsigned char *got = slurp(path, &len);
    if (got != NULL)
        snprintf(text, size, "%.*s", (int)len, (const char *)got);
    free(got);
    remove(path);
}

/* Nothing failing: every platform and device, no warning. */
/* strategy_choose over several shares, its status, choice and message
 * (stderr captured; "" where it says nothing). */
static int choose_says(const char *requested,
                       const struct strategy_share *shares, size_t n,
                       struct strategy_choice *c, char err[256])
{
    const char *path = path_in_workdir("strategy-stderr.txt");
    int lines;
    stderr_to(path);
    const int st = strategy_choose(requested, shares, n, c);
    stderr_back();
    captured(path, err, 256, &lines);
    return st;
}

static const char *name_of(const struct strategy *st)
{
    return st != NULL ? st->name : "NULL";
}

/* Which strategies may be chosen by default and where: each fits, the
 * loop limit's bound on cpu, and several devices, which must agree. */
static void test_strategy_choose(void)
{
    struct device_info gpu, cpu;
    memset(&gpu, 0, sizeof gpu);
    memset(&cpu, 0, sizeof cpu);
    gpu.name = "gpu";
    gpu.local_mem_type = CL_LOCAL;
    gpu.fence = DEVICE_FENCE_PTX_ACQ;
    cpu.name = "cpu";
    cpu.local_mem_type = CL_GLOBAL;
    /* replicated only when named; global fits every device and input, so
     * every share has a default */
    const cl_device_local_mem_type mems[] = {CL_LOCAL, CL_GLOBAL, CL_NONE};
    const uint32_t limits[] = {0, 65535, 1};
    const struct strategy *global = strategy_find("global");
    int misfit = -1;
    for (int m = 0; m < 3; ++m)
        for (int l = 0; l < 3; ++l) {
            struct device_info dev = cpu;
            dev.local_mem_type = mems[m];
            const struct strategy_share sh = {&dev, limits[l], 4294967295u,
                                              4294967295u};
            if (!global->fits(&sh))
                misfit = m * 3 + l;
        }
    check(strategy_find("replicated")->fits == NULL
              && strategy_find("eye")->fits != NULL
              && strategy_find("fused")->fits != NULL
              && strategy_find("cpu")->fits != NULL && misfit < 0,
          "strategy.fits", "global does not fit case %d", misfit);
    /* the cpu strategy's output is cleared by one work-item: 64 bins an
     * iteration plus one a leftover bin, and 2 to enter the loops, then
     * 3 to count a value, in at most 65535 - 65535 / 16 = 61440 (cpu.c):
     * 64 * 61435 bins at most; CL_NONE as CL_GLOBAL */
    const char *fit = default_for(&cpu, 65535, 64 * 61435, 1000);
    const char *over = default_for(&cpu, 65535, 64 * 61436, 1000);
    const char *unlimited = default_for(&cpu, 0, 4294967295u, 1000);
    cpu.local_mem_type = CL_NONE;
    const char *none = default_for(&cpu, 0, 2097152, 1000);
    cpu.local_mem_type = CL_GLOBAL;
    check(strcmp(fit, "cpu") == 0 && strcmp(over, "global") == 0
              && strcmp(unlimited, "cpu") == 0 && strcmp(none, "cpu") == 0,
          "strategy.choose_cpu_loop_bound", "%s, %s, %s, %s", fit, over,
          unlimited, none);

    struct strategy_choice c;
    char err[256];
    const struct strategy_share two_gpus[] = {
        {&gpu, 0, 2097152, 1000}, {&gpu, 0, 2097152, 1000}};
    int st = choose_says(NULL, two_gpus, 2, &c, err);
    check(st == HISTO_OK && strcmp(name_of(c.run), "fused") == 0
              && c.by_default == c.run && err[0] == '\0',
          "strategy.choose_devices_agree", "status %d, %s, %s, '%s'", st,
          name_of(c.run), name_of(c.by_default), err);
    /* a loop limit on one of two GPUs: fused there, eye here */
    const struct strategy_share limited[] = {
        {&gpu, 0, 2097152, 1000}, {&gpu, 65535, 2097152, 1000}};
    st = choose_says(NULL, limited, 2, &c, err);
    const char *want = "histo: 'gpu' and 'gpu' default to different "
                       "strategies (fused and eye): name one with "
                       "--strategy\n";
    check(st == HISTO_EXIT_USAGE && c.run == NULL && c.by_default == NULL
              && strcmp(err, want) == 0,
          "strategy.choose_devices_differ", "status %d, %s, '%s'", st,
          name_of(c.run), err);
    const struct strategy_share mixed[] = {
        {&gpu, 0, 2097152, 1000}, {&cpu, 0, 2097152, 1000}};
    st = choose_says("global", mixed, 2, &c, err);
    check(st == HISTO_OK && strcmp(name_of(c.run), "global") == 0
              && c.by_default == NULL && err[0] == '\0',
          "strategy.choose_named_over_differing", "status %d, %s, %s, '%s'",
          st, name_of(c.run), name_of(c.by_default), err);
    st = choose_says("replicated", two_gpus, 1, &c, err);
    check(st == HISTO_OK && strcmp(name_of(c.run), "replicated") == 0
              && strcmp(name_of(c.by_default), "fused") == 0,
          "strategy.choose_named_keeps_default", "status %d, %s, %s", st,
          name_of(c.run), name_of(c.by_default));
    st = choose_says("gpu", two_gpus, 1, &c, err);
    check(st == HISTO_EXIT_USAGE && c.run == NULL
              && strstr(err, "unknown strategy 'gpu'") != NULL,
          "strategy.choose_unknown", "status %d, '%s'", st, err);
}

static void test_device_enumerate(void)
{
    struct device_list list;
    char err[1024], choice[16];
    int lines;
    fake_reset();
    int st = fake_enumerate(&list, err, sizeof err, &lines);
    check(st == 0 && lines == 0 && list.nplatforms == 2
              && list.platforms[1].ndevices == 3
              && strcmp(list.platforms[1].name, "Fake One") == 0
              && strcmp(list.platforms[1].devices[2].name, "cpu two") == 0,
          "device.enumerate", "status %d, %d stderr lines: %s", st, lines,
          err);
    st = fake_select(&list, "1", "2", choice);
    check(st == 0 && strcmp(choice, "1.2") == 0, "device.select_by_index",
          "status %d, chose %s", st, choice);
    device_list_free(&list);

    fake_nplatforms = 0;
    st = fake_enumerate(&list, err, sizeof err, &lines);
    check(st == HISTO_EXIT_DEVICE && strstr(err, "no OpenCL platform found")
              != NULL, "device.no_platform", "status %d: %s", st, err);
    device_list_free(&list);
}

/* The fence each device offers the fused strategy (device.h), from what
 * it says: the standard fence where OpenCL 3.0 lists both features or
 * OpenCL C is 2.0 or later, NVIDIA's assembly where its compiler options
 * are offered, else mem_fence alone; a failed query skips nothing. */
static void test_device_fence(void)
{
    static const struct {
        const char *version, *c_version;
        int features;
        const char *extensions;
        cl_device_info fail;
        cl_uint cc_major;
        enum device_fence want;
    } cases[] = {
        {"OpenCL 3.0 x", NULL, FAKE_SCOPE_DEVICE | FAKE_ACQ_REL, NULL, 0, 0,
         DEVICE_FENCE_C30},
        {"OpenCL 3.0 x", NULL, FAKE_SCOPE_DEVICE, NULL, 0, 0,
         DEVICE_FENCE_NONE},
        {"OpenCL 1.2 x", NULL, FAKE_SCOPE_DEVICE | FAKE_ACQ_REL, NULL, 0, 0,
         DEVICE_FENCE_NONE},
        {"OpenCL 2.0 x", "OpenCL C 2.0 x", 0, NULL, 0, 0, DEVICE_FENCE_C20},
        /* NVIDIA without an answer for its compute capability: membar.gl */
        {"OpenCL 3.0 CUDA", NULL, 0,
         "cl_khr_fp64 cl_nv_compiler_options cl_nv_device_attribute_query",
         0, 0, DEVICE_FENCE_PTX},
        {"OpenCL 3.0 CUDA", NULL, 0,
         "cl_nv_compiler_options cl_nv_device_attribute_query", 0, 9,
         DEVICE_FENCE_PTX_ACQ},
        {"OpenCL 3.0 CUDA", NULL, 0,
         "cl_nv_compiler_options cl_nv_device_attribute_query", 0, 6,
         DEVICE_FENCE_PTX},
        {"OpenCL 3.0 x", NULL, 0, "cl_nv_compiler_options_x", 0, 0,
         DEVICE_FENCE_NONE},
        {"OpenCL 3.0 x", "OpenCL C 2.0 x", FAKE_SCOPE_DEVICE | FAKE_ACQ_REL,
         NULL, 0x106F, 0, DEVICE_FENCE_C20},
        {"OpenCL 3.0 x", NULL, 0,
         "cl_nv_compiler_options cl_nv_device_attribute_query",
         CL_DEVICE_OPENCL_C_VERSION, 7, DEVICE_FENCE_PTX_ACQ},
    };
    int bad = -1;
    char err[1024] = "";
    for (size_t i = 0; i < sizeof cases / sizeof cases[0] && bad < 0; ++i) {
        struct device_list list;
        int lines;
        fake_reset();
        struct fake_device *d = &fake_platforms[0].devices[0];
        d->version = cases[i].version;
        d->c_version = cases[i].c_version;
        d->features = cases[i].features;
        d->extensions = cases[i].extensions;
        d->fail = cases[i].fail;
        d->cc_major = cases[i].cc_major;
        const int st = fake_enumerate(&list, err, sizeof err, &lines);
        if (st != 0 || lines != 0
            || list.platforms[0].devices[0].skipped[0] != '\0'
            || list.platforms[0].devices[0].fence != cases[i].want)
            bad = (int)i;
        device_list_free(&list);
    }
    check(bad < 0, "device.fence_kind", "case %d: %s", bad, err);
}

/* One platform's query fails: that platform alone is skipped, with one
 * warning; it keeps its index, so the others keep theirs. */
static void test_device_skip_platform(void)
{
    struct device_list list;
    char err[1024], text[2048], choice[16];
    int lines;
    fake_reset();
    fake_nplatforms = 3;
    fake_platforms[1].fail = CL_PLATFORM_NAME;
    int st = fake_enumerate(&list, err, sizeof err, &lines);
    check(st == 0 && lines == 1
              && strcmp(err, "histo: warning: platform 1 skipped: "
                             "clGetPlatformInfo(CL_PLATFORM_NAME) failed: "
                             "CL_OUT_OF_RESOURCES (-5)\n") == 0,
          "device.skip_platform_warns", "status %d, %d lines: %s", st, lines,
          err);
    fake_listing(&list, text, sizeof text);
    check(strstr(text, "platform 0: Fake Zero") != NULL
              && strstr(text, "platform 1: skipped: clGetPlatformInfo("
                              "CL_PLATFORM_NAME) failed") != NULL
              && strstr(text, "platform 2: Fake Two") != NULL,
          "device.skip_platform_listed", "--list says: %s", text);
    int ok = fake_select(&list, "2", "cpu", choice) == 0
          && strcmp(choice, "2.2") == 0;
    ok = ok && fake_select(&list, "Two", NULL, choice) == 0
          && strcmp(choice, "2.0") == 0;
    ok = ok && fake_select(&list, "1", NULL, choice) == HISTO_EXIT_DEVICE;
    ok = ok && fake_select(&list, NULL, NULL, choice) == 0
          && strcmp(choice, "0.0") == 0;
    check(ok, "device.skip_platform_select", "last choice %s", choice);
    device_list_free(&list);

    fake_reset();
    fake_platforms[0].fail_device_ids = 1;
    st = fake_enumerate(&list, err, sizeof err, &lines);
    ok = st == 0 && lines == 1
      && strstr(err, "platform 0 skipped: clGetDeviceIDs(") != NULL
      && fake_select(&list, NULL, NULL, choice) == 0
      && strcmp(choice, "1.0") == 0;
    check(ok, "device.skip_platform_device_ids", "status %d, %d lines: %s",
          st, lines, err);
    device_list_free(&list);
}

/* One device's query fails: that device alone is skipped, with one
 * warning; its neighbours keep their indexes and stay selectable. */
static void test_device_skip_device(void)
{
    struct device_list list;
    char err[1024], text[2048], choice[16];
    int lines;
    fake_reset();
    fake_platforms[0].devices[0].fail = CL_DEVICE_MAX_COMPUTE_UNITS;
    int st = fake_enumerate(&list, err, sizeof err, &lines);
    check(st == 0 && lines == 1
              && strcmp(err, "histo: warning: platform 0 device 0 skipped: "
                             "clGetDeviceInfo(CL_DEVICE_MAX_COMPUTE_UNITS) "
                             "failed: CL_OUT_OF_RESOURCES (-5)\n") == 0,
          "device.skip_device_warns", "status %d, %d lines: %s", st, lines,
          err);
    fake_listing(&list, text, sizeof text);
    check(strstr(text, "device 0: skipped: clGetDeviceInfo(") != NULL
              && strstr(text, "device 1: gpu one") != NULL
              && strstr(text, "device 2: cpu two") != NULL,
          "device.skip_device_listed", "--list says: %s", text);
    int ok = fake_select(&list, "0", NULL, choice) == 0
          && strcmp(choice, "0.1") == 0;
    ok = ok && fake_select(&list, "0", "0", choice) == HISTO_EXIT_DEVICE;
    ok = ok && fake_select(&list, "0", "2", choice) == 0
          && strcmp(choice, "0.2") == 0;
    ok = ok && fake_select(&list, "0", "GPU", choice) == 0
          && strcmp(choice, "0.1") == 0;
    ok = ok && fake_select(&list, "0", "gpu zero", choice)
                   == HISTO_EXIT_DEVICE;
    check(ok, "device.skip_device_select", "last choice %s", choice);
    device_list_free(&list);

    /* nothing usable left: a clear error */
    fake_reset();
    fake_nplatforms = 1;
    fake_platforms[0].ndevices = 1;
    fake_platforms[0].devices[0].fail = CL_DEVICE_NAME;
    st = fake_enumerate(&list, err, sizeof err, &lines);
    check(st == HISTO_EXIT_DEVICE && lines == 2
              && strstr(err, "no usable OpenCL device") != NULL,
          "device.none_usable", "status %d, %d lines: %s", st, lines, err);
    device_list_free(&list);
}

/* A 1000-character name is read whole, and matched past any fixed cut. */
static void test_device_long_name(void)
{
    struct device_list list;
    char err[1024], choice[16];
    int lines;
    char name[1001];
    memset(name, 'n', 1000);
    memcpy(name + 990, "LONG-TAIL", 9);
    name[1000] = '\0';
    fake_reset();
    fake_platforms[1].devices[1].name = name;
    const int st = fake_enumerate(&list, err, sizeof err, &lines);
    const char *got = st == 0 ? list.platforms[1].devices[1].name : NULL;
    check(st == 0 && lines == 0 && got != NULL && strcmp(got, name) == 0,
          "device.long_name", "status %d, name of %zu characters: %s", st,
          got != NULL ? strlen(got) : 0, err);
    check(st == 0 && fake_select(&list, NULL, "long-tail", choice) == 0
              && strcmp(choice, "1.1") == 0,
          "device.long_name_selects", "chose %s", choice);
    device_list_free(&list);
}

/* Each device's local memory type is read; a device of the other byte
 * order is listed but refused when chosen (exit status 4, a message). */
static void test_device_memory_and_byte_order(void)
{
    struct device_list list;
    char err[1024], choice[16], says[256];
    int lines;
    fake_reset();
    fake_platforms[1].devices[0].other_byte_order = 1;
    int st = fake_enumerate(&list, err, sizeof err, &lines);
    check(st == 0 && lines == 0
              && list.platforms[0].devices[0].local_mem_type == CL_LOCAL
              && list.platforms[0].devices[2].local_mem_type == CL_GLOBAL
              && strcmp(device_local_mem_name(CL_LOCAL), "local") == 0
              && strcmp(device_local_mem_name(CL_GLOBAL), "global") == 0
              && strcmp(device_local_mem_name(CL_NONE), "none") == 0,
          "device.local_mem_type", "status %d: %s", st, err);
    st = fake_select_says(&list, "1", "0", choice, says);
    const int refused = st == HISTO_EXIT_DEVICE
                     && strstr(says, "device 'gpu zero' is ") != NULL
                     && strstr(says, "-endian and this host ") != NULL;
    check(refused && fake_select(&list, "1", "1", choice) == 0
              && strcmp(choice, "1.1") == 0,
          "device.other_byte_order_refused", "status %d: %s", st, says);
    device_list_free(&list);
}

/* CL_DEVICE_MAX_WORK_ITEM_SIZES is read whole, whatever the number of
 * dimensions, and its first entry kept. */
static void test_device_work_items(void)
{
    struct device_list list;
    char err[1024];
    int lines;
    fake_reset();
    fake_platforms[0].devices[1].four_dims = 1;
    int st = fake_enumerate(&list, err, sizeof err, &lines);
    check(st == 0 && lines == 0
              && list.platforms[0].devices[0].max_work_items == 256
              && list.platforms[0].devices[1].max_work_items == 128
              && list.platforms[0].devices[1].max_work_group == 256,
          "device.max_work_items", "status %d: %s", st, err);
    device_list_free(&list);
}

/* A rusticl platform with no device gets the hint that RUSTICL_ENABLE
 * would list one, where that variable is unset; set, or another empty
 * platform, no hint. */
static void test_device_rusticl_hint(void)
{
    struct device_list list;
    char err[1024], text[2048], text_set[2048];
    int lines;
    fake_reset();
    fake_nplatforms = 2;
    fake_platforms[0].name = "rusticl";
    fake_platforms[0].ndevices = 0;
    fake_platforms[1].name = "Empty one";
    fake_platforms[1].ndevices = 0;
    const char *saved = getenv("RUSTICL_ENABLE");
    char *keep = saved != NULL ? strdup(saved) : NULL;
    unsetenv("RUSTICL_ENABLE");
    int st = fake_enumerate(&list, err, sizeof err, &lines);
    fake_listing(&list, text, sizeof text);
    setenv("RUSTICL_ENABLE", "llvmpipe", 1);
    fake_listing(&list, text_set, sizeof text_set);
    if (keep != NULL)
        setenv("RUSTICL_ENABLE", keep, 1);
    else
        unsetenv("RUSTICL_ENABLE");
    free(keep);
    const char *hint = "  (no device: rusticl lists none unless "
                       "RUSTICL_ENABLE names a driver; "
                       "RUSTICL_ENABLE=llvmpipe gives its CPU device)\n";
    const char *at = strstr(text, hint);
    /* no platform has a device: enumeration says so (status 4), and the
     * listing of what it found is still there */
    check(st == HISTO_EXIT_DEVICE && at != NULL
              && strstr(at + strlen(hint), "RUSTICL_ENABLE") == NULL
              && strstr(text_set, "RUSTICL_ENABLE") == NULL,
          "device.rusticl_hint", "status %d; unset: %s; set: %s", st, text,
          text_set);
    device_list_free(&list);
}

/* quirks.c's table: each implementation gets its rows and no other's;
 * PoCL's thread variable by its driver's major version, both names
 * where that does not parse. */
static void test_quirks_match(void)
{
    const char *pocl = "Portable Computing Language";
    static const struct {
        const char *platform, *driver;
        unsigned flags;
        const char *units;
    } cases[] = {
        {"Portable Computing Language", "3.1+debian", QUIRK_DEFAULT_PLATFORM,
         "POCL_MAX_PTHREAD_COUNT"},
        {"Portable Computing Language", "5.0", QUIRK_DEFAULT_PLATFORM,
         "POCL_CPU_MAX_CU_COUNT"},
        {"portable computing language", "4", QUIRK_DEFAULT_PLATFORM,
         "POCL_CPU_MAX_CU_COUNT"},
        {"Portable Computing Language", "git", QUIRK_DEFAULT_PLATFORM,
         "POCL_CPU_MAX_CU_COUNT (PoCL 4.0 on; POCL_MAX_PTHREAD_COUNT before)"},
        {"Portable Computing Language", NULL, QUIRK_DEFAULT_PLATFORM, NULL},
        {"Oclgrind", "21.10", QUIRK_NO_RESTRICT, NULL},
        {"rusticl", NULL, QUIRK_NEEDS_RUSTICL_ENABLE, NULL},
        {"NVIDIA CUDA", "580.95.05", 0, NULL},
        {"Intel(R) OpenCL", "2024.18.6.0.02_160000", 0, NULL},
        {NULL, "3.1", 0, NULL},
    };
    int bad = -1;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0] && bad < 0; ++i) {
        const struct quirks q = quirks_match(cases[i].platform, cases[i].driver);
        const bool units = cases[i].units == NULL
            ? q.cpu_units == NULL
            : q.cpu_units != NULL && strcmp(q.cpu_units, cases[i].units) == 0;
        if (q.flags != cases[i].flags || !units)
            bad = (int)i;
    }
    check(bad < 0 && quirks_contains_nocase(pocl, "computing")
              && !quirks_contains_nocase(pocl, "cuda"),
          "quirks.match", "case %d", bad);
}

/* A device of several types is labelled with all of them, in --list and
 * in its type_name (histo.out's selected.type), and --device selects it
 * by each; CL_DEVICE_TYPE_DEFAULT is no type of its own. */
static void test_device_types(void)
{
    struct device_list list;
    char err[1024], text[2048], choice[16];
    int lines;
    fake_reset();
    fake_nplatforms = 1;
    fake_platforms[0].ndevices = 3;
    fake_platforms[0].devices[0] = (struct fake_device){
        .name = "plain gpu", .mem = CL_LOCAL,
        .type = CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_DEFAULT};
    fake_platforms[0].devices[1] = (struct fake_device){
        .name = "oclgrind-like", .mem = CL_LOCAL,
        .type = CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_GPU
              | CL_DEVICE_TYPE_CPU};
    fake_platforms[0].devices[2] = (struct fake_device){
        .name = "custom", .type = CL_DEVICE_TYPE_CUSTOM, .mem = CL_NONE};
    int st = fake_enumerate(&list, err, sizeof err, &lines);
    const struct device_info *d = st == 0 ? list.platforms[0].devices : NULL;
    check(d != NULL && strcmp(d[0].type_name, "GPU") == 0
              && strcmp(d[1].type_name, "GPU|CPU|ACCELERATOR") == 0
              && strcmp(d[2].type_name, "CUSTOM") == 0,
          "device.type_names", "status %d: '%s', '%s', '%s'", st,
          d ? d[0].type_name : "", d ? d[1].type_name : "",
          d ? d[2].type_name : "");
    fake_listing(&list, text, sizeof text);
    check(strstr(text, "device 1: oclgrind-like [GPU|CPU|ACCELERATOR] ")
              != NULL, "device.type_names_listed", "--list says: %s", text);
    int ok = fake_select(&list, NULL, "CPU", choice) == 0
          && strcmp(choice, "0.1") == 0;
    ok = ok && fake_select(&list, NULL, "accelerator", choice) == 0
          && strcmp(choice, "0.1") == 0;
    ok = ok && fake_select(&list, NULL, "GPU", choice) == 0
          && strcmp(choice, "0.0") == 0;
    ok = ok && fake_select(&list, NULL, "custom", choice) == 0
          && strcmp(choice, "0.2") == 0;
    check(ok, "device.type_words_select", "last choice %s", choice);
    device_list_free(&list);
}

/* Without --platform PoCL is tried first, whatever --device asks; a
 * platform listed before it gets the choice only when PoCL has no
 * matching device. */
static void test_device_prefers_pocl(void)
{
    struct device_list list;
    char err[1024], choice[16];
    int lines;
    fake_reset();
    fake_nplatforms = 3;
    fake_platforms[0].name = "Other OpenCL";
    fake_platforms[1].name = "Portable Computing Language";
    fake_platforms[1].ndevices = 1;
    fake_platforms[1].devices[0] = (struct fake_device){
        .name = "pthread-cpu", .type = CL_DEVICE_TYPE_CPU, .mem = CL_GLOBAL};
    fake_platforms[2].name = "Third OpenCL";
    const int st = fake_enumerate(&list, err, sizeof err, &lines);
    check(st == 0 && fake_select(&list, NULL, "CPU", choice) == 0
              && strcmp(choice, "1.0") == 0, "device.cpu_prefers_pocl",
          "status %d, --device CPU chose %s", st, choice);
    int ok = st == 0 && fake_select(&list, NULL, NULL, choice) == 0
          && strcmp(choice, "1.0") == 0;
    ok = ok && fake_select(&list, NULL, "GPU", choice) == 0
          && strcmp(choice, "0.0") == 0;
    ok = ok && fake_select(&list, NULL, "1", choice) == 0
          && strcmp(choice, "0.1") == 0;
    ok = ok && fake_select(&list, "0", "CPU", choice) == 0
          && strcmp(choice, "0.2") == 0;
    ok = ok && fake_select(&list, "Third", "CPU", choice) == 0
          && strcmp(choice, "2.2") == 0;
    check(ok, "device.pocl_else_first_match", "last choice %s", choice);
    device_list_free(&list);
}

/* The eye strategy's plan (eye_plan.h), no device needed: a device and
 * an input made by hand, every expectation worked out by hand below, or
 * by counting (the cells' cover). */
struct eye_case {
    struct device_info dev;
    struct histo_input in;
    struct strategy_env env;
    struct eye_plan p;
};

static void eye_case(struct eye_case *c, uint32_t width, uint32_t height,
                     size_t nvalues)
{
    memset(c, 0, sizeof *c);
    c->dev.name = "hand-made";
    c->dev.compute_units = 132;
    c->dev.local_mem = 49152;
    c->dev.global_mem = UINT64_C(80) << 30;
    c->dev.max_alloc = UINT64_C(20) << 30;
    c->in.histo_width = width;
    c->in.histo_height = height;
    c->in.nbins = width * height;
    c->in.nvalues = nvalues;
    c->env.device = &c->dev;
    c->env.input = &c->in;
}

/* The fused launch: a tile group's place on every compute unit (2048
 * threads a unit, at most 4 groups), the counting groups left as
 * planned, and never fewer groups than planned. */
static void test_eye_plan_fused_groups(void)
{
    struct eye_plan p;
    memset(&p, 0, sizeof p);
    p.group[K_TILE] = 1024; /* 2 a unit: 264 on 132 units */
    p.groups = p.count_groups = 32;
    eye_plan_fused_groups(&p, 132);
    bool ok = p.groups == 264 && p.count_groups == 32;
    p.group[K_TILE] = 256; /* 8 a unit, held to 4: 528 */
    p.groups = p.count_groups = 32;
    eye_plan_fused_groups(&p, 132);
    ok = ok && p.groups == 528 && p.count_groups == 32;
    p.group[K_TILE] = 4096; /* more threads than a unit has: 1 a unit */
    p.groups = p.count_groups = 1000; /* more than 132 planned: kept */
    eye_plan_fused_groups(&p, 132);
    ok = ok && p.groups == 1000 && p.count_groups == 1000;
    check(ok, "eye_plan.fused_groups", "groups %u, counting %u", p.groups,
          p.count_groups);
}

/* work_plan (work_plan.c): the split, residency and chunks, no device
 * needed; every expectation worked out by hand below. */
static bool planned(const struct device_info *const *devs, size_t n,
                    size_t nvalues, uint64_t budget, uint64_t chunk,
                    bool whole_first, const char *want)
{
    struct histo_input in = {.histo_width = 256, .histo_height = 8192,
                             .nbins = 256 * 8192, .nvalues = nvalues};
    const struct work_options opt = {budget, chunk};
    struct work *w = work_create();
    char got[256] = "";
    const bool refused = w == NULL
                      || work_plan(w, devs, n, &in, &opt, whole_first) != 0;
    if (refused)
        snprintf(got, sizeof got, "refused");
    for (size_t s = 0; !refused && s < work_nshares(w); ++s) {
        const struct work_share_info i = work_share_info(w, s);
        const size_t at = strlen(got);
        snprintf(got + at, sizeof got - at, "%s%zu+%zu %s %zux%zu",
                 s > 0 ? ", " : "", i.first, i.count,
                 i.streamed ? "streamed" : "device", i.nchunks,
                 i.chunk_values);
    }
    if (w != NULL && work_can_reshare(w) && strlen(got) < sizeof got - 8)
        strcat(got, " whole");
    work_destroy(w);
    if (strcmp(got, want) == 0)
        return true;
    fprintf(stderr, "work_plan: got '%s', want '%s'\n", got, want);
    return false;
}

static void test_work_plan(void)
{
/* a resident chunk's most values, 2^31 (WORK_MAX_CHUNK_VALUES) */
#define MAXC "2147483648"
    struct device_info big = {.name = "big", .compute_units = 132,
                              .global_mem = UINT64_C(80) << 30,
                              .max_alloc = UINT64_C(20) << 30};
    struct device_info half = big;
    half.name = "half";
    half.compute_units = 66;
    const struct device_info *two[] = {&big, &half}, *one[] = {&big};
    /* by compute units, share 0 the remainder: 1000 / 198 = 5 r 10, so
     * the second takes 5 x 66 + 10 x 66 / 198 = 333 */
    const char *both = "0+667 device 1x" MAXC ", 667+333 device 1x" MAXC;
    bool ok = planned(two, 2, 1000, 0, 0, false, both);
    /* resident up to the budget's bytes, in chunks of at most 2^31
     * values (a kernel's 32-bit index); past it streamed in chunks of at
     * most half the budget (two device buffers): 500 values */
    ok = ok && planned(one, 1, 1000, 4000, 0, false,
                       "0+1000 device 1x" MAXC);
    ok = ok && planned(one, 1, 1001, 4000, 0, false,
                       "0+1001 streamed 3x500");
    /* --chunk-values: 1000 in chunks of 300 */
    ok = ok && planned(one, 1, 1000, 0, 300, false, "0+1000 device 4x300");
    /* --device all: the whole on the first device where it fits */
    ok = ok && planned(two, 2, 1000, 0, 0, true,
                       "0+1000 device 1x" MAXC " whole");
    ok = ok && planned(two, 2, 1000, 3000, 0, true, both);
    /* the histogram must fit one allocation */
    half.max_alloc = 1024;
    ok = ok && planned(two, 2, 1000, 0, 0, false, "refused");
    check(ok, "work.plan", "a case differs (stderr)");
#undef MAXC
}

static void test_eye_plan_sizes(void)
{
    /* compiled wins; else accepted or target, within the limits */
    check(eye_plan_tile_group(1024, 0, 64, 256, 128) == 1024
              && eye_plan_tile_group(0, 1024, 64, 256, 512) == 512
              && eye_plan_tile_group(0, 768, 64, 256, 2048) == 768
              && eye_plan_tile_group(0, 0, 1024, 256, 2048) == 256
              && eye_plan_tile_group(0, 0, 1024, 4096, 4096) == 1024
              && eye_plan_tile_group(0, 0, 0, 256, 2048) == 1,
          "eye_plan.tile_group", "a size differs");
    /* the kernels' quotient by the width (width_div): the high half of
     * d times the reciprocal, against C's division, for widths of every
     * size and numerators at and around their multiples and the ends */
    static const uint32_t widths[] = {
        2, 3, 7, 64, 100, 255, 256, 257, 1000, 65535, 65537, 1000000,
        2147483647u, 2147483648u, 3000000001u, 4294967295u};
    uint32_t bad_w = 0, bad_d = 0;
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; ++i) {
        const uint32_t w = widths[i];
        const uint64_t m = eye_width_recip(w);
        uint64_t x = 0x9e3779b97f4a7c15u;
        for (uint32_t j = 0; j < 4096; ++j) {
            x = x * 6364136223846793005u + 1442695040888963407u;
            const uint64_t k = (x >> 33) % (UINT32_MAX / w + 1);
            const uint32_t cand[] = {(uint32_t)(k * w), (uint32_t)(k * w - 1),
                                     (uint32_t)(x >> 32), UINT32_MAX - j, j};
            for (size_t c = 0; c < sizeof cand / sizeof cand[0]; ++c) {
                const uint32_t d = cand[c];
                /* (d * m) >> 64 by 32-bit halves of m: d * (m >> 32)
                 * plus the carry of d * (m's low half) fits 64 bits */
                const uint32_t q = (uint32_t)((d * (m >> 32)
                                               + (d * (m & UINT32_MAX) >> 32))
                                              >> 32);
                if (q != d / w && bad_w == 0)
                    bad_w = w, bad_d = d;
            }
        }
    }
    check(bad_w == 0 && eye_width_recip(1) == 0
              && eye_width_recip(256) == UINT64_C(1) << 56
              && eye_width_shift(1) == 0 && eye_width_shift(256) == 8
              && eye_width_shift(UINT32_C(1) << 31) == 31
              && eye_width_shift(100) == 32 && eye_width_shift(3) == 32,
          "eye_plan.width_recip", "width %" PRIu32 ", %" PRIu32 " / it wrong",
          bad_w, bad_d);
    check(eye_plan_reduce_group(256) == 256 && eye_plan_reduce_group(7) == 7
              && eye_plan_reduce_group(12) == 8
              && eye_plan_reduce_group(1023) == 1016,
          "eye_plan.reduce_group", "a size differs");
    /* (49152 - 1024) / 4; nothing left; (65536 - 1024 - 2048) / 4 */
    check(eye_plan_local_words(49152, 0) == 12032
              && eye_plan_local_words(1000, 0) == 0
              && eye_plan_local_words(65536, 2048) == 15616,
          "eye_plan.local_words", "%llu",
          (unsigned long long)eye_plan_local_words(49152, 0));
    struct eye_case c;
    eye_case(&c, 256, 8192, 8388608);
    bool ok = eye_plan_may_use_2d(&c.in, 8388608);
    ok = ok && !eye_plan_may_use_2d(&c.in, 8388609);
    c.in.histo_width = 258; /* no whole quads of columns */
    ok = ok && !eye_plan_may_use_2d(&c.in, 1);
    c.in.histo_width = 4; /* narrower than 8 */
    ok = ok && !eye_plan_may_use_2d(&c.in, 1);
    check(ok, "eye_plan.may_use_2d", "a case differs");
}

static void test_eye_plan_tiles(void)
{
    struct eye_case c;
    /* 12032 words, two counters each: 24064 bins, 94 rows of 256 */
    eye_case(&c, 256, 8192, 1 << 20);
    int st = eye_plan_tiles(&c.p, &c.env, false, 12032);
    check(st == 0 && c.p.replicas == 1 && c.p.tile_bins == 24064
              && c.p.tile_rows == 94,
          "eye_plan.tiles_whole_rows", "status %d, R %u, %u bins, %u rows",
          st, c.p.replicas, c.p.tile_bins, c.p.tile_rows);
    c.env.knobs.v[KNOB_TILE_ROWS] = 4;
    st = eye_plan_tiles(&c.p, &c.env, false, 12032);
    check(st == 0 && c.p.tile_bins == 1024 && c.p.tile_rows == 4,
          "eye_plan.tiles_tile_rows", "%u bins, %u rows", c.p.tile_bins,
          c.p.tile_rows);
    /* two copies (HISTO_REPLICAS): 12032 bins, 47 rows; three: 24064 / 3
     * = 8021 bins, 31 whole rows of 256 */
    c.env.knobs.v[KNOB_TILE_ROWS] = 0;
    st = eye_plan_tiles(&c.p, &c.env, true, 12032);
    const int two = st == 0 && c.p.replicas == 2 && c.p.tile_bins == 12032
                 && c.p.tile_rows == 47;
    c.env.knobs.v[KNOB_REPLICAS] = 3;
    st = eye_plan_tiles(&c.p, &c.env, true, 12032);
    check(two && st == 0 && c.p.replicas == 3 && c.p.tile_bins == 7936
              && c.p.tile_rows == 31,
          "eye_plan.tiles_replicas", "R %u, %u bins, %u rows", c.p.replicas,
          c.p.tile_bins, c.p.tile_rows);
    c.env.knobs.v[KNOB_REPLICAS] = 0;
    /* 5x3: the 15 bins in whole quads, 16 */
    eye_case(&c, 5, 3, 21);
    st = eye_plan_tiles(&c.p, &c.env, false, 12032);
    check(st == 0 && c.p.tile_bins == 16 && c.p.tile_rows == 3,
          "eye_plan.tiles_small_histogram", "%u bins, %u rows",
          c.p.tile_bins, c.p.tile_rows);
    /* a row wider than the tile: 24064 bins, less than a row */
    eye_case(&c, 65536, 2, 1 << 20);
    st = eye_plan_tiles(&c.p, &c.env, false, 12032);
    check(st == 0 && c.p.tile_bins == 24064 && c.p.tile_rows == 0,
          "eye_plan.tiles_wide_rows", "%u bins, %u rows", c.p.tile_bins,
          c.p.tile_rows);
    /* 40 words: 80 bins, but less than the eye's scratch */
    const char *log = path_in_workdir("eye_plan.log");
    char text[512];
    int lines;
    eye_case(&c, 256, 8192, 1 << 20);
    stderr_to(log);
    st = eye_plan_tiles(&c.p, &c.env, false, 40);
    stderr_back();
    captured(log, text, sizeof text, &lines);
    check(st == HISTO_EXIT_DEVICE && lines == 1
              && strstr(text, "'hand-made' has 49152 bytes") != NULL,
          "eye_plan.tiles_too_few_words", "status %d: %s", st, text);
}

/* The cells cover the tiles as eye_plan.h says, counted tile by tile:
 * every tile in a cell, cells of equal size (the last may hold fewer),
 * no more cells than allowed, and cells of one tile each where that
 * fits. */
static int eye_cells_cover(uint32_t nbins, uint32_t tile_bins,
                           uint64_t words_avail)
{
    struct eye_case c;
    eye_case(&c, 1, nbins, 1);
    c.p.tile_bins = tile_bins;
    c.p.replicas = 1;
    eye_plan_cells(&c.p, &c.in, words_avail);
    uint64_t tiles = 0;
    for (uint64_t bin = 0; bin < nbins; bin += tile_bins)
        ++tiles;
    uint64_t allowed = words_avail - (2 + 64 + 2 * 256);
    if (allowed > 1024)
        allowed = 1024;
    const uint64_t k = c.p.cell_tiles, n = c.p.ncells;
    return k >= 1 && n * k >= tiles && (n - 1) * k < tiles && n <= allowed
        && (k == 1 || (tiles + k - 2) / (k - 1) > allowed)
        && c.p.max_tiles == (tiles < 16 ? tiles : 16);
}

static void test_eye_plan_cells(void)
{
    struct eye_case c;
    /* 2097152 bins in tiles of 24064: 88 tiles (87 full), a cell each */
    eye_case(&c, 256, 8192, 1 << 20);
    c.p.tile_bins = 24064;
    c.p.replicas = 1;
    eye_plan_cells(&c.p, &c.in, 12032);
    check(c.p.ncells == 88 && c.p.cell_tiles == 1 && c.p.max_tiles == 16
              && c.p.tile_words == 12032 && c.p.local_bytes == 48128,
          "eye_plan.cells_workload", "%u cells of %u, max %u, %u words",
          c.p.ncells, c.p.cell_tiles, c.p.max_tiles, c.p.tile_words);
    /* tiles of 16 bins: 131072 tiles in 1024 cells of 128; the scratch
     * and the cells outgrow the tile's 8 words: 1024 + 578 */
    c.p.tile_bins = 16;
    eye_plan_cells(&c.p, &c.in, 12032);
    check(c.p.ncells == 1024 && c.p.cell_tiles == 128
              && c.p.tile_words == 1024 + 2 + 64 + 512,
          "eye_plan.cells_many_tiles", "%u cells of %u, %u words",
          c.p.ncells, c.p.cell_tiles, c.p.tile_words);
    /* tiles of 2400 bins: 874 cells, whose 874 + 578 words outgrow the
     * tile's 1200 */
    c.p.tile_bins = 2400;
    eye_plan_cells(&c.p, &c.in, 12032);
    check(c.p.ncells == 874 && c.p.cell_tiles == 1
              && c.p.tile_words == 874 + 578,
          "eye_plan.cells_scratch", "%u cells of %u, %u words", c.p.ncells,
          c.p.cell_tiles, c.p.tile_words);
    int ok = 1;
    const uint32_t bins[] = {1, 15, 100, 3700, 65536, 2097152, 16777215};
    const uint32_t sizes[] = {4, 16, 1024, 24064};
    const uint64_t words[] = {610, 700, 1600, 12032};
    for (size_t i = 0; i < sizeof bins / sizeof bins[0]; ++i)
        for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; ++j)
            for (size_t w = 0; w < sizeof words / sizeof words[0]; ++w)
                if (ok && !eye_cells_cover(bins[i], sizes[j], words[w])) {
                    ok = 0;
                    printf("  %u bins, tiles of %u, %llu words\n", bins[i],
                           sizes[j], (unsigned long long)words[w]);
                }
    check(ok, "eye_plan.cells_cover", "a case above");
}

static void test_eye_plan_groups(void)
{
    struct eye_case c;
    eye_case(&c, 256, 8192, 1000000);
    c.p.max_tiles = 5;
    c.env.knobs.v[KNOB_BATCHES] = 3;
    eye_plan_groups(&c.p, &c.env);
    check(c.p.groups == 15 && c.p.forced_batches == 3,
          "eye_plan.groups_batches", "%u groups, B %u", c.p.groups,
          c.p.forced_batches);
    /* 2048 / 1024 = 2 a unit, 264 in all; 1000000 values fill 123 */
    c.env.knobs.v[KNOB_BATCHES] = 0;
    c.p.forced_batches = 0;
    c.p.group[K_TILE] = 1024;
    eye_plan_groups(&c.p, &c.env);
    const unsigned few = c.p.groups;
    c.in.nvalues = UINT64_C(1) << 30; /* all 264 */
    eye_plan_groups(&c.p, &c.env);
    const unsigned all = c.p.groups;
    c.p.group[K_TILE] = 64; /* 32 a unit, at most 4: 528 */
    eye_plan_groups(&c.p, &c.env);
    const unsigned small = c.p.groups;
    c.in.nvalues = 10000; /* 2 useful, but the window's 16 tiles */
    c.p.max_tiles = 16;
    eye_plan_groups(&c.p, &c.env);
    const unsigned window = c.p.groups;
    c.in.nvalues = 15 * 8192; /* 15 useful, one short of the window */
    eye_plan_groups(&c.p, &c.env);
    check(few == 123 && all == 264 && small == 528 && window == 16
              && c.p.groups == 16 && c.p.forced_batches == 0,
          "eye_plan.groups_device", "%u, %u, %u, %u, %u groups", few, all,
          small, window, c.p.groups);
}

static void test_eye_plan_samples(void)
{
    struct eye_case c;
    /* of 512 samples 1/16 and 1/8; of 100, 7 and 13; of 1, 1 and 1;
     * 1/3 of 512 rounds up to 171 */
    eye_case(&c, 256, 8192, 1000000);
    eye_plan_samples(&c.p, &c.in, 16);
    int ok = c.p.min_samples == 32 && c.p.min_samples_2d == 64;
    eye_plan_samples(&c.p, &c.in, 3);
    ok = ok && c.p.min_samples == 171;
    c.in.nvalues = 100;
    eye_plan_samples(&c.p, &c.in, 16);
    ok = ok && c.p.min_samples == 7 && c.p.min_samples_2d == 13;
    c.in.nvalues = 1;
    eye_plan_samples(&c.p, &c.in, 16);
    ok = ok && c.p.min_samples == 1 && c.p.min_samples_2d == 1;
    check(ok, "eye_plan.samples", "last %u, %u", c.p.min_samples,
          c.p.min_samples_2d);
}

static void test_eye_plan_reduce(void)
{
    struct eye_plan p;
    memset(&p, 0, sizeof p);
    /* 524288 quads, 2048 groups of 256, and a window of 16 tiles of
     * 24064 bins, 96256 quads of 8 lanes, 3008 groups: both capped at 4
     * a unit (528 on 132 units), neither on 1000 */
    p.group[K_REDUCE] = 256;
    p.max_tiles = 16;
    p.tile_bins = 24064;
    eye_plan_reduce(&p, 2097152, 132);
    int ok = p.reduce_groups[0] == 528 && p.reduce_groups[1] == 528;
    eye_plan_reduce(&p, 2097152, 1000);
    ok = ok && p.reduce_groups[0] == 2048 && p.reduce_groups[1] == 3008;
    /* groups of 7 have no part B */
    p.group[K_REDUCE] = 7;
    eye_plan_reduce(&p, 2097152, 1000);
    ok = ok && p.reduce_groups[0] == 4000 && p.reduce_groups[1] == 0;
    /* 3700 bins: 925 quads, 4 groups (3 and a part); a window of 400
     * bins, 100 quads of 8 lanes, 3 groups and a part */
    p.group[K_REDUCE] = 256;
    p.tile_bins = 400;
    p.max_tiles = 1;
    eye_plan_reduce(&p, 3700, 1000);
    ok = ok && p.reduce_groups[0] == 4 && p.reduce_groups[1] == 4;
    /* 15 bins: 3 whole quads, the window no larger */
    p.tile_bins = 16;
    eye_plan_reduce(&p, 15, 1);
    ok = ok && p.reduce_groups[0] == 1 && p.reduce_groups[1] == 1;
    check(ok, "eye_plan.reduce", "last %u + %u", p.reduce_groups[0],
          p.reduce_groups[1]);
}

static void test_eye_plan_buckets(void)
{
    struct eye_case c;
    struct eye_bucket_ask ask = {false, 0};
    /* 256 buckets of 8192 bins; 16777216 values, twice 65536 an area;
     * 256 cursors padded to 1024 bytes */
    eye_case(&c, 256, 8192, 16777216);
    c.p.two_d = true;
    c.p.tile_words = 12032;
    eye_plan_buckets(&c.p, &c.env, false, &ask);
    check(c.p.nbuckets == 256 && c.p.bucket_cap == 131072
              && c.p.bucket_bytes == 1024 + 2 * 256 * 131072
              && c.p.buckets_why == NULL,
          "eye_plan.buckets", "%u buckets of %u, %zu bytes (%s)",
          c.p.nbuckets, c.p.bucket_cap, c.p.bucket_bytes,
          c.p.buckets_why ? c.p.buckets_why : "on");
    /* 1 MiB of device memory: 32768 bytes for them, 62 entries an area,
     * 56 in whole eights, below HISTO_BUCKET_MIN_CAP; a cap of 5 asked
     * for is taken (as 8) */
    c.dev.global_mem = 1 << 20;
    eye_plan_buckets(&c.p, &c.env, false, &ask);
    const int small = c.p.bucket_cap == 0 && c.p.buckets_why != NULL
                   && strcmp(c.p.buckets_why, "too little device memory")
                          == 0;
    ask.cap = 5;
    eye_plan_buckets(&c.p, &c.env, false, &ask);
    const unsigned cap5 = c.p.bucket_cap;
    /* a cap of 150 asked for 100 values: 100, as 104 */
    c.in.nvalues = 100;
    ask.cap = 150;
    eye_plan_buckets(&c.p, &c.env, false, &ask);
    check(small && cap5 == 8 && c.p.bucket_cap == 104 && c.p.nbuckets == 256
              && c.p.bucket_bytes == 1024 + 2 * 256 * 104,
          "eye_plan.buckets_memory_and_cap", "caps %u, %u", cap5,
          c.p.bucket_cap);
    /* none: asked off, fused, eye_tile, staging beyond the tile's words
     * (256 x 10 words) */
    ask.cap = 0;
    ask.off = true;
    eye_plan_buckets(&c.p, &c.env, false, &ask);
    int ok = c.p.bucket_cap == 0
          && strcmp(c.p.buckets_why, "HISTO_EYE_BUCKET_CAP=0") == 0;
    ask.off = false;
    eye_plan_buckets(&c.p, &c.env, true, &ask);
    ok = ok && c.p.bucket_cap == 0
      && strcmp(c.p.buckets_why, "the fused kernel") == 0;
    c.p.two_d = false;
    eye_plan_buckets(&c.p, &c.env, false, &ask);
    ok = ok && c.p.bucket_cap == 0
      && strncmp(c.p.buckets_why, "eye_tile ", 9) == 0;
    c.p.two_d = true;
    c.p.tile_words = 2559;
    eye_plan_buckets(&c.p, &c.env, false, &ask);
    ok = ok && c.p.bucket_cap == 0 && c.p.nbuckets == 0
      && strcmp(c.p.buckets_why,
                "too little local memory for their staging") == 0;
    check(ok, "eye_plan.buckets_off", "last: %s", c.p.buckets_why);
}

/* Every test function, by name: build/unit-tests WORKDIR [NAME...] runs
 * those whose names contain one of the NAMEs (all without). */
static const struct {
    const char *name;
    void (*run)(void);
} tests[] = {
    {"colour_table", test_colour_table},
    {"bmp_layout", test_bmp_layout},
    {"bmp_unwritable", test_bmp_unwritable},
    {"input_reader", test_input_reader},
    {"input_gzip_members", test_input_gzip_members},
    {"cli", test_cli},
    {"cli_tune", test_cli_tune},
    {"tune_values_log2", test_tune_values_log2},
    {"tune_parse", test_tune_parse},
    {"knobs", test_knobs},
    {"energy", test_energy},
    {"tune_cache_path", test_tune_cache_path},
    {"tune_cache_file", test_tune_cache_file},
    {"tune_cache_concurrent", test_tune_cache_concurrent},
    {"counts_digest", test_counts_digest},
    {"reference", test_reference},
    {"cpu_plan", test_cpu_plan},
    {"choose_fastest", test_choose_fastest},
    {"progress_line", test_progress_line},
    {"strategy_table", test_strategy_table},
    {"strategy_choose", test_strategy_choose},
    {"quirks_match", test_quirks_match},
    {"eye_plan_sizes", test_eye_plan_sizes},
    {"work_plan", test_work_plan},
    {"eye_plan_fused_groups", test_eye_plan_fused_groups},
    {"eye_plan_tiles", test_eye_plan_tiles},
    {"eye_plan_cells", test_eye_plan_cells},
    {"eye_plan_groups", test_eye_plan_groups},
    {"eye_plan_samples", test_eye_plan_samples},
    {"eye_plan_reduce", test_eye_plan_reduce},
    {"eye_plan_buckets", test_eye_plan_buckets},
    {"device_enumerate", test_device_enumerate},
    {"device_fence", test_device_fence},
    {"device_skip_platform", test_device_skip_platform},
    {"device_skip_device", test_device_skip_device},
    {"device_long_name", test_device_long_name},
    {"device_memory_and_byte_order", test_device_memory_and_byte_order},
    {"device_work_items", test_device_work_items},
    {"device_types", test_device_types},
    {"device_rusticl_hint", test_device_rusticl_hint},
    {"device_prefers_pocl", test_device_prefers_pocl},
    {"outfile_signal", test_outfile_signal},
};

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: unit-tests DIR [NAME...]: the tests write "
                        "their files in DIR, a folder of their own\n");
        return 2;
    }
    workdir = argv[1];
    size_t ran = 0;
    for (size_t t = 0; t < sizeof tests / sizeof tests[0]; ++t) {
        bool wanted = argc <= 2;
        for (int i = 2; i < argc && !wanted; ++i)
            wanted = strstr(tests[t].name, argv[i]) != NULL;
        if (wanted) {
            tests[t].run();
            ++ran;
        }
    }
    if (ran == 0) {
        fprintf(stderr, "unit-tests: no test's name contains %s\n",
                argc > 2 ? argv[2] : "(nothing)");
        return 2;
    }
    return failures != 0;
}
