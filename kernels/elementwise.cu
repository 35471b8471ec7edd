/*
 * elementwise.cu - fill, iota, random, astype and is_sorted on the GPU.
 * Each element is computed by the same rules as the cpu backend
 * (src/element.h), so both give the same bits.
 */
#include <stdint.h>

#include "dispatch.cuh"
#include "launch.cuh"
#include "block/key_order.cuh"

namespace {

using mgpu::kStrideThreads;
using mgpu::stride_grid;

template <typename W> __global__ void fill_kernel(W *dst, size_t n, W v) {
  GRID_STRIDE(i, n) dst[i] = v;
}

/* Integer dtypes take the low bits of a 64-bit pattern (wrapping). */
template <typename T> __device__ __forceinline__ T from_bits(uint64_t v) {
  return (T)v;
}
template <> __device__ __forceinline__ int32_t from_bits<int32_t>(uint64_t v) {
  return (int32_t)(uint32_t)v;
}

template <typename T>
__global__ void iota_int_kernel(T *dst, size_t n, uint64_t start, uint64_t step) {
  GRID_STRIDE(i, n) dst[i] = from_bits<T>(start + (uint64_t)i * step);
}

template <typename T>
__global__ void iota_real_kernel(T *dst, size_t n, double start, double step) {
  /* no FMA: the host computes start + i * step with two roundings */
  GRID_STRIDE(i, n) dst[i] = (T)__dadd_rn(start, __dmul_rn((double)i, step));
}

template <typename T>
__global__ void random_int_kernel(T *dst, size_t n, uint64_t lo, uint64_t hi,
                                  uint64_t seed) {
  GRID_STRIDE(i, n)
  dst[i] = from_bits<T>(mgpu_random_int(mgpu_random_bits(seed, i), lo, hi));
}

__global__ void random_f32_kernel(float *dst, size_t n, double lo, double hi,
                                  uint64_t seed) {
  GRID_STRIDE(i, n) dst[i] = mgpu_random_f32(mgpu_random_bits(seed, i), lo, hi);
}

__global__ void random_f64_kernel(double *dst, size_t n, double lo, double hi,
                                  uint64_t seed) {
  GRID_STRIDE(i, n) dst[i] = mgpu_random_real(mgpu_random_bits(seed, i), lo, hi);
}

/* ---- astype: the conversions of element.h, one kernel per pair ---------- */

template <typename T> struct is_real { static constexpr bool value = false; };
template <> struct is_real<float> { static constexpr bool value = true; };
template <> struct is_real<double> { static constexpr bool value = true; };

template <typename D> __device__ __forceinline__ D real_to(double x);
template <> __device__ __forceinline__ int32_t real_to<int32_t>(double x) { return mgpu_f2i32(x); }
template <> __device__ __forceinline__ uint32_t real_to<uint32_t>(double x) { return mgpu_f2u32(x); }
template <> __device__ __forceinline__ int64_t real_to<int64_t>(double x) { return mgpu_f2i64(x); }
template <> __device__ __forceinline__ uint64_t real_to<uint64_t>(double x) { return mgpu_f2u64(x); }
template <> __device__ __forceinline__ float real_to<float>(double x) { return (float)x; }
template <> __device__ __forceinline__ double real_to<double>(double x) { return x; }

template <typename D, typename S> __device__ __forceinline__ D convert(S x) {
  if constexpr (is_real<S>::value) {
    return real_to<D>((double)x);
  } else if constexpr (is_real<D>::value) {
    /* straight from the integer: one rounding, as on the host */
    return (D)x;
  } else {
    /* integer to integer: through the sign- or zero-extended 64-bit value */
    uint64_t bits = (S)-1 < (S)0 ? (uint64_t)(int64_t)x : (uint64_t)x;
    return from_bits<D>(bits);
  }
}

template <typename D, typename S>
__device__ __forceinline__ void astype_range(D *dst, const S *src, size_t n) {
  GRID_STRIDE(i, n) dst[i] = convert<D>(src[i]);
}

/* One kernel a destination type: the source type is the same for every
 * thread, so choosing it costs one uniform branch, and 6 kernels do the
 * work of 36 (a memory-bound copy either way). */
template <typename D>
__global__ void astype_kernel(D *dst, const void *src, mgpu_dtype st, size_t n) {
  switch (st) {
  case MGPU_I32: astype_range(dst, (const int32_t *)src, n); break;
  case MGPU_U32: astype_range(dst, (const uint32_t *)src, n); break;
  case MGPU_I64: astype_range(dst, (const int64_t *)src, n); break;
  case MGPU_U64: astype_range(dst, (const uint64_t *)src, n); break;
  case MGPU_F32: astype_range(dst, (const float *)src, n); break;
  case MGPU_F64: astype_range(dst, (const double *)src, n); break;
  default: break;
  }
}

template <typename T, typename Comp>
__global__ void unsorted_kernel(const T *a, size_t n, int *found, Comp comp) {
  GRID_STRIDE(i, n - 1) {
    if (comp(a[i + 1], a[i])) {
      *found = 1;
      return;
    }
  }
}

template <typename D>
mgpu_status astype_from(mgpu_context *ctx, D *dst, const void *src,
                        mgpu_dtype st, size_t n) {
  cudaStream_t s = cuda_of(ctx)->stream;
  unsigned g = stride_grid(ctx, n);
  switch (st) {
  case MGPU_I32: case MGPU_U32: case MGPU_I64:
  case MGPU_U64: case MGPU_F32: case MGPU_F64:
    astype_kernel<<<g, kStrideThreads, 0, s>>>(dst, src, st, n);
    break;
  default: return mgpu_set_error(ctx, MGPU_EINVAL, "unknown dtype");
  }
  CUDA_LAUNCHED(ctx, "astype kernel");
  return MGPU_OK;
}

template <typename T, typename Order>
mgpu_status is_sorted_typed(mgpu_context *ctx, const void *src, size_t n,
                            Order order, int *sorted) {
  cudaStream_t s = cuda_of(ctx)->stream;
  cuda_scratch flag;
  MGPU_TRY(flag.take(ctx, sizeof(int)));
  CUDA_TRY(ctx, cudaMemsetAsync(flag.ptr, 0, sizeof(int), s));
  unsigned g = stride_grid(ctx, n - 1);
  unsorted_kernel<<<g, kStrideThreads, 0, s>>>(
      (const T *)src, n, flag.as<int>(), order);
  CUDA_LAUNCHED(ctx, "is_sorted kernel");
  int found = 0;
  CUDA_TRY(ctx, cudaMemcpyAsync(&found, flag.ptr, sizeof found,
                                cudaMemcpyDeviceToHost, s));
  CUDA_TRY(ctx, cudaStreamSynchronize(s));
  *sorted = !found;
  return MGPU_OK;
}

} // namespace

