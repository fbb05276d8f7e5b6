-- A multi-step sequence per connection (pacer's extension): each connection
-- logs in once, keeps its own token, then calls the authenticated endpoint.
-- request(conn) and response(status, headers, body, conn) get the same table
-- for a connection for the whole run; wrk scripts that ignore `conn` still run.
--
--   pacer -s examples/login_sequence.lua http://127.0.0.1:8080/
function request(conn)
  if not conn.token then
    conn.step = "login"
    return wrk.format("POST", "/login", { ["Content-Type"] = "application/json" },
                      '{"user":"demo","password":"demo"}')
  end
  conn.step = "call"
  conn.calls = (conn.calls or 0) + 1
  return wrk.format("GET", "/auth", { Authorization = "Bearer " .. conn.token })
end

function response(status, headers, body, conn)
  if conn.step == "login" then
    if status ~= 200 then error("login failed with status " .. status) end
    conn.token = body:match('"token":"([^"]+)"')
  elseif status == 401 then
    conn.token = nil  -- the token expired: log in again on the next request
  end
end

function done(summary, latency, requests)
  local authorized = summary.status[200] or 0
  local refused = summary.status[401] or 0
  io.write(string.format("login sequence: %d responses 200, %d responses 401\n", authorized, refused))
end
