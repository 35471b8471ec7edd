/*
 * reduce_ops.cuh - the reductions of scan and reduce, in the dtype, each
 * with the value it starts from.  Integer add wraps (through the unsigned
 * type of the width); min and max follow the library's total order (NaN
 * above every number, ties broken by IEEE totalOrder; element.h), so every
 * op is commutative and a tile may combine its predecessors in any order.
 */
#ifndef MGPU_BLOCK_REDUCE_OPS_CUH
#define MGPU_BLOCK_REDUCE_OPS_CUH

#include <stdint.h>
#include <string.h>

#include <cmath>
#include <limits>
#include <type_traits>

#include "block/key_order.cuh"

namespace mgpu {

/* first(): an exclusive scan's first output.  For float add identity() is
 * -0.0, the one value v with v + x == x for every x, so that sums start
 * from the first element as the cpu backend's do, and the first output is
 * still 0.0. */
template <typename T> struct reduce_add {
  __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (std::is_floating_point<T>::value) {
      return a + b;
    } else {
      typedef typename std::make_unsigned<T>::type U;
      return (T)((U)a + (U)b);
    }
  }
  static __device__ __forceinline__ T identity() {
    return std::is_floating_point<T>::value ? (T)-0.0 : (T)0;
  }
  static __device__ __forceinline__ T first() { return (T)0; }
};

template <typename T> struct reduce_min {
  __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (std::is_same<T, float>::value) return mgpu_f32_min(a, b);
    else if constexpr (std::is_same<T, double>::value) return mgpu_f64_min(a, b);
    else return b < a ? b : a;
  }
  static __device__ __forceinline__ T identity() {
    if constexpr (std::is_floating_point<T>::value) return (T)NAN;
    else return std::numeric_limits<T>::max();
  }
  static __device__ __forceinline__ T first() { return identity(); }
};

template <typename T> struct reduce_max {
  __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (std::is_same<T, float>::value) return mgpu_f32_max(a, b);
    else if constexpr (std::is_same<T, double>::value) return mgpu_f64_max(a, b);
    else return a < b ? b : a;
  }
  static __device__ __forceinline__ T identity() {
    if constexpr (std::is_floating_point<T>::value) return (T)-INFINITY;
    else return std::numeric_limits<T>::lowest();
  }
  static __device__ __forceinline__ T first() { return identity(); }
};

/* A value of 4 or 8 bytes as the 64-bit word the look-back and the pinned
 * word carry, and back. */
template <typename T> __host__ __device__ __forceinline__ unsigned long long
bits_of(T v) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "4- or 8-byte values");
  if constexpr (sizeof(T) == 4) {
    uint32_t u;
    memcpy(&u, &v, 4);
    return u;
  } else {
    unsigned long long u;
    memcpy(&u, &v, 8);
    return u;
  }
}
template <typename T> __host__ __device__ __forceinline__ T
value_of_bits(unsigned long long b) {
  T v;
  if constexpr (sizeof(T) == 4) {
    const uint32_t u = (uint32_t)b;
    memcpy(&v, &u, 4);
  } else {
    memcpy(&v, &b, 8);
  }
  return v;
}

} // namespace mgpu

#endif
