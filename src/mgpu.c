/*
 * mgpu.c - the C API's dispatch: which backend a context gets, and the
 * checks every backend relies on before it is called.  The services a
 * backend itself may call (errors, memory accounting) are in context.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "element.h"

#ifndef MGPU_HAVE_CUDA
const mgpu_backend *mgpu_cuda_backend(void) { return NULL; }
int mgpu_cuda_backend_device_count(void) { return 0; }
#endif

int mgpu_cuda_device_count(void) { return mgpu_cuda_backend_device_count(); }

/* ---- contexts ------------------------------------------------------------ */

static void put_err(char *buf, size_t len, const char *msg) {
  if (buf && len) snprintf(buf, len, "%s", msg);
}

/* "cpu" -> -1; "cuda" -> 0; "cuda:N" -> N; anything else -> -2. */
static int parse_device(const char *device) {
  if (strcmp(device, "cpu") == 0) return -1;
  if (strcmp(device, "cuda") == 0) return 0;
  if (strncmp(device, "cuda:", 5) == 0) {
    const char *p = device + 5;
    if (*p < '0' || *p > '9') return -2;
    long n = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
      n = n * 10 + (*p - '0');
      if (n > 1024) return -2;
    }
    return *p ? -2 : (int)n;
  }
  return -2;
}

mgpu_status mgpu_context_create(const char *device, mgpu_context **out,
                                char *errbuf, size_t errlen) {
  mgpu_context_options o = {device, NULL, NULL};
  return mgpu_context_create_with(&o, out, errbuf, errlen);
}

mgpu_status mgpu_context_create_with(const mgpu_context_options *options,
                                     mgpu_context **out, char *errbuf,
                                     size_t errlen) {
  *out = NULL;
  if (!options) {
    put_err(errbuf, errlen, "options must not be NULL");
    return MGPU_EINVAL;
  }
  const char *device = options->device ? options->device : "cpu";
  const mgpu_allocator *al = options->allocator;
  if (al && (!al->alloc) != (!al->free)) {
    put_err(errbuf, errlen, "allocator: alloc and free must both be given");
    return MGPU_EINVAL;
  }
  int dev = parse_device(device);
  if (dev == -2) {
    put_err(errbuf, errlen, "device must be \"cpu\", \"cuda\" or \"cuda:N\"");
    return MGPU_EINVAL;
  }
  const mgpu_backend *be = dev < 0 ? mgpu_cpu_backend() : mgpu_cuda_backend();
  if (!be) {
    put_err(errbuf, errlen, "this build of mgpu has no CUDA backend");
    return MGPU_ENODEV;
  }
  if (dev >= 0 && dev >= mgpu_cuda_device_count()) {
    char msg[96];
    snprintf(msg, sizeof msg, "no CUDA device %d (%d available)", dev,
             mgpu_cuda_device_count());
    put_err(errbuf, errlen, msg);
    return MGPU_ENODEV;
  }
  if (dev < 0 && options->stream) {
    put_err(errbuf, errlen, "a cpu context has no stream: stream must be NULL");
    return MGPU_EINVAL;
  }
  mgpu_context *ctx = calloc(1, sizeof *ctx);
  if (!ctx) {
    put_err(errbuf, errlen, "out of host memory");
    return MGPU_ENOMEM;
  }
  ctx->host_stream = options->stream;
  if (al && al->alloc) ctx->allocator = *al;
  ctx->be = be;
  ctx->refs = 1;
  ctx->device = dev;
  if (dev < 0)
    snprintf(ctx->device_name, sizeof ctx->device_name, "cpu");
  else
    snprintf(ctx->device_name, sizeof ctx->device_name, "cuda:%d", dev);
  mgpu_status s = be->context_init(ctx, dev);
  if (s != MGPU_OK) {
    put_err(errbuf, errlen, ctx->error);
    free(ctx);
    return s;
  }
  *out = ctx;
  return MGPU_OK;
}

/* ---- element operations ---------------------------------------------------- */

static mgpu_status check_type(mgpu_context *ctx, mgpu_dtype t) {
  if ((unsigned)t >= MGPU_DTYPE_COUNT)
    return mgpu_set_error(ctx, MGPU_EINVAL, "unknown dtype %d", (int)t);
  return MGPU_OK;
}

/* A plain element count: the backend's limit. */
static mgpu_status check_count(mgpu_context *ctx, size_t n) {
  if (n > ctx->be->max_count)
    return mgpu_set_error(ctx, MGPU_ETOOBIG,
                          "%zu elements is past the limit of %zu", n,
                          ctx->be->max_count);
  return MGPU_OK;
}

mgpu_dtype mgpu_index_type(uint64_t largest) {
  return largest <= (uint64_t)INT32_MAX ? MGPU_I32 : MGPU_I64;
}

/* An index array's dtype: i32, or i64 where the backend takes it. */
static mgpu_status check_index_dtype(mgpu_context *ctx, const char *call,
                                     const char *what, mgpu_dtype t) {
  if (t != MGPU_I32 && t != MGPU_I64)
    return mgpu_set_error(ctx, MGPU_EINVAL, "%s must be i32 or i64 (got %s)",
                          what, (unsigned)t < MGPU_DTYPE_COUNT
                                    ? mgpu_dtype_name(t) : "an unknown dtype");
  if (t == MGPU_I64 && !ctx->be->wide_index)
    return mgpu_set_error(ctx, MGPU_EINVAL,
                          "%s%s%s must be i32 on %s (its kernels take int32 "
                          "index arrays, up to the 32-bit index limit of %zu)",
                          call ? call : "", call ? ": " : "", what,
                          ctx->be->name, MGPU_MAX_COUNT);
  return MGPU_OK;
}

/* An index array a call writes, whose values reach `largest`: an i32 one
 * must hold them (mgpu_index_type gives the dtype that does). */
static mgpu_status check_index_out(mgpu_context *ctx, const char *call,
                                   const char *what, mgpu_dtype t,
                                   uint64_t largest) {
  /* a backend of int32 indices: the values themselves are too big */
  if (t == MGPU_I64 && !ctx->be->wide_index &&
      largest > (uint64_t)INT32_MAX)
    return mgpu_set_error(ctx, MGPU_ETOOBIG,
                          "%s%s%s may hold %llu, past the 32-bit index limit "
                          "of %zu of %s", call ? call : "", call ? ": " : "",
                          what, (unsigned long long)largest, MGPU_MAX_COUNT,
                          ctx->be->name);
  const mgpu_status s = check_index_dtype(ctx, call, what, t);
  if (s != MGPU_OK) return s;
  if (t == MGPU_I32 && largest > (uint64_t)INT32_MAX)
    return mgpu_set_error(ctx, MGPU_ETOOBIG,
                          "%s may hold %llu, past the 32-bit index limit of "
                          "%zu: it must be i64", what,
                          (unsigned long long)largest, MGPU_MAX_COUNT);
  return MGPU_OK;
}

