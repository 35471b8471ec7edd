/*
 * setop_tile.cuh - what the blocks of a set operation do: the partition
 * launch's Balanced Path points, and a tile's phases (its load by bulk
 * copy, the per-thread split and walk, the list of kept places) with the
 * one-tile-per-block kernel built from them; setop.cuh launches them.
 */
#ifndef MGPU_AGENT_SETOP_TILE_CUH
#define MGPU_AGENT_SETOP_TILE_CUH

#include <climits>
#include <type_traits>
#include <cub/block/block_scan.cuh>

#include "block/key_order.cuh"
#include "block/sampled_merge_path.cuh"
#include "launch.cuh"
#include "policy/setop.cuh"
#include "block/balanced_path.cuh"
#include "block/bulk_copy.cuh"
#include "block/grid_dependency.cuh"
#include "block/named_barrier.cuh"
#include "block/serial_set_op.cuh"
#include "block/tile_prefix.cuh"
#include "block/total_word.cuh"
#include "block/warp_merge_path.cuh"

namespace mgpu {

/* setop_partition_kernel's block: 512 threads, not 128, so that a
 * quarter as many blocks start: i32 keys union at 2^24 (direct points)
 * ~5% faster on an H200, every other call level
 * (docs/TUNING.md, Set operations). */
constexpr int kSetopPartitionThreads = 512;

/* Blocks of setop_partition_kernel for `points` points of `lanes` lanes
 * each (blocks of kSetopPartitionThreads). */
inline unsigned setop_partition_blocks(int lanes, int points) {
  return grid_for((size_t)lanes * points, kSetopPartitionThreads);
}

/* How long setop_kernel's look-back warp waits between its polls until
 * the tile has counted (tile_exclusive_prefix_ahead; 100 ns after).  Polls
 * that early learn little the later ones would not, and each reads 32
 * sectors of L2 while every tile streams through it: 600 ns rather than
 * 100 made the staged pairs union ~1% faster at 2^28; longer waits were
 * level (docs/TUNING.md, Set operations). */
constexpr int kSetopEarlyPollNs = 600;

/* A partition point as the tile kernel reads it: A's count in the low
 * bits, the star in the top bit; 32 bits for calls whose positions are
 * int32_t, 64 past (dispatch_offset). */
template <typename Off>
using setop_split_t =
    typename std::conditional<sizeof(Off) == 4, unsigned,
                              unsigned long long>::type;

template <typename Off>
constexpr int kSetopStarBit = 8 * sizeof(setop_split_t<Off>) - 1;

/* splits[i] = the Balanced Path point at diagonal i * nv (setop_split_t).
 * LANES lanes a point (warp_merge_path: one, two or four points a warp).
 *
 * Without `ready`, the launch also zeroes the words of the tile kernel's
 * look-back (and its tile counter), which saves that kernel a memset
 * launch, and every point waits for the sample launch.
 *
 * With `ready` (setop_samples_kernel has zeroed those words and ready[]),
 * each point raises ready[i] once it is written, and the tile kernel waits
 * for its own two points instead of this whole launch.  The blocks of the
 * first `direct` points search the inputs themselves, without the samples,
 * so those points are found while the samples are still being gathered and
 * the first wave of tiles starts about a sample launch earlier.  Every
 * block lets the tile kernel start only after its wait for the sample
 * launch, so that the tile kernel sees the zeroed words; a direct block
 * waits after its search, before it writes (the zeroing of ready[] must
 * not come after its flag). */
template <int S, int LANES, typename K, typename Off, typename Comp>
__global__ void __launch_bounds__(kSetopPartitionThreads)
    setop_partition_kernel(const K *a, const K *sa, Off na, const K *b,
                           const K *sb, Off nb, int nv, int count,
                           bool duplicates, setop_split_t<Off> *splits,
                           unsigned long long *status, int status_words,
                           unsigned *ready, int direct, Comp comp) {
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  /* block-uniform: the block's last point is among the direct ones */
  const bool direct_block =
      ready && (int)((blockIdx.x + 1) * (blockDim.x / LANES)) <= direct;
  if (!ready) {
    /* the look-back words are this call's own scratch: zeroed before the
     * wait for the sample launch, which does not touch them */
    for (int w = gid; w < status_words; w += gridDim.x * blockDim.x)
      *tile_word(status, w) = 0;
    allow_dependent_grids();
    wait_for_prior_grid();
  } else if (!direct_block) {
    wait_for_prior_grid();
    allow_dependent_grids();
  }
  /* whole warps leave or stay: the search ballots across the warp, so a
   * group past the last point searches for the last one again and keeps
   * quiet */
  if ((gid >> 5) * (32 / LANES) >= count) return;
  const int i_own = gid / LANES, l = threadIdx.x & (LANES - 1);
  const bool live = i_own < count;
  const int i = live ? i_own : count - 1;
  const long long total = (long long)na + nb;
  long long d = (long long)i * nv;
  d = d < total ? d : total;
  path_point bp = {0, 0};
  const Off diag = (Off)d;
  const Off p = warp_merge_path<S, LANES>(a, direct_block ? nullptr : sa, na,
                                          b, direct_block ? nullptr : sb, nb,
                                          diag, comp);
  if (l == 0 && live)
    bp = balanced_path<Off>(a, na, b, nb, diag, p, duplicates, comp);
  if (direct_block) {
    wait_for_prior_grid();
    allow_dependent_grids();
  }
  if (l != 0 || !live) return;
  typedef setop_split_t<Off> split_t;
  splits[i] = (split_t)bp.a | ((split_t)bp.star << kSetopStarBit<Off>);
  if (ready) {
    __threadfence();
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(ready[i]).store(
        1u, cuda::memory_order_release);
  }
}

/* Zeroes the tile kernel's look-back words (and its tile counter) and the
 * points' ready flags, and gathers the partition's samples:
 * samples[i] = keys[i * S].  The first launch of a sampled set operation,
 * in stream order after whatever wrote the inputs. */
template <int S, typename K, typename Off>
__global__ void setop_samples_kernel(const K *a, Off na, K *sa, const K *b,
                                     Off nb, K *sb, unsigned long long *status,
                                     int status_words, unsigned *ready,
                                     int points) {
  /* the partition may start now: its direct blocks search the inputs and
   * wait for this launch to end before they write */
  allow_dependent_grids();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int stride = gridDim.x * blockDim.x;
  for (int w = i; w < status_words; w += stride) *tile_word(status, w) = 0;
  for (int w = i; w < points; w += stride) ready[w] = 0;
  gather_sample<S>((Off)i, a, na, sa, b, nb, sb);
}

/* Waits until the partition has written splits[tile] and splits[tile + 1]
 * (ready[] raised; setop_partition_kernel), or without ready[] for the
 * whole partition launch.  Every thread of the block calls it. */
__device__ __forceinline__ void wait_for_points(const unsigned *ready,
                                                int tile) {
  if (!ready) {
    wait_for_prior_grid();
    return;
  }
  const auto raised = [&](int i) {
    return cuda::atomic_ref<const unsigned, cuda::thread_scope_device>(
               ready[i])
               .load(cuda::memory_order_acquire) != 0;
  };
  while (!raised(tile) || !raised(tile + 1)) __nanosleep(200);
}

/* A tile's share of A and B: a[a0, a0 + na) and b[b0, b0 + nb), from its
 * two Balanced Path points; clamped so that non-monotone points (unsorted
 * input) stay inside both inputs and inside shared memory.  Without
 * splits the call is one tile (setop_run), whose points are the inputs'
 * ends. */
template <typename Off> struct setop_span {
  Off a0;
  int na;
  Off b0;
  int nb;
};

template <int NV, typename Off>
__device__ __forceinline__ setop_span<Off>
span_of_tile(const setop_split_t<Off> *splits, int tile, Off na_all,
             Off nb_all) {
  typedef setop_split_t<Off> split_t;
  constexpr int STAR = kSetopStarBit<Off>;
  constexpr split_t COUNT = ~((split_t)1 << STAR);
  if (!splits) {
    const int na = (int)min(na_all, (Off)NV);
    return {0, na, 0, (int)min(nb_all, (Off)(NV - na))};
  }
  const split_t s0 = splits[tile], s1 = splits[tile + 1];
  const long long total = (long long)na_all + nb_all;
  const long long d0 = (long long)tile * NV;
  const long long d1 = d0 + NV < total ? d0 + NV : total;
  const Off a0 = (Off)(s0 & COUNT), a1 = (Off)(s1 & COUNT);
  const Off b0 = (Off)(d0 - a0 + (long long)(s0 >> STAR));
  const Off b1 = (Off)(d1 - a1 + (long long)(s1 >> STAR));
  const int na = (int)max((Off)0, min((Off)(a1 - a0), (Off)(NV + 1)));
  const int nb = (int)max((Off)0, min((Off)(b1 - b0), (Off)(NV + 1 - na)));
  return {a0, na, b0, nb};
}

/* Off: the type of the inputs' positions (int32_t for calls whose inputs
 * hold at most INT32_MAX keys together, int64_t past: dispatch_offset). */
template <typename K, typename V, typename Off> struct setop_tiles {
  const K *a, *b;
  const V *av, *bv;
  Off na, nb;
  const setop_split_t<Off> *splits; /* null: one tile, no partition */
  unsigned long long *status;  /* one word per tile, zeroed; null with
                                  one tile, which has no successor */
  unsigned long long *gstatus; /* one word per 32 tiles, zeroed */
  unsigned long long *gsum;    /* one word per 32 tiles, zeroed (group_word) */
  unsigned long long *total;   /* pinned host word: the total and the
                                  ticket (total_word), written by the last
                                  tile */
  unsigned long long ticket;   /* this call's, to tell its total from older */
  K *out;
  V *outv;
  long long capacity;
  unsigned keeps;
  bool duplicates;
  int prefetch; /* tiles ahead whose inputs a tile asks L2 for; 0: none */
  const unsigned *ready; /* the points' flags (wait_for_points); null: wait
                            for the partition launch */
};

/* A tile's inputs in shared memory, and what its phases leave there. */
template <int NT, int VT, bool STAGE_V, typename K, typename V,
          int KEPT = NT * VT>
struct setop_tile_smem {
  static constexpr int NV = NT * VT;
  static constexpr int E = 16 / sizeof(K); /* keys per 16 bytes */
  static constexpr int EV = 16 / sizeof(V); /* values per 16 bytes */
  /* The tile's A at keys[sa, sa + na) and B at keys[sb, sb + nb), each at
   * its global address's alignment so that bulk copies can fill them: NV
   * keys, one more for a starred end, the two alignment offsets, and two
   * spare slots (serial_set_op reads the key at the end of a range and
   * the one after it). */
  static constexpr int BUF = NV + 3 + 2 * (E - 1);
  alignas(16) K keys[BUF];
  /* With STAGE_V, the tile's values, laid out like its keys (A's at
   * vals[va], B's at vals[vb]) but at their own alignment; no spare slot. */
  alignas(16) V vals[STAGE_V ? NV + 1 + 2 * (EV - 1) : 1];
  /* where the kept keys sit in keys[], in output order (KEPT: at most
   * NV, half for an intersection tile: KEPT_PERMILLE) */
  unsigned short kept[KEPT];
  int start_a[NT + 1], start_b[NT + 1];
  int warp_totals[NT / 32]; /* compute_exclusive_sum's */
  unsigned long long loaded; /* mbarrier: the bulk copies have landed */
  unsigned long long vloaded; /* STAGE_V: the values' copies have */
};

/* setop_kernel's: the tile, and what its warps hand each other.  With a
 * look-back warp the block scan is compute_exclusive_sum's (CUB_SCAN
 * false): cub's storage (1.2 KB at 256 threads) would only cost room. */
template <int NT, int VT, bool STAGE_V, typename K, typename V,
          int KEPT = NT * VT, bool CUB_SCAN = true>
struct setop_smem : setop_tile_smem<NT, VT, STAGE_V, K, V, KEPT> {
  typename std::conditional<CUB_SCAN,
                            typename cub::BlockScan<int, NT>::TempStorage,
                            char>::type scan;
  int count_slot; /* the tile's count for the look-back warp; -1: not yet */
  long long base;
};

/* The exclusive sum of x over a block's NT compute threads, with barrier 1
 * among them only (the look-back warp is elsewhere); *total gets the sum. */
template <int NT>
__device__ __forceinline__ int compute_exclusive_sum(int x, int *warp_totals,
                                                     int *total) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int inc = x;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const int y = __shfl_up_sync(0xffffffffu, inc, o);
    if (lane >= o) inc += y;
  }
  if (lane == 31) warp_totals[warp] = inc;
  named_sync(1, NT);
  int before = 0, all = 0;
