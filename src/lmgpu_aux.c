/*
 * lmgpu_aux.c - the binding's auxiliary layer: the call frame that pins a
 * call's arrays and contexts, raw option reads, argument checks, messages.
 * Built on lauxlib the way Lua's own libraries are.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lmgpu.h"

/* ---- the call frame ------------------------------------------------------- */

/* Drops every pin; idempotent, so __close and __gc may both run it. */
static int frame_close(lua_State *L) {
  l_frame *f = luaL_checkudata(L, 1, LMGPU_FRAME);
  int na = f->narrays, nc = f->ncontexts;
  f->narrays = f->ncontexts = 0;
  for (int i = 0; i < na; i++) lmgpu_storage_release(f->arrays[i].st);
  for (int i = 0; i < nc; i++) mgpu_context_release(f->contexts[i]);
  return 0;
}

void lmgpu_closer_register(lua_State *L, const char *name, lua_CFunction close,
                           int hide) {
  if (luaL_newmetatable(L, name)) {
    lua_pushcfunction(L, close);
    lua_setfield(L, -2, "__close");
    lua_pushcfunction(L, close);
    lua_setfield(L, -2, "__gc");
    if (hide) {
      lua_pushboolean(L, 0);
      lua_setfield(L, -2, "__metatable");
    }
  }
  lua_pop(L, 1);
}

void lmgpu_frame_register(lua_State *L) {
  lmgpu_closer_register(L, LMGPU_FRAME, frame_close, 1);
}

l_frame *lmgpu_begin(lua_State *L, const char *fn) {
  int top = lua_gettop(L);
  l_frame *f = lua_newuserdatauv(L, sizeof *f, 0);
  f->L = L;
  f->fn = fn;
  f->top = top;
  f->narrays = f->ncontexts = 0;
  luaL_setmetatable(L, LMGPU_FRAME);
  lua_toclose(L, -1);
  return f;
}

static l_array *pin_array(l_frame *f, const l_array *a) {
  if (f->narrays == LMGPU_FRAME_ARRAYS)
    luaL_error(f->L, "%s: internal error: too many arrays in one call", f->fn);
  l_array *copy = &f->arrays[f->narrays++];
  *copy = *a;
  copy->st->refs++;
  return copy;
}

mgpu_context *lmgpu_pin_context(l_frame *f, mgpu_context *ctx) {
  if (f->ncontexts == LMGPU_FRAME_CONTEXTS)
    luaL_error(f->L, "%s: internal error: too many contexts in one call",
               f->fn);
  mgpu_context_retain(ctx);
  f->contexts[f->ncontexts++] = ctx;
  return ctx;
}

mgpu_context *lmgpu_test_context_arg(l_frame *f, int idx) {
  l_context *c = lmgpu_test_context(f->L, idx);
  return c ? lmgpu_pin_context(f, c->ctx) : NULL;
}

l_array *lmgpu_arg_array(l_frame *f, int idx, const char *arg) {
  lua_State *L = f->L;
  l_array *a = luaL_testudata(L, idx, LMGPU_ARRAY);
  if (!a)
    lmgpu_error(f, "%s must be an mgpu.array (got %s)", arg,
                lmgpu_typename(L, idx));
  if (!a->st) lmgpu_error(f, "%s has been freed", arg);
  return pin_array(f, a);
}

l_array *lmgpu_opt_array(l_frame *f, int idx, const char *arg) {
  if (lua_isnoneornil(f->L, idx)) return NULL;
  return lmgpu_arg_array(f, idx, arg);
}

static size_t checked_bytes(l_frame *f, mgpu_context *ctx, size_t n,
                            mgpu_dtype t) {
  const size_t limit = mgpu_context_max_count(ctx);
  if (n > limit)
    lmgpu_error(f, "%I elements is past the limit of %I per array on %s",
                (lua_Integer)n, (lua_Integer)limit, mgpu_context_device(ctx));
  return n * mgpu_dtype_size(t);
}

typedef struct alloc_request {
  size_t bytes;
  void **out;
} alloc_request;

static mgpu_status alloc_op(mgpu_context *ctx, void *arg) {
  alloc_request *r = arg;
  return mgpu_alloc(ctx, r->bytes, r->out);
}

l_array *lmgpu_new_array(l_frame *f, int ctx_idx, mgpu_context *ctx, size_t n,
                         mgpu_dtype t) {
  lua_State *L = f->L;
  ctx_idx = lua_absindex(L, ctx_idx);
  size_t bytes = checked_bytes(f, ctx, n, t);
  /* The object exists, empty, before any memory is taken: a failure below
   * leaves only an empty object for the collector. */
  l_array *a = lmgpu_push_array_object(L, ctx_idx, t);
  lmgpu_heap_before_alloc(L, lmgpu_heap(L), bytes);
  l_storage *st = lmgpu_storage_new(L, ctx, bytes);
  if (!st) lmgpu_error(f, "out of host memory");
  alloc_request req = {bytes, &st->ptr};
  mgpu_status s = lmgpu_retry(f, ctx, alloc_op, &req);
  if (s != MGPU_OK) {
    free(st);
    lmgpu_check_status(f, ctx, s);
  }
  lmgpu_array_attach(a, st, n);
  return pin_array(f, a);
}

