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

/* The tiles of one merge: tile t writes outputs [t * NV, (t + 1) * NV).
 * Off holds global positions: int32_t while na + nb fits it, int64_t past
 * (merge_launch). */
template <int NV, bool HAS_V, typename K, typename V, typename Off>
struct merge_tiles {
  const K *a, *b;
  const V *av, *bv;
  Off na, nb;
  const Off *splits; /* nullptr: the whole merge is one tile */
  K *out;
  V *outv;

  __device__ __forceinline__ tile_io<K, V> describe(int t) const {
    const Off a0 = splits ? splits[t] : 0;
    const Off a1 = splits ? splits[t + 1] : na;
    const Off d0 = (Off)t * NV;
    /* not min(d0 + NV, ..): for a merge within NV of Off's largest outputs
     * d0 + NV wraps on the last tile */
    const Off d1 = d0 + min((Off)NV, na + nb - d0);
    const tile_span_of<Off> sp = make_tile_span(d0, d1, a0, a1);
    return tile_io_at<HAS_V>(a, av, sp.a0, sp.na, b, bv, sp.b0, sp.nb, out,
                             outv, d0, (K *)nullptr);
  }
};

template <typename P, bool HAS_V, typename K, typename V, typename Off,
          typename Comp>
__global__ void __launch_bounds__(P::NT)
    merge_kernel(merge_tiles<P::NV, HAS_V, K, V, Off> tiles,
                 merge_staged_args g, Comp comp) {
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
template <int S, int LANES, typename K, typename Off, typename Comp>
__global__ void __launch_bounds__(kMergePartitionThreads)
    merge_partition_kernel(const K *a, const K *sa, Off na, const K *b,
                           const K *sb, Off nb, int nv, int count, Off *splits,
                           Comp comp) {
  allow_dependent_grids();
  wait_for_prior_grid();
  /* LANES threads a point: past 2^31 threads for 2^28 points and more */
  const Off gid = (Off)blockIdx.x * blockDim.x + threadIdx.x;
  /* whole warps leave or stay: the search ballots across the warp, so a
   * group past the last point searches for the last one again and keeps
   * quiet */
  if ((gid >> 5) * (32 / LANES) >= count) return;
  const Off i_own = gid / LANES;
  const int l = threadIdx.x & (LANES - 1);
  const bool live = i_own < count;
  const Off i = live ? i_own : count - 1;
  const long long total = (long long)na + nb;
  const long long d = (long long)i * nv;
  const Off diag = (Off)(d < total ? d : total);
  const Off p = warp_merge_path<S, LANES>(a, sa, na, b, sb, nb, diag, comp);
  if (l == 0 && live) splits[i] = p;
}

template <typename P, typename K, typename Off, typename Comp>
mgpu_status merge_partition(mgpu_context *ctx, const K *a, Off na, const K *b,
                            Off nb, int nv, int points, Off *splits,
                            cuda_scratch &samples, Comp comp) {
  constexpr int S = P::sample_stride;
  cudaStream_t s = cuda_of(ctx)->stream;
  const long long total = (long long)na + nb;
  K *sa = nullptr, *sb = nullptr;
  const bool sampled = total >= kMergeSampleFrom || ctx->paths.sampled;
  if (sampled) {
    const Off ca = samples_of<Off>(na, S), cb = samples_of<Off>(nb, S);
    MGPU_TRY(samples.take(ctx, sizeof(K) * ((size_t)ca + (size_t)cb)));
    sa = samples.as<K>();
    sb = sa + ca;
    gather_samples_kernel<S><<<grid_for((size_t)(ca > cb ? ca : cb), 256), 256,
                               0, s>>>(a, na, sa, b, nb, sb);
    CUDA_LAUNCHED(ctx, "merge sample kernel");
  }
  /* With samples the policy's lanes a point; without, a warp a point, so
   * that its search on the inputs takes the fewest rounds (an unsampled
   * merge, under 2^22 keys, has at most ~3,000 points: one wave of warps
   * on a GPU of 47 SMs or more). */
  const int lanes = sampled ? P::sampled_lanes : 32;
  auto kernel = sampled
                    ? merge_partition_kernel<S, P::sampled_lanes, K, Off, Comp>
                    : merge_partition_kernel<S, 32, K, Off, Comp>;
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

template <typename P, bool HAS_V, typename Off, typename K, typename V,
          typename Comp>
mgpu_status merge_run(mgpu_context *ctx, const K *a, const V *av, Off na,
                      const K *b, const V *bv, Off nb, K *out, V *outv,
                      Comp comp) {
  cudaStream_t s = cuda_of(ctx)->stream;
  const long long total = (long long)na + nb;
  int tiles = 0;
  MGPU_TRY(checked_tiles(ctx, total, P::NV, &tiles, "a merge"));
  cuda_scratch splits, samples;
  if (tiles > 1) {
    MGPU_TRY(splits.take(ctx, sizeof(Off) * ((size_t)tiles + 1)));
    MGPU_TRY(merge_partition<P>(ctx, a, na, b, nb, P::NV, tiles + 1,
                                splits.as<Off>(), samples, comp));
  }
  const size_t smem = sizeof(merge_staged_smem<P::NV, HAS_V, K, V>);
  long long wave = 0; /* tiles resident at once: the prefetch's unit */
  MGPU_TRY((resident_blocks<merge_kernel<P, HAS_V, K, V, Off, Comp>>(
      ctx, P::NT, smem, &wave)));
  merge_tiles<P::NV, HAS_V, K, V, Off> t = {a,  b,  av, bv, na, nb,
                                            splits.as<Off>(), out, outv};
  merge_staged_args g;
  g.tiles = tiles;
  g.prefetch = (int)(wave * P::prefetch_percent / 100);
  g.vector_stores = staged_stores_aligned<P::NV, HAS_V>(out, outv);
  auto kernel = merge_kernel<P, HAS_V, K, V, Off, Comp>;
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
    /* the largest global position is the output's end */
    return dispatch_offset(m->na + m->nb, [&](auto off) {
      typedef decltype(off) Off;
      return merge_run<P, VB != 0, Off>(
          ctx, (const K *)m->a_keys, (const V *)m->a_vals, (Off)m->na,
          (const K *)m->b_keys, (const V *)m->b_vals, (Off)m->nb, (K *)m->keys,
          (V *)m->vals, comp);
    });
  }
};

/* Key dtype fixed by the translation unit; value width and order here. */
template <typename K>
mgpu_status merge_entry(mgpu_context *ctx, const mgpu_merge_args *m) {
  return dispatch_keyed<K, merge_launch>(ctx, m->value_size, m->order, m);
}

} // namespace mgpu

#endif
