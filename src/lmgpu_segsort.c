/*
 * lmgpu_segsort.c - mgpu.segsort (by heads or by flags) and
 * mgpu.locality_sort, with their optional pass statistics.
 */
#include "lmgpu.h"

typedef struct segsort_call {
  l_array *keys, *vals, *heads, *flags;
  mgpu_order order;
  int segmented;
  mgpu_sort_stats stats;
  int want_stats;
} segsort_call;

static mgpu_status segsort_run(mgpu_context *ctx, void *arg) {
  segsort_call *s = arg;
  size_t vs = s->vals ? mgpu_dtype_size(s->vals->dtype) : 0;
  void *v = s->vals ? lmgpu_data(s->vals) : NULL;
  mgpu_sort_stats *st = s->want_stats ? &s->stats : NULL;
  if (s->flags)
    return mgpu_segsort_flags(ctx, s->keys->dtype, s->order,
                              lmgpu_data(s->keys), s->keys->n, vs, v,
                              lmgpu_data(s->flags), s->flags->dtype, st);
  if (s->segmented)
    return mgpu_segsort_idx(ctx, s->keys->dtype, s->order,
                            lmgpu_data(s->keys), s->keys->n, vs, v,
                            s->heads ? lmgpu_data(s->heads) : NULL,
                            s->heads ? s->heads->dtype : MGPU_I32,
                            s->heads ? s->heads->n : 0, st);
  return mgpu_locality_sort(ctx, s->keys->dtype, s->order,
                            lmgpu_data(s->keys), s->keys->n, vs, v, st);
}

/* {tiles = T, blocksort_tiles = B, windows = W, {merge = m, copy = c}, ...} */
static void push_stats(lua_State *L, const mgpu_sort_stats *st) {
  lua_createtable(L, st->passes, 3);
  lua_pushinteger(L, (lua_Integer)st->tiles);
  lua_setfield(L, -2, "tiles");
  lua_pushinteger(L, (lua_Integer)st->blocksort_tiles);
  lua_setfield(L, -2, "blocksort_tiles");
  lua_pushinteger(L, (lua_Integer)st->windows);
  lua_setfield(L, -2, "windows");
  for (int p = 0; p < st->passes; p++) {
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, (lua_Integer)st->merge_tiles[p]);
    lua_setfield(L, -2, "merge");
    lua_pushinteger(L, (lua_Integer)st->copy_tiles[p]);
    lua_setfield(L, -2, "copy");
    lua_rawseti(L, -2, p + 1);
  }
}

/* keys at 1, options at opts (0: none); heads/flags already on s. */
static int sort_common(l_frame *f, segsort_call *s, int opts) {
  lua_State *L = f->L;
  lmgpu_opt_field(f, opts, "comp");
  s->order = lmgpu_check_order(f, -1);
  lua_pop(L, 1);
  s->want_stats = lmgpu_opt_boolean(f, opts, "stats", 0);
  s->vals = lmgpu_opt_field_array(f, opts, "values", "values");
  int vals_idx = lua_gettop(L);
  if (s->vals) {
    lmgpu_check_same_context(f, s->keys, s->vals, "keys", "values");
    if (s->vals->n != s->keys->n)
      lmgpu_error(f, "values has %I elements, keys has %I",
                  (lua_Integer)s->vals->n, (lua_Integer)s->keys->n);
    lmgpu_check_no_overlap(f, s->vals, s->keys, "values", "keys");
  }
  mgpu_context *ctx = lmgpu_ctx(s->keys);
  lmgpu_check_status(f, ctx, lmgpu_retry(f, ctx, segsort_run, s));
  lua_pushvalue(L, 1);
  int nret = 1;
  if (s->vals) {
    lua_pushvalue(L, vals_idx);
    nret++;
  }
  if (s->want_stats) {
    push_stats(L, &s->stats);
    nret++;
  }
  return nret;
}

/* mgpu.segsort(keys, heads [, {values, comp, stable, stats}])
 * mgpu.segsort(keys, nil, {flags = f, ...}) */
int lmgpu_segsort(lua_State *L) {
  if (luaL_testudata(L, 1, LMGPU_SHARDED)) return lmgpu_sharded_segsort(L);
  static const char *const names[] = {"values", "comp", "stable", "stats",
                                      "flags", NULL};
  lua_settop(L, 3);
  l_frame *f = lmgpu_begin(L, "mgpu.segsort");
  segsort_call s = {0};
  s.segmented = 1;
  s.keys = lmgpu_arg_array(f, 1, "keys");
  const int opts = lmgpu_options(f, 3, names);
  (void)lmgpu_opt_boolean(f, opts, "stable", 1); /* always stable */
  s.flags = lmgpu_opt_field_array(f, opts, "flags", "flags");
  if (s.flags) {
    if (!lua_isnil(L, 2)) lmgpu_error(f, "give heads or flags, not both");
    lmgpu_check_same_context(f, s.keys, s.flags, "keys", "flags");
    if (mgpu_dtype_is_float(s.flags->dtype))
      lmgpu_error(f, "flags must have an integer dtype (got %s)",
                  mgpu_dtype_name(s.flags->dtype));
    if (s.flags->n != s.keys->n)
      lmgpu_error(f, "flags has %I elements, keys has %I",
                  (lua_Integer)s.flags->n, (lua_Integer)s.keys->n);
  } else {
    if (lua_isnil(L, 2))
      lmgpu_error(f, "heads must be an mgpu.array or a table of 1-based "
                     "segment starts (or pass nil and {flags = f})");
    if (!lua_istable(L, 2) && !luaL_testudata(L, 2, LMGPU_ARRAY))
      lmgpu_error(f, "heads must be an mgpu.array or a table (got %s)",
                  lmgpu_typename(L, 2));
    lua_getiuservalue(L, 1, 1);
    s.heads = lmgpu_positions(f, -1, lmgpu_ctx(s.keys), 2, "heads", 1,
                              (int64_t)s.keys->n, 1, "sorted, unique");
  }
  return sort_common(f, &s, opts);
}

/* mgpu.locality_sort(keys [, {values, comp, stats}]) */
int lmgpu_locality_sort(lua_State *L) {
  static const char *const names[] = {"values", "comp", "stats", NULL};
  lua_settop(L, 2);
  l_frame *f = lmgpu_begin(L, "mgpu.locality_sort");
  segsort_call s = {0};
  s.keys = lmgpu_arg_array(f, 1, "keys");
  const int opts = lmgpu_options(f, 2, names);
  return sort_common(f, &s, opts);
}
