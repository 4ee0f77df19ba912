/*
 * cpu_plan.h - the cpu strategy's plan as arithmetic: how many batches
 * (private histograms plus the output) and merge work-groups, from the
 * input's size, the histogram's size and the device's compute units. No
 * OpenCL call: cpu.c asks the device and hands the figures in, so that
 * tests/unit_tests.c checks the plan without one.
 *
 * The model (docs/bench/cpu-model-fbe22be.md, params.h's constants): an
 * iteration costs one command a kernel (two with a merge, one for a
 * single batch, which counts straight into the output, and one where the
 * count's groups meet and merge: one_command), the count of
 * n / B values on each of B cores (and the output's zeroing, shared
 * out by shortening batch 0), and the merge of B - 1 private
 * histograms spread over its work-groups' cores. More batches shorten
 * the count and lengthen the merge; a small input on many cores gets
 * few, down to one batch and one command.
 */
#ifndef HISTO_CPU_PLAN_H
#define HISTO_CPU_PLAN_H

#include <stdbool.h>
#include <stdint.h>

/* Merge work-groups for B batches over a histogram of `lines` lines:
 * HISTO_CPU_MERGE_SPLIT a batch, at most one a line; 0 for one batch
 * (nothing to merge). */
uint64_t cpu_plan_merge_groups(uint64_t batches, uint64_t lines);

/* Commands an iteration of B batches enqueues: the count, and the merge
 * where there is more than one batch, unless the count merges too
 * (one_command: its groups meet, then merge). */
unsigned cpu_plan_commands(uint64_t batches, bool one_command);

/* The model's time in microseconds of an iteration of B batches counting
 * n values into histograms of `bytes` bytes on a device of `units`
 * compute units. */
double cpu_plan_cost_us(uint64_t n, uint64_t bytes, uint64_t units,
                        uint64_t batches, bool one_command);

/* The batches the model finds cheapest: a power of two from 1 to
 * `units` (at least 1), the fewer on a tie. */
uint64_t cpu_plan_batches(uint64_t n, uint64_t bytes, uint64_t units,
                          bool one_command);

/* The compute units, a power of two from 1 to `units`, on which the
 * model finds n values cheapest with their best batches, and that cost
 * in *us: what the device would cost with its runtime held to fewer
 * threads (PoCL wakes all of its threads for every command). */
uint64_t cpu_plan_units(uint64_t n, uint64_t bytes, uint64_t units,
                        bool one_command, double *us);

#endif
