/*
 * lmgpu_array.c - the mgpu.array userdata: constructors, element access,
 * views, conversions and the one release shared by free/__gc/__close.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lmgpu.h"

/* ---- storage and lifetime ---------------------------------------------- */

static void storage_release(l_storage *st) {
  if (--st->refs == 0) {
    mgpu_free(st->ctx, st->ptr, st->bytes);
    mgpu_context_release(st->ctx);
    free(st);
  }
}

static void array_release(l_array *a) {
  l_storage *st = a->st;
  a->st = NULL; /* first, so that a second release is a no-op */
  if (st) storage_release(st);
}

void lmgpu_array_release(l_array *a) { array_release(a); }

typedef struct alloc_request {
  size_t bytes;
  void **out;
} alloc_request;

static mgpu_status alloc_op(mgpu_context *ctx, void *arg) {
  alloc_request *r = arg;
  return mgpu_alloc(ctx, r->bytes, r->out);
}

l_array *lmgpu_new_array(lua_State *L, int ctx_idx, size_t n, mgpu_dtype t,
                         const char *fn) {
  ctx_idx = lua_absindex(L, ctx_idx);
  l_context *c = lmgpu_test_context(L, ctx_idx);
  if (!c) luaL_error(L, "%s: the context has been closed", fn);
  if (n > MGPU_MAX_COUNT)
    luaL_error(L, "%s: %I elements is past the limit of %I per array", fn,
               (lua_Integer)n, (lua_Integer)MGPU_MAX_COUNT);
  /* The userdata exists, empty, before any memory is taken: a failure below
   * leaves only an empty object for the collector. */
  l_array *a = lua_newuserdatauv(L, sizeof *a, 1);
  a->st = NULL;
  a->offset = 0;
  a->n = 0;
  a->dtype = t;
  luaL_setmetatable(L, LMGPU_ARRAY);
  lua_pushvalue(L, ctx_idx);
  lua_setiuservalue(L, -2, 1);
  l_storage *st = malloc(sizeof *st);
  if (!st) luaL_error(L, "%s: out of host memory", fn);
  st->ctx = c->ctx;
  st->ptr = NULL;
  st->bytes = n * mgpu_dtype_size(t);
  st->refs = 1;
  alloc_request req = {st->bytes, &st->ptr};
  mgpu_status s = lmgpu_retry(L, c->ctx, alloc_op, &req);
  if (s != MGPU_OK) {
    free(st);
    lmgpu_check_status(L, c->ctx, s, fn);
  }
  mgpu_context_retain(c->ctx);
  a->st = st;
  a->n = n;
  return a;
}

l_array *lmgpu_check_array(lua_State *L, int idx, const char *fn,
                           const char *arg) {
  l_array *a = luaL_testudata(L, idx, LMGPU_ARRAY);
  if (!a)
    luaL_error(L, "%s: %s must be an mgpu.array (got %s)", fn, arg,
               luaL_typename(L, idx));
  if (!a->st) luaL_error(L, "%s: %s has been freed", fn, arg);
  return a;
}

int lmgpu_same_context(const l_array *a, const l_array *b) {
  return a->st->ctx == b->st->ctx;
}

int lmgpu_overlap(const l_array *a, const l_array *b) {
  if (a->st != b->st || a->n == 0 || b->n == 0) return 0;
  size_t a1 = a->offset + lmgpu_bytes(a), b1 = b->offset + lmgpu_bytes(b);
  return a->offset < b1 && b->offset < a1;
}

static mgpu_context *array_ctx(const l_array *a) { return a->st->ctx; }

/* Pushes the context object an array lives on. */
static void push_array_context(lua_State *L, int idx) {
  lua_getiuservalue(L, idx, 1);
}

/* ---- scalars and arguments ------------------------------------------------ */

mgpu_dtype lmgpu_check_dtype(lua_State *L, int idx, const char *fn) {
  mgpu_dtype t = MGPU_I32;
  if (lua_type(L, idx) != LUA_TSTRING)
    luaL_error(L, "%s: dtype must be a string such as \"i32\" (got %s)", fn,
               luaL_typename(L, idx));
  if (mgpu_dtype_parse(lua_tostring(L, idx), &t) != 0)
    luaL_error(L, "%s: unknown dtype '%s' (expected i32 u32 i64 u64 f32 f64)",
               fn, lua_tostring(L, idx));
  return t;
}