l_array *lmgpu_new_like(l_frame *f, int like_idx, const l_array *like,
                        size_t n, mgpu_dtype t) {
  lua_State *L = f->L;
  like_idx = lua_absindex(L, like_idx);
  lua_getiuservalue(L, like_idx, 1);
  l_array *a = lmgpu_new_array(f, -1, lmgpu_ctx(like), n, t);
  lua_remove(L, -2);
  return a;
}

void lmgpu_set_length(l_frame *f, int idx, l_array *a, size_t n) {
  l_array *obj = luaL_checkudata(f->L, idx, LMGPU_ARRAY);
  if (obj->st == a->st && obj->offset == a->offset) obj->n = n;
  a->n = n;
}

/* ---- errors --------------------------------------------------------------- */

int lmgpu_error(l_frame *f, const char *fmt, ...) {
  lua_State *L = f->L;
  va_list ap;
  va_start(ap, fmt);
  luaL_where(L, 1);
  lua_pushstring(L, f->fn);
  lua_pushliteral(L, ": ");
  lua_pushvfstring(L, fmt, ap);
  va_end(ap);
  lua_concat(L, 4);
  return lua_error(L);
}

void lmgpu_check_status(l_frame *f, mgpu_context *ctx, mgpu_status s) {
  if (s == MGPU_OK) return;
  const char *msg = ctx ? mgpu_context_error(ctx) : "";
  lmgpu_error(f, "%s", *msg ? msg : mgpu_status_name(s));
}

mgpu_status lmgpu_retry(l_frame *f, mgpu_context *ctx,
                        mgpu_status (*op)(mgpu_context *, void *), void *arg) {
  mgpu_status s = op(ctx, arg);
  if (s != MGPU_ENOMEM) return s;
  /* Unreachable arrays may be holding what this call needs: finalise them,
   * return the pool's cached blocks to the device, and try once more.
   * (From inside a finalizer lua_gc does nothing, and the retry fails as
   * the first try did.) */
  lua_gc(f->L, LUA_GCCOLLECT);
  mgpu_context_reclaim(ctx);
  return op(ctx, arg);
}

const char *lmgpu_describe(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) == LUA_TNUMBER) {
    if (lua_isinteger(L, idx))
      return lua_pushfstring(L, "%I", lua_tointeger(L, idx));
    /* the shortest form that reads back as the same double */
    lua_Number d = lua_tonumber(L, idx);
    char buf[40];
    for (int prec = 15; prec <= 17; prec++) {
      snprintf(buf, sizeof buf, "%.*g", prec, d);
      if (strtod(buf, NULL) == d) break;
    }
    return lua_pushstring(L, buf);
  }
  return lmgpu_typename(L, idx);
}

const char *lmgpu_typename(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  switch (lua_type(L, idx)) {
  case LUA_TNONE:
    return "no value";
  case LUA_TUSERDATA: {
    l_array *a = luaL_testudata(L, idx, LMGPU_ARRAY);
    if (a)
      return a->st ? lua_pushfstring(L, "mgpu.array<%s>[%I]",
                                     mgpu_dtype_name(a->dtype),
                                     (lua_Integer)a->n)
                   : "a freed mgpu.array";
    if (luaL_testudata(L, idx, LMGPU_CONTEXT)) return "mgpu.context";
    l_sharded *s = luaL_testudata(L, idx, LMGPU_SHARDED);
    if (s) return lua_pushfstring(L, "mgpu.sharded<%s>", mgpu_dtype_name(s->dtype));
    if (luaL_testudata(L, idx, LMGPU_GROUP)) return "mgpu.group";
    return "userdata";
  }
  default:
    return luaL_typename(L, idx);
  }
}

/* ---- options, read raw ---------------------------------------------------- */

int lmgpu_options(l_frame *f, int idx, const char *const names[]) {
  lua_State *L = f->L;
  idx = lua_absindex(L, idx);
  if (lua_isnoneornil(L, idx)) return 0;
  if (!lua_istable(L, idx))
    lmgpu_error(f, "options must be a table (got %s)", lmgpu_typename(L, idx));
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING)
      lmgpu_error(f, "option names must be strings (got %s)",
                  lmgpu_describe(L, -1));
    const char *k = lua_tostring(L, -1);
    int known = 0;
    for (int i = 0; names[i] && !known; i++) known = strcmp(k, names[i]) == 0;
    if (!known) lmgpu_error(f, "unknown option '%s'", k);
  }
  return idx;
}