#define TRY(expr)                                                              \
  do {                                                                         \
    mgpu_status s_ = (expr);                                                   \
    if (s_ != MGPU_OK) return s_;                                              \
  } while (0)

mgpu_status mgpu_fill(mgpu_context *ctx, void *dst, size_t n, mgpu_dtype t,
                      const void *value) {
  TRY(check_type(ctx, t));
  TRY(check_count(ctx, n));
  mgpu_fill_args a = {dst, n, mgpu_dtype_size(t), value};
  return n ? ctx->be->fill(ctx, &a) : MGPU_OK;
}

mgpu_status mgpu_iota(mgpu_context *ctx, void *dst, size_t n, mgpu_dtype t,
                      mgpu_scalar start, mgpu_scalar step) {
  TRY(check_type(ctx, t));
  TRY(check_count(ctx, n));
  mgpu_iota_args a = {dst, n, t, start, step};
  return n ? ctx->be->iota(ctx, &a) : MGPU_OK;
}

mgpu_status mgpu_random(mgpu_context *ctx, void *dst, size_t n, mgpu_dtype t,
                        mgpu_scalar lo, mgpu_scalar hi, uint64_t seed) {
  TRY(check_type(ctx, t));
  TRY(check_count(ctx, n));
  if (t == MGPU_F32) {
    /* floats in [lo, hi): the bounds move up to the floats that bracket
     * the same f32 values */
    int proper = lo.f < hi.f;
    lo.f = mgpu_random_f32_bound(lo.f);
    hi.f = proper ? mgpu_random_f32_bound(hi.f) : lo.f;
    if (proper && !(lo.f < hi.f))
      return mgpu_set_error(ctx, MGPU_EINVAL, "no f32 value lies in [lo, hi)");
  }
  mgpu_random_args a = {dst, n, t, lo, hi, seed};
  return n ? ctx->be->random(ctx, &a) : MGPU_OK;
}

mgpu_status mgpu_astype(mgpu_context *ctx, void *dst, mgpu_dtype dst_type,
                        const void *src, mgpu_dtype src_type, size_t n) {
  TRY(check_type(ctx, dst_type));
  TRY(check_type(ctx, src_type));
  TRY(check_count(ctx, n));
  if (!n) return MGPU_OK;
  if (dst_type == src_type) return mgpu_copy(ctx, dst, src, n * mgpu_dtype_size(src_type));
  mgpu_astype_args a = {dst, dst_type, src, src_type, n};
  return ctx->be->astype(ctx, &a);
}

mgpu_status mgpu_is_sorted(mgpu_context *ctx, const void *src, size_t n,
                           mgpu_dtype t, mgpu_order order, int *sorted) {
  TRY(check_type(ctx, t));
  TRY(check_count(ctx, n));
  *sorted = 1;
  if (n < 2) return MGPU_OK;
  mgpu_is_sorted_args a = {src, n, t, order, 1};
  TRY(ctx->be->is_sorted(ctx, &a));
  *sorted = a.sorted;
  return MGPU_OK;
}

/* ---- primitives -------------------------------------------------------------- */

static mgpu_status check_keys(mgpu_context *ctx, mgpu_dtype t, mgpu_order o,
                              size_t value_size) {
  TRY(check_type(ctx, t));
  if (o != MGPU_LESS && o != MGPU_GREATER)
    return mgpu_set_error(ctx, MGPU_EINVAL, "unknown order %d", (int)o);
  if (value_size != 0 && value_size != 4 && value_size != 8)
    return mgpu_set_error(ctx, MGPU_EINVAL,
                          "value_size must be 0, 4 or 8 (got %zu)", value_size);
  return MGPU_OK;
}

mgpu_status mgpu_merge(mgpu_context *ctx, mgpu_dtype key_type,
                       mgpu_order order, const void *a_keys, size_t na,
                       const void *b_keys, size_t nb, void *out_keys,
                       size_t value_size, const void *a_vals,
                       const void *b_vals, void *out_vals) {
  TRY(check_keys(ctx, key_type, order, value_size));
  TRY(check_count(ctx, na));
  TRY(check_count(ctx, nb));
  /* no wrap: each count is at most max_count <= SIZE_MAX / 2 */
  if (na + nb > ctx->be->max_count)
    return mgpu_set_error(ctx, MGPU_ETOOBIG,
                          "the result would have %zu elements, past the "
                          "limit of %zu",
                          na + nb, ctx->be->max_count);
  if (na + nb == 0) return MGPU_OK;
  mgpu_merge_args args = {key_type, order, value_size, a_keys, a_vals, na,
                          b_keys, b_vals, nb, out_keys, out_vals};
  return ctx->be->merge(ctx, &args);
}

mgpu_status mgpu_mergesort(mgpu_context *ctx, mgpu_dtype key_type,
                           mgpu_order order, void *keys, size_t n,
                           size_t value_size, void *vals) {
  TRY(check_keys(ctx, key_type, order, value_size));
  TRY(check_count(ctx, n));
  if (n < 2) return MGPU_OK;
  mgpu_sort_args args = {key_type, order, value_size, keys, vals, n};
  return ctx->be->mergesort(ctx, &args);
}

mgpu_status mgpu_sort(mgpu_context *ctx, mgpu_dtype key_type, mgpu_order order,
                      void *keys, size_t n, size_t value_size, void *vals) {
  TRY(check_keys(ctx, key_type, order, value_size));
  TRY(check_count(ctx, n));
  if (n < 2) return MGPU_OK;
  mgpu_sort_args args = {key_type, order, value_size, keys, vals, n};
  return ctx->be->sort(ctx, &args);
}

static mgpu_status run_segsort(mgpu_context *ctx, mgpu_segsort_args *a) {
  mgpu_sort_args *s = &a->sort;
  TRY(check_keys(ctx, s->key_type, s->order, s->value_size));
  TRY(check_count(ctx, s->n));
  TRY(check_count(ctx, a->m));
  if (a->heads) {
    TRY(check_index_dtype(ctx, "segsort", "heads", a->index_type));
  }
  if (a->stats) memset(a->stats, 0, sizeof *a->stats);
  if (s->n < 2) return MGPU_OK;
  if (!ctx->be->segsort)
    return mgpu_set_error(ctx, MGPU_ENODEV, "not available on %s",
                          ctx->be->name);
  return ctx->be->segsort(ctx, a);
}

