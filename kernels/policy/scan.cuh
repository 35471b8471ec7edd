/*
 * scan.cuh - the policy of scan and reduce tiles per value width, Hopper
 * (sm_90).  A thread moves VT items in 16-byte chunks
 * (block/vector_chunks.cuh); MIN_BLOCKS is asked of __launch_bounds__.
 */
#ifndef MGPU_POLICY_SCAN_CUH
#define MGPU_POLICY_SCAN_CUH

namespace mgpu {

template <int KEY_BYTES> struct scan_policy;
template <int KEY_BYTES> struct reduce_policy;

/* 16 KB a tile, four 16-byte loads in flight a thread, four blocks an SM
 * (64 registers) so the items and their prefixes stay in registers:
 * chosen by the byte counts, not yet measured on a GPU. */
template <> struct scan_policy<4> {
  static constexpr int NT = 256, VT = 16, NV = NT * VT, MIN_BLOCKS = 4;
};
template <> struct scan_policy<8> {
  static constexpr int NT = 256, VT = 8, NV = NT * VT, MIN_BLOCKS = 4;
};

/* A reduce thread keeps only its loads and one accumulator, so a full SM
 * fits (32 registers); 8-byte min and max need a few more (they spilled at
 * 32 on sm_100).  Blocks stride over the tiles: not yet measured. */
template <> struct reduce_policy<4> {
  static constexpr int NT = 256, VT = 16, NV = NT * VT, MIN_BLOCKS = 8;
};
template <> struct reduce_policy<8> {
  static constexpr int NT = 256, VT = 8, NV = NT * VT, MIN_BLOCKS = 6;
};

} // namespace mgpu

#endif
