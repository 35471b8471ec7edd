/*
 * radix_tile.cuh - the radix sort's kernels (mgpu_sort), a least-
 * significant-digit sort in the shape of Onesweep (Adinets & Merrill,
 * 2022): one read of the keys counts every digit's histogram, one block
 * scans them (and finds the digits every key shares: those passes are
 * skipped), then one sweep launch a digit ranks each tile's keys by the
 * digit, learns where the tile's share of each digit bucket goes by
 * decoupled look-back per bucket, and scatters keys and values there.
 * A tile publishes its bucket counts as soon as it has ranked (one walk
 * over its keys) and looks back only after placing its keys in shared
 * memory, so that successors never wait on its ranking and it rarely
 * waits on its predecessors.
 *
 * Keys are sorted by their order code (element.h: unsigned words in the
 * order asked for, every NaN on one code and -0.0 on 0.0's).  Where the
 * code is one to one on the call's keys (floats when the histogram saw no
 * NaN and no -0.0) a sweep encodes each key as it loads it and decodes
 * it as it stores it; otherwise (and for integers, whose code is one xor)
 * it computes the code from the key's bits wherever a digit is needed and
 * moves the bits.  Either way equivalent keys keep their input order and
 * their bits: the output is a permutation of the input.
 */
#ifndef MGPU_AGENT_RADIX_TILE_CUH
#define MGPU_AGENT_RADIX_TILE_CUH

#include <stdint.h>

#include <type_traits>

#include "../../src/element.h"
#include "block/block_scan.cuh"
#include "block/tile_prefix.cuh"
#include "launch.cuh"
#include "policy/tile_shape.cuh"

namespace mgpu {

/* A key's order code is operator().  kEncodes: the code has a one-to-one
 * form, encode and decode, exact on every key but the special ones.
 *
 * Integer keys: the sign bit flipped for signed ones, all bits for
 * greater (sort_mask, dispatch.cuh); computed where needed. */
template <typename U> struct radix_int_code {
  static constexpr bool kEncodes = false;
  U mask;
  __device__ __forceinline__ U operator()(U u) const { return u ^ mask; }
};

/* Float keys, on their bits: the code, complemented for greater.  A
 * number's code is its bits with the sign bit set when it is positive,
 * and 0 - bits (2^(w-1) - magnitude) when negative, so the code's sign
 * bit tells which way back; every NaN takes the top code and -0.0 takes
 * 0.0's, so those are special.  Encoding as a tile loads (several
 * instructions, once a key) beat computing the code at each digit (1.27x
 * an i32 pass) and keeping the digits (2^26 f32 keys on an H200: 329 us
 * a pass against 347; docs/TUNING.md, "Sort (radix)"). */
template <typename U> struct radix_float_code {
  static_assert(sizeof(U) == 4 || sizeof(U) == 8, "f32 or f64 bits");
  static constexpr bool kEncodes = true;
  static constexpr U kSign = (U)1 << (8 * sizeof(U) - 1);
  static constexpr U kInf = sizeof(U) == 4 ? (U)0x7f800000u
                                           : (U)0x7ff0000000000000ull;
  U mask;
  __device__ __forceinline__ U operator()(U u) const {
    if constexpr (sizeof(U) == 4) return mgpu_f32_radix_code(u) ^ mask;
    else return mgpu_f64_radix_code(u) ^ mask;
  }
  /* a NaN or -0.0 */
  __device__ __forceinline__ bool special(U u) const {
    return (u & ~kSign) > kInf || u == kSign;
  }
  __device__ __forceinline__ U encode(U u) const {
    return ((u & kSign) ? (U)0 - u : u | kSign) ^ mask;
  }
  __device__ __forceinline__ U decode(U c) const {
    c ^= mask;
    return (c & kSign) ? c & ~kSign : (U)0 - c;
  }
};

constexpr int kRadixMaxPasses = 8;

/* What the scan decides on the device, so that the host never waits:
 * which passes run, and which buffer each reads (the caller's or the
 * scratch one); after an odd number of passes the keys are copied back. */
struct radix_plan {
  int active[kRadixMaxPasses];
  int from_tmp[kRadixMaxPasses];
  int final_in_tmp;
  int special; /* set by the histogram: a key the code's encode would change */
};

template <int BITS, typename U> struct radix_dims {
  static constexpr int RADIX = 1 << BITS;
  static constexpr int PASSES = 8 * (int)sizeof(U) / BITS;
  static_assert(PASSES * BITS == 8 * (int)sizeof(U), "digits tile the key");
  static_assert(PASSES <= kRadixMaxPasses, "the plan has room");
  static_assert(BITS <= 8, "a digit in a byte");
};

/* A bucket's count: 32-bit for calls below 2^31 keys (as tuned), 64-bit
 * above, following the sweep's offset type Off. */
template <typename Off>
using radix_bin_t = typename std::conditional<sizeof(Off) == 4, unsigned,
                                              unsigned long long>::type;

/* The AND and the OR of a value over the warp, to every lane: the bits
 * all its keys have, and with them the bits they differ in. */
template <typename U>
__device__ __forceinline__ void radix_warp_and_or(U &all, U &any) {
  if constexpr (sizeof(U) == 8) {
    unsigned a0 = (unsigned)all, a1 = (unsigned)(all >> 32);
    unsigned o0 = (unsigned)any, o1 = (unsigned)(any >> 32);
    radix_warp_and_or(a0, o0);
    radix_warp_and_or(a1, o1);
    all = (U)a1 << 32 | a0;
    any = (U)o1 << 32 | o0;
  } else {
#if __CUDA_ARCH__ >= 800
    all = __reduce_and_sync(0xffffffffu, all);
    any = __reduce_or_sync(0xffffffffu, any);
#else
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
      all &= __shfl_xor_sync(0xffffffffu, all, off);
      any |= __shfl_xor_sync(0xffffffffu, any, off);
    }
#endif
  }
}

