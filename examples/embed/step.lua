-- step.lua - one step of the host's simulation, scripted (particles.c).
-- It returns the step: sort the particles by cell, in place, with their ids
-- beside them, and say how many are alive (dead ones have the cell
-- 0xFFFFFFFF, the largest u32, so after the sort they are the tail).
local mgpu = require "mgpu"

local DEAD = 0xFFFFFFFF

return function(cells, ids)
  mgpu.mergesort(cells, { values = ids })
  -- the first dead particle, by bisection over the sorted cells
  local lo, hi = 1, #cells + 1
  while lo < hi do
    local mid = (lo + hi) // 2
    if cells[mid] == DEAD then hi = mid else lo = mid + 1 end
  end
  return lo - 1
end
