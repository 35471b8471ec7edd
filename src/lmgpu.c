/*
 * lmgpu.c - opens mgpu.core: the metatables and the module table.
 */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "lmgpu.h"

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
  {"group", lmgpu_group_new},
  {"default_context", lmgpu_default_context},
  {"memory", lmgpu_memory},
  {"merge", lmgpu_merge},
  {"mergesort", lmgpu_mergesort},
  {"sort", lmgpu_sort},
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
  {"scan", lmgpu_scan},
  {"reduce", lmgpu_reduce},
  {"sorted_search", lmgpu_sorted_search},
  {"unique", lmgpu_unique},
  {"compact", lmgpu_compact},
  {"reduce_by_key", lmgpu_reduce_by_key},
  {"segreduce", lmgpu_segreduce},
  {"join", lmgpu_join},
  {"clock", l_clock},
  {"_kernel_paths", lmgpu_kernel_paths},
  {NULL, NULL},
};

int luaopen_mgpu_core(lua_State *L) {
  lmgpu_heap_register(L);
  lmgpu_frame_register(L);
  lmgpu_context_register(L);
  lmgpu_array_register(L);
  lmgpu_group_register(L);
  luaL_newlib(L, module_functions);
  lua_pushboolean(L, 0);
  luaL_setfuncs(L, lmgpu_constructors, 1);
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
  luaL_getmetatable(L, LMGPU_SHARDED);
  lua_setfield(L, -2, "_sharded_metatable");
  lua_pushliteral(L, MGPU_VERSION);
  lua_setfield(L, -2, "_VERSION");
  lua_pushinteger(L, (lua_Integer)MGPU_MAX_COUNT);
  lua_setfield(L, -2, "max_count");
  return 1;
}
