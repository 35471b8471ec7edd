// bench.cu - mgpu against CUB/Thrust doing the same job in the same run.
//
// Every benchmark case is a (primitive, variant) pair registered in the
// table at the bottom of this file.  A case builds an Instance for one
// (dtype, n): its device buffers, one Runner for mgpu and one per anchor
// (CUB/Thrust), and optionally an independent check of an output.  The
// driver times every runner the same way, interleaved rep by rep:
//
//   prep()                      untimed: e.g. restore an in-place input
//   cudaMemsetAsync(flush)      untimed: evict L2 (2x the device's L2)
//   event start; run(); event stop      on the context's stream
//
// then reports the median, verifies that every anchor's output equals
// mgpu's byte for byte, and writes one CSV row per anchor.  A
// device-to-device cudaMemcpyAsync of Instance::bytes_in (per case: the
// bytes the primitive reads, or its output size) is timed the same way in
// the same loop (memcpy_ms).
//
// To add a primitive: write a make_<thing>(Env&, mgpu_dtype, n) returning an
// Instance (see make_merge / make_mergesort) and add it to register_cases().

#include <cuda_runtime.h>

#include <cub/device/device_merge.cuh>
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/std/functional>
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/merge.h>
#include <thrust/scan.h>
#include <thrust/set_operations.h>

#include "mgpu.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <string>
#include <vector>

// The mgpu dtype of a C++ type (outside the anonymous namespace: unused
// specialisations there draw warnings).
template <class T> struct dtype_of_t;
template <> struct dtype_of_t<int32_t> { static constexpr mgpu_dtype value = MGPU_I32; };
template <> struct dtype_of_t<uint32_t> { static constexpr mgpu_dtype value = MGPU_U32; };
template <> struct dtype_of_t<int64_t> { static constexpr mgpu_dtype value = MGPU_I64; };
template <> struct dtype_of_t<uint64_t> { static constexpr mgpu_dtype value = MGPU_U64; };
template <> struct dtype_of_t<float> { static constexpr mgpu_dtype value = MGPU_F32; };
template <> struct dtype_of_t<double> { static constexpr mgpu_dtype value = MGPU_F64; };
template <class T>
constexpr mgpu_dtype dtype_of() { return dtype_of_t<T>::value; }

namespace {

// ===========================================================================
// errors
// ===========================================================================

// Thrown by every failed CUDA / mgpu call.  oom: the failure was running out
// of memory (the size is then skipped, not counted as a failure).
struct BenchError : std::runtime_error {
  bool oom;
  BenchError(const std::string &msg, bool oom_) : std::runtime_error(msg), oom(oom_) {}
};

mgpu_context *g_ctx = nullptr;  // for mgpu_context_error in MG()

[[noreturn]] void throw_cuda(cudaError_t e, const char *call, const char *file, int line) {
  bool oom = (e == cudaErrorMemoryAllocation);
  if (oom) (void)cudaGetLastError();  // not sticky: clear it
  char buf[1024];
  std::snprintf(buf, sizeof buf, "%s:%d: %s failed: %s (%s)", file, line, call,
                cudaGetErrorString(e), cudaGetErrorName(e));
  throw BenchError(buf, oom);
}

[[noreturn]] void throw_mgpu(mgpu_status s, const char *call, const char *file, int line) {
  char buf[1024];
  std::snprintf(buf, sizeof buf, "%s:%d: %s failed: %s: %s", file, line, call,
                mgpu_status_name(s), g_ctx ? mgpu_context_error(g_ctx) : "(no context)");
  throw BenchError(buf, s == MGPU_ENOMEM);
}

#define CK(call)                                                        \
  do {                                                                  \
    cudaError_t ck_e_ = (call);                                         \
    if (ck_e_ != cudaSuccess) throw_cuda(ck_e_, #call, __FILE__, __LINE__); \
  } while (0)

#define MG(call)                                                        \
  do {                                                                  \
    mgpu_status mg_s_ = (call);                                         \
    if (mg_s_ != MGPU_OK) throw_mgpu(mg_s_, #call, __FILE__, __LINE__); \
  } while (0)

// Kernel launches: the launch error, if any.
#define CK_LAUNCH() CK(cudaGetLastError())

// ===========================================================================
// device helpers: data generation and verification kernels
// ===========================================================================

__host__ __device__ inline uint64_t mix64(uint64_t x) {  // splitmix64 finaliser
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

inline unsigned grid_for(size_t n, unsigned block = 256) {
  size_t g = (n + block - 1) / block;
  if (g < 1) g = 1;
  if (g > 65536u * 4) g = 65536u * 4;
  return (unsigned)g;
}

#define GRID_STRIDE(i, n)                                                      \
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n);      \
       i += (size_t)gridDim.x * blockDim.x)

// Uniform over the full range of K (integers: every bit pattern).
template <class K>
__global__ void k_random(K *out, size_t n, uint64_t seed) {
  GRID_STRIDE(i, n) { out[i] = (K)mix64(seed * 0xD1B54A32D192ED03ull + i); }
}

template <class V>
__global__ void k_iota(V *out, size_t n, long long start) {
  GRID_STRIDE(i, n) { out[i] = (V)(start + (long long)i); }
}

template <class W>
__global__ void k_first_diff(const W *a, const W *b, size_t n, unsigned long long *first) {
  GRID_STRIDE(i, n) {
    if (a[i] != b[i]) atomicMin(first, (unsigned long long)i);
  }
}

// keys nondecreasing (under <).
template <class K>
__global__ void k_check_sorted(const K *keys, size_t n, unsigned long long *first_bad) {
  GRID_STRIDE(i, n) {
    if (i > 0 && keys[i] < keys[i - 1]) atomicMin(first_bad, (unsigned long long)i);
  }
}

// Independent check of a stable merge / stable sort with tagged values.
// The inputs' values are tags: the element's position in the concatenated
// input (a then b for merge; the original index for sort).  The stable
// result is then the unique sequence that is (1) a permutation of the input
// and (2) strictly increasing in (key, tag).  We check, for every i:
//   0 <= tag_i < n, key_i == input_key[tag_i]          (so (1) given (2))
//   (key_{i-1}, tag_{i-1}) < (key_i, tag_i)            (2)
// src_b may be null (sort: na == n).
template <class K, class V>
__global__ void k_check_stable_pairs(const K *keys, const V *vals, size_t n, const K *src_a,
                                     size_t na, const K *src_b,
                                     unsigned long long *first_bad) {
  GRID_STRIDE(i, n) {
    long long tag = (long long)vals[i];
    K k = keys[i];
    bool ok = tag >= 0 && (unsigned long long)tag < (unsigned long long)n;
    if (ok) {
      size_t t = (size_t)tag;
      K src = t < na ? src_a[t] : src_b[t - na];
      ok = !(src < k) && !(k < src);
    }
    if (ok && i > 0) {
      K pk = keys[i - 1];
      long long pt = (long long)vals[i - 1];
      ok = (pk < k) || (!(k < pk) && pt < tag);
    }
    if (!ok) atomicMin(first_bad, (unsigned long long)i);
  }
}

// ===========================================================================
// buffers, runners, instances
// ===========================================================================

class DevBuf {
 public:
  explicit DevBuf(size_t bytes) {
    CK(cudaMalloc(&p_, bytes ? bytes : 256));
  }
  ~DevBuf() {
    if (p_) (void)cudaFree(p_);
  }
  DevBuf(const DevBuf &) = delete;
  DevBuf &operator=(const DevBuf &) = delete;
  void *get() const { return p_; }

 private:
  void *p_ = nullptr;
};

// One output array of a runner, for byte comparison and messages.
struct Span {
  const void *ptr;
  size_t count;      // elements
  mgpu_dtype type;   // for printing elements
  const char *what;  // "keys", "values"
  size_t bytes() const { return count * mgpu_dtype_size(type); }
};

struct Runner {
  std::string name;                          // "mgpu", "cub::DeviceMerge", "memcpy"
  std::function<void()> prep;                // untimed, before the L2 flush (may be empty)
  std::function<void()> run;                 // the timed call
  std::function<std::vector<Span>()> outputs;  // valid after run()
  std::vector<float> times_ms;
};

struct Env;

struct Instance {
  std::vector<std::unique_ptr<DevBuf>> bufs;
  Runner mgpu;
  std::vector<Runner> anchors;
  size_t keys = 0;      // keys processed, for Gkeys/s
  size_t bytes_in = 0;  // memcpy size: bytes the primitive reads (keys + values), or
                        // its output size where that is the better measure
  // Optional independent check of a runner's outputs: "" when correct, else
  // a description of the first wrong element.
  std::function<std::string(const Runner &)> selfcheck;

  template <class T = void>
  T *alloc(size_t bytes) {
    bufs.emplace_back(new DevBuf(bytes));
    return static_cast<T *>(bufs.back()->get());
  }
};

struct Env {
  mgpu_context *ctx = nullptr;
  cudaStream_t stream = nullptr;
  int device = 0;
  cudaDeviceProp prop{};
  void *flush_buf = nullptr;
  size_t flush_bytes = 0;
  cudaEvent_t ev_start = nullptr, ev_stop = nullptr;
  unsigned long long *d_scratch = nullptr;  // one word for verification kernels
  int warmup = 3;
  int reps = 15;
};

using MakeFn = std::function<std::unique_ptr<Instance>(Env &, mgpu_dtype, size_t)>;

struct Case {
  std::string primitive;
  std::string variant;
  std::vector<mgpu_dtype> dtypes;  // key dtypes the case supports
  MakeFn make;
  bool wide;  // its mgpu call takes counts past MGPU_MAX_COUNT on cuda
};

std::vector<Case> &registry() {
  static std::vector<Case> r;
  return r;
}

void add_case(const char *primitive, const char *variant, std::vector<mgpu_dtype> dtypes,
              MakeFn make, bool wide = false) {
  registry().push_back(Case{primitive, variant, std::move(dtypes), std::move(make), wide});
}

// ---- small helpers used by cases ------------------------------------------

// Values carried with keys: an integer of the key's width (tags fit: n <= 2^31-1).
template <class K>
using value_for = typename std::conditional<sizeof(K) == 4, int32_t, int64_t>::type;

// Calls f(K{}) with K the C++ type of key dtype t.  Only the dtypes listed
// here are instantiated (each costs CUB compile time); add more as needed.
template <class F>
void with_key_type(mgpu_dtype t, F &&f) {
  switch (t) {
    case MGPU_I32: f(int32_t{}); return;
    case MGPU_I64: f(int64_t{}); return;
    default:
      throw BenchError(std::string("dtype ") + mgpu_dtype_name(t) + " not instantiated in bench.cu",
                       false);
  }
}

template <class K>
void gen_random(Env &env, K *d, size_t n, uint64_t seed) {
  if (!n) return;
  k_random<K><<<grid_for(n), 256, 0, env.stream>>>(d, n, seed);
  CK_LAUNCH();
}

template <class V>
void gen_iota(Env &env, V *d, size_t n, long long start) {
  if (!n) return;
  k_iota<V><<<grid_for(n), 256, 0, env.stream>>>(d, n, start);
  CK_LAUNCH();
}

// Sorts d[0..n) ascending once, untimed (setup only), with CUB radix sort.
template <class K>
void sort_once(Env &env, K *d, size_t n) {
  if (n < 2) return;
  DevBuf alt(n * sizeof(K));
  cub::DoubleBuffer<K> db(d, static_cast<K *>(alt.get()));
  size_t tb = 0;
  CK(cub::DeviceRadixSort::SortKeys(nullptr, tb, db, (int)n, 0, (int)(sizeof(K) * 8), env.stream));
  DevBuf tmp(tb);
  CK(cub::DeviceRadixSort::SortKeys(tmp.get(), tb, db, (int)n, 0, (int)(sizeof(K) * 8), env.stream));
  if (db.Current() != d)
    CK(cudaMemcpyAsync(d, db.Current(), n * sizeof(K), cudaMemcpyDeviceToDevice, env.stream));
  CK(cudaStreamSynchronize(env.stream));  // before alt and tmp are freed
}

void copy_async(Env &env, void *dst, const void *src, size_t bytes) {
  if (bytes) CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, env.stream));
}

// Runs a first-index kernel launcher on env.d_scratch; returns ULLONG_MAX if none.
template <class Launch>
unsigned long long first_index(Env &env, Launch &&launch) {
  unsigned long long none = ULLONG_MAX, got = 0;
  CK(cudaMemcpyAsync(env.d_scratch, &none, sizeof none, cudaMemcpyHostToDevice, env.stream));
  launch(env.d_scratch);
  CK_LAUNCH();
  CK(cudaMemcpyAsync(&got, env.d_scratch, sizeof got, cudaMemcpyDeviceToHost, env.stream));
  CK(cudaStreamSynchronize(env.stream));
  return got;
}

std::string fmt_elem(Env &env, const void *dptr, mgpu_dtype t, size_t i) {
  unsigned char b[8] = {0};
  size_t sz = mgpu_dtype_size(t);
  CK(cudaMemcpyAsync(b, static_cast<const unsigned char *>(dptr) + i * sz, sz,
                     cudaMemcpyDeviceToHost, env.stream));
  CK(cudaStreamSynchronize(env.stream));
  char s[64];
  switch (t) {
    case MGPU_I32: { int32_t v; std::memcpy(&v, b, 4); std::snprintf(s, sizeof s, "%d", v); break; }
    case MGPU_U32: { uint32_t v; std::memcpy(&v, b, 4); std::snprintf(s, sizeof s, "%u", v); break; }
    case MGPU_I64: { int64_t v; std::memcpy(&v, b, 8); std::snprintf(s, sizeof s, "%lld", (long long)v); break; }
    case MGPU_U64: { uint64_t v; std::memcpy(&v, b, 8); std::snprintf(s, sizeof s, "%llu", (unsigned long long)v); break; }
    case MGPU_F32: { float v; std::memcpy(&v, b, 4); std::snprintf(s, sizeof s, "%.9g", v); break; }
    case MGPU_F64: { double v; std::memcpy(&v, b, 8); std::snprintf(s, sizeof s, "%.17g", v); break; }
    default: std::snprintf(s, sizeof s, "?"); break;
  }
  return s;
}

// Compares two runners' outputs byte for byte.  "" when identical, else a
// description of the first difference.
std::string compare_outputs(Env &env, const Runner &x, const Runner &y) {
  std::vector<Span> a = x.outputs(), b = y.outputs();
  if (a.size() != b.size()) return "different number of outputs";
  for (size_t s = 0; s < a.size(); ++s) {
    if (a[s].bytes() != b[s].bytes()) {
      char buf[256];
      std::snprintf(buf, sizeof buf, "%s: %zu vs %zu elements", a[s].what, a[s].count, b[s].count);
      return buf;
    }
    size_t bytes = a[s].bytes();
    if (!bytes) continue;
    unsigned long long first;
    size_t elem_per_word;
    if (bytes % 8 == 0 && mgpu_dtype_size(a[s].type) % 8 == 0) {
      size_t w = bytes / 8;
      first = first_index(env, [&](unsigned long long *f) {
        k_first_diff<unsigned long long><<<grid_for(w), 256, 0, env.stream>>>(
            (const unsigned long long *)a[s].ptr, (const unsigned long long *)b[s].ptr, w, f);
      });
      elem_per_word = 8;
    } else {
      size_t w = bytes / 4;  // every dtype is 4 or 8 bytes
      first = first_index(env, [&](unsigned long long *f) {
        k_first_diff<uint32_t><<<grid_for(w), 256, 0, env.stream>>>(
            (const uint32_t *)a[s].ptr, (const uint32_t *)b[s].ptr, w, f);
      });
      elem_per_word = 4;
    }
    if (first != ULLONG_MAX) {
      size_t elem = (size_t)(first * elem_per_word / mgpu_dtype_size(a[s].type));
      std::string msg = std::string(a[s].what) + " differ first at element " + std::to_string(elem) +
                        " (0-based): " + x.name + " " + fmt_elem(env, a[s].ptr, a[s].type, elem) +
                        ", " + y.name + " " + fmt_elem(env, b[s].ptr, b[s].type, elem);
      // Show the pair at that position too.
      for (size_t o = 0; o < a.size(); ++o)
        if (o != s && a[o].count == a[s].count)
          msg += std::string("; ") + a[o].what + " there: " + x.name + " " +
                 fmt_elem(env, a[o].ptr, a[o].type, elem) + ", " + y.name + " " +
                 fmt_elem(env, b[o].ptr, b[o].type, elem);
      return msg;
    }
  }
  return "";
}

