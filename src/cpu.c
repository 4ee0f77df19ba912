/*
 * cpu.c - host side of the cpu strategy: plan the batches and merge ranges
 * (cpu_plan.h: from the input's size, the histogram's size and the
 * device's compute units), own the buffers, enqueue count -> merge, or
 * the count alone where its groups meet and merge in the same launch.
 *
 * The 116.histo description lets architectures with an implicit cache skip
 * the eye analysis; on them local memory is just cached memory and local
 * atomics and barriers are expensive (PoCL's pthread device). So each
 * batch of the input is counted into a byte histogram of its own with
 * plain increments, batch 0 straight into the output, and the merge adds
 * the touched lines of the others to it; one batch is one command, with
 * no merge, and so are several where the device has a fence of device
 * scope and ends no loop early: the count's groups meet once counted and
 * merge (kernels/cpu_count.cl), saving a command, which costs PoCL a
 * wake-up of all its threads. One work-item per
 * work-group throughout: on PoCL a work-group runs on one core as a plain
 * loop. docs/design.md has the designs measured against this one.
 *
 * Nothing is read back inside an iteration, and no state survives one: the
 * private histograms are zero when an iteration starts because the merge
 * that consumed them cleared them (they are filled with zeros once, at
 * setup), and batch 0 rebuilds the output from zero.
 */
#include "cpu.h"

#include "cpu_plan.h"
#include "params.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cpu_count.cl's one-command plan calls cpu_merge.cl's merge_lines */
static const char *const sources[] = {"cpu_merge.cl", "cpu_count.cl"};
static const char *const kernel_names[] = {"cpu_count", "cpu_merge"};
enum { K_COUNT, K_MERGE, K_NUM };

struct cpu_plan {
    cl_uint batches;         /* B: input batches, one work-group each      */
    cl_uint first;           /* values in batch 0 (counted into the output) */
    cl_uint slice;           /* values in each of batches 1..B-1            */
    cl_uint privates;        /* B - 1 private histograms                    */
    cl_ulong stride;         /* bytes per private histogram: whole lines    */
    cl_uint nlines;          /* lines of 2^HISTO_CPU_LINE_LOG2 bins         */
    cl_uint merge_groups;    /* work-groups of the merge, 0: none (B = 1)   */
    cl_uint lines_per_group; /* lines each merge work-group owns            */
    uint64_t partial_bytes;  /* privates * stride                           */
    uint64_t units;          /* the device's compute units                  */
    bool one_built;          /* the program holds the one-command plan     */
    enum device_fence fence; /* the device's, which the meeting needs       */
    bool one_command;        /* count and merge in one launch (B > 1)       */
};

/* The control words of the one-command plan's meeting, a block for even
 * and one for odd launches (kernels/cpu_count.cl). */
#define CPU_CTL_WORDS 4u

/* b first, so that the strategy_buffers_ functions take the state as
 * theirs (strategy.h); b.scratch holds the private histograms. */
struct cpu_state {
    struct strategy_buffers b;
    struct cpu_plan plan;
    cl_mem control;          /* 2 * CPU_CTL_WORDS words, zeroed at setup  */
    cl_uint launch;          /* launches so far: the control block's parity */
    const char *threads_var; /* the variable for the device's thread count
                                (the report's hint; quirks.c), or NULL    */
    uint64_t values;         /* the chunk's values (the report's hint)      */
};

/* Loop iterations one work-item of the cpu kernels makes, counted as a
 * device that ends loops early counts them (kernels/probe.cl): every
 * entry into a loop counts at least once. */
static uint64_t clear_trips(uint64_t nbins)
{
    return nbins / 64 + nbins % 64 + 2;
}

static uint64_t count_trips(uint64_t values)
{
    return values + values / HISTO_CPU_CHUNK + 2;
}

/* A merge group: for each private histogram its lines, each read once
 * and, when not zero, added a counter at a time, then the partial line. */
static uint64_t merge_trips(uint64_t privates, uint64_t lines)
{
    const uint64_t line = UINT64_C(1) << HISTO_CPU_LINE_LOG2;
    return privates * ((lines + 1) * (line + 2) + 1) + 1;
}

