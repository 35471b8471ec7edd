/*
 * warp_merge_path.cuh - Merge Path search by a whole warp: each round the
 * 32 lanes probe 32 evenly spaced points of the remaining range at once and
 * a ballot keeps the stretch where the path crosses, so a range shrinks 32
 * times a round instead of 2 times a step.
 *
 * Why: a partition point found by one thread is a chain of ~26 dependent
 * reads (17 on the samples in L2, 9 in DRAM).  A warp per point needs 4
 * rounds on the samples and 3 in DRAM; without samples (inputs below
 * kMergeSampleFrom), ~5 rounds instead of ~21 steps
 * (docs/TUNING.md, Shared pieces).
 */
#ifndef MGPU_WARP_MERGE_PATH_CUH
#define MGPU_WARP_MERGE_PATH_CUH

#include "merge_path.cuh"
#include "sampled_merge_path.cuh"

namespace mgpu {

/* The first i in [lo, hi) with pred(i), or hi, for pred false ... true,
 * found by the WIDTH lanes of a group of the warp that share lo and hi
 * (lane = the caller's index in its group; its group's bits of a ballot
 * are (ballot & group_mask) >> group_shift).  Every lane of the warp must
 * call it, and stays in it until every group is done, since each round
 * ballots.  For a non-monotone predicate the answer is still in [lo, hi]. */
template <int WIDTH, typename I, typename Pred>
__device__ __forceinline__ I group_first_true(I lo, I hi, int lane,
                                              unsigned group_mask,
                                              int group_shift, Pred pred) {
  bool done = false;
  I answer = hi;
  while (__any_sync(0xffffffffu, !done)) {
    /* offsets from lo, never lo + offset past hi: near I's largest that
     * sum would wrap (an offset is below n + WIDTH, and below n for large
     * n) */
    const I n = hi - lo;
    const I step = n <= WIDTH ? 1 : (n - 1) / WIDTH + 1;
    const I off = lane * step;
    I probe = -1;
    if (!done && n > 0)
      probe = n <= WIDTH ? (lane < n ? lo + lane : -1)
                         : (off >= n - step ? hi - 1 : lo + off + step - 1);
    const bool yes = probe >= 0 && pred(probe);
    const unsigned votes =
        (__ballot_sync(0xffffffffu, yes) & group_mask) >> group_shift;
    if (done) continue;
    if (n <= WIDTH) {
      answer = votes ? lo + __ffs(votes) - 1 : hi;
      done = true;
    } else if (votes) {
      /* the path crosses after probe j - 1 and by probe j */
      const I offj = (__ffs(votes) - 1) * step;
      hi = offj >= n - step ? hi - 1 : lo + offj + step - 1;
      lo += offj;
    } else {
      lo = hi; /* past every probe: the last one is hi - 1 */
    }
  }
  return answer;
}

/* merge_path(a, na, b, nb, diag) for each group of LANES lanes of the warp
 * (32, 16 or 8: one, two or four points a warp), in coordinates of type I
 * (int, or 64-bit past INT_MAX); the lanes of a group must pass the same
 * arguments, and every lane of the warp must call it.  With
 * samples (sa[i] = a[i S], sb[j] = b[j S]) a group first brackets the
 * answer between two samples, half its lanes searching for the first
 * sample surely past the path and half for the first not surely before it
 * (sample_verdict), then eight of its lanes search the bracket in the
 * inputs.
 *
 * Why groups: a point is a chain of dependent reads (~10 L2 and DRAM round
 * trips), so the partition launch takes one chain a wave of resident warps.
 * At 2^26 i32 keys the 8,458 points of 256 x 31 tiles were ten more than
 * the 8,448 warps an H200 holds (132 SMs x 64), and the launch took two
 * chains: a group per point keeps such launches to one wave
 * (setop_partition_lanes picks LANES), for a round or two more on the
 * samples. */
template <int S, int LANES, typename K, typename I, typename Comp>
__device__ __forceinline__ I warp_merge_path(const K *a, const K *sa, I na,
                                             const K *b, const K *sb, I nb,
                                             I diag, Comp comp) {
  static_assert(LANES == 8 || LANES == 16 || LANES == 32,
                "a point takes 8, 16 or 32 lanes");
  constexpr int HALF = LANES / 2, FINE = 8;
  const int lane = threadIdx.x & 31;
  const int l = lane & (LANES - 1);   /* the lane in its group */
  const int first = lane & ~(LANES - 1); /* the group's first lane */
  I lo = diag > nb ? diag - nb : 0;
  I hi = diag < na ? diag : na;
  if (sa) {
    const I i0 = lo / S + (lo % S != 0); /* lo + S - 1 may overflow */
    const I i1 = hi > 0 ? (hi - 1) / S + 1 : 0;
    /* every group takes part in the ballots, an empty range too (it is
     * done in the first round); first half: first sample surely true,
     * second half: first not surely false */
    const bool second = l >= HALF;
    const int shift = first + (second ? HALF : 0);
    const unsigned half_mask = (HALF == 32 ? 0xffffffffu : (1u << HALF) - 1)
                               << shift;
    const I found = group_first_true<HALF>(
        i0, max(i0, i1), l & (HALF - 1), half_mask, shift, [&](I i) {
          const int v = sample_verdict<S>(sa, sb, nb, diag, i, comp);
          return second ? v >= 0 : v > 0;
        });
    const I t_lo = __shfl_sync(0xffffffffu, found, first);
    const I f_lo = __shfl_sync(0xffffffffu, found, first + HALF);
    if (i0 < i1) {
      if (t_lo < i1) hi = min(hi, t_lo * S);
      if (f_lo > i0) lo = max(lo, (f_lo - 1) * S + 1);
    }
  }
  hi = max(lo, hi);
  const auto crossed = [&](I k) { return comp(b[diag - 1 - k], a[k]); };
  if (sa) {
    /* The bracket is about S wide and in DRAM: eight lanes search it (3
     * rounds of 16 sectors) instead of 32 (2 rounds of 64), which made the
     * partition at 2^26 take 12 us instead of 16, the reads and not the
     * rounds being what it waits for. */
    const I found = group_first_true<FINE>(
        lo, hi, l & (FINE - 1), ((1u << FINE) - 1) << first, first,
        [&](I k) { return l < FINE && crossed(k); });
    return __shfl_sync(0xffffffffu, found, first);
  }
  const unsigned group_mask =
      (LANES == 32 ? 0xffffffffu : (1u << LANES) - 1) << first;
  return group_first_true<LANES>(lo, hi, l, group_mask, first, crossed);
}

} // namespace mgpu

#endif
