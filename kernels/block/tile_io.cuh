/*
 * tile_io.cuh - cooperative, coalesced moves between global memory and a
 * tile in shared memory.  All VT loads of a thread are issued before the
 * first store, so each thread keeps VT requests in flight.
 */
#ifndef MGPU_TILE_IO_CUH
#define MGPU_TILE_IO_CUH

namespace mgpu {

/* shared[0, na) = a[0, na), shared[na, na + nb) = b[0, nb). */
template <int NT, int VT, typename T>
__device__ __forceinline__ void load_two_to_shared(const T *__restrict__ a,
                                                   int na,
                                                   const T *__restrict__ b,
                                                   int nb, T *shared) {
  const int total = na + nb;
  T r[VT];
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    int idx = threadIdx.x + i * NT;
    const T *p = idx < na ? a + idx : b + (idx - na);
    if (idx < total) r[i] = *p;
  }
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    int idx = threadIdx.x + i * NT;
    if (idx < total) shared[idx] = r[i];
  }
}

template <int NT, int VT, typename T>
__device__ __forceinline__ void load_to_shared(const T *__restrict__ src,
                                               int count, T *shared) {
  T r[VT];
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    int idx = threadIdx.x + i * NT;
    if (idx < count) r[i] = src[idx];
  }
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    int idx = threadIdx.x + i * NT;
    if (idx < count) shared[idx] = r[i];
  }
}

template <int NT, int VT, typename T>
__device__ __forceinline__ void shared_to_global(const T *shared, int count,
                                                 T *__restrict__ dst) {
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    int idx = threadIdx.x + i * NT;
    if (idx < count) dst[idx] = shared[idx];
  }
}

/* Thread-order registers (element VT * tid + i) into shared memory.  With
 * VT odd the stride spreads a warp over all banks. */
template <int VT, typename T>
__device__ __forceinline__ void thread_to_shared(const T (&r)[VT], int count,
                                                 T *shared) {
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    int idx = VT * threadIdx.x + i;
    if (idx < count) shared[idx] = r[i];
  }
}

} // namespace mgpu

#endif
