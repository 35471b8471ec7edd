/*
 * sorting_network.cuh - in-register sorts of one thread's VT keys, with
 * walls: bit i of `walls` set means no key may cross into or out of
 * position i from below (a segment starts there, or i is past the
 * thread's valid keys), so one network serves plain and segmented sorts.
 *
 * Two networks:
 *  - odd-even transposition: compares only neighbours and swaps only when
 *    the right key is strictly first, so equal keys never pass each other
 *    (stable); VT (VT - 1) / 2 comparators.
 *  - Batcher's merge exchange (Knuth, TAOCP 5.2.2, Algorithm M): about
 *    half the comparators (122 instead of 253 at VT = 23) but not stable,
 *    so it is used only where stability cannot be observed: keys without
 *    values whose equal keys are identical (integers; floats are not: -0
 *    and +0, or two NaNs, compare equal).
 * Walls are exact for any network: read the keys as (segment, key) pairs;
 * the segments are already in order, so a comparator of positions i < j
 * never swaps unless both hold the same segment, which is the case when no
 * wall lies in (i, j].  Every comparator is then one mask test more than
 * the plain one, and the segments never move.
 */
#ifndef MGPU_SORTING_NETWORK_CUH
#define MGPU_SORTING_NETWORK_CUH

#include <type_traits>

namespace mgpu {

template <typename T> __device__ __forceinline__ void swap_regs(T &x, T &y) {
  T t = x;
  x = y;
  y = t;
}

/* The walls of a thread holding `valid` keys (no segments): every position
 * at or past valid. */
template <int VT> __device__ __forceinline__ unsigned tail_walls(int valid) {
  static_assert(VT < 32, "walls are one 32-bit word");
  return valid >= VT ? 0u : ~0u << (valid > 0 ? valid : 0);
}

/* Positions i + 1 ... j as a mask. */
__host__ __device__ constexpr unsigned wall_span(int i, int j) {
  return ((1u << (j - i)) - 1u) << (i + 1);
}

template <int VT, bool HAS_V, typename K, typename V, typename Comp>
__device__ __forceinline__ void transposition_sort(K (&k)[VT], V (&v)[VT],
                                                   unsigned walls, Comp comp) {
#pragma unroll
  for (int pass = 0; pass < VT; ++pass) {
#pragma unroll
    for (int i = pass & 1; i + 1 < VT; i += 2) {
      if (!(walls & wall_span(i, i + 1)) && comp(k[i + 1], k[i])) {
        swap_regs(k[i], k[i + 1]);
        if (HAS_V) swap_regs(v[i], v[i + 1]);
      }
    }
  }
}

/* One round of Algorithm M: compare i with i + d for every i with
 * (i & p) == r. */
template <int VT, int P, int R, int D, typename K, typename Comp>
__device__ __forceinline__ void merge_exchange_round(K (&k)[VT], unsigned walls,
                                                     Comp comp) {
#pragma unroll
  for (int i = 0; i + D < VT; ++i) {
    if ((i & P) == R && !(walls & wall_span(i, i + D)) &&
        comp(k[i + D], k[i]))
      swap_regs(k[i], k[i + D]);
  }
}

template <int VT, int P, int Q, typename K, typename Comp>
__device__ __forceinline__ void merge_exchange_q(K (&k)[VT], unsigned walls,
                                                 Comp comp) {
  if constexpr (Q > P) {
    merge_exchange_round<VT, P, P, Q - P>(k, walls, comp);
    merge_exchange_q<VT, P, Q / 2>(k, walls, comp);
  }
}

template <int VT, int T, int P, typename K, typename Comp>
__device__ __forceinline__ void merge_exchange_p(K (&k)[VT], unsigned walls,
                                                 Comp comp) {
  if constexpr (P > 0) {
    merge_exchange_round<VT, P, 0, P>(k, walls, comp);
    merge_exchange_q<VT, P, T>(k, walls, comp);
    merge_exchange_p<VT, T, P / 2>(k, walls, comp);
  }
}

/* The largest power of two below n (n >= 2). */
__host__ __device__ constexpr int top_power_below(int n) {
  return n <= 2 ? 1 : 2 * top_power_below((n + 1) / 2);
}

/* Sorts k[0, VT) (with their values) between walls: stable unless the
 * keys alone travel and their equal keys are identical. */
template <int VT, bool HAS_V, typename K, typename V, typename Comp>
__device__ __forceinline__ void thread_sort(K (&k)[VT], V (&v)[VT],
                                            unsigned walls, Comp comp) {
  if constexpr (!HAS_V && std::is_integral<K>::value && VT > 2) {
    constexpr int T = top_power_below(VT); /* 2^(t-1), 2^t >= VT */
    merge_exchange_p<VT, T, T>(k, walls, comp);
  } else {
    transposition_sort<VT, HAS_V>(k, v, walls, comp);
  }
}

} // namespace mgpu

#endif
