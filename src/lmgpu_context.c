/*
 * lmgpu_context.c - context objects, the default context, and the shared
 * per-device contexts that a:to("cuda:0") uses.  A context object closes
 * once (its __gc); every path that reaches one checks that it is open, and
 * a call pins the C context it uses, so closing an object mid-call is safe.
 */
#include <stdlib.h>
#include <string.h>

#include "lmgpu.h"

/* Registry keys. */
static const char DEFAULT_KEY = 'd';
static const char SHARED_KEY = 's';

l_context *lmgpu_test_context(lua_State *L, int idx) {
  l_context *c = luaL_testudata(L, idx, LMGPU_CONTEXT);
  return c && c->ctx ? c : NULL;
}

/* The open context object at idx (self of a method). */
static l_context *check_context(l_frame *f, int idx) {
  lua_State *L = f->L;
  l_context *c = luaL_testudata(L, idx, LMGPU_CONTEXT);
  if (!c)
    lmgpu_error(f, "expected an mgpu.context (got %s)", lmgpu_typename(L, idx));
  if (!c->ctx) lmgpu_error(f, "the context has been closed");
  lmgpu_pin_context(f, c->ctx);
  return c;
}

void lmgpu_push_context_object(lua_State *L, mgpu_context *ctx) {
  l_context *c = lua_newuserdatauv(L, sizeof *c, 0);
  c->ctx = NULL;
  c->id = lmgpu_heap(L)->next_id++;
  luaL_setmetatable(L, LMGPU_CONTEXT);
  mgpu_context_retain(ctx);
  c->ctx = ctx;
}

/* Pushes a new context object for device and pins its C context. */
static mgpu_context *push_new_context(l_frame *f, const char *device) {
  lua_State *L = f->L;
  l_context *c = lua_newuserdatauv(L, sizeof *c, 0);
  c->ctx = NULL;
  c->id = lmgpu_heap(L)->next_id++;
  luaL_setmetatable(L, LMGPU_CONTEXT);
  char err[256];
  mgpu_status s = mgpu_context_create(device, &c->ctx, err, sizeof err);
  if (s != MGPU_OK) lmgpu_error(f, "cannot use device '%s': %s", device, err);
  return lmgpu_pin_context(f, c->ctx);
}

/* Pushes the registry's table of shared contexts by device name. */
static void push_shared_table(lua_State *L) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &SHARED_KEY) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &SHARED_KEY);
  }
}

/* The open context object in the shared table (on top) under name, pushed
 * and pinned, or NULL (pushing nothing). */
static mgpu_context *shared_context(l_frame *f, const char *name) {
  lua_State *L = f->L;
  lua_pushstring(L, name);
  lua_rawget(L, -2);
  l_context *c = lmgpu_test_context(L, -1);
  if (c) return lmgpu_pin_context(f, c->ctx);
  lua_pop(L, 1);
  return NULL;
}

mgpu_context *lmgpu_push_device_context(l_frame *f, const char *device) {
  lua_State *L = f->L;
  push_shared_table(L);
  mgpu_context *ctx = shared_context(f, device);
  if (ctx) {
    lua_remove(L, -2);
    return ctx;
  }
  /* Absent, or closed by an explicit __gc: a fresh one takes its place. */
  ctx = push_new_context(f, device);
  /* "cuda" and "cuda:0" name one device: share under the canonical name. */
  const char *canon = mgpu_context_device(ctx);
  mgpu_context *same = shared_context(f, canon);
  if (same) {
    lua_remove(L, -2); /* the fresh one is garbage */
    lua_remove(L, -2);
    return same;
  }
  lua_pushstring(L, canon);
  lua_pushvalue(L, -2);
  lua_rawset(L, -4);
  lua_pushstring(L, device);
  lua_pushvalue(L, -2);
  lua_rawset(L, -4);
  lua_remove(L, -2);
  return ctx;
}

/* The device a default context is made on. */
static const char *default_device(void) {
  const char *env = getenv("MGPU_DEVICE");
  if (env && *env) return env;
  return mgpu_cuda_device_count() > 0 ? "cuda:0" : "cpu";
}

