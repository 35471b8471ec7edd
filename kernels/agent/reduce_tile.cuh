/*
 * reduce_tile.cuh - what one block of a reduce does: it folds the tiles
 * blockIdx.x, blockIdx.x + gridDim.x, ... into one value (16-byte chunk
 * loads, block/vector_chunks.cuh), reduces the block's values by shuffles
 * (block/warp_reduce.cuh) and stores the block's partial; the last block
 * to finish (a counter, zeroed before the launch) reduces the partials and
 * hands the result to the host in the pinned words (block/total_word.cuh).
 * One launch, the input read once.  scan.cu launches it.
 */
#ifndef MGPU_AGENT_REDUCE_TILE_CUH
#define MGPU_AGENT_REDUCE_TILE_CUH

#include <cuda/atomic>

#include "block/reduce_ops.cuh"
#include "block/total_word.cuh"
#include "block/vector_chunks.cuh"
#include "block/warp_reduce.cuh"
#include "policy/scan.cuh"
#include "policy/tile_shape.cuh"

namespace mgpu {

template <typename T> struct reduce_tiles {
  const T *src;
  long long n;
  bool aligned;                 /* src on a 16-byte boundary */
  unsigned long long *partials; /* one a block (bits_of) */
  unsigned *done;               /* blocks finished, zeroed */
  unsigned long long *word;     /* the context's pinned words */
  unsigned long long ticket;
};

template <typename P, typename T, typename Op>
__global__ void __launch_bounds__(P::NT, min_blocks_within_sm(P::NT,
                                                              P::MIN_BLOCKS))
reduce_kernel(reduce_tiles<T> t, Op op) {
  constexpr int NT = P::NT, VT = P::VT, NV = P::NV;
  typedef vector_chunks<VT, T> chunks;
  __shared__ T warp_slots[NT / 32];
  __shared__ bool last;
  const long long tiles = (t.n + NV - 1) / NV;
  T acc = Op::identity();
  for (long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const long long start = tile * NV, left = t.n - start;
    const int count = left < NV ? (int)left : NV;
    T x[VT];
    chunks::load(t.src + start, count, t.aligned && count == NV,
                 Op::identity(), x);
#pragma unroll
    for (int i = 0; i < VT; ++i) acc = op(acc, x[i]);
  }
  acc = block_reduce<NT>(acc, op, warp_slots);

  typedef cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word;
  if (threadIdx.x == 0) {
    word(t.partials[blockIdx.x]).store(bits_of(acc), cuda::memory_order_relaxed);
    /* acq_rel: the partial goes before the arrival; the last arrival sees
     * every partial stored before the others' */
    const unsigned arrived =
        cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*t.done)
            .fetch_add(1u, cuda::memory_order_acq_rel);
    last = arrived == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  cuda::atomic_thread_fence(cuda::memory_order_acquire,
                            cuda::thread_scope_device);
  acc = Op::identity();
  for (unsigned b = threadIdx.x; b < gridDim.x; b += NT)
    acc = op(acc, value_of_bits<T>(
                      word(t.partials[b]).load(cuda::memory_order_relaxed)));
  acc = block_reduce<NT>(acc, op, warp_slots);
  if (threadIdx.x == 0) publish_value(t.word, bits_of(acc), t.ticket);
}

} // namespace mgpu

#endif
