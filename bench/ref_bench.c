/*
 * ref_bench.c - times the sequential reference loop (src/reference.c) on an
 * input, the yardstick device strategies are compared with.
 *
 *   ref-bench INPUT [MIN_SECONDS]
 *
 * Warms up, then repeats reference_histogram (memset + plain loop, built
 * with the GNUmakefile's OPTIMIZE, -O2 by default) until MIN_SECONDS
 * (default 1) have passed and at least 20 repetitions were made, timing
 * each with the monotonic clock. Prints "key = value" lines on stdout:
 * repetitions and the median, mean and min per repetition in microseconds.
 */
#include "error.h"
#include "reference.h"
#include "run.h"
#include "timer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define MIN_REPS 20
#define MAX_REPS 100000
#define WARMUP 3

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fputs("usage: ref-bench INPUT [MIN_SECONDS]\n", stderr);
        return HISTO_EXIT_USAGE;
    }
    double min_s = 1.0;
    if (argc == 3) {
        char *end = NULL;
        errno = 0;
        min_s = strtod(argv[2], &end);
        if (*end != '\0' || errno == ERANGE || !(min_s > 0 && min_s < 3600)) {
            histo_error("MIN_SECONDS must be a number of seconds in (0, "
                        "3600), not '%s'", argv[2]);
            return HISTO_EXIT_USAGE;
        }
    }

    /* reading counts the input once: the first warm-up */
    struct reference_file ref;
    int status = reference_read(argv[1], &ref);
    if (status != HISTO_OK)
        return status;
    const struct histo_input *in = &ref.input;
    uint8_t *histo = ref.histo;
    double *us = histo_calloc(MAX_REPS, sizeof *us, "timings");
    if (us == NULL) {
        status = HISTO_EXIT_INTERNAL;
        goto done;
    }

    for (int i = 1; i < WARMUP; ++i)
        reference_histogram(in->values, in->nvalues, in->nbins, histo);
    size_t reps = 0;
    const double start = timer_now();
    while (reps < MAX_REPS
           && (reps < MIN_REPS || timer_now() - start < min_s)) {
        const double t = timer_now();
        reference_histogram(in->values, in->nvalues, in->nbins, histo);
        us[reps++] = (timer_now() - t) * 1e6;
    }

    /* A checksum of the result keeps the work observable. */
    unsigned long sum = 0;
    for (uint32_t b = 0; b < in->nbins; ++b)
        sum += histo[b];
    const struct run_stats s = run_stats(us, reps);
    printf("reference.repetitions = %zu\n", reps);
    printf("reference.median_us = %.3f\n", s.median);
    printf("reference.mean_us = %.3f\n", s.mean);
    printf("reference.min_us = %.3f\n", s.min);
    printf("reference.checksum = %lu\n", sum);
done:
    free(us);
    reference_free(&ref);
    return status;
}