// Self-checks shared by sort-like and merge-like cases.
template <class K, class V>
std::function<std::string(const Runner &)> stable_pairs_check(Env &env, const K *src_a, size_t na,
                                                              const K *src_b, size_t n) {
  Env *e = &env;
  return [=](const Runner &r) -> std::string {
    std::vector<Span> o = r.outputs();
    const K *keys = (const K *)o[0].ptr;
    const V *vals = (const V *)o[1].ptr;
    unsigned long long bad = first_index(*e, [&](unsigned long long *f) {
      k_check_stable_pairs<K, V><<<grid_for(n), 256, 0, e->stream>>>(keys, vals, n, src_a, na, src_b, f);
    });
    if (bad == ULLONG_MAX) return "";
    return "element " + std::to_string(bad) + " (key " + fmt_elem(*e, keys, dtype_of<K>(), bad) +
           ", value " + fmt_elem(*e, vals, dtype_of<V>(), bad) +
           ") breaks the stable order or is not from the input";
  };
}

template <class K>
std::function<std::string(const Runner &)> sorted_keys_check(Env &env, size_t n) {
  Env *e = &env;
  return [=](const Runner &r) -> std::string {
    std::vector<Span> o = r.outputs();
    const K *keys = (const K *)o[0].ptr;
    unsigned long long bad = first_index(*e, [&](unsigned long long *f) {
      k_check_sorted<K><<<grid_for(n), 256, 0, e->stream>>>(keys, n, f);
    });
    if (bad == ULLONG_MAX) return "";
    return "keys not sorted at element " + std::to_string(bad) + " (" +
           fmt_elem(*e, keys, dtype_of<K>(), bad - 1) + " then " +
           fmt_elem(*e, keys, dtype_of<K>(), bad) + ")";
  };
}

// ===========================================================================
// case: merge (keys | pairs) vs cub::DeviceMerge
// ===========================================================================

template <class K>
std::unique_ptr<Instance> make_merge_t(Env &env, size_t n, bool pairs) {
  using V = value_for<K>;
  const mgpu_dtype kt = dtype_of<K>();
  const size_t na = n / 2, nb = n - na;
  auto I = std::make_unique<Instance>();
  I->keys = n;
  I->bytes_in = n * sizeof(K) + (pairs ? n * sizeof(V) : 0);

  // inputs: random keys, sorted once; values tag each input element
  K *a = I->alloc<K>(na * sizeof(K));
  K *b = I->alloc<K>(nb * sizeof(K));
  gen_random(env, a, na, 1);
  gen_random(env, b, nb, 2);
  sort_once(env, a, na);
  sort_once(env, b, nb);
  V *av = nullptr, *bv = nullptr;
  if (pairs) {
    av = I->alloc<V>(na * sizeof(V));
    bv = I->alloc<V>(nb * sizeof(V));
    gen_iota(env, av, na, 0);
    gen_iota(env, bv, nb, (long long)na);
  }

  auto spans = [=](K *k, V *v) {
    return [=]() {
      std::vector<Span> s{{k, n, kt, "keys"}};
      if (pairs) s.push_back({v, n, dtype_of<V>(), "values"});
      return s;
    };
  };

  // mgpu
  K *mk = I->alloc<K>(n * sizeof(K));
  V *mv = pairs ? I->alloc<V>(n * sizeof(V)) : nullptr;
  mgpu_context *ctx = env.ctx;
  I->mgpu.name = "mgpu";
  I->mgpu.run = [=]() {
    MG(mgpu_merge(ctx, kt, MGPU_LESS, a, na, b, nb, mk, pairs ? sizeof(V) : 0, av, bv, mv));
  };
  I->mgpu.outputs = spans(mk, mv);

  // cub::DeviceMerge
  K *ck = I->alloc<K>(n * sizeof(K));
  V *cv = pairs ? I->alloc<V>(n * sizeof(V)) : nullptr;
  cudaStream_t st = env.stream;
  size_t tb = 0;
  if (pairs)
    CK(cub::DeviceMerge::MergePairs(nullptr, tb, a, av, (int64_t)na, b, bv, (int64_t)nb, ck, cv,
                                    ::cuda::std::less<K>{}, st));
  else
    CK(cub::DeviceMerge::MergeKeys(nullptr, tb, a, (int64_t)na, b, (int64_t)nb, ck,
                                   ::cuda::std::less<K>{}, st));
  void *temp = I->alloc(tb);
  Runner cub_r;
  cub_r.name = "cub::DeviceMerge";
  cub_r.run = [=]() {
    size_t t = tb;
    if (pairs)
      CK(cub::DeviceMerge::MergePairs(temp, t, a, av, (int64_t)na, b, bv, (int64_t)nb, ck, cv,
                                      ::cuda::std::less<K>{}, st));
    else
      CK(cub::DeviceMerge::MergeKeys(temp, t, a, (int64_t)na, b, (int64_t)nb, ck,
                                     ::cuda::std::less<K>{}, st));
  };
  cub_r.outputs = spans(ck, cv);
  I->anchors.push_back(std::move(cub_r));

  if (pairs)
    I->selfcheck = stable_pairs_check<K, V>(env, a, na, b, n);
  else
    I->selfcheck = sorted_keys_check<K>(env, n);
  CK(cudaStreamSynchronize(env.stream));
  return I;
}

std::unique_ptr<Instance> make_merge(Env &env, mgpu_dtype t, size_t n, bool pairs) {
  std::unique_ptr<Instance> r;
  with_key_type(t, [&](auto k) { r = make_merge_t<decltype(k)>(env, n, pairs); });
  return r;
}

// ===========================================================================
// case: mergesort (keys | pairs) vs cub::DeviceMergeSort, and
// cub::DeviceRadixSort as a reference row
// ===========================================================================

// CUB merge sort with the narrowest offset type that is safe for n.
template <class K, class V, class OffsetT>
cudaError_t cub_merge_sort(void *temp, size_t &tb, K *k, V *v, size_t n, bool pairs,
                           cudaStream_t st) {
  if (pairs)
    return cub::DeviceMergeSort::StableSortPairs(temp, tb, k, v, (OffsetT)n, ::cuda::std::less<K>{}, st);
  return cub::DeviceMergeSort::StableSortKeys(temp, tb, k, (OffsetT)n, ::cuda::std::less<K>{}, st);
}

template <class K, class V>
cudaError_t cub_merge_sort_any(void *temp, size_t &tb, K *k, V *v, size_t n, bool pairs,
                               cudaStream_t st) {
  if (n <= ((size_t)1 << 30)) return cub_merge_sort<K, V, int32_t>(temp, tb, k, v, n, pairs, st);
  return cub_merge_sort<K, V, int64_t>(temp, tb, k, v, n, pairs, st);
}

// cub::DeviceRadixSort, DoubleBuffer form (its fastest: no final copy), as
// an anchor of a sort of the n keys (and values) at pk (pv), restored
// before each rep.  The result lands in either buffer; the selector is
// reset before each rep.
template <class K, class V>
void add_cub_radix_anchor(Instance &I, Env &env, const K *pk, const V *pv, size_t n, bool pairs) {
  const mgpu_dtype kt = dtype_of<K>();
  const size_t kb = n * sizeof(K), vb = pairs ? n * sizeof(V) : 0;
  cudaStream_t st = env.stream;
  Env *e = &env;
  K *rk0 = I.alloc<K>(kb), *rk1 = I.alloc<K>(kb);
  V *rv0 = pairs ? I.alloc<V>(vb) : nullptr, *rv1 = pairs ? I.alloc<V>(vb) : nullptr;
  struct State {
    cub::DoubleBuffer<K> k;
    cub::DoubleBuffer<V> v;
  };
  auto s = std::make_shared<State>();
  auto reset = [=]() {
    s->k = cub::DoubleBuffer<K>(rk0, rk1);
    s->v = cub::DoubleBuffer<V>(rv0, rv1);
  };
  reset();
  const int bits = (int)(sizeof(K) * 8);
  // CUB's item count: int as it is used most, 64-bit past INT_MAX
  auto sort = [=](void *temp, size_t &tb) {
    if (n <= (size_t)INT_MAX)
      return pairs ? cub::DeviceRadixSort::SortPairs(temp, tb, s->k, s->v, (int)n, 0, bits, st)
                   : cub::DeviceRadixSort::SortKeys(temp, tb, s->k, (int)n, 0, bits, st);
    return pairs ? cub::DeviceRadixSort::SortPairs(temp, tb, s->k, s->v, (int64_t)n, 0, bits, st)
                 : cub::DeviceRadixSort::SortKeys(temp, tb, s->k, (int64_t)n, 0, bits, st);
  };
  size_t tb = 0;
  CK(sort(nullptr, tb));
  void *temp = I.alloc(tb);
  Runner r;
  r.name = "cub::DeviceRadixSort";
  r.prep = [=]() {
    reset();
    copy_async(*e, rk0, pk, kb);
    if (pairs) copy_async(*e, rv0, pv, vb);
  };
  r.run = [=]() {
    size_t t = tb;
    CK(sort(temp, t));
  };
  r.outputs = [=]() {
    std::vector<Span> o{{s->k.Current(), n, kt, "keys"}};
    if (pairs) o.push_back({s->v.Current(), n, dtype_of<V>(), "values"});
    return o;
  };
  I.anchors.push_back(std::move(r));
}

template <class K>
std::unique_ptr<Instance> make_mergesort_t(Env &env, size_t n, bool pairs) {
  using V = value_for<K>;
  const mgpu_dtype kt = dtype_of<K>();
  const size_t kb = n * sizeof(K), vb = pairs ? n * sizeof(V) : 0;
  auto I = std::make_unique<Instance>();
  I->keys = n;
  I->bytes_in = kb + vb;

  // pristine input: random keys, values = iota (the original index)
  K *pk = I->alloc<K>(kb);
  V *pv = pairs ? I->alloc<V>(vb) : nullptr;
  gen_random(env, pk, n, 3);
  if (pairs) gen_iota(env, pv, n, 0);

  auto spans = [=](K *k, V *v) {
    std::vector<Span> s{{k, n, kt, "keys"}};
    if (pairs) s.push_back({v, n, dtype_of<V>(), "values"});
    return s;
  };
  Env *e = &env;
  auto restore = [=](K *k, V *v) {
    return [=]() {
      copy_async(*e, k, pk, kb);
      if (pairs) copy_async(*e, v, pv, vb);
    };
  };

  // mgpu (in place)
  K *mk = I->alloc<K>(kb);
  V *mv = pairs ? I->alloc<V>(vb) : nullptr;
  mgpu_context *ctx = env.ctx;
  I->mgpu.name = "mgpu";
  I->mgpu.prep = restore(mk, mv);
  I->mgpu.run = [=]() {
    MG(mgpu_mergesort(ctx, kt, MGPU_LESS, mk, n, pairs ? sizeof(V) : 0, mv));
  };
  I->mgpu.outputs = [=]() { return spans(mk, mv); };

  cudaStream_t st = env.stream;

  // cub::DeviceMergeSort (in place)
  {
    K *ck = I->alloc<K>(kb);
    V *cv = pairs ? I->alloc<V>(vb) : nullptr;
    size_t tb = 0;
    CK((cub_merge_sort_any<K, V>(nullptr, tb, ck, cv, n, pairs, st)));
    void *temp = I->alloc(tb);
    Runner r;
    r.name = "cub::DeviceMergeSort";
    r.prep = restore(ck, cv);
    r.run = [=]() {
      size_t t = tb;
      CK((cub_merge_sort_any<K, V>(temp, t, ck, cv, n, pairs, st)));
    };
    r.outputs = [=]() { return spans(ck, cv); };
    I->anchors.push_back(std::move(r));
  }

  // past MGPU_MAX_COUNT its two buffers would not fit beside the merge
  // sorts' on one device (the sort case measures it there)
  if (n <= MGPU_MAX_COUNT) add_cub_radix_anchor<K, V>(*I, env, pk, pv, n, pairs);

  if (pairs)
    I->selfcheck = stable_pairs_check<K, V>(env, pk, n, nullptr, n);
  else
    I->selfcheck = sorted_keys_check<K>(env, n);
  CK(cudaStreamSynchronize(env.stream));
  return I;
}

std::unique_ptr<Instance> make_mergesort(Env &env, mgpu_dtype t, size_t n, bool pairs) {
  std::unique_ptr<Instance> r;
  with_key_type(t, [&](auto k) { r = make_mergesort_t<decltype(k)>(env, n, pairs); });
  return r;
}

// ===========================================================================
// case: sort, the radix sort (keys | pairs) vs cub::DeviceRadixSort, and
// mgpu_mergesort (the same results) as a second row
// ===========================================================================

template <class K, class V = value_for<K>>
std::unique_ptr<Instance> make_sort_t(Env &env, size_t n, bool pairs) {
  const mgpu_dtype kt = dtype_of<K>();
  const size_t kb = n * sizeof(K), vb = pairs ? n * sizeof(V) : 0;
  auto I = std::make_unique<Instance>();
  I->keys = n;
  I->bytes_in = kb + vb;

  // pristine input: random keys (f32: non-negative, no NaN), values = iota
  K *pk = I->alloc<K>(kb);
  V *pv = pairs ? I->alloc<V>(vb) : nullptr;
  gen_random(env, pk, n, 4);
  if (pairs) gen_iota(env, pv, n, 0);

  auto spans = [=](K *k, V *v) {
    std::vector<Span> s{{k, n, kt, "keys"}};
    if (pairs) s.push_back({v, n, dtype_of<V>(), "values"});
    return s;
  };
  Env *e = &env;
  auto restore = [=](K *k, V *v) {
    return [=]() {
      copy_async(*e, k, pk, kb);
      if (pairs) copy_async(*e, v, pv, vb);
    };
  };
  mgpu_context *ctx = env.ctx;

  // mgpu (in place; the input is restored untimed)
  K *mk = I->alloc<K>(kb);
  V *mv = pairs ? I->alloc<V>(vb) : nullptr;
  I->mgpu.name = "mgpu";
  I->mgpu.prep = restore(mk, mv);
  I->mgpu.run = [=]() { MG(mgpu_sort(ctx, kt, MGPU_LESS, mk, n, pairs ? sizeof(V) : 0, mv)); };
  I->mgpu.outputs = [=]() { return spans(mk, mv); };

  add_cub_radix_anchor<K, V>(*I, env, pk, pv, n, pairs);

  // which sort to use when (docs/API.md): mergesort's time on the same
  // keys; past MGPU_MAX_COUNT its copies would not fit beside the radix
  // sorts' on one device (the mergesort case measures it there)
  if (n <= MGPU_MAX_COUNT) {
    K *gk = I->alloc<K>(kb);
    V *gv = pairs ? I->alloc<V>(vb) : nullptr;
    Runner r;
    r.name = "mgpu_mergesort";
    r.prep = restore(gk, gv);
    r.run = [=]() { MG(mgpu_mergesort(ctx, kt, MGPU_LESS, gk, n, pairs ? sizeof(V) : 0, gv)); };
    r.outputs = [=]() { return spans(gk, gv); };
    I->anchors.push_back(std::move(r));
  }

  if (pairs)
    I->selfcheck = stable_pairs_check<K, V>(env, pk, n, nullptr, n);
  else
    I->selfcheck = sorted_keys_check<K>(env, n);
  CK(cudaStreamSynchronize(env.stream));
  return I;
}

// The radix sort's key dtypes: the integer widths and f32 (with_key_type
// would instantiate every case for f32).  mixed: values of the other
// width, the keys' positions as a script keeps them (i64 beside 4-byte
// keys, as torch.sort returns; i32 beside i64 keys).
std::unique_ptr<Instance> make_sort(Env &env, mgpu_dtype t, size_t n, bool pairs,
                                    bool mixed = false) {
  switch (t) {
    case MGPU_I32:
      return mixed ? make_sort_t<int32_t, int64_t>(env, n, true)
                   : make_sort_t<int32_t>(env, n, pairs);
    case MGPU_I64:
      return mixed ? make_sort_t<int64_t, int32_t>(env, n, true)
                   : make_sort_t<int64_t>(env, n, pairs);
    case MGPU_F32:
      return mixed ? make_sort_t<float, int64_t>(env, n, true)
                   : make_sort_t<float>(env, n, pairs);
    default:
      throw BenchError(std::string("dtype ") + mgpu_dtype_name(t) + " not instantiated for sort",
                       false);
  }
}

