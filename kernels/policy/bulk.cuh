/*
 * bulk.cuh - bulk_remove, bulk_insert and the interval operations, by
 * element width.  Chosen by analogy with merge (bulk_insert is a merge of
 * positions with a counting sequence); not tuned on their own.
 */
#ifndef MGPU_POLICY_BULK_CUH
#define MGPU_POLICY_BULK_CUH

#include "policy/tile_shape.cuh"

namespace mgpu {

template <int WIDTH> struct bulk_policy {
  typedef tile_shape<128, WIDTH == 4 ? 15 : 11> remove;
  typedef tile_shape<128, WIDTH == 4 ? 15 : 11> insert;
};
typedef tile_shape<128, 11> interval_policy;

} // namespace mgpu

#endif
