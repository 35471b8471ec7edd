/*
 * lmgpu_bulk.c - bulk_remove, bulk_insert, the interval operations and
 * load_balance.  Their index-like arguments (arrays of an integer dtype or
 * Lua tables, 1-based) are checked and converted to 0-based index arrays
 * by the backend (mgpu_prepare_positions_idx, mgpu_scan_counts_idx,
 * mgpu_prepare_starts_idx); the errors name the first offending position.
 * The index arrays are i32, or i64 where the index dtype rule asks for it
 * and the context takes them (mgpu_context_wide_index: cpu and cuda);
 * elsewhere a call that needs them is an error naming the 32-bit index
 * limit.  Heads and offsets (lmgpu_positions) follow the same rule.
 */
#include "lmgpu.h"

/* A call on one context: the frame, and the context's object (for the
 * arrays the call makes) and C context. */
typedef struct call {
  l_frame *f;
  int ctx_idx;
  mgpu_context *ctx;
} call;

/* Starts a call on the context of the array at idx. */
static call begin(lua_State *L, const char *fn, int idx, const char *arg,
                  l_array **a) {
  call c;
  c.f = lmgpu_begin(L, fn);
  *a = lmgpu_arg_array(c.f, idx, arg);
  lua_getiuservalue(L, idx, 1);
  c.ctx_idx = lua_gettop(L);
  c.ctx = lmgpu_ctx(*a);
  return c;
}

static void same_context(const call *c, const l_array *x, const char *arg) {
  if (lmgpu_ctx(x) != c->ctx)
    lmgpu_error(c->f, "%s belongs to another context (%s) than the call's (%s)",
                arg, mgpu_context_device(lmgpu_ctx(x)),
                mgpu_context_device(c->ctx));
}

static l_array *new_array(const call *c, size_t n, mgpu_dtype t) {
  return lmgpu_new_array(c->f, c->ctx_idx, c->ctx, n, t);
}

/* The index-like argument at idx as an integer mgpu.array on the call's
 * context: an array as it is, a Lua table uploaded as i64.  Pushes it. */
static l_array *index_argument(const call *c, int idx, const char *arg) {
  lua_State *L = c->f->L;
  if (lua_istable(L, idx)) {
    size_t m = lua_rawlen(L, idx);
    if (m > MGPU_MAX_COUNT)
      lmgpu_error(c->f, "%s has %I elements, past the 32-bit index limit of "
                        "%I", arg, (lua_Integer)m, (lua_Integer)MGPU_MAX_COUNT);
    int64_t *host = lua_newuserdatauv(L, m * sizeof *host, 0);
    for (size_t i = 0; i < m; i++) {
      lua_rawgeti(L, idx, (lua_Integer)(i + 1));
      int ok = 0;
      lua_Integer v = lua_tointegerx(L, -1, &ok);
      if (!ok || lua_type(L, -1) != LUA_TNUMBER) /* as mgpu.array: no strings */
        lmgpu_error(c->f, "%s[%I] must be an integer (got %s)", arg,
                    (lua_Integer)(i + 1), lmgpu_describe(L, -1));
      host[i] = v;
      lua_pop(L, 1);
    }
    l_array *a = new_array(c, m, MGPU_I64);
    lmgpu_check_status(c->f, c->ctx, mgpu_upload(c->ctx, lmgpu_data(a), host,
                                                 m * sizeof *host));
    lua_remove(L, -2); /* the host staging */
    return a;
  }
  l_array *a = lmgpu_arg_array(c->f, idx, arg);
  same_context(c, a, arg);
  if (mgpu_dtype_is_float(a->dtype))
    lmgpu_error(c->f, "%s must have an integer dtype (got %s)", arg,
                mgpu_dtype_name(a->dtype));
  lua_pushvalue(L, idx);
  return a;
}

/* The most elements the call's index arrays address: the context's limit
 * where they may be i64 (cpu, cuda), else the 32-bit index limit. */
static size_t index_limit(const call *c) {
  return mgpu_context_wide_index(c->ctx) ? mgpu_context_max_count(c->ctx)
                                         : MGPU_MAX_COUNT;
}

/* Sorted 1-based positions in [lo, hi] -> a new 0-based array (pushed) of
 * the index dtype rule's dtype for hi - 1.  `rule` completes "<arg> must
 * be ...". */
