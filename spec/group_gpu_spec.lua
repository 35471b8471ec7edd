-- mgpu.group over CUDA devices: the distributed mergesort and sort, merge and
-- segsort through NCCL, each result compared with the same primitive on
-- one GPU and with the Lua reference; the skewed inputs of group_spec.lua
-- (all keys equal, sorted, reverse sorted, an empty shard, n below the
-- number of GPUs).  Groups of 2 GPUs and of every GPU; pending with fewer
-- than two CUDA devices or a build without NCCL.

local mgpu = require "mgpu"
local R = require "helpers.reference"
local C = require "helpers.check"
local S = require "helpers.segsort"
local B = require "helpers.backends"
local G = require "helpers.group"

local function cuda_devices()
  if not B.has_cuda() then return {} end
  for _, name in ipairs(B.names) do
    if name == "cuda" then
      local d = {}
      for _, dev in ipairs(mgpu.devices()) do
        if type(dev) == "string" and dev:match("^cuda") then d[#d + 1] = dev end
      end
      return d
    end
  end
  return {}
end

local devices = cuda_devices()
local why_not
if #devices < 2 then
  why_not = "fewer than two CUDA devices"
else
  local ok, err = pcall(mgpu.group, { devices = { devices[1], devices[2] } })
  if not ok then
    -- a build without NCCL refuses a group of several GPUs, and says so
    C.truthy(tostring(err):find("NCCL", 1, true), tostring(err))
    why_not = "no NCCL in this build"
  end
end

-- the group sizes to try: 2 and every GPU
local sizes = {}
if not why_not then
  sizes[1] = 2
  if #devices > 2 then sizes[2] = #devices end
end

local function gpu_group(p)
  local d = {}
  for i = 1, p do d[i] = devices[i] end
  return mgpu.group { devices = d }
end

local function check_sort(g, s, dt, comp, pairs, label, sort)
  return G.check_sort(g, s, dt, comp, pairs, label, devices[1], sort)
end

-- A group of one GPU (no NCCL: its exchange is a copy on the device) whose
-- shard passes 2^31 - 1: the sort's plan and the segsort's heads past the
-- 32-bit limit (a group's CUDA contexts need distinct devices, so one GPU
-- makes a group of one).  2^31 + 5 i32 keys counting down (8.6 GB, and as
-- much again for the result), only with MGPU_SPEC_HUGE=1.
if #devices >= 1 and os.getenv("MGPU_SPEC_HUGE") == "1" then
  describe("a group of one GPU with a shard past 2^31 - 1", function()
    local n = 2147483647 + 6
    local function down(g) return g:sharded { g:contexts()[1]:iota(n, 2147483647, -1, "i32") } end

    it("mgpu.sort: the shard of 2^31 + 5 sorted, place q holding q - 6", function()
      local g = mgpu.group { devices = { devices[1] } }
      local s = down(g)
      mgpu.sort(s)
      assert.are.equal(n, s:counts()[1])
      G.check_sorted_shards(s, n, function(q) return q - 6 end, "sort")
      s = nil
      collectgarbage()
    end)

    -- i64 heads (the index dtype rule)
    it("mgpu.segsort with a head at 2^31", function()
      local g = mgpu.group { devices = { devices[1] } }
      local s = down(g)
      -- segments [1, 2^31] (INT32_MAX .. 0) and [2^31 + 1, n] (-1 .. -5)
      mgpu.segsort(s, { 1, 2147483649 })
      local shard = s:shards()[1]
      assert.are.equal(n, #shard)
      G.check_windows(shard, 2147483648, 0, function(q) return q - 1 end,
        "segsort, first segment")
      C.table_eq(shard:totable(2147483645, n), { 2147483644, 2147483645, 2147483646,
        2147483647, -5, -4, -3, -2, -1 }, "i32", "segsort: across the head at 2^31")
      s, shard = nil, nil
      collectgarbage()
    end)
  end)
end

if why_not then
  describe("groups of CUDA devices", function()
    pending(why_not)
  end)
  return
end

for _, p in ipairs(sizes) do
  describe(string.format("a group of %d GPUs", p), function()
    it("makes sharded data and gathers it", function()
      local g = gpu_group(p)
      C.equal(#g, p)
      local ctxs = g:contexts()
      for k = 1, p do C.equal(ctxs[k].device, devices[k]) end
      local s = g:iota(1001, 5, 2, "i64")
      C.table_eq(s:totable(), R.iota(1001, 5, 2), "i64")
      C.table_eq(s:to(devices[1]):totable(), R.iota(1001, 5, 2), "i64")
      C.table_eq(g:random(5000, -9, 9, "i32", 3):totable(),
        g:random(5000, -9, 9, "i32", 3):totable(), "i32")
    end)

    it("sorts every dtype, both comps, keys and pairs", function()
      local rng = R.rng(600 + p)
      for _, dt in ipairs(R.dtypes) do
        for _, comp in ipairs { "less", "greater" } do
          for _, pairs in ipairs { false, true } do
            for _, n in ipairs { 40, 5000 } do
              local g = gpu_group(p)
              check_sort(g, g:shard(rng:values(n, dt), dt), dt, comp, pairs,
                string.format("p=%d %s %s pairs=%s n=%d", p, dt, comp, tostring(pairs), n))
            end
          end
        end
      end
    end)

    it("sorts a million keys as one GPU does", function()
      for _, dt in ipairs { "i32", "f64" } do
        for _, sort in ipairs { "mergesort", "sort" } do
          local g = gpu_group(p)
          local n = 1000003
          local s = g:random(n, -100000, 100000, dt, 77)
          local v = g:iota(n, "u32")
          local one = s:to(devices[1])
          local one_v = v:to(devices[1])
          mgpu.mergesort(one, { values = one_v })
          mgpu[sort](s, { values = v })
          local label = dt .. " " .. sort
          C.no_diff(R.diff(s:totable(), one:totable(), dt), label .. ": keys vs one GPU")
          C.no_diff(R.diff(v:totable(), one_v:totable(), "u32"), label .. ": values vs one GPU")
          G.check_sizes(s:counts(), n, p, math.ceil(n / p), label)
        end
      end
    end)

    it("mgpu.sort of a sharded array: every dtype, both comps, skewed shards", function()
      local rng = R.rng(700 + p)
      for _, dt in ipairs(R.dtypes) do
        for _, comp in ipairs { "less", "greater" } do
          for _, pairs in ipairs { false, true } do
            local g = gpu_group(p)
            check_sort(g, g:shard(rng:values(5000, dt), dt), dt, comp, pairs,
              string.format("sort p=%d %s %s pairs=%s", p, dt, comp, tostring(pairs)), mgpu.sort)
          end
        end
      end
      local g = gpu_group(p)
      local equal = {}
      for i = 1, 6001 do equal[i] = 7 end
      check_sort(g, g:shard(equal, "i32"), "i32", "less", true, "sort, equal", mgpu.sort)
      local c = g:contexts()
      local arrays = {}
      for k = 1, p do arrays[k] = c[k]:array({}, "f32") end
      arrays[p] = c[p]:array(rng:values(3000, "f32"), "f32")
      check_sort(g, g:sharded(arrays), "f32", "less", false, "sort, all on the last shard", mgpu.sort)
      for n = 0, p - 1 do
        check_sort(g, g:shard(rng:values(n, "i64"), "i64"), "i64", "less", true, "sort, n=" .. n, mgpu.sort)
      end
    end)

    it("balances all-equal keys and handles sorted and reverse input", function()
      local g = gpu_group(p)
      local equal, up, down = {}, {}, {}
      for i = 1, 6001 do equal[i], up[i], down[i] = 7, i, 6002 - i end
      local s = check_sort(g, g:shard(equal, "i32"), "i32", "less", true, "equal")
      for _, c in ipairs(s:counts()) do
        C.truthy(math.abs(c - 6001 / p) <= G.size_bound(6001, p, 6001 // p + 1),
          "equal: shard of " .. c)
      end
      check_sort(g, g:shard(up, "i32"), "i32", "less", true, "sorted")
      check_sort(g, g:shard(down, "i32"), "i32", "less", true, "reverse")
      check_sort(g, g:shard(up, "u64"), "u64", "greater", false, "sorted, greater")
    end)

    it("handles an empty shard, everything on one shard and n below p", function()
      local g = gpu_group(p)
      local c = g:contexts()
      local rng = R.rng(9)
      local arrays = {}
      for k = 1, p do arrays[k] = c[k]:array({}, "f32") end
      arrays[p] = c[p]:array(rng:values(3000, "f32"), "f32")
      check_sort(g, g:sharded(arrays), "f32", "less", false, "all on the last shard")
      arrays[1] = c[1]:array(rng:values(700, "f32"), "f32")
      check_sort(g, g:sharded(arrays), "f32", "greater", false, "empty middle shards")
      for n = 0, p - 1 do
        check_sort(g, g:shard(rng:values(n, "i64"), "i64"), "i64", "less", true, "n=" .. n)
      end
    end)

    it("merges two sorted sharded arrays as one GPU does", function()
      local rng = R.rng(31)
      for _, dt in ipairs { "i32", "u64", "f64" } do
        local g = gpu_group(p)
        local a = R.mergesort(rng:values(3000, dt), dt, "less")
        local b = R.mergesort(rng:values(1700, dt), dt, "less")
        local av, bv = G.index_values(3000), R.iota(1700, 3001, 1)
        local out, out_v = mgpu.merge(g:shard(a, dt), g:shard(b, dt),
          { values = { g:shard(av, "i32"), g:shard(bv, "i32") } })
        local want, want_v = R.merge(a, b, dt, "less", av, bv)
        C.no_diff(R.diff(out:totable(), want, dt), dt .. " (vs reference)")
        C.no_diff(R.diff(out_v:totable(), want_v, "i32"), dt .. " values (vs reference)")
        G.check_sizes(out:counts(), 4700, p, 1500, dt)
      end
    end)

    it("segment-sorts within shards and refuses a crossing segment", function()
      local g = gpu_group(p)
      local rng = R.rng(13)
      local n = 100 * p
      local keys = rng:values(n, "i32")
      local heads = {}
      for k = 0, p - 1 do
        heads[#heads + 1] = 100 * k + 1
        heads[#heads + 1] = 100 * k + 37
      end
      local s, v = g:shard(keys, "i32"), g:shard(G.index_values(n), "i32")
      mgpu.segsort(s, heads, { values = v })
      local want_k, want_v = S.segsort(keys, heads, "i32", "less", G.index_values(n))
      C.no_diff(R.diff(s:totable(), want_k, "i32"), "segsort keys")
      C.no_diff(R.diff(v:totable(), want_v, "i32"), "segsort values")
      local ok, err = pcall(mgpu.segsort, g:shard(keys, "i32"), { 1 })
      assert.is_false(ok)
      C.truthy(tostring(err):find("crosses into shard 2", 1, true), tostring(err))
    end)
  end)
end

-- A whole past 2^31 - 1 (each shard within its GPU's 32-bit merges): the
-- group makes it, sorts it and keeps it in order across the shards.
-- 2^31 + 5 i32 keys counting down, about 8.6 GB in all, so it runs only
-- with MGPU_SPEC_HUGE=1 (tools/gpu-check.sh huge).
if not why_not and os.getenv("MGPU_SPEC_HUGE") == "1" then
  describe("a group of 2 GPUs past 2^31 - 1 elements", function()
    it("mgpu.sort of 2^31 + 5 keys: sorted within and across the shards", function()
      local g = gpu_group(2)
      local n = 2147483647 + 6
      -- n keys from INT32_MAX down to -5: sorted, global place q holds q - 6
      local s = g:iota(n, 2147483647, -1, "i32")
      assert.are.equal(n, #s)
      mgpu.sort(s)
      local at = 0
      for k, shard in ipairs(s:shards()) do
        local len = #shard
        C.truthy(len <= 2147483647, "shard " .. k .. " within 32 bits")
        assert.is_true(shard:is_sorted(), "shard " .. k .. " sorted")
        for _, w in ipairs { { 1, 4096 }, { len - 4095, len } } do
          local i, j = math.max(1, w[1]), math.min(len, w[2])
          local want = {}
          for q = i, j do want[#want + 1] = at + q - 6 end
          C.table_eq(shard:totable(i, j), want, "i32",
            string.format("shard %d, window from %d", k, i))
        end
        at = at + len
      end
      assert.are.equal(n, at)
    end)

    -- One run past 2^31 - 1, the other shard empty: the samples' gather and
    -- the cuts' searches take i64 indices (the searches need cuda's
    -- sorted_search to take them).
    it("mgpu.sort of one shard of 2^31 + 5 and one empty shard", function()
      local g = gpu_group(2)
      local c = g:contexts()
      local n = 2147483647 + 6
      local s = g:sharded { c[1]:iota(n, 2147483647, -1, "i32"), c[2]:array({}, "i32") }
      mgpu.sort(s)
      G.check_sizes(s:counts(), n, 2, n, "sort")
      G.check_sorted_shards(s, n, function(q) return q - 6 end, "sort")
    end)
  end)
end
