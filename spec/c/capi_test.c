/*
 * capi_test.c - the C API's index preparations and interval operations at
 * the edges of their integer ranges: limit = INT64_MAX, lo = INT64_MIN,
 * starts and bases next to INT32_MAX and INT64_MAX, counts past the cap.
 * Expected values are written out here (or, for the sweep of
 * mgpu_prepare_starts, computed in 128 bits), not taken from the library.
 * Also a host's own memory and stream for a context
 * (mgpu_context_create_with), and the cpu backend's loops and index
 * outputs past 2^31 elements, called below the C API's limit.
 *
 *   mgpu_capi_test [device...]   (default: cpu, and cuda when there is one)
 *   mgpu_capi_test --devices     (lists the default's devices)
 *
 * Prints "capi: N passed, N failed" and exits non-zero on a failure.  Built
 * with -fsanitize=undefined -fno-sanitize-recover=all, an overflow in the
 * library aborts it instead.
 */
/* mmap's MAP_ANONYMOUS and MAP_NORESERVE, outside C11 and POSIX */
#define _DEFAULT_SOURCE
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>

#include "cpu/cpu.h"
#include "mgpu.h"
#ifdef MGPU_CTEST_CUDA
#include <cuda_runtime_api.h>
#endif

static int passed, failed;
static const char *device = "";

static void check(int ok, int line, const char *fmt, ...) {
  if (ok) {
    passed++;
    return;
  }
  failed++;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "capi_test.c:%d [%s]: ", line, device);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}
#define CHECK(cond, ...) check((cond), __LINE__, __VA_ARGS__)

static void die(mgpu_context *ctx, const char *what) {
  fprintf(stderr, "capi_test [%s]: %s failed: %s\n", device, what,
          ctx ? mgpu_context_error(ctx) : "");
  exit(2);
}

/* ---- buffers of the context (device memory on cuda) -------------------- */

#define MAX_BUFS 32
static struct { void *p; size_t bytes; } bufs[MAX_BUFS];
static int nbufs;

static void *buffer(mgpu_context *ctx, const void *host, size_t bytes) {
  void *p;
  if (nbufs == MAX_BUFS) die(ctx, "buffer table");
  if (mgpu_alloc(ctx, bytes, &p) != MGPU_OK) die(ctx, "mgpu_alloc");
  if (host && mgpu_upload(ctx, p, host, bytes) != MGPU_OK)
    die(ctx, "mgpu_upload");
  bufs[nbufs].p = p;
  bufs[nbufs++].bytes = bytes;
  return p;
}

static void fetch(mgpu_context *ctx, void *host, const void *p, size_t bytes) {
  if (mgpu_download(ctx, host, p, bytes) != MGPU_OK) die(ctx, "mgpu_download");
}

static void release_buffers(mgpu_context *ctx) {
  while (nbufs) {
    nbufs--;
    mgpu_free(ctx, bufs[nbufs].p, bufs[nbufs].bytes);
  }
}

#define I64MAX INT64_MAX
#define I64MIN INT64_MIN
#define I32MAX ((int64_t)INT32_MAX)
#define I32MIN ((int64_t)INT32_MIN)
#define MAXC ((int64_t)MGPU_MAX_COUNT)
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- mgpu_prepare_positions --------------------------------------------- */

typedef struct {
  mgpu_status st;
  int64_t bad, bad_value;
  int32_t dst[16];
} result;

static result positions(mgpu_context *ctx, mgpu_dtype t, const void *src,
                        size_t m, int64_t lo, int64_t hi, int unique) {
  result r;
  memset(&r, 0, sizeof r);
  void *s = buffer(ctx, src, m * mgpu_dtype_size(t));
  int32_t *d = buffer(ctx, NULL, m * 4);
  r.st = mgpu_prepare_positions(ctx, s, t, m, lo, hi, unique, d, &r.bad,
                                &r.bad_value);
  if (r.st == MGPU_OK) fetch(ctx, r.dst, d, m * 4);
  release_buffers(ctx);
  return r;
}

static void test_positions(mgpu_context *ctx) {
  {
    /* lo = INT64_MIN admits INT64_MIN itself: dst is v - 1 in 32 bits
     * (two's complement), as for every other v */
    const int64_t v[] = {I64MIN, I64MIN + 1, -1, 0, 1, 5};
    const int32_t want[] = {-1, 0, -2, -1, 0, 4};
    result r = positions(ctx, MGPU_I64, v, N(v), I64MIN, 10, 1);
    CHECK(r.st == MGPU_OK && r.bad == -1, "lo = INT64_MIN: status %d bad %" PRId64,
          (int)r.st, r.bad);
    for (size_t i = 0; r.st == MGPU_OK && i < N(v); i++)
      CHECK(r.dst[i] == want[i], "lo = INT64_MIN: dst[%zu] = %d, want %d", i,
            (int)r.dst[i], (int)want[i]);
  }
  {
    const int64_t v[] = {I64MIN};
    result r = positions(ctx, MGPU_I64, v, 1, I64MIN, I64MIN, 0);
    CHECK(r.st == MGPU_OK && r.dst[0] == -1,
          "lo = hi = INT64_MIN: status %d dst %d", (int)r.st, (int)r.dst[0]);
    r = positions(ctx, MGPU_I64, v, 1, I64MIN + 1, 10, 0);
    CHECK(r.st == MGPU_EINVAL && r.bad == 0 && r.bad_value == I64MIN,
          "INT64_MIN below lo: status %d bad %" PRId64 " value %" PRId64,
          (int)r.st, r.bad, r.bad_value);
  }
  {
    /* 32-bit inputs at their extremes */
    const int32_t v[] = {INT32_MIN, -1, 1, INT32_MAX};
    const int32_t want[] = {INT32_MAX, -2, 0, INT32_MAX - 1};
    result r = positions(ctx, MGPU_I32, v, N(v), I64MIN, MAXC + 1, 0);
    CHECK(r.st == MGPU_OK, "i32 extremes: status %d", (int)r.st);
    for (size_t i = 0; r.st == MGPU_OK && i < N(v); i++)
      CHECK(r.dst[i] == want[i], "i32 extremes: dst[%zu] = %d, want %d", i,
            (int)r.dst[i], (int)want[i]);
  }
  {
    /* hi at its ceiling, MGPU_MAX_COUNT + 1 = 2^31 */
    const int64_t v[] = {1, I32MAX, I32MAX + 1};
    result r = positions(ctx, MGPU_I64, v, N(v), 1, MAXC + 1, 1);
    CHECK(r.st == MGPU_OK && r.dst[0] == 0 && r.dst[1] == INT32_MAX - 1 &&
              r.dst[2] == INT32_MAX,
          "hi = 2^31: status %d", (int)r.st);
    const int64_t w[] = {1, I32MAX + 2};
    r = positions(ctx, MGPU_I64, w, N(w), 1, MAXC + 1, 1);
    CHECK(r.st == MGPU_EINVAL && r.bad == 1 && r.bad_value == I32MAX + 2,
          "past hi = 2^31: status %d bad %" PRId64, (int)r.st, r.bad);
    r = positions(ctx, MGPU_I64, w, N(w), 1, MAXC + 2, 1);
    CHECK(r.st == MGPU_EINVAL && r.bad == -1, "hi past the count limit: %d",
          (int)r.st);
  }
  {
    /* u64 past INT64_MAX reads as INT64_MAX, past any hi */
    const uint64_t v[] = {1, UINT64_MAX};
    result r = positions(ctx, MGPU_U64, v, N(v), I64MIN, 10, 0);
    CHECK(r.st == MGPU_EINVAL && r.bad == 1 && r.bad_value == I64MAX,
          "u64 past INT64_MAX: status %d bad %" PRId64 " value %" PRId64,
          (int)r.st, r.bad, r.bad_value);
  }
  {
    /* order: non-decreasing, strictly when unique */
    const int64_t v[] = {1, 3, 3, 11};
    result r = positions(ctx, MGPU_I64, v, N(v), 1, 11, 0);
    CHECK(r.st == MGPU_OK && r.dst[0] == 0 && r.dst[1] == 2 && r.dst[2] == 2 &&
              r.dst[3] == 10,
          "repeats allowed: status %d", (int)r.st);
    r = positions(ctx, MGPU_I64, v, N(v), 1, 11, 1);
    CHECK(r.st == MGPU_EINVAL && r.bad == 2 && r.bad_value == 3,
          "unique: status %d bad %" PRId64, (int)r.st, r.bad);
  }
}

/* ---- mgpu_scan_counts ---------------------------------------------------- */

typedef struct {
  mgpu_status st;
  int64_t total, bad, bad_value;
  int32_t scan[16];
} scan_result;

static scan_result scan_counts(mgpu_context *ctx, mgpu_dtype t,
                               const void *counts, size_t m) {
  scan_result r;
  memset(&r, 0, sizeof r);
  void *c = buffer(ctx, counts, m * mgpu_dtype_size(t));
  int32_t *s = buffer(ctx, NULL, m * 4);
  r.st = mgpu_scan_counts(ctx, c, t, m, s, &r.total, &r.bad, &r.bad_value);
  if (r.st == MGPU_OK && m <= 16) fetch(ctx, r.scan, s, m * 4);
  release_buffers(ctx);
  return r;
}

static void test_scan_counts(mgpu_context *ctx) {
  {
    const int64_t c[] = {I32MAX - 1, 1, 0};
    scan_result r = scan_counts(ctx, MGPU_I64, c, N(c));
    CHECK(r.st == MGPU_OK && r.total == I32MAX && r.scan[0] == 0 &&
              r.scan[1] == INT32_MAX - 1 && r.scan[2] == INT32_MAX,
          "total INT32_MAX: status %d total %" PRId64, (int)r.st, r.total);
  }
  {
    /* counts are capped at 2^31 while summing: the total says how far past */
    const int64_t c[] = {I64MAX, 1};
    scan_result r = scan_counts(ctx, MGPU_I64, c, N(c));
    CHECK(r.st == MGPU_ETOOBIG && r.total == (((int64_t)1 << 31) | 1),
          "INT64_MAX count: status %d total %" PRId64, (int)r.st, r.total);
    const uint64_t u[] = {UINT64_MAX, UINT64_MAX, 3};
    r = scan_counts(ctx, MGPU_U64, u, N(u));
    CHECK(r.st == MGPU_ETOOBIG && r.total == ((int64_t)1 << 32) + 3,
          "u64 counts: status %d total %" PRId64, (int)r.st, r.total);
  }
  {
    enum { M = 5000 };
    static int64_t c[M];
    for (int i = 0; i < M; i++) c[i] = I64MAX - i;
    scan_result r = scan_counts(ctx, MGPU_I64, c, M);
    CHECK(r.st == MGPU_ETOOBIG && r.total == (int64_t)M << 31,
          "%d counts near INT64_MAX: status %d total %" PRId64, M, (int)r.st,
          r.total);
  }
  {
    const int64_t c[] = {5, I64MIN, -1};
    scan_result r = scan_counts(ctx, MGPU_I64, c, N(c));
    CHECK(r.st == MGPU_EINVAL && r.bad == 1 && r.bad_value == I64MIN,
          "INT64_MIN count: status %d bad %" PRId64 " value %" PRId64,
          (int)r.st, r.bad, r.bad_value);
  }
}

/* ---- wrapped scans -------------------------------------------------------- */

/* The wrapped scan of counts against a plain 64-bit one: the low words,
 * the wraps (the first start at or past each multiple of 2^32), the total
 * and the status. */
