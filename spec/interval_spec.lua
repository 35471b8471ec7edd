-- mgpu.interval_expand, interval_gather, interval_scatter, interval_move and
-- load_balance: the IntervalExpand/IntervalMove seed's vectors, zero counts
-- (everywhere, and 100000 of them before one large interval), index
-- arguments as tables and arrays of every integer dtype, values of every
-- dtype, scatter and move with and without out=, overlapping destinations,
-- sizes around tile boundaries, large random cases (cuda against cpu byte
-- for byte, cpu against the Lua reference) and bad input.

local mgpu = require "mgpu"
local R = require "helpers.reference"
local C = require "helpers.check"
local G = require "helpers.gen"
local S = require "helpers.seed_vectors"
local backends = require "helpers.backends"

local W = C.word
local FREED = { "array has been freed", "has been freed" }

-- The forms an index-like argument may take: a Lua table, or an array of
-- an integer dtype.
local INDEX_KINDS = { "table", "i32", "i64", "u32", "u64" }

local function index_arg(ctx, t, kind)
  if kind == "table" then return t end
  return ctx:array(t, kind)
end

-- What a new scatter/move result holds where nothing was written, and a
-- value that marks elements which must not change.
local function zero_of(dt) return R.is_float(dt) and 0.0 or 0 end
local function mark_of(dt) return R.is_float(dt) and -7.5 or 77 end

-- Runs fn with ctx as the default context, then restores the previous one:
-- load_balance of a Lua table has no array to take a context from.
local function on_default(ctx, fn)
  local prev = mgpu.default_context()
  mgpu.default_context(ctx)
  local res = table.pack(pcall(fn))
  mgpu.default_context(prev)
  if not res[1] then error(res[2], 0) end
  return table.unpack(res, 2, res.n)
end

---------------------------------------------------------------------------
-- test data (pure Lua)

-- m counts in 0..maxc, about a fraction pzero of them 0.
local function random_counts(rng, m, maxc, pzero)
  local t = {}
  for i = 1, m do
    if rng:float(0, 1) < (pzero or 0.2) then t[i] = 0 else t[i] = rng:int(1, maxc) end
  end
  return t
end

-- m counts adding up to total (random cut points; zeros included).
local function counts_with_total(rng, m, total)
  if m == 0 then return {} end
  local cuts = G.sorted_uniform(rng, m - 1, total)
  local t, prev = {}, 0
  for i = 1, m - 1 do t[i] = cuts[i] - prev; prev = cuts[i] end
  t[m] = total - prev
  return t
end

