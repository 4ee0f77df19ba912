/*
 * work_state.h - the work's state, which the work files (work.c,
 * work_plan.c, probe.c, fill.c, gather.c) share and nothing else
 * includes (struct work is opaque outside them: work.h): its limits,
 * its structs, small helpers and the functions one of them calls in
 * another.
 */
#ifndef HISTO_WORK_STATE_H
#define HISTO_WORK_STATE_H

#include "work.h"

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
/* Iterations whose partial histograms may be on their way between
 * devices at once, and so how far the host may enqueue ahead of the
 * devices. A set is used again nsets iterations later, once its sums
 * went through host memory, WORK_GATHER_SETS iterations at a time: the
 * first set of a batch of 4 waits for 3 more iterations of counting and
 * 4 copies each way, which 16 sets hide and 8 do not; with fewer sets
 * the devices idle while the host reads times every 32 iterations
 * (docs/design.md, "Chunks, streaming and several devices"). */
#define WORK_SETS 16
/* The most bytes a share's sets of sums take: WORK_SETS of the
 * workload's 2 MiB histograms, fewer of a larger one (4 of 16 MiB), down
 * to 2 (the first device holds as many landing parts a sending share,
 * and pinned host memory the same). */
#define WORK_SETS_BYTES (UINT64_C(64) << 20)
/* Consecutive iterations not profiled whose sums move and add up
 * together, with several shares: each sending share copies their sums
 * to host memory in one copy, and the first device takes them all in
 * one copy and adds them in one launch: fewer commands, each of which
 * costs the host time (docs/design.md, "Chunks, streaming and several
 * devices"). A divisor of WORK_SETS: batches never wrap from the last
 * set to the first. */
#define WORK_GATHER_SETS 4
/* Iterations whose events are remembered for their gather, enqueued an
 * iteration later (run.c keeps two batches of 32 in flight). */
#define WORK_RING 256
/* With several shares, one iteration in this many is profiled (and the
 * last of each batch, run.h): the others go to queues without profiling
 * and enqueue only the events a queue or the host waits on (each share's
 * sum, its copy to host memory, the addition of all on the first
 * device), not one a command: an event costs the host time, most on a
 * queue with profiling, and the host's enqueuing paces several GPUs
 * (docs/design.md, "Chunks, streaming and several devices").
 * HISTO_TEST_PROFILE_EVERY=N sets it (1: every iteration). */
#define WORK_PROFILE_EVERY 32

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
    size_t combine_items;      /* the combines' work-items (a multiple of
                                  combine_local)                        */
    size_t combine_local;      /* their work-group: given, not left to the
                                  runtime, which picks by the global size
                                  (PoCL then builds the kernel again for
                                  each group size it picks)             */
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
     * iterations not profiled (an event costs the host more on a queue
     * with profiling: WORK_PROFILE_EVERY), and the counting queue the
     * last iteration used (a switch waits for it). */
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
    /* The host commands made on its device so far (its strategy states
     * count their launches here: strategy_env.launches), and those
     * between work_count_start and work_count_stop. */
    struct work_commands commands, count_base, counted;
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
    uint8_t *expect;           /* during work_fill: NULL, or the check's
                                  histogram, every value read counted   */
    double expect_s;           /* ... the time that took                */
    size_t nevents;
};

static inline uint64_t min64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* Chunk c's values in a share. */
static inline size_t chunk_length(const struct work_share *sh, size_t c)
{
    const size_t start = c * sh->chunk_values;
    return min64(sh->chunk_values, sh->count - start);
}

/* Where a fill reads its values: the input file, its values counted
 * into the check's histogram on the way; or, from value `at` on, the
 * input held in host memory (work_recontext), or else the first
 * device's buffers of the whole input (work_reshare, work_hold). */
struct source {
    struct input_stream *stream;
    const uint32_t *held;
    size_t at;
};

/* work_plan.c: the input split over the first nshares devices. */
int work_split(struct work *w, size_t nshares);

/* fill.c: a device buffer (its size checked against the device's
 * limits), pinned host memory mapped and unmapped, and the shares from
 * `from` on filled from `src`. */
int work_create_buffer(struct work *w, const struct device_info *dev,
                       const char *what, cl_mem_flags flags, size_t bytes,
                       cl_mem *mem);
void *work_map_pinned(struct work *w, cl_command_queue queue, size_t bytes,
                      cl_map_flags flags, cl_mem *mem);
void work_unmap_pinned(cl_command_queue queue, cl_mem mem, void *p);
int work_fill_shares(struct work *w, size_t from, struct source *src);

/* gather.c: whether share s adds its chunks up in a buffer of its own;
 * the sets, batches and buffers of the gather, and the events' tags;
 * a set's buffers released; every queue finished. */
bool work_has_acc(const struct work *w, size_t s);
int work_setup_shares(struct work *w);
int work_build_tags(struct work *w);
void work_release_runs(struct work_runs *r);
int work_finish_all(void *ctx);

#endif
