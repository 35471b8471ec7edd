/* cpu_interval.c - load balance, interval expand and interval move,
 * serially, interval by interval (so overlapping destinations end up with
 * the last interval's values). */
#include "cpu.h"

static size_t count_of(const mgpu_interval_args *a, size_t i) {
  return (size_t)((i + 1 < a->m ? (size_t)a->scan[i + 1] : a->total) -
                  (size_t)a->scan[i]);
}

/* out is int32; base + i wraps in 32 bits (two's complement), as on the
 * CUDA backend: written as uint32 (same storage), the sum is never signed. */
mgpu_status mgpu_cpu_load_balance(mgpu_context *ctx, mgpu_interval_args *a) {
  (void)ctx;
  uint32_t *out = a->out;
  for (size_t i = 0; i < a->m; i++)
    for (size_t j = 0, c = count_of(a, i); j < c; j++)
      out[(size_t)a->scan[i] + j] = (uint32_t)i + (uint32_t)a->base;
  return MGPU_OK;
}

mgpu_status mgpu_cpu_interval_expand(mgpu_context *ctx,
                                     mgpu_interval_args *a) {
  (void)ctx;
  for (size_t i = 0; i < a->m; i++)
    for (size_t j = 0, c = count_of(a, i); j < c; j++)
      cpu_move_value(a->out, (size_t)a->scan[i] + j, a->input, i, a->width);
  return MGPU_OK;
}

mgpu_status mgpu_cpu_interval_move(mgpu_context *ctx,
                                   mgpu_interval_args *a) {
  (void)ctx;
  for (size_t i = 0; i < a->m; i++) {
    size_t g = (size_t)(a->gather ? a->gather[i] : a->scan[i]);
    size_t s = (size_t)(a->scatter ? a->scatter[i] : a->scan[i]);
    for (size_t j = 0, c = count_of(a, i); j < c; j++)
      if (g + j < a->n_input && s + j < a->n_out)
        cpu_move_value(a->out, s + j, a->input, g + j, a->width);
  }
  return MGPU_OK;
}
