-- mgpu.ffi: the LuaJIT binding, over the C API of libmgpu.so through the
-- FFI.  It builds the same table as the C module mgpu.core does under Lua
-- 5.4 (init.lua picks one or the other), with the same argument checks and
-- messages.  Arrays and contexts are cdata of the struct types declared
-- below; their __gc releases what they hold.
--
-- libmgpu.so is found through $MGPU_LIB (a path), else the first
-- "libmgpu" that package.cpath's templates name (LUA_CPATH='build/?.so'
-- finds build/libmgpu.so), else where `cmake --install` puts it beside this
-- file (PREFIX/share/lua/5.x/mgpu/ffi.lua -> PREFIX/lib/libmgpu.so), else
-- the system's library search (ffi.load "mgpu": LD_LIBRARY_PATH, ldconfig).
local ffi = require "ffi"

-- A host that declared mgpu.h itself (or clock_gettime) has them already:
-- ffi.cdef refuses a second declaration, and the first one stands.
pcall(ffi.cdef, require "mgpu.ffi_cdef")
pcall(ffi.cdef, [[
struct mgpu_lj_timespec { long tv_sec; long tv_nsec; };
int clock_gettime(int clk, struct mgpu_lj_timespec *ts);
]])
-- The objects: an array is a pointer to its first element, its context,
-- the allocation it owns (or shares, for views: _shared) and whether it is
-- still live; a context object holds one reference on its C context.
ffi.cdef [[
typedef struct mgpu_lj_array {
  char *_p; mgpu_context *_ctx; char *_base; int64_t _n; size_t _bytes;
  int32_t _t; int32_t _cid; int32_t _live; int32_t _shared;
} mgpu_lj_array;
typedef struct mgpu_lj_context { mgpu_context *_c; int32_t _id; } mgpu_lj_context;
]]
-- The calls that allocate what an array will own, returning their status
-- as an int: an enum result is a cdata, made after the call has
-- allocated, and making it can run a finalizer (see "arrays: storage and
-- lifetime").
pcall(ffi.cdef, [[
int mgpu_lj_alloc(mgpu_context *ctx, size_t bytes, void **out) __asm__("mgpu_alloc");
int mgpu_lj_join_new(mgpu_context *ctx, mgpu_dtype t, mgpu_order order,
                     mgpu_join_kind kind, const void *a, size_t na,
                     const void *b, size_t nb, int32_t base,
                     mgpu_dtype index_type, void **ia, void **ib,
                     uint64_t *count) __asm__("mgpu_join_new_idx");
int mgpu_lj_group_mergesort(mgpu_group *g, mgpu_dtype key_type,
                            mgpu_order order, size_t value_size,
                            void *const *keys, void *const *vals,
                            const size_t *counts, void **out_keys,
                            void **out_vals, size_t *out_counts)
    __asm__("mgpu_group_mergesort");
int mgpu_lj_group_sort(mgpu_group *g, mgpu_dtype key_type, mgpu_order order,
                       size_t value_size, void *const *keys,
                       void *const *vals, const size_t *counts,
                       void **out_keys, void **out_vals, size_t *out_counts)
    __asm__("mgpu_group_sort");
int mgpu_lj_group_merge(mgpu_group *g, mgpu_dtype key_type, mgpu_order order,
                        size_t value_size, const void *const *a_keys,
                        const void *const *a_vals, const size_t *a_counts,
                        const void *const *b_keys, const void *const *b_vals,
                        const size_t *b_counts, void **out_keys,
                        void **out_vals, size_t *out_counts)
    __asm__("mgpu_group_merge");
]])

local function load_library()
  local env = os.getenv("MGPU_LIB")
  if env and env ~= "" then return ffi.load(env) end
  for template in package.cpath:gmatch("[^;]+") do
    local path = template:gsub("%?", "libmgpu")
    local f = io.open(path, "rb")
    if f then
      f:close()
      return ffi.load(path)
    end
  end
  local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$")
  if here then
    for _, lib in ipairs { "lib", "lib64" } do
      local path = here .. "/../../../../" .. lib .. "/libmgpu.so"
      local f = io.open(path, "rb")
      if f then
        f:close()
        return ffi.load(path)
      end
    end
  end
  local ok, lib = pcall(ffi.load, "mgpu")
  if ok then return lib end
  error("mgpu: cannot find libmgpu.so (set MGPU_LIB to its path, or add "
    .. "its directory to package.cpath as dir/?.so): " .. tostring(lib), 0)
end

local C = load_library()
local S = ffi.C

local floor, huge = math.floor, math.huge
local format = string.format
local istype, cast, ffistring = ffi.istype, ffi.cast, ffi.string
local select, type, tostring, tonumber, rawget, next, error =
  select, type, tostring, tonumber, rawget, next, error

-- The 32-bit limit (MGPU_MAX_COUNT): that of i32 index arrays, Lua tables
-- of indices and a join's rows.  A context's own limit, every call's, is
-- C.mgpu_context_max_count(ctx).
local MAX_COUNT = 2147483647
local TWO53, TWO63, TWO64 = 2 ^ 53, 2 ^ 63, 2 ^ 64
local ENOMEM = 1

local I32, U32, I64, U64, F32, F64 = 0, 1, 2, 3, 4, 5
local DTYPE_NAMES = { [0] = "i32", "u32", "i64", "u64", "f32", "f64" }
local DTYPE_SIZE = { [0] = 4, 4, 8, 8, 4, 8 }
local DTYPE_CTYPE = { [0] = "int32_t", "uint32_t", "int64_t", "uint64_t",
  "float", "double" }
local DTYPE_PTR, DTYPE_VLA = {}, {}
for t = 0, 5 do
  DTYPE_PTR[t] = ffi.typeof(DTYPE_CTYPE[t] .. " *")
  DTYPE_VLA[t] = ffi.typeof(DTYPE_CTYPE[t] .. "[?]")
end
local DTYPES = {
  i32 = I32, u32 = U32, i64 = I64, u64 = U64, f32 = F32, f64 = F64,
  int32 = I32, uint32 = U32, int64 = I64, uint64 = U64, float32 = F32,
  float64 = F64,
}
local function is_float(t) return t >= F32 end

local Array = ffi.typeof("mgpu_lj_array")
local Context = ffi.typeof("mgpu_lj_context")
local i64_ct, u64_ct = ffi.typeof("int64_t"), ffi.typeof("uint64_t")
local U64_TWO63 = ffi.cast(u64_ct, 2 ^ 62) * 2
local voidpp = ffi.typeof("void *[1]")
local sizep = ffi.typeof("size_t[1]")
local scalar_ct = ffi.typeof("mgpu_scalar")
local scalarp = ffi.typeof("mgpu_scalar[1]")
local intp = ffi.typeof("int[1]")
local i64p = ffi.typeof("int64_t[1]")
local NULL = nil

local core = {}

-- ---- messages --------------------------------------------------------------

-- "file:line: " of the code that called into the binding, as the C
-- module's errors carry it (luaL_where of its caller): the first frame
-- outside this file, unless that is a C function (pcall ...) called from
-- outside it, which has no line.
local SELF = debug.getinfo(1, "S").source
local getinfo = debug.getinfo

local function where()
  local level = 3
  while true do
    local info = getinfo(level, "Sl")
    if not info then return "" end
    if info.source ~= SELF then
      if info.what ~= "C" then
        if info.currentline > 0 then
          return info.short_src .. ":" .. info.currentline .. ": "
        end
        return ""
      end
      local up = getinfo(level + 1, "S")
      if not (up and up.source == SELF) then return "" end
    end
    level = level + 1
  end
end

local function fail(fn, fmt, ...)
  error(where() .. fn .. ": " .. format(fmt, ...), 0)
end

local function int64_digits(v)
  return (tostring(v):gsub("U?LL$", ""))
end

-- A number as the C binding prints one: integers as digits, other values in
-- the shortest form that reads back the same.
local function number_string(d)
  if d == floor(d) and d > -TWO63 and d < TWO63 then
    return format("%d", d)
  end
  if d ~= d then return d > 0 and "nan" or "-nan" end
  if d == huge then return "inf" end
  if d == -huge then return "-inf" end
  local s
  for prec = 15, 17 do
    s = format("%." .. prec .. "g", d)
    if tonumber(s) == d then break end
  end
  return s
end

-- Groups' and sharded arrays' state, by their proxies (see "groups"
-- below), and the sorts of sharded arrays that merge, mergesort and
-- segsort hand them to.
local group_state = setmetatable({}, { __mode = "k" })
local sharded_state = setmetatable({}, { __mode = "k" })
local sharded_mergesort, sharded_sort, sharded_merge, sharded_segsort

local function typename(v, none)
  if none then return "no value" end
  local tv = type(v)
  if tv == "userdata" then
    if sharded_state[v] then
      return format("mgpu.sharded<%s>", DTYPE_NAMES[sharded_state[v].t])
    end
    if group_state[v] then return "mgpu.group" end
  end
  if tv == "cdata" then
    if istype(Array, v) then
      if v._live == 0 then return "a freed mgpu.array" end
      return format("mgpu.array<%s>[%d]", DTYPE_NAMES[v._t], tonumber(v._n))
    end
    if istype(Context, v) then return "mgpu.context" end
    return "cdata"
  end
  return tv
end

local function describe(v)
  if type(v) == "number" then return number_string(v) end
  if istype(i64_ct, v) or istype(u64_ct, v) then return int64_digits(v) end
  return typename(v)
end

-- ---- module state -------------------------------------------------------

-- An array owns its allocation (_base, _bytes) and a reference on its C
-- context; arrays that share one (a view and what it was cut from) count
-- their references here, by the allocation's address, and the last one
-- releases it.
local shared_refs = {}
local contexts = setmetatable({}, { __mode = "v" }) -- id -> context object
local next_cid = 1
-- The bytes this state's arrays hold, those taken since the last forced
-- collection, and the mark for the next (see docs/API.md, Memory).
local HEAP_MIN = 64 * 1024 * 1024
local heap_live, heap_since, heap_threshold = 0, 0, HEAP_MIN

local function check_status(fn, ctx, s)
  if s == 0 then return end
  local msg = ctx ~= nil and ffistring(C.mgpu_context_error(ctx)) or ""
  if msg == "" then msg = ffistring(C.mgpu_status_name(s)) end
  fail(fn, "%s", msg)
end

-- Runs a C call; on MGPU_ENOMEM collects (finalising unreachable arrays),
-- returns the pool's cache to the device and tries once more.
local function retry(ctx, f, ...)
  local s = f(...)
  if s == ENOMEM then
    collectgarbage()
    C.mgpu_context_reclaim(ctx)
    s = f(...)
  end
  return s
end

-- ---- arrays: storage and lifetime ---------------------------------------

local function base_key(a) return tonumber(cast("uintptr_t", a._base)) end

-- An array holds its share of an allocation while its _base is set; _live
-- says only whether it may be used (an array freed inside a call keeps
-- its share until the call is over).  A share changes hands with nothing
-- allocated between the allocation's address landing in _base (or
-- leaving it) and the books following (the context reference, heap_live,
-- shared_refs): an allocation can run a finalizer, and under LuaJIT a
-- finalizer's error propagates from there.  So the C calls that allocate
-- write the address straight into _base (base_slot), and everything the
-- books need is read beforehand.
local u32p_t = ffi.typeof("uint32_t *")
local LO32 = ffi.abi("le") and 0 or 1 -- the low half of a 64-bit count

local base_slot -- a's _base, as a void ** for a C call to write
do
  local off, voidpp_t = ffi.offsetof("mgpu_lj_array", "_base"), ffi.typeof("void **")
  base_slot = function(a) return cast(voidpp_t, cast("char *", a) + off) end
end

-- The books of a share taken: a context reference and the bytes.
local function take_share(ctx, bytes)
  C.mgpu_context_retain(ctx)
  heap_live = heap_live + bytes
  heap_since = heap_since + bytes
end

-- Gives up a share of the allocation (base, bytes) of C context ctx, which
-- goes with the last one; key: its shared_refs key when views share it.
local function release_storage(base, key, bytes, ctx)
  if key then
    local refs = shared_refs[key] - 1
    if refs > 0 then
      shared_refs[key] = refs
      return
    end
    shared_refs[key] = nil
  end
  C.mgpu_free(ctx, base, bytes)
  heap_live = heap_live - bytes
  C.mgpu_context_release(ctx)
end

-- __gc, a:free() outside a call, the releases deferred to a call's end and
-- the binding's own temporaries.
local function array_release(a)
  if a._base == NULL then return end
  local base, bytes, ctx = a._base, tonumber(a._bytes), a._ctx
  local key = a._shared ~= 0 and base_key(a) or nil
  a._live = 0
  a._p = NULL
  a._base = NULL
  release_storage(base, key, bytes, ctx)
end

-- Releases that a:free() made while a call of this binding was under way
-- (from a finalizer that ran inside it): the call may be using the memory,
-- so it goes when the call is over, as the C module's call frame does it.
-- An unreachable array (__gc) is used by no call and goes at once.
local deferred, ndeferred = {}, 0

-- Whether a function of this file is on the stack from `level` down
-- (1 being inside_call itself).
local function inside_call(level)
  while true do
    local info = getinfo(level, "S")
    if not info then return false end
    if info.source == SELF then return true end
    level = level + 1
  end
end

-- An entry is the array itself (a:free()), or a context object's C
-- context (ctx:close()).  The array is read when it goes, not when it was
-- freed: the call under way may since have cut a view of it, which then
-- shares the allocation.
local function flush_deferred()
  local list, n = deferred, ndeferred
  deferred, ndeferred = {}, 0
  for i = 1, n do
    local d = list[i]
    if istype(Array, d) then
      array_release(d)
    else
      C.mgpu_context_release(d)
    end
  end
end

-- First thing in each of the binding's functions (as
-- `if ndeferred > 0 then settle() end`): the releases left by a call that
-- has ended.  None is under way unless this function's caller (level 4:
-- inside_call, settle, the function, its caller) is itself in a call,
-- which a finalizer can be.
local function settle()
  if not inside_call(4) then flush_deferred() end
end

local function before_alloc(bytes)
  if heap_since + bytes <= heap_threshold then return end
  collectgarbage()
  heap_since = 0
  heap_threshold = heap_live > HEAP_MIN and heap_live or HEAP_MIN
