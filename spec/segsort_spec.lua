-- mgpu.segsort: the Segmented Sort seed's vectors (heads as a table, as
-- arrays of every integer dtype, with and without head 1, and as flags),
-- segments of length 1, one segment, heads at and around tile boundaries,
-- a segment spanning many tiles, empty and one-element keys, every dtype,
-- both comparators, stability, stats, random segment lengths against the
-- Lua reference (helpers/segsort.lua) and cuda against cpu byte for byte,
-- and bad input.

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

-- The forms segments may take: heads as a Lua table or an array of an
-- integer dtype, or flags ("flags:<dtype>") as an array of n elements.
local HEAD_KINDS = { "table", "i32", "i64", "u32", "u64" }
local FLAG_KINDS = { "flags:i32", "flags:u32", "flags:i64", "flags:u64" }

local function heads_arg(ctx, t, kind)
  if kind == "table" then return t end
  return ctx:array(t, kind)
end

local function flags_kind(form)
  return form:match("^flags:(%w+)$")
end

-- Tile sizes the GPU may use (blocksort and merge tiles of 4- and 8-byte
-- keys and values).
local TILES = { 64, 128, 1024, 2048, 2560, 3840, 5632, 11776 }

local check_stats = C.sort_stats

-- Calls mgpu.segsort(keys, heads_or_nil [, opts]) and checks the results
-- are keys [, values] [, stats] and nothing more.  Returns the stats.
local function call_segsort(k, harg, opts, label)
  local res
  if opts == nil then
    res = table.pack(mgpu.segsort(k, harg))
  else
    res = table.pack(mgpu.segsort(k, harg, opts))
  end
  assert.is_true(rawequal(res[1], k), label .. ": keys array not returned")
  local want = 1
  if opts and opts.values then
    want = 2
    assert.is_true(rawequal(res[2], opts.values), label .. ": values array not returned")
  end
  local st
  if opts and opts.stats then
    want = want + 1
    st = res[want]
    check_stats(st, label)
  end
  assert.are.equal(want, res.n, label .. ": number of results")
  return st
end

-- Segsorts the Lua table `keys` (dtype dt) on ctx with segments `heads`
-- (1-based Lua table) and checks the result against the reference.
-- o.form: "table" (default), an integer dtype (heads array) or
-- "flags:<dtype>"; o.comp; o.vdt: values 1..n of that dtype (keys only
-- when nil); o.stable; o.stats; o.flag_on: the value of head flags (a
-- number or function(i)); o.no_opts: call without an options table.
-- Returns the keys and values arrays and the stats.
local function check_segsort(ctx, dt, keys, heads, o)
  o = o or {}
  local form, comp, vdt = o.form or "table", o.comp, o.vdt
  local n = #keys
  local label = o.label or string.format("%s n=%d segments=%s %s values %s%s", dt, n, form,
    tostring(comp), tostring(vdt), o.stable == false and " unstable" or "")
  local k = ctx:array(keys, dt)
  local opts = {}
  local harg, flags, flags_t
  local fdt = flags_kind(form)
  if fdt then
    flags_t = S.heads_to_flags(n, heads, o.flag_on)
    flags = ctx:array(flags_t, fdt)
    opts.flags = flags
  else
    harg = heads_arg(ctx, heads, form)
  end
  if comp ~= nil then opts.comp = comp end
  if o.stable ~= nil then opts.stable = o.stable end
  if o.stats ~= nil then opts.stats = o.stats end
  local v
  if vdt then
    v = ctx:array(G.index_values(n, vdt), vdt)
    opts.values = v
  end
  if o.no_opts then
    assert(next(opts) == nil, "no_opts with options")
    opts = nil
  end
  local st = call_segsort(k, harg, opts, label)
  if vdt then
    local gv = v:totable()
    local perm = {}
    for i = 1, #gv do perm[i] = math.tointeger(gv[i]) or gv[i] end
    -- (with stable, a complete check: the stable result is unique)
    C.no_diff(S.check(keys, k:totable(), perm, heads, dt, comp, o.stable ~= false), label)
  else
    C.array_eq(k, (S.segsort(keys, heads, dt, comp)), dt, label)
  end
  if fdt then
    C.array_eq(flags, flags_t, fdt, label .. ": flags unchanged")
  elseif form ~= "table" then
    C.array_eq(harg, heads, form, label .. ": heads unchanged")
  end
  return k, v, st
end

-- n random i32 keys in [0, V].
local function int_keys(rng, n, V)
  local t = {}
  for i = 1, n do t[i] = rng:int(0, V) end
  return t
end

describe("the reference segmented sort", function()
  it("reproduces the seed's SEG-SORT KEYS and PAIRS tables", function()
    for _, heads in ipairs { SV.heads, R.concat({ 1 }, SV.heads) } do
      C.table_eq((S.segsort(SV.segsort_keys_input, heads, "i32", "less")), SV.segsort_keys_sorted, "i32")
      local k, v = S.segsort(SV.segsort_pairs_input, heads, "i32", "less", R.iota(100, 0))
      C.table_eq(k, SV.segsort_pairs_sorted, "i32", "pairs keys")
      C.table_eq(v, SV.segsort_pairs_indices, "i32", "pairs values")
      local perm = {}
      for i = 1, 100 do perm[i] = SV.segsort_pairs_indices[i] + 1 end
      C.no_diff(S.check(SV.segsort_pairs_input, SV.segsort_pairs_sorted, perm, heads, "i32", "less"),
        "the seed's pairs pass the checker")
    end
    C.table_eq((S.segsort_flags(SV.segsort_keys_input, S.heads_to_flags(100, SV.heads), "i32")),
      SV.segsort_keys_sorted, "i32", "flags")
    for i = 1, 10 do C.equal(SV.heads[i], SV.heads_0based[i] + 1, "1-based heads") end
  end)

  it("agrees with sorting each segment on its own with table.sort (distinct keys)", function()
    local rng = R.rng(1)
    for _ = 1, 200 do
      local n = rng:int(0, 60)
      local keys = {}
      local used = {}
      for i = 1, n do
        local x
        repeat x = rng:int(-1000, 1000) until not used[x]
        used[x] = true
        keys[i] = x
      end
      local heads = S.random_heads(rng, n, rng:int(1, 8), rng:int(0, 1) == 1)
      local starts = S.starts(n, heads)
      local want = {}
      for j = 1, #starts do
        local lo, hi = starts[j], (starts[j + 1] or n + 1) - 1
        local seg = R.sub(keys, lo, hi)
        table.sort(seg)
        for i = lo, hi do want[i] = seg[i - lo + 1] end
      end
      C.table_eq((S.segsort(keys, heads, "i32", "less")), want, "i32")
      -- distinct keys: "greater" reverses each segment
      local rev = {}
      for j = 1, #starts do
        local lo, hi = starts[j], (starts[j + 1] or n + 1) - 1
        for i = lo, hi do rev[i] = want[hi - (i - lo)] end
      end
      C.table_eq((S.segsort(keys, heads, "i32", "greater")), rev, "i32", "greater")
    end
  end)

  it("the checker catches a key leaving its segment, an unsorted segment and instability", function()
    local orig = { 3, 1, 2, 2 }
    assert.is_nil(S.check(orig, { 1, 3, 2, 2 }, { 2, 1, 3, 4 }, { 3 }, "i32", "less"))
    assert.is_not_nil(S.check(orig, { 1, 2, 3, 2 }, { 2, 3, 1, 4 }, { 3 }, "i32", "less"))
    assert.is_not_nil(S.check(orig, { 3, 1, 2, 2 }, { 1, 2, 3, 4 }, { 3 }, "i32", "less"))
    assert.is_not_nil(S.check(orig, { 1, 3, 2, 2 }, { 2, 1, 4, 3 }, { 3 }, "i32", "less"))
    assert.is_nil(S.check(orig, { 1, 3, 2, 2 }, { 2, 1, 4, 3 }, { 3 }, "i32", "less", false))
  end)
end)

