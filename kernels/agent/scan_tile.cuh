/*
 * scan_tile.cuh - what one block of a scan does with its tile, in one
 * launch over all tiles: it loads its items in 16-byte chunks
 * (block/vector_chunks.cuh), scans each thread's chunk serially, a row of
 * chunks by warp shuffles and the warps through shared memory, publishes
 * the tile's aggregate, learns the op over every tile before it by
 * decoupled look-back (block/value_prefix.cuh), and stores its outputs;
 * inputs are read once and outputs written once.  The last tile hands the
 * total to the host in the pinned words (block/total_word.cuh).  A tile
 * reads all of its items before it stores any, and reads no other tile's,
 * so the output may be the input.  scan.cu launches it.
 */
#ifndef MGPU_AGENT_SCAN_TILE_CUH
#define MGPU_AGENT_SCAN_TILE_CUH

#include "block/reduce_ops.cuh"
#include "block/total_word.cuh"
#include "block/value_prefix.cuh"
#include "block/vector_chunks.cuh"
#include "block/warp_reduce.cuh"
#include "policy/scan.cuh"
#include "policy/tile_shape.cuh"

namespace mgpu {

template <typename T> struct scan_tiles {
  const T *src;
  T *dst; /* may be src */
  long long n;
  bool inclusive;
  bool aligned;             /* src and dst on 16-byte boundaries */
  value_tile_record *recs;  /* one a tile, zeroed; null for one tile */
  unsigned long long *word; /* the context's pinned words */
  unsigned long long ticket;
};

template <typename P, typename T, typename Op>
__global__ void __launch_bounds__(P::NT, min_blocks_within_sm(P::NT,
                                                              P::MIN_BLOCKS))
scan_kernel(scan_tiles<T> t, Op op) {
  constexpr int NT = P::NT, VT = P::VT, NV = P::NV, WARPS = NT / 32;
  typedef vector_chunks<VT, T> chunks;
  constexpr int V = chunks::V, ROWS = chunks::ROWS;
  __shared__ T warp_totals[WARPS];
  __shared__ T tile_before;
  const int tile = blockIdx.x, lane = threadIdx.x & 31,
            warp = threadIdx.x >> 5;
  const long long start = (long long)tile * NV;
  const long long left = t.n - start;
  const int count = left < NV ? (int)left : NV;
  const bool vector = t.aligned && count == NV;

  T x[VT];
  chunks::load(t.src + start, count, vector, Op::identity(), x);

  /* each chunk's inclusive scan in place; row_before[r]: op over the
   * warp's items before this thread's chunk of row r */
  T row_before[ROWS];
  T carry = Op::identity(); /* op over the warp's earlier rows */
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
#pragma unroll
    for (int k = 1; k < V; ++k) x[V * r + k] = op(x[V * r + k - 1], x[V * r + k]);
    const T inc = warp_inclusive_scan(x[V * r + V - 1], op);
    T exc = __shfl_up_sync(0xffffffffu, inc, 1);
    if (lane == 0) exc = Op::identity();
    row_before[r] = op(carry, exc);
    carry = op(carry, __shfl_sync(0xffffffffu, inc, 31));
  }
  if (lane == 0) warp_totals[warp] = carry;
  __syncthreads();
  T warp_before = Op::identity(), aggregate = Op::identity();
#pragma unroll
  for (int w = 0; w < WARPS; ++w) {
    if (w == warp) warp_before = aggregate;
    aggregate = op(aggregate, warp_totals[w]);
  }

  if (warp == 0) {
    T before = Op::identity();
    if (t.recs) {
      if (tile == 0) {
        if (lane == 0) publish_tile_value(t.recs, kValuePrefix, bits_of(aggregate));
      } else {
        if (lane == 0)
          publish_tile_value(t.recs + tile, kValueAggregate, bits_of(aggregate));
        before = value_exclusive_prefix<T>(t.recs, tile, op);
        if (lane == 0)
          publish_tile_value(t.recs + tile, kValuePrefix,
                             bits_of(op(before, aggregate)));
      }
    }
    if (lane == 0) {
      tile_before = before;
      if (tile == (int)gridDim.x - 1)
        publish_value(t.word, bits_of(op(before, aggregate)), t.ticket);
    }
  }
  __syncthreads();
  const T base = op(tile_before, warp_before);

  /* chunk items hold inclusive scans within the chunk */
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const T b = op(base, row_before[r]);
    if (t.inclusive) {
#pragma unroll
      for (int k = 0; k < V; ++k) x[V * r + k] = op(b, x[V * r + k]);
    } else {
#pragma unroll
      for (int k = V - 1; k > 0; --k) x[V * r + k] = op(b, x[V * r + k - 1]);
      x[V * r] = b;
    }
  }
  /* the first output of an exclusive scan (0.0 for a float sum, not the
   * -0.0 it starts from) */
  if (!t.inclusive && tile == 0 && threadIdx.x == 0) x[0] = Op::first();
  chunks::store(t.dst + start, count, vector, x);
}

} // namespace mgpu

#endif
