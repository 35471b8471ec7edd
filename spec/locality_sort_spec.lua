-- mgpu.locality_sort: the Locality Sort seed's vectors, nearly sorted input
-- (key = i + rand(0, 25)), random, sorted, reverse-sorted and all-equal
-- input, stability, every dtype, both comparators, stats and their early
-- exit on nearly sorted input, against the Lua reference at 10^5 and cuda
-- against cpu byte for byte at 10^6, and bad input.

local mgpu = require "mgpu"
local R = require "helpers.reference"
local C = require "helpers.check"
local G = require "helpers.gen"
local S = require "helpers.segsort"
local SV = require "helpers.seed_segsort"
local backends = require "helpers.backends"

local W = C.word
local FREED = { "array has been freed", "has been freed" }
local nan = R.nan

local check_stats = C.sort_stats

-- Sorts the Lua table keys (dtype dt) with mgpu.locality_sort on ctx, with
-- values 1..n of dtype vdt (keys only when nil), and checks the results
-- (keys [, values] [, stats], nothing more) against the reference's stable
-- sort.  o.comp, o.stats; o.no_opts: call without an options table.
-- Returns the keys and values arrays and the stats.
local function check_sort(ctx, dt, keys, vdt, o)
  o = o or {}
  local comp = o.comp
  local n = #keys
  local label = o.label or string.format("%s n=%d %s values %s", dt, n, tostring(comp), tostring(vdt))
  local k = ctx:array(keys, dt)
  local opts = {}
  if comp ~= nil then opts.comp = comp end
  if o.stats ~= nil then opts.stats = o.stats end
  local v
  if vdt then
    v = ctx:array(G.index_values(n, vdt), vdt)
    opts.values = v
  end
  local res
  if o.no_opts then
    assert(next(opts) == nil, "no_opts with options")
    res = table.pack(mgpu.locality_sort(k))
  else
    res = table.pack(mgpu.locality_sort(k, opts))
  end
  assert.is_true(rawequal(res[1], k), label .. ": keys array not returned")
  local want = 1
  if vdt then
    want = 2
    assert.is_true(rawequal(res[2], v), label .. ": values array not returned")
  end
  local st
  if o.stats then
    want = want + 1
    st = res[want]
    check_stats(st, label)
  end
  assert.are.equal(want, res.n, label .. ": number of results")
  if vdt then
    local gv = v:totable()
    local perm = {}
    for i = 1, #gv do perm[i] = math.tointeger(gv[i]) or gv[i] end
    C.no_diff(R.check_stable_sort(keys, k:totable(), perm, dt, comp or "less"), label)
  else
    C.array_eq(k, (S.locality_sort(keys, dt, comp)), dt, label)
  end
  return k, v, st
end

-- n nearly sorted keys: (i - 1) + rand(0, spread), as the seed's demo.
local function nearly_sorted(rng, n, spread)
  local t = {}
  for i = 1, n do t[i] = i - 1 + rng:int(0, spread) end
  return t
end

-- Asserts the early exit: no merge passes at all (the windows launch did
-- the work), or over the merge passes fewer than half of passes * tiles
-- tiles were merged.
local function assert_early_exit(st, label)
  local passes, merged = check_stats(st, label)
  assert.is_true(merged < 0.5 * passes * st.tiles or passes == 0,
    string.format("%s: merged %d tiles over %d passes of %d tiles: no early exit", label, merged,
      passes, st.tiles))
end

describe("the reference locality sort", function()
  it("reproduces the seed's LOCALITY SORT KEYS and PAIRS tables", function()
    C.table_eq((S.locality_sort(SV.locality_keys_input, "i32")), SV.locality_keys_sorted, "i32")
    local k, v = S.locality_sort(SV.locality_pairs_input, "i32", "less", R.iota(100, 0))
    C.table_eq(k, SV.locality_pairs_sorted, "i32", "pairs keys")
    C.table_eq(v, SV.locality_pairs_indices, "i32", "pairs values")
    local perm = {}
    for i = 1, 100 do perm[i] = SV.locality_pairs_indices[i] + 1 end
    C.no_diff(R.check_stable_sort(SV.locality_pairs_input, SV.locality_pairs_sorted, perm, "i32", "less"),
      "the seed's pairs pass the checker")
    -- the seed's inputs are nearly sorted: key i (0-based) is i + 0..25
    for i = 1, 100 do
      local d = SV.locality_keys_input[i] - (i - 1)
      assert.is_true(d >= 0 and d <= 25, "keys input " .. i)
      d = SV.locality_pairs_input[i] - (i - 1)
      assert.is_true(d >= 0 and d <= 25, "pairs input " .. i)
    end
  end)
end)

