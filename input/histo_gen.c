/*
 * histo_gen.c - deterministic generator of 116.histo inputs.
 *
 * Integer arithmetic only (no libm, no floating point): the same arguments
 * give byte-identical files on every platform and compiler. Gaussian
 * coordinates come from the Irwin-Hall sum of twelve 16-bit uniforms (mean
 * 6 * 65536, standard deviation 65536), scaled by the requested deviation;
 * draws that fall outside the histogram are drawn again.
 *
 *   histo-gen -o FILE [--gzip] [--image WxH] [--histo WxH] [--seed N]
 *             [--dist gauss|twoeye|uniform|onebin|sweep|counts]
 *             [--row-mean R] [--row-sigma S] [--col-mean C] [--col-sigma S]
 *             [--second-row R] [--outliers PPM] [--ends PPM] [--bin B]
 *             [--span K] [--progress]
 *             [--counts B:N,B:N,...]
 *
 * gauss:   one eye at (row-mean, col-mean); PPM per million values are
 *          uniform over the whole histogram instead.
 *          --ends PPM per million of the others are at a row's end
 *          instead, column 0 or the last of a uniform row (default 0;
 *          where 0 the draws are those of the option's absence).
 * twoeye:  half the eye values around row-mean, half around second-row.
 * uniform: every bin equally likely.
 * onebin:  every value is bin B.
 * sweep:   value i is bin B + (i mod K), K = --span (default: all bins,
 *          B then wrapping around): each of the K bins gets the same count
 *          (+-1) whatever the size.
 * --progress: a line on stderr at each tenth of the values written, for
 *          inputs of 2^19 values or more (the datasets' generation).
 * counts:  bin B gets exactly N values for each B:N of --counts, in an
 *          order shuffled by the seed; the image must hold the sum of the
 *          N exactly. For tests that need known counts per bin.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct gen {
    uint32_t img_w, img_h, histo_w, histo_h;
    uint64_t seed;
    const char *dist, *out;
    int kind;             /* dist's index in dists[] below     */
    int gzip, progress;
    int64_t row_mean, row_sigma, col_mean, col_sigma, second_row;
    uint32_t outliers_ppm, ends_ppm, bin;
    uint64_t span; /* sweep: bins covered, 0 = all */
    const char *counts;   /* counts: "B:N,B:N,..."            */
    uint32_t *planned;    /* counts: every value, shuffled    */
};

/* splitmix64: small, fast, and the same everywhere. */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform in [0, bound) without modulo bias. */
static uint64_t below(uint64_t *s, uint64_t bound)
{
    const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t r;
    do
        r = next(s);
    while (r >= limit);
    return r % bound;
}

/* mean + sigma * N(0,1), Irwin-Hall approximated, redrawn into [0, limit). */
static uint32_t gaussian(uint64_t *s, int64_t mean, int64_t sigma,
                         uint32_t limit)
{
    for (int tries = 0; tries < 1000; ++tries) {
        int64_t sum = 0;
        for (int k = 0; k < 4; ++k) {
            const uint64_t r = next(s);
            sum += (int64_t)(r & 0xffff) + (int64_t)((r >> 16) & 0xffff)
                 + (int64_t)((r >> 32) & 0xffff);
        }
        const int64_t z = sum - 6 * 65536; /* sd 65536 */
        /* floor division keeps the distribution symmetric around mean */
        int64_t off = z * sigma;
        off = off >= 0 ? off / 65536 : -((-off + 65535) / 65536);
        const int64_t v = mean + off;
        if (v >= 0 && v < (int64_t)limit)
            return (uint32_t)v;
    }
    return (uint32_t)(mean < 0 ? 0 : mean >= limit ? limit - 1 : mean);
}

/* --dist's names; struct gen's kind is the index of one. */
enum { GAUSS, TWOEYE, UNIFORM, ONEBIN, SWEEP, COUNTS };
static const char *const dists[] = {"gauss", "twoeye", "uniform",
                                    "onebin", "sweep", "counts"};

