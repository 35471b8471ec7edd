-- Bad input: every mistake raises a Lua error whose message starts with the
-- function's name and names the argument, and afterwards every array and the
-- context remain usable.

local mgpu = require "mgpu"
local R = require "helpers.reference"
local C = require "helpers.check"
local backends = require "helpers.backends"

local W = C.word
-- A freed array passed to a function: the contract has both "any later use
-- raises mgpu.array: array has been freed" and "messages name the argument";
-- accept either form.
local FREED = { "array has been freed", "has been freed" }
local nan, inf = R.nan, R.inf

backends.each(function(ctx, device)
  -- The context still works: a merge with values and a sort succeed.
  local function context_works()
    local c, cv = mgpu.merge(ctx:array { 1, 3, 5 }, ctx:array { 2, 3 },
      { values = { ctx:array { 1, 2, 3 }, ctx:array { 4, 5 } } })
    C.array_eq(c, { 1, 2, 3, 3, 5 }, "i32", "merge after the error")
    C.array_eq(cv, { 1, 4, 2, 5, 3 }, "i32", "merge after the error")
    local k = ctx:random(5000, 0, 100, "i32", 1)
    mgpu.mergesort(k)
    assert.is_true(k:is_sorted(), "sort after the error")
  end

  -- Each {array, table} pair still holds the table's data.
  local function intact(list)
    for i, p in ipairs(list) do
      C.array_eq(p[1], p[2], p[1].dtype, "argument " .. i .. " after the error")
    end
  end

  -- The arrays that must survive every error of the running test, as
  -- {array, expected table} pairs; set by guard{...}, reset before each test.
  local keep = {}
  local function guard(list) keep = list end
  before_each(function() keep = {} end)

  -- Expects fn to raise (see C.raises); then every guarded array still
  -- holds its data and the context still works.
  local function E(fn, fname, ...)
    local msg = C.raises_at(1, fn, fname, ...)
    intact(keep)
    context_works()
    return msg
  end

  local A = { 1, 3, 5, 7 }
  local B = { 2, 4, 6 }

  describe("mgpu.merge", function()
    it("rejects keys of different dtypes", function()
      local a, b = ctx:array(A), ctx:array(B, "f64")
      local u = ctx:array(B, "u32")
      guard { { a, A }, { b, R.astype(B, "i32", "f64") }, { u, B } }
      E(function() return mgpu.merge(a, b) end, "mgpu.merge", W("b"), "f64")
      E(function() return mgpu.merge(b, a) end, "mgpu.merge", W("b"), "i32")
      E(function() return mgpu.merge(a, u) end, "mgpu.merge", W("b"), "u32")
      intact { { a, A }, { b, R.astype(B, "i32", "f64") }, { u, B } }
      context_works()
    end)

    it("rejects arguments that are not arrays", function()
      local a, b = ctx:array(A), ctx:array(B)
      guard { { a, A }, { b, B } }
      E(function() return mgpu.merge(a, { 2, 4, 6 }) end, "mgpu.merge", W("b"), "table")
      E(function() return mgpu.merge(a, "246") end, "mgpu.merge", W("b"), "string")
      E(function() return mgpu.merge(a, nil) end, "mgpu.merge", W("b"), "nil")
      E(function() return mgpu.merge(a) end, "mgpu.merge", W("b"), { "nil", "no value" })
      E(function() return mgpu.merge(42, b) end, "mgpu.merge", W("a"), "number")
      E(function() return mgpu.merge(nil, b) end, "mgpu.merge", W("a"), "nil")
      E(function() return mgpu.merge(ctx, b) end, "mgpu.merge", W("a"))
      intact { { a, A }, { b, B } }
      context_works()
    end)

    it("rejects freed arrays", function()
      local a, b = ctx:array(A), ctx:array(B)
      guard { { a, A }, { b, B } }
      local f = ctx:array(B)
      f:free()
      E(function() return mgpu.merge(a, f) end, "mgpu", FREED)
      E(function() return mgpu.merge(f, b) end, "mgpu", FREED)
      local fv = ctx:iota(3)
      fv:free()
      E(function() return mgpu.merge(a, b, { values = { ctx:iota(4), fv } }) end,
        "mgpu", FREED)
      local fo = ctx:empty(7)
      fo:free()
      E(function() return mgpu.merge(a, b, { out = fo }) end, "mgpu", FREED)
      intact { { a, A }, { b, B } }
      context_works()
    end)

    it("rejects an unknown comparator", function()
      local a, b = ctx:array(A), ctx:array(B)
      guard { { a, A }, { b, B } }
      E(function() return mgpu.merge(a, b, { comp = "up" }) end, "mgpu.merge", W("comp"), "up")
      E(function() return mgpu.merge(a, b, { comp = "LESS" }) end, "mgpu.merge", W("comp"))
      E(function() return mgpu.merge(a, b, { comp = 1 }) end, "mgpu.merge", W("comp"))
      intact { { a, A }, { b, B } }
      context_works()
    end)

    it("rejects unknown option names and options that are not a table", function()
      local a, b = ctx:array(A), ctx:array(B)
      local av, bv = ctx:iota(4), ctx:iota(3)
      guard { { a, A }, { b, B }, { av, R.iota(4) }, { bv, R.iota(3) } }
      E(function() return mgpu.merge(a, b, { valeus = { av, bv } }) end, "mgpu.merge", "valeus")
      E(function() return mgpu.merge(a, b, { values = { av, bv }, out_value = ctx:empty(7) }) end,
        "mgpu.merge", "out_value")
      E(function() return mgpu.merge(a, b, { stable = true }) end, "mgpu.merge", "stable")
      E(function() return mgpu.merge(a, b, "less") end, "mgpu.merge")
      intact { { a, A }, { b, B }, { av, R.iota(4) }, { bv, R.iota(3) } }
      context_works()
    end)

    it("rejects values of the wrong length, dtype or shape", function()
      local a, b = ctx:array(A), ctx:array(B)
      local av, bv = ctx:iota(4), ctx:iota(3)
      guard { { a, A }, { b, B }, { av, R.iota(4) }, { bv, R.iota(3) } }
      local short, long = ctx:iota(3), ctx:iota(4)
      local V = { "values", W("av"), W("bv") }
      E(function() return mgpu.merge(a, b, { values = { short, bv } }) end, "mgpu.merge", V)
      E(function() return mgpu.merge(a, b, { values = { av, long } }) end, "mgpu.merge", V)
      E(function() return mgpu.merge(a, b, { values = { av } }) end, "mgpu.merge", V)
      E(function() return mgpu.merge(a, b, { values = av }) end, "mgpu.merge", V)
      E(function() return mgpu.merge(a, b, { values = { av, { 1, 2, 3 } } }) end, "mgpu.merge", V)
      E(function() return mgpu.merge(a, b, { values = { av, bv:astype("f64") } }) end,
        "mgpu.merge", V)
      intact { { a, A }, { b, B }, { av, R.iota(4) }, { bv, R.iota(3) } }
      context_works()
    end)

    it("rejects out= and out_values= of the wrong length or dtype", function()
      local a, b = ctx:array(A), ctx:array(B)
      local av, bv = ctx:iota(4, "f32"), ctx:iota(3, "f32")
      guard { { a, A }, { b, B }, { av, R.iota(4, 1.0) }, { bv, R.iota(3, 1.0) } }
      local O = W("out")
      E(function() return mgpu.merge(a, b, { out = ctx:empty(6) }) end, "mgpu.merge", O)
      E(function() return mgpu.merge(a, b, { out = ctx:empty(8) }) end, "mgpu.merge", O)
      E(function() return mgpu.merge(a, b, { out = ctx:empty(7, "u32") }) end, "mgpu.merge", O)
      E(function() return mgpu.merge(a, b, { out = { 0, 0, 0, 0, 0, 0, 0 } }) end, "mgpu.merge", O)
      local OV = W("out_values")
      E(function() return mgpu.merge(a, b, { values = { av, bv }, out_values = ctx:empty(6, "f32") }) end,
        "mgpu.merge", OV)
      E(function() return mgpu.merge(a, b, { values = { av, bv }, out_values = ctx:empty(7, "i32") }) end,
        "mgpu.merge", OV)
      intact { { a, A }, { b, B }, { av, R.iota(4, 1.0) }, { bv, R.iota(3, 1.0) } }
      context_works()
    end)

    it("rejects out= and out_values= overlapping an input", function()
      local big = ctx:iota(30)
      local a = big:slice(1, 10)          -- 1..10, sorted
      local b = ctx:iota(10, 5)
      local out = big:slice(5, 24)        -- overlaps a
      local vbig = ctx:iota(40, 100)
      local av, bv = vbig:slice(1, 10), vbig:slice(11, 20)
      guard { { big, R.iota(30) }, { b, R.iota(10, 5) }, { vbig, R.iota(40, 100) } }
      E(function() return mgpu.merge(a, b, { out = out }) end, "mgpu.merge", W("out"))
      E(function() return mgpu.merge(big:slice(11, 20), big:slice(21, 30), { out = big:slice(1, 20) }) end,
        "mgpu.merge", W("out"))
      E(function()
        return mgpu.merge(a, b, { values = { av, bv }, out_values = vbig:slice(15, 34) })
      end, "mgpu.merge", W("out_values"))
      E(function()
        return mgpu.merge(a, b, { values = { av, bv }, out_values = big:slice(1, 20) })
      end, "mgpu.merge", W("out_values"))
      E(function()
        return mgpu.merge(a, b, { values = { av, bv }, out = vbig:slice(5, 24) })
      end, "mgpu.merge", W("out"))
      intact { { big, R.iota(30) }, { b, R.iota(10, 5) }, { vbig, R.iota(40, 100) } }
      -- disjoint slices of one parent are fine
      local c = mgpu.merge(a, b, { out = vbig:slice(21, 40) })
      C.array_eq(c, (R.merge(R.iota(10), R.iota(10, 5), "i32", "less")), "i32")
      context_works()
    end)

    it("rejects arrays from two different contexts", function()
      local other = mgpu.context { device = device }
      local a, b = ctx:array(A), ctx:array(B)
      local ob = other:array(B)
      guard { { a, A }, { b, B }, { ob, B } }
      E(function() return mgpu.merge(a, ob) end, "mgpu.merge", { W("b"), "context" })
      E(function() return mgpu.merge(a, b, { values = { ctx:iota(4), other:iota(3) } }) end, "mgpu.merge")
      E(function() return mgpu.merge(a, b, { out = other:empty(7) }) end, "mgpu.merge")
      if backends.has_cuda() then
        local x = (device == "cuda") and mgpu.context { device = "cpu" } or mgpu.context { device = "cuda" }
        E(function() return mgpu.merge(a, x:array(B)) end, "mgpu.merge")
      end
      intact { { a, A }, { b, B }, { ob, B } }
      local c = mgpu.merge(other:array(A), ob)
      C.array_eq(c, { 1, 2, 3, 4, 5, 6, 7 }, "i32")
      context_works()
    end)
  end)

  describe("mgpu.mergesort", function()
    it("rejects keys that are not arrays and freed arrays", function()
      E(function() return mgpu.mergesort({ 3, 1, 2 }) end, "mgpu.mergesort", W("keys"), "table")
      E(function() return mgpu.mergesort("312") end, "mgpu.mergesort", W("keys"), "string")
      E(function() return mgpu.mergesort() end, "mgpu.mergesort", W("keys"), { "nil", "no value" })
      local k = ctx:array { 3, 1, 2 }
      k:free()
      local k2 = ctx:array { 3, 1, 2 }
      guard { { k2, { 3, 1, 2 } } }
      E(function() return mgpu.mergesort(k) end, "mgpu", FREED)
      local fv = ctx:iota(3)
      fv:free()
      E(function() return mgpu.mergesort(k2, { values = fv }) end, "mgpu", FREED)
      intact { { k2, { 3, 1, 2 } } }
      context_works()
    end)

    it("rejects an unknown comparator or option", function()
      local k = ctx:array { 3, 1, 2 }
      local v = ctx:iota(3)
      guard { { k, { 3, 1, 2 } }, { v, { 1, 2, 3 } } }
      E(function() return mgpu.mergesort(k, { comp = "desc" }) end, "mgpu.mergesort", W("comp"), "desc")
      E(function() return mgpu.mergesort(k, { value = v }) end, "mgpu.mergesort", "value")
      E(function() return mgpu.mergesort(k, "greater") end, "mgpu.mergesort")
      intact { { k, { 3, 1, 2 } }, { v, { 1, 2, 3 } } }
      context_works()
    end)

    it("rejects values of the wrong length or type", function()
      local k = ctx:array { 3, 1, 2 }
      guard { { k, { 3, 1, 2 } } }
      local V = W("values")
      E(function() return mgpu.mergesort(k, { values = ctx:iota(2) }) end, "mgpu.mergesort", V)
      E(function() return mgpu.mergesort(k, { values = ctx:iota(4) }) end, "mgpu.mergesort", V)
      E(function() return mgpu.mergesort(k, { values = { 1, 2, 3 } }) end, "mgpu.mergesort", V)
      intact { { k, { 3, 1, 2 } } }
      context_works()
    end)

    it("rejects values overlapping the keys", function()
      local arr = ctx:array { 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11 }
      local orig = arr:totable()
      guard { { arr, orig } }
      local keys = arr:slice(1, 10)
      local V = W("values")
      E(function() return mgpu.mergesort(keys, { values = arr:slice(6, 15) }) end, "mgpu.mergesort", V)
      E(function() return mgpu.mergesort(keys, { values = keys }) end, "mgpu.mergesort", V)
      E(function() return mgpu.mergesort(keys, { values = arr:slice(1, 10) }) end, "mgpu.mergesort", V)
      E(function() return mgpu.mergesort(arr:slice(5, 14), { values = arr:slice(1, 10) }) end,
        "mgpu.mergesort", V)
      intact { { arr, orig } }
      -- disjoint slices of one parent are fine
      mgpu.mergesort(keys, { values = arr:slice(11, 20) })
      C.array_eq(arr, { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 }, "i32")
      context_works()
    end)

    it("rejects keys and values from two different contexts", function()
      local other = mgpu.context { device = device }
      local k = ctx:array { 3, 1, 2 }
      local v = other:iota(3)
      guard { { k, { 3, 1, 2 } }, { v, { 1, 2, 3 } } }
      E(function() return mgpu.mergesort(k, { values = v }) end, "mgpu.mergesort")
      intact { { k, { 3, 1, 2 } }, { v, { 1, 2, 3 } } }
      context_works()
    end)
  end)

  describe("arrays", function()
    it("a[i] and a[i] = v out of range", function()
      local a = ctx:iota(100)
      guard { { a, R.iota(100) } }
      assert.is_nil(a[101])
      E(function() a[101] = 1 end, "mgpu.array", "index", W("101"))
      E(function() return a[0] end, "mgpu.array", "index")
      E(function() a[-1] = 1 end, "mgpu.array", "index")
      E(function() return a[1.5] end, "mgpu.array", "index")
      intact { { a, R.iota(100) } }
      context_works()
    end)

    it("a[i] = v with a value that does not fit the dtype", function()
      local cases = {
        { "i32", 2 ^ 40 }, { "i32", 1.5 }, { "i32", R.I32_MAX + 1 }, { "i32", R.I32_MIN - 1 },
        { "i32", nan }, { "i32", inf }, { "i32", "x" }, { "i32", {} }, { "i32", true },
        { "u32", -1 }, { "u32", R.U32_MAX + 1 }, { "u32", 0.5 },
        { "i64", 2.0 ^ 63 }, { "i64", -2.0 ^ 64 }, { "i64", 0.25 }, { "i64", nan },
        { "u64", 2.0 ^ 64 }, { "u64", -1.5 }, { "u64", inf },
        { "f32", "1.5x" }, { "f64", {} }, { "f64", false },
      }
      for _, c in ipairs(cases) do
        local dt, v = c[1], c[2]
        local a = ctx:array({ 1, 2, 3 }, dt)
        local want = R.astype({ 1, 2, 3 }, "i64", dt)
        guard { { a, want } }
        E(function() a[2] = v end, "mgpu.array")
        E(function() return ctx:array({ 1, v }, dt) end, "mgpu")
        E(function() return ctx:fill(3, v, dt) end, "mgpu")
        E(function() return a:fill(v) end, "mgpu")
        C.array_eq(a, want, dt, dt .. " = " .. tostring(v))
      end
      context_works()
    end)

    it("array() with values that are not numbers", function()
      E(function() return ctx:array { 1, "two", 3 } end, "mgpu")
      E(function() return ctx:array { 1, {}, 3 } end, "mgpu")
      E(function() return ctx:array("123") end, "mgpu")
      context_works()
    end)

    it("unknown dtype", function()
      local a = ctx:iota(3)
      guard { { a, { 1, 2, 3 } } }
      E(function() return ctx:empty(3, "int8") end, "mgpu", "unknown dtype", "int8")
      E(function() return ctx:zeros(3, "float16") end, "mgpu", "unknown dtype", "float16")
      E(function() return ctx:array({ 1 }, "I32") end, "mgpu", "unknown dtype", "I32")
      E(function() return ctx:frombytes("abcd", "bytes") end, "mgpu", "unknown dtype", "bytes")
      E(function() return a:astype("bool") end, "mgpu", "unknown dtype", "bool")
      E(function() return mgpu.empty(3, "int8") end, "mgpu", "unknown dtype", "int8")
      intact { { a, { 1, 2, 3 } } }
      context_works()
    end)

    it("unknown comparator in is_sorted", function()
      local a = ctx:iota(3)
      guard { { a, { 1, 2, 3 } } }
      E(function() return a:is_sorted("up") end, "mgpu", "up")
      E(function() return a:is_sorted(1) end, "mgpu")
      intact { { a, { 1, 2, 3 } } }
    end)

    it("frombytes with a length that is not a multiple of the element size", function()
      E(function() return ctx:frombytes("abc", "i32") end, "mgpu")
      E(function() return ctx:frombytes(string.rep("x", 12), "f64") end, "mgpu")
      E(function() return ctx:frombytes(42, "f64") end, "mgpu")
      context_works()
    end)

    it("bad sizes: negative, fractional, beyond the context's limit", function()
      -- 2^53 on every backend (src/backend.h, MGPU_WIDE_MAX_COUNT): every
      -- call takes it (spec/huge_spec.lua)
      local max = 1 << 53
      assert.are.equal(max, ctx:info().max_count)
      assert.are.equal(2147483647, mgpu.max_count)
      local limit = tostring(max)
      local dmax = mgpu.default_context():info().max_count
      E(function() return mgpu.empty(dmax + 1, "i32") end, "mgpu", tostring(dmax))
      E(function() return ctx:empty(max + 1, "i32") end, "mgpu", limit)
      E(function() return ctx:empty(max + 1, "u64") end, "mgpu", limit)
      E(function() return ctx:zeros(max + 5) end, "mgpu", limit)
      E(function() return ctx:fill(max * 2, 0) end, "mgpu", limit)
      E(function() return ctx:iota(1 << 62) end, "mgpu", limit)
      E(function() return ctx:random(max + 1, 0, 1) end, "mgpu", limit)
      E(function() return ctx:sorted_random(max + 1, 0, 1) end, "mgpu", limit)
      E(function() return ctx:empty(2.0 ^ 63) end, "mgpu", limit)
      E(function() return ctx:empty(-1) end, "mgpu")
      E(function() return ctx:zeros(2.5) end, "mgpu")
      E(function() return ctx:empty("many") end, "mgpu")
      context_works()
    end)

    it("slice and totable with bad arguments", function()
      local a = ctx:iota(10)
      guard { { a, R.iota(10) } }
      E(function() return a:slice("x", 2) end, "mgpu")
      E(function() return a:totable("x") end, "mgpu")
      intact { { a, R.iota(10) } }
    end)

    it("to() an unknown device", function()
      local a = ctx:iota(10)
      guard { { a, R.iota(10) } }
      E(function() return a:to("tpu") end, "mgpu", "tpu")
      E(function() return a:to(42) end, "mgpu")
      intact { { a, R.iota(10) } }
      context_works()
    end)
  end)
end)
