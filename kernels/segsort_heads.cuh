/*
 * segsort_heads.cuh - the parts of a segmented sort that depend on its
 * heads alone, compiled once (segsort_heads.cu) for every key type.
 */
#ifndef MGPU_SEGSORT_HEADS_CUH
#define MGPU_SEGSORT_HEADS_CUH

#include "agent/sort_windows.cuh"
#include "cuda_internal.cuh"

namespace mgpu {

/* Writes the head bitfield of a segmented sort (bits: one bit an element,
 * the bitfield's bytes taken by the caller).  Off is the sort's offset
 * type (segsort.cuh); the heads are int32 or int64 (a->index_type), of
 * any count, whatever Off. */
template <typename Off>
mgpu_status segsort_heads(mgpu_context *ctx, const mgpu_segsort_args *a, Off n,
                          cuda_scratch &bits);

/* One warp a tile boundary: the window of each is the segment straddling
 * it (sort_windows.cuh). */
template <typename Off>
mgpu_status segment_windows(mgpu_context *ctx, const unsigned *bits, Off n,
                            int tile, int w, int boundaries,
                            sort_window<Off> *windows, window_report *report);

} // namespace mgpu

#endif
