/*
 * interval.cu - the load-balancing search and what is built on it:
 * load_balance, interval_expand and interval_move (gather, scatter, both).
 *
 * The outputs 0..total-1 are merged with the interval starts scan[0..m),
 * a start going first when it equals an output: start k sits at scan[k] + k
 * in that merged order.  A partition cuts it into tiles of NV items (outputs
 * and starts together, so runs of empty intervals cost tiles like anything
 * else); inside a tile each thread walks VT items from its Merge Path
 * point, which tells every output the interval it belongs to, and then the
 * block moves the tile's outputs in strided (coalesced) order.
 */
#include <stdint.h>

#include "block/key_order.cuh"
#include "agent/merge_tile.cuh"
#include "dispatch.cuh"
#include "policy/bulk.cuh"
#include "rank_partition.cuh"

namespace mgpu {
namespace {

enum interval_op { LOAD_BALANCE, EXPAND, MOVE };

/* Only what the operation uses: with every array present a block took
 * 34 KB and an SM held 6 of them.  A start of the tile lies in
 * [b0, b0 + nb], so it is kept as int, less b0, whatever Off is: the
 * 64-bit instances hold the 32-bit ones' shared memory and compare ints.
 * The gathers and scatters are global places, in Off. */
template <int NV, interval_op OP, bool GATHER, bool SCATTER, typename V,
          typename Off>
struct interval_smem {
  int start[NV + 1];  /* start[c], c >= 1: scan[a0 - 1 + c] - b0 */
  int owner[NV];      /* per output of the tile: its c */
  Off gather[GATHER ? NV + 1 : 1]; /* likewise gather / scatter / values */
  Off scatter[SCATTER ? NV + 1 : 1];
  V vals[OP == EXPAND ? NV + 1 : 1];
  Off first;          /* MOVE: scan[a0 - 1], whole (it may lie far back) */
};

/* Off holds global places (intervals, outputs, their sum, gathers and
 * scatters): int32_t while m + total fits it and every index array is
 * int32, int64_t otherwise (interval_dispatch).  load_balance writes V:
 * 4 bytes for an int32 out, whose base + interval wraps in 32 bits, 8 for
 * an int64 one.  Tile-local places stay int. */
template <typename P, interval_op OP, bool GATHER, bool SCATTER, typename V,
          typename Off>
__global__ void __launch_bounds__(P::NT)
    interval_kernel(mgpu_interval_args a, const Off *splits) {
  constexpr int NT = P::NT, VT = P::VT, NV = P::NV;
  __shared__ interval_smem<NV, OP, GATHER, SCATTER, V, Off> sm;
  const int tid = threadIdx.x;
  const Off m = (Off)a.m, total = (Off)a.total;
  const Off d0 = (Off)((long long)blockIdx.x * NV);
  const Off d1 = (Off)min((long long)d0 + NV, (long long)m + total);
  /* splits kept consistent even for a broken scan */
  const Off a0 =
      min(max(splits[blockIdx.x], max((Off)0, d0 - total)), min(d0, m));
  const Off a1 =
      min(max(splits[blockIdx.x + 1], max((Off)0, d1 - total)), min(d1, m));
  const tile_span_of<Off> sp = make_tile_span(d0, d1, a0, a1);
  const int na = sp.na, nb = sp.nb; /* starts; outputs from b0 */
  const Off b0 = sp.b0;

  /* the starts of the tile, and the one before it (slot 0) */
  for (int c = tid; c <= na; c += NT) {
    const Off k = a0 - 1 + c;
    if (c > 0) {
      sm.start[c] = place_in_tile<Off>(a.scan, a.scan_type, k, b0, nb);
    } else if (OP == MOVE) {
      const Off first = k >= 0 ? scan_at<Off>(a.scan, a.scan_type, a.wraps, k) : 0;
      if constexpr (sizeof(Off) == 4) sm.start[0] = first - b0; /* fits: both >= 0 */
      else sm.first = first;
    }
    if (k < 0) continue;
    if (OP == EXPAND) sm.vals[c] = ((const V *)a.input)[k];
    if (GATHER) sm.gather[c] = index_at<Off>(a.gather, a.gather_type, k);
    if (SCATTER) sm.scatter[c] = index_at<Off>(a.scatter, a.scatter_type, k);
  }
  __syncthreads();

  /* Merge Path into (starts, outputs): how many of the first diag items
   * are starts; start c precedes output j of the tile when start[c] <= j */
  const int diag = min(VT * tid, na + nb);
  int lo = max(0, diag - nb), hi = min(diag, na);
  while (lo < hi) {
    const int mid = lo + ((hi - lo) >> 1);
    if (diag - 1 - mid < sm.start[1 + mid]) hi = mid;
    else lo = mid + 1;
  }
  int c = lo, j = diag - lo;
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    if (c < na && (j >= nb || sm.start[1 + c] <= j))
      ++c;
    else if (j < nb)
      sm.owner[j++] = c;
  }
  __syncthreads();

