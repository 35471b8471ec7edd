-- mgpu.scan, mgpu.reduce, mgpu.sorted_search, mgpu.unique and
-- mgpu.compact against the Lua reference: every dtype, both scan kinds,
-- every reduction, empty and one-element inputs, all-equal inputs, NaN and
-- -0.0, u64 past 2^63 and i64 past 2^53, integer add wrapping, in-place and
-- out= scans, both sides and both comparators of the search, unique with
-- values and counts, compact with every flag dtype, sizes around tile
-- boundaries, cuda against cpu on large inputs, and bad input.

local mgpu = require "mgpu"
local R = require "helpers.reference"
local C = require "helpers.check"
local G = require "helpers.gen"
local backends = require "helpers.backends"

local W = C.word
local FREED = { "array has been freed", "has been freed" }
local nan, inf = R.nan, R.inf

local SIZES = { 1, 2, 127, 128, 129, 1000, 10007, 100003 }
-- the items of a scan or reduce tile by value width (kernels/policy/scan.cuh):
-- sizes around them take the whole tiles' vector path and the last tile's
-- bounded one; 33 tiles and one reach past a look-back window of 32 tiles
local SCAN_TILE = { [4] = 4096, [8] = 2048 }
local OPS = { "add", "min", "max" }
local INT_DTYPES = { "i32", "u32", "i64", "u64" }

---------------------------------------------------------------------------
-- helpers

local function kind(inclusive) return inclusive and "inclusive" or "exclusive" end

-- n floats whose partial sums are exact in f32 and f64 whatever order they
-- are added in (quarters in [-5, 5]: for n up to 10^5 every partial sum is
-- below 2^21 quarters, inside f32's 24 bits), so a parallel sum equals the
-- sequential one; -0.0 now and then, but never first (the sign
-- of a sum of zeros is not what these check).  specials: also inf, -inf
-- and NaN, whose effect on a sum does not depend on the order either.
local function exact_floats(rng, n, specials)
  local t = {}
  for i = 1, n do
    local r = rng:int(1, 100)
    if specials and r <= 2 then
      t[i] = rng:pick { inf, -inf, nan }
    elseif r <= 5 and i > 1 then
      t[i] = -0.0
    else
      t[i] = rng:int(-20, 20) / 4
    end
  end
  return t
end

-- Data for op over dtype dt: the reference's mix of small numbers and the
-- dtype's extremes (integer add wraps; NaN, infinities and signed zeros
-- for float min and max); float add gets exact_floats.
local function scan_data(rng, n, dt, op)
  if R.is_float(dt) and op == "add" then return exact_floats(rng, n) end
  return rng:values(n, dt)
end

-- A total: a Lua integer for integer dtypes (u64 with its bits), a float
-- for floats, the same as want (NaN matching any NaN, -0.0 ~= 0.0).
local function check_total(got, want, dt, label)
  local mt = R.is_float(dt) and "float" or "integer"
  if math.type(got) ~= mt then
    C.fail(string.format("%s: total %s is a %s, want a %s", label, tostring(got),
      tostring(math.type(got) or type(got)), mt), 2)
  end
  if not R.same(got, want, dt) then
    C.fail(string.format("%s: total %s, want %s", label, R.show(got, dt), R.show(want, dt)), 2)
  end
end