static void check_wrapped(mgpu_context *ctx, mgpu_dtype t, const void *counts,
                          size_t m, const char *what) {
  const size_t w = mgpu_dtype_size(t);
  uint64_t sum = 0;
  int wide = 0, n = 0;
  int64_t at[MGPU_MAX_WRAPS + 1];
  uint32_t *want = malloc(m * 4), *got = malloc(m * 4);
  if (!want || !got) die(ctx, "malloc");
  for (size_t i = 0; i < m; i++) {
    int64_t c;
    if (t == MGPU_I64) memcpy(&c, (const char *)counts + i * w, 8);
    else if (t == MGPU_U32) { uint32_t u; memcpy(&u, (const char *)counts + i * w, 4); c = u; }
    else { int32_t v; memcpy(&v, (const char *)counts + i * w, 4); c = v; }
    want[i] = (uint32_t)sum;
    if (i > 0 && (uint64_t)(sum >> 32) > (uint64_t)n) {
      if (n < MGPU_MAX_WRAPS + 1) at[n] = (int64_t)i;
      n++;
    }
    if (c >= ((int64_t)1 << 32)) wide = 1;
    sum += (uint64_t)c;
  }
  void *c = buffer(ctx, counts, m * w);
  uint32_t *sc = buffer(ctx, NULL, m * 4);
  mgpu_wraps wr;
  int64_t total, bad, bad_value;
  mgpu_status st =
      mgpu_scan_counts_wrapped(ctx, c, t, m, sc, &wr, &total, &bad, &bad_value);
  if (wide || n > MGPU_MAX_WRAPS) {
    CHECK(st == MGPU_ETOOBIG, "%s: status %d, want MGPU_ETOOBIG", what, (int)st);
  } else {
    fetch(ctx, got, sc, m * 4);
    int ok = st == MGPU_OK && total == (int64_t)sum && wr.n == n &&
             !memcmp(got, want, m * 4);
    for (int k = 0; ok && k < n; k++) ok = wr.at[k] == at[k];
    CHECK(ok, "%s: status %d total %" PRId64 " (want %" PRIu64 ") wraps %d "
              "(want %d)", what, (int)st, total, sum, wr.n, n);
  }
  release_buffers(ctx);
  free(want);
  free(got);
}

static void test_wrapped(mgpu_context *ctx) {
  {
    const int32_t c[] = {3, 0, 5, I32MAX, 2};
    check_wrapped(ctx, MGPU_I32, c, N(c), "i32 counts below 2^32");
  }
  {
    /* starts 0, 3e9, 6e9 (past 2^32: a wrap at 2), 6e9 + 5 */
    const int64_t c[] = {3000000000, 3000000000, 5, 7};
    check_wrapped(ctx, MGPU_I64, c, N(c), "one wrap");
    const uint32_t u[] = {UINT32_MAX, UINT32_MAX, 0, UINT32_MAX, 1, 1};
    check_wrapped(ctx, MGPU_U32, u, N(u), "u32 counts of 2^32 - 1");
    const int64_t big[] = {1, (int64_t)1 << 32, 1};
    check_wrapped(ctx, MGPU_I64, big, N(big), "a count of 2^32");
  }
  {
    /* many tiles, wraps in several of them, and past MGPU_MAX_WRAPS */
    enum { M = 300000 };
    static int64_t c[M];
    for (int i = 0; i < M; i++) c[i] = i % 1000 == 999 ? 3000000000 : i % 9;
    check_wrapped(ctx, MGPU_I64, c, 20000, "wraps across tiles");
    check_wrapped(ctx, MGPU_I64, c, M, "more wraps than kept");
  }
  {
    const int32_t c[] = {4, -2, 1};
    void *d = buffer(ctx, c, sizeof c);
    uint32_t *sc = buffer(ctx, NULL, sizeof c);
    mgpu_wraps wr;
    int64_t total, bad, bad_value;
    mgpu_status st = mgpu_scan_counts_wrapped(ctx, d, MGPU_I32, 3, sc, &wr,
                                              &total, &bad, &bad_value);
    CHECK(st == MGPU_EINVAL && bad == 1 && bad_value == -2,
          "wrapped scan of a negative count: status %d bad %" PRId64,
          (int)st, bad);
    release_buffers(ctx);
  }
  {
    /* the wrapped forms on a total below 2^32: the 64-bit instances read
     * the uint32 scan; wraps the total cannot have are refused */
    const int32_t vals[] = {10, 20, 30, 40};
    const uint32_t scan[] = {0, 2, 2, 5};
    const int32_t want[] = {10, 10, 30, 30, 30, 40};
    const int32_t want_lb[] = {1, 1, 3, 3, 3, 4};
    void *v = buffer(ctx, vals, sizeof vals);
    uint32_t *sc = buffer(ctx, scan, sizeof scan);
    int32_t *out = buffer(ctx, NULL, sizeof want);
    int32_t got[6] = {0};
    mgpu_wraps wr;
    memset(&wr, 0, sizeof wr);
    mgpu_status st = mgpu_interval_expand_wrapped(ctx, 4, v, sc, &wr, 4, 6, out);
    if (st == MGPU_OK) fetch(ctx, got, out, sizeof got);
    CHECK(st == MGPU_OK && !memcmp(got, want, sizeof want),
          "interval_expand_wrapped: status %d", (int)st);
    memset(got, 0, sizeof got);
    st = mgpu_load_balance_wrapped(ctx, sc, &wr, 4, 6, 1, MGPU_I32, out);
    if (st == MGPU_OK) fetch(ctx, got, out, sizeof got);
    CHECK(st == MGPU_OK && !memcmp(got, want_lb, sizeof want_lb),
          "load_balance_wrapped: status %d", (int)st);
    wr.n = 1;
    wr.at[0] = 2;
    st = mgpu_interval_expand_wrapped(ctx, 4, v, sc, &wr, 4, 6, out);
    CHECK(st == MGPU_EINVAL, "a wrap a total of 6 cannot have: status %d",
          (int)st);
    wr.n = -1;
    st = mgpu_load_balance_wrapped(ctx, sc, &wr, 4, 6, 1, MGPU_I32, out);
    CHECK(st == MGPU_EINVAL, "wraps->n = -1: status %d", (int)st);
    st = mgpu_interval_expand_wrapped(ctx, 4, v, sc, NULL, 4, 6, out);
    CHECK(st == MGPU_EINVAL && strstr(mgpu_context_error(ctx), "wraps"),
          "no wraps: status %d", (int)st);
    release_buffers(ctx);
  }
}

/* ---- mgpu_prepare_starts ------------------------------------------------- */

typedef struct {
  mgpu_status st;
  int64_t bad, bad_value, max_end;
  int64_t dst[16];
} starts_result;

/* Intervals of the given counts (their scan made here) starting at starts,
 * into int32 starts (mgpu_prepare_starts) or, with dst_type MGPU_I64,
 * int64 ones (mgpu_prepare_starts_idx). */
static starts_result starts_into(mgpu_context *ctx, mgpu_dtype dst_type,
                                 mgpu_dtype t, const void *st,
                                 const int64_t *counts, size_t m,
                                 int64_t limit) {
  starts_result r;
  memset(&r, 0, sizeof r);
  int32_t scan[16];
  int64_t total = 0;
  for (size_t i = 0; i < m; i++) {
    scan[i] = (int32_t)total;
    total += counts[i];
  }
  void *s = buffer(ctx, st, m * mgpu_dtype_size(t));
  int32_t *sc = buffer(ctx, scan, m * 4);
  void *d = buffer(ctx, NULL, m * 8);
  if (dst_type == MGPU_I64)
    r.st = mgpu_prepare_starts_idx(ctx, s, t, sc, MGPU_I32, m, (size_t)total,
                                   limit, MGPU_I64, d, &r.bad, &r.bad_value,
                                   &r.max_end);
  else
    r.st = mgpu_prepare_starts(ctx, s, t, sc, m, (size_t)total, limit, d,
                               &r.bad, &r.bad_value, &r.max_end);
  if (r.st == MGPU_OK) {
    if (dst_type == MGPU_I64) {
      fetch(ctx, r.dst, d, m * 8);
    } else {
      int32_t d32[16];
      fetch(ctx, d32, d, m * 4);
      for (size_t i = 0; i < m; i++) r.dst[i] = d32[i];
    }
  }
  release_buffers(ctx);
  return r;
}

static starts_result starts(mgpu_context *ctx, mgpu_dtype t, const void *st,
                            const int64_t *counts, size_t m, int64_t limit) {
  return starts_into(ctx, MGPU_I32, t, st, counts, m, limit);
}

static starts_result starts64(mgpu_context *ctx, mgpu_dtype t, const void *st,
                              const int64_t *counts, size_t m, int64_t limit) {
  return starts_into(ctx, MGPU_I64, t, st, counts, m, limit);
}

#define STARTS_OK(r, want_max_end, what)                                       \
  CHECK((r).st == MGPU_OK && (r).bad == -1 && (r).max_end == (want_max_end),   \
        "%s: status %d bad %" PRId64 " max_end %" PRId64 ", want ok and %" PRId64, \
        what, (int)(r).st, (r).bad, (r).max_end, (int64_t)(want_max_end))
#define STARTS_BAD(r, want_bad, want_value, what)                              \
  CHECK((r).st == MGPU_EINVAL && (r).bad == (want_bad) &&                      \
            (r).bad_value == (want_value),                                     \
        "%s: status %d bad %" PRId64 " value %" PRId64 ", want bad %d value %" PRId64, \
        what, (int)(r).st, (r).bad, (r).bad_value, (int)(want_bad),            \
        (int64_t)(want_value))

#ifdef __SIZEOF_INT128__
/* The documented rule, in 128 bits: int32 starts (wide 0) stop at
 * MGPU_MAX_COUNT, int64 ones at the limit (or, with none, max_count). */
static int starts_rule(int64_t s, int64_t count, int64_t limit, int wide,
                       int64_t max_count) {
  const __int128 cap = wide ? (limit >= 0 ? limit : max_count)
                            : (limit >= 0 && limit < MAXC ? limit : MAXC);
  return s >= 1 && (__int128)s <= cap + 1 && (__int128)s - 1 + count <= cap;
}
#endif

