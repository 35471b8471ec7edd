/*
 * lmgpu_group.c - mgpu.group and the sharded arrays it makes, and the
 * sorts of lmgpu_merge.c and lmgpu_segsort.c when given sharded arrays.
 *
 * A group object holds the C group and (user value 1) the table of its
 * context objects, which its shards' arrays name as their contexts.  A
 * sharded array is only Lua-side: its group object (user value 1) and the
 * table of its shards (user value 2), ordinary mgpu.arrays that the
 * collector looks after; it owns no C resource and needs no finalizer.
 * The calls here pin shards in a pins object of their own (the frame holds
 * only LMGPU_FRAME_ARRAYS), closed with the call like the frame.
 */
#include <stdlib.h>
#include <string.h>

#include "lmgpu.h"

#define LMGPU_PINS "mgpu.pins"
#define LMGPU_PENDING "mgpu.pending"

/* ---- pins: arrays held for the length of a call ------------------------- */

typedef struct l_pins {
  int n, cap;
  l_array a[1];
} l_pins;

static int pins_close(lua_State *L) {
  l_pins *p = luaL_checkudata(L, 1, LMGPU_PINS);
  int n = p->n;
  p->n = 0;
  for (int i = 0; i < n; i++) lmgpu_storage_release(p->a[i].st);
  return 0;
}

/* The size of the group of the sharded array at idx (0 if it is none). */
static int sharded_parts(lua_State *L, int idx) {
  int p = 0;
  if (luaL_testudata(L, idx, LMGPU_SHARDED)) {
    lua_getiuservalue(L, idx, 1);
    l_group *g = luaL_testudata(L, -1, LMGPU_GROUP);
    if (g && g->g) p = (int)mgpu_group_size(g->g);
    lua_pop(L, 1);
  }
  return p;
}

static l_pins *push_pins(lua_State *L, int cap) {
  l_pins *p = lua_newuserdatauv(
      L, sizeof *p + (size_t)(cap > 1 ? cap - 1 : 0) * sizeof p->a[0], 0);
  p->n = 0;
  p->cap = cap;
  luaL_setmetatable(L, LMGPU_PINS);
  lua_toclose(L, -1);
  return p;
}

/* ---- outputs not yet given to arrays ------------------------------------- */

/* What mgpu_group_mergesort/merge allocated, freed at the call's end
 * unless an array took it first (an error between the two leaks
 * nothing). */
typedef struct l_pending {
  int n;
  struct {
    mgpu_context *ctx;
    void *ptr;
    size_t bytes;
  } out[1];
} l_pending;

static int pending_close(lua_State *L) {
  l_pending *p = luaL_checkudata(L, 1, LMGPU_PENDING);
  for (int i = 0; i < p->n; i++)
    if (p->out[i].ptr) {
      mgpu_free(p->out[i].ctx, p->out[i].ptr, p->out[i].bytes);
      p->out[i].ptr = NULL;
    }
  return 0;
}

static l_pending *push_pending(lua_State *L, int n) {
  l_pending *p = lua_newuserdatauv(
      L, sizeof *p + (size_t)(n > 1 ? n - 1 : 0) * sizeof p->out[0], 0);
  memset(p, 0, sizeof *p + (size_t)(n > 1 ? n - 1 : 0) * sizeof p->out[0]);
  p->n = n;
  luaL_setmetatable(L, LMGPU_PENDING);
  lua_toclose(L, -1);
  return p;
}

/* ---- the group object ----------------------------------------------------- */

static l_group *check_group(l_frame *f, int idx, const char *arg) {
  l_group *g = luaL_testudata(f->L, idx, LMGPU_GROUP);
  if (!g || !g->g)
    lmgpu_error(f, "%s must be an mgpu.group (got %s)", arg,
                lmgpu_typename(f->L, idx));
  return g;
}

/* self of a group method */
static l_group *group_self(l_frame *f) {
  if (!luaL_testudata(f->L, 1, LMGPU_GROUP))
    lmgpu_error(f, "call it as a method, g:%s(...) (got %s as self)",
                strchr(f->fn, ':') + 1, lmgpu_describe(f->L, 1));
  return check_group(f, 1, "self");
}

static int group_gc(lua_State *L) {
  l_group *g = luaL_checkudata(L, 1, LMGPU_GROUP);
  mgpu_group *cg = g->g;
  g->g = NULL;
  if (cg) mgpu_group_release(cg);
  return 0;
}

/* Pushes a context object for a device string: a fresh context, so that a
 * group of {"cpu", "cpu"} has two. */
static void push_fresh_context(l_frame *f, const char *device) {
  char err[256];
  mgpu_context *ctx = NULL;
  mgpu_status s = mgpu_context_create(device, &ctx, err, sizeof err);
  if (s != MGPU_OK) lmgpu_error(f, "cannot use device '%s': %s", device, err);
  lmgpu_push_context_object(f->L, ctx); /* takes its own reference */
  mgpu_context_release(ctx);
}

/* mgpu.group{devices = {d1, d2, ...}}: device strings or context objects;
 * without devices, every CUDA device, or one cpu context when there is
 * none. */
