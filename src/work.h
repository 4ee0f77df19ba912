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
 * (enqueuing one that did cost NVIDIA's OpenCL 16-20 us of host time):
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
/* Streamed chunks hold at most this many values by default (128 MiB):
 * small enough that the first copy and the last count, which cannot
 * overlap anything, are a small part of an iteration. */
#define WORK_STREAM_CHUNK_VALUES (UINT64_C(1) << 25)

/* Chunks a share may have, and past which a warning says the chunks, not
 * the counting, may take the time: every chunk costs launches and events
 * of its own and a pass of the combine over the whole histogram
 * (docs/design.md). At the default streamed chunk the cap is 2^41
 * values. */
#define WORK_MAX_CHUNKS (UINT64_C(1) << 16)
#define WORK_WARN_CHUNKS (UINT64_C(1) << 12)
#define WORK_SMALL_CHUNK_VALUES (UINT64_C(1) << 20)
/* Values copied to the device at a time while the file is read. */
#define WORK_STAGING_VALUES ((size_t)1 << 22)
#define WORK_MAX_SHARES 16
/* Iterations whose partial histograms may be on their way between
 * devices at once, and so how far the host may enqueue ahead of the
 * devices. A set is used again nsets iterations later, once its sums
 * went through host memory, WORK_GATHER_SETS iterations at a time: a 2
 * MiB partial took 40 us each way on two H200s (transfer-probe), so the
 * first set of a batch of 4 waits for 3 more iterations of counting and
 * 4 copies each way; by arithmetic, 16 sets hide that down to about 28
 * us an iteration, 8 only down to about 82 (docs/design.md). With 4
 * sets and no batches, the host's pauses every 32 iterations (reading
 * their times) left four H200s idle 48 us an iteration of 1.07G
 * values. */
#define WORK_SETS 16
/* The most bytes a share's sets of sums take: WORK_SETS of the
 * workload's 2 MiB histograms, fewer of a larger one (4 of 16 MiB), down
 * to 2 (the first device holds as many landing parts a sending share,
 * and pinned host memory the same). */
#define WORK_SETS_BYTES (UINT64_C(64) << 20)
/* Consecutive iterations not profiled whose sums move and add up
 * together, with several shares: each sending share copies their sums
 * to host memory in one copy, and the first device takes them all in
 * one copy and adds them in one launch; a copy cost NVIDIA's OpenCL
 * 9.4-10.8 us of host time, a kernel on a queue without profiling
 * 6.2-9.8 (transfer-probe on four and on two H200s). A divisor of
 * WORK_SETS: batches never wrap from the last set to the first. */
#define WORK_GATHER_SETS 4
/* Iterations whose events are remembered for their gather, enqueued an
 * iteration later (run.c keeps two batches of 32 in flight). */
#define WORK_RING 256
/* With several shares, one iteration in this many is profiled (and the
 * last of each batch, run.h): the others go to queues without profiling
 * and enqueue only the events a queue or the host waits on (each share's
 * sum, its copy to host memory, the addition of all on the first
 * device), not one a command. On NVIDIA's OpenCL an event cost the host
 * 7 us on a queue with profiling, 1.5 on one without, and the host's
 * enqueuing paced several GPUs below 268M values (docs/design.md).
 * HISTO_TEST_PROFILE_EVERY=N sets it (1: every iteration). */
#define WORK_PROFILE_EVERY 32

struct work_options {
    uint64_t device_budget; /* --device-budget bytes, 0 = 7/8 of memory  */
    uint64_t chunk_values;  /* --chunk-values, 0 = the largest allowed    */
};

/* A strategy state for the chunks of one length (bound to each in turn:
 * the plan depends on the length only). */
struct work_slot {
    size_t buffer;             /* the buffer it is set up on             */
    struct histo_input view;   /* the input's sizes, nvalues the chunk's */
    void *state;
};

/* Buffers of several shares, one part of `pitch` bytes a set, in blocks
 * of gather_sets sets (work.gather_sets): one buffer a block, and a
 * sub-buffer for every run of consecutive sets within a block, so that
 * each command names only the sets it uses (OpenCL leaves undefined the
 * use of a buffer and its sub-buffers at once, and of overlapping
 * sub-buffers while one is written). */
struct work_runs {
    cl_mem block[WORK_SETS];
    cl_mem run[WORK_SETS][WORK_GATHER_SETS]; /* [first set][sets - 1]   */
};

struct work_share {
    const struct device_info *device;
    cl_command_queue queue;    /* counting (and filling)                */
    cl_command_queue copy;     /* streamed: the copies to the device    */
    cl_program program;        /* the strategy's kernels                */
    cl_program combine_program;
    cl_kernel combine;
    size_t combine_items;
    uint32_t loop_limit;       /* iterations after which the device ends
                                  a work-item's loops (kernels/probe.cl),
                                  0: none seen                          */
    const char *clock_unusable; /* why the loop probe's event says the
                                  device's timestamps cannot time the
                                  iterations, or NULL                   */
    size_t first, count;       /* its values: input[first, first+count) */
    size_t chunk_values, nchunks;
    bool streamed;
    bool pinned;               /* streamed: host chunks are pinned      */
    cl_mem *buffers;           /* resident: nchunks; streamed: 2        */
    size_t nbuffers;
    uint32_t **host;           /* streamed: each chunk in host memory   */
    cl_mem *host_mem;          /* ... in these mapped buffers (pinned)  */
    struct work_slot *slots;
    size_t nslots;
    size_t *chunk_slot;        /* [chunk]: its slot                     */
    cl_mem acc[WORK_SETS];     /* the share's sum of chunks (or NULL):
                                  one, or with several shares one per
                                  set: accs.run[set][0], retained       */
    cl_event buffer_free[2];   /* streamed: when each buffer may be
                                  written again                         */
    /* Several shares. Every share: `move` copies its sum to host memory
     * (shares 1..); the first's `gather` copies those into its device
     * and adds them up (with `parts`). Per buffer set: the host memory
     * a share's sum goes through, and the last events that used each
     * (NULL before any). */
    cl_command_queue move;
    cl_command_queue gather;
    /* Several devices: the same queues without profiling, for the
     * iterations not profiled (an event on a queue with profiling cost
     * NVIDIA's OpenCL 7 us of host time, on one without 1.5), and the
     * counting queue the last iteration used (a switch waits for it). */
    cl_command_queue plain, plain_move, plain_gather;
    cl_command_queue counted_on;
    bool sent_seen[WORK_SETS];         /* sent[set] seen complete       */
    cl_kernel parts;
    struct work_runs accs;             /* several shares: acc's sets     */
    uint8_t *host_part[WORK_SETS];     /* its part of work.parts[set]   */
    cl_event summed[WORK_SETS];        /* the iteration's sum in acc[set] */
    cl_event sent[WORK_SETS];          /* acc[set] copied to
                                          host_part[set] (with the rest
                                          of its batch)                 */
    size_t ev_send;            /* that copy's place in an iteration's
                                  events                                */
};

struct work {
    const struct strategy *strategy;
    const struct histo_input *input;
    struct work_options options;
    size_t ndevices;           /* devices named: shares[d].device, each
                                  with its queues and programs; the first
                                  nshares of them have a share          */
    bool whole;                /* share 0's buffers hold the whole input
                                  (work_reshare may split it)           */
    struct strategy_env base;  /* work_setup's knobs and paths          */
    cl_context context;
    cl_platform_id platform;   /* the context's (work_open)             */
    /* The devices work_plan was given, whether or not each has a share
     * now (work_recontext plans over the first m of them). */
    const struct device_info *named[WORK_MAX_SHARES];
    size_t nnamed;
    uint32_t *held;            /* NULL, or the whole input in host
                                  memory (work_hold)                    */
    unsigned long enqueued;    /* iterations enqueued                   */
    /* Several shares: the first device's landing buffers (a part of
     * `stride` bytes for each sending share, set_pitch bytes a set), the
     * last addition of each set into share 0's sum, the iterations
     * gathered, and the event arrays of the last WORK_RING iterations. */
    struct work_runs landing;
    cl_event gathered[WORK_SETS];
    bool gathered_seen[WORK_SETS];  /* gathered[set] seen complete    */
    size_t nsets;              /* sets in use: WORK_SETS, fewer where
                                  WORK_SETS_BYTES holds fewer of the
                                  histogram, or HISTO_TEST_SETS (tests:
                                  every set used again in few
                                  iterations)                           */
    size_t gather_sets;        /* sets a batch at most: WORK_GATHER_SETS,
                                  cut to a divisor of nsets             */
    unsigned long gathered_n;
    /* The batch being made: iterations counted, not profiled, whose
     * sums have not been copied to host memory yet (open_n of them from
     * open_first on); and at each batch's first set, its iterations. */
    unsigned long open_first;
    size_t open_n;
    size_t batch_n[WORK_SETS];
    cl_mem parts_mem[WORK_SETS]; /* per block: the sending shares' sums
                                  in host memory, as in landing (pinned:
                                  mapped ALLOC_HOST_PTR)                */
    uint8_t *parts[WORK_SETS];  /* per set: its place in them            */
    size_t ev_land;            /* the copy of them all into landing: its
                                  place in an iteration's events        */
    cl_event *ring[WORK_RING]; /* NULL: an iteration not profiled   */
    cl_event *scratch;         /* such an iteration's few events (those
                                  waited on), nevents places           */
    unsigned long profile_every; /* WORK_PROFILE_EVERY, or the test's */
    bool last_plain;           /* HISTO_TEST_LAST_PLAIN: run_plan's     */
    size_t nsending;
    size_t stride;             /* bytes a sum takes in a block: nbins to
                                  a multiple of 64 and of every device's
                                  CL_DEVICE_MEM_BASE_ADDR_ALIGN (a
                                  sub-buffer's start)                   */
    size_t set_pitch;          /* bytes a set takes in landing and
                                  parts: nsending * stride              */
    double waited_s;           /* the host's waits for devices in them  */
    bool parts_pinned;         /* every host_part is pinned memory      */
    size_t nshares;
    struct work_share shares[WORK_MAX_SHARES];
    struct run_tag *tags;      /* one iteration's events                */
    double upload_s;           /* work_fill's writes to the device      */
    uint8_t *expect;           /* NULL, or nbins zeros the caller made:
                                  work_fill counts every value it reads
                                  into it (the check's host histogram)  */
    double expect_s;           /* ... the time that took                */
    size_t nevents;
};

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

/* With w->whole: the whole input read back from the first device into
 * host memory (w->held), where work_recontext fills from. Returns 0 or
 * an exit status (host memory short included). */
int work_hold(struct work *w);

/* After work_hold and work_setup: the work made again over the first m
 * devices work_plan was given (1 <= m), in a context of those devices
 * alone: each probed and built the strategy again, the shares filled
 * from the held input (not counted into w->expect again) and set up with
 * work_setup's knobs. The held input stays (work_unhold frees it), as
 * do expect and the first fill's times. Returns 0 or an exit status. */
int work_recontext(struct work *w, size_t m);

/* The held input freed (work_release frees it too). */
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

/* Reads the rest of the input from `stream` into the shares' chunks (to
 * the device or into host memory), then checks its end; upload_s is the
 * time spent writing to the device, expect_s the time spent counting the
 * values into w->expect where it is set. */
int work_fill(struct work *w, struct input_stream *stream);

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

/* What histo.out and the summary say of one share. */
struct work_share_info {
    const struct device_info *device;
    size_t first, count;       /* its values: input[first, first+count) */
    size_t chunk_values, nchunks;
    bool streamed;
    uint32_t loop_limit;       /* 0: none seen                          */
};

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

void work_release(struct work *w);

#endif
