/*
 * mergesort.cuh - merge sort's policy per (key bytes, value bytes), Hopper
 * (sm_90): the blocksort tile, the tile of each global pass, and how far
 * ahead a pass prefetches.  The segmented sort takes the same shapes
 * (docs/TUNING.md, Mergesort).
 */
#ifndef MGPU_POLICY_MERGESORT_CUH
#define MGPU_POLICY_MERGESORT_CUH

#include "policy/tile_shape.cuh"

namespace mgpu {

template <int BLOCKSORT_NT, int BLOCKSORT_VT, int PASS_NT, int PASS_VT>
struct sort_shapes {
  typedef tile_shape<BLOCKSORT_NT, BLOCKSORT_VT> blocksort;
  typedef tile_shape<PASS_NT, PASS_VT> pass;
  static constexpr int prefetch_percent = 35;
};

template <int KEY_BYTES, int VALUE_BYTES> struct mergesort_policy;
template <> struct mergesort_policy<4, 0> : sort_shapes<512, 23, 128, 23> {};
template <> struct mergesort_policy<4, 4> : sort_shapes<512, 11, 128, 11> {};
template <> struct mergesort_policy<4, 8> : sort_shapes<256, 11, 128, 11> {};
template <> struct mergesort_policy<8, 0> : sort_shapes<256, 15, 128, 15> {};
template <> struct mergesort_policy<8, 4> : sort_shapes<256, 11, 128, 11> {};
template <> struct mergesort_policy<8, 8> : sort_shapes<256, 11, 128, 11> {};

template <int KEY_BYTES, int VALUE_BYTES>
struct segsort_policy : mergesort_policy<KEY_BYTES, VALUE_BYTES> {};

} // namespace mgpu

#endif
