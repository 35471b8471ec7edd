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

} // namespace mgpu

#endif
