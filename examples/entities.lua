-- entities.lua - data preparation that stays on the device: a million
-- entities, each in a grid cell, some dead.  Drop the dead, sort the rest
-- by cell, and find each cell's entities, with no round trip through Lua
-- tables until the summary at the end.
--
--   lua5.4 examples/entities.lua [device]     (default: the default context)
local mgpu = require "mgpu"

local ctx = arg[1] and mgpu.context { device = arg[1] } or mgpu.default_context()
local N, CELLS = 1000000, 4096

local cell = ctx:random(N, 0, CELLS - 1, "u32", 1) -- each entity's cell
local id = ctx:iota(N, 1, 1, "i32")                -- and its id
local health = ctx:random(N, 0, 9, "i32", 2)       -- 0: dead (one in ten)

local t0 = mgpu.clock()
-- the living, with their ids
local live_cell, live_id = mgpu.compact(cell, health, { values = id })
-- by cell (stable: ids stay in order within a cell)
mgpu.mergesort(live_cell, { values = live_id })
-- the occupied cells and how many live in each
local cells, counts = mgpu.unique(live_cell, { counts = true })
-- where each occupied cell's entities start in live_id (1-based)
local starts = mgpu.scan(counts)
-- and for every cell of the grid, where its entities would start
local grid = ctx:iota(CELLS, 0, 1, "u32")
local first = mgpu.sorted_search(grid, live_cell)
ctx:sync()
local t1 = mgpu.clock()

local live = #live_cell
print(string.format("%d entities, %d alive in %d occupied cells of %d (%.2f ms on %s)",
  N, live, #cells, CELLS, (t1 - t0) * 1e3, ctx.device))
print(string.format("busiest cell holds %d; cell 0 starts at %d; the last cell's run ends at %d",
  mgpu.reduce(counts, "max"), first[1], starts[#starts] + counts[#counts]))
assert(mgpu.reduce(counts) == live, "every live entity is in one cell")
