-- Benchmark (bench/compare_scenario.sh): a scenario whose one task makes one
-- request with no think time, cycling the same paths as request.lua.
local paths = { "/bytes/100", "/bytes/100?a", "/bytes/100?b", "/bytes/100?c" }
local n = 0
return { tasks = { {1, function(u)
  n = n + 1
  u:get(paths[n % 4 + 1])
end} } }
