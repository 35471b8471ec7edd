/*
 * cuda_backend.cu - the CUDA backend's table: contexts (one stream and one
 * stream-ordered memory pool each), memory, and dispatch by key dtype to the
 * generated per-dtype translation units.
 */
#include <mutex>
#include <vector>
#include <stdio.h>

#include "cuda_internal.cuh"

namespace {

/* Live contexts, so that an allocation failure on one can return the cached
 * blocks of every pool to the device before retrying. */
std::mutex live_mutex;
struct live_node {
  mgpu_context *ctx;
  live_node *next;
};
live_node *live_head = nullptr;

void live_add(mgpu_context *ctx) {
  std::lock_guard<std::mutex> lock(live_mutex);
  live_head = new live_node{ctx, live_head};
}

void live_remove(mgpu_context *ctx) {
  std::lock_guard<std::mutex> lock(live_mutex);
  for (live_node **p = &live_head; *p; p = &(*p)->next) {
    if ((*p)->ctx == ctx) {
      live_node *dead = *p;
      *p = dead->next;
      delete dead;
      return;
    }
  }
}

/* What allow_shared_memory has set, per kernel and device: a few dozen
 * entries at most, one per kernel that needs more than 48 KB. */
std::mutex allowance_mutex;
struct allowance {
  const void *kernel;
  int device;
  size_t bytes;
};
std::vector<allowance> allowances;

/* Asked for its attributes, never launched: whether the build has code
 * this GPU can run, and which (every kernel is built for the same
 * architectures). */
__global__ void arch_probe_kernel() {}

#ifndef MGPU_BUILT_ARCHS
#define MGPU_BUILT_ARCHS "?"
#endif

/* The build's device code for `device`, or an error that names the GPU's
 * architecture and the ones built, now rather than at the first launch. */
mgpu_status probe_device_code(mgpu_context *ctx, int device,
                              cudaFuncAttributes *fa) {
  cudaError_t e = cudaFuncGetAttributes(fa, arch_probe_kernel);
  if (e == cudaSuccess) return MGPU_OK;
  cudaGetLastError();
  cudaDeviceProp prop;
  if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction ||
      e == cudaErrorUnsupportedPtxVersion || e == cudaErrorInvalidPtx) {
    if (cudaGetDeviceProperties(&prop, device) == cudaSuccess)
      return mgpu_set_error(
          ctx, MGPU_ENODEV,
          "CUDA device %d (%s) is sm_%d%d, and this build of mgpu has code "
          "for CUDA architectures %s only (rebuild with "
          "-DMGPU_CUDA_ARCHS=\"%d%d\" or add it to the list): %s",
          device, prop.name, prop.major, prop.minor, MGPU_BUILT_ARCHS,
          prop.major, prop.minor, cudaGetErrorString(e));
  }
  return cuda_fail(ctx, e, "looking for this GPU's code in the build");
}

const char *st_stream_what(const mgpu_context *ctx) {
  return ctx->host_stream ? "the host's stream" : "creating the context's stream";
}

mgpu_status cuda_context_init(mgpu_context *ctx, int device) {
  int supported = 0;
  CUDA_TRY(ctx, cudaSetDevice(device));
  cudaFuncAttributes fa;
  MGPU_TRY(probe_device_code(ctx, device, &fa));
  int smem_optin = 0;
  CUDA_TRY(ctx, cudaDeviceGetAttribute(&smem_optin,
                                       cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                       device));
  CUDA_TRY(ctx, cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported,
                                       device));
  if (!supported)
    return mgpu_set_error(ctx, MGPU_ENODEV,
                          "CUDA device %d has no stream-ordered allocator", device);
  cuda_state *st = new (std::nothrow) cuda_state();
  if (!st) return mgpu_set_error(ctx, MGPU_ENOMEM, "out of host memory");
  st->device = device;
  st->code_arch = fa.ptxVersion;
  st->binary_arch = fa.binaryVersion;
  st->dependent_launch = fa.ptxVersion >= 90;
  st->smem_per_block = (size_t)smem_optin;
  cudaError_t e = cudaDeviceGetAttribute(&st->sm_count,
                                         cudaDevAttrMultiProcessorCount, device);
  st->owns_stream = ctx->host_stream == nullptr;
  if (e == cudaSuccess) {
    if (st->owns_stream)
      e = cudaStreamCreateWithFlags(&st->stream, cudaStreamNonBlocking);
    else
      st->stream = static_cast<cudaStream_t>(ctx->host_stream);
  }
  if (e == cudaSuccess && !st->owns_stream) {
    /* the host's stream must belong to this device */
    int stream_device = -1;
    e = cudaStreamGetDevice(st->stream, &stream_device);
    if (e == cudaSuccess && stream_device != device) {
      delete st;
      return mgpu_set_error(ctx, MGPU_EINVAL,
                            "the host's stream belongs to CUDA device %d, "
                            "not %d",
                            stream_device, device);
    }
  }
  if (e != cudaSuccess) {
    delete st;
    return cuda_fail(ctx, e, st_stream_what(ctx));
  }
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  e = cudaMemPoolCreate(&st->pool, &props);
  if (e == cudaSuccess) {
    /* Keep freed blocks cached across synchronisations: without this the
     * pool hands memory back at every sync and each call pays to map it
     * again.  mgpu_context_reclaim trims it when memory runs short. */
    uint64_t keep = ~(uint64_t)0;
    e = cudaMemPoolSetAttribute(st->pool, cudaMemPoolAttrReleaseThreshold, &keep);
    if (e != cudaSuccess) cudaMemPoolDestroy(st->pool);
  }
  if (e != cudaSuccess) {
    if (st->owns_stream) cudaStreamDestroy(st->stream);
    delete st;
    return cuda_fail(ctx, e, "creating the context's memory pool");
  }
  e = cudaHostAlloc((void **)&st->word, 64,
                    cudaHostAllocMapped | cudaHostAllocPortable);
  if (e != cudaSuccess) {
    cudaMemPoolDestroy(st->pool);
    if (st->owns_stream) cudaStreamDestroy(st->stream);
    delete st;
    return cuda_fail(ctx, e, "allocating the context's pinned host word");
  }
  memset(st->word, 0, 64); /* no ticket yet (cuda_state::tickets) */
  ctx->impl = st;
  live_add(ctx);
  return MGPU_OK;
}

