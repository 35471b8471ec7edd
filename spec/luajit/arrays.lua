-- Contexts and arrays under LuaJIT: constructors, element access, views,
-- conversions, printing, lifetime.
local T = require "luajit.harness"
local ffi = require "ffi"
local mgpu = require "mgpu"

local ctx = mgpu.context { device = T.device }

T.test("the module is the FFI binding", function()
  T.ok(type(jit) == "table")
  T.eq(mgpu._VERSION, "0.1.0")
  T.eq(mgpu.dtypes, { "i32", "u32", "i64", "u64", "f32", "f64" })
  T.eq(mgpu.max_count, 2147483647)
  -- the context's own limit: cpu 2^53, cuda the 32-bit one
  T.eq(ctx:info().max_count, 2 ^ 53)
  local d = mgpu.devices()
  T.eq(d[#d], "cpu")
  T.ok(type(mgpu.clock()) == "number")
end)

T.test("contexts", function()
  T.eq(ctx.device, T.device == "cuda" and "cuda:0" or T.device)
  T.eq(ctx.backend, T.device:match("^cuda") and "cuda" or "cpu")
  T.ok(tostring(ctx):find("^mgpu%.context%(" .. ctx.device:gsub("%p", "%%%0") .. "%)#%d+$"))
  local info = ctx:info()
  T.eq(info.device, ctx.device)
  T.ok(type(info.name) == "string" and #info.name > 0)
  T.eq(info.memory_limit, nil)
  T.ok(ctx:sync() == ctx)
  local limited = mgpu.context { device = T.device, memory_limit = 4096 }
  T.eq(limited:info().memory_limit, 4096)
  T.raises("out of memory", limited.zeros, limited, 10000)
  local other = mgpu.context(T.device)
  T.ok(other.id ~= ctx.id)
  local keep = other:iota(4)
  other:close()
  other:close()
  -- arrays made on a closed context keep working, and so do calls on them
  T.eq(mgpu.merge(keep, keep):totable(), { 1, 1, 2, 2, 3, 3, 4, 4 })
  T.ok(keep.context == other)
  T.ok(tostring(other):find("closed", 1, true))
  T.raises("mgpu.context:sync: the context has been closed", other.sync, other)
  T.raises("mgpu.zeros: the context has been closed", other.zeros, other, 3)
  T.raises("mgpu.context: unknown option 'devcie'", mgpu.context, { devcie = "cpu" })
  T.raises("mgpu.context: cannot use device 'tpu'", mgpu.context, "tpu")
  T.ok(mgpu.default_context() == mgpu.default_context())
end)

T.test("constructors", function()
  local a = ctx:array { 3, 1, 2 }
  T.eq(a.dtype, "i32")
  T.eq(#a, 3)
  T.eq(a:totable(), { 3, 1, 2 })
  T.eq(a.device, ctx.device)
  T.ok(a.context == ctx)
  T.eq(ctx:array({ 1.5, 2 }).dtype, "f64")
  T.eq(ctx:array({ 1, 2 ^ 40 }).dtype, "i64")
  T.eq(ctx:array({ 1, 2 }, "u64").dtype, "u64")
  T.eq(ctx:array({ 1, 2 }, "float32").dtype, "f32")
  T.eq(ctx:zeros(4, "f32"):totable(), { 0, 0, 0, 0 })
  T.eq(#ctx:empty(5), 5)
  T.eq(ctx:fill(3, 7):totable(), { 7, 7, 7 })
  T.eq(ctx:fill(2, 0.5).dtype, "f64")
  T.eq(ctx:iota(4):totable(), { 1, 2, 3, 4 })
  T.eq(ctx:iota(3, nil, 2):totable(), { 1, 3, 5 })
  T.eq(ctx:iota(3, 10, -5):totable(), { 10, 5, 0 })
  T.eq(ctx:iota(3, 0, "u32"):totable(), { 0, 1, 2 })
  T.eq(ctx:iota(3, "i64"):totable(), { 1, 2, 3 })
  T.eq(ctx:iota(2, 0.5).dtype, "f64")
  T.eq(ctx:iota(2, 2 ^ 31).dtype, "i64")
  local r = ctx:random(1000, 5, 9, "i32", 7)
  local lo, hi = math.huge, -math.huge
  for _, v in ipairs(r:totable()) do lo = math.min(lo, v); hi = math.max(hi, v) end
  T.ok(lo >= 5 and hi <= 9 and lo < hi)
  T.eq(ctx:random(50, 0, 100, "i32", 3):totable(), ctx:random(50, 0, 100, "i32", 3):totable())
  T.ok(ctx:sorted_random(200, 0, 1, "f32", 1):is_sorted())
  local f = ctx:frombytes(ffi.string(ffi.new("int32_t[2]", { 5, -6 }), 8), "i32")
  T.eq(f:totable(), { 5, -6 })
  T.eq(#f:tobytes(), 8)
  -- module-level constructors use the default context
  T.eq(mgpu.array({ 1 }).device, mgpu.default_context().device)
end)

T.test("element access", function()
  local a = ctx:iota(5)
  T.eq(a[1], 1)
  T.eq(a[5], 5)
  T.eq(a[6], nil)
  a[2] = 20
  T.eq(a[2], 20)
  T.raises("mgpu.array: index 0 out of range 1..5", function() return a[0] end)
  T.raises("mgpu.array: index 6 out of range 1..5", function() a[6] = 1 end)
  T.raises("mgpu.array: index must be an integer (got 1.5)", function() return a[1.5] end)
  T.raises("mgpu.array: value does not fit i32 (got 4294967296)", function() a[1] = 2 ^ 32 end)
  T.raises("mgpu.array: value must be a number for i32 (got string)", function() a[1] = "x" end)
  T.raises("mgpu.array: cannot set field 'dtype' (arrays take integer indices)",
    function() a.dtype = "f32" end)
  local n = 0
  for i = 1, #a do n = n + a[i] end
  T.eq(n, 1 + 20 + 3 + 4 + 5)
  local f = ctx:array({ 0.25, -1 }, "f32")
  f[1] = 1 / 3
  T.ok(math.abs(f[1] - 1 / 3) < 1e-7 and f[1] ~= 1 / 3)
end)

T.test("64-bit elements beyond 2^53 are int64_t/uint64_t cdata", function()
  local a = ctx:array({ 2 ^ 53, -2 ^ 53 }, "i64")
  T.eq(type(a[1]), "number")
  a[1] = 9007199254740993LL
  T.ok(ffi.istype("int64_t", a[1]))
  T.eq(a[1], 9007199254740993LL)
  a[2] = -9223372036854775807LL - 1
  T.eq(tostring(a[2]), "-9223372036854775808LL")
  local u = ctx:array({ -1, 5 }, "u64")
  T.ok(ffi.istype("uint64_t", u[1]))
  T.eq(u[1], 18446744073709551615ULL)
  T.eq(u[2], 5)
  u[2] = 2 ^ 63
  T.eq(u[2], 9223372036854775808ULL)
  T.eq(ctx:array({ 0xFFFFFFFFFFFFFFFFULL, 1 }).dtype, "u64")
  T.eq(ctx:array({ 1LL, 2 }).dtype, "i32")
  T.eq(ctx:array({ 4294967296LL }).dtype, "i64")
  T.eq(ctx:array({ 1, 2 }, "i64"):totable(), { 1, 2 })
  local t = ctx:array({ 123456789012345678LL }, "i64"):totable()
  T.eq(t[1], 123456789012345678LL)
  T.raises("does not fit i64", ctx.array, ctx, { 2 ^ 63 }, "i64")
  T.raises("does not fit i32", ctx.array, ctx, { 3000000000LL }, "i32")
  -- printing shows plain digits
  T.ok(tostring(u):find("18446744073709551615", 1, true))
  T.ok(not tostring(u):find("ULL", 1, true))
  local r, total = mgpu.scan(ctx:array({ 2 ^ 62, 2 ^ 62 }, "u64"))
  T.eq(total, 9223372036854775808ULL)
  T.eq(mgpu.reduce(ctx:array({ 2 ^ 62, 2 ^ 62, 1 }, "i64"), "add"), -9223372036854775807LL)
end)

T.test("views and conversions", function()
  local a = ctx:iota(10)
  local v = a:slice(3, 5)
  T.eq(v:totable(), { 3, 4, 5 })
  T.eq(a:slice(-2):totable(), { 9, 10 })
  v[1] = 30
  T.eq(a[3], 30)
  T.eq(a:totable(2, 4), { 2, 30, 4 })
  T.eq(a:totable(-3, -1), { 8, 9, 10 })
  T.raises("mgpu.array:totable: range 0..3 is outside 1..10", a.totable, a, 0, 3)
  local c = a:copy()
  c[1] = 100
  T.eq(a[1], 1)
  T.eq(a:astype("f64"):totable()[3], 30)
  T.eq(ctx:array({ -1.5, 2.7 }):astype("i32"):totable(), { -1, 2 })
  T.eq(a:to("cpu"):totable(), a:totable())
  T.eq(a:to(ctx).device, ctx.device)
  T.eq(a:fill(4):totable()[10], 4)
  T.ok(ctx:array({ 3, 2, 1 }):is_sorted("greater"))
  T.ok(not ctx:array({ 3, 2, 1 }):is_sorted())
  T.ok(ffi.istype("void *", a:ptr()))
  T.raises("mgpu.array:totable: call it as a method, a:totable(...) (got nil as self)",
    a.totable)
end)

T.test("free and lifetime", function()
  local a = ctx:iota(10)
  local v = a:slice(2, 3)
  a:free()
  a:free()
  T.eq(v:totable(), { 2, 3 })
  T.raises("mgpu.array: array has been freed", function() return #a end)
  T.raises("mgpu.array:totable: array has been freed", a.totable, a)
  T.raises("mgpu.merge: b has been freed", mgpu.merge, v, a)
  T.ok(tostring(a):find("freed", 1, true))
  T.eq(a.dtype, "i32")
  local before = mgpu.memory().live
  for _ = 1, 100 do ctx:zeros(1000) end
  collectgarbage()
  collectgarbage()
  T.ok(mgpu.memory().live <= before, "arrays dropped are released by __gc")
  local m = mgpu.memory()
  T.ok(m.threshold >= 64 * 1024 * 1024 and m.since >= 0)
end)

T.test("dropped results do not pile up (live bytes bounded)", function()
  collectgarbage()
  local base = mgpu.memory().live
  local src = ctx:iota(1048576) -- 4 MiB
  local peak = 0
  for _ = 1, 60 do
    local r = src:astype("f64") -- 8 MiB dropped
    peak = math.max(peak, mgpu.memory().live - base)
    T.eq(r[1], 1)
  end
  -- 480 MiB were taken; what is live stays near the 64 MiB mark
  T.ok(peak < 160 * 1048576, "peak " .. peak)
end)

-- A finalizer that runs inside a call and frees (or closes) what the call
-- uses: the call completes on memory that stays until it is over; later
-- calls see the array freed (the context closed).
T.test("a finalizer that frees an argument mid-call", function()
  local other = ctx:iota(1000)
  local freed_errors, results = 0, 0
  collectgarbage("setpause", 50) -- collect often, so finalizers run inside calls
  for _ = 1, 300 do
    local victim = ctx:iota(1000)
    for _ = 1, 50 do ffi.gc(ffi.new("char[64]"), function() victim:free() end) end
    for _ = 1, 10 do
      for _, call in ipairs {
        function()
          local r = mgpu.merge(victim, other)
          T.eq(#r, 2000)
          T.ok(r:is_sorted())
          return r
        end,
        function() return victim:copy() end,
        function() return victim:totable(1, 3) end,
        function() return mgpu.bulk_remove(other, victim:slice(1, 2)) end,
        function() return mgpu.interval_expand(other:slice(1, 2), victim:slice(1, 2)) end,
        function() return mgpu.set_union(victim, other) end,
      } do
        local ok, r = pcall(call)
        if ok then
          results = results + 1
        else
          T.ok(tostring(r):find("freed", 1, true), tostring(r))
          freed_errors = freed_errors + 1
        end
      end
    end
  end
  collectgarbage("setpause", 200)
  T.ok(freed_errors > 0 and results > 0, freed_errors .. " errors, " .. results .. " results")
end)

-- The same, deterministically: a line hook frees the array at each line in
-- turn that the binding runs during the call (as a finalizer could).  The
-- allocation must outlive every view the call cut of it, and go with the
-- last of them.
T.test("a:free() at each line of a call that uses the array or cuts a view of it", function()
  local binding = package.searchpath("mgpu.ffi", package.path)
  local function in_binding(info) return info.source == "@" .. binding end
  local other = ctx:iota(1000)
  local calls = {
    slice = function(v) return v:slice(3, 4) end,
    copy = function(v) return v:copy() end,
    bulk_remove = function(v) return mgpu.bulk_remove(other, v:slice(1, 2)) end,
    merge = function(v) return mgpu.merge(v:slice(1, 10), other) end,
    interval_expand = function(v)
      return mgpu.interval_expand(other:slice(1, 2), v:slice(1, 2))
    end,
  }
  local want = {
    slice = { 3, 4 },
    copy = ctx:iota(1000):totable(),
    bulk_remove = other:slice(3, 1000):totable(),
    merge = mgpu.merge(ctx:iota(10), other):totable(),
    interval_expand = { 1, 2, 2 },
  }
  collectgarbage()
  collectgarbage()
  ctx:sync() -- on cuda, freed memory leaves in_use in stream order
  local base = ctx:info().in_use
  -- hooks do not run in compiled code
  jit.flush()
  jit.off()
  for name, call in pairs(calls) do
    -- the lines of the binding this call runs, in order
    local steps = 0
    local victim = ctx:iota(1000)
    debug.sethook(function()
      if in_binding(debug.getinfo(2, "S")) then steps = steps + 1 end
    end, "l")
    call(victim)
    debug.sethook()
    T.ok(steps > 5, name .. ": " .. steps .. " lines")
    for k = 1, steps do
      victim = ctx:iota(1000)
      local seen = 0
      debug.sethook(function()
        if in_binding(debug.getinfo(2, "S")) then
          seen = seen + 1
          if seen == k then victim:free() end
        end
      end, "l")
      local ok, r = pcall(call, victim)
      debug.sethook()
      local what = name .. ", freed at line " .. k .. " of " .. steps
      if ok then
        T.eq(r:totable(), want[name], what)
        -- a view of the victim holds its allocation; a copy does not
        if name == "slice" then
          T.eq(ctx:info().in_use, base + 4000, what .. ": bytes in use")
        end
      else
        T.ok(tostring(r):find("freed", 1, true), what .. ": " .. tostring(r))
      end
      r = nil
      collectgarbage()
      collectgarbage()
      ctx:sync()
      T.eq(ctx:info().in_use, base, what .. ": bytes in use after collection")
    end
  end
  jit.on()
end)

T.test("a finalizer that closes a context mid-call", function()
  collectgarbage("setpause", 50)
  local closed_errors, results = 0, 0
  for _ = 1, 300 do
    local c = mgpu.context(T.device)
    -- one call before the finalizers exist: whether any later call begins
    -- before they run depends on where the collector is, and in some runs
    -- none does
    results = results + 1
    T.ok(mgpu.mergesort(c:random(500, 0, 9, "i32", 1)):is_sorted())
    for _ = 1, 50 do ffi.gc(ffi.new("char[64]"), function() c:close() end) end
    for _ = 1, 10 do
      local ok, r = pcall(function() return mgpu.mergesort(c:random(500, 0, 9, "i32", 1)) end)
      if ok then
        results = results + 1
        T.ok(r:is_sorted())
      else
        T.ok(tostring(r):find("closed", 1, true), tostring(r))
        closed_errors = closed_errors + 1
      end
    end
  end
  collectgarbage("setpause", 200)
  T.ok(closed_errors > 0 and results > 0, closed_errors .. " errors, " .. results .. " results")
end)

T.test("printing", function()
  local s = tostring(ctx:iota(3))
  T.eq(s, "mgpu.array<i32>[3] " .. ctx.device .. "\n 1:     1    2    3")
  local long = tostring(ctx:iota(1000))
  T.ok(long:find("...", 1, true))
  T.ok(long:find("991:", 1, true))
  local f = tostring(ctx:array({ 0 / 0, 1 / 0, 0.5 }))
  T.ok(f:find("nan", 1, true) and f:find("inf", 1, true) and f:find("0.5", 1, true))
end)

T.test("constructor argument errors", function()
  T.raises("mgpu.array: t must be a table of numbers (got no value)", ctx.array, ctx)
  T.raises("mgpu.array: element 2 must be a number (got string)", ctx.array, ctx, { 1, "x" })
  T.raises("mgpu.array: unknown dtype 'int8'", ctx.array, ctx, { 1 }, "int8")
  T.raises("mgpu.zeros: n must not be negative (got -1)", ctx.zeros, ctx, -1)
  T.raises("mgpu.zeros: n must be an integer (got 1.5)", ctx.zeros, ctx, 1.5)
  T.raises("mgpu.zeros: n is missing", mgpu.zeros)
  T.raises("mgpu.iota: call it as a method, ctx:iota(...) (got 3 as self)", ctx.iota, 3)
  T.raises("mgpu.random: lo must not exceed hi (got 5 > 1)", ctx.random, ctx, 3, 5, 1)
  T.raises("mgpu.frombytes: 3 bytes is not a whole number of i32 elements",
    ctx.frombytes, ctx, "abc", "i32")
  -- 2^53: the limit on every backend (mgpu_context_max_count), past which
  -- n would not be exact as a LuaJIT number
  T.raises("mgpu.empty: n = 9007199254740993 is past the limit of 9007199254740992 elements",
    ctx.empty, ctx, 2ULL ^ 53 + 1)
  T.raises("is past the limit of 9007199254740992 elements",
    ctx.zeros, ctx, 2 ^ 63)
end)

T.done()
