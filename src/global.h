/*
 * global.h - the global-atomics strategy: one atomic increment of a 32-bit
 * global counter per value, then a pass that saturates the counters to
 * 8 bits and clears them (kernels/global_*.cl).
 */
#ifndef HISTO_GLOBAL_H
#define HISTO_GLOBAL_H

#include "strategy.h"

extern const struct strategy global_strategy;

#endif
