/* gather.c - an iteration over the shares: each share's chunks counted
 * and combined, the sums moved between devices in sets and batches, the
 * gather that adds them on the first device, and the queues' flushes
 * and waits (see work.h, work_run_plan). */
#include "work_state.h"

#include "params.h"
#include "program.h"
#include "reference.h"
#include "timer.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Whether a share adds its chunks up in a buffer of its own: with
 * several chunks, and every share with several shares (a share's sum
 * must outlive the next iteration's counting while it is moved). */
bool work_has_acc(const struct work *w, size_t s)
{
    return w->shares[s].nchunks > 1 || w->nshares > 1;
}

/* Whether share s's counting leaves its sum in acc[set] itself (the
 * strategy's bind_output): with several shares, one chunk each. Else a
 * combine copies it there (or adds the chunks up). */
static bool direct(const struct work *w, size_t s)
{
    return w->nshares > 1 && w->shares[s].nchunks == 1
        && w->strategy->bind_output != NULL;
}

/* Whether share s's chunks are combined into acc. */
static bool combines(const struct work *w, size_t s)
{
    return work_has_acc(w, s) && !direct(w, s);
}

/* The shares whose sums are moved to the first device and added there:
 * 1.. with values. */
static bool sends(const struct work *w, size_t s)
{
    return s > 0 && w->shares[s].nchunks > 0;
}

/* One iteration's events, in this order: every share's chunks (copy,
 * kernels, combine; the first share without values: the clearing of its
 * sum), then each sending share's copy to host memory, then the one
 * copy of them all into the first device (which the host waited for),
 * then the addition of them all there. An iteration not profiled
 * (run.h) makes only those of them that are waited on. */
int work_build_tags(struct work *w)
{
    int status = HISTO_OK;
    size_t n = 0;
    const size_t nk = w->strategy->nkernels;
    for (int pass = 0; pass < 2; ++pass) {
        n = 0;
#define TAG(...) do { if (pass) w->tags[n] = (struct run_tag){__VA_ARGS__}; \
                      ++n; } while (0)
        for (size_t s = 0; s < w->nshares; ++s) {
            struct work_share *sh = &w->shares[s];
            for (size_t c = 0; c < sh->nchunks; ++c) {
                if (sh->streamed)
                    TAG(.kind = RUN_TAG_TRANSFER, .share = (uint8_t)s);
                for (size_t k = 0; k < nk; ++k)
                    TAG(.kind = (uint8_t)k, .share = (uint8_t)s);
                if (combines(w, s))
                    TAG(.kind = RUN_TAG_COMBINE, .share = (uint8_t)s);
            }
            if (s == 0 && sh->nchunks == 0 && w->nshares > 1)
                TAG(.kind = RUN_TAG_COMBINE, .share = 0);
        }
        w->nsending = 0;
        for (size_t s = 1; s < w->nshares; ++s)
            if (sends(w, s)) {
                w->shares[s].ev_send = n;
                TAG(.kind = RUN_TAG_MOVE, .share = (uint8_t)s);
                w->nsending++;
            }
        /* one copy of all the sums into the first device, after the
         * last copy to host memory (it waited for every one) */
        if (w->nsending > 0) {
            w->ev_land = n;
            TAG(.kind = RUN_TAG_MOVE, .share = 0,
                .after = (uint16_t)(w->ev_land));
            TAG(.kind = RUN_TAG_GATHER, .share = 0);
        }
#undef TAG
        if (!pass) {
            HOST_ALLOC(w->tags, n);
            HOST_ALLOC(w->scratch, n);
        }
    }
    w->nevents = n;
fail:
    return status;
}

/* Host memory for the sending shares' sums of one block of sets on
 * their way to the first device, one part of w->stride bytes each, laid
 * out as the landing buffer is, so that one copy moves a batch of them
 * in: pinned where the implementation gives it (map_pinned), so that the
 * copies are asynchronous and at full speed; else ordinary memory, and
 * w->parts_pinned false. */
