-- An independent pure-Lua reference for the multiset operations
-- (mgpu.setop and its aliases).  It never calls mgpu.
--
-- The four functions are the classic two-cursor loops of the C++ standard
-- library (std::set_intersection, set_union, set_difference,
-- set_symmetric_difference), with multiset semantics: the k-th occurrence
-- of a key in a matches the k-th occurrence of an equivalent key in b.
-- Keys are compared with reference.lua's R.comparator(dt, comp), so NaN
-- orders after every number under "less" (before under "greater"), all
-- NaNs are equivalent, and -0.0 is equivalent to 0.0.
--
-- Values travel with their keys: intersection and difference take a's
-- values; union and symmetric difference take the value of the side that
-- supplied the key.  On a match, union emits a's key and value and skips
-- b's (so for equivalent but different keys such as -0.0 and 0.0, or two
-- NaNs with different payloads, the output key is a's).
--
--   S.setop(op, a, b, dt, comp, av, bv) -> c [, cv]
--   S.intersection(a, b, dt, comp, av, bv), S.union, S.difference,
--   S.symmetric_difference: the same with that op.
--
-- a, b: Lua arrays of keys of dtype dt, sorted by comp ("less" when nil).
-- av, bv: optional Lua arrays of values (#a and #b elements); cv is
-- returned only when av is given.

local R = require "helpers.reference"

local S = {}

S.ops = { "intersection", "union", "difference", "symmetric_difference" }

-- The most outputs each op can give: min(na, nb), na + nb, na, na + nb.
function S.capacity(op, na, nb)
  if op == "intersection" then return math.min(na, nb) end
  if op == "union" then return na + nb end
  if op == "difference" then return na end
  if op == "symmetric_difference" then return na + nb end
  error("sets: unknown op " .. tostring(op))
end

-- An output buffer: emit(key, value) appends; value ignored without values.
local function out_buffer(with_values)
  local c, cv, k = {}, (with_values and {}) or nil, 0
  local function emit(key, val)
    k = k + 1
    c[k] = key
    if cv then cv[k] = val end
  end
  return c, cv, emit
end

-- std::set_intersection: an element of a is emitted when it matches one
-- of b; both cursors move on.
function S.intersection(a, b, dt, comp, av, bv)
  local before = R.comparator(dt, comp)
  local c, cv, emit = out_buffer(av ~= nil)
  local na, nb = #a, #b
  local i, j = 1, 1
  while i <= na and j <= nb do
    if before(a[i], b[j]) then
      i = i + 1
    elseif before(b[j], a[i]) then
      j = j + 1
    else
      emit(a[i], av and av[i])
      i = i + 1
      j = j + 1
    end
  end
  return c, cv
end

-- std::set_union: every element of a, plus the elements of b that match
-- none of a.  On a match a's element is emitted and b's skipped.
function S.union(a, b, dt, comp, av, bv)
  local before = R.comparator(dt, comp)
  local c, cv, emit = out_buffer(av ~= nil)
  local na, nb = #a, #b
  local i, j = 1, 1
  while i <= na do
    if j > nb then
      while i <= na do emit(a[i], av and av[i]); i = i + 1 end
      return c, cv
    end
    if before(b[j], a[i]) then
      emit(b[j], bv and bv[j])
      j = j + 1
    else
      emit(a[i], av and av[i])
      if not before(a[i], b[j]) then j = j + 1 end
      i = i + 1
    end
  end
  while j <= nb do emit(b[j], bv and bv[j]); j = j + 1 end
  return c, cv
end

-- std::set_difference: the elements of a that match none of b.
function S.difference(a, b, dt, comp, av, bv)
  local before = R.comparator(dt, comp)
  local c, cv, emit = out_buffer(av ~= nil)
  local na, nb = #a, #b
  local i, j = 1, 1
  while i <= na do
    if j > nb then
      while i <= na do emit(a[i], av and av[i]); i = i + 1 end
      return c, cv
    end
    if before(a[i], b[j]) then
      emit(a[i], av and av[i])
      i = i + 1
    else
      if not before(b[j], a[i]) then i = i + 1 end
      j = j + 1
    end
  end
  return c, cv
end

-- std::set_symmetric_difference: the elements of a that match none of b
-- and the elements of b that match none of a, in merged order.
function S.symmetric_difference(a, b, dt, comp, av, bv)
  local before = R.comparator(dt, comp)
  local c, cv, emit = out_buffer(av ~= nil)
  local na, nb = #a, #b
  local i, j = 1, 1
  while i <= na do
    if j > nb then
      while i <= na do emit(a[i], av and av[i]); i = i + 1 end
      return c, cv
    end
    if before(a[i], b[j]) then
      emit(a[i], av and av[i])
      i = i + 1
    else
      if before(b[j], a[i]) then
        emit(b[j], bv and bv[j])
      else
        i = i + 1
      end
      j = j + 1
    end
  end
  while j <= nb do emit(b[j], bv and bv[j]); j = j + 1 end
  return c, cv
end

local BY_NAME = {
  intersection = S.intersection,
  union = S.union,
  difference = S.difference,
  symmetric_difference = S.symmetric_difference,
}

function S.setop(op, a, b, dt, comp, av, bv)
  local f = BY_NAME[op]
  if not f then error("sets: unknown op " .. tostring(op), 2) end
  return f(a, b, dt, comp, av, bv)
end

---------------------------------------------------------------------------
-- checks for results the contract leaves partly open

-- A key identity for membership tests: the element's exact bits, except
-- that every NaN is one key.
local function ident(x, dt)
  if R.is_float(dt) then
    if x ~= x then return "nan" end
    return string.pack("d", x)
  end
  return x
end

-- Counts of each key (by ident) in the Lua array t.
local function tally(t, dt)
  local n = {}
  for i = 1, #t do
    local k = ident(t[i], dt)
    n[k] = (n[k] or 0) + 1
  end
  return n
end

-- For results the contract only bounds (unsorted inputs, or
-- duplicates = false on inputs that repeat keys): nil when `got` (a Lua
-- array of keys) has at most S.capacity(op, #a, #b) elements, each one an
-- element of a or b (exact bits; NaN any NaN); with `sorted`, also sorted
-- by comp; with `bounded`, no key appears more often than in a and b
-- together (each input element is emitted at most once).  Else a message.
function S.check_loose(op, got, a, b, dt, comp, sorted, bounded)
  local cap = S.capacity(op, #a, #b)
  if #got > cap then
    return string.format("%s: %d elements, more than the capacity %d", op, #got, cap)
  end
  local ta, tb = tally(a, dt), tally(b, dt)
  local seen = {}
  local before = R.comparator(dt, comp)
  for i = 1, #got do
    local x = got[i]
    if type(x) ~= "number" then
      return string.format("%s: element %d is a %s", op, i, type(x))
    end
    local k = ident(x, dt)
    local avail = (ta[k] or 0) + (tb[k] or 0)
    if avail == 0 then
      return string.format("%s: element %d = %s is no key of either input", op, i, R.show(x, dt))
    end
    seen[k] = (seen[k] or 0) + 1
    if bounded and seen[k] > avail then
      return string.format("%s: key %s appears %d times, but only %d times in a and b together",
        op, R.show(x, dt), seen[k], avail)
    end
    if sorted and i > 1 and before(x, got[i - 1]) then
      return string.format("%s: not sorted at element %d: %s after %s", op, i,
        R.show(x, dt), R.show(got[i - 1], dt))
    end
  end
  return nil
end

return S
