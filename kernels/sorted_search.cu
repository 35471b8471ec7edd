/*
 * sorted_search.cu - mgpu_sorted_search on the GPU: a merge of the needles
 * into the haystack (agent/search_tile.cuh), a partition launch for the
 * tiles' Merge Path points (mended by one small block where unsorted
 * inputs broke their order), then one block a tile.  A call of one tile
 * launches only its tile: no partition, no scratch.  Few needles in a long
 * haystack get a binary search each instead (agent/search_bisect.cuh).
 * Coordinates are long long at any count; the positions are written as
 * the call's pos dtype (Pos: int32_t or int64_t), one instance each.
 */
#include <stdint.h>

#include "agent/search_bisect.cuh"
#include "agent/search_tile.cuh"
#include "dispatch.cuh"
#include "launch.cuh"

namespace mgpu {
namespace {

constexpr int kSearchPartitionThreads = 128;
/* one block mends unsorted inputs' points (search_points_fix_kernel) */
constexpr int kSearchFixThreads = 1024;

/* Pos is the positions' type (search_tiles): the call's pos dtype, so
 * that a call whose positions fit int32 runs the code it was tuned with. */
template <typename K, typename Order, typename Pos>
mgpu_status sorted_search_run(mgpu_context *ctx, const mgpu_search_args *a,
                              Order order) {
  typedef typename search_policy<sizeof(K)>::tile P;
  cudaStream_t s = cuda_of(ctx)->stream;
  const long long n = (long long)a->n, m = (long long)a->m;
  const hay_first<K, Order> first = {order, a->right != 0};
  Pos *pos = (Pos *)a->pos;
  if (m / search_bisect_policy::MIN_RATIO >= n) {
    typedef search_bisect_policy B;
    search_bisect_kernel<K, hay_first<K, Order>, Pos>
        <<<grid_for((size_t)n, B::NT), B::NT, 0, s>>>(
            (const K *)a->needles, n, (const K *)a->haystack, m, a->base,
            pos, first);
    CUDA_LAUNCHED(ctx, "sorted_search bisect kernel");
    return MGPU_OK;
  }
  int tiles = 0;
  MGPU_TRY(checked_tiles(ctx, n + m, P::NV, &tiles, "sorted_search"));
  search_tiles<K, Pos> t = {(const K *)a->needles, n, (const K *)a->haystack,
                            m, nullptr, a->base, pos};
  cuda_scratch points;
  if (tiles > 1) {
    cuda_state *st = cuda_of(ctx);
    const unsigned long long ticket = ++st->tickets;
    /* the unsorted word, then the points */
    MGPU_TRY(points.take(ctx, sizeof(long long) * ((size_t)tiles + 2)));
    unsigned long long *unsorted = points.as<unsigned long long>();
    long long *pts = points.as<long long>() + 1;
    search_partition_kernel<K, hay_first<K, Order>>
        <<<grid_for((size_t)tiles + 1, kSearchPartitionThreads),
           kSearchPartitionThreads, 0, s>>>(t.needles, n, t.hay, m, P::NV,
                                            tiles + 1, pts, unsorted, ticket,
                                            first);
    CUDA_LAUNCHED(ctx, "sorted_search partition kernel");
    search_points_fix_kernel<<<1, kSearchFixThreads, 0, s>>>(
        pts, tiles + 1, P::NV, n + m, unsorted, ticket);
    CUDA_LAUNCHED(ctx, "sorted_search points fix kernel");
    t.points = pts;
  }
  search_kernel<P, K, hay_first<K, Order>, Pos><<<tiles, P::NT, 0, s>>>(t,
                                                                       first);
  CUDA_LAUNCHED(ctx, "sorted_search kernel");
  /* stream ordered: the launches above still own the block */
  points.release();
  return MGPU_OK;
}

template <typename K, typename Order>
mgpu_status sorted_search_typed(mgpu_context *ctx, mgpu_search_args *a,
                                Order order) {
  if (a->index_type == MGPU_I64)
    return sorted_search_run<K, Order, int64_t>(ctx, a, order);
  return sorted_search_run<K, Order, int32_t>(ctx, a, order);
}

} // namespace
} // namespace mgpu

extern "C" mgpu_status mgpu_cuda_sorted_search(mgpu_context *ctx,
                                               mgpu_search_args *a) {
  using namespace mgpu;
  /* integer keys as unsigned words of their width (bit_order) */
  const bool greater = a->order == MGPU_GREATER;
  switch (a->type) {
  case MGPU_I32:
  case MGPU_U32:
    return sorted_search_typed<uint32_t>(
        ctx, a, bit_order<uint32_t>{sort_mask<uint32_t>(a->type, a->order)});
  case MGPU_I64:
  case MGPU_U64:
    return sorted_search_typed<uint64_t>(
        ctx, a, bit_order<uint64_t>{sort_mask<uint64_t>(a->type, a->order)});
  case MGPU_F32: return sorted_search_typed<float>(ctx, a, key_order<float>{greater});
  case MGPU_F64: return sorted_search_typed<double>(ctx, a, key_order<double>{greater});
  default: break;
  }
  return mgpu_set_error(ctx, MGPU_EINVAL, "sorted_search: unknown dtype");
}
