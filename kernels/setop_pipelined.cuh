/*
 * setop_pipelined.cuh - the set-operation tile kernel as persistent blocks
 * with a two-deep pipeline: while a block walks one tile, the bulk copy of
 * its next tile is in flight into a second buffer, and the tile's output
 * waits in shared memory until the block has walked its next tile too,
 * so that the look-back for it finds its predecessors' counts published.
 *
 * Why: in the one-tile-per-block kernel (setop.cuh) a tile loads, walks,
 * then waits for its predecessors' counts (clock64 reads per tile at
 * 256 x 31: load 5.3K cycles, walk 6.7K, look-back 7.6K, the rest 2.9K);
 * swapping the look-back for an unordered atomicAdd made i32 keys 20%
 * faster, so the wait, not the look-back's reads, was the cost.  Here a
 * tile's count is published after its walk and its place looked up one
 * tile later, and the load of a tile overlaps the walk of the one before.
 *
 * Tiles are taken from a counter (not blockIdx), so a tile only ever
 * waits for tiles that running blocks hold, however many blocks are
 * resident.
 */
#ifndef MGPU_SETOP_PIPELINED_CUH
#define MGPU_SETOP_PIPELINED_CUH

#include <cub/block/block_scan.cuh>

#include "device/balanced_path.cuh"
#include "device/bulk_copy.cuh"
#include "device/merge_path.cuh"
#include "device/serial_set_op.cuh"
#include "device/tile_prefix.cuh"