mgpu_context *lmgpu_push_default_context(l_frame *f) {
  lua_State *L = f->L;
  int t = lua_rawgetp(L, LUA_REGISTRYINDEX, &DEFAULT_KEY);
  if (t == LUA_TUSERDATA) {
    l_context *c = lmgpu_test_context(L, -1);
    if (!c)
      lmgpu_error(f, "the default context has been closed (make another "
                     "with mgpu.default_context(mgpu.context()))");
    return lmgpu_pin_context(f, c->ctx);
  }
  lua_pop(L, 1);
  mgpu_context *ctx = lmgpu_push_device_context(f, default_device());
  lua_pushvalue(L, -1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &DEFAULT_KEY);
  return ctx;
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

/* mgpu.context{device = d, memory_limit = bytes} or mgpu.context(d) */
int lmgpu_context_new(lua_State *L) {
  static const char *const names[] = {"device", "memory_limit", NULL};
  lua_settop(L, 1);
  l_frame *f = lmgpu_begin(L, "mgpu.context");
  const char *device = NULL;
  lua_Integer limit = 0;
  if (lua_type(L, 1) == LUA_TSTRING) {
    device = lua_tostring(L, 1);
  } else if (lua_istable(L, 1)) {
    int opts = lmgpu_options(f, 1, names);
    if (lmgpu_opt_field(f, opts, "device") != LUA_TNIL) {
      if (lua_type(L, -1) != LUA_TSTRING)
        lmgpu_error(f, "device must be a string (got %s)",
                    lmgpu_typename(L, -1));
      device = lua_tostring(L, -1); /* stays on the stack */
    }
    if (lmgpu_opt_field(f, opts, "memory_limit") != LUA_TNIL) {
      int ok = 0;
      limit = lua_tointegerx(L, -1, &ok);
      if (lua_type(L, -1) != LUA_TNUMBER || !ok || limit < 0)
        lmgpu_error(f, "memory_limit must be a non-negative integer number "
                       "of bytes (got %s)", lmgpu_describe(L, -1));
    }
  } else if (!lua_isnil(L, 1)) {
    lmgpu_error(f, "expected a device string or a table of options (got %s)",
                lmgpu_typename(L, 1));
  }
  if (!device) {
    /* No device given: the default context's device, open or not. */
    l_context *d = NULL;
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &DEFAULT_KEY) == LUA_TUSERDATA)
      d = lmgpu_test_context(L, -1);
    device = d ? lua_pushstring(L, mgpu_context_device(d->ctx))
               : default_device();
  }
  mgpu_context *ctx = push_new_context(f, device);
  mgpu_context_set_memory_limit(ctx, (size_t)limit);
  return 1;
}

/* mgpu.default_context([ctx]) */
int lmgpu_default_context(lua_State *L) {
  lua_settop(L, 1);
  l_frame *f = lmgpu_begin(L, "mgpu.default_context");
  if (!lua_isnil(L, 1)) {
    check_context(f, 1);
    lua_pushvalue(L, 1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &DEFAULT_KEY);
    lua_pushvalue(L, 1);
    return 1;
  }
  lmgpu_push_default_context(f);
  return 1;
}

static int ctx_sync(lua_State *L) {
  lua_settop(L, 1);
  l_frame *f = lmgpu_begin(L, "mgpu.context:sync");
  l_context *c = check_context(f, 1);
  lmgpu_check_status(f, c->ctx, mgpu_context_sync(c->ctx));
  lua_pushvalue(L, 1);
  return 1;
}

/* mgpu.core._kernel_paths(ctx, paths): mgpu_context_set_kernel_paths,
 * for the library's own specs (a size rule's other kernels at small
 * sizes); not part of the mgpu API. */
int lmgpu_kernel_paths(lua_State *L) {
  lua_settop(L, 2);
  l_frame *f = lmgpu_begin(L, "mgpu.core._kernel_paths");
  l_context *c = check_context(f, 1);
  const char *paths = luaL_checkstring(L, 2);
  lmgpu_check_status(f, c->ctx, mgpu_context_set_kernel_paths(c->ctx, paths));
  return 0;
}

static void set_size_field(lua_State *L, const char *k, size_t v) {
  lua_pushinteger(L, (lua_Integer)v);
  lua_setfield(L, -2, k);
}

