-- An independent pure-Lua reference for the specs.  It never calls mgpu.
--
-- Element values are Lua values as mgpu exchanges them:
--   i32, u32, i64  Lua integers
--   u64            Lua integers holding the 64 bits (values >= 2^63 are
--                  negative Lua integers, as string.pack("I8") has them)
--   f32, f64       Lua floats (f32 values are doubles exactly representable
--                  as floats)

local R = {}

local mtype, ult = math.type, math.ult
local spack, sunpack = string.pack, string.unpack

R.dtypes = { "i32", "u32", "i64", "u64", "f32", "f64" }
R.aliases = {
  int32 = "i32", uint32 = "u32", int64 = "i64", uint64 = "u64",
  float32 = "f32", float64 = "f64",
}
R.size = { i32 = 4, u32 = 4, i64 = 8, u64 = 8, f32 = 4, f64 = 8 }
-- string.pack formats (native endianness, as tobytes/frombytes use)
R.fmt = { i32 = "i4", u32 = "I4", i64 = "i8", u64 = "I8", f32 = "f", f64 = "d" }

local FLOAT = { f32 = true, f64 = true }
function R.is_float(dt) return FLOAT[dt] == true end
function R.is_int(dt) return R.size[dt] ~= nil and not FLOAT[dt] end
function R.is_signed(dt) return dt == "i32" or dt == "i64" or FLOAT[dt] == true end

R.nan = 0.0 / 0.0
R.inf = math.huge
R.I32_MIN, R.I32_MAX = -0x80000000, 0x7fffffff
R.U32_MAX = 0xffffffff
R.MAX_COUNT = 2147483647

function R.isnan(x) return x ~= x end

-- Integer ranges as Lua integers (u64: the bit patterns 0 .. -1).
function R.range(dt)
  if dt == "i32" then return R.I32_MIN, R.I32_MAX end
  if dt == "u32" then return 0, R.U32_MAX end
  if dt == "i64" then return math.mininteger, math.maxinteger end
  if dt == "u64" then return 0, -1 end
  if dt == "f32" then return -0x1.fffffep127, 0x1.fffffep127 end
  if dt == "f64" then return -math.huge, math.huge end
  error("reference: unknown dtype " .. tostring(dt))
end

---------------------------------------------------------------------------
-- float rounding

