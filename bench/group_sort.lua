-- bench/group_sort.lua [OUT_DIR [EXPONENTS [REPS [SORTS]]]]: the
-- distributed sorts over every GPU (mgpu.group{}) against the same sort of
-- the whole array on one GPU, in the same run: mgpu.mergesort (rows
-- "keys", "pairs") and mgpu.sort, each shard sorted by radix (rows
-- "keys-sort", "pairs-sort"); SORTS (default "mergesort,sort") picks.
--
-- Keys i32 and pairs i32/i32 (values: the positions), uniform random over
-- the whole i32 range, n = 2^e for e in EXPONENTS (default "28,30").  The
-- data starts sharded (g:random) and ends sharded; the exchange and every
-- other step of the call are timed: the clock starts after every context
-- is synchronized and stops after every context is synchronized again.
-- New random data for every repetition (not timed); the median of REPS
-- (default 5) after one warm-up.  The one-GPU figure is skipped where the
-- whole array and its scratch do not fit on one GPU.
--
-- Appends rows to OUT_DIR/<date>-<device>-group.csv (default bench/results):
--   what,dtype,n,gpus,group_ms,one_gpu_ms,speedup,local_sort_ms,min_shard,max_shard,device,commit
-- local_sort_ms: the shards sorted each on its GPU at once, nothing else:
-- group_ms less it is the sampling, the exchange and the merge.
--
-- Run from the repository root:
--   LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='build/?.so;;' lua5.4 bench/group_sort.lua
local mgpu = require "mgpu"

local out_dir = arg and arg[1] or "bench/results"
local exps = {}
for e in ((arg and arg[2]) or "28,30"):gmatch("%d+") do exps[#exps + 1] = tonumber(e) end
local REPS = tonumber(arg and arg[3]) or 5
local SORTS = {}
for name in ((arg and arg[4]) or "mergesort,sort"):gmatch("%a+") do SORTS[#SORTS + 1] = name end
local commit = os.getenv("MGPU_COMMIT") or "unknown"

local g = mgpu.group()
local ctxs = g:contexts()
local p = #ctxs
local device = ctxs[1]:info().name
local function sync_all()
  for _, c in ipairs(ctxs) do c:sync() end
end

local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end

local LO, HI = -(1 << 31), (1 << 31) - 1

-- the median ms of REPS timed calls of sort(keys, vals) on fresh data
local function time_group(sort, n, pairs)
  local t, counts = {}, nil
  for rep = 0, REPS do
    local s = g:random(n, LO, HI, "i32", 1000 + rep)
    local v = pairs and g:iota(n, 0, 1, "i32") or nil
    sync_all()
    local t0 = mgpu.clock()
    sort(s, { values = v })
    sync_all()
    if rep > 0 then t[rep] = (mgpu.clock() - t0) * 1e3 end
    counts = s:counts()
    s, v = nil, nil
    collectgarbage()
  end
  local lo, hi = math.huge, 0
  for _, c in ipairs(counts) do lo, hi = math.min(lo, c), math.max(hi, c) end
  return median(t), lo, hi
end

-- the same data's shards each sorted on its own GPU, all at once, with no
-- exchange or merge: what the group call spends beyond it is its own
local function time_local(sort, n, pairs)
  local t = {}
  for rep = 0, REPS do
    local s = g:random(n, LO, HI, "i32", 1000 + rep)
    local v = pairs and g:iota(n, 0, 1, "i32") or nil
    local ks, vs = s:shards(), v and v:shards() or {}
    sync_all()
    local t0 = mgpu.clock()
    for k = 1, p do sort(ks[k], { values = vs[k] }) end
    sync_all()
    if rep > 0 then t[rep] = (mgpu.clock() - t0) * 1e3 end
    s, v, ks, vs = nil, nil, nil, nil
    collectgarbage()
  end
  return median(t)
end

local function time_one(sort, n, pairs)
  local ctx = ctxs[1]
  local t = {}
  for rep = 0, REPS do
    local ok, a = pcall(ctx.random, ctx, n, LO, HI, "i32", 1000 + rep)
    if not ok then return nil end
    local v = pairs and ctx:iota(n, 0, 1, "i32") or nil
    ctx:sync()
    local t0 = mgpu.clock()
    local done = pcall(sort, a, { values = v })
    ctx:sync()
    if not done then return nil end
    if rep > 0 then t[rep] = (mgpu.clock() - t0) * 1e3 end
    a, v = nil, nil
    collectgarbage()
  end
  return median(t)
end

local path = string.format("%s/%s-%s-group.csv", out_dir, os.date("%Y-%m-%d"),
  device:gsub("[^%w]+", "-"))
local f = io.open(path, "r")
local fresh = f == nil
if f then f:close() end
f = assert(io.open(path, "a"))
if fresh then
  f:write("what,dtype,n,gpus,group_ms,one_gpu_ms,speedup,local_sort_ms,min_shard,max_shard,device,commit\n")
end
for _, e in ipairs(exps) do
  local n = 1 << e
  for _, name in ipairs(SORTS) do
  local sort = assert(({ mergesort = mgpu.mergesort, sort = mgpu.sort })[name], name)
  for _, pairs in ipairs { false, true } do
    local what = (pairs and "pairs" or "keys") .. (name == "sort" and "-sort" or "")
    local gm, lo, hi = time_group(sort, n, pairs)
    local om = time_one(sort, n, pairs)
    local lm = time_local(sort, n, pairs)
    local row = string.format("%s,i32,%d,%d,%.3f,%s,%s,%.3f,%d,%d,%s,%s", what, n, p, gm,
      om and string.format("%.3f", om) or "", om and string.format("%.3f", om / gm) or "",
      lm, lo, hi, device, commit)
    print(row)
    f:write(row, "\n")
    f:flush()
  end
  end
end
f:close()
