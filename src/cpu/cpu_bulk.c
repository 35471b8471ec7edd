/* cpu_bulk.c - bulk remove and bulk insert, serially. */
#include "cpu.h"

mgpu_status mgpu_cpu_bulk_remove(mgpu_context *ctx, mgpu_bulk_args *a) {
  (void)ctx;
  size_t width = a->width, n = a->n, m = a->m;
  const void *data = a->data;
  void *out = a->out;
  size_t k = 0, j = 0;
  for (size_t i = 0; i < n; i++) {
    /* a negative index wraps past n and matches nothing */
    if (j < m && (size_t)cpu_get_index(a->index, a->index_type, j) == i) {
      j++;
      continue;
    }
    cpu_move_value(out, k++, data, i, width);
  }
  return MGPU_OK;
}

mgpu_status mgpu_cpu_bulk_insert(mgpu_context *ctx, mgpu_bulk_args *a) {
  (void)ctx;
  size_t width = a->width, n = a->n, m = a->m;
  const void *data = a->data, *values = a->values;
  void *out = a->out;
  size_t k = 0, j = 0;
  for (size_t i = 0; i <= n; i++) {
    /* inserts at position i go before data[i] (after it for i == n) */
    while (j < m && (size_t)cpu_get_index(a->index, a->index_type, j) <= i)
      cpu_move_value(out, k++, values, j++, width);
    if (i < n) cpu_move_value(out, k++, data, i, width);
  }
  return MGPU_OK;
}