static int host_parts(struct work *w, size_t block)
{
    const size_t k = w->gather_sets, bytes = k * w->set_pitch;
    uint8_t **mem = &w->parts[block * k];
    *mem = work_map_pinned(w, w->shares[0].queue, bytes,
                           CL_MAP_READ | CL_MAP_WRITE, &w->parts_mem[block]);
    if (*mem == NULL) {
        w->parts_pinned = false;
        *mem = histo_calloc(bytes, 1, "partial histograms");
        if (*mem == NULL)
            return HISTO_EXIT_INTERNAL;
    }
    for (size_t set = block * k; set < (block + 1) * k; ++set) {
        w->parts[set] = w->parts[block * k] + (set - block * k) * w->set_pitch;
        size_t part = 0;
        for (size_t s = 1; s < w->nshares; ++s)
            if (sends(w, s))
                w->shares[s].host_part[set] = w->parts[set]
                                              + part++ * w->stride;
    }
    return HISTO_OK;
}

/* The buffer of each block of sets, `pitch` bytes a set, filled with
 * zeros on `queue` (so that the implementation places it on that
 * device before the timed iterations) and finished before any of its
 * runs is made. */
static int make_runs(struct work *w, const struct device_info *dev,
                     cl_command_queue queue, size_t pitch,
                     struct work_runs *r)
{
    int status = HISTO_OK;
    const size_t k = w->gather_sets;
    const cl_uchar zero = 0;
    for (size_t b = 0; b < w->nsets / k; ++b) {
        if ((status = work_create_buffer(w, dev, "partial sums",
                                         CL_MEM_READ_WRITE, k * pitch,
                                         &r->block[b])) != HISTO_OK)
            return status;
        CL_CALL(clEnqueueFillBuffer(queue, r->block[b], &zero, sizeof zero,
                                    0, k * pitch, 0, NULL, NULL));
    }
    CL_CALL(clFinish(queue));
    for (size_t set = 0; set < w->nsets; ++set)
        for (size_t n = 1; set % k + n <= k; ++n) {
            const cl_buffer_region region = {set % k * pitch, n * pitch};
            CL_CREATE(r->run[set][n - 1],
                      clCreateSubBuffer(r->block[set / k], CL_MEM_READ_WRITE,
                                        CL_BUFFER_CREATE_TYPE_REGION,
                                        &region, &cl_err_));
        }
fail:
    return status;
}

void work_release_runs(struct work_runs *r)
{
    for (size_t set = 0; set < WORK_SETS; ++set)
        strategy_release_objects(NULL, 0, r->run[set], WORK_GATHER_SETS);
    strategy_release_objects(NULL, 0, r->block, WORK_SETS);
    memset(r, 0, sizeof *r);
}

