/*
 * setop_held.cuh - the set-operation tile kernel as persistent blocks that
 * hold a tile's output in registers until its place is known, so that
 * shared memory goes on to the next tile instead of waiting.
 *
 * Why: in setop_kernel a tile keeps its shared memory from its load to its
 * store, and ~30% of that life (3.3 of 10.8 us at 2^26, stamps from the
 * kernel, docs/TUNING.md tenth round) is waiting for its base, which comes
 * about two loaded L2 round trips after the last predecessor's count
 * whatever relays it.  With an unordered atomic in its place the kernel
 * ran 10-24% faster: what costs is the held shared memory, not the wait.
 * Earlier attempts parked the output in shared memory (a second buffer
 * halved the resident tiles) or in a ring in global memory (the copy cost
 * more than the wait).  Registers are what a tile has to spare: 40 a
 * thread of the 56 that four 288-thread blocks an SM leave.
 *
 * A block takes tiles from a counter, so a tile only ever waits for tiles
 * that running blocks hold, and every tile's count is published before its
 * block waits for anything.  Its look-back warp looks back for one tile
 * after another; the compute warps hand it each count with the number of
 * the block's next tile, and it hands back each base on a named barrier
 * (2 or 3, by the tile's parity, so that a base for the tile after cannot
 * arrive on the barrier the compute warps still wait on).  A tile whose
 * output is more than the registers hold (HOLD per thread) waits for its
 * base and stores from shared memory, as setop_kernel does.
 */
#ifndef MGPU_SETOP_HELD_CUH
#define MGPU_SETOP_HELD_CUH

#include "agent/setop_tile.cuh"

