/*
 * strategy.h - the device strategies: what a strategy is (struct
 * strategy), what the strategies share (strategy.c) and the table that
 * lists them and chooses among them (strategies.c). The dependency goes
 * one way: the table knows the strategies, and they know only
 * strategy.c.
 *
 * A strategy is one way of computing the histogram on a device: its own
 * source and kernel files plus one row in strategies.c's table (its help
 * and its rank, where --strategy auto may choose it). Every
 * strategy must give the same bytes as reference.c for every valid input.
 * The run loop (run.c) only sees this interface: it enqueues one iteration
 * at a time and times the events each iteration returns, one per kernel.
 *
 * A strategy counts one chunk of the input: env->values holds the chunk's
 * env->input->nvalues values (at most 2^31, work.h). The buffer belongs
 * to the caller (work.c), which sets up one state per chunk length, binds
 * it to each chunk in turn and adds the chunks' histograms up itself;
 * histo --tune sets the strategy up once per candidate on the same
 * buffer. A strategy only reads it; everything it computes from the
 * input lives in its own state and starts anew with every iteration.
 */
#ifndef HISTO_STRATEGY_H
#define HISTO_STRATEGY_H

#include "device.h"
#include "env.h"
#include "input.h"
#include "knobs.h"
#include "program.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define STRATEGY_MAX_KERNELS 4

struct strategy_env {
    cl_context context;
    cl_command_queue queue;
    cl_program program;       /* built with the strategy's defines()    */
    const char *kernel_dir;   /* where program's sources came from      */
    const struct device_info *device;
    uint32_t loop_limit;      /* the device ends a work-item's loops after
                                 this many iterations (kernels/probe.cl),
                                 0: it does not; plans stay below it   */
    const struct histo_input *input; /* sizes: nvalues is the chunk's */
    cl_mem values;      /* the chunk's values on the device (read only) */
    struct knob_values knobs; /* 0: the strategy decides (knobs.h)     */
    unsigned long *launches;  /* NULL, or where each kernel launch an
                                 enqueue makes is counted (histo.out's
                                 commands.*)                           */
};

/* One device of the run as strategy_choose weighs it: the device, its
 * loop limit (kernels/probe.cl; 0: none), the histogram's bins and the
 * most values a device counts (the largest share's; the whole input's
 * where the first device holds it all). */
struct strategy_share {
    const struct device_info *device;
    uint32_t loop_limit;
    uint64_t nbins, nvalues;
};

struct strategy {
    const char *name;
    unsigned knobs;               /* the knobs it honours: KNOB_BITs   */
    const char *const *sources;   /* files in kernels/, built together */
    size_t nsources;
    const char *const *kernels;   /* kernel names, in launch order     */
    size_t nkernels;
    /* -D options of the kernels that depend on the device and its loop
     * limit (kernels/probe.cl; 0: none), as alternatives tried in order
     * (program_build()); NULL: none. Returns 0 or an exit status. */
    int (*defines)(const struct device_info *device, uint32_t loop_limit,
                   struct program_defines *defines);
    /* Whether --strategy auto may run it on the share: its design suits
     * the device's memory and its plans hold within the device's loop
     * limit for this input. NULL: never by default, only when named. */
    bool (*fits)(const struct strategy_share *share);
    /* Plans from the device and input, creates kernels and buffers,
     * retains env->values for as long as the state lives; may enqueue
     * fills on env->queue (strategy_setup waits for them). */
    int (*setup)(const struct strategy_env *env, void **state);
    /* Enqueues one whole iteration; events[k] belongs to kernels[k]. A
     * kernel the plan does not launch (cpu's merge of one batch) gets the
     * event of the kernel before it again, retained: every slot holds an
     * event to wait on and release, and the times count it once. */
    int (*enqueue)(void *state, cl_command_queue queue, cl_event *events);
    /* Optional (NULL where not offered): the same iteration with an event
     * for its last kernel alone (*last), for an iteration that is not
     * profiled: an enqueue with an event cost NVIDIA's OpenCL several
     * microseconds of host time more than one without (docs/design.md). */
    int (*enqueue_last)(void *state, cl_command_queue queue, cl_event *last);
    /* Reads the final histogram (nbins bytes) back (blocking), with what
     * report() needs. */
    int (*download)(void *state, cl_command_queue queue, uint8_t *histo);
    /* The buffer (nbins bytes) each iteration leaves the histogram in;
     * kernels read it (combine.cl), so it is not CL_MEM_WRITE_ONLY. */
    cl_mem (*output)(const void *state);
    /* Counts `values` from the next enqueue on: a chunk of the same
     * length as the one set up (the plan depends on the length only), so
     * that chunks of one length share a state. */
    int (*bind)(void *state, cl_mem values);
    /* Optional (NULL where not offered): from the next enqueue on, the
     * iteration leaves the histogram in `out` (nbins bytes, the caller's,
     * alive while bound; every bin written each iteration, and written
     * by the enqueue's last kernel alone) instead of its own buffer, or
     * in its own again for NULL; output() names the one in use. Saves
     * the caller a copy where it keeps several iterations' histograms. */
    int (*bind_output)(void *state, cl_mem out);
    /* Writes "key = value" lines of configuration and results. */
    void (*report)(const void *state, FILE *f);
    /* Optional (NULL: it honours no knob): the knobs it used, what the
     * run set or the strategy chose (after download: some are chosen on
     * the device), over a `used` whose every knob the caller set to -1. */
    void (*used)(const void *state, struct knob_used *used);
    /* One line for the console summary (no newline). */
    void (*summary)(const void *state, FILE *f);
    void (*release)(void *state);
};

