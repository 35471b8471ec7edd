/*
 * merge.cuh - mgpu_merge on the GPU, the two-phase way: a partition launch
 * finds, for every tile boundary, where the cross-diagonal meets the Merge
 * Path, a group of lanes a point (warp_merge_path); then one block per tile
 * merges exactly NV outputs (agent/merge_staged.cuh).  Large merges first
 * gather every S-th key of each input, so that the partition's search
 * starts on a compact array (sampled_merge_path).  The partition and the
 * tiles are launched early (programmatic dependent launch): each starts
 * while the launch ahead of it drains, and waits for it before it reads
 * what that launch writes.
 */
#ifndef MGPU_MERGE_CUH
#define MGPU_MERGE_CUH

#include "block/grid_dependency.cuh"
#include "block/sampled_merge_path.cuh"
#include "block/warp_merge_path.cuh"
#include "dispatch.cuh"
#include "agent/merge_staged.cuh"
#include "policy/merge.cuh"

namespace mgpu {

/* The tiles of one merge: tile t writes outputs [t * NV, (t + 1) * NV). */
template <int NV, bool HAS_V, typename K, typename V> struct merge_tiles {
  const K *a, *b;
  const V *av, *bv;
  int na, nb;
  const int *splits; /* nullptr: the whole merge is one tile */
  K *out;
  V *outv;

  __device__ __forceinline__ tile_io<K, V> describe(int t) const {
    const int a0 = splits ? splits[t] : 0;
    const int a1 = splits ? splits[t + 1] : na;
    const int d0 = t * NV;
    /* not min(d0 + NV, ..): for a merge within NV of INT_MAX outputs
     * d0 + NV wraps on the last tile */
    const int d1 = d0 + min(NV, na + nb - d0);
    const tile_span sp = make_tile_span(d0, d1, a0, a1);
    return tile_io_at<HAS_V>(a, av, sp.a0, sp.na, b, bv, sp.b0, sp.nb, out,
                             outv, d0, (K *)nullptr);
  }
};

template <typename P, bool HAS_V, typename K, typename V, typename Comp>
__global__ void __launch_bounds__(P::NT)
    merge_kernel(merge_tiles<P::NV, HAS_V, K, V> tiles, merge_staged_args g,
                 Comp comp) {
  auto &sm = *shared_as<merge_staged_smem<P::NV, HAS_V, K, V>>();
  /* the splits come from the partition launch */
  wait_for_prior_grid();
  merge_staged_tile<P::NT, P::VT, 0, HAS_V, K, V>(tiles, (int)blockIdx.x, g,
                                                  sm, comp);
}

/* Inputs at least this long search samples first: below it the plain
 * search's reads mostly hit L2 and the extra launch does not pay. */
constexpr long long kMergeSampleFrom = 1 << 22;

/* Threads of a partition block. */
constexpr int kMergePartitionThreads = 256;

/* splits[i] = how many of the first i * nv outputs come from a, found by a
 * group of LANES lanes a point (warp_merge_path), on the samples first when
 * sa is given.  Launched early after the sample launch, it waits for that
 * launch before its search; the tiles may start as soon as it has begun,
 * since they wait for its end. */
template <int S, int LANES, typename K, typename Comp>
__global__ void __launch_bounds__(kMergePartitionThreads)
    merge_partition_kernel(const K *a, const K *sa, int na, const K *b,
                           const K *sb, int nb, int nv, int count, int *splits,
                           Comp comp) {
  allow_dependent_grids();
  wait_for_prior_grid();
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  /* whole warps leave or stay: the search ballots across the warp, so a
   * group past the last point searches for the last one again and keeps
   * quiet */
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

template <typename P, typename K, typename Comp>
mgpu_status merge_partition(mgpu_context *ctx, const K *a, int na, const K *b,
                            int nb, int nv, int points, int *splits,
                            cuda_scratch &samples, Comp comp) {
  constexpr int S = P::sample_stride;
  cudaStream_t s = cuda_of(ctx)->stream;
  const long long total = (long long)na + nb;
  K *sa = nullptr, *sb = nullptr;
  const bool sampled = total >= kMergeSampleFrom || ctx->paths.sampled;
  if (sampled) {
    const int ca = samples_of(na, S), cb = samples_of(nb, S);
    MGPU_TRY(samples.take(ctx, sizeof(K) * ((size_t)ca + cb)));
    sa = samples.as<K>();
    sb = sa + ca;
    gather_samples_kernel<S><<<grid_for((size_t)max(ca, cb), 256), 256, 0, s>>>(
        a, na, sa, b, nb, sb);
    CUDA_LAUNCHED(ctx, "merge sample kernel");
  }
  /* With samples the policy's lanes a point; without, a warp a point, so
   * that its search on the inputs takes the fewest rounds (an unsampled
   * merge, under 2^22 keys, has at most ~3,000 points: one wave of warps
   * on a GPU of 47 SMs or more). */
  const int lanes = sampled ? P::sampled_lanes : 32;
  auto kernel = sampled ? merge_partition_kernel<S, P::sampled_lanes, K, Comp>
                        : merge_partition_kernel<S, 32, K, Comp>;
  const unsigned blocks =
      grid_for((size_t)points * lanes, kMergePartitionThreads);
  /* early only after the sample launch: launched early behind the caller's
   * own kernels, it could read inputs they are still writing */
  CUDA_TRY(ctx, launch_early(ctx, sampled, kernel, blocks,
                             kMergePartitionThreads, 0, s, a, (const K *)sa,
                             na, b, (const K *)sb, nb, nv, points, splits,
                             comp));
  CUDA_LAUNCHED(ctx, "merge partition kernel");
  return MGPU_OK;
}

template <typename P, bool HAS_V, typename K, typename V, typename Comp>
mgpu_status merge_run(mgpu_context *ctx, const K *a, const V *av, int na,
                      const K *b, const V *bv, int nb, K *out, V *outv,
                      Comp comp) {
  cudaStream_t s = cuda_of(ctx)->stream;
  const long long total = (long long)na + nb;
  const int tiles = tiles_of(total, P::NV);
  cuda_scratch splits, samples;
  if (tiles > 1) {
    MGPU_TRY(splits.take(ctx, sizeof(int) * ((size_t)tiles + 1)));
    MGPU_TRY(merge_partition<P>(ctx, a, na, b, nb, P::NV, tiles + 1,
                                splits.as<int>(), samples, comp));
  }
  const size_t smem = sizeof(merge_staged_smem<P::NV, HAS_V, K, V>);
  long long wave = 0; /* tiles resident at once: the prefetch's unit */
  MGPU_TRY((resident_blocks<merge_kernel<P, HAS_V, K, V, Comp>>(ctx, P::NT, smem,
                                                                 &wave)));
  merge_tiles<P::NV, HAS_V, K, V> t = {a, b, av, bv, na, nb, splits.as<int>(),
                                       out, outv};
  merge_staged_args g;
  g.tiles = tiles;
  g.prefetch = (int)(wave * P::prefetch_percent / 100);
  g.vector_stores = staged_stores_aligned<P::NV, HAS_V>(out, outv);
  auto kernel = merge_kernel<P, HAS_V, K, V, Comp>;
  MGPU_TRY(allow_shared_memory(ctx, kernel, smem));
  /* early only behind this call's partition (see merge_partition) */
  CUDA_TRY(ctx, launch_early(ctx, tiles > 1, kernel, tiles, P::NT, smem,
                             s, t, g, comp));
  CUDA_LAUNCHED(ctx, "merge kernel");
  return MGPU_OK;
}

template <typename K, int VB> struct merge_launch {
  template <typename Comp>
  static mgpu_status run(mgpu_context *ctx, const mgpu_merge_args *m, Comp comp) {
    typedef value_t<VB> V;
    typedef merge_policy<sizeof(K), VB> P;
    return merge_run<P, VB != 0>(ctx, (const K *)m->a_keys, (const V *)m->a_vals,
                                 (int)m->na, (const K *)m->b_keys,
                                 (const V *)m->b_vals, (int)m->nb, (K *)m->keys,
                                 (V *)m->vals, comp);
  }
};

/* Key dtype fixed by the translation unit; value width and order here. */
template <typename K>
mgpu_status merge_entry(mgpu_context *ctx, const mgpu_merge_args *m) {
  return dispatch_keyed<K, merge_launch>(ctx, m->value_size, m->order, m);
}

} // namespace mgpu

#endif
