/*
 * select.cu - mgpu_unique and mgpu_compact on the GPU: one launch of
 * compaction tiles (agent/select_tile.cuh) that reads the inputs once,
 * writes the outputs once and learns each tile's place by decoupled
 * look-back.  The last tile writes the number kept into the context's
 * pinned words with the call's ticket; the host waits for them, not for
 * the stream.  Calls of up to INT32_MAX keys run the kernels' 32-bit
 * instances, longer ones (and unique with i64 counts) the 64-bit ones,
 * whose run starts, counts and total are 64-bit (dispatch_offset).
 * unique's run lengths come from each run's first index, which the tiles
 * write beside the keys: a run may cross any number of tiles, and its
 * length is known only once the next run's start is, so a small launch of
 * one thread a run takes the differences, queued once the number of runs
 * is known.
 */
#include <stdint.h>

#include "agent/select_tile.cuh"
#include "dispatch.cuh"
#include "launch.cuh"

namespace mgpu {
namespace {

/* counts[j] = the length of run j of `runs`, from the runs' first indices
 * (select_kernel's starts) and n; Off is the type of both (i64 counts go
 * with the 64-bit instance, i32 ones with the 32-bit one: unique_launch). */
template <typename Off>
__global__ void run_lengths_kernel(const Off *starts, long long runs,
                                   long long n, Off *counts) {
  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
       j < runs; j += (long long)gridDim.x * blockDim.x) {
    const long long end = j + 1 < runs ? (long long)starts[j + 1] : n;
    counts[j] = (Off)(end - starts[j]);
  }
}

/* One compaction launch: the look-back words zeroed in a scratch block
 * (with room for unique's run starts after them), the tiles, the wait for
 * the total.  A call of one tile has no look-back words. */
template <typename P, bool UNIQUE, bool HAS_V, typename K, typename V,
          typename F, typename Off>
mgpu_status select_run(mgpu_context *ctx, select_tiles<K, V, F, Off> t,
                       Off *counts, size_t *count) {
  cuda_state *st = cuda_of(ctx);
  cudaStream_t s = st->stream;
  int tiles = 0;
  MGPU_TRY(checked_tiles(ctx, t.n, P::NV, &tiles,
                         UNIQUE ? "unique" : "compact"));
  const int groups = (tiles + 31) / 32;
  const size_t status_bytes =
      tiles > 1 ? (size_t)tile_words_bytes((long long)tiles + 2 * groups) : 0;
  const size_t starts_at = (status_bytes + 255) & ~(size_t)255;
  const size_t bytes =
      starts_at + (counts ? sizeof(Off) * (size_t)t.n : 0);
  cuda_scratch scratch;
  if (bytes) {
    MGPU_TRY(scratch.take(ctx, bytes));
    char *base = scratch.as<char>();
    if (tiles > 1) {
      t.status = (unsigned long long *)base;
      t.gstatus = tile_word(t.status, tiles);
      t.gsum = tile_word(t.gstatus, groups);
      CUDA_TRY(ctx, cudaMemsetAsync(base, 0, status_bytes, s));
    }
    if (counts) t.starts = (Off *)(base + starts_at);
  }
  t.word = st->word;
  t.ticket = ++st->tickets;
  select_kernel<P, UNIQUE, HAS_V, K, V, F, Off><<<tiles, P::NT, 0, s>>>(t);
  CUDA_LAUNCHED(ctx, UNIQUE ? "unique kernel" : "compact kernel");
  unsigned long long kept = 0;
  const char *what = UNIQUE ? "unique" : "compact";
  if (sizeof(Off) == 4) MGPU_TRY(wait_for_total(ctx, t.ticket, &kept, what));
  else MGPU_TRY(wait_for_value(ctx, t.ticket, &kept, what));
  if (counts && kept) {
    run_lengths_kernel<Off><<<stride_grid(ctx, kept), kStrideThreads, 0, s>>>(
        t.starts, (long long)kept, t.n, counts);
    CUDA_LAUNCHED(ctx, "unique run lengths kernel");
  }
  /* stream ordered: the launches above still own the block */
  scratch.release();
  *count = (size_t)kept;
  return MGPU_OK;
}

/* what dispatch_keyed hands to unique_launch::run (a const pointer) */
struct unique_call {
  mgpu_unique_args *args;
};

template <typename K, int VB> struct unique_launch {
  typedef value_t<VB> V;
  typedef typename unique_policy<sizeof(K)>::tile P;
  /* Off by n; i64 counts take the 64-bit instance at any n (the C API
   * asks for them past INT32_MAX), so that each instance writes counts of
   * its own width. */
  template <typename Comp>
  static mgpu_status run(mgpu_context *ctx, const unique_call *c, Comp) {
    mgpu_unique_args *a = c->args;
    const bool wide_counts = a->counts && a->index_type == MGPU_I64;
    return dispatch_offset(wide_counts ? SIZE_MAX : a->n, [&](auto off) {
      typedef decltype(off) Off;
      select_tiles<K, V, int, Off> t = {};
      t.keys = (const K *)a->keys;
      t.vals = (const V *)a->vals;
      t.n = (long long)a->n;
      t.out_keys = (K *)a->out_keys;
      t.out_vals = (V *)a->out_vals;
      return select_run<P, true, VB != 0>(ctx, t, (Off *)a->counts,
                                          &a->count);
    });
  }
};

template <typename K> mgpu_status unique_typed(mgpu_context *ctx, mgpu_unique_args *a) {
  /* runs compare by ascending<K> whatever the order the keys were sorted
   * in: equivalence does not depend on it */
  const unique_call c = {a};
  return dispatch_keyed<K, unique_launch>(ctx, a->value_size, MGPU_LESS, &c);
}

template <typename F, typename W, int VB>
mgpu_status compact_words(mgpu_context *ctx, mgpu_compact_args *a) {
  typedef value_t<VB> V;
  typedef typename select_policy<sizeof(W)>::tile P;
  return dispatch_offset(a->n, [&](auto off) {
    typedef decltype(off) Off;
    select_tiles<W, V, F, Off> t = {};
    t.keys = (const W *)a->data;
    t.vals = (const V *)a->vals;
    t.flags = (const F *)a->flags;
    t.n = (long long)a->n;
    t.out_keys = (W *)a->out;
    t.out_vals = (V *)a->out_vals;
    return select_run<P, false, VB != 0>(ctx, t, (Off *)nullptr, &a->count);
  });
}

template <typename F, typename W>
mgpu_status compact_width(mgpu_context *ctx, mgpu_compact_args *a) {
  switch (a->value_size) {
  case 0: return compact_words<F, W, 0>(ctx, a);
  case 4: return compact_words<F, W, 4>(ctx, a);
  case 8: return compact_words<F, W, 8>(ctx, a);
  }
  return mgpu_set_error(ctx, MGPU_EINVAL, "compact: value size must be 0, 4 or 8");
}

template <typename F>
mgpu_status compact_typed(mgpu_context *ctx, mgpu_compact_args *a) {
  switch (a->width) {
  case 4: return compact_width<F, uint32_t>(ctx, a);
  case 8: return compact_width<F, uint64_t>(ctx, a);
  }
  return mgpu_set_error(ctx, MGPU_EINVAL, "compact: width must be 4 or 8");
}

} // namespace
} // namespace mgpu

