--[[
tools/fuzz.lua - a fuzzer for mgpu's Lua binding (src/lmgpu*.c).

Run it on the ASan+UBSan build (tools/asan-build.sh); tools/fuzz.sh does both:

  LD_PRELOAD=$(gcc -print-file-name=libasan.so) \
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  LUA_PATH='lua/?.lua;lua/?/init.lua;spec/?.lua;;' LUA_CPATH='build-asan/?.so;;' \
  lua5.4 tools/fuzz.lua [--seconds N] [--seed S] [--mode hostile|diff|both]
                        [--device cpu|cuda] [more: --help]

Two modes:

  hostile  every entry point of `require "mgpu"` (module functions, context
           and array methods, metamethods) with random and hostile arguments:
           wrong types, nil holes, NaN, infinities, huge integers, freed
           arrays, overlapping views, `out` aliasing inputs, arrays of other
           contexts, option tables whose __index runs code (frees arguments,
           collects garbage, throws, yields, closes contexts, hands out a
           fresh array at each lookup), finalizers armed right before the
           call, contexts closed through their __gc.  The contract checked
           after each call:
             - the process does not crash (the sanitizers see memory errors);
             - the call returns, or raises an error whose message is a string
               starting with "mgpu" (else a "message" finding; errors thrown
               by the fuzzer's own callbacks, and Lua's "attempt to yield",
               pass through as they are);
             - every argument the fuzzer did not free still answers #a and
               a:tobytes(), with its old contents unless the call may write it;
             - a call that succeeded did not accept arrays that overlap where
               the API forbids it;
             - the fuzzer's context still works (ctx:iota + mgpu.mergesort).
  diff     valid random inputs (six dtypes, 0..2000 elements, ties, NaN,
           both comparators) to the primitives, compared with the pure-Lua
           reference of the specs (spec/helpers/*.lua).
  both     (the default) mixes the two, one diff case per four calls.

Hard violations (exit status 1): unusable or modified arguments, accepted
overlaps, a broken context, a diff mismatch.  "message" findings are
counted and shown apart; --strict makes them fail the run too.  A crash
ends the process (tools/fuzz.sh reports it and the call it was in).

New primitives: add one row to HOSTILE_ROWS (and one to DIFF_ROWS); the
run warns at start about any function of the module that has no row.
]]

local USAGE = [[
usage: lua5.4 tools/fuzz.lua [options]
  --seconds N        run for N seconds (default 10)
  --seed S           the run's seed (default 20261128; printed at start)
  --mode M           hostile | diff | both (default both)
  --device D         cpu | cuda (default cpu)
  --only A,B         only the rows named (hostile and diff rows; see --list)
  --skip A,B         all rows but these
  --actions A,B      what callbacks do, only these: free, freeall, gc, step,
                     throw, yield, nested, close, fresh (default all)
  --hooks A,B        where callbacks come from, only these: proxy (option
                     tables' __index), finalizer, coroutine, gcmode
                     (default all)
  --max-calls N      stop after N calls
  --case K           diff mode: run only case K of the seed (to reproduce)
  --trace-file F     before each call, overwrite F with a line naming it
  --verbose          print every violation and message finding
  --strict           message findings fail the run too
  --list             list the rows and exit]]

---------------------------------------------------------------------------
-- command line

local DEFAULT_SEED = 20261128

local function parse_args(argv)
  local o = { seconds = 10, seed = DEFAULT_SEED, mode = "both", device = "cpu",
              max_calls = math.huge }
  local i = 1
  local function value(flag)
    i = i + 1
    if argv[i] == nil then io.stderr:write(flag, " needs a value\n", USAGE, "\n"); os.exit(2) end
    return argv[i]
  end
  local function set_of(s)
    local t = {}
    for w in s:gmatch("[^,%s]+") do t[w] = true end
    return t
  end
  while i <= #argv do
    local a = argv[i]
    if a == "--seconds" then o.seconds = assert(tonumber(value(a)), "--seconds: a number")
    elseif a == "--seed" then o.seed = assert(math.tointeger(tonumber(value(a))), "--seed: an integer")
    elseif a == "--mode" then o.mode = value(a)
    elseif a == "--device" then o.device = value(a)
    elseif a == "--only" then o.only = set_of(value(a))
    elseif a == "--skip" then o.skip = set_of(value(a))
    elseif a == "--actions" then o.actions = set_of(value(a))
    elseif a == "--hooks" then o.hooks = set_of(value(a))
    elseif a == "--max-calls" then o.max_calls = assert(math.tointeger(tonumber(value(a))), "--max-calls: an integer")
    elseif a == "--case" then o.case = assert(math.tointeger(tonumber(value(a))), "--case: an integer")
    elseif a == "--trace-file" then o.trace_file = value(a)
    elseif a == "--verbose" then o.verbose = true
    elseif a == "--strict" then o.strict = true
    elseif a == "--list" then o.list = true
    elseif a == "--help" or a == "-h" then print(USAGE); os.exit(0)
    else io.stderr:write("unknown argument ", a, "\n", USAGE, "\n"); os.exit(2) end
    i = i + 1
  end
  if not ({ hostile = true, diff = true, both = true })[o.mode] then
    io.stderr:write("--mode must be hostile, diff or both\n"); os.exit(2)
  end
  return o
end

local OPT = parse_args(arg)

local mgpu = require "mgpu"
local R = require "helpers.reference"
local SETS = require "helpers.sets"
local SEG = require "helpers.segsort"
local KEYED = require "helpers.keyed"
local GEN = require "helpers.gen"

local DEV = OPT.device
-- Every context the fuzzer makes has a memory limit: a hostile but valid
-- size (2^31 - 1 elements, a start at 10^9) then fails fast through the
-- binding's out-of-memory path instead of allocating gigabytes for real.
local LIMIT = 256 << 20
local ok_main, MAIN = pcall(mgpu.context, { device = DEV, memory_limit = LIMIT })
if not ok_main then
  io.stderr:write("fuzz: cannot open a context on ", DEV, ": ", tostring(MAIN), "\n")
  os.exit(2)
end

-- The metatables and method tables, to call methods with a hostile self and
-- to tell mgpu objects apart.
local ARRAY_MT = getmetatable(MAIN:iota(1))
local CTX_MT = getmetatable(MAIN)
local ARRAY_METHODS = select(2, debug.getupvalue(ARRAY_MT.__index, 1))
local CTX_METHODS = select(2, debug.getupvalue(CTX_MT.__index, 1))

local function is_array(x) return getmetatable(x) == ARRAY_MT end
local function is_ctx(x) return getmetatable(x) == CTX_MT end
local function is_closed(c) return tostring(c) == "mgpu.context(closed)" end
local function len(a) return #a end

---------------------------------------------------------------------------
-- what the fuzzer knows about the arrays and contexts it made

-- Every array it makes: its root array (itself, or the array a view was
-- cut from), first element in the root and length, to tell overlaps.
local INFO = setmetatable({}, { __mode = "k" })
-- Arrays the fuzzer freed (a:free(), directly or from a callback).
local FREED = setmetatable({}, { __mode = "k" })
-- A short name per context, for descriptions.
local CTX_NAME = setmetatable({}, { __mode = "k" })

local function remember(a, root, lo)
  local ri = root and INFO[root]
  if ri then INFO[a] = { root = ri.root, lo = ri.lo + lo, n = #a }
  else INFO[a] = { root = a, lo = 0, n = #a } end
end

local function overlaps(x, y)
  local ix, iy = INFO[x], INFO[y]
  if not ix or not iy or ix.root ~= iy.root or ix.n == 0 or iy.n == 0 then return false end
  return ix.lo < iy.lo + iy.n and iy.lo < ix.lo + ix.n
end

local function free(a)
  FREED[a] = true
  a:free()
end

-- The length of an array the fuzzer made (0 once freed: #a would raise).
local function n_of(a)
  if not is_array(a) or FREED[a] or not INFO[a] then return 0 end
  return INFO[a].n
end

-- The contexts calls run on.  MAIN is never closed: it carries the health
-- check.  The others are closed by hostile callbacks and replaced after.
local WORLD = {}

local function new_context(name, limit)
  local c = mgpu.context { device = DEV, memory_limit = limit or LIMIT }
  CTX_NAME[c] = name
  return c
end

CTX_NAME[MAIN] = "main"
-- The default context too, in place of the unlimited one mgpu would make.
mgpu.default_context(new_context("default"))

-- The default context object, closed or not (nil if the binding refuses
-- to hand out a closed one).  Generators use it; the call under test may
-- meet it closed.
local function default_ctx()
  local ok, d = pcall(mgpu.default_context)
  return ok and is_ctx(d) and d or nil
end

-- Replaces contexts that a callback closed; with the default context, only
-- some of the time, so that calls also meet a closed default.
local function refresh_world(rng)
  if not WORLD.other or is_closed(WORLD.other) then WORLD.other = new_context("other") end
  if not WORLD.tight or is_closed(WORLD.tight) then
    -- a small memory limit: allocations fail, and the binding's retry runs a
    -- full collection (and every pending finalizer) in the middle of a call
    WORLD.tight = new_context("tight", rng:int(4, 64) * 1024)
  end
  local d = default_ctx()
  if not d or is_closed(d) then
    if rng:int(1, 3) == 1 then
      local fresh = new_context("default")
      mgpu.default_context(fresh)
    end
  elseif not CTX_NAME[d] then
    CTX_NAME[d] = "default"
  end
  if not WORLD.shared then
    -- a:to(DEV) uses the shared context of DEV; keep it to close it sometimes
    WORLD.shared = MAIN:iota(1):to(DEV).context
    CTX_NAME[WORLD.shared] = CTX_NAME[WORLD.shared] or "shared"
  end
end

---------------------------------------------------------------------------
-- descriptions (raw reads only: describing never runs the fuzzer's own
-- hostile __index functions)

local function describe(v, depth)
  depth = depth or 0
  local t = type(v)
  if is_array(v) then
    local i = INFO[v]
    local s = string.format("arr<%s>[%s]", v.dtype, i and i.n or "?")
    if i and i.root ~= v then s = s .. "(view)" end
    if i and i.ctx then s = s .. "@" .. (CTX_NAME[i.ctx] or "?") end
    if FREED[v] then s = s .. "(freed)" end
    return s
  elseif is_ctx(v) then
    return "ctx:" .. (CTX_NAME[v] or "?") .. (is_closed(v) and "(closed)" or "")
  elseif t == "number" then
    if v ~= v then return "nan" end
    if math.type(v) == "float" then return string.format("%.17g", v) end
    return tostring(v)
  elseif t == "string" then
    return string.format("%q", #v > 24 and v:sub(1, 24) .. "..." or v)
  elseif t == "table" then
    if depth > 1 then return "{...}" end
    local parts, k, n = {}, nil, 0
    repeat
      k = next(v, k)
      if k ~= nil then
        n = n + 1
        if n > 8 then parts[#parts + 1] = "..."; break end
        local key = type(k) == "string" and k or "[" .. describe(k, 2) .. "]"
        parts[#parts + 1] = key .. "=" .. describe(rawget(v, k), depth + 1)
      end
    until k == nil
    local mt = getmetatable(v)
    local tag = mt and type(rawget(mt, "__index")) == "function" and "proxy" or ""
    return tag .. "{" .. table.concat(parts, ", ") .. "}"
  end
  return t
end

local function describe_args(args, n)
  local parts = {}
  for i = 1, n do parts[i] = describe(args[i]) end
  return "(" .. table.concat(parts, ", ") .. ")"
end

---------------------------------------------------------------------------
-- a generator of arguments for one call

local Gen = {}
Gen.__index = Gen

local function new_gen(rng, ctx)
  return setmetatable({
    rng = rng,
    ctx = ctx,            -- the context the call's arrays live on
    involved = {},        -- arrays made for this call, checked after it
    writes = {},          -- arrays the call may write (out, keys sorted in place)
    exclusive = {},       -- pairs {x, y} the call must refuse to take together
    notes = {},           -- what the hostile layer did, for descriptions
    plain_options = true, -- false once options come from a metatable
  }, Gen)
end

function Gen:int(lo, hi) return self.rng:int(lo, hi) end
function Gen:chance(p) return self.rng:float(0, 1) < p end
function Gen:pick(list) return list[self.rng:int(1, #list)] end
function Gen:note(s) self.notes[#self.notes + 1] = s end

function Gen:dtype() return self:pick(R.dtypes) end

-- A dtype argument: mostly valid (aliases too), sometimes not.
function Gen:dtype_arg()
  local r = self:int(1, 20)
  if r <= 15 then return self:dtype() end
  if r <= 17 then return self:pick({ "int32", "uint32", "int64", "uint64", "float32", "float64" }) end
  return self:pick({ "int8", "", "I32", "f16", 4, true, {} })
end

function Gen:comp()
  if self:chance(0.05) then return self:pick({ "up", "", 1, false, "LESS" }) end
  return self:chance(0.5) and "less" or "greater"
end

-- A size: mostly 0..300 (often tiny), sometimes 1000..3000.
function Gen:size()
  local r = self:int(1, 100)
  if r <= 30 then return self:int(0, 8) end
  if r <= 93 then return self:int(0, 300) end
  return self:int(1000, 3000)
end

-- Numbers that no size or index may be, and 2^31 - 1 (the largest valid
-- count, which the contexts' memory limits refuse).
local BAD_NUMBERS = {
  -1, -2, 0x7fffffff, 0x80000000, 0x80000001, -0x80000001, -0x80000000, 1 << 53, (1 << 53) + 1,
  2.0 ^ 53, 2.0 ^ 63, 2.0 ^ 64, math.maxinteger, math.mininteger, 0.5, -0.0, 1.5,
  0.0 / 0.0, math.huge, -math.huge, 1e308, -1e308,
}

function Gen:bad_number()
  return self:pick(BAD_NUMBERS)
end

-- A size argument: mostly valid.
function Gen:size_arg()
  if self:chance(0.12) then
    return self:chance(0.7) and self:bad_number() or self:hostile()
  end
  return self:size()
end

-- A value of dtype dt (valid for it).
function Gen:element(dt) return self.rng:value(dt) end

-- An element argument: sometimes one that does not fit dt.
function Gen:element_arg(dt)
  if self:chance(0.1) then
    return self:pick({ 0.0 / 0.0, math.huge, -math.huge, 0.5, math.maxinteger, math.mininteger,
                       0x100000000, -1, 2.0 ^ 64, 2.0 ^ 63, "7", true })
  end
  return self:element(dt)
end

-- A Lua sequence of n valid elements of dt.
function Gen:elements(n, dt)
  local t = {}
  for i = 1, n do t[i] = self:element(dt) end
  return t
end

-- Hostile values of every kind, one generator each.
local HOSTILE_VALUES = {
  function() return nil end,
  function() return false end,
  function() return true end,
  function() return 0 end,
  function(g) return g:bad_number() end,
  function(g) return g:bad_number() end,
  function() return "5" end,
  function() return "" end,
  function() return "cpu" end,
  function() return {} end,
  function() return { 1, 2, nil, 4 } end,
  function() return setmetatable({}, { __index = function() error("fuzz-callback: __index of a hostile table", 0) end }) end,
  function() return print end,
  function() return coroutine.create(print) end,
  function() return io.stdout end,
  function(g) return g:array() end,
  function(g) return g:array({ freed = true }) end,
  function(g) return g:array({ view = true }) end,
  function() return MAIN end,
  function() return WORLD.other end,
  function(g) local c = new_context("fresh"); if g:chance(0.5) then CTX_MT.__gc(c) end; return c end,
}

function Gen:hostile()
  return self:pick(HOSTILE_VALUES)(self)
end

-- A new array, registered for the after-call checks.  spec (all optional):
--   dt, n, values (a Lua sequence), sorted (a comp: sort the values),
--   ctx, view (cut it from a bigger array), freed (free it now),
--   how ("array" | "bytes" | "ctor": how to build it).
function Gen:array(spec)
  spec = spec or {}
  local dt = spec.dt or self:dtype()
  local ctx = spec.ctx or self.ctx
  if not spec.ctx and self:chance(0.04) then ctx = self:pick({ MAIN, WORLD.other, WORLD.tight }) end
  if not is_ctx(ctx) or is_closed(ctx) then ctx = MAIN end
  local values = spec.values
  local n = values and #values or math.max(0, spec.n or self:size())
  local how = spec.how or (values and self:pick({ "array", "array", "bytes" }))
                        or self:pick({ "array", "bytes", "ctor", "ctor" })
  local view = spec.view or (spec.view == nil and self:chance(0.15))
  local lead, tail = view and self:int(0, 5) or 0, view and self:int(0, 5) or 0
  local function build(c)
    if how == "ctor" and not spec.sorted then
      local total = lead + n + tail
      local k = self:int(1, 5)
      if k == 1 then return c:iota(total, self:int(dt:sub(1, 1) == "u" and 0 or -5, 5), self:int(-2, 2), dt) end
      if k == 2 then return c:zeros(total, dt) end
      if k == 3 then return c:fill(total, self:element(dt), dt) end
      if k == 4 then
        if R.is_float(dt) then return c:random(total, -10.0, 10.0, dt, self:int(0, 1000000000)) end
        return c:random(total, 0, 20, dt, self:int(0, 1000000000))
      end
      if R.is_float(dt) then return c:sorted_random(total, -10.0, 10.0, dt, self:int(0, 1000000000)) end
      return c:sorted_random(total, 0, 20, dt, self:int(0, 1000000000))
    end
    values = values or self:elements(n, dt)
    if spec.sorted then values = R.mergesort(values, dt, spec.sorted) end
    local full = values
    if view then
      full = {}
      for i = 1, lead do full[i] = self:element(dt) end
      for i = 1, n do full[lead + i] = values[i] end
      for i = 1, tail do full[lead + n + i] = self:element(dt) end
    end
    if how == "bytes" then return c:frombytes(R.pack(full, dt), dt) end
    return c:array(full, dt)
  end
  local ok, a = pcall(build, ctx)
  if not ok then -- the tight context may be full: build it on MAIN instead
    ctx = MAIN
    a = build(ctx)
  end
  remember(a)
  INFO[a].ctx = ctx
  if view then
    local v = a:slice(lead + 1, lead + n)
    remember(v, a, lead)
    INFO[v].ctx = ctx
    a = v
  end
  self.involved[#self.involved + 1] = a
  if spec.freed or (spec.freed == nil and self:chance(0.02)) then free(a) end
  return a
end

-- Sorted keys (by comp), sometimes not sorted (undefined but safe).
function Gen:keys(dt, n, comp)
  local sorted = comp
  if self:chance(0.1) or (comp ~= "less" and comp ~= "greater") then sorted = nil end
  return self:array({ dt = dt, n = n or self:size(), sorted = sorted })
end

-- An array the call may write; fresh and right most of the time, else
-- aliasing or overlapping one of `inputs`, or of a wrong dtype or length.
function Gen:out(dt, n, inputs)
  local r = self:int(1, 100)
  local o
  local victim = inputs[self:int(1, math.max(1, #inputs))]
  if r <= 55 or not is_array(victim) or FREED[victim] or not INFO[victim] then
    o = self:array({ dt = dt, n = n })
  elseif r <= 65 then
    o = victim                                -- the input itself
    self:note("out aliases an input")
  elseif r <= 75 and n_of(victim) > 0 then
    local i = self:int(1, n_of(victim))       -- a view overlapping the input
    o = victim:slice(i, self:int(i, n_of(victim)))
    remember(o, victim, i - 1)
    INFO[o].ctx = INFO[victim] and INFO[victim].ctx
    self.involved[#self.involved + 1] = o
    self:note("out overlaps an input")
  elseif r <= 85 then
    o = self:array({ dt = self:dtype(), n = n + self:pick({ 0, 0, -1, 1 }) })
  elseif r <= 92 then
    o = self:array({ dt = dt, n = n, ctx = self:pick({ MAIN, WORLD.other, WORLD.tight }) })
  else
    o = self:array({ dt = dt, n = n, freed = true })
  end
  self.writes[#self.writes + 1] = o
  for _, x in ipairs(inputs) do
    if is_array(x) then self.exclusive[#self.exclusive + 1] = { o, x } end
  end
  return o
end

-- Marks an argument the call writes in place (sorted keys, a filled array).
function Gen:inplace(a)
  if is_array(a) then self.writes[#self.writes + 1] = a end
  return a
end

-- An index-like argument (positions, counts, starts) holding the Lua
-- integers `list`: as a Lua table, or an array of some integer dtype; now
-- and then one element spoiled, or a float array, or a table with a hole.
function Gen:index_arg(list)
  local t = {}
  for i = 1, #list do t[i] = list[i] end
  if #t > 0 and self:chance(0.1) then
    t[self:int(1, #t)] = self:pick({ 0, -1, 0x7fffffff, 0x80000000, math.maxinteger, math.mininteger,
                                     t[1] + 1, 5000, 10 ^ 9 })
    self:note("one index spoiled")
  end
  local r = self:int(1, 100)
  if r <= 45 then
    if self:chance(0.03) and #t > 1 then t[self:int(1, #t - 1)] = nil; self:note("nil hole") end
    if self:chance(0.03) and #t > 0 then t[self:int(1, #t)] = self:pick({ "1", 1.5, 0.0 / 0.0, {} }) end
    return t
  end
  -- an array: the smallest integer dtype that holds every element, or any
  local lo, hi = 0, 0
  for i = 1, #t do
    local v = t[i]
    if math.type(v) ~= "integer" then return t end
    if v < lo then lo = v end
    if v > hi then hi = v end
  end
  local choices = {}
  if lo >= R.I32_MIN and hi <= R.I32_MAX then choices[#choices + 1] = "i32" end
  if lo >= 0 and hi <= R.U32_MAX then choices[#choices + 1] = "u32" end
  choices[#choices + 1] = "i64"
  if lo >= 0 then choices[#choices + 1] = "u64" end
  local dt = self:pick(choices)
  if r > 97 then dt = self:pick({ "f32", "f64" }) end -- an error: indices need integers
  return self:array({ dt = dt, values = t })
end

---------------------------------------------------------------------------
-- hostile callbacks: what __index and __gc functions do

-- Each action runs inside the call, from an option table's __index or a
-- finalizer.  They reach the call's arguments through the generator.
local ACTIONS = {
  -- frees an argument the binding may already have checked
  free = function(g)
    local live = {}
    for _, a in ipairs(g.involved) do if not FREED[a] then live[#live + 1] = a end end
    if #live > 0 then free(g:pick(live)) end
  end,
  freeall = function(g)
    for _, a in ipairs(g.involved) do if not FREED[a] then free(a) end end
  end,
  -- a full cycle finalizes unreferenced arrays the binding still points to
  -- (their __gc frees the storage); a second one frees their memory
  gc = function(g)
    collectgarbage()
    if g:chance(0.5) then collectgarbage() end
  end,
  step = function(g) collectgarbage("step", g:int(0, 32)) end,
  throw = function() error("fuzz-callback: thrown from a callback", 0) end,
  -- fails unless the call runs in a coroutine, and fails there too (C-call
  -- boundary): either way an error, never a crash
  yield = function() coroutine.yield("fuzz-yield") end,
  -- mgpu called again from inside a call
  nested = function(g)
    pcall(function()
      local x = g.ctx:iota(g:int(0, 40), 1, 1, "i32")
      mgpu.mergesort(x, { comp = "greater" })
      mgpu.merge(x, x:copy(), { comp = "greater" })
    end)
  end,
  -- runs a context's __gc by hand: the default, the call's, or the shared one
  close = function(g)
    local c = g:pick({ default_ctx() or MAIN, default_ctx() or MAIN, g.ctx, WORLD.other, WORLD.shared })
    if c ~= MAIN and is_ctx(c) then CTX_MT.__gc(c) end
  end,
}
local ACTION_NAMES = { "free", "freeall", "gc", "step", "throw", "yield", "nested", "close" }
local ENABLED_ACTIONS = {}
for _, name in ipairs(ACTION_NAMES) do
  if not OPT.actions or OPT.actions[name] then ENABLED_ACTIONS[#ENABLED_ACTIONS + 1] = name end
end
local FRESH_ENABLED = not OPT.actions or OPT.actions.fresh
local function hook(name) return not OPT.hooks or OPT.hooks[name] == true end

-- A random action, run by name (so descriptions can show it).
function Gen:action()
  if #ENABLED_ACTIONS == 0 then return nil end
  local name = self:pick(ENABLED_ACTIONS)
  return name, function() ACTIONS[name](self) end
end

-- The options argument of a call whose valid fields are `fields`.  Plain
-- most of the time; else with an unknown key, or not a table, or a proxy:
-- an empty table whose __index returns the fields (or a fresh copy of an
-- array field at every lookup) and runs an action at some lookups.
function Gen:options(fields)
  local r = self:int(1, 100)
  if r <= 50 then return fields end
  if r <= 56 then
    fields[self:pick({ "valeus", "Out", "comps", 1, true })] = 1
    return fields
  end
  self.plain_options = false -- the arrays in fields may not reach the call as given
  if r <= 60 then return self:chance(0.5) and nil or self:hostile() end
  if not hook("proxy") then self.plain_options = true; return fields end
  local fresh = FRESH_ENABLED and self:chance(0.35)
  local action_name, action = self:action()
  local p = self:pick({ 0.2, 0.5, 1.0 })
  local mixed = self:chance(0.25)
  local proxy = {}
  if mixed then -- some fields raw, the rest through __index
    local keys = {}
    for k in pairs(fields) do keys[#keys + 1] = k end
    table.sort(keys) -- pairs' order changes from run to run; the draws must not
    for _, k in ipairs(keys) do if self:chance(0.5) then proxy[k] = fields[k] end end
  end
  local g = self
  setmetatable(proxy, { __index = function(_, k)
    if action and g.rng:float(0, 1) < p then action() end
    local v = fields[k]
    if fresh and is_array(v) then
      -- a new array at each lookup: the binding must keep the one it checked
      local ok, copy = pcall(v.copy, v)
      if ok then return copy end
    end
    return v
  end })
  self:note(string.format("options proxy%s%s%s", fresh and " fresh" or "",
    action_name and (" " .. action_name .. "@" .. p) or "", mixed and " mixed" or ""))
  return proxy
end

-- Finalizers that run an action, dropped right before the call, and a few
-- collector steps so that they may come due during it.  Returns a note.
function Gen:arm_finalizers()
  local names = {}
  for _ = 1, self:int(1, 4) do
    local name, action = self:action()
    if not name then return end
    names[#names + 1] = name
    setmetatable({}, { __gc = action })
  end
  local note = "finalizers " .. table.concat(names, ",")
  if self:chance(0.5) then
    local steps = self:int(0, 64)
    collectgarbage("step", steps)
    note = note .. " step " .. steps
  end
  return note
end

---------------------------------------------------------------------------
-- hostile rows: one per entry point.  args(g) returns the argument list
-- and its length; call is the function under test; `after` (optional)
-- updates the fuzzer's knowledge after a successful call; `foreign` rows
-- reach mgpu through Lua operators and builtins (a[i], pairs), whose own
-- errors (on a hostile self) are not mgpu's; `mutate = false` keeps the
-- generic hostile layer off a row's arguments.

local HOSTILE_ROWS = {}

local function hrow(t)
  t.weight = t.weight or 1
  HOSTILE_ROWS[#HOSTILE_ROWS + 1] = t
end

-- Constructors: each as a module function and as a context method.
local CTOR_ARGS = {
  array = function(g)
    local dt = g:dtype()
    local t = g:elements(g:size(), dt)
    if g:chance(0.1) and #t > 0 then t[g:int(1, #t)] = g:element_arg(dt) end
    if g:chance(0.03) and #t > 1 then t[g:int(1, #t - 1)] = nil end
    local give = g:int(1, 3)
    if give == 1 then return { t }, 1 end
    return { t, g:dtype_arg() }, 2
  end,
  empty = function(g) return { g:size_arg(), g:dtype_arg() }, g:int(1, 2) end,
  zeros = function(g) return { g:size_arg(), g:dtype_arg() }, g:int(1, 2) end,
  fill = function(g)
    local dt = g:dtype()
    return { g:size_arg(), g:element_arg(dt), g:chance(0.8) and dt or g:dtype_arg() }, g:int(2, 3)
  end,
  iota = function(g)
    local dt = g:dtype()
    local start = g:chance(0.85) and g:int(-100, 100) or g:element_arg(dt)
    local step = g:chance(0.85) and g:int(-3, 3) or g:element_arg(dt)
    local forms = {
      function() return { g:size_arg() }, 1 end,
      function() return { g:size_arg(), start }, 2 end,
      function() return { g:size_arg(), start, step }, 3 end,
      function() return { g:size_arg(), start, step, g:dtype_arg() }, 4 end,
      function() return { g:size_arg(), g:dtype_arg() }, 2 end,
      function() return { g:size_arg(), start, g:dtype_arg() }, 3 end,
      function() return { g:size_arg(), start, step, dt, g:hostile() }, 5 end,
    }
    return g:pick(forms)()
  end,
  random = function(g)
    local dt = g:dtype()
    local lo, hi = g:element_arg(dt), g:element_arg(dt)
    if R.is_float(dt) then lo, hi = g:int(-100, 0) + 0.5, g:int(0, 100) + 0.25 end
    if g:chance(0.8) and math.type(lo) == "integer" and math.type(hi) == "integer" then
      if R.comparator(dt)(hi, lo) then lo, hi = hi, lo end -- mostly lo <= hi
    end
    return { g:size_arg(), lo, hi, g:chance(0.8) and dt or g:dtype_arg(),
             g:chance(0.7) and g:int(0, 1 << 40) or g:hostile() }, g:int(3, 5)
  end,
  frombytes = function(g)
    local dt = g:dtype()
    local s = R.pack(g:elements(g:size(), dt), dt)
    if g:chance(0.15) then s = s .. string.rep("\0", g:int(1, 7)) end
    return { g:chance(0.9) and s or g:hostile(), g:chance(0.9) and dt or g:dtype_arg() }, g:int(1, 2)
  end,
}
CTOR_ARGS.sorted_random = CTOR_ARGS.random

local function ctor_self(g)
  if g:chance(0.9) then return g.ctx end
  return g:pick({ function() local c = new_context("fresh"); CTX_MT.__gc(c); return c end,
                  function() return g:array() end, function() return 5 end })()
end

for _, name in ipairs({ "array", "empty", "zeros", "fill", "iota", "random", "sorted_random", "frombytes" }) do
  hrow { name = name, call = mgpu[name],
    args = CTOR_ARGS[name] }
  hrow { name = "ctx:" .. name, call = CTX_METHODS[name],
    args = function(g)
      local args, n = CTOR_ARGS[name](g)
      table.insert(args, 1, ctor_self(g))
      return args, n + 1
    end }
end

-- The values option of merge and setop: {av, bv} matching a and b.
local function values_pair(g, a, b)
  if not is_array(a) or not is_array(b) or FREED[a] or FREED[b] then return nil end
  local vdt = g:dtype()
  local av = g:array({ dt = vdt, n = n_of(a) + (g:chance(0.05) and 1 or 0) })
  local bv = g:array({ dt = g:chance(0.95) and vdt or g:dtype(), n = n_of(b) })
  if g:chance(0.05) then return setmetatable({}, { __index = { av, bv } }) end
  return { av, bv }, av, bv
end

-- Two arrays for a binary primitive: sorted keys of one dtype, sometimes
-- a different dtype or context, or the same array twice.
local function key_pair(g, comp)
  local dt = g:dtype()
  local a = g:keys(dt, g:size(), comp)
  local b
  local r = g:int(1, 100)
  if r <= 80 then b = g:keys(dt, g:size(), comp)
  elseif r <= 85 then b = a
  elseif r <= 90 then b = g:keys(g:dtype(), g:size(), comp)
  elseif r <= 95 then b = g:array({ dt = dt, ctx = WORLD.other, sorted = "less" })
  else b = g:hostile() end
  return a, b, dt
end

hrow { name = "merge", weight = 3, call = mgpu.merge,
  args = function(g)
    local comp = g:comp()
    local a, b, dt = key_pair(g, comp)
    local fields = { comp = comp }
    local vals, av, bv
    if g:chance(0.5) then vals, av, bv = values_pair(g, a, b); fields.values = vals end
    local n = n_of(a) + n_of(b)
    if g:chance(0.4) then fields.out = g:out(dt, n, { a, b, av, bv }) end
    if av and g:chance(0.4) then
      fields.out_values = g:out(av.dtype, n, { a, b, av, bv, fields.out })
    end
    return { a, b, g:options(fields) }, 3
  end }

-- mergesort's and sort's arguments: the same checks, by different kernels.
local function sort_args(g)
  local keys = g:inplace(g:array())
  local fields = { comp = g:comp() }
  if g:chance(0.5) then
    local r = g:int(1, 10)
    local v
    if r <= 7 then v = g:array({ n = n_of(keys) })
    elseif r <= 8 then v = keys
    elseif r <= 9 and n_of(keys) > 0 then
      v = keys:slice(1, n_of(keys)); remember(v, keys, 0); g.involved[#g.involved + 1] = v
    else v = g:array() end
    fields.values = g:inplace(v)
    g.exclusive[#g.exclusive + 1] = { keys, v }
  end
  return { keys, g:options(fields) }, 2
end

hrow { name = "mergesort", weight = 3, call = mgpu.mergesort, args = sort_args }
hrow { name = "sort", weight = 3, call = mgpu.sort, args = sort_args }

-- 1-based sorted unique heads in 1..n.
local function random_heads(g, n)
  local heads = {}
  if n == 0 then return heads end
  local h = g:chance(0.5) and 1 or g:int(1, 6)
  while h <= n do
    heads[#heads + 1] = h
    h = h + g:int(1, 40)
  end
  return heads
end

hrow { name = "segsort", weight = 3, call = mgpu.segsort,
  args = function(g)
    local keys = g:inplace(g:array())
    local n = n_of(keys)
    local fields = { comp = g:comp(), stats = g:chance(0.3) or nil,
                     stable = g:chance(0.2) and g:pick({ true, false, 1 }) or nil }
    if g:chance(0.4) then
      local v = g:chance(0.9) and g:array({ n = n }) or keys
      fields.values = g:inplace(v)
      g.exclusive[#g.exclusive + 1] = { keys, v }
    end
    local heads
    if g:chance(0.3) then
      local flags = {}
      for i = 1, n do flags[i] = g:chance(0.1) and g:int(1, 3) or 0 end
      fields.flags = g:array({ dt = g:pick({ "i32", "u32", "i64", "u64", "i32", "f32" }),
                               values = flags, n = g:chance(0.95) and n or n + 1 })
      heads = g:chance(0.9) and nil or { 1 }
    else
      heads = g:index_arg(random_heads(g, n))
    end
    return { keys, heads, g:options(fields) }, 3
  end }

hrow { name = "locality_sort", weight = 2, call = mgpu.locality_sort,
  args = function(g)
    local keys = g:inplace(g:array())
    local fields = { comp = g:comp(), stats = g:chance(0.3) or nil }
    if g:chance(0.4) then
      local v = g:chance(0.9) and g:array({ n = n_of(keys) }) or keys
      fields.values = g:inplace(v)
      g.exclusive[#g.exclusive + 1] = { keys, v }
    end
    return { keys, g:options(fields) }, 2
  end }

local SET_OPS = { "intersection", "union", "difference", "symmetric_difference" }

local function setop_args(g)
  local comp = g:comp()
  local a, b = key_pair(g, comp)
  local fields = { comp = comp, duplicates = g:chance(0.3) and g:pick({ true, false, "no" }) or nil }
  if g:chance(0.5) then fields.values = values_pair(g, a, b) end
  return { a, b, g:options(fields) }, 3
end

hrow { name = "setop", weight = 2, call = mgpu.setop,
  args = function(g)
    local args, n = setop_args(g)
    local op = g:chance(0.95) and g:pick(SET_OPS) or g:pick({ "intersect", "", 1 })
    table.insert(args, 1, op)
    return args, n + 1
  end }
for _, op in ipairs(SET_OPS) do
  hrow { name = "set_" .. op, call = mgpu["set_" .. op], args = setop_args }
end

-- m sorted (unique when asked) 1-based positions in 1..hi.
local function sorted_positions(g, m, hi, unique)
  local t = {}
  if hi < 1 then return t end
  for i = 1, m do t[i] = g:int(1, hi) end
  table.sort(t)
  if unique then
    local u = {}
    for i = 1, #t do if t[i] ~= u[#u] then u[#u + 1] = t[i] end end
    t = u
  end
  return t
end

hrow { name = "bulk_remove", weight = 2, call = mgpu.bulk_remove,
  args = function(g)
    local data = g:array()
    local n = n_of(data)
    return { data, g:index_arg(sorted_positions(g, g:int(0, n), n, true)) }, 2
  end }

hrow { name = "bulk_insert", weight = 2, call = mgpu.bulk_insert,
  args = function(g)
    local data = g:array()
    local n = n_of(data)
    local pos = sorted_positions(g, g:int(0, 60), n + 1, false)
    local dt = g:chance(0.95) and data.dtype or g:dtype()
    local values = g:array({ dt = dt, n = #pos + (g:chance(0.05) and 1 or 0) })
    return { data, g:index_arg(pos), values }, 3
  end }

-- m counts, mostly small.
local function random_counts(g, m)
  local c = {}
  for i = 1, m do c[i] = g:chance(0.3) and 0 or g:int(0, 6) end
  return c
end

local function sum(t)
  local s = 0
  for i = 1, #t do s = s + t[i] end
  return s
end

hrow { name = "interval_expand", weight = 2, call = mgpu.interval_expand,
  args = function(g)
    local m = g:int(0, 80)
    local values = g:array({ n = g:chance(0.95) and m or m + 1 })
    local counts = random_counts(g, m)
    if g:chance(0.03) then counts[#counts + 1] = g:bad_number() end
    return { values, g:index_arg(counts) }, 2
  end }

-- Starts for intervals of counts[i] elements inside `limit` elements.
local function starts_within(g, counts, limit)
  local s = {}
  for i = 1, #counts do s[i] = g:int(1, math.max(1, limit - counts[i] + 1)) end
  return s
end

hrow { name = "interval_gather", weight = 2, call = mgpu.interval_gather,
  args = function(g)
    local input = g:array({ n = g:int(0, 200) })
    local m = g:int(0, 60)
    local counts = random_counts(g, m)
    local gather = starts_within(g, counts, n_of(input))
    return { input, g:index_arg(gather), g:index_arg(counts) }, 3
  end }

-- The {out = array} option of interval_scatter and interval_move.
local function interval_out(g, input, counts, scatter)
  local need = 0
  for i = 1, #counts do
    if counts[i] > 0 then need = math.max(need, scatter[i] + counts[i] - 1) end
  end
  if g:chance(0.4) then return nil end
  local n = need + g:pick({ 0, 0, 3, -1 })
  return g:options({ out = g:out(input.dtype, math.max(0, n), { input }) })
end

hrow { name = "interval_scatter", weight = 3, call = mgpu.interval_scatter,
  args = function(g)
    local m = g:int(0, 60)
    local counts = random_counts(g, m)
    local input = g:array({ n = sum(counts) + g:pick({ 0, 0, 0, 5, -1 }) })
    local scatter = starts_within(g, counts, g:int(1, 300))
    return { input, g:index_arg(scatter), g:index_arg(counts), interval_out(g, input, counts, scatter) }, 4
  end }

hrow { name = "interval_move", weight = 3, call = mgpu.interval_move,
  args = function(g)
    local input = g:array({ n = g:int(0, 200) })
    local m = g:int(0, 60)
    local counts = random_counts(g, m)
    local gather = starts_within(g, counts, n_of(input))
    local scatter = starts_within(g, counts, g:int(1, 300))
    return { input, g:index_arg(gather), g:index_arg(scatter), g:index_arg(counts),
             interval_out(g, input, counts, scatter) }, 5
  end }

hrow { name = "load_balance", weight = 2, call = mgpu.load_balance,
  args = function(g)
    local counts = random_counts(g, g:int(0, 80))
    if g:chance(0.03) then counts[#counts + 1] = g:bad_number() end
    return { g:index_arg(counts) }, 1
  end }

-- scan, reduce, sorted_search, unique, compact
local REDUCE_OPS = { "add", "min", "max" }

hrow { name = "scan", weight = 2, call = mgpu.scan,
  args = function(g)
    local a = g:array()
    local fields = { op = g:chance(0.9) and g:pick(REDUCE_OPS) or g:hostile(),
                     inclusive = g:chance(0.9) and g:chance(0.5) or g:hostile() }
    if g:chance(0.3) then
      -- in place (out = a) is allowed; else a separate array
      fields.out = g:chance(0.5) and a or g:array({ dt = a.dtype, n = n_of(a) })
      g:inplace(fields.out)
    end
    return { a, g:options(fields) }, 2
  end }

hrow { name = "reduce", weight = 2, call = mgpu.reduce,
  args = function(g)
    return { g:array(), g:chance(0.9) and g:pick(REDUCE_OPS) or g:hostile() }, g:int(1, 2)
  end }

hrow { name = "sorted_search", weight = 2, call = mgpu.sorted_search,
  args = function(g)
    local comp = g:comp()
    local a, b = key_pair(g, comp)
    return { a, b, g:options({ comp = comp,
      side = g:chance(0.9) and g:pick({ "left", "right" }) or g:hostile() }) }, 3
  end }

hrow { name = "unique", weight = 2, call = mgpu.unique,
  args = function(g)
    local keys = g:keys(g:dtype(), g:size(), "less")
    local fields = { counts = g:chance(0.9) and g:chance(0.5) or g:hostile() }
    if g:chance(0.5) then
      fields.values = g:array({ n = n_of(keys) + (g:chance(0.05) and 1 or 0) })
    end
    return { keys, g:options(fields) }, 2
  end }

hrow { name = "compact", weight = 2, call = mgpu.compact,
  args = function(g)
    local data = g:array()
    local n = n_of(data)
    local fdt = g:pick({ "i32", "u32", "i64", "u64", "i32", "f32" })
    local flags = g:array({ dt = fdt, n = n + (g:chance(0.05) and 1 or 0) })
    local fields = {}
    if g:chance(0.5) then fields.values = g:array({ n = n }) end
    return { data, flags, g:options(fields) }, 3
  end }

-- reduce_by_key, segreduce, join
hrow { name = "reduce_by_key", weight = 2, call = mgpu.reduce_by_key,
  args = function(g)
    local keys = g:keys(g:dtype(), g:size(), "less")
    local vals = g:array({ n = n_of(keys) + (g:chance(0.05) and 1 or 0) })
    return { keys, vals, g:options({ op = g:chance(0.9) and g:pick(REDUCE_OPS) or g:hostile(),
      comp = g:comp() }) }, 3
  end }

hrow { name = "segreduce", weight = 2, call = mgpu.segreduce,
  args = function(g)
    local vals = g:array()
    local n = n_of(vals)
    local off = sorted_positions(g, g:int(0, 40), n + 1, false)
    if g:chance(0.05) and #off > 0 then off[g:int(1, #off)] = g:bad_number() end
    if g:chance(0.05) then off[#off + 1] = n + 2 end
    local fields = { op = g:chance(0.9) and g:pick(REDUCE_OPS) or g:hostile() }
    if g:chance(0.3) then fields.identity = g:element_arg(g:dtype()) end
    return { vals, g:index_arg(off), g:options(fields) }, 3
  end }

hrow { name = "join", weight = 2, call = mgpu.join,
  args = function(g)
    local comp = g:comp()
    local a, b = key_pair(g, comp)
    return { a, b, g:options({ comp = comp,
      kind = g:chance(0.9) and g:pick({ "inner", "left", "right", "outer" }) or g:hostile() }) }, 3
  end }

hrow { name = "context", call = mgpu.context,
  args = function(g)
    local device = g:pick({ DEV, DEV, "cpu", "cuda", "cuda:0", "cuda:7", "cuda:-1", "cpu:0", "", "gpu" })
    local r = g:int(1, 6)
    if r == 1 then return {}, 0 end
    if r == 2 then return { device }, 1 end
    if r == 3 then return { g:hostile() }, 1 end
    local fields = { device = g:chance(0.9) and device or g:hostile(),
                     memory_limit = g:chance(0.3) and g:pick({ 0, 1, 4096, -1, 0.5, 2.0 ^ 70, "1k" }) or nil }
    return { g:options(fields) }, 1
  end }

hrow { name = "default_context", call = mgpu.default_context,
  args = function(g)
    local r = g:int(1, 4)
    if r == 1 then return {}, 0 end
    if r == 2 then return { g:hostile() }, 1 end
    -- a valid one: the default moves between the world's contexts
    return { g:pick({ WORLD.other, WORLD.tight, default_ctx() or MAIN, new_context("fresh") }) }, 1
  end }

hrow { name = "devices", weight = 0.3, call = mgpu.devices,
  args = function(g) return { g:hostile() }, g:int(0, 1) end }
hrow { name = "clock", weight = 0.2, call = mgpu.clock,
  args = function(g) return { g:hostile() }, g:int(0, 1) end }
hrow { name = "memory", weight = 0.2, call = mgpu.memory,
  args = function(g) return { g:hostile() }, g:int(0, 1) end }

-- Array methods, called through the method table so that self may be
-- anything; self is an array (often freed, or a view) most of the time.
local function self_array(g)
  if g:chance(0.08) then return g:hostile() end
  return g:array()
end

-- An index i for an array of n elements: in range, at the edges, or not.
local function index_for(g, n)
  local r = g:int(1, 10)
  if r <= 6 then return g:int(1, math.max(1, n)) end
  if r <= 8 then return g:pick({ 0, n, n + 1, -1, -n, -n - 1 }) end
  return g:hostile()
end

local function amethod(name, args, weight)
  hrow { name = "a:" .. name, weight = weight, call = ARRAY_METHODS[name],
    args = function(g)
      local self = self_array(g)
      local rest, n = args(g, self, n_of(self))
      table.insert(rest, 1, self)
      return rest, n + 1
    end }
end

amethod("totable", function(g, _, n)
  return { index_for(g, n), index_for(g, n) }, g:int(0, 2)
end)
amethod("tobytes", function(g) return { g:hostile() }, g:int(0, 1) end)
amethod("copy", function(g) return { g:hostile() }, g:int(0, 1) end)
amethod("slice", function(g, _, n)
  return { index_for(g, n), index_for(g, n) }, g:int(1, 2)
end)
amethod("fill", function(g, self)
  g:inplace(self)
  return { is_array(self) and g:element_arg(INFO[self] and self.dtype or "f64") or 0 }, 1
end)
amethod("astype", function(g) return { g:dtype_arg() }, 1 end)
amethod("to", function(g)
  local target = g:pick({ DEV, DEV, "cpu", "cuda", "cuda:9", "", MAIN, WORLD.other, WORLD.tight,
                          WORLD.shared, 5, {} })
  return { target }, 1
end)
amethod("is_sorted", function(g) return { g:comp() }, g:int(0, 1) end)
amethod("ptr", function(g) return { g:hostile() }, g:int(0, 1) end)

hrow { name = "a:free", call = ARRAY_METHODS.free,
  args = function(g) return { self_array(g) }, 1 end,
  after = function(args) if is_array(args[1]) then FREED[args[1]] = true end end }

-- Metamethods and Lua's own operations on arrays.
hrow { name = "a[i]", weight = 1, foreign = true, call = function(a, i) return a[i] end,
  args = function(g) local a = g:array(); return { a, index_for(g, n_of(a)) }, 2 end }
hrow { name = "a[i]=v", weight = 1, foreign = true, call = function(a, i, v) a[i] = v end,
  args = function(g)
    local a = g:inplace(g:array())
    local k = g:chance(0.9) and index_for(g, n_of(a)) or g:pick({ "x", "dtype", true })
    return { a, k, g:element_arg(a.dtype) }, 3
  end }
hrow { name = "#a", weight = 0.5, foreign = true, call = len, args = function(g) return { g:array() }, 1 end }
hrow { name = "tostring(a)", weight = 0.5, foreign = true, call = tostring,
  args = function(g) return { g:array({ n = g:chance(0.5) and g:int(0, 30) or nil }) }, 1 end }
hrow { name = "a.field", weight = 0.5, foreign = true, call = function(a, k) return a[k] end,
  args = function(g)
    return { g:array(), g:pick({ "dtype", "device", "context", "totable", "nope", 1.5, true }) }, 2
  end }
hrow { name = "ipairs(a)", weight = 0.3, foreign = true,
  call = function(a) for _ in ipairs(a) do end end,
  args = function(g) return { g:array({ n = g:int(0, 20) }) }, 1 end }
hrow { name = "pairs(a)", weight = 0.3, foreign = true,
  call = function(a) for _ in pairs(a) do end end,
  args = function(g) return { g:array({ n = g:int(0, 20) }) }, 1 end }

-- Metamethods called by hand with a self of the wrong kind.
hrow { name = "metamethods", weight = 0.3, mutate = false,
  call = function(mm, ...) return mm(...) end,
  args = function(g)
    local mm = g:pick({ ARRAY_MT.__len, ARRAY_MT.__index, ARRAY_MT.__newindex, ARRAY_MT.__gc,
                        ARRAY_MT.__close, CTX_MT.__index, CTX_MT.__tostring, CTX_MT.__gc })
    local self = g:pick({ g:hostile(), g:array(), MAIN, 5 })
    if self == MAIN and mm == CTX_MT.__gc then self = WORLD.other end
    return { mm, self, g:hostile(), g:hostile() }, g:int(2, 4)
  end,
  after = function(args) -- __gc and __close of an array free it
    if (args[1] == ARRAY_MT.__gc or args[1] == ARRAY_MT.__close) and is_array(args[2]) then
      FREED[args[2]] = true
    end
  end }

-- Context methods and fields.
local function ctx_self(g)
  if g:chance(0.85) then return g:pick({ g.ctx, WORLD.other, WORLD.tight, default_ctx() or MAIN }) end
  return g:hostile()
end
hrow { name = "ctx:sync", weight = 0.5, call = CTX_METHODS.sync,
  args = function(g) return { ctx_self(g) }, 1 end }
hrow { name = "ctx:info", weight = 0.5, call = CTX_METHODS.info,
  args = function(g) return { ctx_self(g) }, 1 end }
hrow { name = "ctx.field", weight = 0.5, foreign = true, call = function(c, k) return c[k], tostring(c) end,
  args = function(g)
    return { g:pick({ g.ctx, WORLD.other, default_ctx() or MAIN }),
             g:pick({ "device", "backend", "sync", "iota", "nope", 1 }) }, 2
  end }

-- A context closed through its __gc, then used: on its own methods, as the
-- default for module functions, or as the shared context of a:to(device).
local AFTER_CLOSE = {
  function(c) return c:iota(3) end,
  function(c) return c:sync() end,
  function(c) return c:info() end,
  function(c) return c.device end,
  function() return mgpu.load_balance { 1 } end,
  function() return mgpu.context() end,
  function() return mgpu.iota(4) end,
  function() return mgpu.array { 1, 2 } end,
  function() return MAIN:iota(3):to(DEV) end,
  function() return mgpu.default_context():info() end,
}
hrow { name = "ctx:__gc", weight = 1, mutate = false,
  call = function(c, which, k)
    CTX_MT.__gc(c)
    local r = AFTER_CLOSE[which](c)
    if k > 1 then r = AFTER_CLOSE[(which % #AFTER_CLOSE) + 1](c) end
    return r
  end,
  args = function(g)
    local c = g:pick({ default_ctx() or MAIN, WORLD.other, WORLD.shared, WORLD.tight, new_context("fresh") })
    if c == MAIN then c = new_context("fresh") end -- MAIN carries the health check
    return { c, g:int(1, #AFTER_CLOSE), g:int(1, 2) }, 3
  end }

-- ctx:close(), the same close by name: on a fresh context (then used as
-- above), or on what is not a context (which it leaves alone; not
-- g:hostile(), which may be a context the fuzzer goes on using).
hrow { name = "ctx:close", weight = 0.5, mutate = false,
  call = function(c, which)
    CTX_METHODS.close(c)
    if which > 0 then return AFTER_CLOSE[which](c) end
  end,
  args = function(g)
    if g:chance(0.2) then return { g:pick({ 1, "ctx", {}, false, MAIN:iota(1) }), 0 }, 2 end
    return { new_context("fresh"), g:int(1, #AFTER_CLOSE) }, 2
  end }

-- Groups (docs/API.md, "Groups"): groups of cpu contexts, whatever the
-- device (several CUDA contexts need NCCL and distinct GPUs); their
-- sharded arrays are made of fuzz-made arrays on the group's contexts, so
-- that callbacks may free a shard in the middle of a sort.
local function fuzz_group()
  if not WORLD.group then
    -- capped as the fuzzer's other contexts are: a huge n fails, not swaps
    local ctxs = {}
    for k = 1, 3 do ctxs[k] = mgpu.context { device = "cpu", memory_limit = LIMIT } end
    WORLD.group = mgpu.group { devices = ctxs }
  end
  return WORLD.group
end
local GROUP_METHODS = getmetatable(fuzz_group()).__index
local SHARDED_METHODS = {}
do
  local s = fuzz_group():iota(3)
  for _, k in ipairs({ "shards", "counts", "totable", "to" }) do SHARDED_METHODS[k] = s[k] end
end

-- A sharded array of dtype dt (shards of the given lengths, or random
-- ones), sorted by `sorted` when given; its shards are arguments the call
-- may write when `writes`.
function Gen:sharded(dt, lengths, sorted, writes)
  local ctxs = fuzz_group():contexts()
  local shards = {}
  for k = 1, #ctxs do
    local n = lengths and lengths[k] or self:pick({ 0, 1, 2, self:int(0, 40), self:int(0, 400) })
    shards[k] = self:array({ dt = dt, n = n, ctx = ctxs[k], freed = false })
    if writes then self:inplace(shards[k]) end
  end
  if sorted then
    -- a sorted whole: the shards' values laid end to end, sorted, cut again
    local all = {}
    for k = 1, #ctxs do for _, v in ipairs(shards[k]:totable()) do all[#all + 1] = v end end
    all = R.mergesort(all, dt, sorted)
    local at = 0
    for k = 1, #ctxs do
      local part = {}
      for i = 1, n_of(shards[k]) do part[i] = all[at + i] end
      at = at + n_of(shards[k])
      shards[k] = self:array({ dt = dt, values = part, ctx = ctxs[k], freed = false, view = false })
    end
  end
  local s = fuzz_group():sharded(shards)
  if self:chance(0.03) then free(shards[self:int(1, #shards)]); self:note("a shard freed") end
  return s, shards
end

local function sharded_counts(shards)
  local t = {}
  for k, a in ipairs(shards) do t[k] = n_of(a) end
  return t
end

local function group_self(g)
  if g:chance(0.95) then return fuzz_group() end
  return (g:pick({ function() return g:hostile() end, function() return (g:sharded(g:dtype())) end })())
end

hrow { name = "group", weight = 0.5, call = mgpu.group,
  args = function(g)
    local r = g:int(1, 10)
    if r == 1 then return {}, 0 end
    if r == 2 then return { g:hostile() }, 1 end
    local devices = {}
    for i = 1, g:int(0, 4) do
      devices[i] = g:pick({ "cpu", "cpu", DEV, "cuda:9", "", 7, MAIN, WORLD.other, WORLD.tight, {} })
    end
    return { g:options({ devices = g:chance(0.9) and devices or g:hostile() }) }, 1
  end }

hrow { name = "g:shard", weight = 1, call = GROUP_METHODS.shard,
  args = function(g)
    local dt = g:dtype()
    local data = g:pick({
      function() return g:array({ dt = dt }) end,
      function() return g:elements(g:size(), dt) end,
      function() return g:hostile() end,
    })()
    return { group_self(g), data, g:chance(0.7) and dt or g:dtype_arg() }, g:int(2, 3)
  end }

for _, name in ipairs({ "iota", "random" }) do
  hrow { name = "g:" .. name, call = GROUP_METHODS[name],
    args = function(g)
      local args, n = CTOR_ARGS[name](g)
      table.insert(args, 1, group_self(g))
      return args, n + 1
    end }
end

hrow { name = "g:sharded", weight = 0.5, call = GROUP_METHODS.sharded,
  args = function(g)
    local _, shards = g:sharded(g:dtype())
    local list = {}
    for k, a in ipairs(shards) do list[k] = a end
    local r = g:int(1, 10)
    if r == 1 then list[#list] = nil
    elseif r == 2 then list[g:int(1, #list)] = g:array()
    elseif r == 3 then list = g:hostile() end
    return { group_self(g), list }, 2
  end }

hrow { name = "g:size,contexts,#g,tostring", weight = 0.3, foreign = true,
  call = function(grp) return GROUP_METHODS.size(grp), #GROUP_METHODS.contexts(grp), #grp, tostring(grp) end,
  args = function(g) return { group_self(g) }, 1 end }

-- mergesort's and sort's arguments on sharded arrays.
local function sharded_sort_args(g)
  local dt = g:dtype()
  local keys, shards = g:sharded(dt, nil, nil, true)
  local fields = { comp = g:comp() }
  if g:chance(0.5) then
    local r = g:int(1, 10)
    if r <= 7 then fields.values = g:sharded(g:dtype(), sharded_counts(shards), nil, true)
    elseif r == 8 then fields.values = keys
    elseif r == 9 then fields.values = g:sharded(g:dtype(), nil, nil, true)
    else fields.values = g:array() end
  end
  return { keys, g:options(fields) }, 2
end

hrow { name = "mergesort(sharded)", weight = 2, call = mgpu.mergesort,
  args = sharded_sort_args }
hrow { name = "sort(sharded)", weight = 1, call = mgpu.sort,
  args = sharded_sort_args }

hrow { name = "merge(sharded)", weight = 2, call = mgpu.merge,
  args = function(g)
    local comp, dt = g:comp(), g:dtype()
    local order = (comp == "less" or comp == "greater") and comp or "less"
    local a, ash = g:sharded(dt, nil, g:chance(0.9) and order or nil)
    local b, bsh = g:sharded(g:chance(0.9) and dt or g:dtype(), nil, order)
    if g:chance(0.05) then b = g:hostile() end
    local fields = { comp = comp }
    if g:chance(0.5) then
      local vdt = g:dtype()
      fields.values = { g:sharded(vdt, sharded_counts(ash)),
                        g:sharded(g:chance(0.9) and vdt or g:dtype(), sharded_counts(bsh)) }
    end
    return { a, b, g:options(fields) }, 3
  end }

hrow { name = "segsort(sharded)", weight = 2, call = mgpu.segsort,
  args = function(g)
    local dt = g:dtype()
    local keys, shards = g:sharded(dt, nil, nil, true)
    -- heads at every shard's start (mostly), and some inside
    local heads, at = {}, 0
    for _, a in ipairs(shards) do
      local n = n_of(a)
      if n > 0 and (at == 0 or g:chance(0.9)) then heads[#heads + 1] = at + 1 end
      for i = 2, n, g:int(2, 30) do if g:chance(0.5) then heads[#heads + 1] = at + i end end
      at = at + n
    end
    local fields = { comp = g:comp() }
    if g:chance(0.4) then fields.values = g:sharded(g:dtype(), sharded_counts(shards), nil, true) end
    return { keys, g:chance(0.9) and g:index_arg(heads) or g:hostile(), g:options(fields) }, 3
  end }

hrow { name = "s:methods", weight = 1, foreign = true,
  call = function(which, s, x, y)
    if which == 1 then return SHARDED_METHODS.totable(s, x, y) end
    if which == 2 then return SHARDED_METHODS.to(s, x) end
    if which == 3 then return SHARDED_METHODS.shards(s), SHARDED_METHODS.counts(s) end
    return #s, s.dtype, tostring(s)
  end,
  args = function(g)
    local s = g:chance(0.95) and (g:sharded(g:dtype())) or g:hostile()
    local which = g:int(1, 4)
    local x = which == 2 and g:pick({ "cpu", DEV, MAIN, WORLD.other, 5 }) or g:int(-2, 100)
    return { which, s, x, g:int(-2, 100) }, 4
  end }

---------------------------------------------------------------------------
-- coverage: every function of the module, and every method, has a row

local function check_coverage()
  local covered = {}
  for _, r in ipairs(HOSTILE_ROWS) do covered[r.name] = true end
  local missing = {}
  local function need(name) if not covered[name] then missing[#missing + 1] = name end end
  local names = {}
  for k, v in pairs(mgpu) do if type(v) == "function" then names[#names + 1] = k end end
  table.sort(names)
  for _, k in ipairs(names) do need(k) end
  for k in pairs(ARRAY_METHODS) do need("a:" .. k) end
  for k in pairs(CTX_METHODS) do
    if not covered["ctx:" .. k] and not covered[k] then missing[#missing + 1] = "ctx:" .. k end
  end
  table.sort(missing)
  return missing
end

---------------------------------------------------------------------------
-- running one hostile call and checking the contract

local STATS = { calls = 0, errors = 0, ok = 0, violations = 0, messages = 0, diff_cases = 0,
                by_row = {}, message_kinds = {}, message_order = {} }
local VIOLATIONS_SHOWN, MAX_SHOWN = 0, 20

local function violation(what, detail)
  STATS.violations = STATS.violations + 1
  if VIOLATIONS_SHOWN < MAX_SHOWN or OPT.verbose then
    VIOLATIONS_SHOWN = VIOLATIONS_SHOWN + 1
    io.stdout:write("VIOLATION: ", what, "\n    ", detail, "\n")
    io.stdout:flush()
  end
end

-- A message finding: an error that does not start with "mgpu".  Counted
-- by kind (the message with its numbers blanked), the first few shown.
local function message_finding(row, err, desc)
  STATS.messages = STATS.messages + 1
  local text = type(err) == "string" and err or ("(a " .. type(err) .. ": " .. tostring(err) .. ")")
  local kind = row.name .. ": " .. text:gsub("0x%x+", "P"):gsub("%d+", "N"):gsub("got [%w.*]+", "got T")
  local k = STATS.message_kinds[kind]
  if not k then
    k = { count = 0, example = text, desc = desc }
    STATS.message_kinds[kind] = k
    STATS.message_order[#STATS.message_order + 1] = kind
    if #STATS.message_order <= 5 or OPT.verbose then
      io.stdout:write("MESSAGE: ", row.name, " raised ", string.format("%q", text), "\n    in ", desc, "\n")
      io.stdout:flush()
    end
  end
  k.count = k.count + 1
end

-- Sorts an error into: "mgpu" (the contract's), "callback" (thrown by the
-- fuzzer's own callbacks, passed through), "yield" (Lua refusing a yield
-- across the C call, or outside a coroutine), "foreign" (a Lua builtin's,
-- in rows that call builtins), or "message" (a finding).
local function classify(row, err)
  if type(err) ~= "string" then return "message" end
  -- the API allows Lua's "file:line: " in front of the message
  if err:find("^mgpu") or err:find("^[^\n]-:%d+: mgpu") then return "mgpu" end
  if err:find("fuzz-callback", 1, true) then return "callback" end
  if err:find("attempt to yield", 1, true) then return "yield" end
  if row.foreign then return "foreign" end
  return "message"
end

-- The contents of every live argument, to compare after the call.
local function snapshot(g)
  local snap = {}
  for _, a in ipairs(g.involved) do
    if not FREED[a] and not snap[a] then snap[a] = { n = #a, bytes = a:tobytes() } end
  end
  return snap
end

local function may_write(g, a)
  for _, w in ipairs(g.writes) do
    if w == a or overlaps(w, a) then return true end
  end
  return false
end

local function check_arguments(g, snap, row, desc)
  for _, a in ipairs(g.involved) do
    local s = snap[a]
    if FREED[a] then
      local ok, err = pcall(len, a)
      if ok then
        violation(row.name .. ": a freed argument still answers #a", desc)
      elseif classify(row, err) == "message" then
        message_finding(row, err, "#a of a freed argument after " .. desc)
      end
    elseif s then
      -- a finalizer armed for the call may fire only now, inside these
      -- checks' own allocations: FREED is read again after a failure
      local ok, n = pcall(len, a)
      if not ok then
        if not FREED[a] then
          violation(row.name .. ": an argument the fuzzer did not free is unusable: #a raised " .. tostring(n), desc)
        end
      elseif n ~= s.n then
        violation(row.name .. string.format(": an argument's length changed from %d to %d", s.n, n), desc)
      else
        local ok2, bytes = pcall(ARRAY_METHODS.tobytes, a)
        if not ok2 then
          if not FREED[a] then
            violation(row.name .. ": an argument's tobytes raised " .. tostring(bytes), desc)
          end
        elseif bytes ~= s.bytes and not may_write(g, a) then
          violation(row.name .. ": an input the call does not write was modified (" .. describe(a) .. ")", desc)
        end
      end
    end
  end
end

-- After a successful call: the API refuses outputs that overlap inputs
-- (and values that overlap keys); check it did, when the arrays reached
-- the call as given.
local function check_exclusive(g, row, desc)
  if not g.plain_options then return end
  for _, pair in ipairs(g.exclusive) do
    local x, y = pair[1], pair[2]
    if not FREED[x] and not FREED[y] and overlaps(x, y) then
      violation(row.name .. ": accepted overlapping arrays " .. describe(x) .. " and " .. describe(y), desc)
    end
  end
end

-- Every array a call returns must be whole.
local function check_results(row, res, desc)
  for i = 1, res.n do
    local r = res[i]
    if is_array(r) and not FREED[r] then
      local ok, err = pcall(function() return #r, r:tobytes() end)
      if not ok and not FREED[r] then -- sorts return their arguments: freed by a late finalizer?
        violation(row.name .. ": result " .. i .. " is unusable: " .. tostring(err), desc)
      end
    end
  end
end

-- The fuzzer's own context must work after every error.
local function check_health(row, desc)
  local ok, err = pcall(function()
    local x = MAIN:iota(5)
    mgpu.mergesort(x, { comp = "greater" })
    local t = x:totable()
    assert(t[1] == 5 and t[5] == 1, "mergesort gave " .. table.concat(t, " "))
  end)
  if not ok then violation(row.name .. ": the context no longer works: " .. tostring(err), desc) end
end

-- A per-call generator: the call's own stream, so that what one call draws
-- does not depend on how many numbers the previous one used.
local function case_rng(k)
  return R.rng(OPT.seed * 0x9E3779B97F4A7C15 + k * 0xD1342543DE82EF95)
end

local TRACE
if OPT.trace_file then TRACE = assert(io.open(OPT.trace_file, "w")) end

-- One line, overwritten in place (a fixed 1000 bytes: no truncation needed).
local function trace(line)
  if not TRACE then return end
  line = line:sub(1, 999)
  TRACE:seek("set", 0)
  TRACE:write(line, string.rep(" ", 999 - #line), "\n")
  TRACE:flush()
end

local clock0 = mgpu.clock()
local function elapsed() return mgpu.clock() - clock0 end

-- Invokes fn(args) in a coroutine: a yield from a callback inside the C
-- call must fail; a yield that succeeds leaves the coroutine suspended.
local function pack_ok(ok, ...) return ok, table.pack(...) end
local function invoke(fn, args, n, in_coroutine)
  if not in_coroutine then return pack_ok(pcall(fn, table.unpack(args, 1, n))) end
  local co = coroutine.create(fn)
  local ok, res = pack_ok(coroutine.resume(co, table.unpack(args, 1, n)))
  if ok and coroutine.status(co) == "suspended" then res = table.pack() end
  return ok, res
end

-- Whether --only and --skip let a row run.
local function selected(name)
  return (not OPT.only or OPT.only[name]) and not (OPT.skip and OPT.skip[name])
end

local TOTAL_WEIGHT, ACTIVE_HOSTILE = 0, {}
for _, r in ipairs(HOSTILE_ROWS) do
  if selected(r.name) then
    ACTIVE_HOSTILE[#ACTIVE_HOSTILE + 1] = r
    TOTAL_WEIGHT = TOTAL_WEIGHT + r.weight
  end
end

local function pick_row(rng)
  local x = rng:float(0, TOTAL_WEIGHT)
  for _, r in ipairs(ACTIVE_HOSTILE) do
    x = x - r.weight
    if x < 0 then return r end
  end
  return ACTIVE_HOSTILE[#ACTIVE_HOSTILE]
end

-- The generic hostile layer over a row's arguments: an argument replaced
-- by a hostile value, one dropped, one added, a nil hole.
local function mutate(g, args, n)
  if n > 0 and g:chance(0.1) then
    local i = g:int(1, n)
    args[i] = g:hostile()
    -- an array put where the row had something else may be written (it
    -- may land where the keys to sort in place were)
    if is_array(args[i]) then g.writes[#g.writes + 1] = args[i] end
    g.exclusive = {}
    g:note("arg " .. i .. " hostile")
  end
  if n > 0 and g:chance(0.03) then n = n - 1; g.exclusive = {}; g:note("last arg dropped") end
  if g:chance(0.03) then
    n = n + 1
    args[n] = g:hostile()
    if is_array(args[n]) then g.writes[#g.writes + 1] = args[n] end
    g:note("extra arg")
  end
  return n
end

-- Collector settings for one call: aggressive ones make finalizers and
-- collections happen inside the binding's allocations.
local GC_SETTINGS = {
  function() collectgarbage("incremental", 1, 400, 0) return "gc incremental 1/400" end,
  function() collectgarbage("incremental", 10, 1000, 0) return "gc incremental 10/1000" end,
  function() collectgarbage("generational", 1, 10) return "gc generational 1/10" end,
}
local function default_gc() collectgarbage("incremental", 200, 100, 13) end

local function hostile_call(k)
  local t0 = elapsed()
  local rng = case_rng(k)
  local row = pick_row(rng)
  -- finalizers of earlier calls may run anywhere: say where a crash hits
  trace(string.format("%.3f s call %d: %s: making its arguments", t0, k, row.name))
  refresh_world(rng)
  local ctx = rng:pick({ MAIN, MAIN, MAIN, MAIN, WORLD.other, WORLD.tight })
  local g = new_gen(rng, ctx)
  local args, n = row.args(g)
  if row.mutate ~= false then n = mutate(g, args, n) end
  local snap = snapshot(g)
  local in_coroutine = g:chance(0.05) and hook("coroutine")
  local desc = string.format("call %d: %s%s on %s%s%s", k, row.name, describe_args(args, n),
    CTX_NAME[ctx] or "?", #g.notes > 0 and " [" .. table.concat(g.notes, "; ") .. "]" or "",
    in_coroutine and " [in a coroutine]" or "")
  -- last, so that little else runs between them and the call
  local gc_note, armed
  if g:chance(0.05) and hook("gcmode") then gc_note = rng:pick(GC_SETTINGS)() end
  if g:chance(0.15) and hook("finalizer") then armed = g:arm_finalizers() end
  if gc_note or armed then
    desc = desc .. " [" .. (gc_note or "") .. ((gc_note and armed) and "; " or "") .. (armed or "") .. "]"
  end
  trace(string.format("%.3f s %s", elapsed(), desc))
  local ok, res = invoke(row.call, args, n, in_coroutine)
  if gc_note then default_gc() end
  trace(string.format("%.3f s checking after %s", elapsed(), desc))
  STATS.calls = STATS.calls + 1
  local rs = STATS.by_row[row.name] or { calls = 0, errors = 0 }
  STATS.by_row[row.name] = rs
  rs.calls = rs.calls + 1
  if ok then
    STATS.ok = STATS.ok + 1
    if row.after then row.after(args) end
    check_results(row, res, desc)
    check_exclusive(g, row, desc)
  else
    STATS.errors = STATS.errors + 1
    rs.errors = rs.errors + 1
    local err = res[1]
    if classify(row, err) == "message" then message_finding(row, err, desc) end
  end
  check_arguments(g, snap, row, desc)
  if not ok or k % 16 == 0 then check_health(row, desc) end
  local took = elapsed() - t0
  rs.seconds = (rs.seconds or 0) + took
  if took > 0.5 then -- a hostile call that allocates for real, or a hang in the making
    print(string.format("SLOW: %.2f s in %s", took, desc))
  end
end

---------------------------------------------------------------------------
-- diff mode: valid inputs, results against the pure-Lua reference

-- A drawer for one diff case on MAIN.
local Diff = {}
Diff.__index = Diff

function Diff:int(lo, hi) return self.rng:int(lo, hi) end
function Diff:chance(p) return self.rng:float(0, 1) < p end
function Diff:pick(t) return self.rng:pick(t) end
function Diff:dtype() return self.rng:pick(R.dtypes) end
function Diff:comp() return self:chance(0.5) and "less" or "greater" end
function Diff:int_dtype() return self.rng:pick({ "i32", "u32", "i64", "u64" }) end

-- 0..2000 elements, small ones more often.
function Diff:size()
  local r = self:int(1, 10)
  if r <= 3 then return self:int(0, 10) end
  if r <= 7 then return self:int(11, 300) end
  return self:int(301, 2000)
end

-- Random values of dt: the reference's mix (extremes, NaN, signed zeros)
-- or few distinct values (many ties).
function Diff:values(n, dt)
  if self:chance(0.5) then return self.rng:values(n, dt) end
  local map = GEN.order_map(dt, 15)
  local t = {}
  for i = 1, n do t[i] = map(self:int(0, 15)) end
  return t
end

function Diff:sorted(n, dt, comp) return (R.mergesort(self:values(n, dt), dt, comp)) end

-- An mgpu array of the Lua values t: built from the table or the bytes,
-- sometimes as a view inside a bigger array.
function Diff:upload(t, dt)
  local r = self:int(1, 4)
  if r == 1 then return MAIN:frombytes(R.pack(t, dt), dt) end
  if r == 2 then
    local full = { self.rng:value(dt) }
    for i = 1, #t do full[i + 1] = t[i] end
    full[#full + 1] = self.rng:value(dt)
    return MAIN:array(full, dt):slice(2, #t + 1)
  end
  return MAIN:array(t, dt)
end

-- An index-like argument: a Lua table or an integer array of a dtype that
-- holds every element.
function Diff:index(t)
  if self:chance(0.5) then return t end
  local dt = self:int_dtype()
  for i = 1, #t do if t[i] < 0 then dt = "i64" end end
  return MAIN:array(t, dt)
end

local function got(a) return a:totable() end

-- Each row: run(d) -> nil, or a message; d.desc describes the case.
local DIFF_ROWS = {}
local function drow(name, run) DIFF_ROWS[#DIFF_ROWS + 1] = { name = name, run = run } end

drow("merge", function(d)
  local dt, comp = d:dtype(), d:comp()
  local a, b = d:sorted(d:size(), dt, comp), d:sorted(d:size(), dt, comp)
  local vdt = d:chance(0.5) and d:dtype() or nil
  d.desc = string.format("dtype=%s comp=%s na=%d nb=%d values=%s", dt, comp, #a, #b, vdt or "none")
  local opts = { comp = comp }
  local av, bv
  if vdt then
    av, bv = GEN.index_values(#a, vdt), GEN.index_values(#b, vdt, #a + 1)
    opts.values = { d:upload(av, vdt), d:upload(bv, vdt) }
  end
  if d:chance(0.3) then opts.out = MAIN:empty(#a + #b, dt) end
  local c, cv = mgpu.merge(d:upload(a, dt), d:upload(b, dt), opts)
  local wc, wcv = R.merge(a, b, dt, comp, av, bv)
  return R.diff(got(c), wc, dt) or (vdt and R.diff(got(cv), wcv, vdt))
end)

-- A sort case's keys on the device, and its values (when vdt) beside them.
local function sort_inputs(d, keys, dt, n, vdt)
  local k = d:upload(keys, dt)
  local vals = vdt and GEN.index_values(n, vdt)
  return k, vals, vdt and d:upload(vals, vdt)
end

-- The sorted keys (and values) against the reference's.
local function sort_verdict(k, wk, dt, v, wv, vdt)
  return R.diff(got(k), wk, dt) or (vdt and R.diff(got(v), wv, vdt))
end

drow("mergesort", function(d)
  local dt, comp, n = d:dtype(), d:comp(), d:size()
  local keys = d:values(n, dt)
  local vdt = d:chance(0.5) and d:dtype() or nil
  d.desc = string.format("dtype=%s comp=%s n=%d values=%s", dt, comp, n, vdt or "none")
  local k, vals, v = sort_inputs(d, keys, dt, n, vdt)
  mgpu.mergesort(k, { comp = comp, values = v })
  local wk, wv = R.mergesort(keys, dt, comp, vals)
  return sort_verdict(k, wk, dt, v, wv, vdt)
end)

-- The radix sort: the reference's result, and mergesort's byte for byte
-- (which tells -0.0 from 0.0 and NaN from NaN).
drow("sort", function(d)
  local dt, comp, n = d:dtype(), d:comp(), d:size()
  local keys = d:values(n, dt)
  local vdt = d:chance(0.5) and d:dtype() or nil
  d.desc = string.format("dtype=%s comp=%s n=%d values=%s", dt, comp, n, vdt or "none")
  local k, vals, v = sort_inputs(d, keys, dt, n, vdt)
  local mk, _, mv = sort_inputs(d, keys, dt, n, vdt)
  mgpu.sort(k, { comp = comp, values = v })
  mgpu.mergesort(mk, { comp = comp, values = mv })
  local wk, wv = R.mergesort(keys, dt, comp, vals)
  local verdict = sort_verdict(k, wk, dt, v, wv, vdt)
  if verdict then return verdict end
  if k:tobytes() ~= mk:tobytes() then return "keys differ from mergesort's bits" end
  if v and v:tobytes() ~= mv:tobytes() then return "values differ from mergesort's bits" end
end)

local function segsort_case(d, by_flags)
  local dt, comp, n = d:dtype(), d:comp(), d:size()
  local keys = d:values(n, dt)
  local heads = SEG.random_heads(d.rng, n, d:pick({ 1, 3, 30, 300, 3000 }), d:chance(0.5))
  local vdt = d:chance(0.5) and d:dtype() or nil
  d.desc = string.format("dtype=%s comp=%s n=%d segments=%d values=%s by=%s", dt, comp, n, #heads,
    vdt or "none", by_flags and "flags" or "heads")
  local k, vals, v = sort_inputs(d, keys, dt, n, vdt)
  local opts = { comp = comp, values = v }
  if by_flags then
    opts.flags = MAIN:array(SEG.heads_to_flags(n, heads, function() return d:int(1, 9) end), d:int_dtype())
    mgpu.segsort(k, nil, opts)
  else
    mgpu.segsort(k, d:index(heads), opts)
  end
  local wk, wv = SEG.segsort(keys, heads, dt, comp, vals)
  return sort_verdict(k, wk, dt, v, wv, vdt)
end
drow("segsort", function(d) return segsort_case(d, false) end)
drow("segsort_flags", function(d) return segsort_case(d, true) end)

drow("locality_sort", function(d)
  local dt, comp, n = d:dtype(), d:comp(), d:size()
  local keys = d:values(n, dt)
  if d:chance(0.5) then -- nearly sorted: sorted, then a few swaps nearby
    keys = R.mergesort(keys, dt, comp)
    for _ = 1, d:int(0, 10) do
      if n > 1 then
        local i = d:int(1, n - 1)
        local j = math.min(n, i + d:int(1, 40))
        keys[i], keys[j] = keys[j], keys[i]
      end
    end
  end
  local vdt = d:chance(0.5) and d:dtype() or nil
  d.desc = string.format("dtype=%s comp=%s n=%d values=%s", dt, comp, n, vdt or "none")
  local k, vals, v = sort_inputs(d, keys, dt, n, vdt)
  mgpu.locality_sort(k, { comp = comp, values = v })
  local wk, wv = SEG.locality_sort(keys, dt, comp, vals)
  return sort_verdict(k, wk, dt, v, wv, vdt)
end)

drow("setop", function(d)
  local dt, comp, op = d:dtype(), d:comp(), d:pick(SET_OPS)
  local a, b = d:sorted(d:size(), dt, comp), d:sorted(d:size(), dt, comp)
  local vdt = d:chance(0.5) and d:dtype() or nil
  local alias = d:chance(0.5)
  d.desc = string.format("op=%s dtype=%s comp=%s na=%d nb=%d values=%s via=%s", op, dt, comp, #a, #b,
    vdt or "none", alias and "set_" .. op or "setop")
  local opts = { comp = comp }
  local av, bv
  if vdt then
    av, bv = GEN.index_values(#a, vdt), GEN.index_values(#b, vdt, #a + 1)
    opts.values = { d:upload(av, vdt), d:upload(bv, vdt) }
  end
  local A, B = d:upload(a, dt), d:upload(b, dt)
  local c, cv
  if alias then c, cv = mgpu["set_" .. op](A, B, opts) else c, cv = mgpu.setop(op, A, B, opts) end
  local wc, wcv = SETS.setop(op, a, b, dt, comp, av, bv)
  return R.diff(got(c), wc, dt) or (vdt and R.diff(got(cv), wcv, vdt))
end)

drow("bulk_remove", function(d)
  local dt, n = d:dtype(), d:size()
  local data = d:values(n, dt)
  local idx = {}
  for i = 1, n do if d:chance(0.3) then idx[#idx + 1] = i end end
  d.desc = string.format("dtype=%s n=%d removed=%d", dt, n, #idx)
  local out = mgpu.bulk_remove(d:upload(data, dt), d:index(idx))
  return R.diff(got(out), R.bulk_remove(data, idx), dt)
end)

drow("bulk_insert", function(d)
  local dt, n = d:dtype(), d:size()
  local data = d:values(n, dt)
  local m = d:int(0, math.max(1, n // 2))
  local pos = {}
  for i = 1, m do pos[i] = d:int(1, n + 1) end
  table.sort(pos)
  local vals = d:values(m, dt)
  d.desc = string.format("dtype=%s n=%d inserted=%d", dt, n, m)
  local out = mgpu.bulk_insert(d:upload(data, dt), d:index(pos), d:upload(vals, dt))
  return R.diff(got(out), R.bulk_insert(data, pos, vals), dt)
end)

local function diff_counts(d, m)
  local c = {}
  for i = 1, m do c[i] = d:chance(0.3) and 0 or d:int(0, 5) end
  return c
end

drow("interval_expand", function(d)
  local dt, m = d:dtype(), d:int(0, 400)
  local vals, counts = d:values(m, dt), diff_counts(d, m)
  d.desc = string.format("dtype=%s intervals=%d total=%d", dt, m, sum(counts))
  local out = mgpu.interval_expand(d:upload(vals, dt), d:index(counts))
  return R.diff(got(out), R.interval_expand(vals, counts), dt)
end)

drow("interval_gather", function(d)
  local dt, n, m = d:dtype(), d:size(), d:int(0, 300)
  local input, counts = d:values(n, dt), diff_counts(d, m)
  local gather = {}
  for i = 1, m do
    if counts[i] > n then counts[i] = n end
    gather[i] = d:int(1, n - counts[i] + 1)
  end
  d.desc = string.format("dtype=%s n=%d intervals=%d total=%d", dt, n, m, sum(counts))
  local out = mgpu.interval_gather(d:upload(input, dt), d:index(gather), d:index(counts))
  return R.diff(got(out), R.interval_gather(input, gather, counts), dt)
end)

-- interval_scatter and interval_move: destinations may overlap, where the
-- API leaves open which value lands; R.check_writes accepts any of them.
local function zeros_of(n, dt)
  local z = R.is_float(dt) and 0.0 or 0
  local t = {}
  for i = 1, n do t[i] = z end
  return t
end

local function move_case(d, scatter_only)
  local dt, m = d:dtype(), d:int(0, 300)
  local counts = diff_counts(d, m)
  local total = sum(counts)
  local n = scatter_only and total + d:int(0, 3) or d:size()
  local input = d:values(n, dt)
  local gather, scatter = {}, {}
  local span = d:int(1, 2 * total + 10)
  local acc = 0
  for i = 1, m do
    if counts[i] > n then counts[i] = n end
    gather[i] = scatter_only and acc + 1 or d:int(1, n - counts[i] + 1)
    acc = acc + counts[i]
    scatter[i] = d:int(1, math.max(1, span - counts[i] + 1))
  end
  local old, out
  if d:chance(0.5) then
    local need = 0
    for i = 1, m do if counts[i] > 0 then need = math.max(need, scatter[i] + counts[i] - 1) end end
    old = d:values(need + d:int(0, 5), dt)
    out = d:upload(old, dt)
    -- an empty interval's start must still be in 1..#out + 1
    for i = 1, m do
      if counts[i] == 0 and scatter[i] > #old + 1 then scatter[i] = d:int(1, #old + 1) end
    end
  end
  d.desc = string.format("dtype=%s n=%d intervals=%d total=%d out=%s", dt, n, m, sum(counts),
    out and tostring(#old) or "new")
  local res
  if scatter_only then
    res = mgpu.interval_scatter(d:upload(input, dt), d:index(scatter), d:index(counts), out and { out = out })
  else
    res = mgpu.interval_move(d:upload(input, dt), d:index(gather), d:index(scatter), d:index(counts),
      out and { out = out })
  end
  local want = R.interval_move(input, gather, scatter, counts, old)
  old = old or zeros_of(#want, dt)
  return R.check_writes(got(res), old, R.interval_writes(input, gather, scatter, counts), dt)
end
drow("interval_scatter", function(d) return move_case(d, true) end)
drow("interval_move", function(d) return move_case(d, false) end)

drow("load_balance", function(d)
  local counts = diff_counts(d, d:int(0, 400))
  d.desc = string.format("intervals=%d total=%d", #counts, sum(counts))
  local idx = d:index(counts)
  if type(idx) == "table" then idx = MAIN:array(counts, d:int_dtype()) end -- a table would use the default context
  return R.diff(got(mgpu.load_balance(idx)), R.load_balance(counts), "i32")
end)

drow("reduce_by_key", function(d)
  local kdt, vdt, n = d:dtype(), d:dtype(), d:size()
  -- float sums depend on the order of the adds; min and max do not
  local op = R.is_float(vdt) and d:pick({ "min", "max" }) or d:pick({ "add", "min", "max" })
  local keys = d:sorted(n, kdt, "less")
  local vals = d:values(n, vdt)
  d.desc = string.format("keys=%s values=%s op=%s n=%d", kdt, vdt, op, n)
  local k, r = mgpu.reduce_by_key(d:upload(keys, kdt), d:upload(vals, vdt), { op = op })
  local wk, wr = KEYED.reduce_by_key(keys, kdt, vals, vdt, op)
  return R.diff(got(k), wk, kdt) or R.diff(got(r), wr, vdt)
end)

drow("segreduce", function(d)
  local dt, n = d:dtype(), d:size()
  local op = R.is_float(dt) and d:pick({ "min", "max" }) or d:pick({ "add", "min", "max" })
  local vals = d:values(n, dt)
  local off = {}
  for i = 1, d:int(0, math.max(1, n // 4)) do off[i] = d:int(1, n + 1) end
  table.sort(off)
  d.desc = string.format("dtype=%s op=%s n=%d segments=%d", dt, op, n, #off)
  local r = mgpu.segreduce(d:upload(vals, dt), d:index(off), { op = op })
  return R.diff(got(r), KEYED.segreduce(vals, off, dt, op), dt)
end)

drow("join", function(d)
  local dt, comp = d:dtype(), d:comp()
  local kind = d:pick({ "inner", "left", "right", "outer" })
  local a, b = d:sorted(d:int(0, 300), dt, comp), d:sorted(d:int(0, 300), dt, comp)
  d.desc = string.format("dtype=%s comp=%s kind=%s na=%d nb=%d", dt, comp, kind, #a, #b)
  local ia, ib = mgpu.join(d:upload(a, dt), d:upload(b, dt), { kind = kind, comp = comp })
  local wa, wb = KEYED.join(a, b, dt, kind, comp)
  return R.diff(got(ia), wa, "i32") or R.diff(got(ib), wb, "i32")
end)

drow("astype", function(d)
  local from, to, n = d:dtype(), d:dtype(), d:size()
  local vals = d:values(n, from)
  d.desc = string.format("from=%s to=%s n=%d", from, to, n)
  return R.diff(got(d:upload(vals, from):astype(to)), R.astype(vals, from, to), to)
end)

drow("is_sorted", function(d)
  local dt, comp, n = d:dtype(), d:comp(), d:size()
  local vals = d:chance(0.5) and d:sorted(n, dt, comp) or d:values(n, dt)
  d.desc = string.format("dtype=%s comp=%s n=%d", dt, comp, n)
  local gotv, want = d:upload(vals, dt):is_sorted(comp), R.is_sorted(vals, dt, comp)
  if gotv ~= want then return string.format("is_sorted gave %s, want %s", gotv, want) end
end)

-- The sort and merge across a group of cpu contexts against the reference.
local DIFF_GROUP
local function diff_group(d)
  DIFF_GROUP = DIFF_GROUP or {}
  local p = d:int(1, 5)
  if not DIFF_GROUP[p] then
    local devices = {}
    for i = 1, p do devices[i] = mgpu.context { device = "cpu", memory_limit = LIMIT } end
    DIFF_GROUP[p] = mgpu.group { devices = devices }
  end
  return DIFF_GROUP[p], p
end

for _, sort in ipairs { "mergesort", "sort" } do
drow(sort .. "(sharded)", function(d)
  local grp, p = diff_group(d)
  local dt, comp, n = d:dtype(), d:comp(), d:size()
  local keys = d:values(n, dt)
  local vdt = d:chance(0.5) and d:dtype() or nil
  d.desc = string.format("p=%d dtype=%s comp=%s n=%d values=%s", p, dt, comp, n, vdt or "none")
  local s = grp:shard(keys, dt)
  local vals = vdt and GEN.index_values(n, vdt)
  local v = vdt and grp:shard(vals, vdt)
  mgpu[sort](s, { comp = comp, values = v })
  local wk, wv = R.mergesort(keys, dt, comp, vals)
  local bad = R.diff(s:totable(), wk, dt) or (vdt and R.diff(v:totable(), wv, vdt))
  if bad then return bad end
  for k, c in ipairs(s:counts()) do
    if math.abs(c - n / p) > (n + math.ceil(n / p)) / (64 * (p + 1)) + 1 then
      return string.format("shard %d holds %d of %d: past the bound", k, c, n)
    end
  end
end)
end

drow("merge(sharded)", function(d)
  local grp, p = diff_group(d)
  local dt, comp = d:dtype(), d:comp()
  local a, b = d:sorted(d:size(), dt, comp), d:sorted(d:size(), dt, comp)
  d.desc = string.format("p=%d dtype=%s comp=%s na=%d nb=%d", p, dt, comp, #a, #b)
  local av, bv = GEN.index_values(#a, "i64"), GEN.index_values(#b, "i64", #a + 1)
  local c, cv = mgpu.merge(grp:shard(a, dt), grp:shard(b, dt),
    { comp = comp, values = { grp:shard(av, "i64"), grp:shard(bv, "i64") } })
  local wc, wcv = R.merge(a, b, dt, comp, av, bv)
  return R.diff(c:totable(), wc, dt) or R.diff(cv:totable(), wcv, "i64")
end)

local ACTIVE_DIFF = {}
for _, r in ipairs(DIFF_ROWS) do
  if selected(r.name) then ACTIVE_DIFF[#ACTIVE_DIFF + 1] = r end
end

local function diff_case(k)
  local rng = case_rng(k)
  local row = rng:pick(ACTIVE_DIFF)
  local d = setmetatable({ rng = rng, desc = "" }, Diff)
  trace(string.format("%.3f s diff case %d: %s", elapsed(), k, row.name))
  local t0 = elapsed()
  local ok, res = pcall(row.run, d)
  STATS.calls = STATS.calls + 1
  STATS.diff_cases = STATS.diff_cases + 1
  local rs = STATS.by_row["diff " .. row.name] or { calls = 0, errors = 0 }
  STATS.by_row["diff " .. row.name] = rs
  rs.calls = rs.calls + 1
  local where = string.format("diff %s %s (seed %d, --case %d)", row.name, d.desc, OPT.seed, k)
  if not ok then
    STATS.errors = STATS.errors + 1
    rs.errors = rs.errors + 1
    violation("a valid call raised an error: " .. tostring(res), where)
  else
    STATS.ok = STATS.ok + 1
    if res then violation("result differs from the reference: " .. res, where) end
  end
  rs.seconds = (rs.seconds or 0) + elapsed() - t0
end

---------------------------------------------------------------------------
-- main

if OPT.list then
  print("hostile rows:")
  for _, r in ipairs(HOSTILE_ROWS) do print("  " .. r.name) end
  print("diff rows:")
  for _, r in ipairs(DIFF_ROWS) do print("  " .. r.name) end
  os.exit(0)
end

local missing = check_coverage()
if #missing > 0 then
  print("fuzz: warning: no hostile row for " .. table.concat(missing, ", "))
end

print(string.format("fuzz: seed %d, mode %s, device %s, %g s%s (reproduce: --seed %d)", OPT.seed, OPT.mode,
  DEV, OPT.seconds, (OPT.only or OPT.skip) and ", some rows" or "", OPT.seed))
io.stdout:flush()

if OPT.case then
  diff_case(OPT.case)
else
  local run_hostile = OPT.mode ~= "diff" and #ACTIVE_HOSTILE > 0
  local run_diff = OPT.mode ~= "hostile" and #ACTIVE_DIFF > 0
  if not run_hostile and not run_diff then
    io.stderr:write("fuzz: no rows to run (see --list)\n"); os.exit(2)
  end
  local pick = R.rng(OPT.seed)
  local k = 0
  while elapsed() < OPT.seconds and STATS.calls < OPT.max_calls do
    k = k + 1
    local diff = run_diff and (not run_hostile or pick:int(1, 4) == 1)
    if diff then diff_case(k) else hostile_call(k) end
    -- device memory is invisible to the collector: keep the garbage bounded
    if k % 1000 == 0 then collectgarbage() end
  end
end

local secs = elapsed()
if STATS.messages > 0 then
  print(string.format("fuzz: %d message findings of %d kinds (errors not starting with \"mgpu\"):",
    STATS.messages, #STATS.message_order))
  for i, kind in ipairs(STATS.message_order) do
    if i > 12 and not OPT.verbose then print("  ..."); break end
    local k = STATS.message_kinds[kind]
    print(string.format("  %5d x %s", k.count, kind))
  end
end
print(string.format("fuzz: %.0f calls/s (%d diff cases)", STATS.calls / math.max(secs, 1e-9), STATS.diff_cases))
if OPT.verbose then -- where the time went, by row
  local rows = {}
  for name, r in pairs(STATS.by_row) do rows[#rows + 1] = { name = name, r = r } end
  table.sort(rows, function(x, y) return (x.r.seconds or 0) > (y.r.seconds or 0) end)
  for _, x in ipairs(rows) do
    print(string.format("  %-24s %7d calls %6d errors %8.3f s", x.name, x.r.calls, x.r.errors, x.r.seconds or 0))
  end
end
print(string.format("fuzz: %d calls, %d errors raised, %d ok, %d violations, %d message findings in %.1f s (seed %d)",
  STATS.calls, STATS.errors, STATS.ok, STATS.violations, STATS.messages, secs, OPT.seed))
io.stdout:flush()
if TRACE then TRACE:close() end
local failed = STATS.violations > 0 or (OPT.strict and STATS.messages > 0)
os.exit(failed and 1 or 0)