#pragma unroll
  for (int w = 0; w < NT / 32; ++w) {
    const int v = warp_totals[w];
    before += w < warp ? v : 0;
    all += v;
  }
  *total = all;
  return before + inc - x;
}

/* Where a tile sits in shared memory: its span, and the offsets of A and
 * B in keys[] (sa, sb) and, staged, in vals[] (va, vb). */
template <typename Off> struct setop_place {
  setop_span<Off> span;
  int sa, sb, va, vb;
};

template <int NV, bool STAGE_V, typename K, typename V, typename Off>
__device__ __forceinline__ setop_place<Off>
place_of_tile(const setop_tiles<K, V, Off> &t, int tile) {
  constexpr int E = 16 / sizeof(K), EV = 16 / sizeof(V);
  setop_place<Off> p;
  p.span = span_of_tile<NV>(t.splits, tile, t.na, t.nb);
  const auto &s = p.span;
  p.sa = stage_offset(t.a + s.a0);
  p.sb = p.sa + s.na + ((stage_offset(t.b + s.b0) - (p.sa + s.na)) & (E - 1));
  p.va = STAGE_V ? stage_offset(t.av + s.a0) : 0;
  p.vb = STAGE_V ? p.va + s.na +
                       ((stage_offset(t.bv + s.b0) - (p.va + s.na)) & (EV - 1))
                 : 0;
  return p;
}

