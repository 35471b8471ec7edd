/*
 * cpu_indices.c - the checks and conversions that turn a caller's 1-based
 * indices, positions, counts and interval starts into 0-based index arrays
 * (int32, or int64 by the index dtype rule).
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

/* Counts are capped while summing, at 2^31 for an int32 scan (any count
 * that reaches it already passes its limit) and at SUM_CAP for an int64
 * one, and the sum stops at SUM_CAP: past every backend's limit, and two
 * capped values add up without overflow. */
#define I32_COUNT_CAP ((uint64_t)1 << 31)
#define SUM_CAP ((uint64_t)1 << 62)

/* A wrapped scan (mgpu.h): the sum modulo 2^32 and where it passes each
 * multiple of 2^32; counts capped at 2^32 - 1, a flag for any past it. */
#define WRAP_COUNT_CAP (((uint64_t)1 << 32) - 1)

static void scan_wrapped(mgpu_scan_args *a) {
  uint32_t *scan = (uint32_t *)a->scan;
  uint64_t sum = 0;
  for (size_t i = 0; i < a->m; i++) {
    int64_t c = index_at(a->counts, a->type, i);
    if (c < 0 && a->bad < 0) {
      a->bad = (int64_t)i;
      a->bad_value = c;
    }
    if ((uint64_t)c > WRAP_COUNT_CAP && c > 0) a->wide_count = 1;
    scan[i] = (uint32_t)sum;
    const uint64_t capped =
        c < 0 ? 0 : ((uint64_t)c < WRAP_COUNT_CAP ? (uint64_t)c : WRAP_COUNT_CAP);
    const uint64_t next = sum + capped < SUM_CAP ? sum + capped : SUM_CAP;
    /* the next start passes a multiple of 2^32 */
    if (i + 1 < a->m && next >> 32 != sum >> 32) {
      if (a->wraps.n < MGPU_MAX_WRAPS) a->wraps.at[a->wraps.n] = (int64_t)i + 1;
      a->wraps.n++;
    }
    sum = next;
  }
  a->total = (int64_t)sum;
}

mgpu_status mgpu_cpu_scan_counts(mgpu_context *ctx, mgpu_scan_args *a) {
  (void)ctx;
  if (a->index_type == MGPU_U32) {
    scan_wrapped(a);
    return MGPU_OK;
  }
  const void *counts = a->counts;
  mgpu_dtype t = a->type;
  size_t m = a->m;
  const uint64_t cap = a->index_type == MGPU_I64 ? SUM_CAP : I32_COUNT_CAP;
  uint64_t sum = 0;
  for (size_t i = 0; i < m; i++) {
    int64_t c = index_at(counts, t, i);
    if (c < 0 && a->bad < 0) {
      a->bad = (int64_t)i;
      a->bad_value = c;
    }
    /* an int32 scan saturates: a sum past INT32_MAX fails the call */
    cpu_put_index(a->scan, a->index_type, i,
                  a->index_type == MGPU_I64 || sum < INT32_MAX
                      ? (int64_t)sum : INT32_MAX);
    const uint64_t capped = c < 0 ? 0 : ((uint64_t)c < cap ? (uint64_t)c : cap);
    sum += capped;
    if (sum > SUM_CAP) sum = SUM_CAP;
  }
  a->total = (int64_t)sum;
  return MGPU_OK;
}

mgpu_status mgpu_cpu_prepare_starts(mgpu_context *ctx, mgpu_starts_args *a) {
  const void *starts = a->starts;
  mgpu_dtype t = a->type;
  size_t m = a->m;
  int64_t total = cpu_index_of(a->total);
  int64_t *bad = &a->bad, *bad_value = &a->bad_value, *max_end = &a->max_end;
  (void)ctx;
  const int64_t cap = a->limit >= 0 ? a->limit : (int64_t)MGPU_MAX_COUNT;
  for (size_t i = 0; i < m; i++) {
    int64_t s = index_at(starts, t, i);
    const int64_t here = cpu_get_index(a->scan, a->scan_type, i);
    int64_t count = (i + 1 < m ? cpu_get_index(a->scan, a->scan_type, i + 1)
                               : total) - here;
    /* s <= cap + 1 and s - 1 + count <= cap without those sums, which
     * overflow next to INT64_MAX: once s >= 1 and s - 1 <= cap, cap - (s - 1)
     * is in [0, cap]; and s - 1 + count, taken below only after the check,
     * is in (-2^63, cap] (count is a difference of two scan values or of
     * one and total, each in [0, SUM_CAP]) */
    int ok = s >= 1 && s - 1 <= cap && count <= cap - (s - 1);
    if (!ok) {
      *bad = (int64_t)i;
      *bad_value = s;
      return MGPU_OK;
    }
    /* s - 1 <= cap, which the C API keeps within what dst holds */
    cpu_put_index(a->dst, a->index_type, i, s - 1);
    if (count > 0 && s - 1 + count > *max_end) *max_end = s - 1 + count;
  }
  return MGPU_OK;
}
