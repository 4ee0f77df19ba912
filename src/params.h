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

/* Work-group sizes, lowered at run time to what the device accepts. The
 * tile kernel's 1024 work-items beat 512 and 256 on every input
 * (docs/design.md, "Work-group size and registers"); 256 suits the
 * streaming reduction. */
#define HISTO_TILE_GROUP 1024u
#define HISTO_WORK_GROUP 256u

/* Tile groups per compute unit: HISTO_CU_THREADS work-items' worth (two
 * groups of 1024 fill an NVIDIA SM's 2048 threads, each with 47 KiB of
 * its 228 KiB of shared memory), between 1 and HISTO_MAX_GROUPS_PER_CU;
 * and the fewest input values worth a group of their own (small inputs
 * use fewer groups, so fewer partial tiles are written and reduced). */
#define HISTO_CU_THREADS 2048u
#define HISTO_MAX_GROUPS_PER_CU 4u
#define HISTO_MIN_GROUP_VALUES 8192u

/* Eye sampling: every tile group reads the same HISTO_EYE_SAMPLES values,
 * in runs of HISTO_EYE_RUN consecutive values (whole 32-byte sectors), and
 * counts them per tile-sized cell of the histogram (at most
 * HISTO_EYE_CELLS cells: where more tiles make the histogram, a cell holds
 * several, so that the cells cover it evenly). A cell
 * joins the window while it holds at least 1/HISTO_EYE_SHARE_INV of the
 * samples: below that share, re-reading the batch for one more tile costs
 * more than sending its values to global atomics. A poor estimate costs
 * speed only: values outside the window are still counted. */
/* Every group samples, so each sample is paid once per group. 512 find
 * the same windows as 1024 on every bench input, in less time; 256 cost
 * the dense core what they save the wide eye (docs/design.md, "Sampling
 * the eye"). */
#define HISTO_EYE_SAMPLES 512u
#define HISTO_EYE_RUN 8u
#define HISTO_EYE_CELLS 1024u
#define HISTO_EYE_SHARE_INV 16u
/* Copies of the eye's cell counters (fewer atomics on one address). */
#define HISTO_EYE_COPIES 16u

/* Layout of the small device buffer the tile kernel's group 0 writes and
 * the reduce kernel reads (all uint). */
#define HISTO_EYE_LO 0        /* first bin held in local tiles        */
#define HISTO_EYE_HI 1        /* one past the last such bin           */
#define HISTO_EYE_TILES 2     /* tiles per batch (0: no eye window)   */
#define HISTO_EYE_BATCHES 3   /* batches the input was split into     */
#define HISTO_EYE_COLS 4      /* 2-D window: columns (0: whole rows)  */
#define HISTO_EYE_ROWS 5      /* 2-D window: rows                     */
#define HISTO_EYE_STRIDE 6    /* bins from one tile to the next       */
#define HISTO_EYE_RAN 7       /* groups that counted                  */
#define HISTO_EYE_ADDS 8      /* HISTO_ADDS_* bits                    */
#define HISTO_EYE_WORDS 9
/* The bits of eye[HISTO_EYE_ADDS]: the samples showed a hammered bin;
 * the tile groups added without reading first; the samples were not
 * looked at for hammered bins (eye_tile_2d, or no room in the tile). */
#define HISTO_ADDS_HOT 1u
#define HISTO_ADDS_PLAIN 2u
#define HISTO_ADDS_UNSAMPLED 4u
/* ... and the tiles' counters were 8 bits, their wraps recorded in
 * `outer` (eye_count.cl, "Narrow counters"). */
#define HISTO_ADDS_NARROW 8u

/* Layout of each of the two blocks of control words of eye_fused.cl
 * (all uint; zero before a launch uses its block). */
#define HISTO_FUSED_TICKETS 0      /* tickets taken; top bit: poll closed */
#define HISTO_FUSED_PARTICIPANTS 1 /* groups that took part, once closed  */
#define HISTO_FUSED_ARRIVED 2      /* groups at the grid barrier          */
#define HISTO_FUSED_CTL_WORDS 4
/* The default for devices with dedicated local memory runs the eye design
 * in one launch an iteration (eye_fused.cl) below this many values, in
 * two (eye_tile.cl, eye_reduce.cl) from it. The fused kernel launches a
 * group on every compute unit's place for its reduction (eye_plan.c), and
 * one launch then beats two on every shape measured below 8M values.
 * From HISTO_EYE_2D_MIN_VALUES the tile kernel takes the 2-D window and
 * buckets, which the fused kernels lack, and one launch no longer wins
 * (docs/design.md, "Strategy `fused`: one launch an iteration"). */
#define HISTO_FUSED_MAX_VALUES (HISTO_EYE_2D_MIN_VALUES - 1u)

