/*
 * cpu_backend.c - the serial cpu backend: the reference the kernels are
 * checked against, and the fallback where no GPU is present.  Memory is
 * plain host memory; every operation completes before it returns.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpu.h"

static mgpu_status cpu_context_init(mgpu_context *ctx, int device) {
  (void)ctx;
  (void)device;
  return MGPU_OK;
}

static void cpu_context_destroy(mgpu_context *ctx) { (void)ctx; }

static void *cpu_stream(const mgpu_context *ctx) {
  (void)ctx;
  return NULL;
}

static mgpu_status cpu_nothing(mgpu_context *ctx) {
  (void)ctx;
  return MGPU_OK;
}

static mgpu_status cpu_info(mgpu_context *ctx, mgpu_context_info *info) {
  (void)ctx;
  snprintf(info->name, sizeof info->name, "host CPU (serial)");
  return MGPU_OK;
}

static mgpu_status cpu_alloc(mgpu_context *ctx, size_t bytes, void **out) {
  /* 64-byte alignment: any element type, and the same alignment guarantees
   * as device allocations for code that vectorises. */
  size_t rounded = (bytes + 63) & ~(size_t)63;
  if (rounded < bytes) rounded = 0;
  *out = rounded ? aligned_alloc(64, rounded) : NULL;
  if (!*out)
    return mgpu_set_error(ctx, MGPU_ENOMEM,
                          "out of memory: %zu bytes of host memory", bytes);
  return MGPU_OK;
}

static void cpu_free(mgpu_context *ctx, void *p) {
  (void)ctx;
  free(p);
}

static mgpu_status cpu_copy(mgpu_context *ctx, void *dst, const void *src,
                            size_t bytes) {
  (void)ctx;
  memmove(dst, src, bytes);
  return MGPU_OK;
}

static const mgpu_backend cpu_backend = {
  .name = "cpu",
  .max_count = MGPU_WIDE_MAX_COUNT,
  .wide_index = 1,
  .context_init = cpu_context_init,
  .context_destroy = cpu_context_destroy,
  .stream = cpu_stream,
  .sync = cpu_nothing,
  .reclaim = cpu_nothing,
  .info = cpu_info,
  .alloc = cpu_alloc,
  .free = cpu_free,
  .upload = cpu_copy,
  .download = cpu_copy,
  .copy = cpu_copy,
#define CPU_OP(name, type) .name = mgpu_cpu_##name,
  MGPU_BACKEND_OPS(CPU_OP)
#undef CPU_OP
};

const mgpu_backend *mgpu_cpu_backend(void) { return &cpu_backend; }
