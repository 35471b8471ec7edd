-- What a finalizer can do in the middle of a call, done at every point: a
-- line hook frees one of the call's arrays, or closes its context, at each
-- line of the binding that the call reaches (its first time there; a
-- run a line, for every argument of some thirty calls).  The call either
-- returns what it returns undisturbed or raises "... freed" / "... closed";
-- and once everything is dropped, the bytes the state's arrays hold and
-- the context's pool are back where they were (nothing freed twice, read
-- after its release, or kept).
local T = require "luajit.harness"
local ffi = require "ffi"
local mgpu = require "mgpu"

local binding = "@" .. package.searchpath("mgpu.ffi", package.path)
local Array = ffi.typeof(mgpu.context("cpu"):iota(1))

-- A call's results as plain values (arrays read back), inside the pcall:
-- an in-place result that was freed raises "freed" there.
local function plain(...)
  local out = { n = select("#", ...) }
  for i = 1, out.n do
    local v = select(i, ...)
    if ffi.istype(Array, v) then
      v = v:totable()
    end
    out[i] = v
  end
  return out
end

-- name -> function(c): the arrays a call takes (made on context c), and
-- the call.
local cases = {
  copy = function(c) local v = c:iota(100); return { v }, function() return v:copy() end end,
  slice = function(c) local v = c:iota(100); return { v }, function() return v:slice(3, 40) end end,
  totable = function(c) local v = c:iota(100); return { v }, function() return v:totable(2, 5) end end,
  tobytes = function(c) local v = c:iota(10); return { v }, function() return v:tobytes() end end,
  astype = function(c) local v = c:iota(100); return { v }, function() return v:astype("f64") end end,
  is_sorted = function(c) local v = c:iota(100); return { v }, function() return v:is_sorted() end end,
  fill = function(c) local v = c:iota(100); return { v }, function() return v:fill(3) end end,
  index = function(c) local v = c:iota(100); return { v }, function() return v[5] end end,
  merge = function(c)
    local a, b = c:iota(100), c:iota(60, 2, 3)
    local av, bv = c:iota(100, 1000), c:iota(60, 2000)
    return { a, b, av, bv }, function() return mgpu.merge(a, b, { values = { av, bv } }) end
  end,
  mergesort = function(c)
    local k, v = c:random(300, 0, 40, "i32", 7), c:iota(300)
    return { k, v }, function() return mgpu.mergesort(k, { values = v }) end
  end,
  sort = function(c)
    local k, v = c:random(300, 0, 40, "i32", 7), c:iota(300)
    return { k, v }, function() return mgpu.sort(k, { values = v, comp = "greater" }) end
  end,
  segsort = function(c)
    local k, v, h = c:random(300, 0, 40, "i32", 7), c:iota(300), c:array { 1, 90, 200 }
    return { k, v, h }, function() return mgpu.segsort(k, h, { values = v }) end
  end,
  locality_sort = function(c)
    local k = c:random(300, 0, 40, "i32", 7)
    return { k }, function() return mgpu.locality_sort(k) end
  end,
  set_union = function(c)
    local a, b = c:iota(100), c:iota(60, 1, 3)
    return { a, b }, function() return mgpu.set_union(a, b) end
  end,
  set_intersection = function(c)
    local a, b = c:iota(100), c:iota(60, 1, 3)
    local av, bv = c:iota(100, 500), c:iota(60, 900)
    return { a, b, av, bv }, function()
      return mgpu.set_intersection(a, b, { values = { av, bv } })
    end
  end,
  bulk_remove = function(c)
    local d, i = c:iota(100), c:array { 2, 5, 9 }
    return { d, i }, function() return mgpu.bulk_remove(d, i) end
  end,
  bulk_insert = function(c)
    local d, p, v = c:iota(100), c:array { 1, 3, 3 }, c:array { 7, 8, 9 }
    return { d, p, v }, function() return mgpu.bulk_insert(d, p, v) end
  end,
  interval_expand = function(c)
    local v, n = c:iota(3), c:array { 1, 0, 3 }
    return { v, n }, function() return mgpu.interval_expand(v, n) end
  end,
  interval_gather = function(c)
    local x, g, n = c:iota(50), c:array { 5, 1, 30 }, c:array { 2, 0, 4 }
    return { x, g, n }, function() return mgpu.interval_gather(x, g, n) end
  end,
  interval_scatter = function(c)
    local x, s, n = c:iota(6), c:array { 5, 1, 20 }, c:array { 2, 0, 4 }
    return { x, s, n }, function() return mgpu.interval_scatter(x, s, n) end
  end,
  interval_move = function(c)
    local x, g, s, n = c:iota(50), c:array { 5, 1, 30 }, c:array { 5, 1, 20 }, c:array { 2, 0, 4 }
    return { x, g, s, n }, function() return mgpu.interval_move(x, g, s, n) end
  end,
  load_balance = function(c)
    local n = c:array { 2, 0, 3 }
    return { n }, function() return mgpu.load_balance(n) end
  end,
  scan = function(c) local v = c:iota(100); return { v }, function() return mgpu.scan(v) end end,
  reduce = function(c) local v = c:iota(100); return { v }, function() return mgpu.reduce(v, "max") end end,
  sorted_search = function(c)
    local n, h = c:iota(30, 1, 3), c:iota(100)
    return { n, h }, function() return mgpu.sorted_search(n, h, { side = "right" }) end
  end,
  unique = function(c)
    local k, v = c:array { 1, 1, 2, 3, 3, 3, 7 }, c:iota(7)
    return { k, v }, function() return mgpu.unique(k, { values = v, counts = true }) end
  end,
  compact = function(c)
    local d, f, v = c:iota(9), c:array { 1, 0, 0, 1, 1, 0, 1, 0, 1 }, c:iota(9, 100)
    return { d, f, v }, function() return mgpu.compact(d, f, { values = v }) end
  end,
  reduce_by_key = function(c)
    local k, v = c:array { 1, 1, 2, 3, 3, 3, 7 }, c:iota(7)
    return { k, v }, function() return mgpu.reduce_by_key(k, v) end
  end,
  segreduce = function(c)
    local v, o = c:iota(20), c:array { 1, 4, 4, 11 }
    return { v, o }, function() return mgpu.segreduce(v, o, { op = "max", identity = -1 }) end
  end,
  join = function(c)
    local a, b = c:array { 1, 2, 2, 4, 6 }, c:array { 2, 2, 3, 4, 7 }
    return { a, b }, function() return mgpu.join(a, b, { kind = "outer" }) end
  end,
}