// ===========================================================================
// shared by the bulk and interval cases: index generation, Thrust plumbing
// ===========================================================================

template <class T>
__global__ void k_fill(T *out, size_t n, T v) {
  GRID_STRIDE(i, n) { out[i] = v; }
}

// flags[indices[i]] = 0 (the removal mask of bulk_remove's anchors).
__global__ void k_scatter_zero(uint8_t *flags, const int32_t *indices, size_t m) {
  GRID_STRIDE(i, m) { flags[indices[i]] = 0; }
}

// High half random, low half the index: sorting these gives a random
// permutation in the low halves.
__global__ void k_tagged_random(uint64_t *out, size_t n, uint64_t seed) {
  GRID_STRIDE(i, n) {
    out[i] = (mix64(seed * 0xD1B54A32D192ED03ull + i) & 0xFFFFFFFF00000000ull) | (uint64_t)i;
  }
}

__global__ void k_low32(int32_t *out, const uint64_t *in, size_t n) {
  GRID_STRIDE(i, n) { out[i] = (int32_t)(uint32_t)in[i]; }
}

// Uniform in [0, bound).
__global__ void k_random_below(int32_t *out, size_t n, uint64_t bound, uint64_t seed) {
  GRID_STRIDE(i, n) { out[i] = (int32_t)(mix64(seed * 0xD1B54A32D192ED03ull + i) % bound); }
}

// m counts from m-1 sorted cut points in [0, total]: they sum to total.
__global__ void k_counts_from_cuts(int32_t *counts, const int32_t *cuts, size_t m, int32_t total) {
  GRID_STRIDE(i, m) {
    int32_t hi = i + 1 < m ? cuts[i] : total;
    int32_t lo = i > 0 ? cuts[i - 1] : 0;
    counts[i] = hi - lo;
  }
}

// out[r] = in[perm[r]]
__global__ void k_permute(int32_t *out, const int32_t *in, const int32_t *perm, size_t m) {
  GRID_STRIDE(r, m) { out[r] = in[perm[r]]; }
}

// out[perm[r]] = in[r]
__global__ void k_unpermute(int32_t *out, const int32_t *in, const int32_t *perm, size_t m) {
  GRID_STRIDE(r, m) { out[perm[r]] = in[r]; }
}

