/*
 * search_bisect.cuh - sorted_search for few needles in a long haystack: a
 * binary search per needle, one thread each.  The merge (search_tile.cuh)
 * reads the whole haystack; this reads about log2(m) keys a needle, the
 * upper levels of every search shared through L2, so it wins once the
 * haystack is much longer than the needles (policy/search.cuh says how
 * much).  Each needle is searched on its own: unsorted needles get their
 * true bounds, as on the cpu backend.
 */
#ifndef MGPU_AGENT_SEARCH_BISECT_CUH
#define MGPU_AGENT_SEARCH_BISECT_CUH

#include <stdint.h>

namespace mgpu {

/* pos[i] = base + the haystack elements `first` puts before needles[i]
 * (first(b, a): haystack element b goes before needle a, search_tile.cuh's
 * hay_first).  On an unsorted haystack the answer is some index in 0..m.
 * Pos is the positions' type: int32_t, or int64_t where m + base passes
 * INT32_MAX (the index dtype rule). */
template <typename K, typename First, typename Pos>
__global__ void search_bisect_kernel(const K *needles, long long n,
                                     const K *hay, long long m, int32_t base,
                                     Pos *pos, First first) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const K a = needles[i];
  long long lo = 0, hi = m;
  while (lo < hi) {
    const long long mid = lo + (hi - lo) / 2;
    if (first(hay[mid], a))
      lo = mid + 1;
    else
      hi = mid;
  }
  pos[i] = (Pos)lo + base;
}

} // namespace mgpu

#endif
