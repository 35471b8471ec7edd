-- Calls whose element counts reach 2^31 - 1 (MGPU_MAX_COUNT): the tiles,
-- partition searches and diagonals next to INT_MAX, where a 32-bit sum such
-- as "tile start + tile size" would wrap.  Inputs are iotas, so the results
-- have closed forms (helpers/closed_form.lua); each result is checked in
-- windows (its start, its middle, the crossover of the closed form, the
-- last 40,000 elements, which span the last tiles of every policy, and
-- random windows) and, on the GPU, by is_sorted over all of it.
--
-- Each call needs 8-35 GB of memory, so the file runs only with
-- MGPU_SPEC_HUGE=1 (tools/gpu-check.sh huge runs it on the GPU machine);
-- otherwise its one entry is pending.
--
-- The cpu backend's limit is past 2^31 (mgpu_context_max_count): its cases
-- at the end take 2^31 + 5 elements, built from i32 iotas that start at
-- INT32_MIN or count down from INT32_MAX so that every value fits; each
-- needs about 17.2 GB.

local mgpu = require "mgpu"
local F = require "helpers.closed_form"
local C = require "helpers.check"
local backends = require "helpers.backends"

local MAX = 2147483647 -- MGPU_MAX_COUNT
local WIDE = MAX + 6    -- 2^31 + 5: past the 32-bit limit
local I32_MIN = -2147483648
local HALF = 1073741824 -- 2^30

-- Compares elements [i, j] of keys (and of vals, if given) with
-- want(p) -> key [, value], through the specs' usual table comparison.
local function check_window(keys, vals, i, j, want, label)
  local wk, wv = {}, {}
  for p = i, j do wk[p - i + 1], wv[p - i + 1] = want(p) end
  local where = string.format("%s, window from %d", label, i)
  C.table_eq(keys:totable(i, j), wk, "i32", where .. " keys")
  if vals then C.table_eq(vals:totable(i, j), wv, "i32", where .. " values") end
end

