-- mgpu.sort: the radix sort.  Every result must be the Lua reference's
-- stable sort and, byte for byte, mgpu.mergesort's on the same input: every
-- dtype, both comparators, keys and pairs, NaN/±0/±inf mixes (bits kept:
-- NaN payloads and signs, -0.0 against 0.0), 64-bit keys over their whole
-- range, sizes around the sweep's tiles, inputs whose digits are shared
-- (skipped passes, an odd number of passes), and 10^6 random keys on cuda
-- against cpu.

local mgpu = require "mgpu"
local R = require "helpers.reference"
local C = require "helpers.check"
local G = require "helpers.gen"
local backends = require "helpers.backends"

local nan, inf = R.nan, R.inf

-- A copy of an array on its context, bits and all.
local function copy(ctx, a)
  return ctx:frombytes(a:tobytes(), a.dtype)
end

-- Sorts keys (an mgpu.array, left untouched) with mgpu.sort and with
-- mgpu.mergesort, with values 1..n of dtype vdt (or keys only when vdt is
-- nil); the two must agree byte for byte, and (unless skip_reference)
-- the keys must be the reference's stable sort.  Returns sort's keys and
-- values.
local function check_against_mergesort(ctx, keys, comp, vdt, label, skip_reference)
  local dt, n = keys.dtype, #keys
  label = label or string.format("%s %s n=%d values %s", dt, tostring(comp), n, tostring(vdt))
  local k1, k2 = copy(ctx, keys), copy(ctx, keys)
  local opts1, opts2 = { comp = comp }, { comp = comp }
  local v1, v2
  if vdt then
    v1 = ctx:array(G.index_values(n, vdt), vdt)
    v2 = copy(ctx, v1)
    opts1.values, opts2.values = v1, v2
  end
  local rk, rv = mgpu.sort(k1, opts1)
  assert.is_true(rawequal(rk, k1), label .. ": keys array not returned")
  if vdt then
    assert.is_true(rawequal(rv, v1), label .. ": values array not returned")
  else
    assert.is_nil(rv, label .. ": keys-only sort returned values")
  end
  mgpu.mergesort(k2, opts2)
  C.bytes_eq(k1:tobytes(), k2:tobytes(), R.size[dt], label .. ": keys, sort vs mergesort")
  if vdt then
    C.bytes_eq(v1:tobytes(), v2:tobytes(), R.size[vdt], label .. ": values, sort vs mergesort")
  end
  if not skip_reference then
    local orig = keys:totable()
    if vdt then
      local perm = {}
      for i, x in ipairs(v1:totable()) do perm[i] = math.tointeger(x) or x end
      C.no_diff(R.check_stable_sort(orig, k1:totable(), perm, dt, comp or "less"), label)
    else
      C.array_eq(k1, (R.mergesort(orig, dt, comp or "less")), dt, label)
    end
  end
  return k1, v1
end

local function check_table(ctx, dt, t, comp, vdt, label)
  return check_against_mergesort(ctx, ctx:array(t, dt), comp, vdt, label)
end

-- n float bit patterns (as a byte string) mixing +0.0, -0.0, NaNs of both
-- signs with payloads, a signalling NaN, infinities, denormals and a few
-- numbers, so that many keys are equivalent with different bits.
local function special_float_bytes(rng, n, dt)
  local pool = dt == "f64" and {
    0x0000000000000000, 0x8000000000000000, 0x7ff8000000000000, 0xfff8000000000000,
    0x7ff8000000000123, 0xfff0000000000456, 0x7ff0000000000001, 0x7ff0000000000000,
    0xfff0000000000000, 0x0000000000000001, 0x8000000000000001, 0x3ff0000000000000,
    0xbff0000000000000, 0x000fffffffffffff,
  } or {
    0x00000000, 0x80000000, 0x7fc00000, 0xffc00000, 0x7fc00123, 0xff800456, 0x7f800001,
    0x7f800000, 0xff800000, 0x00000001, 0x80000001, 0x3f800000, 0xbf800000, 0x007fffff,
  }
  local fmt = dt == "f64" and "I8" or "I4"
  local parts = {}
  for i = 1, n do parts[i] = string.pack(fmt, rng:pick(pool)) end
  return table.concat(parts)
