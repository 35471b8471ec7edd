/* launch.cuh - small host-side helpers for kernel launches. */
#ifndef MGPU_LAUNCH_CUH
#define MGPU_LAUNCH_CUH

#include "cuda_internal.cuh"

namespace mgpu {

/* Kernels whose tiles need more than the default 48 KB of shared memory
 * must say so before their launch. */
template <typename F>
mgpu_status allow_shared_memory(mgpu_context *ctx, F *kernel, size_t bytes) {
  if (bytes > 48 * 1024)
    CUDA_TRY(ctx, cudaFuncSetAttribute(kernel,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int)bytes));
  return MGPU_OK;
}

template <typename T> __device__ __forceinline__ T *shared_as() {
  extern __shared__ __align__(16) unsigned char mgpu_dynamic_smem[];
  return reinterpret_cast<T *>(mgpu_dynamic_smem);
}

inline int tiles_of(long long n, int nv) { return (int)((n + nv - 1) / nv); }

/* Blocks for a persistent kernel: as many as fit on the device at once,
 * never more than there are tiles. */
template <typename F>
mgpu_status persistent_grid(mgpu_context *ctx, F *kernel, int threads,
                            size_t smem, int tiles, int *grid) {
  int per_sm = 0;
  CUDA_TRY(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel,
                                                              threads, smem));
  long long g = (long long)(per_sm > 0 ? per_sm : 1) * cuda_of(ctx)->sm_count;
  *grid = (int)(g < tiles ? g : tiles);
  return MGPU_OK;
}

} // namespace mgpu

#endif
