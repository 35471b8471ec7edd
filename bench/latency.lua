-- bench/latency.lua [OUT_DIR]: the latency of one small call from Lua.
--
-- mgpu.merge of two sorted 1,000-element i32 arrays followed by ctx:sync(),
-- on the default context: 100 warm-up calls, then each of 1,000 calls timed
-- with mgpu.clock() (monotonic wall time, seconds).  Two forms: the plain
-- call (allocates its result) and the call with `out =` (no allocation).
-- Then set_union and set_intersection of the same arrays, and set_union
-- with values, each allocating its results; then merge, set_union and
-- set_union with values of two 50,000-element arrays (calls of a few
-- tiles).
-- Prints the median and p90 and appends rows to
-- OUT_DIR/<date>-<device>-latency.csv (header what,n,median_us,p90_us,device,commit).
--
-- Run from the repository root:
--   LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='build/?.so;;' lua5.4 bench/latency.lua bench/results

local mgpu = require("mgpu")

local out_dir = arg and arg[1] or "bench/results"
local WARMUP, CALLS, N = 100, 1000, 1000

if type(mgpu.clock) ~= "function" then
  io.stderr:write("latency.lua: mgpu.clock() is missing: it should return a monotonic wall time " ..
    "in seconds (float, ns resolution)\n")
  os.exit(1)
end
local clock = mgpu.clock

local ctx = mgpu.default_context()
local info = ctx:info()
local devname = info.name or ctx.device or "unknown"

local function sanitize(s)
  s = s:gsub("[^%w%._]+", "-"):gsub("^%-+", ""):gsub("%-+$", "")
  if s == "" then s = "device" end
  return s
end

-- The keys: sorted, overlapping ranges so that the merge interleaves.
local a = mgpu.sorted_random(N, -1000000, 1000000, "i32", 11)
local b = mgpu.sorted_random(N, -1000000, 1000000, "i32", 12)
local c = mgpu.empty(2 * N, "i32")
ctx:sync()

-- Each sample: one call and the sync, wall time in microseconds.
local function measure(call)
  for _ = 1, WARMUP do
    call()
    ctx:sync()
  end
  local t = {}
  for i = 1, CALLS do
    local t0 = clock()
    call()
    ctx:sync()
    t[i] = (clock() - t0) * 1e6
  end
  table.sort(t)
  local half = math.floor(CALLS / 2)
  local median = (t[half] + t[half + 1]) / 2
  local p90 = t[math.ceil(0.9 * CALLS)] -- nearest rank
  return median, p90
end

-- Values for the set operations of pairs (any data will do).
local av = mgpu.sorted_random(N, 0, 1000000, "i32", 13)
local bv = mgpu.sorted_random(N, 0, 1000000, "i32", 14)
ctx:sync()

local opts = { out = c }
local pairs_opts = { values = { av, bv } }
local cases = {
  { what = "lua_merge_2x1000_sync", label = "lua merge 2x1000 + sync",
    call = function() return mgpu.merge(a, b) end },
  { what = "lua_merge_2x1000_out_sync", label = "lua merge 2x1000 (out=) + sync",
    call = function() return mgpu.merge(a, b, opts) end },
  -- A set operation waits for its result's length inside the call, so the
  -- sync after it finds the stream nearly done.
  { what = "lua_set_union_2x1000_sync", label = "lua set_union 2x1000 + sync",
    call = function() return mgpu.set_union(a, b) end },
  { what = "lua_set_intersection_2x1000_sync", label = "lua set_intersection 2x1000 + sync",
    call = function() return mgpu.set_intersection(a, b) end },
  { what = "lua_set_union_pairs_2x1000_sync", label = "lua set_union of pairs 2x1000 + sync",
    call = function() return mgpu.set_union(a, b, pairs_opts) end },
}

-- Calls of a few tiles (2 x 50,000: a merge of 13 tiles, a union of keys
-- of 14 and of pairs of 26), which launch a partition before their tiles.
local M = 50000
local a2 = mgpu.sorted_random(M, -1000000, 1000000, "i32", 21)
local b2 = mgpu.sorted_random(M, -1000000, 1000000, "i32", 22)
local av2 = mgpu.sorted_random(M, 0, 1000000, "i32", 23)
local bv2 = mgpu.sorted_random(M, 0, 1000000, "i32", 24)
ctx:sync()
local pairs_opts2 = { values = { av2, bv2 } }
for _, cs in ipairs({
  { what = "lua_merge_2x50000_sync", label = "lua merge 2x50000 + sync",
    call = function() return mgpu.merge(a2, b2) end },
  { what = "lua_set_union_2x50000_sync", label = "lua set_union 2x50000 + sync",
    call = function() return mgpu.set_union(a2, b2) end },
  { what = "lua_set_union_pairs_2x50000_sync", label = "lua set_union of pairs 2x50000 + sync",
    call = function() return mgpu.set_union(a2, b2, pairs_opts2) end },
}) do
  cs.n = 2 * M
  cases[#cases + 1] = cs
end

-- Sanity check of the results (the benchmark times correct calls).
do
  local r = mgpu.merge(a, b)
  assert(#r == 2 * N and r:is_sorted(), "latency.lua: merge result is wrong")
  local u = mgpu.set_union(a, b)
  local x = mgpu.set_intersection(a, b)
  assert(#u + #x == 2 * N and u:is_sorted() and x:is_sorted(),
    "latency.lua: set operation results are wrong")
  local k, v = mgpu.set_union(a, b, pairs_opts)
  assert(#k == #u and #v == #u, "latency.lua: set_union of pairs is wrong")
  local u2 = mgpu.set_union(a2, b2)
  local x2 = mgpu.set_intersection(a2, b2)
  assert(#u2 + #x2 == 2 * M and u2:is_sorted(), "latency.lua: the 2x50000 union is wrong")
end

local date = os.date("%Y-%m-%d")
local commit = os.getenv("MGPU_COMMIT")
if not commit or commit == "" then commit = "unknown" end
commit = commit:gsub("[,\n\"]", "_")
local devcol = devname:gsub("[,\"]", " ")

local path = out_dir .. "/" .. date .. "-" .. sanitize(devname) .. "-latency.csv"
local exists = io.open(path, "r")
if exists then exists:close() end
local f, err = io.open(path, "a")
if not f then
  io.stderr:write("latency.lua: cannot write " .. tostring(path) .. ": " .. tostring(err) .. "\n")
  os.exit(1)
end
if not exists then f:write("what,n,median_us,p90_us,device,commit\n") end

for _, cs in ipairs(cases) do
  collectgarbage("collect")
  local median, p90 = measure(cs.call)
  print(string.format("%s: median %.1f us, p90 %.1f us (device %s, %s)", cs.label, median, p90,
    devname, ctx.device))
  f:write(string.format("%s,%d,%.2f,%.2f,%s,%s\n", cs.what, cs.n or 2 * N, median, p90, devcol,
    commit))
end
f:close()
print("latency csv: " .. path)
