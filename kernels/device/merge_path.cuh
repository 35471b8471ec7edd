/*
 * merge_path.cuh - Merge Path search: where a cross-diagonal of the merge
 * grid of A and B meets the path of a stable merge.
 */
#ifndef MGPU_MERGE_PATH_CUH
#define MGPU_MERGE_PATH_CUH

namespace mgpu {

/* How many of the first `diag` outputs of merge(A, B) come from A, when ties
 * take A first.  Works on global or shared memory, with int coordinates or
 * (for inputs whose sum passes INT_MAX) long long ones; the answer always
 * lies in [max(0, diag - nb), min(diag, na)], whatever the data, which is
 * what keeps callers in bounds on unsorted input. */
template <typename It, typename I, typename Comp>
__device__ __forceinline__ I merge_path(It a, I na, It b, I nb, I diag,
                                        Comp comp) {
  I lo = diag > nb ? diag - nb : 0;
  I hi = diag < na ? diag : na;
  while (lo < hi) {
    I mid = lo + ((hi - lo) >> 1);
    /* a[mid] precedes b[diag-1-mid] unless b's key is strictly first */
    if (comp(b[diag - 1 - mid], a[mid]))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/* merge_path with PROBES probes a step (3 or 7), which shrink the range
 * PROBES + 1 times a step: their reads are independent, so a step costs
 * about one load's latency where binary steps cost one each.  For shared
 * memory, where a tile's per-thread search is a chain of dependent loads
 * (EXPERIMENT, mgpu_tune stamps: 1.6 us of the staged union tile's 3.3 us
 * from keys landed to count). */
template <int PROBES, typename K, typename Comp>
__device__ __forceinline__ int merge_path_probes(const K *a, int na, const K *b,
                                                 int nb, int diag, Comp comp) {
  static_assert(PROBES == 1 || PROBES == 3 || PROBES == 7, "1, 3 or 7 probes");
  int lo = diag > nb ? diag - nb : 0;
  int hi = diag < na ? diag : na;
  if constexpr (PROBES > 1) {
    while (hi - lo > PROBES) {
      const int q = (hi - lo) / (PROBES + 1); /* >= 1 */
      bool p[PROBES];
#pragma unroll
      for (int j = 0; j < PROBES; ++j) {
        const int m = lo + (j + 1) * q;
        p[j] = comp(b[diag - 1 - m], a[m]);
      }
      /* the first true lies at or before the first probe that is true */
      int nlo = lo + PROBES * q + 1, nhi = hi;
#pragma unroll
      for (int j = PROBES - 1; j >= 0; --j)
        if (p[j]) {
          nlo = lo + j * q + (j > 0);
          nhi = lo + (j + 1) * q;
        }
      lo = nlo;
      hi = nhi;
    }
  }
  while (lo < hi) {
    const int mid = lo + ((hi - lo) >> 1);
    if (comp(b[diag - 1 - mid], a[mid]))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

} // namespace mgpu

#endif
