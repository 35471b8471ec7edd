-- The Lua reference of mgpu.reduce_by_key, mgpu.segreduce and mgpu.join:
-- straightforward loops over Lua tables, written from the definitions in
-- docs/API.md (not from the C code).  The reductions are
-- helpers.reference's (R.reducer, R.reduce_identity), which the scan specs
-- already hold to the definition.

local R = require "helpers.reference"

local K = {}

-- Runs of consecutive equivalent keys: their first keys, and op over each
-- run's values (in vdt), left to right.
function K.reduce_by_key(keys, kdt, vals, vdt, op)
  op = op or "add"
  local f = R.reducer(vdt, op)
  local ok, ov = {}, {}
  local i = 1
  while i <= #keys do
    local j = i
    local acc = vals[i]
    while j + 1 <= #keys and R.equivalent(kdt, keys[i], keys[j + 1]) do
      j = j + 1
      acc = f(acc, vals[j])
    end
    ok[#ok + 1] = keys[i]
    ov[#ov + 1] = acc
    i = j + 1
  end
  return ok, ov
end

-- Segment i is vals[offsets[i] .. offsets[i + 1] - 1] (1-based; the last
-- runs to #vals); an empty one gives identity (the op's when nil).
function K.segreduce(vals, offsets, dt, op, identity)
  op = op or "add"
  local f = R.reducer(dt, op)
  if identity == nil then identity = R.reduce_identity(dt, op) end
  local out = {}
  for i = 1, #offsets do
    local s = offsets[i]
    local e = (offsets[i + 1] or #vals + 1) - 1
    if e < s then
      out[i] = identity
    else
      local acc = vals[s]
      for k = s + 1, e do acc = f(acc, vals[k]) end
      out[i] = acc
    end
  end
  return out
end

-- Every pair (i, j) of equivalent keys, by two loops; then the rows with no
-- partner that the kind keeps; then all of them ordered by key (a row's key
-- is its a key, or its b key when it has none), ties by i then j.
function K.join(a, b, dt, kind, comp)
  kind = kind or "inner"
  local before = R.comparator(dt, comp or "less")
  local rows = {}
  local a_hit, b_hit = {}, {}
  for i = 1, #a do
    for j = 1, #b do
      if not before(a[i], b[j]) and not before(b[j], a[i]) then
        rows[#rows + 1] = { i, j, a[i] }
        a_hit[i], b_hit[j] = true, true
      end
    end
  end
  if kind == "left" or kind == "outer" then
    for i = 1, #a do
      if not a_hit[i] then rows[#rows + 1] = { i, 0, a[i] } end
    end
  end
  if kind == "right" or kind == "outer" then
    for j = 1, #b do
      if not b_hit[j] then rows[#rows + 1] = { 0, j, b[j] } end
    end
  end
  table.sort(rows, function(x, y)
    if before(x[3], y[3]) then return true end
    if before(y[3], x[3]) then return false end
    if x[1] ~= y[1] then return x[1] < y[1] end
    return x[2] < y[2]
  end)
  local ia, ib = {}, {}
  for r = 1, #rows do ia[r], ib[r] = rows[r][1], rows[r][2] end
  return ia, ib
end

return K
