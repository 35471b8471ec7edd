/*
 * segblocksort.cuh - the blocksort of a segmented sort: one block
 * sorts a tile of NT * VT keys within segments.  Each thread sorts its VT
 * keys with a sorting network walled at the heads (sorting_network.cuh),
 * then log2(NT) merge levels in shared memory merge pairs of runs, each
 * mixing only the segment that straddles their interface.  Which segment
 * that is comes from a tree of head ranges built alongside: each thread
 * starts with the first and last head among its keys, and every level
 * combines the ranges of the two runs it merged.  Once the runs are longer
 * than the segments, one step merges the windows of every interface left
 * (run_window); before that, the upper levels, where a straddling segment
 * is a few keys against a run of thousands, place those keys by rank
 * (group_rank_merge) when they are short enough.
 */
#ifndef MGPU_AGENT_SEGBLOCKSORT_CUH
#define MGPU_AGENT_SEGBLOCKSORT_CUH

#include "block/segmented_merge.cuh"
#include "block/tile_io.cuh"
#include "agent/merge_tile.cuh"

namespace mgpu {

/* Bits [g, g + VT) of the head bitfield (bit i = element g + i is a
 * head); elements at or past n read as 0. */
template <int VT>
__device__ __forceinline__ unsigned head_bits_at(const unsigned *bits,
                                                 long long g, long long n) {
  if (!bits || g >= n) return 0;
  const long long w = g >> 5;
  const int s = (int)(g & 31);
  unsigned x = bits[w] >> s;
  if (s && ((w + 1) << 5) < n) x |= bits[w + 1] << (32 - s);
  const unsigned mask = VT >= 32 ? ~0u : (1u << VT) - 1;
  return x & mask;
}

template <int NT, int VT, bool HAS_V, typename K, typename V>
struct segblocksort_smem {
  merge_tile_smem<NT * VT, HAS_V, K, V> tile;
  head_range ranges[NT];
  int splits[NT];
};

/* How many keys each thread can place in a group_rank_merge: an upper
 * level takes that path only when every interface's straddling segment has
 * at most coop * kRankPerThread keys; from coop = kRankFrom up. */
constexpr int kRankPerThread = 4;
constexpr int kRankFrom = 16;

/* The coop threads of one merge group merge the active parts of their
 * interface in place: keys[a_lo, mid) (the tail of A from its last head)
 * with keys[mid, mid + nb) (the head of B up to its first head), the two
 * halves of the one segment that straddles mid.  Thread `lane` of the
 * group takes keys lane, lane + coop, ... and finds its place by its rank
 * in the other part (ties: A first, as in the serial merge); the caller's
 * barrier separates these reads from the writes in store().  At short
 * segments the upper levels have a few dozen active keys per interface:
 * one search per key does them, where the serial merge made every thread
 * of the block walk VT keys (ncu: the segmented blocksort at L = 32 spent
 * 70% of its 858 us in the nine merge levels). */
template <bool HAS_V, typename K, typename V, typename Comp>
struct group_rank_merge {
  K key[kRankPerThread];
  V val[kRankPerThread];
  int pos[kRankPerThread];

  __device__ __forceinline__ void load(const K *keys, const V *vals, int lane,
                                       int coop, int a_lo, int mid, int nb,
                                       Comp comp) {
    const int na = mid - a_lo, n = na + nb;
#pragma unroll
    for (int r = 0; r < kRankPerThread; ++r) {
      const int e = lane + coop * r;
      pos[r] = -1;
      if (e >= n) continue;
      const bool from_a = e < na;
      const int src = from_a ? a_lo + e : mid + (e - na);
      const K k = keys[src];
      /* rank in the other part: B keys strictly before an A key; A keys
       * not after a B key */
      const K *other = from_a ? keys + mid : keys + a_lo;
      int lo = 0, hi = from_a ? nb : na;
      while (lo < hi) {
        const int m = (lo + hi) >> 1;
        if (from_a ? comp(other[m], k) : !comp(k, other[m]))
          lo = m + 1;
        else
          hi = m;
      }
      const int p = (from_a ? e : e - na) + lo;
      pos[r] = a_lo + min(p, n - 1); /* a bad comparator cannot escape */
      key[r] = k;
      if (HAS_V) val[r] = vals[src];
    }
  }

