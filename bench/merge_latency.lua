-- bench/merge_latency.lua [CALLS [ROUNDS]]: the cost of one small call from
-- Lua, under whichever interpreter runs it: Lua 5.4 (the C module
-- mgpu.core) or LuaJIT (the FFI binding mgpu.ffi over libmgpu.so).
--
-- mgpu.merge of two sorted 1,000-element i32 arrays with the result
-- dropped (so the collector frees results as it goes), on the default
-- context, CALLS calls (default 200,000) timed together with mgpu.clock();
-- the best of ROUNDS rounds (default 5) is reported as microseconds per
-- call; then the same with `out =` (no allocation).  One sync per round.
-- Last, both again with a sync after every call, each call timed (median
-- and p90 of 1,000).
--
-- Run from the repository root, with MGPU_DEVICE=cpu for the cpu backend:
--   LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='build/?.so;;' lua5.4 bench/merge_latency.lua
--   LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='build/?.so;;' luajit bench/merge_latency.lua
local mgpu = require "mgpu"

local CALLS = tonumber(arg and arg[1]) or 200000
local ROUNDS = tonumber(arg and arg[2]) or 5
local N = 1000

local ctx = mgpu.default_context()
local a = mgpu.sorted_random(N, -1000000, 1000000, "i32", 11)
local b = mgpu.sorted_random(N, -1000000, 1000000, "i32", 12)
local merge, clock = mgpu.merge, mgpu.clock

local r = merge(a, b)
assert(#r == 2 * N and r:is_sorted(), "merge_latency.lua: the merge is wrong")
r = nil
ctx:sync()

-- The best of ROUNDS rounds of CALLS calls of f, in microseconds a call.
local function best_of(f)
  local best = math.huge
  for _ = 1, ROUNDS do
    collectgarbage()
    local t0 = clock()
    for _ = 1, CALLS do f() end
    ctx:sync()
    best = math.min(best, clock() - t0)
  end
  return best / CALLS * 1e6
end

local interp = type(jit) == "table" and jit.version or _VERSION
local function report(what, us)
  print(string.format("%s, %s (%s): mgpu.merge 2x%d i32, %s: %.3f us/call "
    .. "(best of %d x %d calls)", interp, ctx.device, ctx:info().name, N,
    what, us, ROUNDS, CALLS))
end

report("result dropped", best_of(function() merge(a, b) end))
-- The same into one preallocated array: the call without an allocation
-- (nor the frees that the collector does for dropped results).
local opts = { out = mgpu.empty(2 * N, "i32") }
report("into out=", best_of(function() merge(a, b, opts) end))

-- With a sync after every call: what a script that needs each result at
-- once waits for (the launch, the kernel and the round trip to the host).
-- 100 warm-up calls, then 1,000 calls each timed; median and p90.
local function per_call(f)
  for _ = 1, 100 do f() end
  local t = {}
  for i = 1, 1000 do
    local t0 = clock(); f(); t[i] = (clock() - t0) * 1e6
  end
  table.sort(t)
  return t[500], t[900]
end
local sync = function() ctx:sync() end
for _, row in ipairs {
  { "result dropped, + sync", function() merge(a, b); sync() end },
  { "into out=, + sync", function() merge(a, b, opts); sync() end },
} do
  local median, p90 = per_call(row[2])
  print(string.format("%s, %s (%s): mgpu.merge 2x%d i32, %s: median %.2f us, "
    .. "p90 %.2f (1,000 calls each timed)", interp, ctx.device, ctx:info().name,
    N, row[1], median, p90))
end