/* 2-D eye window: the samples' columns are counted in
 * HISTO_EYE_COL_BUCKETS buckets, and the window keeps the buckets left
 * once fewer than 1/HISTO_EYE_COL_TAIL_INV of the samples are cut from
 * each side; where that is at most half a row, tiles hold only those
 * columns (more rows a tile, fewer tiles, fewer re-reads of the input).
 * 1/32 a side beat 1/16, 1/24, 1/64 and 1/128 on the wide eye
 * (docs/design.md, "The 2-D window for large inputs"). */
#define HISTO_EYE_COL_BUCKETS 64u
#define HISTO_EYE_COL_TAIL_INV 32u
/* ... and only for inputs of at least this many values: below, counting
 * is not what an iteration waits for, and the 2-D split of every value
 * costs more than the tiles it saves (docs/design.md). */
#define HISTO_EYE_2D_MIN_VALUES 8388608u
/* ... and from this many values eye_tile_2d counts a window of two
 * 16-bit tiles or more in 8-bit tiles of twice the bins, their wraps
 * recorded in `outer` (eye_count.cl, "Narrow counters"): half the
 * re-reads of the input for a wider reduction, a gain only on large
 * inputs (docs/design.md, "8-bit tiles for wide eyes of 32M values or
 * more"). */
#define HISTO_NARROW_MIN_VALUES 33554432ul
/* A 2-D window takes one tile more while that catches at least
 * 1/HISTO_EYE_2D_SHARE_INV more of the samples (a whole-row window's cells
 * need HISTO_EYE_SHARE_INV): its tiles are taller. 1/8 gives both wide
 * eyes 2 tiles, faster than 1/16's 3 (docs/design.md, "Rejected, with
 * measured cost"). */
#define HISTO_EYE_2D_SHARE_INV 8u
/* A 2-D window is placed by sliding over buckets of the sampled rows in
 * its columns, HISTO_EYE_ROW_SUB buckets a tile (at most
 * HISTO_EYE_ROW_BUCKETS; rows past the last count in it), so that it is
 * centred on the eye wherever that lies instead of on a fixed grid of
 * tile-sized cells; it holds at most HISTO_EYE_2D_MAX_TILES tiles (it is
 * taken only with at most half the tiles of whole rows). */
#define HISTO_EYE_ROW_SUB 8u
#define HISTO_EYE_ROW_BUCKETS 256u
#define HISTO_EYE_2D_MAX_TILES 8u
/* The workload's histogram width (256 x 8192 bins). The eye kernels take
 * the width as an argument (one build serves every histogram shape); the
 * 2-D count, where splitting a bin into row and column is most of a
 * value's work, has a loop of its own with this width a constant, as
 * fast as a build for it (kernels/eye_count.cl, in_cols; any other width
 * is slower even by shift and mask, docs/bench/h200-bd1d2bb-width.txt). */
#define HISTO_WORKLOAD_WIDTH 256u

/* Bytes of local memory left unused when sizing a tile: NVIDIA's runtime
 * rejects a 49152-byte dynamic __local argument on a 49152-byte device
 * (CL_OUT_OF_RESOURCES) while 49148 runs; 1 KiB covers that and small
 * static local use by other implementations. */
#define HISTO_LOCAL_HEADROOM 1024u

/* At most this many tiles per batch (cells in the window), and at most
 * this many batches when the eye is tiled (each batch's partial tiles are
 * written and added up once more). 512 gives each tile group a batch of
 * its own when the window is one tile, on devices of up to 512 tile
 * groups, so none of them idles (docs/design.md, "Batches"). */
#define HISTO_MAX_TILES 16u
#define HISTO_MAX_BATCHES 512u

/* Tile counters are 16 bits and end at most 255 plus one increment per
 * work-item of the group (eye_count.cl), so a group of more than
 * HISTO_TILE_GROUP_BOUND = 0xffff - HISTO_SATURATE work-items could carry
 * one into its neighbour: eye_count.cl refuses to build for such a group.
 * The host never launches more than HISTO_TILE_GROUP_MAX, far inside. */
#define HISTO_TILE_GROUP_MAX 1024u
#define HISTO_TILE_GROUP_BOUND 65280u
/* Where the longest slice holds at most HISTO_PLAIN_MAX_VALUES values
 * (in whole quads: 65532), eye_tile's groups add to their 16-bit tile
 * counters without reading them first: none can pass 65535. Unless
 * 1/HISTO_EYE_HOT_INV or more of the eye's samples fall in the same
 * counter word as the value after them: a hammered bin, whose adds would
 * all meet on one word, where the read lets a saturated bin cost a
 * broadcast read instead (docs/design.md, "Plain adds"). */
#define HISTO_PLAIN_MAX_VALUES 65535u
#define HISTO_EYE_HOT_INV 16u

/* Reduction work-items per window quad, each adding every
 * HISTO_REDUCE_LANES-th batch's partial (eye_reduce.cl). A power of two
 * dividing HISTO_WORK_GROUP. */
