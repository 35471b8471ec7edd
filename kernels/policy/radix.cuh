/*
 * radix.cuh - the radix sort's policy (mgpu_sort) per key width: the
 * sweep's tile (NT threads, VT keys each, warp-striped), the digit width,
 * and the upfront histogram's block.
 */
#ifndef MGPU_POLICY_RADIX_CUH
#define MGPU_POLICY_RADIX_CUH

namespace mgpu {

template <int KEY_BYTES> struct radix_policy;

/* Not yet measured.  8-bit digits (Onesweep's): 256 buckets, a thread
 * each in the look-back.  512 x 8, two blocks an SM (64 registers),
 * compiled without spills on sm_75/80/90; 384 x 12 / 2 and 256 x 11 / 4
 * spilled.  VT may be even: tiles load warp-striped, not in thread order. */
template <> struct radix_policy<4> {
  static constexpr int NT = 512, VT = 8, NV = NT * VT; /* 4096 keys */
  static constexpr int DIGIT_BITS = 8;
  static constexpr int MIN_BLOCKS = 2;
  static constexpr int HIST_NT = 256;
  static constexpr int HIST_BLOCKS_PER_SM = 4;
};
template <> struct radix_policy<8> {
  static constexpr int NT = 512, VT = 8, NV = NT * VT; /* 4096 keys */
  static constexpr int DIGIT_BITS = 8;
  static constexpr int MIN_BLOCKS = 2;
  static constexpr int HIST_NT = 256;
  static constexpr int HIST_BLOCKS_PER_SM = 4;
};

} // namespace mgpu

#endif
