/*
 * params.h - constants shared by the host and the OpenCL kernels.
 *
 * MUST MATCH: the kernels never hard-code these; program.c passes each one
 * as a -D option when it builds kernels/, so host and device cannot drift.
 */
#ifndef HISTO_PARAMS_H
#define HISTO_PARAMS_H

/* Counters saturate here: the output histogram holds 8-bit bins. */
#define HISTO_SATURATE 255u

/* Default histogram shape of the 116.histo datasets (input files carry
 * their own shape; these are only used by the generator's defaults). */
#define HISTO_DEFAULT_WIDTH 256u
#define HISTO_DEFAULT_HEIGHT 8192u

/* Work-group size the kernels are launched with, lowered at run time to
 * what the device and kernel accept. 256 keeps eight warps per group on
 * NVIDIA and is a multiple of every CPU vector width PoCL uses. */
#define HISTO_WORK_GROUP 256u

/* Eye sampling: one work-group reads this many evenly spaced values and
 * estimates the eye as mean +- HISTO_EYE_SIGMAS standard deviations of the
 * sampled rows. A poor estimate costs speed only: values outside the eye
 * still reach the histogram through global atomics. */
#define HISTO_EYE_SAMPLES 4096u
#define HISTO_EYE_SIGMAS 2.5f

/* Layout of the small device buffer the eye kernel writes and the tile
 * and reduce kernels read (all uint). */
#define HISTO_EYE_LO 0         /* first bin held in local tiles         */
#define HISTO_EYE_HI 1         /* one past the last such bin            */
#define HISTO_EYE_TILES 2      /* tiles per batch that hold bins        */
#define HISTO_EYE_ROW_MEAN 3   /* sampled mean row, rounded down        */
#define HISTO_EYE_ROW_SIGMA 4  /* sampled deviation in rows, rounded up */
#define HISTO_EYE_WORDS 8

/* Bytes of local memory left unused when sizing a tile: NVIDIA's runtime
 * rejects a 49152-byte dynamic __local argument on a 49152-byte device
 * (CL_OUT_OF_RESOURCES) while 49148 runs; 1 KiB covers that and small
 * static local use by other implementations. */
#define HISTO_LOCAL_HEADROOM 1024u

/* At most this many tiles per batch are launched; tiles the eye does not
 * need return at once. Beyond it, out-of-eye values use global atomics. */
#define HISTO_MAX_TILES 32u

/* cpu strategy: the merge reads the private histograms in lines of
 * 2^HISTO_CPU_LINE_LOG2 bins, one 64-byte cache line of 8-bit counters,
 * and skips the all-zero ones. */
#define HISTO_CPU_LINE_LOG2 6

/* cpu strategy: merge work-groups per compute unit. More than one lets the
 * runtime balance ranges that hold more counts than others (an eye
 * off-centre); each extra group costs a few microseconds on PoCL. */
#define HISTO_CPU_MERGE_SPLIT 4u

/* cpu strategy: batch 0 zeroes the output before counting into it, so it
 * gets fewer values: zeroing this many bytes took about as long as
 * counting one value on PoCL (docs/perf-notes.md). */
#define HISTO_CPU_ZERO_BYTES_PER_VALUE 20u

/* cpu strategy: the counting loop branches on saturation while fewer than
 * 1/HISTO_CPU_BRANCHY_SHARE of the previous HISTO_CPU_CHUNK values met a
 * saturated counter, and goes branch-free beyond: a mispredicted branch
 * costs about as much as 30 values' share of the branch-free loop's extra
 * work (docs/perf-notes.md). */
#define HISTO_CPU_CHUNK 4096u
#define HISTO_CPU_BRANCHY_SHARE 32u

#endif
