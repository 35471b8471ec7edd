/*
 * named_barrier.cuh - barriers among some of a block's warps (bar.sync /
 * bar.arrive with a barrier id and a thread count, a multiple of 32).
 *
 * Why: a block whose warps have different jobs cannot use __syncthreads
 * (barrier 0, every thread) between the warps of one job; a warp that only
 * hands over a result arrives without waiting and the warps that need it
 * wait (bar.arrive synchronises with bar.sync on the same barrier).
 * Barrier 0 is __syncthreads's; ids 1-15 are free.
 */
#ifndef MGPU_NAMED_BARRIER_CUH
#define MGPU_NAMED_BARRIER_CUH

namespace mgpu {

__device__ __forceinline__ void named_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

__device__ __forceinline__ void named_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

} // namespace mgpu

#endif
