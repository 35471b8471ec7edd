/*
 * vector_chunks.cuh - a tile of NT * VT items moved between global memory
 * and registers in 16-byte chunks: each warp owns a contiguous stretch of
 * 32 * VT items, and row r of the warp is 32 chunks side by side, lane l's
 * chunk at 32 * r + l.  Each load instruction of a warp reads 512
 * contiguous bytes, and a thread's chunk is contiguous items, so a scan
 * runs serially within a chunk, by shuffles across a row, and carries from
 * row to row, with no staging in shared memory.
 */
#ifndef MGPU_BLOCK_VECTOR_CHUNKS_CUH
#define MGPU_BLOCK_VECTOR_CHUNKS_CUH

#include <stdint.h>

namespace mgpu {

template <int VT, typename T> struct vector_chunks {
  static constexpr int V = 16 / (int)sizeof(T); /* items a chunk */
  static constexpr int ROWS = VT / V;
  static_assert(16 % sizeof(T) == 0 && VT % V == 0,
                "a thread's items are whole 16-byte chunks");

  /* the tile offset of this thread's chunk in row r */
  static __device__ __forceinline__ int offset(int r) {
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    return warp * 32 * VT + (r * 32 + lane) * V;
  }

  union chunk {
    uint4 v;
    T item[V];
  };

  /* x[V * r + k] = src[offset(r) + k]; past count, fill.  vector: the
   * tile is whole (count == NT * VT) and src 16-byte aligned. */
  static __device__ __forceinline__ void load(const T *src, int count,
                                              bool vector, T fill,
                                              T (&x)[VT]) {
    if (vector) {
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        chunk c;
        c.v = *reinterpret_cast<const uint4 *>(src + offset(r));
#pragma unroll
        for (int k = 0; k < V; ++k) x[V * r + k] = c.item[k];
      }
    } else {
#pragma unroll
      for (int r = 0; r < ROWS; ++r)
#pragma unroll
        for (int k = 0; k < V; ++k) {
          const int i = offset(r) + k;
          x[V * r + k] = i < count ? src[i] : fill;
        }
    }
  }

  /* dst[offset(r) + k] = x[V * r + k] below count; vector as for load */
  static __device__ __forceinline__ void store(T *dst, int count, bool vector,
                                               const T (&x)[VT]) {
    if (vector) {
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        chunk c;
#pragma unroll
        for (int k = 0; k < V; ++k) c.item[k] = x[V * r + k];
        *reinterpret_cast<uint4 *>(dst + offset(r)) = c.v;
      }
    } else {
#pragma unroll
      for (int r = 0; r < ROWS; ++r)
#pragma unroll
        for (int k = 0; k < V; ++k) {
          const int i = offset(r) + k;
          if (i < count) dst[i] = x[V * r + k];
        }
    }
  }
};

} // namespace mgpu

#endif