// First position in a[0..m) with a[p] >= x (lower) or a[p] > x (upper).
__device__ inline size_t dev_lower_bound(const int32_t *a, size_t m, long long x) {
  size_t lo = 0, hi = m;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (a[mid] < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}
__device__ inline size_t dev_upper_bound(const int32_t *a, size_t m, long long x) {
  size_t lo = 0, hi = m;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (a[mid] <= x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// Independent checks; each reports the first wrong output position.
// bulk_remove: kept element j lands at j - (indices below j).
template <class K>
__global__ void k_check_remove(const K *data, size_t n, const int32_t *indices, size_t m,
                               const K *out, unsigned long long *first_bad) {
  GRID_STRIDE(j, n) {
    size_t below = dev_lower_bound(indices, m, (long long)j);
    if (below < m && (size_t)indices[below] == j) continue;
    if (!(out[j - below] == data[j])) atomicMin(first_bad, (unsigned long long)(j - below));
  }
}

// bulk_insert: data[j] lands at j + (positions <= j), values[i] at positions[i] + i;
// together these cover all n + m outputs once.
template <class K>
__global__ void k_check_insert(const K *data, size_t n, const int32_t *positions,
                               const K *values, size_t m, const K *out,
                               unsigned long long *first_bad) {
  GRID_STRIDE(t, n + m) {
    size_t o;
    bool ok;
    if (t < n) {
      o = t + dev_upper_bound(positions, m, (long long)t);
      ok = out[o] == data[t];
    } else {
      size_t i = t - n;
      o = (size_t)positions[i] + i;
      ok = out[o] == values[i];
    }
    if (!ok) atomicMin(first_bad, (unsigned long long)o);
  }
}

// interval_expand / interval_move, one thread per interval:
// out[scan[i] + j] == src[(gather ? gather[i] : i) + (gather ? j : 0)], j < counts[i].
template <class K>
__global__ void k_check_intervals(const K *src, const int32_t *gather, const int32_t *counts,
                                  const int32_t *scan, size_t m, const K *out,
                                  unsigned long long *first_bad) {
  GRID_STRIDE(i, m) {
    for (int32_t j = 0; j < counts[i]; ++j) {
      K want = gather ? src[(size_t)gather[i] + j] : src[i];
      size_t o = (size_t)scan[i] + j;
      if (!(out[o] == want)) {
        atomicMin(first_bad, (unsigned long long)o);
        break;
      }
    }
  }
}

// out = a random permutation of 0..n-1 (setup only).
void random_permutation(Env &env, int32_t *out, size_t n, uint64_t seed) {
  if (!n) return;
  DevBuf tagged(n * sizeof(uint64_t));
  uint64_t *t = static_cast<uint64_t *>(tagged.get());
  k_tagged_random<<<grid_for(n), 256, 0, env.stream>>>(t, n, seed);
  CK_LAUNCH();
  sort_once(env, t, n);
  k_low32<<<grid_for(n), 256, 0, env.stream>>>(out, t, n);
  CK_LAUNCH();
  CK(cudaStreamSynchronize(env.stream));  // before tagged is freed
}

// out = exclusive prefix sum of in (setup only).
void exclusive_sum_once(Env &env, const int32_t *in, int32_t *out, size_t m) {
  if (!m) return;
  size_t tb = 0;
  CK(cub::DeviceScan::ExclusiveSum(nullptr, tb, in, out, (int64_t)m, env.stream));
  DevBuf tmp(tb);
  CK(cub::DeviceScan::ExclusiveSum(tmp.get(), tb, in, out, (int64_t)m, env.stream));
  CK(cudaStreamSynchronize(env.stream));  // before tmp is freed
}

template <class K>
std::function<std::string(const Runner &)> first_bad_check(Env &env, const char *what,
                                                           std::function<void(const K *, unsigned long long *)> launch) {
  Env *e = &env;
  std::string w = what;
  return [=](const Runner &r) -> std::string {
    std::vector<Span> o = r.outputs();
    const K *out = (const K *)o[0].ptr;
    unsigned long long bad = first_index(*e, [&](unsigned long long *f) { launch(out, f); });
    if (bad == ULLONG_MAX) return "";
    return "output element " + std::to_string(bad) + " (" + fmt_elem(*e, out, dtype_of<K>(), bad) +
           ") is not " + w;
  };
}

// Thrust takes its temporaries through this allocator: blocks are cached
// for the Instance's lifetime, so after the warm-up reps no cudaMalloc /
// cudaFree falls inside the timing (as with CUB's temp storage).
struct ThrustCache {
  std::multimap<size_t, char *> free_blocks;
  std::map<char *, size_t> live;
  ThrustCache() = default;
  ThrustCache(const ThrustCache &) = delete;
  ThrustCache &operator=(const ThrustCache &) = delete;
  ~ThrustCache() {
    for (auto &kv : free_blocks) (void)cudaFree(kv.second);
    for (auto &kv : live) (void)cudaFree(kv.first);
  }
  char *get(size_t bytes) {
    auto it = free_blocks.lower_bound(bytes);
    if (it != free_blocks.end()) {
      char *p = it->second;
      live[p] = it->first;
      free_blocks.erase(it);
      return p;
    }
    void *p = nullptr;
    if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) {
      (void)cudaGetLastError();
      for (auto &kv : free_blocks) (void)cudaFree(kv.second);  // retry without the cache
      free_blocks.clear();
      if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) {
        (void)cudaGetLastError();
        throw std::bad_alloc();
      }
    }
    live[(char *)p] = bytes;
    return (char *)p;
  }
  void put(char *p) {
    auto it = live.find(p);
    if (it == live.end()) return;
    free_blocks.emplace(it->second, p);
    live.erase(it);
  }
};

struct ThrustAlloc {
  using value_type = char;
  ThrustCache *cache;
  char *allocate(std::ptrdiff_t bytes) { return cache->get((size_t)bytes); }
  void deallocate(char *p, size_t) { cache->put(p); }
};

// Runs Thrust calls, turning their exceptions into BenchError.
template <class F>
void thrust_call(F &&f) {
  try {
    f();
  } catch (const BenchError &) {
    throw;
  } catch (const std::bad_alloc &ex) {
    (void)cudaGetLastError();
    throw BenchError(std::string("thrust: out of memory (") + ex.what() + ")", true);
  } catch (const std::exception &ex) {
    std::string msg = ex.what();
    bool oom = msg.find("out of memory") != std::string::npos;
    if (oom) (void)cudaGetLastError();
    throw BenchError("thrust: " + msg, oom);
  }
}

struct FlagSet {
  __host__ __device__ bool operator()(uint8_t f) const { return f != 0; }
};

struct MinusOne {
  __host__ __device__ int32_t operator()(int32_t x) const { return x - 1; }
};

// interval_move's source index of output k, from k's interval (idx[k] - 1).
struct MoveSource {
  const int32_t *idx, *gather, *scan;
  __host__ __device__ int32_t operator()(int32_t k) const {
    int32_t iv = idx[k] - 1;
    return gather[iv] + (k - scan[iv]);
  }
};

// ===========================================================================
// case: bulk_remove (keys) vs scatter-flags + cub::DeviceSelect::Flagged and
// vs scatter-flags + thrust::copy_if
// ===========================================================================

template <class K>
std::unique_ptr<Instance> make_bulk_remove_t(Env &env, size_t n) {
  const mgpu_dtype kt = dtype_of<K>();
  const size_t m = n / 3, nout = n - m;
  auto I = std::make_unique<Instance>();
  I->keys = n;
  I->bytes_in = n * sizeof(K);  // the data

  K *data = I->alloc<K>(n * sizeof(K));
  gen_random(env, data, n, 11);
  // m sorted unique indices: the first m of a random permutation, sorted
  int32_t *idx = I->alloc<int32_t>(m * sizeof(int32_t));
  {
    DevBuf perm(n * sizeof(int32_t));
    random_permutation(env, static_cast<int32_t *>(perm.get()), n, 12);
    copy_async(env, idx, perm.get(), m * sizeof(int32_t));
    sort_once(env, idx, m);
    CK(cudaStreamSynchronize(env.stream));  // before perm is freed (sort_once skips m < 2)
  }
  cudaStream_t st = env.stream;
  mgpu_context *ctx = env.ctx;

  // mgpu
  K *mo = I->alloc<K>(nout * sizeof(K));
  I->mgpu.name = "mgpu";
  I->mgpu.run = [=]() { MG(mgpu_bulk_remove(ctx, sizeof(K), data, n, idx, m, mo)); };
  I->mgpu.outputs = [=]() { return std::vector<Span>{{mo, nout, kt, "keys"}}; };

  auto make_flags = [=](uint8_t *flags) {
    k_fill<uint8_t><<<grid_for(n), 256, 0, st>>>(flags, n, (uint8_t)1);
    CK_LAUNCH();
    if (m) {
      k_scatter_zero<<<grid_for(m), 256, 0, st>>>(flags, idx, m);
      CK_LAUNCH();
    }
  };
  Env *e = &env;

  // scatter-flags + cub::DeviceSelect::Flagged
  {
    uint8_t *flags = I->alloc<uint8_t>(n);
    K *co = I->alloc<K>(nout * sizeof(K));
    int64_t *nsel = I->alloc<int64_t>(sizeof(int64_t));
    size_t tb = 0;
    CK(cub::DeviceSelect::Flagged(nullptr, tb, data, flags, co, nsel, (int64_t)n, st));
    void *temp = I->alloc(tb);
    Runner r;
    r.name = "scatter-flags+cub::DeviceSelect::Flagged";
    r.run = [=]() {
      make_flags(flags);
      size_t t = tb;
      CK(cub::DeviceSelect::Flagged(temp, t, data, flags, co, nsel, (int64_t)n, st));
    };
    r.outputs = [=]() {
      int64_t got = 0;
      CK(cudaMemcpyAsync(&got, nsel, sizeof got, cudaMemcpyDeviceToHost, e->stream));
      CK(cudaStreamSynchronize(e->stream));
      return std::vector<Span>{{co, (size_t)got, kt, "keys"}};
    };
    I->anchors.push_back(std::move(r));
  }

  // scatter-flags + thrust::copy_if (stencil)
  {
    uint8_t *flags = I->alloc<uint8_t>(n);
    K *to = I->alloc<K>(nout * sizeof(K));
    auto cache = std::make_shared<ThrustCache>();
    auto count = std::make_shared<size_t>(0);
    Runner r;
    r.name = "thrust::copy_if";
    r.run = [=]() {
      make_flags(flags);
      thrust_call([&] {
        ThrustAlloc al{cache.get()};
        K *end = thrust::copy_if(thrust::cuda::par_nosync(al).on(st), data, data + n, flags, to,
                                 FlagSet{});
        *count = (size_t)(end - to);
      });
    };
    r.outputs = [=]() { return std::vector<Span>{{to, *count, kt, "keys"}}; };
    I->anchors.push_back(std::move(r));
  }

  I->selfcheck = first_bad_check<K>(env, "the data without the removed indices",
                                    [=](const K *out, unsigned long long *f) {
                                      k_check_remove<K><<<grid_for(n), 256, 0, st>>>(data, n, idx, m, out, f);
                                    });
  CK(cudaStreamSynchronize(env.stream));
  return I;
}

// ===========================================================================
// case: bulk_insert (keys) vs thrust::merge_by_key
// ===========================================================================

template <class K>
std::unique_ptr<Instance> make_bulk_insert_t(Env &env, size_t n) {
  const mgpu_dtype kt = dtype_of<K>();
  const size_t m = n / 4, nout = n + m;
  auto I = std::make_unique<Instance>();
  I->keys = nout;
  I->bytes_in = nout * sizeof(K);  // the output

  K *data = I->alloc<K>(n * sizeof(K));
  K *vals = I->alloc<K>(m * sizeof(K));
  int32_t *pos = I->alloc<int32_t>(m * sizeof(int32_t));
  gen_random(env, data, n, 21);
  gen_random(env, vals, m, 22);
  if (m) {
    k_random_below<<<grid_for(m), 256, 0, env.stream>>>(pos, m, (uint64_t)n + 1, 23);
    CK_LAUNCH();
    sort_once(env, pos, m);
  }
  cudaStream_t st = env.stream;
  mgpu_context *ctx = env.ctx;

  // mgpu
  K *mo = I->alloc<K>(nout * sizeof(K));
  I->mgpu.name = "mgpu";
  I->mgpu.run = [=]() { MG(mgpu_bulk_insert(ctx, sizeof(K), data, n, pos, vals, m, mo)); };
  I->mgpu.outputs = [=]() { return std::vector<Span>{{mo, nout, kt, "keys"}}; };

  // thrust::merge_by_key: keys = positions (inserted, first range: they win
  // ties) and 0..n-1 (the data's own positions), values = the payloads.
  {
    int32_t *counting = I->alloc<int32_t>(n * sizeof(int32_t));
    gen_iota(env, counting, n, 0);
    int32_t *ok = I->alloc<int32_t>(nout * sizeof(int32_t));
    K *ov = I->alloc<K>(nout * sizeof(K));
    auto cache = std::make_shared<ThrustCache>();
    Runner r;
    r.name = "thrust::merge_by_key";
    r.run = [=]() {
      thrust_call([&] {
        ThrustAlloc al{cache.get()};
        thrust::merge_by_key(thrust::cuda::par_nosync(al).on(st), pos, pos + m, counting,
                             counting + n, vals, data, ok, ov);
      });
    };
    r.outputs = [=]() { return std::vector<Span>{{ov, nout, kt, "keys"}}; };
    I->anchors.push_back(std::move(r));
  }

  I->selfcheck = first_bad_check<K>(env, "where the insertion puts data and values",
                                    [=](const K *out, unsigned long long *f) {
                                      k_check_insert<K><<<grid_for(nout), 256, 0, st>>>(data, n, pos, vals, m, out, f);
                                    });
  CK(cudaStreamSynchronize(env.stream));
  return I;
}

// ===========================================================================
// cases: interval_expand and interval_move (keys) vs
// thrust::exclusive_scan + thrust::upper_bound + thrust::gather
// ===========================================================================

// m = n/5 interval counts (int32, mean 5, zeros included) summing to
// exactly n, from m-1 sorted random cut points in [0, n]; and their
// exclusive scan (for setup and checks; the timed runs scan themselves).
struct Intervals {
  size_t m = 0;
  int32_t *counts = nullptr;
  int32_t *scan = nullptr;
};

Intervals make_intervals(Env &env, Instance &I, size_t n, uint64_t seed) {
  Intervals iv;
  iv.m = std::max<size_t>(1, n / 5);
  iv.counts = I.alloc<int32_t>(iv.m * sizeof(int32_t));
  iv.scan = I.alloc<int32_t>(iv.m * sizeof(int32_t));
  {
    DevBuf cuts_buf((iv.m - 1) * sizeof(int32_t));
    int32_t *cuts = static_cast<int32_t *>(cuts_buf.get());
    if (iv.m > 1) {
      k_random_below<<<grid_for(iv.m - 1), 256, 0, env.stream>>>(cuts, iv.m - 1, (uint64_t)n + 1, seed);
      CK_LAUNCH();
      sort_once(env, cuts, iv.m - 1);
    }
    k_counts_from_cuts<<<grid_for(iv.m), 256, 0, env.stream>>>(iv.counts, cuts, iv.m, (int32_t)n);
    CK_LAUNCH();
    CK(cudaStreamSynchronize(env.stream));  // before cuts_buf is freed
  }
  exclusive_sum_once(env, iv.counts, iv.scan, iv.m);
  return iv;
}

// mgpu_scan_counts of int32 counts, requiring the total to be n.
void mgpu_scan_n(mgpu_context *ctx, const int32_t *counts, size_t m, int32_t *scan, size_t n) {
  int64_t total = -1, bad = -1, bad_value = 0;
  MG(mgpu_scan_counts(ctx, counts, MGPU_I32, m, scan, &total, &bad, &bad_value));
  if (total != (int64_t)n)
    throw BenchError("mgpu_scan_counts: total " + std::to_string(total) + ", expected " +
                         std::to_string(n),
                     false);
}

template <class K>
std::unique_ptr<Instance> make_interval_expand_t(Env &env, size_t n) {
  const mgpu_dtype kt = dtype_of<K>();
  auto I = std::make_unique<Instance>();
  I->keys = n;
  I->bytes_in = n * sizeof(K);  // the output
  Intervals iv = make_intervals(env, *I, n, 31);
  const size_t m = iv.m;
  const int32_t *counts = iv.counts;
  K *vals = I->alloc<K>(m * sizeof(K));
  gen_random(env, vals, m, 32);
  cudaStream_t st = env.stream;
  mgpu_context *ctx = env.ctx;

  // mgpu: scan_counts + interval_expand
  {
    int32_t *scan = I->alloc<int32_t>(m * sizeof(int32_t));
    K *mo = I->alloc<K>(n * sizeof(K));
    I->mgpu.name = "mgpu";
    I->mgpu.run = [=]() {
      mgpu_scan_n(ctx, counts, m, scan, n);
      MG(mgpu_interval_expand(ctx, sizeof(K), vals, scan, m, n, mo));
    };
    I->mgpu.outputs = [=]() { return std::vector<Span>{{mo, n, kt, "keys"}}; };
  }

  // exclusive_scan, upper_bound of 0..n-1 (minus 1: the interval), gather
  {
    int32_t *scan = I->alloc<int32_t>(m * sizeof(int32_t));
    int32_t *idx = I->alloc<int32_t>(n * sizeof(int32_t));
    K *to = I->alloc<K>(n * sizeof(K));
    auto cache = std::make_shared<ThrustCache>();
    Runner r;
    r.name = "scan+thrust::upper_bound+gather";
    r.run = [=]() {
      thrust_call([&] {
        ThrustAlloc al{cache.get()};
        auto pol = thrust::cuda::par_nosync(al).on(st);
        thrust::exclusive_scan(pol, counts, counts + m, scan);
        thrust::upper_bound(pol, scan, scan + m, thrust::counting_iterator<int32_t>(0),
                            thrust::counting_iterator<int32_t>((int32_t)n), idx);
        thrust::gather(pol, thrust::make_transform_iterator(idx, MinusOne{}),
                       thrust::make_transform_iterator(idx + n, MinusOne{}), vals, to);
      });
    };
    r.outputs = [=]() { return std::vector<Span>{{to, n, kt, "keys"}}; };
    I->anchors.push_back(std::move(r));
  }

  const int32_t *ref_scan = iv.scan;
  I->selfcheck = first_bad_check<K>(env, "its interval's value",
                                    [=](const K *out, unsigned long long *f) {
                                      k_check_intervals<K><<<grid_for(m), 256, 0, st>>>(vals, nullptr, counts, ref_scan, m, out, f);
                                    });
  CK(cudaStreamSynchronize(env.stream));
  return I;
}

template <class K>
std::unique_ptr<Instance> make_interval_move_t(Env &env, size_t n) {
  const mgpu_dtype kt = dtype_of<K>();
  auto I = std::make_unique<Instance>();
  I->keys = n;
  I->bytes_in = n * sizeof(K);  // the output (and the input)
  Intervals iv = make_intervals(env, *I, n, 41);
  const size_t m = iv.m;
  const int32_t *counts = iv.counts;
  K *input = I->alloc<K>(n * sizeof(K));
  gen_random(env, input, n, 42);

  // gather: the intervals' sources tile the input in a random interval
  // order (so they do not overlap); scatter: the scan (dense output).
  int32_t *gather = I->alloc<int32_t>(m * sizeof(int32_t));
  int32_t *scatter = I->alloc<int32_t>(m * sizeof(int32_t));
  {
    DevBuf perm_b(m * sizeof(int32_t)), pc_b(m * sizeof(int32_t)), ps_b(m * sizeof(int32_t));
    int32_t *perm = static_cast<int32_t *>(perm_b.get());
    int32_t *pc = static_cast<int32_t *>(pc_b.get());
    int32_t *ps = static_cast<int32_t *>(ps_b.get());
    random_permutation(env, perm, m, 43);
    k_permute<<<grid_for(m), 256, 0, env.stream>>>(pc, counts, perm, m);  // counts in source order
    CK_LAUNCH();
    exclusive_sum_once(env, pc, ps, m);                                    // source offsets
    k_unpermute<<<grid_for(m), 256, 0, env.stream>>>(gather, ps, perm, m);
    CK_LAUNCH();
    copy_async(env, scatter, iv.scan, m * sizeof(int32_t));
    CK(cudaStreamSynchronize(env.stream));  // before the temporaries are freed
  }
  cudaStream_t st = env.stream;
  mgpu_context *ctx = env.ctx;

  // mgpu: scan_counts + interval_move
  {
    int32_t *scan = I->alloc<int32_t>(m * sizeof(int32_t));
    K *mo = I->alloc<K>(n * sizeof(K));
    I->mgpu.name = "mgpu";
    I->mgpu.run = [=]() {
      mgpu_scan_n(ctx, counts, m, scan, n);
      MG(mgpu_interval_move(ctx, sizeof(K), input, n, gather, scatter, scan, m, n, mo, n));
    };
    I->mgpu.outputs = [=]() { return std::vector<Span>{{mo, n, kt, "keys"}}; };
  }

  // exclusive_scan, upper_bound (the interval of each output), gather from
  // gather[iv] + (k - scan[iv])
  {
    int32_t *scan = I->alloc<int32_t>(m * sizeof(int32_t));
    int32_t *idx = I->alloc<int32_t>(n * sizeof(int32_t));
    K *to = I->alloc<K>(n * sizeof(K));
    auto cache = std::make_shared<ThrustCache>();
    Runner r;
    r.name = "scan+thrust::upper_bound+gather";
    r.run = [=]() {
      thrust_call([&] {
        ThrustAlloc al{cache.get()};
        auto pol = thrust::cuda::par_nosync(al).on(st);
        thrust::exclusive_scan(pol, counts, counts + m, scan);
        thrust::upper_bound(pol, scan, scan + m, thrust::counting_iterator<int32_t>(0),
                            thrust::counting_iterator<int32_t>((int32_t)n), idx);
        auto src = thrust::make_transform_iterator(thrust::counting_iterator<int32_t>(0),
                                                   MoveSource{idx, gather, scan});
        thrust::gather(pol, src, src + n, input, to);
      });
    };
    r.outputs = [=]() { return std::vector<Span>{{to, n, kt, "keys"}}; };
    I->anchors.push_back(std::move(r));
  }

  const int32_t *ref_scan = iv.scan;
  I->selfcheck = first_bad_check<K>(env, "its interval's source element",
                                    [=](const K *out, unsigned long long *f) {
                                      k_check_intervals<K><<<grid_for(m), 256, 0, st>>>(input, gather, counts, ref_scan, m, out, f);
                                    });
  CK(cudaStreamSynchronize(env.stream));
  return I;
}

// ===========================================================================
// case: setop (keys | pairs; intersection, union, difference, symmetric
// difference) vs thrust::set_* / thrust::set_*_by_key
// ===========================================================================

// Uniform in [0, bound), as K.
template <class K>
__global__ void k_random_below_t(K *out, size_t n, uint64_t bound, uint64_t seed) {
  GRID_STRIDE(i, n) { out[i] = (K)(mix64(seed * 0xD1B54A32D192ED03ull + i) % bound); }
}

const char *setop_name(mgpu_setop_kind op) {
  switch (op) {
    case MGPU_SET_INTERSECTION: return "intersection";
    case MGPU_SET_UNION: return "union";
    case MGPU_SET_DIFFERENCE: return "difference";
    case MGPU_SET_SYMMETRIC_DIFFERENCE: return "symmetric_difference";
  }
  return "?";
}

// The Thrust call for op; returns the output count.  Thrust's set
// operations copy their count to the host, so they wait (as mgpu_setop does).
template <class Policy, class K, class V>
size_t thrust_setop(const Policy &pol, mgpu_setop_kind op, bool pairs, const K *a, size_t na,
                    const K *b, size_t nb, const V *av, const V *bv, K *ok, V *ov) {
  const K *ae = a + na, *be = b + nb;
  K *end = ok;
  if (!pairs) {
    switch (op) {
      case MGPU_SET_INTERSECTION: end = thrust::set_intersection(pol, a, ae, b, be, ok); break;
      case MGPU_SET_UNION: end = thrust::set_union(pol, a, ae, b, be, ok); break;
      case MGPU_SET_DIFFERENCE: end = thrust::set_difference(pol, a, ae, b, be, ok); break;
      case MGPU_SET_SYMMETRIC_DIFFERENCE:
        end = thrust::set_symmetric_difference(pol, a, ae, b, be, ok);
        break;
    }
  } else {
    // (set_intersection_by_key takes only a's values: the result's come from a.)
    switch (op) {
      case MGPU_SET_INTERSECTION:
        end = thrust::set_intersection_by_key(pol, a, ae, b, be, av, ok, ov).first;
        break;
      case MGPU_SET_UNION:
        end = thrust::set_union_by_key(pol, a, ae, b, be, av, bv, ok, ov).first;
        break;
      case MGPU_SET_DIFFERENCE:
        end = thrust::set_difference_by_key(pol, a, ae, b, be, av, bv, ok, ov).first;
        break;
      case MGPU_SET_SYMMETRIC_DIFFERENCE:
        end = thrust::set_symmetric_difference_by_key(pol, a, ae, b, be, av, bv, ok, ov).first;
        break;
    }
  }
  return (size_t)(end - ok);
}

template <class K>
std::unique_ptr<Instance> make_setop_t(Env &env, size_t n, mgpu_setop_kind op, bool pairs) {
  using V = value_for<K>;
  const mgpu_dtype kt = dtype_of<K>();
  const size_t na = n / 2, nb = n - na;
  const size_t cap = mgpu_setop_capacity(op, na, nb);
  auto I = std::make_unique<Instance>();
  I->keys = n;
  I->bytes_in = n * sizeof(K) + (pairs ? n * sizeof(V) : 0);  // the inputs

  // inputs: n/2 keys each, uniform in [0, n / (2 ln 2)), sorted once.  With
  // na/range = ln 2 copies of a value expected per input, a value is present
  // in an input with probability 1 - e^-ln2 = 1/2: about half of a's keys
  // find a partner in b, and repeated keys are common (multiset semantics
  // are exercised).  Values tag the inputs: 0..na-1 then na..n-1.
  const uint64_t range = std::max<uint64_t>(1, (uint64_t)std::llround((double)n / (2.0 * std::log(2.0))));
  K *a = I->alloc<K>(na * sizeof(K));
  K *b = I->alloc<K>(nb * sizeof(K));
  if (na) {
    k_random_below_t<K><<<grid_for(na), 256, 0, env.stream>>>(a, na, range, 51);
    CK_LAUNCH();
  }
  if (nb) {
    k_random_below_t<K><<<grid_for(nb), 256, 0, env.stream>>>(b, nb, range, 52);
    CK_LAUNCH();
  }
  sort_once(env, a, na);
  sort_once(env, b, nb);
  V *av = nullptr, *bv = nullptr;
  if (pairs) {
    av = I->alloc<V>(na * sizeof(V));
    bv = I->alloc<V>(nb * sizeof(V));
    gen_iota(env, av, na, 0);
    gen_iota(env, bv, nb, (long long)na);
  }

  // Outputs are the first `count` elements (count known after the run).
  auto spans = [=](K *k, V *v, std::shared_ptr<size_t> count) {
    return [=]() {
      std::vector<Span> s{{k, *count, kt, "keys"}};
      if (pairs) s.push_back({v, *count, dtype_of<V>(), "values"});
      return s;
    };
  };
  cudaStream_t st = env.stream;
  mgpu_context *ctx = env.ctx;

  // mgpu (duplicates = 1: the inputs repeat keys)
  {
    K *mk = I->alloc<K>(cap * sizeof(K));
    V *mv = pairs ? I->alloc<V>(cap * sizeof(V)) : nullptr;
    auto count = std::make_shared<size_t>(0);
    I->mgpu.name = "mgpu";
    I->mgpu.run = [=]() {
      size_t c = 0;
      MG(mgpu_setop(ctx, op, kt, MGPU_LESS, 1, a, na, b, nb, mk, pairs ? sizeof(V) : 0, av, bv,
                    mv, &c));
      *count = c;
    };
    I->mgpu.outputs = spans(mk, mv, count);
  }

  // thrust::set_<op>[_by_key]
  {
    K *tk = I->alloc<K>(cap * sizeof(K));
    V *tv = pairs ? I->alloc<V>(cap * sizeof(V)) : nullptr;
    auto count = std::make_shared<size_t>(0);
    auto cache = std::make_shared<ThrustCache>();
    Runner r;
    r.name = std::string("thrust::set_") + setop_name(op) + (pairs ? "_by_key" : "");
    r.run = [=]() {
      thrust_call([&] {
        ThrustAlloc al{cache.get()};
        *count = thrust_setop(thrust::cuda::par_nosync(al).on(st), op, pairs, a, na, b, nb, av,
                              bv, tk, tv);
      });
    };
    r.outputs = spans(tk, tv, count);
    I->anchors.push_back(std::move(r));
  }

  // Independent check (partial: the byte comparison with Thrust is the
  // real one): the output is sorted.
  Env *e = &env;
  I->selfcheck = [=](const Runner &r) -> std::string {
    std::vector<Span> o = r.outputs();
    const K *keys = (const K *)o[0].ptr;
    size_t c = o[0].count;
    if (c > cap) return "count " + std::to_string(c) + " is past the capacity " + std::to_string(cap);
    if (c < 2) return "";
    unsigned long long bad = first_index(*e, [&](unsigned long long *f) {
      k_check_sorted<K><<<grid_for(c), 256, 0, e->stream>>>(keys, c, f);
    });
    if (bad == ULLONG_MAX) return "";
    return "keys not sorted at element " + std::to_string(bad) + " (" +
           fmt_elem(*e, keys, kt, bad - 1) + " then " + fmt_elem(*e, keys, kt, bad) + ")";
  };
  CK(cudaStreamSynchronize(env.stream));
  return I;
}

std::unique_ptr<Instance> make_setop(Env &env, mgpu_dtype t, size_t n, mgpu_setop_kind op,
                                     bool pairs) {
  std::unique_ptr<Instance> r;
  with_key_type(t, [&](auto k) { r = make_setop_t<decltype(k)>(env, n, op, pairs); });
  return r;
}

// ===========================================================================
// case: segsort (keys | pairs; mean segment length L) vs
// cub::DeviceSegmentedSort::StableSortKeys / StableSortPairs
// ===========================================================================

// Independent check of a stable segmented sort.  offs[0..nseg] are the
// segment starts then n.  For every i in segment s = [offs[s], offs[s+1]):
// keys nondecreasing within the segment; with tags (vals: the original
// index, may be null) also tag in [offs[s], offs[s+1]), key_i ==
// src[tag_i], and (key, tag) strictly increasing within the segment, which
// makes the output the unique stable result (as k_check_stable_pairs).
template <class K, class V>
__global__ void k_check_segsorted(const K *keys, const V *vals, size_t n, const int32_t *offs,
                                  size_t nseg, const K *src, unsigned long long *first_bad) {
  GRID_STRIDE(i, n) {
    size_t s = dev_upper_bound(offs, nseg + 1, (long long)i) - 1;
    bool head = (size_t)offs[s] == i;
    K k = keys[i];
    bool ok = true;
    if (vals) {
      long long tag = (long long)vals[i];
      ok = tag >= offs[s] && tag < offs[s + 1];
      if (ok) {
        K sk = src[tag];
        ok = !(sk < k) && !(k < sk);
      }
      if (ok && !head) {
        K pk = keys[i - 1];
        long long pt = (long long)vals[i - 1];
        ok = (pk < k) || (!(k < pk) && pt < tag);
      }
    } else if (!head) {
      ok = !(k < keys[i - 1]);
    }
    if (!ok) atomicMin(first_bad, (unsigned long long)i);
  }
}

// Segment starts for n elements, lengths uniform in [1, 2L-1] (mean L; the
// last segment is cut at n), then n: nseg + 1 entries.  Made on the host
// from (n, L) alone, so every dtype and variant of a size sees the same
// segments.
std::vector<int32_t> segment_offsets(size_t n, size_t L) {
  std::vector<int32_t> offs;
  offs.reserve(n / std::max<size_t>(1, L) + 2);
  const uint64_t span = 2 * (uint64_t)L - 1;
  const uint64_t seed = mix64((uint64_t)n * 0x9E3779B97F4A7C15ull ^ (uint64_t)L);
  size_t pos = 0;
  for (uint64_t j = 0; pos < n; ++j) {
    offs.push_back((int32_t)pos);
    pos += 1 + (size_t)(mix64(seed + j) % span);
  }
  if (offs.empty()) offs.push_back(0);  // n == 0: one empty segment
  offs.push_back((int32_t)n);
  return offs;
}

template <class K>
std::unique_ptr<Instance> make_segsort_t(Env &env, size_t n, bool pairs, size_t L) {
  using V = value_for<K>;
  const mgpu_dtype kt = dtype_of<K>();
  const size_t kb = n * sizeof(K), vb = pairs ? n * sizeof(V) : 0;
  auto I = std::make_unique<Instance>();
  I->keys = n;
  I->bytes_in = kb + vb;  // as mergesort (the segment starts are not counted)

  // pristine input: random keys, values = iota (the original index)
  K *pk = I->alloc<K>(kb);
  V *pv = pairs ? I->alloc<V>(vb) : nullptr;
  gen_random(env, pk, n, 61);
  if (pairs) gen_iota(env, pv, n, 0);

  // segments: offs[0..nseg] on the device.  mgpu takes the heads without
  // the leading 0 (offs + 1, nseg - 1 of them); CUB takes begin = offs,
  // end = offs + 1.
  std::vector<int32_t> h_offs = segment_offsets(n, L);
  const size_t nseg = h_offs.size() - 1;
  int32_t *offs = I->alloc<int32_t>(h_offs.size() * sizeof(int32_t));
  CK(cudaMemcpyAsync(offs, h_offs.data(), h_offs.size() * sizeof(int32_t), cudaMemcpyHostToDevice,
                     env.stream));
  CK(cudaStreamSynchronize(env.stream));  // before h_offs goes
  const int32_t *heads = offs + 1;
  const size_t m = nseg - 1;

  auto spans = [=](K *k, V *v) {
    std::vector<Span> s{{k, n, kt, "keys"}};
    if (pairs) s.push_back({v, n, dtype_of<V>(), "values"});
    return s;
  };
  Env *e = &env;
  auto restore = [=](K *k, V *v) {
    return [=]() {
      copy_async(*e, k, pk, kb);
      if (pairs) copy_async(*e, v, pv, vb);
    };
  };

  // mgpu (in place; the input is restored untimed, as for mergesort)
  K *mk = I->alloc<K>(kb);
  V *mv = pairs ? I->alloc<V>(vb) : nullptr;
  mgpu_context *ctx = env.ctx;
  I->mgpu.name = "mgpu";
  I->mgpu.prep = restore(mk, mv);
  I->mgpu.run = [=]() {
    MG(mgpu_segsort(ctx, kt, MGPU_LESS, mk, n, pairs ? sizeof(V) : 0, mv, heads, m, nullptr));
  };
  I->mgpu.outputs = [=]() { return spans(mk, mv); };

  // cub::DeviceSegmentedSort, DoubleBuffer form (as the radix sort reference
  // of mergesort: no final copy, and no second copy of the data in its temp
  // storage).  The selector is reset and the input restored before each rep.
  {
    cudaStream_t st = env.stream;
    K *ck0 = I->alloc<K>(kb), *ck1 = I->alloc<K>(kb);
    V *cv0 = pairs ? I->alloc<V>(vb) : nullptr, *cv1 = pairs ? I->alloc<V>(vb) : nullptr;
    struct State {
      cub::DoubleBuffer<K> k;
      cub::DoubleBuffer<V> v;
    };
    auto s = std::make_shared<State>();
    auto reset = [=]() {
      s->k = cub::DoubleBuffer<K>(ck0, ck1);
      s->v = cub::DoubleBuffer<V>(cv0, cv1);
    };
    reset();
    const int32_t *begin = offs, *end = offs + 1;
    auto call = [=](void *temp, size_t &tb) {
      if (pairs)
        return cub::DeviceSegmentedSort::StableSortPairs(temp, tb, s->k, s->v, (int64_t)n,
                                                         (int64_t)nseg, begin, end, st);
      return cub::DeviceSegmentedSort::StableSortKeys(temp, tb, s->k, (int64_t)n, (int64_t)nseg,
                                                      begin, end, st);
    };
    size_t tb = 0;
    CK(call(nullptr, tb));
    void *temp = I->alloc(tb);
    Runner r;
    r.name = "cub::DeviceSegmentedSort";
    auto rs = restore(ck0, cv0);
    r.prep = [=]() {
      reset();
      rs();
    };
    r.run = [=]() {
      size_t t = tb;
      CK(call(temp, t));
    };
    r.outputs = [=]() { return spans(s->k.Current(), pairs ? s->v.Current() : nullptr); };
    I->anchors.push_back(std::move(r));
  }

  I->selfcheck = [=](const Runner &r) -> std::string {
    std::vector<Span> o = r.outputs();
    const K *keys = (const K *)o[0].ptr;
    const V *vals = pairs ? (const V *)o[1].ptr : nullptr;
    unsigned long long bad = first_index(*e, [&](unsigned long long *f) {
      k_check_segsorted<K, V><<<grid_for(n), 256, 0, e->stream>>>(keys, vals, n, offs, nseg, pk, f);
    });
    if (bad == ULLONG_MAX) return "";
    std::string msg = "element " + std::to_string(bad) + " (key " + fmt_elem(*e, keys, kt, bad);
    if (pairs) msg += ", value " + fmt_elem(*e, vals, dtype_of<V>(), bad);
    return msg + (pairs ? ") breaks the stable order of its segment or is not from it"
                        : ") is out of order in its segment");
  };
  CK(cudaStreamSynchronize(env.stream));
  return I;
}

std::unique_ptr<Instance> make_segsort(Env &env, mgpu_dtype t, size_t n, bool pairs, size_t L) {
  std::unique_ptr<Instance> r;
  with_key_type(t, [&](auto k) { r = make_segsort_t<decltype(k)>(env, n, pairs, L); });
  return r;
}

// ===========================================================================
// case: locality_sort (keys | pairs; nearly sorted or random keys) vs
// cub::DeviceMergeSort, and on random keys vs mgpu_mergesort
// ===========================================================================

// Nearly sorted: key[i] = i + uniform in [0, 25] (every key within 25 of
// its sorted place).
template <class K>
__global__ void k_nearly_sorted(K *out, size_t n, uint64_t seed) {
  GRID_STRIDE(i, n) {
    out[i] = (K)((long long)i + (long long)(mix64(seed * 0xD1B54A32D192ED03ull + i) % 26));
  }
}

template <class K>
std::unique_ptr<Instance> make_locality_sort_t(Env &env, size_t n, bool pairs, bool nearly) {
  using V = value_for<K>;
  const mgpu_dtype kt = dtype_of<K>();
  const size_t kb = n * sizeof(K), vb = pairs ? n * sizeof(V) : 0;
  auto I = std::make_unique<Instance>();
  I->keys = n;
  I->bytes_in = kb + vb;

  // pristine input, values = iota (the original index)
  K *pk = I->alloc<K>(kb);
  V *pv = pairs ? I->alloc<V>(vb) : nullptr;
  if (nearly) {
    if (n) {
      k_nearly_sorted<K><<<grid_for(n), 256, 0, env.stream>>>(pk, n, 71);
      CK_LAUNCH();
    }
  } else {
    gen_random(env, pk, n, 72);
  }
  if (pairs) gen_iota(env, pv, n, 0);

  auto spans = [=](K *k, V *v) {
    std::vector<Span> s{{k, n, kt, "keys"}};
    if (pairs) s.push_back({v, n, dtype_of<V>(), "values"});
    return s;
  };
  Env *e = &env;
  auto restore = [=](K *k, V *v) {
    return [=]() {
      copy_async(*e, k, pk, kb);
      if (pairs) copy_async(*e, v, pv, vb);
    };
  };
  mgpu_context *ctx = env.ctx;
  cudaStream_t st = env.stream;

  // mgpu (in place; the input is restored untimed, as for mergesort)
  K *mk = I->alloc<K>(kb);
  V *mv = pairs ? I->alloc<V>(vb) : nullptr;
  I->mgpu.name = "mgpu";
  I->mgpu.prep = restore(mk, mv);
  I->mgpu.run = [=]() {
    MG(mgpu_locality_sort(ctx, kt, MGPU_LESS, mk, n, pairs ? sizeof(V) : 0, mv, nullptr));
  };
  I->mgpu.outputs = [=]() { return spans(mk, mv); };

  // cub::DeviceMergeSort (stable, in place)
  {
    K *ck = I->alloc<K>(kb);
    V *cv = pairs ? I->alloc<V>(vb) : nullptr;
    size_t tb = 0;
    CK((cub_merge_sort_any<K, V>(nullptr, tb, ck, cv, n, pairs, st)));
    void *temp = I->alloc(tb);
    Runner r;
    r.name = "cub::DeviceMergeSort";
    r.prep = restore(ck, cv);
    r.run = [=]() {
      size_t t = tb;
      CK((cub_merge_sort_any<K, V>(temp, t, ck, cv, n, pairs, st)));
    };
    r.outputs = [=]() { return spans(ck, cv); };
    I->anchors.push_back(std::move(r));
  }

  // On random keys locality_sort has nothing to skip; its target there is
  // to stay within 10% of mgpu_mergesort, so that is a row too (its
  // "speedup" is mergesort_ms / locality_sort_ms).
  if (!nearly) {
    K *gk = I->alloc<K>(kb);
    V *gv = pairs ? I->alloc<V>(vb) : nullptr;
    Runner r;
    r.name = "mgpu_mergesort";
    r.prep = restore(gk, gv);
    r.run = [=]() { MG(mgpu_mergesort(ctx, kt, MGPU_LESS, gk, n, pairs ? sizeof(V) : 0, gv)); };
    r.outputs = [=]() { return spans(gk, gv); };
    I->anchors.push_back(std::move(r));
  }

  if (pairs)
    I->selfcheck = stable_pairs_check<K, V>(env, pk, n, nullptr, n);
  else
    I->selfcheck = sorted_keys_check<K>(env, n);
  CK(cudaStreamSynchronize(env.stream));
  return I;
}

std::unique_ptr<Instance> make_locality_sort(Env &env, mgpu_dtype t, size_t n, bool pairs,
                                             bool nearly) {
  std::unique_ptr<Instance> r;
  with_key_type(t, [&](auto k) { r = make_locality_sort_t<decltype(k)>(env, n, pairs, nearly); });
  return r;
}

// dtype dispatch for the single-argument makers above.
// ===========================================================================
// scan, reduce, sorted_search, unique, compact
// ===========================================================================

// A host value mgpu returned, put on the device so that it compares like the
// anchors' device outputs.
template <class K>
std::vector<Span> host_value_span(Env *e, K *dev, const K &host, mgpu_dtype t) {
  CK(cudaMemcpyAsync(dev, &host, sizeof(K), cudaMemcpyHostToDevice, e->stream));
  CK(cudaStreamSynchronize(e->stream));
  return std::vector<Span>{{dev, 1, t, "total"}};
}

// small keys, so that integer sums stay far from wrapping in either run
template <class K>
__global__ void k_small(K *d, size_t n) {
  GRID_STRIDE(i, n) { d[i] = (K)(d[i] & (K)255); }
}

template <class K>
std::unique_ptr<Instance> make_scan_t(Env &env, size_t n) {
  const mgpu_dtype kt = dtype_of<K>();
  auto I = std::make_unique<Instance>();
  I->keys = n;
  I->bytes_in = n * sizeof(K);
  K *in = I->alloc<K>(n * sizeof(K));
  gen_random(env, in, n, 31);
  k_small<K><<<grid_for(n), 256, 0, env.stream>>>(in, n);
  CK_LAUNCH();
  cudaStream_t st = env.stream;
  mgpu_context *ctx = env.ctx;
  K *mo = I->alloc<K>(n * sizeof(K));
  I->mgpu.name = "mgpu";
  I->mgpu.run = [=]() {
    mgpu_scalar total;
    MG(mgpu_scan(ctx, kt, in, n, mo, MGPU_REDUCE_ADD, 0, &total));
  };
  I->mgpu.outputs = [=]() { return std::vector<Span>{{mo, n, kt, "keys"}}; };
  {
    K *co = I->alloc<K>(n * sizeof(K));
    size_t tb = 0;
    CK(cub::DeviceScan::ExclusiveSum(nullptr, tb, in, co, (int64_t)n, st));
    void *temp = I->alloc(tb);
    Runner r;
    r.name = "cub::DeviceScan::ExclusiveSum";
    r.run = [=]() {
      size_t t = tb;
      CK(cub::DeviceScan::ExclusiveSum(temp, t, in, co, (int64_t)n, st));
    };
    r.outputs = [=]() { return std::vector<Span>{{co, n, kt, "keys"}}; };
    I->anchors.push_back(std::move(r));
  }
  return I;
}

template <class K>
std::unique_ptr<Instance> make_reduce_t(Env &env, size_t n) {
  const mgpu_dtype kt = dtype_of<K>();
  auto I = std::make_unique<Instance>();
  I->keys = n;
  I->bytes_in = n * sizeof(K);
  K *in = I->alloc<K>(n * sizeof(K));
  gen_random(env, in, n, 32);
  k_small<K><<<grid_for(n), 256, 0, env.stream>>>(in, n);
  CK_LAUNCH();
  cudaStream_t st = env.stream;
  mgpu_context *ctx = env.ctx;
  Env *e = &env;
  K *mo = I->alloc<K>(sizeof(K));
  auto got = std::make_shared<K>();
  I->mgpu.name = "mgpu";
  I->mgpu.run = [=]() {
    mgpu_scalar total;
    MG(mgpu_reduce(ctx, kt, in, n, MGPU_REDUCE_ADD, &total));
    *got = (K)total.i;
  };
  I->mgpu.outputs = [=]() { return host_value_span(e, mo, *got, kt); };
  {
    K *co = I->alloc<K>(sizeof(K));
    size_t tb = 0;
    CK(cub::DeviceReduce::Sum(nullptr, tb, in, co, (int64_t)n, st));
    void *temp = I->alloc(tb);
    Runner r;
    r.name = "cub::DeviceReduce::Sum";
    // as mgpu's call does: the sum reaches the host
    auto host = std::make_shared<K>();
    r.run = [=]() {
      size_t t = tb;
      CK(cub::DeviceReduce::Sum(temp, t, in, co, (int64_t)n, st));
      CK(cudaMemcpyAsync(host.get(), co, sizeof(K), cudaMemcpyDeviceToHost, st));
      CK(cudaStreamSynchronize(st));
    };
    r.outputs = [=]() { return std::vector<Span>{{co, 1, kt, "total"}}; };
    I->anchors.push_back(std::move(r));
  }
  return I;
}

template <class K>
std::unique_ptr<Instance> make_sorted_search_t(Env &env, size_t n) {
  const mgpu_dtype kt = dtype_of<K>();
  auto I = std::make_unique<Instance>();
  I->keys = n;
  I->bytes_in = n * sizeof(K);
  const size_t m = n / 2;  // needles and haystack, n keys in all
  K *hay = I->alloc<K>(m * sizeof(K));
  K *needles = I->alloc<K>(m * sizeof(K));
  gen_random(env, hay, m, 33);
  gen_random(env, needles, m, 34);
  sort_once(env, hay, m);
  sort_once(env, needles, m);
  cudaStream_t st = env.stream;
  mgpu_context *ctx = env.ctx;
  int32_t *mo = I->alloc<int32_t>(m * sizeof(int32_t));
  I->mgpu.name = "mgpu";
  I->mgpu.run = [=]() {
    MG(mgpu_sorted_search(ctx, kt, MGPU_LESS, needles, m, hay, m, 0, 0, mo));
  };
  I->mgpu.outputs = [=]() { return std::vector<Span>{{mo, m, MGPU_I32, "positions"}}; };
  {
    int32_t *to = I->alloc<int32_t>(m * sizeof(int32_t));
    auto cache = std::make_shared<ThrustCache>();
    Runner r;
    r.name = "thrust::lower_bound";
    r.run = [=]() {
      thrust_call([&] {
        ThrustAlloc al{cache.get()};
        thrust::lower_bound(thrust::cuda::par_nosync(al).on(st), hay, hay + m, needles,
                            needles + m, to);
      });
    };
    r.outputs = [=]() { return std::vector<Span>{{to, m, MGPU_I32, "positions"}}; };
    I->anchors.push_back(std::move(r));
  }
  return I;
}

template <class K>
__global__ void k_runs(K *d, size_t n) {  // runs of ~8 equal keys
  GRID_STRIDE(i, n) { d[i] = (K)(d[i] >> 3); }
}

template <class K>
std::unique_ptr<Instance> make_unique_t(Env &env, size_t n) {
  const mgpu_dtype kt = dtype_of<K>();
  auto I = std::make_unique<Instance>();
  I->keys = n;
  I->bytes_in = n * sizeof(K);
  K *in = I->alloc<K>(n * sizeof(K));
  gen_iota(env, in, n, 0);
  k_runs<K><<<grid_for(n), 256, 0, env.stream>>>(in, n);
  CK_LAUNCH();
  cudaStream_t st = env.stream;
  mgpu_context *ctx = env.ctx;
  Env *e = &env;
  K *mo = I->alloc<K>(n * sizeof(K));
  auto count = std::make_shared<size_t>(0);
  I->mgpu.name = "mgpu";
  I->mgpu.run = [=]() {
    MG(mgpu_unique(ctx, kt, in, n, 0, nullptr, mo, nullptr, nullptr, count.get()));
  };
  I->mgpu.outputs = [=]() { return std::vector<Span>{{mo, *count, kt, "keys"}}; };
  {
    K *co = I->alloc<K>(n * sizeof(K));
    int64_t *nsel = I->alloc<int64_t>(sizeof(int64_t));
    size_t tb = 0;
    CK(cub::DeviceSelect::Unique(nullptr, tb, in, co, nsel, (int64_t)n, st));
    void *temp = I->alloc(tb);
    auto host = std::make_shared<int64_t>(0);
    Runner r;
    r.name = "cub::DeviceSelect::Unique";
    r.run = [=]() {
      size_t t = tb;
      CK(cub::DeviceSelect::Unique(temp, t, in, co, nsel, (int64_t)n, st));
      CK(cudaMemcpyAsync(host.get(), nsel, sizeof(int64_t), cudaMemcpyDeviceToHost, st));
      CK(cudaStreamSynchronize(st));
    };
    r.outputs = [=]() {
      (void)e;
      return std::vector<Span>{{co, (size_t)*host, kt, "keys"}};
    };
    I->anchors.push_back(std::move(r));
  }
  return I;
}

// unique with counts: the runs' first keys and their lengths, against
// cub::DeviceRunLengthEncode::Encode, which writes both
template <class K>
std::unique_ptr<Instance> make_unique_counts_t(Env &env, size_t n) {
  const mgpu_dtype kt = dtype_of<K>();
  auto I = std::make_unique<Instance>();
  I->keys = n;
  I->bytes_in = n * sizeof(K);
  K *in = I->alloc<K>(n * sizeof(K));
  gen_iota(env, in, n, 0);
  k_runs<K><<<grid_for(n), 256, 0, env.stream>>>(in, n);
  CK_LAUNCH();
  cudaStream_t st = env.stream;
  mgpu_context *ctx = env.ctx;
  K *mo = I->alloc<K>(n * sizeof(K));
  int32_t *mc = I->alloc<int32_t>(n * sizeof(int32_t));
  auto count = std::make_shared<size_t>(0);
  I->mgpu.name = "mgpu";
  I->mgpu.run = [=]() {
    MG(mgpu_unique(ctx, kt, in, n, 0, nullptr, mo, nullptr, mc, count.get()));
  };
  I->mgpu.outputs = [=]() {
    return std::vector<Span>{{mo, *count, kt, "keys"}, {mc, *count, MGPU_I32, "counts"}};
  };
  {
    K *co = I->alloc<K>(n * sizeof(K));
    int32_t *cc = I->alloc<int32_t>(n * sizeof(int32_t));
    int64_t *nruns = I->alloc<int64_t>(sizeof(int64_t));
    size_t tb = 0;
    CK(cub::DeviceRunLengthEncode::Encode(nullptr, tb, in, co, cc, nruns, (int64_t)n, st));
    void *temp = I->alloc(tb);
    auto host = std::make_shared<int64_t>(0);
    Runner r;
    r.name = "cub::DeviceRunLengthEncode::Encode";
    // as mgpu's call does: the number of runs reaches the host
    r.run = [=]() {
      size_t t = tb;
      CK(cub::DeviceRunLengthEncode::Encode(temp, t, in, co, cc, nruns, (int64_t)n, st));
      CK(cudaMemcpyAsync(host.get(), nruns, sizeof(int64_t), cudaMemcpyDeviceToHost, st));
      CK(cudaStreamSynchronize(st));
    };
    r.outputs = [=]() {
      return std::vector<Span>{{co, (size_t)*host, kt, "keys"},
                               {cc, (size_t)*host, MGPU_I32, "counts"}};
    };
    I->anchors.push_back(std::move(r));
  }
  return I;
}

template <class K>
__global__ void k_two_thirds(int32_t *flags, size_t n, uint64_t seed) {
  GRID_STRIDE(i, n) { flags[i] = (mix64(seed + i) % 3) != 0; }
}

template <class K>
std::unique_ptr<Instance> make_compact_t(Env &env, size_t n) {
  const mgpu_dtype kt = dtype_of<K>();
  auto I = std::make_unique<Instance>();
  I->keys = n;
  I->bytes_in = n * sizeof(K);
  K *in = I->alloc<K>(n * sizeof(K));
  gen_random(env, in, n, 35);
  int32_t *flags = I->alloc<int32_t>(n * sizeof(int32_t));
  k_two_thirds<K><<<grid_for(n), 256, 0, env.stream>>>(flags, n, 36);
  CK_LAUNCH();
  cudaStream_t st = env.stream;
  mgpu_context *ctx = env.ctx;
  K *mo = I->alloc<K>(n * sizeof(K));
  auto count = std::make_shared<size_t>(0);
  I->mgpu.name = "mgpu";
  I->mgpu.run = [=]() {
    MG(mgpu_compact(ctx, sizeof(K), in, n, MGPU_I32, flags, 0, nullptr, mo, nullptr,
                    count.get()));
  };
  I->mgpu.outputs = [=]() { return std::vector<Span>{{mo, *count, kt, "keys"}}; };
  {
    K *co = I->alloc<K>(n * sizeof(K));
    int64_t *nsel = I->alloc<int64_t>(sizeof(int64_t));
    size_t tb = 0;
    CK(cub::DeviceSelect::Flagged(nullptr, tb, in, flags, co, nsel, (int64_t)n, st));
    void *temp = I->alloc(tb);
    auto host = std::make_shared<int64_t>(0);
    Runner r;
    r.name = "cub::DeviceSelect::Flagged";
    r.run = [=]() {
      size_t t = tb;
      CK(cub::DeviceSelect::Flagged(temp, t, in, flags, co, nsel, (int64_t)n, st));
      CK(cudaMemcpyAsync(host.get(), nsel, sizeof(int64_t), cudaMemcpyDeviceToHost, st));
      CK(cudaStreamSynchronize(st));
    };
    r.outputs = [=]() { return std::vector<Span>{{co, (size_t)*host, kt, "keys"}}; };
    I->anchors.push_back(std::move(r));
  }
  return I;
}

// ===========================================================================
// cases: reduce_by_key vs cub::DeviceReduce::ReduceByKey, segreduce vs
// cub::DeviceSegmentedReduce::Sum, join vs a Thrust composition
// ===========================================================================

// Runs of random length 1..15 (mean 8): each block of 16 keys splits in two
// runs at a random cut, and every run takes a hashed key of its own.
template <class K>
__global__ void k_run_keys(K *keys, size_t n, uint64_t seed) {
  GRID_STRIDE(i, n) {
    const uint64_t block = i / 16;
    const uint64_t cut = 1 + mix64(seed ^ block) % 15;
    keys[i] = (K)mix64(seed + 2 * block + ((i % 16) >= cut ? 1 : 0));
  }
}

template <class K>
std::unique_ptr<Instance> make_reduce_by_key_t(Env &env, size_t n) {
  const mgpu_dtype kt = dtype_of<K>();
  auto I = std::make_unique<Instance>();
  I->keys = n;
  I->bytes_in = 2 * n * sizeof(K);
  K *keys = I->alloc<K>(n * sizeof(K));
  K *vals = I->alloc<K>(n * sizeof(K));
  if (n) {
    k_run_keys<K><<<grid_for(n), 256, 0, env.stream>>>(keys, n, 41);
    CK_LAUNCH();
  }
  gen_iota(env, vals, n, 0);  // sums of a run stay far from overflow
  cudaStream_t st = env.stream;
  mgpu_context *ctx = env.ctx;
  K *mk = I->alloc<K>(n * sizeof(K));
  K *mv = I->alloc<K>(n * sizeof(K));
  auto count = std::make_shared<size_t>(0);
  I->mgpu.name = "mgpu";
  I->mgpu.run = [=]() {
    MG(mgpu_reduce_by_key(ctx, kt, keys, n, kt, vals, MGPU_REDUCE_ADD, mk, mv, count.get()));
  };
  I->mgpu.outputs = [=]() {
    return std::vector<Span>{{mk, *count, kt, "keys"}, {mv, *count, kt, "values"}};
  };
  {
    K *ck = I->alloc<K>(n * sizeof(K));
    K *cv = I->alloc<K>(n * sizeof(K));
    int64_t *runs = I->alloc<int64_t>(sizeof(int64_t));
    size_t tb = 0;
    CK(cub::DeviceReduce::ReduceByKey(nullptr, tb, keys, ck, vals, cv, runs,
                                      cuda::std::plus<K>(), (int64_t)n, st));
    void *temp = I->alloc(tb);
    auto host = std::make_shared<int64_t>(0);
    Runner r;
    r.name = "cub::DeviceReduce::ReduceByKey";
    r.run = [=]() {
      size_t t = tb;
      CK(cub::DeviceReduce::ReduceByKey(temp, t, keys, ck, vals, cv, runs,
                                        cuda::std::plus<K>(), (int64_t)n, st));
      CK(cudaMemcpyAsync(host.get(), runs, sizeof(int64_t), cudaMemcpyDeviceToHost, st));
      CK(cudaStreamSynchronize(st));
    };
    r.outputs = [=]() {
      return std::vector<Span>{{ck, (size_t)*host, kt, "keys"}, {cv, (size_t)*host, kt, "values"}};
    };
    I->anchors.push_back(std::move(r));
  }
  CK(cudaStreamSynchronize(env.stream));
  return I;
}

// Segment starts for n values, lengths uniform in [1, 2L-1] (mean about
// L) except every 16th segment, which is empty; then n (m + 1 entries).
std::vector<int32_t> segreduce_offsets(size_t n, size_t L) {
  std::vector<int32_t> offs;
  offs.reserve(n / std::max<size_t>(1, L) + n / std::max<size_t>(16, 16 * L) + 2);
  const uint64_t span = 2 * (uint64_t)L - 1;
  const uint64_t seed = mix64((uint64_t)n * 0x9E3779B97F4A7C15ull ^ (uint64_t)L ^ 58);
  size_t pos = 0;
  for (uint64_t j = 0; pos < n; ++j) {
    offs.push_back((int32_t)pos);
    if (j % 16 != 15) pos += 1 + (size_t)(mix64(seed + j) % span);
  }
  if (offs.empty()) offs.push_back(0);
  offs.push_back((int32_t)n);
  return offs;
}

template <class K>
std::unique_ptr<Instance> make_segreduce_t(Env &env, size_t n, size_t L) {
  const mgpu_dtype kt = dtype_of<K>();
  auto I = std::make_unique<Instance>();
  I->keys = n;
  I->bytes_in = n * sizeof(K);
  K *vals = I->alloc<K>(n * sizeof(K));
  gen_random(env, vals, n, 42);  // integer sums wrap alike in both
  const std::vector<int32_t> host_offs = segreduce_offsets(n, L);
  const size_t m = host_offs.size() - 1;
  int32_t *offs = I->alloc<int32_t>(host_offs.size() * sizeof(int32_t));
  CK(cudaMemcpyAsync(offs, host_offs.data(), host_offs.size() * sizeof(int32_t),
                     cudaMemcpyHostToDevice, env.stream));
  cudaStream_t st = env.stream;
  mgpu_context *ctx = env.ctx;
  K *mo = I->alloc<K>(m * sizeof(K));
  I->mgpu.name = "mgpu";
  I->mgpu.run = [=]() {
    MG(mgpu_segreduce(ctx, kt, vals, n, offs, m, MGPU_REDUCE_ADD, nullptr, mo));
  };
  I->mgpu.outputs = [=]() { return std::vector<Span>{{mo, m, kt, "sums"}}; };
  {
    K *co = I->alloc<K>(m * sizeof(K));
    size_t tb = 0;
    CK(cub::DeviceSegmentedReduce::Sum(nullptr, tb, vals, co, (int64_t)m, offs, offs + 1, st));
    void *temp = I->alloc(tb);
    Runner r;
    r.name = "cub::DeviceSegmentedReduce::Sum";
    r.run = [=]() {
      size_t t = tb;
      CK(cub::DeviceSegmentedReduce::Sum(temp, t, vals, co, (int64_t)m, offs, offs + 1, st));
    };
    r.outputs = [=]() { return std::vector<Span>{{co, m, kt, "sums"}}; };
    I->anchors.push_back(std::move(r));
  }
  CK(cudaStreamSynchronize(env.stream));
  return I;
}

// Keys uniform in [lo, lo + span): sorted afterwards, with duplicates.
template <class K>
__global__ void k_random_range(K *out, size_t n, uint64_t seed, long long lo, uint64_t span) {
  GRID_STRIDE(i, n) { out[i] = (K)(lo + (long long)(mix64(seed * 31 + i) % span)); }
}

// The Thrust composition's join, slot by slot as mgpu defines the rows:
// slot s (0..na) holds the b rows between a[s-1] and a[s] (right/outer),
// then a[s]'s matches b[lo[s], hi[s]) or, for left/outer, (s, -1).
struct JoinSlotCount {
  const int32_t *lo, *hi;
  long long na, nb;
  bool left, right;
  __host__ __device__ long long lo_of(long long s) const { return s < na ? lo[s] : nb; }
  __host__ __device__ long long hi_of(long long s) const { return s < na ? hi[s] : nb; }
  __host__ __device__ long long gap(long long s) const {
    const long long g = lo_of(s) - (s > 0 ? hi_of(s - 1) : 0);
    return right && g > 0 ? g : 0;
  }
  __host__ __device__ long long operator()(long long s) const {
    const long long k = s < na ? hi_of(s) - lo_of(s) : 0;
    return gap(s) + (k > 0 ? k : (left && s < na ? 1 : 0));
  }
};

struct JoinWriteRow {
  JoinSlotCount js;
  const long long *scan;
  const int32_t *slot;
  int32_t *ia, *ib;
  __host__ __device__ void operator()(long long r) const {
    const long long s = slot[r] - 1;
    long long rank = r - scan[s];
    const long long gap = js.gap(s);
    if (rank < gap) {
      ia[r] = -1;
      ib[r] = (int32_t)((s > 0 ? js.hi_of(s - 1) : 0) + rank);
      return;
    }
    ia[r] = (int32_t)s;
    ib[r] = js.hi_of(s) > js.lo_of(s) ? (int32_t)(js.lo_of(s) + rank - gap) : -1;
  }
};

// mgpu_join_new's result, freed with the next run or the instance.
struct JoinResult {
  mgpu_context *ctx = nullptr;
  int32_t *ia = nullptr, *ib = nullptr;
  size_t rows = 0;
  void drop() {
    mgpu_free(ctx, ia, rows * sizeof(int32_t));
    mgpu_free(ctx, ib, rows * sizeof(int32_t));
    ia = ib = nullptr;
    rows = 0;
  }
  ~JoinResult() { drop(); }
};

template <class K>
std::unique_ptr<Instance> make_join_t(Env &env, size_t n, mgpu_join_kind kind) {
  auto I = std::make_unique<Instance>();
  I->keys = n;
  I->bytes_in = n * sizeof(K);
  // a and b of n/2 keys each, ~2 copies of a key a side, half of each
  // side's range shared with the other
  const size_t na = n / 2, nb = n - na;
  const uint64_t span = std::max<size_t>(1, na / 2);
  K *a = I->alloc<K>(na * sizeof(K));
  K *b = I->alloc<K>(nb * sizeof(K));
  if (na) k_random_range<K><<<grid_for(na), 256, 0, env.stream>>>(a, na, 43, 0, span);
  if (nb) k_random_range<K><<<grid_for(nb), 256, 0, env.stream>>>(b, nb, 44, (long long)span / 2, span);
  CK_LAUNCH();
  sort_once(env, a, na);
  sort_once(env, b, nb);
  const mgpu_dtype kt = dtype_of<K>();
  cudaStream_t st = env.stream;
  mgpu_context *ctx = env.ctx;
  uint64_t rows = 0;
  MG(mgpu_join_count(ctx, kt, MGPU_LESS, kind, a, na, b, nb, &rows));
  const size_t total = (size_t)rows;
  // as mgpu.join does it: one call that allocates its result, which a run
  // frees (stream-ordered) when the next replaces it, as a Lua user's goes
  auto res = std::make_shared<JoinResult>();
  res->ctx = ctx;
  I->mgpu.name = "mgpu";
  I->mgpu.run = [=]() {
    res->drop();
    uint64_t c = 0;
    MG(mgpu_join_new(ctx, kt, MGPU_LESS, kind, a, na, b, nb, 0, &res->ia, &res->ib, &c));
    res->rows = (size_t)c;
  };
  I->mgpu.outputs = [=]() {
    return std::vector<Span>{{res->ia, res->rows, MGPU_I32, "ia"},
                             {res->ib, res->rows, MGPU_I32, "ib"}};
  };
  {
    int32_t *lo = I->alloc<int32_t>(std::max<size_t>(na, 1) * sizeof(int32_t));
    int32_t *hi = I->alloc<int32_t>(std::max<size_t>(na, 1) * sizeof(int32_t));
    long long *scan = I->alloc<long long>((na + 1) * sizeof(long long));
    int32_t *slot = I->alloc<int32_t>(total * sizeof(int32_t));
    int32_t *tia = I->alloc<int32_t>(total * sizeof(int32_t));
    int32_t *tib = I->alloc<int32_t>(total * sizeof(int32_t));
    const bool left = kind == MGPU_JOIN_LEFT || kind == MGPU_JOIN_OUTER;
    const bool right = kind == MGPU_JOIN_RIGHT || kind == MGPU_JOIN_OUTER;
    auto cache = std::make_shared<ThrustCache>();
    Runner r;
    r.name = "thrust::lower/upper_bound+scan+upper_bound expand";
    r.run = [=]() {
      thrust_call([&] {
        ThrustAlloc al{cache.get()};
        auto pol = thrust::cuda::par_nosync(al).on(st);
        thrust::lower_bound(pol, b, b + nb, a, a + na, lo);
        thrust::upper_bound(pol, b, b + nb, a, a + na, hi);
        JoinSlotCount js{lo, hi, (long long)na, (long long)nb, left, right};
        auto counts = thrust::make_transform_iterator(thrust::counting_iterator<long long>(0), js);
        thrust::exclusive_scan(pol, counts, counts + (na + 1), scan);
        // each row's slot: the last one whose rows start at or before it
        thrust::upper_bound(pol, scan, scan + (na + 1), thrust::counting_iterator<long long>(0),
                            thrust::counting_iterator<long long>((long long)total), slot);
        thrust::for_each(pol, thrust::counting_iterator<long long>(0),
                         thrust::counting_iterator<long long>((long long)total),
                         JoinWriteRow{js, scan, slot, tia, tib});
      });
    };
    r.outputs = [=]() {
      return std::vector<Span>{{tia, total, MGPU_I32, "ia"}, {tib, total, MGPU_I32, "ib"}};
    };
    I->anchors.push_back(std::move(r));
  }
  CK(cudaStreamSynchronize(env.stream));
  return I;
}

#define MGPU_BENCH_DISPATCH(fn)                                                 \
  [](Env &e, mgpu_dtype t, size_t n) {                                          \
    std::unique_ptr<Instance> r;                                                \
    with_key_type(t, [&](auto k) { r = fn<decltype(k)>(e, n); });               \
    return r;                                                                   \
  }

// ===========================================================================
// the registry
// ===========================================================================

void register_cases() {
  const std::vector<mgpu_dtype> ints{MGPU_I32, MGPU_I64};
  add_case("merge", "keys", ints,
           [](Env &e, mgpu_dtype t, size_t n) { return make_merge(e, t, n, false); });
  add_case("merge", "pairs", ints,
           [](Env &e, mgpu_dtype t, size_t n) { return make_merge(e, t, n, true); });
  add_case("mergesort", "keys", ints,
           [](Env &e, mgpu_dtype t, size_t n) { return make_mergesort(e, t, n, false); }, true);
  add_case("mergesort", "pairs", ints,
           [](Env &e, mgpu_dtype t, size_t n) { return make_mergesort(e, t, n, true); });
  const std::vector<mgpu_dtype> sort_keys{MGPU_I32, MGPU_I64, MGPU_F32};
  add_case("sort", "keys", sort_keys,
           [](Env &e, mgpu_dtype t, size_t n) { return make_sort(e, t, n, false); }, true);
  add_case("sort", "pairs", sort_keys,
           [](Env &e, mgpu_dtype t, size_t n) { return make_sort(e, t, n, true); });
  add_case("sort", "pairs_mixed", sort_keys,
           [](Env &e, mgpu_dtype t, size_t n) { return make_sort(e, t, n, true, true); });
  add_case("bulk_remove", "keys", ints, MGPU_BENCH_DISPATCH(make_bulk_remove_t));
  add_case("bulk_insert", "keys", ints, MGPU_BENCH_DISPATCH(make_bulk_insert_t));
  add_case("interval_expand", "keys", ints, MGPU_BENCH_DISPATCH(make_interval_expand_t));
  add_case("interval_move", "keys", ints, MGPU_BENCH_DISPATCH(make_interval_move_t));
  // set operations: every op, keys and pairs
  for (bool pairs : {false, true})
    for (mgpu_setop_kind op : {MGPU_SET_INTERSECTION, MGPU_SET_UNION, MGPU_SET_DIFFERENCE,
                               MGPU_SET_SYMMETRIC_DIFFERENCE}) {
      std::string v = std::string(pairs ? "pairs_" : "keys_") + setop_name(op);
      add_case("setop", v.c_str(), ints, [op, pairs](Env &e, mgpu_dtype t, size_t n) {
        return make_setop(e, t, n, op, pairs);
      });
    }
  // segmented sort: short (one tile holds many segments), medium, and long
  // (a segment spans many tiles) mean segment lengths
  for (bool pairs : {false, true})
    for (size_t L : {32, 300, 10000}) {
      std::string v = std::string(pairs ? "pairs_L" : "keys_L") + std::to_string(L);
      add_case("segsort", v.c_str(), ints, [L, pairs](Env &e, mgpu_dtype t, size_t n) {
        return make_segsort(e, t, n, pairs, L);
      });
    }
  add_case("locality_sort", "keys_nearly", ints,
           [](Env &e, mgpu_dtype t, size_t n) { return make_locality_sort(e, t, n, false, true); });
  add_case("locality_sort", "pairs_nearly", ints,
           [](Env &e, mgpu_dtype t, size_t n) { return make_locality_sort(e, t, n, true, true); });
  add_case("locality_sort", "keys_random", ints,
           [](Env &e, mgpu_dtype t, size_t n) { return make_locality_sort(e, t, n, false, false); });
  add_case("scan", "add", ints, MGPU_BENCH_DISPATCH(make_scan_t));
  add_case("reduce", "add", ints, MGPU_BENCH_DISPATCH(make_reduce_t));
  add_case("sorted_search", "left", ints, MGPU_BENCH_DISPATCH(make_sorted_search_t));
  add_case("unique", "keys", ints, MGPU_BENCH_DISPATCH(make_unique_t));
  add_case("unique", "counts", ints, MGPU_BENCH_DISPATCH(make_unique_counts_t));
  add_case("compact", "two_thirds", ints, MGPU_BENCH_DISPATCH(make_compact_t));
  add_case("reduce_by_key", "add_run8", ints, MGPU_BENCH_DISPATCH(make_reduce_by_key_t));
  for (size_t L : {32, 1000, 100000}) {
    std::string v = "add_L" + std::to_string(L);
    add_case("segreduce", v.c_str(), ints, [L](Env &e, mgpu_dtype t, size_t n) {
      std::unique_ptr<Instance> r;
      with_key_type(t, [&](auto k) { r = make_segreduce_t<decltype(k)>(e, n, L); });
      return r;
    });
  }
  for (mgpu_join_kind kind : {MGPU_JOIN_INNER, MGPU_JOIN_OUTER}) {
    add_case("join", kind == MGPU_JOIN_INNER ? "inner" : "outer", ints,
             [kind](Env &e, mgpu_dtype t, size_t n) {
               std::unique_ptr<Instance> r;
               with_key_type(t, [&](auto k) { r = make_join_t<decltype(k)>(e, n, kind); });
               return r;
             });
  }
}

// ===========================================================================
// driver
// ===========================================================================

struct Options {
  std::vector<size_t> sizes;
  std::vector<mgpu_dtype> dtypes;
  std::vector<std::string> only;  // "merge" or "merge/keys"
  int reps = 15;
  int warmup = 3;
  std::string out = "bench/results";
  std::string device = "cuda:0";
  std::string paths; /* --paths: mgpu_context_set_kernel_paths */
  bool list = false;
};

void usage(FILE *f) {
  std::fprintf(f,
               "usage: mgpu_bench [options]\n"
               "  --sizes 20,24,...   log2 of n (values >= 64 are taken as n itself);\n"
               "                      default 20,24,26,28\n"
               "  --only LIST         primitives or primitive/variant, comma separated\n"
               "                      (e.g. merge or mergesort/pairs); default all\n"
               "  --dtypes LIST       key dtypes, comma separated; default i32,i64\n"
               "  --reps N            timed reps per measurement (median; default 15)\n"
               "  --warmup N          untimed reps first (default 3)\n"
               "  --out DIR           where the CSV goes (default bench/results)\n"
               "  --device DEV        cuda:N (default cuda:0)\n"
               "  --paths P           mgpu's kernel paths (mgpu_context_set_kernel_paths,\n"
               "                      e.g. lanes16)\n"
               "  --list              list the cases and exit\n"
               "Environment: MGPU_COMMIT (the commit column; default \"unknown\").\n");
}

std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> r;
  size_t p = 0;
  while (p <= s.size()) {
    size_t q = s.find(sep, p);
    if (q == std::string::npos) q = s.size();
    if (q > p) r.push_back(s.substr(p, q - p));
    p = q + 1;
  }
  return r;
}

