-- scan, reduce, sorted_search, unique, compact, and the bulk and interval
-- operations under LuaJIT, against values computed here.
local T = require "luajit.harness"
local R = require "luajit.ref"
local mgpu = require "mgpu"

local ctx = mgpu.context { device = T.device }
local g = R.rng(4242)

T.test("scan and reduce", function()
  local t = R.random_ints(g, 3000, -100, 100)
  local excl, incl, sum, mn, mx = {}, {}, 0, math.huge, -math.huge
  for i = 1, #t do
    excl[i] = sum
    sum = sum + t[i]
    incl[i] = sum
    mn, mx = math.min(mn, t[i]), math.max(mx, t[i])
  end
  local a = ctx:array(t)
  local r, total = mgpu.scan(a)
  T.eq(r:totable(), excl)
  T.eq(total, sum)
  r, total = mgpu.scan(a, { inclusive = true })
  T.eq(r:totable(), incl)
  T.eq(mgpu.reduce(a), sum)
  T.eq(mgpu.reduce(a, "min"), mn)
  T.eq(mgpu.reduce(a, "max"), mx)
  local _, fmax = mgpu.scan(ctx:array({ 1, 0 / 0, 2 }, "f64"), { op = "max" })
  T.ok(fmax ~= fmax, "NaN is above every number")
  local r0 = mgpu.scan(ctx:zeros(0))
  T.eq(#r0, 0)
  T.eq(mgpu.reduce(ctx:zeros(0)), 0)
  T.raises("mgpu.reduce:", mgpu.reduce, ctx:zeros(0), "min")
  -- in place
  local b = ctx:iota(4)
  mgpu.scan(b, { out = b, inclusive = true })
  T.eq(b:totable(), { 1, 3, 6, 10 })
  -- integers wrap in their dtype
  T.eq(mgpu.reduce(ctx:array({ 2147483647, 1 }, "i32")), -2147483648)
  T.eq(mgpu.reduce(ctx:array({ 4294967295, 2 }, "u32")), 1)
  T.raises([[mgpu.scan: op must be "add", "min" or "max" (got "mul")]], mgpu.scan, a, { op = "mul" })
end)

T.test("sorted_search", function()
  local hay = R.sort(R.random_ints(g, 500, 0, 100))
  local needles = R.sort(R.random_ints(g, 300, -5, 105))
  local left, right = {}, {}
  for i, x in ipairs(needles) do
    local l, r = #hay + 1, #hay + 1
    for j = #hay, 1, -1 do
      if hay[j] >= x then l = j end
      if hay[j] > x then r = j end
    end
    left[i], right[i] = l, r
  end
  local n, h = ctx:array(needles), ctx:array(hay)
  local pos = mgpu.sorted_search(n, h)
  T.eq(pos.dtype, "i32")
  T.eq(pos:totable(), left)
  T.eq(mgpu.sorted_search(n, h, { side = "right" }):totable(), right)
end)

T.test("unique and compact", function()
  local keys = R.sort(R.random_ints(g, 2000, 0, 50))
  local vals = {}
  for i = 1, #keys do vals[i] = 10 * i end
  local wu, wv, wc = {}, {}, {}
  for i, k in ipairs(keys) do
    if i == 1 or k ~= keys[i - 1] then
      wu[#wu + 1], wv[#wv + 1], wc[#wc + 1] = k, vals[i], 1
    else
      wc[#wc] = wc[#wc] + 1
    end
  end
  local u, uv, c = mgpu.unique(ctx:array(keys), { values = ctx:array(vals), counts = true })
  T.eq(u:totable(), wu)
  T.eq(uv:totable(), wv)
  T.eq(c:totable(), wc)
  local u2, c2 = mgpu.unique(ctx:array(keys), { counts = true })
  T.eq(c2:totable(), wc)
  T.eq(select("#", mgpu.unique(ctx:array(keys))), 1)
  local data = R.random_ints(g, 3000, -9, 9)
  local flags = R.random_ints(g, 3000, 0, 1)
  local want, wantv = {}, {}
  for i = 1, #data do
    if flags[i] ~= 0 then want[#want + 1] = data[i]; wantv[#wantv + 1] = i end
  end
  local idx = {}
  for i = 1, #data do idx[i] = i end
  local out, ov = mgpu.compact(ctx:array(data), ctx:array(flags, "u32"), { values = ctx:array(idx, "i64") })
  T.eq(out:totable(), want)
  T.eq(ov:totable(), wantv)
  -- a result far smaller than its input moves to an exact-size array
  local sparse = ctx:zeros(100000)
  sparse[7] = 1
  local few = mgpu.compact(ctx:iota(100000), sparse)
  T.eq(few:totable(), { 7 })
end)

T.test("bulk_remove and bulk_insert", function()
  local n = 1000
  local data = {}
  for i = 1, n do data[i] = i * 3 end
  local idx, keep = {}, {}
  for i = 1, n do
    if g.int(0, 3) == 0 then idx[#idx + 1] = i else keep[#keep + 1] = data[i] end
  end
  T.eq(mgpu.bulk_remove(ctx:array(data), idx):totable(), keep)
  T.eq(mgpu.bulk_remove(ctx:array(data), ctx:array(idx, "u32")):totable(), keep)
  local pos, vals = {}, {}
  for i = 1, 300 do pos[i] = g.int(1, n + 1) end
  pos = R.sort(pos)
  for i = 1, 300 do vals[i] = -i end
  local want = {}
  for i = 1, n do want[i] = data[i] end
  for i = #pos, 1, -1 do table.insert(want, pos[i], vals[i]) end
  -- table.insert from the back keeps equal positions in order
  T.eq(mgpu.bulk_insert(ctx:array(data), pos, ctx:array(vals)):totable(), want)
  T.raises("mgpu.bulk_remove: indices must be sorted, unique and in 1..3 (got 2 at position 3)",
    mgpu.bulk_remove, ctx:iota(3), { 1, 3, 2 })
  T.raises("mgpu.bulk_insert: values has dtype f64, data has i32", mgpu.bulk_insert,
    ctx:iota(3), { 1 }, ctx:zeros(1, "f64"))
  T.raises("mgpu.bulk_remove: indices[2] must be an integer (got 1.5)", mgpu.bulk_remove,
    ctx:iota(3), { 1, 1.5 })
end)

T.test("interval operations and load_balance", function()
  local m = 200
  local counts, values = {}, {}
  for i = 1, m do counts[i] = g.int(0, 6); values[i] = i * 10 end
  -- the last interval reaches furthest: an empty one there would start
  -- past the end of the output made for the others
  counts[m] = 3
  local want, lb = {}, {}
  for i = 1, m do
    for _ = 1, counts[i] do want[#want + 1] = values[i]; lb[#lb + 1] = i end
  end
  T.eq(mgpu.interval_expand(ctx:array(values), counts):totable(), want)
  T.eq(mgpu.load_balance(ctx:array(counts)):totable(), lb)
  T.eq(mgpu.load_balance(counts):totable(), lb)
  local input = {}
  for i = 1, 1500 do input[i] = i end
  local gather, wg = {}, {}
  for i = 1, m do
    gather[i] = g.int(1, 1500 - counts[i] + 1)
    for j = 0, counts[i] - 1 do wg[#wg + 1] = input[gather[i] + j] end
  end
  T.eq(mgpu.interval_gather(ctx:array(input), gather, counts):totable(), wg)
  -- scatter to disjoint places: interval i to 10 * (i - 1) + 1
  local scatter, total = {}, 0
  for i = 1, m do scatter[i] = 10 * (i - 1) + 1; total = total + counts[i] end
  local ws, k, last = {}, 0, 0
  for i = 1, m do
    for j = 0, counts[i] - 1 do
      k = k + 1
      ws[scatter[i] + j] = input[k]
      last = math.max(last, scatter[i] + j)
    end
  end
  for i = 1, last do ws[i] = ws[i] or 0 end
  T.eq(mgpu.interval_scatter(ctx:array(input), scatter, counts):totable(), ws)
  local wm = {}
  for i = 1, last do wm[i] = 0 end
  for i = 1, m do
    for j = 0, counts[i] - 1 do wm[scatter[i] + j] = input[gather[i] + j] end
  end
  T.eq(mgpu.interval_move(ctx:array(input), gather, scatter, counts):totable(), wm)
  local out = ctx:zeros(last + 5)
  T.ok(mgpu.interval_move(ctx:array(input), gather, scatter, counts, { out = out }) == out)
  T.raises("mgpu.interval_expand: counts must not be negative (got -2 at position 2)",
    mgpu.interval_expand, ctx:iota(2), { 1, -2 })
  T.raises("mgpu.interval_gather: gather[4] = 98 with counts[4] = 5 runs past the end of input (100 elements)",
    mgpu.interval_gather, ctx:iota(100), { 1, 2, 3, 98 }, { 1, 1, 1, 5 })
  T.raises("mgpu.interval_scatter: counts add up to 5 but input has 3 elements",
    mgpu.interval_scatter, ctx:iota(3), { 1 }, { 5 })
end)

T.done()