/* Iterations the plan allows one work-item on a device whose loops end
 * after `limit`: the trips above are counted exactly, so most of it. */
static uint64_t trip_budget(uint32_t limit)
{
    return limit - limit / 16;
}

/* Whether one work-item clears an output of nbins counters (and counts
 * a value) within the loop limit (0: none). */
static bool clears_within(uint64_t nbins, uint32_t loop_limit)
{
    return loop_limit == 0
        || clear_trips(nbins) + count_trips(1) <= trip_budget(loop_limit);
}

/* Where local memory is cached global memory (CL_GLOBAL, as on CPUs) or
 * none (CL_NONE): there local atomics and barriers cost more than private
 * histograms that the cache keeps close (docs/design.md). Not where the
 * device's loop limit is too short for one work-item to clear the
 * output. */
static bool cpu_fits(const struct strategy_share *sh)
{
    return sh->device->local_mem_type != CL_LOCAL
        && clears_within(sh->nbins, sh->loop_limit);
}

/* Whether the device has OpenCL C 2.0 or 3.0's fence of device scope,
 * which the one-command plan's meeting orders memory across groups by. */
static bool fence_scoped(const struct device_info *dev)
{
    return dev->fence == DEVICE_FENCE_C30 || dev->fence == DEVICE_FENCE_C20;
}

/* Whether the program holds the one-command plan: where the device ends
 * no loop early (its groups wait for each other) and has a fence of
 * device scope. $HISTO_TEST_CPU_COMMANDS, test-only: 1 builds it wherever
 * no loop ends early (mem_fence standing in: the kernel checker), 2
 * never. */
static bool one_command_built(const struct device_info *dev,
                              uint32_t loop_limit)
{
    unsigned long forced = 0;
    (void)env_whole(ENV_HISTO_TEST_CPU_COMMANDS, &forced);
    if (forced != 0)
        return forced == 1 && loop_limit == 0;
    return loop_limit == 0 && fence_scoped(dev);
}

/* Batch 0's and the others' values for B batches: batch 0 is shorter by
 * the values' worth of zeroing the output. */
static void split_batches(uint64_t n, uint64_t nbins, uint64_t batches,
                          uint64_t *first, uint64_t *slice)
{
    const uint64_t lead = nbins / HISTO_CPU_ZERO_BYTES_PER_VALUE;
    *first = n;
    *slice = 0;
    if (batches > 1) {
        const uint64_t even = (n + lead + batches - 1) / batches;
        *first = even > lead ? even - lead : 0;
        if (*first > n)
            *first = n;
        *slice = (n - *first + batches - 2) / (batches - 1);
    }
}

/* B as the cost model chooses (cpu_plan_batches; --batches overrides),
 * never more batches than values and, unless asked for, never more
 * private histograms than
 * one allocation below HISTO_CPU_PRIVATE_BYTES holds. On a device that
 * ends loops early (loop_limit), more batches, as many as keep every
 * work-item's loops within it. Fills the plan's batches, first, slice,
 * privates, stride and nlines. */
