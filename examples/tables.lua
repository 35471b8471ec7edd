-- tables.lua - group and join two small tables, SQL style, on the device:
--
--   customers(id, name)            orders(customer, amount)
--
-- per customer: the number of orders, their total and the largest
-- (GROUP BY), then every customer beside each of their orders (LEFT JOIN)
-- and the orders whose customer is unknown (the right side of a FULL JOIN).
--
--   lua5.4 examples/tables.lua [device]     (default: the default context)
--   (luajit works too)
local mgpu = require "mgpu"

local ctx = arg and arg[1] and mgpu.context { device = arg[1] } or mgpu.default_context()

-- customers, by id (join keys must be sorted)
local names = { [3] = "ada", [5] = "brian", [8] = "chen", [9] = "dara", [12] = "eve" }
local ids = { 3, 5, 8, 9, 12 }
-- orders, in the order they came
local cust = { 8, 3, 8, 15, 5, 3, 8, 15, 3, 1 }
local amount = { 120, 35, 80, 9, 60, 15, 45, 22, 50, 7 }

local id = ctx:array(ids, "i32")
local oc = ctx:array(cust, "i32")
local oa = ctx:array(amount, "i64")
local on = ctx:iota(#cust, 1, 1, "i32") -- order numbers, to find the rows again

-- GROUP BY customer: sort the orders by customer (stable, carrying the
-- amounts and order numbers), then reduce the runs of equal customers
local by_cust = oc:copy()
local amounts, numbers = oa:copy(), on:copy()
mgpu.mergesort(by_cust, { values = amounts })
mgpu.mergesort(oc:copy(), { values = numbers })
local groups, totals = mgpu.reduce_by_key(by_cust, amounts)
local _, largest = mgpu.reduce_by_key(by_cust, amounts, { op = "max" })
local _, count = mgpu.reduce_by_key(by_cust, ctx:fill(#cust, 1, "i32"))

print("customer  orders  total  largest")
local g, t, l, c = groups:totable(), totals:totable(), largest:totable(), count:totable()
for i = 1, #g do
  print(string.format("%-8s  %6d  %5d  %7d", names[g[i]] or ("#" .. g[i]), c[i], t[i], l[i]))
end

-- the same totals for every customer of the table, 0 for those with no
-- order: each customer's orders start where its id goes among the sorted
-- orders, so those positions are segreduce's offsets; one more offset,
-- past the last id, closes the last customer's segment
local offsets = mgpu.sorted_search(id, by_cust):totable()
offsets[#offsets + 1] = mgpu.sorted_search(ctx:array({ ids[#ids] }, "i32"), by_cust,
  { side = "right" })[1]
local per_customer = mgpu.segreduce(amounts, offsets):totable()
print(string.format("\ntotal per customer (%d order(s) below the first id, %d above the last):",
  offsets[1] - 1, #cust + 1 - offsets[#offsets]))
for i, v in ipairs(ids) do
  print(string.format("  %-6s %5d", names[v], per_customer[i]))
end

-- LEFT JOIN customers with the sorted orders: one row per (customer,
-- order), and customers without orders with order 0
local ia, ib = mgpu.join(id, by_cust, { kind = "left" })
print("\ncustomers LEFT JOIN orders:")
local num = numbers:totable()
local amt = amounts:totable()
local ja, jb = ia:totable(), ib:totable()
for r = 1, #ja do
  local who = names[ids[ja[r]]]
  if jb[r] == 0 then
    print(string.format("  %-6s (no orders)", who))
  else
    print(string.format("  %-6s order %2d  %4d", who, num[jb[r]], amt[jb[r]]))
  end
end

-- FULL OUTER JOIN: the rows with no customer are orders of unknown ones
local fa, fb = mgpu.join(id, by_cust, { kind = "outer" })
local unknown = {}
local xa, xb = fa:totable(), fb:totable()
for r = 1, #xa do
  if xa[r] == 0 then unknown[#unknown + 1] = string.format("%d (customer %d)", num[xb[r]], cust[num[xb[r]]]) end
end
print(string.format("\n%d outer-join rows; orders of unknown customers: %s", #xa,
  table.concat(unknown, ", ")))
