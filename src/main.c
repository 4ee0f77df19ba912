/*
 * main.c - 116.histo: parse, read, set up, iterate, write, report.
 */
#include "bmp.h"
#include "check.h"
#include "choose.h"
#include "cli.h"
#include "counts.h"
#include "device.h"
#include "energy.h"
#include "env.h"
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

/* Everything one run holds; run_release frees what is set. */
struct histo_run {
    struct histo_options opt;
    struct histo_input input;
    struct device_list devices;
    const struct device_info *devs[WORK_MAX_SHARES];
    size_t ndevs;
    struct input_stream *stream;
    struct work *work;
    uint8_t *expect;           /* the check's host histogram, or NULL */
    struct work_fill_times fill_times;
    struct strategy_choice strategy;
    struct strategy_env env;
    struct tune_knobs knobs;
    struct tune_result tuning;
    struct choice choice;
    struct progress progress;
    struct run_times times;
    struct phase_times ph;
    uint8_t *histo;
    struct check_result check;
    struct energy energy;
};

/* Before anything is removed or read: the files must be distinct, and
 * the outputs writable kinds of file. A failed run must not leave an
 * earlier run's files looking current: stale regular files go. */
static int prepare_outputs(const struct histo_options *opt)
{
    outfile_handle_signals();
    outfile_defer();
    char cache[TUNE_PATH_MAX];
    const bool cached = !opt->no_tune_cache
                        && tune_cache_path(cache, sizeof cache) == 0;
    int status;
    if ((status = paths_check_distinct(opt, cached ? cache : NULL))
            != HISTO_OK
        || (opt->output != NULL
            && (status = outfile_prepare(opt->output)) != HISTO_OK)
        || (status = outfile_prepare(opt->timing)) != HISTO_OK
        || (opt->raw != NULL
            && (status = outfile_prepare(opt->raw)) != HISTO_OK))
        return status;
    return HISTO_OK;
}

/* What the work takes from the options. */
static struct work_options work_options_of(const struct histo_options *opt)
{
    return (struct work_options){
        .device_budget = opt->device_budget,
        .chunk_values = opt->chunk_values,
    };
}

/* The devices, then the input's header: the work is planned from it (and
 * a histogram too large for a device or a BMP refused) before gigabytes
 * are read or decompressed. */
static int plan_work(struct histo_run *r)
{
    const struct histo_options *opt = &r->opt;
    double t = timer_now();
    int status;
    if ((status = device_enumerate(&r->devices)) != HISTO_OK
        || (status = device_select_many(&r->devices, opt->platform,
                                        opt->device, r->devs,
                                        WORK_MAX_SHARES, &r->ndevs))
               != HISTO_OK)
        return status;
    r->ph.setup_s = timer_now() - t;

    t = timer_now();
    const struct work_options wopt = work_options_of(opt);
    if ((r->work = work_create()) == NULL)
        return HISTO_EXIT_INTERNAL;
    if ((status = input_open(opt->input, &r->stream, &r->input)) != HISTO_OK
        || (opt->output != NULL
            && (status = bmp_check_size(r->input.histo_width,
                                        r->input.histo_height)) != HISTO_OK)
        || (status = work_plan(r->work, r->devs, r->ndevs, &r->input,
                               &wopt, device_spec_all(opt->device)))
               != HISTO_OK)
        return status;
    r->ph.read_s = timer_now() - t;
    return HISTO_OK;
}

/* Each device's loop limit, the strategy and its kernels. */
static int probe_and_build(struct histo_run *r)
{
    /* the strategy every share runs: --strategy, else the default of
     * every device named, share or not yet (--device all), with the loop
     * limit the probe measured on it */
    struct strategy_share shares[WORK_MAX_SHARES];
    size_t n = 0;
    int status;
    if ((status = work_probe(r->work, r->opt.kernel_dir, shares, &n))
            == HISTO_OK
        && (status = strategy_choose(r->opt.strategy, shares, n,
                                     &r->strategy)) == HISTO_OK)
        status = work_build(r->work, r->strategy.run, r->opt.kernel_dir);
    return status;
}

