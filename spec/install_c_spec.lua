-- A C host builds against the installed library: `cmake --install` of the
-- build under test into a scratch prefix, then examples/c/sort_merge.c
-- compiled with pkg-config and with find_package(mgpu), run on every
-- backend, its output checked against the same sort and merge in Lua; and
-- examples/embed (a host that embeds Lua and lends its buffers to a
-- script), which checks the script's work against what the host knows.
local shell = require "helpers.shell"
local have = shell.have
local build_dir = shell.build_dir
local backends = require "helpers.backends"
local R = require "helpers.reference"

local function run(cmd)
  local p = assert(io.popen(cmd .. " 2>&1"))
  local out = p:read("a")
  return p:close(), out
end

local function read(path)
  local f = io.open(path)
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

describe("the installed C library", function()
  local dir = build_dir()
  local cache = dir and read(dir .. "/CMakeCache.txt")
  if not (cache and have("cmake") and have("cc") and have("pkg-config")) then
    pending("needs cmake, cc, pkg-config and a CMake build of the module")
    return
  end
  if cache:find("fsanitize", 1, true) then
    pending("a sanitized build: its library needs the sanitizer runtime to link")
    return
  end

  local prefix = os.tmpname()
  os.remove(prefix)
  local ok, out = run(string.format("cmake --install %q --prefix %q", dir, prefix))
  assert(ok, out)
  local a, b = { 7, 3, 9, 1, 5, 3, 8, 0 }, { 6, 2, 2, 4, 9, 1, 0, 7 }
  local want = R.merge(R.mergesort(a, "i32"), R.mergesort(b, "i32"), "i32")
  local expected = table.concat(want, " ")

  local ex = prefix .. "/ex"
  it("installs mgpu.h, libmgpu.so and .a, mgpu.pc and the CMake package", function()
    for _, f in ipairs { "include/mgpu.h", "lib/libmgpu.so", "lib/libmgpu.a",
        "lib/pkgconfig/mgpu.pc", "lib/cmake/mgpu/mgpuConfig.cmake" } do
      assert.is_truthy(read(prefix .. "/" .. f), f .. " is not installed")
    end
  end)

  it("builds with pkg-config and with find_package(mgpu)", function()
    local pc = string.format("PKG_CONFIG_PATH=%q", prefix .. "/lib/pkgconfig")
    local ok1, out1 = run(string.format(
      "mkdir -p %q && cc -std=c11 -Wall -Wextra -Werror -o %q/pc examples/c/sort_merge.c $(%s pkg-config --cflags --libs mgpu)",
      ex, ex, pc))
    assert(ok1, out1)
    local ok2, out2 = run(string.format(
      "cmake -S examples/c -B %q/cm -DCMAKE_PREFIX_PATH=%q >/dev/null && cmake --build %q/cm >/dev/null",
      ex, prefix, ex))
    assert(ok2, out2)
  end)

  backends.each(function(_, device)
    it("runs and gives the reference's sort and merge", function()
      for _, exe in ipairs { ex .. "/pc", ex .. "/cm/sort_merge" } do
        local ok, got = run(string.format("LD_LIBRARY_PATH=%q %q %s", prefix .. "/lib", exe, device))
        assert(ok, got)
        assert.are.equal(expected, got:match(": ([%d ]+)\n$"), exe .. " on " .. device .. ": " .. got)
      end
    end)
  end)

  if have("luajit") then
    backends.each(function(_, device)
      it("LuaJIT loads the installed module over the installed libmgpu.so", function()
        local lmod = prefix .. "/share/lua/5.4"
        local ok, got = run(string.format(
          "cd %q && MGPU_LIB= LUA_CPATH='./?.so' LUA_PATH='%s/?.lua;%s/?/init.lua' luajit -e %q",
          prefix, lmod, lmod, [[
            local mgpu = require "mgpu"
            local ctx = mgpu.context { device = "]] .. device .. [[" }
            local c = mgpu.merge(mgpu.mergesort(ctx:array { 7, 3, 9, 1, 5, 3, 8, 0 }),
              mgpu.mergesort(ctx:array { 6, 2, 2, 4, 9, 1, 0, 7 }))
            io.write(table.concat(c:totable(), " "), "\n")]]))
        assert(ok, got)
        assert.are.equal(expected .. "\n", got)
      end)
    end)
  end

  -- examples/embed needs a Lua library to link, as mgpu_embed_test does
  local lua_lib = cache:match("MGPU_LUA_LIBRARY:FILEPATH=([^\n]*)")
  local embed = ex .. "/embed"
  if lua_lib and lua_lib ~= "" and not lua_lib:find("NOTFOUND", 1, true) then
    it("builds examples/embed with find_package(mgpu) and find_package(Lua)", function()
      local ok, out = run(string.format(
        "cmake -S examples/embed -B %q -DCMAKE_PREFIX_PATH=%q -DCMAKE_C_FLAGS='-Wall -Wextra -Werror' >/dev/null && cmake --build %q >/dev/null",
        embed, prefix, embed))
      assert(ok, out)
    end)
    backends.each(function(_, device)
      it("examples/embed: the script sorts the host's particles in place and counts the live ones", function()
        local ok, got = run(string.format("LD_LIBRARY_PATH=%q %q %s examples/embed/step.lua",
          prefix .. "/lib", embed .. "/particles", device))
        assert(ok, got)
        assert.matches("sorted yes; ids yes; buffers returned yes", got, 1, true)
        local live, expected = got:match("(%d+) alive of %d+ %(expected (%d+)%)")
        assert.are.equal(expected, live, got)
      end)
    end)
  end

  teardown(function() os.execute(string.format("rm -rf %q", prefix)) end)
end)
