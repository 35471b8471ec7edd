-- bench/segsort_radix.lua [N [L ...]]: segsort with long segments against
-- the radix sort doing the same job from Lua.
--
-- N random i32 keys (default 2^26) in segments of L keys (default 10^4,
-- 10^5, 10^6, 10^7; the last segment takes the rest).  segsort against two
-- stable radix sorts: the keys carrying their segment's index
-- (mgpu.load_balance of the lengths), then the indices carrying the keys.
-- Each timing copies the keys first (the copy alone is printed) and is the
-- median of 7, synchronized before and after; `same` says the two results
-- are byte for byte equal.  On the default context (MGPU_DEVICE).
--
-- Run from the repository root:
--   LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='build/?.so;;' lua5.4 bench/segsort_radix.lua
local mgpu = require "mgpu"
local n = math.tointeger(tonumber(arg[1]) or 2^26)
local Ls = {}
for i = 2, #arg do Ls[#Ls + 1] = math.tointeger(tonumber(arg[i])) end
if #Ls == 0 then Ls = { 10000, 100000, 1000000, 10000000 } end
local ctx = mgpu.default_context()
local reps = 7
local function time(f)
  local t = {}
  for r = 1, reps do
    ctx:sync(); collectgarbage()
    local t0 = mgpu.clock(); f(); ctx:sync(); t[r] = (mgpu.clock() - t0) * 1000
  end
  table.sort(t)
  return t[(reps + 1) // 2]
end
local src = mgpu.random(n, -2147483648, 2147483647, "i32", 7)
print(string.format("%s n=%d (ms, median of %d, each with a copy of the keys)", ctx:info().name, n, reps))
print(string.format("copy %.3f  sort %.3f  mergesort %.3f", time(function() local a = src:copy() end),
  time(function() local a = src:copy(); mgpu.sort(a) end),
  time(function() local a = src:copy(); mgpu.mergesort(a) end)))
for _, L in ipairs(Ls) do
  local nseg = (n + L - 1) // L
  local heads = mgpu.iota(nseg, 1, L, "i32")
  local counts = mgpu.fill(nseg, L, "i32")
  counts[nseg] = n - (nseg - 1) * L
  local seg = mgpu.load_balance(counts)
  local function radix()
    local k, s = src:copy(), seg:copy()
    mgpu.sort(k, { values = s })
    mgpu.sort(s, { values = k })
    return k
  end
  local function segs()
    local a = src:copy()
    mgpu.segsort(a, heads)
    return a
  end
  local same = radix():tobytes() == segs():tobytes()
  print(string.format("L=%d segments=%d  segsort %.3f  two radix sorts %.3f  same=%s",
    L, nseg, time(segs), time(radix), tostring(same)))
end
