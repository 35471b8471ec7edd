/*
 * mgpu.h - public C API of mgpu, for embedding in C and C++ hosts.
 *
 * Everything here is 0-based and works on raw buffers that belong to a
 * context: device pointers for a CUDA context, host pointers for the cpu
 * context.  Take buffers with mgpu_alloc (or, on a CUDA context, any device
 * allocation on the context's device).  Operations are enqueued on the
 * context's stream; only mgpu_download, mgpu_is_sorted, mgpu_context_sync,
 * the index preparations (which report what they found) and the joins (to
 * size their result) wait for the device.  Outputs must not overlap
 * inputs unless a function says so, and every out-parameter pointer must
 * be valid.
 *
 * Every function returning mgpu_status leaves a message in
 * mgpu_context_error(ctx) when it fails.  Counts are limited to
 * mgpu_context_max_count(ctx) elements per array (and per result), the
 * backend's limit.  Index arrays follow the index dtype rule
 * (mgpu_index_type): the *_idx forms of segsort, sorted_search, unique,
 * segreduce, the joins, the index preparations and the bulk and interval
 * operations take them as MGPU_I32 or MGPU_I64 where
 * mgpu_context_wide_index (cpu and cuda); the plain forms are MGPU_I32.
 * A join's rows stay within MGPU_MAX_COUNT on every backend.  A count of 0
 * is allowed everywhere and does nothing,
 * and value pointers may be NULL when value_size is 0.
 *
 * A CUDA context makes its device current (cudaSetDevice) in every call
 * that touches the device; it does not restore the previous one.  When a
 * call fails with MGPU_ENOMEM it has taken all its temporaries before
 * launching anything, so its outputs (and, for mergesort, its input) are
 * untouched and the call can be retried, e.g. after mgpu_context_reclaim.
 */
#ifndef MGPU_H
#define MGPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MGPU_VERSION "0.1.0"
/* The 32-bit limit: INT32_MAX, the most elements an int32 index array can
 * address: the limit of the plain (MGPU_I32) forms' index arrays and of a
 * join's rows, on every backend. */
#define MGPU_MAX_COUNT ((size_t)2147483647)

typedef enum mgpu_dtype {
  MGPU_I32, MGPU_U32, MGPU_I64, MGPU_U64, MGPU_F32, MGPU_F64,
  MGPU_DTYPE_COUNT
} mgpu_dtype;

/* The order keys are sorted or merged by.  Floats: NaN compares after every
 * number under MGPU_LESS (and so before every number under MGPU_GREATER);
 * all NaNs are equivalent, as are -0.0 and +0.0. */
typedef enum mgpu_order { MGPU_LESS, MGPU_GREATER } mgpu_order;

typedef enum mgpu_status {
  MGPU_OK = 0,
  MGPU_ENOMEM,   /* out of memory (device, host or the context's limit) */
  MGPU_EINVAL,   /* bad argument */
  MGPU_ETOOBIG,  /* a count or result past the limit that applies */
  MGPU_ENODEV,   /* no such device, or its backend was not built */
  MGPU_EDEVICE   /* the device or its runtime failed */
} mgpu_status;

/* A scalar argument: integer dtypes read .i (u64 as its two's-complement
 * bits), float dtypes read .f. */
typedef union mgpu_scalar {
  int64_t i;
  double f;
} mgpu_scalar;

size_t mgpu_dtype_size(mgpu_dtype t);
const char *mgpu_dtype_name(mgpu_dtype t);
/* Accepts "i32" "u32" "i64" "u64" "f32" "f64" and "int32" "uint32" "int64"
 * "uint64" "float32" "float64".  Returns 0 on success. */
int mgpu_dtype_parse(const char *name, mgpu_dtype *out);
int mgpu_dtype_is_float(mgpu_dtype t);
int mgpu_dtype_is_signed(mgpu_dtype t);

const char *mgpu_status_name(mgpu_status s);

/* Number of CUDA devices usable by this build (0 without the CUDA backend
 * or without a GPU). */
int mgpu_cuda_device_count(void);

/* ---- contexts ---------------------------------------------------------- */

typedef struct mgpu_context mgpu_context;

/* device: "cpu", "cuda" (device 0) or "cuda:N".  On failure *out is NULL and
 * errbuf (if given) holds the reason. */
mgpu_status mgpu_context_create(const char *device, mgpu_context **out,
                                char *errbuf, size_t errlen);
/* A host's own memory for a context: every buffer mgpu takes on the
 * context (arrays and the calls' scratch) comes from alloc and goes back
 * through free.  alloc returns NULL when it cannot (mgpu reports
 * MGPU_ENOMEM); bytes is never 0.  mgpu calls free as soon as it has
 * queued the last work that reads or writes p on the context's stream, so
 * free must be stream-ordered (cudaFreeAsync(p, stream)) or wait for the
 * stream first.  On a cpu context stream is NULL and work is done when a
 * call returns. */
typedef struct mgpu_allocator {
  void *(*alloc)(size_t bytes, void *stream, void *ud);
  void (*free)(void *p, size_t bytes, void *stream, void *ud);
  void *ud;
} mgpu_allocator;

