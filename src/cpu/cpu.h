/* cpu.h - the cpu backend's operations, shared between its files. */
#ifndef MGPU_CPU_H
#define MGPU_CPU_H

#include <string.h>

#include "../backend.h"
#include "../element.h"

mgpu_status mgpu_cpu_fill(mgpu_context *ctx, void *dst, size_t n, size_t width,
                          const void *value);
mgpu_status mgpu_cpu_iota(mgpu_context *ctx, void *dst, size_t n, mgpu_dtype t,
                          mgpu_scalar start, mgpu_scalar step);
mgpu_status mgpu_cpu_random(mgpu_context *ctx, void *dst, size_t n,
                            mgpu_dtype t, mgpu_scalar lo, mgpu_scalar hi,
                            uint64_t seed);
mgpu_status mgpu_cpu_astype(mgpu_context *ctx, void *dst, mgpu_dtype dst_type,
                            const void *src, mgpu_dtype src_type, size_t n);
mgpu_status mgpu_cpu_is_sorted(mgpu_context *ctx, const void *src, size_t n,
                               mgpu_dtype t, mgpu_order order, int *sorted);
mgpu_status mgpu_cpu_merge(mgpu_context *ctx, const mgpu_merge_args *args);
mgpu_status mgpu_cpu_mergesort(mgpu_context *ctx, const mgpu_sort_args *args);
void mgpu_cpu_sort_range(const mgpu_sort_args *s, size_t lo, size_t hi,
                         void *tk, void *tv);
mgpu_status mgpu_cpu_sort_temps(mgpu_context *ctx, const mgpu_sort_args *s,
                                void **tk, void **tv);
void mgpu_cpu_sort_temps_free(mgpu_context *ctx, const mgpu_sort_args *s,
                              void *tk, void *tv);
mgpu_status mgpu_cpu_segsort(mgpu_context *ctx, const mgpu_segsort_args *a);
mgpu_status mgpu_cpu_setop(mgpu_context *ctx, const mgpu_setop_args *a,
                           size_t *count);
mgpu_status mgpu_cpu_prepare_positions(mgpu_context *ctx, const void *src,
                                       mgpu_dtype t, size_t m, int64_t lo,
                                       int64_t hi, int unique, int32_t *dst,
                                       int64_t *bad, int64_t *bad_value);
mgpu_status mgpu_cpu_scan_counts(mgpu_context *ctx, const void *counts,
                                 mgpu_dtype t, size_t m, int32_t *scan,
                                 int64_t *total, int64_t *bad,
                                 int64_t *bad_value);
mgpu_status mgpu_cpu_prepare_starts(mgpu_context *ctx, const void *starts,
                                    mgpu_dtype t, const int32_t *scan,
                                    size_t m, size_t total, int64_t limit,
                                    int32_t *dst, int64_t *bad,
                                    int64_t *bad_value, int64_t *max_end);
mgpu_status mgpu_cpu_bulk_remove(mgpu_context *ctx, size_t width,
                                 const void *data, size_t n,
                                 const int32_t *indices, size_t m, void *out);
mgpu_status mgpu_cpu_bulk_insert(mgpu_context *ctx, size_t width,
                                 const void *data, size_t n,
                                 const int32_t *positions, const void *values,
                                 size_t m, void *out);
mgpu_status mgpu_cpu_load_balance(mgpu_context *ctx, const mgpu_interval_args *a);
mgpu_status mgpu_cpu_interval_expand(mgpu_context *ctx,
                                     const mgpu_interval_args *a);
mgpu_status mgpu_cpu_interval_move(mgpu_context *ctx,
                                   const mgpu_interval_args *a);

/* Strict "a goes before b" for each key dtype under MGPU_LESS. */
#define CPU_LESS_INT(a, b) ((a) < (b))
#define CPU_LESS_F32(a, b) mgpu_f32_less((a), (b))
#define CPU_LESS_F64(a, b) mgpu_f64_less((a), (b))

/* Applies X(suffix, C type, less-macro) to every key dtype. */
#define CPU_FOR_EACH_KEY(X)                                                    \
  X(i32, int32_t, CPU_LESS_INT)                                                \
  X(u32, uint32_t, CPU_LESS_INT)                                               \
  X(i64, int64_t, CPU_LESS_INT)                                                \
  X(u64, uint64_t, CPU_LESS_INT)                                               \
  X(f32, float, CPU_LESS_F32)                                                  \
  X(f64, double, CPU_LESS_F64)

/* Values are only moved: copy element j of src to element i of dst. */
static inline void cpu_move_value(void *dst, size_t i, const void *src,
                                  size_t j, size_t width) {
  if (width == 4)
    ((uint32_t *)dst)[i] = ((const uint32_t *)src)[j];
  else if (width == 8)
    ((uint64_t *)dst)[i] = ((const uint64_t *)src)[j];
}

#endif
