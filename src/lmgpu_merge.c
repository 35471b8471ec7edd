/* lmgpu_merge.c - mgpu.merge, mgpu.mergesort and mgpu.sort. */
#include "lmgpu.h"

/* An output given by the caller (on top of the stack, checked here), or a
 * new array on the context of the array at like_idx (pushed). */
static l_array *output(l_frame *f, l_array *given, int like_idx,
                       const l_array *like, size_t n, mgpu_dtype t,
                       const char *name) {
  if (!given) return lmgpu_new_like(f, like_idx, like, n, t);
  if (given->dtype != t)
    lmgpu_error(f, "%s has dtype %s, expected %s", name,
                mgpu_dtype_name(given->dtype), mgpu_dtype_name(t));
  if (given->n != n)
    lmgpu_error(f, "%s has %I elements, expected %I", name,
                (lua_Integer)given->n, (lua_Integer)n);
  return given;
}

typedef struct merge_call {
  l_array *a, *b, *av, *bv, *c, *cv;
  mgpu_order order;
} merge_call;

static mgpu_status merge_op(mgpu_context *ctx, void *arg) {
  merge_call *m = arg;
  size_t vs = m->av ? mgpu_dtype_size(m->av->dtype) : 0;
  return mgpu_merge(ctx, m->a->dtype, m->order, lmgpu_data(m->a), m->a->n,
                    lmgpu_data(m->b), m->b->n, lmgpu_data(m->c), vs,
                    m->av ? lmgpu_data(m->av) : NULL,
                    m->bv ? lmgpu_data(m->bv) : NULL,
                    m->cv ? lmgpu_data(m->cv) : NULL);
}

/* mgpu.merge(a, b [, {values = {av, bv}, comp, out, out_values}]) */
int lmgpu_merge(lua_State *L) {
  if (luaL_testudata(L, 1, LMGPU_SHARDED)) return lmgpu_sharded_merge(L);
  static const char *const names[] = {"values", "comp", "out", "out_values", NULL};
  lua_settop(L, 3);
  l_frame *f = lmgpu_begin(L, "mgpu.merge");
  merge_call m = {0};
  m.a = lmgpu_arg_array(f, 1, "a");
  m.b = lmgpu_arg_array(f, 2, "b");
  lmgpu_check_same_context(f, m.a, m.b, "a", "b");
  if (m.a->dtype != m.b->dtype)
    lmgpu_error(f, "b has dtype %s, a has %s", mgpu_dtype_name(m.b->dtype),
                mgpu_dtype_name(m.a->dtype));
  int opts = lmgpu_options(f, 3, names);
  lmgpu_opt_field(f, opts, "comp");
  m.order = lmgpu_check_order(f, -1);
  if (lmgpu_opt_field(f, opts, "values") != LUA_TNIL)
    lmgpu_value_pair(f, m.a, m.b, &m.av, &m.bv);
  size_t n = m.a->n + m.b->n, limit = mgpu_context_max_count(lmgpu_ctx(m.a));
  if (n > limit)
    lmgpu_error(f, "the result would have %I elements, past the limit of %I",
                (lua_Integer)n, (lua_Integer)limit);
  l_array *out = lmgpu_opt_field_array(f, opts, "out", "out");
  if (out) {
    lmgpu_check_same_context(f, m.a, out, "a", "out");
    lmgpu_check_no_overlap(f, out, m.a, "out", "a");
    lmgpu_check_no_overlap(f, out, m.b, "out", "b");
    lmgpu_check_no_overlap(f, out, m.av, "out", "values[1]");
    lmgpu_check_no_overlap(f, out, m.bv, "out", "values[2]");
  }
  m.c = output(f, out, 1, m.a, n, m.a->dtype, "out");
  int c_idx = lua_gettop(L);
  l_array *out_v = lmgpu_opt_field_array(f, opts, "out_values", "out_values");
  if (out_v && !m.av) lmgpu_error(f, "out_values given without values");
  if (m.av) {
    if (out_v) {
      lmgpu_check_same_context(f, m.a, out_v, "a", "out_values");
      lmgpu_check_no_overlap(f, out_v, m.a, "out_values", "a");
      lmgpu_check_no_overlap(f, out_v, m.b, "out_values", "b");
      lmgpu_check_no_overlap(f, out_v, m.av, "out_values", "values[1]");
      lmgpu_check_no_overlap(f, out_v, m.bv, "out_values", "values[2]");
      lmgpu_check_no_overlap(f, out_v, m.c, "out_values", "out");
    }
    m.cv = output(f, out_v, 1, m.a, n, m.av->dtype, "out_values");
  }
  int cv_idx = lua_gettop(L);
  mgpu_context *ctx = lmgpu_ctx(m.a);
  lmgpu_check_status(f, ctx, lmgpu_retry(f, ctx, merge_op, &m));
  lua_pushvalue(L, c_idx);
  if (!m.cv) return 1;
  lua_pushvalue(L, cv_idx);
  return 2;
}