static uint32_t draw(const struct gen *g, uint64_t *s, uint64_t i)
{
    const uint64_t nbins = (uint64_t)g->histo_w * g->histo_h;
    switch (g->kind) {
    case UNIFORM:
        return (uint32_t)below(s, nbins);
    case ONEBIN:
        return g->bin;
    case COUNTS:
        return g->planned[i];
    case SWEEP:
        return g->span != 0 ? (uint32_t)(g->bin + i % g->span)
                            : (uint32_t)((g->bin + i) % nbins);
    default:
        break;
    }
    if (below(s, 1000000) < g->outliers_ppm)
        return (uint32_t)below(s, nbins);
    if (g->ends_ppm != 0 && below(s, 1000000) < g->ends_ppm) {
        const uint64_t row = below(s, g->histo_h);
        return (uint32_t)(row * g->histo_w + ((next(s) & 1) ? g->histo_w - 1 : 0));
    }
    int64_t row_mean = g->row_mean;
    if (g->kind == TWOEYE && (next(s) & 1))
        row_mean = g->second_row;
    const uint32_t row = gaussian(s, row_mean, g->row_sigma, g->histo_h);
    const uint32_t col = gaussian(s, g->col_mean, g->col_sigma, g->histo_w);
    return row * g->histo_w + col;
}

static int parse_u64(const char *text, uint64_t *v)
{
    char *end;
    errno = 0;
    if (text == NULL || text[0] < '0' || text[0] > '9')
        return -1;
    *v = strtoull(text, &end, 10);
    return *end == '\0' && errno == 0 ? 0 : -1;
}

static int parse_size(const char *text, uint32_t *w, uint32_t *h)
{
    char *end;
    if (text == NULL || text[0] < '0' || text[0] > '9')
        return -1;
    errno = 0;
    const unsigned long a = strtoul(text, &end, 10);
    if (*end != 'x' || end[1] < '0' || end[1] > '9')
        return -1;
    const unsigned long b = strtoul(end + 1, &end, 10);
    if (*end != '\0' || errno != 0 || a == 0 || b == 0 || a > UINT32_MAX
        || b > UINT32_MAX)
        return -1;
    *w = (uint32_t)a;
    *h = (uint32_t)b;
    return 0;
}

/* Expands --counts into g->planned (n values) and shuffles it
 * (Fisher-Yates with the seed). Returns 0, or -1 with why set. */
static int plan_counts(struct gen *g, uint64_t n, uint64_t nbins,
                       const char **why)
{
    if (g->counts == NULL) {
        *why = "--dist counts needs --counts B:N,...";
        return -1;
    }
    if (n > (UINT64_C(1) << 28)) {
        *why = "--dist counts takes at most 2^28 values";
        return -1;
    }
    g->planned = malloc((size_t)n * sizeof *g->planned + 1);
    if (g->planned == NULL) {
        *why = "out of memory";
        return -1;
    }
    uint64_t have = 0;
    for (const char *p = g->counts; *p != '\0';) {
        char *end;
        errno = 0;
        const unsigned long long bin = strtoull(p, &end, 10);
        if (end == p || *end != ':' || bin >= nbins || errno != 0) {
            *why = "bad --counts: expected B:N,... with B a bin";
            return -1;
        }
        p = end + 1;
        const unsigned long long count = strtoull(p, &end, 10);
        if (end == p || (*end != ',' && *end != '\0') || errno != 0
            || count > n - have) {
            *why = "bad --counts, or more values than the image holds";
            return -1;
        }
        for (unsigned long long k = 0; k < count; ++k)
            g->planned[have++] = (uint32_t)bin;
        p = *end == ',' ? end + 1 : end;
    }
    if (have != n) {
        *why = "--counts adds up to fewer values than the image holds";
        return -1;
    }
    uint64_t state = g->seed;
    for (uint64_t i = n; i > 1; --i) {
        const uint64_t j = below(&state, i);
        const uint32_t t = g->planned[i - 1];
        g->planned[i - 1] = g->planned[j];
        g->planned[j] = t;
    }
    return 0;
}

static int usage(const char *why)
{
    fprintf(stderr, "histo-gen: %s\n(see the comment at the top of "
                    "input/histo_gen.c for the options)\n", why);
    return 2;
}

static int put(gzFile gz, FILE *f, const unsigned char *buf, size_t len)
{
    if (gz != NULL)
        return gzwrite(gz, buf, (unsigned)len) == (int)len ? 0 : -1;
    return fwrite(buf, 1, len, f) == len ? 0 : -1;
}

static void le32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

