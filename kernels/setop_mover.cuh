/*
 * setop_mover.cuh - an experiment (mgpu_tune mover; not used by the
 * library): the union of pairs in keys-only tiles, whose values a kernel
 * of its own moves alongside them, on a stream of higher priority.
 *
 * The seventeenth round (docs/TUNING.md) moved the values inside later
 * tiles, which lengthened every tile's life.  Here the keys tiles do what
 * the keys union does plus two bit maps in output order (the outputs that
 * took a key of A, and those that took a key of B: a matched pair took
 * both; its value is A's), and a few persistent mover blocks an SM,
 * resident beside five keys tiles, move each tile's values once its base
 * and maps are written.  Output j's value is A's value a0 + (A bits below
 * j) or B's b0 + (B bits below j).  The keys tiles never wait on the
 * movers, so a device that runs the two launches one after the other (the
 * mover second) still ends.
 */
#ifndef MGPU_SETOP_MOVER_CUH
#define MGPU_SETOP_MOVER_CUH

#include "setop.cuh"

namespace mgpu {

/* Per tile: two bit maps of W words (output order), the output count and
 * base, and a flag raised once the base and the maps are written. */
struct setop_moves {
  unsigned *bits;
  long long *base;
  int *count;
  unsigned long long *ready; /* zeroed by the partition launch */
  int tiles;
  int ahead; /* mover: tiles (of its own) ahead whose values it asks L2 for */
};

template <int NV> struct move_maps {
  static constexpr int W = (NV + 31) / 32 + 1; /* a spare word past the end */
};

/* The block moves the values of tile u: each warp a run of units of 32
 * outputs, aligned to the output's 128-byte lines, in chunks of 30 units
 * whose maps' words come one a lane; the A and B bits below the run by a
 * warp sum; each lane U gathers in flight. */
template <int NT, int NV, int U, typename K, typename V>
__device__ __forceinline__ void move_tile_values(const setop_tiles<K, V> &t,
                                                 const setop_moves &mv, int u) {
  constexpr int W = move_maps<NV>::W;
  constexpr int WARPS = NT / 32;
  const auto raised = [&] {
    return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(
               mv.ready[u])
               .load(cuda::memory_order_acquire) != 0;
  };
  if (threadIdx.x == 0)
    while (!raised()) __nanosleep(100);
  __syncthreads();
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
  for (int c0 = k0; c0 < k1; c0 += 30) {
    const int c1 = min(c0 + 30, k1);
    const int w0 = c0 - 1; /* the lane's word: w0 + lane */
    const int wl = w0 + lane;
    const unsigned la = wl >= 0 && wl < W ? wa[wl] : 0u;
    const unsigned lb = wl >= 0 && wl < W ? wb[wl] : 0u;
    for (int k = c0; k < c1; k += U) {
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
        if (kk >= c1) ua = ub = 0;
        j[x] = j0 + lane;
        const bool live = kk < c1 && j[x] >= 0 && j[x] < room;
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
}

/* Persistent movers: block b moves tiles b, b + gridDim.x, ... in order
 * (each waits only for a tile's own flag), and asks L2 for the values of
 * its tile mv.ahead of its own tiles later. */
template <int NT, int NV, int U, int MIN_BLOCKS, typename K, typename V>
__global__ void __launch_bounds__(NT, MIN_BLOCKS)
    setop_move_kernel(setop_tiles<K, V> t, setop_moves mv) {
  for (int u = blockIdx.x; u < mv.tiles; u += gridDim.x) {
    const int later = u + mv.ahead * (int)gridDim.x;
    if (mv.ahead > 0 && threadIdx.x == 0 && later < mv.tiles) {
      const setop_span n = span_of_tile<NV>(t.splits, later, t.na, t.nb);
      bulk_prefetch_l2(t.av + n.a0, n.na);
      bulk_prefetch_l2(t.bv + n.b0, n.nb);
    }
    move_tile_values<NT, NV, U>(t, mv, u);
  }
}

/* A union of pairs in keys-only tiles P (look-back warp; rounds and
 * aligned or unrolled stores as P says) that write the maps a mover reads;
 * OWN_PF: the tile asks L2 for its own values as it starts. */
template <typename P, bool OWN_PF, typename K, typename V, typename Comp>
__global__ void __launch_bounds__(P::NT + 32, P::MIN_BLOCKS)
    setop_maps_kernel(setop_tiles<K, V> t, setop_moves mv, Comp comp) {
  constexpr int NT = P::NT, VT = P::VT, NV = P::NV, THREADS = NT + 32;
  constexpr int W = move_maps<NV>::W;
  constexpr int KEPT = kept_room<P>::value;
  constexpr bool ROUNDS = kept_rounds<P>::value;
  static_assert(KEPT == NV || ROUNDS, "every output is listed");
  typedef setop_smem<NT, VT, false, K, V, KEPT, false> smem_t;
  static_assert(W <= NT + 1, "a map fits where the walk's starts were");
  auto &sm = *shared_as<smem_t>();
  const int tid = threadIdx.x, tile = blockIdx.x, tiles = mv.tiles;
  wait_for_points(t.ready, tile);
  const setop_place p = place_of_tile<NV, false>(t, tile);
  if (tid == 0) sm.count_slot = -1;
  setop_start_load<NT, false>(t, sm, p, tile, tiles, true);
  if (OWN_PF && tid == NT - 2) {
    bulk_prefetch_l2(t.av + p.span.a0, p.span.na);
    bulk_prefetch_l2(t.bv + p.span.b0, p.span.nb);
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

/* How the two launches go (mgpu_tune mover). */
struct setop_mover_options {
  cudaStream_t side;        /* the movers' stream (higher priority) */
  cudaEvent_t partitioned;  /* recorded after the partition launch */
  cudaEvent_t moved;        /* recorded after the movers */
  int movers_per_sm;        /* 0: no movers (the keys tiles alone) */
  int ahead;                /* setop_moves::ahead */
  bool after;               /* movers on the call's stream, after the tiles */
};

/* setop_run for the keys tiles and movers: sampled partitions only. */
template <typename P, int MNT, int U, int MMB, bool OWN_PF, typename K,
          typename V, typename Comp, int S = kSetopSampleStride>
mgpu_status setop_run_mover(mgpu_context *ctx, const mgpu_setop_args *m,
                            size_t *count, Comp comp, setop_options opt,
                            const setop_mover_options &mo) {
  if (m->op != MGPU_SET_UNION || !m->vals)
    return mgpu_set_error(ctx, MGPU_EINVAL, "setop mover: union of pairs");
  constexpr int W = move_maps<P::NV>::W;
  cuda_state *st = cuda_of(ctx);
  cudaStream_t s = st->stream;
  const K *a = (const K *)m->a_keys, *b = (const K *)m->b_keys;
  const int na = (int)m->na, nb = (int)m->nb;
  const long long total = (long long)na + nb;
  const int tiles = tiles_of(total, P::NV);
  if (!(tiles + 1 > kSetopSampleFromPoints && total <= INT_MAX))
    return mgpu_set_error(ctx, MGPU_EINVAL, "setop mover: sampled calls only");
  const int groups = (tiles + 31) / 32;
  const int status_words = tiles + groups + 1;
  const long long wave = (long long)st->sm_count * P::MIN_BLOCKS;
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
  const bool side = mo.movers_per_sm > 0 && !mo.after;
  if (side) CUDA_TRY(ctx, cudaEventRecord(mo.partitioned, s));
  const unsigned long long ticket = ++st->tickets;
  setop_tiles<K, V> t = {a, b, (const V *)m->a_vals, (const V *)m->b_vals,
                         na, nb, splits, status, status + tiles, st->word,
                         ticket, (K *)m->keys, (V *)m->vals,
                         (long long)m->capacity, set_op_keeps(m->op),
                         m->duplicates != 0,
                         (int)(wave * opt.prefetch_percent / 100), nullptr};
  setop_moves mv = {(unsigned *)(sc + bits_at), (long long *)(sc + base_at),
                    (int *)(sc + count_at), status + status_words, tiles,
                    mo.ahead};
  auto kernel = setop_maps_kernel<P, OWN_PF, K, V, Comp>;
  const size_t smem =
      sizeof(setop_smem<P::NT, P::VT, false, K, V, kept_room<P>::value, false>);
  MGPU_TRY(allow_shared_memory(ctx, kernel, smem));
  /* the keys tiles first: they never wait on the movers */
  CUDA_TRY(ctx, launch_early(opt.early_launch && !side, kernel, tiles,
                             P::NT + 32, smem, s, t, mv, comp));
  CUDA_LAUNCHED(ctx, "setop maps kernel");
  if (mo.movers_per_sm > 0) {
    const int grid =
        (int)min((long long)tiles, (long long)st->sm_count * mo.movers_per_sm);
    cudaStream_t ms = s;
    if (side) {
      CUDA_TRY(ctx, cudaStreamWaitEvent(mo.side, mo.partitioned, 0));
      ms = mo.side;
    }
    setop_move_kernel<MNT, P::NV, U, MMB, K, V><<<grid, MNT, 0, ms>>>(t, mv);
    CUDA_LAUNCHED(ctx, "setop move kernel");
    if (side) {
      CUDA_TRY(ctx, cudaEventRecord(mo.moved, mo.side));
      CUDA_TRY(ctx, cudaStreamWaitEvent(s, mo.moved, 0));
    }
  }
  unsigned long long n = 0;
  MGPU_TRY(wait_for_total(ctx, ticket, &n));
  *count = n < m->capacity ? (size_t)n : m->capacity;
  return MGPU_OK;
}

} // namespace mgpu

#endif