/* h[p][b] += the warp's keys (VT codes a lane, all of them keys) whose
 * digit p is b.  A digit the warp's 32 x VT keys share (a digit of small
 * integers, a skipped pass) is counted by one atomic instead of 32 x VT
 * on one counter, which would serialize; one AND and one OR over the
 * warp find those digits for every pass at once. */
template <typename H, typename U>
__device__ __forceinline__ void radix_count_warp(unsigned *h,
                                                 const U (&c)[H::VT]) {
  typedef radix_dims<H::DIGIT_BITS, U> D;
  constexpr U kDigit = (U)(D::RADIX - 1);
  U all = c[0], any = c[0];
#pragma unroll
  for (int i = 1; i < H::VT; ++i) {
    all &= c[i];
    any |= c[i];
  }
  radix_warp_and_or(all, any);
  const U differ = all ^ any;
#pragma unroll
  for (int p = 0; p < D::PASSES; ++p) {
    const int shift = p * H::DIGIT_BITS;
    unsigned *hp = h + p * D::RADIX;
    if (((differ >> shift) & kDigit) == 0) {
      if ((threadIdx.x & 31) == 0)
        atomicAdd(&hp[(int)((all >> shift) & kDigit)], 32u * H::VT);
    } else {
#pragma unroll
      for (int i = 0; i < H::VT; ++i)
        atomicAdd(&hp[(int)((c[i] >> shift) & kDigit)], 1u);
    }
  }
}

/* bins[p][b] += the keys whose digit p is b.  Shared-memory counters a
 * block, added to the global ones once.  Blocks stride over the whole
 * tiles of NT x VT keys (each warp's 32 x VT loaded warp-striped, all in
 * flight before the first count, with no check against the end); one
 * block counts the keys after the last whole tile. */
template <typename H, typename U, typename Code, typename Bin>
__global__ void __launch_bounds__(H::NT)
    radix_histogram_kernel(const U *__restrict__ keys, long long n,
                           Code code, Bin *bins, radix_plan *plan) {
  typedef radix_dims<H::DIGIT_BITS, U> D;
  constexpr int NT = H::NT, VT = H::VT, NV = NT * VT;
  __shared__ unsigned h[D::PASSES * D::RADIX];
  for (int i = threadIdx.x; i < D::PASSES * D::RADIX; i += NT) h[i] = 0;
  __syncthreads();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const long long whole = n / NV;
  bool special = false;
  const auto code_of = [&](U u) {
    if constexpr (Code::kEncodes) special = special | code.special(u);
    return code(u);
  };
  for (long long t = blockIdx.x; t < whole; t += gridDim.x) {
    const U *src = keys + t * NV + warp * 32 * VT + lane;
    U c[VT];
#pragma unroll
    for (int i = 0; i < VT; ++i) c[i] = code_of(src[32 * i]);
    radix_count_warp<H>(h, c);
  }
  if (blockIdx.x == whole % gridDim.x) {
    for (long long j = whole * NV + threadIdx.x; j < n; j += NT) {
      const U c = code_of(keys[j]);
#pragma unroll
      for (int p = 0; p < D::PASSES; ++p)
        atomicAdd(&h[p * D::RADIX +
                     (int)((c >> (p * H::DIGIT_BITS)) & (U)(D::RADIX - 1))],
                  1u);
    }
  }
  if (__syncthreads_or(special) && threadIdx.x == 0) atomicOr(&plan->special, 1);
  for (int i = threadIdx.x; i < D::PASSES * D::RADIX; i += NT)
    if (h[i]) atomicAdd(&bins[i], (Bin)h[i]);
}

