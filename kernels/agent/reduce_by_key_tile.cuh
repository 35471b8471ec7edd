/*
 * reduce_by_key_tile.cuh - what one block of reduce_by_key does with its
 * tile, in one launch over all tiles: it stages its keys and values in
 * shared memory, flags the run starts (a key not equivalent to the one
 * before, as unique decides), reduces each thread's items and then the
 * block's threads as (runs, value) pairs (block/value_prefix.cuh,
 * run_pair), learns the pair of every tile before it by decoupled
 * look-back, and stores, at each run start, the run's first key and the
 * value of the run that ends just before it.  The last tile stores the
 * last run's value and hands the number of runs to the host
 * (block/total_word.cuh).  Inputs are read once and outputs written once;
 * a run may cross any number of tiles.  keyed.cu launches it.
 */
#ifndef MGPU_AGENT_REDUCE_BY_KEY_TILE_CUH
#define MGPU_AGENT_REDUCE_BY_KEY_TILE_CUH

#include <stdint.h>

#include "../../src/element.h"
#include "block/reduce_ops.cuh"
#include "block/total_word.cuh"
#include "block/value_prefix.cuh"
#include "policy/keyed.cuh"
#include "policy/tile_shape.cuh"

namespace mgpu {

/* One launch's arguments.  Keys travel as unsigned words of their width
 * (U); floats says they are floats of that width. */
template <typename U, typename T> struct reduce_by_key_tiles {
  const U *keys;
  const T *vals;
  long long n;
  bool floats;
  value_tile_record *recs;  /* one a tile, zeroed; null for one tile */
  unsigned long long *word; /* the context's pinned word */
  unsigned long long ticket;
  U *out_keys;
  T *out_vals;
};

/* A key's class under unique's equivalence: integers are equal when their
 * words are; for floats the radix code maps every NaN to one word and -0.0
 * to 0.0's (element.h), and is one-to-one elsewhere, so equal codes are
 * exactly keys neither ordered before the other.  The flag is the same for
 * the whole launch: one instance a width serves integers and floats. */
template <typename U>
__device__ __forceinline__ U run_class(U k, bool floats) {
  if constexpr (sizeof(U) == 4) return floats ? mgpu_f32_radix_code(k) : k;
  else return floats ? mgpu_f64_radix_code(k) : k;
}

template <typename P, typename U, typename T> struct reduce_by_key_smem {
  U keys[P::NV];
  /* the items' values; then, at each run start, the value of the run
   * before it */
  T vals[P::NV];
  int starts[P::NV]; /* the tile places of the run starts, in order */
  long long warp_runs[P::NT / 32];
  T warp_vals[P::NT / 32];
  long long runs_before; /* runs started in the tiles before */
  T open_before;         /* the value of the run open at the tile's start */
};

template <typename T>
__device__ __forceinline__ run_pair<T> shfl_up_pair(run_pair<T> x, int off) {
  return {__shfl_up_sync(0xffffffffu, x.runs, off),
          __shfl_up_sync(0xffffffffu, x.value, off)};
}

/* The number of runs for the host: beside the ticket in one word when
 * the launch has fewer than 2^31 items (Off = int32_t), else a 64-bit
 * value (publish_value: the runs may pass 2^32 - 1; reduce_by_key_run
 * waits accordingly). */
template <typename Off>
__device__ __forceinline__ void publish_runs(unsigned long long *word,
                                             long long runs,
                                             unsigned long long ticket) {
  if constexpr (sizeof(Off) == 4)
    publish_total(word, (unsigned long long)runs, ticket);
  else
    publish_value(word, (unsigned long long)runs, ticket);
}

/* One tile a block, tiles in launch order (the look-back waits only for
 * lower-numbered tiles).  Op's identity() is never combined into a value
 * that is stored: every pair combined is of real items, and the one that
 * starts the input is a run start.  Off (int32_t below 2^31 items,
 * int64_t past) is the width of the look-back's counts (value_prefix.cuh)
 * and of the runs handed to the host; positions are long long in both. */
template <typename P, typename U, typename T, typename Off, typename Op>
__global__ void __launch_bounds__(P::NT, min_blocks_within_sm(P::NT,
                                                              P::MIN_BLOCKS))
reduce_by_key_kernel(reduce_by_key_tiles<U, T> t, Op op) {
  constexpr int NT = P::NT, VT = P::VT, NV = P::NV, WARPS = NT / 32;
  static_assert(VT <= 32, "a thread's run starts are one 32-bit mask");
  __shared__ reduce_by_key_smem<P, U, T> sm;
  const int tid = threadIdx.x, tile = blockIdx.x;
  const int lane = tid & 31, warp = tid >> 5;
  const long long start = (long long)tile * NV;
  const long long left = t.n - start;
  const int count = left < NV ? (int)left : NV;

  /* keys and values in, striped so a warp's loads are coalesced */
#pragma unroll
  for (int j = 0; j < VT; ++j) {
    const int i = j * NT + tid;
    if (i < count) {
      sm.keys[i] = t.keys[start + i];
      sm.vals[i] = t.vals[start + i];
    }
  }
  /* the key before the tile, which decides whether its first key starts a
   * run; the first tile's first key always does */
  U before_key = 0;
  if (tid == 0 && tile > 0) before_key = t.keys[start - 1];
  __syncthreads();

  /* this thread's items in tile order: its run starts, and op over its
   * values from its last run start on (from its first item when none) */
  unsigned heads = 0;
  run_pair<T> mine = {0, Op::identity()};
  U prev = 0; /* the class of the key before item j */
#pragma unroll
  for (int j = 0; j < VT; ++j) {
    const int i = tid * VT + j;
    if (i < count) {
      if (j == 0) prev = run_class(i ? sm.keys[i - 1] : before_key, t.floats);
      const U cls = run_class(sm.keys[i], t.floats);
      const bool h = (i == 0 && tile == 0) || cls != prev;
      prev = cls;
      const T v = sm.vals[i];
      mine.value = h || j == 0 ? v : op(mine.value, v);
      heads |= (unsigned)h << j;
    }
  }
  mine.runs = __popc(heads);

  /* the pairs of the threads before this one in the tile (by shuffles,
   * then the warps' totals), and the tile's own.  Threads past the end
   * hold no items; what they combine reaches only later threads, which
   * hold none either, and the last tile's value, which no tile reads. */
  run_pair<T> inc = mine;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const run_pair<T> y = shfl_up_pair(inc, off);
    if (lane >= off) inc = pair_then(y, inc, op);
  }
  const run_pair<T> in_warp = shfl_up_pair(inc, 1); /* lane 0: none */
  if (lane == 31) {
    sm.warp_runs[warp] = inc.runs;
    sm.warp_vals[warp] = inc.value;
  }
  __syncthreads();
  run_pair<T> aggregate = {sm.warp_runs[0], sm.warp_vals[0]};
  run_pair<T> warps_before = aggregate; /* warp > 0: warps 0 .. warp-1 */
#pragma unroll
  for (int w = 1; w < WARPS; ++w) {
    if (w == warp) warps_before = aggregate;
    aggregate = pair_then(aggregate, {sm.warp_runs[w], sm.warp_vals[w]}, op);
  }
  /* threads 0 .. tid-1 of the tile (none for thread 0) */
  run_pair<T> in_tile = {0, Op::identity()};
  if (warp > 0) in_tile = lane ? pair_then(warps_before, in_warp, op) : warps_before;
  else if (lane > 0) in_tile = in_warp;