typedef struct mgpu_context_options {
  const char *device;  /* as for mgpu_context_create; NULL is "cpu" */
  /* A cudaStream_t the host owns and keeps alive until the context is
   * released: mgpu queues all its work there and waits only for it
   * (mgpu_context_sync, downloads, results it reads back), never for the
   * device.  At release it waits for the stream and leaves it to the
   * host.  NULL: the context makes a stream of its own.  Only for cuda. */
  void *stream;
  const mgpu_allocator *allocator; /* NULL: mgpu's stream-ordered pool */
} mgpu_context_options;

/* mgpu_context_create with a host's stream and memory.  The allocator is
 * copied; alloc and free must both be given or both be NULL. */
mgpu_status mgpu_context_create_with(const mgpu_context_options *options,
                                     mgpu_context **out, char *errbuf,
                                     size_t errlen);
void mgpu_context_retain(mgpu_context *ctx);
void mgpu_context_release(mgpu_context *ctx); /* frees at the last release */

const char *mgpu_context_device(const mgpu_context *ctx); /* "cpu", "cuda:0" */
const char *mgpu_context_backend(const mgpu_context *ctx); /* "cpu", "cuda" */
const char *mgpu_context_error(const mgpu_context *ctx);
/* The most elements an array or a count may have on this context's
 * backend: 2^53 on 64-bit hosts, cpu and cuda.  An int32 index array
 * stops at MGPU_MAX_COUNT, and so do a join's rows (docs/API.md,
 * "Limits"). */
size_t mgpu_context_max_count(const mgpu_context *ctx);
/* Non-zero when the context's *_idx forms take MGPU_I64 index arrays,
 * and so counts up to mgpu_context_max_count: cpu and cuda. */
int mgpu_context_wide_index(const mgpu_context *ctx);
/* The cudaStream_t the context enqueues on, or NULL for cpu. */
void *mgpu_context_stream(const mgpu_context *ctx);
mgpu_status mgpu_context_sync(mgpu_context *ctx);

typedef struct mgpu_context_info {
  char name[128];          /* e.g. "NVIDIA H100 80GB HBM3" or "host CPU" */
  int multiprocessors;     /* 0 for cpu */
  int cc_major, cc_minor;  /* compute capability; 0 for cpu */
  size_t memory_total;     /* device memory; 0 for cpu */
  size_t memory_free;
  size_t pool_reserved;    /* bytes the context's pool holds */
  size_t in_use;           /* bytes allocated through this context */
  size_t memory_limit;     /* 0 = none */
  /* The device code that runs (cuda): the virtual architecture it was
   * compiled from (e.g. 80 for compute_80 PTX that the driver compiled for
   * the GPU), the one its machine code is for, and the kernels' path:
   * "sm90" (bulk copies, dependent launches), "sm80" (tiles loaded by
   * warps, hardware barriers) or "sm75" (barriers kept by shared
   * atomics).  0 and "" for cpu. */
  int code_arch, binary_arch;
  char path[8];
  char built_archs[64];    /* the build's architectures, e.g. "75;80;90" */
} mgpu_context_info;
mgpu_status mgpu_context_info_get(mgpu_context *ctx, mgpu_context_info *info);

/* Caps the bytes this context may hold at once (0 removes the cap).  An
 * allocation past the cap fails with MGPU_ENOMEM, like a full device. */
void mgpu_context_set_memory_limit(mgpu_context *ctx, size_t bytes);
/* Waits for the context's work and returns the pool's cached free memory to
 * the device: what a caller does before retrying a failed allocation. */
mgpu_status mgpu_context_reclaim(mgpu_context *ctx);

/* For the library's own tests: which kernel a call takes where the
 * backend chooses among several by size, so that small inputs reach the
 * kernels large ones take.  A comma-separated list of
 *   "auto"        the backend's size rules (the default)
 *   "lanes8", "lanes16", "lanes32"  lanes a set-operation partition point
 *   "sampled"     merge and set-operation partitions search samples of
 *                 the inputs first at any size
 *   "smem64"      tiles chosen as on a GPU with 64 KB of shared memory a
 *                 block (Turing), whatever the GPU has
 * MGPU_EINVAL for anything else.  The cpu backend has one path and
 * ignores it. */
mgpu_status mgpu_context_set_kernel_paths(mgpu_context *ctx, const char *paths);

/* ---- memory ------------------------------------------------------------ */

mgpu_status mgpu_alloc(mgpu_context *ctx, size_t bytes, void **out);
/* bytes must be what was allocated (it keeps the context's accounting). */
void mgpu_free(mgpu_context *ctx, void *p, size_t bytes);
mgpu_status mgpu_upload(mgpu_context *ctx, void *dst, const void *host_src,
                        size_t bytes);
/* Waits for the work enqueued before it, then copies. */
mgpu_status mgpu_download(mgpu_context *ctx, void *host_dst, const void *src,
                          size_t bytes);
mgpu_status mgpu_copy(mgpu_context *ctx, void *dst, const void *src,
                      size_t bytes);

/* ---- element operations (n elements of dtype t) ------------------------- */

/* value points at one element of dtype t, in host memory. */
mgpu_status mgpu_fill(mgpu_context *ctx, void *dst, size_t n, mgpu_dtype t,
                      const void *value);
