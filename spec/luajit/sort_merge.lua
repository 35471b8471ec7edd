-- merge, mergesort, sort, segsort and locality_sort under LuaJIT, against the
-- stable merge and sort of spec/luajit/ref.lua.
local T = require "luajit.harness"
local R = require "luajit.ref"
local mgpu = require "mgpu"

local ctx = mgpu.context { device = T.device }
local g = R.rng(12345)

local function sorted_ints(n, lo, hi, comp)
  local t = R.random_ints(g, n, lo, hi)
  return (R.sort(t, comp))
end

T.test("merge of every dtype and both orders", function()
  for _, dt in ipairs(mgpu.dtypes) do
    for _, comp in ipairs { "less", "greater" } do
      for _, n in ipairs { 0, 1, 7, 1000, 5000 } do
        local lo = (dt:sub(1, 1) == "u") and 0 or -50
        local a = sorted_ints(n, lo, 50, comp)
        local b = sorted_ints(math.floor(n / 3) + 1, lo, 50, comp)
        local av, bv = {}, {}
        for i = 1, #a do av[i] = i end
        for i = 1, #b do bv[i] = -i end
        local c, cv = mgpu.merge(ctx:array(a, dt), ctx:array(b, dt), {
          comp = comp, values = { ctx:array(av, "i64"), ctx:array(bv, "i64") } })
        local wc, wv = R.merge(a, b, comp, av, bv)
        T.eq(c:totable(), wc, dt .. " " .. comp .. " keys")
        T.eq(cv:totable(), wv, dt .. " " .. comp .. " values (stable)")
        T.eq(mgpu.merge(ctx:array(a, dt), ctx:array(b, dt), { comp = comp }):totable(), wc)
      end
    end
  end
end)

T.test("merge into out", function()
  local a, b = ctx:array { 1, 4 }, ctx:array { 2, 3 }
  local out = ctx:zeros(4)
  T.ok(mgpu.merge(a, b, { out = out }) == out)
  T.eq(out:totable(), { 1, 2, 3, 4 })
  T.raises("mgpu.merge: out has 3 elements, expected 4", mgpu.merge, a, b, { out = ctx:zeros(3) })
  T.raises("mgpu.merge: out overlaps a", mgpu.merge, a, b, { out = a })
  T.raises("mgpu.merge: out_values given without values", mgpu.merge, a, b,
    { out_values = ctx:zeros(4) })
end)

T.test("merge floats with NaN and -0.0", function()
  local nan = 0 / 0
  local a = { -1, -0.0, 2, nan }
  local b = { 0.0, 2, nan }
  local c = mgpu.merge(ctx:array(a, "f64"), ctx:array(b, "f64")):totable()
  T.eq(c, R.merge(a, b))
  T.eq(1 / c[2], -math.huge, "ties take a first: -0.0 before 0.0")
end)

T.test("mergesort is stable in every dtype", function()
  for _, dt in ipairs(mgpu.dtypes) do
    for _, comp in ipairs { "less", "greater" } do
      for _, n in ipairs { 0, 1, 100, 3000 } do
        local keys = R.random_ints(g, n, 0, 20)
        local vals = {}
        for i = 1, n do vals[i] = i end
        local k, v = mgpu.mergesort(ctx:array(keys, dt), { values = ctx:array(vals), comp = comp })
        local wk, wv = R.sort(keys, comp, vals)
        T.eq(k:totable(), wk, dt .. " " .. comp)
        T.eq(v:totable(), wv, dt .. " " .. comp .. " values")
      end
    end
  end
  local k = ctx:array { 3, 1, 2 }
  T.ok(mgpu.mergesort(k) == k)
  T.eq(k:totable(), { 1, 2, 3 })
end)

