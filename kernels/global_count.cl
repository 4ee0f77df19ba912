/*
 * global_count.cl - the counting pass of the global-atomics strategy:
 * every value is one atomic increment of a 32-bit counter in global
 * memory (global_saturate.cl then saturates the counters to 8 bits and
 * clears them for the next iteration).
 *
 * The OpenCL textbook histogram, and the baseline the other strategies
 * are measured against: no tiles, no eye, no batches. On a GPU its floor
 * is the device's global-atomic throughput (tests/atomic_probe.c measures
 * it); its cost grows with contention on a bin, which the read below
 * takes off once a bin is full.
 *
 * Counting. Work-items stride over the input in quads (uint4), four quads
 * a step to keep loads in flight, the n % 4 values past the last whole
 * quad taken by the first work-items. A work-item reads a counter before
 * adding and adds only while it shows less than 255: a counter reaches
 * 255 exactly when its true count does, and a bin hammered by every value
 * (one bin) then costs reads, not atomics. The read may meet other
 * work-items' atomic_inc on the same counter; under OpenCL C 1.2 it
 * returns the counter before or after each, so a counter ends at most 255
 * plus one increment per work-item in the launch, far inside 32 bits, and
 * the saturating pass makes it exact (the kernel checker accepts a race
 * between the two marked lines and no other; docs/design.md).
 */

static void add(global uint *counts, uint v)
{
    volatile global uint *c = counts + v;
    if (*c < HISTO_SATURATE)  /* race: pre-read */
        atomic_inc(c);        /* race: its add */
}

static inline void add4(global uint *counts, uint4 v)
{
    add(counts, v.x);
    add(counts, v.y);
    add(counts, v.z);
    add(counts, v.w);
}

kernel void global_count(global const uint *restrict in, uint n,
                         global uint *restrict counts)
{
    const uint size = get_global_size(0);
    const uint id = get_global_id(0);
    /* n <= 2^31 (checked by the host): q stays below 2^29 + 4 * size,
     * so q + 3 * size fits in uint. */
    const uint quads = n / 4;
    global const uint4 *q4 = (global const uint4 *)in;
    uint q = id;
    for (; q + 3 * size < quads; q += 4 * size) {
        const uint4 a = q4[q];
        const uint4 b = q4[q + size];
        const uint4 c = q4[q + 2 * size];
        const uint4 d = q4[q + 3 * size];
        add4(counts, a);
        add4(counts, b);
        add4(counts, c);
        add4(counts, d);
    }
    for (; q < quads; q += size)
        add4(counts, q4[q]);
    if (id < n % 4)
        add(counts, in[quads * 4 + id]);
}
