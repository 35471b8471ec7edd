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
#include "policy/bulk.cuh"
#include "rank_partition.cuh"

namespace mgpu {
namespace {

template <typename P, typename V>
__global__ void __launch_bounds__(P::NT)
    bulk_remove_kernel(const V *data, int n, const int32_t *indices, int m,
                       const int *splits, V *out, int n_out) {
  constexpr int NT = P::NT, VT = P::VT, NV = P::NV;
  typedef cub::BlockScan<int, NT> block_scan;
  __shared__ V s_data[NV];
  __shared__ int s_keep[NV];
  __shared__ typename block_scan::TempStorage scan_storage;
  const int tid = threadIdx.x;
  const int s0 = (int)((long long)blockIdx.x * NV);
  const int count = min(NV, n - s0);
  const int r0 = min(max(splits[blockIdx.x], 0), m);
  const int r1 = min(max(splits[blockIdx.x + 1], r0), m);

  load_to_shared<NT, VT>(data + s0, count, s_data);
#pragma unroll
  for (int i = 0; i < VT; ++i) s_keep[tid + i * NT] = tid + i * NT < count;
  __syncthreads();
  for (int j = r0 + tid; j < r1; j += NT) {
    const int k = indices[j] - s0;
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

template <typename P, typename V>
__global__ void __launch_bounds__(P::NT)
    bulk_insert_kernel(const V *data, int n, const int32_t *positions,
                       const V *values, int m, const int *splits, V *out) {
  constexpr int NT = P::NT, VT = P::VT, NV = P::NV;
  auto &sm = *shared_as<merge_tile_smem<NV, true, int32_t, V>>();
  const int total = n + m;
  const int d0 = (int)((long long)blockIdx.x * NV);
  const int d1 = d0 + min(NV, total - d0); /* d0 + NV may wrap */
  /* each split must leave both sides in range, even for broken positions */
  const int a0 = min(max(splits[blockIdx.x], max(0, d0 - n)), min(d0, m));
  const int a1 = min(max(splits[blockIdx.x + 1], max(0, d1 - n)), min(d1, m));
  const tile_span sp = make_tile_span(d0, d1, a0, a1);
  /* keys: the tile's insert positions, then its data indices */
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    const int idx = threadIdx.x + i * NT;
    if (idx < sp.na) sm.keys[idx] = positions[sp.a0 + idx];
    else if (idx < sp.na + sp.nb) sm.keys[idx] = sp.b0 + (idx - sp.na);
  }
  load_two_to_shared<NT, VT>(values + sp.a0, sp.na, data + sp.b0, sp.nb, sm.vals);
  __syncthreads();
  tile_io<int32_t, V> io;
  io.a = io.b = nullptr;
  io.av = io.bv = nullptr;
  io.na = sp.na;
  io.nb = sp.nb;
  io.out = nullptr; /* only the payloads go out (KEYS_OUT = false) */
  io.outv = out + d0;
  io.samples = nullptr;
  io.out0 = d0;
  merge_in_shared<NT, VT, 0, true, false>(io, ascending<int32_t>(), sm);
}

template <typename V>
mgpu_status bulk_remove_run(mgpu_context *ctx, const V *data, int n,
                            const int32_t *indices, int m, V *out) {
  typedef typename bulk_policy<sizeof(V)>::remove P;
  const int tiles = tiles_of(n, P::NV);
  cuda_scratch splits;
  MGPU_TRY(splits.take(ctx, sizeof(int) * ((size_t)tiles + 1)));
  MGPU_TRY(rank_partition(ctx, q_indices{indices}, m, P::NV, n, tiles,
                          splits.as<int>()));
  bulk_remove_kernel<P><<<tiles, P::NT, 0, cuda_of(ctx)->stream>>>(
      data, n, indices, m, splits.as<int>(), out, n - m);
  CUDA_LAUNCHED(ctx, "bulk_remove kernel");
  return MGPU_OK;
}

template <typename V>
mgpu_status bulk_insert_run(mgpu_context *ctx, const V *data, int n,
                            const int32_t *positions, const V *values, int m,
                            V *out) {
  typedef typename bulk_policy<sizeof(V)>::insert P;
  const int tiles = tiles_of((long long)n + m, P::NV);
  cuda_scratch splits;
  MGPU_TRY(splits.take(ctx, sizeof(int) * ((size_t)tiles + 1)));
  /* insert k sits at positions[k] + k in the output */
  MGPU_TRY(rank_partition(ctx, q_plus_rank{positions}, m, P::NV,
                          (int64_t)n + m, tiles, splits.as<int>()));
  auto kernel = bulk_insert_kernel<P, V>;
  const size_t smem = sizeof(merge_tile_smem<P::NV, true, int32_t, V>);
  MGPU_TRY(allow_shared_memory(ctx, kernel, smem));
  kernel<<<tiles, P::NT, smem, cuda_of(ctx)->stream>>>(
      data, n, positions, values, m, splits.as<int>(), out);
  CUDA_LAUNCHED(ctx, "bulk_insert kernel");
  return MGPU_OK;
}

} // namespace
} // namespace mgpu

extern "C" mgpu_status mgpu_cuda_bulk_remove(mgpu_context *ctx,
                                             mgpu_bulk_args *a) {
  size_t width = a->width, n = a->n, m = a->m;
  const void *data = a->data;
  const int32_t *indices = a->index;
  void *out = a->out;
  MGPU_TRY(cuda_enter(ctx));
  if (width == 4)
    return mgpu::bulk_remove_run(ctx, (const uint32_t *)data, (int)n, indices,
                                 (int)m, (uint32_t *)out);
  return mgpu::bulk_remove_run(ctx, (const uint64_t *)data, (int)n, indices,
                               (int)m, (uint64_t *)out);
}

extern "C" mgpu_status mgpu_cuda_bulk_insert(mgpu_context *ctx,
                                             mgpu_bulk_args *a) {
  size_t width = a->width, n = a->n, m = a->m;
  const void *data = a->data, *values = a->values;
  const int32_t *positions = a->index;
  void *out = a->out;
  MGPU_TRY(cuda_enter(ctx));
  if (width == 4)
    return mgpu::bulk_insert_run(ctx, (const uint32_t *)data, (int)n, positions,
                                 (const uint32_t *)values, (int)m,
                                 (uint32_t *)out);
  return mgpu::bulk_insert_run(ctx, (const uint64_t *)data, (int)n, positions,
                               (const uint64_t *)values, (int)m,
                               (uint64_t *)out);
}
