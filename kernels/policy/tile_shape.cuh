/*
 * tile_shape.cuh - the one shape every policy is written in: NT threads a
 * block, VT items a thread (NV = NT * VT a tile), and the resident blocks
 * an SM asked of the compiler (__launch_bounds__) where occupancy is
 * register-bound.  VT is odd where a tile is read in thread order, so
 * that shared accesses (VT * tid + i) spread a warp over all 32 banks;
 * scan (16-byte chunks) and the radix sort (warp-striped tiles) take an
 * even VT.
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

/* The threads an SM holds on the architecture being compiled for (sm_75
 * 1,024; sm_86, sm_87, sm_89 and sm_12x 1,536; the others 2,048), and the
 * resident blocks to ask __launch_bounds__ for: MIN_BLOCKS, or as many
 * blocks of `threads` as the SM holds, where fewer.  The host pass sees
 * 2,048; launch bounds are the device passes' business. */
constexpr int sm_threads() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  return 1024;
#elif defined(__CUDA_ARCH__) &&                                                \
    (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890 || \
     __CUDA_ARCH__ >= 1200)
  return 1536;
#else
  return 2048;
#endif
}

constexpr int min_blocks_within_sm(int threads, int blocks) {
  return blocks * threads <= sm_threads() ? blocks : sm_threads() / threads;
}

} // namespace mgpu

#endif
