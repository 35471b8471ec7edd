/*
 * tile_prefix.cuh - a single-pass exclusive scan over tiles (decoupled
 * look-back): each tile publishes its own count at once and its inclusive
 * prefix as soon as it knows it; a tile learns its exclusive prefix by
 * summing its predecessors' words back to the nearest published prefix.
 * This lets a compaction write its output in the same launch that computes
 * the counts, reading the inputs once.
 *
 * status[] holds one 64-bit word per tile (and gstatus[] one per group of
 * 32 tiles), zeroed before the launch: the flag in the top two bits and
 * the value below, in one word so that a single relaxed load sees both.
 * gsum[] holds one more word per group, which each of its tiles adds its
 * count to (group_word).  Each word sits alone in a 32-byte sector
 * (tile_word).  Tiles must be
 * numbered in the order running blocks take them (launch order, or a
 * counter): a tile only waits for lower-numbered ones, which running
 * blocks hold.
 */
#ifndef MGPU_TILE_PREFIX_CUH
#define MGPU_TILE_PREFIX_CUH

#include <cuda/atomic>

namespace mgpu {

constexpr unsigned long long kTileCount = 1ull << 62;  /* own count only */
constexpr unsigned long long kTilePrefix = 2ull << 62; /* inclusive prefix */
constexpr unsigned long long kTileValue = (1ull << 62) - 1;

/* 64-bit words from one tile's look-back word to the next (and from one
 * group's to the next): each word alone in its 32-byte sector.  Hundreds
 * of look-back warps poll the few sectors near the front of the scan
 * while the tiles publish into them; with four tiles' words to a sector
 * the i32 pairs set operations were ~3% slower
 * (docs/TUNING.md, Shared pieces). */
constexpr int kTileWordStride = 4;

/* word i of a look-back array (status[] or gstatus[]) */
__host__ __device__ __forceinline__ unsigned long long *
tile_word(unsigned long long *words, long long i) {
  return words + i * kTileWordStride;
}

/* bytes to allocate for `words` look-back words (tile_word(p, i) for
 * i < words); the array must start on a 32-byte boundary */
__host__ __device__ constexpr long long tile_words_bytes(long long words) {
  return words > 0 ? ((words - 1) * kTileWordStride + 1) * 8 : 0;
}

__device__ __forceinline__ unsigned long long
tile_status_load(unsigned long long *p) {
  return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*p)
      .load(cuda::memory_order_relaxed);
}

__device__ __forceinline__ void tile_status_store(unsigned long long *p,
                                                  unsigned long long v) {
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*p).store(
      v, cuda::memory_order_relaxed);
}

/* gsum[g]: the counts of group g's tiles, each added by its tile with one
 * arrival (kGroupArrival) as soon as it has counted.  Once 32 have
 * arrived the group's total is there with no tile having to relay it. */
constexpr unsigned long long kGroupArrival = 1ull << 40;

/* Group g's words as a look-back window reads them: the prefix some tile
 * published in gstatus[g], else the total once all 32 counts are in
 * gsum[g], else 0 (not yet); g < 0 is "nothing before".  Either, once
 * there, never changes. */
__device__ __forceinline__ unsigned long long
group_word(unsigned long long *gstatus, unsigned long long *gsum, int g) {
  if (g < 0) return kTilePrefix;
  const unsigned long long pre = tile_status_load(tile_word(gstatus, g));
  const unsigned long long sum = tile_status_load(tile_word(gsum, g));
  if (pre) return pre;
  return sum / kGroupArrival == 32 ? kTileCount | (sum % kGroupArrival) : 0ull;
}

/* The sum of one window's values, lane 0 up to the nearest lane holding
 * a prefix (all 32 when none does), to every lane. */
__device__ __forceinline__ long long window_sum(unsigned long long w,
                                                unsigned prefixes) {
  const int lane = threadIdx.x & 31;
  const int stop = prefixes ? __ffs(prefixes) - 1 : 31;
  long long v = lane <= stop ? (long long)(w & kTileValue) : 0;
#pragma unroll
  for (int off = 16; off > 0; off >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, off);
  return __shfl_sync(0xffffffffu, v, 0);
}

