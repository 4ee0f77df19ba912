/*
 * records_test.c - eye_reduce_narrow's sums of 8-bit tiles' records
 * (kernels/eye_reduce.cl, RECORDS_BIAS) against 64-bit arithmetic, on a
 * real device (make test runs it on PoCL).
 *
 *   records-test [PLATFORM [DEVICE]]
 *
 * Each window bin is given a count (0 to 2^31, the most one launch
 * counts) and a partial per batch (0 to 255, as an 8-bit tile leaves its
 * counter); its `outer` word holds the records that make them agree,
 * count - partials modulo 2^32, as eye_count.cl's narrow adds leave
 * them: as large as 2^31 (every value in one bin, no partial), as low
 * as -255 x 65536 (65536 batches, the most --batches takes, each
 * partial 255). The reduction must write min(count, 255) and leave
 * `outer` zero. Bins outside the window hold plain counts in `outer`,
 * up to 2^31. Whole-row and 2-D windows (the histogram's last bins,
 * past its last whole quad, inside the whole-row one), each reduced by
 * part A alone and by parts A and B. Prints PASS/FAIL lines; exit 0
 * when all pass.
 */
#include "eye_plan.h"
#include "kernel_test.h"
#include "params.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 64u     /* histogram width: 2-D windows need a multiple of 4 */
#define NBINS 323u    /* 5 rows and 3 bins: not a multiple of 4 (whole
                         rows; a 2-D window's histogram takes 320)     */
#define BATCHES 65536u
#define GROUP 64u     /* work-items a group: part B's 8 lanes, 8 quads   */

/* A window: whole rows [lo, hi) (cols 0), or cols columns of rows rows
 * from bin lo; its bins laid out row by row in a tile of `stride`
 * bytes. */
struct window {
    const char *name;
    cl_uint lo, hi, cols, rows, stride;
    cl_uint nbins; /* NBINS, or a multiple of 4 for a 2-D window */
};

static bool in_window(const struct window *w, uint32_t bin, uint32_t *off)
{
    if (bin < w->lo || bin >= w->hi)
        return false;
    const uint32_t d = bin - w->lo;
    if (w->cols == 0) {
        *off = d;
        return true;
    }
    const uint32_t r = d / WIDTH, c = d % WIDTH;
    *off = r * w->cols + c;
    return c < w->cols && r < w->rows;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= UINT64_C(0x9E3779B97F4A7C15);
    return x ^ (x >> 29);
}

/* Window bin k's partial in batch b. */
static uint8_t partial_of(uint32_t k, uint32_t b)
{
    switch (k) {
    case 0: case 6: return 0;                   /* records alone        */
    case 1: case 2: case 3: return 255;         /* every batch full     */
    case 4: return b == 0 ? 255 : 0;
    case 5: return b == BATCHES - 1 ? 1 : 0;
    case 7: return b < 256 ? 1 : 0;
    default: {
        /* a third of the bins in the first 4 batches alone, sums below
         * 255; the others spread over the batches */
        const uint64_t x = mix((uint64_t)k << 32 | b);
        if (k % 3 == 0)
            return b < 4 && x % 2 ? (uint8_t)((x >> 40) % 64) : 0;
        return x % 97 == 0 ? (uint8_t)(x >> 40) : 0;
    }
    }
}

/* Window bin k's count, given its partials' sum. */
static uint64_t count_of(uint32_t k, uint64_t sum)
{
    switch (k) {
    case 0: case 1: return UINT64_C(1) << 31;
    case 2: return 0;
    case 3: return 254;
    case 4: return 255;
    case 5: return (UINT64_C(1) << 31) - 1;
    case 6: return 100;
    case 7: return 256;
    default: {
        /* from the partials' sum less up to 300 to 300 past it */
        const uint64_t x = mix(k) % 601;
        return sum + x >= 300 ? sum + x - 300 : 0;
    }
    }
}

/* Bins outside the window: plain counts, some past 2^31. */
static uint32_t outside_count(uint32_t bin)
{
    return bin % 5 == 0 ? UINT32_C(1) << 31 : (uint32_t)(mix(bin) % 400);
}

