/*
 * eye_bucket.cl - buckets, for an iteration without a tile (where
 * bucket_cap != 0, eye_tile_2d only). Every value then lies outside the
 * window; instead of a global atomic each, a group sorts its values by
 * bucket (HISTO_BUCKET_BINS consecutive bins) in local memory and appends
 * each bucket's run to that bucket's area of `buckets` as 16-bit offsets,
 * and eye_reduce.cl counts each bucket in local memory. Layout of
 * `buckets` (eye_plan.c): nb cursors (entries taken in each area; the
 * reduction zeroes them for the next iteration), padded to
 * HISTO_BUCKET_PAD words, then nb areas of bucket_cap ushorts. An entry
 * whose place lies past its area's end goes to `outer` with a global
 * atomic instead, so a bucket that fills up costs speed, never a count.
 *
 * The tile's memory holds nb staging counters (values a bucket took this
 * step), nb bases (where the step's run starts in the area), then nb
 * rows of `per` staging slots. A step takes at most per * nb / 8 quads, so
 * that an even spread half fills each row; a value past its row's end
 * goes to `outer` too.
 *
 * Order: built after eye_args.cl to eye_count.cl (the list is eye.c's
 * EYE_TILE_SOURCES).
 */

/* The buckets of a histogram of nbins bins. */
static uint bucket_count(uint nbins)
{
    return (nbins - 1) / HISTO_BUCKET_BINS + 1;
}

/* The first ushort of bucket k's area. */
static global ushort *bucket_area(global uint *buckets, uint nb, uint k,
                                  uint cap)
{
    const uint pad = (nb + HISTO_BUCKET_PAD - 1) / HISTO_BUCKET_PAD
                   * HISTO_BUCKET_PAD;
    return (global ushort *)(buckets + pad) + (ulong)k * cap;
}

/* Value v into its bucket's staging row, or `outer` when the row is full. */
static inline void stage(local uint *fill, local ushort *slot, uint per,
                         global uint *outer, uint v)
{
    const uint k = v / HISTO_BUCKET_BINS;
    const uint s = atomic_inc(&fill[k]);
    if (s < per)
        slot[k * per + s] = (ushort)(v - k * HISTO_BUCKET_BINS);
    else
        atomic_inc(&outer[v]);
}

static inline void stage4(local uint *fill, local ushort *slot, uint per,
                          global uint *outer, uint4 v)
{
    stage(fill, slot, per, outer, v.x);
    stage(fill, slot, per, outer, v.y);
    stage(fill, slot, per, outer, v.z);
    stage(fill, slot, per, outer, v.w);
}

/* The staged runs into their areas: each bucket's run gets its place with
 * one global atomic on the bucket's cursor, then teams of
 * HISTO_BUCKET_TEAM work-items (a warp on NVIDIA) copy one bucket's run
 * each, so that a team's stores are consecutive. Leaves the staging
 * counters zero. */
static void bucket_flush(local uint *fill, local uint *base,
                         local const ushort *slot, uint per, uint nb,
                         uint cap, global uint *buckets, global uint *outer,
                         uint lid, uint size)
{
    for (uint k = lid; k < nb; k += size) {
        const uint f = min(fill[k], per);
        fill[k] = f;
        base[k] = f != 0 ? atomic_add(&buckets[k], f) : 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint team = min((uint)HISTO_BUCKET_TEAM, size);
    const uint teams = size / team;
    if (lid < teams * team) {
        for (uint k = lid / team; k < nb; k += teams) {
            const uint f = fill[k], b = base[k];
            global ushort *area = bucket_area(buckets, nb, k, cap);
            for (uint i = lid % team; i < f; i += team) {
                const ushort off = slot[k * per + i];
                /* b + i <= the input's values < 2^31: no wrap */
                if (b + i < cap)
                    area[b + i] = off;
                else
                    atomic_inc(&outer[k * HISTO_BUCKET_BINS + off]);
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = lid; k < nb; k += size)
        fill[k] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* The group's quads [from_q, to_q) of the input into the buckets, a step
 * at a time: HISTO_BUCKET_ROUNDS rounds of HISTO_BUCKET_QUADS quads per
 * work-item at most, each round's loads issued before its staging
 * atomics (rounds keep the registers of QUADS quads while a step, and
 * its flush, covers more values). The steps' bounds are the same for
 * every work-item (the barriers are reached by all). */
static void bucket_slice(global const uint *restrict in, uint n,
                         local uint *tile, uint tile_words, uint nbins,
                         global uint *outer, global uint *buckets, uint cap,
                         uint from_q, uint to_q)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint nb = bucket_count(nbins);
    local uint *fill = tile;
    local uint *base = tile + nb;
    local ushort *slot = (local ushort *)(tile + 2 * nb);
    /* the host leaves room for HISTO_BUCKET_MIN_SLOTS a bucket (eye_plan.c) */
    const uint per = (tile_words - 2 * nb) * 2 / nb;
    const uint round_q = size * HISTO_BUCKET_QUADS;
    const uint step_q = clamp(per * nb / 8, 1u,
                              round_q * HISTO_BUCKET_ROUNDS);
    const uint full_q = n / 4;
    for (uint k = lid; k < nb; k += size)
        fill[k] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* q0 + step_q <= 2^29 + 2^16 * 4 * HISTO_BUCKET_ROUNDS: no wrap */
    for (uint q0 = from_q; q0 < to_q; q0 += step_q) {
        const uint q_end = min(q0 + step_q, to_q);
        for (uint r = q0; r < q_end; r += round_q) {
            uint4 v[HISTO_BUCKET_QUADS];
            for (uint j = 0; j < HISTO_BUCKET_QUADS; ++j) {
                const uint q = r + lid + j * size;
                v[j] = q < q_end && q < full_q ? vload4(q, in) : (uint4)(0);
            }
            for (uint j = 0; j < HISTO_BUCKET_QUADS; ++j) {
                const uint q = r + lid + j * size;
                if (q < q_end && q < full_q) {
                    stage4(fill, slot, per, outer, v[j]);
                } else if (q < q_end) {
                    for (uint i = 4 * q; i < n; ++i)
                        stage(fill, slot, per, outer, in[i]);
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        bucket_flush(fill, base, slot, per, nb, cap, buckets, outer, lid,
                     size);
    }
}