mgpu_status mgpu_segsort_idx(mgpu_context *ctx, mgpu_dtype key_type,
                             mgpu_order order, void *keys, size_t n,
                             size_t value_size, void *vals, const void *heads,
                             mgpu_dtype heads_type, size_t m,
                             mgpu_sort_stats *stats) {
  mgpu_segsort_args a = {{key_type, order, value_size, keys, vals, n},
                         heads, m, NULL, MGPU_I32, stats, heads_type};
  if (!heads) a.m = 0;
  return run_segsort(ctx, &a);
}

mgpu_status mgpu_segsort(mgpu_context *ctx, mgpu_dtype key_type,
                         mgpu_order order, void *keys, size_t n,
                         size_t value_size, void *vals, const int32_t *heads,
                         size_t m, mgpu_sort_stats *stats) {
  return mgpu_segsort_idx(ctx, key_type, order, keys, n, value_size, vals,
                          heads, MGPU_I32, m, stats);
}

mgpu_status mgpu_segsort_flags(mgpu_context *ctx, mgpu_dtype key_type,
                               mgpu_order order, void *keys, size_t n,
                               size_t value_size, void *vals,
                               const void *flags, mgpu_dtype flag_type,
                               mgpu_sort_stats *stats) {
  TRY(check_type(ctx, flag_type));
  if (mgpu_dtype_is_float(flag_type))
    return mgpu_set_error(ctx, MGPU_EINVAL,
                          "flags must have an integer dtype (got %s)",
                          mgpu_dtype_name(flag_type));
  mgpu_segsort_args a = {{key_type, order, value_size, keys, vals, n},
                         NULL, 0, flags, flag_type, stats, MGPU_I32};
  return run_segsort(ctx, &a);
}

mgpu_status mgpu_locality_sort(mgpu_context *ctx, mgpu_dtype key_type,
                               mgpu_order order, void *keys, size_t n,
                               size_t value_size, void *vals,
                               mgpu_sort_stats *stats) {
  mgpu_segsort_args a = {{key_type, order, value_size, keys, vals, n},
                         NULL, 0, NULL, MGPU_I32, stats, MGPU_I32};
  return run_segsort(ctx, &a);
}

size_t mgpu_setop_capacity(mgpu_setop_kind op, size_t na, size_t nb) {
  switch (op) {
  case MGPU_SET_INTERSECTION: return na < nb ? na : nb;
  case MGPU_SET_DIFFERENCE: return na;
  default: return na + nb;
  }
}

mgpu_status mgpu_setop(mgpu_context *ctx, mgpu_setop_kind op,
                       mgpu_dtype key_type, mgpu_order order, int duplicates,
                       const void *a_keys, size_t na, const void *b_keys,
                       size_t nb, void *out_keys, size_t value_size,
                       const void *a_vals, const void *b_vals, void *out_vals,
                       size_t *count) {
  *count = 0;
  TRY(check_keys(ctx, key_type, order, value_size));
  if ((unsigned)op > MGPU_SET_SYMMETRIC_DIFFERENCE)
    return mgpu_set_error(ctx, MGPU_EINVAL, "unknown set operation %d",
                          (int)op);
  TRY(check_count(ctx, na));
  TRY(check_count(ctx, nb));
  /* no wrap: each count is at most max_count <= SIZE_MAX / 2 */
  size_t cap = mgpu_setop_capacity(op, na, nb);
  if (cap > ctx->be->max_count)
    return mgpu_set_error(ctx, MGPU_ETOOBIG,
                          "the result may have %zu elements, past the limit "
                          "of %zu",
                          cap, ctx->be->max_count);
  if (cap == 0) return MGPU_OK;
  if (na == 0 || nb == 0) {
    /* one side empty: the result is the other side, or nothing */
    int from_a = nb == 0;
    if (!from_a && (op == MGPU_SET_DIFFERENCE)) return MGPU_OK;
    size_t n = from_a ? na : nb;
    TRY(mgpu_copy(ctx, out_keys, from_a ? a_keys : b_keys,
                  n * mgpu_dtype_size(key_type)));
    if (value_size)
      TRY(mgpu_copy(ctx, out_vals, from_a ? a_vals : b_vals, n * value_size));
    *count = n;
    return MGPU_OK;
  }
  mgpu_setop_args a = {op, key_type, order, duplicates != 0, value_size,
                       a_keys, a_vals, na, b_keys, b_vals, nb,
                       out_keys, out_vals, cap, 0};
  if (!ctx->be->setop)
    return mgpu_set_error(ctx, MGPU_ENODEV, "not available on %s",
                          ctx->be->name);
  TRY(ctx->be->setop(ctx, &a));
  *count = a.count;
  return MGPU_OK;
}

/* ---- index preparation, bulk and interval operations -------------------- */

static mgpu_status check_index_type(mgpu_context *ctx, mgpu_dtype t) {
  TRY(check_type(ctx, t));
  if (mgpu_dtype_is_float(t))
    return mgpu_set_error(ctx, MGPU_EINVAL, "index arrays must have an "
                                            "integer dtype (got %s)",
                          mgpu_dtype_name(t));
  return MGPU_OK;
}

static mgpu_status check_width(mgpu_context *ctx, size_t width) {
  if (width != 4 && width != 8)
    return mgpu_set_error(ctx, MGPU_EINVAL,
                          "element width must be 4 or 8 (got %zu)", width);
  return MGPU_OK;
}

static mgpu_status reported(mgpu_context *ctx, int64_t bad, const char *what) {
  if (bad < 0) return MGPU_OK;
  return mgpu_set_error(ctx, MGPU_EINVAL, "%s (first at position %lld)", what,
                        (long long)bad);
}

mgpu_status mgpu_prepare_positions_idx(mgpu_context *ctx, const void *src,
                                       mgpu_dtype t, size_t m, int64_t lo,
                                       int64_t hi, int unique,
                                       mgpu_dtype dst_type, void *dst,
                                       int64_t *bad, int64_t *bad_value) {
  *bad = -1;
  *bad_value = 0;
  TRY(check_index_type(ctx, t));
  TRY(check_count(ctx, m));
  /* the largest 0-based position is hi - 1 */
  TRY(check_index_out(ctx, NULL, "dst", dst_type,
                      hi > 0 ? (uint64_t)hi - 1 : 0));
  if (!m) return MGPU_OK;
  mgpu_positions_args a = {src, t, m, lo, hi, unique, dst, -1, 0, dst_type};
  TRY(ctx->be->prepare_positions(ctx, &a));
  *bad = a.bad;
  *bad_value = a.bad_value;
  return reported(ctx, *bad, "position out of range or out of order");
}

