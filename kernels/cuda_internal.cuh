/*
 * cuda_internal.cuh - what the CUDA backend's host files share: the
 * per-context state, error translation, scratch buffers, launch checks.
 */
#ifndef MGPU_CUDA_INTERNAL_CUH
#define MGPU_CUDA_INTERNAL_CUH

#include <cuda_runtime.h>

#include "../src/backend.h"

struct cuda_state {
  cudaStream_t stream;
  bool owns_stream; /* false: the host's (mgpu_context_options::stream) */
  cudaMemPool_t pool;
  int device;
  int sm_count;
  /* The device code that runs here: the virtual architecture it came
   * from (cudaFuncAttributes::ptxVersion, e.g. 80 for compute_80 PTX the
   * driver compiled for a Hopper) and its machine code's.  The kernels
   * take the path of code_arch (block/bulk_copy.cuh), and the host must
   * agree: dependent launches only where the kernels wait for them. */
  int code_arch, binary_arch;
  bool dependent_launch;
  /* Shared memory a block may opt in to (bytes), for choosing tiles that
   * fit (setop.cuh). */
  size_t smem_per_block;
  /* Pinned host memory mapped into the device: a kernel writes a result
   * the host needs (a set operation's size) straight into it, so reading
   * it back costs no copy, and the host waits for that word (see tickets)
   * rather than for the stream. */
  unsigned long long *word;
  /* Numbers the calls that publish a result in word[]: a kernel writes the
   * result with its call's ticket in word[0] (total_word,
   * block/total_word.cuh),
   * so the host can wait for that word instead of for the whole stream. */
  unsigned long long tickets;
};

static inline cuda_state *cuda_of(const mgpu_context *ctx) {
  return static_cast<cuda_state *>(ctx->impl);
}

static inline mgpu_status cuda_fail(mgpu_context *ctx, cudaError_t e,
                                    const char *what) {
  mgpu_status s = (e == cudaErrorMemoryAllocation) ? MGPU_ENOMEM : MGPU_EDEVICE;
  cudaGetLastError(); /* clear a non-sticky error so the next call starts clean */
  return mgpu_set_error(ctx, s, "%s: %s%s", what,
                        s == MGPU_ENOMEM ? "out of memory: " : "",
                        cudaGetErrorString(e));
}

#define CUDA_TRY(ctx, call)                                                    \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) return cuda_fail((ctx), e_, #call);                 \
  } while (0)

/* After a launch: a bad configuration shows up here, a fault at the next
 * synchronisation. */
#define CUDA_LAUNCHED(ctx, what)                                               \
  do {                                                                         \
    cudaError_t e_ = cudaGetLastError();                                       \
    if (e_ != cudaSuccess) return cuda_fail((ctx), e_, what);                  \
  } while (0)

/* Makes the context's device current for the calls that follow. */
static inline mgpu_status cuda_enter(mgpu_context *ctx) {
  CUDA_TRY(ctx, cudaSetDevice(cuda_of(ctx)->device));
  return MGPU_OK;
}

/* A temporary device buffer from the context's pool, released (stream
 * ordered) when it goes out of scope. */
struct cuda_scratch {
  mgpu_context *ctx = nullptr;
  void *ptr = nullptr;
  size_t bytes = 0;
  cuda_scratch() = default;
  cuda_scratch(const cuda_scratch &) = delete;
  cuda_scratch &operator=(const cuda_scratch &) = delete;
  mgpu_status take(mgpu_context *c, size_t n) {
    ctx = c;
    bytes = n;
    return mgpu_alloc(c, n, &ptr);
  }
  template <typename T> T *as() const { return static_cast<T *>(ptr); }
  /* Hands the block back now: stream ordered, so work already queued may
   * still use it. */
  void release() {
    if (ptr) mgpu_free(ctx, ptr, bytes);
    ptr = nullptr;
  }
  ~cuda_scratch() { release(); }
};

#define MGPU_TRY(expr)                                                         \
  do {                                                                         \
    mgpu_status s_ = (expr);                                                   \
    if (s_ != MGPU_OK) return s_;                                              \
  } while (0)

static inline unsigned grid_for(size_t n, unsigned per_block) {
  return (unsigned)((n + per_block - 1) / per_block);
}

/* Per-dtype entry points of the generated translation units. */
#define MGPU_DECLARE_KEYED(prim)                                               \
  extern "C" mgpu_status mgpu_cuda_##prim##_i32(mgpu_context *, const void *); \
  extern "C" mgpu_status mgpu_cuda_##prim##_u32(mgpu_context *, const void *); \
  extern "C" mgpu_status mgpu_cuda_##prim##_i64(mgpu_context *, const void *); \
  extern "C" mgpu_status mgpu_cuda_##prim##_u64(mgpu_context *, const void *); \
  extern "C" mgpu_status mgpu_cuda_##prim##_f32(mgpu_context *, const void *); \
  extern "C" mgpu_status mgpu_cuda_##prim##_f64(mgpu_context *, const void *);

MGPU_DECLARE_KEYED(merge)
MGPU_DECLARE_KEYED(mergesort)
MGPU_DECLARE_KEYED(setop)
MGPU_DECLARE_KEYED(segsort)

/* What the setop entry points take: the arguments and where the count
 * goes. */
struct cuda_setop_call {
  const mgpu_setop_args *args;
  size_t *count;
};

/* The operations of backend.h's table: mgpu_cuda_<name>(ctx, args). */
extern "C" {
/* group.cu: a group's NCCL communicators (mgpu_backend::group_init). */
extern "C" mgpu_status mgpu_cuda_group_init(mgpu_group *g);
extern "C" void mgpu_cuda_group_destroy(mgpu_group *g);

#define CUDA_DECLARE_OP(name, type) MGPU_DECLARE_OP(mgpu_cuda_, name, type)
MGPU_BACKEND_OPS(CUDA_DECLARE_OP)
#undef CUDA_DECLARE_OP
}

#endif