static void test_starts(mgpu_context *ctx) {
  const int wide = mgpu_context_wide_index(ctx);
  {
    /* limit = INT64_MAX: any array; valid intervals are accepted */
    const int64_t s[] = {1, 5}, c[] = {2, 3};
    starts_result r = starts(ctx, MGPU_I64, s, c, 2, I64MAX);
    STARTS_OK(r, 7, "limit INT64_MAX");
    CHECK(r.dst[0] == 0 && r.dst[1] == 4, "limit INT64_MAX: dst %d %d",
          (int)r.dst[0], (int)r.dst[1]);
    /* int32 starts stop at INT32_MAX whatever the limit: none truncated */
    const int64_t top[] = {I32MAX + 1}, past[] = {I32MAX + 2}, c0[] = {0};
    r = starts(ctx, MGPU_I64, top, c0, 1, I64MAX);
    STARTS_OK(r, 0, "int32 start 2^31, count 0, limit INT64_MAX");
    CHECK(r.dst[0] == I32MAX, "int32 start 2^31: dst %" PRId64, r.dst[0]);
    r = starts(ctx, MGPU_I64, past, c0, 1, I64MAX);
    STARTS_BAD(r, 0, I32MAX + 2, "int32 start 2^31 + 1, limit INT64_MAX");
  }
  if (wide) {
    /* int64 starts: the limit itself */
    const int64_t e[] = {I64MAX}, c1[] = {1}, c0[] = {0}, c2[] = {2};
    starts_result r = starts64(ctx, MGPU_I64, e, c1, 1, I64MAX);
    STARTS_OK(r, I64MAX, "start INT64_MAX, count 1, limit INT64_MAX");
    CHECK(r.dst[0] == I64MAX - 1, "start INT64_MAX: dst %" PRId64, r.dst[0]);
    r = starts64(ctx, MGPU_I64, e, c0, 1, I64MAX);
    STARTS_OK(r, 0, "start INT64_MAX, count 0, limit INT64_MAX");
    r = starts64(ctx, MGPU_I64, e, c2, 1, I64MAX);
    STARTS_BAD(r, 0, I64MAX, "start INT64_MAX, count 2, limit INT64_MAX");
  } else {
    const int64_t e[] = {1}, c1[] = {1};
    starts_result r = starts64(ctx, MGPU_I64, e, c1, 1, I64MAX);
    CHECK(r.st == MGPU_EINVAL && strstr(mgpu_context_error(ctx), "dst must be i32"),
          "int64 starts on %s: status %d: %s", device, (int)r.st,
          mgpu_context_error(ctx));
  }
  if (wide) {
    /* limit INT64_MAX - 1: an end past INT64_MAX must not wrap into range */
    const int64_t s[] = {I64MAX - 1}, c3[] = {3}, c1[] = {1};
    starts_result r = starts64(ctx, MGPU_I64, s, c3, 1, I64MAX - 1);
    STARTS_BAD(r, 0, I64MAX - 1, "start INT64_MAX - 1, count 3");
    r = starts64(ctx, MGPU_I64, s, c1, 1, I64MAX - 1);
    STARTS_OK(r, I64MAX - 1, "start INT64_MAX - 1, count 1");
    const int64_t c[] = {0, I32MAX};
    const int64_t t[] = {1, I64MAX - 1};
    r = starts64(ctx, MGPU_I64, t, c, 2, I64MAX - 1);
    STARTS_BAD(r, 1, I64MAX - 1, "start INT64_MAX - 1, count INT32_MAX");
  }
  {
    /* u64 past INT64_MAX reads as INT64_MAX */
    const uint64_t s[] = {1, UINT64_MAX};
    const int64_t c[] = {1, 5};
    starts_result r = starts(ctx, MGPU_U64, s, c, 2, I64MAX);
    STARTS_BAD(r, 1, I64MAX, "u64 start past INT64_MAX");
  }
  {
    /* no array yet (limit < 0): ends up to MGPU_MAX_COUNT */
    const int64_t s[] = {I32MAX, I32MAX + 1, 1}, c[] = {1, 0, I32MAX - 1};
    starts_result r = starts(ctx, MGPU_I64, s, c, 3, -1);
    STARTS_OK(r, I32MAX, "limit -1, starts at INT32_MAX and 2^31");
    CHECK(r.dst[0] == INT32_MAX - 1 && r.dst[1] == INT32_MAX && r.dst[2] == 0,
          "limit -1: dst %d %d %d", (int)r.dst[0], (int)r.dst[1],
          (int)r.dst[2]);
    const int64_t t[] = {I32MAX + 1}, c1[] = {1};
    r = starts(ctx, MGPU_I64, t, c1, 1, -1);
    STARTS_BAD(r, 0, I32MAX + 1, "limit -1, start 2^31 count 1");
    r = starts(ctx, MGPU_I64, t, c1, 1, I64MIN);
    STARTS_BAD(r, 0, I32MAX + 1, "limit INT64_MIN, start 2^31 count 1");
  }
  {
    /* 32-bit starts at their extremes */
    const int32_t s[] = {INT32_MAX, INT32_MIN};
    const int64_t c[] = {1, 0};
    starts_result r = starts(ctx, MGPU_I32, s, c, 2, I32MAX);
    STARTS_BAD(r, 1, I32MIN, "i32 INT32_MIN start");
    r = starts(ctx, MGPU_I32, s, c, 1, I32MAX);
    STARTS_OK(r, I32MAX, "i32 INT32_MAX start");
    CHECK(r.dst[0] == INT32_MAX - 1, "i32 INT32_MAX start: dst %d",
          (int)r.dst[0]);
    /* past what int32 starts hold: refused, or int64 starts */
    const uint32_t u[] = {UINT32_MAX};
    r = starts(ctx, MGPU_U32, u, c + 1, 1, I64MAX);
    STARTS_BAD(r, 0, (int64_t)UINT32_MAX, "u32 UINT32_MAX start, int32");
    if (wide) {
      r = starts64(ctx, MGPU_U32, u, c + 1, 1, I64MAX);
      STARTS_OK(r, 0, "u32 UINT32_MAX start, int64");
      CHECK(r.dst[0] == (int64_t)UINT32_MAX - 1, "u32 UINT32_MAX: dst %" PRId64,
            r.dst[0]);
      /* no array: int64 starts up to the context's limit */
      const int64_t far[] = {I32MAX + 2}, c1[] = {1};
      r = starts64(ctx, MGPU_I64, far, c1, 1, -1);
      STARTS_OK(r, I32MAX + 2, "int64 start 2^31 + 1, no array");
    }
  }
  {
    const int64_t s[] = {I64MIN, 0}, c[] = {0, 0};
    starts_result r = starts(ctx, MGPU_I64, s, c, 2, I64MAX);
    STARTS_BAD(r, 0, I64MIN, "start INT64_MIN");
    r = starts(ctx, MGPU_I64, s + 1, c, 1, I64MAX);
    STARTS_BAD(r, 0, 0, "start 0");
  }
#ifdef __SIZEOF_INT128__
  {
    /* one interval at every pairing of edge values, against the rule */
    static const int64_t sv[] = {I64MIN, -1, 0, 1, 2, 5, 6, 7, I32MAX - 1,
                                 I32MAX, I32MAX + 1, I32MAX + 2,
                                 (int64_t)1 << 32, I64MAX - 3, I64MAX - 2,
                                 I64MAX - 1, I64MAX};
    static const int64_t cv[] = {0, 1, 2, 3, I32MAX - 1, I32MAX};
    static const int64_t lv[] = {I64MIN, -1, 0, 1, 5, 6, I32MAX - 1, I32MAX,
                                 I32MAX + 1, I64MAX - 3, I64MAX - 2,
                                 I64MAX - 1, I64MAX};
    const int64_t most = (int64_t)mgpu_context_max_count(ctx);
    for (int w = 0; w <= wide; w++) {
      int wrong = 0;
      for (size_t a = 0; a < N(sv); a++)
        for (size_t b = 0; b < N(cv); b++)
          for (size_t l = 0; l < N(lv); l++) {
            const int64_t s = sv[a], c = cv[b], lim = lv[l];
            starts_result r = w ? starts64(ctx, MGPU_I64, &s, &c, 1, lim)
                                : starts(ctx, MGPU_I64, &s, &c, 1, lim);
            const int ok = starts_rule(s, c, lim, w, most);
            const int64_t want_end = ok && c > 0 ? s - 1 + c : 0;
            int good = ok ? r.st == MGPU_OK && r.bad == -1 && r.max_end == want_end
                          : r.st == MGPU_EINVAL && r.bad == 0 && r.bad_value == s;
            if (good && ok) good = r.dst[0] == s - 1;
            if (!good && wrong++ < 10)
              CHECK(0,
                    "%s starts: start %" PRId64 " count %" PRId64
                    " limit %" PRId64 ": status %d bad %" PRId64
                    " max_end %" PRId64 ", want %s (max_end %" PRId64 ")",
                    w ? "int64" : "int32", s, c, lim, (int)r.st, r.bad,
                    r.max_end, ok ? "accepted" : "rejected", want_end);
          }
      CHECK(wrong == 0, "prepare_starts sweep (%s starts): %d of %zu wrong",
            w ? "int64" : "int32", wrong, N(sv) * N(cv) * N(lv));
    }
  }
#endif
}

/* ---- load_balance, interval_expand, interval_move ------------------------ */

static void test_load_balance(mgpu_context *ctx) {
  static const struct {
    int32_t base;
    int32_t want[5];
  } cases[] = {
      {1, {1, 1, 3, 3, 4}},
      {-5, {-5, -5, -3, -3, -2}},
      {INT32_MIN, {INT32_MIN, INT32_MIN, INT32_MIN + 2, INT32_MIN + 2,
                   INT32_MIN + 3}},
      {INT32_MAX - 2, {INT32_MAX - 2, INT32_MAX - 2, INT32_MAX, INT32_MAX,
                       INT32_MIN}},
      /* base + interval wraps in 32 bits */
      {INT32_MAX, {INT32_MAX, INT32_MAX, INT32_MIN + 1, INT32_MIN + 1,
                   INT32_MIN + 2}},
  };
  /* counts 2, 0, 2, 1: outputs of intervals 0 0 2 2 3 */
  const int32_t scan[] = {0, 2, 2, 4};
  for (size_t k = 0; k < N(cases); k++) {
    int32_t *sc = buffer(ctx, scan, sizeof scan);
    int32_t *out = buffer(ctx, NULL, 5 * 4);
    int32_t got[5] = {0};
    mgpu_status st = mgpu_load_balance(ctx, sc, 4, 5, cases[k].base, out);
    if (st == MGPU_OK) fetch(ctx, got, out, sizeof got);
    CHECK(st == MGPU_OK, "load_balance base %d: status %d",
          (int)cases[k].base, (int)st);
    for (int i = 0; st == MGPU_OK && i < 5; i++)
      CHECK(got[i] == cases[k].want[i],
            "load_balance base %d: out[%d] = %d, want %d", (int)cases[k].base,
            i, (int)got[i], (int)cases[k].want[i]);
    release_buffers(ctx);
  }
}

static void test_interval_ops(mgpu_context *ctx) {
  {
    const int64_t vals[] = {10, I64MIN, I64MAX};
    const int32_t scan[] = {0, 2, 2};
    const int64_t want[] = {10, 10, I64MAX};
    void *v = buffer(ctx, vals, sizeof vals);
    int32_t *sc = buffer(ctx, scan, sizeof scan);
    int64_t *out = buffer(ctx, NULL, sizeof want);
    int64_t got[3] = {0};
    mgpu_status st = mgpu_interval_expand(ctx, 8, v, sc, 3, 3, out);
    if (st == MGPU_OK) fetch(ctx, got, out, sizeof got);
    CHECK(st == MGPU_OK && !memcmp(got, want, sizeof want),
          "interval_expand: status %d", (int)st);
    release_buffers(ctx);
  }
  {
    /* interval_move copies the part of each interval inside both arrays:
     * gathers and scatters next to INT32_MAX and below 0 */
    const uint32_t input[] = {100, 101, 102, 103};
    const uint32_t fill = 7;
    static const struct {
      int32_t gather, scatter; /* one interval of 3 */
      uint32_t want[4];
    } cases[] = {
        {1, 0, {101, 102, 103, 7}},
        {-1, 0, {7, 100, 101, 7}},
        {2, 2, {7, 7, 102, 103}},
        {0, -2, {102, 7, 7, 7}},
        {INT32_MAX - 1, 0, {7, 7, 7, 7}},
        {0, INT32_MAX - 1, {7, 7, 7, 7}},
        {INT32_MAX, INT32_MAX, {7, 7, 7, 7}},
        {INT32_MIN, INT32_MIN, {7, 7, 7, 7}},
    };
    const int32_t scan[] = {0};
    for (size_t k = 0; k < N(cases); k++) {
      void *in = buffer(ctx, input, sizeof input);
      int32_t *g = buffer(ctx, &cases[k].gather, 4);
      int32_t *s = buffer(ctx, &cases[k].scatter, 4);
      int32_t *sc = buffer(ctx, scan, 4);
      void *out = buffer(ctx, NULL, sizeof input);
      uint32_t got[4];
      if (mgpu_fill(ctx, out, 4, MGPU_U32, &fill) != MGPU_OK)
        die(ctx, "mgpu_fill");
      mgpu_status st =
          mgpu_interval_move(ctx, 4, in, 4, g, s, sc, 1, 3, out, 4);
      fetch(ctx, got, out, sizeof got);
      CHECK(st == MGPU_OK && !memcmp(got, cases[k].want, sizeof got),
            "interval_move gather %d scatter %d: status %d, out %u %u %u %u",
            (int)cases[k].gather, (int)cases[k].scatter, (int)st, got[0],
            got[1], got[2], got[3]);
      release_buffers(ctx);
    }
  }
}

/* ---- a host's memory and stream (mgpu_context_create_with) ------------- */

/* Counts what mgpu takes from the host.  On cuda the blocks come from a
 * second context on the device, and free waits for the borrowing
 * context's stream first, as mgpu_allocator asks of a free that is not
 * stream-ordered. */
