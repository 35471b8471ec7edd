/*
 * keyed.cuh - the keyed reductions' policy (segreduce, and reduce_by_key
 * through it) per value width, and the join's row kernel shape.
 */
#ifndef MGPU_POLICY_KEYED_CUH
#define MGPU_POLICY_KEYED_CUH

#include "policy/tile_shape.cuh"

namespace mgpu {

template <int VALUE_BYTES> struct segreduce_policy;

/* A tile is values only (segments are found by search), staged in shared
 * memory so that the loads coalesce; ~2K values a tile as select's tiles,
 * odd VT for the bank spread: to be measured. */
template <> struct segreduce_policy<4> {
  typedef tile_shape<256, 11, 4> tile; /* 2816 values, 11 KB */
};
template <> struct segreduce_policy<8> {
  typedef tile_shape<256, 7, 4> tile; /* 1792 values, 14 KB */
};

/* A row is two stores and a few loads of the bounds, nothing to stage; 8
 * rows a thread so that a block's two searches of the whole scan are
 * shared by 2048 rows: to be measured. */
struct join_policy {
  static constexpr int NT = 256;
  static constexpr int ROWS = 8;
};

} // namespace mgpu

#endif