static int plan_batches(struct cpu_plan *p, const struct strategy_env *env,
                        uint64_t budget)
{
    const struct device_info *dev = env->device;
    const struct histo_input *in = env->input;
    const uint64_t n = in->nvalues;
    const uint64_t line = UINT64_C(1) << HISTO_CPU_LINE_LOG2;
    const uint64_t nlines = (in->nbins + line - 1) / line;
    const uint64_t stride = nlines * line;
    const uint64_t room = dev->max_alloc < HISTO_CPU_PRIVATE_BYTES - 1
                          ? dev->max_alloc : HISTO_CPU_PRIVATE_BYTES - 1;
    const uint64_t most = room / stride + 1;
    uint64_t batches = env->knobs.v[KNOB_BATCHES];
    if (batches == 0) {
        batches = cpu_plan_batches(n, stride, device_units(dev),
                                   p->one_built);
        if (batches > n)
            batches = n;
        if (batches > most)
            batches = most;
    }
    if (batches == 0)
        batches = 1;
    uint64_t first, slice;
    split_batches(n, in->nbins, batches, &first, &slice);
    /* Within the loop limit: batches grow until batch 0 (clearing the
     * output too) and every other batch fit. */
    while (clear_trips(in->nbins) + count_trips(first) > budget
           || count_trips(slice) > budget) {
        const uint64_t lead = budget - clear_trips(in->nbins);
        const uint64_t per = budget * HISTO_CPU_CHUNK
                             / (HISTO_CPU_CHUNK + 1) - 2;
        const uint64_t more = 1 + (n > lead ? (n - lead + per - 1) / per
                                            : 0);
        batches = more > batches ? more : batches + 1;
        split_batches(n, in->nbins, batches, &first, &slice);
    }
    /* Past the device's largest allocation, device_check_alloc says so;
     * below it, past 2^31 bytes, this. */
    if (batches > most && (batches - 1) * stride <= dev->max_alloc) {
        histo_error("the cpu strategy with %" PRIu64 " batches needs %"
                    PRIu64 " private %" PRIu32 "-bin histograms in one "
                    "buffer, %" PRIu64 " bytes; it takes at most %" PRIu64
                    " below 2^31 bytes (params.h says why): use --batches "
                    "%" PRIu64 " or fewer",
                    batches, batches - 1, in->nbins, (batches - 1) * stride,
                    most - 1, most);
        return HISTO_EXIT_DEVICE;
    }
    /* Worked out in 64 bits; what is kept in a cl_uint fits: first and
     * slice <= n <= 2^31, nlines <= 2^26, batches <= 65536 (knobs.c), the
     * compute units, or n / 30000 within a loop limit. */
    p->batches = (cl_uint)batches;
    p->first = (cl_uint)first;
    p->slice = (cl_uint)slice;
    p->privates = (cl_uint)(batches - 1);
    p->stride = stride;
    p->nlines = (cl_uint)nlines;
    return HISTO_OK;
}

/* The merge: HISTO_CPU_MERGE_SPLIT ranges of lines per batch
 * (cpu_plan_merge_groups), more (of fewer lines) where a work-item's loops
 * must stay within budget; none for one batch. */
static int plan_merge(struct cpu_plan *p, const struct strategy_env *env,
                      uint64_t budget)
{
    const uint64_t nlines = p->nlines;
    p->units = device_units(env->device);
    p->partial_bytes = p->privates * p->stride;
    uint64_t groups = cpu_plan_merge_groups(p->batches, nlines);
    if (groups == 0) {
        p->merge_groups = 0;
        p->lines_per_group = 0;
        return HISTO_OK;
    }
    uint64_t per_group = (nlines + groups - 1) / groups;
    while (per_group > 1 && merge_trips(p->privates, per_group) > budget)
        per_group = (per_group + 1) / 2;
    if (merge_trips(p->privates, per_group) > budget) {
        histo_error("the cpu strategy's merge of %" PRIu32 " private "
                    "histograms needs %" PRIu64 " loop iterations in one "
                    "work-item, and '%s' ends a work-item's loops after %"
                    PRIu32 " (kernels/probe.cl): use --strategy global or "
                    "eye, or fewer values a chunk (--chunk-values)",
                    p->privates, merge_trips(p->privates, 1),
                    env->device->name, env->loop_limit);
        return HISTO_EXIT_DEVICE;
    }
    groups = (nlines + per_group - 1) / per_group;
    p->merge_groups = (cl_uint)groups;
    p->lines_per_group = (cl_uint)per_group;
    return HISTO_OK;
}

/* The batches and the merge, refused up front where the output cannot be
 * cleared within the device's loop limit, and checked against its
 * largest allocation before anything is allocated: the output histogram
 * first, since a histogram of up to 2^32 - 1 bins passes the input check
 * but not every device's allocation limit. */
