/*
 * merge_agent.cuh - what one block does with one merge tile: load its A
 * and B intervals into shared memory, find each thread's start with a
 * second Merge Path search, merge exactly VT keys per thread in registers,
 * and store the tile coalesced.  Values follow their keys through shared
 * memory.  Used by merge and by every global pass of mergesort.
 */
#ifndef MGPU_MERGE_AGENT_CUH
#define MGPU_MERGE_AGENT_CUH

#include "device/async_copy.cuh"
#include "device/merge_path.cuh"
#include "device/serial_merge.cuh"
#include "device/tile_io.cuh"

namespace mgpu {

/* Shared memory of a tile of NV outputs: one key slot more than the tile,
 * for serial_merge's look-ahead. */
template <int NV, bool HAS_V, typename K, typename V> struct merge_tile_smem {
  K keys[NV + 1];
  V vals[HAS_V ? NV : 1];
};

/* A tile's intervals of A and B.  Built from the partition splits so that
 * it stays inside both inputs even when the splits are not monotone (which
 * unsorted input can cause): then the output is meaningless but every read
 * and write stays in bounds. */
struct tile_span {
  int a0, na, b0, nb;
};

__device__ __forceinline__ tile_span make_tile_span(int d0, int d1, int a0,
                                                    int a1) {
  int n = d1 - d0;
  int na = a1 - a0;
  na = na < 0 ? 0 : (na > n ? n : na);
  return tile_span{a0, na, d0 - a0, n - na};
}

/* The merge itself, once A is in sm.keys[0, na) and B in sm.keys[na, na +
 * nb) (values alike) and the block has synchronised: per-thread Merge Path,
 * VT serial steps, then the tile goes out coalesced through shared memory. */
template <int NT, int VT, bool HAS_V, typename K, typename V, typename Comp>
__device__ __forceinline__ void merge_in_shared(int na, int nb, K *out_keys,
                                                V *out_vals, Comp comp,
                                                merge_tile_smem<NT * VT, HAS_V, K, V> &sm) {
  const int total = na + nb;
  int diag = VT * threadIdx.x;
  diag = diag < total ? diag : total;
  int from_a = merge_path(sm.keys, na, sm.keys + na, nb, diag, comp);
  K keys[VT];
  int src[VT];
  serial_merge<VT>(sm.keys, from_a, na, na + diag - from_a, total, keys, src,
                   comp);
  V vals[VT];
  if (HAS_V) {
#pragma unroll
    for (int i = 0; i < VT; ++i)
      if (VT * (int)threadIdx.x + i < total) vals[i] = sm.vals[src[i]];
  }
  __syncthreads();
  thread_to_shared<VT>(keys, total, sm.keys);
  if (HAS_V) thread_to_shared<VT>(vals, total, sm.vals);
  __syncthreads();
  shared_to_global<NT, VT>(sm.keys, total, out_keys);
  if (HAS_V) shared_to_global<NT, VT>(sm.vals, total, out_vals);
}

/* One tile, loaded and merged by one block. */
template <int NT, int VT, bool HAS_V, typename K, typename V, typename Comp>
__device__ __forceinline__ void merge_tile(const K *a_keys, const V *a_vals,
                                           int na, const K *b_keys,
                                           const V *b_vals, int nb,
                                           K *out_keys, V *out_vals, Comp comp,
                                           merge_tile_smem<NT * VT, HAS_V, K, V> &sm) {
  load_two_to_shared<NT, VT>(a_keys, na, b_keys, nb, sm.keys);
  if (HAS_V) load_two_to_shared<NT, VT>(a_vals, na, b_vals, nb, sm.vals);
  __syncthreads();
  merge_in_shared<NT, VT, HAS_V>(na, nb, out_keys, out_vals, comp, sm);
}

/* Where one tile reads and writes. */
template <typename K, typename V> struct tile_io {
  const K *a, *b;
  const V *av, *bv;
  int na, nb;
  K *out;
  V *outv;
};

/* A persistent block's loop over tiles blockIdx.x, + gridDim.x, ...: while
 * it merges one tile, the next one's A and B stream into the other stage of
 * shared memory (cp.async), so the block's loads stay in flight during its
 * compute.  Tiles supplies bounds(t) (the tile's two partition splits, read
 * one tile ahead so that their latency hides too) and describe(t, bounds). */
template <int NT, int VT, bool HAS_V, typename K, typename V, typename Comp,
          typename Tiles>
__device__ __forceinline__ void stream_merge_tiles(
    const Tiles &tiles, int num_tiles, Comp comp,
    merge_tile_smem<NT * VT, HAS_V, K, V> (&stage)[2]) {
  int tile = blockIdx.x;
  if (tile >= num_tiles) return;
  const int stride = gridDim.x;
  tile_io<K, V> cur = tiles.describe(tile, tiles.bounds(tile));
  async_load_two<NT, VT>(cur.a, cur.na, cur.b, cur.nb, stage[0].keys);
  if (HAS_V) async_load_two<NT, VT>(cur.av, cur.na, cur.bv, cur.nb, stage[0].vals);
  async_commit();
  int next = tile + stride;
  int2 next_bounds = next < num_tiles ? tiles.bounds(next) : make_int2(0, 0);
  for (int s = 0;; s ^= 1) {
    const bool more = next < num_tiles;
    tile_io<K, V> nxt = cur;
    if (more) {
      nxt = tiles.describe(next, next_bounds);
      async_load_two<NT, VT>(nxt.a, nxt.na, nxt.b, nxt.nb, stage[s ^ 1].keys);
      if (HAS_V)
        async_load_two<NT, VT>(nxt.av, nxt.na, nxt.bv, nxt.nb, stage[s ^ 1].vals);
    }
    async_commit();
    const int after = next + stride;
    const int2 after_bounds =
        after < num_tiles ? tiles.bounds(after) : make_int2(0, 0);
    async_wait<1>(); /* this tile's group has landed; the next one flies on */
    __syncthreads();
    merge_in_shared<NT, VT, HAS_V>(cur.na, cur.nb, cur.out, cur.outv, comp,
                                   stage[s]);
    __syncthreads(); /* stage[s] is reloaded two tiles from now */
    if (!more) break;
    cur = nxt;
    next = after;
    next_bounds = after_bounds;
  }
}

} // namespace mgpu

#endif
