/*
 * setop.cuh - mgpu_setop on the GPU.  A partition launch finds, for every
 * tile boundary, the Balanced Path point (starred when it would cut a
 * matched pair); then one block per tile has its share of A and B (and,
 * for a union or symmetric difference of 4-byte pairs, their values)
 * brought into shared memory by bulk copy, splits it per thread with a
 * second Balanced Path search there, walks VT key-rank slots per thread, and
 * compacts what it keeps.  Tiles learn where their output goes by a
 * decoupled look-back over the tiles before them, run by a warp of its own
 * from the tile's start, so the inputs are read once and the output
 * written once.  The partition and tile launches may start before the
 * launch ahead of them ends (programmatic dependent launch); in calls of a
 * few waves of tiles the first wave's points are searched on the inputs
 * while the samples are gathered, and each tile waits only for its own
 * two points.  The last tile writes the total into the
 * context's pinned host word with the call's ticket, in one store
 * (total_word); the host waits for that, not for the stream, so the call
 * returns while the last stores land (they are in stream order).  A call
 * of one tile launches only its tile: no partition, no scratch.
 */
#ifndef MGPU_SETOP_CUH
#define MGPU_SETOP_CUH

#include <atomic>

#include "agent/setop_tile.cuh"
#include "dispatch.cuh"

