/*
 * radix.cuh - the radix sort's policy (mgpu_sort) per key width: the
 * sweep's tile (NT threads, VT keys each, warp-striped), the digit width,
 * and the upfront histogram's block (HIST_NT threads, HIST_VT keys each an
 * iteration).
 */
#ifndef MGPU_POLICY_RADIX_CUH
#define MGPU_POLICY_RADIX_CUH

namespace mgpu {

template <int KEY_BYTES> struct radix_policy;

/* 8-bit digits (Onesweep's): 256 buckets, a thread each in the look-back,
 * so NT = 256 leaves no thread idle there.  VT may be even: tiles load
 * warp-striped, not in thread order. */

/* chosen by: to be measured */
template <> struct radix_policy<4> {
  static constexpr int NT = 256, VT = 16, NV = NT * VT; /* 4096 keys */
  static constexpr int DIGIT_BITS = 8;
  static constexpr int MIN_BLOCKS = 3;
  static constexpr int HIST_NT = 256, HIST_VT = 8;
  static constexpr int HIST_BLOCKS_PER_SM = 4;
};
/* chosen by: to be measured */
template <> struct radix_policy<8> {
  static constexpr int NT = 256, VT = 11, NV = NT * VT; /* 2816 keys */
  static constexpr int DIGIT_BITS = 8;
  static constexpr int MIN_BLOCKS = 3;
  static constexpr int HIST_NT = 256, HIST_VT = 4;
  static constexpr int HIST_BLOCKS_PER_SM = 4;
};

} // namespace mgpu

#endif
