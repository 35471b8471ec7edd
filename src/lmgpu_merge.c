/* lmgpu_merge.c - mgpu.merge and mgpu.mergesort. */
#include "lmgpu.h"

/* Arrays in one call must share a context: they share a stream. */
void lmgpu_check_same_context(lua_State *L, const l_array *a, const l_array *b,
                               const char *fn, const char *an, const char *bn) {
  if (!lmgpu_same_context(a, b))
    luaL_error(L, "%s: %s and %s belong to different contexts (%s and %s)", fn,
               an, bn, mgpu_context_device(a->st->ctx),
               mgpu_context_device(b->st->ctx));
}

void lmgpu_check_no_overlap(lua_State *L, const l_array *out, const l_array *in,
                             const char *fn, const char *on, const char *in_name) {
  if (in && lmgpu_overlap(out, in))
    luaL_error(L, "%s: %s overlaps %s (outputs must not share memory with "
                  "inputs)", fn, on, in_name);
}

/* Pushes opts[field] and returns its array (or NULL when absent).  `arg`
 * names it in errors. */
l_array *lmgpu_opt_array(lua_State *L, int opts, const char *field,
                          const char *fn, const char *arg) {
  if (!opts) return NULL;
  lua_getfield(L, opts, field);
  if (lua_isnil(L, -1)) return NULL;
  return lmgpu_check_array(L, -1, fn, arg);
}