typedef struct {
  mgpu_context *source; /* where the blocks come from */
  mgpu_context *user;   /* the context that borrows them (set after create) */
  long allocs, frees, fail_after;
  size_t live;
} host_memory;

static void *host_alloc(size_t bytes, void *stream, void *ud) {
  host_memory *h = ud;
  (void)stream;
  if (h->fail_after >= 0 && h->allocs >= h->fail_after) return NULL;
  void *p = NULL;
  if (mgpu_alloc(h->source, bytes, &p) != MGPU_OK) return NULL;
  h->allocs++;
  h->live += bytes;
  return p;
}

static void host_free(void *p, size_t bytes, void *stream, void *ud) {
  host_memory *h = ud;
  (void)stream;
  if (h->user) mgpu_context_sync(h->user);
  mgpu_free(h->source, p, bytes);
  h->frees++;
  h->live -= bytes;
}

typedef mgpu_status (*sort_fn)(mgpu_context *, mgpu_dtype, mgpu_order, void *,
                               size_t, size_t, void *);

/* n keys 0..n-1 scrambled, sorted on ctx by sort (mgpu_mergesort or
 * mgpu_sort); whether they came back 0..n-1. */
static int sorts_right_by(mgpu_context *ctx, size_t n, sort_fn sort) {
  int32_t *host = malloc(n * sizeof *host);
  int ok = host != NULL;
  void *keys = NULL, *vals = NULL;
  if (ok) {
    for (size_t i = 0; i < n; i++) host[i] = (int32_t)((i * 7919) % n);
    ok = mgpu_alloc(ctx, n * 4, &keys) == MGPU_OK &&
         mgpu_alloc(ctx, n * 4, &vals) == MGPU_OK &&
         mgpu_upload(ctx, keys, host, n * 4) == MGPU_OK &&
         mgpu_upload(ctx, vals, host, n * 4) == MGPU_OK &&
         sort(ctx, MGPU_I32, MGPU_LESS, keys, n, 4, vals) == MGPU_OK &&
         mgpu_download(ctx, host, keys, n * 4) == MGPU_OK;
    for (size_t i = 0; ok && i < n; i++) ok = host[i] == (int32_t)i;
  }
  mgpu_free(ctx, keys, n * 4);
  mgpu_free(ctx, vals, n * 4);
  free(host);
  return ok;
}

static int sorts_right(mgpu_context *ctx, size_t n) {
  return sorts_right_by(ctx, n, mgpu_mergesort);
}

static void test_host_memory(const char *dev) {
  char err[256] = "";
  mgpu_context *source = NULL, *ctx = NULL;
  if (mgpu_context_create(dev, &source, err, sizeof err) != MGPU_OK) {
    CHECK(0, "no source context: %s", err);
    return;
  }
  host_memory h = {source, NULL, 0, 0, -1, 0};
  mgpu_allocator al = {host_alloc, host_free, &h};
  mgpu_context_options o = {dev, NULL, &al};
  CHECK(mgpu_context_create_with(&o, &ctx, err, sizeof err) == MGPU_OK,
        "create_with an allocator: %s", err);
  if (!ctx) {
    mgpu_context_release(source);
    return;
  }
  h.user = ctx;
  CHECK(sorts_right(ctx, 100000), "sort with the host's memory: %s",
        mgpu_context_error(ctx));
  CHECK(sorts_right_by(ctx, 100000, mgpu_sort),
        "radix sort with the host's memory: %s", mgpu_context_error(ctx));
  CHECK(h.allocs >= 2, "the arrays and scratch came from the host (%ld blocks)",
        h.allocs);
  CHECK(h.allocs == h.frees && h.live == 0,
        "every block went back: %ld taken, %ld returned, %zu bytes out",
        h.allocs, h.frees, h.live);
  /* an allocator that runs dry: ENOMEM, and the context still works */
  h.fail_after = h.allocs + 1;
  CHECK(!sorts_right(ctx, 1000), "a sort with too little memory failed");
  CHECK(strstr(mgpu_context_error(ctx), "host's allocator") != NULL,
        "the error names the allocator: %s", mgpu_context_error(ctx));
  /* the radix sort's own scratch blocks (after the keys and values: on cpu
   * the keys' and values' copies, on cuda also the histograms and
   * look-back words), each in turn the one that fails */
  const long scratch_blocks = strcmp(dev, "cpu") == 0 ? 2 : 3;
  for (long k = 2; k < 2 + scratch_blocks; k++) {
    h.fail_after = h.allocs + k;
    CHECK(!sorts_right_by(ctx, 1000, mgpu_sort),
          "a radix sort whose scratch block %ld fails failed", k - 1);
    CHECK(strstr(mgpu_context_error(ctx), "host's allocator") != NULL,
          "the radix sort's error names the allocator: %s",
          mgpu_context_error(ctx));
    CHECK(h.live == 0, "the failed radix sort gave its blocks back (%zu bytes out)",
          h.live);
  }
  h.fail_after = -1;
  CHECK(sorts_right(ctx, 1000), "the context works after: %s",
        mgpu_context_error(ctx));
  mgpu_context_release(ctx);
  CHECK(h.allocs == h.frees && h.live == 0,
        "every block went back by release: %ld taken, %ld returned", h.allocs,
        h.frees);

  /* what create_with refuses */
  mgpu_allocator half = {host_alloc, NULL, &h};
  mgpu_context_options bad = {dev, NULL, &half};
  ctx = NULL;
  CHECK(mgpu_context_create_with(&bad, &ctx, err, sizeof err) == MGPU_EINVAL &&
            !ctx && strstr(err, "alloc and free"),
        "alloc without free: %s", err);
  CHECK(mgpu_context_create_with(NULL, &ctx, err, sizeof err) == MGPU_EINVAL,
        "NULL options");
  if (strcmp(dev, "cpu") == 0) {
    int word;
    mgpu_context_options cpu_stream = {"cpu", &word, NULL};
    CHECK(mgpu_context_create_with(&cpu_stream, &ctx, err, sizeof err) ==
                  MGPU_EINVAL &&
              strstr(err, "no stream"),
          "a stream on cpu: %s", err);
  }
#ifdef MGPU_CTEST_CUDA
  else {
    /* the host's stream: used, waited for, and left alive */
    cudaStream_t stream = NULL;
    if (cudaStreamCreate(&stream) != cudaSuccess) {
      CHECK(0, "cudaStreamCreate");
    } else {
      mgpu_context_options own = {dev, stream, NULL};
      ctx = NULL;
      CHECK(mgpu_context_create_with(&own, &ctx, err, sizeof err) == MGPU_OK,
            "create_with the host's stream: %s", err);
      if (ctx) {
        CHECK(mgpu_context_stream(ctx) == (void *)stream,
              "the context queues on the host's stream");
        CHECK(sorts_right(ctx, 100000), "sort on the host's stream: %s",
              mgpu_context_error(ctx));
        mgpu_context_release(ctx);
      }
      CHECK(cudaStreamQuery(stream) == cudaSuccess,
            "the host's stream outlives the context");
      cudaStreamDestroy(stream);
    }
  }
#endif
  mgpu_context_release(source);
}

/* unique with counts of either index dtype, with values, over many tiles
 * (runs of 7, a run of 70,000 across tiles, runs of 3): the same runs on
 * every backend.  On cuda, i64 counts take the 64-bit instance of the
 * compaction at any count: its int64 run starts, its counts and its total
 * published as a 64-bit value. */
static void test_unique_counts(mgpu_context *ctx) {
  enum { UN = 100003 };
  static int32_t keys[UN], want_keys[UN], got_keys[UN];
  static uint32_t vals[UN], want_vals[UN], got_vals[UN];
  static int64_t want_counts[UN], got64[UN];
  static int32_t got32[UN];
  size_t runs = 0;
  for (size_t i = 0; i < UN; ++i) {
    keys[i] = i < 20000   ? (int32_t)(i / 7)
              : i < 90000 ? 20000
                          : 20001 + (int32_t)((i - 90000) / 3);
    vals[i] = (uint32_t)(3 * i + 1);
    if (i == 0 || keys[i] != keys[i - 1]) {
      want_keys[runs] = keys[i];
      want_vals[runs] = vals[i];
      want_counts[runs++] = 1;
    } else {
      want_counts[runs - 1]++;
    }
  }
  void *dk = buffer(ctx, keys, sizeof keys), *dv = buffer(ctx, vals, sizeof vals);
  void *ok = buffer(ctx, NULL, sizeof keys), *ov = buffer(ctx, NULL, sizeof vals);
  void *oc = buffer(ctx, NULL, sizeof got64);
  for (int wide = 0; wide < 2; ++wide) {
    const mgpu_dtype ct = wide ? MGPU_I64 : MGPU_I32;
    size_t count = 0;
    mgpu_status st = mgpu_unique_idx(ctx, MGPU_I32, dk, UN, 4, dv, ok, ov, ct,
                                     oc, &count);
    CHECK(st == MGPU_OK && count == runs,
          "unique_idx %s counts: status %d, %zu runs of %zu: %s",
          wide ? "i64" : "i32", (int)st, count, runs, mgpu_context_error(ctx));
    if (st != MGPU_OK || count != runs) continue;
    fetch(ctx, got_keys, ok, runs * sizeof(int32_t));
    fetch(ctx, got_vals, ov, runs * sizeof(uint32_t));
    if (wide) {
      fetch(ctx, got64, oc, runs * sizeof(int64_t));
    } else {
      fetch(ctx, got32, oc, runs * sizeof(int32_t));
      for (size_t j = 0; j < runs; ++j) got64[j] = got32[j];
    }
    size_t bad = runs;
    for (size_t j = 0; j < runs && bad == runs; ++j)
      if (got_keys[j] != want_keys[j] || got_vals[j] != want_vals[j] ||
          got64[j] != want_counts[j])
        bad = j;
    CHECK(bad == runs,
          "unique_idx %s counts: run %zu: key %d value %u count %" PRId64
          " (want %d %u %" PRId64 ")",
          wide ? "i64" : "i32", bad, bad < runs ? got_keys[bad] : 0,
          bad < runs ? got_vals[bad] : 0u, bad < runs ? got64[bad] : 0,
          bad < runs ? want_keys[bad] : 0, bad < runs ? want_vals[bad] : 0u,
          bad < runs ? want_counts[bad] : 0);
  }
  release_buffers(ctx);
}

/* ---- keyed reductions and joins: what the Lua binding never asks ------- */

/* The *_idx forms: i64 index arrays of sorted_search, segreduce and the
 * joins on every backend (on cuda the 64-bit instances at a small count),
 * and segsort's i64 heads on every backend; dtypes other than i32 and i64
 * refused everywhere. */
