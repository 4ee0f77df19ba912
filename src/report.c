/* report.c - histo.out and the console summary (see report.h). */
#include "report.h"

#include "env.h"
#include "outfile.h"
#include "program.h"
#include "progcache.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Stats of one column (kernel k) of the per-iteration table. */
static struct run_stats kernel_stats(const struct run_times *t, size_t k,
                                     double *scratch)
{
    for (unsigned long i = 0; i < t->samples; ++i)
        scratch[i] = t->kernel_us[i * t->nkernels + k];
    return run_stats(scratch, t->samples);
}

static void print_stats(FILE *f, const char *key, struct run_stats s)
{
    fprintf(f, "%s.total_us = %.3f\n", key, s.total);
    fprintf(f, "%s.median_us = %.3f\n", key, s.median);
    fprintf(f, "%s.mean_us = %.3f\n", key, s.mean);
    fprintf(f, "%s.min_us = %.3f\n", key, s.min);
    fprintf(f, "%s.max_us = %.3f\n", key, s.max);
}

/* The knobs, where they came from, and what --tune measured. */
static void print_knobs(FILE *f, const struct tune_knobs *k,
                        const struct tune_result *r)
{
    fprintf(f, "config.tuned = %s\n", k->from == TUNE_FROM_CACHE
                                          || k->from == TUNE_FROM_TUNING
                                          ? "yes" : "no");
    fprintf(f, "config.knobs_from = %s%s%s\n", tune_source_name(k->from),
            k->from == TUNE_FROM_CACHE ? " " : "",
            k->from == TUNE_FROM_CACHE ? k->cache : "");
    for (size_t n = 0; n < KNOB_COUNT; ++n)
        fprintf(f, "config.knobs.%s = %u\n", knob_table[n].name,
                k->values.v[n]);
    if (r == NULL)
        return;
    fprintf(f, "tune.cache = %s\n", k->cache[0] != '\0' ? k->cache
                                                         : "(not stored)");
    fprintf(f, "tune.iterations = %lu\n", r->iterations);
    fprintf(f, "tune.candidates = %zu\n", r->ncandidates);
    fprintf(f, "tune.best = %zu\n", r->best);
    for (size_t i = 0; i < r->ncandidates; ++i) {
        const struct tune_candidate *c = &r->candidates[i];
        for (size_t n = 0; n < KNOB_COUNT; ++n)
            fprintf(f, "tune.%zu.%s = %u\n", i, knob_table[n].name,
                    c->asked.v[n]);
        if (c->skipped) {
            fprintf(f, "tune.%zu.skipped = yes\n", i);
            continue;
        }
        fprintf(f, "tune.%zu.median_us = %.3f\n", i, c->median_us);
        fprintf(f, "tune.%zu.mean_us = %.3f\n", i, c->mean_us);
    }
}