static int plan(struct cpu_plan *p, const struct strategy_env *env)
{
    const struct device_info *dev = env->device;
    const struct histo_input *in = env->input;
    const uint32_t limit = env->loop_limit;
    const uint64_t budget = limit != 0 ? trip_budget(limit) : UINT64_MAX;
    if (!clears_within(in->nbins, limit)) {
        histo_error("the cpu strategy clears the %" PRIu32 "-bin output in "
                    "one work-item, %" PRIu64 " loop iterations, and '%s' "
                    "ends a work-item's loops after %" PRIu32 " "
                    "(kernels/probe.cl): use --strategy global or eye",
                    in->nbins, clear_trips(in->nbins), dev->name, limit);
        return HISTO_EXIT_DEVICE;
    }
    p->one_built = one_command_built(dev, limit);
    p->fence = dev->fence;
    int status;
    if ((status = plan_batches(p, env, budget)) != HISTO_OK
        || (status = plan_merge(p, env, budget)) != HISTO_OK
        || (status = device_check_alloc(dev, "histogram", in->nbins))
               != HISTO_OK)
        return status;
    p->one_command = p->batches > 1 && p->one_built;
    return device_check_alloc(dev, "private histograms", p->partial_bytes);
}

/* Where the device ends loops early, the counting pass keeps one inner
 * loop (kernels/cpu_count.cl, HISTO_CPU_ONE_LOOP): with both live,
 * llvmpipe ended them well before the trips the plan allows
 * (docs/design.md, "Devices that end loops early"). */
static int cpu_defines(const struct device_info *dev, uint32_t loop_limit,
                       struct program_defines *d)
{
    const bool one = one_command_built(dev, loop_limit);
    const bool scoped = fence_scoped(dev);
    snprintf(d->text[0], sizeof d->text[0],
             "-DHISTO_CPU_ONE_LOOP=%d -DHISTO_CPU_ONE_COMMAND=%d "
             "-DHISTO_CPU_DEVICE_FENCE=%d -DHISTO_CPU_CTL_WORDS=%uu",
             loop_limit != 0, one, one && scoped, CPU_CTL_WORDS);
    d->count = 1;
    snprintf(d->std, sizeof d->std, "%s",
             !one || !scoped                  ? ""
             : dev->fence == DEVICE_FENCE_C30 ? "CL3.0"
                                              : "CL2.0");
    return HISTO_OK;
}

static void cpu_release(void *opaque)
{
    struct cpu_state *s = opaque;
    if (s != NULL && s->control != NULL)
        clReleaseMemObject(s->control);
    strategy_buffers_release(s);
}

