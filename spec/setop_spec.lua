-- mgpu.setop and its aliases (set_intersection, set_union, set_difference,
-- set_symmetric_difference): the Multisets seed's vectors, long runs of
-- equal keys across many tiles, identical, disjoint, empty and one-element
-- inputs, every dtype (NaN and -0.0 for floats, u64 past 2^63), both
-- comparators, duplicates = false (exact on inputs without repeats, bounded
-- on inputs with them), value dtypes other than the key dtype, unsorted
-- inputs (undefined but safe), sizes around tile boundaries against the
-- Lua reference, 10^6 random keys cuda against cpu, and bad input.

local mgpu = require "mgpu"
local R = require "helpers.reference"
local C = require "helpers.check"
local G = require "helpers.gen"
local S = require "helpers.sets"
local T = require "helpers.seed_sets"
local backends = require "helpers.backends"

local W = C.word
local FREED = { "array has been freed", "has been freed" }
local nan, inf = R.nan, R.inf

local OPS = S.ops
local ALIAS = {
  intersection = "set_intersection",
  union = "set_union",
  difference = "set_difference",
  symmetric_difference = "set_symmetric_difference",
}

---------------------------------------------------------------------------
-- helpers

-- Calls the op through mgpu.setop, or through its alias when via == "alias".
local function call(via, op, a, b, opts)
  if via == "alias" then return mgpu[ALIAS[op]](a, b, opts) end
  return mgpu.setop(op, a, b, opts)
end

-- A result array: a new array on ctx, of dtype dt, holding want.
local function check_result(ctx, r, want, dt, label, inputs)
  assert.are.equal("userdata", type(r), label .. ": result is not an array")
  assert.is_true(r.context == ctx, label .. ": result on another context")
  for _, x in ipairs(inputs) do
    assert.is_false(rawequal(r, x), label .. ": returned an input array")
  end
  C.array_eq(r, want, dt, label)
end

-- Runs each op of o.ops (default: all four) on the Lua tables ka, kb
-- (sorted for o.comp) as arrays of dtype dt on ctx, with values o.av, o.bv
-- of dtype o.vdt when o.vdt is given, and compares keys and values with
-- the reference.  o.duplicates is passed on when not nil; o.via = "alias"
-- calls the aliases.  The inputs must be unchanged afterwards.
local function check_ops(ctx, dt, ka, kb, o)
  o = o or {}
  local comp, vdt = o.comp, o.vdt
  local base = o.label or string.format("%s %s na=%d nb=%d%s%s", dt, tostring(comp), #ka, #kb,
    vdt and (" values " .. vdt) or "", o.duplicates == false and " duplicates=false" or "")
  local a, b = ctx:array(ka, dt), ctx:array(kb, dt)
  local xa, xb
  if vdt then xa, xb = ctx:array(o.av, vdt), ctx:array(o.bv, vdt) end
  for _, op in ipairs(o.ops or OPS) do
    local label = op .. " " .. base
    local opts = { comp = comp, duplicates = o.duplicates }
    local wk, wv = S.setop(op, ka, kb, dt, comp, o.av, o.bv)
    local inputs = { a, b, xa, xb }
    if vdt then
      opts.values = { xa, xb }
      local c, cv = call(o.via, op, a, b, opts)
      check_result(ctx, c, wk, dt, label .. " keys", inputs)
      check_result(ctx, cv, wv, vdt, label .. " values", inputs)
    else
      local c, extra = call(o.via, op, a, b, opts)
      assert.is_nil(extra, label .. ": keys-only call returned values")
      check_result(ctx, c, wk, dt, label, inputs)
    end
  end
  C.array_eq(a, ka, dt, base .. ": input a unchanged")
  C.array_eq(b, kb, dt, base .. ": input b unchanged")
  if vdt then
    C.array_eq(xa, o.av, vdt, base .. ": values[1] unchanged")
    C.array_eq(xb, o.bv, vdt, base .. ": values[2] unchanged")
  end
end