-- Rounds a double to the nearest float (C's (float)d), as a double.
function R.round_f32(x)
  return (sunpack("f", spack("f", x)))
end

-- Rounds the unsigned 64-bit integer m (bits in a Lua integer) to a float
-- with `bits` significant bits, ties to even.  Exact integer arithmetic, so
-- no double rounding.
local function round_unsigned(m, bits)
  if m == 0 then return 0.0 end
  local len = 0
  local t = m
  while t ~= 0 do t = t >> 1; len = len + 1 end   -- logical shift
  if len <= bits then
    return m + 0.0     -- m < 2^bits <= 2^53: exact
  end
  local shift = len - bits
  local q = m >> shift
  local r = m & ((1 << shift) - 1)
  local half = 1 << (shift - 1)
  if r > half or (r == half and (q & 1) == 1) then q = q + 1 end
  return (q + 0.0) * 2.0 ^ shift
end

local function round_signed(x, bits)
  if x < 0 then return -round_unsigned(-x, bits) end  -- -mininteger wraps to 2^63 bits
  return round_unsigned(x, bits)
end

---------------------------------------------------------------------------
-- conversions (astype)

local function wrap(x, to)
  if to == "i32" then return ((x + 0x80000000) & 0xffffffff) - 0x80000000 end
  if to == "u32" then return x & 0xffffffff end
  return x   -- i64, u64: same 64 bits
end

local function trunc(x)
  if x >= 0 then return math.floor(x) else return math.ceil(x) end
end

local function float_to_int(x, to)
  if x ~= x then return 0 end
  if to == "i32" then
    if x >= 2147483648.0 then return R.I32_MAX end
    if x <= -2147483649.0 then return R.I32_MIN end
    return math.tointeger(trunc(x))
  elseif to == "u32" then
    if x >= 4294967296.0 then return R.U32_MAX end
    if x <= -1.0 then return 0 end
    return math.tointeger(trunc(x)) or 0
  elseif to == "i64" then
    if x >= 0x1p63 then return math.maxinteger end
    if x <= -0x1p63 then return math.mininteger end
    return math.tointeger(trunc(x))
  elseif to == "u64" then
    if x >= 0x1p64 then return -1 end
    if x <= -1.0 then return 0 end
    if x >= 0x1p63 then
      return math.tointeger(trunc(x) - 0x1p64)   -- exact: same bits
    end
    return math.tointeger(trunc(x)) or 0
  end
  error("reference: not an integer dtype " .. tostring(to))
end

-- One element of dtype `from` converted to dtype `to` by astype's rules.
function R.convert(x, from, to)
  if from == to then return x end
  if R.is_int(from) then
    if R.is_int(to) then return wrap(x, to) end
    local bits = (to == "f32") and 24 or 53
    if from == "u64" then return round_unsigned(x, bits) end
    return round_signed(x, bits)
  else
    if to == "f64" then return x end
    if to == "f32" then return R.round_f32(x) end
    return float_to_int(x, to)
  end
end

function R.astype(t, from, to)
  local out = {}
  for i = 1, #t do out[i] = R.convert(t[i], from, to) end
  return out
end

---------------------------------------------------------------------------
-- values a Lua caller may store into an element (a[i] = v, mgpu.array)

-- Returns the element as it reads back, or nil when v does not fit dtype dt.
function R.to_element(v, dt)
  if type(v) ~= "number" then return nil end
  if FLOAT[dt] then
    v = v + 0.0
    if dt == "f32" then return R.round_f32(v) end
    return v
  end
  local i
  if mtype(v) == "integer" then
    i = v
    if dt == "i32" then
      if i < R.I32_MIN or i > R.I32_MAX then return nil end
    elseif dt == "u32" then
      if i < 0 or i > R.U32_MAX then return nil end
    end
    -- i64: any Lua integer; u64: any Lua integer (its 64 bits)
    return i
  end
  -- a float: must be an exact integer in range
  if v ~= v or v == math.huge or v == -math.huge then return nil end
  if v ~= math.floor(v) then return nil end
  if dt == "u64" then
    if v < 0 then return nil end
    if v >= 0x1p64 then return nil end
    if v >= 0x1p63 then return math.tointeger(v - 0x1p64) end
    return math.tointeger(v)
  end
  if dt == "i64" then
    if v < -0x1p63 or v >= 0x1p63 then return nil end
    return math.tointeger(v)
  end
  i = math.tointeger(v)
  if i == nil then return nil end
  return R.to_element(i, dt)
end

function R.fits(v, dt) return R.to_element(v, dt) ~= nil end

-- mgpu.array's dtype inference: i32 when every value is an integer that
-- fits i32, i64 when they are integers and some do not fit, f64 when any
-- value is a float.
function R.infer_dtype(values)
  local dt = "i32"
  for i = 1, #values do
    local v = values[i]
    if mtype(v) == "float" then return "f64" end
    if v < R.I32_MIN or v > R.I32_MAX then dt = "i64" end
  end
  return dt
end

---------------------------------------------------------------------------
-- comparators

-- Returns before(x, y): true when x orders strictly before y under comp.
function R.comparator(dt, comp)
  comp = comp or "less"
  local less
  if dt == "u64" then
    less = ult
  elseif FLOAT[dt] then
    less = function(x, y)
      if x ~= x then return false end      -- NaN is after everything
      if y ~= y then return true end
      return x < y                         -- -0.0 < 0.0 is false
    end
  else
    less = function(x, y) return x < y end
  end
  if comp == "less" then return less end
  if comp == "greater" then return function(x, y) return less(y, x) end end
  error("reference: unknown comp " .. tostring(comp))
end

-- Two keys are equivalent when neither orders before the other.
function R.equivalent(dt, x, y)
  local before = R.comparator(dt, "less")
  return not before(x, y) and not before(y, x)
end

function R.is_sorted(t, dt, comp)
  local before = R.comparator(dt, comp)
  for i = 2, #t do
    if before(t[i], t[i - 1]) then return false end
  end
  return true
end

-- std::merge: stable, ties take a first.  av/bv optional.
function R.merge(a, b, dt, comp, av, bv)
  local before = R.comparator(dt, comp)
  local c, cv = {}, (av and {}) or nil
  local na, nb = #a, #b
  local i, j, k = 1, 1, 1
  while i <= na and j <= nb do
    if before(b[j], a[i]) then
      c[k] = b[j]; if cv then cv[k] = bv[j] end; j = j + 1
    else
      c[k] = a[i]; if cv then cv[k] = av[i] end; i = i + 1
    end
    k = k + 1
  end
  while i <= na do c[k] = a[i]; if cv then cv[k] = av[i] end; i = i + 1; k = k + 1 end
  while j <= nb do c[k] = b[j]; if cv then cv[k] = bv[j] end; j = j + 1; k = k + 1 end
  return c, cv
end

-- Stable bottom-up merge sort.  Returns the sorted permutation: p[k] is the
-- 1-based index in `keys` of the k-th element of the sorted order.
function R.sort_permutation(keys, dt, comp)
  local before = R.comparator(dt, comp)
  local n = #keys
  local src, dst = {}, {}
  for i = 1, n do src[i] = i end
  local width = 1
  while width < n do
    local lo = 1
    while lo <= n do
      local mid = lo + width
      local hi = lo + 2 * width
      if mid > n + 1 then mid = n + 1 end
      if hi > n + 1 then hi = n + 1 end
      local i, j, k = lo, mid, lo
      while i < mid and j < hi do
        local pj, pi = src[j], src[i]
        if before(keys[pj], keys[pi]) then
          dst[k] = pj; j = j + 1
        else
          dst[k] = pi; i = i + 1
        end
        k = k + 1
      end
      while i < mid do dst[k] = src[i]; i = i + 1; k = k + 1 end
      while j < hi do dst[k] = src[j]; j = j + 1; k = k + 1 end
      lo = hi
    end
    src, dst = dst, src
    width = width * 2
  end
  return src
end

-- Stable sort: returns sorted copies of keys (and values, when given).
function R.mergesort(keys, dt, comp, values)
  local p = R.sort_permutation(keys, dt, comp)
  local k, v = {}, (values and {}) or nil
  for i = 1, #p do
    k[i] = keys[p[i]]
    if v then v[i] = values[p[i]] end
  end
  return k, v
end

---------------------------------------------------------------------------
-- comparing results

-- Bit-exact equality of two elements, except that every NaN equals every
-- NaN (payloads and signs of NaNs are not compared).  -0.0 ~= 0.0.
function R.same(x, y, dt)
  if type(x) ~= "number" or type(y) ~= "number" then return false end
  if FLOAT[dt] then
    if x ~= x or y ~= y then return x ~= x and y ~= y end
    return spack("d", x) == spack("d", y)
  end
  return mtype(x) == "integer" and mtype(y) == "integer" and x == y
end

function R.show(x, dt)
  if type(x) ~= "number" then return tostring(x) end
  if mtype(x) == "float" then
    if x ~= x then return "nan" end
    if x == 0 and 1 / x < 0 then return "-0.0" end
    return string.format("%.17g", x)
  end
  if dt == "u64" and x < 0 then
    return string.format("%d (u64 0x%016x)", x, x)
  end
  return string.format("%d", x)
end

-- nil when got and want have the same length and every element is
-- R.same; else a message naming the first difference.
function R.diff(got, want, dt)
  if type(got) ~= "table" then return "expected a table, got " .. type(got) end
  local n = math.max(#got, #want)
  for i = 1, n do
    if not R.same(got[i], want[i], dt) then
      return string.format("element %d differs: got %s, want %s (lengths %d, %d; dtype %s)",
        i, R.show(got[i], dt), R.show(want[i], dt), #got, #want, tostring(dt))
    end
  end
  if #got ~= #want then
    return string.format("lengths differ: got %d, want %d", #got, #want)
  end
  return nil
end

-- nil when the two byte strings are equal, else a message naming the first
-- differing element (elements of esize bytes).
function R.diff_bytes(got, want, esize)
  esize = esize or 1
  if got == want then return nil end
  if type(got) ~= "string" or type(want) ~= "string" then
    return "expected two strings, got " .. type(got) .. " and " .. type(want)
  end
  local n = math.min(#got, #want)
  -- find the first differing byte by bisection-free scan of chunks
  local pos = 1
  local chunk = 4096
  while pos <= n do
    local e = math.min(pos + chunk - 1, n)
    if got:sub(pos, e) ~= want:sub(pos, e) then
      for q = pos, e do
        if got:byte(q) ~= want:byte(q) then
          local el = (q - 1) // esize + 1
          local s = (el - 1) * esize + 1
          return string.format("bytes differ at element %d (byte %d): got %s, want %s (sizes %d, %d)",
            el, q, (got:sub(s, s + esize - 1):gsub(".", function(c) return string.format("%02x", c:byte()) end)),
            (want:sub(s, s + esize - 1):gsub(".", function(c) return string.format("%02x", c:byte()) end)),
            #got, #want)
        end
      end
    end
    pos = e + 1
  end
  return string.format("sizes differ: got %d bytes, want %d bytes", #got, #want)
end

function R.pack(t, dt)
  local f = R.fmt[dt]
  local parts = {}
  for i = 1, #t do parts[i] = spack(f, t[i]) end
  return table.concat(parts)
end

function R.unpack(s, dt)
  local f, sz = R.fmt[dt], R.size[dt]
  local t = {}
  for i = 1, #s // sz do t[i] = (sunpack(f, s, (i - 1) * sz + 1)) end
  return t
end

-- Checks a stable sort: `orig` the keys before, `keys` after, `perm` the
-- values after when the values before were 1..n (so perm[k] is the original
-- position of the k-th key).  Returns nil or a message.
function R.check_stable_sort(orig, keys, perm, dt, comp)
  local before = R.comparator(dt, comp)
  local n = #orig
  if #keys ~= n then return string.format("keys: length %d, want %d", #keys, n) end
  if #perm ~= n then return string.format("values: length %d, want %d", #perm, n) end
  local seen = {}
  for k = 1, n do
    local p = perm[k]
    if mtype(p) ~= "integer" or p < 1 or p > n or seen[p] then
      return string.format("values are not a permutation of 1..%d (position %d: %s)", n, k, tostring(p))
    end
    seen[p] = true
    if not R.same(keys[k], orig[p], dt) then
      return string.format("position %d: key %s did not come from position %d (%s)",
        k, R.show(keys[k], dt), p, R.show(orig[p], dt))
    end
    if k > 1 then
      if before(keys[k], keys[k - 1]) then
        return string.format("not sorted at position %d: %s after %s", k,
          R.show(keys[k], dt), R.show(keys[k - 1], dt))
      end
      if not before(keys[k - 1], keys[k]) and perm[k] < perm[k - 1] then
        return string.format("not stable at position %d: equal keys from positions %d then %d",
          k, perm[k - 1], perm[k])
      end
    end
  end
  return nil
end

---------------------------------------------------------------------------
-- deterministic test data (splitmix64)

local Rng = {}
Rng.__index = Rng

function R.rng(seed)
  return setmetatable({ s = seed or 1 }, Rng)
end

function Rng:next64()
  self.s = self.s + 0x9E3779B97F4A7C15
  local z = self.s
  z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
  z = (z ~ (z >> 27)) * 0x94D049BB133111EB
  return z ~ (z >> 31)
end

-- integer uniform-ish in [lo, hi] (lo <= hi, hi - lo < 2^62)
function Rng:int(lo, hi)
  local span = hi - lo + 1
  return lo + (self:next64() >> 2) % span
end

-- float in [lo, hi)
function Rng:float(lo, hi)
  local u = (self:next64() >> 11) * 0x1p-53
  return lo + (hi - lo) * u
end

function Rng:pick(list)
  return list[self:int(1, #list)]
end

-- A value of dtype dt drawn from a mix of small numbers (ties) and the
-- dtype's extremes.
function Rng:value(dt)
  local r = self:int(1, 10)
  if dt == "i32" then
    if r <= 6 then return self:int(-50, 50) end
    if r <= 8 then return self:pick({ R.I32_MIN, R.I32_MAX, R.I32_MIN + 1, R.I32_MAX - 1, -1, 0 }) end
    return self:int(R.I32_MIN, R.I32_MAX)
  elseif dt == "u32" then
    if r <= 6 then return self:int(0, 100) end
    if r <= 8 then return self:pick({ 0, R.U32_MAX, 0x7fffffff, 0x80000000, 0x80000001 }) end
    return self:int(0, R.U32_MAX)
  elseif dt == "i64" then
    if r <= 5 then return self:int(-50, 50) end
    if r <= 7 then return (1 << 53) + self:int(-3, 3) end   -- differ beyond double precision
    if r <= 8 then return self:pick({ math.mininteger, math.maxinteger, -(1 << 53) - 1, 1 << 62 }) end
    return self:next64()
  elseif dt == "u64" then
    if r <= 5 then return self:int(0, 100) end
    if r <= 7 then return math.mininteger + self:int(0, 3) end  -- 2^63 .. 2^63+3
    if r <= 8 then return self:pick({ -1, -2, math.maxinteger, 0, (1 << 53) + 1 }) end
    return self:next64()
  elseif dt == "f32" or dt == "f64" then
    local v
    if r <= 5 then v = self:int(-20, 20) / 4
    elseif r <= 7 then v = self:pick({ R.nan, math.huge, -math.huge, 0.0, -0.0, 1e-30, -1e-30 })
    elseif r <= 8 then v = self:pick({ 1e30, -1e30, 0.1, -0.1, 3.0 })
    else v = self:float(-1e6, 1e6) end
    if dt == "f32" then v = R.round_f32(v) end
    return v
  end
  error("reference: unknown dtype " .. tostring(dt))
end

function Rng:values(n, dt)
  local t = {}
  for i = 1, n do t[i] = self:value(dt) end
  return t
end

-- n sorted integers (ascending, or descending for comp "greater") with many
-- ties, starting at `start` and growing by steps in 0..maxstep.
function Rng:sorted_ints(n, start, maxstep, comp)
  local t, v = {}, start or 0
  maxstep = maxstep or 2
  for i = 1, n do
    t[i] = v
    v = v + self:int(0, maxstep)
  end
  if comp == "greater" then
    local r = {}
    for i = 1, n do r[i] = t[n + 1 - i] end
    return r
  end
  return t
end

function R.iota(n, start, step)
  start, step = start or 1, step or 1
  local t = {}
  for i = 1, n do t[i] = start + (i - 1) * step end
  return t
end

function R.concat(a, b)
  local t = {}
  for i = 1, #a do t[i] = a[i] end
  for i = 1, #b do t[#a + i] = b[i] end
  return t
end

function R.sub(t, i, j)
  local r = {}
  for k = i, j do r[#r + 1] = t[k] end
  return r
end

---------------------------------------------------------------------------
-- bulk and interval operations (1-based indices and starts, as the Lua API
-- takes them).  Arguments are Lua tables; each raises "reference: ..." on an
-- argument the contract forbids, so a broken spec shows up as such.

local function ref_error(fn, fmt, ...)
  error("reference " .. fn .. ": " .. string.format(fmt, ...), 3)
end

-- scan[i] = counts[1] + ... + counts[i-1] (0-based offsets); total = the sum.
function R.exclusive_scan(counts)
  local scan, s = {}, 0
  for i = 1, #counts do
    scan[i] = s
    if mtype(counts[i]) ~= "integer" or counts[i] < 0 then
      ref_error("exclusive_scan", "bad count %s at %d", tostring(counts[i]), i)
    end
    s = s + counts[i]
  end
  return scan, s
end

-- data without the elements at indices (sorted, unique, in 1..#data).
function R.bulk_remove(data, indices)
  local out, k, n = {}, 1, #data
  for i = 1, #indices do
    local x = indices[i]
    if mtype(x) ~= "integer" or x < 1 or x > n or (i > 1 and x <= indices[i - 1]) then
      ref_error("bulk_remove", "bad index %s at %d", tostring(x), i)
    end
  end
  local j = 1
  for i = 1, n do
    if j <= #indices and indices[j] == i then
      j = j + 1
    else
      out[k] = data[i]; k = k + 1
    end
  end
  return out
end

-- values[i] goes before data[positions[i]] (positions sorted, in
-- 1..#data+1, repeats kept in order, as table.insert(t, pos, v) one after
-- the other with the positions shifted).
function R.bulk_insert(data, positions, values)
  local n, m = #data, #positions
  if #values ~= m then ref_error("bulk_insert", "%d positions, %d values", m, #values) end
  for i = 1, m do
    local p = positions[i]
    if mtype(p) ~= "integer" or p < 1 or p > n + 1 or (i > 1 and p < positions[i - 1]) then
      ref_error("bulk_insert", "bad position %s at %d", tostring(p), i)
    end
  end
  local out, k, j = {}, 1, 1
  for d = 1, n + 1 do
    while j <= m and positions[j] == d do
      out[k] = values[j]; k = k + 1; j = j + 1
    end
    if d <= n then out[k] = data[d]; k = k + 1 end
  end
  return out
end

-- values[i] repeated counts[i] times.
function R.interval_expand(values, counts)
  if #values ~= #counts then
    ref_error("interval_expand", "%d values, %d counts", #values, #counts)
  end
  R.exclusive_scan(counts)
  local out, k = {}, 1
  for i = 1, #counts do
    local v = values[i]
    for _ = 1, counts[i] do out[k] = v; k = k + 1 end
  end
  return out
end

-- For each of the sum(counts) outputs, the (1-based) interval producing it.
function R.load_balance(counts)
  R.exclusive_scan(counts)
  local out, k = {}, 1
  for i = 1, #counts do
    for _ = 1, counts[i] do out[k] = i; k = k + 1 end
  end
  return out
end

-- Interval i copies input[gather[i] ..] to out[scatter[i] ..], counts[i]
-- elements, intervals in order (a later interval overwrites an earlier one
-- where they overlap, as the cpu backend does).  `out`: a table the result
-- starts from (copied, not modified), or nil for a new one just long enough
-- for the furthest end of a non-empty interval, `zero` (default 0) where
-- nothing is written.
function R.interval_move(input, gather, scatter, counts, out, zero)
  local m = #counts
  if #gather ~= m or #scatter ~= m then
    ref_error("interval_move", "%d gather, %d scatter, %d counts", #gather, #scatter, m)
  end
  R.exclusive_scan(counts)
  local res = {}
  if out then
    for i = 1, #out do res[i] = out[i] end
  else
    local len = 0
    for i = 1, m do
      if counts[i] > 0 then len = math.max(len, scatter[i] + counts[i] - 1) end
    end
    for i = 1, len do res[i] = zero or 0 end
  end
  local nin, nout = #input, #res
  for i = 1, m do
    local g, s, c = gather[i], scatter[i], counts[i]
    if mtype(g) ~= "integer" or g < 1 or g + c - 1 > nin or g > nin + 1 then
      ref_error("interval_move", "gather[%d] = %s with count %d, input %d", i, tostring(g), c, nin)
    end
    if mtype(s) ~= "integer" or s < 1 or (c > 0 and s + c - 1 > nout) or (out and s > nout + 1) then
      ref_error("interval_move", "scatter[%d] = %s with count %d, out %d", i, tostring(s), c, nout)
    end
    for j = 0, c - 1 do res[s + j] = input[g + j] end
  end
  return res
end

-- interval i copies input[gather[i] .. gather[i]+counts[i]-1]; the
-- intervals follow each other.
function R.interval_gather(input, gather, counts)
  local scan, total = R.exclusive_scan(counts)
  local scatter = {}
  for i = 1, #counts do scatter[i] = scan[i] + 1 end
  -- the result is exactly sum(counts) long, every element written
  local out = {}
  for i = 1, total do out[i] = false end
  return R.interval_move(input, gather, scatter, counts, out)
end

-- the consecutive runs of input (counts[1] elements, then counts[2], ...)
-- go to out[scatter[i] ..].  out and zero as for R.interval_move.
function R.interval_scatter(input, scatter, counts, out, zero)
  local scan, total = R.exclusive_scan(counts)
  if total > #input then
    ref_error("interval_scatter", "counts total %d, input %d", total, #input)
  end
  local gather = {}
  for i = 1, #counts do gather[i] = scan[i] + 1 end
  return R.interval_move(input, gather, scatter, counts, out, zero)
end

-- For overlapping destinations: w[p] = the list of values the intervals
-- write to out[p] (absent where nothing is written).
function R.interval_writes(input, gather, scatter, counts)
  local w = {}
  for i = 1, #counts do
    for j = 0, counts[i] - 1 do
      local p = scatter[i] + j
      local l = w[p]
      if not l then l = {}; w[p] = l end
      l[#l + 1] = input[gather[i] + j]
    end
  end
  return w
end

-- nil when every element of got (a table) is `old[p]` where nothing is
-- written and one of the written values (w from R.interval_writes) where
-- something is; else a message naming the first offender.
function R.check_writes(got, old, w, dt)
  if #got ~= #old then
    return string.format("length %d, want %d", #got, #old)
  end
  for p = 1, #got do
    local l = w[p]
    if l then
      local ok = false
      for _, v in ipairs(l) do
        if R.same(got[p], v, dt) then ok = true; break end
      end
      if not ok then
        local shown = {}
        for k, v in ipairs(l) do shown[k] = R.show(v, dt) end
        return string.format("element %d = %s is none of the values written there (%s)",
          p, R.show(got[p], dt), table.concat(shown, ", "))
      end
    elseif not R.same(got[p], old[p], dt) then
      return string.format("element %d = %s, written though no interval covers it (was %s)",
        p, R.show(got[p], dt), R.show(old[p], dt))
    end
  end
  return nil
end

---------------------------------------------------------------------------
-- scan, reduce, sorted_search, unique, compact

-- The identity of op in dtype dt (an exclusive scan's first output): 0 for
-- add; for min the largest element (NaN for floats: NaN is above every
-- number), for max the smallest (-inf for floats).
function R.reduce_identity(dt, op)
  if op == "add" then return FLOAT[dt] and 0.0 or 0 end
  if FLOAT[dt] then
    if op == "min" then return R.nan end
    if op == "max" then return -math.huge end
  else
    local lo, hi = R.range(dt)
    if op == "min" then return hi end
    if op == "max" then return lo end
  end
  error("reference: unknown reduction " .. tostring(op))
end

-- acc op x in dtype dt: integer add wraps in the dtype (u64 and i64 as Lua
-- integers wrap already), f32 add rounds every partial sum to float (a
-- double sum of two floats rounded to float is the float sum), min and
-- max by the sorts' order, keeping acc on a tie.
function R.reducer(dt, op)
  if op == "add" then
    if dt == "f32" then return function(acc, x) return R.round_f32(acc + x) end end
    if FLOAT[dt] then return function(acc, x) return acc + x end end
    return function(acc, x) return wrap(acc + x, dt) end
  end
  local before = R.comparator(dt, "less")
  -- ties of the order (-0.0 and 0.0, NaNs) go by IEEE totalOrder: the
  -- float's bits as a sign-magnitude integer (min takes the first of it)
  local key = function(x) return x end
  if FLOAT[dt] then
    local fmt = dt == "f32" and "<f" or "<d"
    local ifmt = dt == "f32" and "<I4" or "<i8"
    key = function(x)
      local b = string.unpack(ifmt, string.pack(fmt, x))
      if dt == "f32" then
        if b >= 0x80000000 then return -(b - 0x80000000) - 1 end
        return b
      end
      if b < 0 then return -(b & 0x7fffffffffffffff) - 1 end
      return b
    end
  end
  if op == "min" then
    return function(acc, x)
      if before(x, acc) then return x end
      if before(acc, x) then return acc end
      if key(x) < key(acc) then return x end
      return acc
    end
  end
  if op == "max" then
    return function(acc, x)
      if before(acc, x) then return x end
      if before(x, acc) then return acc end
      if key(x) > key(acc) then return x end
      return acc
    end
  end
  error("reference: unknown reduction " .. tostring(op))
end

-- Prefix scan of t (left to right, the first element starting the sum):
-- out[i] = op over t[1..i-1] (exclusive, out[1] the identity) or over
-- t[1..i] (inclusive).  Returns out and the op over all of t (the
-- identity for an empty t).
function R.scan(t, dt, op, inclusive)
  op = op or "add"
  local f = R.reducer(dt, op)
  local out, n = {}, #t
  if n == 0 then return out, R.reduce_identity(dt, op) end
  local acc = t[1]
  out[1] = inclusive and acc or R.reduce_identity(dt, op)
  for i = 2, n do
    if not inclusive then out[i] = acc end
    acc = f(acc, t[i])
    if inclusive then out[i] = acc end
  end
  return out, acc
end

-- op over all of t; add of nothing is 0, min or max of nothing an error.
function R.reduce(t, dt, op)
  op = op or "add"
  if #t == 0 and op ~= "add" then ref_error("reduce", "%s of no elements", op) end
  local _, total = R.scan(t, dt, op, true)
  return total
end

-- 1-based positions: for each needle, 1 + the number of haystack elements
-- ordered before it (side "left") or not ordered after it ("right"), i.e.
-- the first j in 1..#hay+1 where hay[j] is not before the needle (left) or
-- is after it (right).  A binary search, as hay is sorted by comp.
function R.sorted_search(needles, hay, dt, side, comp)
  local before = R.comparator(dt, comp or "less")
  local right = side == "right"
  if side ~= nil and side ~= "left" and not right then
    ref_error("sorted_search", "unknown side %s", tostring(side))
  end
  local pos, m = {}, #hay
  for i = 1, #needles do
    local x = needles[i]
    local lo, hi = 1, m + 1
    while lo < hi do
      local mid = (lo + hi) // 2
      local go
      if right then go = not before(x, hay[mid]) else go = before(hay[mid], x) end
      if go then lo = mid + 1 else hi = mid end
    end
    pos[i] = lo
  end
  return pos
end

-- The same by a linear scan (for small inputs: a check of the binary one).
function R.sorted_search_linear(needles, hay, dt, side, comp)
  local before = R.comparator(dt, comp or "less")
  local pos = {}
  for i = 1, #needles do
    local x, j = needles[i], 1
    while j <= #hay do
      local stop
      if side == "right" then stop = before(x, hay[j]) else stop = not before(hay[j], x) end
      if stop then break end
      j = j + 1
    end
    pos[i] = j
  end
  return pos
end

-- Runs of consecutive equivalent keys (under "less": NaNs equal, -0.0 ==
-- 0.0): the first key of each run (its exact value), that element's value
-- (when vals is given, else nil) and the run lengths.
function R.unique(keys, dt, vals)
  local before = R.comparator(dt, "less")
  local uk, uv, counts = {}, (vals and {}) or nil, {}
  local n, i = #keys, 1
  while i <= n do
    local j = i
    while j + 1 <= n and not before(keys[i], keys[j + 1])
      and not before(keys[j + 1], keys[i]) do
      j = j + 1
    end
    local k = #uk + 1
    uk[k] = keys[i]
    if uv then uv[k] = vals[i] end
    counts[k] = j - i + 1
    i = j + 1
  end
  return uk, uv, counts
end

-- The elements of data (and of vals, when given) whose flag is not 0.
function R.compact(data, flags, vals)
  if #flags ~= #data then ref_error("compact", "%d flags, %d data", #flags, #data) end
  local out, ov = {}, (vals and {}) or nil
  for i = 1, #data do
    if flags[i] ~= 0 then
      out[#out + 1] = data[i]
      if ov then ov[#ov + 1] = vals[i] end
    end
  end
  return out, ov
end

return R
