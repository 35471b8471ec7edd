-- Groups and sharded arrays under LuaJIT (the FFI binding's own objects):
-- the distributed mergesort and sort, merge and segsort against the stable
-- sort and merge of spec/luajit/ref.lua and against one context, with ties,
-- empty shards, every dtype and both orders.  (parity.lua prints the same
-- calls' results and errors under both interpreters.)
local T = require "luajit.harness"
local R = require "luajit.ref"
local mgpu = require "mgpu"

local rng = R.rng(60)
local function group(p)
  local d = {}
  for i = 1, p do d[i] = "cpu" end
  return mgpu.group { devices = d }
end

local function index_values(n)
  local v = {}
  for i = 1, n do v[i] = i end
  return v
end

for _, sort in ipairs { "mergesort", "sort" } do
T.test(sort .. " of every dtype, both orders, keys and pairs", function()
  for _, dt in ipairs(mgpu.dtypes) do
    for _, comp in ipairs { "less", "greater" } do
      for _, n in ipairs { 0, 2, 40, 3000 } do
        local g = group(3)
        local lo = dt:sub(1, 1) == "u" and 0 or -50
        local keys = R.random_ints(rng, n, lo, 50)
        local s, v = g:shard(keys, dt), g:shard(index_values(n), "i64")
        local one = mgpu.mergesort(s:to("cpu"), { comp = comp })
        local rk, rv = mgpu[sort](s, { values = v, comp = comp })
        T.ok(rk == s and rv == v, "the sharded arrays are returned")
        local wk, wv = R.sort(keys, comp, index_values(n))
        local what = sort .. " " .. dt .. " " .. comp .. " n=" .. n
        T.eq(s:totable(), wk, what .. " keys")
        T.eq(v:totable(), wv, what .. " values (stable)")
        T.eq(s:totable(), one:totable(), what .. " against one context")
        local total = 0
        for _, c in ipairs(s:counts()) do
          -- the bound of docs/API.md: (n + n_max) / (64 (p + 1)) + 1
          T.ok(math.abs(c - n / 3) <= (n + math.ceil(n / 3)) / 256 + 1,
            what .. ": a shard of " .. c)
          total = total + c
        end
        T.eq(total, n, what .. " total")
      end
    end
  end
end)
end

T.test("all keys equal, an empty shard, everything on one shard", function()
  local g = group(4)
  local c = g:contexts()
  local same = {}
  for i = 1, 2001 do same[i] = 7 end
  local s, v = g:shard(same, "f64"), g:shard(index_values(2001), "i32")
  mgpu.mergesort(s, { values = v })
  T.eq(v:totable(), index_values(2001), "equal keys keep their order")
  for _, n in ipairs(s:counts()) do T.ok(n >= 495 and n <= 506, "balanced: " .. n) end
  local keys = R.random_ints(rng, 1500, -9, 9)
  s = g:sharded { c[1]:array({}, "i32"), c[2]:array({}, "i32"), c[3]:array(keys, "i32"),
    c[4]:array({}, "i32") }
  mgpu.mergesort(s)
  T.eq(s:totable(), (R.sort(keys, "less")), "from one shard")
end)

T.test("merge and segsort", function()
  local g = group(3)
  local a = R.sort(R.random_ints(rng, 700, -20, 20), "greater")
  local b = R.sort(R.random_ints(rng, 300, -20, 20), "greater")
  local c, cv = mgpu.merge(g:shard(a, "i64"), g:shard(b, "i64"), { comp = "greater",
    values = { g:shard(index_values(700), "u32"), g:iota(300, 701, 1, "u32") } })
  local bv = {}
  for i = 1, 300 do bv[i] = 700 + i end
  local wc, wv = R.merge(a, b, "greater", index_values(700), bv)
  T.eq(c:totable(), wc, "merge keys")
  T.eq(cv:totable(), wv, "merge values")
  local s = g:shard { 3, 2, 1, 9, 8, 7, 6, 5, 4 }
  mgpu.segsort(s, { 1, 4, 6, 7 })
  T.eq(s:totable(), { 1, 2, 3, 8, 9, 7, 4, 5, 6 }, "segsort")
  T.raises("mgpu.segsort: the segment holding position 3 (0-based) crosses into shard 2",
    mgpu.segsort, s, { 1, 5 })
end)

T.done()