/* A context and queues, the device's loop limit, the strategy and its
 * kernels. */
static int build(struct histo_run *r)
{
    double t = timer_now();
    int status = work_open(r->work,
                           r->devices.platforms[r->devices.platform].id);
    if (status != HISTO_OK)
        return status;
    r->ph.setup_s += timer_now() - t;
    t = timer_now();
    if ((status = probe_and_build(r)) != HISTO_OK)
        return status;
    r->ph.build_s = timer_now() - t;
    return HISTO_OK;
}

/* The values go from the file to where they are counted, once: --tune's
 * candidates and the run share them; the check's host histogram counts
 * them on the way. */
static int fill(struct histo_run *r)
{
    if (!r->opt.no_check
        && (r->expect = histo_calloc(r->input.nbins, 1,
                                     "check histogram")) == NULL)
        return HISTO_EXIT_INTERNAL;
    const double t = timer_now();
    const int status = work_fill(r->work, r->stream, r->expect,
                                 &r->fill_times);
    input_close(r->stream);
    r->stream = NULL;
    if (status != HISTO_OK)
        return status;
    r->ph.upload_s = r->fill_times.upload_s;
    r->ph.read_s += timer_now() - t - r->fill_times.upload_s
                    - r->fill_times.expect_s;
    return HISTO_OK;
}

/* A setup that failed with knobs from the tune cache: the message before
 * this names the knob's option, which the user did not give. */
static void explain_cached_knobs(const struct tune_knobs *k)
{
    char knobs[256] = "";
    size_t at = 0;
    for (size_t i = 0; i < KNOB_COUNT && at < sizeof knobs; ++i)
        if (k->values.v[i] != 0) {
            const int n = snprintf(knobs + at, sizeof knobs - at, " %s %u",
                                   knob_table[i].name, k->values.v[i]);
            if (n < 0)
                break;
            at += (size_t)n;
        }
    histo_error("the knobs (%s) came from the tune cache %s, its line "
                "for this device, strategy and input size, not from the "
                "command line: run with --no-tune-cache, give the knobs, "
                "or --tune again", knobs[0] != '\0' ? knobs + 1 : "none",
                k->cache);
}

/* The knobs: measured (--tune, on the first chunk), else given, cached or
 * left to the strategy; then the strategy set up with them. */
static int set_up(struct histo_run *r)
{
    r->env = (struct strategy_env){.kernel_dir = r->opt.kernel_dir};
    struct tune_key key;
    tune_key_of(&key, r->devs[0], r->strategy.run, &r->input);
    double t = timer_now();
    int status;
    if (r->opt.tune) {
        if ((status = work_tune_env(r->work, &r->env)) != HISTO_OK
            || (status = tune_run(r->strategy.run, &r->env, r->opt.iterations,
                                  r->opt.no_tune_cache, &key, &r->tuning,
                                  &r->knobs, &r->progress,
                                  summary_stream(&r->opt))) != HISTO_OK)
            return status;
        r->ph.tune_s = timer_now() - t;
    } else {
        tune_choose(&r->opt.knobs, r->opt.no_tune_cache, &key, r->strategy.run,
                    &r->knobs);
    }
    r->env.knobs = r->knobs.values;

    t = timer_now();
    if ((status = work_setup(r->work, &r->env)) != HISTO_OK) {
        if (r->knobs.from == TUNE_FROM_CACHE)
            explain_cached_knobs(&r->knobs);
        return status;
    }
    r->ph.strategy_setup_s = timer_now() - t;
    return HISTO_OK;
}

/* How many devices count: those named, or with --device all the count
 * measured fastest, each count in a context of its own devices. */
