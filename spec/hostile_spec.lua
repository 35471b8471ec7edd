-- Hostile Lua: code that runs in the middle of a call (finalizers, option
-- tables with metatables, errors, coroutines) must get a Lua error or a
-- correct result, never make the module touch memory it released.  Each
-- reproducer here crashed (or read freed memory under ASan) before the
-- binding pinned its arguments; `make test` also runs this file against an
-- ASan+UBSan build of the cpu backend (tools/asan-build.sh).
--
-- The finalizers are made to run mid-call deterministically: the context's
-- memory_limit is filled with garbage, so the call's first allocation fails,
-- and the binding's collect-and-retry runs them.

local mgpu = require "mgpu"
local R = require "helpers.reference"
local C = require "helpers.check"
local backends = require "helpers.backends"

local KiB = 1024

-- An object whose finalizer runs fn, dropped at once.
local function on_collect(fn)
  setmetatable({}, { __gc = function() fn() end })
end

-- Makes the binding's next allocation of any size collect: garbage takes
-- the bytes it allows before its next collection (mgpu.memory()).
local spare = mgpu.context { device = "cpu" }
local function arm()
  collectgarbage()
  if not mgpu.memory then return end -- a build without it: the limit alone
  local m = mgpu.memory()
  local bytes = m.threshold - m.since
  if bytes >= 4 then spare:empty(bytes // 4, "i32") end
end

-- A context of `limit` bytes; its garbage() fills `fill` bytes of it, so
-- that an allocation of more than what is left fails and the binding
-- collects and retries, and arms the collection by count as well.
local function crowded(device, limit, fill)
  local c = mgpu.context { device = device, memory_limit = limit }
  return c, function()
    c:empty(fill // 4, "i32")
    arm()
  end
end

backends.each(function(ctx, device)
  describe("a finalizer that frees an argument mid-call", function()
    it("merge reads the arguments it checked; the free takes effect after", function()
      local c, garbage = crowded(device, 64 * KiB, 40 * KiB)
      local a = c:array(R.iota(2000, 1, 2))      -- 8 KiB
      local b = c:array(R.iota(2000, 2, 2))      -- 8 KiB
      garbage()
      on_collect(function() a:free(); b:free() end)
      local m = mgpu.merge(a, b)                 -- 16 KiB: collects first
      C.array_eq(m, R.iota(4000), "i32", "merge of arguments freed mid-call")
      C.raises(function() return #a end, "mgpu.array", "freed")
      C.raises(function() return mgpu.merge(a, b) end, "mgpu.merge", "freed")
    end)

    it("join reads the keys it checked and frees no result it took", function()
      local c, garbage = crowded(device, 64 * KiB, 40 * KiB)
      local a = c:array(R.iota(2000, 1, 2))      -- 8 KiB
      local b = c:array(R.iota(2000, 1, 2))      -- 8 KiB
      garbage()
      on_collect(function() a:free(); b:free() end)
      local ia, ib = mgpu.join(a, b)             -- 2 x 8 KiB: collects first
      C.array_eq(ia, R.iota(2000), "i32", "join of arguments freed mid-call")
      C.array_eq(ib, R.iota(2000), "i32", "join of arguments freed mid-call")
      C.raises(function() return #a end, "mgpu.array", "freed")
      C.raises(function() return mgpu.join(a, b) end, "mgpu.join", "freed")
    end)

    for _, name in ipairs { "mergesort", "sort" } do
      it(name .. " sorts the keys it checked (values too)", function()
        -- the sort's own temporaries fill the limit where the backend takes
        -- them from the context; elsewhere no collection runs mid-call
        local c, garbage = crowded(device, 256 * KiB, 200 * KiB)
        local keys = c:array(R.iota(5000, 5000, -1))
        local vals = c:iota(5000)
        garbage()
        local ran = false
        on_collect(function() ran = true; keys:free(); vals:free() end)
        local ok, err = pcall(mgpu[name], keys, { values = vals })
        if not ok then assert.matches("mgpu." .. name, err) end
        if ran then
          C.raises(function() return keys[1] end, "mgpu.array", "freed")
          C.raises(function() return #vals end, "mgpu.array", "freed")
        else
          assert.is_true(ok, err)
          C.array_eq(keys, R.iota(5000), "i32")
          C.array_eq(vals, R.iota(5000, 5000, -1), "i32")
        end
      end)
    end

    it("a view outlives the free of its parent and the call", function()
      local c, garbage = crowded(device, 64 * KiB, 44 * KiB)
      local a = c:iota(3000)
      local v = a:slice(1001, 2000)
      garbage()
      on_collect(function() a:free() end)
      local r = mgpu.bulk_remove(v, { 1, 1000 })
      C.array_eq(r, R.iota(998, 1002), "i32")
      C.array_eq(v, R.iota(1000, 1001), "i32", "the view after its parent's free")
    end)

    it("interval_move's out, freed mid-call, is still written and then freed", function()
      local c, garbage = crowded(device, 64 * KiB, 48 * KiB)
      local input = c:iota(100)
      local out = c:zeros(100)
      garbage()
      on_collect(function() out:free(); input:free() end)
      local r = mgpu.interval_move(input, { 1, 51 }, { 51, 1 }, { 50, 50 }, { out = out })
      assert.are.equal(out, r)
      C.raises(function() return #r end, "mgpu.array", "freed")
    end)

    it("a finalizer that closes the context mid-call", function()
      local c, garbage = crowded(device, 64 * KiB, 48 * KiB)
      garbage()
      on_collect(function() getmetatable(c).__gc(c) end)
      local a = c:iota(4000)                    -- 16 KiB: collects, closes c
      C.array_eq(a, R.iota(4000), "i32", "made on a context closed mid-call")
      C.raises(function() return c:iota(3) end, "mgpu.iota", "closed")
      -- its arrays keep working
      local m = mgpu.merge(a, a:copy())
      assert.are.equal(8000, #m)
    end)
  end)

  describe("options are read raw", function()
    it("no metamethod of an option table runs", function()
      local a, b = ctx:iota(10), ctx:iota(10)
      local ran = false
      local opts = setmetatable({}, { __index = function(_, k)
        ran = true
        a:free()
        collectgarbage()
        if k == "comp" then return "greater" end
        if k == "out" then return ctx:zeros(20) end
        error("from __index")
      end })
      C.array_eq(mgpu.merge(a, b, opts), R.merge(R.iota(10), R.iota(10), "i32"), "i32")
      mgpu.mergesort(a, opts)
      mgpu.sort(a, opts)
      mgpu.segsort(a, { 1 }, opts)
      mgpu.locality_sort(a, opts)
      mgpu.set_union(a, b, opts)
      assert.is_false(ran)
      C.array_eq(a, R.iota(10), "i32", "a untouched by the __index")
    end)

    it("interval_move and interval_scatter ignore an out that only __index gives", function()
      local input = ctx:iota(100)
      local opts = setmetatable({}, { __index = function() return ctx:zeros(100) end })
      local r = mgpu.interval_move(input, { 1 }, { 3 }, { 10 }, opts)
      C.array_eq(r, R.concat({ 0, 0 }, R.iota(10)), "i32")
      local s = mgpu.interval_scatter(input, { 3 }, { 10 }, opts)
      C.array_eq(s, R.concat({ 0, 0 }, R.iota(10)), "i32")
    end)

    it("a __newindex, __len or __pairs on a table of indices runs nothing", function()
      local a = ctx:iota(10)
      local t = setmetatable({ 2, 3 }, {
        __len = function() error("__len ran") end,
        __index = function() error("__index ran") end,
        __pairs = function() error("__pairs ran") end,
      })
      C.array_eq(mgpu.bulk_remove(a, t), { 1, 4, 5, 6, 7, 8, 9, 10 }, "i32")
      C.array_eq(mgpu.load_balance(setmetatable({ 2, 1 }, getmetatable(t))),
        { 1, 1, 2 }, "i32")
    end)
  end)

  describe("errors and coroutines", function()
    it("a call that raises releases its pins at once", function()
      collectgarbage()
      local before = mgpu.memory().live
      local a = ctx:zeros(1 << 16)
      assert.is_false(pcall(mgpu.merge, a, 42))
      assert.is_false(pcall(mgpu.merge, a, a, { comp = "sideways" }))
      a:free()
      assert.are.equal(before, mgpu.memory().live)
    end)

    it("a call that raises inside a coroutine leaves nothing pinned once collected", function()
      collectgarbage()
      local before = mgpu.memory().live
      local co = coroutine.create(function()
        local a = ctx:zeros(1 << 16)
        mgpu.merge(a, "b")
      end)
      local ok, err = coroutine.resume(co)
      assert.is_false(ok)
      assert.matches("mgpu.merge: b must be an mgpu.array", err)
      co = nil
      collectgarbage()
      collectgarbage()
      assert.are.equal(before, mgpu.memory().live)
    end)

    it("an error thrown by a finalizer mid-call does not reach the call", function()
      local c, garbage = crowded(device, 64 * KiB, 48 * KiB)
      garbage()
      on_collect(function() error("finalizer error") end)
      local warn = warn
      warn("@off")
      local a = c:iota(4000)
      warn("@on")
      C.array_eq(a, R.iota(4000), "i32")
    end)
  end)

  describe("closed contexts", function()
    it("the default context, closed by its __gc, gives a clear error, not a crash", function()
      local d = mgpu.default_context()
      local keep = mgpu.iota(5)
      getmetatable(d).__gc(d)
      getmetatable(d).__gc(d) -- twice is harmless
      C.raises(function() return mgpu.load_balance { 1 } end, "mgpu.load_balance", "closed")
      C.raises(function() return mgpu.iota(3) end, "mgpu.iota", "closed")
      C.raises(function() return d:iota(3) end, "mgpu.iota", "closed")
      C.raises(function() return d:sync() end, "mgpu.context:sync", "closed")
      assert.matches("closed", tostring(d))
      -- arrays made on it still work, and a new context can be made and set
      C.array_eq(keep, R.iota(5), "i32")
      local fresh = mgpu.context()
      assert.are.equal(d ~= fresh, true)
      mgpu.default_context(mgpu.context { device = device })
      C.array_eq(mgpu.iota(3), { 1, 2, 3 }, "i32")
    end)

    it("ctx:close() closes it now, as its __gc would; twice is harmless", function()
      local c = mgpu.context { device = device }
      local keep = c:iota(4)
      c:close()
      c:close()
      C.raises(function() return c:iota(3) end, "mgpu.iota", "closed")
      C.raises(function() return c:sync() end, "mgpu.context:sync", "closed")
      assert.matches("closed", tostring(c))
      C.array_eq(keep, R.iota(4), "i32")
      C.array_eq(mgpu.merge(keep, keep), { 1, 1, 2, 2, 3, 3, 4, 4 }, "i32")
    end)

    it("a:to(device) replaces a shared context that was closed", function()
      local a = ctx:iota(7)
      local b = a:to(device)
      local shared = b.context
      getmetatable(shared).__gc(shared)
      local c = a:to(device)
      C.array_eq(c, R.iota(7), "i32")
      C.array_eq(b, R.iota(7), "i32", "an array of the closed shared context")
      assert.are_not.equal(shared, c.context)
    end)
  end)

  describe("the collector sees array memory", function()
    it("dropped results do not pile up (live bytes bounded)", function()
      collectgarbage()
      local base = mgpu.memory().live
      local src = ctx:iota(1 << 20)                         -- 4 MiB
      local peak = 0
      for _ = 1, 120 do
        local r = src:astype("f64")                         -- 8 MiB dropped
        peak = math.max(peak, mgpu.memory().live - base)
        assert.are.equal(1.0, r[1])
      end
      -- 960 MiB were taken; what is live stays near the 64 MiB step
      assert.is_true(peak <= 96 * (1 << 20), "peak live " .. peak)
      assert.is_true(ctx:info().in_use <= 160 * (1 << 20), "in_use " .. ctx:info().in_use)
    end)

    it("a stopped collector stays stopped", function()
      collectgarbage()
      collectgarbage("stop")
      local base = mgpu.memory().live
      for _ = 1, 40 do local _ = ctx:zeros(1 << 20) end    -- 160 MiB dropped
      local grown = mgpu.memory().live - base
      collectgarbage("restart")
      collectgarbage()
      assert.is_true(grown >= 160 * (1 << 20), "grown " .. grown)
      assert.are.equal(base, mgpu.memory().live)
    end)
  end)
end)
