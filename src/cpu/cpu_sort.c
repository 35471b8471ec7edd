/*
 * cpu_sort.c - mgpu_sort on the cpu: a least-significant-digit radix sort
 * of 8-bit digits on the keys' order codes (element.h), moving the
 * original bits, and skipping the digits every key shares.  It does not go
 * through cpu_mergesort.c, so that the specs, which hold both to the same
 * results, check one against the other.
 */
#include <stdlib.h>

#include "cpu.h"

#define RADIX_BITS 8
#define RADIX (1 << RADIX_BITS)

/* Counting-sort passes over the code's digits, least significant first;
 * one read of the keys counts every digit's histogram. */
#define DEFINE_RADIX(W, U)                                                     \
  static U code_##W(U u, int is_float, U mask) {                               \
    if (is_float) u = mgpu_f##W##_radix_code(u);                               \
    return u ^ mask;                                                           \
  }                                                                            \
  static void radix_##W(U *keys, void *vals, size_t n, size_t vs,              \
                        int is_float, U mask, U *tk, void *tv) {               \
    enum { PASSES = W / RADIX_BITS };                                          \
    size_t count[PASSES][RADIX];                                               \
    memset(count, 0, sizeof count);                                            \
    for (size_t i = 0; i < n; i++) {                                           \
      U c = code_##W(keys[i], is_float, mask);                                 \
      for (int p = 0; p < PASSES; p++)                                         \
        count[p][(c >> (p * RADIX_BITS)) & (RADIX - 1)]++;                     \
    }                                                                          \
    U *sk = keys, *dk = tk;                                                    \
    void *sv = vals, *dv = tv;                                                 \
    for (int p = 0; p < PASSES; p++) {                                         \
      size_t start[RADIX], sum = 0;                                            \
      int trivial = 0;                                                         \
      for (int b = 0; b < RADIX; b++) {                                        \
        trivial |= count[p][b] == n;                                           \
        start[b] = sum;                                                        \
        sum += count[p][b];                                                    \
      }                                                                        \
      if (trivial) continue;                                                   \
      for (size_t i = 0; i < n; i++) {                                         \
        U c = code_##W(sk[i], is_float, mask);                                 \
        size_t to = start[(c >> (p * RADIX_BITS)) & (RADIX - 1)]++;            \
        dk[to] = sk[i];                                                        \
        cpu_move_value(dv, to, sv, i, vs);                                     \
      }                                                                        \
      U *t = sk; sk = dk; dk = t;                                              \
      void *v = sv; sv = dv; dv = v;                                           \
    }                                                                          \
    if (sk != keys) {                                                          \
      memcpy(keys, sk, n * sizeof(U));                                         \
      if (vs) memcpy(vals, sv, n * vs);                                        \
    }                                                                          \
  }

DEFINE_RADIX(32, uint32_t)
DEFINE_RADIX(64, uint64_t)

mgpu_status mgpu_cpu_sort(mgpu_context *ctx, mgpu_sort_args *s) {
  const size_t ks = mgpu_dtype_size(s->key_type);
  const int is_float = mgpu_dtype_is_float(s->key_type);
  const int is_signed = s->key_type == MGPU_I32 || s->key_type == MGPU_I64;
  const int greater = s->order == MGPU_GREATER;
  void *tk = NULL, *tv = NULL;
  mgpu_status st = mgpu_alloc(ctx, s->n * ks, &tk);
  if (st != MGPU_OK) return st;
  if (s->value_size &&
      (st = mgpu_alloc(ctx, s->n * s->value_size, &tv)) != MGPU_OK) {
    mgpu_free(ctx, tk, s->n * ks);
    return st;
  }
  /* the sign bit flipped orders signed integers as unsigned words; all
   * bits flipped reverses the order */
  if (ks == 4) {
    uint32_t mask = is_signed ? 0x80000000u : 0;
    radix_32(s->keys, s->vals, s->n, s->value_size, is_float,
             greater ? ~mask : mask, tk, tv);
  } else {
    uint64_t mask = is_signed ? 0x8000000000000000ull : 0;
    radix_64(s->keys, s->vals, s->n, s->value_size, is_float,
             greater ? ~mask : mask, tk, tv);
  }
  if (tv) mgpu_free(ctx, tv, s->n * s->value_size);
  mgpu_free(ctx, tk, s->n * ks);
  return MGPU_OK;
}
