-- A small test runner for the scripts in spec/luajit/, which run under
-- LuaJIT (spawned by spec/luajit_spec.lua) where busted is not loaded.
--
--   local T = require "luajit.harness"
--   T.test("name", function() T.eq(got, want) end)
--   T.done()   -- prints "N passed, M failed" and exits non-zero on failure
--
-- T.device is the device the script tests ($MGPU_SPEC_DEVICE, else "cpu").
local T = {}

T.device = os.getenv("MGPU_SPEC_DEVICE") or "cpu"

local passed, failed = 0, 0

function T.test(name, fn)
  local ok, err = xpcall(fn, debug.traceback)
  if ok then
    passed = passed + 1
  else
    failed = failed + 1
    io.write("FAIL ", name, "\n", tostring(err), "\n")
  end
end

local function show(v)
  if type(v) == "table" then
    local parts = {}
    for i = 1, #v do parts[i] = show(v[i]) end
    return "{" .. table.concat(parts, ", ") .. "}"
  end
  if type(v) == "string" then return string.format("%q", v) end
  return tostring(v)
end
T.show = show

-- Equal values: NaN equals NaN, tables elementwise (exact, 64-bit cdata
-- against each other or numbers by value).
local function same(a, b)
  if type(a) == "table" and type(b) == "table" then
    if #a ~= #b then return false end
    for i = 1, #a do
      if not same(a[i], b[i]) then return false end
    end
    return true
  end
  if a ~= a and b ~= b then return true end
  return a == b
end
T.same = same

function T.eq(got, want, what)
  if not same(got, want) then
    error((what and what .. ": " or "") .. "expected " .. show(want)
      .. ", got " .. show(got), 2)
  end
end

function T.ok(cond, what)
  if not cond then error(what or "assertion failed", 2) end
end

-- fn() raises an error whose message contains `text` (plain).
function T.raises(text, fn, ...)
  local ok, err = pcall(fn, ...)
  if ok then error("expected an error containing " .. show(text), 2) end
  if not tostring(err):find(text, 1, true) then
    error("expected an error containing " .. show(text) .. ", got "
      .. show(tostring(err)), 2)
  end
end

function T.done()
  io.write(passed, " passed, ", failed, " failed\n")
  os.exit(failed == 0 and 0 or 1)
end

return T
