/*
 * rank_partition.cuh - partitions for the bulk and interval operations.
 *
 * Each of them merges a sorted list of "events" (remove indices, insert
 * positions, interval starts) with a counting sequence, and every event k
 * has a fixed place q(k) in the merged order: indices[k] for bulk remove,
 * positions[k] + k for bulk insert, scan[k] + k for the load-balancing
 * search.  The Merge Path split of a tile boundary x is then the number of
 * events with q(k) < x: a lower bound over q, searched first on every S-th
 * q (a compact, L2-resident sample) and then in the inputs - as the merge
 * partitions do (block/sampled_merge_path.cuh).
 */
#ifndef MGPU_RANK_PARTITION_CUH
#define MGPU_RANK_PARTITION_CUH

#include "launch.cuh"

namespace mgpu {

constexpr int kRankSampleStride = 256;
/* Below this many events the plain search's reads mostly hit L2. */
constexpr int kRankSampleFrom = 1 << 16;

/* Element k of an index array of the C API's dtype t (MGPU_I32 or
 * MGPU_I64).  The 32-bit instances (Off = int32_t) read int32 only: the
 * host sends every call with an MGPU_I64 array to the 64-bit ones, which
 * read either, so that a call of mixed dtypes (an int32 gather on an int64
 * scan) needs no converted copy. */
template <typename Off>
__device__ __forceinline__ Off index_at(const int32_t *p, mgpu_dtype t, Off k);
template <>
__device__ __forceinline__ int32_t index_at<int32_t>(const int32_t *p,
                                                     mgpu_dtype, int32_t k) {
  return p[k];
}
template <>
__device__ __forceinline__ int64_t index_at<int64_t>(const int32_t *p,
                                                     mgpu_dtype t, int64_t k) {
  return t == MGPU_I64 ? ((const int64_t *)p)[k] : (int64_t)p[k];
}

/* Start k of a wrapped scan (mgpu.h): its low 32 bits and a 2^32 for each
 * wrap at or before k.  The wraps are few (a device copy of the host's)
 * and every thread of a warp reads the same one. */
__device__ __forceinline__ int64_t wrapped_at(const int32_t *p,
                                              const mgpu_wraps *w, int64_t k) {
  int64_t hi = 0;
  for (int i = 0; i < w->n && w->at[i] <= k; ++i) hi += int64_t(1) << 32;
  return (int64_t)(uint32_t)p[k] + hi;
}

/* Start k of a scan of dtype t: MGPU_U32 is a wrapped one, which only the
 * 64-bit instances read (its starts pass INT32_MAX). */
template <typename Off>
__device__ __forceinline__ Off scan_at(const int32_t *p, mgpu_dtype t,
                                       const mgpu_wraps *w, Off k) {
  if constexpr (sizeof(Off) == 8)
    if (t == MGPU_U32) return wrapped_at(p, w, k);
  return index_at<Off>(p, t, k);
}

/* Element k of an index array or scan of dtype t (MGPU_I32, MGPU_U32 or
 * MGPU_I64) less b0, for an element known to lie in [b0, b0 + n]: the bulk
 * and interval tiles keep their events' places as int, less the tile's
 * first output.  The low 32 bits give the whole difference (a wrapped
 * scan needs no wraps); a broken array is clamped into [0, n]. */
template <typename Off>
__device__ __forceinline__ int place_in_tile(const int32_t *p, mgpu_dtype t,
                                             Off k, Off b0, int n) {
  uint32_t low;
  if constexpr (sizeof(Off) == 8)
    low = t == MGPU_I64 ? (uint32_t)((const int64_t *)p)[k] : (uint32_t)p[k];
  else
    low = (uint32_t)p[k];
  return (int)min(low - (uint32_t)b0, (uint32_t)n);
}

/* #{k < m : q(k) < x}, q increasing, searching samples[i] = q(i * S)
 * first when there are any.  Always in [0, m], whatever q holds.  Off is
 * the type of the events' count and ranks (as in the callers' tiles). */
template <int S, typename Off, typename Q>
__device__ __forceinline__ Off rank_of(const Q &q, const int64_t *samples,
                                       Off m, int64_t x) {
  Off lo = 0, hi = m;
  if (samples) {
    /* samples below x: [0, c); m / S rounded up without m + S - 1 */
    Off slo = 0, shi = m / S + (m % S != 0);
    while (slo < shi) {
      const Off mid = (slo + shi) >> 1;
      if (samples[mid] < x) slo = mid + 1;
      else shi = mid;
    }
    /* q((c - 1) S) < x <= q(c S): the answer is in [(c - 1) S + 1, c S] */
    if (slo > 0) lo = min(m, (slo - 1) * S + 1);
    if ((long long)slo * S < m) hi = slo * S;
  }
  while (lo < hi) {
    const Off mid = lo + ((hi - lo) >> 1);
    if (q(mid) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

template <int S, typename Off, typename Q>
__global__ void rank_samples_kernel(Q q, Off m, int64_t *samples) {
  const Off i = (Off)blockIdx.x * blockDim.x + threadIdx.x;
  if ((long long)i * S < m) samples[i] = q(i * S);
}

/* splits[t] = rank of min(t * nv, limit), for t in [0, count). */
template <int S, typename Off, typename Q>
__global__ void rank_partition_kernel(Q q, const int64_t *samples, Off m,
                                      int nv, int64_t limit, int count,
                                      Off *splits) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= count) return;
  const int64_t x = min((int64_t)t * nv, limit);
  splits[t] = rank_of<S>(q, samples, m, x);
}

/* Fills splits[0, tiles] (taken by the caller) on the context's stream. */
template <typename Off, typename Q>
mgpu_status rank_partition(mgpu_context *ctx, Q q, Off m, int nv,
                           int64_t limit, int tiles, Off *splits) {
  constexpr int S = kRankSampleStride;
  cudaStream_t s = cuda_of(ctx)->stream;
  cuda_scratch samples;
  if (m >= kRankSampleFrom) {
    const Off count = m / S + (m % S != 0);
    MGPU_TRY(samples.take(ctx, sizeof(int64_t) * (size_t)count));
    rank_samples_kernel<S><<<grid_for((size_t)count, 256), 256, 0, s>>>(
        q, m, samples.as<int64_t>());
    CUDA_LAUNCHED(ctx, "rank sample kernel");
  }
  rank_partition_kernel<S><<<grid_for((size_t)tiles + 1, 128), 128, 0, s>>>(
      q, samples.as<int64_t>(), m, nv, limit, tiles + 1, splits);
  CUDA_LAUNCHED(ctx, "rank partition kernel");
  return MGPU_OK;
}

/* The q of each operation, over events numbered in Off; v is of dtype t
 * (index_at). */
template <typename Off> struct q_indices {
  const int32_t *v;
  mgpu_dtype t;
  __device__ __forceinline__ int64_t operator()(Off k) const {
    return index_at<Off>(v, t, k);
  }
};
template <typename Off> struct q_plus_rank { /* positions[k] + k */
  const int32_t *v;
  mgpu_dtype t;
  __device__ __forceinline__ int64_t operator()(Off k) const {
    return (int64_t)index_at<Off>(v, t, k) + k;
  }
};
template <typename Off> struct q_scan_plus_rank { /* scan[k] + k */
  const int32_t *v;
  mgpu_dtype t;
  const mgpu_wraps *w; /* device memory; MGPU_U32 only */
  __device__ __forceinline__ int64_t operator()(Off k) const {
    return (int64_t)scan_at<Off>(v, t, w, k) + k;
  }
};

} // namespace mgpu

#endif