  __device__ __forceinline__ void store(K *keys, V *vals) const {
#pragma unroll
    for (int r = 0; r < kRankPerThread; ++r) {
      if (pos[r] < 0) continue;
      keys[pos[r]] = key[r];
      if (HAS_V) vals[pos[r]] = val[r];
    }
  }
};

/* How many outputs each thread merges when a level closes every window at
 * once (run_windows below). */
constexpr int kWindowPerThread = 16;

/* Once runs are longer than the segments, no segment can reach across two
 * interfaces, and the merges of every level still to come touch disjoint
 * windows: at interface m = j * run, the segment from the last head of run
 * j - 1 to the first head of run j.  All those windows are then merged in
 * one step instead of a level each (at L = 32: levels 8 ... 512, 57% of
 * the segmented blocksort's instructions, ncu).  The T = NT / runs threads
 * of run j take the window at its start, merge-path split by T.
 *
 * fits(): can this level close every window (call on thread j < runs,
 * with the level's head ranges)?  Interior runs must hold a head (the
 * first and last run may not: their segment reaches only one interface),
 * and each window must fit T * kWindowPerThread outputs. */
struct run_window {
  int s, m, e; /* A = [s, m), B = [m, e), tile positions */

  __device__ __forceinline__ static run_window at(const head_range *ranges,
                                                  int j, int run, int count) {
    const head_range ra = ranges[j - 1], rb = ranges[j];
    return run_window{ra.last >= 0 ? ra.last : 0, j * run,
                      rb.first != kNoHead ? rb.first : count};
  }

  __device__ __forceinline__ static bool fits(const head_range *ranges, int j,
                                              int runs, int run, int count,
                                              int threads) {
    if (j < 1 || j >= runs) return true;
    if (ranges[j - 1].last < 0 && j - 1 > 0) return false;
    if (ranges[j].first == kNoHead && j + 1 < runs) return false;
    const run_window w = at(ranges, j, run, count);
    return w.e - w.s <= threads * kWindowPerThread;
  }
};

/* Thread `lane` of the T threads at window w: its share of merge(A, B),
 * keys (and their sources) in registers; the caller's barrier separates
 * these reads from put().  Ties take A first, as the serial merge does.
 * Reads stay inside [s, e) whatever the data. */
template <bool HAS_V, typename K, typename V, typename Comp>
struct window_share {
  K key[kWindowPerThread];
  V val[kWindowPerThread];
  int out, n; /* outputs [out, out + n) */

  __device__ __forceinline__ void take(const K *keys, const V *vals,
                                       run_window w, int lane, int threads,
                                       Comp comp) {
    const int na = w.m - w.s, nb = w.e - w.m, total = na + nb;
    n = 0;
    out = w.s;
    if (na == 0 || nb == 0) return; /* one piece: already in place */
    const int per = (total + threads - 1) / threads;
    const int d = min(lane * per, total);
    n = min(per, total - d);
    out = w.s + d;
    if (n <= 0) return;
    int a = w.s + merge_path(keys + w.s, na, keys + w.m, nb, d, comp);
    int b = w.m + d - (a - w.s);
    const int last = w.e - 1;
    K ak = keys[min(a, last)], bk = keys[min(b, last)];
#pragma unroll
    for (int i = 0; i < kWindowPerThread; ++i) {
      if (i >= n) break;
      const bool take_b = b < w.e && (a >= w.m || comp(bk, ak));
      key[i] = take_b ? bk : ak;
      if (HAS_V) val[i] = vals[take_b ? b : a];
      if (take_b)
        bk = keys[min(++b, last)];
      else
        ak = keys[min(++a, last)];
    }
  }

