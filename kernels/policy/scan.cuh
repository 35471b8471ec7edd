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

/* Bigger tiles at two blocks an SM: fewer look-backs, more loads in
 * flight a thread.  Chosen on an H200 (2026-11-28, add, 2^24-2^28, six
 * shapes in one run): i32 256 x 24 0.210 ms at 2^26 against 256 x 16's
 * 0.235 (128-512 threads, VT 12-24 tried); i64 256 x 16 0.465 against
 * 256 x 8's 0.538.  Both still behind CUB (0.84x, 0.67x). */
template <> struct scan_policy<4> {
  static constexpr int NT = 256, VT = 24, NV = NT * VT, MIN_BLOCKS = 2;
};
template <> struct scan_policy<8> {
  static constexpr int NT = 256, VT = 16, NV = NT * VT, MIN_BLOCKS = 2;
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
