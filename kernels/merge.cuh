/*
 * merge.cuh - mgpu_merge on the GPU, the two-phase way: a partition launch
 * finds, for every tile boundary, where the cross-diagonal meets the Merge
 * Path; then one block per tile merges exactly NV outputs (merge_agent).
 */
#ifndef MGPU_MERGE_CUH
#define MGPU_MERGE_CUH

#include "device/key_order.cuh"
#include "launch.cuh"
#include "merge_agent.cuh"
#include "policy.cuh"

namespace mgpu {

/* splits[i] = how many of the first i * nv outputs come from a. */
template <typename K, typename Comp>
__global__ void merge_partition_kernel(const K *a, int na, const K *b, int nb,
                                       int nv, int count, int *splits,
                                       Comp comp) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  long long d = (long long)i * nv;
  int total = na + nb;
  splits[i] = merge_path(a, na, b, nb, d < total ? (int)d : total, comp);
}

/* One block, one tile.  splits == nullptr means the whole merge is one
 * tile (small inputs skip the partition launch). */
template <typename P, bool HAS_V, typename K, typename V, typename Comp>
__global__ void __launch_bounds__(P::NT)
    merge_kernel(const K *a, const V *av, int na, const K *b, const V *bv,
                 int nb, const int *splits, K *out, V *outv, Comp comp) {
  auto &sm = *shared_as<merge_tile_smem<P::NV, HAS_V, K, V>>();
  const int total = na + nb;
  const int d0 = (int)((long long)blockIdx.x * P::NV);
  const int d1 = (int)min((long long)d0 + P::NV, (long long)total);
  const int a0 = splits ? splits[blockIdx.x] : 0;
  const int a1 = splits ? splits[blockIdx.x + 1] : na;
  const tile_span t = make_tile_span(d0, d1, a0, a1);
  merge_tile<P::NT, P::VT, HAS_V>(a + t.a0, HAS_V ? av + t.a0 : av, t.na,
                                  b + t.b0, HAS_V ? bv + t.b0 : bv, t.nb,
                                  out + d0, HAS_V ? outv + d0 : outv, comp, sm);
}

template <typename P, bool HAS_V, typename K, typename V, typename Comp>
mgpu_status merge_run(mgpu_context *ctx, const K *a, const V *av, int na,
                      const K *b, const V *bv, int nb, K *out, V *outv,
                      Comp comp) {
  cudaStream_t s = cuda_of(ctx)->stream;
  const int tiles = tiles_of((long long)na + nb, P::NV);
  cuda_scratch splits;
  if (tiles > 1) {
    MGPU_TRY(splits.take(ctx, sizeof(int) * ((size_t)tiles + 1)));
    merge_partition_kernel<<<grid_for((size_t)tiles + 1, 128), 128, 0, s>>>(
        a, na, b, nb, P::NV, tiles + 1, splits.as<int>(), comp);
    CUDA_LAUNCHED(ctx, "merge partition kernel");
  }
  auto kernel = merge_kernel<P, HAS_V, K, V, Comp>;
  const size_t smem = sizeof(merge_tile_smem<P::NV, HAS_V, K, V>);
  MGPU_TRY(allow_shared_memory(ctx, kernel, smem));
  kernel<<<tiles, P::NT, smem, s>>>(a, av, na, b, bv, nb, splits.as<int>(), out,
                                    outv, comp);
  CUDA_LAUNCHED(ctx, "merge kernel");
  return MGPU_OK;
}

template <typename K, int VB, typename Comp>
mgpu_status merge_typed(mgpu_context *ctx, const mgpu_merge_args *m, Comp comp) {
  typedef typename value_word<VB ? VB : 4>::type V;
  typedef typename merge_policy<sizeof(K), VB>::type P;
  return merge_run<P, VB != 0>(ctx, (const K *)m->a_keys, (const V *)m->a_vals,
                               (int)m->na, (const K *)m->b_keys,
                               (const V *)m->b_vals, (int)m->nb, (K *)m->keys,
                               (V *)m->vals, comp);
}

template <typename K, int VB>
mgpu_status merge_ordered(mgpu_context *ctx, const mgpu_merge_args *m) {
  if (m->order == MGPU_GREATER) return merge_typed<K, VB>(ctx, m, descending<K>());
  return merge_typed<K, VB>(ctx, m, ascending<K>());
}

/* Key dtype fixed by the translation unit; value width and order here. */
template <typename K>
mgpu_status merge_entry(mgpu_context *ctx, const mgpu_merge_args *m) {
  switch (m->value_size) {
  case 0: return merge_ordered<K, 0>(ctx, m);
  case 4: return merge_ordered<K, 4>(ctx, m);
  case 8: return merge_ordered<K, 8>(ctx, m);
  }
  return mgpu_set_error(ctx, MGPU_EINVAL, "value size must be 0, 4 or 8");
}

} // namespace mgpu

#endif