end

-- A new array of n elements of dtype t on C context ctx (whose context
-- object has id cid).
local function alloc_array(fn, ctx, cid, n, t)
  local limit = tonumber(C.mgpu_context_max_count(ctx))
  if n > limit then
    fail(fn, "%d elements is past the limit of %d per array on %s", n, limit,
      ffistring(C.mgpu_context_device(ctx)))
  end
  local bytes = n * DTYPE_SIZE[t]
  before_alloc(bytes)
  local a = Array()
  local slot = base_slot(a)
  a._bytes = bytes
  a._ctx = ctx
  local s = C.mgpu_lj_alloc(ctx, bytes, slot)
  if s == ENOMEM then
    collectgarbage()
    C.mgpu_context_reclaim(ctx)
    s = C.mgpu_lj_alloc(ctx, bytes, slot)
  end
  if s == 0 then take_share(ctx, bytes) end
  check_status(fn, ctx, s)
  a._p = a._base
  a._n = n
  a._t = t
  a._cid = cid
  a._live = 1
  return a
end

-- On a context object (or anything with its _c and _id).
local function new_array(fn, cobj, n, t)
  return alloc_array(fn, cobj._c, cobj._id, n, t)
end

local function new_like(fn, like, n, t)
  return alloc_array(fn, like._ctx, like._cid, n, t)
end

-- The context object of an array: the one it was made on, or, once that
-- has been collected, a new object for the same C context and id.
local function cobj_of(a)
  local c = contexts[a._cid]
  if c == nil then
    c = Context()
    C.mgpu_context_retain(a._ctx)
    c._c = a._ctx
    c._id = a._cid
    contexts[a._cid] = c
  end
  return c
end

-- What a call on array a's context makes its arrays on: a's C context
-- even where a's context object has been closed.
local function home_of(a) return { _c = a._ctx, _id = a._cid } end

-- The same for a call on a context object: its C context as it was when
-- the call began (ctx:close() inside the call defers the release).  The
-- read allocates, so a finalizer may have closed the object just before.
local function pin(fn, c)
  local ctx = c._c
  if ctx == NULL then fail(fn, "the context has been closed") end
  return { _c = ctx, _id = c._id }
end

local function nbytes(a) return tonumber(a._n) * DTYPE_SIZE[a._t] end

-- ---- argument checks ----------------------------------------------------

local function arg_array(fn, v, arg)
  if not istype(Array, v) then
    fail(fn, "%s must be an mgpu.array (got %s)", arg, typename(v))
  end
  if v._live == 0 then fail(fn, "%s has been freed", arg) end
  return v
end

local function check_options(fn, opts, names)
  if opts == nil then return nil end
  if type(opts) ~= "table" then
    fail(fn, "options must be a table (got %s)", typename(opts))
  end
  for k in next, opts do
    if type(k) ~= "string" then
      fail(fn, "option names must be strings (got %s)", describe(k))
    end
    if not names[k] then fail(fn, "unknown option '%s'", k) end
  end
  return opts
end

local function opt_field(opts, k)
  if opts == nil then return nil end
  return rawget(opts, k)
end

local function opt_boolean(fn, opts, k, dflt)
  local v = opt_field(opts, k)
  if v == nil then return dflt end
  if type(v) ~= "boolean" then
    fail(fn, "%s must be a boolean (got %s)", k, describe(v))
  end
  return v
end

local function opt_field_array(fn, opts, k, arg)
  local v = opt_field(opts, k)
  if v == nil then return nil end
  return arg_array(fn, v, arg)
end

local function check_order(fn, v)
  if v == nil or v == "less" then return 0 end
  if v == "greater" then return 1 end
  if type(v) == "string" then
    fail(fn, "comp must be \"less\" or \"greater\" (got \"%s\")", v)
  end
  fail(fn, "comp must be \"less\" or \"greater\" (got %s)", describe(v))
end

local function check_dtype(fn, v, arg)
  if type(v) ~= "string" then
    fail(fn, "%s must be a string such as \"i32\" (got %s)", arg, describe(v))
  end
  local t = DTYPES[v]
  if not t then
    fail(fn, "unknown dtype '%s' (expected i32 u32 i64 u64 f32 f64)", v)
  end
  return t
end

local function is_int64_cdata(v)
  return istype(i64_ct, v) or istype(u64_ct, v)
end

-- limit: the context's (C.mgpu_context_max_count), MAX_COUNT when nil.
local function check_count(fn, v, arg, none, limit)
  limit = limit or MAX_COUNT
  if none or v == nil then
    fail(fn, "%s is missing (expected a non-negative integer)", arg)
  end
  if is_int64_cdata(v) then
    if v < 0 and istype(i64_ct, v) then
      fail(fn, "%s must not be negative (got %s)", arg, int64_digits(v))
    end
    if v > limit then
      fail(fn, "%s = %s is past the limit of %d elements", arg,
        int64_digits(v), limit)
    end
    return tonumber(v)
  end
  if type(v) ~= "number" then
    fail(fn, "%s must be a non-negative integer (got %s)", arg, describe(v))
  end
  if v ~= floor(v) or v ~= v then
    fail(fn, "%s must be an integer (got %s)", arg, describe(v))
  end
  if v < 0 then fail(fn, "%s must not be negative (got %s)", arg, describe(v)) end
  if v > limit then
    fail(fn, "%s = %s is past the limit of %d elements", arg, describe(v),
      limit)
  end
  return v
end

local function bad_element(fn, v, t, what, pos, problem)
  if pos and pos > 0 then
    fail(fn, "%s %d %s %s (got %s)", what, pos, problem, DTYPE_NAMES[t],
      describe(v))
  end
  fail(fn, "%s %s %s (got %s)", what, problem, DTYPE_NAMES[t], describe(v))
end

-- v converted for a store into an element of dtype t: a number, or an
-- int64_t/uint64_t cdata for the 64-bit dtypes.
local function to_element(fn, v, t, what, pos)
  if type(v) == "number" then
    if t >= F32 then return v end
    if v ~= floor(v) then return bad_element(fn, v, t, what, pos, "does not fit") end
    if t == I32 then
      if v < -2147483648 or v > 2147483647 then
        bad_element(fn, v, t, what, pos, "does not fit")
      end
      return v
    elseif t == U32 then
      if v < 0 or v > 4294967295 then
        bad_element(fn, v, t, what, pos, "does not fit")
      end
      return v
    elseif t == I64 then
      if v < -TWO63 or v >= TWO63 then
        bad_element(fn, v, t, what, pos, "does not fit")
      end
      return v
    else -- u64: negatives take their two's-complement bits
      if v < -TWO63 or v >= TWO64 then
        bad_element(fn, v, t, what, pos, "does not fit")
      end
      if v < 0 then return cast(u64_ct, cast(i64_ct, v)) end
      return v
    end
  end
  if istype(i64_ct, v) then
    if t >= F32 then return tonumber(v) end
    if t == I32 and (v < -2147483648 or v > 2147483647) or
        t == U32 and (v < 0 or v > 4294967295) then
      bad_element(fn, v, t, what, pos, "does not fit")
    end
    if t == U64 then return cast(u64_ct, v) end
    return v
  end
  if istype(u64_ct, v) then
    if t >= F32 then return tonumber(v) end
    if t == I32 and v > 2147483647 or t == U32 and v > 4294967295 or
        t == I64 and v >= U64_TWO63 then
      bad_element(fn, v, t, what, pos, "does not fit")
    end
    if t == I64 then return cast(i64_ct, v) end
    return v
  end
  bad_element(fn, v, t, what, pos, "must be a number for")
end

-- An element read from a typed pointer, as a Lua value: 64-bit integers
-- beyond 2^53 in magnitude stay int64_t/uint64_t cdata.
local function from_element(t, x)
  if t == I64 then
    if x >= -TWO53 and x <= TWO53 then return tonumber(x) end
    return x
  elseif t == U64 then
    if x <= TWO53 then return tonumber(x) end
    return x
  end
  return x
end

-- A number "is an integer" under LuaJIT when its value is integral and
-- within the 64-bit range: the dtype inference's stand-in for 5.4's
-- integer subtype.
local function infer_dtype(v)
  if type(v) == "number" then
    if v ~= floor(v) or v < -TWO63 or v >= TWO63 then return F64 end
    if v >= -2147483648 and v <= 2147483647 then return I32 end
    return I64
  end
  if istype(u64_ct, v) and v >= U64_TWO63 then return U64 end
  if is_int64_cdata(v) then
    if v >= -2147483648 and v <= 2147483647 then return I32 end
    return I64
  end
  return F64
end

local function is_integer(v)
  if type(v) == "number" then return v == floor(v) and v >= -TWO63 and v < TWO63 end
  return is_int64_cdata(v)
end

local function same_context(fn, a, b, an, bn)
  if a._ctx ~= b._ctx then
    fail(fn, "%s and %s belong to different contexts (%s and %s)", an, bn,
      ffistring(C.mgpu_context_device(a._ctx)),
      ffistring(C.mgpu_context_device(b._ctx)))
  end
end

local function overlap(a, b)
  if a._live == 0 or b._live == 0 or a._n == 0 or b._n == 0 then return false end
  if a._base ~= b._base then return false end
  local a0, b0 = a._p, b._p
  local a1, b1 = a0 + nbytes(a), b0 + nbytes(b)
  return a0 < b1 and b0 < a1
end

local function no_overlap(fn, out, inp, on, in_name)
  if inp ~= nil and overlap(out, inp) then
    fail(fn, "%s overlaps %s (outputs must not share memory with inputs)",
      on, in_name)
  end
end

local function value_pair(fn, vals, a, b)
  if type(vals) ~= "table" then
    fail(fn, "values must be a table {av, bv} (got %s)", typename(vals))
  end
  local av = arg_array(fn, rawget(vals, 1), "values[1]")
  local bv = arg_array(fn, rawget(vals, 2), "values[2]")
  same_context(fn, a, av, "a", "values[1]")
  same_context(fn, a, bv, "a", "values[2]")
  if av._t ~= bv._t then
    fail(fn, "values[2] has dtype %s, values[1] has %s", DTYPE_NAMES[bv._t],
      DTYPE_NAMES[av._t])
  end
  if av._n ~= a._n then
    fail(fn, "values[1] has %d elements, a has %d", tonumber(av._n),
      tonumber(a._n))
  end
  if bv._n ~= b._n then
    fail(fn, "values[2] has %d elements, b has %d", tonumber(bv._n),
      tonumber(b._n))
  end
  return av, bv
end

-- Trims result r (holding count results) to count elements; moves it to an
-- exact-size array when trimming would strand much memory.
local function fit_result(fn, r, count)
  local n, esize = tonumber(r._n), DTYPE_SIZE[r._t]
  if count * 2 >= n or (n - count) * esize < 65536 then
    r._n = count
    return r
  end
  local exact = new_like(fn, r, count, r._t)
  check_status(fn, r._ctx, C.mgpu_copy(r._ctx, exact._p, r._p, count * esize))
  array_release(r)
  return exact
end

-- ---- contexts -----------------------------------------------------------

local shared = {} -- device name -> context object (a:to("cpu") ...)
local default_ctx

local function open_context(fn, device)
  local box = ffi.new("mgpu_context *[1]")
  local errbuf = ffi.new("char[256]")
  local s = C.mgpu_context_create(device, box, errbuf, 256)
  if s ~= 0 then
    fail(fn, "cannot use device '%s': %s", device, ffistring(errbuf))
  end
  local c = Context()
  c._c = box[0]
  c._id = next_cid
  contexts[next_cid] = c
  next_cid = next_cid + 1
  return c
end

local function is_open(c) return istype(Context, c) and c._c ~= NULL end

local function device_context(fn, device)
  local c = shared[device]
  if is_open(c) then return c end
  c = open_context(fn, device)
  local canon = ffistring(C.mgpu_context_device(c._c))
  local same = shared[canon]
  if is_open(same) then
    shared[device] = same
    return same
  end
  shared[canon] = c
  shared[device] = c
  return c
end

local function default_device()
  local env = os.getenv("MGPU_DEVICE")
  if env and env ~= "" then return env end
  return C.mgpu_cuda_device_count() > 0 and "cuda:0" or "cpu"
end

local function get_default(fn)
  if default_ctx ~= nil then
    if not is_open(default_ctx) then
      fail(fn, "the default context has been closed (make another with "
        .. "mgpu.default_context(mgpu.context()))")
    end
    return default_ctx
  end
  default_ctx = device_context(fn, default_device())
  return default_ctx
end

local function check_context(fn, c)
  if not istype(Context, c) then
    fail(fn, "expected an mgpu.context (got %s)", typename(c))
  end
  if c._c == NULL then fail(fn, "the context has been closed") end
  return c
end

