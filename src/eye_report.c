/* eye_report.c - what the eye strategies tell histo.out, the summary
 * and the tune cache: the plan, the window the device found and the
 * knobs it used (see eye.c). */
#include "eye_internal.h"

#include "params.h"

#include <stdio.h>

/* First and last histogram row of the eye window, from the read-back;
 * both 0 when the window is empty. */
static void eye_rows(const struct eye_state *s, cl_uint *first, cl_uint *last)
{
    const cl_uint hw = s->input->histo_width;
    const cl_uint lo = s->eye_words[HISTO_EYE_LO];
    const cl_uint hi = s->eye_words[HISTO_EYE_HI];
    /* a 2-D window's last bin lies in its last row too (c0 + cols <= W) */
    *first = lo / hw;
    *last = hi > lo ? (hi - 1) / hw : *first;
}

/* The window's columns: first and count (the whole row without a 2-D
 * window). */
static void eye_cols(const struct eye_state *s, cl_uint *first, cl_uint *cols)
{
    const cl_uint hw = s->input->histo_width;
    *cols = s->eye_words[HISTO_EYE_COLS];
    *first = *cols != 0 ? s->eye_words[HISTO_EYE_LO] % hw : 0;
    if (*cols == 0)
        *cols = hw;
}

/* The batches are the device's choice, read back with the histogram. */
void eye_used(const void *opaque, struct knob_used *u)
{
    const struct eye_state *s = opaque;
    u->v[KNOB_BATCHES] = (long)s->eye_words[HISTO_EYE_BATCHES];
    u->v[KNOB_TILE_ROWS] = (long)s->plan.tile_rows;
    if (s->replicated)
        u->v[KNOB_REPLICAS] = (long)s->plan.replicas;
}

/* Whether the last iteration sorted its values into buckets: it had no
 * tile, and the plan gave them room. */
static bool used_buckets(const struct eye_state *s)
{
    return s->eye_words[HISTO_EYE_TILES] == 0 && s->plan.bucket_cap != 0;
}

/* The plan's lines of the report. */
static void report_plan(const struct eye_state *s, FILE *f)
{
    const struct eye_plan *p = &s->plan;
    fprintf(f, "config.groups = %u\n", p->groups);
    fprintf(f, "config.count_groups = %u\n", p->count_groups);
    fprintf(f, "config.tile_kernel = %s\n", eye_tile_name(s));
    fprintf(f, "config.reduce_kernel = %s\n",
            s->fused ? "none (in the tile kernel)" : eye_reduce_name(s));
    if (s->fused)
        fprintf(f, "config.fence = %s\n",
                device_fence_name(s->env.device->fence));
    fprintf(f, "config.batches_forced = %u\n", p->forced_batches);
    fprintf(f, "config.tile_rows = %u\n", p->tile_rows);
    fprintf(f, "config.tile_bins = %u\n", p->tile_bins);
    fprintf(f, "config.narrow_counters = %s\n",
            p->narrow_possible
                ? "8 bits where the window takes 2 tiles or more"
                : "no");
    fprintf(f, "config.replicas = %u\n", p->replicas);
    fprintf(f, "config.tile_local_bytes = %zu\n", p->local_bytes);
    fprintf(f, "config.max_tiles = %u\n", p->max_tiles);
    fprintf(f, "config.eye_cells = %u\n", p->ncells);
    fprintf(f, "config.eye_cell_tiles = %u\n", p->cell_tiles);
    fprintf(f, "config.eye_min_samples = %u\n", p->min_samples);
    fprintf(f, "config.eye_min_samples_2d = %u\n", p->min_samples_2d);
    fprintf(f, "config.work_group.eye_tile = %zu\n", p->group[K_TILE]);
    fprintf(f, "config.work_group.eye_reduce = %zu\n", p->group[K_REDUCE]);
    fprintf(f, "config.work_group_limit.eye_tile = %zu\n",
            p->group_limit[K_TILE]);
    fprintf(f, "config.work_group_limit.eye_reduce = %zu\n",
            p->group_limit[K_REDUCE]);
    fprintf(f, "config.work_group_target.eye_tile = %zu\n", p->tile_target);
    fprintf(f, "config.work_group_required.eye_tile = %zu\n",
            p->tile_required);
    fprintf(f, "config.work_group_from.eye_tile = %s\n",
            p->tile_required != 0 ? "reqd_work_group_size"
            : p->tile_accepted != 0 ? "eye_tile's reqd_work_group_size"
                                    : "CL_KERNEL_WORK_GROUP_SIZE");
    fprintf(f, "config.work_group_accepted.eye_tile = %zu\n",
            p->tile_accepted);
    fprintf(f, "config.tile_rebuilt = %s\n",
            s->rebuilt_why[0] != '\0' ? s->rebuilt_why : "no");
    fprintf(f, "config.global_size.eye_tile = %zu\n",
            (size_t)p->groups * p->group[K_TILE]);
    fprintf(f, "config.reduce_groups = %u + %u\n", p->reduce_groups[0],
            p->reduce_groups[1]);
    fprintf(f, "config.partial_bytes = %zu\n", p->partial_bytes);
    fprintf(f, "config.buckets = %u\n", p->nbuckets);
    fprintf(f, "config.bucket_cap = %u\n", p->bucket_cap);
    fprintf(f, "config.bucket_bytes = %zu\n", p->bucket_bytes);
    fprintf(f, "config.buckets_off = %s\n",
            p->buckets_why != NULL ? p->buckets_why : "no");
}

