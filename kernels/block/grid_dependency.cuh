/*
 * grid_dependency.cuh - programmatic dependent launch (sm_90): a kernel
 * launched with cudaLaunchAttributeProgrammaticStreamSerialization may start
 * before the kernel ahead of it in the stream has finished, once every block
 * of that kernel has called allow_dependent_grids (or ended); it must call
 * wait_for_prior_grid before it reads anything the earlier kernel writes,
 * and that wait returns when the earlier kernel has finished and its writes
 * are visible.
 *
 * Why: a set operation is three short launches in a row (samples,
 * partition, tiles); each launch otherwise starts only after the one before
 * has drained, a gap of a few microseconds the early start hides.
 *
 * Both are no-ops in a kernel launched without the attribute, and before
 * sm_90.
 */
#ifndef MGPU_GRID_DEPENDENCY_CUH
#define MGPU_GRID_DEPENDENCY_CUH

namespace mgpu {

__device__ __forceinline__ void wait_for_prior_grid() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void allow_dependent_grids() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

} // namespace mgpu

#endif
