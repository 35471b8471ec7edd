/*
 * serial_merge.cuh - one thread's share of a merge: exactly VT steps over
 * keys in shared memory, results in registers (statically indexed).
 */
#ifndef MGPU_SERIAL_MERGE_CUH
#define MGPU_SERIAL_MERGE_CUH

namespace mgpu {

/* Merges from A = keys[a, a_end) and B = keys[b, b_end) (B follows A in
 * the same shared array).  out[i] gets the key, src[i] its shared index.
 * The next key of each side is fetched ahead, so the loop reads one slot
 * past the tile when a side runs out: callers size shared memory NV + 1.
 * Steps past the end of both inputs produce garbage the caller discards. */
template <int VT, typename K, typename Comp>
__device__ __forceinline__ void serial_merge(const K *keys, int a, int a_end,
                                             int b, int b_end, K (&out)[VT],
                                             int (&src)[VT], Comp comp) {
  K ak = keys[a];
  K bk = keys[b];
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    bool take_a = b >= b_end || (a < a_end && !comp(bk, ak));
    out[i] = take_a ? ak : bk;
    src[i] = take_a ? a : b;
    if (take_a)
      ak = keys[++a];
    else
      bk = keys[++b];
  }
}

} // namespace mgpu

#endif
