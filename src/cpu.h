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

#endif
