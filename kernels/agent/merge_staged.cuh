/*
 * merge_staged.cuh - what one block does with one tile of mgpu_merge:
 * its share of A and B (and their values) comes into shared memory by bulk
 * copy (block/bulk_copy.cuh), not by the threads' loads; the last thread
 * asks L2 for the inputs of a tile further on; then each thread finds its
 * start by Merge Path, merges VT keys in registers, and the tile goes out
 * through shared memory, 16 bytes a store where the output allows.
 *
 * Used by merge and by every global pass of mergesort.
 *
 * Why: the tile that loads with its threads (agent/merge_tile.cuh, which
 * segsort's window merges use) ran a merge of 2^26 i32 keys at 74% of a
 * copy's bandwidth on the H200, level with CUB; staged, with the
 * partition's lane groups and early launches (merge.cuh), 85%
 * (docs/TUNING.md, Merge).
 */
#ifndef MGPU_AGENT_MERGE_STAGED_CUH
#define MGPU_AGENT_MERGE_STAGED_CUH

#include "block/bulk_copy.cuh"
#include "block/serial_merge.cuh"
#include "block/merge_path.cuh"
#include "block/tile_io.cuh"
#include "agent/merge_tile.cuh"

namespace mgpu {

/* A staged tile in shared memory: A and B each placed at their global
 * address's phase modulo 16 bytes (so that their aligned middles go by
 * bulk copy), B after A with at most one 16-byte unit between, one slot
 * more for serial_merge's look-ahead; the values alike.  The merged tile
 * goes back out through keys[0, NV) and vals[0, NV). */
template <int NV, bool HAS_V, typename K, typename V> struct merge_staged_smem {
  static constexpr int E = 16 / sizeof(K), EV = 16 / sizeof(V);
  unsigned long long loaded;  /* the keys' bulk copies */
  unsigned long long vloaded; /* the values' */
  alignas(16) K keys[NV + 2 * E];
  alignas(16) V vals[HAS_V ? NV + 2 * EV : 1];
};

struct merge_staged_args {
  int tiles;
  int prefetch; /* tiles ahead whose inputs a tile asks L2 for; 0: none */
  bool vector_stores; /* out (and outv) 16-byte aligned: stores of 16 bytes */
};

/* Whether a tile of NV outputs stores to `out` (and `outv`) 16 bytes at a
 * time (merge_staged_args::vector_stores): every tile's first output, a
 * multiple of NV elements in, must be 16-byte aligned. */
template <int NV, bool HAS_V, typename K, typename V>
inline bool staged_stores_aligned(const K *out, const V *outv) {
  return ((uintptr_t)out & 15) == 0 && NV % (16 / sizeof(K)) == 0 &&
         (!HAS_V || (((uintptr_t)outv & 15) == 0 && NV % (16 / sizeof(V)) == 0));
}

/* Shared memory to global, 16 bytes a store (the few elements past the
 * last whole unit one by one): a tile's outputs start at a multiple of NV
 * elements, so with E dividing NV and the output 16-byte aligned every
 * store is aligned, and a warp's 32 stores cover 512 contiguous bytes. */
template <int NT, typename T>
__device__ __forceinline__ void shared_to_global_16(const T *shared, int count,
                                                    T *__restrict__ dst) {
  constexpr int E = 16 / sizeof(T);
  const int units = count / E;
  const int4 *s4 = reinterpret_cast<const int4 *>(shared);
  int4 *d4 = reinterpret_cast<int4 *>(dst);
  for (int u = threadIdx.x; u < units; u += NT) d4[u] = s4[u];
  const int i = units * E + (int)threadIdx.x;
  if (i < count) dst[i] = shared[i];
}

/* Tile `tile` of `tiles`, whose reads and writes describe(i) gives for any
 * tile i (merge.cuh's merge_tiles, mergesort.cuh's pass_tiles), by a block
 * of NT threads; with S > 0 it also writes every S-th key of its output to
 * io.samples (store_samples, for the next mergesort pass).  The caller has
 * waited for whatever wrote the splits describe reads. */
template <int NT, int VT, int S, bool HAS_V, typename K, typename V,
          typename Tiles, typename Comp>
__device__ __forceinline__ void
merge_staged_tile(const Tiles &t, int tile, const merge_staged_args &g,
                  merge_staged_smem<NT * VT, HAS_V, K, V> &sm, Comp comp) {
  typedef merge_staged_smem<NT * VT, HAS_V, K, V> smem_t;
  constexpr int E = smem_t::E, EV = smem_t::EV;
  static_assert(NT >= (HAS_V ? 128 : 64),
                "the ragged ends take two warps, four with values");
  const int tid = threadIdx.x;
  const tile_io<K, V> io = t.describe(tile);
  const int na = io.na, nb = io.nb, total = na + nb;
  const int sa = stage_offset(io.a);
  const int sb = sa + na + ((stage_offset(io.b) - (sa + na)) & (E - 1));
  const bulk_split<K> ca = split_for_bulk(io.a, na);
  const bulk_split<K> cb = split_for_bulk(io.b, nb);
  int va = 0, vb = 0;
  bulk_split<V> cva = {}, cvb = {};
  if (HAS_V) {
    va = stage_offset(io.av);
    vb = va + na + ((stage_offset(io.bv) - (va + na)) & (EV - 1));
    cva = split_for_bulk(io.av, na);
    cvb = split_for_bulk(io.bv, nb);
  }
  if (tid == 0) {
    /* the init in the branch that arrives (racecheck: see setop_tile.cuh) */
    mbarrier_init(&sm.loaded, 1);
    if (HAS_V) mbarrier_init(&sm.vloaded, 1);
    mbarrier_init_fence();
    mbarrier_arrive_expect_tx(&sm.loaded, ca.bytes + cb.bytes);
    bulk_copy_middle(sm.keys + sa, io.a, ca, &sm.loaded);
    bulk_copy_middle(sm.keys + sb, io.b, cb, &sm.loaded);
    if (HAS_V) {
      mbarrier_arrive_expect_tx(&sm.vloaded, cva.bytes + cvb.bytes);
      bulk_copy_middle(sm.vals + va, io.av, cva, &sm.vloaded);
      bulk_copy_middle(sm.vals + vb, io.bv, cvb, &sm.vloaded);
    }
  }
#if __CUDA_ARCH__ >= 900
  if (tid < 32) copy_ragged_ends(sm.keys + sa, io.a, na, ca, tid);
  else if (tid < 64) copy_ragged_ends(sm.keys + sb, io.b, nb, cb, tid - 32);
  else if (HAS_V && tid < 96)
    copy_ragged_ends(sm.vals + va, io.av, na, cva, tid - 64);
  else if (HAS_V && tid < 128)
    copy_ragged_ends(sm.vals + vb, io.bv, nb, cvb, tid - 96);
#else
  copy_range_by_block<NT>(sm.keys + sa, io.a, na, tid);
  copy_range_by_block<NT>(sm.keys + sb, io.b, nb, tid);
  if (HAS_V) {
    copy_range_by_block<NT>(sm.vals + va, io.av, na, tid);
    copy_range_by_block<NT>(sm.vals + vb, io.bv, nb, tid);
  }
#endif
  const int ahead = tile + g.prefetch;
  if (g.prefetch > 0 && tid == NT - 1 && ahead < g.tiles) {
    const tile_io<K, V> n = t.describe(ahead);
    bulk_prefetch_l2(n.a, n.na);
    bulk_prefetch_l2(n.b, n.nb);
    if (HAS_V) {
      bulk_prefetch_l2(n.av, n.na);
      bulk_prefetch_l2(n.bv, n.nb);
    }
  }
  __syncthreads(); /* the ragged ends, and the barriers' init */
  mbarrier_wait(&sm.loaded, 0);

  const int diag = min(VT * tid, total);
  const int from_a = merge_path(sm.keys + sa, na, sm.keys + sb, nb, diag, comp);
  K keys[VT];
  int src[VT];
  serial_merge<VT>(sm.keys, sa + from_a, sa + na, sb + diag - from_a, sb + nb,
                   keys, src, comp);
  V vals[VT];
  if constexpr (HAS_V) {
    mbarrier_wait(&sm.vloaded, 0);
#pragma unroll
    for (int i = 0; i < VT; ++i)
      if (VT * tid + i < total)
        vals[i] = sm.vals[src[i] < sb ? va + (src[i] - sa) : vb + (src[i] - sb)];
  }
  __syncthreads(); /* every thread has read its keys (and values) */
  thread_to_shared<VT>(keys, total, sm.keys);
  if constexpr (HAS_V) thread_to_shared<VT>(vals, total, sm.vals);
  __syncthreads();
  if (g.vector_stores) {
    shared_to_global_16<NT>(sm.keys, total, io.out);
    if (HAS_V) shared_to_global_16<NT>(sm.vals, total, io.outv);
  } else {
    shared_to_global<NT, VT>(sm.keys, total, io.out);
    if (HAS_V) shared_to_global<NT, VT>(sm.vals, total, io.outv);
  }
  if (S) store_samples<NT, S ? S : 1>(sm.keys, total, io.out0, io.samples);
}

} // namespace mgpu

#endif
