/*
 * lmgpu.h - what the Lua binding's files share: the userdata layouts, the
 * call frame that keeps a call's arguments alive, and the argument checks
 * (lmgpu_aux.c).  The binding sees only mgpu.h, never a backend.
 */
#ifndef LMGPU_H
#define LMGPU_H

#include <lauxlib.h>
#include <lua.h>

#include "mgpu.h"
#include "mgpu_lua.h"

#if LUA_VERSION_NUM != 504 || LUA_VERSION_RELEASE_NUM < 50404
#error "mgpu's Lua module needs Lua 5.4.4 or later (lua_gc from finalizers)"
#endif

#define LMGPU_ARRAY "mgpu.array"
#define LMGPU_CONTEXT "mgpu.context"
#define LMGPU_FRAME "mgpu.frame"
#define LMGPU_HEAP "mgpu.heap"
#define LMGPU_GROUP "mgpu.group"
#define LMGPU_SHARDED "mgpu.sharded"

/* A group object (lmgpu_group.c): the C group, NULL until made and after
 * __gc; its user value 1 is the table of its context objects. */
typedef struct l_group {
  mgpu_group *g;
} l_group;

/* A sharded array: user value 1 its group object, 2 the table of its
 * shards (one mgpu.array a context of the group). */
typedef struct l_sharded {
  mgpu_dtype dtype;
} l_sharded;

/* The bytes that a lua_State's arrays hold, shared by the state and every
 * storage it made, so the collector can be told about them (lmgpu_heap.c). */
typedef struct l_heap {
  size_t live;      /* bytes of storage not yet released */
  size_t since;     /* bytes taken since the last collection */
  size_t threshold; /* `since` past which the next allocation collects */
  unsigned next_id; /* numbers the state's contexts */
  int refs;         /* the state's, plus one per storage */
} l_heap;

/* A context object: one reference on the C context. */
typedef struct l_context {
  mgpu_context *ctx; /* NULL once closed */
  unsigned id;
} l_context;

/* Memory shared by an array and its views; freed with the last reference.
 * References: one per array object using it, one per call frame that
 * pinned it. */
typedef struct l_storage {
  mgpu_context *ctx; /* one reference, released with the storage */
  l_heap *heap;
  void *ptr;
  size_t bytes;
  int refs;
  /* Memory a host lent (mgpu_lua_push_array): not mgpu's to free and not
   * counted; release runs instead, if given. */
  int lent;
  void (*release)(void *ptr, void *ud);
  void *release_ud;
} l_storage;

/* An array object.  st == NULL once freed.  Its user value 1 is the context
 * object it was made on. */
typedef struct l_array {
  l_storage *st;
  size_t offset; /* bytes into st */
  size_t n;
  mgpu_dtype dtype;
} l_array;

static inline void *lmgpu_data(const l_array *a) {
  return (char *)a->st->ptr + a->offset;
}
static inline size_t lmgpu_bytes(const l_array *a) {
  return a->n * mgpu_dtype_size(a->dtype);
}
static inline mgpu_context *lmgpu_ctx(const l_array *a) { return a->st->ctx; }

/* ---- lmgpu_aux.c: the call frame ----------------------------------------
 * Every binding function starts with lmgpu_begin, which pushes a frame above
 * its arguments and marks it to be closed when the function returns or
 * raises.  Arrays and contexts reach the function only through the frame:
 * each is pinned (one more reference) and copied into it, so Lua code that
 * runs during the call - a finalizer, an error handler - may free or close
 * them without the call touching released memory; the release happens when
 * the frame closes.  Option tables are read raw: no metamethod runs. */
#define LMGPU_FRAME_ARRAYS 16
#define LMGPU_FRAME_CONTEXTS 4

typedef struct l_frame {
  lua_State *L;
  const char *fn;
  int top;      /* the function's arguments are 1..top */
  int narrays;
  int ncontexts;
  l_array arrays[LMGPU_FRAME_ARRAYS];
  mgpu_context *contexts[LMGPU_FRAME_CONTEXTS];
} l_frame;

l_frame *lmgpu_begin(lua_State *L, const char *fn);
void lmgpu_frame_register(lua_State *L);
/* Registers metatable `name` for a to-be-closed guard: `close` runs as
 * __close and again as __gc (a guard left in a coroutine that died by an
 * error is closed only when collected); `hide` sets __metatable. */
void lmgpu_closer_register(lua_State *L, const char *name, lua_CFunction close,
                           int hide);

/* Argument idx as a live array of the call; `arg` names it in errors. */
l_array *lmgpu_arg_array(l_frame *f, int idx, const char *arg);
/* As lmgpu_arg_array, or NULL when the value at idx is nil or none. */
l_array *lmgpu_opt_array(l_frame *f, int idx, const char *arg);
/* Pins a context for the rest of the call. */
mgpu_context *lmgpu_pin_context(l_frame *f, mgpu_context *ctx);
/* The open context object at idx pinned, or NULL if idx holds none. */
mgpu_context *lmgpu_test_context_arg(l_frame *f, int idx);

