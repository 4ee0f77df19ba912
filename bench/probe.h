/* bench/probe.h - what the probes in bench/ share: an OpenCL call checked
 * (CHECK), an object made and checked (CREATE: the call sets `err`), the
 * monotonic clock in microseconds, and the median of a sample. A probe
 * defines PROBE_NAME, the name its messages start with, before it
 * includes this file. Any failure ends the probe with status 1. */
#ifndef HISTO_BENCH_PROBE_H
#define HISTO_BENCH_PROBE_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK(call)                                                          \
    do {                                                                     \
        const cl_int e_ = (call);                                            \
        if (e_ != CL_SUCCESS) {                                              \
            fprintf(stderr, PROBE_NAME ": %s failed: %d (line %d)\n", #call, \
                    e_, __LINE__);                                           \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

#define CREATE(lhs, call)                                                    \
    do {                                                                     \
        cl_int err = CL_SUCCESS;                                             \
        (lhs) = (call);                                                      \
        if (err != CL_SUCCESS || (lhs) == NULL) {                            \
            fprintf(stderr, PROBE_NAME ": %s failed: %d (line %d)\n", #call, \
                    err, __LINE__);                                          \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

static inline double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

/* qsort's order for doubles */
static inline int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n), n > 0; sorts v. */
static inline double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