static l_array *positions(const call *c, int idx, const char *arg, int64_t lo,
                          int64_t hi, int unique, const char *rule) {
  const mgpu_dtype t = mgpu_index_type(hi > 0 ? (uint64_t)hi - 1 : 0);
  /* an array past the 32-bit limit has places int32 positions cannot name */
  if (t == MGPU_I64 && !mgpu_context_wide_index(c->ctx))
    lmgpu_error(c->f, "%s may reach %I, past the 32-bit index limit of %I "
                      "(the positions are int32 on %s)",
                arg, (lua_Integer)hi, (lua_Integer)MGPU_MAX_COUNT,
                mgpu_context_backend(c->ctx));
  l_array *src = index_argument(c, idx, arg);
  l_array *dst = new_array(c, src->n, t);
  int64_t bad = -1, bad_value = 0;
  mgpu_status s = mgpu_prepare_positions_idx(c->ctx, lmgpu_data(src),
                                             src->dtype, src->n, lo, hi,
                                             unique, t, lmgpu_data(dst), &bad,
                                             &bad_value);
  if (s == MGPU_EINVAL && bad >= 0)
    lmgpu_error(c->f, "%s must be %s and in %I..%I (got %s at position %I)",
                arg, rule, (lua_Integer)lo, (lua_Integer)hi,
                lmgpu_element_string(c->f, src, (size_t)bad),
                (lua_Integer)(bad + 1));
  lmgpu_check_status(c->f, c->ctx, s);
  lua_remove(c->f->L, -2); /* the source */
  return dst;
}

l_array *lmgpu_positions(l_frame *f, int ctx_idx, mgpu_context *ctx, int idx,
                         const char *arg, int64_t lo, int64_t hi, int unique,
                         const char *rule) {
  call c;
  c.f = f;
  c.ctx_idx = lua_absindex(f->L, ctx_idx);
  c.ctx = ctx;
  return positions(&c, lua_absindex(f->L, idx), arg, lo, hi, unique, rule);
}

typedef struct scan_request {
  l_array *counts, *scan;
  int64_t total, bad, bad_value;
  mgpu_wraps wraps;
} scan_request;

static mgpu_status scan_op(mgpu_context *ctx, void *arg) {
  scan_request *r = arg;
  r->total = 0;
  r->bad = -1;
  r->bad_value = 0;
  if (r->scan->dtype == MGPU_U32)
    return mgpu_scan_counts_wrapped(ctx, lmgpu_data(r->counts),
                                    r->counts->dtype, r->counts->n,
                                    lmgpu_data(r->scan), &r->wraps, &r->total,
                                    &r->bad, &r->bad_value);
  return mgpu_scan_counts_idx(ctx, lmgpu_data(r->counts), r->counts->dtype,
                              r->counts->n, r->scan->dtype,
                              lmgpu_data(r->scan), &r->total, &r->bad,
                              &r->bad_value);
}

/* From this many counts a total past INT32_MAX takes an average count of
 * 8 or less, and interval_expand and load_balance scan into a wrapped scan
 * first: it costs more than the int32 one (its writer reads the count
 * before each start back; an H200, whole calls on 5.4e7 i32 counts:
 * 1.06x), but a total past INT32_MAX costs the int32 pass two more (its
 * exact total, then the wrapped scan). */
#define WRAPPED_FIRST ((size_t)1 << 28)

/* counts -> the scan of their starts as a new array (pushed); *total.
 * int32 while the total fits; past it, for interval_expand and
 * load_balance (wraps not NULL) a wrapped scan (MGPU_U32, with *wraps:
 * half the bytes of an int64 one), for the others and for counts that a
 * wrapped scan cannot hold an int64 one, whose exact total also makes the
 * messages.  The total is only known once summed: a scan that cannot hold
 * it is followed by the next. */
