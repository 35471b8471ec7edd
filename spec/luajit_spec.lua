-- mgpu under LuaJIT: runs each script of spec/luajit/ (all but the
-- harness and the references) with `luajit`, on each backend, over the FFI
-- binding (lua/mgpu/ffi.lua) and the build's libmgpu.so.  A script prints
-- "N passed, M failed" and exits non-zero when any check failed.  Pending
-- where luajit is not installed or the build has no libmgpu.so.
local backends = require "helpers.backends"

local function have(cmd)
  return os.execute("command -v " .. cmd .. " >/dev/null 2>&1") == true
end

-- The build directory of the module under test: the first cpath entry.
local function build_dir()
  local first = package.cpath:match("^([^;]*)")
  return first and first:match("^(.*)/%?%.so$")
end

local function exists(path)
  local f = io.open(path)
  if f then f:close() end
  return f ~= nil
end

local SCRIPTS = { "arrays", "sort_merge", "setop", "search_bulk" }

describe("LuaJIT", function()
  local dir = build_dir()
  if not have("luajit") then
    pending("luajit is not installed")
    return
  end
  if not (dir and exists(dir .. "/libmgpu.so")) then
    pending("the build has no libmgpu.so")
    return
  end
  for _, device in ipairs(backends.names) do
    describe("[" .. device .. "]", function()
      if device == "cuda" and not backends.has_cuda() then
        pending("no CUDA device")
        return
      end
      for _, name in ipairs(SCRIPTS) do
        it(name, function()
          local cmd = string.format(
            "MGPU_LIB='%s/libmgpu.so' MGPU_SPEC_DEVICE='%s' "
              .. "LUA_PATH='lua/?.lua;lua/?/init.lua;spec/?.lua;;' "
              .. "luajit spec/luajit/%s.lua 2>&1", dir, device, name)
          local p = assert(io.popen(cmd))
          local out = p:read("a")
          local ok = p:close()
          local summary = out:match("(%d+ passed, %d+ failed)%s*$")
          assert(ok and summary and summary:match(" 0 failed$"),
            name .. " under luajit:\n" .. out)
          assert.truthy(tonumber(summary:match("^%d+")) > 0)
        end)
      end
    end)
  end
end)
