/*
 * dispatch.cuh - from a call's run-time value width and order to the
 * compiled instance.  Kernels are instantiated per key type (one
 * translation unit each) and value width (none, 4 or 8 bytes: values are
 * only moved); the order is a run-time field of the comparator
 * (key_order).  Every primitive dispatches the width and order here.
 */
#ifndef MGPU_DISPATCH_CUH
#define MGPU_DISPATCH_CUH

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

} // namespace mgpu

#endif