static l_array *scanned_counts(const call *c, int idx, int64_t *total,
                               mgpu_wraps *wraps) {
  lua_State *L = c->f->L;
  const size_t most = index_limit(c);
  const mgpu_dtype wide = most > MGPU_MAX_COUNT ? MGPU_I64 : MGPU_I32;
  scan_request r;
  r.counts = index_argument(c, idx, "counts");
  mgpu_dtype t = wraps && wide == MGPU_I64 && r.counts->n >= WRAPPED_FIRST
                     ? MGPU_U32 : MGPU_I32;
  mgpu_status s;
  for (;;) {
    r.scan = new_array(c, r.counts->n, t);
    s = lmgpu_retry(c->f, c->ctx, scan_op, &r);
    if (t == MGPU_U32 && s == MGPU_OK) {
      if (r.total <= INT32_MAX) {
        r.scan->dtype = MGPU_I32; /* the same bits */
        break;
      }
      if ((uint64_t)r.total <= most) {
        *wraps = r.wraps;
        break;
      }
    } else if (s != MGPU_ETOOBIG || t == wide ||
               (t == MGPU_I32 && (uint64_t)r.total > most)) {
      break; /* done, another error, or a total past any scan's limit */
    }
    t = t == MGPU_I32 && wraps ? MGPU_U32 : wide;
    lua_pop(L, 1);
  }
  if (s == MGPU_EINVAL && r.bad >= 0)
    lmgpu_error(c->f, "counts must not be negative (got %s at position %I)",
                lmgpu_element_string(c->f, r.counts, (size_t)r.bad),
                (lua_Integer)(r.bad + 1));
  if (s == MGPU_ETOOBIG) {
    /* An i32 scan sums the counts capped at 2^31 each, so a sum that
     * reached 2^31 is a lower bound; an i64 one caps at 2^62. */
    const int64_t exact = r.scan->dtype == MGPU_I64 ? (int64_t)1 << 62
                                                    : (int64_t)1 << 31;
    const char *limit = most > MGPU_MAX_COUNT ? "" : "32-bit index ";
    if (r.total >= exact)
      lmgpu_error(c->f, "counts add up to more than %I, the %slimit of "
                        "elements", (lua_Integer)most, limit);
    lmgpu_error(c->f, "counts add up to %I, past the %slimit of %I elements",
                (lua_Integer)r.total, limit, (lua_Integer)most);
  }
  lmgpu_check_status(c->f, c->ctx, s);
  /* before the outputs are allocated: the interval operations walk the
   * intervals and their outputs together (check_intervals in mgpu.c) */
  if ((size_t)r.total > most - r.counts->n)
    lmgpu_error(c->f, "%I counts adding up to %I are past the limit of %I "
                      "intervals and outputs together",
                (lua_Integer)r.counts->n, (lua_Integer)r.total,
                (lua_Integer)most);
  lua_remove(L, -2);
  *total = r.total;
  return r.scan;
}

/* One element of an i32 or i64 device array. */
static int64_t element_index(const call *c, const l_array *a, size_t i) {
  if (a->dtype == MGPU_I64) {
    int64_t v = 0;
    lmgpu_check_status(c->f, c->ctx,
                       mgpu_download(c->ctx, &v, (int64_t *)lmgpu_data(a) + i,
                                     sizeof v));
    return v;
  }
  int32_t v = 0;
  lmgpu_check_status(c->f, c->ctx,
                     mgpu_download(c->ctx, &v, (int32_t *)lmgpu_data(a) + i,
                                   sizeof v));
  return v;
}

/* Interval starts (1-based) -> a new 0-based array (pushed), each interval
 * checked to fit in `limit` elements of `target` (limit < 0: no array yet;
 * *max_end is then the length it needs).  The starts are i32, or i64 by
 * the index dtype rule for limit; without limit, i64 only when an interval
 * ends past INT32_MAX (then they are prepared again). */
