-- The multiset operations under LuaJIT, against spec/helpers/sets.lua (the
-- suite's own reference, run over ref.lua's comparator).
local T = require "luajit.harness"
local R = require "luajit.ref"
R.install()
local S = require "helpers.sets"
local mgpu = require "mgpu"

local ctx = mgpu.context { device = T.device }
local g = R.rng(777)

T.test("every op, dtype and order, with values", function()
  for _, op in ipairs(S.ops) do
    for _, dt in ipairs { "i32", "u64", "f32", "i64" } do
      for _, comp in ipairs { "less", "greater" } do
        for _, n in ipairs { 0, 5, 300, 3000 } do
          local a = R.sort(R.random_ints(g, n, 0, math.floor(n / 2) + 3), comp)
          local b = R.sort(R.random_ints(g, g.int(0, n + 1), 0, math.floor(n / 2) + 3), comp)
          local av, bv = {}, {}
          for i = 1, #a do av[i] = i end
          for i = 1, #b do bv[i] = -i end
          local wc, wv = S.setop(op, a, b, dt, comp, av, bv)
          local c, cv = mgpu.setop(op, ctx:array(a, dt), ctx:array(b, dt),
            { comp = comp, values = { ctx:array(av), ctx:array(bv) } })
          local what = op .. " " .. dt .. " " .. comp .. " " .. n
          T.eq(c:totable(), wc, what)
          T.eq(cv:totable(), wv, what .. " values")
          T.eq(#c, #wc)
          local c2 = mgpu["set_" .. op](ctx:array(a, dt), ctx:array(b, dt), { comp = comp })
          T.eq(c2:totable(), wc, what .. " alias")
        end
      end
    end
  end
end)

T.test("duplicates = false on unique keys", function()
  local a, b = {}, {}
  for i = 1, 2000 do a[i] = 2 * i end
  for i = 1, 1500 do b[i] = 3 * i end
  for _, op in ipairs(S.ops) do
    local c = mgpu.setop(op, ctx:array(a), ctx:array(b), { duplicates = false })
    T.eq(c:totable(), (S.setop(op, a, b, "i32")), op)
  end
end)

T.test("setop errors", function()
  local a = ctx:iota(3)
  T.raises([[mgpu.setop: unknown op 'intersect' (expected "intersection", "union", "difference" or "symmetric_difference")]],
    mgpu.setop, "intersect", a, a)
  T.raises("mgpu.set_union: b has dtype f64, a has i32", mgpu.set_union, a, ctx:zeros(2, "f64"))
  T.raises("mgpu.set_union: duplicates must be a boolean (got 1)", mgpu.set_union, a, a,
    { duplicates = 1 })
  T.raises("mgpu.setop: op must be a string (got 3)", mgpu.setop, 3, a, a)
end)

T.done()