  if (warp == 0) {
    run_pair<T> before = {0, Op::identity()};
    if (t.recs) {
      if (tile == 0) {
        if (lane == 0)
          publish_pair_prefix<Off>(t.recs, bits_of(aggregate.value),
                                   aggregate.runs, 0);
      } else {
        if (lane == 0)
          publish_pair_aggregate<Off>(t.recs + tile, bits_of(aggregate.value),
                                      aggregate.runs);
        before = value_pair_exclusive_prefix<T, Off>(t.recs, tile, op);
        if (lane == 0) {
          const run_pair<T> all = pair_then(before, aggregate, op);
          publish_pair_prefix<Off>(t.recs + tile, bits_of(all.value), all.runs,
                                   aggregate.runs);
        }
      }
    }
    if (lane == 0) {
      sm.runs_before = before.runs;
      sm.open_before = before.value;
      if (tile == (int)gridDim.x - 1)
        publish_runs<Off>(t.word, before.runs + aggregate.runs, t.ticket);
    }
  }
  __syncthreads();
  const long long runs_before = sm.runs_before;

  /* Walk the items again with the value of the run open before this
   * thread's first: at each run start, that value is the finished value of
   * the run before it, kept in the start's slot with the start's place
   * listed.  The tile's first thread has no threads before it in the tile;
   * tile 0's has nothing at all before it, and its first item is a run
   * start, so the identity it holds is never stored. */
  T acc = sm.open_before;
  if (tid > 0) acc = in_tile.runs || tile == 0 ? in_tile.value
                                               : op(acc, in_tile.value);
  int rank = (int)in_tile.runs;
#pragma unroll
  for (int j = 0; j < VT; ++j) {
    const int i = tid * VT + j;
    if (i < count) {
      const T v = sm.vals[i];
      if ((heads >> j) & 1) {
        sm.vals[i] = acc;
        sm.starts[rank++] = i;
        acc = v;
      } else {
        acc = op(acc, v);
      }
      if (start + i == t.n - 1) t.out_vals[runs_before + aggregate.runs - 1] = acc;
    }
  }
  __syncthreads();
  for (int k = tid; k < (int)aggregate.runs; k += NT) {
    const int i = sm.starts[k];
    const long long run = runs_before + k;
    t.out_keys[run] = sm.keys[i];
    if (run > 0) t.out_vals[run - 1] = sm.vals[i];
  }
}

} // namespace mgpu

#endif
