/*
 * bisect.cuh - where a monotone predicate (false ... false true ... true)
 * over [lo, hi) turns true, by bisection.  For a predicate that is not
 * monotone (unsorted input) the answer is still some index in [lo, hi].
 */
#ifndef MGPU_BISECT_CUH
#define MGPU_BISECT_CUH

namespace mgpu {

/* The first i in [lo, hi) with pred(i), or hi. */
template <typename I, typename Pred>
__device__ __forceinline__ I first_true(I lo, I hi, Pred pred) {
  while (lo < hi) {
    const I mid = lo + ((hi - lo) >> 1);
    if (pred(mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

} // namespace mgpu

#endif
