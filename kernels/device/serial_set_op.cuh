/*
 * serial_set_op.cuh - one thread's walk over its share of a set-operation
 * tile: each step takes one key-rank slot (an unmatched key of A, an
 * unmatched key of B, or a matched pair) and decides whether the slot
 * emits.  Results stay in registers; a bit per step says which are real.
 */
#ifndef MGPU_SERIAL_SET_OP_CUH
#define MGPU_SERIAL_SET_OP_CUH

namespace mgpu {

/* Which slots an operation keeps, as bits: unmatched A, unmatched B,
 * matched pair (which emits A's key and value). */
enum : unsigned {
  kKeepA = 1,
  kKeepB = 2,
  kKeepMatch = 4,
};

__host__ __device__ constexpr unsigned set_op_keeps(mgpu_setop_kind op) {
  return op == MGPU_SET_INTERSECTION ? kKeepMatch
         : op == MGPU_SET_UNION      ? kKeepA | kKeepB | kKeepMatch
         : op == MGPU_SET_DIFFERENCE ? kKeepA
                                     : kKeepA | kKeepB;
}

/* Walks keys[a, a_end) (A) against keys[b, b_end) (B, in the same shared
 * array) for at most VT slots.  results[i] / src[i] = the key of slot i and
 * where it came from (its index in keys); bit i of the return value is set
 * when slot i emits.  Every read stays inside the two ranges whatever the
 * data, so an unsorted tile only gives meaningless slots. */
template <int VT, typename K, typename Comp>
__device__ __forceinline__ unsigned serial_set_op(const K *keys, int a,
                                                  int a_end, int b, int b_end,
                                                  unsigned keeps, K (&results)[VT],
                                                  int (&src)[VT], Comp comp) {
  unsigned commit = 0;
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    const bool has_a = a < a_end, has_b = b < b_end;
    K ak = has_a ? keys[a] : K();
    K bk = has_b ? keys[b] : K();
    /* take A when it is not after B; take B when it is not after A */
    const bool take_a = has_a && (!has_b || !comp(bk, ak));
    const bool take_b = has_b && (!has_a || !comp(ak, bk));
    const bool only_b = take_b && !take_a;
    results[i] = only_b ? bk : ak;
    src[i] = only_b ? b : a;
    const unsigned kind = take_a ? (take_b ? kKeepMatch : kKeepA)
                                 : (take_b ? kKeepB : 0u);
    if (kind & keeps) commit |= 1u << i;
    a += take_a;
    b += take_b;
  }
  return commit;
}

} // namespace mgpu

#endif
