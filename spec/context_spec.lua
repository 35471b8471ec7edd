-- Devices and contexts: mgpu.devices, mgpu.context, mgpu.default_context,
-- ctx:sync, ctx:info, tostring(ctx), memory_limit.

local mgpu = require "mgpu"
local C = require "helpers.check"
local backends = require "helpers.backends"

local function is_int(v) return math.type(v) == "integer" end

describe("mgpu.devices()", function()
  it("lists device strings, CUDA devices first, cpu last", function()
    local d = mgpu.devices()
    assert.is_table(d)
    assert.is_true(#d >= 1)
    assert.are.equal("cpu", d[#d])
    local seen = {}
    for i = 1, #d do
      assert.is_string(d[i])
      assert.is_nil(seen[d[i]], "duplicate device " .. tostring(d[i]))
      seen[d[i]] = true
      if i < #d then
        assert.truthy(d[i]:match("^cuda:%d+$"), "not a CUDA device string: " .. d[i])
      end
    end
  end)

  it("lists every CUDA device a context can be made on", function()
    for _, dev in ipairs(mgpu.devices()) do
      local ctx = mgpu.context { device = dev }
      assert.are.equal(dev, ctx.device)
    end
  end)
end)

describe("mgpu.context", function()
  it("rejects unknown device strings with an error naming the device", function()
    for _, bad in ipairs { "tpu", "cuda:99", "cuda:x", "cuda0", "gpu:0" } do
      C.raises(function() return mgpu.context { device = bad } end,
        "mgpu.context", C.lit(bad))
    end
  end)

  it("rejects a device that is not a string", function()
    C.raises(function() return mgpu.context { device = 42 } end, "mgpu.context", "device")
    C.raises(function() return mgpu.context { device = {} } end, "mgpu.context", "device")
  end)

  it("rejects cuda when no CUDA device is available", function()
    if backends.has_cuda() then
      local ctx = mgpu.context { device = "cuda" }
      assert.are.equal("cuda:0", ctx.device)
    else
      C.raises(function() return mgpu.context { device = "cuda" } end, "mgpu.context", "cuda")
      C.raises(function() return mgpu.context { device = "cuda:0" } end, "mgpu.context", "cuda:0")
    end
  end)

  -- tools/gpu-check.sh nocode: the driver made to find no code for the GPU
  -- (CUDA_FORCE_PTX_JIT=1 with only compute_100 PTX in the build)
  if os.getenv("MGPU_SPEC_NO_CODE") == "1" then
    it("fails at creation where the build has no code for the GPU (no code)", function()
      local ok, err = pcall(mgpu.context, { device = "cuda" })
      assert.is_false(ok)
      assert.matches("mgpu.context", err, 1, true)
      assert.matches("is sm_%d+", err)
      assert.matches("has code for CUDA architectures", err, 1, true)
      -- and the cpu still works
      local c = mgpu.context { device = "cpu" }
      assert.are.same({ 1, 2, 3 }, mgpu.mergesort(c:array({ 3, 1, 2 }, "i32")):totable())
    end)
  end

  it("makes independent contexts on the same device", function()
    local c1 = mgpu.context { device = "cpu" }
    local c2 = mgpu.context { device = "cpu" }
    assert.is_false(rawequal(c1, c2))
    local a = c1:iota(4)
    local b = c2:iota(4)
    assert.is_true(a.context == c1)
    assert.is_true(b.context == c2)
  end)
end)

describe("mgpu.default_context", function()
  it("is created from MGPU_DEVICE, else the first CUDA device, else cpu", function()
    local ctx = mgpu.default_context()
    assert.is_not_nil(ctx)
    local env = os.getenv("MGPU_DEVICE")
    local want
    if env and env ~= "" then
      want = (env == "cuda") and "cuda:0" or env
    else
      want = mgpu.devices()[1]
    end
    assert.are.equal(want, ctx.device)
    -- the same object on every call
    assert.is_true(mgpu.default_context() == ctx)
  end)

  it("with an argument makes it the default and returns it", function()
    local old = mgpu.default_context()
    local ctx = mgpu.context { device = "cpu" }
    local ok, err = pcall(function()
      assert.is_true(rawequal(mgpu.default_context(ctx), ctx))
      assert.is_true(mgpu.default_context() == ctx)
      local a = mgpu.zeros(3)
      assert.is_true(a.context == ctx)
      assert.are.equal("cpu", a.device)
      local b = mgpu.iota(3)
      assert.is_true(b.context == ctx)
      local c = mgpu.merge(a, b)
      assert.is_true(c.context == ctx)
      C.array_eq(c, { 0, 0, 0, 1, 2, 3 }, "i32")
    end)
    mgpu.default_context(old)
    assert(ok, err)
    assert.is_true(mgpu.default_context() == old)
  end)

  it("rejects an argument that is not a context", function()
    local old = mgpu.default_context()
    C.raises(function() return mgpu.default_context("cpu") end, "mgpu.default_context")
    C.raises(function() return mgpu.default_context({}) end, "mgpu.default_context")
    assert.is_true(mgpu.default_context() == old)
  end)
end)

backends.each(function(ctx, device)
  local want_device = (device == "cuda") and "cuda:0" or device

  it("has device and backend fields", function()
    assert.are.equal(want_device, ctx.device)
    assert.are.equal(device, ctx.backend)
  end)

  it("accepts the full device name too", function()
    local c2 = mgpu.context { device = want_device }
    assert.are.equal(want_device, c2.device)
    assert.are.equal(device, c2.backend)
  end)

  it("prints as mgpu.context(device)#id, the id telling contexts apart", function()
    local other = mgpu.context { device = device }
    assert.are.equal("mgpu.context(" .. want_device .. ")#" .. ctx.id, tostring(ctx))
    assert.are.equal("mgpu.context(" .. want_device .. ")#" .. other.id, tostring(other))
    assert.are_not.equal(tostring(ctx), tostring(other))
  end)

  it("sync() waits and returns the context", function()
    local a = ctx:random(100000, 0, 1000, "i32", 3)
    mgpu.mergesort(a)
    assert.is_true(rawequal(ctx:sync(), ctx))
    assert.is_true(a:is_sorted())
  end)

  it("info() has the documented fields", function()
    local info = ctx:info()
    assert.is_table(info)
    assert.are.equal(want_device, info.device)
    assert.are.equal(device, info.backend)
    assert.is_string(info.name)
    assert.is_true(#info.name > 0)
    assert.is_true(is_int(info.multiprocessors), "multiprocessors")
    for _, k in ipairs { "memory_total", "memory_free", "pool_reserved", "in_use" } do
      assert.is_true(is_int(info[k]), k .. " must be an integer (got " .. tostring(info[k]) .. ")")
      assert.is_true(info[k] >= 0, k .. " >= 0")
    end
    assert.is_nil(info.memory_limit)
    if device == "cuda" then
      assert.is_true(info.multiprocessors > 0)
      assert.is_string(info.compute_capability)
      assert.truthy(info.compute_capability:match("^%d+%.%d+$"), info.compute_capability)
      assert.is_true(info.memory_total > 0)
      assert.is_true(info.memory_free <= info.memory_total)
      -- the device code that runs, and its path
      assert.truthy(info.code:match("^sm_%d+$") or
        info.code:match("^compute_%d+ PTX, compiled for sm_%d+$"), info.code)
      assert.truthy(({ sm90 = true, sm80 = true, sm75 = true })[info.path], info.path)
      local arch = tonumber(info.code:match("^compute_(%d+)") or info.code:match("^sm_(%d+)"))
      local want_path = arch >= 90 and "sm90" or arch >= 80 and "sm80" or "sm75"
      assert.are.equal(want_path, info.path)
      assert.is_string(info.built_archs)
      assert.is_true(#info.built_archs > 0)
      -- tools/gpu-check.sh names the path a PTX-only build must take
      local expect = os.getenv("MGPU_SPEC_EXPECT_PATH")
      if expect and expect ~= "" then assert.are.equal(expect, info.path) end
    else
      assert.is_nil(info.compute_capability)
      assert.is_nil(info.code)
      assert.is_nil(info.path)
    end
  end)

  it("info().in_use counts the context's arrays", function()
    local c2 = mgpu.context { device = device }
    collectgarbage(); collectgarbage()
    local before = c2:info().in_use
    local a = c2:empty(1 << 20, "f64")   -- 8 MiB
    local during = c2:info().in_use
    assert.is_true(during >= before + 8 * (1 << 20),
      string.format("in_use %d -> %d after an 8 MiB array", before, during))
    a:free()
    assert.are.equal(before, c2:info().in_use)
  end)

  it("memory_limit is reported by info()", function()
    local c2 = mgpu.context { device = device, memory_limit = 64 << 20 }
    assert.are.equal(64 << 20, c2:info().memory_limit)
    -- arrays within the limit work
    local a = c2:iota(1000)
    C.array_eq(a:slice(1, 3), { 1, 2, 3 }, "i32")
  end)

  it("makes arrays that belong to it", function()
    local a = ctx:zeros(5, "f32")
    assert.is_true(a.context == ctx)
    assert.are.equal(want_device, a.device)
    assert.are.equal("f32", a.dtype)
  end)
end)

-- The kernel-path override the specs use (src/mgpu.h,
-- mgpu_context_set_kernel_paths): not part of the mgpu table.
backends.each(function(ctx)
  describe("mgpu.core._kernel_paths", function()
    local core = require "mgpu.core"
    it("is not in the mgpu table", function()
      assert.is_nil(mgpu._kernel_paths)
    end)
    it("takes known paths, alone or listed, and auto undoes them", function()
      for _, p in ipairs { "auto", "lanes16", "lanes8,sampled", "lanes32", "smem64", "" } do
        assert.has_no.errors(function() core._kernel_paths(ctx, p) end)
      end
      core._kernel_paths(ctx, "auto")
      local a, b = ctx:array({ 1, 2, 3 }, "i32"), ctx:array({ 2, 3, 4 }, "i32")
      assert.are.same({ 2, 3 }, mgpu.set_intersection(a, b):totable())
    end)
    it("rejects an unknown path, naming it, and leaves the context usable", function()
      local ok, err = pcall(core._kernel_paths, ctx, "lanes8,fast")
      assert.is_false(ok)
      assert.matches("mgpu.core._kernel_paths: kernel paths: unknown path 'fast'", err, 1, true)
      ok, err = pcall(core._kernel_paths, {}, "lanes8")
      assert.is_false(ok)
      assert.matches("mgpu.core._kernel_paths", err, 1, true)
      assert.are.same({ 1, 2 }, ctx:array({ 1, 2 }, "i32"):totable())
    end)
  end)
end)
