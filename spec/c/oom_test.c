/*
 * oom_test.c - the Lua 5.4 binding when Lua runs out of memory, at every
 * allocation of a call: a host whose allocator refuses every request from
 * the k-th of the call on, for each k in turn.  The call raises (or, when
 * it no longer needed that memory, returns); then, with memory back, the
 * arguments still work and once they and the results are collected the
 * context holds the bytes it held before: nothing taken by the call is
 * lost, nothing is released twice (ASan runs this too).
 *
 *   mgpu_oom_test [device]       (default cpu; prints "oom: N passed,
 *                                  N failed"; exit status 1 on a failure)
 *   mgpu_oom_test --devices      (the devices it can run on)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "mgpu_lua.h"

static int passed, failed;

static void expect(int ok, const char *call, long k, const char *what,
                   const char *detail) {
  if (ok) {
    passed++;
    return;
  }
  failed++;
  printf("FAIL: %s, memory refused from allocation %ld: %s%s%s\n", call, k,
         what, detail ? ": " : "", detail ? detail : "");
}

/* The allocator: counts the requests (growing or new blocks) once armed,
 * and refuses every one from the fail_at-th on (0: none). */
static struct {
  int armed;
  long count, fail_at;
} budget;

static void *refusing_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  if (budget.armed && (ptr == NULL || nsize > osize)) {
    budget.count++;
    if (budget.fail_at && budget.count >= budget.fail_at) return NULL;
  }
  return realloc(ptr, nsize);
}

