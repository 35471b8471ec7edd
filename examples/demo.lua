-- The seeds' demonstrations - merge (seed 001), multisets (seed 000),
-- segmented and locality sort (seed 004) - on the default backend.
-- Run from the project root: `make demo`.
local mgpu = require "mgpu"
local seeds = dofile("spec/helpers/seed_vectors.lua")
local sets = dofile("spec/helpers/seed_sets.lua")
local segs = dofile("spec/helpers/seed_segsort.lua")

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

print("\nMULTISET-KEYS DEMONSTRATION:\n")
local sa, sb = mgpu.array(sets.keys_a), mgpu.array(sets.keys_b)
local inter = mgpu.set_intersection(sa, sb)
local symd = mgpu.set_symmetric_difference(sa, sb)
print("Intersection:\n" .. tostring(inter))
print("\nSymmetric difference:\n" .. tostring(symd))
local sets_ok = same(inter, sets.keys_intersection)
  and same(symd, sets.keys_symmetric_difference)
print(verdict(sets_ok))

print("\nMULTISET-PAIRS DEMONSTRATION (values: A indices 0-99, B 100-199):\n")
local pa, pb = mgpu.array(sets.pairs_a_keys), mgpu.array(sets.pairs_b_keys)
local vals = { values = { mgpu.iota(#pa, 0), mgpu.iota(#pb, #pa) } }
local ik, iv = mgpu.set_intersection(pa, pb, vals)
local dk, dv = mgpu.set_symmetric_difference(pa, pb, vals)
print("Symmetric difference keys:\n" .. tostring(dk))
print("\nSymmetric difference indices:\n" .. tostring(dv))
local set_pairs_ok = same(ik, sets.pairs_intersection_keys)
  and same(iv, sets.pairs_intersection_values)
  and same(dk, sets.pairs_symmetric_difference_keys)
  and same(dv, sets.pairs_symmetric_difference_values)
print(verdict(set_pairs_ok))

print("\nSEG-SORT PAIRS DEMONSTRATION (heads " .. table.concat(segs.heads, " ") .. "):\n")
local sk = mgpu.array(segs.segsort_pairs_input)
local sv = mgpu.iota(#sk, 0)
mgpu.segsort(sk, segs.heads, { values = sv })
print("Sorted data:\n" .. tostring(sk))
print("\nSorted indices:\n" .. tostring(sv))
local seg_ok = same(sk, segs.segsort_pairs_sorted)
  and same(sv, segs.segsort_pairs_indices)
print(verdict(seg_ok))

print("\nLOCALITY SORT PAIRS DEMONSTRATION:\n")
local lk = mgpu.array(segs.locality_pairs_input)
local lv = mgpu.iota(#lk, 0)
mgpu.locality_sort(lk, { values = lv })
print("Sorted data:\n" .. tostring(lk))
local loc_ok = same(lk, segs.locality_pairs_sorted)
  and same(lv, segs.locality_pairs_indices)
print(verdict(loc_ok))

local all_ok = keys_ok and pairs_ok and sets_ok and set_pairs_ok and seg_ok
  and loc_ok
print(string.format("\nbackend %s (%s): %s", ctx.backend, ctx.device,
  all_ok and "every demonstration reproduced" or "MISMATCH"))
os.exit(all_ok and 0 or 1)
