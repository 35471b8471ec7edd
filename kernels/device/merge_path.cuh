/*
 * merge_path.cuh - Merge Path search: where a cross-diagonal of the merge
 * grid of A and B meets the path of a stable merge.
 */
#ifndef MGPU_MERGE_PATH_CUH
#define MGPU_MERGE_PATH_CUH

namespace mgpu {

/* How many of the first `diag` outputs of merge(A, B) come from A, when ties
 * take A first.  Works on global or shared memory; the answer always lies
 * in [max(0, diag - nb), min(diag, na)], whatever the data, which is what
 * keeps callers in bounds on unsorted input. */
template <typename It, typename Comp>
__device__ __forceinline__ int merge_path(It a, int na, It b, int nb, int diag,
                                          Comp comp) {
  int lo = diag > nb ? diag - nb : 0;
  int hi = diag < na ? diag : na;
  while (lo < hi) {
    int mid = lo + ((hi - lo) >> 1);
    /* a[mid] precedes b[diag-1-mid] unless b's key is strictly first */
    if (comp(b[diag - 1 - mid], a[mid]))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

} // namespace mgpu

#endif
