/*
 * output_ring.cuh - a compaction's output parked in global memory until
 * its place is known (the deferred store of set operations).
 *
 * A tile of a single-pass compaction knows its output only after its
 * walk, and its place only after its predecessors have counted; waiting
 * for the place with the tile's shared memory and registers held cost
 * set operations 10-24% (docs/TUNING.md, tenth round).  Instead, the tile
 * writes its kept elements to a slot of a ring in global memory (L2, at
 * the ring's size) and ends; a block launched about a wave later copies
 * the slot to the output, by which time the place is known, while its own
 * tile's inputs are still on their way into shared memory.
 *
 * Slots are 128-byte aligned and a slot's lines are discarded from L2
 * once copied, so that the ring's dirty lines are dropped rather than
 * written back to DRAM: then only L2 sees the extra traffic.
 *
 * Slot reuse: tile t writes slot t % slots after tile t - slots has been
 * copied out (its copier sets a flag); with slots at least twice the
 * copy distance that flag is long set when t gets there.
 */
#ifndef MGPU_OUTPUT_RING_CUH
#define MGPU_OUTPUT_RING_CUH

#include <cstring>

#include "tile_prefix.cuh"

namespace mgpu {

/* The elements of one slot, rounded so that every slot starts on a line. */
template <typename T> constexpr long long ring_slot_elems(int nv) {
  return (((long long)nv * (long long)sizeof(T) + 127) / 128) * 128 /
         (long long)sizeof(T);
}

/* Copies src[0, n) to dst[0, n) with a block's `nt` threads: U loads in
 * flight a thread (the ring is in L2; one at a time would pay its round
 * trip per element).  Loads bypass L1: another SM wrote the slot, and this
 * SM may hold a line of it from an earlier use. */
template <int U, typename T>
__device__ __forceinline__ void copy_from_ring(const T *src, T *dst, int n,
                                               int tid, int nt) {
  for (int i0 = tid; i0 < n; i0 += nt * U) {
    T x[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int i = i0 + u * nt;
      if (i < n) x[u] = __ldcg(src + i);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int i = i0 + u * nt;
      if (i < n) dst[i] = x[u];
    }
  }
}

/* The same by one warp (the block's other warps are busy with their own
 * tile): src on a 16-byte boundary is read 16 bytes a lane, U loads in
 * flight, and dst (any alignment) written an element at a time. */
template <int U, typename T>
__device__ __forceinline__ void warp_copy_from_ring(const T *src, T *dst,
                                                    int n, int lane) {
  constexpr int E = 16 / sizeof(T);
  static_assert(16 % sizeof(T) == 0, "elements of 1-16 bytes");
  const int chunks = (n + E - 1) / E;
  const uint4 *s = reinterpret_cast<const uint4 *>(src);
  for (int c0 = lane; c0 < chunks; c0 += 32 * U) {
    uint4 x[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int c = c0 + 32 * u;
      if (c < chunks) x[u] = __ldcg(s + c);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int c = c0 + 32 * u;
      if (c < chunks) {
        T e[E];
        memcpy(e, &x[u], 16);
#pragma unroll
        for (int k = 0; k < E; ++k)
          if (c * E + k < n) dst[c * E + k] = e[k];
      }
    }
  }
}

/* Drops the L2 lines holding p[0, bytes) (p on a line) without writing
 * them back; their contents become undefined.  sm_80 and later. */
__device__ __forceinline__ void discard_from_l2(const void *p, size_t bytes,
                                                int tid, int nt) {
#if __CUDA_ARCH__ >= 800
  const char *c = static_cast<const char *>(p);
  const size_t lines = (bytes + 127) / 128;
  for (size_t l = (size_t)tid; l < lines; l += (size_t)nt)
    asm volatile("{\n .reg .u64 g;\n cvta.to.global.u64 g, %0;\n"
                 " discard.global.L2 [g], 128;\n}" ::"l"(c + l * 128)
                 : "memory");
#else
  (void)p, (void)bytes, (void)tid, (void)nt;
#endif
}

/* The copied flags: one word per tile, zeroed before the launch. */
__device__ __forceinline__ void ring_mark_copied(unsigned long long *flags,
                                                 int tile) {
  __threadfence();
  tile_status_store(flags + tile, 1);
}

__device__ __forceinline__ void ring_wait_copied(unsigned long long *flags,
                                                 int tile) {
  while (tile_status_load(flags + tile) == 0) tile_back_off();
  __threadfence();
}

} // namespace mgpu

#endif
