/*
 * lmgpu_bulk.c - bulk_remove, bulk_insert, the interval operations and
 * load_balance.  Their index-like arguments (arrays of an integer dtype or
 * Lua tables, 1-based) are checked and converted to 0-based int32 arrays by
 * the backend (mgpu_prepare_positions, mgpu_scan_counts,
 * mgpu_prepare_starts); the errors name the first offending position.
 */
#include "lmgpu.h"

typedef struct call {
  const char *fn;
  int ctx_idx; /* stack index of the context object of the call */
  mgpu_context *ctx;
} call;

/* Starts a call on the context of the array at idx. */
static call begin(lua_State *L, int idx, const char *fn, const char *arg,
                  l_array **a) {
  call c;
  c.fn = fn;
  *a = lmgpu_check_array(L, idx, fn, arg);
  lua_getiuservalue(L, idx, 1);
  c.ctx_idx = lua_gettop(L);
  c.ctx = (*a)->st->ctx;
  return c;
}

static void same_context(lua_State *L, const call *c, const l_array *x,
                         const char *arg) {
  if (x->st->ctx != c->ctx)
    luaL_error(L, "%s: %s belongs to another context (%s) than the call's (%s)",
               c->fn, arg, mgpu_context_device(x->st->ctx),
               mgpu_context_device(c->ctx));
}

/* The index-like argument at idx as an integer mgpu.array on the call's
 * context: an array as it is, a Lua table uploaded as i64.  Pushes it. */
static l_array *index_argument(lua_State *L, const call *c, int idx,
                               const char *arg) {
  if (lua_istable(L, idx)) {
    size_t m = lua_rawlen(L, idx);
    if (m > MGPU_MAX_COUNT)
      luaL_error(L, "%s: %s has too many elements", c->fn, arg);
    int64_t *host = lua_newuserdatauv(L, m * sizeof *host, 0);
    for (size_t i = 0; i < m; i++) {
      lua_rawgeti(L, idx, (lua_Integer)(i + 1));
      int ok = 0;
      lua_Integer v = lua_tointegerx(L, -1, &ok);
      if (!ok || lua_type(L, -1) != LUA_TNUMBER) /* as mgpu.array: no strings */
        luaL_error(L, "%s: %s[%I] must be an integer (got %s)", c->fn, arg,
                   (lua_Integer)(i + 1),
                   lua_type(L, -1) == LUA_TNUMBER ? luaL_tolstring(L, -1, NULL)
                                                  : luaL_typename(L, -1));
      host[i] = v;
      lua_pop(L, 1);
    }
    l_array *a = lmgpu_new_array(L, c->ctx_idx, m, MGPU_I64, c->fn);
    lmgpu_check_status(L, c->ctx, mgpu_upload(c->ctx, lmgpu_data(a), host,
                                              m * sizeof *host),
                       c->fn);
    lua_remove(L, -2); /* the host staging */
    return a;
  }
  l_array *a = lmgpu_check_array(L, idx, c->fn, arg);
  same_context(L, c, a, arg);
  if (mgpu_dtype_is_float(a->dtype))
    luaL_error(L, "%s: %s must have an integer dtype (got %s)", c->fn, arg,
               mgpu_dtype_name(a->dtype));
  lua_pushvalue(L, idx);
  return a;
}

/* Sorted 1-based positions in [lo, hi] -> a new 0-based int32 array
 * (pushed).  `rule` completes "<arg> must be ...". */