local function shuffled(rng, t)
  local r = R.sub(t, 1, #t)
  for i = #r, 2, -1 do
    local j = rng:int(1, i)
    r[i], r[j] = r[j], r[i]
  end
  return r
end

local function sum(t)
  local s = 0
  for i = 1, #t do s = s + t[i] end
  return s
end

-- Gather starts: every non-empty interval lies inside 1..nin; zero-count
-- ones start anywhere in 1..nin+1.
local function random_gather(rng, counts, nin)
  local g = {}
  for i = 1, #counts do g[i] = rng:int(1, nin - counts[i] + 1) end
  return g
end

-- Scatter starts that do not overlap: the non-empty intervals laid out in a
-- random order with gaps of 0..maxgap before each; zero-count intervals
-- start anywhere in 1..len+1.  Returns the starts and len, the furthest end.
local function disjoint_scatter(rng, counts, maxgap)
  local order = shuffled(rng, R.iota(#counts))
  local s, pos, len = {}, 1, 0
  for _, i in ipairs(order) do
    if counts[i] > 0 then
      pos = pos + rng:int(0, maxgap)
      s[i] = pos
      pos = pos + counts[i]
      len = pos - 1
    end
  end
  for i = 1, #counts do
    if counts[i] == 0 then s[i] = rng:int(1, len + 1) end
  end
  return s, len
end

-- Scatter starts for intervals that may overlap, inside 1..len.
local function overlapping_scatter(rng, counts, len)
  local s = {}
  for i = 1, #counts do s[i] = rng:int(1, len - counts[i] + 1) end
  return s
end

---------------------------------------------------------------------------
-- checks against the reference

local function check_expand(ctx, dt, vals_t, counts_t, kind, label)
  kind = kind or "table"
  label = label or string.format("expand %s m=%d counts %s", dt, #counts_t, kind)
  local vals = ctx:array(vals_t, dt)
  local counts = index_arg(ctx, counts_t, kind)
  local out = mgpu.interval_expand(vals, counts)
  assert.is_true(out.context == ctx, label .. ": result on another context")
  C.array_eq(out, R.interval_expand(vals_t, counts_t), dt, label)
  C.array_eq(vals, vals_t, dt, label .. ": values unchanged")
  if kind ~= "table" then C.array_eq(counts, counts_t, kind, label .. ": counts unchanged") end
  return out
end

local function load_balance(ctx, counts_t, kind)
  if kind == "table" then
    return on_default(ctx, function() return mgpu.load_balance(counts_t) end)
  end
  return mgpu.load_balance(ctx:array(counts_t, kind))
end

local function check_load_balance(ctx, counts_t, kind, label)
  kind = kind or "table"
  label = label or string.format("load_balance m=%d counts %s", #counts_t, kind)
  local out = load_balance(ctx, counts_t, kind)
  assert.is_true(out.context == ctx, label .. ": result on another context")
  C.array_eq(out, R.load_balance(counts_t), "i32", label)
  return out
end

local function check_gather(ctx, dt, input_t, gather_t, counts_t, kind, label)
  kind = kind or "table"
  label = label or string.format("gather %s m=%d index %s", dt, #counts_t, kind)
  local input = ctx:array(input_t, dt)
  local g, c = index_arg(ctx, gather_t, kind), index_arg(ctx, counts_t, kind)
  local out = mgpu.interval_gather(input, g, c)
  assert.is_true(out.context == ctx, label .. ": result on another context")
  C.array_eq(out, R.interval_gather(input_t, gather_t, counts_t), dt, label)
  C.array_eq(input, input_t, dt, label .. ": input unchanged")
  if kind ~= "table" then
    C.array_eq(g, gather_t, kind, label .. ": gather unchanged")
    C.array_eq(c, counts_t, kind, label .. ": counts unchanged")
  end
  return out
end

-- interval_move (gather_t given) or interval_scatter (gather_t nil).
-- out_t nil: no out=, the result is checked for length and zeros; a table:
-- out= is a slice (at an odd offset) of an array holding out_t between
-- marked margins, and the elements no interval covers keep their values.
local function check_move(ctx, dt, input_t, gather_t, scatter_t, counts_t, kind, out_t, label)
  kind = kind or "table"
  local opname = gather_t and "interval_move" or "interval_scatter"
  label = label or string.format("%s %s m=%d index %s %s", opname, dt, #counts_t, kind,
    out_t and ("out " .. #out_t) or "no out")
  local input = ctx:array(input_t, dt)
  local g = gather_t and index_arg(ctx, gather_t, kind)
  local s, c = index_arg(ctx, scatter_t, kind), index_arg(ctx, counts_t, kind)
  local want
  if gather_t then
    want = R.interval_move(input_t, gather_t, scatter_t, counts_t, out_t, zero_of(dt))
  else
    want = R.interval_scatter(input_t, scatter_t, counts_t, out_t, zero_of(dt))
  end
  local function call(opts)
    if gather_t then
      if opts then return mgpu.interval_move(input, g, s, c, opts) end
      return mgpu.interval_move(input, g, s, c)
    end
    if opts then return mgpu.interval_scatter(input, s, c, opts) end
    return mgpu.interval_scatter(input, s, c)
  end
  local out
  if out_t then
    local m = mark_of(dt)
    local whole = R.concat(R.concat({ m, m, m }, out_t), { m, m })
    local big = ctx:array(whole, dt)
    local o = big:slice(4, #out_t + 3)
    out = call({ out = o })
    assert.is_true(rawequal(out, o), label .. ": out= array not returned")
    C.array_eq(o, want, dt, label)
    C.table_eq(big:totable(), R.concat(R.concat({ m, m, m }, want), { m, m }), dt,
      label .. ": the array around the out= slice")
  else
    out = call()
    assert.is_true(out.context == ctx, label .. ": result on another context")
    C.array_eq(out, want, dt, label)
  end
  C.array_eq(input, input_t, dt, label .. ": input unchanged")
  if kind ~= "table" then
    C.array_eq(s, scatter_t, kind, label .. ": scatter unchanged")
    C.array_eq(c, counts_t, kind, label .. ": counts unchanged")
    if g then C.array_eq(g, gather_t, kind, label .. ": gather unchanged") end
  end
  return out
end

describe("the reference interval operations", function()
  it("reproduce the seed's INTERVAL-EXPAND, load-balancing and INTERVAL-MOVE tables", function()
    C.table_eq(R.interval_expand(S.expand_values, S.expand_counts), S.expand_output, "i32")
    C.table_eq((R.exclusive_scan(S.expand_counts)), S.expand_scan, "i32")
    C.table_eq(R.load_balance(S.expand_counts), S.load_balance_expand, "i32")
    C.table_eq(R.interval_expand(S.expand_small_values, S.expand_small_counts), S.expand_small_output, "i32")
    C.table_eq((R.exclusive_scan(S.expand_small_counts)), S.expand_small_scan, "i32")
    C.table_eq((R.exclusive_scan(S.move_counts)), S.move_scan, "i32")
    local input = R.iota(100, 0)
    C.table_eq(R.interval_move(input, S.move_gather, S.move_scatter, S.move_counts), S.move_output, "i32")
    local gathered = R.interval_gather(input, S.move_gather, S.move_counts)
    C.table_eq(R.interval_scatter(gathered, S.move_scatter, S.move_counts), S.move_output, "i32")
  end)

  it("gather and scatter are moves with the scan as the other side", function()
    local rng = R.rng(9)
    for _ = 1, 100 do
      local counts = random_counts(rng, rng:int(0, 12), 6)
      local total = sum(counts)
      local input = R.iota(total + 5, 1)
      local gather = random_gather(rng, counts, #input)
      local scan = R.exclusive_scan(counts)
      local seq = {}
      for i = 1, #counts do seq[i] = scan[i] + 1 end
      C.table_eq(R.interval_gather(input, gather, counts),
        R.interval_move(input, gather, seq, counts, R.iota(total, 0, 0)), "i32")
      local scatter = disjoint_scatter(rng, counts, 3)
      C.table_eq(R.interval_scatter(input, scatter, counts),
        R.interval_move(input, seq, scatter, counts), "i32")
      -- an expand is a gather of single elements repeated: load_balance
      local lb = R.load_balance(counts)
      local vals = R.iota(#counts, 100)
      local ex = R.interval_expand(vals, counts)
      for k = 1, total do assert.are.equal(vals[lb[k]], ex[k]) end
    end
  end)
end)

backends.each(function(ctx, device)
  -- the index arrays may be i64 on every backend (mgpu_context_wide_index:
  -- cpu and cuda), whose limit is then the context's, 2^53
  local LIMIT = ctx:info().max_count
  describe("seed 002", function()
    it("INTERVAL-EXPAND demonstration", function()
      for _, kind in ipairs(INDEX_KINDS) do
        local vals = ctx:array(S.expand_values)
        local out = mgpu.interval_expand(vals, index_arg(ctx, S.expand_counts, kind))
        assert.are.equal("i32", out.dtype)
        C.array_eq(out, S.expand_output, "i32", "counts " .. kind)
        C.array_eq(vals, S.expand_values, "i32", "values unchanged")
      end
      for _, dt in ipairs(R.dtypes) do
        local out = mgpu.interval_expand(ctx:array(S.expand_values, dt), S.expand_counts)
        C.array_eq(out, R.astype(S.expand_output, "i32", dt), dt, "values " .. dt)
      end
      C.array_eq(mgpu.interval_expand(ctx:array(S.expand_small_values), S.expand_small_counts),
        S.expand_small_output, "i32", "intervalmove.cuh example")
    end)

    it("load-balancing search over the expand counts", function()
      for _, kind in ipairs(INDEX_KINDS) do
        local out = load_balance(ctx, S.expand_counts, kind)
        assert.are.equal("i32", out.dtype)
        assert.is_true(out.context == ctx)
        C.array_eq(out, S.load_balance_expand, "i32", "counts " .. kind)
      end
    end)

    it("INTERVAL-MOVE demonstration: from the counting sequence 0..99", function()
      for _, kind in ipairs(INDEX_KINDS) do
        local input = ctx:iota(100, 0)
        local g, s = index_arg(ctx, S.move_gather, kind), index_arg(ctx, S.move_scatter, kind)
        local c = index_arg(ctx, S.move_counts, kind)
        local out = mgpu.interval_move(input, g, s, c)
        assert.are.equal("i32", out.dtype)
        C.array_eq(out, S.move_output, "i32", "index " .. kind)
        local o = ctx:fill(100, -1)
        local r = mgpu.interval_move(input, g, s, c, { out = o })
        assert.is_true(rawequal(r, o))
        C.array_eq(o, S.move_output, "i32", "out=, index " .. kind)
        C.array_eq(input, R.iota(100, 0), "i32", "input unchanged")
      end
      -- every dtype, and the same move as a gather followed by a scatter
      for _, dt in ipairs(R.dtypes) do
        local input = ctx:iota(100, 0, 1, dt)
        C.array_eq(mgpu.interval_move(input, S.move_gather, S.move_scatter, S.move_counts),
          R.astype(S.move_output, "i32", dt), dt, "move " .. dt)
        local gathered = mgpu.interval_gather(input, S.move_gather, S.move_counts)
        C.array_eq(gathered, R.astype(R.interval_gather(R.iota(100, 0), S.move_gather, S.move_counts), "i32", dt),
          dt, "gather " .. dt)
        C.array_eq(mgpu.interval_scatter(gathered, S.move_scatter, S.move_counts),
          R.astype(S.move_output, "i32", dt), dt, "gather then scatter " .. dt)
      end
    end)
  end)

  describe("interval_expand and load_balance", function()
    it("counts as a table and as arrays of every integer dtype", function()
      local rng = R.rng(10)
      for _, m in ipairs { 1, 5, 300, 4000 } do
        local counts = random_counts(rng, m, 20)
        for _, kind in ipairs(INDEX_KINDS) do
          check_expand(ctx, "i32", R.iota(m), counts, kind)
          check_load_balance(ctx, counts, kind)
        end
      end
    end)

    it("values of every dtype, keeping exact bits", function()
      local rng = R.rng(11)
      for _, dt in ipairs(R.dtypes) do
        local counts = random_counts(rng, 2000, 9, 0.3)
        check_expand(ctx, dt, rng:values(2000, dt), counts, INDEX_KINDS[rng:int(1, 5)])
      end
      for _, dt in ipairs { "f32", "f64" } do
        local esize = R.size[dt]
        local bytes = G.odd_bytes(300, dt)
        local counts = random_counts(rng, 300, 5)
        local out = mgpu.interval_expand(ctx:frombytes(bytes, dt), counts)
        C.bytes_eq(out:tobytes(), G.permute_bytes(bytes, R.load_balance(counts), esize), esize, dt .. " bits")
      end
    end)

    it("zero counts everywhere: an empty result", function()
      for _, m in ipairs { 0, 1, 7, 5000 } do
        local counts = R.iota(m, 0, 0)
        for _, kind in ipairs(INDEX_KINDS) do
          for _, dt in ipairs { "i32", "f64", "u64" } do
            local out = mgpu.interval_expand(ctx:iota(m, 1, 1, dt), index_arg(ctx, counts, kind))
            assert.are.equal(0, #out)
            assert.are.equal(dt, out.dtype)
          end
          local lb = load_balance(ctx, counts, kind)
          assert.are.equal(0, #lb)
          assert.are.equal("i32", lb.dtype)
        end
      end
    end)

    it("100000 zero counts, then one count of 100000 (and the reverse)", function()
      local counts = R.iota(100001, 0, 0)
      counts[100001] = 100000
      local rev = R.iota(100001, 0, 0)
      rev[1] = 100000
      for _, kind in ipairs { "table", "i32", "u64" } do
        check_expand(ctx, "i32", R.iota(100001), counts, kind, "zeros then 100000, " .. kind)
        check_load_balance(ctx, counts, kind, "zeros then 100000, " .. kind)
      end
      check_expand(ctx, "f64", R.iota(100001, 0.5), rev, "i64", "100000 then zeros")
      check_load_balance(ctx, rev, "u32", "100000 then zeros")
      -- zeros on both sides of a run of long intervals
      local mixed = R.concat(R.concat(R.iota(50000, 0, 0), R.iota(10, 10000, 0)), R.iota(50000, 0, 0))
      check_expand(ctx, "u64", R.iota(#mixed), mixed, "i32", "zeros, 10 x 10000, zeros")
      check_load_balance(ctx, mixed, "i32", "zeros, 10 x 10000, zeros")
    end)

    it("totals and interval lengths around tile boundaries", function()
      local rng = R.rng(12)
      for _, base in ipairs { 896, 1408, 2816, 3584 } do
        for total = base - 1, base + 1 do
          for _, m in ipairs { 1, 2, 17, base // 7, total } do
            local counts = counts_with_total(rng, m, total)
            local kind = INDEX_KINDS[(total + m) % 5 + 1]
            check_expand(ctx, R.dtypes[m % 6 + 1], G.index_values(m, R.dtypes[m % 6 + 1]), counts, kind)
            check_load_balance(ctx, counts, kind)
          end
        end
      end
      -- intervals of tile-boundary lengths among zeros and ones
      local lens = { 895, 896, 897, 1407, 1408, 1409, 2815, 2816, 2817, 0, 0, 1, 1, 0 }
      for _ = 1, 3 do
        local counts = shuffled(rng, lens)
        check_expand(ctx, "i64", R.iota(#counts), counts, "i32")
        check_load_balance(ctx, counts, "table")
      end
    end)

    it("many tiles: random counts up to 300000 outputs", function()
      local rng = R.rng(13)
      for _, c in ipairs { { 30000, 20, 0.2 }, { 200000, 2, 0.5 }, { 300, 1000, 0.1 }, { 100000, 5, 0.9 } } do
        local counts = random_counts(rng, c[1], c[2], c[3])
        check_expand(ctx, "i32", R.iota(c[1]), counts, "i32")
        check_load_balance(ctx, counts, "i64")
      end
    end)

    it("values and counts that are slices", function()
      local rng = R.rng(14)
      local m = 1500
      local counts_t = random_counts(rng, m, 9)
      local vbig = ctx:iota(m + 8, -3, 1, "f32")
      local cbig = ctx:array(R.concat(R.concat({ -1, -1 }, counts_t), { -1 }), "i64")
      local vals, counts = vbig:slice(4, m + 3), cbig:slice(3, m + 2)
      local out = mgpu.interval_expand(vals, counts)
      C.array_eq(out, R.interval_expand(R.iota(m, 0.0), counts_t), "f32")
      C.array_eq(mgpu.load_balance(counts), R.load_balance(counts_t), "i32")
    end)
  end)

  describe("interval_gather", function()
    it("random ranges, index arguments of every kind, values of every dtype", function()
      local rng = R.rng(20)
      for _, dt in ipairs(R.dtypes) do
        local input = rng:values(3000, dt)
        for _, kind in ipairs(INDEX_KINDS) do
          local counts = random_counts(rng, 400, 30)
          check_gather(ctx, dt, input, random_gather(rng, counts, #input), counts, kind)
        end
      end
    end)

    it("ranges at both ends of the input, zero counts at #input + 1, repeated ranges", function()
      local input = R.iota(50, 100)
      check_gather(ctx, "i32", input, { 1, 41, 51, 50, 1 }, { 10, 10, 0, 1, 50 }, "table")
      check_gather(ctx, "i32", input, { 51, 51, 1 }, { 0, 0, 0 }, "i32")
      check_gather(ctx, "i32", input, { 7, 7, 7, 7 }, { 3, 3, 3, 3 }, "u64")
      check_gather(ctx, "i32", {}, { 1, 1 }, { 0, 0 }, "table")
      local out = mgpu.interval_gather(ctx:zeros(0, "f64"), {}, {})
      assert.are.equal(0, #out)
      assert.are.equal("f64", out.dtype)
    end)

    it("100000 zero counts, then one count of 100000", function()
      local rng = R.rng(21)
      local n = 100000
      local counts = R.iota(n + 1, 0, 0)
      counts[n + 1] = n
      local input = R.iota(n + 3)
      local gather = {}
      for i = 1, n do gather[i] = rng:int(1, #input + 1) end
      gather[n + 1] = 3
      check_gather(ctx, "i32", input, gather, counts, "i32")
      check_gather(ctx, "i32", input, gather, counts, "table")
    end)

    it("totals and interval lengths around tile boundaries", function()
      local rng = R.rng(22)
      local input = R.iota(9000)
      for _, base in ipairs { 896, 1408, 2816 } do
        for total = base - 1, base + 1 do
          for _, m in ipairs { 1, 3, base // 11, total } do
            local counts = counts_with_total(rng, m, total)
            check_gather(ctx, "i32", input, random_gather(rng, counts, #input), counts,
              INDEX_KINDS[(total + m) % 5 + 1])
          end
        end
      end
      local counts = shuffled(rng, { 895, 896, 897, 1407, 1408, 1409, 2815, 2816, 2817, 0, 1 })
      check_gather(ctx, "f64", R.iota(9000, 0.5), random_gather(rng, counts, 9000), counts, "i64")
    end)

    it("many tiles (10^5 outputs) and slices", function()
      local rng = R.rng(23)
      local input = R.iota(50000, -1, -1)
      local counts = random_counts(rng, 10000, 20)
      check_gather(ctx, "i32", input, random_gather(rng, counts, #input), counts, "i32")
      local big = ctx:iota(1010, 0)
      local out = mgpu.interval_gather(big:slice(6, 1005), { 1, 995, 500 }, { 10, 6, 0 })
      C.array_eq(out, R.concat(R.iota(10, 5), R.iota(6, 999)), "i32")
    end)
  end)

  describe("interval_scatter and interval_move", function()
    it("without out: as long as the furthest end, zeros where nothing was written", function()
      local rng = R.rng(30)
      for _, dt in ipairs(R.dtypes) do
        for _, kind in ipairs(INDEX_KINDS) do
          local counts = random_counts(rng, 300, 12)
          local input = rng:values(sum(counts) + 10, dt)
          local scatter, len = disjoint_scatter(rng, counts, 8)
          local out = check_move(ctx, dt, R.sub(input, 1, sum(counts)), nil, scatter, counts, kind)
          assert.are.equal(len, #out)
          assert.are.equal(dt, out.dtype)
          out = check_move(ctx, dt, input, random_gather(rng, counts, #input), scatter, counts, kind)
          assert.are.equal(len, #out)
          assert.are.equal(dt, out.dtype)
        end
      end
    end)

    it("with out: untouched elements keep their values, no write outside out", function()
      local rng = R.rng(31)
      for _, dt in ipairs(R.dtypes) do
        for _, kind in ipairs(INDEX_KINDS) do
          local counts = random_counts(rng, 200, 15)
          local total = sum(counts)
          local input = rng:values(total, dt)
          local scatter, len = disjoint_scatter(rng, counts, 10)
          for _, extra in ipairs { 0, 1, 37 } do
            local out_t = rng:values(len + extra, dt)
            check_move(ctx, dt, input, nil, scatter, counts, kind, out_t)
            check_move(ctx, dt, input, random_gather(rng, counts, total), scatter, counts, kind, out_t)
          end
        end
      end
    end)

    it("zero counts: starts beyond the end do not lengthen the result; with out up to #out + 1", function()
      local input = { 5, 6, 7 }
      local out = check_move(ctx, "i32", input, nil, { 1000, 2, 1 }, { 0, 2, 1 }, "table")
      assert.are.equal(3, #out)
      out = check_move(ctx, "i32", input, { 1, 4, 1 }, { 1, 3, 50 }, { 3, 0, 0 }, "i64")
      assert.are.equal(3, #out)
      check_move(ctx, "i32", input, nil, { 4, 1, 4 }, { 0, 3, 0 }, "u32", { 9, 9, 9 })
      check_move(ctx, "i32", input, { 4, 1 }, { 4, 1 }, { 0, 3 }, "table", { 9, 9, 9 })
      -- nothing written at all
      for _, dt in ipairs { "i32", "f32", "u64" } do
        local r = mgpu.interval_scatter(ctx:zeros(0, dt), { 1, 70 }, { 0, 0 })
        assert.are.equal(0, #r)
        assert.are.equal(dt, r.dtype)
        r = mgpu.interval_move(ctx:zeros(4, dt), { 5, 1 }, { 3, 9 }, { 0, 0 })
        assert.are.equal(0, #r)
        assert.are.equal(dt, r.dtype)
        r = mgpu.interval_move(ctx:zeros(0, dt), {}, {}, {})
        assert.are.equal(0, #r)
        local o = ctx:fill(5, 3, dt)
        assert.is_true(rawequal(mgpu.interval_scatter(ctx:zeros(0, dt), { 6 }, { 0 }, { out = o }), o))
        C.array_eq(o, R.astype({ 3, 3, 3, 3, 3 }, "i32", dt), dt)
      end
      -- the furthest end comes from an interval that is not the last
      out = check_move(ctx, "i32", R.iota(6), nil, { 10, 1, 3 }, { 2, 2, 2 }, "i32")
      assert.are.equal(11, #out)
    end)

    it("100000 zero counts, then one count of 100000", function()
      local rng = R.rng(32)
      local n = 100000
      local counts = R.iota(n + 1, 0, 0)
      counts[n + 1] = n
      local scatter, gather = {}, {}
      for i = 1, n do scatter[i] = rng:int(1, n + 5); gather[i] = rng:int(1, n + 1) end
      scatter[n + 1], gather[n + 1] = 5, 1
      local input = R.iota(n, 1)
      local out = check_move(ctx, "i32", input, nil, scatter, counts, "i32")
      assert.are.equal(n + 4, #out)
      check_move(ctx, "i32", input, gather, scatter, counts, "table")
      check_move(ctx, "i32", input, gather, scatter, counts, "u32", R.iota(n + 4, -1, -1))
    end)

    it("totals and interval lengths around tile boundaries", function()
      local rng = R.rng(33)
      for _, base in ipairs { 896, 1408, 2816 } do
        for total = base - 1, base + 1 do
          for _, m in ipairs { 1, 3, base // 11, total } do
            local counts = counts_with_total(rng, m, total)
            local kind = INDEX_KINDS[(total + m) % 5 + 1]
            local input = R.iota(total)
            local scatter, len = disjoint_scatter(rng, counts, (m % 2 == 0) and 0 or 5)
            check_move(ctx, "i32", input, nil, scatter, counts, kind)
            check_move(ctx, "f64", R.iota(total, 0.25), random_gather(rng, counts, total), scatter, counts, kind,
              R.iota(len, -0.5, 0))
          end
        end
      end
      local counts = shuffled(rng, { 895, 896, 897, 1407, 1408, 1409, 2815, 2816, 2817, 0, 1 })
      local total = sum(counts)
      local scatter = disjoint_scatter(rng, counts, 900)
      check_move(ctx, "u32", R.iota(total), nil, scatter, counts, "i64")
      check_move(ctx, "u32", R.iota(total + 100), random_gather(rng, counts, total + 100), scatter, counts, "table")
    end)

    it("many tiles (10^5 elements), input and index arguments that are slices", function()
      local rng = R.rng(34)
      local counts = random_counts(rng, 10000, 20)
      local total = sum(counts)
      local scatter = disjoint_scatter(rng, counts, 4)
      check_move(ctx, "i32", R.iota(total), nil, scatter, counts, "i32")
      check_move(ctx, "i64", R.iota(total + 7), random_gather(rng, counts, total + 7), scatter, counts, "u64")
      -- slices
      local ibig = ctx:iota(total + 9, -4)
      local input = ibig:slice(5, total + 4)          -- 0, 1, 2, ...
      local sbig = ctx:array(R.concat({ 0, 0, 0 }, scatter), "i64")
      local cbig = ctx:array(R.concat({ 0 }, counts), "u32")
      local out = mgpu.interval_scatter(input, sbig:slice(4, #counts + 3), cbig:slice(2, #counts + 1))
      C.array_eq(out, R.interval_scatter(R.iota(total, 0), scatter, counts), "i32", "slices")
    end)

    it("overlapping destinations: each element gets one of its values, no write outside out", function()
      local rng = R.rng(35)
      for _, c in ipairs { { 50, 5, 20 }, { 2000, 30, 3000 }, { 300, 900, 2000 } } do
        local m, maxc, len = c[1], c[2], c[3]
        local counts = random_counts(rng, m, maxc)
        for k = 1, m do counts[k] = math.min(counts[k], len) end
        local total = sum(counts)
        local input = R.iota(total, 1)
        local gather = random_gather(rng, counts, total)
        local scan = R.exclusive_scan(counts)
        local seq = {}
        for k = 1, m do seq[k] = scan[k] + 1 end
        local scatter = overlapping_scatter(rng, counts, len)
        -- interval_move with out=
        local old = R.iota(len, -1, -1)
        local big = ctx:array(R.concat({ 0, 0 }, R.concat(old, { 0, 0, 0 })))
        local o = big:slice(3, len + 2)
        mgpu.interval_move(ctx:array(input), gather, scatter, counts, { out = o })
        C.no_diff(R.check_writes(o:totable(), old, R.interval_writes(input, gather, scatter, counts), "i32"),
          "interval_move with out=")
        C.table_eq(big:totable(1, 2), { 0, 0 }, "i32", "before out")
        C.table_eq(big:totable(len + 3), { 0, 0, 0 }, "i32", "after out")
        -- interval_scatter with out=
        o = ctx:array(old)
        mgpu.interval_scatter(ctx:array(input), scatter, counts, { out = o })
        C.no_diff(R.check_writes(o:totable(), old, R.interval_writes(input, seq, scatter, counts), "i32"),
          "interval_scatter with out=")
        -- without out: zeros where nothing is written
        local r = mgpu.interval_move(ctx:array(input), gather, scatter, counts)
        local w = R.interval_writes(input, gather, scatter, counts)
        local furthest = 0
        for k = 1, m do
          if counts[k] > 0 then furthest = math.max(furthest, scatter[k] + counts[k] - 1) end
        end
        C.no_diff(R.check_writes(r:totable(), R.iota(furthest, 0, 0), w, "i32"), "interval_move without out")
      end
    end)

    it("out= of the wrong dtype, or overlapping the input, is an error", function()
      -- (interval_scatter's input holds exactly sum(counts) elements here)
      local input = ctx:iota(10)
      local C10 = { 10 }
      C.raises(function() return mgpu.interval_scatter(input, { 1 }, C10, { out = ctx:zeros(10, "i64") }) end,
        "mgpu.interval_scatter", W("out"))
      C.raises(function() return mgpu.interval_move(input, { 1 }, { 1 }, { 3 }, { out = ctx:zeros(10, "f32") }) end,
        "mgpu.interval_move", W("out"))
      C.raises(function() return mgpu.interval_move(input, { 1 }, { 4 }, { 3 }, { out = input }) end,
        "mgpu.interval_move", W("out"))
      local big = ctx:iota(20)
      C.raises(function() return mgpu.interval_scatter(big:slice(1, 10), { 1 }, C10, { out = big:slice(5, 20) }) end,
        "mgpu.interval_scatter", W("out"))
      C.array_eq(big, R.iota(20), "i32", "unchanged after the errors")
      C.array_eq(input, R.iota(10), "i32", "unchanged after the errors")
    end)
  end)

  describe("against the Lua reference at 10^5", function()
    for k, dt in ipairs(R.dtypes) do
      it("expand, load_balance, gather, scatter, move: " .. dt, function()
        local rng = R.rng(40 + k)
        local kind = INDEX_KINDS[k % 5 + 1]
        local counts = random_counts(rng, 20000, 10)
        local total = sum(counts)
        local input = rng:values(total, dt)
        check_expand(ctx, dt, rng:values(#counts, dt), counts, kind)
        if k <= 2 then check_load_balance(ctx, counts, kind) end
        check_gather(ctx, dt, input, random_gather(rng, counts, total), counts, kind)
        local scatter, len = disjoint_scatter(rng, counts, 3)
        check_move(ctx, dt, input, nil, scatter, counts, kind)
        check_move(ctx, dt, input, random_gather(rng, counts, total), scatter, counts, kind, rng:values(len, dt))
      end)
    end
  end)

  describe("bad input", function()
    local function context_works()
      local out = mgpu.interval_expand(ctx:array { 4, 5 }, { 2, 1 })
      C.array_eq(out, { 4, 4, 5 }, "i32", "interval_expand after the error")
      out = mgpu.interval_move(ctx:iota(4), { 3 }, { 2 }, { 2 })
      C.array_eq(out, { 0, 3, 4 }, "i32", "interval_move after the error")
      C.array_eq(mgpu.load_balance(ctx:array { 1, 0, 2 }), { 1, 3, 3 }, "i32", "load_balance after the error")
      local c = mgpu.merge(ctx:array { 1, 3 }, ctx:array { 2 })
      C.array_eq(c, { 1, 2, 3 }, "i32", "merge after the error")
    end
    -- the message reports the offending element: its value and 1-based
    -- position in the index argument (h.at)
    local h = C.bad_input_harness(context_works)
    local guard, E, at = h.guard, h.E, h.at
    before_each(h.reset)

    local IN = R.iota(100)

    it("negative counts", function()
      local vals, input = ctx:iota(4), ctx:array(IN)
      local out = ctx:zeros(100)
      guard { { vals, R.iota(4) }, { input, IN }, { out, R.iota(100, 0, 0) } }
      for _, kind in ipairs { "table", "i32", "i64" } do
        for _, c in ipairs { { { 1, -2, 3, 1 }, -2, 2 }, { { -1, 0, 0, 0 }, -1, 1 }, { { 0, 0, 5, -7 }, -7, 4 } } do
          local counts = index_arg(ctx, c[1], kind)
          local P = { W("counts"), "position", at(c[2], c[3]) }
          E(function() return mgpu.interval_expand(vals, counts) end, "mgpu.interval_expand", table.unpack(P))
          E(function() return mgpu.load_balance(counts) end, "mgpu.load_balance", table.unpack(P))
          E(function() return mgpu.interval_gather(input, { 1, 1, 1, 1 }, counts) end,
            "mgpu.interval_gather", table.unpack(P))
          E(function() return mgpu.interval_scatter(input, { 1, 1, 1, 1 }, counts) end,
            "mgpu.interval_scatter", table.unpack(P))
          E(function() return mgpu.interval_move(input, { 1, 1, 1, 1 }, { 1, 1, 1, 1 }, counts, { out = out }) end,
            "mgpu.interval_move", table.unpack(P))
        end
      end
      -- 2^64 - 1 as u64 is no small count
      E(function() return mgpu.interval_expand(vals, ctx:array({ 1, -1, 1, 1 }, "u64")) end,
        "mgpu.interval_expand", W("counts"))
    end)

    it("argument lengths that differ", function()
      local vals, input = ctx:iota(4), ctx:array(IN)
      guard { { vals, R.iota(4) }, { input, IN } }
      E(function() return mgpu.interval_expand(vals, { 1, 1, 1 }) end, "mgpu.interval_expand",
        { W("counts"), W("values") })
      E(function() return mgpu.interval_expand(vals, ctx:iota(5)) end, "mgpu.interval_expand",
        { W("counts"), W("values") })
      E(function() return mgpu.interval_gather(input, { 1, 2 }, { 1, 1, 1 }) end, "mgpu.interval_gather",
        { W("gather"), W("counts") })
      E(function() return mgpu.interval_scatter(input, { 1, 2, 3, 4 }, { 1, 1, 1 }) end, "mgpu.interval_scatter",
        { W("scatter"), W("counts") })
      E(function() return mgpu.interval_move(input, { 1, 2, 3 }, { 1, 2 }, { 1, 1, 1 }) end, "mgpu.interval_move",
        { W("scatter"), W("counts") })
      E(function() return mgpu.interval_move(input, { 1 }, { 1, 2, 3 }, { 1, 1, 1 }) end, "mgpu.interval_move",
        { W("gather"), W("counts") })
      -- interval_scatter reads sum(counts) elements of input
      E(function() return mgpu.interval_scatter(ctx:iota(5), { 1, 10 }, { 3, 3 }) end, "mgpu.interval_scatter",
        { W("input"), W("counts") })
    end)

    it("gather ranges past the end of input, starts below 1", function()
      local input = ctx:array(IN)
      guard { { input, IN } }
      for _, kind in ipairs { "table", "i32", "i64", "u32" } do
        local function ga(t) return index_arg(ctx, t, kind) end
        E(function() return mgpu.interval_gather(input, ga { 1, 5, 98 }, { 1, 1, 5 }) end,
          "mgpu.interval_gather", W("gather"), W("98"))
        E(function() return mgpu.interval_gather(input, ga { 100 }, { 2 }) end, "mgpu.interval_gather", W("gather"))
        E(function() return mgpu.interval_gather(input, ga { 102 }, { 0 }) end, "mgpu.interval_gather", W("gather"))
        E(function() return mgpu.interval_gather(input, ga { 1, 0 }, { 1, 1 }) end, "mgpu.interval_gather", W("gather"))
        E(function() return mgpu.interval_gather(input, ga { 0 }, { 0 }) end, "mgpu.interval_gather", W("gather"))
        E(function() return mgpu.interval_move(input, ga { 96 }, ga { 1 }, { 6 }) end,
          "mgpu.interval_move", W("gather"))
        E(function() return mgpu.interval_move(input, ga { 0 }, ga { 1 }, { 1 }) end, "mgpu.interval_move", W("gather"))
      end
      E(function() return mgpu.interval_gather(input, { -3 }, { 1 }) end, "mgpu.interval_gather", W("gather"))
      E(function() return mgpu.interval_gather(input, ctx:array({ 0xffffffff }, "u32"), { 1 }) end,
        "mgpu.interval_gather", W("gather"))
      E(function() return mgpu.interval_gather(input, ctx:array({ math.mininteger }, "u64"), { 1 }) end,
        "mgpu.interval_gather", W("gather"))
      E(function() return mgpu.interval_gather(input, ctx:array({ 1 << 40 }, "i64"), { 1 }) end,
        "mgpu.interval_gather", W("gather"))
    end)

    it("scatter ranges past the end of a given out, starts below 1", function()
      local input, out = ctx:array(IN), ctx:zeros(6)
      guard { { input, IN }, { out, R.iota(6, 0, 0) } }
      for _, kind in ipairs { "table", "i32", "i64", "u32" } do
        local function sa(t) return index_arg(ctx, t, kind) end
        local O = { W("scatter"), W("out") }
        -- (interval_scatter's input holds exactly sum(counts) elements)
        E(function() return mgpu.interval_scatter(ctx:iota(3), sa { 5 }, { 3 }, { out = out }) end,
          "mgpu.interval_scatter", O)
        E(function() return mgpu.interval_scatter(ctx:iota(7), sa { 1, 4 }, { 3, 4 }, { out = out }) end,
          "mgpu.interval_scatter", O)
        E(function() return mgpu.interval_scatter(ctx:zeros(0), sa { 8 }, { 0 }, { out = out }) end,
          "mgpu.interval_scatter", O)
        E(function() return mgpu.interval_move(input, { 1 }, sa { 6 }, { 2 }, { out = out }) end,
          "mgpu.interval_move", O)
        E(function() return mgpu.interval_scatter(ctx:iota(1), sa { 0 }, { 1 }) end, "mgpu.interval_scatter",
          W("scatter"))
        E(function() return mgpu.interval_scatter(ctx:zeros(0), sa { 0 }, { 0 }) end, "mgpu.interval_scatter",
          W("scatter"))
        E(function() return mgpu.interval_move(input, { 1 }, sa { 0 }, { 1 }) end, "mgpu.interval_move", W("scatter"))
      end
      E(function() return mgpu.interval_scatter(ctx:iota(1), { -1 }, { 1 }) end, "mgpu.interval_scatter",
        W("scatter"))
      -- an end past the index limit without out
      E(function() return mgpu.interval_scatter(ctx:iota(2), { LIMIT }, { 2 }) end, "mgpu.interval_scatter",
        W(tostring(LIMIT)))
      E(function() return mgpu.interval_move(input, { 1 }, ctx:array({ LIMIT << 7 }, "i64"), { 1 }) end,
        "mgpu.interval_move", W("scatter"))
    end)

    it("float arrays and non-integers as index arguments", function()
      local vals, input = ctx:iota(2), ctx:array(IN)
      guard { { vals, { 1, 2 } }, { input, IN } }
      for _, dt in ipairs { "f32", "f64" } do
        local f = ctx:array({ 1, 2 }, dt)
        E(function() return mgpu.interval_expand(vals, f) end, "mgpu.interval_expand", W("counts"))
        E(function() return mgpu.load_balance(f) end, "mgpu.load_balance", W("counts"))
        E(function() return mgpu.interval_gather(input, f, { 1, 1 }) end, "mgpu.interval_gather", W("gather"))
        E(function() return mgpu.interval_gather(input, { 1, 1 }, f) end, "mgpu.interval_gather", W("counts"))
        E(function() return mgpu.interval_scatter(ctx:iota(2), f, { 1, 1 }) end, "mgpu.interval_scatter",
          W("scatter"))
        E(function() return mgpu.interval_move(input, f, { 1, 2 }, { 1, 1 }) end, "mgpu.interval_move", W("gather"))
        E(function() return mgpu.interval_move(input, { 1, 2 }, f, { 1, 1 }) end, "mgpu.interval_move", W("scatter"))
      end
      E(function() return mgpu.interval_expand(vals, { 1, 1.5 }) end, "mgpu.interval_expand", W("counts"))
      E(function() return mgpu.interval_gather(input, { 1.5, 1 }, { 1, 1 }) end, "mgpu.interval_gather", W("gather"))
      E(function() return mgpu.interval_scatter(ctx:iota(2), { 1, 0 / 0 }, { 1, 1 }) end, "mgpu.interval_scatter",
        W("scatter"))
      E(function() return mgpu.interval_expand(vals, { 1, math.huge }) end, "mgpu.interval_expand", W("counts"))
    end)

    it("wrong types and unknown options", function()
      local vals, input = ctx:iota(2), ctx:array(IN)
      guard { { vals, { 1, 2 } }, { input, IN } }
      E(function() return mgpu.interval_expand({ 1, 2 }, { 1, 1 }) end, "mgpu.interval_expand", W("values"), "table")
      E(function() return mgpu.interval_expand("12", { 1, 1 }) end, "mgpu.interval_expand", W("values"))
      E(function() return mgpu.interval_expand(vals) end, "mgpu.interval_expand", W("counts"))
      E(function() return mgpu.interval_expand(vals, "11") end, "mgpu.interval_expand", W("counts"))
      E(function() return mgpu.interval_expand(vals, { 1, "1" }) end, "mgpu.interval_expand", W("counts"))
      E(function() return mgpu.load_balance() end, "mgpu.load_balance", W("counts"))
      E(function() return mgpu.load_balance(3) end, "mgpu.load_balance", W("counts"))
      E(function() return mgpu.load_balance({ 1, {} }) end, "mgpu.load_balance", W("counts"))
      E(function() return mgpu.interval_gather({ 1, 2 }, { 1 }, { 1 }) end, "mgpu.interval_gather", W("input"))
      E(function() return mgpu.interval_gather(input, nil, { 1 }) end, "mgpu.interval_gather", W("gather"))
      E(function() return mgpu.interval_gather(input, { 1 }, true) end, "mgpu.interval_gather", W("counts"))
      E(function() return mgpu.interval_scatter(42, { 1 }, { 1 }) end, "mgpu.interval_scatter", W("input"))
      local one = ctx:iota(1)
      E(function() return mgpu.interval_scatter(one, "1", { 1 }) end, "mgpu.interval_scatter", W("scatter"))
      E(function() return mgpu.interval_scatter(one, { 1 }, { 1 }, { out = { 0, 0 } }) end,
        "mgpu.interval_scatter", W("out"))
      E(function() return mgpu.interval_scatter(one, { 1 }, { 1 }, { outt = ctx:zeros(3) }) end,
        "mgpu.interval_scatter", "outt")
      E(function() return mgpu.interval_scatter(one, { 1 }, { 1 }, "out") end, "mgpu.interval_scatter")
      E(function() return mgpu.interval_move(nil, { 1 }, { 1 }, { 1 }) end, "mgpu.interval_move", W("input"))
      E(function() return mgpu.interval_move(input, { 1 }, { 1 }) end, "mgpu.interval_move", W("counts"))
      E(function() return mgpu.interval_move(input, { 1 }, { 1 }, { 1 }, { out = 5 }) end,
        "mgpu.interval_move", W("out"))
      E(function() return mgpu.interval_move(input, { 1 }, { 1 }, { 1 }, { comp = "less" }) end,
        "mgpu.interval_move", "comp")
    end)

    it("freed arrays", function()
      local vals, input = ctx:iota(2), ctx:array(IN)
      guard { { vals, { 1, 2 } }, { input, IN } }
      local function freed(a) a:free(); return a end
      E(function() return mgpu.interval_expand(freed(ctx:iota(2)), { 1, 1 }) end, "mgpu", FREED)
      E(function() return mgpu.interval_expand(vals, freed(ctx:iota(2))) end, "mgpu", FREED)
      E(function() return mgpu.load_balance(freed(ctx:iota(2))) end, "mgpu", FREED)
      E(function() return mgpu.interval_gather(freed(ctx:iota(9)), { 1 }, { 1 }) end, "mgpu", FREED)
      E(function() return mgpu.interval_gather(input, freed(ctx:iota(1)), { 1 }) end, "mgpu", FREED)
      E(function() return mgpu.interval_scatter(ctx:iota(1), freed(ctx:iota(1)), { 1 }) end, "mgpu", FREED)
      E(function() return mgpu.interval_scatter(ctx:iota(1), { 1 }, { 1 }, { out = freed(ctx:zeros(3)) }) end,
        "mgpu", FREED)
      E(function() return mgpu.interval_move(input, { 1 }, { 1 }, freed(ctx:iota(1))) end, "mgpu", FREED)
    end)

    it("arrays from different contexts", function()
      local other = mgpu.context { device = device }
      local vals, input = ctx:iota(2), ctx:array(IN)
      local oc, oi = other:array { 1, 1 }, other:iota(5)
      guard { { vals, { 1, 2 } }, { input, IN }, { oc, { 1, 1 } }, { oi, R.iota(5) } }
      E(function() return mgpu.interval_expand(vals, oc) end, "mgpu.interval_expand", { W("counts"), "context" })
      E(function() return mgpu.interval_expand(oi:slice(1, 2), ctx:array { 1, 1 }) end,
        "mgpu.interval_expand", { W("counts"), "context" })
      E(function() return mgpu.interval_gather(input, oc, { 1, 1 }) end, "mgpu.interval_gather",
        { W("gather"), "context" })
      E(function() return mgpu.interval_scatter(ctx:iota(1), { 1 }, { 1 }, { out = other:zeros(3) }) end,
        "mgpu.interval_scatter", { W("out"), "context" })
      E(function() return mgpu.interval_move(oi, { 1 }, { 1 }, ctx:array { 1 }) end, "mgpu.interval_move",
        { W("counts"), "context" })
      if backends.has_cuda() then
        local x = (device == "cuda") and mgpu.context { device = "cpu" } or mgpu.context { device = "cuda" }
        E(function() return mgpu.interval_expand(vals, x:array { 1, 1 }) end, "mgpu.interval_expand")
        E(function() return mgpu.interval_move(input, { 1 }, { 1 }, { 1 }, { out = x:zeros(2) }) end,
          "mgpu.interval_move")
      end
      C.array_eq(mgpu.interval_expand(oi:slice(1, 2), oc), { 1, 2 }, "i32", "the other context works")
    end)

    it("a total count past the index limit is an error, not a crash", function()
      local vals, input = ctx:iota(3), ctx:array(IN)
      guard { { vals, R.iota(3) }, { input, IN } }
      -- three counts past 2^53 (i64 counts)
      local big = { 1 << 52, 1 << 52, 1 << 52 }
      local TOTAL = { W("counts"), "total", W(tostring(LIMIT)) }
      local kinds = { "table", "i64", "u64" }
      for _, kind in ipairs(kinds) do
        local counts = index_arg(ctx, big, kind)
        E(function() return mgpu.interval_expand(vals, counts) end, "mgpu.interval_expand", TOTAL)
        E(function() return mgpu.interval_gather(input, { 1, 1, 1 }, counts) end, "mgpu.interval_gather")
        E(function() return mgpu.interval_scatter(input, { 1, 1, 1 }, counts) end, "mgpu.interval_scatter")
        E(function() return mgpu.interval_move(input, { 1, 1, 1 }, { 1, 1, 1 }, counts) end, "mgpu.interval_move")
        if kind ~= "table" then
          E(function() return mgpu.load_balance(counts) end, "mgpu.load_balance", TOTAL)
        end
      end
      E(function() return on_default(ctx, function() return mgpu.load_balance(big) end) end,
        "mgpu.load_balance", TOTAL)
      E(function() return mgpu.load_balance(ctx:array({ LIMIT + 1 }, "i64")) end, "mgpu.load_balance", TOTAL)
      E(function() return mgpu.load_balance(ctx:array({ LIMIT, 1 }, "u64")) end,
        "mgpu.load_balance", TOTAL)
      E(function() return mgpu.interval_expand(ctx:iota(1), ctx:array({ -1 }, "u64")) end,
        "mgpu.interval_expand", TOTAL)
    end)
  end)

  -- the index dtype rule: below 2^31 - 1 outputs and intervals the
  -- results are i32 on every backend, whatever the index arguments' dtype
  it("the index dtype rule: an i32 load_balance, i64 counts and starts", function()
    local counts = { 2, 0, 3, 1 }
    for _, kind in ipairs { "i64", "u64" } do
      local lb = mgpu.load_balance(ctx:array(counts, kind))
      assert.are.equal("i32", lb.dtype)
      C.array_eq(lb, R.load_balance(counts), "i32", "load_balance, " .. kind)
      C.array_eq(mgpu.interval_expand(ctx:array { 7, 8, 9, 10 }, ctx:array(counts, kind)),
        R.interval_expand({ 7, 8, 9, 10 }, counts), "i32", "expand, " .. kind)
      local input = R.iota(12, 100)
      local gather, scatter = { 3, 1, 10, 12 }, { 1, 9, 4, 20 }
      C.array_eq(mgpu.interval_gather(ctx:array(input), ctx:array(gather, kind), ctx:array(counts, kind)),
        R.interval_gather(input, gather, counts), "i32", "gather, " .. kind)
      C.array_eq(mgpu.interval_move(ctx:array(input), ctx:array(gather, kind), ctx:array(scatter, kind),
          ctx:array(counts, kind)),
        R.interval_move(input, gather, scatter, counts, nil, 0), "i32", "move, " .. kind)
    end
    -- an i64 start past int32 is out of range, not wrapped into it
    C.raises(function()
      return mgpu.interval_gather(ctx:iota(4), ctx:array({ (1 << 32) + 1 }, "i64"), { 1 })
    end, "mgpu.interval_gather", C.word("4294967297"))
  end)

  it("intervals and outputs past the limit together: a clear error before any allocation", function()
    -- the kernels walk both in one offset, held to the context's limit;
    -- each alone is within it
    local big = { LIMIT - 2, 0, 0, 0 }
    C.raises(function() return mgpu.load_balance(ctx:array(big, "i64")) end,
      "mgpu.load_balance", "together")
    C.raises(function() return mgpu.interval_expand(ctx:iota(4), big) end,
      "mgpu.interval_expand", "together")
    C.raises(function() return mgpu.interval_gather(ctx:iota(4), { 1, 1, 1, 1 }, big) end,
      "mgpu.interval_gather", "together")
    C.array_eq(mgpu.load_balance(ctx:array({ 2, 0, 1 })), { 1, 1, 3 }, "i32")
  end)
end)

backends.cuda_vs_cpu(function(gpu, cpu)
  local cases = {
    { "i32", 0, 1000 },
    { "u32", 0, R.U32_MAX },
    { "i64", math.mininteger, math.maxinteger },
    { "u64", 0, -1 },
    { "f32", -1.0, 1.0 },
    { "f64", -1e6, 1e6 },
  }
  for k, c in ipairs(cases) do
    local dt, lo, hi = c[1], c[2], c[3]
    it("~10^6 outputs: expand, load_balance, gather, scatter, move, " .. dt, function()
      local rng = R.rng(600 + k)
      local kind = INDEX_KINDS[k % 5 + 1]
      local function both(t)
        if kind == "table" then return t, t end
        local a = cpu:array(t, kind)
        return a, a:to(gpu)
      end
      local counts_t = random_counts(rng, 100000, 19, 0.1)
      local total = sum(counts_t)
      local c1, c2 = both(counts_t)
      local vals = cpu:random(#counts_t, lo, hi, dt, 60 * k)
      C.same_array(mgpu.interval_expand(vals:to(gpu), c2), mgpu.interval_expand(vals, c1), "expand")
      C.same_array(mgpu.load_balance(cpu:array(counts_t):to(gpu)), mgpu.load_balance(cpu:array(counts_t)),
        "load_balance")
      local input = cpu:random(total + 1000, lo, hi, dt, 60 * k + 1)
      local ginput = input:to(gpu)
      local g1, g2 = both(random_gather(rng, counts_t, #input))
      C.same_array(mgpu.interval_gather(ginput, g2, c2), mgpu.interval_gather(input, g1, c1), "gather")
      local scatter_t, len = disjoint_scatter(rng, counts_t, 3)
      local s1, s2 = both(scatter_t)
      local sinput, gsinput = input:slice(1, total), ginput:slice(1, total)
      C.same_array(mgpu.interval_scatter(gsinput, s2, c2), mgpu.interval_scatter(sinput, s1, c1), "scatter")
      C.same_array(mgpu.interval_move(ginput, g2, s2, c2), mgpu.interval_move(input, g1, s1, c1), "move")
      local o1 = cpu:random(len + 5, lo, hi, dt, 60 * k + 2)
      local o2 = o1:to(gpu)
      mgpu.interval_move(input, g1, s1, c1, { out = o1 })
      mgpu.interval_move(ginput, g2, s2, c2, { out = o2 })
      C.same_array(o2, o1, "move with out=")
      o1 = cpu:random(len + 5, lo, hi, dt, 60 * k + 3)
      o2 = o1:to(gpu)
      mgpu.interval_scatter(sinput, s1, c1, { out = o1 })
      mgpu.interval_scatter(gsinput, s2, c2, { out = o2 })
      C.same_array(o2, o1, "scatter with out=")
    end)
  end

  it("10^6 zero counts, then one count of 10^6; long intervals", function()
    local n = 1000000
    local counts = cpu:zeros(n + 1)
    counts[n + 1] = n
    local vals = cpu:iota(n + 1, 1, 1, "f64")
    C.same_array(mgpu.interval_expand(vals:to(gpu), counts:to(gpu)), mgpu.interval_expand(vals, counts), "expand")
    C.same_array(mgpu.load_balance(counts:to(gpu)), mgpu.load_balance(counts), "load_balance")
    local input = cpu:random(n, 0, -1, "u64", 61)
    local starts = cpu:random(n + 1, 1, n + 1, "i32", 62)
    starts[n + 1] = 1
    C.same_array(mgpu.interval_gather(input:to(gpu), starts:to(gpu), counts:to(gpu)),
      mgpu.interval_gather(input, starts, counts), "gather")
    C.same_array(mgpu.interval_scatter(input:to(gpu), starts:to(gpu), counts:to(gpu)),
      mgpu.interval_scatter(input, starts, counts), "scatter")
    -- a few intervals of hundreds of thousands of elements
    local lc = { 300000, 0, 250001, 1, 449998 }
    local li = cpu:random(n, -1.0, 1.0, "f32", 63)
    local lg = { 1, 5, 700000, 1, 500000 }
    local ls = { 700001, 1, 1, 700000, 250002 }
    C.same_array(mgpu.interval_move(li:to(gpu), lg, ls, lc), mgpu.interval_move(li, lg, ls, lc), "long move")
  end)
end)
