/*
 * main.c - 116.histo: parse, read, set up, iterate, write, report.
 */
#include "bmp.h"
#include "check.h"
#include "cli.h"
#include "counts.h"
#include "device.h"
#include "error.h"
#include "input.h"
#include "outfile.h"
#include "paths.h"
#include "program.h"
#include "progress.h"
#include "report.h"
#include "run.h"
#include "strategy.h"
#include "timer.h"
#include "tune.h"
#include "version.h"
#include "work.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The console summary goes to stdout, unless an output does (-o -,
 * --raw /dev/stdout): the output stays whole there. */
static FILE *summary_stream(const struct histo_options *opt)
{
    return outfile_is_stdout(opt->output) || outfile_is_stdout(opt->timing)
               || outfile_is_stdout(opt->raw)
               ? stderr : stdout;
}

/* The strategy every share runs: --strategy, else the devices' default,
 * which must agree. Returns NULL after saying why. */
static const struct strategy *choose_strategy(const char *name,
                                              const struct work *w)
{
    if (name != NULL)
        return strategy_find(name);
    const struct work_share *sh = w->shares;
    const uint64_t nbins = w->input->nbins;
    const struct strategy *st = strategy_default(sh[0].device,
                                                 sh[0].loop_limit, nbins);
    for (size_t i = 1; i < w->nshares; ++i) {
        const struct strategy *other = strategy_default(sh[i].device,
                                                        sh[i].loop_limit,
                                                        nbins);
        if (other != st) {
            histo_error("'%s' and '%s' default to different strategies (%s"
                        " and %s): name one with --strategy",
                        sh[0].device->name, sh[i].device->name, st->name,
                        other->name);
            return NULL;
        }
    }
    return st;
}