static void test_index_dtypes(mgpu_context *ctx) {
  const int32_t vals[] = {5, 1, 4, 2, 3, 9};
  const int64_t offs[] = {0, 2, 2, 5};
  const int32_t want[] = {6, 0, 9, 9};
  void *dv = buffer(ctx, vals, sizeof vals), *doff = buffer(ctx, offs, sizeof offs);
  int32_t *dst = buffer(ctx, NULL, sizeof want);
  mgpu_status st = mgpu_segreduce_idx(ctx, MGPU_I32, dv, N(vals), doff,
                                      MGPU_I64, N(offs), MGPU_REDUCE_ADD,
                                      NULL, dst);
  {
    int32_t got[4] = {0};
    fetch(ctx, got, dst, sizeof got);
    CHECK(st == MGPU_OK && memcmp(got, want, sizeof want) == 0,
          "segreduce_idx i64 offsets: status %d, %d %d %d %d", (int)st,
          got[0], got[1], got[2], got[3]);
  }
  {
    /* more values than one tile, segments across tiles, an empty one */
    enum { NV = 5000 };
    static int32_t many[NV];
    const int64_t cuts[] = {0, 1, 1, 2047, 4500};
    int64_t sums[5] = {0};
    for (int i = 0; i < NV; i++) many[i] = i % 7 - 3;
    for (int k = 0; k < 5; k++)
      for (int64_t i = cuts[k]; i < (k + 1 < 5 ? cuts[k + 1] : NV); i++)
        sums[k] += many[i];
    void *dm = buffer(ctx, many, sizeof many);
    void *dc = buffer(ctx, cuts, sizeof cuts);
    int32_t *dsum = buffer(ctx, NULL, 5 * sizeof(int32_t));
    st = mgpu_segreduce_idx(ctx, MGPU_I32, dm, NV, dc, MGPU_I64, 5,
                            MGPU_REDUCE_ADD, NULL, dsum);
    int32_t got[5] = {0};
    fetch(ctx, got, dsum, sizeof got);
    int same = st == MGPU_OK;
    for (int k = 0; k < 5; k++) same = same && got[k] == (int32_t)sums[k];
    CHECK(same, "segreduce_idx i64 offsets over tiles: status %d, %d %d %d "
          "%d %d", (int)st, got[0], got[1], got[2], got[3], got[4]);
  }
  st = mgpu_segreduce_idx(ctx, MGPU_I32, dv, N(vals), doff, MGPU_U32,
                          N(offs), MGPU_REDUCE_ADD, NULL, dst);
  CHECK(st == MGPU_EINVAL && strstr(mgpu_context_error(ctx),
                                    "offsets must be i32 or i64 (got u32)"),
        "segreduce_idx u32 offsets: status %d: %s", (int)st,
        mgpu_context_error(ctx));
  int32_t *keys = buffer(ctx, vals, sizeof vals);
  const int64_t heads[] = {3};
  void *dh = buffer(ctx, heads, sizeof heads);
  st = mgpu_segsort_idx(ctx, MGPU_I32, MGPU_LESS, keys, N(vals), 0, NULL, dh,
                        MGPU_I64, 1, NULL);
  {
    const int32_t sorted[] = {1, 4, 5, 2, 3, 9};
    int32_t got[6] = {0};
    fetch(ctx, got, keys, sizeof got);
    CHECK(st == MGPU_OK && memcmp(got, sorted, sizeof got) == 0,
          "segsort_idx i64 heads: status %d, %d %d %d", (int)st, got[0],
          got[1], got[2]);
  }
  int64_t *pos = buffer(ctx, NULL, 2 * sizeof(int64_t));
  st = mgpu_sorted_search_idx(ctx, MGPU_I32, MGPU_LESS, vals, 1, vals, 2, 0, 1,
                              MGPU_F32, pos);
  CHECK(st == MGPU_EINVAL && strstr(mgpu_context_error(ctx),
                                    "pos must be i32 or i64 (got f32)"),
        "sorted_search_idx f32 pos: status %d: %s", (int)st,
        mgpu_context_error(ctx));
  {
    /* i64 positions, lower and upper bounds, 1-based: a merge of tiles
     * (needles as many as the haystack) and a bisection (few needles) */
    enum { NH = 6000 };
    static int32_t hay[NH], needles[NH];
    static int64_t got[NH];
    for (int i = 0; i < NH; i++) hay[i] = i / 3, needles[i] = i / 2 - 5;
    void *dh2 = buffer(ctx, hay, sizeof hay);
    void *dn = buffer(ctx, needles, sizeof needles);
    int64_t *dp = buffer(ctx, NULL, sizeof got);
    for (int right = 0; right < 2; right++) {
      for (int few = 0; few < 2; few++) {
        const int n = few ? 3 : NH;
        st = mgpu_sorted_search_idx(ctx, MGPU_I32, MGPU_LESS, dn, (size_t)n,
                                    dh2, NH, right, 1, MGPU_I64, dp);
        fetch(ctx, got, dp, (size_t)n * sizeof(int64_t));
        int bad = st == MGPU_OK ? -1 : 0;
        for (int i = 0; i < n && bad < 0; i++) {
          /* hay[j] = j / 3: keys below x number 3x, not above 3(x + 1) */
          const int64_t x = needles[i];
          int64_t b = right ? 3 * (x + 1) : 3 * x;
          b = b < 0 ? 0 : (b > NH ? NH : b);
          if (got[i] != b + 1) bad = i;
        }
        CHECK(bad < 0, "sorted_search_idx i64 pos (right %d, %d needles): "
              "status %d, needle %d at %" PRId64, right, n, (int)st, bad,
              bad >= 0 ? got[bad] : 0);
      }
    }
  }
  {
    /* the joins' i64 rows: outer, base 1, the same rows as test_keyed's */
    const int32_t a[] = {1, 2, 2, 4}, b[] = {0, 2, 3};
    const int64_t wa[] = {0, 1, 2, 3, 0, 4}, wb[] = {1, 0, 2, 2, 3, 0};
    void *da = buffer(ctx, a, sizeof a), *db = buffer(ctx, b, sizeof b);
    int64_t *ia = buffer(ctx, NULL, 8 * sizeof(int64_t));
    int64_t *ib = buffer(ctx, NULL, 8 * sizeof(int64_t));
    size_t count = 0;
    st = mgpu_join_idx(ctx, MGPU_I32, MGPU_LESS, MGPU_JOIN_OUTER, da, N(a), db,
                       N(b), 1, MGPU_I64, ia, ib, 8, &count);
    int64_t ga[8] = {0}, gb[8] = {0};
    fetch(ctx, ga, ia, sizeof wa);
    fetch(ctx, gb, ib, sizeof wb);
    CHECK(st == MGPU_OK && count == N(wa) && memcmp(ga, wa, sizeof wa) == 0 &&
              memcmp(gb, wb, sizeof wb) == 0,
          "join_idx i64: status %d count %zu, (%" PRId64 ", %" PRId64 ") ...",
          (int)st, count, ga[0], gb[0]);
    void *ra = NULL, *rb = NULL;
    uint64_t rows = 0;
    st = mgpu_join_new_idx(ctx, MGPU_I32, MGPU_LESS, MGPU_JOIN_OUTER, da, N(a),
                           db, N(b), 1, MGPU_I64, &ra, &rb, &rows);
    CHECK(st == MGPU_OK && rows == N(wa) && ra && rb,
          "join_new_idx i64: status %d rows %llu", (int)st,
          (unsigned long long)rows);
    if (st == MGPU_OK) {
      fetch(ctx, ga, ra, sizeof wa);
      fetch(ctx, gb, rb, sizeof wb);
      CHECK(memcmp(ga, wa, sizeof wa) == 0 && memcmp(gb, wb, sizeof wb) == 0,
            "join_new_idx i64 rows: (%" PRId64 ", %" PRId64 ") ...", ga[0],
            gb[0]);
      mgpu_free(ctx, ra, rows * sizeof(int64_t));
      mgpu_free(ctx, rb, rows * sizeof(int64_t));
    }
  }
  release_buffers(ctx);
}

/* The bulk and interval *_idx forms and the index preparations into
 * int64: every backend reads and writes int64 index arrays there (cuda
 * through the 64-bit instances of its kernels, here at small counts). */
static void test_interval_idx(mgpu_context *ctx) {
  const int wide = mgpu_context_wide_index(ctx);
  const int64_t counts[] = {2, 0, 2, 1}, scan[] = {0, 2, 2, 4};
  const int64_t vals[] = {10, 20, 30, 40}, gather[] = {-1}, zero[] = {0};
  const uint32_t input[] = {100, 101, 102, 103, 104}, fill = 7;
  const int64_t remove[] = {1, 3}, insert[] = {0, 5};
  const uint32_t ins[] = {7, 8};
  void *dc = buffer(ctx, counts, sizeof counts);
  void *ds = buffer(ctx, scan, sizeof scan);
  void *dv = buffer(ctx, vals, sizeof vals);
  void *din = buffer(ctx, input, sizeof input);
  void *dg = buffer(ctx, gather, sizeof gather);
  void *di = buffer(ctx, remove, sizeof remove);
  void *dp = buffer(ctx, insert, sizeof insert);
  void *out = buffer(ctx, NULL, 8 * sizeof(int64_t));
  int64_t total = 0, bad = 0, bad_value = 0, got[8] = {0};
  uint32_t got32[8] = {0};
  mgpu_status st;
  CHECK(wide, "%s takes int64 index arrays in the bulk and interval calls",
        device);
  st = mgpu_scan_counts_idx(ctx, dc, MGPU_I64, 4, MGPU_I64, out, &total, &bad,
                            &bad_value);
  fetch(ctx, got, out, 4 * sizeof(int64_t));
  CHECK(st == MGPU_OK && total == 5 && memcmp(got, scan, sizeof scan) == 0,
        "scan_counts_idx i64: status %d total %" PRId64, (int)st, total);
  {
    /* a scan past INT32_MAX: i64 holds it, i32 refuses it */
    const int64_t c[] = {I32MAX, 5, 0};
    void *d = buffer(ctx, c, sizeof c);
    st = mgpu_scan_counts_idx(ctx, d, MGPU_I64, 3, MGPU_I64, out, &total, &bad,
                              &bad_value);
    fetch(ctx, got, out, 3 * sizeof(int64_t));
    CHECK(st == MGPU_OK && total == I32MAX + 5 && got[0] == 0 &&
              got[1] == I32MAX && got[2] == I32MAX + 5,
          "scan_counts_idx i64 past INT32_MAX: status %d total %" PRId64,
          (int)st, total);
    st = mgpu_scan_counts_idx(ctx, d, MGPU_I64, 3, MGPU_I32, out, &total, &bad,
                              &bad_value);
    CHECK(st == MGPU_ETOOBIG && total == I32MAX + 5,
          "scan_counts_idx i32 past INT32_MAX: status %d total %" PRId64,
          (int)st, total);
    /* the sum stops at 2^62, past every limit */
    const int64_t h[] = {I64MAX, I64MAX, 1};
    void *dh = buffer(ctx, h, sizeof h);
    st = mgpu_scan_counts_idx(ctx, dh, MGPU_I64, 3, MGPU_I64, out, &total,
                              &bad, &bad_value);
    CHECK(st == MGPU_ETOOBIG && total == (int64_t)1 << 62,
          "scan_counts_idx i64 of INT64_MAX counts: status %d total %" PRId64,
          (int)st, total);
  }
  /* base + interval in 64 bits: no wrap */
  st = mgpu_load_balance_idx(ctx, ds, MGPU_I64, 4, 5, INT32_MAX, MGPU_I64,
                             out);
  fetch(ctx, got, out, 5 * sizeof(int64_t));
  CHECK(st == MGPU_OK && got[0] == I32MAX && got[1] == I32MAX &&
            got[2] == I32MAX + 2 && got[3] == I32MAX + 2 &&
            got[4] == I32MAX + 3,
        "load_balance_idx i64 base INT32_MAX: status %d, %" PRId64 " %" PRId64
        " %" PRId64, (int)st, got[0], got[2], got[4]);
  /* an int32 out names at most 2^31 intervals: refused before any read */
  st = mgpu_load_balance_idx(ctx, ds, MGPU_I64, ((size_t)1 << 31) + 1, 1, 1,
                             MGPU_I32, out);
  CHECK(st == MGPU_ETOOBIG && strstr(mgpu_context_error(ctx), "must be i64"),
        "load_balance_idx i32 out of 2^31 + 1 intervals: status %d: %s",
        (int)st, mgpu_context_error(ctx));
  st = mgpu_interval_expand_idx(ctx, 8, dv, ds, MGPU_I64, 4, 5, out);
  fetch(ctx, got, out, 5 * sizeof(int64_t));
  CHECK(st == MGPU_OK && got[0] == 10 && got[1] == 10 && got[2] == 30 &&
            got[3] == 30 && got[4] == 40,
        "interval_expand_idx i64 scan: status %d", (int)st);
  /* gather -1: the part of the interval inside the input */
  if (mgpu_fill(ctx, out, 5, MGPU_U32, &fill) != MGPU_OK) die(ctx, "mgpu_fill");
  void *dz = buffer(ctx, zero, sizeof zero);
  st = mgpu_interval_move_idx(ctx, 4, din, 5, dg, MGPU_I64, dz, MGPU_I64, dz,
                              MGPU_I64, 1, 3, out, 5);
  fetch(ctx, got32, out, 5 * sizeof(uint32_t));
  CHECK(st == MGPU_OK && got32[0] == 7 && got32[1] == 100 &&
            got32[2] == 101 && got32[3] == 7,
        "interval_move_idx i64 gather -1: status %d, %u %u %u %u", (int)st,
        got32[0], got32[1], got32[2], got32[3]);
  {
    /* mixed dtypes: an i32 gather on an i64 scan, an i64 scatter on an
     * i32 scan */
    const int32_t one32[] = {1}, zero32[] = {0};
    const int64_t two64[] = {2};
    void *d1 = buffer(ctx, one32, sizeof one32);
    void *d0 = buffer(ctx, zero32, sizeof zero32);
    void *d2 = buffer(ctx, two64, sizeof two64);
    if (mgpu_fill(ctx, out, 5, MGPU_U32, &fill) != MGPU_OK) die(ctx, "mgpu_fill");
    st = mgpu_interval_move_idx(ctx, 4, din, 5, d1, MGPU_I32, d2, MGPU_I64,
                                dz, MGPU_I64, 1, 3, out, 5);
    fetch(ctx, got32, out, 5 * sizeof(uint32_t));
    CHECK(st == MGPU_OK && got32[0] == 7 && got32[1] == 7 &&
              got32[2] == 101 && got32[3] == 102 && got32[4] == 103,
          "interval_move_idx i32 gather, i64 scatter and scan: status %d, "
          "%u %u %u %u %u", (int)st, got32[0], got32[1], got32[2], got32[3],
          got32[4]);
    if (mgpu_fill(ctx, out, 5, MGPU_U32, &fill) != MGPU_OK) die(ctx, "mgpu_fill");
    st = mgpu_interval_move_idx(ctx, 4, din, 5, d2, MGPU_I64, d1, MGPU_I32,
                                d0, MGPU_I32, 1, 2, out, 5);
    fetch(ctx, got32, out, 5 * sizeof(uint32_t));
    CHECK(st == MGPU_OK && got32[0] == 7 && got32[1] == 102 &&
              got32[2] == 103 && got32[3] == 7,
          "interval_move_idx i64 gather, i32 scatter and scan: status %d, "
          "%u %u %u %u", (int)st, got32[0], got32[1], got32[2], got32[3]);
  }
  st = mgpu_bulk_remove_idx(ctx, 4, din, 5, di, MGPU_I64, 2, out);
  fetch(ctx, got32, out, 3 * sizeof(uint32_t));
  CHECK(st == MGPU_OK && got32[0] == 100 && got32[1] == 102 &&
            got32[2] == 104,
        "bulk_remove_idx i64: status %d, %u %u %u", (int)st, got32[0],
        got32[1], got32[2]);
  void *dins = buffer(ctx, ins, sizeof ins);
  st = mgpu_bulk_insert_idx(ctx, 4, din, 5, dp, MGPU_I64, dins, 2, out);
  fetch(ctx, got32, out, 7 * sizeof(uint32_t));
  CHECK(st == MGPU_OK && got32[0] == 7 && got32[1] == 100 &&
            got32[5] == 104 && got32[6] == 8,
        "bulk_insert_idx i64: status %d, %u %u .. %u %u", (int)st, got32[0],
        got32[1], got32[5], got32[6]);
  st = mgpu_bulk_insert_idx(ctx, 4, din, 5, dp, MGPU_U32, dins, 2, out);
  CHECK(st == MGPU_EINVAL && strstr(mgpu_context_error(ctx),
                                    "positions must be i32 or i64 (got u32)"),
        "bulk_insert_idx u32 positions: status %d: %s", (int)st,
        mgpu_context_error(ctx));
  release_buffers(ctx);
}

