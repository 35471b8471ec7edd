-- The same calls under Lua 5.4 (the C module) and LuaJIT (the FFI
-- binding): spec/luajit_spec.lua runs this script with both interpreters
-- and compares what it prints, line by line: results as the arrays print
-- them, and error messages, with the "file:line:" of the calling code where
-- there is one (a function called straight from pcall has none).  Only calls whose results the two should print alike are here
-- (docs/API.md, LuaJIT, lists the differences).
local mgpu = require "mgpu"
local ctx = mgpu.context { device = os.getenv("MGPU_SPEC_DEVICE") or "cpu" }

local function show(...)
  local parts = {}
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    if type(v) == "table" then
      local t = {}
      for k, x in pairs(v) do t[#t + 1] = tostring(k) .. "=" .. tostring(x) end
      table.sort(t)
      v = "{" .. table.concat(t, " ") .. "}"
    end
    parts[i] = tostring(v)
  end
  return table.concat(parts, " | ")
end

local unpack = table.unpack or unpack
local function pack(...) return { n = select("#", ...), ... } end

local n = 0
local function case(f, ...)
  n = n + 1
  local r = pack(pcall(f, ...))
  local out
  if r[1] then
    out = "ok " .. show(unpack(r, 2, r.n))
  else
    out = "error " .. tostring(r[2])
  end
  io.write(n, ": ", out, "\n")
end

local a = ctx:iota(5)
local f = ctx:array({ 0.5, -1.25, 3 }, "f64")
-- element access and its errors
case(function() return a[0] end)
case(function() return a[1.5] end)
case(function() a[1] = 2 ^ 32 end)
case(function() a[1] = "x" end)
case(function() a.dtype = 1 end)
case(function() return a[5], a[6], #a, a.dtype, a.device end)
-- constructors
case(ctx.array, ctx)
case(ctx.array, ctx, { 1, "x" })
case(ctx.array, ctx, { 1 }, "int8")
case(ctx.array, ctx, { 1 }, 5)
case(ctx.zeros, ctx, -1)
case(ctx.zeros, ctx, 1.5)
case(mgpu.zeros)
case(ctx.iota, 3)
case(ctx.iota, ctx, 3, 1, 2, "i32", 5)
case(ctx.iota, ctx, 4, 10, -3)
case(ctx.iota, ctx, 3, nil, 2, "u32")
case(ctx.random, ctx, 3, 5, 1)
case(ctx.random, ctx, 12, 1, 6, "i32", 42)
case(ctx.random, ctx, 4, 0.25, 0.5, "f64", 7)
case(ctx.random, ctx, 3, 0, 1 / 0)
case(ctx.empty, ctx, 2 ^ 31)
case(ctx.fill, ctx, 3, 2 ^ 64, "u64")
case(ctx.fill, ctx, 3, -2, "u32")
case(ctx.fill, ctx, 2, "x")
case(ctx.frombytes, ctx, "abc", "i32")
case(ctx.frombytes, ctx, "abcd")
case(mgpu.context, "tpu")
case(mgpu.context, { devcie = "cpu" })
case(mgpu.context, { memory_limit = -1 })
case(mgpu.context, 5)
-- methods
case(a.totable)
case(a.totable, a, 0, 3)
case(a.totable, a, -3, -1)
case(a.totable, a, 2, 1.5)
case(a.slice, a)
case(a.to, a, 5)
case(a.astype, a, "f16")
case(a.is_sorted, a, "up")
case(a.fill, ctx:iota(2), 1.5)
case(function() return f:astype("i32"), f:astype("f32") end)
case(function() return ctx:array({ 1e300, -1e300, 0 / 0 }, "f64"):astype("i32") end)
-- primitives and their errors
case(mgpu.merge, a, {})
case(mgpu.merge, a, ctx:zeros(2, "f64"))
case(mgpu.merge, a, a, { valeus = 1 })
case(mgpu.merge, a, a, { comp = "up" })
case(mgpu.merge, a, a, { comp = 1 })
case(mgpu.merge, a, a, { values = { a, ctx:iota(4) } })
case(mgpu.merge, a, a, { values = { a, ctx:zeros(5, "f32") } })
case(mgpu.merge, a, a, { out = a })
case(mgpu.merge, a, a, { out = ctx:zeros(9) })
case(mgpu.merge, a, a, { [1] = 2 })
case(mgpu.merge, a, a, 3)
case(mgpu.merge, ctx:array { 1, 3, 5 }, ctx:array { 2, 3, 4 },
  { values = { ctx:array { 10, 30, 50 }, ctx:array({ 20, 31, 40 }, "i32") } })
case(mgpu.mergesort, ctx:array({ 3, 1, 2, 1 }, "f32"), { comp = "greater" })
case(mgpu.mergesort, a, { values = a })
case(mgpu.mergesort, a, { values = ctx:iota(3) })
case(mgpu.sort, ctx:array({ 3, 1, 2, 1 }, "f32"), { comp = "greater" })
case(mgpu.sort, a, { values = a })
case(mgpu.sort, a, { values = ctx:iota(3) })
case(mgpu.sort, a, { comp = function() end })
case(mgpu.setop, "intersect", a, a)
case(mgpu.setop, 3, a, a)
case(mgpu.setop, "union", ctx:array { 1, 2, 2, 5 }, ctx:array { 2, 3, 5, 5 })
case(mgpu.set_difference, ctx:array { 1, 2, 2, 5 }, ctx:array { 2, 3, 5, 5 })
case(mgpu.set_symmetric_difference, ctx:array { 1, 2, 2, 5 }, ctx:array { 2, 3, 5, 5 },
  { values = { ctx:iota(4), ctx:iota(4, 11) } })
case(mgpu.set_intersection, a, a, { duplicates = "no" })
case(mgpu.segsort, ctx:iota(100), { 1, 3, 2 })
case(mgpu.segsort, a)
case(mgpu.segsort, a, 5)
case(mgpu.segsort, a, nil, { flags = ctx:zeros(5, "f32") })
case(mgpu.segsort, ctx:array { 5, 4, 3, 2, 1 }, { 3 }, { stats = true })
case(mgpu.locality_sort, a, { stats = 1 })
case(mgpu.bulk_remove, ctx:iota(100), { 1, 101 })
case(mgpu.bulk_remove, ctx:iota(10), ctx:array({ 2, 4 }, "u64"))
case(mgpu.bulk_remove, ctx:iota(10), ctx:array({ 2, 4 }, "f32"))
case(mgpu.bulk_insert, ctx:iota(3), { 1 }, ctx:iota(2))
case(mgpu.bulk_insert, ctx:iota(3), { 4, 1 }, ctx:iota(2))
case(mgpu.bulk_insert, ctx:iota(3), { 1, 4 }, ctx:iota(2, 10))
case(mgpu.interval_gather, ctx:iota(100), { 1, 2, 3, 98 }, { 1, 1, 1, 5 })
case(mgpu.interval_gather, ctx:iota(100), { 0 }, { 1 })
case(mgpu.interval_expand, ctx:iota(2), { 1, -2 })
case(mgpu.interval_expand, ctx:iota(2), { 1, 2, 3 })
case(mgpu.interval_expand, ctx:iota(2), { 2 ^ 30, 2 ^ 30 })
case(mgpu.interval_scatter, ctx:iota(3), { 1 }, { 5 })
case(mgpu.interval_scatter, ctx:iota(3), { 4, 1 }, { 1, 2 })
case(mgpu.interval_move, ctx:iota(10), { 1, 5 }, { 3, 1 }, { 2, 1 }, { out = ctx:zeros(3) })
case(mgpu.interval_move, ctx:iota(10), { 1, 5 }, { 3, 1 }, { 2, 1 })
case(mgpu.load_balance, { 1, 1.5 })
case(mgpu.load_balance, { 2, 0, 3 })
case(mgpu.scan, a, { op = "mul" })
case(mgpu.scan, a, { op = "max", inclusive = true })
case(mgpu.scan, f, { out = ctx:zeros(3, "f32") })
case(mgpu.reduce, ctx:zeros(0), "min")
case(mgpu.reduce, f, "min")
case(mgpu.sorted_search, a, a, { side = 1 })
case(mgpu.sorted_search, a, ctx:array { 2, 4 }, { side = "right" })
case(mgpu.unique, a, { values = ctx:iota(3) })
case(mgpu.unique, ctx:array { 1, 1, 2, 2, 2 }, { counts = true, values = ctx:iota(5) })
case(mgpu.compact, a, ctx:zeros(5, "f32"))
case(mgpu.compact, a, ctx:array { 1, 0, 1, 0, 1 })
-- called from a line of Lua: the message starts with that line
case(function() local r = mgpu.merge(a, {}); return r end)
case(function() local r = a:totable(9); return r end)
case(function() local r = ctx:iota(-1); return r end)
case(function() local r = mgpu.bulk_remove(a, { 9 }); return r end)
case(function() local r = mgpu.segsort(a, { 9 }); return r end)
case(function() local r = #ctx:iota(2):slice(3); return r end)
local b = ctx:iota(2)
b:free()
case(mgpu.merge, a, b)
case(b.copy, b)
case(function() return #b end)
case(function() return tostring(b), b.dtype, b.device end)
case(b.free, 3)
-- groups (of cpu contexts, whatever the device)
local g = mgpu.group { devices = { "cpu", "cpu", "cpu" } }
local gs = g:shard({ 5, 3, 9, 1, 7, 2, 8, 6, 4, 0, 3, 3 }, "i64")
case(function() return tostring(g), #g, g:size(), #g:contexts() end)
case(function() return tostring(gs), #gs, gs.dtype, gs:counts() end)
case(function()
  local v = g:iota(12, 10, -1, "f32")
  local k, rv = mgpu.mergesort(gs, { values = v, comp = "greater" })
  return rawequal(k, gs), rawequal(rv, v), tostring(gs), tostring(v), gs:counts()
end)
case(function()
  return tostring(mgpu.merge(g:shard { 1, 3, 5, 7 }, g:shard { 2, 3, 4 },
    { values = { g:iota(4), g:iota(3, 5) } }))
end)
case(function()
  local s = g:shard { 3, 2, 1, 6, 5, 4 }
  mgpu.segsort(s, ctx:array { 1, 3, 5 }, { comp = "greater" })
  return tostring(s)
end)
case(mgpu.segsort, g:shard { 3, 2, 1, 6, 5, 4 }, { 1, 4 })
case(function() return tostring(g:random(9, 0, 100, "u32", 5)), tostring(g:iota(7, "u64")) end)
case(function() return tostring(g:shard(ctx:iota(5), "f64"):to("cpu")) end)
case(function() return gs:totable(2, 4), gs:totable(13, 12) end)
case(gs.totable, gs, 2, 40)
case(g.shard, g, { 1, "x" })
case(g.shard, g, { 1, 2, 2 ^ 40 }, "i32")
case(g.shard, { 1 })
case(g.sharded, g, { ctx:iota(1), ctx:iota(1), ctx:iota(1) })
case(mgpu.group, { devices = {} })
case(mgpu.group, { devices = { "cpu", 1 } })
case(mgpu.mergesort, gs, { values = g:shard { 1 } })
case(mgpu.mergesort, gs, { out = gs })
case(mgpu.merge, gs, a)
case(mgpu.merge, a, gs)
case(mgpu.merge, gs, mgpu.group({ devices = { "cpu", "cpu", "cpu" } }):shard { 1 })
case(mgpu.segsort, gs, { 1, 1 })
case(mgpu.segsort, gs, ctx:array({ 1, 5 }, "f32"))
case(mgpu.segsort, gs, b)
io.write(n, " cases\n")