static void print_devices(FILE *f, const struct device_list *list)
{
    fprintf(f, "platforms = %u\n", list->nplatforms);
    for (cl_uint p = 0; p < list->nplatforms; ++p) {
        const struct platform_info *pi = &list->platforms[p];
        if (pi->skipped[0] != '\0') {
            fprintf(f, "platform.%u.skipped = %s\n", p, pi->skipped);
            continue;
        }
        fprintf(f, "platform.%u.name = %s\n", p, pi->name);
        fprintf(f, "platform.%u.vendor = %s\n", p, pi->vendor);
        fprintf(f, "platform.%u.version = %s\n", p, pi->version);
        fprintf(f, "platform.%u.devices = %u\n", p, pi->ndevices);
        for (cl_uint d = 0; d < pi->ndevices; ++d) {
            const struct device_info *di = &pi->devices[d];
            const char *pre = "platform";
            if (di->skipped[0] != '\0') {
                fprintf(f, "%s.%u.device.%u.skipped = %s\n", pre, p, d,
                        di->skipped);
                continue;
            }
            fprintf(f, "%s.%u.device.%u.name = %s\n", pre, p, d, di->name);
            fprintf(f, "%s.%u.device.%u.type = %s\n", pre, p, d,
                    di->type_name);
            fprintf(f, "%s.%u.device.%u.local_mem_type = %s\n", pre, p, d,
                    device_local_mem_name(di->local_mem_type));
            fprintf(f, "%s.%u.device.%u.selected = %s\n", pre, p, d,
                    p == list->platform && d == list->device ? "yes" : "no");
        }
    }
    const struct device_info *d = device_selected(list);
    fprintf(f, "selected.platform = %u\n", list->platform);
    fprintf(f, "selected.device = %u\n", list->device);
    fprintf(f, "selected.platform_name = %s\n",
            list->platforms[list->platform].name);
    fprintf(f, "selected.name = %s\n", d->name);
    fprintf(f, "selected.vendor = %s\n", d->vendor);
    if (d->pci_known)
        fprintf(f, "selected.pci = %04x:%02x:%02x.%u\n", d->pci_domain,
                d->pci_bus, d->pci_device, d->pci_function);
    else
        fputs("selected.pci = unknown\n", f);
    if (d->max_clock_mhz != 0)
        fprintf(f, "selected.max_clock_mhz = %u\n", d->max_clock_mhz);
    else
        fputs("selected.max_clock_mhz = unknown\n", f);
    fprintf(f, "selected.ecc = %s\n", d->ecc < 0 ? "unknown"
                                       : d->ecc ? "yes" : "no");
    fprintf(f, "selected.type = %s\n", d->type_name);
    fprintf(f, "selected.version = %s\n", d->version);
    fprintf(f, "selected.driver = %s\n", d->driver);
    fprintf(f, "selected.compute_units = %u\n", d->compute_units);
    fprintf(f, "selected.local_mem_bytes = %llu\n",
            (unsigned long long)d->local_mem);
    fprintf(f, "selected.local_mem_type = %s\n",
            device_local_mem_name(d->local_mem_type));
    fprintf(f, "selected.global_mem_bytes = %llu\n",
            (unsigned long long)d->global_mem);
    fprintf(f, "selected.max_alloc_bytes = %llu\n",
            (unsigned long long)d->max_alloc);
    fprintf(f, "selected.max_work_group = %zu\n", d->max_work_group);
    fprintf(f, "selected.max_work_items_0 = %zu\n", d->max_work_items);
}

/* How many of the devices named count, and why (choose.h). */
static void print_choice(FILE *f, const struct histo_options *opt,
                         const struct choice *c)
{
    fprintf(f, "devices.requested = %s\n",
            opt->device != NULL ? opt->device : "default");
    fprintf(f, "devices.named = %zu\n", c->named);
    fprintf(f, "devices.used = %zu\n", c->used);
    fprintf(f, "devices.why = %s\n", c->why);
    if (c->context != NULL)
        fprintf(f, "devices.context = %s\n", c->context);
    for (size_t m = 1; m <= c->measured; ++m) {
        fprintf(f, "devices.measured.%zu.wall_mean_us = %.3f\n", m,
                c->wall_us[m - 1]);
        fprintf(f, "devices.measured.%zu.iterations = %lu\n", m,
                c->iterations[m - 1]);
    }
}

/* The host commands of an iteration (work_commands over `iterations`),
 * under `prefix`: commands enqueued (launches, copies, fills, markers
 * and barriers), each kind, and the flushes and waits beside them. */
