-- An independent pure-Lua reference for mgpu.segsort and mgpu.locality_sort
-- (it never calls mgpu).  Segments are given as in the Lua API: `heads`, a
-- table of 1-based segment starts (sorted, unique, in 1..n; head 1 may be
-- omitted), or `flags`, a table of n integers where non-zero marks a
-- segment start (element 1 always starts one).  Keys compare with
-- reference.lua's comparator (NaN last under "less", the exact reverse
-- under "greater"); the sort is stable within each segment and values move
-- with their keys.

local R = require "helpers.reference"

local mtype = math.type

local S = {}

local function ref_error(fmt, ...)
  error("reference segsort: " .. string.format(fmt, ...), 3)
end

-- The segment starts for n elements and 1-based heads: a sorted list that
-- begins with 1 (when n > 0).  Raises "reference segsort: ..." on heads the
-- contract forbids, so a broken spec shows up as such.
function S.starts(n, heads)
  local starts = {}
  if n > 0 then starts[1] = 1 end
  for i = 1, #heads do
    local h = heads[i]
    if mtype(h) ~= "integer" or h < 1 or h > n or (i > 1 and h <= heads[i - 1]) then
      ref_error("bad head %s at %d (n = %d)", tostring(h), i, n)
    end
    if h ~= 1 then starts[#starts + 1] = h end
  end
  return starts
end

-- The 1-based heads marked by non-zero flags (element 1 included when
-- n > 0, whatever flags[1] is).
function S.flags_to_heads(flags)
  local heads = {}
  if #flags > 0 then heads[1] = 1 end
  for i = 2, #flags do
    if flags[i] ~= 0 then heads[#heads + 1] = i end
  end
  return heads
end

-- n flags marking heads: `on` (default 1) at each head, `off` (default 0)
-- elsewhere.  on may be a function(i) giving the flag of head i.
function S.heads_to_flags(n, heads, on, off)
  local f = {}
  off = off or 0
  for i = 1, n do f[i] = off end
  for _, h in ipairs(heads) do
    f[h] = (type(on) == "function") and on(h) or (on or 1)
  end
  return f
end

-- seg[i] = the 1-based number of the segment holding element i.
function S.segment_ids(n, heads)
  local starts = S.starts(n, heads)
  local seg, s = {}, 0
  local nexth = 1
  for i = 1, n do
    if starts[nexth] == i then s = s + 1; nexth = nexth + 1 end
    seg[i] = s
  end
  return seg
end

-- The stable segmented sort permutation: p[k] is the 1-based index in keys
-- of the element that ends at position k.
function S.sort_permutation(keys, heads, dt, comp)
  local n = #keys
  local starts = S.starts(n, heads)
  local p = {}
  for j = 1, #starts do
    local lo = starts[j]
    local hi = (starts[j + 1] or (n + 1)) - 1
    if hi == lo then
      p[lo] = lo
    else
      local sub = {}
      for i = lo, hi do sub[i - lo + 1] = keys[i] end
      local q = R.sort_permutation(sub, dt, comp)
      for k = 1, #q do p[lo + k - 1] = lo + q[k] - 1 end
    end
  end
  return p
end

-- Segmented sort: returns sorted copies of keys (and values, when given).
function S.segsort(keys, heads, dt, comp, values)
  local p = S.sort_permutation(keys, heads, dt, comp or "less")
  local k, v = {}, (values and {}) or nil
  for i = 1, #p do
    k[i] = keys[p[i]]
    if v then v[i] = values[p[i]] end
  end
  return k, v
end

function S.segsort_flags(keys, flags, dt, comp, values)
  if #flags ~= #keys then ref_error("%d flags for %d keys", #flags, #keys) end
  return S.segsort(keys, S.flags_to_heads(flags), dt, comp, values)
end

-- Locality sort is a plain stable sort.
function S.locality_sort(keys, dt, comp, values)
  return R.mergesort(keys, dt, comp or "less", values)
end

-- Checks a segmented sort in O(n): `orig` the keys before, `keys` after,
-- `perm` the values after when the values before were 1..n (perm[k] is the
-- original position of the k-th key).  Every element must stay in its
-- segment, carry its own key, and each segment must be sorted; with stable
-- (the default) equal keys of a segment keep their order.  Returns nil or
-- a message naming the first offence.
function S.check(orig, keys, perm, heads, dt, comp, stable)
  if stable == nil then stable = true end
  local before = R.comparator(dt, comp or "less")
  local n = #orig
  if #keys ~= n then return string.format("keys: length %d, want %d", #keys, n) end
  if #perm ~= n then return string.format("values: length %d, want %d", #perm, n) end
  local seg = S.segment_ids(n, heads)
  local seen = {}
  for k = 1, n do
    local p = perm[k]
    if mtype(p) ~= "integer" or p < 1 or p > n or seen[p] then
      return string.format("values are not a permutation of 1..%d (position %d: %s)", n, k, tostring(p))
    end
    seen[p] = true
    if seg[p] ~= seg[k] then
      return string.format("position %d (segment %d) holds the element from position %d (segment %d)",
        k, seg[k], p, seg[p])
    end
    if not R.same(keys[k], orig[p], dt) then
      return string.format("position %d: key %s did not come from position %d (%s)",
        k, R.show(keys[k], dt), p, R.show(orig[p], dt))
    end
    if k > 1 and seg[k - 1] == seg[k] then
      if before(keys[k], keys[k - 1]) then
        return string.format("segment %d not sorted at position %d: %s after %s", seg[k], k,
          R.show(keys[k], dt), R.show(keys[k - 1], dt))
      end
      if stable and not before(keys[k - 1], keys[k]) and perm[k] < perm[k - 1] then
        return string.format("not stable at position %d: equal keys from positions %d then %d",
          k, perm[k - 1], perm[k])
      end
    end
  end
  return nil
end

-- Random 1-based heads for n elements: segment lengths drawn uniformly from
-- 1 .. 2*mean - 1 (mean `mean`).  Head 1 is included when with_first.
function S.random_heads(rng, n, mean, with_first)
  local heads = {}
  if with_first and n > 0 then heads[1] = 1 end
  local h = 1
  while true do
    h = h + rng:int(1, 2 * mean - 1)
    if h > n then break end
    heads[#heads + 1] = h
  end
  return heads
end

-- Heads at k*T + d for every k >= 1 and d in offsets, within 2..n, sorted
-- and unique (1-based: d = 1 puts a head on the first element of tile k+1
-- of a T-element tiling, d = 0 on the last element of tile k).
function S.boundary_heads(n, T, offsets)
  local set, heads = {}, {}
  for k = 1, n // T + 1 do
    for _, d in ipairs(offsets) do
      local h = k * T + d
      if h >= 2 and h <= n and not set[h] then set[h] = true; heads[#heads + 1] = h end
    end
  end
  table.sort(heads)
  return heads
end

return S