int lmgpu_group_new(lua_State *L) {
  static const char *const names[] = {"devices", NULL};
  lua_settop(L, 1);
  l_frame *f = lmgpu_begin(L, "mgpu.group");
  int opts = lmgpu_options(f, 1, names);
  lmgpu_opt_field(f, opts, "devices");
  int dev_idx = lua_gettop(L);
  lua_newtable(L); /* the context objects */
  int ctxs_idx = lua_gettop(L);
  int p;
  if (lua_isnil(L, dev_idx)) {
    int gpus = mgpu_cuda_device_count();
    p = gpus > 0 ? gpus : 1;
    for (int k = 0; k < p; k++) {
      if (gpus > 0) {
        lua_pushfstring(L, "cuda:%d", k);
        push_fresh_context(f, lua_tostring(L, -1));
        lua_remove(L, -2);
      } else {
        push_fresh_context(f, "cpu");
      }
      lua_rawseti(L, ctxs_idx, k + 1);
    }
  } else {
    if (!lua_istable(L, dev_idx))
      lmgpu_error(f, "devices must be a table of device strings or contexts "
                     "(got %s)", lmgpu_typename(L, dev_idx));
    p = (int)lua_rawlen(L, dev_idx);
    if (p < 1) lmgpu_error(f, "devices must name at least one device");
    for (int k = 1; k <= p; k++) {
      int t = lua_rawgeti(L, dev_idx, k);
      if (t == LUA_TSTRING) {
        push_fresh_context(f, lua_tostring(L, -1));
        lua_remove(L, -2);
      } else if (!lmgpu_test_context(L, -1)) {
        lmgpu_error(f, "devices[%d] must be a device string or an open "
                       "mgpu.context (got %s)", k, lmgpu_typename(L, -1));
      }
      lua_rawseti(L, ctxs_idx, k);
    }
  }
  mgpu_context **cs = lua_newuserdatauv(L, (size_t)p * sizeof *cs, 0);
  for (int k = 0; k < p; k++) {
    lua_rawgeti(L, ctxs_idx, k + 1);
    cs[k] = lmgpu_test_context(L, -1)->ctx;
    lua_pop(L, 1);
  }
  l_group *g = lua_newuserdatauv(L, sizeof *g, 1);
  g->g = NULL;
  luaL_setmetatable(L, LMGPU_GROUP);
  lua_pushvalue(L, ctxs_idx);
  lua_setiuservalue(L, -2, 1);
  char err[256];
  mgpu_status s = mgpu_group_create(cs, (size_t)p, &g->g, err, sizeof err);
  if (s != MGPU_OK) lmgpu_error(f, "%s", err);
  return 1;
}

/* g:size(), #g */
static int g_size(lua_State *L) {
  lua_settop(L, 1);
  l_frame *f = lmgpu_begin(L, "mgpu.group:size");
  l_group *g = group_self(f);
  lua_pushinteger(L, (lua_Integer)mgpu_group_size(g->g));
  return 1;
}

/* g:contexts() -> {ctx1, ...}, a new table */
static int g_contexts(lua_State *L) {
  lua_settop(L, 1);
  l_frame *f = lmgpu_begin(L, "mgpu.group:contexts");
  l_group *g = group_self(f);
  int p = (int)mgpu_group_size(g->g);
  lua_getiuservalue(L, 1, 1);
  lua_createtable(L, p, 0);
  for (int k = 1; k <= p; k++) {
    lua_rawgeti(L, -2, k);
    lua_rawseti(L, -2, k);
  }
  return 1;
}

static int g_tostring(lua_State *L) {
  l_group *g = luaL_checkudata(L, 1, LMGPU_GROUP);
  if (!g->g) {
    lua_pushliteral(L, "mgpu.group (closed)");
    return 1;
  }
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  luaL_addstring(&b, "mgpu.group{");
  for (size_t k = 0; k < mgpu_group_size(g->g); k++) {
    if (k) luaL_addstring(&b, ", ");
    luaL_addstring(&b, mgpu_context_device(mgpu_group_context(g->g, k)));
  }
  luaL_addstring(&b, "}");
  luaL_pushresult(&b);
  return 1;
}

/* ---- sharded arrays ------------------------------------------------------- */

/* Pushes a sharded array of the group at g_idx whose shards are the table
 * at shards_idx. */
static void push_sharded(lua_State *L, int g_idx, int shards_idx,
                         mgpu_dtype t) {
  g_idx = lua_absindex(L, g_idx);
  shards_idx = lua_absindex(L, shards_idx);
  l_sharded *s = lua_newuserdatauv(L, sizeof *s, 2);
  s->dtype = t;
  luaL_setmetatable(L, LMGPU_SHARDED);
  lua_pushvalue(L, g_idx);
  lua_setiuservalue(L, -2, 1);
  lua_pushvalue(L, shards_idx);
  lua_setiuservalue(L, -2, 2);
}

/* The sharded array at idx: its group (C; when *group is set already, the
 * array must be of that one), and its shards pinned in pins (p of them,
 * from the returned pointer on). */
