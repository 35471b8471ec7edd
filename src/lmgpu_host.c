/*
 * lmgpu_host.c - mgpu_lua.h: what a C host that embeds Lua uses to share
 * arrays and contexts with its scripts.
 */

#include "lmgpu.h"

/* Opens mgpu.core in L unless its metatables are there already. */
static void ensure_open(lua_State *L) {
  if (luaL_getmetatable(L, LMGPU_ARRAY) == LUA_TTABLE) {
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  luaL_requiref(L, "mgpu.core", luaopen_mgpu_core, 0);
  lua_pop(L, 1);
}

void mgpu_lua_push_context(lua_State *L, mgpu_context *ctx) {
  ensure_open(L);
  lmgpu_push_context_object(L, ctx);
}

void mgpu_lua_push_array(lua_State *L, mgpu_context *ctx, void *ptr, size_t n,
                         mgpu_dtype t, void (*release)(void *ptr, void *ud),
                         void *ud) {
  ensure_open(L);
  if ((unsigned)t >= MGPU_DTYPE_COUNT)
    luaL_error(L, "mgpu_lua_push_array: unknown dtype %d", (int)t);
  if (n > mgpu_context_max_count(ctx))
    luaL_error(L, "mgpu_lua_push_array: %I elements is past the limit of %I",
               (lua_Integer)n, (lua_Integer)mgpu_context_max_count(ctx));
  lmgpu_push_context_object(L, ctx);
  l_array *a = lmgpu_push_array_object(L, -1, t);
  lua_remove(L, -2); /* the array object holds it */
  l_storage *st = lmgpu_storage_new(L, ctx, n * mgpu_dtype_size(t));
  if (!st) luaL_error(L, "mgpu_lua_push_array: out of host memory");
  st->ptr = ptr;
  st->lent = 1;
  st->release = release;
  st->release_ud = ud;
  lmgpu_array_attach(a, st, n);
}

void *mgpu_lua_check_array(lua_State *L, int idx, size_t *n, mgpu_dtype *t,
                           mgpu_context **ctx) {
  l_array *a = luaL_testudata(L, idx, LMGPU_ARRAY);
  if (!a)
    luaL_error(L, "mgpu_lua_check_array: argument %d must be an mgpu.array "
                  "(got %s)", idx, lmgpu_typename(L, idx));
  if (!a->st)
    luaL_error(L, "mgpu_lua_check_array: argument %d has been freed", idx);
  if (n) *n = a->n;
  if (t) *t = a->dtype;
  if (ctx) *ctx = lmgpu_ctx(a);
  return lmgpu_data(a);
}
