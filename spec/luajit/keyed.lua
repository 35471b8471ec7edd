-- reduce_by_key, segreduce and join under LuaJIT, against values computed
-- here by plain loops (Lua 5.1 syntax).
local T = require "luajit.harness"
local R = require "luajit.ref"
local mgpu = require "mgpu"

local ctx = mgpu.context { device = T.device }
local g = R.rng(5858)
local less = R.comparator()

T.test("reduce_by_key", function()
  local keys = R.sort(R.random_ints(g, 3000, 0, 400))
  local vals = R.random_ints(g, 3000, -50, 50)
  local wk, wsum, wmax = {}, {}, {}
  for i = 1, #keys do
    if i == 1 or keys[i] ~= keys[i - 1] then
      wk[#wk + 1], wsum[#wk + 1], wmax[#wk + 1] = keys[i], vals[i], vals[i]
    else
      wsum[#wk] = wsum[#wk] + vals[i]
      wmax[#wk] = math.max(wmax[#wk], vals[i])
    end
  end
  local k, r = mgpu.reduce_by_key(ctx:array(keys), ctx:array(vals, "i64"))
  T.eq(k:totable(), wk)
  T.eq(r.dtype, "i64")
  T.eq(r:totable(), wsum)
  local _, m = mgpu.reduce_by_key(ctx:array(keys), ctx:array(vals), { op = "max" })
  T.eq(m:totable(), wmax)
  local nk, nr = mgpu.reduce_by_key(ctx:array({ 0 / 0, 0 / 0, 1 }, "f64"), ctx:array { 1, 2, 3 })
  T.eq(#nk, 2)
  T.eq(nr:totable(), { 3, 3 })
  T.raises("mgpu.reduce_by_key: values has 2 elements, keys has 3",
    mgpu.reduce_by_key, ctx:array { 1, 2, 3 }, ctx:array { 1, 2 })
end)

T.test("segreduce", function()
  local vals = R.random_ints(g, 5000, -100, 100)
  local off = R.sort(R.random_ints(g, 300, 1, 5001))
  local want, wmin = {}, {}
  for i = 1, #off do
    local e = (off[i + 1] or 5001) - 1
    local s, mn = 0, 2147483647
    for j = off[i], e do s = s + vals[j]; mn = math.min(mn, vals[j]) end
    want[i], wmin[i] = s, mn
  end
  T.eq(mgpu.segreduce(ctx:array(vals), off):totable(), want)
  T.eq(mgpu.segreduce(ctx:array(vals), ctx:array(off, "i64"), { op = "min" }):totable(), wmin)
  T.eq(mgpu.segreduce(ctx:array { 4, 5 }, { 1, 1, 3 }, { identity = -1 }):totable(), { -1, 9, -1 })
  T.raises("mgpu.segreduce: offsets must be non-decreasing and in 1..3 (got 1 at position 2)",
    mgpu.segreduce, ctx:array { 4, 5 }, { 2, 1 })
  T.raises("mgpu.segreduce: offsets must be non-decreasing and in 1..3 (got 4 at position 1)",
    mgpu.segreduce, ctx:array { 4, 5 }, { 4 })
end)

-- Every pair by two loops, the unmatched rows the kind keeps, ordered by
-- key then i then j.
local function join_ref(a, b, kind)
  local rows, ahit, bhit = {}, {}, {}
  for i = 1, #a do
    for j = 1, #b do
      if not less(a[i], b[j]) and not less(b[j], a[i]) then
        rows[#rows + 1] = { i, j, a[i] }
        ahit[i], bhit[j] = true, true
      end
    end
  end
  if kind == "left" or kind == "outer" then
    for i = 1, #a do if not ahit[i] then rows[#rows + 1] = { i, 0, a[i] } end end
  end
  if kind == "right" or kind == "outer" then
    for j = 1, #b do if not bhit[j] then rows[#rows + 1] = { 0, j, b[j] } end end
  end
  table.sort(rows, function(x, y)
    if less(x[3], y[3]) then return true end
    if less(y[3], x[3]) then return false end
    if x[1] ~= y[1] then return x[1] < y[1] end
    return x[2] < y[2]
  end)
  local ia, ib = {}, {}
  for r = 1, #rows do ia[r], ib[r] = rows[r][1], rows[r][2] end
  return ia, ib
end

T.test("join", function()
  local a = R.sort(R.random_ints(g, 200, 0, 120))
  local b = R.sort(R.random_ints(g, 150, 60, 200))
  for _, kind in ipairs { "inner", "left", "right", "outer" } do
    local ia, ib = mgpu.join(ctx:array(a), ctx:array(b), { kind = kind })
    local wa, wb = join_ref(a, b, kind)
    T.eq(ia.dtype, "i32")
    T.eq(ia:totable(), wa)
    T.eq(ib:totable(), wb)
  end
  local e1, e2 = mgpu.join(ctx:zeros(0), ctx:array { 1 }, { kind = "right" })
  T.eq(e1:totable(), { 0 })
  T.eq(e2:totable(), { 1 })
  T.raises("mgpu.join: the result would have 2500000000 rows, past the 32-bit index limit of 2147483647",
    mgpu.join, ctx:fill(50000, 1), ctx:fill(50000, 1))
  T.raises([[mgpu.join: kind must be "inner", "left", "right" or "outer" (got "full")]],
    mgpu.join, ctx:array { 1 }, ctx:array { 1 }, { kind = "full" })
end)

T.done()
