/*
 * setop.cuh - mgpu_setop on the GPU.  A partition launch finds, for every
 * tile boundary, the Balanced Path point (starred when it would cut a
 * matched pair); then one block per tile loads its share of A and B,
 * splits it per thread with a second Balanced Path search in shared
 * memory, walks VT key-rank slots per thread, and compacts what it keeps.
 * Tiles learn where their output goes by a decoupled look-back over the
 * tiles before them, so the inputs are read once and the output written
 * once; the total reaches the host in the call's one download.
 */
#ifndef MGPU_SETOP_CUH
#define MGPU_SETOP_CUH

#include <climits>
#include <cub/block/block_scan.cuh>

#include "merge.cuh"
#include "device/balanced_path.cuh"
#include "device/serial_set_op.cuh"
#include "device/tile_prefix.cuh"

namespace mgpu {

/* splits[i] = the Balanced Path point at diagonal i * nv: A's count in the
 * low 31 bits, the star in bit 31. */
template <int S, typename K, typename Comp>
__global__ void setop_partition_kernel(const K *a, const K *sa, int na,
                                       const K *b, const K *sb, int nb, int nv,
                                       int count, bool duplicates,
                                       unsigned *splits, Comp comp) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const long long total = (long long)na + nb;
  long long d = (long long)i * nv;
  d = d < total ? d : total;
  path_point bp;
  if (total <= INT_MAX) {
    const int diag = (int)d;
    const int p = sa ? sampled_merge_path<S>(a, sa, na, b, sb, nb, diag, comp)
                     : merge_path(a, na, b, nb, diag, comp);
    bp = balanced_path<int>(a, na, b, nb, diag, p, duplicates, comp);
  } else {
    const long long p = merge_path(a, (long long)na, b, (long long)nb, d, comp);
    bp = balanced_path<long long>(a, (long long)na, b, (long long)nb, d, p,
                                  duplicates, comp);
  }
  splits[i] = (unsigned)bp.a | ((unsigned)bp.star << 31);
}

template <typename K, typename V> struct setop_tiles {
  const K *a, *b;
  const V *av, *bv;
  int na, nb;
  const unsigned *splits;
  unsigned long long *status; /* one word per tile, zeroed */
  unsigned long long *total;  /* written by the last tile */
  K *out;
  V *outv;
  long long capacity;
  unsigned keeps;
  bool duplicates;
};

template <int NT, int VT, typename K> struct setop_smem {
  /* the tile's A then B (a starred end adds one), and one spare slot:
   * serial_set_op reads the key at the end of a range */
  K keys[NT * VT + 2];
  /* where the kept keys sit in keys[], in output order */
  unsigned short kept[NT * VT];
  int start_a[NT + 1], start_b[NT + 1];
  typename cub::BlockScan<int, NT>::TempStorage scan;
  long long base;
};

template <typename P, bool HAS_V, typename K, typename V, typename Comp>
__global__ void __launch_bounds__(P::NT, P::MIN_BLOCKS)
    setop_kernel(setop_tiles<K, V> t, Comp comp) {
  constexpr int NT = P::NT, VT = P::VT, NV = P::NV;
  static_assert(VT <= 32, "a thread's slots are bits of one word");
  static_assert(NV < 65535, "kept[] holds tile positions in 16 bits");
  auto &sm = *shared_as<setop_smem<NT, VT, K>>();
  const int tid = threadIdx.x, tile = blockIdx.x;

  /* The tile's intervals, from its two Balanced Path points; clamped so
   * that non-monotone points (unsorted input) stay inside both inputs and
   * inside shared memory. */
  const unsigned s0 = t.splits[tile], s1 = t.splits[tile + 1];
  const long long total = (long long)t.na + t.nb;
  const long long d0 = (long long)tile * NV;
  const long long d1 = d0 + NV < total ? d0 + NV : total;
  const int a0 = (int)(s0 & 0x7fffffffu), a1 = (int)(s1 & 0x7fffffffu);
  const int b0 = (int)(d0 - a0 + (s0 >> 31));
  const int b1 = (int)(d1 - a1 + (s1 >> 31));
  const int na = max(0, min(a1 - a0, NV + 1));
  const int nb = max(0, min(b1 - b0, NV + 1 - na));
  load_two_to_shared<NT, VT + 1>(t.a + a0, na, t.b + b0, nb, sm.keys);
  __syncthreads();

  /* Each thread's start: the Balanced Path point on its diagonal of the
   * tile; its end is the next thread's start. */
  const int count = na + nb;
  const int diag = min(VT * tid, count);
  const int p = merge_path(sm.keys, na, sm.keys + na, nb, diag, comp);
  const path_point bp =
      balanced_path<int>(sm.keys, na, sm.keys + na, nb, diag, p, t.duplicates, comp);
  const int ta = (int)bp.a, tb = na + diag - ta + bp.star;
  sm.start_a[tid] = ta;
  sm.start_b[tid] = tb;
  if (tid == NT - 1) {
    sm.start_a[NT] = na;
    sm.start_b[NT] = count;
  }
  __syncthreads();
  const int ea = max(ta, sm.start_a[tid + 1]);
  const int eb = max(tb, sm.start_b[tid + 1]);
  unsigned took_a, took_b;
  serial_set_op<VT>(sm.keys, ta, ea, tb, eb, &took_a, &took_b, comp);
  const unsigned commit = set_op_commit(t.keeps, took_a, took_b);

  /* Compact: thread offsets by a block scan, the tile's by look-back.  The
   * keys stay where they are; kept[] lists their places, found again by
   * replaying the walk's bits.  kept[] is not keys[], so the other warps
   * compact while warp 0 looks back (ncu: 36% of the stalls were at the
   * barrier that used to follow the look-back). */
  int offset, tile_count;
  cub::BlockScan<int, NT>(sm.scan).ExclusiveSum(__popc(commit), offset,
                                                tile_count);
  if (tid < 32) {
    const long long base = tile_exclusive_prefix(t.status, tile, tile_count);
    if (tid == 0) {
      sm.base = base;
      if (tile == (int)gridDim.x - 1) *t.total = base + tile_count;
    }
  }
  {
    int a = ta, b = tb;
#pragma unroll
    for (int i = 0; i < VT; ++i) {
      const unsigned from_a = (took_a >> i) & 1, from_b = (took_b >> i) & 1;
      if ((commit >> i) & 1) sm.kept[offset++] = (unsigned short)(from_a ? a : b);
      a += from_a;
      b += from_b;
    }
  }
  __syncthreads();
  const long long base = sm.base;
  /* capacity bounds the writes even if unsorted input over-counts */
  const int room = (int)min((long long)tile_count, t.capacity - base);
  for (int i = tid; i < room; i += NT) {
    const int s = sm.kept[i];
    t.out[base + i] = sm.keys[s];
    if (HAS_V) t.outv[base + i] = s < na ? t.av[a0 + s] : t.bv[b0 + (s - na)];
  }
}

