/*
 * blocksort.cuh - what one block does with one mergesort tile of
 * NT * VT keys: each thread sorts its VT keys in registers, then log2(NT)
 * merge passes in shared memory double the sorted runs (groups of 2, 4, ...
 * NT threads cooperate on one merge, each finding its own start with Merge
 * Path), and the sorted tile is stored coalesced.
 */
#ifndef MGPU_AGENT_BLOCKSORT_CUH
#define MGPU_AGENT_BLOCKSORT_CUH

#include "block/merge_path.cuh"
#include "block/serial_merge.cuh"
#include "block/sorting_network.cuh"
#include "block/tile_io.cuh"
#include "agent/merge_tile.cuh"

namespace mgpu {

/* The tile starts at global index t0; every S-th key of the sorted tile
 * also goes to samples[(t0 + i) / S] (see store_samples).  keys_out2 /
 * vals_out2, when not null, receive a second copy of the sorted tile (the
 * early-exit sorts start with both of their buffers holding it). */
template <int NT, int VT, int S, bool FULL, bool HAS_V, typename K, typename V,
          typename Comp>
__device__ __forceinline__ void blocksort_tile_body(
    const K *keys_in, const V *vals_in, int count, K *keys_out, V *vals_out,
    K *keys_out2, V *vals_out2, K *samples, long long t0, Comp comp,
    merge_tile_smem<NT * VT, HAS_V, K, V> &sm) {
  const int tid = threadIdx.x;
  load_to_shared<NT, VT>(keys_in, count, sm.keys);
  if (HAS_V) load_to_shared<NT, VT>(vals_in, count, sm.vals);
  __syncthreads();

  K k[VT];
  V v[VT];
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    int idx = VT * tid + i;
    if (FULL || idx < count) {
      k[i] = sm.keys[idx];
      if (HAS_V) v[i] = sm.vals[idx];
    }
  }
  thread_sort<VT, HAS_V>(k, v, FULL ? 0u : tail_walls<VT>(count - VT * tid),
                        comp);
  __syncthreads();
  thread_to_shared<VT>(k, count, sm.keys);
  if (HAS_V) thread_to_shared<VT>(v, count, sm.vals);
  __syncthreads();

#pragma unroll 1
  for (int coop = 2; coop <= NT; coop *= 2) {
    /* Threads [g0, g0 + coop) merge the runs [start, mid) and [mid, end). */
    const int g0 = tid & ~(coop - 1);
    const int start = min(VT * g0, count);
    const int mid = min(start + VT * (coop / 2), count);
    const int end = min(start + VT * coop, count);
    const int na = mid - start, nb = end - mid;
    /* Threads wholly past the end of a partial tile sit out: their group's
     * start is clamped to count, and merging from there would read past
     * the tile's shared memory. */
    if (VT * tid < count) {
      const int diag = VT * (tid - g0) < na + nb ? VT * (tid - g0) : na + nb;
      int from_a = merge_path(sm.keys + start, na, sm.keys + mid, nb, diag, comp);
      int src[VT];
      serial_merge<VT>(sm.keys, start + from_a, mid, mid + diag - from_a, end,
                       k, src, comp);
      if (HAS_V) {
#pragma unroll
        for (int i = 0; i < VT; ++i)
          if (VT * tid + i < count) v[i] = sm.vals[src[i]];
      }
    }
    __syncthreads();
    thread_to_shared<VT>(k, count, sm.keys);
    if (HAS_V) thread_to_shared<VT>(v, count, sm.vals);
    __syncthreads();
  }
  shared_to_global<NT, VT>(sm.keys, count, keys_out);
  if (HAS_V) shared_to_global<NT, VT>(sm.vals, count, vals_out);
  if (keys_out2) {
    shared_to_global<NT, VT>(sm.keys, count, keys_out2);
    if (HAS_V) shared_to_global<NT, VT>(sm.vals, count, vals_out2);
  }
  if (samples) store_samples<NT, S>(sm.keys, count, t0, samples);
}

template <int NT, int VT, int S, bool HAS_V, typename K, typename V,
          typename Comp>
__device__ __forceinline__ void blocksort_tile(
    const K *keys_in, const V *vals_in, int count, K *keys_out, V *vals_out,
    K *keys_out2, V *vals_out2, K *samples, long long t0, Comp comp,
    merge_tile_smem<NT * VT, HAS_V, K, V> &sm) {
  if (count == NT * VT)
    blocksort_tile_body<NT, VT, S, true, HAS_V>(keys_in, vals_in, count,
                                                keys_out, vals_out, keys_out2,
                                                vals_out2, samples, t0, comp, sm);
  else
    blocksort_tile_body<NT, VT, S, false, HAS_V>(keys_in, vals_in, count,
                                                 keys_out, vals_out, keys_out2,
                                                 vals_out2, samples, t0, comp,
                                                 sm);
}

} // namespace mgpu

#endif
