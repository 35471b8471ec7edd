/*
 * cpu_setop.c - the std::set_* loops with multiset semantics: equal keys
 * pair off one from a with one from b, in order.
 */
#include "cpu.h"

/* emit: write key (and value j of side src) to output k. */
#define EMIT(KEY, SRCV, J)                                                     \
  do {                                                                         \
    cpu_move_value(s->vals, k, (SRCV), (J), vs);                               \
    out[k++] = (KEY);                                                          \
  } while (0)

#define DEFINE_SETOP(SUF, T, LESS)                                             \
  static size_t setop_##SUF(const mgpu_setop_args *s, int g) {                 \
    const T *a = s->a_keys, *b = s->b_keys;                                    \
    T *out = s->keys;                                                          \
    size_t i = 0, j = 0, k = 0, vs = s->value_size;                            \
    int keep_a = s->op != MGPU_SET_INTERSECTION;  /* a < b */                 \
    int keep_b = s->op == MGPU_SET_UNION ||                                    \
                 s->op == MGPU_SET_SYMMETRIC_DIFFERENCE; /* b < a */           \
    int keep_eq = s->op == MGPU_SET_INTERSECTION || s->op == MGPU_SET_UNION;   \
    while (i < s->na && j < s->nb) {                                           \
      int a_first = g ? LESS(b[j], a[i]) : LESS(a[i], b[j]);                   \
      int b_first = g ? LESS(a[i], b[j]) : LESS(b[j], a[i]);                   \
      if (a_first) {                                                           \
        if (keep_a) EMIT(a[i], s->a_vals, i);                                  \
        i++;                                                                   \
      } else if (b_first) {                                                    \
        if (keep_b) EMIT(b[j], s->b_vals, j);                                  \
        j++;                                                                   \
      } else {                                                                 \
        if (keep_eq) EMIT(a[i], s->a_vals, i);                                 \
        i++;                                                                   \
        j++;                                                                   \
      }                                                                        \
    }                                                                          \
    if (keep_a)                                                                \
      for (; i < s->na; i++) EMIT(a[i], s->a_vals, i);                         \
    if (keep_b)                                                                \
      for (; j < s->nb; j++) EMIT(b[j], s->b_vals, j);                         \
    return k;                                                                  \
  }
CPU_FOR_EACH_KEY(DEFINE_SETOP)

mgpu_status mgpu_cpu_setop(mgpu_context *ctx, mgpu_setop_args *s) {
  (void)ctx;
  size_t *count = &s->count;
  int g = s->order == MGPU_GREATER;
  switch (s->key_type) {
  case MGPU_I32: *count = setop_i32(s, g); break;
  case MGPU_U32: *count = setop_u32(s, g); break;
  case MGPU_I64: *count = setop_i64(s, g); break;
  case MGPU_U64: *count = setop_u64(s, g); break;
  case MGPU_F32: *count = setop_f32(s, g); break;
  case MGPU_F64: *count = setop_f64(s, g); break;
  default: break;
  }
  return MGPU_OK;
}
