/*
 * main.c - 116.histo: parse, read, set up, iterate, write, report.
 */
#include "bmp.h"
#include "cli.h"
#include "counts.h"
#include "device.h"
#include "error.h"
#include "input.h"
#include "outfile.h"
#include "paths.h"
#include "program.h"
#include "report.h"
#include "run.h"
#include "strategy.h"
#include "timer.h"
#include "tune.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The console summary goes to stdout, unless an output does (-o -,
 * -o /dev/stdout): the output stays whole there. */
static FILE *summary_stream(const struct histo_options *opt)
{
    return outfile_is_stdout(opt->output) || outfile_is_stdout(opt->timing)
               ? stderr : stdout;
}

/* Whether the input's values and its histogram fit the device: each in
 * one allocation, both in its memory. The strategies check their other
 * buffers when they plan them. */
static int input_fits(const struct histo_input *in, void *arg)
{
    const struct device_info *dev = arg;
    const uint64_t values = (uint64_t)in->nvalues * sizeof(cl_uint);
    int status = device_check_alloc(dev, "input", values);
    if (status == HISTO_OK)
        status = device_check_alloc(dev, "histogram", in->nbins);
    if (status == HISTO_OK && values + in->nbins > dev->global_mem) {
        histo_error("the input (%" PRIu64 " bytes) and its histogram (%"
                    PRIu32 " bytes) need more than the %llu bytes of "
                    "memory '%s' has (CL_DEVICE_GLOBAL_MEM_SIZE)", values,
                    in->nbins, (unsigned long long)dev->global_mem,
                    dev->name);
        status = HISTO_EXIT_DEVICE;
    }
    return status;
}

int main(int argc, char **argv)
{
    const double start = timer_now();
    struct histo_options opt;
    struct histo_input input = {0};
    struct device_list devices = {0};
    struct run_times times = {0};
    struct phase_times ph = {0};
    cl_context context = NULL;
    cl_command_queue queue = NULL;
    cl_program program = NULL;
    cl_mem values = NULL;
    const struct strategy *strategy = NULL;
    struct tune_knobs knobs;
    struct tune_result tuning;
    void *state = NULL;
    uint8_t *histo = NULL;
    double t;

    int status = cli_parse(argc, argv, &opt);
    if (status != HISTO_OK) {
        fputs("histo: try 'histo --help'\n", stderr);
        return status;
    }
    if (opt.help) {
        cli_usage(stdout);
        return HISTO_OK;
    }
    if (opt.list) {
        if ((status = device_enumerate(&devices)) == HISTO_OK)
            device_print(stdout, &devices, false);
        device_list_free(&devices);
        return status;
    }

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
        || (status = outfile_prepare(opt.output)) != HISTO_OK
        || (status = outfile_prepare(opt.timing)) != HISTO_OK
        || (opt.raw != NULL
            && (status = outfile_prepare(opt.raw)) != HISTO_OK))
        return status;

    /* The device first: an input too large for it is refused from its
     * header, before gigabytes are read or decompressed. */
    t = timer_now();
    if ((status = device_enumerate(&devices)) != HISTO_OK
        || (status = device_select(&devices, opt.platform, opt.device))
               != HISTO_OK)
        goto fail;
    ph.setup_s = timer_now() - t;
    const struct device_info *dev = device_selected(&devices);

    t = timer_now();
    if ((status = input_read_checked(opt.input, &input, input_fits,
                                     (void *)dev)) != HISTO_OK)
        goto fail;
    ph.read_s = timer_now() - t;

    t = timer_now();
    if ((status = device_open(&devices, &context, &queue)) != HISTO_OK)
        goto fail;
    ph.setup_s += timer_now() - t;

    strategy = opt.strategy != NULL ? strategy_find(opt.strategy)
                                    : strategy_default(dev);
    struct program_defines defines = {.count = 0};
    t = timer_now();
    if ((strategy->defines != NULL
         && (status = strategy->defines(dev, &defines)) != HISTO_OK)
        || (status = program_build(context, dev->id, opt.kernel_dir,
                                   strategy->sources, strategy->nsources,
                                   input.histo_width, &defines, &program))
               != HISTO_OK)
        goto fail;
    ph.build_s = timer_now() - t;

    /* The input goes to the device once: --tune's candidates and the run
     * share it. */
    t = timer_now();
    if ((status = strategy_values_upload(context, queue, dev, &input,
                                         &values)) != HISTO_OK)
        goto fail;
    ph.upload_s = timer_now() - t;

    /* Batches and tile rows: measured (--tune), else given, cached or
     * left to the strategy. */
    struct strategy_env env = {
        .context = context,
        .queue = queue,
        .program = program,
        .kernel_dir = opt.kernel_dir,
        .device = dev,
        .input = &input,
        .values = values,
    };
    struct tune_key key;
    tune_key_of(&key, dev, strategy, &input);
    if (opt.tune) {
        t = timer_now();
        if ((status = tune_run(strategy, &env, opt.iterations, &opt, &key,
                               &tuning, &knobs, summary_stream(&opt)))
                != HISTO_OK)
            goto fail;
        ph.tune_s = timer_now() - t;
    } else {
        tune_choose(&opt, &key, strategy, &knobs);
    }
    env.batches = knobs.batches;
    env.tile_rows = knobs.tile_rows;
    env.replicas = knobs.replicas;

    t = timer_now();
    if ((status = strategy_setup(strategy, &env, &state)) != HISTO_OK)
        goto fail;
    ph.strategy_setup_s = timer_now() - t;

    if ((status = run_iterations(strategy, state, queue, opt.iterations,
                                 &times)) != HISTO_OK)
        goto fail;

    t = timer_now();
    histo = histo_calloc(input.nbins, 1, "histogram");
    if (histo == NULL) {
        status = HISTO_EXIT_INTERNAL;
        goto fail;
    }
    if ((status = strategy->download(state, queue, histo)) != HISTO_OK)
        goto fail;
    ph.download_s = timer_now() - t;

    char digest[COUNTS_DIGEST_CHARS];
    counts_digest(histo, input.nbins, digest);
    if (opt.raw != NULL
        && (status = counts_save(opt.raw, histo, input.nbins)) != HISTO_OK)
        goto fail;
    t = timer_now();
    if ((status = bmp_save(opt.output, histo, input.histo_width,
                           input.histo_height)) != HISTO_OK)
        goto fail;
    ph.bmp_s = timer_now() - t;
    ph.total_s = timer_now() - start;

    const struct report report = {
        .options = &opt,
        .input = &input,
        .devices = &devices,
        .strategy = strategy,
        .state = state,
        .times = &times,
        .knobs = &knobs,
        .tuning = opt.tune ? &tuning : NULL,
        .phases = ph,
        .digest = digest,
    };
    /* The BMP, the report and the raw counters appear together or not at
     * all. */
    if ((status = report_write(&report, opt.timing)) != HISTO_OK
        || (status = outfile_publish_all()) != HISTO_OK)
        goto fail;
    report_summary(&report, summary_stream(&opt));

fail:
    if (status != HISTO_OK)
        outfile_discard_all();
    free(histo);
    run_times_free(&times);
    if (state != NULL)
        strategy->release(state);
    if (values != NULL)
        clReleaseMemObject(values);
    if (program != NULL)
        clReleaseProgram(program);
    if (queue != NULL)
        clReleaseCommandQueue(queue);
    if (context != NULL)
        clReleaseContext(context);
    device_list_free(&devices);
    input_free(&input);
    return status;
}