mgpu_status mgpu_prepare_positions(mgpu_context *ctx, const void *src,
                                   mgpu_dtype t, size_t m, int64_t lo,
                                   int64_t hi, int unique, int32_t *dst,
                                   int64_t *bad, int64_t *bad_value) {
  *bad = -1;
  *bad_value = 0;
  if (hi > (int64_t)MGPU_MAX_COUNT + 1)
    return mgpu_set_error(ctx, MGPU_EINVAL,
                          "hi = %lld is past the 32-bit index limit + 1 "
                          "(positions are int32)", (long long)hi);
  return mgpu_prepare_positions_idx(ctx, src, t, m, lo, hi, unique, MGPU_I32,
                                    dst, bad, bad_value);
}

/* The most a scan of scan_type may add up to: an int32 scan's values stop
 * at the 32-bit index limit, an int64 one's at the backend's element
 * limit (the total is a length). */
static size_t scan_limit(mgpu_context *ctx, mgpu_dtype scan_type) {
  return scan_type == MGPU_I64 ? ctx->be->max_count : MGPU_MAX_COUNT;
}

mgpu_status mgpu_scan_counts_idx(mgpu_context *ctx, const void *counts,
                                 mgpu_dtype t, size_t m, mgpu_dtype scan_type,
                                 void *scan, int64_t *total, int64_t *bad,
                                 int64_t *bad_value) {
  *bad = -1;
  *bad_value = 0;
  *total = 0;
  TRY(check_index_type(ctx, t));
  TRY(check_count(ctx, m));
  TRY(check_index_dtype(ctx, NULL, "scan", scan_type));
  if (!m) return MGPU_OK;
  mgpu_scan_args a = {.counts = counts, .type = t, .m = m, .scan = scan,
                      .bad = -1, .index_type = scan_type};
  TRY(ctx->be->scan_counts(ctx, &a));
  *total = a.total;
  *bad = a.bad;
  *bad_value = a.bad_value;
  TRY(reported(ctx, *bad, "negative count"));
  const size_t most = scan_limit(ctx, scan_type);
  if (*total > (int64_t)most)
    return mgpu_set_error(ctx, MGPU_ETOOBIG,
                          "the counts add up to %lld, past the %slimit of %zu",
                          (long long)*total,
                          scan_type == MGPU_I32 ? "32-bit index " : "", most);
  return MGPU_OK;
}

mgpu_status mgpu_scan_counts(mgpu_context *ctx, const void *counts,
                             mgpu_dtype t, size_t m, int32_t *scan,
                             int64_t *total, int64_t *bad,
                             int64_t *bad_value) {
  return mgpu_scan_counts_idx(ctx, counts, t, m, MGPU_I32, scan, total, bad,
                              bad_value);
}

mgpu_status mgpu_scan_counts_wrapped(mgpu_context *ctx, const void *counts,
                                     mgpu_dtype t, size_t m, uint32_t *scan,
                                     mgpu_wraps *wraps, int64_t *total,
                                     int64_t *bad, int64_t *bad_value) {
  *bad = -1;
  *bad_value = 0;
  *total = 0;
  memset(wraps, 0, sizeof *wraps);
  TRY(check_index_type(ctx, t));
  TRY(check_count(ctx, m));
  if (!m) return MGPU_OK;
  mgpu_scan_args a = {.counts = counts, .type = t, .m = m,
                      .scan = (int32_t *)scan, .bad = -1,
                      .index_type = MGPU_U32};
  TRY(ctx->be->scan_counts(ctx, &a));
  *total = a.total;
  *bad = a.bad;
  *bad_value = a.bad_value;
  TRY(reported(ctx, *bad, "negative count"));
  if (a.wide_count)
    return mgpu_set_error(ctx, MGPU_ETOOBIG,
                          "a count is 2^32 or more: a wrapped scan cannot "
                          "hold it (scan into int64)");
  const size_t most = ctx->be->wide_index ? ctx->be->max_count
                                          : MGPU_MAX_COUNT;
  if (*total > (int64_t)most)
    return mgpu_set_error(ctx, MGPU_ETOOBIG,
                          "the counts add up to %lld, past the limit of %zu",
                          (long long)*total, most);
  if (a.wraps.n > MGPU_MAX_WRAPS)
    return mgpu_set_error(ctx, MGPU_ETOOBIG,
                          "the starts pass %d multiples of 2^32, more than "
                          "a wrapped scan keeps (%d): scan into int64",
                          a.wraps.n, MGPU_MAX_WRAPS);
  *wraps = a.wraps;
  return MGPU_OK;
}

mgpu_status mgpu_prepare_starts_idx(mgpu_context *ctx, const void *starts,
                                    mgpu_dtype t, const void *scan,
                                    mgpu_dtype scan_type, size_t m,
                                    size_t total, int64_t limit,
                                    mgpu_dtype dst_type, void *dst,
                                    int64_t *bad, int64_t *bad_value,
                                    int64_t *max_end) {
  *bad = -1;
  *bad_value = 0;
  *max_end = 0;
  TRY(check_index_type(ctx, t));
  TRY(check_count(ctx, m));
  TRY(check_count(ctx, total));
  TRY(check_index_out(ctx, NULL, "scan", scan_type, total));
  TRY(check_index_dtype(ctx, NULL, "dst", dst_type));
  /* with no array, ends up to the dtype's limit; int32 starts stop at the
   * 32-bit index limit whatever the array, so that every start fits */
  const int64_t most = (int64_t)scan_limit(ctx, dst_type);
  const int64_t cap =
      limit < 0 || (dst_type == MGPU_I32 && limit > most) ? most : limit;
  if (!m) return MGPU_OK;
  mgpu_starts_args a = {starts, t,  scan, m, total,    cap,     dst,
                        -1,     0,  0,    scan_type, dst_type};
  TRY(ctx->be->prepare_starts(ctx, &a));
  *bad = a.bad;
  *bad_value = a.bad_value;
  *max_end = a.max_end;
  return reported(ctx, *bad, "interval out of range");
}

mgpu_status mgpu_prepare_starts(mgpu_context *ctx, const void *starts,
                                mgpu_dtype t, const int32_t *scan, size_t m,
                                size_t total, int64_t limit, int32_t *dst,
                                int64_t *bad, int64_t *bad_value,
                                int64_t *max_end) {
  return mgpu_prepare_starts_idx(ctx, starts, t, scan, MGPU_I32, m, total,
                                 limit, MGPU_I32, dst, bad, bad_value,
                                 max_end);
}

