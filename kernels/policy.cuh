/*
 * policy.cuh - tuning constants: threads per block (NT) and keys per thread
 * (VT) for each primitive and key/value width.  Each choice names the
 * measurement that made it: bench/tune.cu at n = 2^26 on an NVIDIA H200
 * (2026-11-21, median of 10, L2 flushed); docs/TUNING.md has the tables.
 *
 * VT is odd everywhere but one tile: thread-order shared-memory accesses
 * (VT * tid + i) then spread a warp across all 32 banks.  The exception is
 * the 4-byte staged set-operation tile (128 x 32, `staged` below), whose
 * threads start at data-dependent places found by search; it measured
 * faster than 128 x 31 (thirty-ninth round).
 */
#ifndef MGPU_POLICY_CUH
#define MGPU_POLICY_CUH

#include <type_traits>

namespace mgpu {

/* MIN_BLOCKS: resident blocks per SM asked of the compiler
 * (__launch_bounds__), for kernels whose occupancy is register-bound; only
 * the kernels that say so use it. */
template <int NT_, int VT_, int MIN_BLOCKS_ = 1> struct tile_policy {
  static constexpr int NT = NT_;
  static constexpr int VT = VT_;
  static constexpr int NV = NT_ * VT_;
  static constexpr int MIN_BLOCKS = MIN_BLOCKS_;
};

/* A set-operation tile for intersections only: every key an intersection
 * emits takes a key of each input, so a tile of NV inputs emits at most
 * (NV + 1) / 2, and the list of kept places (setop_smem::kept) needs half
 * the room; the shared memory saved lets more tiles share an SM. */
template <int NT_, int VT_, int MIN_BLOCKS_ = 1>
struct intersection_policy : tile_policy<NT_, VT_, MIN_BLOCKS_> {
  static constexpr int KEPT = (NT_ * VT_ + 1) / 2;
};

/* A set-operation tile for setop_held_kernel: persistent blocks that hold
 * up to HOLD outputs a thread in registers until the tile's place is
 * known, while their shared memory takes the next tile.  Used for calls
 * of at least MIN_ROUNDS and fewer than MAX_ROUNDS tiles a resident
 * block. */
template <int NT_, int VT_, int MIN_BLOCKS_, int HOLD_, int MIN_ROUNDS_ = 0,
          int MAX_ROUNDS_ = (1 << 20)>
struct held_policy : tile_policy<NT_, VT_, MIN_BLOCKS_> {
  static constexpr int HOLD = HOLD_;
  static constexpr int MIN_ROUNDS = MIN_ROUNDS_;
  static constexpr int MAX_ROUNDS = MAX_ROUNDS_;
};
template <int NT_, int VT_, int MIN_BLOCKS_, int HOLD_, int MIN_ROUNDS_ = 0,
          int MAX_ROUNDS_ = (1 << 20)>
struct held_intersection_policy
    : held_policy<NT_, VT_, MIN_BLOCKS_, HOLD_, MIN_ROUNDS_, MAX_ROUNDS_> {
  static constexpr int KEPT = (NT_ * VT_ + 1) / 2;
};
/* No held tiles for this operation. */
struct no_held_policy {
  static constexpr int HOLD = 0;
};

template <typename P, typename = void>
struct holds_output : std::false_type {};
template <typename P>
struct holds_output<P, decltype((void)P::HOLD)> : std::true_type {};

/* A staged set-operation tile for setop_parked_kernel: persistent blocks
 * that park each tile's output in shared memory of its own until the
 * tile's place is known, while the inputs' buffer takes the next tile.
 * Used for calls of fewer than MAX_ROUNDS tiles a resident block. */
template <int NT_, int VT_, int MIN_BLOCKS_, int MAX_ROUNDS_ = (1 << 20)>
struct parked_policy : tile_policy<NT_, VT_, MIN_BLOCKS_> {
  static constexpr bool PARKS = true;
  static constexpr int MAX_ROUNDS = MAX_ROUNDS_;
};
template <typename P, typename = void>
struct parks_output : std::false_type {};
template <typename P>
struct parks_output<P, decltype((void)P::PARKS)> : std::true_type {};

/* A set-operation tile whose list of kept places holds KEPT_PERMILLE /
 * 1000 of the tile (half by default), for operations that can emit more:
 * the kept outputs are listed and stored in rounds of KEPT, each after the
 * last is stored (setop_kernel), so that the shared memory saved lets
 * more tiles share an SM. */
template <int NT_, int VT_, int MIN_BLOCKS_ = 1, int KEPT_PERMILLE = 500>
struct rounds_policy : tile_policy<NT_, VT_, MIN_BLOCKS_> {
  static_assert(KEPT_PERMILLE > 0 && KEPT_PERMILLE <= 1000, "a share of NV");
  static constexpr int KEPT = (NT_ * VT_ * KEPT_PERMILLE + 999) / 1000;
  static constexpr bool ROUNDS = true;
};

/* A set-operation tile P whose intersections and differences of pairs
 * gather the values of their kept keys while the tile waits for its place
 * (gathers_early in setop_agent.cuh), instead of as they are stored. */
template <typename P> struct early_values_policy : P {
  static constexpr bool EARLY_VALUES = true;
};

/* A set-operation tile P whose threads read their first LOADED outputs
 * into registers while the tile waits for its place (keys and staged
 * values from shared memory, gathered values from the inputs), so that
 * once it is known they are only stored. */
template <typename P, int LOADED_> struct early_outputs_policy : P {
  static constexpr int LOADED = LOADED_;
};

/* A set-operation tile P whose threads store U outputs at a time, their
 * loads in flight together. */
template <typename P, int U> struct unrolled_store_policy : P {
  static constexpr int STORE_UNROLL = U;
};

/* A set-operation tile P whose threads store the outputs after the ones
 * read early in lines of 128 bytes: a warp's 32 stores start where a line
 * does, so each touches one line (two for 8-byte keys), not two. */
template <typename P> struct aligned_store_policy : P {
  static constexpr bool ALIGNED_STORES = true;
};

/* merge: a tile of NT * VT outputs per block. */
template <int KEY_BYTES, int VALUE_BYTES> struct merge_policy;
/* Staged tiles (merge_staged_agent), with merge_launch_policy's options;
 * "Merge, second round" in docs/TUNING.md, mgpu_tune N R mstaged on an
 * H200, ms at 2^26 (three passes), against the tile that loads with its
 * threads (merge_agent, 128 x 23: 0.1749-0.1762):
 *   4-byte keys: 512 x 23 0.1504-0.1511 (85% of a copy), 384 x 23
 *     0.1513-0.1525, 256 x 31 0.1527-0.1541, 256 x 23 0.1536-0.1544,
 *     512 x 15 0.1541-0.1556, 256 x 19 0.157-0.159, 256 x 15 0.159;
 *     2^28 alike (512 x 23 0.5576-0.5580, 256 x 23 0.569-0.570, the old
 *     tile 0.629); at 2^24 all within 0.0484-0.0504 (old 0.060). */
template <> struct merge_policy<4, 0> { typedef tile_policy<512, 23> type; };
/* 4-byte keys, 4-byte values: 256 x 23 0.2824-0.2834, 256 x 31
 * 0.2827-0.2831, 256 x 15 0.2858-0.2864, 128 x 39 0.2867-0.2869, 128 x 31
 * 0.2895-0.2899 (old 128 x 15: 0.3351-0.3363); 2^24 256 x 23 0.0808-0.0810
 * (old 0.101), 2^28 1.0803 (256 x 31 1.0778, old 1.268). */
template <> struct merge_policy<4, 4> { typedef tile_policy<256, 23> type; };
/* Not measured staged: the shapes of the unstaged tile. */
template <> struct merge_policy<4, 8> { typedef tile_policy<128, 11> type; };
/* 8-byte keys: 256 x 23 0.2842-0.2850, 256 x 15 0.2883-0.2893, 256 x 11
 * 0.293-0.295, 128 x 23 0.297-0.298, 128 x 31 0.297 (old 128 x 15:
 * 0.319-0.337); 2^24 and 2^28 in the same order. */
template <> struct merge_policy<8, 0> { typedef tile_policy<256, 23> type; };
/* Not measured staged: the shape of the unstaged tile. */
template <> struct merge_policy<8, 4> { typedef tile_policy<256, 7> type; };
/* 8-byte keys, 8-byte values: 128 x 19 0.5569-0.5586, 128 x 15
 * 0.5599-0.5618, 128 x 23 0.562-0.564, 256 x 11 0.568-0.569 (old 128 x 11:
 * 0.596-0.604); 2^24 and 2^28 in the same order. */
template <> struct merge_policy<8, 8> { typedef tile_policy<128, 19> type; };

/* How a merge is launched (merge.cuh's merge_options); same runs, ms at
 * 2^26 for 4-byte keys, 256 x 23: the tiles ask L2 for the inputs of the
 * tile 35% of a wave ahead (20%: level, 0: 0.1553-0.1566 against
 * 0.1537-0.1544, and 1.5% slower at 2^28; 70% was 9% slower on 128 x 23);
 * sampled partitions search samples of every 512th key with 8 lanes a
 * point (every 256th with lanes by size, 32 at this size: 0.1570-0.1591);
 * launched late (no PDL) 128 x 23 took 0.1649-0.1659 against 0.1627-0.1644,
 * at 2^24 0.0534-0.0537 against 0.0504-0.0512. */
struct merge_launch_policy {
  static constexpr int PREFETCH_PERCENT = 35;
  static constexpr int SAMPLED_LANES = 8;
  static constexpr int SAMPLE_STRIDE = 512;
};

/* mergesort: the blocksort tile, and the tile of each global pass.  The
 * blocksort tile must be a whole number of pass tiles, so that no pass
 * tile straddles two merges, and both multiples of the sample stride (64).
 * The shapes below were measured with the pass tile that loads with its
 * threads (merge_agent); the passes run the staged tile since 2026-11-27
 * (i32 keys at 2^26 2.92 -> 2.65 ms, H200), on the same shapes, not swept
 * again. */
template <int KEY_BYTES, int VALUE_BYTES> struct mergesort_policy;
/* 4-byte keys: blocksort 512 x 23 (11776 keys: 13 passes at 2^26), passes
 * 128 x 23: 2.93 ms, against 3.00 for 512 x 17, 3.02 for 256 x 23 and
 * 3.04 for 256 x 17 (14 passes).  The blocksort alone: 0.71 ms (512 x 17:
 * 0.75, 256 x 17: 0.63); it is bound by shared-memory bandwidth (ncu: 95%
 * L1/shared throughput), each pass by DRAM (~0.171 ms, 75% of a copy). */
template <> struct mergesort_policy<4, 0> {
  typedef tile_policy<512, 23> blocksort;
  typedef tile_policy<128, 23> pass;
};
/* 4-byte keys, 4-byte values: blocksort 512 x 11 (5632 keys, 14 passes),
 * passes 128 x 11: 5.56 ms, against 5.70 for 256 x 11 (15 passes) and 5.97
 * for 256 x 17. */
template <> struct mergesort_policy<4, 4> {
  typedef tile_policy<512, 11> blocksort;
  typedef tile_policy<128, 11> pass;
};
template <> struct mergesort_policy<4, 8> {
  typedef tile_policy<256, 11> blocksort;
  typedef tile_policy<128, 11> pass;
};
/* 8-byte keys: blocksort 256 x 15 (3840 keys), passes 128 x 15: 5.70 ms
 * (5.44 in an earlier run) against 5.74 for 512 x 11 and, earlier, 6.05 for
 * 256 x 11 and 6.72 for 256 x 7. */
template <> struct mergesort_policy<8, 0> {
  typedef tile_policy<256, 15> blocksort;
  typedef tile_policy<128, 15> pass;
};
template <> struct mergesort_policy<8, 4> {
  typedef tile_policy<256, 11> blocksort;
  typedef tile_policy<128, 11> pass;
};
/* 8-byte keys, 8-byte values: blocksort 256 x 11, passes 128 x 11:
 * 10.75 ms against 10.85 for 256 x 7 (and, earlier, 10.89 for 512 x 7). */
template <> struct mergesort_policy<8, 8> {
  typedef tile_policy<256, 11> blocksort;
  typedef tile_policy<128, 11> pass;
};

/* segsort: the segmented blocksort and its passes.  Mergesort's shapes:
 * at 2^26 i32 on the H200, 512 x 23 gave 1.27 / 1.34 / 1.79 ms at mean
 * segment lengths 32 / 300 / 10000 against 1.28 / 1.37 / 2.01 for 512 x 11
 * (passes 128 x 11), whose shorter network did not pay for its extra
 * passes.  The segmented blocksort itself is the cost (ncu: 0.91 ms of a
 * 1.28 ms sort at L = 32 with 512 x 11).  Locality sort uses
 * mergesort_policy and mergesort's blocksort. */
template <int KEY_BYTES, int VALUE_BYTES> struct segsort_policy
    : mergesort_policy<KEY_BYTES, VALUE_BYTES> {};

/* setop: a tile of NT * VT inputs per block, and MIN_BLOCKS resident
 * blocks asked of the compiler.  Since the walk keeps two bitfields instead
 * of VT keys and sources, ptxas spends registers freely unless bounded; the
 * bound (a few spilled bytes at most) is worth more than the spills.
 * mgpu_tune setop, H200, 2^26 keys (half in each input, ~50% matches),
 * intersection / union ms (NTxVT/MIN_BLOCKS):
 *   i32 keys:  128x23/10 0.311 / 0.352, 256x23/5 0.309 / 0.352, 128x23/8
 *              0.325 / 0.358, 256x15/6 0.323 / 0.359, 128x15/12 0.336 / 0.373
 *   i32 pairs: 256x11/8 0.364 / 0.513, 128x23/10 0.362 / 0.551, 256x11/6
 *              0.400 / 0.558, 128x15/10 0.428 / 0.605; unbounded 256x11
 *              0.598 / 0.793
 *   i64 keys:  128x19/6 0.429 / 0.514, 256x15/4 0.443 / 0.529, 128x15/8
 *              0.478 / 0.535
 *   i64 pairs: 256x11/4 0.611 / 0.892, 128x11/8 0.633 / 0.962
 * With the tile loaded by bulk copy (same sweep, a machine later):
 *   i32 keys:  128x23/10 0.272 / 0.317, 128x23/8 0.278 / 0.310, 256x23/5
 *              0.275 / 0.313, 256x15/6 0.286 / 0.323, 128x15/12 0.299 / 0.337
 *   i32 pairs: 256x11/8 0.344 / 0.500, 128x23/10 0.325 / 0.513, 256x11/6
 *              0.375 / 0.515, 128x15/10 0.364 / 0.525
 *   i64 keys:  128x19/6 0.370 / 0.444, 256x15/4 0.403 / 0.470, 128x15/8
 *              0.411 / 0.468
 *   i64 pairs: 128x11/8 0.538 / 0.807, 256x11/4 0.552 / 0.821
 * Longer threads (fifth round, same sweep; 64 registers at 8 blocks):
 *   i32 keys:  128x31/8 0.257 / 0.298, 256x31/4 0.253 / 0.298, 128x23/10
 *              0.271 / 0.320, 128x31/9 0.280 / 0.328; with 64-bit slot
 *              masks 128x39/7 0.261 / 0.308, 128x47/6 0.277 / 0.331,
 *              128x63/4 0.267 / 0.304 (not kept)
 *   i32 pairs: 256x11/8 0.333 / 0.487, 128x31/8 0.314 / 0.518, 256x23/4
 *              0.324 / 0.510
 *   i64 keys:  128x31/5 0.366 / 0.438, 128x19/6 0.383 / 0.442
 *   i64 pairs: 128x23/6 0.433 / 0.739, 128x31/5 0.463 / 0.805, 128x11/8
 *              0.539 / 0.802
 * Values staged in shared memory (the `staged` tile, union and symmetric
 * difference of 4-byte pairs): i32 128x23/7 0.349 / 0.428, 128x31/5
 * 0.357 / 0.427, 256x11/7 0.364 / 0.452; i64 128x23/4 0.577 / 0.734,
 * 128x11/8 0.605 / 0.760 (no gain over gathering: not staged).
 * With the walk's step written in PTX (sixth round; 40 registers for i32
 * keys, so shared memory bounds 128x31 to 8 blocks):
 *   i32 keys:  256x31/4 0.224 / 0.267, 128x31/8 0.231 / 0.266, 128x27/10
 *              0.230 / 0.271, 128x23/12 0.231 / 0.272, 96x31/11 0.237 /
 *              0.279
 *   i32 pairs: 128x23/10 0.281 / 0.436, 128x31/8 0.284 / 0.480, 256x11/8
 *              0.315 / 0.452; staged 128x31/5 0.345 / 0.422, 128x23/7
 *              0.343 / 0.431, 128x19/8 0.354 / 0.446
 *   i64 keys:  128x31/5 0.385 / 0.440, 128x19/6 0.364 / 0.443
 *   i64 pairs: 128x23/6 0.435 / 0.740, 128x31/5 0.459 / 0.807, 128x11/8
 *              0.542 / 0.800
 * With a tile asking L2 for the keys of the tile `prefetch` percent of a
 * wave ahead (same sweep; PF = percent, 0 = none):
 *   i32 keys 256x31/4: PF 0 0.228 / 0.267, 25 0.211 / 0.248, 50 0.208-
 *              0.217 / 0.248-0.252, 75 0.214 / 0.253, 100 0.214 / 0.262,
 *              200 0.247 / 0.283 (128x31/8 alike)
 *   i32 pairs 128x23/10 (keys prefetched, values gathered): PF 0 0.298 /
 *              0.463, 25 0.276 / 0.448, 50 0.275 / 0.459, 75 0.280 / 0.481;
 *              prefetching the values as well was slower (PF 100 0.333)
 *   i32 staged 128x31/5: PF 0 0.351 / 0.431, 25 0.314 / 0.388, 50 0.317 /
 *              0.388, 75 0.321 / 0.414; 128x23/7 PF 50 0.309 / 0.384
 *   i64 keys:  128x19/6 PF 50 0.332 / 0.400, 128x31/5 PF 50 0.355 / 0.404,
 *              PF 0 0.376 / 0.442
 *   i64 pairs 128x23/6: PF 50 0.414 / 0.767, PF 0 0.444 / 0.752
 * With a look-back warp (eighth round; W = the warp, launches early and
 * the early count in all; same sweep, 5 reps):
 *   i32 keys:  256x31/4 W 0.192-0.194 / 0.234, no W 0.198 / 0.239, W PF 25
 *              0.191 / 0.234, 128x31/8 W 0.198 / 0.241, 256x23/5 W 0.198 /
 *              0.238, 192x31/6 W 0.199 / 0.243
 *   i32 pairs: 128x23/10 W 0.245-0.247 / 0.417-0.422 (gathered), no W 0.266
 *              / 0.444; 192x23/7 W 0.244 / 0.424; 128x31/8 W 0.246 / 0.458;
 *              staged 128x31/5 W 0.289-0.293 / 0.363-0.370, no W 0.307 /
 *              0.376; staged 128x27/6 W 0.287 / 0.365
 *   i64 keys:  128x31/5 W 0.327-0.328 / 0.389-0.391, 128x19/6 no W 0.336-
 *              0.342 / 0.396-0.400, 128x19/6 W 0.359 / 0.425
 *   i64 pairs: 128x23/6 no W 0.408-0.409 / 0.753-0.754, W 0.413 / 0.766-
 *              0.769; 128x15/8 W 0.428 / 0.726
 * Tenth round (H100, 7 reps, two runs, W, launches early, count early):
 *   i32 keys:  256x31/4 0.222-0.224 / 0.277-0.285, 512x31/2 0.235-0.239 /
 *              0.285-0.288, 512x19/3 0.239 / 0.289-0.291
 *   i32 pairs: 256x23/5 0.288-0.289 / 0.524-0.525 (gathered), 128x23/10
 *              0.298 / 0.537-0.538, 512x23/2 0.313-0.315 / 0.553; staged
 *              128x31/5 0.328-0.335 / 0.425-0.430, 256x23/3 0.345 / 0.449-
 *              0.451, 256x31/2 0.352-0.355 / 0.470-0.487
 *   8-byte values behind 4-byte keys keep 128x23/10 (not measured).
 * (docs/TUNING.md has the history). */
template <int KEY_BYTES, int VALUE_BYTES> struct setop_policy {
  typedef typename std::conditional<
      KEY_BYTES == 4,
      typename std::conditional<
          VALUE_BYTES == 0, tile_policy<256, 31, 4>,
          typename std::conditional<VALUE_BYTES == 4, tile_policy<256, 23, 5>,
                                    tile_policy<128, 23, 10>>::type>::type,
      typename std::conditional<VALUE_BYTES == 0, tile_policy<128, 31, 5>,
                                tile_policy<128, 23, 6>>::type>::type type;
  /* Intersections in tiles with half the kept list (eleventh round, H100,
   * 2^26, mgpu_tune half):
   *   4-byte keys (and 4-byte values, gathered) 256 x 31 / 5: keys
   *     0.1988-0.2010 ms against 0.2075-0.2102 for 256 x 31 / 4 (256 x 27
   *     / 5 0.205-0.208, 128 x 31 / 10 0.210-0.214; two runs of two
   *     passes); pairs 0.2624-0.2645 against 0.2752-0.2766 for 256 x 23
   *     / 5 (256 x 23 / 6 0.263-0.267; the same runs)
   *   8-byte keys 128 x 31 / 6: 0.3397-0.3424 against 0.3558-0.3641 for
   *     128 x 31 / 5 (one run, two passes)
   *   8-byte pairs keep their tiles (128 x 31 / 5 with half the list
   *     0.463-0.464 against 0.470-0.479: not taken, one run).
   * Twelfth round, H200, 2^26, mgpu_tune half32 (two passes): a sixth
   *   tile an SM did not pay; keys 256 x 31 / 5 0.1844-0.1848 against
   *   224 x 31 / 6 0.1858-0.1882, 192 x 31 / 7 0.1910-0.1913, 256 x 27 / 5
   *   0.1903-0.1904; pairs 0.2319-0.2336 against 0.2315-0.2332 (level),
   *   0.2416-0.2430, 0.2373-0.2377.
   * Fourteenth round, H200, mgpu_tune N 3-5 early / loaded: pairs gather
   *   their kept values while the tile waits for its place
   *   (early_values_policy): i32 pairs 0.2104-0.2116 against 0.2300-0.2303
   *   at 2^26, 0.7470-0.7481 against 0.8155-0.8176 at 2^28; 8-byte pairs
   *   (with the look-back warp, which early values need) 0.3846 against
   *   0.4052-0.4240 at 2^26, 1.4453-1.4459 against 1.5158-1.5993 at 2^28. */
  typedef typename std::conditional<
      KEY_BYTES == 4 && VALUE_BYTES == 0, intersection_policy<256, 31, 5>,
      typename std::conditional<
          KEY_BYTES == 4 && VALUE_BYTES == 4,
          early_values_policy<intersection_policy<256, 31, 5>>,
          typename std::conditional<
              KEY_BYTES == 8 && VALUE_BYTES == 0,
              intersection_policy<128, 31, 6>,
              typename std::conditional<KEY_BYTES == 8 && VALUE_BYTES == 8,
                                        early_values_policy<type>,
                                        type>::type>::type>::type>::type
      intersection;
  /* Held tiles (setop_held_kernel; twelfth round, i32 keys and pairs,
   * H100 and H200, mgpu_tune held).  Rounds = tiles per resident block
   * (four an SM): 2^22 ~1, 2^24 ~4, 2^26 ~16, 2^28 ~64 for 256 x 31.
   *   intersection, keys and pairs, 256 x 31 / 4, HOLD 8: 8-14% faster at
   *     2^24; at 2^26 keys +1-2% (H100) and -2-3% (H200), pairs +0.5% and
   *     -3%; at 2^28 2-3% slower; at 2^22 level (keys) or 6% slower
   *     (pairs): rounds [2, 10)
   *   difference of keys, 256 x 31 / 4, HOLD 10: +9-12% at 2^24, +3-5% at
   *     2^26, +3.5% at 2^28 (H100), 5% slower at 2^22: rounds >= 2
   *     (thirteenth round: [2, 10), the rounds_policy tile being faster
   *     beyond)
   *   difference of pairs, 256 x 23 / 4, HOLD 8: +17% at 2^22 (1.35
   *     rounds), +3-5% at 2^24, -1.5-4% at 2^26: rounds [1, 10)
   *   union and symmetric difference emit more than registers hold: none.
   * 8-byte keys or values were not measured: none.
   * With this rule (thirteenth round, H200 sweep at bbfe651 against the
   * kernels before): i32 keys intersection 0.0621 against 0.0695 ms at
   * 2^24, keys difference 0.0677 / 0.0749 at 2^24 and 0.1972 / 0.2078 at
   * 2^26, pairs intersection 0.0770 / 0.0850 at 2^24, pairs difference
   * 0.0393 / 0.0456 at 2^22; elsewhere within the run-to-run spread.
   * Fourteenth round (mgpu_tune early, i32 pairs, early values in both
   * kernels): intersection held 0.0715-0.0718 against 0.0736 at 2^24, so
   * held at [2, 10) still; difference held 0.0804-0.0811 against the
   * rounds tile's 0.0770-0.0779 at 2^24 and 0.0338 against 0.0310-0.0316
   * at 2^22: differences of pairs are no longer held. */
  typedef typename std::conditional<
      KEY_BYTES == 4 && VALUE_BYTES == 0,
      held_intersection_policy<256, 31, 4, 8, 2, 10>,
      typename std::conditional<
          KEY_BYTES == 4 && VALUE_BYTES == 4,
          early_values_policy<held_intersection_policy<256, 31, 4, 8, 2, 10>>,
          no_held_policy>::type>::type held_intersection;
  typedef typename std::conditional<KEY_BYTES == 4 && VALUE_BYTES == 0,
                                    held_policy<256, 31, 4, 10, 2, 10>,
                                    no_held_policy>::type held_difference;
  /* Differences of 4-byte keys (no or 4-byte values) in tiles whose kept
   * list holds half the tile, stored in rounds (rounds_policy; a
   * difference emits ~30% here, so a second round is rare): a fifth tile
   * an SM.  Thirteenth round, H200, mgpu_tune rounds, two passes, ms at
   * 2^26 / 2^28 (037a5a7: places listed from the bits below each slot):
   *   keys  256 x 31 / 5 0.1890-0.1891 / 0.6421-0.6423, against 256 x 31
   *         / 4 0.2073-0.2077 / 0.7194-0.7217 and the held H<256,31,4,10>
   *         0.1974-0.1998 / 0.7093-0.7115; at 2^24 the held kernel is
   *         faster (0.0666 against 0.0739): held at [2, 10) rounds
   *   pairs 256 x 31 / 5 0.2544-0.2547 / 0.9124-0.9172, against 256 x 23
   *         / 5 0.2802-0.2805 / 1.0182-1.0218 (held H<256,23,4,8> at
   *         [1, 10) rounds)
   * Fourteenth round: with early values, i32 pairs 0.2266-0.2267 /
   *   0.8159-0.8196 against 0.2517-0.2519 / 0.9037-0.9039; 8-byte pairs
   *   in their tile with the look-back warp 0.4156-0.4200 / 1.5719-1.5772
   *   against 0.4415-0.4519 / 1.6723-1.6772 (warp 0 looking back).
   * Seventeenth round (mgpu_tune align, two runs of two passes, ms at
   *   2^24 / 2^26 / 2^28): stores in whole lines (aligned_store_policy),
   *   keys 0.0718-0.0722 / 0.1868-0.1879 / 0.6413-0.6439 against
   *   0.0709-0.0724 / 0.1873-0.1886 / 0.6413-0.6444 (level), pairs
   *   0.0781-0.0789 / 0.2256-0.2286 / 0.8117-0.8177 against 0.0778-0.0792
   *   / 0.2273-0.2302 / 0.8230-0.8328 (1-1.5% from 2^26 on). */
  typedef typename std::conditional<
      KEY_BYTES == 4 && VALUE_BYTES == 0,
      aligned_store_policy<rounds_policy<256, 31, 5>>,
      typename std::conditional<
          KEY_BYTES == 4 && VALUE_BYTES == 4,
          aligned_store_policy<early_values_policy<rounds_policy<256, 31, 5>>>,
          typename std::conditional<KEY_BYTES == 8 && VALUE_BYTES == 8,
                                    early_values_policy<type>,
                                    type>::type>::type>::type difference;
  /* Union and symmetric difference of 4-byte keys in tiles whose list is
   * just longer than they usually emit (~80% and ~60% of a tile; a tile
   * that emits more takes a second round), so that five fit an SM.  With
   * cub's scan storage in the tile, 256 x 31 with 2/3 and 256 x 29 with
   * 85% (45,664 bytes) ran four an SM, and rounds2 picked the smaller
   * tiles below; without it (44,480 bytes, rounds3, same run as the
   * policy's verification, ms at 2^26 / 2^28): union 256 x 29 / 5, 85%
   * 0.2260-0.2304 / 0.8010-0.8024 against 256 x 27 / 5 0.2282-0.2299 /
   * 0.8136-0.8141; symmetric difference 256 x 31 / 5, 2/3 0.2082-0.2095
   * / 0.7325-0.7326 against 256 x 29 / 5, 70%, 0.2105-0.2109 / 0.7351-
   * 0.7387.  Thirteenth round, H200, mgpu_tune rounds2, two passes, ms at
   * 2^24 / 2^26 / 2^28 (with cub's storage):
   *   union 256 x 27 / 5, 85%: 0.0802-0.0826 / 0.2271-0.2295 / 0.8105-
   *     0.8123 against 256 x 31 / 4 0.0834-0.0836 / 0.2338-0.2339 /
   *     0.8293-0.8295 (256 x 29, 85%: 0.0808-0.0833 / 0.2364-0.2379 /
   *     0.8442-0.8481)
   *   symmetric difference 256 x 29 / 5, 70%: 0.0766-0.0778 / 0.2097-
   *     0.2123 / 0.7396-0.7413 against 0.0792-0.0793 / 0.2211-0.2217 /
   *     0.7856-0.7944 (256 x 31, 2/3: 0.0776-0.0780 / 0.2167-0.2173 /
   *     0.7705-0.7764)
   * Staged pairs kept 128 x 31 / 5 then (a sixth tile does not fit).
   * Fourteenth round (mgpu_tune loaded, ms at 2^26 / 2^28): each thread
   * reads its first 8 outputs into registers while the tile waits for
   * its place (early_outputs_policy): union 0.2259-0.2281 / 0.7832-0.7907
   * against 0.2295-0.2300 / 0.8000-0.8011, symmetric difference
   * 0.2054-0.2060 / 0.7147-0.7181 against 0.2102-0.2103 / 0.7294-0.7343;
   * 16 spilled and were slower (0.2300 / 0.2178 at 2^26).  8-byte pairs
   * (values gathered during the wait, with the look-back warp; mgpu_tune
   * loaded8, 128 x 23 / 6): 8 a thread, union 0.6962-0.6992 / 2.7169-
   * 2.7217 against 0.7534-0.7537 / 2.9346-2.9402, symmetric difference
   * 0.6017-0.6049 / 2.3415-2.3491 against 0.6454-0.6467 / 2.5148-2.5221
   * (4 a thread: 0.7265-0.7330 / 0.6242-0.6246 at 2^26).
   * Fifteenth round (mgpu_tune ustore / stream, ms at 2^24 / 2^26 /
   * 2^28): union threads store two outputs at a time from the kept list
   * (unrolled_store_policy), their shared loads in flight together:
   * 0.0768-0.0798 / 0.2191-0.2223 / 0.7693-0.7755 against 0.0813-0.0820
   * / 0.2237-0.2268 / 0.7777-0.7848 (four: 0.2183-0.2220 / 0.7736-0.7827
   * in another run; symmetric difference, intersection and difference
   * within 1% either way with four, not taken).
   * Seventeenth round (mgpu_tune align, two runs of two passes, ms at
   * 2^24 / 2^26 / 2^28): stores in whole lines (aligned_store_policy),
   * which the outputs read early cannot take (their base is not known
   * when they are read), so without those:
   *   union 0.0764-0.0767 / 0.2118-0.2140 / 0.7444-0.7474 against the
   *     tile above's 0.0784-0.0792 / 0.2187-0.2205 / 0.7720-0.7818
   *     (aligned with the 8 early: 0.0775-0.0780 / 0.2154-0.2159 /
   *     0.7498-0.7499; one at a time 0.7561-0.7607 at 2^28; four at a
   *     time, or 4 early, level with two)
   *   symmetric difference, two at a time: 0.0752-0.0762 / 0.2025-0.2028
   *     / 0.7039-0.7088 against 0.0762-0.0764 / 0.2053-0.2065 /
   *     0.7139-0.7204 (aligned with the 8 early: 0.0780-0.0788 at 2^24)
   * Intersections were level or up to 2% slower aligned, and staged pairs
   * union 2-3% slower: they keep their stores. */
  typedef typename std::conditional<
      KEY_BYTES == 4 && VALUE_BYTES == 0,
      aligned_store_policy<
          unrolled_store_policy<rounds_policy<256, 29, 5, 850>, 2>>,
      typename std::conditional<KEY_BYTES == 8 && VALUE_BYTES == 8,
                                early_outputs_policy<type, 8>,
                                type>::type>::type union_tile;
  typedef typename std::conditional<
      KEY_BYTES == 4 && VALUE_BYTES == 0,
      aligned_store_policy<
          unrolled_store_policy<rounds_policy<256, 31, 5, 667>, 2>>,
      typename std::conditional<KEY_BYTES == 8 && VALUE_BYTES == 8,
                                early_outputs_policy<type, 8>,
                                type>::type>::type symmetric_difference_tile;
  /* Union and symmetric difference of 4-byte keys and values stage the
   * values in shared memory, the union in this tile (the symmetric
   * difference in the next); 4-byte pairs did not gain with values
   * gathered instead (fifteenth round: 0.3875-0.4007 ms
   * at 2^26 for keys-only 256 x 29 / 5 tiles, the first 4 or 8 values a
   * thread gathered during the wait, against 0.3487-0.3521).
   * Each thread reads its first outputs into registers while the tile
   * waits for its place (16 at first: fourteenth round, mgpu_tune loaded,
   * ms at 2^26 / 2^28): union 0.3467-0.3473 / 1.2892-1.3034 against
   * 0.3612-0.3655 / 1.3424-1.3456, symmetric difference 0.3281-0.3292 / 1.2108-1.2171
   * against 0.3360-0.3367 / 1.2459-1.2495 (8: 0.3538-0.3562 / 0.3292-
   * 0.3309; 24: 0.3548-0.3549 / 0.3297-0.3460).
   * Measured again with today's tiles (thirty-eighth round, mgpu_tune
   * early20, H200, three passes, ms at 2^24 / 2^26 / 2^28, 16 / 12 / 20
   * early; no spills at 20):
   *   union: 0.1011-0.1017 / 0.3187-0.3194 / 1.1770-1.1814, 12
   *     0.0998-0.1007 / 0.3153-0.3160 / 1.1604-1.1619, 20 0.1016-0.1024
   *     / 0.3186-0.3189 / 1.1689-1.1788
   *   symmetric difference: 0.0950-0.0967 / 0.2873-0.2894 /
   *     1.0420-1.0452, 12 0.0950-0.0954 / 0.2896-0.2913 / 1.0497-1.0529,
   *     20 0.0941-0.0949 / 0.2821-0.2833 / 1.0220-1.0243
   * so the union read 12 (8 since the thirty-ninth round, with its
   * stores four at a time: at `staged` below) and the symmetric
   * difference reads 20.
   * 8-byte pairs stage theirs too since the thirty-first round (the fifth
   * round's staged tile, without the later rounds' changes, had not
   * gained: below, at `staged`); other widths of values keep gathering
   * (not measured). */
  static constexpr bool stage_values = VALUE_BYTES == KEY_BYTES;
  /* Both staged tiles land the values on an mbarrier of their own
   * (setop_start_load's vloaded; a policy switch until the split was the
   * only staged load): the walk and the count, which later tiles wait
   * for, follow the keys alone (twenty-second round, mgpu_tune split, a
   * mode taken out in ab3d571 with the switch; H200, two passes, ms, the
   * tile without / with the split; 2^26 and 2^28 wide calls):
   *   union: 2^22 0.0478-0.0482 / 0.0460-0.0468, 2^24 0.1124-0.1140 /
   *     0.1107-0.1108, 2^25 0.1906-0.1909 / 0.1883-0.1887, 2^26
   *     0.3499-0.3529 / 0.3452-0.3477, 2^28 1.2891-1.2951 / 1.2740-1.2783
   *   symmetric difference: 2^22 0.0458-0.0460 / 0.0456-0.0457, 2^24
   *     0.1068-0.1073 / 0.1043-0.1044, 2^25 0.1784 / 0.1749-0.1764, 2^26
   *     0.3204-0.3266 / 0.3178-0.3207, 2^28 1.1802-1.1860 / 1.1635-1.1799
   * Values copied only once the keys had landed, or once the tile had
   * counted, were 2-5% slower at 2^26; with the split, 128 x 27 / 6,
   * 128 x 29 / 6 (85%) and 128 x 23 / 7 unions and 128 x 27 / 6 and
   * 128 x 25 / 7 (70%) symmetric differences were level or slower.
   * Twenty-fifth round (mgpu_tune shape, two passes, ms at 2^26): more
   * threads and shorter walks were slower, union 0.3392-0.3402 against
   * 256 x 15 / 5 0.3556-0.3565, 192 x 21 / 5 0.3516-0.3529, 160 x 25 / 5
   * 0.3580-0.3588, 128 x 23 / 7 0.3492-0.3500; symmetric difference
   * 0.3152-0.3153 against 256 x 15 / 5 0.3378-0.3395, 192 x 21 / 5
   * 0.3286-0.3302. */
  /* 8-byte keys and values (thirty-first round, mgpu_tune stage8,
   * stage8b and stage8c, H200, two or three passes, ms, the gathered
   * union_tile EO<T<128,23,6>,8> / the staged union EO<T<128,31,3>,16>):
   *   2^20 0.0308-0.0310 / 0.0266-0.0270, 2^21 0.0356-0.0359 /
   *   0.0438-0.0444, 2^22 0.0613-0.0620 / 0.0626-0.0634, 2^23
   *   0.1040-0.1057 / 0.0985-0.1003, 2^24 0.1897-0.1911 / 0.1724-0.1731,
   *   2^25 0.3633-0.3638 / 0.3158-0.3176, 2^26 0.7006-0.7012 /
   *   0.5958-0.5969, 2^27 1.385-1.393 / 1.176-1.183, 2^28 2.760-2.764 /
   *   2.299-2.302.
   * Other staged shapes at 2^26 / 2^28: 128 x 23 / 4 with 8 early
   * 0.5987-0.6043 / 2.288-2.337 (12 early 0.5984-0.6006 / 2.315), 128 x
   * 31 / 3 with 8 0.5998-0.6055 / 2.326, 128 x 19 / 5 0.6025-0.6196, 128
   * x 15 / 6 0.6197-0.6267, 256 x 15 / 3 0.6140, 128 x 11 / 8
   * 0.6457-0.6514.  Between one and four rounds of resident tiles the
   * gathered tiles are faster (staged_gather_below). */
  /* The 4-byte union's tile is 128 x 32 (thirty-ninth round, mgpu_tune
   * stride2, H200, three passes, ms at 2^24 / 2^26 / 2^28, 128 x 31 /
   * 128 x 32, both 5 an SM with 12 early): 0.1012-0.1020 / 0.1006-0.1007,
   * 0.3149-0.3167 / 0.3129-0.3175, 1.1583-1.1619 / 1.1531-1.1537: a
   * thirty-second of fewer tiles and points, 42 KB a tile (and at 2^26
   * its 16,385 points fit setop_partition_lanes' 16 lanes a point).
   * After its base it stores four outputs a thread at a time, having read
   * 8 early (same round, mgpu_tune sust, three passes, ms at 2^24 / 2^26
   * / 2^28, one at a time with 12 early / four with 8): 0.1018-0.1028 /
   * 0.0998-0.1012, 0.3184-0.3196 / 0.3142-0.3148, 1.1694-1.1742 /
   * 1.1503-1.1517; two at a time with 12 early 0.0999-0.1016,
   * 0.3144-0.3153, 1.1499-1.1540.  Each output's place and key are
   * dependent shared loads, ~0.9 us a tile one at a time (thirty-third
   * round's stamps).  Those stores go in whole lines, each warp's first
   * at a line's first key (aligned_store_policy; same round, mgpu_tune
   * s512, three passes, ms at 2^24 / 2^26 / 2^28, without / with):
   * 0.0989-0.1017 / 0.0984-0.0989, 0.3106-0.3114 / 0.3050-0.3072,
   * 1.1387-1.1453 / 1.1213-1.1242 (with 16 early and one at a time,
   * seventeenth round, they had been slower). */
  typedef typename std::conditional<
      KEY_BYTES == 4,
      aligned_store_policy<unrolled_store_policy<
          early_outputs_policy<tile_policy<128, 32, 5>, 8>, 4>>,
      early_outputs_policy<tile_policy<128, 31, 3>, 16>>::type staged;
  /* Staged calls (union and symmetric difference) of fewer than 16 tiles
   * a resident block park each tile's output in shared memory of its own
   * (setop_parked_kernel; nineteenth round, mgpu_tune parked, H200, two
   * passes, ms, the tiles above / parked 256 x 15 / 3; tiles a resident
   * block in brackets):
   *   union: 2^20 (0.7) 0.0240-0.0244 / 0.0230-0.0233, 2^22 (2.8)
   *     0.0471-0.0480 / 0.0425-0.0429, 2^24 (11) 0.1123-0.1134 /
   *     0.1084-0.1088, 2^25 (22) 0.1899-0.1928 / 0.1951-0.1954, 2^26
   *     0.3494-0.3511 / 0.3651-0.3704, 2^28 1.2874-1.2916 / 1.3768-1.3797
   *   symmetric difference: 2^22 0.0462-0.0463 / 0.0414-0.0418, 2^24
   *     0.1071-0.1073 / 0.1030-0.1039, 2^25 0.1775-0.1777 /
   *     0.1842-0.1843, 2^26 0.3221-0.3236 / 0.3466-0.3479
   * 128 x 31 / 3, 192 x 19 / 3, 256 x 11 / 4 and 320 x 11 / 3 parked were
   * slower than 256 x 15 / 3 from 2^24 on.  Split loads (the values on an
   * mbarrier of their own, waited for before the parked copy; twenty-second
   * round, mgpu_tune split as above, two passes, ms without / with):
   *   union: 2^22 0.0426 / 0.0411-0.0412, 2^23 0.0643-0.0646 /
   *     0.0629-0.0633, 2^24 0.1086-0.1090 / 0.1072-0.1074
   *   symmetric difference: 2^22 0.0416-0.0419 / 0.0407-0.0412, 2^23
   *     0.0619-0.0624 / 0.0613-0.0614, 2^24 0.1035-0.1041 / 0.1025-0.1035
   * (2^24 with the wide calls' prefetch and stride on both sides). */
  typedef parked_policy<256, 15, 3, 16> parked;
  /* Only 4-byte pairs park: 8-byte ones were not measured parked (a tile
   * and its parked output would take twice the room). */
  static constexpr bool park_staged = KEY_BYTES == 4;
  /* Staged calls that do not park take the gathered tiles (union_tile,
   * symmetric_difference_tile) when they make more than one and fewer
   * than this many tiles a resident staged block (0: never).  8-byte
   * pairs, thirty-first round, staged 128 x 31 / 3 (396 resident on an
   * H200) against the gathered tiles, ms: 2^20 (0.67 rounds) union
   * 0.0266-0.0270 against 0.0308-0.0310, symmetric difference
   * 0.0264-0.0265 against 0.0278-0.0287; 2^21 (1.3 rounds) 0.0438-0.0444
   * against 0.0356-0.0359, 0.0414-0.0417 against 0.0331-0.0336; 2^22
   * (2.7) 0.0626-0.0634 against 0.0613-0.0620, 0.0587-0.0595 against
   * 0.0556-0.0560; 2^23 (5.3) 0.0985-0.1003 against 0.1040-0.1057,
   * 0.0927-0.0930 against 0.0921-0.0925. */
  static constexpr int staged_gather_below = KEY_BYTES == 4 ? 0 : 4;
  /* Symmetric difference emits ~60% of a tile: its kept list at 70%
   * (rounds_policy) lets a sixth staged tile fit an SM (fifteenth round,
   * mgpu_tune gunion, ms at 2^24 / 2^26 / 2^28: 128 x 29 / 6, 70%
   * 0.1058-0.1082 / 0.3234-0.3264 / 1.1871-1.1891 against 0.1062-0.1066
   * / 0.3286-0.3301 / 1.2150-1.2157; union at 85%, 128 x 29 / 6, was
   * level: 0.3546-0.3575 against 0.3487-0.3521 at 2^26). */
  /* 8-byte pairs: 128 x 31 / 3 with 8 outputs read early (thirty-first
   * round, H200, ms against the gathered symmetric_difference_tile):
   * 2^24 0.1585-0.1602 / 0.1650-0.1662, 2^25 0.2898-0.2946 /
   * 0.3116-0.3172, 2^26 0.5466-0.5469 / 0.5995-0.6011, 2^27
   * 1.067-1.070 / 1.156-1.162, 2^28 2.097-2.101 / 2.323; 128 x 25 / 4
   * with the list at 70% was level (0.5448-0.5462 / 2.091-2.098) and
   * slower at 2^22, 128 x 23 / 4 0.5506-0.5547 / 2.112-2.128. */
  typedef typename std::conditional<
      KEY_BYTES == 4,
      early_outputs_policy<rounds_policy<128, 29, 6, 700>, 20>,
      early_outputs_policy<tile_policy<128, 31, 3>, 8>>::type
      staged_symmetric_difference;
  /* (Its stores two or four at a time were 0.5-1% slower at 2^24-2^28:
   * thirty-ninth round, mgpu_tune sust.) */
  /* How far ahead (percent of a wave of resident tiles) a tile asks L2 for
   * the keys (and staged values) of a later tile; 0: no prefetch. */
  static constexpr int prefetch = 50;
  static constexpr int staged_prefetch = 50;
  /* Calls of at least kSetopWideWaves waves (setop.cuh): the prefetch
   * percent, and samples every wide_stride keys (0: kSetopSampleStride).
   * Eighteenth round (mgpu_tune xop, H200, i32, the library's tiles, two
   * runs of two passes at 2^24 and 2^26; ms, 50% / 512 the policy, then
   * 35% / 1024):
   *   2^26 keys intersection 0.1818-0.1832 / 0.1798-0.1810, difference
   *     0.1887-0.1912 / 0.1873-0.1886, union 0.2124-0.2143 /
   *     0.2100-0.2106, symmetric difference 0.2015-0.2031 /
   *     0.1997-0.2012; pairs intersection 0.2101-0.2143 / 0.2077-0.2119,
   *     difference 0.2231-0.2258 / 0.2196-0.2218, staged union
   *     0.3505-0.3524 / 0.3491-0.3495
   *   2^28 (one run): keys 0.5-1% faster, pairs difference and union 0.5%
   *   2^25 (one run): the unions level (keys 0.1206-0.1214 against
   *     0.1204-0.1226), intersections and differences (held) 1-2% faster;
   *     2^24 (direct points, held tiles): keys union and symmetric
   *     difference 1.5-2% slower with 1024, the rest level.
   * 8-byte keys and values (thirty-first round, mgpu_tune xop8, H200,
   * two passes, the library's tiles, ms, 50% / 35%, samples every 512
   * keys): at 2^26 keys union 0.3722-0.3740 / 0.3641-0.3649, symmetric
   * difference 0.3439-0.3443 / 0.3396-0.3427, pairs union 0.5930-0.5984 /
   * 0.5892-0.5903, difference 0.4057-0.4072 / 0.4027-0.4034, the
   * intersections level; at 2^28 keys union 1.3689-1.3761 /
   * 1.3499-1.3588, pairs union 2.3036-2.3041 / 2.2618-2.2642, the others
   * level to 0.6% faster; at 2^24 level to 1.5% faster.  Samples every
   * 1,024 keys were level or slower for them (2^26 keys union
   * 0.3660-0.3664, pairs union 0.5909-0.5925 at 35%). */
  static constexpr int wide_prefetch = 35;
  static constexpr int wide_stride = KEY_BYTES == 4 ? 1024 : 0;
  /* A warp of its own looks back from the tile's start (setop_kernel);
   * not for 8-byte pairs, where it was 1-2% slower, except in the tiles
   * that gather values early, which need it (setop_launch). */
  static constexpr bool lookback_warp = !(KEY_BYTES == 8 && VALUE_BYTES != 0);
  /* The partition and tile launches start early (grid_dependency.cuh). */
  static constexpr bool early_launch = true;
  /* In calls of at most kSetopDirectWaves waves of tiles (setop.cuh has
   * the figures), the points of this percent of a wave are searched on
   * the inputs while the samples are gathered, and each tile waits for its
   * own two points, not the whole partition (setop_partition_kernel).
   * Sixteenth round, mgpu_tune direct (ms at 2^26, keys union, 50 / 100 /
   * 150%): 0.2214-0.2216 / 0.2209-0.2240 / 0.2212-0.2225, so a wave. */
  static constexpr int direct_points = 100;
  /* The call returns once the total is known (wait_for_total). */
  static constexpr bool early_count = true;
};

/* bulk_remove, bulk_insert and the interval operations (by element width).
 * Provisional: chosen by analogy with merge (bulk_insert is a merge of
 * positions with a counting sequence), not yet tuned on the GPU machine. */
template <int WIDTH> struct bulk_policy {
  typedef tile_policy<128, WIDTH == 4 ? 15 : 11> remove;
  typedef tile_policy<128, WIDTH == 4 ? 15 : 11> insert;
};
typedef tile_policy<128, 11> interval_policy;

} // namespace mgpu

#endif
