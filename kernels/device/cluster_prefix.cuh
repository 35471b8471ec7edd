/*
 * cluster_prefix.cuh - one look-back for the tiles of a thread-block
 * cluster: the cluster's first tile looks back over the global words
 * (tile_prefix.cuh) and hands its exclusive prefix to the others through
 * distributed shared memory; each tile hands its count to the cluster's
 * later tiles the same way.  A later tile's prefix is the first tile's
 * plus the counts of the tiles between, all read from its own shared
 * memory, so it never polls L2.
 *
 * Why: the look-back's polls are what the ordering costs.  The staged i32
 * pairs union's tile at 2^26 took 0.254 ms with no ordering, 0.256 with
 * every count published and no polls, 0.280 with every tile's look-back
 * warp polling (not waited for) and 0.261 with every fourth tile's
 * (mgpu_tune ceil, H200, docs/TUNING.md thirty-eighth round).
 *
 * Every tile still publishes its count and its inclusive prefix in the
 * global words, so look-backs of later clusters read them as before.
 * Tiles of one cluster are consecutive (rank = tile % cluster size); the
 * grid is a whole number of clusters, the blocks past the last tile
 * leaving at once (nothing is sent to them).
 */
#ifndef MGPU_CLUSTER_PREFIX_CUH
#define MGPU_CLUSTER_PREFIX_CUH

#include "tile_prefix.cuh"

namespace mgpu {

constexpr int kMaxClusterTiles = 8;

/* What a tile of a cluster is sent: the counts of the cluster's earlier
 * tiles (count[r] from rank r, kTileCount | count) and the first tile's
 * exclusive prefix (kTilePrefix | prefix); 0 until sent. */
struct cluster_slots {
  unsigned long long count[kMaxClusterTiles];
  unsigned long long first;
};

__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

/* 1 when the launch has no clusters */
__device__ __forceinline__ unsigned cluster_tiles() {
  unsigned n;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
  return n;
}

/* Every thread of every block arrives once its slots are zeroed (release);
 * a thread waits (acquire) before it first sends to another block, so that
 * no zeroing lands after what it sends.  Threads that have exited do not
 * hold the wait up. */
__device__ __forceinline__ void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.release;" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire;" ::: "memory");
}

/* word `local` (in this block's shared memory) of block `rank` */
__device__ __forceinline__ void cluster_send(unsigned long long *local,
                                             unsigned rank,
                                             unsigned long long v) {
  const unsigned a = (unsigned)__cvta_generic_to_shared(local);
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(remote)
               : "r"(a), "r"(rank));
  asm volatile("st.relaxed.cluster.shared::cluster.u64 [%0], %1;" ::"r"(remote),
               "l"(v)
               : "memory");
}

__device__ __forceinline__ unsigned long long
cluster_slot_load(unsigned long long *local) {
  unsigned long long v;
  const unsigned a = (unsigned)__cvta_generic_to_shared(local);
  asm volatile("ld.relaxed.cluster.shared::cta.u64 %0, [%1];"
               : "=l"(v)
               : "r"(a)
               : "memory");
  return v;
}

/* The tile's count to the cluster's later tiles (ranks rank+1 .. up to the
 * last tile); by the thread that publishes it (publish_count). */
__device__ __forceinline__ void cluster_send_count(cluster_slots &s,
                                                   unsigned rank,
                                                   unsigned size, int tile,
                                                   int tiles, long long count) {
  cluster_wait();
  for (unsigned r = rank + 1; r < size && tile + (int)(r - rank) < tiles; ++r)
    cluster_send(&s.count[rank], r, kTileCount | (unsigned long long)count);
}

/* The look-back of a cluster's tile, by its look-back warp (all 32 lanes);
 * as tile_exclusive_prefix_polled: poll() gives the tile's count (-1 until
 * handed over), the inclusive prefix is published, the exclusive one
 * returned to every lane. */
template <typename Poll>
__device__ __forceinline__ long long cluster_exclusive_prefix(
    unsigned long long *status, unsigned long long *gstatus,
    unsigned long long *gsum, cluster_slots &s, int tile, int tiles,
    Poll poll, long long *count_out) {
  const unsigned rank = cluster_rank(), size = cluster_tiles();
  const int lane = threadIdx.x & 31;
  long long count = -1;
  long long before = 0;
  if (rank == 0) {
    if (tile > 0)
      before = sum_predecessors(status, gstatus, gsum, tile, [&] {
        if (count < 0) count = poll();
        tile_back_off();
      });
    if (lane == 0) {
      cluster_wait();
      for (unsigned r = 1; r < size && tile + (int)r < tiles; ++r)
        cluster_send(&s.first, r, kTilePrefix | (unsigned long long)before);
    }
  } else {
    /* lanes below the rank read the earlier tiles' counts, lane 31 the
     * first tile's prefix */
    unsigned long long w;
    for (;;) {
      w = lane < (int)rank ? cluster_slot_load(&s.count[lane])
          : lane == 31     ? cluster_slot_load(&s.first)
                           : kTileCount;
      if (__all_sync(0xffffffffu, (w >> 62) != 0)) break;
      if (count < 0) count = poll();
      __nanosleep(32);
    }
    long long v = (long long)(w & kTileValue);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
      v += __shfl_down_sync(0xffffffffu, v, off);
    before = __shfl_sync(0xffffffffu, v, 0);
  }
  while (count < 0 && (count = poll()) < 0) __nanosleep(32);
  publish_prefix(status, gstatus, tile, before + count);
  *count_out = count;
  return before;
}

} // namespace mgpu

#endif
