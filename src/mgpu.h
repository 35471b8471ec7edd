/*
 * mgpu.h - public C API of mgpu, for embedding in C and C++ hosts.
 *
 * Everything here is 0-based and works on raw buffers that belong to a
 * context: device pointers for a CUDA context, host pointers for the cpu
 * context.  Take buffers with mgpu_alloc (or, on a CUDA context, any device
 * allocation on the context's device).  Operations are enqueued on the
 * context's stream; only mgpu_download, mgpu_is_sorted and mgpu_context_sync
 * wait for the device.
 *
 * Every function returning mgpu_status leaves a message in
 * mgpu_context_error(ctx) when it fails.  Counts are limited to
 * MGPU_MAX_COUNT elements per array (and per result); a count of 0 is
 * allowed everywhere and does nothing, and value pointers may be NULL when
 * value_size is 0.
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
  MGPU_ETOOBIG,  /* a count or result past MGPU_MAX_COUNT */
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
void mgpu_context_retain(mgpu_context *ctx);
void mgpu_context_release(mgpu_context *ctx); /* frees at the last release */

const char *mgpu_context_device(const mgpu_context *ctx); /* "cpu", "cuda:0" */
const char *mgpu_context_backend(const mgpu_context *ctx); /* "cpu", "cuda" */
const char *mgpu_context_error(const mgpu_context *ctx);
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
} mgpu_context_info;
mgpu_status mgpu_context_info_get(mgpu_context *ctx, mgpu_context_info *info);

/* Caps the bytes this context may hold at once (0 removes the cap).  An
 * allocation past the cap fails with MGPU_ENOMEM, like a full device. */
void mgpu_context_set_memory_limit(mgpu_context *ctx, size_t bytes);
/* Waits for the context's work and returns the pool's cached free memory to
 * the device: what a caller does before retrying a failed allocation. */
mgpu_status mgpu_context_reclaim(mgpu_context *ctx);

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

#ifdef __cplusplus
}
#endif

#endif /* MGPU_H */
