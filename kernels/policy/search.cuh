/*
 * search.cuh - sorted_search's policy per key width, Hopper (sm_90).  A
 * tile is NV items of the merge of needles and haystack
 * (agent/search_tile.cuh).
 */
#ifndef MGPU_POLICY_SEARCH_CUH
#define MGPU_POLICY_SEARCH_CUH

#include "policy/tile_shape.cuh"

namespace mgpu {

template <int KEY_BYTES> struct search_policy;

/* By analogy with the compaction tiles (policy/select.cuh): a thread walks
 * VT merge items with one comparison each, the keys and the needles'
 * positions staged in shared memory: to be measured. */
template <> struct search_policy<4> {
  typedef tile_shape<256, 15, 4> tile; /* 3840 items, 30 KB */
};
template <> struct search_policy<8> {
  typedef tile_shape<256, 11, 4> tile; /* 2816 items, 33 KB */
};

/* A binary search per needle (agent/search_bisect.cuh) instead of the
 * merge when the haystack holds at least MIN_RATIO elements a needle: it
 * touches about log2(m) sectors a needle, the upper levels in L2, where
 * the merge reads all m keys.  H200, 2^28 i32 (TUNING.md, "Sorted search,
 * unique, compact"): 2^20 needles (ratio 256) 0.150 ms bisecting, 0.886
 * by the merge one needle later; the merge takes 0.958 at ratio 64 and
 * 1.22 at 16, so the crossing lies below 256, not located. */
struct search_bisect_policy {
  static constexpr int NT = 256;
  static constexpr long long MIN_RATIO = 256;
};

} // namespace mgpu

#endif
