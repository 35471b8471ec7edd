/*
 * sort_windows.cuh - the early exit that replaces every global pass of a
 * segmented or locality sort when nothing has far to go.
 *
 * After the blocksort each tile is sorted (within segments).  At the
 * boundary p between two tiles only a window [h0, h1) around p can still
 * be out of order: for a segmented sort, the segment straddling p; for a
 * locality sort, the keys of the left tile that belong after the right
 * tile's first key and the keys of the right tile that belong before the
 * left tile's last one.  Merging A = [h0, p) with B = [p, h1) in place
 * leaves both tiles sorted and ordered against each other, so when every
 * window is at most W keys and W is at most half a tile (windows of
 * neighbouring boundaries cannot overlap), one launch that merges all of
 * them finishes the sort, and the log2(tiles) passes are not needed.
 *
 * The check runs first and reports through one download whether any
 * window is too long; only then does the host choose between the one
 * launch and the passes.  For a segmented sort the windows depend only on
 * the heads, so the check runs before the blocksort.
 */
#ifndef MGPU_AGENT_SORT_WINDOWS_CUH
#define MGPU_AGENT_SORT_WINDOWS_CUH

#include "block/gallop.cuh"
#include "agent/merge_tile.cuh"
#include "launch.cuh"

namespace mgpu {

/* window[t] for the boundary p = (t + 1) * tile: A = [h0, p), B = [p, h1);
 * h0 == h1 == p when nothing straddles it.  Positions in the sort's offset
 * type Off; a window's length is at most a tile. */
template <typename Off> struct sort_window {
  Off h0, h1;
};

/* What the check reports: too_far != 0 when some window is longer than W
 * (the passes must run), and how many windows are not empty. */
struct window_report {
  int too_far, windows;
};

template <typename Off>
__device__ __forceinline__ void report_window(sort_window<Off> *windows, int t,
                                              Off h0, Off p, Off h1,
                                              bool too_far,
                                              window_report *report) {
  windows[t] = too_far ? sort_window<Off>{p, p} : sort_window<Off>{h0, h1};
  const unsigned far = __ballot_sync(__activemask(), too_far);
  const unsigned used = __ballot_sync(__activemask(), !too_far && h0 < h1);
  const int lane = threadIdx.x & 31;
  const int leader = __ffs(__activemask()) - 1;
  if (lane == leader) {
    if (far) atomicOr(&report->too_far, 1);
    if (used) atomicAdd(&report->windows, __popc(used));
  }
}

/* The last set bit in [lo, p] of a bitfield, or -1; the whole warp
 * searches, 32 words a step (one thread per boundary took 22 us on the
 * H200 for segments of ~10^4 keys, reading a window's words one by one).
 * I: the sort's offset type (word indices pass INT_MAX / 32 with it). */
template <typename I>
__device__ __forceinline__ I warp_last_bit_in(const unsigned *bits, I lo, I p) {
  const int lane = threadIdx.x & 31;
  for (I top = p >> 5; top >= (lo >> 5); top -= 32) {
    const I w = top - lane;
    unsigned x = 0;
    if (w >= (lo >> 5)) {
      x = bits[w];
      if (w == (p >> 5)) x &= (2u << (int)(p & 31)) - 1u; /* bits <= p */
      if (w == (lo >> 5)) x &= ~0u << (int)(lo & 31);     /* bits >= lo */
    }
    const unsigned found = __ballot_sync(0xffffffffu, x != 0);
    if (found) {
      const int l = __ffs(found) - 1; /* the highest word */
      return (top - l) * 32 + 31 - __clz(__shfl_sync(0xffffffffu, x, l));
    }
  }
  return -1;
}

/* The first set bit in [p, hi) of a bitfield, or hi (whole warp). */
template <typename I>
__device__ __forceinline__ I warp_first_bit_in(const unsigned *bits, I p,
                                               I hi) {
  const int lane = threadIdx.x & 31;
  if (p >= hi) return hi;
  for (I bottom = p >> 5; bottom <= ((hi - 1) >> 5); bottom += 32) {
    const I w = bottom + lane;
    unsigned x = 0;
    if (w <= ((hi - 1) >> 5)) {
      x = bits[w];
      if (w == (p >> 5)) x &= ~0u << (int)(p & 31);
    }
    const unsigned found = __ballot_sync(0xffffffffu, x != 0);
    if (found) {
      const int l = __ffs(found) - 1; /* the lowest word */
      const I b =
          (bottom + l) * 32 + __ffs(__shfl_sync(0xffffffffu, x, l)) - 1;
      return b < hi ? b : hi;
    }
  }
  return hi;
}

/* Locality sort: the window of boundary t from the sorted tiles around it.
 * A's keys after B's first key and B's keys before A's last key (equal
 * keys stay where they are: A's before B's, which keeps the sort stable). */
template <typename K, typename Off, typename Comp>
__global__ void locality_windows_kernel(const K *keys, Off n, int tile, int w,
                                        int boundaries,
                                        sort_window<Off> *windows,
                                        window_report *report, Comp comp) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= boundaries) return;
  const Off p = (Off)(t + 1) * tile;
  const Off end = (Off)min((long long)n, (long long)p + tile);
  const K b_first = keys[p], a_last = keys[p - 1];
  Off h0 = p, h1 = p;
  bool too_far = false;
  if (comp(b_first, a_last)) {
    const Off lo = max(p - tile, p - w);
    h0 = first_true_from_top(lo, p, [&](Off i) { return comp(b_first, keys[i]); });
    const Off hi = min(end, p + w);
    h1 = first_true_from_bottom(p, hi, [&](Off i) { return !comp(keys[i], a_last); });
    too_far = (h0 == lo && lo > p - tile) || (h1 == hi && hi < end) ||
              h1 - h0 > w;
  }
  report_window(windows, t, h0, p, h1, too_far, report);
}

/* One block per boundary merges its window in place (windows are disjoint,
 * and each block reads its window into shared memory before writing it). */
template <typename P, bool HAS_V, typename K, typename V, typename Off,
          typename Comp>
__global__ void __launch_bounds__(P::NT)
    window_merge_kernel(K *keys, V *vals, int tile,
                        const sort_window<Off> *windows, Comp comp) {
  auto &sm = *shared_as<merge_tile_smem<P::NV, HAS_V, K, V>>();
  const sort_window<Off> win = windows[blockIdx.x];
  const Off p = (Off)(blockIdx.x + 1) * tile;
  if (win.h0 >= win.h1) return;
  const tile_io<K, V> io = tile_io_at<HAS_V>(
      keys, vals, win.h0, (int)(p - win.h0), keys, vals, p, (int)(win.h1 - p),
      keys, vals, win.h0, (K *)nullptr);
  merge_tile<P::NT, P::VT, 0, HAS_V>(io, comp, sm);
}

} // namespace mgpu

#endif
