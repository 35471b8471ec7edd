/*
 * cpu_segsort.c - segmented sort and locality sort on the host: a stable
 * sort of each segment in turn (locality sort is one segment; the host has
 * no tiles to skip, so its stats report no passes).
 */
#include <stdlib.h>

#include "cpu.h"

/* Is element i (> 0) the head of a segment, by the flags array? */
static int flag_at(const void *flags, mgpu_dtype t, size_t i) {
  switch (mgpu_dtype_size(t)) {
  case 4: return ((const uint32_t *)flags)[i] != 0;
  default: return ((const uint64_t *)flags)[i] != 0;
  }
}

mgpu_status mgpu_cpu_segsort(mgpu_context *ctx, mgpu_segsort_args *a) {
  const mgpu_sort_args *s = &a->sort;
  size_t n = s->n;
  unsigned char *head = NULL;
  if (a->heads && a->m) {
    /* the set of heads, whatever their order; out-of-range ones ignored */
    head = calloc(n, 1);
    if (!head) return mgpu_set_error(ctx, MGPU_ENOMEM, "out of host memory");
    for (size_t j = 0; j < a->m; j++) {
      const int64_t h = cpu_get_index(a->heads, a->index_type, j);
      if (h >= 0 && (uint64_t)h < n) head[(size_t)h] = 1;
    }
  }
  void *tk, *tv;
  mgpu_status st = mgpu_cpu_sort_temps(ctx, s, &tk, &tv);
  if (st != MGPU_OK) {
    free(head);
    return st;
  }
  size_t lo = 0;
  for (size_t i = 1; i <= n; i++) {
    int starts = i == n || (head && head[i]) ||
                 (a->flags && flag_at(a->flags, a->flag_type, i));
    if (!starts) continue;
    mgpu_cpu_sort_range(s, lo, i, tk, tv);
    lo = i;
  }
  mgpu_cpu_sort_temps_free(ctx, s, tk, tv);
  free(head);
  return MGPU_OK;
}
