-- Arrays: dtypes, constructors (module level and context methods), element
-- access, totable/tobytes/frombytes, copy, slices, fill, astype, to,
-- is_sorted, tostring, lifetime, and the exchange of 64-bit values.

local mgpu = require "mgpu"
local R = require "helpers.reference"
local C = require "helpers.check"
local backends = require "helpers.backends"

local nan, inf = R.nan, R.inf
local f32 = R.round_f32

-- Valid element values of each dtype, as they read back.
local samples = {
  i32 = { 0, 1, -1, 7, R.I32_MAX, R.I32_MIN, 123456789, -98765, 16777217, -16777217 },
  u32 = { 0, 1, 7, 0x7fffffff, 0x80000000, 0x80000001, 3000000000, R.U32_MAX, 16777217 },
  i64 = { 0, -1, 7, (1 << 53) + 1, -(1 << 53) - 1, math.maxinteger, math.mininteger,
          1 << 62, 0x123456789abcdef, (1 << 60) + (1 << 36) + 1, 1 << 31, -(1 << 31) - 1,
          (1 << 32) + 5, 16777217 },
  u64 = { 0, 1, 7, (1 << 53) + 1, math.maxinteger, math.mininteger, math.mininteger + 1,
          -1, -2, -12345, -(1 << 10), (1 << 60) + (1 << 36) + 1, 0xffffffff, 1 << 32 },
  f64 = { 0.0, -0.0, 0.1, -2.5, 1.5, 2.5, -2.9, 0.9999, -0.9999, 1e308, 5e-324, inf, -inf, nan,
          2.0 ^ 53 + 2, 3e9, -3e9, 2.0 ^ 31, 2.0 ^ 31 - 0.5, -2.0 ^ 31 - 0.5, -2.0 ^ 31 - 1,
          2.0 ^ 32, 2.0 ^ 32 - 0.5, 2.0 ^ 63, -2.0 ^ 63, 2.0 ^ 64, 2.0 ^ 64 - 2048,
          2.0 ^ 63 - 1024, 1e300, -1e300, 3.5e38, 1e-46, 1e-40, 16777217.0, 16777219.0,
          -0.5, 4294967295.5 },
}
samples.f32 = {}
for i, v in ipairs(samples.f64) do samples.f32[i] = f32(v) end

local function rep(v, n)
  local t = {}
  for i = 1, n do t[i] = v end
  return t
end

local function module_level(ctx, fn)
  local old = mgpu.default_context()
  mgpu.default_context(ctx)
  local res = table.pack(pcall(fn))
  mgpu.default_context(old)
  if not res[1] then error(res[2], 0) end
  return table.unpack(res, 2, res.n)
end

