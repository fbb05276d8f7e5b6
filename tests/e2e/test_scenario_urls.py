"""A scenario's URLs and responses as Locust's (issue 42, items 6 to 8): the URL's
path is a prefix to every path a user gives (Locust's --host), an absolute URL of
the run's origin is requested as it is (another origin: test_scenario_origins.py);
r.elapsed is the request's latency in seconds (Locust's response.elapsed); with
Locust's CSV files asked for, a default name keeps its query string as Locust's rows
do; several user types' task rows say whose they are. Each checked at `pacer serve`'s
per-path counts. -t1 and -n or a short -d: a second or less each."""

from __future__ import annotations

import json
from pathlib import Path



def scenario(tmp_path: Path, text: str) -> str:
    path = tmp_path / "scenario.lua"
    path.write_text(text)
    return str(path)


def run_json(pacer, *args: str, codes: tuple[int, ...] = (0, 3)) -> tuple[dict, object]:
    run = pacer("--format", "json", "-t1", *args, timeout=60)
    assert run.rc in codes, run
    return json.loads(run.stdout), run


def endpoints(report: dict) -> dict[str, int]:
    return {e["name"]: e["responses"] for e in report["endpoints"]}


PATHS = """
return {tasks = {{1, function(u)
  u:get("/")
  u:get("/api/products?id=1")
end}}}
"""


def test_the_urls_path_is_a_prefix_of_every_path_as_locusts_host(server, pacer, tmp_path):
    # Locust: --host http://h/docs and get("/") request /docs/; a trailing '/' on the URL is no second one.
    for suffix in ("docs", "docs/"):
        before = server.stats()["requests_by_name"]
        # pacer serve has no /docs: every answer is a 404 (so no request succeeded: exit 1).
        report, run = run_json(pacer, "-u", "1", "-n", "6", "--scenario", scenario(tmp_path, PATHS),
                               server.url + suffix, codes=(1,))
        assert endpoints(report) == {"GET /docs/": 3, "GET /docs/api/products": 3}, run
        after = server.stats()["requests_by_name"]
        for name in ("GET /docs/", "GET /docs/api/products"):
            assert after.get(name, 0) - before.get(name, 0) == 3, (suffix, after)
        assert after.get("GET /", 0) == before.get("GET /", 0), "nothing went to the bare path"


def test_an_absolute_url_of_the_runs_origin_goes_as_it_is_without_the_prefix(server, pacer, tmp_path):
    text = """
return {tasks = {{1, function(u)
  local r = u:get(pacer.args[1] .. "status/204")
  if r.status ~= 204 then u:fail("status " .. r.status) end
end}}}
"""
    report, run = run_json(pacer, "-u", "1", "-n", "4", "--scenario", scenario(tmp_path, text), server.url + "docs",
                           "--", server.url)
    assert endpoints(report) == {"GET /status/204": 4}, run
    assert report["scenario"]["errors"] == {"check": 0, "script": 0, "check_on_errors": 0}, run
    assert server.stats()["requests_by_name"].get("GET /status/204") == 4


def test_r_elapsed_is_the_latency_in_seconds_that_a_took_too_long_check_reads(server, pacer, tmp_path):
    # Locust's docs: if response.elapsed.total_seconds() > 0.5: response.failure("Request took too long")
    text = """
local function timed(u, path, name)
  local r = u:get(path, nil, name)
  if type(r.elapsed) ~= "number" or r.elapsed <= 0 then error("r.elapsed is " .. tostring(r.elapsed)) end
  if r.elapsed > 0.04 then u:fail("took too long") end
end
return {tasks = {{1, function(u)
  timed(u, "/delay/60", "slow")
  timed(u, "/status/200", "fast")
end}}}
"""
    report, run = run_json(pacer, "-u", "1", "-n", "6", "--max-error-rate", "100%", "--scenario",
                           scenario(tmp_path, text), server.url)
    names = {n["name"]: n for n in report["scenario"]["names"]}
    assert report["scenario"]["errors"]["script"] == 0, run
    assert names["slow"]["requests"] == names["slow"]["checks"] == 3, names
    assert names["fast"]["requests"] == 3 and names["fast"]["checks"] == 0, names
    assert server.stats()["requests_by_name"].get("GET /delay/60") == 3


QUERIES = """
return {tasks = {{1, function(u)
  u:get("/api/products?id=1")
  u:get("/api/products?id=2")
end}}}
"""


def test_default_names_drop_the_query_but_keep_it_where_locusts_csv_files_are_asked_for(server, pacer, tmp_path):
    path = scenario(tmp_path, QUERIES)
    report, run = run_json(pacer, "-u", "1", "-n", "4", "--scenario", path, server.url)
    assert endpoints(report) == {"GET /api/products": 4}, run
    report, run = run_json(pacer, "-u", "1", "-n", "4", "--scenario", path, "--csv", str(tmp_path / "l"),
                           "--csv-format", "locust", server.url)
    assert endpoints(report) == {"GET /api/products?id=1": 2, "GET /api/products?id=2": 2}, run
    stats = (tmp_path / "l_stats.csv").read_text()
    assert "GET,/api/products?id=1,2," in stats and "GET,/api/products?id=2,2," in stats, stats


def test_several_user_types_are_named_in_the_report_and_in_their_tasks_rows(server, pacer, tmp_path):
    text = """
local reader = {name = "reader", tasks = {{1, function(u) u:get("/status/200") end, "index"}}}
local writer = {name = "writer", tasks = {{1, function(u) u:get("/status/201") end, "index"}}}
return {reader, {tasks = {{1, function(u) u:get("/status/202") end, "index"}}}, writer}
"""
    path = scenario(tmp_path, text)
    report, run = run_json(pacer, "-u", "3", "-n", "30", "--scenario", path, server.url)
    tasks = {t["name"]: t["count"] for t in report["scenario"]["tasks"]}
    assert set(tasks) == {"reader: index", "user2: index", "writer: index"}, run
    # Locust logs its users per class: the report's types, in the file's order.
    assert report["scenario"]["types"] == [{"name": "reader", "users_started": 1}, {"name": "user2", "users_started": 1},
                                           {"name": "writer", "users_started": 1}], run
    by_path = server.stats()["requests_by_name"]
    assert tasks["reader: index"] == by_path["GET /status/200"] > 0, by_path
    assert tasks["writer: index"] == by_path["GET /status/201"] > 0, by_path
    text_run = pacer("-t1", "-u", "3", "-n", "3", "--scenario", path, server.url, timeout=60)
    assert "User types:   reader 1, user2 1, writer 1 (users started)" in text_run.stdout, text_run