/* Waits until every lane's word that matters is published, and returns
 * the sum of the values up to and including the nearest lane (lane 0
 * nearest) holding a prefix, or of all 32 when none does; *found says
 * whether one did.  load() gives the lane's word; a lane with nothing to
 * read passes kTilePrefix (nothing before it) or kTileCount (adds 0).
 *
 * SETTLED: the words never change once there (group_word), so after the
 * first poll a lane reads again only while its word is missing and nearer
 * than the nearest prefix seen.  Every look-back in flight polls the group
 * words, and each request not made pays (0.5-1% on i32 pairs at 2^26;
 * docs/TUNING.md, Shared pieces).  A tile's own words change from
 * count to prefix and are read again each poll. */
template <bool SETTLED = false, typename Load, typename Idle>
__device__ __forceinline__ long long sum_back_window(Load load, bool *found,
                                                     Idle idle) {
  const int lane = threadIdx.x & 31;
  unsigned long long w = 0;
  unsigned prefixes, reach = ~0u;
  /* Wait only for the words nearer than the nearest published prefix (all
   * 32 when there is none): waiting for the whole window made each
   * set-operation tile spin ~36 times on the H200, for predecessors whose
   * counts it did not need. */
  for (;;) {
    if (!SETTLED || (((reach >> lane) & 1) && (w >> 62) == 0)) w = load();
    const unsigned invalid = __ballot_sync(0xffffffffu, (w >> 62) == 0);
    prefixes = __ballot_sync(0xffffffffu, (w >> 62) == 2);
    const unsigned nearest = prefixes & (0u - prefixes);
    const unsigned needed = prefixes ? nearest - 1u : ~0u;
    if (!(invalid & needed)) break;
    if (SETTLED) reach = prefixes ? (nearest << 1) - 1u : ~0u;
    idle();
  }
  *found = prefixes != 0;
  return window_sum(w, prefixes);
}

/* Between polls a waiting warp backs off: without it the spinning warps
 * issued ~8% of a set-operation launch's instructions (ncu), taking issue
 * slots from the warps doing the work. */
__device__ __forceinline__ void tile_back_off() { __nanosleep(100); }

/* The look-back in two levels.  Tiles form groups of 32; each tile adds
 * its count to its group's gsum[] word as it publishes it, and the last
 * tile of a group publishes the group's inclusive prefix in gstatus[]
 * with its own.  A tile sums its own group's earlier counts (one window),
 * then whole groups, 32 a window, back to the nearest group holding a
 * prefix.
 *
 * Why: with one level a tile reads 32 predecessors a round trip, and when
 * hundreds of tiles reach their look-back nearly together the nearest
 * prefix is often hundreds of tiles back.  A group window covers 1024
 * tiles.  The group totals are summed by the tiles' atomic adds, not
 * relayed by each group's last tile once its look-back warp has seen
 * them, so they come a poll sooner (i32 pairs intersection ~2% faster at
 * 2^26).  Reading both windows in every poll instead of one after the
 * other, or every tile that summed groups publishing the previous group's
 * prefix, put more loads or stores on the group words that every
 * look-back polls, and was slower (docs/TUNING.md, Shared pieces).
 *
 * sum_predecessors: called by all 32 lanes of one warp of tile `tile` > 0;
 * returns (to every lane) the sum of the counts of tiles 0 .. tile-1.
 * idle() runs between polls. */
template <typename Idle>
__device__ __forceinline__ long long sum_predecessors(
    unsigned long long *status, unsigned long long *gstatus,
    unsigned long long *gsum, int tile, Idle idle) {
  const int lane = threadIdx.x & 31;
  const int group = tile >> 5, first = group << 5;
  /* the group's earlier tiles, nearest first; before the group's first
   * tile an empty prefix stands for "the groups before" */
  bool found;
  const int idx = tile - 1 - lane;
  long long before = sum_back_window(
      [&] {
        return idx >= first ? tile_status_load(tile_word(status, idx))
                            : (first == 0 ? kTilePrefix : kTileCount);
      },
      &found, idle);
  for (int end = group - 1; !found; end -= 32) {
    const int g = end - lane; /* lane 0 = nearest group */
    before += sum_back_window<true>(
        [&] { return group_word(gstatus, gsum, g); }, &found, idle);
  }
  return before;
}

