/* fill.c - the input into the devices' buffers: resident chunks, or
 * streamed ones through pinned host memory, from the file (its values
 * counted into the check's histogram on the way) or, split again, from
 * the first device's copy (see work.h, work_fill). */
#include "work_state.h"

#include "env.h"
#include "params.h"
#include "program.h"
#include "reference.h"
#include "timer.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int work_create_buffer(struct work *w, const struct device_info *dev,
                       const char *what, cl_mem_flags flags, size_t bytes,
                       cl_mem *mem)
{
    int status = device_check_alloc(dev, what, bytes);
    if (status != HISTO_OK)
        return status;
    CL_CREATE(*mem, clCreateBuffer(w->context, flags, bytes, NULL,
                                   &cl_err_));
fail:
    return status;
}

/* Values just read, counted into the host's histogram for the check. */
static void expect_add(struct work *w, const uint32_t *values, size_t n)
{
    if (w->expect == NULL)
        return;
    const double t0 = timer_now();
    reference_add(values, n, w->expect);
    w->expect_s += timer_now() - t0;
}

/* The next k values of `src` into dst. */
static int source_next(struct work *w, struct source *src, uint32_t *dst,
                       size_t k)
{
    int status = HISTO_OK;
    if (src->stream != NULL) {
        if ((status = input_next(src->stream, dst, k)) == HISTO_OK)
            expect_add(w, dst, k);
        return status;
    }
    if (src->held != NULL) {
        memcpy(dst, src->held + src->at, k * sizeof *dst);
        src->at += k;
        return HISTO_OK;
    }
    const struct work_share *first = &w->shares[0];
    while (k > 0) {
        const size_t c = src->at / first->chunk_values;
        const size_t at = src->at % first->chunk_values;
        const size_t n = min64(k, first->chunk_values - at);
        CL_CALL(clEnqueueReadBuffer(first->queue, first->buffers[c], CL_TRUE,
                                    at * sizeof(cl_uint),
                                    n * sizeof(cl_uint), dst, 0, NULL,
                                    NULL));
        dst += n;
        k -= n;
        src->at += n;
    }
fail:
    return status;
}

/* A resident share: each chunk's buffer, filled through `staging`. */
static int fill_resident(struct work *w, struct work_share *sh,
                         struct source *src, uint32_t *staging)
{
    int status = HISTO_OK;
    HOST_ALLOC(sh->buffers, sh->nchunks);
    for (size_t c = 0; c < sh->nchunks; ++c) {
        const size_t len = chunk_length(sh, c);
        if ((status = work_create_buffer(w, sh->device, "input chunk",
                                         CL_MEM_READ_ONLY,
                                         len * sizeof(cl_uint),
                                         &sh->buffers[c])) != HISTO_OK)
            return status;
        for (size_t done = 0; done < len;) {
            const size_t k = min64(len - done, WORK_STAGING_VALUES);
            if ((status = source_next(w, src, staging, k)) != HISTO_OK)
                return status;
            const double t0 = timer_now();
            CL_CALL(clEnqueueWriteBuffer(sh->queue, sh->buffers[c], CL_TRUE,
                                         done * sizeof(cl_uint),
                                         k * sizeof(cl_uint), staging, 0,
                                         NULL, NULL));
            w->upload_s += timer_now() - t0;
            done += k;
        }
    }
fail:
    return status;
}

/* Host memory allocated by the implementation, mapped on `queue` with
 * `flags`: pinned on GPUs, so copies from and to it run at full speed and
 * asynchronously. The mapping, its buffer in *mem; NULL (and *mem NULL)
 * where the implementation gives none: the caller falls back to ordinary
 * memory. */
void *work_map_pinned(struct work *w, cl_command_queue queue, size_t bytes,
                      cl_map_flags flags, cl_mem *mem)
{
    cl_int err;
    *mem = clCreateBuffer(w->context, CL_MEM_ALLOC_HOST_PTR
                          | CL_MEM_READ_WRITE, bytes, NULL, &err);
    void *p = NULL;
    if (*mem != NULL && err == CL_SUCCESS)
        p = clEnqueueMapBuffer(queue, *mem, CL_TRUE, flags, 0, bytes, 0,
                               NULL, NULL, &err);
    if (p != NULL && err == CL_SUCCESS)
        return p;
    if (*mem != NULL)
        clReleaseMemObject(*mem);
    *mem = NULL;
    return NULL;
}

/* What map_pinned gave (mem not NULL: unmapped on `queue`, released) or
 * its fallback's ordinary memory (freed). */
void work_unmap_pinned(cl_command_queue queue, cl_mem mem, void *p)
{
    if (mem != NULL) {
        clEnqueueUnmapMemObject(queue, mem, p, 0, NULL, NULL);
        clFinish(queue);
        clReleaseMemObject(mem);
    } else {
        free(p);
    }
}

