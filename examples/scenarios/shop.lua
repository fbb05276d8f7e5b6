-- A shop's users, as Locust would write them: log in once, then browse the
-- products four times as often as they order, thinking 1 to 3 s between tasks.
-- Runs against `pacer serve` (its /api/login, /api/products and /api/orders):
--
--   pacer serve --listen :8080 &
--   pacer --scenario examples/scenarios/shop.lua -u 50 -d 30s http://127.0.0.1:8080/
--   pacer --scenario examples/scenarios/shop.lua -R 100 -d 30s http://127.0.0.1:8080/
local user = {}

function user.on_start(u)                       -- once per virtual user, before its first task
  local r = u:post("/api/login", '{"username":"load-user","password":"secret"}',
                   {["Content-Type"] = "application/json"}, "POST /api/login")
  u.token = r:json().token
end

user.tasks = {                                  -- {weight, function[, name]}; picked at random by weight
  {4, function(u) u:get("/api/products", nil, "GET /api/products") end, "browse"},
  {1, function(u)
        local r = u:post("/api/orders", '{"sku":"A-100","quantity":1}',
                         {Authorization = "Bearer " .. tostring(u.token)}, "POST /api/orders")
        if r.status ~= 201 then u:fail("unexpected status " .. r.status) end
      end, "order"},
}

user.wait = pacer.between(1, 3)                 -- think time after each task (seconds)

function user.on_stop(u) end                    -- when the run ends

return user
