-- The C test programs of spec/c/, run on each backend:
--   capi_test.c   the index preparations and interval operations at the
--                 edges of their integer ranges (limit = INT64_MAX, lo =
--                 INT64_MIN, starts and bases next to INT32_MAX and
--                 INT64_MAX), called from C, and on cpu the backend's
--                 search, unique and join past 2^31 elements (an unbacked
--                 8 GiB mapping);
--   embed_test.c  a C host that embeds Lua and shares arrays with a script
--                 through mgpu_lua.h (a lent buffer sorted in place, an
--                 array read back, the lent buffer's release);
--   oom_test.c    a host whose Lua allocator refuses memory from each
--                 allocation of some forty calls on in turn.
-- `make build` builds them (-DMGPU_BUILD_CTESTS=ON; the last two where a
-- Lua library is there to link); elsewhere they are skipped.  They are taken
-- from the build whose module the specs load: the directory of the first
-- package.cpath entry (busted's cpath, "build/?.so" by default).
local shell = require "helpers.shell"
local exists = shell.exists
local DIR = package.cpath:match("^([^;]*)/%?%.so") or "build"

-- Runs a program; its output and whether it exited 0.
local function run(bin, args)
  local p = assert(io.popen(bin .. " " .. args .. " 2>&1"))
  local out = p:read("a")
  local ok = p:close()
  return out, ok == true
end

-- MGPU_SPEC_BACKENDS limits the run as in spec/helpers/backends.lua
local names = { "cpu", "cuda" }
local only = os.getenv("MGPU_SPEC_BACKENDS")
if only and only ~= "" then
  names = {}
  for name in only:gmatch("[^,%s]+") do names[#names + 1] = name end
end

local programs = {
  { "mgpu_capi_test", "capi", "index preparations and interval operations at their integer edges" },
  { "mgpu_embed_test", "embed", "a host lends a buffer to a script, reads one back, and gets its release" },
  { "mgpu_oom_test", "oom", "Lua out of memory at each allocation of a call: it raises, nothing is lost" },
}

for _, prog in ipairs(programs) do
  local bin, tag, what = DIR .. "/" .. prog[1], prog[2], prog[3]
  describe("C program " .. prog[1], function()
    if not exists(bin) then
      pending(bin .. " is not built (configure with -DMGPU_BUILD_CTESTS=ON)")
      return
    end
    local available = {}
    for d in run(bin, "--devices"):gmatch("[^\n]+") do available[d] = true end
    for _, device in ipairs(names) do
      describe("[" .. device .. "]", function()
        if not available[device] then
          pending("no " .. device .. " device for " .. prog[1])
          return
        end
        it(what, function()
          local out, ok = run(bin, device)
          assert.is_true(ok, out)
          assert.matches(tag .. ": %d+ passed, 0 failed", out)
        end)
      end)
    end
  end)
end