static int reduce(cl_command_queue q, cl_kernel k, cl_mem outer,
                  const uint32_t *outer_init, cl_uint part_a_arg,
                  cl_uint part_a_groups, size_t groups)
{
    int status = HISTO_OK;
    const size_t items = groups * GROUP, group = GROUP;
    CL_CALL(clEnqueueWriteBuffer(q, outer, CL_TRUE, 0,
                                 NBINS * sizeof(uint32_t), outer_init, 0,
                                 NULL, NULL));
    CL_CALL(clSetKernelArg(k, part_a_arg, sizeof part_a_groups,
                           &part_a_groups));
    CL_CALL(clEnqueueNDRangeKernel(q, k, 1, NULL, &items, &group, 0, NULL,
                                   NULL));
    CL_CALL(clFinish(q));
fail:
    return status;
}

/* One window, reduced twice; its partials in `partial` (BATCHES x
 * stride bytes, uploaded here). */
static int run_window(struct kernel_test *t, const struct window *w,
                      uint8_t *partial)
{
    const cl_context ctx = t->ctx;
    const cl_command_queue q = t->queue;
    const cl_kernel k = t->kernel;
    int status = HISTO_OK;
    cl_mem dpart = NULL, outer = NULL, eye = NULL, hist = NULL,
           buckets = NULL;
    static uint32_t outer_init[NBINS], outer_got[NBINS];
    static uint8_t want[NBINS], got[NBINS];
    uint32_t k_of[NBINS];
    uint32_t nwin = 0;

    memset(partial, 0, (size_t)BATCHES * w->stride);
    for (uint32_t bin = 0; bin < w->nbins; ++bin) {
        uint32_t off;
        if (!in_window(w, bin, &off)) {
            outer_init[bin] = outside_count(bin);
            want[bin] = (uint8_t)(outer_init[bin] < 255 ? outer_init[bin]
                                                        : 255);
            continue;
        }
        k_of[bin] = nwin++;
        uint64_t sum = 0;
        for (uint32_t b = 0; b < BATCHES; ++b) {
            const uint8_t p = partial_of(k_of[bin], b);
            partial[(size_t)b * w->stride + off] = p;
            sum += p;
        }
        const uint64_t count = count_of(k_of[bin], sum);
        outer_init[bin] = (uint32_t)(count - sum); /* modulo 2^32 */
        want[bin] = (uint8_t)(count < 255 ? count : 255);
    }
    const cl_uint words[HISTO_EYE_WORDS] = {
        [HISTO_EYE_LO] = w->lo, [HISTO_EYE_HI] = w->hi,
        [HISTO_EYE_TILES] = 1, [HISTO_EYE_BATCHES] = BATCHES,
        [HISTO_EYE_COLS] = w->cols, [HISTO_EYE_ROWS] = w->rows,
        [HISTO_EYE_STRIDE] = w->stride, [HISTO_EYE_RAN] = BATCHES,
        [HISTO_EYE_ADDS] = HISTO_ADDS_NARROW | HISTO_ADDS_UNSAMPLED,
    };
    const cl_uint nbins = w->nbins, bucket_cap = 0;
    CL_CREATE(dpart, clCreateBuffer(ctx, CL_MEM_READ_ONLY
                                    | CL_MEM_COPY_HOST_PTR,
                                    (size_t)BATCHES * w->stride, partial,
                                    &cl_err_));
    CL_CREATE(outer, clCreateBuffer(ctx, CL_MEM_READ_WRITE,
                                    NBINS * sizeof(uint32_t), NULL,
                                    &cl_err_));
    CL_CREATE(eye, clCreateBuffer(ctx, CL_MEM_READ_ONLY
                                  | CL_MEM_COPY_HOST_PTR, sizeof words,
                                  (void *)words, &cl_err_));
    CL_CREATE(hist, clCreateBuffer(ctx, CL_MEM_READ_WRITE, NBINS, NULL,
                                   &cl_err_));
    CL_CREATE(buckets, clCreateBuffer(ctx, CL_MEM_READ_WRITE, 16, NULL,
                                      &cl_err_));
    cl_uint a = 0;
    CL_CALL(clSetKernelArg(k, a++, sizeof outer, &outer));
    CL_CALL(clSetKernelArg(k, a++, sizeof dpart, &dpart));
    CL_CALL(clSetKernelArg(k, a++, sizeof eye, &eye));
    CL_CALL(clSetKernelArg(k, a++, sizeof nbins, &nbins));
    const cl_uint width = WIDTH;
    const cl_uint width_shift = eye_width_shift(WIDTH);
    const cl_ulong width_recip = eye_width_recip(WIDTH);
    CL_CALL(clSetKernelArg(k, a++, sizeof width, &width));
    CL_CALL(clSetKernelArg(k, a++, sizeof width_shift, &width_shift));
    CL_CALL(clSetKernelArg(k, a++, sizeof width_recip, &width_recip));
    CL_CALL(clSetKernelArg(k, a++, sizeof hist, &hist));
    const cl_uint part_a_arg = a++; /* part_a_groups: reduce() */
    CL_CALL(clSetKernelArg(k, a++, sizeof bucket_cap, &bucket_cap));
    CL_CALL(clSetKernelArg(k, a++, sizeof buckets, &buckets));
    CL_CALL(clSetKernelArg(k, a++,
                           HISTO_BUCKET_LOCAL_WORDS * sizeof(cl_uint), NULL));

    /* part A alone (2 groups), then part A (1 group) and part B (3) */
    static const struct { const char *name; cl_uint part_a; size_t groups; }
        runs[] = {{"part_a", 2, 2}, {"parts_ab", 1, 4}};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; ++r) {
        if ((status = reduce(q, k, outer, outer_init, part_a_arg,
                             runs[r].part_a, runs[r].groups)) != HISTO_OK)
            goto fail;
        CL_CALL(clEnqueueReadBuffer(q, hist, CL_TRUE, 0, NBINS, got, 0,
                                    NULL, NULL));
        CL_CALL(clEnqueueReadBuffer(q, outer, CL_TRUE, 0,
                                    NBINS * sizeof(uint32_t), outer_got, 0,
                                    NULL, NULL));
        char name[64], detail[160] = "";
        snprintf(name, sizeof name, "%s.%s", w->name, runs[r].name);
        for (uint32_t bin = 0; bin < w->nbins && detail[0] == '\0'; ++bin) {
            uint32_t off;
            if (got[bin] != want[bin])
                snprintf(detail, sizeof detail,
                         "bin %" PRIu32 " (%s %" PRIu32 "): %u, want %u",
                         bin, in_window(w, bin, &off) ? "window bin"
                                                      : "outside, count",
                         in_window(w, bin, &off) ? k_of[bin]
                                                 : outer_init[bin],
                         got[bin], want[bin]);
            else if (outer_got[bin] != 0)
                snprintf(detail, sizeof detail,
                         "bin %" PRIu32 ": outer %" PRIu32 " left, want 0",
                         bin, outer_got[bin]);
        }
        kernel_test_check(t, detail[0] == '\0', name, detail);
    }
