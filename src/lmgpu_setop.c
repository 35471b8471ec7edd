/*
 * lmgpu_setop.c - mgpu.setop and its four aliases: multiset intersection,
 * union, difference and symmetric difference of sorted arrays.
 */
#include <string.h>

#include "lmgpu.h"

static const char *const op_names[] = {"intersection", "union", "difference",
                                       "symmetric_difference", NULL};

typedef struct setop_call {
  mgpu_setop_kind op;
  l_array *a, *b, *av, *bv, *c, *cv;
  mgpu_order order;
  int duplicates;
  size_t count;
} setop_call;

static mgpu_status setop_run(mgpu_context *ctx, void *arg) {
  setop_call *s = arg;
  size_t vs = s->av ? mgpu_dtype_size(s->av->dtype) : 0;
  return mgpu_setop(ctx, s->op, s->a->dtype, s->order, s->duplicates,
                    lmgpu_data(s->a), s->a->n, lmgpu_data(s->b), s->b->n,
                    lmgpu_data(s->c), vs, s->av ? lmgpu_data(s->av) : NULL,
                    s->bv ? lmgpu_data(s->bv) : NULL,
                    s->cv ? lmgpu_data(s->cv) : NULL, &s->count);
}

/* The result array at idx holds `cap` elements of which `count` are the
 * result.  Trims it to count; when that would strand more than half its
 * memory (and a fair amount of it), moves the result to an exact-size array
 * instead, replacing the value at idx. */
static l_array *fit_result(lua_State *L, int idx, int ctx_idx, l_array *r,
                           size_t count, const char *fn) {
  size_t esize = mgpu_dtype_size(r->dtype);
  if (count * 2 >= r->n || (r->n - count) * esize < 65536) {
    r->n = count;
    return r;
  }
  l_array *exact = lmgpu_new_array(L, ctx_idx, count, r->dtype, fn);
  mgpu_context *ctx = r->st->ctx;
  lmgpu_check_status(L, ctx, mgpu_copy(ctx, lmgpu_data(exact), lmgpu_data(r),
                                       count * esize),
                     fn);
  lmgpu_array_release(r);
  lua_replace(L, idx);
  return exact;
}

/* setop(op, a, b, opts) with a at stack index `first`. */
static int setop_call_at(lua_State *L, int first, mgpu_setop_kind op,
                         const char *fn) {
  static const char *const names[] = {"values", "comp", "duplicates", NULL};
  setop_call s = {0};
  s.op = op;
  s.a = lmgpu_check_array(L, first, fn, "a");
  s.b = lmgpu_check_array(L, first + 1, fn, "b");
  lmgpu_check_same_context(L, s.a, s.b, fn, "a", "b");
  if (s.a->dtype != s.b->dtype)
    luaL_error(L, "%s: b has dtype %s, a has %s", fn,
               mgpu_dtype_name(s.b->dtype), mgpu_dtype_name(s.a->dtype));
  const int opts = lmgpu_options(L, first + 2, fn, names);
  lua_settop(L, first + 2);
  s.duplicates = lmgpu_opt_boolean(L, opts, "duplicates", 1, fn);
  if (opts) {
    lua_getfield(L, opts, "comp");
    s.order = lmgpu_check_order(L, -1, fn);
    lua_getfield(L, opts, "values");
    if (!lua_isnil(L, -1)) {
      if (!lua_istable(L, -1))
        luaL_error(L, "%s: values must be a table {av, bv} (got %s)", fn,
                   luaL_typename(L, -1));
      int vt = lua_gettop(L);
      lua_rawgeti(L, vt, 1);
      s.av = lmgpu_check_array(L, -1, fn, "values[1]");
      lua_rawgeti(L, vt, 2);
      s.bv = lmgpu_check_array(L, -1, fn, "values[2]");
      lmgpu_check_same_context(L, s.a, s.av, fn, "a", "values[1]");
      lmgpu_check_same_context(L, s.a, s.bv, fn, "a", "values[2]");
      if (s.av->dtype != s.bv->dtype)
        luaL_error(L, "%s: values[2] has dtype %s, values[1] has %s", fn,
                   mgpu_dtype_name(s.bv->dtype), mgpu_dtype_name(s.av->dtype));
      if (s.av->n != s.a->n)
        luaL_error(L, "%s: values[1] has %I elements, a has %I", fn,
                   (lua_Integer)s.av->n, (lua_Integer)s.a->n);
      if (s.bv->n != s.b->n)
        luaL_error(L, "%s: values[2] has %I elements, b has %I", fn,
                   (lua_Integer)s.bv->n, (lua_Integer)s.b->n);
    }
  }
  size_t cap = mgpu_setop_capacity(op, s.a->n, s.b->n);
  if (cap > MGPU_MAX_COUNT)
    luaL_error(L, "%s: the result could have %I elements, past the limit of %I",
               fn, (lua_Integer)cap, (lua_Integer)MGPU_MAX_COUNT);
  lua_getiuservalue(L, first, 1);
  int ctx_idx = lua_gettop(L);
  s.c = lmgpu_new_array(L, ctx_idx, cap, s.a->dtype, fn);
  int c_idx = lua_gettop(L);
  int cv_idx = 0;
  if (s.av) {
    s.cv = lmgpu_new_array(L, ctx_idx, cap, s.av->dtype, fn);
    cv_idx = lua_gettop(L);
  }
  mgpu_context *ctx = s.a->st->ctx;
  lmgpu_check_status(L, ctx, lmgpu_retry(L, ctx, setop_run, &s), fn);
  fit_result(L, c_idx, ctx_idx, s.c, s.count, fn);
  if (s.cv) fit_result(L, cv_idx, ctx_idx, s.cv, s.count, fn);
  lua_pushvalue(L, c_idx);
  if (!s.cv) return 1;
  lua_pushvalue(L, cv_idx);
  return 2;
}

/* mgpu.setop(op, a, b [, {values = {av, bv}, comp, duplicates}]) */
int lmgpu_setop(lua_State *L) {
  const char *fn = "mgpu.setop";
  if (lua_type(L, 1) != LUA_TSTRING)
    luaL_error(L, "%s: op must be a string (got %s)", fn, luaL_typename(L, 1));
  const char *name = lua_tostring(L, 1);
  for (int i = 0; op_names[i]; i++)
    if (strcmp(name, op_names[i]) == 0)
      return setop_call_at(L, 2, (mgpu_setop_kind)i, fn);
  return luaL_error(L, "%s: unknown op '%s' (expected \"intersection\", "
                       "\"union\", \"difference\" or \"symmetric_difference\")",
                    fn, name);
}

int lmgpu_set_intersection(lua_State *L) {
  return setop_call_at(L, 1, MGPU_SET_INTERSECTION, "mgpu.set_intersection");
}
int lmgpu_set_union(lua_State *L) {
  return setop_call_at(L, 1, MGPU_SET_UNION, "mgpu.set_union");
}
int lmgpu_set_difference(lua_State *L) {
  return setop_call_at(L, 1, MGPU_SET_DIFFERENCE, "mgpu.set_difference");
}
int lmgpu_set_symmetric_difference(lua_State *L) {
  return setop_call_at(L, 1, MGPU_SET_SYMMETRIC_DIFFERENCE,
                       "mgpu.set_symmetric_difference");
}
