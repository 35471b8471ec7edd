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

#include <stddef.h>
#include <stdint.h>

#include "mgpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- one argument struct per operation ---------------------------------
 * Fields after "out:" are written by the backend. */

typedef struct mgpu_fill_args {
  void *dst;
  size_t n, width;
  const void *value; /* width bytes */
} mgpu_fill_args;

typedef struct mgpu_iota_args {
  void *dst;
  size_t n;
  mgpu_dtype type;
  mgpu_scalar start, step;
} mgpu_iota_args;

typedef struct mgpu_random_args {
  void *dst;
  size_t n;
  mgpu_dtype type;
  mgpu_scalar lo, hi; /* f32: already moved to the bracketing floats */
  uint64_t seed;
} mgpu_random_args;

typedef struct mgpu_astype_args {
  void *dst;
  mgpu_dtype dst_type;
  const void *src;
  mgpu_dtype src_type;
  size_t n;
} mgpu_astype_args;

typedef struct mgpu_is_sorted_args {
  const void *src;
  size_t n;
  mgpu_dtype type;
  mgpu_order order;
  /* out: */
  int sorted;
} mgpu_is_sorted_args;

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
  mgpu_dtype index_type; /* of heads (wide_index) */
} mgpu_segsort_args;

/* setop: outputs hold `capacity` elements. */
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
  /* out: what was written */
  size_t count;
} mgpu_setop_args;

/* Index preparation: the caller sets bad = -1; the backend sets it to the
 * first offending position (and bad_value to its value) and still returns
 * MGPU_OK; the generic layer turns that into MGPU_EINVAL. */
typedef struct mgpu_positions_args {
  const void *src;
  mgpu_dtype type;
  size_t m;
  int64_t lo, hi;
  int unique;
  int32_t *dst;
  /* out: */
  int64_t bad, bad_value;
  mgpu_dtype index_type; /* of dst (wide_index) */
} mgpu_positions_args;

typedef struct mgpu_scan_args {
  const void *counts;
  mgpu_dtype type;
  size_t m;
  int32_t *scan;
  /* out: */
  int64_t total, bad, bad_value;
  mgpu_dtype index_type; /* of scan (wide_index); MGPU_U32: wrapped */
  /* a wrapped scan's (out): its wraps (at[w] kept for w < MGPU_MAX_WRAPS,
   * n counted past it), and whether a count was 2^32 or more */
  mgpu_wraps wraps;
  int wide_count;
} mgpu_scan_args;

typedef struct mgpu_starts_args {
  const void *starts;
  mgpu_dtype type;
  const int32_t *scan;
  size_t m, total;
  /* the largest start - 1 and end allowed: the C API passes the caller's
   * limit, at most what dst can hold (< 0 from a caller of the backend
   * itself: MGPU_MAX_COUNT) */
  int64_t limit;
  int32_t *dst;
  /* out: */
  int64_t bad, bad_value, max_end;
  mgpu_dtype scan_type;  /* of scan (wide_index) */
  mgpu_dtype index_type; /* of dst (wide_index) */
} mgpu_starts_args;

/* bulk_remove: m sorted unique indices; bulk_insert: m sorted positions
 * and their values. */
typedef struct mgpu_bulk_args {
  size_t width;
  const void *data;
  size_t n;
  const int32_t *index;
  const void *values;
  size_t m;
  void *out;
  mgpu_dtype index_type; /* of index (wide_index) */
} mgpu_bulk_args;

/* The interval operations: total outputs from m intervals (exclusive scan
 * `scan`).  load_balance writes interval numbers plus base (int32: wrapped
 * to 32 bits); expand repeats values; move copies input ranges
 * (gather/scatter NULL = the scan, i.e. sequential). */
typedef struct mgpu_interval_args {
  size_t width;
  const void *input;    /* expand: the m values; move: the input array */
  size_t n_input;
  const int32_t *gather, *scatter, *scan;
  size_t m, total;
  void *out;
  size_t n_out;
  int32_t base;
  /* of gather, scatter and scan, and of load_balance's out (wide_index) */
  mgpu_dtype gather_type, scatter_type, scan_type, index_type;
  /* of a wrapped scan (scan_type MGPU_U32), in host memory; a backend of
   * device memory sends its kernels a copy */
  const mgpu_wraps *wraps;
} mgpu_interval_args;

/* scan (dst: n outputs) and reduce (dst NULL) */
typedef struct mgpu_reduce_args {
  mgpu_dtype type;
  mgpu_reduce_op op;
  const void *src;
  size_t n; /* > 0 */
  void *dst;
  int inclusive;
  /* out: */
  mgpu_scalar total;
} mgpu_reduce_args;

typedef struct mgpu_search_args {
  mgpu_dtype type;
  mgpu_order order;
  const void *needles;
  size_t n; /* > 0 */
  const void *haystack;
  size_t m;
  int right;
  int32_t base; /* 0 or 1, added to every position */
  int32_t *pos;
  mgpu_dtype index_type; /* of pos (wide_index) */
} mgpu_search_args;

