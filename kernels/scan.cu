/*
 * scan.cu - mgpu_scan and mgpu_reduce on the GPU.  scan: one launch of
 * scan tiles (agent/scan_tile.cuh) that learn their prefixes by decoupled
 * look-back; reduce: one launch of blocks that fold tiles into partials,
 * the last to finish reducing those (agent/reduce_tile.cuh).  Either
 * kernel writes its result beside the call's ticket in the context's
 * pinned words, and the host waits for that word, not for the stream.
 * sorted_search is in sorted_search.cu, unique and compact in select.cu.
 */
#include <stdint.h>

#include <type_traits>

#include "agent/reduce_tile.cuh"
#include "agent/scan_tile.cuh"
#include "launch.cuh"

namespace mgpu {
namespace {

template <typename T> mgpu_scalar scalar_of(T v) {
  mgpu_scalar s;
  if constexpr (std::is_floating_point<T>::value)
    s.f = (double)v;
  else
    s.i = (int64_t)v;
  return s;
}

bool aligned16(const void *p) { return ((uintptr_t)p & 15) == 0; }

template <typename T, typename Op>
mgpu_status scan_with(mgpu_context *ctx, mgpu_reduce_args *a, Op op) {
  typedef scan_policy<sizeof(T)> P;
  cuda_state *st = cuda_of(ctx);
  cudaStream_t s = st->stream;
  int tiles = 0;
  MGPU_TRY(checked_tiles(ctx, (long long)a->n, P::NV, &tiles, "a scan"));
  scan_tiles<T> t = {};
  t.src = (const T *)a->src;
  t.dst = (T *)a->dst;
  t.n = (long long)a->n;
  t.inclusive = a->inclusive != 0;
  t.aligned = aligned16(a->src) && aligned16(a->dst);
  cuda_scratch recs;
  if (tiles > 1) {
    const size_t bytes = sizeof(value_tile_record) * (size_t)tiles;
    MGPU_TRY(recs.take(ctx, bytes));
    t.recs = recs.as<value_tile_record>();
    CUDA_TRY(ctx, cudaMemsetAsync(t.recs, 0, bytes, s));
  }
  t.word = st->word;
  t.ticket = ++st->tickets;
  scan_kernel<P, T, Op><<<tiles, P::NT, 0, s>>>(t, op);
  CUDA_LAUNCHED(ctx, "scan kernel");
  unsigned long long total = 0;
  MGPU_TRY(wait_for_value(ctx, t.ticket, &total, "scan"));
  recs.release(); /* stream ordered: the tiles may still be storing */
  a->total = scalar_of(value_of_bits<T>(total));
  return MGPU_OK;
}

template <typename T, typename Op>
mgpu_status reduce_with(mgpu_context *ctx, mgpu_reduce_args *a, Op op) {
  typedef reduce_policy<sizeof(T)> P;
  constexpr auto kernel = reduce_kernel<P, T, Op>;
  cuda_state *st = cuda_of(ctx);
  cudaStream_t s = st->stream;
  long long resident = 0;
  MGPU_TRY(resident_blocks<kernel>(ctx, P::NT, 0, &resident));
  /* any count: the blocks stride over the tiles */
  const long long tiles = ((long long)a->n + P::NV - 1) / P::NV;
  const int blocks = (int)(resident > 0 && resident < tiles ? resident : tiles);
  /* the counter, then one partial a block */
  cuda_scratch scratch;
  MGPU_TRY(scratch.take(ctx, 8 + 8 * (size_t)blocks));
  reduce_tiles<T> t = {};
  t.src = (const T *)a->src;
  t.n = (long long)a->n;
  t.aligned = aligned16(a->src);
  t.done = scratch.as<unsigned>();
  t.partials = scratch.as<unsigned long long>() + 1;
  t.word = st->word;
  t.ticket = ++st->tickets;
  CUDA_TRY(ctx, cudaMemsetAsync(t.done, 0, sizeof(unsigned), s));
  kernel<<<blocks, P::NT, 0, s>>>(t, op);
  CUDA_LAUNCHED(ctx, "reduce kernel");
  unsigned long long value = 0;
  MGPU_TRY(wait_for_value(ctx, t.ticket, &value, "reduce"));
  scratch.release();
  a->total = scalar_of(value_of_bits<T>(value));
  return MGPU_OK;
}

template <typename T>
mgpu_status reduce_typed(mgpu_context *ctx, mgpu_reduce_args *a, bool scan) {
  switch (a->op) {
  case MGPU_REDUCE_ADD:
    return scan ? scan_with<T>(ctx, a, reduce_add<T>())
                : reduce_with<T>(ctx, a, reduce_add<T>());
  case MGPU_REDUCE_MIN:
    return scan ? scan_with<T>(ctx, a, reduce_min<T>())
                : reduce_with<T>(ctx, a, reduce_min<T>());
  case MGPU_REDUCE_MAX:
    return scan ? scan_with<T>(ctx, a, reduce_max<T>())
                : reduce_with<T>(ctx, a, reduce_max<T>());
  }
  return mgpu_set_error(ctx, MGPU_EINVAL, "unknown reduction");
}

mgpu_status reduce_any(mgpu_context *ctx, mgpu_reduce_args *a, bool scan) {
  switch (a->type) {
  case MGPU_I32: return reduce_typed<int32_t>(ctx, a, scan);
  case MGPU_U32: return reduce_typed<uint32_t>(ctx, a, scan);
  case MGPU_I64: return reduce_typed<int64_t>(ctx, a, scan);
  case MGPU_U64: return reduce_typed<uint64_t>(ctx, a, scan);
  case MGPU_F32: return reduce_typed<float>(ctx, a, scan);
  case MGPU_F64: return reduce_typed<double>(ctx, a, scan);
  default: break;
  }
  return mgpu_set_error(ctx, MGPU_EINVAL, "unknown dtype");
}

} // namespace
} // namespace mgpu

extern "C" {

mgpu_status mgpu_cuda_scan(mgpu_context *ctx, mgpu_reduce_args *a) {
  return mgpu::reduce_any(ctx, a, true);
}

mgpu_status mgpu_cuda_reduce(mgpu_context *ctx, mgpu_reduce_args *a) {
  return mgpu::reduce_any(ctx, a, false);
}

} // extern "C"
