/*
 * select_tile.cuh - what one block of a compaction (unique, compact) does
 * with its tile: it stages its keys in shared memory, flags the ones it
 * keeps (compact: a non-zero flag; unique: a key that differs from the one
 * before it), counts them with a block scan, learns where its output goes
 * by the decoupled look-back over the tiles before it
 * (block/tile_prefix.cuh), and stores what it keeps from a list of kept
 * places, so the inputs are read once and the outputs written once in one
 * launch.  The last tile hands the total to the host (block/total_word.cuh).
 * select.cu launches it.
 */
#ifndef MGPU_AGENT_SELECT_TILE_CUH
#define MGPU_AGENT_SELECT_TILE_CUH

#include <stdint.h>

#include "block/key_order.cuh"
#include "block/tile_prefix.cuh"
#include "block/total_word.cuh"
#include "policy/select.cuh"

namespace mgpu {

/* One launch's arguments.  K is the key type (unique compares keys by
 * ascending<K>; compact moves raw words), V the value word, F the flag
 * type (compact only), Off the type of the call's global positions:
 * int32_t when n is at most INT32_MAX, int64_t past it (dispatch_offset;
 * select.cu).  Off is the type of the run starts, and says how the total
 * reaches the host: beside the ticket in one word when it fits 32 bits
 * (publish_total), else as a 64-bit value (publish_value). */
template <typename K, typename V, typename F, typename Off>
struct select_tiles {
  const K *keys;
  const V *vals;   /* null: keys only */
  const F *flags;  /* compact: keep where non-zero; unique: null */
  long long n;
  /* the look-back words (tile_prefix.cuh); null for a call of one tile */
  unsigned long long *status, *gstatus, *gsum;
  unsigned long long *word; /* the context's pinned word */
  unsigned long long ticket;
  K *out_keys;
  V *out_vals;
  Off *starts; /* unique with counts: each run's first index, else null */
};

/* The exclusive sum of each thread's count over the block (NT a multiple
 * of 32), and the block's total in *total; warp_sums has NT / 32 slots.
 * Ends with a barrier, after which warp_sums may be written again only
 * after another barrier. */
template <int NT>
__device__ __forceinline__ int block_exclusive_sum(int c, int *warp_sums,
                                                   int *total) {
  constexpr int WARPS = NT / 32;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int x = c;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const int y = __shfl_up_sync(0xffffffffu, x, off);
    if (lane >= off) x += y;
  }
  if (lane == 31) warp_sums[warp] = x;
  __syncthreads();
  if (warp == 0) {
    int w = lane < WARPS ? warp_sums[lane] : 0;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      const int y = __shfl_up_sync(0xffffffffu, w, off);
      if (lane >= off) w += y;
    }
    if (lane < WARPS) warp_sums[lane] = w;
  }
  __syncthreads();
  *total = warp_sums[WARPS - 1];
  return x - c + (warp ? warp_sums[warp - 1] : 0);
}

template <typename P, typename K> struct select_smem {
  K keys[P::NV];
  /* compact: the flags (0 or 1) in tile order, then the tile places of
   * the kept keys, in order */
  int kept[P::NV];
  int warp_sums[P::NT / 32];
  long long base;
};

/* One tile a block, tiles in launch order (the look-back waits only for
 * lower-numbered tiles).  UNIQUE: keep the keys that start a run: the
 * first key, and every key ordered before or after the one before it
 * (NaNs are equivalent, -0.0 and 0.0 too: ascending<K>); else keep where
 * flags[i] != 0. */
template <typename P, bool UNIQUE, bool HAS_V, typename K, typename V,
          typename F, typename Off>
__global__ void __launch_bounds__(P::NT, min_blocks_within_sm(P::NT,
                                                              P::MIN_BLOCKS))
select_kernel(select_tiles<K, V, F, Off> t) {
  constexpr int NT = P::NT, VT = P::VT, NV = P::NV;
  static_assert(VT <= 32, "a thread's kept keys are one 32-bit mask");
  __shared__ select_smem<P, K> sm;
  const int tid = threadIdx.x, tile = blockIdx.x;
  const long long start = (long long)tile * NV;
  const long long left = t.n - start;
  const int count = left < NV ? (int)left : NV;

  /* keys (and flags) in, striped so a warp's loads are coalesced */
#pragma unroll
  for (int j = 0; j < VT; ++j) {
    const int i = j * NT + tid;
    if (i < count) {
      sm.keys[i] = t.keys[start + i];
      if constexpr (!UNIQUE) sm.kept[i] = t.flags[start + i] != 0;
    }
  }
  /* the key before the tile, which decides whether its first key starts a
   * run; the first tile's first key always does */
  K before = K();
  if (UNIQUE && tid == 0 && tile > 0) before = t.keys[start - 1];
  __syncthreads();

  /* this thread's VT keys in tile order */
  unsigned keep = 0;
#pragma unroll
  for (int j = 0; j < VT; ++j) {
    const int i = tid * VT + j;
    if (i < count) {
      bool k;
      if constexpr (UNIQUE) {
        if (i == 0 && tile == 0) {
          k = true;
        } else {
          const K prev = i ? sm.keys[i - 1] : before;
          const K x = sm.keys[i];
          k = ascending<K>()(prev, x) || ascending<K>()(x, prev);
        }
      } else {
        k = sm.kept[i] != 0;
      }
      keep |= (unsigned)k << j;
    }
  }
  int tile_count;
  int at = block_exclusive_sum<NT>(__popc(keep), sm.warp_sums, &tile_count);
  /* past block_exclusive_sum's last barrier every flag has been read: the
   * slots take the kept places */
#pragma unroll
  for (int j = 0; j < VT; ++j)
    if ((keep >> j) & 1) sm.kept[at++] = tid * VT + j;

  if (tid < 32) {
    const long long base = tile_exclusive_prefix(t.status, t.gstatus, t.gsum,
                                                 tile, tile_count);
    if (tid == 0) {
      sm.base = base;
      if (tile == (int)gridDim.x - 1) {
        const unsigned long long kept =
            (unsigned long long)(base + tile_count);
        if constexpr (sizeof(Off) == 4)
          publish_total(t.word, kept, t.ticket);
        else
          publish_value(t.word, kept, t.ticket); /* may pass 2^32 - 1 */
      }
    }
  }
  __syncthreads();
  const long long base = sm.base;
  for (int i = tid; i < tile_count; i += NT) {
    const int k = sm.kept[i];
    t.out_keys[base + i] = sm.keys[k];
    if constexpr (HAS_V) t.out_vals[base + i] = t.vals[start + k];
    if constexpr (UNIQUE)
      if (t.starts) t.starts[base + i] = (Off)(start + k);
  }
}

} // namespace mgpu

#endif