typedef struct mgpu_unique_args {
  mgpu_dtype type;
  size_t value_size;
  const void *keys, *vals;
  size_t n; /* > 0 */
  void *out_keys, *out_vals;
  int32_t *counts; /* may be NULL */
  /* out: */
  size_t count;
  mgpu_dtype index_type; /* of counts (wide_index) */
} mgpu_unique_args;

typedef struct mgpu_compact_args {
  size_t width;
  const void *data;
  size_t n; /* > 0 */
  mgpu_dtype flag_type;
  const void *flags;
  size_t value_size;
  const void *vals;
  void *out, *out_vals;
  /* out: */
  size_t count;
} mgpu_compact_args;

/* reduce_by_key: the runs of consecutive equivalent keys (neither ordered
 * before the other) and op over each run's values, in val_type; the
 * outputs hold n. */
typedef struct mgpu_reduce_by_key_args {
  mgpu_dtype key_type, val_type;
  mgpu_reduce_op op;
  const void *keys, *vals;
  size_t n; /* > 0 */
  void *out_keys, *out_vals;
  /* out: the number of runs */
  size_t count;
} mgpu_reduce_by_key_args;

/* segreduce: segment i is vals[offsets[i], offsets[i + 1]) (the last ends
 * at n); offsets 0-based.  A backend reads offsets out of order or out of
 * [0, n] as if clamped, so no input makes it touch memory it should not. */
typedef struct mgpu_segreduce_args {
  mgpu_dtype type;
  mgpu_reduce_op op;
  const void *vals;
  size_t n;
  const int32_t *offsets;
  size_t m; /* > 0 */
  const void *identity; /* one element of type: an empty segment's result */
  void *dst;            /* m */
  mgpu_dtype index_type; /* of offsets (wide_index) */
} mgpu_segreduce_args;

/* join: the bounds, counts and scan once, then the rows into ia and ib,
 * never past capacity (unsorted inputs may give fewer).  With alloc_rows,
 * the backend calls it once, count set and no row written yet, and it sets
 * ia, ib and capacity (or fails, and the backend returns its status): the
 * caller sizes the result without a second pass.  ia NULL after that (or
 * without alloc_rows) asks only for count. */
typedef struct mgpu_join_args {
  mgpu_dtype type;
  mgpu_order order;
  mgpu_join_kind kind;
  const void *a;
  size_t na;
  const void *b;
  size_t nb;
  int32_t base; /* 0 or 1; a missing side is base - 1 */
  int32_t *ia, *ib;
  size_t capacity;
  mgpu_status (*alloc_rows)(mgpu_context *ctx, struct mgpu_join_args *a);
  /* out: rows (counted in 64 bits: it may pass MGPU_MAX_COUNT) */
  uint64_t count;
  mgpu_dtype index_type; /* of ia and ib (wide_index) */
} mgpu_join_args;

/* exchange: the all-to-all of a group's sort.  Context k sends
 * counts[k*p + j] elements of `width` bytes from send[k] + send_at[k*p + j]
 * to context j, which receives them at recv[j] + recv_at[k*p + j] (offsets
 * in elements; p = group->size).  Called on the group's first context; a
 * backend reports failures there.  k == j is a copy within one context. */
typedef struct mgpu_exchange_args {
  mgpu_group *group;
  size_t width;
  const void *const *send;
  void *const *recv;
  const size_t *counts, *send_at, *recv_at;
} mgpu_exchange_args;

/* ---- the table -------------------------------------------------------------
 * Every operation a backend implements, once: X(name, argument struct).
 * The backend table, and each backend's declarations and table, follow
 * from this list; adding a primitive is one row. */
#define MGPU_BACKEND_OPS(X)                                                    \
  X(fill, mgpu_fill_args)                                                      \
  X(iota, mgpu_iota_args)                                                      \
  X(random, mgpu_random_args)                                                  \
  X(astype, mgpu_astype_args)                                                  \
  X(is_sorted, mgpu_is_sorted_args)                                            \
  X(merge, mgpu_merge_args)                                                    \
  X(mergesort, mgpu_sort_args)                                                 \
  X(sort, mgpu_sort_args)                                                      \
  X(segsort, mgpu_segsort_args)                                                \
  X(setop, mgpu_setop_args)                                                    \
  X(prepare_positions, mgpu_positions_args)                                    \
  X(scan_counts, mgpu_scan_args)                                               \
  X(prepare_starts, mgpu_starts_args)                                          \
  X(bulk_remove, mgpu_bulk_args)                                               \
  X(bulk_insert, mgpu_bulk_args)                                               \
  X(load_balance, mgpu_interval_args)                                          \
  X(interval_expand, mgpu_interval_args)                                       \
  X(interval_move, mgpu_interval_args)                                         \
  X(scan, mgpu_reduce_args)                                                    \
  X(reduce, mgpu_reduce_args)                                                  \
  X(sorted_search, mgpu_search_args)                                           \
  X(unique, mgpu_unique_args)                                                  \
  X(compact, mgpu_compact_args)                                                \
  X(reduce_by_key, mgpu_reduce_by_key_args)                                    \
  X(segreduce, mgpu_segreduce_args)                                            \
  X(join, mgpu_join_args)                                                      \
  X(exchange, mgpu_exchange_args)