static l_array *positions(lua_State *L, const call *c, int idx,
                          const char *arg, int64_t lo, int64_t hi, int unique,
                          const char *rule) {
  l_array *src = index_argument(L, c, idx, arg);
  l_array *dst = lmgpu_new_array(L, c->ctx_idx, src->n, MGPU_I32, c->fn);
  int64_t bad, bad_value;
  mgpu_status s = mgpu_prepare_positions(c->ctx, lmgpu_data(src), src->dtype,
                                         src->n, lo, hi, unique,
                                         lmgpu_data(dst), &bad, &bad_value);
  if (s == MGPU_EINVAL && bad >= 0)
    luaL_error(L, "%s: %s must be %s and in %I..%I (got %I at position %I)",
               c->fn, arg, rule, (lua_Integer)lo, (lua_Integer)hi,
               (lua_Integer)bad_value, (lua_Integer)(bad + 1));
  lmgpu_check_status(L, c->ctx, s, c->fn);
  lua_remove(L, -2); /* the source */
  return dst;
}

l_array *lmgpu_positions(lua_State *L, int ctx_idx, int idx, const char *fn,
                         const char *arg, int64_t lo, int64_t hi, int unique,
                         const char *rule) {
  call c;
  c.fn = fn;
  c.ctx_idx = lua_absindex(L, ctx_idx);
  l_context *lc = lmgpu_test_context(L, c.ctx_idx);
  if (!lc) luaL_error(L, "%s: the context has been closed", fn);
  c.ctx = lc->ctx;
  return positions(L, &c, lua_absindex(L, idx), arg, lo, hi, unique, rule);
}

typedef struct scan_request {
  l_array *counts, *scan;
  int64_t total, bad, bad_value;
} scan_request;

static mgpu_status scan_op(mgpu_context *ctx, void *arg) {
  scan_request *r = arg;
  return mgpu_scan_counts(ctx, lmgpu_data(r->counts), r->counts->dtype,
                          r->counts->n, lmgpu_data(r->scan), &r->total,
                          &r->bad, &r->bad_value);
}

/* counts -> their exclusive scan as a new int32 array (pushed); *total. */
static l_array *scanned_counts(lua_State *L, const call *c, int idx,
                               int64_t *total) {
  scan_request r;
  r.counts = index_argument(L, c, idx, "counts");
  r.scan = lmgpu_new_array(L, c->ctx_idx, r.counts->n, MGPU_I32, c->fn);
  mgpu_status s = lmgpu_retry(L, c->ctx, scan_op, &r);
  if (s == MGPU_EINVAL && r.bad >= 0)
    luaL_error(L, "%s: counts must not be negative (got %I at position %I)",
               c->fn, (lua_Integer)r.bad_value, (lua_Integer)(r.bad + 1));
  if (s == MGPU_ETOOBIG)
    luaL_error(L, "%s: counts add up to %I, past the limit of %I elements",
               c->fn, (lua_Integer)r.total, (lua_Integer)MGPU_MAX_COUNT);
  lmgpu_check_status(L, c->ctx, s, c->fn);
  lua_remove(L, -2);
  *total = r.total;
  return r.scan;
}

/* One element of an int32 device array. */
static int64_t element_i32(lua_State *L, const call *c, const l_array *a,
                           size_t i) {
  int32_t v = 0;
  lmgpu_check_status(L, c->ctx,
                     mgpu_download(c->ctx, &v, (int32_t *)lmgpu_data(a) + i,
                                   sizeof v),
                     c->fn);
  return v;
}

/* Interval starts (1-based) -> a new 0-based int32 array (pushed), each
 * interval checked to fit in `limit` elements of `target` (limit < 0: no
 * array yet; *max_end is then the length it needs). */
