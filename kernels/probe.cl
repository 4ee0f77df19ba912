/*
 * probe.cl - how many loop iterations one work-item may make in one
 * launch. OpenCL sets no such limit, but an implementation can: Mesa's
 * llvmpipe (rusticl's CPU device) ends every loop of a kernel invocation
 * once their iterations together reach 65535, silently, and the kernel
 * carries on after the loop. work.c runs this once per device, before
 * anything is planned, and the strategies plan so that no work-item comes
 * near the limit it finds.
 *
 * One work-item makes up to n iterations, each adding 1 read from
 * memory (the host fills `ones` with 1s) to a count, through a recurrence
 * the compiler cannot fold, so the loop is really run: out[0] is the
 * number of iterations made.
 */
kernel void loop_probe(global const uint *restrict ones, uint n,
                       global uint *restrict out)
{
    uint count = 0, x = 1;
    for (uint i = 0; i < n; ++i) {
        x = x * 1664525u + ones[i & 15];
        count += ones[x & 15];
    }
    out[0] = count;
    out[1] = x;
}