typedef struct sort_call {
  l_array *keys, *vals;
  mgpu_order order;
} sort_call;

static mgpu_status mergesort_op(mgpu_context *ctx, void *arg) {
  sort_call *s = arg;
  size_t vs = s->vals ? mgpu_dtype_size(s->vals->dtype) : 0;
  return mgpu_mergesort(ctx, s->keys->dtype, s->order, lmgpu_data(s->keys),
                        s->keys->n, vs, s->vals ? lmgpu_data(s->vals) : NULL);
}

static mgpu_status sort_op(mgpu_context *ctx, void *arg) {
  sort_call *s = arg;
  size_t vs = s->vals ? mgpu_dtype_size(s->vals->dtype) : 0;
  return mgpu_sort(ctx, s->keys->dtype, s->order, lmgpu_data(s->keys),
                   s->keys->n, vs, s->vals ? lmgpu_data(s->vals) : NULL);
}

/* mgpu.mergesort and mgpu.sort(keys [, {values = v, comp}]) -> keys [, v],
 * sorted in place: the same arguments and results, by different kernels. */
static int sort_call_run(lua_State *L, const char *fname,
                         mgpu_status (*op)(mgpu_context *, void *)) {
  static const char *const names[] = {"values", "comp", NULL};
  lua_settop(L, 2);
  l_frame *f = lmgpu_begin(L, fname);
  sort_call s = {0};
  s.keys = lmgpu_arg_array(f, 1, "keys");
  int opts = lmgpu_options(f, 2, names);
  lmgpu_opt_field(f, opts, "comp");
  s.order = lmgpu_check_order(f, -1);
  s.vals = lmgpu_opt_field_array(f, opts, "values", "values");
  int vals_idx = lua_gettop(L);
  if (s.vals) {
    lmgpu_check_same_context(f, s.keys, s.vals, "keys", "values");
    if (s.vals->n != s.keys->n)
      lmgpu_error(f, "values has %I elements, keys has %I",
                  (lua_Integer)s.vals->n, (lua_Integer)s.keys->n);
    lmgpu_check_no_overlap(f, s.vals, s.keys, "values", "keys");
  }
  mgpu_context *ctx = lmgpu_ctx(s.keys);
  lmgpu_check_status(f, ctx, lmgpu_retry(f, ctx, op, &s));
  lua_pushvalue(L, 1);
  if (!s.vals) return 1;
  lua_pushvalue(L, vals_idx);
  return 2;
}

int lmgpu_mergesort(lua_State *L) {
  if (luaL_testudata(L, 1, LMGPU_SHARDED)) return lmgpu_sharded_mergesort(L);
  return sort_call_run(L, "mgpu.mergesort", mergesort_op);
}

int lmgpu_sort(lua_State *L) {
  if (luaL_testudata(L, 1, LMGPU_SHARDED)) return lmgpu_sharded_sort(L);
  return sort_call_run(L, "mgpu.sort", sort_op);
}