static l_array *starts(lua_State *L, const call *c, int idx, const char *arg,
                       const l_array *scan, int64_t total, int64_t limit,
                       const char *target, int64_t *max_end) {
  l_array *src = index_argument(L, c, idx, arg);
  if (src->n != scan->n)
    luaL_error(L, "%s: %s has %I elements, counts has %I", c->fn, arg,
               (lua_Integer)src->n, (lua_Integer)scan->n);
  l_array *dst = lmgpu_new_array(L, c->ctx_idx, src->n, MGPU_I32, c->fn);
  int64_t bad, bad_value;
  mgpu_status s = mgpu_prepare_starts(c->ctx, lmgpu_data(src), src->dtype,
                                      lmgpu_data(scan), scan->n, (size_t)total,
                                      limit, lmgpu_data(dst), &bad, &bad_value,
                                      max_end);
  if (s == MGPU_EINVAL && bad >= 0) {
    if (bad_value < 1)
      luaL_error(L, "%s: %s[%I] must be at least 1 (got %I)", c->fn, arg,
                 (lua_Integer)(bad + 1), (lua_Integer)bad_value);
    int64_t next = (size_t)bad + 1 < scan->n
                       ? element_i32(L, c, scan, (size_t)bad + 1) : total;
    int64_t count = next - element_i32(L, c, scan, (size_t)bad);
    if (limit >= 0)
      luaL_error(L, "%s: %s[%I] = %I with counts[%I] = %I runs past the end "
                    "of %s (%I elements)",
                 c->fn, arg, (lua_Integer)(bad + 1), (lua_Integer)bad_value,
                 (lua_Integer)(bad + 1), (lua_Integer)count, target,
                 (lua_Integer)limit);
    luaL_error(L, "%s: %s[%I] = %I with counts[%I] = %I reaches past element "
                  "%I",
               c->fn, arg, (lua_Integer)(bad + 1), (lua_Integer)bad_value,
               (lua_Integer)(bad + 1), (lua_Integer)count,
               (lua_Integer)MGPU_MAX_COUNT);
  }
  lmgpu_check_status(L, c->ctx, s, c->fn);
  lua_remove(L, -2);
  return dst;
}

/* The `out` option of interval_scatter/interval_move, or NULL. */
static l_array *out_option(lua_State *L, const call *c, int idx,
                           const l_array *input) {
  static const char *const names[] = {"out", NULL};
  if (!lmgpu_options(L, idx, c->fn, names)) return NULL;
  lua_getfield(L, idx, "out");
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return NULL;
  }
  l_array *out = lmgpu_check_array(L, -1, c->fn, "out");
  lua_pop(L, 1); /* still referenced by the options table */
  same_context(L, c, out, "out");
  if (out->dtype != input->dtype)
    luaL_error(L, "%s: out has dtype %s, input has %s", c->fn,
               mgpu_dtype_name(out->dtype), mgpu_dtype_name(input->dtype));
  if (lmgpu_overlap(out, input))
    luaL_error(L, "%s: out overlaps input", c->fn);
  return out;
}

static size_t width_of(const l_array *a) { return mgpu_dtype_size(a->dtype); }

/* ---- the operations, each retried once after a collection on OOM ------- */

typedef struct op_request {
  l_array *data, *index, *values, *out, *scan, *gather, *scatter;
  int64_t total;
} op_request;

static mgpu_status remove_op(mgpu_context *ctx, void *arg) {
  op_request *r = arg;
  return mgpu_bulk_remove(ctx, width_of(r->data), lmgpu_data(r->data),
                          r->data->n, lmgpu_data(r->index), r->index->n,
                          lmgpu_data(r->out));
}

static mgpu_status insert_op(mgpu_context *ctx, void *arg) {
  op_request *r = arg;
  return mgpu_bulk_insert(ctx, width_of(r->data), lmgpu_data(r->data),
                          r->data->n, lmgpu_data(r->index),
                          lmgpu_data(r->values), r->index->n,
                          lmgpu_data(r->out));
}

static mgpu_status expand_op(mgpu_context *ctx, void *arg) {
  op_request *r = arg;
  return mgpu_interval_expand(ctx, width_of(r->values), lmgpu_data(r->values),
                              lmgpu_data(r->scan), r->scan->n,
                              (size_t)r->total, lmgpu_data(r->out));
}

