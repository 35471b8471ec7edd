/*
 * keyed.cuh - the keyed reductions' policies (segreduce per value width,
 * reduce_by_key per key and value width) and the join's row kernel shape.
 */
#ifndef MGPU_POLICY_KEYED_CUH
#define MGPU_POLICY_KEYED_CUH

#include "policy/tile_shape.cuh"

namespace mgpu {

template <int VALUE_BYTES> struct segreduce_policy;

/* A tile is values only (segments are found by search), staged in shared
 * memory so that the loads coalesce; ~2K values a tile as select's tiles,
 * odd VT for the bank spread: to be measured. */
template <> struct segreduce_policy<4> {
  typedef tile_shape<256, 11, 4> tile; /* 2816 values, 11 KB */
};
template <> struct segreduce_policy<8> {
  typedef tile_shape<256, 7, 4> tile; /* 1792 values, 14 KB */
};

/* A reduce_by_key tile stages its keys, its values and a list of its run
 * starts in shared memory (agent/reduce_by_key_tile.cuh) and keeps only a
 * mask and one accumulator a thread in registers; ~2-3K items a tile as
 * select's tiles, 8-byte keys or values in fewer so that a tile stays
 * under 48 KB of static shared memory (11: 2816 items, 34 KB; 7: 1792
 * items, 29-36 KB), odd VT for the bank spread: to be measured. */
template <int KEY_BYTES, int VALUE_BYTES> struct reduce_by_key_policy {
  typedef tile_shape<256, KEY_BYTES + VALUE_BYTES <= 8 ? 11 : 7, 4> tile;
};

/* A row is two stores and a few loads of the bounds, nothing to stage; 8
 * rows a thread so that a block's two searches of the whole scan are
 * shared by 2048 rows: to be measured. */
struct join_policy {
  static constexpr int NT = 256;
  static constexpr int ROWS = 8;
};

} // namespace mgpu

#endif
