-- Pure-Lua references for the LuaJIT scripts, written for Lua 5.1 syntax
-- and independent of mgpu: orders (NaN after every number under "less",
-- -0.0 equivalent to 0.0), a stable merge and sort, a seeded generator.
-- spec/helpers/sets.lua (the multiset reference) runs on top of this
-- module's comparator: R.install() makes it require this as
-- helpers.reference.
local R = {}

local function less(x, y)
  if x ~= x then return false end -- NaN is after everything
  if y ~= y then return true end
  return x < y
end

function R.comparator(_, comp)
  if comp == "greater" then return function(x, y) return less(y, x) end end
  return less
end

function R.merge(a, b, comp, av, bv)
  local lt = R.comparator(nil, comp)
  local c, cv, i, j = {}, {}, 1, 1
  while i <= #a or j <= #b do
    -- ties take a first: b goes first only when strictly before
    if j <= #b and (i > #a or lt(b[j], a[i])) then
      c[#c + 1] = b[j]
      if bv then cv[#cv + 1] = bv[j] end
      j = j + 1
    else
      c[#c + 1] = a[i]
      if av then cv[#cv + 1] = av[i] end
      i = i + 1
    end
  end
  return c, cv
end

-- A stable sort (a merge sort), keys and values together.
function R.sort(keys, comp, vals)
  local n = #keys
  if n <= 1 then
    local k, v = {}, {}
    for i = 1, n do k[i] = keys[i]; if vals then v[i] = vals[i] end end
    return k, v
  end
  local h = math.floor(n / 2)
  local ka, kb, va, vb = {}, {}, vals and {}, vals and {}
  for i = 1, h do ka[i] = keys[i]; if vals then va[i] = vals[i] end end
  for i = h + 1, n do
    kb[i - h] = keys[i]; if vals then vb[i - h] = vals[i] end
  end
  ka, va = R.sort(ka, comp, va)
  kb, vb = R.sort(kb, comp, vb)
  return R.merge(ka, kb, comp, vals and va, vals and vb)
end

function R.sorted(t, comp)
  local lt = R.comparator(nil, comp)
  for i = 2, #t do
    if lt(t[i], t[i - 1]) then return false end
  end
  return true
end

-- A small LCG on doubles (exact below 2^53): the same sequence everywhere.
function R.rng(seed)
  local s = seed % 2147483647
  if s == 0 then s = 1 end
  local g = {}
  function g.next()
    s = (s * 48271) % 2147483647
    return s
  end
  function g.int(lo, hi) return lo + g.next() % (hi - lo + 1) end
  return g
end

function R.random_ints(g, n, lo, hi)
  local t = {}
  for i = 1, n do t[i] = g.int(lo, hi) end
  return t
end

function R.is_float(dt) return dt == "f32" or dt == "f64" end

function R.show(x) return tostring(x) end

function R.install()
  package.loaded["helpers.reference"] = R
end

return R