static void print_commands(FILE *f, const char *prefix,
                           const struct work_commands *c,
                           unsigned long iterations)
{
    static const char *const names[WORK_COMMAND_KINDS] = {
        [WORK_LAUNCHES] = "launches", [WORK_COPIES] = "copies",
        [WORK_FILLS] = "fills",       [WORK_MARKERS] = "markers",
        [WORK_FLUSHES] = "flushes",   [WORK_WAITS] = "waits"};
    const double n = iterations > 0 ? (double)iterations : 1;
    unsigned long enqueued = 0;
    for (int k = 0; k < WORK_ENQUEUED; ++k)
        enqueued += c->n[k];
    fprintf(f, "%scommands.per_iteration = %.3f\n", prefix, enqueued / n);
    for (int k = 0; k < WORK_COMMAND_KINDS; ++k)
        fprintf(f, "%scommands.%s_per_iteration = %.3f\n", prefix, names[k],
                c->n[k] / n);
}

/* Every share's commands, and their sum under commands.*. */
static void print_all_commands(FILE *f, const struct work *w,
                               unsigned long iterations)
{
    struct work_commands all = {{0}};
    for (size_t s = 0; s < work_ndevices(w); ++s) {
        const struct work_commands c = work_share_info(w, s).commands;
        for (int k = 0; k < WORK_COMMAND_KINDS; ++k)
            all.n[k] += c.n[k];
    }
    print_commands(f, "", &all, iterations);
}

/* Where the values are and who counts them (work.h), and the
 * iteration's parts: copies, kernels, combines, per share. */
static void print_work(FILE *f, const struct work *w,
                       const struct run_times *t, double *scratch,
                       bool profiled)
{
    const struct work_totals all = work_totals(w);
    fprintf(f, "input.residency = %s\n", all.streamed && all.resident
                                         ? "mixed"
                                         : all.streamed ? "streamed" : "device");
    const size_t nshares = work_nshares(w);
    fprintf(f, "input.chunk_values = %zu\n",
            work_share_info(w, 0).chunk_values);
    fprintf(f, "input.chunks = %zu\n", all.chunks);
    if (all.streamed)
        fprintf(f, "input.host_memory = %s\n", all.pinned ? "pinned"
                                                          : "pageable");
    fprintf(f, "shares = %zu\n", nshares);
    fprintf(f, "shares.split = compute units\n");
    if (nshares > 1) {
        fprintf(f, "shares.sets = %zu\n", work_nsets(w));
        if (work_gather_sets(w) > 0)
            fprintf(f, "shares.gather_sets = %zu\n", work_gather_sets(w));
    }
    for (size_t s = 0; s < nshares; ++s) {
        const struct work_share_info sh = work_share_info(w, s);
        char key[64];
        fprintf(f, "share.%zu.device = %s\n", s, sh.device->name);
        fprintf(f, "share.%zu.compute_units = %u\n", s,
                sh.device->compute_units);
        fprintf(f, "share.%zu.first_value = %zu\n", s, sh.first);
        fprintf(f, "share.%zu.values = %zu\n", s, sh.count);
        fprintf(f, "share.%zu.residency = %s\n", s,
                sh.streamed ? "streamed" : "device");
        fprintf(f, "share.%zu.chunks = %zu\n", s, sh.nchunks);
        fprintf(f, "share.%zu.chunk_values = %zu\n", s, sh.chunk_values);
        /* kernels/probe.cl: 0 is "none seen", written as such */
        if (sh.loop_limit != 0)
            fprintf(f, "share.%zu.loop_limit = %" PRIu32 "\n", s,
                    sh.loop_limit);
        else
            fprintf(f, "share.%zu.loop_limit = none\n", s);
        snprintf(key, sizeof key, "share.%zu.", s);
        print_commands(f, key, &sh.commands, t->iterations);
        if (!profiled)
            continue;
        for (unsigned long i = 0; i < t->samples; ++i)
            scratch[i] = t->share_us[i * t->nshares + s];
        snprintf(key, sizeof key, "share.%zu.busy", s);
        print_stats(f, key, run_stats(scratch, t->samples));
    }
    print_all_commands(f, w, t->iterations);
    fprintf(f, "memory.peak_rss_bytes = %" PRIu64 "\n", work_peak_rss());
}

/* Per iteration: the copies, all kernels (combines included), and the
 * span, so that a reader sees how much of each the span hides. */
