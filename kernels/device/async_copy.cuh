/*
 * async_copy.cuh - cp.async (sm_80+): global-to-shared copies that do not
 * pass through registers and complete in the background, so a block can
 * load its next tile while it merges the current one.
 */
#ifndef MGPU_ASYNC_COPY_CUH
#define MGPU_ASYNC_COPY_CUH

namespace mgpu {

template <typename T>
__device__ __forceinline__ void async_copy(T *shared_dst, const T *global_src) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "4- or 8-byte elements");
  unsigned dst = (unsigned)__cvta_generic_to_shared(shared_dst);
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(dst),
               "l"(global_src), "n"(sizeof(T))
               : "memory");
}

__device__ __forceinline__ void async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* Waits until at most N of this thread's groups are still in flight. */
template <int N> __device__ __forceinline__ void async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/* shared[0, na) = a[0, na), shared[na, na + nb) = b[0, nb), in the
 * background. */
template <int NT, int VT, typename T>
__device__ __forceinline__ void async_load_two(const T *a, int na, const T *b,
                                               int nb, T *shared) {
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    int idx = threadIdx.x + i * NT;
    if (idx < na)
      async_copy(shared + idx, a + idx);
    else if (idx < na + nb)
      async_copy(shared + idx, b + (idx - na));
  }
}

} // namespace mgpu

#endif
