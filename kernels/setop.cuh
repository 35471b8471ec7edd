/*
 * setop.cuh - mgpu_setop on the GPU.  A partition launch finds, for every
 * tile boundary, the Balanced Path point (starred when it would cut a
 * matched pair); then one block per tile has its share of A and B (and,
 * for a union or symmetric difference of 4-byte pairs, their values)
 * brought into shared memory by bulk copy, splits it per thread with a
 * second Balanced Path search there, walks VT key-rank slots per thread, and
 * compacts what it keeps.  Tiles learn where their output goes by a
 * decoupled look-back over the tiles before them, run by a warp of its own
 * from the tile's start, so the inputs are read once and the output
 * written once.  The partition and tile launches may start before the
 * launch ahead of them ends (programmatic dependent launch).  The last
 * tile writes the total into the context's pinned host words with the
 * call's ticket; the host waits for that, not for the stream, so the call
 * returns while the last stores land (they are in stream order).
 */
#ifndef MGPU_SETOP_CUH
#define MGPU_SETOP_CUH

#include <climits>
#include <cub/block/block_scan.cuh>

#include "merge.cuh"
#include "device/balanced_path.cuh"
#include "device/bulk_copy.cuh"
#include "device/grid_dependency.cuh"
#include "device/named_barrier.cuh"
#include "device/serial_set_op.cuh"
#include "device/tile_prefix.cuh"
#include "device/warp_merge_path.cuh"

