-- mgpu.mergesort: keys and pairs, in place, stable, both comparators, every
-- dtype, float order, sizes around tile boundaries and multi-pass sizes,
-- sorted and reverse-sorted inputs, slices, and large random sorts (cuda
-- against cpu byte for byte, cpu against the Lua reference).

local mgpu = require "mgpu"
local R = require "helpers.reference"
local C = require "helpers.check"
local G = require "helpers.gen"
local backends = require "helpers.backends"

local nan, inf = R.nan, R.inf

-- Sorts the Lua table keys (dtype dt) on ctx, with values 1..n of dtype vdt
-- (or keys only when vdt is nil), and checks the result is the reference's
-- stable sort.  Returns nothing; fails with the first difference.
local function check_sort(ctx, dt, keys, comp, vdt, label)
  label = label or string.format("%s %s n=%d values %s", dt, tostring(comp), #keys, tostring(vdt))
  local n = #keys
  local k = ctx:array(keys, dt)
  local opts = (comp ~= nil) and { comp = comp } or nil
  if vdt then
    local v = ctx:array(G.index_values(n, vdt), vdt)
    opts = opts or {}
    opts.values = v
    local rk, rv = mgpu.mergesort(k, opts)
    assert.is_true(rawequal(rk, k), label .. ": keys array not returned")
    assert.is_true(rawequal(rv, v), label .. ": values array not returned")
    local gk, gv = k:totable(), v:totable()
    -- values 1..n as integers, whatever their dtype
    local perm = {}
    for i = 1, #gv do perm[i] = math.tointeger(gv[i]) or gv[i] end
    -- a complete check of a stable sort: a permutation, keys moved with
    -- their values, sorted, equal keys in their original order
    C.no_diff(R.check_stable_sort(keys, gk, perm, dt, comp or "less"), label)
  else
    local rk, extra
    if opts then rk, extra = mgpu.mergesort(k, opts) else rk, extra = mgpu.mergesort(k) end
    assert.is_true(rawequal(rk, k), label .. ": keys array not returned")
    assert.is_nil(extra, label .. ": keys-only sort returned values")
    C.array_eq(k, (R.mergesort(keys, dt, comp or "less")), dt, label)
  end
end

backends.each(function(ctx, device)
  describe("basics", function()
    it("sorts keys in place and returns the same array", function()
      local k = ctx:array { 5, 3, 9, 1, 3, -2 }
      local r = mgpu.mergesort(k)
      assert.is_true(rawequal(r, k))
      C.array_eq(k, { -2, 1, 3, 3, 5, 9 }, "i32")
      local r2 = mgpu.mergesort(k, { comp = "greater" })
      assert.is_true(rawequal(r2, k))
      C.array_eq(k, { 9, 5, 3, 3, 1, -2 }, "i32")
      mgpu.mergesort(k, { comp = "less" })
      C.array_eq(k, { -2, 1, 3, 3, 5, 9 }, "i32")
    end)

    it("sorts pairs in place and returns both arrays", function()
      local k = ctx:array { 3, 1, 3, 2, 1 }
      local v = ctx:array({ 10, 20, 30, 40, 50 }, "f64")
      local rk, rv = mgpu.mergesort(k, { values = v })
      assert.is_true(rawequal(rk, k))
      assert.is_true(rawequal(rv, v))
      C.array_eq(k, { 1, 1, 2, 3, 3 }, "i32")
      C.array_eq(v, { 20.0, 50.0, 40.0, 10.0, 30.0 }, "f64")
      mgpu.mergesort(k, { values = v, comp = "greater" })
      C.array_eq(k, { 3, 3, 2, 1, 1 }, "i32")
      C.array_eq(v, { 10.0, 30.0, 40.0, 20.0, 50.0 }, "f64")
    end)

    it("empty, one and two elements", function()
      for _, dt in ipairs(R.dtypes) do
        check_sort(ctx, dt, {}, nil)
        check_sort(ctx, dt, {}, "less", "i32")
        check_sort(ctx, dt, { 1 }, "greater", "f64")
        check_sort(ctx, dt, { 2, 1 }, "less", "u32")
        check_sort(ctx, dt, { 1, 2 }, "greater", "i64")
        check_sort(ctx, dt, { 1, 1 }, "greater", "i32")
      end
    end)

    it("sorts a slice in place, leaving the rest of the parent alone", function()
      local rng = R.rng(7)
      for _, n in ipairs { 10, 5001 } do
        local t = rng:values(n, "i32")
        local big = ctx:fill(n + 7, 12345)
        local s = big:slice(4, n + 3)
        for i = 1, n do s[i] = t[i] end
        local bigv = ctx:fill(n + 3, -1, "i64")
        local sv = bigv:slice(2, n + 1)
        local rv0 = {}
        for i = 1, n do sv[i] = i; rv0[i] = i end
        local rk, rv = mgpu.mergesort(s, { values = sv })
        assert.is_true(rawequal(rk, s))
        assert.is_true(rawequal(rv, sv))
        C.no_diff(R.check_stable_sort(t, s:totable(), sv:totable(), "i32", "less"), "slice " .. n)
        C.table_eq(big:totable(1, 3), { 12345, 12345, 12345 }, "i32", "before the slice")
        C.table_eq(big:totable(n + 4), R.iota(4, 12345, 0), "i32", "after the slice")
        C.table_eq(bigv:totable(1, 1), { -1 }, "i64")
        C.table_eq(bigv:totable(n + 2), { -1, -1 }, "i64")
      end
    end)

    it("values may be of any dtype, keys of any dtype", function()
      local rng = R.rng(8)
      for _, dt in ipairs(R.dtypes) do
        local t = rng:values(2000, dt)
        for j, vdt in ipairs(R.dtypes) do
          check_sort(ctx, dt, t, (j % 2 == 0) and "less" or "greater", vdt)
        end
      end
    end)
  end)

  describe("stability", function()
    it("many equal keys keep their order (values = iota)", function()
      local rng = R.rng(9)
      for _, n in ipairs { 100, 5000, 40000 } do
        for _, V in ipairs { 0, 1, 9 } do
          local t = {}
          for i = 1, n do t[i] = rng:int(0, V) end
          check_sort(ctx, "i32", t, "less", "i32")
          check_sort(ctx, "i32", t, "greater", "i32")
        end
      end
    end)

    it("all keys equal: the values stay 1..n", function()
      for _, n in ipairs { 1000, 4353, 70000 } do
        local k = ctx:fill(n, 42, "u64")
        local v = ctx:iota(n, 1, 1, "u32")
        mgpu.mergesort(k, { values = v })
        C.array_eq(v, R.iota(n), "u32", "n=" .. n)
        mgpu.mergesort(k, { values = v, comp = "greater" })
        C.array_eq(v, R.iota(n), "u32", "greater n=" .. n)
      end
    end)

    it("-0.0 and 0.0, and all NaNs, are equivalent keys", function()
      for _, dt in ipairs { "f32", "f64" } do
        for _, comp in ipairs { "less", "greater" } do
          check_sort(ctx, dt, { 0.0, -0.0, 0.0, -0.0, -0.0 }, comp, "i32")
          check_sort(ctx, dt, { nan, 1.0, -(0 / 0), nan, -1.0 }, comp, "i32")
        end
      end
    end)
  end)

  describe("dtypes", function()
    it("every dtype, both comparators, keys and pairs", function()
      local rng = R.rng(10)
      for _, dt in ipairs(R.dtypes) do
        for _, comp in ipairs { "less", "greater" } do
          local t = rng:values(6000, dt)
          check_sort(ctx, dt, t, comp)
          check_sort(ctx, dt, t, comp, "i32")
          check_sort(ctx, dt, t, comp, "f64")
        end
      end
    end)

    it("float keys: NaN last under less, first under greater; infinities; zeros", function()
      local rng = R.rng(11)
      for _, dt in ipairs { "f32", "f64" } do
        for _, comp in ipairs { "less", "greater" } do
          for _, n in ipairs { 12, 3000, 20001 } do
            check_sort(ctx, dt, G.float_keys(rng, n, dt), comp, "i32")
          end
        end
        local k = ctx:array({ nan, 1.0, -inf, inf, -0.0, nan, -5.0 }, dt)
        mgpu.mergesort(k)
        local t = k:totable()
        C.table_eq(R.sub(t, 1, 5), { -inf, -5.0, -0.0, 1.0, inf }, dt)
        assert.is_true(t[6] ~= t[6] and t[7] ~= t[7], "NaNs last")
        mgpu.mergesort(k, { comp = "greater" })
        t = k:totable()
        assert.is_true(t[1] ~= t[1] and t[2] ~= t[2], "NaNs first")
        C.table_eq(R.sub(t, 3, 7), { inf, 1.0, -0.0, -5.0, -inf }, dt)
      end
    end)

    it("keys and values keep their exact bits (NaN payloads, signalling NaN, -0.0)", function()
      for _, dt in ipairs { "f64", "f32" } do
        local esize = R.size[dt]
        local n = 2345
        local s = G.odd_bytes(n, dt)
        local vdt = (dt == "f64") and "u64" or "u32"
        for _, comp in ipairs { "less", "greater" } do
          local perm = R.sort_permutation(R.unpack(s, dt), dt, comp)
          local want = G.permute_bytes(s, perm, esize)
          local k, v = ctx:frombytes(s, dt), ctx:frombytes(s, vdt)
          mgpu.mergesort(k, { values = v, comp = comp })
          C.bytes_eq(k:tobytes(), want, esize, dt .. " keys " .. comp)
          C.bytes_eq(v:tobytes(), want, esize, dt .. " values " .. comp)
        end
      end
    end)

    it("i64 beyond 2^53, u32 above 2^31, u64 above 2^63", function()
      local rng = R.rng(12)
      local b = 1 << 53
      local t64 = {}
      for i = 1, 3000 do t64[i] = b + rng:int(-5, 5) end
      check_sort(ctx, "i64", t64, "less", "i32")
      check_sort(ctx, "i64", t64, "greater", "i32")
      check_sort(ctx, "u32", { 0x80000001, 5, R.U32_MAX, 0x7fffffff, 0x80000000, 0 }, "less", "i32")
      check_sort(ctx, "u64", { -1, 1, math.mininteger, math.maxinteger, 0, -2, math.mininteger + 1 },
        "less", "i32")
      local k = ctx:array({ -1, 1, math.mininteger, math.maxinteger }, "u64")
      mgpu.mergesort(k)
      C.array_eq(k, { 1, math.maxinteger, math.mininteger, -1 }, "u64")
      check_sort(ctx, "i64", { math.maxinteger, math.mininteger, -1, 0, (1 << 53) + 1, 1 << 53 }, "less", "f32")
    end)
  end)

  describe("sizes", function()
    -- around plausible tiles (blocksort and merge-pass tiles of 128/256
    -- threads times 11..17 keys, for 4- and 8-byte keys and values) and
    -- their doublings (merge passes)
    local sizes = { 1, 2, 3, 17, 127, 128, 129, 1000, 1023, 1024, 1025, 1407, 1408, 1409,
                    1919, 1920, 1921, 2175, 2176, 2177, 2815, 2816, 2817, 2943, 2944, 2945,
                    3839, 3840, 3841, 4351, 4352, 4353, 5631, 5632, 5633, 7679, 7681,
                    8703, 8704, 8705, 11265, 11775, 11776, 11777, 17409, 23553, 70000 }
    it("sizes around tile boundaries and multi-pass sizes (i32 pairs)", function()
      local rng = R.rng(13)
      for _, n in ipairs(sizes) do
        local t = {}
        for i = 1, n do t[i] = rng:int(0, n // 3) end
        check_sort(ctx, "i32", t, (n % 2 == 0) and "less" or "greater", "i32")
      end
    end)

    it("sizes around tile boundaries (8-byte keys and values)", function()
      local rng = R.rng(14)
      for _, n in ipairs(sizes) do
        if n <= 17409 then
          local t = {}
          for i = 1, n do t[i] = (1 << 53) + rng:int(0, n // 2) end
          check_sort(ctx, "i64", t, (n % 2 == 1) and "less" or "greater", "f64")
        end
      end
    end)

    it("sizes around tile boundaries (keys only, 4- and 8-byte)", function()
      local rng = R.rng(16)
      for _, n in ipairs(sizes) do
        local t = {}
        for i = 1, n do t[i] = rng:int(-n, n) end
        check_sort(ctx, "i32", t, (n % 2 == 0) and "greater" or "less")
        if n <= 23553 then check_sort(ctx, "i64", t, (n % 2 == 1) and "greater" or "less") end
      end
    end)

    it("40 random sizes up to 40000 (keys and pairs, both comparators)", function()
      local rng = R.rng(140)
      for i = 1, 40 do
        local n = rng:int(1, 40000)
        local dt = R.dtypes[i % 6 + 1]
        local comp = (i % 4 < 2) and "less" or "greater"
        local vdt = ({ "i32", "f64", "u64", "f32" })[i % 4 + 1]
        check_sort(ctx, dt, rng:values(n, dt), comp, vdt)
      end
      for i = 1, 6 do
        local n = rng:int(1, 20000)
        check_sort(ctx, R.dtypes[i], rng:values(n, R.dtypes[i]), (i % 2 == 0) and "less" or "greater")
      end
    end)

    it("already sorted and reverse-sorted inputs (with ties)", function()
      local rng = R.rng(15)
      for _, n in ipairs { 1000, 4353, 8704, 70001 } do
        local asc = G.sorted_uniform(rng, n, n // 4)
        local desc = G.reverse(asc)
        for _, comp in ipairs { "less", "greater" } do
          check_sort(ctx, "i32", asc, comp, "i32")
          check_sort(ctx, "i32", desc, comp, "i32")
        end
        check_sort(ctx, "f64", R.astype(desc, "i32", "f64"), "less")
      end
      -- strictly increasing and decreasing without ties
      check_sort(ctx, "u32", R.iota(100000), "greater", "u32")
      check_sort(ctx, "i32", R.iota(100000, 100000, -1), "less", "u64")
    end)

    it("10^6 elements (cpu checked in Lua, O(n))", function()
      local n = 1000000
      local k = ctx:random(n, 0, 50000, "i32", 16)
      local orig = k:totable()
      local v = ctx:iota(n)
      mgpu.mergesort(k, { values = v })
      C.no_diff(R.check_stable_sort(orig, k:totable(), v:totable(), "i32", "less"), "10^6 i32 pairs")
      local f = ctx:random(n, -1.0, 1.0, "f64", 17)
      local forig = f:totable()
      local fv = ctx:iota(n, 1, 1, "u32")
      mgpu.mergesort(f, { values = fv, comp = "greater" })
      C.no_diff(R.check_stable_sort(forig, f:totable(), fv:totable(), "f64", "greater"), "10^6 f64 pairs")
    end)
  end)

  describe("against the Lua reference at 10^5", function()
    for ci, c in ipairs {
      { "i32", "i32", "less" }, { "u64", "f32", "greater" }, { "f32", "i64", "less" },
      { "i64", nil, "greater" }, { "u32", "u64", "less" }, { "f64", "f64", "greater" },
    } do
      local dt, vdt, comp = c[1], c[2], c[3]
      it(string.format("keys %s values %s %s", dt, tostring(vdt), comp), function()
        local rng = R.rng(500 + ci)
        local t = rng:values(100003, dt)
        check_sort(ctx, dt, t, comp, vdt)
      end)
    end
  end)
end)

backends.cuda_vs_cpu(function(gpu, cpu)
  local cases = {
    { "i32", "i32", 0, 1000, "less" },
    { "i32", nil, R.I32_MIN, R.I32_MAX, "greater" },
    { "u32", "f32", 0, R.U32_MAX, "less" },
    { "i64", "u64", 1 << 53, (1 << 53) + 100, "greater" },
    { "u64", "i64", 0, -1, "less" },
    { "u64", nil, 0, 10, "greater" },
    { "f32", "i32", -1.0, 1.0, "less", true },
    { "f64", "f64", -1e6, 1e6, "greater", true },
    { "f64", "u32", 0.0, 1.0, "less", true },
  }
  for k, c in ipairs(cases) do
    local dt, vdt, lo, hi, comp, with_nan = c[1], c[2], c[3], c[4], c[5], c[6]
    for _, n in ipairs { 1000000, 1048576 + 3, (k == 1 or k == 8) and 8388608 + 5 or nil } do
      it(string.format("%d random: keys %s values %s %s%s", n, dt, tostring(vdt), comp,
        with_nan and " with NaN" or ""), function()
        local a = cpu:random(n, lo, hi, dt, 100 * k + n % 7)
        if with_nan then
          for i = 1, n, 4999 do a[i] = nan end
          for i = 3, n, 7001 do a[i] = -0.0 end
          for i = 5, n, 6007 do a[i] = 0.0 end
        end
        local g = a:to(gpu)
        local opts_cpu, opts_gpu = { comp = comp }, { comp = comp }
        if vdt then
          local v = cpu:iota(n, 1, 1, vdt)
          opts_cpu.values = v
          opts_gpu.values = v:to(gpu)
        end
        local k1, v1 = mgpu.mergesort(a, opts_cpu)
        local k2, v2 = mgpu.mergesort(g, opts_gpu)
        assert.is_true(rawequal(k2, g))
        assert.is_true(k1:is_sorted(comp))
        C.same_array(k2, k1, "keys cuda vs cpu")
        if vdt then C.same_array(v2, v1, "values cuda vs cpu") end
      end)
    end
  end

  it("sorted and reverse-sorted 10^6 inputs: cuda equals cpu", function()
    for _, comp in ipairs { "less", "greater" } do
      local a = cpu:sorted_random(1000000, 0, 1000, "i32", 5)
      local r = cpu:iota(1000000, 1000000, -1)
      for _, x in ipairs { a, r } do
        local v = cpu:iota(#x)
        local g, gv = x:to(gpu), v:to(gpu)
        mgpu.mergesort(x, { values = v, comp = comp })
        mgpu.mergesort(g, { values = gv, comp = comp })
        C.same_array(g, x)
        C.same_array(gv, v)
      end
    end
  end)
end)
