/*
 * sort_pass.cuh - the kernels of a merge sort: the blocksort launch, which
 * sorts tiles of NV keys, and a global pass's partition and merge
 * launches, which merge pairs of sorted runs (merge_staged.cuh's tile).
 * mergesort.cuh runs them; segsort.cuh reuses the blocksort and its
 * launch for inputs without segments.
 */
#ifndef MGPU_AGENT_SORT_PASS_CUH
#define MGPU_AGENT_SORT_PASS_CUH

#include "agent/blocksort.cuh"
#include "agent/merge_staged.cuh"
#include "agent/merge_tile.cuh"
#include "block/grid_dependency.cuh"
#include "block/sampled_merge_path.cuh"
#include "launch.cuh"

namespace mgpu {

/* Sample stride of the passes: divides every tile size of
 * policy/mergesort.cuh (a static_assert below checks), and is at least VT,
 * so that one thread writes at most one sample per tile. */
constexpr int kSortSampleStride = 64;

/* n in the sort's offset type, not always 64-bit: one instance taking a
 * 64-bit n moved the 32-bit blocksorts' register allocation (stack and
 * spills for i32 keys with 8-byte values, sm_90). */
template <typename P, bool HAS_V, typename K, typename V, typename Off,
          typename Comp>
__global__ void __launch_bounds__(P::NT)
    blocksort_kernel(const K *keys_in, const V *vals_in, Off n, K *keys_out,
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
 * pass belongs to: A = [start, mid), B = [mid, end), in the sort's offset
 * type Off. */
template <typename Off> struct pass_pair {
  long long start;
  Off mid, end;
};

template <typename Off>
__device__ __forceinline__ pass_pair<Off> pair_of(long long d, long long run,
                                                  Off n) {
  pass_pair<Off> p;
  p.start = d / (2 * run) * (2 * run);
  p.mid = (Off)min(p.start + run, (long long)n);
  p.end = (Off)min(p.start + 2 * run, (long long)n);
  return p;
}

/* splits[i] = how many of the first (i * nv - start) outputs of its pair's
 * merge come from the pair's A run.  Runs start at multiples of the sample
 * stride, so a run's samples are a slice of the pass's sample array. */
template <typename K, typename Off, typename Comp>
__global__ void mergesort_partition_kernel(const K *keys, const K *samples,
                                           Off n, long long run, int nv,
                                           int count, Off *splits, Comp comp) {
  constexpr int S = kSortSampleStride;
  /* launched early (mergesort_run): the pass after it may start now, and
   * the keys and samples are the launch ahead's output */
  allow_dependent_grids();
  wait_for_prior_grid();
  /* the last block's threads pass count, and INT_MAX where count is near */
  const Off i = (Off)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const long long d = min((long long)i * nv, (long long)n);
  const pass_pair<Off> p = pair_of(d, run, n);
  const Off na = p.mid - (Off)p.start, nb = p.end - p.mid;
  splits[i] = sampled_merge_path<S>(keys + p.start, samples + p.start / S, na,
                                    keys + p.mid, samples + p.mid / S, nb,
                                    (Off)(d - p.start), comp);
}

/* The tiles of one global pass: tile t writes outputs [t * NV, (t + 1) *
 * NV) of the pass, which all belong to one pair of runs. */
template <int NV, bool HAS_V, typename K, typename V, typename Off>
struct pass_tiles {
  const K *keys;
  const V *vals;
  Off n;
  long long run;
  const Off *splits;
  K *keys_out;
  V *vals_out;
  K *samples_out;

  __device__ __forceinline__ tile_io<K, V> describe(int t) const {
    const long long d0g = (long long)t * NV;
    const long long d1g = min(d0g + NV, (long long)n);
    const pass_pair<Off> p = pair_of(d0g, run, n);
    const Off na = p.mid - (Off)p.start, nb = p.end - p.mid;
    const Off d0 = (Off)(d0g - p.start), d1 = (Off)(d1g - p.start);
    /* The split after a pair's last tile belongs to the next pair. */
    const Off a0 = splits[t];
    const Off a1 = d1 == na + nb ? na : splits[t + 1];
    const tile_span_of<Off> sp = make_tile_span(d0, d1, a0, a1);
    const long long a_at = p.start + sp.a0, b_at = p.mid + sp.b0;
    return tile_io_at<HAS_V>(keys, vals, a_at, sp.na, keys, vals, b_at, sp.nb,
                             keys_out, vals_out, d0g, samples_out);
  }
};

/* A pass tile, staged as merge's tiles are (agent/merge_staged.cuh). */
template <typename P, bool HAS_V, typename K, typename V, typename Off,
          typename Comp>
__global__ void __launch_bounds__(P::NT)
    mergesort_pass_kernel(pass_tiles<P::NV, HAS_V, K, V, Off> tiles,
                          merge_staged_args g, Comp comp) {
  auto &sm = *shared_as<merge_staged_smem<P::NV, HAS_V, K, V>>();
  /* launched early: the next partition may start (it waits for this
   * launch's end); the splits are the partition's output */
  allow_dependent_grids();
  wait_for_prior_grid();
  merge_staged_tile<P::NT, P::VT, kSortSampleStride, HAS_V, K, V>(
      tiles, (int)blockIdx.x, g, sm, comp);
}

/* The blocksort launch alone, of tiles_of(n, PB::NV) blocks: where n may
 * pass INT_MAX the caller has checked that count (checked_tiles), or a
 * larger one. */
template <typename PB, bool HAS_V, typename K, typename V, typename Off,
          typename Comp>
mgpu_status blocksort_run(mgpu_context *ctx, const K *keys, const V *vals,
                          Off n, K *keys_out, V *vals_out, K *samples,
                          Comp comp, K *keys_out2 = nullptr,
                          V *vals_out2 = nullptr) {
  auto kernel = blocksort_kernel<PB, HAS_V, K, V, Off, Comp>;
  const size_t smem = sizeof(merge_tile_smem<PB::NV, HAS_V, K, V>);
  MGPU_TRY(allow_shared_memory(ctx, kernel, smem));
  kernel<<<tiles_of(n, PB::NV), PB::NT, smem, cuda_of(ctx)->stream>>>(
      keys, vals, n, keys_out, vals_out, keys_out2, vals_out2, samples, comp);
  CUDA_LAUNCHED(ctx, "blocksort kernel");
  return MGPU_OK;
}

} // namespace mgpu

#endif
