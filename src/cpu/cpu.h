/* cpu.h - the cpu backend's operations, shared between its files. */
#ifndef MGPU_CPU_H
#define MGPU_CPU_H

#include <assert.h>
#include <string.h>

#include "../backend.h"
#include "../element.h"

/* The operations of backend.h's table: mgpu_cpu_<name>(ctx, args). */
#define CPU_DECLARE_OP(name, type) MGPU_DECLARE_OP(mgpu_cpu_, name, type)
MGPU_BACKEND_OPS(CPU_DECLARE_OP)
#undef CPU_DECLARE_OP

/* sorted_search, unique and join with their index outputs (positions,
 * run lengths, rows) of dtype MGPU_I32 or MGPU_I64: the table's entries
 * give the C API's i32, the i64 form is for counts past INT32_MAX
 * (docs/WIDE.md).  The join counts the rows and writes up to a->capacity
 * of them (ia NULL: counts only), without a->alloc_rows. */
void mgpu_cpu_search_into(const mgpu_search_args *a, mgpu_dtype pos_type,
                          void *pos);
void mgpu_cpu_unique_into(mgpu_unique_args *a, mgpu_dtype counts_type,
                          void *counts);
void mgpu_cpu_join_into(mgpu_join_args *a, mgpu_dtype index_type, void *ia,
                        void *ib);

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

/* cpu_bound_<suffix>(hay, m, x, g, right): a binary search over [0, m]
 * for the first element of hay not ordered before x (right: the first
 * ordered after it), in the order asked for (g: greater).  The interval
 * only shrinks, so any input, sorted or not, lands in [0, m]. */
#define CPU_DEFINE_BOUND(SUF, T, LESS)                                         \
  static inline size_t cpu_bound_##SUF(const T *hay, size_t m, T x, int g,     \
                                       int right) {                            \
    size_t lo = 0, hi = m;                                                     \
    while (lo < hi) {                                                          \
      const size_t mid = lo + (hi - lo) / 2;                                   \
      const T y = hay[mid];                                                    \
      const int go_right = right ? !(g ? LESS(y, x) : LESS(x, y))              \
                                 : (g ? LESS(x, y) : LESS(y, x));              \
      if (go_right)                                                            \
        lo = mid + 1;                                                          \
      else                                                                     \
        hi = mid;                                                              \
    }                                                                          \
    return lo;                                                                 \
  }
CPU_FOR_EACH_KEY(CPU_DEFINE_BOUND)
#undef CPU_DEFINE_BOUND

/* Applies X(suffix, C type, type the add wraps in, min, max, smallest,
 * largest, mgpu_scalar field) to every key dtype.  For floats "smallest"
 * and "largest" are the identities of max and min: -inf, and NaN (the
 * largest float of the order). */
#define CPU_FOR_EACH_REDUCE(X)                                                 \
  X(i32, int32_t, uint32_t, CPU_MIN_INT, CPU_MAX_INT, INT32_MIN, INT32_MAX, i) \
  X(u32, uint32_t, uint32_t, CPU_MIN_INT, CPU_MAX_INT, 0, UINT32_MAX, i)       \
  X(i64, int64_t, uint64_t, CPU_MIN_INT, CPU_MAX_INT, INT64_MIN, INT64_MAX, i) \
  X(u64, uint64_t, uint64_t, CPU_MIN_INT, CPU_MAX_INT, 0, UINT64_MAX, i)       \
  X(f32, float, float, mgpu_f32_min, mgpu_f32_max, -INFINITY, NAN, f)          \
  X(f64, double, double, mgpu_f64_min, mgpu_f64_max, -INFINITY, NAN, f)

#define CPU_MIN_INT(a, b) ((b) < (a) ? (b) : (a))
#define CPU_MAX_INT(a, b) ((a) < (b) ? (b) : (a))

/* The reductions' combining steps, cpu_add_<suffix> and so on; shared by
 * scan and reduce (cpu_search.c) and the keyed ones (cpu_keyed.c). */
#define CPU_DEFINE_COMBINE(SUF, T, U, MIN, MAX, TMIN, TMAX, FIELD)             \
  static inline T cpu_add_##SUF(T acc, T x) { return (T)((U)acc + (U)x); }     \
  static inline T cpu_min_##SUF(T acc, T x) { return MIN(acc, x); }            \
  static inline T cpu_max_##SUF(T acc, T x) { return MAX(acc, x); }
CPU_FOR_EACH_REDUCE(CPU_DEFINE_COMBINE)
#undef CPU_DEFINE_COMBINE

/* An index as the index outputs hold it.  Sizes of memory stay below
 * INT64_MAX, so the check is for debug builds. */
static inline int64_t cpu_index_of(size_t x) {
  assert(x <= (size_t)INT64_MAX);
  return (int64_t)x;
}

/* Stores index v as element i of dst, of dtype t (MGPU_I32 or MGPU_I64).
 * The caller chose t to hold every value it stores (an i32 output only
 * under the C API's limit), so an i32 out of range is a bug that debug
 * builds catch rather than a truncation. */
static inline void cpu_put_index(void *dst, mgpu_dtype t, size_t i,
                                 int64_t v) {
  if (t == MGPU_I64) {
    ((int64_t *)dst)[i] = v;
    return;
  }
  assert(v >= INT32_MIN && v <= INT32_MAX);
  ((int32_t *)dst)[i] = (int32_t)v;
}

/* Element i of an index array of dtype t (MGPU_I32 or MGPU_I64). */
static inline int64_t cpu_get_index(const void *src, mgpu_dtype t, size_t i) {
  if (t == MGPU_I64) return ((const int64_t *)src)[i];
  return ((const int32_t *)src)[i];
}

/* Values are only moved: copy element j of src to element i of dst. */
static inline void cpu_move_value(void *dst, size_t i, const void *src,
                                  size_t j, size_t width) {
  if (width == 4)
    ((uint32_t *)dst)[i] = ((const uint32_t *)src)[j];
  else if (width == 8)
    ((uint64_t *)dst)[i] = ((const uint64_t *)src)[j];
}

#endif
