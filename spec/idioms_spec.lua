-- The idioms a Lua programmer expects of a library: messages that say what
-- they got and keep the "mgpu" prefix, iteration, nil for a default, the
-- colon of a method, floats inside their range.

local mgpu = require "mgpu"
local R = require "helpers.reference"
local C = require "helpers.check"
local backends = require "helpers.backends"

backends.each(function(ctx, device)
  describe("messages", function()
    it("say what is missing or wrong", function()
      C.raises(function() return ctx:zeros() end, "mgpu.zeros", "n is missing")
      C.raises(function() return ctx:empty(1.5) end, "mgpu.empty", "must be an integer", "1.5")
      C.raises(function() return ctx:empty(-3) end, "mgpu.empty", "negative", "-3")
      C.raises(function() return ctx:fill(3) end, "mgpu.fill", "v must be a number", "no value")
      C.raises(function() return mgpu.merge(ctx:iota(3), 42) end, "mgpu.merge", C.word("b"), "number")
      C.raises(function() return mgpu.merge(ctx:iota(3), ctx) end, "mgpu.merge", "mgpu.context")
    end)

    it("a method called with a dot, or metamethods called with anything, keep the prefix", function()
      local a = ctx:iota(3)
      C.raises(function() a.free("x") end, "mgpu.array:free", "a:free()")
      C.raises(function() return a.totable() end, "mgpu.array:totable", "a:totable")
      local mt = getmetatable(a)
      for _, k in ipairs { "__index", "__newindex", "__len", "__pairs" } do
        for _, self in ipairs { 1, "x", {}, ctx } do
          C.raises(function() return mt[k](self, 1, 1) end, "mgpu.array")
        end
      end
      local cmt = getmetatable(ctx)
      C.raises(function() return cmt.__index(1, "device") end, "mgpu.context")
      C.array_eq(a, { 1, 2, 3 }, "i32")
    end)

    it("ctx.array{...} (a dot for a colon) is an error, not a call on the default context", function()
      C.raises(function() return ctx.array { 1, 2 } end, "mgpu.array", "ctx:array")
      C.raises(function() return ctx.iota(5) end, "mgpu.iota", "ctx:iota")
      assert.are.equal(device == "cpu" and "cpu" or ctx.device, ctx:array({ 1, 2 }).device)
    end)

    it("print the exact value: u64 past 2^63, and floats in their shortest form", function()
      local huge = ctx:array({ -1 }, "u64") -- 2^64 - 1
      C.raises(function() return mgpu.bulk_remove(ctx:iota(3), huge) end,
        "mgpu.bulk_remove", "18446744073709551615")
      C.raises(function() return ctx:array({ 0.1 }, "i32") end, "mgpu.array", "0.1")
      C.raises(function() return ctx:array({ 2^64 }, "u64") end, "mgpu.array", C.lit("1.8446744073709552e+19"))
    end)

    it("tostring tells two contexts on one device apart", function()
      local a, b = mgpu.context { device = device }, mgpu.context { device = device }
      assert.are_not.equal(tostring(a), tostring(b))
      assert.are_not.equal(a.id, b.id)
    end)
  end)

  describe("iteration", function()
    it("ipairs and pairs walk 1..#a and stop at the end", function()
      local a = ctx:array { 5, 6, 7 }
      local seen = {}
      for i, v in ipairs(a) do seen[#seen + 1] = { i, v } end
      assert.are.same({ { 1, 5 }, { 2, 6 }, { 3, 7 } }, seen)
      seen = {}
      for i, v in pairs(a) do seen[#seen + 1] = { i, v } end
      assert.are.same({ { 1, 5 }, { 2, 6 }, { 3, 7 } }, seen)
      for _ in ipairs(ctx:zeros(0)) do error("an empty array has no elements") end
      assert.is_nil(a[4])
    end)
  end)

  describe("constructors", function()
    it("iota reads the arguments after a nil", function()
      C.array_eq(ctx:iota(3, nil, 2), { 1, 3, 5 }, "i32")
      C.array_eq(ctx:iota(3, 10, nil, "i64"), { 10, 11, 12 }, "i64")
      C.array_eq(ctx:iota(3, nil, nil, "f32"), { 1, 2, 3 }, "f32")
      C.array_eq(ctx:iota(3, "u32"), { 1, 2, 3 }, "u32")
      C.raises(function() return ctx:iota(3, nil, 2, "i32", 7) end, "mgpu.iota", "unexpected")
    end)

    it("random floats lie in [lo, hi), f32 after rounding included", function()
      for _, dt in ipairs { "f32", "f64" } do
        for _, range in ipairs { { 0.0, 1.0 }, { 0.9999999, 1.0 }, { -1e308, 1e308 }, { 1.0, 1.0 + 2^-20 } } do
          local lo, hi = range[1], range[2]
          local r = ctx:random(20000, lo, hi, dt, 5)
          for i, v in ipairs(r:totable()) do
            if not (v >= lo and (v < hi or lo == hi)) or v ~= v then
              error(string.format("%s [%.17g, %.17g): element %d = %.17g", dt, lo, hi, i, v))
            end
          end
        end
      end
      -- no f32 lies in [1 + 2^-30, 1 + 2^-29): a clear error
      C.raises(function() return ctx:random(4, 1.0 + 2^-30, 1.0 + 2^-29, "f32") end,
        "mgpu.random", "no f32")
      -- the same seed gives the same data as before on every backend
      C.array_eq(ctx:random(4, 1.0, 1.0, "f32", 3), { 1, 1, 1, 1 }, "f32")
    end)
  end)
end)

backends.cuda_vs_cpu(function(gpu, cpu)
  it("random floats are the same bits on both backends", function()
    for _, dt in ipairs { "f32", "f64" } do
      for _, range in ipairs { { 0.0, 1.0 }, { -1e308, 1e308 }, { -3.5, 1e-3 } } do
        local a = gpu:random(100000, range[1], range[2], dt, 99):tobytes()
        local b = cpu:random(100000, range[1], range[2], dt, 99):tobytes()
        assert.is_true(a == b, dt .. " " .. range[1] .. ".." .. range[2])
      end
    end
  end)
end)
