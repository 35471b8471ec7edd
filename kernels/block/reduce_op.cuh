/*
 * reduce_op.cuh - the reductions' combining steps on the device (scan and
 * reduce in search.cu, the keyed reductions in keyed.cu), the same as the
 * cpu backend's (src/cpu/cpu.h).
 */
#ifndef MGPU_REDUCE_OP_CUH
#define MGPU_REDUCE_OP_CUH

#include <stdint.h>

#include "../../src/element.h"

namespace mgpu {

/* The reductions, in the dtype: integer add wraps (through the unsigned
 * type of the width), min and max by the library's total order (NaN above
 * every number) with its ties broken by IEEE totalOrder (element.h):
 * commutative, as cub::DeviceReduce requires. */
template <typename T> struct reduce_add {
  __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};
template <> struct reduce_add<int32_t> {
  __device__ __forceinline__ int32_t operator()(int32_t a, int32_t b) const {
    return (int32_t)((uint32_t)a + (uint32_t)b);
  }
};
template <> struct reduce_add<int64_t> {
  __device__ __forceinline__ int64_t operator()(int64_t a, int64_t b) const {
    return (int64_t)((uint64_t)a + (uint64_t)b);
  }
};
template <typename T> struct reduce_min {
  __device__ __forceinline__ T operator()(T a, T b) const { return b < a ? b : a; }
};
template <typename T> struct reduce_max {
  __device__ __forceinline__ T operator()(T a, T b) const { return a < b ? b : a; }
};
template <> struct reduce_min<float> {
  __device__ __forceinline__ float operator()(float a, float b) const {
    return mgpu_f32_min(a, b);
  }
};
template <> struct reduce_max<float> {
  __device__ __forceinline__ float operator()(float a, float b) const {
    return mgpu_f32_max(a, b);
  }
};
template <> struct reduce_min<double> {
  __device__ __forceinline__ double operator()(double a, double b) const {
    return mgpu_f64_min(a, b);
  }
};
template <> struct reduce_max<double> {
  __device__ __forceinline__ double operator()(double a, double b) const {
    return mgpu_f64_max(a, b);
  }
};

} // namespace mgpu

#endif