/* The arguments of each call, made on `ctx` (globals), and the call. */
static const struct {
  const char *name, *setup, *call;
} cases[] = {
  {"iota", "", "return ctx:iota(100)"},
  {"array", "", "return ctx:array({1, 2, 3, 4, 5, 6, 7, 8, 9, 10})"},
  {"copy", "v = ctx:iota(100)", "return v:copy()"},
  {"slice", "v = ctx:iota(100)", "return v:slice(3, 40)"},
  {"totable", "v = ctx:iota(100)", "return v:totable()"},
  {"astype", "v = ctx:iota(100)", "return v:astype('f64')"},
  {"to", "v = ctx:iota(100)", "return v:to(ctx)"},
  {"merge", "a, b = ctx:iota(100), ctx:iota(60, 2, 3) av, bv = ctx:iota(100), ctx:iota(60)",
   "return mgpu.merge(a, b, {values = {av, bv}})"},
  {"mergesort", "k, v = ctx:random(300, 0, 40, 'i32', 7), ctx:iota(300)",
   "return mgpu.mergesort(k, {values = v})"},
  {"sort", "k, v = ctx:random(300, 0, 40, 'i32', 7), ctx:iota(300)",
   "return mgpu.sort(k, {values = v, comp = 'greater'})"},
  {"segsort", "k, h = ctx:random(300, 0, 40, 'i32', 7), ctx:array({1, 90, 200})",
   "return mgpu.segsort(k, h, {stats = true})"},
  {"set_union", "a, b = ctx:iota(100), ctx:iota(60, 1, 3)",
   "return mgpu.set_union(a, b)"},
  {"bulk_insert", "d, p, v = ctx:iota(100), ctx:array({1, 3, 3}), ctx:array({7, 8, 9})",
   "return mgpu.bulk_insert(d, p, v)"},
  {"bulk_remove", "d = ctx:iota(100)", "return mgpu.bulk_remove(d, {2, 5, 9})"},
  {"interval_expand", "v, n = ctx:iota(3), ctx:array({1, 0, 3})",
   "return mgpu.interval_expand(v, n)"},
  {"interval_move", "x, gi, si, n = ctx:iota(50), ctx:array({5, 1, 30}), ctx:array({5, 1, 20}), ctx:array({2, 0, 4})",
   "return mgpu.interval_move(x, gi, si, n)"},
  {"load_balance", "n = ctx:array({2, 0, 3})", "return mgpu.load_balance(n)"},
  {"scan", "v = ctx:iota(100)", "return mgpu.scan(v)"},
  {"sorted_search", "n, h = ctx:iota(30, 1, 3), ctx:iota(100)",
   "return mgpu.sorted_search(n, h)"},
  {"unique", "k, v = ctx:array({1, 1, 2, 3, 3, 3, 7}), ctx:iota(7)",
   "return mgpu.unique(k, {values = v, counts = true})"},
  {"compact", "d, f = ctx:iota(9), ctx:array({1, 0, 0, 1, 1, 0, 1, 0, 1})",
   "return mgpu.compact(d, f)"},
  {"reduce_by_key", "k, v = ctx:array({1, 1, 2, 3, 3, 3, 7}), ctx:iota(7)",
   "return mgpu.reduce_by_key(k, v)"},
  {"segreduce", "v = ctx:iota(20)", "return mgpu.segreduce(v, {1, 4, 4, 11})"},
  {"join", "a, b = ctx:array({1, 2, 2, 4, 6}), ctx:array({2, 2, 3, 4, 7})",
   "return mgpu.join(a, b, {kind = 'outer'})"},
  {"locality_sort", "k, v = ctx:random(300, 0, 40, 'i32', 7), ctx:iota(300)",
   "return mgpu.locality_sort(k, {values = v, stats = true})"},
  {"set_intersection", "a, b = ctx:iota(100), ctx:iota(60, 1, 3) av, bv = ctx:iota(100), ctx:iota(60)",
   "return mgpu.set_intersection(a, b, {values = {av, bv}})"},
  {"interval_gather", "x, gi, n = ctx:iota(50), ctx:array({5, 1, 30}), ctx:array({2, 0, 4})",
   "return mgpu.interval_gather(x, gi, n)"},
  {"interval_scatter", "x, si, n = ctx:iota(6), ctx:array({5, 1, 20}), ctx:array({2, 0, 4})",
   "return mgpu.interval_scatter(x, si, n)"},
  {"tobytes", "v = ctx:iota(10)", "return v:tobytes()"},
  {"frombytes", "bytes = ctx:iota(10):tobytes()", "return ctx:frombytes(bytes, 'i32')"},
  {"fill", "v = ctx:iota(10)", "return v:fill(3)"},
  {"index", "v = ctx:iota(10)", "v[3] = 7 return v[3]"},
  {"reduce", "v = ctx:iota(100)", "return mgpu.reduce(v, 'max')"},
  {"is_sorted", "v = ctx:iota(100)", "return v:is_sorted()"},
  {"context", "", "return mgpu.context({device = device})"},
  {"group mergesort",
   "g = mgpu.group({devices = {device, device}}) s = g:random(500, 0, 30, 'i32', 3)",
   "return mgpu.mergesort(s, {comp = 'greater'})"},
  {"group segsort",
   "g = mgpu.group({devices = {device, device}}) s = g:random(500, 0, 30, 'i32', 3)",
   "return mgpu.segsort(s, {1, 100, 251, 300})"},
  {"group shard and gather", "g = mgpu.group({devices = {device, device}})",
   "local s = g:shard({5, 4, 3, 2, 1}) return s:to(ctx), s:totable(), tostring(s)"},
  {"group sort",
   "g = mgpu.group({devices = {device, device}}) s = g:random(500, 0, 30, 'i32', 3) sv = g:iota(500)",
   "return mgpu.sort(s, {values = sv})"},
  {"group merge",
   "g = mgpu.group({devices = {device, device}}) a = g:shard(ctx:iota(300):totable()) b = g:shard(ctx:iota(200, 2, 2):totable())",
   "return mgpu.merge(a, b)"},
};

/* held(): the bytes in use on ctx and on the case's group's contexts,
 * once everything unreachable is collected. */
static const char *const held =
    "function held()\n"
    "  collectgarbage() collectgarbage()\n"
    "  local cs = {ctx}\n"
    "  if g then for _, c in ipairs(g:contexts()) do cs[#cs + 1] = c end end\n"
    "  local t = 0\n"
    "  for _, c in ipairs(cs) do c:sync() t = t + c:info().in_use end\n"
    "  return t\n"
    "end\n";

