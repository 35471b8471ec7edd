-- mgpu.bulk_remove and mgpu.bulk_insert: the Bulk Remove/Bulk Insert seed's
-- vectors, edge cases (remove all/none/first/last/every other, insert at the
-- front, at the end, into nothing), index arguments as tables and as arrays
-- of every integer dtype, data of every dtype, sizes around tile
-- boundaries, large random cases (cuda against cpu byte for byte, cpu
-- against the Lua reference) and bad input.

local mgpu = require "mgpu"
local R = require "helpers.reference"
local C = require "helpers.check"
local G = require "helpers.gen"
local S = require "helpers.seed_vectors"
local backends = require "helpers.backends"

local W = C.word
local FREED = { "array has been freed", "has been freed" }

-- The forms an index-like argument may take: a Lua table, or an array of
-- an integer dtype.
local INDEX_KINDS = { "table", "i32", "i64", "u32", "u64" }

local function index_arg(ctx, t, kind)
  if kind == "table" then return t end
  return ctx:array(t, kind)
end

-- n data values of dtype dt: distinct for every dtype (so a misplaced
-- element shows), or the reference's mix (extremes, NaN, -0.0) with rng.
local function data_values(n, dt, rng, start)
  if rng then return rng:values(n, dt) end
  return G.index_values(n, dt, start)
end