static mgpu_status move_op(mgpu_context *ctx, void *arg) {
  op_request *r = arg;
  return mgpu_interval_move(ctx, width_of(r->data), lmgpu_data(r->data),
                            r->data->n,
                            r->gather ? lmgpu_data(r->gather) : NULL,
                            r->scatter ? lmgpu_data(r->scatter) : NULL,
                            lmgpu_data(r->scan), r->scan->n, (size_t)r->total,
                            lmgpu_data(r->out), r->out->n);
}

static mgpu_status load_balance_op(mgpu_context *ctx, void *arg) {
  op_request *r = arg;
  return mgpu_load_balance(ctx, lmgpu_data(r->scan), r->scan->n,
                           (size_t)r->total, 1, lmgpu_data(r->out));
}

static void run(lua_State *L, const call *c,
                mgpu_status (*op)(mgpu_context *, void *), op_request *r) {
  lmgpu_check_status(L, c->ctx, lmgpu_retry(L, c->ctx, op, r), c->fn);
}

/* A new zero-filled array of n elements of dtype t (pushed). */
static l_array *zeros(lua_State *L, const call *c, size_t n, mgpu_dtype t) {
  l_array *a = lmgpu_new_array(L, c->ctx_idx, n, t, c->fn);
  uint64_t zero = 0;
  lmgpu_check_status(L, c->ctx, mgpu_fill(c->ctx, lmgpu_data(a), n, t, &zero),
                     c->fn);
  return a;
}

/* mgpu.bulk_remove(data, indices) */
int lmgpu_bulk_remove(lua_State *L) {
  lua_settop(L, 2); /* the call pushes its context after the arguments */
  op_request r = {0};
  call c = begin(L, 1, "mgpu.bulk_remove", "data", &r.data);
  r.index = positions(L, &c, 2, "indices", 1, (int64_t)r.data->n, 1,
                      "sorted, unique");
  r.out = lmgpu_new_array(L, c.ctx_idx, r.data->n - r.index->n, r.data->dtype,
                          c.fn);
  run(L, &c, remove_op, &r);
  return 1;
}

/* mgpu.bulk_insert(data, positions, values) */
int lmgpu_bulk_insert(lua_State *L) {
  lua_settop(L, 3); /* the call pushes its context after the arguments */
  op_request r = {0};
  call c = begin(L, 1, "mgpu.bulk_insert", "data", &r.data);
  r.values = lmgpu_check_array(L, 3, c.fn, "values");
  same_context(L, &c, r.values, "values");
  if (r.values->dtype != r.data->dtype)
    luaL_error(L, "%s: values has dtype %s, data has %s", c.fn,
               mgpu_dtype_name(r.values->dtype), mgpu_dtype_name(r.data->dtype));
  r.index = positions(L, &c, 2, "positions", 1, (int64_t)r.data->n + 1, 0,
                      "sorted");
  if (r.index->n != r.values->n)
    luaL_error(L, "%s: values has %I elements, positions has %I", c.fn,
               (lua_Integer)r.values->n, (lua_Integer)r.index->n);
  if (r.data->n + r.values->n > MGPU_MAX_COUNT)
    luaL_error(L, "%s: the result would have %I elements, past the limit of %I",
               c.fn, (lua_Integer)(r.data->n + r.values->n),
               (lua_Integer)MGPU_MAX_COUNT);
  r.out = lmgpu_new_array(L, c.ctx_idx, r.data->n + r.values->n, r.data->dtype,
                          c.fn);
  run(L, &c, insert_op, &r);
  return 1;
}

/* mgpu.interval_expand(values, counts) */
int lmgpu_interval_expand(lua_State *L) {
  lua_settop(L, 2); /* the call pushes its context after the arguments */
  op_request r = {0};
  call c = begin(L, 1, "mgpu.interval_expand", "values", &r.values);
  r.scan = scanned_counts(L, &c, 2, &r.total);
  if (r.scan->n != r.values->n)
    luaL_error(L, "%s: counts has %I elements, values has %I", c.fn,
               (lua_Integer)r.scan->n, (lua_Integer)r.values->n);
  r.out = lmgpu_new_array(L, c.ctx_idx, (size_t)r.total, r.values->dtype, c.fn);
  run(L, &c, expand_op, &r);
  return 1;
}