end

-- on cuda also with the every-GPU tiles (the "smem64" kernel paths)
backends.each_with_paths({ "smem64" }, function(ctx, device)
  describe("basics", function()
    it("sorts keys and pairs in place and returns the same arrays", function()
      local k = ctx:array { 5, 3, 9, 1, 3, -2 }
      local r = mgpu.sort(k)
      assert.is_true(rawequal(r, k))
      C.array_eq(k, { -2, 1, 3, 3, 5, 9 }, "i32")
      mgpu.sort(k, { comp = "greater" })
      C.array_eq(k, { 9, 5, 3, 3, 1, -2 }, "i32")
      local k2 = ctx:array { 3, 1, 3, 2, 1 }
      local v = ctx:array({ 10, 20, 30, 40, 50 }, "f64")
      local rk, rv = mgpu.sort(k2, { values = v })
      assert.is_true(rawequal(rk, k2) and rawequal(rv, v))
      C.array_eq(k2, { 1, 1, 2, 3, 3 }, "i32")
      C.array_eq(v, { 20.0, 50.0, 40.0, 10.0, 30.0 }, "f64")
      mgpu.sort(k2, { values = v, comp = "greater" })
      C.array_eq(k2, { 3, 3, 2, 1, 1 }, "i32")
      C.array_eq(v, { 10.0, 30.0, 40.0, 20.0, 50.0 }, "f64")
    end)

    it("empty, one and two elements", function()
      for _, dt in ipairs(R.dtypes) do
        check_table(ctx, dt, {}, nil)
        check_table(ctx, dt, {}, "less", "i32")
        check_table(ctx, dt, { 1 }, "greater", "f64")
        check_table(ctx, dt, { 2, 1 }, "less", "u32")
        check_table(ctx, dt, { 1, 2 }, "greater", "i64")
        check_table(ctx, dt, { 1, 1 }, "greater", "i32")
      end
    end)

    it("sorts a slice in place, leaving the rest of the parent alone", function()
      local rng = R.rng(71)
      local n = 5001
      local t = rng:values(n, "i32")
      local big = ctx:fill(n + 7, 12345)
      local s = big:slice(4, n + 3)
      for i = 1, n do s[i] = t[i] end
      local bigv = ctx:fill(n + 3, -1, "i64")
      local sv = bigv:slice(2, n + 1)
      for i = 1, n do sv[i] = i end
      mgpu.sort(s, { values = sv })
      C.no_diff(R.check_stable_sort(t, s:totable(), sv:totable(), "i32", "less"), "slice")
      C.table_eq(big:totable(1, 3), { 12345, 12345, 12345 }, "i32", "before the slice")
      C.table_eq(big:totable(n + 4), R.iota(4, 12345, 0), "i32", "after the slice")
      C.table_eq(bigv:totable(1, 1), { -1 }, "i64")
      C.table_eq(bigv:totable(n + 2), { -1, -1 }, "i64")
    end)
  end)

  describe("every dtype and comparator", function()
    it("random keys (mixes of ties and extremes), keys and 4- and 8-byte values", function()
      local rng = R.rng(72)
      for _, dt in ipairs(R.dtypes) do
        for _, comp in ipairs { "less", "greater" } do
          local t = rng:values(6000, dt)
          check_table(ctx, dt, t, comp)
          check_table(ctx, dt, t, comp, "i32")
          check_table(ctx, dt, t, comp, "f64")
        end
      end
    end)

    it("values of every dtype", function()
      local rng = R.rng(73)
      for _, dt in ipairs(R.dtypes) do
        local t = rng:values(2000, dt)
        for j, vdt in ipairs(R.dtypes) do
          check_table(ctx, dt, t, (j % 2 == 0) and "less" or "greater", vdt)
        end
      end
    end)

    it("all keys equal: no pass runs, the values stay 1..n", function()
      for _, dt in ipairs(R.dtypes) do
        for _, n in ipairs { 2, 4097, 20000 } do
          local k = ctx:fill(n, 42, dt)
          local v = ctx:iota(n, 1, 1, "u32")
          mgpu.sort(k, { values = v, comp = (n % 2 == 0) and "less" or "greater" })
          C.array_eq(v, R.iota(n), "u32", dt .. " n=" .. n)
          C.array_eq(k, R.iota(n, 42, 0), dt, dt .. " n=" .. n)
        end
      end
    end)

    it("already sorted and reverse-sorted inputs", function()
      local rng = R.rng(74)
      for _, n in ipairs { 1000, 4097, 12289, 70001 } do
        local asc = G.sorted_uniform(rng, n, n // 4)
        local desc = G.reverse(asc)
        for _, comp in ipairs { "less", "greater" } do
          check_table(ctx, "i32", asc, comp, "i32")
          check_table(ctx, "i32", desc, comp, "u64")
        end
        check_table(ctx, "f64", R.astype(desc, "i32", "f64"), "less")
        check_table(ctx, "u64", asc, "greater", "f32")
      end
    end)

    it("digits every key shares: one, two, three and odd-numbered passes", function()
      local rng = R.rng(75)
      -- keys that differ only in the low byte (one pass: the result comes
      -- back from the scratch buffer), in the low two bytes, only in the
      -- top byte, and in bytes 0 and 2
      local makers = {
        function() return rng:int(0, 255) end,
        function() return rng:int(0, 65535) end,
        function() return rng:int(0, 127) << 24 end,
        function() return rng:int(0, 255) | (rng:int(0, 3) << 16) end,
      }
      for mi, make in ipairs(makers) do
        for _, n in ipairs { 300, 4096, 9000 } do
          local t = {}
          for i = 1, n do t[i] = make() end
          for _, dt in ipairs { "i32", "u32", "i64", "u64" } do
            check_table(ctx, dt, t, (n + mi) % 2 == 0 and "less" or "greater", "i32",
              string.format("maker %d %s n=%d", mi, dt, n))
          end
          check_table(ctx, "u64", t, "less", nil, string.format("maker %d u64 keys n=%d", mi, n))
        end
      end
      -- 64-bit keys differing only in their top byte: seven digits shared
      local t = {}
      for i = 1, 5000 do t[i] = (rng:int(0, 127) << 56) | 12345 end
      check_table(ctx, "i64", t, "less", "i64")
      check_table(ctx, "u64", t, "greater", "u32")
    end)
  end)

  describe("floats and integers at their edges", function()
    it("NaN last under less and first under greater; -0.0 and 0.0 equivalent", function()
      for _, dt in ipairs { "f32", "f64" } do
        for _, comp in ipairs { "less", "greater" } do
          check_table(ctx, dt, { 0.0, -0.0, 0.0, -0.0, -0.0 }, comp, "i32")
          check_table(ctx, dt, { nan, 1.0, -(0 / 0), nan, -1.0 }, comp, "i32")
          check_table(ctx, dt, { -0.0, inf, nan, 0.0, -inf, -0.0, nan, 1e-30, -1e-30 }, comp, "u64")
        end
        local k = ctx:array({ nan, 1.0, -inf, inf, -0.0, nan, -5.0 }, dt)
        mgpu.sort(k)
        local t = k:totable()
        C.table_eq(R.sub(t, 1, 5), { -inf, -5.0, -0.0, 1.0, inf }, dt)
        assert.is_true(t[6] ~= t[6] and t[7] ~= t[7], "NaNs last")
        mgpu.sort(k, { comp = "greater" })
        t = k:totable()
        assert.is_true(t[1] ~= t[1] and t[2] ~= t[2], "NaNs first")
        C.table_eq(R.sub(t, 3, 7), { inf, 1.0, -0.0, -5.0, -inf }, dt)
      end
    end)

    it("every element keeps its bits (NaN payloads and signs, -0.0 against 0.0)", function()
      local rng = R.rng(76)
      for _, dt in ipairs { "f32", "f64" } do
        local esize = R.size[dt]
        local vdt = (dt == "f64") and "u64" or "u32"
        for _, n in ipairs { 9, 2345, 4097, 13000 } do
          local s = special_float_bytes(rng, n, dt)
          for _, comp in ipairs { "less", "greater" } do
            local perm = R.sort_permutation(R.unpack(s, dt), dt, comp)
            local want = G.permute_bytes(s, perm, esize)
            -- the keys' own bits as values: they must travel with the keys
            local k, v = ctx:frombytes(s, dt), ctx:frombytes(s, vdt)
            mgpu.sort(k, { values = v, comp = comp })
            C.bytes_eq(k:tobytes(), want, esize, dt .. " keys " .. comp .. " n=" .. n)
            C.bytes_eq(v:tobytes(), want, esize, dt .. " values " .. comp .. " n=" .. n)
            check_against_mergesort(ctx, ctx:frombytes(s, dt), comp, "i32", nil, true)
            check_against_mergesort(ctx, ctx:frombytes(s, dt), comp, nil, nil, true)
          end
        end
      end
    end)

    -- Float keys over every sign and exponent, with ties, at the sweep
    -- tiles of each key and value width (the integer case: "sizes"); a
    -- NaN or a -0.0 makes equivalent keys of different bits.
    it("float keys without NaN and -0.0, and with one, around the sweep tiles", function()
      local rng = R.rng(82)
      local tiles = {
        f32 = { { 6912, false }, { 7680, false }, { 6144, "i32" }, { 8832, "u32" }, { 5120, "f64" } },
        f64 = { { 3840, false }, { 5760, "i32" }, { 2816, "f64" }, { 4608, "u64" } },
      }
      for _, dt in ipairs { "f32", "f64" } do
        local fmt, top = dt == "f64" and "I8" or "I4", dt == "f64" and 63 or 31
        local sign, inf = 1 << top, dt == "f64" and 0x7ff0000000000000 or 0x7f800000
        local ties = dt == "f64" and { 0, 1, 0x3ff0000000000000, 0xbff0000000000000, inf, sign | inf }
          or { 0, 1, 0x3f800000, 0xbf800000, inf, sign | inf }
        local nan, negzero = dt == "f64" and 0x7ff8000000000000 or 0x7fc00000, sign
        for _, w in ipairs(tiles[dt]) do
          local tile, vdt = w[1], w[2] or nil
          for j, n in ipairs { tile - 1, tile + 1, 2 * tile + 3 } do
            local bits = {}
            for i = 1, n do
              local b = rng:int(1, 3) == 1 and rng:pick(ties) or (rng:next64() & ((sign << 1) - 1))
              if (b & (sign - 1)) > inf or b == negzero then b = 0 end
              bits[i] = b
            end
            local comp = j % 2 == 0 and "greater" or "less"
            local clean = {}
            for i = 1, n do clean[i] = string.pack(fmt, bits[i]) end
            check_against_mergesort(ctx, ctx:frombytes(table.concat(clean), dt), comp, vdt,
              string.format("%s n=%d %s values %s, no special key", dt, n, comp, tostring(vdt)))
            bits[rng:int(1, n)] = (j == 2) and negzero or nan
            for i = 1, n do clean[i] = string.pack(fmt, bits[i]) end
            check_against_mergesort(ctx, ctx:frombytes(table.concat(clean), dt), comp, vdt,
              string.format("%s n=%d %s values %s, one special key", dt, n, comp, tostring(vdt)))
          end
        end
      end
    end)

    it("float keys drawn from numbers, zeros, NaNs and infinities", function()
      local rng = R.rng(77)
      for _, dt in ipairs { "f32", "f64" } do
        for _, comp in ipairs { "less", "greater" } do
          for _, n in ipairs { 12, 3000, 20001 } do
            check_table(ctx, dt, G.float_keys(rng, n, dt), comp, "i32")
          end
        end
      end
    end)

    it("i64 beyond 2^53 and over the whole range, u64 above 2^63", function()
      local rng = R.rng(78)
      local t64 = {}
      for i = 1, 3000 do t64[i] = (1 << 53) + rng:int(-5, 5) end
      check_table(ctx, "i64", t64, "less", "i32")
      check_table(ctx, "i64", t64, "greater", "i32")
      local full = {}
      for i = 1, 9000 do full[i] = rng:next64() end
      for _, dt in ipairs { "i64", "u64" } do
        for _, comp in ipairs { "less", "greater" } do
          check_table(ctx, dt, full, comp, "u64")
          check_table(ctx, dt, full, comp)
        end
      end
      check_table(ctx, "u64", { -1, 1, math.mininteger, math.maxinteger, 0, -2, math.mininteger + 1 },
        "less", "i32")
      local k = ctx:array({ -1, 1, math.mininteger, math.maxinteger }, "u64")
      mgpu.sort(k)
      C.array_eq(k, { 1, math.maxinteger, math.mininteger, -1 }, "u64")
      mgpu.sort(k, { comp = "greater" })
      C.array_eq(k, { -1, math.mininteger, math.maxinteger, 1 }, "u64")
      local k2 = ctx:array({ -1, 1, math.mininteger, math.maxinteger }, "i64")
      mgpu.sort(k2)
      C.array_eq(k2, { math.mininteger, -1, 1, math.maxinteger }, "i64")
      check_table(ctx, "u32", { 0x80000001, 5, R.U32_MAX, 0x7fffffff, 0x80000000, 0 }, "less", "i32")
      check_table(ctx, "i32", { R.I32_MIN, R.I32_MAX, -1, 0, 1, R.I32_MIN + 1 }, "greater", "f32")
    end)
  end)

  describe("sizes", function()
    -- sizes around the histogram's 256-thread blocks and powers of two,
    -- and odd sizes (the sweep's tiles: the next case)
    local sizes = { 3, 31, 32, 33, 255, 256, 257, 511, 512, 513, 777, 4095, 4096, 4097,
                    5000, 8191, 8192, 8193, 10007, 12287, 12288, 12289, 16385 }
    it("around tile boundaries: i32 and i64 keys, pairs and keys only", function()
      local rng = R.rng(79)
      for _, n in ipairs(sizes) do
        local t = {}
        for i = 1, n do t[i] = rng:int(-n, n) end
        local comp = (n % 2 == 0) and "less" or "greater"
        check_table(ctx, "i32", t, comp, "i32")
        check_table(ctx, "i32", t, comp)
        check_table(ctx, "i64", t, comp, "f64")
        check_table(ctx, "f32", R.astype(t, "i32", "f32"), comp)
      end
    end)

    -- The sweep's tiles (policy/radix.cuh; the every-GPU ones on the
    -- "smem64" context, the roomy ones on a GPU with room for them) at one
    -- and two tiles and a part, with the inputs that stress the ranking
    -- (every lane of a warp on one counter) and the histogram's shortcut
    -- for digits a warp's keys share.  vdt false: keys alone.
    it("around the sweep tiles of each key and value width: equal keys, top byte only, runs", function()
      local rng = R.rng(81)
      local tiles = {
        { 6912, "i32", "u32", 24, { false } },       -- 384 x 18
        { 7680, "i32", "u32", 24, { false } },       -- 384 x 20
        { 6144, "i32", "u32", 24, { "i32", "f32" } }, -- 256 x 24
        { 8832, "i32", "u32", 24, { "u32" } },       -- 384 x 23
        { 5120, "i32", "u32", 24, { "f64", "u64" } }, -- 256 x 20
        { 3840, "i64", "u64", 56, { false, "i32" } }, -- 256 x 15
        { 5760, "i64", "u64", 56, { "i32" } },       -- 384 x 15
        { 2816, "i64", "u64", 56, { "f64" } },       -- 256 x 11
        { 4608, "i64", "u64", 56, { "u64" } },       -- 384 x 12
      }
      for _, w in ipairs(tiles) do
        local tile, sdt, udt, top, vdts = w[1], w[2], w[3], w[4], w[5]
        for _, n in ipairs { tile - 1, tile, tile + 1, 2 * tile + 3 } do
          local rand, equal, topb, runs = {}, {}, {}, {}
          for i = 1, n do
            rand[i] = rng:int(-n, n)
            equal[i] = -5
            topb[i] = (rng:int(0, 127) << top) | 99
            runs[i] = ((i - 1) // 300) * 65793 + 1
          end
          local comp = (n % 2 == 0) and "less" or "greater"
          for _, vdt in ipairs(vdts) do
            vdt = vdt or nil
            local l = function(what)
              return string.format("%s n=%d %s values %s", sdt, n, what, tostring(vdt))
            end
            check_table(ctx, sdt, rand, comp, vdt, l("random"))
            check_table(ctx, sdt, equal, comp, vdt, l("all equal"))
            check_table(ctx, udt, topb, comp, vdt, l("top byte only"))
            check_table(ctx, sdt, runs, comp, vdt, l("runs of 300"))
          end
        end
      end
    end)

    it("40 random sizes up to 40000 (keys and pairs, both comparators)", function()
      local rng = R.rng(80)
      for i = 1, 40 do
        local n = rng:int(1, 40000)
        local dt = R.dtypes[i % 6 + 1]
        local comp = (i % 4 < 2) and "less" or "greater"
        local vdt = ({ "i32", "f64", nil, "f32" })[i % 4 + 1]
        check_table(ctx, dt, rng:values(n, dt), comp, vdt)
      end
    end)

    it("10^5 keys of every dtype against the reference", function()
      for i, dt in ipairs(R.dtypes) do
        local rng = R.rng(600 + i)
        check_table(ctx, dt, rng:values(100003, dt), (i % 2 == 0) and "greater" or "less",
          ({ "i32", "u64", nil })[i % 3 + 1])
      end
    end)
  end)

  describe("bad input", function()
    it("rejects a comparator other than less and greater", function()
      local k = ctx:array { 3, 1, 2 }
      C.raises(function() return mgpu.sort(k, { comp = function(a, b) return a < b end }) end,
        "mgpu.sort", C.word("comp"), "function")
      C.raises(function() return mgpu.sort(k, { comp = "desc" }) end, "mgpu.sort", C.word("comp"), "desc")
      C.raises(function() return mgpu.sort(k, { value = k }) end, "mgpu.sort", "value")
      C.array_eq(k, { 3, 1, 2 }, "i32", "keys after the errors")
    end)

    it("rejects values of the wrong length, on another array's storage, or not arrays", function()
      local k = ctx:array { 3, 1, 2 }
      C.raises(function() return mgpu.sort(k, { values = ctx:iota(4) }) end,
        "mgpu.sort", "values has 4 elements, keys has 3")
      C.raises(function() return mgpu.sort(k, { values = k }) end, "mgpu.sort", C.word("values"),
        C.word("keys"))
      local big = ctx:iota(10)
      C.raises(function() return mgpu.sort(big:slice(1, 5), { values = big:slice(4, 8) }) end,
        "mgpu.sort", C.word("values"), C.word("keys"))
      C.raises(function() return mgpu.sort(k, { values = { 1, 2, 3 } }) end, "mgpu.sort", C.word("values"))
      C.raises(function() return mgpu.sort({ 3, 1, 2 }) end, "mgpu.sort", C.word("keys"), "table")
      C.array_eq(k, { 3, 1, 2 }, "i32", "keys after the errors")
      C.array_eq(big, R.iota(10), "i32", "values after the errors")
      mgpu.sort(k)
      C.array_eq(k, { 1, 2, 3 }, "i32", "a sort after the errors")
    end)
  end)
end)

backends.cuda_vs_cpu(function(gpu, cpu)
  local cases = {
    { "i32", "i32", 0, 1000, "less" },
    { "i32", nil, R.I32_MIN, R.I32_MAX, "greater" },
    { "u32", "f32", 0, R.U32_MAX, "less" },
    { "i64", "u64", math.mininteger, math.maxinteger, "greater" },
    { "u64", "i64", 0, -1, "less" },
    { "u64", nil, 0, 10, "greater" },
    { "f32", "i32", -1.0, 1.0, "less", true },
    { "f32", nil, -1e30, 1e30, "greater", true },
    { "f64", "f64", -1e6, 1e6, "greater", true },
    { "f64", "u32", 0.0, 1.0, "less", true },
    { "f32", "i64", -1e30, 1e30, "less" },
    { "f64", nil, -1e6, 1e6, "greater" },
  }
  for ci, c in ipairs(cases) do
    local dt, vdt, lo, hi, comp, with_specials = c[1], c[2], c[3], c[4], c[5], c[6]
    for _, n in ipairs { 1000000, 1048576 + 3 } do
      it(string.format("%d random: keys %s values %s %s%s, cuda = cpu = mergesort", n, dt,
        tostring(vdt), comp, with_specials and " with NaN and zeros" or ""), function()
        local a = cpu:random(n, lo, hi, dt, 100 * ci + n % 7)
        if with_specials then
          for i = 1, n, 4999 do a[i] = nan end
          for i = 2, n, 5003 do a[i] = -(0 / 0) end
          for i = 3, n, 7001 do a[i] = -0.0 end
          for i = 5, n, 6007 do a[i] = 0.0 end
        end
        local g = a:to(gpu)
        local m = copy(cpu, a)
        local oc, og, om = { comp = comp }, { comp = comp }, { comp = comp }
        if vdt then
          local v = cpu:iota(n, 1, 1, vdt)
          oc.values, og.values, om.values = v, v:to(gpu), copy(cpu, v)
        end
        mgpu.sort(a, oc)
        local k2, v2 = mgpu.sort(g, og)
        mgpu.mergesort(m, om)
        assert.is_true(rawequal(k2, g))
        assert.is_true(a:is_sorted(comp))
        C.same_array(k2, a, "keys cuda vs cpu")
        C.same_array(a, m, "keys sort vs mergesort")
        if vdt then
          C.same_array(v2, oc.values, "values cuda vs cpu")
          C.same_array(oc.values, om.values, "values sort vs mergesort")
        end
      end)
    end
  end

  -- The histogram's blocks stride over its tiles: 5 x 2^20 + 2049 keys
  -- take every block several tiles (and one the keys past the last whole
  -- tile) on GPUs up to 320 SMs, with warps whose keys share a digit
  -- (runs of equal keys) beside warps whose keys do not.
  it("past one histogram tile a block, runs beside random keys: cuda equals cpu", function()
    local n = 5 * 1048576 + 2049
    for _, dt in ipairs { "i32", "u64" } do
      local a = cpu:random(n, 0, 1000000, dt, 13)
      for i = 1, n // 2 do a[i] = i // 3000 end
      local v = cpu:iota(n)
      local g, gv = a:to(gpu), v:to(gpu)
      mgpu.sort(a, { values = v, comp = "greater" })
      mgpu.sort(g, { values = gv, comp = "greater" })
      C.same_array(g, a, dt .. " keys")
      C.same_array(gv, v, dt .. " values")
    end
  end)

  it("keys with shared digits and all keys equal, 10^6: cuda equals cpu", function()
    for _, spec in ipairs { { "u32", 0, 255 }, { "i64", -3, 3 }, { "f32", 7.0, 7.0 } } do
      local dt, lo, hi = spec[1], spec[2], spec[3]
      local a = cpu:random(1000000, lo, hi, dt, 9)
      local v = cpu:iota(1000000)
      local g, gv = a:to(gpu), v:to(gpu)
      mgpu.sort(a, { values = v })
      mgpu.sort(g, { values = gv })
      C.same_array(g, a, dt .. " keys")
      C.same_array(gv, v, dt .. " values")
    end
  end)
end)
