-- The C API's own test program (spec/c/capi_test.c): the index preparations
-- and interval operations at the edges of their integer ranges (limit =
-- INT64_MAX, lo = INT64_MIN, starts and bases next to INT32_MAX and
-- INT64_MAX), called from C on each backend.  `make build` builds it as
-- build/mgpu_capi_test (-DMGPU_BUILD_CTESTS=ON); elsewhere it is skipped.
-- It is taken from the build whose module the specs load: the directory of
-- the first package.cpath entry (busted's cpath, "build/?.so" by default).
local BIN = (package.cpath:match("^([^;]*)/%?%.so") or "build") .. "/mgpu_capi_test"

local function exists(path)
  local f = io.open(path, "rb")
  if f then f:close() end
  return f ~= nil
end

-- Runs the program; its output and whether it exited 0.
local function run(args)
  local p = assert(io.popen(BIN .. " " .. args .. " 2>&1"))
  local out = p:read("a")
  local ok = p:close()
  return out, ok == true
end

describe("C API (spec/c/capi_test.c)", function()
  if not exists(BIN) then
    pending(BIN .. " is not built (configure with -DMGPU_BUILD_CTESTS=ON)")
    return
  end
  -- MGPU_SPEC_BACKENDS limits the run as in spec/helpers/backends.lua
  local names = { "cpu", "cuda" }
  local only = os.getenv("MGPU_SPEC_BACKENDS")
  if only and only ~= "" then
    names = {}
    for name in only:gmatch("[^,%s]+") do names[#names + 1] = name end
  end
  local available = {}
  for d in run("--devices"):gmatch("[^\n]+") do available[d] = true end
  for _, device in ipairs(names) do
    describe("[" .. device .. "]", function()
      if not available[device] then
        pending("no " .. device .. " device for the C API test")
        return
      end
      it("index preparations and interval operations at their integer edges", function()
        local out, ok = run(device)
        assert.is_true(ok, out)
        assert.matches("capi: %d+ passed, 0 failed", out)
      end)
    end)
  end
end)
