/*
 * segsort_heads.cu - what a segmented sort derives from its heads alone,
 * whatever its key type: the head bitfield and the windows it implies
 * (segsort.cuh calls these; one instance for every key type).
 */
#include <limits.h>
#include <stdint.h>

#include "agent/sort_windows.cuh"
#include "segsort_heads.cuh"

namespace mgpu {
namespace {

/* H: the heads' dtype; N: their count and the keys', int while both fit
 * (the instance of 32-bit sorts), long long past it.  A head outside
 * (0, n) marks nothing. */
template <typename H, typename N>
__global__ void heads_to_bits_kernel(const H *heads, N m, N n,
                                     unsigned *bits) {
  GRID_STRIDE(i, (size_t)m) {
    const H h = heads[i];
    if (h > 0 && h < n) atomicOr(bits + (h >> 5), 1u << (h & 31));
  }
}

template <typename F, typename Off>
__global__ void flags_to_bits_kernel(const F *flags, Off n, unsigned *bits) {
  /* whole warps per 32 elements, so that one ballot makes one word */
  const size_t warps = ((size_t)n + 31) / 32;
  const int lane = threadIdx.x & 31;
  for (size_t w = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
       w < warps; w += (size_t)gridDim.x * blockDim.x / 32) {
    const size_t i = w * 32 + lane;
    const unsigned word = __ballot_sync(0xffffffffu, i < (size_t)n && i > 0 &&
                                                         flags[i] != 0);
    if (lane == 0) bits[w] = word;
  }
}

/* Segmented sort, one warp per boundary: the window of boundary t is the
 * segment straddling it (heads as a bitfield; element 0 always starts a
 * segment). */
template <typename Off>
__global__ void segment_windows_kernel(const unsigned *bits, Off n, int tile,
                                       int w, int boundaries,
                                       sort_window<Off> *windows,
                                       window_report *report) {
  const int t = (int)((blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5);
  if (t >= boundaries) return; /* whole warps */
  const Off p = (Off)(t + 1) * tile;
  const Off lo = max((Off)0, p - w);
  Off h0 = warp_last_bit_in(bits, lo, p);
  bool too_far = false;
  if (h0 < 0) {
    h0 = 0;
    too_far = lo > 0;
  }
  Off h1 = p;
  if (!too_far && h0 < p) {
    const Off hi = (Off)min((long long)n, (long long)h0 + w + 1);
    h1 = warp_first_bit_in(bits, p + 1, hi);
    too_far = (h1 == hi && hi < n) || h1 - h0 > w;
  }
  if ((threadIdx.x & 31) == 0)
    report_window(windows, t, h0, p, h1, too_far, report);
}

} // namespace

/* Writes the head bitfield of a segmented sort. */
template <typename Off>
mgpu_status segsort_heads(mgpu_context *ctx, const mgpu_segsort_args *a, Off n,
                          cuda_scratch &bits) {
  cudaStream_t s = cuda_of(ctx)->stream;
  const unsigned grid = stride_grid(ctx, a->heads ? a->m : (size_t)n);
  if (a->heads) {
    CUDA_TRY(ctx, cudaMemsetAsync(bits.ptr, 0, bits.bytes, s));
    /* i64 heads (the index dtype rule past 2^31 - 1 keys, or a C caller's
     * choice) or counts past INT_MAX take the 64-bit instance */
    const bool wide = a->m > (size_t)INT_MAX || (long long)n > INT_MAX;
    unsigned *out = bits.as<unsigned>();
    if (a->m && a->index_type == MGPU_I64)
      heads_to_bits_kernel<<<grid, kStrideThreads, 0, s>>>(
          (const int64_t *)a->heads, (long long)a->m, (long long)n, out);
    else if (a->m && wide)
      heads_to_bits_kernel<<<grid, kStrideThreads, 0, s>>>(
          a->heads, (long long)a->m, (long long)n, out);
    else if (a->m)
      heads_to_bits_kernel<<<grid, kStrideThreads, 0, s>>>(
          a->heads, (int)a->m, (int)n, out);
  } else {
    switch (mgpu_dtype_size(a->flag_type)) {
    case 4:
      flags_to_bits_kernel<<<grid, kStrideThreads, 0, s>>>(
          (const uint32_t *)a->flags, n, bits.as<unsigned>());
      break;
    default:
      flags_to_bits_kernel<<<grid, kStrideThreads, 0, s>>>(
          (const uint64_t *)a->flags, n, bits.as<unsigned>());
    }
  }
  CUDA_LAUNCHED(ctx, "segsort head kernel");
  return MGPU_OK;
}

template <typename Off>
mgpu_status segment_windows(mgpu_context *ctx, const unsigned *bits, Off n,
                            int tile, int w, int boundaries,
                            sort_window<Off> *windows, window_report *report) {
  segment_windows_kernel<<<grid_for((size_t)boundaries * 32, 128), 128, 0,
                           cuda_of(ctx)->stream>>>(bits, n, tile, w, boundaries,
                                                   windows, report);
  CUDA_LAUNCHED(ctx, "segsort window kernel");
  return MGPU_OK;
}

template mgpu_status segsort_heads<int32_t>(mgpu_context *,
                                           const mgpu_segsort_args *, int32_t,
                                           cuda_scratch &);
template mgpu_status segsort_heads<int64_t>(mgpu_context *,
                                           const mgpu_segsort_args *, int64_t,
                                           cuda_scratch &);
template mgpu_status segment_windows<int32_t>(mgpu_context *, const unsigned *,
                                             int32_t, int, int, int,
                                             sort_window<int32_t> *,
                                             window_report *);
template mgpu_status segment_windows<int64_t>(mgpu_context *, const unsigned *,
                                             int64_t, int, int, int,
                                             sort_window<int64_t> *,
                                             window_report *);

} // namespace mgpu