/* dst[i] = start + i * step, in t's arithmetic (integers wrap). */
mgpu_status mgpu_iota(mgpu_context *ctx, void *dst, size_t n, mgpu_dtype t,
                      mgpu_scalar start, mgpu_scalar step);
/* Integers uniform in [lo, hi]; floats uniform in [lo, hi).  Element i
 * depends only on (seed, i, lo, hi, t): both backends give the same data. */
mgpu_status mgpu_random(mgpu_context *ctx, void *dst, size_t n, mgpu_dtype t,
                        mgpu_scalar lo, mgpu_scalar hi, uint64_t seed);
/* Integer to integer wraps (two's complement); float to integer truncates
 * toward zero and saturates, NaN giving 0; to float rounds to nearest. */
mgpu_status mgpu_astype(mgpu_context *ctx, void *dst, mgpu_dtype dst_type,
                        const void *src, mgpu_dtype src_type, size_t n);
/* *sorted = 1 when no element is ordered before its predecessor. Waits. */
mgpu_status mgpu_is_sorted(mgpu_context *ctx, const void *src, size_t n,
                           mgpu_dtype t, mgpu_order order, int *sorted);

/* ---- primitives ---------------------------------------------------------- */

/* Stable merge of two sorted key arrays (ties take a first), values moved
 * with their keys.  value_size is 0 (keys only), 4 or 8.  The output must
 * not overlap the inputs. */
mgpu_status mgpu_merge(mgpu_context *ctx, mgpu_dtype key_type,
                       mgpu_order order, const void *a_keys, size_t na,
                       const void *b_keys, size_t nb, void *out_keys,
                       size_t value_size, const void *a_vals,
                       const void *b_vals, void *out_vals);

/* Stable in-place sort of n keys (and their values: value_size 0, 4 or 8). */
mgpu_status mgpu_mergesort(mgpu_context *ctx, mgpu_dtype key_type,
                           mgpu_order order, void *keys, size_t n,
                           size_t value_size, void *vals);

/* The same result as mgpu_mergesort (stable, in place, the same order:
 * NaN after every number under MGPU_LESS, -0.0 and 0.0 equivalent, every
 * element keeping its bits), by radix sort on the GPU: for numeric keys
 * under less or greater, which is all a radix sort can order. */
mgpu_status mgpu_sort(mgpu_context *ctx, mgpu_dtype key_type, mgpu_order order,
                      void *keys, size_t n, size_t value_size, void *vals);

/* ---- segmented sort, locality sort -------------------------------------- */

/* What the early-exit merge passes of segsort and locality_sort did: for
 * pass p < passes, merge_tiles[p] tiles were merged and copy_tiles[p]
 * copied (the others were already in place).  tiles is the tile count of a
 * pass, blocksort_tiles that of the blocksort. */
#define MGPU_MAX_PASSES 32
typedef struct mgpu_sort_stats {
  int passes;
  int64_t tiles, blocksort_tiles;
  /* tile boundaries merged in place by the one-launch early exit (no
   * passes then); 0 when the passes ran */
  int64_t windows;
  int64_t merge_tiles[MGPU_MAX_PASSES];
  int64_t copy_tiles[MGPU_MAX_PASSES];
} mgpu_sort_stats;

/* The index dtype rule: the dtype of an index array whose values reach
 * `largest` (e.g. m + base for sorted_search's positions into m elements):
 * MGPU_I32 up to INT32_MAX, MGPU_I64 past it.  An *_idx call refuses an
 * MGPU_I32 output that cannot hold its values (MGPU_ETOOBIG) and any other
 * dtype than these two (MGPU_EINVAL). */
mgpu_dtype mgpu_index_type(uint64_t largest);

/* Sorts keys (and values) in place within segments: a segment starts at
 * 0 and at each of the m 0-based heads (m may be 0: one segment).  Stable.
 * Only the set of heads matters: their order and repeats do not, and heads
 * outside [0, n) are ignored (mgpu_prepare_positions checks a caller's
 * list, with a message).  stats may be NULL; when given, the call waits
 * for the device once per merge pass to read its queue counts.  On cuda,
 * whose heads are int32, a sort with heads stops at MGPU_MAX_COUNT keys
 * (MGPU_ETOOBIG); one with flags, and locality sort, take the context's
 * limit. */
mgpu_status mgpu_segsort(mgpu_context *ctx, mgpu_dtype key_type,
                         mgpu_order order, void *keys, size_t n,
                         size_t value_size, void *vals, const int32_t *heads,
                         size_t m, mgpu_sort_stats *stats);
/* The same with heads of heads_type (MGPU_I32 or MGPU_I64). */
mgpu_status mgpu_segsort_idx(mgpu_context *ctx, mgpu_dtype key_type,
                             mgpu_order order, void *keys, size_t n,
                             size_t value_size, void *vals, const void *heads,
                             mgpu_dtype heads_type, size_t m,
                             mgpu_sort_stats *stats);
/* The same with a per-element flag array (n elements of integer dtype
 * flag_type; non-zero marks a segment head; flags[0] is ignored). */
mgpu_status mgpu_segsort_flags(mgpu_context *ctx, mgpu_dtype key_type,
                               mgpu_order order, void *keys, size_t n,
                               size_t value_size, void *vals,
                               const void *flags, mgpu_dtype flag_type,
                               mgpu_sort_stats *stats);