/* mgpu.interval_gather(input, gather, counts) */
int lmgpu_interval_gather(lua_State *L) {
  lua_settop(L, 3); /* the call pushes its context after the arguments */
  op_request r = {0};
  int64_t max_end;
  call c = begin(L, 1, "mgpu.interval_gather", "input", &r.data);
  r.scan = scanned_counts(L, &c, 3, &r.total);
  r.gather = starts(L, &c, 2, "gather", r.scan, r.total, (int64_t)r.data->n,
                    "input", &max_end);
  r.out = lmgpu_new_array(L, c.ctx_idx, (size_t)r.total, r.data->dtype, c.fn);
  run(L, &c, move_op, &r);
  return 1;
}

/* mgpu.interval_scatter(input, scatter, counts [, {out = array}]) */
int lmgpu_interval_scatter(lua_State *L) {
  lua_settop(L, 4); /* the call pushes its context after the arguments */
  op_request r = {0};
  int64_t max_end;
  call c = begin(L, 1, "mgpu.interval_scatter", "input", &r.data);
  l_array *out = out_option(L, &c, 4, r.data);
  r.scan = scanned_counts(L, &c, 3, &r.total);
  if ((size_t)r.total > r.data->n)
    luaL_error(L, "%s: counts add up to %I but input has %I elements", c.fn,
               (lua_Integer)r.total, (lua_Integer)r.data->n);
  r.scatter = starts(L, &c, 2, "scatter", r.scan, r.total,
                     out ? (int64_t)out->n : -1, "out", &max_end);
  if (out) {
    lua_getfield(L, 4, "out");
    r.out = out;
  } else {
    r.out = zeros(L, &c, (size_t)max_end, r.data->dtype);
  }
  run(L, &c, move_op, &r);
  return 1;
}

/* mgpu.interval_move(input, gather, scatter, counts [, {out = array}]) */
int lmgpu_interval_move(lua_State *L) {
  lua_settop(L, 5); /* the call pushes its context after the arguments */
  op_request r = {0};
  int64_t max_end, unused;
  call c = begin(L, 1, "mgpu.interval_move", "input", &r.data);
  l_array *out = out_option(L, &c, 5, r.data);
  r.scan = scanned_counts(L, &c, 4, &r.total);
  r.gather = starts(L, &c, 2, "gather", r.scan, r.total, (int64_t)r.data->n,
                    "input", &unused);
  r.scatter = starts(L, &c, 3, "scatter", r.scan, r.total,
                     out ? (int64_t)out->n : -1, "out", &max_end);
  if (out) {
    lua_getfield(L, 5, "out");
    r.out = out;
  } else {
    r.out = zeros(L, &c, (size_t)max_end, r.data->dtype);
  }
  run(L, &c, move_op, &r);
  return 1;
}

/* mgpu.load_balance(counts) -> for each output, its 1-based interval */
int lmgpu_load_balance(lua_State *L) {
  lua_settop(L, 1); /* the call pushes its context after the arguments */
  op_request r = {0};
  call c;
  c.fn = "mgpu.load_balance";
  if (lua_istable(L, 1)) {
    /* a Lua table of counts: the default context */
    lmgpu_push_default_context(L);
    c.ctx = lmgpu_test_context(L, -1)->ctx;
  } else {
    l_array *counts = lmgpu_check_array(L, 1, c.fn, "counts");
    lua_getiuservalue(L, 1, 1);
    c.ctx = counts->st->ctx;
  }
  c.ctx_idx = lua_gettop(L);
  r.scan = scanned_counts(L, &c, 1, &r.total);
  r.out = lmgpu_new_array(L, c.ctx_idx, (size_t)r.total, MGPU_I32, c.fn);
  run(L, &c, load_balance_op, &r);
  return 1;
}
