/*
 * cpu_keyed.c - reduce_by_key, segreduce and join on the host: serial
 * loops, left to right, with the reductions of cpu_search.c (integer add
 * wraps, min and max by the sorts' total order).
 */
#include "cpu.h"

/* op over vals[s, e) (s < e) into dst[i]: one function a value dtype, so
 * that reduce_by_key walks its keys by key dtype and hands each run here. */
typedef void (*range_fn)(const void *vals, size_t s, size_t e,
                         mgpu_reduce_op op, void *dst, size_t i);

#define DEFINE_RANGE(SUF, T, U, MIN, MAX, TMIN, TMAX, FIELD)                   \
  static void range_##SUF(const void *vals, size_t s, size_t e,                \
                          mgpu_reduce_op op, void *dst, size_t i) {            \
    const T *v = vals;                                                         \
    T acc = v[s];                                                              \
    switch (op) {                                                              \
    case MGPU_REDUCE_ADD:                                                      \
      for (size_t k = s + 1; k < e; k++) acc = cpu_add_##SUF(acc, v[k]);       \
      break;                                                                   \
    case MGPU_REDUCE_MIN:                                                      \
      for (size_t k = s + 1; k < e; k++) acc = cpu_min_##SUF(acc, v[k]);       \
      break;                                                                   \
    case MGPU_REDUCE_MAX:                                                      \
      for (size_t k = s + 1; k < e; k++) acc = cpu_max_##SUF(acc, v[k]);       \
      break;                                                                   \
    default: break;                                                            \
    }                                                                          \
    ((T *)dst)[i] = acc;                                                       \
  }
CPU_FOR_EACH_REDUCE(DEFINE_RANGE)

static range_fn range_of(mgpu_dtype t) {
  switch (t) {
  case MGPU_I32: return range_i32;
  case MGPU_U32: return range_u32;
  case MGPU_I64: return range_i64;
  case MGPU_U64: return range_u64;
  case MGPU_F32: return range_f32;
  default: return range_f64;
  }
}

/* Runs of equivalent keys, as unique's: a run ends where the next key is
 * ordered before or after its first key. */
#define DEFINE_RUNS(SUF, T, LESS)                                              \
  static size_t runs_##SUF(const mgpu_reduce_by_key_args *a, range_fn range) { \
    const T *keys = a->keys;                                                   \
    T *out = a->out_keys;                                                      \
    const size_t n = a->n;                                                     \
    size_t runs = 0, start = 0;                                                \
    for (size_t i = 1; i <= n; i++) {                                          \
      if (i < n && !LESS(keys[start], keys[i]) && !LESS(keys[i], keys[start])) \
        continue;                                                              \
      out[runs] = keys[start];                                                 \
      range(a->vals, start, i, a->op, a->out_vals, runs);                      \
      runs++;                                                                  \
      start = i;                                                               \
    }                                                                          \
    return runs;                                                               \
  }
CPU_FOR_EACH_KEY(DEFINE_RUNS)

mgpu_status mgpu_cpu_reduce_by_key(mgpu_context *ctx,
                                   mgpu_reduce_by_key_args *a) {
  (void)ctx;
  const range_fn range = range_of(a->val_type);
  switch (a->key_type) {
  case MGPU_I32: a->count = runs_i32(a, range); break;
  case MGPU_U32: a->count = runs_u32(a, range); break;
  case MGPU_I64: a->count = runs_i64(a, range); break;
  case MGPU_U64: a->count = runs_u64(a, range); break;
  case MGPU_F32: a->count = runs_f32(a, range); break;
  case MGPU_F64: a->count = runs_f64(a, range); break;
  default: a->count = 0; break;
  }
  return MGPU_OK;
}

/* offsets[i] clamped to [0, n], so that bad offsets read nothing outside
 * vals. */
static size_t clamped_offset(const mgpu_segreduce_args *a, size_t i) {
  const int64_t v = cpu_get_index(a->offsets, a->index_type, i);
  if (v < 0) return 0;
  return (uint64_t)v < a->n ? (size_t)v : a->n;
}

mgpu_status mgpu_cpu_segreduce(mgpu_context *ctx, mgpu_segreduce_args *a) {
  (void)ctx;
  const range_fn range = range_of(a->type);
  const size_t w = mgpu_dtype_size(a->type), n = a->n, m = a->m;
  for (size_t i = 0; i < m; i++) {
    const size_t lo = clamped_offset(a, i);
    const size_t next = i + 1 < m ? clamped_offset(a, i + 1) : n;
    const size_t hi = next < lo ? lo : (next < n ? next : n);
    if (hi > lo)
      range(a->vals, lo, hi, a->op, a->dst, i);
    else
      memcpy((char *)a->dst + i * w, a->identity, w);
  }
  return MGPU_OK;
}

