/*
 * select.cuh - the compactions' policy (unique, compact) per key width,
 * Hopper (sm_90).  A tile stages its keys and its list of kept places in
 * shared memory (agent/select_tile.cuh).
 */
#ifndef MGPU_POLICY_SELECT_CUH
#define MGPU_POLICY_SELECT_CUH

#include "policy/tile_shape.cuh"

namespace mgpu {

template <int KEY_BYTES> struct select_policy;

/* Shapes by analogy with the set operations' tiles (256 threads, odd VT),
 * smaller because a compaction does one flag a key, not a merge walk, and
 * 4 blocks an SM keep enough loads in flight: to be measured. */
template <> struct select_policy<4> {
  typedef tile_shape<256, 15, 4> tile; /* 3840 keys, 30 KB */
};
template <> struct select_policy<8> {
  typedef tile_shape<256, 11, 4> tile; /* 2816 keys, 33 KB */
};

} // namespace mgpu

#endif
