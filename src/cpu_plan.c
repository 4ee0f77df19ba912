/* cpu_plan.c - the cpu strategy's plan as arithmetic (cpu_plan.h). */
#include "cpu_plan.h"

#include "params.h"

uint64_t cpu_plan_merge_groups(uint64_t batches, uint64_t lines)
{
    if (batches <= 1)
        return 0;
    const uint64_t groups = batches * HISTO_CPU_MERGE_SPLIT;
    return groups < lines ? groups : lines;
}

unsigned cpu_plan_commands(uint64_t batches, bool one_command)
{
    return batches > 1 && !one_command ? 2u : 1u;
}

double cpu_plan_cost_us(uint64_t n, uint64_t bytes, uint64_t units,
                        uint64_t batches, bool one_command)
{
    if (units < 1)
        units = 1;
    if (batches < 1)
        batches = 1;
    /* batches beyond the cores count in turns */
    const uint64_t turns = (batches + units - 1) / units;
    const double command = HISTO_CPU_COMMAND_US
                           + HISTO_CPU_COMMAND_US_PER_UNIT * (double)units;
    /* batch 0 also zeroes the output, worth bytes /
     * HISTO_CPU_ZERO_BYTES_PER_VALUE values, which the batches share */
    const double values = (double)n
                          + (double)(bytes / HISTO_CPU_ZERO_BYTES_PER_VALUE);
    const double count = HISTO_CPU_COUNT_NS_PER_VALUE * 1e-3 * values
                         * (double)turns / (double)batches;
    double merge = 0;
    if (batches > 1) {
        /* the merge's groups, at most one a core, share the private
         * histograms' bytes */
        uint64_t cores = batches * HISTO_CPU_MERGE_SPLIT;
        if (cores > units)
            cores = units;
        merge = HISTO_CPU_MERGE_US_PER_MIB * (double)(batches - 1)
                * (double)bytes / (1024.0 * 1024.0) / (double)cores;
    }
    return command * cpu_plan_commands(batches, one_command) + count + merge;
}

uint64_t cpu_plan_batches(uint64_t n, uint64_t bytes, uint64_t units,
                          bool one_command)
{
    uint64_t best = 1;
    double best_us = cpu_plan_cost_us(n, bytes, units, 1, one_command);
    for (uint64_t b = 2; b <= units; b *= 2) {
        const double us = cpu_plan_cost_us(n, bytes, units, b, one_command);
        if (us < best_us) {
            best = b;
            best_us = us;
        }
    }
    return best;
}

uint64_t cpu_plan_units(uint64_t n, uint64_t bytes, uint64_t units,
                        bool one_command, double *us)
{
    uint64_t best = 1;
    *us = cpu_plan_cost_us(n, bytes, 1, 1, one_command);
    for (uint64_t u = 2; u <= units; u *= 2) {
        const double t = cpu_plan_cost_us(
            n, bytes, u, cpu_plan_batches(n, bytes, u, one_command),
            one_command);
        if (t < *us) {
            best = u;
            *us = t;
        }
    }
    return best;
}
