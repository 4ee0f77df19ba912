/*
 * env.h - every environment variable histo reads, as one table: its
 * name, what it is for and its --help entry.
 *
 * The use decides what a run with the variable set is worth: a user's
 * variable picks defaults, files and folders and leaves the computation
 * and its timing as they are; a peak variable changes the kernels, so
 * the run is peak, not base; a measuring or test variable changes a
 * plan or a hook for an experiment or a test, so the run is also not
 * reportable. histo.out names each set variable (environment.NAME) and
 * the two lists the harness judges a run by (environment.peak,
 * environment.not_reportable); --help prints the table. Code reads a
 * variable through env_value, by its id, so none is read without a row
 * here.
 */
#ifndef HISTO_ENV_H
#define HISTO_ENV_H

#include "params.h"

#include <stdio.h>

enum env_use { ENV_USER, ENV_PEAK, ENV_MEASURE, ENV_TEST };

/* What a value may be: any text (a path, a name, options), a whole
 * number from lo to hi, or a number of seconds from lo to hi. */
enum env_kind { ENV_TEXT, ENV_WHOLE, ENV_SECONDS };
struct env_bounds {
    enum env_kind kind;
    double lo, hi;
};
#define ENV_ANY {ENV_TEXT, 0, 0}
#define ENV_COUNT_OF(lo, hi) {ENV_WHOLE, (lo), (hi)}
#define ENV_SECONDS_OF(lo, hi) {ENV_SECONDS, (lo), (hi)}