backends.each(function(ctx, device)
  describe("seed 004", function()
    it("LOCALITY SORT KEYS demonstration", function()
      local k = ctx:array(SV.locality_keys_input)
      local r, extra = mgpu.locality_sort(k)
      assert.is_true(rawequal(r, k))
      assert.is_nil(extra)
      C.array_eq(k, SV.locality_keys_sorted, "i32")
      k = ctx:array(SV.locality_keys_input)
      local r2, st = mgpu.locality_sort(k, { stats = true })
      assert.is_true(rawequal(r2, k))
      check_stats(st, "keys demo")
      C.array_eq(k, SV.locality_keys_sorted, "i32", "with stats")
    end)

    it("LOCALITY SORT PAIRS demonstration, keys and values of every dtype", function()
      local k = ctx:array(SV.locality_pairs_input)
      local v = ctx:iota(100, 0)
      local rk, rv, extra = mgpu.locality_sort(k, { values = v })
      assert.is_true(rawequal(rk, k) and rawequal(rv, v))
      assert.is_nil(extra)
      C.array_eq(k, SV.locality_pairs_sorted, "i32", "keys")
      C.array_eq(v, SV.locality_pairs_indices, "i32", "values")
      for di, dt in ipairs(R.dtypes) do
        local vdt = R.dtypes[di % 6 + 1]
        local k2 = ctx:array(SV.locality_pairs_input, dt)
        local v2 = ctx:iota(100, 0, 1, vdt)
        local _, _, st = mgpu.locality_sort(k2, { values = v2, stats = true, comp = "less" })
        check_stats(st, dt)
        C.array_eq(k2, R.astype(SV.locality_pairs_sorted, "i32", dt), dt, dt .. " keys")
        C.array_eq(v2, R.astype(SV.locality_pairs_indices, "i32", vdt), vdt, dt .. " values")
      end
    end)
  end)

  describe("inputs", function()
    it("empty, one and two elements", function()
      for _, dt in ipairs(R.dtypes) do
        check_sort(ctx, dt, {}, nil)
        check_sort(ctx, dt, {}, "i32", { stats = true })
        check_sort(ctx, dt, {}, nil, { no_opts = true })
        check_sort(ctx, dt, { 1 }, "f64", { comp = "greater" })
        check_sort(ctx, dt, { 2, 1 }, "u32", { stats = true })
        check_sort(ctx, dt, { 1, 2 }, "i64", { comp = "greater" })
        check_sort(ctx, dt, { 1, 1 }, "i32", { comp = "greater", stats = true })
      end
    end)

    it("nearly sorted input (key = i + rand(0, 25)) at several sizes, keys and pairs", function()
      local rng = R.rng(20)
      for _, n in ipairs { 100, 1000, 4097, 11777, 40000 } do
        local keys = nearly_sorted(rng, n, 25)
        check_sort(ctx, "i32", keys, nil)
        check_sort(ctx, "i32", keys, "i32", { stats = true })
        check_sort(ctx, "i32", keys, "u64", { comp = "greater" })
        check_sort(ctx, "i32", keys, nil, { no_opts = true })
      end
    end)

    it("nearly sorted input against the Lua reference at 10^5", function()
      local rng = R.rng(21)
      local n = 100000
      local keys = nearly_sorted(rng, n, 25)
      check_sort(ctx, "i32", keys, "i32")
      check_sort(ctx, "i32", keys, nil, { stats = true })
      -- wider spread, with many ties
      local wide = nearly_sorted(rng, n, 5000)
      for i = 1, n do wide[i] = wide[i] // 8 end
      check_sort(ctx, "i32", wide, "f64", { comp = "less" })
      local f = {}
      for i = 1, n do f[i] = keys[i] / 4 end
      check_sort(ctx, "f64", f, "i32", { stats = true })
    end)

    it("random input", function()
      local rng = R.rng(22)
      for _, n in ipairs { 17, 1000, 5633, 30000 } do
        local keys = rng:values(n, "i32")
        check_sort(ctx, "i32", keys, nil)
        check_sort(ctx, "i32", keys, "i32", { comp = "greater", stats = true })
      end
      check_sort(ctx, "u32", rng:values(100003, "u32"), "i32")
    end)

    it("already sorted and reverse-sorted inputs (with ties and without)", function()
      local rng = R.rng(23)
      for _, n in ipairs { 1000, 4353, 8704, 70001 } do
        local asc = G.sorted_uniform(rng, n, n // 4)
        local desc = G.reverse(asc)
        for _, comp in ipairs { "less", "greater" } do
          check_sort(ctx, "i32", asc, "i32", { comp = comp })
          check_sort(ctx, "i32", desc, "i32", { comp = comp, stats = true })
        end
        check_sort(ctx, "f64", R.astype(desc, "i32", "f64"), nil)
      end
      check_sort(ctx, "u32", R.iota(100000), "u32", { stats = true })
      check_sort(ctx, "u32", R.iota(100000), "u32", { comp = "greater" })
      check_sort(ctx, "i32", R.iota(100000, 100000, -1), "u64")
    end)

    it("all keys equal: the values stay 1..n", function()
      for _, n in ipairs { 1000, 4353, 70000 } do
        local k = ctx:fill(n, 42, "u64")
        local v = ctx:iota(n, 1, 1, "u32")
        mgpu.locality_sort(k, { values = v })
        C.array_eq(v, R.iota(n), "u32", "n=" .. n)
        local _, _, st = mgpu.locality_sort(k, { values = v, comp = "greater", stats = true })
        check_stats(st, "all equal")
        C.array_eq(v, R.iota(n), "u32", "greater n=" .. n)
        C.array_eq(k, R.iota(n, 42, 0), "u64", "keys n=" .. n)
      end
    end)

    it("sizes around tile boundaries (nearly sorted pairs)", function()
      local rng = R.rng(24)
      for _, T in ipairs { 64, 128, 1024, 2048, 2560, 3840, 5632, 11776 } do
        for _, n in ipairs { T - 1, T, T + 1, 2 * T + 1, 3 * T - 1 } do
          check_sort(ctx, "i32", nearly_sorted(rng, n, 25), "i32", { comp = (n % 2 == 0) and "greater" or "less" })
        end
      end
    end)

    it("keys and values that are slices, leaving the rest of the parents alone", function()
      local rng = R.rng(25)
      for _, n in ipairs { 10, 5001 } do
        local t = nearly_sorted(rng, n, 25)
        local big = ctx:fill(n + 7, 12345)
        local s = big:slice(4, n + 3)
        for i = 1, n do s[i] = t[i] end
        local bigv = ctx:fill(n + 3, -1, "i64")
        local sv = bigv:slice(2, n + 1)
        for i = 1, n do sv[i] = i end
        local rk, rv = mgpu.locality_sort(s, { values = sv })
        assert.is_true(rawequal(rk, s) and rawequal(rv, sv))
        C.no_diff(R.check_stable_sort(t, s:totable(), sv:totable(), "i32", "less"), "slice " .. n)
        C.table_eq(big:totable(1, 3), { 12345, 12345, 12345 }, "i32", "before the slice")
        C.table_eq(big:totable(n + 4), R.iota(4, 12345, 0), "i32", "after the slice")
        C.table_eq(bigv:totable(1, 1), { -1 }, "i64")
        C.table_eq(bigv:totable(n + 2), { -1, -1 }, "i64")
      end
    end)
  end)

  describe("stability", function()
    it("keys from a range of 4 keep their value order", function()
      local rng = R.rng(30)
      for _, n in ipairs { 100, 5000, 40000 } do
        local t = {}
        for i = 1, n do t[i] = rng:int(0, 3) end
        check_sort(ctx, "i32", t, "i32")
        check_sort(ctx, "i32", t, "i32", { comp = "greater" })
        -- nearly sorted with heavy ties
        local ns = nearly_sorted(rng, n, 25)
        for i = 1, n do ns[i] = ns[i] // 16 end
        check_sort(ctx, "i32", ns, "i32", { stats = true })
      end
    end)

    it("-0.0 and 0.0, and all NaNs, are equivalent keys", function()
      for _, dt in ipairs { "f32", "f64" } do
        for _, comp in ipairs { "less", "greater" } do
          check_sort(ctx, dt, { 0.0, -0.0, 0.0, -0.0, -0.0 }, "i32", { comp = comp })
          check_sort(ctx, dt, { nan, 1.0, -(0 / 0), nan, -1.0 }, "i32", { comp = comp })
        end
      end
    end)
  end)

  describe("dtypes", function()
    it("every dtype, both comparators, keys and pairs (NaN, -0.0, extremes)", function()
      local rng = R.rng(40)
      for di, dt in ipairs(R.dtypes) do
        for _, comp in ipairs { "less", "greater" } do
          local t = rng:values(6000, dt)
          check_sort(ctx, dt, t, nil, { comp = comp })
          check_sort(ctx, dt, t, "i32", { comp = comp })
          check_sort(ctx, dt, t, R.dtypes[7 - di], { comp = comp, stats = true })
        end
      end
    end)

    it("nearly sorted keys of every dtype", function()
      local rng = R.rng(41)
      for _, dt in ipairs(R.dtypes) do
        local f = G.order_map(dt, 20000)
        local t = nearly_sorted(rng, 12000, 25)
        for i = 1, #t do t[i] = f(t[i]) end
        check_sort(ctx, dt, t, "f64")
        check_sort(ctx, dt, G.reverse(t), "i32", { comp = "greater" })
      end
    end)

    it("keys and values keep their exact bits (NaN payloads, -0.0)", function()
      for _, dt in ipairs { "f64", "f32" } do
        local esize = R.size[dt]
        local s = G.odd_bytes(2345, dt)
        local vdt = (dt == "f64") and "u64" or "u32"
        for _, comp in ipairs { "less", "greater" } do
          local perm = R.sort_permutation(R.unpack(s, dt), dt, comp)
          local want = G.permute_bytes(s, perm, esize)
          local k, v = ctx:frombytes(s, dt), ctx:frombytes(s, vdt)
          mgpu.locality_sort(k, { values = v, comp = comp })
          C.bytes_eq(k:tobytes(), want, esize, dt .. " keys " .. comp)
          C.bytes_eq(v:tobytes(), want, esize, dt .. " values " .. comp)
        end
      end
    end)
  end)

  describe("stats", function()
    it("a sort within one blocksort tile has no merge passes", function()
      local rng = R.rng(50)
      for _, n in ipairs { 1, 2, 33, 50 } do
        local keys = rng:values(n, "i32")
        local _, _, st = check_sort(ctx, "i32", keys, nil, { stats = true })
        assert.are.equal(0, #st, "n=" .. n .. ": no merge passes")
        _, _, st = check_sort(ctx, "i32", keys, "i32", { stats = true, comp = "greater" })
        assert.are.equal(0, #st, "n=" .. n .. " pairs: no merge passes")
      end
    end)

    it("stats = false adds no result", function()
      check_sort(ctx, "i32", { 3, 1, 2 }, nil, { stats = false })
      check_sort(ctx, "i32", { 3, 1, 2 }, "i32", { stats = false })
    end)

    it("10^6 nearly sorted keys: the merge passes exit early", function()
      local rng = R.rng(51)
      local n = 1000000
      local t = nearly_sorted(rng, n, 25)
      local k = ctx:array(t)
      local v = ctx:iota(n)
      local rk, rv, st = mgpu.locality_sort(k, { values = v, stats = true })
      assert.is_true(rawequal(rk, k) and rawequal(rv, v))
      C.no_diff(R.check_stable_sort(t, k:totable(), v:totable(), "i32", "less"), "10^6 nearly sorted")
      local passes = check_stats(st, device)
      if device == "cuda" then
        assert.is_true(st.blocksort_tiles > 1, "10^6 keys need more than one blocksort tile")
        -- keys at most 25 from their place: one launch merges every window
        assert.are.equal(0, passes, "10^6 nearly sorted keys: no merge passes on cuda")
        assert.is_true(st.windows >= 1, "10^6 nearly sorted keys: windows merged on cuda")
      end
      -- tiles are meaningful on cuda; on cpu only where it reports passes
      if device == "cuda" or passes > 0 then
        assert_early_exit(st, device .. " pairs")
        local k2 = ctx:array(t, "i64")
        local _, st2 = mgpu.locality_sort(k2, { stats = true })
        assert_early_exit(st2, device .. " i64 keys")
        C.array_eq(k2, k:totable(), "i64", "i64 keys")
      end
    end)
  end)

  describe("bad input", function()
    local function context_works()
      local k = ctx:array { 3, 1, 2, 9, 8, 7 }
      local v = ctx:iota(6)
      mgpu.locality_sort(k, { values = v })
      C.array_eq(k, { 1, 2, 3, 7, 8, 9 }, "i32", "locality_sort after the error")
      C.array_eq(v, { 2, 3, 1, 6, 5, 4 }, "i32", "locality_sort after the error")
      local c = mgpu.merge(ctx:array { 1, 3 }, ctx:array { 2 })
      C.array_eq(c, { 1, 2, 3 }, "i32", "merge after the error")
    end
    local h = C.bad_input_harness(context_works)
    local guard, E = h.guard, h.E
    before_each(h.reset)

    local D = R.iota(100, 100, -1)

    it("keys that are not arrays", function()
      local keys = ctx:array(D)
      guard { { keys, D } }
      E(function() return mgpu.locality_sort({ 3, 1, 2 }) end, "mgpu.locality_sort", W("keys"), "table")
      E(function() return mgpu.locality_sort("312") end, "mgpu.locality_sort", W("keys"), "string")
      E(function() return mgpu.locality_sort(nil) end, "mgpu.locality_sort", W("keys"))
      E(function() return mgpu.locality_sort() end, "mgpu.locality_sort", W("keys"))
      E(function() return mgpu.locality_sort(ctx) end, "mgpu.locality_sort", W("keys"))
    end)

    it("values of the wrong length, not an array, overlapping the keys", function()
      local keys = ctx:array(D)
      guard { { keys, D } }
      local V = W("values")
      E(function() return mgpu.locality_sort(keys, { values = ctx:iota(99) }) end, "mgpu.locality_sort", V)
      E(function() return mgpu.locality_sort(keys, { values = ctx:iota(101) }) end, "mgpu.locality_sort", V)
      E(function() return mgpu.locality_sort(keys, { values = ctx:zeros(0) }) end, "mgpu.locality_sort", V)
      E(function() return mgpu.locality_sort(keys, { values = R.iota(100) }) end, "mgpu.locality_sort", V)
      E(function() return mgpu.locality_sort(keys, { values = "v" }) end, "mgpu.locality_sort", V)

      local arr = ctx:array { 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11 }
      local orig = arr:totable()
      guard { { keys, D }, { arr, orig } }
      local k = arr:slice(1, 10)
      E(function() return mgpu.locality_sort(k, { values = arr:slice(6, 15) }) end, "mgpu.locality_sort", V)
      E(function() return mgpu.locality_sort(k, { values = k }) end, "mgpu.locality_sort", V)
      E(function() return mgpu.locality_sort(k, { values = arr:slice(1, 10) }) end, "mgpu.locality_sort", V)
      E(function() return mgpu.locality_sort(arr:slice(5, 14), { values = arr:slice(1, 10) }) end,
        "mgpu.locality_sort", V)
      -- disjoint slices of one parent are fine
      mgpu.locality_sort(k, { values = arr:slice(11, 20) })
      C.array_eq(arr, { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 }, "i32")
    end)

    it("unknown options, bad comp, stats not a boolean, options not a table", function()
      local keys, vals = ctx:array(D), ctx:iota(100)
      guard { { keys, D }, { vals, R.iota(100) } }
      E(function() return mgpu.locality_sort(keys, { valeus = vals }) end, "mgpu.locality_sort", "valeus")
      E(function() return mgpu.locality_sort(keys, { stat = true }) end, "mgpu.locality_sort", W("stat"))
      E(function() return mgpu.locality_sort(keys, { flags = ctx:zeros(100) }) end, "mgpu.locality_sort", W("flags"))
      E(function() return mgpu.locality_sort(keys, { heads = { 5 } }) end, "mgpu.locality_sort", W("heads"))
      E(function() return mgpu.locality_sort(keys, { comp = "up" }) end, "mgpu.locality_sort", W("comp"), "up")
      E(function() return mgpu.locality_sort(keys, { comp = true }) end, "mgpu.locality_sort", W("comp"))
      E(function() return mgpu.locality_sort(keys, { stats = 1 }) end, "mgpu.locality_sort", W("stats"))
      E(function() return mgpu.locality_sort(keys, { stats = "yes" }) end, "mgpu.locality_sort", W("stats"))
      E(function() return mgpu.locality_sort(keys, "greater") end, "mgpu.locality_sort")
      E(function() return mgpu.locality_sort(keys, 1) end, "mgpu.locality_sort")
    end)

    it("freed arrays, arrays from different contexts", function()
      local keys = ctx:array(D)
      guard { { keys, D } }
      local fk = ctx:iota(10)
      fk:free()
      local fv = ctx:iota(100)
      fv:free()
      E(function() return mgpu.locality_sort(fk) end, "mgpu", FREED)
      E(function() return mgpu.locality_sort(keys, { values = fv }) end, "mgpu", FREED)
      local other = mgpu.context { device = device }
      local ov = other:iota(100)
      guard { { keys, D }, { ov, R.iota(100) } }
      E(function() return mgpu.locality_sort(keys, { values = ov }) end, "mgpu.locality_sort",
        { W("values"), "context" })
      if backends.has_cuda() then
        local x = (device == "cuda") and mgpu.context { device = "cpu" } or mgpu.context { device = "cuda" }
        E(function() return mgpu.locality_sort(keys, { values = x:iota(100) }) end, "mgpu.locality_sort")
      end
    end)
  end)
end)

backends.cuda_vs_cpu(function(gpu, cpu)
  -- 10^6 elements: cuda equals cpu byte for byte (the stable result is
  -- unique).
  local function compare(a, vdt, comp, label)
    local g = a:to(gpu)
    local opts_cpu, opts_gpu = { comp = comp }, { comp = comp }
    if vdt then
      local v = cpu:iota(#a, 1, 1, vdt)
      opts_cpu.values = v
      opts_gpu.values = v:to(gpu)
    end
    local k1, v1 = mgpu.locality_sort(a, opts_cpu)
    local k2, v2 = mgpu.locality_sort(g, opts_gpu)
    assert.is_true(rawequal(k2, g))
    assert.is_true(k1:is_sorted(comp), label .. ": cpu result sorted")
    C.same_array(k2, k1, label .. ": keys cuda vs cpu")
    if vdt then C.same_array(v2, v1, label .. ": values cuda vs cpu") end
    return k1, v1
  end

  it("10^6 nearly sorted keys (i + rand(0, 25)): keys and pairs, several dtypes", function()
    local rng = R.rng(100)
    local n = 1000000
    local t = nearly_sorted(rng, n, 25)
    local k1, v1 = compare(cpu:array(t), "i32", "less", "i32 pairs")
    C.no_diff(R.check_stable_sort(t, k1:totable(), v1:totable(), "i32", "less"), "cpu against the checker")
    compare(cpu:array(t), nil, "less", "i32 keys")
    compare(cpu:array(t, "i64"), "f64", "less", "i64 pairs")
    compare(cpu:array(t, "f32"), "u64", "less", "f32 pairs")
    compare(cpu:array(G.reverse(t), "u32"), "i32", "greater", "u32 pairs greater")
    -- a wider spread
    compare(cpu:array(nearly_sorted(rng, n, 5000)), "i32", "less", "spread 5000")
  end)

  it("spreads around the one-launch window limit (windows vs passes), keys and pairs", function()
    -- the limit is one pass tile (1408 to 2944 keys by dtype): spreads
    -- below, near and above it, and a few far-travelling keys in sorted input
    local rng = R.rng(102)
    local n = 300000
    for _, spread in ipairs { 700, 1300, 1500, 2900, 3100, 6000 } do
      local t = nearly_sorted(rng, n, spread)
      compare(cpu:array(t), "i32", "less", "spread " .. spread .. " i32 pairs")
      compare(cpu:array(t), nil, "less", "spread " .. spread .. " i32 keys")
      compare(cpu:array(t, "i64"), "i64", "less", "spread " .. spread .. " i64 pairs")
    end
    local t = R.iota(n, 0, 1)
    for _, i in ipairs { 5, 11776, 11777, 150000, n - 3 } do t[i] = rng:int(0, n) end
    compare(cpu:array(t), "i32", "less", "sorted with strays")
    compare(cpu:array(t), "u32", "greater", "sorted with strays, greater")
  end)

  local cases = {
    { "i32", "i32", 0, 1000, "less" },
    { "u32", nil, 0, R.U32_MAX, "greater" },
    { "i64", "u64", 1 << 53, (1 << 53) + 100, "less" },
    { "u64", "i64", 0, -1, "greater" },
    { "f32", "i32", -1.0, 1.0, "less", true },
    { "f64", "f64", -1e6, 1e6, "greater", true },
  }
  for ci, c in ipairs(cases) do
    local dt, vdt, lo, hi, comp, with_nan = c[1], c[2], c[3], c[4], c[5], c[6]
    it(string.format("10^6 random: keys %s values %s %s%s", dt, tostring(vdt), comp,
      with_nan and " with NaN" or ""), function()
      local n = 1000000 + ci
      local a = cpu:random(n, lo, hi, dt, 200 + ci)
      if with_nan then
        for i = 1, n, 4999 do a[i] = nan end
        for i = 3, n, 7001 do a[i] = -0.0 end
        for i = 5, n, 6007 do a[i] = 0.0 end
      end
      compare(a, vdt, comp, dt)
    end)
  end

  it("sorted, reverse-sorted and all-equal 10^6 inputs", function()
    for _, comp in ipairs { "less", "greater" } do
      compare(cpu:sorted_random(1000000, 0, 1000, "i32", 5), "i32", comp, "sorted " .. comp)
      compare(cpu:iota(1000000, 1000000, -1), "i32", comp, "reversed " .. comp)
      compare(cpu:fill(1000000, 7, "f64"), "i32", comp, "all equal " .. comp)
    end
  end)

  it("stats on cuda: nearly sorted input exits early, random input does not need to", function()
    local rng = R.rng(101)
    local n = 1000000
    local g = gpu:array(nearly_sorted(rng, n, 25))
    local _, st = mgpu.locality_sort(g, { stats = true })
    assert.is_true(st.blocksort_tiles > 1, "more than one blocksort tile")
    assert.are.equal(0, #st, "nearly sorted: no merge passes")
    assert.is_true(st.windows >= 1 and st.windows <= st.blocksort_tiles - 1, "nearly sorted: windows")
    assert_early_exit(st, "cuda nearly sorted")
    assert.is_true(g:is_sorted())
    local r = gpu:random(n, 0, 1000000, "i32", 7)
    local _, st2 = mgpu.locality_sort(r, { stats = true })
    check_stats(st2, "cuda random")
    assert.is_true(#st2 >= 1, "merge passes on random input")
    assert.are.equal(0, st2.windows, "random input: no windows")
    assert.is_true(r:is_sorted())
  end)
end)
