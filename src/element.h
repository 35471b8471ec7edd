/*
 * element.h - per-element rules shared by the cpu backend (C11) and the
 * kernels (CUDA C++), so that both produce the same bits: the random
 * generator, the conversions of astype, and the float order.
 */
#ifndef MGPU_ELEMENT_H
#define MGPU_ELEMENT_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define MGPU_HD static __host__ __device__ __forceinline__
#else
#define MGPU_HD static inline
#endif

/* ---- random: element i depends only on (seed, i) ------------------------ */

MGPU_HD uint64_t mgpu_mix64(uint64_t x) {
  /* splitmix64's finaliser: every input bit reaches every output bit. */
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

MGPU_HD uint64_t mgpu_random_bits(uint64_t seed, uint64_t i) {
  return mgpu_mix64(mgpu_mix64(seed) + (i + 1) * 0x9e3779b97f4a7c15ULL);
}

/* Uniform integer in [lo, hi] (as 64-bit patterns; span 0 = all 2^64). */
MGPU_HD uint64_t mgpu_random_int(uint64_t bits, uint64_t lo, uint64_t hi) {
  uint64_t span = hi - lo + 1;
  return span ? lo + bits % span : bits;
}

/* Uniform double in [lo, hi) for lo < hi (lo when lo == hi).  A span past
 * the largest double is taken in halves.  The rounding of lo + span * u can
 * reach hi; such a draw becomes the largest double below hi.  The device
 * must not contract these into FMAs, or it would differ from the host in the
 * last bit. */
MGPU_HD double mgpu_random_real(uint64_t bits, double lo, double hi) {
  double u = (double)(bits >> 11) * (1.0 / 9007199254740992.0);
#ifdef __CUDA_ARCH__
  double span = __dadd_rn(hi, -lo);
  double r = isinf(span)
                 ? __dmul_rn(__dadd_rn(__dmul_rn(lo, 0.5),
                                       __dmul_rn(__dadd_rn(__dmul_rn(hi, 0.5),
                                                           -__dmul_rn(lo, 0.5)),
                                                 u)),
                             2.0)
                 : __dadd_rn(lo, __dmul_rn(span, u));
#else
  double span = hi - lo;
  double r = isinf(span) ? (lo * 0.5 + (hi * 0.5 - lo * 0.5) * u) * 2.0
                         : lo + span * u;
#endif
  return r >= hi && lo < hi ? nextafter(hi, -INFINITY) : r;
}

/* Uniform f32 in [lo, hi), where lo and hi are the smallest floats at or
 * above the caller's bounds (2^128 standing for a bound past the largest
 * float; mgpu_random_f32_bound): the double draw rounded down, so that it
 * stays below hi. */
MGPU_HD float mgpu_random_f32(uint64_t bits, double lo, double hi) {
  double r = mgpu_random_real(bits, lo, hi);
#ifdef __CUDA_ARCH__
  return __double2float_rd(r);
#else
  float v = (float)r;
  return (double)v > r ? nextafterf(v, -INFINITY) : v;
#endif
}

/* The smallest float at or above x (finite x), as a double; 2^128 above
 * the largest float. */
MGPU_HD double mgpu_random_f32_bound(double x) {
  if (x > 3.4028234663852886e38) return 340282366920938463463374607431768211456.0;
  if (x < -3.4028234663852886e38) return -3.4028234663852886e38;
  float v = (float)x;
  return (double)v < x ? (double)nextafterf(v, INFINITY) : (double)v;
}

/* ---- conversions: float to integer truncates and saturates, NaN -> 0 ---- */

MGPU_HD int32_t mgpu_f2i32(double x) {
  if (x != x) return 0;
  if (x >= 2147483648.0) return INT32_MAX;
  if (x <= -2147483649.0) return INT32_MIN;
  return (int32_t)x;
}

MGPU_HD uint32_t mgpu_f2u32(double x) {
  if (x != x || x <= -1.0) return 0;
  if (x >= 4294967296.0) return UINT32_MAX;
  return (uint32_t)x;
}

MGPU_HD int64_t mgpu_f2i64(double x) {
  if (x != x) return 0;
  if (x >= 9223372036854775808.0) return INT64_MAX;
  if (x <= -9223372036854775808.0) return INT64_MIN;
  return (int64_t)x;
}

MGPU_HD uint64_t mgpu_f2u64(double x) {
  if (x != x || x <= -1.0) return 0;
  if (x >= 18446744073709551616.0) return UINT64_MAX;
  return (uint64_t)x;
}

/* ---- float order: NaN after every number, all NaNs equivalent ----------- */

MGPU_HD int mgpu_f32_less(float a, float b) {
  return a < b || (b != b && a == a);
}

MGPU_HD int mgpu_f64_less(double a, double b) {
  return a < b || (b != b && a == a);
}

/* The same order as unsigned words, for radix sorts: the code of a float
 * (on its bits) is 2^(W-1) plus its signed magnitude, so -0.0 and 0.0
 * share one code, and every NaN gets the largest word: the order's
 * equivalent keys share one code, and a stable sort keeps them in input
 * order.  A sort orders by the code but moves the original bits.
 * Descending: the complement of the code.  (Two selects and no branch on
 * zero: the sweeps compute it for every key and pass.) */
MGPU_HD uint32_t mgpu_f32_radix_code(uint32_t u) {
  const uint32_t mag = u & 0x7fffffffu;
  const uint32_t c = (u >> 31) ? 0x80000000u - mag : 0x80000000u + mag;
  return mag > 0x7f800000u ? 0xffffffffu : c;
}

MGPU_HD uint64_t mgpu_f64_radix_code(uint64_t u) {
  const uint64_t mag = u & 0x7fffffffffffffffull;
  const uint64_t c = (u >> 63) ? 0x8000000000000000ull - mag
                               : 0x8000000000000000ull + mag;
  return mag > 0x7ff0000000000000ull ? 0xffffffffffffffffull : c;
}

/* ---- min and max: commutative, so that any order of reduction gives the
 * same bits.  Equal elements of the order above (-0.0 and 0.0, NaNs) are
 * told apart by IEEE 754's totalOrder (-0.0 before 0.0, NaNs by sign and
 * payload): min takes the first of it, max the last. -------------------- */

MGPU_HD uint32_t mgpu_f32_total_key(float x) {
  union { float f; uint32_t u; } v;
  v.f = x;
  return (v.u & 0x80000000u) ? ~v.u : (v.u | 0x80000000u);
}

MGPU_HD uint64_t mgpu_f64_total_key(double x) {
  union { double f; uint64_t u; } v;
  v.f = x;
  return (v.u & 0x8000000000000000ull) ? ~v.u : (v.u | 0x8000000000000000ull);
}

MGPU_HD float mgpu_f32_min(float a, float b) {
  if (mgpu_f32_less(a, b)) return a;
  if (mgpu_f32_less(b, a)) return b;
  return mgpu_f32_total_key(b) < mgpu_f32_total_key(a) ? b : a;
}

MGPU_HD float mgpu_f32_max(float a, float b) {
  if (mgpu_f32_less(a, b)) return b;
  if (mgpu_f32_less(b, a)) return a;
  return mgpu_f32_total_key(b) > mgpu_f32_total_key(a) ? b : a;
}

MGPU_HD double mgpu_f64_min(double a, double b) {
  if (mgpu_f64_less(a, b)) return a;
  if (mgpu_f64_less(b, a)) return b;
  return mgpu_f64_total_key(b) < mgpu_f64_total_key(a) ? b : a;
}

MGPU_HD double mgpu_f64_max(double a, double b) {
  if (mgpu_f64_less(a, b)) return b;
  if (mgpu_f64_less(b, a)) return a;
  return mgpu_f64_total_key(b) > mgpu_f64_total_key(a) ? b : a;
}

#endif /* MGPU_ELEMENT_H */