T.test("sort (radix) equals mergesort in every dtype, bits and all", function()
  local nan = 0 / 0
  for _, dt in ipairs(mgpu.dtypes) do
    for _, comp in ipairs { "less", "greater" } do
      for _, n in ipairs { 0, 1, 100, 4097 } do
        local keys = R.random_ints(g, n, 0, 300)
        if dt:sub(1, 1) == "f" then
          for i = 1, n, 7 do keys[i] = nan end
          for i = 2, n, 5 do keys[i] = -0.0 end
          for i = 3, n, 11 do keys[i] = 0.0 end
        end
        local vals = {}
        for i = 1, n do vals[i] = i end
        local k, v = mgpu.sort(ctx:array(keys, dt), { values = ctx:array(vals), comp = comp })
        local mk, mv = mgpu.mergesort(ctx:array(keys, dt), { values = ctx:array(vals), comp = comp })
        T.ok(k:tobytes() == mk:tobytes(), dt .. " " .. comp .. " keys")
        T.eq(v:totable(), mv:totable(), dt .. " " .. comp .. " values")
        if dt:sub(1, 1) ~= "f" then
          local wk, wv = R.sort(keys, comp, vals)
          T.eq(k:totable(), wk, dt .. " " .. comp .. " reference")
          T.eq(v:totable(), wv, dt .. " " .. comp .. " reference values")
        end
      end
    end
  end
  local k = ctx:array { 3, 1, 2 }
  T.ok(mgpu.sort(k) == k)
  T.eq(k:totable(), { 1, 2, 3 })
  T.raises("mgpu.sort: comp must be \"less\" or \"greater\" (got function)", mgpu.sort, k,
    { comp = function(a, b) return a < b end })
  T.raises("mgpu.sort: values has 4 elements, keys has 3", mgpu.sort, k, { values = ctx:iota(4) })
end)

T.test("segsort by heads and by flags", function()
  local n = 2000
  local keys = R.random_ints(g, n, 0, 9)
  local heads, flags = { 1 }, { 0 }
  for i = 2, n do flags[i] = 0 end
  local i = 1
  while true do
    i = i + g.int(1, 300)
    if i > n then break end
    heads[#heads + 1] = i
    flags[i] = 1
  end
  local vals = {}
  for j = 1, n do vals[j] = j end
  -- the reference: each segment sorted on its own
  local wk, wv = {}, {}
  for s = 1, #heads do
    local first, last = heads[s], (heads[s + 1] or n + 1) - 1
    local sk, sv = {}, {}
    for j = first, last do sk[#sk + 1] = keys[j]; sv[#sv + 1] = vals[j] end
    sk, sv = R.sort(sk, "greater", sv)
    for j = 1, #sk do wk[#wk + 1] = sk[j]; wv[#wv + 1] = sv[j] end
  end
  local k, v = mgpu.segsort(ctx:array(keys), heads, { values = ctx:array(vals), comp = "greater" })
  T.eq(k:totable(), wk)
  T.eq(v:totable(), wv)
  local k2, v2, st = mgpu.segsort(ctx:array(keys), ctx:array(heads, "i64"),
    { values = ctx:array(vals), comp = "greater", stats = true })
  T.eq(k2:totable(), wk)
  T.ok(type(st) == "table" and type(st.tiles) == "number")
  local k3 = mgpu.segsort(ctx:array(keys), nil, { flags = ctx:array(flags), comp = "greater" })
  T.eq(k3:totable(), wk)
  T.eq(select("#", mgpu.segsort(ctx:array(keys), {})), 1)
  T.eq(mgpu.segsort(ctx:array { 3, 1, 2 }, {}):totable(), { 1, 2, 3 })
  T.raises("mgpu.segsort: heads must be sorted, unique and in 1..3 (got 5 at position 2)",
    mgpu.segsort, ctx:array { 3, 1, 2 }, { 1, 5 })
  T.raises("mgpu.segsort: give heads or flags, not both", mgpu.segsort, ctx:array { 1 }, { 1 },
    { flags = ctx:array { 0 } })
end)

T.test("locality_sort", function()
  local n = 5000
  local keys = {}
  for i = 1, n do keys[i] = i + g.int(-20, 20) end
  local vals = {}
  for i = 1, n do vals[i] = i end
  local k, v, st = mgpu.locality_sort(ctx:array(keys), { values = ctx:array(vals), stats = true })
  local wk, wv = R.sort(keys, "less", vals)
  T.eq(k:totable(), wk)
  T.eq(v:totable(), wv)
  T.ok(type(st.blocksort_tiles) == "number")
end)

T.done()
