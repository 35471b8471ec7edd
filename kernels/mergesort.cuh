/*
 * mergesort.cuh - mgpu_mergesort on the GPU: a blocksort launch sorts
 * tiles of NV keys, then global passes merge pairs of sorted runs, each a
 * partition launch and a merge launch (merge_agent), ping-ponging between
 * the keys and one temporary buffer.  The blocksort writes into whichever
 * buffer makes the last pass land in the caller's array.
 */
#ifndef MGPU_MERGESORT_CUH
#define MGPU_MERGESORT_CUH

#include "blocksort_agent.cuh"
#include "device/key_order.cuh"
#include "launch.cuh"
#include "merge_agent.cuh"
#include "policy.cuh"

namespace mgpu {

template <typename P, bool HAS_V, typename K, typename V, typename Comp>
__global__ void __launch_bounds__(P::NT)
    blocksort_kernel(const K *keys_in, const V *vals_in, int n, K *keys_out,
                     V *vals_out, Comp comp) {
  auto &sm = *shared_as<merge_tile_smem<P::NV, HAS_V, K, V>>();
  const long long t0 = (long long)blockIdx.x * P::NV;
  const int count = (int)min((long long)P::NV, n - t0);
  blocksort_tile<P::NT, P::VT, HAS_V>(keys_in + t0, HAS_V ? vals_in + t0 : vals_in,
                                      count, keys_out + t0,
                                      HAS_V ? vals_out + t0 : vals_out, comp, sm);
}

/* The pair of sorted runs (each `run` long) that output position d of a
 * pass belongs to: A = [start, mid), B = [mid, end). */
struct run_pair {
  long long start;
  int mid, end;
};

__device__ __forceinline__ run_pair pair_of(long long d, long long run, int n) {
  run_pair p;
  p.start = d / (2 * run) * (2 * run);
  p.mid = (int)min(p.start + run, (long long)n);
  p.end = (int)min(p.start + 2 * run, (long long)n);
  return p;
}

/* splits[i] = how many of the first (i * nv - start) outputs of its pair's
 * merge come from the pair's A run. */
template <typename K, typename Comp>
__global__ void mergesort_partition_kernel(const K *keys, int n, long long run,
                                           int nv, int count, int *splits,
                                           Comp comp) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  long long d = min((long long)i * nv, (long long)n);
  run_pair p = pair_of(d, run, n);
  int na = p.mid - (int)p.start, nb = p.end - p.mid;
  splits[i] = merge_path(keys + p.start, na, keys + p.mid, nb,
                         (int)(d - p.start), comp);
}

template <typename P, bool HAS_V, typename K, typename V, typename Comp>
__global__ void __launch_bounds__(P::NT)
    mergesort_pass_kernel(const K *keys_in, const V *vals_in, int n,
                          long long run, const int *splits, K *keys_out,
                          V *vals_out, Comp comp) {
  auto &sm = *shared_as<merge_tile_smem<P::NV, HAS_V, K, V>>();
  const long long d0g = (long long)blockIdx.x * P::NV;
  const long long d1g = min(d0g + P::NV, (long long)n);
  const run_pair p = pair_of(d0g, run, n);
  const int na = p.mid - (int)p.start, nb = p.end - p.mid;
  const int d0 = (int)(d0g - p.start), d1 = (int)(d1g - p.start);
  /* The split after the pair's last tile belongs to the next pair. */
  const int a0 = splits[blockIdx.x];
  const int a1 = d1 == na + nb ? na : splits[blockIdx.x + 1];
  const tile_span t = make_tile_span(d0, d1, a0, a1);
  const long long a_at = p.start + t.a0, b_at = p.mid + t.b0;
  merge_tile<P::NT, P::VT, HAS_V>(
      keys_in + a_at, HAS_V ? vals_in + a_at : vals_in, t.na, keys_in + b_at,
      HAS_V ? vals_in + b_at : vals_in, t.nb, keys_out + d0g,
      HAS_V ? vals_out + d0g : vals_out, comp, sm);
}

template <typename PB, typename PM, bool HAS_V, typename K, typename V,
          typename Comp>
