/*
 * tune.cu - chooses the (NT, VT) policies of kernels/policy.cuh.
 *
 * Instantiates the merge, mergesort and set-operation kernels with
 * candidate tile shapes, times each at one size on the GPU (CUDA events, L2
 * flushed, median of reps), checks every candidate's output against the
 * first candidate's (per op for the set operations), and prints one line
 * per candidate plus the device-to-device copy time of the same bytes (of
 * the inputs, for the set operations).  The winners go into
 * kernels/policy.cuh with these numbers; docs/TUNING.md keeps the history.
 *
 *   mgpu_tune [log2 n = 26] [reps = 15] [mode = all]
 *   (modes: the usage line in main, each a function below)
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "merge.cuh"
#include "mergesort.cuh"
#include "setop.cuh"

namespace {

using namespace mgpu;

int reps = 15;
mgpu_context *ctx = nullptr;
cudaStream_t stream;
void *flush_buf = nullptr;
size_t flush_bytes = 0;
int failures = 0;

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call,             \
              cudaGetErrorString(e_));                                         \
      exit(2);                                                                 \
    }                                                                          \
  } while (0)

#define MCHECK(call)                                                           \
  do {                                                                         \
    mgpu_status s_ = (call);                                                   \
    if (s_ != MGPU_OK) {                                                       \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call,             \
              mgpu_context_error(ctx));                                        \
      exit(2);                                                                 \
    }                                                                          \
  } while (0)

/* Median time of `reps` runs of f, each after `prep` and an L2 flush. */
template <typename Prep, typename F> double time_ms(Prep prep, F f) {
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  std::vector<float> t;
  for (int r = 0; r < reps + 2; ++r) {
    prep();
    CHECK(cudaMemsetAsync(flush_buf, r & 0xff, flush_bytes, stream));
    CHECK(cudaEventRecord(e0, stream));
    f();
    CHECK(cudaEventRecord(e1, stream));
    CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    if (r >= 2) t.push_back(ms); /* two warm-ups */
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

double copy_ms(void *dst, const void *src, size_t bytes) {
  return time_ms([] {}, [&] {
    CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
  });
}

bool same_bytes(const void *x, const void *y, size_t bytes) {
  std::vector<char> hx(bytes), hy(bytes);
  CHECK(cudaMemcpy(hx.data(), x, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hy.data(), y, bytes, cudaMemcpyDeviceToHost));
  return memcmp(hx.data(), hy.data(), bytes) == 0;
}

template <typename T> mgpu_dtype dtype_of();
template <> mgpu_dtype dtype_of<int32_t>() { return MGPU_I32; }
template <> mgpu_dtype dtype_of<int64_t>() { return MGPU_I64; }
template <> mgpu_dtype dtype_of<uint32_t>() { return MGPU_U32; }
template <> mgpu_dtype dtype_of<uint64_t>() { return MGPU_U64; }

template <typename T> T *device_alloc(size_t n) {
  void *p = nullptr;
  CHECK(cudaMalloc(&p, n * sizeof(T) + 16));
  return static_cast<T *>(p);
}

/* ---- merge ---------------------------------------------------------------- */

template <typename K, typename V> struct merge_data {
  int na, nb;
  K *a, *b, *out, *ref_out;
  V *av, *bv, *outv, *ref_outv;
  double memcpy_keys, memcpy_pairs;
  bool have_ref = false;

  explicit merge_data(int n) : na(n / 2), nb(n - n / 2) {
    a = device_alloc<K>(na);
    b = device_alloc<K>(nb);
    out = device_alloc<K>(n);
    ref_out = device_alloc<K>(n);
    av = device_alloc<V>(na);
    bv = device_alloc<V>(nb);
    outv = device_alloc<V>(n);
    ref_outv = device_alloc<V>(n);
    mgpu_scalar lo, hi, zero, one, start_b;
    lo.i = 0;
    hi.i = n; /* keys in [0, n]: about one duplicate per key */
    zero.i = 0;
    one.i = 1;
    start_b.i = na;
    MCHECK(mgpu_random(ctx, a, na, dtype_of<K>(), lo, hi, 1));
    MCHECK(mgpu_random(ctx, b, nb, dtype_of<K>(), lo, hi, 2));
    MCHECK(mgpu_mergesort(ctx, dtype_of<K>(), MGPU_LESS, a, na, 0, nullptr));
    MCHECK(mgpu_mergesort(ctx, dtype_of<K>(), MGPU_LESS, b, nb, 0, nullptr));
    MCHECK(mgpu_iota(ctx, av, na, dtype_of<V>(), zero, one));
    MCHECK(mgpu_iota(ctx, bv, nb, dtype_of<V>(), start_b, one));
    size_t kb = sizeof(K) * (size_t)n, vb = sizeof(V) * (size_t)n;
    char *x = device_alloc<char>(kb + vb), *y = device_alloc<char>(kb + vb);
    memcpy_keys = copy_ms(y, x, kb);
    memcpy_pairs = copy_ms(y, x, kb + vb);
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
  }
};

template <typename P, bool HAS_V, typename K, typename V>
void tune_merge(merge_data<K, V> &d, const char *what) {
  const int n = d.na + d.nb;
  double ms = time_ms([] {}, [&] {
    MCHECK((merge_run<P, HAS_V>(ctx, d.a, d.av, d.na, d.b, d.bv, d.nb, d.out,
                                d.outv, ascending<K>())));
  });
  bool ok = true;
  if (!d.have_ref) {
    /* on the context's stream (see tune_setop) */
    CHECK(cudaMemcpyAsync(d.ref_out, d.out, sizeof(K) * n,
                          cudaMemcpyDeviceToDevice, stream));
    if (HAS_V)
      CHECK(cudaMemcpyAsync(d.ref_outv, d.outv, sizeof(V) * n,
                            cudaMemcpyDeviceToDevice, stream));
    CHECK(cudaStreamSynchronize(stream));
    d.have_ref = true;
  } else {
    ok = same_bytes(d.out, d.ref_out, sizeof(K) * n) &&
         (!HAS_V || same_bytes(d.outv, d.ref_outv, sizeof(V) * n));
  }
  if (!ok) ++failures;
  double base = HAS_V ? d.memcpy_pairs : d.memcpy_keys;
  printf("merge     %-6s %-4s NT=%3d VT=%2d    %8.4f ms  %5.1f%% of memcpy (%.4f ms)%s\n",
         what, sizeof(K) == 4 ? "i32" : "i64", P::NT, P::VT, ms,
         100 * base / ms, base, ok ? "" : "  MISMATCH");
}

/* ---- mergesort -------------------------------------------------------------- */

template <typename K, typename V> struct sort_data {
  int n;
  K *src, *keys, *ref, *scratch, *samples;
  V *vsrc, *vals, *vref, *vscratch;
  bool have_ref = false;

  explicit sort_data(int n_) : n(n_) {
    src = device_alloc<K>(n);
    keys = device_alloc<K>(n);
    ref = device_alloc<K>(n);
    scratch = device_alloc<K>(n);
    samples = device_alloc<K>(n / kSortSampleStride + 1);
    vscratch = device_alloc<V>(n);
    vsrc = device_alloc<V>(n);
    vals = device_alloc<V>(n);
    vref = device_alloc<V>(n);
    mgpu_scalar lo, hi, zero, one;
    lo.i = 0;
    hi.i = sizeof(K) == 4 ? 0x7fffffff : 0x7fffffffffffffffLL;
    zero.i = 0;
    one.i = 1;
    MCHECK(mgpu_random(ctx, src, n, dtype_of<K>(), lo, hi, 3));
    MCHECK(mgpu_iota(ctx, vsrc, n, dtype_of<V>(), zero, one));
  }
};

template <typename PB, typename PM, bool HAS_V, typename K, typename V>
void tune_sort(sort_data<K, V> &d, const char *what) {
  const int n = d.n;
  double ms = time_ms(
      [&] {
        CHECK(cudaMemcpyAsync(d.keys, d.src, sizeof(K) * n,
                              cudaMemcpyDeviceToDevice, stream));
        if (HAS_V)
          CHECK(cudaMemcpyAsync(d.vals, d.vsrc, sizeof(V) * n,
                                cudaMemcpyDeviceToDevice, stream));
      },
      [&] {
        MCHECK((mergesort_run<PB, PM, HAS_V>(ctx, d.keys, d.vals, n,
                                             ascending<K>())));
      });
  /* the blocksort launch alone, from the same input */
  double bs = time_ms(
      [] {},
      [&] {
        MCHECK((blocksort_run<PB, HAS_V>(ctx, d.src, d.vsrc, n, d.scratch, d.vscratch,
                                         d.samples, ascending<K>())));
      });
  bool ok = true;
  if (!d.have_ref) {
    CHECK(cudaMemcpy(d.ref, d.keys, sizeof(K) * n, cudaMemcpyDeviceToDevice));
    if (HAS_V)
      CHECK(cudaMemcpy(d.vref, d.vals, sizeof(V) * n, cudaMemcpyDeviceToDevice));
    d.have_ref = true;
  } else {
    ok = same_bytes(d.keys, d.ref, sizeof(K) * n) &&
         (!HAS_V || same_bytes(d.vals, d.vref, sizeof(V) * n));
  }
  if (!ok) ++failures;
  int passes = 0;
  for (long long run = PB::NV; run < n; run *= 2) ++passes;
  printf("mergesort %-6s %-4s sort NT=%3d VT=%2d pass NT=%3d %8.4f ms  "
         "(blocksort %.4f ms, %d passes of ~%.4f ms)%s\n",
         what, sizeof(K) == 4 ? "i32" : "i64", PB::NT, PB::VT, PM::NT, ms, bs,
         passes, passes ? (ms - bs) / passes : 0.0, ok ? "" : "  MISMATCH");
}

/* ---- setop ---------------------------------------------------------------- */

/* How the candidates launch (setop_run): prefetch distance, early
 * launches, early return with the count. */
setop_options setop_opt = {50, false, false, 0, 0};

const char *setop_name(mgpu_setop_kind op) {
  switch (op) {
  case MGPU_SET_INTERSECTION: return "intersection";
  case MGPU_SET_UNION: return "union";
  case MGPU_SET_DIFFERENCE: return "difference";
  case MGPU_SET_SYMMETRIC_DIFFERENCE: return "symmetric_difference";
  }
  return "?";
}

/* As bench.cu's setop case: two sorted inputs of n/2 keys each, uniform in
 * [0, n / (2 ln 2)), so about half of a's keys find a partner in b and
 * repeated keys are common; values tag the inputs (0..na-1, then na..n-1).
 * Outputs hold na + nb, enough for every op.  The reference is per op
 * (the first candidate timed for it). */
template <typename K, typename V> struct setop_data {
  static constexpr int kOps = 4;
  int na, nb;
  size_t capacity;
  K *a, *b, *out;
  V *av, *bv, *outv;
  K *ref_out[kOps] = {};
  V *ref_outv[kOps] = {};
  size_t ref_count[kOps] = {};
  bool have_ref[kOps] = {};
  double memcpy_keys, memcpy_pairs; /* of the input bytes */

  explicit setop_data(int n) : na(n / 2), nb(n - n / 2), capacity((size_t)n) {
    a = device_alloc<K>(na);
    b = device_alloc<K>(nb);
    out = device_alloc<K>(capacity);
    av = device_alloc<V>(na);
    bv = device_alloc<V>(nb);
    outv = device_alloc<V>(capacity);
    const long long range =
        std::max(1LL, std::llround((double)n / (2.0 * std::log(2.0))));
    mgpu_scalar lo, hi, zero, one, start_b;
    lo.i = 0;
    hi.i = range - 1; /* inclusive */
    zero.i = 0;
    one.i = 1;
    start_b.i = na;
    MCHECK(mgpu_random(ctx, a, na, dtype_of<K>(), lo, hi, 4));
    MCHECK(mgpu_random(ctx, b, nb, dtype_of<K>(), lo, hi, 5));
    MCHECK(mgpu_mergesort(ctx, dtype_of<K>(), MGPU_LESS, a, na, 0, nullptr));
    MCHECK(mgpu_mergesort(ctx, dtype_of<K>(), MGPU_LESS, b, nb, 0, nullptr));
    MCHECK(mgpu_iota(ctx, av, na, dtype_of<V>(), zero, one));
    MCHECK(mgpu_iota(ctx, bv, nb, dtype_of<V>(), start_b, one));
    size_t kb = sizeof(K) * (size_t)n, vb = sizeof(V) * (size_t)n;
    char *x = device_alloc<char>(kb + vb), *y = device_alloc<char>(kb + vb);
    memcpy_keys = copy_ms(y, x, kb);
    memcpy_pairs = copy_ms(y, x, kb + vb);
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
  }

  /* Forget the references (keys and pairs are checked separately). */
  void reset_refs() {
    for (int i = 0; i < kOps; ++i) have_ref[i] = false;
  }
};

template <typename P, bool HAS_V, bool STAGE_V, bool LBW = false,
          int S = kSetopSampleStride, typename K, typename V>
void tune_setop(setop_data<K, V> &d, mgpu_setop_kind op, const char *what) {
  mgpu_setop_args m;
  memset(&m, 0, sizeof m);
  m.op = op;
  m.key_type = dtype_of<K>();
  m.order = MGPU_LESS;
  m.duplicates = 1;
  m.value_size = HAS_V ? sizeof(V) : 0;
  m.a_keys = d.a;
  m.a_vals = HAS_V ? d.av : nullptr;
  m.na = (size_t)d.na;
  m.b_keys = d.b;
  m.b_vals = HAS_V ? d.bv : nullptr;
  m.nb = (size_t)d.nb;
  m.keys = d.out;
  m.vals = HAS_V ? d.outv : nullptr;
  m.capacity = d.capacity;
  size_t count = 0;
  /* outputs poisoned before every run: an element a candidate leaves
   * unwritten cannot keep an earlier candidate's right answer */
  double ms = time_ms([&] {
    CHECK(cudaMemsetAsync(d.out, 0xff, sizeof(K) * d.capacity, stream));
    if (HAS_V)
      CHECK(cudaMemsetAsync(d.outv, 0xff, sizeof(V) * d.capacity, stream));
  }, [&] {
    MCHECK((setop_run<P, HAS_V, STAGE_V, LBW, K, V, ascending<K>, S>(
        ctx, &m, &count, ascending<K>(), setop_opt)));
  });
  const int o = (int)op;
  bool ok = true;
  if (setop_opt.no_wait) {
    /* no total: nothing to check */
  } else if (!d.have_ref[o]) {
    if (!d.ref_out[o]) {
      d.ref_out[o] = device_alloc<K>(d.capacity);
      d.ref_outv[o] = device_alloc<V>(d.capacity);
    }
    /* on the context's stream: a device-to-device cudaMemcpy does not
     * wait, and the next candidate's runs would overwrite the outputs */
    if (count) {
      CHECK(cudaMemcpyAsync(d.ref_out[o], d.out, sizeof(K) * count,
                            cudaMemcpyDeviceToDevice, stream));
      if (HAS_V)
        CHECK(cudaMemcpyAsync(d.ref_outv[o], d.outv, sizeof(V) * count,
                              cudaMemcpyDeviceToDevice, stream));
      CHECK(cudaStreamSynchronize(stream));
    }
    d.ref_count[o] = count;
    d.have_ref[o] = true;
  } else {
    const bool keys_ok =
        !count || same_bytes(d.out, d.ref_out[o], sizeof(K) * count);
    const bool vals_ok = !count || !HAS_V ||
                         same_bytes(d.outv, d.ref_outv[o], sizeof(V) * count);
    ok = count == d.ref_count[o] && keys_ok && vals_ok;
    if (count == d.ref_count[o] && !vals_ok) {
      std::vector<V> x(count), y(count);
      CHECK(cudaMemcpy(x.data(), d.outv, sizeof(V) * count, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(y.data(), d.ref_outv[o], sizeof(V) * count,
                       cudaMemcpyDeviceToHost));
      size_t i = 0, diffs = 0, first = 0;
      for (; i < count; ++i)
        if (x[i] != y[i] && diffs++ == 0) first = i;
      printf("  values differ at %zu places, first %zu: %lld, reference %lld%s\n",
             diffs, first, (long long)x[first], (long long)y[first],
             keys_ok ? " (keys equal)" : "");
    }
  }
  if (!ok) ++failures;
  double base = HAS_V ? d.memcpy_pairs : d.memcpy_keys;
  printf("setop     %-12s %-5s %-4s NT=%3d VT=%2d MB=%2d PF=%3d %c%c%c %8.4f ms  (count %zu)  "
         "%5.1f%% of memcpy of the inputs (%.4f ms)%s\n",
         setop_name(op), what, sizeof(K) == 4 ? "i32" : "i64", P::NT, P::VT,
         P::MIN_BLOCKS, setop_opt.prefetch_percent,
         LBW ? 'W' : '-', setop_opt.early_launch ? 'L' : '-',
         setop_opt.early_count ? 'C' : '-',
         ms, count, 100 * base / ms, base, ok ? "" : "  MISMATCH");
}

template <int NT, int VT, int MB = 1> using T = tile_policy<NT, VT, MB>;

/* The launches before a set operation's tiles, timed alone: the sample
 * gather, then the partition on the samples (LANES lanes a point), against
 * the partition on the inputs alone (what setop_run does below
 * kSetopSampleFromPoints). */
template <typename P, int LANES = 32, typename K, typename V>
void setop_phases(setop_data<K, V> &d, const char *what) {
  constexpr int S = kSetopSampleStride;
  typedef ascending<K> C;
  const int na = d.na, nb = d.nb;
  const int tiles = tiles_of((long long)na + nb, P::NV);
  const int status_words = tiles + (tiles + 31) / 32;
  const int ca = samples_of(na, S), cb = samples_of(nb, S);
  unsigned long long *status =
      device_alloc<unsigned long long>(tile_words_bytes(status_words) / 8);
  unsigned *splits = device_alloc<unsigned>(tiles + 1);
  K *sa = device_alloc<K>(ca), *sb = device_alloc<K>(cb);
  const auto gather = [&] {
    gather_samples_kernel<S><<<grid_for((size_t)std::max(ca, cb), 256), 256, 0,
                               stream>>>(d.a, na, sa, d.b, nb, sb);
    CHECK(cudaGetLastError());
  };
  const auto part = [&](bool sampled) {
    CHECK(launch_early(sampled, setop_partition_kernel<S, LANES, K, C>,
                       setop_partition_blocks(LANES, tiles + 1),
                       kSetopPartitionThreads, 0,
                       stream, d.a, (const K *)(sampled ? sa : nullptr), na,
                       d.b, (const K *)(sampled ? sb : nullptr), nb, (int)P::NV,
                       tiles + 1, true, splits, status, status_words,
                       (unsigned *)nullptr, 0, C()));
  };
  const auto none = [] {};
  printf("phases    %-5s n=%d points=%d lanes=%2d: gather %.4f ms, "
         "gather+partition %.4f, partition on the inputs %.4f\n",
         what, na + nb, tiles + 1, LANES, time_ms(none, gather),
         time_ms(none, [&] { gather(); part(true); }),
         time_ms(none, [&] { part(false); }));
  CHECK(cudaFree(status));
  CHECK(cudaFree(splits));
  CHECK(cudaFree(sa));
  CHECK(cudaFree(sb));
}

/* Lanes a partition point (setop_partition_lanes against 32, 16 and 8):
 * the phases alone, then whole calls of the policy's tiles (first: the
 * rule, the reference), two passes. */
template <typename K, typename V> void tune_setop_lanes(int n) {
  setop_data<K, V> d(n);
  typedef setop_policy<sizeof(K), 0> KP;
  typedef setop_policy<sizeof(K), sizeof(V)> SP;
  setop_phases<typename KP::type, 32>(d, "keys");
  setop_phases<typename KP::type, 16>(d, "keys");
  setop_phases<typename KP::type, 8>(d, "keys");
  setop_phases<typename SP::staged, 32>(d, "stage");
  setop_phases<typename SP::staged, 16>(d, "stage");
  setop_phases<typename SP::staged, 8>(d, "stage");
  const int lanes[] = {0, 32, 16, 8};
  for (int pass = 0; pass < 2; ++pass) {
    for (int ln : lanes) {
      setop_opt = {KP::prefetch, true, true, ln, 0};
      printf("lanes %d\n", ln);
      tune_setop<typename KP::intersection, false, false, true>(
          d, MGPU_SET_INTERSECTION, "keys");
      tune_setop<typename KP::type, false, false, true>(d, MGPU_SET_UNION,
                                                        "keys");
      tune_setop<typename KP::type, false, false, true>(
          d, MGPU_SET_DIFFERENCE, "keys");
      tune_setop<typename KP::type, false, false, true>(
          d, MGPU_SET_SYMMETRIC_DIFFERENCE, "keys");
    }
  }
  d.reset_refs();
  for (int pass = 0; pass < 2; ++pass) {
    for (int ln : lanes) {
      setop_opt = {SP::prefetch, true, true, ln, 0};
      printf("lanes %d\n", ln);
      tune_setop<typename SP::intersection, true, false, true>(
          d, MGPU_SET_INTERSECTION, "pairs");
      tune_setop<typename SP::type, true, false, true>(
          d, MGPU_SET_DIFFERENCE, "pairs");
      tune_setop<typename SP::staged, true, true, true>(d, MGPU_SET_UNION,
                                                        "stage");
      tune_setop<typename SP::staged, true, true, true>(
          d, MGPU_SET_SYMMETRIC_DIFFERENCE, "stage");
    }
  }
  setop_opt = {50, true, true, 0, 0};
}

template <typename K, typename V> void tune_all_merge(int n) {
  merge_data<K, V> d(n);
  if (sizeof(K) == 4) {
    tune_merge<T<128, 23>, false>(d, "keys");
    tune_merge<T<128, 15>, false>(d, "keys");
    tune_merge<T<128, 31>, false>(d, "keys");
    tune_merge<T<256, 23>, false>(d, "keys");
    tune_merge<T<64, 31>, false>(d, "keys");
    d.have_ref = false;
    tune_merge<T<128, 15>, true>(d, "pairs");
    tune_merge<T<128, 11>, true>(d, "pairs");
    tune_merge<T<128, 19>, true>(d, "pairs");
  } else {
    tune_merge<T<256, 11>, false>(d, "keys");
    tune_merge<T<256, 7>, false>(d, "keys");
    tune_merge<T<128, 15>, false>(d, "keys");
    d.have_ref = false;
    tune_merge<T<256, 7>, true>(d, "pairs");
    tune_merge<T<128, 11>, true>(d, "pairs");
  }
}

/* mstaged: the library's merge (the policy's options) against staged
 * tiles of other shapes and options, every candidate timed in each of two interleaved passes
 * and checked against the library's output. */
struct mcand {
  std::string name;
  std::function<void()> run;
  std::vector<double> ms;
};

template <typename K, typename V, bool HAS_V>
void tune_mstaged_run(merge_data<K, V> &d, std::vector<mcand> &cs,
                      const char *what) {
  const int n = d.na + d.nb;
  for (int pass = 0; pass < 3; ++pass)
    for (size_t c = 0; c < cs.size(); ++c) {
      cs[c].ms.push_back(time_ms([] {}, cs[c].run));
      if (c == 0 && pass == 0) {
        CHECK(cudaMemcpyAsync(d.ref_out, d.out, sizeof(K) * n,
                              cudaMemcpyDeviceToDevice, stream));
        if (HAS_V)
          CHECK(cudaMemcpyAsync(d.ref_outv, d.outv, sizeof(V) * n,
                                cudaMemcpyDeviceToDevice, stream));
        CHECK(cudaStreamSynchronize(stream));
      } else if (pass == 0) {
        bool ok = same_bytes(d.out, d.ref_out, sizeof(K) * n) &&
                  (!HAS_V || same_bytes(d.outv, d.ref_outv, sizeof(V) * n));
        if (!ok) {
          ++failures;
          printf("MISMATCH %s %s\n", what, cs[c].name.c_str());
        }
      }
    }
  const double base = HAS_V ? d.memcpy_pairs : d.memcpy_keys;
  for (auto &c : cs) {
    printf("mstaged %-5s %-4s %-34s", what, sizeof(K) == 4 ? "i32" : "i64",
           c.name.c_str());
    for (double m : c.ms) printf(" %8.4f", m);
    std::vector<double> s = c.ms;
    std::sort(s.begin(), s.end());
    printf(" ms  %5.1f%% of memcpy (%.4f ms)\n", 100 * base / s[s.size() / 2],
           base);
  }
}

template <typename P, bool HAS_V, typename K, typename V>
mcand staged_cand(merge_data<K, V> &d, int pf, bool early, int lanes, int S) {
  merge_options o = {pf, early, lanes, S};
  char name[96];
  snprintf(name, sizeof name, "staged %dx%d pf%d %s L%d S%d", P::NT, P::VT, pf,
           early ? "early" : "late", lanes, S);
  merge_data<K, V> *p = &d;
  return {name, [p, o] {
            MCHECK((merge_run<P, HAS_V>(ctx, p->a, p->av, p->na, p->b, p->bv,
                                        p->nb, p->out, p->outv, o,
                                        ascending<K>())));
          },
          {}};
}

template <typename P, bool HAS_V, typename K, typename V>
mcand library_cand(merge_data<K, V> &d) {
  char name[96];
  snprintf(name, sizeof name, "library %dx%d", P::NT, P::VT);
  merge_data<K, V> *p = &d;
  return {name, [p] {
            MCHECK((merge_run<P, HAS_V>(ctx, p->a, p->av, p->na, p->b, p->bv,
                                        p->nb, p->out, p->outv,
                                        ascending<K>())));
          },
          {}};
}

template <typename K, typename V> void tune_mstaged(int n) {
  merge_data<K, V> d(n);
  if (sizeof(K) == 4) {
    std::vector<mcand> k;
    k.push_back(library_cand<T<128, 23>, false>(d));
    k.push_back(staged_cand<T<256, 23>, false>(d, 35, true, 0, 256));
    k.push_back(staged_cand<T<256, 23>, false>(d, 35, true, 8, 512));
    k.push_back(staged_cand<T<256, 23>, false>(d, 20, true, 8, 512));
    k.push_back(staged_cand<T<256, 23>, false>(d, 0, true, 8, 512));
    k.push_back(staged_cand<T<256, 31>, false>(d, 35, true, 8, 512));
    k.push_back(staged_cand<T<256, 19>, false>(d, 35, true, 8, 512));
    k.push_back(staged_cand<T<256, 15>, false>(d, 35, true, 8, 512));
    k.push_back(staged_cand<T<512, 15>, false>(d, 35, true, 8, 512));
    k.push_back(staged_cand<T<512, 23>, false>(d, 35, true, 8, 512));
    k.push_back(staged_cand<T<384, 23>, false>(d, 35, true, 8, 512));
    tune_mstaged_run<K, V, false>(d, k, "keys");
    std::vector<mcand> pr;
    pr.push_back(library_cand<T<128, 15>, true>(d));
    pr.push_back(staged_cand<T<128, 31>, true>(d, 35, true, 0, 256));
    pr.push_back(staged_cand<T<128, 31>, true>(d, 35, true, 8, 512));
    pr.push_back(staged_cand<T<128, 31>, true>(d, 0, true, 8, 512));
    pr.push_back(staged_cand<T<256, 15>, true>(d, 35, true, 8, 512));
    pr.push_back(staged_cand<T<256, 23>, true>(d, 35, true, 8, 512));
    pr.push_back(staged_cand<T<256, 31>, true>(d, 35, true, 8, 512));
    pr.push_back(staged_cand<T<128, 39>, true>(d, 35, true, 8, 512));
    tune_mstaged_run<K, V, true>(d, pr, "pairs");
  } else {
    std::vector<mcand> k;
    k.push_back(library_cand<T<128, 15>, false>(d));
    k.push_back(staged_cand<T<128, 23>, false>(d, 35, true, 0, 256));
    k.push_back(staged_cand<T<128, 23>, false>(d, 35, true, 8, 512));
    k.push_back(staged_cand<T<256, 15>, false>(d, 35, true, 8, 512));
    k.push_back(staged_cand<T<256, 11>, false>(d, 35, true, 8, 512));
    k.push_back(staged_cand<T<128, 31>, false>(d, 35, true, 8, 512));
    k.push_back(staged_cand<T<256, 23>, false>(d, 35, true, 8, 512));
    tune_mstaged_run<K, V, false>(d, k, "keys");
    std::vector<mcand> pr;
    pr.push_back(library_cand<T<128, 11>, true>(d));
    pr.push_back(staged_cand<T<128, 15>, true>(d, 35, true, 0, 256));
    pr.push_back(staged_cand<T<128, 15>, true>(d, 35, true, 8, 512));
    pr.push_back(staged_cand<T<128, 19>, true>(d, 35, true, 8, 512));
    pr.push_back(staged_cand<T<256, 11>, true>(d, 35, true, 8, 512));
    pr.push_back(staged_cand<T<128, 23>, true>(d, 35, true, 8, 512));
    tune_mstaged_run<K, V, true>(d, pr, "pairs");
  }
}

/* sortpdl: mergesort with the policy's shapes, its passes launched early
 * or one after the other (the library picks by size), interleaved, each
 * checked against the first. */
template <typename K, typename V, bool HAS_V> void tune_sort_pdl(int n) {
  typedef mergesort_policy<sizeof(K), HAS_V ? (int)sizeof(V) : 0> P;
  sort_data<K, V> d(n);
  for (int pass = 0; pass < 3; ++pass)
    for (int early = 1; early >= 0; --early) {
      double ms = time_ms(
          [&] {
            CHECK(cudaMemcpyAsync(d.keys, d.src, sizeof(K) * n,
                                  cudaMemcpyDeviceToDevice, stream));
            if (HAS_V)
              CHECK(cudaMemcpyAsync(d.vals, d.vsrc, sizeof(V) * n,
                                    cudaMemcpyDeviceToDevice, stream));
          },
          [&] {
            MCHECK((mergesort_run<typename P::blocksort, typename P::pass,
                                  HAS_V>(ctx, d.keys, d.vals, n,
                                         ascending<K>(), early)));
          });
      bool ok = true;
      if (!d.have_ref) {
        CHECK(cudaMemcpy(d.ref, d.keys, sizeof(K) * n, cudaMemcpyDeviceToDevice));
        if (HAS_V)
          CHECK(cudaMemcpy(d.vref, d.vals, sizeof(V) * n, cudaMemcpyDeviceToDevice));
        d.have_ref = true;
      } else {
        ok = same_bytes(d.keys, d.ref, sizeof(K) * n) &&
             (!HAS_V || same_bytes(d.vals, d.vref, sizeof(V) * n));
      }
      if (!ok) ++failures;
      printf("sortpdl %-5s %-4s %-5s %8.4f ms%s\n", HAS_V ? "pairs" : "keys",
             sizeof(K) == 4 ? "i32" : "i64", early ? "early" : "late", ms,
             ok ? "" : "  MISMATCH");
    }
}

template <typename K, typename V> void tune_all_sort(int n) {
  sort_data<K, V> d(n);
  if (sizeof(K) == 4) {
    tune_sort<T<512, 17>, T<128, 17>, false>(d, "keys");
    tune_sort<T<256, 17>, T<128, 17>, false>(d, "keys");
    tune_sort<T<512, 23>, T<128, 23>, false>(d, "keys");
    tune_sort<T<256, 23>, T<128, 23>, false>(d, "keys");
    d.have_ref = false;
    tune_sort<T<512, 11>, T<128, 11>, true>(d, "pairs");
    tune_sort<T<256, 11>, T<128, 11>, true>(d, "pairs");
    tune_sort<T<256, 17>, T<128, 17>, true>(d, "pairs");
  } else {
    tune_sort<T<256, 15>, T<128, 15>, false>(d, "keys");
    tune_sort<T<512, 11>, T<128, 11>, false>(d, "keys");
    d.have_ref = false;
    tune_sort<T<256, 11>, T<128, 11>, true>(d, "pairs");
    tune_sort<T<256, 7>, T<128, 7>, true>(d, "pairs");
  }
}

/* serial_set_op keeps one bit per slot in 32-bit words: VT <= 32. */
template <typename P, bool HAS_V, bool LBW = false, typename K, typename V>
void tune_setop_ops(setop_data<K, V> &d, const char *what) {
  static_assert(P::VT <= 32, "serial_set_op keeps a slot per bit");
  tune_setop<P, HAS_V, false, LBW>(d, MGPU_SET_INTERSECTION, what);
  tune_setop<P, HAS_V, false, LBW>(d, MGPU_SET_UNION, what);
}

/* Values staged in shared memory (what union and symmetric difference of
 * 4-byte pairs use); the reference is still the first candidate. */
template <typename P, bool LBW = false, typename K, typename V>
void tune_setop_staged(setop_data<K, V> &d) {
  tune_setop<P, true, true, LBW>(d, MGPU_SET_INTERSECTION, "stage");
  tune_setop<P, true, true, LBW>(d, MGPU_SET_UNION, "stage");
}

template <int NT, int VT, int MB = 1> using I = intersection_policy<NT, VT, MB>;

/* Intersections with kept[] halved (intersection_policy): more tiles a SM.
 * The policy's tiles first, as the reference. */
template <typename K, typename V> void tune_setop_half(int n) {
  setop_data<K, V> d(n);
  setop_opt = {50, true, true, 0, 0};
  const mgpu_setop_kind x = MGPU_SET_INTERSECTION;
  if constexpr (sizeof(K) == 8) {
    for (int pass = 0; pass < 2; ++pass) {
      tune_setop<T<128, 31, 5>, false, false, true>(d, x, "keys");
      tune_setop<I<128, 31, 6>, false, false, true>(d, x, "keysH");
      tune_setop<I<128, 31, 5>, false, false, true>(d, x, "keysH");
    }
    d.reset_refs();
    for (int pass = 0; pass < 2; ++pass) {
      tune_setop<T<128, 23, 6>, true, false, false>(d, x, "pairs");
      tune_setop<I<128, 23, 7>, true, false, false>(d, x, "pairH");
      tune_setop<I<128, 31, 5>, true, false, false>(d, x, "pairH");
    }
  } else {
    for (int pass = 0; pass < 2; ++pass) {
      tune_setop<T<256, 31, 4>, false, false, true>(d, x, "keys");
      tune_setop<I<256, 31, 5>, false, false, true>(d, x, "keysH");
      tune_setop<I<224, 31, 6>, false, false, true>(d, x, "keysH");
      tune_setop<I<192, 31, 7>, false, false, true>(d, x, "keysH");
      tune_setop<I<256, 31, 4>, false, false, true>(d, x, "keysH");
      tune_setop<I<256, 27, 5>, false, false, true>(d, x, "keysH");
      tune_setop<I<128, 31, 10>, false, false, true>(d, x, "keysH");
    }
    d.reset_refs();
    for (int pass = 0; pass < 2; ++pass) {
      tune_setop<T<256, 23, 5>, true, false, true>(d, x, "pairs");
      tune_setop<I<256, 31, 5>, true, false, true>(d, x, "pairH");
      tune_setop<I<224, 31, 6>, true, false, true>(d, x, "pairH");
      tune_setop<I<192, 31, 7>, true, false, true>(d, x, "pairH");
      tune_setop<I<256, 27, 5>, true, false, true>(d, x, "pairH");
      tune_setop<I<256, 23, 6>, true, false, true>(d, x, "pairH");
      tune_setop<I<256, 23, 5>, true, false, true>(d, x, "pairH");
    }
  }
}

template <int NT, int VT, int MB, int HOLD>
using H = held_policy<NT, VT, MB, HOLD>;
template <int NT, int VT, int MB, int HOLD>
using HI = held_intersection_policy<NT, VT, MB, HOLD>;

/* setop_held_kernel (persistent blocks, output held in registers) against
 * the policy's tiles, which come first as the references; "h8" etc. name
 * HOLD, the outputs a thread holds. */
template <typename K, typename V> void tune_setop_held(int n) {
  setop_data<K, V> d(n);
  setop_opt = {50, true, true, 0, 0};
  const mgpu_setop_kind x = MGPU_SET_INTERSECTION, u = MGPU_SET_UNION,
                        df = MGPU_SET_DIFFERENCE;
  for (int pass = 0; pass < 2; ++pass) {
    tune_setop<I<256, 31, 5>, false, false, true>(d, x, "keys");
    tune_setop<HI<256, 31, 4, 8>, false, false, true>(d, x, "h8");
    tune_setop<T<256, 31, 4>, false, false, true>(d, df, "keys");
    tune_setop<H<256, 31, 4, 10>, false, false, true>(d, df, "h10");
    tune_setop<T<256, 31, 4>, false, false, true>(d, u, "keys");
    tune_setop<H<256, 19, 4, 16>, false, false, true>(d, u, "h16");
  }
  d.reset_refs();
  for (int pass = 0; pass < 2; ++pass) {
    tune_setop<I<256, 31, 5>, true, false, true>(d, x, "pairs");
    tune_setop<HI<256, 31, 4, 8>, true, false, true>(d, x, "h8");
    tune_setop<T<256, 23, 5>, true, false, true>(d, df, "pairs");
    tune_setop<H<256, 23, 4, 8>, true, false, true>(d, df, "h8");
    /* about half the tiles over HOLD: the fallback mixed with holding */
    tune_setop<H<256, 27, 4, 8>, true, false, true>(d, df, "h8");
  }
}

template <int NT, int VT, int MB = 1, int PM = 500>
using R = rounds_policy<NT, VT, MB, PM>;

/* Union and symmetric difference in tiles whose kept list is just longer
 * than they usually emit (~80% and ~60% of a tile), so that a fifth tile
 * fits an SM without a second round. */
/* After cub's scan storage left the look-back-warp tiles: the tiles of
 * 45,664 bytes that ran four an SM in rounds2, against rounds2's picks
 * (first, the references). */
template <typename K, typename V> void tune_setop_rounds3(int n) {
  setop_data<K, V> d(n);
  setop_opt = {50, true, true, 0, 0};
  const mgpu_setop_kind u = MGPU_SET_UNION, sd = MGPU_SET_SYMMETRIC_DIFFERENCE;
  for (int pass = 0; pass < 2; ++pass) {
    tune_setop<R<256, 27, 5, 850>, false, false, true>(d, u, "r850");
    tune_setop<R<256, 29, 5, 850>, false, false, true>(d, u, "r850");
    tune_setop<R<256, 29, 5, 700>, false, false, true>(d, sd, "r700");
    tune_setop<R<256, 31, 5, 667>, false, false, true>(d, sd, "r667");
  }
}

template <typename K, typename V> void tune_setop_rounds2(int n) {
  setop_data<K, V> d(n);
  setop_opt = {50, true, true, 0, 0};
  const mgpu_setop_kind u = MGPU_SET_UNION, sd = MGPU_SET_SYMMETRIC_DIFFERENCE;
  for (int pass = 0; pass < 2; ++pass) {
    tune_setop<T<256, 31, 4>, false, false, true>(d, u, "keys");
    tune_setop<R<256, 29, 5, 850>, false, false, true>(d, u, "r850");
    tune_setop<R<256, 27, 5, 850>, false, false, true>(d, u, "r850");
    tune_setop<T<256, 31, 4>, false, false, true>(d, sd, "keys");
    tune_setop<R<256, 31, 5, 667>, false, false, true>(d, sd, "r667");
    tune_setop<R<256, 29, 5, 700>, false, false, true>(d, sd, "r700");
  }
}

/* Tiles whose kept list holds half the tile and is stored in rounds
 * (rounds_policy) against the policy's tiles, which come first as the
 * references: union, symmetric difference and difference. */
template <typename K, typename V> void tune_setop_rounds(int n) {
  setop_data<K, V> d(n);
  setop_opt = {50, true, true, 0, 0};
  const mgpu_setop_kind u = MGPU_SET_UNION, sd = MGPU_SET_SYMMETRIC_DIFFERENCE,
                        df = MGPU_SET_DIFFERENCE;
  for (int pass = 0; pass < 2; ++pass) {
    for (mgpu_setop_kind op : {u, sd, df}) {
      tune_setop<T<256, 31, 4>, false, false, true>(d, op, "keys");
      tune_setop<R<256, 31, 5>, false, false, true>(d, op, "rnd");
      tune_setop<R<256, 31, 4>, false, false, true>(d, op, "rnd");
    }
    tune_setop<H<256, 31, 4, 10>, false, false, true>(d, df, "h10");
  }
  d.reset_refs();
  for (int pass = 0; pass < 2; ++pass) {
    for (mgpu_setop_kind op : {u, sd}) {
      tune_setop<T<128, 31, 5>, true, true, true>(d, op, "stage");
      tune_setop<R<128, 31, 6>, true, true, true>(d, op, "rstg");
    }
    tune_setop<T<256, 23, 5>, true, false, true>(d, df, "pairs");
    tune_setop<R<256, 31, 5>, true, false, true>(d, df, "rnd");
  }
}

template <typename P> using E = early_values_policy<P>;

/* Values of intersections and differences of pairs gathered while the tile
 * waits for its place (E<...>) against gathered as they are stored (first,
 * the references), in the tiles and held tiles the policy uses for them. */
template <typename K, typename V> void tune_setop_early(int n) {
  setop_data<K, V> d(n);
  setop_opt = {50, true, true, 0, 0};
  const mgpu_setop_kind x = MGPU_SET_INTERSECTION, df = MGPU_SET_DIFFERENCE;
  for (int pass = 0; pass < 2; ++pass) {
    tune_setop<I<256, 31, 5>, true, false, true>(d, x, "pairs");
    tune_setop<E<I<256, 31, 5>>, true, false, true>(d, x, "early");
    tune_setop<HI<256, 31, 4, 8>, true, false, true>(d, x, "h8");
    tune_setop<E<HI<256, 31, 4, 8>>, true, false, true>(d, x, "h8e");
    tune_setop<R<256, 31, 5>, true, false, true>(d, df, "pairs");
    tune_setop<E<R<256, 31, 5>>, true, false, true>(d, df, "early");
    tune_setop<H<256, 23, 4, 8>, true, false, true>(d, df, "h8");
    tune_setop<E<H<256, 23, 4, 8>>, true, false, true>(d, df, "h8e");
  }
}

template <typename P, int N> using EO = early_outputs_policy<P, N>;

/* Outputs read into registers while the tile waits for its place
 * (EO<..., N>: N a thread) against read as they are stored (first, the
 * references), in the policy's tiles for keys and staged pairs; then early
 * values for 8-byte pairs, which need the look-back warp. */
template <typename K, typename V> void tune_setop_loaded(int n) {
  setop_data<K, V> d(n);
  setop_opt = {50, true, true, 0, 0};
  const mgpu_setop_kind x = MGPU_SET_INTERSECTION, u = MGPU_SET_UNION,
                        df = MGPU_SET_DIFFERENCE,
                        sd = MGPU_SET_SYMMETRIC_DIFFERENCE;
  if (sizeof(K) == 4) {
    for (int pass = 0; pass < 2; ++pass) {
      tune_setop<R<256, 29, 5, 850>, false, false, true>(d, u, "keys");
      tune_setop<EO<R<256, 29, 5, 850>, 8>, false, false, true>(d, u, "eo8");
      tune_setop<EO<R<256, 29, 5, 850>, 16>, false, false, true>(d, u, "eo16");
      tune_setop<R<256, 31, 5, 667>, false, false, true>(d, sd, "keys");
      tune_setop<EO<R<256, 31, 5, 667>, 8>, false, false, true>(d, sd, "eo8");
      tune_setop<EO<R<256, 31, 5, 667>, 16>, false, false, true>(d, sd, "eo16");
      tune_setop<I<256, 31, 5>, false, false, true>(d, x, "keys");
      tune_setop<EO<I<256, 31, 5>, 4>, false, false, true>(d, x, "eo4");
      tune_setop<R<256, 31, 5>, false, false, true>(d, df, "keys");
      tune_setop<EO<R<256, 31, 5>, 4>, false, false, true>(d, df, "eo4");
    }
    d.reset_refs();
    for (int pass = 0; pass < 2; ++pass) {
      for (mgpu_setop_kind op : {u, sd}) {
        tune_setop<T<128, 31, 5>, true, true, true>(d, op, "stage");
        tune_setop<EO<T<128, 31, 5>, 8>, true, true, true>(d, op, "eo8");
        tune_setop<EO<T<128, 31, 5>, 16>, true, true, true>(d, op, "eo16");
        tune_setop<EO<T<128, 31, 5>, 24>, true, true, true>(d, op, "eo24");
      }
    }
  } else {
    d.reset_refs();
    for (int pass = 0; pass < 2; ++pass) {
      for (mgpu_setop_kind op : {x, df}) {
        tune_setop<T<128, 23, 6>, true, false, false>(d, op, "pairs");
        tune_setop<T<128, 23, 6>, true, false, true>(d, op, "pairs");
        tune_setop<E<T<128, 23, 6>>, true, false, true>(d, op, "early");
      }
    }
  }
}

/* Union and symmetric difference with outputs loaded early: the policy's
 * tiles first (the references), then other tile shapes, loads a thread
 * and prefetch distances. */
template <typename K, typename V> void tune_setop_union(int n) {
  setop_data<K, V> d(n);
  const mgpu_setop_kind u = MGPU_SET_UNION, sd = MGPU_SET_SYMMETRIC_DIFFERENCE;
  for (int pass = 0; pass < 2; ++pass) {
    setop_opt = {50, true, true, 0, 0};
    tune_setop<EO<R<256, 29, 5, 850>, 8>, false, false, true>(d, u, "eo8");
    tune_setop<EO<R<256, 27, 5, 850>, 8>, false, false, true>(d, u, "eo8");
    tune_setop<EO<R<256, 29, 5, 850>, 12>, false, false, true>(d, u, "eo12");
    tune_setop<EO<R<256, 31, 5, 667>, 8>, false, false, true>(d, sd, "eo8");
    tune_setop<EO<R<256, 29, 5, 700>, 8>, false, false, true>(d, sd, "eo8");
    for (int pf : {35, 70}) {
      setop_opt.prefetch_percent = pf;
      tune_setop<EO<R<256, 29, 5, 850>, 8>, false, false, true>(d, u, "eo8");
    }
    /* and keys intersection, the policy's tile at those distances */
    for (int pf : {50, 35, 70}) {
      setop_opt.prefetch_percent = pf;
      tune_setop<I<256, 31, 5>, false, false, true>(d, MGPU_SET_INTERSECTION,
                                                     "keys");
    }
  }
  d.reset_refs();
  for (int pass = 0; pass < 2; ++pass) {
    for (mgpu_setop_kind op : {u, sd}) {
      setop_opt = {50, true, true, 0, 0};
      tune_setop<EO<T<128, 31, 5>, 16>, true, true, true>(d, op, "eo16");
      tune_setop<EO<T<128, 27, 6>, 8>, true, true, true>(d, op, "eo8");
      tune_setop<EO<T<128, 27, 6>, 12>, true, true, true>(d, op, "eo12");
      tune_setop<EO<T<128, 23, 7>, 12>, true, true, true>(d, op, "eo12");
      for (int pf : {35, 70}) {
        setop_opt.prefetch_percent = pf;
        tune_setop<EO<T<128, 31, 5>, 16>, true, true, true>(d, op, "eo16");
      }
    }
  }
  setop_opt = {50, true, true, 0, 0};
}

/* 8-byte pairs union and symmetric difference (values gathered): warp 0
 * looking back (the policy, first: the reference), the look-back warp,
 * and outputs (with their values) loaded early, EO<..., N>. */
template <typename K, typename V> void tune_setop_loaded8(int n) {
  setop_data<K, V> d(n);
  setop_opt = {50, true, true, 0, 0};
  const mgpu_setop_kind u = MGPU_SET_UNION, sd = MGPU_SET_SYMMETRIC_DIFFERENCE;
  for (int pass = 0; pass < 2; ++pass) {
    for (mgpu_setop_kind op : {u, sd}) {
      tune_setop<T<128, 23, 6>, true, false, false>(d, op, "pairs");
      tune_setop<T<128, 23, 6>, true, false, true>(d, op, "pairs");
      tune_setop<EO<T<128, 23, 6>, 4>, true, false, true>(d, op, "eo4");
      tune_setop<EO<T<128, 23, 6>, 8>, true, false, true>(d, op, "eo8");
    }
  }
}

/* 8-byte pairs union and symmetric difference: the library's tile (keys
 * in shared memory, values gathered, the first 8 a thread during the wait;
 * first, the reference) against staged tiles, whose values come by bulk
 * copy with the keys as the 4-byte pairs' do, at the policy's prefetch
 * and the 4-byte wide calls' 35%. */
template <typename K, typename V> void tune_setop_stage8(int n) {
  setop_data<K, V> d(n);
  typedef setop_policy<sizeof(K), sizeof(V)> SP;
  const mgpu_setop_kind u = MGPU_SET_UNION, sd = MGPU_SET_SYMMETRIC_DIFFERENCE;
  for (int pass = 0; pass < 2; ++pass)
    for (int pf : {50, 35}) {
      setop_opt = {pf, true, true, 0, SP::direct_points};
      printf("prefetch %d%%\n", pf);
      tune_setop<typename SP::union_tile, true, false, true>(d, u, "lib");
      tune_setop<EO<T<128, 15, 6>, 8>, true, true, true>(d, u, "s15/6");
      tune_setop<EO<T<128, 19, 5>, 8>, true, true, true>(d, u, "s19/5");
      tune_setop<EO<T<128, 23, 4>, 8>, true, true, true>(d, u, "s23/4");
      tune_setop<EO<T<128, 11, 8>, 4>, true, true, true>(d, u, "s11/8");
      tune_setop<EO<T<128, 15, 6>, 4>, true, true, true>(d, u, "s15/6e4");
      tune_setop<typename SP::symmetric_difference_tile, true, false, true>(
          d, sd, "lib");
      tune_setop<EO<T<128, 15, 6>, 8>, true, true, true>(d, sd, "s15/6");
      tune_setop<EO<T<128, 19, 5>, 8>, true, true, true>(d, sd, "s19/5");
      tune_setop<EO<T<128, 23, 4>, 8>, true, true, true>(d, sd, "s23/4");
      tune_setop<EO<R<128, 19, 6, 700>, 8>, true, true, true>(d, sd, "r19/6");
    }
  setop_opt = {50, true, true, 0, 0};
}

/* stage8's best (128 x 23, four an SM) against longer and wider staged
 * tiles three an SM, and other numbers of outputs read early; at 2^20 and
 * 2^22 it also says where staging stops paying. */
template <typename K, typename V> void tune_setop_stage8b(int n) {
  setop_data<K, V> d(n);
  typedef setop_policy<sizeof(K), sizeof(V)> SP;
  const mgpu_setop_kind u = MGPU_SET_UNION, sd = MGPU_SET_SYMMETRIC_DIFFERENCE;
  setop_opt = {SP::prefetch, true, true, 0, SP::direct_points};
  for (int pass = 0; pass < 2; ++pass) {
    tune_setop<typename SP::union_tile, true, false, true>(d, u, "lib");
    tune_setop<EO<T<128, 23, 4>, 8>, true, true, true>(d, u, "s23/4");
    tune_setop<EO<T<128, 23, 4>, 4>, true, true, true>(d, u, "s23/4e4");
    tune_setop<EO<T<128, 23, 4>, 12>, true, true, true>(d, u, "s23/4e12");
    tune_setop<EO<T<128, 31, 3>, 8>, true, true, true>(d, u, "s31/3");
    tune_setop<EO<T<128, 31, 3>, 16>, true, true, true>(d, u, "s31/3e16");
    tune_setop<EO<T<256, 15, 3>, 8>, true, true, true>(d, u, "s256x15/3");
    tune_setop<typename SP::symmetric_difference_tile, true, false, true>(
        d, sd, "lib");
    tune_setop<EO<T<128, 23, 4>, 8>, true, true, true>(d, sd, "s23/4");
    tune_setop<EO<T<128, 23, 4>, 4>, true, true, true>(d, sd, "s23/4e4");
    tune_setop<EO<R<128, 25, 4, 700>, 8>, true, true, true>(d, sd, "r25/4");
    tune_setop<EO<T<128, 31, 3>, 8>, true, true, true>(d, sd, "s31/3");
  }
  setop_opt = {50, true, true, 0, 0};
}

/* The staged tiles stage8b chose (union 128 x 31 / 3 with 16 outputs read
 * early, symmetric difference with 8) against the library's gathered
 * tiles, three passes, for the size rule. */
template <typename K, typename V> void tune_setop_stage8c(int n) {
  setop_data<K, V> d(n);
  typedef setop_policy<sizeof(K), sizeof(V)> SP;
  const mgpu_setop_kind u = MGPU_SET_UNION, sd = MGPU_SET_SYMMETRIC_DIFFERENCE;
  setop_opt = {SP::prefetch, true, true, 0, SP::direct_points};
  for (int pass = 0; pass < 3; ++pass) {
    tune_setop<typename SP::union_tile, true, false, true>(d, u, "lib");
    tune_setop<EO<T<128, 31, 3>, 16>, true, true, true>(d, u, "s31/3e16");
    tune_setop<typename SP::symmetric_difference_tile, true, false, true>(
        d, sd, "lib");
    tune_setop<EO<T<128, 31, 3>, 8>, true, true, true>(d, sd, "s31/3");
  }
  setop_opt = {50, true, true, 0, 0};
}

/* 4-byte pairs union and symmetric difference: the staged tile (first,
 * the reference) against tiles that hold only keys and gather the values
 * (the first N a thread during the wait, EO<..., N>), and staged tiles
 * six an SM.  (Values asked of L2 ahead of their gathers, with the keys of
 * the tile ahead or as the tile starts, were slower still: e71db59.) */
template <typename K, typename V> void tune_setop_gunion(int n) {
  setop_data<K, V> d(n);
  setop_opt = {50, true, true, 0, 0};
  const mgpu_setop_kind u = MGPU_SET_UNION, sd = MGPU_SET_SYMMETRIC_DIFFERENCE;
  for (int pass = 0; pass < 2; ++pass) {
    tune_setop<EO<T<128, 31, 5>, 16>, true, true, true>(d, u, "eo16");
    tune_setop<EO<R<256, 29, 5, 850>, 4>, true, false, true>(d, u, "g4");
    tune_setop<EO<R<256, 29, 5, 850>, 8>, true, false, true>(d, u, "g8");
    tune_setop<EO<R<128, 29, 6, 850>, 16>, true, true, true>(d, u, "r16");
    tune_setop<EO<T<128, 31, 5>, 16>, true, true, true>(d, sd, "eo16");
    tune_setop<EO<R<256, 31, 5, 667>, 8>, true, false, true>(d, sd, "g8");
    tune_setop<EO<R<128, 29, 6, 700>, 16>, true, true, true>(d, sd, "r16");
  }
}

template <typename P, int U> using SU = unrolled_store_policy<P, U>;

/* Stores of U outputs a thread at a time (SU<..., U>) against one at a
 * time, in the policy's tiles (first, the references). */
template <typename K, typename V> void tune_setop_ustore(int n) {
  setop_data<K, V> d(n);
  setop_opt = {50, true, true, 0, 0};
  const mgpu_setop_kind x = MGPU_SET_INTERSECTION, u = MGPU_SET_UNION,
                        df = MGPU_SET_DIFFERENCE,
                        sd = MGPU_SET_SYMMETRIC_DIFFERENCE;
  for (int pass = 0; pass < 2; ++pass) {
    tune_setop<EO<R<256, 29, 5, 850>, 8>, false, false, true>(d, u, "eo8");
    tune_setop<SU<EO<R<256, 29, 5, 850>, 8>, 2>, false, false, true>(d, u, "su2");
    tune_setop<SU<EO<R<256, 29, 5, 850>, 8>, 4>, false, false, true>(d, u, "su4");
    tune_setop<EO<R<256, 31, 5, 667>, 8>, false, false, true>(d, sd, "eo8");
    tune_setop<SU<EO<R<256, 31, 5, 667>, 8>, 4>, false, false, true>(d, sd, "su4");
    tune_setop<I<256, 31, 5>, false, false, true>(d, x, "keys");
    tune_setop<SU<I<256, 31, 5>, 4>, false, false, true>(d, x, "su4");
    tune_setop<R<256, 31, 5>, false, false, true>(d, df, "keys");
    tune_setop<SU<R<256, 31, 5>, 4>, false, false, true>(d, df, "su4");
  }
  d.reset_refs();
  for (int pass = 0; pass < 2; ++pass) {
    tune_setop<EO<T<128, 31, 5>, 16>, true, true, true>(d, u, "eo16");
    tune_setop<SU<EO<T<128, 31, 5>, 16>, 4>, true, true, true>(d, u, "su4");
    tune_setop<E<I<256, 31, 5>>, true, false, true>(d, x, "early");
    tune_setop<SU<E<I<256, 31, 5>>, 4>, true, false, true>(d, x, "su4");
    tune_setop<E<R<256, 31, 5>>, true, false, true>(d, df, "early");
    tune_setop<SU<E<R<256, 31, 5>>, 4>, true, false, true>(d, df, "su4");
  }
}

template <typename P> using AL = aligned_store_policy<P>;

/* Outputs stored in whole 128-byte lines (AL<...>) against the policy's
 * tiles at 2^26 (first, the references), and without the outputs read
 * early, whose stores cannot be aligned (the base is not known yet). */
template <typename K, typename V> void tune_setop_align(int n) {
  setop_data<K, V> d(n);
  setop_opt = {50, true, true, 0, 0};
  const mgpu_setop_kind u = MGPU_SET_UNION, df = MGPU_SET_DIFFERENCE,
                        sd = MGPU_SET_SYMMETRIC_DIFFERENCE;
  for (int pass = 0; pass < 2; ++pass) {
    tune_setop<SU<EO<R<256, 29, 5, 850>, 8>, 2>, false, false, true>(d, u, "pol");
    tune_setop<AL<SU<R<256, 29, 5, 850>, 2>>, false, false, true>(d, u, "al-eo");
    tune_setop<AL<R<256, 29, 5, 850>>, false, false, true>(d, u, "al1");
    tune_setop<AL<SU<R<256, 29, 5, 850>, 4>>, false, false, true>(d, u, "al4");
    tune_setop<AL<SU<EO<R<256, 29, 5, 850>, 4>, 2>>, false, false, true>(d, u, "al-eo4");
    tune_setop<AL<SU<R<256, 27, 5, 850>, 2>>, false, false, true>(d, u, "al-eo");
    tune_setop<EO<R<256, 31, 5, 667>, 8>, false, false, true>(d, sd, "pol");
    tune_setop<AL<EO<R<256, 31, 5, 667>, 8>>, false, false, true>(d, sd, "al");
    tune_setop<AL<R<256, 31, 5, 667>>, false, false, true>(d, sd, "al-eo");
    tune_setop<AL<SU<R<256, 31, 5, 667>, 2>>, false, false, true>(d, sd, "al-eo2");
    tune_setop<R<256, 31, 5>, false, false, true>(d, df, "pol");
    tune_setop<AL<R<256, 31, 5>>, false, false, true>(d, df, "al");
  }
  d.reset_refs();
  for (int pass = 0; pass < 2; ++pass) {
    tune_setop<EO<T<128, 31, 5>, 16>, true, true, true>(d, u, "pol");
    tune_setop<SU<EO<T<128, 31, 5>, 16>, 2>, true, true, true>(d, u, "su2");
    tune_setop<AL<SU<T<128, 31, 5>, 2>>, true, true, true>(d, u, "al-eo2");
    tune_setop<EO<R<128, 29, 6, 700>, 16>, true, true, true>(d, sd, "pol");
    tune_setop<AL<EO<R<128, 29, 6, 700>, 16>>, true, true, true>(d, sd, "al");
    tune_setop<AL<R<128, 29, 6, 700>>, true, true, true>(d, sd, "al-eo");
    tune_setop<E<R<256, 31, 5>>, true, false, true>(d, df, "pol");
    tune_setop<AL<E<R<256, 31, 5>>>, true, false, true>(d, df, "al");
  }
}

/* The same for 8-byte keys and pairs, in the policy's tiles. */
template <typename K, typename V> void tune_setop_align8(int n) {
  setop_data<K, V> d(n);
  setop_opt = {50, true, true, 0, 0};
  const mgpu_setop_kind x = MGPU_SET_INTERSECTION, u = MGPU_SET_UNION,
                        df = MGPU_SET_DIFFERENCE,
                        sd = MGPU_SET_SYMMETRIC_DIFFERENCE;
  for (int pass = 0; pass < 2; ++pass) {
    for (mgpu_setop_kind op : {u, sd, df}) {
      tune_setop<T<128, 31, 5>, false, false, true>(d, op, "pol");
      tune_setop<AL<T<128, 31, 5>>, false, false, true>(d, op, "al");
    }
    tune_setop<I<128, 31, 6>, false, false, true>(d, x, "pol");
    tune_setop<AL<I<128, 31, 6>>, false, false, true>(d, x, "al");
  }
  d.reset_refs();
  for (int pass = 0; pass < 2; ++pass) {
    for (mgpu_setop_kind op : {u, sd}) {
      tune_setop<EO<T<128, 23, 6>, 8>, true, false, true>(d, op, "pol");
      tune_setop<AL<EO<T<128, 23, 6>, 8>>, true, false, true>(d, op, "al");
      tune_setop<AL<T<128, 23, 6>>, true, false, false>(d, op, "al-eo");
    }
    tune_setop<E<T<128, 23, 6>>, true, false, true>(d, df, "pol");
    tune_setop<AL<E<T<128, 23, 6>>>, true, false, true>(d, df, "al");
  }
}

/* Staged 4-byte pairs union in tiles of 256 threads (shorter walks, as
 * many inputs a tile) against the policy's 128 x 31 / 5 (first, the
 * reference), with early outputs, or aligned stores two at a time. */
template <typename K, typename V> void tune_setop_sunion(int n) {
  setop_data<K, V> d(n);
  setop_opt = {50, true, true, 0, 0};
  const mgpu_setop_kind u = MGPU_SET_UNION;
  for (int pass = 0; pass < 2; ++pass) {
    tune_setop<EO<T<128, 31, 5>, 16>, true, true, true>(d, u, "pol");
    tune_setop<T<256, 15, 5>, true, true, true>(d, u, "s");
    tune_setop<EO<T<256, 15, 5>, 8>, true, true, true>(d, u, "eo8");
    tune_setop<AL<SU<T<256, 15, 5>, 2>>, true, true, true>(d, u, "al2");
    tune_setop<EO<R<256, 17, 5, 850>, 8>, true, true, true>(d, u, "eo8");
    tune_setop<AL<SU<R<256, 17, 5, 850>, 2>>, true, true, true>(d, u, "al2");
    tune_setop<EO<T<256, 13, 6>, 8>, true, true, true>(d, u, "eo8");
    tune_setop<AL<SU<T<256, 13, 6>, 2>>, true, true, true>(d, u, "al2");
  }
}

/* Staged union and symmetric difference in setop_parked_kernel (output
 * parked in shared memory of its own), against the library's tiles; the
 * wide calls' prefetch and stride where the library takes them. */
template <int NT, int VT, int MB> using PK = parked_policy<NT, VT, MB>;
template <typename K, typename V> void tune_setop_parked(int n) {
  setop_data<K, V> d(n);
  typedef setop_policy<sizeof(K), sizeof(V)> SP;
  const mgpu_setop_kind un = MGPU_SET_UNION, sd = MGPU_SET_SYMMETRIC_DIFFERENCE;
  const bool wide = n >= (1 << 26);
  setop_opt = {wide ? 35 : 50, true, true, 0, setop_policy<sizeof(K), 0>::direct_points};
  const auto all = [&](auto stride) {
    constexpr int S = decltype(stride)::value;
    tune_setop<typename SP::staged, true, true, true, S>(d, un, "pol");
    tune_setop<PK<256, 15, 3>, true, true, true, S>(d, un, "pk");
    tune_setop<PK<128, 31, 3>, true, true, true, S>(d, un, "pk");
    tune_setop<PK<256, 11, 4>, true, true, true, S>(d, un, "pk");
    tune_setop<PK<320, 11, 3>, true, true, true, S>(d, un, "pk");
    tune_setop<PK<192, 19, 3>, true, true, true, S>(d, un, "pk");
    tune_setop<typename SP::staged_symmetric_difference, true, true, true, S>(d, sd, "pol");
    tune_setop<PK<256, 15, 3>, true, true, true, S>(d, sd, "pk");
    tune_setop<PK<128, 31, 3>, true, true, true, S>(d, sd, "pk");
  };
  for (int pass = 0; pass < 2; ++pass) {
    if (wide)
      all(std::integral_constant<int, 1024>());
    else
      all(std::integral_constant<int, 512>());
  }
  setop_opt = {50, true, true, 0, 0};
}

/* How far ahead (percent of a wave) intersections and differences prefetch,
 * the policy's 50 first (the reference), and with samples every 1024 keys. */
/* Prefetch distance and sample stride per operation (eighteenth round):
 * each operation's library tile (held where use_held takes it), direct
 * points as in the library, the policy's 50% / 512 first. */
template <typename H, typename P, bool HAS_V, bool STAGE_V, int S,
          typename K, typename V>
void tune_setop_lib(setop_data<K, V> &d, mgpu_setop_kind op, const char *what) {
  bool held = false;
  if constexpr (H::HOLD > 0) {
    mgpu_setop_args m;
    memset(&m, 0, sizeof m);
    m.na = (size_t)d.na;
    m.nb = (size_t)d.nb;
    MCHECK((use_held<H, HAS_V, K, V, ascending<K>>(ctx, &m, &held)));
    if (held) tune_setop<H, HAS_V, STAGE_V, true, S>(d, op, what);
  }
  if (!held) tune_setop<P, HAS_V, STAGE_V, true, S>(d, op, what);
}

template <typename K, typename V> void tune_setop_xop(int n) {
  setop_data<K, V> d(n);
  typedef setop_policy<sizeof(K), 0> KP;
  typedef setop_policy<sizeof(K), sizeof(V)> SP;
  const mgpu_setop_kind x = MGPU_SET_INTERSECTION, df = MGPU_SET_DIFFERENCE,
                        un = MGPU_SET_UNION,
                        sd = MGPU_SET_SYMMETRIC_DIFFERENCE;
  const int dp = KP::direct_points;
  for (int v : {0, 1}) {
    for (int pass = 0; pass < 2; ++pass) {
      for (int c = 0; c < 5; ++c) {
        static const int pfs[5] = {50, 35, 50, 35, 25};
        const int pf = pfs[c];
        const bool wide = c >= 2;
        setop_opt = {pf, true, true, 0, dp};
        char what[16];
        snprintf(what, sizeof what, "%d/%d", pf, wide ? 1024 : 512);
        /* every operation's library tile, samples every S keys */
        const auto all = [&](auto stride) {
          constexpr int S = decltype(stride)::value;
          if (v) {
            tune_setop_lib<typename SP::held_intersection,
                           typename SP::intersection, true, false, S>(d, x, what);
            tune_setop_lib<typename SP::held_difference,
                           typename SP::difference, true, false, S>(d, df, what);
            tune_setop_lib<no_held_policy, typename SP::staged, true, true, S>(
                d, un, what);
            tune_setop_lib<no_held_policy,
                           typename SP::staged_symmetric_difference, true, true,
                           S>(d, sd, what);
          } else {
            tune_setop_lib<typename KP::held_intersection,
                           typename KP::intersection, false, false, S>(d, x,
                                                                       what);
            tune_setop_lib<typename KP::held_difference,
                           typename KP::difference, false, false, S>(d, df,
                                                                     what);
            tune_setop_lib<no_held_policy, typename KP::union_tile, false, false,
                           S>(d, un, what);
            tune_setop_lib<no_held_policy,
                           typename KP::symmetric_difference_tile, false, false,
                           S>(d, sd, what);
          }
        };
        if (wide)
          all(std::integral_constant<int, 1024>());
        else
          all(std::integral_constant<int, 512>());
      }
    }
    d.reset_refs();
  }
  setop_opt = {50, true, true, 0, 0};
}

/* The staged pairs' prefetch distance again, after the group sums
 * (thirty-seventh round): % of a wave, samples every wide_stride keys. */
template <typename K, typename V> void tune_setop_pfu(int n) {
  setop_data<K, V> d(n);
  typedef setop_policy<sizeof(K), sizeof(V)> SP;
  constexpr int S = SP::wide_stride ? SP::wide_stride : kSetopSampleStride;
  for (int pass = 0; pass < 3; ++pass) {
    for (int pf : {25, 35, 45}) {
      setop_opt = {pf, true, true, 0, SP::direct_points};
      char what[16];
      snprintf(what, sizeof what, "pf%d", pf);
      tune_setop_lib<no_held_policy, typename SP::staged, true, true, S>(
          d, MGPU_SET_UNION, what);
      tune_setop_lib<no_held_policy, typename SP::staged_symmetric_difference,
                     true, true, S>(d, MGPU_SET_SYMMETRIC_DIFFERENCE, what);
    }
  }
  setop_opt = {50, true, true, 0, 0};
}

template <typename K, typename V> void tune_setop_xpf(int n) {
  setop_data<K, V> d(n);
  typedef setop_policy<sizeof(K), 0> KP;
  typedef setop_policy<sizeof(K), sizeof(V)> SP;
  const mgpu_setop_kind x = MGPU_SET_INTERSECTION, df = MGPU_SET_DIFFERENCE;
  for (int v : {0, 1}) {
    for (int pass = 0; pass < 2; ++pass) {
      for (int pf : {50, 35, 25, 40}) {
        setop_opt = {pf, true, true, 0, 0};
        printf("prefetch %d\n", pf);
        if (v) {
          tune_setop<typename SP::intersection, true, false, true>(d, x, "pairs");
          tune_setop<typename SP::difference, true, false, true>(d, df, "pairs");
        } else {
          tune_setop<typename KP::intersection, false, false, true>(d, x, "keys");
          tune_setop<typename KP::difference, false, false, true>(d, df, "keys");
        }
      }
      for (int pf : {50, 35}) {
        setop_opt = {pf, true, true, 0, 0};
        printf("prefetch %d, stride 1024\n", pf);
        if (v) {
          tune_setop<typename SP::intersection, true, false, true, 1024>(d, x, "pairs");
          tune_setop<typename SP::difference, true, false, true, 1024>(d, df, "pairs");
        } else {
          tune_setop<typename KP::intersection, false, false, true, 1024>(d, x, "keys");
          tune_setop<typename KP::difference, false, false, true, 1024>(d, df, "keys");
        }
      }
    }
    d.reset_refs();
  }
  setop_opt = {50, true, true, 0, 0};
}

/* Where a call's time goes (policy tiles P, look-back warp): the whole
 * call, then its launches made here as setop_run makes them: the sample
 * gather and the partition (early, as in the call), the tile launch alone
 * (its splits and zeroed look-back words made untimed before it), and all
 * three in a row, early; an empty launch for scale. */
__global__ void empty_kernel() {}

template <typename P, bool HAS_V, bool STAGE_V, typename K, typename V>
void setop_where(setop_data<K, V> &d, mgpu_setop_kind op, int prefetch,
                 const char *what) {
  tune_setop<P, HAS_V, STAGE_V, true>(d, op, what);
  constexpr int S = kSetopSampleStride;
  typedef ascending<K> C;
  const int na = d.na, nb = d.nb;
  const int tiles = tiles_of((long long)na + nb, P::NV);
  const int groups = (tiles + 31) / 32;
  const int status_words = tiles + 2 * groups + 1;
  const int ca = samples_of(na, S), cb = samples_of(nb, S);
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int lanes = setop_partition_lanes(tiles + 1, sms, false);
  unsigned long long *status =
      device_alloc<unsigned long long>(tile_words_bytes(status_words) / 8);
  unsigned *splits = device_alloc<unsigned>(tiles + 1);
  K *sa = device_alloc<K>(ca), *sb = device_alloc<K>(cb);
  unsigned long long *host_words = nullptr;
  CHECK(cudaHostAlloc(&host_words, 2 * sizeof(unsigned long long),
                      cudaHostAllocDefault));
  auto partition = lanes == 32   ? setop_partition_kernel<S, 32, K, C>
                   : lanes == 16 ? setop_partition_kernel<S, 16, K, C>
                                 : setop_partition_kernel<S, 8, K, C>;
  const auto gather = [&] {
    gather_samples_kernel<S><<<grid_for((size_t)std::max(ca, cb), 256), 256, 0,
                               stream>>>(d.a, na, sa, d.b, nb, sb);
    CHECK(cudaGetLastError());
  };
  const auto part = [&] {
    CHECK(launch_early(true, partition,
                       setop_partition_blocks(lanes, tiles + 1),
                       kSetopPartitionThreads, 0,
                       stream, d.a, (const K *)sa, na, d.b, (const K *)sb, nb,
                       (int)P::NV, tiles + 1, true, splits, status,
                       status_words, (unsigned *)nullptr, 0, C()));
  };
  auto kernel = setop_kernel<P, HAS_V, STAGE_V, true, K, V, C>;
  const size_t smem = sizeof(setop_smem<P::NT, P::VT, STAGE_V, K, V,
                                        kept_room<P>::value, false>);
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)smem));
  unsigned long long ticket = 1000;
  const auto tile_launch = [&](bool early) {
    setop_tiles<K, V> t = {d.a, d.b, d.av, d.bv, na, nb, splits, status,
                           tile_word(status, tiles),
                           tile_word(status, tiles + groups + 1), host_words,
                           ++ticket, d.out,
                           HAS_V ? d.outv : nullptr, (long long)d.capacity,
                           set_op_keeps(op), true,
                           sms * P::MIN_BLOCKS * prefetch / 100, nullptr};
    CHECK(launch_early(early, kernel, tiles, P::NT + 32, smem, stream, t, C()));
  };
  const auto none = [] {};
  const double g = time_ms(none, gather);
  const double gp = time_ms(none, [&] { gather(); part(); });
  const double tl = time_ms([&] { gather(); part(); }, [&] { tile_launch(false); });
  const double all = time_ms(none, [&] { gather(); part(); tile_launch(true); });
  const double e = time_ms(none, [&] { empty_kernel<<<1, 32, 0, stream>>>(); });
  /* all three, and the host waiting for the ticket as wait_for_total does:
   * asking the stream after every read of the word, or after 4096 */
  const auto wait = [&](int reads) {
    for (;;) {
      for (int i = 0; i < reads; ++i)
        if (total_word_is(__atomic_load_n(host_words, __ATOMIC_ACQUIRE),
                          ticket))
          return;
      const cudaError_t q = cudaStreamQuery(stream);
      if (q != cudaErrorNotReady) {
        CHECK(q);
        if (!total_word_is(__atomic_load_n(host_words, __ATOMIC_ACQUIRE),
                           ticket)) {
          fprintf(stderr, "where: no ticket\n");
          exit(2);
        }
        return;
      }
    }
  };
  const double w1 = time_ms(none, [&] {
    gather();
    part();
    tile_launch(true);
    wait(1);
  });
  const double w4k = time_ms(none, [&] {
    gather();
    part();
    tile_launch(true);
    wait(4096);
  });
  printf("where     %-12s %-5s tiles=%d lanes=%d smem=%zu: gather %.4f ms, "
         "gather+partition %.4f, tiles alone %.4f, all three %.4f, waited 1 "
         "%.4f, waited 4096 %.4f, empty launch %.4f\n",
         setop_name(op), what, tiles, lanes, smem, g, gp, tl, all, w1, w4k, e);
  CHECK(cudaFreeHost(host_words));
  CHECK(cudaFree(status));
  CHECK(cudaFree(splits));
  CHECK(cudaFree(sa));
  CHECK(cudaFree(sb));
}