int lmgpu_opt_field(l_frame *f, int opts, const char *field) {
  lua_State *L = f->L;
  if (!opts) {
    lua_pushnil(L);
    return LUA_TNIL;
  }
  lua_pushstring(L, field);
  return lua_rawget(L, opts);
}

int lmgpu_opt_boolean(l_frame *f, int opts, const char *field, int dflt) {
  lua_State *L = f->L;
  int b = dflt;
  if (lmgpu_opt_field(f, opts, field) != LUA_TNIL) {
    if (!lua_isboolean(L, -1))
      lmgpu_error(f, "%s must be a boolean (got %s)", field,
                  lmgpu_describe(L, -1));
    b = lua_toboolean(L, -1);
  }
  lua_pop(L, 1);
  return b;
}

l_array *lmgpu_opt_field_array(l_frame *f, int opts, const char *field,
                               const char *arg) {
  if (lmgpu_opt_field(f, opts, field) == LUA_TNIL) return NULL;
  return lmgpu_arg_array(f, -1, arg);
}

mgpu_order lmgpu_check_order(l_frame *f, int idx) {
  static const char *const orders[] = {"less", "greater", NULL};
  lua_State *L = f->L;
  if (lua_isnoneornil(L, idx)) return MGPU_LESS;
  if (lua_type(L, idx) == LUA_TSTRING) {
    const char *s = lua_tostring(L, idx);
    for (int i = 0; orders[i]; i++)
      if (strcmp(s, orders[i]) == 0) return i == 0 ? MGPU_LESS : MGPU_GREATER;
    lmgpu_error(f, "comp must be \"less\" or \"greater\" (got \"%s\")", s);
  }
  lmgpu_error(f, "comp must be \"less\" or \"greater\" (got %s)",
              lmgpu_describe(L, idx));
  return MGPU_LESS;
}

/* ---- scalars ----------------------------------------------------------------- */

mgpu_dtype lmgpu_check_dtype(l_frame *f, int idx, const char *arg) {
  lua_State *L = f->L;
  mgpu_dtype t = MGPU_I32;
  if (lua_type(L, idx) != LUA_TSTRING)
    lmgpu_error(f, "%s must be a string such as \"i32\" (got %s)", arg,
                lmgpu_describe(L, idx));
  if (mgpu_dtype_parse(lua_tostring(L, idx), &t) != 0)
    lmgpu_error(f, "unknown dtype '%s' (expected i32 u32 i64 u64 f32 f64)",
                lua_tostring(L, idx));
  return t;
}

size_t lmgpu_check_count(l_frame *f, int idx, const char *arg, size_t limit) {
  lua_State *L = f->L;
  if (idx > f->top || lua_isnil(L, idx))
    lmgpu_error(f, "%s is missing (expected a non-negative integer)", arg);
  if (lua_type(L, idx) != LUA_TNUMBER)
    lmgpu_error(f, "%s must be a non-negative integer (got %s)", arg,
                lmgpu_describe(L, idx));
  int ok = 0;
  lua_Integer n = lua_tointegerx(L, idx, &ok);
  if (!ok) {
    lua_Number d = lua_tonumber(L, idx);
    if (d == floor(d) && d > 0) /* an integral float past 2^63 */
      lmgpu_error(f, "%s = %s is past the limit of %I elements", arg,
                  lmgpu_describe(L, idx), (lua_Integer)limit);
    lmgpu_error(f, "%s must be an integer (got %s)", arg,
                lmgpu_describe(L, idx));
  }
  if (n < 0)
    lmgpu_error(f, "%s must not be negative (got %I)", arg, n);
  if ((lua_Unsigned)n > limit)
    lmgpu_error(f, "%s = %I is past the limit of %I elements", arg, n,
                (lua_Integer)limit);
  return (size_t)n;
}

static void bad_element(l_frame *f, int idx, mgpu_dtype t, const char *what,
                        lua_Integer pos, const char *problem) {
  const char *got = lmgpu_describe(f->L, idx);
  if (pos > 0)
    lmgpu_error(f, "%s %I %s %s (got %s)", what, pos, problem,
                mgpu_dtype_name(t), got);
  lmgpu_error(f, "%s %s %s (got %s)", what, problem, mgpu_dtype_name(t), got);
}

