/*
 * error.h - the one error idiom of histo.
 *
 * Functions that can fail return an exit status (0 on success) after
 * printing one line on stderr. OpenCL calls go through CL_CALL / CL_CREATE,
 * which print the call text and the error name and jump to the function's
 * `fail:` label, where resources are released in reverse order. The first
 * failure is the one reported; release errors are ignored.
 */
#ifndef HISTO_ERROR_H
#define HISTO_ERROR_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

/* The documented exit statuses of histo (README, "Exit status"). */
enum histo_exit {
    HISTO_OK = 0,
    HISTO_EXIT_INTERNAL = 1, /* a bug or an exhausted host allocation   */
    HISTO_EXIT_USAGE = 2,    /* bad command line                        */
    HISTO_EXIT_INPUT = 3,    /* input missing, unreadable or invalid    */
    HISTO_EXIT_DEVICE = 4,   /* OpenCL: platform, device, build, run    */
    HISTO_EXIT_OUTPUT = 5,   /* output BMP or timing file not written   */
    HISTO_EXIT_CHECK = 6     /* the device's counters are wrong (check.h) */
};

/* Prints "histo: " + message + newline on stderr. */
void histo_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Symbolic name of an OpenCL error code ("CL_OUT_OF_RESOURCES"). */
const char *cl_error_name(cl_int err);

/* Reports a failed OpenCL call: its text, name and where it was made. */
void cl_report(const char *call, cl_int err, const char *file, int line);

/* For functions with an `int status` and a `fail:` label. */
#define CL_CALL(call)                                                     \
    do {                                                                  \
        cl_int cl_err_ = (call);                                          \
        if (cl_err_ != CL_SUCCESS) {                                      \
            cl_report(#call, cl_err_, __FILE__, __LINE__);                \
            status = HISTO_EXIT_DEVICE;                                   \
            goto fail;                                                    \
        }                                                                 \
    } while (0)

/* For creators with an errcode_ret argument: write it as &cl_err_. */
#define CL_CREATE(lhs, call)                                              \
    do {                                                                  \
        cl_int cl_err_ = CL_SUCCESS;                                      \
        (lhs) = (call);                                                   \
        if (cl_err_ != CL_SUCCESS || (lhs) == NULL) {                     \
            cl_report(#call, cl_err_, __FILE__, __LINE__);                \
            status = HISTO_EXIT_DEVICE;                                   \
            goto fail;                                                    \
        }                                                                 \
    } while (0)

/* Host allocation that reports and jumps to fail: on exhaustion. */
#define HOST_ALLOC(ptr, count)                                            \
    do {                                                                  \
        (ptr) = histo_calloc((count), sizeof *(ptr), #ptr);               \
        if ((ptr) == NULL) {                                              \
            status = HISTO_EXIT_INTERNAL;                                 \
            goto fail;                                                    \
        }                                                                 \
    } while (0)

/* calloc that checks count * size for overflow and reports failure. */
void *histo_calloc(size_t count, size_t size, const char *what);

#endif
