/*
 * radix_sort.cu - mgpu_sort on the GPU: the radix sort of
 * agent/radix_tile.cuh.  All of a call's launches are queued at once: the
 * histogram, its scan (which decides on the device which digit passes
 * run), one sweep a digit (a skipped pass's blocks return at once), and a
 * copy back to the caller's arrays when an odd number of passes ran; the
 * host never waits.  Keys are sorted as unsigned words of their width:
 * i32 and u32 (i64 and u64) share their instances, floats have their own
 * (their code), and the order is a mask of the code.
 */
#include <stdint.h>

#include <algorithm>

#include "agent/radix_tile.cuh"
#include "dispatch.cuh"
#include "launch.cuh"
#include "policy/radix.cuh"

namespace mgpu {
namespace {

template <typename P, bool HAS_V, typename Off, typename U, typename V>
using sweep_smem = radix_sweep_smem<P, HAS_V, U, V, Off>;

template <typename P, bool HAS_V, typename Off, typename U, typename V,
          typename Code>
mgpu_status radix_sort_run(mgpu_context *ctx, U *keys, V *vals, long long n,
                           Code code) {
  typedef radix_histogram_policy<sizeof(U)> H;
  typedef radix_dims<kRadixDigitBits, U> D;
  typedef radix_bin_t<Off> Bin;
  cuda_state *st = cuda_of(ctx);
  cudaStream_t s = st->stream;
  const int tiles = tiles_of(n, P::NV);
  /* one block zeroed once: the histograms, the passes' tile counters, the
   * plan and the look-back words of every pass (tagged by pass) */
  const size_t counters_at = sizeof(Bin) * D::PASSES * D::RADIX;
  const size_t plan_at = counters_at + sizeof(int) * kRadixMaxPasses;
  const size_t status_at = (plan_at + sizeof(radix_plan) + 255) & ~(size_t)255;
  const size_t bytes =
      status_at + sizeof(unsigned long long) * (size_t)tiles * D::RADIX;
  /* Every temporary is taken before the first launch: if memory runs out,
   * the keys are untouched and the call can be retried. */
  cuda_scratch meta, tmp_keys, tmp_vals;
  MGPU_TRY(meta.take(ctx, bytes));
  MGPU_TRY(tmp_keys.take(ctx, sizeof(U) * (size_t)n));
  if (HAS_V) MGPU_TRY(tmp_vals.take(ctx, sizeof(V) * (size_t)n));
  char *m = meta.as<char>();
  Bin *bins = reinterpret_cast<Bin *>(m);
  radix_plan *plan = reinterpret_cast<radix_plan *>(m + plan_at);
  CUDA_TRY(ctx, cudaMemsetAsync(m, 0, bytes, s));

  const long long hist_tiles = (n + H::NT * H::VT - 1) / (H::NT * H::VT);
  /* a block counts in 32-bit shared counters: with a block per 2^31 keys
   * none counts more than 2^31 + 2 x NT x VT */
  const long long hist_cap =
      std::max((long long)st->sm_count * H::BLOCKS_PER_SM, (n >> 31) + 1);
  radix_histogram_kernel<H, U, Code, Bin>
      <<<(unsigned)(hist_tiles < hist_cap ? hist_tiles : hist_cap), H::NT, 0,
         s>>>(keys, n, code, bins, plan);
  CUDA_LAUNCHED(ctx, "radix histogram kernel");
  radix_scan_kernel<kRadixDigitBits, U, Bin><<<1, D::RADIX, 0, s>>>(bins, n, plan);
  CUDA_LAUNCHED(ctx, "radix scan kernel");

  radix_sweep_args<U, V, Off> g;
  g.keys = keys;
  g.tmp_keys = tmp_keys.as<U>();
  g.vals = vals;
  g.tmp_vals = tmp_vals.as<V>();
  g.n = n;
  g.bins = bins;
  g.plan = plan;
  g.status = reinterpret_cast<unsigned long long *>(m + status_at);
  g.tile_counter = reinterpret_cast<int *>(m + counters_at);
  auto sweep = radix_sweep_kernel<P, HAS_V, U, V, Code, Off>;
  const size_t smem = sizeof(sweep_smem<P, HAS_V, Off, U, V>);
  MGPU_TRY(allow_shared_memory(ctx, sweep, smem));
  for (int pass = 0; pass < D::PASSES; ++pass) {
    sweep<<<tiles, P::NT, smem, s>>>(g, pass, code);
    CUDA_LAUNCHED(ctx, "radix sweep kernel");
  }
  radix_copy_back_kernel<HAS_V, U, V>
      <<<stride_grid(ctx, (size_t)n), kStrideThreads, 0, s>>>(
          plan, g.tmp_keys, keys, g.tmp_vals, vals, n);
  CUDA_LAUNCHED(ctx, "radix copy-back kernel");
  return MGPU_OK;
}

/* The roomy tile where an SM holds the blocks it was tuned at (each
 * block also takes 1 KB the system reserves), the every-GPU one
 * elsewhere (block_room: the specs reach both). */
template <bool HAS_V, typename Off, typename U, typename V, typename Code>
mgpu_status radix_sort_tile(mgpu_context *ctx, U *keys, V *vals, long long n,
                            Code code) {
  constexpr int KB = sizeof(U), VB = HAS_V ? sizeof(V) : 0;
  typedef radix_sweep_policy<KB, VB> P;
  typedef radix_sweep_roomy_policy<KB, VB> R;
  static_assert(sizeof(sweep_smem<P, HAS_V, Off, U, V>) <= 48 * 1024,
                "the every-GPU tile fits 48 KB");
  if constexpr (R::NT != P::NT || R::VT != P::VT ||
                R::MIN_BLOCKS != P::MIN_BLOCKS) {
    constexpr size_t reserved = 1024;
    constexpr size_t bytes = sizeof(sweep_smem<R, HAS_V, Off, U, V>);
    if (R::MIN_BLOCKS * (bytes + reserved) <= block_room(ctx) + reserved)
      return radix_sort_run<R, HAS_V, Off>(ctx, keys, vals, n, code);
  }
  return radix_sort_run<P, HAS_V, Off>(ctx, keys, vals, n, code);
}

template <typename Off, typename U, typename Code>
mgpu_status radix_sort_values(mgpu_context *ctx, const mgpu_sort_args *a,
                              Code code) {
  U *keys = static_cast<U *>(a->keys);
  const long long n = (long long)a->n;
  switch (a->value_size) {
  case 0:
    return radix_sort_tile<false, Off, U, uint32_t>(
        ctx, keys, (uint32_t *)nullptr, n, code);
  case 4:
    return radix_sort_tile<true, Off, U, uint32_t>(
        ctx, keys, static_cast<uint32_t *>(a->vals), n, code);
  case 8:
    return radix_sort_tile<true, Off, U, uint64_t>(
        ctx, keys, static_cast<uint64_t *>(a->vals), n, code);
  }
  return mgpu_set_error(ctx, MGPU_EINVAL, "value size must be 0, 4 or 8");
}

/* The sweep's output places and the bucket counts are 32-bit below 2^31
 * keys (registers and shared memory as tuned) and 64-bit above: one
 * template parameter, chosen here. */
template <typename U, typename Code>
mgpu_status radix_sort_offsets(mgpu_context *ctx, const mgpu_sort_args *a,
                               Code code) {
  if (a->n <= (size_t)INT32_MAX)
    return radix_sort_values<int32_t, U>(ctx, a, code);
  return radix_sort_values<int64_t, U>(ctx, a, code);
}

} // namespace
} // namespace mgpu

extern "C" mgpu_status mgpu_cuda_sort(mgpu_context *ctx, mgpu_sort_args *a) {
  using namespace mgpu;
  MGPU_TRY(cuda_enter(ctx));
  const bool greater = a->order == MGPU_GREATER;
  switch (a->key_type) {
  case MGPU_I32:
  case MGPU_U32:
    return radix_sort_offsets<uint32_t>(
        ctx, a,
        radix_int_code<uint32_t>{sort_mask<uint32_t>(a->key_type, a->order)});
  case MGPU_I64:
  case MGPU_U64:
    return radix_sort_offsets<uint64_t>(
        ctx, a,
        radix_int_code<uint64_t>{sort_mask<uint64_t>(a->key_type, a->order)});
  case MGPU_F32:
    return radix_sort_offsets<uint32_t>(
        ctx, a, radix_float_code<uint32_t>{greater ? ~0u : 0u});
  case MGPU_F64:
    return radix_sort_offsets<uint64_t>(
        ctx, a, radix_float_code<uint64_t>{greater ? ~0ull : 0ull});
  default: break;
  }
  return mgpu_set_error(ctx, MGPU_EINVAL, "unknown key dtype");
}