mgpu_status mergesort_run(mgpu_context *ctx, K *keys, V *vals, int n,
                          Comp comp) {
  static_assert(PB::NV % PM::NV == 0,
                "a pass tile must not straddle two merges");
  cudaStream_t s = cuda_of(ctx)->stream;
  int passes = 0;
  for (long long run = PB::NV; run < n; run *= 2) ++passes;
  const int merge_tiles = tiles_of(n, PM::NV);

  /* Every temporary is taken before the first launch: if memory runs out,
   * the keys are untouched and the call can be retried. */
  cuda_scratch tmp_keys, tmp_vals, splits;
  if (passes) {
    MGPU_TRY(tmp_keys.take(ctx, sizeof(K) * (size_t)n));
    if (HAS_V) MGPU_TRY(tmp_vals.take(ctx, sizeof(V) * (size_t)n));
    MGPU_TRY(splits.take(ctx, sizeof(int) * ((size_t)merge_tiles + 1)));
  }
  const bool odd = passes & 1;
  K *sk = odd ? tmp_keys.as<K>() : keys, *dk = odd ? keys : tmp_keys.as<K>();
  V *sv = odd ? tmp_vals.as<V>() : vals, *dv = odd ? vals : tmp_vals.as<V>();

  auto sort_kernel = blocksort_kernel<PB, HAS_V, K, V, Comp>;
  const size_t sort_smem = sizeof(merge_tile_smem<PB::NV, HAS_V, K, V>);
  MGPU_TRY(allow_shared_memory(ctx, sort_kernel, sort_smem));
  sort_kernel<<<tiles_of(n, PB::NV), PB::NT, sort_smem, s>>>(keys, vals, n, sk,
                                                             sv, comp);
  CUDA_LAUNCHED(ctx, "blocksort kernel");

  auto pass_kernel = mergesort_pass_kernel<PM, HAS_V, K, V, Comp>;
  const size_t pass_smem = sizeof(merge_tile_smem<PM::NV, HAS_V, K, V>);
  MGPU_TRY(allow_shared_memory(ctx, pass_kernel, pass_smem));
  for (long long run = PB::NV; run < n; run *= 2) {
    mergesort_partition_kernel<<<grid_for((size_t)merge_tiles + 1, 128), 128, 0,
                                 s>>>(sk, n, run, PM::NV, merge_tiles + 1,
                                      splits.as<int>(), comp);
    CUDA_LAUNCHED(ctx, "mergesort partition kernel");
    pass_kernel<<<merge_tiles, PM::NT, pass_smem, s>>>(
        sk, sv, n, run, splits.as<int>(), dk, dv, comp);
    CUDA_LAUNCHED(ctx, "mergesort pass kernel");
    K *tk = sk; sk = dk; dk = tk;
    V *tv = sv; sv = dv; dv = tv;
  }
  return MGPU_OK;
}

template <typename K, int VB, typename Comp>
mgpu_status mergesort_typed(mgpu_context *ctx, const mgpu_sort_args *a,
                            Comp comp) {
  typedef typename value_word<VB ? VB : 4>::type V;
  typedef mergesort_policy<sizeof(K), VB> P;
  return mergesort_run<typename P::blocksort, typename P::pass, VB != 0>(
      ctx, (K *)a->keys, (V *)a->vals, (int)a->n, comp);
}

template <typename K, int VB>
mgpu_status mergesort_ordered(mgpu_context *ctx, const mgpu_sort_args *a) {
  if (a->order == MGPU_GREATER)
    return mergesort_typed<K, VB>(ctx, a, descending<K>());
  return mergesort_typed<K, VB>(ctx, a, ascending<K>());
}

template <typename K>
mgpu_status mergesort_entry(mgpu_context *ctx, const mgpu_sort_args *a) {
  switch (a->value_size) {
  case 0: return mergesort_ordered<K, 0>(ctx, a);
  case 4: return mergesort_ordered<K, 4>(ctx, a);
  case 8: return mergesort_ordered<K, 8>(ctx, a);
  }
  return mgpu_set_error(ctx, MGPU_EINVAL, "value size must be 0, 4 or 8");
}

} // namespace mgpu

#endif