/* Starts a tile's load: thread 0 announces the bytes on sm.loaded (the
 * keys) and, with STAGE_V, sm.vloaded (the values) and issues the bulk
 * copies, having initialised the mbarriers first when `init` (else it
 * must have re-armed them by waiting on their last phase).
 * The init is in the branch that arrives: in a branch of its own before
 * this call, racecheck reported a warp-level RAW hazard (init against
 * arrive).  Warps 0-1 (2-3 for staged values) copy the ragged ends, which
 * a barrier among the compute threads must publish.  The last thread asks
 * L2 for the inputs of the tile `t.prefetch` ahead, which starts about
 * when this one ends, so that its bulk copies find them there instead of
 * in DRAM (clock64 reads per tile: the load was ~25% of a tile's time). */
template <int NT, bool STAGE_V, typename K, typename V, typename Smem,
          typename Off>
__device__ __forceinline__ void setop_start_load(const setop_tiles<K, V, Off> &t,
                                                 Smem &sm,
                                                 const setop_place<Off> &p,
                                                 int tile, int tiles,
                                                 bool init) {
  constexpr int NV = Smem::NV;
  const int tid = threadIdx.x;
  const auto &s = p.span;
  const bulk_split<K> ca = split_for_bulk(t.a + s.a0, s.na);
  const bulk_split<K> cb = split_for_bulk(t.b + s.b0, s.nb);
  const bulk_split<V> cva =
      split_for_bulk(STAGE_V ? t.av + s.a0 : t.av, STAGE_V ? s.na : 0);
  const bulk_split<V> cvb =
      split_for_bulk(STAGE_V ? t.bv + s.b0 : t.bv, STAGE_V ? s.nb : 0);
  if (tid == 0) {
    if (init) {
      mbarrier_init(&sm.loaded, 1);
      if (STAGE_V) mbarrier_init(&sm.vloaded, 1);
      mbarrier_init_fence();
    }
    mbarrier_arrive_expect_tx(&sm.loaded, ca.bytes + cb.bytes);
    bulk_copy_middle(sm.keys + p.sa, t.a + s.a0, ca, &sm.loaded);
    bulk_copy_middle(sm.keys + p.sb, t.b + s.b0, cb, &sm.loaded);
    if (STAGE_V) {
      /* the values on an mbarrier of their own: the walk and the tile's
       * count, which later tiles wait for, follow the keys alone */
      mbarrier_arrive_expect_tx(&sm.vloaded, cva.bytes + cvb.bytes);
      bulk_copy_middle(sm.vals + p.va, t.av + s.a0, cva, &sm.vloaded);
      bulk_copy_middle(sm.vals + p.vb, t.bv + s.b0, cvb, &sm.vloaded);
    }
  }
  /* the few keys (and values) outside the bulk copies' 16-byte units */
#if __CUDA_ARCH__ >= 900
  if (tid < 32) copy_ragged_ends(sm.keys + p.sa, t.a + s.a0, s.na, ca, tid);
  else if (tid < 64)
    copy_ragged_ends(sm.keys + p.sb, t.b + s.b0, s.nb, cb, tid - 32);
  else if (STAGE_V && tid < 96)
    copy_ragged_ends(sm.vals + p.va, t.av + s.a0, s.na, cva, tid - 64);
  else if (STAGE_V && tid < 128)
    copy_ragged_ends(sm.vals + p.vb, t.bv + s.b0, s.nb, cvb, tid - 96);
#else
  if (tid < NT) {
    copy_range_by_block<NT>(sm.keys + p.sa, t.a + s.a0, s.na, tid);
    copy_range_by_block<NT>(sm.keys + p.sb, t.b + s.b0, s.nb, tid);
    if (STAGE_V) {
      copy_range_by_block<NT>(sm.vals + p.va, t.av + s.a0, s.na, tid);
      copy_range_by_block<NT>(sm.vals + p.vb, t.bv + s.b0, s.nb, tid);
    }
  }
#endif
  const int ahead = tile + t.prefetch;
  if (t.prefetch > 0 && tid == NT - 1 && ahead < tiles) {
    const auto n = span_of_tile<NV>(t.splits, ahead, t.na, t.nb);
    bulk_prefetch_l2(t.a + n.a0, n.na);
    bulk_prefetch_l2(t.b + n.b0, n.nb);
    if (STAGE_V) {
      bulk_prefetch_l2(t.av + n.a0, n.na);
      bulk_prefetch_l2(t.bv + n.b0, n.nb);
    }
  }
}