static l_array *starts(const call *c, int idx, const char *arg,
                       const l_array *scan, int64_t total, int64_t limit,
                       const char *target, int64_t *max_end) {
  const size_t most = index_limit(c);
  if (limit > (int64_t)most)
    lmgpu_error(c->f, "%s has %I elements, past the 32-bit index limit of %I "
                      "(the starts are int32 on %s)",
                target, (lua_Integer)limit, (lua_Integer)MGPU_MAX_COUNT,
                mgpu_context_backend(c->ctx));
  l_array *src = index_argument(c, idx, arg);
  if (src->n != scan->n)
    lmgpu_error(c->f, "%s has %I elements, counts has %I", arg,
                (lua_Integer)src->n, (lua_Integer)scan->n);
  mgpu_dtype t = limit >= 0 ? mgpu_index_type((uint64_t)limit) : MGPU_I32;
  l_array *dst = new_array(c, src->n, t);
  int64_t bad = -1, bad_value = 0;
  mgpu_status s = mgpu_prepare_starts_idx(
      c->ctx, lmgpu_data(src), src->dtype, lmgpu_data(scan), scan->dtype,
      scan->n, (size_t)total, limit, t, lmgpu_data(dst), &bad, &bad_value,
      max_end);
  if (s == MGPU_EINVAL && bad >= 0 && bad_value >= 1 && limit < 0 &&
      t == MGPU_I32 && most > MGPU_MAX_COUNT) {
    lua_pop(c->f->L, 1);
    t = MGPU_I64;
    dst = new_array(c, src->n, t);
    bad = -1;
    s = mgpu_prepare_starts_idx(c->ctx, lmgpu_data(src), src->dtype,
                                lmgpu_data(scan), scan->dtype, scan->n,
                                (size_t)total, limit, t, lmgpu_data(dst), &bad,
                                &bad_value, max_end);
  }
  if (s == MGPU_EINVAL && bad >= 0) {
    const char *value = lmgpu_element_string(c->f, src, (size_t)bad);
    if (bad_value < 1)
      lmgpu_error(c->f, "%s[%I] must be at least 1 (got %s)", arg,
                  (lua_Integer)(bad + 1), value);
    int64_t next = (size_t)bad + 1 < scan->n
                       ? element_index(c, scan, (size_t)bad + 1) : total;
    int64_t count = next - element_index(c, scan, (size_t)bad);
    if (limit >= 0)
      lmgpu_error(c->f, "%s[%I] = %s with counts[%I] = %I runs past the end "
                        "of %s (%I elements)",
                  arg, (lua_Integer)(bad + 1), value, (lua_Integer)(bad + 1),
                  (lua_Integer)count, target, (lua_Integer)limit);
    lmgpu_error(c->f, "%s[%I] = %s with counts[%I] = %I reaches past element "
                      "%I",
                arg, (lua_Integer)(bad + 1), value, (lua_Integer)(bad + 1),
                (lua_Integer)count, (lua_Integer)most);
  }
  lmgpu_check_status(c->f, c->ctx, s);
  lua_remove(c->f->L, -2);
  return dst;
}

/* The `out` option of interval_scatter/interval_move (pushed), or NULL. */
static l_array *out_option(const call *c, int idx, const l_array *input) {
  static const char *const names[] = {"out", NULL};
  int opts = lmgpu_options(c->f, idx, names);
  l_array *out = lmgpu_opt_field_array(c->f, opts, "out", "out");
  if (!out) {
    lua_pop(c->f->L, 1);
    return NULL;
  }
  same_context(c, out, "out");
  if (out->dtype != input->dtype)
    lmgpu_error(c->f, "out has dtype %s, input has %s",
                mgpu_dtype_name(out->dtype), mgpu_dtype_name(input->dtype));
  if (lmgpu_overlap(out, input)) lmgpu_error(c->f, "out overlaps input");
  return out;
}

static size_t width_of(const l_array *a) { return mgpu_dtype_size(a->dtype); }

/* ---- the operations, each retried once after a collection on OOM ------- */

typedef struct op_request {
  l_array *data, *index, *values, *out, *scan, *gather, *scatter;
  int64_t total;
  mgpu_wraps wraps; /* of a wrapped scan (scanned_counts) */
} op_request;

static mgpu_status remove_op(mgpu_context *ctx, void *arg) {
  op_request *r = arg;
  return mgpu_bulk_remove_idx(ctx, width_of(r->data), lmgpu_data(r->data),
                              r->data->n, lmgpu_data(r->index),
                              r->index->dtype, r->index->n,
                              lmgpu_data(r->out));
}

static mgpu_status insert_op(mgpu_context *ctx, void *arg) {
  op_request *r = arg;
  return mgpu_bulk_insert_idx(ctx, width_of(r->data), lmgpu_data(r->data),
                              r->data->n, lmgpu_data(r->index),
                              r->index->dtype, lmgpu_data(r->values),
                              r->index->n, lmgpu_data(r->out));
}

