-- A random path for each request, from a fixed list (request() is called once
-- per request, so keep it cheap: build the requests once, pick one).
--
--   pacer -s examples/random_paths.lua http://127.0.0.1:8080/
local paths = { "/", "/bytes/100", "/bytes/1000", "/status/200", "/chunked/500" }
local requests = {}

function init(args)
  math.randomseed(wrk.thread.id + 1)  -- pacer's thread.id: a different sequence per thread
  for i, path in ipairs(paths) do
    requests[i] = wrk.format(nil, path)
  end
end

function request()
  return requests[math.random(#requests)]
end