mgpu_status mgpu_bulk_remove_idx(mgpu_context *ctx, size_t width,
                                 const void *data, size_t n,
                                 const void *indices, mgpu_dtype indices_type,
                                 size_t m, void *out) {
  TRY(check_width(ctx, width));
  TRY(check_count(ctx, n));
  TRY(check_index_dtype(ctx, NULL, "indices", indices_type));
  if (m > n)
    return mgpu_set_error(ctx, MGPU_EINVAL,
                          "%zu indices to remove from %zu elements", m, n);
  if (n == m) return MGPU_OK;
  if (!m) return mgpu_copy(ctx, out, data, n * width);
  mgpu_bulk_args a = {width, data, n, indices, NULL, m, out, indices_type};
  return ctx->be->bulk_remove(ctx, &a);
}

mgpu_status mgpu_bulk_remove(mgpu_context *ctx, size_t width, const void *data,
                             size_t n, const int32_t *indices, size_t m,
                             void *out) {
  return mgpu_bulk_remove_idx(ctx, width, data, n, indices, MGPU_I32, m, out);
}

mgpu_status mgpu_bulk_insert_idx(mgpu_context *ctx, size_t width,
                                 const void *data, size_t n,
                                 const void *positions,
                                 mgpu_dtype positions_type,
                                 const void *values, size_t m, void *out) {
  TRY(check_width(ctx, width));
  TRY(check_count(ctx, n));
  TRY(check_count(ctx, m));
  TRY(check_index_dtype(ctx, NULL, "positions", positions_type));
  /* no wrap: each count is at most max_count <= SIZE_MAX / 2 */
  if (n + m > ctx->be->max_count)
    return mgpu_set_error(ctx, MGPU_ETOOBIG,
                          "the result would have %zu elements, past the "
                          "limit of %zu",
                          n + m, ctx->be->max_count);
  if (!m) return mgpu_copy(ctx, out, data, n * width);
  mgpu_bulk_args a = {width, data, n, positions, values, m, out,
                      positions_type};
  return ctx->be->bulk_insert(ctx, &a);
}

mgpu_status mgpu_bulk_insert(mgpu_context *ctx, size_t width, const void *data,
                             size_t n, const int32_t *positions,
                             const void *values, size_t m, void *out) {
  return mgpu_bulk_insert_idx(ctx, width, data, n, positions, MGPU_I32, values,
                              m, out);
}

/* The interval kernels walk a Merge Path over the m intervals and the
 * total outputs together, whose places must stay within the backend's
 * limit; scan, of scan_type, holds values up to total. */
static mgpu_status check_intervals(mgpu_context *ctx, size_t m, size_t total,
                                   mgpu_dtype scan_type) {
  TRY(check_count(ctx, m));
  TRY(check_count(ctx, total));
  const size_t most = ctx->be->max_count;
  if (m > most - total)
    return mgpu_set_error(ctx, MGPU_ETOOBIG,
                          "%zu intervals and %zu outputs are past %zu "
                          "together, the most this call takes on %s",
                          m, total, most, ctx->be->name);
  return check_index_out(ctx, NULL, "scan", scan_type, total);
}

/* A wrapped scan's wraps (mgpu.h): increasing starts in [1, m), as many as
 * the total allows.  The kernels keep inside their arrays whatever the
 * scan holds; this is for the caller's message. */
static mgpu_status check_wraps(mgpu_context *ctx, const mgpu_wraps *w,
                               size_t m, size_t total) {
  if (w->n < 0 || w->n > MGPU_MAX_WRAPS ||
      (uint64_t)w->n > (uint64_t)total >> 32)
    return mgpu_set_error(ctx, MGPU_EINVAL,
                          "wraps->n = %d: a total of %zu passes at most %llu "
                          "multiples of 2^32 (and a wrapped scan keeps %d)",
                          w->n, total, (unsigned long long)(total >> 32),
                          MGPU_MAX_WRAPS);
  for (int i = 0; i < w->n; i++)
    if (w->at[i] < 1 || (uint64_t)w->at[i] >= m ||
        (i > 0 && w->at[i] <= w->at[i - 1]))
      return mgpu_set_error(ctx, MGPU_EINVAL,
                            "wraps->at[%d] = %lld: not an increasing start "
                            "in [1, %zu)", i, (long long)w->at[i], m);
  return MGPU_OK;
}

/* check_intervals for a scan of scan_type, or for a wrapped one (wraps;
 * its starts reach what an int64 scan's do) */
static mgpu_status check_scan(mgpu_context *ctx, size_t m, size_t total,
                              mgpu_dtype scan_type, const mgpu_wraps *wraps) {
  if (scan_type == MGPU_U32 && !wraps)
    return mgpu_set_error(ctx, MGPU_EINVAL,
                          "a wrapped scan needs its wraps (NULL given)");
  if (!wraps) return check_intervals(ctx, m, total, scan_type);
  TRY(check_intervals(ctx, m, total, MGPU_I64));
  return check_wraps(ctx, wraps, m, total);
}

/* load_balance and interval_expand on a scan of scan_type, or on a
 * wrapped one (scan_type MGPU_U32 with wraps) */
static mgpu_status load_balance(mgpu_context *ctx, const void *scan,
                                mgpu_dtype scan_type, const mgpu_wraps *wraps,
                                size_t m, size_t total, int32_t base,
                                mgpu_dtype out_type, void *out) {
  TRY(check_scan(ctx, m, total, scan_type, wraps));
  TRY(check_index_dtype(ctx, NULL, "out", out_type));
  /* an int32 out wraps base + i to 32 bits (mgpu.h), but i itself fits */
  if (out_type == MGPU_I32 && m > (size_t)INT32_MAX + 1)
    return mgpu_set_error(ctx, MGPU_ETOOBIG,
                          "out may hold interval %zu, past the 32-bit index "
                          "limit of %zu: it must be i64",
                          m - 1, MGPU_MAX_COUNT);
  if (!total) return MGPU_OK;
  mgpu_interval_args a = {.width = 4,        .scan = scan,
                          .m = m,            .total = total,
                          .out = out,        .n_out = total,
                          .base = base,      .scan_type = scan_type,
                          .index_type = out_type};
  a.wraps = wraps;
  return ctx->be->load_balance(ctx, &a);
}

mgpu_status mgpu_load_balance_idx(mgpu_context *ctx, const void *scan,
                                  mgpu_dtype scan_type, size_t m,
                                  size_t total, int32_t base,
                                  mgpu_dtype out_type, void *out) {
  return load_balance(ctx, scan, scan_type, NULL, m, total, base, out_type,
                      out);
}