static mgpu_status expand_op(mgpu_context *ctx, void *arg) {
  op_request *r = arg;
  if (r->scan->dtype == MGPU_U32)
    return mgpu_interval_expand_wrapped(
        ctx, width_of(r->values), lmgpu_data(r->values), lmgpu_data(r->scan),
        &r->wraps, r->scan->n, (size_t)r->total, lmgpu_data(r->out));
  return mgpu_interval_expand_idx(ctx, width_of(r->values),
                                  lmgpu_data(r->values), lmgpu_data(r->scan),
                                  r->scan->dtype, r->scan->n, (size_t)r->total,
                                  lmgpu_data(r->out));
}

static mgpu_status move_op(mgpu_context *ctx, void *arg) {
  op_request *r = arg;
  return mgpu_interval_move_idx(
      ctx, width_of(r->data), lmgpu_data(r->data), r->data->n,
      r->gather ? lmgpu_data(r->gather) : NULL,
      r->gather ? r->gather->dtype : MGPU_I32,
      r->scatter ? lmgpu_data(r->scatter) : NULL,
      r->scatter ? r->scatter->dtype : MGPU_I32, lmgpu_data(r->scan),
      r->scan->dtype, r->scan->n, (size_t)r->total, lmgpu_data(r->out),
      r->out->n);
}

static mgpu_status load_balance_op(mgpu_context *ctx, void *arg) {
  op_request *r = arg;
  if (r->scan->dtype == MGPU_U32)
    return mgpu_load_balance_wrapped(ctx, lmgpu_data(r->scan), &r->wraps,
                                     r->scan->n, (size_t)r->total, 1,
                                     r->out->dtype, lmgpu_data(r->out));
  return mgpu_load_balance_idx(ctx, lmgpu_data(r->scan), r->scan->dtype,
                               r->scan->n, (size_t)r->total, 1, r->out->dtype,
                               lmgpu_data(r->out));
}

static void run(const call *c, mgpu_status (*op)(mgpu_context *, void *),
                op_request *r) {
  lmgpu_check_status(c->f, c->ctx, lmgpu_retry(c->f, c->ctx, op, r));
}

/* A new zero-filled array of n elements of dtype t (pushed). */
static l_array *zeros(const call *c, size_t n, mgpu_dtype t) {
  l_array *a = new_array(c, n, t);
  uint64_t zero = 0;
  lmgpu_check_status(c->f, c->ctx, mgpu_fill(c->ctx, lmgpu_data(a), n, t, &zero));
  return a;
}

/* mgpu.bulk_remove(data, indices) */
int lmgpu_bulk_remove(lua_State *L) {
  lua_settop(L, 2);
  op_request r = {0};
  call c = begin(L, "mgpu.bulk_remove", 1, "data", &r.data);
  r.index = positions(&c, 2, "indices", 1, (int64_t)r.data->n, 1,
                      "sorted, unique");
  r.out = new_array(&c, r.data->n - r.index->n, r.data->dtype);
  run(&c, remove_op, &r);
  return 1;
}

/* mgpu.bulk_insert(data, positions, values) */
int lmgpu_bulk_insert(lua_State *L) {
  lua_settop(L, 3);
  op_request r = {0};
  call c = begin(L, "mgpu.bulk_insert", 1, "data", &r.data);
  r.values = lmgpu_arg_array(c.f, 3, "values");
  same_context(&c, r.values, "values");
  if (r.values->dtype != r.data->dtype)
    lmgpu_error(c.f, "values has dtype %s, data has %s",
                mgpu_dtype_name(r.values->dtype), mgpu_dtype_name(r.data->dtype));
  r.index = positions(&c, 2, "positions", 1, (int64_t)r.data->n + 1, 0,
                      "sorted");
  if (r.index->n != r.values->n)
    lmgpu_error(c.f, "values has %I elements, positions has %I",
                (lua_Integer)r.values->n, (lua_Integer)r.index->n);
  const size_t most = index_limit(&c);
  if (r.data->n + r.values->n > most)
    lmgpu_error(c.f, "the result would have %I elements, past the %slimit "
                     "of %I",
                (lua_Integer)(r.data->n + r.values->n),
                most > MGPU_MAX_COUNT ? "" : "32-bit index ",
                (lua_Integer)most);
  r.out = new_array(&c, r.data->n + r.values->n, r.data->dtype);
  run(&c, insert_op, &r);
  return 1;
}

