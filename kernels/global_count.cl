/*
 * global_count.cl - the counting pass of the global-atomics strategy:
 * every value is an atomic add to a 32-bit counter in global memory
 * (global_saturate.cl then saturates the counters to 8 bits and clears
 * them for the next iteration).
 *
 * The OpenCL textbook histogram, and the baseline the other strategies
 * are measured against: no tiles, no eye, no batches. On a GPU its floor
 * is the device's global-atomic throughput (bench/atomic_probe.c measures
 * it in make bench).
 *
 * Work-items stride over the input in quads (uint4), four quads a step to
 * keep loads in flight; the n % 4 values past the last whole quad go to
 * the first work-items. Equal values of a quad go as one atomic_add of
 * their number. The counters hold true counts (at most 2^31, the most
 * values an input has), so nothing is lost until the saturating pass.
 *
 * A full bin costs no atomics once a work-item has seen it full: the
 * first value of each quad is added with an atomic whose result is used
 * (the count before the add), and a work-item remembers the last bin it
 * found at 255 or more and skips its values from then on. The other three
 * values' atomics are fire-and-forget (their result unused), so a value
 * costs one atomic and no read: reading every counter before its atomic
 * instead, as the eye's tiles do, nearly doubled the uniform input's
 * time (docs/design.md, "Strategy `global` (the baseline)"). One bin
 * then costs about one atomic per work-item
 * before they all know it is full.
 */

/* One value, unless it is the bin this work-item last found full; the
 * count before the add tells whether it is now. */
static void add(global uint *counts, uint v, uint *full)
{
    if (v == *full)
        return;
    if (atomic_inc(counts + v) >= HISTO_SATURATE)
        *full = v;
}

/* A quad: each distinct value once, with its number of occurrences; only
 * the first value's atomic returns (and updates *full). */
static inline void add4(global uint *counts, uint4 v, uint *full)
{
    const uint f = *full;
    const uint nx = 1 + (v.y == v.x) + (v.z == v.x) + (v.w == v.x);
    const uint ny = 1 + (v.z == v.y) + (v.w == v.y);
    const uint nz = 1 + (v.w == v.z);
    const bool dy = v.y != v.x;
    const bool dz = v.z != v.x && v.z != v.y;
    const bool dw = v.w != v.x && v.w != v.y && v.w != v.z;
    if (dy && v.y != f)
        atomic_add(counts + v.y, ny);
    if (dz && v.z != f)
        atomic_add(counts + v.z, nz);
    if (dw && v.w != f)
        atomic_inc(counts + v.w);
    if (v.x != f && atomic_add(counts + v.x, nx) >= HISTO_SATURATE)
        *full = v.x;
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
    uint full = 0xffffffffu; /* no bin: bins are below 2^32 - 1 */
    for (; q + 3 * size < quads; q += 4 * size) {
        const uint4 a = q4[q];
        const uint4 b = q4[q + size];
        const uint4 c = q4[q + 2 * size];
        const uint4 d = q4[q + 3 * size];
        add4(counts, a, &full);
        add4(counts, b, &full);
        add4(counts, c, &full);
        add4(counts, d, &full);
    }
    for (; q < quads; q += size)
        add4(counts, q4[q], &full);
    if (id < n % 4)
        add(counts, in[quads * 4 + id], &full);
}