void lmgpu_to_element(l_frame *f, int idx, mgpu_dtype t, void *out,
                      const char *what, lua_Integer pos) {
  lua_State *L = f->L;
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) != LUA_TNUMBER)
    bad_element(f, idx, t, what, pos, "must be a number for");
  if (mgpu_dtype_is_float(t)) {
    lua_Number d = lua_tonumber(L, idx);
    if (t == MGPU_F32) {
      float x = (float)d;
      memcpy(out, &x, sizeof x);
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
    bad_element(f, idx, t, what, pos, "does not fit");
  }
  switch (t) {
  case MGPU_I32: {
    if (v < INT32_MIN || v > INT32_MAX)
      bad_element(f, idx, t, what, pos, "does not fit");
    int32_t x = (int32_t)v;
    memcpy(out, &x, sizeof x);
    break;
  }
  case MGPU_U32: {
    if (v < 0 || v > (lua_Integer)UINT32_MAX)
      bad_element(f, idx, t, what, pos, "does not fit");
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

const char *lmgpu_element_string(l_frame *f, const l_array *a, size_t i) {
  lua_State *L = f->L;
  size_t w = mgpu_dtype_size(a->dtype);
  unsigned char raw[8] = {0};
  mgpu_context *ctx = lmgpu_ctx(a);
  lmgpu_check_status(f, ctx, mgpu_download(ctx, raw, (char *)lmgpu_data(a) + i * w, w));
  char buf[64];
  switch (a->dtype) {
  case MGPU_U64: {
    uint64_t u;
    memcpy(&u, raw, 8);
    snprintf(buf, sizeof buf, "%" PRIu64, u);
    return lua_pushstring(L, buf);
  }
  default:
    lmgpu_push_element(L, a->dtype, raw);
    return lmgpu_describe(L, -1);
  }
}

/* ---- relations between arrays ---------------------------------------------- */

void lmgpu_value_pair(l_frame *f, const l_array *a, const l_array *b,
                      l_array **av, l_array **bv) {
  lua_State *L = f->L;
  if (!lua_istable(L, -1))
    lmgpu_error(f, "values must be a table {av, bv} (got %s)",
                lmgpu_typename(L, -1));
  int vt = lua_gettop(L);
  lua_rawgeti(L, vt, 1);
  *av = lmgpu_arg_array(f, -1, "values[1]");
  lua_rawgeti(L, vt, 2);
  *bv = lmgpu_arg_array(f, -1, "values[2]");
  lmgpu_check_same_context(f, a, *av, "a", "values[1]");
  lmgpu_check_same_context(f, a, *bv, "a", "values[2]");
  if ((*av)->dtype != (*bv)->dtype)
    lmgpu_error(f, "values[2] has dtype %s, values[1] has %s",
                mgpu_dtype_name((*bv)->dtype), mgpu_dtype_name((*av)->dtype));
  if ((*av)->n != a->n)
    lmgpu_error(f, "values[1] has %I elements, a has %I", (lua_Integer)(*av)->n,
                (lua_Integer)a->n);
  if ((*bv)->n != b->n)
    lmgpu_error(f, "values[2] has %I elements, b has %I", (lua_Integer)(*bv)->n,
                (lua_Integer)b->n);
}

void lmgpu_check_same_context(l_frame *f, const l_array *a, const l_array *b,
                              const char *an, const char *bn) {
  if (lmgpu_ctx(a) != lmgpu_ctx(b))
    lmgpu_error(f, "%s and %s belong to different contexts (%s and %s)", an,
                bn, mgpu_context_device(lmgpu_ctx(a)),
                mgpu_context_device(lmgpu_ctx(b)));
}

int lmgpu_overlap(const l_array *a, const l_array *b) {
  if (a->st != b->st || a->n == 0 || b->n == 0) return 0;
  size_t a1 = a->offset + lmgpu_bytes(a), b1 = b->offset + lmgpu_bytes(b);
  return a->offset < b1 && b->offset < a1;
}

void lmgpu_check_no_overlap(l_frame *f, const l_array *out, const l_array *in,
                            const char *on, const char *in_name) {
  if (in && lmgpu_overlap(out, in))
    lmgpu_error(f, "%s overlaps %s (outputs must not share memory with "
                   "inputs)", on, in_name);
}

/* The result array at idx holds `cap` elements of which `count` are the
 * result.  Trims it to count; when that would strand more than half its
 * memory (and a fair amount of it), moves the result to an exact-size array
 * instead, replacing the value at idx. */
void lmgpu_fit_result(l_frame *f, int idx, l_array *r, size_t count) {
  lua_State *L = f->L;
  size_t esize = mgpu_dtype_size(r->dtype);
  if (count * 2 >= r->n || (r->n - count) * esize < 65536) {
    lmgpu_set_length(f, idx, r, count);
    return;
  }
  l_array *exact = lmgpu_new_like(f, idx, r, count, r->dtype);
  mgpu_context *ctx = lmgpu_ctx(r);
  lmgpu_check_status(f, ctx, mgpu_copy(ctx, lmgpu_data(exact), lmgpu_data(r),
                                       count * esize));
  lmgpu_array_release(luaL_checkudata(L, idx, LMGPU_ARRAY));
  lua_replace(L, idx);
}