-- k sorted unique indices drawn uniformly from 1..n (selection sampling).
local function random_subset(rng, n, k)
  local t = {}
  local need = k
  for i = 1, n do
    if rng:int(1, n - i + 1) <= need then
      t[#t + 1] = i
      need = need - 1
    end
  end
  return t
end

-- m sorted positions in 1..n+1 with repeats.
local function random_positions(rng, m, n)
  local t = G.sorted_uniform(rng, m, n)
  for i = 1, m do t[i] = t[i] + 1 end
  return t
end

-- Removes idx (a Lua table, passed as `kind`) from data (a Lua table of
-- dtype dt) on ctx and compares with the reference; the inputs must be
-- unchanged afterwards.
local function check_remove(ctx, dt, data_t, idx_t, kind, label)
  kind = kind or "table"
  label = label or string.format("remove %s n=%d m=%d indices %s", dt, #data_t, #idx_t, kind)
  local data = ctx:array(data_t, dt)
  local idx = index_arg(ctx, idx_t, kind)
  local out = mgpu.bulk_remove(data, idx)
  assert.is_true(out.context == ctx, label .. ": result on another context")
  assert.is_false(rawequal(out, data), label .. ": returned the data array")
  C.array_eq(out, R.bulk_remove(data_t, idx_t), dt, label)
  C.array_eq(data, data_t, dt, label .. ": data unchanged")
  if kind ~= "table" then C.array_eq(idx, idx_t, kind, label .. ": indices unchanged") end
  return out
end

-- Inserts values vals_t at positions pos_t into data_t (dtype dt) on ctx and
-- compares with the reference.
local function check_insert(ctx, dt, data_t, pos_t, vals_t, kind, label)
  kind = kind or "table"
  label = label or string.format("insert %s n=%d m=%d positions %s", dt, #data_t, #pos_t, kind)
  local data = ctx:array(data_t, dt)
  local vals = ctx:array(vals_t, dt)
  local pos = index_arg(ctx, pos_t, kind)
  local out = mgpu.bulk_insert(data, pos, vals)
  assert.is_true(out.context == ctx, label .. ": result on another context")
  assert.is_false(rawequal(out, data), label .. ": returned the data array")
  C.array_eq(out, R.bulk_insert(data_t, pos_t, vals_t), dt, label)
  C.array_eq(data, data_t, dt, label .. ": data unchanged")
  C.array_eq(vals, vals_t, dt, label .. ": values unchanged")
  if kind ~= "table" then C.array_eq(pos, pos_t, kind, label .. ": positions unchanged") end
  return out
end

describe("the reference bulk operations", function()
  it("reproduce the seed's BULK REMOVE and BULK INSERT tables", function()
    C.table_eq(R.bulk_remove(S.remove_demo_input, S.remove_demo_indices), S.remove_demo_output, "i32")
    C.table_eq(R.bulk_remove(S.remove_alg_data, S.remove_alg_indices), S.remove_alg_output, "i32")
    C.table_eq(R.bulk_remove(R.iota(10), S.remove_small_indices), S.remove_small_kept, "i32")
    C.table_eq(R.bulk_insert(S.insert_demo_input, S.insert_demo_positions, S.insert_demo_values),
      S.insert_demo_output, "i32")
  end)

  it("bulk_insert agrees with repeated table.insert, bulk_remove with table.remove", function()
    local rng = R.rng(7)
    for _ = 1, 300 do
      local n, m = rng:int(0, 25), rng:int(0, 12)
      local data = R.iota(n, 1000)
      local pos = random_positions(rng, m, n)
      local vals = R.iota(m)
      local t = R.sub(data, 1, n)
      for i = 1, m do table.insert(t, pos[i] + i - 1, vals[i]) end
      C.table_eq(R.bulk_insert(data, pos, vals), t, "i32")
      local idx = random_subset(rng, n, rng:int(0, n))
      t = R.sub(data, 1, n)
      for i = #idx, 1, -1 do table.remove(t, idx[i]) end
      C.table_eq(R.bulk_remove(data, idx), t, "i32")
    end
  end)
end)

backends.each(function(ctx, device)
  describe("seed 003", function()
    it("BULK REMOVE demonstration: every 3rd element of 0..99", function()
      for _, kind in ipairs(INDEX_KINDS) do
        local data = ctx:iota(100, 0)
        local out = mgpu.bulk_remove(data, index_arg(ctx, S.remove_demo_indices, kind))
        assert.are.equal("i32", out.dtype)
        C.array_eq(out, S.remove_demo_output, "i32", "indices " .. kind)
        C.array_eq(data, S.remove_demo_input, "i32", "data unchanged")
      end
      -- the same indices from an iota array (every 3rd, 1-based)
      local out = mgpu.bulk_remove(ctx:iota(100, 0), ctx:iota(34, 1, 3))
      C.array_eq(out, S.remove_demo_output, "i32", "iota indices")
    end)

    it("Bulk Remove algorithm tables and the header example", function()
      for _, kind in ipairs(INDEX_KINDS) do
        check_remove(ctx, "i32", S.remove_alg_data, S.remove_alg_indices, kind)
        C.array_eq(mgpu.bulk_remove(ctx:array(S.remove_alg_data), index_arg(ctx, S.remove_alg_indices, kind)),
          S.remove_alg_output, "i32", "reduced data, indices " .. kind)
      end
      -- sourceCount = 10, indices (1, 3, 4, 5, 7, 8) 0-based: A0 A2 A6 A9
      local out = mgpu.bulk_remove(ctx:iota(10), S.remove_small_indices)
      C.array_eq(out, S.remove_small_kept, "i32", "header example")
    end)

    it("BULK INSERT demonstration: before every 5th element from item 2", function()
      for _, kind in ipairs(INDEX_KINDS) do
        local data = ctx:iota(100, 0)
        local vals = ctx:array(S.insert_demo_values)
        local out = mgpu.bulk_insert(data, index_arg(ctx, S.insert_demo_positions, kind), vals)
        assert.are.equal("i32", out.dtype)
        C.array_eq(out, S.insert_demo_output, "i32", "positions " .. kind)
        C.array_eq(data, S.insert_demo_input, "i32", "data unchanged")
        C.array_eq(vals, S.insert_demo_values, "i32", "values unchanged")
      end
      local out = mgpu.bulk_insert(ctx:iota(100, 0), ctx:iota(20, 3, 5), ctx:iota(20, 1000, 10))
      C.array_eq(out, S.insert_demo_output, "i32", "iota positions and values")
    end)

    it("Bulk Insert algorithm: 100 insertions into 400 elements, first tile as printed", function()
      local acount = S.insert_alg_tile.acount
      local want_tile = {}
      for k, g in ipairs(S.insert_alg_tile_gather) do
        want_tile[k] = (g < acount) and (1000 + g) or (g - acount)
      end
      for _, kind in ipairs(INDEX_KINDS) do
        local out = check_insert(ctx, "i32", R.iota(400, 0), S.insert_alg_positions, R.iota(100, 1000), kind)
        C.table_eq(out:totable(1, S.insert_alg_tile.size), want_tile, "i32", "first tile, positions " .. kind)
      end
    end)

    it("header example: aCount = 5, bCount = 3", function()
      local out = mgpu.bulk_insert(ctx:array { 100, 101, 102 }, S.insert_small_positions, ctx:iota(5, 0))
      local want = {}
      for k, x in ipairs(S.insert_small_output) do
        local ab, i = x:match("^(%u)(%d+)$")
        want[k] = (ab == "A") and tonumber(i) or 100 + tonumber(i)
      end
      C.array_eq(out, want, "i32")
    end)
  end)

  describe("bulk_remove", function()
    it("removes all, none, the first, the last, every other", function()
      for _, n in ipairs { 1, 2, 7, 896, 1409, 5000 } do
        local d = R.iota(n, 10)
        local odd, even = {}, {}
        for i = 1, n, 2 do odd[#odd + 1] = i end
        for i = 2, n, 2 do even[#even + 1] = i end
        for _, kind in ipairs(INDEX_KINDS) do
          local out = check_remove(ctx, "i32", d, R.iota(n), kind, "all n=" .. n .. " " .. kind)
          assert.are.equal(0, #out)
          assert.are.equal("i32", out.dtype)
          check_remove(ctx, "i32", d, {}, kind, "none n=" .. n .. " " .. kind)
          check_remove(ctx, "i32", d, { 1 }, kind, "first n=" .. n .. " " .. kind)
          check_remove(ctx, "i32", d, { n }, kind, "last n=" .. n .. " " .. kind)
          check_remove(ctx, "i32", d, odd, kind, "odd n=" .. n .. " " .. kind)
          check_remove(ctx, "i32", d, even, kind, "even n=" .. n .. " " .. kind)
        end
      end
    end)

    it("empty data with no indices", function()
      for _, dt in ipairs(R.dtypes) do
        local out = mgpu.bulk_remove(ctx:zeros(0, dt), {})
        assert.are.equal(0, #out)
        assert.are.equal(dt, out.dtype)
        out = mgpu.bulk_remove(ctx:zeros(0, dt), ctx:zeros(0, "i64"))
        assert.are.equal(0, #out)
      end
    end)

    it("data of every dtype, keeping exact bits", function()
      local rng = R.rng(100)
      for _, dt in ipairs(R.dtypes) do
        for _, n in ipairs { 10, 3000 } do
          local d = data_values(n, dt, rng)
          for _, kind in ipairs(INDEX_KINDS) do
            check_remove(ctx, dt, d, random_subset(rng, n, rng:int(0, n)), kind)
          end
        end
      end
      for _, dt in ipairs { "f32", "f64" } do
        local esize = R.size[dt]
        local bytes = G.odd_bytes(500, dt)
        local idx = random_subset(rng, 500, 200)
        local out = mgpu.bulk_remove(ctx:frombytes(bytes, dt), idx)
        local keep = R.bulk_remove(R.iota(500), idx)
        C.bytes_eq(out:tobytes(), G.permute_bytes(bytes, keep, esize), esize, dt .. " bits")
      end
    end)

    it("contiguous runs, the whole front, the whole back", function()
      local n = 20000
      local d = R.iota(n)
      check_remove(ctx, "i32", d, R.iota(5000, 7001))
      check_remove(ctx, "i32", d, R.iota(n - 1))
      check_remove(ctx, "i32", d, R.iota(n - 1, 2))
      check_remove(ctx, "i32", d, R.iota(10000, 1, 2))
      check_remove(ctx, "i64", d, R.concat(R.iota(3000), R.iota(3000, n - 2999)))
    end)

    it("data and indices that are slices at odd offsets", function()
      local rng = R.rng(101)
      local n = 3001
      local d = R.iota(n, 5)
      local big = ctx:fill(n + 7, -1)
      local data = big:slice(4, n + 3)
      for i = 1, n do data[i] = d[i] end
      local idx_t = random_subset(rng, n, 1234)
      local ibig = ctx:zeros(#idx_t + 5, "i64")
      local idx = ibig:slice(3, #idx_t + 2)
      for i = 1, #idx_t do idx[i] = idx_t[i] end
      local out = mgpu.bulk_remove(data, idx)
      C.array_eq(out, R.bulk_remove(d, idx_t), "i32")
      C.table_eq(big:totable(1, 3), { -1, -1, -1 }, "i32", "parent before the slice")
    end)

    it("sizes around tile boundaries", function()
      local rng = R.rng(102)
      for _, base in ipairs { 896, 1408, 2816, 3584 } do
        for n = base - 1, base + 1 do
          local d = R.iota(n)
          for _, m in ipairs { 1, base // 2, base - 1, base, n - 1, n } do
            if m <= n then
              check_remove(ctx, (n % 2 == 0) and "i32" or "f64", (n % 2 == 0) and d or R.iota(n, 1.0),
                random_subset(rng, n, m), (m % 2 == 0) and "table" or "i32")
            end
          end
          -- exactly one tile removed from two
          local d2 = R.iota(2 * n)
          check_remove(ctx, "u64", d2, R.iota(n, n + 1))
          check_remove(ctx, "u64", d2, R.iota(n, 1))
        end
      end
    end)

    it("many tiles: random densities up to 200000 elements", function()
      local rng = R.rng(103)
      for _, c in ipairs { { 200000, 100 }, { 150000, 75000 }, { 100000, 99900 }, { 123457, 1 } } do
        local n, m = c[1], c[2]
        check_remove(ctx, "i32", R.iota(n), random_subset(rng, n, m), "i32")
      end
    end)
  end)

  describe("bulk_insert", function()
    it("100000 values at position 1 and 50000 at #data + 1", function()
      local n = 1000
      local d = R.iota(n)
      local front = {}
      for i = 1, 100000 do front[i] = 1 end
      local back = {}
      for i = 1, 50000 do back[i] = n + 1 end
      check_insert(ctx, "i32", d, front, R.iota(100000, -1, -1), "i32", "100000 at 1")
      check_insert(ctx, "i32", d, back, R.iota(50000, 5000000), "table", "50000 at #data+1")
      check_insert(ctx, "i32", d, R.concat(front, back), R.iota(150000, -1, -1), "i64", "both")
      -- and into a single element, and around a position in the middle
      local mid = {}
      for i = 1, 70000 do mid[i] = (i <= 35000) and 501 or 502 end
      check_insert(ctx, "f64", R.iota(n, 0.5), mid, R.iota(70000, -0.5, -1.0), "u32", "70000 in the middle")
      check_insert(ctx, "i64", { 42 }, front, R.iota(100000), "table", "100000 before one element")
    end)

    it("into empty data", function()
      for _, dt in ipairs(R.dtypes) do
        for _, m in ipairs { 0, 1, 5, 3000 } do
          local vals = G.index_values(m, dt)
          local pos = {}
          for i = 1, m do pos[i] = 1 end
          for _, kind in ipairs(INDEX_KINDS) do
            local out = check_insert(ctx, dt, {}, pos, vals, kind)
            assert.are.equal(m, #out)
            assert.are.equal(dt, out.dtype)
          end
        end
      end
    end)

    it("no values: a copy of data", function()
      for _, dt in ipairs(R.dtypes) do
        local d = G.index_values(1500, dt)
        for _, kind in ipairs(INDEX_KINDS) do check_insert(ctx, dt, d, {}, {}, kind) end
      end
    end)

    it("data and values of every dtype, positions of every kind", function()
      local rng = R.rng(200)
      for _, dt in ipairs(R.dtypes) do
        for _, sz in ipairs { { 10, 3 }, { 1, 4 }, { 2500, 1700 }, { 300, 4000 } } do
          local n, m = sz[1], sz[2]
          local d, v = data_values(n, dt, rng), data_values(m, dt, rng)
          for _, kind in ipairs(INDEX_KINDS) do
            check_insert(ctx, dt, d, random_positions(rng, m, n), v, kind)
          end
        end
      end
      for _, dt in ipairs { "f32", "f64" } do
        local esize = R.size[dt]
        local bytes = G.odd_bytes(700, dt)
        local dbytes, vbytes = bytes:sub(1, 400 * esize), bytes:sub(400 * esize + 1)
        local pos = random_positions(rng, 300, 400)
        local out = mgpu.bulk_insert(ctx:frombytes(dbytes, dt), pos, ctx:frombytes(vbytes, dt))
        local perm = R.bulk_insert(R.iota(400), pos, R.iota(300, 401))
        C.bytes_eq(out:tobytes(), G.permute_bytes(bytes, perm, esize), esize, dt .. " bits")
      end
    end)

    it("repeated positions keep their order, like table.insert", function()
      local d = { 10, 20, 30 }
      C.array_eq(mgpu.bulk_insert(ctx:array(d), { 2, 2, 2, 4, 4 }, ctx:array { 1, 2, 3, 4, 5 }),
        { 10, 1, 2, 3, 20, 30, 4, 5 }, "i32")
      C.array_eq(mgpu.bulk_insert(ctx:array(d), { 1, 1 }, ctx:array { 7, 8 }),
        { 7, 8, 10, 20, 30 }, "i32")
      C.array_eq(mgpu.bulk_insert(ctx:array(d), ctx:array({ 1, 2, 3, 4 }, "u64"), ctx:array { 1, 2, 3, 4 }),
        { 1, 10, 2, 20, 3, 30, 4 }, "i32")
    end)

    it("data, positions and values that are slices at odd offsets", function()
      local rng = R.rng(201)
      local n, m = 2001, 1499
      local d, v = R.iota(n, 1.0), R.iota(m, -1.0, -1.0)
      local pos_t = random_positions(rng, m, n)
      local dbig = ctx:fill(n + 6, 99.0, "f64")
      local data = dbig:slice(5, n + 4)
      local vbig = ctx:fill(m + 3, 99.0, "f64")
      local vals = vbig:slice(2, m + 1)
      local pbig = ctx:zeros(m + 9, "u32")
      local pos = pbig:slice(9, m + 8)
      for i = 1, n do data[i] = d[i] end
      for i = 1, m do vals[i] = v[i]; pos[i] = pos_t[i] end
      local out = mgpu.bulk_insert(data, pos, vals)
      C.array_eq(out, R.bulk_insert(d, pos_t, v), "f64")
      C.table_eq(dbig:totable(1, 4), R.iota(4, 99.0, 0), "f64", "parent unchanged")
    end)

    it("sizes around tile boundaries", function()
      local rng = R.rng(202)
      for _, base in ipairs { 896, 1408, 2816, 3584 } do
        for total = base - 1, base + 1 do
          for _, m in ipairs { 1, total // 2, total // 3, total - 1, total } do
            local n = total - m
            local dt = R.dtypes[(total + m) % 6 + 1]
            check_insert(ctx, dt, G.index_values(n, dt), random_positions(rng, m, n),
              G.index_values(m, dt, n + 1), INDEX_KINDS[m % 5 + 1])
          end
          -- a tile of insertions at one spot
          check_insert(ctx, "i32", R.iota(total), R.iota(total, 1, 0), R.iota(total, -1, -1), "i32")
          check_insert(ctx, "i32", R.iota(total), R.iota(total, total // 2, 0), R.iota(total, -1, -1), "table")
        end
      end
    end)

    it("many tiles: random insertions up to 300000 elements", function()
      local rng = R.rng(203)
      for _, c in ipairs { { 150000, 150000 }, { 200000, 100 }, { 100, 200000 }, { 123456, 54321 } } do
        local n, m = c[1], c[2]
        check_insert(ctx, "i32", R.iota(n), random_positions(rng, m, n), R.iota(m, -1, -1), "i32")
      end
    end)
  end)

  -- the index dtype rule: below 2^31 - 1 elements every index array is
  -- i32 (on cpu too), and index arguments of any integer dtype work
  it("the index dtype rule: i64 indices and positions, and their values past int32 refused", function()
    local d = R.iota(20, 5)
    local data = ctx:array(d)
    for _, kind in ipairs { "i64", "u64", "table" } do
      local idx = index_arg(ctx, { 1, 7, 20 }, kind)
      C.array_eq(mgpu.bulk_remove(data, idx), R.bulk_remove(d, { 1, 7, 20 }), "i32", "remove, " .. kind)
      local pos = index_arg(ctx, { 1, 21, 21 }, kind)
      local vals = ctx:array({ -1, -2, -3 })
      C.array_eq(mgpu.bulk_insert(data, pos, vals), R.bulk_insert(d, { 1, 21, 21 }, { -1, -2, -3 }),
        "i32", "insert, " .. kind)
    end
    -- an i64 index past int32 is out of range here, not wrapped into it
    C.raises(function() return mgpu.bulk_remove(data, ctx:array({ (1 << 32) + 1 }, "i64")) end,
      "mgpu.bulk_remove", C.word("4294967297"))
    C.raises(function() return mgpu.bulk_insert(data, ctx:array({ (1 << 32) + 1 }, "i64"), ctx:array { 0 }) end,
      "mgpu.bulk_insert", C.word("4294967297"))
  end)

  describe("against the Lua reference at 10^5", function()
    for k, dt in ipairs(R.dtypes) do
      it("bulk_remove and bulk_insert, " .. dt, function()
        local rng = R.rng(300 + k)
        local n = 100000 + k
        local d = data_values(n, dt, rng)
        check_remove(ctx, dt, d, random_subset(rng, n, rng:int(1, n)), INDEX_KINDS[k % 5 + 1])
        local m = 100000 - k
        check_insert(ctx, dt, d, random_positions(rng, m, n), data_values(m, dt, rng), INDEX_KINDS[(k + 2) % 5 + 1])
      end)
    end
  end)

  describe("bad input", function()
    local function context_works()
      local out = mgpu.bulk_remove(ctx:iota(10), { 2, 5 })
      C.array_eq(out, { 1, 3, 4, 6, 7, 8, 9, 10 }, "i32", "bulk_remove after the error")
      out = mgpu.bulk_insert(ctx:iota(3), { 1, 4 }, ctx:array { 0, 9 })
      C.array_eq(out, { 0, 1, 2, 3, 9 }, "i32", "bulk_insert after the error")
      local c = mgpu.merge(ctx:array { 1, 3 }, ctx:array { 2 })
      C.array_eq(c, { 1, 2, 3 }, "i32", "merge after the error")
    end
    -- the message reports the offending element: its value and 1-based
    -- position in the index argument (h.at)
    local h = C.bad_input_harness(context_works)
    local guard, E, at = h.guard, h.E, h.at
    before_each(h.reset)

    local D = R.iota(100)

    it("bulk_remove: indices unsorted, duplicate, 0, #data + 1, negative", function()
      local data = ctx:array(D)
      guard { { data, D } }
      local cases = {
        { { 3, 2 }, 2, 2 },
        { { 5, 7, 7, 9 }, 7, 3 },
        { { 0 }, 0, 1 },
        { { 1, 2, 101 }, 101, 3 },
        { { 100, 101 }, 101, 2 },
        { { -1, 5 }, -1, 1 },
        { { 4, 1, 2 }, 1, 2 },
      }
      for _, c in ipairs(cases) do
        for _, kind in ipairs { "table", "i32", "i64" } do
          local idx = index_arg(ctx, c[1], kind)
          E(function() return mgpu.bulk_remove(data, idx) end, "mgpu.bulk_remove", W("indices"),
            "position", at(c[2], c[3]))
        end
      end
      -- unsigned index arrays: past the end, and 2^63 (a negative Lua integer)
      E(function() return mgpu.bulk_remove(data, ctx:array({ 1, 0xffffffff }, "u32")) end,
        "mgpu.bulk_remove", W("indices"), "position")
      E(function() return mgpu.bulk_remove(data, ctx:array({ 1, math.mininteger }, "u64")) end,
        "mgpu.bulk_remove", W("indices"), "position")
      E(function() return mgpu.bulk_remove(data, ctx:array({ -1 }, "u64")) end,
        "mgpu.bulk_remove", W("indices"), "position")
      -- more indices than elements
      E(function() return mgpu.bulk_remove(ctx:iota(3), { 1, 2, 3, 4 }) end,
        "mgpu.bulk_remove", W("indices"))
      E(function() return mgpu.bulk_remove(ctx:zeros(0), { 1 }) end, "mgpu.bulk_remove", W("indices"))
    end)

    it("bulk_insert: positions unsorted, 0, #data + 2, negative", function()
      local data, vals = ctx:array(D), ctx:array { 7, 8, 9 }
      guard { { data, D }, { vals, { 7, 8, 9 } } }
      local cases = {
        { { 3, 2, 4 }, 2, 2 },
        { { 50, 51, 1 }, 1, 3 },
        { { 0, 1, 2 }, 0, 1 },
        { { 1, 101, 102 }, 102, 3 },
        { { 102, 102, 102 }, 102, 1 },
        { { -5, 1, 1 }, -5, 1 },
      }
      for _, c in ipairs(cases) do
        for _, kind in ipairs { "table", "i32", "i64" } do
          local pos = index_arg(ctx, c[1], kind)
          E(function() return mgpu.bulk_insert(data, pos, vals) end, "mgpu.bulk_insert", W("positions"),
            "position", at(c[2], c[3]))
        end
      end
      E(function() return mgpu.bulk_insert(data, ctx:array({ 1, 2, 0xffffffff }, "u32"), vals) end,
        "mgpu.bulk_insert", W("positions"))
      E(function() return mgpu.bulk_insert(data, ctx:array({ 1, 2, math.mininteger }, "u64"), vals) end,
        "mgpu.bulk_insert", W("positions"))
      E(function() return mgpu.bulk_insert(ctx:zeros(0), { 1, 2, 1 }, vals) end,
        "mgpu.bulk_insert", W("positions"))
    end)

    it("bulk_insert: #positions ~= #values, values of another dtype", function()
      local data, vals = ctx:array(D), ctx:array { 7, 8, 9 }
      guard { { data, D }, { vals, { 7, 8, 9 } } }
      local LEN = { W("positions"), W("values") }
      E(function() return mgpu.bulk_insert(data, { 1, 2 }, vals) end, "mgpu.bulk_insert", LEN)
      E(function() return mgpu.bulk_insert(data, { 1, 2, 3, 4 }, vals) end, "mgpu.bulk_insert", LEN)
      E(function() return mgpu.bulk_insert(data, {}, vals) end, "mgpu.bulk_insert", LEN)
      E(function() return mgpu.bulk_insert(data, ctx:iota(2), vals) end, "mgpu.bulk_insert", LEN)
      for _, dt in ipairs { "u32", "i64", "f32", "f64" } do
        local v = vals:astype(dt)
        E(function() return mgpu.bulk_insert(data, { 1, 2, 3 }, v) end, "mgpu.bulk_insert", W("values"), dt)
      end
      local fdata = data:astype("f64")
      E(function() return mgpu.bulk_insert(fdata, { 1, 2, 3 }, vals) end, "mgpu.bulk_insert",
        { W("values"), W("data") })
    end)

    it("float indices and positions", function()
      local data, vals = ctx:array(D), ctx:array { 7, 8 }
      guard { { data, D }, { vals, { 7, 8 } } }
      for _, dt in ipairs { "f32", "f64" } do
        local f = ctx:array({ 1, 2 }, dt)
        E(function() return mgpu.bulk_remove(data, f) end, "mgpu.bulk_remove", W("indices"))
        E(function() return mgpu.bulk_insert(data, f, vals) end, "mgpu.bulk_insert", W("positions"))
      end
      E(function() return mgpu.bulk_remove(data, { 1, 2.5 }) end, "mgpu.bulk_remove", W("indices"))
      E(function() return mgpu.bulk_insert(data, { 1.5, 2 }, vals) end, "mgpu.bulk_insert", W("positions"))
      E(function() return mgpu.bulk_remove(data, { 1, 0 / 0 }) end, "mgpu.bulk_remove", W("indices"))
      E(function() return mgpu.bulk_insert(data, { 1, math.huge }, vals) end, "mgpu.bulk_insert", W("positions"))
    end)

    it("wrong types", function()
      local data, vals = ctx:array(D), ctx:array { 7, 8 }
      guard { { data, D }, { vals, { 7, 8 } } }
      E(function() return mgpu.bulk_remove({ 1, 2, 3 }, { 1 }) end, "mgpu.bulk_remove", W("data"), "table")
      E(function() return mgpu.bulk_remove("abc", { 1 }) end, "mgpu.bulk_remove", W("data"), "string")
      E(function() return mgpu.bulk_remove(nil, { 1 }) end, "mgpu.bulk_remove", W("data"))
      E(function() return mgpu.bulk_remove(data) end, "mgpu.bulk_remove", W("indices"))
      E(function() return mgpu.bulk_remove(data, "1 2") end, "mgpu.bulk_remove", W("indices"))
      E(function() return mgpu.bulk_remove(data, 3) end, "mgpu.bulk_remove", W("indices"))
      E(function() return mgpu.bulk_remove(data, { 1, "2" }) end, "mgpu.bulk_remove", W("indices"))
      E(function() return mgpu.bulk_remove(data, { 1, {} }) end, "mgpu.bulk_remove", W("indices"))
      E(function() return mgpu.bulk_remove(data, ctx) end, "mgpu.bulk_remove", W("indices"))
      E(function() return mgpu.bulk_insert({ 1, 2 }, { 1, 1 }, vals) end, "mgpu.bulk_insert", W("data"), "table")
      E(function() return mgpu.bulk_insert(data, nil, vals) end, "mgpu.bulk_insert", W("positions"))
      E(function() return mgpu.bulk_insert(data, true, vals) end, "mgpu.bulk_insert", W("positions"))
      E(function() return mgpu.bulk_insert(data, { 1, "x" }, vals) end, "mgpu.bulk_insert", W("positions"))
      E(function() return mgpu.bulk_insert(data, { 1, 1 }) end, "mgpu.bulk_insert", W("values"))
      E(function() return mgpu.bulk_insert(data, { 1, 1 }, "78") end, "mgpu.bulk_insert", W("values"))
      E(function() return mgpu.bulk_insert(data, { 1, 1 }, 7) end, "mgpu.bulk_insert", W("values"))
    end)

    it("freed arrays", function()
      local data, vals = ctx:array(D), ctx:array { 7, 8 }
      guard { { data, D }, { vals, { 7, 8 } } }
      local fd = ctx:iota(10)
      fd:free()
      local fi = ctx:array { 1, 2 }
      fi:free()
      local fv = ctx:array { 7, 8 }
      fv:free()
      E(function() return mgpu.bulk_remove(fd, { 1 }) end, "mgpu", FREED)
      E(function() return mgpu.bulk_remove(data, fi) end, "mgpu", FREED)
      E(function() return mgpu.bulk_insert(fd, { 1, 1 }, vals) end, "mgpu", FREED)
      E(function() return mgpu.bulk_insert(data, fi, vals) end, "mgpu", FREED)
      E(function() return mgpu.bulk_insert(data, { 1, 1 }, fv) end, "mgpu", FREED)
    end)

    it("arrays from different contexts", function()
      local other = mgpu.context { device = device }
      local data, vals = ctx:array(D), ctx:array { 7, 8 }
      local oi, ov = other:array { 1, 2 }, other:array { 7, 8 }
      guard { { data, D }, { vals, { 7, 8 } }, { oi, { 1, 2 } }, { ov, { 7, 8 } } }
      E(function() return mgpu.bulk_remove(data, oi) end, "mgpu.bulk_remove", { W("indices"), "context" })
      E(function() return mgpu.bulk_insert(data, oi, vals) end, "mgpu.bulk_insert", { W("positions"), "context" })
      E(function() return mgpu.bulk_insert(data, { 1, 2 }, ov) end, "mgpu.bulk_insert", { W("values"), "context" })
      if backends.has_cuda() then
        local x = (device == "cuda") and mgpu.context { device = "cpu" } or mgpu.context { device = "cuda" }
        E(function() return mgpu.bulk_remove(data, x:array { 1 }) end, "mgpu.bulk_remove")
        E(function() return mgpu.bulk_insert(data, { 1 }, x:array { 1 }) end, "mgpu.bulk_insert")
      end
      -- the other context still works on its own
      C.array_eq(mgpu.bulk_insert(other:iota(2), oi, ov), { 7, 1, 8, 2 }, "i32")
    end)
  end)
end)

backends.cuda_vs_cpu(function(gpu, cpu)
  local cases = {
    { "i32", 0, 1000 },
    { "u32", 0, R.U32_MAX },
    { "i64", math.mininteger, math.maxinteger },
    { "u64", 0, -1 },
    { "f32", -1.0, 1.0 },
    { "f64", -1e6, 1e6 },
  }
  for k, c in ipairs(cases) do
    local dt, lo, hi = c[1], c[2], c[3]
    it("10^6 random bulk_remove and bulk_insert, " .. dt, function()
      local rng = R.rng(500 + k)
      local n = 1000000
      local data = cpu:random(n, lo, hi, dt, 50 * k)
      -- removal densities: sparse, half, dense
      for j, m in ipairs { 1000, 500000, 999000 } do
        local idx_t = random_subset(rng, n, m)
        local kind = INDEX_KINDS[(k + j) % 5 + 1]
        local idx = index_arg(cpu, idx_t, kind)
        local r1 = mgpu.bulk_remove(data, idx)
        local r2 = mgpu.bulk_remove(data:to(gpu), kind == "table" and idx_t or idx:to(gpu))
        assert.are.equal(gpu.device, r2.device)
        C.same_array(r2, r1, string.format("remove %d", m))
      end
      -- insertions: uniform, and clustered at a few positions
      for j, m in ipairs { 1000000, 1000 } do
        local pos = cpu:sorted_random(m, 1, (j == 1) and n + 1 or 3, "i32", 50 * k + j)
        if j == 2 then pos = cpu:array(R.concat(pos:totable(), R.iota(5000, n + 1, 0))) end
        local vals = cpu:random(#pos, lo, hi, dt, 50 * k + 10 + j)
        local i1 = mgpu.bulk_insert(data, pos, vals)
        local i2 = mgpu.bulk_insert(data:to(gpu), pos:to(gpu), vals:to(gpu))
        C.same_array(i2, i1, string.format("insert %d", #pos))
      end
    end)
  end

  it("10^6 insertions at position 1, into empty data and into one element", function()
    local m = 1000000
    local pos = cpu:fill(m, 1)
    local vals = cpu:iota(m, 1, 1, "f64")
    for _, n in ipairs { 0, 1 } do
      local data = cpu:iota(n, -1, 1, "f64")
      C.same_array(mgpu.bulk_insert(data:to(gpu), pos:to(gpu), vals:to(gpu)),
        mgpu.bulk_insert(data, pos, vals), "n = " .. n)
    end
  end)
end)
