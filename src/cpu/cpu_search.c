/*
 * cpu_search.c - scan, reduce, sorted_search, unique and compact on the
 * host: serial loops, left to right.
 *
 * Reductions are in the dtype: integer add wraps (it adds in the unsigned
 * type of the width), float add is the plain sequential sum (f32 in float),
 * min and max follow the sorts' total order (NaN above every number) and
 * break its ties (-0.0 and 0.0, NaNs) by IEEE totalOrder (element.h), so
 * that they are commutative and a parallel reduction gives the same bits.
 * The first element starts the accumulator; the identity only fills an
 * exclusive scan's first output.
 */
#include "cpu.h"

/* One loop over src with acc = COMBINE(acc, x): dst[i] before (exclusive)
 * or after (inclusive) element i joins.  x is read before dst[i] is
 * written, so dst may be src. */
#define REDUCE_LOOP(T, IDENT, COMBINE)                                         \
  do {                                                                         \
    if (dst) dst[0] = inclusive ? acc : (T)(IDENT);                            \
    for (size_t i = 1; i < n; i++) {                                           \
      const T x = src[i];                                                      \
      if (dst && !inclusive) dst[i] = acc;                                     \
      acc = COMBINE(acc, x);                                                   \
      if (dst && inclusive) dst[i] = acc;                                      \
    }                                                                          \
  } while (0)

/* The total as mgpu_scalar carries it: u64 as its two's-complement bits in
 * .i, spelled out because converting a u64 past INT64_MAX to int64_t is
 * implementation-defined. */
static inline int64_t total_bits_u64(uint64_t x) {
  return x <= (uint64_t)INT64_MAX ? (int64_t)x
                                  : (int64_t)(x - (uint64_t)INT64_MAX - 1) + INT64_MIN;
}
#define TOTAL_i32(x) (x)
#define TOTAL_u32(x) (x)
#define TOTAL_i64(x) (x)
#define TOTAL_u64(x) total_bits_u64(x)
#define TOTAL_f32(x) (x)
#define TOTAL_f64(x) (x)

#define DEFINE_REDUCE(SUF, T, U, MIN, MAX, TMIN, TMAX, FIELD)                  \
  static void reduce_##SUF(mgpu_reduce_args *a) {                              \
    const T *src = a->src;                                                     \
    T *dst = a->dst;                                                           \
    const size_t n = a->n;                                                     \
    const int inclusive = a->inclusive;                                        \
    T acc = src[0];                                                            \
    switch (a->op) {                                                           \
    case MGPU_REDUCE_ADD: REDUCE_LOOP(T, 0, cpu_add_##SUF); break;                 \
    case MGPU_REDUCE_MIN: REDUCE_LOOP(T, TMAX, cpu_min_##SUF); break;              \
    case MGPU_REDUCE_MAX: REDUCE_LOOP(T, TMIN, cpu_max_##SUF); break;              \
    default: break;                                                            \
    }                                                                          \
    a->total.FIELD = TOTAL_##SUF(acc);                                         \
  }
CPU_FOR_EACH_REDUCE(DEFINE_REDUCE)

static void reduce_any(mgpu_reduce_args *a) {
  switch (a->type) {
  case MGPU_I32: reduce_i32(a); break;
  case MGPU_U32: reduce_u32(a); break;
  case MGPU_I64: reduce_i64(a); break;
  case MGPU_U64: reduce_u64(a); break;
  case MGPU_F32: reduce_f32(a); break;
  case MGPU_F64: reduce_f64(a); break;
  default: break;
  }
}

mgpu_status mgpu_cpu_scan(mgpu_context *ctx, mgpu_reduce_args *a) {
  (void)ctx;
  reduce_any(a);
  return MGPU_OK;
}

mgpu_status mgpu_cpu_reduce(mgpu_context *ctx, mgpu_reduce_args *a) {
  (void)ctx;
  reduce_any(a);
  return MGPU_OK;
}

/* A binary search per needle (cpu_bound_*, cpu.h). */
#define DEFINE_SEARCH(SUF, T, LESS)                                            \
  static void search_##SUF(const mgpu_search_args *a, int g,                   \
                           mgpu_dtype pos_type, void *pos) {                   \
    const T *needles = a->needles, *hay = a->haystack;                         \
    for (size_t i = 0; i < a->n; i++)                                          \
      cpu_put_index(pos, pos_type, i,                                          \
                    a->base + cpu_index_of(cpu_bound_##SUF(                    \
                                  hay, a->m, needles[i], g, a->right)));       \
  }
CPU_FOR_EACH_KEY(DEFINE_SEARCH)

