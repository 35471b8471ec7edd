/*
 * gallop.cuh - where a monotone predicate (false ... false true ... true)
 * over [lo, hi) turns true, found by probing outward from one end in
 * doubling steps and then bisecting the last step.  Answers that lie close
 * to the starting end (a short run of equal keys next to a Merge Path
 * point, a short out-of-order window next to a tile boundary) cost a few
 * reads there instead of a search over the whole range.  For predicates
 * that are not monotone (unsorted input) the answer is still some index in
 * [lo, hi].
 */
#ifndef MGPU_GALLOP_CUH
#define MGPU_GALLOP_CUH

#include "bisect.cuh"

namespace mgpu {

/* The first i in [lo, hi) with pred(i), or hi; probes from hi downward. */
template <typename I, typename Pred>
__device__ __forceinline__ I first_true_from_top(I lo, I hi, Pred pred) {
  I top = hi, step = 1;
  while (top > lo) {
    /* steps compared with the room left, not added to an end: near
     * INT_MAX top - step or a doubled step could wrap */
    const I room = top - lo;
    const I probe = step >= room ? lo : top - step;
    if (!pred(probe)) {
      lo = probe + 1;
      break;
    }
    top = probe;
    step = step < room - step ? step + step : room;
  }
  return first_true(lo, top, pred);
}

/* The same, probing from lo upward. */
template <typename I, typename Pred>
__device__ __forceinline__ I first_true_from_bottom(I lo, I hi, Pred pred) {
  I step = 1;
  while (lo < hi) {
    const I room = hi - lo;
    const I probe = step >= room ? hi - 1 : lo + step - 1;
    if (pred(probe)) {
      hi = probe;
      break;
    }
    lo = probe + 1;
    step = step < room - step ? step + step : room;
  }
  return first_true(lo, hi, pred);
}

} // namespace mgpu

#endif
