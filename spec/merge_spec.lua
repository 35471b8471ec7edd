-- mgpu.merge: the Merge seed's vectors, both comparators, edge cases, tile
-- boundaries, every dtype, float order, out=/out_values=, and large random
-- merges (cuda against cpu byte for byte, cpu against the Lua reference).

local mgpu = require "mgpu"
local R = require "helpers.reference"
local C = require "helpers.check"
local G = require "helpers.gen"
local S = require "helpers.seed_vectors"
local backends = require "helpers.backends"

local nan, inf = R.nan, R.inf

describe("the reference merge", function()
  it("reproduces the seed's MERGE KEYS and MERGE PAIRS tables", function()
    C.table_eq(R.merge(S.merge_keys_a, S.merge_keys_b, "i32", "less"), S.merge_keys_merged, "i32")
    local k, v = R.merge(S.merge_pairs_a_keys, S.merge_pairs_b_keys, "i32", "less",
      R.iota(100, 0), R.iota(100, 100))
    C.table_eq(k, S.merge_pairs_merged_keys, "i32")
    C.table_eq(v, S.merge_pairs_merged_values, "i32")
  end)
end)

-- Merges Lua tables ka, kb (sorted for comp) on ctx, with values av, bv of
-- dtype vdt when given, and compares keys and values with the reference.
local function check_merge(ctx, dt, ka, kb, comp, vdt, av, bv, label)
  label = label or string.format("%s %s na=%d nb=%d", dt, tostring(comp), #ka, #kb)
  local a, b = ctx:array(ka, dt), ctx:array(kb, dt)
  local opts = { comp = comp }
  local want_k, want_v = R.merge(ka, kb, dt, comp or "less", av, bv)
  if vdt then
    local xa, xb = ctx:array(av, vdt), ctx:array(bv, vdt)
    opts.values = { xa, xb }
    local c, cv = mgpu.merge(a, b, opts)
    C.array_eq(c, want_k, dt, label .. " keys")
    C.array_eq(cv, want_v, vdt, label .. " values")
    C.array_eq(xa, av, vdt, label .. " input a values unchanged")
  else
    local c, extra = mgpu.merge(a, b, opts)
    assert.is_nil(extra, label .. ": keys-only merge returned values")
    C.array_eq(c, want_k, dt, label)
  end
  C.array_eq(a, ka, dt, label .. " input a unchanged")
  C.array_eq(b, kb, dt, label .. " input b unchanged")
end

-- Sorted keys with ties for a merge of na and nb elements.
local function case(rng, dt, na, nb, V, comp)
  local ka = G.sorted_keys(rng, na, V, dt, comp)
  local kb = G.sorted_keys(rng, nb, V, dt, comp)
  return ka, kb
end

-- on cuda also with partitions that search samples at any size
backends.each_with_paths({ "sampled" }, function(ctx, device)
  describe("seed 001", function()
    it("MERGE KEYS demonstration", function()
      local a = ctx:array(S.merge_keys_a)
      local b = ctx:array(S.merge_keys_b)
      local c = mgpu.merge(a, b)
      assert.are.equal("i32", c.dtype)
      assert.are.equal(200, #c)
      assert.is_true(c.context == ctx)
      C.array_eq(c, S.merge_keys_merged, "i32")
    end)

    it("MERGE PAIRS demonstration", function()
      local a = ctx:array(S.merge_pairs_a_keys)
      local b = ctx:array(S.merge_pairs_b_keys)
      local av = ctx:iota(100, 0)
      local bv = ctx:iota(100, 100)
      local c, cv = mgpu.merge(a, b, { values = { av, bv } })
      C.array_eq(c, S.merge_pairs_merged_keys, "i32")
      C.array_eq(cv, S.merge_pairs_merged_values, "i32")
      assert.is_true(cv.context == ctx)
    end)

    it("MERGE PAIRS with explicit comp = less and other value dtypes", function()
      for _, vdt in ipairs { "u32", "i64", "u64", "f32", "f64" } do
        check_merge(ctx, "i32", S.merge_pairs_a_keys, S.merge_pairs_b_keys, "less", vdt,
          G.index_values(100, vdt, 0), G.index_values(100, vdt, 100), "seed pairs " .. vdt)
      end
    end)

    it("the seed's inputs reversed, merged with comp = greater", function()
      local ka, kb = G.reverse(S.merge_pairs_a_keys), G.reverse(S.merge_pairs_b_keys)
      check_merge(ctx, "i32", ka, kb, "greater", "i32", R.iota(100, 0), R.iota(100, 100))
      check_merge(ctx, "i32", ka, kb, "greater")
      local c = mgpu.merge(ctx:array(ka), ctx:array(kb), { comp = "greater" })
      C.array_eq(c, G.reverse(S.merge_pairs_merged_keys), "i32")
    end)
  end)

  describe("edge cases", function()
    it("empty a and/or b", function()
      for _, comp in ipairs { "less", "greater" } do
        local k = G.sorted_keys(R.rng(1), 37, 10, "i32", comp)
        check_merge(ctx, "i32", {}, {}, comp)
        check_merge(ctx, "i32", {}, {}, comp, "f64", {}, {})
        check_merge(ctx, "i32", k, {}, comp, "i32", R.iota(37), {})
        check_merge(ctx, "i32", {}, k, comp, "i32", {}, R.iota(37))
        check_merge(ctx, "f64", {}, { 1.0 }, comp)
      end
      local c, cv = mgpu.merge(ctx:zeros(0, "u64"), ctx:zeros(0, "u64"),
        { values = { ctx:zeros(0, "f32"), ctx:zeros(0, "f32") } })
      assert.are.equal(0, #c)
      assert.are.equal("u64", c.dtype)
      assert.are.equal(0, #cv)
      assert.are.equal("f32", cv.dtype)
    end)

    it("one element", function()
      check_merge(ctx, "i32", { 5 }, { 5 }, "less", "i32", { 1 }, { 2 })
      check_merge(ctx, "i32", { 6 }, { 5 }, "less", "i32", { 1 }, { 2 })
      check_merge(ctx, "i32", { 5 }, { 6 }, "greater", "i32", { 1 }, { 2 })
      check_merge(ctx, "i32", { 5 }, { 5 }, "greater", "i32", { 1 }, { 2 })
      check_merge(ctx, "i64", { 1 }, { -1, 0, 2 }, "less", "f64", { 0.5 }, { 1.5, 2.5, 3.5 })
      local c, cv = mgpu.merge(ctx:array { 5 }, ctx:array { 5 },
        { values = { ctx:array { 1 }, ctx:array { 2 } } })
      C.array_eq(cv, { 1, 2 }, "i32", "tie takes a first")
    end)

    it("all keys equal: ties take a first, in order", function()
      for _, sz in ipairs { { 5, 7 }, { 1000, 3 }, { 4352, 4353 }, { 20000, 30001 } } do
        local na, nb = sz[1], sz[2]
        for _, comp in ipairs { "less", "greater" } do
          local a, b = ctx:fill(na, 7), ctx:fill(nb, 7)
          local c, cv = mgpu.merge(a, b, { comp = comp,
            values = { ctx:iota(na), ctx:iota(nb, na + 1) } })
          C.array_eq(c, R.iota(na + nb, 7, 0), "i32")
          C.array_eq(cv, R.iota(na + nb), "i32", string.format("%d+%d %s", na, nb, comp))
        end
      end
    end)

    it("a entirely before b, and entirely after", function()
      for _, sz in ipairs { { 10, 10 }, { 4351, 4353 }, { 1, 9000 }, { 9000, 1 }, { 150000, 150001 } } do
        local na, nb = sz[1], sz[2]
        local lo, hi = R.iota(na), R.iota(nb, na + 1)
        check_merge(ctx, "i32", lo, hi, "less", "i32", R.iota(na), R.iota(nb, na + 1))
        check_merge(ctx, "i32", R.iota(na, nb + 1), R.iota(nb), "less", "i32", R.iota(na), R.iota(nb, na + 1))
        check_merge(ctx, "i32", G.reverse(hi), G.reverse(lo), "greater", "i32", R.iota(nb), R.iota(na, nb + 1))
      end
    end)

    it("inputs that are slices at odd offsets", function()
      local rng = R.rng(11)
      for _, sz in ipairs { { 3, 4 }, { 1409, 1407 }, { 20001, 30002 } } do
        local na, nb = sz[1], sz[2]
        local ka, kb = case(rng, "i32", na, nb, (na + nb) // 3, "less")
        local bigA = ctx:fill(na + 5, -99)
        local bigB = ctx:fill(nb + 2, -99)
        local a, b = bigA:slice(2, na + 1), bigB:slice(2, nb + 1)
        for i = 1, na do a[i] = ka[i] end
        for i = 1, nb do b[i] = kb[i] end
        local vA = ctx:iota(na + 3, 0, 1, "f64")
        local vB = ctx:iota(nb + 3, 1000000, 1, "f64")
        local av, bv = vA:slice(2, na + 1), vB:slice(4, nb + 3)
        local c, cv = mgpu.merge(a, b, { values = { av, bv } })
        local wk, wv = R.merge(ka, kb, "i32", "less", R.iota(na, 1.0), R.iota(nb, 1000003.0))
        C.array_eq(c, wk, "i32", "slice keys")
        C.array_eq(cv, wv, "f64", "slice values")
      end
    end)
  end)

  describe("tile boundaries", function()
    -- the tiles' NV (NT * VT) of every key and value width, and others near
    local bases = { 896, 1024, 1408, 1536, 1792, 1920, 2048, 2176, 2432, 2816, 2944, 3072, 3968,
                    4096, 4352, 5888, 8704 }
    local groups = {
      { key = "i32", val = "i32" },
      { key = "i64", val = "f64" },
      { key = "f32", val = "u64" },
      { key = "u64", val = "i32" },
    }
    for _, g in ipairs(groups) do
      it(string.format("total sizes NV-1, NV, NV+1 (keys %s, values %s)", g.key, g.val), function()
        local rng = R.rng(1000)
        for _, base in ipairs(bases) do
          for n = base - 1, base + 1 do
            for _, na in ipairs { n // 2, 1, n - 1, n // 3, base // 2 } do
              local nb = n - na
              local comp = (n % 2 == 0) and "less" or "greater"
              local ka, kb = case(rng, g.key, na, nb, n // 4 + 1, comp)
              check_merge(ctx, g.key, ka, kb, comp, g.val,
                G.index_values(na, g.val), G.index_values(nb, g.val, na + 1))
            end
          end
        end
      end)
    end

    for _, key in ipairs { "i32", "i64" } do
      it(string.format("total sizes NV-1, NV, NV+1, keys only (%s)", key), function()
        local rng = R.rng(1002)
        for _, base in ipairs { 2944, 5888, 11776, 23552 } do
          for n = base - 1, base + 1 do
            for _, na in ipairs { n // 2, 1, n - 1, n // 3 } do
              local comp = (n % 2 == 0) and "less" or "greater"
              local ka, kb = case(rng, key, na, n - na, n // 4 + 1, comp)
              check_merge(ctx, key, ka, kb, comp)
            end
          end
        end
      end)
    end

    -- Unsorted inputs break the contract, so the output is unspecified; the
    -- call must still stay inside every array (compute-sanitizer runs this)
    -- and leave the context usable.  5 * 10^6 outputs take the sampled
    -- partition.
    it("unsorted inputs: the right length, no fault, the context usable", function()
      for _, n in ipairs { 5000, 300000, 2500000 } do
        local a = ctx:random(n, 0, 1000000, "i32", 7)
        local b = ctx:random(n + 17, 0, 1000000, "i32", 8)
        local av, bv = ctx:iota(n), ctx:iota(n + 17)
        local c, cv = mgpu.merge(a, b, { values = { av, bv } })
        assert.are.equal(2 * n + 17, #c)
        assert.are.equal(2 * n + 17, #cv)
        C.table_eq(mgpu.merge(ctx:array { 1, 3 }, ctx:array { 2 }):totable(), { 1, 2, 3 }, "i32")
      end
    end)

    it("each input a multiple of NV", function()
      local rng = R.rng(1001)
      for _, base in ipairs(bases) do
        local ka, kb = case(rng, "i32", base, base, base // 2, "less")
        check_merge(ctx, "i32", ka, kb, "less", "i32", R.iota(base), R.iota(base, base + 1))
        ka, kb = case(rng, "f64", 2 * base, base, base, "greater")
        check_merge(ctx, "f64", ka, kb, "greater", "i64", R.iota(2 * base), R.iota(base, 2 * base + 1))
      end
    end)

    it("60 random size pairs up to 40000 elements", function()
      local rng = R.rng(1003)
      for i = 1, 60 do
        local n = rng:int(1, 40000)
        local na = rng:int(0, n)
        local dt = R.dtypes[i % 6 + 1]
        local comp = (i % 4 < 2) and "less" or "greater"
        local vdt = ({ "i32", "f64", "u64", "f32", nil })[i % 5 + 1]
        local ka, kb = case(rng, dt, na, n - na, rng:int(0, n), comp)
        if vdt then
          check_merge(ctx, dt, ka, kb, comp, vdt, G.index_values(na, vdt), G.index_values(n - na, vdt, na + 1))
        else
          check_merge(ctx, dt, ka, kb, comp)
        end
      end
    end)

    it("thousands of tiles (300000 elements)", function()
      local rng = R.rng(1002)
      for _, c in ipairs {
        { 150000, 150000, 1000, "less", "i32" },
        { 100000, 200000, 1000000, "greater", "i64" },
        { 299999, 1, 50, "less", "f32" },
        { 123457, 176543, 7, "less", "u64" },
      } do
        local na, nb, V, comp, dt = c[1], c[2], c[3], c[4], c[5]
        local ka, kb = case(rng, dt, na, nb, V, comp)
        check_merge(ctx, dt, ka, kb, comp, "i32", R.iota(na), R.iota(nb, na + 1))
      end
    end)
  end)

  describe("dtypes", function()
    it("every key dtype with no values and with 4- and 8-byte values", function()
      local rng = R.rng(2000)
      for _, dt in ipairs(R.dtypes) do
        for _, comp in ipairs { "less", "greater" } do
          local ka = G.mixed_sorted(rng, 1500, dt, comp)
          local kb = G.mixed_sorted(rng, 1700, dt, comp)
          check_merge(ctx, dt, ka, kb, comp)
          for _, vdt in ipairs { "i32", "u32", "f32", "i64", "u64", "f64" } do
            check_merge(ctx, dt, ka, kb, comp, vdt,
              G.index_values(#ka, vdt), G.index_values(#kb, vdt, #ka + 1),
              string.format("keys %s values %s %s", dt, vdt, comp))
          end
        end
      end
    end)

    it("float keys: NaN after numbers (less), before (greater), -0.0 == 0.0", function()
      local rng = R.rng(2001)
      for _, dt in ipairs { "f32", "f64" } do
        for _, comp in ipairs { "less", "greater" } do
          for _, sz in ipairs { { 10, 12 }, { 3000, 2500 } } do
            local ka = R.mergesort(G.float_keys(rng, sz[1], dt), dt, comp)
            local kb = R.mergesort(G.float_keys(rng, sz[2], dt), dt, comp)
            check_merge(ctx, dt, ka, kb, comp, "i32", R.iota(#ka), R.iota(#kb, #ka + 1))
          end
          -- -0.0 and 0.0 are equivalent: a's zeros come first, bits kept
          check_merge(ctx, dt, { -0.0, 0.0, -0.0 }, { 0.0, -0.0 }, comp, "i32", { 1, 2, 3 }, { 4, 5 })
          -- all NaNs are equivalent
          check_merge(ctx, dt, { nan, nan }, { nan }, comp, "i32", { 1, 2 }, { 3 })
        end
        check_merge(ctx, dt, { -inf, 1.0, inf, nan }, { -inf, inf, nan }, "less", "i32",
          { 1, 2, 3, 4 }, { 5, 6, 7 })
        check_merge(ctx, dt, { nan, inf, 1.0, -inf }, { nan, inf, -inf }, "greater", "i32",
          { 1, 2, 3, 4 }, { 5, 6, 7 })
      end
    end)

    it("keys and values keep their exact bits (NaN payloads, signalling NaN, -0.0)", function()
      for _, dt in ipairs { "f64", "f32" } do
        local esize = R.size[dt]
        local na, nb = 700, 500
        local sa, sb = G.odd_bytes(na, dt), G.odd_bytes(nb + 3, dt):sub(3 * esize + 1)
        local ta, tb = R.unpack(sa, dt), R.unpack(sb, dt)
        for _, comp in ipairs { "less", "greater" } do
          -- sort each input's bytes by the reference (stable)
          local pa = R.sort_permutation(ta, dt, comp)
          local pb = R.sort_permutation(tb, dt, comp)
          local A = G.permute_bytes(sa, pa, esize)
          local B = G.permute_bytes(sb, pb, esize)
          local ka, kb = R.unpack(A, dt), R.unpack(B, dt)
          local _, perm = R.merge(ka, kb, dt, comp, R.iota(na), R.iota(nb, na + 1))
          local want = G.permute_bytes(A .. B, perm, esize)
          local vdt = (dt == "f64") and "u64" or "u32"
          local c, cv = mgpu.merge(ctx:frombytes(A, dt), ctx:frombytes(B, dt),
            { comp = comp, values = { ctx:frombytes(A, vdt), ctx:frombytes(B, vdt) } })
          C.bytes_eq(c:tobytes(), want, esize, dt .. " keys " .. comp)
          C.bytes_eq(cv:tobytes(), want, esize, dt .. " values " .. comp)
        end
      end
    end)

    it("i64 keys beyond 2^53, u32 above 2^31, u64 above 2^63", function()
      local base = 1 << 53
      check_merge(ctx, "i64", { base, base + 1, base + 3, math.maxinteger },
        { base - 1, base + 1, base + 2, base + 4 }, "less", "i32", { 1, 2, 3, 4 }, { 5, 6, 7, 8 })
      check_merge(ctx, "u32", { 5, 0x7fffffff, 0x80000000, R.U32_MAX },
        { 0x80000000, 0x80000001, 3000000000 }, "less", "i32", { 1, 2, 3, 4 }, { 5, 6, 7 })
      -- u64: 2^63 and above are negative Lua integers but order after 2^63-1
      check_merge(ctx, "u64", { 1, math.maxinteger, math.mininteger, -2 },
        { 0, 2, math.mininteger + 1, -1 }, "less", "i32", { 1, 2, 3, 4 }, { 5, 6, 7, 8 })
      check_merge(ctx, "u64", { -1, math.mininteger, 7 }, { -2, math.maxinteger, 0 }, "greater")
      local c = mgpu.merge(ctx:array({ 1, math.mininteger }, "u64"), ctx:array({ math.maxinteger, -1 }, "u64"))
      C.array_eq(c, { 1, math.maxinteger, math.mininteger, -1 }, "u64")
    end)
  end)

  describe("out= and out_values=", function()
    it("writes into the given arrays and returns them", function()
      local rng = R.rng(3000)
      for _, n in ipairs { 10, 5000 } do
        local ka, kb = case(rng, "i32", n, n + 3, n // 2, "less")
        local wk, wv = R.merge(ka, kb, "i32", "less", R.iota(n), R.iota(n + 3, n + 1))
        local a, b = ctx:array(ka), ctx:array(kb)
        local out = ctx:empty(2 * n + 3, "i32")
        local r = mgpu.merge(a, b, { out = out })
        assert.is_true(rawequal(r, out))
        C.array_eq(out, wk, "i32", "out")

        local outv = ctx:empty(2 * n + 3, "i64")
        local out2 = ctx:zeros(2 * n + 3, "i32")
        local r1, r2 = mgpu.merge(a, b, { values = { ctx:iota(n, "i64"), ctx:iota(n + 3, n + 1, "i64") },
          out = out2, out_values = outv })
        assert.is_true(rawequal(r1, out2))
        assert.is_true(rawequal(r2, outv))
        C.array_eq(out2, wk, "i32", "out with values")
        C.array_eq(outv, wv, "i64", "out_values")

        -- out_values alone
        local outv2 = ctx:empty(2 * n + 3, "f32")
        local k3, v3 = mgpu.merge(a, b, { values = { ctx:iota(n, "f32"), ctx:iota(n + 3, n + 1, "f32") },
          out_values = outv2 })
        assert.is_true(rawequal(v3, outv2))
        assert.is_false(rawequal(k3, out2))
        C.array_eq(k3, wk, "i32")
        C.array_eq(outv2, R.astype(wv, "i64", "f32"), "f32")
      end
    end)

    it("writes only inside an out slice", function()
      local ka, kb = R.iota(3000, 1, 2), R.iota(2000, 2, 3)
      local big = ctx:fill(5010, -1)
      local out = big:slice(4, 5003)
      local bigv = ctx:fill(5020, -1.5)
      local outv = bigv:slice(11, 5010)
      mgpu.merge(ctx:array(ka), ctx:array(kb),
        { out = out, out_values = outv, values = { ctx:iota(3000, "f64"), ctx:iota(2000, 3001, "f64") } })
      local wk, wv = R.merge(ka, kb, "i32", "less", R.iota(3000, 1.0), R.iota(2000, 3001.0))
      C.array_eq(out, wk, "i32")
      C.array_eq(outv, wv, "f64")
      C.table_eq(big:totable(1, 3), { -1, -1, -1 }, "i32", "before the out slice")
      C.table_eq(big:totable(5004), R.iota(7, -1, 0), "i32", "after the out slice")
      C.table_eq(bigv:totable(1, 10), R.iota(10, -1.5, 0), "f64", "before out_values")
      C.table_eq(bigv:totable(5011), R.iota(10, -1.5, 0), "f64", "after out_values")
    end)
  end)

  describe("against the Lua reference at 10^5", function()
    for _, c in ipairs {
      { "i32", "i32", "less", 1000 },
      { "i32", "f64", "greater", 100000 },
      { "u64", "u32", "less", 30000 },
      { "f64", "i64", "greater", 5000 },
      { "u32", nil, "less", 200000 },
      { "i64", "u64", "less", 10 },
    } do
      local dt, vdt, comp, V = c[1], c[2], c[3], c[4]
      it(string.format("keys %s values %s %s", dt, tostring(vdt), comp), function()
        local rng = R.rng(4000 + V)
        local na, nb = 50000 + V % 7, 49993
        local ka, kb = case(rng, dt, na, nb, V, comp)
        if vdt then
          check_merge(ctx, dt, ka, kb, comp, vdt, G.index_values(na, vdt), G.index_values(nb, vdt, na + 1))
        else
          check_merge(ctx, dt, ka, kb, comp)
        end
      end)
    end
  end)
end)

backends.cuda_vs_cpu(function(gpu, cpu)
  local cases = {
    { "i32", "i32", 0, 1000, "less" },
    { "i32", nil, R.I32_MIN, R.I32_MAX, "greater" },
    { "u32", "f32", 0, R.U32_MAX, "less" },
    { "i64", "u64", 1 << 53, (1 << 53) + 1000, "less" },
    { "u64", "i64", 0, -1, "less" },
    { "u64", "f64", 0, -1, "greater" },
    { "f32", "i32", -1.0, 1.0, "less", true },
    { "f64", "f64", -1e6, 1e6, "greater", true },
    { "f64", "u32", -1.0, 1.0, "less", true },
  }
  for k, c in ipairs(cases) do
    local dt, vdt, lo, hi, comp, with_nan = c[1], c[2], c[3], c[4], c[5], c[6]
    it(string.format("10^6 random: keys %s values %s %s%s", dt, tostring(vdt), comp,
      with_nan and " with NaN" or ""), function()
      local na, nb = 1000000, 1000000 - 12345
      local a = cpu:random(na, lo, hi, dt, 10 * k)
      local b = cpu:random(nb, lo, hi, dt, 10 * k + 1)
      if with_nan then
        for i = 1, na, 9973 do a[i] = nan end
        for i = 5, nb, 7919 do b[i] = (i % 2 == 0) and -0.0 or nan end
      end
      mgpu.mergesort(a, { comp = comp })
      mgpu.mergesort(b, { comp = comp })
      assert.is_true(a:is_sorted(comp) and b:is_sorted(comp), "inputs not sorted")
      local opts_cpu, opts_gpu = { comp = comp }, { comp = comp }
      if vdt then
        local av = cpu:random(na, 0, 1 << 20, "i32", 10 * k + 2):astype(vdt)
        local bv = cpu:iota(nb, 1, 1, vdt)
        opts_cpu.values = { av, bv }
        opts_gpu.values = { av:to(gpu), bv:to(gpu) }
      end
      local c1, v1 = mgpu.merge(a, b, opts_cpu)
      local c2, v2 = mgpu.merge(a:to(gpu), b:to(gpu), opts_gpu)
      assert.are.equal(gpu.device, c2.device)
      C.same_array(c2, c1, "keys cuda vs cpu")
      if vdt then C.same_array(v2, v1, "values cuda vs cpu") end
    end)
  end

  it("4*10^6 elements (thousands of tiles), with values: cuda equals cpu", function()
    for _, comp in ipairs { "less", "greater" } do
      local na, nb = 2500000, 1500001
      local a = cpu:random(na, 0, 100000, "i32", 77)
      local b = cpu:random(nb, 0, 100000, "i32", 78)
      mgpu.mergesort(a, { comp = comp })
      mgpu.mergesort(b, { comp = comp })
      local av, bv = cpu:iota(na, 1, 1, "f64"), cpu:iota(nb, na + 1, 1, "f64")
      local c1, v1 = mgpu.merge(a, b, { comp = comp, values = { av, bv } })
      local c2, v2 = mgpu.merge(a:to(gpu), b:to(gpu), { comp = comp, values = { av:to(gpu), bv:to(gpu) } })
      C.same_array(c2, c1, "keys " .. comp)
      C.same_array(v2, v1, "values " .. comp)
    end
  end)

  -- From 2^22 outputs on, the GPU partition searches samples of the inputs
  -- first (kernels/block/sampled_merge_path.cuh): shapes that stress it.
  describe("past 2^22 outputs (sampled partition)", function()
    local function check(a, b, comp, what)
      local av, bv = cpu:iota(#a, 1, 1, "u32"), cpu:iota(#b, #a + 1, 1, "u32")
      local c1, v1 = mgpu.merge(a, b, { comp = comp, values = { av, bv } })
      local c2, v2 = mgpu.merge(a:to(gpu), b:to(gpu),
        { comp = comp, values = { av:to(gpu), bv:to(gpu) } })
      C.same_array(c2, c1, "keys " .. what)
      C.same_array(v2, v1, "values " .. what)
    end
    local function sorted(n, lo, hi, dt, seed, comp)
      local x = cpu:random(n, lo, hi, dt, seed)
      mgpu.mergesort(x, { comp = comp })
      return x
    end
    it("heavy duplicates (51 distinct keys), both orders", function()
      for _, comp in ipairs { "less", "greater" } do
        check(sorted(3000000, 0, 50, "i32", 91, comp),
              sorted(2500001, 0, 50, "i32", 92, comp), comp, "duplicates " .. comp)
      end
    end)
    it("floats with NaN and -0.0, greater", function()
      local a, b = cpu:random(2600000, -1.0, 1.0, "f64", 93), cpu:random(2100000, -1.0, 1.0, "f64", 94)
      for i = 1, #a, 997 do a[i] = 0 / 0 end
      for i = 3, #b, 991 do b[i] = (i % 2 == 0) and -0.0 or 0.0 end
      mgpu.mergesort(a, { comp = "greater" })
      mgpu.mergesort(b, { comp = "greater" })
      check(a, b, "greater", "floats")
    end)
    it("all keys equal", function()
      check(cpu:fill(2200000, 7, "u64"), cpu:fill(2200001, 7, "u64"), "less", "equal")
    end)
    it("disjoint ranges, either way round, and a tiny side", function()
      local lo, hi = cpu:iota(3000000, 0), cpu:iota(3000000, 3000000)
      check(lo, hi, "less", "a below b")
      check(hi, lo, "less", "b below a")
      check(sorted(5000000, -(1 << 40), 1 << 40, "i64", 95, "less"),
            cpu:array({ -(1 << 41), 0, 1 << 41 }, "i64"), "less", "unbalanced")
      check(cpu:array({ 5 }, "i32"), sorted(4300000, 0, 10, "i32", 96, "less"),
            "less", "one element in a")
    end)
    it("u64 keys past 2^63", function()
      check(sorted(2400000, 0, -1, "u64", 97, "less"),
            sorted(2400000, 0, -1, "u64", 98, "less"), "less", "u64")
    end)
  end)

  it("10^6 all-equal keys: cuda keeps a first like cpu", function()
    local n = 1000000
    local a, b = cpu:fill(n, 3.0, "f32"), cpu:fill(n + 1, -0.0, "f32")
    local av, bv = cpu:iota(n), cpu:iota(n + 1, n + 1)
    local c1, v1 = mgpu.merge(a, b, { values = { av, bv } })
    local c2, v2 = mgpu.merge(a:to(gpu), b:to(gpu), { values = { av:to(gpu), bv:to(gpu) } })
    C.same_array(c2, c1)
    C.same_array(v2, v1)
  end)
end)