/* Stable in-place sort, like mgpu_mergesort, whose merge passes skip tiles
 * that are already in order: fast when keys start near their place. */
mgpu_status mgpu_locality_sort(mgpu_context *ctx, mgpu_dtype key_type,
                               mgpu_order order, void *keys, size_t n,
                               size_t value_size, void *vals,
                               mgpu_sort_stats *stats);

/* ---- multiset operations ------------------------------------------------- */

typedef enum mgpu_setop_kind {
  MGPU_SET_INTERSECTION,
  MGPU_SET_UNION,
  MGPU_SET_DIFFERENCE,
  MGPU_SET_SYMMETRIC_DIFFERENCE
} mgpu_setop_kind;

/* The most outputs op can give for inputs of na and nb keys: min(na, nb),
 * na + nb, na, na + nb.  Outputs of mgpu_setop must hold this many. */
size_t mgpu_setop_capacity(mgpu_setop_kind op, size_t na, size_t nb);

/* std::set_intersection / set_union / set_difference /
 * set_symmetric_difference of two sorted key arrays with multiset
 * semantics (the k-th equal key of a matches the k-th of b).  Values move
 * with their keys: intersection and difference take a's, union and
 * symmetric difference the value of the side that supplied the key (a's on
 * a match).  *count = the number of outputs.  Waits for the device once,
 * for the count only: on the CUDA backend the call may return while the
 * last outputs are still being written, so they are complete in the
 * context's stream order (as for every other queued call), not yet on the
 * host's clock; read them through the context (or after
 * mgpu_context_sync).
 * duplicates = 0 promises that neither input repeats a key (a faster
 * partition); if the promise is broken, runs of a repeated key may be
 * matched as if split between independent calls, so the key's multiplicity
 * in the result may be off; the result is still sorted and memory-safe.
 * Unsorted inputs give unspecified outputs (at most the capacity) but never
 * a read or write outside the arrays.  Outputs need
 * mgpu_setop_capacity(op, na, nb) elements; a capacity past
 * mgpu_context_max_count (union or symmetric difference of long inputs)
 * is MGPU_ETOOBIG. */
mgpu_status mgpu_setop(mgpu_context *ctx, mgpu_setop_kind op,
                       mgpu_dtype key_type, mgpu_order order, int duplicates,
                       const void *a_keys, size_t na, const void *b_keys,
                       size_t nb, void *out_keys, size_t value_size,
                       const void *a_vals, const void *b_vals, void *out_vals,
                       size_t *count);

/* ---- scan, reduce, search, unique, compact ------------------------------ */

typedef enum mgpu_reduce_op {
  MGPU_REDUCE_ADD = 0, /* integers wrap in their dtype */
  MGPU_REDUCE_MIN,
  MGPU_REDUCE_MAX
} mgpu_reduce_op;

/* dst[i] = op over src[0, i) (exclusive: dst[0] is the identity, 0, the
 * dtype's largest value or its smallest) or over src[0, i] (inclusive), in
 * the dtype; dst may be src.  *total (may be NULL) = op over all of src,
 * in .i for integer dtypes (u64 as its bits) and .f for floats.  Floats
 * order as the sorts do: NaN above every number, so max is NaN when any
 * element is and min is NaN only when all are; ties of that order (-0.0
 * and 0.0, NaNs) go by IEEE totalOrder, so min and max are commutative. */
mgpu_status mgpu_scan(mgpu_context *ctx, mgpu_dtype t, const void *src,
                      size_t n, void *dst, mgpu_reduce_op op, int inclusive,
                      mgpu_scalar *total);

/* *out = op over src[0, n) (as mgpu_scan's total); add of no element is 0,
 * min or max of none MGPU_EINVAL. */
mgpu_status mgpu_reduce(mgpu_context *ctx, mgpu_dtype t, const void *src,
                        size_t n, mgpu_reduce_op op, mgpu_scalar *out);

/* pos[i] = base + the first index (0-based, in [0, m]) of haystack whose
 * element is not ordered before needles[i] (right = 0: a lower bound), or
 * is ordered after it (right = 1: an upper bound); base is 0 or 1, m + base
 * at most INT32_MAX (mgpu_sorted_search_idx: any m, pos of pos_type).  Both
 * sorted by order; unsorted inputs give positions in [base, base + m] that
 * mean nothing. */
mgpu_status mgpu_sorted_search(mgpu_context *ctx, mgpu_dtype t,
                               mgpu_order order, const void *needles,
                               size_t n, const void *haystack, size_t m,
                               int right, int32_t base, int32_t *pos);
mgpu_status mgpu_sorted_search_idx(mgpu_context *ctx, mgpu_dtype t,
                                   mgpu_order order, const void *needles,
                                   size_t n, const void *haystack, size_t m,
                                   int right, int32_t base,
                                   mgpu_dtype pos_type, void *pos);

/* The runs of consecutive equal keys (neither ordered before the other:
 * NaNs are equal, -0.0 equals 0.0): out_keys[j] = run j's first key,
 * out_vals[j] its value (value_size 0, 4 or 8), counts[j] (counts may be
 * NULL) its length; *count = the number of runs.  The outputs hold n. */
