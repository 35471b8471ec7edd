/*
 * dispatch.cuh - from a call's run-time value width and order to the
 * compiled instance.  Kernels are instantiated per key type (one
 * translation unit each) and value width (none, 4 or 8 bytes: values are
 * only moved).  The order is a run-time field of the comparator
 * (key_order) for every primitive but the sorts, whose kernels spend their
 * time in comparisons (sorting networks, serial merges of whole tiles):
 * those are built once per order (dispatch_keyed_by_order).  Built with
 * key_order, i64 pairs' blocksort took 120 registers instead of 80 and
 * locality sort ran 20-30% slower (docs/TUNING.md, Shared pieces).
 */
#ifndef MGPU_DISPATCH_CUH
#define MGPU_DISPATCH_CUH

#include <stdint.h>

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

/* The sorts' comparator: the order as a type. */
template <typename R, typename K, typename Args>
mgpu_status dispatch_fixed_order(mgpu_context *ctx, mgpu_order order,
                                 const Args *args) {
  if (order == MGPU_GREATER) return R::run(ctx, args, descending<K>());
  return R::run(ctx, args, ascending<K>());
}

template <typename K, template <typename, int> class Run, bool FIXED_ORDER,
          typename Args>
mgpu_status dispatch_width(mgpu_context *ctx, size_t value_size,
                           mgpu_order order, const Args *args) {
  switch (value_size) {
#define MGPU_DISPATCH_WIDTH(VB)                                                \
  case VB:                                                                     \
    if constexpr (FIXED_ORDER)                                                 \
      return dispatch_fixed_order<Run<K, VB>, K>(ctx, order, args);            \
    else                                                                       \
      return dispatch_order<Run<K, VB>, K>(ctx, order, args);
    MGPU_DISPATCH_WIDTH(0)
    MGPU_DISPATCH_WIDTH(4)
    MGPU_DISPATCH_WIDTH(8)
#undef MGPU_DISPATCH_WIDTH
  }
  return mgpu_set_error(ctx, MGPU_EINVAL, "value size must be 0, 4 or 8");
}

template <typename K, template <typename, int> class Run, typename Args>
mgpu_status dispatch_keyed(mgpu_context *ctx, size_t value_size,
                           mgpu_order order, const Args *args) {
  return dispatch_width<K, Run, false>(ctx, value_size, order, args);
}

template <typename K, template <typename, int> class Run, typename Args>
mgpu_status dispatch_keyed_by_order(mgpu_context *ctx, size_t value_size,
                                    mgpu_order order, const Args *args) {
  return dispatch_width<K, Run, true>(ctx, value_size, order, args);
}

/* f(Off()) with Off the type of a call's global positions: int32_t when
 * its largest, `total` (merge: na + nb; mergesort: n), is at most
 * INT32_MAX, so that calls below 2^31 elements run the 32-bit code they
 * were tuned with, and int64_t past it.  Each kernel taking Off is built
 * twice from one source. */
template <typename F> mgpu_status dispatch_offset(size_t total, F f) {
  if (total <= (size_t)INT32_MAX) return f(int32_t());
  return f(int64_t());
}

/* The mask under which unsigned words of type U order integer keys of
 * `type` as `order` asks (bit_order): sorted_search and is_sorted take
 * it, one instance a key width.  Merge, the set operations and the sorts
 * do not: with it they ran up to 7% (merge, set operations at 2^20-2^22)
 * and 34% (locality sort) slower (docs/TUNING.md, Shared pieces). */
template <typename U>
U sort_mask(mgpu_dtype type, mgpu_order order) {
  const bool is_signed = type == MGPU_I32 || type == MGPU_I64;
  const U sign = is_signed ? (U)((U)1 << (8 * sizeof(U) - 1)) : (U)0;
  return order == MGPU_GREATER ? (U)~sign : sign;
}

} // namespace mgpu

#endif
