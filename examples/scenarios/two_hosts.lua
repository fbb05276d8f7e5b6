-- Locust's examples/multiple_hosts.py (docs/scenarios.md, "Other origins"): each
-- user calls the run's URL and a second service, whose URL is the first argument
-- after the run's. Each user keeps a connection to each; the second service's rows
-- are named by its URL. Against `pacer serve` and its HTTPS twin:
--   pacer --scenario examples/scenarios/two_hosts.lua -u 4 -d 10s --cacert /tmp/certs/cert.pem http://127.0.0.1:8080/ -- https://127.0.0.1:8443/
local api = pacer.args[1]
if not api then error("give the second service's URL after the run's: pacer ... URL -- API_URL") end
api = api:gsub("/$", "")

return {wait = pacer.between(0.1, 0.5), tasks = {
  {1, function(u) u:get("/") end, "index"},
  {1, function(u) u:get(api .. "/bytes/16") end, "index_other_host"},
}}
