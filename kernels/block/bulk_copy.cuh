/*
 * bulk_copy.cuh - filling shared memory from global memory without the
 * threads that compute: the tensor memory accelerator's bulk copies
 * (cp.async.bulk, sm_90) signal an mbarrier when their bytes have landed,
 * so one thread starts a tile's load and the others wait on the barrier.
 *
 * Why: a set-operation tile that loads its keys with ordinary loads spends
 * ~19 instructions a key on it; bulk copies cost a few instructions a tile
 * (the kernel ~16% faster; docs/TUNING.md, Shared pieces).
 *
 * A bulk copy moves whole 16-byte units between 16-byte aligned addresses.
 * A range of keys is placed in shared memory at the same address modulo 16
 * as in global memory (stage_offset), so its aligned middle goes by one
 * bulk copy and only the few keys before the first and after the last
 * aligned address are loaded by lanes one at a time.  Nothing outside the
 * range is read.  Before sm_90 the whole range goes the slow way.
 */
#ifndef MGPU_BULK_COPY_CUH
#define MGPU_BULK_COPY_CUH

#include <cstdint>

namespace mgpu {

__device__ __forceinline__ unsigned smem_addr(const void *p) {
  return (unsigned)__cvta_generic_to_shared(p);
}

/* The mbarrier that tells a tile's threads its bulk copies have landed.
 * Before sm_90 there are no bulk copies: a tile is loaded by ordinary
 * loads (copy_range_by_block) which the block barrier after the load
 * publishes, so there these calls are empty.  (A barrier kept there
 * anyway, sm_80's mbarrier or a word of shared atomics before it, only
 * added work, and racecheck reported its init against its arrival.) */

/* An mbarrier in shared memory that completes a phase after `count`
 * arrivals and the bytes announced by arrive_expect_tx. */
__device__ __forceinline__ void mbarrier_init(unsigned long long *bar,
                                              unsigned count) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)),
               "r"(count)
               : "memory");
#else
  (void)bar, (void)count;
#endif
}

/* Makes mbarrier_init visible to the async proxy; a __syncthreads must
 * follow before any thread uses the barriers. */
__device__ __forceinline__ void mbarrier_init_fence() {
#if __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

/* One arrival that also announces `bytes` still to come by bulk copy. */
__device__ __forceinline__ void mbarrier_arrive_expect_tx(unsigned long long *bar,
                                                          unsigned bytes) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
                   smem_addr(bar)),
               "r"(bytes)
               : "memory");
#else
  (void)bar, (void)bytes;
#endif
}

/* Orders this thread's view of earlier ordinary shared-memory accesses
 * (its own, and others' that a barrier ordered before it) before its later
 * bulk copies, which write through the async proxy: needed before a bulk
 * copy refills memory that ordinary loads and stores used. */
__device__ __forceinline__ void async_proxy_fence() {
#if __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

/* Waits (acquire) until the phase of the given parity has completed. */
__device__ __forceinline__ void mbarrier_wait(unsigned long long *bar,
                                              unsigned parity) {
#if __CUDA_ARCH__ >= 900
  unsigned done;
  do {
    asm volatile("{\n .reg .pred p;\n"
                 " mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 " selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done)
                 : "r"(smem_addr(bar)), "r"(parity)
                 : "memory");
  } while (!done);
#else
  (void)bar, (void)parity;
#endif
}

/* Where in a 16-byte aligned shared buffer a range starting at global
 * address p must begin (in elements) so that both share their alignment. */
template <typename T>
__device__ __forceinline__ int stage_offset(const T *p) {
  return (int)(((uintptr_t)p & 15) / sizeof(T));
}

/* The split of a range src[0, n) into keys loaded one by one (a head
 * before the first 16-byte boundary and a tail after the last) and a bulk
 * middle. */
template <typename T> struct bulk_split {
  int head;           /* src[0, head): one by one */
  int tail;           /* src[tail, n): one by one */
  unsigned bytes;     /* src[head, tail) in bytes: by bulk copy */
};

template <typename T>
__device__ __forceinline__ bulk_split<T> split_for_bulk(const T *src, int n) {
  static_assert(16 % sizeof(T) == 0, "bulk copies need elements of 1-16 bytes");
  bulk_split<T> s;
#if __CUDA_ARCH__ >= 900
  const int lead = (int)(((16 - ((uintptr_t)src & 15)) & 15) / sizeof(T));
  s.head = lead < n ? lead : n;
  const int body = (int)(((unsigned)(n - s.head) * sizeof(T)) & ~15u);
  s.bytes = (unsigned)body;
  s.tail = s.head + body / (int)sizeof(T);
#else
  s.head = n;
  s.tail = n;
  s.bytes = 0;
#endif
  return s;
}

/* Issued by one lane: copies s.bytes from src + s.head to dst + s.head,
 * completing on bar (which must expect the bytes). */
template <typename T>
__device__ __forceinline__ void bulk_copy_middle(T *dst, const T *src,
                                                 const bulk_split<T> &s,
                                                 unsigned long long *bar) {
#if __CUDA_ARCH__ >= 900
  if (s.bytes == 0) return;
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1], %2, [%3];" ::"r"(smem_addr(dst + s.head)),
      "l"(src + s.head), "r"(s.bytes), "r"(smem_addr(bar))
      : "memory");
#else
  (void)dst, (void)src, (void)s, (void)bar;
#endif
}

/* Asks L2 to fetch the aligned middle of src[0, n) (a hint: nothing is
 * waited for, and nothing outside the range is touched). */
template <typename T>
__device__ __forceinline__ void bulk_prefetch_l2(const T *src, int n) {
#if __CUDA_ARCH__ >= 900
  const bulk_split<T> s = split_for_bulk(src, n);
  if (s.bytes == 0) return;
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(src + s.head),
               "r"(s.bytes)
               : "memory");
#else
  (void)src, (void)n;
#endif
}

/* The one-by-one keys of the split, by the lanes of a warp. */
template <typename T>
__device__ __forceinline__ void copy_ragged_ends(T *dst, const T *src, int n,
                                                 const bulk_split<T> &s,
                                                 int lane) {
  for (int i = lane; i < s.head; i += 32) dst[i] = src[i];
  for (int i = s.tail + lane; i < n; i += 32) dst[i] = src[i];
}

/* Before sm_90 there are no bulk copies, and the whole range is loaded by
 * the block's NT threads: 16 bytes a load between its first and last
 * 16-byte boundaries (dst shares src's alignment: stage_offset), one
 * element a load at the ends.  A barrier among the NT threads publishes
 * it.  Two warps loading a merge tile element by element, as the ragged
 * ends are, made merge keys 1.7x slower than the sm_90 path (H200,
 * docs/TUNING.md, Every family). */
template <int NT, typename T>
__device__ __forceinline__ void copy_range_by_block(T *dst, const T *src,
                                                    int n, int tid) {
  static_assert(16 % sizeof(T) == 0, "elements of 1-16 bytes");
  constexpr int E = 16 / sizeof(T);
  const int lead = (int)(((16 - ((uintptr_t)src & 15)) & 15) / sizeof(T));
  const int head = lead < n ? lead : n;
  const int units = (n - head) / E;
  const int tail = head + units * E;
  const int4 *s4 = reinterpret_cast<const int4 *>(src + head);
  int4 *d4 = reinterpret_cast<int4 *>(dst + head);
#pragma unroll 4
  for (int u = tid; u < units; u += NT) d4[u] = s4[u];
  if (tid < head) dst[tid] = src[tid];
  if (tail + tid < n) dst[tail + tid] = src[tail + tid];
}

} // namespace mgpu

#endif
