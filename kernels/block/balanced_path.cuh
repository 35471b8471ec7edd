/*
 * balanced_path.cuh - where a cross-diagonal meets the Balanced Path of two
 * sorted inputs: the path that, unlike Merge Path, pairs the k-th equal key
 * of A with the k-th of B (key-rank matching), so that a partition never
 * separates the two halves of a match.
 *
 * The search starts from the Merge Path point (which takes every equal key
 * of A before any of B), finds where the run of the key waiting in B begins
 * in both inputs, and re-deals that run alternately between A and B.  When
 * the diagonal would cut a matched pair in two, the point is "starred": the
 * partition on its left also takes the B half of the pair.
 */
#ifndef MGPU_BALANCED_PATH_CUH
#define MGPU_BALANCED_PATH_CUH

#include "gallop.cuh"

namespace mgpu {

/* The first i in [lo, hi) with !comp(a[i], x), galloping down from hi:
 * runs of equal keys are usually short, so a few probes next to hi (which
 * the caller has just read) settle it; long runs cost O(log run). */
template <typename I, typename It, typename T, typename Comp>
__device__ __forceinline__ I run_start_before(It a, I lo, I hi, T x,
                                              Comp comp) {
  return first_true_from_top(lo, hi, [&](I i) { return !comp(a[i], x); });
}

/* The first i in [lo, hi) with comp(x, a[i]) (upper bound). */
template <typename I, typename It, typename T, typename Comp>
__device__ __forceinline__ I upper_bound_in(It a, I lo, I hi, T x, Comp comp) {
  while (lo < hi) {
    I mid = lo + ((hi - lo) >> 1);
    if (comp(x, a[mid]))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

struct path_point {
  long long a; /* inputs taken from A */
  int star;    /* 1: the partition on the left also takes b[diag - a] */
};

/* The Balanced Path point on cross-diagonal diag, given p = the Merge Path
 * point there (ties take A first).  Without duplicates (the caller's
 * promise that neither input repeats a key) a match can only be cut right
 * at the diagonal, which one comparison detects.  Whatever the data, the
 * result satisfies 0 <= a <= p and diag - a + star <= nb. */
template <typename I, typename It, typename Comp>
__device__ __forceinline__ path_point balanced_path(It a, I na, It b, I nb,
                                                    I diag, I p,
                                                    bool duplicates,
                                                    Comp comp) {
  (void)na;
  path_point r = {(long long)p, 0};
  I ai = p, bi = diag - p;
  if (bi >= nb) return r;
  const auto x = b[bi];
  if (!duplicates) {
    /* a[ai-1] <= x by the Merge Path: equal means a match cut in two */
    r.star = ai > 0 && !comp(a[ai - 1], x);
    return r;
  }
  /* Merge Path took every x of A before bi's x: the runs of x end at ai
   * and bi; re-deal their xc keys alternately, A first. */
  const I a_start = run_start_before(a, (I)0, ai, x, comp);
  const I b_start = run_start_before(b, (I)0, bi, x, comp);
  const I a_run = ai - a_start, b_run = bi - b_start, xc = a_run + b_run;
  /* B takes half, but at least what A cannot supply */
  I b_take = (xc >> 1) > xc - a_run ? (xc >> 1) : xc - a_run;
  /* ... and no more x's than B has from b_start */
  I b_end = b_start + b_take + 1 < nb ? b_start + b_take + 1 : nb;
  const I b_have = upper_bound_in(b, bi, b_end, x, comp) - b_start;
  if (b_take > b_have) b_take = b_have;
  const I a_take = xc - b_take;
  r.a = (long long)(a_start + a_take);
  /* A is one ahead and B still holds the x that matches A's last one */
  r.star = a_take == b_take + 1 && b_take < b_have;
  return r;
}

} // namespace mgpu

#endif
