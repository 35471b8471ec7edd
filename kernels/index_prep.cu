/*
 * index_prep.cu - the checks and conversions that turn a caller's 1-based
 * indices, positions, counts and interval starts into 0-based int32 or
 * int64 arrays (the same rules as src/cpu/cpu_indices.c).  The index
 * arrays' element type is a template parameter (D for what a kernel
 * writes, S for the scan prepare_starts reads): these are element-wise
 * kernels over size_t, and an instance a dtype keeps the int32 ones as they
 * were.  Each reports the first
 * offending position: threads that find a violation race to an atomicMin.
 */
#include <stdint.h>

#include <type_traits>

#include <cub/device/device_scan.cuh>
#include <thrust/iterator/tabulate_output_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "launch.cuh"

namespace {

using mgpu::kStrideThreads;
using mgpu::stride_grid;

constexpr unsigned long long kNone = ~0ull;

/* An index element as int64; u64 past INT64_MAX reads as INT64_MAX. */
template <typename T> __host__ __device__ __forceinline__ int64_t index_value(T v) {
  return (int64_t)v;
}
template <>
__host__ __device__ __forceinline__ int64_t index_value<uint64_t>(uint64_t v) {
  return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* What a check kernel leaves for the host. */
struct check_result {
  unsigned long long bad; /* first offending position, kNone if none */
  long long total;        /* scan_counts: the sum */
  unsigned long long max_end;
};

template <typename T, typename D>
__global__ void positions_kernel(const T *src, size_t m, int64_t lo, int64_t hi,
                                 int unique, D *dst, check_result *res) {
  GRID_STRIDE(i, m) {
    const int64_t v = index_value(src[i]);
    bool ok = v >= lo && v <= hi;
    if (i > 0) {
      const int64_t p = index_value(src[i - 1]);
      ok = ok && (unique ? p < v : p <= v);
    }
    if (ok) /* unsigned: v may be INT64_MIN when lo is */
      dst[i] = (D)((uint64_t)v - 1);
    else
      atomicMin(&res->bad, (unsigned long long)i);
  }
}

/* Counts enter an int32 scan as uint32 capped at 2^31 (negatives as 0),
 * and the scan adds with saturation at 2^32 - 1 (associative for unsigned
 * values): one pass, 4 bytes written per count, and any total past the
 * limit stays visibly past it.  An int64 scan takes them as uint64 capped
 * at 2^62 and stops its sums there, as the cpu backend does: past every
 * backend's limit, and two capped values add up without overflow.
 * Negatives only raise a flag here; the rare error path then looks for
 * the first one. */
constexpr uint64_t kSumCap = uint64_t(1) << 62;
template <typename U> struct count_cap;
template <> struct count_cap<uint32_t> {
  static constexpr uint64_t count = uint64_t(1) << 31;
};
template <> struct count_cap<uint64_t> {
  static constexpr uint64_t count = kSumCap;
};

template <typename T, typename U> struct capped_count {
  unsigned int *negative;
  __device__ __forceinline__ U operator()(T c) const {
    const int64_t v = index_value(c);
    if (v < 0) *negative = 1;
    constexpr int64_t cap = (int64_t)count_cap<U>::count;
    return v < 0 ? U(0) : (v < cap ? (U)v : (U)cap);
  }
};

template <typename U> struct saturating_add;
template <> struct saturating_add<uint32_t> {
  __device__ __forceinline__ uint32_t operator()(uint32_t a, uint32_t b) const {
    const uint32_t s = a + b;
    return s < a ? 0xffffffffu : s;
  }
};
template <> struct saturating_add<uint64_t> {
  __device__ __forceinline__ uint64_t operator()(uint64_t a, uint64_t b) const {
    const uint64_t s = a + b; /* both at most 2^62 */
    return s < kSumCap ? s : kSumCap;
  }
};

template <typename T, typename U>
__global__ void scan_total_kernel(const T *counts, const U *scan, size_t m,
                                  check_result *res) {
  /* one thread: the total from the last exclusive sum and the last count */
  unsigned int ignored = 0;
  if constexpr (sizeof(U) == 4)
    res->total = (long long)scan[m - 1] +
                 (long long)capped_count<T, U>{&ignored}(counts[m - 1]);
  else
    res->total = (long long)saturating_add<U>()(
        scan[m - 1], capped_count<T, U>{&ignored}(counts[m - 1]));
}

template <typename T>
__global__ void first_negative_kernel(const T *counts, size_t m,
                                      check_result *res) {
  GRID_STRIDE(i, m) {
    if (index_value(counts[i]) < 0) atomicMin(&res->bad, (unsigned long long)i);
  }
}

/* The exact (capped) sum, for the message of a total past the limit. */
template <typename T>
__global__ void exact_total_kernel(const T *counts, size_t m, check_result *res) {
  long long sum = 0;
  GRID_STRIDE(i, m) {
    const int64_t v = index_value(counts[i]);
    sum += v < 0 ? 0 : (v < (int64_t(1) << 31) ? v : (int64_t(1) << 31));
  }
  atomicAdd((unsigned long long *)&res->total, (unsigned long long)sum);
}

template <typename T, typename S, typename D>
__global__ void starts_kernel(const T *starts, const S *scan, size_t m,
                              int64_t total, int64_t cap, D *dst,
                              check_result *res) {
  GRID_STRIDE(i, m) {
    const int64_t s = index_value(starts[i]);
    const int64_t count = (i + 1 < m ? (int64_t)scan[i + 1] : total) - scan[i];
    /* s <= cap + 1 and s - 1 + count <= cap without the sums, which
     * overflow next to INT64_MAX (cpu_indices.c) */
    const bool ok = s >= 1 && s - 1 <= cap && count <= cap - (s - 1);
    if (!ok) {
      atomicMin(&res->bad, (unsigned long long)i);
      continue;
    }
    dst[i] = (D)(s - 1);
    if (count > 0) atomicMax(&res->max_end, (unsigned long long)(s - 1 + count));
  }
}

/* Runs launch(result) with a fresh result block and brings it back. */
template <typename F>
mgpu_status with_result(mgpu_context *ctx, check_result *out, F launch) {
  cudaStream_t s = cuda_of(ctx)->stream;
  cuda_scratch res;
  MGPU_TRY(res.take(ctx, sizeof(check_result)));
  const check_result init = {kNone, 0, 0};
  CUDA_TRY(ctx, cudaMemcpyAsync(res.ptr, &init, sizeof init,
                                cudaMemcpyHostToDevice, s));
  MGPU_TRY(launch(res.as<check_result>()));
  CUDA_LAUNCHED(ctx, "index check kernel");
  CUDA_TRY(ctx, cudaMemcpyAsync(out, res.ptr, sizeof *out,
                                cudaMemcpyDeviceToHost, s));
  CUDA_TRY(ctx, cudaStreamSynchronize(s));
  return MGPU_OK;
}

/* The value at a reported position, for the caller's message. */
template <typename T>
mgpu_status value_at(mgpu_context *ctx, const void *src, size_t i, int64_t *v) {
  T x;
  MGPU_TRY(mgpu_download(ctx, &x, (const T *)src + i, sizeof x));
  *v = index_value(x);
  return MGPU_OK;
}

template <typename T>
mgpu_status report(mgpu_context *ctx, const check_result &r, const void *src,
                   int64_t *bad, int64_t *bad_value) {
  if (r.bad == kNone) return MGPU_OK;
  *bad = (int64_t)r.bad;
  return value_at<T>(ctx, src, (size_t)r.bad, bad_value);
}

template <typename T, typename D>
mgpu_status prepare_positions_t(mgpu_context *ctx, const void *src, size_t m,
                                int64_t lo, int64_t hi, int unique, void *dst,
                                int64_t *bad, int64_t *bad_value) {
  check_result r;
  MGPU_TRY(with_result(ctx, &r, [&](check_result *res) {
    positions_kernel<<<stride_grid(ctx, m), kStrideThreads, 0, cuda_of(ctx)->stream>>>(
        (const T *)src, m, lo, hi, unique, (D *)dst, res);
    return MGPU_OK;
  }));
  return report<T>(ctx, r, src, bad, bad_value);
}

/* U: uint32_t for an int32 scan, uint64_t for an int64 one. */
template <typename T, typename U>
mgpu_status scan_counts_t(mgpu_context *ctx, const void *counts, size_t m,
                          void *scan, int64_t *total, int64_t *bad,
                          int64_t *bad_value) {
  cudaStream_t s = cuda_of(ctx)->stream;
  cuda_scratch flag, temp;
  MGPU_TRY(flag.take(ctx, sizeof(unsigned int)));
  CUDA_TRY(ctx, cudaMemsetAsync(flag.ptr, 0, sizeof(unsigned int), s));
  auto in = thrust::make_transform_iterator(
      (const T *)counts, capped_count<T, U>{flag.as<unsigned int>()});
  U *out = reinterpret_cast<U *>(scan); /* valid sums fit the signed type */
  size_t temp_bytes = 0;
  CUDA_TRY(ctx, cub::DeviceScan::ExclusiveScan(nullptr, temp_bytes, in, out,
                                               saturating_add<U>(), U(0), m, s));
  MGPU_TRY(temp.take(ctx, temp_bytes));
  check_result r;
  unsigned int negative = 0;
  MGPU_TRY(with_result(ctx, &r, [&](check_result *res) {
    CUDA_TRY(ctx, cub::DeviceScan::ExclusiveScan(temp.ptr, temp_bytes, in, out,
                                                 saturating_add<U>(), U(0), m,
                                                 s));
    scan_total_kernel<<<1, 1, 0, s>>>((const T *)counts, out, m, res);
    CUDA_TRY(ctx, cudaMemcpyAsync(&negative, flag.ptr, sizeof negative,
                                  cudaMemcpyDeviceToHost, s));
    return MGPU_OK;
  }));
  *total = r.total;
  if (negative) {
    MGPU_TRY(with_result(ctx, &r, [&](check_result *res) {
      first_negative_kernel<<<stride_grid(ctx, m), kStrideThreads, 0, s>>>(
          (const T *)counts, m, res);
      return MGPU_OK;
    }));
    return report<T>(ctx, r, counts, bad, bad_value);
  }
  /* an int32 scan's total past its limit: the exact (capped) sum for the
   * message; an int64 one's is exact up to 2^62 already */
  if (sizeof(U) == 4 && *total > (int64_t)MGPU_MAX_COUNT) {
    MGPU_TRY(with_result(ctx, &r, [&](check_result *res) {
      exact_total_kernel<<<stride_grid(ctx, m), kStrideThreads, 0, s>>>(
          (const T *)counts, m, res);
      return MGPU_OK;
    }));
    *total = r.total;
  }
  return MGPU_OK;
}

/* A wrapped scan (mgpu.h) adds the counts, capped at 2^32 - 1, modulo
 * 2^32: the int32 scan's tiles and traffic.  Start k passed a multiple of
 * 2^32 since start k - 1 (once at most, the count being below 2^32)
 * exactly when its low word is below count k - 1; whoever writes start k
 * sees that and records k.  Wraps are rare (one per 2^32 of the sum), so
 * an atomic slot each and a sort on the host cost nothing.  The count read
 * back was just read by the scan, from the same tile. */
constexpr uint64_t kWrapCountCap = (uint64_t(1) << 32) - 1;

template <typename T> __device__ __forceinline__ uint32_t wrap_count(T c) {
  const int64_t v = index_value(c);
  return v < 0 ? 0u : ((uint64_t)v < kWrapCountCap ? (uint32_t)v : 0xffffffffu);
}

struct wrap_result {
  unsigned long long wraps; /* starts that passed a multiple of 2^32 */
  unsigned int last, last_count; /* start m - 1's low word and count */
  long long at[MGPU_MAX_WRAPS];  /* the first MGPU_MAX_WRAPS of them, any order */
};

enum { kNegativeCount = 1, kWideCount = 2 };

template <typename T> struct wrapped_count {
  unsigned int *flags;
  __device__ __forceinline__ uint32_t operator()(T c) const {
    const int64_t v = index_value(c);
    if (v < 0) atomicOr(flags, (unsigned int)kNegativeCount);
    else if ((uint64_t)v > kWrapCountCap) atomicOr(flags, (unsigned int)kWideCount);
    return wrap_count(c);
  }
};

struct wrapping_add {
  __device__ __forceinline__ uint32_t operator()(uint32_t a, uint32_t b) const {
    return a + b;
  }
};

template <typename T> struct wrapped_store {
  uint32_t *scan;
  const T *counts;
  size_t m;
  wrap_result *res;
  __device__ __forceinline__ void operator()(ptrdiff_t k, uint32_t start) const {
    scan[k] = start;
    if (k > 0 && start < wrap_count(counts[k - 1])) {
      const unsigned long long w = atomicAdd(&res->wraps, 1ull);
      if (w < MGPU_MAX_WRAPS) res->at[w] = k;
    }
    if ((size_t)k == m - 1) {
      res->last = start;
      res->last_count = wrap_count(counts[k]);
    }
  }
};

template <typename T>
mgpu_status scan_wrapped_t(mgpu_context *ctx, mgpu_scan_args *a) {
  cudaStream_t s = cuda_of(ctx)->stream;
  const size_t m = a->m;
  cuda_scratch flag, res, temp;
  MGPU_TRY(flag.take(ctx, sizeof(unsigned int)));
  MGPU_TRY(res.take(ctx, sizeof(wrap_result)));
  CUDA_TRY(ctx, cudaMemsetAsync(flag.ptr, 0, sizeof(unsigned int), s));
  CUDA_TRY(ctx, cudaMemsetAsync(res.ptr, 0, sizeof(wrap_result), s));
  auto in = thrust::make_transform_iterator(
      (const T *)a->counts, wrapped_count<T>{flag.as<unsigned int>()});
  auto out = thrust::make_tabulate_output_iterator(wrapped_store<T>{
      (uint32_t *)a->scan, (const T *)a->counts, m, res.as<wrap_result>()});
  size_t temp_bytes = 0;
  CUDA_TRY(ctx, cub::DeviceScan::ExclusiveScan(nullptr, temp_bytes, in, out,
                                               wrapping_add(), uint32_t(0), m,
                                               s));
  MGPU_TRY(temp.take(ctx, temp_bytes));
  CUDA_TRY(ctx, cub::DeviceScan::ExclusiveScan(temp.ptr, temp_bytes, in, out,
                                               wrapping_add(), uint32_t(0), m,
                                               s));
  CUDA_LAUNCHED(ctx, "wrapped scan");
  wrap_result r;
  unsigned int flags = 0;
  CUDA_TRY(ctx, cudaMemcpyAsync(&r, res.ptr, sizeof r, cudaMemcpyDeviceToHost, s));
  CUDA_TRY(ctx, cudaMemcpyAsync(&flags, flag.ptr, sizeof flags,
                                cudaMemcpyDeviceToHost, s));
  CUDA_TRY(ctx, cudaStreamSynchronize(s));
  /* the total: the last start and count, and a 2^32 for each wrap, the
   * last count's included; capped as the int64 scan caps it */
  const uint32_t lo = r.last + r.last_count;
  const uint64_t hi = r.wraps + (lo < r.last_count ? 1 : 0);
  a->total = hi >= (kSumCap >> 32) ? (int64_t)kSumCap
                                   : (int64_t)((hi << 32) + lo);
  a->wide_count = (flags & kWideCount) != 0;
  a->wraps.n = (int)(r.wraps < 0x7fffffffu ? r.wraps : 0x7fffffffu);
  const int kept = a->wraps.n < MGPU_MAX_WRAPS ? a->wraps.n : MGPU_MAX_WRAPS;
  for (int w = 0; w < kept; ++w) { /* ascending: at most 32 of them */
    const long long v = r.at[w];
    int i = w;
    for (; i > 0 && a->wraps.at[i - 1] > v; --i) a->wraps.at[i] = a->wraps.at[i - 1];
    a->wraps.at[i] = v;
  }
  if (flags & kNegativeCount) {
    check_result c;
    MGPU_TRY(with_result(ctx, &c, [&](check_result *cr) {
      first_negative_kernel<<<stride_grid(ctx, m), kStrideThreads, 0, s>>>(
          (const T *)a->counts, m, cr);
      return MGPU_OK;
    }));
    return report<T>(ctx, c, a->counts, &a->bad, &a->bad_value);
  }
  return MGPU_OK;
}

template <typename T, typename S, typename D>
mgpu_status prepare_starts_t(mgpu_context *ctx, const void *starts,
                             const void *scan, size_t m, size_t total,
                             int64_t limit, void *dst, int64_t *bad,
                             int64_t *bad_value, int64_t *max_end) {
  const int64_t cap = limit >= 0 ? limit : (int64_t)MGPU_MAX_COUNT;
  check_result r;
  MGPU_TRY(with_result(ctx, &r, [&](check_result *res) {
    starts_kernel<<<stride_grid(ctx, m), kStrideThreads, 0, cuda_of(ctx)->stream>>>(
        (const T *)starts, (const S *)scan, m, (int64_t)total, cap, (D *)dst,
        res);
    return MGPU_OK;
  }));
  *max_end = (int64_t)r.max_end;
  return report<T>(ctx, r, starts, bad, bad_value);
}

/* f(D()) with D the element of an index array of dtype t. */
template <typename F> mgpu_status by_index_dtype(mgpu_dtype t, F f) {
  if (t == MGPU_I64) return f(int64_t());
  return f(int32_t());
}

#define BY_INDEX_TYPE(t, call)                                                 \
  switch (t) {                                                                 \
  case MGPU_I32: { typedef int32_t T; return call; }                           \
  case MGPU_U32: { typedef uint32_t T; return call; }                          \
  case MGPU_I64: { typedef int64_t T; return call; }                           \
  case MGPU_U64: { typedef uint64_t T; return call; }                          \
  default: return mgpu_set_error(ctx, MGPU_EINVAL, "not an integer dtype");    \
  }

} // namespace

extern "C" mgpu_status mgpu_cuda_prepare_positions(mgpu_context *ctx,
                                                   mgpu_positions_args *a) {
  MGPU_TRY(cuda_enter(ctx));
  return by_index_dtype(a->index_type, [&](auto d) {
    typedef decltype(d) D;
    BY_INDEX_TYPE(a->type, (prepare_positions_t<T, D>(
                               ctx, a->src, a->m, a->lo, a->hi, a->unique,
                               a->dst, &a->bad, &a->bad_value)))
  });
}

extern "C" mgpu_status mgpu_cuda_scan_counts(mgpu_context *ctx,
                                             mgpu_scan_args *a) {
  MGPU_TRY(cuda_enter(ctx));
  if (a->index_type == MGPU_U32)
    BY_INDEX_TYPE(a->type, scan_wrapped_t<T>(ctx, a))
  return by_index_dtype(a->index_type, [&](auto d) {
    typedef std::make_unsigned_t<decltype(d)> U;
    BY_INDEX_TYPE(a->type, (scan_counts_t<T, U>(ctx, a->counts, a->m, a->scan,
                                                &a->total, &a->bad,
                                                &a->bad_value)))
  });
}

extern "C" mgpu_status mgpu_cuda_prepare_starts(mgpu_context *ctx,
                                                mgpu_starts_args *a) {
  MGPU_TRY(cuda_enter(ctx));
  return by_index_dtype(a->scan_type, [&](auto sc) {
    typedef decltype(sc) S;
    return by_index_dtype(a->index_type, [&](auto d) {
      typedef decltype(d) D;
      BY_INDEX_TYPE(a->type, (prepare_starts_t<T, S, D>(
                                 ctx, a->starts, a->scan, a->m, a->total,
                                 a->limit, a->dst, &a->bad, &a->bad_value,
                                 &a->max_end)))
    });
  });
}
