/*
 * particles.c - a simulation tool that scripts a step of its own in Lua
 * through mgpu.  The host owns its particles and its GPU work: on cuda a
 * CUDA stream and two device buffers (cell keys, particle ids) that it
 * made itself; on cpu two host buffers.  It makes an mgpu context on its
 * stream (mgpu_context_create_with), lends both buffers to a script as
 * mgpu.arrays (no copy, mgpu_lua.h); the script sorts them by cell in
 * place, so the dead particles gather at the end, and returns how many are
 * alive.  The host reads its buffers back on its stream and checks them
 * against what it knows.
 *
 *   particles [device [script]]     device: cpu (default) or cuda;
 *                                   script: step.lua beside the program
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "mgpu_lua.h"
#ifdef PARTICLES_CUDA
#include <cuda_runtime_api.h>
#endif

#define DEAD UINT32_MAX

/* What the host learns when the script's last array over a buffer goes. */
static int lent;
static void on_release(void *ptr, void *ud) {
  (void)ptr, (void)ud;
  lent--;
}

/* The host's memory: device memory on its own stream (cuda), or host
 * memory (cpu).  Each returns 0 on failure. */
static int on_gpu;
static void *stream; /* the host's cudaStream_t */

static void *host_buffer(size_t bytes) {
#ifdef PARTICLES_CUDA
  if (on_gpu) {
    void *p = NULL;
    return cudaMallocAsync(&p, bytes, (cudaStream_t)stream) == cudaSuccess ? p : NULL;
  }
#endif
  return malloc(bytes);
}

static int host_put(void *dst, const void *src, size_t bytes) {
#ifdef PARTICLES_CUDA
  if (on_gpu)
    return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice,
                           (cudaStream_t)stream) == cudaSuccess;
#endif
  memcpy(dst, src, bytes);
  return 1;
}

/* Waits for the host's stream: the script's work was queued on it. */
static int host_get(void *dst, const void *src, size_t bytes) {
#ifdef PARTICLES_CUDA
  if (on_gpu)
    return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost,
                           (cudaStream_t)stream) == cudaSuccess &&
           cudaStreamSynchronize((cudaStream_t)stream) == cudaSuccess;
#endif
  memcpy(dst, src, bytes);
  return 1;
}

static void host_buffer_free(void *p) {
#ifdef PARTICLES_CUDA
  if (on_gpu) {
    cudaFreeAsync(p, (cudaStream_t)stream);
    return;
  }
#endif
  free(p);
}

/* The script's chunk returns its step function; runs step(cells, ids). */
static int run_step(lua_State *L, const char *script, mgpu_context *ctx,
                    void *cells, void *ids, size_t n, lua_Integer *live) {
  if (luaL_loadfile(L, script) != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK ||
      !lua_isfunction(L, -1)) {
    fprintf(stderr, "%s: %s\n", script,
            lua_isstring(L, -1) ? lua_tostring(L, -1) : "does not return a function");
    return 0;
  }
  mgpu_lua_push_array(L, ctx, cells, n, MGPU_U32, on_release, NULL);
  mgpu_lua_push_array(L, ctx, ids, n, MGPU_U32, on_release, NULL);
  lent = 2;
  if (lua_pcall(L, 2, 1, 0) != LUA_OK || !lua_isinteger(L, -1)) {
    fprintf(stderr, "%s: %s\n", script,
            lua_isstring(L, -1) ? lua_tostring(L, -1) : "step did not return a count");
    return 0;
  }
  *live = lua_tointeger(L, -1);
  lua_pop(L, 1);
  return 1;
}

int main(int argc, char **argv) {
  const char *device = argc > 1 ? argv[1] : "cpu";
  const char *script = argc > 2 ? argv[2] : "step.lua";
  enum { N = 100000, CELLS = 4096 };

  /* The particles, as the simulation left them: every tenth or so dead. */
  uint32_t *cells_in = malloc(N * sizeof *cells_in);
  uint32_t *cells_out = malloc(N * sizeof *cells_out);
  uint32_t *ids_out = malloc(N * sizeof *ids_out);
  if (!cells_in || !cells_out || !ids_out) return 1;
  uint64_t seed = 42;
  lua_Integer alive = 0;
  for (int i = 0; i < N; i++) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    const uint32_t r = (uint32_t)(seed >> 33);
    cells_in[i] = r % 10 == 0 ? DEAD : (r >> 4) % CELLS;
    alive += cells_in[i] != DEAD;
    ids_out[i] = (uint32_t)i; /* uploaded as the ids */
  }

  on_gpu = strncmp(device, "cuda", 4) == 0;
#ifdef PARTICLES_CUDA
  if (on_gpu && cudaStreamCreateWithFlags((cudaStream_t *)&stream,
                                          cudaStreamNonBlocking) != cudaSuccess) {
    fprintf(stderr, "%s: no CUDA stream\n", device);
    return 1;
  }
#else
  if (on_gpu) {
    fprintf(stderr, "%s: this example was built without the CUDA toolkit\n", device);
    return 1;
  }
#endif
  /* mgpu queues the script's work on the host's stream */
  char err[256];
  mgpu_context *ctx = NULL;
  mgpu_context_options options = {device, stream, NULL};
  if (mgpu_context_create_with(&options, &ctx, err, sizeof err) != MGPU_OK) {
    fprintf(stderr, "%s: %s\n", device, err);
    return 1;
  }
  /* The host's buffers, in its own memory of the context's device. */
  void *cells = host_buffer(N * sizeof(uint32_t));
  void *ids = host_buffer(N * sizeof(uint32_t));
  if (!cells || !ids || !host_put(cells, cells_in, N * sizeof(uint32_t)) ||
      !host_put(ids, ids_out, N * sizeof(uint32_t))) {
    fprintf(stderr, "%s: the host's buffers\n", device);
    return 1;
  }

  /* A Lua state whose scripts can `require "mgpu"`. */
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  luaL_requiref(L, "mgpu", luaopen_mgpu_core, 0);
  lua_pop(L, 1);

  lua_Integer live = -1;
  int ok = run_step(L, script, ctx, cells, ids, N, &live);
  ok = ok && host_get(cells_out, cells, N * sizeof(uint32_t)) &&
       host_get(ids_out, ids, N * sizeof(uint32_t));
  lua_close(L); /* the script's arrays go: the buffers are the host's again */

  /* What the host knows: the live count, and a stable sort by cell that
   * moved each id with its particle's cell. */
  int sorted = ok, moved = ok;
  for (int i = 0; ok && i < N; i++) {
    if (i > 0 && (cells_out[i - 1] > cells_out[i] ||
                  (cells_out[i - 1] == cells_out[i] && ids_out[i - 1] >= ids_out[i])))
      sorted = 0;
    if (ids_out[i] >= N || cells_in[ids_out[i]] != cells_out[i]) moved = 0;
  }
  printf("particles on %s: %lld alive of %d (expected %lld); sorted %s; ids %s; "
         "buffers returned %s\n",
         device, (long long)live, N, (long long)alive, sorted ? "yes" : "NO",
         moved ? "yes" : "NO", lent == 0 ? "yes" : "NO");

  mgpu_context_release(ctx); /* waits for the host's stream, leaves it */
  host_buffer_free(cells);
  host_buffer_free(ids);
#ifdef PARTICLES_CUDA
  if (on_gpu) {
    cudaStreamSynchronize((cudaStream_t)stream);
    cudaStreamDestroy((cudaStream_t)stream);
  }
#endif
  free(cells_in);
  free(cells_out);
  free(ids_out);
  return ok && sorted && moved && live == alive && lent == 0 ? 0 : 1;
}