fail:;
    const cl_mem mems[] = {dpart, outer, eye, hist, buckets};
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; ++i)
        if (mems[i] != NULL)
            clReleaseMemObject(mems[i]);
    return status;
}

int main(int argc, char **argv)
{
    int status = HISTO_OK;
    struct kernel_test t;
    uint8_t *partial = NULL;
    /* the eye strategy's sources and options (eye.c) with 8-bit tiles */
    static const char *const files[] = {
        "eye_args.cl", "eye_sample.cl", "eye_window.cl", "eye_count.cl",
        "eye_bucket.cl", "eye_tile.cl", "eye_reduce.cl"};
    struct program_defines defines = {
        .text = {"-DHISTO_TILE_REQD_SIZE=0 -DHISTO_ONE_COPY=1 "
                 "-DHISTO_NARROW_AUTO=1u"},
        .count = 1};
    /* whole rows 1-5 with the last 3 bins; 8 columns from row 1, col 8 */
    static const struct window windows[] = {
        {"rows", WIDTH, NBINS, 0, 0, 260, NBINS},
        {"two_d", WIDTH + 8, WIDTH + 8 + 2 * WIDTH + 8, 8, 3, 24, 5 * WIDTH},
    };

    if ((status = kernel_test_open(&t, "records", argc, argv, files,
                                   sizeof files / sizeof files[0], &defines,
                                   "eye_reduce_narrow"))
        != HISTO_OK)
        goto fail;
    HOST_ALLOC(partial, (size_t)BATCHES * 260);
    for (size_t i = 0; i < sizeof windows / sizeof windows[0]; ++i)
        if ((status = run_window(&t, &windows[i], partial)) != HISTO_OK)
            goto fail;
fail:
    free(partial);
    return kernel_test_close(&t, status);
}