void cuda_context_destroy(mgpu_context *ctx) {
  cuda_state *st = cuda_of(ctx);
  if (!st) return;
  live_remove(ctx);
  /* At interpreter exit the runtime may already be unloading: every call
   * here may fail, and failing is fine. */
  if (cudaSetDevice(st->device) == cudaSuccess) {
    cudaStreamSynchronize(st->stream);
    cudaMemPoolDestroy(st->pool);
    if (st->owns_stream) cudaStreamDestroy(st->stream);
    cudaFreeHost(st->word);
  }
  cudaGetLastError();
  delete st;
  ctx->impl = nullptr;
}

void *cuda_stream(const mgpu_context *ctx) { return cuda_of(ctx)->stream; }

mgpu_status cuda_sync(mgpu_context *ctx) {
  MGPU_TRY(cuda_enter(ctx));
  CUDA_TRY(ctx, cudaStreamSynchronize(cuda_of(ctx)->stream));
  return MGPU_OK;
}

mgpu_status cuda_reclaim(mgpu_context *ctx) {
  std::lock_guard<std::mutex> lock(live_mutex);
  for (live_node *p = live_head; p; p = p->next) {
    cuda_state *st = cuda_of(p->ctx);
    if (cudaSetDevice(st->device) != cudaSuccess) continue;
    cudaStreamSynchronize(st->stream);
    cudaMemPoolTrimTo(st->pool, 0);
  }
  cudaGetLastError();
  return cuda_enter(ctx);
}

mgpu_status cuda_info(mgpu_context *ctx, mgpu_context_info *info) {
  cuda_state *st = cuda_of(ctx);
  MGPU_TRY(cuda_enter(ctx));
  cudaDeviceProp prop;
  CUDA_TRY(ctx, cudaGetDeviceProperties(&prop, st->device));
  snprintf(info->name, sizeof info->name, "%.*s", (int)sizeof info->name - 1,
           prop.name);
  info->multiprocessors = prop.multiProcessorCount;
  info->cc_major = prop.major;
  info->cc_minor = prop.minor;
  info->code_arch = st->code_arch;
  info->binary_arch = st->binary_arch;
  snprintf(info->path, sizeof info->path, "%s",
           st->code_arch >= 90 ? "sm90" : st->code_arch >= 80 ? "sm80" : "sm75");
  snprintf(info->built_archs, sizeof info->built_archs, "%s", MGPU_BUILT_ARCHS);
  CUDA_TRY(ctx, cudaMemGetInfo(&info->memory_free, &info->memory_total));
  uint64_t reserved = 0;
  CUDA_TRY(ctx, cudaMemPoolGetAttribute(st->pool, cudaMemPoolAttrReservedMemCurrent,
                                        &reserved));
  info->pool_reserved = (size_t)reserved;
  return MGPU_OK;
}

mgpu_status cuda_alloc(mgpu_context *ctx, size_t bytes, void **out) {
  cuda_state *st = cuda_of(ctx);
  MGPU_TRY(cuda_enter(ctx));
  cudaError_t e = cudaMallocFromPoolAsync(out, bytes, st->pool, st->stream);
  if (e != cudaSuccess) {
    *out = nullptr;
    return cuda_fail(ctx, e, "cudaMallocFromPoolAsync");
  }
  return MGPU_OK;
}

void cuda_free(mgpu_context *ctx, void *p) {
  cuda_state *st = cuda_of(ctx);
  /* Stream ordered: work already queued on this stream may still read p. */
  if (cudaSetDevice(st->device) == cudaSuccess) cudaFreeAsync(p, st->stream);
  cudaGetLastError();
}

