/*
 * bulk.cu - bulk remove and bulk insert on the GPU.
 *
 * bulk_remove: tiles of NV inputs; a lower-bound partition finds each
 * tile's remove indices; the tile marks them in a flag array in shared
 * memory, scans the flags (cub::BlockScan) and stores the survivors
 * coalesced at the tile's output offset, tile start - removes before it.
 *
 * bulk_insert: a merge of the insert positions with the counting sequence
 * of data indices, inserts first on ties (Merge Path partition, then the
 * merge agent with the payloads as values), so every tile gets exactly NV
 * outputs however many inserts share one position.
 */
#include <stdint.h>

#include <cub/block/block_scan.cuh>

#include "block/key_order.cuh"
#include "block/tile_io.cuh"
#include "agent/merge_tile.cuh"
#include "dispatch.cuh"
#include "policy/bulk.cuh"
#include "rank_partition.cuh"

namespace mgpu {
namespace {

/* Off holds global positions (data, outputs, the index arrays' places):
 * int32_t while every count of the call fits it, int64_t past it or with
 * an MGPU_I64 index array (dispatch_bulk).  Tile-local places stay int. */
template <typename P, typename V, typename Off>
__global__ void __launch_bounds__(P::NT)
    bulk_remove_kernel(const V *data, Off n, const int32_t *indices,
                       mgpu_dtype indices_type, Off m, const Off *splits,
                       V *out, Off n_out) {
  constexpr int NT = P::NT, VT = P::VT, NV = P::NV;
  typedef cub::BlockScan<int, NT> block_scan;
  __shared__ V s_data[NV];
  __shared__ int s_keep[NV];
  __shared__ typename block_scan::TempStorage scan_storage;
  const int tid = threadIdx.x;
  const Off s0 = (Off)((long long)blockIdx.x * NV);
  const int count = (int)min((Off)NV, n - s0);
  const Off r0 = min(max(splits[blockIdx.x], (Off)0), m);
  const Off r1 = min(max(splits[blockIdx.x + 1], r0), m);

  load_to_shared<NT, VT>(data + s0, count, s_data);
#pragma unroll
  for (int i = 0; i < VT; ++i) s_keep[tid + i * NT] = tid + i * NT < count;
  __syncthreads();
  for (Off j = r0 + tid; j < r1; j += NT) {
    const Off k = index_at<Off>(indices, indices_type, j) - s0;
    if (k >= 0 && k < count) s_keep[k] = 0;
  }
  __syncthreads();

  int keep[VT];
  V v[VT];
  int kept = 0;
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    keep[i] = s_keep[VT * tid + i];
    v[i] = s_data[VT * tid + i];
    kept += keep[i];
  }
  int offset, survivors;
  block_scan(scan_storage).ExclusiveSum(kept, offset, survivors);
  __syncthreads();
#pragma unroll
  for (int i = 0; i < VT; ++i)
    if (keep[i]) s_data[offset++] = v[i];
  __syncthreads();
  /* sorted unique indices put the tile's survivors right after those of the
   * tiles before it; the bounds test only matters for broken indices */
  const long long out0 = (long long)s0 - r0;
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    const int idx = tid + i * NT;
    const long long o = out0 + idx;
    if (idx < survivors && o >= 0 && o < n_out) out[o] = s_data[idx];
  }
}

/* The merge's keys are places among the tile's data: data element b0 + j
 * is j, and an insert position p of the tile lies in [b0, b0 + nb] (the
 * inserts before data b0 are in earlier tiles), so p - b0 is an int
 * (place_in_tile) whatever Off is: the 64-bit instances merge ints in the
 * 32-bit ones' shared memory. */
template <typename P, typename V, typename Off>
__global__ void __launch_bounds__(P::NT)
    bulk_insert_kernel(const V *data, Off n, const int32_t *positions,
                       mgpu_dtype positions_type, const V *values, Off m,
                       const Off *splits, V *out) {
  constexpr int NT = P::NT, VT = P::VT, NV = P::NV;
  auto &sm = *shared_as<merge_tile_smem<NV, true, int, V>>();
  const Off total = n + m;
  const Off d0 = (Off)((long long)blockIdx.x * NV);
  const Off d1 = d0 + min((Off)NV, total - d0); /* d0 + NV may wrap */
  /* each split must leave both sides in range, even for broken positions */
  const Off a0 =
      min(max(splits[blockIdx.x], max((Off)0, d0 - n)), min(d0, m));
  const Off a1 =
      min(max(splits[blockIdx.x + 1], max((Off)0, d1 - n)), min(d1, m));
  const tile_span_of<Off> sp = make_tile_span(d0, d1, a0, a1);
  /* keys: the tile's insert positions, then its data indices */
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    const int idx = threadIdx.x + i * NT;
    if (idx < sp.na)
      sm.keys[idx] = place_in_tile<Off>(positions, positions_type,
                                        sp.a0 + idx, sp.b0, sp.nb);
    else if (idx < sp.na + sp.nb)
      sm.keys[idx] = idx - sp.na;
  }
  load_two_to_shared<NT, VT>(values + sp.a0, sp.na, data + sp.b0, sp.nb, sm.vals);
  __syncthreads();
  tile_io<int, V> io;
  io.a = io.b = nullptr;
  io.av = io.bv = nullptr;
  io.na = sp.na;
  io.nb = sp.nb;
  io.out = nullptr; /* only the payloads go out (KEYS_OUT = false) */
  io.outv = out + d0;
  io.samples = nullptr;
  io.out0 = d0;
  merge_in_shared<NT, VT, 0, true, false>(io, ascending<int>(), sm);
}

