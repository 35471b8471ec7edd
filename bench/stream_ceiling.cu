/*
 * stream_ceiling.cu - how fast this GPU moves the bytes of an i32 pairs
 * union at all, with no set operation in it: reads 4 arrays of N/2 i32 (A's
 * keys and values, B's) and writes 2 of 3N/4 (the output's keys and
 * values), in chunks a block, by registers or by bulk copies, with one
 * block a chunk or a persistent grid.  The reload rows also bulk-load the
 * keys of the chunk RL chunks back, which L2 may still hold: what a second
 * read of the keys costs when it comes from L2.  References: cudaMemcpy of
 * the inputs, a read-only and a write-only pass.  Standalone (not built by
 * CMake; docs/TUNING.md, Set operations):
 *
 *   nvcc -O3 -std=c++17 -arch=sm_90 -o stream_ceiling bench/stream_ceiling.cu
 *   ./stream_ceiling [log2 N = 26]
 */
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#include "../kernels/block/bulk_copy.cuh"

using namespace mgpu;

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)

// one block a chunk of T elements of each input; writes 3T/2 of each output
// (out = A chunk, then B chunk's pairs xor-ed: every input byte is read).
template <int NT, int U>
__global__ void __launch_bounds__(NT) mix_regs(const int4 *ak, const int4 *av, const int4 *bk,
                                const int4 *bv, int4 *ok, int4 *ov, long long chunks) {
  constexpr int T4 = NT * U;  // int4s of each input a chunk
  for (long long c = blockIdx.x; c < chunks; c += gridDim.x) {
    const long long i0 = c * T4;
    int4 a[U], b[U], x[U], y[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      a[u] = ak[i0 + u * NT + threadIdx.x];
      x[u] = av[i0 + u * NT + threadIdx.x];
      b[u] = bk[i0 + u * NT + threadIdx.x];
      y[u] = bv[i0 + u * NT + threadIdx.x];
    }
    const long long o0 = c * (T4 + T4 / 2);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      ok[o0 + u * NT + threadIdx.x] = a[u];
      ov[o0 + u * NT + threadIdx.x] = x[u];
    }
#pragma unroll
    for (int u = 0; u < U; u += 2) {
      int4 p = b[u], q = b[u + 1], r = y[u], s = y[u + 1];
      p.x ^= q.x; p.y ^= q.y; p.z ^= q.z; p.w ^= q.w;
      r.x ^= s.x; r.y ^= s.y; r.z ^= s.z; r.w ^= s.w;
      ok[o0 + T4 + (u / 2) * NT + threadIdx.x] = p;
      ov[o0 + T4 + (u / 2) * NT + threadIdx.x] = r;
    }
  }
}

/* Whole chunks (16-byte aligned, a multiple of 16 bytes) by one bulk copy,
 * completing on bar: bulk_copy.cuh's, with no ragged ends to copy. */
__device__ __forceinline__ void bulk_g2s(int *dst, const int *src, int n,
                                         unsigned long long *bar) {
  bulk_copy_middle(dst, src, split_for_bulk(src, n), bar);
}
/* The other way (not in bulk_copy.cuh: the library never stores by bulk
 * copy), completing on the thread's bulk group. */
__device__ __forceinline__ void bulk_s2g(void *dst, const void *src, unsigned bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"((unsigned)__cvta_generic_to_shared(src)), "r"(bytes) : "memory");
}

