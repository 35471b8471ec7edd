/*
 * merge_tile.cuh - what one block does with one merge tile: load its A
 * and B intervals into shared memory, find each thread's start with a
 * second Merge Path search, merge exactly VT keys per thread in registers,
 * and store the tile coalesced.  Values follow their keys through shared
 * memory.  Used by the blocksorts' in-block merges, segsort's window
 * merges and bulk_insert; merge and mergesort's passes take the staged
 * tile (agent/merge_staged.cuh), which also takes tile_io and
 * store_samples from here.
 */
#ifndef MGPU_AGENT_MERGE_TILE_CUH
#define MGPU_AGENT_MERGE_TILE_CUH

#include "block/merge_path.cuh"
#include "block/serial_merge.cuh"
#include "block/tile_io.cuh"

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
 * and write stays in bounds.  The starts are in the merge's offset type
 * Off; the lengths, at most a tile, are int. */
template <typename Off> struct tile_span_of {
  Off a0;
  int na;
  Off b0;
  int nb;
};
typedef tile_span_of<int> tile_span;

template <typename Off>
__device__ __forceinline__ tile_span_of<Off> make_tile_span(Off d0, Off d1,
                                                            Off a0, Off a1) {
  const int n = (int)(d1 - d0);
  const Off a_len = a1 - a0;
  const int na = a_len < 0 ? 0 : (a_len > n ? n : (int)a_len);
  return tile_span_of<Off>{a0, na, d0 - a0, n - na};
}

/* Where one tile reads and writes.  samples, when not null, receives every
 * S-th key of the output by its global index (out0 + i): the next pass's
 * partition searches those first (sampled_merge_path). */
template <typename K, typename V> struct tile_io {
  const K *a, *b;
  const V *av, *bv;
  int na, nb;
  K *out;
  V *outv;
  K *samples;
  long long out0;
};

/* The tile that merges a[a0, a0 + na) with b[b0, b0 + nb) into out[o0, ..):
 * values at the same offsets when HAS_V (else their pointers pass through
 * unread), every S-th output key to `samples` where given. */
template <bool HAS_V, typename K, typename V>
__device__ __forceinline__ tile_io<K, V>
tile_io_at(const K *a, const V *av, long long a0, int na, const K *b,
           const V *bv, long long b0, int nb, K *out, V *outv, long long o0,
           K *samples) {
  tile_io<K, V> io;
  io.a = a + a0;
  io.b = b + b0;
  io.av = HAS_V ? av + a0 : av;
  io.bv = HAS_V ? bv + b0 : bv;
  io.na = na;
  io.nb = nb;
  io.out = out + o0;
  io.outv = HAS_V ? outv + o0 : outv;
  io.samples = samples;
  io.out0 = o0;
  return io;
}

/* Writes the tile's keys that fall on multiples of S (tile in shared). */
template <int NT, int S, typename K>
__device__ __forceinline__ void store_samples(const K *shared, int count,
                                              long long out0, K *samples) {
  static_assert(S >= 1, "sample stride");
  const int first = (int)((S - out0 % S) % S);
  /* a tile holds at most NT samples when VT <= S */
  const int idx = first + (int)threadIdx.x * S;
  if (idx < count) samples[(out0 + idx) / S] = shared[idx];
}

/* The merge itself, once A is in sm.keys[0, na) and B in sm.keys[na, na +
 * nb) (values alike) and the block has synchronised: per-thread Merge Path,
 * VT serial steps, then the tile goes out coalesced through shared memory. */
template <int NT, int VT, int S, bool HAS_V, bool KEYS_OUT = true, typename K,
          typename V, typename Comp>
__device__ __forceinline__ void merge_in_shared(const tile_io<K, V> &io,
                                                Comp comp,
                                                merge_tile_smem<NT * VT, HAS_V, K, V> &sm) {
  const int na = io.na, nb = io.nb, total = na + nb;
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
  /* A compile-time switch: a run-time test of io.out cost the keys-only
   * merge 16 registers (56 -> 72) and 12% of its speed on the H200. */
  if (KEYS_OUT) shared_to_global<NT, VT>(sm.keys, total, io.out);
  if (HAS_V) shared_to_global<NT, VT>(sm.vals, total, io.outv);
  if (S) store_samples<NT, S ? S : 1>(sm.keys, total, io.out0, io.samples);
}

/* One tile, loaded and merged by one block. */
template <int NT, int VT, int S, bool HAS_V, typename K, typename V,
          typename Comp>
__device__ __forceinline__ void merge_tile(const tile_io<K, V> &io, Comp comp,
                                           merge_tile_smem<NT * VT, HAS_V, K, V> &sm) {
  load_two_to_shared<NT, VT>(io.a, io.na, io.b, io.nb, sm.keys);
  if (HAS_V) load_two_to_shared<NT, VT>(io.av, io.na, io.bv, io.nb, sm.vals);
  __syncthreads();
  merge_in_shared<NT, VT, S, HAS_V>(io, comp, sm);
}

} // namespace mgpu

#endif