template <typename K, typename V> void tune_setop_where(int n, bool prof) {
  setop_data<K, V> d(n);
  typedef setop_policy<sizeof(K), 0> KP;
  typedef setop_policy<sizeof(K), sizeof(V)> SP;
  setop_opt = {KP::prefetch, true, true, 0, 0};
  if (prof) {
    /* for ncu: three calls of each, nothing else launched between them */
    tune_setop<typename KP::union_tile, false, false, true>(d, MGPU_SET_UNION,
                                                            "keys");
    d.reset_refs();
    setop_opt.prefetch_percent = SP::staged_prefetch;
    tune_setop<typename SP::staged, true, true, true>(d, MGPU_SET_UNION,
                                                      "stage");
    return;
  }
  setop_where<typename KP::union_tile, false, false>(d, MGPU_SET_UNION,
                                                     KP::prefetch, "keys");
  setop_where<typename KP::intersection, false, false>(
      d, MGPU_SET_INTERSECTION, KP::prefetch, "keys");
  d.reset_refs();
  setop_opt.prefetch_percent = SP::staged_prefetch;
  setop_where<typename SP::staged, true, true>(d, MGPU_SET_UNION,
                                               SP::staged_prefetch, "stage");
  setop_opt = {50, true, true, 0, 0};
}