static void test_keyed(mgpu_context *ctx) {
  {
    /* base 0: a missing side is -1; the count first, then the rows */
    const int32_t a[] = {1, 2, 2, 4}, b[] = {0, 2, 3};
    const int32_t wa[] = {-1, 0, 1, 2, -1, 3}, wb[] = {0, -1, 1, 1, 2, -1};
    void *da = buffer(ctx, a, sizeof a), *db = buffer(ctx, b, sizeof b);
    int32_t *ia = buffer(ctx, NULL, 8 * sizeof(int32_t));
    int32_t *ib = buffer(ctx, NULL, 8 * sizeof(int32_t));
    uint64_t rows = 0;
    mgpu_status st = mgpu_join_count(ctx, MGPU_I32, MGPU_LESS, MGPU_JOIN_OUTER,
                                     da, N(a), db, N(b), &rows);
    CHECK(st == MGPU_OK && rows == N(wa), "join_count: status %d rows %llu",
          (int)st, (unsigned long long)rows);
    size_t count = 0;
    st = mgpu_join(ctx, MGPU_I32, MGPU_LESS, MGPU_JOIN_OUTER, da, N(a), db,
                   N(b), 0, ia, ib, 8, &count);
    CHECK(st == MGPU_OK && count == N(wa), "join: status %d count %zu", (int)st,
          count);
    int32_t ga[8], gb[8];
    fetch(ctx, ga, ia, sizeof wa);
    fetch(ctx, gb, ib, sizeof wb);
    for (size_t i = 0; i < N(wa); i++)
      CHECK(ga[i] == wa[i] && gb[i] == wb[i], "join row %zu: (%d, %d), want (%d, %d)",
            i, ga[i], gb[i], wa[i], wb[i]);
    /* too small a capacity: refused, and nothing past it written */
    st = mgpu_join(ctx, MGPU_I32, MGPU_LESS, MGPU_JOIN_OUTER, da, N(a), db,
                   N(b), 1, ia, ib, 3, &count);
    CHECK(st == MGPU_EINVAL && count == 0, "join capacity 3: status %d count %zu",
          (int)st, count);
    fetch(ctx, ga, ia, sizeof ga);
    for (size_t i = 3; i < N(wa); i++)
      CHECK(ga[i] == wa[i], "join capacity 3 wrote row %zu", i);
    st = mgpu_join(ctx, MGPU_I32, MGPU_LESS, MGPU_JOIN_INNER, da, N(a), db,
                   N(b), 2, ia, ib, 8, &count);
    CHECK(st == MGPU_EINVAL, "join base 2: status %d", (int)st);
    st = mgpu_join_count(ctx, MGPU_I32, MGPU_LESS, (mgpu_join_kind)7, da, N(a),
                         db, N(b), &rows);
    CHECK(st == MGPU_EINVAL, "join kind 7: status %d", (int)st);
    /* the one-pass join: the same rows, in buffers it took */
    int32_t *ra = NULL, *rb = NULL;
    st = mgpu_join_new(ctx, MGPU_I32, MGPU_LESS, MGPU_JOIN_OUTER, da, N(a), db,
                       N(b), 0, &ra, &rb, &rows);
    CHECK(st == MGPU_OK && rows == N(wa) && ra && rb,
          "join_new: status %d rows %llu", (int)st, (unsigned long long)rows);
    if (st == MGPU_OK) {
      fetch(ctx, ga, ra, sizeof wa);
      fetch(ctx, gb, rb, sizeof wb);
      for (size_t i = 0; i < N(wa); i++)
        CHECK(ga[i] == wa[i] && gb[i] == wb[i],
              "join_new row %zu: (%d, %d), want (%d, %d)", i, ga[i], gb[i],
              wa[i], wb[i]);
      mgpu_free(ctx, ra, rows * sizeof(int32_t));
      mgpu_free(ctx, rb, rows * sizeof(int32_t));
    }
    st = mgpu_join_new(ctx, MGPU_I32, MGPU_LESS, MGPU_JOIN_INNER, da, N(a), db,
                       N(b), 2, &ra, &rb, &rows);
    CHECK(st == MGPU_EINVAL && !ra && !rb, "join_new base 2: status %d",
          (int)st);
    release_buffers(ctx);
  }
  {
    /* the one-pass join with an empty side: all of the other side's rows
     * (right), or none, which still gives two buffers to free */
    const int32_t b[] = {3, 5};
    void *db = buffer(ctx, b, sizeof b);
    int32_t *ia = NULL, *ib = NULL, ga[2], gb[2];
    uint64_t rows = 7;
    mgpu_status st = mgpu_join_new(ctx, MGPU_I32, MGPU_LESS, MGPU_JOIN_RIGHT,
                                   NULL, 0, db, N(b), 1, &ia, &ib, &rows);
    CHECK(st == MGPU_OK && rows == 2, "join_new of none: status %d rows %llu",
          (int)st, (unsigned long long)rows);
    if (st == MGPU_OK) {
      fetch(ctx, ga, ia, sizeof ga);
      fetch(ctx, gb, ib, sizeof gb);
      CHECK(ga[0] == 0 && ga[1] == 0 && gb[0] == 1 && gb[1] == 2,
            "join_new of none: (%d, %d) (%d, %d)", ga[0], gb[0], ga[1], gb[1]);
      mgpu_free(ctx, ia, rows * sizeof(int32_t));
      mgpu_free(ctx, ib, rows * sizeof(int32_t));
    }
    st = mgpu_join_new(ctx, MGPU_I32, MGPU_LESS, MGPU_JOIN_INNER, db, N(b),
                       NULL, 0, 1, &ia, &ib, &rows);
    CHECK(st == MGPU_OK && rows == 0 && ia && ib,
          "join_new with no rows: status %d rows %llu", (int)st,
          (unsigned long long)rows);
    mgpu_free(ctx, ia, 0);
    mgpu_free(ctx, ib, 0);
    release_buffers(ctx);
  }
  {
    /* out of memory for the result, the first buffer or the second:
     * nothing is left taken */
    const size_t n = 100;
    int32_t *host = calloc(n, sizeof *host);
    if (!host) die(ctx, "calloc");
    void *d = buffer(ctx, host, n * sizeof *host);
    free(host);
    mgpu_context_info before;
    if (mgpu_context_info_get(ctx, &before) != MGPU_OK) die(ctx, "info");
    const size_t room[] = {1000, n * n * sizeof(int32_t) + 4000};
    for (size_t k = 0; k < N(room); k++) {
      mgpu_context_set_memory_limit(ctx, before.in_use + room[k]);
      int32_t *ia = NULL, *ib = NULL;
      uint64_t rows = 0;
      const mgpu_status st = mgpu_join_new(ctx, MGPU_I32, MGPU_LESS,
                                           MGPU_JOIN_INNER, d, n, d, n, 1,
                                           &ia, &ib, &rows);
      mgpu_context_info after;
      if (mgpu_context_info_get(ctx, &after) != MGPU_OK) die(ctx, "info");
      CHECK(st == MGPU_ENOMEM && !ia && !ib && after.in_use == before.in_use,
            "join_new with room for %zu: status %d, %zu bytes more in use",
            room[k], (int)st, after.in_use - before.in_use);
    }
    mgpu_context_set_memory_limit(ctx, 0);
    release_buffers(ctx);
  }
  {
    /* every key equal: the count passes MGPU_MAX_COUNT and says by how much */
    const size_t n = 50000;
    int32_t *host = calloc(n, sizeof *host);
    if (!host) die(ctx, "calloc");
    void *d = buffer(ctx, host, n * sizeof *host);
    free(host);
    uint64_t rows = 0;
    mgpu_status st = mgpu_join_count(ctx, MGPU_I32, MGPU_LESS, MGPU_JOIN_INNER,
                                     d, n, d, n, &rows);
    CHECK(st == MGPU_ETOOBIG && rows == (uint64_t)n * n,
          "join of 50000^2 rows: status %d rows %llu", (int)st,
          (unsigned long long)rows);
    int32_t *ia = NULL, *ib = NULL;
    rows = 0;
    st = mgpu_join_new(ctx, MGPU_I32, MGPU_LESS, MGPU_JOIN_INNER, d, n, d, n, 1,
                       &ia, &ib, &rows);
    CHECK(st == MGPU_ETOOBIG && rows == (uint64_t)n * n && !ia && !ib,
          "join_new of 50000^2 rows: status %d rows %llu", (int)st,
          (unsigned long long)rows);
    release_buffers(ctx);
  }
  {
    /* segreduce: the default identity (NULL) and out-of-range offsets read
     * as clamped; reduce_by_key of i32 keys with f64 values */
    const int64_t v[] = {5, -2, 7};
    const int32_t off[] = {0, 0, 2, 3};
    void *dv = buffer(ctx, v, sizeof v), *doff = buffer(ctx, off, sizeof off);
    int64_t *dst = buffer(ctx, NULL, 4 * sizeof(int64_t));
    mgpu_status st = mgpu_segreduce(ctx, MGPU_I64, dv, N(v), doff, N(off),
                                    MGPU_REDUCE_MIN, NULL, dst);
    int64_t got[4];
    fetch(ctx, got, dst, sizeof got);
    CHECK(st == MGPU_OK, "segreduce: status %d", (int)st);
    CHECK(got[0] == INT64_MAX && got[1] == -2 && got[2] == 7 && got[3] == INT64_MAX,
          "segreduce min: %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64, got[0],
          got[1], got[2], got[3]);
    const int32_t bad[] = {-5, 2, 99};
    void *dbad = buffer(ctx, bad, sizeof bad);
    st = mgpu_segreduce(ctx, MGPU_I64, dv, N(v), dbad, N(bad), MGPU_REDUCE_ADD,
                        NULL, dst);
    fetch(ctx, got, dst, 3 * sizeof(int64_t));
    CHECK(st == MGPU_OK && got[0] == 3 && got[1] == 7 && got[2] == 0,
          "segreduce, offsets clamped: %" PRId64 " %" PRId64 " %" PRId64, got[0],
          got[1], got[2]);
    release_buffers(ctx);
  }
  {
    const int32_t k[] = {4, 4, 1, 4};
    const double v[] = {0.5, 0.25, 8.0, 1.0};
    void *dk = buffer(ctx, k, sizeof k), *dv = buffer(ctx, v, sizeof v);
    int32_t *ok = buffer(ctx, NULL, sizeof k);
    double *ov = buffer(ctx, NULL, sizeof v);
    size_t runs = 0;
    mgpu_status st = mgpu_reduce_by_key(ctx, MGPU_I32, dk, N(k), MGPU_F64, dv,
                                        MGPU_REDUCE_ADD, ok, ov, &runs);
    int32_t gk[4];
    double gv[4];
    fetch(ctx, gk, ok, sizeof gk);
    fetch(ctx, gv, ov, sizeof gv);
    CHECK(st == MGPU_OK && runs == 3 && gk[0] == 4 && gk[1] == 1 && gk[2] == 4 &&
              gv[0] == 0.75 && gv[1] == 8.0 && gv[2] == 1.0,
          "reduce_by_key: status %d runs %zu", (int)st, runs);
    st = mgpu_reduce_by_key(ctx, MGPU_I32, dk, N(k), MGPU_F64, dv,
                            (mgpu_reduce_op)9, ok, ov, &runs);
    CHECK(st == MGPU_EINVAL && runs == 0, "reduce_by_key op 9: status %d", (int)st);
    release_buffers(ctx);
  }
}