/* A compute thread's share of the walk: where it starts in A and B (ta,
 * tb, places in keys[]) and which of its VT slots took a key of A / of B. */
struct setop_walk {
  int ta, tb;
  unsigned took_a, took_b;
};

/* Each thread's start is the Balanced Path point on its diagonal of the
 * tile, its end the next thread's start; SYNC is the barrier among the
 * compute threads between the two. */
template <int NT, int VT, typename K, typename Smem, typename Comp,
          typename Sync, typename Off>
__device__ __forceinline__ setop_walk walk_tile(Smem &sm,
                                                const setop_place<Off> &p,
                                                bool duplicates, Comp comp,
                                                Sync sync) {
  const int tid = threadIdx.x;
  const int sa = p.sa, na = p.span.na, sb = p.sb, nb = p.span.nb;
  const int count = na + nb;
  const int diag = min(VT * tid, count);
  const int mp = merge_path(sm.keys + sa, na, sm.keys + sb, nb, diag, comp);
  const path_point bp = balanced_path<int>(sm.keys + sa, na, sm.keys + sb, nb,
                                           diag, mp, duplicates, comp);
  setop_walk w;
  w.ta = sa + (int)bp.a;
  w.tb = sb + diag - (int)bp.a + bp.star;
  sm.start_a[tid] = w.ta;
  sm.start_b[tid] = w.tb;
  if (tid == NT - 1) {
    sm.start_a[NT] = sa + na;
    sm.start_b[NT] = sb + nb;
  }
  sync();
  const int ea = max(w.ta, sm.start_a[tid + 1]);
  const int eb = max(w.tb, sm.start_b[tid + 1]);
  serial_set_op<VT>(sm.keys, w.ta, ea, w.tb, eb, &w.took_a, &w.took_b, comp);
  return w;
}