/* ---- the staged tile's ceiling (twenty-first round) ---------------------
 * What the staged pairs union's tile could move with its shape and room,
 * timed alone on the real partition's spans (one tile a block, the
 * policy's blocks an SM; modes 0-4 without the look-back):
 *   MODE 0  the loads, then the tile's inputs stored as they lie (A's part,
 *           then B's) at a0 + b0: every byte in and out, no walk
 *   MODE 1  the same, storing the first 4/5 at 4/5 of that place (about a
 *           union's output)
 *   MODE 2  MODE 1 after the walk (its bits only fold into the count)
 *   MODE 3  the walk, scan, kept list and stores of the staged union, at
 *           4/5 of a0 + b0 (the tile without waiting for its base)
 *   MODE 4  MODE 3 at a base from one atomic add after the scan (unordered:
 *           a tile waits one round trip)
 *   MODE 5  MODE 3 with the look-back warp running the real protocol
 *           (tile_exclusive_prefix_ahead) beside it; the compute warps do
 *           not wait for its base, but the block ends with that warp
 *   MODE 7  the library's staged tile (setop_kernel, early outputs and
 *           the look-back warp), checked against the policy's output
 * (docs/TUNING.md, twenty-first round; a relay-free look-back and counts
 * found a wave ahead were modes 6 and 8 of 09e4dad.)
 * Overlapping stores between neighbouring tiles (MODE 1-3 estimate their
 * places) do not matter to a timing; every store stays below capacity. */