static int cpu_setup(const struct strategy_env *env, void **opaque)
{
    int status = HISTO_OK;
    struct cpu_state *s = NULL;
    HOST_ALLOC(s, 1);
    if ((status = plan(&s->plan, env)) != HISTO_OK)
        goto fail;
    const struct cpu_plan *p = &s->plan;
    /* One batch has no private histogram; OpenCL has no empty buffers. */
    const size_t partial_bytes = p->partial_bytes > 0
                               ? (size_t)p->partial_bytes : 64;
    if ((status = strategy_buffers_create(&s->b, env, kernel_names, K_NUM,
                                          partial_bytes)) != HISTO_OK)
        goto fail;
    s->values = env->input->nvalues;
    s->threads_var = env->device->quirks.cpu_units;
    /* one work-item a group: on PoCL a group runs on one core as a plain
     * loop (the top of this file); one batch launches the count alone */
    s->b.nkernels = cpu_plan_commands(p->batches, p->one_command);
    s->b.global[K_COUNT] = p->batches;
    s->b.global[K_MERGE] = p->merge_groups > 0 ? p->merge_groups : 1;
    s->b.local[K_COUNT] = s->b.local[K_MERGE] = 1;

    /* A chunk holds at most WORK_MAX_CHUNK_VALUES = 2^31 values: fits
     * in cl_uint. */
    const cl_uint n = (cl_uint)env->input->nvalues;
    const cl_uint nbins = env->input->nbins;
    cl_kernel k = s->b.kernel[K_COUNT];
    CL_CALL(clSetKernelArg(k, 0, sizeof(cl_mem), &s->b.values));
    CL_CALL(clSetKernelArg(k, 1, sizeof n, &n));
    CL_CALL(clSetKernelArg(k, 2, sizeof p->first, &p->first));
    CL_CALL(clSetKernelArg(k, 3, sizeof p->slice, &p->slice));
    CL_CALL(clSetKernelArg(k, 4, sizeof nbins, &nbins));
    CL_CALL(clSetKernelArg(k, 5, sizeof p->stride, &p->stride));
    CL_CALL(clSetKernelArg(k, 6, sizeof(cl_mem), &s->b.scratch));
    CL_CALL(clSetKernelArg(k, 7, sizeof(cl_mem), &s->b.histo));
    const cl_uint zero = 0;
    CL_CREATE(s->control, clCreateBuffer(env->context, CL_MEM_READ_WRITE,
                                         2 * CPU_CTL_WORDS * sizeof zero,
                                         NULL, &cl_err_));
    CL_CALL(clEnqueueFillBuffer(env->queue, s->control, &zero, sizeof zero, 0,
                                2 * CPU_CTL_WORDS * sizeof zero, 0, NULL,
                                NULL));
    /* ranges 0: the count alone (cpu_count.cl) */
    const cl_uint ranges = p->one_command ? p->merge_groups : 0;
    CL_CALL(clSetKernelArg(k, 8, sizeof(cl_mem), &s->control));
    CL_CALL(clSetKernelArg(k, 9, sizeof s->launch, &s->launch));
    CL_CALL(clSetKernelArg(k, 10, sizeof ranges, &ranges));
    CL_CALL(clSetKernelArg(k, 11, sizeof p->lines_per_group,
                           &p->lines_per_group));

    k = s->b.kernel[K_MERGE];
    CL_CALL(clSetKernelArg(k, 0, sizeof(cl_mem), &s->b.scratch));
    CL_CALL(clSetKernelArg(k, 1, sizeof p->privates, &p->privates));
    CL_CALL(clSetKernelArg(k, 2, sizeof p->stride, &p->stride));
    CL_CALL(clSetKernelArg(k, 3, sizeof nbins, &nbins));
    CL_CALL(clSetKernelArg(k, 4, sizeof p->lines_per_group,
                           &p->lines_per_group));
    CL_CALL(clSetKernelArg(k, 5, sizeof(cl_mem), &s->b.histo));

    *opaque = s;
    return HISTO_OK;
fail:
    cpu_release(s);
    return status;
}

/* The launch's number, whose parity picks the one-command plan's
 * control block, set before each enqueue. */
static int next_launch(struct cpu_state *s)
{
    int status = HISTO_OK;
    CL_CALL(clSetKernelArg(s->b.kernel[K_COUNT], 9, sizeof s->launch,
                           &s->launch));
    ++s->launch;
fail:
    return status;
}

/* An iteration; where only the count is launched (one batch, or one
 * command), the merge's event slot holds the count's event again
 * (strategy.h: a repeated event is a kernel the plan did not launch). */

static int cpu_enqueue(void *opaque, cl_command_queue queue,
                       cl_event *events)
{
    int status = HISTO_OK;
    struct cpu_state *s = opaque;
    if ((status = next_launch(s)) != HISTO_OK
        || (status = strategy_buffers_enqueue(s, queue, events)) != HISTO_OK)
        return status;
    if (s->b.nkernels < K_NUM) {
        CL_CALL(clRetainEvent(events[K_COUNT]));
        events[K_MERGE] = events[K_COUNT];
    }
fail:
    return status;
}

static int cpu_enqueue_last(void *opaque, cl_command_queue queue,
                            cl_event *last)
{
    int status = next_launch(opaque);
    return status != HISTO_OK
               ? status
               : strategy_buffers_enqueue_last(opaque, queue, last);
}

static void cpu_used(const void *opaque, struct knob_used *u)
{
    const struct cpu_state *s = opaque;
    u->v[KNOB_BATCHES] = (long)s->plan.batches;
}

