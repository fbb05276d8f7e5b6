-- Benchmark: request() builds every request with wrk.format, cycling paths.
local paths = { "/bytes/100", "/bytes/100?a", "/bytes/100?b", "/bytes/100?c" }
local n = 0
function request()
  n = n + 1
  return wrk.format(nil, paths[n % 4 + 1])
end