size_t lmgpu_check_count(lua_State *L, int idx, const char *fn,
                         const char *arg) {
  int ok = 0;
  lua_Integer n = lua_tointegerx(L, idx, &ok);
  if (!ok || n < 0) {
    if (lua_type(L, idx) == LUA_TNUMBER && lua_tonumber(L, idx) > 0)
      luaL_error(L, "%s: %s = %s is past the limit of %I elements", fn, arg,
                 luaL_tolstring(L, idx, NULL), (lua_Integer)MGPU_MAX_COUNT);
    luaL_error(L, "%s: %s must be a non-negative integer (got %s)", fn, arg,
               lua_type(L, idx) == LUA_TNUMBER ? luaL_tolstring(L, idx, NULL)
                                               : luaL_typename(L, idx));
  }
  if ((lua_Unsigned)n > MGPU_MAX_COUNT)
    luaL_error(L, "%s: %s = %I is past the limit of %I elements", fn, arg, n,
               (lua_Integer)MGPU_MAX_COUNT);
  return (size_t)n;
}

static const char *describe(lua_State *L, int idx) {
  return lua_type(L, idx) == LUA_TNUMBER ? luaL_tolstring(L, idx, NULL)
                                         : luaL_typename(L, idx);
}

static void bad_element(lua_State *L, int idx, mgpu_dtype t,
                           const char *fn, const char *what, lua_Integer pos,
                           const char *problem) {
  const char *got = describe(L, idx);
  if (pos > 0)
    luaL_error(L, "%s: %s %I %s %s (got %s)", fn, what, pos, problem,
               mgpu_dtype_name(t), got);
  luaL_error(L, "%s: %s %s %s (got %s)", fn, what, problem, mgpu_dtype_name(t),
             got);
}

void lmgpu_to_element(lua_State *L, int idx, mgpu_dtype t, void *out,
                      const char *fn, const char *what, lua_Integer pos) {
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) != LUA_TNUMBER)
    bad_element(L, idx, t, fn, what, pos, "must be a number for");
  if (mgpu_dtype_is_float(t)) {
    lua_Number d = lua_tonumber(L, idx);
    if (t == MGPU_F32) {
      float f = (float)d;
      memcpy(out, &f, sizeof f);
    } else {
      memcpy(out, &d, sizeof d);
    }
    return;
  }
  int ok = 0;
  lua_Integer v = lua_tointegerx(L, idx, &ok);
  if (!ok) {
    lua_Number d = lua_tonumber(L, idx);
    /* u64 values from 2^63 on have no Lua integer of their own value. */
    if (t == MGPU_U64 && d >= 9223372036854775808.0 &&
        d < 18446744073709551616.0 && d == floor(d)) {
      uint64_t u = (uint64_t)d;
      memcpy(out, &u, sizeof u);
      return;
    }
    bad_element(L, idx, t, fn, what, pos, "does not fit");
  }
  switch (t) {
  case MGPU_I32: {
    if (v < INT32_MIN || v > INT32_MAX)
      bad_element(L, idx, t, fn, what, pos, "does not fit");
    int32_t x = (int32_t)v;
    memcpy(out, &x, sizeof x);
    break;
  }
  case MGPU_U32: {
    if (v < 0 || v > (lua_Integer)UINT32_MAX)
      bad_element(L, idx, t, fn, what, pos, "does not fit");
    uint32_t x = (uint32_t)v;
    memcpy(out, &x, sizeof x);
    break;
  }
  default: /* i64, and u64 as its 64 bits */
    memcpy(out, &v, sizeof v);
    break;
  }
}

void lmgpu_push_element(lua_State *L, mgpu_dtype t, const void *p) {
  switch (t) {
  case MGPU_I32: { int32_t x; memcpy(&x, p, 4); lua_pushinteger(L, x); break; }
  case MGPU_U32: { uint32_t x; memcpy(&x, p, 4); lua_pushinteger(L, x); break; }
  case MGPU_I64:
  case MGPU_U64: { int64_t x; memcpy(&x, p, 8); lua_pushinteger(L, (lua_Integer)x); break; }
  case MGPU_F32: { float x; memcpy(&x, p, 4); lua_pushnumber(L, x); break; }
  case MGPU_F64: { double x; memcpy(&x, p, 8); lua_pushnumber(L, x); break; }
  default: lua_pushnil(L); break;
  }
}

