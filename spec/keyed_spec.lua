-- mgpu.reduce_by_key, mgpu.segreduce and mgpu.join against the Lua
-- reference (helpers/keyed.lua): every key and value dtype, every
-- reduction, NaN and -0.0 keys, empty inputs and empty segments, offsets
-- as tables and as arrays, every join kind under both comparators, empty
-- sides, no matches, all keys equal (the full cross product), results
-- past one tile, cuda against cpu on large inputs, and bad input.

local mgpu = require "mgpu"
local R = require "helpers.reference"
local C = require "helpers.check"
local K = require "helpers.keyed"
local backends = require "helpers.backends"

local W = C.word
local nan = R.nan

local DTYPES = { "i32", "u32", "i64", "u64", "f32", "f64" }
local OPS = { "add", "min", "max" }

-- Values whose float sums are exact in any order (quarters), so that a
-- parallel sum equals the sequential one; the dtype's mix otherwise.
local function values(rng, n, dt, op)
  if R.is_float(dt) and op == "add" then
    local t = {}
    for i = 1, n do t[i] = rng:int(-20, 20) / 4 end
    return t
  end
  return rng:values(n, dt)
end

-- n keys in runs of random length (1..maxrun) of the dtype's values; for
-- floats also NaN runs and -0.0 next to 0.0.
local function run_keys(rng, n, dt, maxrun)
  local t = {}
  while #t < n do
    local v = rng:value(dt)
    if R.is_float(dt) and rng:int(1, 8) == 1 then v = rng:pick { nan, -0.0, 0.0 } end
    for _ = 1, math.min(rng:int(1, maxrun), n - #t) do t[#t + 1] = v end
  end
  return t
end

-- m sorted 1-based offsets into n values: random gaps with some empty
-- segments (gap 0), starting at 1 or later.
local function offsets_for(rng, n, m)
  local t = {}
  for i = 1, m do t[i] = rng:int(1, n + 1) end
  table.sort(t)
  return t
end

-- Sorted keys with duplicates (comp order) drawn from a small range, so
-- that about half of them meet a partner.
local function join_keys(rng, n, dt, comp, lo, hi)
  local t = {}
  for i = 1, n do
    local v = rng:int(lo, hi)
    if R.is_float(dt) then
      v = v / 2
      if rng:int(1, 20) == 1 then v = nan end
    elseif dt == "u32" or dt == "u64" then
      v = v - lo
    end
    t[i] = v
  end
  local before = R.comparator(dt, comp)
  table.sort(t, before)
  return t
end

local function check_join(ctx, a, b, dt, kind, comp, label)
  local ia, ib = mgpu.join(ctx:array(a, dt), ctx:array(b, dt), { kind = kind, comp = comp })
  local wa, wb = K.join(a, b, dt, kind, comp)
  C.array_eq(ia, wa, "i32", label .. " ia")
  C.array_eq(ib, wb, "i32", label .. " ib")
end

backends.each(function(ctx, device)
  local rng = R.rng(58)

  describe("reduce_by_key", function()
    it("every key dtype, value dtype and reduction, runs across tiles", function()
      for _, kdt in ipairs(DTYPES) do
        for _, vdt in ipairs(DTYPES) do
          for _, op in ipairs(OPS) do
            for _, n in ipairs { 1, 2, 37, 3001 } do
              local keys = run_keys(rng, n, kdt, 9)
              local vals = values(rng, n, vdt, op)
              local k, r = mgpu.reduce_by_key(ctx:array(keys, kdt), ctx:array(vals, vdt), { op = op })
              local wk, wr = K.reduce_by_key(keys, kdt, vals, vdt, op)
              local label = string.format("%s/%s %s n=%d", kdt, vdt, op, n)
              C.array_eq(k, wk, kdt, label .. " keys")
              C.array_eq(r, wr, vdt, label .. " values")
            end
          end
        end
      end
    end)

    it("no keys, one run of all keys, every key its own run", function()
      local k, r = mgpu.reduce_by_key(ctx:zeros(0, "i64"), ctx:zeros(0, "f32"))
      C.array_eq(k, {}, "i64", "empty keys")
      C.array_eq(r, {}, "f32", "empty values")
      local n = 5000
      local ones, iota = {}, {}
      for i = 1, n do ones[i], iota[i] = 7, i end
      k, r = mgpu.reduce_by_key(ctx:array(ones), ctx:array(iota, "i64"))
      C.array_eq(k, { 7 }, "i32", "one run")
      C.array_eq(r, { n * (n + 1) // 2 }, "i64", "one run's sum")
      k, r = mgpu.reduce_by_key(ctx:array(iota), ctx:array(ones), { op = "max", comp = "greater" })
      C.array_eq(k, iota, "i32", "every key a run")
      C.array_eq(r, ones, "i32", "every key a run: values")
    end)

    it("NaN keys make one run; -0.0 and 0.0 one run, keeping the first", function()
      local keys = { nan, nan, 1.5, -0.0, 0.0, -0.0, nan }
      local k, r = mgpu.reduce_by_key(ctx:array(keys, "f64"), ctx:array { 1, 2, 3, 4, 5, 6, 7 })
      C.array_eq(k, { nan, 1.5, -0.0, nan }, "f64", "keys")
      C.array_eq(r, { 3, 3, 15, 7 }, "i32", "sums")
    end)

    -- The cuda tiles hold 2816 items (4-byte keys and values) or 1792
    -- (either 8 bytes): runs of those lengths and one either side start
    -- and end on, before and after the tile edges; runs of -0.0/0.0 and of
    -- NaNs of both signs cross them too.
    it("runs meeting tile edges, one run over many tiles, NaN and zero runs across tiles",
      function()
        local PAIRS = { { "i32", "i32" }, { "u32", "f32" }, { "f32", "i64" }, { "i64", "u32" },
          { "f64", "f64" }, { "u64", "i32" } }
        local function check(keys, kdt, vdt, op, label)
          local vals = values(rng, #keys, vdt, op)
          local k, r = mgpu.reduce_by_key(ctx:array(keys, kdt), ctx:array(vals, vdt), { op = op })
          local wk, wr = K.reduce_by_key(keys, kdt, vals, vdt, op)
          C.array_eq(k, wk, kdt, label .. " keys")
          C.array_eq(r, wr, vdt, label .. " values")
        end
        for _, p in ipairs(PAIRS) do
          local kdt, vdt = p[1], p[2]
          local float = R.is_float(kdt)
          for _, op in ipairs(OPS) do
            for _, len in ipairs { 1791, 1792, 1793, 2815, 2816, 2817 } do
              local label = string.format("%s/%s %s len=%d", kdt, vdt, op, len)
              -- three runs of len, then one key
              local keys = {}
              for r = 1, 3 do
                for i = 1, len do
                  local v = r
                  if float and r == 1 then v = (i % 2 == 1) and -0.0 or 0.0 end
                  if float and r == 2 then v = (i % 3 == 0) and -nan or nan end
                  keys[#keys + 1] = v
                end
              end
              keys[#keys + 1] = 9
              check(keys, kdt, vdt, op, label .. " runs")
              -- n = len: all keys equal, and every key its own run
              local same, distinct = {}, {}
              for i = 1, len do same[i], distinct[i] = 5, i end
              check(same, kdt, vdt, op, label .. " all equal")
              check(distinct, kdt, vdt, op, label .. " all distinct")
            end
            -- one run over ~11 tiles between short runs
            local keys = { 1, 2 }
            for _ = 1, 20000 do keys[#keys + 1] = 3 end
            for i = 4, 12 do keys[#keys + 1] = i end
            check(keys, kdt, vdt, op, string.format("%s/%s %s long run", kdt, vdt, op))
            -- random short runs over several tiles
            check(run_keys(rng, 9000, kdt, 9), kdt, vdt, op,
              string.format("%s/%s %s random runs", kdt, vdt, op))
          end
        end
      end)

    it("integer add wraps in the value dtype", function()
      local k, r = mgpu.reduce_by_key(ctx:array { 1, 1 }, ctx:array({ R.I32_MAX, 1 }, "i32"))
      C.array_eq(k, { 1 }, "i32")
      C.array_eq(r, { R.I32_MIN }, "i32", "wrapped sum")
    end)
  end)

  describe("segreduce", function()
    it("every dtype and reduction, random segments with empty ones", function()
      for _, dt in ipairs(DTYPES) do
        for _, op in ipairs(OPS) do
          for _, n in ipairs { 0, 1, 50, 4099 } do
            for _, m in ipairs { 1, 3, math.max(1, n // 8) } do
              local vals = values(rng, n, dt, op)
              local off = offsets_for(rng, n, m)
              local label = string.format("%s %s n=%d m=%d", dt, op, n, m)
              local r = mgpu.segreduce(ctx:array(vals, dt), off, { op = op })
              C.array_eq(r, K.segreduce(vals, off, dt, op), dt, label)
              local r2 = mgpu.segreduce(ctx:array(vals, dt), ctx:array(off, "i64"), { op = op })
              C.array_eq(r2, K.segreduce(vals, off, dt, op), dt, label .. " (i64 offsets)")
            end
          end
        end
      end
    end)

    it("empty segments take the identity, default or given", function()
      local v = ctx:array { 5, 1, 9 }
      C.array_eq(mgpu.segreduce(v, { 1, 1, 4, 4 }), { 0, 15, 0, 0 }, "i32", "add")
      C.array_eq(mgpu.segreduce(v, { 1, 1, 4 }, { op = "min" }), { R.I32_MAX, 1, R.I32_MAX },
        "i32", "min")
      C.array_eq(mgpu.segreduce(v, { 2, 2 }, { op = "max" }), { R.I32_MIN, 9 }, "i32", "max")
      C.array_eq(mgpu.segreduce(v, { 1, 4 }, { op = "min", identity = -3 }), { 1, -3 }, "i32",
        "given identity")
      local f = ctx:array({ 2.5, nan }, "f32")
      C.array_eq(mgpu.segreduce(f, { 1, 1, 3 }, { op = "min" }), { nan, 2.5, nan }, "f32",
        "f32 min: NaN is the largest")
      C.array_eq(mgpu.segreduce(f, { 3 }, { op = "max" }), { -math.huge }, "f32", "f32 max")
      C.array_eq(mgpu.segreduce(ctx:zeros(0, "u64"), {}), {}, "u64", "no segments")
      C.array_eq(mgpu.segreduce(ctx:zeros(0, "u64"), { 1, 1 }), { 0, 0 }, "u64",
        "no values, two segments")
    end)

    it("values before the first offset belong to no segment", function()
      local r = mgpu.segreduce(ctx:array { 100, 200, 1, 2, 3 }, { 3, 5 })
      C.array_eq(r, { 3, 3 }, "i32")
    end)

    it("long segments across many tiles", function()
      local n = 30000
      local vals = values(rng, n, "i64", "add")
      local off = { 1, 2, 2, 17000, 29999 }
      C.array_eq(mgpu.segreduce(ctx:array(vals, "i64"), off), K.segreduce(vals, off, "i64", "add"),
        "i64")
      C.array_eq(mgpu.segreduce(ctx:array(vals, "i64"), off, { op = "max" }),
        K.segreduce(vals, off, "i64", "max"), "i64")
    end)
  end)

  describe("join", function()
    -- the index dtype rule: below 2^31 - 1 elements every index result is
    -- i32 (huge_spec checks i64 past it on cpu); index arguments of every
    -- integer dtype give the same results as a table
    it("index dtype rule: i32 results; offsets of every integer dtype", function()
      local a, b = ctx:array { 1, 2, 2, 5 }, ctx:array { 2, 3, 5, 5 }
      local ia, ib = mgpu.join(a, b, { kind = "outer" })
      assert.are.equal("i32", ia.dtype)
      assert.are.equal("i32", ib.dtype)
      assert.are.equal("i32", mgpu.sorted_search(a, b).dtype)
      local _, c = mgpu.unique(a, { counts = true })
      assert.are.equal("i32", c.dtype)
      assert.are.same({ 1, 2, 1 }, c:totable())
      local v = ctx:array { 4, 1, 7, 2, 9, 3 }
      local want = mgpu.segreduce(v, { 1, 3, 3, 6 }, { op = "max" }):totable()
      assert.are.same({ 4, -2147483648, 9, 3 }, want)
      for _, dt in ipairs { "i32", "u32", "i64", "u64" } do
        local r = mgpu.segreduce(v, ctx:array({ 1, 3, 3, 6 }, dt), { op = "max" })
        assert.are.same(want, r:totable(), dt)
      end
    end)

    it("every kind, dtype and comparator, about half the keys matching", function()
      for _, dt in ipairs(DTYPES) do
        for _, comp in ipairs { "less", "greater" } do
          for _, kind in ipairs { "inner", "left", "right", "outer" } do
            for _, sz in ipairs { { 1, 1 }, { 7, 3 }, { 60, 90 }, { 400, 300 } } do
              local a = join_keys(rng, sz[1], dt, comp, 0, sz[1] // 2 + 2)
              local b = join_keys(rng, sz[2], dt, comp, sz[1] // 4, sz[1] // 4 + sz[2] // 2 + 2)
              check_join(ctx, a, b, dt, kind, comp,
                string.format("%s %s %s %dx%d", dt, comp, kind, sz[1], sz[2]))
            end
          end
        end
      end
    end)

    it("empty sides and no matches", function()
      for _, kind in ipairs { "inner", "left", "right", "outer" } do
        check_join(ctx, {}, {}, "i32", kind, nil, kind .. " both empty")
        check_join(ctx, { 1, 2, 2 }, {}, "i32", kind, nil, kind .. " b empty")
        check_join(ctx, {}, { 1, 1, 3 }, "i32", kind, nil, kind .. " a empty")
        check_join(ctx, { 1, 3, 5, 5 }, { 0, 2, 4, 6, 6 }, "i32", kind, nil, kind .. " no match")
        check_join(ctx, { 5, 6 }, { 1, 2 }, "i32", kind, nil, kind .. " b all before a")
      end
    end)

    it("all keys equal: the full cross product, past one tile", function()
      local a, b = {}, {}
      for i = 1, 70 do a[i] = 4 end
      for j = 1, 90 do b[j] = 4 end
      for _, kind in ipairs { "inner", "outer" } do
        local ia, ib = mgpu.join(ctx:array(a), ctx:array(b), { kind = kind })
        assert.are.equal(6300, #ia)
        local wa, wb = K.join(a, b, "i32", kind)
        C.array_eq(ia, wa, "i32", kind .. " ia")
        C.array_eq(ib, wb, "i32", kind .. " ib")
      end
    end)

    it("the results are the caller's arrays, counted and freed as any", function()
      collectgarbage()
      collectgarbage()
      local live = mgpu.memory().live
      local ia, ib = mgpu.join(ctx:array { 1, 2 }, ctx:array { 3 })
      assert.are.equal(0, #ia)
      assert.are.equal(0, #ib)
      assert.are.same({}, ia:totable())
      local ja, jb = mgpu.join(ctx:fill(30, 2), ctx:fill(40, 2))
      assert.are.equal(1200, #ja)
      assert.is_true(mgpu.memory().live >= live + 2 * 1200 * 4)
      C.array_eq(jb:slice(1199, 1200), { 39, 40 }, "i32", "last rows")
      ja:free()
      ib, ja, jb = nil, nil, nil
      collectgarbage()
      collectgarbage()
      assert.are.equal(live, mgpu.memory().live)
    end)

    it("a result that does not fit takes nothing", function()
      -- 10000 rows: 40 KB a side; the first fits, the second not
      local c = mgpu.context { device = device, memory_limit = 64 * 1024 }
      local a = c:fill(100, 7)
      collectgarbage()
      local in_use, live = c:info().in_use, mgpu.memory().live
      C.raises(function() return mgpu.join(a, a) end, "mgpu.join", "out of memory")
      assert.are.equal(in_use, c:info().in_use)
      assert.are.equal(live, mgpu.memory().live)
      local ia = mgpu.join(a, c:fill(5, 7))
      assert.are.equal(500, #ia)
      c:close()
    end)

    it("NaN keys are one key; -0.0 meets 0.0", function()
      check_join(ctx, { -0.0, 1, nan, nan }, { 0.0, nan, nan, nan }, "f64", "inner", nil, "f64")
      check_join(ctx, { nan, nan }, { 2, nan }, "f32", "outer", nil, "f32 outer")
      check_join(ctx, { nan, 3, 1 }, { nan, 2 }, "f32", "outer", "greater", "f32 greater")
    end)

    it("unsorted inputs give in-range rows", function()
      local ia, ib = mgpu.join(ctx:array { 5, 1, 9, 1, 3 }, ctx:array { 9, 1, 5, 0 }, { kind = "outer" })
      assert.are.equal(#ia, #ib)
      for r, i in ipairs(ia:totable()) do
        local j = ib:totable()[r]
        assert.is_true(i >= 0 and i <= 5 and j >= 0 and j <= 4 and (i > 0 or j > 0))
      end
    end)
  end)

  describe("bad input", function()
    local function context_works()
      local k, r = mgpu.reduce_by_key(ctx:array { 1, 1, 2 }, ctx:array { 1, 2, 3 })
      C.array_eq(k, { 1, 2 }, "i32", "reduce_by_key after the error")
      C.array_eq(r, { 3, 3 }, "i32", "reduce_by_key after the error")
      C.array_eq(mgpu.segreduce(ctx:array { 1, 2, 3 }, { 1, 2 }), { 1, 5 }, "i32",
        "segreduce after the error")
      local ia, ib = mgpu.join(ctx:array { 1, 2 }, ctx:array { 2 })
      C.array_eq(ia, { 2 }, "i32", "join after the error")
      C.array_eq(ib, { 1 }, "i32", "join after the error")
    end
    local h = C.bad_input_harness(context_works)
    local guard, E = h.guard, h.E
    before_each(h.reset)

    it("reduce_by_key: arguments, lengths, contexts, options", function()
      local k, v = ctx:array { 1, 1, 2 }, ctx:array { 4, 5, 6 }
      local v2 = ctx:array { 1, 2 }
      guard { { k, { 1, 1, 2 } }, { v, { 4, 5, 6 } }, { v2, { 1, 2 } } }
      E(function() return mgpu.reduce_by_key() end, "mgpu.reduce_by_key", W("keys"))
      E(function() return mgpu.reduce_by_key({ 1 }, v) end, "mgpu.reduce_by_key", W("keys"), "table")
      E(function() return mgpu.reduce_by_key(k) end, "mgpu.reduce_by_key", W("values"))
      E(function() return mgpu.reduce_by_key(k, v2) end, "mgpu.reduce_by_key", W("values"), "2", "3")
      E(function() return mgpu.reduce_by_key(k, v, 5) end, "mgpu.reduce_by_key", "option")
      E(function() return mgpu.reduce_by_key(k, v, { x = 1 }) end, "mgpu.reduce_by_key", "'x'")
      E(function() return mgpu.reduce_by_key(k, v, { op = "mul" }) end, "mgpu.reduce_by_key",
        W("op"), "mul")
      E(function() return mgpu.reduce_by_key(k, v, { comp = "up" }) end, "mgpu.reduce_by_key",
        W("comp"), "up")
      if device ~= "cpu" then
        local other = mgpu.context { device = "cpu" }:array { 1, 2, 3 }
        E(function() return mgpu.reduce_by_key(k, other) end, "mgpu.reduce_by_key", "context")
      end
    end)

    it("segreduce: offsets out of range, decreasing, not integers; options", function()
      local v = ctx:array { 1, 2, 3 }
      local fo = ctx:array({ 1, 2 }, "f32")
      guard { { v, { 1, 2, 3 } }, { fo, { 1, 2 } } }
      E(function() return mgpu.segreduce(v, { 0, 2 }) end, "mgpu.segreduce", W("offsets"),
        "1%.%.4", h.at(0, 1))
      E(function() return mgpu.segreduce(v, { 1, 5 }) end, "mgpu.segreduce", W("offsets"),
        "1%.%.4", h.at(5, 2))
      E(function() return mgpu.segreduce(v, { 3, 2 }) end, "mgpu.segreduce", W("offsets"),
        "non%-decreasing", h.at(2, 2))
      E(function() return mgpu.segreduce(v, ctx:array({ 1, 4, 2 }, "i64")) end, "mgpu.segreduce",
        W("offsets"), "non%-decreasing", h.at(2, 3))
      -- an i64 offset past int32 is refused, not wrapped (2^32 + 2 to 2)
      E(function() return mgpu.segreduce(v, ctx:array({ 1, (1 << 32) + 2 }, "i64")) end,
        "mgpu.segreduce", W("offsets"), "1%.%.4", h.at(4294967298, 2))
      E(function() return mgpu.segreduce(v, ctx:array({ 1, 2 }, "f64")) end, "mgpu.segreduce",
        W("offsets"), "integer dtype %(got f64%)")
      E(function() return mgpu.segreduce(v, { 1, 1.5 }) end, "mgpu.segreduce", W("offsets"),
        "integer")
      E(function() return mgpu.segreduce(v, fo) end, "mgpu.segreduce", W("offsets"), "integer dtype")
      E(function() return mgpu.segreduce(v, 1) end, "mgpu.segreduce", W("offsets"), "number")
      E(function() return mgpu.segreduce(v) end, "mgpu.segreduce", W("offsets"))
      E(function() return mgpu.segreduce({ 1 }, { 1 }) end, "mgpu.segreduce", W("values"))
      E(function() return mgpu.segreduce(v, { 1 }, { op = "avg" }) end, "mgpu.segreduce", W("op"))
      E(function() return mgpu.segreduce(v, { 1 }, { identity = "x" }) end, "mgpu.segreduce",
        W("identity"))
      E(function() return mgpu.segreduce(v, { 1 }, { identity = 2 ^ 40 }) end, "mgpu.segreduce",
        W("identity"))
    end)

    it("join: dtypes, contexts, kind, comp, a result past 2^31 - 1 rows", function()
      local a, b = ctx:array { 1, 2 }, ctx:array { 2, 3 }
      local f = ctx:array({ 2, 3 }, "f64")
      guard { { a, { 1, 2 } }, { b, { 2, 3 } }, { f, { 2, 3 } } }
      E(function() return mgpu.join(a) end, "mgpu.join", W("b"))
      E(function() return mgpu.join(nil, b) end, "mgpu.join", W("a"))
      E(function() return mgpu.join(a, f) end, "mgpu.join", "dtype", "f64", "i32")
      E(function() return mgpu.join(a, b, { kind = "cross" }) end, "mgpu.join", W("kind"), "cross")
      E(function() return mgpu.join(a, b, { kind = 1 }) end, "mgpu.join", W("kind"))
      E(function() return mgpu.join(a, b, { comp = "more" }) end, "mgpu.join", W("comp"))
      E(function() return mgpu.join(a, b, { side = "left" }) end, "mgpu.join", "'side'")
      local big = ctx:fill(50000, 3)
      E(function() return mgpu.join(big, big) end, "mgpu.join", "2500000000 rows",
        "limit of 2147483647")
      E(function() return mgpu.join(big, big, { kind = "outer" }) end, "mgpu.join",
        "2500000000 rows")
      if device ~= "cpu" then
        local other = mgpu.context { device = "cpu" }:array { 1, 2 }
        E(function() return mgpu.join(a, other) end, "mgpu.join", "context")
      end
    end)
  end)
end)

backends.cuda_vs_cpu(function(gpu, cpu)
  local rng = R.rng(5858)
  it("large inputs: cuda equals cpu", function()
    local n = 300000
    local keys = run_keys(rng, n, "i32", 15)
    local vals = values(rng, n, "f32", "add")
    local k1, r1 = mgpu.reduce_by_key(gpu:array(keys), gpu:array(vals, "f32"))
    local k2, r2 = mgpu.reduce_by_key(cpu:array(keys), cpu:array(vals, "f32"))
    C.array_eq(k1, k2:totable(), "i32", "reduce_by_key keys")
    C.array_eq(r1, r2:totable(), "f32", "reduce_by_key values")
    local iv = values(rng, n, "i64", "min")
    local off = offsets_for(rng, n, 5000)
    for _, op in ipairs(OPS) do
      C.array_eq(mgpu.segreduce(gpu:array(iv, "i64"), off, { op = op }),
        mgpu.segreduce(cpu:array(iv, "i64"), off, { op = op }):totable(), "i64", "segreduce " .. op)
    end
    local a = join_keys(rng, 20000, "i32", "less", 0, 12000)
    local b = join_keys(rng, 30000, "i32", "less", 5000, 20000)
    for _, kind in ipairs { "inner", "left", "right", "outer" } do
      local ga, gb = mgpu.join(gpu:array(a), gpu:array(b), { kind = kind })
      local ca, cb = mgpu.join(cpu:array(a), cpu:array(b), { kind = kind })
      C.array_eq(ga, ca:totable(), "i32", "join " .. kind .. " ia")
      C.array_eq(gb, cb:totable(), "i32", "join " .. kind .. " ib")
    end
  end)
end)
