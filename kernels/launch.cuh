/* launch.cuh - small host-side helpers for kernel launches. */
#ifndef MGPU_LAUNCH_CUH
#define MGPU_LAUNCH_CUH

#include <atomic>

#include "block/total_word.cuh"
#include "cuda_internal.cuh"

namespace mgpu {

/* The shared memory a kernel has been allowed on a device (0: the
 * default), and recording a new allowance; cuda_backend.cu keeps them. */
size_t shared_memory_allowance(const void *kernel, int device);
void shared_memory_allowed(const void *kernel, int device, size_t bytes);

/* The shared memory a block may take, as the context's kernel paths see
 * it: "smem64" makes any GPU choose tiles as one with 64 KB a block
 * (Turing), so that the specs reach the tiles such GPUs take. */
inline size_t block_room(const mgpu_context *ctx) {
  const size_t room = cuda_of(ctx)->smem_per_block;
  return ctx->paths.small_smem && room > 64 * 1024 ? 64 * 1024 : room;
}

/* Kernels whose tiles need more than the default 48 KB of shared memory
 * must say so before their launch.  The attribute stays with the kernel on
 * its device, and setting it cost the host ~1 us a call (H200, set
 * operations at 2^20), so it is set once per kernel and device. */
template <typename F>
mgpu_status allow_shared_memory(mgpu_context *ctx, F *kernel, size_t bytes) {
  if (bytes <= 48 * 1024) return MGPU_OK;
  const int device = cuda_of(ctx)->device;
  if (shared_memory_allowance((const void *)kernel, device) >= bytes)
    return MGPU_OK;
  CUDA_TRY(ctx, cudaFuncSetAttribute(kernel,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)bytes));
  shared_memory_allowed((const void *)kernel, device, bytes);
  return MGPU_OK;
}

/* kernel<<<grid, block, smem, s>>>(args...), allowed when `early` to start
 * before the kernel ahead of it in the stream has finished (programmatic
 * dependent launch: the kernel must wait_for_prior_grid before it reads
 * what that kernel writes; block/grid_dependency.cuh).  Only where the
 * code that runs is sm_90's: before it the kernels do not wait. */
template <typename... Params, typename... Args>
cudaError_t launch_early(const mgpu_context *ctx, bool early,
                         void (*kernel)(Params...), unsigned grid,
                         unsigned block, size_t smem, cudaStream_t s,
                         Args... args) {
  early = early && cuda_of(ctx)->dependent_launch;
  cudaLaunchAttribute attr;
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(block);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = s;
  cfg.attrs = &attr;
  cfg.numAttrs = early ? 1 : 0;
  return cudaLaunchKernelEx(&cfg, kernel, args...);
}

/* How often wait_for_total reads the ticket's word between two questions
 * to the stream, which are only there to notice a stream that ended or
 * failed without it.  A read the host's cache answers takes a few ns;
 * asking the stream takes the driver's time, and a ticket that lands
 * meanwhile is seen only after it. */
constexpr int kPollsPerStreamQuery = 4096;

/* Waits for the total a kernel publishes with this call's ticket
 * (block/total_word.cuh).  The last tile of a set operation or a
 * compaction knows it once every tile has counted, before the last tiles'
 * stores land, so the call returns while they finish; the outputs
 * are complete in stream order, which is all any later use of them sees
 * (the context's stream, or a read that synchronises with it).  If the
 * stream ends or fails without the ticket, that is reported instead. */
inline mgpu_status wait_for_total(mgpu_context *ctx, unsigned long long ticket,
                                  unsigned long long *total,
                                  const char *what) {
  cuda_state *st = cuda_of(ctx);
  const auto landed = [&] {
    for (int i = 0; i < kPollsPerStreamQuery; ++i)
      if (total_word_is(__atomic_load_n(st->word, __ATOMIC_ACQUIRE), ticket))
        return true;
    return false;
  };
  for (;;) {
    if (landed()) break;
    const cudaError_t e = cudaStreamQuery(st->stream);
    if (e == cudaErrorNotReady) continue;
    CUDA_TRY(ctx, e);
    if (total_word_is(__atomic_load_n(st->word, __ATOMIC_ACQUIRE), ticket))
      break;
    return mgpu_set_error(ctx, MGPU_EDEVICE,
                          "%s kernel ended without publishing its count", what);
  }
  *total = __atomic_load_n(st->word, __ATOMIC_ACQUIRE) >> 32;
  return MGPU_OK;
}

