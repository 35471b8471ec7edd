/*
 * setop_split.cuh - an experiment (mgpu_tune split; not used by the
 * library): the union of pairs in keys-only tiles, whose values are moved
 * by a later tile while it waits for its own place.
 *
 * The staged union tile holds its keys and values in shared memory while
 * it waits for its base (docs/TUNING.md, seventeenth round: 5 of 14
 * cycles between a warp's instructions at barriers, DRAM at 63%).  Here a
 * tile holds only keys (as the keys union does), and after its walk writes
 * two bit maps in output order: the outputs that took a key of A, and
 * those that took a key of B (a matched pair took both; its value is A's).
 * Output j's value is then A's value a0 + (A bits below j) or B's value
 * b0 + (B bits below j).  The tile `lag` tiles later moves those values
 * while its look-back warp waits (that tile's base is long known by then),
 * so the values use the DRAM time the keys tiles leave idle; `lag` blocks
 * past the last tile move the last tiles' values.
 */
#ifndef MGPU_SETOP_SPLIT_CUH
#define MGPU_SETOP_SPLIT_CUH

#include "setop.cuh"

namespace mgpu {

/* Per tile: two bit maps of W words (output order), the output count and
 * base, and a flag raised once the base and the maps are written. */
struct setop_moves {
  unsigned *bits;
  long long *base;
  int *count;
  unsigned long long *ready; /* zeroed by the partition launch */
  int tiles, lag;
};

template <int NV> struct move_maps {
  static constexpr int W = (NV + 31) / 32 + 1; /* a spare word past the end */
};

/* The 32 map bits of outputs j0 .. j0 + 31 (bits below output 0 are 0). */
__device__ __forceinline__ unsigned map_bits(const unsigned *m, int j0) {
  if (j0 < 0) return m[0] << (-j0);
  const int w = j0 >> 5, s = j0 & 31;
  const unsigned lo = m[w];
  return s ? (lo >> s) | (m[w + 1] << (32 - s)) : lo;
}

/* The compute threads of a block move the values of tile u: each warp a
 * run of at most 30 units of 32 outputs, aligned to the output's 128-byte
 * lines.  The maps' words of a warp's run come one a lane, the A and B
 * bits below the run by a warp sum, and each lane has U gathers in flight
 * (their values were asked of L2 a while before: setop_split_kernel). */
template <int NT, int NV, typename K, typename V>
__device__ __forceinline__ void move_values(const setop_tiles<K, V> &t,
                                            const setop_moves &mv, int u) {
  constexpr int W = move_maps<NV>::W;
  constexpr int WARPS = NT / 32;
  static_assert((W + WARPS - 1) / WARPS + 2 <= 32, "a warp's words, a lane each");
  const auto raised = [&] {
    return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(
               mv.ready[u])
               .load(cuda::memory_order_acquire) != 0;
  };
  if (threadIdx.x == 0)
    while (!raised()) __nanosleep(100);
  named_sync(1, NT);
  (void)raised(); /* each thread's own acquire */
  const long long base = mv.base[u];
  const int count = mv.count[u];
  const setop_span sp = span_of_tile<NV>(t.splits, u, t.na, t.nb);
  const unsigned *wa = mv.bits + (size_t)u * 2 * W, *wb = wa + W;
  V *out = t.outv + base;
  const int room = (int)min((long long)count, t.capacity - base);
  const int shift = (int)(((size_t)out / sizeof(V)) & (128 / sizeof(V) - 1));
  const int units = (room + shift + 31) >> 5;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int k0 = units * warp / WARPS, k1 = units * (warp + 1) / WARPS;
  /* output j's bits are bit (j & 31) of word j >> 5; unit k starts at
   * j0 = 32 k - shift, in word k - 1 (or k without a shift) */
  const int w0 = k0 - 1; /* the lane's word: w0 + lane */
  const int wl = w0 + lane;
  const unsigned la = wl >= 0 && wl < W ? wa[wl] : 0u;
  const unsigned lb = wl >= 0 && wl < W ? wb[wl] : 0u;
  /* bits below the run: whole words before w0 + 1 ... (lanes stride) */
  const int jstart = max(0, 32 * k0 - shift);
  int run_a = 0, run_b = 0;
  {
    const int full = jstart >> 5, part = jstart & 31;
    for (int i = lane; i < full; i += 32) {
      run_a += __popc(wa[i]);
      run_b += __popc(wb[i]);
    }
    if (lane == 0 && part) {
      const unsigned low = (1u << part) - 1;
      run_a += __popc(wa[full] & low);
      run_b += __popc(wb[full] & low);
    }
    run_a = __reduce_add_sync(0xffffffffu, run_a);
    run_b = __reduce_add_sync(0xffffffffu, run_b);
  }
  const unsigned below = (1u << lane) - 1;
  const int a_last = max(t.na - 1, 0), b_last = max(t.nb - 1, 0);
  constexpr int U = 8;
  for (int k = k0; k < k1; k += U) {
    V v[U];
    int j[U];
#pragma unroll
    for (int x = 0; x < U; ++x) {
      const int kk = k + x;
      const int j0 = 32 * kk - shift;
      const int wd = j0 >> 5, sh = j0 & 31; /* wd >= -1 */
      const int src = min(max(wd - w0, 0), 31);
      const unsigned alo = __shfl_sync(0xffffffffu, la, src);
      const unsigned ahi = __shfl_sync(0xffffffffu, la, min(src + 1, 31));
      const unsigned blo = __shfl_sync(0xffffffffu, lb, src);
      const unsigned bhi = __shfl_sync(0xffffffffu, lb, min(src + 1, 31));
      unsigned ua, ub;
      if (wd < 0) { /* outputs before 0 have no bits */
        ua = ahi << (32 - sh);
        ub = bhi << (32 - sh);
      } else if (sh) {
        ua = (alo >> sh) | (ahi << (32 - sh));
        ub = (blo >> sh) | (bhi << (32 - sh));
      } else {
        ua = alo;
        ub = blo;
      }
      if (kk >= k1) ua = ub = 0;
      j[x] = j0 + lane;
      const bool live = kk < k1 && j[x] >= 0 && j[x] < room;
      const bool from_a = (ua >> lane) & 1;
      const int ia = min(sp.a0 + run_a + __popc(ua & below), a_last);
      const int ib = min(sp.b0 + run_b + __popc(ub & below), b_last);
      if (live) v[x] = from_a ? t.av[ia] : t.bv[ib];
      else j[x] = -1;
      run_a += __popc(ua);
      run_b += __popc(ub);
    }
#pragma unroll
    for (int x = 0; x < U; ++x)
      if (j[x] >= 0) out[j[x]] = v[x];
  }
}

/* A union of pairs in keys-only tiles P (look-back warp; rounds and
 * aligned or unrolled stores as P says).  Blocks past mv.tiles only move
 * the values of the last mv.lag tiles. */
template <typename P, typename K, typename V, typename Comp>
__global__ void __launch_bounds__(P::NT + 32, P::MIN_BLOCKS)
    setop_split_kernel(setop_tiles<K, V> t, setop_moves mv, Comp comp) {
  constexpr int NT = P::NT, VT = P::VT, NV = P::NV, THREADS = NT + 32;
  constexpr int W = move_maps<NV>::W;
  constexpr int KEPT = kept_room<P>::value;
  constexpr bool ROUNDS = kept_rounds<P>::value;
  static_assert(KEPT == NV || ROUNDS, "every output is listed");
  typedef setop_smem<NT, VT, false, K, V, KEPT, false> smem_t;
  static_assert(W <= NT + 1, "a map fits where the walk's starts were");
  auto &sm = *shared_as<smem_t>();
  const int tid = threadIdx.x, tile = blockIdx.x, tiles = mv.tiles;
  if (tile >= tiles) {
    const int u = tile - mv.lag;
    wait_for_points(t.ready, u);
    if (tid < NT) move_values<NT, NV>(t, mv, u);
    return;
  }
  wait_for_points(t.ready, tile);
  const setop_place p = place_of_tile<NV, false>(t, tile);
  if (tid == 0) sm.count_slot = -1;
  setop_start_load<NT, false>(t, sm, p, tile, tiles, true);
  /* the values of the tile whose values the block t.prefetch later will
   * move, asked of L2 as the keys of that block's own tile are */
  const int later = tile + t.prefetch - mv.lag;
  if (t.prefetch > 0 && tid == NT - 2 && later >= 0 && later < tiles) {
    const setop_span n = span_of_tile<NV>(t.splits, later, t.na, t.nb);
    bulk_prefetch_l2(t.av + n.a0, n.na);
    bulk_prefetch_l2(t.bv + n.b0, n.nb);
  }
  __syncthreads();
  if (tid >= NT) {
    long long count;
    const long long base = tile_exclusive_prefix_ahead(
        t.status, t.gstatus, tile, &sm.count_slot, &count);
    if (tid == NT) {
      sm.base = base;
      if (tile == tiles - 1) publish_total(t.total, base + count, t.ticket);
    }
    __threadfence_block();
    named_arrive(2, THREADS);
    return;
  }
  mbarrier_wait(&sm.loaded, 0);
  const setop_walk w = walk_tile<NT, VT, K>(sm, p, t.duplicates, comp,
                                            [] { named_sync(1, NT); });
  const unsigned commit = set_op_commit(t.keeps, w.took_a, w.took_b);
  int tile_count;
  const int offset =
      compute_exclusive_sum<NT>(__popc(commit), sm.warp_totals, &tile_count);
  if (tid == 0) write_count_slot(&sm.count_slot, tile_count);
  /* the maps, where the walk's starts were (free since the scan's barrier) */
  unsigned *ma = (unsigned *)sm.start_a, *mb = (unsigned *)sm.start_b;
  for (int i = tid; i < W; i += NT) ma[i] = mb[i] = 0;
  int listed;
  if constexpr (ROUNDS) {
    list_kept_round(sm.kept, offset, commit, w, 0, KEPT);
    listed = min(tile_count, KEPT);
  } else {
    list_kept<VT, KEPT, NV>(sm.kept, offset, commit, w);
    listed = tile_count;
  }
  /* the took-A and took-B bits of the thread's kept slots, in order */
  unsigned fa = 0, fb = 0;
  if ((commit & (commit + 1)) == 0) {
    fa = w.took_a & commit;
    fb = w.took_b & commit;
  } else {
    int k = 0;
    for (unsigned c = commit; c; c &= c - 1, ++k) {
      const int i = __ffs(c) - 1;
      fa |= ((w.took_a >> i) & 1u) << k;
      fb |= ((w.took_b >> i) & 1u) << k;
    }
  }
  named_sync(1, NT); /* maps zeroed */
  if (commit && offset < NV) {
    const int wd = offset >> 5, s = offset & 31;
    const unsigned long long xa = (unsigned long long)fa << s,
                             xb = (unsigned long long)fb << s;
    if ((unsigned)xa) atomicOr(ma + wd, (unsigned)xa);
    if ((unsigned)xb) atomicOr(mb + wd, (unsigned)xb);
    if (xa >> 32) atomicOr(ma + wd + 1, (unsigned)(xa >> 32));
    if (xb >> 32) atomicOr(mb + wd + 1, (unsigned)(xb >> 32));
  }
  named_sync(1, NT);
  unsigned *g = mv.bits + (size_t)tile * 2 * W;
  for (int i = tid; i < W; i += NT) {
    g[i] = ma[i];
    g[W + i] = mb[i];
  }
  if (tid == 0) mv.count[tile] = tile_count;
  __threadfence();
  /* an earlier tile's values while the look-back warp waits */
  if (tile >= mv.lag) move_values<NT, NV>(t, mv, tile - mv.lag);
  named_sync(2, THREADS);
  const long long base = sm.base;
  if (tid == 0) {
    mv.base[tile] = base;
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(
        mv.ready[tile])
        .store(1ull, cuda::memory_order_release);
  }
  constexpr int SU = store_unroll<P>::value;
  constexpr bool AL = stores_aligned<P>::value;
  store_kept<NT, false, false, K, V, smem_t, SU, AL>(t, sm, p, base, listed);
  if constexpr (ROUNDS) {
    for (int lo = KEPT; lo < tile_count; lo += KEPT) {
      named_sync(1, NT);
      list_kept_round(sm.kept, offset, commit, w, lo, KEPT);
      named_sync(1, NT);
      store_kept<NT, false, false, K, V, smem_t, SU, AL>(
          t, sm, p, base + lo, min(tile_count - lo, KEPT));
    }
  }
}

/* setop_run for setop_split_kernel: sampled partitions only (calls of
 * more than kSetopSampleFromPoints points), lag_percent of a wave. */
template <typename P, typename K, typename V, typename Comp,
          int S = kSetopSampleStride>
mgpu_status setop_run_split(mgpu_context *ctx, const mgpu_setop_args *m,
                            size_t *count, Comp comp, setop_options opt,
                            int lag_percent) {
  if (m->op != MGPU_SET_UNION || !m->vals)
    return mgpu_set_error(ctx, MGPU_EINVAL, "setop split: union of pairs");
  constexpr int W = move_maps<P::NV>::W;
  cuda_state *st = cuda_of(ctx);
  cudaStream_t s = st->stream;
  const K *a = (const K *)m->a_keys, *b = (const K *)m->b_keys;
  const int na = (int)m->na, nb = (int)m->nb;
  const long long total = (long long)na + nb;
  const int tiles = tiles_of(total, P::NV);
  if (!(tiles + 1 > kSetopSampleFromPoints && total <= INT_MAX))
    return mgpu_set_error(ctx, MGPU_EINVAL, "setop split: sampled calls only");
  const int groups = (tiles + 31) / 32;
  const int status_words = tiles + groups + 1;
  const long long wave = (long long)st->sm_count * P::MIN_BLOCKS;
  const int lag = (int)max(1ll, min((long long)tiles, wave * lag_percent / 100));
  const int ca = samples_of(na, S), cb = samples_of(nb, S);
  /* scratch: look-back words and the ready flags (zeroed together by the
   * partition launch), points, samples, maps, bases, counts */
  const size_t words = (size_t)status_words + tiles;
  const size_t splits_at = sizeof(unsigned long long) * words;
  const size_t samples_at =
      (splits_at + sizeof(unsigned) * ((size_t)tiles + 1) + 15) & ~(size_t)15;
  const size_t bits_at =
      (samples_at + sizeof(K) * ((size_t)ca + cb) + 15) & ~(size_t)15;
  const size_t base_at = bits_at + sizeof(unsigned) * 2 * W * (size_t)tiles;
  const size_t count_at = base_at + sizeof(long long) * (size_t)tiles;
  cuda_scratch scratch;
  MGPU_TRY(scratch.take(ctx, count_at + sizeof(int) * (size_t)tiles));
  char *sc = scratch.as<char>();
  unsigned long long *status = (unsigned long long *)sc;
  unsigned *splits = (unsigned *)(sc + splits_at);
  K *pa = (K *)(sc + samples_at);
  gather_samples_kernel<S><<<grid_for((size_t)max(ca, cb), 256), 256, 0, s>>>(
      a, na, pa, b, nb, pa + ca);
  CUDA_LAUNCHED(ctx, "setop sample kernel");
  const int lanes = opt.partition_lanes
                        ? opt.partition_lanes
                        : setop_partition_lanes(tiles + 1, st->sm_count, false);
  auto partition = lanes == 32   ? setop_partition_kernel<S, 32, K, Comp>
                   : lanes == 16 ? setop_partition_kernel<S, 16, K, Comp>
                                 : setop_partition_kernel<S, 8, K, Comp>;
  CUDA_TRY(ctx, launch_early(opt.early_launch, partition,
                             grid_for((size_t)lanes * (tiles + 1), 128), 128, 0,
                             s, a, (const K *)pa, na, b, (const K *)(pa + ca),
                             nb, (int)P::NV, tiles + 1, m->duplicates != 0,
                             splits, status, (int)words, (unsigned *)nullptr, 0,
                             comp));
  CUDA_LAUNCHED(ctx, "setop partition kernel");
  const unsigned long long ticket = ++st->tickets;
  setop_tiles<K, V> t = {a, b, (const V *)m->a_vals, (const V *)m->b_vals,
                         na, nb, splits, status, status + tiles, st->word,
                         ticket, (K *)m->keys, (V *)m->vals,
                         (long long)m->capacity, set_op_keeps(m->op),
                         m->duplicates != 0,
                         (int)(wave * opt.prefetch_percent / 100), nullptr};
  setop_moves mv = {(unsigned *)(sc + bits_at), (long long *)(sc + base_at),
                    (int *)(sc + count_at), status + status_words, tiles, lag};
  auto kernel = setop_split_kernel<P, K, V, Comp>;
  const size_t smem =
      sizeof(setop_smem<P::NT, P::VT, false, K, V, kept_room<P>::value, false>);
  MGPU_TRY(allow_shared_memory(ctx, kernel, smem));
  CUDA_TRY(ctx, launch_early(opt.early_launch, kernel, tiles + lag,
                             P::NT + 32, smem, s, t, mv, comp));
  CUDA_LAUNCHED(ctx, "setop split kernel");
  unsigned long long n = 0;
  /* the values of the last tiles land after the total, in stream order */
  MGPU_TRY(wait_for_total(ctx, ticket, &n));
  *count = n < m->capacity ? (size_t)n : m->capacity;
  return MGPU_OK;
}

} // namespace mgpu

#endif
