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

void lmgpu_storage_release(l_storage *st) {
  if (--st->refs == 0) {
    if (!st->lent) {
      mgpu_free(st->ctx, st->ptr, st->bytes);
      lmgpu_heap_sub(st->heap, st->bytes);
    } else {
      if (st->release) st->release(st->ptr, st->release_ud);
      lmgpu_heap_sub(st->heap, 0);
    }
    mgpu_context_release(st->ctx);
    free(st);
  }
}

l_array *lmgpu_push_array_object(lua_State *L, int ctx_idx, mgpu_dtype t) {
  ctx_idx = lua_absindex(L, ctx_idx);
  l_array *a = lua_newuserdatauv(L, sizeof *a, 1);
  a->st = NULL;
  a->offset = 0;
  a->n = 0;
  a->dtype = t;
  luaL_setmetatable(L, LMGPU_ARRAY);
  lua_pushvalue(L, ctx_idx);
  lua_setiuservalue(L, -2, 1);
  return a;
}

l_storage *lmgpu_storage_new(lua_State *L, mgpu_context *ctx, size_t bytes) {
  l_storage *st = malloc(sizeof *st);
  if (!st) return NULL;
  st->ctx = ctx;
  st->heap = lmgpu_heap(L);
  st->ptr = NULL;
  st->bytes = bytes;
  st->refs = 1;
  st->lent = 0;
  st->release = NULL;
  st->release_ud = NULL;
  return st;
}

void lmgpu_array_attach(l_array *a, l_storage *st, size_t n) {
  mgpu_context_retain(st->ctx);
  lmgpu_heap_add(st->heap, st->lent ? 0 : st->bytes);
  a->st = st;
  a->n = n;
}

void lmgpu_array_release(l_array *a) {
  l_storage *st = a->st;
  a->st = NULL; /* first, so that a second release is a no-op */
  if (st) lmgpu_storage_release(st);
}

/* ---- arguments of the constructors -------------------------------------- */

/* The dtype a Lua number asks for when none is given. */
static mgpu_dtype infer_dtype(lua_State *L, int idx) {
  if (!lua_isinteger(L, idx)) return MGPU_F64;
  lua_Integer v = lua_tointeger(L, idx);
  return v >= INT32_MIN && v <= INT32_MAX ? MGPU_I32 : MGPU_I64;
}

/* A constructor's arguments: registered twice, as module functions (upvalue
 * false: the default context) and as context methods (upvalue true: the
 * context is self, and a call with a dot instead of a colon is an error). */
typedef struct ctor_args {
  l_frame *f;
  int ctx_idx;       /* stack index of the context object */
  mgpu_context *ctx; /* pinned */
  int base;          /* first argument after the context */
  int top;           /* last argument */
} ctor_args;

static ctor_args ctor_begin(lua_State *L, const char *name) {
  ctor_args c;
  int method = lua_toboolean(L, lua_upvalueindex(1));
  c.f = lmgpu_begin(L, name);
  c.top = c.f->top;
  if (method) {
    l_context *lc = luaL_testudata(L, 1, LMGPU_CONTEXT);
    if (!lc)
      lmgpu_error(c.f, "call it as a method, ctx:%s(...) (got %s as self)",
                  name + 5, lmgpu_describe(L, 1));
    if (!lc->ctx) lmgpu_error(c.f, "the context has been closed");
    c.ctx_idx = 1;
    c.ctx = lmgpu_pin_context(c.f, lc->ctx);
    c.base = 2;
  } else {
    c.ctx = lmgpu_push_default_context(c.f);
    c.ctx_idx = lua_gettop(L);
    c.base = 1;
  }
  return c;
}

static int has_arg(lua_State *L, const ctor_args *c, int i) {
  return i <= c->top && !lua_isnil(L, i);
}

static l_array *new_array(const ctor_args *c, size_t n, mgpu_dtype t) {
  return lmgpu_new_array(c->f, c->ctx_idx, c->ctx, n, t);
}

static void upload(l_frame *f, l_array *a, const void *src) {
  mgpu_context *ctx = lmgpu_ctx(a);
  lmgpu_check_status(f, ctx, mgpu_upload(ctx, lmgpu_data(a), src, lmgpu_bytes(a)));
}

static void fill_array(l_frame *f, l_array *a, const void *value) {
  mgpu_context *ctx = lmgpu_ctx(a);
  lmgpu_check_status(f, ctx, mgpu_fill(ctx, lmgpu_data(a), a->n, a->dtype, value));
}

