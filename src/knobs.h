/*
 * knobs.h - the strategies' knobs, as one table: batches B (--batches),
 * tile rows w (--tile-rows) and replicas R (--replicas).
 *
 * A knob is a whole number a run may set, 0 meaning "the strategy
 * decides". Each row of the table says everything the rest of histo needs
 * of it: its name (histo.out's config.knobs.NAME and tune.N.NAME, the
 * tune cache's field), its option, bounds and --help entry, its column in
 * --tune's table, and the candidates --tune tries. A strategy names the
 * knobs it honours (strategy.knobs, a mask of KNOB_BIT) and reads their
 * values from strategy_env.knobs. The command line, the tune cache,
 * --tune and histo.out loop over the table, so a new knob is an id and a
 * row here and the strategy that reads it.
 */
#ifndef HISTO_KNOBS_H
#define HISTO_KNOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum knob_id { KNOB_BATCHES, KNOB_TILE_ROWS, KNOB_REPLICAS, KNOB_COUNT };

#define KNOB_BIT(id) (1u << (id))

/* The values a run asks for: 0 = the strategy decides. */
struct knob_values {
    unsigned v[KNOB_COUNT];
};

/* The values a set-up strategy used (some it chooses on the device):
 * -1 for a knob it does not have. */
struct knob_used {
    long v[KNOB_COUNT];
};

/* What --tune knows when it lists a knob's candidates. */
struct knob_tune_context {
    uint64_t compute_units; /* of the device tuned on, at least 1       */
    uint64_t values;        /* the values of the chunk tuned on         */
    long first_used;        /* the knob's value the strategy chose by
                               itself (the first candidate), -1: none  */
};

#define KNOB_MAX_CANDIDATES 8

struct knob {
    const char *name;         /* "batches": histo.out, the tune cache   */
    const char *option;       /* "--batches"                            */
    const char *letter;       /* "B": --tune's table and its messages   */
    int width;                /* that column's width                    */
    unsigned long max;        /* the option takes 1 .. max              */
    bool cache_optional;      /* the tune cache writes it only when set */
    const char *help;         /* --help's entry, in its layout          */
    /* --tune's values for a strategy that honours the knob, 0 (the
     * strategy's choice) first; at most KNOB_MAX_CANDIDATES. Returns how
     * many. */
    size_t (*candidates)(const struct knob_tune_context *c, unsigned *out);
};

extern const struct knob knob_table[KNOB_COUNT];

/* The row of the knob whose option is `option`, or NULL. */
const struct knob *knob_by_option(const char *option);

/* True when any value is set (not 0). */
bool knob_any(const struct knob_values *k);

/* "B=4 w=0 R=1" into buf (len bytes). */
void knob_format(char *buf, size_t len, const struct knob_values *k);

#endif
