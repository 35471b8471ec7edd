-- bench/gc.lua: what a script gets when it drops mgpu results to Lua's collector.
--
-- An mgpu.array is a userdata of a few bytes holding up to gigabytes of
-- device (or host) memory.  A script that writes
--
--   for i = 1, calls do local r = mgpu.merge(a, b) end
--
-- leaves `calls` dead results behind; unless the collector is told about
-- the memory they hold, it sees almost no Lua allocation, rarely runs, and
-- the garbage piles up in the pool until an allocation fails.  For every
-- primitive this compares that idiomatic loop ("dropped") with the same
-- loop calling r:free() after each call ("freed"), and reports the memory
-- the context holds after the dropped loops against the live working set.
--
-- Usage, from the repository root:
--   LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='build/?.so;;' lua5.4 bench/gc.lua \
--     [--device cuda|cuda:N|cpu] [--sizes 24,26] [--calls 30] [--reps 5] \
--     [--csv FILE] [--only merge,mergesort,...] [--list]
--   ... lua5.4 bench/gc.lua --rss [--iters 5000] [--csv FILE]
--
-- Targets (the issue): on the GPU, for every primitive at 2^24 and 2^26,
-- ms/call dropped <= 1.10 x ms/call freed and the pool's reserved bytes
-- after the dropped loops <= 3 x the live working set; on the cpu backend,
-- the peak RSS of 5,000 dropped 1 MB arrays under 200 MB (--rss).
-- Method and columns: bench/README.md, section "bench/gc.lua".

local mgpu = require("mgpu")

local MB = 1 << 20
local DTYPE = "i32"
local SIZEOF = { i32 = 4, u32 = 4, f32 = 4, i64 = 8, u64 = 8, f64 = 8 }
local TARGET_RATIO, TARGET_HELD, TARGET_RSS = 1.10, 3.0, 200 * MB

local function die(msg)
  io.stderr:write("gc.lua: " .. msg .. "\n")
  os.exit(1)
end

if type(mgpu.clock) ~= "function" then die("mgpu.clock() is missing") end
local clock = mgpu.clock

---------------------------------------------------------------------------
-- The cases.  prep(ctx, n) makes the inputs on ctx (once per size: the live
-- set) and returns them with `run`, one idiomatic call returning its new
-- arrays; check(results...) is an untimed sanity check of one call.  Option
-- tables are built once, outside the loops, so that the only garbage the
-- loops make is the arrays (an inline `{values = ...}` would also make Lua
-- garbage, which paces the collector and so blurs what is measured).
-- The sorts work in place: an idiomatic script sorts a copy of data it
-- keeps (`local k = a:copy(); mgpu.mergesort(k)`), and that copy is the
-- garbage; its time is part of both loops.
---------------------------------------------------------------------------

