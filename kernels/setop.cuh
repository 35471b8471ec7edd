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
 * two points.  Staged calls of a few rounds of tiles run as persistent
 * blocks that park each tile's output in shared memory until its place is
 * known (setop_parked.cuh).  The last tile writes the total into the
 * context's pinned host word with the call's ticket, in one store
 * (total_word); the host waits for that, not for the stream, so the call
 * returns while the last stores land (they are in stream order).  A call
 * of one tile launches only its tile: no partition, no scratch.
 */
#ifndef MGPU_SETOP_CUH
#define MGPU_SETOP_CUH

#include <atomic>

#include "setop_agent.cuh"
#include "setop_held.cuh"
#include "setop_parked.cuh"

namespace mgpu {

/* Every S-th key of each input is gathered for the partition's coarse
 * search.  The gather is random access to DRAM (10 us at S = 256 for
 * 2^26 keys on the H200); at 512 it halves, the fine search takes one step
 * more, and the calls were 0-1% faster (merge keeps 256). */
constexpr int kSetopSampleStride = 512;

/* Fewer points than this are found on the inputs, in one launch: each
 * costs a few scattered DRAM reads, which for so few is less than the
 * sample launch and its wait (mgpu_tune's phase timings, H200: i32 keys at
 * 2^22, 530 points, 9.0 us against 11.0 with samples, at 2^23, 1059
 * points, 10.8 against 11.6; i32 pairs at 2^22, 1426 points, 10.6 against
 * 11.5, but at 2^23, 2851 points, 16.1 against 12.7). */
constexpr int kSetopSampleFromPoints = 1536;

/* Calls of at least this many waves of resident tiles take the policy's
 * wide prefetch and sample stride (setop_policy::wide_prefetch,
 * wide_stride; docs/TUNING.md, eighteenth round: 1-1.5% at 2^26-2^28 for
 * i32; at 2^24 keys union 1.5-2% slower, at 2^25 the unions level).  A test
 * build (CMake MGPU_SETOP_WIDE_ALWAYS) takes them in every call, so that
 * the specs and compute-sanitizer cover them. */
constexpr int kSetopWideWaves = 10;

/* A test build (CMake MGPU_SETOP_PARTITION_LANES) may fix the lanes a
 * point at any size, so that the specs and compute-sanitizer cover the
 * groups that only large calls use otherwise. */
#ifndef MGPU_SETOP_PARTITION_LANES
#define MGPU_SETOP_PARTITION_LANES 0
#endif

/* Lanes a partition point: the most that let every point's warp be
 * resident at once (the launch takes a chain of reads a wave; 64 warps an
 * SM at 30 registers), at least 8; 8 with direct points, whose partition
 * runs beside the first tiles and should leave them the room (mgpu_tune
 * direct2, H200: i32 keys union at 2^24 0.0742-0.0746 ms with 8 lanes,
 * 0.0785-0.0788 with 16). */
inline int setop_partition_lanes(int points, int sm_count, bool direct) {
  if (MGPU_SETOP_PARTITION_LANES) return MGPU_SETOP_PARTITION_LANES;
  if (direct) return 8;
  const long long warps = 64LL * sm_count;
  if (points <= warps) return 32;
  if (points <= 2 * warps) return 16;
  return 8;
}

/* Direct points (setop_options::direct_percent) only for calls of at most
 * this many waves of resident tiles: the first wave starts a sample launch
 * earlier, but the other points are then searched beside it, amid its
 * loads, and a wave later its successors wait for them.  mgpu_tune
 * direct / direct2, H200, i32, ms without / with (8 lanes a point):
 *   3.2-3.4 waves: keys at 2^24 union 0.0784-0.0794 / 0.0742-0.0746,
 *     symmetric difference 0.0767-0.0776 / 0.0713-0.0715, difference
 *     0.0718-0.0721 / 0.0655-0.0660; staged pairs at 2^23 union
 *     0.0709-0.0713 / 0.0651-0.0653
 *   6.4 waves: staged pairs union at 2^24 0.1103-0.1127 / 0.1088-0.1103,
 *     pairs difference 0.0777-0.0787 / 0.0749-0.0754
 *   6.8 waves: keys at 2^25 union 0.1237-0.1244 / 0.1274-0.1287,
 *     intersection 0.1065-0.1080 / 0.1092-0.1101
 *   13.7 waves: keys at 2^26 union 0.2206-0.2211 / 0.2217-0.2229,
 *     intersection 0.1819-0.1829 / 0.1887-0.1933; 54 waves (2^28) 1-5%
 *     slower too. */
constexpr int kSetopDirectWaves = 5;

/* How a set operation is launched, beyond its tile shape: the policy's
 * choices, which mgpu_tune varies. */
struct setop_options {
  int prefetch_percent; /* how far ahead tiles prefetch, % of a wave */
  bool early_launch;    /* partition and tiles launched early (PDL) */
  bool early_count;     /* return once the total is known (see below) */
  int partition_lanes;  /* lanes a partition point; 0: setop_partition_lanes */
  int direct_percent;   /* points of this % of a wave of tiles searched on
                           the inputs, each tile waiting for its own two
                           (setop_partition_kernel); 0: none, every tile
                           waits for the whole partition */
  bool free_early = true; /* in wide calls, scratch handed back before the
                             wait for the total (setop_run) */
  bool no_wait = false;   /* mgpu_tune: return once launched, count 0, so
                             that the launches are timed without the host's
                             wait */
};

/* How often wait_for_total reads the ticket's word between two questions
 * to the stream, which are only there to notice a stream that ended or
 * failed without it.  A read the host's cache answers takes a few ns;
 * asking the stream takes the driver's time, and a ticket that lands
 * meanwhile is seen only after it. */
constexpr int kPollsPerStreamQuery = 4096;

/* Waits for the total the last tile publishes with this call's ticket.
 * The last tile knows it once every tile has counted, before the last
 * tiles' stores land, so the call returns while they finish; the outputs
 * are complete in stream order, which is all any later use of them sees
 * (the context's stream, or a read that synchronises with it).  If the
 * stream ends or fails without the ticket, that is reported instead. */
inline mgpu_status wait_for_total(mgpu_context *ctx, unsigned long long ticket,
                                  unsigned long long *total) {
  cuda_state *st = cuda_of(ctx);
  const auto landed = [&] {
    for (int i = 0; i < kPollsPerStreamQuery; ++i)
      if (total_word_is(__atomic_load_n(st->word, __ATOMIC_ACQUIRE), ticket))
        return true;
    return false;
  };
  for (;;) {
    if (landed()) break;
    const cudaError_t e = cudaStreamQuery(st->stream);
    if (e == cudaErrorNotReady) continue;
    CUDA_TRY(ctx, e);
    if (total_word_is(__atomic_load_n(st->word, __ATOMIC_ACQUIRE), ticket))
      break;
    return mgpu_set_error(ctx, MGPU_EDEVICE,
                          "setop kernel ended without publishing its count");
  }
  *total = __atomic_load_n(st->word, __ATOMIC_ACQUIRE) >> 32;
  return MGPU_OK;
}

template <typename P, typename K, typename V> constexpr size_t held_smem_bytes() {
  return sizeof(setop_held_smem<P::NT, P::VT, K, V, kept_room<P>::value>);
}
template <typename P, typename K, typename V> constexpr size_t parked_smem_bytes() {
  return sizeof(setop_parked_smem<P::NT, P::VT, K, V>);
}
template <typename P, bool STAGE_V, bool W, typename K, typename V>
constexpr size_t tile_smem_bytes() {
  return sizeof(
      setop_smem<P::NT, P::VT, STAGE_V, K, V, kept_room<P>::value, !W>);
}

template <typename P, bool HAS_V, typename K, typename V, typename Comp>
mgpu_status held_resident_blocks(mgpu_context *ctx, long long *resident) {
  return resident_blocks<setop_held_kernel<P, HAS_V, K, V, Comp>>(
      ctx, P::NT + 32, held_smem_bytes<P, K, V>(), resident);
}

template <typename P, typename K, typename V, typename Comp>
mgpu_status parked_resident_blocks(mgpu_context *ctx, long long *resident) {
  return resident_blocks<setop_parked_kernel<P, K, V, Comp>>(
      ctx, P::NT + 32, parked_smem_bytes<P, K, V>(), resident);
}

/* A persistent tile kernel (setop_held_kernel, setop_parked_kernel) launched
 * as many blocks as are resident at once (more would only start as others
 * end), which take tiles from `counter`. */
template <typename Kernel, typename K, typename V, typename Comp>
mgpu_status launch_persistent(mgpu_context *ctx, bool early, Kernel kernel,
                              int threads, size_t smem, long long resident,
                              cudaStream_t s, const setop_tiles<K, V> &t,
                              int tiles, int *counter, Comp comp) {
  MGPU_TRY(allow_shared_memory(ctx, kernel, smem));
  if (resident < 1)
    return mgpu_set_error(ctx, MGPU_EDEVICE,
                          "setop: a persistent tile does not fit on this device");
  const unsigned grid = (unsigned)min((long long)tiles, resident);
  CUDA_TRY(ctx, launch_early(early, kernel, grid, threads, smem, s, t, tiles,
                             counter, comp));
  return MGPU_OK;
}

/* Whether a call goes to setop_held_kernel: when it makes at least
 * P::MIN_ROUNDS and fewer than P::MAX_ROUNDS tiles a resident block
 * (policy.cuh says where that measured faster).  MGPU_SETOP_HELD_ALWAYS
 * (a test build's CMake option) sends every call that has a held tile,
 * so that the specs and compute-sanitizer cover that kernel at any size. */
template <typename P, bool HAS_V, typename K, typename V, typename Comp>
mgpu_status use_held(mgpu_context *ctx, const mgpu_setop_args *m, bool *use) {
#ifdef MGPU_SETOP_HELD_ALWAYS
  (void)ctx, (void)m;
  *use = true;
  return MGPU_OK;
#else
  long long resident = 0;
  MGPU_TRY((held_resident_blocks<P, HAS_V, K, V, Comp>(ctx, &resident)));
  const long long tiles = tiles_of((long long)m->na + (long long)m->nb, P::NV);
  *use = tiles >= P::MIN_ROUNDS * resident && tiles < P::MAX_ROUNDS * resident;
  return MGPU_OK;
#endif
}

/* Whether a staged call goes to setop_parked_kernel: when it makes more
 * than one and fewer than P::MAX_ROUNDS tiles a resident block (policy.cuh
 * has the figures; a call of one tile takes setop_kernel, which needs no
 * partition launch: setop_run).  MGPU_SETOP_PARKED_ALWAYS (a test build's
 * CMake option) sends every staged call, so that the specs and
 * compute-sanitizer cover that kernel at any size. */
template <typename P, typename K, typename V, typename Comp>
mgpu_status use_parked(mgpu_context *ctx, const mgpu_setop_args *m, bool *use) {
#ifdef MGPU_SETOP_PARKED_ALWAYS
  (void)ctx, (void)m;
  *use = true;
  return MGPU_OK;
#else
  long long resident = 0;
  MGPU_TRY((parked_resident_blocks<P, K, V, Comp>(ctx, &resident)));
  const long long tiles = tiles_of((long long)m->na + (long long)m->nb, P::NV);
  *use = tiles > 1 && tiles < P::MAX_ROUNDS * resident;
  return MGPU_OK;
#endif
}

/* Whether a staged call that does not park takes its staged tile P (else
 * the gathered tile): not when it makes more than one and fewer than
 * `gather_below` tiles a resident block of P (setop_policy::
 * staged_gather_below says where that measured faster), nor when the
 * occupancy query finds no room for a block of P (8-byte pairs' staged
 * tile takes ~72 KB of shared memory, the gathered one less).  The test
 * build that parks every staged call (MGPU_SETOP_PARKED_ALWAYS) stages
 * every call that cannot park, so that the specs and compute-sanitizer
 * cover the staged tile at any size. */
template <typename P, bool W, typename K, typename V, typename Comp>
mgpu_status use_staged(mgpu_context *ctx, const mgpu_setop_args *m,
                       int gather_below, bool *use) {
#ifdef MGPU_SETOP_PARKED_ALWAYS
  (void)ctx, (void)m, (void)gather_below;
  *use = true;
  return MGPU_OK;
#else
  *use = true;
  if (gather_below <= 0) return MGPU_OK;
  long long resident = 0;
  MGPU_TRY((resident_blocks<setop_kernel<P, true, true, W, K, V, Comp>>(
      ctx, P::NT + (W ? 32 : 0), tile_smem_bytes<P, true, W, K, V>(),
      &resident)));
  const long long tiles = tiles_of((long long)m->na + (long long)m->nb, P::NV);
  *use = resident > 0 &&
         (tiles <= resident || tiles >= (long long)gather_below * resident);
  return MGPU_OK;
#endif
}

/* Calls of kSetopWideWaves waves or more; not parked calls, which the
 * wide settings were not measured for (and whose size rule keeps them
 * within 16 tiles a resident block). */
template <typename P>
bool setop_wide_call(mgpu_context *ctx, const mgpu_setop_args *m) {
#ifdef MGPU_SETOP_WIDE_ALWAYS
  (void)ctx, (void)m;
  return true;
#else
  if (parks_output<P>::value) return false;
  const long long tiles = tiles_of((long long)m->na + (long long)m->nb, P::NV);
  return tiles >= (long long)kSetopWideWaves * cuda_of(ctx)->sm_count *
                      P::MIN_BLOCKS;
#endif
}

template <typename P, bool HAS_V, bool STAGE_V, bool LOOKBACK_WARP, typename K,
          typename V, typename Comp, int S = kSetopSampleStride>
mgpu_status setop_run(mgpu_context *ctx, const mgpu_setop_args *m,
                      size_t *count, Comp comp, setop_options opt) {
  /* a tile with half the kept list would drop outputs of other operations
   * (unless it stores them in rounds) */
  if (kept_room<P>::value < P::NV && !kept_rounds<P>::value &&
      m->op != MGPU_SET_INTERSECTION)
    return mgpu_set_error(ctx, MGPU_EINVAL,
                          "setop: intersection tile used for another operation");
  cuda_state *st = cuda_of(ctx);
  cudaStream_t s = st->stream;
  const K *a = (const K *)m->a_keys, *b = (const K *)m->b_keys;
  const int na = (int)m->na, nb = (int)m->nb;
  const long long total = (long long)na + nb;
  const int tiles = tiles_of(total, P::NV);
  /* A call of one tile (a small call from a script or a REPL) has no
   * partition launch and no scratch: its points are the inputs' ends, and
   * no tile reads its look-back words (span_of_tile, publish_prefix).
   * The persistent kernels take tiles from a counter the partition zeroes. */
  const bool lone =
      tiles == 1 && !holds_output<P>::value && !parks_output<P>::value;
  /* One scratch block: the tiles' look-back words (one a tile, one a
   * group of 32, setop_held_kernel's tile counter, then the groups' sums,
   * each in a sector of its own: tile_word), their partition
   * points (and, sampled with direct points, a ready flag each), and the
   * samples. */
  const int groups = (tiles + 31) / 32;
  const int status_words = tiles + 2 * groups + 1;
  /* the number of points decides (below kSetopSampleFromPoints the
   * inputs are searched directly); past INT_MAX no samples either */
  const bool sampled =
      !lone && tiles + 1 > kSetopSampleFromPoints && total <= INT_MAX;
  /* direct points for calls of a few waves of tiles (kSetopDirectWaves);
   * not for the persistent kernels (held, parked), which wait for the
   * whole partition */
  const long long wave = (long long)st->sm_count * P::MIN_BLOCKS;
  const bool flagged = sampled && opt.direct_percent > 0 &&
                       !holds_output<P>::value && !parks_output<P>::value &&
                       tiles <= kSetopDirectWaves * wave;
  const int ca = sampled ? samples_of(na, S) : 0;
  const int cb = sampled ? samples_of(nb, S) : 0;
  const size_t status_bytes = (size_t)tile_words_bytes(status_words);
  const size_t splits_at = status_bytes;
  const size_t ready_at = splits_at + sizeof(unsigned) * ((size_t)tiles + 1);
  const size_t samples_at =
      (ready_at + (flagged ? sizeof(unsigned) * ((size_t)tiles + 1) : 0) +
       15) &
      ~(size_t)15;
  cuda_scratch scratch;
  char *base = nullptr;
  unsigned long long *status = nullptr, *gstatus = nullptr, *gsum = nullptr;
  unsigned *splits = nullptr;
  if (!lone) {
    MGPU_TRY(scratch.take(ctx, samples_at + sizeof(K) * ((size_t)ca + cb)));
    base = scratch.as<char>();
    status = (unsigned long long *)base;
    gstatus = tile_word(status, tiles);
    gsum = tile_word(gstatus, groups + 1);
    splits = (unsigned *)(base + splits_at);
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
  const bool early = opt.early_launch;
  const int lanes = opt.partition_lanes
                        ? opt.partition_lanes
                        : setop_partition_lanes(tiles + 1, st->sm_count,
                                                flagged);
  /* direct points: those of the first direct_percent of a wave of tiles */
  const int direct =
      flagged ? (int)min((long long)tiles + 1,
                         wave * opt.direct_percent / 100 + 1)
              : 0;
  auto partition = lanes == 32   ? setop_partition_kernel<S, 32, K, Comp>
                   : lanes == 16 ? setop_partition_kernel<S, 16, K, Comp>
                                 : setop_partition_kernel<S, 8, K, Comp>;
  if (!lone) {
    CUDA_TRY(ctx, launch_early(early && sampled, partition,
                               setop_partition_blocks(lanes, tiles + 1),
                               kSetopPartitionThreads,
                               0, s, a, (const K *)sa, na, b, (const K *)sb,
                               nb, (int)P::NV, tiles + 1, m->duplicates != 0,
                               splits, status, status_words, ready, direct,
                               comp));
    CUDA_LAUNCHED(ctx, "setop partition kernel");
  }
  const unsigned long long ticket = ++st->tickets;
  setop_tiles<K, V> t = {a, b, (const V *)m->a_vals, (const V *)m->b_vals,
                         na, nb, splits, status, gstatus, gsum, st->word,
                         ticket, (K *)m->keys, (V *)m->vals,
                         (long long)m->capacity, set_op_keeps(m->op),
                         m->duplicates != 0,
                         (int)(wave * opt.prefetch_percent / 100), ready};
  if constexpr (holds_output<P>::value) {
    static_assert(LOOKBACK_WARP && !STAGE_V,
                  "setop_held_kernel: a look-back warp, values gathered");
    long long resident = 0;
    MGPU_TRY((held_resident_blocks<P, HAS_V, K, V, Comp>(ctx, &resident)));
    MGPU_TRY(launch_persistent(ctx, early, setop_held_kernel<P, HAS_V, K, V, Comp>,
                               P::NT + 32, held_smem_bytes<P, K, V>(),
                               resident, s, t, tiles,
                               (int *)tile_word(gstatus, groups), comp));
  } else if constexpr (parks_output<P>::value) {
    static_assert(LOOKBACK_WARP && STAGE_V && HAS_V,
                  "setop_parked_kernel: a look-back warp, values staged");
    long long resident = 0;
    MGPU_TRY((parked_resident_blocks<P, K, V, Comp>(ctx, &resident)));
    MGPU_TRY(launch_persistent(ctx, early, setop_parked_kernel<P, K, V, Comp>,
                               P::NT + 32, parked_smem_bytes<P, K, V>(),
                               resident, s, t, tiles,
                               (int *)tile_word(gstatus, groups), comp));
  } else {
    auto kernel = setop_kernel<P, HAS_V, STAGE_V, LOOKBACK_WARP, K, V, Comp>;
    const size_t smem = tile_smem_bytes<P, STAGE_V, LOOKBACK_WARP, K, V>();
    MGPU_TRY(allow_shared_memory(ctx, kernel, smem));
    CUDA_TRY(ctx, launch_early(early, kernel, tiles,
                               P::NT + (LOOKBACK_WARP ? 32 : 0), smem, s, t,
                               comp));
  }
  CUDA_LAUNCHED(ctx, "setop kernel");
  /* In wide calls (setop_wide_call) the scratch's free (stream
   * ordered: the launches above still own the block) comes before the wait
   * for the total, where it overlaps the tiles, not after it, where the
   * caller waits for it too (forty-third round, mgpu_tune tail, H200, i32
   * at 2^26, nine passes on two machines, mean ms with the free after /
   * before the wait, and the launches alone timed without any wait):
   * pairs intersection 0.1815 / 0.1802 / 0.1777, staged symmetric
   * difference 0.2828 / 0.2815 / 0.2801, staged pairs union 0.3053 /
   * 0.3051 / 0.3013, keys union 0.2015 / 0.2007 / 0.1983 (2^28 level).
   * Smaller calls keep it after the wait: there the launches outlast the
   * GPU's work, and Lua's set_union of pairs of 2 x 50,000 keys took 30.6,
   * 31.7 and 25.9 us with the free before the wait against 26.2, 26.0 and
   * 26.1 after it (bench/latency.lua, one machine, alternating). */
  if (opt.free_early && setop_wide_call<P>(ctx, m)) scratch.release();
  if (opt.no_wait) {
    *count = 0;
    return MGPU_OK;
  }
  unsigned long long n = 0;
  if (opt.early_count) {
    MGPU_TRY(wait_for_total(ctx, ticket, &n));
  } else {
    CUDA_TRY(ctx, cudaStreamSynchronize(s));
    n = __atomic_load_n(st->word, __ATOMIC_ACQUIRE) >> 32;
  }
  *count = n < m->capacity ? (size_t)n : m->capacity;
  return MGPU_OK;
}

/* One call's tile: each operation has its own in setop_policy (the
 * general tile where it has none of its own); an intersection or
 * difference takes its held tile where use_held says, a union or
 * symmetric difference of 4-byte pairs its staged tile. */
template <typename K, int VB> struct setop_launch {
  typedef setop_policy<sizeof(K), VB> SP;
  typedef value_t<VB> V;
  static constexpr bool HAS_V = VB != 0;

  /* Tile P with values staged or not, waiting with the look-back warp or
   * not; prefetch percent as given, or the wide one in wide calls. */
  template <typename P, bool STAGE_V, bool W, typename Comp>
  static mgpu_status run_tile(mgpu_context *ctx, const cuda_setop_call *c,
                              Comp comp, int prefetch) {
    setop_options opt = {prefetch, SP::early_launch, SP::early_count, 0,
                         SP::direct_points};
    if (setop_wide_call<P>(ctx, c->args)) {
      constexpr int S = SP::wide_stride ? SP::wide_stride : kSetopSampleStride;
      opt.prefetch_percent = SP::wide_prefetch;
      return setop_run<P, HAS_V, STAGE_V, W, K, V, Comp, S>(ctx, c->args,
                                                            c->count, comp, opt);
    }
    return setop_run<P, HAS_V, STAGE_V, W, K, V, Comp>(ctx, c->args, c->count,
                                                       comp, opt);
  }

  /* Whether tile P looks back with a warp of its own: early values and
   * outputs wait with it, even where the policy has warp 0 look back
   * otherwise. */
  template <typename P>
  static constexpr bool looks_back_with_warp =
      SP::lookback_warp || gathers_early<P>::value ||
      outputs_loaded_early<P>::value > 0;

  template <typename P, typename Comp>
  static mgpu_status tile(mgpu_context *ctx, const cuda_setop_call *c,
                          Comp comp) {
    return run_tile<P, false, looks_back_with_warp<P>>(ctx, c, comp,
                                                       SP::prefetch);
  }

  template <typename H, typename P, typename Comp>
  static mgpu_status held_or(mgpu_context *ctx, const cuda_setop_call *c,
                             Comp comp) {
    if constexpr (H::HOLD > 0) {
      bool held = false;
      MGPU_TRY((use_held<H, HAS_V, K, V, Comp>(ctx, c->args, &held)));
      if (held) return tile<H>(ctx, c, comp);
    }
    return tile<P>(ctx, c, comp);
  }

  /* Staged tile S, parked where use_parked says (4-byte pairs), or the
   * gathered tile P where use_staged says (8-byte pairs). */
  template <typename S, typename P, typename Comp>
  static mgpu_status staged_or(mgpu_context *ctx, const cuda_setop_call *c,
                               Comp comp) {
    if constexpr (SP::stage_values) {
      constexpr bool W = looks_back_with_warp<S>;
      if constexpr (SP::park_staged) {
        typedef typename SP::parked PK;
        bool parked = false;
        MGPU_TRY((use_parked<PK, K, V, Comp>(ctx, c->args, &parked)));
        if (parked)
          return run_tile<PK, true, true>(ctx, c, comp, SP::staged_prefetch);
      } else {
        bool staged = true;
        MGPU_TRY((use_staged<S, W, K, V, Comp>(ctx, c->args,
                                               SP::staged_gather_below,
                                               &staged)));
        if (!staged) return tile<P>(ctx, c, comp);
      }
      return run_tile<S, true, W>(ctx, c, comp, SP::staged_prefetch);
    } else {
      return tile<P>(ctx, c, comp);
    }
  }

  template <typename Comp>
  static mgpu_status run(mgpu_context *ctx, const cuda_setop_call *c, Comp comp) {
    switch (c->args->op) {
    case MGPU_SET_INTERSECTION:
      return held_or<typename SP::held_intersection,
                     typename SP::intersection>(ctx, c, comp);
    case MGPU_SET_DIFFERENCE:
      return held_or<typename SP::held_difference, typename SP::difference>(
          ctx, c, comp);
    case MGPU_SET_UNION:
      return staged_or<typename SP::staged, typename SP::union_tile>(ctx, c,
                                                                    comp);
    case MGPU_SET_SYMMETRIC_DIFFERENCE:
      return staged_or<typename SP::staged_symmetric_difference,
                       typename SP::symmetric_difference_tile>(ctx, c, comp);
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
