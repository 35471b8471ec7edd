/*
 * lmgpu_heap.c - telling Lua's collector about array memory.
 *
 * An array object is a few bytes of Lua heap holding up to gigabytes of
 * device (or host) memory, so the collector, pacing itself by the Lua heap,
 * would let dead arrays pile up until an allocation fails.  Each lua_State
 * keeps the bytes its arrays hold (`live`) and the bytes taken since the
 * binding last collected (`since`).  Before an allocation that takes `since`
 * past the threshold, the binding runs a full collection, which finalises
 * the dead arrays and returns their memory to the pool; the next threshold
 * is the bytes then live (at least HEAP_MIN).  Dead memory thus stays under
 * the live working set, and a collection costs a traversal of the Lua heap
 * per working set allocated: microseconds for a script's heap.
 *
 * The state's record outlives the state if a storage does (a storage holds
 * a reference), so releasing an array during lua_close is safe in any
 * finalisation order.
 */
#include <stdlib.h>

#include "lmgpu.h"

/* Below this many bytes taken since the last collection the binding never
 * collects: small arrays are left to the collector's own pace. */
#define HEAP_MIN ((size_t)64 << 20)

static const char HEAP_KEY = 'h';

typedef struct heap_ref {
  l_heap *h;
} heap_ref;

void lmgpu_heap_release(l_heap *h) {
  if (--h->refs == 0) free(h);
}

static int heap_gc(lua_State *L) {
  heap_ref *r = luaL_checkudata(L, 1, LMGPU_HEAP);
  if (r->h) {
    lmgpu_heap_release(r->h);
    r->h = NULL;
  }
  return 0;
}

void lmgpu_heap_register(lua_State *L) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &HEAP_KEY) == LUA_TUSERDATA) {
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  heap_ref *r = lua_newuserdatauv(L, sizeof *r, 0);
  r->h = NULL;
  if (luaL_newmetatable(L, LMGPU_HEAP)) {
    lua_pushcfunction(L, heap_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
  }
  lua_setmetatable(L, -2);
  l_heap *h = malloc(sizeof *h);
  if (!h) luaL_error(L, "mgpu: out of host memory");
  h->live = h->since = 0;
  h->threshold = HEAP_MIN;
  h->next_id = 1;
  h->refs = 1;
  r->h = h;
  lua_rawsetp(L, LUA_REGISTRYINDEX, &HEAP_KEY);
}

l_heap *lmgpu_heap(lua_State *L) {
  lua_rawgetp(L, LUA_REGISTRYINDEX, &HEAP_KEY);
  heap_ref *r = lua_touserdata(L, -1);
  lua_pop(L, 1);
  if (!r || !r->h) luaL_error(L, "mgpu: the module has been closed");
  return r->h;
}

void lmgpu_heap_before_alloc(lua_State *L, l_heap *h, size_t bytes) {
  if (h->since + bytes <= h->threshold) return;
  /* A script that stopped the collector keeps it stopped. */
  if (lua_gc(L, LUA_GCISRUNNING) == 0) return;
  lua_gc(L, LUA_GCCOLLECT); /* does nothing inside a finalizer */
  h->since = 0;
  h->threshold = h->live > HEAP_MIN ? h->live : HEAP_MIN;
}

void lmgpu_heap_add(l_heap *h, size_t bytes) {
  h->live += bytes;
  h->since += bytes;
  h->refs++;
}

void lmgpu_heap_sub(l_heap *h, size_t bytes) {
  h->live -= bytes;
  lmgpu_heap_release(h);
}

/* mgpu.memory() -> {live = bytes, since = bytes, threshold = bytes} */
int lmgpu_memory(lua_State *L) {
  l_heap *h = lmgpu_heap(L);
  lua_createtable(L, 0, 3);
  lua_pushinteger(L, (lua_Integer)h->live);
  lua_setfield(L, -2, "live");
  lua_pushinteger(L, (lua_Integer)h->since);
  lua_setfield(L, -2, "since");
  lua_pushinteger(L, (lua_Integer)h->threshold);
  lua_setfield(L, -2, "threshold");
  return 1;
}