void mgpu_cpu_search_into(const mgpu_search_args *a, mgpu_dtype pos_type,
                          void *pos) {
  int g = a->order == MGPU_GREATER;
  switch (a->type) {
  case MGPU_I32: search_i32(a, g, pos_type, pos); break;
  case MGPU_U32: search_u32(a, g, pos_type, pos); break;
  case MGPU_I64: search_i64(a, g, pos_type, pos); break;
  case MGPU_U64: search_u64(a, g, pos_type, pos); break;
  case MGPU_F32: search_f32(a, g, pos_type, pos); break;
  case MGPU_F64: search_f64(a, g, pos_type, pos); break;
  default: break;
  }
}

mgpu_status mgpu_cpu_sorted_search(mgpu_context *ctx, mgpu_search_args *a) {
  (void)ctx;
  mgpu_cpu_search_into(a, a->index_type, a->pos);
  return MGPU_OK;
}

/* Runs of equivalent keys (neither before the other under MGPU_LESS).  A
 * run's first key is kept apart before its output is written, so the
 * outputs may even be the inputs. */
#define DEFINE_UNIQUE(SUF, T, LESS)                                            \
  static size_t unique_##SUF(const mgpu_unique_args *a,                        \
                             mgpu_dtype counts_type, void *counts) {           \
    const T *keys = a->keys;                                                   \
    T *out = a->out_keys;                                                      \
    const size_t n = a->n, vs = a->value_size;                                 \
    size_t runs = 0, start = 0;                                                \
    T head = keys[0];                                                          \
    for (size_t i = 1; i <= n; i++) {                                          \
      const int same =                                                         \
          i < n && !LESS(head, keys[i]) && !LESS(keys[i], head);               \
      if (same) continue;                                                      \
      const T next = i < n ? keys[i] : head;                                   \
      cpu_move_value(a->out_vals, runs, a->vals, start, vs);                   \
      out[runs] = head;                                                        \
      if (counts)                                                              \
        cpu_put_index(counts, counts_type, runs, cpu_index_of(i - start));     \
      runs++;                                                                  \
      head = next;                                                             \
      start = i;                                                               \
    }                                                                          \
    return runs;                                                               \
  }
CPU_FOR_EACH_KEY(DEFINE_UNIQUE)

void mgpu_cpu_unique_into(mgpu_unique_args *a, mgpu_dtype counts_type,
                          void *counts) {
  size_t *count = &a->count;
  switch (a->type) {
  case MGPU_I32: *count = unique_i32(a, counts_type, counts); break;
  case MGPU_U32: *count = unique_u32(a, counts_type, counts); break;
  case MGPU_I64: *count = unique_i64(a, counts_type, counts); break;
  case MGPU_U64: *count = unique_u64(a, counts_type, counts); break;
  case MGPU_F32: *count = unique_f32(a, counts_type, counts); break;
  case MGPU_F64: *count = unique_f64(a, counts_type, counts); break;
  default: break;
  }
}

mgpu_status mgpu_cpu_unique(mgpu_context *ctx, mgpu_unique_args *a) {
  (void)ctx;
  mgpu_cpu_unique_into(a, a->index_type, a->counts);
  return MGPU_OK;
}

/* Keeps element i of data (and of vals) where flags[i] != 0; the flags
 * are integers of any width, so only their type changes between loops. */
#define DEFINE_COMPACT(SUF, F)                                                 \
  static size_t compact_##SUF(const mgpu_compact_args *a) {                    \
    const F *flags = a->flags;                                                 \
    const size_t n = a->n, w = a->width, vs = a->value_size;                   \
    size_t k = 0;                                                              \
    for (size_t i = 0; i < n; i++) {                                           \
      if (!flags[i]) continue;                                                 \
      cpu_move_value(a->out, k, a->data, i, w);                                \
      cpu_move_value(a->out_vals, k, a->vals, i, vs);                          \
      k++;                                                                     \
    }                                                                          \
    return k;                                                                  \
  }
DEFINE_COMPACT(i32, int32_t)
DEFINE_COMPACT(u32, uint32_t)
DEFINE_COMPACT(i64, int64_t)
DEFINE_COMPACT(u64, uint64_t)

mgpu_status mgpu_cpu_compact(mgpu_context *ctx, mgpu_compact_args *a) {
  (void)ctx;
  size_t *count = &a->count;
  switch (a->flag_type) {
  case MGPU_I32: *count = compact_i32(a); break;
  case MGPU_U32: *count = compact_u32(a); break;
  case MGPU_I64: *count = compact_i64(a); break;
  case MGPU_U64: *count = compact_u64(a); break;
  default: *count = 0; break;
  }
  return MGPU_OK;
}
