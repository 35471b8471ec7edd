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
    return mgpu_segsort(ctx, s->keys->dtype, s->order, lmgpu_data(s->keys),
                        s->keys->n, vs, v,
                        s->heads ? lmgpu_data(s->heads) : NULL,
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
static int sort_common(lua_State *L, segsort_call *s, int opts,
                       const char *fn) {
  if (opts) {
    lua_getfield(L, opts, "comp");
    s->order = lmgpu_check_order(L, -1, fn);
    lua_pop(L, 1);
    s->want_stats = lmgpu_opt_boolean(L, opts, "stats", 0, fn);
    s->vals = lmgpu_opt_array(L, opts, "values", fn, "values");
    if (s->vals) {
      lmgpu_check_same_context(L, s->keys, s->vals, fn, "keys", "values");
      if (s->vals->n != s->keys->n)
        luaL_error(L, "%s: values has %I elements, keys has %I", fn,
                   (lua_Integer)s->vals->n, (lua_Integer)s->keys->n);
      lmgpu_check_no_overlap(L, s->vals, s->keys, fn, "values", "keys");
    }
  } else {
    lua_pushnil(L);
  }
  int vals_idx = lua_gettop(L);
  mgpu_context *ctx = s->keys->st->ctx;
  lmgpu_check_status(L, ctx, lmgpu_retry(L, ctx, segsort_run, s), fn);
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
  static const char *const names[] = {"values", "comp", "stable", "stats",
                                      "flags", NULL};
  const char *fn = "mgpu.segsort";
  segsort_call s = {0};
  s.segmented = 1;
  s.keys = lmgpu_check_array(L, 1, fn, "keys");
  const int opts = lmgpu_options(L, 3, fn, names);
  lua_settop(L, 3);
  (void)lmgpu_opt_boolean(L, opts, "stable", 1, fn); /* always stable */
  lua_getiuservalue(L, 1, 1);
  int ctx_idx = lua_gettop(L);
  if (opts) {
    s.flags = lmgpu_opt_array(L, opts, "flags", fn, "flags");
    if (s.flags) {
      if (!lua_isnil(L, 2))
        luaL_error(L, "%s: give heads or flags, not both", fn);
      lmgpu_check_same_context(L, s.keys, s.flags, fn, "keys", "flags");
      if (mgpu_dtype_is_float(s.flags->dtype))
        luaL_error(L, "%s: flags must have an integer dtype (got %s)", fn,
                   mgpu_dtype_name(s.flags->dtype));
      if (s.flags->n != s.keys->n)
        luaL_error(L, "%s: flags has %I elements, keys has %I", fn,
                   (lua_Integer)s.flags->n, (lua_Integer)s.keys->n);
    }
  }
  if (!s.flags) {
    if (lua_isnil(L, 2))
      luaL_error(L, "%s: heads must be an mgpu.array or a table of 1-based "
                    "segment starts (or pass nil and {flags = f})",
                 fn);
    if (!lua_istable(L, 2) && !luaL_testudata(L, 2, LMGPU_ARRAY))
      luaL_error(L, "%s: heads must be an mgpu.array or a table (got %s)", fn,
                 luaL_typename(L, 2));
    s.heads = lmgpu_positions(L, ctx_idx, 2, fn, "heads", 1,
                              (int64_t)s.keys->n, 1, "sorted, unique");
  }
  return sort_common(L, &s, opts, fn);
}

/* mgpu.locality_sort(keys [, {values, comp, stats}]) */
int lmgpu_locality_sort(lua_State *L) {
  static const char *const names[] = {"values", "comp", "stats", NULL};
  const char *fn = "mgpu.locality_sort";
  segsort_call s = {0};
  s.keys = lmgpu_check_array(L, 1, fn, "keys");
  const int opts = lmgpu_options(L, 2, fn, names);
  lua_settop(L, 2);
  return sort_common(L, &s, opts, fn);
}