/* The place in keys[] of the key that slot i of the walk took, counted
 * from the bits below i. */
__device__ __forceinline__ unsigned short kept_place(const setop_walk &w,
                                                     int i) {
  const unsigned below = (1u << i) - 1;
  return (unsigned short)((w.took_a >> i) & 1
                              ? w.ta + __popc(w.took_a & below)
                              : w.tb + __popc(w.took_b & below));
}

/* The places of the thread's kept keys whose output offsets lie in
 * [lo, lo + room), listed at kept[offset - lo]: one round of a
 * tile with ROUNDS.  Per thread, no warp-wide vote: threads of a warp
 * can straddle the round's ends differently.  Only the kept slots are
 * visited (a replay of the whole walk held more registers, and spilled
 * under the five-block bound). */
__device__ __forceinline__ void list_kept_round(unsigned short *kept,
                                                int offset, unsigned commit,
                                                const setop_walk &w, int lo,
                                                int room) {
  const int n = __popc(commit);
  if (offset >= lo + room || offset + n <= lo) return;
  int o = offset - lo;
  for (unsigned c = commit; c && o < room; c &= c - 1, ++o)
    if (o >= 0) kept[o] = kept_place(w, __ffs(c) - 1);
}

/* Lists the places of a thread's kept keys in kept[offset ...], in output
 * order, by replaying the walk's bits.  KEPT < NV (an intersection tile):
 * unsorted input can make more than the list holds; they are dropped. */
template <int VT, int KEPT, int NV>
__device__ __forceinline__ void list_kept(unsigned short *kept, int offset,
                                          unsigned commit,
                                          const setop_walk &w) {
  if (__any_sync(0xffffffffu, __popc(commit) > VT / 2)) {
    int a = w.ta, b = w.tb;
#pragma unroll
    for (int i = 0; i < VT; ++i) {
      const unsigned from_a = (w.took_a >> i) & 1, from_b = (w.took_b >> i) & 1;
      if ((commit >> i) & 1 && (KEPT == NV || offset < KEPT))
        kept[offset++] = (unsigned short)(from_a ? a : b);
      a += from_a;
      b += from_b;
    }
  } else {
    /* Few slots emit (intersection, difference): visit only those, each
     * slot's place counted from the bits below it.  About half the
     * instructions of the replay above at intersection's ~5 of 23. */
    for (unsigned c = commit; c; c &= c - 1) {
      if (KEPT < NV && offset >= KEPT) break;
      kept[offset++] = kept_place(w, __ffs(c) - 1);
    }
  }
}

/* Where the value of the key at place s of keys[] comes from: the index
 * into A's values (>= 0) or, complemented, into B's. */
template <typename Off>
__device__ __forceinline__ Off value_source(const setop_place<Off> &p, int s) {
  return s < p.sb ? p.span.a0 + (s - p.sa) : ~(p.span.b0 + (s - p.sb));
}

/* How many values fit where a tile's B keys were: once the walk is done,
 * an intersection or difference only reads A's keys (every kept slot took
 * a key of A), so that room is free.  An intersection's output always fits
 * (each kept slot also took a key of B); a difference's usually does. */
template <typename K, typename V, typename Off>
__device__ __forceinline__ int early_room(const setop_place<Off> &p) {
  static_assert(sizeof(V) <= sizeof(K) && alignof(V) <= alignof(K),
                "values fit where keys were");
  return p.span.nb * (int)(sizeof(K) / sizeof(V));
}

