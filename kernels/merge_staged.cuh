/*
 * merge_staged.cuh - mgpu_merge with the set operations' loading: each
 * tile's share of A and B (and their values) comes into shared memory by
 * bulk copy (device/bulk_copy.cuh) instead of the threads' loads, the last
 * thread asks L2 for the inputs of a tile a fraction of a wave ahead, the
 * partition points are found by groups of lanes (warp_merge_path), and
 * partition and tiles start early (programmatic dependent launch).
 *
 * Why: merge_agent's tile spends its threads on the loads, and a merge of
 * 2^26 i32 keys ran at 74% of a copy's bandwidth on the H200, level with
 * CUB; the set-operation tiles got 16% from bulk copies alone
 * (docs/TUNING.md, fourth round).
 */
#ifndef MGPU_MERGE_STAGED_CUH
#define MGPU_MERGE_STAGED_CUH

#include <atomic>

#include "device/bulk_copy.cuh"
#include "device/grid_dependency.cuh"
#include "device/sampled_merge_path.cuh"
#include "device/serial_merge.cuh"
#include "device/warp_merge_path.cuh"
#include "merge.cuh"

namespace mgpu {

/* A staged tile in shared memory: A and B each placed at their global
 * address's phase modulo 16 bytes (so that their aligned middles go by
 * bulk copy), B after A with at most one 16-byte unit between, one slot
 * more for serial_merge's look-ahead; the values alike.  The merged tile
 * goes back out through keys[0, NV) and vals[0, NV). */
template <int NV, bool HAS_V, typename K, typename V> struct merge_staged_smem {
  static constexpr int E = 16 / sizeof(K), EV = 16 / sizeof(V);
  unsigned long long loaded;  /* the keys' bulk copies */
  unsigned long long vloaded; /* the values' */
  alignas(16) K keys[NV + 2 * E];
  alignas(16) V vals[HAS_V ? NV + 2 * EV : 1];
};

struct merge_staged_args {
  int tiles;
  int prefetch; /* tiles ahead whose inputs a tile asks L2 for; 0: none */
  bool vector_stores; /* out (and outv) 16-byte aligned: stores of 16 bytes */
};

/* Shared memory to global, 16 bytes a store: the tile's outputs start at a
 * multiple of NV elements, so with NT * E dividing NV and `dst` aligned
 * each warp's store covers whole 128-byte lines of keys. */
template <int NT, typename T>
__device__ __forceinline__ void shared_to_global_16(const T *shared, int count,
                                                    T *__restrict__ dst) {
  constexpr int E = 16 / sizeof(T);
  const int units = count / E;
  const int4 *s4 = reinterpret_cast<const int4 *>(shared);
  int4 *d4 = reinterpret_cast<int4 *>(dst);
  for (int u = threadIdx.x; u < units; u += NT) d4[u] = s4[u];
  const int i = units * E + (int)threadIdx.x;
  if (i < count) dst[i] = shared[i];
}

template <typename P, bool HAS_V, typename K, typename V, typename Comp>
__global__ void __launch_bounds__(P::NT)
    merge_staged_kernel(merge_tiles<P::NV, HAS_V, K, V> t, merge_staged_args g,
                        Comp comp) {
  constexpr int NT = P::NT, VT = P::VT, NV = P::NV;
  typedef merge_staged_smem<NV, HAS_V, K, V> smem_t;
  constexpr int E = smem_t::E, EV = smem_t::EV;
  auto &sm = *shared_as<smem_t>();
  const int tid = threadIdx.x, tile = blockIdx.x;
  /* the splits come from the partition launch */
  wait_for_prior_grid();
  const tile_io<K, V> io = t.describe(tile);
  const int na = io.na, nb = io.nb, total = na + nb;
  const int sa = stage_offset(io.a);
  const int sb = sa + na + ((stage_offset(io.b) - (sa + na)) & (E - 1));
  const bulk_split<K> ca = split_for_bulk(io.a, na);
  const bulk_split<K> cb = split_for_bulk(io.b, nb);
  int va = 0, vb = 0;
  bulk_split<V> cva = {}, cvb = {};
  if (HAS_V) {
    va = stage_offset(io.av);
    vb = va + na + ((stage_offset(io.bv) - (va + na)) & (EV - 1));
    cva = split_for_bulk(io.av, na);
    cvb = split_for_bulk(io.bv, nb);
  }
  if (tid == 0) {
    /* the init in the branch that arrives (racecheck: see setop_agent) */
    mbarrier_init(&sm.loaded, 1);
    if (HAS_V) mbarrier_init(&sm.vloaded, 1);
    mbarrier_init_fence();
    mbarrier_arrive_expect_tx(&sm.loaded, ca.bytes + cb.bytes);
    bulk_copy_middle(sm.keys + sa, io.a, ca, &sm.loaded);
    bulk_copy_middle(sm.keys + sb, io.b, cb, &sm.loaded);
    if (HAS_V) {
      mbarrier_arrive_expect_tx(&sm.vloaded, cva.bytes + cvb.bytes);
      bulk_copy_middle(sm.vals + va, io.av, cva, &sm.vloaded);
      bulk_copy_middle(sm.vals + vb, io.bv, cvb, &sm.vloaded);
    }
  }
  if (tid < 32) copy_ragged_ends(sm.keys + sa, io.a, na, ca, tid);
  else if (tid < 64) copy_ragged_ends(sm.keys + sb, io.b, nb, cb, tid - 32);
  else if (HAS_V && tid < 96)
    copy_ragged_ends(sm.vals + va, io.av, na, cva, tid - 64);
  else if (HAS_V && tid < 128)
    copy_ragged_ends(sm.vals + vb, io.bv, nb, cvb, tid - 96);
  const int ahead = tile + g.prefetch;
  if (g.prefetch > 0 && tid == NT - 1 && ahead < g.tiles) {
    const tile_io<K, V> n = t.describe(ahead);
    bulk_prefetch_l2(n.a, n.na);
    bulk_prefetch_l2(n.b, n.nb);
    if (HAS_V) {
      bulk_prefetch_l2(n.av, n.na);
      bulk_prefetch_l2(n.bv, n.nb);
    }
  }
  __syncthreads(); /* the ragged ends, and the barriers' init */
  mbarrier_wait(&sm.loaded, 0);

  const int diag = min(VT * tid, total);
  const int from_a = merge_path(sm.keys + sa, na, sm.keys + sb, nb, diag, comp);
  K keys[VT];
  int src[VT];
  serial_merge<VT>(sm.keys, sa + from_a, sa + na, sb + diag - from_a, sb + nb,
                   keys, src, comp);
  V vals[VT];
  if constexpr (HAS_V) {
    mbarrier_wait(&sm.vloaded, 0);
#pragma unroll
    for (int i = 0; i < VT; ++i)
      if (VT * tid + i < total)
        vals[i] = sm.vals[src[i] < sb ? va + (src[i] - sa) : vb + (src[i] - sb)];
  }
  __syncthreads(); /* every thread has read its keys (and values) */
  thread_to_shared<VT>(keys, total, sm.keys);
  if constexpr (HAS_V) thread_to_shared<VT>(vals, total, sm.vals);
  __syncthreads();
  if (g.vector_stores) {
    shared_to_global_16<NT>(sm.keys, total, io.out);
    if (HAS_V) shared_to_global_16<NT>(sm.vals, total, io.outv);
  } else {
    shared_to_global<NT, VT>(sm.keys, total, io.out);
    if (HAS_V) shared_to_global<NT, VT>(sm.vals, total, io.outv);
  }
}

/* Threads of a partition block of the staged merge. */
constexpr int kMergePartitionThreads = 256;

/* splits[i] = how many of the first i * nv outputs come from a, found by a
 * group of LANES lanes per point (warp_merge_path), on the samples first
 * when sa is given.  Launched early after the sample launch, it waits for
 * that launch before its search. */
template <int S, int LANES, typename K, typename Comp>
__global__ void __launch_bounds__(kMergePartitionThreads)
    merge_points_kernel(const K *a, const K *sa, int na, const K *b,
                        const K *sb, int nb, int nv, int count, int *splits,
                        Comp comp) {
  allow_dependent_grids(); /* the tiles wait for this launch's end anyway */
  wait_for_prior_grid();
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  /* whole warps leave or stay: the search ballots across the warp */
  if ((gid >> 5) * (32 / LANES) >= count) return;
  const int i_own = gid / LANES, l = threadIdx.x & (LANES - 1);
  const bool live = i_own < count;
  const int i = live ? i_own : count - 1;
  const long long total = (long long)na + nb;
  const long long d = (long long)i * nv;
  const int diag = (int)(d < total ? d : total);
  const int p = warp_merge_path<S, LANES>(a, sa, na, b, sb, nb, diag, comp);
  if (l == 0 && live) splits[i] = p;
}

/* How a staged merge is launched; mgpu_tune varies these. */
struct merge_staged_options {
  int prefetch_percent; /* how far ahead tiles prefetch, % of a wave */
  bool early;           /* partition and tiles launched early (PDL) */
  int lanes;            /* lanes a partition point: 8, 16 or 32; 0: by size */
  int sample_stride;    /* 256 or 512 */
};

template <typename P, bool HAS_V, typename K, typename V, typename Comp>
mgpu_status merge_staged_resident(mgpu_context *ctx, size_t smem,
                                  long long *resident) {
  static std::atomic<int> per_sm_of[16];
  auto kernel = merge_staged_kernel<P, HAS_V, K, V, Comp>;
  const cuda_state *st = cuda_of(ctx);
  const int dev = st->device;
  int per_sm = dev < 16 ? per_sm_of[dev].load() : 0;
  if (per_sm == 0) {
    MGPU_TRY(allow_shared_memory(ctx, kernel, smem));
    CUDA_TRY(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                      &per_sm, kernel, P::NT, smem));
    if (per_sm < 1) per_sm = 1;
    if (dev < 16) per_sm_of[dev].store(per_sm);
  }
  *resident = (long long)per_sm * st->sm_count;
  return MGPU_OK;
}

