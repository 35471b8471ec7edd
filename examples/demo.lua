-- The seeds' merge demonstrations (seed 001), on the default backend.
-- Run from the project root: `make demo`.
local mgpu = require "mgpu"
local seeds = dofile("spec/helpers/seed_vectors.lua")

local ctx = mgpu.default_context()
local info = ctx:info()
print(string.format("mgpu %s on %s (%s backend: %s)", mgpu._VERSION, ctx.device,
  ctx.backend, info.name))

local function same(array, expected)
  local got = array:totable()
  if #got ~= #expected then return false end
  for i = 1, #got do
    if got[i] ~= expected[i] then return false end
  end
  return true
end

local function verdict(ok)
  return ok and "matches the seed's table" or "DIFFERS from the seed's table"
end

print("\nMERGE KEYS DEMONSTRATION:\n")
local a = mgpu.array(seeds.merge_keys_a)
local b = mgpu.array(seeds.merge_keys_b)
print("A:\n" .. tostring(a))
print("\nB:\n" .. tostring(b))
local c = mgpu.merge(a, b)
print("\nMerged array:\n" .. tostring(c))
local keys_ok = same(c, seeds.merge_keys_merged)
print(verdict(keys_ok))

print("\nMERGE PAIRS DEMONSTRATION:\n")
local ak = mgpu.array(seeds.merge_pairs_a_keys)
local bk = mgpu.array(seeds.merge_pairs_b_keys)
local av = mgpu.iota(#ak, 0)        -- A's values: its indices 0..99
local bv = mgpu.iota(#bk, #ak)      -- B's values: 100..199
print("A:\n" .. tostring(ak))
print("\nB:\n" .. tostring(bk))
local ck, cv = mgpu.merge(ak, bk, { values = { av, bv } })
print("\nMerged keys:\n" .. tostring(ck))
print("\nMerged values (0-99 are A indices, 100-199 are B indices):\n" .. tostring(cv))
local pairs_ok = same(ck, seeds.merge_pairs_merged_keys)
  and same(cv, seeds.merge_pairs_merged_values)
print(verdict(pairs_ok))

print(string.format("\nbackend %s (%s): %s", ctx.backend, ctx.device,
  (keys_ok and pairs_ok) and "both demonstrations reproduced" or "MISMATCH"))
os.exit((keys_ok and pairs_ok) and 0 or 1)