mgpu_status cuda_upload(mgpu_context *ctx, void *dst, const void *src,
                        size_t bytes) {
  MGPU_TRY(cuda_enter(ctx));
  /* From pageable memory this returns once src has been staged, so the
   * caller may reuse src at once. */
  CUDA_TRY(ctx, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice,
                                cuda_of(ctx)->stream));
  return MGPU_OK;
}

mgpu_status cuda_download(mgpu_context *ctx, void *dst, const void *src,
                          size_t bytes) {
  MGPU_TRY(cuda_enter(ctx));
  cudaStream_t s = cuda_of(ctx)->stream;
  CUDA_TRY(ctx, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s));
  CUDA_TRY(ctx, cudaStreamSynchronize(s));
  return MGPU_OK;
}

mgpu_status cuda_copy(mgpu_context *ctx, void *dst, const void *src,
                      size_t bytes) {
  MGPU_TRY(cuda_enter(ctx));
  CUDA_TRY(ctx, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice,
                                cuda_of(ctx)->stream));
  return MGPU_OK;
}

#define DISPATCH_KEYED(prim, ctx, type, args)                                  \
  do {                                                                         \
    MGPU_TRY(cuda_enter(ctx));                                                 \
    switch (type) {                                                            \
    case MGPU_I32: return mgpu_cuda_##prim##_i32(ctx, args);                   \
    case MGPU_U32: return mgpu_cuda_##prim##_u32(ctx, args);                   \
    case MGPU_I64: return mgpu_cuda_##prim##_i64(ctx, args);                   \
    case MGPU_U64: return mgpu_cuda_##prim##_u64(ctx, args);                   \
    case MGPU_F32: return mgpu_cuda_##prim##_f32(ctx, args);                   \
    case MGPU_F64: return mgpu_cuda_##prim##_f64(ctx, args);                   \
    default: break;                                                            \
    }                                                                          \
    return mgpu_set_error(ctx, MGPU_EINVAL, "unknown key dtype");              \
  } while (0)

} // namespace

extern "C" mgpu_status mgpu_cuda_merge(mgpu_context *ctx, mgpu_merge_args *args) {
  DISPATCH_KEYED(merge, ctx, args->key_type, args);
}

extern "C" mgpu_status mgpu_cuda_mergesort(mgpu_context *ctx, mgpu_sort_args *args) {
  DISPATCH_KEYED(mergesort, ctx, args->key_type, args);
}

extern "C" mgpu_status mgpu_cuda_segsort(mgpu_context *ctx, mgpu_segsort_args *args) {
  DISPATCH_KEYED(segsort, ctx, args->sort.key_type, args);
}

extern "C" mgpu_status mgpu_cuda_setop(mgpu_context *ctx, mgpu_setop_args *args) {
  cuda_setop_call call = {args, &args->count};
  DISPATCH_KEYED(setop, ctx, args->key_type, &call);
}

namespace {

mgpu_backend make_backend() {
  mgpu_backend b = {};
  b.name = "cuda";
  /* every call's kernels take 64-bit offsets past INT32_MAX (their 32-bit
   * instances below it) and read and write int64 index arrays
   * (docs/WIDE.md) */
  b.max_count = MGPU_WIDE_MAX_COUNT;
  b.wide_index = 1;
  b.context_init = cuda_context_init;
  b.context_destroy = cuda_context_destroy;
  b.stream = cuda_stream;
  b.sync = cuda_sync;
  b.reclaim = cuda_reclaim;
  b.info = cuda_info;
  b.alloc = cuda_alloc;
  b.free = cuda_free;
  b.upload = cuda_upload;
  b.download = cuda_download;
  b.copy = cuda_copy;
  b.group_init = mgpu_cuda_group_init;
  b.group_destroy = mgpu_cuda_group_destroy;
#define CUDA_OP(name, type) b.name = mgpu_cuda_##name;
  MGPU_BACKEND_OPS(CUDA_OP)
#undef CUDA_OP
  return b;
}

const mgpu_backend cuda_backend_table = make_backend();

} // namespace

extern "C" const mgpu_backend *mgpu_cuda_backend(void) {
  return &cuda_backend_table;
}

extern "C" int mgpu_cuda_backend_device_count(void) {
  /* Asked once: the first query starts the runtime, which is slow. */
  static int count = -1;
  if (count < 0) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) n = 0;
    cudaGetLastError();
    count = n;
  }
  return count;
}

namespace mgpu {

size_t shared_memory_allowance(const void *kernel, int device) {
  std::lock_guard<std::mutex> lock(allowance_mutex);
  for (const allowance &a : allowances)
    if (a.kernel == kernel && a.device == device) return a.bytes;
  return 0;
}

void shared_memory_allowed(const void *kernel, int device, size_t bytes) {
  std::lock_guard<std::mutex> lock(allowance_mutex);
  for (allowance &a : allowances)
    if (a.kernel == kernel && a.device == device) {
      a.bytes = a.bytes > bytes ? a.bytes : bytes;
      return;
    }
  allowances.push_back({kernel, device, bytes});
}

} // namespace mgpu