static void cpu_report(const void *opaque, FILE *f)
{
    const struct cpu_state *s = opaque;
    const struct cpu_plan *p = &s->plan;
    fprintf(f, "config.batches = %u\n", p->batches);
    fprintf(f, "config.values_first_batch = %u\n", p->first);
    fprintf(f, "config.values_per_batch = %u\n", p->slice);
    fprintf(f, "config.private_histograms = %u\n", p->privates);
    fprintf(f, "config.counter_bits = 8\n");
    fprintf(f, "config.line_bins = %u\n", 1u << HISTO_CPU_LINE_LOG2);
    fprintf(f, "config.lines = %u\n", p->nlines);
    fprintf(f, "config.merge_groups = %u\n", p->merge_groups);
    fprintf(f, "config.lines_per_merge_group = %u\n", p->lines_per_group);
    fprintf(f, "config.work_group.cpu_count = 1\n");
    fprintf(f, "config.work_group.cpu_merge = 1\n");
    fprintf(f, "config.partial_bytes = %llu\n",
            (unsigned long long)p->partial_bytes);
    const uint64_t used = p->merge_groups > p->batches ? p->merge_groups
                                                        : p->batches;
    const uint64_t units_used = used < p->units ? used : p->units;
    fprintf(f, "cpu.commands_per_iteration = %u\n",
            cpu_plan_commands(p->batches, p->one_command));
    fprintf(f, "config.fence = %s\n", device_fence_name(p->fence));
    fprintf(f, "cpu.merge = %s\n",
            p->batches == 1  ? "none (one batch)"
            : p->one_command ? "in cpu_count, after its groups meet"
                             : "cpu_merge");
    fprintf(f, "cpu.compute_units = %llu\n", (unsigned long long)p->units);
    fprintf(f, "cpu.compute_units_used = %llu\n",
            (unsigned long long)units_used);
    /* PoCL's CPU device wakes every worker thread for each command, also
     * those a plan of fewer work-groups leaves idle, and that costs most
     * on many cores; neither fewer groups nor a sub-device avoided it on
     * PoCL 5.0 (docs/design.md). Its own variable does, and only the user
     * may set it: named where the model puts the input at under 3/4 of
     * this plan's cost on fewer threads. */
    double fewer_us = 0;
    const uint64_t fewer = cpu_plan_units(s->values, p->stride, p->units,
                                          p->one_built, &fewer_us);
    const double plan_us = cpu_plan_cost_us(s->values, p->stride, p->units,
                                            p->batches, p->one_command);
    if (s->threads_var != NULL && fewer < p->units
        && fewer_us < 0.75 * plan_us)
        fprintf(f, "cpu.hint = PoCL wakes all %llu of its threads for every "
                   "command; the cost model (docs/design.md) puts an "
                   "iteration at %.0f us on %llu threads against %.0f on "
                   "%llu: %s=%llu may make it faster\n",
                (unsigned long long)p->units, fewer_us,
                (unsigned long long)fewer, plan_us,
                (unsigned long long)p->units, s->threads_var,
                (unsigned long long)fewer);
}

static void cpu_summary(const void *opaque, FILE *f)
{
    const struct cpu_state *s = opaque;
    if (s->plan.batches == 1) {
        fputs("B=1 batch counted straight into the output, one command "
              "an iteration", f);
        return;
    }
    fprintf(f, "B=%u batches (batch 0 into the output, %u private 8-bit "
               "histograms), merged in %u ranges of %u lines, %s",
            s->plan.batches, s->plan.privates, s->plan.merge_groups,
            s->plan.lines_per_group,
            s->plan.one_command ? "one command an iteration (the groups meet)"
                                : "two commands an iteration");
}

const struct strategy cpu_strategy = {
    .name = "cpu",
    .knobs = KNOB_BIT(KNOB_BATCHES),
    .sources = sources,
    .nsources = sizeof sources / sizeof sources[0],
    .kernels = kernel_names,
    .nkernels = K_NUM,
    .defines = cpu_defines,
    .fits = cpu_fits,
    .setup = cpu_setup,
    .enqueue = cpu_enqueue,
    .enqueue_last = cpu_enqueue_last,
    .download = strategy_buffers_download,
    .output = strategy_buffers_output,
    .bind = strategy_buffers_bind,
    .release = cpu_release,
    .report = cpu_report,
    .used = cpu_used,
    .summary = cpu_summary,
};