/* The dtype a Lua number asks for when none is given. */
static mgpu_dtype infer_dtype(lua_State *L, int idx) {
  if (!lua_isinteger(L, idx)) return MGPU_F64;
  lua_Integer v = lua_tointeger(L, idx);
  return v >= INT32_MIN && v <= INT32_MAX ? MGPU_I32 : MGPU_I64;
}

/* Resolves a 1-based inclusive range [i, j] of an n-element array, with
 * negatives counting from the end; returns 0-based start and count. */
static lua_Integer opt_index(lua_State *L, int idx, lua_Integer dflt,
                             const char *fn, const char *what) {
  if (lua_isnoneornil(L, idx)) return dflt;
  int ok = 0;
  lua_Integer v = lua_tointegerx(L, idx, &ok);
  if (!ok)
    luaL_error(L, "%s: %s must be an integer (got %s)", fn, what,
               describe(L, idx));
  return v;
}

static void check_range(lua_State *L, size_t n, int i_idx, int j_idx,
                        const char *fn, size_t *start, size_t *count) {
  lua_Integer i = opt_index(L, i_idx, 1, fn, "i");
  lua_Integer j = opt_index(L, j_idx, -1, fn, "j");
  lua_Integer N = (lua_Integer)n;
  if (i < 0) i += N + 1;
  if (j < 0) j += N + 1;
  if (i < 1 || j > N || i > j + 1)
    luaL_error(L, "%s: range %I..%I is outside 1..%I", fn, i, j, N);
  *start = (size_t)(i - 1);
  *count = (size_t)(j - i + 1);
}

/* Arguments of a constructor: the context is argument 1 when called as a
 * method (ctx:iota(n)), else the default context, pushed on top. */
typedef struct ctor_args {
  int ctx; /* stack index of the context object */
  int base; /* first argument after the context */
  int top; /* last argument */
} ctor_args;

static ctor_args ctor_begin(lua_State *L) {
  ctor_args c;
  c.top = lua_gettop(L);
  if (lmgpu_test_context(L, 1)) {
    c.ctx = 1;
    c.base = 2;
  } else {
    lmgpu_push_default_context(L);
    c.ctx = lua_gettop(L);
    c.base = 1;
  }
  return c;
}

static int has_arg(lua_State *L, const ctor_args *c, int i) {
  return i <= c->top && !lua_isnil(L, i);
}

static void check_upload(lua_State *L, l_array *a, const void *src,
                         const char *fn) {
  mgpu_context *ctx = array_ctx(a);
  lmgpu_check_status(L, ctx, mgpu_upload(ctx, lmgpu_data(a), src, lmgpu_bytes(a)),
                     fn);
}

/* ---- constructors ------------------------------------------------------------ */

/* mgpu.array(t [, dtype]) */
static int ctor_array(lua_State *L) {
  const char *fn = "mgpu.array";
  ctor_args c = ctor_begin(L);
  if (!lua_istable(L, c.base))
    luaL_error(L, "%s: expected a table of numbers (got %s)", fn,
               luaL_typename(L, c.base));
  size_t n = lua_rawlen(L, c.base);
  if (n > MGPU_MAX_COUNT)
    luaL_error(L, "%s: %I elements is past the limit of %I", fn,
               (lua_Integer)n, (lua_Integer)MGPU_MAX_COUNT);
  mgpu_dtype t;
  if (has_arg(L, &c, c.base + 1)) {
    t = lmgpu_check_dtype(L, c.base + 1, fn);
  } else {
    int any_float = 0, all_i32 = 1;
    for (size_t i = 1; i <= n; i++) {
      int ty = lua_rawgeti(L, c.base, (lua_Integer)i);
      if (ty != LUA_TNUMBER)
        luaL_error(L, "%s: element %I must be a number (got %s)", fn,
                   (lua_Integer)i, luaL_typename(L, -1));
      if (lua_isinteger(L, -1)) {
        if (infer_dtype(L, -1) != MGPU_I32) all_i32 = 0;
      } else {
        any_float = 1;
      }
      lua_pop(L, 1);
    }
    t = any_float ? MGPU_F64 : all_i32 ? MGPU_I32 : MGPU_I64;
  }
  size_t w = mgpu_dtype_size(t);
  /* Staging lives in a userdata so that an error mid-way leaks nothing. */
  char *host = lua_newuserdatauv(L, n * w, 0);
  for (size_t i = 0; i < n; i++) {
    lua_rawgeti(L, c.base, (lua_Integer)(i + 1));
    lmgpu_to_element(L, -1, t, host + i * w, fn, "element", (lua_Integer)(i + 1));
    lua_pop(L, 1);
  }
  l_array *a = lmgpu_new_array(L, c.ctx, n, t, fn);
  check_upload(L, a, host, fn);
  return 1;
}

