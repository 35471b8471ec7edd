/*
 * lmgpu_context.c - context objects, the default context, and the shared
 * per-device contexts that a:to("cuda:0") uses.
 */
#include <stdlib.h>
#include <string.h>

#include "lmgpu.h"

/* Registry keys. */
static const char DEFAULT_KEY[] = "mgpu.default_context";
static const char SHARED_KEY[] = "mgpu.shared_contexts";

l_context *lmgpu_test_context(lua_State *L, int idx) {
  l_context *c = luaL_testudata(L, idx, LMGPU_CONTEXT);
  return c && c->ctx ? c : NULL;
}

static l_context *check_context(lua_State *L, int idx, const char *fn) {
  l_context *c = lmgpu_test_context(L, idx);
  if (!c)
    luaL_error(L, "%s: expected an mgpu.context (got %s)", fn,
               luaL_typename(L, idx));
  return c;
}

/* Pushes a new context object for device; errors name fn. */
static l_context *push_new_context(lua_State *L, const char *device,
                                   const char *fn) {
  l_context *c = lua_newuserdatauv(L, sizeof *c, 0);
  c->ctx = NULL;
  luaL_setmetatable(L, LMGPU_CONTEXT);
  char err[256];
  mgpu_status s = mgpu_context_create(device, &c->ctx, err, sizeof err);
  if (s != MGPU_OK)
    luaL_error(L, "%s: cannot use device '%s': %s", fn, device, err);
  return c;
}

/* Pushes the registry's table of shared contexts by device name. */
static void push_shared_table(lua_State *L) {
  if (lua_getfield(L, LUA_REGISTRYINDEX, SHARED_KEY) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, SHARED_KEY);
  }
}

l_context *lmgpu_push_device_context(lua_State *L, const char *device,
                                     const char *fn) {
  push_shared_table(L);
  if (lua_getfield(L, -1, device) == LUA_TUSERDATA) {
    lua_remove(L, -2);
    return lua_touserdata(L, -1);
  }
  lua_pop(L, 1);
  l_context *c = push_new_context(L, device, fn);
  /* "cuda" and "cuda:0" name one device: share under the canonical name. */
  const char *canon = mgpu_context_device(c->ctx);
  if (lua_getfield(L, -2, canon) == LUA_TUSERDATA) {
    lua_remove(L, -2); /* the fresh one is garbage */
    lua_remove(L, -2);
    return lua_touserdata(L, -1);
  }
  lua_pop(L, 1);
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, canon);
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, device);
  lua_remove(L, -2);
  return c;
}

l_context *lmgpu_push_default_context(lua_State *L) {
  if (lua_getfield(L, LUA_REGISTRYINDEX, DEFAULT_KEY) == LUA_TUSERDATA)
    return lua_touserdata(L, -1);
  lua_pop(L, 1);
  const char *env = getenv("MGPU_DEVICE");
  const char *device =
      env && *env ? env : (mgpu_cuda_device_count() > 0 ? "cuda:0" : "cpu");
  l_context *c = lmgpu_push_device_context(
      L, device, env && *env ? "mgpu (MGPU_DEVICE)" : "mgpu");
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, DEFAULT_KEY);
  return c;
}

/* mgpu.devices() -> {"cuda:0", ..., "cpu"} */
int lmgpu_devices(lua_State *L) {
  int n = mgpu_cuda_device_count();
  lua_createtable(L, n + 1, 0);
  for (int i = 0; i < n; i++) {
    lua_pushfstring(L, "cuda:%d", i);
    lua_rawseti(L, -2, i + 1);
  }
  lua_pushliteral(L, "cpu");
  lua_rawseti(L, -2, n + 1);
  return 1;
}

/* mgpu.context{device = d, memory_limit = bytes} */
int lmgpu_context_new(lua_State *L) {
  static const char *const opts[] = {"device", "memory_limit", NULL};
  const char *fn = "mgpu.context";
  const char *device = NULL;
  lua_Integer limit = 0;
  if (lua_type(L, 1) == LUA_TSTRING) {
    device = lua_tostring(L, 1);
  } else if (lua_istable(L, 1)) {
    (void)lmgpu_options(L, 1, fn, opts);
    lua_getfield(L, 1, "device");
    if (!lua_isnil(L, -1)) {
      if (lua_type(L, -1) != LUA_TSTRING)
        luaL_error(L, "%s: device must be a string (got %s)", fn,
                   luaL_typename(L, -1));
      device = lua_tostring(L, -1);
    }
    lua_getfield(L, 1, "memory_limit");
    if (!lua_isnil(L, -1)) {
      int ok;
      limit = lua_tointegerx(L, -1, &ok);
      if (!ok || limit < 0)
        luaL_error(L, "%s: memory_limit must be a non-negative integer "
                      "number of bytes", fn);
    }
    lua_pop(L, 1); /* keep the device string on the stack */
  } else if (!lua_isnoneornil(L, 1)) {
    luaL_error(L, "%s: expected a table of options (got %s)", fn,
               luaL_typename(L, 1));
  }
  if (!device) {
    /* No device given: a new context on the default context's device. */
    l_context *d = lmgpu_push_default_context(L);
    device = mgpu_context_device(d->ctx);
  }
  l_context *c = push_new_context(L, device, fn);
  mgpu_context_set_memory_limit(c->ctx, (size_t)limit);
  return 1;
}

