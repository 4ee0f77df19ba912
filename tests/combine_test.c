/*
 * combine_test.c - kernels/combine.cl against 64-bit arithmetic, on a
 * real device (make test runs it on PoCL).
 *
 *   combine-test [PLATFORM [DEVICE]]
 *
 * Each bin stands for a bin of a huge input split into chunks: it is
 * given a count per chunk (up to 2^31, the most a chunk holds), each
 * chunk's partial is its saturated count, as a strategy leaves it, and
 * the partials are combined in chunk order and in a pairwise tree. Both
 * must give min(total, 255) with the total in 64 bits: bins whose totals
 * pass 2^32 (no partial counter may wrap), land exactly on 2^32, or stay
 * at 254 and 255. Prints PASS/FAIL lines; exit 0 when all pass.
 */
#include "kernel_test.h"
#include "params.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define NBINS 4099u   /* not a multiple of 16: the tail path too */
#define CHUNKS 24u

/* The count chunk c gives bin b, in 64 bits. */
static uint64_t chunk_count(uint32_t b, uint32_t c)
{
    switch (b) {
    case 0: return UINT64_C(1) << 28;           /* 24 x 2^28 > 2^32     */
    case 1: return c < 16 ? UINT64_C(1) << 28   /* exactly 2^32         */
                          : 0;
    case 2: return c == 5 ? UINT64_C(1) << 31 : 0; /* one full chunk    */
    case 3: return c == 0 ? 254 : 0;            /* stays 254            */
    case 4: return c == 3 ? 254 : c == 20 ? 1 : 0; /* 255 exactly       */
    case 5: return c % 2 ? 127 : 1;             /* 12 x 128 = 1536      */
    case 6: return 0;
    case 7: return c == 23 ? 200 : c == 22 ? 55 : 0;
    default: {
        /* small pseudo-random counts: sums around the saturation point */
        uint64_t x = (uint64_t)b * 2654435761u ^ (uint64_t)c * 40503u;
        x ^= x >> 13;
        return x % 7 == 0 ? x % 40 : 0;
    }
    }
}

static int run(cl_context ctx, cl_command_queue q, cl_kernel k, cl_mem acc,
               cl_mem part, cl_uint first, size_t items)
{
    int status = HISTO_OK;
    const cl_uint nbins = NBINS;
    CL_CALL(clSetKernelArg(k, 0, sizeof acc, &acc));
    CL_CALL(clSetKernelArg(k, 1, sizeof part, &part));
    CL_CALL(clSetKernelArg(k, 2, sizeof nbins, &nbins));
    CL_CALL(clSetKernelArg(k, 3, sizeof first, &first));
    CL_CALL(clEnqueueNDRangeKernel(q, k, 1, NULL, &items, NULL, 0, NULL,
                                   NULL));
    (void)ctx;
fail:
    return status;
}

int main(int argc, char **argv)
{
    int status = HISTO_OK;
    struct kernel_test t;
    cl_mem parts[CHUNKS] = {NULL};
    static uint8_t partial[CHUNKS][NBINS], got[NBINS], want[NBINS];
    static const char *const files[] = {"combine.cl"};

    if ((status = kernel_test_open(&t, "combine", argc, argv, files, 1, NULL,
                                   "combine")) != HISTO_OK)
        goto fail;
    const cl_context ctx = t.ctx;
    const cl_command_queue q = t.queue;
    const cl_kernel k = t.kernel;

    for (uint32_t b = 0; b < NBINS; ++b) {
        uint64_t total = 0;
        for (uint32_t c = 0; c < CHUNKS; ++c) {
            const uint64_t n = chunk_count(b, c);
            partial[c][b] = (uint8_t)(n < HISTO_SATURATE ? n : HISTO_SATURATE);
            total += n;
        }
        want[b] = (uint8_t)(total < HISTO_SATURATE ? total : HISTO_SATURATE);
    }
    for (uint32_t c = 0; c < CHUNKS; ++c) {
        CL_CREATE(parts[c], clCreateBuffer(ctx, CL_MEM_READ_WRITE,
                                           NBINS, NULL, &cl_err_));
        CL_CALL(clEnqueueWriteBuffer(q, parts[c], CL_TRUE, 0, NBINS,
                                     partial[c], 0, NULL, NULL));
    }
    cl_mem acc;
    CL_CREATE(acc, clCreateBuffer(ctx, CL_MEM_READ_WRITE, NBINS, NULL,
                                  &cl_err_));

    /* In chunk order, as work.c adds a share's chunks (with 37 work-items:
     * each strides over several runs of 16, and the tail). */
    for (uint32_t c = 0; c < CHUNKS; ++c)
        if ((status = run(ctx, q, k, acc, parts[c], c == 0, 37)) != HISTO_OK)
            goto fail;
    CL_CALL(clEnqueueReadBuffer(q, acc, CL_TRUE, 0, NBINS, got, 0, NULL,
                                NULL));
    char detail[160] = "";
    for (uint32_t b = 0; b < NBINS && detail[0] == '\0'; ++b)
        if (got[b] != want[b])
            snprintf(detail, sizeof detail, "bin %" PRIu32 ": %u, want %u",
                     b, got[b], want[b]);
    kernel_test_check(&t, detail[0] == '\0', "chunk_order", detail);
    kernel_test_check(&t, got[0] == 255 && got[1] == 255 && got[2] == 255
                              && got[3] == 254 && got[4] == 255
                              && got[6] == 0,
                      "past_2p32",
                      "bins past, at and below 2^32 are not 255, 255, 255, "
                      "254");

    /* A pairwise tree, as shares combine on top of chunks: partial c +=
     * partial c + step, with 256 work-items. */
    for (uint32_t step = 1; step < CHUNKS; step *= 2)
        for (uint32_t c = 0; c + step < CHUNKS; c += 2 * step)
            if ((status = run(ctx, q, k, parts[c], parts[c + step], 0, 256))
                    != HISTO_OK)
                goto fail;
    CL_CALL(clEnqueueReadBuffer(q, parts[0], CL_TRUE, 0, NBINS, got, 0, NULL,
                                NULL));
    detail[0] = '\0';
    for (uint32_t b = 0; b < NBINS && detail[0] == '\0'; ++b)
        if (got[b] != want[b])
            snprintf(detail, sizeof detail, "bin %" PRIu32 ": %u, want %u",
                     b, got[b], want[b]);
    kernel_test_check(&t, detail[0] == '\0', "tree_order", detail);
    clReleaseMemObject(acc);
fail:
    for (uint32_t c = 0; c < CHUNKS; ++c)
        if (parts[c] != NULL)
            clReleaseMemObject(parts[c]);
    return kernel_test_close(&t, status);
}
