/*
 * segreduce_tile.cuh - one tile of a segmented reduction: NV consecutive
 * values, whatever segments they fall in.  Each thread walks its VT values
 * with their segment numbers (a search for its first value between the
 * segments of the tile's ends, then forward); a block-wide segmented scan
 * over the threads' last runs gives each thread what came before it in its
 * first segment.
 * A segment that starts and ends in the tile is written here; the part of
 * the tile's first segment (head) and of its last (tail) go to per-tile
 * words for the segments that cross tiles, which segreduce_fix_kernel
 * (keyed.cu) completes.
 *
 * Offsets are read as if clamped to [0, n] and walked only forward, so
 * unsorted offsets give results that mean nothing but no access outside
 * vals, offsets, out and the tile words.
 *
 * Off is the offsets' element type (int32_t or int64_t, the call's
 * dtype); positions, segment numbers and tile starts are long long in
 * both instances, so i32 offsets serve values past 2^31 too.
 */
#ifndef MGPU_AGENT_SEGREDUCE_TILE_CUH
#define MGPU_AGENT_SEGREDUCE_TILE_CUH

#include <limits.h>
#include <stdint.h>

namespace mgpu {

/* offsets[i] clamped to [0, n] */
template <typename Off>
__device__ __forceinline__ long long seg_start(const Off *offsets,
                                               long long i, long long n) {
  const long long s = offsets[i];
  return s < 0 ? 0 : (s > n ? n : s);
}

/* The start of segment s + 1, or past every position when s is the last. */
template <typename Off>
__device__ __forceinline__ long long next_start(const Off *offsets,
                                                long long s, long long m,
                                                long long n) {
  return s + 1 < m ? seg_start(offsets, s + 1, n) : LLONG_MAX;
}

/* The last segment of [lo, hi) whose start is at or before k (lo - 1:
 * none), by bisection: the whole offsets with [0, m), a tile's range once
 * its first and last values' segments are known. */
template <typename Off>
__device__ __forceinline__ long long seg_of(const Off *offsets,
                                            long long lo, long long hi,
                                            long long n, long long k) {
  while (lo < hi) {
    const long long mid = lo + (hi - lo) / 2;
    if (seg_start(offsets, mid, n) <= k)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo - 1;
}

/* A (head flag, value) pair of the segmented scan: the flag says that the
 * value's run starts at or after this point, so nothing on its left joins. */
template <typename T, typename Op>
__device__ __forceinline__ void seg_scan_step(bool &flag, T &v, bool left_flag,
                                              T left_v, Op op) {
  if (!flag) v = op(left_v, v);
  flag = flag || left_flag;
}

/* Inclusive segmented scan over a warp's lanes. */
template <typename T, typename Op>
__device__ __forceinline__ void warp_seg_scan(bool &flag, T &v, Op op) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const bool lf = __shfl_up_sync(0xffffffffu, flag, off);
    const T lv = __shfl_up_sync(0xffffffffu, v, off);
    if (lane >= off) seg_scan_step(flag, v, lf, lv, op);
  }
}

/* tile_segs[2t], tile_segs[2t + 1]: the segments of tile t's first and
 * last values, one thread a search, before the tiles: a tile then starts
 * with its loads instead of two dependent walks down all the offsets. */
template <typename Off>
__device__ __forceinline__ void segreduce_partition(const Off *offsets,
                                                    long long m, long long n,
                                                    int nv, long long i,
                                                    long long *tile_segs) {
  const long long t = i >> 1;
  const long long start = t * nv;
  const long long k = (i & 1) ? (n - start < nv ? n : start + nv) - 1 : start;
  tile_segs[i] = seg_of(offsets, 0, m, n, k);
}

template <typename P, typename T> struct segreduce_smem {
  T vals[P::NV];
  long long last_seg[P::NT];
  T warp_v[P::NT / 32];
  bool warp_f[P::NT / 32];
};

