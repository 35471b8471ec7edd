/*
 * tile_shape.cuh - the one shape every policy is written in: NT threads a
 * block, VT items a thread (NV = NT * VT a tile), and the resident blocks
 * an SM asked of the compiler (__launch_bounds__) where occupancy is
 * register-bound.  VT is odd but in one tile, so that thread-order
 * shared accesses (VT * tid + i) spread a warp over all 32 banks.
 */
#ifndef MGPU_POLICY_TILE_SHAPE_CUH
#define MGPU_POLICY_TILE_SHAPE_CUH

namespace mgpu {

template <int NT_, int VT_, int MIN_BLOCKS_ = 1> struct tile_shape {
  static constexpr int NT = NT_;
  static constexpr int VT = VT_;
  static constexpr int NV = NT_ * VT_;
  static constexpr int MIN_BLOCKS = MIN_BLOCKS_;
};

} // namespace mgpu

#endif