template <typename P, int MODE, typename K, typename V, typename Comp>
__global__ void __launch_bounds__(P::NT + 32, P::MIN_BLOCKS)
    ceil_kernel(setop_tiles<K, V> t, Comp comp) {
  constexpr int NT = P::NT, VT = P::VT, NV = P::NV;
  typedef setop_smem<NT, VT, true, K, V, NV, false> smem_t;
  auto &sm = *shared_as<smem_t>();
  const int tid = threadIdx.x, tile = blockIdx.x;
  const setop_place p = place_of_tile<NV, true>(t, tile);
  if (MODE == 5 && tid == 0) sm.count_slot = -1;
  setop_start_load<NT, true>(t, sm, p, tile, (int)gridDim.x, true);
  __syncthreads();
  if (tid >= NT) {
    if (MODE == 5) {
      long long count;
      const long long b = tile_exclusive_prefix_ahead(
          t.status, t.gstatus, t.gsum, tile, &sm.count_slot, &count);
      if (tid == NT) sm.base = b;
    }
    return;
  }
  mbarrier_wait(&sm.loaded, 0);
  const int na = p.span.na, nb = p.span.nb, n = na + nb;
  const long long at = (long long)p.span.a0 + p.span.b0;
  const long long base = MODE == 0 ? at : at - at / 5;
  if constexpr (MODE < 3) {
    int count = MODE == 0 ? n : n - n / 5;
    if constexpr (MODE == 2) {
      const setop_walk w = walk_tile<NT, VT, K>(sm, p, t.duplicates, comp,
                                                [] { named_sync(1, NT); });
      /* never true for sorted input: keeps the walk */
      count -= __popc(set_op_commit(t.keeps, w.took_a, w.took_b)) > VT;
    }
    count = (int)min((long long)count, t.capacity - base);
    mbarrier_wait(&sm.vloaded, 0); /* the values, on their own mbarrier */
    for (int i = tid; i < count; i += NT) {
      const int ks = i < na ? p.sa + i : p.sb + (i - na);
      const int vs = i < na ? p.va + i : p.vb + (i - na);
      t.out[base + i] = sm.keys[ks];
      t.outv[base + i] = sm.vals[vs];
    }
  } else {
    const setop_walk w = walk_tile<NT, VT, K>(sm, p, t.duplicates, comp,
                                              [] { named_sync(1, NT); });
    const unsigned commit = set_op_commit(t.keeps, w.took_a, w.took_b);
    int tile_count;
    const int offset = compute_exclusive_sum<NT>(__popc(commit),
                                                 sm.warp_totals, &tile_count);
    if (MODE == 4 && tid == 0)
      sm.base = (long long)atomicAdd(t.status, (unsigned long long)tile_count);
    if (MODE == 5 && tid == 0) {
      publish_count(t.status, t.gsum, tile, tile_count);
      write_count_slot(&sm.count_slot, tile_count);
    }
    list_kept<VT, NV, NV>(sm.kept, offset, commit, w);
    named_sync(1, NT);
    mbarrier_wait(&sm.vloaded, 0);
    store_kept<NT, true, true, K, V, smem_t>(t, sm, p,
                                             MODE == 4 ? sm.base : base,
                                             tile_count);
  }
}

