/*
 * lmgpu_search.c - mgpu.scan, mgpu.reduce, mgpu.sorted_search, mgpu.unique
 * and mgpu.compact.
 */
#include <string.h>

#include "lmgpu.h"

mgpu_reduce_op lmgpu_check_reduce_op(l_frame *f, int idx) {
  static const char *const ops[] = {"add", "min", "max", NULL};
  lua_State *L = f->L;
  if (lua_isnoneornil(L, idx)) return MGPU_REDUCE_ADD;
  if (lua_type(L, idx) == LUA_TSTRING) {
    const char *s = lua_tostring(L, idx);
    for (int i = 0; ops[i]; i++)
      if (strcmp(s, ops[i]) == 0) return (mgpu_reduce_op)i;
    lmgpu_error(f, "op must be \"add\", \"min\" or \"max\" (got \"%s\")", s);
  }
  lmgpu_error(f, "op must be \"add\", \"min\" or \"max\" (got %s)",
              lmgpu_describe(L, idx));
  return MGPU_REDUCE_ADD;
}

/* A total as a Lua number of dtype t: integers as integers (u64 with its
 * bits, as array elements are), floats as floats. */
static void push_total(lua_State *L, mgpu_dtype t, mgpu_scalar s) {
  if (mgpu_dtype_is_float(t)) {
    lua_pushnumber(L, (lua_Number)s.f);
  } else if (t == MGPU_U32) {
    const uint32_t v = (uint32_t)s.i;
    lmgpu_push_element(L, t, &v);
  } else if (t == MGPU_I32) {
    const int32_t v = (int32_t)s.i;
    lmgpu_push_element(L, t, &v);
  } else {
    lmgpu_push_element(L, t, &s.i);
  }
}

typedef struct scan_call {
  l_array *a, *r;
  mgpu_reduce_op op;
  int inclusive;
  mgpu_scalar total;
} scan_call;

static mgpu_status scan_run(mgpu_context *ctx, void *arg) {
  scan_call *s = arg;
  return mgpu_scan(ctx, s->a->dtype, lmgpu_data(s->a), s->a->n,
                   lmgpu_data(s->r), s->op, s->inclusive, &s->total);
}

/* mgpu.scan(a [, {op, inclusive, out}]) -> r, total */
int lmgpu_scan(lua_State *L) {
  static const char *const names[] = {"op", "inclusive", "out", NULL};
  lua_settop(L, 2);
  l_frame *f = lmgpu_begin(L, "mgpu.scan");
  scan_call s = {0};
  s.a = lmgpu_arg_array(f, 1, "a");
  const int opts = lmgpu_options(f, 2, names);
  lmgpu_opt_field(f, opts, "op");
  s.op = lmgpu_check_reduce_op(f, -1);
  s.inclusive = lmgpu_opt_boolean(f, opts, "inclusive", 0);
  s.r = lmgpu_opt_field_array(f, opts, "out", "out");
  if (s.r) {
    lmgpu_check_same_context(f, s.a, s.r, "a", "out");
    if (s.r->dtype != s.a->dtype)
      lmgpu_error(f, "out has dtype %s, a has %s", mgpu_dtype_name(s.r->dtype),
                  mgpu_dtype_name(s.a->dtype));
    if (s.r->n != s.a->n)
      lmgpu_error(f, "out has %I elements, a has %I", (lua_Integer)s.r->n,
                  (lua_Integer)s.a->n);
    /* in place, or apart: a partial overlap would read what it wrote */
    if (lmgpu_data(s.r) != lmgpu_data(s.a))
      lmgpu_check_no_overlap(f, s.r, s.a, "out", "a");
  } else {
    s.r = lmgpu_new_like(f, 1, s.a, s.a->n, s.a->dtype);
  }
  const int r_idx = lua_gettop(L);
  mgpu_context *ctx = lmgpu_ctx(s.a);
  lmgpu_check_status(f, ctx, lmgpu_retry(f, ctx, scan_run, &s));
  lua_pushvalue(L, r_idx);
  push_total(L, s.a->dtype, s.total);
  return 2;
}

