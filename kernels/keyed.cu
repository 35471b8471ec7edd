/*
 * keyed.cu - segreduce, reduce_by_key and join on the GPU.
 *
 * segreduce: a partition kernel finds each tile's first and last segment,
 * then tiles of values (agent/segreduce_tile.cuh), load-balanced over the
 * values whatever the segment lengths, then one thread a segment
 * for the empty ones and for those crossing tiles (segreduce_fix_kernel).
 * reduce_by_key: one launch of tiles (agent/reduce_by_key_tile.cuh) that
 * flag run starts as unique does, reduce (runs, value) pairs within the
 * tile and across tiles by decoupled look-back, and store each run's first
 * key and value; the last tile writes the number of runs into the
 * context's pinned word with the call's ticket, and the host waits for
 * that word, not for the stream.
 * join: a's lower and upper bounds in b (sorted_search), a count per slot
 * (rows of one a key, after the b rows between it and the key before),
 * the counts' scan, then the rows, each finding its slot by bisection of
 * the scan between its block's first and last rows' slots; all in one
 * call, the caller's alloc_rows sizing the result between scan and rows.
 * Every index a kernel forms comes from a search result in [0, nb] or a
 * slot in [0, na], so unsorted inputs stay in bounds.
 */
#include <stdint.h>
#include <string.h>

#include "agent/reduce_by_key_tile.cuh"
#include "agent/segreduce_tile.cuh"
#include "block/reduce_ops.cuh"
#include "launch.cuh"
#include "policy/keyed.cuh"

