/*
 * cpu_indices.c - the checks and conversions that turn a caller's 1-based
 * indices, positions, counts and interval starts into 0-based int32 arrays.
 */
#include "cpu.h"

/* Element i of an integer array as int64; u64 values past INT64_MAX read
 * as INT64_MAX, which every range check rejects. */
static int64_t index_at(const void *src, mgpu_dtype t, size_t i) {
  switch (t) {
  case MGPU_I32: return ((const int32_t *)src)[i];
  case MGPU_U32: return ((const uint32_t *)src)[i];
  case MGPU_I64: return ((const int64_t *)src)[i];
  case MGPU_U64: {
    uint64_t v = ((const uint64_t *)src)[i];
    return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
  }
  default: return INT64_MIN;
  }
}

mgpu_status mgpu_cpu_prepare_positions(mgpu_context *ctx,
                                       mgpu_positions_args *a) {
  (void)ctx;
  const void *src = a->src;
  mgpu_dtype t = a->type;
  size_t m = a->m;
  int64_t lo = a->lo, hi = a->hi;
  int unique = a->unique;
  void *dst = a->dst;
  int64_t *bad = &a->bad, *bad_value = &a->bad_value;
  int64_t prev = 0;
  for (size_t i = 0; i < m; i++) {
    int64_t v = index_at(src, t, i);
    int ok = v >= lo && v <= hi && (i == 0 || (unique ? prev < v : prev <= v));
    if (!ok) {
      *bad = (int64_t)i;
      *bad_value = v;
      return MGPU_OK;
    }
    /* v - 1 in unsigned arithmetic: v may be INT64_MIN when lo is; a
     * caller's lo below 1 gets v - 1 wrapped to the dtype (mgpu.h), not
     * cpu_put_index's range check */
    const uint64_t d = (uint64_t)v - 1;
    if (a->index_type == MGPU_I64)
      ((int64_t *)dst)[i] = (int64_t)d;
    else
      ((int32_t *)dst)[i] = (int32_t)(uint32_t)d;
    prev = v;
  }
  return MGPU_OK;
}

/* Counts are capped at 2^31 while summing: the sum of 2^31 of them still
 * fits int64, and any capped count already passes the limit. */
#define COUNT_CAP ((int64_t)1 << 31)

mgpu_status mgpu_cpu_scan_counts(mgpu_context *ctx, mgpu_scan_args *a) {
  (void)ctx;
  const void *counts = a->counts;
  mgpu_dtype t = a->type;
  size_t m = a->m;
  int32_t *scan = a->scan;
  int64_t *total = &a->total, *bad = &a->bad, *bad_value = &a->bad_value;
  int64_t sum = 0;
  for (size_t i = 0; i < m; i++) {
    int64_t c = index_at(counts, t, i);
    if (c < 0 && *bad < 0) {
      *bad = (int64_t)i;
      *bad_value = c;
    }
    scan[i] = (int32_t)(sum < INT32_MAX ? sum : INT32_MAX);
    sum += c < 0 ? 0 : (c < COUNT_CAP ? c : COUNT_CAP);
  }
  *total = sum;
  return MGPU_OK;
}

mgpu_status mgpu_cpu_prepare_starts(mgpu_context *ctx, mgpu_starts_args *a) {
  const void *starts = a->starts;
  mgpu_dtype t = a->type;
  const int32_t *scan = a->scan;
  size_t m = a->m, total = a->total;
  int64_t limit = a->limit;
  int32_t *dst = a->dst;
  int64_t *bad = &a->bad, *bad_value = &a->bad_value, *max_end = &a->max_end;
  (void)ctx;
  int64_t cap = limit >= 0 ? limit : (int64_t)MGPU_MAX_COUNT;
  for (size_t i = 0; i < m; i++) {
    int64_t s = index_at(starts, t, i);
    int64_t count = (i + 1 < m ? scan[i + 1] : (int64_t)total) - scan[i];
    /* s <= cap + 1 and s - 1 + count <= cap without those sums, which
     * overflow next to INT64_MAX: once s >= 1 and s - 1 <= cap, cap - (s - 1)
     * is in [0, cap]; and s - 1 + count, taken below only after the check,
     * is in (-2^32, cap] (count is a difference of int32s and total) */
    int ok = s >= 1 && s - 1 <= cap && count <= cap - (s - 1);
    if (!ok) {
      *bad = (int64_t)i;
      *bad_value = s;
      return MGPU_OK;
    }
    dst[i] = (int32_t)(s - 1);
    if (count > 0 && s - 1 + count > *max_end) *max_end = s - 1 + count;
  }
  return MGPU_OK;
}