/* mgpu.reduce(a [, op]) -> number */
int lmgpu_reduce(lua_State *L) {
  lua_settop(L, 2);
  l_frame *f = lmgpu_begin(L, "mgpu.reduce");
  l_array *a = lmgpu_arg_array(f, 1, "a");
  const mgpu_reduce_op op = lmgpu_check_reduce_op(f, 2);
  mgpu_context *ctx = lmgpu_ctx(a);
  mgpu_scalar total;
  lmgpu_check_status(f, ctx, mgpu_reduce(ctx, a->dtype, lmgpu_data(a), a->n,
                                         op, &total));
  push_total(L, a->dtype, total);
  return 1;
}

/* mgpu.sorted_search(needles, haystack [, {side, comp}]) -> pos (i32, i64
 * past #haystack + 1 = INT32_MAX: the index dtype rule) */
int lmgpu_sorted_search(lua_State *L) {
  static const char *const names[] = {"side", "comp", NULL};
  lua_settop(L, 3);
  l_frame *f = lmgpu_begin(L, "mgpu.sorted_search");
  l_array *needles = lmgpu_arg_array(f, 1, "needles");
  l_array *hay = lmgpu_arg_array(f, 2, "haystack");
  lmgpu_check_same_context(f, needles, hay, "needles", "haystack");
  if (needles->dtype != hay->dtype)
    lmgpu_error(f, "haystack has dtype %s, needles has %s",
                mgpu_dtype_name(hay->dtype), mgpu_dtype_name(needles->dtype));
  const int opts = lmgpu_options(f, 3, names);
  lmgpu_opt_field(f, opts, "comp");
  const mgpu_order order = lmgpu_check_order(f, -1);
  int right = 0;
  if (lmgpu_opt_field(f, opts, "side") != LUA_TNIL) {
    const char *side = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    if (side && strcmp(side, "right") == 0)
      right = 1;
    else if (side && strcmp(side, "left") != 0)
      lmgpu_error(f, "side must be \"left\" or \"right\" (got \"%s\")", side);
    else if (!side)
      lmgpu_error(f, "side must be \"left\" or \"right\" (got %s)",
                  lmgpu_describe(L, -1));
  }
  const mgpu_dtype pos_type = mgpu_index_type((uint64_t)hay->n + 1);
  l_array *pos = lmgpu_new_like(f, 1, needles, needles->n, pos_type);
  const int pos_idx = lua_gettop(L);
  mgpu_context *ctx = lmgpu_ctx(needles);
  lmgpu_check_status(f, ctx,
                     mgpu_sorted_search_idx(ctx, needles->dtype, order,
                                            lmgpu_data(needles), needles->n,
                                            lmgpu_data(hay), hay->n, right, 1,
                                            pos_type, lmgpu_data(pos)));
  lua_pushvalue(L, pos_idx);
  return 1;
}

typedef struct unique_call {
  l_array *keys, *vals, *u, *uv, *c;
  size_t count;
} unique_call;

static mgpu_status unique_run(mgpu_context *ctx, void *arg) {
  unique_call *s = arg;
  return mgpu_unique_idx(ctx, s->keys->dtype, lmgpu_data(s->keys),
                         s->keys->n,
                         s->vals ? mgpu_dtype_size(s->vals->dtype) : 0,
                         s->vals ? lmgpu_data(s->vals) : NULL,
                         lmgpu_data(s->u), s->uv ? lmgpu_data(s->uv) : NULL,
                         s->c ? s->c->dtype : MGPU_I32,
                         s->c ? lmgpu_data(s->c) : NULL, &s->count);
}