/* One block of RADIX threads: each digit's histogram to its exclusive
 * scan (the buckets' global starts), and the plan. */
template <int BITS, typename U, typename Bin>
__global__ void __launch_bounds__(1 << BITS)
    radix_scan_kernel(Bin *bins, long long n, radix_plan *plan) {
  typedef radix_dims<BITS, U> D;
  __shared__ Bin warp_totals[D::RADIX / 32];
  __shared__ int active[D::PASSES];
  const int t = threadIdx.x;
  for (int p = 0; p < D::PASSES; ++p) {
    const Bin v = bins[p * D::RADIX + t];
    /* one bucket holds every key: the pass would move nothing */
    const int same = __syncthreads_or(v == (unsigned long long)n);
    Bin all;
    bins[p * D::RADIX + t] = block_exclusive_sum<D::RADIX>(v, warp_totals, &all);
    if (t == 0) active[p] = !same;
  }
  __syncthreads();
  if (t != 0) return;
  int in_tmp = 0;
  for (int p = 0; p < kRadixMaxPasses; ++p) {
    const int a = p < D::PASSES && active[p];
    plan->active[p] = a;
    plan->from_tmp[p] = in_tmp;
    in_tmp ^= a;
  }
  plan->final_in_tmp = in_tmp;
}

/* The lanes of the warp whose digit equals this lane's: one ballot a bit
 * (all 32 lanes take part).  match.any does the same in one instruction,
 * but a slow one in the pipe that the ranking's shared-memory traffic
 * already fills. */
template <int BITS>
__device__ __forceinline__ unsigned match_digit(unsigned d) {
  unsigned peers = 0xffffffffu;
#pragma unroll
  for (int b = 0; b < BITS; ++b) {
    /* the lanes that share bit b with this one: the ballot of the bit,
     * complemented where the bit is clear */
    unsigned same;
    asm("{\n\t.reg .pred p;\n\t"
        "and.b32 %0, %1, %2;\n\t"
        "setp.ne.u32 p, %0, 0;\n\t"
        "vote.sync.ballot.b32 %0, p, 0xffffffff;\n\t"
        "@!p not.b32 %0, %0;\n\t}"
        : "=r"(same)
        : "r"(d), "r"(1u << b));
    peers &= same;
  }
  return peers;
}

template <typename U, typename V, typename Off> struct radix_sweep_args {
  U *keys, *tmp_keys;
  V *vals, *tmp_vals;
  long long n;
  const radix_bin_t<Off> *bins; /* [pass][bucket], exclusive */
  const radix_plan *plan;
  unsigned long long *status; /* [tile][bucket] look-back words */
  int *tile_counter;          /* [pass] */
};

template <typename P, bool HAS_V, typename U, typename V, typename Off>
struct radix_sweep_smem {
  static constexpr int W = P::NT / 32, RADIX = 1 << P::DIGIT_BITS;
  static_assert(RADIX <= P::NT, "a thread a bucket");
  static_assert(P::NV <= 65536, "a place in the tile in 16 bits");
  static constexpr size_t key_bytes = sizeof(U) * P::NV;
  static constexpr size_t count_bytes = sizeof(unsigned) * W * RADIX;
  static constexpr size_t val_bytes = HAS_V ? sizeof(V) * P::NV : 0;
  static constexpr size_t kc_bytes = key_bytes + count_bytes;
  static constexpr size_t x_bytes = kc_bytes > val_bytes ? kc_bytes : val_bytes;
  /* The tile's keys in digit order beside the warps' counters
   * (warp_base), then its values over both.  The counters are apart from
   * the keys, so that keys are stored while other warps still read them,
   * with no barrier; the values come after one, and 8-byte values of a
   * 4-byte-key tile fit in 48 KiB only over both. */
  alignas(16) unsigned char x[x_bytes];
  /* [warp][bucket]: the warp's running count while ranking, then the tile
   * place of the warp's first key of the bucket */
  __device__ __forceinline__ unsigned *warp_base() {
    return reinterpret_cast<unsigned *>(x + key_bytes);
  }
  Off global_off[RADIX]; /* output place = global_off[digit] + tile place */
  unsigned warp_totals[W];
  /* the digit at each tile place, for the values */
  unsigned char digit_of[HAS_V ? P::NV : 1];
  int tile;
};