static void print_parts(FILE *f, const struct run_times *t, double *scratch)
{
    if (t->has_combine) {
        for (unsigned long i = 0; i < t->samples; ++i)
            scratch[i] = t->combine_us[i];
        print_stats(f, "kernel.combine", run_stats(scratch, t->samples));
    }
    for (unsigned long i = 0; i < t->samples; ++i) {
        scratch[i] = t->combine_us[i];
        for (size_t k = 0; k < t->nkernels; ++k)
            scratch[i] += t->kernel_us[i * t->nkernels + k];
    }
    print_stats(f, "iteration.kernels", run_stats(scratch, t->samples));
    if (t->has_transfer) {
        for (unsigned long i = 0; i < t->samples; ++i)
            scratch[i] = t->transfer_us[i];
        print_stats(f, "iteration.transfer",
                    run_stats(scratch, t->samples));
    }
    if (t->has_move) {
        for (unsigned long i = 0; i < t->samples; ++i)
            scratch[i] = t->move_us[i];
        print_stats(f, "iteration.move", run_stats(scratch, t->samples));
    }
}

/* iteration.timed_by: what iteration.device or iteration.host measured. */
static void print_timed_by(FILE *f, const struct run_times *t)
{
    if (t->host_reason != NULL)
        fprintf(f, "iteration.timed_by = host (each iteration finished "
                   "before the next; the device's profiling timestamps are"
                   " unusable: %s)\n", t->host_reason);
    else if (t->wall_reason != NULL)
        fprintf(f, "iteration.timed_by = wall (the timed loop's wall time "
                   "over its iterations, iteration.wall_mean_us; the "
                   "devices' timestamps cannot give an iteration's span: "
                   "%s)\n", t->wall_reason);
    else if (t->nshares > 1)
        fputs("iteration.timed_by = device (first start to last end over "
              "every device's clock, less any overlap with the iteration "
              "before; the clocks agree with the order of the copies "
              "between devices)\n", f);
    else
        fputs("iteration.timed_by = device (first start to last end, less "
              "any overlap with the iteration before)\n", f);
}

/* histo.out's first part: what ran on what, and its result. */
static void print_run(const struct report *r, FILE *f)
{
    const struct histo_input *in = r->input;
    const struct run_times *t = r->times;
    fprintf(f, "format = %s\n", REPORT_FORMAT);
    fprintf(f, "input.path = %s\n", r->options->input);
    fprintf(f, "input.image = %ux%u\n", in->img_width, in->img_height);
    fprintf(f, "input.histogram = %ux%u\n", in->histo_width, in->histo_height);
    fprintf(f, "input.values = %zu\n", in->nvalues);
    fprintf(f, "output.path = %s\n", r->options->output != NULL
                                        ? r->options->output
                                        : "none (--no-bmp)");
    if (r->options->raw != NULL)
        fprintf(f, "output.raw_path = %s\n", r->options->raw);
    fprintf(f, "histogram.digest = %s\n", r->digest);
    check_report(r->check, in, f);
    fprintf(f, "iterations = %lu\n", t->iterations);
    /* the iterations whose device times the kernel, share and iteration
     * statistics are over */
    fprintf(f, "iterations.profiled = %lu\n", t->samples);
    fprintf(f, "iterations.profiled_every = %lu\n", t->sample);
    print_devices(f, r->devices);
    print_choice(f, r->options, r->choice);
}