namespace mgpu {

/* Every S-th key of each input is gathered for the partition's coarse
 * search.  The gather is random access to DRAM (10 us at S = 256 for
 * 2^26 keys on the H200); at 512 it halves, the fine search takes one step
 * more, and the calls were 0-1% faster (merge keeps 256). */
constexpr int kSetopSampleStride = 512;

/* A partition point as the tile kernel reads it: A's count in the low 31
 * bits, the star in bit 31 and kPointReady above; 0 until published, so
 * that a tile can wait for a point another tile computes. */
constexpr unsigned long long kPointReady = 1ull << 32;

__device__ __forceinline__ unsigned long long point_word(path_point bp) {
  return kPointReady | (unsigned long long)(unsigned)bp.a |
         ((unsigned long long)bp.star << 31);
}

/* The Balanced Path point at diagonal d (clamped to the inputs), by all 32
 * lanes of a warp; lane 0 gets the word.  Samples (sa, sb) are optional. */
template <int S, typename K, typename Comp>
__device__ __forceinline__ unsigned long long
warp_setop_point(const K *a, const K *sa, int na, const K *b, const K *sb,
                 int nb, long long d, bool duplicates, Comp comp) {
  const int lane = threadIdx.x & 31;
  const long long total = (long long)na + nb;
  d = d < total ? d : total;
  path_point bp;
  if (total <= INT_MAX) {
    const int diag = (int)d;
    const int p = warp_merge_path<S>(a, sa, na, b, sb, nb, diag, comp);
    if (lane != 0) return 0;
    bp = balanced_path<int>(a, na, b, nb, diag, p, duplicates, comp);
  } else {
    if (lane != 0) return 0;
    const long long p = merge_path(a, (long long)na, b, (long long)nb, d, comp);
    bp = balanced_path<long long>(a, (long long)na, b, (long long)nb, d, p,
                                  duplicates, comp);
  }
  return point_word(bp);
}

/* The first launch of a call: warps [0, first) find points [0, first) on
 * the inputs (no samples yet); the other blocks zero the look-back words
 * and the points that later launches publish, and gather every S-th key
 * of each input (sa, sb) for those launches' searches.  Not launched
 * early: the memory it zeroes may be in use by the last call's tiles. */
template <int S, typename K, typename Comp>
__global__ void __launch_bounds__(128)
    setop_head_kernel(const K *a, int na, const K *b, int nb, K *sa, int ca,
                      K *sb, int cb, int nv, int first, int point_blocks,
                      int points_all, bool duplicates,
                      unsigned long long *points, unsigned long long *status,
                      int status_words, Comp comp) {
  /* the launches after this one may start now; they wait for its end
   * before they read anything it writes */
  allow_dependent_grids();
  if ((int)blockIdx.x < point_blocks) {
    const int i = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (i >= first) return; /* whole warps */
    const unsigned long long w = warp_setop_point<S>(
        a, (const K *)nullptr, na, b, (const K *)nullptr, nb,
        (long long)i * nv, duplicates, comp);
    if ((threadIdx.x & 31) == 0) points[i] = w;
    return;
  }
  const int j = (blockIdx.x - point_blocks) * blockDim.x + threadIdx.x;
  if (j < status_words) status[j] = 0;
  if (j < points_all - first) points[first + j] = 0;
  if (j < ca) sa[j] = a[(long long)j * S];
  if (j < cb) sb[j] = b[(long long)j * S];
}

/* Points [first, count) on the samples, one warp a point, when the tiles
 * do not find them themselves (setop_tiles::ahead == 0). */
template <int S, typename K, typename Comp>
__global__ void __launch_bounds__(128)
    setop_partition_kernel(const K *a, const K *sa, int na, const K *b,
                           const K *sb, int nb, int nv, int first, int count,
                           bool duplicates, unsigned long long *points,
                           Comp comp) {
  allow_dependent_grids();
  wait_for_prior_grid();
  const int i = first + ((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
  if (i >= count) return; /* whole warps */
  const unsigned long long w = warp_setop_point<S>(
      a, sa, na, b, sb, nb, (long long)i * nv, duplicates, comp);
  if ((threadIdx.x & 31) == 0) points[i] = w;
}

/* A tile's share of A and B: a[a0, a0 + na) and b[b0, b0 + nb), from its
 * two Balanced Path points; clamped so that non-monotone points (unsorted
 * input) stay inside both inputs and inside shared memory. */
struct setop_span {
  int a0, na, b0, nb;
};

template <int NV>
__device__ __forceinline__ setop_span span_between(unsigned s0, unsigned s1,
                                                   int tile, int na_all,
                                                   int nb_all) {
  const long long total = (long long)na_all + nb_all;
  const long long d0 = (long long)tile * NV;
  const long long d1 = d0 + NV < total ? d0 + NV : total;
  const int a0 = (int)(s0 & 0x7fffffffu), a1 = (int)(s1 & 0x7fffffffu);
  const int b0 = (int)(d0 - a0 + (s0 >> 31));
  const int b1 = (int)(d1 - a1 + (s1 >> 31));
  const int na = max(0, min(a1 - a0, NV + 1));
  const int nb = max(0, min(b1 - b0, NV + 1 - na));
  return {a0, na, b0, nb};
}

/* A point another tile may still be computing: waits until published. */
__device__ __forceinline__ unsigned wait_for_point(unsigned long long *p) {
  unsigned long long w = tile_status_load(p);
  while (!(w & kPointReady)) {
    __nanosleep(64);
    w = tile_status_load(p);
  }
  return (unsigned)w;
}

template <int NV>
__device__ __forceinline__ setop_span span_of_tile(unsigned long long *points,
                                                   int tile, int na_all,
                                                   int nb_all) {
  return span_between<NV>(wait_for_point(points + tile),
                          wait_for_point(points + tile + 1), tile, na_all,
                          nb_all);
}

template <typename K, typename V> struct setop_tiles {
  const K *a, *b;
  const V *av, *bv;
  int na, nb;
  unsigned long long *points; /* tiles + 1 partition points (kPointReady) */
  const K *sa, *sb;            /* every S-th key, for the searches ahead */
  unsigned long long *status;  /* one word per tile, zeroed */
  unsigned long long *gstatus; /* one word per 32 tiles, zeroed */
  unsigned long long *total;   /* pinned host words: the total, then the
                                  ticket, written by the last tile */
  unsigned long long ticket;   /* this call's, to tell its total from older */
  K *out;
  V *outv;
  long long capacity;
  unsigned keeps;
  bool duplicates;
  int prefetch; /* tiles ahead whose inputs a tile asks L2 for; 0: none */
  int ahead;    /* > 0: the look-back warp of tile i finds point i+ahead+1
                   (points up to `ahead` come from the first launch) */
};

/* Run by the look-back warp of `tile` before it looks back: finds the
 * partition point `t.ahead` + 1 tiles on (on the samples, a wave or so
 * before the tile that needs it starts), publishes it, and, when the point
 * before it is there too, asks L2 for that tile's inputs.  This takes the
 * partition of all but the first wave off the call's critical path: the
 * partition launch it replaces took ~12 us at 2^26 i32 keys. */
template <int NV, bool STAGE_V, typename K, typename V, typename Comp>
__device__ __forceinline__ void search_ahead(const setop_tiles<K, V> &t,
                                             int tile, Comp comp) {
  const int j = tile + t.ahead + 1;
  if (j > (int)gridDim.x) return;
  const unsigned long long w = warp_setop_point<kSetopSampleStride>(
      t.a, t.sa, t.na, t.b, t.sb, t.nb, (long long)j * NV, t.duplicates, comp);
  if ((threadIdx.x & 31) != 0) return;
  tile_status_store(t.points + j, w);
  if (t.prefetch == 0) return;
  const unsigned long long w0 = tile_status_load(t.points + j - 1);
  if (!(w0 & kPointReady)) return;
  const setop_span next =
      span_between<NV>((unsigned)w0, (unsigned)w, j - 1, t.na, t.nb);
  bulk_prefetch_l2(t.a + next.a0, next.na);
  bulk_prefetch_l2(t.b + next.b0, next.nb);
  if (STAGE_V) {
    bulk_prefetch_l2(t.av + next.a0, next.na);
    bulk_prefetch_l2(t.bv + next.b0, next.nb);
  }
}

template <int NT, int VT, bool STAGE_V, typename K, typename V>
struct setop_smem {
  static constexpr int NV = NT * VT;
  static constexpr int E = 16 / sizeof(K); /* keys per 16 bytes */
  static constexpr int EV = 16 / sizeof(V); /* values per 16 bytes */
  /* The tile's A at keys[sa, sa + na) and B at keys[sb, sb + nb), each at
   * its global address's alignment so that bulk copies can fill them: NV
   * keys, one more for a starred end, the two alignment offsets, and a
   * spare slot (serial_set_op reads the key at the end of a range). */
  static constexpr int BUF = NV + 2 + 2 * (E - 1);
  alignas(16) K keys[BUF];
  /* With STAGE_V, the tile's values, laid out like its keys (A's at
   * vals[va], B's at vals[vb]) but at their own alignment; no spare slot. */
  alignas(16) V vals[STAGE_V ? NV + 1 + 2 * (EV - 1) : 1];
  /* where the kept keys sit in keys[], in output order */
  unsigned short kept[NV];
  int start_a[NT + 1], start_b[NT + 1];
  typename cub::BlockScan<int, NT>::TempStorage scan;
  int warp_totals[NT / 32]; /* the scan with a look-back warp */
  int count_slot; /* the tile's count for the look-back warp; -1: not yet */
  long long base;
  unsigned long long loaded; /* mbarrier: the bulk copies have landed */
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

/* The last tile's total for the host: the count, then (after a system
 * fence) this call's ticket, which the host waits for before reading it. */
__device__ __forceinline__ void publish_total(unsigned long long *words,
                                              unsigned long long total,
                                              unsigned long long ticket) {
  words[0] = total;
  __threadfence_system();
  *(volatile unsigned long long *)(words + 1) = ticket;
}

/* STAGE_V: the values come into shared memory by bulk copy with the keys
 * (set_union and set_symmetric_difference, which emit most of the tile:
 * i32 pairs union 0.49 -> 0.43 ms); otherwise the stores gather the kept
 * ones from the inputs (intersection and difference emit ~20%, and
 * staging all values made them 6-10% slower; docs/TUNING.md).
 *
 * LOOKBACK_WARP: the block has a warp more than NT, which looks back for
 * the tile's place from the start (tile_exclusive_prefix_ahead) while the
 * NT threads load, walk and compact; otherwise warp 0 looks back after the
 * scan while the other warps compact. */
template <typename P, bool HAS_V, bool STAGE_V, int EXTRA_WARPS, typename K,
          typename V, typename Comp>
__global__ void __launch_bounds__(P::NT + 32 * EXTRA_WARPS, P::MIN_BLOCKS)
    setop_kernel(setop_tiles<K, V> t, Comp comp) {
  constexpr int NT = P::NT, VT = P::VT, NV = P::NV;
  constexpr bool LOOKBACK_WARP = EXTRA_WARPS >= 1;
  constexpr bool SEARCH_WARP = EXTRA_WARPS >= 2;
  /* the threads at barrier 2: the compute threads and the look-back warp */
  constexpr int THREADS = NT + (LOOKBACK_WARP ? 32 : 0);
  /* the look-back warp searches ahead when no warp of its own does */
  const bool lookback_searches = !SEARCH_WARP && t.ahead > 0;
  static_assert(VT <= 32, "a thread's slots are bits of one word");
  static_assert(HAS_V || !STAGE_V, "only values can be staged");
  static_assert(NT >= (STAGE_V ? 128 : 64),
                "a warp copies the ends of each bulk copy");
  typedef setop_smem<NT, VT, STAGE_V, K, V> smem_t;
  static_assert(smem_t::BUF < 65535, "kept[] holds tile positions in 16 bits");
  auto &sm = *shared_as<smem_t>();
  const int tid = threadIdx.x, tile = blockIdx.x;
  /* launched early (grid_dependency.cuh): the points and the zeroed
   * look-back words come from the partition launch */
  wait_for_prior_grid();

  const setop_span span = span_of_tile<NV>(t.points, tile, t.na, t.nb);
  const int a0 = span.a0, na = span.na, b0 = span.b0, nb = span.nb;
  /* The last thread asks L2 for the inputs of the tile `prefetch` ahead,
   * which starts about when this one ends, so that its bulk copies find
   * them there instead of in DRAM (clock64 reads per tile: the load was
   * ~25% of a tile's time, the wait for its predecessors' counts ~30%). */
  const int ahead = tile + t.prefetch;
  bool prefetcher = t.prefetch > 0 && tid == NT - 1 && ahead < (int)gridDim.x;
  setop_span next = {0, 0, 0, 0};
  if (prefetcher) {
    /* when tiles find the points, those of a tile not far ahead may not
     * be there yet: then no prefetch (search_ahead makes its own) */
    const unsigned long long w0 = tile_status_load(t.points + ahead);
    const unsigned long long w1 = tile_status_load(t.points + ahead + 1);
    prefetcher = (w0 & w1 & kPointReady) != 0;
    if (prefetcher)
      next = span_between<NV>((unsigned)w0, (unsigned)w1, ahead, t.na, t.nb);
  }
  constexpr int E = smem_t::E, EV = smem_t::EV;
  const int sa = stage_offset(t.a + a0);
  const int sb = sa + na + ((stage_offset(t.b + b0) - (sa + na)) & (E - 1));
  const bulk_split<K> ca = split_for_bulk(t.a + a0, na);
  const bulk_split<K> cb = split_for_bulk(t.b + b0, nb);
  const int va = STAGE_V ? stage_offset(t.av + a0) : 0;
  const int vb = STAGE_V ? va + na +
                               ((stage_offset(t.bv + b0) - (va + na)) & (EV - 1))
                         : 0;
  const bulk_split<V> cva =
      split_for_bulk(STAGE_V ? t.av + a0 : t.av, STAGE_V ? na : 0);
  const bulk_split<V> cvb =
      split_for_bulk(STAGE_V ? t.bv + b0 : t.bv, STAGE_V ? nb : 0);
  if (tid == 0) {
    if (LOOKBACK_WARP) sm.count_slot = -1;
    mbarrier_init(&sm.loaded, 1);
    mbarrier_init_fence();
    mbarrier_arrive_expect_tx(&sm.loaded,
                              ca.bytes + cb.bytes + cva.bytes + cvb.bytes);
    bulk_copy_middle(sm.keys + sa, t.a + a0, ca, &sm.loaded);
    bulk_copy_middle(sm.keys + sb, t.b + b0, cb, &sm.loaded);
    if (STAGE_V) {
      bulk_copy_middle(sm.vals + va, t.av + a0, cva, &sm.loaded);
      bulk_copy_middle(sm.vals + vb, t.bv + b0, cvb, &sm.loaded);
    }
  }
  /* the few keys (and values) outside the bulk copies' 16-byte units */
  if (tid < 32) copy_ragged_ends(sm.keys + sa, t.a + a0, na, ca, tid);
  else if (tid < 64) copy_ragged_ends(sm.keys + sb, t.b + b0, nb, cb, tid - 32);
  else if (STAGE_V && tid < 96)
    copy_ragged_ends(sm.vals + va, t.av + a0, na, cva, tid - 64);
  else if (STAGE_V && tid < 128)
    copy_ragged_ends(sm.vals + vb, t.bv + b0, nb, cvb, tid - 96);
  if (prefetcher) {
    bulk_prefetch_l2(t.a + next.a0, next.na);
    bulk_prefetch_l2(t.b + next.b0, next.nb);
    if (STAGE_V) {
      bulk_prefetch_l2(t.av + next.a0, next.na);
      bulk_prefetch_l2(t.bv + next.b0, next.nb);
    }
  }
  __syncthreads();

  if (SEARCH_WARP && tid >= THREADS) {
    if (t.ahead > 0) search_ahead<NV, STAGE_V>(t, tile, comp);
    return;
  }
  if (LOOKBACK_WARP && tid >= NT) {
    if (lookback_searches) search_ahead<NV, STAGE_V>(t, tile, comp);
    long long count;
    const long long base = tile_exclusive_prefix_ahead(
        t.status, t.gstatus, tile, &sm.count_slot, &count, lookback_searches);
    if (tid == NT) {
      sm.base = base;
      if (tile == (int)gridDim.x - 1)
        publish_total(t.total, base + count, t.ticket);
    }
    __threadfence_block();
    named_arrive(2, THREADS);
    return;
  }

  mbarrier_wait(&sm.loaded, 0);

  /* Each thread's start: the Balanced Path point on its diagonal of the
   * tile; its end is the next thread's start. */
  const int count = na + nb;
  const int diag = min(VT * tid, count);
  const int p = merge_path(sm.keys + sa, na, sm.keys + sb, nb, diag, comp);
  const path_point bp = balanced_path<int>(sm.keys + sa, na, sm.keys + sb, nb,
                                           diag, p, t.duplicates, comp);
  const int ta = sa + (int)bp.a, tb = sb + diag - (int)bp.a + bp.star;
  sm.start_a[tid] = ta;
  sm.start_b[tid] = tb;
  if (tid == NT - 1) {
    sm.start_a[NT] = sa + na;
    sm.start_b[NT] = sb + nb;
  }
  if (LOOKBACK_WARP) named_sync(1, NT);
  else __syncthreads();
  const int ea = max(ta, sm.start_a[tid + 1]);
  const int eb = max(tb, sm.start_b[tid + 1]);
  unsigned took_a, took_b;
  serial_set_op<VT>(sm.keys, ta, ea, tb, eb, &took_a, &took_b, comp);
  const unsigned commit = set_op_commit(t.keeps, took_a, took_b);

  /* Compact: thread offsets by a block scan, the tile's by look-back.  The
   * keys stay where they are; kept[] lists their places, found again by
   * replaying the walk's bits.  kept[] is not keys[], so the other warps
   * compact while warp 0 (or the look-back warp) looks back (ncu: 36% of
   * the stalls were at the barrier that used to follow the look-back). */
  int offset, tile_count;
  if (LOOKBACK_WARP) {
    offset = compute_exclusive_sum<NT>(__popc(commit), sm.warp_totals,
                                       &tile_count);
    if (tid == 0) {
      /* Searching ahead, the look-back warp may be busy when the count is
       * known: publish it here, ordered before the look-back warp's
       * prefix (the fence), so that successors never wait for the search. */
      if (lookback_searches) {
        tile_status_store(t.status + tile,
                          kTileCount | (unsigned long long)tile_count);
        __threadfence();
      }
      write_count_slot(&sm.count_slot, tile_count);
    }
  } else {
    cub::BlockScan<int, NT>(sm.scan).ExclusiveSum(__popc(commit), offset,
                                                  tile_count);
    if (tid < 32) {
      const long long base =
          tile_exclusive_prefix(t.status, t.gstatus, tile, tile_count);
      if (tid == 0) {
        sm.base = base;
        if (tile == (int)gridDim.x - 1)
          publish_total(t.total, base + tile_count, t.ticket);
      }
    }
  }
  if (__any_sync(0xffffffffu, __popc(commit) > VT / 2)) {
    int a = ta, b = tb;
#pragma unroll
    for (int i = 0; i < VT; ++i) {
      const unsigned from_a = (took_a >> i) & 1, from_b = (took_b >> i) & 1;
      if ((commit >> i) & 1) sm.kept[offset++] = (unsigned short)(from_a ? a : b);
      a += from_a;
      b += from_b;
    }
  } else {
    /* Few slots emit (intersection, difference): visit only those, each
     * slot's place counted from the bits below it.  About half the
     * instructions of the replay above at intersection's ~5 of 23. */
    for (unsigned c = commit; c; c &= c - 1) {
      const int i = __ffs(c) - 1;
      const unsigned below = (1u << i) - 1;
      sm.kept[offset++] = (unsigned short)(
          (took_a >> i) & 1 ? ta + __popc(took_a & below)
                            : tb + __popc(took_b & below));
    }
  }
  if (LOOKBACK_WARP) named_sync(2, THREADS);
  else __syncthreads();
  const long long base = sm.base;
  /* capacity bounds the writes even if unsorted input over-counts */
  const int room = (int)min((long long)tile_count, t.capacity - base);
  K *out = t.out + base;
  V *outv = HAS_V ? t.outv + base : nullptr;
  for (int i = tid; i < room; i += NT) {
    const int s = sm.kept[i];
    out[i] = sm.keys[s];
    if (STAGE_V) outv[i] = sm.vals[s < sb ? va + (s - sa) : vb + (s - sb)];
    else if (HAS_V)
      outv[i] = s < sb ? t.av[a0 + (s - sa)] : t.bv[b0 + (s - sb)];
  }
}

/* How a set operation is launched, beyond its tile shape: the policy's
 * choices, which mgpu_tune varies. */
struct setop_options {
  int prefetch_percent; /* how far ahead tiles prefetch, % of a wave */
  bool early_launch;    /* partition and tiles launched early (PDL) */
  bool early_count;     /* return once the total is known (see below) */
  int ahead_percent;    /* > 0: tiles find the points this far (% of a
                           wave) ahead of them (search_ahead), with the
                           look-back warp only; 0: a partition launch */
};

/* Waits for the total the last tile publishes with this call's ticket.
 * The last tile knows it once every tile has counted, before the last
 * tiles' stores land, so the call returns while they finish; the outputs
 * are complete in stream order, which is all any later use of them sees
 * (the context's stream, or a read that synchronises with it).  If the
 * stream ends or fails without the ticket, that is reported instead. */
inline mgpu_status wait_for_total(mgpu_context *ctx, unsigned long long ticket,
                                  unsigned long long *total) {
  cuda_state *st = cuda_of(ctx);
  for (;;) {
    if (__atomic_load_n(st->word + 1, __ATOMIC_ACQUIRE) == ticket) break;
    const cudaError_t e = cudaStreamQuery(st->stream);
    if (e == cudaErrorNotReady) continue;
    CUDA_TRY(ctx, e);
    if (__atomic_load_n(st->word + 1, __ATOMIC_ACQUIRE) == ticket) break;
    return mgpu_set_error(ctx, MGPU_EDEVICE,
                          "setop kernel ended without publishing its count");
  }
  *total = __atomic_load_n(st->word, __ATOMIC_ACQUIRE);
  return MGPU_OK;
}

template <typename P, bool HAS_V, bool STAGE_V, int EXTRA_WARPS, typename K,
          typename V, typename Comp>
mgpu_status setop_run(mgpu_context *ctx, const mgpu_setop_args *m,
                      size_t *count, Comp comp, setop_options opt) {
  constexpr int S = kSetopSampleStride;
  cuda_state *st = cuda_of(ctx);
  cudaStream_t s = st->stream;
  const K *a = (const K *)m->a_keys, *b = (const K *)m->b_keys;
  const int na = (int)m->na, nb = (int)m->nb;
  const long long total = (long long)na + nb;
  const int tiles = tiles_of(total, P::NV);
  const int points_all = tiles + 1;
  /* Which points the first launch finds (on the inputs): all of them for
   * few tiles or inputs past INT_MAX; the first wave's when the tiles find
   * the rest ahead of themselves; none when a partition launch finds them
   * on the samples. */
  const bool sampled = total >= kMergeSampleFrom && total <= INT_MAX;
  const int wave = st->sm_count * P::MIN_BLOCKS;
  const int ahead =
      EXTRA_WARPS >= 1 && sampled && opt.ahead_percent > 0
          ? max(1, wave * opt.ahead_percent / 100) : 0;
  const int first = !sampled ? points_all
                    : ahead > 0 ? min(points_all, ahead + 1) : 0;
  const bool need_samples = first < points_all;
  /* One scratch block: the tiles' look-back words (one a tile and one a
   * group of 32), their partition points, and the samples. */
  const int groups = (tiles + 31) / 32;
  const int status_words = tiles + groups;
  const int ca = need_samples ? samples_of(na, S) : 0;
  const int cb = need_samples ? samples_of(nb, S) : 0;
  const size_t status_bytes = sizeof(unsigned long long) * (size_t)status_words;
  const size_t points_at = status_bytes;
  const size_t samples_at =
      points_at + sizeof(unsigned long long) * (size_t)points_all;
  cuda_scratch scratch;
  MGPU_TRY(scratch.take(ctx, samples_at + sizeof(K) * ((size_t)ca + cb)));
  char *base = scratch.as<char>();
  unsigned long long *status = (unsigned long long *)base;
  unsigned long long *points = (unsigned long long *)(base + points_at);
  K *sa = need_samples ? (K *)(base + samples_at) : nullptr;
  K *sb = need_samples ? sa + ca : nullptr;
  const int point_blocks = (int)grid_for(32 * (size_t)first, 128);
  const int rest = max(max(status_words, points_all - first), max(ca, cb));
  setop_head_kernel<S, K, Comp><<<point_blocks + (int)grid_for(rest, 128), 128,
                                  0, s>>>(a, na, b, nb, sa, ca, sb, cb,
                                          (int)P::NV, first, point_blocks,
                                          points_all, m->duplicates != 0,
                                          points, status, status_words, comp);
  CUDA_LAUNCHED(ctx, "setop head kernel");
  const bool early = opt.early_launch;
  if (need_samples && ahead == 0) {
    CUDA_TRY(ctx, launch_early(early, setop_partition_kernel<S, K, Comp>,
                               grid_for(32 * (size_t)(points_all - first), 128),
                               128, 0, s, a, (const K *)sa, na, b,
                               (const K *)sb, nb, (int)P::NV, first,
                               points_all, m->duplicates != 0, points, comp));
    CUDA_LAUNCHED(ctx, "setop partition kernel");
  }
  const unsigned long long ticket = ++st->tickets;
  setop_tiles<K, V> t = {a, b, (const V *)m->a_vals, (const V *)m->b_vals,
                         na, nb, points, sa, sb, status, status + tiles,
                         st->word, ticket, (K *)m->keys, (V *)m->vals,
                         (long long)m->capacity, set_op_keeps(m->op),
                         m->duplicates != 0,
                         wave * opt.prefetch_percent / 100, ahead};
  auto kernel = setop_kernel<P, HAS_V, STAGE_V, EXTRA_WARPS, K, V, Comp>;
  const size_t smem = sizeof(setop_smem<P::NT, P::VT, STAGE_V, K, V>);
  MGPU_TRY(allow_shared_memory(ctx, kernel, smem));
  CUDA_TRY(ctx, launch_early(early, kernel, tiles,
                             P::NT + 32 * EXTRA_WARPS, smem, s, t,
                             comp));
  CUDA_LAUNCHED(ctx, "setop kernel");
  unsigned long long n = 0;
  if (opt.early_count) {
    MGPU_TRY(wait_for_total(ctx, ticket, &n));
  } else {
    CUDA_TRY(ctx, cudaStreamSynchronize(s));
    n = __atomic_load_n(st->word, __ATOMIC_ACQUIRE);
  }
  *count = n < m->capacity ? (size_t)n : m->capacity;
  return MGPU_OK;
}

template <typename K, int VB> struct setop_launch {
  template <typename Comp>
  static mgpu_status run(mgpu_context *ctx, const cuda_setop_call *c, Comp comp) {
    typedef setop_policy<sizeof(K), VB> SP;
    typedef value_t<VB> V;
    if constexpr (SP::stage_values) {
      if (set_op_keeps(c->args->op) & kKeepB)
        return setop_run<typename SP::staged, true, true, SP::extra_warps,
                         K, V>(ctx, c->args, c->count, comp,
                               {SP::staged_prefetch, SP::early_launch,
                                SP::early_count, SP::ahead});
    }
    return setop_run<typename SP::type, VB != 0, false, SP::extra_warps, K,
                     V>(ctx, c->args, c->count, comp,
                        {SP::prefetch, SP::early_launch, SP::early_count,
                         SP::ahead});
  }
};

template <typename K>
mgpu_status setop_entry(mgpu_context *ctx, const cuda_setop_call *c) {
  return dispatch_keyed<K, setop_launch>(ctx, c->args->value_size,
                                         c->args->order, c);
}

} // namespace mgpu

#endif
