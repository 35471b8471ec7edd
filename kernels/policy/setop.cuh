/*
 * setop.cuh - set operations' policy per (key bytes, value bytes), Hopper
 * (sm_90).  Each operation has its tile (agent/setop_tile.cuh); a tile's
 * fields say how it keeps and stores its outputs
 * (docs/TUNING.md, Set operations).
 */
#ifndef MGPU_POLICY_SETOP_CUH
#define MGPU_POLICY_SETOP_CUH

#include "policy/tile_shape.cuh"

namespace mgpu {

/* A set-operation tile: its shape and, where a tile says otherwise, these
 * defaults. */
template <int NT_, int VT_, int MIN_BLOCKS_>
struct setop_tile_shape : tile_shape<NT_, VT_, MIN_BLOCKS_> {
  /* room of the list of kept places, per mille of a tile: 500 holds every
   * intersection; a union or symmetric difference with a shorter list
   * stores a fuller tile in ROUNDS */
  static constexpr int KEPT_PERMILLE = 1000;
  static constexpr bool ROUNDS = false;
  /* kept values gathered while the tile waits for its place */
  static constexpr bool EARLY_VALUES = false;
  /* outputs a thread reads into registers while the tile waits */
  static constexpr int EARLY_OUTPUTS = 0;
  /* outputs a thread stores at a time from the kept list, and whether
   * each warp's first store starts a 128-byte line */
  static constexpr int STORE_UNROLL = 1;
  static constexpr bool ALIGNED_STORES = false;
};

/* Entries of a tile's kept list. */
template <typename P> constexpr int kept_room() {
  return (P::NV * P::KEPT_PERMILLE + 999) / 1000;
}

/* The launch fields every width shares: tiles prefetch the keys (and
 * staged values) of the tile prefetch_percent of a wave ahead; the points
 * of the first direct_percent of a wave are searched on the inputs in
 * calls of a few waves (setop.cuh). */
struct setop_launch_fields {
  static constexpr int prefetch_percent = 35;
  static constexpr int direct_percent = 100;
};

template <int KEY_BYTES, int VALUE_BYTES> struct setop_policy;

/* 4-byte keys. */
template <> struct setop_policy<4, 0> : setop_launch_fields {
  static constexpr bool stage_values = false;
  static constexpr bool lookback_warp = true;
  struct intersection : setop_tile_shape<256, 31, 5> {
    static constexpr int KEPT_PERMILLE = 500;
  };
  struct difference : setop_tile_shape<256, 31, 5> {
    static constexpr int KEPT_PERMILLE = 500;
    static constexpr bool ROUNDS = true;
    static constexpr bool ALIGNED_STORES = true;
  };
  struct union_tile : setop_tile_shape<256, 29, 5> {
    static constexpr int KEPT_PERMILLE = 850;
    static constexpr bool ROUNDS = true;
    static constexpr int STORE_UNROLL = 2;
    static constexpr bool ALIGNED_STORES = true;
  };
  struct symmetric_difference : setop_tile_shape<256, 31, 5> {
    static constexpr int KEPT_PERMILLE = 667;
    static constexpr bool ROUNDS = true;
    static constexpr int STORE_UNROLL = 2;
    static constexpr bool ALIGNED_STORES = true;
  };
};

/* 4-byte keys and values: the union and symmetric difference stage the
 * values in shared memory. */
template <> struct setop_policy<4, 4> : setop_launch_fields {
  static constexpr bool stage_values = true;
  static constexpr bool lookback_warp = true;
  struct intersection : setop_tile_shape<256, 31, 5> {
    static constexpr int KEPT_PERMILLE = 500;
    static constexpr bool EARLY_VALUES = true;
  };
  struct difference : setop_tile_shape<256, 31, 5> {
    static constexpr int KEPT_PERMILLE = 500;
    static constexpr bool ROUNDS = true;
    static constexpr bool EARLY_VALUES = true;
    static constexpr bool ALIGNED_STORES = true;
  };
  struct union_tile : setop_tile_shape<128, 32, 5> {
    static constexpr int EARLY_OUTPUTS = 8;
    static constexpr int STORE_UNROLL = 4;
    static constexpr bool ALIGNED_STORES = true;
  };
  struct symmetric_difference : setop_tile_shape<128, 29, 6> {
    static constexpr int KEPT_PERMILLE = 700;
    static constexpr bool ROUNDS = true;
    static constexpr int EARLY_OUTPUTS = 20;
  };
};

/* 4-byte keys, 8-byte values: the general tile for every operation. */
template <> struct setop_policy<4, 8> : setop_launch_fields {
  static constexpr bool stage_values = false;
  static constexpr bool lookback_warp = true;
  typedef setop_tile_shape<128, 23, 10> intersection;
  typedef setop_tile_shape<128, 23, 10> difference;
  typedef setop_tile_shape<128, 23, 10> union_tile;
  typedef setop_tile_shape<128, 23, 10> symmetric_difference;
};

/* 8-byte keys. */
template <> struct setop_policy<8, 0> : setop_launch_fields {
  static constexpr bool stage_values = false;
  static constexpr bool lookback_warp = true;
  struct intersection : setop_tile_shape<128, 31, 6> {
    static constexpr int KEPT_PERMILLE = 500;
  };
  typedef setop_tile_shape<128, 31, 5> difference;
  typedef setop_tile_shape<128, 31, 5> union_tile;
  typedef setop_tile_shape<128, 31, 5> symmetric_difference;
};

/* 8-byte keys, 4-byte values: the general tile for every operation. */
template <> struct setop_policy<8, 4> : setop_launch_fields {
  static constexpr bool stage_values = false;
  static constexpr bool lookback_warp = false;
  typedef setop_tile_shape<128, 23, 6> intersection;
  typedef setop_tile_shape<128, 23, 6> difference;
  typedef setop_tile_shape<128, 23, 6> union_tile;
  typedef setop_tile_shape<128, 23, 6> symmetric_difference;
};

/* 8-byte keys and values: the union and symmetric difference stage the
 * values. */
template <> struct setop_policy<8, 8> : setop_launch_fields {
  static constexpr bool stage_values = true;
  static constexpr bool lookback_warp = false;
  struct early_values_tile : setop_tile_shape<128, 23, 6> {
    static constexpr bool EARLY_VALUES = true;
  };
  typedef early_values_tile intersection, difference;
  struct union_tile : setop_tile_shape<128, 31, 3> {
    static constexpr int EARLY_OUTPUTS = 16;
  };
  struct symmetric_difference : setop_tile_shape<128, 31, 3> {
    static constexpr int EARLY_OUTPUTS = 8;
  };
};

} // namespace mgpu

#endif