/* ---- groups: the C host's view of a distributed sort --------------------- */

typedef mgpu_status (*group_sort_fn)(mgpu_group *, mgpu_dtype, mgpu_order,
                                     size_t, void *const *, void *const *,
                                     const size_t *, void **, void **,
                                     size_t *);

/* Sorts n int64 keys with many ties (values: their positions) across the
 * group's p contexts of dev with sort (mgpu_group_mergesort or
 * mgpu_group_sort) and checks the whole: sorted, stable, every shard near
 * n / p, nothing left allocated. */
static void group_sort_with(mgpu_context **ctxs, size_t p, size_t n,
                            group_sort_fn sort) {
  char err[256] = "";
  mgpu_group *g = NULL;
  CHECK(mgpu_group_create(ctxs, p, &g, err, sizeof err) == MGPU_OK,
        "group of %zu: %s", p, err);
  if (!g) return;
  void *keys[8], *vals[8], *ok_[8], *ov[8];
  size_t counts[8], oc[8], at = 0;
  for (size_t k = 0; k < p; k++) {
    counts[k] = n * (k + 1) / p - n * k / p;
    int64_t *hk = malloc((counts[k] + 1) * sizeof *hk);
    int32_t *hv = malloc((counts[k] + 1) * sizeof *hv);
    for (size_t i = 0; i < counts[k]; i++, at++) {
      hk[i] = (int64_t)((at * 7919) % 101) - 50;
      hv[i] = (int32_t)at;
    }
    keys[k] = vals[k] = NULL;
    mgpu_alloc(ctxs[k], counts[k] * 8, &keys[k]);
    mgpu_alloc(ctxs[k], counts[k] * 4, &vals[k]);
    mgpu_upload(ctxs[k], keys[k], hk, counts[k] * 8);
    mgpu_upload(ctxs[k], vals[k], hv, counts[k] * 4);
    free(hk);
    free(hv);
  }
  mgpu_status st =
      sort(g, MGPU_I64, MGPU_LESS, 4, keys, vals, counts, ok_, ov, oc);
  CHECK(st == MGPU_OK, "group sort of %zu on %zu: %s", n, p,
        mgpu_group_error(g));
  if (st == MGPU_OK) {
    int64_t prev_k = INT64_MIN;
    int32_t prev_v = -1;
    size_t total = 0, S = MGPU_GROUP_OVERSAMPLE * (p + 1);
    double bound = (double)(n + (n + p - 1) / p) / (double)S + 1;
    int in_order = 1;
    for (size_t k = 0; k < p; k++) {
      int64_t *hk = malloc((oc[k] + 1) * sizeof *hk);
      int32_t *hv = malloc((oc[k] + 1) * sizeof *hv);
      mgpu_download(ctxs[k], hk, ok_[k], oc[k] * 8);
      mgpu_download(ctxs[k], hv, ov[k], oc[k] * 4);
      for (size_t i = 0; i < oc[k]; i++) {
        if (hk[i] < prev_k || (hk[i] == prev_k && hv[i] <= prev_v) ||
            hk[i] != (int64_t)(((size_t)hv[i] * 7919) % 101) - 50)
          in_order = 0;
        prev_k = hk[i];
        prev_v = hv[i];
      }
      double off = (double)oc[k] - (double)n / (double)p;
      CHECK(off <= bound && -off <= bound,
            "shard %zu of %zu holds %zu of %zu (bound %.1f)", k, p, oc[k], n,
            bound);
      total += oc[k];
      free(hk);
      free(hv);
      mgpu_free(ctxs[k], ok_[k], oc[k] * 8);
      mgpu_free(ctxs[k], ov[k], oc[k] * 4);
    }
    CHECK(in_order && total == n, "sorted, stable, %zu of %zu kept", total, n);
  }
  /* out of memory on one shard: reported by shard, nothing kept (with
   * no elements nothing needs memory) */
  if (n > 0) {
    mgpu_context_set_memory_limit(ctxs[p - 1], 1);
    st = sort(g, MGPU_I64, MGPU_LESS, 4, keys, vals, counts, ok_, ov, oc);
    CHECK(st == MGPU_ENOMEM && strstr(mgpu_group_error(g), "shard") != NULL,
          "out of memory: %d %s", (int)st, mgpu_group_error(g));
    mgpu_context_set_memory_limit(ctxs[p - 1], 0);
  }
  /* room for the local sort (a copy of the shard) but not for the
   * received ranges and their merge scratch: the outputs taken on the
   * other contexts go back too (in_use is checked below) */
  mgpu_context_info info;
  if (n >= 1000 && p > 1 &&
      mgpu_context_info_get(ctxs[p - 1], &info) == MGPU_OK) {
    mgpu_context_set_memory_limit(ctxs[p - 1],
                                  info.in_use + 13 * counts[p - 1] + 4096);
    st = sort(g, MGPU_I64, MGPU_LESS, 4, keys, vals, counts, ok_, ov, oc);
    CHECK(st == MGPU_ENOMEM && strstr(mgpu_group_error(g), "shard") != NULL,
          "out of memory after the local sort: %d %s", (int)st,
          mgpu_group_error(g));
    mgpu_context_set_memory_limit(ctxs[p - 1], 0);
  }
  for (size_t k = 0; k < p; k++) {
    mgpu_free(ctxs[k], keys[k], counts[k] * 8);
    mgpu_free(ctxs[k], vals[k], counts[k] * 4);
    if (mgpu_context_info_get(ctxs[k], &info) == MGPU_OK)
      CHECK(info.in_use == 0, "group context %zu: %zu bytes left", k,
            info.in_use);
  }
  mgpu_group_release(g);
}

/* Both distributed sorts give that. */
static void group_sort_case(mgpu_context **ctxs, size_t p, size_t n) {
  group_sort_with(ctxs, p, n, mgpu_group_mergesort);
  group_sort_with(ctxs, p, n, mgpu_group_sort);
}

static void test_groups(mgpu_context *ctx, const char *dev) {
  char err[256] = "";
  mgpu_group *g = (mgpu_group *)&err;
  CHECK(mgpu_group_create(NULL, 0, &g, err, sizeof err) == MGPU_EINVAL && !g &&
            strstr(err, "at least one"),
        "an empty group: %s", err);
  mgpu_context *none[2] = {ctx, NULL};
  CHECK(mgpu_group_create(none, 2, &g, err, sizeof err) == MGPU_EINVAL,
        "a NULL context: %s", err);
  if (strcmp(dev, "cpu") == 0) {
    mgpu_context *ctxs[4];
    for (int k = 0; k < 4; k++) mgpu_context_create("cpu", &ctxs[k], NULL, 0);
    group_sort_case(ctxs, 1, 500);
    group_sort_case(ctxs, 3, 0);
    group_sort_case(ctxs, 3, 2);
    group_sort_case(ctxs, 3, 5000);
    group_sort_case(ctxs, 4, 20000);
    for (int k = 0; k < 4; k++) mgpu_context_release(ctxs[k]);
  } else {
    /* one device needs no NCCL; the same device twice is refused */
    group_sort_case(&ctx, 1, 5000);
    mgpu_context *twice[2] = {ctx, ctx};
    CHECK(mgpu_group_create(twice, 2, &g, err, sizeof err) == MGPU_EINVAL &&
              strstr(err, "distinct devices"),
          "one device twice: %s", err);
    mgpu_context *cpu = NULL;
    mgpu_context_create("cpu", &cpu, NULL, 0);
    mgpu_context *mixed[2] = {ctx, cpu};
    CHECK(mgpu_group_create(mixed, 2, &g, err, sizeof err) == MGPU_EINVAL &&
              strstr(err, "one backend"),
          "cuda and cpu: %s", err);
    mgpu_context_release(cpu);
  }
}

/* ---- the cpu backend past 2^31 elements ---------------------------------
 * The C API keeps MGPU_MAX_COUNT for the calls with int32 index arrays, so
 * their i64 forms are called on the backend's functions themselves; the
 * plain counts go through the C API, under the cpu's own limit.  The keys are 2^31 + 5 i32 (8 GiB) in an
 * anonymous mapping that is never backed: unwritten pages read as 0 from
 * the shared zero page, and only the last page is written, so the test
 * costs page tables and one pass of reads, not 8 GiB of memory. */

#define WIDE_N (((size_t)1 << 31) + 5)