template <typename P, bool HAS_V, typename K, typename V, typename Comp>
mgpu_status setop_run(mgpu_context *ctx, const mgpu_setop_args *m,
                      size_t *count, Comp comp) {
  constexpr int S = kMergeSampleStride;
  cudaStream_t s = cuda_of(ctx)->stream;
  const K *a = (const K *)m->a_keys, *b = (const K *)m->b_keys;
  const int na = (int)m->na, nb = (int)m->nb;
  const long long total = (long long)na + nb;
  const int tiles = tiles_of(total, P::NV);
  cuda_scratch splits, status, samples;
  MGPU_TRY(splits.take(ctx, sizeof(unsigned) * ((size_t)tiles + 1)));
  MGPU_TRY(status.take(ctx, sizeof(unsigned long long) * ((size_t)tiles + 1)));
  const K *sa = nullptr, *sb = nullptr;
  if (total >= kMergeSampleFrom && total <= INT_MAX) {
    const int ca = samples_of(na, S), cb = samples_of(nb, S);
    MGPU_TRY(samples.take(ctx, sizeof(K) * ((size_t)ca + cb)));
    K *pa = samples.as<K>();
    gather_samples_kernel<S><<<grid_for((size_t)max(ca, cb), 256), 256, 0, s>>>(
        a, na, pa, b, nb, pa + ca);
    CUDA_LAUNCHED(ctx, "setop sample kernel");
    sa = pa;
    sb = pa + ca;
  }
  CUDA_TRY(ctx, cudaMemsetAsync(status.ptr, 0, status.bytes, s));
  setop_partition_kernel<S><<<grid_for((size_t)tiles + 1, 128), 128, 0, s>>>(
      a, sa, na, b, sb, nb, P::NV, tiles + 1, m->duplicates != 0,
      splits.as<unsigned>(), comp);
  CUDA_LAUNCHED(ctx, "setop partition kernel");
  unsigned long long *st = status.as<unsigned long long>();
  setop_tiles<K, V> t = {a, b, (const V *)m->a_vals, (const V *)m->b_vals,
                         na, nb, splits.as<unsigned>(), st, st + tiles,
                         (K *)m->keys, (V *)m->vals, (long long)m->capacity,
                         set_op_keeps(m->op), m->duplicates != 0};
  auto kernel = setop_kernel<P, HAS_V, K, V, Comp>;
  const size_t smem = sizeof(setop_smem<P::NT, P::VT, K>);
  MGPU_TRY(allow_shared_memory(ctx, kernel, smem));
  kernel<<<tiles, P::NT, smem, s>>>(t, comp);
  CUDA_LAUNCHED(ctx, "setop kernel");
  unsigned long long n = 0;
  CUDA_TRY(ctx, cudaMemcpyAsync(&n, st + tiles, sizeof n,
                                cudaMemcpyDeviceToHost, s));
  CUDA_TRY(ctx, cudaStreamSynchronize(s));
  *count = n < m->capacity ? (size_t)n : m->capacity;
  return MGPU_OK;
}

template <typename K, int VB> struct setop_launch {
  template <typename Comp>
  static mgpu_status run(mgpu_context *ctx, const cuda_setop_call *c, Comp comp) {
    typedef typename setop_policy<sizeof(K), VB>::type P;
    return setop_run<P, VB != 0, K, value_t<VB>>(ctx, c->args, c->count, comp);
  }
};

template <typename K>
mgpu_status setop_entry(mgpu_context *ctx, const cuda_setop_call *c) {
  return dispatch_keyed<K, setop_launch>(ctx, c->args->value_size,
                                         c->args->order, c);
}

} // namespace mgpu

#endif