namespace mgpu {

template <int NT, int VT, bool HAS_V, typename K> struct setop_pipe_smem {
  static constexpr int NV = NT * VT;
  static constexpr int E = 16 / sizeof(K);
  /* A buffer holds a tile as setop_smem's keys[] does, rounded up to 16
   * bytes so that the second buffer is aligned as well. */
  static constexpr int BUF = (NV + 2 + 2 * (E - 1) + E - 1) / E * E;
  alignas(16) K keys[2][BUF];
  /* The previous tile's kept keys in output order (at most na + nb, which
   * span_of_tile bounds by NV + 1), and for pairs where in its buffer each
   * came from (the values are gathered from global memory as they are
   * written). */
  K out[NV + 1];
  unsigned short src[HAS_V ? NV + 1 : 1];
  int start_a[NT + 1], start_b[NT + 1];
  typename cub::BlockScan<int, NT>::TempStorage scan;
  long long base;
  int first, next; /* tickets: the block's first tile; the one after the
                     * tile it walks */
  unsigned long long loaded[2]; /* mbarriers: a buffer's bulk copies landed */
};

/* Where a tile's A and B sit in its buffer (16-byte alignment kept, as
 * setop_kernel places them). */
struct setop_place {
  setop_span span;
  int sa, sb;
};

template <int NV, typename K, typename V>
__device__ __forceinline__ setop_place setop_place_of(const setop_tiles<K, V> &t,
                                                      int tile) {
  constexpr int E = 16 / sizeof(K);
  setop_place p;
  p.span = span_of_tile<NV>(t.splits, tile, t.na, t.nb);
  p.sa = stage_offset(t.a + p.span.a0);
  p.sb = p.sa + p.span.na +
         ((stage_offset(t.b + p.span.b0) - (p.sa + p.span.na)) & (E - 1));
  return p;
}

/* Starts the load of `tile` into `buf`: thread 0 the bulk copies, warps 0
 * and 1 the ragged ends, the last thread an L2 prefetch for the tile
 * `t.prefetch` ahead. */
template <int NT, int NV, typename K, typename V>
__device__ __forceinline__ void setop_pipe_load(const setop_tiles<K, V> &t,
                                                int tile, int tiles, K *buf,
                                                unsigned long long *bar) {
  const int tid = threadIdx.x;
  if (tid < 64) {
    const setop_place p = setop_place_of<NV>(t, tile);
    const setop_span &s = p.span;
    const bulk_split<K> ca = split_for_bulk(t.a + s.a0, s.na);
    const bulk_split<K> cb = split_for_bulk(t.b + s.b0, s.nb);
    if (tid == 0) {
      mbarrier_arrive_expect_tx(bar, ca.bytes + cb.bytes);
      bulk_copy_middle(buf + p.sa, t.a + s.a0, ca, bar);
      bulk_copy_middle(buf + p.sb, t.b + s.b0, cb, bar);
    }
    if (tid < 32) copy_ragged_ends(buf + p.sa, t.a + s.a0, s.na, ca, tid);
    else copy_ragged_ends(buf + p.sb, t.b + s.b0, s.nb, cb, tid - 32);
  } else if (tid == NT - 1 && t.prefetch > 0 && tile + t.prefetch < tiles) {
    const setop_span s = span_of_tile<NV>(t.splits, tile + t.prefetch, t.na, t.nb);
    bulk_prefetch_l2(t.a + s.a0, s.na);
    bulk_prefetch_l2(t.b + s.b0, s.nb);
  }
}

/* Writes the previous tile's output (count keys from out[], and for pairs
 * their values gathered by src[]) at sm.base; capacity bounds the writes
 * even if unsorted input over-counts. */
template <int NT, bool HAS_V, typename K, typename V, typename S>
__device__ __forceinline__ void setop_pipe_store(const setop_tiles<K, V> &t,
                                                 const S &sm,
                                                 const setop_place &p,
                                                 int count) {
  const long long base = sm.base;
  const int room = (int)min((long long)count, t.capacity - base);
  K *out = t.out + base;
  for (int i = threadIdx.x; i < room; i += NT) {
    out[i] = sm.out[i];
    if (HAS_V) {
      const int s = sm.src[i];
      t.outv[base + i] = s < p.sb ? t.av[p.span.a0 + (s - p.sa)]
                                  : t.bv[p.span.b0 + (s - p.sb)];
    }
  }
}

template <typename P, bool HAS_V, typename K, typename V, typename Comp>
__global__ void __launch_bounds__(P::NT, P::MIN_BLOCKS)
    setop_pipelined_kernel(setop_tiles<K, V> t, int tiles, int *counter,
                           int atomic_base, Comp comp) {
  constexpr int NT = P::NT, VT = P::VT, NV = P::NV;
  static_assert(VT <= 32, "a thread's slots are bits of one word");
  static_assert(NT >= 64, "two warps copy the ends of the bulk copies");
  typedef setop_pipe_smem<NT, VT, HAS_V, K> smem_t;
  static_assert(smem_t::BUF < 65535, "src[] holds buffer positions in 16 bits");
  auto &sm = *shared_as<smem_t>();
  const int tid = threadIdx.x;

  if (tid == 0) {
    mbarrier_init(&sm.loaded[0], 1);
    mbarrier_init(&sm.loaded[1], 1);
    mbarrier_init_fence();
    /* one thread, one after the other: a block's tiles must rise, or a
     * first ticket past the end could strand a second one before it */
    sm.first = atomicAdd(counter, 1);
    sm.next = atomicAdd(counter, 1);
  }
  __syncthreads();
  int tile = sm.first;
  if (tile < tiles) setop_pipe_load<NT, NV>(t, tile, tiles, sm.keys[0], &sm.loaded[0]);

  /* the previous tile: its number (-1: none), count and place */
  int prev = -1, prev_count = 0;
  setop_place pp = {};
  for (int k = 0; tile < tiles; ++k) {
    const int cur = k & 1;
    __syncthreads(); /* sm.next; the other buffer's keys are all copied out */
    const int next = sm.next;
    if (next < tiles)
      setop_pipe_load<NT, NV>(t, next, tiles, sm.keys[cur ^ 1], &sm.loaded[cur ^ 1]);

    const setop_place p = setop_place_of<NV>(t, tile);
    const int sa = p.sa, na = p.span.na, sb = p.sb, nb = p.span.nb;
    const K *keys = sm.keys[cur];
    mbarrier_wait(&sm.loaded[cur], (k >> 1) & 1);

    /* The walk, as setop_kernel's. */
    const int count = na + nb;
    const int diag = min(VT * tid, count);
    const int mp = merge_path(keys + sa, na, keys + sb, nb, diag, comp);
    const path_point bp = balanced_path<int>(keys + sa, na, keys + sb, nb, diag,
                                             mp, t.duplicates, comp);
    const int ta = sa + (int)bp.a, tb = sb + diag - (int)bp.a + bp.star;
    sm.start_a[tid] = ta;
    sm.start_b[tid] = tb;
    if (tid == NT - 1) {
      sm.start_a[NT] = sa + na;
      sm.start_b[NT] = sb + nb;
    }
    __syncthreads();
    const int ea = max(ta, sm.start_a[tid + 1]);
    const int eb = max(tb, sm.start_b[tid + 1]);
    unsigned took_a, took_b;
    serial_set_op<VT>(keys, ta, ea, tb, eb, &took_a, &took_b, comp);
    const unsigned commit = set_op_commit(t.keeps, took_a, took_b);
    int offset, tile_count;
    cub::BlockScan<int, NT>(sm.scan).ExclusiveSum(__popc(commit), offset,
                                                  tile_count);
    if (tid < 32) {
      tile_publish_count(t.status, tile, tile_count);
      /* the previous tile's place: its predecessors have had a tile's
       * time to publish their counts */
      if (prev >= 0) {
        long long base = 0;
        if (atomic_base) { /* diagnostic: unordered output */
          if (tid == 0) base = atomicAdd((unsigned *)(counter + 1), (unsigned)prev_count);
        } else
          base = tile_resolve_prefix(t.status, t.gstatus, prev, prev_count);
        if (tid == 0) {
          sm.base = base;
          if (prev == tiles - 1) *t.total = base + prev_count;
        }
      }
    } else if (tid == 32) {
      /* the ticket for the iteration after next, taken by a warp that
       * would otherwise only wait at the barrier */
      sm.next = atomicAdd(counter, 1);
    }
    __syncthreads();
    if (prev >= 0) setop_pipe_store<NT, HAS_V>(t, sm, pp, prev_count);
    __syncthreads(); /* out[] and src[] are free */

    /* Copy the kept keys out of the buffer, which the load after next
     * overwrites, in output order. */
    if (__any_sync(0xffffffffu, __popc(commit) > VT / 2)) {
      int a = ta, b = tb;
#pragma unroll
      for (int i = 0; i < VT; ++i) {
        const unsigned from_a = (took_a >> i) & 1, from_b = (took_b >> i) & 1;
        if ((commit >> i) & 1) {
          const int s = from_a ? a : b;
          sm.out[offset] = keys[s];
          if (HAS_V) sm.src[offset] = (unsigned short)s;
          ++offset;
        }
        a += from_a;
        b += from_b;
      }
    } else {
      for (unsigned c = commit; c; c &= c - 1) {
        const int i = __ffs(c) - 1;
        const unsigned below = (1u << i) - 1;
        const int s = (took_a >> i) & 1 ? ta + __popc(took_a & below)
                                        : tb + __popc(took_b & below);
        sm.out[offset] = keys[s];
        if (HAS_V) sm.src[offset] = (unsigned short)s;
        ++offset;
      }
    }
    prev = tile;
    prev_count = tile_count;
    pp = p;
    tile = next;
  }
  if (prev < 0) return;
  if (tid < 32) {
    long long base = 0;
    if (atomic_base) {
      if (tid == 0) base = atomicAdd((unsigned *)(counter + 1), (unsigned)prev_count);
    } else
      base = tile_resolve_prefix(t.status, t.gstatus, prev, prev_count);
    if (tid == 0) {
      sm.base = base;
      if (prev == tiles - 1) *t.total = base + prev_count;
    }
  }
  __syncthreads();
  setop_pipe_store<NT, HAS_V>(t, sm, pp, prev_count);
}

} // namespace mgpu

#endif
