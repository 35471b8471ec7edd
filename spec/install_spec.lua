-- The rockspec installs a working module: `luarocks make` into a scratch
-- tree (offline, cpu backend only to keep it quick), then load it from there
-- in a fresh interpreter and merge.
local shell = require "helpers.shell"
local have = shell.have

describe("mgpu-scm-1.rockspec", function()
  if not (have("luarocks") and have("lua5.4")) then
    pending("luarocks is not installed here")
    return
  end
  it("passes luarocks lint", function()
    local p = assert(io.popen("luarocks lint mgpu-scm-1.rockspec 2>&1"))
    local out = p:read("a")
    assert.is_true(p:close(), out)
  end)
  it("installs with luarocks make and loads from the installed tree", function()
    local p = assert(io.popen("tools/install-check.sh 2>&1"))
    local out = p:read("a")
    local ok = p:close()
    assert.is_true(ok, out)
    assert.matches("installed mgpu [%d.]+ from .*/lib/lua/5%.4/mgpu/core%.so", out)
  end)
end)