mgpu_status mgpu_unique(mgpu_context *ctx, mgpu_dtype t, const void *keys,
                        size_t n, size_t value_size, const void *vals,
                        void *out_keys, void *out_vals, int32_t *counts,
                        size_t *count);
/* The same with counts of counts_type: MGPU_I32 needs n <= INT32_MAX. */
mgpu_status mgpu_unique_idx(mgpu_context *ctx, mgpu_dtype t, const void *keys,
                            size_t n, size_t value_size, const void *vals,
                            void *out_keys, void *out_vals,
                            mgpu_dtype counts_type, void *counts,
                            size_t *count);

/* out = the elements of data (width 4 or 8 bytes) whose flag (an integer
 * dtype) is non-zero, in order, and out_vals likewise from vals
 * (value_size 0, 4 or 8); *count = how many.  The outputs hold n. */
mgpu_status mgpu_compact(mgpu_context *ctx, size_t width, const void *data,
                         size_t n, mgpu_dtype flag_type, const void *flags,
                         size_t value_size, const void *vals, void *out,
                         void *out_vals, size_t *count);

/* ---- keyed reductions and joins ---------------------------------------- */

/* The runs of consecutive equal keys (as mgpu_unique: NaNs are equal,
 * -0.0 equals 0.0): out_keys[j] = run j's first key, out_vals[j] = op over
 * its values in val_type (as mgpu_reduce); *count = the number of runs.
 * The outputs hold n. */
mgpu_status mgpu_reduce_by_key(mgpu_context *ctx, mgpu_dtype key_type,
                               const void *keys, size_t n, mgpu_dtype val_type,
                               const void *vals, mgpu_reduce_op op,
                               void *out_keys, void *out_vals, size_t *count);

/* dst[i] = op over vals[offsets[i], offsets[i + 1]) (the last segment ends
 * at n), or *identity (one element of t; NULL: 0, the dtype's largest
 * value or its smallest) for an empty segment.  offsets: m 0-based starts,
 * non-decreasing and in [0, n], as mgpu_prepare_positions makes them;
 * others give results that mean nothing, but nothing outside vals, offsets
 * and dst is touched. */
mgpu_status mgpu_segreduce(mgpu_context *ctx, mgpu_dtype t, const void *vals,
                           size_t n, const int32_t *offsets, size_t m,
                           mgpu_reduce_op op, const void *identity, void *dst);
/* The same with offsets of offsets_type (MGPU_I32 or MGPU_I64). */
mgpu_status mgpu_segreduce_idx(mgpu_context *ctx, mgpu_dtype t,
                               const void *vals, size_t n, const void *offsets,
                               mgpu_dtype offsets_type, size_t m,
                               mgpu_reduce_op op, const void *identity,
                               void *dst);

typedef enum mgpu_join_kind {
  MGPU_JOIN_INNER = 0,
  MGPU_JOIN_LEFT,
  MGPU_JOIN_RIGHT,
  MGPU_JOIN_OUTER
} mgpu_join_kind;

/* The rows of a relational join of a and b, both sorted by order: (i, j)
 * for every pair of equivalent keys (NaNs are one key), and for LEFT and
 * OUTER each a row with no match as (i, none), for RIGHT and OUTER each b
 * row with no match as (none, j); rows in key order, ties by i then j.
 * Indices are base + the 0-based index (base 0 or 1), none is base - 1.
 * mgpu_join_count sets *count to the number of rows (past MGPU_MAX_COUNT:
 * MGPU_ETOOBIG, *count still set); mgpu_join writes them to ia and ib
 * (capacity elements each) and sets *count; a capacity below the rows is
 * MGPU_EINVAL, with at most capacity rows written.  Unsorted inputs give
 * rows that mean nothing, never more than the capacity. */
mgpu_status mgpu_join_count(mgpu_context *ctx, mgpu_dtype t, mgpu_order order,
                            mgpu_join_kind kind, const void *a, size_t na,
                            const void *b, size_t nb, uint64_t *count);
mgpu_status mgpu_join(mgpu_context *ctx, mgpu_dtype t, mgpu_order order,
                      mgpu_join_kind kind, const void *a, size_t na,
                      const void *b, size_t nb, int32_t base, int32_t *ia,
                      int32_t *ib, size_t capacity, size_t *count);
/* mgpu_join with ia and ib of index_type: MGPU_I32 needs
 * max(na, nb) - 1 + base <= INT32_MAX.  The rows stay within MGPU_MAX_COUNT. */
mgpu_status mgpu_join_idx(mgpu_context *ctx, mgpu_dtype t, mgpu_order order,
                          mgpu_join_kind kind, const void *a, size_t na,
                          const void *b, size_t nb, int32_t base,
                          mgpu_dtype index_type, void *ia, void *ib,
                          size_t capacity, size_t *count);
/* The join in one pass where the pair above searches and scans twice: the
 * rows in two new buffers from mgpu_alloc on ctx, *ia and *ib, that the
 * caller frees with mgpu_free(ctx, p, *count * sizeof(int32_t)); *count
 * the rows (0 rows still gives two buffers).  It waits for the device once,
 * to size the result.  On failure nothing is allocated and *ia and *ib are
 * NULL; past MGPU_MAX_COUNT it is MGPU_ETOOBIG with *count still set.
 * MGPU_ENOMEM may come after the searches ran, which only read a and b, so
 * the call can be retried as any other. */
