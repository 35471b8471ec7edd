-- group.lua - one sort across several devices: a million (key, id) pairs
-- made sharded, sorted as a whole by mgpu.sort (each shard sorted on its
-- device, splitters from samples, one all-to-all exchange, a merge per
-- shard), then checked at the shard boundaries without gathering the data.
--
--   lua5.4 examples/group.lua            every CUDA device (one cpu context without any)
--   lua5.4 examples/group.lua cpu 3      three cpu contexts
local mgpu = require "mgpu"

local g
if arg[1] then
  local devices = {}
  for k = 1, tonumber(arg[2]) or 2 do devices[k] = arg[1] end
  g = mgpu.group { devices = devices }
else
  g = mgpu.group()
end
local N = 1000000

local keys = g:random(N, 0, 999999, "i32", 7) -- made on each device
local ids = g:iota(N, 1, 1, "i32")             -- each key's place before the sort

local t0 = mgpu.clock()
mgpu.sort(keys, { values = ids })               -- global, stable; data stays sharded
for _, c in ipairs(g:contexts()) do c:sync() end
local t1 = mgpu.clock()

-- shard k now holds the k-th range of the order: each shard is sorted, and
-- each shard's last key is at most the next shard's first
local shards, id_shards = keys:shards(), ids:shards()
local ordered, id_sum = true, 0
for k, s in ipairs(shards) do
  ordered = ordered and s:is_sorted()
  local nxt = shards[k + 1]
  if nxt and #s > 0 and #nxt > 0 then ordered = ordered and s[#s] <= nxt[1] end
  if #id_shards[k] > 0 then id_sum = id_sum + mgpu.reduce(id_shards[k]:astype("i64")) end
end
print(string.format("%d keys sorted on %d %s contexts in %.2f ms; shards of %s",
  N, #g, g:contexts()[1].device:match("^%a+"), (t1 - t0) * 1e3,
  table.concat(keys:counts(), ", ")))
print(string.format("ordered across shards: %s; ids kept: %s; smallest %d, largest %d",
  tostring(ordered), tostring(id_sum == N * (N + 1) / 2), keys:totable(1, 1)[1],
  keys:totable(N, N)[1]))
