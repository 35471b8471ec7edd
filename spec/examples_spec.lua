-- examples/entities.lua, the data-preparation job of the search and scan
-- primitives, run as a user runs it (lua5.4, a device argument) on every
-- backend; its summary checked against the same job done here with Lua
-- loops over the same data (mgpu.random gives the same data on every
-- backend for a seed).  examples/group.lua, the sort across a group, on
-- three cpu contexts.  examples/demo.lua and examples/tables.lua run in
-- spec/luajit_spec.lua.

local mgpu = require "mgpu"
local backends = require "helpers.backends"
local shell = require "helpers.shell"

local N, CELLS = 1000000, 4096 -- as in examples/entities.lua

-- The job with Lua loops: live entities (health ~= 0), their cells'
-- counts, the busiest cell and the number of occupied cells.
local function reference()
  local ctx = mgpu.context { device = "cpu" }
  local cell = ctx:random(N, 0, CELLS - 1, "u32", 1):totable()
  local health = ctx:random(N, 0, 9, "i32", 2):totable()
  local count, live = {}, 0
  for i = 1, N do
    if health[i] ~= 0 then
      live = live + 1
      count[cell[i]] = (count[cell[i]] or 0) + 1
    end
  end
  local occupied, busiest, lowest = 0, 0, math.huge
  for c, k in pairs(count) do
    occupied = occupied + 1
    if k > busiest then busiest = k end
    if c < lowest then lowest = c end
  end
  return { live = live, occupied = occupied, busiest = busiest, lowest = lowest }
end

backends.each(function(_, device)
  it("examples/entities.lua gives the job's answer", function()
    local dir = shell.build_dir()
    local p = assert(io.popen(string.format(
      "LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='%s/?.so;;' lua5.4 examples/entities.lua %s 2>&1",
      dir, device)))
    local out = p:read("a")
    assert(p:close(), out)
    local n, live, occupied, cells = out:match("(%d+) entities, (%d+) alive in (%d+) occupied cells of (%d+)")
    assert(n, out)
    local busiest, first, last_end = out:match(
      "busiest cell holds (%d+); cell 0 starts at (%d+); the last cell's run ends at (%d+)")
    assert(busiest, out)
    local want = reference()
    assert.are.equal(N, tonumber(n))
    assert.are.equal(CELLS, tonumber(cells))
    assert.are.equal(want.live, tonumber(live))
    assert.are.equal(want.occupied, tonumber(occupied))
    assert.are.equal(want.busiest, tonumber(busiest))
    -- cell 0's entities start at the first live entity (1-based) when
    -- cell 0 is occupied or not: every live cell is >= 0
    assert.are.equal(1, tonumber(first))
    -- starts is exclusive (0-based): the last run ends where the live end
    assert.are.equal(want.live, tonumber(last_end))
    assert.is_true(out:find("on " .. device, 1, true) ~= nil, out)
  end)
end)

describe("examples/group.lua", function()
  it("sorts a million keys across three cpu contexts", function()
    local p = assert(io.popen(string.format(
      "LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='%s/?.so;;' lua5.4 examples/group.lua cpu 3 2>&1",
      shell.build_dir())))
    local out = p:read("a")
    assert(p:close(), out)
    local n, shards = out:match("(%d+) keys sorted on 3 cpu contexts in [%d.]+ ms; shards of ([%d, ]+)\n")
    assert(n, out)
    local total = 0
    for c in shards:gmatch("%d+") do total = total + tonumber(c) end
    assert.are.equal(1000000, tonumber(n))
    assert.are.equal(1000000, total)
    local smallest, largest = out:match(
      "ordered across shards: true; ids kept: true; smallest (%d+), largest (%d+)")
    assert(smallest, out)
    -- the same keys, made here, and their extremes by a Lua loop
    local g = mgpu.group { devices = { "cpu", "cpu", "cpu" } }
    local lo, hi = math.huge, -math.huge
    for _, x in ipairs(g:random(1000000, 0, 999999, "i32", 7):totable()) do
      if x < lo then lo = x end
      if x > hi then hi = x end
    end
    assert.are.equal(lo, tonumber(smallest))
    assert.are.equal(hi, tonumber(largest))
  end)
end)
