/*
 * select.cuh - the compactions' policies (compact; unique its own) per key width,
 * Hopper (sm_90).  A tile stages its keys and its list of kept places in
 * shared memory (agent/select_tile.cuh).
 */
#ifndef MGPU_POLICY_SELECT_CUH
#define MGPU_POLICY_SELECT_CUH

#include "policy/tile_shape.cuh"

namespace mgpu {

template <int KEY_BYTES> struct select_policy;
template <int KEY_BYTES> struct unique_policy;

/* Shapes by analogy with the set operations' tiles (256 threads, odd VT),
 * smaller because a compaction does one flag a key, not a merge walk, and
 * 4 blocks an SM keep enough loads in flight: to be measured. */
template <> struct select_policy<4> {
  typedef tile_shape<256, 15, 4> tile; /* 3840 keys, 30 KB */
};
template <> struct select_policy<8> {
  typedef tile_shape<256, 11, 4> tile; /* 2816 keys, 33 KB */
};

/* unique's tiles (keys compared with their left neighbour): chosen on an
 * H200 (2026-11-28, unique keys and counts, 2^24-2^28, six shapes in one
 * run).  i32 256 x 11 at 6 blocks: 0.181 ms at 2^26 against 256 x 15's
 * 0.209 (128 x 31 equal); i64 128 x 23: 0.260 against 256 x 11's 0.278.
 * Still behind CUB's DeviceSelect::Unique (0.85x, 0.90x). */
template <> struct unique_policy<4> {
  typedef tile_shape<256, 11, 6> tile; /* 2816 keys */
};
template <> struct unique_policy<8> {
  typedef tile_shape<128, 23, 4> tile; /* 2944 keys */
};

} // namespace mgpu

#endif
