/*
 * tune_cache.h - the strategy's knobs (knobs.h) of a run that does not
 * measure them: from the command line, else from the tune cache, else the
 * strategy's defaults; and the tune cache file itself, its format and its
 * storage. Measuring candidates (histo --tune, tune.h) is
 * a separate job: it hands its best knobs to tune_cache_store, so the file
 * has one reader and one writer, both here.
 *
 * The tune cache is a small text file, one line per device name, strategy,
 * histogram shape and value-count bucket (2^K <= values < 2^(K+1)):
 *
 *   DEVICE NAME | STRATEGY | WxH | 2^K = batches B tile_rows W ...
 *
 * The knobs as knobs.c's table names them, in its order, each with the
 * value its option takes, 0 meaning "the strategy decides"; an optional
 * one (cache_optional) only when it is set. Lines starting with '#' and
 * blank lines are comments. It lives at $HISTO_TUNE_FILE, else
 * $XDG_CACHE_HOME/histo/tune.conf, else ~/.cache/histo/tune.conf. A malformed line is skipped with a warning; a
 * missing or unreadable file is no cache.
 */
#ifndef HISTO_TUNE_CACHE_H
#define HISTO_TUNE_CACHE_H

#include "knobs.h"
#include "strategy.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define TUNE_PATH_MAX 4096

/* What a cache line is about. */
struct tune_key {
    char device[256];        /* CL_DEVICE_NAME, trimmed            */
    char strategy[32];
    uint32_t histo_width, histo_height;
    unsigned values_log2;    /* K: 2^K <= values < 2^(K+1)         */
};

struct tune_entry {
    struct tune_key key;
    struct knob_values knobs; /* 0: the strategy decides        */
};

enum tune_source {
    TUNE_FROM_DEFAULT,       /* nothing given, nothing cached       */
    TUNE_FROM_COMMAND_LINE,  /* the knobs' options                 */
    TUNE_FROM_CACHE,         /* a matching line of the tune cache   */
    TUNE_FROM_TUNING         /* measured by this run (--tune)       */
};

/* The knobs a run uses and where they came from. */
struct tune_knobs {
    struct knob_values values;
    enum tune_source from;
    char cache[TUNE_PATH_MAX]; /* file read (CACHE) or written (TUNING),
                                  "" when none */
};

/* K with 2^K <= n < 2^(K+1) (0 for n = 0). */
unsigned tune_values_log2(uint64_t n);

/* The key of this run's device, strategy and input. */
void tune_key_of(struct tune_key *key, const struct device_info *device,
                 const struct strategy *strategy,
                 const struct histo_input *input);

/* The cache file's path into buf. Returns 0, or -1 when there is none
 * (no $HISTO_TUNE_FILE, $XDG_CACHE_HOME or $HOME) or it does not fit. */
int tune_cache_path(char *buf, size_t len);

/* One cache line (a trailing newline is allowed): 1 and *e filled for an
 * entry, 0 for a comment or blank line, -1 when malformed. */
int tune_parse_line(const char *line, struct tune_entry *e);

/* Writes e as one cache line, newline included. */
void tune_format_line(FILE *f, const struct tune_entry *e);

/* 1 and *e filled when the file has a line for key, else 0 (also when
 * the file is missing or unreadable). Warns once per malformed line. */
int tune_cache_lookup(const char *path, const struct tune_key *key,
                      struct tune_entry *e);

/* Replaces e's line in the file, or adds it, keeping every other line;
 * creates the folders; under a lock on PATH.lock (concurrent runs keep
 * each other's lines) writes a temporary file and renames it into place.
 * Returns 0 or HISTO_EXIT_OUTPUT. */
int tune_cache_store(const char *path, const struct tune_entry *e);

/* The knobs of a run without --tune: `given` (the command line's) when any
 * is set, else the tune cache's (unless no_tune_cache), else the
 * strategy's defaults; a knob the strategy does not use is 0 (and a given
 * one is warned about). */
void tune_choose(const struct knob_values *given, bool no_tune_cache,
                 const struct tune_key *key, const struct strategy *strategy,
                 struct tune_knobs *knobs);

/* "default", "command line", "tune cache", "tuning". */
const char *tune_source_name(enum tune_source from);

#endif
