/* cpu_merge.c - serial stable merge: ties take a first (std::merge). */
#include "cpu.h"

#define DEFINE_MERGE(SUF, T, LESS)                                             \
  static void merge_##SUF(const mgpu_merge_args *m, int greater) {             \
    const T *a = m->a_keys, *b = m->b_keys;                                    \
    T *c = m->keys;                                                            \
    size_t i = 0, j = 0, k = 0, vs = m->value_size;                            \
    while (i < m->na && j < m->nb) {                                           \
      /* b goes first only when strictly before a: ties keep a first. */       \
      int take_b = greater ? LESS(a[i], b[j]) : LESS(b[j], a[i]);              \
      if (take_b) {                                                            \
        cpu_move_value(m->vals, k, m->b_vals, j, vs);                          \
        c[k++] = b[j++];                                                       \
      } else {                                                                 \
        cpu_move_value(m->vals, k, m->a_vals, i, vs);                          \
        c[k++] = a[i++];                                                       \
      }                                                                        \
    }                                                                          \
    for (; i < m->na; i++, k++) {                                              \
      cpu_move_value(m->vals, k, m->a_vals, i, vs);                            \
      c[k] = a[i];                                                             \
    }                                                                          \
    for (; j < m->nb; j++, k++) {                                              \
      cpu_move_value(m->vals, k, m->b_vals, j, vs);                            \
      c[k] = b[j];                                                             \
    }                                                                          \
  }
CPU_FOR_EACH_KEY(DEFINE_MERGE)

mgpu_status mgpu_cpu_merge(mgpu_context *ctx, mgpu_merge_args *m) {
  (void)ctx;
  int g = m->order == MGPU_GREATER;
  switch (m->key_type) {
  case MGPU_I32: merge_i32(m, g); break;
  case MGPU_U32: merge_u32(m, g); break;
  case MGPU_I64: merge_i64(m, g); break;
  case MGPU_U64: merge_u64(m, g); break;
  case MGPU_F32: merge_f32(m, g); break;
  case MGPU_F64: merge_f64(m, g); break;
  default: break;
  }
  return MGPU_OK;
}