/* Declares prefix_<name>(ctx, args) for every operation. */
#define MGPU_DECLARE_OP(prefix, name, type)                                    \
  mgpu_status prefix##name(mgpu_context *ctx, type *args);

/* The element limit of a backend whose loops and kernels run over 64-bit
 * counts.  The bound is memory: n elements of the widest dtype (8 bytes)
 * must have a byte size ptrdiff_t can hold, so that n * 8 and pointer
 * differences cannot overflow.  It is also at most 2^53, the largest
 * count LuaJIT's numbers (doubles) hold exactly: the FFI binding keeps
 * counts as numbers and names this limit in its messages. */
#define MGPU_WIDE_MAX_COUNT                                                    \
  ((uint64_t)PTRDIFF_MAX / 8 < ((uint64_t)1 << 53)                             \
       ? (size_t)(PTRDIFF_MAX / 8)                                             \
       : (size_t)((uint64_t)1 << 53))

typedef struct mgpu_backend {
  const char *name;
  /* The most elements an array or a call's count may have on this
   * backend (mgpu_context_max_count); at most SIZE_MAX / 2, so that the
   * sum of two counts (merge, setop capacity) cannot wrap. */
  size_t max_count;
  /* Non-zero when every index array of an args struct (segsort's heads,
   * sorted_search's positions, unique's counts, segreduce's offsets, the
   * joins' rows, the index preparations, the bulk and interval operations
   * and load_balance) may be MGPU_I64: index_type (and the other *_type fields of index
   * arrays) is MGPU_I32 or MGPU_I64, and with MGPU_I64 the int32_t pointer
   * it describes points at int64_t (the pointers keep their type for the
   * backends without it, which get MGPU_I32 only).  These fields come last
   * in each args struct, so that initializers that stop before them give
   * MGPU_I32 (0). */
  int wide_index;
  /* Set up ctx->impl for device number `device` (ignored by cpu). */
  mgpu_status (*context_init)(mgpu_context *ctx, int device);
  void (*context_destroy)(mgpu_context *ctx);
  void *(*stream)(const mgpu_context *ctx);
  mgpu_status (*sync)(mgpu_context *ctx);
  mgpu_status (*reclaim)(mgpu_context *ctx);
  mgpu_status (*info)(mgpu_context *ctx, mgpu_context_info *info);
  /* Set up group->impl for the exchange (the cuda backend's NCCL
   * communicators), or fail with a reason in group->error; NULL: nothing
   * to set up.  group_destroy undoes it. */
  mgpu_status (*group_init)(mgpu_group *group);
  void (*group_destroy)(mgpu_group *group);

  mgpu_status (*alloc)(mgpu_context *ctx, size_t bytes, void **out);
  void (*free)(mgpu_context *ctx, void *p);
  mgpu_status (*upload)(mgpu_context *ctx, void *dst, const void *src,
                        size_t bytes);
  mgpu_status (*download)(mgpu_context *ctx, void *dst, const void *src,
                          size_t bytes);
  mgpu_status (*copy)(mgpu_context *ctx, void *dst, const void *src,
                      size_t bytes);

#define MGPU_OP_SLOT(name, type) mgpu_status (*name)(mgpu_context *ctx, type *args);
  MGPU_BACKEND_OPS(MGPU_OP_SLOT)
#undef MGPU_OP_SLOT
} mgpu_backend;

/* mgpu_context_set_kernel_paths: 0 everywhere is the size rules. */
typedef struct mgpu_kernel_paths {
  int partition_lanes; /* 0, 8, 16 or 32 */
  int sampled;         /* partitions search samples at any size */
  int small_smem;      /* tiles sized for 64 KB of shared memory a block */
} mgpu_kernel_paths;

struct mgpu_context {
  const mgpu_backend *be;
  int refs;
  int device;          /* CUDA ordinal; -1 for cpu */
  char device_name[16]; /* "cpu", "cuda:0" */
  size_t in_use;       /* bytes allocated through mgpu_alloc */
  size_t limit;        /* 0 = none */
  void *impl;          /* backend-private state */
  mgpu_kernel_paths paths; /* mgpu_context_set_kernel_paths */
  void *host_stream;   /* mgpu_context_options::stream, for context_init */
  mgpu_allocator allocator; /* alloc NULL: the backend's own memory */
  char error[256];
};

/* A group: contexts of one backend that shard data between them. */
struct mgpu_group {
  const mgpu_backend *be;
  int refs;
  size_t size;
  mgpu_context **ctxs; /* size contexts, one reference each */
  void *impl;          /* the backend's (group_init) */
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