local names = {}
for name in pairs(cases) do names[#names + 1] = name end
table.sort(names)

-- Runs f under a line hook on the binding's lines: act() runs at the
-- at-th of them.  Third result: the steps at which f reaches a line of
-- the binding for the first time (a loop's later turns add nothing).
local function run_hooked(f, at, act)
  local seen, firsts, lines = 0, {}, {}
  debug.sethook(function(_, line)
    if debug.getinfo(2, "S").source == binding then
      seen = seen + 1
      if seen == at then act() end
      if not lines[line] then
        lines[line] = true
        firsts[#firsts + 1] = seen
      end
    end
  end, "l")
  local ok, r = pcall(function() return plain(f()) end)
  debug.sethook()
  return ok, r, firsts
end

local function settled(c)
  collectgarbage()
  collectgarbage()
  c:sync() -- a call into mgpu from outside a call: deferred releases go
  return mgpu.memory().live, c:info().in_use
end

-- hooks do not run in compiled code
jit.flush()
jit.off()

T.test("a:free() of each argument at each line of each call", function()
  local c = mgpu.context { device = T.device }
  local runs = 0
  for _, name in ipairs(names) do
    local _, f = cases[name](c)
    local want = plain(f())
    local _, _, steps = run_hooked(select(2, cases[name](c)))
    T.ok(#steps > 3, name .. ": " .. #steps .. " lines")
    local arrays = cases[name](c)
    for victim = 1, #arrays do
      arrays, f = nil, nil
      local live, in_use = settled(c)
      for _, k in ipairs(steps) do
        local args
        args, f = cases[name](c)
        local ok, r = run_hooked(f, k, function() args[victim]:free() end)
        local what = name .. ", argument " .. victim .. " freed at step " .. k
        if ok then
          T.eq(r, want, what)
        else
          T.ok(tostring(r):find("freed", 1, true), what .. ": " .. tostring(r))
        end
        args, f, r = nil, nil, nil
        runs = runs + 1
      end
      local live2, in_use2 = settled(c)
      local what = name .. ", argument " .. victim .. " freed at each line"
      T.eq(live2, live, what .. ": bytes the arrays hold")
      T.eq(in_use2, in_use, what .. ": bytes in use")
    end
  end
  T.ok(runs > 500, runs .. " runs")
  print(runs .. " runs with an argument freed")
end)

T.test("ctx:close() at each line of each call", function()
  local home = mgpu.context { device = T.device }
  local runs = 0
  for _, name in ipairs(names) do
    local _, f = cases[name](home)
    local want = plain(f())
    local _, _, steps = run_hooked(f)
    f = nil
    local live = settled(home)
    -- a context a run: on a GPU (a stream, a pool, pinned memory each)
    -- every fourth line
    local stride = T.device == "cpu" and 1 or 4
    for i = 1, #steps, stride do
      local k = steps[i]
      local c = mgpu.context { device = T.device }
      local args
      args, f = cases[name](c)
      local ok, r = run_hooked(f, k, function() c:close() end)
      local what = name .. ", context closed at step " .. k
      if ok then
        T.eq(r, want, what)
      else
        T.ok(tostring(r):find("closed", 1, true), what .. ": " .. tostring(r))
      end
      c:close()
      c, args, f, r = nil, nil, nil, nil
      runs = runs + 1
    end
    T.eq(settled(home), live, name .. ", context closed at each line: bytes the arrays hold")
  end
  T.ok(runs > (T.device == "cpu" and 300 or 75), runs .. " runs")
  print(runs .. " runs with the context closed")
end)

-- Under LuaJIT an error in a finalizer propagates from the allocation
-- that ran it.  With the collector stopped, the Lua heap grows between
-- two of the hook's calls only where the binding allocated (or ran the
-- collector itself): there, the error is raised as the next line starts.
local function run_failing(f, at)
  local seen, firsts, lines, last = 0, {}, {}, nil
  collectgarbage("stop")
  debug.sethook(function(_, line)
    local now = collectgarbage("count")
    if debug.getinfo(2, "S").source == binding then
      if last and now ~= last then
        seen = seen + 1
        if seen == at then
          debug.sethook()
          collectgarbage("restart")
          error("finalizer failed", 0)
        end
        if not lines[line] then
          lines[line] = true
          firsts[#firsts + 1] = seen
        end
      end
    end
    last = collectgarbage("count")
  end, "l")
  local ok, r = pcall(function() return plain(f()) end)
  debug.sethook()
  collectgarbage("restart")
  return ok, r, firsts
end

T.test("an error after each allocation of each call", function()
  local c = mgpu.context { device = T.device }
  local runs = 0
  for _, name in ipairs(names) do
    local _, f = cases[name](c)
    local _, _, steps = run_failing(f)
    f = nil
    local live, in_use = settled(c)
    for _, k in ipairs(steps) do
      local args
      args, f = cases[name](c)
      local ok, r = run_failing(f, k)
      T.ok(not ok and r == "finalizer failed",
        name .. ", error at allocation " .. k .. ": " .. tostring(r))
      -- the arguments still work
      for i, a in ipairs(args) do
        T.eq(#a:totable(), #a, name .. ", error at allocation " .. k .. ": argument " .. i)
      end
      args, f, r = nil, nil, nil
      runs = runs + 1
    end
    local live2, in_use2 = settled(c)
    T.eq(live2, live, name .. ", an error after each allocation: bytes the arrays hold")
    T.eq(in_use2, in_use, name .. ", an error after each allocation: bytes in use")
  end
  T.ok(runs > 100, runs .. " runs")
  print(runs .. " runs with an error")
end)

T.test("an error after each allocation of the sharded sorts and merge", function()
  -- (cpu contexts: a group of cuda contexts needs distinct devices)
  local g = mgpu.group { devices = { "cpu", "cpu" } }
  local c = g:contexts()[1]
  local group_cases = {
    mergesort = function()
      local s, v = g:random(500, 0, 30, "i32", 3), g:iota(500)
      return function() return mgpu.mergesort(s, { values = v }) end
    end,
    sort = function()
      local s, v = g:random(500, 0, 30, "i32", 3), g:iota(500)
      return function() return mgpu.sort(s, { values = v, comp = "greater" }) end
    end,
    merge = function()
      local a, b = g:shard(c:iota(300):totable()), g:shard(c:iota(200, 2, 2):totable())
      local av, bv = g:iota(300), g:iota(200)
      return function() return mgpu.merge(a, b, { values = { av, bv } }) end
    end,
  }
  local runs = 0
  for name, make in pairs(group_cases) do
    local _, _, steps = run_failing(make())
    local live = settled(c)
    for _, k in ipairs(steps) do
      local ok, r = run_failing(make(), k)
      T.ok(not ok and r == "finalizer failed",
        name .. ", error at allocation " .. k .. ": " .. tostring(r))
      runs = runs + 1
    end
    T.eq(settled(c), live, name .. ", an error after each allocation: bytes the arrays hold")
  end
  T.ok(runs > 20, runs .. " runs")
end)

T.test("an error while an array prints is raised, not taken for a free", function()
  local v = mgpu.context({ device = T.device }):iota(3)
  -- the second line of the binding that tostring reaches: __len, inside
  -- the printer's check for a freed array
  local seen = 0
  debug.sethook(function()
    if debug.getinfo(2, "S").source == binding then
      seen = seen + 1
      if seen == 2 then
        debug.sethook()
        error("finalizer failed", 0)
      end
    end
  end, "l")
  local ok, r = pcall(tostring, v)
  debug.sethook()
  T.ok(not ok and r == "finalizer failed", tostring(r))
  T.ok(tostring(v):find("^mgpu%.array<i32>%[3%]"), tostring(v))
end)

jit.on()
T.done()
