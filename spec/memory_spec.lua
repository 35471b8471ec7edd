-- Memory: garbage arrays never exhaust a context (the collect-and-retry path),
-- allocations past the limit raise "out of memory" and leave the context
-- usable, free() and <close> release at once.

local mgpu = require "mgpu"
local R = require "helpers.reference"
local C = require "helpers.check"
local backends = require "helpers.backends"

local MiB = 1 << 20
local OOM = "out of memory"

backends.each(function(ctx, device)
  it("2000 garbage 16 MiB arrays fit a 256 MiB memory_limit (ctx:empty and mgpu.empty)", function()
    local c = mgpu.context { device = device, memory_limit = 256 * MiB }
    for i = 1, 1000 do
      local a = c:empty(4 * MiB, "i32")     -- 16 MiB, garbage at the end of the iteration
      a[1] = i
    end
    local old = mgpu.default_context()
    mgpu.default_context(c)
    local ok, err = pcall(function()
      for i = 1, 1000 do
        local a = mgpu.empty(4 * MiB, "i32")
        a[4 * MiB] = i
      end
    end)
    mgpu.default_context(old)
    assert(ok, err)
    local info = c:info()
    assert.is_true(info.in_use <= 256 * MiB, "in_use " .. info.in_use .. " beyond the limit")
    -- and the context still works
    local x = c:iota(1000)
    mgpu.mergesort(x, { comp = "greater" })
    C.array_eq(x, R.iota(1000, 1000, -1), "i32")
  end)

  it("garbage from primitives is collected too (merge and astype results)", function()
    local c = mgpu.context { device = device, memory_limit = 64 * MiB }
    local a = c:iota(1 * MiB)                  -- 4 MiB
    local b = c:iota(1 * MiB, 2)               -- 4 MiB
    for _ = 1, 100 do
      local m = mgpu.merge(a, b)               -- 8 MiB of garbage each
      local f = a:astype("f64")                -- 8 MiB
      assert.are.equal(2 * MiB, #m)
      assert.are.equal(1.0, f[1])
    end
    C.table_eq(mgpu.merge(a, b):totable(1, 4), { 1, 2, 2, 3 }, "i32")
  end)

  it("an allocation past the limit raises out of memory and leaves the context usable", function()
    local c = mgpu.context { device = device, memory_limit = 64 * MiB }
    C.raises(function() return c:empty(32 * MiB, "i32") end, nil, OOM)       -- 128 MiB
    C.raises(function() return c:zeros(9 * MiB, "f64") end, nil, OOM)        -- 72 MiB
    local keep = c:fill(10 * MiB, 7)                                         -- 40 MiB, live
    C.raises(function() return c:empty(10 * MiB, "i32") end, nil, OOM)       -- 40 more
    C.raises(function() return keep:copy() end, nil, OOM)
    C.raises(function() return keep:astype("i64") end, nil, OOM)
    assert.are.equal(7, keep[1])
    assert.are.equal(7, keep[10 * MiB])
    assert.is_true(keep:is_sorted() and keep:is_sorted("greater"))
    C.table_eq(keep:totable(5 * MiB, 5 * MiB + 2), { 7, 7, 7 }, "i32")
    local small = c:iota(1000)
    C.array_eq(small, R.iota(1000), "i32")
    keep = nil
    collectgarbage(); collectgarbage()
    local again = c:fill(10 * MiB, 3)
    local again2 = c:empty(5 * MiB)
    assert.are.equal(3, again[10 * MiB])
    assert.are.equal(5 * MiB, #again2)
  end)

  it("a merge whose result does not fit raises out of memory; inputs stay intact", function()
    local c = mgpu.context { device = device, memory_limit = 64 * MiB }
    local a = c:iota(6 * MiB, 1, 2)          -- 24 MiB, odd numbers
    local b = c:iota(6 * MiB, 2, 2)          -- 24 MiB, even numbers
    C.raises(function() return mgpu.merge(a, b) end, nil, OOM)
    assert.is_true(a:is_sorted() and b:is_sorted())
    C.table_eq(a:totable(-2), { 12 * MiB - 3, 12 * MiB - 1 }, "i32")
    C.table_eq(b:totable(1, 2), { 2, 4 }, "i32")
    b = nil
    collectgarbage(); collectgarbage()
    local m = mgpu.merge(a:slice(1, 3), c:array { 2, 4 })
    C.array_eq(m, { 1, 2, 3, 4, 5 }, "i32")
  end)

  it("a sort that needs more than the limit either works or raises out of memory", function()
    local c = mgpu.context { device = device, memory_limit = 64 * MiB }
    local k = c:random(12 * MiB, 0, 1000, "i32", 1)   -- 48 MiB
    local ok, err = pcall(mgpu.mergesort, k)
    if ok then
      assert.is_true(k:is_sorted())
    else
      assert.truthy(tostring(err):find(OOM, 1, true), tostring(err))
      assert.are.equal(12 * MiB, #k)
    end
    k = nil
    collectgarbage(); collectgarbage()
    local s = c:random(100000, 0, 10, "i32", 2)
    mgpu.mergesort(s)
    assert.is_true(s:is_sorted())
  end)

  it("the radix sort past the limit either works or raises out of memory, keys intact", function()
    local c = mgpu.context { device = device, memory_limit = 64 * MiB }
    local k = c:random(12 * MiB, 0, 1000, "i32", 3)   -- 48 MiB
    local before = k:totable(1, 1000)
    local ok, err = pcall(mgpu.sort, k)
    if ok then
      assert.is_true(k:is_sorted())
    else
      assert.truthy(tostring(err):find(OOM, 1, true), tostring(err))
      assert.are.same(before, k:totable(1, 1000), "keys untouched")
    end
    k = nil
    collectgarbage(); collectgarbage()
    local s = c:random(100000, 0, 10, "i32", 4)
    mgpu.sort(s)
    assert.is_true(s:is_sorted())
  end)

  it("free() releases at once; using the array afterwards raises", function()
    local c = mgpu.context { device = device }
    collectgarbage(); collectgarbage()
    local base = c:info().in_use
    local a = c:zeros(4 * MiB, "f64")
    assert.is_true(c:info().in_use >= base + 32 * MiB)
    a:free()
    assert.are.equal(base, c:info().in_use)
    C.raises(function() return a[1] end, "mgpu.array", "array has been freed")
    C.raises(function() return a:tobytes() end, "mgpu.array", "array has been freed")
    a:free()
  end)

  it("local x <close> releases at the end of the block", function()
    local c = mgpu.context { device = device, memory_limit = 64 * MiB }
    collectgarbage(); collectgarbage()
    local base = c:info().in_use
    for _ = 1, 50 do
      local x <close> = c:empty(12 * MiB, "i32")     -- 48 MiB: two at once would not fit
      x[1] = 1
    end
    assert.are.equal(base, c:info().in_use)
    -- with collection off, only <close> can make room
    collectgarbage("stop")
    local ok, err = pcall(function()
      for _ = 1, 20 do
        local y <close> = c:empty(12 * MiB, "i32")
        y[2] = 2
      end
    end)
    collectgarbage("restart")
    assert(ok, err)
    assert.are.equal(base, c:info().in_use)
  end)

  if device == "cuda" then
    it("garbage arrays totalling more than the GPU's memory, without a limit", function()
      local c = mgpu.context { device = device }
      local total = c:info().memory_total
      assert.is_true(total > 0)
      local bytes = math.max(16 * MiB, 2 * total // 2000)
      local n = bytes // 4
      for i = 1, 2000 do
        local a = c:empty(n, "i32")
        a[n] = i
      end
      local big = c:fill(n, 5)
      assert.are.equal(5, big[n])
    end)
  end
end)