/* The tile's inclusive prefix, and its group's when it is the group's last
 * tile; replaces the count published before.  A call of one tile has no
 * look-back words (status null): nothing would read them. */
__device__ __forceinline__ void publish_prefix(unsigned long long *status,
                                               unsigned long long *gstatus,
                                               int tile, long long inclusive) {
  if ((threadIdx.x & 31) != 0 || !status) return;
  const unsigned long long w = kTilePrefix | (unsigned long long)inclusive;
  tile_status_store(tile_word(status, tile), w);
  if ((tile & 31) == 31) tile_status_store(tile_word(gstatus, tile >> 5), w);
}

/* The tile's count in its status[] word (tile 0 publishes only its
 * prefix), and into its group's gsum[] word with one arrival. */
__device__ __forceinline__ void store_count(unsigned long long *status,
                                            unsigned long long *gsum, int tile,
                                            long long count) {
  if (tile > 0)
    tile_status_store(tile_word(status, tile),
                      kTileCount | (unsigned long long)count);
  atomicAdd(tile_word(gsum, tile >> 5),
            kGroupArrival | (unsigned long long)count);
}

/* Called by all 32 lanes of one warp of tile `tile` with its count, once
 * the tile has counted; returns (to every lane) the sum of the counts of
 * tiles 0 .. tile-1.  A call of one tile has no look-back words (status
 * null). */
__device__ __forceinline__ long long tile_exclusive_prefix(
    unsigned long long *status, unsigned long long *gstatus,
    unsigned long long *gsum, int tile, long long count) {
  if (!status) return 0;
  if ((threadIdx.x & 31) == 0) store_count(status, gsum, tile, count);
  const long long before =
      tile > 0 ? sum_predecessors(status, gstatus, gsum, tile,
                                  [] { tile_back_off(); })
               : 0;
  publish_prefix(status, gstatus, tile, before + count);
  return before;
}

/* Publishes tile `tile`'s count from the thread that found it, before it
 * hands the count to the tile's look-back warp (write_count_slot), instead
 * of the look-back warp publishing it once it has read it: successors see
 * the count one hand-over sooner, ~0.5 us at the median
 * (docs/TUNING.md, Shared pieces).  The fence orders the word before the
 * hand-over, so that the look-back warp's inclusive prefix, written after
 * it has read the slot, comes after the count in the word's order and is
 * never overwritten by it.  The group's sum needs no order: it is read
 * only once whole. */
__device__ __forceinline__ void publish_count(unsigned long long *status,
                                              unsigned long long *gsum,
                                              int tile, long long count) {
  if (status) store_count(status, gsum, tile, count);
  __threadfence_block();
}

/* The count slot is shared memory written by another warp with no barrier
 * between: atomics, so that the write is seen and the handover is not a
 * race (compute-sanitizer racecheck).  Lane 0 reads for the warp. */
__device__ __forceinline__ void write_count_slot(int *slot, int count) {
  atomicExch(slot, count);
}
__device__ __forceinline__ int read_count_slot(int *slot) {
  int c = 0;
  if ((threadIdx.x & 31) == 0) c = atomicAdd(slot, 0);
  return __shfl_sync(0xffffffffu, c, 0);
}

/* The same look-back run by a warp of its own from the tile's start, while
 * the tile's other warps load and walk it: the waiting for predecessors and
 * the round trips overlap the tile's work instead of following it.  The
 * tile's count is not known at the start; poll() returns it once the other
 * warps have handed it over (-1 until then, the same to every lane), the
 * thread handing it over having published it first (publish_count).
 * Until it has, the warp waits EARLY_NS between polls (0: tile_back_off's
 * 100 ns throughout): no base is needed before the count, and each poll is
 * 32 sectors of L2 traffic beside the tiles' streams.
 * Returns (to every lane) the sum of the counts of tiles 0 .. tile-1 and
 * sets *count_out. */