/* Pushes a new array of n elements on ctx; its context object is the one at
 * ctx_idx.  Returns the frame's copy. */
l_array *lmgpu_new_array(l_frame *f, int ctx_idx, mgpu_context *ctx, size_t n,
                         mgpu_dtype t);
/* Pushes a new array on the context of `like` (at stack index like_idx). */
l_array *lmgpu_new_like(l_frame *f, int like_idx, const l_array *like,
                        size_t n, mgpu_dtype t);
/* Shortens the array object at idx (and its frame copy a) to n elements. */
void lmgpu_set_length(l_frame *f, int idx, l_array *a, size_t n);
/* A result array at idx with `count` of its elements the result: trimmed,
 * or moved to an exact-size array (replacing the value at idx) when the
 * rest would strand much memory. */
void lmgpu_fit_result(l_frame *f, int idx, l_array *r, size_t count);

/* ---- lmgpu_aux.c: arguments and errors -------------------------------- */
/* Raises "fn: message". */
int lmgpu_error(l_frame *f, const char *fmt, ...);
/* Raises "fn: <context's error>" unless s is MGPU_OK. */
void lmgpu_check_status(l_frame *f, mgpu_context *ctx, mgpu_status s);
/* Runs op(ctx, arg); if it ran out of memory, collects garbage, gives the
 * pools' cached memory back, and runs it once more. */
mgpu_status lmgpu_retry(l_frame *f, mgpu_context *ctx,
                        mgpu_status (*op)(mgpu_context *, void *), void *arg);
/* What a value is, for messages: numbers as written, an array by its dtype
 * and length, anything else by its type name. */
const char *lmgpu_describe(lua_State *L, int idx);
/* The type of a value, for messages: an array by its dtype and length. */
const char *lmgpu_typename(lua_State *L, int idx);

/* The option table at idx: 0 when it is none or nil, else idx (absolute)
 * after checking that it is a table whose keys are all in names[]. */
int lmgpu_options(l_frame *f, int idx, const char *const names[]);
/* Pushes opts[field] read raw (nil when opts is 0); returns its type. */
int lmgpu_opt_field(l_frame *f, int opts, const char *field);
/* opts[field] as a boolean (dflt when absent). */
int lmgpu_opt_boolean(l_frame *f, int opts, const char *field, int dflt);
/* opts[field] as an array of the call, or NULL when absent (pushes it). */
l_array *lmgpu_opt_field_array(l_frame *f, int opts, const char *field,
                               const char *arg);
/* comp as MGPU_LESS / MGPU_GREATER from the value at idx (nil: less). */
mgpu_order lmgpu_check_order(l_frame *f, int idx);

mgpu_dtype lmgpu_check_dtype(l_frame *f, int idx, const char *arg);
/* A count argument: a non-negative integer up to limit (a context's
 * mgpu_context_max_count, or MGPU_MAX_COUNT). */
size_t lmgpu_check_count(l_frame *f, int idx, const char *arg, size_t limit);
/* Converts the Lua value at idx to one element of dtype t at out; errors
 * name `what` (followed by pos when pos > 0: "element 7"). */
void lmgpu_to_element(l_frame *f, int idx, mgpu_dtype t, void *out,
                      const char *what, lua_Integer pos);
void lmgpu_push_element(lua_State *L, mgpu_dtype t, const void *p);
/* Pushes element i of a as its exact value in a message: u64 values past
 * 2^63 as unsigned digits. */
const char *lmgpu_element_string(l_frame *f, const l_array *a, size_t i);

/* Errors unless a and b share a context (an, bn name them). */
void lmgpu_check_same_context(l_frame *f, const l_array *a, const l_array *b,
                              const char *an, const char *bn);
/* Errors if out shares memory with in (NULL in: nothing to check). */
void lmgpu_check_no_overlap(l_frame *f, const l_array *out,
                            const l_array *in, const char *on,
                            const char *in_name);
int lmgpu_overlap(const l_array *a, const l_array *b);
/* The {av, bv} table of values of a two-input call (on top of the stack),
 * checked against the keys a and b. */
void lmgpu_value_pair(l_frame *f, const l_array *a, const l_array *b,
                      l_array **av, l_array **bv);

/* ---- lmgpu_heap.c: what the collector is told --------------------------- */
l_heap *lmgpu_heap(lua_State *L);
/* Before taking `bytes` for an array: collects when the bytes taken since
 * the last collection pass the threshold. */