mgpu_status mgpu_join_new(mgpu_context *ctx, mgpu_dtype t, mgpu_order order,
                          mgpu_join_kind kind, const void *a, size_t na,
                          const void *b, size_t nb, int32_t base, int32_t **ia,
                          int32_t **ib, uint64_t *count);
/* mgpu_join_new with buffers of index_type, freed with
 * mgpu_free(ctx, p, *count * mgpu_dtype_size(index_type)). */
mgpu_status mgpu_join_new_idx(mgpu_context *ctx, mgpu_dtype t,
                              mgpu_order order, mgpu_join_kind kind,
                              const void *a, size_t na, const void *b,
                              size_t nb, int32_t base, mgpu_dtype index_type,
                              void **ia, void **ib, uint64_t *count);

/* ---- index preparation -------------------------------------------------
 * Callers of the bulk and interval operations usually hold 1-based indices
 * of some integer dtype; these turn them into the 0-based index arrays the
 * operations take (int32; the *_idx forms: of a dtype of the index dtype
 * rule), checking them on the way.  On a violation they return
 * MGPU_EINVAL and set *bad to the 0-based position of the first offending
 * element and *bad_value to its value (as int64); otherwise *bad = -1. */

/* dst[i] = src[i] - 1, requiring lo <= src[i] <= hi and src increasing
 * (strictly when unique is non-zero). */
mgpu_status mgpu_prepare_positions(mgpu_context *ctx, const void *src,
                                   mgpu_dtype t, size_t m, int64_t lo,
                                   int64_t hi, int unique, int32_t *dst,
                                   int64_t *bad, int64_t *bad_value);
/* The same into dst of dst_type: MGPU_I32 needs hi - 1 <= INT32_MAX (the
 * plain form refuses hi past MGPU_MAX_COUNT + 1 with MGPU_EINVAL). */
mgpu_status mgpu_prepare_positions_idx(mgpu_context *ctx, const void *src,
                                       mgpu_dtype t, size_t m, int64_t lo,
                                       int64_t hi, int unique,
                                       mgpu_dtype dst_type, void *dst,
                                       int64_t *bad, int64_t *bad_value);

/* scan[i] = counts[0] + ... + counts[i-1] (int32), *total = the sum.  A
 * negative count is MGPU_EINVAL (*bad, *bad_value); a total past
 * MGPU_MAX_COUNT is MGPU_ETOOBIG (then *total holds it, summed with each
 * count capped at 2^31: a lower bound). */
mgpu_status mgpu_scan_counts(mgpu_context *ctx, const void *counts,
                             mgpu_dtype t, size_t m, int32_t *scan,
                             int64_t *total, int64_t *bad, int64_t *bad_value);
/* The same into scan of scan_type: MGPU_I32 as above; MGPU_I64 takes a
 * total up to mgpu_context_max_count (past it, *total is summed with counts
 * and sum capped at 2^62).  The total is only known after the scan: a
 * caller that wants the index dtype rule's dtype scans into MGPU_I32 and,
 * on MGPU_ETOOBIG with a total the context takes, again into MGPU_I64. */
mgpu_status mgpu_scan_counts_idx(mgpu_context *ctx, const void *counts,
                                 mgpu_dtype t, size_t m, mgpu_dtype scan_type,
                                 void *scan, int64_t *total, int64_t *bad,
                                 int64_t *bad_value);

/* Interval starts: dst[i] = starts[i] - 1 for the intervals of lengths
 * given by (scan, total), requiring starts[i] >= 1,
 * starts[i] - 1 + count[i] <= cap (the interval fits in an array of cap
 * elements) and starts[i] <= cap + 1, where cap is limit, or MGPU_MAX_COUNT
 * when limit is negative (no array yet) or past it: dst's int32 hold every
 * start.  *max_end = the largest starts[i] - 1 + count[i] over non-empty
 * intervals (0 if none). */
mgpu_status mgpu_prepare_starts(mgpu_context *ctx, const void *starts,
                                mgpu_dtype t, const int32_t *scan, size_t m,
                                size_t total, int64_t limit, int32_t *dst,
                                int64_t *bad, int64_t *bad_value,
                                int64_t *max_end);
/* The same with scan of scan_type (MGPU_I32 needs total <= INT32_MAX) and
 * dst of dst_type: an MGPU_I64 dst's cap is limit, or
 * mgpu_context_max_count when limit is negative. */
mgpu_status mgpu_prepare_starts_idx(mgpu_context *ctx, const void *starts,
                                    mgpu_dtype t, const void *scan,
                                    mgpu_dtype scan_type, size_t m,
                                    size_t total, int64_t limit,
                                    mgpu_dtype dst_type, void *dst,
                                    int64_t *bad, int64_t *bad_value,
                                    int64_t *max_end);

