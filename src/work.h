/*
 * work.h - where an iteration's values are and who counts them.
 *
 * The input is split into shares, one per device named by --device (one
 * share for one device), in proportion to the devices' compute units. A
 * share is split into chunks of at most WORK_MAX_CHUNK_VALUES values and
 * at most the device's largest allocation, each counted by the strategy
 * as an input of its own (one strategy state per chunk length, bound to
 * each chunk in turn); the chunks'
 * 8-bit histograms are added with saturation (kernels/combine.cl), and the
 * shares' on the first device, so the result is the sequential one byte
 * for byte whatever the split.
 *
 * With several devices no command waits on another device's event
 * (the host enqueues such a command slowly: gather.c, host_wait):
 * each other share's sum goes to its part of pinned host memory on a
 * queue of its own, and once the host has seen every such copy done all
 * are copied into a landing buffer on the first device in one copy and
 * added there in one pass, on a queue of its own. The sums, the host
 * memory and the landing buffers come in WORK_SETS sets (iteration i
 * uses set i % WORK_SETS), so the moving and adding of iteration i run
 * while the iterations after it count; and consecutive iterations not
 * profiled, up to WORK_GATHER_SETS in a block of that many sets, move
 * together: one copy a sending share to host memory, one copy into the
 * first device and one addition for them all, each set a run of its own
 * in one buffer a block. A profiled iteration moves alone, so its events
 * time one iteration's copies and addition. One host thread enqueues
 * everything: NVIDIA's OpenCL serialises enqueues from several threads,
 * and each took longer than from one. Every iteration still makes a
 * whole histogram from zero in its own set; the last one is read back.
 *
 * `--device all` may use fewer devices than it names (choose.h): the
 * fill then puts the whole input on the first device, and work_reshare
 * splits it over all of them within the context of all, share 0
 * counting a prefix of the first device's buffers and the others'
 * values copied there from them through host memory. For fewer devices
 * the input, read back once into host memory (work_hold), fills work
 * made again over them alone, in a context of their own
 * (work_recontext): the file is read once, whatever it is.
 *
 * A share is resident when its values fit the device budget (--device-
 * budget, else 7/8 of the device's global memory): its chunks are device
 * buffers filled once, while the file is read, through a bounded staging
 * buffer, so that host memory never holds the whole input. Otherwise it
 * is streamed: its chunks stay in host memory (pinned where the
 * implementation gives it) and every iteration copies them, one at a time,
 * into two device buffers, the copy of chunk k+1 (on a queue of its own)
 * overlapping the counting of chunk k.
 */
#ifndef HISTO_WORK_H
#define HISTO_WORK_H

#include "device.h"
#include "input.h"
#include "run.h"
#include "strategy.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Kernels index a chunk's values with 32-bit integers and step past its
 * end by up to a work-group: a chunk holds at most 2^31 values. */
#define WORK_MAX_CHUNK_VALUES (UINT64_C(1) << 31)
#define WORK_MAX_SHARES 16

struct work_options {
    uint64_t device_budget; /* --device-budget bytes, 0 = 7/8 of memory  */
    uint64_t chunk_values;  /* --chunk-values, 0 = the largest allowed    */
};

/* The work: opaque outside the work files (work_state.h). */
struct work;

/* An empty work for work_plan, or NULL (said why); work_destroy frees
 * it and all it holds. */
struct work *work_create(void);
void work_destroy(struct work *w);

/* Splits the input among the devices (ndevices >= 1, of one platform) and
 * each share into chunks; checks that the histogram fits each device.
 * With `whole_first` and several devices, the whole input goes to the
 * first device where its budget holds it resident (w->whole), to be
 * split later by work_reshare; else every device takes a share. No
 * OpenCL object is made. Returns 0 or an exit status. */
int work_plan(struct work *w, const struct device_info *const *devices,
              size_t ndevices, const struct histo_input *input,
              const struct work_options *options, bool whole_first);

/* With w->whole, after work_setup: the input split over the first
 * `nshares` devices instead (1 <= nshares <= ndevices), every queue
 * finished first; share 0 counts a prefix of the first device's
 * buffers, the other shares' values are copied from them through host
 * memory; states, sums and events are made again with work_setup's
 * knobs. Returns 0 or an exit status. */
int work_reshare(struct work *w, size_t nshares);

/* With work_can_reshare: the whole input read back from the first device
 * into host memory, where work_recontext fills from; *held false (and
 * nothing held) where it would take more than half the host memory
 * available, or cannot be allocated. Returns 0 or an exit status. */
int work_hold(struct work *w, bool *held);

/* After work_hold and work_setup: the work made again over the first m
 * devices work_plan was given (1 <= m), in a context of those devices
 * alone: each probed and built the strategy again, the shares filled
 * from the held input and set up with work_setup's knobs. The held
 * input stays (work_unhold frees it). Returns 0 or an exit status. */