namespace mgpu {
namespace {

template <typename P, typename T, typename Op>
__global__ void __launch_bounds__(P::NT, min_blocks_within_sm(P::NT, P::MIN_BLOCKS))
segreduce_tile_kernel(const T *vals, long long n, const int32_t *offsets,
                      long long m, const long long *tile_segs, T *out,
                      T *head_part, T *tail_part, Op op) {
  __shared__ segreduce_smem<P, T> sm;
  segreduce_tile<P>(vals, n, offsets, m, tile_segs, out, head_part, tail_part,
                    op, sm);
}

__global__ void segreduce_partition_kernel(const int32_t *offsets, long long m,
                                           long long n, int nv,
                                           long long tiles,
                                           long long *tile_segs) {
  GRID_STRIDE(i, (size_t)(2 * tiles))
  segreduce_partition(offsets, m, n, nv, (long long)i, tile_segs);
}

/* Segment i when empty (the identity) or crossing tiles: its tail part in
 * its first tile, the whole of the tiles between, its head part in its
 * last tile. */
template <typename T, typename Op>
__global__ void segreduce_fix_kernel(const int32_t *offsets, long long m,
                                     long long n, int nv, const T *head_part,
                                     const T *tail_part, T identity, T *out,
                                     Op op) {
  GRID_STRIDE(i, (size_t)m) {
    const long long s = seg_start(offsets, (long long)i, n);
    long long e = (long long)i + 1 < m ? seg_start(offsets, (long long)i + 1, n) : n;
    if (e <= s) {
      out[i] = identity;
      continue;
    }
    const long long ts = s / nv, te = (e - 1) / nv;
    if (ts == te) continue; /* written by its tile */
    T acc = tail_part[ts];
    for (long long t = ts + 1; t <= te; ++t) acc = op(acc, head_part[t]);
    out[i] = acc;
  }
}

template <typename T, typename Op>
mgpu_status segreduce_run(mgpu_context *ctx, const mgpu_segreduce_args *a,
                          T identity, Op op) {
  typedef typename segreduce_policy<sizeof(T)>::tile P;
  cudaStream_t s = cuda_of(ctx)->stream;
  const long long n = (long long)a->n, m = (long long)a->m;
  const int tiles = tiles_of(n, P::NV);
  cuda_scratch parts, segs;
  T *head = nullptr, *tail = nullptr;
  if (tiles > 0) {
    MGPU_TRY(parts.take(ctx, 2 * (size_t)tiles * sizeof(T)));
    MGPU_TRY(segs.take(ctx, 2 * (size_t)tiles * sizeof(long long)));
    head = parts.as<T>();
    tail = head + tiles;
    long long *tile_segs = segs.as<long long>();
    segreduce_partition_kernel<<<stride_grid(ctx, 2 * (size_t)tiles),
                                 kStrideThreads, 0, s>>>(
        a->offsets, m, n, P::NV, tiles, tile_segs);
    CUDA_LAUNCHED(ctx, "segreduce partition");
    segreduce_tile_kernel<P><<<tiles, P::NT, 0, s>>>(
        (const T *)a->vals, n, a->offsets, m, tile_segs, (T *)a->dst, head,
        tail, op);
    CUDA_LAUNCHED(ctx, "segreduce tiles");
  }
  segreduce_fix_kernel<<<stride_grid(ctx, a->m), kStrideThreads, 0, s>>>(
      a->offsets, m, n, P::NV, head, tail, identity, (T *)a->dst, op);
  CUDA_LAUNCHED(ctx, "segreduce segments");
  return MGPU_OK;
}

template <typename T>
mgpu_status segreduce_typed(mgpu_context *ctx, const mgpu_segreduce_args *a) {
  T identity;
  memcpy(&identity, a->identity, sizeof identity);
  switch (a->op) {
  case MGPU_REDUCE_ADD: return segreduce_run<T>(ctx, a, identity, reduce_add<T>());
  case MGPU_REDUCE_MIN: return segreduce_run<T>(ctx, a, identity, reduce_min<T>());
  case MGPU_REDUCE_MAX: return segreduce_run<T>(ctx, a, identity, reduce_max<T>());
  default: break;
  }
  return mgpu_set_error(ctx, MGPU_EINVAL, "segreduce: unknown reduction");
}

/* One reduce_by_key launch: a record a tile zeroed (none for one tile),
 * the tiles, the wait for the number of runs. */
template <typename U, typename T, typename Op>
mgpu_status reduce_by_key_run(mgpu_context *ctx, mgpu_reduce_by_key_args *a,
                              Op op) {
  typedef typename reduce_by_key_policy<sizeof(U), sizeof(T)>::tile P;
  cuda_state *st = cuda_of(ctx);
  cudaStream_t s = st->stream;
  const int tiles = tiles_of((long long)a->n, P::NV);
  a->count = 0;
  if (tiles == 0) return MGPU_OK;
  reduce_by_key_tiles<U, T> t = {};
  t.keys = (const U *)a->keys;
  t.vals = (const T *)a->vals;
  t.n = (long long)a->n;
  t.floats = a->key_type == MGPU_F32 || a->key_type == MGPU_F64;
  t.out_keys = (U *)a->out_keys;
  t.out_vals = (T *)a->out_vals;
  cuda_scratch recs;
  if (tiles > 1) {
    const size_t bytes = sizeof(value_tile_record) * (size_t)tiles;
    MGPU_TRY(recs.take(ctx, bytes));
    t.recs = recs.as<value_tile_record>();
    CUDA_TRY(ctx, cudaMemsetAsync(t.recs, 0, bytes, s));
  }
  t.word = st->word;
  t.ticket = ++st->tickets;
  reduce_by_key_kernel<P, U, T, Op><<<tiles, P::NT, 0, s>>>(t, op);
  CUDA_LAUNCHED(ctx, "reduce_by_key kernel");
  unsigned long long runs = 0;
  MGPU_TRY(wait_for_total(ctx, t.ticket, &runs, "reduce_by_key"));
  recs.release(); /* stream ordered: the tiles may still be storing */
  a->count = (size_t)runs;
  return MGPU_OK;
}

/* Values of type T; integer add wraps the same signed or not, so it runs
 * on the unsigned type of the width (A), min and max on T. */
template <typename U, typename T, typename A>
mgpu_status reduce_by_key_ops(mgpu_context *ctx, mgpu_reduce_by_key_args *a) {
  switch (a->op) {
  case MGPU_REDUCE_ADD: return reduce_by_key_run<U, A>(ctx, a, reduce_add<A>());
  case MGPU_REDUCE_MIN: return reduce_by_key_run<U, T>(ctx, a, reduce_min<T>());
  case MGPU_REDUCE_MAX: return reduce_by_key_run<U, T>(ctx, a, reduce_max<T>());
  default: break;
  }
  return mgpu_set_error(ctx, MGPU_EINVAL, "reduce_by_key: unknown reduction");
}

template <typename U>
mgpu_status reduce_by_key_values(mgpu_context *ctx, mgpu_reduce_by_key_args *a) {
  switch (a->val_type) {
  case MGPU_I32: return reduce_by_key_ops<U, int32_t, uint32_t>(ctx, a);
  case MGPU_U32: return reduce_by_key_ops<U, uint32_t, uint32_t>(ctx, a);
  case MGPU_I64: return reduce_by_key_ops<U, int64_t, uint64_t>(ctx, a);
  case MGPU_U64: return reduce_by_key_ops<U, uint64_t, uint64_t>(ctx, a);
  case MGPU_F32: return reduce_by_key_ops<U, float, float>(ctx, a);
  case MGPU_F64: return reduce_by_key_ops<U, double, double>(ctx, a);
  default: break;
  }
  return mgpu_set_error(ctx, MGPU_EINVAL, "reduce_by_key: unknown value dtype");
}

/* The join's slots (src/cpu/cpu_keyed.c says the same in loops): slot s
 * (0 <= s <= na) holds the b rows between a[s - 1] and a[s], when right
 * ones are kept, then a[s]'s matches b[lo_s, hi_s) or, for left ones, a
 * row of its own.  hi is read as at least lo, as the cpu backend does. */
struct join_slots {
  const int32_t *lo, *hi;
  long long na, nb;
  bool left, right;