namespace mgpu {

/* What a persistent block's compute warps and its look-back warp hand each
 * other (held_lookback_warp). */
struct held_handoff {
  /* per tile parity: the count, for the look-back warp (kHandoffEmpty
   * until written); the base it found */
  unsigned long long handoff[2];
  unsigned long long base[2];
  /* the block's next tile for the look-back warp, by k % 4 (-1: not yet;
   * it is written after the tile's count, and by the time slot k % 4 is
   * written again the look-back warp has gone two tiles further) */
  int next_slot[4];
  int next;  /* the same for the compute warps */
  int first; /* the block's first tile */
};

template <int NT, int VT, typename K, typename V, int KEPT>
struct setop_held_smem : setop_tile_smem<NT, VT, false, K, V, KEPT>,
                         held_handoff {};

constexpr unsigned long long kHandoffEmpty = ~0ull;

/* Shared words another warp writes with no barrier between: atomics, so
 * that the handover is seen and is not a race (racecheck). */
__device__ __forceinline__ unsigned long long
read_shared_word(unsigned long long *w) {
  return atomicAdd(w, 0ull);
}

/* The base of tile k reaches the compute warps on barrier 2 + (k & 1),
 * named by constants: with a computed id ptxas reserves all 16 barriers. */
template <int THREADS>
__device__ __forceinline__ void base_arrive(int k) {
  if (k & 1) named_arrive(3, THREADS);
  else named_arrive(2, THREADS);
}
template <int THREADS>
__device__ __forceinline__ void base_sync(int k) {
  if (k & 1) named_sync(3, THREADS);
  else named_sync(2, THREADS);
}

/* A persistent block's start, by all its threads: after the partition
 * launch (launched early: the splits and the zeroed counter come from it),
 * thread 0 readies the load barrier and the handoff words and takes the
 * block's first tile, which it returns to every thread. */
template <typename Smem>
__device__ __forceinline__ int held_block_start(Smem &sm, int *counter) {
  wait_for_prior_grid();
  if (threadIdx.x == 0) {
    mbarrier_init(&sm.loaded, 1);
    mbarrier_init(&sm.vloaded, 1); /* staged values' (setop_parked_kernel) */
    mbarrier_init_fence();
    sm.handoff[0] = sm.handoff[1] = kHandoffEmpty;
    for (int i = 0; i < 4; ++i) sm.next_slot[i] = -1;
    sm.first = atomicAdd(counter, 1);
  }
  __syncthreads();
  return sm.first;
}

/* Thread 0 publishes the count of the block's k-th tile and hands it to
 * the look-back warp.  Published here, not by the look-back warp, which
 * may still be waiting for the tile before's base: nothing a tile's count
 * waits for may depend on other tiles (with the look-back warp publishing
 * it, calls where some held tiles fell back ran 2x-13x slower). */
template <typename K, typename V, typename Smem>
__device__ __forceinline__ void held_hand_count(const setop_tiles<K, V> &t,
                                                Smem &sm, int tile, int k,
                                                int count) {
  if (threadIdx.x != 0) return;
  publish_count(t.status, t.gsum, tile, count);
  atomicExch(&sm.handoff[k & 1], (unsigned long long)count);
}

/* The look-back warp of a persistent block: the base of one tile after
 * another, as the block takes them (`tile` its first).  The compute warps
 * hand it each tile's count in sm.handoff[k & 1] and then the block's next
 * tile in sm.next_slot[k & 3]; it hands back each base in sm.base[k & 1]
 * and arrives on barrier 2 + (k & 1).  The last tile's look-back publishes
 * the call's total. */
template <int THREADS, typename K, typename V, typename Smem>
__device__ __forceinline__ void held_lookback_warp(const setop_tiles<K, V> &t,
                                                   Smem &sm, int tile,
                                                   int tiles) {
  const int lane = threadIdx.x & 31;
  for (int k = 0;; ++k) {
    unsigned long long *slot = &sm.handoff[k & 1];
    long long count;
    const long long base = tile_exclusive_prefix_polled(
        t.status, t.gstatus, t.gsum, tile,
        [&]() -> long long {
          unsigned long long w = 0;
          if (lane == 0) w = read_shared_word(slot);
          w = __shfl_sync(0xffffffffu, w, 0);
          return w == kHandoffEmpty ? -1 : (long long)w;
        },
        &count);
    if (lane == 0) {
      atomicExch(&sm.base[k & 1], (unsigned long long)base);
      atomicExch(slot, kHandoffEmpty);
      if (tile == tiles - 1) publish_total(t.total, base + count, t.ticket);
    }
    __threadfence_block();
    base_arrive<THREADS>(k);
    /* the block's next tile: taken early when this one's output is held
     * (or parked), after its store when it is not */
    int next = -1;
    for (;;) {
      if (lane == 0) next = atomicExch(&sm.next_slot[k & 3], -1);
      next = __shfl_sync(0xffffffffu, next, 0);
      if (next >= 0) break;
      __nanosleep(64);
    }
    tile = next;
    if (tile >= tiles) return;
  }
}

/* A value's source (value_source) is held, and the values are gathered
 * from the inputs as they are stored; or, EARLY (gathers_early), the
 * value itself, gathered as the tile is held so that the loads are in
 * flight during the next tile's walk. */
template <typename K, typename V, int HOLD, bool HAS_V, bool EARLY>
struct held_output {
  K key[HOLD];
  int src[HAS_V && !EARLY ? HOLD : 1];
  V val[HAS_V && EARLY ? HOLD : 1];
  int count;
};

template <int NT, bool HAS_V, typename K, typename V, int HOLD, bool EARLY>
__device__ __forceinline__ void
store_held(const setop_tiles<K, V> &t,
           const held_output<K, V, HOLD, HAS_V, EARLY> &h, long long base) {
  const int room = (int)min((long long)h.count, t.capacity - base);
#pragma unroll
  for (int j = 0; j < HOLD; ++j) {
    const int i = (int)threadIdx.x + j * NT;
    if (i < room) {
      t.out[base + i] = h.key[j];
      if (HAS_V && EARLY) {
        t.outv[base + i] = h.val[j];
      } else if (HAS_V) {
        t.outv[base + i] = input_value(t, h.src[j]);
      }
    }
  }
}

template <typename P, bool HAS_V, typename K, typename V, typename Comp>
__global__ void __launch_bounds__(P::NT + 32, P::MIN_BLOCKS)
    setop_held_kernel(setop_tiles<K, V> t, int tiles, int *counter,
                      Comp comp) {
  constexpr int NT = P::NT, VT = P::VT, NV = P::NV, HOLD = P::HOLD;
  constexpr int THREADS = NT + 32;
  static_assert(VT <= 32, "a thread's slots are bits of one word");
  static_assert(NT >= 64, "a warp copies the ends of each bulk copy");
  constexpr int KEPT = kept_room<P>();
  typedef setop_held_smem<NT, VT, K, V, KEPT> smem_t;
  static_assert(smem_t::BUF < 65535, "kept[] holds tile positions in 16 bits");
  auto &sm = *shared_as<smem_t>();
  const int tid = threadIdx.x;
  int tile = held_block_start(sm, counter);
  if (tile >= tiles) return;

  if (tid >= NT) {
    held_lookback_warp<THREADS>(t, sm, tile, tiles);
    return;
  }

  constexpr bool EARLY = P::EARLY_VALUES && HAS_V;
  held_output<K, V, HOLD, HAS_V, EARLY> h;
  h.count = 0;
  bool held = false; /* the tile before is held */
  int k = 0;
  for (;; ++k) {
    if (tid == 0) {
      /* the keys[] this load overwrites were read (and its ragged ends
       * written) by ordinary accesses, which the barrier ending the last
       * tile ordered before this thread; the bulk copies are async-proxy
       * writes and need the proxies' order too */
      async_proxy_fence();
    }
    const setop_place p = place_of_tile<NV, false>(t, tile);
    setop_start_load<NT, false>(t, sm, p, tile, tiles, false);
    named_sync(1, NT); /* the ragged ends */
    mbarrier_wait(&sm.loaded, k & 1);
    const setop_walk w = walk_tile<NT, VT, K>(sm, p, t.duplicates, comp,
                                              [] { named_sync(1, NT); });
    const unsigned commit = set_op_commit(t.keeps, w.took_a, w.took_b);
    int tile_count;
    const int offset = compute_exclusive_sum<NT>(__popc(commit), sm.warp_totals,
                                                 &tile_count);
    if (KEPT < NV) tile_count = min(tile_count, KEPT);
    const bool hold = tile_count <= HOLD * NT;
    held_hand_count(t, sm, tile, k, tile_count);
    int next = 0;
    /* the tile before, held since its walk: its base has had this tile's
     * load and walk to come */
    if (held) {
      base_sync<THREADS>(k - 1);
      store_held<NT, HAS_V>(t, h, (long long)read_shared_word(&sm.base[(k - 1) & 1]));
    }
    /* The next tile is taken only when this block will not wait before
     * walking it (after the base above; for a tile that falls back, after
     * its store): a ticket held while its block waits delays that tile's
     * count, and every later tile's base, by the wait. */
    if (hold && tid == 0) next = atomicAdd(counter, 1);
    list_kept<VT, KEPT, NV>(sm.kept, offset, commit, w);
    named_sync(1, NT); /* kept[] */
    if (hold) {
      h.count = tile_count;
#pragma unroll
      for (int j = 0; j < HOLD; ++j) {
        const int i = tid + j * NT;
        if (i < tile_count) {
          const int s = sm.kept[i];
          h.key[j] = sm.keys[s];
          if (HAS_V) {
            const int v = value_source(p, s);
            if (EARLY) h.val[j] = input_value(t, v);
            else h.src[j] = v;
          }
        }
      }
    } else {
      base_sync<THREADS>(k);
      store_kept<NT, HAS_V, false>(t, sm, p,
                                   (long long)read_shared_word(&sm.base[k & 1]),
                                   tile_count);
      if (tid == 0) next = atomicAdd(counter, 1);
    }
    held = hold;
    if (tid == 0) {
      sm.next = next;
      atomicExch(&sm.next_slot[k & 3], next);
    }
    named_sync(1, NT); /* keys[] and kept[] are free; sm.next */
    tile = sm.next;
    if (tile >= tiles) break;
  }
  if (held) {
    base_sync<THREADS>(k);
    store_held<NT, HAS_V>(t, h, (long long)read_shared_word(&sm.base[k & 1]));
  }
}

} // namespace mgpu

#endif
