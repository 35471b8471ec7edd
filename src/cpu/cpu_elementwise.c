/* cpu_elementwise.c - fill, iota, random, astype and is_sorted on the host. */
#include "cpu.h"

mgpu_status mgpu_cpu_fill(mgpu_context *ctx, mgpu_fill_args *a) {
  (void)ctx;
  void *dst = a->dst;
  size_t n = a->n, width = a->width;
  const void *value = a->value;
  if (width == 4) {
    uint32_t v;
    memcpy(&v, value, 4);
    for (size_t i = 0; i < n; i++) ((uint32_t *)dst)[i] = v;
  } else {
    uint64_t v;
    memcpy(&v, value, 8);
    for (size_t i = 0; i < n; i++) ((uint64_t *)dst)[i] = v;
  }
  return MGPU_OK;
}

mgpu_status mgpu_cpu_iota(mgpu_context *ctx, mgpu_iota_args *a) {
  (void)ctx;
  void *dst = a->dst;
  size_t n = a->n;
  mgpu_dtype t = a->type;
  mgpu_scalar start = a->start, step = a->step;
  uint64_t s = (uint64_t)start.i, d = (uint64_t)step.i;
  for (size_t i = 0; i < n; i++) {
    uint64_t v = s + (uint64_t)i * d; /* wraps, as the dtype does */
    switch (t) {
    case MGPU_I32: ((int32_t *)dst)[i] = (int32_t)(uint32_t)v; break;
    case MGPU_U32: ((uint32_t *)dst)[i] = (uint32_t)v; break;
    case MGPU_I64: ((int64_t *)dst)[i] = (int64_t)v; break;
    case MGPU_U64: ((uint64_t *)dst)[i] = v; break;
    case MGPU_F32: ((float *)dst)[i] = (float)(start.f + (double)i * step.f); break;
    case MGPU_F64: ((double *)dst)[i] = start.f + (double)i * step.f; break;
    default: break;
    }
  }
  return MGPU_OK;
}

mgpu_status mgpu_cpu_random(mgpu_context *ctx, mgpu_random_args *a) {
  (void)ctx;
  void *dst = a->dst;
  size_t n = a->n;
  mgpu_dtype t = a->type;
  mgpu_scalar lo = a->lo, hi = a->hi;
  uint64_t seed = a->seed;
  for (size_t i = 0; i < n; i++) {
    uint64_t r = mgpu_random_bits(seed, i);
    uint64_t v = mgpu_random_int(r, (uint64_t)lo.i, (uint64_t)hi.i);
    switch (t) {
    case MGPU_I32: ((int32_t *)dst)[i] = (int32_t)(uint32_t)v; break;
    case MGPU_U32: ((uint32_t *)dst)[i] = (uint32_t)v; break;
    case MGPU_I64: ((int64_t *)dst)[i] = (int64_t)v; break;
    case MGPU_U64: ((uint64_t *)dst)[i] = v; break;
    case MGPU_F32: ((float *)dst)[i] = mgpu_random_f32(r, lo.f, hi.f); break;
    case MGPU_F64: ((double *)dst)[i] = mgpu_random_real(r, lo.f, hi.f); break;
    default: break;
    }
  }
  return MGPU_OK;
}

/* An element read at full width: integers as their value's 64-bit pattern
 * (sign- or zero-extended), floats as a double. */
typedef struct wide {
  uint64_t bits;
  double real;
} wide;

static wide load_wide(const void *src, mgpu_dtype t, size_t i) {
  wide w = {0, 0.0};
  switch (t) {
  case MGPU_I32: w.bits = (uint64_t)(int64_t)((const int32_t *)src)[i]; break;
  case MGPU_U32: w.bits = ((const uint32_t *)src)[i]; break;
  case MGPU_I64: w.bits = (uint64_t)((const int64_t *)src)[i]; break;
  case MGPU_U64: w.bits = ((const uint64_t *)src)[i]; break;
  case MGPU_F32: w.real = ((const float *)src)[i]; break;
  case MGPU_F64: w.real = ((const double *)src)[i]; break;
  default: break;
  }
  return w;
}

/* Integer sources convert straight to float (no detour through double,
 * which would round twice). */
static float int_to_f32(uint64_t bits, mgpu_dtype src) {
  return mgpu_dtype_is_signed(src) ? (float)(int64_t)bits : (float)bits;
}
static double int_to_f64(uint64_t bits, mgpu_dtype src) {
  return mgpu_dtype_is_signed(src) ? (double)(int64_t)bits : (double)bits;
}

mgpu_status mgpu_cpu_astype(mgpu_context *ctx, mgpu_astype_args *a) {
  (void)ctx;
  void *dst = a->dst;
  const void *src = a->src;
  mgpu_dtype dt = a->dst_type, st = a->src_type;
  size_t n = a->n;
  int from_float = mgpu_dtype_is_float(st);
  for (size_t i = 0; i < n; i++) {
    wide w = load_wide(src, st, i);
    switch (dt) {
    case MGPU_I32:
      ((int32_t *)dst)[i] = from_float ? mgpu_f2i32(w.real) : (int32_t)(uint32_t)w.bits;
      break;
    case MGPU_U32:
      ((uint32_t *)dst)[i] = from_float ? mgpu_f2u32(w.real) : (uint32_t)w.bits;
      break;
    case MGPU_I64:
      ((int64_t *)dst)[i] = from_float ? mgpu_f2i64(w.real) : (int64_t)w.bits;
      break;
    case MGPU_U64:
      ((uint64_t *)dst)[i] = from_float ? mgpu_f2u64(w.real) : w.bits;
      break;
    case MGPU_F32:
      ((float *)dst)[i] = from_float ? (float)w.real : int_to_f32(w.bits, st);
      break;
    case MGPU_F64:
      ((double *)dst)[i] = from_float ? w.real : int_to_f64(w.bits, st);
      break;
    default: break;
    }
  }
  return MGPU_OK;
}

#define DEFINE_IS_SORTED(SUF, T, LESS)                                         \
  static int is_sorted_##SUF(const T *a, size_t n, int greater) {              \
    for (size_t i = 1; i < n; i++)                                             \
      if (greater ? LESS(a[i - 1], a[i]) : LESS(a[i], a[i - 1])) return 0;     \
    return 1;                                                                  \
  }
CPU_FOR_EACH_KEY(DEFINE_IS_SORTED)

mgpu_status mgpu_cpu_is_sorted(mgpu_context *ctx, mgpu_is_sorted_args *a) {
  (void)ctx;
  const void *src = a->src;
  size_t n = a->n;
  mgpu_dtype t = a->type;
  mgpu_order order = a->order;
  int *sorted = &a->sorted;
  int g = order == MGPU_GREATER;
  switch (t) {
    case MGPU_I32: *sorted = is_sorted_i32(src, n, g); break;
    case MGPU_U32: *sorted = is_sorted_u32(src, n, g); break;
    case MGPU_I64: *sorted = is_sorted_i64(src, n, g); break;
    case MGPU_U64: *sorted = is_sorted_u64(src, n, g); break;
    case MGPU_F32: *sorted = is_sorted_f32(src, n, g); break;
    case MGPU_F64: *sorted = is_sorted_f64(src, n, g); break;
  default: break;
  }
  return MGPU_OK;
}