/* The strategy, its knobs, how its program was built, its own report. */
static void print_strategy(const struct report *r, FILE *f)
{
    fprintf(f, "strategy = %s\n", r->strategy->name);
    /* the knobs it honours: what their options and --tune change */
    fputs("strategy.knobs =", f);
    for (size_t n = 0; n < KNOB_COUNT; ++n)
        if (r->strategy->knobs & KNOB_BIT(n))
            fprintf(f, " %s", knob_table[n].name);
    fputs(r->strategy->knobs == 0 ? " none\n" : "\n", f);
    fprintf(f, "strategy.requested = %s\n", r->options->strategy != NULL
                                              ? r->options->strategy
                                              : "auto");
    fprintf(f, "strategy.default = %s\n", r->default_strategy != NULL
                                            ? r->default_strategy->name
                                            : "none (the devices differ)");
    fprintf(f, "build.options = %s\n", program_options());
    fprintf(f, "build.kernels = %s\n", r->options->kernel_dir);
    program_sources_report(f);
    fprintf(f, "build.program_cache = %s\n", progcache_state());
    env_report(f);
    r->strategy->report(r->state, f);
    print_knobs(f, r->knobs, r->tuning);
}

/* The phases' host times (time.*). */
static void print_phases(const struct report *r, FILE *f)
{
    const struct phase_times *ph = &r->phases;
    fprintf(f, "time.input_read_s = %.6f\n", ph->read_s);
    fprintf(f, "time.opencl_setup_s = %.6f\n", ph->setup_s);
    fprintf(f, "time.program_build_s = %.6f\n", ph->build_s);
    if (r->tuning != NULL)
        fprintf(f, "time.tune_s = %.6f\n", ph->tune_s);
    fprintf(f, "time.upload_s = %.6f\n", ph->upload_s);
    fprintf(f, "time.strategy_setup_s = %.6f\n", ph->strategy_setup_s);
    if (r->choice->measured > 0)
        fprintf(f, "time.choose_s = %.6f\n", ph->choose_s);
    fprintf(f, "time.iterations_wall_s = %.6f\n", r->times->wall_s);
    fprintf(f, "time.download_s = %.6f\n", ph->download_s);
    fprintf(f, "time.bmp_write_s = %.6f\n", ph->bmp_s);
    fprintf(f, "time.total_s = %.6f\n", ph->total_s);
}

/* The iterations' times: kernels, spans, parts, shares, the wall mean
 * and the host's enqueuing. scratch holds t->iterations doubles. */
static void print_iterations(const struct report *r, FILE *f,
                             double *scratch)
{
    const struct run_times *t = r->times;
    /* Kernel, copy and share times come from the device's timestamps:
     * where those are unusable, or no iteration was profiled (a test's
     * HISTO_TEST_LAST_PLAIN with one iteration), there are none to give. */
    const bool profiled = t->host_reason == NULL && t->samples > 0;
    for (size_t k = 0; k < t->nkernels && profiled; ++k) {
        if (!(t->kernels_launched & (1u << k)))
            continue;
        char key[128];
        snprintf(key, sizeof key, "kernel.%s", r->strategy->kernels[k]);
        print_stats(f, key, kernel_stats(t, k, scratch));
    }
    for (unsigned long i = 0; i < t->samples; ++i)
        scratch[i] = t->span_us[i];
    if (t->wall_reason == NULL)
        print_stats(f, t->synced ? "iteration.host" : "iteration.device",
                    run_stats(scratch, t->samples));
    if (profiled)
        print_parts(f, t, scratch);
    else
        fputs(t->samples == 0 ? "kernel.times = none (no iteration was "
                                "profiled)\n"
                              : "kernel.times = none (the device's "
                                "profiling timestamps are unusable)\n", f);
    print_timed_by(f, t);
    print_work(f, r->work, t, scratch, profiled);
    fprintf(f, "iteration.wall_mean_us = %.3f\n",
            t->wall_s * 1e6 / (double)t->iterations);
    /* what the host spends enqueuing one: where it nears the wall mean,
     * the host paces the loop */
    fprintf(f, "iteration.enqueue_host_mean_us = %.3f\n",
            t->enqueue_s * 1e6 / (double)t->iterations);
}

