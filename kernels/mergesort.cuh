/*
 * mergesort.cuh - mgpu_mergesort on the GPU: a blocksort launch sorts
 * tiles of NV keys, then global passes merge pairs of sorted runs, each a
 * partition launch and a merge launch (agent/merge_staged.cuh), ping-ponging
 * between the keys and one temporary buffer.  The blocksort writes into
 * whichever buffer makes the last pass land in the caller's array.
 *
 * Every launch also writes every S-th key of its output to a compact
 * sample array, from which the next pass's partition starts its searches
 * (sampled_merge_path): most of their steps then hit L2.
 */
#ifndef MGPU_MERGESORT_CUH
#define MGPU_MERGESORT_CUH

#include "agent/sort_pass.cuh"
#include "dispatch.cuh"
#include "policy/mergesort.cuh"

namespace mgpu {

/* Off holds global positions: int32_t while n fits it, int64_t past
 * (mergesort_launch). */
template <typename P, bool HAS_V, typename Off, typename K, typename V,
          typename Comp>
mgpu_status mergesort_run(mgpu_context *ctx, K *keys, V *vals, Off n,
                          Comp comp) {
  typedef typename P::blocksort PB;
  typedef typename P::pass PM;
  constexpr int S = kSortSampleStride;
  static_assert(PB::NV % PM::NV == 0,
                "a pass tile must not straddle two merges");
  static_assert(PB::NV % S == 0 && PM::NV % S == 0 && PB::VT <= S &&
                    PM::VT <= S,
                "runs must start on samples, one sample per thread");
  cudaStream_t s = cuda_of(ctx)->stream;
  int passes = 0;
  for (long long run = PB::NV; run < n; run *= 2) ++passes;
  /* pass tiles are at most blocksort tiles (above): the blocksort's grid
   * fits where the passes' does */
  int merge_tiles = 0;
  MGPU_TRY(checked_tiles(ctx, n, PM::NV, &merge_tiles, "a merge sort"));
  const Off nsamples = samples_of<Off>(n, S);

  /* Every temporary is taken before the first launch: if memory runs out,
   * the keys are untouched and the call can be retried. */
  cuda_scratch tmp_keys, tmp_vals, splits, samples;
  MGPU_TRY(samples.take(ctx, sizeof(K) * 2 * (size_t)nsamples));
  if (passes) {
    MGPU_TRY(tmp_keys.take(ctx, sizeof(K) * (size_t)n));
    if (HAS_V) MGPU_TRY(tmp_vals.take(ctx, sizeof(V) * (size_t)n));
    MGPU_TRY(splits.take(ctx, sizeof(Off) * ((size_t)merge_tiles + 1)));
  }
  const bool odd = passes & 1;
  K *sk = odd ? tmp_keys.as<K>() : keys, *dk = odd ? keys : tmp_keys.as<K>();
  V *sv = odd ? tmp_vals.as<V>() : vals, *dv = odd ? vals : tmp_vals.as<V>();
  K *ss = samples.as<K>(), *ds = ss + nsamples; /* samples of sk, of dk */
  MGPU_TRY((blocksort_run<PB, HAS_V>(ctx, keys, vals, n, sk, sv, ss, comp)));
  if (!passes) return MGPU_OK;

  auto kernel = mergesort_pass_kernel<PM, HAS_V, K, V, Off, Comp>;
  const size_t smem = sizeof(merge_staged_smem<PM::NV, HAS_V, K, V>);
  MGPU_TRY(allow_shared_memory(ctx, kernel, smem));
  long long wave = 0; /* tiles resident at once: the prefetch's unit */
  MGPU_TRY((resident_blocks<mergesort_pass_kernel<PM, HAS_V, K, V, Off, Comp>>(
      ctx, PM::NT, smem, &wave)));
  merge_staged_args g;
  g.tiles = merge_tiles;
  g.prefetch = (int)(wave * P::prefetch_percent / 100);
  /* The passes' launches start early (programmatic dependent launch: each
   * waits for the launch ahead before it reads that launch's output) when
   * a pass is at most one wave of tiles, where the gaps between launches
   * are much of a pass; in longer passes the next launch's early blocks
   * only cost the pass's tail (docs/TUNING.md, Mergesort). */
  const bool pdl = merge_tiles <= wave;
  for (long long run = PB::NV; run < n; run *= 2) {
    /* early (pdl): the first partition follows the blocksort, this call's
     * own launch */
    CUDA_TRY(ctx, launch_early(ctx, pdl,
                               mergesort_partition_kernel<K, Off, Comp>,
                               grid_for((size_t)merge_tiles + 1, 128), 128, 0,
                               s, (const K *)sk, (const K *)ss, n, run,
                               (int)PM::NV, merge_tiles + 1, splits.as<Off>(),
                               comp));
    CUDA_LAUNCHED(ctx, "mergesort partition kernel");
    pass_tiles<PM::NV, HAS_V, K, V, Off> t = {sk, sv, n, run, splits.as<Off>(),
                                              dk, dv, ds};
    /* the scratch buffers and the caller's arrays alike */
    g.vector_stores = staged_stores_aligned<PM::NV, HAS_V>(dk, dv);
    CUDA_TRY(ctx, launch_early(ctx, pdl, kernel, merge_tiles, PM::NT, smem, s, t,
                               g, comp));
    CUDA_LAUNCHED(ctx, "mergesort pass kernel");
    K *tk = sk; sk = dk; dk = tk;
    V *tv = sv; sv = dv; dv = tv;
    K *ts = ss; ss = ds; ds = ts;
  }
  return MGPU_OK;
}

template <typename K, int VB> struct mergesort_launch {
  template <typename Comp>
  static mgpu_status run(mgpu_context *ctx, const mgpu_sort_args *a, Comp comp) {
    typedef mergesort_policy<sizeof(K), VB> P;
    return dispatch_offset(a->n, [&](auto off) {
      typedef decltype(off) Off;
      return mergesort_run<P, VB != 0, Off>(
          ctx, (K *)a->keys, (value_t<VB> *)a->vals, (Off)a->n, comp);
    });
  }
};

/* Key dtype fixed by the translation unit; value width and order here. */
template <typename K>
mgpu_status mergesort_entry(mgpu_context *ctx, const mgpu_sort_args *a) {
  return dispatch_keyed_by_order<K, mergesort_launch>(ctx, a->value_size,
                                                      a->order, a);
}

} // namespace mgpu

#endif
