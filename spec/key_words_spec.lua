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

        it(label("is_sorted, sorted_search, unique", dt, comp, n), function()
          local hay = R.mergesort(keys_for(dt, n, seed + 500), dt, comp)
          local needles = R.mergesort(keys_for(dt, n // 3, seed + 600), dt, comp)
          local H, N = ctx:array(hay, dt), ctx:array(needles, dt)
          C.equal(H:is_sorted(comp), true, label("is_sorted sorted", dt, comp, n))
          C.equal(H:is_sorted(comp == "less" and "greater" or "less"),
            R.is_sorted(hay, dt, comp == "less" and "greater" or "less"),
            label("is_sorted reversed", dt, comp, n))
          for _, side in ipairs { "left", "right" } do
            local pos = mgpu.sorted_search(N, H, { side = side, comp = comp })
            C.array_eq(pos, R.sorted_search(needles, hay, dt, side, comp), "i32",
              label("sorted_search " .. side, dt, comp, n))
          end
          local u, uv, c = mgpu.unique(H, { values = ctx:array(iota(n), "i32"), counts = true })
          local want_u, want_uv, want_c = R.unique(hay, dt, iota(n))
          C.array_eq(u, want_u, dt, label("unique keys", dt, comp, n))
          C.array_eq(uv, want_uv, "i32", label("unique values", dt, comp, n))
          C.array_eq(c, want_c, "i32", label("unique counts", dt, comp, n))
        end)
      end
    end
  end

  -- compact's flags: non-zero whatever the sign (one instance a width)
  for _, ft in ipairs(INTS) do
    it("compact with " .. ft .. " flags", function()
      local rng = R.rng(99)
      local data, flags = {}, {}
      for i = 1, 5000 do
        data[i] = i
        local r = rng:int(1, 3)
        flags[i] = r == 1 and 0 or (r == 2 and rng:value(ft) or -1)
        if ft == "u32" and flags[i] == -1 then flags[i] = R.U32_MAX end
      end
      flags[1], flags[2] = (ft == "u32" or ft == "u64") and 0x80000000 or -1, 0
      local out = mgpu.compact(ctx:array(data, "i32"), ctx:array(flags, ft))
      C.array_eq(out, R.compact(data, flags), "i32", "compact " .. ft)
    end)
  end
end)
