/* check.c - the device's counters against the host's (see check.h). */
#include "check.h"

#include <inttypes.h>
#include <string.h>

void check_compare(const uint8_t *got, const uint8_t *want,
                   const struct histo_input *in, struct check_result *r)
{
    memset(r, 0, sizeof *r);
    r->done = true;
    for (uint32_t b = 0; b < in->nbins; ++b) {
        r->got_sum += got[b];
        r->want_sum += want[b];
        if (got[b] == want[b])
            continue;
        if (r->shown < CHECK_SHOWN)
            r->first[r->shown++] = (struct check_mismatch){b, got[b],
                                                           want[b]};
        ++r->wrong;
    }
}

static void describe_mismatch(const struct check_mismatch *m,
                              const struct histo_input *in, FILE *f)
{
    fprintf(f, "bin %" PRIu32 " (row %" PRIu32 ", column %" PRIu32 "): got %u,"
               " expected %u", m->bin, m->bin / in->histo_width,
            m->bin % in->histo_width, m->got, m->want);
}

void check_describe(const struct check_result *r,
                    const struct histo_input *in, FILE *f)
{
    if (!r->done) {
        fputs("not checked (--no-check)", f);
        return;
    }
    if (r->wrong == 0) {
        fprintf(f, "PASS: the %" PRIu32 " counters equal a sequential host "
                   "histogram (%.3f s)", in->nbins, r->seconds);
        return;
    }
    fprintf(f, "FAIL: %" PRIu64 " of %" PRIu32 " bins differ from a sequential"
               " host histogram (counters sum to %" PRIu64 ", expected %"
               PRIu64 "); first: ", r->wrong, in->nbins, r->got_sum,
            r->want_sum);
    for (size_t i = 0; i < r->shown; ++i) {
        if (i > 0)
            fputs("; ", f);
        describe_mismatch(&r->first[i], in, f);
    }
}

void check_report(const struct check_result *r, const struct histo_input *in,
                  FILE *f)
{
    fprintf(f, "check = %s\n", !r->done ? "skipped"
                               : r->wrong == 0 ? "PASS" : "FAIL");
    if (!r->done)
        return;
    fprintf(f, "check.against = sequential host histogram of the same "
               "values\n");
    fprintf(f, "check.wrong_bins = %" PRIu64 "\n", r->wrong);
    fprintf(f, "check.counter_sum = %" PRIu64 "\n", r->got_sum);
    fprintf(f, "check.expected_counter_sum = %" PRIu64 "\n", r->want_sum);
    for (size_t i = 0; i < r->shown; ++i) {
        fprintf(f, "check.mismatch.%zu = ", i);
        describe_mismatch(&r->first[i], in, f);
        fputc('\n', f);
    }
    fprintf(f, "time.check_s = %.6f\n", r->seconds);
}
