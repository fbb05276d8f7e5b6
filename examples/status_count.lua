-- Count responses by status code without defining response() (which would make
-- every response cost a call into Lua): pacer puts the counts in done()'s
-- summary.status table, keyed by code.
--
--   pacer -s examples/status_count.lua http://127.0.0.1:8080/fail/10
function done(summary, latency, requests)
  local codes = {}
  for code in pairs(summary.status) do codes[#codes + 1] = code end
  table.sort(codes)
  io.write("status counts:\n")
  for _, code in ipairs(codes) do
    io.write(string.format("  %d: %d\n", code, summary.status[code]))
  end
end