mgpu_status mgpu_load_balance_wrapped(mgpu_context *ctx, const uint32_t *scan,
                                      const mgpu_wraps *wraps, size_t m,
                                      size_t total, int32_t base,
                                      mgpu_dtype out_type, void *out) {
  return load_balance(ctx, scan, MGPU_U32, wraps, m, total, base, out_type,
                      out);
}

mgpu_status mgpu_load_balance(mgpu_context *ctx, const int32_t *scan, size_t m,
                              size_t total, int32_t base, int32_t *out) {
  return mgpu_load_balance_idx(ctx, scan, MGPU_I32, m, total, base, MGPU_I32,
                               out);
}

static mgpu_status interval_expand(mgpu_context *ctx, size_t width,
                                   const void *values, const void *scan,
                                   mgpu_dtype scan_type,
                                   const mgpu_wraps *wraps, size_t m,
                                   size_t total, void *out) {
  TRY(check_width(ctx, width));
  TRY(check_scan(ctx, m, total, scan_type, wraps));
  if (!total) return MGPU_OK;
  mgpu_interval_args a = {.width = width,   .input = values,
                          .n_input = m,     .scan = scan,
                          .m = m,           .total = total,
                          .out = out,       .n_out = total,
                          .scan_type = scan_type};
  a.wraps = wraps;
  return ctx->be->interval_expand(ctx, &a);
}

mgpu_status mgpu_interval_expand_idx(mgpu_context *ctx, size_t width,
                                     const void *values, const void *scan,
                                     mgpu_dtype scan_type, size_t m,
                                     size_t total, void *out) {
  return interval_expand(ctx, width, values, scan, scan_type, NULL, m, total,
                         out);
}

mgpu_status mgpu_interval_expand_wrapped(mgpu_context *ctx, size_t width,
                                         const void *values,
                                         const uint32_t *scan,
                                         const mgpu_wraps *wraps, size_t m,
                                         size_t total, void *out) {
  return interval_expand(ctx, width, values, scan, MGPU_U32, wraps, m, total,
                         out);
}

mgpu_status mgpu_interval_expand(mgpu_context *ctx, size_t width,
                                 const void *values, const int32_t *scan,
                                 size_t m, size_t total, void *out) {
  return mgpu_interval_expand_idx(ctx, width, values, scan, MGPU_I32, m, total,
                                  out);
}

mgpu_status mgpu_interval_move_idx(mgpu_context *ctx, size_t width,
                                   const void *input, size_t n_input,
                                   const void *gather, mgpu_dtype gather_type,
                                   const void *scatter,
                                   mgpu_dtype scatter_type, const void *scan,
                                   mgpu_dtype scan_type, size_t m,
                                   size_t total, void *out, size_t n_out) {
  TRY(check_width(ctx, width));
  TRY(check_intervals(ctx, m, total, scan_type));
  TRY(check_count(ctx, n_input));
  TRY(check_count(ctx, n_out));
  if (gather) TRY(check_index_dtype(ctx, NULL, "gather", gather_type));
  if (scatter) TRY(check_index_dtype(ctx, NULL, "scatter", scatter_type));
  if (!total) return MGPU_OK;
  mgpu_interval_args a = {.width = width,
                          .input = input,
                          .n_input = n_input,
                          .gather = gather,
                          .scatter = scatter,
                          .scan = scan,
                          .m = m,
                          .total = total,
                          .out = out,
                          .n_out = n_out,
                          .gather_type = gather ? gather_type : MGPU_I32,
                          .scatter_type = scatter ? scatter_type : MGPU_I32,
                          .scan_type = scan_type};
  return ctx->be->interval_move(ctx, &a);
}

mgpu_status mgpu_interval_move(mgpu_context *ctx, size_t width,
                               const void *input, size_t n_input,
                               const int32_t *gather, const int32_t *scatter,
                               const int32_t *scan, size_t m, size_t total,
                               void *out, size_t n_out) {
  return mgpu_interval_move_idx(ctx, width, input, n_input, gather, MGPU_I32,
                                scatter, MGPU_I32, scan, MGPU_I32, m, total,
                                out, n_out);
}

/* ---- scan, reduce, search, unique, compact ------------------------------ */

static mgpu_status check_reduce_op(mgpu_context *ctx, mgpu_reduce_op op) {
  if ((unsigned)op > MGPU_REDUCE_MAX)
    return mgpu_set_error(ctx, MGPU_EINVAL, "unknown reduction %d", (int)op);
  return MGPU_OK;
}

/* The identity of op in dtype t, as a total (scan of nothing). */
static mgpu_scalar reduce_identity(mgpu_dtype t, mgpu_reduce_op op) {
  mgpu_scalar s;
  s.i = 0;
  if (op == MGPU_REDUCE_ADD) {
    if (mgpu_dtype_is_float(t)) s.f = 0.0;
  } else if (mgpu_dtype_is_float(t)) {
    /* NaN is the largest float: the identity of min; -inf that of max */
    s.f = op == MGPU_REDUCE_MIN ? NAN : -INFINITY;
  } else {
    const int lo = op == MGPU_REDUCE_MAX; /* max starts at the smallest */
    switch (t) {
    case MGPU_I32: s.i = lo ? INT32_MIN : INT32_MAX; break;
    case MGPU_U32: s.i = lo ? 0 : (int64_t)UINT32_MAX; break;
    case MGPU_I64: s.i = lo ? INT64_MIN : INT64_MAX; break;
    default: s.i = lo ? 0 : -1; break; /* u64: all bits set */
    }
  }
  return s;
}

mgpu_status mgpu_scan(mgpu_context *ctx, mgpu_dtype t, const void *src,
                      size_t n, void *dst, mgpu_reduce_op op, int inclusive,
                      mgpu_scalar *total) {
  TRY(check_type(ctx, t));
  TRY(check_reduce_op(ctx, op));
  TRY(check_count(ctx, n));
  if (total) *total = reduce_identity(t, op);
  if (n == 0) return MGPU_OK;
  mgpu_reduce_args a = {t, op, src, n, dst, inclusive != 0, {0}};
  TRY(ctx->be->scan(ctx, &a));
  if (total) *total = a.total;
  return MGPU_OK;
}