int work_recontext(struct work *w, size_t m);

/* The held input freed (work_destroy frees it too). */
void work_unhold(struct work *w);

/* A context over the devices and queues on each. Returns 0 or an exit
 * status. */
int work_open(struct work *w, cl_platform_id platform);

/* Builds the combine kernel and kernels/probe.cl for every device and
 * measures its loop limit (work_share.loop_limit), which the default
 * strategy and every plan depend on; shares[0..*n) say what
 * strategy_choose needs of each device (n at most WORK_MAX_SHARES). */
int work_probe(struct work *w, const char *kernel_dir,
               struct strategy_share *shares, size_t *n);

/* Builds the strategy's kernels for every share (after work_probe). */
int work_build(struct work *w, const struct strategy *strategy,
               const char *kernel_dir);

/* What work_fill spent beside reading: writing to the devices, and
 * counting the values into the check's histogram. */
struct work_fill_times {
    double upload_s, expect_s;
};

/* Reads the rest of the input from `stream` into the shares' chunks (to
 * the device or into host memory), then checks its end; every value read
 * is counted into `expect` (nbins zeros the caller made; NULL: none). */
int work_fill(struct work *w, struct input_stream *stream, uint8_t *expect,
              struct work_fill_times *times);

/* The strategy environment of share 0's first chunk, for --tune, which
 * measures there (a resident chunk only). Returns 0, or an exit status
 * when share 0 is streamed. */
int work_tune_env(const struct work *w, struct strategy_env *env);

/* One strategy state per slot, with the knobs in `base` (its context,
 * queue, program, buffer and input are set per share and slot). */
int work_setup(struct work *w, const struct strategy_env *base);

/* The loop's plan of one iteration (valid while w lives). */
void work_run_plan(struct work *w, struct run_plan *plan);

/* Reads the final histogram (nbins bytes). */
int work_download(struct work *w, uint8_t *histo);

/* Over all shares: the chunks, whether any share is streamed or
 * resident, and whether every streamed one has pinned host chunks. */
struct work_totals {
    size_t chunks;
    bool streamed, resident, pinned;
};
struct work_totals work_totals(const struct work *w);

/* Host commands, counted where the work and the strategies make them,
 * by kind: those enqueued first (kernel launches, copies, fills, markers
 * and barriers: up to WORK_ENQUEUED), then the host's flushes and waits
 * (clWaitForEvents and clFinish of the work's queues; the timed loop's
 * own reading of its events, one wait a batch of 32, is not among
 * them). */
enum work_command {
    WORK_LAUNCHES,
    WORK_COPIES,
    WORK_FILLS,
    WORK_MARKERS,
    WORK_ENQUEUED, /* the kinds above are enqueued, those below not */
    WORK_FLUSHES = WORK_ENQUEUED,
    WORK_WAITS,
    WORK_COMMAND_KINDS
};
struct work_commands {
    unsigned long n[WORK_COMMAND_KINDS];
};

/* What histo.out and the summary say of one share. */
struct work_share_info {
    const struct device_info *device;
    size_t first, count;       /* its values: input[first, first+count) */
    size_t chunk_values, nchunks;
    bool streamed;
    uint32_t loop_limit;       /* 0: none seen                          */
    struct work_commands commands; /* between work_count_start and
                                  work_count_stop: the share's device's */
};

/* The host commands counted from now on (work_count_start) up to now
 * (work_count_stop), which work_share_info then gives per share; the
 * timed loop's. */
void work_count_start(struct work *w);
void work_count_stop(struct work *w);

/* How many shares the input is split into (at least 1 once planned). */
size_t work_nshares(const struct work *w);
/* The sets of partial sums in flight (several shares; else 0). */
size_t work_nsets(const struct work *w);
/* The most iterations not profiled whose partial sums move and add up
 * together (several shares of which one sends; else 0). */
size_t work_gather_sets(const struct work *w);

/* Why a device's timestamps cannot time the iterations, as its loop
 * probe found before any was run (the first share's that says so), or
 * NULL. */
const char *work_clock_unusable(const struct work *w);

/* How many devices it was planned over (shares or not). */
size_t work_ndevices(const struct work *w);

/* Whether work_reshare can split the input again (w->whole). */
bool work_can_reshare(const struct work *w);

/* Share s (s < work_nshares(w)). */
struct work_share_info work_share_info(const struct work *w, size_t s);

/* The first state, whose configuration histo.out reports. */
const void *work_first_state(const struct work *w);

/* Peak resident set size of this process in bytes, 0 if unknown. */
uint64_t work_peak_rss(void);

#endif
