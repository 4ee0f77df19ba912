/* work.c - shares, chunks, residency and the combine (see work.h). */
#include "work.h"
#include "work_state.h"

#include "params.h"
#include "program.h"
#include "reference.h"
#include "timer.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

int work_open(struct work *w, cl_platform_id platform)
{
    int status = HISTO_OK;
    cl_device_id ids[WORK_MAX_SHARES];
    cl_uint nids = 0;
    for (size_t s = 0; s < w->ndevices; ++s) {
        cl_uint i = 0;
        while (i < nids && ids[i] != w->shares[s].device->id)
            ++i;
        if (i == nids)
            ids[nids++] = w->shares[s].device->id;
    }
    w->platform = platform;
    const cl_context_properties props[] = {
        CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    CL_CREATE(w->context, clCreateContext(props, nids, ids, NULL, NULL,
                                          &cl_err_));
    for (size_t s = 0; s < w->ndevices; ++s) {
        struct work_share *sh = &w->shares[s];
        CL_CREATE(sh->queue, clCreateCommandQueue(w->context, sh->device->id,
                                                  CL_QUEUE_PROFILING_ENABLE,
                                                  &cl_err_));
        /* a share split again (work_reshare) may be streamed */
        if (sh->streamed || w->whole)
            CL_CREATE(sh->copy,
                      clCreateCommandQueue(w->context, sh->device->id,
                                           CL_QUEUE_PROFILING_ENABLE,
                                           &cl_err_));
        if (w->ndevices > 1) {
            CL_CREATE(sh->move,
                      clCreateCommandQueue(w->context, sh->device->id,
                                           CL_QUEUE_PROFILING_ENABLE,
                                           &cl_err_));
            CL_CREATE(sh->plain, clCreateCommandQueue(w->context,
                                                      sh->device->id, 0,
                                                      &cl_err_));
            CL_CREATE(sh->plain_move, clCreateCommandQueue(w->context,
                                                           sh->device->id, 0,
                                                           &cl_err_));
        }
    }
    if (w->ndevices > 1) {
        CL_CREATE(w->shares[0].gather,
                  clCreateCommandQueue(w->context, w->shares[0].device->id,
                                       CL_QUEUE_PROFILING_ENABLE, &cl_err_));
        CL_CREATE(w->shares[0].plain_gather,
                  clCreateCommandQueue(w->context, w->shares[0].device->id,
                                       0, &cl_err_));
    }
fail:
    return status;
}

int work_build(struct work *w, const struct strategy *strategy,
               const char *kernel_dir)
{
    int status = HISTO_OK;
    w->strategy = strategy;
    for (size_t s = 0; s < w->ndevices; ++s) {
        struct work_share *sh = &w->shares[s];
        const struct device_info *dev = sh->device;
        struct program_defines defines = {.count = 0};
        if ((strategy->defines != NULL
             && (status = strategy->defines(dev, sh->loop_limit,
                                                      &defines)) != HISTO_OK)
            || (status = program_build(w->context, dev, kernel_dir,
                                       strategy->sources, strategy->nsources,
                                       &defines, &sh->program)) != HISTO_OK)
            return status;
    }
    return HISTO_OK;
}

/* Everything the work holds released, the struct kept. */
static void work_release(struct work *w);

static void share_env(const struct work *w, const struct work_share *sh,
                      const struct work_slot *slot, struct strategy_env *env)
{
    env->context = w->context;
    env->queue = sh->queue;
    env->program = sh->program;
    env->device = sh->device;
    env->loop_limit = sh->loop_limit;
    env->input = &slot->view;
    env->values = sh->buffers[slot->buffer];
}

int work_tune_env(const struct work *w, struct strategy_env *env)
{
    const struct work_share *sh = &w->shares[0];
    if (sh->streamed) {
        histo_error("--tune measures on the device's copy of the input, "
                    "and this input is streamed (larger than the device "
                    "budget): give the knobs instead");
        return HISTO_EXIT_USAGE;
    }
    share_env(w, sh, &sh->slots[sh->chunk_slot[0]], env);
    return HISTO_OK;
}

int work_setup(struct work *w, const struct strategy_env *base)
{
    int status = HISTO_OK;
    /* the knobs and paths; each share's OpenCL objects come from
     * share_env, so none outlives its context here */
    w->base = *base;
    w->base.context = NULL;
    w->base.queue = NULL;
    w->base.program = NULL;
    w->base.values = NULL;
    w->base.input = NULL;
    w->base.launches = NULL;
    for (size_t s = 0; s < w->nshares; ++s) {
        struct work_share *sh = &w->shares[s];
        for (size_t i = 0; i < sh->nslots; ++i) {
            struct strategy_env env = *base;
            share_env(w, sh, &sh->slots[i], &env);
            env.launches = &sh->commands.n[WORK_LAUNCHES];
            if ((status = strategy_setup(w->strategy, &env,
                                         &sh->slots[i].state)) != HISTO_OK)
                return status;
        }
        if (work_has_acc(w, s) && w->nshares == 1)
            CL_CREATE(sh->acc[0], clCreateBuffer(w->context,
                                                 CL_MEM_READ_WRITE,
                                                 w->input->nbins, NULL,
                                                 &cl_err_));
    }
    if (w->nshares > 1 && (status = work_setup_shares(w)) != HISTO_OK)
        return status;
    status = work_build_tags(w);
fail:
    return status;
}

int work_download(struct work *w, uint8_t *histo)
{
    int status = HISTO_OK;
    struct work_share *sh = &w->shares[0];
    if ((status = work_finish_all(w)) != HISTO_OK)
        return status;
    /* The first state's read-back also fills what its report says. */
    if ((status = w->strategy->download(sh->slots[0].state, sh->queue,
                                        histo)) != HISTO_OK)
        return status;
    /* the set the last iteration used */
    const size_t set = w->nshares > 1 && w->enqueued > 0
                     ? (w->enqueued - 1) % w->nsets : 0;
    /* With several shares its last writer ran on another queue (the
     * addition of the others' sums, or the count): waited for, since
     * rusticl's clFinish may return before the commands end. */
    const cl_event last = w->nshares < 2 ? NULL
                        : w->gathered[set] != NULL ? w->gathered[set]
                                                   : sh->summed[set];
    if (sh->acc[set] != NULL)
        CL_CALL(clEnqueueReadBuffer(sh->queue, sh->acc[set], CL_TRUE, 0,
                                    w->input->nbins, histo, last != NULL,
                                    last != NULL ? &last : NULL, NULL));
fail:
    return status;
}

struct work_totals work_totals(const struct work *w)
{
    struct work_totals t = {0, false, false, true};
    for (size_t s = 0; s < w->nshares; ++s) {
        const struct work_share *sh = &w->shares[s];
        t.chunks += sh->nchunks;
        t.streamed |= sh->streamed;
        t.resident |= !sh->streamed;
        t.pinned &= !sh->streamed || sh->pinned;
    }
    return t;
}

size_t work_nshares(const struct work *w)
{
    return w->nshares;
}

size_t work_nsets(const struct work *w)
{
    return w->nshares > 1 ? w->nsets : 0;
}

size_t work_gather_sets(const struct work *w)
{
    return w->nshares > 1 && w->nsending > 0 ? w->gather_sets : 0;
}

size_t work_ndevices(const struct work *w)
{
    return w->ndevices;
}

bool work_can_reshare(const struct work *w)
{
    return w->whole;
}

struct work_share_info work_share_info(const struct work *w, size_t s)
{
    const struct work_share *sh = &w->shares[s];
    return (struct work_share_info){
        .device = sh->device,
        .first = sh->first,
        .count = sh->count,
        .chunk_values = sh->chunk_values,
        .nchunks = sh->nchunks,
        .streamed = sh->streamed,
        .loop_limit = sh->loop_limit,
        .commands = sh->counted,
    };
}

void work_count_start(struct work *w)
{
    for (size_t s = 0; s < w->ndevices; ++s)
        w->shares[s].count_base = w->shares[s].commands;
}

void work_count_stop(struct work *w)
{
    for (size_t s = 0; s < w->ndevices; ++s) {
        struct work_share *sh = &w->shares[s];
        for (int k = 0; k < WORK_COMMAND_KINDS; ++k)
            sh->counted.n[k] = sh->commands.n[k] - sh->count_base.n[k];
    }
}

const char *work_clock_unusable(const struct work *w)
{
    for (size_t i = 0; i < w->nshares; ++i)
        if (w->shares[i].clock_unusable != NULL)
            return w->shares[i].clock_unusable;
    return NULL;
}

const void *work_first_state(const struct work *w)
{
    return w->shares[0].slots[0].state;
}

uint64_t work_peak_rss(void)
{
    struct rusage u;
    if (getrusage(RUSAGE_SELF, &u) != 0)
        return 0;
    return (uint64_t)u.ru_maxrss * 1024; /* Linux: kilobytes */
}

/* Everything of the current split: every share's states, sums, events,
 * host memory and input buffers (share 0's too, unless `keep_first`),
 * and the iteration's tags. The devices' queues and programs stay. */
/* Share s's part of the split released: its strategy states, events,
 * sums and (unless keep) its buffers; its device's objects stay. */
static void release_share(struct work *w, size_t s, bool keep)
{
    struct work_share *sh = &w->shares[s];
    for (size_t i = 0; i < sh->nslots; ++i)
        if (sh->slots[i].state != NULL)
            w->strategy->release(sh->slots[i].state);
    for (size_t b = 0; b < 2; ++b)
        if (sh->buffer_free[b] != NULL)
            clReleaseEvent(sh->buffer_free[b]);
    for (size_t set = 0; set < WORK_SETS; ++set) {
        cl_event *held[] = {&sh->summed[set], &sh->sent[set]};
        for (size_t i = 0; i < 2; ++i)
            if (*held[i] != NULL)
                clReleaseEvent(*held[i]);
        sh->host_part[set] = NULL;
    }
    strategy_release_objects(NULL, 0, sh->acc, WORK_SETS);
    work_release_runs(&sh->accs);
    if (!keep) {
        for (size_t c = 0; sh->host != NULL && c < sh->nchunks; ++c)
            work_unmap_pinned(sh->queue,
                              sh->host_mem != NULL ? sh->host_mem[c] : NULL,
                              sh->host[c]);
        strategy_release_objects(NULL, 0, sh->buffers,
                                 sh->buffers != NULL ? sh->nbuffers : 0);
        free(sh->buffers);
        free(sh->host);
        free(sh->host_mem);
        sh->buffers = NULL;
        sh->host = NULL;
        sh->host_mem = NULL;
        sh->nbuffers = 0;
    }
    free(sh->slots);
    free(sh->chunk_slot);
    /* the device's objects stay; the split's are gone */
    *sh = (struct work_share){
        .device = sh->device,
        .queue = sh->queue,
        .copy = sh->copy,
        .move = sh->move,
        .gather = sh->gather,
        .plain = sh->plain,
        .plain_move = sh->plain_move,
        .plain_gather = sh->plain_gather,
        .program = sh->program,
        .combine_program = sh->combine_program,
        .combine = sh->combine,
        .parts = sh->parts,
        .combine_items = sh->combine_items,
        .combine_local = sh->combine_local,
        .loop_limit = sh->loop_limit,
        .clock_unusable = sh->clock_unusable,
        .buffers = sh->buffers,
        .nbuffers = sh->nbuffers,
        .chunk_values = sh->chunk_values,
    };
}

static void release_split(struct work *w, bool keep_first)
{
    for (size_t s = 0; s < w->ndevices; ++s)
        release_share(w, s, keep_first && s == 0);
    /* each block's host memory starts at its first set's parts */
    for (size_t b = 0; w->gather_sets > 0 && b < WORK_SETS / w->gather_sets;
         ++b)
        if (w->parts[b * w->gather_sets] != NULL)
            work_unmap_pinned(w->shares[0].queue, w->parts_mem[b],
                              w->parts[b * w->gather_sets]);
    for (size_t set = 0; set < WORK_SETS; ++set)
        if (w->gathered[set] != NULL)
            clReleaseEvent(w->gathered[set]);
    work_release_runs(&w->landing);
    memset(w->parts, 0, sizeof w->parts);
    memset(w->parts_mem, 0, sizeof w->parts_mem);
    memset(w->gathered, 0, sizeof w->gathered);
    memset(w->gathered_seen, 0, sizeof w->gathered_seen);
    memset(w->batch_n, 0, sizeof w->batch_n);
    w->open_n = 0;
    free(w->tags);
    free(w->scratch);
    w->tags = NULL;
    w->scratch = NULL;
    w->nevents = 0;
    w->nshares = 0;
    w->enqueued = 0;
    w->gathered_n = 0;
}

int work_reshare(struct work *w, size_t nshares)
{
    struct work_share *first = &w->shares[0];
    if (!w->whole || nshares < 1 || nshares > w->ndevices) {
        histo_error("internal: the input cannot be split over %zu of %zu "
                    "devices", nshares, w->ndevices);
        return HISTO_EXIT_INTERNAL;
    }
    int status = work_finish_all(w);
    if (status != HISTO_OK)
        return status;
    release_split(w, true);
    const size_t chunk_values = first->chunk_values;
    const size_t nwhole = first->nbuffers;
    if ((status = work_split(w, nshares)) != HISTO_OK)
        return status;
    /* share 0 counts a prefix of the whole input's chunks, which have
     * its chunks' length (both resident on the one device) */
    first->nbuffers = nwhole;
    if (first->streamed || first->chunk_values != chunk_values) {
        histo_error("internal: the first device's share is not a prefix "
                    "of the whole input's chunks");
        return HISTO_EXIT_INTERNAL;
    }
    struct source src = {.stream = NULL,
                         .at = nshares > 1 ? w->shares[1].first : 0};
    if ((status = work_fill_shares(w, 1, &src)) != HISTO_OK)
        return status;
    return work_setup(w, &w->base);
}

int work_recontext(struct work *w, size_t m)
{
    if (w->held == NULL || m < 1 || m > w->nnamed) {
        histo_error("internal: no held input to fill %zu of %zu devices",
                    m, w->nnamed);
        return HISTO_EXIT_INTERNAL;
    }
    int status = work_finish_all(w);
    if (status != HISTO_OK)
        return status;
    /* what outlives the work of the last count */
    const struct device_info *named[WORK_MAX_SHARES];
    memcpy(named, w->named, sizeof named);
    const size_t nnamed = w->nnamed;
    const struct histo_input *input = w->input;
    const struct work_options options = w->options;
    const cl_platform_id platform = w->platform;
    const struct strategy *strategy = w->strategy;
    const struct strategy_env base = w->base;
    uint32_t *held = w->held;
    w->held = NULL;
    work_release(w);

    status = work_plan(w, named, m, input, &options, false);
    memcpy(w->named, named, sizeof named); /* for the next count */
    w->nnamed = nnamed;
    w->held = held;
    struct strategy_share shares[WORK_MAX_SHARES];
    size_t n;
    struct source src = {.held = held};
    if (status == HISTO_OK
        && (status = work_open(w, platform)) == HISTO_OK
        && (status = work_probe(w, base.kernel_dir, shares, &n))
               == HISTO_OK
        && (status = work_build(w, strategy, base.kernel_dir)) == HISTO_OK
        && (status = work_fill_shares(w, 0, &src)) == HISTO_OK)
        status = work_setup(w, &base);
    return status;
}

struct work *work_create(void)
{
    return histo_calloc(1, sizeof(struct work), "the work");
}

void work_destroy(struct work *w)
{
    if (w == NULL)
        return;
    work_release(w);
    free(w);
}

void work_unhold(struct work *w)
{
    free(w->held);
    w->held = NULL;
}

static void work_release(struct work *w)
{
    work_unhold(w);
    release_split(w, false);
    for (size_t s = 0; s < w->ndevices; ++s) {
        struct work_share *sh = &w->shares[s];
        strategy_release_objects(&sh->combine, 1, NULL, 0);
        strategy_release_objects(&sh->parts, 1, NULL, 0);
        if (sh->combine_program != NULL)
            clReleaseProgram(sh->combine_program);
        if (sh->program != NULL)
            clReleaseProgram(sh->program);
        if (sh->copy != NULL)
            clReleaseCommandQueue(sh->copy);
        if (sh->move != NULL)
            clReleaseCommandQueue(sh->move);
        if (sh->gather != NULL)
            clReleaseCommandQueue(sh->gather);
        cl_command_queue plain[] = {sh->plain, sh->plain_move,
                                    sh->plain_gather};
        for (size_t q = 0; q < 3; ++q)
            if (plain[q] != NULL)
                clReleaseCommandQueue(plain[q]);
        if (sh->queue != NULL)
            clReleaseCommandQueue(sh->queue);
    }
    if (w->context != NULL)
        clReleaseContext(w->context);
    memset(w, 0, sizeof *w);
}