template <typename P, int MODE, typename K, typename V>
double ceil_time(setop_data<K, V> &d, const unsigned *splits, int prefetch,
                 unsigned long long *status, int status_words) {
  typedef ascending<K> C;
  const int tiles = tiles_of((long long)d.na + d.nb, P::NV);
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  auto kernel = ceil_kernel<P, MODE, K, V, C>;
  const size_t smem = sizeof(setop_smem<P::NT, P::VT, true, K, V, P::NV, false>);
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)smem));
  /* MODE 7: the library's staged tile in P's shape (its early outputs
   * and stores, look-back warp), whose shared memory is the same
   * setop_smem */
  typedef typename setop_policy<sizeof(K), sizeof(V)>::staged SP;
  typedef unrolled_store_policy<
      early_outputs_policy<P, outputs_loaded_early<SP>::value>,
      store_unroll<SP>::value>
      UP;
  typedef typename std::conditional<stores_aligned<SP>::value,
                                    aligned_store_policy<UP>, UP>::type RP;
  auto real = setop_kernel<RP, true, true, true, K, V, C>;
  CHECK(cudaFuncSetAttribute(real, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)smem));
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel,
                                                      P::NT + 32, smem));
  unsigned long long *total = tile_word(status, status_words - 2);
  setop_tiles<K, V> t = {d.a, d.b, d.av, d.bv, d.na, d.nb, splits, status,
                         tile_word(status, tiles),
                         tile_word(status, tiles + (tiles + 31) / 32), total, 1,
                         d.out, d.outv,
                         (long long)d.capacity, set_op_keeps(MGPU_SET_UNION),
                         true, sms * per_sm * prefetch / 100, nullptr};
  const double ms = time_ms([&] {
    CHECK(cudaMemsetAsync(status, 0, tile_words_bytes(status_words), stream));
    if (MODE == 7) {
      CHECK(cudaMemsetAsync(d.out, 0xff, sizeof(K) * d.capacity, stream));
      CHECK(cudaMemsetAsync(d.outv, 0xff, sizeof(V) * d.capacity, stream));
    }
  }, [&] {
    if (MODE == 7)
      real<<<tiles, P::NT + 32, smem, stream>>>(t, C());
    else
      kernel<<<tiles, P::NT + 32, smem, stream>>>(t, C());
    CHECK(cudaGetLastError());
  });
  if (MODE == 7) {
    const int o = (int)MGPU_SET_UNION;
    unsigned long long got = 0;
    CHECK(cudaMemcpy(&got, total, sizeof got, cudaMemcpyDeviceToHost));
    const bool ok = d.have_ref[o] && got == d.ref_count[o] &&
                    same_bytes(d.out, d.ref_out[o], sizeof(K) * got) &&
                    same_bytes(d.outv, d.ref_outv[o], sizeof(V) * got);
    if (!ok) {
      ++failures;
      printf("ceil      mode %d MISMATCH (total %llu, reference %zu)\n", MODE,
             got, d.ref_count[o]);
    }
  }
  /* bytes in, and out (MODE 0 all, else ~the union's 0.80) */
  const double in = (double)(d.na + d.nb) * (sizeof(K) + sizeof(V));
  const double out = MODE == 0 ? in : 0.8 * in;
  printf("ceil      mode %d NT=%3d VT=%2d smem=%zu %d an SM PF=%3d %8.4f ms "
         "%5.2f TB/s\n",
         MODE, P::NT, P::VT, smem, per_sm, prefetch, ms,
         (in + out) / (ms * 1e-3) / 1e12);
  return ms;
}

