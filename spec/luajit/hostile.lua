-- Every function and method of the LuaJIT binding (groups' and sharded
-- arrays' too) called with arguments
-- drawn from a hostile pool (wrong types, freed arrays, closed contexts,
-- NaN, huge and negative numbers, 64-bit cdata, arrays of every dtype and
-- of other contexts), many times over: each call returns or raises an
-- error that names mgpu's function, never crashes (run under ASan by
-- `make test`), and the arrays it was given stay usable.
local T = require "luajit.harness"
local R = require "luajit.ref"
local ffi = require "ffi"
local mgpu = require "mgpu"

local ctx = mgpu.context { device = T.device }
local other = mgpu.context { device = "cpu" }
local g = R.rng(tonumber(os.getenv("MGPU_FUZZ_SEED") or "") or 99)
local ITER = tonumber(os.getenv("MGPU_FUZZ_CALLS") or "") or 20000

local function pick(t) return t[g.int(1, #t)] end

local closed = mgpu.context { device = T.device }
closed:close()
local freed = ctx:iota(4)
freed:free()

local function some_array()
  local dt = pick(mgpu.dtypes)
  local n = pick { 0, 1, 2, 5, 17, 100 }
  local c = g.int(1, 8) == 1 and other or ctx
  local a = c:random(n, 0, 9, dt, g.next())
  if g.int(1, 3) == 1 then mgpu.mergesort(a) end
  if g.int(1, 6) == 1 and n > 1 then a = a:slice(2) end
  return a
end

local SCALARS = { 0, 1, -1, 2, 3, 1.5, -0.0, 0 / 0, 1 / 0, -1 / 0, 2 ^ 31, 2 ^ 53,
  2 ^ 63, 2 ^ 64, -2 ^ 63, 1e300, 5LL, -7LL, 0xFFFFFFFFFFFFFFFFULL,
  9223372036854775807LL, "", "i32", "u64", "f16", "less", "greater", "left",
  "right", "add", "max", "union", "intersection", "cpu", "cuda:9", true, false,
  {}, { 1, 2 }, { 1, "x" }, { 3, 1 }, { -1 }, { 1.5 }, { 2 ^ 40 }, print,
  ffi.new("int[2]"), closed, ctx, freed }

-- a group of two cpu contexts, and sharded arrays of it, among the values
local grp = mgpu.group { devices = { "cpu", "cpu" } }
local function some_sharded() return grp:shard(some_array()) end

local function value()
  local r = g.int(1, 10)
  if r == 8 and g.int(1, 2) == 1 then return some_sharded() end
  if r <= 4 then return some_array() end
  if r == 5 then return nil end
  if r == 6 then
    local o = {}
    for _ = 1, g.int(1, 3) do
      local k = pick { "values", "comp", "out", "out_values", "duplicates", "side",
        "op", "inclusive", "counts", "stats", "flags", "stable", "device",
        "memory_limit", "kind", "identity", "bogus", 1 }
      o[k] = value()
    end
    return o
  end
  if r == 7 then return { some_array(), some_array() } end
  return pick(SCALARS)
end

local FUNCS = {}
for name, f in pairs(mgpu) do
  if type(f) == "function" and name ~= "clock" then FUNCS[#FUNCS + 1] = { name, f } end
end
table.sort(FUNCS, function(x, y) return x[1] < y[1] end)
local METHODS = { "totable", "tobytes", "copy", "slice", "fill", "astype", "to",
  "is_sorted", "ptr", "free" }
local CTX_METHODS = { "sync", "info", "array", "empty", "zeros", "fill", "iota",
  "random", "sorted_random", "frombytes" }
local GROUP_METHODS = { "shard", "sharded", "random", "iota", "size", "contexts" }
local SHARDED_METHODS = { "totable", "to", "shards", "counts" }

T.test("hostile calls raise mgpu's errors, never crash", function()
  local calls, errors = 0, 0
  local keep = ctx:iota(10)
  for _ = 1, ITER do
    local args, n = {}, g.int(0, 5)
    for i = 1, n do args[i] = value() end
    local kind, f, label = g.int(1, 8), nil, nil
    if kind <= 3 then
      local e = pick(FUNCS)
      f, label = e[2], "mgpu." .. e[1]
      if e[1] == "default_context" then args = {} end -- keep the default
    elseif kind == 4 then
      -- the method itself, with anything as self
      local m = pick(METHODS)
      local self = g.int(1, 5) == 1 and value() or some_array()
      local method = keep[m]
      f, label = function(...) return method(self, ...) end, "a:" .. m
    elseif kind == 5 then
      local m = pick(CTX_METHODS)
      local self = pick { ctx, ctx, other, closed, 1, "cpu", keep }
      local method = ctx[m]
      f, label = function(...) return method(self, ...) end, "ctx:" .. m
    elseif kind == 6 then
      local m = pick(GROUP_METHODS)
      local self = pick { grp, grp, grp, value() }
      local method = grp[m]
      f, label = function(...) return method(self, ...) end, "g:" .. m
    elseif kind == 7 then
      local m = pick(SHARDED_METHODS)
      local s = some_sharded()
      local self = g.int(1, 5) == 1 and value() or s
      local method = s[m]
      f, label = function(...) return method(self, ...) end, "s:" .. m
    else
      local a = some_array()
      local k, v = value(), value()
      f, label = pick {
        function() return a[k] end,
        function() a[k] = v end,
        function() return #a, a.dtype, a.device, tostring(a) end,
      }, "a[k]"
    end
    local ok, err = pcall(f, unpack(args, 1, n))
    calls = calls + 1
    if not ok then
      errors = errors + 1
      err = tostring(err)
      T.ok(err:find("mgpu[%w_.:]*: "), label .. ": " .. err)
    end
    if calls % 500 == 0 then collectgarbage() end
  end
  T.eq(keep:totable(), { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 })
  T.eq(mgpu.merge(ctx:iota(3), ctx:iota(2)):totable(), { 1, 1, 2, 2, 3 })
  T.ok(errors > 0 and errors < calls, errors .. " errors of " .. calls)
  io.write(calls, " calls, ", errors, " errors raised\n")
end)

T.done()