mgpu_status mgpu_reduce(mgpu_context *ctx, mgpu_dtype t, const void *src,
                        size_t n, mgpu_reduce_op op, mgpu_scalar *out) {
  TRY(check_type(ctx, t));
  TRY(check_reduce_op(ctx, op));
  TRY(check_count(ctx, n));
  *out = reduce_identity(t, op);
  if (n == 0) {
    if (op == MGPU_REDUCE_ADD) return MGPU_OK;
    return mgpu_set_error(ctx, MGPU_EINVAL, "%s of no elements",
                          op == MGPU_REDUCE_MIN ? "min" : "max");
  }
  mgpu_reduce_args a = {t, op, src, n, NULL, 0, {0}};
  TRY(ctx->be->reduce(ctx, &a));
  *out = a.total;
  return MGPU_OK;
}

mgpu_status mgpu_sorted_search_idx(mgpu_context *ctx, mgpu_dtype t,
                                   mgpu_order order, const void *needles,
                                   size_t n, const void *haystack, size_t m,
                                   int right, int32_t base,
                                   mgpu_dtype pos_type, void *pos) {
  TRY(check_keys(ctx, t, order, 0));
  TRY(check_count(ctx, n));
  TRY(check_count(ctx, m));
  if (base != 0 && base != 1)
    return mgpu_set_error(ctx, MGPU_EINVAL, "base must be 0 or 1 (got %d)",
                          (int)base);
  TRY(check_index_out(ctx, "sorted_search", "pos", pos_type,
                      (uint64_t)m + (uint64_t)base));
  if (n == 0) return MGPU_OK;
  mgpu_search_args a = {t,          order, needles, n,  haystack, m,
                        right != 0, base,  pos,     pos_type};
  return ctx->be->sorted_search(ctx, &a);
}

mgpu_status mgpu_sorted_search(mgpu_context *ctx, mgpu_dtype t,
                               mgpu_order order, const void *needles,
                               size_t n, const void *haystack, size_t m,
                               int right, int32_t base, int32_t *pos) {
  return mgpu_sorted_search_idx(ctx, t, order, needles, n, haystack, m, right,
                                base, MGPU_I32, pos);
}

mgpu_status mgpu_unique_idx(mgpu_context *ctx, mgpu_dtype t, const void *keys,
                            size_t n, size_t value_size, const void *vals,
                            void *out_keys, void *out_vals,
                            mgpu_dtype counts_type, void *counts,
                            size_t *count) {
  *count = 0;
  TRY(check_keys(ctx, t, MGPU_LESS, value_size));
  TRY(check_count(ctx, n));
  /* a run may be as long as the keys */
  if (counts) TRY(check_index_out(ctx, "unique", "counts", counts_type, n));
  if (n == 0) return MGPU_OK;
  mgpu_unique_args a = {t,        value_size, keys, vals, n, out_keys,
                        out_vals, counts,     0,    counts_type};
  TRY(ctx->be->unique(ctx, &a));
  *count = a.count;
  return MGPU_OK;
}

mgpu_status mgpu_unique(mgpu_context *ctx, mgpu_dtype t, const void *keys,
                        size_t n, size_t value_size, const void *vals,
                        void *out_keys, void *out_vals, int32_t *counts,
                        size_t *count) {
  return mgpu_unique_idx(ctx, t, keys, n, value_size, vals, out_keys,
                         out_vals, MGPU_I32, counts, count);
}

mgpu_status mgpu_compact(mgpu_context *ctx, size_t width, const void *data,
                         size_t n, mgpu_dtype flag_type, const void *flags,
                         size_t value_size, const void *vals, void *out,
                         void *out_vals, size_t *count) {
  *count = 0;
  TRY(check_width(ctx, width));
  TRY(check_index_type(ctx, flag_type));
  if (value_size != 0 && value_size != 4 && value_size != 8)
    return mgpu_set_error(ctx, MGPU_EINVAL,
                          "value_size must be 0, 4 or 8 (got %zu)", value_size);
  TRY(check_count(ctx, n));
  if (n == 0) return MGPU_OK;
  mgpu_compact_args a = {width, data, n, flag_type, flags, value_size, vals,
                         out, out_vals, 0};
  TRY(ctx->be->compact(ctx, &a));
  *count = a.count;
  return MGPU_OK;
}

/* ---- keyed reductions and joins ------------------------------------------ */

mgpu_status mgpu_reduce_by_key(mgpu_context *ctx, mgpu_dtype key_type,
                               const void *keys, size_t n, mgpu_dtype val_type,
                               const void *vals, mgpu_reduce_op op,
                               void *out_keys, void *out_vals, size_t *count) {
  *count = 0;
  TRY(check_type(ctx, key_type));
  TRY(check_type(ctx, val_type));
  TRY(check_reduce_op(ctx, op));
  TRY(check_count(ctx, n));
  if (n == 0) return MGPU_OK;
  mgpu_reduce_by_key_args a = {key_type, val_type, op,       keys, vals,
                               n,        out_keys, out_vals, 0};
  TRY(ctx->be->reduce_by_key(ctx, &a));
  *count = a.count;
  return MGPU_OK;
}

mgpu_status mgpu_segreduce_idx(mgpu_context *ctx, mgpu_dtype t,
                               const void *vals, size_t n, const void *offsets,
                               mgpu_dtype offsets_type, size_t m,
                               mgpu_reduce_op op, const void *identity,
                               void *dst) {
  TRY(check_type(ctx, t));
  TRY(check_reduce_op(ctx, op));
  TRY(check_count(ctx, n));
  TRY(check_count(ctx, m));
  TRY(check_index_dtype(ctx, "segreduce", "offsets", offsets_type));
  if (m == 0) return MGPU_OK;
  /* the default identity as an element of t */
  union { int32_t i32; uint32_t u32; int64_t i64; float f32; double f64; } e;
  if (!identity) {
    const mgpu_scalar s = reduce_identity(t, op);
    switch (t) {
    case MGPU_I32: e.i32 = (int32_t)s.i; break;
    case MGPU_U32: e.u32 = (uint32_t)s.i; break;
    case MGPU_F32: e.f32 = (float)s.f; break;
    case MGPU_F64: e.f64 = s.f; break;
    default: e.i64 = s.i; break;
    }
    identity = &e;
  }
  mgpu_segreduce_args a = {t, op,       vals, n,
                           offsets, m, identity, dst, offsets_type};
  return ctx->be->segreduce(ctx, &a);
}

mgpu_status mgpu_segreduce(mgpu_context *ctx, mgpu_dtype t, const void *vals,
                           size_t n, const int32_t *offsets, size_t m,
                           mgpu_reduce_op op, const void *identity, void *dst) {
  return mgpu_segreduce_idx(ctx, t, vals, n, offsets, MGPU_I32, m, op,
                            identity, dst);
}

