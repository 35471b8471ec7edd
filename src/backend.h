/*
 * backend.h - the table of operations every backend fills in, and the
 * context both sides share.
 *
 * The generic layer (mgpu.c) validates arguments and keeps the memory
 * accounting; a backend only does the work.  Backends report failures by
 * returning a status after writing a message with mgpu_set_error.
 */
#ifndef MGPU_BACKEND_H
#define MGPU_BACKEND_H

#include "mgpu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mgpu_merge_args {
  mgpu_dtype key_type;
  mgpu_order order;
  size_t value_size; /* 0, 4 or 8 */
  const void *a_keys, *a_vals;
  size_t na;
  const void *b_keys, *b_vals;
  size_t nb;
  void *keys, *vals; /* na + nb outputs */
} mgpu_merge_args;

typedef struct mgpu_sort_args {
  mgpu_dtype key_type;
  mgpu_order order;
  size_t value_size;
  void *keys, *vals;
  size_t n;
} mgpu_sort_args;

/* The interval operations: total outputs from m intervals (exclusive scan
 * `scan`).  load_balance writes int32 interval numbers (plus base); expand
 * repeats values; move copies input ranges (gather/scatter NULL = the
 * scan, i.e. sequential). */
typedef struct mgpu_interval_args {
  size_t width;
  const void *input;    /* expand: the m values; move: the input array */
  size_t n_input;
  const int32_t *gather, *scatter, *scan;
  size_t m, total;
  void *out;
  size_t n_out;
  int32_t base;
} mgpu_interval_args;

/* segsort (heads or flags; neither: locality_sort).  heads: m 0-based
 * segment starts, any order, out-of-range ones ignored; flags: n integers
 * of flag_type, non-zero = head. */
typedef struct mgpu_segsort_args {
  mgpu_sort_args sort;
  const int32_t *heads;
  size_t m;
  const void *flags;
  mgpu_dtype flag_type;
  mgpu_sort_stats *stats; /* NULL, or zeroed by the caller */
} mgpu_segsort_args;

/* setop: outputs hold `capacity` elements; *count = what was written. */
typedef struct mgpu_setop_args {
  mgpu_setop_kind op;
  mgpu_dtype key_type;
  mgpu_order order;
  int duplicates;
  size_t value_size;
  const void *a_keys, *a_vals;
  size_t na;
  const void *b_keys, *b_vals;
  size_t nb;
  void *keys, *vals;
  size_t capacity;
} mgpu_setop_args;

typedef struct mgpu_backend {
  const char *name;
  /* Set up ctx->impl for device number `device` (ignored by cpu). */
  mgpu_status (*context_init)(mgpu_context *ctx, int device);
  void (*context_destroy)(mgpu_context *ctx);
  void *(*stream)(const mgpu_context *ctx);
  mgpu_status (*sync)(mgpu_context *ctx);
  mgpu_status (*reclaim)(mgpu_context *ctx);
  mgpu_status (*info)(mgpu_context *ctx, mgpu_context_info *info);

  mgpu_status (*alloc)(mgpu_context *ctx, size_t bytes, void **out);
  void (*free)(mgpu_context *ctx, void *p);
  mgpu_status (*upload)(mgpu_context *ctx, void *dst, const void *src,
                        size_t bytes);
  mgpu_status (*download)(mgpu_context *ctx, void *dst, const void *src,
                          size_t bytes);
  mgpu_status (*copy)(mgpu_context *ctx, void *dst, const void *src,
                      size_t bytes);

  mgpu_status (*fill)(mgpu_context *ctx, void *dst, size_t n, size_t width,
                      const void *value);
  mgpu_status (*iota)(mgpu_context *ctx, void *dst, size_t n, mgpu_dtype t,
                      mgpu_scalar start, mgpu_scalar step);
  mgpu_status (*random)(mgpu_context *ctx, void *dst, size_t n, mgpu_dtype t,
                        mgpu_scalar lo, mgpu_scalar hi, uint64_t seed);
  mgpu_status (*astype)(mgpu_context *ctx, void *dst, mgpu_dtype dst_type,
                        const void *src, mgpu_dtype src_type, size_t n);
  mgpu_status (*is_sorted)(mgpu_context *ctx, const void *src, size_t n,
                           mgpu_dtype t, mgpu_order order, int *sorted);

  mgpu_status (*merge)(mgpu_context *ctx, const mgpu_merge_args *args);
  mgpu_status (*mergesort)(mgpu_context *ctx, const mgpu_sort_args *args);
  mgpu_status (*segsort)(mgpu_context *ctx, const mgpu_segsort_args *args);
  mgpu_status (*setop)(mgpu_context *ctx, const mgpu_setop_args *args,
                       size_t *count);

  /* Index preparation: *bad = first offending position or -1 (the generic
   * layer turns that into MGPU_EINVAL); the backend returns MGPU_OK then. */
  mgpu_status (*prepare_positions)(mgpu_context *ctx, const void *src,
                                   mgpu_dtype t, size_t m, int64_t lo,
                                   int64_t hi, int unique, int32_t *dst,
                                   int64_t *bad, int64_t *bad_value);
  mgpu_status (*scan_counts)(mgpu_context *ctx, const void *counts,
                             mgpu_dtype t, size_t m, int32_t *scan,
                             int64_t *total, int64_t *bad,
                             int64_t *bad_value);
  mgpu_status (*prepare_starts)(mgpu_context *ctx, const void *starts,
                                mgpu_dtype t, const int32_t *scan, size_t m,
                                size_t total, int64_t limit, int32_t *dst,
                                int64_t *bad, int64_t *bad_value,
                                int64_t *max_end);
  mgpu_status (*bulk_remove)(mgpu_context *ctx, size_t width, const void *data,
                             size_t n, const int32_t *indices, size_t m,
                             void *out);
  mgpu_status (*bulk_insert)(mgpu_context *ctx, size_t width, const void *data,
                             size_t n, const int32_t *positions,
                             const void *values, size_t m, void *out);
  mgpu_status (*load_balance)(mgpu_context *ctx, const mgpu_interval_args *a);
  mgpu_status (*interval_expand)(mgpu_context *ctx,
                                 const mgpu_interval_args *a);
  mgpu_status (*interval_move)(mgpu_context *ctx, const mgpu_interval_args *a);
} mgpu_backend;

struct mgpu_context {
  const mgpu_backend *be;
  int refs;
  int device;          /* CUDA ordinal; -1 for cpu */
  char device_name[16]; /* "cpu", "cuda:0" */
  size_t in_use;       /* bytes allocated through mgpu_alloc */
  size_t limit;        /* 0 = none */
  void *impl;          /* backend-private state */
  char error[256];
};

/* Records the reason of a failure on ctx; returns status for chaining. */
mgpu_status mgpu_set_error(mgpu_context *ctx, mgpu_status status,
                           const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

const mgpu_backend *mgpu_cpu_backend(void);
/* NULL when the CUDA backend was not built. */
const mgpu_backend *mgpu_cuda_backend(void);
int mgpu_cuda_backend_device_count(void);

#ifdef __cplusplus
}
#endif

#endif /* MGPU_BACKEND_H */
