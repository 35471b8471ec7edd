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

/* splits[i] = the Balanced Path point at diagonal i * nv: A's count in the
 * low 31 bits, the star in bit 31.  LANES lanes a point (warp_merge_path:
 * one, two or four points a warp); the launch also zeroes the words of the
 * tile kernel's look-back, which saves that kernel a memset launch. */
template <int S, int LANES, typename K, typename Comp>
__global__ void __launch_bounds__(128)
    setop_partition_kernel(const K *a, const K *sa, int na, const K *b,
                           const K *sb, int nb, int nv, int count,
                           bool duplicates, unsigned *splits,
                           unsigned long long *status, int status_words,
                           Comp comp) {
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  /* the look-back words are this call's own scratch: zeroed before the
   * wait for the sample launch, which does not touch them */
  for (int w = gid; w < status_words; w += gridDim.x * blockDim.x) status[w] = 0;
  allow_dependent_grids();
  wait_for_prior_grid();
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
  path_point bp;
  if (total <= INT_MAX) {
    const int diag = (int)d;
    const int p = warp_merge_path<S, LANES>(a, sa, na, b, sb, nb, diag, comp);
    if (l != 0 || !live) return;
    bp = balanced_path<int>(a, na, b, nb, diag, p, duplicates, comp);
  } else {
    if (l != 0 || !live) return;
    const long long p = merge_path(a, (long long)na, b, (long long)nb, d, comp);
    bp = balanced_path<long long>(a, (long long)na, b, (long long)nb, d, p,
                                  duplicates, comp);
  }
  splits[i] = (unsigned)bp.a | ((unsigned)bp.star << 31);
}

/* A test build (CMake MGPU_SETOP_PARTITION_LANES) may fix the lanes a
 * point at any size, so that the specs and compute-sanitizer cover the
 * groups that only large calls use otherwise. */
#ifndef MGPU_SETOP_PARTITION_LANES
#define MGPU_SETOP_PARTITION_LANES 0
#endif

/* Lanes a partition point: the most that let every point's warp be
 * resident at once (the launch takes a chain of reads a wave; 64 warps an
 * SM at 30 registers), at least 8. */
inline int setop_partition_lanes(int points, int sm_count) {
  if (MGPU_SETOP_PARTITION_LANES) return MGPU_SETOP_PARTITION_LANES;
  const long long warps = 64LL * sm_count;
  if (points <= warps) return 32;
  if (points <= 2 * warps) return 16;
  return 8;
}

/* A tile's share of A and B: a[a0, a0 + na) and b[b0, b0 + nb), from its
 * two Balanced Path points; clamped so that non-monotone points (unsorted
 * input) stay inside both inputs and inside shared memory. */
struct setop_span {
  int a0, na, b0, nb;
};

