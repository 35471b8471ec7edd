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

/* The tiles of one merge: tile t writes outputs [t * NV, (t + 1) * NV). */
template <int NV, bool HAS_V, typename K, typename V> struct merge_tiles {
  const K *a, *b;
  const V *av, *bv;
  int na, nb;
  const int *splits; /* nullptr: the whole merge is one tile */
  K *out;
  V *outv;

  __device__ __forceinline__ int2 bounds(int t) const {
    return splits ? make_int2(splits[t], splits[t + 1]) : make_int2(0, na);
  }
  __device__ __forceinline__ tile_io<K, V> describe(int t, int2 s) const {
    const int d0 = t * NV;
    const int d1 = min(d0 + NV, na + nb);
    const tile_span sp = make_tile_span(d0, d1, s.x, s.y);
    tile_io<K, V> io;
    io.a = a + sp.a0;
    io.b = b + sp.b0;
    io.av = HAS_V ? av + sp.a0 : av;
    io.bv = HAS_V ? bv + sp.b0 : bv;
    io.na = sp.na;
    io.nb = sp.nb;
    io.out = out + d0;
    io.outv = HAS_V ? outv + d0 : outv;
    return io;
  }
};

/* One block, one tile. */
template <typename P, bool HAS_V, typename K, typename V, typename Comp>
__global__ void __launch_bounds__(P::NT)
    merge_kernel(merge_tiles<P::NV, HAS_V, K, V> tiles, Comp comp) {
  auto &sm = *shared_as<merge_tile_smem<P::NV, HAS_V, K, V>>();
  const tile_io<K, V> io = tiles.describe(blockIdx.x, tiles.bounds(blockIdx.x));
  merge_tile<P::NT, P::VT, HAS_V>(io.a, io.av, io.na, io.b, io.bv, io.nb,
                                  io.out, io.outv, comp, sm);
}

/* Persistent blocks, each streaming its tiles through two stages. */
template <typename P, bool HAS_V, typename K, typename V, typename Comp>
__global__ void __launch_bounds__(P::NT)
    merge_stream_kernel(merge_tiles<P::NV, HAS_V, K, V> tiles, int num_tiles,
                        Comp comp) {
  typedef merge_tile_smem<P::NV, HAS_V, K, V> stage_t;
  auto &stages = *shared_as<stage_t[2]>();
  stream_merge_tiles<P::NT, P::VT, HAS_V>(tiles, num_tiles, comp, stages);
}

template <typename P, bool HAS_V, bool STREAM = true, typename K, typename V,
          typename Comp>
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
  merge_tiles<P::NV, HAS_V, K, V> t = {a, b, av, bv, na, nb, splits.as<int>(),
                                       out, outv};
  typedef merge_tile_smem<P::NV, HAS_V, K, V> stage_t;
  if (STREAM) {
    auto kernel = merge_stream_kernel<P, HAS_V, K, V, Comp>;
    const size_t smem = 2 * sizeof(stage_t);
    MGPU_TRY(allow_shared_memory(ctx, kernel, smem));
    int grid = 0;
    MGPU_TRY(persistent_grid(ctx, kernel, P::NT, smem, tiles, &grid));
    kernel<<<grid, P::NT, smem, s>>>(t, tiles, comp);
  } else {
    auto kernel = merge_kernel<P, HAS_V, K, V, Comp>;
    MGPU_TRY(allow_shared_memory(ctx, kernel, sizeof(stage_t)));
    kernel<<<tiles, P::NT, sizeof(stage_t), s>>>(t, comp);
  }
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