static int choose(struct histo_run *r)
{
    const double t = timer_now();
    /* --device all: histo chooses how many of them count (choose.h) */
    const int status = choose_devices(r->work, device_spec_all(r->opt.device),
                                      &r->choice);
    r->ph.choose_s = timer_now() - t;
    return status;
}

/* One timed run of the iterations, the devices' energy counters read
 * around it. */
static int timed_run(struct histo_run *r, const struct run_plan *plan)
{
    energy_start(&r->energy);
    work_count_start(r->work);
    const int status = run_plan(plan, r->opt.iterations, &r->times);
    work_count_stop(r->work);
    energy_stop(&r->energy, r->opt.iterations);
    return status;
}

/* The timed iterations. Device time is reported only where the device's
 * clock can be believed: where its loop probe already showed it cannot,
 * the iterations are timed on the host from the start; where their own
 * timestamps show it, they run again, timed on the host. */
static int iterate(struct histo_run *r)
{
    struct run_plan plan;
    work_run_plan(r->work, &plan);
    plan.progress = &r->progress;
    const size_t used = work_nshares(r->work);
    const char *early = used == 1 ? work_clock_unusable(r->work) : NULL;
    int status = energy_open(&r->energy, r->devs, used);
    if (status != HISTO_OK)
        return status;
    if (early != NULL) {
        fprintf(stderr, "histo: the device's profiling timestamps are "
                        "unusable (%s): the iterations are timed on the "
                        "host, each finished before the next\n", early);
        plan.synced = true;
    }
    progress_begin(&r->progress, "iteration", "", r->opt.iterations, 0);
    status = timed_run(r, &plan);
    if (status != HISTO_OK)
        return status;
    if (early != NULL) {
        r->times.host_reason = early;
        return HISTO_OK;
    }
    const char *unusable = run_device_clock_check(&r->times);
    if (unusable == NULL && r->times.sample > 1)
        r->times.wall_reason = RUN_SAMPLED_REASON;
    if (unusable == NULL)
        return HISTO_OK;
    if (used > 1) {
        /* Finishing each iteration would time another loop than the one
         * run: the timed loop's wall time over its iterations is the
         * figure. */
        fprintf(stderr, "histo: the devices' profiling timestamps cannot "
                        "time an iteration (%s): its time is the timed "
                        "loop's wall time over its iterations\n", unusable);
        r->times.wall_reason = unusable;
        return HISTO_OK;
    }
    fprintf(stderr, "histo: the device's profiling timestamps are unusable "
                    "(%s): the iterations run again, each finished before "
                    "the next and timed on the host\n", unusable);
    run_times_free(&r->times);
    plan.synced = true;
    progress_begin(&r->progress, "iteration", " of the host-timed run",
                   r->opt.iterations, 0);
    if ((status = timed_run(r, &plan)) != HISTO_OK)
        return status;
    r->times.host_reason = unusable;
    return HISTO_OK;
}

/* The last iteration's histogram, and the check against the host's. */
static int download_and_check(struct histo_run *r)
{
    double t = timer_now();
    if ((r->histo = histo_calloc(r->input.nbins, 1, "histogram")) == NULL)
        return HISTO_EXIT_INTERNAL;
    const int status = work_download(r->work, r->histo);
    if (status != HISTO_OK)
        return status;
    r->ph.download_s = timer_now() - t;
    if (r->expect == NULL)
        return HISTO_OK;
    t = timer_now();
    check_compare(r->histo, r->expect, &r->input, &r->check);
    r->check.seconds = r->fill_times.expect_s + timer_now() - t;
    if (r->check.wrong == 0)
        return HISTO_OK;
    fputs("histo: check ", stderr);
    check_describe(&r->check, &r->input, stderr);
    fputs(r->opt.keep_wrong
          ? "\nhisto: the BMP and --raw hold the device's wrong counters "
            "(--keep-wrong)\n"
          : "\nhisto: no BMP or --raw written (--keep-wrong writes the "
            "wrong counters)\n", stderr);
    return HISTO_OK;
}