/* The lines of what the device chose, from the read-back. */
static void report_eye(const struct eye_state *s, FILE *f)
{
    cl_uint first, last;
    eye_rows(s, &first, &last);
    fprintf(f, "config.batches = %u\n", s->eye_words[HISTO_EYE_BATCHES]);
    fprintf(f, "eye.groups_counted = %u\n", s->eye_words[HISTO_EYE_RAN]);
    fprintf(f, "eye.tiles_used = %u\n", s->eye_words[HISTO_EYE_TILES]);
    fprintf(f, "eye.buckets_used = %s\n", used_buckets(s) ? "yes" : "no");
    const cl_uint adds = s->eye_words[HISTO_EYE_ADDS];
    fprintf(f, "eye.hot_bin = %s\n",
            adds & HISTO_ADDS_UNSAMPLED ? "not sampled"
            : adds & HISTO_ADDS_HOT     ? "yes"
                                        : "no");
    fprintf(f, "eye.plain_adds = %s\n",
            adds & HISTO_ADDS_PLAIN ? "yes" : "no");
    fprintf(f, "eye.counter_bits = %u\n",
            adds & HISTO_ADDS_NARROW ? 8u : 16u);
    fprintf(f, "eye.first_bin = %u\n", s->eye_words[HISTO_EYE_LO]);
    fprintf(f, "eye.end_bin = %u\n", s->eye_words[HISTO_EYE_HI]);
    fprintf(f, "eye.first_row = %u\n", first);
    fprintf(f, "eye.last_row = %u\n", last);
    eye_cols(s, &first, &last);
    fprintf(f, "eye.first_col = %u\n", first);
    fprintf(f, "eye.cols = %u\n", last);
}

void eye_report(const void *opaque, FILE *f)
{
    const struct eye_state *s = opaque;
    report_plan(s, f);
    report_eye(s, f);
}

void eye_summary(const void *opaque, FILE *f)
{
    const struct eye_state *s = opaque;
    cl_uint first, last;
    eye_rows(s, &first, &last);
    fprintf(f, "B=%u batches, w=%u rows/tile, ",
            s->eye_words[HISTO_EYE_BATCHES], s->plan.tile_rows);
    if (used_buckets(s))
        fprintf(f, "no eye window (values sorted into %u buckets)",
                s->plan.nbuckets);
    else if (s->eye_words[HISTO_EYE_TILES] == 0)
        fprintf(f, "no eye window (all values through global atomics)");
    else
        fprintf(f, "eye rows %u-%u", first, last);
    cl_uint c0, cols;
    eye_cols(s, &c0, &cols);
    if (s->eye_words[HISTO_EYE_TILES] != 0 && cols != s->input->histo_width)
        fprintf(f, ", columns %u-%u", c0, c0 + cols - 1);
    if (s->eye_words[HISTO_EYE_TILES] != 0)
        fprintf(f, " in %u tiles", s->eye_words[HISTO_EYE_TILES]);
    if (s->replicated)
        fprintf(f, ", %u copies of each", s->plan.replicas);
}