  __device__ __forceinline__ long long lo_of(long long s) const {
    return s < na ? (long long)lo[s] : nb;
  }
  __device__ __forceinline__ long long hi_of(long long s) const {
    if (s >= na) return nb;
    const long long l = lo[s], h = hi[s];
    return h > l ? h : l;
  }
  /* the first b row of slot s's gap, and the gap's length */
  __device__ __forceinline__ long long gap_start(long long s) const {
    return s > 0 ? hi_of(s - 1) : 0;
  }
  __device__ __forceinline__ long long gap(long long s) const {
    const long long g = lo_of(s) - gap_start(s);
    return right && g > 0 ? g : 0;
  }
  __device__ __forceinline__ long long matches(long long s) const {
    if (s >= na) return 0;
    const long long k = hi_of(s) - lo_of(s);
    return k > 0 ? k : (left ? 1 : 0);
  }
};

__global__ void join_counts_kernel(join_slots js, long long *counts) {
  GRID_STRIDE(s, (size_t)js.na + 1) {
    counts[s] = js.gap((long long)s) + js.matches((long long)s);
  }
}

/* The last slot of [lo, hi) whose rows start at or before r (lo when
 * none): the scan never decreases, the counts being at least 0. */
__device__ __forceinline__ long long slot_of(const int32_t *scan, long long lo,
                                             long long hi, long long r) {
  const long long first = lo;
  while (lo < hi) {
    const long long mid = lo + (hi - lo) / 2;
    if ((long long)(uint32_t)scan[mid] <= r)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo > first ? lo - 1 : first;
}

/* A block's rows are consecutive: two searches of the whole scan give the
 * slots of its first and last rows, and each row searches only between. */
__global__ void __launch_bounds__(join_policy::NT)
join_rows_kernel(join_slots js, const int32_t *scan, long long total,
                 int32_t base, int32_t *ia, int32_t *ib) {
  constexpr int NT = join_policy::NT, ROWS = join_policy::ROWS;
  __shared__ long long ends[2];
  const long long r0 = (long long)blockIdx.x * NT * ROWS;
  const long long r1 = total - r0 < NT * ROWS ? total : r0 + NT * ROWS;
  if (threadIdx.x == 0) ends[0] = slot_of(scan, 0, js.na + 1, r0);
  if (threadIdx.x == NT - 1) ends[1] = slot_of(scan, 0, js.na + 1, r1 - 1);
  __syncthreads();
  const long long s0 = ends[0], s1 = ends[1] > s0 ? ends[1] : s0;
  for (int i = 0; i < ROWS; ++i) {
    const long long r = r0 + threadIdx.x + (long long)i * NT;
    if (r >= r1) break;
    const long long s = slot_of(scan, s0, s1 + 1, r);
    long long rank = r - (long long)(uint32_t)scan[s];
    const long long gap = js.gap(s);
    if (rank < gap) {
      ia[r] = base - 1;
      ib[r] = base + (int32_t)(js.gap_start(s) + rank);
      continue;
    }
    rank -= gap;
    const long long l = js.lo_of(s), h = js.hi_of(s);
    ia[r] = base + (int32_t)s;
    if (s < js.na && h > l) {
      const long long j = l + rank < h ? l + rank : h - 1;
      ib[r] = base + (int32_t)j;
    } else {
      ib[r] = base - 1;
    }
  }
}

} // namespace
} // namespace mgpu

extern "C" {

mgpu_status mgpu_cuda_segreduce(mgpu_context *ctx, mgpu_segreduce_args *a) {
  using namespace mgpu;
  MGPU_TRY(cuda_enter(ctx));
  switch (a->type) {
  case MGPU_I32: return segreduce_typed<int32_t>(ctx, a);
  case MGPU_U32: return segreduce_typed<uint32_t>(ctx, a);
  case MGPU_I64: return segreduce_typed<int64_t>(ctx, a);
  case MGPU_U64: return segreduce_typed<uint64_t>(ctx, a);
  case MGPU_F32: return segreduce_typed<float>(ctx, a);
  case MGPU_F64: return segreduce_typed<double>(ctx, a);
  default: break;
  }
  return mgpu_set_error(ctx, MGPU_EINVAL, "segreduce: unknown dtype");
}

mgpu_status mgpu_cuda_reduce_by_key(mgpu_context *ctx,
                                    mgpu_reduce_by_key_args *a) {
  using namespace mgpu;
  MGPU_TRY(cuda_enter(ctx));
  /* keys are compared by their class (run_class): one instance a width */
  switch (a->key_type) {
  case MGPU_I32:
  case MGPU_U32:
  case MGPU_F32: return reduce_by_key_values<uint32_t>(ctx, a);
  case MGPU_I64:
  case MGPU_U64:
  case MGPU_F64: return reduce_by_key_values<uint64_t>(ctx, a);
  default: break;
  }
  return mgpu_set_error(ctx, MGPU_EINVAL, "reduce_by_key: unknown key dtype");
}

mgpu_status mgpu_cuda_join(mgpu_context *ctx, mgpu_join_args *a) {
  using namespace mgpu;
  MGPU_TRY(cuda_enter(ctx));
  cudaStream_t st = cuda_of(ctx)->stream;
  const size_t na = a->na, slots = na + 1;
  cuda_scratch bounds, counts, scan;
  MGPU_TRY(bounds.take(ctx, 2 * (na ? na : 1) * sizeof(int32_t)));
  MGPU_TRY(counts.take(ctx, slots * sizeof(long long)));
  MGPU_TRY(scan.take(ctx, slots * sizeof(int32_t)));
  int32_t *lo = bounds.as<int32_t>(), *hi = lo + na;
  if (na > 0) {
    mgpu_search_args q = {a->type, a->order, a->a, na, a->b, a->nb, 0, 0, lo,
                          MGPU_I32};
    MGPU_TRY(mgpu_cuda_sorted_search(ctx, &q));
    q.right = 1;
    q.pos = hi;
    MGPU_TRY(mgpu_cuda_sorted_search(ctx, &q));
  }
  join_slots js = {lo, hi, (long long)na, (long long)a->nb,
                   a->kind == MGPU_JOIN_LEFT || a->kind == MGPU_JOIN_OUTER,
                   a->kind == MGPU_JOIN_RIGHT || a->kind == MGPU_JOIN_OUTER};
  join_counts_kernel<<<stride_grid(ctx, slots), kStrideThreads, 0, st>>>(
      js, counts.as<long long>());
  CUDA_LAUNCHED(ctx, "join counts");
  mgpu_scan_args sa = {counts.ptr, MGPU_I64, slots, scan.as<int32_t>(), 0, -1, 0,
                      MGPU_I32};
  MGPU_TRY(mgpu_cuda_scan_counts(ctx, &sa));
  a->count = (uint64_t)sa.total;
  /* the scan has read them: the result may have their room */
  counts.release();
  if (a->alloc_rows) MGPU_TRY(a->alloc_rows(ctx, a));
  if (!a->ia || a->count == 0 || a->count > a->capacity) return MGPU_OK;
  const long long total = (long long)a->count;
  join_rows_kernel<<<grid_for((size_t)total, join_policy::NT * join_policy::ROWS),
                     join_policy::NT, 0, st>>>(
      js, scan.as<int32_t>(), total, a->base, a->ia, a->ib);
  CUDA_LAUNCHED(ctx, "join rows");
  return MGPU_OK;
}

} // extern "C"