/* One tile of the sweep; FULL: it has NV keys, so no item is checked
 * against the end.  CODED: the tile holds its keys encoded (the call has
 * no special key), else their own bits. */
template <typename P, bool HAS_V, bool FULL, bool CODED, typename U,
          typename V, typename Code, typename Off>
__device__ __forceinline__ void
radix_sweep_tile(const radix_sweep_args<U, V, Off> &a, int pass, Code code,
                 radix_sweep_smem<P, HAS_V, U, V, Off> &sm, int tile,
                 int count) {
  constexpr int NT = P::NT, VT = P::VT, NV = P::NV;
  constexpr int RADIX = 1 << P::DIGIT_BITS, W = NT / 32;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  /* the buffers are chosen where used, so no pointer is held through
   * the ranking */
  const bool from_tmp = a.plan->from_tmp[pass] != 0;
  const long long base = (long long)tile * NV;
  const int shift = pass * P::DIGIT_BITS;
  const auto in = [&](int j) { return FULL || j < count; };
  const auto order = [&](U k) {
    if constexpr (CODED) return k;
    else return code(k);
  };
  /* keys past the end rank last, in the last bucket, after its keys */
  const auto digit = [&](U k, int j) {
    return in(j) ? (int)((order(k) >> shift) & (U)(RADIX - 1)) : RADIX - 1;
  };

  U k[VT];
  /* each item's place in the tile, two to a word (NV <= 2^16) */
  unsigned pos[(VT + 1) / 2] = {};
  const auto place = [&](int i) {
    return (int)((pos[i / 2] >> (16 * (i % 2))) & 0xffffu);
  };
  const int first = warp * 32 * VT + lane;
  /* one pointer and constant offsets, not an address an item */
  const U *src = (from_tmp ? a.tmp_keys : a.keys) + base + first;
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    k[i] = in(first + 32 * i) ? src[32 * i] : (U)0;
    if constexpr (CODED) k[i] = code.encode(k[i]);
  }

  unsigned *my_count = sm.warp_base() + warp * RADIX;
  const unsigned before_me = (1u << lane) - 1u;
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    const int d = digit(k[i], first + 32 * i);
    const unsigned peers = match_digit<P::DIGIT_BITS>((unsigned)d);
    const int leader = __ffs(peers) - 1;
    unsigned old = 0;
    if (lane == leader) old = atomicAdd(my_count + d, (unsigned)__popc(peers));
    old = __shfl_sync(0xffffffffu, old, leader);
    pos[i / 2] |= (old + __popc(peers & before_me)) << (16 * (i % 2));
  }
  __syncthreads();

  /* bucket tid: the tile's count, published at once; then the bucket's
   * start in the tile, and each warp's start within it */
  unsigned wc[W];
  unsigned bucket_count = 0;
  if (tid < RADIX) {
#pragma unroll
    for (int w = 0; w < W; ++w) {
      wc[w] = sm.warp_base()[w * RADIX + tid];
      bucket_count += wc[w];
    }
    if (tid == RADIX - 1) bucket_count -= NV - count;
    bucket_publish_count(a.status + tid, RADIX, tile, pass + 1, bucket_count);
  }
  unsigned tile_total;
  const unsigned start = block_exclusive_sum<NT>(
      tid < RADIX ? bucket_count : 0u, sm.warp_totals, &tile_total);
  if (tid < RADIX) {
    unsigned run = start;
#pragma unroll
    for (int w = 0; w < W; ++w) {
      sm.warp_base()[w * RADIX + tid] = run;
      run += wc[w];
    }
  }
  __syncthreads();

  U *xk = reinterpret_cast<U *>(sm.x);
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    const int d = digit(k[i], first + 32 * i);
    pos[i / 2] += my_count[d] << (16 * (i % 2));
    if (in(first + 32 * i)) xk[place(i)] = k[i];
  }
  if (tid < RADIX) {
    const long long before = bucket_exclusive_prefix(
        a.status + tid, RADIX, tile, pass + 1, bucket_count);
    sm.global_off[tid] =
        (Off)((long long)a.bins[pass * RADIX + tid] + before) - (Off)start;
  }
  __syncthreads();

  /* Stores in tile order (striped, so that neighbours in a bucket store
   * to neighbouring words).  The loops hold no register arrays: the
   * values find their digit in shared memory, so the compiler overlaps
   * as many items as the registers allow. */
  U *dst = from_tmp ? a.keys : a.tmp_keys;