/* ---- bulk and interval operations (elements of `width` bytes: 4 or 8) ---
 * Intervals are given by their exclusive scan: interval i has count
 * scan[i+1] - scan[i] (the last one total - scan[m-1]).  The *_idx forms
 * take each index array with its dtype (MGPU_I32, or MGPU_I64 where
 * mgpu_context_wide_index); an MGPU_I32 scan needs total <= INT32_MAX. */

/* out = data without the elements at indices (0-based, sorted, unique,
 * < n): n - m elements, in order. */
mgpu_status mgpu_bulk_remove(mgpu_context *ctx, size_t width, const void *data,
                             size_t n, const int32_t *indices, size_t m,
                             void *out);
mgpu_status mgpu_bulk_remove_idx(mgpu_context *ctx, size_t width,
                                 const void *data, size_t n,
                                 const void *indices, mgpu_dtype indices_type,
                                 size_t m, void *out);

/* out (n + m elements) = data with values[i] inserted before data[
 * positions[i]] (0-based, non-decreasing, <= n; equal positions keep their
 * order). */
mgpu_status mgpu_bulk_insert(mgpu_context *ctx, size_t width, const void *data,
                             size_t n, const int32_t *positions,
                             const void *values, size_t m, void *out);
mgpu_status mgpu_bulk_insert_idx(mgpu_context *ctx, size_t width,
                                 const void *data, size_t n,
                                 const void *positions,
                                 mgpu_dtype positions_type,
                                 const void *values, size_t m, void *out);

/* For each of the total outputs of intervals with exclusive scan `scan`
 * (m intervals): out[k] = base + the interval that produces output k,
 * wrapped to 32 bits (two's complement). */
mgpu_status mgpu_load_balance(mgpu_context *ctx, const int32_t *scan, size_t m,
                              size_t total, int32_t base, int32_t *out);
/* The same with out of out_type: MGPU_I32 as above (for at most 2^31
 * intervals), MGPU_I64 holding base + the interval itself.  The index
 * dtype rule's out_type is mgpu_index_type(m - 1 + base). */
mgpu_status mgpu_load_balance_idx(mgpu_context *ctx, const void *scan,
                                  mgpu_dtype scan_type, size_t m,
                                  size_t total, int32_t base,
                                  mgpu_dtype out_type, void *out);

/* out[scan[i] + j] = values[i] for j < count[i]. */
mgpu_status mgpu_interval_expand(mgpu_context *ctx, size_t width,
                                 const void *values, const int32_t *scan,
                                 size_t m, size_t total, void *out);
mgpu_status mgpu_interval_expand_idx(mgpu_context *ctx, size_t width,
                                     const void *values, const void *scan,
                                     mgpu_dtype scan_type, size_t m,
                                     size_t total, void *out);

/* For each interval i and j < count[i]: out[s + j] = input[g + j] with g =
 * gather[i] (or scan[i] when gather is NULL) and s = scatter[i] (or scan[i]
 * when scatter is NULL); 0-based.  input has n_input elements and out n_out:
 * a copy that would fall outside either is skipped (mgpu_prepare_starts
 * checks ranges beforehand, with a message).  out must not overlap input.
 * Overlapping destinations: each element ends up with one of the values
 * written to it, which one is unspecified. */
mgpu_status mgpu_interval_move(mgpu_context *ctx, size_t width,
                               const void *input, size_t n_input,
                               const int32_t *gather, const int32_t *scatter,
                               const int32_t *scan, size_t m, size_t total,
                               void *out, size_t n_out);
mgpu_status mgpu_interval_move_idx(mgpu_context *ctx, size_t width,
                                   const void *input, size_t n_input,
                                   const void *gather, mgpu_dtype gather_type,
                                   const void *scatter,
                                   mgpu_dtype scatter_type, const void *scan,
                                   mgpu_dtype scan_type, size_t m,
                                   size_t total, void *out, size_t n_out);

/* ---- wrapped scans -------------------------------------------------------
 * Past INT32_MAX outputs an int32 scan no longer holds the interval starts
 * and an int64 one takes twice the bytes to write and to read.  A wrapped
 * scan keeps each start modulo 2^32 (4 bytes a count) and, beside it, the
 * few places where the starts pass a multiple of 2^32: start i is
 * scan[i] + 2^32 * #{w < wraps->n : wraps->at[w] <= i}.  Counts must be
 * below 2^32 each (then a start passes at most one multiple). */
#define MGPU_MAX_WRAPS 32
typedef struct mgpu_wraps {
  int n;                      /* how many multiples of 2^32 the starts pass */
  int64_t at[MGPU_MAX_WRAPS]; /* at[w]: the first i whose start is at or
                                 past (w + 1) 2^32; increasing */
} mgpu_wraps;

/* scan and wraps of counts (of integer dtype t), *total = the sum, in one
 * pass.  While the total is at most INT32_MAX the scan is the int32 one of
 * mgpu_scan_counts (wraps->n = 0).  A negative count is MGPU_EINVAL (*bad,
 * *bad_value); MGPU_ETOOBIG when a count is 2^32 or more, the starts pass
 * more than MGPU_MAX_WRAPS multiples of 2^32 or the total is past
 * mgpu_context_max_count (*total: the sum with each count capped at
 * 2^32 - 1): an int64 scan (mgpu_scan_counts_idx) takes those. */