/* An output given by the caller, or a new array on a's context. */
static l_array *output(lua_State *L, l_array *given, int like_idx, size_t n,
                       mgpu_dtype t, const char *fn, const char *name) {
  if (given) {
    if (given->dtype != t)
      luaL_error(L, "%s: %s has dtype %s, expected %s", fn, name,
                 mgpu_dtype_name(given->dtype), mgpu_dtype_name(t));
    if (given->n != n)
      luaL_error(L, "%s: %s has %I elements, expected %I", fn, name,
                 (lua_Integer)given->n, (lua_Integer)n);
    lua_pushvalue(L, -1); /* opt_array left it on top */
    return given;
  }
  lua_getiuservalue(L, like_idx, 1);
  l_array *o = lmgpu_new_array(L, -1, n, t, fn);
  lua_remove(L, -2);
  return o;
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
  static const char *const names[] = {"values", "comp", "out", "out_values", NULL};
  const char *fn = "mgpu.merge";
  merge_call m = {0};
  m.a = lmgpu_check_array(L, 1, fn, "a");
  m.b = lmgpu_check_array(L, 2, fn, "b");
  lmgpu_check_same_context(L, m.a, m.b, fn, "a", "b");
  if (m.a->dtype != m.b->dtype)
    luaL_error(L, "%s: b has dtype %s, a has %s", fn, mgpu_dtype_name(m.b->dtype),
               mgpu_dtype_name(m.a->dtype));
  int opts = lmgpu_options(L, 3, fn, names);
  lua_settop(L, 3);
  if (opts) {
    lua_getfield(L, opts, "comp");
    m.order = lmgpu_check_order(L, -1, fn);
    lua_getfield(L, opts, "values");
    if (!lua_isnil(L, -1)) {
      if (!lua_istable(L, -1))
        luaL_error(L, "%s: values must be a table {av, bv} (got %s)", fn,
                   luaL_typename(L, -1));
      int vt = lua_gettop(L);
      lua_rawgeti(L, vt, 1);
      m.av = lmgpu_check_array(L, -1, fn, "values[1]");
      lua_rawgeti(L, vt, 2);
      m.bv = lmgpu_check_array(L, -1, fn, "values[2]");
      lmgpu_check_same_context(L, m.a, m.av, fn, "a", "values[1]");
      lmgpu_check_same_context(L, m.a, m.bv, fn, "a", "values[2]");
      if (m.av->dtype != m.bv->dtype)
        luaL_error(L, "%s: values[2] has dtype %s, values[1] has %s", fn,
                   mgpu_dtype_name(m.bv->dtype), mgpu_dtype_name(m.av->dtype));
      if (m.av->n != m.a->n)
        luaL_error(L, "%s: values[1] has %I elements, a has %I", fn,
                   (lua_Integer)m.av->n, (lua_Integer)m.a->n);
      if (m.bv->n != m.b->n)
        luaL_error(L, "%s: values[2] has %I elements, b has %I", fn,
                   (lua_Integer)m.bv->n, (lua_Integer)m.b->n);
    }
  }
  size_t n = m.a->n + m.b->n;
  if (n > MGPU_MAX_COUNT)
    luaL_error(L, "%s: the result would have %I elements, past the limit of %I",
               fn, (lua_Integer)n, (lua_Integer)MGPU_MAX_COUNT);
  l_array *out = lmgpu_opt_array(L, opts, "out", fn, "out");
  if (out) {
    lmgpu_check_same_context(L, m.a, out, fn, "a", "out");
    lmgpu_check_no_overlap(L, out, m.a, fn, "out", "a");
    lmgpu_check_no_overlap(L, out, m.b, fn, "out", "b");
    lmgpu_check_no_overlap(L, out, m.av, fn, "out", "values[1]");
    lmgpu_check_no_overlap(L, out, m.bv, fn, "out", "values[2]");
  }
  m.c = output(L, out, 1, n, m.a->dtype, fn, "out");
  int c_idx = lua_gettop(L);
  l_array *out_v = lmgpu_opt_array(L, opts, "out_values", fn, "out_values");
  if (out_v && !m.av)
    luaL_error(L, "%s: out_values given without values", fn);
  if (m.av) {
    if (out_v) {
      lmgpu_check_same_context(L, m.a, out_v, fn, "a", "out_values");
      lmgpu_check_no_overlap(L, out_v, m.a, fn, "out_values", "a");
      lmgpu_check_no_overlap(L, out_v, m.b, fn, "out_values", "b");
      lmgpu_check_no_overlap(L, out_v, m.av, fn, "out_values", "values[1]");
      lmgpu_check_no_overlap(L, out_v, m.bv, fn, "out_values", "values[2]");
      lmgpu_check_no_overlap(L, out_v, m.c, fn, "out_values", "out");
    }
    m.cv = output(L, out_v, 1, n, m.av->dtype, fn, "out_values");
  }
  int cv_idx = lua_gettop(L);
  mgpu_context *ctx = m.a->st->ctx;
  lmgpu_check_status(L, ctx, lmgpu_retry(L, ctx, merge_op, &m), fn);
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

/* mgpu.mergesort(keys [, {values = v, comp}]) -> keys [, v], sorted in place */
int lmgpu_mergesort(lua_State *L) {
  static const char *const names[] = {"values", "comp", NULL};
  const char *fn = "mgpu.mergesort";
  sort_call s = {0};
  s.keys = lmgpu_check_array(L, 1, fn, "keys");
  if (lmgpu_options(L, 2, fn, names)) {
    lua_getfield(L, 2, "comp");
    s.order = lmgpu_check_order(L, -1, fn);
    s.vals = lmgpu_opt_array(L, 2, "values", fn, "values");
    if (s.vals) {
      lmgpu_check_same_context(L, s.keys, s.vals, fn, "keys", "values");
      if (s.vals->n != s.keys->n)
        luaL_error(L, "%s: values has %I elements, keys has %I", fn,
                   (lua_Integer)s.vals->n, (lua_Integer)s.keys->n);
      lmgpu_check_no_overlap(L, s.vals, s.keys, fn, "values", "keys");
    }
  }
  int vals_idx = lua_gettop(L);
  mgpu_context *ctx = s.keys->st->ctx;
  lmgpu_check_status(L, ctx, lmgpu_retry(L, ctx, mergesort_op, &s), fn);
  lua_pushvalue(L, 1);
  if (!s.vals) return 1;
  lua_pushvalue(L, vals_idx);
  return 2;
}
