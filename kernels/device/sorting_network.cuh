/*
 * sorting_network.cuh - a stable in-register sort of one thread's VT keys:
 * odd-even transposition.  It compares only neighbours and swaps only when
 * the right key is strictly first, so equal keys never pass each other.
 */
#ifndef MGPU_SORTING_NETWORK_CUH
#define MGPU_SORTING_NETWORK_CUH

namespace mgpu {

template <typename T> __device__ __forceinline__ void swap_regs(T &x, T &y) {
  T t = x;
  x = y;
  y = t;
}

/* Sorts k[0, valid) with their values; FULL says valid == VT, which lets
 * the compiler drop every range test. */
template <int VT, bool FULL, bool HAS_V, typename K, typename V, typename Comp>
__device__ __forceinline__ void thread_sort(K (&k)[VT], V (&v)[VT], int valid,
                                            Comp comp) {
#pragma unroll
  for (int pass = 0; pass < VT; ++pass) {
#pragma unroll
    for (int i = pass & 1; i + 1 < VT; i += 2) {
      if ((FULL || i + 1 < valid) && comp(k[i + 1], k[i])) {
        swap_regs(k[i], k[i + 1]);
        if (HAS_V) swap_regs(v[i], v[i + 1]);
      }
    }
  }
}

} // namespace mgpu

#endif