static mgpu_dtype opt_dtype(lua_State *L, const ctor_args *c, int idx,
                            const char *fn) {
  return has_arg(L, c, idx) ? lmgpu_check_dtype(L, idx, fn) : MGPU_I32;
}

/* mgpu.empty(n [, dtype]) */
static int ctor_empty(lua_State *L) {
  ctor_args c = ctor_begin(L);
  size_t n = lmgpu_check_count(L, c.base, "mgpu.empty", "n");
  lmgpu_new_array(L, c.ctx, n, opt_dtype(L, &c, c.base + 1, "mgpu.empty"),
                  "mgpu.empty");
  return 1;
}

static void fill_array(lua_State *L, l_array *a, const void *value,
                       const char *fn) {
  mgpu_context *ctx = array_ctx(a);
  lmgpu_check_status(L, ctx, mgpu_fill(ctx, lmgpu_data(a), a->n, a->dtype, value),
                     fn);
}

/* mgpu.zeros(n [, dtype]) */
static int ctor_zeros(lua_State *L) {
  ctor_args c = ctor_begin(L);
  size_t n = lmgpu_check_count(L, c.base, "mgpu.zeros", "n");
  l_array *a = lmgpu_new_array(L, c.ctx, n,
                               opt_dtype(L, &c, c.base + 1, "mgpu.zeros"),
                               "mgpu.zeros");
  uint64_t zero = 0;
  fill_array(L, a, &zero, "mgpu.zeros");
  return 1;
}

/* mgpu.fill(n, v [, dtype]) */
static int ctor_fill(lua_State *L) {
  const char *fn = "mgpu.fill";
  ctor_args c = ctor_begin(L);
  size_t n = lmgpu_check_count(L, c.base, fn, "n");
  if (lua_type(L, c.base + 1) != LUA_TNUMBER)
    luaL_error(L, "%s: v must be a number (got %s)", fn,
               luaL_typename(L, c.base + 1));
  mgpu_dtype t = has_arg(L, &c, c.base + 2) ? lmgpu_check_dtype(L, c.base + 2, fn)
                                            : infer_dtype(L, c.base + 1);
  uint64_t v = 0;
  lmgpu_to_element(L, c.base + 1, t, &v, fn, "v", 0);
  l_array *a = lmgpu_new_array(L, c.ctx, n, t, fn);
  fill_array(L, a, &v, fn);
  return 1;
}

/* A start/step/lo/hi argument in dtype t's arithmetic. */
static mgpu_scalar to_scalar(lua_State *L, int idx, mgpu_dtype t,
                             const char *fn, const char *what) {
  mgpu_scalar s;
  if (mgpu_dtype_is_float(t)) {
    if (lua_type(L, idx) != LUA_TNUMBER)
      luaL_error(L, "%s: %s must be a number (got %s)", fn, what,
                 luaL_typename(L, idx));
    s.f = lua_tonumber(L, idx);
    return s;
  }
  union { int32_t i32; uint32_t u32; int64_t i64; } e;
  e.i64 = 0;
  lmgpu_to_element(L, idx, t, &e, fn, what, 0);
  s.i = t == MGPU_I32 ? e.i32 : t == MGPU_U32 ? (int64_t)e.u32 : e.i64;
  return s;
}