/* mgpu.default_context([ctx]) */
int lmgpu_default_context(lua_State *L) {
  if (!lua_isnoneornil(L, 1)) {
    check_context(L, 1, "mgpu.default_context");
    lua_pushvalue(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, DEFAULT_KEY);
    lua_pushvalue(L, 1);
    return 1;
  }
  lmgpu_push_default_context(L);
  return 1;
}

static int ctx_sync(lua_State *L) {
  l_context *c = check_context(L, 1, "mgpu.context:sync");
  lmgpu_check_status(L, c->ctx, mgpu_context_sync(c->ctx), "mgpu.context:sync");
  lua_settop(L, 1);
  return 1;
}

static void set_size_field(lua_State *L, const char *k, size_t v) {
  lua_pushinteger(L, (lua_Integer)v);
  lua_setfield(L, -2, k);
}

static int ctx_info(lua_State *L) {
  l_context *c = check_context(L, 1, "mgpu.context:info");
  mgpu_context_info info;
  lmgpu_check_status(L, c->ctx, mgpu_context_info_get(c->ctx, &info),
                     "mgpu.context:info");
  lua_newtable(L);
  lua_pushstring(L, mgpu_context_device(c->ctx));
  lua_setfield(L, -2, "device");
  lua_pushstring(L, mgpu_context_backend(c->ctx));
  lua_setfield(L, -2, "backend");
  lua_pushstring(L, info.name);
  lua_setfield(L, -2, "name");
  lua_pushinteger(L, info.multiprocessors);
  lua_setfield(L, -2, "multiprocessors");
  if (info.cc_major) {
    lua_pushfstring(L, "%d.%d", info.cc_major, info.cc_minor);
    lua_setfield(L, -2, "compute_capability");
  }
  set_size_field(L, "memory_total", info.memory_total);
  set_size_field(L, "memory_free", info.memory_free);
  set_size_field(L, "pool_reserved", info.pool_reserved);
  set_size_field(L, "in_use", info.in_use);
  if (info.memory_limit) set_size_field(L, "memory_limit", info.memory_limit);
  return 1;
}

static int ctx_gc(lua_State *L) {
  l_context *c = luaL_checkudata(L, 1, LMGPU_CONTEXT);
  if (c->ctx) {
    /* Arrays still alive hold their own references to the C context. */
    mgpu_context_release(c->ctx);
    c->ctx = NULL;
  }
  return 0;
}

static int ctx_tostring(lua_State *L) {
  l_context *c = luaL_checkudata(L, 1, LMGPU_CONTEXT);
  if (c->ctx)
    lua_pushfstring(L, "mgpu.context(%s)", mgpu_context_device(c->ctx));
  else
    lua_pushliteral(L, "mgpu.context(closed)");
  return 1;
}

static const luaL_Reg ctx_methods[] = {
  {"sync", ctx_sync},
  {"info", ctx_info},
  {NULL, NULL},
};

static int ctx_index(lua_State *L) {
  l_context *c = check_context(L, 1, "mgpu.context");
  if (lua_type(L, 2) == LUA_TSTRING) {
    const char *k = lua_tostring(L, 2);
    if (strcmp(k, "device") == 0) {
      lua_pushstring(L, mgpu_context_device(c->ctx));
      return 1;
    }
    if (strcmp(k, "backend") == 0) {
      lua_pushstring(L, mgpu_context_backend(c->ctx));
      return 1;
    }
  }
  lua_pushvalue(L, 2);
  lua_rawget(L, lua_upvalueindex(1));
  return 1;
}

void lmgpu_context_register(lua_State *L) {
  if (!luaL_newmetatable(L, LMGPU_CONTEXT)) {
    lua_pop(L, 1);
    return;
  }
  lua_pushcfunction(L, ctx_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, ctx_tostring);
  lua_setfield(L, -2, "__tostring");
  /* Methods: sync, info, and every array constructor (ctx:array(t) ...). */
  luaL_newlib(L, ctx_methods);
  luaL_setfuncs(L, lmgpu_constructors, 0);
  lua_pushcclosure(L, ctx_index, 1);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}
