-- examples/scenarios/shop.lua without think time, for bench/compare_locust.sh:
-- log in once, then browse four times as often as order, back to back.
local user = {}

function user.on_start(u)
  local r = u:post("/api/login", '{"username":"load-user","password":"secret"}',
                   {["Content-Type"] = "application/json"}, "POST /api/login")
  u.token = r:json().token
end

user.tasks = {
  {4, function(u) u:get("/api/products", nil, "GET /api/products") end, "browse"},
  {1, function(u)
        local r = u:post("/api/orders", '{"sku":"A-100","quantity":1}',
                         {Authorization = "Bearer " .. tostring(u.token)}, "POST /api/orders")
        if r.status ~= 201 then u:fail("unexpected status " .. r.status) end
      end, "order"},
}

user.wait = 0

return user
