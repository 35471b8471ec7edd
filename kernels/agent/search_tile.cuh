/*
 * search_tile.cuh - sorted_search as a merge: the needles (A) merged into
 * the haystack (B), each needle's answer being the number of haystack
 * elements the merge puts before it.  A partition launch finds where every
 * tile's first merge item lies (Merge Path on the inputs); a block takes
 * its tile's needles and haystack elements into shared memory, finds each
 * thread's start there with a second Merge Path search, walks VT merge
 * items per thread and stores the needles' positions.  O(n + m): every key
 * is read once, every position written once.  sorted_search.cu launches it.
 */
#ifndef MGPU_AGENT_SEARCH_TILE_CUH
#define MGPU_AGENT_SEARCH_TILE_CUH

#include <stdint.h>

#include <climits>

#include <cuda/atomic>

#include "block/key_order.cuh"
#include "block/merge_path.cuh"
#include "policy/search.cuh"

namespace mgpu {

/* Whether haystack element b goes before needle a in the merge: left
 * (a lower bound) counts the elements ordered before the needle, right
 * (an upper bound) those not ordered after it.  Either is a merge order
 * of two sorted inputs, so Merge Path finds the same splits as the walk
 * takes. */
template <typename K, typename Order> struct hay_first {
  Order before; /* key_order<K>, or bit_order<K> for integer words */
  bool right;
  __device__ __forceinline__ bool operator()(K b, K a) const {
    return right ? !before(a, b) : before(b, a);
  }
};

/* points[p] = the needles before tile p's first merge item (p = 0 ..
 * points - 1; the last is n), for diagonal min(p * nv, n + m).  Diagonals
 * and indices are long long: n + m may pass INT_MAX.
 *
 * On sorted inputs the points rise, and by at most a tile from one to the
 * next in both coordinates.  Unsorted inputs may break that, which would
 * leave needles to no tile or to two; a point that does not follow from
 * the one before it writes the call's ticket into *unsorted, and
 * search_points_fix_kernel then mends the points.  The ticket, not a flag
 * zeroed first, saves a launch; a stale word equal to the ticket only
 * costs a fix-up that changes nothing. */
template <typename K, typename First>
__global__ void search_partition_kernel(const K *needles, long long n,
                                        const K *hay, long long m, int nv,
                                        int points, long long *out,
                                        unsigned long long *unsorted,
                                        unsigned long long ticket,
                                        First first) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= points) return;
  const long long total = n + m;
  const auto point = [&](int q) {
    const long long d = (long long)q * nv < total ? (long long)q * nv : total;
    return merge_path(needles, n, hay, m, d, first);
  };
  const long long a = point(p);
  out[p] = a;
  /* the point before, from the lane before, or searched again by a warp's
   * first lane */
  long long prev = __shfl_up_sync(__activemask(), a, 1);
  if ((threadIdx.x & 31) == 0 && p > 0) prev = point(p - 1);
  if (p > 0) {
    const long long d = (long long)p * nv < total ? (long long)p * nv : total;
    const long long dp = (long long)(p - 1) * nv;
    if (a < prev || a - prev > d - dp)
      cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*unsorted)
          .store(ticket, cuda::memory_order_relaxed);
  }
}

/* Mends the points of unsorted inputs (*unsorted == ticket; otherwise it
 * ends at once) into a sequence whose needle and haystack coordinates
 * both rise: M = the running maximum of the points, then
 * A[p] = d[p] - min over q >= p of (d[q] - M[q]).  A rises (the haystack
 * coordinate's suffix minimum rises by at most d[p+1] - d[p]), stays in
 * [max(0, d - m), min(d, n)], keeps A[0] = 0 and A[last] = n, and equals
 * the points when they were in order.  One block; rare, so plain. */
