/*
 * segmented_merge.cuh - merging two sorted runs of a segmented sort.
 *
 * When run A = [start, mid) and run B = [mid, end) are merged, only the
 * segment that straddles mid can mix: A's elements before that segment's
 * head keep their places, as do B's from the next head on.  So A splits
 * into a locked prefix A[0, ha) and an active tail A[ha, na), and B into an
 * active head B[0, hb) and a locked suffix B[hb, nb): the merge is
 * A[0, ha) ++ merge(A[ha, na), B[0, hb)) ++ B[hb, nb).  Locality sort is
 * the case ha = 0, hb = nb.
 */
#ifndef MGPU_SEGMENTED_MERGE_CUH
#define MGPU_SEGMENTED_MERGE_CUH

#include "merge_path.cuh"

namespace mgpu {

/* The A count of the first diag outputs.  Diagonals outside the active
 * part are answered without reading a key.  I: int within a tile, or the
 * sort's offset type Off across global runs. */
template <typename It, typename I, typename Comp>
__device__ __forceinline__ I segmented_merge_path(It a, I na, It b, I nb, I ha,
                                                  I hb, I diag, Comp comp) {
  (void)nb;
  if (diag <= ha) return diag;
  if (diag >= na + hb) return na;
  return ha + merge_path(a + ha, na - ha, b, hb, diag - ha, comp);
}

/* serial_merge (block/serial_merge.cuh) where B may go first only while
 * both sides are active: a >= a_lock (A's active part starts there) and
 * b < b_lock (B's locked part starts there), all indices into one shared
 * array.  Reads one slot past the tile, like serial_merge. */
template <int VT, typename K, typename Comp>
__device__ __forceinline__ void segmented_serial_merge(
    const K *keys, int a, int a_end, int a_lock, int b, int b_end, int b_lock,
    K (&out)[VT], int (&src)[VT], Comp comp) {
  K ak = keys[a];
  K bk = keys[b];
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    const bool take_b =
        b < b_end && (a >= a_end || (a >= a_lock && b < b_lock && comp(bk, ak)));
    out[i] = take_b ? bk : ak;
    src[i] = take_b ? b : a;
    if (take_b)
      bk = keys[++b];
    else
      ak = keys[++a];
  }
}

/* The first and last segment head of a run (positions), or {no head,
 * -1}.  Merging two runs combines them.  Tile positions are int; global
 * ones the sort's offset type Off, whose largest value means no head (a
 * 32-bit INT_MAX is a real position past 2^31 - 1 keys). */
template <typename Off> struct head_range_of {
  Off first, last;
};
typedef head_range_of<int> head_range;

template <typename Off> __host__ __device__ constexpr Off no_head() {
  return sizeof(Off) == 8 ? (Off)0x7fffffffffffffffLL : (Off)0x7fffffff;
}
constexpr int kNoHead = no_head<int>();

template <typename Off>
__device__ __forceinline__ head_range_of<Off> combine(head_range_of<Off> x,
                                                      head_range_of<Off> y) {
  return head_range_of<Off>{min(x.first, y.first), max(x.last, y.last)};
}

} // namespace mgpu

#endif
