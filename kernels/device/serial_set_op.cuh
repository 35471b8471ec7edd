/*
 * serial_set_op.cuh - one thread's walk over its share of a set-operation
 * tile: each step takes one key-rank slot (an unmatched key of A, an
 * unmatched key of B, or a matched pair) and decides whether the slot
 * emits.  What each step took is kept as bits, not keys.
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
 * array) for at most VT slots.  Bit i of *took_a / *took_b says that slot
 * i consumed a key of A / of B (both: a matched pair), which is all the
 * caller needs: which slots an operation keeps is a function of the two
 * bits (set_op_commit), and a slot's key is A's when it took one, else
 * B's, so replaying the bits from (a, b) finds every key again.  Keeping
 * two words instead of VT keys and sources leaves the registers free for
 * occupancy.  Reads stay inside [a, a_end] and [b, b_end] whatever the
 * data, so an unsorted tile only gives meaningless slots. */
template <int VT, typename K, typename Comp>
__device__ __forceinline__ void serial_set_op(const K *keys, int a, int a_end,
                                              int b, int b_end, unsigned *took_a,
                                              unsigned *took_b, Comp comp) {
  unsigned ta = 0, tb = 0;
  /* keys[a_end] and keys[b_end] must be readable: a key is fetched as soon
   * as its side advances, before knowing whether it is needed, which keeps
   * the step to two compares and two loads (ncu: ~21 instructions a step
   * when both keys were fetched under bounds tests every step) */
  K ak = keys[a], bk = keys[b];
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    const bool has_a = a < a_end, has_b = b < b_end;
    /* take A when it is not after B; take B when it is not after A */
    const bool take_a = has_a && (!has_b || !comp(bk, ak));
    const bool take_b = has_b && (!has_a || !comp(ak, bk));
    ta |= (unsigned)take_a << i;
    tb |= (unsigned)take_b << i;
    a += take_a;
    b += take_b;
    ak = keys[a];
    bk = keys[b];
  }
  *took_a = ta;
  *took_b = tb;
}

/* The slots an operation keeps, from the walk's two bitfields. */
__device__ __forceinline__ unsigned set_op_commit(unsigned keeps, unsigned ta,
                                                  unsigned tb) {
  return ((keeps & kKeepA) ? ta & ~tb : 0u) | ((keeps & kKeepB) ? tb & ~ta : 0u) |
         ((keeps & kKeepMatch) ? ta & tb : 0u);
}

} // namespace mgpu

#endif