// one block a chunk: thread 0 bulk-copies the 4 input chunks into shared
// memory, then the stores: ST = 0 ordinary int4 stores from shared memory,
// ST = 1 bulk stores (the xor step skipped: out = A chunk, B chunk's first half).
template <int NT, int T, int ST, int RL = 0>
__global__ void __launch_bounds__(NT) mix_bulk(const int *ak, const int *av, const int *bk,
                                const int *bv, int *ok, int *ov, long long chunks) {
  extern __shared__ __align__(128) int sm[];
  __shared__ unsigned long long bar;
  int *sak = sm, *sav = sm + T, *sbk = sm + 2 * T, *sbv = sm + 3 * T;
  if (threadIdx.x == 0) {
    mbarrier_init(&bar, 1);
    mbarrier_init_fence();
  }
  __syncthreads();
  unsigned phase = 0;
  for (long long c = blockIdx.x; c < chunks; c += gridDim.x, phase ^= 1) {
    const long long i0 = c * T;
    if (threadIdx.x == 0) {
      const bool rl = RL > 0 && c >= RL;
      mbarrier_arrive_expect_tx(&bar, 16u * T + (rl ? 8u * T : 0u));
      if (rl) {
        bulk_g2s(sm + 4 * T, ak + (c - RL) * T, T, &bar);
        bulk_g2s(sm + 5 * T, bk + (c - RL) * T, T, &bar);
      }
      bulk_g2s(sak, ak + i0, T, &bar);
      bulk_g2s(sav, av + i0, T, &bar);
      bulk_g2s(sbk, bk + i0, T, &bar);
      bulk_g2s(sbv, bv + i0, T, &bar);
    }
    mbarrier_wait(&bar, phase);
    const long long o0 = c * (T + T / 2);
    if (ST == 0) {
      const int4 *a4 = (const int4 *)sak, *x4 = (const int4 *)sav, *b4 = (const int4 *)sbk, *y4 = (const int4 *)sbv;
      int4 *ok4 = (int4 *)(ok + o0), *ov4 = (int4 *)(ov + o0);
      int4 z = make_int4(0, 0, 0, 0);
      if (RL > 0 && c >= RL) z = ((const int4 *)(sm + 4 * T))[threadIdx.x] ;
      if (RL > 0 && c >= RL) { int4 w = ((const int4 *)(sm + 5 * T))[threadIdx.x + NT]; z.x ^= w.x; z.y ^= w.y; }
      for (int i = threadIdx.x; i < T / 4; i += NT) { int4 v = a4[i]; if (i < NT) { v.x ^= z.x; v.y ^= z.y; v.z ^= z.z; v.w ^= z.w; } ok4[i] = v; ov4[i] = x4[i]; }
      for (int i = threadIdx.x; i < T / 8; i += NT) {
        int4 p = b4[2 * i], q = b4[2 * i + 1], r = y4[2 * i], s = y4[2 * i + 1];
        p.x ^= q.x; p.y ^= q.y; p.z ^= q.z; p.w ^= q.w;
        r.x ^= s.x; r.y ^= s.y; r.z ^= s.z; r.w ^= s.w;
        ok4[T / 4 + i] = p; ov4[T / 4 + i] = r;
      }
      __syncthreads();
    } else {
      if (threadIdx.x == 0) {
        async_proxy_fence();
        bulk_s2g(ok + o0, sak, 4 * T);
        bulk_s2g(ov + o0, sav, 4 * T);
        bulk_s2g(ok + o0 + T, sbk, 2 * T);
        bulk_s2g(ov + o0 + T, sbv, 2 * T);
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
      }
      __syncthreads();
    }
  }
  if (ST == 1 && threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

// read only (a sum) and write only
template <int NT, int U>
__global__ void __launch_bounds__(NT) read_only(const int4 *p, long long n4, int *sink) {
  int acc = 0;
  for (long long i = (long long)blockIdx.x * NT * U + threadIdx.x; i < n4; i += (long long)gridDim.x * NT * U) {
    int4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = i + u * NT < n4 ? p[i + u * NT] : make_int4(0, 0, 0, 0);
#pragma unroll
    for (int u = 0; u < U; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  if (acc == 0x12345678) *sink = acc;
}
template <int NT>
__global__ void __launch_bounds__(NT) write_only(int4 *p, long long n4) {
  for (long long i = (long long)blockIdx.x * NT + threadIdx.x; i < n4; i += (long long)gridDim.x * NT)
    p[i] = make_int4((int)i, 1, 2, 3);
}

template <typename F>
static double time_ms(F f, int reps = 15) {
  cudaEvent_t a, b;
  cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> t;
  f();
  CK(cudaDeviceSynchronize());
  for (int r = 0; r < reps; ++r) {
    cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main(int argc, char **argv) {
  const int lg = argc > 1 ? atoi(argv[1]) : 26;
  const long long N = 1ll << lg, half = N / 2, outn = N * 3 / 4;
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
  printf("%s, %d SMs, L2 %d MB, N = 2^%d\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, lg);
  int *ak, *av, *bk, *bv, *ok, *ov, *sink;
  CK(cudaMalloc(&ak, half * 4)); CK(cudaMalloc(&av, half * 4)); CK(cudaMalloc(&bk, half * 4)); CK(cudaMalloc(&bv, half * 4));
  CK(cudaMalloc(&ok, outn * 4)); CK(cudaMalloc(&ov, outn * 4)); CK(cudaMalloc(&sink, 4));
  int *cin, *cout;
  CK(cudaMalloc(&cin, N * 8)); CK(cudaMalloc(&cout, N * 8));
  CK(cudaMemset(ak, 1, half * 4)); CK(cudaMemset(av, 2, half * 4)); CK(cudaMemset(bk, 3, half * 4)); CK(cudaMemset(bv, 4, half * 4));
  CK(cudaMemset(cin, 5, N * 8));
  const double mixb = (4.0 * half + 2.0 * outn) * 4;  // bytes the union moves
  const int sms = prop.multiProcessorCount;
  double ms = time_ms([&] { cudaMemcpyAsync(cout, cin, N * 8, cudaMemcpyDeviceToDevice); });
  printf("memcpy D2D of %.3f GB: %.4f ms, %.0f GB/s (read+write)\n", N * 8 / 1e9, ms, 2.0 * N * 8 / ms / 1e6);
  ms = time_ms([&] { cudaMemcpyAsync(cout, cin, (size_t)(mixb / 2), cudaMemcpyDeviceToDevice); });
  printf("memcpy D2D of the union's bytes / 2: %.4f ms, %.0f GB/s\n", ms, mixb / ms / 1e6);
  printf("union's bytes: %.3f GB\n", mixb / 1e9);
  auto rep = [&](const char *name, double m) { printf("%-44s %.4f ms  %.0f GB/s\n", name, m, mixb / m / 1e6); };
#define REGS(NT, U, BPS)                                                                               \
  {                                                                                                    \
    const long long chunks = half / (NT * U * 4);                                                      \
    long long grid = BPS > 0 ? (long long)sms * BPS : chunks;                                          \
    double m = time_ms([&] { mix_regs<NT, U><<<grid, NT>>>((int4 *)ak, (int4 *)av, (int4 *)bk, (int4 *)bv, (int4 *)ok, (int4 *)ov, chunks); }); \
    char s[96]; snprintf(s, sizeof s, "regs NT %d U %d grid %s%d", NT, U, BPS > 0 ? "SMs x " : "all ", BPS > 0 ? BPS : (int)grid); rep(s, m); \
  }
  REGS(256, 2, 0) REGS(256, 4, 0) REGS(256, 8, 0) REGS(128, 8, 0)
  REGS(256, 4, 8) REGS(256, 8, 4) REGS(256, 8, 8) REGS(512, 4, 4)
#define BULKR(NT, T, ST, BPS, RL)                                                                      \
  {                                                                                                    \
    const long long chunks = half / T;                                                                 \
    long long grid = BPS > 0 ? (long long)sms * BPS : chunks;                                          \
    const int smem = (RL ? 24 : 16) * T;                                                               \
    CK(cudaFuncSetAttribute(mix_bulk<NT, T, ST, RL>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));  \
    double m = time_ms([&] { mix_bulk<NT, T, ST, RL><<<grid, NT, smem>>>(ak, av, bk, bv, ok, ov, chunks); }); \
    char s[96]; snprintf(s, sizeof s, "bulk %s NT %d T %d grid %s%d reload %d", ST ? "store" : "ld+st", NT, T, BPS > 0 ? "SMs x " : "all ", BPS > 0 ? BPS : (int)grid, RL); rep(s, m); \
  }
#define BULK(NT, T, ST, BPS) BULKR(NT, T, ST, BPS, 0)
  BULK(128, 2048, 0, 0) BULK(128, 2048, 1, 0) BULK(128, 1984, 0, 0) BULK(128, 2048, 0, 5)
  BULK(128, 2048, 1, 6) BULK(256, 4096, 0, 0) BULK(256, 4096, 1, 0) BULK(128, 1024, 0, 0) BULK(128, 1024, 1, 0)
  BULK(128, 1024, 1, 12)
  BULKR(128, 2048, 0, 0, 64) BULKR(128, 2048, 0, 0, 256) BULKR(128, 2048, 0, 0, 1024) BULKR(128, 2048, 0, 0, 3000)
  BULKR(128, 1024, 0, 0, 512) BULKR(128, 1024, 0, 0, 2048)
  BULK(128, 2048, 0, 0)
  // read-only and write-only rates
  {
    double m = time_ms([&] { read_only<256, 8><<<sms * 8, 256>>>((const int4 *)cin, N * 8 / 16, sink); });
    printf("read only %.3f GB: %.4f ms, %.0f GB/s\n", N * 8 / 1e9, m, N * 8 / m / 1e6);
    m = time_ms([&] { write_only<256><<<sms * 8, 256>>>((int4 *)cout, N * 8 / 16); });
    printf("write only %.3f GB: %.4f ms, %.0f GB/s\n", N * 8 / 1e9, m, N * 8 / m / 1e6);
  }
  return 0;
}
