/*
 * serial_set_op.cuh - one thread's walk over its share of a set-operation
 * tile: each step takes one key-rank slot (an unmatched key of A, an
 * unmatched key of B, or a matched pair) and decides whether the slot
 * emits.  What each step took is kept as bits, not keys.
 */
#ifndef MGPU_SERIAL_SET_OP_CUH
#define MGPU_SERIAL_SET_OP_CUH

#include "key_order.cuh"

namespace mgpu {

/* A key from a 32-bit shared-memory address (what __cvta_generic_to_shared
 * gives).  Plain loads through a generic pointer had the compiler add the
 * shared window's base to every address. */
template <typename K> __device__ __forceinline__ K lds(unsigned addr) {
  static_assert(sizeof(K) == 4 || sizeof(K) == 8, "4- or 8-byte keys");
  if constexpr (sizeof(K) == 4) {
    unsigned v;
    asm("ld.shared.b32 %0, [%1];" : "=r"(v) : "r"(addr));
    return __builtin_bit_cast(K, v);
  } else {
    unsigned long long v;
    asm("ld.shared.b64 %0, [%1];" : "=l"(v) : "r"(addr));
    return __builtin_bit_cast(K, v);
  }
}

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

/* One step of the walk over 32-bit shared-memory byte addresses: pa / pb
 * point at the keys ak / bk waiting on each side, ea / eb at the ends, and
 * ak1 / bk1 hold the key after each.  A side that advances takes its next
 * key from ak1 / bk1 and fetches the one after that, so the chain from one
 * step's compare to the next is compare, AND, move; with the load on it
 * (compare, AND, add, load), set operations ran 1-5% slower
 * (docs/TUNING.md, Set operations).  Keeping two keys ahead was
 * slower again (more moves a step).
 * The generic step is C++; integer keys in either order have it written
 * out in PTX, because the compiler's own version of the same logic took
 * ~18 instructions a step (a shared-window base added to every address,
 * predicates reset before each conditional compare, bits cleared before
 * being set: cuobjdump, i32 keys) where the PTX took 12 before the keys
 * ahead and 14 with them: two bounds tests, two compares that fold in the
 * other side's test, two ANDs, and on each taken side an advance, a bit
 * set, a move and a load. */
template <typename K, typename Comp> struct set_op_step {
  static __device__ __forceinline__ void run(unsigned &pa, unsigned &pb,
                                             unsigned ea, unsigned eb, K &ak,
                                             K &bk, K &ak1, K &bk1,
                                             unsigned &ta, unsigned &tb,
                                             unsigned bit, Comp comp) {
    const bool has_a = pa < ea, has_b = pb < eb;
    /* take A when it is not after B; take B when it is not after A */
    const bool take_a = has_a & !(has_b & comp(bk, ak));
    const bool take_b = has_b & !(has_a & comp(ak, bk));
    if (take_a) {
      ta |= bit;
      pa += sizeof(K);
      ak = ak1;
      ak1 = lds<K>(pa + sizeof(K));
    }
    if (take_b) {
      tb |= bit;
      pb += sizeof(K);
      bk = bk1;
      bk1 = lds<K>(pb + sizeof(K));
    }
  }
};

/* PTX of one step.  GE_A is "A is not after B" (take A unless B is
 * strictly first), GE_B the reverse, each a setp folding in !has_other. */
#define MGPU_SET_OP_STEP_PTX(GE_A, GE_B, BYTES, MOV, LD)                     \
  "{\n\t.reg .pred ha, hb, ta, tb;\n\t"                                      \
  "setp.lt.u32 ha, %0, %8;\n\t"                                              \
  "setp.lt.u32 hb, %1, %9;\n\t"                                              \
  GE_A " ta, %2, %3, !hb;\n\t"                                               \
  GE_B " tb, %2, %3, !ha;\n\t"                                               \
  "and.pred ta, ta, ha;\n\t"                                                 \
  "and.pred tb, tb, hb;\n\t"                                                 \
  "@ta add.u32 %0, %0, " #BYTES ";\n\t"                                      \
  "@tb add.u32 %1, %1, " #BYTES ";\n\t"                                      \
  "@ta or.b32 %4, %4, %10;\n\t"                                              \
  "@tb or.b32 %5, %5, %10;\n\t"                                              \
  "@ta " MOV " %2, %6;\n\t"                                                  \
  "@tb " MOV " %3, %7;\n\t"                                                  \
  "@ta " LD " %6, [%0+" #BYTES "];\n\t"                                      \
  "@tb " LD " %7, [%1+" #BYTES "];\n\t}"

/* One order's specialisation; GE_A / GE_B as for MGPU_SET_OP_STEP_PTX. */
#define MGPU_SET_OP_STEP_IN(T, ORDER, C, GE_A, GE_B, BYTES, MOV, LD)         \
  template <> struct set_op_step<T, ORDER<T>> {                               \
    static __device__ __forceinline__ void run(unsigned &pa, unsigned &pb,    \
                                               unsigned ea, unsigned eb,      \
                                               T &ak, T &bk, T &ak1, T &bk1,  \
                                               unsigned &ta, unsigned &tb,    \
                                               unsigned bit, ORDER<T>) {      \
      asm(MGPU_SET_OP_STEP_PTX(GE_A, GE_B, BYTES, MOV, LD)                    \
          : "+r"(pa), "+r"(pb), "+" C(ak), "+" C(bk), "+r"(ta), "+r"(tb),     \
            "+" C(ak1), "+" C(bk1)                                            \
          : "r"(ea), "r"(eb), "r"(bit));                                      \
    }                                                                         \
  };

/* %2 = ak, %3 = bk.  Ascending: take A when bk >= ak, i.e. ak <= bk
 * ("setp.le ta, ak, bk"), take B when ak >= bk.  Descending reverses. */
#define MGPU_SET_OP_STEP(T, C, S, BYTES, MOV, LD)                             \
  MGPU_SET_OP_STEP_IN(T, ascending, C, "setp.le.or." S, "setp.ge.or." S,     \
                      BYTES, MOV, LD)                                         \
  MGPU_SET_OP_STEP_IN(T, descending, C, "setp.ge.or." S, "setp.le.or." S,    \
                      BYTES, MOV, LD)
MGPU_SET_OP_STEP(int, "r", "s32", 4, "mov.b32", "ld.shared.b32")
MGPU_SET_OP_STEP(unsigned, "r", "u32", 4, "mov.b32", "ld.shared.b32")
MGPU_SET_OP_STEP(long long, "l", "s64", 8, "mov.b64", "ld.shared.b64")
MGPU_SET_OP_STEP(unsigned long long, "l", "u64", 8, "mov.b64",
                 "ld.shared.b64")
#undef MGPU_SET_OP_STEP
#undef MGPU_SET_OP_STEP_IN
#undef MGPU_SET_OP_STEP_PTX

/* Walks keys[a, a_end) (A) against keys[b, b_end) (B, in the same shared
 * array) for at most VT slots.  Bit i of *took_a / *took_b says that slot
 * i consumed a key of A / of B (both: a matched pair), which is all the
 * caller needs: which slots an operation keeps is a function of the two
 * bits (set_op_commit), and a slot's key is A's when it took one, else
 * B's, so replaying the bits from (a, b) finds every key again.  Keeping
 * two words instead of VT keys and sources leaves the registers free for
 * occupancy.  Reads stay inside [a, a_end + 1] and [b, b_end + 1] whatever
 * the data, so an unsorted tile only gives meaningless slots. */
template <int VT, typename K, typename Comp>
__device__ __forceinline__ void serial_set_op_in(const K *keys, int a,
                                                 int a_end, int b, int b_end,
                                                 unsigned *took_a,
                                                 unsigned *took_b, Comp comp) {
  const unsigned base = (unsigned)__cvta_generic_to_shared(keys);
  unsigned pa = base + (unsigned)a * sizeof(K);
  unsigned pb = base + (unsigned)b * sizeof(K);
  const unsigned ea = base + (unsigned)a_end * sizeof(K);
  const unsigned eb = base + (unsigned)b_end * sizeof(K);
  unsigned ta = 0, tb = 0;
  /* keys[a_end + 1] and keys[b_end + 1] must be readable: each side holds
   * the key after its waiting one, before knowing whether it is needed */
  K ak = lds<K>(pa), bk = lds<K>(pb);
  K ak1 = lds<K>(pa + sizeof(K)), bk1 = lds<K>(pb + sizeof(K));
#pragma unroll
  for (int i = 0; i < VT; ++i)
    set_op_step<K, Comp>::run(pa, pb, ea, eb, ak, bk, ak1, bk1, ta, tb,
                              1u << i, comp);
  /* Opaque from here: otherwise the compiler carries the VT steps' take
   * predicates into the caller's replay, runs out of predicate registers
   * and spills them (P2R/STL after the walk, 84 bytes at 128 x 31). */
  asm("" : "+r"(ta), "+r"(tb));
  *took_a = ta;
  *took_b = tb;
}

/* Walks keys[a, a_end) (A) against keys[b, b_end) (B, in the same shared
 * array) for at most VT slots.  Bit i of *took_a / *took_b says that slot
 * i consumed a key of A / of B (both: a matched pair), which is all the
 * caller needs: which slots an operation keeps is a function of the two
 * bits (set_op_commit), and a slot's key is A's when it took one, else
 * B's, so replaying the bits from (a, b) finds every key again.  Keeping
 * two words instead of VT keys and sources leaves the registers free for
 * occupancy.  Reads stay inside [a, a_end + 1] and [b, b_end + 1] whatever
 * the data, so an unsorted tile only gives meaningless slots.  The order
 * is chosen once, outside the walk, so that each step is the fixed
 * order's (the PTX steps above for integer keys). */
template <int VT, typename K>
__device__ __forceinline__ void serial_set_op(const K *keys, int a, int a_end,
                                              int b, int b_end, unsigned *took_a,
                                              unsigned *took_b,
                                              key_order<K> order) {
  if (order.greater)
    serial_set_op_in<VT>(keys, a, a_end, b, b_end, took_a, took_b,
                         descending<K>());
  else
    serial_set_op_in<VT>(keys, a, a_end, b, b_end, took_a, took_b,
                         ascending<K>());
}

/* The slots an operation keeps, from the walk's two bitfields. */
__device__ __forceinline__ unsigned set_op_commit(unsigned keeps, unsigned ta,
                                                  unsigned tb) {
  return ((keeps & kKeepA) ? ta & ~tb : 0u) | ((keeps & kKeepB) ? tb & ~ta : 0u) |
         ((keeps & kKeepMatch) ? ta & tb : 0u);
}

} // namespace mgpu

#endif
