-- mgpu: Modern GPU primitives for Lua.
--
-- The C module (mgpu.core) does the work and every argument check under
-- Lua 5.4; under LuaJIT the FFI binding mgpu.ffi (over libmgpu.so) does.
-- This file is the Lua-side surface shared by both: the public table and
-- how arrays print.  It parses under Lua 5.1 syntax for LuaJIT's sake.
local core
if type(jit) == "table" then
  core = require "mgpu.ffi"
else
  core = require "mgpu.core"
end

local mgpu = {}
for name, value in pairs(core) do
  if name:sub(1, 1) ~= "_" then mgpu[name] = value end
end
mgpu._VERSION = core._VERSION

-- Printing, after the seeds' PrintArray: a header, then rows of ten values
-- each led by the 1-based index of its first element.  Arrays of more than
-- ten rows show their first and last three rows around "...".
local ROW, HEAD_ROWS, TAIL_ROWS = 10, 3, 3

local function format_value(v, float_dtype)
  if float_dtype then
    if v ~= v then return "nan" end
    if v == math.huge then return "inf" end
    if v == -math.huge then return "-inf" end
    return string.format("%.6g", v)
  end
  if type(v) == "number" then return string.format("%d", v) end
  -- LuaJIT's int64_t/uint64_t cdata print with a suffix
  return (tostring(v):gsub("U?LL$", ""))
end

-- header, then the rows of n elements of dtype that fetch(i, j) gives
local function rows_tostring(header, n, dtype, fetch)
  local lines = { header }
  if n == 0 then return lines[1] end
  local rows = math.floor((n + ROW - 1) / ROW)
  local shown = {} -- { first index, values } per printed row; false = "..."
  local function add_row(r)
    local i = (r - 1) * ROW + 1
    shown[#shown + 1] = { i, fetch(i, math.min(i + ROW - 1, n)) }
  end
  if rows <= HEAD_ROWS + TAIL_ROWS + 4 then
    for r = 1, rows do add_row(r) end
  else
    for r = 1, HEAD_ROWS do add_row(r) end
    shown[#shown + 1] = false
    for r = rows - TAIL_ROWS + 1, rows do add_row(r) end
  end
  local float_dtype = dtype == "f32" or dtype == "f64"
  local width, index_width = 4, #tostring(n)
  for _, row in ipairs(shown) do
    if row then
      for k, v in ipairs(row[2]) do
        row[2][k] = format_value(v, float_dtype)
        width = math.max(width, #row[2][k])
      end
    end
  end
  local value_fmt = "%" .. (width + 1) .. "s"
  for _, row in ipairs(shown) do
    if row then
      local cells = {}
      for k, s in ipairs(row[2]) do cells[k] = value_fmt:format(s) end
      lines[#lines + 1] = string.format("%" .. (index_width + 1) .. "d: %s",
        row[1], table.concat(cells))
    else
      lines[#lines + 1] = string.rep(" ", index_width + 1) .. "  ..."
    end
  end
  return table.concat(lines, "\n")
end

-- #a of a freed array raises "... freed"; any other error (a finalizer's,
-- under LuaJIT) goes on.
local function length_or_freed(x)
  local ok, n = pcall(function() return #x end)
  if ok then return n end
  if not tostring(n):find("freed", 1, true) then error(n, 0) end
  return nil
end

local function array_tostring(a)
  local n = length_or_freed(a)
  if not n then return string.format("mgpu.array<%s> (freed)", a.dtype) end
  return rows_tostring(string.format("mgpu.array<%s>[%d] %s", a.dtype, n,
    a.device), n, a.dtype, function(i, j) return a:totable(i, j) end)
end

-- A sharded array prints as the whole, its header naming the shards.
local function sharded_tostring(s)
  local n = length_or_freed(s)
  if not n then return string.format("mgpu.sharded<%s> (a shard freed)", s.dtype) end
  local header = string.format("mgpu.sharded<%s>[%d] over %s, shards of %s",
    s.dtype, n, tostring(s.group), table.concat(s:counts(), " "))
  return rows_tostring(header, n, s.dtype,
    function(i, j) return s:totable(i, j) end)
end

core._sharded_metatable.__tostring = sharded_tostring

if core._set_tostring then
  core._set_tostring(array_tostring)
else
  core._array_metatable.__tostring = array_tostring
end

return mgpu