/* strategy->setup, then waits for the fills it enqueued, so that the
 * first timed iteration does not pay for them. On a failure *state is
 * NULL and nothing is left to release. Returns 0 or an exit status. */
int strategy_setup(const struct strategy *strategy,
                   const struct strategy_env *env, void **state);

/* Shared by the strategies' bind: holds `values` (retained) in *held,
 * releasing the buffer held before, and makes it argument 0 of kernel.
 * Returns 0 or an exit status. */
int strategy_bind_values(cl_mem *held, cl_kernel kernel, cl_mem values);

/* Shared by the strategies' release: releases the kernels and buffers
 * that exist (NULLs are skipped). */
void strategy_release_objects(const cl_kernel *kernels, size_t nkernels,
                              const cl_mem *mems, size_t nmems);

/* What a strategy of a few kernels over one scratch buffer holds (cpu,
 * global), the first member of its state so that the strategy_buffers_
 * functions below serve as its enqueue, bind, output, download and
 * release: its kernels, launched in order, kernel k over global[k]
 * work-items in groups of local[k] (the strategy's setup sets them);
 * the values (retained; argument 0 of kernel[0]); the scratch buffer
 * (cpu: private histograms; global: 32-bit counters), zero at setup and
 * left zero by every iteration; and the output histogram. */
struct strategy_buffers {
    cl_kernel kernel[STRATEGY_MAX_KERNELS];
    size_t nkernels;
    size_t global[STRATEGY_MAX_KERNELS], local[STRATEGY_MAX_KERNELS];
    cl_mem values, scratch, histo;
    size_t nbins;
    unsigned long *launches;   /* env->launches                         */
};

/* Creates the named kernels (at most STRATEGY_MAX_KERNELS) from
 * env->program, retains env->values, creates the scratch buffer of
 * scratch_bytes (a multiple of 4), filled with zeros on env->queue, and
 * the output histogram of env->input->nbins bytes. What it made before a
 * failure stays in *b for the release. Returns 0 or an exit status. */
int strategy_buffers_create(struct strategy_buffers *b,
                            const struct strategy_env *env,
                            const char *const *kernels, size_t nkernels,
                            size_t scratch_bytes);

/* A state that starts with struct strategy_buffers: its enqueue (each
 * kernel once, events[k] for kernel k), enqueue_last, bind (kernel[0] counts `values`),
 * output, download (blocking) and release (its objects, then the state
 * itself; NULL is nothing). */
int strategy_buffers_enqueue(void *state, cl_command_queue queue,
                             cl_event *events);
int strategy_buffers_enqueue_last(void *state, cl_command_queue queue,
                                  cl_event *last);
int strategy_buffers_bind(void *state, cl_mem values);
cl_mem strategy_buffers_output(const void *state);
int strategy_buffers_download(void *state, cl_command_queue queue,
                              uint8_t *histo);
void strategy_buffers_release(void *state);

