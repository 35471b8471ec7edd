/*
 * cpu_mergesort.c - serial stable sort: insertion sort of short runs, then
 * bottom-up merge passes that ping-pong between the keys and one temporary
 * buffer.
 */
#include "cpu.h"

/* Runs this short are sorted by insertion; 32 keeps the quadratic part
 * cheap while removing the five shortest merge passes. */
#define CPU_SORT_RUN 32

#define DEFINE_SORT(SUF, T, LESS)                                              \
  static int before_##SUF(T x, T y, int greater) {                             \
    return greater ? LESS(y, x) : LESS(x, y);                                  \
  }                                                                            \
  static void insertion_##SUF(T *k, void *v, size_t n, size_t vs, int g) {     \
    for (size_t i = 1; i < n; i++) {                                           \
      T key = k[i];                                                            \
      uint64_t val = 0;                                                        \
      if (vs) memcpy(&val, (char *)v + i * vs, vs);                            \
      size_t j = i;                                                            \
      /* strict comparison: equal keys never pass each other (stable) */      \
      for (; j > 0 && before_##SUF(key, k[j - 1], g); j--) {                   \
        k[j] = k[j - 1];                                                       \
        cpu_move_value(v, j, v, j - 1, vs);                                    \
      }                                                                        \
      k[j] = key;                                                              \
      if (vs) memcpy((char *)v + j * vs, &val, vs);                            \
    }                                                                          \
  }                                                                            \
  static void pass_##SUF(const T *sk, const void *sv, T *dk, void *dv,         \
                         size_t n, size_t w, size_t vs, int g) {               \
    for (size_t lo = 0; lo < n; lo += 2 * w) {                                 \
      size_t mid = lo + w < n ? lo + w : n;                                    \
      size_t hi = lo + 2 * w < n ? lo + 2 * w : n;                             \
      size_t i = lo, j = mid, k = lo;                                          \
      while (i < mid && j < hi) {                                              \
        if (before_##SUF(sk[j], sk[i], g)) {                                   \
          cpu_move_value(dv, k, sv, j, vs);                                    \
          dk[k++] = sk[j++];                                                   \
        } else {                                                               \
          cpu_move_value(dv, k, sv, i, vs);                                    \
          dk[k++] = sk[i++];                                                   \
        }                                                                      \
      }                                                                        \
      for (; i < mid; i++, k++) {                                              \
        cpu_move_value(dv, k, sv, i, vs);                                      \
        dk[k] = sk[i];                                                         \
      }                                                                        \
      for (; j < hi; j++, k++) {                                               \
        cpu_move_value(dv, k, sv, j, vs);                                      \
        dk[k] = sk[j];                                                         \
      }                                                                        \
    }                                                                          \
  }                                                                            \
  static void sort_##SUF(T *keys, void *vals, size_t n, size_t vs, int g,      \
                         T *tk, void *tv) {                                    \
    for (size_t lo = 0; lo < n; lo += CPU_SORT_RUN) {                          \
      size_t len = n - lo < CPU_SORT_RUN ? n - lo : CPU_SORT_RUN;              \
      insertion_##SUF(keys + lo, vs ? (char *)vals + lo * vs : NULL, len, vs,  \
                      g);                                                      \
    }                                                                          \
    T *sk = keys, *dk = tk;                                                    \
    void *sv = vals, *dv = tv;                                                 \
    for (size_t w = CPU_SORT_RUN; w < n; w *= 2) {                             \
      pass_##SUF(sk, sv, dk, dv, n, w, vs, g);                                 \
      T *t = sk; sk = dk; dk = t;                                              \
      void *u = sv; sv = dv; dv = u;                                           \
    }                                                                          \
    if (sk != keys) {                                                          \
      memcpy(keys, sk, n * sizeof(T));                                         \
      if (vs) memcpy(vals, sv, n * vs);                                        \
    }                                                                          \
  }
CPU_FOR_EACH_KEY(DEFINE_SORT)

/* Sorts elements [lo, hi) of s's arrays; tk/tv hold hi - lo elements (unused
 * below CPU_SORT_RUN). */
void mgpu_cpu_sort_range(const mgpu_sort_args *s, size_t lo, size_t hi,
                         void *tk, void *tv) {
  int g = s->order == MGPU_GREATER;
  size_t vs = s->value_size, n = hi - lo;
  char *k = (char *)s->keys + lo * mgpu_dtype_size(s->key_type);
  void *v = vs ? (char *)s->vals + lo * vs : NULL;
  switch (s->key_type) {
  case MGPU_I32: sort_i32((int32_t *)k, v, n, vs, g, tk, tv); break;
  case MGPU_U32: sort_u32((uint32_t *)k, v, n, vs, g, tk, tv); break;
  case MGPU_I64: sort_i64((int64_t *)k, v, n, vs, g, tk, tv); break;
  case MGPU_U64: sort_u64((uint64_t *)k, v, n, vs, g, tk, tv); break;
  case MGPU_F32: sort_f32((float *)k, v, n, vs, g, tk, tv); break;
  case MGPU_F64: sort_f64((double *)k, v, n, vs, g, tk, tv); break;
  default: break;
  }
}

/* Temporaries for sorting up to n elements: NULL when no merge pass runs. */
mgpu_status mgpu_cpu_sort_temps(mgpu_context *ctx, const mgpu_sort_args *s,
                                void **tk, void **tv) {
  size_t kb = s->n * mgpu_dtype_size(s->key_type), vb = s->n * s->value_size;
  mgpu_status st;
  *tk = *tv = NULL;
  if (s->n <= CPU_SORT_RUN) return MGPU_OK;
  if ((st = mgpu_alloc(ctx, kb, tk)) != MGPU_OK) return st;
  if (vb && (st = mgpu_alloc(ctx, vb, tv)) != MGPU_OK) {
    mgpu_free(ctx, *tk, kb);
    *tk = NULL;
    return st;
  }
  return MGPU_OK;
}

void mgpu_cpu_sort_temps_free(mgpu_context *ctx, const mgpu_sort_args *s,
                              void *tk, void *tv) {
  mgpu_free(ctx, tk, s->n * mgpu_dtype_size(s->key_type));
  mgpu_free(ctx, tv, s->n * s->value_size);
}

mgpu_status mgpu_cpu_mergesort(mgpu_context *ctx, mgpu_sort_args *s) {
  void *tk, *tv;
  mgpu_status st = mgpu_cpu_sort_temps(ctx, s, &tk, &tv);
  if (st != MGPU_OK) return st;
  mgpu_cpu_sort_range(s, 0, s->n, tk, tv);
  mgpu_cpu_sort_temps_free(ctx, s, tk, tv);
  return MGPU_OK;
}