function core.devices()
  if ndeferred > 0 then settle() end
  local n = C.mgpu_cuda_device_count()
  local t = {}
  for i = 0, n - 1 do t[#t + 1] = "cuda:" .. i end
  t[#t + 1] = "cpu"
  return t
end

local CONTEXT_OPTS = { device = true, memory_limit = true }

function core.context(o)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.context"
  local device, limit = nil, 0
  if type(o) == "string" then
    device = o
  elseif type(o) == "table" then
    check_options(fn, o, CONTEXT_OPTS)
    local d = rawget(o, "device")
    if d ~= nil then
      if type(d) ~= "string" then
        fail(fn, "device must be a string (got %s)", typename(d))
      end
      device = d
    end
    local m = rawget(o, "memory_limit")
    if m ~= nil then
      if not is_integer(m) or m < 0 then
        fail(fn, "memory_limit must be a non-negative integer number of "
          .. "bytes (got %s)", describe(m))
      end
      limit = m
    end
  elseif o ~= nil then
    fail(fn, "expected a device string or a table of options (got %s)",
      typename(o))
  end
  if not device then
    device = is_open(default_ctx) and ffistring(C.mgpu_context_device(
      default_ctx._c)) or default_device()
  end
  local c = open_context(fn, device)
  C.mgpu_context_set_memory_limit(c._c, limit)
  return c
end

function core.default_context(c)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.default_context"
  if c ~= nil then
    check_context(fn, c)
    default_ctx = c
    return c
  end
  return get_default(fn)
end

function core.memory()
  if ndeferred > 0 then settle() end
  return { live = heap_live, since = heap_since, threshold = heap_threshold }
end

local ts = ffi.new("struct mgpu_lj_timespec")
function core.clock()
  S.clock_gettime(1, ts) -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end

function core._kernel_paths(c, paths)
  local fn = "mgpu.core._kernel_paths"
  check_context(fn, c)
  check_status(fn, c._c, C.mgpu_context_set_kernel_paths(c._c, paths))
end

local ctx_methods = {}

function ctx_methods.sync(c)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.context:sync"
  check_context(fn, c)
  check_status(fn, c._c, C.mgpu_context_sync(c._c))
  return c
end

function ctx_methods.info(c)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.context:info"
  check_context(fn, c)
  local ctx = c._c
  local info = ffi.new("mgpu_context_info")
  check_status(fn, ctx, C.mgpu_context_info_get(ctx, info))
  local t = {
    device = ffistring(C.mgpu_context_device(ctx)),
    backend = ffistring(C.mgpu_context_backend(ctx)),
    name = ffistring(info.name),
    multiprocessors = info.multiprocessors,
    memory_total = tonumber(info.memory_total),
    memory_free = tonumber(info.memory_free),
    pool_reserved = tonumber(info.pool_reserved),
    in_use = tonumber(info.in_use),
    max_count = tonumber(C.mgpu_context_max_count(ctx)),
  }
  if info.cc_major ~= 0 then
    t.compute_capability = info.cc_major .. "." .. info.cc_minor
  end
  if info.code_arch ~= 0 then
    if info.code_arch == info.binary_arch then
      t.code = "sm_" .. info.binary_arch
    else
      t.code = format("compute_%d PTX, compiled for sm_%d", info.code_arch,
        info.binary_arch)
    end
    t.path = ffistring(info.path)
    t.built_archs = ffistring(info.built_archs)
  end
  if info.memory_limit ~= 0 then t.memory_limit = tonumber(info.memory_limit) end
  return t
end

-- Closes the context now (what __gc does); arrays made on it keep working.
-- Inside a call (from a finalizer) the C context may be in use: the object
-- reads as closed at once, its reference goes when the call is over.
function ctx_methods.close(c)
  if istype(Context, c) and c._c ~= NULL then
    local ctx = c._c
    c._c = NULL
    if inside_call(3) then
      deferred[ndeferred + 1] = ctx
      ndeferred = ndeferred + 1
    else
      C.mgpu_context_release(ctx)
    end
  end
end

-- ---- constructors -------------------------------------------------------
-- Each is a module function (on the default context) and a context method
-- (self is the context).

local constructors = {}

local function upload(fn, a, src)
  check_status(fn, a._ctx, C.mgpu_upload(a._ctx, a._p, src, nbytes(a)))
end

local function fill_array(fn, a, v)
  local box = DTYPE_VLA[a._t](1)
  box[0] = v
  check_status(fn, a._ctx, C.mgpu_fill(a._ctx, a._p, a._n, a._t, box))
end

-- ctor(fn, cobj, nargs, ...) bodies
function constructors.array(fn, cobj, nargs, t, dtype)
  if type(t) ~= "table" then
    fail(fn, "t must be a table of numbers (got %s)", typename(t, nargs < 1))
  end
  local n = #t
  local dt
  if dtype ~= nil then
    dt = check_dtype(fn, dtype, "dtype")
  else
    local any_float, all_i32, any_u64 = false, true, false
    for i = 1, n do
      local v = rawget(t, i)
      if type(v) ~= "number" and not is_int64_cdata(v) then
        fail(fn, "element %d must be a number (got %s)", i, typename(v))
      end
      local d = infer_dtype(v)
      if d == F64 then any_float = true
      elseif d == U64 then any_u64 = true; all_i32 = false
      elseif d ~= I32 then all_i32 = false end
    end
    dt = any_float and F64 or all_i32 and I32 or any_u64 and U64 or I64
  end
  local host = DTYPE_VLA[dt](n)
  for i = 1, n do
    host[i - 1] = to_element(fn, rawget(t, i), dt, "element", i)
  end
  local a = new_array(fn, cobj, n, dt)
  upload(fn, a, host)
  return a
end

local function opt_dtype(fn, v)
  if v == nil then return I32 end
  return check_dtype(fn, v, "dtype")
end

function constructors.empty(fn, cobj, nargs, n, dtype)
  n = check_count(fn, n, "n", nargs < 1,
    tonumber(C.mgpu_context_max_count(cobj._c)))
  return new_array(fn, cobj, n, opt_dtype(fn, dtype))
end

function constructors.zeros(fn, cobj, nargs, n, dtype)
  n = check_count(fn, n, "n", nargs < 1,
    tonumber(C.mgpu_context_max_count(cobj._c)))
  local a = new_array(fn, cobj, n, opt_dtype(fn, dtype))
  fill_array(fn, a, 0)
  return a
end

function constructors.fill(fn, cobj, nargs, n, v, dtype)
  n = check_count(fn, n, "n", nargs < 1,
    tonumber(C.mgpu_context_max_count(cobj._c)))
  if type(v) ~= "number" and not is_int64_cdata(v) then
    fail(fn, "v must be a number (got %s)", typename(v, nargs < 2))
  end
  local t = dtype ~= nil and check_dtype(fn, dtype, "dtype") or infer_dtype(v)
  local x = to_element(fn, v, t, "v")
  local a = new_array(fn, cobj, n, t)
  fill_array(fn, a, x)
  return a
end

-- A start/step/lo/hi argument in dtype t's arithmetic.
local function to_scalar(fn, v, t, what)
  local s = scalar_ct()
  if is_float(t) then
    if type(v) ~= "number" and not is_int64_cdata(v) then
      fail(fn, "%s must be a number (got %s)", what, typename(v))
    end
    s.f = tonumber(v)
    return s
  end
  local x = to_element(fn, v, t, what)
  if t == U64 then s.i = cast(i64_ct, cast(u64_ct, x)) else s.i = x end
  return s
end

function constructors.iota(fn, cobj, nargs, n, a2, a3, a4, ...)
  n = check_count(fn, n, "n", nargs < 1,
    tonumber(C.mgpu_context_max_count(cobj._c)))
  local args = { a2, a3, a4, ... }
  local dtype_pos, last = nil, 1
  for i = 2, math.min(nargs, 4) do
    last = i
    if type(args[i - 1]) == "string" then
      dtype_pos = i
      break
    end
  end
  for i = last + 1, nargs do
    if args[i - 1] ~= nil then
      fail(fn, "unexpected argument #%d (%s); expected (n [, start [, "
        .. "step]] [, dtype])", i, describe(args[i - 1]))
    end
  end
  local start, step = 1, 1
  if dtype_pos ~= 2 and a2 ~= nil then start = a2 end
  if not (dtype_pos and dtype_pos <= 3) and a3 ~= nil then step = a3 end
  for _, p in ipairs { { start, "start" }, { step, "step" } } do
    if type(p[1]) ~= "number" and not is_int64_cdata(p[1]) then
      fail(fn, "%s must be a number (got %s)", p[2], typename(p[1]))
    end
  end
  local t
  if dtype_pos then
    t = check_dtype(fn, args[dtype_pos - 1], "dtype")
  elseif is_integer(start) and is_integer(step) then
    local first = tonumber(start)
    local last_v = first + (n > 0 and n - 1 or 0) * tonumber(step)
    t = (first >= -2147483648 and first <= 2147483647 and
      last_v >= -2147483648 and last_v <= 2147483647) and I32 or I64
  else
    t = F64
  end
  local s0 = to_scalar(fn, start, t, "start")
  local s1
  if is_float(t) then
    s1 = to_scalar(fn, step, t, "step")
  else
    -- a step may be negative in any integer dtype: it wraps like the values
    if not is_integer(step) then
      fail(fn, "step must be an integer for dtype %s (got %s)",
        DTYPE_NAMES[t], describe(step))
    end
    s1 = scalar_ct()
    s1.i = istype(u64_ct, step) and cast(i64_ct, step) or step
  end
  local a = new_array(fn, cobj, n, t)
  check_status(fn, a._ctx, C.mgpu_iota(a._ctx, a._p, n, t, s0, s1))
  return a
end

local seed_counter
local function next_seed()
  if not seed_counter then
    seed_counter = cast(u64_ct, os.time()) * 0x9e3779b9 + cast(u64_ct, os.clock() * 1e6)
  end
  seed_counter = seed_counter + 1
  return seed_counter * 0xd1342543
end

local function make_random(fn, cobj, nargs, n, lo, hi, dtype, seed)
  n = check_count(fn, n, "n", nargs < 1,
    tonumber(C.mgpu_context_max_count(cobj._c)))
  for k, v in ipairs { lo, hi } do
    if type(v) ~= "number" and not is_int64_cdata(v) then
      fail(fn, "%s must be a number (got %s)", k == 1 and "lo" or "hi",
        typename(v, nargs < k + 1))
    end
  end
  local t
  if dtype ~= nil then
    t = check_dtype(fn, dtype, "dtype")
  elseif is_integer(lo) and is_integer(hi) then
    t = (infer_dtype(lo) == I32 and infer_dtype(hi) == I32) and I32 or I64
  else
    t = F64
  end
  local slo, shi = to_scalar(fn, lo, t, "lo"), to_scalar(fn, hi, t, "hi")
  if is_float(t) then
    local l, h = slo.f, shi.f
    if not (l > -huge and l < huge and h > -huge and h < huge) then
      fail(fn, "lo and hi must be finite (got %s and %s)", describe(lo),
        describe(hi))
    end
  end
  local le
  if is_float(t) then le = slo.f <= shi.f
  elseif t == U64 then le = cast(u64_ct, slo.i) <= cast(u64_ct, shi.i)
  else le = slo.i <= shi.i end
  if not le then
    fail(fn, "lo must not exceed hi (got %s > %s)", describe(lo), describe(hi))
  end
  local sd
  if seed ~= nil then
    if not is_integer(seed) then
      fail(fn, "seed must be an integer (got %s)", describe(seed))
    end
    sd = type(seed) == "number" and (seed < 0 and cast(u64_ct, cast(i64_ct, seed))
      or cast(u64_ct, seed)) or cast(u64_ct, seed)
  else
    sd = next_seed()
  end
  local a = new_array(fn, cobj, n, t)
  check_status(fn, a._ctx, C.mgpu_random(a._ctx, a._p, n, t, slo, shi, sd))
  return a
end

constructors.random = make_random

function constructors.sorted_random(fn, cobj, nargs, ...)
  local a = make_random(fn, cobj, nargs, ...)
  check_status(fn, a._ctx, retry(a._ctx, C.mgpu_mergesort, a._ctx, a._t, 0,
    a._p, a._n, 0, NULL))
  return a
end

function constructors.frombytes(fn, cobj, nargs, s, dtype)
  if type(s) ~= "string" then
    fail(fn, "s must be a string (got %s)", typename(s, nargs < 1))
  end
  if dtype == nil then fail(fn, "dtype is missing") end
  local t = check_dtype(fn, dtype, "dtype")
  local w = DTYPE_SIZE[t]
  if #s % w ~= 0 then
    fail(fn, "%d bytes is not a whole number of %s elements", #s, DTYPE_NAMES[t])
  end
  local a = new_array(fn, cobj, #s / w, t)
  upload(fn, a, s)
  return a
end

for name, body in pairs(constructors) do
  local fn = "mgpu." .. name
  core[name] = function(...)
    if ndeferred > 0 then settle() end
    return body(fn, pin(fn, get_default(fn)), select("#", ...), ...)
  end
  ctx_methods[name] = function(c, ...)
    if ndeferred > 0 then settle() end
    if not istype(Context, c) then
      fail(fn, "call it as a method, ctx:%s(...) (got %s as self)", name,
        describe(c))
    end
    if c._c == NULL then fail(fn, "the context has been closed") end
    return body(fn, pin(fn, c), select("#", ...), ...)
  end
end

ffi.metatype(Context, {
  __index = function(c, k)
    if k == "id" then return c._id end
    if k == "device" or k == "backend" then
      if c._c == NULL then
        fail("mgpu.context", "the context has been closed")
      end
      return ffistring(k == "device" and C.mgpu_context_device(c._c)
        or C.mgpu_context_backend(c._c))
    end
    return ctx_methods[k]
  end,
  __tostring = function(c)
    if c._c ~= NULL then
      return format("mgpu.context(%s)#%d", ffistring(C.mgpu_context_device(c._c)),
        c._id)
    end
    return format("mgpu.context(closed)#%d", c._id)
  end,
  __gc = ctx_methods.close,
})

-- ---- array methods ------------------------------------------------------

local methods = {}

local function check_self(fn, a, name)
  if not istype(Array, a) then
    fail(fn, "call it as a method, a:%s(...) (got %s as self)", name,
      describe(a))
  end
  if a._live == 0 then fail(fn, "array has been freed") end
  return a
end

local function opt_index(fn, v, dflt, what)
  if v == nil then return dflt end
  if not is_integer(v) then
    fail(fn, "%s must be an integer (got %s)", what, describe(v))
  end
  return tonumber(v)
end

local function check_range(fn, n, iv, jv)
  local i0, j0 = opt_index(fn, iv, 1, "i"), opt_index(fn, jv, -1, "j")
  local i, j = i0, j0
  if i < 0 and i >= -n - 1 then i = i + n + 1 end
  if j < 0 and j >= -n - 1 then j = j + n + 1 end
  if i < 1 or j > n or i > j + 1 or j < 0 then
    fail(fn, "range %d..%d is outside 1..%d", i0, j0, n)
  end
  return i - 1, j - i + 1
end

local function download(fn, a, start, count)
  local host = DTYPE_VLA[a._t](count)
  local w = DTYPE_SIZE[a._t]
  check_status(fn, a._ctx, C.mgpu_download(a._ctx, host, a._p + start * w,
    count * w))
  return host
end

function methods.totable(a, i, j)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.array:totable"
  check_self(fn, a, "totable")
  local start, count = check_range(fn, tonumber(a._n), i, j)
  local host, t = download(fn, a, start, count), a._t
  local r = {}
  if t == I64 or t == U64 then
    for k = 1, count do r[k] = from_element(t, host[k - 1]) end
  else
    for k = 1, count do r[k] = host[k - 1] end
  end
  return r
end

function methods.tobytes(a)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.array:tobytes"
  check_self(fn, a, "tobytes")
  local bytes = nbytes(a)
  local host = ffi.new("char[?]", bytes)
  check_status(fn, a._ctx, C.mgpu_download(a._ctx, host, a._p, bytes))
  return ffistring(host, bytes)
end

function methods.copy(a)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.array:copy"
  check_self(fn, a, "copy")
  local b = new_like(fn, a, tonumber(a._n), a._t)
  check_status(fn, a._ctx, C.mgpu_copy(a._ctx, b._p, a._p, nbytes(a)))
  return b
end

function methods.slice(a, i, j)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.array:slice"
  check_self(fn, a, "slice")
  if i == nil then fail(fn, "i is missing") end
  local start, count = check_range(fn, tonumber(a._n), i, j)
  local key = base_key(a)
  local base = a._base
  local v = Array()
  v._p = a._p + start * DTYPE_SIZE[a._t]
  v._bytes = a._bytes
  v._ctx = a._ctx
  v._n = count
  v._t = a._t
  v._cid = a._cid
  -- the share: the count first (the one store that may allocate), then
  -- the flags and v's _base, which allocate nothing
  shared_refs[key] = (a._shared ~= 0 and shared_refs[key] or 1) + 1
  a._shared = 1
  v._shared = 1
  v._base = base
  v._live = 1
  return v
end

function methods.fill(a, v)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.array:fill"
  check_self(fn, a, "fill")
  fill_array(fn, a, to_element(fn, v, a._t, "v"))
  return a
end

function methods.astype(a, dtype)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.array:astype"
  check_self(fn, a, "astype")
  local t = check_dtype(fn, dtype, "dtype")
  local b = new_like(fn, a, tonumber(a._n), t)
  check_status(fn, a._ctx, C.mgpu_astype(a._ctx, b._p, t, a._p, a._t, a._n))
  return b
end

function methods.to(a, target)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.array:to"
  check_self(fn, a, "to")
  local dst
  if type(target) == "string" then
    dst = device_context(fn, target)
  elseif is_open(target) then
    dst = target
  elseif istype(Context, target) then
    fail(fn, "the target context has been closed")
  else
    fail(fn, "target must be a device string or an mgpu.context (got %s)",
      typename(target))
  end
  dst = pin(fn, dst)
  local bytes = nbytes(a)
  local b = new_array(fn, dst, tonumber(a._n), a._t)
  if a._ctx == dst._c then
    check_status(fn, a._ctx, C.mgpu_copy(a._ctx, b._p, a._p, bytes))
    return b
  end
  -- Across contexts the copy goes through the host: it orders the two
  -- streams without either waiting on the other's unrelated work.
  local host = ffi.new("char[?]", bytes)
  check_status(fn, a._ctx, C.mgpu_download(a._ctx, host, a._p, bytes))
  check_status(fn, dst._c, C.mgpu_upload(dst._c, b._p, host, bytes))
  return b
end

function methods.is_sorted(a, comp)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.array:is_sorted"
  check_self(fn, a, "is_sorted")
  local o = check_order(fn, comp)
  local r = intp()
  check_status(fn, a._ctx, C.mgpu_is_sorted(a._ctx, a._p, a._n, a._t, o, r))
  return r[0] ~= 0
end

-- The address of the first element as a void * cdata (a light userdata
-- under Lua 5.4); valid while a is alive and not freed.
function methods.ptr(a)
  if ndeferred > 0 then settle() end
  check_self("mgpu.array:ptr", a, "ptr")
  return cast("void *", a._p)
end

function methods.free(a)
  if not istype(Array, a) then
    fail("mgpu.array:free", "call it as a method, a:free() (got %s as self)",
      describe(a))
  end
  if a._live == 0 then return end
  if inside_call(3) then
    -- _p stays: the call under way may read it yet; later calls see _live
    a._live = 0
    deferred[ndeferred + 1] = a -- (growing the list can raise)
    ndeferred = ndeferred + 1
    return
  end
  array_release(a)
  if ndeferred > 0 then flush_deferred() end
end

local elem = ffi.new("uint64_t[1]")

local function check_index(fn, a, i, reading)
  if not is_integer(i) then
    fail(fn, "index must be an integer (got %s)", describe(i))
  end
  i = tonumber(i)
  local n = tonumber(a._n)
  if reading and i > n then return nil end
  if i < 1 or i > n then
    fail(fn, "index %d out of range 1..%d", i, n)
  end
  return i - 1
end

local tostring_hook -- set by init.lua: how arrays print

ffi.metatype(Array, {
  __index = function(a, k)
    if type(k) == "number" then
      if ndeferred > 0 then settle() end
      if a._live == 0 then fail("mgpu.array", "array has been freed") end
      local i = check_index("mgpu.array", a, k, true)
      if not i then return nil end
      local t = a._t
      local w = DTYPE_SIZE[t]
      check_status("mgpu.array", a._ctx, C.mgpu_download(a._ctx, elem,
        a._p + i * w, w))
      return from_element(t, cast(DTYPE_PTR[t], elem)[0])
    end
    if k == "dtype" then return DTYPE_NAMES[a._t] end
    if k == "context" then return cobj_of(a) end
    if k == "device" then
      if a._live == 0 then return nil end
      return ffistring(C.mgpu_context_device(a._ctx))
    end
    return methods[k]
  end,
  __newindex = function(a, k, v)
    if ndeferred > 0 then settle() end
    local fn = "mgpu.array"
    if type(k) ~= "number" and not is_int64_cdata(k) then
      fail(fn, "cannot set field %s (arrays take integer indices)",
        type(k) == "string" and "'" .. k .. "'" or describe(k))
    end
    if a._live == 0 then fail(fn, "array has been freed") end
    local i = check_index(fn, a, k, false)
    local t = a._t
    local w = DTYPE_SIZE[t]
    cast(DTYPE_PTR[t], elem)[0] = to_element(fn, v, t, "value")
    check_status(fn, a._ctx, C.mgpu_upload(a._ctx, a._p + i * w, elem, w))
  end,
  __len = function(a)
    if a._live == 0 then fail("mgpu.array", "array has been freed") end
    return tonumber(a._n)
  end,
  __tostring = function(a)
    if tostring_hook then return tostring_hook(a) end
    return typename(a)
  end,
  __gc = array_release,
})

-- init.lua hands over its printer (shared by both bindings).
function core._set_tostring(f) tostring_hook = f end

-- ---- merge and mergesort ------------------------------------------------

-- An output given by the caller (checked here), or a new array.
local function output(fn, given, like, n, t, name)
  if given == nil then return new_like(fn, like, n, t) end
  if given._t ~= t then
    fail(fn, "%s has dtype %s, expected %s", name, DTYPE_NAMES[given._t],
      DTYPE_NAMES[t])
  end
  if given._n ~= n then
    fail(fn, "%s has %d elements, expected %d", name, tonumber(given._n), n)
  end
  return given
end

local MERGE_OPTS = { values = true, comp = true, out = true, out_values = true }

function core.merge(a, b, opts)
  if ndeferred > 0 then settle() end
  if sharded_state[a] then return sharded_merge(a, b, opts) end
  local fn = "mgpu.merge"
  arg_array(fn, a, "a")
  arg_array(fn, b, "b")
  same_context(fn, a, b, "a", "b")
  if a._t ~= b._t then
    fail(fn, "b has dtype %s, a has %s", DTYPE_NAMES[b._t], DTYPE_NAMES[a._t])
  end
  local order, av, bv, out, out_v = 0, nil, nil, nil, nil
  if opts ~= nil then
    check_options(fn, opts, MERGE_OPTS)
    order = check_order(fn, rawget(opts, "comp"))
    local vals = rawget(opts, "values")
    if vals ~= nil then av, bv = value_pair(fn, vals, a, b) end
  end
  local n = tonumber(a._n + b._n)
  local limit = tonumber(C.mgpu_context_max_count(a._ctx))
  if n > limit then
    fail(fn, "the result would have %d elements, past the limit of %d", n,
      limit)
  end
  out = opt_field_array(fn, opts, "out", "out")
  if out then
    same_context(fn, a, out, "a", "out")
    no_overlap(fn, out, a, "out", "a")
    no_overlap(fn, out, b, "out", "b")
    no_overlap(fn, out, av, "out", "values[1]")
    no_overlap(fn, out, bv, "out", "values[2]")
  end
  local c = output(fn, out, a, n, a._t, "out")
  out_v = opt_field_array(fn, opts, "out_values", "out_values")
  if out_v and not av then fail(fn, "out_values given without values") end
  local cv
  if av then
    if out_v then
      same_context(fn, a, out_v, "a", "out_values")
      no_overlap(fn, out_v, a, "out_values", "a")
      no_overlap(fn, out_v, b, "out_values", "b")
      no_overlap(fn, out_v, av, "out_values", "values[1]")
      no_overlap(fn, out_v, bv, "out_values", "values[2]")
      no_overlap(fn, out_v, c, "out_values", "out")
    end
    cv = output(fn, out_v, a, n, av._t, "out_values")
  end
  local ctx = a._ctx
  if av then
    check_status(fn, ctx, retry(ctx, C.mgpu_merge, ctx, a._t, order, a._p, a._n,
      b._p, b._n, c._p, DTYPE_SIZE[av._t], av._p, bv._p, cv._p))
    return c, cv
  end
  check_status(fn, ctx, retry(ctx, C.mgpu_merge, ctx, a._t, order, a._p, a._n,
    b._p, b._n, c._p, 0, NULL, NULL, NULL))
  return c
end

local SORT_OPTS = { values = true, comp = true }

-- mgpu.mergesort and mgpu.sort: the same arguments and results, by
-- different kernels.
local function sort_call(fn, cfun, keys, opts)
  if ndeferred > 0 then settle() end
  arg_array(fn, keys, "keys")
  check_options(fn, opts, SORT_OPTS)
  local order = check_order(fn, opt_field(opts, "comp"))
  local vals = opt_field_array(fn, opts, "values", "values")
  if vals then
    same_context(fn, keys, vals, "keys", "values")
    if vals._n ~= keys._n then
      fail(fn, "values has %d elements, keys has %d", tonumber(vals._n),
        tonumber(keys._n))
    end
    no_overlap(fn, vals, keys, "values", "keys")
  end
  local ctx = keys._ctx
  check_status(fn, ctx, retry(ctx, cfun, ctx, keys._t, order,
    keys._p, keys._n, vals and DTYPE_SIZE[vals._t] or 0, vals and vals._p or NULL))
  if vals then return keys, vals end
  return keys
end

function core.mergesort(keys, opts)
  if sharded_state[keys] then return sharded_mergesort(keys, opts) end
  return sort_call("mgpu.mergesort", C.mgpu_mergesort, keys, opts)
end

function core.sort(keys, opts)
  if sharded_state[keys] then return sharded_sort(keys, opts) end
  return sort_call("mgpu.sort", C.mgpu_sort, keys, opts)
end

-- ---- multiset operations ------------------------------------------------

local SETOPS = { intersection = 0, union = 1, difference = 2,
  symmetric_difference = 3 }
local SETOP_OPTS = { values = true, comp = true, duplicates = true }

local function setop_call(fn, op, a, b, opts)
  arg_array(fn, a, "a")
  arg_array(fn, b, "b")
  same_context(fn, a, b, "a", "b")
  if a._t ~= b._t then
    fail(fn, "b has dtype %s, a has %s", DTYPE_NAMES[b._t], DTYPE_NAMES[a._t])
  end
  check_options(fn, opts, SETOP_OPTS)
  local duplicates = opt_boolean(fn, opts, "duplicates", true)
  local order = check_order(fn, opt_field(opts, "comp"))
  local av, bv
  local vals = opt_field(opts, "values")
  if vals ~= nil then av, bv = value_pair(fn, vals, a, b) end
  local cap = tonumber(C.mgpu_setop_capacity(op, a._n, b._n))
  local limit = tonumber(C.mgpu_context_max_count(a._ctx))
  if cap > limit then
    fail(fn, "the result could have %d elements, past the limit of %d", cap,
      limit)
  end
  local c = new_like(fn, a, cap, a._t)
  local cv = av and new_like(fn, a, cap, av._t)
  local count = sizep()
  local ctx = a._ctx
  check_status(fn, ctx, retry(ctx, C.mgpu_setop, ctx, op, a._t, order,
    duplicates and 1 or 0, a._p, a._n, b._p, b._n, c._p,
    av and DTYPE_SIZE[av._t] or 0, av and av._p or NULL, bv and bv._p or NULL,
    cv and cv._p or NULL, count))
  local k = tonumber(count[0])
  c = fit_result(fn, c, k)
  if not cv then return c end
  return c, fit_result(fn, cv, k)
end

function core.setop(op, a, b, opts)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.setop"
  if type(op) ~= "string" then
    fail(fn, "op must be a string (got %s)", describe(op))
  end
  local kind = SETOPS[op]
  if not kind then
    fail(fn, "unknown op '%s' (expected \"intersection\", \"union\", "
      .. "\"difference\" or \"symmetric_difference\")", op)
  end
  return setop_call(fn, kind, a, b, opts)
end

for name, kind in pairs(SETOPS) do
  local fn = "mgpu.set_" .. name
  core["set_" .. name] = function(a, b, opts)
    if ndeferred > 0 then settle() end
    return setop_call(fn, kind, a, b, opts)
  end
end

-- ---- scan, reduce, search, unique, compact --------------------------------

local REDUCE_OPS = { add = 0, min = 1, max = 2 }

local function check_reduce_op(fn, v)
  if v == nil then return 0 end
  local op = REDUCE_OPS[v]
  if op then return op end
  if type(v) == "string" then
    fail(fn, "op must be \"add\", \"min\" or \"max\" (got \"%s\")", v)
  end
  fail(fn, "op must be \"add\", \"min\" or \"max\" (got %s)", describe(v))
end

-- A total as a Lua value of dtype t (u64 from its bits).
local function total_value(t, s)
  if is_float(t) then return s.f end
  if t == I32 then return tonumber(cast("int32_t", s.i)) end
  if t == U32 then return tonumber(cast("uint32_t", s.i)) end
  if t == U64 then return from_element(U64, cast(u64_ct, s.i)) end
  return from_element(I64, s.i)
end

local SCAN_OPTS = { op = true, inclusive = true, out = true }

function core.scan(a, opts)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.scan"
  arg_array(fn, a, "a")
  check_options(fn, opts, SCAN_OPTS)
  local op = check_reduce_op(fn, opt_field(opts, "op"))
  local inclusive = opt_boolean(fn, opts, "inclusive", false)
  local r = opt_field_array(fn, opts, "out", "out")
  if r then
    same_context(fn, a, r, "a", "out")
    if r._t ~= a._t then
      fail(fn, "out has dtype %s, a has %s", DTYPE_NAMES[r._t], DTYPE_NAMES[a._t])
    end
    if r._n ~= a._n then
      fail(fn, "out has %d elements, a has %d", tonumber(r._n), tonumber(a._n))
    end
    -- in place, or apart: a partial overlap would read what it wrote
    if r._p ~= a._p then no_overlap(fn, r, a, "out", "a") end
  else
    r = new_like(fn, a, tonumber(a._n), a._t)
  end
  local total = scalarp()
  local ctx = a._ctx
  check_status(fn, ctx, retry(ctx, C.mgpu_scan, ctx, a._t, a._p, a._n, r._p, op,
    inclusive and 1 or 0, total))
  return r, total_value(a._t, total[0])
end

function core.reduce(a, op)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.reduce"
  arg_array(fn, a, "a")
  op = check_reduce_op(fn, op)
  local total = scalarp()
  check_status(fn, a._ctx, C.mgpu_reduce(a._ctx, a._t, a._p, a._n, op, total))
  return total_value(a._t, total[0])
end

local SEARCH_OPTS = { side = true, comp = true }

function core.sorted_search(needles, hay, opts)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.sorted_search"
  arg_array(fn, needles, "needles")
  arg_array(fn, hay, "haystack")
  same_context(fn, needles, hay, "needles", "haystack")
  if needles._t ~= hay._t then
    fail(fn, "haystack has dtype %s, needles has %s", DTYPE_NAMES[hay._t],
      DTYPE_NAMES[needles._t])
  end
  check_options(fn, opts, SEARCH_OPTS)
  local order = check_order(fn, opt_field(opts, "comp"))
  local right = 0
  local side = opt_field(opts, "side")
  if side ~= nil then
    if side == "right" then
      right = 1
    elseif type(side) == "string" and side ~= "left" then
      fail(fn, "side must be \"left\" or \"right\" (got \"%s\")", side)
    elseif type(side) ~= "string" then
      fail(fn, "side must be \"left\" or \"right\" (got %s)", describe(side))
    end
  end
  -- the index dtype rule: positions reach #haystack + 1
  local pt = hay._n + 1 > MAX_COUNT and I64 or I32
  local pos = new_like(fn, needles, tonumber(needles._n), pt)
  check_status(fn, needles._ctx, C.mgpu_sorted_search_idx(needles._ctx,
    needles._t, order, needles._p, needles._n, hay._p, hay._n, right, 1, pt,
    pos._p))
  return pos
end

local UNIQUE_OPTS = { values = true, counts = true }

function core.unique(keys, opts)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.unique"
  arg_array(fn, keys, "keys")
  check_options(fn, opts, UNIQUE_OPTS)
  local vals = opt_field_array(fn, opts, "values", "values")
  if vals then
    same_context(fn, keys, vals, "keys", "values")
    if vals._n ~= keys._n then
      fail(fn, "values has %d elements, keys has %d", tonumber(vals._n),
        tonumber(keys._n))
    end
  end
  local counts = opt_boolean(fn, opts, "counts", false)
  local n = tonumber(keys._n)
  local u = new_like(fn, keys, n, keys._t)
  local uv = vals and new_like(fn, keys, n, vals._t)
  -- a run may be as long as the keys
  local ct = n > MAX_COUNT and I64 or I32
  local c = counts and new_like(fn, keys, n, ct)
  local count = sizep()
  local ctx = keys._ctx
  check_status(fn, ctx, retry(ctx, C.mgpu_unique_idx, ctx, keys._t, keys._p, n,
    vals and DTYPE_SIZE[vals._t] or 0, vals and vals._p or NULL, u._p,
    uv and uv._p or NULL, ct, c and c._p or NULL, count))
  local k = tonumber(count[0])
  u = fit_result(fn, u, k)
  if uv then uv = fit_result(fn, uv, k) end
  if c then c = fit_result(fn, c, k) end
  if uv and c then return u, uv, c end
  if uv then return u, uv end
  if c then return u, c end
  return u
end

local COMPACT_OPTS = { values = true }

function core.compact(data, flags, opts)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.compact"
  arg_array(fn, data, "data")
  arg_array(fn, flags, "flags")
  same_context(fn, data, flags, "data", "flags")
  if is_float(flags._t) then
    fail(fn, "flags must have an integer dtype (got %s)", DTYPE_NAMES[flags._t])
  end
  if flags._n ~= data._n then
    fail(fn, "flags has %d elements, data has %d", tonumber(flags._n),
      tonumber(data._n))
  end
  check_options(fn, opts, COMPACT_OPTS)
  local vals = opt_field_array(fn, opts, "values", "values")
  if vals then
    same_context(fn, data, vals, "data", "values")
    if vals._n ~= data._n then
      fail(fn, "values has %d elements, data has %d", tonumber(vals._n),
        tonumber(data._n))
    end
  end
  local n = tonumber(data._n)
  local out = new_like(fn, data, n, data._t)
  local ov = vals and new_like(fn, data, n, vals._t)
  local count = sizep()
  local ctx = data._ctx
  check_status(fn, ctx, retry(ctx, C.mgpu_compact, ctx, DTYPE_SIZE[data._t],
    data._p, n, flags._t, flags._p, vals and DTYPE_SIZE[vals._t] or 0,
    vals and vals._p or NULL, out._p, ov and ov._p or NULL, count))
  local k = tonumber(count[0])
  out = fit_result(fn, out, k)
  if not ov then return out end
  return out, fit_result(fn, ov, k)
end

-- ---- segmented sort and locality sort -----------------------------------


-- Releases a call's temporaries, whatever happened, then returns or raises.
local function finish(temps, ok, ...)
  for i = 1, #temps do array_release(temps[i]) end
  if not ok then error((...), 0) end
  return ...
end


-- Element i (0-based) of a as its exact value in a message.
local function element_string(fn, a, i)
  local t = a._t
  local w = DTYPE_SIZE[t]
  check_status(fn, a._ctx, C.mgpu_download(a._ctx, elem, a._p + i * w, w))
  local x = cast(DTYPE_PTR[t], elem)[0]
  if t == I64 or t == U64 then return int64_digits(x) end
  return describe(tonumber(x))
end

-- The index-like argument v (an integer mgpu.array, or a Lua table uploaded
-- as i64) on context object cobj; second result: whether it is a temporary.
local function index_argument(fn, cobj, v, arg)
  if type(v) == "table" then
    local m = #v
    if m > MAX_COUNT then
      fail(fn, "%s has %d elements, past the 32-bit index limit of %d", arg, m,
        MAX_COUNT)
    end
    local host = DTYPE_VLA[I64](m)
    for i = 1, m do
      local x = rawget(v, i)
      if not is_integer(x) then
        fail(fn, "%s[%d] must be an integer (got %s)", arg, i, describe(x))
      end
      host[i - 1] = istype(u64_ct, x) and cast(i64_ct, x) or x
    end
    local a = new_array(fn, cobj, m, I64)
    upload(fn, a, host)
    return a, true
  end
  arg_array(fn, v, arg)
  if v._ctx ~= cobj._c then
    fail(fn, "%s belongs to another context (%s) than the call's (%s)", arg,
      ffistring(C.mgpu_context_device(v._ctx)),
      ffistring(C.mgpu_context_device(cobj._c)))
  end
  if is_float(v._t) then
    fail(fn, "%s must have an integer dtype (got %s)", arg, DTYPE_NAMES[v._t])
  end
  return v, false
end

-- Sorted 1-based positions in [lo, hi] -> a new 0-based array of the
-- index dtype rule's dtype for hi - 1.  `rule` completes "<arg> must be
-- ...".
local function positions(fn, cobj, v, arg, lo, hi, unique, rule)
  local dt = hi - 1 > MAX_COUNT and I64 or I32
  -- an array past the 32-bit limit has places int32 positions cannot name
  if dt == I64 and C.mgpu_context_wide_index(cobj._c) == 0 then
    fail(fn, "%s may reach %d, past the 32-bit index limit of %d (the "
      .. "positions are int32 on %s)", arg, hi, MAX_COUNT,
      ffistring(C.mgpu_context_backend(cobj._c)))
  end
  local src, temp = index_argument(fn, cobj, v, arg)
  local dst = new_array(fn, cobj, tonumber(src._n), dt)
  local bad, bad_value = i64p(), i64p()
  bad[0] = -1
  local ctx = cobj._c
  local s = C.mgpu_prepare_positions_idx(ctx, src._p, src._t, src._n, lo, hi,
    unique and 1 or 0, dt, dst._p, bad, bad_value)
  if s == 2 and bad[0] >= 0 then
    local b = tonumber(bad[0])
    fail(fn, "%s must be %s and in %d..%d (got %s at position %d)", arg, rule,
      lo, hi, element_string(fn, src, b), b + 1)
  end
  check_status(fn, ctx, s)
  if temp then array_release(src) end
  return dst
end

local function push_stats(st)
  local r = { tiles = tonumber(st.tiles),
    blocksort_tiles = tonumber(st.blocksort_tiles),
    windows = tonumber(st.windows) }
  for p = 0, st.passes - 1 do
    r[p + 1] = { merge = tonumber(st.merge_tiles[p]),
      copy = tonumber(st.copy_tiles[p]) }
  end
  return r
end

local function sort_common(fn, keys, opts, run)
  local order = check_order(fn, opt_field(opts, "comp"))
  local want_stats = opt_boolean(fn, opts, "stats", false)
  local vals = opt_field_array(fn, opts, "values", "values")
  if vals then
    same_context(fn, keys, vals, "keys", "values")
    if vals._n ~= keys._n then
      fail(fn, "values has %d elements, keys has %d", tonumber(vals._n),
        tonumber(keys._n))
    end
    no_overlap(fn, vals, keys, "values", "keys")
  end
  local st = want_stats and ffi.new("mgpu_sort_stats") or NULL
  local ctx = keys._ctx
  check_status(fn, ctx, retry(ctx, run, ctx, keys._t, order, keys._p, keys._n,
    vals and DTYPE_SIZE[vals._t] or 0, vals and vals._p or NULL, st))
  if vals and want_stats then return keys, vals, push_stats(st) end
  if vals then return keys, vals end
  if want_stats then return keys, push_stats(st) end
  return keys
end

local SEGSORT_OPTS = { values = true, comp = true, stable = true, stats = true,
  flags = true }

function core.segsort(keys, heads, opts)
  if ndeferred > 0 then settle() end
  if sharded_state[keys] then return sharded_segsort(keys, heads, opts) end
  local fn = "mgpu.segsort"
  arg_array(fn, keys, "keys")
  check_options(fn, opts, SEGSORT_OPTS)
  opt_boolean(fn, opts, "stable", true) -- always stable
  local flags = opt_field_array(fn, opts, "flags", "flags")
  if flags then
    if heads ~= nil then fail(fn, "give heads or flags, not both") end
    same_context(fn, keys, flags, "keys", "flags")
    if is_float(flags._t) then
      fail(fn, "flags must have an integer dtype (got %s)", DTYPE_NAMES[flags._t])
    end
    if flags._n ~= keys._n then
      fail(fn, "flags has %d elements, keys has %d", tonumber(flags._n),
        tonumber(keys._n))
    end
    return sort_common(fn, keys, opts, function(ctx, t, o, p, n, vs, v, st)
      return C.mgpu_segsort_flags(ctx, t, o, p, n, vs, v, flags._p, flags._t,
        st)
    end)
  end
  if heads == nil then
    fail(fn, "heads must be an mgpu.array or a table of 1-based segment "
      .. "starts (or pass nil and {flags = f})")
  end
  if type(heads) ~= "table" and not istype(Array, heads) then
    fail(fn, "heads must be an mgpu.array or a table (got %s)", typename(heads))
  end
  local h = positions(fn, home_of(keys), heads, "heads", 1, tonumber(keys._n),
    true, "sorted, unique")
  return finish({ h }, pcall(sort_common, fn, keys, opts,
    function(ctx, t, o, p, n, vs, v, st)
      return C.mgpu_segsort_idx(ctx, t, o, p, n, vs, v, h._p, h._t, h._n, st)
    end))
end

local LOCALITY_OPTS = { values = true, comp = true, stats = true }

function core.locality_sort(keys, opts)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.locality_sort"
  arg_array(fn, keys, "keys")
  check_options(fn, opts, LOCALITY_OPTS)
  return sort_common(fn, keys, opts, C.mgpu_locality_sort)
end

-- ---- bulk and interval operations ---------------------------------------

-- The most elements a call's index arrays address on context ctx: its
-- limit where they may be i64 (cpu, cuda), else the 32-bit index limit.
local function index_limit(ctx)
  if C.mgpu_context_wide_index(ctx) ~= 0 then
    return tonumber(C.mgpu_context_max_count(ctx))
  end
  return MAX_COUNT
end

-- From this many counts interval_expand and load_balance scan into a
-- wrapped scan first (lmgpu_bulk.c's WRAPPED_FIRST says why).
local WRAPPED_FIRST = 268435456

-- counts -> (the scan of their starts as a new array, total, wraps), as
-- lmgpu_bulk.c's scanned_counts: i32 while the total fits; past it, for
-- interval_expand and load_balance (want_wraps) a wrapped scan (u32, with
-- wraps), for the others and for counts a wrapped scan cannot hold i64.
local function scanned_counts(fn, cobj, v, want_wraps)
  local counts, temp = index_argument(fn, cobj, v, "counts")
  local m = tonumber(counts._n)
  local ctx = cobj._c
  local most = index_limit(ctx)
  local wide = most > MAX_COUNT and I64 or I32
  local total, bad, bad_value = i64p(), i64p(), i64p()
  local wraps = ffi.new("mgpu_wraps")
  local t = (want_wraps and wide == I64 and m >= WRAPPED_FIRST) and U32 or I32
  local scan, s
  while true do
    scan = new_array(fn, cobj, m, t)
    bad[0] = -1
    if t == U32 then
      s = retry(ctx, C.mgpu_scan_counts_wrapped, ctx, counts._p, counts._t, m,
        ffi.cast(u32p_t, scan._p), wraps, total, bad, bad_value)
    else
      s = retry(ctx, C.mgpu_scan_counts_idx, ctx, counts._p, counts._t, m, t,
        scan._p, total, bad, bad_value)
    end
    if t == U32 and s == 0 then
      if total[0] <= 2147483647 then
        scan._t = I32 -- the same bits
        break
      end
      if total[0] <= most then break end
    elseif s ~= 3 or t == wide or (t == I32 and total[0] > most) then
      break -- done, another error, or a total past any scan's limit
    end
    t = (t == I32 and want_wraps) and U32 or wide
    array_release(scan)
  end
  if scan._t ~= U32 then wraps = nil end
  if s == 2 and bad[0] >= 0 then
    local b = tonumber(bad[0])
    fail(fn, "counts must not be negative (got %s at position %d)",
      element_string(fn, counts, b), b + 1)
  end
  if s == 3 then
    -- an i32 scan sums the counts capped at 2^31 each, so a sum that
    -- reached 2^31 is a lower bound; an i64 one caps at 2^62
    local which = most > MAX_COUNT and "" or "32-bit index "
    if total[0] >= (scan._t == I64 and 4611686018427387904LL or 2147483648LL) then
      fail(fn, "counts add up to more than %d, the %slimit of elements", most,
        which)
    end
    fail(fn, "counts add up to %s, past the %slimit of %d elements",
      int64_digits(total[0]), which, most)
  end
  check_status(fn, ctx, s)
  local t = tonumber(total[0])
  -- before the outputs are allocated: the interval operations walk the
  -- intervals and their outputs together (check_intervals in mgpu.c)
  if t > most - m then
    fail(fn, "%d counts adding up to %d are past the limit of %d intervals "
      .. "and outputs together", m, t, most)
  end
  if temp then array_release(counts) end
  return scan, t, wraps
end

local function element_index(fn, a, i)
  return tonumber(download(fn, a, i, 1)[0])
end

-- Interval starts (1-based) -> a new 0-based array, each interval checked
-- to fit in `limit` elements of `target` (limit < 0: no array yet; second
-- result: the length it needs).  The starts are i32, or i64 by the index
-- dtype rule for limit; without limit, i64 only when an interval ends past
-- INT32_MAX (then they are prepared again).
local function starts(fn, cobj, v, arg, scan, total, limit, target)
  local ctx = cobj._c
  local most = index_limit(ctx)
  if limit > most then
    fail(fn, "%s has %d elements, past the 32-bit index limit of %d (the "
      .. "starts are int32 on %s)", target, limit, MAX_COUNT,
      ffistring(C.mgpu_context_backend(ctx)))
  end
  local src, temp = index_argument(fn, cobj, v, arg)
  if src._n ~= scan._n then
    fail(fn, "%s has %d elements, counts has %d", arg, tonumber(src._n),
      tonumber(scan._n))
  end
  local m = tonumber(src._n)
  local bad, bad_value, max_end = i64p(), i64p(), i64p()
  local dst, s
  for _, dt in ipairs { limit > MAX_COUNT and I64 or I32, I64 } do
    if dst then array_release(dst) end
    dst = new_array(fn, cobj, m, dt)
    bad[0] = -1
    s = C.mgpu_prepare_starts_idx(ctx, src._p, src._t, scan._p, scan._t, m,
      total, limit, dt, dst._p, bad, bad_value, max_end)
    if not (s == 2 and bad[0] >= 0 and bad_value[0] >= 1 and limit < 0
        and dt == I32 and most > MAX_COUNT) then
      break
    end
  end
  if s == 2 and bad[0] >= 0 then
    local b = tonumber(bad[0])
    local value = element_string(fn, src, b)
    if bad_value[0] < 1 then
      fail(fn, "%s[%d] must be at least 1 (got %s)", arg, b + 1, value)
    end
    local nxt = b + 1 < m and element_index(fn, scan, b + 1) or total
    local count = nxt - element_index(fn, scan, b)
    if limit >= 0 then
      fail(fn, "%s[%d] = %s with counts[%d] = %d runs past the end of %s (%d "
        .. "elements)", arg, b + 1, value, b + 1, count, target, limit)
    end
    fail(fn, "%s[%d] = %s with counts[%d] = %d reaches past element %d", arg,
      b + 1, value, b + 1, count, most)
  end
  check_status(fn, ctx, s)
  if temp then array_release(src) end
  return dst, tonumber(max_end[0])
end

local function call_on(fn, a, arg)
  arg_array(fn, a, arg)
  return home_of(a), a._ctx
end

function core.bulk_remove(data, indices)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.bulk_remove"
  local cobj, ctx = call_on(fn, data, "data")
  local idx = positions(fn, cobj, indices, "indices", 1, tonumber(data._n),
    true, "sorted, unique")
  return finish({ idx }, pcall(function()
    local out = new_array(fn, cobj, tonumber(data._n - idx._n), data._t)
    check_status(fn, ctx, retry(ctx, C.mgpu_bulk_remove_idx, ctx,
      DTYPE_SIZE[data._t], data._p, data._n, idx._p, idx._t, idx._n, out._p))
    return out
  end))
end

function core.bulk_insert(data, pos, values)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.bulk_insert"
  local cobj, ctx = call_on(fn, data, "data")
  arg_array(fn, values, "values")
  if values._ctx ~= ctx then
    fail(fn, "values belongs to another context (%s) than the call's (%s)",
      ffistring(C.mgpu_context_device(values._ctx)),
      ffistring(C.mgpu_context_device(ctx)))
  end
  if values._t ~= data._t then
    fail(fn, "values has dtype %s, data has %s", DTYPE_NAMES[values._t],
      DTYPE_NAMES[data._t])
  end
  local idx = positions(fn, cobj, pos, "positions", 1, tonumber(data._n) + 1,
    false, "sorted")
  return finish({ idx }, pcall(function()
    if idx._n ~= values._n then
      fail(fn, "values has %d elements, positions has %d",
        tonumber(values._n), tonumber(idx._n))
    end
    local n = tonumber(data._n + values._n)
    local most = index_limit(ctx)
    if n > most then
      fail(fn, "the result would have %d elements, past the %slimit of %d", n,
        most > MAX_COUNT and "" or "32-bit index ", most)
    end
    local out = new_array(fn, cobj, n, data._t)
    check_status(fn, ctx, retry(ctx, C.mgpu_bulk_insert_idx, ctx,
      DTYPE_SIZE[data._t], data._p, data._n, idx._p, idx._t, values._p,
      idx._n, out._p))
    return out
  end))
end

function core.interval_expand(values, counts)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.interval_expand"
  local cobj, ctx = call_on(fn, values, "values")
  local scan, total, wraps = scanned_counts(fn, cobj, counts, true)
  return finish({ scan }, pcall(function()
    if scan._n ~= values._n then
      fail(fn, "counts has %d elements, values has %d", tonumber(scan._n),
        tonumber(values._n))
    end
    local out = new_array(fn, cobj, total, values._t)
    if wraps then
      check_status(fn, ctx, retry(ctx, C.mgpu_interval_expand_wrapped, ctx,
        DTYPE_SIZE[values._t], values._p, ffi.cast(u32p_t, scan._p), wraps,
        scan._n, total,
        out._p))
    else
      check_status(fn, ctx, retry(ctx, C.mgpu_interval_expand_idx, ctx,
        DTYPE_SIZE[values._t], values._p, scan._p, scan._t, scan._n, total,
        out._p))
    end
    return out
  end))
end

local function move(fn, ctx, input, gather, scatter, scan, total, out)
  check_status(fn, ctx, retry(ctx, C.mgpu_interval_move_idx, ctx,
    DTYPE_SIZE[input._t], input._p, input._n, gather and gather._p or NULL,
    gather and gather._t or I32, scatter and scatter._p or NULL,
    scatter and scatter._t or I32, scan._p, scan._t, scan._n, total, out._p,
    out._n))
  return out
end

function core.interval_gather(input, gather, counts)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.interval_gather"
  local cobj, ctx = call_on(fn, input, "input")
  local scan, total = scanned_counts(fn, cobj, counts)
  local temps = { scan }
  return finish(temps, pcall(function()
    local g = starts(fn, cobj, gather, "gather", scan, total,
      tonumber(input._n), "input")
    temps[2] = g
    local out = new_array(fn, cobj, total, input._t)
    return move(fn, ctx, input, g, nil, scan, total, out)
  end))
end

local OUT_OPTS = { out = true }

local function out_option(fn, ctx, opts, input)
  check_options(fn, opts, OUT_OPTS)
  local out = opt_field_array(fn, opts, "out", "out")
  if not out then return nil end
  if out._ctx ~= ctx then
    fail(fn, "out belongs to another context (%s) than the call's (%s)",
      ffistring(C.mgpu_context_device(out._ctx)),
      ffistring(C.mgpu_context_device(ctx)))
  end
  if out._t ~= input._t then
    fail(fn, "out has dtype %s, input has %s", DTYPE_NAMES[out._t],
      DTYPE_NAMES[input._t])
  end
  if overlap(out, input) then fail(fn, "out overlaps input") end
  return out
end

-- The scatter side of interval_scatter and interval_move and their output:
-- the caller's `out` (which the starts must fit) or a new zero-filled
-- array just long enough.
local function scatter_output(fn, cobj, scatter, scan, total, out, input, temps)
  local sc, max_end = starts(fn, cobj, scatter, "scatter", scan, total,
    out and tonumber(out._n) or -1, "out")
  temps[#temps + 1] = sc
  if out then return sc, out end
  out = new_array(fn, cobj, max_end, input._t)
  fill_array(fn, out, 0)
  return sc, out
end

function core.interval_scatter(input, scatter, counts, opts)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.interval_scatter"
  local cobj, ctx = call_on(fn, input, "input")
  local out = out_option(fn, ctx, opts, input)
  local scan, total = scanned_counts(fn, cobj, counts)
  local temps = { scan }
  return finish(temps, pcall(function()
    if total > tonumber(input._n) then
      fail(fn, "counts add up to %d but input has %d elements", total,
        tonumber(input._n))
    end
    local sc
    sc, out = scatter_output(fn, cobj, scatter, scan, total, out, input, temps)
    return move(fn, ctx, input, nil, sc, scan, total, out)
  end))
end

function core.interval_move(input, gather, scatter, counts, opts)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.interval_move"
  local cobj, ctx = call_on(fn, input, "input")
  local out = out_option(fn, ctx, opts, input)
  local scan, total = scanned_counts(fn, cobj, counts)
  local temps = { scan }
  return finish(temps, pcall(function()
    local g = starts(fn, cobj, gather, "gather", scan, total,
      tonumber(input._n), "input")
    temps[2] = g
    local sc
    sc, out = scatter_output(fn, cobj, scatter, scan, total, out, input, temps)
    return move(fn, ctx, input, g, sc, scan, total, out)
  end))
end

function core.load_balance(counts)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.load_balance"
  local cobj
  if type(counts) == "table" then
    cobj = pin(fn, get_default(fn)) -- a Lua table of counts: the default context
  else
    cobj = call_on(fn, counts, "counts")
  end
  local scan, total, wraps = scanned_counts(fn, cobj, counts, true)
  return finish({ scan }, pcall(function()
    -- 1-based interval numbers: the index dtype rule for #counts
    local out = new_array(fn, cobj, total, scan._n > MAX_COUNT and I64 or I32)
    if wraps then
      check_status(fn, cobj._c, retry(cobj._c, C.mgpu_load_balance_wrapped,
        cobj._c, ffi.cast(u32p_t, scan._p), wraps, scan._n, total, 1, out._t,
        out._p))
    else
      check_status(fn, cobj._c, retry(cobj._c, C.mgpu_load_balance_idx,
        cobj._c, scan._p, scan._t, scan._n, total, 1, out._t, out._p))
    end
    return out
  end))
end

-- ---- keyed reductions and joins ------------------------------------------

local BY_KEY_OPTS = { op = true, comp = true }

function core.reduce_by_key(keys, vals, opts)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.reduce_by_key"
  arg_array(fn, keys, "keys")
  arg_array(fn, vals, "values")
  same_context(fn, keys, vals, "keys", "values")
  if vals._n ~= keys._n then
    fail(fn, "values has %d elements, keys has %d", tonumber(vals._n),
      tonumber(keys._n))
  end
  check_options(fn, opts, BY_KEY_OPTS)
  local op = check_reduce_op(fn, opt_field(opts, "op"))
  -- checked only: both orders have the same runs of equal keys
  check_order(fn, opt_field(opts, "comp"))
  local n = tonumber(keys._n)
  local k = new_like(fn, keys, n, keys._t)
  local r = new_like(fn, keys, n, vals._t)
  local count = sizep()
  local ctx = keys._ctx
  check_status(fn, ctx, retry(ctx, C.mgpu_reduce_by_key, ctx, keys._t, keys._p,
    n, vals._t, vals._p, op, k._p, r._p, count))
  local runs = tonumber(count[0])
  return fit_result(fn, k, runs), fit_result(fn, r, runs)
end

local SEGREDUCE_OPTS = { op = true, identity = true }

function core.segreduce(vals, offsets, opts)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.segreduce"
  arg_array(fn, vals, "values")
  if type(offsets) ~= "table" and not istype(Array, offsets) then
    fail(fn, "offsets must be an mgpu.array or a table (got %s)",
      typename(offsets))
  end
  check_options(fn, opts, SEGREDUCE_OPTS)
  local op = check_reduce_op(fn, opt_field(opts, "op"))
  local identity = NULL
  local iv = opt_field(opts, "identity")
  if iv ~= nil then
    identity = DTYPE_VLA[vals._t](1)
    identity[0] = to_element(fn, iv, vals._t, "identity")
  end
  local off = positions(fn, home_of(vals), offsets, "offsets", 1,
    tonumber(vals._n) + 1, false, "non-decreasing")
  return finish({ off }, pcall(function()
    local r = new_like(fn, vals, tonumber(off._n), vals._t)
    local ctx = vals._ctx
    check_status(fn, ctx, retry(ctx, C.mgpu_segreduce_idx, ctx, vals._t,
      vals._p, vals._n, off._p, off._t, off._n, op, identity, r._p))
    return r
  end))
end

local JOIN_OPTS = { kind = true, comp = true }
local JOIN_KINDS = { inner = 0, left = 1, right = 2, outer = 3 }
local u64p = ffi.typeof("uint64_t[1]")

function core.join(a, b, opts)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.join"
  arg_array(fn, a, "a")
  arg_array(fn, b, "b")
  same_context(fn, a, b, "a", "b")
  if a._t ~= b._t then
    fail(fn, "b has dtype %s, a has %s", DTYPE_NAMES[b._t], DTYPE_NAMES[a._t])
  end
  check_options(fn, opts, JOIN_OPTS)
  local order = check_order(fn, opt_field(opts, "comp"))
  local kv = opt_field(opts, "kind")
  local kind = 0
  if kv ~= nil then
    kind = JOIN_KINDS[kv]
    if type(kv) ~= "string" then
      fail(fn, "kind must be \"inner\", \"left\", \"right\" or \"outer\" (got %s)",
        describe(kv))
    elseif not kind then
      fail(fn, "kind must be \"inner\", \"left\", \"right\" or \"outer\" (got \"%s\")",
        kv)
    end
  end
  local ctx = a._ctx
  -- the results exist before the call allocates what they will own, and
  -- the call writes the addresses into them
  local ia, ib = Array(), Array()
  local rows = u64p()
  local rows32 = cast(u32p_t, rows)
  ia._ctx = ctx
  ib._ctx = ctx
  -- the index dtype rule: 1-based indices reach max(#a, #b)
  local it = (a._n > b._n and a._n or b._n) > MAX_COUNT and I64 or I32
  local s = retry(ctx, C.mgpu_lj_join_new, ctx, a._t, order, kind, a._p, a._n,
    b._p, b._n, 1, it, cast("void **", base_slot(ia)),
    cast("void **", base_slot(ib)), rows)
  if s == 0 then
    -- at most MAX_COUNT rows when the call succeeds
    local bytes = rows32[LO32] * DTYPE_SIZE[it]
    ia._bytes = bytes
    ib._bytes = bytes
    take_share(ctx, bytes)
    take_share(ctx, bytes)
  end
  if s == 3 and rows[0] > MAX_COUNT then -- MGPU_ETOOBIG
    fail(fn, "the result would have %s rows, past the 32-bit index limit of %d",
      int64_digits(rows[0]), MAX_COUNT)
  end
  check_status(fn, ctx, s)
  local n = tonumber(rows[0])
  for _, r in ipairs { ia, ib } do
    r._p = r._base
    r._n = n
    r._t = it
    r._cid = a._cid
    r._live = 1
  end
  before_alloc(0) -- alloc_array's collection, after the fact
  return ia, ib
end

-- ---- groups -------------------------------------------------------------
-- As in lmgpu_group.c: a group holds its C group (released by ffi.gc) and
-- its context objects; a sharded array its group, its shards (arrays) and
-- dtype.  Both are proxies (newproxy, so that # and tostring work on them
-- as on the C module's userdata), their state in the weak-keyed tables
-- declared with typename.

local GROUP_PROTO, SHARDED_PROTO = newproxy(true), newproxy(true)
local group_mt, sharded_mt = getmetatable(GROUP_PROTO), getmetatable(SHARDED_PROTO)
local group_methods, sharded_methods = {}, {}
local group_box = ffi.typeof("mgpu_group *[1]")
local ptrs_ct, sizes_ct = ffi.typeof("void *[?]"), ffi.typeof("size_t[?]")

local function group_self(fn, g, name)
  local gs = group_state[g]
  if not gs then
    fail(fn, "call it as a method, g:%s(...) (got %s as self)", name,
      describe(g))
  end
  return gs
end

-- The group's context k (1-based) as a call makes arrays on it: the C
-- context the group holds, even where the object has been closed.
local function group_cobj(gs, k)
  return { _c = C.mgpu_group_context(gs.g, k - 1), _id = gs.ctxs[k]._id }
end

-- floor(n k / p) without forming n k, which passes 2^53 (and rounds) for
-- a whole near it: as lmgpu_group.c's shard_length, so both bindings cut
-- alike; n % p and (n - n % p) / p are exact in doubles
local function shard_span(n, p, k) -- k 0-based: length, offset
  local r = n % p
  local q = (n - r) / p
  local lo = k * q + floor(k * r / p)
  local hi = (k + 1) * q + floor((k + 1) * r / p)
  return hi - lo, lo
end

local function new_sharded(g, shards, t)
  local s = newproxy(SHARDED_PROTO)
  sharded_state[s] = { group = g, shards = shards, t = t }
  return s
end

-- The sharded array s as argument `arg`: its state and its group's, every
-- shard live; of the group gs_want when given.
local function sharded_arg(fn, s, arg, gs_want)
  local ss = sharded_state[s]
  if not ss then
    fail(fn, "%s must be an mgpu.sharded array (got %s)", arg, typename(s))
  end
  local gs = group_state[ss.group]
  if gs_want and gs ~= gs_want then fail(fn, "%s belongs to another group", arg) end
  for k = 1, gs.p do
    if ss.shards[k]._live == 0 then
      fail(fn, "%s's shard %d has been freed", arg, k)
    end
  end
  return ss, gs
end

local GROUP_OPTS = { devices = true }

function core.group(opts)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.group"
  check_options(fn, opts, GROUP_OPTS)
  local devices = opt_field(opts, "devices")
  local ctxs = {}
  if devices == nil then
    local gpus = C.mgpu_cuda_device_count()
    for k = 1, gpus > 0 and gpus or 1 do
      ctxs[k] = open_context(fn, gpus > 0 and "cuda:" .. (k - 1) or "cpu")
    end
  else
    if type(devices) ~= "table" then
      fail(fn, "devices must be a table of device strings or contexts (got %s)",
        typename(devices))
    end
    if #devices < 1 then fail(fn, "devices must name at least one device") end
    for k = 1, #devices do
      local d = rawget(devices, k)
      if type(d) == "string" then
        ctxs[k] = open_context(fn, d)
      elseif is_open(d) then
        ctxs[k] = d
      else
        fail(fn, "devices[%d] must be a device string or an open mgpu.context "
          .. "(got %s)", k, typename(d))
      end
    end
  end
  local p = #ctxs
  local list = ffi.new("mgpu_context *[?]", p)
  for k = 1, p do list[k - 1] = ctxs[k]._c end
  local box, errbuf = group_box(), ffi.new("char[256]")
  if C.mgpu_group_create(list, p, box, errbuf, 256) ~= 0 then
    fail(fn, "%s", ffistring(errbuf))
  end
  local g = newproxy(GROUP_PROTO)
  -- max_count: the most elements g:iota and g:random make (each shard
  -- within its context's limit, the whole within 2^53), as lmgpu_group.c
  local least = 2 ^ 53
  for k = 0, p - 1 do
    least = math.min(least, tonumber(C.mgpu_context_max_count(C.mgpu_group_context(box[0], k))))
  end
  group_state[g] = { g = ffi.gc(box[0], C.mgpu_group_release), ctxs = ctxs, p = p,
    max_count = math.min(least * p, 2 ^ 53) }
  return g
end

function group_methods.size(g)
  if ndeferred > 0 then settle() end
  return group_self("mgpu.group:size", g, "size").p
end

function group_methods.contexts(g)
  if ndeferred > 0 then settle() end
  local gs = group_self("mgpu.group:contexts", g, "contexts")
  local t = {}
  for k = 1, gs.p do t[k] = gs.ctxs[k] end
  return t
end

-- n elements of array src from offset off, as a new array of dtype t on cobj.
local function copy_range(fn, src, off, n, cobj, t)
  local w = DTYPE_SIZE[src._t]
  local b = new_array(fn, cobj, n, src._t)
  local from = src._p + off * w
  if src._ctx == cobj._c then
    check_status(fn, cobj._c, C.mgpu_copy(cobj._c, b._p, from, n * w))
  else
    local host = ffi.new("char[?]", n * w)
    check_status(fn, src._ctx, C.mgpu_download(src._ctx, host, from, n * w))
    check_status(fn, cobj._c, C.mgpu_upload(cobj._c, b._p, host, n * w))
  end
  if t == src._t then return b end
  local c = new_array(fn, cobj, n, t)
  check_status(fn, cobj._c, C.mgpu_astype(cobj._c, c._p, t, b._p, src._t, n))
  array_release(b)
  return c
end

function group_methods.shard(g, data, dtype)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.group:shard"
  local gs = group_self(fn, g, "shard")
  local t = dtype ~= nil and check_dtype(fn, dtype, "dtype") or nil
  local shards, p = {}, gs.p
  if type(data) == "table" then
    -- every element checked against the whole's index; one dtype for all
    local n = #data
    local any_float, all_i32, any_u64 = false, true, false
    for i = 1, n do
      local v = rawget(data, i)
      if type(v) ~= "number" and not is_int64_cdata(v) then
        fail(fn, "element %d must be a number (got %s)", i, typename(v))
      end
      if t then
        to_element(fn, v, t, "element", i)
      else
        local d = infer_dtype(v)
        if d == F64 then any_float = true
        elseif d == U64 then any_u64 = true; all_i32 = false
        elseif d ~= I32 then all_i32 = false end
      end
    end
    t = t or (any_float and F64 or all_i32 and I32 or any_u64 and U64 or I64)
    for k = 0, p - 1 do
      local len, off = shard_span(n, p, k)
      local sub = {}
      for i = 1, len do sub[i] = rawget(data, off + i) end
      shards[k + 1] = constructors.array(fn, group_cobj(gs, k + 1), 2, sub, DTYPE_NAMES[t])
    end
  elseif istype(Array, data) then
    arg_array(fn, data, "data")
    t = t or data._t
    local n = tonumber(data._n)
    for k = 0, p - 1 do
      local len, off = shard_span(n, p, k)
      shards[k + 1] = copy_range(fn, data, off, len, group_cobj(gs, k + 1), t)
    end
  else
    fail(fn, "data must be a table of numbers or an mgpu.array (got %s)",
      typename(data))
  end
  return new_sharded(g, shards, t)
end

function group_methods.sharded(g, arrays)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.group:sharded"
  local gs = group_self(fn, g, "sharded")
  local p = gs.p
  if type(arrays) ~= "table" then
    fail(fn, "arrays must be a table of %d mgpu.arrays (got %s)", p,
      typename(arrays))
  end
  if #arrays ~= p then
    fail(fn, "arrays has %d entries, the group %d contexts", #arrays, p)
  end
  local shards, t = {}, nil
  for k = 1, p do
    local a = rawget(arrays, k)
    if not istype(Array, a) or a._live == 0 then
      fail(fn, "arrays[%d] must be an mgpu.array (got %s)", k, typename(a))
    end
    if a._ctx ~= C.mgpu_group_context(gs.g, k - 1) then
      fail(fn, "arrays[%d] is not on the group's context %d (use "
        .. "g:contexts())", k, k)
    end
    if t and a._t ~= t then
      fail(fn, "arrays[%d] has dtype %s, arrays[1] has %s", k,
        DTYPE_NAMES[a._t], DTYPE_NAMES[t])
    end
    t = a._t
    shards[k] = a
  end
  return new_sharded(g, shards, t)
end

function group_methods.random(g, n, lo, hi, dtype, seed)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.group:random"
  local gs = group_self(fn, g, "random")
  n = check_count(fn, n, "n", nil, gs.max_count)
  for k, v in ipairs { lo, hi } do
    if type(v) ~= "number" then
      fail(fn, "%s must be a number (got %s)", k == 1 and "lo" or "hi",
        typename(v))
    end
  end
  if seed ~= nil and not is_integer(seed) then
    fail(fn, "seed must be an integer (got %s)", describe(seed))
  end
  local shards = {}
  for k = 0, gs.p - 1 do
    local sd
    if seed ~= nil then
      -- seed + k * 0x9E3779B97F4A7C15, wrapping as Lua 5.4's integers do
      sd = cast(i64_ct, cast(u64_ct, cast(i64_ct, seed)) + k * 0x9E3779B97F4A7C15ULL)
    end
    shards[k + 1] = make_random(fn, group_cobj(gs, k + 1), 5,
      (shard_span(n, gs.p, k)), lo, hi, dtype, sd)
  end
  return new_sharded(g, shards, shards[1]._t)
end

function group_methods.iota(g, n, a2, a3, a4)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.group:iota"
  local gs = group_self(fn, g, "iota")
  n = check_count(fn, n, "n", nil, gs.max_count)
  local args = { a2, a3, a4 }
  local dtype_pos
  for i = 1, 3 do
    if type(args[i]) == "string" then dtype_pos = i; break end
  end
  for i = (dtype_pos or 3) + 1, 3 do
    if args[i] ~= nil then
      fail(fn, "unexpected argument #%d (%s); expected (n [, start [, step]] "
        .. "[, dtype])", i + 1, describe(args[i]))
    end
  end
  local start = (dtype_pos ~= 1 and a2 ~= nil) and a2 or 1
  local step = (not (dtype_pos and dtype_pos <= 2) and a3 ~= nil) and a3 or 1
  for _, v in ipairs { { start, "start" }, { step, "step" } } do
    if type(v[1]) ~= "number" and not is_int64_cdata(v[1]) then
      fail(fn, "%s must be a number (got %s)", v[2], typename(v[1]))
    end
  end
  local ints = is_integer(start) and is_integer(step)
  local t
  if dtype_pos then
    t = check_dtype(fn, args[dtype_pos], "dtype")
  elseif ints then
    local first = tonumber(start)
    local last = first + (n > 0 and n - 1 or 0) * tonumber(step)
    t = (first >= -2147483648 and first <= 2147483647 and last >= -2147483648
      and last <= 2147483647) and I32 or I64
  else
    t = F64
  end
  if not is_float(t) and not ints then
    fail(fn, "start and step must be integers for dtype %s", DTYPE_NAMES[t])
  end
  local shards = {}
  for k = 0, gs.p - 1 do
    local len, off = shard_span(n, gs.p, k)
    local s0
    if is_float(t) then
      s0 = tonumber(start) + off * tonumber(step)
    else
      -- wraps as the whole would, then reads as the dtype's value
      local v = cast(i64_ct, start) + cast(i64_ct, off) * cast(i64_ct, step)
      if t == I32 then s0 = tonumber(cast("int32_t", v))
      elseif t == U32 then s0 = tonumber(cast("uint32_t", v))
      elseif t == U64 then s0 = cast(u64_ct, v)
      else s0 = v end
    end
    shards[k + 1] = constructors.iota(fn, group_cobj(gs, k + 1), 4, len, s0,
      step, DTYPE_NAMES[t])
  end
  return new_sharded(g, shards, t)
end

group_mt.__index = group_methods
group_mt.__len = function(g) return group_methods.size(g) end
group_mt.__tostring = function(g)
  local gs = group_state[g]
  local names = {}
  for k = 1, gs.p do
    names[k] = ffistring(C.mgpu_context_device(C.mgpu_group_context(gs.g, k - 1)))
  end
  return "mgpu.group{" .. table.concat(names, ", ") .. "}"
end

local function sharded_self(fn, s, name)
  if not sharded_state[s] then
    fail(fn, "call it as a method, s:%s(...) (got %s as self)", name,
      describe(s))
  end
  return sharded_arg(fn, s, "self")
end

function sharded_methods.shards(s)
  if ndeferred > 0 then settle() end
  local ss, gs = sharded_self("mgpu.sharded:shards", s, "shards")
  local t = {}
  for k = 1, gs.p do t[k] = ss.shards[k] end
  return t
end

function sharded_methods.counts(s)
  if ndeferred > 0 then settle() end
  local ss, gs = sharded_self("mgpu.sharded:counts", s, "counts")
  local t = {}
  for k = 1, gs.p do t[k] = tonumber(ss.shards[k]._n) end
  return t
end

local function sharded_length(ss, gs)
  local n = 0
  for k = 1, gs.p do n = n + tonumber(ss.shards[k]._n) end
  return n
end

function sharded_methods.totable(s, i, j)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.sharded:totable"
  local ss, gs = sharded_self(fn, s, "totable")
  local n = sharded_length(ss, gs)
  i = opt_index(fn, i, 1, "i")
  j = opt_index(fn, j, n, "j")
  if i < 1 or j > n or i > j + 1 then
    fail(fn, "range %d..%d is outside 1..%d", i, j, n)
  end
  local r, at, off = {}, 1, 0
  for k = 1, gs.p do
    local a = ss.shards[k]
    local an = tonumber(a._n)
    local lo, hi = math.max(i - off, 1), math.min(j - off, an)
    off = off + an
    if lo <= hi then
      local host = download(fn, a, lo - 1, hi - lo + 1)
      for e = 0, hi - lo do
        r[at] = from_element(a._t, host[e])
        at = at + 1
      end
    end
  end
  return r
end

function sharded_methods.to(s, target)
  if ndeferred > 0 then settle() end
  local fn = "mgpu.sharded:to"
  local ss, gs = sharded_self(fn, s, "to")
  local dst
  if type(target) == "string" then
    dst = device_context(fn, target)
  elseif is_open(target) then
    dst = target
  else
    fail(fn, "target must be a device string or an open mgpu.context (got %s)",
      typename(target))
  end
  dst = pin(fn, dst)
  local b = new_array(fn, dst, sharded_length(ss, gs), ss.t)
  local w, at = DTYPE_SIZE[ss.t], 0
  for k = 1, gs.p do
    local a = ss.shards[k]
    local bytes, to = nbytes(a), b._p + at * w
    at = at + tonumber(a._n)
    if a._ctx == dst._c then
      check_status(fn, a._ctx, C.mgpu_copy(a._ctx, to, a._p, bytes))
    else
      local host = ffi.new("char[?]", bytes)
      check_status(fn, a._ctx, C.mgpu_download(a._ctx, host, a._p, bytes))
      check_status(fn, dst._c, C.mgpu_upload(dst._c, to, host, bytes))
    end
  end
  return b
end

sharded_mt.__index = function(s, k)
  local ss = sharded_state[s]
  if k == "dtype" then return DTYPE_NAMES[ss.t] end
  if k == "group" then return ss.group end
  return sharded_methods[k]
end
sharded_mt.__len = function(s)
  if ndeferred > 0 then settle() end
  local ss, gs = sharded_arg("mgpu.sharded", s, "array")
  return sharded_length(ss, gs)
end
core._sharded_metatable = sharded_mt

-- The sorts.  Values: a sharded array of the same group, shard lengths as
-- the keys'.
local function sharded_values(fn, v, arg, gs, ks, karg)
  local vs = sharded_arg(fn, v, arg, gs)
  for k = 1, gs.p do
    local a, b = vs.shards[k], ks.shards[k]
    if a._n ~= b._n then
      fail(fn, "%s's shard %d has %d elements, %s's has %d", arg, k,
        tonumber(a._n), karg, tonumber(b._n))
    end
    if overlap(a, b) then
      fail(fn, "%s's shard %d shares memory with %s's", arg, k, karg)
    end
  end
  return vs
end

local function shard_pointers(gs, ss)
  local p, n = ptrs_ct(gs.p), sizes_ct(gs.p)
  for k = 1, gs.p do
    p[k - 1] = ss and ss.shards[k]._p or NULL
    n[k - 1] = ss and ss.shards[k]._n or 0
  end
  return p, n
end

-- A group call; out of memory, collects, gives the pools' caches back and
-- tries once more.
local function group_call(fn, gs, f, ...)
  local s = f(...)
  if s == ENOMEM then
    collectgarbage()
    for k = 0, gs.p - 1 do C.mgpu_context_reclaim(C.mgpu_group_context(gs.g, k)) end
    s = f(...)
  end
  if s ~= 0 then fail(fn, "%s", ffistring(C.mgpu_group_error(gs.g))) end
end

-- The arrays that will own the buffers a group call allocates (out[k] on
-- context k, counts[k] elements of dtype t), made before the call with
-- every pointer their taking needs, so that shard_receivers.take allocates
-- nothing (see "arrays: storage and lifetime").
local shard_receivers = {}
local function shard_count(r, k)
  local c = r.counts
  return c[2 * (k - 1) + LO32] + c[2 * (k - 1) + 1 - LO32] * 4294967296
end
function shard_receivers.new(gs, out, counts, t)
  local r = { p = gs.p, t = t, counts = cast(u32p_t, counts), arrays = {},
    slots = {}, srcs = {}, ctxs = {}, ptr = ffi.sizeof("void *") }
  for k = 1, gs.p do
    local a = Array()
    local ctx = C.mgpu_group_context(gs.g, k - 1)
    a._ctx = ctx
    r.arrays[k], r.ctxs[k] = a, ctx
    r.slots[k], r.srcs[k] = base_slot(a), out + (k - 1)
  end
  return r
end

-- After the group call succeeded: the buffers' addresses into the
-- arrays' _base and the shares' books.  The table lookups and ffi.copy of
-- ready pointers allocate nothing: a count is read as two 32-bit halves
-- (a shard may pass 2^32 - 1), not as a boxed 64-bit cdata.
function shard_receivers.take(r)
  local w = DTYPE_SIZE[r.t]
  for k = 1, r.p do
    ffi.copy(r.slots[k], r.srcs[k], r.ptr)
    local bytes = shard_count(r, k) * w
    r.arrays[k]._bytes = bytes
    take_share(r.ctxs[k], bytes)
  end
end

-- Then the rest of each array: the shards.
function shard_receivers.arrays(gs, r)
  for k = 1, r.p do
    local a = r.arrays[k]
    a._p = a._base
    a._n = shard_count(r, k)
    a._t = r.t
    a._cid = gs.ctxs[k]._id
    a._live = 1
  end
  return r.arrays
end

-- mgpu.mergesort and mgpu.sort (fn, by the C function sort) of a sharded
-- array.
local function sharded_sort_call(fn, sort, keys, opts)
  local ks, gs = sharded_arg(fn, keys, "keys")
  check_options(fn, opts, SORT_OPTS)
  local order = check_order(fn, opt_field(opts, "comp"))
  local vals, vs = opt_field(opts, "values"), nil
  if vals ~= nil then vs = sharded_values(fn, vals, "values", gs, ks, "keys") end
  local kp, cnt = shard_pointers(gs, ks)
  local vp = shard_pointers(gs, vs)
  local vsize = vs and DTYPE_SIZE[vs.t] or 0
  local ok_, ov, oc = ptrs_ct(gs.p), ptrs_ct(gs.p), sizes_ct(gs.p)
  before_alloc(sharded_length(ks, gs) * (DTYPE_SIZE[ks.t] + vsize))
  local SR = shard_receivers
  local rk, rv = SR.new(gs, ok_, oc, ks.t), vs and SR.new(gs, ov, oc, vs.t)
  group_call(fn, gs, sort, gs.g, ks.t, order, vsize, kp, vp, cnt, ok_, ov, oc)
  SR.take(rk)
  if rv then SR.take(rv) end
  ks.shards = SR.arrays(gs, rk)
  if not vs then return keys end
  vs.shards = SR.arrays(gs, rv)
  return keys, vals
end

sharded_mergesort = function(keys, opts)
  return sharded_sort_call("mgpu.mergesort", C.mgpu_lj_group_mergesort, keys, opts)
end

sharded_sort = function(keys, opts)
  return sharded_sort_call("mgpu.sort", C.mgpu_lj_group_sort, keys, opts)
end

local SHARDED_MERGE_OPTS = { values = true, comp = true }

sharded_merge = function(a, b, opts)
  local fn = "mgpu.merge"
  local as, gs = sharded_arg(fn, a, "a")
  local bs = sharded_arg(fn, b, "b", gs)
  if as.t ~= bs.t then
    fail(fn, "b has dtype %s, a has %s", DTYPE_NAMES[bs.t], DTYPE_NAMES[as.t])
  end
  check_options(fn, opts, SHARDED_MERGE_OPTS)
  local order = check_order(fn, opt_field(opts, "comp"))
  local vals = opt_field(opts, "values")
  local avs, bvs
  if vals ~= nil then
    if type(vals) ~= "table" then
      fail(fn, "values must be a table {av, bv} (got %s)", typename(vals))
    end
    avs = sharded_values(fn, rawget(vals, 1), "values[1]", gs, as, "a")
    bvs = sharded_values(fn, rawget(vals, 2), "values[2]", gs, bs, "b")
    if avs.t ~= bvs.t then
      fail(fn, "values[2] has dtype %s, values[1] has %s", DTYPE_NAMES[bvs.t],
        DTYPE_NAMES[avs.t])
    end
  end
  local ap, an = shard_pointers(gs, as)
  local bp, bn = shard_pointers(gs, bs)
  local avp, bvp = shard_pointers(gs, avs), shard_pointers(gs, bvs)
  local vsize = avs and DTYPE_SIZE[avs.t] or 0
  local ok_, ov, oc = ptrs_ct(gs.p), ptrs_ct(gs.p), sizes_ct(gs.p)
  before_alloc((sharded_length(as, gs) + sharded_length(bs, gs))
    * (DTYPE_SIZE[as.t] + vsize))
  local cpp = ffi.typeof("const void *const *")
  local SR = shard_receivers
  local rk, rv = SR.new(gs, ok_, oc, as.t), avs and SR.new(gs, ov, oc, avs.t)
  group_call(fn, gs, C.mgpu_lj_group_merge, gs.g, as.t, order, vsize, cast(cpp, ap),
    cast(cpp, avp), an, cast(cpp, bp), cast(cpp, bvp), bn, ok_, ov, oc)
  SR.take(rk)
  if rv then SR.take(rv) end
  local g = as.group
  local c = new_sharded(g, SR.arrays(gs, rk), as.t)
  if not avs then return c end
  return c, new_sharded(g, SR.arrays(gs, rv), avs.t)
end

local SHARDED_SEGSORT_OPTS = { values = true, comp = true, stable = true }

sharded_segsort = function(keys, heads, opts)
  local fn = "mgpu.segsort"
  local ks, gs = sharded_arg(fn, keys, "keys")
  check_options(fn, opts, SHARDED_SEGSORT_OPTS)
  opt_boolean(fn, opts, "stable", true) -- always stable
  local order = check_order(fn, opt_field(opts, "comp"))
  local vals, vs = opt_field(opts, "values"), nil
  if vals ~= nil then vs = sharded_values(fn, vals, "values", gs, ks, "keys") end
  local n = sharded_length(ks, gs)
  if istype(Array, heads) then
    arg_array(fn, heads, "heads")
    if is_float(heads._t) then
      fail(fn, "heads must have an integer dtype (got %s)", DTYPE_NAMES[heads._t])
    end
    heads = methods.totable(heads)
  elseif type(heads) ~= "table" then
    fail(fn, "heads must be an mgpu.array or a table of 1-based segment "
      .. "starts (got %s)", typename(heads))
  end
  local m = #heads
  local h = ffi.new("int64_t[?]", m > 0 and m or 1)
  for i = 1, m do
    local v = rawget(heads, i)
    if not is_integer(v) or v < 1 or v > n or (i > 1 and v <= h[i - 2] + 1) then
      fail(fn, "heads must be sorted, unique and in 1..%d (element %d is %s)",
        n, i, describe(v))
    end
    h[i - 1] = v - 1
  end
  local kp, cnt = shard_pointers(gs, ks)
  local vp = shard_pointers(gs, vs)
  if C.mgpu_group_segsort(gs.g, ks.t, order, vs and DTYPE_SIZE[vs.t] or 0, kp,
      vp, cnt, h, m) ~= 0 then
    fail(fn, "%s", ffistring(C.mgpu_group_error(gs.g)))
  end
  if vs then return keys, vals end
  return keys
end

core.dtypes = { "i32", "u32", "i64", "u64", "f32", "f64" }
core._VERSION = "0.1.0"
core.max_count = MAX_COUNT
core._luajit = true

return core