-- Scans the Lua table t as an array of dtype dt on ctx: a new result, then
-- into out = another array, then in place; each against the reference.
local function check_scan(ctx, dt, t, op, inclusive, label)
  label = label or string.format("%s %s %s n=%d", dt, op, kind(inclusive), #t)
  local want, wtotal = R.scan(t, dt, op, inclusive)
  local a = ctx:array(t, dt)
  local r, total = mgpu.scan(a, { op = op, inclusive = inclusive })
  assert.are.equal("userdata", type(r), label .. ": result is not an array")
  assert.is_false(rawequal(r, a), label .. ": returned the input")
  assert.is_true(r.context == ctx, label .. ": result on another context")
  C.array_eq(r, want, dt, label)
  check_total(total, wtotal, dt, label)
  C.array_eq(a, t, dt, label .. ": input unchanged")

  local o = ctx:zeros(#t, dt)
  local r2, total2 = mgpu.scan(a, { op = op, inclusive = inclusive, out = o })
  assert.is_true(rawequal(r2, o), label .. ": out= did not return out")
  C.array_eq(o, want, dt, label .. " (out=)")
  check_total(total2, wtotal, dt, label .. " (out=)")
  C.array_eq(a, t, dt, label .. ": input unchanged by out=")

  local r3, total3 = mgpu.scan(a, { op = op, inclusive = inclusive, out = a })
  assert.is_true(rawequal(r3, a), label .. ": in place did not return a")
  C.array_eq(a, want, dt, label .. " (in place)")
  check_total(total3, wtotal, dt, label .. " (in place)")
end

local function check_reduce(ctx, dt, t, op, label)
  label = label or string.format("reduce %s %s n=%d", dt, tostring(op), #t)
  local a = ctx:array(t, dt)
  local got
  if op == nil then got = mgpu.reduce(a) else got = mgpu.reduce(a, op) end
  check_total(got, R.reduce(t, dt, op or "add"), dt, label)
  C.array_eq(a, t, dt, label .. ": input unchanged")
end

-- needles and hay sorted by comp; side and comp as given (nil: defaults).
local function check_search(ctx, dt, needles, hay, side, comp, label)
  label = label or string.format("%s %s %s n=%d m=%d", dt, tostring(side), tostring(comp),
    #needles, #hay)
  local n, h = ctx:array(needles, dt), ctx:array(hay, dt)
  local opts
  if side ~= nil or comp ~= nil then opts = { side = side, comp = comp } end
  local pos = mgpu.sorted_search(n, h, opts)
  assert.is_true(pos.context == ctx, label .. ": result on another context")
  C.array_eq(pos, R.sorted_search(needles, hay, dt, side, comp), "i32", label)
  C.array_eq(n, needles, dt, label .. ": needles unchanged")
  C.array_eq(h, hay, dt, label .. ": haystack unchanged")
end

-- Every side and comp: needles and hay sorted ascending (sorted here when
-- `unsorted`), reversed for "greater" (the exact reverse order).
local function check_search_all(ctx, dt, needles, hay, label, unsorted)
  if unsorted then
    needles, hay = R.mergesort(needles, dt, "less"), R.mergesort(hay, dt, "less")
  end
  for _, comp in ipairs { "less", "greater" } do
    local sn, sh = needles, hay
    if comp == "greater" then sn, sh = G.reverse(needles), G.reverse(hay) end
    for _, side in ipairs { "left", "right" } do
      check_search(ctx, dt, sn, sh, side, comp, label and (label .. " " .. side .. " " .. comp))
    end
  end
end

-- unique of keys (dtype dt): keys only, with counts, and with values
-- 1..n of dtype vdt (with and without counts).
local function check_unique(ctx, dt, keys, vdt, label)
  label = label or string.format("unique %s n=%d", dt, #keys)
  local k = ctx:array(keys, dt)
  local vals = vdt and G.index_values(#keys, vdt) or nil
  local wk, wv, wc = R.unique(keys, dt, vals)

  local u, extra = mgpu.unique(k)
  assert.is_nil(extra, label .. ": keys-only unique returned more")
  assert.is_true(u.context == ctx, label .. ": result on another context")
  C.array_eq(u, wk, dt, label .. " keys")

  local u2, c2, extra2 = mgpu.unique(k, { counts = true })
  assert.is_nil(extra2, label .. ": counts returned more")
  C.array_eq(u2, wk, dt, label .. " keys (counts)")
  C.array_eq(c2, wc, "i32", label .. " counts")

  local u0 = mgpu.unique(k, { counts = false })
  C.array_eq(u0, wk, dt, label .. " keys (counts = false)")

  if vdt then
    local v = ctx:array(vals, vdt)
    local u3, uv3, extra3 = mgpu.unique(k, { values = v })
    assert.is_nil(extra3, label .. ": values without counts returned counts")
    C.array_eq(u3, wk, dt, label .. " keys (values)")
    C.array_eq(uv3, wv, vdt, label .. " values")
    local u4, uv4, c4 = mgpu.unique(k, { values = v, counts = true })
    C.array_eq(u4, wk, dt, label .. " keys (values, counts)")
    C.array_eq(uv4, wv, vdt, label .. " values (counts)")
    C.array_eq(c4, wc, "i32", label .. " counts (values)")
    C.array_eq(v, vals, vdt, label .. ": values unchanged")
  end
  C.array_eq(k, keys, dt, label .. ": keys unchanged")
end

-- n flags of integer dtype fdt: non-zero with probability keep/100, then
-- one of the dtype's awkward non-zero values (only high bits set, the sign
-- bit alone, all bits set).
local NONZERO = {
  i32 = { 1, -1, R.I32_MIN, 0x10000, 7 },
  u32 = { 1, 0x80000000, R.U32_MAX, 0x10000, 7 },
  i64 = { 1, -1, math.mininteger, 1 << 32, 1 << 40 },
  u64 = { 1, -1, math.mininteger, 1 << 32, (1 << 53) + 1 },
}
local function flags_of(rng, n, fdt, keep)
  local t = {}
  for i = 1, n do
    t[i] = (rng:int(1, 100) <= keep) and rng:pick(NONZERO[fdt]) or 0
  end
  return t
end

local function check_compact(ctx, dt, data, fdt, flags, vdt, vals, label)
  label = label or string.format("compact %s flags %s values %s n=%d", dt, fdt,
    tostring(vdt), #data)
  local d, f = ctx:array(data, dt), ctx:array(flags, fdt)
  local wd, wv = R.compact(data, flags, vals)
  if vdt then
    local v = ctx:array(vals, vdt)
    local out, ov, extra = mgpu.compact(d, f, { values = v })
    assert.is_nil(extra, label .. ": returned more than out, ov")
    assert.is_true(out.context == ctx and ov.context == ctx, label .. ": result on another context")
    C.array_eq(out, wd, dt, label .. " data")
    C.array_eq(ov, wv, vdt, label .. " values")
    C.array_eq(v, vals, vdt, label .. ": values unchanged")
  else
    local out, extra = mgpu.compact(d, f)
    assert.is_nil(extra, label .. ": keys-only compact returned values")
    assert.is_true(out.context == ctx, label .. ": result on another context")
    C.array_eq(out, wd, dt, label)
  end
  C.array_eq(d, data, dt, label .. ": data unchanged")
  C.array_eq(f, flags, fdt, label .. ": flags unchanged")
end

---------------------------------------------------------------------------
-- the reference itself, on cases worked out by hand

describe("the reference scan, reduce, search, unique and compact", function()
  it("scan and reduce", function()
    local s, t = R.scan({ 3, 1, 4, 1, 5 }, "i32", "add", false)
    C.table_eq(s, { 0, 3, 4, 8, 9 }, "i32"); assert.are.equal(14, t)
    s, t = R.scan({ 3, 1, 4, 1, 5 }, "i32", "add", true)
    C.table_eq(s, { 3, 4, 8, 9, 14 }, "i32"); assert.are.equal(14, t)
    s, t = R.scan({ 3, 1, 4, 1, 5 }, "i32", "min", false)
    C.table_eq(s, { R.I32_MAX, 3, 1, 1, 1 }, "i32"); assert.are.equal(1, t)
    s, t = R.scan({ 3, 1, 4, 1, 5 }, "u32", "max", false)
    C.table_eq(s, { 0, 3, 3, 4, 4 }, "u32"); assert.are.equal(5, t)
    -- wrapping
    s, t = R.scan({ R.I32_MAX, 1, R.I32_MIN }, "i32", "add", true)
    C.table_eq(s, { R.I32_MAX, R.I32_MIN, 0 }, "i32"); assert.are.equal(0, t)
    assert.are.equal(0, R.reduce({ R.U32_MAX, 1 }, "u32"))
    assert.are.equal(1, R.reduce({ -1, 2 }, "u64"))
    assert.are.equal(math.mininteger, R.reduce({ math.maxinteger, 1 }, "i64"))
    -- u64 order: 2^63 above 5; -1 the largest
    assert.are.equal(math.mininteger, R.reduce({ 5, math.mininteger, 7 }, "u64", "max"))
    assert.are.equal(5, R.reduce({ -1, 5, math.mininteger }, "u64", "min"))
    -- identities
    s = R.scan({ 1 }, "u64", "min", false); assert.are.equal(-1, s[1])
    s = R.scan({ 1 }, "i64", "max", false); assert.are.equal(math.mininteger, s[1])
    s = R.scan({ 1.0 }, "f32", "min", false); assert.is_true(R.isnan(s[1]))
    s = R.scan({ 1.0 }, "f64", "max", false); assert.are.equal(-inf, s[1])
    -- float order: max is NaN when any element is, min only when all are
    assert.is_true(R.isnan(R.reduce({ 1.0, nan, 2.0 }, "f64", "max")))
    assert.are.equal(1.0, R.reduce({ 1.0, nan, 2.0 }, "f64", "min"))
    assert.is_true(R.isnan(R.reduce({ nan, nan }, "f64", "min")))
    -- ties go by IEEE totalOrder, whatever the order of the elements
    C.table_eq({ R.reduce({ -0.0, 0.0 }, "f64", "min") }, { -0.0 }, "f64")
    C.table_eq({ R.reduce({ 0.0, -0.0 }, "f64", "min") }, { -0.0 }, "f64")
    C.table_eq({ R.reduce({ 0.0, -0.0 }, "f64", "max") }, { 0.0 }, "f64")
    C.table_eq({ R.reduce({ -0.0, 0.0 }, "f64", "max") }, { 0.0 }, "f64")
    -- f32 sums round every step
    assert.are.equal(R.round_f32(R.round_f32(1 + 0x1p-24) + 0x1p-24),
      R.reduce({ 1.0, 0x1p-24, 0x1p-24 }, "f32"))
    assert.are.equal(1.0, R.reduce({ 1.0, 0x1p-24, 0x1p-24 }, "f32"))
    assert.are.equal(1.0 + 0x1p-23, R.reduce({ 1.0, 0x1p-24, 0x1p-24 }, "f64"))
    assert.are.equal(0, R.reduce({}, "i32"))
    assert.has_error(function() R.reduce({}, "i32", "min") end)
  end)

  it("sorted_search: the binary search agrees with a linear one", function()
    local hay = { 1, 3, 3, 3, 5, 7, 9 }
    C.table_eq(R.sorted_search({ 0, 3, 4, 9, 10 }, hay, "i32", "left"), { 1, 2, 5, 7, 8 }, "i32")
    C.table_eq(R.sorted_search({ 0, 3, 4, 9, 10 }, hay, "i32", "right"), { 1, 5, 5, 8, 8 }, "i32")
    C.table_eq(R.sorted_search({ 3 }, G.reverse(hay), "i32", "left", "greater"), { 4 }, "i32")
    C.table_eq(R.sorted_search({ 3 }, G.reverse(hay), "i32", "right", "greater"), { 7 }, "i32")
    local rng = R.rng(5)
    for _, dt in ipairs(R.dtypes) do
      for _ = 1, 20 do
        for _, comp in ipairs { "less", "greater" } do
          local h = R.mergesort(rng:values(rng:int(0, 30), dt), dt, comp)
          local n = rng:values(rng:int(0, 30), dt)
          for _, side in ipairs { "left", "right" } do
            C.table_eq(R.sorted_search(n, h, dt, side, comp),
              R.sorted_search_linear(n, h, dt, side, comp), "i32", dt .. " " .. side .. " " .. comp)
          end
        end
      end
    end
  end)

  it("unique and compact", function()
    local k, v, c = R.unique({ 1, 1, 2, 1, 3, 3, 3 }, "i32", { 10, 20, 30, 40, 50, 60, 70 })
    C.table_eq(k, { 1, 2, 1, 3 }, "i32")
    C.table_eq(v, { 10, 30, 40, 50 }, "i32")
    C.table_eq(c, { 2, 1, 1, 3 }, "i32")
    k, v, c = R.unique({ -0.0, 0.0, nan, nan, 1.0 }, "f64")
    C.table_eq(k, { -0.0, nan, 1.0 }, "f64")
    assert.is_nil(v)
    C.table_eq(c, { 2, 2, 1 }, "i32")
    local d, dv = R.compact({ 1, 2, 3, 4 }, { 0, -1, 0, math.mininteger }, { 5, 6, 7, 8 })
    C.table_eq(d, { 2, 4 }, "i32")
    C.table_eq(dv, { 6, 8 }, "i32")
  end)
end)

---------------------------------------------------------------------------
-- each backend against the reference

backends.each(function(ctx, device)
  describe("scan", function()
    it("the defaults: add, exclusive, a new array", function()
      local a = ctx:array { 3, 1, 4, 1, 5 }
      local r, total = mgpu.scan(a)
      C.array_eq(r, { 0, 3, 4, 8, 9 }, "i32")
      assert.are.equal(14, total)
      assert.are.equal("integer", math.type(total))
      r, total = mgpu.scan(a, {})
      C.array_eq(r, { 0, 3, 4, 8, 9 }, "i32")
      r, total = mgpu.scan(a, { inclusive = true })
      C.array_eq(r, { 3, 4, 8, 9, 14 }, "i32")
      assert.are.equal(14, total)
      r = mgpu.scan(a, { op = "min", inclusive = false })
      C.array_eq(r, { R.I32_MAX, 3, 1, 1, 1 }, "i32")
      r = mgpu.scan(a, { op = "max" })
      C.array_eq(r, { R.I32_MIN, 3, 3, 4, 4 }, "i32")
      C.array_eq(a, { 3, 1, 4, 1, 5 }, "i32", "input unchanged")
    end)

    it("empty input: an empty result and the identity as total", function()
      for _, dt in ipairs(R.dtypes) do
        for _, op in ipairs(OPS) do
          for _, inclusive in ipairs { false, true } do
            local label = string.format("empty %s %s %s", dt, op, kind(inclusive))
            local a = ctx:zeros(0, dt)
            local r, total = mgpu.scan(a, { op = op, inclusive = inclusive })
            assert.are.equal(0, #r, label)
            assert.are.equal(dt, r.dtype, label)
            check_total(total, R.reduce_identity(dt, op), dt, label)
            local r2 = mgpu.scan(a, { op = op, inclusive = inclusive, out = a })
            assert.is_true(rawequal(r2, a), label .. " in place")
          end
        end
      end
    end)

    it("float sums start from the first element: a leading -0.0 stays -0.0", function()
      for _, dt in ipairs { "f32", "f64" } do
        for _, inclusive in ipairs { false, true } do
          check_scan(ctx, dt, { -0.0 }, "add", inclusive)
          check_scan(ctx, dt, { -0.0, -0.0, 1.5 }, "add", inclusive)
        end
        local a = ctx:array({ -0.0, -0.0 }, dt)
        local r = mgpu.reduce(a, "add")
        assert.are.equal(-math.huge, 1 / r, dt .. " reduce of -0.0s")
      end
    end)

    it("one element: exclusive gives the identity, inclusive the element", function()
      local one = { i32 = -7, u32 = 0x80000001, i64 = (1 << 53) + 1, u64 = math.mininteger + 3,
                    f32 = -2.5, f64 = 0.1 }
      for _, dt in ipairs(R.dtypes) do
        for _, op in ipairs(OPS) do
          for _, inclusive in ipairs { false, true } do
            check_scan(ctx, dt, { one[dt] }, op, inclusive)
          end
        end
        -- NaN, -0.0 and infinities alone
        if R.is_float(dt) then
          for _, x in ipairs { nan, -0.0, inf, -inf } do
            for _, op in ipairs(OPS) do
              check_scan(ctx, dt, { x }, op, true)
              check_scan(ctx, dt, { x }, op, false)
            end
          end
        end
      end
    end)

    for _, dt in ipairs(R.dtypes) do
      it(string.format("%s: every op, both kinds, sizes around tile boundaries", dt), function()
        local rng = R.rng(100 + #dt)
        for _, n in ipairs(SIZES) do
          for _, op in ipairs(OPS) do
            local t = scan_data(rng, n, dt, op)
            check_scan(ctx, dt, t, op, false)
            check_scan(ctx, dt, t, op, true)
          end
        end
      end)
    end

    for _, dt in ipairs(R.dtypes) do
      it(string.format("%s: sizes around the scan tile, several tiles, past a look-back window", dt), function()
        local tile = SCAN_TILE[R.size[dt]]
        local rng = R.rng(300 + #dt + R.size[dt])
        for _, n in ipairs { tile - 1, tile, tile + 1, 3 * tile + 1, 33 * tile + 1 } do
          for _, op in ipairs(OPS) do
            local t = scan_data(rng, n, dt, op)
            check_scan(ctx, dt, t, op, false)
            check_scan(ctx, dt, t, op, true)
            check_reduce(ctx, dt, t, op)
          end
        end
      end)

      it(string.format("%s: a slice that starts off a 16-byte boundary, several tiles", dt), function()
        local tile = SCAN_TILE[R.size[dt]]
        local n = 3 * tile + 5
        local rng = R.rng(400 + R.size[dt])
        for _, op in ipairs(OPS) do
          local t = scan_data(rng, n, dt, op)
          local big = ctx:zeros(n + 2, dt)
          local s = big:slice(2, n + 1)
          for i = 1, n do s[i] = t[i] end
          for _, inclusive in ipairs { false, true } do
            local want, wtotal = R.scan(t, dt, op, inclusive)
            local label = string.format("%s %s %s n=%d off a boundary", dt, op, kind(inclusive), n)
            local r, total = mgpu.scan(s, { op = op, inclusive = inclusive })
            C.array_eq(r, want, dt, label)
            check_total(total, wtotal, dt, label)
          end
          check_total(mgpu.reduce(s, op), R.reduce(t, dt, op), dt,
            string.format("reduce %s %s n=%d off a boundary", dt, op, n))
          local want = R.scan(t, dt, op, true)
          mgpu.scan(s, { op = op, inclusive = true, out = s })
          C.array_eq(s, want, dt, dt .. " " .. op .. " in place off a boundary")
          local zero = R.is_float(dt) and 0.0 or 0
          assert.is_true(R.same(big[1], zero, dt) and R.same(big[n + 2], zero, dt),
            dt .. " " .. op .. " in place wrote outside the slice")
        end
      end)
    end

    it("all elements equal", function()
      for _, dt in ipairs(R.dtypes) do
        for _, n in ipairs { 1, 129, 10007 } do
          local x = R.is_float(dt) and 0.5 or 3
          local t = R.iota(n, x, 0)
          for _, op in ipairs(OPS) do
            check_scan(ctx, dt, t, op, false)
            check_scan(ctx, dt, t, op, true)
          end
        end
      end
    end)

    it("integer add wraps in the dtype", function()
      check_scan(ctx, "i32", { R.I32_MAX, 1, 1, R.I32_MIN, -1 }, "add", true)
      check_scan(ctx, "i32", { R.I32_MAX, 1, 1, R.I32_MIN, -1 }, "add", false)
      check_scan(ctx, "u32", { R.U32_MAX, 1, 2, R.U32_MAX }, "add", true)
      check_scan(ctx, "i64", { math.maxinteger, 1, math.mininteger, -1 }, "add", true)
      check_scan(ctx, "u64", { -1, 2, math.mininteger, math.mininteger }, "add", true)
      local r, total = mgpu.scan(ctx:array({ R.U32_MAX, 1, 5 }, "u32"), { inclusive = true })
      C.array_eq(r, { R.U32_MAX, 0, 5 }, "u32")
      assert.are.equal(5, total)
      r, total = mgpu.scan(ctx:array({ -1, 1 }, "u64"))
      C.array_eq(r, { 0, -1 }, "u64")
      assert.are.equal(0, total)
      -- many large elements: the running sum wraps again and again
      local rng = R.rng(7)
      for _, dt in ipairs(INT_DTYPES) do
        local lo, hi = R.range(dt)
        local t = {}
        for i = 1, 100003 do
          if dt == "u64" or dt == "i64" then t[i] = rng:next64()
          else t[i] = rng:int(lo, hi) end
        end
        check_scan(ctx, dt, t, "add", false)
        check_scan(ctx, dt, t, "add", true)
        check_reduce(ctx, dt, t, "add")
      end
    end)

    it("u64 above 2^63 and i64 beyond 2^53: exact, unsigned order", function()
      local big = 1 << 53
      check_scan(ctx, "i64", { big, 1, 1, -big, big + 1 }, "add", true)
      check_scan(ctx, "i64", { big + 1, big, big + 3, big + 2 }, "max", true)
      check_scan(ctx, "i64", { big + 1, big, big + 3, big - 1 }, "min", false)
      local u = { 5, math.mininteger + 1, math.mininteger, -1, 0, math.maxinteger }
      for _, op in ipairs(OPS) do
        check_scan(ctx, "u64", u, op, true)
        check_scan(ctx, "u64", u, op, false)
      end
      local _, total = mgpu.scan(ctx:array(u, "u64"), { op = "max" })
      assert.are.equal(-1, total)
      _, total = mgpu.scan(ctx:array({ 5, math.mininteger + 1 }, "u64"), { op = "max" })
      assert.are.equal(math.mininteger + 1, total)
      assert.are.equal(5, mgpu.reduce(ctx:array({ -1, 5, math.mininteger }, "u64"), "min"))
      assert.are.equal(big + 3, mgpu.reduce(ctx:array({ big + 1, big + 3, big + 2 }, "i64"), "max"))
      assert.are.equal(big + 2, mgpu.reduce(ctx:array({ big, 1, 1 }, "i64")))
    end)

    it("floats: NaN above every number, -0.0 below 0.0 on a tie (IEEE totalOrder)", function()
      for _, dt in ipairs { "f32", "f64" } do
        for _, t in ipairs {
          { 1.0, nan, -1.0, 2.0 },
          { nan, nan, 3.0 },
          { inf, nan, -inf },
          { -0.0, 0.0, -0.0 },
          { 0.0, -0.0, 0.0 },
          { 2.0, -0.0, 0.0, 1.0, nan, -inf, -0.0 },
        } do
          for _, op in ipairs { "min", "max" } do
            check_scan(ctx, dt, t, op, true)
            check_scan(ctx, dt, t, op, false)
            check_reduce(ctx, dt, t, op)
          end
        end
        -- max is NaN when any element is, min only when all are
        assert.is_true(R.isnan(mgpu.reduce(ctx:array({ 1.0, nan, 2.0 }, dt), "max")))
        assert.are.equal(1.0, mgpu.reduce(ctx:array({ 1.0, nan, 2.0 }, dt), "min"))
        assert.is_true(R.isnan(mgpu.reduce(ctx:array({ nan, nan }, dt), "min")))
        assert.are.equal(-inf, mgpu.reduce(ctx:array({ nan, -inf }, dt), "min"))
      end
    end)

    it("float add: exact sums, with infinities and NaN", function()
      local rng = R.rng(8)
      for _, dt in ipairs { "f32", "f64" } do
        for _, n in ipairs { 2, 129, 10007, 100003 } do
          local t = exact_floats(rng, n, true)
          check_scan(ctx, dt, t, "add", false)
          check_scan(ctx, dt, t, "add", true)
          check_reduce(ctx, dt, t, "add")
        end
        check_scan(ctx, dt, { 1.0, inf, 2.0, -inf, 3.0 }, "add", true)
        check_scan(ctx, dt, { 1.0, nan, 2.0 }, "add", false)
        -- sums of zeros are zero (the sign is not checked: a parallel sum
        -- may start from the identity +0.0)
        local r, total = mgpu.scan(ctx:array({ -0.0, -0.0, 0.0 }, dt), { inclusive = true })
        for i, x in ipairs(r:totable()) do assert.are.equal(0.0, x, "element " .. i) end
        assert.are.equal(0.0, total)
        assert.are.equal("float", math.type(total))
      end
    end)

    it("f32 sums in f32, f64 in f64 (sequential where it matters)", function()
      -- 1 + 2^-24 + 2^-24: f32 rounds both halves away (1 + 2^-24 is a tie,
      -- to even), f64 keeps them.
      local t = { 1.0, 0x1p-24, 0x1p-24 }
      local _, t32 = mgpu.scan(ctx:array(t, "f32"), { inclusive = true })
      local _, t64 = mgpu.scan(ctx:array(t, "f64"), { inclusive = true })
      assert.are.equal(1.0, t32)
      assert.are.equal(1.0 + 0x1p-23, t64)
      -- f32 overflow to inf
      assert.are.equal(inf, mgpu.reduce(ctx:array({ 0x1.fffffep127, 0x1.fffffep127 }, "f32")))
      assert.are.equal(0x1.fffffep128, mgpu.reduce(ctx:array({ 0x1.fffffep127, 0x1.fffffep127 }, "f64")))
    end)

    it("out: another array (a slice too), the input itself", function()
      local rng = R.rng(9)
      for _, dt in ipairs(R.dtypes) do
        local n = 1000
        local t = scan_data(rng, n, dt, "add")
        local want, wtotal = R.scan(t, dt, "add", true)
        -- out a slice of a larger array: the rest untouched
        local big = ctx:fill(n + 4, 1, dt)
        local o = big:slice(3, n + 2)
        local r, total = mgpu.scan(ctx:array(t, dt), { inclusive = true, out = o })
        assert.is_true(rawequal(r, o))
        C.array_eq(o, want, dt, dt .. " out slice")
        check_total(total, wtotal, dt, dt .. " out slice")
        local all = big:totable()
        for _, i in ipairs { 1, 2, n + 3, n + 4 } do
          assert.is_true(R.same(all[i], R.is_float(dt) and 1.0 or 1, dt), dt .. " outside the slice " .. i)
        end
        -- input a slice, in place
        local big2 = ctx:fill(n + 2, 2, dt)
        local s = big2:slice(2, n + 1)
        for i = 1, n do s[i] = t[i] end
        local want_ex, wt_ex = R.scan(t, dt, "add", false)
        local r2, total2 = mgpu.scan(s, { out = s })
        assert.is_true(rawequal(r2, s))
        C.array_eq(s, want_ex, dt, dt .. " in place on a slice")
        check_total(total2, wt_ex, dt, dt .. " in place on a slice")
        local two = R.is_float(dt) and 2.0 or 2
        assert.is_true(R.same(big2[1], two, dt) and R.same(big2[n + 2], two, dt),
          dt .. " in place wrote outside the slice")
      end
    end)
  end)

  describe("reduce", function()
    it("every dtype and op against the reference; the default op is add", function()
      local rng = R.rng(200)
      for _, dt in ipairs(R.dtypes) do
        for _, n in ipairs(SIZES) do
          for _, op in ipairs(OPS) do
            local t = scan_data(rng, n, dt, op)
            check_reduce(ctx, dt, t, op)
            if op == "add" then check_reduce(ctx, dt, t, nil) end
          end
        end
      end
    end)

    it("empty: add is 0, min and max are errors", function()
      for _, dt in ipairs(R.dtypes) do
        local z = ctx:zeros(0, dt)
        local s = mgpu.reduce(z)
        check_total(s, R.is_float(dt) and 0.0 or 0, dt, "empty add " .. dt)
        check_total(mgpu.reduce(z, "add"), R.is_float(dt) and 0.0 or 0, dt, "empty add " .. dt)
        C.raises(function() return mgpu.reduce(z, "min") end, "mgpu.reduce", "min", "no elements")
        C.raises(function() return mgpu.reduce(z, "max") end, "mgpu.reduce", "max", "no elements")
      end
    end)

    it("u32 totals above 2^31 are positive; u64 ones above 2^63 negative", function()
      assert.are.equal(0x80000001, mgpu.reduce(ctx:array({ 0x80000000, 1 }, "u32")))
      assert.are.equal(R.U32_MAX, mgpu.reduce(ctx:array({ 0, R.U32_MAX, 7 }, "u32"), "max"))
      assert.are.equal(math.mininteger + 1, mgpu.reduce(ctx:array({ math.mininteger, 1 }, "u64")))
      assert.are.equal(-2, mgpu.reduce(ctx:array({ -1, -1 }, "u64")))
      assert.are.equal(R.I32_MIN, mgpu.reduce(ctx:array({ R.I32_MAX, 1 }, "i32")))
    end)

    it("all equal, and a slice", function()
      for _, dt in ipairs(R.dtypes) do
        local x = R.is_float(dt) and 0.25 or 3
        check_reduce(ctx, dt, R.iota(10007, x, 0), "add")
        check_reduce(ctx, dt, R.iota(10007, x, 0), "min")
        check_reduce(ctx, dt, R.iota(10007, x, 0), "max")
      end
      local a = ctx:iota(100)
      assert.are.equal(5 + 6 + 7, mgpu.reduce(a:slice(5, 7)))
      assert.are.equal(5, mgpu.reduce(a:slice(5, 7), "min"))
      assert.are.equal(7, mgpu.reduce(a:slice(5, 7), "max"))
    end)
  end)

  describe("sorted_search", function()
    it("a worked example, both sides, the defaults", function()
      local hay = ctx:array { 1, 3, 3, 3, 5, 7, 9 }
      local needles = ctx:array { 0, 1, 3, 4, 9, 10 }
      C.array_eq(mgpu.sorted_search(needles, hay), { 1, 1, 2, 5, 7, 8 }, "i32")
      C.array_eq(mgpu.sorted_search(needles, hay, {}), { 1, 1, 2, 5, 7, 8 }, "i32")
      C.array_eq(mgpu.sorted_search(needles, hay, { side = "left" }), { 1, 1, 2, 5, 7, 8 }, "i32")
      C.array_eq(mgpu.sorted_search(needles, hay, { side = "right" }), { 1, 2, 5, 5, 8, 8 }, "i32")
      local rh = ctx:array(G.reverse(hay:totable()))
      local rn = ctx:array(G.reverse(needles:totable()))
      C.array_eq(mgpu.sorted_search(rn, rh, { comp = "greater" }), { 1, 1, 4, 4, 7, 8 }, "i32")
      C.array_eq(mgpu.sorted_search(rn, rh, { comp = "greater", side = "right" }),
        { 1, 2, 4, 7, 8, 8 }, "i32")
    end)

    it("empty needles, empty haystack, one element", function()
      for _, dt in ipairs(R.dtypes) do
        local x = R.is_float(dt) and 1.5 or 5
        local y = R.is_float(dt) and 2.5 or 6
        for _, comp in ipairs { "less", "greater" } do
          for _, side in ipairs { "left", "right" } do
            local p = mgpu.sorted_search(ctx:zeros(0, dt), ctx:array({ x }, dt), { side = side, comp = comp })
            assert.are.equal(0, #p)
            assert.are.equal("i32", p.dtype)
            check_search(ctx, dt, {}, {}, side, comp)
            check_search(ctx, dt, { x, x }, {}, side, comp)
            check_search(ctx, dt, { x }, { x }, side, comp)
            check_search(ctx, dt, { y }, { x }, side, comp)
            check_search(ctx, dt, { x }, { y }, side, comp)
          end
        end
      end
    end)

    for _, dt in ipairs(R.dtypes) do
      it(string.format("%s: both sides, both comps, sizes around tile boundaries", dt), function()
        local rng = R.rng(300 + #dt)
        for _, n in ipairs(SIZES) do
          for _, m in ipairs { 1, 128, n, 10007 } do
            -- haystack with ties; needles partly from it, partly between
            local V = math.max(1, math.min(n, m) // 3)
            local hay = G.sorted_keys(rng, m, V, dt, "less")
            -- order_map(dt, V + 2) is order_map(dt, V) shifted down one
            -- step: needles run from just below hay's first to past its last
            local needles = G.sorted_keys(rng, n, V + 2, dt, "less")
            check_search_all(ctx, dt, needles, hay, string.format("%s n=%d m=%d", dt, n, m))
          end
        end
      end)
    end

    -- The cuda backend searches needle by needle once the haystack holds
    -- 256 elements a needle or more, by a merge below that: both sides of
    -- the switch, with ties, and the mixed values in a long haystack.
    it("few needles in a long haystack: both sides of the search's switch", function()
      local rng = R.rng(320)
      for _, dt in ipairs(R.dtypes) do
        local m = 25600
        local hay = G.sorted_keys(rng, m, 300, dt, "less")
        for _, n in ipairs { 1, 7, 99, 100, 101, 130 } do
          local needles = G.sorted_keys(rng, n, 302, dt, "less")
          check_search_all(ctx, dt, needles, hay, string.format("%s long haystack n=%d m=%d", dt, n, m))
        end
        check_search_all(ctx, dt, rng:values(40, dt), rng:values(20000, dt),
          dt .. " mixed, long haystack", true)
      end
    end)

    it("all haystack elements equal", function()
      for _, dt in ipairs(R.dtypes) do
        local f = G.order_map(dt, 10)
        local hay = R.iota(1000, f(5), 0)
        check_search_all(ctx, dt, { f(4), f(5), f(5), f(6) }, hay, dt .. " all equal")
        check_search_all(ctx, dt, { f(5) }, hay, dt .. " all equal, one needle")
      end
    end)

    it("the mixed values: extremes, NaN, -0.0, u64 above 2^63, i64 beyond 2^53", function()
      local rng = R.rng(310)
      for _, dt in ipairs(R.dtypes) do
        for _, sz in ipairs { { 50, 70 }, { 1000, 3000 }, { 10007, 129 } } do
          check_search_all(ctx, dt, rng:values(sz[1], dt), rng:values(sz[2], dt),
            string.format("%s mixed n=%d m=%d", dt, sz[1], sz[2]), true)
        end
      end
      for _, dt in ipairs { "f32", "f64" } do
        check_search_all(ctx, dt, { nan, -0.0, 0.0, inf, -inf, 1.0 },
          { -inf, -1.0, -0.0, 0.0, -0.0, 1.0, inf, nan, nan }, dt .. " specials", true)
      end
      local big = 1 << 53
      check_search_all(ctx, "i64", { big, big + 1, big + 2 }, { big - 1, big + 1, big + 1, big + 3 }, "i64 2^53", true)
      check_search_all(ctx, "u64", { 5, math.mininteger, -1, math.maxinteger },
        { 0, 5, math.maxinteger, math.mininteger, math.mininteger + 1, -1 }, "u64 2^63", true)
      check_search_all(ctx, "u32", { 0x80000000, 5, R.U32_MAX }, { 1, 0x7fffffff, 0x80000000, R.U32_MAX }, "u32 2^31", true)
    end)

    it("unsorted inputs: positions stay in 1..#haystack+1", function()
      for _, sz in ipairs { { 1000, 5000 }, { 100003, 777 }, { 5, 0 } } do
        local n, m = sz[1], sz[2]
        local needles = ctx:random(n, -1000, 1000, "i32", 11)
        local hay = ctx:random(m, -1000, 1000, "i32", 12)
        for _, side in ipairs { "left", "right" } do
          for _, comp in ipairs { "less", "greater" } do
            local p = mgpu.sorted_search(needles, hay, { side = side, comp = comp })
            assert.are.equal(n, #p)
            for i, x in ipairs(p:totable()) do
              if x < 1 or x > m + 1 then
                C.fail(string.format("position %d = %d outside 1..%d", i, x, m + 1))
              end
            end
          end
        end
      end
      C.array_eq(mgpu.sorted_search(ctx:array { 2 }, ctx:array { 1, 3 }), { 2 }, "i32", "context usable")
    end)
  end)

  describe("unique", function()
    it("a worked example with values and counts", function()
      local k = ctx:array { 1, 1, 2, 1, 3, 3, 3 }
      local v = ctx:array({ 10, 20, 30, 40, 50, 60, 70 }, "f64")
      local u, uv, c = mgpu.unique(k, { values = v, counts = true })
      C.array_eq(u, { 1, 2, 1, 3 }, "i32")
      C.array_eq(uv, { 10.0, 30.0, 40.0, 50.0 }, "f64")
      C.array_eq(c, { 2, 1, 1, 3 }, "i32")
      assert.is_true(u.context == ctx and uv.context == ctx and c.context == ctx)
    end)

    it("empty and one-element inputs", function()
      for _, dt in ipairs(R.dtypes) do
        local u, uv, c = mgpu.unique(ctx:zeros(0, dt), { values = ctx:zeros(0, "u64"), counts = true })
        assert.are.equal(0, #u); assert.are.equal(dt, u.dtype)
        assert.are.equal(0, #uv); assert.are.equal("u64", uv.dtype)
        assert.are.equal(0, #c); assert.are.equal("i32", c.dtype)
        local x = R.is_float(dt) and -0.0 or 9
        check_unique(ctx, dt, { x }, "i32")
      end
    end)

    for _, dt in ipairs(R.dtypes) do
      it(string.format("%s: runs of ties at sizes around tile boundaries, values of each width", dt), function()
        local rng = R.rng(400 + #dt)
        for _, n in ipairs(SIZES) do
          for _, V in ipairs { 0, 3, n // 4, n } do
            local keys = G.sorted_keys(rng, n, V, dt, (V % 2 == 0) and "less" or "greater")
            local vdt = ({ "i32", "f64", "u64", "f32" })[(n + V) % 4 + 1]
            check_unique(ctx, dt, keys, vdt, string.format("unique %s n=%d V=%d", dt, n, V))
          end
          -- unsorted keys: only consecutive repeats fold
          check_unique(ctx, dt, rng:values(n, dt), "i64", string.format("unique %s unsorted n=%d", dt, n))
        end
      end)
    end

    it("all keys equal: one run with the first value", function()
      for _, dt in ipairs(R.dtypes) do
        for _, n in ipairs { 2, 128, 129, 100003 } do
          local x = R.is_float(dt) and 1.5 or 7
          local u, uv, c = mgpu.unique(ctx:fill(n, x, dt), { values = ctx:iota(n), counts = true })
          C.array_eq(u, { x }, dt)
          C.array_eq(uv, { 1 }, "i32")
          C.array_eq(c, { n }, "i32")
        end
      end
    end)

    it("floats: NaNs equal, -0.0 equal to 0.0, the first key's bits kept", function()
      for _, dt in ipairs { "f32", "f64" } do
        check_unique(ctx, dt, { -0.0, 0.0, 0.0, -0.0, nan, nan, 1.0, nan, inf, inf, -inf }, "i32")
        check_unique(ctx, dt, { 0.0, -0.0, nan }, "u64")
        -- NaN payloads and signs: the output bytes are the run heads' bytes
        local esize = R.size[dt]
        local bytes = G.odd_bytes(300, dt)
        -- make runs: repeat every element 1..3 times
        local parts, rng = {}, R.rng(410)
        for i = 1, 300 do
          local e = G.chunk(bytes, i, esize)
          for _ = 1, rng:int(1, 3) do parts[#parts + 1] = e end
        end
        local s = table.concat(parts)
        local keys = R.unpack(s, dt)
        local _, heads = R.unique(keys, dt, R.iota(#keys))
        local vdt = (dt == "f64") and "u64" or "u32"
        local u, uv = mgpu.unique(ctx:frombytes(s, dt), { values = ctx:frombytes(s, vdt) })
        local want = G.permute_bytes(s, heads, esize)
        C.bytes_eq(u:tobytes(), want, esize, dt .. " keys' bytes")
        C.bytes_eq(uv:tobytes(), want, esize, dt .. " values' bytes")
      end
    end)

    it("u64 above 2^63, i64 beyond 2^53", function()
      local big = 1 << 53
      check_unique(ctx, "i64", { big, big, big + 1, big + 1, big + 2, big }, "i32")
      check_unique(ctx, "u64", { math.mininteger, math.mininteger, math.mininteger + 1, -1, -1, 0 }, "f32")
      check_unique(ctx, "u32", { 0x80000000, 0x80000000, 0x80000001, 0x80000000 }, "i32")
    end)
  end)

  describe("compact", function()
    it("a worked example, with values", function()
      local d = ctx:array({ 1.5, 2.5, 3.5, 4.5 }, "f32")
      local f = ctx:array { 0, 1, 0, -3 }
      local out, ov = mgpu.compact(d, f, { values = ctx:array({ 10, 20, 30, 40 }, "u64") })
      C.array_eq(out, { 2.5, 4.5 }, "f32")
      C.array_eq(ov, { 20, 40 }, "u64")
      C.array_eq(mgpu.compact(d, f), { 2.5, 4.5 }, "f32")
    end)

    it("empty input, none kept, all kept", function()
      for _, fdt in ipairs(INT_DTYPES) do
        local out, ov = mgpu.compact(ctx:zeros(0, "f64"), ctx:zeros(0, fdt), { values = ctx:zeros(0, "i32") })
        assert.are.equal(0, #out); assert.are.equal("f64", out.dtype)
        assert.are.equal(0, #ov); assert.are.equal("i32", ov.dtype)
        for _, n in ipairs { 1, 129, 10007 } do
          local data = R.iota(n)
          check_compact(ctx, "i32", data, fdt, R.iota(n, 0, 0), "u64", R.iota(n, 5))
          check_compact(ctx, "i32", data, fdt, R.iota(n, 1, 0), "u64", R.iota(n, 5))
          check_compact(ctx, "i64", data, fdt, R.iota(n, 0, 0))
        end
      end
    end)

    for _, fdt in ipairs(INT_DTYPES) do
      it(string.format("flags %s: every data dtype, with and without values, sizes around tile boundaries", fdt),
        function()
          local rng = R.rng(500 + #fdt)
          for _, n in ipairs(SIZES) do
            for i, dt in ipairs(R.dtypes) do
              local data = rng:values(n, dt)
              local flags = flags_of(rng, n, fdt, ({ 50, 5, 95 })[i % 3 + 1])
              local vdt = R.dtypes[(i + n) % 6 + 1]
              check_compact(ctx, dt, data, fdt, flags)
              check_compact(ctx, dt, data, fdt, flags, vdt, G.index_values(n, vdt))
            end
          end
        end)
    end

    it("flags with only high bits set count as non-zero", function()
      check_compact(ctx, "i32", { 1, 2, 3, 4 }, "i64", { 1 << 32, 0, math.mininteger, 1 << 62 })
      check_compact(ctx, "i32", { 1, 2, 3, 4 }, "u64", { 0, 1 << 40, math.mininteger, 0 })
      check_compact(ctx, "i32", { 1, 2, 3, 4 }, "u32", { 0x80000000, 0x10000, 0, R.U32_MAX })
      check_compact(ctx, "i32", { 1, 2, 3, 4 }, "i32", { R.I32_MIN, 0, 0x10000, 0 })
    end)

    it("data and values keep their exact bits", function()
      for _, dt in ipairs { "f32", "f64" } do
        local esize = R.size[dt]
        local n = 500
        local s = G.odd_bytes(n, dt)
        local rng = R.rng(510)
        local flags, keep = {}, {}
        for i = 1, n do
          flags[i] = rng:int(0, 1)
          if flags[i] ~= 0 then keep[#keep + 1] = i end
        end
        local vdt = (dt == "f64") and "i64" or "i32"
        local out, ov = mgpu.compact(ctx:frombytes(s, dt), ctx:array(flags, "u32"),
          { values = ctx:frombytes(s, vdt) })
        local want = G.permute_bytes(s, keep, esize)
        C.bytes_eq(out:tobytes(), want, esize, dt .. " data bytes")
        C.bytes_eq(ov:tobytes(), want, esize, dt .. " values bytes")
      end
    end)

    it("slices of data, flags and values", function()
      local data = ctx:iota(20, 1, 1, "i64")
      local flags = ctx:array { 1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1 }
      local vals = ctx:iota(20, 101, 1, "f32")
      local out, ov = mgpu.compact(data:slice(3, 12), flags:slice(5, 14),
        { values = vals:slice(2, 11) })
      -- flags 5..14: 0 0 1 0 1 1 0 1 1 0 -> kept positions 3 5 6 8 9
      C.array_eq(out, { 5, 7, 8, 10, 11 }, "i64")
      C.array_eq(ov, { 104, 106, 107, 109, 110 }, "f32")
    end)
  end)

  describe("bad input", function()
    local function context_works()
      local r, total = mgpu.scan(ctx:array { 1, 2, 3 })
      C.array_eq(r, { 0, 1, 3 }, "i32", "scan after the error")
      assert.are.equal(6, total)
      assert.are.equal(3, mgpu.reduce(ctx:array { 1, 3, 2 }, "max"))
      C.array_eq(mgpu.sorted_search(ctx:array { 2 }, ctx:array { 1, 3 }), { 2 }, "i32",
        "sorted_search after the error")
      C.array_eq(mgpu.unique(ctx:array { 1, 1, 2 }), { 1, 2 }, "i32", "unique after the error")
      C.array_eq(mgpu.compact(ctx:array { 1, 2 }, ctx:array { 0, 1 }), { 2 }, "i32",
        "compact after the error")
    end
    local h = C.bad_input_harness(context_works)
    local guard, E = h.guard, h.E
    before_each(h.reset)

    local A = { 1, 3, 5, 7 }

    it("scan: a not an array, bad options, op, inclusive", function()
      local a = ctx:array(A)
      guard { { a, A } }
      E(function() return mgpu.scan() end, "mgpu.scan", W("a"))
      E(function() return mgpu.scan(42) end, "mgpu.scan", W("a"), "number")
      E(function() return mgpu.scan({ 1, 2 }) end, "mgpu.scan", W("a"), "table")
      E(function() return mgpu.scan(ctx) end, "mgpu.scan", W("a"))
      E(function() return mgpu.scan(a, 5) end, "mgpu.scan", "option")
      E(function() return mgpu.scan(a, "add") end, "mgpu.scan", "option")
      E(function() return mgpu.scan(a, { x = 1 }) end, "mgpu.scan", "unknown option", "'x'")
      E(function() return mgpu.scan(a, { comp = "less" }) end, "mgpu.scan", "unknown option", "'comp'")
      for _, bad in ipairs { "mul", "ADD", "sum", "" } do
        E(function() return mgpu.scan(a, { op = bad }) end, "mgpu.scan", W("op"), C.lit(bad))
      end
      E(function() return mgpu.scan(a, { op = 1 }) end, "mgpu.scan", W("op"))
      E(function() return mgpu.scan(a, { op = true }) end, "mgpu.scan", W("op"))
      E(function() return mgpu.scan(a, { inclusive = 1 }) end, "mgpu.scan", W("inclusive"))
      E(function() return mgpu.scan(a, { inclusive = "yes" }) end, "mgpu.scan", W("inclusive"))
    end)

    it("scan: out of another dtype or length, not an array, overlapping, freed", function()
      local a = ctx:array(A)
      local o64 = ctx:zeros(4, "i64")
      local o3 = ctx:zeros(3)
      guard { { a, A }, { o64, { 0, 0, 0, 0 } }, { o3, { 0, 0, 0 } } }
      E(function() return mgpu.scan(a, { out = o64 }) end, "mgpu.scan", W("out"), "i64")
      E(function() return mgpu.scan(a, { out = o3 }) end, "mgpu.scan", W("out"), W("3"))
      E(function() return mgpu.scan(a, { out = { 0, 0, 0, 0 } }) end, "mgpu.scan", W("out"), "table")
      E(function() return mgpu.scan(a, { out = 7 }) end, "mgpu.scan", W("out"))
      -- partial overlap (in place is exactly out = a)
      local big = ctx:iota(6)
      guard { { a, A }, { big, R.iota(6) } }
      E(function() return mgpu.scan(big:slice(1, 4), { out = big:slice(2, 5) }) end,
        "mgpu.scan", W("out"), "overlap")
      local f = ctx:array(A)
      f:free()
      E(function() return mgpu.scan(f) end, "mgpu", FREED)
      E(function() return mgpu.scan(a, { out = f }) end, "mgpu", FREED)
      local other = mgpu.context { device = device }
      local oo = other:zeros(4)
      E(function() return mgpu.scan(a, { out = oo }) end, "mgpu.scan", "context")
    end)

    it("reduce: a not an array, bad op, min or max of nothing", function()
      local a = ctx:array(A)
      guard { { a, A } }
      E(function() return mgpu.reduce() end, "mgpu.reduce", W("a"))
      E(function() return mgpu.reduce({ 1, 2 }) end, "mgpu.reduce", W("a"), "table")
      E(function() return mgpu.reduce(3) end, "mgpu.reduce", W("a"), "number")
      for _, bad in ipairs { "mul", "Min", "prod" } do
        E(function() return mgpu.reduce(a, bad) end, "mgpu.reduce", W("op"), C.lit(bad))
      end
      E(function() return mgpu.reduce(a, 3) end, "mgpu.reduce", W("op"))
      E(function() return mgpu.reduce(a, { op = "max" }) end, "mgpu.reduce", W("op"))
      for _, dt in ipairs(R.dtypes) do
        E(function() return mgpu.reduce(ctx:zeros(0, dt), "min") end, "mgpu.reduce", "min", "no elements")
        E(function() return mgpu.reduce(ctx:zeros(0, dt), "max") end, "mgpu.reduce", "max", "no elements")
      end
      local f = ctx:array(A)
      f:free()
      E(function() return mgpu.reduce(f) end, "mgpu", FREED)
    end)

    it("sorted_search: arguments not arrays, dtypes differ, bad side, comp, options", function()
      local n, hay = ctx:array { 2, 4 }, ctx:array(A)
      guard { { n, { 2, 4 } }, { hay, A } }
      E(function() return mgpu.sorted_search() end, "mgpu.sorted_search", W("needles"))
      E(function() return mgpu.sorted_search({ 2, 4 }, hay) end, "mgpu.sorted_search", W("needles"), "table")
      E(function() return mgpu.sorted_search(n) end, "mgpu.sorted_search", W("haystack"))
      E(function() return mgpu.sorted_search(n, A) end, "mgpu.sorted_search", W("haystack"), "table")
      E(function() return mgpu.sorted_search(n, ctx:array(A, "i64")) end, "mgpu.sorted_search",
        W("haystack"), "i64")
      E(function() return mgpu.sorted_search(ctx:array({ 2.0 }, "f32"), hay) end, "mgpu.sorted_search",
        "f32", "i32")
      E(function() return mgpu.sorted_search(ctx:array({ 2 }, "u32"), ctx:array({ 2 }, "i32")) end,
        "mgpu.sorted_search", "u32")
      for _, bad in ipairs { "middle", "LEFT", "" } do
        E(function() return mgpu.sorted_search(n, hay, { side = bad }) end, "mgpu.sorted_search", W("side"))
      end
      E(function() return mgpu.sorted_search(n, hay, { side = 1 }) end, "mgpu.sorted_search", W("side"))
      E(function() return mgpu.sorted_search(n, hay, { comp = "bigger" }) end, "mgpu.sorted_search",
        W("comp"), "bigger")
      E(function() return mgpu.sorted_search(n, hay, { comp = 1 }) end, "mgpu.sorted_search", W("comp"))
      E(function() return mgpu.sorted_search(n, hay, { values = hay }) end, "mgpu.sorted_search",
        "unknown option", "'values'")
      E(function() return mgpu.sorted_search(n, hay, "left") end, "mgpu.sorted_search", "option")
      local f = ctx:array(A)
      f:free()
      E(function() return mgpu.sorted_search(n, f) end, "mgpu", FREED)
      E(function() return mgpu.sorted_search(f, hay) end, "mgpu", FREED)
      local other = mgpu.context { device = device }
      E(function() return mgpu.sorted_search(n, other:array(A)) end, "mgpu.sorted_search", "context")
    end)

    it("unique: keys not an array, values of another length, bad counts, options", function()
      local k = ctx:array(A)
      guard { { k, A } }
      E(function() return mgpu.unique() end, "mgpu.unique", W("keys"))
      E(function() return mgpu.unique(A) end, "mgpu.unique", W("keys"), "table")
      E(function() return mgpu.unique(7) end, "mgpu.unique", W("keys"), "number")
      E(function() return mgpu.unique(k, { values = ctx:array { 1 } }) end, "mgpu.unique", W("values"), W("1"))
      E(function() return mgpu.unique(k, { values = ctx:iota(5) }) end, "mgpu.unique", W("values"), W("5"))
      E(function() return mgpu.unique(k, { values = { 1, 2, 3, 4 } }) end, "mgpu.unique", W("values"), "table")
      E(function() return mgpu.unique(k, { counts = "yes" }) end, "mgpu.unique", W("counts"))
      E(function() return mgpu.unique(k, { counts = 1 }) end, "mgpu.unique", W("counts"))
      E(function() return mgpu.unique(k, { comp = "less" }) end, "mgpu.unique", "unknown option", "'comp'")
      E(function() return mgpu.unique(k, true) end, "mgpu.unique", "option")
      local f = ctx:array(A)
      f:free()
      E(function() return mgpu.unique(f) end, "mgpu", FREED)
      E(function() return mgpu.unique(k, { values = f }) end, "mgpu", FREED)
      local other = mgpu.context { device = device }
      E(function() return mgpu.unique(k, { values = other:iota(4) }) end, "mgpu.unique", "context")
    end)

    it("compact: arguments not arrays, float flags, lengths differ, options", function()
      local d, fl = ctx:array(A), ctx:array { 1, 0, 1, 0 }
      guard { { d, A }, { fl, { 1, 0, 1, 0 } } }
      E(function() return mgpu.compact() end, "mgpu.compact", W("data"))
      E(function() return mgpu.compact(A, fl) end, "mgpu.compact", W("data"), "table")
      E(function() return mgpu.compact(d) end, "mgpu.compact", W("flags"))
      E(function() return mgpu.compact(d, { 1, 0, 1, 0 }) end, "mgpu.compact", W("flags"), "table")
      for _, fdt in ipairs { "f32", "f64" } do
        E(function() return mgpu.compact(d, ctx:array({ 1, 0, 1, 0 }, fdt)) end, "mgpu.compact",
          W("flags"), fdt)
      end
      E(function() return mgpu.compact(d, ctx:array { 1, 0 }) end, "mgpu.compact", W("flags"), W("2"))
      E(function() return mgpu.compact(d, fl, { values = ctx:iota(3) }) end, "mgpu.compact",
        W("values"), W("3"))
      E(function() return mgpu.compact(d, fl, { values = A }) end, "mgpu.compact", W("values"), "table")
      E(function() return mgpu.compact(d, fl, { counts = true }) end, "mgpu.compact",
        "unknown option", "'counts'")
      E(function() return mgpu.compact(d, fl, 1) end, "mgpu.compact", "option")
      local f = ctx:array(A)
      f:free()
      E(function() return mgpu.compact(f, fl) end, "mgpu", FREED)
      E(function() return mgpu.compact(d, f) end, "mgpu", FREED)
      local other = mgpu.context { device = device }
      E(function() return mgpu.compact(d, other:array { 1, 0, 1, 0 }) end, "mgpu.compact", "context")
    end)
  end)
end)

---------------------------------------------------------------------------
-- large inputs: cuda against cpu, byte for byte

backends.cuda_vs_cpu(function(gpu, cpu)
  local N = 3000001

  -- runs f(ctx, x) on x (a cpu array) and on its copy on gpu; every result
  -- must be equal (arrays byte for byte, numbers by R.same).
  local function same(x, dt, f, what)
    local r1 = table.pack(f(x))
    local r2 = table.pack(f(x:to(gpu)))
    assert.are.equal(r1.n, r2.n, what .. ": result counts")
    for i = 1, r1.n do
      if type(r1[i]) == "userdata" then
        assert.are.equal(gpu.device, r2[i].device)
        C.same_array(r2[i], r1[i], what .. " result " .. i)
      else
        assert.is_true(R.same(r2[i], r1[i], dt),
          string.format("%s result %d: cuda %s, cpu %s", what, i, R.show(r2[i], dt), R.show(r1[i], dt)))
      end
    end
  end

  it("scan and reduce of 3*10^6 elements, every dtype and op", function()
    for i, dt in ipairs(R.dtypes) do
      local lo, hi = R.range(dt)
      if R.is_float(dt) then lo, hi = -1e6, 1e6 end
      local x = cpu:random(N, lo, hi, dt, 600 + i)
      if R.is_float(dt) then
        for j = 1, N, 99991 do x[j] = (j % 2 == 0) and nan or -0.0 end
      end
      for _, op in ipairs { "min", "max", R.is_int(dt) and "add" or nil } do
        for _, inclusive in ipairs { false, true } do
          same(x, dt, function(a) return mgpu.scan(a, { op = op, inclusive = inclusive }) end,
            string.format("scan %s %s %s", dt, op, kind(inclusive)))
        end
        same(x, dt, function(a) return mgpu.reduce(a, op) end, "reduce " .. dt .. " " .. op)
      end
      if R.is_float(dt) then
        -- exact sums: integers in [-20, 20] as floats
        local e = cpu:random(N, -20, 20, "i32", 700 + i):astype(dt)
        for _, inclusive in ipairs { false, true } do
          same(e, dt, function(a) return mgpu.scan(a, { inclusive = inclusive }) end,
            string.format("scan %s add %s", dt, kind(inclusive)))
        end
        same(e, dt, function(a) return mgpu.reduce(a) end, "reduce " .. dt .. " add")
      end
    end
  end)

  it("sorted_search, unique and compact of 3*10^6 elements", function()
    for i, dt in ipairs(R.dtypes) do
      -- needles from just below the haystack's first element to past its last
      local hay = cpu:sorted_random(N, 10, 100000, dt, 800 + i)
      local needles = cpu:sorted_random(N // 3, 0, 100010, dt, 900 + i)
      for _, comp in ipairs { "less", "greater" } do
        local h, nd = hay, needles
        if comp == "greater" then
          h, nd = hay:copy(), needles:copy()
          mgpu.mergesort(h, { comp = "greater" })
          mgpu.mergesort(nd, { comp = "greater" })
        end
        for _, side in ipairs { "left", "right" } do
          local r1 = mgpu.sorted_search(nd, h, { side = side, comp = comp })
          local r2 = mgpu.sorted_search(nd:to(gpu), h:to(gpu), { side = side, comp = comp })
          C.same_array(r2, r1, string.format("sorted_search %s %s %s", dt, side, comp))
        end
      end
      local vals = cpu:iota(N, 1, 1, "u32")
      local r1 = table.pack(mgpu.unique(hay, { values = vals, counts = true }))
      local r2 = table.pack(mgpu.unique(hay:to(gpu), { values = vals:to(gpu), counts = true }))
      for k = 1, 3 do C.same_array(r2[k], r1[k], "unique " .. dt .. " result " .. k) end
      local flags = cpu:random(N, 0, 1, INT_DTYPES[i % 4 + 1], 950 + i)
      local c1, cv1 = mgpu.compact(hay, flags, { values = vals })
      local c2, cv2 = mgpu.compact(hay:to(gpu), flags:to(gpu), { values = vals:to(gpu) })
      C.same_array(c2, c1, "compact " .. dt)
      C.same_array(cv2, cv1, "compact values " .. dt)
    end
  end)
end)
