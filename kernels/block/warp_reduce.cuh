/*
 * warp_reduce.cuh - a warp's and a block's reduction and a warp's
 * inclusive scan under any of the reductions (block/reduce_ops.cuh), by
 * shuffles: the pieces scan and reduce tiles share.
 */
#ifndef MGPU_BLOCK_WARP_REDUCE_CUH
#define MGPU_BLOCK_WARP_REDUCE_CUH

namespace mgpu {

/* op over the 32 lanes' x, to every lane */
template <typename T, typename Op>
__device__ __forceinline__ T warp_reduce(T x, Op op) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1)
    x = op(x, __shfl_xor_sync(0xffffffffu, x, off));
  return x;
}

/* op over lanes 0 .. lane's x */
template <typename T, typename Op>
__device__ __forceinline__ T warp_inclusive_scan(T x, Op op) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const T y = __shfl_up_sync(0xffffffffu, x, off);
    if (lane >= off) x = op(y, x);
  }
  return x;
}

/* op over the block's x (NT threads, a multiple of 32), to every thread;
 * warp_slots has NT / 32 slots.  Starts and ends with a barrier, so the
 * slots may be used again at once. */
template <int NT, typename T, typename Op>
__device__ __forceinline__ T block_reduce(T x, Op op, T *warp_slots) {
  constexpr int WARPS = NT / 32;
  x = warp_reduce(x, op);
  __syncthreads();
  if ((threadIdx.x & 31) == 0) warp_slots[threadIdx.x >> 5] = x;
  __syncthreads();
  T r = warp_slots[0];
#pragma unroll
  for (int w = 1; w < WARPS; ++w) r = op(r, warp_slots[w]);
  __syncthreads();
  return r;
}

} // namespace mgpu

#endif
