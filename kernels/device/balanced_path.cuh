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


/* Leading set bits of a group's ballot bits (bit 0 first), LANES if all. */
template <int LANES>
__device__ __forceinline__ int leading_ones(unsigned bits) {
  constexpr unsigned all = LANES == 32 ? 0xffffffffu : (1u << LANES) - 1;
  bits &= all;
  return bits == all ? LANES : __ffs(~bits) - 1;
}

/* balanced_path(a, na, b, nb, diag, p, duplicates, comp) found by the
 * LANES lanes of a group of the warp together (8, 16 or 32; the lanes of a
 * group pass the same arguments and every lane of the warp calls it, since
 * it ballots): each lane reads one key of each window next to the point
 * (below it in A and B, from it up in B), all in one round, and the runs
 * of the key waiting in B are counted from the ballots.  Runs that fill a
 * window go on serially, as balanced_path does; what it returns is
 * balanced_path's for sorted inputs, and in the same bounds for any. */
template <int LANES, typename K, typename Comp>
__device__ __forceinline__ path_point group_balanced_path(const K *a, int na,
                                                          const K *b, int nb,
                                                          int diag, int p,
                                                          bool duplicates,
                                                          Comp comp) {
  (void)na;
  const int lane = threadIdx.x & 31, l = lane & (LANES - 1);
  const int first = lane & ~(LANES - 1);
  const int ai = p, bi = diag - p;
  const bool has_x = bi < nb;
  const bool a_in = has_x && ai - 1 - l >= 0;
  const bool b_in = has_x && duplicates && bi - 1 - l >= 0;
  const bool u_in = has_x && duplicates && bi + l < nb;
  K x = K(), av = K(), bv = K(), uv = K();
  if (has_x) x = b[bi];
  if (a_in && (duplicates || l == 0)) av = a[ai - 1 - l];
  if (b_in) bv = b[bi - 1 - l];
  if (u_in) uv = b[bi + l];
  const unsigned a_eq =
      __ballot_sync(0xffffffffu, a_in && (duplicates || l == 0) && !comp(av, x)) >> first;
  const unsigned b_eq = __ballot_sync(0xffffffffu, b_in && !comp(bv, x)) >> first;
  const unsigned u_eq = __ballot_sync(0xffffffffu, u_in && !comp(x, uv)) >> first;
  path_point r = {(long long)p, 0};
  if (!has_x) return r;
  if (!duplicates) {
    r.star = a_eq & 1;
    return r;
  }
  int a_run = leading_ones<LANES>(a_eq), b_run = leading_ones<LANES>(b_eq);
  int a_start = ai - a_run, b_start = bi - b_run;
  if (a_run == LANES) a_start = run_start_before(a, 0, a_start, x, comp);
  if (b_run == LANES) b_start = run_start_before(b, 0, b_start, x, comp);
  a_run = ai - a_start;
  b_run = bi - b_start;
  const int xc = a_run + b_run;
  int b_take = (xc >> 1) > xc - a_run ? (xc >> 1) : xc - a_run;
  const int b_end = b_start + b_take + 1 < nb ? b_start + b_take + 1 : nb;
  const int u_run = leading_ones<LANES>(u_eq);
  int ub = bi + u_run;
  if (ub >= b_end) ub = b_end;
  else if (u_run == LANES) ub = upper_bound_in(b, ub, b_end, x, comp);
  const int b_have = ub - b_start;
  if (b_take > b_have) b_take = b_have;
  const int a_take = xc - b_take;
  r.a = (long long)(a_start + a_take);
  r.star = a_take == b_take + 1 && b_take < b_have;
  return r;
}

} // namespace mgpu

#endif
