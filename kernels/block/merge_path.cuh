/*
 * merge_path.cuh - Merge Path search: where a cross-diagonal of the merge
 * grid of A and B meets the path of a stable merge.
 */
#ifndef MGPU_MERGE_PATH_CUH
#define MGPU_MERGE_PATH_CUH

#include "bisect.cuh"

namespace mgpu {

/* How many of the first `diag` outputs of merge(A, B) come from A, when ties
 * take A first.  Works on global or shared memory, with int coordinates or
 * (for inputs whose sum passes INT_MAX) long long ones; the answer always
 * lies in [max(0, diag - nb), min(diag, na)], whatever the data, which is
 * what keeps callers in bounds on unsorted input. */
template <typename It, typename I, typename Comp>
__device__ __forceinline__ I merge_path(It a, I na, It b, I nb, I diag,
                                        Comp comp) {
  const I lo = diag > nb ? diag - nb : 0;
  const I hi = diag < na ? diag : na;
  /* a[mid] precedes b[diag-1-mid] unless b's key is strictly first */
  return first_true(lo, hi, [&](I mid) { return comp(b[diag - 1 - mid], a[mid]); });
}

} // namespace mgpu

#endif
