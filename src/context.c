/*
 * context.c - the services below the dispatch layer that backends may
 * call: a context's error message, references, accessors and memory
 * accounting.  Nothing here picks or knows a particular backend.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

mgpu_status mgpu_set_error(mgpu_context *ctx, mgpu_status status,
                           const char *fmt, ...) {
  if (ctx) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->error, sizeof ctx->error, fmt, ap);
    va_end(ap);
  }
  return status;
}

void mgpu_context_retain(mgpu_context *ctx) { ctx->refs++; }

void mgpu_context_release(mgpu_context *ctx) {
  if (ctx && --ctx->refs == 0) {
    ctx->be->context_destroy(ctx);
    free(ctx);
  }
}

const char *mgpu_context_device(const mgpu_context *ctx) {
  return ctx->device_name;
}
const char *mgpu_context_backend(const mgpu_context *ctx) {
  return ctx->be->name;
}
const char *mgpu_context_error(const mgpu_context *ctx) { return ctx->error; }
size_t mgpu_context_max_count(const mgpu_context *ctx) {
  return ctx->be->max_count;
}

int mgpu_context_wide_index(const mgpu_context *ctx) {
  return ctx->be->wide_index;
}
void *mgpu_context_stream(const mgpu_context *ctx) {
  return ctx->be->stream(ctx);
}
mgpu_status mgpu_context_sync(mgpu_context *ctx) { return ctx->be->sync(ctx); }
mgpu_status mgpu_context_reclaim(mgpu_context *ctx) {
  return ctx->be->reclaim(ctx);
}
void mgpu_context_set_memory_limit(mgpu_context *ctx, size_t bytes) {
  ctx->limit = bytes;
}

mgpu_status mgpu_context_set_kernel_paths(mgpu_context *ctx, const char *paths) {
  mgpu_kernel_paths k = {0, 0, 0};
  const char *p = paths ? paths : "";
  while (*p) {
    size_t len = strcspn(p, ",");
    const struct {
      const char *name;
      int lanes, sampled, small_smem; /* -1: unchanged */
    } known[] = {{"auto", 0, 0, 0},         {"lanes8", 8, -1, -1},
                 {"lanes16", 16, -1, -1},    {"lanes32", 32, -1, -1},
                 {"sampled", -1, 1, -1},     {"smem64", -1, -1, 1}};
    size_t i, n = sizeof known / sizeof known[0];
    for (i = 0; i < n; ++i)
      if (strlen(known[i].name) == len && strncmp(p, known[i].name, len) == 0)
        break;
    if (i == n)
      return mgpu_set_error(ctx, MGPU_EINVAL,
                            "kernel paths: unknown path '%.*s'", (int)len, p);
    if (known[i].lanes >= 0) k.partition_lanes = known[i].lanes;
    if (known[i].sampled >= 0) k.sampled = known[i].sampled;
    if (known[i].small_smem >= 0) k.small_smem = known[i].small_smem;
    p += len;
    if (*p == ',') ++p;
  }
  ctx->paths = k;
  return MGPU_OK;
}

mgpu_status mgpu_context_info_get(mgpu_context *ctx, mgpu_context_info *info) {
  memset(info, 0, sizeof *info);
  info->in_use = ctx->in_use;
  info->memory_limit = ctx->limit;
  return ctx->be->info(ctx, info);
}

/* ---- memory ---------------------------------------------------------------- */

mgpu_status mgpu_alloc(mgpu_context *ctx, size_t bytes, void **out) {
  *out = NULL;
  if (ctx->limit && (bytes > ctx->limit || ctx->in_use > ctx->limit - bytes))
    return mgpu_set_error(ctx, MGPU_ENOMEM,
                          "out of memory: %zu bytes requested, %zu of the "
                          "context's limit of %zu in use",
                          bytes, ctx->in_use, ctx->limit);
  /* Zero-byte buffers still get a distinct, freeable pointer. */
  const size_t taken = bytes ? bytes : 1;
  mgpu_status s;
  if (ctx->allocator.alloc) {
    *out = ctx->allocator.alloc(taken, mgpu_context_stream(ctx),
                                ctx->allocator.ud);
    s = *out ? MGPU_OK
             : mgpu_set_error(ctx, MGPU_ENOMEM,
                              "out of memory: the host's allocator gave no "
                              "block of %zu bytes",
                              taken);
  } else {
    s = ctx->be->alloc(ctx, taken, out);
  }
  if (s == MGPU_OK) ctx->in_use += bytes;
  return s;
}

void mgpu_free(mgpu_context *ctx, void *p, size_t bytes) {
  if (!p) return;
  if (ctx->allocator.free)
    ctx->allocator.free(p, bytes ? bytes : 1, mgpu_context_stream(ctx),
                        ctx->allocator.ud);
  else
    ctx->be->free(ctx, p);
  ctx->in_use -= bytes <= ctx->in_use ? bytes : ctx->in_use;
}

mgpu_status mgpu_upload(mgpu_context *ctx, void *dst, const void *src,
                        size_t bytes) {
  return bytes ? ctx->be->upload(ctx, dst, src, bytes) : MGPU_OK;
}

mgpu_status mgpu_download(mgpu_context *ctx, void *dst, const void *src,
                          size_t bytes) {
  return bytes ? ctx->be->download(ctx, dst, src, bytes) : MGPU_OK;
}

mgpu_status mgpu_copy(mgpu_context *ctx, void *dst, const void *src,
                      size_t bytes) {
  return bytes && dst != src ? ctx->be->copy(ctx, dst, src, bytes) : MGPU_OK;
}
