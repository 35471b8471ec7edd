-- Integer keys of either sign, in either order: on cuda, i32 and u32 (and
-- i64 and u64) keys share one compiled instance per width, ordered by a
-- mask chosen per call (kernels/dispatch.cuh, bit_order).  Each sorting
-- and merging primitive is checked here on keys that cross the boundaries
-- where a wrong mask shows (the sign bit, 2^31 and 2^63 as unsigned),
-- against the Lua reference, with values 1..n so that stability is seen.

local mgpu = require "mgpu"
local R = require "helpers.reference"
local C = require "helpers.check"
local S = require "helpers.segsort"
local sets = require "helpers.sets"
local backends = require "helpers.backends"

local INTS = { "i32", "u32", "i64", "u64" }
local COMPS = { "less", "greater" }
-- a multi-tile size (the sorts' passes run) and one inside a tile
local SIZES = { 300, 9000 }

local function keys_for(dt, n, seed)
  local rng = R.rng(seed)
  local t = {}
  for i = 1, n do t[i] = rng:value(dt) end
  return t
end

local function iota(n)
  local t = {}
  for i = 1, n do t[i] = i end
  return t
end

local function label(prim, dt, comp, n)
  return string.format("%s %s %s n=%d", prim, dt, comp, n)
end

backends.each(function(ctx)
  for _, dt in ipairs(INTS) do
    for _, comp in ipairs(COMPS) do
      for si, n in ipairs(SIZES) do
        local seed = 7000 + 10 * si + (comp == "less" and 0 or 1)

        it(label("mergesort", dt, comp, n), function()
          local keys = keys_for(dt, n, seed)
          local k, v = ctx:array(keys, dt), ctx:array(iota(n), "i32")
          mgpu.mergesort(k, { values = v, comp = comp })
          local want_k, want_v = R.mergesort(keys, dt, comp, iota(n))
          C.array_eq(k, want_k, dt, label("mergesort keys", dt, comp, n))
          C.array_eq(v, want_v, "i32", label("mergesort values", dt, comp, n))
        end)

        it(label("sort", dt, comp, n), function()
          local keys = keys_for(dt, n, seed + 500)
          local k, v = ctx:array(keys, dt), ctx:array(iota(n), "i32")
          mgpu.sort(k, { values = v, comp = comp })
          local want_k, want_v = R.mergesort(keys, dt, comp, iota(n))
          C.array_eq(k, want_k, dt, label("sort keys", dt, comp, n))
          C.array_eq(v, want_v, "i32", label("sort values", dt, comp, n))
        end)

        it(label("segsort", dt, comp, n), function()
          local keys = keys_for(dt, n, seed + 100)
          local heads = S.random_heads(R.rng(seed), n, 40, true)
          local k, v = ctx:array(keys, dt), ctx:array(iota(n), "i32")
          mgpu.segsort(k, heads, { values = v, comp = comp })
          local want_k, want_v = S.segsort(keys, heads, dt, comp, iota(n))
          C.array_eq(k, want_k, dt, label("segsort keys", dt, comp, n))
          C.array_eq(v, want_v, "i32", label("segsort values", dt, comp, n))
        end)

        it(label("locality_sort", dt, comp, n), function()
          -- keys near their place: sorted, then a few swapped
          local keys = R.mergesort(keys_for(dt, n, seed + 200), dt, comp)
          local rng = R.rng(seed)
          for _ = 1, n // 50 do
            local i, j = rng:int(1, n), rng:int(1, n)
            keys[i], keys[j] = keys[j], keys[i]
          end
          local k, v = ctx:array(keys, dt), ctx:array(iota(n), "i32")
          mgpu.locality_sort(k, { values = v, comp = comp })
          local want_k, want_v = R.mergesort(keys, dt, comp, iota(n))
          C.array_eq(k, want_k, dt, label("locality_sort keys", dt, comp, n))
          C.array_eq(v, want_v, "i32", label("locality_sort values", dt, comp, n))
        end)

        it(label("merge and setops", dt, comp, n), function()
          local a = R.mergesort(keys_for(dt, n, seed + 300), dt, comp)
          local b = R.mergesort(keys_for(dt, n // 2, seed + 400), dt, comp)
          local av, bv = iota(#a), iota(#b)
          for i = 1, #bv do bv[i] = -i end
          local A, B = ctx:array(a, dt), ctx:array(b, dt)
          local AV, BV = ctx:array(av, "i32"), ctx:array(bv, "i32")
          local c, cv = mgpu.merge(A, B, { values = { AV, BV }, comp = comp })
          local want_c, want_cv = R.merge(a, b, dt, comp, av, bv)
          C.array_eq(c, want_c, dt, label("merge keys", dt, comp, n))
          C.array_eq(cv, want_cv, "i32", label("merge values", dt, comp, n))
          for _, op in ipairs { "intersection", "union", "difference", "symmetric_difference" } do
            local s, sv = mgpu.setop(op, A, B, { values = { AV, BV }, comp = comp })
            local want_s, want_sv = sets.setop(op, a, b, dt, comp, av, bv)
            C.array_eq(s, want_s, dt, label(op .. " keys", dt, comp, n))
            C.array_eq(sv, want_sv, "i32", label(op .. " values", dt, comp, n))
          end
        end)
      end
    end
  end
end)
