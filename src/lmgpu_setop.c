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

/* setop(op, a, b, opts) with a at stack index `first`. */
static int setop_call_at(lua_State *L, int first, mgpu_setop_kind op,
                         const char *fn) {
  static const char *const names[] = {"values", "comp", "duplicates", NULL};
  lua_settop(L, first + 2);
  l_frame *f = lmgpu_begin(L, fn);
  setop_call s = {0};
  s.op = op;
  s.a = lmgpu_arg_array(f, first, "a");
  s.b = lmgpu_arg_array(f, first + 1, "b");
  lmgpu_check_same_context(f, s.a, s.b, "a", "b");
  if (s.a->dtype != s.b->dtype)
    lmgpu_error(f, "b has dtype %s, a has %s", mgpu_dtype_name(s.b->dtype),
                mgpu_dtype_name(s.a->dtype));
  const int opts = lmgpu_options(f, first + 2, names);
  s.duplicates = lmgpu_opt_boolean(f, opts, "duplicates", 1);
  lmgpu_opt_field(f, opts, "comp");
  s.order = lmgpu_check_order(f, -1);
  if (lmgpu_opt_field(f, opts, "values") != LUA_TNIL)
    lmgpu_value_pair(f, s.a, s.b, &s.av, &s.bv);
  size_t cap = mgpu_setop_capacity(op, s.a->n, s.b->n);
  const size_t limit = mgpu_context_max_count(lmgpu_ctx(s.a));
  if (cap > limit)
    lmgpu_error(f, "the result could have %I elements, past the limit of %I",
                (lua_Integer)cap, (lua_Integer)limit);
  s.c = lmgpu_new_like(f, first, s.a, cap, s.a->dtype);
  int c_idx = lua_gettop(L);
  int cv_idx = 0;
  if (s.av) {
    s.cv = lmgpu_new_like(f, first, s.a, cap, s.av->dtype);
    cv_idx = lua_gettop(L);
  }
  mgpu_context *ctx = lmgpu_ctx(s.a);
  lmgpu_check_status(f, ctx, lmgpu_retry(f, ctx, setop_run, &s));
  lmgpu_fit_result(f, c_idx, s.c, s.count);
  if (s.cv) lmgpu_fit_result(f, cv_idx, s.cv, s.count);
  lua_pushvalue(L, c_idx);
  if (!s.cv) return 1;
  lua_pushvalue(L, cv_idx);
  return 2;
}

/* mgpu.setop(op, a, b [, {values = {av, bv}, comp, duplicates}]) */
int lmgpu_setop(lua_State *L) {
  const char *fn = "mgpu.setop";
  if (lua_type(L, 1) != LUA_TSTRING)
    return luaL_error(L, "%s: op must be a string (got %s)", fn,
                      lmgpu_describe(L, 1));
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