/* mgpu.iota(n [, start=1 [, step=1]] [, dtype]) */
static int ctor_iota(lua_State *L) {
  const char *fn = "mgpu.iota";
  ctor_args c = ctor_begin(L);
  size_t n = lmgpu_check_count(L, c.base, fn, "n");
  int i = c.base + 1, start_idx = 0, step_idx = 0, dtype_idx = 0;
  if (i <= c.top && lua_type(L, i) == LUA_TNUMBER) start_idx = i++;
  if (i <= c.top && lua_type(L, i) == LUA_TNUMBER) step_idx = i++;
  if (i <= c.top && !lua_isnil(L, i)) dtype_idx = i++;
  if (i <= c.top && !lua_isnil(L, i))
    luaL_error(L, "%s: unexpected argument #%d (%s); expected (n [, start "
                  "[, step]] [, dtype])", fn, i - c.base + 1, luaL_typename(L, i));
  if (!start_idx) { lua_pushinteger(L, 1); start_idx = lua_gettop(L); }
  if (!step_idx) { lua_pushinteger(L, 1); step_idx = lua_gettop(L); }
  mgpu_dtype t;
  if (dtype_idx) {
    t = lmgpu_check_dtype(L, dtype_idx, fn);
  } else if (lua_isinteger(L, start_idx) && lua_isinteger(L, step_idx)) {
    double first = (double)lua_tointeger(L, start_idx);
    double last = first + (double)(n ? n - 1 : 0) * (double)lua_tointeger(L, step_idx);
    int fits = first >= INT32_MIN && first <= INT32_MAX && last >= INT32_MIN &&
               last <= INT32_MAX;
    t = fits ? MGPU_I32 : MGPU_I64;
  } else {
    t = MGPU_F64;
  }
  mgpu_scalar start = to_scalar(L, start_idx, t, fn, "start");
  mgpu_scalar step;
  if (mgpu_dtype_is_float(t)) {
    step = to_scalar(L, step_idx, t, fn, "step");
  } else {
    /* a step may be negative in any integer dtype: it wraps like the values */
    int ok = 0;
    step.i = lua_tointegerx(L, step_idx, &ok);
    if (!ok)
      luaL_error(L, "%s: step must be an integer for dtype %s (got %s)", fn,
                 mgpu_dtype_name(t), describe(L, step_idx));
  }
  l_array *a = lmgpu_new_array(L, c.ctx, n, t, fn);
  mgpu_context *ctx = array_ctx(a);
  lmgpu_check_status(L, ctx, mgpu_iota(ctx, lmgpu_data(a), n, t, start, step), fn);
  return 1;
}

static uint64_t next_seed(void) {
  static uint64_t counter;
  if (!counter) counter = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ULL + (uint64_t)clock();
  return ++counter * 0xd1342543de82ef95ULL;
}

static int scalar_le(mgpu_scalar a, mgpu_scalar b, mgpu_dtype t) {
  if (mgpu_dtype_is_float(t)) return a.f <= b.f;
  if (mgpu_dtype_is_signed(t)) return a.i <= b.i;
  return (uint64_t)a.i <= (uint64_t)b.i;
}

/* The shared body of random and sorted_random. */
static l_array *make_random(lua_State *L, const char *fn) {
  ctor_args c = ctor_begin(L);
  size_t n = lmgpu_check_count(L, c.base, fn, "n");
  int lo_idx = c.base + 1, hi_idx = c.base + 2;
  for (int k = lo_idx; k <= hi_idx; k++)
    if (lua_type(L, k) != LUA_TNUMBER)
      luaL_error(L, "%s: %s must be a number (got %s)", fn,
                 k == lo_idx ? "lo" : "hi", luaL_typename(L, k));
  mgpu_dtype t;
  if (has_arg(L, &c, c.base + 3)) {
    t = lmgpu_check_dtype(L, c.base + 3, fn);
  } else if (lua_isinteger(L, lo_idx) && lua_isinteger(L, hi_idx)) {
    t = infer_dtype(L, lo_idx) == MGPU_I32 && infer_dtype(L, hi_idx) == MGPU_I32
            ? MGPU_I32 : MGPU_I64;
  } else {
    t = MGPU_F64;
  }
  mgpu_scalar lo = to_scalar(L, lo_idx, t, fn, "lo");
  mgpu_scalar hi = to_scalar(L, hi_idx, t, fn, "hi");
  if (mgpu_dtype_is_float(t) && !(isfinite(lo.f) && isfinite(hi.f)))
    luaL_error(L, "%s: lo and hi must be finite", fn);
  if (!scalar_le(lo, hi, t))
    luaL_error(L, "%s: lo must not exceed hi (got %s > %s)", fn,
               describe(L, lo_idx), describe(L, hi_idx));
  uint64_t seed;
  if (has_arg(L, &c, c.base + 4)) {
    int ok = 0;
    seed = (uint64_t)lua_tointegerx(L, c.base + 4, &ok);
    if (!ok) luaL_error(L, "%s: seed must be an integer (got %s)", fn,
                        describe(L, c.base + 4));
  } else {
    seed = next_seed();
  }
  l_array *a = lmgpu_new_array(L, c.ctx, n, t, fn);
  mgpu_context *ctx = array_ctx(a);
  lmgpu_check_status(L, ctx, mgpu_random(ctx, lmgpu_data(a), n, t, lo, hi, seed),
                     fn);
  return a;
}