template <typename V, typename Off>
mgpu_status bulk_remove_run(mgpu_context *ctx, const mgpu_bulk_args *a) {
  typedef typename bulk_policy<sizeof(V)>::remove P;
  const Off n = (Off)a->n, m = (Off)a->m;
  int tiles = 0;
  MGPU_TRY(checked_tiles(ctx, (long long)n, P::NV, &tiles, "a bulk_remove"));
  cuda_scratch splits;
  MGPU_TRY(splits.take(ctx, sizeof(Off) * ((size_t)tiles + 1)));
  MGPU_TRY(rank_partition(ctx, q_indices<Off>{a->index, a->index_type}, m,
                          P::NV, (int64_t)n, tiles, splits.as<Off>()));
  bulk_remove_kernel<P><<<tiles, P::NT, 0, cuda_of(ctx)->stream>>>(
      (const V *)a->data, n, a->index, a->index_type, m, splits.as<Off>(),
      (V *)a->out, n - m);
  CUDA_LAUNCHED(ctx, "bulk_remove kernel");
  return MGPU_OK;
}

template <typename V, typename Off>
mgpu_status bulk_insert_run(mgpu_context *ctx, const mgpu_bulk_args *a) {
  typedef typename bulk_policy<sizeof(V)>::insert P;
  const Off n = (Off)a->n, m = (Off)a->m;
  int tiles = 0;
  MGPU_TRY(checked_tiles(ctx, (long long)n + m, P::NV, &tiles,
                         "a bulk_insert"));
  cuda_scratch splits;
  MGPU_TRY(splits.take(ctx, sizeof(Off) * ((size_t)tiles + 1)));
  /* insert k sits at positions[k] + k in the output */
  MGPU_TRY(rank_partition(ctx, q_plus_rank<Off>{a->index, a->index_type}, m,
                          P::NV, (int64_t)n + m, tiles, splits.as<Off>()));
  auto kernel = bulk_insert_kernel<P, V, Off>;
  const size_t smem = sizeof(merge_tile_smem<P::NV, true, int, V>);
  MGPU_TRY(allow_shared_memory(ctx, kernel, smem));
  kernel<<<tiles, P::NT, smem, cuda_of(ctx)->stream>>>(
      (const V *)a->data, n, a->index, a->index_type, (const V *)a->values, m,
      splits.as<Off>(), (V *)a->out);
  CUDA_LAUNCHED(ctx, "bulk_insert kernel");
  return MGPU_OK;
}

/* run<V, Off>(ctx, a) by the element width, and Off by the call's largest
 * global position (n for remove, n + m for insert): an MGPU_I64 index
 * array takes the 64-bit instance at any count, so that the 32-bit ones
 * read int32 only. */
template <template <typename, typename> class Run>
mgpu_status dispatch_bulk(mgpu_context *ctx, const mgpu_bulk_args *a,
                          size_t largest) {
  if (a->index_type == MGPU_I64) largest = SIZE_MAX;
  return dispatch_offset(largest, [&](auto off) {
    typedef decltype(off) Off;
    if (a->width == 4) return Run<uint32_t, Off>::run(ctx, a);
    return Run<uint64_t, Off>::run(ctx, a);
  });
}

template <typename V, typename Off> struct bulk_remove_op {
  static mgpu_status run(mgpu_context *ctx, const mgpu_bulk_args *a) {
    return bulk_remove_run<V, Off>(ctx, a);
  }
};
template <typename V, typename Off> struct bulk_insert_op {
  static mgpu_status run(mgpu_context *ctx, const mgpu_bulk_args *a) {
    return bulk_insert_run<V, Off>(ctx, a);
  }
};

} // namespace
} // namespace mgpu

extern "C" mgpu_status mgpu_cuda_bulk_remove(mgpu_context *ctx,
                                             mgpu_bulk_args *a) {
  MGPU_TRY(cuda_enter(ctx));
  return mgpu::dispatch_bulk<mgpu::bulk_remove_op>(ctx, a, a->n);
}

extern "C" mgpu_status mgpu_cuda_bulk_insert(mgpu_context *ctx,
                                             mgpu_bulk_args *a) {
  MGPU_TRY(cuda_enter(ctx));
  /* no wrap: the C API holds n + m to the backend's limit */
  return mgpu::dispatch_bulk<mgpu::bulk_insert_op>(ctx, a, a->n + a->m);
}