__global__ void search_points_fix_kernel(long long *pts, int points, int nv,
                                         long long total,
                                         const unsigned long long *unsorted,
                                         unsigned long long ticket) {
  if (*unsorted != ticket) return;
  __shared__ long long part[1024];
  const int tid = threadIdx.x, nt = blockDim.x;
  const int chunk = (points + nt - 1) / nt;
  const int lo = min(points, tid * chunk), hi = min(points, lo + chunk);
  const auto diag = [&](int q) {
    return (long long)q * nv < total ? (long long)q * nv : total;
  };
  /* running maximum, left to right */
  long long x = 0;
  for (int q = lo; q < hi; ++q) x = max(x, pts[q]);
  part[tid] = x;
  __syncthreads();
  if (tid == 0)
    for (int i = 1; i < nt; ++i) part[i] = max(part[i], part[i - 1]);
  __syncthreads();
  x = tid ? part[tid - 1] : 0;
  for (int q = lo; q < hi; ++q) pts[q] = x = max(x, pts[q]);
  __syncthreads();
  /* the haystack coordinate's minimum, right to left */
  x = LLONG_MAX;
  for (int q = lo; q < hi; ++q) x = min(x, diag(q) - pts[q]);
  part[tid] = x;
  __syncthreads();
  if (tid == 0)
    for (int i = nt - 2; i >= 0; --i) part[i] = min(part[i], part[i + 1]);
  __syncthreads();
  x = tid + 1 < nt ? part[tid + 1] : LLONG_MAX;
  for (int q = hi - 1; q >= lo; --q) {
    x = min(x, diag(q) - pts[q]);
    pts[q] = diag(q) - x;
  }
}

/* Pos: the positions' type, int32_t, or int64_t where m + base passes
 * INT32_MAX (the index dtype rule); the coordinates are long long in
 * both. */
template <typename K, typename Pos> struct search_tiles {
  const K *needles;
  long long n;
  const K *hay;
  long long m;
  const long long *points; /* null: one tile, whose points are the ends */
  int32_t base;
  Pos *pos;
};

template <typename P, typename K> struct search_smem {
  K keys[P::NV];       /* the tile's needles, then its haystack elements */
  int32_t found[P::NV]; /* each needle's haystack count within the tile */
  int32_t start[P::NT];  /* each thread's first needle (running maximum) */
  int32_t warp_max[P::NT / 32];
};

template <typename P, typename K, typename First, typename Pos>
__global__ void __launch_bounds__(P::NT, min_blocks_within_sm(P::NT,
                                                              P::MIN_BLOCKS))
search_kernel(search_tiles<K, Pos> t, First first) {
  constexpr int NT = P::NT, VT = P::VT, NV = P::NV;
  __shared__ search_smem<P, K> sm;
  const int tid = threadIdx.x, tile = blockIdx.x;
  const long long total = t.n + t.m;
  const long long d0 = (long long)tile * NV;
  const long long d1 = d0 + NV < total ? d0 + NV : total;
  const long long a0 = t.points ? t.points[tile] : 0;
  const long long a1 = t.points ? t.points[tile + 1] : t.n;
  const long long b0 = d0 - a0;
  const int na = (int)(a1 - a0), nb = (int)(d1 - a1 - b0);

  /* striped, so a warp's loads are coalesced; na + nb <= NV */
#pragma unroll
  for (int j = 0; j < VT; ++j) {
    const int i = j * NT + tid;
    if (i < na) sm.keys[i] = t.needles[a0 + i];
    else if (i < na + nb) sm.keys[i] = t.hay[b0 + (i - na)];
  }
  __syncthreads();

  const K *a = sm.keys, *b = sm.keys + na;
  const int diag = min(tid * VT, na + nb);
  /* Thread k answers needles [start_k, start_k+1).  On sorted inputs
   * start_k is the Merge Path point of its diagonal, and its VT merge items
   * hold exactly those needles.  On unsorted ones the points need not rise
   * from thread to thread: their running maximum still gives every needle
   * of the tile to one thread, so every position is written once, and
   * stays within the tile's haystack (positions that mean nothing, as the
   * API allows, but no race and nothing unwritten). */
  int own = merge_path(a, na, b, nb, diag, first);
  {
    const int lane = tid & 31, warp = tid >> 5;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      const int y = __shfl_up_sync(0xffffffffu, own, off);
      if (lane >= off) own = max(own, y);
    }
    if (lane == 31) sm.warp_max[warp] = own;
    __syncthreads();
    for (int w = 0; w < warp; ++w) own = max(own, sm.warp_max[w]);
    sm.start[tid] = own;
    __syncthreads();
  }
  const int end = tid + 1 < NT ? sm.start[tid + 1] : na;
  int ai = own;
  int bi = min(max(diag - ai, 0), nb);
#pragma unroll
  for (int j = 0; j < VT; ++j) {
    if (ai < end && (bi >= nb || !first(b[bi], a[ai]))) {
      sm.found[ai] = bi;
      ++ai;
    } else if (bi < nb) {
      ++bi;
    }
  }
  /* unsorted inputs only: needles the walk did not reach */
  for (; ai < end; ++ai) sm.found[ai] = bi;
  __syncthreads();
  const Pos at = (Pos)b0 + t.base;
  for (int i = tid; i < na; i += NT) t.pos[a0 + i] = at + sm.found[i];
}

} // namespace mgpu

#endif