-- Sorted inputs of the merges and set operations: two halves of n keys.
-- Set operations draw from a range of n/(2 ln 2) keys so that about half
-- the keys match (as bench.cu does), centred on 0 so that it fits i32 up to
-- n = 2^32; the merges draw from [0, INT32_MAX].
local function two_sorted(ctx, n, lo, hi, seed)
  return ctx:sorted_random(n // 2, lo, hi, DTYPE, seed),
         ctx:sorted_random(n - n // 2, lo, hi, DTYPE, seed + 1)
end
local I32_MAX = 0x7fffffff
local function setop_range(n)
  local w = math.max(1, math.floor(n / (2 * math.log(2))))
  return -(w // 2), w - w // 2
end

local function sorted_check(r) return r:is_sorted() end

-- Index arrays (heads, indices, positions) hold values up to n: i64 past
-- INT32_MAX, as the index dtype rule would choose.
local function index_dtype(n) return n > I32_MAX and "i64" or DTYPE end

-- A whole-array sort of random keys, as a script sorts a copy it keeps.
local function sort_case(name, sort)
  return {
    name = name,
    prep = function(ctx, n)
      local keys = ctx:random(n, -I32_MAX, I32_MAX, DTYPE, 5)
      return { keys }, function()
        local k = keys:copy()
        sort(k)
        return k
      end
    end,
    check = sorted_check,
  }
end

local function merge_case(name, pairs_)
  return {
    name = name,
    prep = function(ctx, n)
      local a, b = two_sorted(ctx, n, 0, I32_MAX, 1)
      if not pairs_ then
        return { a, b }, function() return mgpu.merge(a, b) end
      end
      local av, bv = ctx:iota(#a, 0, 1, DTYPE), ctx:iota(#b, #a, 1, DTYPE)
      local opts = { values = { av, bv } }
      return { a, b, av, bv }, function() return mgpu.merge(a, b, opts) end
    end,
    check = sorted_check,
  }
end

local function setop_case(name, op, pairs_)
  local f = mgpu[op]
  return {
    name = name,
    prep = function(ctx, n)
      local lo, hi = setop_range(n)
      local a, b = two_sorted(ctx, n, lo, hi, 3)
      if not pairs_ then
        return { a, b }, function() return f(a, b) end
      end
      local av, bv = ctx:iota(#a, 0, 1, DTYPE), ctx:iota(#b, #a, 1, DTYPE)
      local opts = { values = { av, bv } }
      return { a, b, av, bv }, function() return f(a, b, opts) end
    end,
    check = function(k, v) return k:is_sorted() and (v == nil or #v == #k) end,
  }
end

-- `count` intervals of length 5 tiling an n-element input in reverse order
-- (gather), written in order (scatter): an interval_gather/move that reads
-- and writes every element once.
local function tiled_intervals(ctx, n)
  local m = n // 5
  return m, ctx:iota(m, 1 + 5 * (m - 1), -5, DTYPE), ctx:iota(m, 1, 5, DTYPE),
         ctx:fill(m, 5, DTYPE)
end

local CASES = {
  merge_case("merge", false),
  merge_case("merge_pairs", true),
  sort_case("mergesort", mgpu.mergesort),
  sort_case("sort", mgpu.sort),
  {
    -- Random keys in segments of 300 (heads are 1-based segment starts).
    name = "segsort",
    prep = function(ctx, n)
      local keys = ctx:random(n, -I32_MAX, I32_MAX, DTYPE, 6)
      local heads = ctx:iota((n + 299) // 300, 1, 300, index_dtype(n))
      return { keys, heads }, function()
        local k = keys:copy()
        mgpu.segsort(k, heads)
        return k
      end
    end,
    check = function(k) return #k > 0 end,
  },
  {
    -- Nearly sorted keys: 1..n with every run of 16 reversed, so each key
    -- starts within 15 places of where it belongs.
    name = "locality_sort",
    prep = function(ctx, n)
      local keys = ctx:iota(n, 1, 1, DTYPE)
      local runs = ctx:iota((n + 15) // 16, 1, 16, DTYPE)
      mgpu.segsort(keys, runs, { comp = "greater" })
      runs:free()
      return { keys }, function()
        local k = keys:copy()
        mgpu.locality_sort(k)
        return k
      end
    end,
    check = sorted_check,
  },
  setop_case("set_union", "set_union", false),
  setop_case("set_union_pairs", "set_union", true),
  setop_case("set_intersection", "set_intersection", false),
  setop_case("set_intersection_pairs", "set_intersection", true),
  {
    -- Every third element removed (the indices' pattern hardly matters to
    -- what is measured here: the result is n - n/3 elements either way).
    name = "bulk_remove",
    prep = function(ctx, n)
      local data = ctx:random(n, -I32_MAX, I32_MAX, DTYPE, 7)
      local indices = ctx:iota(n // 3, 1, 3, index_dtype(n))
      return { data, indices }, function() return mgpu.bulk_remove(data, indices) end
    end,
    check = function(r, _) return r ~= nil end,
  },
  {
    -- n/4 values inserted at sorted random positions (repeats allowed).
    name = "bulk_insert",
    prep = function(ctx, n)
      local data = ctx:random(n, -I32_MAX, I32_MAX, DTYPE, 8)
      local positions = ctx:sorted_random(n // 4, 1, n + 1, index_dtype(n), 9)
      local values = ctx:random(n // 4, -I32_MAX, I32_MAX, DTYPE, 10)
      return { data, positions, values },
             function() return mgpu.bulk_insert(data, positions, values) end
    end,
    check = function(r) return r ~= nil end,
  },
  {
    -- n/5 values, counts uniform in 0..10 (mean 5): about n outputs.
    name = "interval_expand",
    prep = function(ctx, n)
      local values = ctx:random(n // 5, -I32_MAX, I32_MAX, DTYPE, 11)
      local counts = ctx:random(n // 5, 0, 10, DTYPE, 12)
      return { values, counts }, function() return mgpu.interval_expand(values, counts) end
    end,
    check = function(r) return r ~= nil end,
  },
  {
    name = "interval_gather",
    prep = function(ctx, n)
      local input = ctx:random(n, -I32_MAX, I32_MAX, DTYPE, 13)
      local _, gather, scatter, counts = tiled_intervals(ctx, n)
      scatter:free()
      return { input, gather, counts },
             function() return mgpu.interval_gather(input, gather, counts) end
    end,
    check = function(r) return r ~= nil end,
  },
  {
    name = "interval_move",
    prep = function(ctx, n)
      local input = ctx:random(n, -I32_MAX, I32_MAX, DTYPE, 14)
      local _, gather, scatter, counts = tiled_intervals(ctx, n)
      return { input, gather, scatter, counts },
             function() return mgpu.interval_move(input, gather, scatter, counts) end
    end,
    check = function(r) return r ~= nil end,
  },
  {
    -- The same counts as interval_expand: about n i32 outputs.
    name = "load_balance",
    prep = function(ctx, n)
      local counts = ctx:random(n // 5, 0, 10, DTYPE, 12)
      return { counts }, function() return mgpu.load_balance(counts) end
    end,
    check = sorted_check,
  },
  {
    name = "astype",
    prep = function(ctx, n)
      local a = ctx:random(n, -I32_MAX, I32_MAX, DTYPE, 15)
      return { a }, function() return a:astype("f32") end
    end,
    check = function(r) return r.dtype == "f32" end,
  },
  {
    name = "copy",
    prep = function(ctx, n)
      local a = ctx:random(n, -I32_MAX, I32_MAX, DTYPE, 16)
      return { a }, function() return a:copy() end
    end,
    check = function(r) return r ~= nil end,
  },
}

---------------------------------------------------------------------------
-- Arguments
---------------------------------------------------------------------------

local USAGE = [[
usage: lua5.4 bench/gc.lua [--device cuda|cuda:N|cpu] [--sizes 24,26] [--calls 30]
                           [--reps 5] [--csv FILE] [--only NAME,...] [--list]
       lua5.4 bench/gc.lua --rss [--iters 5000] [--csv FILE]
  --sizes: log2 of n (a value of 64 or more is n itself)]]

local opt = { sizes = { 24, 26 }, calls = 30, reps = 5, iters = 5000 }
do
  local i = 1
  local function value(name)
    i = i + 1
    if arg[i] == nil then die(name .. " needs a value\n" .. USAGE) end
    return arg[i]
  end
  local function count(name, s)
    local v = math.tointeger(tonumber(s))
    if not v or v < 1 then die(name .. " must be a positive integer (got " .. s .. ")") end
    return v
  end
  while arg[i] do
    local a = arg[i]
    if a == "--device" then opt.device = value(a)
    elseif a == "--sizes" then
      opt.sizes = {}
      for s in value(a):gmatch("[^,]+") do opt.sizes[#opt.sizes + 1] = count(a, s) end
    elseif a == "--calls" then opt.calls = count(a, value(a))
    elseif a == "--reps" then opt.reps = count(a, value(a))
    elseif a == "--iters" then opt.iters = count(a, value(a))
    elseif a == "--csv" then opt.csv = value(a)
    elseif a == "--only" then
      opt.only = {}
      for s in value(a):gmatch("[^,]+") do opt.only[s] = true end
    elseif a == "--list" then opt.list = true
    elseif a == "--rss" then opt.rss = true
    elseif a == "--rss-child" then opt.rss_child = value(a) -- internal: one RSS loop
    elseif a == "--help" or a == "-h" then print(USAGE) os.exit(0)
    else die("unknown argument '" .. a .. "'\n" .. USAGE) end
    i = i + 1
  end
end

local function csv_field(s) return (tostring(s):gsub("[,\"\n]", " ")) end

local function open_csv(header)
  if not opt.csv then return nil end
  local f, err = io.open(opt.csv, "w")
  if not f then die("cannot write " .. opt.csv .. ": " .. tostring(err)) end
  f:write(header, "\n")
  return f
end

---------------------------------------------------------------------------
-- --rss: peak RSS of 5,000 dropped 1 MB arrays on the cpu backend.
-- VmHWM is the peak over the process's whole life, so each loop runs in a
-- fresh process (this script again, with --rss-child) and reads it at the
-- end; the loop itself reads nothing (reading /proc would make Lua garbage
-- and pace the collector).  Three loops: the issue's `ctx:empty` with one
-- element set (the allocator gives untouched pages, so RSS barely sees the
-- garbage even when it piles up); `ctx:zeros`, whose every page is
-- written; and `a:copy()`, a primitive's result.
---------------------------------------------------------------------------

local RSS_LOOPS = { "empty", "zeros", "copy" }
local RSS_N = MB // SIZEOF[DTYPE] -- 1 MB of i32

local function proc_status_kb(field)
  local f = io.open("/proc/self/status", "r")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  local v = s:match("\n" .. field .. ":%s*(%d+) kB")
  return v and tonumber(v)
end

if opt.rss_child then
  local loop = opt.rss_child
  -- Never the default context: on a CUDA build it would start the CUDA
  -- runtime, whose mappings alone add to RSS.
  local ctx = mgpu.context { device = "cpu" }
  local src = ctx:zeros(RSS_N, DTYPE)
  local base = proc_status_kb("VmRSS")
  if not base then die("--rss needs /proc/self/status (Linux)") end
  local iters = opt.iters
  local t0 = clock()
  if loop == "empty" then
    for i = 1, iters do local a = ctx:empty(RSS_N, DTYPE); a[1] = i end
  elseif loop == "zeros" then
    for i = 1, iters do local a = ctx:zeros(RSS_N, DTYPE); a[1] = i end
  elseif loop == "copy" then
    for i = 1, iters do local a = src:copy(); a[1] = i end
  else
    die("unknown --rss-child loop '" .. loop .. "'")
  end
  local secs = clock() - t0
  local hwm = proc_status_kb("VmHWM")
  -- Read after the peak: the bytes still held by arrays, dead ones included.
  print(string.format("rss-child %s %d %d %d %.6f %d", loop, iters, base, hwm, secs,
    ctx:info().in_use))
  os.exit(0)
end

if opt.rss then
  -- The interpreter and its options are arg[-k .. -1]; the script is arg[0].
  local lo = -1
  while arg[lo - 1] do lo = lo - 1 end
  local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
  local cmd = {}
  for k = lo, 0 do cmd[#cmd + 1] = q(arg[k]) end
  cmd = table.concat(cmd, " ")

  local f = open_csv("device,name,n,dtype,iterations,ms_per_iter,baseline_rss_bytes," ..
    "peak_rss_bytes,target_bytes,target_met,in_use_end_bytes")
  print(string.format("cpu backend: %d dropped arrays of %d x %s (1 MB) per loop, each loop in " ..
    "a fresh process; target: peak RSS < %d MB", opt.iters, RSS_N, DTYPE, TARGET_RSS // MB))
  print(string.format("%-26s %10s %12s %12s %14s  %s", "loop", "us/iter", "base RSS MB",
    "peak RSS MB", "in_use MB end", "target"))
  local all_met = true
  for _, loop in ipairs(RSS_LOOPS) do
    local p = io.popen(cmd .. " --rss-child " .. loop .. " --iters " .. opt.iters, "r")
    local out = p:read("a")
    local ok = p:close()
    local name, iters, base, hwm, secs, in_use =
      out:match("rss%-child (%S+) (%d+) (%d+) (%d+) (%S+) (%d+)")
    if not ok or not name then die("the --rss-child " .. loop .. " run failed:\n" .. out) end
    base, hwm = tonumber(base) * 1024, tonumber(hwm) * 1024
    local met = hwm < TARGET_RSS
    all_met = all_met and met
    local label = ({ empty = "ctx:empty(1 MB); a[1]=i", zeros = "ctx:zeros(1 MB); a[1]=i",
      copy = "src:copy(); a[1]=i" })[loop]
    print(string.format("%-26s %10.1f %12.1f %12.1f %14.1f  %s", label, secs / iters * 1e6,
      base / MB, hwm / MB, tonumber(in_use) / MB, met and "met" or "MISSED"))
    if f then
      f:write(string.format("cpu,rss_%s,%d,%s,%d,%.6f,%d,%d,%d,%s,%s\n", loop, RSS_N, DTYPE,
        iters, secs / iters * 1e3, base, hwm, TARGET_RSS, met and "yes" or "no", in_use))
    end
  end
  if f then f:close() print("csv: " .. opt.csv) end
  print(all_met and "all loops under the target" or "some loop over the target")
  os.exit(0)
end

---------------------------------------------------------------------------
-- Timing mode
---------------------------------------------------------------------------

if opt.list then
  for _, c in ipairs(CASES) do print(c.name) end
  os.exit(0)
end

local selected = {}
do
  local known = {}
  for _, c in ipairs(CASES) do
    known[c.name] = true
    if not opt.only or opt.only[c.name] then selected[#selected + 1] = c end
  end
  for name in pairs(opt.only or {}) do
    if not known[name] then die("unknown primitive '" .. name .. "' (--list shows them)") end
  end
end

if not opt.device then
  local devs = mgpu.devices()
  opt.device = devs[1]:match("^cuda") and "cuda" or "cpu"
end

local function array_bytes(list)
  local s = 0
  for _, a in ipairs(list) do s = s + #a * SIZEOF[a.dtype] end
  return s
end

local function median(t)
  local s = {}
  for i, v in ipairs(t) do s[i] = v end
  table.sort(s)
  local m = #s
  return m % 2 == 1 and s[(m + 1) // 2] or (s[m // 2] + s[m // 2 + 1]) / 2
end

-- (a): the idiomatic loop.  Its results go out of scope at the end of each
-- iteration; what happens to them is up to the collector and the binding.
local function loop_dropped(run, calls)
  for _ = 1, calls do
    local r, rv = run() -- luacheck: ignore (dropped on purpose)
  end
end

-- (b): the same loop with explicit frees: the baseline the target compares with.
local function loop_freed(run, calls)
  for _ = 1, calls do
    local r, rv = run()
    r:free()
    if rv then rv:free() end
  end
end

-- ms per call of one loop: the device is idle at the start, and the loop's
-- queued work is waited for at the end.
local function time_loop(ctx, loop, run, calls)
  ctx:sync()
  local t0 = clock()
  loop(run, calls)
  ctx:sync()
  return (clock() - t0) / calls * 1e3
end

local function full_collect()
  -- Three cycles: arrays are finalised in the first, and a context they
  -- kept alive only becomes garbage afterwards.
  for _ = 1, 3 do collectgarbage("collect") end
end

-- One primitive at one size.  A fresh context per case: its pool starts
-- empty (a pool only ever grows; Lua cannot trim it), so the reserved bytes
-- read after the dropped loops belong to this case alone.
local function run_case(case, n)
  full_collect()
  local ctx = mgpu.context { device = opt.device }
  local inputs, run = case.prep(ctx, n)
  ctx:sync()

  -- One untimed call: a sanity check, and the size of one result.
  local r, rv = run()
  if not case.check(r, rv) then die(case.name .. ": the result of one call is wrong") end
  local live = array_bytes(inputs) + array_bytes({ r, rv })
  r:free()
  if rv then rv:free() end

  -- Warm-up (untimed): the pool, caches and code paths of both loops.
  loop_dropped(run, opt.calls)
  loop_freed(run, opt.calls)

  -- Reps alternate (a) and (b).  No collection between them: a script
  -- does not collect, so the dropped loops run amid whatever garbage the
  -- earlier ones left, as they would in a script that loops again.
  local dropped, freed = {}, {}
  local reserved, in_use = 0, 0
  for rep = 1, opt.reps do
    dropped[rep] = time_loop(ctx, loop_dropped, run, opt.calls)
    local info = ctx:info()
    reserved = math.max(reserved, info.pool_reserved or 0)
    in_use = math.max(in_use, info.in_use or 0)
    freed[rep] = time_loop(ctx, loop_freed, run, opt.calls)
  end

  local backend = ctx.backend
  for _, a in ipairs(inputs) do a:free() end
  inputs, run, ctx = nil, nil, nil
  full_collect()

  local ms_d, ms_f = median(dropped), median(freed)
  -- The cpu backend has no pool (pool_reserved is 0): what it holds is
  -- in_use, the bytes of arrays not yet released, dead ones included.
  local held = backend == "cpu" and in_use or reserved
  return {
    ms_dropped = ms_d, ms_freed = ms_f, ratio = ms_d / ms_f,
    reserved = held, in_use = in_use, live = live, held_over_live = held / live,
  }
end

local probe = mgpu.context { device = opt.device }
local info = probe:info()
local devname = info.name or opt.device
local is_cpu = probe.backend == "cpu"
probe = nil -- luacheck: ignore

print(string.format("%s (%s), %s, %d calls per loop, median of %d reps; targets: dropped <= %.2fx " ..
  "freed, %s <= %gx live", devname, opt.device, DTYPE, opt.calls, opt.reps, TARGET_RATIO,
  is_cpu and "in_use (cpu: no pool)" or "pool reserved", TARGET_HELD))
local held_label = is_cpu and "in_use MB" or "reserved MB"
local row_fmt = "%-23s %6s %11s %11s %7s %12s %10s %8s  %s"
print(string.format(row_fmt, "primitive", "n", "ms dropped", "ms freed", "ratio", held_label,
  "live MB", "held/live", "target"))

local f = open_csv("device,name,n,dtype,ms_dropped,ms_freed,ratio,reserved_bytes,live_bytes," ..
  "reserved_over_live,target_met,in_use_bytes")
local missed = 0
for _, size in ipairs(opt.sizes) do
  local n = size >= 64 and size or 1 << size
  local nlabel = size >= 64 and tostring(n) or ("2^" .. size)
  for _, case in ipairs(selected) do
    local res = run_case(case, n)
    local met = res.ratio <= TARGET_RATIO and res.held_over_live <= TARGET_HELD
    if not met then missed = missed + 1 end
    print(string.format(row_fmt, case.name, nlabel, string.format("%.4f", res.ms_dropped),
      string.format("%.4f", res.ms_freed), string.format("%.2f", res.ratio),
      string.format("%.1f", res.reserved / MB), string.format("%.1f", res.live / MB),
      string.format("%.1f", res.held_over_live), met and "met" or "MISSED"))
    io.stdout:flush()
    if f then
      f:write(string.format("%s,%s,%d,%s,%.6f,%.6f,%.4f,%d,%d,%.4f,%s,%d\n", csv_field(devname),
        case.name, n, DTYPE, res.ms_dropped, res.ms_freed, res.ratio, res.reserved, res.live,
        res.held_over_live, met and "yes" or "no", res.in_use))
    end
  end
end
if f then f:close() print("csv: " .. opt.csv) end
print(missed == 0 and "every row meets the targets" or (missed .. " rows miss a target"))