static mgpu_status check_join(mgpu_context *ctx, mgpu_dtype t, mgpu_order order,
                              mgpu_join_kind kind, size_t na, size_t nb) {
  TRY(check_keys(ctx, t, order, 0));
  if ((unsigned)kind > MGPU_JOIN_OUTER)
    return mgpu_set_error(ctx, MGPU_EINVAL, "unknown join kind %d", (int)kind);
  TRY(check_count(ctx, na));
  TRY(check_count(ctx, nb));
  return MGPU_OK;
}

/* ia and ib hold base + a 0-based index of the longer side at most (or
 * base - 1 for none). */
static mgpu_status check_join_index(mgpu_context *ctx, mgpu_dtype t,
                                    size_t na, size_t nb, int32_t base) {
  const uint64_t longer = na > nb ? na : nb;
  return check_index_out(ctx, "join", "ia and ib", t,
                         longer ? longer - 1 + (uint64_t)base : 0);
}

static mgpu_status check_join_base(mgpu_context *ctx, int32_t base) {
  if (base != 0 && base != 1)
    return mgpu_set_error(ctx, MGPU_EINVAL, "base must be 0 or 1 (got %d)",
                          (int)base);
  return MGPU_OK;
}

mgpu_status mgpu_join_count(mgpu_context *ctx, mgpu_dtype t, mgpu_order order,
                            mgpu_join_kind kind, const void *a, size_t na,
                            const void *b, size_t nb, uint64_t *count) {
  *count = 0;
  TRY(check_join(ctx, t, order, kind, na, nb));
  mgpu_join_args j = {.type = t, .order = order, .kind = kind, .a = a,
                      .na = na, .b = b, .nb = nb};
  TRY(ctx->be->join(ctx, &j));
  *count = j.count;
  if (j.count > MGPU_MAX_COUNT)
    return mgpu_set_error(ctx, MGPU_ETOOBIG,
                          "a join of %llu rows is past the 32-bit index "
                          "limit of %zu",
                          (unsigned long long)j.count, (size_t)MGPU_MAX_COUNT);
  return MGPU_OK;
}

mgpu_status mgpu_join_idx(mgpu_context *ctx, mgpu_dtype t, mgpu_order order,
                          mgpu_join_kind kind, const void *a, size_t na,
                          const void *b, size_t nb, int32_t base,
                          mgpu_dtype index_type, void *ia, void *ib,
                          size_t capacity, size_t *count) {
  *count = 0;
  TRY(check_join(ctx, t, order, kind, na, nb));
  TRY(check_join_base(ctx, base));
  TRY(check_join_index(ctx, index_type, na, nb, base));
  /* rows stay within 32 bits (docs/WIDE.md) */
  if (capacity > MGPU_MAX_COUNT) capacity = MGPU_MAX_COUNT;
  mgpu_join_args j = {.type = t,  .order = order, .kind = kind,
                      .a = a,     .na = na,       .b = b,
                      .nb = nb,   .base = base,   .ia = ia,
                      .ib = ib,   .capacity = capacity,
                      .index_type = index_type};
  TRY(ctx->be->join(ctx, &j));
  if (j.count > capacity)
    return mgpu_set_error(ctx, j.count > MGPU_MAX_COUNT ? MGPU_ETOOBIG
                                                        : MGPU_EINVAL,
                          "a join of %llu rows does not fit a capacity of %zu",
                          (unsigned long long)j.count, capacity);
  *count = (size_t)j.count;
  return MGPU_OK;
}

mgpu_status mgpu_join(mgpu_context *ctx, mgpu_dtype t, mgpu_order order,
                      mgpu_join_kind kind, const void *a, size_t na,
                      const void *b, size_t nb, int32_t base, int32_t *ia,
                      int32_t *ib, size_t capacity, size_t *count) {
  return mgpu_join_idx(ctx, t, order, kind, a, na, b, nb, base, MGPU_I32, ia,
                       ib, capacity, count);
}

/* The backend's alloc_rows for mgpu_join_new: both results, or neither. */
static mgpu_status join_alloc_rows(mgpu_context *ctx, mgpu_join_args *j) {
  if (j->count > MGPU_MAX_COUNT)
    return mgpu_set_error(ctx, MGPU_ETOOBIG,
                          "a join of %llu rows is past the 32-bit index "
                          "limit of %zu",
                          (unsigned long long)j->count, (size_t)MGPU_MAX_COUNT);
  const size_t bytes = (size_t)j->count * mgpu_dtype_size(j->index_type);
  void *ia, *ib;
  TRY(mgpu_alloc(ctx, bytes, &ia));
  const mgpu_status s = mgpu_alloc(ctx, bytes, &ib);
  if (s != MGPU_OK) {
    mgpu_free(ctx, ia, bytes);
    return s;
  }
  j->ia = ia;
  j->ib = ib;
  j->capacity = (size_t)j->count;
  return MGPU_OK;
}

mgpu_status mgpu_join_new_idx(mgpu_context *ctx, mgpu_dtype t,
                              mgpu_order order, mgpu_join_kind kind,
                              const void *a, size_t na, const void *b,
                              size_t nb, int32_t base, mgpu_dtype index_type,
                              void **ia, void **ib, uint64_t *count) {
  *ia = *ib = NULL;
  *count = 0;
  TRY(check_join(ctx, t, order, kind, na, nb));
  TRY(check_join_base(ctx, base));
  TRY(check_join_index(ctx, index_type, na, nb, base));
  mgpu_join_args j = {.type = t,   .order = order, .kind = kind,
                      .a = a,      .na = na,       .b = b,
                      .nb = nb,    .base = base,   .alloc_rows = join_alloc_rows,
                      .index_type = index_type};
  const mgpu_status s = ctx->be->join(ctx, &j);
  *count = j.count;
  const size_t w = mgpu_dtype_size(index_type);
  if (s != MGPU_OK) {
    /* set only when alloc_rows succeeded and a later step failed */
    mgpu_free(ctx, j.ia, j.capacity * w);
    mgpu_free(ctx, j.ib, j.capacity * w);
    return s;
  }
  *ia = j.ia;
  *ib = j.ib;
  return MGPU_OK;
}

mgpu_status mgpu_join_new(mgpu_context *ctx, mgpu_dtype t, mgpu_order order,
                          mgpu_join_kind kind, const void *a, size_t na,
                          const void *b, size_t nb, int32_t base, int32_t **ia,
                          int32_t **ib, uint64_t *count) {
  void *pa, *pb;
  const mgpu_status s = mgpu_join_new_idx(ctx, t, order, kind, a, na, b, nb,
                                          base, MGPU_I32, &pa, &pb, count);
  *ia = pa;
  *ib = pb;
  return s;
}
