/* cpu.h - the cpu backend's operations, shared between its files. */
#ifndef MGPU_CPU_H
#define MGPU_CPU_H

#include <string.h>

#include "../backend.h"
#include "../element.h"

/* The operations of backend.h's table: mgpu_cpu_<name>(ctx, args). */
#define CPU_DECLARE_OP(name, type) MGPU_DECLARE_OP(mgpu_cpu_, name, type)
MGPU_BACKEND_OPS(CPU_DECLARE_OP)
#undef CPU_DECLARE_OP

/* mergesort's pieces that segsort reuses. */
void mgpu_cpu_sort_range(const mgpu_sort_args *s, size_t lo, size_t hi,
                         void *tk, void *tv);
mgpu_status mgpu_cpu_sort_temps(mgpu_context *ctx, const mgpu_sort_args *s,
                                void **tk, void **tv);
void mgpu_cpu_sort_temps_free(mgpu_context *ctx, const mgpu_sort_args *s,
                              void *tk, void *tv);

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