template <int S, typename K, typename Comp>
mgpu_status merge_staged_partition(mgpu_context *ctx, const K *a, int na,
                                   const K *b, int nb, int nv, int points,
                                   int *splits, cuda_scratch &samples,
                                   const merge_staged_options &o, Comp comp) {
  cudaStream_t s = cuda_of(ctx)->stream;
  const long long total = (long long)na + nb;
  K *sa = nullptr, *sb = nullptr;
  const bool sampled = total >= kMergeSampleFrom;
  if (sampled) {
    const int ca = samples_of(na, S), cb = samples_of(nb, S);
    MGPU_TRY(samples.take(ctx, sizeof(K) * ((size_t)ca + cb)));
    sa = samples.as<K>();
    sb = sa + ca;
    gather_samples_kernel<S><<<grid_for((size_t)max(ca, cb), 256), 256, 0, s>>>(
        a, na, sa, b, nb, sb);
    CUDA_LAUNCHED(ctx, "merge sample kernel");
  }
  int lanes = o.lanes;
  if (lanes == 0) {
    const long long warps = 64LL * cuda_of(ctx)->sm_count;
    lanes = points <= warps ? 32 : points <= 2 * warps ? 16 : 8;
  }
  auto kernel = lanes == 32   ? merge_points_kernel<S, 32, K, Comp>
                : lanes == 16 ? merge_points_kernel<S, 16, K, Comp>
                              : merge_points_kernel<S, 8, K, Comp>;
  const unsigned blocks = grid_for((size_t)points * lanes, kMergePartitionThreads);
  CUDA_TRY(ctx, launch_early(o.early && sampled, kernel, blocks,
                             kMergePartitionThreads, 0, s, a, (const K *)sa, na,
                             b, (const K *)sb, nb, nv, points, splits, comp));
  CUDA_LAUNCHED(ctx, "merge partition kernel");
  return MGPU_OK;
}

