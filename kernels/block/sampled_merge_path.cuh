/*
 * sampled_merge_path.cuh - Merge Path search that takes its first steps on
 * samples (every S-th key of A and of B, a compact array that stays in L2)
 * and only its last few in the full arrays.
 *
 * Why: a plain search at a tile boundary of a large merge makes ~26
 * dependent reads scattered over the inputs; measured on an H200 (ncu,
 * 2^26 i32 keys) that partition launch took 34 us against 150 us for the
 * merge itself.  The samples cut the scattered reads to ~log2(2S).
 */
#ifndef MGPU_SAMPLED_MERGE_PATH_CUH
#define MGPU_SAMPLED_MERGE_PATH_CUH

#include "grid_dependency.cuh"
#include "merge_path.cuh"

namespace mgpu {

/* What the samples say of P(k) = comp(b[diag-1-k], a[k]) at k = i * S:
 * +1 surely true, -1 surely false, 0 undecided.  P is false then true as k
 * grows, and so are these answers, which is what the coarse searches use. */
template <int S, typename K, typename I, typename Comp>
__device__ __forceinline__ int sample_verdict(const K *sa, const K *sb, I nb,
                                              I diag, I i, Comp comp) {
  const K ak = sa[i];
  const I m = diag - 1 - i * S; /* the B index P(i * S) compares */
  const I j = m / S;            /* b[j S] <= b[m] <= b[(j + 1) S] */
  if (!comp(sb[j], ak)) return -1;
  /* (j + 1) S < nb, without overflowing for nb near I's largest */
  if (j < (nb - 1) / S && comp(sb[j + 1], ak)) return 1;
  return 0;
}

/* merge_path(a, na, b, nb, diag) using sa[i] = a[i * S], sb[j] = b[j * S].
 * The coarse searches bracket the answer between two samples; the answer
 * is exact whatever the data (a wide bracket only costs more fine steps),
 * and, as for merge_path, it lies in [max(0, diag - nb), min(diag, na)] even
 * for unsorted input, so callers stay in bounds.  I is the coordinates'
 * type: int, or a 64-bit one for inputs past INT_MAX. */
template <int S, typename K, typename I, typename Comp>
__device__ __forceinline__ I sampled_merge_path(const K *a, const K *sa, I na,
                                                const K *b, const K *sb, I nb,
                                                I diag, Comp comp) {
  I lo = diag > nb ? diag - nb : 0;
  I hi = diag < na ? diag : na;
  /* samples i whose k = i S lies in [lo, hi): there P(k) reads b[0, nb) */
  const I i0 = lo / S + (lo % S != 0); /* lo + S - 1 may overflow */
  const I i1 = hi > 0 ? (hi - 1) / S + 1 : 0; /* one past the last */
  if (i0 < i1) {
    /* first sample surely true, and first sample not surely false */
    I t_lo = i0, t_hi = i1, f_lo = i0, f_hi = i1;
    while (t_lo < t_hi || f_lo < f_hi) {
      const I tm = (t_lo + t_hi) >> 1, fm = (f_lo + f_hi) >> 1;
      if (t_lo < t_hi) {
        if (sample_verdict<S>(sa, sb, nb, diag, tm, comp) > 0) t_hi = tm;
        else t_lo = tm + 1;
      }
      if (f_lo < f_hi) {
        if (sample_verdict<S>(sa, sb, nb, diag, fm, comp) >= 0) f_hi = fm;
        else f_lo = fm + 1;
      }
    }
    if (t_lo < i1) hi = min(hi, t_lo * S);         /* P(t_lo S) is true */
    if (f_lo > i0) lo = max(lo, (f_lo - 1) * S + 1); /* P((f_lo-1) S) false */
  }
  while (lo < hi) {
    const I mid = lo + ((hi - lo) >> 1);
    if (comp(b[diag - 1 - mid], a[mid]))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/* Sample i of each input: sa[i] = a[i * S], sb[i] = b[i * S], where they
 * exist. */
template <int S, typename K, typename I>
__device__ __forceinline__ void gather_sample(I i, const K *a, I na, K *sa,
                                              const K *b, I nb, K *sb) {
  if ((long long)i * S < na) sa[i] = a[(long long)i * S];
  if ((long long)i * S < nb) sb[i] = b[(long long)i * S];
}

/* samples[i] = keys[i * S] for i < ceil(n / S). */
template <int S, typename K, typename I>
__global__ void gather_samples_kernel(const K *a, I na, K *sa, const K *b,
                                      I nb, K *sb) {
  /* a partition launched early may start now: it waits for this launch to
   * end before it reads the samples (grid_dependency.cuh) */
  allow_dependent_grids();
  gather_sample<S>((I)(blockIdx.x * blockDim.x + threadIdx.x), a, na, sa, b,
                   nb, sb);
}

/* Samples of n keys at stride s, in the caller's offset type. */
template <typename Off = int> inline Off samples_of(long long n, int s) {
  return (Off)((n + s - 1) / s);
}

} // namespace mgpu

#endif