template <int NV>
__device__ __forceinline__ setop_span span_of_tile(const unsigned *splits,
                                                   int tile, int na_all,
                                                   int nb_all) {
  const unsigned s0 = splits[tile], s1 = splits[tile + 1];
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

template <typename K, typename V> struct setop_tiles {
  const K *a, *b;
  const V *av, *bv;
  int na, nb;
  const unsigned *splits;
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
};

/* kept[]'s entries: P::KEPT where the policy bounds the output
 * (intersection_policy), else NV */
template <typename P, typename = void> struct kept_room {
  static constexpr int value = P::NV;
};
template <typename P> struct kept_room<P, decltype((void)P::KEPT)> {
  static constexpr int value = P::KEPT;
};

template <int NT, int VT, bool STAGE_V, typename K, typename V,
          int KEPT = NT * VT>
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
  /* where the kept keys sit in keys[], in output order (KEPT: at most
   * NV, half for an intersection_policy tile) */
  unsigned short kept[KEPT];
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
template <typename P, bool HAS_V, bool STAGE_V, bool LOOKBACK_WARP, typename K,
          typename V, typename Comp>
__global__ void __launch_bounds__(P::NT + (LOOKBACK_WARP ? 32 : 0),
                                  P::MIN_BLOCKS)
    setop_kernel(setop_tiles<K, V> t, Comp comp) {
  constexpr int NT = P::NT, VT = P::VT, NV = P::NV;
  constexpr int THREADS = NT + (LOOKBACK_WARP ? 32 : 0);
  static_assert(VT <= 32, "a thread's slots are bits of one word");
  static_assert(HAS_V || !STAGE_V, "only values can be staged");
  static_assert(NT >= (STAGE_V ? 128 : 64),
                "a warp copies the ends of each bulk copy");
  constexpr int KEPT = kept_room<P>::value;
  typedef setop_smem<NT, VT, STAGE_V, K, V, KEPT> smem_t;
  static_assert(smem_t::BUF < 65535, "kept[] holds tile positions in 16 bits");
  auto &sm = *shared_as<smem_t>();
  const int tid = threadIdx.x, tile = blockIdx.x;
  /* launched early (grid_dependency.cuh): the splits and the zeroed
   * look-back words come from the partition launch */
  wait_for_prior_grid();

  const setop_span span = span_of_tile<NV>(t.splits, tile, t.na, t.nb);
  const int a0 = span.a0, na = span.na, b0 = span.b0, nb = span.nb;
  /* The last thread asks L2 for the inputs of the tile `prefetch` ahead,
   * which starts about when this one ends, so that its bulk copies find
   * them there instead of in DRAM (clock64 reads per tile: the load was
   * ~25% of a tile's time, the wait for its predecessors' counts ~30%). */
  const int ahead = tile + t.prefetch;
  const bool prefetcher =
      t.prefetch > 0 && tid == NT - 1 && ahead < (int)gridDim.x;
  setop_span next = {0, 0, 0, 0};
  if (prefetcher) next = span_of_tile<NV>(t.splits, ahead, t.na, t.nb);
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

  if (LOOKBACK_WARP && tid >= NT) {
    long long count;
    const long long base = tile_exclusive_prefix_ahead(
        t.status, t.gstatus, tile, &sm.count_slot, &count);
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
    if (KEPT < NV) tile_count = min(tile_count, KEPT);
    if (tid == 0) write_count_slot(&sm.count_slot, tile_count);
  } else {
    cub::BlockScan<int, NT>(sm.scan).ExclusiveSum(__popc(commit), offset,
                                                  tile_count);
    if (KEPT < NV) tile_count = min(tile_count, KEPT);
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
      /* KEPT < NV: unsorted input can make more; they are dropped */
      if ((commit >> i) & 1 && (KEPT == NV || offset < KEPT))
        sm.kept[offset++] = (unsigned short)(from_a ? a : b);
      a += from_a;
      b += from_b;
    }
  } else {
    /* Few slots emit (intersection, difference): visit only those, each
     * slot's place counted from the bits below it.  About half the
     * instructions of the replay above at intersection's ~5 of 23. */
    for (unsigned c = commit; c; c &= c - 1) {
      if (KEPT < NV && offset >= KEPT) break;
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

/* Every S-th key of each input is gathered for the partition's coarse
 * search.  The gather is random access to DRAM (10 us at S = 256 for
 * 2^26 keys on the H200); at 512 it halves, the fine search takes one step
 * more, and the calls were 0-1% faster (merge keeps 256). */
constexpr int kSetopSampleStride = 512;

/* Fewer points than this are found on the inputs, in one launch: each
 * costs a few scattered DRAM reads, which for so few is less than the
 * sample launch and its wait (mgpu_tune's phase timings, H200: i32 keys at
 * 2^22, 530 points, 9.0 us against 11.0 with samples, at 2^23, 1059
 * points, 10.8 against 11.6; i32 pairs at 2^22, 1426 points, 10.6 against
 * 11.5, but at 2^23, 2851 points, 16.1 against 12.7). */
constexpr int kSetopSampleFromPoints = 1536;

/* How a set operation is launched, beyond its tile shape: the policy's
 * choices, which mgpu_tune varies. */
struct setop_options {
  int prefetch_percent; /* how far ahead tiles prefetch, % of a wave */
  bool early_launch;    /* partition and tiles launched early (PDL) */
  bool early_count;     /* return once the total is known (see below) */
  int partition_lanes;  /* lanes a partition point; 0: setop_partition_lanes */
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

template <typename P, bool HAS_V, bool STAGE_V, bool LOOKBACK_WARP, typename K,
          typename V, typename Comp>
mgpu_status setop_run(mgpu_context *ctx, const mgpu_setop_args *m,
                      size_t *count, Comp comp, setop_options opt) {
  constexpr int S = kSetopSampleStride;
  /* a tile with half the kept list would drop outputs of other operations */
  if (kept_room<P>::value < P::NV && m->op != MGPU_SET_INTERSECTION)
    return mgpu_set_error(ctx, MGPU_EINVAL,
                          "setop: intersection tile used for another operation");
  cuda_state *st = cuda_of(ctx);
  cudaStream_t s = st->stream;
  const K *a = (const K *)m->a_keys, *b = (const K *)m->b_keys;
  const int na = (int)m->na, nb = (int)m->nb;
  const long long total = (long long)na + nb;
  const int tiles = tiles_of(total, P::NV);
  /* One scratch block: the tiles' look-back words (one a tile and one a
   * group of 32), their partition points, and the samples. */
  const int groups = (tiles + 31) / 32;
  const int status_words = tiles + groups;
  /* the number of points decides (below kSetopSampleFromPoints the
   * inputs are searched directly); past INT_MAX no samples either */
  const bool sampled =
      tiles + 1 > kSetopSampleFromPoints && total <= INT_MAX;
  const int ca = sampled ? samples_of(na, S) : 0;
  const int cb = sampled ? samples_of(nb, S) : 0;
  const size_t status_bytes = sizeof(unsigned long long) * (size_t)status_words;
  const size_t splits_at = status_bytes;
  const size_t samples_at =
      (splits_at + sizeof(unsigned) * ((size_t)tiles + 1) + 15) & ~(size_t)15;
  cuda_scratch scratch;
  MGPU_TRY(scratch.take(ctx, samples_at + sizeof(K) * ((size_t)ca + cb)));
  char *base = scratch.as<char>();
  unsigned long long *status = (unsigned long long *)base;
  unsigned *splits = (unsigned *)(base + splits_at);
  const K *sa = nullptr, *sb = nullptr;
  if (sampled) {
    K *pa = (K *)(base + samples_at);
    gather_samples_kernel<S><<<grid_for((size_t)max(ca, cb), 256), 256, 0, s>>>(
        a, na, pa, b, nb, pa + ca);
    CUDA_LAUNCHED(ctx, "setop sample kernel");
    sa = pa;
    sb = pa + ca;
  }
  /* Only after the sample launch may the partition start early: it zeroes
   * the look-back words before it waits, and without the samples ahead of
   * it the kernel before could be a tile launch of the last call still
   * using that memory. */
  const bool early = opt.early_launch;
  const int lanes = opt.partition_lanes
                        ? opt.partition_lanes
                        : setop_partition_lanes(tiles + 1, st->sm_count);
  auto partition = lanes == 32   ? setop_partition_kernel<S, 32, K, Comp>
                   : lanes == 16 ? setop_partition_kernel<S, 16, K, Comp>
                                 : setop_partition_kernel<S, 8, K, Comp>;
  CUDA_TRY(ctx, launch_early(early && sampled, partition,
                             grid_for((size_t)lanes * (tiles + 1), 128), 128, 0,
                             s, a, (const K *)sa, na, b, (const K *)sb, nb,
                             (int)P::NV, tiles + 1, m->duplicates != 0, splits,
                             status, status_words, comp));
  CUDA_LAUNCHED(ctx, "setop partition kernel");
  const unsigned long long ticket = ++st->tickets;
  setop_tiles<K, V> t = {a, b, (const V *)m->a_vals, (const V *)m->b_vals,
                         na, nb, splits, status, status + tiles, st->word,
                         ticket, (K *)m->keys, (V *)m->vals,
                         (long long)m->capacity, set_op_keeps(m->op),
                         m->duplicates != 0,
                         st->sm_count * P::MIN_BLOCKS * opt.prefetch_percent /
                             100};
  auto kernel = setop_kernel<P, HAS_V, STAGE_V, LOOKBACK_WARP, K, V, Comp>;
  const size_t smem =
      sizeof(setop_smem<P::NT, P::VT, STAGE_V, K, V, kept_room<P>::value>);
  MGPU_TRY(allow_shared_memory(ctx, kernel, smem));
  CUDA_TRY(ctx, launch_early(early, kernel, tiles,
                             P::NT + (LOOKBACK_WARP ? 32 : 0), smem, s, t,
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
    const setop_options opt = {SP::prefetch, SP::early_launch,
                               SP::early_count, 0};
    if constexpr (!std::is_same<typename SP::intersection,
                                typename SP::type>::value) {
      if (c->args->op == MGPU_SET_INTERSECTION)
        return setop_run<typename SP::intersection, VB != 0, false,
                         SP::lookback_warp, K, V>(ctx, c->args, c->count,
                                                  comp, opt);
    }
    if constexpr (SP::stage_values) {
      if (set_op_keeps(c->args->op) & kKeepB)
        return setop_run<typename SP::staged, true, true, SP::lookback_warp,
                         K, V>(ctx, c->args, c->count, comp,
                               {SP::staged_prefetch, SP::early_launch,
                                SP::early_count, 0});
    }
    return setop_run<typename SP::type, VB != 0, false, SP::lookback_warp, K,
                     V>(ctx, c->args, c->count, comp, opt);
  }
};

template <typename K>
mgpu_status setop_entry(mgpu_context *ctx, const cuda_setop_call *c) {
  return dispatch_keyed<K, setop_launch>(ctx, c->args->value_size,
                                         c->args->order, c);
}

} // namespace mgpu

#endif