template <typename P, bool HAS_V, typename K, typename V, typename Comp>
mgpu_status merge_staged_run(mgpu_context *ctx, const K *a, const V *av, int na,
                             const K *b, const V *bv, int nb, K *out, V *outv,
                             const merge_staged_options &o, Comp comp) {
  cudaStream_t s = cuda_of(ctx)->stream;
  const long long total = (long long)na + nb;
  const int tiles = tiles_of(total, P::NV);
  cuda_scratch splits, samples;
  if (tiles > 1) {
    MGPU_TRY(splits.take(ctx, sizeof(int) * ((size_t)tiles + 1)));
    const mgpu_status st =
        o.sample_stride == 512
            ? merge_staged_partition<512>(ctx, a, na, b, nb, P::NV, tiles + 1,
                                          splits.as<int>(), samples, o, comp)
            : merge_staged_partition<256>(ctx, a, na, b, nb, P::NV, tiles + 1,
                                          splits.as<int>(), samples, o, comp);
    MGPU_TRY(st);
  }
  typedef merge_staged_smem<P::NV, HAS_V, K, V> smem_t;
  const size_t smem = sizeof(smem_t);
  long long resident = 0;
  MGPU_TRY((merge_staged_resident<P, HAS_V, K, V, Comp>(ctx, smem, &resident)));
  merge_tiles<P::NV, HAS_V, K, V> t = {a, b, av, bv, na, nb, splits.as<int>(),
                                       out, outv};
  merge_staged_args g;
  g.tiles = tiles;
  g.prefetch = (int)(resident * o.prefetch_percent / 100);
  g.vector_stores = ((uintptr_t)out & 15) == 0 &&
                    (!HAS_V || ((uintptr_t)outv & 15) == 0) &&
                    P::NV % (16 / sizeof(K)) == 0 &&
                    (!HAS_V || P::NV % (16 / sizeof(V)) == 0);
  auto kernel = merge_staged_kernel<P, HAS_V, K, V, Comp>;
  MGPU_TRY(allow_shared_memory(ctx, kernel, smem));
  CUDA_TRY(ctx, launch_early(o.early && tiles > 1, kernel, tiles, P::NT, smem,
                             s, t, g, comp));
  CUDA_LAUNCHED(ctx, "merge kernel");
  return MGPU_OK;
}

} // namespace mgpu

#endif