describe("mgpu.dtypes", function()
  it("lists the six dtype names", function()
    assert.is_table(mgpu.dtypes)
    local set = {}
    for _, d in ipairs(mgpu.dtypes) do set[d] = true end
    assert.are.equal(6, #mgpu.dtypes)
    for _, d in ipairs(R.dtypes) do assert.is_true(set[d], d) end
  end)
end)

backends.each(function(ctx, device)
  local want_device = (device == "cuda") and "cuda:0" or device

  describe("dtypes", function()
    it("every dtype round-trips its values, limits included", function()
      for _, dt in ipairs(R.dtypes) do
        local a = ctx:array(samples[dt], dt)
        assert.are.equal(dt, a.dtype)
        assert.are.equal(#samples[dt], #a)
        C.array_eq(a, samples[dt], dt, dt)
        for i = 1, #a do
          assert.is_true(R.same(a[i], samples[dt][i], dt), dt .. " a[" .. i .. "]")
        end
      end
    end)

    it("integer dtypes give Lua integers, float dtypes Lua floats", function()
      for _, dt in ipairs(R.dtypes) do
        local a = ctx:array({ 1, 2 }, dt)
        local want = R.is_float(dt) and "float" or "integer"
        assert.are.equal(want, math.type(a[1]), dt)
        assert.are.equal(want, math.type(a:totable()[2]), dt)
      end
    end)

    it("accepts the aliases", function()
      local alias = { int32 = "i32", uint32 = "u32", int64 = "i64", uint64 = "u64",
                      float32 = "f32", float64 = "f64" }
      for name, dt in pairs(alias) do
        assert.are.equal(dt, ctx:zeros(3, name).dtype, name)
        assert.are.equal(dt, ctx:array({ 1, 2 }, name).dtype, name)
        assert.are.equal(dt, ctx:iota(2, name).dtype, name)
        assert.are.equal(dt, ctx:iota(2):astype(name).dtype, name)
      end
    end)

    it("i64 keeps values beyond 2^53 exact", function()
      local t = { (1 << 53) + 1, (1 << 53) + 3, math.maxinteger, math.maxinteger - 1,
                  -(1 << 53) - 1, math.mininteger + 1 }
      local a = ctx:array(t)
      assert.are.equal("i64", a.dtype)
      C.array_eq(a, t, "i64")
      a[1] = (1 << 62) + 1
      assert.are.equal((1 << 62) + 1, a[1])
      C.bytes_eq(a:tobytes(), R.pack(a:totable(), "i64"), 8)
    end)

    it("u32 holds values above 2^31", function()
      local a = ctx:array({ 0x80000000, R.U32_MAX, 3000000000 }, "u32")
      C.array_eq(a, { 0x80000000, R.U32_MAX, 3000000000 }, "u32")
      assert.are.equal(string.pack("I4I4I4", 0x80000000, R.U32_MAX, 3000000000), a:tobytes())
      a[2] = 4000000000
      assert.are.equal(4000000000, a[2])
    end)

    it("u64 exchanges values >= 2^63 as Lua integers with the same bits", function()
      local a = ctx:array({ -1, math.mininteger, 5 }, "u64")
      assert.are.equal(string.pack("I8I8I8", -1, math.mininteger, 5), a:tobytes())
      C.array_eq(a, { -1, math.mininteger, 5 }, "u64")
      -- a float in [2^63, 2^64) is accepted
      a[3] = 2.0 ^ 63
      assert.are.equal(math.mininteger, a[3])
      a[3] = 2.0 ^ 64 - 2048
      assert.are.equal(-2048, a[3])
      local b = ctx:array({ 2.0 ^ 63, 1.0 }, "u64")
      C.array_eq(b, { math.mininteger, 1 }, "u64")
    end)

    it("integer dtypes accept floats with an exact integer value", function()
      for _, dt in ipairs { "i32", "u32", "i64", "u64" } do
        local a = ctx:array({ 1.0, 2.0, 300.0 }, dt)
        C.array_eq(a, { 1, 2, 300 }, dt, dt)
        a[1] = 42.0
        assert.are.equal(42, a[1])
        assert.are.equal("integer", math.type(a[1]))
      end
    end)

    it("float dtypes take any number, rounding to nearest for f32", function()
      local t = { 0.1, 3.5e38, 1e-46, 16777217.0, 16777219, -1e300, 7 }
      C.array_eq(ctx:array(t, "f32"), R.astype(t, "f64", "f32"), "f32")
      local a = ctx:zeros(2, "f32")
      a[1] = 0.1
      assert.are.equal(f32(0.1), a[1])
      a[2] = 123456789
      assert.are.equal(f32(123456789.0), a[2])
      local b = ctx:array({ 1, 2.5, (1 << 53) + 1 }, "f64")
      C.array_eq(b, { 1.0, 2.5, 2.0 ^ 53 }, "f64")
    end)
  end)

  describe("constructors", function()
    it("array() infers i32, i64 or f64", function()
      local cases = {
        { {}, "i32" },
        { { 1, 2, 3 }, "i32" },
        { { R.I32_MIN, R.I32_MAX }, "i32" },
        { { 1, R.I32_MAX + 1 }, "i64" },
        { { R.I32_MIN - 1, 0 }, "i64" },
        { { 1, 1 << 40 }, "i64" },
        { { 1, 2.5 }, "f64" },
        { { 1, 2.0 }, "f64" },
        { { 1 << 40, 0.5 }, "f64" },
        { { nan }, "f64" },
      }
      for _, c in ipairs(cases) do
        assert.are.equal(c[2], R.infer_dtype(c[1]))   -- the reference agrees
        local a = ctx:array(c[1])
        assert.are.equal(c[2], a.dtype, "array of " .. #c[1] .. " values")
        local want = {}
        for i, v in ipairs(c[1]) do want[i] = R.to_element(v, c[2]) end
        C.array_eq(a, want, c[2])
      end
    end)

    it("array() with a dtype converts the values", function()
      C.array_eq(ctx:array({ 1, 2, 3 }, "f64"), { 1.0, 2.0, 3.0 }, "f64")
      C.array_eq(ctx:array({ 1, 2, 3 }, "u64"), { 1, 2, 3 }, "u64")
    end)

    it("empty(n [, dtype]) defaults to i32", function()
      local a = ctx:empty(10)
      assert.are.equal("i32", a.dtype)
      assert.are.equal(10, #a)
      local b = ctx:empty(7, "f64")
      assert.are.equal("f64", b.dtype)
      assert.are.equal(7, #b)
      local z = ctx:empty(0, "u64")
      assert.are.equal(0, #z)
      assert.are.same({}, z:totable())
      assert.are.equal("", z:tobytes())
    end)

    it("zeros(n [, dtype]) gives +0 in every dtype", function()
      local a = ctx:zeros(5)
      assert.are.equal("i32", a.dtype)
      C.array_eq(a, { 0, 0, 0, 0, 0 }, "i32")
      for _, dt in ipairs(R.dtypes) do
        local z = ctx:zeros(1000, dt)
        assert.are.equal(dt, z.dtype)
        assert.are.equal(1000, #z)
        C.bytes_eq(z:tobytes(), string.rep("\0", 1000 * R.size[dt]), R.size[dt], dt)
      end
    end)

    it("fill(n, v [, dtype]) infers the dtype from v", function()
      local a = ctx:fill(4, 7)
      assert.are.equal("i32", a.dtype)
      C.array_eq(a, { 7, 7, 7, 7 }, "i32")
      local b = ctx:fill(3, 1 << 40)
      assert.are.equal("i64", b.dtype)
      C.array_eq(b, { 1 << 40, 1 << 40, 1 << 40 }, "i64")
      local c = ctx:fill(3, 2.5)
      assert.are.equal("f64", c.dtype)
      C.array_eq(c, { 2.5, 2.5, 2.5 }, "f64")
      local d = ctx:fill(3, -1, "u64")
      C.array_eq(d, { -1, -1, -1 }, "u64")
      local e = ctx:fill(2, -0.0, "f32")
      C.array_eq(e, { -0.0, -0.0 }, "f32")
      local f = ctx:fill(3, nan, "f64")
      C.array_eq(f, { nan, nan, nan }, "f64")
      assert.are.equal(0, #ctx:fill(0, 1))
      for _, dt in ipairs(R.dtypes) do
        for _, v in ipairs { samples[dt][4], samples[dt][6] } do
          C.array_eq(ctx:fill(1001, v, dt), rep(v, 1001), dt, dt)
        end
      end
    end)

    it("iota(n [, start [, step]] [, dtype])", function()
      C.array_eq(ctx:iota(5), { 1, 2, 3, 4, 5 }, "i32")
      C.array_eq(ctx:iota(4, 0), { 0, 1, 2, 3 }, "i32")
      C.array_eq(ctx:iota(3, 1, 2), { 1, 3, 5 }, "i32")
      C.array_eq(ctx:iota(5, 10, -2), { 10, 8, 6, 4, 2 }, "i32")
      C.array_eq(ctx:iota(3, "f32"), { 1.0, 2.0, 3.0 }, "f32")
      C.array_eq(ctx:iota(3, 0, "i64"), { 0, 1, 2 }, "i64")
      C.array_eq(ctx:iota(3, 5, 5, "u32"), { 5, 10, 15 }, "u32")
      C.array_eq(ctx:iota(4, 0.5), { 0.5, 1.5, 2.5, 3.5 }, "f64")
      C.array_eq(ctx:iota(3, 0, 0.25), { 0.0, 0.25, 0.5 }, "f64")
      assert.are.equal(0, #ctx:iota(0))
      -- 100000 elements: i32 arithmetic
      C.array_eq(ctx:iota(100000, -50000, 3), R.iota(100000, -50000, 3), "i32")
      -- u64 iota beyond 2^63
      C.array_eq(ctx:iota(3, math.maxinteger, 1, "u64"),
        { math.maxinteger, math.mininteger, math.mininteger + 1 }, "u64")
    end)

    it("iota infers its dtype from all the values", function()
      -- start fits i32 but later values do not
      local a = ctx:iota(10, R.I32_MAX - 4)
      assert.are.equal("i64", a.dtype)
      C.array_eq(a, R.iota(10, R.I32_MAX - 4), "i64")
      local b = ctx:iota(2, R.I32_MIN + 1, -1)
      assert.are.equal("i32", b.dtype)
      C.array_eq(b, { R.I32_MIN + 1, R.I32_MIN }, "i32")
      local c = ctx:iota(3, R.I32_MIN + 1, -1)
      assert.are.equal("i64", c.dtype)
      C.array_eq(c, R.iota(3, R.I32_MIN + 1, -1), "i64")
      local d = ctx:iota(3, (1 << 53) + 1, 2)
      assert.are.equal("i64", d.dtype)
      C.array_eq(d, { (1 << 53) + 1, (1 << 53) + 3, (1 << 53) + 5 }, "i64")
    end)

    it("random(n, lo, hi, dtype, seed) stays in range and covers it", function()
      local a = ctx:random(5000, -5, 5, "i32", 1)
      assert.are.equal("i32", a.dtype)
      assert.are.equal(5000, #a)
      local seen = {}
      for _, v in ipairs(a:totable()) do
        assert.is_true(v >= -5 and v <= 5, "out of range: " .. v)
        seen[v] = true
      end
      for v = -5, 5 do assert.is_true(seen[v], "value never drawn: " .. v) end
    end)

    it("random covers the full width of every integer dtype", function()
      local u = ctx:random(2000, 0, R.U32_MAX, "u32", 2):totable()
      local big = 0
      for _, v in ipairs(u) do
        assert.is_true(v >= 0 and v <= R.U32_MAX)
        if v > 0x80000000 then big = big + 1 end
      end
      assert.is_true(big > 500, "u32 values above 2^31: " .. big)

      local i = ctx:random(2000, math.mininteger, math.maxinteger, "i64", 3):totable()
      local neg, odd_big = 0, 0
      for _, v in ipairs(i) do
        if v < 0 then neg = neg + 1 end
        if v > (1 << 53) and v % 2 == 1 then odd_big = odd_big + 1 end
      end
      assert.is_true(neg > 500, "negative i64: " .. neg)
      assert.is_true(odd_big > 100, "odd i64 above 2^53: " .. odd_big)

      local w = ctx:random(2000, 0, -1, "u64", 4):totable()
      local top = 0
      for _, v in ipairs(w) do if v < 0 then top = top + 1 end end
      assert.is_true(top > 500 and top < 1500, "u64 values >= 2^63: " .. top)

      local n = ctx:random(1000, math.mininteger, math.mininteger + 10, "u64", 5):totable()
      for _, v in ipairs(n) do
        assert.is_true(not math.ult(v, math.mininteger) and not math.ult(math.mininteger + 10, v),
          "u64 out of [2^63, 2^63+10]: " .. R.show(v, "u64"))
      end

      local h = ctx:random(1000, 0xfffffff0, R.U32_MAX, "u32", 6):totable()
      for _, v in ipairs(h) do assert.is_true(v >= 0xfffffff0 and v <= R.U32_MAX) end

      local k = ctx:random(1000, (1 << 53), (1 << 53) + 10, "i64", 7):totable()
      local distinct = {}
      for _, v in ipairs(k) do
        assert.is_true(v >= (1 << 53) and v <= (1 << 53) + 10)
        distinct[v] = true
      end
      local nd = 0
      for _ in pairs(distinct) do nd = nd + 1 end
      assert.is_true(nd == 11, "distinct i64 values near 2^53: " .. nd)
    end)

    it("random floats lie in [lo, hi)", function()
      local a = ctx:random(5000, -1.0, 1.0, "f32", 8):totable()
      local lo, hi = 1, -1
      for _, v in ipairs(a) do
        assert.is_true(v >= -1.0 and v < 1.0, "f32 out of range: " .. v)
        assert.are.equal(f32(v), v)
        lo, hi = math.min(lo, v), math.max(hi, v)
      end
      assert.is_true(lo < -0.9 and hi > 0.9)
      local b = ctx:random(5000, 10.0, 20.0, "f64", 9):totable()
      local distinct = {}
      for _, v in ipairs(b) do
        assert.is_true(v >= 10.0 and v < 20.0, "f64 out of range: " .. v)
        distinct[v] = true
      end
      local nd = 0
      for _ in pairs(distinct) do nd = nd + 1 end
      assert.is_true(nd > 4900)
    end)

    it("random with lo == hi gives that value", function()
      C.array_eq(ctx:random(50, 7, 7, "i32", 1), R.iota(50, 7, 0), "i32")
      C.array_eq(ctx:random(50, -1, -1, "u64", 1), R.iota(50, -1, 0), "u64")
    end)

    it("random infers the dtype from lo and hi", function()
      assert.are.equal("i32", ctx:random(10, 0, 9).dtype)
      assert.are.equal("i64", ctx:random(10, 0, 1 << 40).dtype)
      assert.are.equal("f64", ctx:random(10, 0.0, 1.0).dtype)
    end)

    it("random: the same seed repeats, another seed or no seed differs", function()
      for _, dt in ipairs(R.dtypes) do
        local lo, hi = 0, 1000000
        if R.is_float(dt) then lo, hi = 0.0, 1.0 end
        local a = ctx:random(1000, lo, hi, dt, 77)
        local b = ctx:random(1000, lo, hi, dt, 77)
        local c = ctx:random(1000, lo, hi, dt, 78)
        local d = ctx:random(1000, lo, hi, dt)
        local e = ctx:random(1000, lo, hi, dt)
        assert.are.equal(a:tobytes(), b:tobytes(), dt)
        assert.are_not.equal(a:tobytes(), c:tobytes(), dt)
        assert.are_not.equal(d:tobytes(), e:tobytes(), dt)
      end
    end)

    it("random: element i depends on (seed, i) only, not on n", function()
      local a = ctx:random(1000, 0, 1 << 30, "i32", 5)
      local b = ctx:random(300, 0, 1 << 30, "i32", 5)
      C.table_eq(b:totable(), a:totable(1, 300), "i32")
    end)

    it("sorted_random is random() sorted ascending", function()
      for _, dt in ipairs(R.dtypes) do
        local lo, hi = -100, 100
        if dt == "u32" or dt == "u64" then lo = 0 end
        if R.is_float(dt) then lo, hi = -1.0, 1.0 end
        local s = ctx:sorted_random(3000, lo, hi, dt, 99)
        local r = ctx:random(3000, lo, hi, dt, 99)
        assert.are.equal(dt, s.dtype)
        local st = s:totable()
        assert.is_true(R.is_sorted(st, dt, "less"), dt .. " not sorted")
        C.table_eq(st, (R.mergesort(r:totable(), dt, "less")), dt, dt)
      end
      local t = ctx:sorted_random(2000, 0, 99):totable()
      assert.is_true(R.is_sorted(t, "i32", "less"))
      for _, v in ipairs(t) do assert.is_true(v >= 0 and v <= 99) end
    end)

    it("frombytes/tobytes round-trip every dtype", function()
      for _, dt in ipairs(R.dtypes) do
        local bytes = R.pack(samples[dt], dt)
        local a = ctx:frombytes(bytes, dt)
        assert.are.equal(dt, a.dtype)
        assert.are.equal(#samples[dt], #a)
        assert.are.equal(bytes, a:tobytes(), dt)
        C.array_eq(a, samples[dt], dt, dt)
        -- array() and frombytes() agree
        C.table_eq(R.unpack(ctx:array(samples[dt], dt):tobytes(), dt), samples[dt], dt, dt)
      end
      local e = ctx:frombytes("", "f64")
      assert.are.equal(0, #e)
      assert.are.equal("f64", e.dtype)
      assert.are.equal("i64", ctx:frombytes(string.pack("i8", -5), "int64").dtype)
    end)

    it("every constructor also works at module level on the default context", function()
      local made = module_level(ctx, function()
        return {
          array = mgpu.array({ 1, 2, 3 }),
          array_dt = mgpu.array({ 1, 2, 3 }, "u64"),
          empty = mgpu.empty(4),
          zeros = mgpu.zeros(3, "f32"),
          fill = mgpu.fill(3, 2.5),
          iota = mgpu.iota(4, 0, 2, "i64"),
          random = mgpu.random(100, 0, 9, "i32", 11),
          sorted_random = mgpu.sorted_random(100, 0, 9, "i32", 11),
          frombytes = mgpu.frombytes(string.pack("i4i4", 5, -6), "i32"),
        }
      end)
      for name, a in pairs(made) do
        assert.is_true(a.context == ctx, name .. " is not on the default context")
        assert.are.equal(want_device, a.device, name)
      end
      C.array_eq(made.array, { 1, 2, 3 }, "i32")
      C.array_eq(made.array_dt, { 1, 2, 3 }, "u64")
      assert.are.equal(4, #made.empty)
      assert.are.equal("i32", made.empty.dtype)
      C.array_eq(made.zeros, { 0.0, 0.0, 0.0 }, "f32")
      C.array_eq(made.fill, { 2.5, 2.5, 2.5 }, "f64")
      C.array_eq(made.iota, { 0, 2, 4, 6 }, "i64")
      assert.are.equal(ctx:random(100, 0, 9, "i32", 11):tobytes(), made.random:tobytes())
      assert.are.equal(ctx:sorted_random(100, 0, 9, "i32", 11):tobytes(), made.sorted_random:tobytes())
      C.array_eq(made.frombytes, { 5, -6 }, "i32")
    end)
  end)

  describe("fields and element access", function()
    it("#a, a.dtype, a.device, a.context", function()
      local a = ctx:iota(37, "u32")
      assert.are.equal(37, #a)
      assert.are.equal("u32", a.dtype)
      assert.are.equal(want_device, a.device)
      assert.is_true(a.context == ctx)
    end)

    it("a[i] reads and a[i] = v writes, 1-based", function()
      local a = ctx:iota(10)
      assert.are.equal(1, a[1])
      assert.are.equal(10, a[10])
      a[1] = -5
      a[10] = 99
      a[5] = R.I32_MAX
      C.array_eq(a, { -5, 2, 3, 4, R.I32_MAX, 6, 7, 8, 9, 99 }, "i32")
    end)

    it("a[i] is range checked; reads past the end give nil, as a table's do", function()
      local a = ctx:iota(10)
      for _, i in ipairs { 0, 11, -1, 1000 } do
        if i > 10 then
          assert.is_nil(a[i])
        else
          C.raises(function() return a[i] end, "mgpu.array", "index", C.word(tostring(i)))
        end
        C.raises(function() a[i] = 1 end, "mgpu.array", "index", C.word(tostring(i)))
      end
      C.array_eq(a, R.iota(10), "i32")
    end)

    it("totable with ranges and negative indices", function()
      local a = ctx:iota(10)
      C.table_eq(a:totable(), R.iota(10), "i32")
      C.table_eq(a:totable(3), { 3, 4, 5, 6, 7, 8, 9, 10 }, "i32")
      C.table_eq(a:totable(3, 5), { 3, 4, 5 }, "i32")
      C.table_eq(a:totable(-3), { 8, 9, 10 }, "i32")
      C.table_eq(a:totable(-3, -2), { 8, 9 }, "i32")
      C.table_eq(a:totable(2, -2), { 2, 3, 4, 5, 6, 7, 8, 9 }, "i32")
      C.table_eq(a:totable(-10, 1), { 1 }, "i32")
      C.table_eq(a:totable(5, 4), {}, "i32")
      C.table_eq(a:totable(10, 10), { 10 }, "i32")
    end)

    it("copy() is a new array with the same elements", function()
      for _, dt in ipairs(R.dtypes) do
        local a = ctx:array(samples[dt], dt)
        local b = a:copy()
        assert.is_false(rawequal(a, b))
        assert.are.equal(dt, b.dtype)
        assert.is_true(b.context == ctx)
        assert.are.equal(a:tobytes(), b:tobytes())
        b[1] = samples[dt][2]
        C.array_eq(a, samples[dt], dt, dt .. " original after writing the copy")
      end
    end)

    it("fill(v) sets every element and returns the array", function()
      local a = ctx:iota(1000)
      assert.is_true(rawequal(a:fill(-3), a))
      C.array_eq(a, R.iota(1000, -3, 0), "i32")
      local f = ctx:zeros(5, "f64")
      f:fill(nan)
      C.array_eq(f, { nan, nan, nan, nan, nan }, "f64")
      local u = ctx:zeros(3, "u64")
      u:fill(math.mininteger)
      C.array_eq(u, { math.mininteger, math.mininteger, math.mininteger }, "u64")
      local g = ctx:zeros(3, "f32")
      g:fill(0.1)
      C.array_eq(g, { f32(0.1), f32(0.1), f32(0.1) }, "f32")
    end)
  end)

  describe("slices", function()
    it("a view shares memory with its parent, both ways", function()
      local a = ctx:iota(20)
      local v = a:slice(5, 9)
      assert.are.equal(5, #v)
      assert.are.equal("i32", v.dtype)
      C.array_eq(v, { 5, 6, 7, 8, 9 }, "i32")
      v[1] = 100
      v[5] = 200
      assert.are.equal(100, a[5])
      assert.are.equal(200, a[9])
      a[6] = 300
      assert.are.equal(300, v[2])
      assert.is_nil(v[6])
      C.raises(function() v[6] = 1 end, "mgpu.array", "index")
    end)

    it("negative bounds count from the end", function()
      local a = ctx:iota(10)
      C.array_eq(a:slice(-3, -1), { 8, 9, 10 }, "i32")
      C.array_eq(a:slice(2, -2), { 2, 3, 4, 5, 6, 7, 8, 9 }, "i32")
      C.array_eq(a:slice(1, 10), R.iota(10), "i32")
    end)

    it("a view of a view", function()
      local a = ctx:iota(100, 0, 1, "f64")
      local v = a:slice(11, 60)
      local w = v:slice(5, 8)
      C.array_eq(w, { 14.0, 15.0, 16.0, 17.0 }, "f64")
      w[2] = -1.5
      assert.are.equal(-1.5, v[6])
      assert.are.equal(-1.5, a[16])
    end)

    it("fill, copy and tobytes of a view touch only the view", function()
      local a = ctx:iota(10)
      local v = a:slice(3, 6)
      v:fill(0)
      C.array_eq(a, { 1, 2, 0, 0, 0, 0, 7, 8, 9, 10 }, "i32")
      local c = v:copy()
      assert.are.equal(4, #c)
      c[1] = 5
      assert.are.equal(0, a[3])
      assert.are.equal(string.pack("i4i4i4i4", 0, 0, 0, 0), v:tobytes())
    end)

    it("keeps its parent's memory alive after the parent is dropped", function()
      local a = ctx:iota(100000)
      local v = a:slice(50001, 50100)
      a = nil
      collectgarbage(); collectgarbage()
      -- allocations that would reuse the parent's memory had it been freed
      local junk = {}
      for i = 1, 4 do junk[i] = ctx:fill(100000, -7) end
      C.array_eq(v, R.iota(100, 50001), "i32")
      local w = v:slice(2, 3)
      v = nil
      collectgarbage(); collectgarbage()
      for i = 1, 4 do junk[i] = ctx:fill(100000, -8) end
      C.array_eq(w, { 50002, 50003 }, "i32")
    end)

    it("freeing the parent leaves the view usable", function()
      local a = ctx:iota(10)
      local v = a:slice(3, 5)
      a:free()
      C.raises(function() return a:totable() end, "mgpu.array", "array has been freed")
      C.array_eq(v, { 3, 4, 5 }, "i32")
      v[1] = 30
      assert.are.equal(30, v[1])
      v:free()
      C.raises(function() return v[1] end, "mgpu.array", "array has been freed")
    end)
  end)

  describe("astype", function()
    it("converts every dtype to every dtype by the documented rules", function()
      for _, from in ipairs(R.dtypes) do
        local src = ctx:array(samples[from], from)
        for _, to in ipairs(R.dtypes) do
          local dst = src:astype(to)
          assert.are.equal(to, dst.dtype)
          assert.is_true(dst.context == ctx)
          C.array_eq(dst, R.astype(samples[from], from, to), to, from .. " -> " .. to)
        end
        C.array_eq(src, samples[from], from, from .. " source after astype")
      end
    end)

    it("converts a large array (multi-block)", function()
      local t = {}
      local rng = R.rng(42)
      for i = 1, 70001 do t[i] = rng:value("f64") end
      local a = ctx:array(t, "f64")
      for _, to in ipairs(R.dtypes) do
        C.array_eq(a:astype(to), R.astype(t, "f64", to), to, "f64 -> " .. to)
      end
      local u = {}
      for i = 1, 70001 do u[i] = rng:value("u64") end
      local b = ctx:array(u, "u64")
      for _, to in ipairs(R.dtypes) do
        C.array_eq(b:astype(to), R.astype(u, "u64", to), to, "u64 -> " .. to)
      end
    end)

    it("converts a view", function()
      local a = ctx:iota(10, -5)
      C.array_eq(a:slice(2, 4):astype("u32"), R.astype({ -4, -3, -2 }, "i32", "u32"), "u32")
    end)
  end)

  describe("to()", function()
    it("copies to every available device and to another context", function()
      local a = ctx:array(samples.f64, "f64")
      for _, dev in ipairs(mgpu.devices()) do
        local b = a:to(dev)
        assert.are.equal(dev, b.device)
        assert.are.equal("f64", b.dtype)
        assert.are.equal(a:tobytes(), b:tobytes(), "to(" .. dev .. ")")
        b[1] = 42.0
        assert.are.equal(0.0, a[1])
        local b2 = a:to(dev)
        assert.is_true(b.context == b2.context, "to(" .. dev .. ") uses one shared context")
      end
      if backends.has_cuda() then
        assert.are.equal("cuda:0", a:to("cuda").device)
      end
      local other = mgpu.context { device = device }
      local c = a:to(other)
      assert.is_true(c.context == other)
      assert.are.equal(a:tobytes(), c:tobytes())
      local v = ctx:iota(100, 0, 1, "u64"):slice(11, 20)
      C.array_eq(v:to("cpu"), R.iota(10, 10), "u64")
    end)
  end)

  describe("is_sorted", function()
    local cases = {
      { "i32", {} }, { "i32", { 5 } }, { "i32", { 1, 2, 2, 3 } }, { "i32", { 3, 2, 2, 1 } },
      { "i32", { 1, 3, 2 } }, { "i32", { R.I32_MIN, -1, 0, R.I32_MAX } },
      { "u32", { 1, 0x80000000, R.U32_MAX } }, { "u32", { R.U32_MAX, 1 } },
      { "i64", { (1 << 53), (1 << 53) + 1 } }, { "i64", { (1 << 53) + 1, (1 << 53) } },
      { "u64", { 1, math.maxinteger, math.mininteger, -1 } }, { "u64", { -1, 1 } },
      { "f64", { -inf, -1.0, -0.0, 0.0, -0.0, 1.0, inf, nan, nan } },
      { "f64", { nan, 1.0 } }, { "f64", { 1.0, nan, 2.0 } }, { "f64", { nan, inf, 0.0, -inf } },
      { "f32", { -0.0, 0.0, -0.0 } }, { "f32", { 1.0, nan } }, { "f32", { nan, -inf } },
    }
    it("agrees with the reference under both comparators", function()
      for k, c in ipairs(cases) do
        local dt, t = c[1], c[2]
        local a = ctx:array(t, dt)
        for _, comp in ipairs { "less", "greater" } do
          assert.are.equal(R.is_sorted(t, dt, comp), a:is_sorted(comp),
            string.format("case %d (%s) comp %s", k, dt, comp))
        end
        assert.are.equal(R.is_sorted(t, dt, "less"), a:is_sorted(), "default comp is less")
      end
    end)

    it("finds a single inversion anywhere in a large array", function()
      local n = 300000
      local a = ctx:iota(n)
      assert.is_true(a:is_sorted())
      assert.is_false(a:is_sorted("greater"))
      for _, pos in ipairs { 2, 1024, 1025, 4353, 150000, n } do
        local old = a[pos]
        a[pos] = a[pos - 1] - 1
        assert.is_false(a:is_sorted(), "inversion at " .. pos)
        a[pos] = old
      end
      assert.is_true(a:is_sorted())
      local d = ctx:iota(n, n, -1, "f32")
      assert.is_true(d:is_sorted("greater"))
      assert.is_false(d:is_sorted("less"))
      d[n] = nan     -- NaN is first under greater, so not at the end
      assert.is_false(d:is_sorted("greater"))
      d[n] = 0.0
      d[1] = nan
      assert.is_true(d:is_sorted("greater"))
    end)
  end)

  describe("tostring", function()
    local function rows(s)
      local lines = {}
      for l in (s .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
      while #lines > 0 and lines[#lines]:match("^%s*$") do lines[#lines] = nil end
      return lines
    end
    local function parse_row(line)
      local toks = {}
      for w in line:gmatch("%S+") do toks[#toks + 1] = w end
      local idx = tonumber((toks[1] or ""):match("^(%d+):?$"))
      local vals = {}
      for i = 2, #toks do vals[#vals + 1] = tonumber(toks[i]) end
      return idx, vals
    end

    it("prints a header and rows of ten with 1-based row indices", function()
      local a = ctx:iota(100, 0)
      local lines = rows(tostring(a))
      assert.are.equal("mgpu.array<i32>[100] " .. want_device, lines[1])
      assert.are.equal(11, #lines)
      for r = 1, 10 do
        local idx, vals = parse_row(lines[r + 1])
        assert.are.equal(10 * (r - 1) + 1, idx, "row " .. r .. ": " .. lines[r + 1])
        C.table_eq(vals, R.iota(10, 10 * (r - 1)), "i32", "row " .. r)
      end
    end)

    it("prints a short last row", function()
      local a = ctx:iota(25, 1, 1, "u64")
      local lines = rows(tostring(a))
      assert.are.equal("mgpu.array<u64>[25] " .. want_device, lines[1])
      assert.are.equal(4, #lines)
      local idx, vals = parse_row(lines[4])
      assert.are.equal(21, idx)
      C.table_eq(vals, { 21, 22, 23, 24, 25 }, "u64")
    end)

    it("elides the middle of arrays over 100 elements", function()
      local a = ctx:iota(101)
      local lines = rows(tostring(a))
      assert.are.equal("mgpu.array<i32>[101] " .. want_device, lines[1])
      assert.are.equal(8, #lines, tostring(a))
      local want_idx = { 1, 11, 21, nil, 81, 91, 101 }
      for k = 1, 7 do
        if k == 4 then
          assert.truthy(lines[5]:match("^%s*%.%.%."), lines[5])
        else
          local idx, vals = parse_row(lines[k + 1])
          assert.are.equal(want_idx[k], idx, lines[k + 1])
          C.table_eq(vals, R.iota(math.min(10, 101 - idx + 1), idx), "i32", "row at " .. idx)
        end
      end
      local big = rows(tostring(ctx:iota(1000000)))
      assert.are.equal(8, #big)
      local idx, vals = parse_row(big[8])
      assert.are.equal(999991, idx)
      C.table_eq(vals, R.iota(10, 999991), "i32")
    end)

    it("prints float and empty arrays", function()
      local f = rows(tostring(ctx:array({ 1.5, -2.25, 0.0 }, "f64")))
      assert.are.equal("mgpu.array<f64>[3] " .. want_device, f[1])
      local idx, vals = parse_row(f[2])
      assert.are.equal(1, idx)
      C.table_eq(vals, { 1.5, -2.25, 0.0 }, "f64")
      local e = rows(tostring(ctx:zeros(0, "f32")))
      assert.are.equal("mgpu.array<f32>[0] " .. want_device, e[1])
    end)
  end)

  describe("lifetime", function()
    it("free() is idempotent and any later use raises", function()
      local a = ctx:iota(10)
      local b = ctx:iota(10)
      a:free()
      a:free()
      local uses = {
        function() return a[1] end,
        function() a[1] = 5 end,
        function() return a:totable() end,
        function() return a:tobytes() end,
        function() return a:copy() end,
        function() return a:slice(1, 2) end,
        function() return a:fill(0) end,
        function() return a:astype("f64") end,
        function() return a:is_sorted() end,
        function() return a:to("cpu") end,
        function() return mgpu.merge(a, b) end,
        function() return mgpu.merge(b, a) end,
        function() return mgpu.mergesort(a) end,
      }
      for k, use in ipairs(uses) do
        if k <= 10 then
          -- methods and element access of the freed array itself
          C.raises(use, "mgpu.array", "array has been freed")
        else
          -- a freed array passed to a primitive: the message may name the
          -- argument instead ("mgpu.merge: b has been freed")
          C.raises(use, "mgpu", "has been freed")
        end
      end
      C.array_eq(b, R.iota(10), "i32")
    end)

    it("__close releases the array; free after close is harmless", function()
      local c2 = mgpu.context { device = device }
      collectgarbage(); collectgarbage()
      local base = c2:info().in_use
      local kept
      do
        local x <close> = c2:zeros(1 << 20, "i32")
        kept = x
        assert.is_true(c2:info().in_use >= base + 4 * (1 << 20))
      end
      assert.are.equal(base, c2:info().in_use)
      C.raises(function() return kept[1] end, "mgpu.array", "array has been freed")
      kept:free()
      do
        local y <close> = c2:zeros(10)
        y:free()
      end
      assert.are.equal(base, c2:info().in_use)
    end)

    it("__gc releases dropped arrays, after free() too", function()
      local c2 = mgpu.context { device = device }
      collectgarbage(); collectgarbage()
      local base = c2:info().in_use
      local a = c2:zeros(1 << 20, "f64")
      local b = c2:zeros(1 << 20, "f64")
      b:free()
      assert.is_true(c2:info().in_use >= base + 8 * (1 << 20))
      a, b = nil, nil
      collectgarbage(); collectgarbage()
      assert.are.equal(base, c2:info().in_use)
    end)

    it("a view's memory goes when the last array sharing it goes", function()
      local c2 = mgpu.context { device = device }
      collectgarbage(); collectgarbage()
      local base = c2:info().in_use
      local a = c2:zeros(1 << 20, "i32")
      local v = a:slice(10, 20)
      a:free()
      assert.is_true(c2:info().in_use >= base + 4 * (1 << 20), "freed while a view lives")
      v:free()
      assert.are.equal(base, c2:info().in_use)
    end)
  end)
end)

backends.cuda_vs_cpu(function(gpu, cpu)
  it("random and sorted_random give the same bytes on cuda and cpu", function()
    local cases = {
      { "i32", -1000, 1000 }, { "i32", R.I32_MIN, R.I32_MAX },
      { "u32", 0, R.U32_MAX }, { "u32", 5, 17 },
      { "i64", math.mininteger, math.maxinteger }, { "i64", -3, 1 << 40 },
      { "u64", 0, -1 }, { "u64", math.mininteger, -1 },
      { "f32", -1.0, 1.0 }, { "f32", 0.0, 1e6 },
      { "f64", -1.0, 1.0 }, { "f64", 1e-3, 1e300 },
    }
    for _, c in ipairs(cases) do
      local dt, lo, hi = c[1], c[2], c[3]
      for _, seed in ipairs { 0, 1, 123456789 } do
        local label = string.format("%s [%s, %s] seed %d", dt, R.show(lo, dt), R.show(hi, dt), seed)
        C.same_array(gpu:random(100003, lo, hi, dt, seed), cpu:random(100003, lo, hi, dt, seed), label)
        C.same_array(gpu:sorted_random(100003, lo, hi, dt, seed),
          cpu:sorted_random(100003, lo, hi, dt, seed), "sorted " .. label)
      end
    end
  end)

  it("iota, fill and astype give the same bytes on cuda and cpu", function()
    C.same_array(gpu:iota(1000001, -7, 3, "f32"), cpu:iota(1000001, -7, 3, "f32"))
    C.same_array(gpu:iota(1000001, 0.5, 0.25), cpu:iota(1000001, 0.5, 0.25))
    C.same_array(gpu:iota(1000001, math.maxinteger - 5, 1 << 40, "u64"),
      cpu:iota(1000001, math.maxinteger - 5, 1 << 40, "u64"))
    local src = cpu:random(1000001, -1e12, 1e12, "f64", 3)
    for _, to in ipairs(R.dtypes) do
      C.same_array(src:to(gpu):astype(to), src:astype(to), "f64 -> " .. to)
    end
  end)
end)