static int ctx_info(lua_State *L) {
  lua_settop(L, 1);
  l_frame *f = lmgpu_begin(L, "mgpu.context:info");
  mgpu_context *ctx = check_context(f, 1)->ctx;
  mgpu_context_info info;
  lmgpu_check_status(f, ctx, mgpu_context_info_get(ctx, &info));
  lua_newtable(L);
  lua_pushstring(L, mgpu_context_device(ctx));
  lua_setfield(L, -2, "device");
  lua_pushstring(L, mgpu_context_backend(ctx));
  lua_setfield(L, -2, "backend");
  lua_pushstring(L, info.name);
  lua_setfield(L, -2, "name");
  lua_pushinteger(L, info.multiprocessors);
  lua_setfield(L, -2, "multiprocessors");
  if (info.cc_major) {
    lua_pushfstring(L, "%d.%d", info.cc_major, info.cc_minor);
    lua_setfield(L, -2, "compute_capability");
  }
  if (info.code_arch) {
    /* "sm_90", or "compute_80 PTX, compiled for sm_90" where the driver
     * compiled the build's PTX for this GPU */
    if (info.code_arch == info.binary_arch)
      lua_pushfstring(L, "sm_%d", info.binary_arch);
    else
      lua_pushfstring(L, "compute_%d PTX, compiled for sm_%d", info.code_arch,
                      info.binary_arch);
    lua_setfield(L, -2, "code");
    lua_pushstring(L, info.path);
    lua_setfield(L, -2, "path");
    lua_pushstring(L, info.built_archs);
    lua_setfield(L, -2, "built_archs");
  }
  set_size_field(L, "memory_total", info.memory_total);
  set_size_field(L, "memory_free", info.memory_free);
  set_size_field(L, "pool_reserved", info.pool_reserved);
  set_size_field(L, "in_use", info.in_use);
  set_size_field(L, "max_count", mgpu_context_max_count(ctx));
  if (info.memory_limit) set_size_field(L, "memory_limit", info.memory_limit);
  return 1;
}

/* __gc: closes the object; arrays made on it keep their own references to
 * the C context. */
static int ctx_gc(lua_State *L) {
  l_context *c = luaL_testudata(L, 1, LMGPU_CONTEXT);
  if (c && c->ctx) {
    mgpu_context *ctx = c->ctx;
    c->ctx = NULL;
    mgpu_context_release(ctx);
  }
  return 0;
}

static int ctx_tostring(lua_State *L) {
  l_context *c = luaL_testudata(L, 1, LMGPU_CONTEXT);
  if (!c) return luaL_error(L, "mgpu.context: expected an mgpu.context");
  if (c->ctx)
    lua_pushfstring(L, "mgpu.context(%s)#%d", mgpu_context_device(c->ctx),
                    (int)c->id);
  else
    lua_pushfstring(L, "mgpu.context(closed)#%d", (int)c->id);
  return 1;
}

static const luaL_Reg ctx_methods[] = {
  {"sync", ctx_sync},
  {"info", ctx_info},
  /* ctx:close(): what __gc does, now (LuaJIT, where the FFI binding has
   * the same method, has no <close>) */
  {"close", ctx_gc},
  {NULL, NULL},
};

static int ctx_index(lua_State *L) {
  l_context *c = luaL_testudata(L, 1, LMGPU_CONTEXT);
  if (!c)
    return luaL_error(L, "mgpu.context: expected an mgpu.context (got %s)",
                      lmgpu_typename(L, 1));
  if (lua_type(L, 2) == LUA_TSTRING) {
    const char *k = lua_tostring(L, 2);
    if (strcmp(k, "id") == 0) {
      lua_pushinteger(L, c->id);
      return 1;
    }
    if (strcmp(k, "device") == 0 || strcmp(k, "backend") == 0) {
      if (!c->ctx) return luaL_error(L, "mgpu.context: the context has been closed");
      lua_pushstring(L, k[0] == 'd' ? mgpu_context_device(c->ctx)
                                    : mgpu_context_backend(c->ctx));
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
  lua_pushboolean(L, 1);
  luaL_setfuncs(L, lmgpu_constructors, 1);
  lua_pushcclosure(L, ctx_index, 1);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}
