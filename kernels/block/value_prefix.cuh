/*
 * value_prefix.cuh - decoupled look-back for a scan of values under any
 * reduction (block/reduce_ops.cuh).  tile_prefix.cuh packs a flag and a
 * 62-bit count in one word, which a 64-bit value, a float or a min does
 * not fit; here each tile has a 32-byte record (one sector) with its flag
 * beside its aggregate and its inclusive prefix, the value stored before
 * the flag is released and read after the flag is acquired.  A segmented
 * scan (reduce_by_key) carries a run count beside each value in the
 * record's fourth word (value_pair_exclusive_prefix).
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
  /* segmented scans only (value_pair_exclusive_prefix): in the 32-bit
   * instance (Off = int32_t, fewer than 2^31 items) the aggregate's run
   * count in the low 32 bits, the prefix's in the high 32; in the 64-bit
   * one, whose prefix may pass 2^32 - 1, the prefix's alone (the
   * aggregate's, at most a tile, rides in the flag word: kPairCountShift) */
  unsigned long long counts;
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

/* ---- segmented: (runs, value) pairs ---------------------------------------
 * A tile's pair is the number of runs that start in it and op over its
 * values from its last run start on (over all of them when none starts
 * in it).  Pairs combine in tile order, not commutatively:
 * (c1, v1) then (c2, v2) is (c1 + c2, c2 ? v2 : op(v1, v2)). */
template <typename T> struct run_pair {
  long long runs;
  T value;
};

template <typename T, typename Op>
__device__ __forceinline__ run_pair<T> pair_then(run_pair<T> a, run_pair<T> b,
                                                 Op op) {
  return {a.runs + b.runs, b.runs ? b.value : op(a.value, b.value)};
}

/* One thread publishes: the value and the count, then the flag.  The
 * aggregate's count and the prefix's share a word; the same thread
 * writes both, the prefix's after the aggregate's, so a reader that
 * acquired either flag finds its half there. */
__device__ __forceinline__ void publish_tile_pair(value_tile_record *rec,
                                                  unsigned long long flag,
                                                  unsigned long long bits,
                                                  unsigned long long counts) {
  device_word(flag == kValuePrefix ? rec->prefix : rec->aggregate)
      .store(bits, cuda::memory_order_relaxed);
  device_word(rec->counts).store(counts, cuda::memory_order_relaxed);
  device_word(rec->flag).store(flag, cuda::memory_order_release);
}

/* The 64-bit instance's flag word: the flag in the low byte, the tile's
 * own run count (at most a tile's items) above it, so that a reader which
 * acquired kValueAggregate has the count from the same load, and counts
 * holds the prefix's whole 64 bits. */
constexpr int kPairCountShift = 8;
constexpr unsigned long long kPairFlagMask = 0xffull;

/* A tile's aggregate pair; Off as in value_pair_exclusive_prefix. */
template <typename Off>
__device__ __forceinline__ void publish_pair_aggregate(value_tile_record *rec,
                                                       unsigned long long bits,
                                                       long long runs) {
  if constexpr (sizeof(Off) == 4) {
    publish_tile_pair(rec, kValueAggregate, bits, (unsigned long long)runs);
  } else {
    device_word(rec->aggregate).store(bits, cuda::memory_order_relaxed);
    device_word(rec->flag).store(
        kValueAggregate | (unsigned long long)runs << kPairCountShift,
        cuda::memory_order_release);
  }
}

/* A tile's inclusive prefix pair (runs), after its aggregate of
 * aggregate_runs (0 for tile 0, which publishes no aggregate). */
template <typename Off>
__device__ __forceinline__ void publish_pair_prefix(value_tile_record *rec,
                                                    unsigned long long bits,
                                                    long long runs,
                                                    long long aggregate_runs) {
  if constexpr (sizeof(Off) == 4) {
    publish_tile_pair(rec, kValuePrefix, bits,
                      (unsigned long long)runs << 32 |
                          (unsigned long long)aggregate_runs);
  } else {
    device_word(rec->prefix).store(bits, cuda::memory_order_relaxed);
    device_word(rec->counts).store((unsigned long long)runs,
                                   cuda::memory_order_relaxed);
    device_word(rec->flag).store(
        kValuePrefix | (unsigned long long)aggregate_runs << kPairCountShift,
        cuda::memory_order_release);
  }
}

/* value_exclusive_prefix for pairs: called by the 32 lanes of one warp of
 * tile `tile` > 0 once its aggregate is published; returns (to every
 * lane) the pairs of tiles 0 .. tile-1 combined in order.  Lanes past the
 * nearest prefix take no part (no identity is ever combined: under min
 * and max a NaN identity could displace a NaN value of another payload),
 * and tile 0 always publishes a prefix, so the window that reaches it
 * stops there.  Off is the launch's offset type: its records were written
 * by publish_pair_aggregate<Off> and publish_pair_prefix<Off>. */
template <typename T, typename Off, typename Op>
__device__ __forceinline__ run_pair<T>
value_pair_exclusive_prefix(value_tile_record *recs, int tile, Op op) {
  const int lane = threadIdx.x & 31;
  run_pair<T> before = {0, Op::identity()};
  bool have = false;
  for (int end = tile - 1;; end -= 32) {
    const int i = end - lane; /* lane 0 = nearest */
    /* word: the flag word, which in the 64-bit instance holds a count */
    unsigned long long word, flag, bits = 0, counts = 0;
    for (;;) {
      word = i >= 0 ? device_word(recs[i].flag).load(cuda::memory_order_acquire)
                    : (unsigned long long)kValuePrefix;
      flag = sizeof(Off) == 4 ? word : word & kPairFlagMask;
      if (__all_sync(0xffffffffu, flag != kValueNone)) break;
      tile_back_off();
    }
    if (i >= 0) {
      bits = device_word(flag == kValuePrefix ? recs[i].prefix
                                              : recs[i].aggregate)
                 .load(cuda::memory_order_relaxed);
      counts = device_word(recs[i].counts).load(cuda::memory_order_relaxed);
    }
    const unsigned prefixes = __ballot_sync(0xffffffffu, flag == kValuePrefix);
    const int stop = prefixes ? __ffs(prefixes) - 1 : 31;
    long long runs;
    if constexpr (sizeof(Off) == 4)
      runs = (long long)(flag == kValuePrefix ? counts >> 32
                                              : counts & 0xffffffffull);
    else
      runs = (long long)(flag == kValuePrefix ? counts
                                              : word >> kPairCountShift);
    run_pair<T> x = {runs, value_of_bits<T>(bits)};
    /* lane l ends up with lanes l .. min(l + 2 * off, stop + 1) - 1, the
     * higher lanes (earlier tiles) first */
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      run_pair<T> y;
      y.runs = __shfl_down_sync(0xffffffffu, x.runs, off);
      y.value = __shfl_down_sync(0xffffffffu, x.value, off);
      if (lane + off <= stop) x = pair_then(y, x, op);
    }
    x.runs = __shfl_sync(0xffffffffu, x.runs, 0);
    x.value = __shfl_sync(0xffffffffu, x.value, 0);
    before = have ? pair_then(x, before, op) : x;
    have = true;
    if (prefixes) return before;
  }
}

} // namespace mgpu

#endif
