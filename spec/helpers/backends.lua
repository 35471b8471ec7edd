-- Runs a block of specs once per backend.
--
--   backends.each(function(ctx, device) ... end)
--
-- registers describe("[cpu]", ...) and describe("[cuda]", ...), each with
-- ctx = mgpu.context{device = device}.  Where no CUDA device is available
-- the "[cuda]" block holds a single pending("no CUDA device"), so the run
-- reports it as skipped.

local mgpu = require "mgpu"
local busted = require "busted"

local B = {}

-- MGPU_SPEC_BACKENDS="cuda" (comma-separated) limits the run, e.g. under
-- compute-sanitizer, where only the GPU's specs are of interest.
B.names = { "cpu", "cuda" }
do
  local only = os.getenv("MGPU_SPEC_BACKENDS")
  if only and only ~= "" then
    B.names = {}
    for name in only:gmatch("[^,%s]+") do B.names[#B.names + 1] = name end
  end
end

-- MGPU_SPEC_NO_CODE=1 (tools/gpu-check.sh nocode): the driver is made to
-- find no code for the GPU, so no cuda context can be made; the cuda blocks
-- are pending and context_spec checks the error instead.
function B.has_cuda()
  if os.getenv("MGPU_SPEC_NO_CODE") == "1" then return false end
  for _, d in ipairs(mgpu.devices()) do
    if type(d) == "string" and d:match("^cuda") then return true end
  end
  return false
end

function B.each(fn)
  local describe, pending = busted.describe, busted.pending
  for _, device in ipairs(B.names) do
    if device == "cuda" and not B.has_cuda() then
      describe("[" .. device .. "]", function()
        pending("no CUDA device")
      end)
    else
      describe("[" .. device .. "]", function()
        local ctx = mgpu.context { device = device }
        fn(ctx, device)
      end)
    end
  end
end

-- B.each, then on cuda once more per entry of `paths`, each on a context
-- whose kernel paths (mgpu.core._kernel_paths; src/mgpu.h,
-- mgpu_context_set_kernel_paths) send small calls down the kernels that
-- only large calls take otherwise: "[cuda persistent,lanes8]".
-- MGPU_SPEC_PATHS (comma-separated entries joined by ";", or "none")
-- replaces `paths`, e.g. to split a slow sanitizer run.
function B.each_with_paths(paths, fn)
  B.each(fn)
  local only = os.getenv("MGPU_SPEC_PATHS")
  if only and only ~= "" then
    paths = {}
    if only ~= "none" then
      for p in only:gmatch("[^;%s]+") do paths[#paths + 1] = p end
    end
  end
  local want_cuda = false
  for _, name in ipairs(B.names) do want_cuda = want_cuda or name == "cuda" end
  if not want_cuda or #paths == 0 then return end
  local describe, pending = busted.describe, busted.pending
  local core = require "mgpu.core"
  for _, p in ipairs(paths) do
    describe("[cuda " .. p .. "]", function()
      if not B.has_cuda() then
        pending("no CUDA device")
        return
      end
      local ctx = mgpu.context { device = "cuda" }
      core._kernel_paths(ctx, p)
      fn(ctx, "cuda")
    end)
  end
end

-- Specs that compare the cuda backend with the cpu backend:
-- fn(cuda_ctx, cpu_ctx), or a pending entry without a CUDA device.
function B.cuda_vs_cpu(fn)
  local describe, pending = busted.describe, busted.pending
  if not B.has_cuda() then
    describe("[cuda vs cpu]", function() pending("no CUDA device") end)
  else
    describe("[cuda vs cpu]", function()
      local gpu = mgpu.context { device = "cuda" }
      local cpu = mgpu.context { device = "cpu" }
      fn(gpu, cpu)
    end)
  end
end

return B
