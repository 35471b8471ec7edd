/*
 * lmgpu_keyed.c - mgpu.reduce_by_key, mgpu.segreduce and mgpu.join.
 */
#include <stdlib.h>
#include <string.h>

#include "lmgpu.h"

typedef struct by_key_call {
  l_array *keys, *vals, *k, *r;
  mgpu_reduce_op op;
  size_t count;
} by_key_call;

static mgpu_status by_key_run(mgpu_context *ctx, void *arg) {
  by_key_call *s = arg;
  return mgpu_reduce_by_key(ctx, s->keys->dtype, lmgpu_data(s->keys),
                            s->keys->n, s->vals->dtype, lmgpu_data(s->vals),
                            s->op, lmgpu_data(s->k), lmgpu_data(s->r),
                            &s->count);
}

/* mgpu.reduce_by_key(keys, values [, {op, comp}]) -> k, r */
int lmgpu_reduce_by_key(lua_State *L) {
  static const char *const names[] = {"op", "comp", NULL};
  lua_settop(L, 3);
  l_frame *f = lmgpu_begin(L, "mgpu.reduce_by_key");
  by_key_call s = {0};
  s.keys = lmgpu_arg_array(f, 1, "keys");
  s.vals = lmgpu_arg_array(f, 2, "values");
  lmgpu_check_same_context(f, s.keys, s.vals, "keys", "values");
  if (s.vals->n != s.keys->n)
    lmgpu_error(f, "values has %I elements, keys has %I",
                (lua_Integer)s.vals->n, (lua_Integer)s.keys->n);
  const int opts = lmgpu_options(f, 3, names);
  lmgpu_opt_field(f, opts, "op");
  s.op = lmgpu_check_reduce_op(f, -1);
  /* checked only: both orders have the same runs of equal keys */
  lmgpu_opt_field(f, opts, "comp");
  lmgpu_check_order(f, -1);
  const size_t n = s.keys->n;
  s.k = lmgpu_new_like(f, 1, s.keys, n, s.keys->dtype);
  const int k_idx = lua_gettop(L);
  s.r = lmgpu_new_like(f, 1, s.keys, n, s.vals->dtype);
  const int r_idx = lua_gettop(L);
  mgpu_context *ctx = lmgpu_ctx(s.keys);
  lmgpu_check_status(f, ctx, lmgpu_retry(f, ctx, by_key_run, &s));
  lmgpu_fit_result(f, k_idx, s.k, s.count);
  lmgpu_fit_result(f, r_idx, s.r, s.count);
  lua_pushvalue(L, k_idx);
  lua_pushvalue(L, r_idx);
  return 2;
}

typedef struct segreduce_call {
  l_array *vals, *offsets, *r;
  mgpu_reduce_op op;
  const void *identity;
} segreduce_call;

static mgpu_status segreduce_run(mgpu_context *ctx, void *arg) {
  segreduce_call *s = arg;
  return mgpu_segreduce_idx(ctx, s->vals->dtype, lmgpu_data(s->vals),
                            s->vals->n, lmgpu_data(s->offsets),
                            s->offsets->dtype, s->offsets->n, s->op,
                            s->identity, lmgpu_data(s->r));
}

/* mgpu.segreduce(values, offsets [, {op, identity}]) -> r */
int lmgpu_segreduce(lua_State *L) {
  static const char *const names[] = {"op", "identity", NULL};
  lua_settop(L, 3);
  l_frame *f = lmgpu_begin(L, "mgpu.segreduce");
  segreduce_call s = {0};
  s.vals = lmgpu_arg_array(f, 1, "values");
  if (!lua_istable(L, 2) && !luaL_testudata(L, 2, LMGPU_ARRAY))
    lmgpu_error(f, "offsets must be an mgpu.array or a table (got %s)",
                lmgpu_typename(L, 2));
  const int opts = lmgpu_options(f, 3, names);
  lmgpu_opt_field(f, opts, "op");
  s.op = lmgpu_check_reduce_op(f, -1);
  uint64_t identity; /* one element of any dtype */
  if (lmgpu_opt_field(f, opts, "identity") != LUA_TNIL) {
    lmgpu_to_element(f, -1, s.vals->dtype, &identity, "identity", 0);
    s.identity = &identity;
  }
  lua_getiuservalue(L, 1, 1);
  s.offsets = lmgpu_positions(f, -1, lmgpu_ctx(s.vals), 2, "offsets", 1,
                              (int64_t)s.vals->n + 1, 0, "non-decreasing");
  s.r = lmgpu_new_like(f, 1, s.vals, s.offsets->n, s.vals->dtype);
  const int r_idx = lua_gettop(L);
  mgpu_context *ctx = lmgpu_ctx(s.vals);
  lmgpu_check_status(f, ctx, lmgpu_retry(f, ctx, segreduce_run, &s));
  lua_pushvalue(L, r_idx);
  return 1;
}