local function check_result(keys, vals, n, want, crossover, label)
  assert.are.equal(n, #keys, label .. ": length")
  if vals then assert.are.equal(n, #vals, label .. ": values' length") end
  local function window(i, j)
    i, j = math.max(1, i), math.min(n, j)
    if i <= j then check_window(keys, vals, i, j, want, label) end
  end
  window(1, 4096)
  window(n // 2 - 2048, n // 2 + 2048)
  if crossover then window(crossover - 2048, crossover + 2048) end
  window(n - 40000, n)
  local rng = 20261127
  for _ = 1, 16 do
    rng = (rng * 1103515245 + 12345) % 2147483648
    local at = 1 + rng % n
    window(at, at + 255)
  end
end

if os.getenv("MGPU_SPEC_HUGE") ~= "1" then
  describe("calls of ~2^31 elements", function()
    pending("set MGPU_SPEC_HUGE=1 to run them (8-35 GB of memory each)")
  end)
  return
end

backends.each(function(ctx, device)
  local gpu = device ~= "cpu"

  it("merge: 2^31 - 1 outputs, keys", function()
    local na, nb = HALF - 1, HALF
    local a <close> = ctx:iota(na, "i32")
    local b <close> = ctx:iota(nb, "i32")
    local c <close> = mgpu.merge(a, b)
    if gpu then assert.is_true(c:is_sorted(), "merge output sorted") end
    check_result(c, nil, MAX, function(p) return (F.merge_iotas(na, nb, p)) end,
                 2 * na, "merge keys")
  end)

  it("merge: 2^31 - 1 outputs, pairs", function()
    local na, nb = HALF - 1, HALF
    local a <close> = ctx:iota(na, "i32")
    local b <close> = ctx:iota(nb, "i32")
    local av <close> = ctx:iota(na, "i32")
    local bv <close> = ctx:iota(nb, -1, -1, "i32")
    local c, cv = mgpu.merge(a, b, { values = { av, bv } })
    check_result(c, cv, MAX, function(p) return F.merge_iotas(na, nb, p) end,
                 2 * na, "merge pairs")
    c:free()
    cv:free()
  end)

  it("bulk_insert: 2^31 - 1 outputs", function()
    local n, m = HALF, HALF - 1
    local data <close> = ctx:iota(n, "i32")
    local pos <close> = ctx:iota(m, "i32")
    local vals <close> = ctx:iota(m, -1, -1, "i32")
    local out <close> = mgpu.bulk_insert(data, pos, vals)
    check_result(out, nil, MAX, function(p) return F.insert_iotas(n, m, p) end,
                 2 * m, "bulk_insert")
  end)

  it("set_union: inputs of 2^31 - 1 keys in all", function()
    local na, nb = HALF - 1, HALF
    local a <close> = ctx:iota(na, "i32")
    local b <close> = ctx:iota(nb, "i32")
    local u <close> = mgpu.set_union(a, b)
    check_result(u, nil, nb, F.sorted_iota, na, "set_union")
  end)

  it("set_intersection and set_difference: inputs of 2.3e9 keys in all", function()
    local na, nb = 1200000000, 1100000000
    local a <close> = ctx:iota(na, "i32")
    local b <close> = ctx:iota(nb, "i32")
    local i <close> = mgpu.set_intersection(a, b)
    check_result(i, nil, nb, F.sorted_iota, nil, "set_intersection")
    local d <close> = mgpu.set_difference(a, b)
    check_result(d, nil, na - nb, function(p) return nb + p end, nil,
                 "set_difference")
  end)

  -- one element against 2^31 - 2: every Merge Path search runs along the
  -- whole of the long side, whose end is next to INT_MAX
  it("merge: one key into 2^31 - 2, from either side", function()
    local k = 1234567891
    local long <close> = ctx:iota(MAX - 1, "i32")
    local one <close> = ctx:array({ k }, "i32")
    local want = function(p) return F.one_inserted(k, k, p) end
    local c <close> = mgpu.merge(one, long)
    check_result(c, nil, MAX, want, k, "merge {k} with iota")
    c:free()
    local d <close> = mgpu.merge(long, one)
    check_result(d, nil, MAX, want, k, "merge iota with {k}")
  end)

  it("bulk_insert: one value into 2^31 - 2", function()
    local k = 2000000001
    local data <close> = ctx:iota(MAX - 1, "i32")
    local out <close> = mgpu.bulk_insert(data, { k }, ctx:array({ -7 }, "i32"))
    check_result(out, nil, MAX, function(p) return F.one_inserted(k, -7, p) end,
                 k, "bulk_insert one")
  end)

  it("set_union and set_difference: one key against 2^31 - 2", function()
    local k = 1500000001
    local long <close> = ctx:iota(MAX - 1, "i32")
    local zero <close> = ctx:array({ 0 }, "i32")
    local u <close> = mgpu.set_union(zero, long)
    check_result(u, nil, MAX, function(p) return p - 1 end, nil, "set_union {0}")
    u:free()
    local one <close> = ctx:array({ k }, "i32")
    local d <close> = mgpu.set_difference(long, one)
    check_result(d, nil, MAX - 2, function(p) return F.one_removed(k, p) end, k,
                 "set_difference {k}")
  end)

  -- the last scan tiles start next to INT_MAX; 8-byte values have twice
  -- as many tiles as 4-byte ones (kernels/policy/scan.cuh)
  it("scan and reduce: 2^31 - 1 elements", function()
    local a <close> = ctx:fill(MAX, 1, "i32")
    assert.are.equal(MAX, mgpu.reduce(a))
    local _, total = mgpu.scan(a, { out = a })
    assert.are.equal(MAX, total)
    if gpu then assert.is_true(a:is_sorted(), "exclusive scan of ones sorted") end
    check_result(a, nil, MAX, function(p) return p - 1 end, nil, "scan i32 in place")
    assert.are.equal(MAX - 1, mgpu.reduce(a, "max"))
    local _, m = mgpu.scan(a, { op = "min", inclusive = true, out = a })
    assert.are.equal(0, m)
    a:free()
    local b <close> = ctx:iota(MAX, "i64") -- 1 .. MAX
    local r <close>, t = mgpu.scan(b, { inclusive = true, op = "max" })
    assert.are.equal(MAX, t)
    check_result(r, nil, MAX, function(p) return p end, nil, "max scan i64")
    r:free()
    -- the sum of 1 .. MAX, past 2^32
    local sum = MAX * (MAX + 1) // 2
    assert.are.equal(sum, mgpu.reduce(b))
    b:free()
  end)

  if gpu then
    -- the CPU backend's sort of 2^31 keys takes minutes; its merge passes
    -- are the same code as its merge, checked above
    it("mergesort: 2^31 - 1 keys in reverse order", function()
      local k <close> = ctx:iota(MAX, MAX, -1, "i32")
      mgpu.mergesort(k)
      assert.is_true(k:is_sorted(), "mergesort output sorted")
      check_result(k, nil, MAX, F.sorted_iota, nil, "mergesort")
    end)

    it("sort (radix): 2^31 - 1 keys in reverse order", function()
      local k <close> = ctx:iota(MAX, MAX, -1, "i32")
      mgpu.sort(k)
      assert.is_true(k:is_sorted(), "sort output sorted")
      check_result(k, nil, MAX, F.sorted_iota, nil, "sort")
    end)
  end

  -- bulk and interval operations past 2^31, on both backends: their
  -- positions, starts and scans are i64 (the results stay i32 where their
  -- values fit), and on cuda the calls run the kernels' 64-bit instances
  local function from(p) return I32_MIN + p - 1 end

  -- 8.6 GB of i32 ones, scanned in place: the sums pass INT32_MAX and
  -- wrap in the dtype, as documented; with max, then reduce's max and min
  -- and a max scan over the wrapped sums
  local function scan_ones_wrapping(max)
    local function wrap(x) return x > MAX and x - (1 << 32) or x end
    local a <close> = ctx:fill(WIDE, 1, "i32")
    assert.are.equal(wrap(WIDE), mgpu.reduce(a))
    local _, total = mgpu.scan(a, { out = a })
    assert.are.equal(wrap(WIDE), total)
    check_result(a, nil, WIDE, function(p) return wrap(p - 1) end, MAX + 1,
                 "scan i32 ones past 2^31")
    if not max then return end
    assert.are.equal(MAX, mgpu.reduce(a, "max"))
    assert.are.equal(I32_MIN, mgpu.reduce(a, "min"))
    -- max so far: p - 1 up to INT32_MAX at 2^31, then INT32_MAX
    local _, m = mgpu.scan(a, { op = "max", inclusive = true, out = a })
    assert.are.equal(MAX, m)
    check_result(a, nil, WIDE, function(p) return math.min(p - 1, MAX) end, MAX + 1,
                 "max scan i32 past 2^31")
  end

  -- runs 1, 7 (2^31 + 3 keys, across 2^31) and 9: i32 keys (8.6 GB), max
  -- over i32 values from INT32_MIN (8.6 GB); with add, then add over i64
  -- ones (17.2 GB)
  local function reduce_by_key_across(add)
    local k <close> = ctx:fill(WIDE, 7, "i32")
    k[1], k[WIDE] = 1, 9
    local x <close> = ctx:iota(WIDE, I32_MIN, 1, "i32")
    local rk, rv = mgpu.reduce_by_key(k, x, { op = "max" })
    C.array_eq(rk, { 1, 7, 9 }, "i32", "reduce_by_key keys")
    C.array_eq(rv, { from(1), from(WIDE - 1), from(WIDE) }, "i32", "reduce_by_key max")
    rk:free()
    rv:free()
    x:free()
    if not add then return end
    local ones <close> = ctx:fill(WIDE, 1, "i64")
    rk, rv = mgpu.reduce_by_key(k, ones)
    C.array_eq(rk, { 1, 7, 9 }, "i32", "reduce_by_key keys, i64 values")
    C.array_eq(rv, { 1, WIDE - 2, 1 }, "i64", "reduce_by_key add")
    rk:free()
    rv:free()
  end

  local function bulk_interval_cases(prefix)
    it(prefix .. "bulk_insert at positions past 2^31", function()
      local n = WIDE - 2
      local data <close> = ctx:iota(n, I32_MIN, 1, "i32") -- from(p) at p
      local k = MAX + 1
      local out <close> = mgpu.bulk_insert(data, { k, n + 1 }, ctx:array({ -7, 9 }, "i32"))
      check_result(out, nil, WIDE, function(p)
        if p < k then return from(p) elseif p == k then return -7
        elseif p <= n + 1 then return from(p - 1) else return 9 end
      end, k, "bulk_insert past 2^31")
    end)

    it(prefix .. "bulk_remove at indices past 2^31", function()
      local data <close> = ctx:iota(WIDE, I32_MIN, 1, "i32")
      local k = MAX + 1
      local out <close> = mgpu.bulk_remove(data, ctx:array({ 1, k, WIDE }, "i64"))
      check_result(out, nil, WIDE - 3, function(p)
        if p < k - 1 then return from(p + 1) else return from(p + 2) end
      end, k, "bulk_remove past 2^31")
    end)

    it(prefix .. "interval_expand and load_balance, a total past INT32_MAX", function()
      local counts = { MAX, 0, 6 }
      local out <close> = mgpu.interval_expand(ctx:array({ 11, 22, 33 }, "i32"), counts)
      check_result(out, nil, WIDE, function(p) return p <= MAX and 11 or 33 end, MAX + 1,
                   "interval_expand past 2^31")
      out:free()
      -- three intervals: 1-based interval numbers fit i32
      local lb <close> = mgpu.load_balance(ctx:array(counts, "i64"))
      assert.are.equal("i32", lb.dtype)
      check_result(lb, nil, WIDE, function(p) return p <= MAX and 1 or 3 end, MAX + 1,
                   "load_balance past 2^31")
    end)

    it(prefix .. "interval_gather from past 2^31, interval_scatter to past it", function()
      local input <close> = ctx:iota(WIDE, I32_MIN, 1, "i32")
      local g <close> = mgpu.interval_gather(input, { MAX + 1, 1 }, { 5, 2 })
      assert.are.same({ from(MAX + 1), from(MAX + 2), from(MAX + 3), from(MAX + 4), from(MAX + 5),
                        from(1), from(2) }, g:totable())
      input:free()
      -- no out: zeros up to the furthest end, 2^31 + 3
      local s <close> = mgpu.interval_scatter(ctx:array({ 4, 5, 6 }, "i32"), { MAX + 2 }, { 3 })
      check_result(s, nil, MAX + 4, function(p) return p > MAX + 1 and p - MAX + 2 or 0 end, MAX + 2,
                   "interval_scatter past 2^31")
    end)
  end

  if gpu then
    -- every call takes 64-bit counts on cuda, and i64 index arrays where
    -- the index dtype rule asks for them
    local function down() return ctx:iota(WIDE, MAX, -1, "i32") end
    local function up(p) return p - 6 end

    it("cuda, 2^31 + 5: sort (radix), keys in reverse order", function()
      local k <close> = down()
      mgpu.sort(k)
      assert.is_true(k:is_sorted(), "sort output sorted")
      check_result(k, nil, WIDE, up, MAX + 1, "sort")
    end)

    it("cuda, 2^31 + 5: sort (radix), pairs in reverse order", function()
      local k <close> = down()
      local v <close> = ctx:iota(WIDE, I32_MIN, 1, "i32")
      mgpu.sort(k, { values = v })
      -- key p - 6 came from position WIDE - p + 1, whose value is
      -- INT32_MIN + WIDE - p
      check_result(k, v, WIDE, function(p) return p - 6, I32_MIN + WIDE - p end,
                   MAX + 1, "sort pairs")
    end)

    -- 2^32 + 3 i64 keys, n down to 1: sorted, p at position p (69 GB)
    it("cuda, 2^32 + 3: sort (radix), i64 keys in reverse order", function()
      local n = (1 << 32) + 3
      local k <close> = ctx:iota(n, n, -1, "i64")
      mgpu.sort(k)
      assert.is_true(k:is_sorted(), "sort output sorted")
      local function window(i, j)
        local got = k:totable(i, j)
        for p = i, j do
          if got[p - i + 1] ~= p then
            C.fail(string.format("sort i64 at %d: %s, want %d", p, tostring(got[p - i + 1]), p))
          end
        end
      end
      window(1, 4096)
      window((1 << 31) - 2048, (1 << 31) + 2048)
      window((1 << 32) - 2048, n)
    end)

    -- the evens and the odds from INT32_MIN, merged: INT32_MIN + p - 1 at
    -- position p, up to 4 at p = 2^31 + 5; every tile past the 2^31st
    -- output takes keys from both sides (17.2 GB)
    it("cuda, 2^31 + 5: merge, keys", function()
      local na, nb = (WIDE + 1) // 2, WIDE // 2
      local a <close> = ctx:iota(na, I32_MIN, 2, "i32")
      local b <close> = ctx:iota(nb, I32_MIN + 1, 2, "i32")
      local c <close> = mgpu.merge(a, b)
      assert.is_true(c:is_sorted(), "merge output sorted")
      check_result(c, nil, WIDE, function(p) return I32_MIN + p - 1 end,
                   MAX + 1, "merge keys")
    end)

    -- the same keys on both sides (a has one more), so that every key is a
    -- tie, which a takes first: key INT32_MIN + (p - 1) // 2 at p, and the
    -- values (a's INT32_MAX, INT32_MAX - 2, ..., b's one less each)
    -- INT32_MAX - p + 1, down to -5 (34.4 GB)
    it("cuda, 2^31 + 5: merge, pairs with every key tied", function()
      local na, nb = (WIDE + 1) // 2, WIDE // 2
      local a <close> = ctx:iota(na, I32_MIN, 1, "i32")
      local b <close> = ctx:iota(nb, I32_MIN, 1, "i32")
      local av <close> = ctx:iota(na, MAX, -2, "i32")
      local bv <close> = ctx:iota(nb, MAX - 1, -2, "i32")
      local c, cv = mgpu.merge(a, b, { values = { av, bv } })
      assert.is_true(c:is_sorted(), "merge output sorted")
      check_result(c, cv, WIDE,
                   function(p) return I32_MIN + (p - 1) // 2, MAX - p + 1 end,
                   MAX + 1, "merge pairs")
      c:free()
      cv:free()
    end)

    -- 2^32 + 3 keys: a = INT32_MIN .. 1 (2^31 + 2), b = INT32_MIN + 1 .. 1
    -- (2^31 + 1).  Merged: INT32_MIN, then every key of b twice, a's copy
    -- first, so every tile takes from both sides up to the end.  Values
    -- tell the copies apart: a's INT32_MIN up, b's INT32_MAX down (keys
    -- 34.4 GB; pairs 68.7 GB)
    local function merged_twice(p)
      if p == 1 then return I32_MIN, I32_MIN end
      local q = (p - 2) // 2
      if (p - 2) % 2 == 0 then return I32_MIN + 1 + q, I32_MIN + 1 + q end
      return I32_MIN + 1 + q, MAX - q
    end
    it("cuda, 2^32 + 3: merge, keys and pairs with every key of b tied", function()
      local n = (1 << 32) + 3
      local na, nb = (1 << 31) + 2, (1 << 31) + 1
      local a <close> = ctx:iota(na, I32_MIN, 1, "i32")
      local b <close> = ctx:iota(nb, I32_MIN + 1, 1, "i32")
      local c = mgpu.merge(a, b)
      assert.is_true(c:is_sorted(), "merge 2^32 + 3 output sorted")
      check_result(c, nil, n, merged_twice, 1 << 31, "merge 2^32 + 3 keys")
      c:free()
      local av <close> = ctx:iota(na, I32_MIN, 1, "i32")
      local bv <close> = ctx:iota(nb, MAX, -1, "i32")
      local cv
      c, cv = mgpu.merge(a, b, { values = { av, bv } })
      check_result(c, cv, n, merged_twice, 1 << 31, "merge 2^32 + 3 pairs")
      c:free()
      cv:free()
    end)

    -- INT32_MAX down to -5: sorted, p - 6 at position p; the last pass
    -- merges runs whose ends pass 2^31 (17.2 GB)
    it("cuda, 2^31 + 5: mergesort, keys in reverse order", function()
      local k <close> = down()
      mgpu.mergesort(k)
      assert.is_true(k:is_sorted(), "mergesort output sorted")
      check_result(k, nil, WIDE, up, MAX + 1, "mergesort")
    end)

    -- values INT32_MIN up: key p - 6 came from position WIDE - p + 1, whose
    -- value is INT32_MIN + WIDE - p (34.4 GB)
    it("cuda, 2^31 + 5: mergesort, pairs in reverse order", function()
      local k <close> = down()
      local v <close> = ctx:iota(WIDE, I32_MIN, 1, "i32")
      mgpu.mergesort(k, { values = v })
      check_result(k, v, WIDE, function(p) return p - 6, I32_MIN + WIDE - p end,
                   MAX + 1, "mergesort pairs")
    end)

    -- 2^32 + 3 i32 keys i * STEP (i = 0, 1, ...), wrapped to 32 bits: STEP is
    -- odd, so the first 2^32 are every i32 once, in a scattered order (the
    -- passes' merges interleave their runs), and the last three repeat the
    -- first three.  Sorted: every i32 in order, those three twice (34.4 GB)
    it("cuda, 2^32 + 3: mergesort, scattered i32 keys", function()
      local n = (1 << 32) + 3
      local STEP = 2654435761
      local function wrap(x)
        x = x & 0xffffffff
        return x > MAX and x - (1 << 32) or x
      end
      local dups = { wrap(0), wrap(STEP), wrap(2 * STEP) }
      table.sort(dups)
      local function want(p)
        local q = p - 1 -- INT32_MIN + q, less the copies before it
        for i, d in ipairs(dups) do
          local first = d - I32_MIN + (i - 1) -- q of d's first copy
          if q <= first then return I32_MIN + q - (i - 1) end
          if q == first + 1 then return d end
        end
        return I32_MIN + q - #dups
      end
      local k <close> = ctx:iota(n, 0, STEP, "i32")
      assert.are.same({ 0, wrap(STEP), wrap(2 * STEP) }, k:totable(n - 2, n))
      mgpu.mergesort(k)
      assert.is_true(k:is_sorted(), "mergesort output sorted")
      check_result(k, nil, n, want, 1 << 31, "mergesort 2^32 + 3")
      for _, d in ipairs(dups) do
        local at = d - I32_MIN + 1
        check_window(k, nil, at - 2048, at + 2048, want, "mergesort 2^32 + 3 copies")
      end
    end)

    -- 2^32 + 3 i32 keys INT32_MAX down, wrapped to 32 bits (every i32
    -- once, then INT32_MAX, INT32_MAX - 1, INT32_MAX - 2 again), with i64
    -- values 0, 1, ...: sorted, INT32_MIN + p - 1 at p below the last six,
    -- and the three repeated keys each twice, the earlier copy first
    -- (keys 17.2 GB, values 34.4 GB, and the sort's buffers for both)
    it("cuda, 2^32 + 3: mergesort, pairs in reverse order, three keys repeated", function()
      local n = (1 << 32) + 3
      local k <close> = ctx:iota(n, MAX, -1, "i32")
      local v <close> = ctx:iota(n, 0, 1, "i64")
      assert.are.same({ MAX, MAX - 1, MAX - 2 }, k:totable(n - 2, n))
      mgpu.mergesort(k, { values = v })
      local function want(p)
        if p <= n - 6 then
          local key = I32_MIN + p - 1
          return key, MAX - key
        end
        local key = MAX - 2 + (p - (n - 5)) // 2 -- p = n - 5 .. n
        local first = MAX - key
        return key, (p - (n - 5)) % 2 == 0 and first or first + (1 << 32)
      end
      check_result(k, v, n, want, 1 << 31, "mergesort pairs 2^32 + 3")
    end)

    -- flags: three segments, [1, 2^30], [2^30 + 1, 2^31 + 2] across 2^31
    -- and the last three keys; each, in reverse order, comes out reversed,
    -- so position p of segment [s, e] holds the key and value of position
    -- s + e - p.  Far from every tile boundary a head is, so the global
    -- passes run (keys: 26 GB; pairs: 43 GB)
    local seg_starts = { 1, HALF + 1, MAX + 4, WIDE + 1 }
    local function three_flags()
      local f = ctx:zeros(WIDE, "i32")
      f[seg_starts[2]], f[seg_starts[3]] = 1, 1
      return f
    end
    local function reversed_segments(p)
      for i = 1, 3 do
        local s, e = seg_starts[i], seg_starts[i + 1] - 1
        if p <= e then
          local q = s + e - p
          return MAX - q + 1, I32_MIN + q - 1
        end
      end
    end

    it("cuda, 2^31 + 5: segsort with flags, a segment across 2^31, keys", function()
      local k <close> = down()
      local f <close> = three_flags()
      local _, st = mgpu.segsort(k, nil, { flags = f, stats = true })
      assert.is_true(#st > 0, "the global passes ran")
      check_result(k, nil, WIDE, reversed_segments, MAX + 1, "segsort flags")
      check_window(k, nil, HALF - 2048, HALF + 2048, reversed_segments,
                   "segsort flags, first head")
    end)

    it("cuda, 2^31 + 5: segsort with flags, a segment across 2^31, pairs", function()
      local k <close> = down()
      local v <close> = ctx:iota(WIDE, I32_MIN, 1, "i32")
      local f <close> = three_flags()
      mgpu.segsort(k, nil, { flags = f, values = v })
      check_result(k, v, WIDE, reversed_segments, MAX + 1, "segsort flags pairs")
      check_window(k, v, HALF - 2048, HALF + 2048, reversed_segments,
                   "segsort flags pairs, first head")
    end)

    -- 2^32 + 3 keys INT32_MAX down, wrapped to 32 bits (the last three
    -- are INT32_MAX again, and down), in three segments: [1, 2^31],
    -- [2^31 + 1, 2^32] and the last three; each comes out reversed, so
    -- position p of segment [s, e] holds the key of position s + e - p
    -- (52 GB with the flags and the passes' buffer)
    it("cuda, 2^32 + 3: segsort with flags, three segments of reversed keys", function()
      local n = (1 << 32) + 3
      local starts = { 1, (1 << 31) + 1, (1 << 32) + 1, n + 1 }
      local function wrap(x)
        x = x & 0xffffffff
        return x > MAX and x - (1 << 32) or x
      end
      local k <close> = ctx:iota(n, MAX, -1, "i32")
      assert.are.same({ MAX, MAX - 1, MAX - 2 }, k:totable(n - 2, n))
      local f <close> = ctx:zeros(n, "i32")
      f[starts[2]], f[starts[3]] = 1, 1
      local _, st = mgpu.segsort(k, nil, { flags = f, stats = true })
      assert.is_true(#st > 0, "the global passes ran")
      f:free()
      check_result(k, nil, n, function(p)
        for i = 1, 3 do
          local s, e = starts[i], starts[i + 1] - 1
          if p <= e then return wrap(MAX - (s + e - p - 1)) end
        end
      end, 1 << 32, "segsort flags 2^32 + 3")
    end)

    -- u32 flags (p - 1) * 2^24, wrapped: zero at p = 256 j + 1 only, so
    -- the segments are single keys but for the pairs (256 j, 256 j + 1),
    -- one of them at 2^31 (0-based INT32_MAX and 2^31); keys in reverse
    -- order swap within each pair.  Every tile boundary (a multiple of 256)
    -- splits such a pair: the window merge alone finishes (17.5 GB)
    it("cuda, 2^31 + 5: segsort with flags, pairs of keys everywhere", function()
      local k <close> = down()
      local f <close> = ctx:iota(WIDE, 0, 1 << 24, "u32")
      local _, st = mgpu.segsort(k, nil, { flags = f, stats = true })
      assert.are.equal(0, #st, "no global pass")
      assert.is_true(st.windows > 0, "windows merged")
      check_result(k, nil, WIDE, function(p)
        if p % 256 == 0 and p < WIDE then return MAX - p end
        if p % 256 == 1 and p > 1 then return MAX - p + 2 end
        return MAX - p + 1
      end, MAX + 1, "segsort flags, pairs")
    end)

    -- sorted but for the ends swapped and the pair at 2^31 swapped: the
    -- first key has all the way to go, so the global passes run; sorted,
    -- p - 6 at p, the values following their keys (keys: 17.5 GB; pairs:
    -- 35 GB)
    local function nearly_sorted()
      local k = ctx:iota(WIDE, -5, 1, "i32")
      k[1], k[WIDE] = k[WIDE], k[1]
      k[MAX + 1], k[MAX + 2] = k[MAX + 2], k[MAX + 1]
      assert.are.equal(MAX, k[1])
      return k
    end

    it("cuda, 2^31 + 5: locality_sort, nearly sorted keys", function()
      local k <close> = nearly_sorted()
      local _, st = mgpu.locality_sort(k, { stats = true })
      assert.is_true(#st > 0, "the global passes ran")
      assert.is_true(k:is_sorted(), "locality_sort output sorted")
      check_result(k, nil, WIDE, up, MAX + 1, "locality_sort")
    end)

    it("cuda, 2^31 + 5: locality_sort, nearly sorted pairs", function()
      local k <close> = nearly_sorted()
      local v <close> = ctx:iota(WIDE, I32_MIN, 1, "i32")
      mgpu.locality_sort(k, { values = v })
      local src = { [1] = WIDE, [WIDE] = 1, [MAX + 1] = MAX + 2, [MAX + 2] = MAX + 1 }
      check_result(k, v, WIDE, function(p) return p - 6, I32_MIN + (src[p] or p) - 1 end,
                   MAX + 1, "locality_sort pairs")
    end)

    -- sorted but for the pairs (2 m, 2 m + 1) swapped from 2^31 - 12000 to
    -- the end: each tile boundary there (even, 0-based) splits a pair, and
    -- no key has further to go, so the window merge alone finishes (8.6 GB)
    it("cuda, 2^31 + 5: locality_sort, pairs swapped across the last tiles", function()
      local k <close> = ctx:iota(WIDE, -5, 1, "i32")
      for a = MAX + 1 - 12000, WIDE - 1, 2 do k[a], k[a + 1] = k[a + 1], k[a] end
      assert.are.equal(WIDE - 7, k[WIDE])
      local _, st = mgpu.locality_sort(k, { stats = true })
      assert.are.equal(0, #st, "no global pass")
      assert.is_true(st.windows > 0, "windows merged")
      check_result(k, nil, WIDE, up, MAX + 1, "locality_sort windows")
    end)

    -- the evens and the odds from INT32_MIN: their union is INT32_MIN +
    -- p - 1 at position p, up to 4 at p = 2^31 + 5; values MAX down by 2
    -- on each side (b's one less) follow their keys: MAX - p + 1 at p,
    -- staged into the tile with them (pairs: 34.4 GB)
    it("cuda, 2^31 + 5: set_union, keys and pairs", function()
      local na, nb = (WIDE + 1) // 2, WIDE // 2
      local a <close> = ctx:iota(na, I32_MIN, 2, "i32")
      local b <close> = ctx:iota(nb, I32_MIN + 1, 2, "i32")
      local u = mgpu.set_union(a, b)
      check_result(u, nil, WIDE, function(p) return I32_MIN + p - 1 end,
                   MAX + 1, "set_union keys")
      u:free()
      local av <close> = ctx:iota(na, MAX, -2, "i32")
      local bv <close> = ctx:iota(nb, MAX - 1, -2, "i32")
      local uk, uv = mgpu.set_union(a, b, { values = { av, bv } })
      check_result(uk, uv, WIDE,
                   function(p) return I32_MIN + p - 1, MAX - p + 1 end,
                   MAX + 1, "set_union pairs")
      uk:free()
      uv:free()
    end)

    -- every key of 2^31 + 5 against the evens: the evens, from a's
    -- positions past 2^31; a's values MAX down by 1 come with them:
    -- key INT32_MIN + 2 (p - 1) from a's position 2 p - 1, value MAX - 2 p
    -- + 2 (the values gathered while the tile looks back; 30 GB)
    it("cuda, 2^31 + 5: set_intersection, keys and pairs", function()
      local nb = (WIDE + 1) // 2
      local a <close> = ctx:iota(WIDE, I32_MIN, 1, "i32")
      local b <close> = ctx:iota(nb, I32_MIN, 2, "i32")
      local av <close> = ctx:iota(WIDE, MAX, -1, "i32")
      local bv <close> = ctx:zeros(nb, "i32")
      local i = mgpu.set_intersection(a, b)
      check_result(i, nil, nb, function(p) return I32_MIN + 2 * (p - 1) end,
                   nil, "set_intersection keys")
      i:free()
      local ik, iv = mgpu.set_intersection(a, b, { values = { av, bv } })
      check_result(ik, iv, nb,
                   function(p) return I32_MIN + 2 * (p - 1), MAX - 2 * p + 2 end,
                   HALF + 1, "set_intersection pairs")
      ik:free()
      iv:free()
    end)

    -- i64 evens (2^31 + 2) and odds (2^31 + 1) from 0: their union is p - 1
    -- at position p, 2^32 + 3 of them (69 GB)
    local W32 = (1 << 32) + 3
    local function window64(arr, i, j, want, label)
      local got = arr:totable(i, j)
      for p = i, j do
        if got[p - i + 1] ~= want(p) then
          C.fail(string.format("%s at %d: %s, want %d", label, p,
                               tostring(got[p - i + 1]), want(p)))
        end
      end
    end
    local function windows64(arr, n, want, label)
      assert.are.equal(n, #arr, label .. ": length")
      for _, at in ipairs { 1, (1 << 31) - 2048, (1 << 32) - 2048, n - 4096, n // 3 } do
        local i, j = math.max(1, at), math.min(n, at + 4096)
        if i <= j then window64(arr, i, j, want, label) end
      end
    end

    it("cuda, 2^32 + 3: set_union, i64 keys", function()
      local na, nb = (W32 + 1) // 2, W32 // 2
      local a <close> = ctx:iota(na, 0, 2, "i64")
      local b <close> = ctx:iota(nb, 1, 2, "i64")
      local u <close> = mgpu.set_union(a, b)
      windows64(u, W32, function(p) return p - 1 end, "set_union 2^32 + 3")
    end)

    -- 0 .. 3 * 2^30 + 1 against the evens up to 2^31, 2^32 + 3 keys in all:
    -- the evens, 2 (p - 1) at p, a's positions up to 2^31 + 1; a's i32
    -- values -q + 1 at position q, wrapped: -(2 p - 2) (60 GB)
    it("cuda, 2^32 + 3: set_intersection, i64 keys with i32 values", function()
      local nb = HALF + 1
      local na = W32 - nb
      local a <close> = ctx:iota(na, 0, 1, "i64")
      local b <close> = ctx:iota(nb, 0, 2, "i64")
      local av <close> = ctx:iota(na, 0, -1, "i32")
      local bv <close> = ctx:zeros(nb, "i32")
      local ik, iv = mgpu.set_intersection(a, b, { values = { av, bv } })
      windows64(ik, nb, function(p) return 2 * (p - 1) end, "set_intersection 2^32 + 3 keys")
      windows64(iv, nb, function(p) return -(2 * p - 2) end, "set_intersection 2^32 + 3 values")
      ik:free()
      iv:free()
    end)

    -- every i32 (2^32 of them) against three: the three, the last from a's
    -- position 2^32 (17.2 GB)
    it("cuda, 2^32 + 3: set_intersection, every i32 against three", function()
      local a <close> = ctx:iota(1 << 32, I32_MIN, 1, "i32")
      local b <close> = ctx:array({ I32_MIN, 0, MAX }, "i32")
      local i <close> = mgpu.set_intersection(a, b)
      C.table_eq(i:totable(), { I32_MIN, 0, MAX }, "i32", "set_intersection 2^32 + 3")
    end)

    bulk_interval_cases("cuda, 2^31 + 5: ")

    -- 2^32 + 3: past 2^32 as well, where a 32-bit unsigned offset wraps
    local N32 = (1 << 32) + 3
    local TWO32 = 1 << 32
    local function wrap(x) -- i32 iotas wrap past INT32_MAX
      x = x & 0xffffffff
      return x > MAX and x - (1 << 32) or x
    end
    local function windows_2_32(out, n, want, crossover, label)
      check_result(out, nil, n, want, crossover, label)
      check_window(out, nil, TWO32 - 2048, math.min(n, TWO32 + 2048), want, label)
    end

    -- every i32 once, in order, with inserts at the start, before data
    -- element 2^31 + 1 and before the last (INT32_MAX), which ends up at
    -- 2^32 + 3 (34.4 GB)
    it("cuda, 2^32 + 3: bulk_insert at the start, past 2^31 and before the last", function()
      local n = TWO32
      local data <close> = ctx:iota(n, I32_MIN, 1, "i32") -- from(p) at p
      local k = MAX + 2
      local out <close> = mgpu.bulk_insert(data, ctx:array({ 1, k, n }, "i64"),
                                           ctx:array({ -7, 8, 9 }, "i32"))
      windows_2_32(out, N32, function(p)
        if p == 1 then return -7
        elseif p <= k then return from(p - 1)
        elseif p == k + 1 then return 8
        elseif p <= n + 1 then return from(p - 2)
        elseif p == n + 2 then return 9
        else return from(n) end
      end, k + 1, "bulk_insert 2^32 + 3")
    end)

    -- 2^32 + 3 wrapped i32 iota less the first, element 2^31 + 1 and
    -- element 2^32 + 2: 2^32 remain (34.4 GB)
    it("cuda, 2^32 + 3: bulk_remove at the start, past 2^31 and past 2^32", function()
      local data <close> = ctx:iota(N32, I32_MIN, 1, "i32")
      local k, r3 = MAX + 2, TWO32 + 2
      local out <close> = mgpu.bulk_remove(data, ctx:array({ 1, k, r3 }, "i64"))
      windows_2_32(out, TWO32, function(p)
        local q = p <= k - 2 and p + 1 or (p <= r3 - 3 and p + 2 or p + 3)
        return wrap(I32_MIN + q - 1)
      end, k - 1, "bulk_remove 2^32 + 3")
    end)

    -- 2^31 + 1 elevens and 2^31 + 2 thirty-threes, then load_balance of
    -- the same counts (17.2 GB each)
    it("cuda, 2^32 + 3: interval_expand and load_balance, starts past INT32_MAX", function()
      local counts = { MAX + 2, 0, MAX + 3 }
      local out <close> = mgpu.interval_expand(ctx:array({ 11, 22, 33 }, "i32"), counts)
      windows_2_32(out, N32, function(p) return p <= MAX + 2 and 11 or 33 end, MAX + 2,
                   "interval_expand 2^32 + 3")
      out:free()
      local lb <close> = mgpu.load_balance(ctx:array(counts, "i64"))
      assert.are.equal("i32", lb.dtype)
      windows_2_32(lb, N32, function(p) return p <= MAX + 2 and 1 or 3 end, MAX + 2,
                   "load_balance 2^32 + 3")
    end)

    -- 1431655767 intervals of three: a start passes 2^32 (the wrapped
    -- scan's one wrap, at the last interval) and the interval before it
    -- straddles 2^32; 2^32 + 5 outputs (17.2 GB each)
    it("cuda, 2^32 + 5: interval_expand and load_balance, intervals of three across 2^32", function()
      local m = 1431655767
      local counts <close> = ctx:iota(m, 3, 0, "i32")
      local values <close> = ctx:iota(m, 0, 1, "i32")
      local n = 3 * m
      local out <close> = mgpu.interval_expand(values, counts)
      windows_2_32(out, n, function(p) return (p - 1) // 3 end, 3 * (m - 1) + 1,
                   "interval_expand of threes")
      out:free()
      values:free()
      local lb <close> = mgpu.load_balance(counts)
      assert.are.equal("i32", lb.dtype)
      windows_2_32(lb, n, function(p) return (p - 1) // 3 + 1 end, 3 * (m - 1) + 1,
                   "load_balance of threes")
    end)

    -- scan, reduce, compact and unique past 2^31 - 1: the scan tiles'
    -- starts and look-back are 64-bit at any count; the compaction's
    -- 64-bit instance (run starts, counts, a total past 2^32 - 1)

    it("cuda, 2^31 + 5: scan and reduce, i32 ones, the sum wrapping", function()
      scan_ones_wrapping(true)
    end)

    -- 1 .. 2^31 + 5 in i64 and its exclusive scan (17.2 GB each): sums up
    -- to 2.3e18, past 2^32 from element 92,683 on (exclusive)
    it("cuda, 2^31 + 5: scan and reduce, i64, totals past 2^32", function()
      local b <close> = ctx:iota(WIDE, "i64") -- 1 .. WIDE
      local sum = WIDE * (WIDE + 1) // 2
      assert.are.equal(sum, mgpu.reduce(b))
      assert.are.equal(WIDE, mgpu.reduce(b, "max"))
      local r <close>, t = mgpu.scan(b)
      assert.are.equal(sum, t)
      check_result(r, nil, WIDE, function(p) return p * (p - 1) // 2 end, MAX + 1,
                   "exclusive scan i64 past 2^31")
      r:free()
      local _, ti = mgpu.scan(b, { inclusive = true, out = b })
      assert.are.equal(sum, ti)
      check_result(b, nil, WIDE, function(p) return p * (p + 1) // 2 end, MAX + 1,
                   "inclusive scan i64 past 2^31")
    end)

    -- keys from INT32_MIN, values counting down from INT32_MAX, i32 flags
    -- stepping by 2^30 (zero at p = 1, 5, 9, ...): data, values, flags
    -- and the two outputs, 5 x 8.6 GB
    it("cuda, 2^31 + 5: compact, pairs, every fourth dropped", function()
      local data <close> = ctx:iota(WIDE, I32_MIN, 1, "i32") -- from(p) at p
      local vals <close> = down() -- MAX - p + 1 at p
      local flags <close> = ctx:iota(WIDE, 0, HALF, "i32")
      local out, ov = mgpu.compact(data, flags, { values = vals })
      data:free()
      vals:free()
      flags:free()
      local kept = WIDE - (WIDE + 3) // 4
      -- the q-th kept element is element q + (q - 1) // 3 + 1
      check_result(out, ov, kept, function(q)
        local p = q + (q - 1) // 3 + 1
        return from(p), MAX - p + 1
      end, 3 * (1 << 29), "compact pairs past 2^31")
      out:free()
      ov:free()
    end)

    -- a run of 2^31 + 3 sevens between a one and a nine, with values:
    -- keys, values and their outputs 8.6 GB each, the i64 counts and the
    -- run starts 17.2 GB each
    it("cuda, 2^31 + 5: unique with counts, a run across 2^31", function()
      local k <close> = ctx:fill(WIDE, 7, "i32")
      k[1], k[WIDE] = 1, 9
      local v <close> = down()
      local u, uv, c = mgpu.unique(k, { values = v, counts = true })
      assert.are.equal("i64", c.dtype)
      assert.are.same({ 1, 7, 9 }, u:totable())
      assert.are.same({ MAX, MAX - 1, MAX - WIDE + 1 }, uv:totable())
      assert.are.same({ 1, WIDE - 2, 1 }, c:totable())
      u:free()
      uv:free()
      c:free()
    end)

    -- every key its own run: 2^31 + 5 runs, each of one (keys and their
    -- unique 8.6 GB each, counts and run starts 17.2 GB each)
    it("cuda, 2^31 + 5: unique with counts, every key a run", function()
      local k <close> = ctx:iota(WIDE, I32_MIN, 1, "i32")
      local u, c = mgpu.unique(k, { counts = true })
      k:free()
      assert.are.equal("i64", c.dtype)
      assert.is_true(u:is_sorted(), "unique keys sorted")
      check_result(u, nil, WIDE, from, MAX + 1, "unique keys past 2^31")
      check_result(c, nil, WIDE, function() return 1 end, MAX + 1, "unique counts past 2^31")
      assert.are.equal(WIDE, mgpu.reduce(c))
      u:free()
      c:free()
    end)

    -- 17.2 GB of i32 ones (the sum wraps to 3), then 34.4 GB of i64 ones
    it("cuda, 2^32 + 3: scan and reduce, i32 and i64 ones", function()
      local a <close> = ctx:fill(N32, 1, "i32")
      assert.are.equal(3, mgpu.reduce(a))
      local _, t = mgpu.scan(a, { out = a })
      assert.are.equal(3, t)
      windows_2_32(a, N32, function(p) return wrap(p - 1) end, MAX + 1,
                   "scan i32 ones 2^32 + 3")
      a:free()
      local b <close> = ctx:fill(N32, 1, "i64")
      assert.are.equal(N32, mgpu.reduce(b))
      local _, tb = mgpu.scan(b, { inclusive = true, out = b })
      assert.are.equal(N32, tb)
      windows_2_32(b, N32, function(p) return p end, MAX + 1,
                   "inclusive scan i64 ones 2^32 + 3")
      assert.are.equal(N32, mgpu.reduce(b, "max"))
    end)

    -- every i32 once and three more, less element 2^31 + 1 and element
    -- 2^32 + 2: 2^32 + 1 kept, a total past 2^32 - 1 (data, flags and
    -- out 17.2 GB each)
    it("cuda, 2^32 + 3: compact, all but two", function()
      local data <close> = ctx:iota(N32, I32_MIN, 1, "i32")
      local flags <close> = ctx:fill(N32, 1, "i32")
      local k1, k2 = MAX + 2, TWO32 + 2
      flags[k1], flags[k2] = 0, 0
      local out <close> = mgpu.compact(data, flags)
      data:free()
      flags:free()
      windows_2_32(out, N32 - 2, function(q)
        local p = q < k1 and q or (q < k2 - 1 and q + 1 or q + 2)
        return wrap(I32_MIN + p - 1)
      end, k1, "compact 2^32 + 3")
    end)

    -- every i32 once and three more, with the first two and the last two
    -- keys equal: 2^32 + 1 runs, two of them of two (keys and unique 17.2
    -- GB each, i64 counts and run starts 34.4 GB each: 103 GB)
    it("cuda, 2^32 + 3: unique, 2^32 + 1 runs", function()
      local k <close> = ctx:iota(N32, I32_MIN, 1, "i32")
      k[2], k[N32] = I32_MIN, k[N32 - 1]
      local u, c = mgpu.unique(k, { counts = true })
      k:free()
      assert.are.equal("i64", c.dtype)
      local runs = N32 - 2
      windows_2_32(u, runs, function(q)
        return q == 1 and I32_MIN or wrap(I32_MIN + q)
      end, MAX + 1, "unique keys 2^32 + 3")
      windows_2_32(c, runs, function(q)
        return (q == 1 or q == runs) and 2 or 1
      end, MAX + 1, "unique counts 2^32 + 3")
      assert.are.equal(N32, mgpu.reduce(c))
      u:free()
      c:free()
    end)

    -- heads past 2^31 - 1 keys are i64 (the index dtype rule): the three
    -- segments of the flags' cases, from a Lua table and from an i64 array
    -- (keys: 26 GB)
    it("cuda, 2^31 + 5: segsort with heads past 2^31, keys", function()
      local k <close> = down()
      local heads = { seg_starts[1], seg_starts[2], seg_starts[3] }
      local _, st = mgpu.segsort(k, heads, { stats = true })
      assert.is_true(#st > 0, "the global passes ran")
      check_result(k, nil, WIDE, reversed_segments, MAX + 1, "segsort heads")
      check_window(k, nil, HALF - 2048, HALF + 2048, reversed_segments,
                   "segsort heads, first head")
      k:free()
      local k2 <close> = down()
      local h <close> = ctx:array(heads, "i64")
      mgpu.segsort(k2, h)
      check_result(k2, nil, WIDE, reversed_segments, MAX + 1, "segsort i64 heads")
      -- and the context goes on
      C.array_eq(mgpu.merge(ctx:array { 1, 3 }, ctx:array { 2 }), { 1, 2, 3 }, "i32", "after")
    end)

    -- sorted_search, segreduce, reduce_by_key and the joins take 64-bit
    -- counts on cuda, and their index arrays follow the rule (i64 here)

    -- hay: -5 .. 2^31 - 1, v at position v + 6; needles: -6 .. 2^31 - 2,
    -- one below hay's at each position, so every needle but the first
    -- ties a haystack key (needles, hay 8.6 GB each, positions 17.2 GB);
    -- then four needles alone (a binary search each)
    it("cuda, 2^31 + 5: sorted_search, i64 positions past 2^31", function()
      local hay <close> = ctx:iota(WIDE, -5, 1, "i32")
      local needles <close> = ctx:iota(WIDE, -6, 1, "i32") -- p - 7 at p
      local left = mgpu.sorted_search(needles, hay)
      assert.are.equal("i64", left.dtype)
      assert.is_true(left:is_sorted(), "left positions sorted")
      check_result(left, nil, WIDE, function(p) return p == 1 and 1 or p - 1 end, MAX + 1,
                   "sorted_search left")
      left:free()
      local right <close> = mgpu.sorted_search(needles, hay, { side = "right" })
      check_result(right, nil, WIDE, function(p) return p end, MAX + 1, "sorted_search right")
      right:free()
      needles:free()
      local few <close> = ctx:array({ -6, -5, MAX - 5, MAX }, "i32")
      C.array_eq(mgpu.sorted_search(few, hay), { 1, 1, MAX + 1, WIDE }, "i64", "few, left")
      C.array_eq(mgpu.sorted_search(few, hay, { side = "right" }), { 1, 2, MAX + 2, WIDE + 1 },
                 "i64", "few, right")
    end)

    -- ones (8.6 GB) in segments of 2^31 - 1, 2 and 4, then i32 values
    -- from INT32_MIN (8.6 GB) in segments of 2^20 + 1 (crossing tiles)
    -- whose minima and maxima are their ends
    it("cuda, 2^31 + 5: segreduce, i64 offsets past 2^31", function()
      local v <close> = ctx:fill(WIDE, 1, "i32")
      local offs <close> = ctx:array({ 1, MAX + 1, MAX + 3 }, "i64")
      C.array_eq(mgpu.segreduce(v, offs), { MAX, 2, WIDE - MAX - 2 }, "i32", "ones, i64 offsets")
      -- a Lua table: the binding prepares i64 offsets (the rule for #v + 1)
      C.array_eq(mgpu.segreduce(v, { 1, MAX + 1, MAX + 1, MAX + 3 }),
                 { MAX, 0, 2, WIDE - MAX - 2 }, "i32", "ones, an empty segment")
      v:free()
      local x <close> = ctx:iota(WIDE, I32_MIN, 1, "i32") -- from(p) at p
      local step = (1 << 20) + 1
      local k = (WIDE - 1) // step + 1
      local starts <close> = ctx:iota(k, 1, step, "i64")
      local lo <close> = mgpu.segreduce(x, starts, { op = "min" })
      local hi <close> = mgpu.segreduce(x, starts, { op = "max" })
      local want_lo, want_hi = {}, {}
      for i = 1, k do
        local s = 1 + (i - 1) * step
        local e = math.min(WIDE, s + step - 1)
        want_lo[i], want_hi[i] = from(s), from(e)
      end
      C.array_eq(lo, want_lo, "i32", "min over segments of 2^20 + 1")
      C.array_eq(hi, want_hi, "i32", "max over segments of 2^20 + 1")
    end)

    it("cuda, 2^31 + 5: reduce_by_key, a run across 2^31", function()
      reduce_by_key_across(true)
    end)

    -- every key its own run: 2^32 + 3 wrapped i32 keys (each differs from
    -- the one before), more runs than 32 bits count; keys, values and both
    -- results 17.2 GB each (68.7 GB)
    it("cuda, 2^32 + 3: reduce_by_key, 2^32 + 3 runs", function()
      local k <close> = ctx:iota(N32, I32_MIN, 1, "i32")
      local x <close> = ctx:iota(N32, 0, -1, "i32")
      local rk, rv = mgpu.reduce_by_key(k, x)
      windows_2_32(rk, N32, function(p) return wrap(I32_MIN + p - 1) end, TWO32,
                   "reduce_by_key keys 2^32 + 3")
      windows_2_32(rv, N32, function(p) return wrap(1 - p) end, TWO32,
                   "reduce_by_key values 2^32 + 3")
      rk:free()
      rv:free()
    end)

    -- b of 2^31 + 5 (8.6 GB) against a few keys: bounds past 2^31 by
    -- binary search, i64 rows; 2^31 + 4 matches of one key are too many rows
    it("cuda, 2^31 + 5: join, b past 2^31", function()
      local b <close> = ctx:fill(WIDE, 7, "i32")
      b[WIDE] = 9
      local ia, ib = mgpu.join(ctx:array({ 8, 9 }, "i32"), b, { kind = "left" })
      C.array_eq(ia, { 1, 2 }, "i64", "left join ia")
      C.array_eq(ib, { 0, WIDE }, "i64", "left join ib")
      C.raises(function() return mgpu.join(ctx:array({ 7 }, "i32"), b) end, "mgpu.join",
               "32%-bit index limit")
      b:free()
      local hay <close> = ctx:iota(WIDE, -5, 1, "i32") -- v at position v + 6
      ia, ib = mgpu.join(ctx:array({ -5, MAX - 5, MAX }, "i32"), hay)
      C.array_eq(ia, { 1, 2, 3 }, "i64", "inner join ia")
      C.array_eq(ib, { 1, MAX + 1, WIDE }, "i64", "inner join ib")
    end)

    -- a of 2^31 + 5 (8.6 GB) against a few keys: the searches merge, the
    -- bounds (34.4 GB), counts and scan (17.2 GB each) are 64-bit (77 GB)
    it("cuda, 2^31 + 5: join, a past 2^31", function()
      local a <close> = ctx:iota(WIDE, -5, 1, "i32") -- v at position v + 6
      local ia, ib = mgpu.join(a, ctx:array({ -5, MAX - 5, MAX }, "i32"))
      C.array_eq(ia, { 1, MAX + 1, WIDE }, "i64", "inner join ia")
      C.array_eq(ib, { 1, 2, 3 }, "i64", "inner join ib")
      -- an unmatched b row goes where its key falls among a's
      ia, ib = mgpu.join(a, ctx:array({ -6, MAX - 5 }, "i32"), { kind = "right" })
      C.array_eq(ia, { 0, MAX + 1 }, "i64", "right join ia")
      C.array_eq(ib, { 1, 2 }, "i64", "right join ib")
      C.raises(function() return mgpu.join(a, ctx:array({ 0 }, "i32"), { kind = "left" }) end,
               "mgpu.join", "32%-bit index limit")
    end)

    -- an i64 haystack of 0 .. 2^32 + 2 (34.4 GB) and 2^31 odd needles from
    -- 2^31 + 1 (17.2 GB; positions 17.2 GB): positions pass 2^32 from the
    -- middle on, and the last 2^30 - 1 needles are past the haystack
    it("cuda, 2^32 + 3: sorted_search, positions past 2^32", function()
      local hay <close> = ctx:iota(N32, 0, 1, "i64")
      local n = 1 << 31
      local needles <close> = ctx:iota(n, (1 << 31) + 1, 2, "i64") -- 2^31 + 2p - 1
      local function v(p) return (1 << 31) + 2 * p - 1 end
      local left = mgpu.sorted_search(needles, hay)
      assert.are.equal("i64", left.dtype)
      assert.is_true(left:is_sorted(), "left positions sorted")
      check_result(left, nil, n, function(p) return math.min(v(p), N32) + 1 end, HALF + 2,
                   "sorted_search left 2^32 + 3")
      left:free()
      local right <close> = mgpu.sorted_search(needles, hay, { side = "right" })
      check_result(right, nil, n, function(p) return math.min(v(p) + 1, N32) + 1 end, HALF + 2,
                   "sorted_search right 2^32 + 3")
      right:free()
      needles:free()
      local few <close> = ctx:array({ -1, 0, 1 << 31, TWO32, TWO32 + 2, TWO32 + 3 }, "i64")
      C.array_eq(mgpu.sorted_search(few, hay), { 1, 1, (1 << 31) + 1, TWO32 + 1, TWO32 + 3, N32 + 1 },
                 "i64", "few, left")
    end)

    -- ones (i64, 34.4 GB) in segments that end past 2^31, 2^32 and at
    -- the end, one of them empty
    it("cuda, 2^32 + 3: segreduce, offsets past 2^32", function()
      local v <close> = ctx:fill(N32, 1, "i64")
      local offs <close> = ctx:array({ 1, MAX + 1, TWO32 - 1, TWO32 + 2, TWO32 + 2, N32 }, "i64")
      C.array_eq(mgpu.segreduce(v, offs), { MAX, MAX, 3, 0, 1, 1 }, "i64", "ones past 2^32")
      -- two segments of more than 2^31 each
      C.array_eq(mgpu.segreduce(v, { 1, MAX + 3 }), { MAX + 2, N32 - MAX - 2 }, "i64",
                 "two long segments")
    end)
  end

  if not gpu then
    -- the evens and the odds from INT32_MIN: merged, or their union,
    -- they are INT32_MIN + p - 1 at position p, up to 4 at p = 2^31 + 5
    local na, nb = (WIDE + 1) // 2, WIDE // 2
    local function from_min(p) return I32_MIN + p - 1 end

    it("cpu, 2^31 + 5: merge, keys", function()
      local a <close> = ctx:iota(na, I32_MIN, 2, "i32")
      local b <close> = ctx:iota(nb, I32_MIN + 1, 2, "i32")
      local c <close> = mgpu.merge(a, b)
      check_result(c, nil, WIDE, from_min, MAX + 1, "merge keys")
    end)

    it("cpu, 2^31 + 5: set_union", function()
      local a <close> = ctx:iota(na, I32_MIN, 2, "i32")
      local b <close> = ctx:iota(nb, I32_MIN + 1, 2, "i32")
      local u <close> = mgpu.set_union(a, b)
      check_result(u, nil, WIDE, from_min, MAX + 1, "set_union")
    end)

    -- every key of 2^31 + 5 against the evens: a's position passes 2^31
    it("cpu, 2^31 + 5: set_intersection", function()
      local a <close> = ctx:iota(WIDE, I32_MIN, 1, "i32")
      local b <close> = ctx:iota(na, I32_MIN, 2, "i32")
      local i <close> = mgpu.set_intersection(a, b)
      check_result(i, nil, na, function(p) return I32_MIN + 2 * (p - 1) end,
                   nil, "set_intersection")
    end)

    -- INT32_MAX down to -5: sorted, p - 6 at position p
    local function down() return ctx:iota(WIDE, MAX, -1, "i32") end
    local function up(p) return p - 6 end

    it("cpu, 2^31 + 5: mergesort, keys in reverse order", function()
      local k <close> = down()
      mgpu.mergesort(k)
      check_result(k, nil, WIDE, up, MAX + 1, "mergesort")
    end)

    it("cpu, 2^31 + 5: sort (radix), keys in reverse order", function()
      local k <close> = down()
      mgpu.sort(k)
      check_result(k, nil, WIDE, up, MAX + 1, "sort")
    end)

    -- sorted but for the ends swapped and a pair at 2^31 swapped
    it("cpu, 2^31 + 5: locality_sort, nearly sorted keys", function()
      local k <close> = ctx:iota(WIDE, -5, 1, "i32")
      k[1], k[WIDE] = k[WIDE], k[1]
      k[MAX + 1], k[MAX + 2] = k[MAX + 2], k[MAX + 1]
      assert.are.equal(MAX, k[1])
      mgpu.locality_sort(k)
      check_result(k, nil, WIDE, up, MAX + 1, "locality_sort")
    end)

    -- the index dtype rule: index results past INT32_MAX are i64
    it("cpu, 2^31 + 5, i64 index: sorted_search", function()
      local hay <close> = ctx:iota(WIDE, -5, 1, "i32") -- v at position v + 6
      local needles <close> = ctx:array({ -6, -5, MAX - 5, MAX }, "i32")
      local left <close> = mgpu.sorted_search(needles, hay)
      assert.are.equal("i64", left.dtype)
      assert.are.same({ 1, 1, MAX + 1, WIDE }, left:totable())
      local right <close> = mgpu.sorted_search(needles, hay, { side = "right" })
      assert.are.same({ 1, 2, MAX + 2, WIDE + 1 }, right:totable())
    end)

    it("cpu, 2^31 + 5, i64 index: unique with counts, a run across 2^31", function()
      local k <close> = ctx:fill(WIDE, 7, "i32")
      k[1], k[WIDE] = 1, 9
      local u, c = mgpu.unique(k, { counts = true })
      assert.are.equal("i64", c.dtype)
      assert.are.same({ 1, 7, 9 }, u:totable())
      assert.are.same({ 1, WIDE - 2, 1 }, c:totable())
      u:free()
      c:free()
    end)

    it("cpu, 2^31 + 5, i64 index: segsort with heads past 2^31", function()
      local k <close> = ctx:iota(WIDE, MAX, -1, "i32") -- MAX - p + 1 at p
      local heads <close> = ctx:array({ 1, MAX + 2 }, "i64")
      mgpu.segsort(k, heads)
      -- segment 1: 0 .. MAX ascending; segment 2: -5 .. -1
      assert.are.same({ 0, 1, 2 }, k:totable(1, 3))
      assert.are.same({ MAX - 1, MAX, -5, -4 }, k:totable(MAX, MAX + 3))
      assert.are.equal(-1, k[WIDE])
    end)

    it("cpu, 2^31 + 5, i64 index: segreduce with offsets past 2^31", function()
      local v <close> = ctx:fill(WIDE, 1, "i32")
      local offs <close> = ctx:array({ 1, MAX + 1, MAX + 3 }, "i64")
      local r <close> = mgpu.segreduce(v, offs)
      assert.are.same({ MAX, 2, WIDE - MAX - 2 }, r:totable())
      local r2 <close> = mgpu.segreduce(v, { 1, MAX + 1, MAX + 3 })
      assert.are.same({ MAX, 2, WIDE - MAX - 2 }, r2:totable())
    end)

    bulk_interval_cases("cpu, 2^31 + 5, i64 index: ")

    -- the long side as b: the cpu join's temporaries follow #a
    it("cpu, 2^31 + 5, i64 index: join with b indices past 2^31", function()
      local b <close> = ctx:fill(WIDE, 7, "i32")
      b[WIDE] = 9
      local a <close> = ctx:array({ 8, 9 }, "i32")
      local ia, ib = mgpu.join(a, b, { kind = "left" })
      assert.are.equal("i64", ia.dtype)
      assert.are.equal("i64", ib.dtype)
      assert.are.same({ 1, 2 }, ia:totable())
      assert.are.same({ 0, WIDE }, ib:totable())
      ia:free()
      ib:free()
    end)

    it("cpu, 2^31 + 5: scan and reduce, i32 ones, the sum wrapping", function()
      scan_ones_wrapping(false)
    end)

    -- the data as its own flags: every element but the zero at 2^31 + 1
    -- is kept (data and out 8.6 GB each)
    it("cpu, 2^31 + 5: compact, all but the zero past 2^31", function()
      local data <close> = ctx:iota(WIDE, I32_MIN, 1, "i32") -- from(p) at p
      local out <close> = mgpu.compact(data, data)
      data:free()
      check_result(out, nil, WIDE - 1, function(q)
        return from(q < MAX + 2 and q or q + 1)
      end, MAX + 2, "compact past 2^31")
    end)

    -- a run of 2^31 + 3 sevens between a one and a nine (keys and values
    -- 8.6 GB each)
    it("cpu, 2^31 + 5: reduce_by_key, a run across 2^31", function()
      reduce_by_key_across(false)
    end)
  end
end)
