/*
 * cpu.h - the strategy for devices with an implicit cache (CPUs): private
 * 8-bit histograms per input slice, then a merge of the lines they touched
 * (kernels/cpu_*.cl).
 */
#ifndef HISTO_CPU_H
#define HISTO_CPU_H

#include "strategy.h"

extern const struct strategy cpu_strategy;

#endif
