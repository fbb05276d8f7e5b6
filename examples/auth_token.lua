-- Log in once per thread, then call an authenticated endpoint with the token.
-- The first request of each thread is the login; its response() keeps the
-- token, and every later request carries it. (Per connection instead: see
-- login_sequence.lua.)
--
--   pacer -s examples/auth_token.lua http://127.0.0.1:8080/
local token = nil
local logging_in = false

function request()
  if not token then
    if logging_in then
      -- Another connection of this thread is logging in: use a harmless request meanwhile.
      return wrk.format("GET", "/")
    end
    logging_in = true
    return wrk.format("POST", "/login", { ["Content-Type"] = "application/json" },
                      '{"user":"demo","password":"demo"}')
  end
  return wrk.format("GET", "/auth", { Authorization = "Bearer " .. token })
end

function response(status, headers, body)
  if logging_in and not token and status == 200 then
    token = body:match('"token":"([^"]+)"')
    if token then logging_in = false end
  end
end
