-- mgpu.group and sharded arrays on groups of cpu contexts: making sharded
-- data, gathering it, and the distributed mergesort, merge and segsort,
-- each compared with the single-context primitive on the same data and
-- with the Lua reference; skewed inputs, every dtype, both comps, pairs,
-- and the shard-size bound after a sort (docs/API.md, "Groups").

local mgpu = require "mgpu"
local R = require "helpers.reference"
local C = require "helpers.check"
local S = require "helpers.segsort"

local function cpu_group(p)
  local devices = {}
  for i = 1, p do devices[i] = "cpu" end
  return mgpu.group { devices = devices }
end

local G = require "helpers.group"
local size_bound, check_sizes, index_values = G.size_bound, G.check_sizes, G.index_values

-- Each distributed result against mergesort on one cpu context.
local function check_sort(g, s, dt, comp, pairs, label, sort)
  return G.check_sort(g, s, dt, comp, pairs, label, "cpu", sort)
end

describe("mgpu.group", function()
  it("makes a group of cpu contexts and prints it", function()
    local g = cpu_group(3)
    C.equal(#g, 3)
    C.equal(g:size(), 3)
    C.equal(tostring(g), "mgpu.group{cpu, cpu, cpu}")
    local ctxs = g:contexts()
    C.equal(#ctxs, 3)
    assert.is_false(rawequal(ctxs[1], ctxs[2]))
    for _, c in ipairs(ctxs) do C.equal(c.device, "cpu") end
  end)

  it("takes context objects as devices", function()
    local a, b = mgpu.context "cpu", mgpu.context "cpu"
    local g = mgpu.group { devices = { a, b } }
    local ctxs = g:contexts()
    assert.is_true(rawequal(ctxs[1], a))
    assert.is_true(rawequal(ctxs[2], b))
  end)

  it("defaults to every GPU, or one cpu context without any", function()
    local g = mgpu.group()
    local gpus = #mgpu.devices() - 1
    C.equal(#g, math.max(gpus, 1))
  end)

  it("reports bad arguments by function and argument", function()
    local function fails(pattern, f, ...)
      local ok, err = pcall(f, ...)
      assert.is_false(ok)
      C.truthy(tostring(err):find(pattern, 1, true), "message was: " .. tostring(err))
    end
    fails("mgpu.group: devices must be a table", mgpu.group, { devices = "cpu" })
    fails("mgpu.group: devices must name at least one device", mgpu.group, { devices = {} })
    fails("mgpu.group: devices[2] must be a device string or an open mgpu.context",
      mgpu.group, { devices = { "cpu", 7 } })
    fails("mgpu.group: cannot use device 'gpu'", mgpu.group, { devices = { "gpu" } })
    fails("mgpu.group: unknown option 'device'", mgpu.group, { device = "cpu" })
    local g = cpu_group(2)
    fails("mgpu.group:shard: data must be a table of numbers or an mgpu.array",
      g.shard, g, "x")
    fails("call it as a method", g.shard, { 1, 2 })
    -- elements are counted in the whole, not in a shard
    fails("mgpu.group:shard: element 3 must be a number (got string)", g.shard, g,
      { 1, 2, "x" })
    fails("mgpu.group:shard: element 4", g.shard, g, { 1, 2, 3, 1 << 40 }, "i32")
    fails("mgpu.group:sharded: arrays has 1 entries, the group 2 contexts",
      g.sharded, g, { mgpu.array { 1 } })
    fails("mgpu.group:sharded: arrays[1] is not on the group's context 1",
      g.sharded, g, { mgpu.array { 1 }, mgpu.array { 2 } })
    local s = g:shard { 3, 1, 2 }
    local other = cpu_group(2):shard { 1, 2, 3 }
    fails("mgpu.mergesort: values belongs to another group", mgpu.mergesort, s,
      { values = other })
    fails("mgpu.mergesort: values's shard 1 has 2 elements, keys's has 1",
      mgpu.mergesort, s, { values = g:shard { 1, 2, 3, 4 } })
    fails("mgpu.mergesort: unknown option 'out'", mgpu.mergesort, s, { out = s })
    fails("mgpu.merge: b belongs to another group", mgpu.merge, s, other)
    fails("mgpu.merge: b has dtype f64, a has i32", mgpu.merge, s, g:shard({ 1.5 }))
    fails("mgpu.segsort: heads must be sorted, unique and in 1..3", mgpu.segsort,
      s, { 1, 1 })
  end)
end)

describe("sharded arrays", function()
  it("splits a table evenly, in order, with one dtype for the whole", function()
    local g = cpu_group(3)
    local s = g:shard { 1, 2, 3, 4, 5, 6, 7, 1 << 40 }
    C.equal(s.dtype, "i64")
    C.equal(#s, 8)
    C.equal(table.concat(s:counts(), ","), "2,3,3")
    C.table_eq(s:totable(), { 1, 2, 3, 4, 5, 6, 7, 1 << 40 }, "i64")
    C.table_eq(s:totable(3, 6), { 3, 4, 5, 6 }, "i64")
    C.table_eq(s:totable(9, 8), {}, "i64")
    local shards = s:shards()
    C.equal(#shards, 3)
    C.table_eq(shards[2]:totable(), { 3, 4, 5 }, "i64")
    C.equal(g:shard({ 1, 2.5 }).dtype, "f64")
    C.equal(g:shard({ 1, 2 }, "u32").dtype, "u32")
  end)

  it("splits an array, converting when asked, and gathers with to()", function()
    local g = cpu_group(4)
    local a = mgpu.array({ 9, 8, 7, 6, 5, 4, 3, 2, 1, 0 }, "i32")
    local s = g:shard(a, "f32")
    C.equal(s.dtype, "f32")
    C.equal(table.concat(s:counts(), ","), "2,3,2,3")
    local whole = s:to "cpu"
    C.equal(whole.dtype, "f32")
    C.array_eq(whole, { 9, 8, 7, 6, 5, 4, 3, 2, 1, 0 }, "f32")
    local ctx = g:contexts()[3]
    assert.is_true(rawequal(s:to(ctx).context, ctx))
    C.equal(#g:shard(mgpu.array({}, "u64")), 0)
  end)

  it("makes iota and random data in place", function()
    local g = cpu_group(3)
    local s = g:iota(10, 5, -2)
    C.equal(s.dtype, "i32")
    C.table_eq(s:totable(), R.iota(10, 5, -2), "i32")
    C.table_eq(g:iota(7, "u64"):totable(), R.iota(7, 1, 1), "u64")
    C.table_eq(g:iota(5, 0.5, 0.25):totable(), R.iota(5, 0.5, 0.25), "f64")
    local r = g:random(3000, -5, 5, "i64", 42)
    C.equal(r.dtype, "i64")
    C.equal(table.concat(r:counts(), ","), "1000,1000,1000")
    local t = r:totable()
    for i = 1, #t do C.truthy(t[i] >= -5 and t[i] <= 5, "random out of range") end
    -- the shards draw differently; the same seed draws the same again
    local sh = r:shards()
    assert.is_not_nil(R.diff(sh[1]:totable(), sh[2]:totable(), "i64"))
    C.table_eq(g:random(3000, -5, 5, "i64", 42):totable(), t, "i64")
  end)

  it("wraps arrays already on the group's contexts", function()
    local g = cpu_group(3)
    local c = g:contexts()
    local s = g:sharded { c[1]:array({ 4, 5 }, "u32"), c[2]:array({}, "u32"),
      c[3]:array({ 6 }, "u32") }
    C.equal(table.concat(s:counts(), ","), "2,0,1")
    C.table_eq(s:totable(), { 4, 5, 6 }, "u32")
  end)

  it("prints like an array", function()
    local g = cpu_group(2)
    local text = tostring(g:iota(12))
    C.truthy(text:find("mgpu.sharded<i32>[12] over mgpu.group{cpu, cpu}, shards of 6 6", 1, true), text)
    C.truthy(text:find(" 1:     1    2    3    4    5    6    7    8    9   10", 1, true), text)
    C.truthy(text:find("11:    11   12", 1, true), text)
  end)

  it("keeps its shards through collections", function()
    local g = cpu_group(3)
    local s = g:iota(100)
    g = nil
    collectgarbage()
    collectgarbage()
    mgpu.mergesort(s, { comp = "greater" })
    collectgarbage()
    C.table_eq(s:totable(), R.iota(100, 100, -1), "i32")
  end)
end)

describe("distributed mergesort", function()
  it("sorts every dtype, both comps, keys and pairs", function()
    local rng = R.rng(60)
    for _, dt in ipairs(R.dtypes) do
      for _, comp in ipairs { "less", "greater" } do
        for _, pairs in ipairs { false, true } do
          -- 40: every element a sample; 2000: sampled (256 a run)
          for _, n in ipairs { 40, 2000 } do
            local g = cpu_group(3)
            local label = string.format("%s %s pairs=%s n=%d", dt, comp, tostring(pairs), n)
            check_sort(g, g:shard(rng:values(n, dt), dt), dt, comp, pairs, label)
          end
        end
      end
    end
  end)

  it("mgpu.sort of a sharded array: the radix sort a shard, the same results", function()
    local rng = R.rng(61)
    for _, dt in ipairs(R.dtypes) do
      for _, comp in ipairs { "less", "greater" } do
        for _, pairs in ipairs { false, true } do
          local g = cpu_group(3)
          local label = string.format("sort %s %s pairs=%s", dt, comp, tostring(pairs))
          check_sort(g, g:shard(rng:values(2000, dt), dt), dt, comp, pairs, label, mgpu.sort)
        end
      end
    end
    local g = cpu_group(4)
    local keys, c = {}, g:contexts()
    for i = 1, 3001 do keys[i] = i % 3 end
    check_sort(g, g:shard(keys, "i32"), "i32", "less", true, "sort, three keys", mgpu.sort)
    local s = g:sharded { c[1]:array({}, "u64"), c[2]:array({}, "u64"),
      c[3]:array(rng:values(3000, "u64"), "u64"), c[4]:array({}, "u64") }
    check_sort(g, s, "u64", "greater", false, "sort, all on one shard", mgpu.sort)
    C.raises(function() return mgpu.sort(s, { out = s }) end, "mgpu.sort",
      "unknown option 'out'")
    C.raises(function() return mgpu.sort(s, { values = g:shard { 1, 2 } }) end,
      "mgpu.sort", "values's shard 1 has %d+ elements, keys's has %d+")
  end)

  it("splits small inputs exactly: every shard floor or ceil of n/p", function()
    local rng = R.rng(7)
    for p = 1, 5 do
      local g = cpu_group(p)
      local s = check_sort(g, g:shard(rng:values(97, "i32"), "i32"), "i32", "less",
        true, "p=" .. p)
      for _, c in ipairs(s:counts()) do
        C.truthy(c == 97 // p or c == 97 // p + 1, "p=" .. p .. ": shard of " .. c)
      end
    end
  end)

  it("balances and keeps stable order when all keys are equal", function()
    for _, p in ipairs { 2, 3, 4 } do
      local g = cpu_group(p)
      local keys = {}
      for i = 1, 3001 do keys[i] = 7 end
      local s = check_sort(g, g:shard(keys, "i32"), "i32", "less", true, "equal p=" .. p)
      for _, c in ipairs(s:counts()) do
        C.truthy(math.abs(c - 3001 / p) <= size_bound(3001, p, 3001 // p + 1), "equal: shard of " .. c)
      end
    end
  end)

  it("handles sorted, reverse sorted and few distinct keys", function()
    local g = cpu_group(4)
    local up, down, few = {}, {}, {}
    for i = 1, 2500 do
      up[i], down[i], few[i] = i, 2501 - i, i % 3
    end
    check_sort(g, g:shard(up, "i32"), "i32", "less", true, "sorted")
    check_sort(g, g:shard(down, "i32"), "i32", "less", true, "reverse")
    check_sort(g, g:shard(up, "i32"), "i32", "greater", true, "sorted, greater")
    check_sort(g, g:shard(few, "f64"), "f64", "greater", true, "three keys")
  end)

  it("handles an empty shard, n below the group size, n = 0 and skewed shards", function()
    local g = cpu_group(3)
    local c = g:contexts()
    local rng = R.rng(3)
    local s = g:sharded { c[1]:array(rng:values(700, "f32"), "f32"), c[2]:array({}, "f32"),
      c[3]:array(rng:values(900, "f32"), "f32") }
    check_sort(g, s, "f32", "less", false, "empty middle shard")
    -- everything on one shard: the bound grows with n_max
    s = g:sharded { c[1]:array({}, "u64"), c[2]:array({}, "u64"),
      c[3]:array(rng:values(3000, "u64"), "u64") }
    check_sort(g, s, "u64", "less", false, "all on the last shard")
    for n = 0, 2 do
      check_sort(g, g:shard(rng:values(n, "i64"), "i64"), "i64", "less", true, "n=" .. n)
    end
  end)

  it("sorts pairs whose values are of another width", function()
    local g = cpu_group(2)
    local keys = { 3, 1, 2, 1, 3, 0 }
    local s = g:shard(keys, "i64")
    local v = g:shard({ 1.5, 2.5, 3.5, 4.5, 5.5, 6.5 }, "f32")
    mgpu.mergesort(s, { values = v })
    C.table_eq(s:totable(), { 0, 1, 1, 2, 3, 3 }, "i64")
    C.table_eq(v:totable(), { 6.5, 2.5, 4.5, 3.5, 1.5, 5.5 }, "f32")
  end)
end)

describe("distributed merge", function()
  it("merges two sorted sharded arrays stably, as mgpu.merge does", function()
    local rng = R.rng(11)
    for _, dt in ipairs(R.dtypes) do
      for _, comp in ipairs { "less", "greater" } do
        local g = cpu_group(3)
        local a = R.mergesort(rng:values(900, dt), dt, comp)
        local b = R.mergesort(rng:values(500, dt), dt, comp)
        local sa, sb = g:shard(a, dt), g:shard(b, dt)
        local av, bv = g:shard(index_values(900), "i32"), g:shard(R.iota(500, 901, 1), "i32")
        local out, out_v = mgpu.merge(sa, sb, { values = { av, bv }, comp = comp })
        local one_ctx = mgpu.context "cpu"
        local one, one_v = mgpu.merge(sa:to(one_ctx), sb:to(one_ctx),
          { values = { av:to(one_ctx), bv:to(one_ctx) }, comp = comp })
        local label = dt .. " " .. comp
        C.no_diff(R.diff(out:totable(), one:totable(), dt), label .. " (vs one context)")
        C.no_diff(R.diff(out_v:totable(), one_v:totable(), "i32"), label .. " values")
        local want, want_v = R.merge(a, b, dt, comp, index_values(900), R.iota(500, 901, 1))
        C.no_diff(R.diff(out:totable(), want, dt), label .. " (vs reference)")
        C.no_diff(R.diff(out_v:totable(), want_v, "i32"), label .. " values (vs reference)")
        check_sizes(out:counts(), 1400, 3, 300, label)
        -- the inputs are unchanged
        C.no_diff(R.diff(sa:totable(), a, dt), label .. ": a changed")
      end
    end
  end)

  it("merges inputs that are not sorted without reading or writing outside them", function()
    -- undefined but safe: cuts held in order, every shard's ranges inside it
    local rng = R.rng(17)
    for _ = 1, 20 do
      local g = cpu_group(rng:int(2, 4))
      local a, b = rng:values(rng:int(0, 700), "i32"), rng:values(rng:int(0, 700), "i32")
      local c = mgpu.merge(g:shard(a, "i32"), g:shard(b, "i32"))
      C.equal(#c, #a + #b, "all elements placed")
    end
  end)

  it("merges uneven and empty sides", function()
    local g = cpu_group(3)
    local c = g:contexts()
    local a = g:sharded { c[1]:array({ 1, 1, 1 }), c[2]:array({}), c[3]:array({ 2 }) }
    local b = g:sharded { c[1]:array({}), c[2]:array({}), c[3]:array({}) }
    C.table_eq(mgpu.merge(a, b):totable(), { 1, 1, 1, 2 }, "i32")
    C.table_eq(mgpu.merge(b, b):totable(), {}, "i32")
  end)
end)

describe("distributed segsort", function()
  it("sorts segments that stay within shards, as mgpu.segsort does", function()
    local rng = R.rng(5)
    for _, dt in ipairs(R.dtypes) do
      for _, comp in ipairs { "less", "greater" } do
        local g = cpu_group(3)
        local keys = rng:values(300, dt)
        -- shards of 100: heads at 1, 101, 201 and some inside
        local heads = { 1, 17, 60, 101, 150, 201, 202, 290 }
        local s = g:shard(keys, dt)
        local v = g:shard(index_values(300), "i32")
        local rs, rv = mgpu.segsort(s, heads, { values = v, comp = comp })
        assert.is_true(rawequal(rs, s))
        assert.is_true(rawequal(rv, v))
        local one_ctx = mgpu.context "cpu"
        local one, one_v = mgpu.array(keys, dt):to(one_ctx), one_ctx:array(index_values(300), "i32")
        mgpu.segsort(one, heads, { values = one_v, comp = comp })
        local label = dt .. " " .. comp
        C.no_diff(R.diff(s:totable(), one:totable(), dt), label .. " (vs one context)")
        C.no_diff(R.diff(v:totable(), one_v:totable(), "i32"), label .. " values")
        local want_k, want_v = S.segsort(keys, heads, dt, comp, index_values(300))
        C.no_diff(R.diff(s:totable(), want_k, dt), label .. " (vs reference)")
        C.no_diff(R.diff(v:totable(), want_v, "i32"), label .. " values (vs reference)")
        C.equal(table.concat(s:counts(), ","), "100,100,100", label .. ": shards kept")
      end
    end
  end)

  it("takes heads as an mgpu.array", function()
    local g = cpu_group(2)
    local s = g:shard { 3, 2, 1, 9, 8, 7 }
    mgpu.segsort(s, mgpu.array({ 1, 3, 4 }, "i64"))
    C.table_eq(s:totable(), { 2, 3, 1, 7, 8, 9 }, "i32")
  end)

  it("refuses a segment that crosses shards, and sorts nothing", function()
    local g = cpu_group(3)
    local s = g:shard { 6, 5, 4, 3, 2, 1 }
    local ok, err = pcall(mgpu.segsort, s, { 1, 4 })
    assert.is_false(ok)
    C.truthy(tostring(err):find("mgpu.segsort: the segment holding position 2 (0-based) " ..
      "crosses into shard 2", 1, true), tostring(err))
    C.table_eq(s:totable(), { 6, 5, 4, 3, 2, 1 }, "i32")
    -- an empty shard needs no head; the next non-empty one does
    local c = g:contexts()
    s = g:sharded { c[1]:array { 2, 1 }, c[2]:array {}, c[3]:array { 4, 3 } }
    mgpu.segsort(s, { 3 })
    C.table_eq(s:totable(), { 1, 2, 3, 4 }, "i32")
  end)
end)

-- A whole past 2^31 - 1 on cpu contexts: g:iota takes the group's count
-- (each shard within its context's limit), not the 32-bit one.  2^31 + 5
-- i32 elements, about 8.6 GB, so it runs only with MGPU_SPEC_HUGE=1.
if os.getenv("MGPU_SPEC_HUGE") == "1" then
  describe("a group of cpu contexts past 2^31 - 1 elements", function()
    it("g:iota of 2^31 + 5: every shard in place, the whole in order", function()
      local g = mgpu.group { devices = { "cpu", "cpu", "cpu" } }
      local n = 2147483647 + 6
      local s = g:iota(n, -2147483648, 1, "i32")
      assert.are.equal(n, #s)
      local at = 0
      for k, shard in ipairs(s:shards()) do
        local len = #shard
        -- shard k holds the whole's elements floor(n k / p) .. floor(n (k + 1) / p) - 1
        assert.are.equal(n * k // 3 - n * (k - 1) // 3, len, "shard " .. k)
        C.table_eq(shard:totable(1, 3), { at - 2147483648, at - 2147483647, at - 2147483646 },
          "i32", "shard " .. k .. " start")
        C.table_eq(shard:totable(len, len), { at + len - 1 - 2147483648 }, "i32",
          "shard " .. k .. " end")
        at = at + len
      end
      assert.are.equal(n, at)
    end)

    -- n keys from INT32_MAX down to -5: sorted, place q holds q - 6
    local function down(ctx, n) return ctx:iota(n, 2147483647, -1, "i32") end
    local function place(q) return q - 6 end

    -- One run past 2^31 - 1 (the other shard empty): its samples are
    -- gathered and its cuts searched with i64 indices.  Each output shard
    -- receives one range, so no merge scratch: about 17 GB at the peak.
    it("mgpu.sort of one shard of 2^31 + 5 and one empty shard", function()
      local g = cpu_group(2)
      local c = g:contexts()
      local n = 2147483647 + 6
      local s = g:sharded { down(c[1], n), c[2]:array({}, "i32") }
      mgpu.sort(s)
      -- the splitters leave each shard within the sampling bound of n / 2
      check_sizes(s:counts(), n, 2, n, "sort")
      G.check_sorted_shards(s, n, place, "sort")
      s = nil
      collectgarbage()
    end)

    -- One output shard past 2^31 - 1: a group of one context.
    it("mgpu.sort on a group of one context: a shard of 2^31 + 5", function()
      local g = cpu_group(1)
      local n = 2147483647 + 6
      local s = g:sharded { down(g:contexts()[1], n) }
      mgpu.sort(s)
      assert.are.equal(n, s:counts()[1])
      G.check_sorted_shards(s, n, place, "sort")
      s = nil
      collectgarbage()
    end)

    -- Heads past 2^31 - 1 in a shard: i64 heads (the index dtype rule).
    it("mgpu.segsort on a group of one context: a head at 2^31", function()
      local g = cpu_group(1)
      local n = 2147483647 + 6
      local s = g:sharded { down(g:contexts()[1], n) }
      -- segments [1, 2^31] (INT32_MAX .. 0) and [2^31 + 1, n] (-1 .. -5)
      mgpu.segsort(s, { 1, 2147483649 })
      local shard = s:shards()[1]
      assert.are.equal(n, #shard)
      G.check_windows(shard, 2147483648, 0, function(q) return q - 1 end,
        "segsort, first segment")
      C.table_eq(shard:totable(2147483645, n), { 2147483644, 2147483645, 2147483646, 2147483647,
        -5, -4, -3, -2, -1 }, "i32", "segsort: across the head at 2^31")
      s, shard = nil, nil
      collectgarbage()
    end)
  end)
end