bool parse_uint(const std::string &s, unsigned long long &v) {
  if (s.empty()) return false;
  char *end = nullptr;
  errno = 0;
  v = std::strtoull(s.c_str(), &end, 10);
  return errno == 0 && end && *end == '\0' && s[0] != '-';
}

int parse_args(int argc, char **argv, Options &o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto need = [&](const char *flag) -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "mgpu_bench: %s needs a value\n", flag);
        std::exit(2);
      }
      return argv[++i];
    };
    // also accept --flag=value
    std::string val;
    size_t eq = a.find('=');
    bool has_eq = a.rfind("--", 0) == 0 && eq != std::string::npos;
    if (has_eq) {
      val = a.substr(eq + 1);
      a = a.substr(0, eq);
    }
    auto value = [&](const char *flag) { return has_eq ? val : need(flag); };
    if (a == "--help" || a == "-h") {
      usage(stdout);
      std::exit(0);
    } else if (a == "--list") {
      o.list = true;
    } else if (a == "--sizes") {
      o.sizes.clear();
      for (auto &s : split(value("--sizes"), ',')) {
        unsigned long long v;
        if (!parse_uint(s, v) || v == 0) {
          std::fprintf(stderr, "mgpu_bench: bad size '%s'\n", s.c_str());
          return 2;
        }
        o.sizes.push_back(v < 64 ? ((size_t)1 << v) : (size_t)v);
      }
    } else if (a == "--only") {
      o.only = split(value("--only"), ',');
    } else if (a == "--dtypes") {
      o.dtypes.clear();
      for (auto &s : split(value("--dtypes"), ',')) {
        mgpu_dtype t;
        if (mgpu_dtype_parse(s.c_str(), &t) != 0) {
          std::fprintf(stderr, "mgpu_bench: unknown dtype '%s'\n", s.c_str());
          return 2;
        }
        o.dtypes.push_back(t);
      }
    } else if (a == "--reps" || a == "--warmup") {
      unsigned long long v;
      std::string s = value(a.c_str());
      if (!parse_uint(s, v) || v > 100000 || (a == "--reps" && v == 0)) {
        std::fprintf(stderr, "mgpu_bench: bad %s '%s'\n", a.c_str(), s.c_str());
        return 2;
      }
      (a == "--reps" ? o.reps : o.warmup) = (int)v;
    } else if (a == "--out") {
      o.out = value("--out");
    } else if (a == "--device") {
      o.device = value("--device");
    } else if (a == "--paths") {
      o.paths = value("--paths");
    } else {
      std::fprintf(stderr, "mgpu_bench: unknown argument '%s'\n", argv[i]);
      usage(stderr);
      return 2;
    }
  }
  if (o.sizes.empty())
    for (int e : {20, 24, 26, 28}) o.sizes.push_back((size_t)1 << e);
  if (o.dtypes.empty()) o.dtypes = {MGPU_I32, MGPU_I64};
  return 0;
}