static void *wide_map(size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

static void test_cpu_wide(mgpu_context *ctx) {
  const size_t n = WIDE_N, bytes = n * sizeof(int32_t);
  const int64_t big = (int64_t)1 << 31, last = (int64_t)n - 1;
  int32_t *keys = wide_map(bytes), *out = wide_map(bytes);
  if (!keys || !out) {
    /* a 32-bit host or a strict overcommit policy: nothing to test */
    printf("capi: no 8 GiB mapping, the cpu checks past 2^31 skipped\n");
    if (keys) munmap(keys, bytes);
    if (out) munmap(out, bytes);
    return;
  }
  /* 0 up to 2^31, then 5 5 5 5 7: sorted, three runs */
  for (size_t i = (size_t)1 << 31; i < n - 1; i++) keys[i] = 5;
  keys[n - 1] = 7;

  mgpu_status st;
  mgpu_reduce_args r = {MGPU_I32, MGPU_REDUCE_ADD, keys, n, NULL, 0, {0}};
  CHECK(mgpu_cpu_reduce(ctx, &r) == MGPU_OK && r.total.i == 27,
        "reduce of 2^31 + 5: %" PRId64 ", want 27", r.total.i);

  int64_t counts[4] = {0};
  mgpu_unique_args u = {MGPU_I32, 0, keys, NULL, n, out, NULL, NULL, 0,
                        MGPU_I64};
  mgpu_cpu_unique_into(&u, MGPU_I64, counts);
  CHECK(u.count == 3 && out[0] == 0 && out[1] == 5 && out[2] == 7 &&
            counts[0] == big && counts[1] == 4 && counts[2] == 1,
        "unique of 2^31 + 5: %zu runs, keys %d %d %d, counts %" PRId64
        " %" PRId64 " %" PRId64,
        u.count, out[0], out[1], out[2], counts[0], counts[1], counts[2]);

  const int32_t needles[5] = {0, 5, 6, 7, 8};
  /* 1-based lower and upper bounds */
  const int64_t lower[5] = {1, big + 1, last + 1, last + 1, last + 2};
  const int64_t upper[5] = {big + 1, last + 1, last + 1, last + 2, last + 2};
  for (int right = 0; right < 2; right++) {
    int64_t pos[5] = {0};
    mgpu_search_args s = {MGPU_I32, MGPU_LESS, needles, 5, keys, n,
                          right,    1,         NULL,    MGPU_I64};
    mgpu_cpu_search_into(&s, MGPU_I64, pos);
    const int64_t *want = right ? upper : lower;
    for (int i = 0; i < 5; i++)
      CHECK(pos[i] == want[i],
            "sorted_search right=%d in 2^31 + 5: pos[%d] = %" PRId64
            ", want %" PRId64, right, i, pos[i], want[i]);
  }

  /* a = {5, 7} joined with the keys: b indices past INT32_MAX */
  const int32_t ka[2] = {5, 7};
  for (int left = 0; left < 2; left++) {
    int64_t ia[8] = {0}, ib[8] = {0};
    mgpu_join_args j = {MGPU_I32, MGPU_LESS, left ? MGPU_JOIN_LEFT : MGPU_JOIN_INNER,
                        ka, 2, keys, n, 0, NULL, NULL, 8, NULL, 0, MGPU_I64};
    mgpu_cpu_join_into(&j, MGPU_I64, ia, ib);
    const int64_t want_a[5] = {0, 0, 0, 0, 1};
    const int64_t want_b[5] = {big, big + 1, big + 2, big + 3, last};
    int same = j.count == 5;
    for (int i = 0; same && i < 5; i++)
      same = ia[i] == want_a[i] && ib[i] == want_b[i];
    CHECK(same, "join (%s) with 2^31 + 5 keys: %" PRIu64 " rows, the last (%"
          PRId64 ", %" PRId64 ")", left ? "left" : "inner", j.count,
          j.count ? ia[(j.count < 8 ? j.count : 8) - 1] : -1,
          j.count ? ib[(j.count < 8 ? j.count : 8) - 1] : -1);
  }

  /* through the C API: plain counts past 2^31 pass the cpu's limit */
  CHECK(mgpu_context_max_count(ctx) == (size_t)1 << 53,
        "cpu max_count %zu, want 2^53", mgpu_context_max_count(ctx));
  mgpu_scalar total = {0};
  st = mgpu_reduce(ctx, MGPU_I32, keys, n, MGPU_REDUCE_ADD, &total);
  CHECK(st == MGPU_OK && total.i == 27,
        "mgpu_reduce of 2^31 + 5 elements: status %d, total %" PRId64
        ", want 27: %s", (int)st, total.i, mgpu_context_error(ctx));
  int sorted = 0;
  st = mgpu_is_sorted(ctx, keys, n, MGPU_I32, MGPU_LESS, &sorted);
  CHECK(st == MGPU_OK && sorted, "mgpu_is_sorted of 2^31 + 5: status %d, %d",
        (int)st, sorted);
  size_t runs = 0;
  st = mgpu_unique(ctx, MGPU_I32, keys, n, 0, NULL, out, NULL, NULL, &runs);
  CHECK(st == MGPU_OK && runs == 3 && out[0] == 0 && out[1] == 5 &&
            out[2] == 7,
        "mgpu_unique (no counts) of 2^31 + 5: status %d, %zu runs", (int)st,
        runs);
  /* the index dtype rule: i32 index outputs refuse values past INT32_MAX,
   * i64 ones take them */
  CHECK(mgpu_index_type((uint64_t)INT32_MAX) == MGPU_I32 &&
            mgpu_index_type((uint64_t)INT32_MAX + 1) == MGPU_I64,
        "mgpu_index_type at INT32_MAX: %d %d",
        (int)mgpu_index_type((uint64_t)INT32_MAX),
        (int)mgpu_index_type((uint64_t)INT32_MAX + 1));
  int64_t pos64[5] = {0};
  st = mgpu_sorted_search_idx(ctx, MGPU_I32, MGPU_LESS, needles, 5, keys, n,
                              0, 1, mgpu_index_type((uint64_t)n + 1), pos64);
  CHECK(st == MGPU_OK && memcmp(pos64, lower, sizeof lower) == 0,
        "mgpu_sorted_search_idx i64 in 2^31 + 5: status %d, pos[2] %" PRId64
        ": %s", (int)st, pos64[2], mgpu_context_error(ctx));
  int64_t counts64[4] = {0};
  st = mgpu_unique_idx(ctx, MGPU_I32, keys, n, 0, NULL, out, NULL, MGPU_I64,
                       counts64, &runs);
  CHECK(st == MGPU_OK && runs == 3 && counts64[0] == big &&
            counts64[1] == 4 && counts64[2] == 1,
        "mgpu_unique_idx i64 counts of 2^31 + 5: status %d, %zu runs",
        (int)st, runs);
  int64_t ia64[8] = {0}, ib64[8] = {0};
  st = mgpu_join_idx(ctx, MGPU_I32, MGPU_LESS, MGPU_JOIN_INNER, ka, 2, keys,
                     n, 1, MGPU_I64, ia64, ib64, 8, &runs);
  CHECK(st == MGPU_OK && runs == 5 && ia64[0] == 1 && ib64[0] == big + 1 &&
            ia64[4] == 2 && ib64[4] == last + 1,
        "mgpu_join_idx i64 with 2^31 + 5 keys: status %d, %zu rows: %s",
        (int)st, runs, mgpu_context_error(ctx));
  /* segments {..2^31 - 1}, {5 5 5 5}, {7}: offsets past INT32_MAX */
  const int64_t offs[3] = {0, big, last};
  int32_t sums[3] = {0};
  st = mgpu_segreduce_idx(ctx, MGPU_I32, keys, n, offs, MGPU_I64, 3,
                          MGPU_REDUCE_MAX, NULL, sums);
  CHECK(st == MGPU_OK && sums[0] == 0 && sums[1] == 5 && sums[2] == 7,
        "mgpu_segreduce_idx i64 offsets in 2^31 + 5: status %d, %d %d %d",
        (int)st, sums[0], sums[1], sums[2]);
  const int64_t heads1[2] = {big + 1, (int64_t)n};
  int64_t heads0[2] = {0}, bad = 0, bad_value = 0;
  st = mgpu_prepare_positions_idx(ctx, heads1, MGPU_I64, 2, 1, (int64_t)n, 1,
                                  MGPU_I64, heads0, &bad, &bad_value);
  CHECK(st == MGPU_OK && heads0[0] == big && heads0[1] == last,
        "mgpu_prepare_positions_idx past 2^31: status %d, %" PRId64 " %"
        PRId64, (int)st, heads0[0], heads0[1]);
  st = mgpu_prepare_positions_idx(ctx, heads1, MGPU_I64, 2, 1, (int64_t)n, 1,
                                  MGPU_I32, heads0, &bad, &bad_value);
  CHECK(st == MGPU_ETOOBIG, "mgpu_prepare_positions_idx i32 past 2^31: %d",
        (int)st);
  /* ... and the plain forms, i32, stay within 2^31 - 1 */
  int32_t pos[5], counts32[4];
  st = mgpu_sorted_search(ctx, MGPU_I32, MGPU_LESS, needles, 5, keys, n, 0, 0,
                          pos);
  CHECK(st == MGPU_ETOOBIG && strstr(mgpu_context_error(ctx), "32-bit index"),
        "mgpu_sorted_search in 2^31 + 5: status %d: %s", (int)st,
        mgpu_context_error(ctx));
  st = mgpu_unique(ctx, MGPU_I32, keys, n, 0, NULL, out, NULL, counts32,
                   &runs);
  CHECK(st == MGPU_ETOOBIG && strstr(mgpu_context_error(ctx), "32-bit index"),
        "mgpu_unique with counts of 2^31 + 5: status %d: %s", (int)st,
        mgpu_context_error(ctx));
  uint64_t rows = 0;
  st = mgpu_join_count(ctx, MGPU_I32, MGPU_LESS, MGPU_JOIN_INNER, ka, 2, keys,
                       n, &rows);
  CHECK(st == MGPU_OK && rows == 5,
        "mgpu_join_count with 2^31 + 5 keys: status %d, %" PRIu64 " rows: %s",
        (int)st, rows, mgpu_context_error(ctx));
  st = mgpu_join(ctx, MGPU_I32, MGPU_LESS, MGPU_JOIN_INNER, ka, 2, keys, n, 0,
                 counts32, pos, 4, &runs);
  CHECK(st == MGPU_ETOOBIG && strstr(mgpu_context_error(ctx), "32-bit index"),
        "mgpu_join (i32) with 2^31 + 5 keys: status %d: %s", (int)st,
        mgpu_context_error(ctx));
  st = mgpu_reduce(ctx, MGPU_I32, keys, ((size_t)1 << 53) + 1,
                   MGPU_REDUCE_ADD, &total);
  CHECK(st == MGPU_ETOOBIG, "mgpu_reduce of 2^53 + 1 elements: status %d",
        (int)st);
  munmap(keys, bytes);
  munmap(out, bytes);
}

static void run_on(const char *dev) {
  char err[256] = "";
  mgpu_context *ctx;
  device = dev;
  if (mgpu_context_create(dev, &ctx, err, sizeof err) != MGPU_OK) {
    fprintf(stderr, "capi_test: no context on %s: %s\n", dev, err);
    failed++;
    return;
  }
  test_positions(ctx);
  test_scan_counts(ctx);
  test_wrapped(ctx);
  test_starts(ctx);
  test_load_balance(ctx);
  test_interval_ops(ctx);
  test_keyed(ctx);
  test_index_dtypes(ctx);
  test_interval_idx(ctx);
  test_unique_counts(ctx);
  test_host_memory(dev);
  test_groups(ctx, dev);
  if (strcmp(dev, "cpu") == 0) test_cpu_wide(ctx);
  mgpu_context_info info;
  if (mgpu_context_info_get(ctx, &info) == MGPU_OK)
    CHECK(info.in_use == 0, "%zu bytes still in use", info.in_use);
  mgpu_context_release(ctx);
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--devices") == 0) {
    /* what the default run covers, one a line (for spec/capi_spec.lua) */
    printf("cpu\n");
    if (mgpu_cuda_device_count() > 0) printf("cuda\n");
    return 0;
  }
  if (argc > 1) {
    for (int i = 1; i < argc; i++) run_on(argv[i]);
  } else {
    run_on("cpu");
    if (mgpu_cuda_device_count() > 0) run_on("cuda");
  }
  printf("capi: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