#pragma unroll 4
  for (int j = tid; j < (FULL ? NV : count); j += NT) {
    const U key = xk[j];
    const int d = (int)((order(key) >> shift) & (U)(RADIX - 1));
    if constexpr (CODED) dst[sm.global_off[d] + j] = code.decode(key);
    else dst[sm.global_off[d] + j] = key;
    if (HAS_V) sm.digit_of[HAS_V ? j : 0] = (unsigned char)d;
  }
  if (!HAS_V) return;
  __syncthreads(); /* the keys are read: the values take their place */
  /* loaded only now, so that they take no registers through the
   * ranking */
  V *xv = reinterpret_cast<V *>(sm.x);
  const V *srcv = (from_tmp ? a.tmp_vals : a.vals) + base + first;
#pragma unroll
  for (int i = 0; i < VT; ++i)
    if (in(first + 32 * i)) xv[place(i)] = srcv[32 * i];
  __syncthreads();
  V *dstv = from_tmp ? a.vals : a.tmp_vals;
#pragma unroll 4
  for (int j = tid; j < (FULL ? NV : count); j += NT)
    dstv[sm.global_off[sm.digit_of[HAS_V ? j : 0]] + j] = xv[j];
}

/* One digit pass.  The tile is loaded warp-striped (warp w holds keys
 * 32 VT w .. 32 VT (w + 1) - 1, item i of lane l at 32 i + l), so that
 * ranking items in order, lanes in order within an item, with a counter
 * per (warp, bucket) ranks equal digits in input order.
 *
 * Ranking is one walk over the items: the lanes sharing a digit
 * (match_digit) add their number to the warp's counter with one atomic by
 * the lowest of them, whose old value is their base.  No item waits for
 * the previous one's result (the atomics of one warp are performed in
 * issue order, and the warp issues item i's before item i + 1's
 * ballots), so the walk pipelines instead of a shared-memory round trip
 * an item.  Then one thread a bucket sums the warps' counters and
 * publishes the tile's count at once, before its places are final and
 * long before its own look-back, which comes only after the keys are in
 * shared memory: by then its predecessors have mostly published their
 * inclusive prefixes.  Tiles are numbered by a counter per pass, in the
 * order blocks start, so a tile waits only for running blocks. */
template <typename P, bool HAS_V, typename U, typename V, typename Code,
          typename Off>
__global__ void
__launch_bounds__(P::NT, min_blocks_within_sm(P::NT, P::MIN_BLOCKS))
    radix_sweep_kernel(radix_sweep_args<U, V, Off> a, int pass, Code code) {
  constexpr int NT = P::NT, NV = P::NV;
  constexpr int RADIX = 1 << P::DIGIT_BITS, W = NT / 32;
  if (!a.plan->active[pass]) return;
  /* dynamic: the larger tiles take more than 48 KB */
  auto &sm = *shared_as<radix_sweep_smem<P, HAS_V, U, V, Off>>();
  const int tid = threadIdx.x;
  if (tid == 0) sm.tile = atomicAdd(a.tile_counter + pass, 1);
  for (int i = tid; i < W * RADIX; i += NT) sm.warp_base()[i] = 0;
  __syncthreads();
  const int tile = sm.tile;
  const long long base = (long long)tile * NV;
  const int count = (int)(a.n - base < NV ? a.n - base : NV);
  const auto run = [&](auto coded) {
    constexpr bool CODED = decltype(coded)::value;
    if (count == NV)
      radix_sweep_tile<P, HAS_V, true, CODED>(a, pass, code, sm, tile, count);
    else
      radix_sweep_tile<P, HAS_V, false, CODED>(a, pass, code, sm, tile, count);
  };
  if constexpr (Code::kEncodes) {
    if (!a.plan->special) return run(std::true_type());
  }
  run(std::false_type());
}

/* After an odd number of passes the sorted keys are in the scratch
 * buffer: back to the caller's. */
template <bool HAS_V, typename U, typename V>
__global__ void radix_copy_back_kernel(const radix_plan *plan, const U *tk,
                                       U *keys, const V *tv, V *vals,
                                       long long n) {
  if (!plan->final_in_tmp) return;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    keys[i] = tk[i];
    if (HAS_V) vals[i] = tv[i];
  }
}

} // namespace mgpu

#endif