/* wait_for_total for a kernel that published a 64-bit value with its
 * ticket (publish_value, block/total_word.cuh): the value is in word[1],
 * stored before the ticket was released. */
inline mgpu_status wait_for_value(mgpu_context *ctx, unsigned long long ticket,
                                  unsigned long long *value, const char *what) {
  unsigned long long unused = 0;
  MGPU_TRY(wait_for_total(ctx, ticket, &unused, what));
  *value = __atomic_load_n(&cuda_of(ctx)->word[1], __ATOMIC_ACQUIRE);
  return MGPU_OK;
}

/* Devices whose resident block counts resident_blocks remembers (others
 * ask every call). */
constexpr int kMaxCachedDevices = 16;

/* How many blocks of a tile kernel (the template argument, so that each
 * instantiation remembers its own; setop's staged tiles, merge's and
 * mergesort's for their prefetch distance) are resident at once on the
 * context's device (asked once per device and kernel); 0 if none fit.
 * The kernel's shared-memory allowance is raised first: asked before it,
 * the occupancy of a tile over 48 KB is 0, and a launch sized by that ran
 * one block an SM (i32 keys difference ~3x slower). */
template <auto KERNEL>
mgpu_status resident_blocks(mgpu_context *ctx, int threads, size_t smem,
                            long long *resident) {
  auto kernel = KERNEL;
  static std::atomic<int> per_sm_of[kMaxCachedDevices];
  const cuda_state *st = cuda_of(ctx);
  const int dev = st->device;
  int per_sm = dev < kMaxCachedDevices ? per_sm_of[dev].load() : 0;
  if (per_sm == 0) {
    MGPU_TRY(allow_shared_memory(ctx, kernel, smem));
    CUDA_TRY(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                      &per_sm, kernel, threads, smem));
    if (per_sm < 0) per_sm = 0;
    if (per_sm > 0 && dev < kMaxCachedDevices) per_sm_of[dev].store(per_sm);
  }
  *resident = (long long)per_sm * st->sm_count;
  return MGPU_OK;
}

template <typename T> __device__ __forceinline__ T *shared_as() {
  extern __shared__ __align__(16) unsigned char mgpu_dynamic_smem[];
  return reinterpret_cast<T *>(mgpu_dynamic_smem);
}

inline int tiles_of(long long n, int nv) { return (int)((n + nv - 1) / nv); }

/* The most blocks of a grid's x dimension. */
constexpr long long kMaxGridBlocks = 2147483647;

/* tiles_of for a launch of one block a tile whose n may pass INT_MAX: the
 * count, or MGPU_ETOOBIG where it would reach the grid's limit (past 2^41
 * elements for tiles of 1,024: no device holds that today, but the count
 * must not wrap if one does).  Below the limit, the tiles' splits (one
 * more than the tiles) fit an int too. */
inline mgpu_status checked_tiles(mgpu_context *ctx, long long n, int nv,
                                 int *tiles, const char *what) {
  const long long t = (n + nv - 1) / nv;
  if (t >= kMaxGridBlocks)
    return mgpu_set_error(ctx, MGPU_ETOOBIG,
                          "%s of %lld elements needs %lld tiles of %d, past "
                          "the grid's limit of %lld blocks",
                          what, n, t, nv, kMaxGridBlocks);
  *tiles = (int)t;
  return MGPU_OK;
}

/* Element-wise kernels: grid-stride loops over a few waves of blocks of
 * kStrideThreads, whatever n is. */
constexpr int kStrideThreads = 256;

inline unsigned stride_grid(mgpu_context *ctx, size_t n) {
  size_t blocks = (n + kStrideThreads - 1) / kStrideThreads;
  size_t cap = (size_t)cuda_of(ctx)->sm_count * 16;
  return (unsigned)(blocks < cap ? blocks : cap);
}

#define GRID_STRIDE(i, n)                                                      \
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);      \
       i += (size_t)gridDim.x * blockDim.x)

} // namespace mgpu

#endif
