-- Closed forms of what the library returns for inputs built from iotas, so
-- that specs can check arrays of ~2^31 elements a window at a time (no Lua
-- table could hold them).  Each function returns the 1-based element p of
-- the expected output; nothing here calls into mgpu.

local F = {}

-- merge(iota(na), iota(nb)) with na <= nb: values 1..na twice (A's copy
-- first: the merge is stable), then na+1..nb once.  With the values
-- iota(na) for A and iota(nb, -1, -1) for B, an A element carries its key
-- and a B element its key negated.
function F.merge_iotas(na, nb, p)
  assert(na <= nb)
  if p <= 2 * na then
    local k = (p + 1) // 2
    return k, (p % 2 == 1) and k or -k
  end
  return p - na, -(p - na)
end

-- bulk_insert(iota(n), iota(m), iota(m, -1, -1)) with m <= n: value -i
-- goes before data element i, so the output interleaves -1, 1, -2, 2, ...
-- up to -m, m, then m+1..n.
function F.insert_iotas(n, m, p)
  assert(m <= n)
  if p <= 2 * m then
    return (p % 2 == 1) and -((p + 1) // 2) or p // 2
  end
  return p - m
end

-- The sorted result of iota(n, n, -1): 1..n.
function F.sorted_iota(p) return p end

-- 1..n with v placed at position k (what merging {k} with iota(n), in
-- either order, gives with v = k, and bulk_insert(iota(n), {k}, {v})).
function F.one_inserted(k, v, p)
  if p < k then return p end
  if p == k then return v end
  return p - 1
end

-- iota(n) without the element k (set_difference(iota(n), {k})).
function F.one_removed(k, p)
  return p < k and p or p + 1
end

return F