/* The join's rows by slot: slot s (0 <= s <= na) holds first the b rows
 * between a[s - 1] and a[s] (right and outer: those no a row matches),
 * then a[s]'s matches b[lo_s, hi_s) (or, for left and outer, one row of
 * its own when there is none).  lo_s and hi_s are a[s]'s lower and upper
 * bounds in b, so the b rows between are [hi_{s-1}, lo_s).  Every index
 * comes from a search over [0, nb] or from s, so unsorted inputs stay in
 * range too. */
/* Rows at, at + 1, ... (count of them): (i0 + k * di, j0 + k * dj) into
 * ia and ib of index dtype t, those past the capacity left out; nothing
 * when only counting (ia NULL). */
static void put_rows(const mgpu_join_args *a, mgpu_dtype t, void *ia,
                     void *ib, uint64_t at, size_t count, int64_t i0,
                     int64_t di, int64_t j0, int64_t dj) {
  if (!ia || at >= a->capacity) return;
  if (count > a->capacity - at) count = (size_t)(a->capacity - at);
  for (size_t k = 0; k < count; k++) {
    const int64_t kk = cpu_index_of(k);
    cpu_put_index(ia, t, (size_t)at + k, i0 + kk * di);
    cpu_put_index(ib, t, (size_t)at + k, j0 + kk * dj);
  }
}

#define DEFINE_JOIN(SUF, T, LESS)                                              \
  static void join_##SUF(mgpu_join_args *a, mgpu_dtype t, void *ia,            \
                         void *ib) {                                           \
    const T *ka = a->a, *kb = a->b;                                            \
    const size_t na = a->na, nb = a->nb;                                       \
    const int g = a->order == MGPU_GREATER;                                    \
    const int left = a->kind == MGPU_JOIN_LEFT || a->kind == MGPU_JOIN_OUTER;  \
    const int right = a->kind == MGPU_JOIN_RIGHT || a->kind == MGPU_JOIN_OUTER;\
    const int64_t base = a->base, none = base - 1;                             \
    uint64_t rows = 0;                                                         \
    size_t prev_hi = 0;                                                        \
    for (size_t s = 0; s <= na; s++) {                                         \
      size_t lo = nb, hi = nb;                                                 \
      if (s < na) {                                                            \
        lo = cpu_bound_##SUF(kb, nb, ka[s], g, 0);                             \
        hi = cpu_bound_##SUF(kb, nb, ka[s], g, 1);                             \
        if (hi < lo) hi = lo;                                                  \
      }                                                                        \
      if (right && lo > prev_hi) {                                             \
        put_rows(a, t, ia, ib, rows, lo - prev_hi, none, 0,                    \
                 base + cpu_index_of(prev_hi), 1);                             \
        rows += lo - prev_hi;                                                  \
      }                                                                        \
      if (s < na && hi > lo) {                                                 \
        put_rows(a, t, ia, ib, rows, hi - lo, base + cpu_index_of(s), 0,       \
                 base + cpu_index_of(lo), 1);                                  \
        rows += hi - lo;                                                       \
      } else if (s < na && left) {                                             \
        put_rows(a, t, ia, ib, rows, 1, base + cpu_index_of(s), 0, none, 0);   \
        rows++;                                                                \
      }                                                                        \
      prev_hi = hi;                                                            \
    }                                                                          \
    a->count = rows;                                                           \
  }
CPU_FOR_EACH_KEY(DEFINE_JOIN)

typedef void (*join_fn)(mgpu_join_args *, mgpu_dtype, void *, void *);

static join_fn join_of(mgpu_dtype t) {
  switch (t) {
  case MGPU_I32: return join_i32;
  case MGPU_U32: return join_u32;
  case MGPU_I64: return join_i64;
  case MGPU_U64: return join_u64;
  case MGPU_F32: return join_f32;
  case MGPU_F64: return join_f64;
  default: return NULL;
  }
}

void mgpu_cpu_join_into(mgpu_join_args *a, mgpu_dtype index_type, void *ia,
                        void *ib) {
  const join_fn join = join_of(a->type);
  if (join) join(a, index_type, ia, ib);
}

/* With alloc_rows the loop runs twice, counting and then, once the result
 * is sized, writing: no bounds kept between, and the same rows as one
 * pass gives. */
mgpu_status mgpu_cpu_join(mgpu_context *ctx, mgpu_join_args *a) {
  const join_fn join = join_of(a->type);
  if (!join) return mgpu_set_error(ctx, MGPU_EINVAL, "join: unknown dtype");
  join(a, a->index_type, a->ia, a->ib);
  if (!a->alloc_rows) return MGPU_OK;
  const mgpu_status s = a->alloc_rows(ctx, a);
  if (s != MGPU_OK) return s;
  if (a->ia && a->count > 0) join(a, a->index_type, a->ia, a->ib);
  return MGPU_OK;
}
