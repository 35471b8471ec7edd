/*
 * block_scan.cuh - an exclusive sum over a block's threads in thread
 * order: shuffles within each warp, the warps' totals through shared
 * memory.
 */
#ifndef MGPU_BLOCK_SCAN_CUH
#define MGPU_BLOCK_SCAN_CUH

namespace mgpu {

/* Called by all NT threads; warp_totals holds NT / 32 words.  Returns the
 * sum of the values of threads 0 .. threadIdx.x - 1; *total gets all of
 * them.  Ends with a barrier, so warp_totals may be reused at once.  T:
 * unsigned, or unsigned long long where the sums may pass 2^32. */
template <int NT, typename T>
__device__ __forceinline__ T block_exclusive_sum(T v, T *warp_totals,
                                                 T *total) {
  static_assert(NT % 32 == 0, "whole warps");
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  T x = v;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const T y = __shfl_up_sync(0xffffffffu, x, off);
    if (lane >= off) x += y;
  }
  if (lane == 31) warp_totals[warp] = x;
  __syncthreads();
  T before = 0, all = 0;
#pragma unroll
  for (int w = 0; w < NT / 32; ++w) {
    const T t = warp_totals[w];
    before += w < warp ? t : T(0);
    all += t;
  }
  __syncthreads();
  *total = all;
  return before + x - v;
}

} // namespace mgpu

#endif