/* The ceiling modes for a tile shape, on that shape's own splits. */
template <typename P, typename K, typename V>
void ceil_shape(setop_data<K, V> &d, int prefetch, bool full) {
  constexpr int S = kSetopSampleStride;
  typedef ascending<K> C;
  const int na = d.na, nb = d.nb;
  const int tiles = tiles_of((long long)na + nb, P::NV);
  const int status_words = tiles + 2 * ((tiles + 31) / 32) + 3;
  const int ca = samples_of(na, S), cb = samples_of(nb, S);
  unsigned long long *status =
      device_alloc<unsigned long long>(tile_words_bytes(status_words) / 8);
  unsigned *splits = device_alloc<unsigned>(tiles + 1);
  K *sa = device_alloc<K>(ca), *sb = device_alloc<K>(cb);
  gather_samples_kernel<S><<<grid_for((size_t)std::max(ca, cb), 256), 256, 0,
                             stream>>>(d.a, na, sa, d.b, nb, sb);
  CHECK(cudaGetLastError());
  CHECK(launch_early(false, setop_partition_kernel<S, 8, K, C>,
                     setop_partition_blocks(8, tiles + 1),
                     kSetopPartitionThreads, 0, stream,
                     d.a, (const K *)sa, na, d.b, (const K *)sb, nb, (int)P::NV,
                     tiles + 1, true, splits, status, status_words,
                     (unsigned *)nullptr, 0, C()));
  CHECK(cudaStreamSynchronize(stream));
  if (full) {
    ceil_time<P, 0>(d, splits, prefetch, status, status_words);
    ceil_time<P, 1>(d, splits, prefetch, status, status_words);
    ceil_time<P, 2>(d, splits, prefetch, status, status_words);
  }
  ceil_time<P, 3>(d, splits, prefetch, status, status_words);
  if (full) {
    ceil_time<P, 4>(d, splits, prefetch, status, status_words);
    ceil_time<P, 5>(d, splits, prefetch, status, status_words);
  }
  ceil_time<P, 7>(d, splits, prefetch, status, status_words);
  CHECK(cudaFree(status));
  CHECK(cudaFree(splits));
  CHECK(cudaFree(sa));
  CHECK(cudaFree(sb));
}