/* mgpu.random(n, lo, hi [, dtype [, seed]]) */
static int ctor_random(lua_State *L) {
  make_random(L, "mgpu.random");
  return 1;
}

typedef struct sort_request {
  l_array *a;
} sort_request;

static mgpu_status sort_keys_op(mgpu_context *ctx, void *arg) {
  l_array *a = ((sort_request *)arg)->a;
  return mgpu_mergesort(ctx, a->dtype, MGPU_LESS, lmgpu_data(a), a->n, 0, NULL);
}

/* mgpu.sorted_random(n, lo, hi [, dtype [, seed]]) */
static int ctor_sorted_random(lua_State *L) {
  const char *fn = "mgpu.sorted_random";
  l_array *a = make_random(L, fn);
  sort_request req = {a};
  lmgpu_check_status(L, array_ctx(a), lmgpu_retry(L, array_ctx(a), sort_keys_op, &req),
                     fn);
  return 1;
}

/* mgpu.frombytes(s, dtype) */
static int ctor_frombytes(lua_State *L) {
  const char *fn = "mgpu.frombytes";
  ctor_args c = ctor_begin(L);
  if (lua_type(L, c.base) != LUA_TSTRING)
    luaL_error(L, "%s: s must be a string (got %s)", fn, luaL_typename(L, c.base));
  size_t len;
  const char *s = lua_tolstring(L, c.base, &len);
  if (!has_arg(L, &c, c.base + 1))
    luaL_error(L, "%s: dtype is required", fn);
  mgpu_dtype t = lmgpu_check_dtype(L, c.base + 1, fn);
  size_t w = mgpu_dtype_size(t);
  if (len % w)
    luaL_error(L, "%s: %I bytes is not a whole number of %s elements", fn,
               (lua_Integer)len, mgpu_dtype_name(t));
  l_array *a = lmgpu_new_array(L, c.ctx, len / w, t, fn);
  check_upload(L, a, s, fn);
  return 1;
}

const luaL_Reg lmgpu_constructors[] = {
  {"array", ctor_array},
  {"empty", ctor_empty},
  {"zeros", ctor_zeros},
  {"fill", ctor_fill},
  {"iota", ctor_iota},
  {"random", ctor_random},
  {"sorted_random", ctor_sorted_random},
  {"frombytes", ctor_frombytes},
  {NULL, NULL},
};

/* ---- methods ------------------------------------------------------------------- */

static l_array *check_self(lua_State *L, const char *fn) {
  return lmgpu_check_array(L, 1, fn, "array");
}

/* a:totable([i [, j]]) */
static int m_totable(lua_State *L) {
  const char *fn = "mgpu.array:totable";
  l_array *a = check_self(L, fn);
  size_t start, count, w = mgpu_dtype_size(a->dtype);
  check_range(L, a->n, 2, 3, fn, &start, &count);
  char *host = lua_newuserdatauv(L, count * w, 0);
  mgpu_context *ctx = array_ctx(a);
  lmgpu_check_status(L, ctx,
                     mgpu_download(ctx, host, (char *)lmgpu_data(a) + start * w,
                                   count * w),
                     fn);
  lua_createtable(L, (int)(count < 0x7fffffff ? count : 0), 0);
  for (size_t i = 0; i < count; i++) {
    lmgpu_push_element(L, a->dtype, host + i * w);
    lua_rawseti(L, -2, (lua_Integer)(i + 1));
  }
  return 1;
}

/* a:tobytes() */
static int m_tobytes(lua_State *L) {
  const char *fn = "mgpu.array:tobytes";
  l_array *a = check_self(L, fn);
  size_t bytes = lmgpu_bytes(a);
  luaL_Buffer b;
  char *p = luaL_buffinitsize(L, &b, bytes);
  mgpu_context *ctx = array_ctx(a);
  lmgpu_check_status(L, ctx, mgpu_download(ctx, p, lmgpu_data(a), bytes), fn);
  luaL_pushresultsize(&b, bytes);
  return 1;
}

