/*
 * merge.cuh - merge's policy per (key bytes, value bytes), Hopper (sm_90):
 * the staged tile (agent/merge_staged.cuh) and its launch
 * (docs/TUNING.md, Merge).
 */
#ifndef MGPU_POLICY_MERGE_CUH
#define MGPU_POLICY_MERGE_CUH

#include "policy/tile_shape.cuh"

namespace mgpu {

/* Launch fields every width shares: tiles ask L2 for the inputs of the
 * tile prefetch_percent of a wave ahead; inputs of 2^22 keys or more are
 * searched on every sample_stride-th key first, sampled_lanes lanes a
 * point. */
struct merge_launch_fields {
  static constexpr int prefetch_percent = 35;
  static constexpr int sample_stride = 512;
  static constexpr int sampled_lanes = 8;
};

template <int KEY_BYTES, int VALUE_BYTES> struct merge_policy;
template <> struct merge_policy<4, 0> : tile_shape<512, 23>, merge_launch_fields {};
template <> struct merge_policy<4, 4> : tile_shape<256, 23>, merge_launch_fields {};
template <> struct merge_policy<4, 8> : tile_shape<128, 11>, merge_launch_fields {};
template <> struct merge_policy<8, 0> : tile_shape<256, 23>, merge_launch_fields {};
template <> struct merge_policy<8, 4> : tile_shape<256, 7>, merge_launch_fields {};
template <> struct merge_policy<8, 8> : tile_shape<128, 19>, merge_launch_fields {};

} // namespace mgpu

#endif