/* mgpu.interval_expand(values, counts) */
int lmgpu_interval_expand(lua_State *L) {
  lua_settop(L, 2);
  op_request r = {0};
  call c = begin(L, "mgpu.interval_expand", 1, "values", &r.values);
  r.scan = scanned_counts(&c, 2, &r.total, &r.wraps);
  if (r.scan->n != r.values->n)
    lmgpu_error(c.f, "counts has %I elements, values has %I",
                (lua_Integer)r.scan->n, (lua_Integer)r.values->n);
  r.out = new_array(&c, (size_t)r.total, r.values->dtype);
  run(&c, expand_op, &r);
  return 1;
}

/* mgpu.interval_gather(input, gather, counts) */
int lmgpu_interval_gather(lua_State *L) {
  lua_settop(L, 3);
  op_request r = {0};
  int64_t max_end;
  call c = begin(L, "mgpu.interval_gather", 1, "input", &r.data);
  r.scan = scanned_counts(&c, 3, &r.total, NULL);
  r.gather = starts(&c, 2, "gather", r.scan, r.total, (int64_t)r.data->n,
                    "input", &max_end);
  r.out = new_array(&c, (size_t)r.total, r.data->dtype);
  run(&c, move_op, &r);
  return 1;
}

/* The scatter side of interval_scatter and interval_move, and their output:
 * the caller's `out` (which the starts must fit) or a new zero-filled array
 * just long enough. */
static void scatter_output(const call *c, int scatter_idx, l_array *out,
                           int out_idx, op_request *r) {
  int64_t max_end = 0;
  r->scatter = starts(c, scatter_idx, "scatter", r->scan, r->total,
                      out ? (int64_t)out->n : -1, "out", &max_end);
  if (out) {
    lua_pushvalue(c->f->L, out_idx);
    r->out = out;
  } else {
    r->out = zeros(c, (size_t)max_end, r->data->dtype);
  }
}

/* mgpu.interval_scatter(input, scatter, counts [, {out = array}]) */
int lmgpu_interval_scatter(lua_State *L) {
  lua_settop(L, 4);
  op_request r = {0};
  call c = begin(L, "mgpu.interval_scatter", 1, "input", &r.data);
  l_array *out = out_option(&c, 4, r.data);
  int out_idx = lua_gettop(L);
  r.scan = scanned_counts(&c, 3, &r.total, NULL);
  if ((size_t)r.total > r.data->n)
    lmgpu_error(c.f, "counts add up to %I but input has %I elements",
                (lua_Integer)r.total, (lua_Integer)r.data->n);
  scatter_output(&c, 2, out, out_idx, &r);
  run(&c, move_op, &r);
  return 1;
}

/* mgpu.interval_move(input, gather, scatter, counts [, {out = array}]) */
int lmgpu_interval_move(lua_State *L) {
  lua_settop(L, 5);
  op_request r = {0};
  int64_t unused;
  call c = begin(L, "mgpu.interval_move", 1, "input", &r.data);
  l_array *out = out_option(&c, 5, r.data);
  int out_idx = lua_gettop(L);
  r.scan = scanned_counts(&c, 4, &r.total, NULL);
  r.gather = starts(&c, 2, "gather", r.scan, r.total, (int64_t)r.data->n,
                    "input", &unused);
  scatter_output(&c, 3, out, out_idx, &r);
  run(&c, move_op, &r);
  return 1;
}

/* mgpu.load_balance(counts) -> for each output, its 1-based interval */
int lmgpu_load_balance(lua_State *L) {
  lua_settop(L, 1);
  op_request r = {0};
  call c;
  c.f = lmgpu_begin(L, "mgpu.load_balance");
  if (lua_istable(L, 1)) {
    /* a Lua table of counts: the default context */
    c.ctx = lmgpu_push_default_context(c.f);
  } else {
    l_array *counts = lmgpu_arg_array(c.f, 1, "counts");
    lua_getiuservalue(L, 1, 1);
    c.ctx = lmgpu_ctx(counts);
  }
  c.ctx_idx = lua_gettop(L);
  r.scan = scanned_counts(&c, 1, &r.total, &r.wraps);
  /* 1-based interval numbers: the index dtype rule for #counts */
  r.out = new_array(&c, (size_t)r.total, mgpu_index_type(r.scan->n));
  run(&c, load_balance_op, &r);
  return 1;
}