/* mgpu.unique(keys [, {values, counts}]) -> u [, uv] [, c] */
int lmgpu_unique(lua_State *L) {
  static const char *const names[] = {"values", "counts", NULL};
  lua_settop(L, 2);
  l_frame *f = lmgpu_begin(L, "mgpu.unique");
  unique_call s = {0};
  s.keys = lmgpu_arg_array(f, 1, "keys");
  const int opts = lmgpu_options(f, 2, names);
  s.vals = lmgpu_opt_field_array(f, opts, "values", "values");
  if (s.vals) {
    lmgpu_check_same_context(f, s.keys, s.vals, "keys", "values");
    if (s.vals->n != s.keys->n)
      lmgpu_error(f, "values has %I elements, keys has %I",
                  (lua_Integer)s.vals->n, (lua_Integer)s.keys->n);
  }
  const int counts = lmgpu_opt_boolean(f, opts, "counts", 0);
  const size_t n = s.keys->n;
  s.u = lmgpu_new_like(f, 1, s.keys, n, s.keys->dtype);
  const int u_idx = lua_gettop(L);
  int uv_idx = 0, c_idx = 0;
  if (s.vals) {
    s.uv = lmgpu_new_like(f, 1, s.keys, n, s.vals->dtype);
    uv_idx = lua_gettop(L);
  }
  if (counts) {
    /* a run may be as long as the keys */
    s.c = lmgpu_new_like(f, 1, s.keys, n, mgpu_index_type(n));
    c_idx = lua_gettop(L);
  }
  mgpu_context *ctx = lmgpu_ctx(s.keys);
  lmgpu_check_status(f, ctx, lmgpu_retry(f, ctx, unique_run, &s));
  lmgpu_fit_result(f, u_idx, s.u, s.count);
  if (s.uv) lmgpu_fit_result(f, uv_idx, s.uv, s.count);
  if (s.c) lmgpu_fit_result(f, c_idx, s.c, s.count);
  lua_pushvalue(L, u_idx);
  int results = 1;
  if (uv_idx) lua_pushvalue(L, uv_idx), results++;
  if (c_idx) lua_pushvalue(L, c_idx), results++;
  return results;
}

typedef struct compact_call {
  l_array *data, *flags, *vals, *out, *ov;
  size_t count;
} compact_call;

static mgpu_status compact_run(mgpu_context *ctx, void *arg) {
  compact_call *s = arg;
  return mgpu_compact(ctx, mgpu_dtype_size(s->data->dtype), lmgpu_data(s->data),
                      s->data->n, s->flags->dtype, lmgpu_data(s->flags),
                      s->vals ? mgpu_dtype_size(s->vals->dtype) : 0,
                      s->vals ? lmgpu_data(s->vals) : NULL, lmgpu_data(s->out),
                      s->ov ? lmgpu_data(s->ov) : NULL, &s->count);
}

/* mgpu.compact(data, flags [, {values}]) -> out [, ov] */
int lmgpu_compact(lua_State *L) {
  static const char *const names[] = {"values", NULL};
  lua_settop(L, 3);
  l_frame *f = lmgpu_begin(L, "mgpu.compact");
  compact_call s = {0};
  s.data = lmgpu_arg_array(f, 1, "data");
  s.flags = lmgpu_arg_array(f, 2, "flags");
  lmgpu_check_same_context(f, s.data, s.flags, "data", "flags");
  if (mgpu_dtype_is_float(s.flags->dtype))
    lmgpu_error(f, "flags must have an integer dtype (got %s)",
                mgpu_dtype_name(s.flags->dtype));
  if (s.flags->n != s.data->n)
    lmgpu_error(f, "flags has %I elements, data has %I",
                (lua_Integer)s.flags->n, (lua_Integer)s.data->n);
  const int opts = lmgpu_options(f, 3, names);
  s.vals = lmgpu_opt_field_array(f, opts, "values", "values");
  if (s.vals) {
    lmgpu_check_same_context(f, s.data, s.vals, "data", "values");
    if (s.vals->n != s.data->n)
      lmgpu_error(f, "values has %I elements, data has %I",
                  (lua_Integer)s.vals->n, (lua_Integer)s.data->n);
  }
  const size_t n = s.data->n;
  s.out = lmgpu_new_like(f, 1, s.data, n, s.data->dtype);
  const int out_idx = lua_gettop(L);
  int ov_idx = 0;
  if (s.vals) {
    s.ov = lmgpu_new_like(f, 1, s.data, n, s.vals->dtype);
    ov_idx = lua_gettop(L);
  }
  mgpu_context *ctx = lmgpu_ctx(s.data);
  lmgpu_check_status(f, ctx, lmgpu_retry(f, ctx, compact_run, &s));
  lmgpu_fit_result(f, out_idx, s.out, s.count);
  if (s.ov) lmgpu_fit_result(f, ov_idx, s.ov, s.count);
  lua_pushvalue(L, out_idx);
  if (!ov_idx) return 1;
  lua_pushvalue(L, ov_idx);
  return 2;
}
