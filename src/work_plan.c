/* work_plan.c - the split of an input into shares and chunks: each
 * device's share, its chunks and their lengths, resident or streamed
 * (see work.h). Arithmetic on the devices' properties and the options,
 * no OpenCL call. */
#include "work_state.h"

#include "params.h"
#include "program.h"
#include "reference.h"
#include "timer.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The slot of chunks of this length, added if new (set up on `buffer`,
 * the first such chunk's). */
static size_t slot_of(struct work_share *sh, const struct histo_input *in,
                      size_t buffer, size_t length)
{
    for (size_t i = 0; i < sh->nslots; ++i)
        if (sh->slots[i].view.nvalues == length)
            return i;
    struct work_slot *slot = &sh->slots[sh->nslots];
    slot->buffer = buffer;
    slot->view = *in;
    slot->view.values = NULL;
    slot->view.nvalues = length;
    return sh->nslots++;
}

/* The most bytes of values a device holds resident: --device-budget,
 * else 7/8 of its global memory. */
static uint64_t share_budget(const struct device_info *dev,
                             const struct work_options *opt)
{
    return opt->device_budget != 0 ? opt->device_budget
                                   : dev->global_mem / 8 * 7;
}

static int plan_share(struct work_share *sh, const struct histo_input *in,
                      const struct work_options *opt)
{
    int status = HISTO_OK;
    const struct device_info *dev = sh->device;
    const uint64_t budget = share_budget(dev, opt);
    uint64_t chunk = min64(WORK_MAX_CHUNK_VALUES,
                           dev->max_alloc / sizeof(cl_uint));
    if (opt->chunk_values != 0)
        chunk = min64(chunk, opt->chunk_values);
    sh->streamed = (uint64_t)sh->count * sizeof(cl_uint) > budget;
    if (sh->streamed) {
        if (opt->chunk_values == 0)
            chunk = min64(chunk, WORK_STREAM_CHUNK_VALUES);
        /* two device buffers within the budget */
        chunk = min64(chunk, budget / (2 * sizeof(cl_uint)));
        if (chunk == 0) {
            histo_error("a device budget of %" PRIu64 " bytes cannot hold "
                        "two chunks of one value each", budget);
            return HISTO_EXIT_USAGE;
        }
    }
    if (chunk == 0) {
        histo_error("'%s' allocates at most %llu bytes at once: not one "
                    "value", dev->name, (unsigned long long)dev->max_alloc);
        return HISTO_EXIT_DEVICE;
    }
    sh->chunk_values = (size_t)chunk;
    sh->nchunks = sh->count == 0 ? 0
                : (sh->count - 1) / sh->chunk_values + 1;
    if (sh->nchunks > WORK_WARN_CHUNKS) {
        const char *why = opt->chunk_values != 0 && chunk == opt->chunk_values
                        ? "--chunk-values" : "the device budget";
        const uint64_t least = (sh->count - 1) / WORK_MAX_CHUNKS + 1;
        if (sh->nchunks > WORK_MAX_CHUNKS) {
            histo_error("%zu values on '%s' in chunks of %zu (%s) make %zu "
                        "chunks, more than the %" PRIu64 " histo runs: each "
                        "costs launches and events of its own and a pass "
                        "over the %" PRIu32 "-bin histogram; use chunks of "
                        "at least %" PRIu64 " values", sh->count, dev->name,
                        sh->chunk_values,
                        why, sh->nchunks, WORK_MAX_CHUNKS, in->nbins,
                        least);
            return HISTO_EXIT_USAGE;
        }
        if (sh->chunk_values < WORK_SMALL_CHUNK_VALUES)
            histo_error("warning: %zu values on '%s' in chunks of %zu (%s) "
                        "make %zu chunks: each costs launches of its own "
                        "and a pass over the %" PRIu32 "-bin histogram, "
                        "which may take longer than counting its values",
                        sh->count, dev->name, sh->chunk_values, why,
                        sh->nchunks, in->nbins);
    }
    sh->nbuffers = sh->streamed ? 2 : sh->nchunks;
    /* every chunk but the last is chunk_values long */
    HOST_ALLOC(sh->slots, 2);
    HOST_ALLOC(sh->chunk_slot, sh->nchunks > 0 ? sh->nchunks : 1);
    for (size_t c = 0; c < sh->nchunks; ++c)
        sh->chunk_slot[c] = slot_of(sh, in, sh->streamed ? c % 2 : c,
                                    chunk_length(sh, c));
fail:
    return status;
}

/* The input split over the first `nshares` devices, in proportion to
 * compute units: a device's rate is close to proportional to them among
 * devices of one platform, and they are known before anything runs.
 * Share 0 takes the remainder. */
int work_split(struct work *w, size_t nshares)
{
    int status = HISTO_OK;
    const struct histo_input *in = w->input;
    uint64_t units = 0;
    for (size_t s = 0; s < nshares; ++s)
        units += device_units(w->shares[s].device);
    const uint64_t n = in->nvalues;
    size_t given = 0;
    for (size_t s = nshares; s-- > 1;) {
        const uint64_t cu = device_units(w->shares[s].device);
        w->shares[s].count = (size_t)(n / units * cu + n % units * cu / units);
        given += w->shares[s].count;
    }
    w->shares[0].count = in->nvalues - given;
    w->nshares = nshares;
    size_t first = 0;
    for (size_t s = 0; s < nshares; ++s) {
        struct work_share *sh = &w->shares[s];
        sh->first = first;
        first += sh->count;
        if ((status = plan_share(sh, in, &w->options)) != HISTO_OK)
            return status;
    }
    return HISTO_OK;
}

int work_plan(struct work *w, const struct device_info *const *devices,
              size_t ndevices, const struct histo_input *in,
              const struct work_options *opt, bool whole_first)
{
    int status = HISTO_OK;
    memset(w, 0, sizeof *w);
    w->input = in;
    w->options = *opt;
    if (ndevices < 1 || ndevices > WORK_MAX_SHARES) {
        histo_error("%zu devices named: histo runs on 1 to %d at once",
                    ndevices, WORK_MAX_SHARES);
        return HISTO_EXIT_USAGE;
    }
    w->ndevices = w->nnamed = ndevices;
    for (size_t d = 0; d < ndevices; ++d) {
        w->shares[d].device = w->named[d] = devices[d];
        if ((status = device_check_alloc(devices[d], "histogram",
                                         in->nbins)) != HISTO_OK)
            return status;
    }
    /* Only a resident whole can be split again on the device: a streamed
     * one is read from the file once, into host memory. */
    w->whole = whole_first && ndevices > 1
               && (uint64_t)in->nvalues * sizeof(cl_uint)
                      <= share_budget(devices[0], opt);
    return work_split(w, w->whole ? 1 : ndevices);
}
