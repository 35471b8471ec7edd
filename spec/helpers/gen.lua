-- Test-data generators shared by the merge and mergesort specs (pure Lua;
-- no mgpu calls).

local R = require "helpers.reference"

local G = {}

-- n integers drawn uniformly from [0, V], returned ascending (counting sort).
function G.sorted_uniform(rng, n, V)
  local counts = {}
  for _ = 1, n do
    local v = rng:int(0, V)
    counts[v] = (counts[v] or 0) + 1
  end
  local t, k = {}, 0
  for v = 0, V do
    local c = counts[v]
    if c then
      for _ = 1, c do k = k + 1; t[k] = v end
    end
  end
  return t
end

function G.reverse(t)
  local r, n = {}, #t
  for i = 1, n do r[i] = t[n + 1 - i] end
  return r
end

-- Maps integers in [0, V] to keys of dtype dt, preserving their order under
-- "less" and crossing the interesting boundaries of each dtype: negative
-- numbers for i32, 2^31 for u32, 2^53 (values a double cannot tell apart)
-- for i64, 2^63 for u64 (wrapped Lua integers), fractions for floats.
function G.order_map(dt, V)
  local h = V // 2
  if dt == "i32" then return function(v) return v - h end end
  if dt == "u32" then return function(v) return 0x80000000 - h + v end end
  if dt == "i64" then return function(v) return (1 << 53) - h + v end end
  if dt == "u64" then return function(v) return math.maxinteger - h + v end end  -- wraps past 2^63
  if dt == "f32" then return function(v) return (v - h) / 4 end end
  if dt == "f64" then return function(v) return (v - h) * 0.125 end end
  error("gen: unknown dtype " .. tostring(dt))
end

-- n sorted keys of dtype dt (ascending for "less", descending for
-- "greater"), with ties: drawn from V + 1 distinct values.
function G.sorted_keys(rng, n, V, dt, comp)
  local f = G.order_map(dt, V)
  local t = G.sorted_uniform(rng, n, V)
  for i = 1, n do t[i] = f(t[i]) end
  if comp == "greater" then t = G.reverse(t) end
  return t
end

-- Values 1..n (or start..start+n-1) as elements of dtype vdt: distinct, so
-- they show where each key came from.
function G.index_values(n, vdt, start)
  start = start or 1
  local t = {}
  if R.is_float(vdt) then
    for i = 1, n do t[i] = (start + i - 1) + 0.0 end
  else
    for i = 1, n do t[i] = start + i - 1 end
  end
  return t
end

-- Random keys of dtype dt from the reference's mix (extremes, ties, NaN,
-- infinities, signed zeros), sorted by the reference for comp.
function G.mixed_sorted(rng, n, dt, comp)
  local t = rng:values(n, dt)
  return (R.mergesort(t, dt, comp))
end

-- Interesting float keys.
G.float_pool = { R.nan, R.inf, -R.inf, 0.0, -0.0, 1.5, -1.5, 2.0, 1e-300, -1e300, 0.1, 3.0 }

function G.float_keys(rng, n, dt)
  local t = {}
  for i = 1, n do
    local v = rng:pick(G.float_pool)
    if dt == "f32" then v = R.round_f32(v) end
    t[i] = v
  end
  return t
end

-- Eight-byte patterns that a value move must keep bit for bit: NaNs with
-- payloads and signs, a signalling NaN, -0.0, denormals, infinities.
G.odd_f64_bits = {
  0x7ff8000000000123, 0xfff8000000000456, 0x7ff0000000000001,
  0x8000000000000000, 0x0000000000000001, 0x7ff0000000000000, 0xfff0000000000000,
  0x3ff0000000000000, 0x000fffffffffffff,
}
G.odd_f32_bits = {
  0x7fc00123, 0xffc00456, 0x7f800001, 0x80000000, 0x00000001, 0x7f800000, 0xff800000,
  0x3f800000, 0x007fffff,
}

-- A byte string of n elements cycling through the odd patterns.
function G.odd_bytes(n, vdt)
  local parts = {}
  if vdt == "f64" or vdt == "i64" or vdt == "u64" then
    for i = 1, n do parts[i] = string.pack("I8", G.odd_f64_bits[(i - 1) % #G.odd_f64_bits + 1]) end
  else
    for i = 1, n do parts[i] = string.pack("I4", G.odd_f32_bits[(i - 1) % #G.odd_f32_bits + 1]) end
  end
  return table.concat(parts)
end

-- Element k of a byte string of esize-byte elements.
function G.chunk(s, k, esize)
  return s:sub((k - 1) * esize + 1, k * esize)
end

-- The bytes of elements perm[1], perm[2], ... of s.
function G.permute_bytes(s, perm, esize)
  local parts = {}
  for i = 1, #perm do parts[i] = G.chunk(s, perm[i], esize) end
  return table.concat(parts)
end

return G