  if constexpr (OP != MOVE) {
    /* outputs b0 + jj in strided (coalesced) order */
    V *out = (V *)a.out + b0;
#pragma unroll
    for (int i = 0; i < VT; ++i) {
      const int jj = tid + i * NT;
      if (jj >= nb) break;
      const int own = sm.owner[jj];
      if constexpr (OP == EXPAND)
        out[jj] = sm.vals[own];
      else if constexpr (sizeof(V) == 4)
        /* base + the interval wraps in 32 bits (unsigned: no overflow) */
        out[jj] = (V)((uint32_t)(a0 - 1 + own) + (uint32_t)a.base);
      else
        out[jj] = (V)((uint64_t)(a0 - 1 + own) + (uint64_t)(int64_t)a.base);
    }
  } else {
    /* MOVE, strided over the tile's outputs.  All loads first, then all
     * stores: the gathers of input are scattered, and VT of them in flight
     * per thread hide their latency. */
    V vals[VT];
    long long dst[VT];
#pragma unroll
    for (int i = 0; i < VT; ++i) {
      const int jj = tid + i * NT;
      dst[i] = -1;
      if (jj < nb) {
        const int own = sm.owner[jj];
        const Off k = b0 + jj; /* the output */
        Off rank;
        if constexpr (sizeof(Off) == 4) rank = jj - sm.start[own];
        else rank = own ? (Off)(jj - sm.start[own]) : k - sm.first;
        const long long g = GATHER ? (long long)sm.gather[own] + rank : k;
        const long long s = SCATTER ? (long long)sm.scatter[own] + rank : k;
        /* prepare_starts has checked the ranges; this keeps a caller of the
         * C API who did not inside the arrays anyway */
        if (g >= 0 && g < (long long)a.n_input && s >= 0 &&
            s < (long long)a.n_out) {
          vals[i] = ((const V *)a.input)[g];
          dst[i] = s;
        }
      }
    }
#pragma unroll
    for (int i = 0; i < VT; ++i)
      if (dst[i] >= 0) ((V *)a.out)[dst[i]] = vals[i];
  }
}

template <interval_op OP, bool GATHER, bool SCATTER, typename V, typename Off>
mgpu_status interval_run(mgpu_context *ctx, const mgpu_interval_args *a) {
  typedef interval_policy P;
  const Off m = (Off)a->m;
  const long long items = (long long)a->m + (long long)a->total;
  int tiles = 0;
  MGPU_TRY(checked_tiles(ctx, items, P::NV, &tiles, "an interval call"));
  cuda_scratch splits, wraps;
  MGPU_TRY(splits.take(ctx, sizeof(Off) * ((size_t)tiles + 1)));
  mgpu_interval_args k = *a;
  if (a->scan_type == MGPU_U32) {
    MGPU_TRY(wraps.take(ctx, sizeof(mgpu_wraps)));
    CUDA_TRY(ctx, cudaMemcpyAsync(wraps.ptr, a->wraps, sizeof(mgpu_wraps),
                                  cudaMemcpyHostToDevice,
                                  cuda_of(ctx)->stream));
    k.wraps = wraps.as<mgpu_wraps>();
  }
  MGPU_TRY(rank_partition(ctx, q_scan_plus_rank<Off>{k.scan, k.scan_type, k.wraps},
                          m, P::NV, (int64_t)items, tiles, splits.as<Off>()));
  interval_kernel<P, OP, GATHER, SCATTER, V, Off>
      <<<tiles, P::NT, 0, cuda_of(ctx)->stream>>>(k, splits.as<Off>());
  CUDA_LAUNCHED(ctx, "interval kernel");
  return MGPU_OK;
}

/* f(Off()) with Off by the call's largest global place, m + total (the C
 * API holds it to the backend's limit), and int64_t for any MGPU_I64
 * index array or wrapped scan, so that the 32-bit instances read int32
 * only. */
template <typename F>
mgpu_status interval_dispatch(const mgpu_interval_args *a, F f) {
  const bool wide = a->scan_type == MGPU_I64 || a->scan_type == MGPU_U32 ||
                    (a->gather && a->gather_type == MGPU_I64) ||
                    (a->scatter && a->scatter_type == MGPU_I64);
  return dispatch_offset(wide ? SIZE_MAX : a->m + a->total, f);
}

template <typename V>
mgpu_status interval_move_run(mgpu_context *ctx, const mgpu_interval_args *a) {
  return interval_dispatch(a, [&](auto off) {
    typedef decltype(off) Off;
    if (a->gather && a->scatter)
      return interval_run<MOVE, true, true, V, Off>(ctx, a);
    if (a->gather) return interval_run<MOVE, true, false, V, Off>(ctx, a);
    if (a->scatter) return interval_run<MOVE, false, true, V, Off>(ctx, a);
    return interval_run<MOVE, false, false, V, Off>(ctx, a);
  });
}

template <typename V>
mgpu_status interval_expand_run(mgpu_context *ctx,
                                const mgpu_interval_args *a) {
  return interval_dispatch(a, [&](auto off) {
    return interval_run<EXPAND, false, false, V, decltype(off)>(ctx, a);
  });
}

/* An int64 out is written by the 64-bit instance alone: the interval
 * numbers it needs pass 2^31 only there. */
inline mgpu_status load_balance_run(mgpu_context *ctx,
                                    const mgpu_interval_args *a) {
  if (a->index_type == MGPU_I64)
    return interval_run<LOAD_BALANCE, false, false, uint64_t, int64_t>(ctx, a);
  return interval_dispatch(a, [&](auto off) {
    return interval_run<LOAD_BALANCE, false, false, uint32_t, decltype(off)>(
        ctx, a);
  });
}

} // namespace
} // namespace mgpu

extern "C" mgpu_status mgpu_cuda_load_balance(mgpu_context *ctx,
                                              mgpu_interval_args *a) {
  MGPU_TRY(cuda_enter(ctx));
  return mgpu::load_balance_run(ctx, a);
}

extern "C" mgpu_status mgpu_cuda_interval_expand(mgpu_context *ctx,
                                                 mgpu_interval_args *a) {
  MGPU_TRY(cuda_enter(ctx));
  if (a->width == 4) return mgpu::interval_expand_run<uint32_t>(ctx, a);
  return mgpu::interval_expand_run<uint64_t>(ctx, a);
}

extern "C" mgpu_status mgpu_cuda_interval_move(mgpu_context *ctx,
                                               mgpu_interval_args *a) {
  MGPU_TRY(cuda_enter(ctx));
  if (a->width == 4) return mgpu::interval_move_run<uint32_t>(ctx, a);
  return mgpu::interval_move_run<uint64_t>(ctx, a);
}