int main(int argc, char **argv)
{
    struct gen g = {
        .img_w = 996, .img_h = 1040, .histo_w = 256, .histo_h = 8192,
        .seed = 1, .dist = "gauss", .out = NULL, .gzip = 0,
        .row_mean = -1, .row_sigma = 64, .col_mean = -1, .col_sigma = 16,
        .second_row = -1, .outliers_ppm = 5000, .bin = 0, .span = 0,
    };
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t x = 0;
        int bad = 0, takes = 1;
        if (strcmp(a, "-o") == 0)
            g.out = v, bad = v == NULL;
        else if (strcmp(a, "--gzip") == 0)
            g.gzip = 1, takes = 0;
        else if (strcmp(a, "--progress") == 0)
            g.progress = 1, takes = 0;
        else if (strcmp(a, "--image") == 0)
            bad = parse_size(v, &g.img_w, &g.img_h);
        else if (strcmp(a, "--histo") == 0)
            bad = parse_size(v, &g.histo_w, &g.histo_h);
        else if (strcmp(a, "--dist") == 0)
            g.dist = v, bad = v == NULL;
        else if (strcmp(a, "--seed") == 0)
            bad = parse_u64(v, &g.seed);
        else if (strcmp(a, "--counts") == 0)
            g.counts = v, bad = v == NULL;
        else if ((bad = parse_u64(v, &x)) != 0 || x > INT32_MAX)
            return usage(v == NULL ? "option needs a value"
                                   : "bad or unknown option");
        else if (strcmp(a, "--row-mean") == 0)
            g.row_mean = (int64_t)x;
        else if (strcmp(a, "--row-sigma") == 0)
            g.row_sigma = (int64_t)x;
        else if (strcmp(a, "--col-mean") == 0)
            g.col_mean = (int64_t)x;
        else if (strcmp(a, "--col-sigma") == 0)
            g.col_sigma = (int64_t)x;
        else if (strcmp(a, "--second-row") == 0)
            g.second_row = (int64_t)x;
        else if (strcmp(a, "--outliers") == 0 && x <= 1000000)
            g.outliers_ppm = (uint32_t)x;
        else if (strcmp(a, "--ends") == 0 && x <= 1000000)
            g.ends_ppm = (uint32_t)x;
        else if (strcmp(a, "--bin") == 0)
            g.bin = (uint32_t)x;
        else if (strcmp(a, "--span") == 0)
            g.span = x;
        else
            return usage("bad or unknown option");
        if (bad)
            return usage("bad value for an option");
        i += takes;
    }
    g.kind = -1;
    for (int d = 0; d < (int)(sizeof dists / sizeof dists[0]); ++d)
        if (strcmp(g.dist, dists[d]) == 0)
            g.kind = d;
    if (g.kind < 0)
        return usage("unknown --dist");
    if (g.out == NULL)
        return usage("missing -o FILE");
    const uint64_t nbins = (uint64_t)g.histo_w * g.histo_h;
    if (nbins > UINT32_MAX || g.bin >= nbins || g.bin + g.span > nbins)
        return usage("histogram too large, or --bin/--span outside it");
    if (g.row_mean < 0)
        g.row_mean = g.histo_h / 2;
    if (g.col_mean < 0)
        g.col_mean = g.histo_w / 2;
    if (g.second_row < 0)
        g.second_row = g.histo_h / 4;
    const char *why = NULL;
    if (g.kind == COUNTS
        && plan_counts(&g, (uint64_t)g.img_w * g.img_h, nbins, &why) != 0) {
        free(g.planned);
        return usage(why);
    }

    gzFile gz = NULL;
    FILE *f = NULL;
    if (g.gzip)
        gz = gzopen(g.out, "wb6");
    else
        f = fopen(g.out, "wb");
    if (gz == NULL && f == NULL) {
        fprintf(stderr, "histo-gen: cannot create '%s': %s\n", g.out,
                strerror(errno));
        free(g.planned);
        return 1;
    }
    unsigned char buf[4096];
    le32(buf, g.img_w);
    le32(buf + 4, g.img_h);
    le32(buf + 8, g.histo_w);
    le32(buf + 12, g.histo_h);
    int failed = put(gz, f, buf, 16);
    uint64_t state = g.seed;
    const uint64_t n = (uint64_t)g.img_w * g.img_h;
    size_t fill = 0;
    uint64_t tenth = 1; /* --progress: the next tenth of n to say */
    for (uint64_t i = 0; i < n && !failed; ++i) {
        le32(buf + fill, draw(&g, &state, i));
        fill += 4;
        if (fill == sizeof buf || i + 1 == n) {
            failed = put(gz, f, buf, fill);
            fill = 0;
        }
        if (g.progress && n >= (UINT64_C(1) << 19) && i + 1 == n * tenth / 10)
            fprintf(stderr, "histo-gen: %s: %u%% (%" PRIu64 " of %" PRIu64
                            " values)\n", g.out, (unsigned)(10 * tenth++),
                    i + 1, n);
    }
    failed |= gz != NULL ? gzclose(gz) != Z_OK : fclose(f) != 0;
    free(g.planned);
    if (failed) {
        fprintf(stderr, "histo-gen: cannot write '%s'\n", g.out);
        remove(g.out);
        return 1;
    }
    return 0;
}