typedef struct join_call {
  l_array *a, *b;
  mgpu_order order;
  mgpu_join_kind kind;
  mgpu_dtype index_type;
  void *ia, *ib;
  uint64_t rows;
} join_call;

static mgpu_status join_run(mgpu_context *ctx, void *arg) {
  join_call *s = arg;
  return mgpu_join_new_idx(ctx, s->a->dtype, s->order, s->kind,
                           lmgpu_data(s->a), s->a->n, lmgpu_data(s->b),
                           s->b->n, 1, s->index_type, &s->ia, &s->ib,
                           &s->rows);
}

/* Pushes the two empty result objects (on a's context object) and returns
 * their storages: all that can raise, done before mgpu_join_new takes the
 * memory the storages will hold. */
static void join_results(l_frame *f, mgpu_context *ctx, mgpu_dtype t,
                         l_array **obj, l_storage **st) {
  lua_State *L = f->L;
  lua_getiuservalue(L, 1, 1);
  obj[0] = lmgpu_push_array_object(L, -1, t);
  obj[1] = lmgpu_push_array_object(L, -2, t);
  lua_remove(L, -3);
  st[0] = lmgpu_storage_new(L, ctx, 0);
  st[1] = st[0] ? lmgpu_storage_new(L, ctx, 0) : NULL;
  if (!st[1]) {
    free(st[0]);
    lmgpu_error(f, "out of host memory");
  }
}

/* mgpu.join(a, b [, {kind, comp}]) -> ia, ib (1-based, 0 = none; i32, i64
 * for max(#a, #b) past INT32_MAX: the index dtype rule) */
int lmgpu_join(lua_State *L) {
  static const char *const names[] = {"kind", "comp", NULL};
  static const char *const kinds[] = {"inner", "left", "right", "outer", NULL};
  lua_settop(L, 3);
  l_frame *f = lmgpu_begin(L, "mgpu.join");
  join_call s = {0};
  s.a = lmgpu_arg_array(f, 1, "a");
  s.b = lmgpu_arg_array(f, 2, "b");
  lmgpu_check_same_context(f, s.a, s.b, "a", "b");
  if (s.a->dtype != s.b->dtype)
    lmgpu_error(f, "b has dtype %s, a has %s", mgpu_dtype_name(s.b->dtype),
                mgpu_dtype_name(s.a->dtype));
  const int opts = lmgpu_options(f, 3, names);
  lmgpu_opt_field(f, opts, "comp");
  s.order = lmgpu_check_order(f, -1);
  s.kind = MGPU_JOIN_INNER;
  if (lmgpu_opt_field(f, opts, "kind") != LUA_TNIL) {
    const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    int i = 0;
    while (k && kinds[i] && strcmp(k, kinds[i]) != 0) i++;
    if (!k)
      lmgpu_error(f, "kind must be \"inner\", \"left\", \"right\" or \"outer\" "
                     "(got %s)", lmgpu_describe(L, -1));
    if (!kinds[i])
      lmgpu_error(f, "kind must be \"inner\", \"left\", \"right\" or \"outer\" "
                     "(got \"%s\")", k);
    s.kind = (mgpu_join_kind)i;
  }
  mgpu_context *ctx = lmgpu_ctx(s.a);
  l_array *obj[2];
  l_storage *st[2];
  const size_t longer = s.a->n > s.b->n ? s.a->n : s.b->n;
  /* the largest 1-based index */
  s.index_type = mgpu_index_type((uint64_t)longer);
  join_results(f, ctx, s.index_type, obj, st);
  const mgpu_status r = lmgpu_retry(f, ctx, join_run, &s);
  if (r != MGPU_OK) {
    free(st[0]);
    free(st[1]);
    if (r == MGPU_ETOOBIG && s.rows > MGPU_MAX_COUNT)
      lmgpu_error(f, "the result would have %I rows, past the 32-bit index "
                     "limit of %I",
                  (lua_Integer)s.rows, (lua_Integer)MGPU_MAX_COUNT);
    lmgpu_check_status(f, ctx, r);
  }
  const size_t n = (size_t)s.rows;
  st[0]->ptr = s.ia;
  st[1]->ptr = s.ib;
  st[0]->bytes = st[1]->bytes = n * mgpu_dtype_size(s.index_type);
  lmgpu_array_attach(obj[0], st[0], n);
  lmgpu_array_attach(obj[1], st[1], n);
  /* lmgpu_new_array's collection, after the fact: the size was unknown */
  lmgpu_heap_before_alloc(L, lmgpu_heap(L), 0);
  return 2;
}
