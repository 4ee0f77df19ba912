/* narrow.c - the work on a sub-device of fewer compute units where the
 * strategy's plan would rather have them (see work.h, work_narrow): on
 * PoCL a command costs more the more threads must wake for it, and a
 * sub-device wakes fewer (docs/design.md, the cpu strategy). */
#include "work_state.h"

#include "env.h"

#include <inttypes.h>
#include <stdlib.h>

/* The units the plan asks for: HISTO_TEST_SUB_DEVICE_UNITS where set,
 * else the strategy's (0: it has no view, the whole device). */
static int wanted_units(const struct work *w, uint64_t *units, bool *forced)
{
    unsigned long f = 0;
    const int status = env_whole(ENV_HISTO_TEST_SUB_DEVICE_UNITS, &f);
    if (status != HISTO_OK)
        return status;
    if (f != 0 && w->strategy->units == NULL) {
        histo_error("HISTO_TEST_SUB_DEVICE_UNITS is set, and the %s "
                    "strategy plans on the whole device only",
                    w->strategy->name);
        return HISTO_EXIT_USAGE;
    }
    *forced = f != 0;
    *units = f != 0 ? f
           : w->strategy->units != NULL
               ? w->strategy->units(w->shares[0].slots[0].state)
               : 0;
    return HISTO_OK;
}

/* Where the work cannot move to a sub-device: why, in n->why, on stderr
 * too where the device refused one it offers. */
static void stay(struct work_narrowing *n, bool refused)
{
    if (refused)
        fprintf(stderr, "histo: no sub-device of %" PRIu64 " compute "
                        "units (%s): the plan runs on all %" PRIu64 "\n",
                n->wanted, n->why, n->of);
}

int work_narrow(struct work *w)
{
    struct work_narrowing *n = &w->narrowing;
    *n = (struct work_narrowing){.wanted = 0};
    uint64_t want = 0;
    bool forced = false;
    int status = wanted_units(w, &want, &forced);
    const struct work_share *sh = &w->shares[0];
    const uint64_t all = device_units(sh->device);
    n->forced = forced;
    if (status != HISTO_OK || want == 0 || want >= all)
        return status;
    *n = (struct work_narrowing){.wanted = want, .of = all,
                                 .forced = forced};
    if (w->nnamed != 1 || w->nshares != 1) {
        snprintf(n->why, sizeof n->why, "the input is split over %zu "
                 "devices", w->nnamed);
        return HISTO_OK;
    }
    if (sh->streamed) {
        snprintf(n->why, sizeof n->why, "the input is streamed from host "
                 "memory (larger than the device budget)");
        return HISTO_OK;
    }
    struct device_info *sub = histo_calloc(1, sizeof *sub, "sub-device");
    if (sub == NULL)
        return HISTO_EXIT_INTERNAL;
    cl_device_partition_property kind = 0;
    status = device_partition(sh->device, want, sub, &kind, n->why,
                              sizeof n->why);
    if (status != HISTO_OK || n->why[0] != '\0') {
        free(sub);
        stay(n, kind != 0);
        return status;
    }
    bool held = false;
    if ((status = work_hold(w, &held)) != HISTO_OK || !held) {
        clReleaseDevice(sub->id);
        free(sub);
        if (status == HISTO_OK)
            snprintf(n->why, sizeof n->why, "a copy of the input would "
                     "take more than half the host memory available");
        return status;
    }
    n->kind = device_partition_name(kind);
    n->units = device_units(sub);
    const struct device_info *devs[] = {sub};
    status = work_refill(w, devs, 1, sub);
    work_unhold(w);
    return status;
}

const struct work_narrowing *work_narrowing(const struct work *w)
{
    return &w->narrowing;
}
