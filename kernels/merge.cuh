/*
 * merge.cuh - mgpu_merge on the GPU, the two-phase way: a partition launch
 * finds, for every tile boundary, where the cross-diagonal meets the Merge
 * Path; then one block per tile merges exactly NV outputs (merge_agent).
 * Large merges first gather every S-th key of each input, so that the
 * partition's search starts on a compact array (sampled_merge_path).
 */
#ifndef MGPU_MERGE_CUH
#define MGPU_MERGE_CUH

#include "device/sampled_merge_path.cuh"
#include "dispatch.cuh"
#include "merge_agent.cuh"
#include "policy.cuh"

namespace mgpu {

/* splits[i] = how many of the first i * nv outputs come from a. */
template <int S, typename K, typename Comp>
__global__ void merge_partition_kernel(const K *a, const K *sa, int na,
                                       const K *b, const K *sb, int nb, int nv,
                                       int count, int *splits, Comp comp) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const long long d = (long long)i * nv;
  const int total = na + nb;
  const int diag = d < total ? (int)d : total;
  splits[i] = sa ? sampled_merge_path<S>(a, sa, na, b, sb, nb, diag, comp)
                 : merge_path(a, na, b, nb, diag, comp);
}

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
    const int d1 = min(d0 + NV, na + nb);
    const tile_span sp = make_tile_span(d0, d1, a0, a1);
    tile_io<K, V> io;
    io.a = a + sp.a0;
    io.b = b + sp.b0;
    io.av = HAS_V ? av + sp.a0 : av;
    io.bv = HAS_V ? bv + sp.b0 : bv;
    io.na = sp.na;
    io.nb = sp.nb;
    io.out = out + d0;
    io.outv = HAS_V ? outv + d0 : outv;
    io.samples = nullptr;
    io.out0 = d0;
    return io;
  }
};

template <typename P, bool HAS_V, typename K, typename V, typename Comp>
__global__ void __launch_bounds__(P::NT)
    merge_kernel(merge_tiles<P::NV, HAS_V, K, V> tiles, Comp comp) {
  auto &sm = *shared_as<merge_tile_smem<P::NV, HAS_V, K, V>>();
  merge_tile<P::NT, P::VT, 0, HAS_V>(tiles.describe(blockIdx.x), comp, sm);
}

/* Inputs at least this long search samples first: below it the plain
 * search's reads mostly hit L2 and the extra launch does not pay. */
constexpr long long kMergeSampleFrom = 1 << 22;
constexpr int kMergeSampleStride = 256;

template <typename P, bool HAS_V, typename K, typename V, typename Comp>
mgpu_status merge_run(mgpu_context *ctx, const K *a, const V *av, int na,
                      const K *b, const V *bv, int nb, K *out, V *outv,
                      Comp comp) {
  constexpr int S = kMergeSampleStride;
  cudaStream_t s = cuda_of(ctx)->stream;
  const long long total = (long long)na + nb;
  const int tiles = tiles_of(total, P::NV);
  cuda_scratch splits, samples;
  if (tiles > 1) {
    MGPU_TRY(splits.take(ctx, sizeof(int) * ((size_t)tiles + 1)));
    K *sa = nullptr, *sb = nullptr;
    if (total >= kMergeSampleFrom) {
      const int ca = samples_of(na, S), cb = samples_of(nb, S);
      MGPU_TRY(samples.take(ctx, sizeof(K) * ((size_t)ca + cb)));
      sa = samples.as<K>();
      sb = sa + ca;
      gather_samples_kernel<S><<<grid_for((size_t)max(ca, cb), 256), 256, 0, s>>>(
          a, na, sa, b, nb, sb);
      CUDA_LAUNCHED(ctx, "merge sample kernel");
    }
    merge_partition_kernel<S><<<grid_for((size_t)tiles + 1, 128), 128, 0, s>>>(
        a, sa, na, b, sb, nb, P::NV, tiles + 1, splits.as<int>(), comp);
    CUDA_LAUNCHED(ctx, "merge partition kernel");
  }
  merge_tiles<P::NV, HAS_V, K, V> t = {a, b, av, bv, na, nb, splits.as<int>(),
                                       out, outv};
  auto kernel = merge_kernel<P, HAS_V, K, V, Comp>;
  const size_t smem = sizeof(merge_tile_smem<P::NV, HAS_V, K, V>);
  MGPU_TRY(allow_shared_memory(ctx, kernel, smem));
  kernel<<<tiles, P::NT, smem, s>>>(t, comp);
  CUDA_LAUNCHED(ctx, "merge kernel");
  return MGPU_OK;
}

template <typename K, int VB> struct merge_launch {
  template <typename Comp>
  static mgpu_status run(mgpu_context *ctx, const mgpu_merge_args *m, Comp comp) {
    typedef value_t<VB> V;
    typedef typename merge_policy<sizeof(K), VB>::type P;
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