backends.each(function(ctx, device)
  describe("seed 004", function()
    it("SEG-SORT KEYS: heads as a table and as arrays, with and without head 1", function()
      for _, kind in ipairs(HEAD_KINDS) do
        for _, heads in ipairs { SV.heads, R.concat({ 1 }, SV.heads) } do
          local k = ctx:array(SV.segsort_keys_input)
          local h = heads_arg(ctx, heads, kind)
          local r = mgpu.segsort(k, h)
          assert.is_true(rawequal(r, k))
          C.array_eq(k, SV.segsort_keys_sorted, "i32", string.format("heads %s (%d)", kind, #heads))
          if kind ~= "table" then C.array_eq(h, heads, kind, "heads unchanged") end
        end
      end
      -- the heads as a slice of a larger array
      local big = ctx:array(R.concat(R.concat({ 7, 7, 7 }, SV.heads), { 0, 0 }), "i64")
      local k = ctx:array(SV.segsort_keys_input)
      mgpu.segsort(k, big:slice(4, 13))
      C.array_eq(k, SV.segsort_keys_sorted, "i32", "heads a slice")
    end)

    it("SEG-SORT KEYS: as flags of every integer dtype", function()
      for _, form in ipairs(FLAG_KINDS) do
        local fdt = flags_kind(form)
        for _, f1 in ipairs { 0, 1 } do
          local f = S.heads_to_flags(100, SV.heads)
          f[1] = f1
          local k = ctx:array(SV.segsort_keys_input)
          local flags = ctx:array(f, fdt)
          local r, extra = mgpu.segsort(k, nil, { flags = flags })
          assert.is_true(rawequal(r, k))
          assert.is_nil(extra)
          C.array_eq(k, SV.segsort_keys_sorted, "i32", form .. " flags[1] = " .. f1)
          C.array_eq(flags, f, fdt, "flags unchanged")
        end
      end
      -- any non-zero value marks a head
      local f = S.heads_to_flags(100, SV.heads, function(i) return (i % 2 == 0) and -1 or i * 1000 end)
      local k = ctx:array(SV.segsort_keys_input)
      mgpu.segsort(k, nil, { flags = ctx:array(f, "i64") })
      C.array_eq(k, SV.segsort_keys_sorted, "i32", "non-zero flags")
      k = ctx:array(SV.segsort_keys_input)
      mgpu.segsort(k, nil, { flags = ctx:array(S.heads_to_flags(100, SV.heads, -1), "u64") })
      C.array_eq(k, SV.segsort_keys_sorted, "i32", "flags 2^64 - 1")
    end)

    it("SEG-SORT PAIRS: keys and values 0..99, every form of heads", function()
      local forms = R.concat(HEAD_KINDS, FLAG_KINDS)
      for _, form in ipairs(forms) do
        for _, heads in ipairs { SV.heads, R.concat({ 1 }, SV.heads) } do
          local k = ctx:array(SV.segsort_pairs_input)
          local v = ctx:iota(100, 0)
          local opts = { values = v }
          local harg
          local fdt = flags_kind(form)
          if fdt then
            opts.flags = ctx:array(S.heads_to_flags(100, heads), fdt)
          else
            harg = heads_arg(ctx, heads, form)
          end
          local rk, rv, extra = mgpu.segsort(k, harg, opts)
          assert.is_true(rawequal(rk, k))
          assert.is_true(rawequal(rv, v))
          assert.is_nil(extra)
          C.array_eq(k, SV.segsort_pairs_sorted, "i32", form .. " keys")
          C.array_eq(v, SV.segsort_pairs_indices, "i32", form .. " values")
        end
      end
    end)

    it("the seed's vectors as other key and value dtypes, with stable = true and stats", function()
      for _, dt in ipairs(R.dtypes) do
        local k = ctx:array(SV.segsort_pairs_input, dt)
        local v = ctx:iota(100, 0, 1, "f64")
        local rk, rv, st = mgpu.segsort(k, ctx:array(SV.heads, "u32"), { values = v, stable = true, stats = true })
        assert.is_true(rawequal(rk, k) and rawequal(rv, v))
        check_stats(st, dt)
        C.array_eq(k, R.astype(SV.segsort_pairs_sorted, "i32", dt), dt, dt .. " keys")
        C.array_eq(v, R.astype(SV.segsort_pairs_indices, "i32", "f64"), "f64", dt .. " values")
      end
    end)
  end)

  describe("segments", function()
    it("every element a head: nothing moves", function()
      local rng = R.rng(20)
      for _, n in ipairs { 1, 2, 3, 100, 4097 } do
        local keys = rng:values(n, "f64")
        local all = R.iota(n)
        for _, heads in ipairs { all, R.iota(n - 1, 2) } do
          for _, form in ipairs { "table", "i32", "flags:i32" } do
            local k, v = check_segsort(ctx, "f64", keys, heads, { form = form, vdt = "i32" })
            C.array_eq(k, keys, "f64", "keys unchanged")
            C.array_eq(v, R.iota(n), "i32", "values unchanged")
          end
        end
        check_segsort(ctx, "f64", keys, all, { comp = "greater" })
      end
    end)

    it("one segment: empty heads, heads = {1}, all-zero flags (a stable sort)", function()
      local rng = R.rng(21)
      for _, n in ipairs { 1, 2, 100, 3000, 20001 } do
        local keys = int_keys(rng, n, n // 4)
        local want = R.mergesort(keys, "i32", "less")
        for _, form in ipairs { "table", "i32", "u64", "flags:i32" } do
          for _, heads in ipairs { {}, { 1 } } do
            local k = check_segsort(ctx, "i32", keys, heads, { form = form, vdt = "u32" })
            C.array_eq(k, want, "i32", "a full sort")
          end
        end
        check_segsort(ctx, "i32", keys, {}, { comp = "greater" })
        check_segsort(ctx, "i32", keys, { 1 }, { no_opts = true })
        check_segsort(ctx, "i32", keys, {}, { no_opts = true })
      end
    end)

    it("empty keys", function()
      for _, dt in ipairs(R.dtypes) do
        local k = ctx:zeros(0, dt)
        assert.is_true(rawequal(mgpu.segsort(k, {}), k))
        assert.are.equal(0, #k)
        assert.is_true(rawequal(mgpu.segsort(k, ctx:zeros(0, "i64")), k))
        assert.is_true(rawequal(mgpu.segsort(k, nil, { flags = ctx:zeros(0, "u32") }), k))
        local v = ctx:zeros(0, "f64")
        local rk, rv, st = mgpu.segsort(k, {}, { values = v, stats = true, comp = "greater" })
        assert.is_true(rawequal(rk, k) and rawequal(rv, v))
        check_stats(st, "empty")
        assert.are.equal(0, #st, "no merge passes for no keys")
        local rk2, st2 = mgpu.segsort(k, nil, { flags = ctx:zeros(0), stats = true })
        assert.is_true(rawequal(rk2, k))
        check_stats(st2, "empty, flags")
      end
    end)

    it("one element", function()
      for _, dt in ipairs(R.dtypes) do
        for _, form in ipairs { "table", "i32", "flags:u32" } do
          for _, heads in ipairs { {}, { 1 } } do
            check_segsort(ctx, dt, { 7 }, heads, { form = form })
            check_segsort(ctx, dt, { 7 }, heads, { form = form, vdt = "i64", comp = "greater", stats = true })
          end
        end
        local k = ctx:array({ 5 }, dt)
        mgpu.segsort(k, nil, { flags = ctx:array { 1 } })
        C.array_eq(k, R.astype({ 5 }, "i32", dt), dt)
      end
    end)

    it("two and three segments: first or last element alone, a split in the middle", function()
      local rng = R.rng(22)
      for _, n in ipairs { 2, 3, 17, 1000, 12000 } do
        local keys = int_keys(rng, n, 50)
        for _, heads in ipairs { { 2 }, { n }, { (n + 1) // 2 + 1 }, { 2, n }, { 1, 2 } } do
          if heads[#heads] <= n and (#heads < 2 or heads[1] < heads[2]) then
            check_segsort(ctx, "i32", keys, heads, { vdt = "i32" })
            check_segsort(ctx, "i32", keys, heads, { form = "i64", comp = "greater" })
            check_segsort(ctx, "i32", keys, heads, { form = "flags:i64", vdt = "f32" })
          end
        end
      end
    end)

    it("heads at and around tile boundaries (n around 36000, pairs)", function()
      local rng = R.rng(23)
      for ti, T in ipairs(TILES) do
        local n = 36000 + ti % 3 - 1
        local keys = int_keys(rng, n, 1000)
        -- heads on both sides of every tile boundary at once
        local all4 = S.boundary_heads(n, T, { -1, 0, 1, 2 })
        check_segsort(ctx, "i32", keys, all4, { vdt = "i32", form = HEAD_KINDS[ti % 5 + 1] })
        -- one head per boundary, each offset in turn (segments of exactly T
        -- elements, aligned and misaligned with the tiles)
        for di, d in ipairs { -1, 0, 1, 2 } do
          local heads = S.boundary_heads(n, T, { d })
          local comp = (di % 2 == 0) and "greater" or "less"
          check_segsort(ctx, "i32", keys, heads, { vdt = "i32", comp = comp, form = (di == 3) and "flags:i32" or "i32" })
        end
      end
    end)

    it("heads around tile boundaries with 8-byte keys and values, keys only", function()
      local rng = R.rng(24)
      for ti, T in ipairs(TILES) do
        if T >= 1024 then
          local n = 3 * 12000 - ti
          local keys = {}
          for i = 1, n do keys[i] = (1 << 53) + rng:int(-500, 500) end
          local heads = S.boundary_heads(n, T, { 0, 1 })
          check_segsort(ctx, "i64", keys, heads, { vdt = "f64", form = "u32" })
          check_segsort(ctx, "i64", keys, heads, { comp = "greater" })
        end
      end
    end)

    it("a segment spanning many tiles: n = 200000, heads {5, 150001}", function()
      local rng = R.rng(25)
      local n = 200000
      local keys = int_keys(rng, n, 100000)
      for _, form in ipairs { "table", "i32", "flags:u64" } do
        check_segsort(ctx, "i32", keys, { 5, 150001 }, { vdt = "i32", form = form })
      end
      check_segsort(ctx, "i32", keys, { 1, 5, 150001 }, { comp = "greater", form = "i64" })
      -- a segment of all but the first and the last element
      check_segsort(ctx, "i32", keys, { 2, n }, { vdt = "u64" })
    end)

    it("keys and values that are slices, leaving the rest of the parents alone", function()
      local rng = R.rng(26)
      for _, n in ipairs { 10, 5001 } do
        local t = int_keys(rng, n, 30)
        local heads = S.random_heads(rng, n, 7, false)
        local big = ctx:fill(n + 7, 12345)
        local s = big:slice(4, n + 3)
        for i = 1, n do s[i] = t[i] end
        local bigv = ctx:fill(n + 3, -1, "i64")
        local sv = bigv:slice(2, n + 1)
        for i = 1, n do sv[i] = i end
        local rk, rv = mgpu.segsort(s, heads, { values = sv })
        assert.is_true(rawequal(rk, s) and rawequal(rv, sv))
        C.no_diff(S.check(t, s:totable(), sv:totable(), heads, "i32", "less"), "slice " .. n)
        C.table_eq(big:totable(1, 3), { 12345, 12345, 12345 }, "i32", "before the slice")
        C.table_eq(big:totable(n + 4), R.iota(4, 12345, 0), "i32", "after the slice")
        C.table_eq(bigv:totable(1, 1), { -1 }, "i64")
        C.table_eq(bigv:totable(n + 2), { -1, -1 }, "i64")
      end
    end)
  end)

  describe("dtypes", function()
    it("every key dtype, both comparators, keys and pairs (NaN, -0.0, extremes)", function()
      local rng = R.rng(30)
      for di, dt in ipairs(R.dtypes) do
        for _, comp in ipairs { "less", "greater" } do
          local n = 6000 + di
          local keys = rng:values(n, dt)
          local heads = S.random_heads(rng, n, (di % 2 == 0) and 40 or 900, di % 3 == 0)
          check_segsort(ctx, dt, keys, heads, { comp = comp })
          check_segsort(ctx, dt, keys, heads, { comp = comp, vdt = "i32", form = HEAD_KINDS[di % 5 + 1] })
          check_segsort(ctx, dt, keys, heads, { comp = comp, vdt = R.dtypes[7 - di], form = FLAG_KINDS[di % 4 + 1] })
        end
      end
    end)

    it("float keys: NaN last under less, first under greater within each segment", function()
      for _, dt in ipairs { "f32", "f64" } do
        local inf = R.inf
        local keys = { nan, 1.0, -inf, 0.0, -0.0, nan, -5.0, inf, nan, 2.0, -0.0, 0.0 }
        local heads = { 4, 9 }
        check_segsort(ctx, dt, keys, heads, { vdt = "i32" })
        check_segsort(ctx, dt, keys, heads, { vdt = "i32", comp = "greater" })
        local k = ctx:array(keys, dt)
        mgpu.segsort(k, heads)
        local t = k:totable()
        C.table_eq(R.sub(t, 1, 2), { -inf, 1.0 }, dt, "segment 1")
        assert.is_true(t[3] ~= t[3], "NaN last in segment 1")
        C.table_eq(R.sub(t, 4, 7), { -5.0, 0.0, -0.0, inf }, dt, "segment 2")
        assert.is_true(t[8] ~= t[8], "NaN last in segment 2")
        C.table_eq(R.sub(t, 9, 11), { -0.0, 0.0, 2.0 }, dt, "segment 3")
        assert.is_true(t[12] ~= t[12], "NaN last in segment 3")
        k = ctx:array(keys, dt)
        mgpu.segsort(k, heads, { comp = "greater" })
        t = k:totable()
        assert.is_true(t[1] ~= t[1], "NaN first in segment 1")
        C.table_eq(R.sub(t, 2, 3), { 1.0, -inf }, dt, "segment 1, greater")
        assert.is_true(t[4] ~= t[4], "NaN first in segment 2")
        C.table_eq(R.sub(t, 5, 8), { inf, 0.0, -0.0, -5.0 }, dt, "segment 2, greater")
        assert.is_true(t[9] ~= t[9], "NaN first in segment 3")
        C.table_eq(R.sub(t, 10, 12), { 2.0, -0.0, 0.0 }, dt, "segment 3, greater")
      end
    end)

    it("keys and values keep their exact bits (NaN payloads, -0.0)", function()
      for _, dt in ipairs { "f64", "f32" } do
        local esize = R.size[dt]
        local n = 2345
        local s = G.odd_bytes(n, dt)
        local vdt = (dt == "f64") and "u64" or "u32"
        local heads = S.random_heads(R.rng(31), n, 20, false)
        for _, comp in ipairs { "less", "greater" } do
          local perm = S.sort_permutation(R.unpack(s, dt), heads, dt, comp)
          local want = G.permute_bytes(s, perm, esize)
          local k, v = ctx:frombytes(s, dt), ctx:frombytes(s, vdt)
          mgpu.segsort(k, heads, { values = v, comp = comp })
          C.bytes_eq(k:tobytes(), want, esize, dt .. " keys " .. comp)
          C.bytes_eq(v:tobytes(), want, esize, dt .. " values " .. comp)
        end
      end
    end)
  end)

  describe("stability", function()
    it("stable = true: keys from a range of 4 keep their value order", function()
      local rng = R.rng(40)
      for _, n in ipairs { 100, 5000, 40000 } do
        local keys = int_keys(rng, n, 3)
        for _, mean in ipairs { 5, 300, 5000 } do
          local heads = S.random_heads(rng, n, mean, false)
          check_segsort(ctx, "i32", keys, heads, { vdt = "i32", stable = true })
          check_segsort(ctx, "i32", keys, heads, { vdt = "i32", stable = true, comp = "greater", form = "flags:i32" })
          check_segsort(ctx, "i32", keys, heads, { vdt = "i32" })
        end
      end
    end)

    it("all keys equal: the values stay 1..n", function()
      for _, n in ipairs { 1000, 4353, 70000 } do
        local k = ctx:fill(n, 42, "u64")
        local v = ctx:iota(n, 1, 1, "u32")
        local heads = S.random_heads(R.rng(n), n, 500, false)
        mgpu.segsort(k, heads, { values = v, stable = true })
        C.array_eq(v, R.iota(n), "u32", "n=" .. n)
        mgpu.segsort(k, ctx:array(heads), { values = v, comp = "greater" })
        C.array_eq(v, R.iota(n), "u32", "greater n=" .. n)
      end
    end)

    it("stable = false still sorts every segment and moves values with their keys", function()
      local rng = R.rng(41)
      for _, n in ipairs { 100, 30000 } do
        local keys = int_keys(rng, n, 3)
        local heads = S.random_heads(rng, n, 250, true)
        check_segsort(ctx, "i32", keys, heads, { vdt = "i32", stable = false })
        check_segsort(ctx, "i32", keys, heads, { vdt = "i32", stable = false, comp = "greater", form = "flags:u32" })
        check_segsort(ctx, "i32", keys, heads, { stable = false })
      end
    end)
  end)

  describe("stats", function()
    it("stats = true adds a last result of the documented shape", function()
      local rng = R.rng(50)
      for _, n in ipairs { 2, 100, 5000, 100000 } do
        local keys = int_keys(rng, n, 1000)
        local heads = S.random_heads(rng, n, 300, false)
        local _, _, st = check_segsort(ctx, "i32", keys, heads, { stats = true })
        check_stats(st, "keys n=" .. n)
        _, _, st = check_segsort(ctx, "i32", keys, heads, { stats = true, vdt = "f64", comp = "greater" })
        check_stats(st, "pairs n=" .. n)
        _, _, st = check_segsort(ctx, "i32", keys, heads, { stats = true, form = "flags:i32", vdt = "i32" })
        check_stats(st, "flags n=" .. n)
        -- stats = false: no extra result
        check_segsort(ctx, "i32", keys, heads, { stats = false, vdt = "i32" })
        check_segsort(ctx, "i32", keys, heads, { stats = false })
      end
    end)

    it("a sort within one blocksort tile has no merge passes", function()
      local rng = R.rng(51)
      for _, n in ipairs { 1, 2, 33, 50 } do
        local keys = int_keys(rng, n, 10)
        for _, heads in ipairs { {}, { n }, S.random_heads(rng, n, 5, false) } do
          local _, _, st = check_segsort(ctx, "i32", keys, heads, { stats = true })
          assert.are.equal(0, #st, "n=" .. n .. ": no merge passes")
          _, _, st = check_segsort(ctx, "i32", keys, heads, { stats = true, vdt = "i32", form = "flags:i32" })
          assert.are.equal(0, #st, "n=" .. n .. " pairs: no merge passes")
        end
      end
    end)
  end)

  describe("random segment lengths against the Lua reference at 10^5", function()
    for mi, mean in ipairs { 10, 300, 10000 } do
      it("mean segment length " .. mean .. ": keys and pairs", function()
        local rng = R.rng(60 + mi)
        local n = 100000 + mi
        local keys = int_keys(rng, n, 1 << 20)
        local heads = S.random_heads(rng, n, mean, mi == 2)
        check_segsort(ctx, "i32", keys, heads, { vdt = "i32", form = HEAD_KINDS[mi + 1] })
        check_segsort(ctx, "i32", keys, heads, { form = "table", comp = "greater" })
        check_segsort(ctx, "i32", keys, heads, { vdt = "i32", form = "flags:i32", comp = (mi == 2) and "greater" or "less" })
      end)
    end

    for ci, c in ipairs {
      { "u64", "f32", "greater" }, { "f32", "i64", "less" }, { "f64", "f64", "greater" },
    } do
      local dt, vdt, comp = c[1], c[2], c[3]
      it(string.format("keys %s values %s %s", dt, vdt, comp), function()
        local rng = R.rng(70 + ci)
        local n = 100003
        local keys = rng:values(n, dt)
        check_segsort(ctx, dt, keys, S.random_heads(rng, n, ({ 10, 300, 10000 })[ci], false),
          { vdt = vdt, comp = comp, form = "i64" })
      end)
    end
  end)

  describe("10^6 elements (checked in Lua, O(n))", function()
    it("mean segment length 300, pairs, heads as an i32 array", function()
      local rng = R.rng(80)
      local n = 1000000
      local k = ctx:random(n, 0, 50000, "i32", 80)
      local orig = k:totable()
      local heads = S.random_heads(rng, n, 300, false)
      local v = ctx:iota(n)
      mgpu.segsort(k, ctx:array(heads, "i32"), { values = v })
      C.no_diff(S.check(orig, k:totable(), v:totable(), heads, "i32", "less"), "10^6 i32 pairs")
    end)
  end)

  describe("bad input", function()
    local function context_works()
      local k = ctx:array { 3, 1, 2, 9, 8, 7 }
      local v = ctx:iota(6)
      mgpu.segsort(k, { 4 }, { values = v })
      C.array_eq(k, { 1, 2, 3, 7, 8, 9 }, "i32", "segsort after the error")
      C.array_eq(v, { 2, 3, 1, 6, 5, 4 }, "i32", "segsort after the error")
      local c = mgpu.merge(ctx:array { 1, 3 }, ctx:array { 2 })
      C.array_eq(c, { 1, 2, 3 }, "i32", "merge after the error")
      local s = ctx:random(5000, 0, 100, "i32", 1)
      mgpu.mergesort(s)
      assert.is_true(s:is_sorted(), "sort after the error")
    end
    local h = C.bad_input_harness(context_works)
    local guard, E, at = h.guard, h.E, h.at
    before_each(h.reset)

    local D = R.iota(100, 100, -1)
    local RANGE = C.lit("sorted, unique and in 1..100")

    it("heads unsorted, duplicate, 0, #keys + 1, negative", function()
      local keys, vals = ctx:array(D), ctx:iota(100)
      guard { { keys, D }, { vals, R.iota(100) } }
      local cases = {
        { { 5, 3 }, 3, 2 },
        { { 3, 3 }, 3, 2 },
        { { 5, 7, 7, 9 }, 7, 3 },
        { { 1, 1 }, 1, 2 },
        { { 4, 1, 2 }, 1, 2 },
        { { 0 }, 0, 1 },
        { { 0, 5 }, 0, 1 },
        { { 1, 2, 101 }, 101, 3 },
        { { 100, 101 }, 101, 2 },
        { { -1, 5 }, -1, 1 },
        { { 2, 50, 1000000 }, 1000000, 3 },
      }
      for _, c in ipairs(cases) do
        for _, kind in ipairs { "table", "i32", "i64" } do
          local idx = heads_arg(ctx, c[1], kind)
          E(function() return mgpu.segsort(keys, idx) end, "mgpu.segsort", W("heads"), RANGE,
            at(c[2], c[3]))
          E(function() return mgpu.segsort(keys, idx, { values = vals, stats = true }) end,
            "mgpu.segsort", W("heads"), RANGE, at(c[2], c[3]))
        end
      end
      -- unsigned heads arrays: past the end, and 2^63 (a negative Lua integer)
      E(function() return mgpu.segsort(keys, ctx:array({ 1, 0xffffffff }, "u32")) end,
        "mgpu.segsort", W("heads"), RANGE, "position")
      E(function() return mgpu.segsort(keys, ctx:array({ 1, math.mininteger }, "u64")) end,
        "mgpu.segsort", W("heads"), RANGE, "position")
      E(function() return mgpu.segsort(keys, ctx:array({ -1 }, "u64")) end,
        "mgpu.segsort", W("heads"), RANGE, "position")
      E(function() return mgpu.segsort(keys, ctx:array({ 3, 2 }, "u32")) end,
        "mgpu.segsort", W("heads"), RANGE, at(2, 2))
      -- i64 heads are checked before they become the backend's i32 (cuda;
      -- cpu below 2^31 - 1 keys): 2^32 + 1 must not wrap to 1
      E(function() return mgpu.segsort(keys, ctx:array({ 1, (1 << 32) + 1 }, "i64")) end,
        "mgpu.segsort", W("heads"), RANGE, at(4294967297, 2))
      E(function() return mgpu.segsort(keys, { 1, (1 << 32) + 1 }) end,
        "mgpu.segsort", W("heads"), RANGE, at(4294967297, 2))
      -- more heads than keys; a head in empty keys
      E(function() return mgpu.segsort(ctx:iota(3), { 1, 2, 3, 4 }) end, "mgpu.segsort", W("heads"))
      E(function() return mgpu.segsort(ctx:zeros(0), { 1 }) end, "mgpu.segsort", W("heads"))
    end)

    it("heads of the wrong type: floats, strings, float arrays, not a table", function()
      local keys = ctx:array(D)
      guard { { keys, D } }
      E(function() return mgpu.segsort(keys, { 1, 2.5 }) end, "mgpu.segsort", W("heads"))
      E(function() return mgpu.segsort(keys, { 1, nan }) end, "mgpu.segsort", W("heads"))
      E(function() return mgpu.segsort(keys, { 1, math.huge }) end, "mgpu.segsort", W("heads"))
      E(function() return mgpu.segsort(keys, { 1, "2" }) end, "mgpu.segsort", W("heads"))
      E(function() return mgpu.segsort(keys, { 1, {} }) end, "mgpu.segsort", W("heads"))
      E(function() return mgpu.segsort(keys, { 1, true }) end, "mgpu.segsort", W("heads"))
      for _, dt in ipairs { "f32", "f64" } do
        local f = ctx:array({ 5, 9 }, dt)
        E(function() return mgpu.segsort(keys, f) end, "mgpu.segsort", W("heads"))
      end
      E(function() return mgpu.segsort(keys, "5 9") end, "mgpu.segsort", W("heads"))
      E(function() return mgpu.segsort(keys, 5) end, "mgpu.segsort", W("heads"))
      E(function() return mgpu.segsort(keys, true) end, "mgpu.segsort", W("heads"))
      E(function() return mgpu.segsort(keys, ctx) end, "mgpu.segsort", W("heads"))
    end)

    it("neither heads nor flags, both, flags of the wrong length or dtype", function()
      local keys, vals = ctx:array(D), ctx:iota(100)
      local f = ctx:zeros(100)
      guard { { keys, D }, { vals, R.iota(100) }, { f, R.iota(100, 0, 0) } }
      local HF = { W("heads"), W("flags") }
      E(function() return mgpu.segsort(keys) end, "mgpu.segsort", HF)
      E(function() return mgpu.segsort(keys, nil) end, "mgpu.segsort", HF)
      E(function() return mgpu.segsort(keys, nil, {}) end, "mgpu.segsort", HF)
      E(function() return mgpu.segsort(keys, nil, { values = vals }) end, "mgpu.segsort", HF)
      E(function() return mgpu.segsort(keys, { 5 }, { flags = f }) end, "mgpu.segsort", HF)
      E(function() return mgpu.segsort(keys, {}, { flags = f }) end, "mgpu.segsort", HF)
      E(function() return mgpu.segsort(keys, ctx:array { 5 }, { flags = f }) end, "mgpu.segsort", HF)
      for _, len in ipairs { 0, 1, 99, 101 } do
        local fl = ctx:zeros(len)
        E(function() return mgpu.segsort(keys, nil, { flags = fl }) end, "mgpu.segsort", W("flags"))
      end
      for _, dt in ipairs { "f32", "f64" } do
        local fl = ctx:zeros(100, dt)
        E(function() return mgpu.segsort(keys, nil, { flags = fl }) end, "mgpu.segsort", W("flags"))
      end
      E(function() return mgpu.segsort(keys, nil, { flags = "0101" }) end, "mgpu.segsort", W("flags"))
      E(function() return mgpu.segsort(keys, nil, { flags = 1 }) end, "mgpu.segsort", W("flags"))
      E(function() return mgpu.segsort(ctx:zeros(0), nil, { flags = ctx:zeros(1) }) end,
        "mgpu.segsort", W("flags"))
    end)

    it("values of the wrong length, not an array, overlapping the keys", function()
      local keys = ctx:array(D)
      guard { { keys, D } }
      local V = W("values")
      E(function() return mgpu.segsort(keys, { 5 }, { values = ctx:iota(99) }) end, "mgpu.segsort", V)
      E(function() return mgpu.segsort(keys, { 5 }, { values = ctx:iota(101) }) end, "mgpu.segsort", V)
      E(function() return mgpu.segsort(keys, { 5 }, { values = ctx:zeros(0) }) end, "mgpu.segsort", V)
      E(function() return mgpu.segsort(keys, nil, { flags = ctx:zeros(100), values = ctx:iota(3) }) end,
        "mgpu.segsort", V)
      E(function() return mgpu.segsort(keys, { 5 }, { values = R.iota(100) }) end, "mgpu.segsort", V)
      E(function() return mgpu.segsort(keys, { 5 }, { values = "v" }) end, "mgpu.segsort", V)

      local arr = ctx:array { 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11 }
      local orig = arr:totable()
      guard { { keys, D }, { arr, orig } }
      local k = arr:slice(1, 10)
      E(function() return mgpu.segsort(k, { 6 }, { values = arr:slice(6, 15) }) end, "mgpu.segsort", V)
      E(function() return mgpu.segsort(k, { 6 }, { values = k }) end, "mgpu.segsort", V)
      E(function() return mgpu.segsort(k, { 6 }, { values = arr:slice(1, 10) }) end, "mgpu.segsort", V)
      E(function() return mgpu.segsort(arr:slice(5, 14), { 6 }, { values = arr:slice(1, 10) }) end,
        "mgpu.segsort", V)
      -- disjoint slices of one parent are fine
      mgpu.segsort(k, { 6 }, { values = arr:slice(11, 20) })
      C.array_eq(arr, { 6, 7, 8, 9, 10, 1, 2, 3, 4, 5, 16, 17, 18, 19, 20, 11, 12, 13, 14, 15 }, "i32")
    end)

    it("unknown options, bad comp, stats and stable not booleans, options not a table", function()
      local keys, vals = ctx:array(D), ctx:iota(100)
      guard { { keys, D }, { vals, R.iota(100) } }
      E(function() return mgpu.segsort(keys, { 5 }, { valeus = vals }) end, "mgpu.segsort", "valeus")
      E(function() return mgpu.segsort(keys, { 5 }, { stabel = true }) end, "mgpu.segsort", "stabel")
      E(function() return mgpu.segsort(keys, { 5 }, { heads = { 5 } }) end, "mgpu.segsort", W("heads"))
      E(function() return mgpu.segsort(keys, { 5 }, { out = ctx:zeros(100) }) end, "mgpu.segsort", W("out"))
      E(function() return mgpu.segsort(keys, { 5 }, { comp = "up" }) end, "mgpu.segsort", W("comp"), "up")
      E(function() return mgpu.segsort(keys, { 5 }, { comp = 1 }) end, "mgpu.segsort", W("comp"))
      E(function() return mgpu.segsort(keys, { 5 }, { stats = 1 }) end, "mgpu.segsort", W("stats"))
      E(function() return mgpu.segsort(keys, { 5 }, { stats = "yes" }) end, "mgpu.segsort", W("stats"))
      E(function() return mgpu.segsort(keys, { 5 }, { stable = 1 }) end, "mgpu.segsort", W("stable"))
      E(function() return mgpu.segsort(keys, { 5 }, { stable = "no" }) end, "mgpu.segsort", W("stable"))
      E(function() return mgpu.segsort(keys, { 5 }, "greater") end, "mgpu.segsort")
      E(function() return mgpu.segsort(keys, { 5 }, 1) end, "mgpu.segsort")
    end)

    it("keys that are not arrays, freed arrays", function()
      local keys = ctx:array(D)
      guard { { keys, D } }
      E(function() return mgpu.segsort({ 3, 1, 2 }, {}) end, "mgpu.segsort", W("keys"), "table")
      E(function() return mgpu.segsort("312", {}) end, "mgpu.segsort", W("keys"), "string")
      E(function() return mgpu.segsort(nil, {}) end, "mgpu.segsort", W("keys"))
      E(function() return mgpu.segsort() end, "mgpu.segsort", W("keys"))
      local fk = ctx:iota(10)
      fk:free()
      local fh = ctx:array { 2, 5 }
      fh:free()
      local fv = ctx:iota(100)
      fv:free()
      local ff = ctx:zeros(100)
      ff:free()
      E(function() return mgpu.segsort(fk, { 2 }) end, "mgpu", FREED)
      E(function() return mgpu.segsort(keys, fh) end, "mgpu", FREED)
      E(function() return mgpu.segsort(keys, { 2 }, { values = fv }) end, "mgpu", FREED)
      E(function() return mgpu.segsort(keys, nil, { flags = ff }) end, "mgpu", FREED)
    end)

    it("arrays from different contexts", function()
      local other = mgpu.context { device = device }
      local keys, vals = ctx:array(D), ctx:iota(100)
      local oh, ov, of = other:array { 2, 5 }, other:iota(100), other:zeros(100)
      guard { { keys, D }, { vals, R.iota(100) }, { oh, { 2, 5 } }, { ov, R.iota(100) } }
      E(function() return mgpu.segsort(keys, oh) end, "mgpu.segsort", { W("heads"), "context" })
      E(function() return mgpu.segsort(keys, { 2 }, { values = ov }) end, "mgpu.segsort", { W("values"), "context" })
      E(function() return mgpu.segsort(keys, nil, { flags = of }) end, "mgpu.segsort", { W("flags"), "context" })
      if backends.has_cuda() then
        local x = (device == "cuda") and mgpu.context { device = "cpu" } or mgpu.context { device = "cuda" }
        E(function() return mgpu.segsort(keys, x:array { 2 }) end, "mgpu.segsort")
        E(function() return mgpu.segsort(keys, { 2 }, { values = x:iota(100) }) end, "mgpu.segsort")
      end
      -- the other context still works on its own
      local ok = other:array { 3, 2, 1 }
      mgpu.segsort(ok, other:array { 2 })
      C.array_eq(ok, { 3, 1, 2 }, "i32")
    end)
  end)
end)

-- Heads 1, 1 + len, 1 + 2 len, ... of n elements (segments of length len).
local function every_nth_head(n, len)
  local h = {}
  for i = 1, n, len do h[#h + 1] = i end
  return h
end

backends.cuda_vs_cpu(function(gpu, cpu)
  -- 10^6 random keys with random segment lengths: cuda equals cpu byte for
  -- byte (the stable result is unique), and cpu's is checked in Lua.
  local cases = {
    { "i32", "i32", 0, 1000000 },
    { "i32", nil, R.I32_MIN, R.I32_MAX },
    { "u64", "i32", 0, -1 },
    { "f32", "i32", -1.0, 1.0, true },
    { "f64", "u64", -1e6, 1e6, true },
    { "i64", nil, 1 << 53, (1 << 53) + 100 },
  }
  for ci, c in ipairs(cases) do
    local dt, vdt, lo, hi, with_nan = c[1], c[2], c[3], c[4], c[5]
    for mi, mean in ipairs { 10, 300, 10000 } do
      local comp = ((ci + mi) % 2 == 0) and "less" or "greater"
      it(string.format("10^6 %s keys, values %s, mean segment %d, %s", dt, tostring(vdt), mean, comp), function()
        local n = 1000000
        local rng = R.rng(1000 * ci + mi)
        local a = cpu:random(n, lo, hi, dt, 10 * ci + mi)
        if with_nan then
          for i = 1, n, 4999 do a[i] = nan end
          for i = 3, n, 7001 do a[i] = -0.0 end
          for i = 5, n, 6007 do a[i] = 0.0 end
        end
        local heads = S.random_heads(rng, n, mean, mi == 2)
        local g = a:to(gpu)
        local orig = (ci == 1) and a:totable() or nil
        local hc = cpu:array(heads, (mi == 3) and "i64" or "i32")
        local opts_cpu, opts_gpu = { comp = comp }, { comp = comp }
        if vdt then
          local v = cpu:iota(n, 1, 1, vdt)
          opts_cpu.values = v
          opts_gpu.values = v:to(gpu)
        end
        local k1, v1 = mgpu.segsort(a, hc, opts_cpu)
        local k2, v2 = mgpu.segsort(g, (mi == 1) and heads or hc:to(gpu), opts_gpu)
        assert.is_true(rawequal(k2, g))
        C.same_array(k2, k1, "keys cuda vs cpu")
        if vdt then C.same_array(v2, v1, "values cuda vs cpu") end
        if orig then
          C.no_diff(S.check(orig, k1:totable(), v1:totable(), heads, dt, comp), "cpu against the checker")
        end
      end)
    end
  end

  it("10^6 with flags (i32 and u64), pairs: cuda equals cpu and heads", function()
    local n = 1000000
    local rng = R.rng(2000)
    local heads = S.random_heads(rng, n, 300, false)
    local f = S.heads_to_flags(n, heads)
    local a = cpu:random(n, 0, 100000, "i32", 2000)
    for _, fdt in ipairs { "i32", "u64" } do
      local flags = cpu:array(f, fdt)
      local k1, v1 = a:copy(), cpu:iota(n)
      local k2, v2 = a:to(gpu), cpu:iota(n):to(gpu)
      mgpu.segsort(k1, nil, { flags = flags, values = v1 })
      mgpu.segsort(k2, nil, { flags = flags:to(gpu), values = v2 })
      C.same_array(k2, k1, "flags " .. fdt .. " keys")
      C.same_array(v2, v1, "flags " .. fdt .. " values")
      local k3, v3 = a:to(gpu), cpu:iota(n):to(gpu)
      mgpu.segsort(k3, heads, { values = v3 })
      C.same_array(k3, k1, "flags and heads agree")
      C.same_array(v3, v1, "flags and heads agree")
    end
  end)

  it("one segment and every element a head at 10^6", function()
    local n = 1000000
    local a = cpu:random(n, 0, 1000, "i32", 2001)
    for _, heads in ipairs { {}, cpu:iota(n), cpu:iota(n - 1, 2, 1, "i64") } do
      local k1, v1 = a:copy(), cpu:iota(n)
      local k2, v2 = a:to(gpu), cpu:iota(n):to(gpu)
      mgpu.segsort(k1, heads, { values = v1 })
      mgpu.segsort(k2, type(heads) == "table" and heads or heads:to(gpu), { values = v2 })
      C.same_array(k2, k1)
      C.same_array(v2, v1)
    end
  end)

  it("stats on cuda: short segments take the one-launch exit, long ones exit early in the passes", function()
    local n = 1000000
    local rng = R.rng(2002)
    local a = cpu:random(n, 0, 1000000, "i32", 2002)
    -- mean 10: every boundary's segment is short, no passes
    local heads = S.random_heads(rng, n, 10, false)
    local g = a:to(gpu)
    local _, _, st = mgpu.segsort(g, heads, { values = cpu:iota(n):to(gpu), stats = true })
    local passes = check_stats(st, "cuda stats, mean 10")
    assert.is_true(st.blocksort_tiles > 1, "10^6 keys need more than one blocksort tile")
    assert.are.equal(0, passes, "mean 10: no merge passes")
    assert.is_true(st.windows >= 1, "mean 10: windows merged")
    local c = a:copy()
    mgpu.segsort(c, heads, { values = cpu:iota(n) })
    C.same_array(g, c, "mean 10, cuda equals cpu")
    -- mean 3000 (lengths up to 5999): some straddling segments are longer
    -- than a window, so passes, which mostly find tiles in place
    heads = S.random_heads(rng, n, 3000, false)
    g = a:to(gpu)
    local merged
    _, _, st = mgpu.segsort(g, heads, { values = cpu:iota(n):to(gpu), stats = true })
    passes, merged = check_stats(st, "cuda stats, mean 3000")
    assert.is_true(passes >= 1, "mean 3000: merge passes")
    assert.are.equal(0, st.windows, "mean 3000: no windows")
    assert.is_true(merged < 0.5 * passes * st.tiles,
      string.format("merged %d tiles over %d passes of %d tiles: no early exit", merged, passes, st.tiles))
    c = a:copy()
    mgpu.segsort(c, heads, { values = cpu:iota(n) })
    C.same_array(g, c, "mean 3000, cuda equals cpu")
  end)

  it("segment lengths around the one-launch window limit, keys and pairs", function()
    -- the limit is one pass tile (1408 to 2944 keys by dtype); fixed lengths
    -- below, at and above it, and a mix with one long segment
    local n = 300000
    local a = cpu:random(n, 0, 1000, "i32", 2003)
    local function heads_every(len) return every_nth_head(n, len) end
    local mixed = heads_every(700)
    for i = #mixed, 1, -1 do
      if mixed[i] > 100000 and mixed[i] < 130000 then table.remove(mixed, i) end
    end
    for _, heads in ipairs { heads_every(1400), heads_every(1409), heads_every(2944), heads_every(2945),
                             heads_every(5000), mixed } do
      for _, case in ipairs { { "i32", nil }, { "i32", "i32" }, { "i64", "i64" } } do
        local k1 = a:astype(case[1])
        local v1 = case[2] and cpu:iota(n, 1, 1, case[2])
        local k2, v2 = k1:to(gpu), v1 and v1:to(gpu)
        mgpu.segsort(k1, heads, { values = v1 })
        mgpu.segsort(k2, heads, { values = v2 })
        local label = string.format("%d heads, %s keys, %s values", #heads, case[1], tostring(case[2]))
        C.same_array(k2, k1, label)
        if v1 then C.same_array(v2, v1, label) end
      end
    end
  end)

  it("inside a blocksort tile: fixed lengths around the window step's limits, short segments with a long one", function()
    -- The segmented blocksort merges the windows of every run interface in
    -- one step once each run (23 << level keys at i32) holds a head and each
    -- window fits 16 keys per thread: lengths around 16 << level and
    -- 23 << level, then short segments broken by one long segment per tile,
    -- which keeps the level loop going.  Few distinct keys, so ties abound.
    local n = 100000
    local rng = R.rng(2004)
    local a = cpu:random(n, 0, 40, "i32", 2004)
    local function heads_every(len) return every_nth_head(n, len) end
    local function short_with_long(long)
      local h, i = {}, 1
      while i <= n do
        h[#h + 1] = i
        i = i + ((#h % 97 == 0) and long or rng:int(1, 20))
      end
      return h
    end
    local sets = {}
    for _, len in ipairs { 2, 3, 15, 16, 17, 23, 24, 32, 33, 46, 47, 63, 64, 65, 92, 93, 128, 129, 185, 400 } do
      sets[#sets + 1] = heads_every(len)
    end
    sets[#sets + 1] = short_with_long(300)
    sets[#sets + 1] = short_with_long(3000)
    for hi, heads in ipairs(sets) do
      for _, case in ipairs { { "i32", nil }, { "i64", nil }, { "f32", nil }, { "i32", "i32" } } do
        local k1 = a:astype(case[1])
        local v1 = case[2] and cpu:iota(n, 1, 1, case[2])
        local k2, v2 = k1:to(gpu), v1 and v1:to(gpu)
        local comp = (hi % 2 == 0) and "greater" or "less"
        mgpu.segsort(k1, heads, { values = v1, comp = comp })
        mgpu.segsort(k2, heads, { values = v2, comp = comp })
        local label = string.format("heads set %d (%d heads), %s keys, %s values, %s", hi, #heads,
          case[1], tostring(case[2]), comp)
        C.same_array(k2, k1, label)
        if v1 then C.same_array(v2, v1, label) end
      end
    end
  end)
end)
