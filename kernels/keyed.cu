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
 *
 * Counts past 2^31 - 1: positions and tile starts are long long in every
 * instance; each call has a 64-bit instance for what would not fit 32
 * bits (docs/WIDE.md): segreduce's offsets read as their dtype, the runs
 * of reduce_by_key past 2^31 items (counted in 64 bits in the look-back
 * and handed over with publish_value), the join's bounds and scan past
 * INT32_MAX or for i64 ia and ib.  Small calls keep the 32-bit code.
 */
#include <stdint.h>
#include <string.h>

#include "agent/reduce_by_key_tile.cuh"
#include "agent/segreduce_tile.cuh"
#include "block/reduce_ops.cuh"
#include "dispatch.cuh"
#include "launch.cuh"
#include "policy/keyed.cuh"

namespace mgpu {
namespace {

/* Off: the offsets' element type (segreduce_tile.cuh) */
template <typename P, typename T, typename Off, typename Op>
__global__ void __launch_bounds__(P::NT, min_blocks_within_sm(P::NT, P::MIN_BLOCKS))
segreduce_tile_kernel(const T *vals, long long n, const Off *offsets,
                      long long m, const long long *tile_segs, T *out,
                      T *head_part, T *tail_part, Op op) {
  __shared__ segreduce_smem<P, T> sm;
  segreduce_tile<P>(vals, n, offsets, m, tile_segs, out, head_part, tail_part,
                    op, sm);
}

template <typename Off>
__global__ void segreduce_partition_kernel(const Off *offsets, long long m,
                                           long long n, int nv,
                                           long long tiles,
                                           long long *tile_segs) {
  GRID_STRIDE(i, (size_t)(2 * tiles))
  segreduce_partition(offsets, m, n, nv, (long long)i, tile_segs);
}

/* Segment i when empty (the identity) or crossing tiles: its tail part in
 * its first tile, the whole of the tiles between, its head part in its
 * last tile. */
template <typename T, typename Off, typename Op>
__global__ void segreduce_fix_kernel(const Off *offsets, long long m,
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

template <typename T, typename Off, typename Op>
mgpu_status segreduce_run(mgpu_context *ctx, const mgpu_segreduce_args *a,
                          T identity, Op op) {
  typedef typename segreduce_policy<sizeof(T)>::tile P;
  cudaStream_t s = cuda_of(ctx)->stream;
  const long long n = (long long)a->n, m = (long long)a->m;
  const Off *offsets = (const Off *)a->offsets;
  int tiles = 0;
  MGPU_TRY(checked_tiles(ctx, n, P::NV, &tiles, "segreduce"));
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
        offsets, m, n, P::NV, tiles, tile_segs);
    CUDA_LAUNCHED(ctx, "segreduce partition");
    segreduce_tile_kernel<P><<<tiles, P::NT, 0, s>>>(
        (const T *)a->vals, n, offsets, m, tile_segs, (T *)a->dst, head,
        tail, op);
    CUDA_LAUNCHED(ctx, "segreduce tiles");
  }
  segreduce_fix_kernel<<<stride_grid(ctx, a->m), kStrideThreads, 0, s>>>(
      offsets, m, n, P::NV, head, tail, identity, (T *)a->dst, op);
  CUDA_LAUNCHED(ctx, "segreduce segments");
  return MGPU_OK;
}

/* The offsets as their dtype: i32 ones (values below 2^31, whatever n)
 * keep the code they were tuned with. */
template <typename T, typename Op>
mgpu_status segreduce_offsets(mgpu_context *ctx, const mgpu_segreduce_args *a,
                              T identity, Op op) {
  if (a->index_type == MGPU_I64)
    return segreduce_run<T, int64_t>(ctx, a, identity, op);
  return segreduce_run<T, int32_t>(ctx, a, identity, op);
}

template <typename T>
mgpu_status segreduce_typed(mgpu_context *ctx, const mgpu_segreduce_args *a) {
  T identity;
  memcpy(&identity, a->identity, sizeof identity);
  switch (a->op) {
  case MGPU_REDUCE_ADD: return segreduce_offsets<T>(ctx, a, identity, reduce_add<T>());
  case MGPU_REDUCE_MIN: return segreduce_offsets<T>(ctx, a, identity, reduce_min<T>());
  case MGPU_REDUCE_MAX: return segreduce_offsets<T>(ctx, a, identity, reduce_max<T>());
  default: break;
  }
  return mgpu_set_error(ctx, MGPU_EINVAL, "segreduce: unknown reduction");
}

/* One reduce_by_key launch: a record a tile zeroed (none for one tile),
 * the tiles, the wait for the number of runs.  Off (dispatch_offset on n)
 * is the width of the runs' counts: past 2^32 - 1 of them need the
 * 64-bit instance's look-back records and publish_value. */
template <typename U, typename T, typename Op>
mgpu_status reduce_by_key_run(mgpu_context *ctx, mgpu_reduce_by_key_args *a,
                              Op op) {
  typedef typename reduce_by_key_policy<sizeof(U), sizeof(T)>::tile P;
  cuda_state *st = cuda_of(ctx);
  cudaStream_t s = st->stream;
  a->count = 0;
  int tiles = 0;
  MGPU_TRY(checked_tiles(ctx, (long long)a->n, P::NV, &tiles,
                         "reduce_by_key"));
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
  unsigned long long runs = 0;
  MGPU_TRY(dispatch_offset(a->n, [&](auto off) -> mgpu_status {
    typedef decltype(off) Off;
    reduce_by_key_kernel<P, U, T, Off, Op><<<tiles, P::NT, 0, s>>>(t, op);
    CUDA_LAUNCHED(ctx, "reduce_by_key kernel");
    if constexpr (sizeof(Off) == 4)
      return wait_for_total(ctx, t.ticket, &runs, "reduce_by_key");
    else
      return wait_for_value(ctx, t.ticket, &runs, "reduce_by_key");
  }));
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
 * row of its own.  hi is read as at least lo, as the cpu backend does.
 * Off is the join's offset type (mgpu_cuda_join): the bounds' and the
 * scan's element, int32_t while every bound (at most nb) and slot (at
 * most na) fits it, int64_t past that or for i64 ia and ib. */
template <typename Off> struct join_slots {
  const Off *lo, *hi;
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

template <typename Off>
__global__ void join_counts_kernel(join_slots<Off> js, long long *counts) {
  GRID_STRIDE(s, (size_t)js.na + 1) {
    counts[s] = js.gap((long long)s) + js.matches((long long)s);
  }
}

/* Row r's first place in the scan: an int32 scan (Off = int32_t) is read
 * unsigned, an int64 one as it is. */
__device__ __forceinline__ long long scan_at(const int32_t *scan, long long i) {
  return (long long)(uint32_t)scan[i];
}
__device__ __forceinline__ long long scan_at(const int64_t *scan, long long i) {
  return (long long)scan[i];
}

/* The last slot of [lo, hi) whose rows start at or before r (lo when
 * none): the scan never decreases, the counts being at least 0. */
template <typename Off>
__device__ __forceinline__ long long slot_of(const Off *scan, long long lo,
                                             long long hi, long long r) {
  const long long first = lo;
  while (lo < hi) {
    const long long mid = lo + (hi - lo) / 2;
    if (scan_at(scan, mid) <= r)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo > first ? lo - 1 : first;
}

/* Row r's index v into ia or ib: the 32-bit instance writes int32 (its
 * arrays are i32); the 64-bit one writes the arrays' dtype t, i32 ones
 * where the rule allows them (nb = 2^31 with base 0: bounds past int32,
 * indices within it). */
template <typename Off>
__device__ __forceinline__ void put_row(int32_t *p, mgpu_dtype t, long long r,
                                        Off v) {
  if constexpr (sizeof(Off) == 4) p[r] = v;
  else if (t == MGPU_I64) ((int64_t *)p)[r] = v;
  else p[r] = (int32_t)v;
}

/* A block's rows are consecutive: two searches of the whole scan give the
 * slots of its first and last rows, and each row searches only between. */
template <typename Off>
__global__ void __launch_bounds__(join_policy::NT)
join_rows_kernel(join_slots<Off> js, const Off *scan, long long total,
                 int32_t base, int32_t *ia, int32_t *ib, mgpu_dtype t) {
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
    long long rank = r - scan_at(scan, s);
    const long long gap = js.gap(s);
    if (rank < gap) {
      put_row<Off>(ia, t, r, (Off)(base - 1));
      put_row<Off>(ib, t, r, (Off)(base + (Off)(js.gap_start(s) + rank)));
      continue;
    }
    rank -= gap;
    const long long l = js.lo_of(s), h = js.hi_of(s);
    put_row<Off>(ia, t, r, (Off)(base + (Off)s));
    if (s < js.na && h > l) {
      const long long j = l + rank < h ? l + rank : h - 1;
      put_row<Off>(ib, t, r, (Off)(base + (Off)j));
    } else {
      put_row<Off>(ib, t, r, (Off)(base - 1));
    }
  }
}

/* One join in offset type Off: bounds by sorted_search (pos of Off's
 * dtype), the counts, their scan (int32 or int64), the rows. */
template <typename Off>
mgpu_status join_run(mgpu_context *ctx, mgpu_join_args *a) {
  constexpr mgpu_dtype OFF_TYPE = sizeof(Off) == 4 ? MGPU_I32 : MGPU_I64;
  cudaStream_t st = cuda_of(ctx)->stream;
  const size_t na = a->na, slots = na + 1;
  cuda_scratch bounds, counts, scan;
  MGPU_TRY(bounds.take(ctx, 2 * (na ? na : 1) * sizeof(Off)));
  MGPU_TRY(counts.take(ctx, slots * sizeof(long long)));
  MGPU_TRY(scan.take(ctx, slots * sizeof(Off)));
  Off *lo = bounds.as<Off>(), *hi = lo + na;
  if (na > 0) {
    mgpu_search_args q = {a->type, a->order, a->a,    na,
                          a->b,    a->nb,    0,       0,
                          (int32_t *)lo,     OFF_TYPE};
    MGPU_TRY(mgpu_cuda_sorted_search(ctx, &q));
    q.right = 1;
    q.pos = (int32_t *)hi;
    MGPU_TRY(mgpu_cuda_sorted_search(ctx, &q));
  }
  join_slots<Off> js = {lo, hi, (long long)na, (long long)a->nb,
                        a->kind == MGPU_JOIN_LEFT || a->kind == MGPU_JOIN_OUTER,
                        a->kind == MGPU_JOIN_RIGHT || a->kind == MGPU_JOIN_OUTER};
  join_counts_kernel<<<stride_grid(ctx, slots), kStrideThreads, 0, st>>>(
      js, counts.as<long long>());
  CUDA_LAUNCHED(ctx, "join counts");
  mgpu_scan_args sa = {counts.ptr, MGPU_I64, slots, scan.as<int32_t>(), 0, -1, 0,
                       OFF_TYPE, {}, 0};
  MGPU_TRY(mgpu_cuda_scan_counts(ctx, &sa));
  a->count = (uint64_t)sa.total;
  /* the scan has read them: the result may have their room */
  counts.release();
  if (a->alloc_rows) MGPU_TRY(a->alloc_rows(ctx, a));
  if (!a->ia || a->count == 0 || a->count > a->capacity) return MGPU_OK;
  const long long total = (long long)a->count;
  join_rows_kernel<Off>
      <<<grid_for((size_t)total, join_policy::NT * join_policy::ROWS),
         join_policy::NT, 0, st>>>(js, scan.as<Off>(), total, a->base,
                                   (int32_t *)a->ia, (int32_t *)a->ib,
                                   a->index_type);
  CUDA_LAUNCHED(ctx, "join rows");
  return MGPU_OK;
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
  /* the largest bound is nb, the largest slot na; i64 ia and ib take the
   * 64-bit instance at any size, which writes either dtype */
  size_t largest = a->na > a->nb ? a->na : a->nb;
  if (a->index_type == MGPU_I64) largest = SIZE_MAX;
  return dispatch_offset(largest, [&](auto off) {
    return join_run<decltype(off)>(ctx, a);
  });
}

} // extern "C"
