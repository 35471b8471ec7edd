/*
 * dispatch.cuh - from a call's run-time value width and order to the
 * compiled instance.  Kernels are instantiated per key type (one
 * translation unit each) and value width (none, 4 or 8 bytes: values are
 * only moved).  The order is a run-time field of the comparator
 * (key_order) for every primitive but the sorts, whose kernels spend their
 * time in comparisons (sorting networks, serial merges of whole tiles).
 * Built with key_order, i64 pairs' blocksort took 120 registers instead
 * of 80 and locality sort ran 20-30% slower (docs/TUNING.md, Shared
 * pieces).  So the sorts take a comparator without a select: for
 * integer keys bit_order (dispatch_key_word), one instance a key width for
 * both signs and orders, as for merge and the set operations; for floats
 * one instance an order.
 */
#ifndef MGPU_DISPATCH_CUH
#define MGPU_DISPATCH_CUH

#include <type_traits>

#include "block/key_order.cuh"
#include "launch.cuh"

namespace mgpu {

/* Run<K, VALUE_BYTES>::run(ctx, args, comp) does the work; VALUE_BYTES is
 * 0 for keys only.  Its value type is value_t<VALUE_BYTES>. */
template <int VALUE_BYTES>
using value_t = typename value_word<VALUE_BYTES ? VALUE_BYTES : 4>::type;

template <typename R, typename K, typename Args>
mgpu_status dispatch_order(mgpu_context *ctx, mgpu_order order, const Args *args) {
  return R::run(ctx, args, key_order<K>{order == MGPU_GREATER});
}

/* The float sorts' comparator: the order as a type. */
template <typename R, typename K, typename Args>
mgpu_status dispatch_fixed_order(mgpu_context *ctx, mgpu_order order,
                                 const Args *args) {
  if (order == MGPU_GREATER) return R::run(ctx, args, descending<K>());
  return R::run(ctx, args, ascending<K>());
}

template <typename K, template <typename, int> class Run, typename Args>
mgpu_status dispatch_keyed(mgpu_context *ctx, size_t value_size,
                           mgpu_order order, const Args *args) {
  switch (value_size) {
  case 0: return dispatch_order<Run<K, 0>, K>(ctx, order, args);
  case 4: return dispatch_order<Run<K, 4>, K>(ctx, order, args);
  case 8: return dispatch_order<Run<K, 8>, K>(ctx, order, args);
  }
  return mgpu_set_error(ctx, MGPU_EINVAL, "value size must be 0, 4 or 8");
}

/* The mask under which unsigned words of type U order integer keys of
 * `type` as `order` asks (bit_order). */
template <typename U>
U sort_mask(mgpu_dtype type, mgpu_order order) {
  const bool is_signed = type == MGPU_I32 || type == MGPU_I64;
  const U sign = is_signed ? (U)((U)1 << (8 * sizeof(U) - 1)) : (U)0;
  return order == MGPU_GREATER ? (U)~sign : sign;
}

template <typename R, typename U, typename Args>
mgpu_status dispatch_bit_order(mgpu_context *ctx, mgpu_dtype type,
                               mgpu_order order, const Args *args) {
  return R::run(ctx, args, bit_order<U>{sort_mask<U>(type, order)});
}

/* Merge, set operations and the sorts: K is the translation unit's key
 * word (uint32_t, uint64_t, float or double); integer keys of either sign
 * come as K's width, ordered by bit_order.  Float keys take the order at
 * run time (key_order), or, for the sorts (FIXED_ORDER), as a type. */
template <typename K, template <typename, int> class Run, bool FIXED_ORDER,
          typename Args>
mgpu_status dispatch_key_word(mgpu_context *ctx, mgpu_dtype type,
                              size_t value_size, mgpu_order order,
                              const Args *args) {
  switch (value_size) {
#define MGPU_DISPATCH_WORD(VB)                                                 \
  case VB:                                                                     \
    if constexpr (std::is_integral<K>::value)                                  \
      return dispatch_bit_order<Run<K, VB>, K>(ctx, type, order, args);        \
    else if constexpr (FIXED_ORDER)                                            \
      return dispatch_fixed_order<Run<K, VB>, K>(ctx, order, args);            \
    else                                                                       \
      return dispatch_order<Run<K, VB>, K>(ctx, order, args);
    MGPU_DISPATCH_WORD(0)
    MGPU_DISPATCH_WORD(4)
    MGPU_DISPATCH_WORD(8)
#undef MGPU_DISPATCH_WORD
  }
  return mgpu_set_error(ctx, MGPU_EINVAL, "value size must be 0, 4 or 8");
}

} // namespace mgpu

#endif