void lmgpu_heap_before_alloc(lua_State *L, l_heap *h, size_t bytes);
void lmgpu_heap_add(l_heap *h, size_t bytes);
void lmgpu_heap_sub(l_heap *h, size_t bytes); /* and drops a reference */
void lmgpu_heap_release(l_heap *h);
void lmgpu_heap_register(lua_State *L);
int lmgpu_memory(lua_State *L);

/* ---- lmgpu_context.c ---- */
void lmgpu_context_register(lua_State *L);
/* Pushes a new context object holding one more reference on ctx. */
void lmgpu_push_context_object(lua_State *L, mgpu_context *ctx);
/* The open context object at idx, or NULL. */
l_context *lmgpu_test_context(lua_State *L, int idx);
/* Pushes the default context object (created on first use). */
mgpu_context *lmgpu_push_default_context(l_frame *f);
/* Pushes the shared context object of a device string. */
mgpu_context *lmgpu_push_device_context(l_frame *f, const char *device);
int lmgpu_devices(lua_State *L);
int lmgpu_context_new(lua_State *L);
int lmgpu_default_context(lua_State *L);
int lmgpu_kernel_paths(lua_State *L);

/* ---- lmgpu_array.c ---- */
void lmgpu_array_register(lua_State *L);
/* Pushes an empty array object (no storage yet) whose context object is
 * the one at ctx_idx. */
l_array *lmgpu_push_array_object(lua_State *L, int ctx_idx, mgpu_dtype t);
/* A new storage of `bytes` on ctx (ptr unset, not lent), or NULL when the
 * host is out of memory. */
l_storage *lmgpu_storage_new(lua_State *L, mgpu_context *ctx, size_t bytes);
/* Gives the storage to the empty object a (n elements); cannot raise. */
void lmgpu_array_attach(l_array *a, l_storage *st, size_t n);
/* Releases the storage reference of an array object (free/__gc/__close). */
void lmgpu_array_release(l_array *a);
void lmgpu_storage_release(l_storage *st);
/* The array constructors.  Each takes one upvalue: false as a module
 * function (the default context), true as a context method. */
extern const luaL_Reg lmgpu_constructors[];

/* ---- lmgpu_merge.c ---- */
int lmgpu_merge(lua_State *L);
int lmgpu_mergesort(lua_State *L);
int lmgpu_sort(lua_State *L);

/* ---- lmgpu_bulk.c ---- */
/* The 1-based positions at idx (an integer mgpu.array or a Lua table),
 * checked to be sorted (unique when asked) and in [lo, hi], as a new
 * 0-based array on ctx (pushed): i32, or i64 when hi - 1 passes INT32_MAX
 * (the index dtype rule).  `rule` completes "<arg> must be ...". */
l_array *lmgpu_positions(l_frame *f, int ctx_idx, mgpu_context *ctx, int idx,
                         const char *arg, int64_t lo, int64_t hi, int unique,
                         const char *rule);
int lmgpu_bulk_remove(lua_State *L);
int lmgpu_bulk_insert(lua_State *L);
int lmgpu_interval_expand(lua_State *L);
int lmgpu_interval_gather(lua_State *L);
int lmgpu_interval_scatter(lua_State *L);
int lmgpu_interval_move(lua_State *L);
int lmgpu_load_balance(lua_State *L);

/* ---- lmgpu_setop.c ---- */
int lmgpu_setop(lua_State *L);
int lmgpu_set_intersection(lua_State *L);
int lmgpu_set_union(lua_State *L);
int lmgpu_set_difference(lua_State *L);
int lmgpu_set_symmetric_difference(lua_State *L);

/* ---- lmgpu_group.c ---- */
void lmgpu_group_register(lua_State *L);
int lmgpu_group_new(lua_State *L);
/* mgpu.mergesort, mgpu.merge and mgpu.segsort when their first argument
 * is a sharded array. */
int lmgpu_sharded_mergesort(lua_State *L);
int lmgpu_sharded_sort(lua_State *L);
int lmgpu_sharded_merge(lua_State *L);
int lmgpu_sharded_segsort(lua_State *L);

/* ---- lmgpu_segsort.c ---- */
int lmgpu_segsort(lua_State *L);

/* lmgpu_search.c */
/* The reduction named by the string at idx ("add" when nil). */
mgpu_reduce_op lmgpu_check_reduce_op(l_frame *f, int idx);
int lmgpu_scan(lua_State *L);
int lmgpu_reduce(lua_State *L);
int lmgpu_sorted_search(lua_State *L);
int lmgpu_unique(lua_State *L);
int lmgpu_compact(lua_State *L);
int lmgpu_locality_sort(lua_State *L);

/* ---- lmgpu_keyed.c ---- */
int lmgpu_reduce_by_key(lua_State *L);
int lmgpu_segreduce(lua_State *L);
int lmgpu_join(lua_State *L);

LUAMOD_API int luaopen_mgpu_core(lua_State *L);

#endif
