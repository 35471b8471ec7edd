/*
 * mergesort.cuh - mgpu_mergesort on the GPU: a blocksort launch sorts
 * tiles of NV keys, then global passes merge pairs of sorted runs, each a
 * partition launch and a merge launch (merge_staged_agent), ping-ponging
 * between the keys and one temporary buffer.  The blocksort writes into
 * whichever buffer makes the last pass land in the caller's array.
 *
 * Every launch also writes every S-th key of its output to a compact
 * sample array, from which the next pass's partition starts its searches
 * (sampled_merge_path): most of their steps then hit L2.
 */
#ifndef MGPU_MERGESORT_CUH
#define MGPU_MERGESORT_CUH

#include "blocksort_agent.cuh"
#include "device/grid_dependency.cuh"
#include "device/sampled_merge_path.cuh"
#include "dispatch.cuh"
#include "merge_agent.cuh"
#include "merge_staged_agent.cuh"
#include "policy.cuh"

namespace mgpu {

/* Sample stride of the passes: divides every tile size of policy.cuh (a
 * static_assert below checks), and is at least VT, so that one thread
 * writes at most one sample per tile. */
constexpr int kSortSampleStride = 64;

template <typename P, bool HAS_V, typename K, typename V, typename Comp>
__global__ void __launch_bounds__(P::NT)
    blocksort_kernel(const K *keys_in, const V *vals_in, int n, K *keys_out,
                     V *vals_out, K *keys_out2, V *vals_out2, K *samples,
                     Comp comp) {
  auto &sm = *shared_as<merge_tile_smem<P::NV, HAS_V, K, V>>();
  const long long t0 = (long long)blockIdx.x * P::NV;
  const int count = (int)min((long long)P::NV, n - t0);
  blocksort_tile<P::NT, P::VT, kSortSampleStride, HAS_V>(
      keys_in + t0, HAS_V ? vals_in + t0 : vals_in, count, keys_out + t0,
      HAS_V ? vals_out + t0 : vals_out, keys_out2 ? keys_out2 + t0 : nullptr,
      HAS_V && vals_out2 ? vals_out2 + t0 : vals_out2, samples, t0, comp, sm);
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
 * merge come from the pair's A run.  Runs start at multiples of the sample
 * stride, so a run's samples are a slice of the pass's sample array. */
template <typename K, typename Comp>
__global__ void mergesort_partition_kernel(const K *keys, const K *samples,
                                           int n, long long run, int nv,
                                           int count, int *splits, Comp comp) {
  constexpr int S = kSortSampleStride;
  /* launched early (mergesort_run): the pass after it may start now, and
   * the keys and samples are the launch ahead's output */
  allow_dependent_grids();
  wait_for_prior_grid();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const long long d = min((long long)i * nv, (long long)n);
  const run_pair p = pair_of(d, run, n);
  const int na = p.mid - (int)p.start, nb = p.end - p.mid;
  splits[i] = sampled_merge_path<S>(keys + p.start, samples + p.start / S, na,
                                    keys + p.mid, samples + p.mid / S, nb,
                                    (int)(d - p.start), comp);
}

/* The tiles of one global pass: tile t writes outputs [t * NV, (t + 1) *
 * NV) of the pass, which all belong to one pair of runs. */
template <int NV, bool HAS_V, typename K, typename V> struct pass_tiles {
  const K *keys;
  const V *vals;
  int n;
  long long run;
  const int *splits;
  K *keys_out;
  V *vals_out;
  K *samples_out;

  __device__ __forceinline__ tile_io<K, V> describe(int t) const {
    const long long d0g = (long long)t * NV;
    const long long d1g = min(d0g + NV, (long long)n);
    const run_pair p = pair_of(d0g, run, n);
    const int na = p.mid - (int)p.start, nb = p.end - p.mid;
    const int d0 = (int)(d0g - p.start), d1 = (int)(d1g - p.start);
    /* The split after a pair's last tile belongs to the next pair. */
    const int a0 = splits[t];
    const int a1 = d1 == na + nb ? na : splits[t + 1];
    const tile_span sp = make_tile_span(d0, d1, a0, a1);
    const long long a_at = p.start + sp.a0, b_at = p.mid + sp.b0;
    tile_io<K, V> io;
    io.a = keys + a_at;
    io.b = keys + b_at;
    io.av = HAS_V ? vals + a_at : vals;
    io.bv = HAS_V ? vals + b_at : vals;
    io.na = sp.na;
    io.nb = sp.nb;
    io.out = keys_out + d0g;
    io.outv = HAS_V ? vals_out + d0g : vals_out;
    io.samples = samples_out;
    io.out0 = d0g;
    return io;
  }
};

/* A pass tile, staged as merge's tiles are (merge_staged_agent). */
template <typename P, bool HAS_V, typename K, typename V, typename Comp>
__global__ void __launch_bounds__(P::NT)
    mergesort_pass_kernel(pass_tiles<P::NV, HAS_V, K, V> tiles,
                          merge_staged_args g, Comp comp) {
  auto &sm = *shared_as<merge_staged_smem<P::NV, HAS_V, K, V>>();
  /* launched early: the next partition may start (it waits for this
   * launch's end); the splits are the partition's output */
  allow_dependent_grids();
  wait_for_prior_grid();
  merge_staged_tile<P::NT, P::VT, kSortSampleStride, HAS_V, K, V>(
      tiles, (int)blockIdx.x, g, sm, comp);
}

/* The blocksort launch alone (also timed on its own by bench/tune.cu). */
template <typename PB, bool HAS_V, typename K, typename V, typename Comp>
mgpu_status blocksort_run(mgpu_context *ctx, const K *keys, const V *vals,
                          int n, K *keys_out, V *vals_out, K *samples,
                          Comp comp, K *keys_out2 = nullptr,
                          V *vals_out2 = nullptr) {
  auto kernel = blocksort_kernel<PB, HAS_V, K, V, Comp>;
  const size_t smem = sizeof(merge_tile_smem<PB::NV, HAS_V, K, V>);
  MGPU_TRY(allow_shared_memory(ctx, kernel, smem));
  kernel<<<tiles_of(n, PB::NV), PB::NT, smem, cuda_of(ctx)->stream>>>(
      keys, vals, n, keys_out, vals_out, keys_out2, vals_out2, samples, comp);
  CUDA_LAUNCHED(ctx, "blocksort kernel");
  return MGPU_OK;
}

template <typename PB, typename PM, bool HAS_V, typename K, typename V,
          typename Comp>
mgpu_status mergesort_run(mgpu_context *ctx, K *keys, V *vals, int n,
                          Comp comp, int early = -1) {
  constexpr int S = kSortSampleStride;
  static_assert(PB::NV % PM::NV == 0,
                "a pass tile must not straddle two merges");
  static_assert(PB::NV % S == 0 && PM::NV % S == 0 && PB::VT <= S &&
                    PM::VT <= S,
                "runs must start on samples, one sample per thread");
  cudaStream_t s = cuda_of(ctx)->stream;
  int passes = 0;
  for (long long run = PB::NV; run < n; run *= 2) ++passes;
  const int merge_tiles = tiles_of(n, PM::NV);
  const int nsamples = samples_of(n, S);

  /* Every temporary is taken before the first launch: if memory runs out,
   * the keys are untouched and the call can be retried. */
  cuda_scratch tmp_keys, tmp_vals, splits, samples;
  MGPU_TRY(samples.take(ctx, sizeof(K) * 2 * (size_t)nsamples));
  if (passes) {
    MGPU_TRY(tmp_keys.take(ctx, sizeof(K) * (size_t)n));
    if (HAS_V) MGPU_TRY(tmp_vals.take(ctx, sizeof(V) * (size_t)n));
    MGPU_TRY(splits.take(ctx, sizeof(int) * ((size_t)merge_tiles + 1)));
  }
  const bool odd = passes & 1;
  K *sk = odd ? tmp_keys.as<K>() : keys, *dk = odd ? keys : tmp_keys.as<K>();
  V *sv = odd ? tmp_vals.as<V>() : vals, *dv = odd ? vals : tmp_vals.as<V>();
  K *ss = samples.as<K>(), *ds = ss + nsamples; /* samples of sk, of dk */
  MGPU_TRY((blocksort_run<PB, HAS_V>(ctx, keys, vals, n, sk, sv, ss, comp)));
  if (!passes) return MGPU_OK;

  auto kernel = mergesort_pass_kernel<PM, HAS_V, K, V, Comp>;
  const size_t smem = sizeof(merge_staged_smem<PM::NV, HAS_V, K, V>);
  MGPU_TRY(allow_shared_memory(ctx, kernel, smem));
  long long wave = 0; /* tiles resident at once: the prefetch's unit */
  MGPU_TRY((resident_blocks<mergesort_pass_kernel<PM, HAS_V, K, V, Comp>>(
      ctx, PM::NT, smem, &wave)));
  merge_staged_args g;
  g.tiles = merge_tiles;
  g.prefetch = (int)(wave * merge_launch_policy::PREFETCH_PERCENT / 100);
  /* The passes' launches start early (programmatic dependent launch: each
   * waits for the launch ahead before it reads that launch's output) when
   * a pass is at most one wave of tiles, where the gaps between launches
   * are much of a pass; in longer passes the next launch's early blocks
   * only cost the pass's tail.  mgpu_tune sortpdl, H200, ms, three passes,
   * early / late: 2^20 i32 keys 0.1144-0.1149 / 0.1240-0.1246, pairs
   * 0.1462 / 0.1541-0.1546, i64 keys 0.1798-0.1809 / 0.1836-0.1844; 2^26
   * i32 keys 2.649-2.653 / 2.651-2.655, pairs 5.344-5.345 / 5.303-5.309,
   * i64 keys 5.499-5.514 / 5.398-5.401.  early: -1 this rule, 0 never, 1
   * always (mgpu_tune). */
  const bool pdl = early < 0 ? merge_tiles <= wave : early != 0;
  for (long long run = PB::NV; run < n; run *= 2) {
    /* early (pdl): the first partition follows the blocksort, this call's
     * own launch */
    CUDA_TRY(ctx, launch_early(pdl, mergesort_partition_kernel<K, Comp>,
                               grid_for((size_t)merge_tiles + 1, 128), 128, 0,
                               s, (const K *)sk, (const K *)ss, n, run,
                               (int)PM::NV, merge_tiles + 1, splits.as<int>(),
                               comp));
    CUDA_LAUNCHED(ctx, "mergesort partition kernel");
    pass_tiles<PM::NV, HAS_V, K, V> t = {sk, sv, n, run, splits.as<int>(),
                                         dk, dv, ds};
    /* the scratch buffers and the caller's arrays alike */
    g.vector_stores = staged_stores_aligned<PM::NV, HAS_V>(dk, dv);
    CUDA_TRY(ctx, launch_early(pdl, kernel, merge_tiles, PM::NT, smem, s, t,
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
    return mergesort_run<typename P::blocksort, typename P::pass, VB != 0>(
        ctx, (K *)a->keys, (value_t<VB> *)a->vals, (int)a->n, comp);
  }
};

/* Key dtype fixed by the translation unit; value width and order here. */
template <typename K>
mgpu_status mergesort_entry(mgpu_context *ctx, const mgpu_sort_args *a) {
  return dispatch_keyed<K, mergesort_launch>(ctx, a->value_size, a->order, a);
}

} // namespace mgpu

#endif