template <int EARLY_NS = 0, typename Poll>
__device__ __forceinline__ long long tile_exclusive_prefix_polled(
    unsigned long long *status, unsigned long long *gstatus,
    unsigned long long *gsum, int tile, Poll poll, long long *count_out) {
  long long count = -1; /* the tile's count, once poll() has it */
  long long before = 0;
  if (tile > 0)
    before = sum_predecessors(status, gstatus, gsum, tile, [&] {
      if (count < 0) count = poll();
      if (EARLY_NS > 0 && count < 0) __nanosleep(EARLY_NS);
      else tile_back_off();
    });
  /* Predecessors are done; the tile's own count may still be coming.  The
   * inclusive prefix replaces the count at once. */
  while (count < 0 && (count = poll()) < 0) __nanosleep(32);
  publish_prefix(status, gstatus, tile, before + count);
  *count_out = count;
  return before;
}

/* tile_exclusive_prefix_polled with the count handed over in *count_slot
 * (-1 until the other warps write it with write_count_slot, having
 * published it with publish_count). */
template <int EARLY_NS = 0>
__device__ __forceinline__ long long tile_exclusive_prefix_ahead(
    unsigned long long *status, unsigned long long *gstatus,
    unsigned long long *gsum, int tile, int *count_slot,
    long long *count_out) {
  return tile_exclusive_prefix_polled<EARLY_NS>(
      status, gstatus, gsum, tile,
      [&]() -> long long { return read_count_slot(count_slot); }, count_out);
}

/* ---- per digit bucket (radix sort, Onesweep) ------------------------------
 * One word per (tile, bucket): a tile publishes each bucket's count at
 * once and its inclusive prefix once it knows it, and one thread per
 * bucket walks back over the predecessors' words of its bucket.  The
 * words of all digit passes share one array zeroed once per call: each
 * word carries its pass's tag (pass + 1) beside the flag, and a word with
 * another pass's tag reads as not yet published.  So a pass needs no
 * zeroing launch, and a skipped pass leaves nothing to clear. */
constexpr int kBucketTagShift = 56;
constexpr unsigned long long kBucketValue = (1ull << kBucketTagShift) - 1;

/* The thread of bucket b of tile `tile`, with words pointing at tile 0's
 * word of bucket b and `stride` words from one tile's to the next:
 * publishes the tile's count of the bucket (tile 0: its inclusive prefix,
 * which is the same), so that successors can go on before this tile has
 * looked back. */
__device__ __forceinline__ void bucket_publish_count(unsigned long long *words,
                                                     int stride, int tile,
                                                     unsigned tag,
                                                     long long count) {
  const unsigned long long flag = tile == 0 ? kTilePrefix : kTileCount;
  tile_status_store(words + (long long)tile * stride,
                    flag | (unsigned long long)tag << kBucketTagShift |
                        (unsigned long long)count);
}

/* Then, by the same thread: the sum of the bucket's counts in tiles
 * 0 .. tile-1, walking back to the nearest inclusive prefix, and the
 * tile's own inclusive prefix published in place of its count. */
__device__ __forceinline__ long long
bucket_exclusive_prefix(unsigned long long *words, int stride, int tile,
                        unsigned tag, long long count) {
  if (tile == 0) return 0;
  long long before = 0;
#pragma unroll 1
  for (int p = tile - 1;; --p) {
    unsigned long long w;
#pragma unroll 1
    for (;;) {
      w = tile_status_load(words + (long long)p * stride);
      if ((w >> 62) != 0 && ((w >> kBucketTagShift) & 0x3f) == tag) break;
      tile_back_off();
    }
    before += (long long)(w & kBucketValue);
    if ((w >> 62) == 2) break;
  }
  tile_status_store(words + (long long)tile * stride,
                    kTilePrefix | (unsigned long long)tag << kBucketTagShift |
                        (unsigned long long)(before + count));
  return before;
}

} // namespace mgpu

#endif