static l_array *pin_shards(l_frame *f, int idx, const char *arg, l_pins *pins,
                           mgpu_group **group) {
  lua_State *L = f->L;
  idx = lua_absindex(L, idx);
  if (!luaL_testudata(L, idx, LMGPU_SHARDED))
    lmgpu_error(f, "%s must be an mgpu.sharded array (got %s)", arg,
                lmgpu_typename(L, idx));
  lua_getiuservalue(L, idx, 1);
  l_group *g = luaL_testudata(L, -1, LMGPU_GROUP);
  if (!g || !g->g) lmgpu_error(f, "%s's group has been closed", arg);
  lua_pop(L, 1);
  if (*group && *group != g->g)
    lmgpu_error(f, "%s belongs to another group", arg);
  *group = g->g;
  int p = (int)mgpu_group_size(g->g);
  if (pins->n + p > pins->cap)
    luaL_error(L, "%s: internal error: too many pins", f->fn);
  lua_getiuservalue(L, idx, 2);
  l_array *first = pins->a + pins->n;
  for (int k = 1; k <= p; k++) {
    lua_rawgeti(L, -1, k);
    l_array *a = luaL_testudata(L, -1, LMGPU_ARRAY);
    if (!a || !a->st) lmgpu_error(f, "%s's shard %d has been freed", arg, k);
    pins->a[pins->n] = *a;
    a->st->refs++;
    pins->n++;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return first;
}

static size_t total_length(const l_array *a, int p) {
  size_t n = 0;
  for (int k = 0; k < p; k++) n += a[k].n;
  return n;
}

static l_sharded *sharded_self(l_frame *f) {
  l_sharded *s = luaL_testudata(f->L, 1, LMGPU_SHARDED);
  if (!s)
    lmgpu_error(f, "call it as a method, s:%s(...) (got %s as self)",
                strchr(f->fn, ':') + 1, lmgpu_describe(f->L, 1));
  return s;
}

/* s:shards() -> {a1, ..., ap}, a new table of the per-context arrays */
static int s_shards(lua_State *L) {
  lua_settop(L, 1);
  l_frame *f = lmgpu_begin(L, "mgpu.sharded:shards");
  sharded_self(f);
  lua_getiuservalue(L, 1, 2);
  int p = (int)lua_rawlen(L, -1);
  lua_createtable(L, p, 0);
  for (int k = 1; k <= p; k++) {
    lua_rawgeti(L, -2, k);
    lua_rawseti(L, -2, k);
  }
  return 1;
}

/* s:counts() -> {#a1, ..., #ap} */
static int s_counts(lua_State *L) {
  lua_settop(L, 1);
  l_frame *f = lmgpu_begin(L, "mgpu.sharded:counts");
  sharded_self(f);
  l_pins *pins = push_pins(L, sharded_parts(L, 1));
  mgpu_group *g = NULL;
  l_array *a = pin_shards(f, 1, "self", pins, &g);
  int p = (int)mgpu_group_size(g);
  lua_createtable(L, p, 0);
  for (int k = 0; k < p; k++) {
    lua_pushinteger(L, (lua_Integer)a[k].n);
    lua_rawseti(L, -2, k + 1);
  }
  return 1;
}

/* s:totable([i [, j]]): elements i..j of the whole (1-based, inclusive) */
static int s_totable(lua_State *L) {
  lua_settop(L, 3);
  l_frame *f = lmgpu_begin(L, "mgpu.sharded:totable");
  sharded_self(f);
  l_pins *pins = push_pins(L, sharded_parts(L, 1));
  mgpu_group *g = NULL;
  l_array *a = pin_shards(f, 1, "self", pins, &g);
  int p = (int)mgpu_group_size(g);
  lua_Integer n = (lua_Integer)total_length(a, p);
  int ok_i = 1, ok_j = 1;
  lua_Integer i = lua_isnil(L, 2) ? 1 : lua_tointegerx(L, 2, &ok_i);
  lua_Integer j = lua_isnil(L, 3) ? n : lua_tointegerx(L, 3, &ok_j);
  if (!ok_i || !ok_j)
    lmgpu_error(f, "%s must be an integer (got %s)", ok_i ? "j" : "i",
                lmgpu_describe(L, ok_i ? 3 : 2));
  if (i < 1 || j > n || i > j + 1)
    lmgpu_error(f, "range %I..%I is outside 1..%I", i, j, n);
  lua_createtable(L, (int)(j - i + 1 > 0 && j - i + 1 < 0x7fffffff ? j - i + 1 : 0), 0);
  int out = lua_gettop(L);
  size_t w = mgpu_dtype_size(a[0].dtype), most = 0;
  lua_Integer off = 0;
  for (int k = 0; k < p; k++) { /* the longest piece, for one buffer */
    lua_Integer lo = i > off + 1 ? i - off : 1;
    lua_Integer hi = j < off + (lua_Integer)a[k].n ? j - off : (lua_Integer)a[k].n;
    off += (lua_Integer)a[k].n;
    if (lo <= hi && (size_t)(hi - lo + 1) > most) most = (size_t)(hi - lo + 1);
  }
  char *host = lua_newuserdatauv(L, most * w, 0);
  lua_Integer at = 1;
  off = 0;
  for (int k = 0; k < p; k++) {
    lua_Integer lo = i > off + 1 ? i - off : 1;
    lua_Integer hi = j < off + (lua_Integer)a[k].n ? j - off : (lua_Integer)a[k].n;
    off += (lua_Integer)a[k].n;
    if (lo > hi) continue;
    size_t count = (size_t)(hi - lo + 1);
    mgpu_context *ctx = lmgpu_ctx(&a[k]);
    lmgpu_check_status(f, ctx, mgpu_download(ctx, host,
                                             (char *)lmgpu_data(&a[k]) +
                                                 (size_t)(lo - 1) * w,
                                             count * w));
    for (size_t e = 0; e < count; e++) {
      lmgpu_push_element(L, a[k].dtype, host + e * w);
      lua_rawseti(L, out, at++);
    }
  }
  lua_settop(L, out);
  return 1;
}

/* s:to(device or context) -> one mgpu.array holding the whole */
static int s_to(lua_State *L) {
  lua_settop(L, 2);
  l_frame *f = lmgpu_begin(L, "mgpu.sharded:to");
  l_sharded *s = sharded_self(f);
  l_pins *pins = push_pins(L, sharded_parts(L, 1));
  mgpu_group *g = NULL;
  l_array *a = pin_shards(f, 1, "self", pins, &g);
  int p = (int)mgpu_group_size(g);
  mgpu_context *dst;
  if (lua_type(L, 2) == LUA_TSTRING) {
    dst = lmgpu_push_device_context(f, lua_tostring(L, 2));
  } else if ((dst = lmgpu_test_context_arg(f, 2)) != NULL) {
    lua_pushvalue(L, 2);
  } else {
    lmgpu_error(f, "target must be a device string or an open mgpu.context "
                   "(got %s)", lmgpu_typename(L, 2));
  }
  int dst_idx = lua_gettop(L);
  size_t n = total_length(a, p), w = mgpu_dtype_size(s->dtype), at = 0;
  l_array *b = lmgpu_new_array(f, dst_idx, dst, n, s->dtype);
  int b_idx = lua_gettop(L);
  for (int k = 0; k < p; k++) {
    mgpu_context *src = lmgpu_ctx(&a[k]);
    size_t bytes = lmgpu_bytes(&a[k]);
    char *to = (char *)lmgpu_data(b) + at * w;
    at += a[k].n;
    if (src == dst) {
      lmgpu_check_status(f, src, mgpu_copy(src, to, lmgpu_data(&a[k]), bytes));
      continue;
    }
    char *host = lua_newuserdatauv(L, bytes, 0);
    lmgpu_check_status(f, src, mgpu_download(src, host, lmgpu_data(&a[k]), bytes));
    lmgpu_check_status(f, dst, mgpu_upload(dst, to, host, bytes));
    lua_pop(L, 1);
  }
  lua_pushvalue(L, b_idx);
  return 1;
}

static int s_len(lua_State *L) {
  l_sharded *s = luaL_testudata(L, 1, LMGPU_SHARDED);
  if (!s) return luaL_error(L, "mgpu.sharded: expected an mgpu.sharded array");
  lua_settop(L, 1);
  l_frame *f = lmgpu_begin(L, "mgpu.sharded");
  l_pins *pins = push_pins(L, sharded_parts(L, 1));
  mgpu_group *g = NULL;
  l_array *a = pin_shards(f, 1, "array", pins, &g);
  lua_pushinteger(L, (lua_Integer)total_length(a, (int)mgpu_group_size(g)));
  return 1;
}

static int s_index(lua_State *L) {
  l_sharded *s = luaL_testudata(L, 1, LMGPU_SHARDED);
  if (!s) return luaL_error(L, "mgpu.sharded: expected an mgpu.sharded array");
  if (lua_type(L, 2) == LUA_TSTRING) {
    const char *k = lua_tostring(L, 2);
    if (strcmp(k, "dtype") == 0) {
      lua_pushstring(L, mgpu_dtype_name(s->dtype));
      return 1;
    }
    if (strcmp(k, "group") == 0) {
      lua_getiuservalue(L, 1, 1);
      return 1;
    }
  }
  lua_pushvalue(L, 2);
  lua_rawget(L, lua_upvalueindex(1));
  return 1;
}

/* ---- making sharded data -------------------------------------------------- */

/* The group at 1 makes p shards of n elements: shard k's length and its
 * offset in the whole. */
static size_t shard_length(size_t n, size_t p, size_t k, size_t *offset) {
  /* floor(n k / p) without forming n k, which wraps for n near 2^53 */
  size_t lo = k * (n / p) + k * (n % p) / p;
  size_t hi = (k + 1) * (n / p) + (k + 1) * (n % p) / p;
  *offset = lo;
  return hi - lo;
}

/* The most elements g:iota and g:random make: each shard within its
 * context's limit (a shard is at most n / p rounded up), and the whole
 * at most 2^53, which Lua numbers and LuaJIT's hold exactly. */
static size_t group_max_count(mgpu_group *g) {
  const size_t p = mgpu_group_size(g), whole = (size_t)1 << 53;
  size_t least = whole;
  for (size_t k = 0; k < p; k++) {
    const size_t m = mgpu_context_max_count(mgpu_group_context(g, k));
    if (m < least) least = m;
  }
  return least > whole / p ? whole : least * p;
}

/* Calls method name on the context object k of the group at 1 with the
 * nargs values on top of the stack; leaves the array it returns. */
static void call_ctx_method(lua_State *L, int k, const char *name,
                            int nargs) {
  lua_getiuservalue(L, 1, 1);
  lua_rawgeti(L, -1, k + 1);
  lua_remove(L, -2);
  lua_getfield(L, -1, name);
  lua_insert(L, -(nargs + 2)); /* method, args..., ctx */
  lua_insert(L, -(nargs + 1)); /* method, ctx, args... */
  lua_call(L, nargs + 1, 1);
}

/* g:shard(t or array [, dtype]) */
static int g_shard(lua_State *L) {
  lua_settop(L, 3);
  l_frame *f = lmgpu_begin(L, "mgpu.group:shard");
  l_group *g = group_self(f);
  size_t p = mgpu_group_size(g->g), n;
  int have_dtype = !lua_isnil(L, 3);
  mgpu_dtype t = have_dtype ? lmgpu_check_dtype(f, 3, "dtype") : MGPU_I32;
  l_array *src = NULL;
  if (lua_istable(L, 2)) {
    n = lua_rawlen(L, 2);
    /* every element checked here, so that errors count in the whole, and
     * one dtype for the whole, as mgpu.array would infer it */
    int any_float = 0, all_i32 = 1;
    for (size_t i = 1; i <= n; i++) {
      if (lua_rawgeti(L, 2, (lua_Integer)i) != LUA_TNUMBER)
        lmgpu_error(f, "element %I must be a number (got %s)", (lua_Integer)i,
                    lmgpu_typename(L, -1));
      if (!lua_isinteger(L, -1)) {
        any_float = 1;
      } else {
        lua_Integer v = lua_tointeger(L, -1);
        if (v < INT32_MIN || v > INT32_MAX) all_i32 = 0;
      }
      if (have_dtype) {
        uint64_t e;
        lmgpu_to_element(f, -1, t, &e, "element", (lua_Integer)i);
      }
      lua_pop(L, 1);
    }
    if (!have_dtype) t = any_float ? MGPU_F64 : all_i32 ? MGPU_I32 : MGPU_I64;
  } else if ((src = luaL_testudata(L, 2, LMGPU_ARRAY)) != NULL) {
    src = lmgpu_arg_array(f, 2, "data");
    n = src->n;
    if (!have_dtype) t = src->dtype;
  } else {
    return lmgpu_error(f, "data must be a table of numbers or an mgpu.array "
                          "(got %s)", lmgpu_typename(L, 2));
  }
  lua_createtable(L, (int)p, 0);
  int shards = lua_gettop(L);
  for (size_t k = 0; k < p; k++) {
    size_t off, len = shard_length(n, p, k, &off);
    if (src) {
      lua_pushvalue(L, 2);
      lua_getfield(L, -1, "slice");
      lua_insert(L, -2);
      lua_pushinteger(L, (lua_Integer)off + 1);
      lua_pushinteger(L, (lua_Integer)(off + len));
      lua_call(L, 3, 1);
      lua_getfield(L, -1, "to");
      lua_insert(L, -2);
      lua_getiuservalue(L, 1, 1);
      lua_rawgeti(L, -1, (lua_Integer)k + 1);
      lua_remove(L, -2);
      lua_call(L, 2, 1);
      if (t != src->dtype) {
        lua_getfield(L, -1, "astype");
        lua_insert(L, -2);
        lua_pushstring(L, mgpu_dtype_name(t));
        lua_call(L, 2, 1);
      }
    } else {
      lua_createtable(L, (int)len, 0);
      for (size_t i = 1; i <= len; i++) {
        lua_rawgeti(L, 2, (lua_Integer)(off + i));
        lua_rawseti(L, -2, (lua_Integer)i);
      }
      lua_pushstring(L, mgpu_dtype_name(t));
      call_ctx_method(L, (int)k, "array", 2);
    }
    lua_rawseti(L, shards, (lua_Integer)k + 1);
  }
  push_sharded(L, 1, shards, t);
  return 1;
}

/* g:sharded{a1, ..., ap}: arrays already on the group's contexts (ak on
 * context k, one dtype) as a sharded array, shared rather than copied. */
static int g_sharded(lua_State *L) {
  lua_settop(L, 2);
  l_frame *f = lmgpu_begin(L, "mgpu.group:sharded");
  l_group *g = group_self(f);
  int p = (int)mgpu_group_size(g->g);
  if (!lua_istable(L, 2))
    lmgpu_error(f, "arrays must be a table of %d mgpu.arrays (got %s)", p,
                lmgpu_typename(L, 2));
  if ((int)lua_rawlen(L, 2) != p)
    lmgpu_error(f, "arrays has %d entries, the group %d contexts",
                (int)lua_rawlen(L, 2), p);
  lua_createtable(L, p, 0);
  mgpu_dtype t = MGPU_I32;
  for (int k = 0; k < p; k++) {
    lua_rawgeti(L, 2, k + 1);
    l_array *a = luaL_testudata(L, -1, LMGPU_ARRAY);
    if (!a || !a->st)
      lmgpu_error(f, "arrays[%d] must be an mgpu.array (got %s)", k + 1,
                  lmgpu_typename(L, -1));
    if (lmgpu_ctx(a) != mgpu_group_context(g->g, (size_t)k))
      lmgpu_error(f, "arrays[%d] is not on the group's context %d (use "
                     "g:contexts())", k + 1, k + 1);
    if (k && a->dtype != t)
      lmgpu_error(f, "arrays[%d] has dtype %s, arrays[1] has %s", k + 1,
                  mgpu_dtype_name(a->dtype), mgpu_dtype_name(t));
    t = a->dtype;
    lua_rawseti(L, -2, k + 1);
  }
  push_sharded(L, 1, -1, t);
  return 1;
}

/* g:random(n, lo, hi [, dtype [, seed]]): shard k draws from the seed plus
 * k times a large odd constant, so that shards differ. */
static int g_random(lua_State *L) {
  lua_settop(L, 6);
  l_frame *f = lmgpu_begin(L, "mgpu.group:random");
  l_group *g = group_self(f);
  size_t p = mgpu_group_size(g->g);
  size_t n = lmgpu_check_count(f, 2, "n", group_max_count(g->g));
  for (int i = 3; i <= 4; i++)
    if (lua_type(L, i) != LUA_TNUMBER)
      lmgpu_error(f, "%s must be a number (got %s)", i == 3 ? "lo" : "hi",
                  lmgpu_typename(L, i));
  lua_Integer seed = 0;
  int seeded = !lua_isnil(L, 6);
  if (seeded) {
    int ok = 0;
    seed = lua_tointegerx(L, 6, &ok);
    if (!ok || lua_type(L, 6) != LUA_TNUMBER)
      lmgpu_error(f, "seed must be an integer (got %s)", lmgpu_describe(L, 6));
  }
  lua_createtable(L, (int)p, 0);
  int shards = lua_gettop(L);
  for (size_t k = 0; k < p; k++) {
    size_t off, len = shard_length(n, p, k, &off);
    lua_pushinteger(L, (lua_Integer)len);
    lua_pushvalue(L, 3);
    lua_pushvalue(L, 4);
    lua_pushvalue(L, 5);
    if (seeded)
      lua_pushinteger(L, (lua_Integer)((lua_Unsigned)seed +
                                       (lua_Unsigned)k * 0x9e3779b97f4a7c15ULL));
    else
      lua_pushnil(L);
    call_ctx_method(L, (int)k, "random", 5);
    lua_rawseti(L, shards, (lua_Integer)k + 1);
  }
  lua_rawgeti(L, shards, 1);
  mgpu_dtype t = ((l_array *)luaL_checkudata(L, -1, LMGPU_ARRAY))->dtype;
  lua_pop(L, 1);
  push_sharded(L, 1, shards, t);
  return 1;
}

/* g:iota(n [, start [, step]] [, dtype]): the whole counts from start, as
 * mgpu.iota(n, start, step, dtype) would. */
static int g_iota(lua_State *L) {
  lua_settop(L, 5);
  l_frame *f = lmgpu_begin(L, "mgpu.group:iota");
  l_group *g = group_self(f);
  size_t p = mgpu_group_size(g->g);
  size_t n = lmgpu_check_count(f, 2, "n", group_max_count(g->g));
  int dtype_idx = 0;
  for (int i = 3; i <= 5 && !dtype_idx; i++)
    if (lua_type(L, i) == LUA_TSTRING) dtype_idx = i;
  int start_idx = dtype_idx == 3 ? 0 : 3, step_idx = dtype_idx && dtype_idx <= 4 ? 0 : 4;
  if (start_idx && lua_isnil(L, start_idx)) start_idx = 0;
  if (step_idx && lua_isnil(L, step_idx)) step_idx = 0;
  for (int i = (dtype_idx ? dtype_idx : 4) + 1; i <= 5; i++)
    if (!lua_isnil(L, i))
      lmgpu_error(f, "unexpected argument #%d (%s); expected (n [, start [, "
                     "step]] [, dtype])", i - 1, lmgpu_describe(L, i));
  if (!start_idx) lua_pushinteger(L, 1), start_idx = lua_gettop(L);
  if (!step_idx) lua_pushinteger(L, 1), step_idx = lua_gettop(L);
  for (int i = start_idx; i; i = i == start_idx ? step_idx : 0)
    if (lua_type(L, i) != LUA_TNUMBER)
      lmgpu_error(f, "%s must be a number (got %s)",
                  i == start_idx ? "start" : "step", lmgpu_typename(L, i));
  mgpu_dtype t;
  int ints = lua_isinteger(L, start_idx) && lua_isinteger(L, step_idx);
  if (dtype_idx) {
    t = lmgpu_check_dtype(f, dtype_idx, "dtype");
  } else if (ints) {
    double first = (double)lua_tointeger(L, start_idx);
    double last = first + (double)(n ? n - 1 : 0) * (double)lua_tointeger(L, step_idx);
    t = first >= INT32_MIN && first <= INT32_MAX && last >= INT32_MIN &&
                last <= INT32_MAX
            ? MGPU_I32 : MGPU_I64;
  } else {
    t = MGPU_F64;
  }
  int float_t = mgpu_dtype_is_float(t);
  if (!float_t && !ints)
    lmgpu_error(f, "start and step must be integers for dtype %s",
                mgpu_dtype_name(t));
  lua_createtable(L, (int)p, 0);
  int shards = lua_gettop(L);
  for (size_t k = 0; k < p; k++) {
    size_t off, len = shard_length(n, p, k, &off);
    lua_pushinteger(L, (lua_Integer)len);
    if (float_t) {
      lua_pushnumber(L, lua_tonumber(L, start_idx) +
                            (lua_Number)off * lua_tonumber(L, step_idx));
    } else {
      /* wraps as the whole would, then reads as the dtype's value */
      lua_Unsigned v = (lua_Unsigned)lua_tointeger(L, start_idx) +
                       (lua_Unsigned)off * (lua_Unsigned)lua_tointeger(L, step_idx);
      if (t == MGPU_I32) lua_pushinteger(L, (int32_t)(uint32_t)v);
      else if (t == MGPU_U32) lua_pushinteger(L, (uint32_t)v);
      else lua_pushinteger(L, (lua_Integer)v);
    }
    lua_pushvalue(L, step_idx);
    lua_pushstring(L, mgpu_dtype_name(t));
    call_ctx_method(L, (int)k, "iota", 4);
    lua_rawseti(L, shards, (lua_Integer)k + 1);
  }
  push_sharded(L, 1, shards, t);
  return 1;
}

/* ---- the sorts ------------------------------------------------------------ */

/* After a group call gave p buffers of counts[k] elements of t (in
 * pending, from slot first): a table of p arrays on the group's contexts
 * (the group object at g_idx), pushed. */
static void adopt_outputs(l_frame *f, int g_idx, mgpu_group *g,
                          l_pending *pend, int first, const size_t *counts,
                          mgpu_dtype t) {
  lua_State *L = f->L;
  int p = (int)mgpu_group_size(g);
  lua_getiuservalue(L, g_idx, 1);
  int ctxs = lua_gettop(L);
  lua_createtable(L, p, 0);
  for (int k = 0; k < p; k++) {
    lua_rawgeti(L, ctxs, k + 1);
    l_array *a = lmgpu_push_array_object(L, -1, t);
    l_storage *st = lmgpu_storage_new(L, mgpu_group_context(g, (size_t)k),
                                      counts[k] * mgpu_dtype_size(t));
    if (!st) lmgpu_error(f, "out of host memory");
    st->ptr = pend->out[first + k].ptr;
    pend->out[first + k].ptr = NULL; /* the array's now */
    lmgpu_array_attach(a, st, counts[k]);
    lua_rawseti(L, -3, k + 1);
    lua_pop(L, 1);
  }
  lua_remove(L, ctxs);
}

/* Runs a group call; out of memory, it collects garbage, gives every
 * pool's cache back and tries once more, as lmgpu_retry does. */
typedef mgpu_status (*group_op)(mgpu_group *g, void *arg);

static void run_group(l_frame *f, mgpu_group *g, group_op op, void *arg) {
  mgpu_status s = op(g, arg);
  if (s == MGPU_ENOMEM) {
    lua_gc(f->L, LUA_GCCOLLECT);
    for (size_t k = 0; k < mgpu_group_size(g); k++)
      mgpu_context_reclaim(mgpu_group_context(g, k));
    s = op(g, arg);
  }
  if (s != MGPU_OK) lmgpu_error(f, "%s", mgpu_group_error(g));
}

/* Host arrays of a call's pointers and counts, in one userdata. */
typedef struct sort_io {
  mgpu_dtype t;
  mgpu_order order;
  size_t vs;
  void **keys, **vals, **bkeys, **bvals, **okeys, **ovals;
  size_t *counts, *bcounts, *ocounts;
} sort_io;

static void io_alloc(lua_State *L, sort_io *io, int p) {
  void **v = lua_newuserdatauv(L, (size_t)p * (6 * sizeof(void *) +
                                               3 * sizeof(size_t)), 0);
  io->keys = v, io->vals = v + p, io->bkeys = v + 2 * p;
  io->bvals = v + 3 * p, io->okeys = v + 4 * p, io->ovals = v + 5 * p;
  io->counts = (size_t *)(v + 6 * p);
  io->bcounts = io->counts + p, io->ocounts = io->counts + 2 * p;
}

/* The pointers and lengths of shards k (and values v) into a call's
 * arrays. */
static void io_set(void **keys, void **vals, size_t *counts, const l_array *k,
                   const l_array *v, int p) {
  for (int i = 0; i < p; i++) {
    keys[i] = lmgpu_data(&k[i]);
    vals[i] = v ? lmgpu_data(&v[i]) : NULL;
    counts[i] = k[i].n;
  }
}

static mgpu_status mergesort_op(mgpu_group *g, void *arg) {
  sort_io *io = arg;
  return mgpu_group_mergesort(g, io->t, io->order, io->vs, io->keys,
                              io->vals, io->counts, io->okeys, io->ovals,
                              io->ocounts);
}

static mgpu_status sort_op(mgpu_group *g, void *arg) {
  sort_io *io = arg;
  return mgpu_group_sort(g, io->t, io->order, io->vs, io->keys, io->vals,
                         io->counts, io->okeys, io->ovals, io->ocounts);
}

static mgpu_status merge_op(mgpu_group *g, void *arg) {
  sort_io *io = arg;
  return mgpu_group_merge(g, io->t, io->order, io->vs,
                          (const void *const *)io->keys,
                          (const void *const *)io->vals, io->counts,
                          (const void *const *)io->bkeys,
                          (const void *const *)io->bvals, io->bcounts,
                          io->okeys, io->ovals, io->ocounts);
}

/* Values that go with the sharded keys k (at k_idx): a sharded array at
 * v_idx of the same group, with shards of the same lengths. */
static l_array *pin_values(l_frame *f, int v_idx, const char *arg,
                           l_pins *pins, mgpu_group *g, const l_array *k,
                           const char *karg) {
  l_array *v = pin_shards(f, v_idx, arg, pins, &g);
  for (int i = 0; i < (int)mgpu_group_size(g); i++) {
    if (v[i].n != k[i].n)
      lmgpu_error(f, "%s's shard %d has %I elements, %s's has %I", arg, i + 1,
                  (lua_Integer)v[i].n, karg, (lua_Integer)k[i].n);
    if (lmgpu_overlap(&v[i], &k[i]))
      lmgpu_error(f, "%s's shard %d shares memory with %s's", arg, i + 1, karg);
  }
  return v;
}

/* Keeps the outputs in pending's slots: the group call writes them there. */
static void point_outputs(sort_io *io, l_pending *pend, mgpu_group *g, int p) {
  for (int k = 0; k < p; k++) {
    pend->out[k].ctx = pend->out[p + k].ctx = mgpu_group_context(g, (size_t)k);
    pend->out[k].ptr = io->okeys[k];
    pend->out[k].bytes = io->ocounts[k] * mgpu_dtype_size(io->t);
    pend->out[p + k].ptr = io->vs ? io->ovals[k] : NULL;
    pend->out[p + k].bytes = io->ocounts[k] * io->vs;
  }
}

/* mgpu.mergesort or mgpu.sort (fn, by op) (s [, {values = sv, comp}]) on
 * a sharded array: s (and sv) are given new shards, the k-th range of the
 * sorted order in shard k. */
static int sharded_sort_run(lua_State *L, const char *fn, group_op op) {
  static const char *const names[] = {"values", "comp", NULL};
  lua_settop(L, 2);
  l_frame *f = lmgpu_begin(L, fn);
  l_pins *pins = push_pins(L, 2 * sharded_parts(L, 1));
  mgpu_group *g = NULL;
  l_array *k = pin_shards(f, 1, "keys", pins, &g);
  int p = (int)mgpu_group_size(g);
  int opts = lmgpu_options(f, 2, names);
  sort_io io;
  memset(&io, 0, sizeof io);
  lmgpu_opt_field(f, opts, "comp");
  io.order = lmgpu_check_order(f, -1);
  io.t = k[0].dtype;
  int vals_idx = 0;
  l_array *v = NULL;
  if (lmgpu_opt_field(f, opts, "values") != LUA_TNIL) {
    vals_idx = lua_gettop(L);
    v = pin_values(f, vals_idx, "values", pins, g, k, "keys");
    io.vs = mgpu_dtype_size(v[0].dtype);
  }
  io_alloc(L, &io, p);
  io_set(io.keys, io.vals, io.counts, k, v, p);
  size_t n = total_length(k, p);
  lmgpu_heap_before_alloc(L, lmgpu_heap(L),
                          n * (mgpu_dtype_size(io.t) + io.vs));
  l_pending *pend = push_pending(L, 2 * p);
  run_group(f, g, op, &io);
  point_outputs(&io, pend, g, p);
  lua_getiuservalue(L, 1, 1);
  int g_idx = lua_gettop(L);
  adopt_outputs(f, g_idx, g, pend, 0, io.ocounts, io.t);
  lua_setiuservalue(L, 1, 2);
  if (v) {
    adopt_outputs(f, g_idx, g, pend, p, io.ocounts, v[0].dtype);
    lua_setiuservalue(L, vals_idx, 2);
  }
  lua_pushvalue(L, 1);
  if (!v) return 1;
  lua_pushvalue(L, vals_idx);
  return 2;
}

int lmgpu_sharded_mergesort(lua_State *L) {
  return sharded_sort_run(L, "mgpu.mergesort", mergesort_op);
}

int lmgpu_sharded_sort(lua_State *L) {
  return sharded_sort_run(L, "mgpu.sort", sort_op);
}

/* mgpu.merge(a, b [, {values = {av, bv}, comp}]) of sorted sharded arrays
 * of one group -> a new sharded array (and its values). */
int lmgpu_sharded_merge(lua_State *L) {
  static const char *const names[] = {"values", "comp", NULL};
  lua_settop(L, 3);
  l_frame *f = lmgpu_begin(L, "mgpu.merge");
  l_pins *pins = push_pins(L, 4 * sharded_parts(L, 1));
  mgpu_group *g = NULL;
  l_array *a = pin_shards(f, 1, "a", pins, &g);
  l_array *b = pin_shards(f, 2, "b", pins, &g);
  if (a[0].dtype != b[0].dtype)
    lmgpu_error(f, "b has dtype %s, a has %s", mgpu_dtype_name(b[0].dtype),
                mgpu_dtype_name(a[0].dtype));
  int p = (int)mgpu_group_size(g);
  int opts = lmgpu_options(f, 3, names);
  sort_io io;
  memset(&io, 0, sizeof io);
  lmgpu_opt_field(f, opts, "comp");
  io.order = lmgpu_check_order(f, -1);
  io.t = a[0].dtype;
  l_array *av = NULL, *bv = NULL;
  if (lmgpu_opt_field(f, opts, "values") != LUA_TNIL) {
    int vt = lua_gettop(L);
    if (!lua_istable(L, vt))
      lmgpu_error(f, "values must be a table {av, bv} (got %s)",
                  lmgpu_typename(L, vt));
    lua_rawgeti(L, vt, 1);
    av = pin_values(f, -1, "values[1]", pins, g, a, "a");
    lua_rawgeti(L, vt, 2);
    bv = pin_values(f, -1, "values[2]", pins, g, b, "b");
    if (av[0].dtype != bv[0].dtype)
      lmgpu_error(f, "values[2] has dtype %s, values[1] has %s",
                  mgpu_dtype_name(bv[0].dtype), mgpu_dtype_name(av[0].dtype));
    io.vs = mgpu_dtype_size(av[0].dtype);
  }
  io_alloc(L, &io, p);
  io_set(io.keys, io.vals, io.counts, a, av, p);
  io_set(io.bkeys, io.bvals, io.bcounts, b, bv, p);
  size_t n = total_length(a, p) + total_length(b, p);
  lmgpu_heap_before_alloc(L, lmgpu_heap(L),
                          n * (mgpu_dtype_size(io.t) + io.vs));
  l_pending *pend = push_pending(L, 2 * p);
  run_group(f, g, merge_op, &io);
  point_outputs(&io, pend, g, p);
  lua_getiuservalue(L, 1, 1);
  int g_idx = lua_gettop(L);
  adopt_outputs(f, g_idx, g, pend, 0, io.ocounts, io.t);
  push_sharded(L, g_idx, -1, io.t);
  int out = lua_gettop(L);
  if (!av) return 1;
  adopt_outputs(f, g_idx, g, pend, p, io.ocounts, av[0].dtype);
  push_sharded(L, g_idx, -1, av[0].dtype);
  lua_pushvalue(L, out);
  lua_insert(L, -2);
  return 2;
}

/* mgpu.segsort(s, heads [, {values, comp}]) on a sharded array: heads
 * (1-based in the whole, sorted, unique: a table or an mgpu.array) must
 * start every shard after the first non-empty one. */
int lmgpu_sharded_segsort(lua_State *L) {
  static const char *const names[] = {"values", "comp", "stable", NULL};
  lua_settop(L, 3);
  l_frame *f = lmgpu_begin(L, "mgpu.segsort");
  l_pins *pins = push_pins(L, 2 * sharded_parts(L, 1));
  mgpu_group *g = NULL;
  l_array *k = pin_shards(f, 1, "keys", pins, &g);
  int p = (int)mgpu_group_size(g);
  int opts = lmgpu_options(f, 3, names);
  (void)lmgpu_opt_boolean(f, opts, "stable", 1); /* always stable */
  lmgpu_opt_field(f, opts, "comp");
  mgpu_order order = lmgpu_check_order(f, -1);
  l_array *v = NULL;
  int vals_idx = 0;
  if (lmgpu_opt_field(f, opts, "values") != LUA_TNIL) {
    vals_idx = lua_gettop(L);
    v = pin_values(f, vals_idx, "values", pins, g, k, "keys");
  }
  size_t n = total_length(k, p);
  l_array *ha = luaL_testudata(L, 2, LMGPU_ARRAY);
  if (ha) {
    if (!ha->st) lmgpu_error(f, "heads has been freed");
    if (mgpu_dtype_is_float(ha->dtype))
      lmgpu_error(f, "heads must have an integer dtype (got %s)",
                  mgpu_dtype_name(ha->dtype));
    lua_getfield(L, 2, "totable");
    lua_pushvalue(L, 2);
    lua_call(L, 1, 1);
  } else if (lua_istable(L, 2)) {
    lua_pushvalue(L, 2);
  } else {
    lmgpu_error(f, "heads must be an mgpu.array or a table of 1-based "
                   "segment starts (got %s)", lmgpu_typename(L, 2));
  }
  int ht = lua_gettop(L);
  size_t m = lua_rawlen(L, ht);
  int64_t *heads = lua_newuserdatauv(L, (m ? m : 1) * sizeof *heads, 0);
  for (size_t i = 0; i < m; i++) {
    lua_rawgeti(L, ht, (lua_Integer)i + 1);
    int ok = 0;
    lua_Integer h = lua_tointegerx(L, -1, &ok);
    if (!ok || h < 1 || (size_t)h > n || (i && h <= heads[i - 1] + 1))
      lmgpu_error(f, "heads must be sorted, unique and in 1..%I (element %I "
                     "is %s)", (lua_Integer)n, (lua_Integer)i + 1,
                  lmgpu_describe(L, -1));
    heads[i] = h - 1;
    lua_pop(L, 1);
  }
  sort_io io;
  memset(&io, 0, sizeof io);
  io_alloc(L, &io, p);
  io_set(io.keys, io.vals, io.counts, k, v, p);
  mgpu_status s = mgpu_group_segsort(g, k[0].dtype, order,
                                     v ? mgpu_dtype_size(v[0].dtype) : 0,
                                     io.keys, io.vals, io.counts, heads, m);
  if (s != MGPU_OK) lmgpu_error(f, "%s", mgpu_group_error(g));
  lua_pushvalue(L, 1);
  if (!v) return 1;
  lua_pushvalue(L, vals_idx);
  return 2;
}

/* ---- registration ----------------------------------------------------------- */

static const luaL_Reg group_methods[] = {
  {"size", g_size},
  {"contexts", g_contexts},
  {"shard", g_shard},
  {"sharded", g_sharded},
  {"random", g_random},
  {"iota", g_iota},
  {NULL, NULL},
};

static const luaL_Reg sharded_methods[] = {
  {"shards", s_shards},
  {"counts", s_counts},
  {"totable", s_totable},
  {"to", s_to},
  {NULL, NULL},
};

void lmgpu_group_register(lua_State *L) {
  lmgpu_closer_register(L, LMGPU_PINS, pins_close, 0);
  lmgpu_closer_register(L, LMGPU_PENDING, pending_close, 0);
  if (luaL_newmetatable(L, LMGPU_GROUP)) {
    luaL_newlib(L, group_methods);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, g_size);
    lua_setfield(L, -2, "__len");
    lua_pushcfunction(L, g_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushcfunction(L, group_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_pop(L, 1);
  if (luaL_newmetatable(L, LMGPU_SHARDED)) {
    luaL_newlib(L, sharded_methods);
    lua_pushcclosure(L, s_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, s_len);
    lua_setfield(L, -2, "__len");
  }
  lua_pop(L, 1);
}
