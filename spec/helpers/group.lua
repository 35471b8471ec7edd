-- Checks shared by the group specs (spec/group_spec.lua on cpu groups,
-- spec/group_gpu_spec.lua on groups of CUDA devices): the shard-size bound
-- after a distributed sort or merge, and a distributed sort compared with
-- mergesort of the same data on one context and with the reference.

local mgpu = require "mgpu"
local R = require "helpers.reference"
local C = require "helpers.check"
local assert = require "luassert"

local G = {}

-- The bound of mgpu.h (MGPU_GROUP_OVERSAMPLE): every shard within
-- (n + n_max) / samples + 1 of n / p, samples = 64 * (p + 1) a run.
function G.size_bound(n, p, n_max)
  return (n + n_max) / (64 * (p + 1)) + 1
end

function G.check_sizes(counts, n, p, n_max, label)
  local total = 0
  for k = 1, p do
    total = total + counts[k]
    local off = math.abs(counts[k] - n / p)
    C.truthy(off <= G.size_bound(n, p, n_max), string.format(
      "%s: shard %d holds %d, %.1f from n/p = %.1f (bound %.1f)", label, k,
      counts[k], off, n / p, G.size_bound(n, p, n_max)))
  end
  C.equal(total, n, label .. ": total")
end

function G.max_of(t)
  local m = 0
  for _, v in ipairs(t) do m = math.max(m, v) end
  return m
end

function G.index_values(n)
  local v = {}
  for i = 1, n do v[i] = i end
  return v
end

-- Sorts the sharded s (keys of dt; values 1..n when pairs) with sort
-- (mgpu.mergesort unless given: mgpu.sort) and checks the result against
-- mgpu.mergesort of the same data on one context and against the
-- reference's stable sort.
function G.check_sort(g, s, dt, comp, pairs, label, one_device, sort)
  sort = sort or mgpu.mergesort
  local keys = s:totable()
  local n, p = #keys, #g
  local n_max = G.max_of(s:counts())
  local one_ctx = mgpu.context(one_device)
  local one = s:to(one_ctx)
  local v, one_v
  if pairs then
    v = g:shard(G.index_values(n), "i32")
    one_v = v:to(one_ctx)
  end
  mgpu.mergesort(one, { values = one_v, comp = comp })
  local rk, rv = sort(s, { values = v, comp = comp })
  assert.is_true(rawequal(rk, s), label .. ": keys not returned")
  if pairs then assert.is_true(rawequal(rv, v), label .. ": values not returned") end
  local got = s:totable()
  C.no_diff(R.diff(got, one:totable(), dt), label .. " (vs one context)")
  local want_k, want_v = R.mergesort(keys, dt, comp, pairs and G.index_values(n) or nil)
  C.no_diff(R.diff(got, want_k, dt), label .. " (vs reference)")
  if pairs then
    C.no_diff(R.diff(v:totable(), one_v:totable(), "i32"), label .. " values (vs one context)")
    C.no_diff(R.diff(v:totable(), want_v, "i32"), label .. " values (vs reference)")
    C.equal(table.concat(v:counts(), ","), table.concat(s:counts(), ","),
      label .. ": values sharded as keys")
  end
  G.check_sizes(s:counts(), n, p, n_max, label)
  -- shard k is an array on the group's context k
  local ctxs = g:contexts()
  for k, a in ipairs(s:shards()) do
    assert.is_true(rawequal(a.context, ctxs[k]), label .. ": shard context")
  end
  return s
end

-- Elements of shard (len of them, the whole's places at + 1 ..) in
-- windows against want(q), q the 1-based place in the whole: the
-- start, the middle, the last 40,000 and random ones.
function G.check_windows(shard, len, at, want, label)
  local windows = { { 1, 4096 }, { len // 2 - 2048, len // 2 + 2048 }, { len - 40000, len } }
  local rng = 20261129 + at
  for _ = 1, 8 do
    rng = (rng * 1103515245 + 12345) % 2147483648
    local i = 1 + rng % math.max(len, 1)
    windows[#windows + 1] = { i, i + 255 }
  end
  for _, w in ipairs(windows) do
    local i, j = math.max(1, w[1]), math.min(len, w[2])
    if i <= j then
      local wk = {}
      for q = i, j do wk[#wk + 1] = want(at + q) end
      C.table_eq(shard:totable(i, j), wk, "i32",
        string.format("%s, window from %d", label, i))
    end
  end
end

-- The shards of a sorted whole of n: each sorted and in windows.
function G.check_sorted_shards(s, n, want, label)
  local at = 0
  for k, shard in ipairs(s:shards()) do
    local len = #shard
    assert.is_true(shard:is_sorted(), label .. ": shard " .. k .. " sorted")
    G.check_windows(shard, len, at, want, label .. ": shard " .. k)
    at = at + len
  end
  assert.are.equal(n, at, label .. ": the whole's length")
end

return G