bool selected(const Options &o, const Case &c) {
  if (o.only.empty()) return true;
  for (auto &s : o.only)
    if (s == c.primitive || s == c.primitive + "/" + c.variant) return true;
  return false;
}

std::string sanitize(const std::string &s) {
  std::string r;
  for (char ch : s) {
    bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
              ch == '.' || ch == '_';
    if (ok)
      r += ch;
    else if (!r.empty() && r.back() != '-')
      r += '-';
  }
  while (!r.empty() && r.back() == '-') r.pop_back();
  return r.empty() ? "device" : r;
}

std::string size_label(size_t n) {
  if (n && (n & (n - 1)) == 0) {
    int e = 0;
    while (((size_t)1 << e) != n) ++e;
    return "2^" + std::to_string(e);
  }
  return std::to_string(n);
}

double median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  size_t m = v.size();
  if (!m) return NAN;
  return m % 2 ? v[m / 2] : 0.5 * ((double)v[m / 2 - 1] + v[m / 2]);
}

// One rep of one runner: prep, L2 flush, timed call.
float time_one(Env &env, Runner &r) {
  if (r.prep) r.prep();
  CK(cudaMemsetAsync(env.flush_buf, 0, env.flush_bytes, env.stream));
  CK(cudaEventRecord(env.ev_start, env.stream));
  r.run();
  CK(cudaEventRecord(env.ev_stop, env.stream));
  CK(cudaEventSynchronize(env.ev_stop));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, env.ev_start, env.ev_stop));
  return ms;
}

