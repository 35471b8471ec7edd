/*
 * setop_piped.cuh - the staged set-operation tile (a union or symmetric
 * difference of pairs) as one persistent block an SM whose warps each do
 * one job, handing tiles on through rings in shared memory:
 *   - a producer warp takes tiles from the counter and brings each into
 *     one of IN input stages by bulk copy, as soon as a stage is free;
 *   - GROUPS groups of NT threads walk the tiles (the block's j-th tile
 *     goes to group j % GROUPS), publish each count, and compact the kept
 *     keys and values into one of OUT output stages, in output order;
 *   - a look-back warp finds each tile's base, in the block's order;
 *   - storer warps write each output stage once its base is known, in
 *     whole 128-byte lines, and free it.
 *
 * Why: setop_kernel's staged tile holds its inputs from its load to its
 * store, ~30% of that waiting for its base (docs/TUNING.md, tenth round),
 * and the persistent kernels that took the wait off the inputs
 * (setop_held_kernel, setop_parked_kernel) walked a block's tiles one
 * after another, each load and store on the walk's path, with fewer tiles
 * an SM; on the H200 they lost from ~16 tiles a resident block on.  Here
 * the walk waits for neither: loads run stages ahead of the groups, and
 * the wait for a base holds only an output stage.
 *
 * Deadlock freedom: tiles are numbered by the counter, a tile's count is
 * published before its group waits for anything but the tile's own load,
 * and every other wait (a free input stage, a free output stage, a base)
 * is for a lower-numbered tile of this block or for the counts of
 * lower-numbered tiles.  The rings indexed by the block's tile number
 * (RING slots) are reused only once the tile RING before is stored: a
 * group compacting its tile j has stored nothing before the storers freed
 * the output stage of tile j - GROUPS - OUT, and the producer takes its
 * j-th ticket only after the group of tile j - IN compacted.
 */
#ifndef MGPU_SETOP_PIPED_CUH
#define MGPU_SETOP_PIPED_CUH

#include "setop_held.cuh"
#include "setop_parked.cuh"