int main(int argc, char **argv)
{
    const double start = timer_now();
    struct histo_options opt;
    struct histo_input input = {0};
    struct device_list devices = {0};
    struct run_times times = {0};
    struct phase_times ph = {0};
    struct input_stream *stream = NULL;
    struct work work = {0};
    const struct strategy *strategy = NULL;
    struct tune_knobs knobs;
    struct tune_result tuning;
    uint8_t *histo = NULL;
    struct check_result check = {0};
    struct progress progress;
    double t;

    int status = cli_parse(argc, argv, &opt);
    if (status != HISTO_OK) {
        fputs("histo: try 'histo --help'\n", stderr);
        return status;
    }
    if (opt.help)
        return cli_usage(stdout);
    if (opt.version)
        return version_print(stdout);
    if (opt.list) {
        if ((status = device_enumerate(&devices)) == HISTO_OK)
            device_print(stdout, &devices, false);
        device_list_free(&devices);
        return status;
    }
    if ((status = progress_init(&progress)) != HISTO_OK)
        return status;

    /* Before anything is removed or read: the files must be distinct,
     * and the outputs writable kinds of file. A failed run must not leave
     * an earlier run's files looking current: stale regular files go. */
    outfile_handle_signals();
    outfile_defer();
    char cache[TUNE_PATH_MAX];
    const bool cached = !opt.no_tune_cache
                        && tune_cache_path(cache, sizeof cache) == 0;
    if ((status = paths_check_distinct(&opt, cached ? cache : NULL))
            != HISTO_OK
        || (opt.output != NULL
            && (status = outfile_prepare(opt.output)) != HISTO_OK)
        || (status = outfile_prepare(opt.timing)) != HISTO_OK
        || (opt.raw != NULL
            && (status = outfile_prepare(opt.raw)) != HISTO_OK))
        return status;

    /* The devices, then the input's header: the work is planned from it
     * (and a histogram too large for a device refused) before gigabytes
     * are read or decompressed. */
    t = timer_now();
    const struct device_info *devs[WORK_MAX_SHARES];
    size_t ndevs = 0;
    if ((status = device_enumerate(&devices)) != HISTO_OK
        || (status = device_select_many(&devices, opt.platform, opt.device,
                                        devs, WORK_MAX_SHARES, &ndevs))
               != HISTO_OK)
        goto fail;
    ph.setup_s = timer_now() - t;

    t = timer_now();
    const struct work_options wopt = {
        .device_budget = opt.device_budget,
        .chunk_values = opt.chunk_values,
    };
    if ((status = input_open(opt.input, &stream, &input)) != HISTO_OK
        || (opt.output != NULL
            && (status = bmp_check_size(input.histo_width,
                                        input.histo_height)) != HISTO_OK)
        || (status = work_plan(&work, devs, ndevs, &input, &wopt))
               != HISTO_OK)
        goto fail;
    ph.read_s = timer_now() - t;

    t = timer_now();
    if ((status = work_open(&work,
                            devices.platforms[devices.platform].id))
            != HISTO_OK)
        goto fail;
    ph.setup_s += timer_now() - t;

    t = timer_now();
    if ((status = work_probe(&work, opt.kernel_dir)) != HISTO_OK)
        goto fail;
    if ((strategy = choose_strategy(opt.strategy, &work)) == NULL) {
        status = HISTO_EXIT_USAGE;
        goto fail;
    }
    if ((status = work_build(&work, strategy, opt.kernel_dir)) != HISTO_OK)
        goto fail;
    ph.build_s = timer_now() - t;

    /* The values go from the file to where they are counted, once:
     * --tune's candidates and the run share them; the check's host
     * histogram counts them on the way. */
    if (!opt.no_check
        && (work.expect = histo_calloc(input.nbins, 1, "check histogram"))
               == NULL) {
        status = HISTO_EXIT_INTERNAL;
        goto fail;
    }
    t = timer_now();
    status = work_fill(&work, stream);
    input_close(stream);
    stream = NULL;
    if (status != HISTO_OK)
        goto fail;
    ph.upload_s = work.upload_s;
    ph.read_s += timer_now() - t - work.upload_s - work.expect_s;

    /* Batches and tile rows: measured (--tune, on the first chunk), else
     * given, cached or left to the strategy. */
    struct strategy_env env = {.kernel_dir = opt.kernel_dir};
    struct tune_key key;
    tune_key_of(&key, devs[0], strategy, &input);
    if (opt.tune) {
        t = timer_now();
        if ((status = work_tune_env(&work, &env)) != HISTO_OK
            || (status = tune_run(strategy, &env, opt.iterations, &opt,
                                  &key, &tuning, &knobs, &progress,
                                  summary_stream(&opt))) != HISTO_OK)
            goto fail;
        ph.tune_s = timer_now() - t;
    } else {
        tune_choose(&opt, &key, strategy, &knobs);
    }
    env.batches = knobs.batches;
    env.tile_rows = knobs.tile_rows;
    env.replicas = knobs.replicas;

    t = timer_now();
    if ((status = work_setup(&work, &env)) != HISTO_OK)
        goto fail;
    ph.strategy_setup_s = timer_now() - t;

    struct run_plan plan;
    work_run_plan(&work, &plan);
    plan.progress = &progress;
    progress_begin(&progress, "iteration", "", opt.iterations, 0);
    if ((status = run_plan(&plan, opt.iterations, &times)) != HISTO_OK)
        goto fail;
    /* Device time is reported only where the device's clock can be
     * believed; otherwise the iterations run again, timed on the host. */
    const char *unusable = run_device_clock_check(&times);
    if (unusable != NULL) {
        fprintf(stderr, "histo: the device's profiling timestamps are "
                        "unusable (%s): the iterations run again, each "
                        "finished before the next and timed on the host\n",
                unusable);
        run_times_free(&times);
        plan.synced = true;
        progress_begin(&progress, "iteration", " of the host-timed run",
                       opt.iterations, 0);
        if ((status = run_plan(&plan, opt.iterations, &times)) != HISTO_OK)
            goto fail;
        times.host_reason = unusable;
    }

    t = timer_now();
    histo = histo_calloc(input.nbins, 1, "histogram");
    if (histo == NULL) {
        status = HISTO_EXIT_INTERNAL;
        goto fail;
    }
    if ((status = work_download(&work, histo)) != HISTO_OK)
        goto fail;
    ph.download_s = timer_now() - t;

    if (work.expect != NULL) {
        t = timer_now();
        check_compare(histo, work.expect, &input, &check);
        check.seconds = work.expect_s + timer_now() - t;
    }
    const bool wrong = check.wrong > 0;
    if (wrong) {
        fputs("histo: check ", stderr);
        check_describe(&check, &input, stderr);
        fputs(opt.keep_wrong ? "\nhisto: the BMP and --raw hold the device's"
                               " wrong counters (--keep-wrong)\n"
                             : "\nhisto: no BMP or --raw written (--keep-wrong"
                               " writes the wrong counters)\n", stderr);
    }

    /* A failed check writes no result unless asked to (--keep-wrong);
     * histo.out is written either way and says check = FAIL. */
    char digest[COUNTS_DIGEST_CHARS];
    counts_digest(histo, input.nbins, digest);
    if (!wrong || opt.keep_wrong) {
        if (opt.raw != NULL
            && (status = counts_save(opt.raw, histo, input.nbins))
                   != HISTO_OK)
            goto fail;
        t = timer_now();
        if (opt.output != NULL
            && (status = bmp_save(opt.output, histo, input.histo_width,
                                  input.histo_height)) != HISTO_OK)
            goto fail;
        ph.bmp_s = timer_now() - t;
    }
    ph.total_s = timer_now() - start;

    const struct report report = {
        .options = &opt,
        .input = &input,
        .devices = &devices,
        .strategy = strategy,
        .state = work_first_state(&work),
        .work = &work,
        .times = &times,
        .knobs = &knobs,
        .tuning = opt.tune ? &tuning : NULL,
        .phases = ph,
        .digest = digest,
        .check = &check,
    };
    /* The BMP, the report and the raw counters appear together or not at
     * all. */
    if ((status = report_write(&report, opt.timing)) != HISTO_OK
        || (status = outfile_publish_all()) != HISTO_OK)
        goto fail;
    report_summary(&report, summary_stream(&opt));
    if (wrong)
        status = HISTO_EXIT_CHECK;

fail:
    if (status != HISTO_OK && status != HISTO_EXIT_CHECK)
        outfile_discard_all();
    free(work.expect);
    free(histo);
    run_times_free(&times);
    work_release(&work);
    input_close(stream);
    device_list_free(&devices);
    input_free(&input);
    return status;
}