template <typename K, typename V, typename Smem, typename Off>
__device__ __forceinline__ V *early_values(Smem &sm, const setop_place<Off> &p) {
  return reinterpret_cast<V *>(sm.keys + p.sb);
}

/* Gathers the A values of kept[0, n) into early_values, U loads in flight
 * a thread (an intersection's tile emits ~6 outputs a thread here).  Runs
 * while the look-back warp waits for the tile's base. */
template <int NT, typename K, typename V, typename Smem, typename Off>
__device__ __forceinline__ void
gather_kept_values(const setop_tiles<K, V, Off> &t, Smem &sm,
                   const setop_place<Off> &p,
                                                   int n) {
  constexpr int U = 8;
  V *vals = early_values<K, V>(sm, p);
  const V *av = t.av + p.span.a0;
  for (int i0 = threadIdx.x; i0 < n; i0 += U * NT) {
    V v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int i = i0 + u * NT;
      v[u] = i < n ? av[sm.kept[i] - p.sa] : V();
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int i = i0 + u * NT;
      if (i < n) vals[i] = v[u];
    }
  }
}

/* The value of the key at place s of keys[], from the staged values. */
template <typename Smem, typename Off>
__device__ __forceinline__ auto staged_value(const Smem &sm,
                                             const setop_place<Off> &p, int s) {
  return sm.vals[s < p.sb ? p.va + (s - p.sa) : p.vb + (s - p.sb)];
}

/* The value at source v (value_source) in the inputs. */
template <typename K, typename V, typename Off>
__device__ __forceinline__ V input_value(const setop_tiles<K, V, Off> &t,
                                         Off v) {
  return v >= 0 ? t.av[v] : t.bv[~v];
}

/* The value of the kept key at place s of keys[], output i: staged, or
 * for the first `early` outputs from early_values, else from the inputs. */
template <bool STAGE_V, typename K, typename V, typename Smem, typename Off>
__device__ __forceinline__ V kept_value(const setop_tiles<K, V, Off> &t,
                                        Smem &sm, const setop_place<Off> &p,
                                        int s, int i,
                                        int early) {
  if (STAGE_V) return staged_value(sm, p, s);
  return i < early ? early_values<K, V>(sm, p)[i]
                   : input_value(t, value_source(p, s));
}

/* Writes a tile's kept keys (and values) from shared memory at base, the
 * compute threads striding over them; capacity bounds the writes even if
 * unsorted input over-counts.  The values of the first `early` outputs
 * wait in early_values (gather_kept_values). */
template <int NT, bool HAS_V, bool STAGE_V, typename K, typename V,
          typename Smem, int U = 1, bool ALIGN = false, typename Off>
__device__ __forceinline__ void store_kept(const setop_tiles<K, V, Off> &t,
                                           Smem &sm, const setop_place<Off> &p,
                                           long long base, int count,
                                           int early = 0, int first = 0) {
  const int room = (int)min((long long)count, t.capacity - base);
  K *out = t.out + base;
  V *outv = HAS_V ? t.outv + base : nullptr;
  /* ALIGN: output i goes to thread i - shift, so that each warp's first
   * store is the first key of a 128-byte line (threads before `first`
   * idle in the first round) */
  constexpr int LINE = 128 / (int)sizeof(K);
  const int start =
      first + (int)threadIdx.x -
      (ALIGN ? (int)(((size_t)(out + first) / sizeof(K)) & (LINE - 1)) : 0);
  /* U outputs a thread at a time: their loads (shared, and gathered
   * values) are in flight together before the stores */
  for (int i0 = start; i0 < room; i0 += U * NT) {
    K k[U];
    V v[HAS_V ? U : 1];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int i = i0 + u * NT;
      if (i < room && (!ALIGN || i >= first)) {
        const int s = sm.kept[i];
        k[u] = sm.keys[s];
        if (HAS_V) v[u] = kept_value<STAGE_V>(t, sm, p, s, i, early);
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int i = i0 + u * NT;
      if (i < room && (!ALIGN || i >= first)) {
        out[i] = k[u];
        if (HAS_V) outv[i] = v[u];
      }
    }
  }
}

/* The outputs kept[tid + j * NT], j < N, of a thread, read before the
 * tile's base is known (EARLY_OUTPUTS): keys and staged values
 * from shared memory, gathered values from the inputs (their loads then
 * overlap the wait). */
template <typename K, typename V, int N, bool HAS_V> struct loaded_outputs {
  K key[N > 0 ? N : 1];
  V val[N > 0 && HAS_V ? N : 1];
};

template <int NT, int N, bool HAS_V, bool STAGE_V, typename K, typename V,
          typename Smem, typename Off>
