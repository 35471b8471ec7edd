/*
 * embed_test.c - a C host that embeds Lua and shares memory with a script
 * through mgpu_lua.h: it lends a buffer of its own as an mgpu.array, the
 * script sorts it in place and makes an array of its own, and the host
 * reads that back; the lent buffer's release runs once, when the last
 * array using it (a view that outlived a:free()) is gone.
 *
 *   mgpu_embed_test [device]      (default cpu; prints "embed: N passed,
 *                                   N failed"; exit status 1 on a failure)
 *   mgpu_embed_test --devices     (the devices it can run on)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "mgpu_lua.h"

static int passed, failed;

static void expect(int ok, const char *what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    printf("FAIL: %s\n", what);
  }
}

static int releases;
static void *released;
static void on_release(void *ptr, void *ud) {
  releases++;
  released = ptr;
  (void)ud;
}

/* Runs a chunk; prints its error and returns 0 when it raised. */
static int run(lua_State *L, const char *chunk) {
  if (luaL_dostring(L, chunk) == LUA_OK) return 1;
  printf("lua: %s\n", lua_tostring(L, -1));
  lua_pop(L, 1);
  return 0;
}

/* mgpu_lua_check_array on the global `name`, from inside a protected call. */
static int check_global(lua_State *L) {
  size_t n = 0;
  mgpu_dtype t = MGPU_I32;
  void *p = mgpu_lua_check_array(L, 1, &n, &t, NULL);
  lua_pushlightuserdata(L, p);
  lua_pushinteger(L, (lua_Integer)n);
  lua_pushstring(L, mgpu_dtype_name(t));
  return 3;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--devices") == 0) {
    printf("cpu\n");
    if (mgpu_cuda_device_count() > 0) printf("cuda\n");
    return 0;
  }
  const char *device = argc > 1 ? argv[1] : "cpu";
  char err[256];
  mgpu_context *ctx = NULL;
  if (mgpu_context_create(device, &ctx, err, sizeof err) != MGPU_OK) {
    printf("%s: %s\n", device, err);
    return 1;
  }

  /* The host's keys, in memory of the context's kind. */
  enum { N = 1000 };
  int32_t host[N];
  for (int i = 0; i < N; i++) host[i] = (int32_t)((i * 7919) % N);
  void *keys = NULL;
  if (mgpu_alloc(ctx, sizeof host, &keys) != MGPU_OK ||
      mgpu_upload(ctx, keys, host, sizeof host) != MGPU_OK) {
    printf("%s: %s\n", device, mgpu_context_error(ctx));
    return 1;
  }

  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  luaL_requiref(L, "mgpu.core", luaopen_mgpu_core, 0);
  lua_setglobal(L, "mgpu");
  mgpu_lua_push_context(L, ctx);
  lua_setglobal(L, "ctx");
  mgpu_lua_push_array(L, ctx, keys, N, MGPU_I32, on_release, NULL);
  lua_setglobal(L, "keys");

  /* The script sorts the host's buffer in place and makes its own array. */
  expect(run(L, "assert(#keys == 1000 and keys.dtype == 'i32')\n"
                "mgpu.mergesort(keys, {comp = 'greater'})\n"
                "made = ctx:iota(5, 10)\n"
                "view = keys:slice(1, 3)\n"
                "keys:free()\n"),
         "the script runs");
  int32_t back[N];
  expect(mgpu_download(ctx, back, keys, sizeof back) == MGPU_OK,
         "the host reads its buffer back");
  int sorted = 1;
  for (int i = 0; i < N; i++) sorted &= back[i] == N - 1 - i;
  expect(sorted, "the script sorted the host's buffer in place");
  expect(releases == 0, "a view keeps the lent buffer after keys:free()");

  /* The host reads an array the script made. */
  lua_pushcfunction(L, check_global);
  lua_getglobal(L, "made");
  int ok = lua_pcall(L, 1, 3, 0) == LUA_OK;
  expect(ok, "mgpu_lua_check_array accepts the script's array");
  if (ok) {
    int32_t made[5] = {0};
    const void *p = lua_touserdata(L, -3);
    expect(lua_tointeger(L, -2) == 5 && strcmp(lua_tostring(L, -1), "i32") == 0,
           "its count and dtype");
    expect(mgpu_download(ctx, made, p, sizeof made) == MGPU_OK && made[0] == 10 &&
               made[4] == 14,
           "its elements");
    lua_pop(L, 3);
  }
  /* ... and rejects anything else with a Lua error, not a crash. */
  lua_pushcfunction(L, check_global);
  lua_pushinteger(L, 42);
  expect(lua_pcall(L, 1, 3, 0) != LUA_OK &&
             strstr(lua_tostring(L, -1), "must be an mgpu.array") != NULL,
         "mgpu_lua_check_array rejects a number");
  lua_pop(L, 1);
  lua_pushcfunction(L, check_global);
  lua_getglobal(L, "keys");
  expect(lua_pcall(L, 1, 3, 0) != LUA_OK &&
             strstr(lua_tostring(L, -1), "has been freed") != NULL,
         "mgpu_lua_check_array rejects a freed array");
  lua_pop(L, 1);
  expect(run(L, "assert(type(view:ptr()) == 'userdata')"), "a:ptr() is a light userdata");

  lua_close(L);
  expect(releases == 1 && released == keys,
         "release ran once, with the buffer, when the last view went");
  mgpu_free(ctx, keys, sizeof host);
  mgpu_context_release(ctx);
  printf("embed: %d passed, %d failed\n", passed, failed);
  return failed != 0;
}
