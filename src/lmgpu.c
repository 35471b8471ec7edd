/*
 * lmgpu.c - the module table of mgpu.core, and the helpers every binding
 * function uses: status checks, the out-of-memory retry, options.
 */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <time.h>

#include "lmgpu.h"

void lmgpu_check_status(lua_State *L, mgpu_context *ctx, mgpu_status s,
                        const char *fn) {
  if (s == MGPU_OK) return;
  const char *msg = ctx ? mgpu_context_error(ctx) : "";
  luaL_error(L, "%s: %s", fn, *msg ? msg : mgpu_status_name(s));
}

mgpu_status lmgpu_retry(lua_State *L, mgpu_context *ctx,
                        mgpu_status (*op)(mgpu_context *, void *), void *arg) {
  mgpu_status s = op(ctx, arg);
  if (s != MGPU_ENOMEM) return s;
  /* Lua's collector cannot see device memory: unreachable arrays may be
   * holding what this call needs.  Finalise them, return the pool's cached
   * blocks to the device, and try once more. */
  lua_gc(L, LUA_GCCOLLECT);
  mgpu_context_reclaim(ctx);
  return op(ctx, arg);
}

mgpu_order lmgpu_check_order(lua_State *L, int idx, const char *fn) {
  if (lua_isnoneornil(L, idx)) return MGPU_LESS;
  if (lua_type(L, idx) == LUA_TSTRING) {
    const char *s = lua_tostring(L, idx);
    if (strcmp(s, "less") == 0) return MGPU_LESS;
    if (strcmp(s, "greater") == 0) return MGPU_GREATER;
    luaL_error(L, "%s: comp must be \"less\" or \"greater\" (got \"%s\")", fn, s);
  }
  luaL_error(L, "%s: comp must be \"less\" or \"greater\" (got %s)", fn,
             luaL_typename(L, idx));
  return MGPU_LESS;
}

int lmgpu_options(lua_State *L, int idx, const char *fn,
                  const char *const names[]) {
  idx = lua_absindex(L, idx);
  if (lua_isnoneornil(L, idx)) return 0;
  if (!lua_istable(L, idx))
    luaL_error(L, "%s: options must be a table (got %s)", fn,
               luaL_typename(L, idx));
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    int known = 0;
    if (lua_type(L, -1) == LUA_TSTRING) {
      const char *k = lua_tostring(L, -1);
      for (int i = 0; names[i] && !known; i++) known = strcmp(k, names[i]) == 0;
      if (!known) luaL_error(L, "%s: unknown option '%s'", fn, k);
    } else {
      luaL_error(L, "%s: option names must be strings (got %s)", fn,
                 luaL_typename(L, -1));
    }
  }
  return idx;
}

int lmgpu_opt_boolean(lua_State *L, int opts, const char *field, int dflt,
                      const char *fn) {
  if (!opts) return dflt;
  lua_getfield(L, opts, field);
  int b = dflt;
  if (!lua_isnil(L, -1)) {
    if (!lua_isboolean(L, -1))
      luaL_error(L, "%s: %s must be a boolean (got %s)", fn, field,
                 luaL_typename(L, -1));
    b = lua_toboolean(L, -1);
  }
  lua_pop(L, 1);
  return b;
}

/* mgpu.clock() -> seconds on a monotonic clock, for timing from Lua. */
static int l_clock(lua_State *L) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  lua_pushnumber(L, (lua_Number)ts.tv_sec + (lua_Number)ts.tv_nsec * 1e-9);
  return 1;
}

static const luaL_Reg module_functions[] = {
  {"devices", lmgpu_devices},
  {"context", lmgpu_context_new},
  {"default_context", lmgpu_default_context},
  {"merge", lmgpu_merge},
  {"mergesort", lmgpu_mergesort},
  {"segsort", lmgpu_segsort},
  {"locality_sort", lmgpu_locality_sort},
  {"setop", lmgpu_setop},
  {"set_intersection", lmgpu_set_intersection},
  {"set_union", lmgpu_set_union},
  {"set_difference", lmgpu_set_difference},
  {"set_symmetric_difference", lmgpu_set_symmetric_difference},
  {"bulk_remove", lmgpu_bulk_remove},
  {"bulk_insert", lmgpu_bulk_insert},
  {"interval_expand", lmgpu_interval_expand},
  {"interval_gather", lmgpu_interval_gather},
  {"interval_scatter", lmgpu_interval_scatter},
  {"interval_move", lmgpu_interval_move},
  {"load_balance", lmgpu_load_balance},
  {"clock", l_clock},
  {NULL, NULL},
};

int luaopen_mgpu_core(lua_State *L) {
  lmgpu_context_register(L);
  lmgpu_array_register(L);
  luaL_newlib(L, module_functions);
  luaL_setfuncs(L, lmgpu_constructors, 0);
  lua_createtable(L, MGPU_DTYPE_COUNT, 0);
  for (int t = 0; t < MGPU_DTYPE_COUNT; t++) {
    lua_pushstring(L, mgpu_dtype_name((mgpu_dtype)t));
    lua_rawseti(L, -2, t + 1);
  }
  lua_setfield(L, -2, "dtypes");
  luaL_getmetatable(L, LMGPU_ARRAY);
  lua_setfield(L, -2, "_array_metatable");
  luaL_getmetatable(L, LMGPU_CONTEXT);
  lua_setfield(L, -2, "_context_metatable");
  lua_pushliteral(L, MGPU_VERSION);
  lua_setfield(L, -2, "_VERSION");
  lua_pushinteger(L, (lua_Integer)MGPU_MAX_COUNT);
  lua_setfield(L, -2, "max_count");
  return 1;
}
