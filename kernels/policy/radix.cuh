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

/* Shared atomics bound the histogram, not its instructions: at 2^26 i32
 * keys on an H200 8 blocks an SM count in 122 us, 4 in 127, CUB in 120
 * (docs/TUNING.md, "Sort (radix)"). */
template <int KEY_BYTES> struct radix_histogram_policy {
  static constexpr int DIGIT_BITS = kRadixDigitBits;
  static constexpr int NT = 256, VT = KEY_BYTES == 4 ? 8 : 4;
  static constexpr int BLOCKS_PER_SM = 8;
};

template <int KEY_BYTES, int VALUE_BYTES> struct radix_sweep_policy;

template <int NT_, int VT_, int MIN_BLOCKS_> struct radix_tile_shape {
  static constexpr int DIGIT_BITS = kRadixDigitBits;
  static constexpr int NT = NT_, VT = VT_, NV = NT_ * VT_;
  static constexpr int MIN_BLOCKS = MIN_BLOCKS_;
};

/* Every GPU: tiles within 48 KB of shared memory.  Chosen by H200
 * same-run sweeps, 2^24-2^28, before the histogram's rework (TUNING.md,
 * "Sort (radix)"); 8-byte keys alone 256 x 15 at 4 blocks (1.05x CUB,
 * against 0.91x for 256 x 11); 4-byte keys with 8-byte values 256 x 20
 * (0.90-0.96x, against 0.72-0.89x for 256 x 16). */
template <> struct radix_sweep_policy<4, 0> : radix_tile_shape<384, 18, 3> {};
template <> struct radix_sweep_policy<4, 4> : radix_tile_shape<256, 24, 3> {};
template <> struct radix_sweep_policy<4, 8> : radix_tile_shape<256, 20, 3> {};
template <> struct radix_sweep_policy<8, 0> : radix_tile_shape<256, 15, 4> {};
template <> struct radix_sweep_policy<8, 4> : radix_tile_shape<256, 15, 3> {};
template <> struct radix_sweep_policy<8, 8> : radix_tile_shape<256, 11, 4> {};

/* Larger tiles, taken where an SM holds MIN_BLOCKS of them (sm_80,
 * sm_90, sm_100; radix_sort.cu).  Same sweeps: 4-byte keys 384 x 20
 * (0.96-0.98x CUB, against 0.93-0.96x), 4-byte pairs 384 x 23 at 2 blocks
 * (0.96-0.98x, against 0.93x), 8-byte pairs 384 x 12 at 2 (0.98x,
 * against 0.82x), 8-byte keys with 4-byte values 384 x 15 at 2 (0.97x,
 * against 0.66-0.69x for 256 x 11; 256 x 15, within 48 KB, 0.87-0.89x). */
template <int KEY_BYTES, int VALUE_BYTES>
struct radix_sweep_roomy_policy : radix_sweep_policy<KEY_BYTES, VALUE_BYTES> {};
template <> struct radix_sweep_roomy_policy<4, 0> : radix_tile_shape<384, 20, 3> {};
template <> struct radix_sweep_roomy_policy<4, 4> : radix_tile_shape<384, 23, 2> {};
template <> struct radix_sweep_roomy_policy<8, 4> : radix_tile_shape<384, 15, 2> {};
template <> struct radix_sweep_roomy_policy<8, 8> : radix_tile_shape<384, 12, 2> {};

} // namespace mgpu

#endif