namespace mgpu {

template <typename P, typename K, typename V> struct setop_piped_smem {
  static constexpr int NT = P::NT, NV = P::NV;
  static constexpr int E = 16 / sizeof(K), EV = 16 / sizeof(V);
  /* as setop_tile_smem: NV keys, a starred end, the alignment offsets of A
   * and B, and a spare slot; the values without the spare */
  static constexpr int BUF = NV + 2 + 2 * (E - 1);
  static constexpr int VBUF = NV + 1 + 2 * (EV - 1);
  struct input {
    alignas(16) K keys[BUF];
    alignas(16) V vals[VBUF];
  };
  struct output {
    alignas(16) K keys[NV];
    alignas(16) V vals[NV];
  };
  struct group {
    int start_a[NT + 1], start_b[NT + 1];
    int warp_totals[NT / 32];
  };
  input in[P::IN];
  output out[P::OUT];
  group grp[P::GROUPS];
  setop_place place[P::IN];
  /* the tile in an input stage; -1: the block's tickets ended there (that
   * group tells the storers), -2: ended before */
  int in_tile[P::IN];
  unsigned long long full[P::IN]; /* mbarrier: the producer's copies */
  int in_free[P::IN];   /* times each input stage was compacted from */
  int out_tile[P::OUT]; /* -1: no more tiles */
  int out_count[P::OUT];
  int out_ready[P::OUT]; /* times each output stage was filled */
  int out_free[P::OUT];  /* times it was stored */
  /* by the block's tile number j, at j % RING: */
  int seq[P::RING];                     /* the tile (-1: none) */
  unsigned long long handoff[P::RING];  /* its count (kHandoffEmpty) */
  long long base[P::RING];
  int seq_n;  /* tickets in seq[] */
  int bases;  /* bases in base[] */
};

template <typename P, typename K, typename V> constexpr size_t piped_smem_bytes() {
  return sizeof(setop_piped_smem<P, K, V>);
}

/* Counters in shared memory that one side raises (release) and the other
 * waits on (acquire): each counts uses, so a ring slot's n-th use waits
 * for the count n, and no side can get a lap ahead. */
__device__ __forceinline__ int piped_count(int *w) {
  return cuda::atomic_ref<int, cuda::thread_scope_block>(*w).load(
      cuda::memory_order_acquire);
}
__device__ __forceinline__ void piped_raise(int *w) {
  cuda::atomic_ref<int, cuda::thread_scope_block>(*w).fetch_add(
      1, cuda::memory_order_release);
}
__device__ __forceinline__ void piped_wait(int *w, int n) {
  while (piped_count(w) < n) __nanosleep(20);
}

/* The producer warp: tickets BATCH at a time, each tile's span and bulk
 * copies into input stage j % IN once the tile IN before has been
 * compacted from it; after the last ticket, an end mark for each group.
 * Nothing it does waits on a global read but the next batch's points,
 * requested a tile ahead: the ticket is asked for at the batch's last
 * tile, the batch's points read when it comes, and the ragged ends copied
 * asynchronously onto the stage's barrier (with a read and a ticket a tile
 * in one warp, the first version managed a tile every ~3 us an SM). */
template <typename P, typename K, typename V, typename Smem>
__device__ __forceinline__ void piped_produce(const setop_tiles<K, V> &t,
                                              Smem &sm, int tiles,
                                              int *counter) {
  constexpr int IN = P::IN, G = P::GROUPS, NV = P::NV, B = P::BATCH;
  static_assert(B >= 0 && B <= 15, "a batch's points fit half a warp");
  const int lane = threadIdx.x & 31;
  /* BATCH 0: no tickets, the block takes tiles blockIdx.x + j gridDim.x
   * (every block resident), and the next tile's points are read a tile
   * ahead */
  constexpr int BB = B > 0 ? B : 1;
  /* lanes 0..B: the batch's points; lanes 16..16+B: those `prefetch`
   * tiles ahead, for the L2 prefetch */
  const auto points_of = [&](int first) -> unsigned {
    int i = -1;
    if (lane <= BB) i = first + lane;
    else if (lane >= 16 && lane <= 16 + BB && t.prefetch > 0)
      i = first + t.prefetch + lane - 16;
    return i >= 0 && i <= tiles ? t.splits[i] : 0u;
  };
  int first = 0, next = 0;
  if (B == 0) first = (int)blockIdx.x;
  else if (lane == 0) first = atomicAdd(counter, B);
  first = __shfl_sync(0xffffffffu, first, 0);
  unsigned points = points_of(first);
  int ended = -1; /* the block's tile number of the first ticket past the end */
  for (int j = 0;; ++j) {
    if (ended >= 0 && j - ended >= G) return;
    const int i = j % BB, s = j % IN;
    if (B > 0 && ended < 0 && i == B - 1 && lane == 0)
      next = atomicAdd(counter, B);
    if (j >= IN) piped_wait(&sm.in_free[s], j / IN);
    const int tile = first + i;
    if (ended < 0 && tile >= tiles) ended = j;
    if (ended >= 0) {
      if (lane == 0) {
        sm.in_tile[s] = j == ended ? -1 : -2;
        if (j == ended) {
          sm.seq[j % P::RING] = -1;
          piped_raise(&sm.seq_n);
        }
        mbarrier_arrive(&sm.full[s]);
      }
      cp_async_arrive(&sm.full[s]);
      continue;
    }
    /* the group's reads of this stage (ordered before this warp by
     * in_free) come before the bulk copies' writes: the proxies' order */
    async_proxy_fence();
    const unsigned s0 = __shfl_sync(0xffffffffu, points, i);
    const unsigned s1 = __shfl_sync(0xffffffffu, points, i + 1);
    const setop_place p =
        place_of_span<true>(t, span_of_points<NV>(s0, s1, tile, t.na, t.nb));
    const setop_span &sp = p.span;
    auto &in = sm.in[s];
    const bulk_split<K> ca = split_for_bulk(t.a + sp.a0, sp.na);
    const bulk_split<K> cb = split_for_bulk(t.b + sp.b0, sp.nb);
    const bulk_split<V> cva = split_for_bulk(t.av + sp.a0, sp.na);
    const bulk_split<V> cvb = split_for_bulk(t.bv + sp.b0, sp.nb);
    copy_ragged_ends_async(in.keys + p.sa, t.a + sp.a0, sp.na, ca, lane);
    copy_ragged_ends_async(in.keys + p.sb, t.b + sp.b0, sp.nb, cb, lane);
    copy_ragged_ends_async(in.vals + p.va, t.av + sp.a0, sp.na, cva, lane);
    copy_ragged_ends_async(in.vals + p.vb, t.bv + sp.b0, sp.nb, cvb, lane);
    if (lane == 0) {
      sm.place[s] = p;
      sm.in_tile[s] = tile;
      sm.seq[j % P::RING] = tile;
      piped_raise(&sm.seq_n);
      mbarrier_arrive_expect_tx(&sm.full[s],
                                ca.bytes + cb.bytes + cva.bytes + cvb.bytes);
      bulk_copy_middle(in.keys + p.sa, t.a + sp.a0, ca, &sm.full[s]);
      bulk_copy_middle(in.keys + p.sb, t.b + sp.b0, cb, &sm.full[s]);
      bulk_copy_middle(in.vals + p.va, t.av + sp.a0, cva, &sm.full[s]);
      bulk_copy_middle(in.vals + p.vb, t.bv + sp.b0, cvb, &sm.full[s]);
    }
    cp_async_arrive(&sm.full[s]);
    const unsigned q0 = __shfl_sync(0xffffffffu, points, 16 + i);
    const unsigned q1 = __shfl_sync(0xffffffffu, points, 17 + i);
    const int ahead = tile + t.prefetch;
    if (t.prefetch > 0 && lane == 31 && ahead < tiles) {
      const setop_span n = span_of_points<NV>(q0, q1, ahead, t.na, t.nb);
      bulk_prefetch_l2(t.a + n.a0, n.na);
      bulk_prefetch_l2(t.b + n.b0, n.nb);
      bulk_prefetch_l2(t.av + n.a0, n.na);
      bulk_prefetch_l2(t.bv + n.b0, n.nb);
    }
    if (i == BB - 1) {
      first = B > 0 ? __shfl_sync(0xffffffffu, next, 0)
                    : first + (int)gridDim.x;
      points = points_of(first);
    }
  }
}

/* Group g: the block's tiles g, g + GROUPS, ...: the walk, the count
 * (published, and handed to the look-back warp), then the kept keys and
 * values copied into output stage j % OUT in output order. */
template <typename P, typename K, typename V, typename Smem, typename Comp>
__device__ __forceinline__ void piped_walk(const setop_tiles<K, V> &t, Smem &sm,
                                           int g, Comp comp) {
  constexpr int NT = P::NT, VT = P::VT, IN = P::IN, OUT = P::OUT,
                G = P::GROUPS;
  const int gt = (int)threadIdx.x - g * NT;
  const int bar = 1 + g;
  auto &gs = sm.grp[g];
  for (int j = g;; j += G) {
    const int s = j % IN, o = j % OUT;
    mbarrier_wait(&sm.full[s], (j / IN) & 1);
    const int tile = sm.in_tile[s];
    if (tile < 0) {
      if (tile == -1 && gt == 0) {
        piped_wait(&sm.out_free[o], j / OUT);
        sm.out_tile[o] = -1;
        piped_raise(&sm.out_ready[o]);
      }
      return;
    }
    const setop_place p = sm.place[s];
    const auto &in = sm.in[s];
    const setop_walk w = walk_tile_in<NT, VT>(
        in.keys, gs.start_a, gs.start_b, gt, p, t.duplicates, comp,
        [&] { named_sync(bar, NT); });
    const unsigned commit = set_op_commit(t.keeps, w.took_a, w.took_b);
    int count;
    const int offset = group_exclusive_sum<NT>(__popc(commit), gt, bar,
                                               gs.warp_totals, &count);
    if (gt == 0) {
      if (tile > 0 && !P::UNORDERED)
        tile_status_store(t.status + tile, kTileCount | (unsigned long long)count);
      __threadfence_block();
      atomicExch(&sm.handoff[j % P::RING], (unsigned long long)count);
    }
    piped_wait(&sm.out_free[o], j / OUT);
    auto &out = sm.out[o];
    int a = w.ta, b = w.tb, at = offset;
#pragma unroll
    for (int i = 0; i < VT; ++i) {
      const unsigned from_a = (w.took_a >> i) & 1, from_b = (w.took_b >> i) & 1;
      if ((commit >> i) & 1) {
        out.keys[at] = in.keys[from_a ? a : b];
        out.vals[at] = from_a ? in.vals[p.va + (a - p.sa)]
                              : in.vals[p.vb + (b - p.sb)];
        ++at;
      }
      a += from_a;
      b += from_b;
    }
    named_sync(bar, NT); /* the output stage is written; the input read */
    if (gt == 0) {
      sm.out_count[o] = count;
      sm.out_tile[o] = tile;
      piped_raise(&sm.out_ready[o]);
      piped_raise(&sm.in_free[s]);
    }
  }
}

/* The look-back warp: the base of the block's tiles in order; the last
 * tile's look-back publishes the call's total. */
template <typename P, typename K, typename V, typename Smem>
__device__ __forceinline__ void piped_look_back(const setop_tiles<K, V> &t,
                                                Smem &sm, int tiles) {
  const int lane = threadIdx.x & 31;
  /* the block's last tile and the sum of the counts up to and including
   * it: a tile whose ticket follows it needs no look-back (a batch's) */
  int last = -2;
  long long last_end = 0;
  for (int j = 0;; ++j) {
    int tile = 0;
    if (lane == 0) {
      piped_wait(&sm.seq_n, j + 1);
      tile = sm.seq[j % P::RING];
    }
    tile = __shfl_sync(0xffffffffu, tile, 0);
    if (tile < 0) return;
    unsigned long long *slot = &sm.handoff[j % P::RING];
    const auto poll = [&]() -> long long {
      unsigned long long w = 0;
      if (lane == 0) w = read_shared_word(slot);
      w = __shfl_sync(0xffffffffu, w, 0);
      return w == kHandoffEmpty ? -1 : (long long)w;
    };
    long long count = -1, base;
    if (P::UNORDERED) {
      while ((count = poll()) < 0) __nanosleep(32);
      unsigned long long b = 0;
      if (lane == 0) {
        b = atomicAdd(t.gstatus + (tiles + 31) / 32,
                      (unsigned long long)count);
        __threadfence();
        if (atomicAdd(t.status, 1ull) == (unsigned long long)tiles - 1)
          publish_total(t.total, atomicAdd(t.gstatus + (tiles + 31) / 32, 0ull),
                        t.ticket);
      }
      base = (long long)__shfl_sync(0xffffffffu, b, 0);
      if (lane == 0) {
        atomicExch(slot, kHandoffEmpty);
        sm.base[j % P::RING] = base;
        piped_raise(&sm.bases);
      }
      continue;
    }
    if (tile == last + 1) {
      base = last_end;
      while ((count = poll()) < 0) __nanosleep(32);
      publish_prefix(t.status, t.gstatus, tile, base + count);
    } else {
      base = tile_exclusive_prefix_polled(t.status, t.gstatus, tile, poll,
                                          &count);
    }
    last = tile;
    last_end = base + count;
    if (lane == 0) {
      atomicExch(slot, kHandoffEmpty);
      sm.base[j % P::RING] = base;
      piped_raise(&sm.bases);
      if (tile == tiles - 1) publish_total(t.total, base + count, t.ticket);
    }
  }
}

/* The storer warps: output stages in the block's order, each once its
 * base is known, keys by half the storers and values by the other half;
 * capacity bounds the writes even if unsorted input over-counts. */
template <typename P, typename K, typename V, typename Smem>
__device__ __forceinline__ void piped_store(const setop_tiles<K, V> &t,
                                            Smem &sm, int first) {
  constexpr int OUT = P::OUT, SN = 32 * P::STORERS, HALF = SN / 2;
  const int st = (int)threadIdx.x - first;
  for (int j = 0;; ++j) {
    const int o = j % OUT;
    piped_wait(&sm.out_ready[o], j / OUT + 1);
    const int tile = sm.out_tile[o];
    if (tile < 0) return;
    const int count = sm.out_count[o];
    piped_wait(&sm.bases, j + 1);
    const long long base = sm.base[j % P::RING];
    const int room = (int)min((long long)count, t.capacity - base);
    if (st < HALF) store_run<HALF, 2>(t.out + base, sm.out[o].keys, room, st);
    else store_run<HALF, 2>(t.outv + base, sm.out[o].vals, room, st - HALF);
    named_sync(1 + P::GROUPS, SN); /* the stage is read */
    if (st == 0) piped_raise(&sm.out_free[o]);
  }
}

template <typename P, typename K, typename V, typename Comp>
__global__ void __launch_bounds__(P::THREADS, 1)
    setop_piped_kernel(setop_tiles<K, V> t, int tiles, int *counter,
                       Comp comp) {
  constexpr int NT = P::NT, G = P::GROUPS;
  static_assert(P::VT <= 32, "a thread's slots are bits of one word");
  static_assert(P::RING > G + P::OUT && P::RING >= P::IN + P::OUT,
                "ring slots are reused only once their tile is stored");
  static_assert(P::STORERS % 2 == 0, "storers split between keys and values");
  static_assert(2 + G <= 16, "a named barrier a group and one for the storers");
  typedef setop_piped_smem<P, K, V> smem_t;
  auto &sm = *shared_as<smem_t>();
  const int tid = threadIdx.x;
  /* launched early: the splits and the zeroed counter come from the
   * partition launch */
  wait_for_prior_grid();
  if (tid == 0) {
    for (int s = 0; s < P::IN; ++s) {
      mbarrier_init(&sm.full[s], 33); /* the lanes' copies, lane 0's bytes */
      sm.in_free[s] = 0;
    }
    mbarrier_init_fence();
    for (int o = 0; o < P::OUT; ++o) sm.out_ready[o] = sm.out_free[o] = 0;
    for (int r = 0; r < P::RING; ++r) sm.handoff[r] = kHandoffEmpty;
    sm.seq_n = sm.bases = 0;
  }
  __syncthreads();
  if (tid < G * NT) piped_walk<P>(t, sm, tid / NT, comp);
  else if (tid < G * NT + 32) piped_produce<P>(t, sm, tiles, counter);
  else if (tid < G * NT + 64) piped_look_back<P>(t, sm, tiles);
  else piped_store<P>(t, sm, G * NT + 64);
}

} // namespace mgpu

#endif
