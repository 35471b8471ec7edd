/*
 * tile_prefix.cuh - a single-pass exclusive scan over tiles (decoupled
 * look-back): each tile publishes its own count at once and its inclusive
 * prefix as soon as it knows it; a tile learns its exclusive prefix by
 * summing its predecessors' words back to the nearest published prefix.
 * This lets a compaction write its output in the same launch that computes
 * the counts, reading the inputs once.
 *
 * status[] holds one 64-bit word per tile, zeroed before the launch: the
 * flag in the top two bits and the value below, in one word so that a
 * single relaxed load sees both.  Tiles must be numbered in launch order
 * (blockIdx.x): a tile only waits for lower-numbered ones, which the
 * hardware has already started.
 */
#ifndef MGPU_TILE_PREFIX_CUH
#define MGPU_TILE_PREFIX_CUH

#include <cuda/atomic>

namespace mgpu {

constexpr unsigned long long kTileCount = 1ull << 62;  /* own count only */
constexpr unsigned long long kTilePrefix = 2ull << 62; /* inclusive prefix */
constexpr unsigned long long kTileValue = (1ull << 62) - 1;

__device__ __forceinline__ unsigned long long
tile_status_load(unsigned long long *p) {
  return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*p)
      .load(cuda::memory_order_relaxed);
}

__device__ __forceinline__ void tile_status_store(unsigned long long *p,
                                                  unsigned long long v) {
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*p).store(
      v, cuda::memory_order_relaxed);
}

/* Called by all 32 lanes of one warp of tile `tile` with its count; returns
 * (to every lane) the sum of the counts of tiles 0 .. tile-1. */
__device__ __forceinline__ long long tile_exclusive_prefix(
    unsigned long long *status, int tile, long long count) {
  const int lane = threadIdx.x & 31;
  if (tile == 0) {
    if (lane == 0) tile_status_store(status, kTilePrefix | (unsigned long long)count);
    return 0;
  }
  if (lane == 0)
    tile_status_store(status + tile, kTileCount | (unsigned long long)count);
  long long before = 0;
  for (int end = tile - 1;; end -= 32) {
    const int idx = end - lane; /* lane 0 = nearest predecessor */
    unsigned long long w;
    unsigned prefixes;
    /* Wait only for the tiles nearer than the nearest published prefix
     * (all 32 when there is none): waiting for the whole window made each
     * set-operation tile spin ~36 times on the H200, for predecessors
     * whose counts it did not need. */
    for (;;) {
      w = idx >= 0 ? tile_status_load(status + idx) : kTilePrefix;
      const unsigned invalid = __ballot_sync(0xffffffffu, (w >> 62) == 0);
      prefixes = __ballot_sync(0xffffffffu, (w >> 62) == 2);
      const unsigned needed = prefixes ? (prefixes & (0u - prefixes)) - 1u : ~0u;
      if (!(invalid & needed)) break;
      /* back off: without it the spinning warps issued ~8% of a
       * set-operation launch's instructions (ncu), taking issue slots
       * from the warps doing the work */
      __nanosleep(100);
    }
    /* sum up to and including the nearest lane holding a prefix */
    const int stop = prefixes ? __ffs(prefixes) - 1 : 31;
    long long v = lane <= stop ? (long long)(w & kTileValue) : 0;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
      v += __shfl_down_sync(0xffffffffu, v, off);
    before += __shfl_sync(0xffffffffu, v, 0);
    if (prefixes) break;
  }
  if (lane == 0)
    tile_status_store(status + tile,
                      kTilePrefix | (unsigned long long)(before + count));
  return before;
}

} // namespace mgpu

#endif
