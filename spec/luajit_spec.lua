-- mgpu under LuaJIT: runs the test scripts of spec/luajit/ with `luajit`,
-- on each backend, over the FFI binding (lua/mgpu/ffi.lua) and the build's
-- libmgpu.so.  A script prints "N passed, M failed" and exits non-zero when
-- any check failed.  parity.lua runs under both interpreters, which must
-- print the same.  Pending where luajit is not installed or the build has
-- no libmgpu.so.
local shell = require "helpers.shell"
local have = shell.have
local build_dir = shell.build_dir
local exists = shell.exists
local backends = require "helpers.backends"

local SCRIPTS = { "arrays", "midcall", "sort_merge", "setop", "search_bulk", "keyed", "hostile", "groups" }

describe("lua/mgpu/ffi_cdef.lua", function()
  -- declarations alone, whitespace-insensitive
  local function normal(text)
    return (text:gsub("%s+", " "):gsub(" ?([%(%)%*,;{}=%[%]]) ?", "%1")
      :gsub("^ ", ""):gsub(" $", ""))
  end

  it("declares what src/mgpu.h declares", function()
    local h = assert(io.open("src/mgpu.h")):read("a")
    h = h:gsub("/%*.-%*/", ""):gsub("\n#[^\n]*", "\n")
      :gsub('extern "C" {', ""):gsub("MGPU_MAX_PASSES", "32")
      :gsub("MGPU_MAX_WRAPS", "32")
    h = h:gsub("}%s*$", "") -- the closing brace of extern "C"
    local decls = dofile("lua/mgpu/ffi_cdef.lua")
    assert.are.equal(normal(h), normal(decls))
  end)
end)

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
      -- The output of a script under lua5.4 and under luajit, line by line.
      local function same_output(script)
        local function run(interp)
          local p = assert(io.popen(string.format(
            "MGPU_LIB='%s/libmgpu.so' MGPU_SPEC_DEVICE='%s' MGPU_DEVICE='%s' "
              .. "LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='%s/?.so;;' "
              .. "%s %s 2>&1", dir, device, device, dir, interp, script)))
          local out = p:read("a")
          return p:close(), out
        end
        local ok54, want = run("lua5.4")
        assert(ok54, want)
        local okjit, got = run("luajit")
        assert(okjit, got)
        local wl, gl = {}, {}
        for line in want:gmatch("[^\n]*\n") do wl[#wl + 1] = line end
        for line in got:gmatch("[^\n]*\n") do gl[#gl + 1] = line end
        for i = 1, math.max(#wl, #gl) do
          assert.are.equal(wl[i], gl[i], script .. " line " .. i)
        end
        return want
      end

      it("prints what Lua 5.4 prints for the same calls (spec/luajit/parity.lua)", function()
        assert.truthy(same_output("spec/luajit/parity.lua"):match("\n(%d+) cases\n$"))
      end)

      it("runs examples/demo.lua as Lua 5.4 does", function()
        same_output("examples/demo.lua")
      end)

      it("runs examples/tables.lua as Lua 5.4 does", function()
        assert.truthy(same_output("examples/tables.lua"):match("outer%-join rows"))
      end)
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
