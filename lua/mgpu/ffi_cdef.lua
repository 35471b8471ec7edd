-- The declarations of src/mgpu.h for the LuaJIT binding's ffi.cdef
-- (mgpu/ffi.lua): the header minus its comments, preprocessor lines and
-- extern "C" braces, with MGPU_MAX_PASSES written out.  spec/luajit_spec.lua
-- checks that it matches mgpu.h.
return [[
typedef enum mgpu_dtype {
  MGPU_I32, MGPU_U32, MGPU_I64, MGPU_U64, MGPU_F32, MGPU_F64,
  MGPU_DTYPE_COUNT
} mgpu_dtype;
typedef enum mgpu_order { MGPU_LESS, MGPU_GREATER } mgpu_order;
typedef enum mgpu_status {
  MGPU_OK = 0,
  MGPU_ENOMEM,
  MGPU_EINVAL,
  MGPU_ETOOBIG,
  MGPU_ENODEV,
  MGPU_EDEVICE
} mgpu_status;
typedef union mgpu_scalar {
  int64_t i;
  double f;
} mgpu_scalar;
size_t mgpu_dtype_size(mgpu_dtype t);
const char *mgpu_dtype_name(mgpu_dtype t);
int mgpu_dtype_parse(const char *name, mgpu_dtype *out);
int mgpu_dtype_is_float(mgpu_dtype t);
int mgpu_dtype_is_signed(mgpu_dtype t);
const char *mgpu_status_name(mgpu_status s);
int mgpu_cuda_device_count(void);
typedef struct mgpu_context mgpu_context;
mgpu_status mgpu_context_create(const char *device, mgpu_context **out,
                                char *errbuf, size_t errlen);
typedef struct mgpu_allocator {
  void *(*alloc)(size_t bytes, void *stream, void *ud);
  void (*free)(void *p, size_t bytes, void *stream, void *ud);
  void *ud;
} mgpu_allocator;
typedef struct mgpu_context_options {
  const char *device;
  void *stream;
  const mgpu_allocator *allocator;
} mgpu_context_options;
mgpu_status mgpu_context_create_with(const mgpu_context_options *options,
                                     mgpu_context **out, char *errbuf,
                                     size_t errlen);
void mgpu_context_retain(mgpu_context *ctx);
void mgpu_context_release(mgpu_context *ctx);
const char *mgpu_context_device(const mgpu_context *ctx);
const char *mgpu_context_backend(const mgpu_context *ctx);
const char *mgpu_context_error(const mgpu_context *ctx);
size_t mgpu_context_max_count(const mgpu_context *ctx);
int mgpu_context_wide_index(const mgpu_context *ctx);
void *mgpu_context_stream(const mgpu_context *ctx);
mgpu_status mgpu_context_sync(mgpu_context *ctx);
typedef struct mgpu_context_info {
  char name[128];
  int multiprocessors;
  int cc_major, cc_minor;
  size_t memory_total;
  size_t memory_free;
  size_t pool_reserved;
  size_t in_use;
  size_t memory_limit;
  int code_arch, binary_arch;
  char path[8];
  char built_archs[64];
} mgpu_context_info;
mgpu_status mgpu_context_info_get(mgpu_context *ctx, mgpu_context_info *info);
void mgpu_context_set_memory_limit(mgpu_context *ctx, size_t bytes);
mgpu_status mgpu_context_reclaim(mgpu_context *ctx);
mgpu_status mgpu_context_set_kernel_paths(mgpu_context *ctx, const char *paths);
mgpu_status mgpu_alloc(mgpu_context *ctx, size_t bytes, void **out);
void mgpu_free(mgpu_context *ctx, void *p, size_t bytes);
mgpu_status mgpu_upload(mgpu_context *ctx, void *dst, const void *host_src,
                        size_t bytes);
mgpu_status mgpu_download(mgpu_context *ctx, void *host_dst, const void *src,
                          size_t bytes);
mgpu_status mgpu_copy(mgpu_context *ctx, void *dst, const void *src,
                      size_t bytes);
mgpu_status mgpu_fill(mgpu_context *ctx, void *dst, size_t n, mgpu_dtype t,
                      const void *value);
mgpu_status mgpu_iota(mgpu_context *ctx, void *dst, size_t n, mgpu_dtype t,
                      mgpu_scalar start, mgpu_scalar step);
mgpu_status mgpu_random(mgpu_context *ctx, void *dst, size_t n, mgpu_dtype t,
                        mgpu_scalar lo, mgpu_scalar hi, uint64_t seed);
mgpu_status mgpu_astype(mgpu_context *ctx, void *dst, mgpu_dtype dst_type,
                        const void *src, mgpu_dtype src_type, size_t n);
mgpu_status mgpu_is_sorted(mgpu_context *ctx, const void *src, size_t n,
                           mgpu_dtype t, mgpu_order order, int *sorted);
mgpu_status mgpu_merge(mgpu_context *ctx, mgpu_dtype key_type,
                       mgpu_order order, const void *a_keys, size_t na,
                       const void *b_keys, size_t nb, void *out_keys,
                       size_t value_size, const void *a_vals,
                       const void *b_vals, void *out_vals);
mgpu_status mgpu_mergesort(mgpu_context *ctx, mgpu_dtype key_type,
                           mgpu_order order, void *keys, size_t n,
                           size_t value_size, void *vals);
mgpu_status mgpu_sort(mgpu_context *ctx, mgpu_dtype key_type, mgpu_order order,
                      void *keys, size_t n, size_t value_size, void *vals);
typedef struct mgpu_sort_stats {
  int passes;
  int64_t tiles, blocksort_tiles;
  int64_t windows;
  int64_t merge_tiles[32];
  int64_t copy_tiles[32];
} mgpu_sort_stats;
mgpu_dtype mgpu_index_type(uint64_t largest);
mgpu_status mgpu_segsort(mgpu_context *ctx, mgpu_dtype key_type,
                         mgpu_order order, void *keys, size_t n,
                         size_t value_size, void *vals, const int32_t *heads,
                         size_t m, mgpu_sort_stats *stats);
mgpu_status mgpu_segsort_idx(mgpu_context *ctx, mgpu_dtype key_type,
                             mgpu_order order, void *keys, size_t n,
                             size_t value_size, void *vals, const void *heads,
                             mgpu_dtype heads_type, size_t m,
                             mgpu_sort_stats *stats);
mgpu_status mgpu_segsort_flags(mgpu_context *ctx, mgpu_dtype key_type,
                               mgpu_order order, void *keys, size_t n,
                               size_t value_size, void *vals,
                               const void *flags, mgpu_dtype flag_type,
                               mgpu_sort_stats *stats);
mgpu_status mgpu_locality_sort(mgpu_context *ctx, mgpu_dtype key_type,
                               mgpu_order order, void *keys, size_t n,
                               size_t value_size, void *vals,
                               mgpu_sort_stats *stats);
typedef enum mgpu_setop_kind {
  MGPU_SET_INTERSECTION,
  MGPU_SET_UNION,
  MGPU_SET_DIFFERENCE,
  MGPU_SET_SYMMETRIC_DIFFERENCE
} mgpu_setop_kind;
size_t mgpu_setop_capacity(mgpu_setop_kind op, size_t na, size_t nb);
mgpu_status mgpu_setop(mgpu_context *ctx, mgpu_setop_kind op,
                       mgpu_dtype key_type, mgpu_order order, int duplicates,
                       const void *a_keys, size_t na, const void *b_keys,
                       size_t nb, void *out_keys, size_t value_size,
                       const void *a_vals, const void *b_vals, void *out_vals,
                       size_t *count);
typedef enum mgpu_reduce_op {
  MGPU_REDUCE_ADD = 0,
  MGPU_REDUCE_MIN,
  MGPU_REDUCE_MAX
} mgpu_reduce_op;
mgpu_status mgpu_scan(mgpu_context *ctx, mgpu_dtype t, const void *src,
                      size_t n, void *dst, mgpu_reduce_op op, int inclusive,
                      mgpu_scalar *total);
mgpu_status mgpu_reduce(mgpu_context *ctx, mgpu_dtype t, const void *src,
                        size_t n, mgpu_reduce_op op, mgpu_scalar *out);
mgpu_status mgpu_sorted_search(mgpu_context *ctx, mgpu_dtype t,
                               mgpu_order order, const void *needles,
                               size_t n, const void *haystack, size_t m,
                               int right, int32_t base, int32_t *pos);
mgpu_status mgpu_sorted_search_idx(mgpu_context *ctx, mgpu_dtype t,
                                   mgpu_order order, const void *needles,
                                   size_t n, const void *haystack, size_t m,
                                   int right, int32_t base,
                                   mgpu_dtype pos_type, void *pos);
mgpu_status mgpu_unique(mgpu_context *ctx, mgpu_dtype t, const void *keys,
                        size_t n, size_t value_size, const void *vals,
                        void *out_keys, void *out_vals, int32_t *counts,
                        size_t *count);
mgpu_status mgpu_unique_idx(mgpu_context *ctx, mgpu_dtype t, const void *keys,
                            size_t n, size_t value_size, const void *vals,
                            void *out_keys, void *out_vals,
                            mgpu_dtype counts_type, void *counts,
                            size_t *count);
mgpu_status mgpu_compact(mgpu_context *ctx, size_t width, const void *data,
                         size_t n, mgpu_dtype flag_type, const void *flags,
                         size_t value_size, const void *vals, void *out,
                         void *out_vals, size_t *count);
mgpu_status mgpu_reduce_by_key(mgpu_context *ctx, mgpu_dtype key_type,
                               const void *keys, size_t n, mgpu_dtype val_type,
                               const void *vals, mgpu_reduce_op op,
                               void *out_keys, void *out_vals, size_t *count);
mgpu_status mgpu_segreduce(mgpu_context *ctx, mgpu_dtype t, const void *vals,
                           size_t n, const int32_t *offsets, size_t m,
                           mgpu_reduce_op op, const void *identity, void *dst);
mgpu_status mgpu_segreduce_idx(mgpu_context *ctx, mgpu_dtype t,
                               const void *vals, size_t n, const void *offsets,
                               mgpu_dtype offsets_type, size_t m,
                               mgpu_reduce_op op, const void *identity,
                               void *dst);
typedef enum mgpu_join_kind {
  MGPU_JOIN_INNER = 0,
  MGPU_JOIN_LEFT,
  MGPU_JOIN_RIGHT,
  MGPU_JOIN_OUTER
} mgpu_join_kind;
mgpu_status mgpu_join_count(mgpu_context *ctx, mgpu_dtype t, mgpu_order order,
                            mgpu_join_kind kind, const void *a, size_t na,
                            const void *b, size_t nb, uint64_t *count);
mgpu_status mgpu_join(mgpu_context *ctx, mgpu_dtype t, mgpu_order order,
                      mgpu_join_kind kind, const void *a, size_t na,
                      const void *b, size_t nb, int32_t base, int32_t *ia,
                      int32_t *ib, size_t capacity, size_t *count);
mgpu_status mgpu_join_idx(mgpu_context *ctx, mgpu_dtype t, mgpu_order order,
                          mgpu_join_kind kind, const void *a, size_t na,
                          const void *b, size_t nb, int32_t base,
                          mgpu_dtype index_type, void *ia, void *ib,
                          size_t capacity, size_t *count);
mgpu_status mgpu_join_new(mgpu_context *ctx, mgpu_dtype t, mgpu_order order,
                          mgpu_join_kind kind, const void *a, size_t na,
                          const void *b, size_t nb, int32_t base, int32_t **ia,
                          int32_t **ib, uint64_t *count);
mgpu_status mgpu_join_new_idx(mgpu_context *ctx, mgpu_dtype t,
                              mgpu_order order, mgpu_join_kind kind,
                              const void *a, size_t na, const void *b,
                              size_t nb, int32_t base, mgpu_dtype index_type,
                              void **ia, void **ib, uint64_t *count);
mgpu_status mgpu_prepare_positions(mgpu_context *ctx, const void *src,
                                   mgpu_dtype t, size_t m, int64_t lo,
                                   int64_t hi, int unique, int32_t *dst,
                                   int64_t *bad, int64_t *bad_value);
mgpu_status mgpu_prepare_positions_idx(mgpu_context *ctx, const void *src,
                                       mgpu_dtype t, size_t m, int64_t lo,
                                       int64_t hi, int unique,
                                       mgpu_dtype dst_type, void *dst,
                                       int64_t *bad, int64_t *bad_value);
mgpu_status mgpu_scan_counts(mgpu_context *ctx, const void *counts,
                             mgpu_dtype t, size_t m, int32_t *scan,
                             int64_t *total, int64_t *bad, int64_t *bad_value);
mgpu_status mgpu_scan_counts_idx(mgpu_context *ctx, const void *counts,
                                 mgpu_dtype t, size_t m, mgpu_dtype scan_type,
                                 void *scan, int64_t *total, int64_t *bad,
                                 int64_t *bad_value);
mgpu_status mgpu_prepare_starts(mgpu_context *ctx, const void *starts,
                                mgpu_dtype t, const int32_t *scan, size_t m,
                                size_t total, int64_t limit, int32_t *dst,
                                int64_t *bad, int64_t *bad_value,
                                int64_t *max_end);
mgpu_status mgpu_prepare_starts_idx(mgpu_context *ctx, const void *starts,
                                    mgpu_dtype t, const void *scan,
                                    mgpu_dtype scan_type, size_t m,
                                    size_t total, int64_t limit,
                                    mgpu_dtype dst_type, void *dst,
                                    int64_t *bad, int64_t *bad_value,
                                    int64_t *max_end);
mgpu_status mgpu_bulk_remove(mgpu_context *ctx, size_t width, const void *data,
                             size_t n, const int32_t *indices, size_t m,
                             void *out);
mgpu_status mgpu_bulk_remove_idx(mgpu_context *ctx, size_t width,
                                 const void *data, size_t n,
                                 const void *indices, mgpu_dtype indices_type,
                                 size_t m, void *out);
mgpu_status mgpu_bulk_insert(mgpu_context *ctx, size_t width, const void *data,
                             size_t n, const int32_t *positions,
                             const void *values, size_t m, void *out);
mgpu_status mgpu_bulk_insert_idx(mgpu_context *ctx, size_t width,
                                 const void *data, size_t n,
                                 const void *positions,
                                 mgpu_dtype positions_type,
                                 const void *values, size_t m, void *out);
mgpu_status mgpu_load_balance(mgpu_context *ctx, const int32_t *scan, size_t m,
                              size_t total, int32_t base, int32_t *out);
mgpu_status mgpu_load_balance_idx(mgpu_context *ctx, const void *scan,
                                  mgpu_dtype scan_type, size_t m,
                                  size_t total, int32_t base,
                                  mgpu_dtype out_type, void *out);
mgpu_status mgpu_interval_expand(mgpu_context *ctx, size_t width,
                                 const void *values, const int32_t *scan,
                                 size_t m, size_t total, void *out);
mgpu_status mgpu_interval_expand_idx(mgpu_context *ctx, size_t width,
                                     const void *values, const void *scan,
                                     mgpu_dtype scan_type, size_t m,
                                     size_t total, void *out);
mgpu_status mgpu_interval_move(mgpu_context *ctx, size_t width,
                               const void *input, size_t n_input,
                               const int32_t *gather, const int32_t *scatter,
                               const int32_t *scan, size_t m, size_t total,
                               void *out, size_t n_out);
mgpu_status mgpu_interval_move_idx(mgpu_context *ctx, size_t width,
                                   const void *input, size_t n_input,
                                   const void *gather, mgpu_dtype gather_type,
                                   const void *scatter,
                                   mgpu_dtype scatter_type, const void *scan,
                                   mgpu_dtype scan_type, size_t m,
                                   size_t total, void *out, size_t n_out);
typedef struct mgpu_wraps {
  int n;
  int64_t at[32];
} mgpu_wraps;
mgpu_status mgpu_scan_counts_wrapped(mgpu_context *ctx, const void *counts,
                                     mgpu_dtype t, size_t m, uint32_t *scan,
                                     mgpu_wraps *wraps, int64_t *total,
                                     int64_t *bad, int64_t *bad_value);
mgpu_status mgpu_load_balance_wrapped(mgpu_context *ctx, const uint32_t *scan,
                                      const mgpu_wraps *wraps, size_t m,
                                      size_t total, int32_t base,
                                      mgpu_dtype out_type, void *out);
mgpu_status mgpu_interval_expand_wrapped(mgpu_context *ctx, size_t width,
                                         const void *values,
                                         const uint32_t *scan,
                                         const mgpu_wraps *wraps, size_t m,
                                         size_t total, void *out);
typedef struct mgpu_group mgpu_group;
mgpu_status mgpu_group_create(mgpu_context *const *contexts, size_t count,
                              mgpu_group **out, char *errbuf, size_t errlen);
void mgpu_group_retain(mgpu_group *g);
void mgpu_group_release(mgpu_group *g); 
size_t mgpu_group_size(const mgpu_group *g);
mgpu_context *mgpu_group_context(const mgpu_group *g, size_t k);
const char *mgpu_group_error(const mgpu_group *g);
int mgpu_group_have_nccl(void);
mgpu_status mgpu_group_mergesort(mgpu_group *g, mgpu_dtype key_type,
                                 mgpu_order order, size_t value_size,
                                 void *const *keys, void *const *vals,
                                 const size_t *counts, void **out_keys,
                                 void **out_vals, size_t *out_counts);
mgpu_status mgpu_group_sort(mgpu_group *g, mgpu_dtype key_type,
                            mgpu_order order, size_t value_size,
                            void *const *keys, void *const *vals,
                            const size_t *counts, void **out_keys,
                            void **out_vals, size_t *out_counts);
mgpu_status mgpu_group_merge(mgpu_group *g, mgpu_dtype key_type,
                             mgpu_order order, size_t value_size,
                             const void *const *a_keys,
                             const void *const *a_vals,
                             const size_t *a_counts,
                             const void *const *b_keys,
                             const void *const *b_vals,
                             const size_t *b_counts, void **out_keys,
                             void **out_vals, size_t *out_counts);
mgpu_status mgpu_group_segsort(mgpu_group *g, mgpu_dtype key_type,
                               mgpu_order order, size_t value_size,
                               void *const *keys, void *const *vals,
                               const size_t *counts, const int64_t *heads,
                               size_t m);
]]
