/*
 * cpu.h - the strategy for devices with an implicit cache (CPUs): batch 0
 * of the input counted straight into the output, the other batches into
 * private 8-bit histograms, then a merge of their non-zero lines
 * (kernels/cpu_*.cl).
 */
#ifndef HISTO_CPU_H
#define HISTO_CPU_H

#include "strategy.h"

extern const struct strategy cpu_strategy;

/* Whether the cpu strategy can clear an output of nbins counters within a
 * device's loop limit (strategy_env.loop_limit; 0: no limit): one
 * work-item clears it, so a large histogram cannot be counted there. */
bool cpu_fits_loop_limit(uint64_t nbins, uint32_t loop_limit);

#endif
