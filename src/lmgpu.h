/*
 * lmgpu.h - what the Lua binding's files share: the userdata layouts and
 * the argument checks.  The binding sees only mgpu.h, never a backend.
 */
#ifndef LMGPU_H
#define LMGPU_H

#include <lauxlib.h>
#include <lua.h>

#include "mgpu.h"

#define LMGPU_ARRAY "mgpu.array"
#define LMGPU_CONTEXT "mgpu.context"

/* A context object: one reference on the C context. */
typedef struct l_context {
  mgpu_context *ctx;
} l_context;

/* Device memory shared by an array and its views; freed with the last. */
typedef struct l_storage {
  mgpu_context *ctx; /* one reference, released with the storage */
  void *ptr;
  size_t bytes;
  int refs;
} l_storage;

/* An array object.  st == NULL once freed (or if its allocation failed).
 * Its user value 1 is the context object it lives on. */
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

/* ---- lmgpu_context.c ---- */
void lmgpu_context_register(lua_State *L);
/* Pushes the context object at idx if it is one and returns it, else NULL
 * (pushing nothing). */
l_context *lmgpu_test_context(lua_State *L, int idx);
/* Pushes the default context object (creating it on first use). */
l_context *lmgpu_push_default_context(lua_State *L);
/* Pushes the shared context object of a device string. */
l_context *lmgpu_push_device_context(lua_State *L, const char *device,
                                     const char *fn);
int lmgpu_devices(lua_State *L);
int lmgpu_context_new(lua_State *L);
int lmgpu_default_context(lua_State *L);

/* ---- lmgpu_array.c ---- */
void lmgpu_array_register(lua_State *L);
/* Checks that argument idx is a live array; errors name fn and arg. */
l_array *lmgpu_check_array(lua_State *L, int idx, const char *fn,
                           const char *arg);
/* Pushes a new array of n elements on the context object at ctx_idx. */
l_array *lmgpu_new_array(lua_State *L, int ctx_idx, size_t n, mgpu_dtype t,
                         const char *fn);
/* Releases the array's memory now (as a:free()). */
void lmgpu_array_release(l_array *a);
int lmgpu_same_context(const l_array *a, const l_array *b);
int lmgpu_overlap(const l_array *a, const l_array *b);
mgpu_dtype lmgpu_check_dtype(lua_State *L, int idx, const char *fn);
size_t lmgpu_check_count(lua_State *L, int idx, const char *fn,
                         const char *arg);
/* Converts the Lua value at idx to one element of dtype t at out; errors
 * name fn and what (followed by pos when pos > 0: "element 7"). */
void lmgpu_to_element(lua_State *L, int idx, mgpu_dtype t, void *out,
                      const char *fn, const char *what, lua_Integer pos);
void lmgpu_push_element(lua_State *L, mgpu_dtype t, const void *p);
/* The array constructors, each as module function and context method. */
extern const luaL_Reg lmgpu_constructors[];

/* ---- lmgpu.c ---- */
/* Raises "fn: <context's error>" unless s is MGPU_OK. */
void lmgpu_check_status(lua_State *L, mgpu_context *ctx, mgpu_status s,
                        const char *fn);
/* Runs op(ctx, arg); if it ran out of memory, collects garbage, gives the
 * pools' cached memory back, and runs it once more. */
mgpu_status lmgpu_retry(lua_State *L, mgpu_context *ctx,
                        mgpu_status (*op)(mgpu_context *, void *), void *arg);
mgpu_order lmgpu_check_order(lua_State *L, int idx, const char *fn);
/* The option table at idx: 0 when it is none or nil, else idx (absolute)
 * after checking that it is a table whose keys are all in names[]. */
int lmgpu_options(lua_State *L, int idx, const char *fn,
                  const char *const names[]);
/* opts[field] as a boolean (dflt when opts is 0 or the field is nil). */
int lmgpu_opt_boolean(lua_State *L, int opts, const char *field, int dflt,
                      const char *fn);

LUAMOD_API int luaopen_mgpu_core(lua_State *L);

/* ---- lmgpu_merge.c ---- */
/* Errors unless a and b share a context (an, bn name them). */
void lmgpu_check_same_context(lua_State *L, const l_array *a,
                              const l_array *b, const char *fn,
                              const char *an, const char *bn);
/* Errors if out shares memory with in (NULL in: nothing to check). */
void lmgpu_check_no_overlap(lua_State *L, const l_array *out,
                            const l_array *in, const char *fn,
                            const char *on, const char *in_name);
/* Pushes opts[field] and returns its array, or NULL when it is nil (opts 0:
 * no option table; pushes nothing). */
l_array *lmgpu_opt_array(lua_State *L, int opts, const char *field,
                         const char *fn, const char *arg);
int lmgpu_merge(lua_State *L);
int lmgpu_mergesort(lua_State *L);

/* ---- lmgpu_bulk.c ---- */
/* The 1-based positions at idx (an integer mgpu.array or a Lua table),
 * checked to be sorted (unique when asked) and in [lo, hi], as a new
 * 0-based int32 array on the context object at ctx_idx (pushed).  `rule`
 * completes "<arg> must be ...". */
l_array *lmgpu_positions(lua_State *L, int ctx_idx, int idx, const char *fn,
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

/* ---- lmgpu_segsort.c ---- */
int lmgpu_segsort(lua_State *L);
int lmgpu_locality_sort(lua_State *L);

#endif
