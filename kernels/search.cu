/*
 * search.cu - mgpu_scan and mgpu_reduce on the GPU, over CUB's
 * device-wide scan and reduction; sorted_search is in sorted_search.cu,
 * unique and compact in select.cu.
 */
#include <stdint.h>

#include <cmath>
#include <limits>
#include <type_traits>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include "block/key_order.cuh"
#include "block/reduce_op.cuh"
#include "launch.cuh"

namespace {

using mgpu::reduce_add;
using mgpu::reduce_max;
using mgpu::reduce_min;

template <typename T> mgpu_scalar scalar_of(T v) {
  mgpu_scalar s;
  if constexpr (std::is_floating_point<T>::value)
    s.f = (double)v;
  else
    s.i = (int64_t)v;
  return s;
}

/* The value each reduction starts from.  For float add it is -0.0, the
 * one value v with v + x == x for every x (0.0 + -0.0 is 0.0), so that
 * the sums start from the first element as the cpu backend's do; an
 * exclusive scan's first output is still 0.0 (scan_with). */
template <typename T> T identity(mgpu_reduce_op op) {
  if (op == MGPU_REDUCE_ADD)
    return std::is_floating_point<T>::value ? (T)-0.0 : (T)0;
  if constexpr (std::is_floating_point<T>::value)
    return op == MGPU_REDUCE_MIN ? (T)NAN : (T)-INFINITY;
  else
    return op == MGPU_REDUCE_MIN ? std::numeric_limits<T>::max()
                                 : std::numeric_limits<T>::lowest();
}

/* total = op(x, *last) where x is the exclusive scan's last output */
template <typename T, typename Op>
__global__ void scan_total_kernel(const T *scan_last, const T *src_last,
                                  int inclusive, T *total, Op op) {
  *total = inclusive ? *scan_last : op(*scan_last, *src_last);
}

template <typename T, typename Op>
mgpu_status scan_with(mgpu_context *ctx, mgpu_reduce_args *a, Op op) {
  cudaStream_t s = cuda_of(ctx)->stream;
  const T *src = (const T *)a->src;
  T *dst = (T *)a->dst;
  const size_t n = a->n;
  /* the last input, kept before an in-place scan overwrites it */
  cuda_scratch keep;
  MGPU_TRY(keep.take(ctx, 2 * sizeof(T)));
  T *last = keep.as<T>(), *total = last + 1;
  CUDA_TRY(ctx, cudaMemcpyAsync(last, src + n - 1, sizeof(T),
                                cudaMemcpyDeviceToDevice, s));
  size_t temp_bytes = 0;
  const T init = identity<T>(a->op);
  if (a->inclusive)
    CUDA_TRY(ctx, cub::DeviceScan::InclusiveScan(nullptr, temp_bytes, src, dst,
                                                 op, n, s));
  else
    CUDA_TRY(ctx, cub::DeviceScan::ExclusiveScan(nullptr, temp_bytes, src, dst,
                                                 op, init, n, s));
  cuda_scratch temp;
  MGPU_TRY(temp.take(ctx, temp_bytes ? temp_bytes : 1));
  if (a->inclusive)
    CUDA_TRY(ctx, cub::DeviceScan::InclusiveScan(temp.ptr, temp_bytes, src, dst,
                                                 op, n, s));
  else
    CUDA_TRY(ctx, cub::DeviceScan::ExclusiveScan(temp.ptr, temp_bytes, src, dst,
                                                 op, init, n, s));
  scan_total_kernel<<<1, 1, 0, s>>>((const T *)dst + n - 1, (const T *)last,
                                    a->inclusive, total, op);
  CUDA_LAUNCHED(ctx, "scan total kernel");
  /* after the total, which may read it (n == 1) */
  if (!a->inclusive && std::is_floating_point<T>::value &&
      a->op == MGPU_REDUCE_ADD)
    CUDA_TRY(ctx, cudaMemsetAsync(dst, 0, sizeof(T), s)); /* 0.0, not -0.0 */
  T host = T();
  CUDA_TRY(ctx, cudaMemcpyAsync(&host, total, sizeof(T), cudaMemcpyDeviceToHost, s));
  CUDA_TRY(ctx, cudaStreamSynchronize(s));
  a->total = scalar_of(host);
  return MGPU_OK;
}

template <typename T, typename Op>
mgpu_status reduce_with(mgpu_context *ctx, mgpu_reduce_args *a, Op op) {
  cudaStream_t s = cuda_of(ctx)->stream;
  cuda_scratch out, temp;
  MGPU_TRY(out.take(ctx, sizeof(T)));
  size_t temp_bytes = 0;
  const T init = identity<T>(a->op);
  CUDA_TRY(ctx, cub::DeviceReduce::Reduce(nullptr, temp_bytes, (const T *)a->src,
                                          out.as<T>(), a->n, op, init, s));
  MGPU_TRY(temp.take(ctx, temp_bytes ? temp_bytes : 1));
  CUDA_TRY(ctx, cub::DeviceReduce::Reduce(temp.ptr, temp_bytes, (const T *)a->src,
                                          out.as<T>(), a->n, op, init, s));
  T host = T();
  CUDA_TRY(ctx, cudaMemcpyAsync(&host, out.ptr, sizeof(T), cudaMemcpyDeviceToHost, s));
  CUDA_TRY(ctx, cudaStreamSynchronize(s));
  a->total = scalar_of(host);
  return MGPU_OK;
}

template <typename T>
mgpu_status reduce_typed(mgpu_context *ctx, mgpu_reduce_args *a, bool scan) {
  switch (a->op) {
  case MGPU_REDUCE_ADD:
    return scan ? scan_with<T>(ctx, a, reduce_add<T>())
                : reduce_with<T>(ctx, a, reduce_add<T>());
  case MGPU_REDUCE_MIN:
    return scan ? scan_with<T>(ctx, a, reduce_min<T>())
                : reduce_with<T>(ctx, a, reduce_min<T>());
  case MGPU_REDUCE_MAX:
    return scan ? scan_with<T>(ctx, a, reduce_max<T>())
                : reduce_with<T>(ctx, a, reduce_max<T>());
  }
  return mgpu_set_error(ctx, MGPU_EINVAL, "unknown reduction");
}

mgpu_status reduce_any(mgpu_context *ctx, mgpu_reduce_args *a, bool scan) {
  switch (a->type) {
  case MGPU_I32: return reduce_typed<int32_t>(ctx, a, scan);
  case MGPU_U32: return reduce_typed<uint32_t>(ctx, a, scan);
  case MGPU_I64: return reduce_typed<int64_t>(ctx, a, scan);
  case MGPU_U64: return reduce_typed<uint64_t>(ctx, a, scan);
  case MGPU_F32: return reduce_typed<float>(ctx, a, scan);
  case MGPU_F64: return reduce_typed<double>(ctx, a, scan);
  default: break;
  }
  return mgpu_set_error(ctx, MGPU_EINVAL, "unknown dtype");
}

} // namespace

extern "C" {

mgpu_status mgpu_cuda_scan(mgpu_context *ctx, mgpu_reduce_args *a) {
  return reduce_any(ctx, a, true);
}

mgpu_status mgpu_cuda_reduce(mgpu_context *ctx, mgpu_reduce_args *a) {
  return reduce_any(ctx, a, false);
}

} // extern "C"