template <typename P, typename T, typename Off, typename Op>
__device__ __forceinline__ void
segreduce_tile(const T *vals, long long n, const Off *offsets, long long m,
               const long long *tile_segs, T *out, T *head_part, T *tail_part,
               Op op, segreduce_smem<P, T> &sm) {
  constexpr int NT = P::NT, VT = P::VT, NV = P::NV;
  const int tid = threadIdx.x;
  const long long tile = blockIdx.x;
  const long long t0 = tile * NV;
  const long long tn = n - t0 < NV ? n - t0 : NV;
  const long long tile_last = t0 + tn - 1;
  /* the threads search only between the tile's first and last values'
   * segments, a range the block reads from cache */
  for (int i = tid; i < tn; i += NT) sm.vals[i] = vals[t0 + i];
  const long long k0 = t0 + (long long)tid * VT;
  const int items = k0 >= n ? 0 : (int)(n - k0 < VT ? n - k0 : VT);
  __syncthreads();
  /* segment of the first item, then the last run's segment and value */
  long long seg = -2;
  if (items) {
    const long long first = tile_segs[2 * tile], last = tile_segs[2 * tile + 1];
    seg = seg_of(offsets, first + 1, last >= first ? last + 1 : first + 1, n, k0);
  }
  /* The next segment's start is held in a register and reloaded only when
   * the walk reaches it: a long segment costs no offset loads. */
  long long s = seg;
  long long next = items ? next_start(offsets, s, m, n) : LLONG_MAX;
  T tail = items ? sm.vals[tid * VT] : T();
  for (int i = 1; i < items; ++i) {
    const long long k = k0 + i;
    bool moved = false;
    while (next <= k) ++s, moved = true, next = next_start(offsets, s, m, n);
    const T x = sm.vals[tid * VT + i];
    tail = moved ? x : op(tail, x);
  }
  sm.last_seg[tid] = s;
  __syncthreads();
  const long long prev_seg = tid ? sm.last_seg[tid - 1] : -3;
  bool flag = s != prev_seg || !items;
  T v = tail;
  warp_seg_scan(flag, v, op);
  const int warp = tid / 32, lane = tid & 31;
  if (lane == 31) sm.warp_f[warp] = flag, sm.warp_v[warp] = v;
  __syncthreads();
  if (warp == 0) {
    bool wf = lane < NT / 32 ? sm.warp_f[lane] : true;
    T wv = lane < NT / 32 ? sm.warp_v[lane] : T();
    warp_seg_scan(wf, wv, op);
    if (lane < NT / 32) sm.warp_f[lane] = wf, sm.warp_v[lane] = wv;
  }
  __syncthreads();
  /* the exclusive value: the previous thread's inclusive one */
  T carry = __shfl_up_sync(0xffffffffu, v, 1);
  if (lane == 0 && warp > 0) carry = sm.warp_v[warp - 1];
  /* whether the previous lane's run reaches back past this warp's start */
  const bool open = !__shfl_up_sync(0xffffffffu, flag, 1);
  if (lane > 0 && warp > 0 && open) carry = op(sm.warp_v[warp - 1], carry);
  const bool use_carry = items && tid > 0 && prev_seg == seg;
  /* walk again, now with what came before */
  s = seg;
  next = items ? next_start(offsets, s, m, n) : LLONG_MAX;
  T acc = items ? sm.vals[tid * VT] : T();
  if (use_carry) acc = op(carry, acc);
  for (int i = 0; i < items; ++i) {
    const long long k = k0 + i;
    if (i > 0) {
      bool moved = false;
      while (next <= k) ++s, moved = true, next = next_start(offsets, s, m, n);
      const T x = sm.vals[tid * VT + i];
      acc = moved ? x : op(acc, x);
    }
    if (s < 0) continue;
    const bool ends = k + 1 >= n || next <= k + 1;
    if (!ends && k != tile_last) continue;
    const bool began_here = seg_start(offsets, s, n) >= t0;
    if (ends && began_here) out[s] = acc;
    if (!began_here) head_part[tile] = acc;
    if (k == tile_last && !ends) tail_part[tile] = acc;
  }
}

} // namespace mgpu

#endif