extern "C" mgpu_status mgpu_cuda_fill(mgpu_context *ctx, mgpu_fill_args *a) {
  void *dst = a->dst;
  size_t n = a->n, width = a->width;
  const void *value = a->value;
  MGPU_TRY(cuda_enter(ctx));
  cudaStream_t s = cuda_of(ctx)->stream;
  unsigned g = stride_grid(ctx, n);
  if (width == 4)
    fill_kernel<<<g, kStrideThreads, 0, s>>>((uint32_t *)dst, n, *(const uint32_t *)value);
  else
    fill_kernel<<<g, kStrideThreads, 0, s>>>((uint64_t *)dst, n, *(const uint64_t *)value);
  CUDA_LAUNCHED(ctx, "fill kernel");
  return MGPU_OK;
}

extern "C" mgpu_status mgpu_cuda_iota(mgpu_context *ctx, mgpu_iota_args *a) {
  void *dst = a->dst;
  size_t n = a->n;
  mgpu_dtype t = a->type;
  mgpu_scalar start = a->start, step = a->step;
  MGPU_TRY(cuda_enter(ctx));
  cudaStream_t s = cuda_of(ctx)->stream;
  unsigned g = stride_grid(ctx, n);
  uint64_t s0 = (uint64_t)start.i, d = (uint64_t)step.i;
  switch (t) {
  case MGPU_I32: iota_int_kernel<<<g, kStrideThreads, 0, s>>>((int32_t *)dst, n, s0, d); break;
  case MGPU_U32: iota_int_kernel<<<g, kStrideThreads, 0, s>>>((uint32_t *)dst, n, s0, d); break;
  case MGPU_I64: iota_int_kernel<<<g, kStrideThreads, 0, s>>>((int64_t *)dst, n, s0, d); break;
  case MGPU_U64: iota_int_kernel<<<g, kStrideThreads, 0, s>>>((uint64_t *)dst, n, s0, d); break;
  case MGPU_F32: iota_real_kernel<<<g, kStrideThreads, 0, s>>>((float *)dst, n, start.f, step.f); break;
  case MGPU_F64: iota_real_kernel<<<g, kStrideThreads, 0, s>>>((double *)dst, n, start.f, step.f); break;
  default: return mgpu_set_error(ctx, MGPU_EINVAL, "unknown dtype");
  }
  CUDA_LAUNCHED(ctx, "iota kernel");
  return MGPU_OK;
}