__device__ __forceinline__ void load_outputs(loaded_outputs<K, V, N, HAS_V> &r,
                                             const setop_tiles<K, V, Off> &t,
                                             const Smem &sm,
                                             const setop_place<Off> &p,
                                             int count) {
#pragma unroll
  for (int j = 0; j < N; ++j) {
    const int i = (int)threadIdx.x + j * NT;
    if (i < count) {
      const int s = sm.kept[i];
      r.key[j] = sm.keys[s];
      if (STAGE_V) r.val[j] = staged_value(sm, p, s);
      else if (HAS_V) r.val[j] = input_value(t, value_source(p, s));
    }
  }
}

template <int NT, int N, bool HAS_V, typename K, typename V, typename Off>
__device__ __forceinline__ void
store_loaded(const setop_tiles<K, V, Off> &t,
             const loaded_outputs<K, V, N, HAS_V> &r, long long base,
             int count) {
  const int room = (int)min((long long)count, t.capacity - base);
#pragma unroll
  for (int j = 0; j < N; ++j) {
    const int i = (int)threadIdx.x + j * NT;
    if (i < room) {
      t.out[base + i] = r.key[j];
      if (HAS_V) t.outv[base + i] = r.val[j];
    }
  }
}

/* The call's total for the host: beside the ticket in one word while it
 * fits in 32 bits (inputs of at most INT32_MAX keys), else as a 64-bit
 * value (publish_value; setop_run waits accordingly). */
template <typename Off, typename K, typename V>
__device__ __forceinline__ void
publish_setop_total(const setop_tiles<K, V, Off> &t, long long total) {
  if constexpr (sizeof(Off) == 4)
    publish_total(t.total, total, t.ticket);
  else
    publish_value(t.total, total, t.ticket);
}

/* STAGE_V: the values come into shared memory by bulk copy with the keys
 * (set_union and set_symmetric_difference, which emit most of the tile:
 * i32 pairs union ~12% faster); otherwise the stores gather the kept
 * ones from the inputs (intersection and difference emit ~20%, and
 * staging all values made them slower).  The values land on an mbarrier
 * of their own (sm.vloaded) and the walk waits for the keys alone, so the
 * tile's count (which later tiles wait for) comes before its values are
 * in (docs/TUNING.md, Set operations).
 *
 * LOOKBACK_WARP: the block has a warp more than NT, which looks back for
 * the tile's place from the start (tile_exclusive_prefix_ahead) while the
 * NT threads load, walk and compact; otherwise warp 0 looks back after the
 * scan while the other warps compact.
 *
 * What needs no base is done while the look-back warp waits for it (a
 * tile waits ~30% of its life): with EARLY_VALUES the kept values of an
 * intersection or difference are gathered into the room of B's keys,
 * with EARLY_OUTPUTS each thread reads its first outputs into registers
 * (union and symmetric difference). */
template <typename P, bool HAS_V, bool STAGE_V, bool LOOKBACK_WARP, typename K,
          typename V, typename Off, typename Comp>