static mgpu_dtype opt_dtype(const ctor_args *c, int idx) {
  return has_arg(c->f->L, c, idx) ? lmgpu_check_dtype(c->f, idx, "dtype")
                                  : MGPU_I32;
}

/* ---- constructors ------------------------------------------------------------ */

/* mgpu.array(t [, dtype]) */
static int ctor_array(lua_State *L) {
  ctor_args c = ctor_begin(L, "mgpu.array");
  l_frame *f = c.f;
  if (!lua_istable(L, c.base))
    lmgpu_error(f, "t must be a table of numbers (got %s)",
                c.base > c.top ? "no value" : lmgpu_typename(L, c.base));
  size_t n = lua_rawlen(L, c.base);
  if (n > mgpu_context_max_count(c.ctx))
    lmgpu_error(f, "%I elements is past the limit of %I", (lua_Integer)n,
                (lua_Integer)mgpu_context_max_count(c.ctx));
  mgpu_dtype t;
  if (has_arg(L, &c, c.base + 1)) {
    t = lmgpu_check_dtype(f, c.base + 1, "dtype");
  } else {
    int any_float = 0, all_i32 = 1;
    for (size_t i = 1; i <= n; i++) {
      if (lua_rawgeti(L, c.base, (lua_Integer)i) != LUA_TNUMBER)
        lmgpu_error(f, "element %I must be a number (got %s)", (lua_Integer)i,
                    lmgpu_typename(L, -1));
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
    lmgpu_to_element(f, -1, t, host + i * w, "element", (lua_Integer)(i + 1));
    lua_pop(L, 1);
  }
  l_array *a = new_array(&c, n, t);
  upload(f, a, host);
  return 1;
}

/* mgpu.empty(n [, dtype]) */
static int ctor_empty(lua_State *L) {
  ctor_args c = ctor_begin(L, "mgpu.empty");
  size_t n = lmgpu_check_count(c.f, c.base, "n", mgpu_context_max_count(c.ctx));
  new_array(&c, n, opt_dtype(&c, c.base + 1));
  return 1;
}

/* mgpu.zeros(n [, dtype]) */
static int ctor_zeros(lua_State *L) {
  ctor_args c = ctor_begin(L, "mgpu.zeros");
  size_t n = lmgpu_check_count(c.f, c.base, "n", mgpu_context_max_count(c.ctx));
  l_array *a = new_array(&c, n, opt_dtype(&c, c.base + 1));
  uint64_t zero = 0;
  fill_array(c.f, a, &zero);
  return 1;
}

/* mgpu.fill(n, v [, dtype]) */
static int ctor_fill(lua_State *L) {
  ctor_args c = ctor_begin(L, "mgpu.fill");
  l_frame *f = c.f;
  size_t n = lmgpu_check_count(f, c.base, "n", mgpu_context_max_count(c.ctx));
  if (c.base + 1 > c.top || lua_type(L, c.base + 1) != LUA_TNUMBER)
    lmgpu_error(f, "v must be a number (got %s)",
                c.base + 1 > c.top ? "no value" : lmgpu_typename(L, c.base + 1));
  mgpu_dtype t = has_arg(L, &c, c.base + 2)
                     ? lmgpu_check_dtype(f, c.base + 2, "dtype")
                     : infer_dtype(L, c.base + 1);
  uint64_t v = 0;
  lmgpu_to_element(f, c.base + 1, t, &v, "v", 0);
  l_array *a = new_array(&c, n, t);
  fill_array(f, a, &v);
  return 1;
}

/* A start/step/lo/hi argument in dtype t's arithmetic. */
static mgpu_scalar to_scalar(l_frame *f, int idx, mgpu_dtype t,
                             const char *what) {
  mgpu_scalar s;
  if (mgpu_dtype_is_float(t)) {
    if (lua_type(f->L, idx) != LUA_TNUMBER)
      lmgpu_error(f, "%s must be a number (got %s)", what,
                  lmgpu_typename(f->L, idx));
    s.f = lua_tonumber(f->L, idx);
    return s;
  }
  union { int32_t i32; uint32_t u32; int64_t i64; } e;
  e.i64 = 0;
  lmgpu_to_element(f, idx, t, &e, what, 0);
  s.i = t == MGPU_I32 ? e.i32 : t == MGPU_U32 ? (int64_t)e.u32 : e.i64;
  return s;
}

/* The number at idx, or `dflt` pushed when the argument is nil or absent;
 * returns its stack index. */
static int number_or_default(const ctor_args *c, int idx, const char *what,
                             lua_Integer dflt) {
  lua_State *L = c->f->L;
  if (idx && has_arg(L, c, idx)) {
    if (lua_type(L, idx) != LUA_TNUMBER)
      lmgpu_error(c->f, "%s must be a number (got %s)", what,
                  lmgpu_typename(L, idx));
    return idx;
  }
  lua_pushinteger(L, dflt);
  return lua_gettop(L);
}

/* mgpu.iota(n [, start=1 [, step=1]] [, dtype]): nil stands for a default,
 * and the dtype may follow any of n, start and step. */
static int ctor_iota(lua_State *L) {
  ctor_args c = ctor_begin(L, "mgpu.iota");
  l_frame *f = c.f;
  size_t n = lmgpu_check_count(f, c.base, "n", mgpu_context_max_count(c.ctx));
  int dtype_idx = 0, last = c.base;
  for (int i = c.base + 1; i <= c.top && i <= c.base + 3; i++) {
    if (lua_type(L, i) == LUA_TSTRING) {
      dtype_idx = i;
      last = i;
      break;
    }
    last = i;
  }
  for (int i = last + 1; i <= c.top; i++)
    if (!lua_isnil(L, i))
      lmgpu_error(f, "unexpected argument #%d (%s); expected (n [, start [, "
                     "step]] [, dtype])", i - c.base + 1, lmgpu_describe(L, i));
  int start_idx = number_or_default(&c, dtype_idx == c.base + 1 ? 0 : c.base + 1,
                                    "start", 1);
  int step_idx = number_or_default(&c, dtype_idx && dtype_idx <= c.base + 2
                                           ? 0 : c.base + 2, "step", 1);
  mgpu_dtype t;
  if (dtype_idx) {
    t = lmgpu_check_dtype(f, dtype_idx, "dtype");
  } else if (lua_isinteger(L, start_idx) && lua_isinteger(L, step_idx)) {
    double first = (double)lua_tointeger(L, start_idx);
    double last_v = first + (double)(n ? n - 1 : 0) * (double)lua_tointeger(L, step_idx);
    int fits = first >= INT32_MIN && first <= INT32_MAX &&
               last_v >= INT32_MIN && last_v <= INT32_MAX;
    t = fits ? MGPU_I32 : MGPU_I64;
  } else {
    t = MGPU_F64;
  }
  mgpu_scalar start = to_scalar(f, start_idx, t, "start");
  mgpu_scalar step;
  if (mgpu_dtype_is_float(t)) {
    step = to_scalar(f, step_idx, t, "step");
  } else {
    /* a step may be negative in any integer dtype: it wraps like the values */
    int ok = 0;
    step.i = lua_tointegerx(L, step_idx, &ok);
    if (!ok)
      lmgpu_error(f, "step must be an integer for dtype %s (got %s)",
                  mgpu_dtype_name(t), lmgpu_describe(L, step_idx));
  }
  l_array *a = new_array(&c, n, t);
  mgpu_context *ctx = lmgpu_ctx(a);
  lmgpu_check_status(f, ctx, mgpu_iota(ctx, lmgpu_data(a), n, t, start, step));
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
static l_array *make_random(const ctor_args *c) {
  l_frame *f = c->f;
  lua_State *L = f->L;
  size_t n = lmgpu_check_count(f, c->base, "n", mgpu_context_max_count(c->ctx));
  int lo_idx = c->base + 1, hi_idx = c->base + 2;
  for (int k = lo_idx; k <= hi_idx; k++)
    if (k > c->top || lua_type(L, k) != LUA_TNUMBER)
      lmgpu_error(f, "%s must be a number (got %s)", k == lo_idx ? "lo" : "hi",
                  k > c->top ? "no value" : lmgpu_typename(L, k));
  mgpu_dtype t;
  if (has_arg(L, c, c->base + 3)) {
    t = lmgpu_check_dtype(f, c->base + 3, "dtype");
  } else if (lua_isinteger(L, lo_idx) && lua_isinteger(L, hi_idx)) {
    t = infer_dtype(L, lo_idx) == MGPU_I32 && infer_dtype(L, hi_idx) == MGPU_I32
            ? MGPU_I32 : MGPU_I64;
  } else {
    t = MGPU_F64;
  }
  mgpu_scalar lo = to_scalar(f, lo_idx, t, "lo");
  mgpu_scalar hi = to_scalar(f, hi_idx, t, "hi");
  if (mgpu_dtype_is_float(t) && !(isfinite(lo.f) && isfinite(hi.f)))
    lmgpu_error(f, "lo and hi must be finite (got %s and %s)",
                lmgpu_describe(L, lo_idx), lmgpu_describe(L, hi_idx));
  if (!scalar_le(lo, hi, t))
    lmgpu_error(f, "lo must not exceed hi (got %s > %s)",
                lmgpu_describe(L, lo_idx), lmgpu_describe(L, hi_idx));
  uint64_t seed;
  if (has_arg(L, c, c->base + 4)) {
    int ok = 0;
    seed = (uint64_t)lua_tointegerx(L, c->base + 4, &ok);
    if (!ok || lua_type(L, c->base + 4) != LUA_TNUMBER)
      lmgpu_error(f, "seed must be an integer (got %s)",
                  lmgpu_describe(L, c->base + 4));
  } else {
    seed = next_seed();
  }
  l_array *a = new_array(c, n, t);
  mgpu_context *ctx = lmgpu_ctx(a);
  lmgpu_check_status(f, ctx, mgpu_random(ctx, lmgpu_data(a), n, t, lo, hi, seed));
  return a;
}

/* mgpu.random(n, lo, hi [, dtype [, seed]]) */
static int ctor_random(lua_State *L) {
  ctor_args c = ctor_begin(L, "mgpu.random");
  make_random(&c);
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
  ctor_args c = ctor_begin(L, "mgpu.sorted_random");
  sort_request req = {make_random(&c)};
  mgpu_context *ctx = lmgpu_ctx(req.a);
  lmgpu_check_status(c.f, ctx, lmgpu_retry(c.f, ctx, sort_keys_op, &req));
  return 1;
}

/* mgpu.frombytes(s, dtype) */
static int ctor_frombytes(lua_State *L) {
  ctor_args c = ctor_begin(L, "mgpu.frombytes");
  l_frame *f = c.f;
  if (lua_type(L, c.base) != LUA_TSTRING)
    lmgpu_error(f, "s must be a string (got %s)",
                c.base > c.top ? "no value" : lmgpu_typename(L, c.base));
  size_t len;
  const char *s = lua_tolstring(L, c.base, &len);
  if (!has_arg(L, &c, c.base + 1)) lmgpu_error(f, "dtype is missing");
  mgpu_dtype t = lmgpu_check_dtype(f, c.base + 1, "dtype");
  size_t w = mgpu_dtype_size(t);
  if (len % w)
    lmgpu_error(f, "%I bytes is not a whole number of %s elements",
                (lua_Integer)len, mgpu_dtype_name(t));
  l_array *a = new_array(&c, len / w, t);
  upload(f, a, s);
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

/* Resolves a 1-based inclusive range [i, j] of an n-element array, with
 * negatives counting from the end; returns 0-based start and count. */
static lua_Integer opt_index(l_frame *f, int idx, lua_Integer dflt,
                             const char *what) {
  if (lua_isnoneornil(f->L, idx)) return dflt;
  int ok = 0;
  lua_Integer v = lua_tointegerx(f->L, idx, &ok);
  if (!ok || lua_type(f->L, idx) != LUA_TNUMBER)
    lmgpu_error(f, "%s must be an integer (got %s)", what,
                lmgpu_describe(f->L, idx));
  return v;
}

static void check_range(l_frame *f, size_t n, int i_idx, int j_idx,
                        size_t *start, size_t *count) {
  lua_Integer i = opt_index(f, i_idx, 1, "i");
  lua_Integer j = opt_index(f, j_idx, -1, "j");
  lua_Integer N = (lua_Integer)n;
  /* Negatives past -N stay negative and fail below (no wrap: N < 2^31). */
  if (i < 0 && i >= -N - 1) i += N + 1;
  if (j < 0 && j >= -N - 1) j += N + 1;
  if (i < 1 || j > N || i > j + 1 || j < 0)
    lmgpu_error(f, "range %I..%I is outside 1..%I", opt_index(f, i_idx, 1, "i"),
                opt_index(f, j_idx, -1, "j"), N);
  *start = (size_t)(i - 1);
  *count = (size_t)(j - i + 1);
}

/* self of a method, as a:name() must give it. */
static l_array *check_self(l_frame *f) {
  lua_State *L = f->L;
  if (!luaL_testudata(L, 1, LMGPU_ARRAY))
    lmgpu_error(f, "call it as a method, a:%s(...) (got %s as self)",
                strchr(f->fn, ':') + 1, lmgpu_describe(L, 1));
  return lmgpu_arg_array(f, 1, "array");
}

/* a:totable([i [, j]]) */
static int m_totable(lua_State *L) {
  lua_settop(L, 3);
  l_frame *f = lmgpu_begin(L, "mgpu.array:totable");
  l_array *a = check_self(f);
  size_t start, count, w = mgpu_dtype_size(a->dtype);
  check_range(f, a->n, 2, 3, &start, &count);
  char *host = lua_newuserdatauv(L, count * w, 0);
  mgpu_context *ctx = lmgpu_ctx(a);
  lmgpu_check_status(f, ctx, mgpu_download(ctx, host,
                                           (char *)lmgpu_data(a) + start * w,
                                           count * w));
  lua_createtable(L, (int)(count < 0x7fffffff ? count : 0), 0);
  for (size_t i = 0; i < count; i++) {
    lmgpu_push_element(L, a->dtype, host + i * w);
    lua_rawseti(L, -2, (lua_Integer)(i + 1));
  }
  return 1;
}

/* a:tobytes() */
static int m_tobytes(lua_State *L) {
  lua_settop(L, 1);
  l_frame *f = lmgpu_begin(L, "mgpu.array:tobytes");
  l_array *a = check_self(f);
  size_t bytes = lmgpu_bytes(a);
  luaL_Buffer b;
  char *p = luaL_buffinitsize(L, &b, bytes);
  mgpu_context *ctx = lmgpu_ctx(a);
  lmgpu_check_status(f, ctx, mgpu_download(ctx, p, lmgpu_data(a), bytes));
  luaL_pushresultsize(&b, bytes);
  return 1;
}

/* a:copy() */
static int m_copy(lua_State *L) {
  lua_settop(L, 1);
  l_frame *f = lmgpu_begin(L, "mgpu.array:copy");
  l_array *a = check_self(f);
  l_array *b = lmgpu_new_like(f, 1, a, a->n, a->dtype);
  mgpu_context *ctx = lmgpu_ctx(a);
  lmgpu_check_status(f, ctx, mgpu_copy(ctx, lmgpu_data(b), lmgpu_data(a),
                                       lmgpu_bytes(a)));
  return 1;
}

/* a:slice(i [, j]) -> a view sharing a's memory */
static int m_slice(lua_State *L) {
  lua_settop(L, 3);
  l_frame *f = lmgpu_begin(L, "mgpu.array:slice");
  l_array *a = check_self(f);
  size_t start, count;
  if (lua_isnoneornil(L, 2)) lmgpu_error(f, "i is missing");
  check_range(f, a->n, 2, 3, &start, &count);
  l_array *v = lua_newuserdatauv(L, sizeof *v, 1);
  v->st = NULL;
  luaL_setmetatable(L, LMGPU_ARRAY);
  lua_getiuservalue(L, 1, 1);
  lua_setiuservalue(L, -2, 1);
  /* from the pinned copy: a may have been freed meanwhile */
  v->st = a->st;
  v->st->refs++;
  v->offset = a->offset + start * mgpu_dtype_size(a->dtype);
  v->n = count;
  v->dtype = a->dtype;
  return 1;
}

/* a:fill(v) */
static int m_fill(lua_State *L) {
  lua_settop(L, 2);
  l_frame *f = lmgpu_begin(L, "mgpu.array:fill");
  l_array *a = check_self(f);
  uint64_t v = 0;
  lmgpu_to_element(f, 2, a->dtype, &v, "v", 0);
  fill_array(f, a, &v);
  lua_pushvalue(L, 1);
  return 1;
}

/* a:astype(dtype) */
static int m_astype(lua_State *L) {
  lua_settop(L, 2);
  l_frame *f = lmgpu_begin(L, "mgpu.array:astype");
  l_array *a = check_self(f);
  mgpu_dtype t = lmgpu_check_dtype(f, 2, "dtype");
  l_array *b = lmgpu_new_like(f, 1, a, a->n, t);
  mgpu_context *ctx = lmgpu_ctx(a);
  lmgpu_check_status(f, ctx, mgpu_astype(ctx, lmgpu_data(b), t, lmgpu_data(a),
                                         a->dtype, a->n));
  return 1;
}

/* a:to(device or context) */
static int m_to(lua_State *L) {
  lua_settop(L, 2);
  l_frame *f = lmgpu_begin(L, "mgpu.array:to");
  l_array *a = check_self(f);
  mgpu_context *dst;
  if (lua_type(L, 2) == LUA_TSTRING) {
    dst = lmgpu_push_device_context(f, lua_tostring(L, 2));
  } else if ((dst = lmgpu_test_context_arg(f, 2)) != NULL) {
    lua_pushvalue(L, 2);
  } else {
    if (luaL_testudata(L, 2, LMGPU_CONTEXT))
      lmgpu_error(f, "the target context has been closed");
    lmgpu_error(f, "target must be a device string or an mgpu.context (got %s)",
                lmgpu_typename(L, 2));
  }
  int dst_idx = lua_gettop(L);
  mgpu_context *src = lmgpu_ctx(a);
  size_t bytes = lmgpu_bytes(a);
  l_array *b = lmgpu_new_array(f, dst_idx, dst, a->n, a->dtype);
  if (src == dst) {
    lmgpu_check_status(f, src, mgpu_copy(src, lmgpu_data(b), lmgpu_data(a), bytes));
    return 1;
  }
  /* Across contexts the copy goes through the host: it orders the two
   * streams without either waiting on the other's unrelated work. */
  char *host = lua_newuserdatauv(L, bytes, 0);
  lmgpu_check_status(f, src, mgpu_download(src, host, lmgpu_data(a), bytes));
  lmgpu_check_status(f, dst, mgpu_upload(dst, lmgpu_data(b), host, bytes));
  lua_pop(L, 1);
  return 1;
}

/* a:is_sorted([comp]) */
static int m_is_sorted(lua_State *L) {
  lua_settop(L, 2);
  l_frame *f = lmgpu_begin(L, "mgpu.array:is_sorted");
  l_array *a = check_self(f);
  mgpu_order o = lmgpu_check_order(f, 2);
  int sorted = 0;
  mgpu_context *ctx = lmgpu_ctx(a);
  lmgpu_check_status(f, ctx, mgpu_is_sorted(ctx, lmgpu_data(a), a->n, a->dtype,
                                            o, &sorted));
  lua_pushboolean(L, sorted);
  return 1;
}

/* a:ptr() -> the address of the first element, as a light userdata: for a
 * C function the script hands it to (valid while a is alive and not
 * freed). */
static int m_ptr(lua_State *L) {
  lua_settop(L, 1);
  l_frame *f = lmgpu_begin(L, "mgpu.array:ptr");
  l_array *a = check_self(f);
  lua_pushlightuserdata(L, lmgpu_data(a));
  return 1;
}

/* a:free(), __gc and __close: one idempotent release.  A call that pinned
 * the array's memory keeps it until the call ends. */
static int m_free(lua_State *L) {
  l_array *a = luaL_testudata(L, 1, LMGPU_ARRAY);
  if (!a)
    return luaL_error(L, "mgpu.array:free: call it as a method, a:free() "
                         "(got %s as self)", lmgpu_describe(L, 1));
  lmgpu_array_release(a);
  return 0;
}

/* __gc takes no error: a finalizer must not raise. */
static int mm_gc(lua_State *L) {
  l_array *a = luaL_testudata(L, 1, LMGPU_ARRAY);
  if (a) lmgpu_array_release(a);
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
  {"ptr", m_ptr},
  {"free", m_free},
  {NULL, NULL},
};

/* ---- metamethods ------------------------------------------------------------------ */

/* The 0-based element of a[i]; *past_end when i > #a (a read gives nil
 * there, as a table does, so that ipairs stops at the end). */
static size_t check_index(l_frame *f, const l_array *a, int idx, int *past_end) {
  int ok = 0;
  lua_Integer i = lua_tointegerx(f->L, idx, &ok);
  if (!ok)
    lmgpu_error(f, "index must be an integer (got %s)", lmgpu_describe(f->L, idx));
  if (past_end && i > 0 && (lua_Unsigned)i > a->n) {
    *past_end = 1;
    return 0;
  }
  if (i < 1 || (lua_Unsigned)i > a->n)
    lmgpu_error(f, "index %I out of range 1..%I", i, (lua_Integer)a->n);
  return (size_t)(i - 1);
}

/* The array object self of a metamethod (which a script may call
 * directly, with anything). */
static l_array *check_object(lua_State *L) {
  l_array *a = luaL_testudata(L, 1, LMGPU_ARRAY);
  if (!a)
    luaL_error(L, "mgpu.array: expected an mgpu.array (got %s)",
               lmgpu_typename(L, 1));
  return a;
}

static int mm_index(lua_State *L) {
  l_array *obj = check_object(L);
  if (lua_type(L, 2) == LUA_TNUMBER) {
    lua_settop(L, 2);
    l_frame *f = lmgpu_begin(L, "mgpu.array");
    l_array *a = lmgpu_arg_array(f, 1, "array");
    int past_end = 0;
    size_t i = check_index(f, a, 2, &past_end), w = mgpu_dtype_size(a->dtype);
    if (past_end) return 0;
    uint64_t v = 0;
    mgpu_context *ctx = lmgpu_ctx(a);
    lmgpu_check_status(f, ctx, mgpu_download(ctx, &v, (char *)lmgpu_data(a) + i * w, w));
    lmgpu_push_element(L, a->dtype, &v);
    return 1;
  }
  if (lua_type(L, 2) == LUA_TSTRING) {
    const char *k = lua_tostring(L, 2);
    if (strcmp(k, "dtype") == 0) {
      lua_pushstring(L, mgpu_dtype_name(obj->dtype));
      return 1;
    }
    if (strcmp(k, "context") == 0) {
      lua_getiuservalue(L, 1, 1);
      return 1;
    }
    if (strcmp(k, "device") == 0) {
      if (obj->st) lua_pushstring(L, mgpu_context_device(obj->st->ctx));
      else lua_pushnil(L);
      return 1;
    }
  }
  lua_pushvalue(L, 2);
  lua_rawget(L, lua_upvalueindex(1));
  return 1;
}

static int mm_newindex(lua_State *L) {
  check_object(L);
  lua_settop(L, 3);
  l_frame *f = lmgpu_begin(L, "mgpu.array");
  if (lua_type(L, 2) != LUA_TNUMBER)
    lmgpu_error(f, "cannot set field %s (arrays take integer indices)",
                lua_type(L, 2) == LUA_TSTRING
                    ? lua_pushfstring(L, "'%s'", lua_tostring(L, 2))
                    : lmgpu_describe(L, 2));
  l_array *a = lmgpu_arg_array(f, 1, "array");
  size_t i = check_index(f, a, 2, NULL), w = mgpu_dtype_size(a->dtype);
  uint64_t v = 0;
  lmgpu_to_element(f, 3, a->dtype, &v, "value", 0);
  mgpu_context *ctx = lmgpu_ctx(a);
  lmgpu_check_status(f, ctx, mgpu_upload(ctx, (char *)lmgpu_data(a) + i * w, &v, w));
  return 0;
}

static int mm_len(lua_State *L) {
  l_array *a = check_object(L);
  if (!a->st) return luaL_error(L, "mgpu.array: array has been freed");
  lua_pushinteger(L, (lua_Integer)a->n);
  return 1;
}

/* pairs(a): the elements 1..#a in order, as ipairs gives them. */
static int pairs_next(lua_State *L) {
  check_object(L);
  int ok = 0;
  lua_Integer i = lua_tointegerx(L, 2, &ok);
  /* any array's length is below LUA_MAXINTEGER: i + 1 cannot wrap */
  if (!ok || i < 0 || i == LUA_MAXINTEGER) return 0;
  i++;
  lua_pushinteger(L, i);
  if (lua_geti(L, 1, i) == LUA_TNIL) return 1;
  return 2;
}

static int mm_pairs(lua_State *L) {
  check_object(L);
  lua_pushcfunction(L, pairs_next);
  lua_pushvalue(L, 1);
  lua_pushinteger(L, 0);
  return 3;
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
  lua_pushcfunction(L, mm_pairs);
  lua_setfield(L, -2, "__pairs");
  lua_pushcfunction(L, mm_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, mm_gc);
  lua_setfield(L, -2, "__close");
  lua_pop(L, 1);
}