/* The members of a struct strategy that the functions above fill. */
#define STRATEGY_BUFFERS_METHODS                                           \
    .enqueue = strategy_buffers_enqueue,                                   \
    .enqueue_last = strategy_buffers_enqueue_last,                         \
    .download = strategy_buffers_download,                                 \
    .output = strategy_buffers_output, .bind = strategy_buffers_bind,      \
    .release = strategy_buffers_release

/* The largest one-dimensional work-group the device runs of any kernel:
 * CL_DEVICE_MAX_WORK_GROUP_SIZE and CL_DEVICE_MAX_WORK_ITEM_SIZES[0], at
 * most $HISTO_TEST_MAX_GROUP (test-only: kernels in tiny groups on any
 * device, docs/testing.md). Returns 0 or an exit status. */
int strategy_device_group_limit(const struct device_info *device,
                                size_t *limit);

/* A kernel's work-group size: `want`, at most what the kernel reports
 * (CL_KERNEL_WORK_GROUP_SIZE, into *kernel_limit unless NULL) and the
 * device group limit above; at least 1. Returns 0 or an exit status. */
int strategy_group_size(const struct device_info *device, cl_kernel kernel,
                        size_t want, size_t *size, size_t *kernel_limit);

/* Iterations a plan lets one work-item make on a device that ends loops
 * after `limit` (its count of iterations includes every loop of the
 * kernel, so the share for the strategies' main loops leaves room for
 * the others). */
#define STRATEGY_LOOP_SHARE(limit) ((limit) / 2)

/* Groups of `group` work-items striding over `items` things: `per_cu`
 * a compute unit of `device`, no more than the things need, raised
 * where needed so that none makes more than STRATEGY_LOOP_SHARE(limit)
 * strides (limit 0: no limit); at least 1. */
uint64_t strategy_stride_groups(const struct device_info *device,
                                uint64_t per_cu, uint64_t items, size_t group,
                                uint32_t limit);

/* The table (strategies.c), for the rest of histo; no strategy calls
 * it. */

/* What a run computes with. */
struct strategy_choice {
    const struct strategy *run;        /* what every share runs        */
    const struct strategy *by_default; /* the devices' own, what
                                          --strategy auto runs; NULL
                                          where they differ            */
};

/* The strategy `requested` names (NULL: auto), else the default: for
 * each share the first strategy by the table's rank that fits it
 * (global fits every share), and every share must come to the same one.
 * Where they do not and none is requested, says so, naming two devices
 * and their strategies. Returns 0 or HISTO_EXIT_USAGE. */
int strategy_choose(const char *requested,
                    const struct strategy_share *shares, size_t nshares,
                    struct strategy_choice *choice);

/* The strategy of that name, or NULL. */
const struct strategy *strategy_find(const char *name);

/* The one check of a --strategy name: HISTO_OK for auto or a strategy
 * of the table, else the message naming them and HISTO_EXIT_USAGE. */
int strategy_name_check(const char *name);

/* The names of all strategies, ", "-separated, for messages and --help. */
const char *strategy_names(void);

/* --list-strategies: every strategy's name, one a line, in the table's
 * order (what scripts and tests read); HISTO_OK, or HISTO_EXIT_INTERNAL
 * where f cannot be written. */
int strategy_list(FILE *f);

/* --help's text for --strategy, one paragraph from the table's rows:
 * each strategy and its phrase, then auto's order and where it picks
 * each. */
const char *strategy_help(void);

/* A row of strategies.c's table: the strategy (its name, knobs, sources
 * and kernels are its own file's), what it is and, for --strategy auto,
 * its rank (1 tried first; 0: run only when named, and then it has no
 * fits()) and where auto picks it. Phrases for --help, one line each. */
struct strategy_row {
    const struct strategy *strategy;
    const char *help;
    unsigned rank;
    const char *picked;
};

/* Checks rows (a unique name other than auto, a help phrase, sources and
 * 1 to STRATEGY_MAX_KERNELS kernels, a unique rank exactly where fits()
 * is given, where auto picks it, ranks without gaps); writes a line
 * naming the row and the missing step to f for each wrong one. Returns
 * 0 when every row is whole. strategy_table_check: strategies.c's own. */
int strategy_rows_check(const struct strategy_row *rows, size_t n, FILE *f);
int strategy_table_check(FILE *f);

#endif
