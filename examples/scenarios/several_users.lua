-- Several user types (issue 27), as docs/scenarios.md shows: shoppers who browse
-- in a task set and try to order in a sequence, and one admin on a fixed pace.
-- Run against `pacer serve`:
--   pacer --scenario examples/scenarios/several_users.lua -u 8 -d 10s http://127.0.0.1:8080/
--   pacer --scenario examples/scenarios/several_users.lua --tags buy -u 8 -d 10s http://127.0.0.1:8080/
local browse = pacer.taskset{                   -- a task set: its tasks run in place of one task...
  on_start = function(u) u:get("/api/products", nil, "GET /api/products") end,
  tasks = {
    {3, function(u) u:get("/api/products", nil, "GET /api/products") end, "list", tags = {"browse"}},
    {1, function(u) u:interrupt() end, "leave"},  -- ...until u:interrupt() goes back to the parent
  },
}
local checkout = pacer.sequence{                -- in order, each entry's first field times in a row
  tags = {"buy"},                               -- a set's tags reach every task inside it
  tasks = {
    {1, function(u) u:get("/api/products", nil, "GET /api/products") end, "look"},
    {1, function(u)
          local r = u:post("/api/orders", '{"sku":"A-100"}', nil, "POST /api/orders")
          if r.status == 401 then u:success() end   -- expected without a login: not a failure
          u:interrupt()
        end, "try to order"},
  },
}
local shopper = {weight = 3, wait = pacer.between(0.5, 1), tasks = {{2, browse}, {1, checkout}}}
local admin = {fixed_count = 1, wait = pacer.constant_pacing(2),
               tasks = {{1, function(u) u:get("/status/200", nil, "health") end, "health", tags = {"admin"}}}}
return {shopper, admin,
        on_test_start = function() io.stderr:write("the test starts\n") end,
        on_test_stop = function() io.stderr:write("the test ends\n") end}