// Is the CUDA context still usable after an error?
bool device_ok(Env &env) {
  (void)cudaGetLastError();
  cudaError_t e = cudaStreamSynchronize(env.stream);
  if (e == cudaSuccess) e = cudaGetLastError();
  return e == cudaSuccess;
}

struct Totals {
  int rows = 0, mismatches = 0, errors = 0, skipped = 0;  // mismatches: measurements with any
  std::map<std::string, std::vector<double>> speedups;  // "primitive/variant vs anchor"
};

// Widths of the primitive and variant columns: the longest selected names.
int g_wprim = 10, g_wvar = 6;

void print_table_header() {
  std::printf("\n%-*s %-*s %-5s %10s %10s %8s %8s %6s  %-22s %10s %8s %8s %10s  %s\n",
              g_wprim, "primitive", g_wvar, "var", "dtype", "n", "mgpu_ms", "Gkeys/s", "GB/s",
              "%copy", "anchor", "anchor_ms", "Gkeys/s", "speedup", "memcpy_ms", "check");
  std::printf("%s\n", std::string(134 + g_wprim + g_wvar, '-').c_str());
}

}  // namespace

int main(int argc, char **argv) {
  Options opt;
  if (int rc = parse_args(argc, argv, opt)) return rc;
  register_cases();

  for (auto &name : opt.only) {
    bool known = false;
    for (auto &c : registry())
      known = known || name == c.primitive || name == c.primitive + "/" + c.variant;
    if (!known) {
      std::fprintf(stderr, "mgpu_bench: --only: no case '%s' (see --list)\n", name.c_str());
      return 2;
    }
  }
  if (opt.list) {
    for (auto &c : registry()) {
      std::printf("%s/%s  dtypes:", c.primitive.c_str(), c.variant.c_str());
      for (auto t : c.dtypes) std::printf(" %s", mgpu_dtype_name(t));
      std::printf("\n");
    }
    return 0;
  }
  if (opt.reps < 10)
    std::fprintf(stderr, "mgpu_bench: note: --reps %d is below the 10 that results need\n", opt.reps);

  const char *commit_env = std::getenv("MGPU_COMMIT");
  std::string commit = commit_env && *commit_env ? commit_env : "unknown";
  for (char &ch : commit)
    if (ch == ',' || ch == '\n' || ch == '"') ch = '_';

  Env env;
  env.warmup = opt.warmup;
  env.reps = opt.reps;
  Totals tot;
  FILE *csv = nullptr;
  std::string csv_path;

  try {
    // ---- device and context ----
    if (opt.device.rfind("cuda", 0) != 0) {
      std::fprintf(stderr, "mgpu_bench: --device must be cuda or cuda:N\n");
      return 2;
    }
    env.device = 0;
    if (opt.device.size() > 5 && opt.device[4] == ':') env.device = std::atoi(opt.device.c_str() + 5);
    int ndev = 0;
    CK(cudaGetDeviceCount(&ndev));
    if (env.device < 0 || env.device >= ndev) {
      std::fprintf(stderr, "mgpu_bench: no CUDA device %d (%d present)\n", env.device, ndev);
      return 1;
    }
    CK(cudaSetDevice(env.device));
    CK(cudaGetDeviceProperties(&env.prop, env.device));

    char errbuf[512] = {0};
    std::string dev = "cuda:" + std::to_string(env.device);
    mgpu_status s = mgpu_context_create(dev.c_str(), &env.ctx, errbuf, sizeof errbuf);
    if (s != MGPU_OK || !env.ctx) {
      std::fprintf(stderr, "mgpu_bench: mgpu_context_create(%s) failed: %s: %s\n", dev.c_str(),
                   mgpu_status_name(s), errbuf);
      return 1;
    }
    g_ctx = env.ctx;
    if (!opt.paths.empty() &&
        mgpu_context_set_kernel_paths(env.ctx, opt.paths.c_str()) != MGPU_OK) {
      std::fprintf(stderr, "mgpu_bench: --paths: %s\n", mgpu_context_error(env.ctx));
      return 1;
    }
    if (std::strcmp(mgpu_context_backend(env.ctx), "cuda") != 0) {
      std::fprintf(stderr, "mgpu_bench: context %s is not on the CUDA backend\n", dev.c_str());
      return 1;
    }
    // (NULL would be the legacy default stream: still a valid stream.)
    env.stream = static_cast<cudaStream_t>(mgpu_context_stream(env.ctx));
    // mgpu may have made another device current; ours must match.
    CK(cudaSetDevice(env.device));

    int l2 = 0;
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, env.device));
    env.flush_bytes = 2 * (size_t)(l2 > 0 ? l2 : (64 << 20));
    CK(cudaMalloc(&env.flush_buf, env.flush_bytes));
    CK(cudaEventCreate(&env.ev_start));
    CK(cudaEventCreate(&env.ev_stop));
    CK(cudaMalloc(&env.d_scratch, sizeof(unsigned long long)));

    int mem_clock = 0, bus = 0;
    (void)cudaDeviceGetAttribute(&mem_clock, cudaDevAttrMemoryClockRate, env.device);
    (void)cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, env.device);
    (void)cudaGetLastError();
    std::printf("mgpu_bench: %s (cc %d.%d, %d SMs, %.1f GiB, L2 %.0f MiB), mgpu %s, commit %s\n",
                env.prop.name, env.prop.major, env.prop.minor, env.prop.multiProcessorCount,
                env.prop.totalGlobalMem / 1073741824.0, l2 / 1048576.0, MGPU_VERSION,
                commit.c_str());
    std::printf("timing: median of %d reps after %d warm-up, L2 flushed (%zu MiB memset) before each;"
                " CUDA events on the context's stream\n",
                opt.reps, opt.warmup, env.flush_bytes >> 20);

    // ---- output file ----
    char date[32];
    std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d", std::localtime(&now));
    std::string devname = sanitize(env.prop.name);
    std::filesystem::create_directories(opt.out);
    csv_path = opt.out + "/" + date + "-" + devname + ".csv";
    csv = std::fopen(csv_path.c_str(), "w");
    if (!csv) {
      std::fprintf(stderr, "mgpu_bench: cannot write %s: %s\n", csv_path.c_str(), std::strerror(errno));
      return 1;
    }
    std::fprintf(csv, "primitive,variant,dtype,n,mgpu_ms,anchor,anchor_ms,speedup,memcpy_ms,device,commit\n");
    std::fflush(csv);
    std::string dev_col = env.prop.name;
    for (char &ch : dev_col)
      if (ch == ',' || ch == '"') ch = ' ';

    for (auto &c : registry())
      if (selected(opt, c)) {
        g_wprim = std::max(g_wprim, (int)c.primitive.size());
        g_wvar = std::max(g_wvar, (int)c.variant.size());
      }
    print_table_header();

    // ---- the cases ----
    bool dead = false;
    for (auto &c : registry()) {
      if (dead || !selected(opt, c)) continue;
      for (mgpu_dtype t : opt.dtypes) {
        if (dead) break;
        if (std::find(c.dtypes.begin(), c.dtypes.end(), t) == c.dtypes.end()) {
          std::printf("note: %s/%s has no %s variant\n", c.primitive.c_str(), c.variant.c_str(),
                      mgpu_dtype_name(t));
          continue;
        }
        for (size_t n : opt.sizes) {
          if (dead) break;
          std::string label = c.primitive + "/" + c.variant + " " + mgpu_dtype_name(t) + " n=" +
                              size_label(n);
          if (n > MGPU_MAX_COUNT && !c.wide) {
            std::printf("note: skip %s: n is past MGPU_MAX_COUNT, this call's cuda limit\n",
                        label.c_str());
            ++tot.skipped;
            continue;
          }
          std::fflush(stdout);
          std::unique_ptr<Instance> inst;
          Runner memcpy_r;
          try {
            // return the pool's cached memory so that this size gets all of it
            MG(mgpu_context_reclaim(env.ctx));
            inst = c.make(env, t, n);
            std::vector<Runner *> all{&inst->mgpu};
            for (auto &a : inst->anchors) all.push_back(&a);
            // memcpy of the bytes the primitive reads, in the same loop; not
            // past MGPU_MAX_COUNT, where its two buffers would not leave
            // the call and its anchor room on the device (memcpy_ms 0)
            if (n <= MGPU_MAX_COUNT) {
              size_t mb = inst->bytes_in;
              void *msrc = inst->alloc(mb), *mdst = inst->alloc(mb);
              CK(cudaMemsetAsync(msrc, 1, mb, env.stream));
              memcpy_r.name = "memcpy";
              Env *e = &env;
              memcpy_r.run = [=]() { copy_async(*e, mdst, msrc, mb); };
              all.push_back(&memcpy_r);
            }
            for (int w = 0; w < opt.warmup; ++w)
              for (Runner *r : all) time_one(env, *r);
            for (int rep = 0; rep < opt.reps; ++rep)
              for (size_t j = 0; j < all.size(); ++j) {  // rotate the order
                Runner *r = all[(j + rep) % all.size()];
                r->times_ms.push_back(time_one(env, *r));
              }
            // Each runner's last rep left its output in place: verify.
            // (The order rotation does not matter: runners write disjoint buffers.)
          } catch (const BenchError &ex) {
            inst.reset();  // frees the buffers
            if (ex.oom) {
              std::printf("note: skip %s: does not fit in device memory (%s)\n", label.c_str(),
                          ex.what());
              ++tot.skipped;
              (void)mgpu_context_reclaim(env.ctx);
              if (!device_ok(env)) dead = true;
            } else {
              std::printf("ERROR %s: %s\n", label.c_str(), ex.what());
              ++tot.errors;
              if (!device_ok(env)) {
                std::printf("ERROR: the CUDA context is unusable after this error; stopping\n");
                dead = true;
              }
            }
            continue;
          }

          // ---- verification ----
          std::string mgpu_self;
          std::vector<std::string> verdicts;
          try {
            if (inst->selfcheck) mgpu_self = inst->selfcheck(inst->mgpu);
            if (!mgpu_self.empty()) {
              std::printf("MISMATCH %s: mgpu output is wrong: %s\n", label.c_str(), mgpu_self.c_str());
            }
            for (auto &a : inst->anchors) {
              std::string d = compare_outputs(env, inst->mgpu, a);
              if (d.empty()) {
                verdicts.push_back(mgpu_self.empty() ? "ok" : "MISMATCH");
              } else {
                std::string who;
                if (inst->selfcheck) {
                  std::string as = inst->selfcheck(a);
                  who = std::string(" [independent check: mgpu ") +
                        (mgpu_self.empty() ? "correct" : "wrong") + ", " + a.name + " " +
                        (as.empty() ? "correct" : "wrong: " + as) + "]";
                }
                std::printf("MISMATCH %s: mgpu vs %s: %s%s\n", label.c_str(), a.name.c_str(),
                            d.c_str(), who.c_str());
                verdicts.push_back("MISMATCH");
              }
            }
            if (!mgpu_self.empty() ||
                std::find(verdicts.begin(), verdicts.end(), "MISMATCH") != verdicts.end())
              ++tot.mismatches;
          } catch (const BenchError &ex) {
            std::printf("ERROR %s: verification failed: %s\n", label.c_str(), ex.what());
            ++tot.errors;
            verdicts.assign(inst->anchors.size(), "ERROR");
            if (!device_ok(env)) dead = true;
          }

          // ---- report ----
          double mgpu_ms = median(inst->mgpu.times_ms);
          double copy_ms = memcpy_r.times_ms.empty() ? 0.0 : median(memcpy_r.times_ms);
          double gkeys = inst->keys / (mgpu_ms * 1e-3) / 1e9;
          double gbs = 2.0 * inst->bytes_in / (mgpu_ms * 1e-3) / 1e9;  // read + write
          for (size_t j = 0; j < inst->anchors.size(); ++j) {
            Runner &a = inst->anchors[j];
            double ams = median(a.times_ms);
            double speedup = ams / mgpu_ms;
            std::fprintf(csv, "%s,%s,%s,%zu,%.6f,%s,%.6f,%.4f,%.6f,%s,%s\n", c.primitive.c_str(),
                         c.variant.c_str(), mgpu_dtype_name(t), n, mgpu_ms, a.name.c_str(), ams,
                         speedup, copy_ms, dev_col.c_str(), commit.c_str());
            std::fflush(csv);
            ++tot.rows;
            tot.speedups[c.primitive + "/" + c.variant + " vs " + a.name].push_back(speedup);
            if (j == 0)
              std::printf("%-*s %-*s %-5s %10s %10.4f %8.3f %8.1f %5.1f%%  ", g_wprim,
                          c.primitive.c_str(), g_wvar, c.variant.c_str(), mgpu_dtype_name(t),
                          size_label(n).c_str(), mgpu_ms, gkeys, gbs, 100.0 * copy_ms / mgpu_ms);
            else
              std::printf("%-*s %-*s %-5s %10s %10s %8s %8s %6s  ", g_wprim, "", g_wvar, "", "", "",
                          "", "", "", "");
            std::printf("%-22s %10.4f %8.3f %7.2fx %10.4f  %s\n", a.name.c_str(), ams,
                        inst->keys / (ams * 1e-3) / 1e9, speedup, copy_ms, verdicts[j].c_str());
          }
          std::fflush(stdout);
          inst.reset();
        }
      }
    }

    // ---- summary ----
    std::printf("\ngeometric mean speedup (anchor_ms / mgpu_ms) over the sizes and dtypes run:\n");
    int wkey = 50;
    for (auto &kv : tot.speedups) wkey = std::max(wkey, (int)kv.first.size());
    for (auto &kv : tot.speedups) {
      double s = 0;
      for (double x : kv.second) s += std::log(x);
      std::printf("  %-*s %6.2fx  (%zu rows)\n", wkey, kv.first.c_str(), std::exp(s / kv.second.size()),
                  kv.second.size());
    }
  } catch (const BenchError &ex) {
    std::printf("ERROR: %s\n", ex.what());
    ++tot.errors;
  } catch (const std::exception &ex) {
    std::printf("ERROR: %s\n", ex.what());
    ++tot.errors;
  }

  if (csv) std::fclose(csv);
  std::printf("\n%d rows, %d measurements with a MISMATCH, %d errors, %d sizes skipped\n", tot.rows, tot.mismatches,
              tot.errors, tot.skipped);
  if (!csv_path.empty()) std::printf("csv: %s\n", csv_path.c_str());

  if (env.flush_buf) (void)cudaFree(env.flush_buf);
  if (env.d_scratch) (void)cudaFree(env.d_scratch);
  if (env.ev_start) (void)cudaEventDestroy(env.ev_start);
  if (env.ev_stop) (void)cudaEventDestroy(env.ev_stop);
  if (env.ctx) mgpu_context_release(env.ctx);
  return (tot.mismatches || tot.errors) ? 1 : 0;
}
