/*
 * key_order.cuh - the comparators kernels are instantiated with: "a goes
 * strictly before b".  Floats use the library's total order (NaN after
 * every number), shared with the cpu backend through element.h.
 */
#ifndef MGPU_KEY_ORDER_CUH
#define MGPU_KEY_ORDER_CUH

#include "../../src/element.h"

namespace mgpu {

template <typename T> struct ascending {
  __device__ __forceinline__ bool operator()(T a, T b) const { return a < b; }
};
template <> struct ascending<float> {
  __device__ __forceinline__ bool operator()(float a, float b) const {
    return mgpu_f32_less(a, b);
  }
};
template <> struct ascending<double> {
  __device__ __forceinline__ bool operator()(double a, double b) const {
    return mgpu_f64_less(a, b);
  }
};

/* The exact reverse of ascending (so NaN comes first). */
template <typename T> struct descending {
  __device__ __forceinline__ bool operator()(T a, T b) const {
    return ascending<T>()(b, a);
  }
};

/* The order a call asks for (greater: descending's), chosen at run time,
 * so that a kernel is built once per key type, not once per order.  The
 * flag is the same for every thread of a launch: the choice costs a
 * select, not a divergent branch.  Kernels whose time goes into
 * comparisons take ascending or descending instead (dispatch.cuh). */
template <typename T> struct key_order {
  bool greater;
  __device__ __forceinline__ bool operator()(T a, T b) const {
    const T x = greater ? b : a, y = greater ? a : b;
    return ascending<T>()(x, y);
  }
};

/* Integer keys of one width compared as unsigned words after an xor with
 * a mask that is the same for a whole call (sort_mask, dispatch.cuh): the
 * sign bit puts signed words in order, all bits reverse it.  So i32 and
 * u32 in both orders share one instance, for the price of two xors a
 * comparison; where comparisons are the work (the sorts, merge and set
 * walks) that price shows (dispatch.cuh). */
template <typename U> struct bit_order {
  static_assert(U(0) < U(~U(0)), "bit_order compares unsigned words");
  U mask;
  __device__ __forceinline__ bool operator()(U a, U b) const {
    return (a ^ mask) < (b ^ mask);
  }
};
/* Values are only moved: they travel as raw words of their width. */
template <int BYTES> struct value_word;
template <> struct value_word<4> { typedef uint32_t type; };
template <> struct value_word<8> { typedef uint64_t type; };

} // namespace mgpu

#endif
