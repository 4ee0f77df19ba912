/*
 * eye_internal.h - the eye strategies' state, shared by eye.c (plan,
 * buffers, launches) and eye_report.c (histo.out, summary) alone.
 */
#ifndef HISTO_EYE_INTERNAL_H
#define HISTO_EYE_INTERNAL_H

#include "eye.h"
#include "eye_plan.h"
#include "params.h"

struct eye_state {
    cl_kernel kernel[K_COUNT];
    cl_program rebuilt;      /* the tile kernel's program after a refused
                                launch (tile_rebuild()), else NULL      */
    char rebuilt_why[96];    /* what was refused, "" if nothing         */
    cl_mem values, eye, partial, outer, histo;
    cl_mem out;              /* bind_output's buffer (not held), or NULL:
                                the reduction writes it, not histo     */
    cl_mem buckets;          /* eye_bucket.cl's: cursors, areas         */
    cl_mem control;          /* fused: eye_fused.cl's two control blocks */
    cl_uint launch;          /* fused: launches so far (eye_fused.cl)    */
    cl_uint launch_arg;      /* fused: the tile kernel's argument `launch` */
    cl_uint hist_arg;        /* the reduction's argument `hist`          */
    cl_uint fused_hist_arg;  /* fused: the tile kernel's argument `hist` */
    struct eye_plan plan;
    unsigned long narrow_min; /* the program's 8-bit tiles from this
                                many values (eye_count.cl, Narrow
                                counters); 0: none (narrow_min())      */
    struct strategy_env env;
    bool replicated;         /* the replicated strategy (R from env)    */
    bool fused;              /* one launch an iteration (eye_fused.cl)  */
    const struct histo_input *input;
    cl_uint eye_words[HISTO_EYE_WORDS]; /* read back with the histogram */
};

/* The tile kernel launched (eye_tile, eye_tile_2d, eye_tile_2d_narrow,
 * eye_fused, eye_fused_2d) and the reduction created with it. */
const char *eye_tile_name(const struct eye_state *s);
const char *eye_reduce_name(const struct eye_state *s);

/* eye_report.c: the strategy's report, summary and knobs used. */
void eye_report(const void *opaque, FILE *f);
void eye_summary(const void *opaque, FILE *f);
void eye_used(const void *opaque, struct knob_used *u);

#endif