mgpu_status mgpu_scan_counts_wrapped(mgpu_context *ctx, const void *counts,
                                     mgpu_dtype t, size_t m, uint32_t *scan,
                                     mgpu_wraps *wraps, int64_t *total,
                                     int64_t *bad, int64_t *bad_value);
/* mgpu_load_balance_idx and mgpu_interval_expand_idx on a wrapped scan. */
mgpu_status mgpu_load_balance_wrapped(mgpu_context *ctx, const uint32_t *scan,
                                      const mgpu_wraps *wraps, size_t m,
                                      size_t total, int32_t base,
                                      mgpu_dtype out_type, void *out);
mgpu_status mgpu_interval_expand_wrapped(mgpu_context *ctx, size_t width,
                                         const void *values,
                                         const uint32_t *scan,
                                         const mgpu_wraps *wraps, size_t m,
                                         size_t total, void *out);

/* ---- groups: data sharded across several contexts ----------------------
 * A group is contexts of one backend, numbered 0..size-1; a sharded array
 * is one buffer a context, shard k on context k, the shards in order making
 * the whole.  Every call here waits for the group's devices (it reads back
 * the samples that choose the splitters).  cpu: any number of cpu contexts
 * (several contexts of one process, copying with memcpy).  cuda: distinct
 * devices; a group of more than one needs a build with NCCL
 * (MGPU_ENODEV otherwise, with the reason).  A shard, given or made, may
 * hold up to its context's mgpu_context_max_count (MGPU_ETOOBIG past it);
 * the calls a group makes on a shard follow the index dtype rule. */
typedef struct mgpu_group mgpu_group;

/* Retains each context.  On failure *out is NULL and errbuf (if given)
 * holds the reason. */
mgpu_status mgpu_group_create(mgpu_context *const *contexts, size_t count,
                              mgpu_group **out, char *errbuf, size_t errlen);
void mgpu_group_retain(mgpu_group *g);
void mgpu_group_release(mgpu_group *g); /* frees at the last release */
size_t mgpu_group_size(const mgpu_group *g);
mgpu_context *mgpu_group_context(const mgpu_group *g, size_t k);
/* The reason of the group's last failure ("shard 2 (cpu): ..."). */
const char *mgpu_group_error(const mgpu_group *g);
/* 1 when this build has NCCL for groups of several CUDA devices. */
int mgpu_group_have_nccl(void);

/* The samples a group's sort or merge takes from each sorted run (all of a
 * run when it is shorter): MGPU_GROUP_OVERSAMPLE * (size + 1).  With n keys
 * over p contexts and the longest run n_max, every output shard holds
 * within (n + n_max) / samples + 1 of n / p (docs/API.md, "Groups"). */
#define MGPU_GROUP_OVERSAMPLE 64

/* Global stable sort of a sharded array: keys[k] (counts[k] keys, and
 * vals[k] when value_size is 4 or 8) on context k.  Output shard j is the
 * j-th range of the sorted order, in a new buffer from mgpu_alloc on
 * context j (out_keys[j], out_vals[j]; out_counts[j] elements, the bytes
 * to give mgpu_free being out_counts[j] times the element size; a shard of
 * 0 still gets a buffer).  Ties keep the order of the whole (shard, then
 * position).  keys[k] and vals[k] are left sorted within the shard.  On
 * failure nothing is allocated. */
mgpu_status mgpu_group_mergesort(mgpu_group *g, mgpu_dtype key_type,
                                 mgpu_order order, size_t value_size,
                                 void *const *keys, void *const *vals,
                                 const size_t *counts, void **out_keys,
                                 void **out_vals, size_t *out_counts);

/* mgpu_group_mergesort with each shard's own sort by mgpu_sort (the radix
 * sort) instead of mgpu_mergesort: the same results, bit for bit. */
mgpu_status mgpu_group_sort(mgpu_group *g, mgpu_dtype key_type,
                            mgpu_order order, size_t value_size,
                            void *const *keys, void *const *vals,
                            const size_t *counts, void **out_keys,
                            void **out_vals, size_t *out_counts);

/* Stable merge of two sorted sharded arrays a and b (ties take a first),
 * into new shards as mgpu_group_mergesort gives them.  The inputs are not
 * changed. */
mgpu_status mgpu_group_merge(mgpu_group *g, mgpu_dtype key_type,
                             mgpu_order order, size_t value_size,
                             const void *const *a_keys,
                             const void *const *a_vals,
                             const size_t *a_counts,
                             const void *const *b_keys,
                             const void *const *b_vals,
                             const size_t *b_counts, void **out_keys,
                             void **out_vals, size_t *out_counts);

/* mgpu_segsort of each shard, in place, with heads given as 0-based
 * positions in the whole (host memory, any order, repeats and positions
 * outside the array ignored).  A segment may not cross from one shard into
 * the next: unless every non-empty shard after the first non-empty one
 * starts at a head, MGPU_EINVAL, naming the position. */
mgpu_status mgpu_group_segsort(mgpu_group *g, mgpu_dtype key_type,
                               mgpu_order order, size_t value_size,
                               void *const *keys, void *const *vals,
                               const size_t *counts, const int64_t *heads,
                               size_t m);

#ifdef __cplusplus
}
#endif

#endif /* MGPU_H */
