/*
 * value_prefix.cuh - decoupled look-back for a scan of values under any
 * reduction (block/reduce_ops.cuh).  tile_prefix.cuh packs a flag and a
 * 62-bit count in one word, which a 64-bit value, a float or a min does
 * not fit; here each tile has a 32-byte record (one sector) with its flag
 * beside its aggregate and its inclusive prefix, the value stored before
 * the flag is released and read after the flag is acquired.
 *
 * The records are zeroed before the launch; tiles are numbered in launch
 * order, and a tile waits only for lower-numbered ones.
 */
#ifndef MGPU_BLOCK_VALUE_PREFIX_CUH
#define MGPU_BLOCK_VALUE_PREFIX_CUH

#include <cuda/atomic>

#include "block/reduce_ops.cuh"
#include "block/tile_prefix.cuh"
#include "block/warp_reduce.cuh"

namespace mgpu {

enum : unsigned long long {
  kValueNone = 0,      /* nothing published yet */
  kValueAggregate = 1, /* the tile's own aggregate */
  kValuePrefix = 2     /* its inclusive prefix */
};

struct __align__(32) value_tile_record {
  unsigned long long flag;
  unsigned long long aggregate; /* bits_of the value */
  unsigned long long prefix;
  unsigned long long unused;
};

typedef cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>
    device_word;

/* One thread publishes: the value, then the flag that says it is there. */
__device__ __forceinline__ void publish_tile_value(value_tile_record *rec,
                                                   unsigned long long flag,
                                                   unsigned long long bits) {
  device_word(flag == kValuePrefix ? rec->prefix : rec->aggregate)
      .store(bits, cuda::memory_order_relaxed);
  device_word(rec->flag).store(flag, cuda::memory_order_release);
}

/* Called by the 32 lanes of one warp of tile `tile` > 0 once its
 * aggregate is published; returns (to every lane) op over tiles
 * 0 .. tile-1, summed back a window of 32 tiles at a time to the nearest
 * published prefix. */
template <typename T, typename Op>
__device__ __forceinline__ T value_exclusive_prefix(value_tile_record *recs,
                                                    int tile, Op op) {
  const int lane = threadIdx.x & 31;
  T before = Op::identity();
  for (int end = tile - 1;; end -= 32) {
    const int i = end - lane; /* lane 0 = nearest */
    unsigned long long flag, bits = 0;
    for (;;) {
      flag = i >= 0 ? device_word(recs[i].flag).load(cuda::memory_order_acquire)
                    : (unsigned long long)kValuePrefix;
      if (__all_sync(0xffffffffu, flag != kValueNone)) break;
      tile_back_off();
    }
    if (i >= 0)
      bits = device_word(flag == kValuePrefix ? recs[i].prefix
                                              : recs[i].aggregate)
                 .load(cuda::memory_order_relaxed);
    const unsigned prefixes = __ballot_sync(0xffffffffu, flag == kValuePrefix);
    const int stop = __ffs(prefixes) - 1; /* -1: none in the window */
    T v = i >= 0 ? value_of_bits<T>(bits) : Op::identity();
    if (prefixes && lane > stop) v = Op::identity();
    before = op(warp_reduce(v, op), before);
    if (prefixes) return before;
  }
}

} // namespace mgpu

#endif
