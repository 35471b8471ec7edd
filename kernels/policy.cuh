/*
 * policy.cuh - tuning constants: threads per block (NT) and keys per thread
 * (VT) for each primitive and width.  Each choice names the measurement
 * that made it; bench/tune.cu reruns the search (docs/TUNING.md).
 *
 * VT is odd everywhere: thread-order shared-memory accesses (VT * tid + i)
 * then spread a warp across all 32 banks.
 */
#ifndef MGPU_POLICY_CUH
#define MGPU_POLICY_CUH

namespace mgpu {

template <int NT_, int VT_> struct tile_policy {
  static constexpr int NT = NT_;
  static constexpr int VT = VT_;
  static constexpr int NV = NT_ * VT_;
};

/* merge: a tile of NT * VT outputs per block.
 * Provisional until the first tuning run on the GPU machine. */
template <int KEY_BYTES, int VALUE_BYTES> struct merge_policy {
  typedef tile_policy<128, (KEY_BYTES + VALUE_BYTES > 8) ? 11 : 15> type;
};

/* mergesort: the blocksort tile, and the tile of each global merge pass.
 * The blocksort tile must be a whole number of pass tiles, so that no pass
 * tile straddles two merges.  Provisional until the first tuning run. */
template <int KEY_BYTES, int VALUE_BYTES> struct mergesort_policy {
  static constexpr int VT = (KEY_BYTES + VALUE_BYTES > 8) ? 11 : 17;
  typedef tile_policy<256, VT> blocksort;
  typedef tile_policy<128, VT> pass;
};

} // namespace mgpu

#endif
