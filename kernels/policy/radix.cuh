/*
 * radix.cuh - the radix sort's policies (mgpu_sort): the upfront
 * histogram's block per key width (NT threads, VT keys each an
 * iteration), and the sweep's tile per key and value width (NT threads,
 * VT keys each, warp-striped; MIN_BLOCKS resident a SM).  Digits are 8
 * bits (Onesweep's): 256 buckets, a sweep thread each in the look-back.
 * VT may be even: tiles load warp-striped, not in thread order.
 */
#ifndef MGPU_POLICY_RADIX_CUH
#define MGPU_POLICY_RADIX_CUH

namespace mgpu {

constexpr int kRadixDigitBits = 8;

template <int KEY_BYTES> struct radix_histogram_policy {
  static constexpr int DIGIT_BITS = kRadixDigitBits;
  static constexpr int NT = 256, VT = KEY_BYTES == 4 ? 8 : 4;
  static constexpr int BLOCKS_PER_SM = 4;
};

template <int KEY_BYTES, int VALUE_BYTES> struct radix_sweep_policy;

template <int NT_, int VT_, int MIN_BLOCKS_> struct radix_tile_shape {
  static constexpr int DIGIT_BITS = kRadixDigitBits;
  static constexpr int NT = NT_, VT = VT_, NV = NT_ * VT_;
  static constexpr int MIN_BLOCKS = MIN_BLOCKS_;
};

/* Chosen by two H200 same-run sweeps of eight shapes each, 2^24-2^28
 * (TUNING.md, "Sort (radix)"): 384 x 18 at 3 blocks for 4-byte keys alone
 * (0.93x CUB at 2^26; 2 blocks 0.80x), 256 x 24 at 3 blocks with 4-byte
 * values (0.92x; 384 x 18 at 2 blocks 0.88x); 8-byte values do not fit
 * those tiles in 48 KiB. */
template <> struct radix_sweep_policy<4, 0> : radix_tile_shape<384, 18, 3> {};
template <> struct radix_sweep_policy<4, 4> : radix_tile_shape<256, 24, 3> {};
template <> struct radix_sweep_policy<4, 8> : radix_tile_shape<256, 16, 3> {};
/* Same sweeps: 256 x 11 at 4 blocks for 8-byte keys alone (0.90x CUB)
 * and with 8-byte values (0.82x; 3 blocks 0.76x); with 4-byte values it
 * was not run, and 3 blocks stay. */
template <> struct radix_sweep_policy<8, 0> : radix_tile_shape<256, 11, 4> {};
template <> struct radix_sweep_policy<8, 4> : radix_tile_shape<256, 11, 3> {};
template <> struct radix_sweep_policy<8, 8> : radix_tile_shape<256, 11, 4> {};

} // namespace mgpu

#endif