  __device__ __forceinline__ void put(K *keys, V *vals) const {
#pragma unroll
    for (int i = 0; i < kWindowPerThread; ++i) {
      if (i >= n) break;
      keys[out + i] = key[i];
      if (HAS_V) vals[out + i] = val[i];
    }
  }
};

/* Sorts keys_in[0, count) of the tile starting at global index t0 into
 * keys_out (and keys_out2 when not null); *range (when range is not null)
 * gets the tile's head range (global positions, in the sort's Off), and
 * samples (when not null) every S-th key.  Without bits there are no
 * heads: a plain blocksort that skips the work of threads whose keys are
 * in place. */
template <int NT, int VT, int S, bool HAS_V, typename K, typename V,
          typename Off, typename Comp>
__device__ __forceinline__ void segblocksort_tile(
    const K *keys_in, const V *vals_in, int count, K *keys_out, V *vals_out,
    K *keys_out2, V *vals_out2, const unsigned *bits, long long n,
    long long t0, head_range_of<Off> *range, K *samples, Comp comp,
    segblocksort_smem<NT, VT, HAS_V, K, V> &sm) {
  const int tid = threadIdx.x;
  load_to_shared<NT, VT>(keys_in, count, sm.tile.keys);
  if (HAS_V) load_to_shared<NT, VT>(vals_in, count, sm.tile.vals);
  /* heads among this thread's keys (tile positions) */
  const unsigned heads = head_bits_at<VT>(bits, t0 + VT * tid, n);
  head_range mine = {heads ? VT * tid + __ffs(heads) - 1 : kNoHead,
                     heads ? VT * tid + 31 - __clz(heads) : -1};
  sm.ranges[tid] = mine;
  /* threads holding a head: a level whose interior runs outnumber them
   * cannot close its windows, and skips the test (and its barrier) */
  const int head_threads = __syncthreads_count(heads != 0);
  K k[VT];
  V v[VT];
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    const int idx = VT * tid + i;
    if (idx < count) {
      k[i] = sm.tile.keys[idx];
      if (HAS_V) v[i] = sm.tile.vals[idx];
    }
  }
  /* a head at i walls it off from the keys before it */
  thread_sort<VT, HAS_V>(k, v, heads | tail_walls<VT>(count - VT * tid), comp);
  __syncthreads();
  thread_to_shared<VT>(k, count, sm.tile.keys);
  if (HAS_V) thread_to_shared<VT>(v, count, sm.tile.vals);
  __syncthreads();
  int runs_left = NT; /* runs whose head ranges sit in sm.ranges */
#pragma unroll 1
  for (int coop = 2, level = 0; coop <= NT; coop *= 2, ++level) {
    /* Runs of this level: VT << level keys, one per 1 << level threads. */
    {
      const int run = VT << level, runs = (count + run - 1) / run;
      const int threads = 1 << level, j = tid >> level;
      if (runs - 2 <= head_threads &&
          !__syncthreads_or(tid < runs && !run_window::fits(
                                               sm.ranges, tid, runs, run,
                                               count, threads))) {
        window_share<HAS_V, K, V, Comp> w;
        if (j >= 1 && j < runs)
          w.take(sm.tile.keys, sm.tile.vals,
                 run_window::at(sm.ranges, j, run, count), tid & (threads - 1),
                 threads, comp);
        else
          w.n = 0;
        __syncthreads();
        w.put(sm.tile.keys, sm.tile.vals);
        runs_left = runs;
        __syncthreads();
        break;
      }
    }
    /* threads [g0, g0 + coop) merge runs [start, mid) and [mid, end) */
    const int g0 = tid & ~(coop - 1);
    const int start = min(VT * g0, count);
    const int mid = min(start + VT * (coop / 2), count);
    const int end = min(start + VT * coop, count);
    const int na = mid - start, nb = end - mid;
    /* the halves' head ranges sit at [g0 / (coop/2)] and the next */
    const head_range ra = sm.ranges[(g0 >> level)];
    const head_range rb = sm.ranges[(g0 >> level) + 1];
    const int ha = max(0, min(max(start, ra.last) - start, na)); /* A locked below */
    const int hb = max(0, min(min(end, rb.first) - mid, nb));   /* B locked from */
    /* Few interfaces: each group merges its straddling segment by ranks
     * (group_rank_merge), if every one of them fits. */
    if (coop >= kRankFrom &&
        !__syncthreads_or((na - ha) + hb > coop * kRankPerThread)) {
      group_rank_merge<HAS_V, K, V, Comp> w;
      w.load(sm.tile.keys, sm.tile.vals, tid - g0, coop, start + ha, mid, hb, comp);
      __syncthreads();
      w.store(sm.tile.keys, sm.tile.vals);
      if (tid == g0) sm.ranges[g0 >> (level + 1)] = combine(ra, rb);
      runs_left = NT / coop;
      __syncthreads();
      continue;
    }
    /* Each thread's start on the segmented Merge Path; its end is the next
     * thread's start (na for the last of the group).  A thread whose
     * outputs all come from their own places - all from A up to its end,
     * or all from B - has nothing to do: on segments shorter than the runs
     * or on nearly sorted keys most threads of the upper levels idle. */
    const int d = min(VT * (tid - g0), na + nb);
    const int from_a = segmented_merge_path(sm.tile.keys + start, na,
                                            sm.tile.keys + mid, nb, ha, hb, d,
                                            comp);
    sm.splits[tid] = from_a;
    __syncthreads();
    const int d_end = min(d + VT, na + nb);
    const int end_a = ((tid + 1) & (coop - 1)) == 0 ? na : sm.splits[tid + 1];
    const bool in_place = VT * tid >= count || end_a == d_end || from_a == na;
    if (!in_place) {
      int src[VT];
      segmented_serial_merge<VT>(sm.tile.keys, start + from_a, mid, start + ha,
                                 mid + d - from_a, end, mid + hb, k, src, comp);
      if (HAS_V) {
#pragma unroll
        for (int i = 0; i < VT; ++i)
          if (VT * tid + i < count) v[i] = sm.tile.vals[src[i]];
      }
    }
    __syncthreads();
    if (tid == g0) sm.ranges[g0 >> (level + 1)] = combine(ra, rb);
    runs_left = NT / coop;
    if (!in_place) {
      thread_to_shared<VT>(k, count, sm.tile.keys);
      if (HAS_V) thread_to_shared<VT>(v, count, sm.tile.vals);
    }
    __syncthreads();
  }
  shared_to_global<NT, VT>(sm.tile.keys, count, keys_out);
  if (HAS_V) shared_to_global<NT, VT>(sm.tile.vals, count, vals_out);
  if (keys_out2) {
    shared_to_global<NT, VT>(sm.tile.keys, count, keys_out2);
    if (HAS_V) shared_to_global<NT, VT>(sm.tile.vals, count, vals_out2);
  }
  if (samples) store_samples<NT, S>(sm.tile.keys, count, t0, samples);
  if (range && tid < 32) {
    /* the tile's first and last head: the runs left when the levels
     * stopped */
    head_range r = {kNoHead, -1};
    for (int j = tid; j < runs_left; j += 32) r = combine(r, sm.ranges[j]);
#if __CUDA_ARCH__ >= 800
    r.first = __reduce_min_sync(0xffffffffu, r.first);
    r.last = __reduce_max_sync(0xffffffffu, r.last);
#else
    for (int o = 16; o > 0; o >>= 1) {
      r.first = min(r.first, __shfl_xor_sync(0xffffffffu, r.first, o));
      r.last = max(r.last, __shfl_xor_sync(0xffffffffu, r.last, o));
    }
#endif
    if (tid == 0) {
      range->first = r.first == kNoHead ? no_head<Off>() : (Off)(t0 + r.first);
      range->last = r.last < 0 ? (Off)-1 : (Off)(t0 + r.last);
    }
  }
}

} // namespace mgpu

#endif