namespace mgpu {

/* Every S-th key of each input is gathered for the partition's coarse
 * search.  The gather is random access to DRAM (10 us at S = 256 for
 * 2^26 keys on the H200); at 512 it halves, the fine search takes one step
 * more, and the calls were 0-1% faster (merge keeps 256). */
constexpr int kSetopSampleStride = 512;

/* Fewer points than this are found on the inputs, in one launch: each
 * costs a few scattered DRAM reads, which for so few is less than the
 * sample launch and its wait (on an H200 the crossover lies between
 * ~1,400 and ~2,800 points; docs/TUNING.md, Set operations). */
constexpr int kSetopSampleFromPoints = 1536;

/* Lanes a partition point: the most that let every point's warp be
 * resident at once (the launch takes a chain of reads a wave; 64 warps an
 * SM at 30 registers), at least 8; 8 with direct points, whose partition
 * runs beside the first tiles and should leave them the room (16 lanes
 * made i32 keys union at 2^24 ~6% slower;
 * docs/TUNING.md, Set operations). */
inline int setop_partition_lanes(const mgpu_context *ctx, int points,
                                 bool direct) {
  if (ctx->paths.partition_lanes) return ctx->paths.partition_lanes;
  if (direct) return 8;
  const long long warps = 64LL * cuda_of(ctx)->sm_count;
  if (points <= warps) return 32;
  if (points <= 2 * warps) return 16;
  return 8;
}

/* Direct points (setop_launch_fields::direct_percent) only for calls of
 * at most this many waves of resident tiles: the first wave starts a
 * sample launch earlier, but the other points are then searched beside it,
 * amid its loads, and a wave later its successors wait for them
 * (docs/TUNING.md, Set operations). */
constexpr int kSetopDirectWaves = 5;

template <typename P, bool STAGE_V, bool W, typename K, typename V>
constexpr size_t tile_smem_bytes() {
  return sizeof(
      setop_smem<P::NT, P::VT, STAGE_V, K, V, kept_room<P>(), !W>);
}

/* One call in tile P (values staged or not, waiting with the look-back
 * warp or not) with SP's launch fields, its positions of type Off. */
template <typename SP, typename P, bool HAS_V, bool STAGE_V,
          bool LOOKBACK_WARP, typename K, typename V, typename Off,
          typename Comp>
mgpu_status setop_run(mgpu_context *ctx, const mgpu_setop_args *m,
                      size_t *count, Comp comp) {
  typedef setop_split_t<Off> split_t;
  constexpr int S = kSetopSampleStride;
  /* a tile with half the kept list would drop outputs of other operations
   * (unless it stores them in rounds) */
  if (kept_room<P>() < P::NV && !P::ROUNDS &&
      m->op != MGPU_SET_INTERSECTION)
    return mgpu_set_error(ctx, MGPU_EINVAL,
                          "setop: intersection tile used for another operation");
  cuda_state *st = cuda_of(ctx);
  cudaStream_t s = st->stream;
  const K *a = (const K *)m->a_keys, *b = (const K *)m->b_keys;
  const Off na = (Off)m->na, nb = (Off)m->nb;
  const long long total = (long long)na + nb;
  int tiles = 0;
  MGPU_TRY(checked_tiles(ctx, total, P::NV, &tiles, "setop"));
  /* A call of one tile (a small call from a script or a REPL) has no
   * partition launch and no scratch: its points are the inputs' ends, and
   * no tile reads its look-back words (span_of_tile, publish_prefix). */
  const bool lone = tiles == 1;
  /* One scratch block: the tiles' look-back words (one a tile, one a
   * group of 32, then the groups' sums, each in a sector of its own:
   * tile_word), their partition points (and, sampled with direct points,
   * a ready flag each), and the samples. */
  const int groups = (tiles + 31) / 32;
  const int status_words = tiles + 2 * groups;
  /* the number of points decides (below kSetopSampleFromPoints the
   * inputs are searched directly) */
  const bool sampled =
      !lone && (tiles + 1 > kSetopSampleFromPoints || ctx->paths.sampled);
  /* direct points for calls of a few waves of tiles (kSetopDirectWaves) */
  const long long wave = (long long)st->sm_count * P::MIN_BLOCKS;
  const bool flagged = sampled && SP::direct_percent > 0 &&
                       tiles <= kSetopDirectWaves * wave;
  const Off ca = sampled ? samples_of<Off>(na, S) : 0;
  const Off cb = sampled ? samples_of<Off>(nb, S) : 0;
  const size_t status_bytes = (size_t)tile_words_bytes(status_words);
  const size_t splits_at = status_bytes;
  const size_t ready_at = splits_at + sizeof(split_t) * ((size_t)tiles + 1);
  const size_t samples_at =
      (ready_at + (flagged ? sizeof(unsigned) * ((size_t)tiles + 1) : 0) +
       15) &
      ~(size_t)15;
  cuda_scratch scratch;
  char *base = nullptr;
  unsigned long long *status = nullptr, *gstatus = nullptr, *gsum = nullptr;
  split_t *splits = nullptr;
  if (!lone) {
    MGPU_TRY(scratch.take(ctx, samples_at + sizeof(K) * ((size_t)ca + cb)));
    base = scratch.as<char>();
    status = (unsigned long long *)base;
    gstatus = tile_word(status, tiles);
    gsum = tile_word(gstatus, groups);
    splits = (split_t *)(base + splits_at);
  }
  unsigned *ready = flagged ? (unsigned *)(base + ready_at) : nullptr;
  const K *sa = nullptr, *sb = nullptr;
  if (sampled) {
    K *pa = (K *)(base + samples_at);
    if (flagged)
      setop_samples_kernel<S><<<grid_for((size_t)max(ca, cb), 256), 256, 0, s>>>(
          a, na, pa, b, nb, pa + ca, status, status_words, ready, tiles + 1);
    else
      gather_samples_kernel<S><<<grid_for((size_t)max(ca, cb), 256), 256, 0,
                                 s>>>(a, na, pa, b, nb, pa + ca);
    CUDA_LAUNCHED(ctx, "setop sample kernel");
    sa = pa;
    sb = pa + ca;
  }
  /* Only after the sample launch may the partition start early: it zeroes
   * the look-back words before it waits (or, flagged, writes after the
   * sample launch has zeroed them), and without the samples ahead of it
   * the kernel before could be a tile launch of the last call still using
   * that memory. */
  const int lanes = setop_partition_lanes(ctx, tiles + 1, flagged);
  /* direct points: those of the first direct_percent of a wave of tiles */
  const int direct =
      flagged ? (int)min((long long)tiles + 1,
                         wave * SP::direct_percent / 100 + 1)
              : 0;
  auto partition = lanes == 32   ? setop_partition_kernel<S, 32, K, Off, Comp>
                   : lanes == 16 ? setop_partition_kernel<S, 16, K, Off, Comp>
                                 : setop_partition_kernel<S, 8, K, Off, Comp>;
  if (!lone) {
    CUDA_TRY(ctx, launch_early(ctx, sampled, partition,
                               setop_partition_blocks(lanes, tiles + 1),
                               kSetopPartitionThreads,
                               0, s, a, (const K *)sa, na, b, (const K *)sb,
                               nb, (int)P::NV, tiles + 1, m->duplicates != 0,
                               splits, status, status_words, ready, direct,
                               comp));
    CUDA_LAUNCHED(ctx, "setop partition kernel");
  }
  const unsigned long long ticket = ++st->tickets;
  setop_tiles<K, V, Off> t = {a, b, (const V *)m->a_vals, (const V *)m->b_vals,
                         na, nb, splits, status, gstatus, gsum, st->word,
                         ticket, (K *)m->keys, (V *)m->vals,
                         (long long)m->capacity, set_op_keeps(m->op),
                         m->duplicates != 0,
                         (int)(wave * SP::prefetch_percent / 100), ready};
  auto kernel = setop_kernel<P, HAS_V, STAGE_V, LOOKBACK_WARP, K, V, Off, Comp>;
  const size_t smem = tile_smem_bytes<P, STAGE_V, LOOKBACK_WARP, K, V>();
  MGPU_TRY(allow_shared_memory(ctx, kernel, smem));
  CUDA_TRY(ctx, launch_early(ctx, true, kernel, tiles,
                             P::NT + (LOOKBACK_WARP ? 32 : 0), smem, s, t,
                             comp));
  CUDA_LAUNCHED(ctx, "setop kernel");
  /* The scratch goes back to the pool before the wait for the total, in
   * stream order (the launches above still own it): the free overlaps the
   * tiles instead of following them. */
  scratch.release();
  unsigned long long n = 0;
  if (sizeof(Off) == 4) MGPU_TRY(wait_for_total(ctx, ticket, &n, "setop"));
  else MGPU_TRY(wait_for_value(ctx, ticket, &n, "setop"));
  *count = n < m->capacity ? (size_t)n : m->capacity;
  return MGPU_OK;
}

/* One call's kernel: its operation's tile in setop_policy, the values of
 * a union or symmetric difference staged where the policy stages them. */
template <typename K, int VB> struct setop_launch {
  typedef setop_policy<sizeof(K), VB> SP;
  typedef value_t<VB> V;
  static constexpr bool HAS_V = VB != 0;

  /* Tile P looks back with a warp of its own where the policy says, and
   * always when it gathers values or reads outputs early (they wait with
   * it). */
  template <typename P>
  static constexpr bool looks_back_with_warp =
      SP::lookback_warp || P::EARLY_VALUES || P::EARLY_OUTPUTS > 0;

  template <typename P, bool STAGE_V, typename Comp>
  static mgpu_status tile(mgpu_context *ctx, const cuda_setop_call *c,
                          Comp comp) {
    const mgpu_setop_args *m = c->args;
    return dispatch_offset(m->na + m->nb, [&](auto off) {
      return setop_run<SP, P, HAS_V, STAGE_V, looks_back_with_warp<P>, K, V,
                       decltype(off)>(ctx, m, c->count, comp);
    });
  }

  template <typename P, bool STAGE_V>
  static constexpr size_t bytes_of =
      tile_smem_bytes<P, STAGE_V, looks_back_with_warp<P>, K, V>();

  /* Whether tile P keeps every output of any operation (its kept list
   * holds a whole tile, or it stores in rounds). */
  template <typename P>
  static constexpr bool any_operation = kept_room<P>() >= P::NV || P::ROUNDS;

  /* Of the policy's four tiles, the one with the least shared memory that
   * serves every operation: the tile of a GPU whose blocks have less room
   * than the operation's own tile needs (64 KB a block on Turing; the
   * largest tiles take ~73 KB).  It is one of the kernels already built. */
  template <typename Comp>
  static mgpu_status smallest(mgpu_context *ctx, const cuda_setop_call *c,
                              Comp comp) {
    typedef typename SP::intersection I;
    typedef typename SP::difference D;
    typedef typename SP::union_tile U;
    typedef typename SP::symmetric_difference X;
    constexpr bool SV = SP::stage_values;
    constexpr size_t none = ~(size_t)0;
    constexpr size_t i = any_operation<I> ? bytes_of<I, false> : none;
    constexpr size_t d = any_operation<D> ? bytes_of<D, false> : none;
    constexpr size_t u = any_operation<U> ? bytes_of<U, SV> : none;
    constexpr size_t x = any_operation<X> ? bytes_of<X, SV> : none;
    if (x <= i && x <= d && x <= u) return fits<X, SV>(ctx, c, comp);
    if (u <= i && u <= d) return fits<U, SV>(ctx, c, comp);
    if (d <= i) return fits<D, false>(ctx, c, comp);
    return fits<I, false>(ctx, c, comp);
  }

  template <typename P, bool STAGE_V, typename Comp>
  static mgpu_status fits(mgpu_context *ctx, const cuda_setop_call *c,
                          Comp comp) {
    if (bytes_of<P, STAGE_V> > block_room(ctx))
      return mgpu_set_error(ctx, MGPU_ENODEV,
                            "setop: the smallest tile needs %zu bytes of shared "
                            "memory a block; this GPU has %zu",
                            bytes_of<P, STAGE_V>, block_room(ctx));
    return tile<P, STAGE_V>(ctx, c, comp);
  }

  template <typename P, bool STAGE_V, typename Comp>
  static mgpu_status tile_or_smallest(mgpu_context *ctx,
                                      const cuda_setop_call *c, Comp comp) {
    if (bytes_of<P, STAGE_V> <= block_room(ctx))
      return tile<P, STAGE_V>(ctx, c, comp);
    return smallest(ctx, c, comp);
  }

  template <typename Comp>
  static mgpu_status run(mgpu_context *ctx, const cuda_setop_call *c, Comp comp) {
    switch (c->args->op) {
    case MGPU_SET_INTERSECTION:
      return tile_or_smallest<typename SP::intersection, false>(ctx, c, comp);
    case MGPU_SET_DIFFERENCE:
      return tile_or_smallest<typename SP::difference, false>(ctx, c, comp);
    case MGPU_SET_UNION:
      return tile_or_smallest<typename SP::union_tile, SP::stage_values>(ctx, c,
                                                                        comp);
    case MGPU_SET_SYMMETRIC_DIFFERENCE:
      return tile_or_smallest<typename SP::symmetric_difference,
                              SP::stage_values>(ctx, c, comp);
    }
    return mgpu_set_error(ctx, MGPU_EINVAL, "setop: unknown operation");
  }
};

template <typename K>
mgpu_status setop_entry(mgpu_context *ctx, const cuda_setop_call *c) {
  return dispatch_keyed<K, setop_launch>(ctx, c->args->value_size,
                                         c->args->order, c);
}

} // namespace mgpu

#endif