-- check_ops with values 1..#ka for a and #ka+1.. for b, of dtype vdt.
local function check_pairs(ctx, dt, ka, kb, vdt, o)
  o = o or {}
  local p = {}
  for k, v in pairs(o) do p[k] = v end
  p.vdt = vdt
  p.av = G.index_values(#ka, vdt)
  p.bv = G.index_values(#kb, vdt, #ka + 1)
  check_ops(ctx, dt, ka, kb, p)
end

-- Both: keys only, then pairs with i32 values.
local function check_both(ctx, dt, ka, kb, o)
  check_ops(ctx, dt, ka, kb, o)
  check_pairs(ctx, dt, ka, kb, "i32", o)
end

-- Sorted keys with ties: n keys of dtype dt from V + 1 distinct values.
local function keys(rng, n, V, dt, comp)
  return G.sorted_keys(rng, n, V, dt, comp)
end

-- n strictly increasing (decreasing for "greater") keys of dtype dt: no
-- repeats, with gaps so that two such inputs match about half the time.
local function unique_keys(rng, n, dt, comp)
  local f = G.order_map(dt, 3 * n + 3)
  local t, v = {}, 0
  for i = 1, n do
    v = v + rng:int(1, 2)
    t[i] = f(v)
  end
  if comp == "greater" then t = G.reverse(t) end
  return t
end

-- The run-count definition of the four ops, as a check of the two-cursor
-- reference: cut each input into runs of equivalent keys; a run of ca
-- keys of a meeting a run of cb keys of b gives, for intersection, a's
-- first min(ca, cb); for union, all of a's then b's last cb - ca (when
-- cb > ca); for difference, a's last ca - cb; for symmetric difference,
-- a's last ca - cb or b's last cb - ca.
local function runs_definition(op, a, b, dt, comp, av, bv)
  local before = R.comparator(dt, comp)
  local function runs(t)
    local r, i = {}, 1
    while i <= #t do
      local j = i
      while j + 1 <= #t and not before(t[i], t[j + 1]) and not before(t[j + 1], t[i]) do j = j + 1 end
      r[#r + 1] = { i, j }
      i = j + 1
    end
    return r
  end
  local ra, rb = runs(a), runs(b)
  local c, cv = {}, {}
  local function emit_range(t, tv, lo, hi)
    for k = lo, hi do c[#c + 1] = t[k]; cv[#cv + 1] = tv[k] end
  end
  local function only_a(r)
    if op ~= "intersection" then emit_range(a, av, r[1], r[2]) end
  end
  local function only_b(r)
    if op == "union" or op == "symmetric_difference" then emit_range(b, bv, r[1], r[2]) end
  end
  local i, j = 1, 1
  while i <= #ra or j <= #rb do
    local x, y = ra[i], rb[j]
    if y == nil or (x ~= nil and before(a[x[1]], b[y[1]])) then
      only_a(x); i = i + 1
    elseif x == nil or before(b[y[1]], a[x[1]]) then
      only_b(y); j = j + 1
    else
      local ca, cb = x[2] - x[1] + 1, y[2] - y[1] + 1
      local m = math.min(ca, cb)
      if op == "intersection" then
        emit_range(a, av, x[1], x[1] + m - 1)
      elseif op == "union" then
        emit_range(a, av, x[1], x[2])
        emit_range(b, bv, y[1] + m, y[2])
      elseif op == "difference" then
        emit_range(a, av, x[1] + m, x[2])
      else
        emit_range(a, av, x[1] + m, x[2])
        emit_range(b, bv, y[1] + m, y[2])
      end
      i, j = i + 1, j + 1
    end
  end
  return c, cv
end

-- For results the contract only bounds: with values 1..#a for a and
-- #a+1..#a+#b for b (i64), every output pair must be an input element
-- (its key the key at that index), each at most once, intersection and
-- difference only from a; keys sorted by comp; at most the capacity.
local function check_provenance(op, ck, cv, ka, kb, dt, comp, label)
  C.no_diff(S.check_loose(op, ck, ka, kb, dt, comp, true, true), label)
  assert.are.equal(#ck, #cv, label .. ": keys and values differ in length")
  local na, nb = #ka, #kb
  local used = {}
  for i = 1, #ck do
    local v = cv[i]
    if math.type(v) ~= "integer" or v < 1 or v > na + nb then
      C.fail(string.format("%s: value %d = %s is no input index", label, i, tostring(v)))
    end
    if (op == "intersection" or op == "difference") and v > na then
      C.fail(string.format("%s: value %d = %d comes from b", label, i, v))
    end
    if used[v] then
      C.fail(string.format("%s: input element %d emitted twice (at %d and %d)", label, v, used[v], i))
    end
    used[v] = i
    local src = (v <= na) and ka[v] or kb[v - na]
    if not R.same(ck[i], src, dt) then
      C.fail(string.format("%s: output %d has key %s but value %d (input key %s)", label, i,
        R.show(ck[i], dt), v, R.show(src, dt)))
    end
  end
end

-- A Lua table of n keys of dtype dt in no particular order.
local function shuffled(rng, n, V, dt)
  local f = G.order_map(dt, V)
  local t = {}
  for i = 1, n do t[i] = f(rng:int(0, V)) end
  return t
end

---------------------------------------------------------------------------
-- the reference itself

describe("the reference multiset operations", function()
  it("reproduce the seed's MULTISET-KEYS and MULTISET-PAIRS tables", function()
    -- the transcription has the counts the seed prints
    assert.are.equal(T.counts.keys_a, #T.keys_a)
    assert.are.equal(T.counts.keys_b, #T.keys_b)
    assert.are.equal(T.counts.keys_intersection, #T.keys_intersection)
    assert.are.equal(T.counts.keys_symmetric_difference, #T.keys_symmetric_difference)
    assert.are.equal(T.counts.pairs_a_keys, #T.pairs_a_keys)
    assert.are.equal(T.counts.pairs_b_keys, #T.pairs_b_keys)
    assert.are.equal(T.counts.pairs_intersection, #T.pairs_intersection_keys)
    assert.are.equal(T.counts.pairs_intersection, #T.pairs_intersection_values)
    assert.are.equal(T.counts.pairs_symmetric_difference, #T.pairs_symmetric_difference_keys)
    assert.are.equal(T.counts.pairs_symmetric_difference, #T.pairs_symmetric_difference_values)
    assert.is_true(R.is_sorted(T.keys_a, "i32") and R.is_sorted(T.keys_b, "i32"))
    assert.is_true(R.is_sorted(T.pairs_a_keys, "i32") and R.is_sorted(T.pairs_b_keys, "i32"))

    C.table_eq(S.intersection(T.keys_a, T.keys_b, "i32", "less"), T.keys_intersection, "i32")
    C.table_eq(S.symmetric_difference(T.keys_a, T.keys_b, "i32", "less"), T.keys_symmetric_difference, "i32")
    local av, bv = R.iota(100, 0), R.iota(100, 100)
    local k, v = S.intersection(T.pairs_a_keys, T.pairs_b_keys, "i32", "less", av, bv)
    C.table_eq(k, T.pairs_intersection_keys, "i32", "intersection keys")
    C.table_eq(v, T.pairs_intersection_values, "i32", "intersection indices")
    k, v = S.symmetric_difference(T.pairs_a_keys, T.pairs_b_keys, "i32", "less", av, bv)
    C.table_eq(k, T.pairs_symmetric_difference_keys, "i32", "symmetric difference keys")
    C.table_eq(v, T.pairs_symmetric_difference_values, "i32", "symmetric difference indices")
    -- the value of each output is the index of an input with that key
    for i = 1, #v do
      local idx = v[i]
      local src = (idx < 100) and T.pairs_a_keys[idx + 1] or T.pairs_b_keys[idx - 99]
      assert.are.equal(src, k[i])
    end
  end)

  it("the seed's key-rank example, with values showing the side", function()
    local A = { 1, 1, 2, 3, 3, 3, 5, 6, 6, 6, 6, 7, 7, 8, 8, 9 }
    local B = { 1, 2, 2, 3, 3, 3, 3, 6, 6, 6, 6, 8 }
    local av, bv = R.iota(#A, 1), R.iota(#B, 101)
    local want = {
      intersection = { { 1, 2, 3, 3, 3, 6, 6, 6, 6, 8 }, { 1, 3, 4, 5, 6, 8, 9, 10, 11, 14 } },
      union = { { 1, 1, 2, 2, 3, 3, 3, 3, 5, 6, 6, 6, 6, 7, 7, 8, 8, 9 },
                { 1, 2, 3, 103, 4, 5, 6, 107, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 } },
      difference = { { 1, 5, 7, 7, 8, 9 }, { 2, 7, 12, 13, 15, 16 } },
      symmetric_difference = { { 1, 2, 3, 5, 7, 7, 8, 9 }, { 2, 103, 107, 7, 12, 13, 15, 16 } },
    }
    for _, op in ipairs(OPS) do
      local k, v = S.setop(op, A, B, "i32", "less", av, bv)
      C.table_eq(k, want[op][1], "i32", op .. " keys")
      C.table_eq(v, want[op][2], "i32", op .. " values")
      C.table_eq((S.setop(op, A, B, "i32")), want[op][1], "i32", op .. " keys only")
    end
  end)

  it("floats: NaN last, NaNs equivalent, -0.0 == 0.0, a's key on a match", function()
    for _, dt in ipairs { "f32", "f64" } do
      local A = { -inf, -0.0, 0.0, 1.5, nan, nan }
      local B = { 0.0, 0.0, -0.0, 1.5, inf, nan }
      local av, bv = R.iota(6), R.iota(6, 7)
      local want = {
        intersection = { { -0.0, 0.0, 1.5, nan }, { 2, 3, 4, 5 } },
        union = { { -inf, -0.0, 0.0, -0.0, 1.5, inf, nan, nan }, { 1, 2, 3, 9, 4, 11, 5, 6 } },
        difference = { { -inf, nan }, { 1, 6 } },
        symmetric_difference = { { -inf, -0.0, inf, nan }, { 1, 9, 11, 6 } },
      }
      for _, op in ipairs(OPS) do
        local k, v = S.setop(op, A, B, dt, "less", av, bv)
        C.table_eq(k, want[op][1], dt, op .. " keys")
        C.table_eq(v, want[op][2], "i32", op .. " values")
      end
      -- "greater": the exact reverse order, NaN first
      local k, v = S.intersection(G.reverse(A), G.reverse(B), dt, "greater", R.iota(6), R.iota(6, 7))
      C.table_eq(k, { nan, 1.5, 0.0, -0.0 }, dt, "greater intersection keys")
      C.table_eq(v, { 1, 3, 4, 5 }, "i32", "greater intersection values")
    end
  end)

  it("agrees with the run-count definition on random inputs", function()
    local rng = R.rng(42)
    for iter = 1, 200 do
      local dt = R.dtypes[iter % 6 + 1]
      local comp = (iter % 3 == 0) and "greater" or "less"
      local na, nb = rng:int(0, 40), rng:int(0, 40)
      local ka, kb
      if iter % 2 == 0 then
        ka, kb = G.mixed_sorted(rng, na, dt, comp), G.mixed_sorted(rng, nb, dt, comp)
      else
        local V = rng:int(0, 12)
        ka, kb = keys(rng, na, V, dt, comp), keys(rng, nb, V, dt, comp)
      end
      local av, bv = R.iota(na), R.iota(nb, na + 1)
      for _, op in ipairs(OPS) do
        local k1, v1 = S.setop(op, ka, kb, dt, comp, av, bv)
        local k2, v2 = runs_definition(op, ka, kb, dt, comp, av, bv)
        C.table_eq(k1, k2, dt, string.format("%s %s %s iteration %d keys", op, dt, comp, iter))
        C.table_eq(v1, v2, "i32", string.format("%s %s %s iteration %d values", op, dt, comp, iter))
        assert.is_true(#k1 <= S.capacity(op, na, nb))
        assert.is_true(R.is_sorted(k1, dt, comp))
      end
    end
  end)
end)

---------------------------------------------------------------------------
-- every backend, and on cuda every kernel a size rule may choose:
-- partitions of 8, 16 and 32 lanes a point, sampled partitions, and the
-- tiles a GPU with 64 KB of shared memory a block takes (smem64)

backends.each_with_paths({ "lanes8,sampled", "lanes16,smem64", "lanes32,sampled" },
  function(ctx, device)
  describe("seed 000", function()
    it("MULTISET-KEYS demonstration", function()
      local a, b = ctx:array(T.keys_a), ctx:array(T.keys_b)
      local c = mgpu.setop("intersection", a, b)
      assert.are.equal("i32", c.dtype)
      assert.are.equal(50, #c)
      C.array_eq(c, T.keys_intersection, "i32", "intersection")
      c = mgpu.setop("symmetric_difference", a, b)
      assert.are.equal(100, #c)
      C.array_eq(c, T.keys_symmetric_difference, "i32", "symmetric difference")
      C.array_eq(mgpu.set_intersection(a, b), T.keys_intersection, "i32", "set_intersection")
      C.array_eq(mgpu.set_symmetric_difference(a, b), T.keys_symmetric_difference, "i32",
        "set_symmetric_difference")
      C.array_eq(a, T.keys_a, "i32", "a unchanged")
      C.array_eq(b, T.keys_b, "i32", "b unchanged")
      -- all four ops against the reference
      check_ops(ctx, "i32", T.keys_a, T.keys_b, { comp = "less" })
      check_ops(ctx, "i32", T.keys_a, T.keys_b, { via = "alias" })
    end)

    it("MULTISET-PAIRS demonstration", function()
      local a, b = ctx:array(T.pairs_a_keys), ctx:array(T.pairs_b_keys)
      local av, bv = ctx:iota(100, 0), ctx:iota(100, 100)
      local c, cv = mgpu.setop("intersection", a, b, { values = { av, bv } })
      assert.are.equal(47, #c)
      assert.are.equal(47, #cv)
      C.array_eq(c, T.pairs_intersection_keys, "i32", "intersection keys")
      C.array_eq(cv, T.pairs_intersection_values, "i32", "intersection indices")
      assert.is_true(cv.context == ctx)
      c, cv = mgpu.setop("symmetric_difference", a, b, { values = { av, bv } })
      assert.are.equal(106, #c)
      assert.are.equal(106, #cv)
      C.array_eq(c, T.pairs_symmetric_difference_keys, "i32", "symmetric difference keys")
      C.array_eq(cv, T.pairs_symmetric_difference_values, "i32", "symmetric difference indices")
      c, cv = mgpu.set_symmetric_difference(a, b, { values = { av, bv } })
      C.array_eq(c, T.pairs_symmetric_difference_keys, "i32", "alias keys")
      C.array_eq(cv, T.pairs_symmetric_difference_values, "i32", "alias indices")
      -- all four ops against the reference, with the seed's index values
      check_ops(ctx, "i32", T.pairs_a_keys, T.pairs_b_keys,
        { vdt = "i32", av = R.iota(100, 0), bv = R.iota(100, 100) })
      check_ops(ctx, "i32", T.pairs_a_keys, T.pairs_b_keys,
        { vdt = "i32", av = R.iota(100, 0), bv = R.iota(100, 100), via = "alias" })
    end)

    it("the seed's inputs with other value dtypes", function()
      for _, vdt in ipairs { "u32", "i64", "u64", "f32", "f64" } do
        check_ops(ctx, "i32", T.pairs_a_keys, T.pairs_b_keys, { vdt = vdt,
          av = G.index_values(100, vdt, 0), bv = G.index_values(100, vdt, 100) })
      end
    end)

    it("the seed's inputs reversed, with comp = greater", function()
      for _, pair in ipairs { { T.keys_a, T.keys_b }, { T.pairs_a_keys, T.pairs_b_keys } } do
        local ka, kb = G.reverse(pair[1]), G.reverse(pair[2])
        check_both(ctx, "i32", ka, kb, { comp = "greater" })
      end
      -- the keys are the seed's results reversed
      local c = mgpu.setop("intersection", ctx:array(G.reverse(T.keys_a)), ctx:array(G.reverse(T.keys_b)),
        { comp = "greater" })
      C.array_eq(c, G.reverse(T.keys_intersection), "i32", "greater intersection")
      c = mgpu.setop("symmetric_difference", ctx:array(G.reverse(T.pairs_a_keys)),
        ctx:array(G.reverse(T.pairs_b_keys)), { comp = "greater" })
      C.array_eq(c, G.reverse(T.pairs_symmetric_difference_keys), "i32", "greater symmetric difference")
    end)
  end)

  describe("edge cases", function()
    it("one or both inputs empty", function()
      local k = G.sorted_keys(R.rng(1), 37, 10, "i32", "less")
      for _, comp in ipairs { "less", "greater" } do
        local kc = (comp == "greater") and G.reverse(k) or k
        check_both(ctx, "i32", {}, {}, { comp = comp })
        check_both(ctx, "i32", kc, {}, { comp = comp })
        check_both(ctx, "i32", {}, kc, { comp = comp })
      end
      for _, dt in ipairs(R.dtypes) do
        for _, op in ipairs(OPS) do
          local c, cv = mgpu.setop(op, ctx:zeros(0, dt), ctx:zeros(0, dt),
            { values = { ctx:zeros(0, "f32"), ctx:zeros(0, "f32") } })
          assert.are.equal(0, #c)
          assert.are.equal(dt, c.dtype)
          assert.are.equal(0, #cv)
          assert.are.equal("f32", cv.dtype)
          c = mgpu.setop(op, ctx:zeros(0, dt), ctx:zeros(0, dt))
          assert.are.equal(0, #c)
          assert.are.equal(dt, c.dtype)
        end
        -- one side empty: the other side's keys for the ops that keep them
        local one = ctx:array({ 1, 2, 2, 3 }, dt)
        local none = ctx:zeros(0, dt)
        local want = R.astype({ 1, 2, 2, 3 }, "i32", dt)
        assert.are.equal(0, #mgpu.set_intersection(one, none))
        assert.are.equal(0, #mgpu.set_intersection(none, one))
        C.array_eq(mgpu.set_union(one, none), want, dt, "union with empty b")
        C.array_eq(mgpu.set_union(none, one), want, dt, "union with empty a")
        C.array_eq(mgpu.set_difference(one, none), want, dt, "difference with empty b")
        assert.are.equal(0, #mgpu.set_difference(none, one))
        C.array_eq(mgpu.set_symmetric_difference(one, none), want, dt, "symmetric difference, empty b")
        C.array_eq(mgpu.set_symmetric_difference(none, one), want, dt, "symmetric difference, empty a")
      end
      -- large one-sided inputs
      local big = R.iota(30001, 0, 1)
      check_pairs(ctx, "i32", big, {}, "i64")
      check_pairs(ctx, "i32", {}, big, "i64")
    end)

    it("single elements", function()
      for _, comp in ipairs { "less", "greater" } do
        for _, p in ipairs { { { 5 }, { 5 } }, { { 5 }, { 6 } }, { { 6 }, { 5 } }, { { 5 }, {} },
                             { {}, { 5 } }, { { 5 }, { 5, 5, 5 } }, { { 5, 5, 5 }, { 5 } } } do
          check_ops(ctx, "i32", p[1], p[2], { comp = comp, vdt = "i32", av = R.iota(#p[1], 1),
            bv = R.iota(#p[2], 101) })
          check_ops(ctx, "f64", R.astype(p[1], "i32", "f64"), R.astype(p[2], "i32", "f64"), { comp = comp })
        end
      end
      -- explicit values: union takes a's on a match, b's otherwise
      local a, b = ctx:array { 5 }, ctx:array { 5 }
      local va, vb = ctx:array { 1 }, ctx:array { 2 }
      local c, cv = mgpu.set_union(a, b, { values = { va, vb } })
      C.array_eq(c, { 5 }, "i32")
      C.array_eq(cv, { 1 }, "i32", "union of a match takes a's value")
      c, cv = mgpu.set_union(ctx:array { 6 }, b, { values = { va, vb } })
      C.array_eq(c, { 5, 6 }, "i32")
      C.array_eq(cv, { 2, 1 }, "i32", "union takes each side's value")
      c, cv = mgpu.set_intersection(a, b, { values = { va, vb } })
      C.array_eq(cv, { 1 }, "i32", "intersection takes a's value")
      c, cv = mgpu.set_difference(a, ctx:array { 4 }, { values = { va, vb } })
      C.array_eq(c, { 5 }, "i32")
      C.array_eq(cv, { 1 }, "i32")
      c, cv = mgpu.set_symmetric_difference(ctx:array { 4 }, b, { values = { va, vb } })
      C.array_eq(c, { 4, 5 }, "i32")
      C.array_eq(cv, { 1, 2 }, "i32", "symmetric difference takes each side's value")
      c, cv = mgpu.set_symmetric_difference(a, b, { values = { va, vb } })
      assert.are.equal(0, #c)
      assert.are.equal(0, #cv)
    end)

    it("identical inputs (equal arrays, and one array passed twice)", function()
      local rng = R.rng(2)
      for _, n in ipairs { 1, 10, 1409, 20000 } do
        for _, comp in ipairs { "less", "greater" } do
          local k = keys(rng, n, n // 3, "i32", comp)
          check_both(ctx, "i32", k, k, { comp = comp })
          local a = ctx:array(k)
          local v = ctx:iota(n, 1, 1, "i64")
          local label = string.format("n=%d %s same array", n, comp)
          local c, cv = mgpu.set_intersection(a, a, { comp = comp, values = { v, v } })
          C.array_eq(c, k, "i32", label .. " intersection")
          C.array_eq(cv, R.iota(n), "i64", label .. " intersection values")
          c, cv = mgpu.set_union(a, a, { comp = comp, values = { v, v } })
          C.array_eq(c, k, "i32", label .. " union")
          C.array_eq(cv, R.iota(n), "i64", label .. " union values")
          c, cv = mgpu.set_difference(a, a, { comp = comp, values = { v, v } })
          assert.are.equal(0, #c, label .. " difference")
          assert.are.equal(0, #cv, label .. " difference values")
          c = mgpu.set_symmetric_difference(a, a, { comp = comp })
          assert.are.equal(0, #c, label .. " symmetric difference")
          C.array_eq(a, k, "i32", label .. " input unchanged")
        end
      end
    end)

    it("disjoint inputs: all a before b, all b before a, interleaved without matches", function()
      for _, sz in ipairs { { 10, 10 }, { 1, 9000 }, { 9000, 1 }, { 4351, 4353 }, { 30000, 20001 } } do
        local na, nb = sz[1], sz[2]
        local lo, hi = R.iota(na), R.iota(nb, na + 1)
        check_pairs(ctx, "i32", lo, hi, "i32")
        check_pairs(ctx, "i32", R.iota(na, nb + 1), R.iota(nb), "i32")
        check_pairs(ctx, "i32", G.reverse(hi), G.reverse(lo), "i32", { comp = "greater" })
        -- interleaved: a even, b odd
        local ev, od = R.iota(na, 0, 2), R.iota(nb, 1, 2)
        check_pairs(ctx, "i32", ev, od, "f64")
        check_pairs(ctx, "i64", G.reverse(od), G.reverse(ev), "u32", { comp = "greater" })
        -- intersection empty, difference = a, union = merge
        local c = mgpu.set_intersection(ctx:array(ev), ctx:array(od))
        assert.are.equal(0, #c)
        assert.are.equal("i32", c.dtype)
        C.array_eq(mgpu.set_difference(ctx:array(ev), ctx:array(od)), ev, "i32", "difference")
        C.array_eq(mgpu.set_union(ctx:array(ev), ctx:array(od)), (R.merge(ev, od, "i32", "less")), "i32",
          "union of disjoint inputs")
        C.array_eq(mgpu.set_symmetric_difference(ctx:array(od), ctx:array(ev)),
          (R.merge(od, ev, "i32", "less")), "i32", "symmetric difference of disjoint inputs")
      end
    end)

    it("thousands of equal keys in both inputs, spanning many tiles", function()
      local rng = R.rng(3)
      -- `below` keys from 0..4, then `na5` fives (resp. `nb5`), then `above` from 6..10
      local function build(below, n5, above)
        local t = G.sorted_uniform(rng, below, 4)
        for _ = 1, n5 do t[#t + 1] = 5 end
        local hi = G.sorted_uniform(rng, above, 4)
        for i = 1, #hi do t[#t + 1] = hi[i] + 6 end
        return t
      end
      local shapes = {
        { 1500, 3000, 1500, 700, 1000, 900 },
        { 700, 1000, 900, 1500, 3000, 1500 },
        { 0, 3000, 0, 0, 1000, 0 },
        { 10, 1000, 0, 0, 3000, 10 },
        { 5000, 30000, 2000, 3000, 10000, 4000 },
        { 3000, 10000, 4000, 5000, 30000, 2000 },
      }
      for _, s in ipairs(shapes) do
        local A, B = build(s[1], s[2], s[3]), build(s[4], s[5], s[6])
        -- the long shapes in one key dtype, the others in three
        local dts = (#A + #B > 20000) and { "i32" } or { "i32", "f64", "u64" }
        for _, dt in ipairs(dts) do
          local f = G.order_map(dt, 10)
          local ka, kb = {}, {}
          for i = 1, #A do ka[i] = f(A[i]) end
          for i = 1, #B do kb[i] = f(B[i]) end
          check_both(ctx, dt, ka, kb)
          check_pairs(ctx, dt, G.reverse(ka), G.reverse(kb), "u64", { comp = "greater" })
        end
      end
      -- all keys equal: intersection = a's first min, difference = a's last
      for _, sz in ipairs { { 3000, 1000 }, { 1000, 3000 }, { 4352, 4353 }, { 25000, 25000 } } do
        local na, nb = sz[1], sz[2]
        local a, b = ctx:fill(na, 7), ctx:fill(nb, 7)
        local av, bv = ctx:iota(na), ctx:iota(nb, na + 1)
        local m = math.min(na, nb)
        local c, cv = mgpu.set_intersection(a, b, { values = { av, bv } })
        C.array_eq(c, R.iota(m, 7, 0), "i32")
        C.array_eq(cv, R.iota(m), "i32", "intersection of equal keys takes a's first")
        c, cv = mgpu.set_difference(a, b, { values = { av, bv } })
        C.array_eq(cv, R.iota(math.max(na - nb, 0), nb + 1), "i32", "difference takes a's last")
        c, cv = mgpu.set_union(a, b, { values = { av, bv } })
        C.array_eq(c, R.iota(math.max(na, nb), 7, 0), "i32")
        C.array_eq(cv, R.concat(R.iota(na), R.iota(math.max(nb - na, 0), na + na + 1)), "i32",
          "union of equal keys: a's, then b's last")
        c, cv = mgpu.set_symmetric_difference(a, b, { values = { av, bv } })
        local want = (na >= nb) and R.iota(na - nb, nb + 1) or R.iota(nb - na, na + na + 1)
        C.array_eq(cv, want, "i32", "symmetric difference of equal keys")
      end
    end)

    it("several long runs of equal keys, matched unevenly", function()
      local rng = R.rng(4)
      for _, comp in ipairs { "less", "greater" } do
        local ka, kb = {}, {}
        for key = 1, 12 do
          for _ = 1, rng:int(0, 2500) do ka[#ka + 1] = key * 3 end
          for _ = 1, rng:int(0, 2500) do kb[#kb + 1] = key * 3 end
          if key % 3 == 0 then kb[#kb + 1] = key * 3 + 1 end
        end
        if comp == "greater" then ka, kb = G.reverse(ka), G.reverse(kb) end
        check_both(ctx, "i32", ka, kb, { comp = comp })
      end
    end)

    it("a difference longer than each tile's share of b, an intersection as long", function()
      -- a = 0 .. n-1, b = the multiples of 3: in every tile b holds about a
      -- quarter of the inputs, the difference emits half of them and the
      -- intersection exactly b's.  (The cuda backend parks the kept values
      -- of both where the tile's b keys were: the difference's do not all
      -- fit there, the intersection's just do.)
      for _, n in ipairs { 3000, 50000 } do
        local ka, kb = R.iota(n, 0), R.iota(n // 3 + 1, 0, 3)
        for _, kv in ipairs { { "i32", "i32" }, { "u32", "f32" }, { "i64", "u64" }, { "f64", "i64" } } do
          check_pairs(ctx, kv[1], ka, kb, kv[2], { ops = { "difference", "intersection" } })
          check_pairs(ctx, kv[1], G.reverse(ka), G.reverse(kb), kv[2],
            { ops = { "difference", "intersection" }, comp = "greater" })
        end
      end
    end)

    it("results are ordinary arrays of exactly the result length", function()
      -- results much shorter than the op's capacity, and nearly as long
      for _, sz in ipairs { { 1000, 501 }, { 20000, 19990 }, { 20000, 2 } } do
        local na, shift = sz[1], sz[2]
        local a, b = ctx:iota(na, 1), ctx:iota(na, 1 + shift)
        local av, bv = ctx:iota(na, 1, 1, "f64"), ctx:iota(na, na + 1, 1, "f64")
        for _, op in ipairs(OPS) do
          local wk, wv = S.setop(op, R.iota(na, 1), R.iota(na, 1 + shift), "i32", "less",
            R.iota(na, 1.0), R.iota(na, na + 1.0))
          local label = string.format("%s na=%d shift=%d", op, na, shift)
          local c, cv = mgpu.setop(op, a, b, { values = { av, bv } })
          assert.are.equal(#wk, #c, label)
          assert.are.equal(#wk, #cv, label)
          assert.are.equal(4 * #wk, #c:tobytes(), label .. " tobytes")
          assert.are.equal(8 * #wk, #cv:tobytes(), label .. " tobytes of values")
          assert.is_nil(c[#c + 1], label)
          assert.is_nil(cv[#cv + 1], label)
          C.raises(function() c[#c + 1] = 0 end, "mgpu.array", "index")
          C.raises(function() cv[#cv + 1] = 0 end, "mgpu.array", "index")
          C.array_eq(c:copy(), wk, "i32", label .. " copy")
          C.array_eq(cv:astype("i64"), R.astype(wv, "f64", "i64"), "i64", label .. " astype")
          -- the result as an input: of a merge, a sort and another setop
          C.array_eq(mgpu.merge(c, c), (R.merge(wk, wk, "i32", "less")), "i32", label .. " merged")
          C.array_eq(mgpu.setop(op, c, c), (S.setop(op, wk, wk, "i32")), "i32", label .. " again")
          mgpu.mergesort(cv, { comp = "greater" })
          C.array_eq(cv, G.reverse(wv), "f64", label .. " sorted values")
          c:free()
          cv:free()
        end
        C.array_eq(a, R.iota(na), "i32", "a unchanged")
      end
    end)

    it("inputs that are slices at odd offsets", function()
      local rng = R.rng(5)
      for _, sz in ipairs { { 3, 4 }, { 1409, 1407 }, { 20001, 30002 } } do
        local na, nb = sz[1], sz[2]
        local ka, kb = keys(rng, na, na, "i32", "less"), keys(rng, nb, na, "i32", "less")
        local bigA, bigB = ctx:fill(na + 5, -99), ctx:fill(nb + 2, -99)
        local a, b = bigA:slice(2, na + 1), bigB:slice(2, nb + 1)
        for i = 1, na do a[i] = ka[i] end
        for i = 1, nb do b[i] = kb[i] end
        local vA = ctx:iota(na + 3, 0, 1, "f64")
        local vB = ctx:iota(nb + 3, 1000000, 1, "f64")
        local av, bv = vA:slice(2, na + 1), vB:slice(4, nb + 3)
        for _, op in ipairs(OPS) do
          local c, cv = mgpu.setop(op, a, b, { values = { av, bv } })
          local wk, wv = S.setop(op, ka, kb, "i32", "less", R.iota(na, 1.0), R.iota(nb, 1000003.0))
          C.array_eq(c, wk, "i32", op .. " slice keys")
          C.array_eq(cv, wv, "f64", op .. " slice values")
        end
      end
    end)
  end)

  describe("dtypes", function()
    it("every key dtype, keys only and with values of every dtype", function()
      local rng = R.rng(2000)
      for _, dt in ipairs(R.dtypes) do
        for _, comp in ipairs { "less", "greater" } do
          local ka = G.mixed_sorted(rng, 700, dt, comp)
          local kb = G.mixed_sorted(rng, 600, dt, comp)
          check_ops(ctx, dt, ka, kb, { comp = comp })
          for _, vdt in ipairs(R.dtypes) do
            check_pairs(ctx, dt, ka, kb, vdt, { comp = comp })
          end
        end
      end
    end)

    it("float keys: NaN last (less) or first (greater), NaNs equivalent, -0.0 == 0.0", function()
      local rng = R.rng(2001)
      for _, dt in ipairs { "f32", "f64" } do
        for _, comp in ipairs { "less", "greater" } do
          for _, sz in ipairs { { 10, 12 }, { 3000, 2500 } } do
            local ka = R.mergesort(G.float_keys(rng, sz[1], dt), dt, comp)
            local kb = R.mergesort(G.float_keys(rng, sz[2], dt), dt, comp)
            check_both(ctx, dt, ka, kb, { comp = comp })
          end
          -- -0.0 and 0.0 are equivalent; on a match the key is a's
          check_pairs(ctx, dt, { -0.0, 0.0, -0.0 }, { 0.0, -0.0 }, "i32", { comp = comp })
          check_pairs(ctx, dt, { 0.0 }, { -0.0, -0.0 }, "i32", { comp = comp })
          -- all NaNs are equivalent
          check_pairs(ctx, dt, { nan, nan }, { nan }, "i32", { comp = comp })
          check_pairs(ctx, dt, { nan }, { nan, nan, nan }, "i32", { comp = comp })
        end
        -- explicit results
        local A = { -inf, -0.0, 0.0, 1.5, nan, nan }
        local B = { 0.0, 0.0, -0.0, 1.5, inf, nan }
        local a, b = ctx:array(A, dt), ctx:array(B, dt)
        local av, bv = ctx:iota(6), ctx:iota(6, 7)
        local want = {
          intersection = { { -0.0, 0.0, 1.5, nan }, { 2, 3, 4, 5 } },
          union = { { -inf, -0.0, 0.0, -0.0, 1.5, inf, nan, nan }, { 1, 2, 3, 9, 4, 11, 5, 6 } },
          difference = { { -inf, nan }, { 1, 6 } },
          symmetric_difference = { { -inf, -0.0, inf, nan }, { 1, 9, 11, 6 } },
        }
        for _, op in ipairs(OPS) do
          local c, cv = mgpu.setop(op, a, b, { values = { av, bv } })
          C.array_eq(c, want[op][1], dt, dt .. " " .. op .. " keys (bits of -0.0 kept)")
          C.array_eq(cv, want[op][2], "i32", dt .. " " .. op .. " values")
        end
        -- "greater": NaN first
        local c = mgpu.set_union(ctx:array({ nan, 2.0, -0.0 }, dt), ctx:array({ nan, nan, 0.0, -1.0 }, dt),
          { comp = "greater" })
        C.array_eq(c, { nan, nan, 2.0, -0.0, -1.0 }, dt, dt .. " greater union")
      end
    end)

    it("keys keep their exact bits (NaN payloads, -0.0)", function()
      for _, dt in ipairs { "f64", "f32" } do
        local esize = R.size[dt]
        local vdt = (dt == "f64") and "u64" or "u32"
        local A = G.odd_bytes(300, dt)
        local B = G.odd_bytes(301, dt):sub(2 * esize + 1)
        local ta, tb = R.unpack(A, dt), R.unpack(B, dt)
        for _, comp in ipairs { "less", "greater" } do
          local pa = R.sort_permutation(ta, dt, comp)
          local pb = R.sort_permutation(tb, dt, comp)
          local SA, SB = G.permute_bytes(A, pa, esize), G.permute_bytes(B, pb, esize)
          local ka, kb = R.unpack(SA, dt), R.unpack(SB, dt)
          for _, op in ipairs(OPS) do
            local _, idx = S.setop(op, ka, kb, dt, comp, R.iota(#ka), R.iota(#kb, #ka + 1))
            local want = G.permute_bytes(SA .. SB, idx, esize)
            local c, cv = mgpu.setop(op, ctx:frombytes(SA, dt), ctx:frombytes(SB, dt),
              { comp = comp, values = { ctx:frombytes(SA, vdt), ctx:frombytes(SB, vdt) } })
            C.bytes_eq(c:tobytes(), want, esize, dt .. " " .. op .. " keys " .. comp)
            C.bytes_eq(cv:tobytes(), want, esize, dt .. " " .. op .. " values " .. comp)
          end
        end
      end
    end)

    it("i64 keys beyond 2^53, u32 above 2^31, u64 keys and values above 2^63", function()
      local base = 1 << 53
      check_pairs(ctx, "i64", { base - 1, base, base + 1, base + 1, base + 3, math.maxinteger },
        { base - 1, base + 1, base + 2, base + 3, math.maxinteger }, "i32")
      check_pairs(ctx, "u32", { 5, 0x7fffffff, 0x80000000, 0x80000000, R.U32_MAX },
        { 0x80000000, 0x80000001, 3000000000, R.U32_MAX }, "i32")
      -- u64: 2^63 and above are negative Lua integers but order after 2^63-1
      local ka = { 0, 1, math.maxinteger, math.mininteger, math.mininteger, -2, -1 }
      local kb = { 1, 2, math.maxinteger, math.mininteger, math.mininteger + 1, -1, -1 }
      check_both(ctx, "u64", ka, kb)
      check_both(ctx, "u64", G.reverse(ka), G.reverse(kb), { comp = "greater" })
      local c = mgpu.set_intersection(ctx:array(ka, "u64"), ctx:array(kb, "u64"))
      C.array_eq(c, { 1, math.maxinteger, math.mininteger, -1 }, "u64")
      c = mgpu.set_difference(ctx:array(ka, "u64"), ctx:array(kb, "u64"))
      C.array_eq(c, { 0, math.mininteger, -2 }, "u64")
      -- u64 values above 2^63 with i32 keys
      local av = G.index_values(#ka, "u64", math.mininteger + 3)
      local bv = G.index_values(#kb, "u64", -100)
      local ik, jk = { 1, 2, 2, 5, 9 }, { 2, 3, 5, 5, 9, 10, 11 }
      check_ops(ctx, "i32", ik, jk, { vdt = "u64", av = R.sub(av, 1, 5), bv = bv })
      local k, v = mgpu.set_symmetric_difference(ctx:array(ik), ctx:array(jk),
        { values = { ctx:array(R.sub(av, 1, 5), "u64"), ctx:array(bv, "u64") } })
      C.array_eq(k, { 1, 2, 3, 5, 10, 11 }, "i32")
      C.array_eq(v, { av[1], av[3], bv[2], bv[4], bv[6], bv[7] }, "u64", "u64 values past 2^63")
    end)

    it("value dtypes other than the key dtype", function()
      local rng = R.rng(2002)
      for _, p in ipairs { { "f64", "i32" }, { "i32", "u64" }, { "u64", "f32" }, { "f32", "i64" },
                           { "i64", "u32" }, { "u32", "f64" } } do
        local dt, vdt = p[1], p[2]
        for _, comp in ipairs { "less", "greater" } do
          local ka, kb = keys(rng, 3000, 2000, dt, comp), keys(rng, 2500, 2000, dt, comp)
          check_pairs(ctx, dt, ka, kb, vdt, { comp = comp })
        end
      end
    end)
  end)

  describe("comp = greater", function()
    it("descending inputs, every op, random sizes", function()
      local rng = R.rng(3000)
      for i = 1, 12 do
        local dt = R.dtypes[i % 6 + 1]
        local na, nb = rng:int(0, 6000), rng:int(0, 6000)
        local V = rng:int(1, 6000)
        local ka, kb = keys(rng, na, V, dt, "greater"), keys(rng, nb, V, dt, "greater")
        if i % 2 == 0 then
          check_ops(ctx, dt, ka, kb, { comp = "greater" })
        else
          check_pairs(ctx, dt, ka, kb, R.dtypes[(i + 3) % 6 + 1], { comp = "greater" })
        end
      end
    end)
  end)

  describe("duplicates = false", function()
    it("inputs without repeats: equal to the reference", function()
      local rng = R.rng(4000)
      for _, sz in ipairs { { 0, 0 }, { 1, 1 }, { 10, 7 }, { 1409, 1407 }, { 3000, 100 }, { 100, 3000 },
                            { 30000, 29000 } } do
        for _, comp in ipairs { "less", "greater" } do
          for _, dt in ipairs((sz[1] > 10000) and { "u64" } or { "i32", "f64", "u64" }) do
            local ka = unique_keys(rng, sz[1], dt, comp)
            local kb = unique_keys(rng, sz[2], dt, comp)
            check_ops(ctx, dt, ka, kb, { comp = comp, duplicates = false })
            check_pairs(ctx, dt, ka, kb, "i32", { comp = comp, duplicates = false })
          end
        end
      end
      -- identical and disjoint unique inputs
      local u = R.iota(5000, 0, 3)
      check_pairs(ctx, "i32", u, u, "i32", { duplicates = false })
      check_pairs(ctx, "i32", u, R.iota(5000, 1, 3), "i32", { duplicates = false })
      -- duplicates = true given explicitly is the default
      check_pairs(ctx, "i32", T.pairs_a_keys, T.pairs_b_keys, "i32", { duplicates = true })
    end)

    it("inputs with repeats: no crash, sorted, input keys only, at most the capacity", function()
      local rng = R.rng(4001)
      local cases = {}
      for _, sz in ipairs { { 5, 5 }, { 100, 100 }, { 1409, 1407 }, { 3000, 1000 }, { 20000, 20000 } } do
        for _, V in ipairs { 0, 3, sz[1] // 4 + 1 } do
          cases[#cases + 1] = { sz[1], sz[2], V }
        end
      end
      for ci, cs in ipairs(cases) do
        local na, nb, V = cs[1], cs[2], cs[3]
        local comp = (ci % 2 == 0) and "greater" or "less"
        local dt = ({ "i32", "f64", "u64", "f32" })[ci % 4 + 1]
        local ka, kb = keys(rng, na, V, dt, comp), keys(rng, nb, V, dt, comp)
        local a, b = ctx:array(ka, dt), ctx:array(kb, dt)
        local av, bv = ctx:iota(na, 1, 1, "i64"), ctx:iota(nb, na + 1, 1, "i64")
        for _, op in ipairs(OPS) do
          local label = string.format("%s %s %s na=%d nb=%d V=%d", op, dt, comp, na, nb, V)
          local c = C.ok(mgpu.setop, op, a, b, { comp = comp, duplicates = false })
          assert.is_true(c.context == ctx)
          assert.are.equal(dt, c.dtype)
          C.no_diff(S.check_loose(op, c:totable(), ka, kb, dt, comp, true, true), label .. " keys only")
          local ck, cv = C.ok(mgpu.setop, op, a, b, { comp = comp, duplicates = false, values = { av, bv } })
          assert.are.equal("i64", cv.dtype)
          check_provenance(op, ck:totable(), cv:totable(), ka, kb, dt, comp, label)
        end
        C.array_eq(a, ka, dt, "a unchanged")
        C.array_eq(b, kb, dt, "b unchanged")
      end
      -- the context still works
      check_pairs(ctx, "i32", T.pairs_a_keys, T.pairs_b_keys, "i32")
    end)
  end)

  describe("aliases", function()
    it("give the same as setop, keys and pairs, with every option", function()
      local rng = R.rng(5000)
      for _, comp in ipairs { "less", "greater" } do
        local ka, kb = keys(rng, 3001, 1500, "i64", comp), keys(rng, 2003, 1500, "i64", comp)
        local a, b = ctx:array(ka, "i64"), ctx:array(kb, "i64")
        local av, bv = ctx:iota(3001, 1, 1, "f32"), ctx:iota(2003, 5000, 1, "f32")
        for _, op in ipairs(OPS) do
          local f = mgpu[ALIAS[op]]
          assert.are.equal("function", type(f), "mgpu." .. ALIAS[op])
          local label = ALIAS[op] .. " " .. comp
          C.same_array(f(a, b, { comp = comp }), mgpu.setop(op, a, b, { comp = comp }), label)
          local k1, v1 = f(a, b, { comp = comp, values = { av, bv } })
          local k2, v2 = mgpu.setop(op, a, b, { comp = comp, values = { av, bv } })
          C.same_array(k1, k2, label .. " keys")
          C.same_array(v1, v2, label .. " values")
          if comp == "less" then
            C.same_array(f(a, b), mgpu.setop(op, a, b), label .. " no options")
            C.same_array(f(a, b, nil), mgpu.setop(op, a, b, {}), label .. " nil options")
          end
          local u1, u2 = unique_keys(rng, 999, "i64", comp), unique_keys(rng, 1001, "i64", comp)
          local ua, ub = ctx:array(u1, "i64"), ctx:array(u2, "i64")
          C.same_array(f(ua, ub, { comp = comp, duplicates = false }),
            mgpu.setop(op, ua, ub, { comp = comp, duplicates = false }), label .. " duplicates = false")
        end
        check_ops(ctx, "i64", ka, kb, { comp = comp, via = "alias" })
        check_pairs(ctx, "i64", ka, kb, "u32", { comp = comp, via = "alias" })
      end
    end)
  end)

  describe("unsorted inputs (undefined but safe)", function()
    it("no crash, input keys only, at most the capacity", function()
      local rng = R.rng(6000)
      for ci, sz in ipairs { { 1, 1 }, { 2, 3 }, { 100, 50 }, { 1409, 1407 }, { 5000, 3000 }, { 20000, 1 },
                             { 1, 20000 }, { 20000, 20000 } } do
        local na, nb = sz[1], sz[2]
        local dt = R.dtypes[ci % 6 + 1]
        local V = ({ 3, na, 1000000 })[ci % 3 + 1]
        local ka, kb = shuffled(rng, na, V, dt), shuffled(rng, nb, V, dt)
        -- b sorted the other way for some cases
        if ci % 2 == 0 then kb = R.mergesort(kb, dt, "greater") end
        local a, b = ctx:array(ka, dt), ctx:array(kb, dt)
        local av, bv = ctx:iota(na, 1, 1, "i32"), ctx:iota(nb, na + 1, 1, "i32")
        for _, comp in ipairs { "less", "greater" } do
          for _, dups in ipairs { true, false } do
            for _, op in ipairs(OPS) do
              local label = string.format("unsorted %s %s %s dups=%s na=%d nb=%d", op, dt, comp,
                tostring(dups), na, nb)
              local c = C.ok(mgpu.setop, op, a, b, { comp = comp, duplicates = dups })
              assert.are.equal(dt, c.dtype)
              C.no_diff(S.check_loose(op, c:totable(), ka, kb, dt, comp, false, false), label)
              local ck, cv = C.ok(mgpu.setop, op, a, b, { comp = comp, duplicates = dups, values = { av, bv } })
              assert.are.equal(#ck, #cv, label .. ": keys and values differ in length")
              C.no_diff(S.check_loose(op, ck:totable(), ka, kb, dt, comp, false, false), label .. " pairs")
            end
          end
        end
        C.array_eq(a, ka, dt, "a unchanged")
        C.array_eq(b, kb, dt, "b unchanged")
      end
      -- the context still works
      check_pairs(ctx, "i32", T.pairs_a_keys, T.pairs_b_keys, "i32")
    end)
  end)

  describe("sizes around tile boundaries, against the Lua reference", function()
    -- 1472 ... 3968: calls of one tile and just past one (totals 2n and
    -- 2n + 1 at the tile sizes 2944, 3712, 3968, 5888, 7424 and 7936 that
    -- kernels/policy/setop.cuh has today), the first of which the GPU runs
    -- without a partition launch
    local sizes = { 1, 2, 127, 128, 129, 1472, 1856, 1984, 2047, 2049, 2944,
                    3712, 3968, 10007, 100003 }
    for k, n in ipairs(sizes) do
      it("n = " .. n, function()
        local rng = R.rng(7000 + k)
        local dt = R.dtypes[k % 6 + 1]
        local comp = (k % 3 == 2) and "greater" or "less"
        -- both n; then n against a shorter and a longer side (not for the
        -- largest n, to keep the spec fast)
        local nbs = (n > 10007) and { n, n // 2 + 1 } or { n, n // 2 + 1, n + 1 }
        for j, nb in ipairs(nbs) do
          local V = math.max(1, n)
          local ka, kb = keys(rng, n, V, dt, comp), keys(rng, nb, V, dt, comp)
          if j == 1 then check_ops(ctx, dt, ka, kb, { comp = comp }) end
          check_pairs(ctx, dt, ka, kb, (j == 2) and "f64" or "i32", { comp = comp })
        end
      end)
    end
  end)

  describe("bad input", function()
    local function context_works()
      local c, cv = mgpu.setop("intersection", ctx:array { 1, 2, 2, 3 }, ctx:array { 2, 2, 4 },
        { values = { ctx:iota(4), ctx:iota(3, 5) } })
      C.array_eq(c, { 2, 2 }, "i32", "setop after the error")
      C.array_eq(cv, { 2, 3 }, "i32", "setop values after the error")
      C.array_eq(mgpu.set_union(ctx:array { 1, 3 }, ctx:array { 2, 3 }), { 1, 2, 3 }, "i32",
        "set_union after the error")
      C.array_eq(mgpu.merge(ctx:array { 1, 3 }, ctx:array { 2 }), { 1, 2, 3 }, "i32", "merge after the error")
    end
    local h = C.bad_input_harness(context_works)
    local guard, E = h.guard, h.E
    before_each(h.reset)

    local A, B = { 1, 3, 5, 7 }, { 2, 3, 6 }
    local UNKNOWN = "mgpu.setop: unknown op 'intersect' (expected \"intersection\", \"union\", " ..
      "\"difference\" or \"symmetric_difference\")"

    it("setop: unknown op, op not a string", function()
      local a, b = ctx:array(A), ctx:array(B)
      guard { { a, A }, { b, B } }
      E(function() return mgpu.setop("intersect", a, b) end, "mgpu.setop", "^" .. C.lit(UNKNOWN) .. "$")
      for _, bad in ipairs { "Intersection", "UNION", "set_union", "diff", "symmetric difference", "" } do
        E(function() return mgpu.setop(bad, a, b) end, "mgpu.setop", "unknown op", W("op"),
          "'" .. C.lit(bad) .. "'")
      end
      E(function() return mgpu.setop(1, a, b) end, "mgpu.setop", W("op"))
      E(function() return mgpu.setop(nil, a, b) end, "mgpu.setop", W("op"))
      E(function() return mgpu.setop(a, b) end, "mgpu.setop", W("op"))
      E(function() return mgpu.setop({ "union" }, a, b) end, "mgpu.setop", W("op"))
      E(function() return mgpu.setop(true, a, b) end, "mgpu.setop", W("op"))
      E(function() return mgpu.setop() end, "mgpu.setop")
    end)

    it("a or b not an array, freed arrays", function()
      local a, b = ctx:array(A), ctx:array(B)
      guard { { a, A }, { b, B } }
      E(function() return mgpu.setop("union", a, { 2, 3, 6 }) end, "mgpu.setop", W("b"), "table")
      E(function() return mgpu.setop("union", a, "236") end, "mgpu.setop", W("b"), "string")
      E(function() return mgpu.setop("union", a, nil) end, "mgpu.setop", W("b"))
      E(function() return mgpu.setop("union", a) end, "mgpu.setop", W("b"))
      E(function() return mgpu.setop("union", 42, b) end, "mgpu.setop", W("a"), "number")
      E(function() return mgpu.setop("union", nil, b) end, "mgpu.setop", W("a"))
      E(function() return mgpu.setop("union", ctx, b) end, "mgpu.setop", W("a"))
      E(function() return mgpu.setop("union", { 1, 3 }, b) end, "mgpu.setop", W("a"), "table")
      local f = ctx:array(B)
      f:free()
      E(function() return mgpu.setop("union", a, f) end, "mgpu", FREED)
      E(function() return mgpu.setop("union", f, b) end, "mgpu", FREED)
      local fv = ctx:iota(3)
      fv:free()
      E(function() return mgpu.setop("union", a, b, { values = { ctx:iota(4), fv } }) end, "mgpu", FREED)
    end)

    it("keys of different dtypes", function()
      local a = ctx:array(A)
      local bf, bu = ctx:array(B, "f64"), ctx:array(B, "u32")
      local b64 = ctx:array(B, "i64")
      guard { { a, A }, { bf, R.astype(B, "i32", "f64") }, { bu, B }, { b64, B } }
      E(function() return mgpu.setop("intersection", a, bf) end, "mgpu.setop", W("b"), "f64")
      E(function() return mgpu.setop("union", bf, a) end, "mgpu.setop", W("b"), "i32")
      E(function() return mgpu.setop("difference", a, bu) end, "mgpu.setop", W("b"), "u32")
      E(function() return mgpu.setop("symmetric_difference", a, b64) end, "mgpu.setop", W("b"), "i64")
      E(function() return mgpu.set_union(a, bf) end, "mgpu.set_union", W("b"), "f64")
    end)

    it("values not a table, of the wrong length, of differing dtypes", function()
      local a, b = ctx:array(A), ctx:array(B)
      local av, bv = ctx:iota(4), ctx:iota(3)
      guard { { a, A }, { b, B }, { av, R.iota(4) }, { bv, R.iota(3) } }
      local V = "values"
      E(function() return mgpu.setop("union", a, b, { values = av }) end, "mgpu.setop", V)
      E(function() return mgpu.setop("union", a, b, { values = 5 }) end, "mgpu.setop", V)
      E(function() return mgpu.setop("union", a, b, { values = "av" }) end, "mgpu.setop", V)
      E(function() return mgpu.setop("union", a, b, { values = { av } }) end, "mgpu.setop", V)
      E(function() return mgpu.setop("union", a, b, { values = {} }) end, "mgpu.setop", V)
      E(function() return mgpu.setop("union", a, b, { values = { av, { 1, 2, 3 } } }) end, "mgpu.setop", V)
      E(function() return mgpu.setop("union", a, b, { values = { { 1, 2, 3, 4 }, bv } }) end, "mgpu.setop", V)
      -- wrong lengths: the message names the values array and the keys it goes with
      local V1, V2 = C.lit("values[1]"), C.lit("values[2]")
      E(function() return mgpu.setop("union", a, b, { values = { ctx:iota(3), bv } }) end,
        "mgpu.setop", V1, W("3"), W("4"))
      E(function() return mgpu.setop("intersection", a, b, { values = { ctx:iota(5), bv } }) end,
        "mgpu.setop", V1, W("5"), W("4"))
      E(function() return mgpu.setop("difference", a, b, { values = { av, ctx:iota(4) } }) end,
        "mgpu.setop", V2, W("4"), W("3"))
      E(function() return mgpu.setop("symmetric_difference", a, b, { values = { av, ctx:iota(0) } }) end,
        "mgpu.setop", V2, W("0"), W("3"))
      E(function() return mgpu.set_difference(a, b, { values = { ctx:iota(3), bv } }) end,
        "mgpu.set_difference", V1)
      -- values of two dtypes
      E(function() return mgpu.setop("union", a, b, { values = { av, bv:astype("f64") } }) end,
        "mgpu.setop", V, "f64")
      E(function() return mgpu.setop("intersection", a, b, { values = { av:astype("u64"), bv } }) end,
        "mgpu.setop", V, "u64")
      E(function() return mgpu.set_intersection(a, b, { values = { av, bv:astype("i64") } }) end,
        "mgpu.set_intersection", V)
    end)

    it("arrays on different contexts", function()
      local other = mgpu.context { device = device }
      local a, b = ctx:array(A), ctx:array(B)
      local ob = other:array(B)
      local oav, obv = other:iota(4), other:iota(3)
      guard { { a, A }, { b, B }, { ob, B }, { oav, R.iota(4) }, { obv, R.iota(3) } }
      E(function() return mgpu.setop("union", a, ob) end, "mgpu.setop", { W("b"), "context" })
      E(function() return mgpu.setop("union", ob, a) end, "mgpu.setop", { W("b"), W("a"), "context" })
      E(function() return mgpu.setop("union", a, b, { values = { ctx:iota(4), obv } }) end, "mgpu.setop",
        { "values", "context" })
      E(function() return mgpu.setop("union", a, b, { values = { oav, ctx:iota(3) } }) end, "mgpu.setop",
        { "values", "context" })
      E(function() return mgpu.set_symmetric_difference(a, ob) end, "mgpu.set_symmetric_difference",
        { W("b"), "context" })
      if backends.has_cuda() then
        local x = (device == "cuda") and mgpu.context { device = "cpu" } or mgpu.context { device = "cuda" }
        E(function() return mgpu.setop("intersection", a, x:array(B)) end, "mgpu.setop")
        E(function() return mgpu.setop("intersection", a, b, { values = { x:iota(4), x:iota(3) } }) end,
          "mgpu.setop")
      end
      -- the other context still works on its own
      local c, cv = mgpu.setop("union", other:array(A), ob, { values = { oav, obv } })
      C.array_eq(c, { 1, 2, 3, 5, 6, 7 }, "i32")
      C.array_eq(cv, { 1, 1, 2, 3, 3, 4 }, "i32")
    end)

    it("unknown options, options not a table, bad comp, duplicates not a boolean", function()
      local a, b = ctx:array(A), ctx:array(B)
      local av, bv = ctx:iota(4), ctx:iota(3)
      guard { { a, A }, { b, B }, { av, R.iota(4) }, { bv, R.iota(3) } }
      E(function() return mgpu.setop("union", a, b, { valeus = { av, bv } }) end, "mgpu.setop", "valeus")
      E(function() return mgpu.setop("union", a, b, { duplicate = false }) end, "mgpu.setop", "duplicate")
      E(function() return mgpu.setop("union", a, b, { op = "union" }) end, "mgpu.setop", W("op"))
      E(function() return mgpu.setop("union", a, b, { stable = true }) end, "mgpu.setop", "stable")
      E(function() return mgpu.set_union(a, b, { valeus = { av, bv } }) end, "mgpu.set_union", "valeus")
      E(function() return mgpu.setop("union", a, b, "less") end, "mgpu.setop")
      E(function() return mgpu.setop("union", a, b, 1) end, "mgpu.setop")
      E(function() return mgpu.set_union(a, b, "greater") end, "mgpu.set_union")
      E(function() return mgpu.setop("union", a, b, { comp = "up" }) end, "mgpu.setop", W("comp"), "up")
      E(function() return mgpu.setop("union", a, b, { comp = "LESS" }) end, "mgpu.setop", W("comp"))
      E(function() return mgpu.setop("union", a, b, { comp = 1 }) end, "mgpu.setop", W("comp"))
      E(function() return mgpu.setop("union", a, b, { comp = true }) end, "mgpu.setop", W("comp"))
      E(function() return mgpu.set_difference(a, b, { comp = "down" }) end, "mgpu.set_difference",
        W("comp"), "down")
      for _, d in ipairs { 0, 1, "false", "no", {} } do
        E(function() return mgpu.setop("union", a, b, { duplicates = d }) end, "mgpu.setop", W("duplicates"))
      end
      E(function() return mgpu.set_intersection(a, b, { duplicates = 0 }) end, "mgpu.set_intersection",
        W("duplicates"))
    end)

    it("aliases name themselves and their arguments", function()
      local a, b = ctx:array(A), ctx:array(B)
      guard { { a, A }, { b, B } }
      for _, op in ipairs(OPS) do
        local name = "mgpu." .. ALIAS[op]
        local f = mgpu[ALIAS[op]]
        E(function() return f(a, { 2, 3, 6 }) end, name, W("b"), "table")
        E(function() return f(a) end, name, W("b"))
        E(function() return f(nil, b) end, name, W("a"))
        E(function() return f("union", a, b) end, name, W("a"), "string")
        E(function() return f(a, b:astype("f32")) end, name, W("b"), "f32")
        E(function() return f(a, b, { values = { ctx:iota(2), ctx:iota(3) } }) end, name, "values")
        E(function() return f(a, b, { comp = "sideways" }) end, name, W("comp"))
        E(function() return f(a, b, { duplicates = "yes" }) end, name, W("duplicates"))
        E(function() return f(a, b, { bogus = 1 }) end, name, "bogus")
      end
    end)
  end)
end)

---------------------------------------------------------------------------
-- cuda against cpu, byte for byte

backends.cuda_vs_cpu(function(gpu, cpu)
  -- Sorted keys for 10^6 random cases: n keys uniform in [lo, hi] (a range
  -- about as wide as n gives ~50% matches, with duplicates), sorted by comp.
  local function sorted(n, lo, hi, dt, seed, comp)
    local x = cpu:random(n, lo, hi, dt, seed)
    mgpu.mergesort(x, { comp = comp })
    return x
  end

  -- Every op, keys only and with values (vdt), on cpu and on gpu.
  local function compare(a, b, comp, vdt, what, duplicates)
    assert.is_true(a:is_sorted(comp) and b:is_sorted(comp), what .. ": inputs not sorted")
    local ga, gb = a:to(gpu), b:to(gpu)
    local av, bv, gav, gbv
    if vdt then
      av = cpu:iota(#a, 1, 1, "i64"):astype(vdt)
      bv = cpu:iota(#b, #a + 1, 1, "i64"):astype(vdt)
      gav, gbv = av:to(gpu), bv:to(gpu)
    end
    for _, op in ipairs(OPS) do
      local label = op .. " " .. what
      local c1 = mgpu.setop(op, a, b, { comp = comp, duplicates = duplicates })
      local c2 = mgpu.setop(op, ga, gb, { comp = comp, duplicates = duplicates })
      assert.are.equal(gpu.device, c2.device)
      C.same_array(c2, c1, label .. " keys only")
      if vdt then
        local k1, v1 = mgpu.setop(op, a, b, { comp = comp, duplicates = duplicates, values = { av, bv } })
        local k2, v2 = mgpu.setop(op, ga, gb, { comp = comp, duplicates = duplicates, values = { gav, gbv } })
        C.same_array(k2, k1, label .. " keys")
        C.same_array(v2, v1, label .. " values")
        assert.are.equal(gpu.device, v2.device)
      end
    end
  end

  local N = 500000
  local cases = {
    { "i32", "i32", 0, N - 1, "less" },
    { "i32", nil, -N // 2, N // 2, "greater" },
    { "u32", "f32", 0x80000000 - N // 2, 0x80000000 + N // 2, "less" },
    { "i64", "u64", (1 << 53) - N // 2, (1 << 53) + N // 2, "less" },
    -- u64 across 2^63 (lo and hi are bit patterns)
    { "u64", "i64", math.maxinteger - N // 2, math.mininteger + N // 2, "less" },
    { "u64", "f64", math.maxinteger - N // 2, math.mininteger + N // 2, "greater" },
  }
  for k, c in ipairs(cases) do
    local dt, vdt, lo, hi, comp = c[1], c[2], c[3], c[4], c[5]
    it(string.format("10^6 random keys: %s values %s %s", dt, tostring(vdt), comp), function()
      compare(sorted(N, lo, hi, dt, 10 * k, comp), sorted(N, lo, hi, dt, 10 * k + 1, comp),
        comp, vdt, dt .. " " .. comp)
    end)
  end

  for k, dt in ipairs { "f32", "f64" } do
    for _, comp in ipairs { "less", "greater" } do
      it(string.format("10^6 random %s keys with NaN and -0.0, %s", dt, comp), function()
        -- integers as floats, so that keys repeat and match
        local a = cpu:random(N, -N // 2, N // 2, "i32", 100 + k):astype(dt)
        local b = cpu:random(N, -N // 2, N // 2, "i32", 200 + k):astype(dt)
        for i = 1, N, 997 do a[i] = nan end
        for i = 3, N, 991 do b[i] = (i % 2 == 0) and -0.0 or nan end
        for i = 7, N, 1009 do a[i] = -0.0 end
        mgpu.mergesort(a, { comp = comp })
        mgpu.mergesort(b, { comp = comp })
        compare(a, b, comp, "i32", dt .. " " .. comp)
      end)
    end
  end

  it("10^6 keys without repeats, duplicates = false", function()
    for _, comp in ipairs { "less", "greater" } do
      -- a: every key = 0, 1 mod 3 below 3N/2; b: every key = 0, 2 mod 3
      local ta, tb = {}, {}
      for i = 1, N do
        local q, r = (i - 1) // 2, (i - 1) % 2
        ta[i] = 3 * q + r
        tb[i] = 3 * q + 2 * r
      end
      if comp == "greater" then ta, tb = G.reverse(ta), G.reverse(tb) end
      local a, b = cpu:array(ta, "i64"), cpu:array(tb, "i64")
      compare(a, b, comp, "u32", "unique " .. comp, false)
      compare(a, b, comp, nil, "unique " .. comp .. " duplicates = true", true)
    end
  end)

  it("duplicates = false on inputs with repeats: sorted, bounded, no crash", function()
    local a = sorted(N, 0, 1000, "i32", 301, "less")
    local b = sorted(N, 0, 1000, "i32", 302, "less")
    local ga, gb = a:to(gpu), b:to(gpu)
    local ta, tb = a:totable(), b:totable()
    for _, op in ipairs(OPS) do
      local c = mgpu.setop(op, ga, gb, { duplicates = false })
      assert.are.equal(gpu.device, c.device)
      assert.is_true(c:is_sorted(), op .. ": result not sorted")
      C.no_diff(S.check_loose(op, c:totable(), ta, tb, "i32", "less", true, true), op)
    end
  end)

  it("long runs of equal keys: 10^6 all equal, and runs of 10^5", function()
    local n = 1000000
    compare(cpu:fill(n, 7, "f32"), cpu:fill(n - 12345, 7, "f32"), "less", "i32", "all equal")
    compare(cpu:fill(n - 12345, -0.0, "f64"), cpu:fill(n, 0.0, "f64"), "less", "u64", "zeros")
    compare(sorted(n, 0, 9, "u64", 303, "greater"), sorted(n // 2, 0, 9, "u64", 304, "greater"),
      "greater", "i32", "10 keys")
    compare(sorted(n // 3, 0, 3, "i32", 305, "less"), sorted(n, 0, 3, "i32", 306, "less"),
      "less", "f64", "4 keys")
  end)

  it("disjoint and one-sided inputs", function()
    local lo, hi = cpu:iota(N, 0), cpu:iota(N, N)
    compare(lo, hi, "less", "i32", "a below b")
    compare(hi, lo, "less", "i32", "b below a")
    compare(cpu:iota(N, 0, 2), cpu:iota(N, 1, 2), "less", "i32", "interleaved")
    compare(lo, cpu:zeros(0), "less", "i32", "b empty")
    compare(cpu:zeros(0), hi, "less", "i32", "a empty")
    compare(lo, cpu:array { 17 }, "less", "i32", "one element in b")
  end)

  it("unsorted inputs: no crash, at most the capacity", function()
    local a = cpu:random(N, 0, 1000, "i32", 307)
    local b = cpu:random(N // 2, 0, 1000, "i32", 308)
    local ta, tb = a:totable(), b:totable()
    local ga, gb = a:to(gpu), b:to(gpu)
    local gav, gbv = gpu:iota(N), gpu:iota(N // 2)
    for _, op in ipairs(OPS) do
      for _, dups in ipairs { true, false } do
        local c, cv = mgpu.setop(op, ga, gb, { duplicates = dups, values = { gav, gbv } })
        assert.are.equal(#c, #cv)
        C.no_diff(S.check_loose(op, c:totable(), ta, tb, "i32", "less", false, false), op)
      end
    end
    -- the context still works
    compare(cpu:iota(1000, 0, 2), cpu:iota(1000, 0, 3), "less", "i32", "after unsorted")
  end)

  -- With many tiles the GPU's partition searches samples of the inputs
  -- before the inputs (kSetopSampleFromPoints in kernels/setop.cuh); the
  -- cases above are too small for that, these take it for every key width.
  it("2^23 keys a side: the partition on samples", function()
    local n = 1 << 23
    compare(sorted(n, 0, n - 1, "i32", 401, "less"), sorted(n, 0, n - 1, "i32", 402, "less"),
      "less", "i32", "2^23 i32")
    compare(sorted(n, 0, n // 8, "i64", 403, "greater"), sorted(n // 2, 0, n // 8, "i64", 404, "greater"),
      "greater", "u64", "2^23 i64, runs of ~8")
    -- runs of ~8,000 equal keys a side: every tile boundary falls inside one
    compare(sorted(n, 0, 999, "u32", 405, "less"), sorted(n, 0, 999, "u32", 406, "less"),
      "less", "f32", "2^23 u32, 1000 keys")
  end)

  -- Unions and symmetric differences of 4-byte and 8-byte pairs stage the
  -- values in shared memory (values on an mbarrier of their own), at sizes
  -- of many rounds of tiles too.  The name puts them with the 2^2x specs
  -- that the sanitizer passes over every setop spec leave out;
  -- tools/gpu-check.sh's `staged` step runs them alone under memcheck and
  -- racecheck.
  it("2^24 keys and values a side: the staged tile", function()
    for k, n in ipairs { 12800000, 1 << 24 } do
      local a = sorted(n, 0, n - 1, "i32", 410 + 2 * k, "less")
      local b = sorted(n, 0, n - 1, "i32", 411 + 2 * k, "less")
      local av = cpu:iota(n, 1, 1, "i32")
      local bv = cpu:iota(n, n + 1, 1, "i32")
      local ga, gb, gav, gbv = a:to(gpu), b:to(gpu), av:to(gpu), bv:to(gpu)
      for _, op in ipairs { "union", "symmetric_difference" } do
        local label = string.format("%s, %d a side", op, n)
        local k1, v1 = mgpu.setop(op, a, b, { values = { av, bv } })
        local k2, v2 = mgpu.setop(op, ga, gb, { values = { gav, gbv } })
        assert.are.equal(gpu.device, k2.device)
        C.same_array(k2, k1, label .. " keys")
        C.same_array(v2, v1, label .. " values")
      end
    end
    -- 8-byte pairs stage their values in 128 x 31 tiles, three an SM: on a
    -- 132-SM GPU 3 * 2^19 keys a side are two rounds of them, 2^22 five
    for k, n in ipairs { 3 * (1 << 19), 1 << 22 } do
      local a = sorted(n, 0, n, "i64", 420 + 2 * k, "greater")
      local b = sorted(n, 0, n, "i64", 421 + 2 * k, "greater")
      local av = cpu:iota(n, 1, 1, "i64"):astype("u64")
      local bv = cpu:iota(n, n + 1, 1, "i64"):astype("u64")
      local ga, gb, gav, gbv = a:to(gpu), b:to(gpu), av:to(gpu), bv:to(gpu)
      for _, op in ipairs { "union", "symmetric_difference" } do
        local label = string.format("i64 %s, %d a side", op, n)
        local opts = { values = { av, bv }, comp = "greater" }
        local k1, v1 = mgpu.setop(op, a, b, opts)
        local k2, v2 = mgpu.setop(op, ga, gb, { values = { gav, gbv }, comp = "greater" })
        assert.are.equal(gpu.device, k2.device)
        C.same_array(k2, k1, label .. " keys")
        C.same_array(v2, v1, label .. " values")
      end
    end
  end)

  it("2^22 unsorted keys a side: no crash, at most the capacity", function()
    local n = 1 << 22
    local a = cpu:random(n, 0, 1 << 20, "i32", 407)
    local b = cpu:random(n, 0, 1 << 20, "i32", 408)
    local ga, gb = a:to(gpu), b:to(gpu)
    local gav, gbv = gpu:iota(n), gpu:iota(n)
    for _, op in ipairs(OPS) do
      for _, dups in ipairs { true, false } do
        local c, cv = mgpu.setop(op, ga, gb, { duplicates = dups, values = { gav, gbv } })
        assert.are.equal(#c, #cv)
        -- both sides hold n keys: an intersection or difference at most n
        local cap = (op == "union" or op == "symmetric_difference") and 2 * n or n
        assert.is_true(#c <= cap, op)
      end
    end
    compare(cpu:iota(1000, 0, 2), cpu:iota(1000, 0, 3), "less", "i32", "after unsorted")
  end)
end)