int report_write(const struct report *r, const char *path)
{
    struct outfile out;
    int status = outfile_open_text(&out, path);
    if (status != HISTO_OK)
        return status;
    double *scratch = histo_calloc(r->times->iterations, sizeof *scratch,
                                   "stats");
    if (scratch == NULL) {
        outfile_abort(&out);
        return HISTO_EXIT_INTERNAL;
    }
    print_run(r, out.f);
    print_strategy(r, out.f);
    print_phases(r, out.f);
    print_iterations(r, out.f, scratch);
    energy_report(r->energy, out.f);
    free(scratch);
    return outfile_commit(&out);
}

void report_summary(const struct report *r, FILE *f)
{
    const struct histo_input *in = r->input;
    const struct device_info *d = device_selected(r->devices);
    const struct run_times *t = r->times;
    double *scratch = histo_calloc(t->iterations, sizeof *scratch, "stats");
    if (scratch == NULL)
        return;
    for (unsigned long i = 0; i < t->samples; ++i)
        scratch[i] = t->span_us[i];
    const struct run_stats span = run_stats(scratch, t->samples);
    free(scratch);

    fprintf(f, "histo: %ux%u values into %ux%u bins, %lu iteration%s on %s "
               "(%s, %s)", in->img_width, in->img_height, in->histo_width,
            in->histo_height, t->iterations, t->iterations == 1 ? "" : "s",
            d->name, r->devices->platforms[r->devices->platform].name,
            d->type_name);
    const struct work *w = r->work;
    const struct work_totals all = work_totals(w);
    const size_t nshares = work_nshares(w);
    const struct work_share_info first = work_share_info(w, 0);
    if (nshares > 1)
        fprintf(f, " and %zu more device%s", nshares - 1,
                nshares == 2 ? "" : "s");
    if (all.chunks > 1)
        fprintf(f, "; %zu chunks%s", all.chunks,
                all.streamed ? ", streamed from host memory" : "");
    fputc('\n', f);
    const struct choice *c = r->choice;
    if (c->all) {
        fprintf(f, "histo: --device all: %zu of %zu device%s, %s",
                c->used, c->named, c->named == 1 ? "" : "s", c->why);
        for (size_t m = 1; m <= c->measured; ++m)
            fprintf(f, "%s%zu: %.1f us", m == 1 ? " (wall mean: " : ", ", m,
                    c->wall_us[m - 1]);
        if (c->measured > 0)
            fputc(')', f);
        if (c->context != NULL)
            fprintf(f, "; contexts: %s", c->context);
        fputc('\n', f);
    }
    if (first.loop_limit != 0)
        fprintf(f, "histo: %s ends a work-item's loops after %" PRIu32
                   " iterations in all (kernels/probe.cl): every kernel is"
                   " planned within that\n", first.device->name,
                first.loop_limit);
    fprintf(f, "histo: strategy %s: ", r->strategy->name);
    r->strategy->summary(r->state, f);
    if (r->knobs->from != TUNE_FROM_DEFAULT)
        fprintf(f, "; knobs from %s", tune_source_name(r->knobs->from));
    fputc('\n', f);
    if (t->wall_reason != NULL)
        fprintf(f, "histo: iteration %.1f us wall mean over the timed loop"
                   " (%s); build %.3f s, total %.3f s\n",
                t->wall_s * 1e6 / (double)t->iterations,
                t->sample > 1 ? "one in a few profiled, and a profiled "
                                "one's span overlaps those before it"
                              : "the devices' clocks cannot time one",
                r->phases.build_s, r->phases.total_s);
    else
        fprintf(f, "histo: iteration %.1f us median on the %s, %.1f us wall"
                   " mean; build %.3f s, total %.3f s\n", span.median,
                t->synced ? "host (each finished before the next)"
                : nshares > 1 ? "devices" : "device",
                t->wall_s * 1e6 / (double)t->iterations, r->phases.build_s,
                r->phases.total_s);
    energy_summary(r->energy, f);
    /* a failed check was said on stderr already */
    if (r->check->wrong == 0) {
        fputs("histo: check ", f);
        check_describe(r->check, in, f);
        fputc('\n', f);
    }
}
