/*
 * work_internal.h - what the work files (work.c, work_plan.c, probe.c,
 * fill.c, gather.c) share and nothing else includes: small helpers and
 * the functions one of them calls in another.
 */
#ifndef HISTO_WORK_INTERNAL_H
#define HISTO_WORK_INTERNAL_H

#include "work.h"

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
