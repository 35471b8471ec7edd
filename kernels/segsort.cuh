/*
 * segsort.cuh - mgpu_segsort and mgpu_locality_sort on the GPU: a
 * blocksort, then global merge passes that exit early where there is
 * nothing to merge.
 *
 * When every window that the passes would have to merge is short (the
 * segment straddling each blocksort tile boundary, or the out-of-order keys
 * around it), one launch merges those windows in place instead of any pass
 * (sort_windows.cuh); a check launch and one download decide.
 *
 * Otherwise each pass (ping-ponging between the keys and a temporary
 * buffer, as mergesort does) runs two launches:
 *   1. plan: the Merge Path split of every pass-tile boundary (in a
 *      segmented sort only the segment straddling the two runs' interface
 *      can mix, and diagonals outside it are answered without a search,
 *      block/segmented_merge.cuh), then per tile: queue it for merging if
 *      its output draws on both runs, or on one run but shifted; queue it
 *      for copying if its output is its own input, unless its "same in both
 *      buffers" flag says the destination already holds it.
 *   2. work: one block per tile takes a queued merge or copy, or exits.
 * The queue lengths of every pass stay on the device (the stats option
 * reads them once at the end): there is no host round trip per pass.
 */
#ifndef MGPU_SEGSORT_CUH
#define MGPU_SEGSORT_CUH

#include "agent/sort_pass.cuh"
#include "dispatch.cuh"
#include "policy/mergesort.cuh"
#include "agent/segblocksort.cuh"
#include "agent/sort_windows.cuh"
#include "segsort_heads.cuh"