extern "C" {

mgpu_status mgpu_cuda_unique(mgpu_context *ctx, mgpu_unique_args *a) {
  using namespace mgpu;
  /* integer keys are equal when their bits are: one instance a width */
  switch (a->type) {
  case MGPU_I32:
  case MGPU_U32: return unique_typed<uint32_t>(ctx, a);
  case MGPU_I64:
  case MGPU_U64: return unique_typed<uint64_t>(ctx, a);
  case MGPU_F32: return unique_typed<float>(ctx, a);
  case MGPU_F64: return unique_typed<double>(ctx, a);
  default: break;
  }
  return mgpu_set_error(ctx, MGPU_EINVAL, "unique: unknown dtype");
}

mgpu_status mgpu_cuda_compact(mgpu_context *ctx, mgpu_compact_args *a) {
  using namespace mgpu;
  /* a flag is non-zero whatever its sign: one instance a width */
  switch (a->flag_type) {
  case MGPU_I32:
  case MGPU_U32: return compact_typed<uint32_t>(ctx, a);
  case MGPU_I64:
  case MGPU_U64: return compact_typed<uint64_t>(ctx, a);
  default: break;
  }
  return mgpu_set_error(ctx, MGPU_EINVAL, "compact: flags must be integers");
}

} // extern "C"