/* X(NAME, use, bounds, help); NAME's id is ENV_NAME. */
#define HISTO_ENV_VARS(X)                                                   \
    X(HISTO_PLATFORM, ENV_USER, ENV_ANY, "the default --platform")          \
    X(HISTO_DEVICE, ENV_USER, ENV_ANY, "the default --device")              \
    X(HISTO_KERNEL_DIR, ENV_USER, ENV_ANY, "the default --kernels")         \
    X(HISTO_NO_TUNE_CACHE, ENV_USER, ENV_ANY,                               \
      "anything but empty or 0: as --no-tune-cache")                        \
    X(HISTO_TUNE_FILE, ENV_USER, ENV_ANY, "the tune cache file")            \
    X(HOME, ENV_USER, ENV_ANY,                                              \
      "the tune cache is $HOME/.cache/histo/tune.conf when neither "        \
      "HISTO_TUNE_FILE nor XDG_CACHE_HOME names another")                   \
    X(XDG_CACHE_HOME, ENV_USER, ENV_ANY,                                    \
      "the tune cache is $XDG_CACHE_HOME/histo/tune.conf when "             \
      "HISTO_TUNE_FILE is unset and this is an absolute path")              \
    X(RUSTICL_ENABLE, ENV_USER, ENV_ANY,                                    \
      "Mesa's rusticl: the drivers it lists devices of (read for a hint "   \
      "where it lists none)")                                               \
    X(HISTO_PROGRAM_CACHE, ENV_USER, ENV_ANY,                               \
      "a folder where built programs are kept and found again (for "        \
      "implementations without a cache of their own; default: none)")       \
    X(HISTO_PROGRESS_INTERVAL, ENV_USER, ENV_SECONDS_OF(0, 86400),          \
      "seconds between progress lines on stderr, 0: none (default 10)")     \
    X(HISTO_NVML_LIB, ENV_USER, ENV_ANY,                                    \
      "the NVML library read for a GPU's energy (default "                  \
      "libnvidia-ml.so.1)")                                                 \
    X(HISTO_POWERCAP_DIR, ENV_USER, ENV_ANY,                                \
      "where a CPU's RAPL energy counters are (default "                    \
      "/sys/class/powercap)")                                               \
    X(HISTO_ENERGY_MIN_S, ENV_USER, ENV_SECONDS_OF(0, 86400),               \
      "seconds of iterations an energy figure needs, instead of NVML's "    \
      "1 and RAPL's 0.1")                                                   \
    X(HISTO_CL_OPTIONS, ENV_PEAK, ENV_ANY,                                  \
      "more options for the kernels' compiler, after histo's own; the "     \
      "build log is then printed too")                                      \
    X(HISTO_EYE_SHARE_INV, ENV_MEASURE, ENV_COUNT_OF(1, HISTO_EYE_SAMPLES), \
      "N: a cell joins the eye window with 1/N of the samples (eye "        \
      "strategies)")                                                        \
    X(HISTO_EYE_BUCKET_CAP, ENV_MEASURE, ENV_COUNT_OF(0, 1 << 28),          \
      "entries a bucket's area holds (eye_tile_2d); 0: no buckets")         \
    X(HISTO_TEST_2D_MIN_VALUES, ENV_TEST, ENV_COUNT_OF(1, UINT32_MAX),      \
      "values from which eye_tile_2d runs")                                 \
    X(HISTO_TEST_NARROW_MIN_VALUES, ENV_TEST, ENV_COUNT_OF(1, UINT32_MAX),  \
      "values from which 8-bit tiles may be chosen")                        \
    X(HISTO_TEST_TILE_GROUP, ENV_TEST,                                      \
      ENV_COUNT_OF(1, HISTO_TILE_GROUP_BOUND),                              \
      "the tile kernels' work-group size, unchecked")                       \
    X(HISTO_TEST_MAX_GROUP, ENV_TEST,                                       \
      ENV_COUNT_OF(1, 65536), "the largest work-group size used")           \
    X(HISTO_TEST_DEVICES_USED, ENV_TEST, ENV_COUNT_OF(1, 16),               \
      "the devices --device all uses, after measuring each count")          \
    X(HISTO_TEST_HOST_BYTES, ENV_TEST, ENV_COUNT_OF(1, 1ull << 50),         \
      "the host memory --device all takes as available")                    \
    X(HISTO_TEST_SETS, ENV_TEST,                                            \
      ENV_COUNT_OF(1, 16), "buffer sets of the streamed pipeline")          \
    X(HISTO_TEST_PROFILE_EVERY, ENV_TEST, ENV_COUNT_OF(1, 1 << 20),         \
      "iterations between profiled ones")                                   \
    X(HISTO_TEST_LAST_PLAIN, ENV_TEST, ENV_COUNT_OF(1, 1),                  \
      "1: the last iteration unprofiled")                                   \
    X(HISTO_TEST_CPU_COMMANDS, ENV_TEST, ENV_COUNT_OF(1, 2),                \
      "the cpu strategy's commands an iteration of several batches: 1 "     \
      "(also without a fence of device scope), 2")

enum env_var {
#define ENV_ID(id, use, bounds, help) ENV_##id,
    HISTO_ENV_VARS(ENV_ID)
#undef ENV_ID
        ENV_COUNT
};

struct env_entry {
    const char *name;
    enum env_use use;
    struct env_bounds bounds;
    const char *help;
};

extern const struct env_entry env_table[ENV_COUNT];

/* The variable's value, or NULL where it is unset or empty. */
const char *env_value(enum env_var v);

/* A number variable's value within its row's bounds into *value (left
 * as it is where the variable is unset or empty). Returns 0, or, with a
 * message naming the bounds, HISTO_EXIT_USAGE. */
int env_number(enum env_var v, double *value);

/* Every number variable set checked against its bounds, so that a bad
 * value stops the run before anything is read, whether or not the run
 * would read it. Returns 0 or, with a message, HISTO_EXIT_USAGE. */
int env_check(void);

/* env_number for a whole-number variable: *value 0 where unset. */
int env_whole(enum env_var v, unsigned long *value);

/* --help's environment sections, from the table. */
void env_usage(FILE *f);

/* histo.out's environment.* lines. */
void env_report(FILE *f);

#endif