/* The BMP, histo.out and the raw counters appear together or not at all;
 * a failed check writes no result unless asked to (--keep-wrong), and
 * histo.out is written either way and says check = FAIL. */
static int write_results(struct histo_run *r, double start)
{
    /* --tune compiled more programs on the way (build() says why) */
    outfile_handle_signals();
    const struct histo_options *opt = &r->opt;
    const bool wrong = r->check.wrong > 0;
    char digest[COUNTS_DIGEST_CHARS];
    counts_digest(r->histo, r->input.nbins, digest);
    int status;
    if (!wrong || opt->keep_wrong) {
        if (opt->raw != NULL
            && (status = counts_save(opt->raw, r->histo, r->input.nbins))
                   != HISTO_OK)
            return status;
        const double t = timer_now();
        if (opt->output != NULL
            && (status = bmp_save(opt->output, r->histo,
                                  r->input.histo_width,
                                  r->input.histo_height)) != HISTO_OK)
            return status;
        r->ph.bmp_s = timer_now() - t;
    }
    r->ph.total_s = timer_now() - start;
    const struct report report = {
        .options = opt,
        .input = &r->input,
        .devices = &r->devices,
        .strategy = r->strategy.run,
        .default_strategy = r->strategy.by_default,
        .state = work_first_state(r->work),
        .work = r->work,
        .times = &r->times,
        .knobs = &r->knobs,
        .tuning = opt->tune ? &r->tuning : NULL,
        .choice = &r->choice,
        .phases = r->ph,
        .digest = digest,
        .check = &r->check,
        .energy = &r->energy,
    };
    if ((status = report_write(&report, opt->timing)) != HISTO_OK
        || (status = outfile_publish_all()) != HISTO_OK)
        return status;
    report_summary(&report, summary_stream(opt));
    return wrong ? HISTO_EXIT_CHECK : HISTO_OK;
}

static void run_release(struct histo_run *r)
{
    free(r->expect);
    free(r->histo);
    run_times_free(&r->times);
    energy_close(&r->energy);
    work_destroy(r->work);
    input_close(r->stream);
    device_list_free(&r->devices);
    input_free(&r->input);
}

/* --help, --version, --list-strategies and --list: no run. */
static int answer(const struct histo_options *opt)
{
    if (opt->help)
        return cli_usage(stdout);
    if (opt->version)
        return version_print(stdout);
    if (opt->list_strategies)
        return strategy_list(stdout);
    struct device_list devices = {0};
    const int status = device_enumerate(&devices);
    if (status == HISTO_OK)
        device_print(stdout, &devices, false);
    device_list_free(&devices);
    return status;
}

int main(int argc, char **argv)
{
    const double start = timer_now();
    static struct histo_run r;
    int status = cli_parse(argc, argv, &r.opt);
    if (status != HISTO_OK) {
        fputs("histo: try 'histo --help'\n", stderr);
        return status;
    }
    if (r.opt.help || r.opt.version || r.opt.list_strategies || r.opt.list)
        return answer(&r.opt);
    if ((status = env_check()) != HISTO_OK
        || (status = progress_init(&r.progress)) != HISTO_OK
        || (status = prepare_outputs(&r.opt)) != HISTO_OK)
        return status;
    if ((status = plan_work(&r)) == HISTO_OK
        && (status = build(&r)) == HISTO_OK
        && (status = fill(&r)) == HISTO_OK
        && (status = set_up(&r)) == HISTO_OK
        && (status = choose(&r)) == HISTO_OK
        && (status = iterate(&r)) == HISTO_OK
        && (status = download_and_check(&r)) == HISTO_OK)
        status = write_results(&r, start);
    if (status != HISTO_OK && status != HISTO_EXIT_CHECK)
        outfile_discard_all();
    run_release(&r);
    return status;
}