#define HISTO_REDUCE_LANES 8u
/* At most this many groups a compute unit for each part of the reduction
 * (its work-items loop over the quads): 4 beat 2, 8 and 16 overall
 * (docs/design.md, "The reduction"). */
#define HISTO_REDUCE_GROUPS_PER_CU 4u

/* Buckets (eye_bucket.cl): an iteration without a tile sorts its values into
 * buckets of HISTO_BUCKET_BINS bins (16-bit offsets) instead of sending
 * each to a global atomic. Cursors padded to HISTO_BUCKET_PAD words; the
 * tile's memory stages at least HISTO_BUCKET_MIN_SLOTS values a bucket; a
 * work-item reads HISTO_BUCKET_QUADS quads a round and HISTO_BUCKET_ROUNDS
 * rounds a step (the registers of 2 quads: 4 at once leave room for one
 * group an SM); teams of HISTO_BUCKET_TEAM work-items copy a bucket's run
 * out; the areas take at most 1/HISTO_BUCKET_MEM_INV of the device's
 * memory (a resident input may take 7/8 of it, work.c, and an input of two
 * chunk lengths has two states) and at least HISTO_BUCKET_MIN_CAP entries
 * each. The reduction counts a bucket HISTO_BUCKET_CHUNK entries at a time
 * (a multiple of 8 below 65536) in HISTO_BUCKET_LOCAL_WORDS local words
 * (16-bit counters and a count, which also hold part B's lanes).
 * docs/design.md, "Buckets", has the measurements. */
#define HISTO_BUCKET_BINS 8192u
#define HISTO_BUCKET_CHUNK 65528u
#define HISTO_BUCKET_LOCAL_WORDS 4097u
#define HISTO_BUCKET_PAD 32u
#define HISTO_BUCKET_MIN_SLOTS 16u
#define HISTO_BUCKET_QUADS 2u
#define HISTO_BUCKET_ROUNDS 2u
#define HISTO_BUCKET_TEAM 32u
#define HISTO_BUCKET_MEM_INV 32u
#define HISTO_BUCKET_MIN_CAP 64u

/* cpu strategy: the merge reads the private histograms in lines of
 * 2^HISTO_CPU_LINE_LOG2 bins, one 64-byte cache line of 8-bit counters,
 * and skips the all-zero ones. */
#define HISTO_CPU_LINE_LOG2 6

/* cpu strategy: the private histograms' buffer holds fewer bytes than
 * this. NVIDIA's OpenCL hangs or fails with CL_INVALID_COMMAND_QUEUE
 * once it reaches 2^31 bytes, though it allocates far larger buffers
 * (history/perf-log.md, "Exact or loud on any implementation"). */
#define HISTO_CPU_PRIVATE_BYTES (UINT64_C(1) << 31)

/* cpu strategy: merge work-groups per batch. More than one lets the
 * runtime balance ranges that hold more counts than others (an eye
 * off-centre); each extra group costs a few microseconds on PoCL. */
#define HISTO_CPU_MERGE_SPLIT 4u

/* cpu strategy: the cost model the plan chooses its batches by
 * (cpu_plan.h), fitted on PoCL 5.0 hosts of 16, 32 and 64 cores and PoCL
 * 3.1 on 2 (docs/bench/cpu-model-fbe22be.md): the time to count a value
 * on one core, to merge a MiB of private histograms a core, and of a
 * command, fixed and a compute unit (the runtime wakes every worker
 * thread for each). */
#define HISTO_CPU_COUNT_NS_PER_VALUE 1.0
#define HISTO_CPU_MERGE_US_PER_MIB 100.0
#define HISTO_CPU_COMMAND_US 50.0
#define HISTO_CPU_COMMAND_US_PER_UNIT 5.0

/* cpu strategy: batch 0 zeroes the output before counting into it, so it
 * gets fewer values: zeroing this many bytes took about as long as
 * counting one value on PoCL (docs/design.md). */
#define HISTO_CPU_ZERO_BYTES_PER_VALUE 20u

/* cpu strategy: the counting loop branches on saturation while fewer than
 * 1/HISTO_CPU_BRANCHY_SHARE of the previous HISTO_CPU_CHUNK values met a
 * saturated counter, and goes branch-free beyond: a mispredicted branch
 * costs about as much as 30 values' share of the branch-free loop's extra
 * work (docs/design.md). */
#define HISTO_CPU_CHUNK 4096u
#define HISTO_CPU_BRANCHY_SHARE 32u

/* replicated strategy: copies of each tile per work-group when
 * --replicas and the tune cache leave it to the strategy. */
#define HISTO_REPLICAS 2u

/* global strategy: HISTO_GLOBAL_GROUPS_PER_CU count groups of
 * HISTO_WORK_GROUP work-items per compute unit, each striding over the
 * input (fewer where the input has fewer quads), and as many saturating
 * groups at most. */
#define HISTO_GLOBAL_GROUPS_PER_CU 8u

#endif