/* a:copy() */
static int m_copy(lua_State *L) {
  const char *fn = "mgpu.array:copy";
  l_array *a = check_self(L, fn);
  push_array_context(L, 1);
  l_array *b = lmgpu_new_array(L, -1, a->n, a->dtype, fn);
  mgpu_context *ctx = array_ctx(a);
  lmgpu_check_status(L, ctx, mgpu_copy(ctx, lmgpu_data(b), lmgpu_data(a), lmgpu_bytes(a)),
                     fn);
  return 1;
}

/* a:slice(i [, j]) -> a view sharing a's memory */
static int m_slice(lua_State *L) {
  const char *fn = "mgpu.array:slice";
  l_array *a = check_self(L, fn);
  size_t start, count;
  if (lua_isnoneornil(L, 2)) luaL_error(L, "%s: i is required", fn);
  check_range(L, a->n, 2, 3, fn, &start, &count);
  l_array *v = lua_newuserdatauv(L, sizeof *v, 1);
  v->st = a->st;
  v->st->refs++;
  v->offset = a->offset + start * mgpu_dtype_size(a->dtype);
  v->n = count;
  v->dtype = a->dtype;
  luaL_setmetatable(L, LMGPU_ARRAY);
  push_array_context(L, 1);
  lua_setiuservalue(L, -2, 1);
  return 1;
}

/* a:fill(v) */
static int m_fill(lua_State *L) {
  const char *fn = "mgpu.array:fill";
  l_array *a = check_self(L, fn);
  uint64_t v = 0;
  lmgpu_to_element(L, 2, a->dtype, &v, fn, "v", 0);
  fill_array(L, a, &v, fn);
  lua_settop(L, 1);
  return 1;
}

/* a:astype(dtype) */
static int m_astype(lua_State *L) {
  const char *fn = "mgpu.array:astype";
  l_array *a = check_self(L, fn);
  mgpu_dtype t = lmgpu_check_dtype(L, 2, fn);
  push_array_context(L, 1);
  l_array *b = lmgpu_new_array(L, -1, a->n, t, fn);
  mgpu_context *ctx = array_ctx(a);
  lmgpu_check_status(L, ctx,
                     mgpu_astype(ctx, lmgpu_data(b), t, lmgpu_data(a), a->dtype, a->n),
                     fn);
  return 1;
}

/* a:to(device or context) */
static int m_to(lua_State *L) {
  const char *fn = "mgpu.array:to";
  l_array *a = check_self(L, fn);
  if (lua_type(L, 2) == LUA_TSTRING) {
    lmgpu_push_device_context(L, lua_tostring(L, 2), fn);
  } else if (lmgpu_test_context(L, 2)) {
    lua_pushvalue(L, 2);
  } else {
    luaL_error(L, "%s: target must be a device string or an mgpu.context "
                  "(got %s)", fn, luaL_typename(L, 2));
  }
  int dst_idx = lua_gettop(L);
  mgpu_context *src = array_ctx(a), *dst = lmgpu_test_context(L, dst_idx)->ctx;
  size_t bytes = lmgpu_bytes(a);
  l_array *b = lmgpu_new_array(L, dst_idx, a->n, a->dtype, fn);
  if (src == dst) {
    lmgpu_check_status(L, src, mgpu_copy(src, lmgpu_data(b), lmgpu_data(a), bytes), fn);
    return 1;
  }
  /* Across contexts the copy goes through the host: it orders the two
   * streams without either waiting on the other's unrelated work. */
  char *host = lua_newuserdatauv(L, bytes, 0);
  lmgpu_check_status(L, src, mgpu_download(src, host, lmgpu_data(a), bytes), fn);
  lmgpu_check_status(L, dst, mgpu_upload(dst, lmgpu_data(b), host, bytes), fn);
  lua_pop(L, 1);
  return 1;
}

/* a:is_sorted([comp]) */
static int m_is_sorted(lua_State *L) {
  const char *fn = "mgpu.array:is_sorted";
  l_array *a = check_self(L, fn);
  mgpu_order o = lmgpu_check_order(L, 2, fn);
  int sorted = 0;
  mgpu_context *ctx = array_ctx(a);
  lmgpu_check_status(L, ctx, mgpu_is_sorted(ctx, lmgpu_data(a), a->n, a->dtype, o, &sorted),
                     fn);
  lua_pushboolean(L, sorted);
  return 1;
}