__global__ void __launch_bounds__(
    P::NT + (LOOKBACK_WARP ? 32 : 0),
    min_blocks_within_sm(P::NT + (LOOKBACK_WARP ? 32 : 0), P::MIN_BLOCKS))
    setop_kernel(setop_tiles<K, V, Off> t, Comp comp) {
  constexpr int NT = P::NT, VT = P::VT, NV = P::NV;
  constexpr int THREADS = NT + (LOOKBACK_WARP ? 32 : 0);
  static_assert(VT <= 32, "a thread's slots are bits of one word");
  static_assert(HAS_V || !STAGE_V, "only values can be staged");
  static_assert(NT >= (STAGE_V ? 128 : 64),
                "a warp copies the ends of each bulk copy");
  constexpr int KEPT = kept_room<P>();
  constexpr bool EARLY = P::EARLY_VALUES && HAS_V && !STAGE_V;
  static_assert(!EARLY || LOOKBACK_WARP, "early values wait with the look-back warp");
  constexpr int LOADED = P::EARLY_OUTPUTS;
  static_assert(LOADED == 0 || (LOOKBACK_WARP && !EARLY),
                "outputs are loaded early with the look-back warp, values "
                "not gathered early as well");
  typedef setop_smem<NT, VT, STAGE_V, K, V, KEPT, !LOOKBACK_WARP> smem_t;
  static_assert(smem_t::BUF < 65535, "kept[] holds tile positions in 16 bits");
  auto &sm = *shared_as<smem_t>();
  const int tid = threadIdx.x, tile = blockIdx.x;
  /* launched early (grid_dependency.cuh): the splits come from the
   * partition launch (the zeroed look-back words too, or from the sample
   * launch, which ended before it let this one start) */
  wait_for_points(t.ready, tile);

  const setop_place<Off> p = place_of_tile<NV, STAGE_V>(t, tile);
  if (LOOKBACK_WARP && tid == 0) sm.count_slot = -1;
  setop_start_load<NT, STAGE_V>(t, sm, p, tile, (int)gridDim.x, true);
  __syncthreads();

  if (LOOKBACK_WARP && tid >= NT) {
    long long count;
    const long long base = tile_exclusive_prefix_ahead<kSetopEarlyPollNs>(
        t.status, t.gstatus, t.gsum, tile, &sm.count_slot, &count);
    if (tid == NT) {
      sm.base = base;
      if (tile == (int)gridDim.x - 1)
        publish_setop_total<Off>(t, base + count);
    }
    __threadfence_block();
    named_arrive(2, THREADS);
    return;
  }

  mbarrier_wait(&sm.loaded, 0);
  const setop_walk w = walk_tile<NT, VT, K>(sm, p, t.duplicates, comp, [] {
    if (LOOKBACK_WARP) named_sync(1, NT);
    else __syncthreads();
  });
  const unsigned commit = set_op_commit(t.keeps, w.took_a, w.took_b);

  /* Compact: thread offsets by a block scan, the tile's by look-back.  The
   * keys stay where they are; kept[] lists their places, found again by
   * replaying the walk's bits.  kept[] is not keys[], so the other warps
   * compact while warp 0 (or the look-back warp) looks back (ncu: a
   * barrier after the look-back took 36% of the stalls). */
  constexpr bool ROUNDS = P::ROUNDS;
  int offset, tile_count;
  if constexpr (LOOKBACK_WARP) {
    offset = compute_exclusive_sum<NT>(__popc(commit), sm.warp_totals,
                                       &tile_count);
    if (KEPT < NV && !ROUNDS) tile_count = min(tile_count, KEPT);
    if (tid == 0) {
      publish_count(t.status, t.gsum, tile, tile_count);
      write_count_slot(&sm.count_slot, tile_count);
    }
  } else {
    cub::BlockScan<int, NT>(sm.scan).ExclusiveSum(__popc(commit), offset,
                                                  tile_count);
    if (KEPT < NV && !ROUNDS) tile_count = min(tile_count, KEPT);
    if (tid < 32) {
      const long long base =
          tile_exclusive_prefix(t.status, t.gstatus, t.gsum, tile, tile_count);
      if (tid == 0) {
        sm.base = base;
        if (tile == (int)gridDim.x - 1)
          publish_setop_total<Off>(t, base + tile_count);
      }
    }
  }
  /* With EARLY (and an operation that keeps only A's keys), the values of
   * the first round are gathered while the look-back runs. */
  const auto gather_early = [&](int listed) {
    int early = 0;
    if constexpr (EARLY) {
      if (!(t.keeps & kKeepB)) {
        early = min(listed, early_room<K, V>(p));
        named_sync(1, NT); /* kept[]; B's keys are done with */
        gather_kept_values<NT>(t, sm, p, early);
      }
    }
    return early;
  };
  /* The first round (all of a tile without rounds) is listed while the
   * look-back may still run; each later one once the compute threads have
   * stored the last (tile_count is the block's, so every thread takes the
   * same rounds). */
  int listed;
  if constexpr (ROUNDS) {
    list_kept_round(sm.kept, offset, commit, w, 0, KEPT);
    listed = min(tile_count, KEPT);
  } else {
    list_kept<VT, KEPT, NV>(sm.kept, offset, commit, w);
    listed = tile_count;
  }
  const int early = gather_early(listed);
  /* staged values, first read by load_outputs or store_kept */
  if (STAGE_V) mbarrier_wait(&sm.vloaded, 0);
  loaded_outputs<K, V, LOADED, HAS_V> r;
  if constexpr (LOADED > 0) {
    named_sync(1, NT); /* kept[] */
    load_outputs<NT, LOADED, HAS_V, STAGE_V>(r, t, sm, p, listed);
  }
  if (LOOKBACK_WARP) named_sync(2, THREADS);
  else __syncthreads();
  const long long base = sm.base;
  if constexpr (LOADED > 0) store_loaded<NT>(t, r, base, listed);
  constexpr int SU = P::STORE_UNROLL;
  constexpr bool AL = P::ALIGNED_STORES;
  store_kept<NT, HAS_V, STAGE_V, K, V, smem_t, SU, AL>(t, sm, p, base, listed,
                                                       early, LOADED * NT);
  if constexpr (ROUNDS) {
    for (int lo = KEPT; lo < tile_count; lo += KEPT) {
      if (LOOKBACK_WARP) named_sync(1, NT);
      else __syncthreads();
      list_kept_round(sm.kept, offset, commit, w, lo, KEPT);
      if (LOOKBACK_WARP) named_sync(1, NT);
      else __syncthreads();
      store_kept<NT, HAS_V, STAGE_V, K, V, smem_t, SU, AL>(
          t, sm, p, base + lo, min(tile_count - lo, KEPT));
    }
  }
}

} // namespace mgpu

#endif