static size_t gcd(size_t a, size_t b)
{
    while (b != 0) {
        const size_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* w->stride: nbins up to a multiple of 64 (combine.cl moves 16 bytes at
 * a time from 64-byte boundaries) and of every device's alignment of a
 * sub-buffer's start. */
static int set_stride(struct work *w)
{
    int status = HISTO_OK;
    size_t unit = 64;
    for (size_t d = 0; d < w->ndevices; ++d) {
        cl_uint bits = 0;
        CL_CALL(clGetDeviceInfo(w->shares[d].device->id,
                                CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits,
                                &bits, NULL));
        const size_t align = bits / 8 > 0 ? bits / 8 : 1;
        unit = unit / gcd(unit, align) * align;
    }
    w->stride = (w->input->nbins + unit - 1) / unit * unit;
fail:
    return status;
}

_Static_assert(WORK_SETS == 16, "env.h bounds HISTO_TEST_SETS by WORK_SETS");

/* The sets and batches in use: HISTO_TEST_SETS, else WORK_SETS (fewer
 * where WORK_SETS_BYTES holds fewer of the histogram), and
 * WORK_GATHER_SETS (cut by fit_batches); and how the iterations are
 * profiled. */
static int read_knobs(struct work *w)
{
    int status = HISTO_OK;
    unsigned long nsets = 0, every = 0, last_plain = 0;
    if ((status = env_whole(ENV_HISTO_TEST_SETS, &nsets))
            != HISTO_OK
        || (status = env_whole(ENV_HISTO_TEST_PROFILE_EVERY, &every)) != HISTO_OK
        || (status = env_whole(ENV_HISTO_TEST_LAST_PLAIN, &last_plain)) != HISTO_OK)
        return status;
    w->gather_sets = WORK_GATHER_SETS;
    if (nsets == 0) {
        const uint64_t fit = WORK_SETS_BYTES / w->input->nbins;
        nsets = fit >= WORK_SETS ? WORK_SETS : fit >= 2 ? fit : 2;
        /* two blocks at least: with one, a batch's gather would wait for
         * the iteration just enqueued, and the devices would drain */
        if (w->gather_sets > nsets / 2)
            w->gather_sets = nsets / 2;
    }
    w->nsets = nsets;
    w->profile_every = every != 0 ? every : WORK_PROFILE_EVERY;
    w->last_plain = last_plain != 0;
    return HISTO_OK;
}

/* The sets a batch cut to a divisor of the sets (a batch never wraps),
 * and fewer where a block's buffer would be larger than a device
 * allocates at once: a share's sums, gather_sets * stride bytes, and the
 * first device's landing parts, gather_sets * set_pitch. */
static void fit_batches(struct work *w)
{
    uint64_t most = w->shares[0].device->max_alloc;
    for (size_t s = 1; s < w->nshares; ++s)
        most = min64(most, w->shares[s].device->max_alloc);
    const uint64_t pitch = w->set_pitch > w->stride ? w->set_pitch
                                                    : w->stride;
    while (w->gather_sets > 1
           && (w->nsets % w->gather_sets != 0
               || w->gather_sets * pitch > most))
        w->gather_sets--;
}

/* The buffers of several shares, one of each per set, in blocks of
 * gather_sets sets (struct work_runs): every share's sum, and the sending
 * shares' sums in host memory and in the first device's landing buffer,
 * one part of w->stride bytes each. */
int work_setup_shares(struct work *w)
{
    int status = HISTO_OK;
    struct work_share *first = &w->shares[0];
    if ((status = read_knobs(w)) != HISTO_OK
        || (status = set_stride(w)) != HISTO_OK)
        return status;
    size_t senders = 0;
    for (size_t s = 1; s < w->nshares; ++s)
        senders += sends(w, s);
    w->set_pitch = senders * w->stride;
    fit_batches(w);
    w->parts_pinned = true;
    for (size_t s = 0; s < w->nshares; ++s) {
        struct work_share *sh = &w->shares[s];
        if ((status = make_runs(w, sh->device, sh->queue, w->stride,
                                &sh->accs)) != HISTO_OK)
            return status;
        for (size_t set = 0; set < w->nsets; ++set) {
            CL_CALL(clRetainMemObject(sh->accs.run[set][0]));
            sh->acc[set] = sh->accs.run[set][0];
        }
    }
    if (senders == 0)
        return HISTO_OK;
    for (size_t b = 0; b < w->nsets / w->gather_sets; ++b)
        if ((status = host_parts(w, b)) != HISTO_OK)
            return status;
    status = make_runs(w, first->device, first->gather, w->set_pitch,
                       &w->landing);
fail:
    return status;
}

/* acc = part (first) or min(acc + part, 255), on `queue` of the share's
 * device, after the `nwait` events in `wait` (NULLs skipped). */
static int combine(struct work *w, struct work_share *sh,
                   cl_command_queue queue, cl_mem acc, cl_mem part,
                   bool first, const cl_event *wait, size_t nwait,
                   cl_event *event)
{
    int status = HISTO_OK;
    const cl_uint nbins = w->input->nbins, copy = first;
    cl_kernel k = sh->combine;
    cl_event waits[2];
    cl_uint n = 0;
    for (size_t i = 0; i < nwait && n < 2; ++i)
        if (wait[i] != NULL)
            waits[n++] = wait[i];
    CL_CALL(clSetKernelArg(k, 0, sizeof acc, &acc));
    CL_CALL(clSetKernelArg(k, 1, sizeof part, &part));
    CL_CALL(clSetKernelArg(k, 2, sizeof nbins, &nbins));
    CL_CALL(clSetKernelArg(k, 3, sizeof copy, &copy));
    CL_CALL(clEnqueueNDRangeKernel(queue, k, 1, NULL, &sh->combine_items,
                                   &sh->combine_local, n,
                                   n > 0 ? waits : NULL, event));
    sh->commands.n[WORK_LAUNCHES]++;
fail:
    return status;
}

/* A marker on queue (share sh's) that completes when all before it
 * has: *event. */
static int mark(struct work_share *sh, cl_command_queue queue,
                cl_event *event)
{
    int status = HISTO_OK;
    if (*event != NULL)
        clReleaseEvent(*event);
    *event = NULL;
    CL_CALL(clEnqueueMarkerWithWaitList(queue, 0, NULL, event));
    sh->commands.n[WORK_MARKERS]++;
fail:
    return status;
}

/* *held = event, retained (the loop releases its own reference once it
 * has read the iteration's times), the event held before released. */
static int hold(cl_event *held, cl_event event)
{
    int status = HISTO_OK;
    CL_CALL(clRetainEvent(event));
    if (*held != NULL)
        clReleaseEvent(*held);
    *held = event;
fail:
    return status;
}

/* Whether an event is complete (false where that cannot be read). */
static bool complete(cl_event event)
{
    cl_int st = CL_QUEUED;
    return clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS,
                          sizeof st, &st, NULL) == CL_SUCCESS
        && st == CL_COMPLETE;
}

/* complete(event), remembered in *seen once true (reset where the
 * event held is replaced): a status query costs host time. */
static bool seen_complete(cl_event event, bool *seen)
{
    if (!*seen)
        *seen = complete(event);
    return *seen;
}

/* Chunk c of a share: its copy (streamed), its count, its combine into
 * acc[set] (or, direct, the count writes acc[set] itself). The first
 * chunk's write of acc[set] starts the sum, so it waits for the last use
 * of that buffer nsets iterations before, on its own device: its
 * copy to host memory (shares 1..), or the addition into it (share 0). */
static int enqueue_chunk(struct work *w, struct work_share *sh, size_t s,
                         size_t c, size_t set, bool profiled,
                         cl_command_queue queue, cl_event *ev, size_t *e)
{
    int status = HISTO_OK;
    struct work_slot *slot = &sh->slots[sh->chunk_slot[c]];
    const size_t b = sh->streamed ? c % 2 : c;
    if ((status = w->strategy->bind(slot->state, sh->buffers[b]))
            != HISTO_OK)
        return status;
    if (sh->streamed) {
        const cl_event wait = sh->buffer_free[b];
        CL_CALL(clEnqueueWriteBuffer(sh->copy, sh->buffers[b], CL_FALSE, 0,
                                     slot->view.nvalues * sizeof(cl_uint),
                                     sh->host[c], wait != NULL,
                                     wait != NULL ? &wait : NULL, &ev[*e]));
        /* Flushed wherever another queue waits on it (design.md). */
        CL_CALL(clFlush(sh->copy));
        CL_CALL(clEnqueueBarrierWithWaitList(queue, 1, &ev[*e], NULL));
        sh->commands.n[WORK_COPIES]++;
        sh->commands.n[WORK_FLUSHES]++;
        sh->commands.n[WORK_MARKERS]++;
        ++*e;
    }
    const cl_event last_use = c > 0 || !work_has_acc(w, s) ? NULL
                            : s == 0 ? w->gathered[set] : sh->sent[set];
    if (direct(w, s)) {
        /* the counting writes acc[set]: after its last use, which is
         * nearly always long done (a barrier only where it is not) */
        if ((status = w->strategy->bind_output(slot->state, sh->acc[set]))
                != HISTO_OK)
            return status;
        bool *seen = s == 0 ? &w->gathered_seen[set] : &sh->sent_seen[set];
        if (last_use != NULL && !seen_complete(last_use, seen)) {
            CL_CALL(clEnqueueBarrierWithWaitList(queue, 1, &last_use,
                                                 NULL));
            sh->commands.n[WORK_MARKERS]++;
        }
    }
    /* not profiled: the last kernel's event alone, where the strategy
     * offers that (the share's sum, waited on, may be its output) */
    const size_t nk = w->strategy->nkernels;
    if ((status = !profiled && w->strategy->enqueue_last != NULL
                  ? w->strategy->enqueue_last(slot->state, queue,
                                              &ev[*e + nk - 1])
                  : w->strategy->enqueue(slot->state, queue, &ev[*e]))
            != HISTO_OK)
        return status;
    *e += nk;
    if (combines(w, s)) {
        /* not profiled: an event for the last chunk's alone (the sum) */
        cl_event *done = profiled || c + 1 == sh->nchunks ? &ev[*e] : NULL;
        if ((status = combine(w, sh, queue, sh->acc[set],
                              w->strategy->output(slot->state), c == 0,
                              &last_use, 1, done)) != HISTO_OK)
            return status;
        ++*e;
    }
    if (sh->streamed) {
        /* The copy queue waits on this marker: flushed at once, since an
         * implementation need not start unflushed commands (rusticl
         * does not, and a finish of the copy queue then waits forever). */
        if ((status = mark(sh, queue, &sh->buffer_free[b])) != HISTO_OK)
            return status;
        CL_CALL(clFlush(queue));
        sh->commands.n[WORK_FLUSHES]++;
    }
fail:
    return status;
}

/* Waits on the host for an event of another device (or none): a command
 * that waited on it is slow to enqueue (docs/design.md, "Chunks,
 * streaming and several devices"). The wait is kept apart from
 * enqueuing (w->waited_s). */
static int host_wait(struct work *w, struct work_share *sh, cl_event event,
                     bool *seen)
{
    int status = HISTO_OK;
    if (event == NULL || seen_complete(event, seen))
        return HISTO_OK;
    const double t0 = timer_now();
    CL_CALL(clWaitForEvents(1, &event));
    sh->commands.n[WORK_WAITS]++;
    *seen = true;
fail:
    w->waited_s += timer_now() - t0;
    return status;
}

/* host_wait for the events of sets [set, set + n) of share sh's device,
 * of which those of one batch are one event, waited for once. */
static int host_wait_sets(struct work *w, struct work_share *sh,
                          const cl_event *events, bool *seen, size_t set,
                          size_t n)
{
    int status = HISTO_OK;
    for (size_t t = set; t < set + n && status == HISTO_OK; ++t) {
        if (t > set && events[t] != NULL && events[t] == events[t - 1])
            seen[t] = true;
        status = host_wait(w, sh, events[t], &seen[t]);
    }
    return status;
}

/* Iterations [first, first + n) of one block of sets, counted: each
 * sending share's sums copied into its parts of host memory in one copy,
 * on its move queue, after its counting of the last of them (its
 * counting runs in order, switch_queue included). That host memory was
 * last read by the first device's copies of the iterations nsets
 * before, which the additions after them on the same queue
 * (gathered[set]) follow: waited for on the host. `ev`: the events of
 * the one iteration (n = 1) where it is profiled, else NULL. */
static int enqueue_sends(struct work *w, unsigned long first, size_t n,
                         cl_event *ev)
{
    int status = HISTO_OK;
    const size_t set = first % w->nsets, last = set + n - 1;
    cl_event sent = NULL;
    if ((status = host_wait_sets(w, &w->shares[0], w->gathered,
                                 w->gathered_seen, set, n)) != HISTO_OK)
        return status;
    /* every share's counting of the batch, which the copies and the
     * additions wait on, flushed (rusticl starts no command before) */
    for (size_t s = 0; s < w->nshares; ++s) {
        CL_CALL(clFlush(w->shares[s].counted_on));
        w->shares[s].commands.n[WORK_FLUSHES]++;
    }
    for (size_t s = 1; s < w->nshares; ++s) {
        struct work_share *sh = &w->shares[s];
        if (!sends(w, s))
            continue;
        cl_command_queue move = ev != NULL ? sh->move : sh->plain_move;
        cl_event *done = ev != NULL ? &ev[sh->ev_send] : &sent;
        const cl_mem from = sh->accs.run[set][n - 1];
        if (w->set_pitch == w->stride) {
            CL_CALL(clEnqueueReadBuffer(move, from, CL_FALSE, 0,
                                        (n - 1) * w->stride
                                            + w->input->nbins,
                                        sh->host_part[set], 1,
                                        &sh->summed[last], done));
        } else {
            /* several sending shares: its parts set_pitch bytes apart */
            const size_t origin[3] = {0, 0, 0};
            const size_t region[3] = {w->input->nbins, n, 1};
            CL_CALL(clEnqueueReadBufferRect(move, from, CL_FALSE, origin,
                                            origin, region, w->stride, 0,
                                            w->set_pitch, 0,
                                            sh->host_part[set], 1,
                                            &sh->summed[last], done));
        }
        CL_CALL(clFlush(move));
        sh->commands.n[WORK_COPIES]++;
        sh->commands.n[WORK_FLUSHES]++;
        for (size_t t = set; t <= last; ++t) {
            if ((status = hold(&sh->sent[t], *done)) != HISTO_OK)
                goto fail;
            sh->sent_seen[t] = false;
        }
        if (sent != NULL)
            clReleaseEvent(sent);
        sent = NULL;
    }
    w->batch_n[set] = n;
fail:
    if (sent != NULL)
        clReleaseEvent(sent);
    return status;
}

/* The open batch's sums copied to host memory (enqueue_sends), the
 * batch closed; `ev` as there. */
static int close_batch(struct work *w, cl_event *ev)
{
    if (w->open_n == 0)
        return HISTO_OK;
    const size_t n = w->open_n;
    w->open_n = 0;
    return enqueue_sends(w, w->open_first, n, ev);
}

/* The batch of iterations from j on (batch_n[j % nsets] of them) gathered
 * on the first device's gather queue: each sending share's sums, once in
 * host memory (waited for on the host), copied into the landing buffer
 * in one copy, then all added into share 0's sums in one launch (a row
 * of work-items a set), after share 0's own counting of the last (its
 * counting runs in order). In order on one queue: a landing buffer is
 * written again only after the addition that read it. */
static int enqueue_gather(struct work *w, unsigned long j)
{
    int status = HISTO_OK;
    struct work_share *first = &w->shares[0];
    const size_t set = j % w->nsets, n = w->batch_n[set];
    const size_t last = set + n - 1;
    /* NULL: iteration j is not profiled, and only the addition, which
     * the host and the sets' next uses wait on, has an event */
    cl_event *ev = w->ring[j % WORK_RING], added = NULL;
    const size_t e = w->ev_land;
    /* not profiled: the queue without profiling. The sets' additions
     * before (nsets iterations before, on either queue) are done: the
     * host saw them before it enqueued these iterations' copies to host
     * memory. */
    cl_command_queue gather = ev != NULL ? first->gather
                                         : first->plain_gather;
    for (size_t s = 1; s < w->nshares; ++s) {
        struct work_share *sh = &w->shares[s];
        if (sends(w, s)
            && (status = host_wait_sets(w, sh, sh->sent, sh->sent_seen, set,
                                        n)) != HISTO_OK)
            return status;
    }
    /* every part of every set in one copy (a command costs the host more
     * than the padding between parts costs the link) */
    CL_CALL(clEnqueueWriteBuffer(gather, w->landing.run[set][n - 1],
                                 CL_FALSE, 0,
                                 n * w->set_pitch - w->stride
                                     + w->input->nbins,
                                 w->parts[set], 0, NULL,
                                 ev != NULL ? &ev[e] : NULL));
    const cl_uint len = (cl_uint)w->input->nbins,
                  nparts = (cl_uint)w->nsending;
    /* 64 bits: a stride rounds up past 2^32 - 1 bins, and a set's parts
     * reach 2^32 bytes with two senders of 2^31 */
    const cl_ulong stride = w->stride, set_pitch = w->set_pitch;
    cl_kernel k = first->parts;
    CL_CALL(clSetKernelArg(k, 0, sizeof(cl_mem),
                           &first->accs.run[set][n - 1]));
    CL_CALL(clSetKernelArg(k, 1, sizeof(cl_mem),
                           &w->landing.run[set][n - 1]));
    CL_CALL(clSetKernelArg(k, 2, sizeof len, &len));
    CL_CALL(clSetKernelArg(k, 3, sizeof stride, &stride));
    CL_CALL(clSetKernelArg(k, 4, sizeof set_pitch, &set_pitch));
    CL_CALL(clSetKernelArg(k, 5, sizeof nparts, &nparts));
    const size_t global[2] = {first->combine_items, n},
                 local[2] = {first->combine_local, 1};
    CL_CALL(clEnqueueNDRangeKernel(gather, k, 2, NULL, global, local, 1,
                                   &first->summed[last],
                                   ev != NULL ? &ev[e + 1] : &added));
    CL_CALL(clFlush(gather));
    first->commands.n[WORK_COPIES]++;
    first->commands.n[WORK_LAUNCHES]++;
    first->commands.n[WORK_FLUSHES]++;
    for (size_t t = set; t <= last; ++t) {
        if ((status = hold(&w->gathered[t], ev != NULL ? ev[e + 1] : added))
                != HISTO_OK)
            goto fail;
        w->gathered_seen[t] = false;
    }
    w->gathered_n = j + n;
fail:
    if (added != NULL)
        clReleaseEvent(added);
    return status;
}

/* Whether the copies to host memory of the batch from iteration j on are
 * all done (one event a share for the batch). */
static bool sent_all(struct work *w, unsigned long j)
{
    for (size_t s = 1; s < w->nshares; ++s)
        if (sends(w, s)
            && !seen_complete(w->shares[s].sent[j % w->nsets],
                              &w->shares[s].sent_seen[j % w->nsets]))
            return false;
    return true;
}

/* Iterations enqueued but not yet gathered: up to `until` at least, in
 * order, whole batches (the open one closed where it starts before). */
static int gather_until(struct work *w, unsigned long until)
{
    int status = HISTO_OK;
    /* none to gather where the other shares have no values */
    if (w->nsending == 0) {
        if (w->gathered_n < until)
            w->gathered_n = until;
        return HISTO_OK;
    }
    if (w->open_n > 0 && w->open_first < until)
        status = close_batch(w, NULL);
    while (status == HISTO_OK && w->gathered_n < until)
        status = enqueue_gather(w, w->gathered_n);
    return status;
}

/* The share's counting goes on `to` from now on: where the iteration
 * before used the other counting queue (with or without profiling), a
 * marker there and a barrier on `to` order all of it first (the
 * strategy's buffers are reused). Twice in each 32 iterations. */
static int switch_queue(struct work_share *sh, cl_command_queue to)
{
    int status = HISTO_OK;
    cl_event before = NULL;
    if (sh->counted_on != NULL && sh->counted_on != to) {
        CL_CALL(clEnqueueMarkerWithWaitList(sh->counted_on, 0, NULL,
                                            &before));
        CL_CALL(clFlush(sh->counted_on));
        CL_CALL(clEnqueueBarrierWithWaitList(to, 1, &before, NULL));
        sh->commands.n[WORK_MARKERS] += 2;
        sh->commands.n[WORK_FLUSHES]++;
    }
    sh->counted_on = to;
fail:
    if (before != NULL)
        clReleaseEvent(before);
    return status;
}

/* Share s's part of an iteration into `set`: its chunks counted (and
 * combined), its sum held for the gather; its events from ev[*e] on. */
static int enqueue_share(struct work *w, size_t s, size_t set, bool profiled,
                         bool batched, cl_event *ev, size_t *e)
{
    int status = HISTO_OK;
    struct work_share *sh = &w->shares[s];
    /* not profiled: the counting queue without profiling, after all
     * the iteration before enqueued on the other one */
    cl_command_queue q = profiled || sh->plain == NULL ? sh->queue
                                                       : sh->plain;
    if ((status = switch_queue(sh, q)) != HISTO_OK)
        return status;
    for (size_t c = 0; c < sh->nchunks; ++c)
        if ((status = enqueue_chunk(w, sh, s, c, set, profiled, q, ev, e))
            != HISTO_OK)
            return status;
    if (w->nshares == 1)
        return HISTO_OK;
    if (s == 0 && sh->nchunks == 0) {
        /* no values: its sum, which the others' are added into, is
         * zeros */
        const cl_uchar zero = 0;
        const cl_event last_use = w->gathered[set];
        CL_CALL(clEnqueueFillBuffer(q, sh->acc[set], &zero, sizeof zero, 0,
                                    w->input->nbins, last_use != NULL,
                                    last_use != NULL ? &last_use : NULL,
                                    &ev[(*e)++]));
        sh->commands.n[WORK_FILLS]++;
    }
    if ((s == 0 || sends(w, s))
        && (status = hold(&sh->summed[set], ev[*e - 1])) != HISTO_OK)
        return status;
    /* Its sum is copied or added on another queue, after it is flushed:
     * by its batch's copies to host memory (enqueue_sends), else now: a
     * flush costs host time. */
    if (!batched) {
        CL_CALL(clFlush(q));
        sh->commands.n[WORK_FLUSHES]++;
    }
fail:
    return status;
}

static int enqueue_iteration(void *ctx, cl_event *ev)
{
    int status = HISTO_OK;
    struct work *w = ctx;
    const unsigned long i = w->enqueued;
    const size_t set = w->nshares > 1 ? i % w->nsets : 0;
    size_t e = 0;
    /* not profiled (run.h): the events that are waited on go to scratch
     * and are released at the end, the others are not made */
    const bool profiled = ev != NULL;
    if (!profiled) {
        ev = w->scratch;
        for (size_t k = 0; k < w->nevents; ++k)
            ev[k] = NULL;
    }
    const bool batched = w->nshares > 1 && w->nsending > 0;
    /* a profiled iteration moves alone: the batch before it moves first */
    if (batched && profiled && (status = close_batch(w, NULL)) != HISTO_OK)
        goto fail;
    /* this set's last gather (of iteration i - nsets) enqueued before
     * the set is written again */
    if (w->nshares > 1 && i >= w->nsets
        && (status = gather_until(w, i - w->nsets + 1)) != HISTO_OK)
        goto fail;
    for (size_t s = 0; s < w->nshares; ++s)
        if ((status = enqueue_share(w, s, set, profiled, batched, ev, &e))
            != HISTO_OK)
            goto fail;
    if (batched) {
        if (w->open_n == 0)
            w->open_first = i;
        w->open_n++;
        /* a batch ends with its block of sets, or with this iteration
         * where it is profiled */
        if ((profiled || (set + 1) % w->gather_sets == 0)
            && (status = close_batch(w, profiled ? ev : NULL)) != HISTO_OK)
            goto fail;
    }
    w->ring[i % WORK_RING] = profiled ? ev : NULL;
    w->enqueued++;
    /* The batches whose copies to host memory are done are gathered now;
     * the others later, so that the host runs up to nsets - 1 iterations
     * ahead of the devices and its pauses (the loop reading a batch's
     * times) do not leave them idle. Not the one that ends with this
     * iteration: its copies have just begun. */
    while (batched && status == HISTO_OK
           && w->gathered_n + w->open_n < w->enqueued
           && w->gathered_n + w->batch_n[w->gathered_n % w->nsets] <= i
           && sent_all(w, w->gathered_n))
        status = enqueue_gather(w, w->gathered_n);
fail:
    /* what was held is retained; the rest is not needed */
    for (size_t k = 0; !profiled && k < w->nevents; ++k)
        if (ev[k] != NULL) {
            clReleaseEvent(ev[k]);
            ev[k] = NULL;
        }
    return status;
}

/* Every iteration enqueued but the last `pending` gathered (their events
 * all made). */
static int settle(void *ctx, unsigned long pending)
{
    struct work *w = ctx;
    if (w->nshares < 2)
        return HISTO_OK;
    return gather_until(w, w->enqueued > pending ? w->enqueued - pending
                                                 : 0);
}

/* Every queue of every device flushed, or finished (`finish`), those of
 * an earlier split's shares too; each counted as its device's. */
static int each_queue(struct work *w, bool finish)
{
    int status = HISTO_OK;
    cl_int (CL_API_CALL *op)(cl_command_queue) = finish ? clFinish
                                                        : clFlush;
    for (size_t s = 0; s < w->ndevices; ++s) {
        struct work_share *sh = &w->shares[s];
        cl_command_queue queues[] = {sh->copy, sh->queue, sh->move,
                                     sh->gather, sh->plain, sh->plain_move,
                                     sh->plain_gather};
        for (size_t q = 0; q < sizeof queues / sizeof queues[0]; ++q) {
            if (queues[q] == NULL)
                continue;
            CL_CALL(op(queues[q]));
            if (finish)
                sh->commands.n[WORK_WAITS]++;
            else
                sh->commands.n[WORK_FLUSHES]++;
        }
    }
fail:
    return status;
}

static int flush_all(void *ctx)
{
    return each_queue(ctx, false);
}

/* Every iteration gathered, then every queue flushed before any is
 * finished: a finish waits for the commands of other queues that its
 * commands wait on, and those run only once flushed. */
int work_finish_all(void *ctx)
{
    int status = settle(ctx, 0);
    if (status == HISTO_OK)
        status = flush_all(ctx);
    return status != HISTO_OK ? status : each_queue(ctx, true);
}

/* The host's time waiting for devices in enqueue and settle so far. */
static double waited_s(void *ctx)
{
    return ((const struct work *)ctx)->waited_s;
}

void work_run_plan(struct work *w, struct run_plan *plan)
{
    *plan = (struct run_plan){
        .nevents = w->nevents,
        .tags = w->tags,
        .nkernels = w->strategy->nkernels,
        .nshares = w->nshares,
        /* one share: every iteration, its device median the figure */
        .sample = w->nshares > 1 ? w->profile_every : 1,
        .last_plain = w->last_plain,
        .enqueue = enqueue_iteration,
        .flush = flush_all,
        .finish = work_finish_all,
        .settle = settle,
        .waited_s = waited_s,
        .ctx = w,
    };
}