template <typename K, typename V> void tune_setop_ceil(int n) {
  setop_data<K, V> d(n);
  typedef setop_policy<sizeof(K), sizeof(V)> SP;
  printf("memcpy of the inputs (%zu bytes): %.4f ms, %.2f TB/s\n",
         (size_t)n * (sizeof(K) + sizeof(V)), d.memcpy_pairs,
         2.0 * n * (sizeof(K) + sizeof(V)) / (d.memcpy_pairs * 1e-3) / 1e12);
  setop_opt = {SP::staged_prefetch, true, true, 0, 0};
  for (int pass = 0; pass < 2; ++pass) {
    tune_setop<typename SP::staged, true, true, true>(d, MGPU_SET_UNION,
                                                      "stage");
    ceil_shape<T<128, 31, 5>>(d, SP::staged_prefetch, true);
    ceil_shape<T<128, 23, 7>>(d, SP::staged_prefetch, false);
  }
  setop_opt = {50, true, true, 0, 0};
}

/* The sample stride of the partition (kSetopSampleStride first, the
 * reference), for the policy's union, intersection and staged union. */
template <typename K, typename V> void tune_setop_stride(int n) {
  setop_data<K, V> d(n);
  typedef setop_policy<sizeof(K), 0> KP;
  typedef setop_policy<sizeof(K), sizeof(V)> SP;
  const mgpu_setop_kind u = MGPU_SET_UNION, x = MGPU_SET_INTERSECTION,
                        df = MGPU_SET_DIFFERENCE,
                        sd = MGPU_SET_SYMMETRIC_DIFFERENCE;
  const auto keys = [&](auto stride) {
    constexpr int S = decltype(stride)::value;
    printf("stride %d\n", S);
    tune_setop<typename KP::union_tile, false, false, true, S>(d, u, "keys");
    tune_setop<typename KP::intersection, false, false, true, S>(d, x, "keys");
    tune_setop<typename KP::difference, false, false, true, S>(d, df, "keys");
    tune_setop<typename KP::symmetric_difference_tile, false, false, true, S>(
        d, sd, "keys");
  };
  const auto pairs = [&](auto stride) {
    constexpr int S = decltype(stride)::value;
    printf("stride %d\n", S);
    setop_opt.prefetch_percent = SP::staged_prefetch;
    tune_setop<typename SP::staged, true, true, true, S>(d, u, "stage");
    tune_setop<typename SP::staged_symmetric_difference, true, true, true, S>(
        d, sd, "stage");
    setop_opt.prefetch_percent = SP::prefetch;
    tune_setop<typename SP::intersection, true, false, true, S>(d, x, "pairs");
    tune_setop<typename SP::difference, true, false, true, S>(d, df, "pairs");
  };
  typedef std::integral_constant<int, 512> S512;
  typedef std::integral_constant<int, 1024> S1K;
  typedef std::integral_constant<int, 2048> S2K;
  setop_opt = {KP::prefetch, true, true, 0, 0};
  for (int pass = 0; pass < 2; ++pass) {
    keys(S512());
    keys(S1K());
    keys(S2K());
  }
  d.reset_refs();
  for (int pass = 0; pass < 2; ++pass) {
    pairs(S512());
    pairs(S1K());
    pairs(S2K());
  }
  setop_opt = {50, true, true, 0, 0};
}

/* Direct points (setop_options::direct_percent; 0 first, the old
 * partition, the reference) for every operation in the policy's tiles;
 * lanes as the rule says, then 8. */
template <typename K, typename V> void tune_setop_direct(int n) {
  setop_data<K, V> d(n);
  typedef setop_policy<sizeof(K), 0> KP;
  typedef setop_policy<sizeof(K), sizeof(V)> SP;
  const mgpu_setop_kind u = MGPU_SET_UNION, x = MGPU_SET_INTERSECTION,
                        df = MGPU_SET_DIFFERENCE,
                        sd = MGPU_SET_SYMMETRIC_DIFFERENCE;
  const int runs[][2] = {{0, 0}, {100, 0}, {50, 0}, {150, 0}, {100, 8}};
  for (int pass = 0; pass < 2; ++pass)
    for (const auto &r : runs) {
      setop_opt = {KP::prefetch, true, true, r[1], r[0]};
      printf("direct %d lanes %d\n", r[0], r[1]);
      tune_setop<typename KP::union_tile, false, false, true>(d, u, "keys");
      tune_setop<typename KP::intersection, false, false, true>(d, x, "keys");
      tune_setop<typename KP::difference, false, false, true>(d, df, "keys");
      tune_setop<typename KP::symmetric_difference_tile, false, false, true>(
          d, sd, "keys");
    }
  d.reset_refs();
  for (int pass = 0; pass < 2; ++pass)
    for (const auto &r : runs) {
      setop_opt = {SP::staged_prefetch, true, true, r[1], r[0]};
      printf("direct %d lanes %d\n", r[0], r[1]);
      tune_setop<typename SP::staged, true, true, true>(d, u, "stage");
      tune_setop<typename SP::staged_symmetric_difference, true, true, true>(
          d, sd, "stage");
      setop_opt.prefetch_percent = SP::prefetch;
      tune_setop<typename SP::intersection, true, false, true>(d, x, "pairs");
      tune_setop<typename SP::difference, true, false, true>(d, df, "pairs");
    }
  setop_opt = {50, true, true, 0, 0};
}