/* Host memory for a streamed chunk: pinned where the implementation
 * gives it (map_pinned), else ordinary memory; pinned stays true while
 * every chunk so far got the former. */
static int host_chunk(struct work *w, struct work_share *sh, size_t c,
                      size_t bytes)
{
    sh->host[c] = work_map_pinned(w, sh->queue, bytes, CL_MAP_WRITE,
                                  &sh->host_mem[c]);
    if (sh->host[c] != NULL)
        return HISTO_OK;
    sh->pinned = false;
    sh->host[c] = malloc(bytes);
    if (sh->host[c] == NULL) {
        histo_error("out of host memory for a streamed chunk (%zu bytes)",
                    bytes);
        return HISTO_EXIT_INTERNAL;
    }
    return HISTO_OK;
}

/* A streamed share: two device buffers, and every chunk in host memory. */
static int fill_streamed(struct work *w, struct work_share *sh,
                         struct source *src)
{
    int status = HISTO_OK;
    HOST_ALLOC(sh->buffers, 2);
    HOST_ALLOC(sh->host, sh->nchunks);
    HOST_ALLOC(sh->host_mem, sh->nchunks);
    for (size_t b = 0; b < 2; ++b)
        if ((status = work_create_buffer(w, sh->device, "streamed chunk",
                                         CL_MEM_READ_ONLY,
                                         sh->chunk_values * sizeof(cl_uint),
                                         &sh->buffers[b])) != HISTO_OK)
            return status;
    sh->pinned = true;
    for (size_t c = 0; c < sh->nchunks; ++c) {
        const size_t len = chunk_length(sh, c);
        if ((status = host_chunk(w, sh, c, len * sizeof(cl_uint)))
                != HISTO_OK
            || (status = source_next(w, src, sh->host[c], len)) != HISTO_OK)
            return status;
    }
fail:
    return status;
}

/* Shares from..nshares-1, each filled from `src` in turn. */
int work_fill_shares(struct work *w, size_t from, struct source *src)
{
    int status = HISTO_OK;
    uint32_t *staging = NULL;
    for (size_t s = from; s < w->nshares && status == HISTO_OK; ++s) {
        struct work_share *sh = &w->shares[s];
        if (sh->streamed) {
            status = fill_streamed(w, sh, src);
            continue;
        }
        if (staging == NULL) {
            staging = histo_calloc(WORK_STAGING_VALUES, sizeof *staging,
                                   "staging buffer");
            if (staging == NULL)
                return HISTO_EXIT_INTERNAL;
        }
        status = fill_resident(w, sh, src, staging);
    }
    free(staging);
    return status;
}

int work_fill(struct work *w, struct input_stream *stream, uint8_t *expect,
              struct work_fill_times *times)
{
    struct source src = {.stream = stream};
    w->expect = expect;
    w->upload_s = w->expect_s = 0;
    int status = work_fill_shares(w, 0, &src);
    if (status == HISTO_OK)
        status = input_end(stream);
    w->expect = NULL;
    *times = (struct work_fill_times){w->upload_s, w->expect_s};
    return status;
}

/* Host memory available, in bytes: HISTO_TEST_HOST_BYTES (tests), else
 * /proc/meminfo's MemAvailable; UINT64_MAX where neither tells. */
static int host_available(uint64_t *bytes)
{
    unsigned long forced = 0;
    const int status = env_whole(ENV_HISTO_TEST_HOST_BYTES, &forced);
    *bytes = forced != 0 ? forced : UINT64_MAX;
    FILE *f = forced != 0 ? NULL : fopen("/proc/meminfo", "r");
    char line[128];
    unsigned long long kb;
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
            *bytes = (uint64_t)kb * 1024;
            break;
        }
    if (f != NULL)
        fclose(f);
    return status;
}

int work_hold(struct work *w, bool *held)
{
    *held = false;
    if (!w->whole) {
        histo_error("internal: the input is not whole on the first device "
                    "to be held");
        return HISTO_EXIT_INTERNAL;
    }
    const size_t n = w->input->nvalues;
    uint64_t avail;
    int status = host_available(&avail);
    /* a copy that would take more than half of what is free is not
     * made: the caller measures in the context of all instead */
    if (status != HISTO_OK || (uint64_t)n * sizeof *w->held > avail / 2)
        return status;
    if (w->held == NULL
        && (w->held = calloc(n, sizeof *w->held)) == NULL)
        return HISTO_OK;
    struct source src = {.stream = NULL};
    if ((status = source_next(w, &src, w->held, n)) == HISTO_OK)
        *held = true;
    return status;
}
