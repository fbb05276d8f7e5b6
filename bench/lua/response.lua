-- Benchmark: response() looks at every response (headers and body are copied).
local ok = 0
function response(status, headers, body)
  if status == 200 and headers["Content-Length"] then ok = ok + 1 end
end
