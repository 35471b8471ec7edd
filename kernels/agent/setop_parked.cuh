/*
 * setop_parked.cuh - the staged set-operation tile (a union or symmetric
 * difference of 4-byte pairs) as persistent blocks that park a tile's
 * compacted output, keys and values, in shared memory of its own until the
 * tile's place is known, so that the tile's inputs go on to the next tile
 * instead of waiting.
 *
 * Why: setop_kernel's staged tile holds its inputs (keys, values and the
 * list of kept places, 40 KB at 128 x 31) from its load to its store, and
 * ~30% of that life is waiting for its base (docs/TUNING.md, tenth round).
 * setop_held_kernel moves the wait off the inputs by holding the output in
 * registers, which a union's ~25 outputs (and values) a thread do not fit.
 * Here the output goes to a second buffer, written in output order while
 * the look-back runs, and stored a tile later, once the block has walked
 * the next tile: the inputs' buffer is busy only while it loads and walks.
 *
 * The protocol is setop_held_kernel's (held_lookback_warp): tiles from a
 * counter, each tile's count published before its block waits for
 * anything, the next ticket taken only once the block will not wait before
 * walking it.
 */
#ifndef MGPU_SETOP_PARKED_CUH
#define MGPU_SETOP_PARKED_CUH

#include "agent/setop_held.cuh"

namespace mgpu {

template <int NT, int VT, typename K, typename V>
struct setop_parked_smem : setop_tile_smem<NT, VT, true, K, V>, held_handoff {
  /* the parked tile's output, in output order */
  alignas(16) K out_keys[NT * VT];
  alignas(16) V out_vals[NT * VT];
};

/* out[0, n) = from[0, n), the NT compute threads striding over them, each
 * warp's stores starting on a 128-byte line of out (the threads before the
 * first line's start idle in the first round), U loads in flight a thread. */
template <int NT, int U, typename T>
__device__ __forceinline__ void store_run(T *out, const T *from, int n) {
  constexpr int LINE = 128 / (int)sizeof(T);
  const int start =
      (int)threadIdx.x - (int)(((size_t)out / sizeof(T)) & (LINE - 1));
  for (int i0 = start; i0 < n; i0 += U * NT) {
    T x[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int i = i0 + u * NT;
      if (i >= 0 && i < n) x[u] = from[i];
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int i = i0 + u * NT;
      if (i >= 0 && i < n) out[i] = x[u];
    }
  }
}

/* The parked tile's count outputs at base; capacity bounds the writes even
 * if unsorted input over-counts. */
template <int NT, typename K, typename V, typename Smem>
__device__ __forceinline__ void store_parked(const setop_tiles<K, V> &t,
                                             const Smem &sm, long long base,
                                             int count) {
  const int room = (int)min((long long)count, t.capacity - base);
  store_run<NT, 2>(t.out + base, sm.out_keys, room);
  store_run<NT, 2>(t.outv + base, sm.out_vals, room);
}

template <typename P, typename K, typename V, typename Comp>
__global__ void __launch_bounds__(P::NT + 32, P::MIN_BLOCKS)
    setop_parked_kernel(setop_tiles<K, V> t, int tiles, int *counter,
                        Comp comp) {
  constexpr int NT = P::NT, VT = P::VT, NV = P::NV;
  constexpr int THREADS = NT + 32;
  static_assert(VT <= 32, "a thread's slots are bits of one word");
  static_assert(NT >= 128, "a warp copies the ends of each bulk copy");
  typedef setop_parked_smem<NT, VT, K, V> smem_t;
  static_assert(smem_t::BUF < 65535, "kept[] holds tile positions in 16 bits");
  auto &sm = *shared_as<smem_t>();
  const int tid = threadIdx.x;
  int tile = held_block_start(sm, counter);
  if (tile >= tiles) return;

  if (tid >= NT) {
    held_lookback_warp<THREADS>(t, sm, tile, tiles);
    return;
  }

  int parked = 0; /* the parked tile's count (tile k - 1's, from k = 1) */
  int k = 0;
  for (;; ++k) {
    if (tid == 0) {
      /* keys[] and vals[] were read (and their ragged ends written) by
       * ordinary accesses, ordered before this thread by the barrier that
       * ended the last tile; the bulk copies need the proxies' order too */
      async_proxy_fence();
    }
    const setop_place p = place_of_tile<NV, true>(t, tile);
    setop_start_load<NT, true>(t, sm, p, tile, tiles, false);
    named_sync(1, NT); /* the ragged ends */
    mbarrier_wait(&sm.loaded, k & 1);
    const setop_walk w = walk_tile<NT, VT, K>(sm, p, t.duplicates, comp,
                                              [] { named_sync(1, NT); });
    const unsigned commit = set_op_commit(t.keeps, w.took_a, w.took_b);
    int tile_count;
    const int offset = compute_exclusive_sum<NT>(__popc(commit), sm.warp_totals,
                                                 &tile_count);
    held_hand_count(t, sm, tile, k, tile_count);
    /* the tile before, parked since its walk: its base has had this tile's
     * load and walk to come */
    if (k > 0) {
      base_sync<THREADS>(k - 1);
      store_parked<NT>(t, sm, (long long)read_shared_word(&sm.base[(k - 1) & 1]),
                       parked);
    }
    int next = 0;
    if (tid == 0) next = atomicAdd(counter, 1);
    list_kept<VT, NV, NV>(sm.kept, offset, commit, w);
    named_sync(1, NT); /* kept[]; the parked output is stored */
    /* the values: the walk and the count followed the keys alone */
    mbarrier_wait(&sm.vloaded, k & 1);
    for (int i = tid; i < tile_count; i += NT) {
      const int s = sm.kept[i];
      sm.out_keys[i] = sm.keys[s];
      sm.out_vals[i] = staged_value(sm, p, s);
    }
    parked = tile_count;
    if (tid == 0) {
      sm.next = next;
      atomicExch(&sm.next_slot[k & 3], next);
    }
    named_sync(1, NT); /* keys[], vals[] and kept[] are free; sm.next */
    tile = sm.next;
    if (tile >= tiles) break;
  }
  base_sync<THREADS>(k);
  store_parked<NT>(t, sm, (long long)read_shared_word(&sm.base[k & 1]), parked);
}

} // namespace mgpu

#endif