/* Every global array of the case still reads back (sharded arrays too);
 * then held(). */
static const char *const after =
    "for name, v in pairs(_G) do\n"
    "  local ok, n = pcall(function() return #v end)\n"
    "  if ok and type(v) == 'userdata' and name ~= 'ctx' and name ~= 'g' then\n"
    "    assert(#v:totable() == n, name)\n"
    "  end\n"
    "end\n"
    "return held()\n";

/* A state with mgpu and the case's arguments on a context of device;
 * NULL (and a failure) when that does not work. */
static lua_State *new_state(const char *device, const char *setup,
                            lua_Integer *in_use) {
  lua_State *L = lua_newstate(refusing_alloc, NULL);
  if (!L) return NULL;
  luaL_openlibs(L);
  luaL_requiref(L, "mgpu.core", luaopen_mgpu_core, 0);
  lua_setglobal(L, "mgpu");
  lua_pushstring(L, device);
  lua_setglobal(L, "device");
  if (luaL_dostring(L, "ctx = mgpu.context({device = device})") != LUA_OK ||
      luaL_dostring(L, held) != LUA_OK || luaL_dostring(L, setup) != LUA_OK ||
      luaL_dostring(L, "return held()") != LUA_OK) {
    printf("setup: %s\n", lua_tostring(L, -1));
    lua_close(L);
    return NULL;
  }
  *in_use = lua_tointeger(L, -1);
  lua_pop(L, 1);
  return L;
}

/* Runs the case's call with memory refused from allocation fail_at on (0:
 * never); returns the allocations the call asked for, -1 when the state
 * could not be set up. */
static long run_case(const char *device, int c, long fail_at) {
  lua_Integer before = 0;
  lua_State *L = new_state(device, cases[c].setup, &before);
  if (!L) {
    expect(0, cases[c].name, fail_at, "setting up", NULL);
    return -1;
  }
  if (luaL_loadstring(L, cases[c].call) != LUA_OK) {
    expect(0, cases[c].name, fail_at, "compiling", lua_tostring(L, -1));
    lua_close(L);
    return -1;
  }
  budget.count = 0;
  budget.fail_at = fail_at;
  budget.armed = 1;
  int status = lua_pcall(L, 0, LUA_MULTRET, 0);
  budget.armed = 0;
  long asked = budget.count;
  if (fail_at == 0)
    expect(status == LUA_OK, cases[c].name, fail_at, "the call with memory",
           status == LUA_OK ? NULL : lua_tostring(L, -1));
  else if (status != LUA_OK)
    expect(status == LUA_ERRMEM, cases[c].name, fail_at,
           "raises a memory error", lua_tostring(L, -1));
  lua_settop(L, 0);
  if (luaL_dostring(L, after) != LUA_OK) {
    expect(0, cases[c].name, fail_at, "the arguments afterwards",
           lua_tostring(L, -1));
  } else {
    lua_Integer in_use = lua_tointeger(L, -1);
    char detail[96];
    snprintf(detail, sizeof detail, "%lld bytes in use, %lld before",
             (long long)in_use, (long long)before);
    expect(in_use == before, cases[c].name, fail_at,
           "the contexts' bytes once all is collected", detail);
  }
  lua_close(L);
  return asked;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--devices") == 0) {
    printf("cpu\n");
    if (mgpu_cuda_device_count() > 0) printf("cuda\n");
    return 0;
  }
  const char *device = argc > 1 ? argv[1] : "cpu";
  long runs = 0;
  for (int c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++) {
    /* groups of cuda contexts need distinct devices and NCCL */
    if (strncmp(cases[c].name, "group", 5) == 0 && strcmp(device, "cpu") != 0)
      continue;
    long asked = run_case(device, c, 0);
    if (getenv("MGPU_OOM_VERBOSE")) printf("%s: %ld allocations\n", cases[c].name, asked);
    for (long k = 1; k <= asked; k++, runs++) run_case(device, c, k);
  }
  printf("oom: %ld calls with memory refused\n", runs);
  printf("oom: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