/* a:free(), __gc and __close: one idempotent release */
static int m_free(lua_State *L) {
  l_array *a = luaL_checkudata(L, 1, LMGPU_ARRAY);
  array_release(a);
  return 0;
}

static const luaL_Reg array_methods[] = {
  {"totable", m_totable},
  {"tobytes", m_tobytes},
  {"copy", m_copy},
  {"slice", m_slice},
  {"fill", m_fill},
  {"astype", m_astype},
  {"to", m_to},
  {"is_sorted", m_is_sorted},
  {"free", m_free},
  {NULL, NULL},
};

/* ---- metamethods ------------------------------------------------------------------ */

static size_t check_index(lua_State *L, l_array *a, int idx) {
  int ok = 0;
  lua_Integer i = lua_tointegerx(L, idx, &ok);
  if (!ok)
    luaL_error(L, "mgpu.array: index must be an integer (got %s)", describe(L, idx));
  if (i < 1 || (lua_Unsigned)i > a->n)
    luaL_error(L, "mgpu.array: index %I out of range 1..%I", i, (lua_Integer)a->n);
  return (size_t)(i - 1);
}

static int mm_index(lua_State *L) {
  l_array *a = luaL_checkudata(L, 1, LMGPU_ARRAY);
  if (lua_type(L, 2) == LUA_TNUMBER) {
    if (!a->st) luaL_error(L, "mgpu.array: array has been freed");
    size_t i = check_index(L, a, 2), w = mgpu_dtype_size(a->dtype);
    uint64_t v = 0;
    mgpu_context *ctx = array_ctx(a);
    lmgpu_check_status(L, ctx, mgpu_download(ctx, &v, (char *)lmgpu_data(a) + i * w, w),
                       "mgpu.array");
    lmgpu_push_element(L, a->dtype, &v);
    return 1;
  }
  if (lua_type(L, 2) == LUA_TSTRING) {
    const char *k = lua_tostring(L, 2);
    if (strcmp(k, "dtype") == 0) {
      lua_pushstring(L, mgpu_dtype_name(a->dtype));
      return 1;
    }
    if (strcmp(k, "context") == 0) {
      push_array_context(L, 1);
      return 1;
    }
    if (strcmp(k, "device") == 0) {
      push_array_context(L, 1);
      l_context *c = lmgpu_test_context(L, -1);
      if (c) lua_pushstring(L, mgpu_context_device(c->ctx));
      else lua_pushnil(L);
      return 1;
    }
  }
  lua_pushvalue(L, 2);
  lua_rawget(L, lua_upvalueindex(1));
  return 1;
}

static int mm_newindex(lua_State *L) {
  l_array *a = luaL_checkudata(L, 1, LMGPU_ARRAY);
  if (lua_type(L, 2) != LUA_TNUMBER)
    luaL_error(L, "mgpu.array: cannot set field '%s' (arrays take integer "
                  "indices)", luaL_tolstring(L, 2, NULL));
  if (!a->st) luaL_error(L, "mgpu.array: array has been freed");
  size_t i = check_index(L, a, 2), w = mgpu_dtype_size(a->dtype);
  uint64_t v = 0;
  lmgpu_to_element(L, 3, a->dtype, &v, "mgpu.array", "value", 0);
  mgpu_context *ctx = array_ctx(a);
  lmgpu_check_status(L, ctx, mgpu_upload(ctx, (char *)lmgpu_data(a) + i * w, &v, w),
                     "mgpu.array");
  return 0;
}

static int mm_len(lua_State *L) {
  l_array *a = luaL_checkudata(L, 1, LMGPU_ARRAY);
  if (!a->st) luaL_error(L, "mgpu.array: array has been freed");
  lua_pushinteger(L, (lua_Integer)a->n);
  return 1;
}

void lmgpu_array_register(lua_State *L) {
  if (!luaL_newmetatable(L, LMGPU_ARRAY)) {
    lua_pop(L, 1);
    return;
  }
  luaL_newlib(L, array_methods);
  lua_pushcclosure(L, mm_index, 1);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, mm_newindex);
  lua_setfield(L, -2, "__newindex");
  lua_pushcfunction(L, mm_len);
  lua_setfield(L, -2, "__len");
  lua_pushcfunction(L, m_free);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, m_free);
  lua_setfield(L, -2, "__close");
  lua_pop(L, 1);
}