/* Direct points with 8 lanes a point against none, for the tiles the
 * dispatch takes between 2^23 and 2^25: the held intersection and
 * difference (which wait for the whole partition either way) against the
 * one-tile-per-block kernels with direct points. */
template <typename K, typename V> void tune_setop_direct2(int n) {
  setop_data<K, V> d(n);
  typedef setop_policy<sizeof(K), 0> KP;
  typedef setop_policy<sizeof(K), sizeof(V)> SP;
  const mgpu_setop_kind u = MGPU_SET_UNION, x = MGPU_SET_INTERSECTION,
                        df = MGPU_SET_DIFFERENCE,
                        sd = MGPU_SET_SYMMETRIC_DIFFERENCE;
  const int runs[][2] = {{0, 0}, {100, 8}, {100, 16}};
  for (int pass = 0; pass < 2; ++pass) {
    setop_opt = {KP::prefetch, true, true, 0, 0};
    printf("held\n");
    tune_setop<typename KP::held_intersection, false, false, true>(d, x, "held");
    tune_setop<typename KP::held_difference, false, false, true>(d, df, "held");
    for (const auto &r : runs) {
      setop_opt = {KP::prefetch, true, true, r[1], r[0]};
      printf("direct %d lanes %d\n", r[0], r[1]);
      tune_setop<typename KP::intersection, false, false, true>(d, x, "keys");
      tune_setop<typename KP::difference, false, false, true>(d, df, "keys");
      tune_setop<typename KP::union_tile, false, false, true>(d, u, "keys");
      tune_setop<typename KP::symmetric_difference_tile, false, false, true>(
          d, sd, "keys");
    }
  }
  d.reset_refs();
  for (int pass = 0; pass < 2; ++pass) {
    setop_opt = {SP::prefetch, true, true, 0, 0};
    printf("held\n");
    tune_setop<typename SP::held_intersection, true, false, true>(d, x, "held");
    for (const auto &r : runs) {
      setop_opt = {SP::prefetch, true, true, r[1], r[0]};
      printf("direct %d lanes %d\n", r[0], r[1]);
      tune_setop<typename SP::intersection, true, false, true>(d, x, "pairs");
      tune_setop<typename SP::difference, true, false, true>(d, df, "pairs");
      setop_opt.prefetch_percent = SP::staged_prefetch;
      tune_setop<typename SP::staged, true, true, true>(d, u, "stage");
      tune_setop<typename SP::staged_symmetric_difference, true, true, true>(
          d, sd, "stage");
    }
  }
  setop_opt = {50, true, true, 0, 0};
}

/* The end of a call: scratch handed back after the wait for the total
 * (A), before it (F, the library), and the launches alone, timed without
 * the wait (G: the GPU's time; no total, not checked).  The library's
 * tiles and wide-call options; passes interleave the three.  (The
 * forty-third round also had T, the total from a tally of the tiles'
 * counts by the look-back warps: level with F, dropped.) */
template <typename K, typename V> void tune_setop_tail(int n) {
  setop_data<K, V> d(n);
  typedef setop_policy<sizeof(K), 0> KP;
  typedef setop_policy<sizeof(K), sizeof(V)> SP;
  constexpr int S = SP::wide_stride ? SP::wide_stride : kSetopSampleStride;
  const mgpu_setop_kind u = MGPU_SET_UNION, x = MGPU_SET_INTERSECTION,
                        sd = MGPU_SET_SYMMETRIC_DIFFERENCE;
  const char *names[] = {"A", "F", "G"};
  const auto set = [&](int v, int prefetch) {
    setop_opt = {prefetch, true, true, 0, SP::direct_points};
    setop_opt.free_early = v >= 1;
    setop_opt.no_wait = v == 2;
  };
  for (int pass = 0; pass < 3; ++pass)
    for (int v = 0; v < 3; ++v) {
      set(v, SP::wide_prefetch);
      tune_setop<typename SP::staged, true, true, true, S>(d, u, names[v]);
      tune_setop<typename SP::staged_symmetric_difference, true, true, true, S>(
          d, sd, names[v]);
      tune_setop<typename SP::intersection, true, false, true, S>(d, x,
                                                                 names[v]);
    }
  d.reset_refs();
  for (int pass = 0; pass < 2; ++pass)
    for (int v = 0; v < 3; ++v) {
      set(v, KP::wide_prefetch);
      tune_setop<typename KP::union_tile, false, false, true, S>(d, u,
                                                                names[v]);
    }
  setop_opt = {50, true, true, 0, 0};
}

/* The current policy (kernels/policy.cuh) first: it is the reference. */
template <typename K, typename V> void tune_all_setop(int n) {
  setop_data<K, V> d(n);
  /* W: a look-back warp, L: early launches, C: early count; each candidate
   * with the policy's launch options, then the old kernel (no W) */
  const setop_options all = {50, true, true, 0, 0};
  setop_opt = all;
  if (sizeof(K) == 4) {
    setop_phases<T<256, 31, 4>>(d, "keys");
    setop_phases<T<128, 23, 10>>(d, "pairs");
    tune_setop_ops<T<256, 31, 4>, false, true>(d, "keys");
    tune_setop_ops<T<256, 31, 4>, false, false>(d, "keys");
    setop_opt.prefetch_percent = 25;
    tune_setop_ops<T<256, 31, 4>, false, true>(d, "keys");
    setop_opt.prefetch_percent = 50;
    tune_setop_ops<T<128, 31, 8>, false, true>(d, "keys");
    tune_setop_ops<T<256, 23, 5>, false, true>(d, "keys");
    d.reset_refs();
    tune_setop_ops<T<256, 23, 5>, true, true>(d, "pairs");
    tune_setop_staged<T<128, 31, 5>, true>(d);
    tune_setop_ops<T<128, 23, 10>, true, true>(d, "pairs");
    tune_setop_ops<T<128, 23, 10>, true, false>(d, "pairs");
    tune_setop_staged<T<128, 31, 5>, false>(d);
    tune_setop_ops<T<192, 23, 7>, true, true>(d, "pairs");
    tune_setop_staged<T<128, 27, 6>, true>(d);
    tune_setop_staged<T<128, 23, 7>, true>(d);
    setop_opt = {50, false, false, 0, 0};
    tune_setop_ops<T<128, 23, 10>, true, false>(d, "pairs");
    tune_setop_staged<T<128, 31, 5>, false>(d);
  } else {
    tune_setop_ops<T<128, 31, 5>, false, true>(d, "keys");
    tune_setop_ops<T<128, 19, 6>, false, false>(d, "keys");
    tune_setop_ops<T<128, 19, 6>, false, true>(d, "keys");
    d.reset_refs();
    tune_setop_ops<T<128, 23, 6>, true, false>(d, "pairs");
    tune_setop_ops<T<128, 23, 6>, true, true>(d, "pairs");
    tune_setop_ops<T<128, 15, 8>, true, true>(d, "pairs");
  }
  setop_opt = all;
}

} // namespace

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0); /* lines reach a pipe before a kill */
  int lg = argc > 1 ? atoi(argv[1]) : 26;
  if (argc > 2) reps = atoi(argv[2]);
  const std::string only = argc > 3 ? argv[3] : "all";
  if (only != "all" && only != "merge" && only != "merge32" && only != "sort" &&
      only != "setop" && only != "setop32" && only != "half" &&
      only != "half32" && only != "lanes" && only != "held" &&
      only != "rounds" && only != "rounds2" && only != "rounds3" &&
      only != "early" && only != "loaded" && only != "union" &&
      only != "loaded8" && only != "gunion" && only != "ustore" &&
      only != "where" && only != "prof" && only != "stride" &&
      only != "direct" && only != "direct2" && only != "tail" &&
      only != "align" &&
      only != "align8" && only != "sunion" &&
      only != "xpf" && only != "xop" && only != "parked" &&
      only != "ceil" && only != "stage8" &&
      only != "stage8b" && only != "stage8c" &&
      only != "xop8" && only != "pfu" && only != "mstaged" && only != "sortpdl") {
    fprintf(stderr, "usage: mgpu_tune [log2 n = 26] [reps = 15] "
                    "[all | merge | merge32 | sort | setop | setop32 | half | "
                    "half32 | lanes | held | rounds | rounds2 | rounds3 | "
                    "early | loaded | union | loaded8 | gunion | ustore | where | "
                    "prof | stride | direct | direct2 | tail | align | align8 | sunion | xpf | xop | "
                    "parked | ceil | stage8 | stage8b | stage8c | xop8 | pfu | mstaged | sortpdl]\n");
    return 2;
  }
  char err[256];
  if (mgpu_context_create("cuda:0", &ctx, err, sizeof err) != MGPU_OK) {
    fprintf(stderr, "mgpu_tune: %s\n", err);
    return 2;
  }
  stream = (cudaStream_t)mgpu_context_stream(ctx);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  flush_bytes = 2 * (size_t)prop.l2CacheSize;
  CHECK(cudaMalloc(&flush_buf, flush_bytes));
  const int n = 1 << lg;
  printf("mgpu_tune on %s (%d SMs, %d MiB of L2), n = 2^%d, median of %d\n",
         prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, lg, reps);
  if (only == "all" || only == "merge" || only == "merge32") {
    tune_all_merge<int32_t, uint32_t>(n);
    if (only != "merge32") tune_all_merge<int64_t, uint64_t>(n);
  }
  if (only == "all" || only == "sort") {
    tune_all_sort<int32_t, uint32_t>(n);
    tune_all_sort<int64_t, uint64_t>(n);
  }
  if (only == "sortpdl") {
    tune_sort_pdl<int32_t, uint32_t, false>(n);
    tune_sort_pdl<int32_t, uint32_t, true>(n);
    tune_sort_pdl<int64_t, uint64_t, false>(n);
  }
  if (only == "mstaged") {
    tune_mstaged<int32_t, uint32_t>(n);
    tune_mstaged<int64_t, uint64_t>(n);
  }
  if (only == "held") tune_setop_held<int32_t, uint32_t>(n);
  if (only == "half" || only == "half32") {
    tune_setop_half<int32_t, uint32_t>(n);
    if (only == "half") tune_setop_half<int64_t, uint64_t>(n);
  }
  if (only == "lanes") tune_setop_lanes<int32_t, uint32_t>(n);
  if (only == "rounds") tune_setop_rounds<int32_t, uint32_t>(n);
  if (only == "rounds2") tune_setop_rounds2<int32_t, uint32_t>(n);
  if (only == "rounds3") tune_setop_rounds3<int32_t, uint32_t>(n);
  if (only == "early") tune_setop_early<int32_t, uint32_t>(n);
  if (only == "union") tune_setop_union<int32_t, uint32_t>(n);
  if (only == "loaded8") tune_setop_loaded8<int64_t, uint64_t>(n);
  if (only == "stage8") tune_setop_stage8<int64_t, uint64_t>(n);
  if (only == "stage8b") tune_setop_stage8b<int64_t, uint64_t>(n);
  if (only == "stage8c") tune_setop_stage8c<int64_t, uint64_t>(n);
  if (only == "gunion") tune_setop_gunion<int32_t, uint32_t>(n);
  if (only == "ustore") tune_setop_ustore<int32_t, uint32_t>(n);
  if (only == "stride") tune_setop_stride<int32_t, uint32_t>(n);
  if (only == "align") tune_setop_align<int32_t, uint32_t>(n);
  if (only == "align8") tune_setop_align8<int64_t, uint64_t>(n);
  if (only == "sunion") tune_setop_sunion<int32_t, uint32_t>(n);
  if (only == "xpf") tune_setop_xpf<int32_t, uint32_t>(n);
  if (only == "xop") tune_setop_xop<int32_t, uint32_t>(n);
  if (only == "xop8") tune_setop_xop<int64_t, uint64_t>(n);
  if (only == "parked") tune_setop_parked<int32_t, uint32_t>(n);
  if (only == "pfu") tune_setop_pfu<int32_t, uint32_t>(n);
  if (only == "ceil") tune_setop_ceil<int32_t, uint32_t>(n);
  if (only == "direct") tune_setop_direct<int32_t, uint32_t>(n);
  if (only == "direct2") tune_setop_direct2<int32_t, uint32_t>(n);
  if (only == "tail") tune_setop_tail<int32_t, uint32_t>(n);
  if (only == "where" || only == "prof")
    tune_setop_where<int32_t, uint32_t>(n, only == "prof");
  if (only == "loaded") {
    tune_setop_loaded<int32_t, uint32_t>(n);
    tune_setop_loaded<int64_t, uint64_t>(n);
  }
  if (only == "all" || only == "setop" || only == "setop32") {
    tune_all_setop<int32_t, uint32_t>(n);
    if (only != "setop32") tune_all_setop<int64_t, uint64_t>(n);
  }
  printf("%d mismatches\n", failures);
  mgpu_context_release(ctx);
  return failures ? 1 : 0;
}