namespace mgpu {

/* ---- blocksort ------------------------------------------------------------ */

/* Segmented blocksort (bits, ranges) or, without them, the blocksort of
 * locality sort (which writes samples for the sampled partitions).  The
 * register bound keeps the occupancy the kernel had before the rank merge
 * levels (group_rank_merge), which ptxas would otherwise pay for with
 * registers: i32 pairs went from 64 to 100 without it. */
template <typename P, bool HAS_V, typename K, typename V, typename Off,
          typename Comp>
__global__ void __launch_bounds__(P::NT, P::NT >= 512 ? 2 : 3)
    segblocksort_kernel(const K *keys_in, const V *vals_in, Off n, K *keys_out,
                        V *vals_out, K *keys_out2, V *vals_out2,
                        const unsigned *bits, head_range_of<Off> *ranges,
                        K *samples, Comp comp) {
  auto &sm = *shared_as<segblocksort_smem<P::NT, P::VT, HAS_V, K, V>>();
  const long long t0 = (long long)blockIdx.x * P::NV;
  const int count = (int)min((long long)P::NV, n - t0);
  if (bits && !__syncthreads_or(head_bits_at<P::VT>(bits, t0 + P::VT * threadIdx.x,
                                                     n) != 0)) {
    /* no head inside the tile: it is one segment, and mergesort's
     * blocksort is cheaper (long segments, where most tiles are like this) */
    blocksort_tile<P::NT, P::VT, kSortSampleStride, HAS_V>(
        keys_in + t0, HAS_V ? vals_in + t0 : vals_in, count, keys_out + t0,
        HAS_V ? vals_out + t0 : vals_out, keys_out2 ? keys_out2 + t0 : nullptr,
        HAS_V && vals_out2 ? vals_out2 + t0 : vals_out2, (K *)nullptr, t0,
        comp, sm.tile);
    if (ranges && threadIdx.x == 0)
      ranges[blockIdx.x] = head_range_of<Off>{no_head<Off>(), -1};
    return;
  }
  segblocksort_tile<P::NT, P::VT, kSortSampleStride, HAS_V>(
      keys_in + t0, HAS_V ? vals_in + t0 : vals_in, count, keys_out + t0,
      HAS_V ? vals_out + t0 : vals_out, keys_out2 ? keys_out2 + t0 : nullptr,
      HAS_V && vals_out2 ? vals_out2 + t0 : vals_out2, bits, n, t0,
      ranges ? ranges + blockIdx.x : nullptr, samples, comp, sm);
}

/* ---- one pass --------------------------------------------------------------- */

/* A pair of runs and the locked/active split of its merge, in global
 * positions (the sort's offset type Off): A = [start, mid), B = [mid,
 * end); A's active part starts at ha, B's locked part at hb. */
template <typename Off> struct seg_pair {
  long long start;
  Off mid, end, ha, hb;
};

template <typename Off>
__device__ __forceinline__ seg_pair<Off>
seg_pair_of(long long d, long long run, Off n,
            const head_range_of<Off> *ranges) {
  const pass_pair<Off> p = pair_of(d, run, n);
  seg_pair<Off> s = {p.start, p.mid, p.end, (Off)p.start, p.end};
  if (ranges) {
    const long long r = p.start / run; /* A's run; B is r + 1 */
    s.ha = max((Off)p.start, ranges[r].last);
    if (p.mid < p.end) s.hb = min(p.end, ranges[r + 1].first);
  }
  return s;
}

/* A queued merge: the tile and where its inputs lie (global positions). */
template <typename Off> struct seg_job {
  int tile;
  Off a0, a1, b0, b1, ha, hb;
  int pad;
};

template <typename Off> struct seg_queues {
  seg_job<Off> *merges;
  int *copies;
  int *counts;          /* per pass: merges queued, copies queued */
  unsigned char *same;  /* per tile: both buffers hold its output */
};

/* One launch per pass partitions and plans, as the seed does: thread i of
 * a block finds split i (how many of its pair's first i * nv - start
 * outputs come from A), and each of the first NT - 1 threads then plans
 * the tile between its split and the next one (neighbouring blocks
 * overlap by one split).  A tile whose output draws on both runs, or on
 * one run but shifted, is queued for merging; a tile whose output is its
 * own input is queued for copying unless its "same in both buffers" flag
 * says the destination already holds it.  The thread at a pair's start
 * also writes the pair's head range for the next pass.  (Separate
 * partition and plan launches cost ~6 us more per pass on the H200.) */
constexpr int kPlanThreads = 128;

template <int NT, typename K, typename Off, typename Comp>
__global__ void __launch_bounds__(NT)
    segsort_plan_kernel(const K *keys, const K *samples, Off n, long long run,
                        int nv, int tiles, const head_range_of<Off> *ranges,
                        head_range_of<Off> *next_ranges, int pass,
                        seg_queues<Off> q, Comp comp) {
  constexpr int S = kSortSampleStride;
  __shared__ Off split_of[NT];
  const int tid = threadIdx.x;
  const int i = blockIdx.x * (NT - 1) + tid;
  if (i <= tiles) {
    const long long d = min((long long)i * nv, (long long)n);
    const seg_pair<Off> p = seg_pair_of(d, run, n, ranges);
    const Off na = p.mid - (Off)p.start, nb = p.end - p.mid;
    const Off diag = (Off)(d - p.start);
    if (ranges && diag == 0 && d < n && tid < NT - 1) {
      const long long r = p.start / run;
      head_range_of<Off> nr = ranges[r];
      if (p.mid < p.end) nr = combine(nr, ranges[r + 1]);
      next_ranges[r / 2] = nr;
    }
    split_of[tid] =
        !ranges && samples
            /* no segments: the whole runs are active, and their samples
             * line up */
            ? sampled_merge_path<S>(keys + p.start, samples + p.start / S, na,
                                    keys + p.mid, samples + p.mid / S, nb,
                                    diag, comp)
            : segmented_merge_path(keys + p.start, na, keys + p.mid, nb,
                                   p.ha - (Off)p.start, p.hb - p.mid, diag,
                                   comp);
  }
  __syncthreads();
  const int t = i;
  bool merge = false, copy = false;
  seg_job<Off> job = {};
  if (tid < NT - 1 && t < tiles) {
    const long long o0 = (long long)t * nv;
    const long long o1 = min(o0 + nv, (long long)n);
    const seg_pair<Off> p = seg_pair_of(o0, run, n, ranges);
    const Off na = p.mid - (Off)p.start, nb = p.end - p.mid;
    const Off d0 = (Off)(o0 - p.start), d1 = (Off)(o1 - p.start);
    const Off a0 = split_of[tid];
    /* the split after a pair's last tile belongs to the next pair */
    const Off a1 = d1 == na + nb ? na : split_of[tid + 1];
    const tile_span_of<Off> sp = make_tile_span(d0, d1, a0, a1);
    /* in place: all from A at its own position, or all from B after A */
    const bool in_place = (sp.nb == 0 && sp.a0 == d0) ||
                          (sp.na == 0 && sp.a0 == na);
    merge = !in_place;
    copy = in_place && !q.same[t];
    q.same[t] = in_place;
    job = seg_job<Off>{t,
                       (Off)p.start + sp.a0,
                       (Off)p.start + sp.a0 + sp.na,
                       p.mid + sp.b0,
                       p.mid + sp.b0 + sp.nb,
                       p.ha,
                       p.hb,
                       0};
  }
  /* one atomic per warp and queue */
  const int lane = tid & 31;
  const unsigned mm = __ballot_sync(0xffffffffu, merge);
  const unsigned cm = __ballot_sync(0xffffffffu, copy);
  int mbase = 0, cbase = 0;
  if (lane == 0) {
    if (mm) mbase = atomicAdd(q.counts + 2 * pass, __popc(mm));
    if (cm) cbase = atomicAdd(q.counts + 2 * pass + 1, __popc(cm));
  }
  mbase = __shfl_sync(0xffffffffu, mbase, 0);
  cbase = __shfl_sync(0xffffffffu, cbase, 0);
  const unsigned below = (1u << lane) - 1;
  if (merge) q.merges[mbase + __popc(mm & below)] = job;
  if (copy) q.copies[cbase + __popc(cm & below)] = t;
}

template <typename K, typename V, typename Off> struct seg_pass {
  const K *keys;
  const V *vals;
  K *keys_out;
  V *vals_out;
  const K *samples; /* of keys (nullptr: none kept) */
  K *samples_out;
  Off n;
  seg_queues<Off> q;
  int pass;
};

/* One block per pass tile: block j takes the j-th queued merge, or the
 * (j - merges)-th queued copy, or has nothing to do: persistent blocks
 * draining the queues were ~45% slower per pass than mergesort's one block
 * per tile when every tile merges
 * (docs/TUNING.md, Segmented sort and locality sort).
 * SEG: the merge may mix only the active parts (segmented sort). */
template <typename P, bool SEG, bool HAS_V, typename K, typename V,
          typename Off, typename Comp>
__global__ void __launch_bounds__(P::NT)
    segsort_work_kernel(seg_pass<K, V, Off> w, Comp comp) {
  constexpr int NT = P::NT, VT = P::VT, NV = P::NV, S = kSortSampleStride;
  auto &sm = *shared_as<merge_tile_smem<NV, HAS_V, K, V>>();
  const int tid = threadIdx.x;
  const int merges = w.q.counts[2 * w.pass];
  int j = blockIdx.x;
  if (j < merges) {
    const seg_job<Off> job = w.q.merges[j];
    const long long o0 = (long long)job.tile * NV;
    /* a tile's inputs: int, whatever Off */
    const int na = (int)(job.a1 - job.a0), nb = (int)(job.b1 - job.b0);
    const tile_io<K, V> io = tile_io_at<HAS_V>(
        w.keys, w.vals, job.a0, na, w.keys, w.vals, job.b0, nb, w.keys_out,
        w.vals_out, o0, w.samples_out);
    if (!SEG) {
      if (w.samples_out)
        merge_tile<NT, VT, S, HAS_V>(io, comp, sm);
      else
        merge_tile<NT, VT, 0, HAS_V>(io, comp, sm);
      return;
    }
    const int total = na + nb;
    load_two_to_shared<NT, VT>(io.a, na, io.b, nb, sm.keys);
    if (HAS_V) load_two_to_shared<NT, VT>(io.av, na, io.bv, nb, sm.vals);
    __syncthreads();
    const int ha = (int)max((Off)0, min(job.ha - job.a0, (Off)na));
    const int hb = (int)max((Off)0, min(job.hb - job.b0, (Off)nb));
    const int d = min(VT * tid, total);
    const int from_a =
        segmented_merge_path(sm.keys, na, sm.keys + na, nb, ha, hb, d, comp);
    K k[VT];
    int src[VT];
    segmented_serial_merge<VT>(sm.keys, from_a, na, ha, na + d - from_a, total,
                               na + hb, k, src, comp);
    V v[VT];
    if (HAS_V) {
#pragma unroll
      for (int i = 0; i < VT; ++i)
        if (VT * tid + i < total) v[i] = sm.vals[src[i]];
    }
    __syncthreads();
    thread_to_shared<VT>(k, total, sm.keys);
    if (HAS_V) thread_to_shared<VT>(v, total, sm.vals);
    __syncthreads();
    shared_to_global<NT, VT>(sm.keys, total, io.out);
    if (HAS_V) shared_to_global<NT, VT>(sm.vals, total, io.outv);
    if (w.samples_out) store_samples<NT, S>(sm.keys, total, o0, w.samples_out);
    return;
  }
  j -= merges;
  if (j >= w.q.counts[2 * w.pass + 1]) return;
  const int t = w.q.copies[j];
  const long long o0 = (long long)t * NV;
  const int count = (int)min((long long)NV, (long long)w.n - o0);
  for (int i = tid; i < count; i += NT) {
    w.keys_out[o0 + i] = w.keys[o0 + i];
    if (HAS_V) w.vals_out[o0 + i] = w.vals[o0 + i];
  }
  if (w.samples_out) {
    for (int i = tid; i * S < count; i += NT)
      w.samples_out[o0 / S + i] = w.samples[o0 / S + i];
  }
}

/* ---- the whole sort ----------------------------------------------------------- */

/* The report of a window check (sort_windows.cuh), read by the host. */
static mgpu_status read_report(mgpu_context *ctx, const cuda_scratch &report,
                               window_report *host) {
  cudaStream_t s = cuda_of(ctx)->stream;
  CUDA_TRY(ctx, cudaMemcpyAsync(host, report.ptr, sizeof *host,
                                cudaMemcpyDeviceToHost, s));
  CUDA_TRY(ctx, cudaStreamSynchronize(s));
  return MGPU_OK;
}

/* Off holds global positions: int32_t while n fits it, int64_t past
 * (segsort_launch). */
template <typename PB, typename PM, bool HAS_V, typename Off, typename K,
          typename V, typename Comp>
mgpu_status segsort_run(mgpu_context *ctx, const mgpu_segsort_args *a,
                        Comp comp) {
  constexpr int S = kSortSampleStride;
  static_assert(PB::NV % PM::NV == 0, "a pass tile must not straddle merges");
  static_assert(PB::NV % S == 0 && PM::NV % S == 0 && PM::VT <= S,
                "runs must start on samples, one sample per thread");
  /* windows of W keys or fewer never overlap (sort_windows.cuh) */
  constexpr int W = PM::NV;
  static_assert(2 * W <= PB::NV, "a window must fit in half a blocksort tile");
  cudaStream_t s = cuda_of(ctx)->stream;
  K *keys = (K *)a->sort.keys;
  V *vals = (V *)a->sort.vals;
  const Off n = (Off)a->sort.n;
  const bool segmented = a->heads || a->flags;
  int passes = 0;
  for (long long run = PB::NV; run < n; run *= 2) ++passes;
  /* the stats keep MGPU_MAX_PASSES passes: 2^41 keys and more */
  if (a->stats && passes > MGPU_MAX_PASSES)
    return mgpu_set_error(ctx, MGPU_ETOOBIG,
                          "a sort of %lld keys takes %d passes, past the %d "
                          "its stats hold",
                          (long long)n, passes, MGPU_MAX_PASSES);
  /* pass tiles are no larger than blocksort tiles: the blocksort's grid
   * fits where the passes' does */
  int tiles = 0;
  MGPU_TRY(checked_tiles(ctx, n, PM::NV, &tiles,
                         segmented ? "a segmented sort" : "a locality sort"));
  const int btiles = tiles_of(n, PB::NV);
  const int boundaries = btiles - 1;
  if (a->stats) {
    a->stats->tiles = tiles;
    a->stats->blocksort_tiles = btiles;
  }
  auto merge_windows = window_merge_kernel<PM, HAS_V, K, V, Off, Comp>;
  const size_t window_smem = sizeof(merge_tile_smem<PM::NV, HAS_V, K, V>);
  cuda_scratch bits, windows, report;
  window_report found = {0, 0};
  const size_t words = ((size_t)n + 31) / 32;
  if (segmented) MGPU_TRY(bits.take(ctx, sizeof(unsigned) * words));
  if (boundaries > 0) {
    MGPU_TRY(windows.take(ctx, sizeof(sort_window<Off>) * (size_t)boundaries));
    MGPU_TRY(report.take(ctx, sizeof(window_report)));
    MGPU_TRY(allow_shared_memory(ctx, merge_windows, window_smem));
    CUDA_TRY(ctx, cudaMemsetAsync(report.ptr, 0, report.bytes, s));
  }
  auto segblocksort = segblocksort_kernel<PB, HAS_V, K, V, Off, Comp>;
  const size_t blocksort_bytes =
      sizeof(segblocksort_smem<PB::NT, PB::VT, HAS_V, K, V>);
  if (segmented) {
    MGPU_TRY(segsort_heads(ctx, a, n, bits));
    MGPU_TRY(allow_shared_memory(ctx, segblocksort, blocksort_bytes));
    if (boundaries > 0) {
      /* The windows of a segmented sort follow from the heads alone: when
       * they are short, sort each tile in place and merge the windows. */
      MGPU_TRY(segment_windows(ctx, bits.as<unsigned>(), n, PB::NV, W,
                               boundaries, windows.as<sort_window<Off>>(),
                               report.as<window_report>()));
      MGPU_TRY(read_report(ctx, report, &found));
    }
    if (!found.too_far) {
      segblocksort<<<btiles, PB::NT, blocksort_bytes, s>>>(
          keys, vals, n, keys, vals, nullptr, nullptr, bits.as<unsigned>(),
          nullptr, nullptr, comp);
      CUDA_LAUNCHED(ctx, "segmented blocksort kernel");
      if (boundaries > 0 && found.windows) {
        merge_windows<<<boundaries, PM::NT, window_smem, s>>>(
            keys, vals, PB::NV, windows.as<sort_window<Off>>(), comp);
        CUDA_LAUNCHED(ctx, "segsort window merge kernel");
      }
      if (a->stats) a->stats->windows = found.windows;
      return MGPU_OK;
    }
  }

  /* Every temporary of the passes is taken before the blocksort (see
   * mergesort): if memory runs out, the keys are untouched. */
  cuda_scratch ranges, tmp_keys, tmp_vals, samples, jobs, copies, counts,
      same;
  if (segmented)
    MGPU_TRY(ranges.take(ctx, sizeof(head_range_of<Off>) * 2 * (size_t)btiles));
  if (passes) {
    MGPU_TRY(tmp_keys.take(ctx, sizeof(K) * (size_t)n));
    if (HAS_V) MGPU_TRY(tmp_vals.take(ctx, sizeof(V) * (size_t)n));
    MGPU_TRY(jobs.take(ctx, sizeof(seg_job<Off>) * (size_t)tiles));
    MGPU_TRY(copies.take(ctx, sizeof(int) * (size_t)tiles));
    MGPU_TRY(counts.take(ctx, sizeof(int) * 2 * (size_t)passes));
    MGPU_TRY(same.take(ctx, (size_t)tiles));
  }
  /* the unsegmented blocksort always writes samples */
  if (!segmented)
    MGPU_TRY(samples.take(ctx, sizeof(K) * 2 * (size_t)samples_of<Off>(n, S)));
  const bool odd = passes & 1;
  K *sk = odd ? tmp_keys.as<K>() : keys, *dk = odd ? keys : tmp_keys.as<K>();
  V *sv = odd ? tmp_vals.as<V>() : vals, *dv = odd ? vals : tmp_vals.as<V>();
  K *ss = samples.as<K>();
  K *ds = ss ? ss + samples_of<Off>(n, S) : nullptr;
  head_range_of<Off> *rs = ranges.as<head_range_of<Off>>();
  head_range_of<Off> *rd = rs ? rs + btiles : nullptr;

  /* The blocksort writes both buffers (a second store from shared memory
   * costs less than the first pass's copies of every tile already in
   * place), so every tile starts out "same in both". */
  if (segmented) {
    segblocksort<<<btiles, PB::NT, blocksort_bytes, s>>>(
        keys, vals, n, sk, sv, passes ? dk : nullptr, dv, bits.as<unsigned>(),
        rs, nullptr, comp);
    CUDA_LAUNCHED(ctx, "segmented blocksort kernel");
  } else {
    /* Locality sort keeps mergesort's blocksort: the segmented blocksort
     * without heads made it 17-24% slower (2^26 i32, H200), its in-place
     * skipping not paying for its extra work
     * (docs/TUNING.md, Segmented sort and locality sort). */
    MGPU_TRY((blocksort_run<PB, HAS_V>(ctx, keys, vals, n, sk, sv, ss, comp,
                                       passes ? dk : nullptr, dv)));
    if (boundaries > 0) {
      /* keys holds the blocksort's output (as sk or as its copy dk): when
       * every window is short, merging them there finishes the sort. */
      locality_windows_kernel<<<grid_for((size_t)boundaries, 128), 128, 0, s>>>(
          (const K *)keys, n, PB::NV, W, boundaries, windows.as<sort_window<Off>>(),
          report.as<window_report>(), comp);
      CUDA_LAUNCHED(ctx, "locality window kernel");
      MGPU_TRY(read_report(ctx, report, &found));
      if (!found.too_far) {
        if (found.windows) {
          merge_windows<<<boundaries, PM::NT, window_smem, s>>>(
              keys, vals, PB::NV, windows.as<sort_window<Off>>(), comp);
          CUDA_LAUNCHED(ctx, "locality window merge kernel");
        }
        if (a->stats) a->stats->windows = found.windows;
        return MGPU_OK;
      }
    }
  }
  if (!passes) return MGPU_OK;
  if (a->stats) a->stats->passes = passes;

  if (ss)
    CUDA_TRY(ctx, cudaMemcpyAsync(ds, ss, sizeof(K) * (size_t)samples_of<Off>(n, S),
                                  cudaMemcpyDeviceToDevice, s));
  CUDA_TRY(ctx, cudaMemsetAsync(counts.ptr, 0, counts.bytes, s));
  CUDA_TRY(ctx, cudaMemsetAsync(same.ptr, 1, same.bytes, s));
  auto work = segmented ? segsort_work_kernel<PM, true, HAS_V, K, V, Off, Comp>
                        : segsort_work_kernel<PM, false, HAS_V, K, V, Off, Comp>;
  const size_t smem = sizeof(merge_tile_smem<PM::NV, HAS_V, K, V>);
  MGPU_TRY(allow_shared_memory(ctx, work, smem));
  seg_queues<Off> q = {jobs.as<seg_job<Off>>(), copies.as<int>(),
                       counts.as<int>(), same.as<unsigned char>()};
  int pass = 0;
  for (long long run = PB::NV; run < n; run *= 2, ++pass) {
    segsort_plan_kernel<kPlanThreads>
        <<<grid_for((size_t)tiles, kPlanThreads - 1), kPlanThreads, 0, s>>>(
            sk, ss, n, run, PM::NV, tiles, rs, rd, pass, q, comp);
    CUDA_LAUNCHED(ctx, "segsort plan kernel");
    seg_pass<K, V, Off> wp = {sk, sv, dk, dv, ss, ds, n, q, pass};
    work<<<tiles, PM::NT, smem, s>>>(wp, comp);
    CUDA_LAUNCHED(ctx, "segsort work kernel");
    K *tk = sk; sk = dk; dk = tk;
    V *tv = sv; sv = dv; dv = tv;
    K *ts = ss; ss = ds; ds = ts;
    head_range_of<Off> *tr = rs; rs = rd; rd = tr;
  }
  if (a->stats) {
    int host[2 * MGPU_MAX_PASSES];
    CUDA_TRY(ctx, cudaMemcpyAsync(host, counts.ptr, counts.bytes,
                                  cudaMemcpyDeviceToHost, s));
    CUDA_TRY(ctx, cudaStreamSynchronize(s));
    for (int p = 0; p < passes; ++p) {
      a->stats->merge_tiles[p] = host[2 * p];
      a->stats->copy_tiles[p] = host[2 * p + 1];
    }
  }
  return MGPU_OK;
}

template <typename K, int VB> struct segsort_launch {
  template <typename Comp>
  static mgpu_status run(mgpu_context *ctx, const mgpu_segsort_args *a,
                         Comp comp) {
    typedef segsort_policy<sizeof(K), VB> P;
    typedef mergesort_policy<sizeof(K), VB> M;
    return dispatch_offset(a->sort.n, [&](auto off) {
      typedef decltype(off) Off;
      if (a->heads || a->flags)
        return segsort_run<typename P::blocksort, typename P::pass, VB != 0,
                           Off, K, value_t<VB>>(ctx, a, comp);
      return segsort_run<typename M::blocksort, typename M::pass, VB != 0, Off,
                         K, value_t<VB>>(ctx, a, comp);
    });
  }
};

template <typename K>
mgpu_status segsort_entry(mgpu_context *ctx, const mgpu_segsort_args *a) {
  return dispatch_keyed_by_order<K, segsort_launch>(ctx, a->sort.value_size,
                                                    a->sort.order, a);
}

} // namespace mgpu

#endif
