/*
 * mgpu_lua.h - for C hosts that embed Lua: share arrays and contexts
 * between C and a lua_State.  Link libmgpu_lua and libmgpu (and the host's
 * Lua 5.4).  Each function opens mgpu.core in the state first if it is not
 * open yet; each may raise a Lua error (out of memory, a bad argument) as
 * any lua_ function that allocates may.
 */
#ifndef MGPU_LUA_H
#define MGPU_LUA_H

#include <lua.h>

#include "mgpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The module's opener, for luaL_requiref(L, "mgpu.core", ...). */
int luaopen_mgpu_core(lua_State *L);

/* Pushes a context object for ctx; the object takes its own reference. */
void mgpu_lua_push_context(lua_State *L, mgpu_context *ctx);

/* Pushes an array of n elements of dtype t that lives at ptr on ctx (device
 * memory on a cuda context, host memory on cpu), without a copy.  Once no
 * array object nor view uses the memory any more (a:free(), the collector,
 * lua_close), release(ptr, ud) runs, if given; until then the host keeps
 * ptr valid.  The bytes do not count in mgpu.memory(): they are the
 * host's.  If the call raises, release never runs: the memory stays the
 * host's. */
void mgpu_lua_push_array(lua_State *L, mgpu_context *ctx, void *ptr, size_t n,
                         mgpu_dtype t, void (*release)(void *ptr, void *ud),
                         void *ud);

/* The live mgpu.array at idx: the address of its first element, and its
 * count, dtype and context where the pointers are not NULL.  Raises a Lua
 * error naming the argument otherwise.  The address stays valid while the
 * array is neither freed nor collected. */
void *mgpu_lua_check_array(lua_State *L, int idx, size_t *n, mgpu_dtype *t,
                           mgpu_context **ctx);

#ifdef __cplusplus
}
#endif

#endif
