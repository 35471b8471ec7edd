-- Assertion glue for the specs: compares against the pure-Lua reference
-- (helpers/reference.lua) and reports the first difference instead of
-- dumping whole arrays.  Nothing here calls into mgpu except the array
-- methods totable/tobytes of the arrays it is given.

local R = require "helpers.reference"
local busted = require "busted"
local assert = require "luassert"

local C = {}

local function fail(msg, level)
  busted.fail(msg, (level or 1) + 1)
end
C.fail = fail

local function label_of(label)
  if label == nil or label == "" then return "" end
  return tostring(label) .. ": "
end

-- Fails with message msg (prefixed with label) when msg is not nil.
function C.no_diff(msg, label)
  if msg ~= nil then fail(label_of(label) .. msg, 2) end
end

-- got and want are Lua tables of elements of dtype dt; NaN matches NaN,
-- everything else bit-exact (-0.0 ~= 0.0).
function C.table_eq(got, want, dt, label)
  local d = R.diff(got, want, dt)
  if d then fail(label_of(label) .. d, 2) end
end

-- arr an mgpu.array: its dtype must be dt (when given) and its elements want.
function C.array_eq(arr, want, dt, label)
  if dt ~= nil and arr.dtype ~= dt then
    fail(label_of(label) .. "dtype " .. tostring(arr.dtype) .. ", want " .. dt, 2)
  end
  if #arr ~= #want then
    fail(string.format("%slength %d, want %d", label_of(label), #arr, #want), 2)
  end
  local d = R.diff(arr:totable(), want, dt or arr.dtype)
  if d then fail(label_of(label) .. d, 2) end
end

-- Two byte strings (tobytes) equal; reports the first differing element.
function C.bytes_eq(got, want, esize, label)
  local d = R.diff_bytes(got, want, esize)
  if d then fail(label_of(label) .. d, 2) end
end

-- Two arrays hold the same bytes (and the same dtype and length).
function C.same_array(x, y, label)
  if x.dtype ~= y.dtype then
    fail(label_of(label) .. "dtypes differ: " .. tostring(x.dtype) .. " vs " .. tostring(y.dtype), 2)
  end
  if #x ~= #y then
    fail(string.format("%slengths differ: %d vs %d", label_of(label), #x, #y), 2)
  end
  local d = R.diff_bytes(x:tobytes(), y:tobytes(), R.size[x.dtype])
  if d then fail(label_of(label) .. d, 2) end
end

function C.truthy(v, msg)
  if not v then fail(msg or "expected a true value", 2) end
  return v
end

function C.equal(got, want, msg)
  if got ~= want then
    fail(string.format("%sgot %s, want %s", label_of(msg), tostring(got), tostring(want)), 2)
  end
end

-- Lua pattern matching `name` (an identifier or a number such as "-1") as
-- a whole word.
function C.word(name)
  local start = name:sub(1, 1) == "-" and "%f[%w_%-]" or "%f[%w_]"
  return start .. (name:gsub("[%.%-%+%*%?%[%]%^%$%(%)%%]", "%%%0")) .. "%f[^%w_]"
end

-- Lua pattern matching s literally.
function C.lit(s)
  return (s:gsub("[%.%-%+%*%?%[%]%^%$%(%)%%]", "%%%0"))
end

-- Calls fn, which must raise a string error.  The message (after an
-- optional "file:line: " position prefix) must start with fname (a string,
-- or a list of alternatives) and match every further pattern (a Lua pattern,
-- or a list of alternative patterns).  Returns the message.
local raises_at

function C.raises(fn, fname, ...)
  return raises_at(1, fn, fname, ...)
end

-- The same for helpers that wrap C.raises: failures are reported `extra`
-- levels further up the stack.
function C.raises_at(extra, fn, fname, ...)
  return raises_at(1 + extra, fn, fname, ...)
end

-- Scaffolding for bad-input specs.  h.guard{{array, expected}, ...} names
-- the arrays a call must leave intact; h.E(fn, fname, patterns...) expects
-- fn to raise a message starting with fname and matching the patterns, then
-- checks the guarded arrays and runs context_works().  h.at(value, pos)
-- gives the patterns for "got <value> at position <pos>".  Call h.reset()
-- from before_each.
function C.bad_input_harness(context_works)
  local h = { keep = {} }
  function h.guard(list) h.keep = list end
  function h.reset() h.keep = {} end
  function h.E(fn, fname, ...)
    local msg = raises_at(1, fn, fname, ...) -- one frame less than C.raises_at
    for i, p in ipairs(h.keep) do
      C.array_eq(p[1], p[2], p[1].dtype, "argument " .. i .. " after the error")
    end
    context_works()
    return msg
  end
  function h.at(value, pos)
    return C.word(tostring(value)), "position%s+" .. pos .. "%f[%D]"
  end
  return h
end

raises_at = function(lv, fn, fname, ...)
  local ok, err = pcall(fn)
  if ok then
    fail("expected an error (" .. tostring(type(fname) == "table" and fname[1] or fname) ..
      "), but the call succeeded", lv + 1)
  end
  if type(err) ~= "string" then
    fail("error value is a " .. type(err) .. ", not a string: " .. tostring(err), lv + 1)
  end
  local msg = err:gsub("^[^%s]+:%d+: ", "", 1)
  if fname ~= nil then
    local names = type(fname) == "table" and fname or { fname }
    local okname = false
    for _, n in ipairs(names) do
      if msg:sub(1, #n) == n then okname = true end
    end
    if not okname then
      fail("error message does not start with " .. table.concat(names, " or ") ..
        ": " .. msg, lv + 1)
    end
  end
  for i = 1, select("#", ...) do
    local pats = select(i, ...)
    if type(pats) ~= "table" then pats = { pats } end
    local found = false
    for _, p in ipairs(pats) do
      if msg:find(p) then found = true end
    end
    if not found then
      fail("error message lacks " .. table.concat(pats, " | ") .. ": " .. msg, lv + 1)
    end
  end
  return msg
end

-- Calls fn, which must not raise; returns its results.
function C.ok(fn, ...)
  local res = table.pack(pcall(fn, ...))
  if not res[1] then fail("unexpected error: " .. tostring(res[2]), 2) end
  return table.unpack(res, 2, res.n)
end

-- Checks the shape of a stats result of mgpu.segsort or mgpu.locality_sort
-- (with busted's assert): integer fields tiles, blocksort_tiles and windows
-- (0 <= windows < blocksort_tiles, and no passes when windows > 0), and an
-- array part of {merge = m, copy = c}, one per global merge pass, with
-- 0 <= m, c and m + c <= tiles.  Returns the number of passes and the total
-- of merged tiles.
function C.sort_stats(st, label)
  label = label or "stats"
  assert.are.equal("table", type(st), label .. ": stats is not a table")
  assert.are.equal("integer", math.type(st.tiles), label .. ": tiles is not an integer")
  assert.are.equal("integer", math.type(st.blocksort_tiles), label .. ": blocksort_tiles is not an integer")
  assert.is_true(st.tiles >= 0 and st.blocksort_tiles >= 0, label .. ": negative tile counts")
  local passes, merged = #st, 0
  assert.is_true(passes <= 32, label .. ": more than 32 passes")
  for p = 1, passes do
    local e = st[p]
    assert.are.equal("table", type(e), label .. ": pass " .. p .. " is not a table")
    local m, c = e.merge, e.copy
    assert.are.equal("integer", math.type(m), label .. ": pass " .. p .. " merge is not an integer")
    assert.are.equal("integer", math.type(c), label .. ": pass " .. p .. " copy is not an integer")
    assert.is_true(m >= 0 and m <= st.tiles,
      string.format("%s: pass %d merge = %d, tiles = %d", label, p, m, st.tiles))
    assert.is_true(c >= 0 and c <= st.tiles,
      string.format("%s: pass %d copy = %d, tiles = %d", label, p, c, st.tiles))
    assert.is_true(m + c <= st.tiles,
      string.format("%s: pass %d merge %d + copy %d > tiles %d", label, p, m, c, st.tiles))
    merged = merged + m
  end
  if st.blocksort_tiles <= 1 then
    assert.are.equal(0, passes, label .. ": merge passes after a single blocksort tile")
  end
  -- windows: tile boundaries merged in place by the one-launch early exit
  assert.are.equal("integer", math.type(st.windows), label .. ": windows is not an integer")
  assert.is_true(st.windows >= 0 and st.windows <= math.max(0, st.blocksort_tiles - 1),
    string.format("%s: windows = %d, blocksort_tiles = %d", label, st.windows, st.blocksort_tiles))
  if st.windows > 0 then
    assert.are.equal(0, passes, label .. ": merge passes after the one-launch early exit")
  end
  return passes, merged
end

return C