extern "C" mgpu_status mgpu_cuda_random(mgpu_context *ctx, mgpu_random_args *a) {
  void *dst = a->dst;
  size_t n = a->n;
  mgpu_dtype t = a->type;
  mgpu_scalar lo = a->lo, hi = a->hi;
  uint64_t seed = a->seed;
  MGPU_TRY(cuda_enter(ctx));
  cudaStream_t s = cuda_of(ctx)->stream;
  unsigned g = stride_grid(ctx, n);
  uint64_t l = (uint64_t)lo.i, h = (uint64_t)hi.i;
  switch (t) {
  case MGPU_I32: random_int_kernel<<<g, kStrideThreads, 0, s>>>((int32_t *)dst, n, l, h, seed); break;
  case MGPU_U32: random_int_kernel<<<g, kStrideThreads, 0, s>>>((uint32_t *)dst, n, l, h, seed); break;
  case MGPU_I64: random_int_kernel<<<g, kStrideThreads, 0, s>>>((int64_t *)dst, n, l, h, seed); break;
  case MGPU_U64: random_int_kernel<<<g, kStrideThreads, 0, s>>>((uint64_t *)dst, n, l, h, seed); break;
  case MGPU_F32: random_f32_kernel<<<g, kStrideThreads, 0, s>>>((float *)dst, n, lo.f, hi.f, seed); break;
  case MGPU_F64: random_f64_kernel<<<g, kStrideThreads, 0, s>>>((double *)dst, n, lo.f, hi.f, seed); break;
  default: return mgpu_set_error(ctx, MGPU_EINVAL, "unknown dtype");
  }
  CUDA_LAUNCHED(ctx, "random kernel");
  return MGPU_OK;
}

extern "C" mgpu_status mgpu_cuda_astype(mgpu_context *ctx, mgpu_astype_args *a) {
  void *dst = a->dst;
  const void *src = a->src;
  mgpu_dtype dt = a->dst_type, st = a->src_type;
  size_t n = a->n;
  MGPU_TRY(cuda_enter(ctx));
  switch (dt) {
  case MGPU_I32: return astype_from(ctx, (int32_t *)dst, src, st, n);
  case MGPU_U32: return astype_from(ctx, (uint32_t *)dst, src, st, n);
  case MGPU_I64: return astype_from(ctx, (int64_t *)dst, src, st, n);
  case MGPU_U64: return astype_from(ctx, (uint64_t *)dst, src, st, n);
  case MGPU_F32: return astype_from(ctx, (float *)dst, src, st, n);
  case MGPU_F64: return astype_from(ctx, (double *)dst, src, st, n);
  default: return mgpu_set_error(ctx, MGPU_EINVAL, "unknown dtype");
  }
}

extern "C" mgpu_status mgpu_cuda_is_sorted(mgpu_context *ctx,
                                           mgpu_is_sorted_args *a) {
  const void *src = a->src;
  size_t n = a->n;
  mgpu_dtype t = a->type;
  mgpu_order order = a->order;
  int *sorted = &a->sorted;
  MGPU_TRY(cuda_enter(ctx));
  switch (t) {
  /* integer keys as unsigned words of their width (bit_order) */
  case MGPU_I32:
  case MGPU_U32:
    return is_sorted_typed<uint32_t>(
        ctx, src, n, mgpu::bit_order<uint32_t>{mgpu::sort_mask<uint32_t>(t, order)},
        sorted);
  case MGPU_I64:
  case MGPU_U64:
    return is_sorted_typed<uint64_t>(
        ctx, src, n, mgpu::bit_order<uint64_t>{mgpu::sort_mask<uint64_t>(t, order)},
        sorted);
  case MGPU_F32:
    return is_sorted_typed<float>(ctx, src, n,
                                  mgpu::key_order<float>{order == MGPU_GREATER}, sorted);
  case MGPU_F64:
    return is_sorted_typed<double>(ctx, src, n,
                                   mgpu::key_order<double>{order == MGPU_GREATER},
                                   sorted);
  default: return mgpu_set_error(ctx, MGPU_EINVAL, "unknown dtype");
  }
}
