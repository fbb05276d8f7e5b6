-- A session-cookie application (docs/scenarios.md, "Cookies"): each user logs in
-- once, and its cookie jar sends the session cookie back on every page, as a
-- browser or a Locust user (a requests session) would. Against `pacer serve`:
--   pacer --scenario examples/scenarios/session.lua -u 10 -d 10s http://127.0.0.1:8080/
local user = {wait = pacer.between(0.1, 0.5)}

function user.on_start(u)
  local r = u:post("/session/login", "", nil, "login")
  if r.status ~= 200 or not u.cookies.get("pacer_session") then u:fail("login did not set the session cookie") end
end

user.tasks = {
  {1, function(u)
        local r = u:get("/session/page", nil, "page")
        if r.status == 401 then u:fail("the session cookie was not sent") end
      end, "browse"},
}

return user
