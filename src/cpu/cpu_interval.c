/* cpu_interval.c - load balance, interval expand and interval move,
 * serially, interval by interval (so overlapping destinations end up with
 * the last interval's values). */
#include "cpu.h"

/* Interval i's scan value, its first output (the C API's callers keep
 * the scan within [0, total]). */
static size_t scan_at(const mgpu_interval_args *a, size_t i) {
  if (a->scan_type == MGPU_U32) { /* wrapped: mgpu.h */
    size_t hi = 0;
    for (int w = 0; w < a->wraps->n && (size_t)a->wraps->at[w] <= i; w++) hi++;
    return (size_t)((const uint32_t *)a->scan)[i] + (hi << 32);
  }
  return (size_t)cpu_get_index(a->scan, a->scan_type, i);
}

static size_t count_of(const mgpu_interval_args *a, size_t i) {
  return (i + 1 < a->m ? scan_at(a, i + 1) : a->total) - scan_at(a, i);
}

/* An int32 out holds base + i wrapped to 32 bits (two's complement), as on
 * the CUDA backend: written as uint32 (same storage), the sum is never
 * signed; the C API keeps i within INT32_MAX there.  An int64 one holds
 * base + i itself (i < 2^53). */
mgpu_status mgpu_cpu_load_balance(mgpu_context *ctx, mgpu_interval_args *a) {
  (void)ctx;
  if (a->index_type == MGPU_I64) {
    int64_t *out = a->out;
    for (size_t i = 0; i < a->m; i++) {
      const int64_t v = cpu_index_of(i) + a->base;
      for (size_t j = 0, s = scan_at(a, i), c = count_of(a, i); j < c; j++)
        out[s + j] = v;
    }
    return MGPU_OK;
  }
  uint32_t *out = a->out;
  for (size_t i = 0; i < a->m; i++) {
    const uint32_t v = (uint32_t)i + (uint32_t)a->base;
    for (size_t j = 0, s = scan_at(a, i), c = count_of(a, i); j < c; j++)
      out[s + j] = v;
  }
  return MGPU_OK;
}

mgpu_status mgpu_cpu_interval_expand(mgpu_context *ctx,
                                     mgpu_interval_args *a) {
  (void)ctx;
  for (size_t i = 0; i < a->m; i++)
    for (size_t j = 0, s = scan_at(a, i), c = count_of(a, i); j < c; j++)
      cpu_move_value(a->out, s + j, a->input, i, a->width);
  return MGPU_OK;
}

mgpu_status mgpu_cpu_interval_move(mgpu_context *ctx,
                                   mgpu_interval_args *a) {
  (void)ctx;
  for (size_t i = 0; i < a->m; i++) {
    /* modulo 2^64: g + j is below n_input only where the true sum is (a
     * negative start wraps to past 2^63, every n is below 2^53) */
    size_t g = a->gather ? (size_t)cpu_get_index(a->gather, a->gather_type, i)
                         : scan_at(a, i);
    size_t s = a->scatter
                   ? (size_t)cpu_get_index(a->scatter, a->scatter_type, i)
                   : scan_at(a, i);
    for (size_t j = 0, c = count_of(a, i); j < c; j++)
      if (g + j < a->n_input && s + j < a->n_out)
        cpu_move_value(a->out, s + j, a->input, g + j, a->width);
  }
  return MGPU_OK;
}
