-- A step load (Locust's LoadTestShape with stages): 10 users for 30 s, then 50
-- for 60 s, then 20 for 30 s, then the run ends by itself.
--   pacer --scenario examples/scenarios/steps.lua --max-users 50 http://127.0.0.1:8080/
local browser = {
  wait = pacer.between(0.5, 1.5),
  tasks = {
    {3, function(u) u:get("/api/products", nil, "products") end, "browse"},
    {1, function(u) u:get("/", nil, "home") end, "home"},
  },
}

return {
  browser,
  shape = {
    {duration = 30, users = 10, spawn_rate = 5},
    {duration = 60, users = 50, spawn_rate = 10},
    {duration = 30, users = 20},
  },
}
