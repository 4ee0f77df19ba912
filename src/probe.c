/* probe.c - what each device is measured for before the strategy runs:
 * whether its timestamps time a kernel, how many iterations its loops
 * make (kernels/probe.cl), and the combine kernel built for it (see
 * work.h, work_probe). */
#include "work_state.h"

#include "params.h"
#include "program.h"
#include "reference.h"
#include "timer.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Iterations the loop probe (kernels/probe.cl) asks of one work-item:
 * twice llvmpipe's 65535, and a few milliseconds on one GPU thread. */
#define WORK_LOOP_PROBE_TRIPS (UINT32_C(1) << 17)

/* Whether the probe's event timed its kernel: its work-item made
 * `steps` dependent steps (a multiply, an add and a load each), which no
 * device runs faster than one in 0.2 ns (5 GHz), so a span under
 * steps / 5 ns (rusticl's is 1 ns for 65,535 steps) or one that ends
 * before it starts says the device's timestamps cannot time the
 * iterations; *unusable then says why (else it is left as it is). The
 * span is judged alone, not against the host's time for the launch,
 * which includes a compile where the kernel cache is cold. */
static int probe_clock(cl_event ev, cl_uint steps, const char **unusable)
{
    int status = HISTO_OK;
    cl_ulong start = 0, end = 0;
    CL_CALL(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START,
                                    sizeof start, &start, NULL));
    CL_CALL(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END,
                                    sizeof end, &end, NULL));
    if (end < start)
        *unusable = "the loop probe's kernel ended before it began";
    else if ((end - start) * 5 < steps)
        *unusable = "the loop probe's kernel ran faster than a "
                    "dependent step in 0.2 ns by its events";
fail:
    return status;
}

/* Runs kernels/probe.cl on the share's device: sh->loop_limit is the
 * number of iterations it made when that is fewer than it asked for (the
 * device ends loops early), else 0; its event checks the device's
 * timestamps (probe_clock). */
static int probe_loops(struct work *w, struct work_share *sh)
{
    int status = HISTO_OK;
    cl_kernel k = NULL;
    cl_event ev = NULL;
    cl_mem ones = NULL, out = NULL;
    cl_uint host_ones[16], got[2] = {0, 0};
    const cl_uint n = WORK_LOOP_PROBE_TRIPS;
    const size_t one = 1;
    for (size_t i = 0; i < 16; ++i)
        host_ones[i] = 1;
    CL_CREATE(k, clCreateKernel(sh->combine_program, "loop_probe",
                                &cl_err_));
    CL_CREATE(ones, clCreateBuffer(w->context, CL_MEM_READ_ONLY
                                   | CL_MEM_COPY_HOST_PTR, sizeof host_ones,
                                   host_ones, &cl_err_));
    CL_CREATE(out, clCreateBuffer(w->context, CL_MEM_WRITE_ONLY, sizeof got,
                                  NULL, &cl_err_));
    CL_CALL(clSetKernelArg(k, 0, sizeof ones, &ones));
    CL_CALL(clSetKernelArg(k, 1, sizeof n, &n));
    CL_CALL(clSetKernelArg(k, 2, sizeof out, &out));
    CL_CALL(clEnqueueNDRangeKernel(sh->queue, k, 1, NULL, &one, &one, 0,
                                   NULL, &ev));
    CL_CALL(clEnqueueReadBuffer(sh->queue, out, CL_TRUE, 0, sizeof got, got,
                                0, NULL, NULL));
    if (got[0] > n) {
        histo_error("'%s' counted %u iterations of a loop of %u "
                    "(kernels/probe.cl): its kernels cannot be trusted",
                    sh->device->name, got[0], n);
        status = HISTO_EXIT_DEVICE;
        goto fail;
    }
    sh->loop_limit = got[0] < n ? got[0] : 0;
    const char *unusable = NULL;
    status = probe_clock(ev, got[0], &unusable);
    if (unusable != NULL)
        sh->clock_unusable = unusable;
fail:
    if (ev != NULL)
        clReleaseEvent(ev);
    const cl_mem mems[] = {ones, out};
    strategy_release_objects(&k, 1, mems, 2);
    return status;
}

static int build_combine(struct work *w, struct work_share *sh,
                         const char *kernel_dir)
{
    int status = HISTO_OK;
    static const char *const files[] = {"combine.cl", "probe.cl"};
    const struct device_info *dev = sh->device;
    if ((status = program_build(w->context, dev, kernel_dir, files, 2, NULL,
                                &sh->combine_program)) != HISTO_OK
        || (status = probe_loops(w, sh)) != HISTO_OK)
        return status;
    CL_CREATE(sh->combine, clCreateKernel(sh->combine_program, "combine",
                                          &cl_err_));
    if (w->ndevices > 1)
        CL_CREATE(sh->parts, clCreateKernel(sh->combine_program,
                                            "combine_parts", &cl_err_));
    /* 16 bins a work-item, at most 4 groups a compute unit (they stride),
     * and at least 16 work-items for the bins past the last 16; on a
     * device that ends loops early, enough groups to stay within it. */
    const uint64_t runs = w->input->nbins / 16 + 1;
    size_t local;
    if ((status = strategy_group_size(dev, sh->combine, HISTO_WORK_GROUP,
                                      &local, NULL)) != HISTO_OK
        || (sh->parts != NULL
            && (status = strategy_group_size(dev, sh->parts, local, &local,
                                             NULL)) != HISTO_OK))
        return status;
    sh->combine_items = strategy_stride_groups(dev, 4, runs, local,
                                               sh->loop_limit) * local;
    if (sh->combine_items < 16)
        sh->combine_items = (16 + local - 1) / local * local;
    sh->combine_local = local;
fail:
    return status;
}

int work_probe(struct work *w, const char *kernel_dir,
               struct strategy_share *shares, size_t *n)
{
    int status = HISTO_OK;
    /* the values a device counts at most: the largest share's, so that
     * the default follows what each device counts (a share below
     * HISTO_FUSED_MAX_VALUES runs fused: one launch a share and
     * iteration); the whole input's where the first device holds it
     * (--device all measures every count with one strategy) */
    uint64_t most = w->whole ? w->input->nvalues : 0;
    for (size_t s = 0; s < w->nshares; ++s)
        most = most > w->shares[s].count ? most : w->shares[s].count;
    for (size_t s = 0; s < w->ndevices && status == HISTO_OK; ++s) {
        status = build_combine(w, &w->shares[s], kernel_dir);
        shares[s] = (struct strategy_share){
            .device = w->shares[s].device,
            .loop_limit = w->shares[s].loop_limit,
            .nbins = w->input->nbins,
            .nvalues = most,
        };
    }
    *n = w->ndevices;
    return status;
}
