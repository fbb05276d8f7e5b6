-- Write one CSV line of results from done(), to the file named after the URL
-- (pacer ... URL -- results.csv) or to standard output. A header line is
-- written when the file is new, so repeated runs append rows.
--
--   pacer -s examples/csv_report.lua http://127.0.0.1:8080/ -- results.csv
-- init(args) runs in each thread's state, done() in the setup state (as in
-- wrk): setup keeps the thread objects so done() can read what init saw.
local threads = {}

function setup(thread)
  threads[#threads + 1] = thread
end

function init(args)
  csv_path = args[1]
end

local function write_csv(out, summary, latency, requests)
  local seconds = summary.duration / 1e6
  local errors = summary.errors
  out:write(string.format("%d,%d,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%d,%d\n",
    os.time(), summary.requests, summary.requests / seconds,
    latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    errors.connect + errors.read + errors.write + errors.timeout, errors.status))
end

function done(summary, latency, requests)
  local target = threads[1] and threads[1]:get("csv_path")
  local header = "time,requests,requests_per_s,mean_us,p50_us,p90_us,p99_us,max_us,socket_errors,status_errors\n"
  if target then
    local existing = io.open(target, "r")
    local out = assert(io.open(target, "a"))
    if not existing then out:write(header) else existing:close() end
    write_csv(out, summary, latency, requests)
    out:close()
  else
    io.write(header)
    write_csv(io.stdout, summary, latency, requests)
  end
end
