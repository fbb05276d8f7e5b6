"""Scenarios (--scenario, docs/scenarios.md) against `pacer serve`'s shop routes:
per-name counts agree with the server, weights and think time show in the
rates, wrong tokens make named `check` failures, a failing on_start does not stop
a user's tasks, Lua errors are `script` errors with file:line, the argument
errors exit 2, and a server freeze shows in both steps of a task in the open
model but only in one request per user in the closed model. Every run is bounded
(-d, and a subprocess timeout)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from conftest import REPO

SHOP = REPO / "examples" / "scenarios" / "shop.lua"
SCHEMA = json.loads((REPO / "docs" / "report.schema.json").read_text())


def scenario(tmp_path: Path, text: str, name: str = "scenario.lua") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def run_json(pacer, *args: str, timeout: float = 60) -> tuple[dict, object]:
    run = pacer("--format", "json", *args, timeout=timeout)
    assert run.rc in (0, 3), run
    report = json.loads(run.stdout)
    jsonschema.validate(report, SCHEMA)
    return report, run


def names(report: dict) -> dict[str, dict]:
    return {n["name"]: n for n in report["scenario"]["names"]}


def latency(report: dict, name: str) -> dict:
    """A name's latency (from each step's due time): the run's per-name figures."""
    endpoint = next(e for e in report["endpoints"] if e["name"] == name)
    lat = endpoint["latency"]
    return {"p90_ns": lat["percentiles_ns"]["90"], "p99_ns": lat["percentiles_ns"]["99"], "max_ns": lat["max_ns"]}


FAST_SHOP = """
local user = {}
function user.on_start(u)
  local r = u:post("/api/login", '{"username":"load-user"}', {["Content-Type"] = "application/json"}, "login")
  u.token = r:json().token
end
user.tasks = {
  {4, function(u) u:get("/api/products", nil, "products") end, "browse"},
  {1, function(u)
        local r = u:post("/api/orders", '{"sku":"A-100"}', {Authorization = "Bearer " .. TOKEN}, "order")
        if r.status ~= 201 then u:fail("unexpected status " .. r.status) end
      end, "order"},
}
return user
"""


def fast_shop(tmp_path: Path, token_expr: str = "u.token") -> str:
    return scenario(tmp_path, FAST_SHOP.replace("TOKEN", token_expr))


@pytest.mark.tsan
def test_per_name_counts_equal_the_servers_and_the_weights_show(server, pacer, tmp_path):
    report, run = run_json(pacer, "-t2", "-u", "8", "-d", "2s", "--scenario", fast_shop(tmp_path), server.url)
    by_name = names(report)
    assert set(by_name) == {"login", "products", "order"}, run
    assert by_name["login"]["requests"] == 8, "one login per user"
    total = sum(n["requests"] for n in by_name.values())
    assert total == report["counts"]["responses"], run
    assert server.wait_for("requests_answered", total) == total, "the server answered exactly the named requests"
    by_path = server.stats()["requests_by_name"]
    assert by_path.get("POST /api/login") == by_name["login"]["requests"], by_path
    assert by_path.get("GET /api/products") == by_name["products"]["requests"], by_path
    assert by_path.get("POST /api/orders") == by_name["order"]["requests"], by_path
    endpoints = {e["name"]: e for e in report["endpoints"]}
    for name, row in by_name.items():
        assert endpoints[name]["responses"] == row["requests"], (name, endpoints[name])
    assert report["scenario"]["errors"] == {"check": 0, "script": 0, "check_on_errors": 0}, run
    ratio = by_name["products"]["requests"] / by_name["order"]["requests"]
    assert 3.6 <= ratio <= 4.4, f"4:1 weights, got {ratio:.2f}"
    tasks = {t["name"]: t for t in report["scenario"]["tasks"]}
    assert tasks["browse"]["count"] == by_name["products"]["requests"]
    assert tasks["order"]["count"] == by_name["order"]["requests"]
    assert tasks["order"]["failures"] == 0
    assert report["scenario"]["users_started"] == 8
    assert report["scenario"]["user_limit"] == 8 and not report["scenario"]["open_model"]


def test_the_shop_example_runs_with_its_think_time(server, pacer):
    run = pacer("-t1", "-u", "5", "-d", "2s", "--scenario", str(SHOP), server.url, timeout=30)
    assert run.rc == 0, run
    assert "Tasks (from the scheduled start to the end):" in run.stdout, run
    assert "POST /api/login" in run.stdout and "5 of at most 5 virtual users started" in run.stdout, run
    assert "check 0, script 0" in run.stdout.replace("\n              ", " "), run


@pytest.mark.tsan
def test_think_time_between_1_and_3_s_gives_users_over_2_per_second(server, pacer, tmp_path):
    path = scenario(tmp_path, """
return { wait = pacer.between(1, 3), tasks = { {1, function(u) u:get("/", nil, "home") end} } }
""")
    # After the warm-up each user is in its stationary cycle: one task per 2 s on average.
    report, run = run_json(pacer, "-t2", "-u", "50", "--warmup", "3s", "-d", "8s", "--scenario", path, server.url)
    rate = report["counts"]["responses"] / report["duration_s"]
    assert 25 * 0.9 <= rate <= 25 * 1.1, f"50 users / 2 s = 25 requests/s, got {rate:.2f}\n{run}"


def test_a_wrong_token_makes_named_check_failures(server, pacer, tmp_path):
    path = fast_shop(tmp_path, '"not-the-token"')
    report, run = run_json(pacer, "-t1", "-u", "4", "-d", "1s", "--max-error-rate", "50%", "--scenario", path,
                           server.url)
    by_name = names(report)
    checks = report["scenario"]["errors"]["check"]
    assert checks > 0 and checks == by_name["order"]["checks"] == by_name["order"]["requests"], run
    assert by_name["products"]["checks"] == 0 and by_name["login"]["checks"] == 0
    assert report["status_codes"]["401"] == checks
    first = [m for m in report["scenario"]["first_messages"] if m["class"] == "check"]
    assert first == [{"class": "check", "where": "order", "text": "unexpected status 401", "count": checks}], first
    tasks = {t["name"]: t for t in report["scenario"]["tasks"]}
    assert tasks["order"]["failures"] == tasks["order"]["count"] and tasks["browse"]["failures"] == 0


def test_checks_count_in_the_error_rate_gate(server, pacer, tmp_path):
    # 200 answers a check fails: without the checks the error rate would be 0.
    path = scenario(tmp_path, """
return { tasks = { {1, function(u) local r = u:get("/"); if r.status == 200 then u:fail("no") end end} } }
""")
    run = pacer("-t1", "-u", "2", "-d", "1s", "--max-error-rate", "1%", "--scenario", path, server.url, timeout=30)
    assert run.rc == 3, run
    assert "gate failed: max-error-rate" in run.stdout, run
    assert "Check error x" in run.stdout and ": GET /: no" in run.stdout, run


def test_a_user_whose_on_start_fails_still_runs_its_tasks(server, pacer, tmp_path):
    path = scenario(tmp_path, """
local user = {}
function user.on_start(u) error("login refused for user " .. u.id) end
user.tasks = { {1, function(u) u:get("/", nil, "home") end} }
return user
""", "failing_start.lua")
    report, run = run_json(pacer, "-t1", "-u", "3", "-d", "1s", "--scenario", path, server.url)
    assert report["scenario"]["errors"]["script"] == 3, run
    assert names(report)["home"]["requests"] > 3, "the tasks ran"
    texts = sorted(m["text"] for m in report["scenario"]["first_messages"])
    assert texts == [f"failing_start.lua:3: login refused for user {i}" for i in range(3)], texts
    assert all(m["where"] == "on_start" for m in report["scenario"]["first_messages"])


def test_a_lua_error_ends_the_task_and_the_user_goes_on(server, pacer, tmp_path):
    path = scenario(tmp_path, """
local n = 0
return { tasks = { {1, function(u)
  u:get("/", nil, "home")
  n = n + 1
  if n % 2 == 0 then local t = nil; return t.x end
  u:get("/", nil, "second")
end, "flaky"} } }
""", "flaky.lua")
    report, run = run_json(pacer, "-t1", "-u", "1", "-d", "1s", "--scenario", path, server.url)
    s = report["scenario"]
    home, second = names(report)["home"]["requests"], names(report)["second"]["requests"]
    assert s["errors"]["script"] >= home // 2 - 1 and second >= home // 2 - 1, run
    assert s["first_messages"][0]["where"] == "flaky"
    assert s["first_messages"][0]["text"].startswith("flaky.lua:6: attempt to index"), s["first_messages"]
    assert s["tasks"][0]["failures"] == s["errors"]["script"]


@pytest.mark.tsan
def test_check_and_script_errors_show_in_every_interval_and_sum_to_the_run(server, pacer, tmp_path):
    # The time series (and the live view, which reads the same lines) has a scenario's
    # own error classes: each interval's check and script errors, adding up to the
    # report's scenario.errors, on_stop's script error in the last interval.
    path = scenario(tmp_path, """
local n = 0
return {
  tasks = { {1, function(u)
    local r = u:get("/", nil, "home")
    n = n + 1
    if n % 3 == 0 then u:fail("every third") end
    if n % 5 == 0 then error("every fifth") end
  end, "mixed"} },
  on_stop = function(u) error("stopping") end,
}
""", "mixed.lua")
    series = tmp_path / "series.ndjson"
    report, run = run_json(pacer, "-t1", "-u", "2", "-d", "1500ms", "--interval", "250ms", "--timeseries",
                           str(series), "--scenario", path, server.url)
    lines = [json.loads(line) for line in series.read_text().splitlines()]
    errors = report["scenario"]["errors"]
    assert errors["check"] > 0 and errors["script"] > 2, run
    assert sum(line["errors"]["check"] for line in lines) == errors["check"], lines
    assert sum(line["errors"]["script"] for line in lines) == errors["script"], lines
    assert lines[-1]["errors"]["script"] >= 2, "both users' on_stop errors are in the last interval"


def test_a_failed_request_returns_status_0_with_its_error(server, pacer, tmp_path):
    path = scenario(tmp_path, """
return { tasks = { {1, function(u)
  local r = u:get("/delay/2000", nil, "slow")
  u:get("/status/" .. (r.status == 0 and r.error == "timeout" and 204 or 500), nil, "after")
end} } }
""")
    report, run = run_json(pacer, "-t1", "-u", "2", "-d", "1s", "--timeout", "300ms", "--scenario", path, server.url)
    assert report["errors"]["timeout"] >= 2, run
    assert report["status_codes"].get("204", 0) >= 2 and "500" not in report["status_codes"], run


def test_a_body_that_does_not_decode_returns_status_0_and_the_user_goes_on(hostile_server, pacer, tmp_path):
    from hostile import answer_each_request

    body = b"\x1f\x8b\x08\x00" + b"this is not deflate data at all" * 4
    head = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(body)
    srv = hostile_server(answer_each_request(head + body))
    path = scenario(tmp_path, """
return { wait = 0, tasks = { {1, function(u)
  local r = u:get("/", nil, "gz")
  if r.status == 0 and r.error == "decode" then u:fail("decode") end
end, "fetch"} } }
""")
    run = pacer("--format", "json", "-t1", "-u", "2", "-d", "1s", "--compressed", "--scenario", path, srv.url,
                timeout=60)
    assert run.rc == 1, run  # not one request succeeded
    report = json.loads(run.stdout)
    s = report["scenario"]
    # Each user resumes after each failed request: many tasks, not one per user.
    assert report["errors"]["decode"] > 10, run
    assert s["errors"]["check"] == report["errors"]["decode"], run
    assert s["tasks"][0]["count"] >= report["errors"]["decode"] - 2, run


@pytest.mark.tsan
@pytest.mark.parametrize(
    "text, args, message",
    [
        ("return { }", (), "user.tasks is missing or empty"),
        ("return { tasks = { {0, function(u) end} } }", (), "tasks[1]: the weight (first field) must be a positive number"),
        ("return { tasks = { {'x', function(u) end} } }", (), "must be a positive number"),
        ("return { tasks = { {1, 'f'} } }", (), "tasks[1]: the second field must be a function"),
        ("return { wait = 'soon', tasks = { {1, function(u) end} } }", (), "user.wait must be"),
        ("return 42", (), "must return the user definition"),
        ("return { tasks = { {1, function(u) end} } }", ("-u", "5", "-R", "10"), "-u: not with -R/--stages"),
        ("return { tasks = { {1, function(u) end} } }", ("-s", "x.lua"), "--scenario and -s/--script cannot be used together"),
        ("return { tasks = { {1, function(u) end} } }", ("--http2",), "--http2: not supported with --scenario"),
        ("return { tasks = { {1, function(u) end} } }", ("--targets", "t.txt"), "--targets: not with --scenario"),
        ("return { tasks = { {1, function(u) end} } }", ("--spawn-rate", "5", "-R", "10"), "--spawn-rate: not with -R"),
        ("return { tasks = { {1, function(u) end} } }", ("-u", "8", "--max-users", "5"),
         "--max-users 5: fewer than the 8 users the run starts with (-u)"),
        ("return { tasks = { {1, function(u) end} }, wiat = 1 }", (), "user: unknown field 'wiat'"),
        ("return { {weight = -1, tasks = { {1, function(u) end} } } }", (), "users[1].weight must be a positive number"),
        ("return { tasks = { {1, function(u) end, tags = {'a'}} } }", ("--tags", "b"), "no task or task set has the tag 'b'"),
        ("return { tasks = { {1, function(u) end, tags = {'a'}} } }", ("--exclude-tags", "a"), "empty tag selection"),
    ],
)
def test_bad_scenarios_and_arguments_exit_2(pacer, tmp_path, text, args, message):
    run = pacer("--scenario", scenario(tmp_path, text), *args, "http://127.0.0.1:9/", timeout=20)
    assert run.rc == 2, run
    assert message in run.stderr, run


@pytest.mark.tsan
def test_http3_is_refused_with_a_scenario(pacer, tmp_path):
    # Users write HTTP/1.1 bytes into an HTTP/1.1 session: an HTTP/3 connection has none.
    run = pacer("--scenario", scenario(tmp_path, "return { tasks = { {1, function(u) end} } }"), "--http3",
                "https://127.0.0.1:9/", timeout=20)
    assert run.rc == 2, run
    assert "--http3: not supported with --scenario" in run.stderr, run


@pytest.mark.tsan
def test_users_without_a_scenario_exit_2(pacer):
    run = pacer("-u", "5", "http://127.0.0.1:9/", timeout=20)
    assert run.rc == 2 and "-u: only with --scenario FILE" in run.stderr, run
    run = pacer("--tags", "a", "http://127.0.0.1:9/", timeout=20)
    assert run.rc == 2 and "--tags: only with --scenario FILE" in run.stderr, run
    run = pacer("--scenario", "x.lua", "--exclude-tags", ",", "http://127.0.0.1:9/", timeout=20)
    assert run.rc == 2 and "--exclude-tags: no tag given" in run.stderr, run


TWO_STEPS = """
return { wait = 0, tasks = { {1, function(u)
  u:get("/", nil, "step1")
  u:sleep(0.5)
  u:get("/", nil, "step2")
end} } }
"""


@pytest.mark.alone
def test_a_freeze_shows_in_both_steps_in_the_open_model_and_not_in_the_closed(start_server, pacer, tmp_path):
    path = scenario(tmp_path, TWO_STEPS)
    freeze = 1.0
    server = start_server("--freeze-at", "1.5s", "--freeze-for", f"{freeze}s")
    report, run = run_json(pacer, "-t1", "-R", "200", "-d", "4s", "--timeout", "5s", "--scenario", path, server.url)
    by_name = names(report)
    for step in ("step1", "step2"):
        lat, count = latency(report, step), by_name[step]["requests"]
        # Each step due during the freeze waits for its end, and they are due at R per
        # second: step 1s of the tasks that arrive in it, step 2s of the tasks whose step 1
        # ended in the s = 0.5 s before it. So the k-th longest latency of either step is
        # F - k / R (k <= R x 0.5): p90 ~ F - 0.1 N / R, p99 ~ F - 0.01 N / R.
        p90 = freeze - 0.1 * count / 200
        p99 = freeze - 0.01 * count / 200
        assert abs(lat["p90_ns"] / 1e9 - p90) < 0.2, f"{step}: p90 {lat['p90_ns'] / 1e9:.3f}s, theory {p90:.3f}s\n{run}"
        assert abs(lat["p99_ns"] / 1e9 - p99) < 0.2, f"{step}: p99 {lat['p99_ns'] / 1e9:.3f}s, theory {p99:.3f}s\n{run}"
    task_p99 = report["scenario"]["tasks"][0]["duration"]["p99_ns"] / 1e9
    assert task_p99 >= 0.5 + 0.5 * freeze, f"a task's duration holds its stalled step, p99 {task_p99:.3f}s"

    closed_server = start_server("--freeze-at", "1.5s", "--freeze-for", f"{freeze}s")
    closed, run = run_json(pacer, "-t1", "-u", "10", "-d", "8s", "--timeout", "5s", "--scenario", path,
                           closed_server.url)
    for step in ("step1", "step2"):
        lat, count = latency(closed, step), names(closed)[step]["requests"]
        # A stalled user sends nothing: one request per user waits out the freeze, of
        # the ~16 tasks each user runs, so the stall is past p90 of either step.
        assert count >= 100, run
        # (The open model's p90 of either step is ~0.6 s.)
        assert lat["p90_ns"] / 1e9 < 0.3 * freeze, f"closed model, {step}: p90 {lat['p90_ns'] / 1e9:.3f}s\n{run}"
    longest = max(latency(closed, step)["max_ns"] for step in ("step1", "step2")) / 1e9
    assert longest > 0.5 * freeze, f"the stalled requests themselves are there\n{run}"


@pytest.mark.tsan
def test_spawn_rate_starts_users_gradually(server, pacer, tmp_path):
    path = scenario(tmp_path, 'return { wait = 0.05, tasks = { {1, function(u) u:get("/") end} } }')
    report, run = run_json(pacer, "-t2", "-u", "40", "--spawn-rate", "10", "-d", "1s", "--scenario", path, server.url)
    # Users 0..39 start at id / 10 s: ten of them within the first second.
    assert 9 <= report["scenario"]["users_started"] <= 11, run


@pytest.mark.tsan
def test_open_model_starts_tasks_at_the_rate_on_users_created_as_needed(server, pacer, tmp_path):
    path = scenario(tmp_path, """
local user = {}
function user.on_start(u) u:get("/", nil, "start") end
user.tasks = { {1, function(u) u:get("/delay/20", nil, "a"); u:get("/", nil, "b") end} }
return user
""")
    report, run = run_json(pacer, "-t2", "-R", "100", "-d", "2s", "--scenario", path, server.url)
    s = report["scenario"]
    assert s["open_model"] and s["user_limit"] == 10000
    tasks = s["tasks"][0]["count"]
    assert report["counts"]["scheduled"] == 200, run
    # Tasks still in progress at the end of -d are cut (not counted): a few at most.
    assert 180 <= tasks <= 200, run
    by_name = names(report)
    assert by_name["b"]["requests"] == tasks
    assert tasks <= by_name["a"]["requests"] <= tasks + s["users_started"]
    # Each task holds its user ~20 ms: about 100/s x 20 ms = 2 users busy at once
    # (more when a loaded machine slows the server), far below --max-users.
    assert 2 <= s["users_started"] <= 60, run
    assert by_name["start"]["requests"] == s["users_started"]


def test_open_model_tasks_wait_for_a_user_and_are_given_up_after_the_timeout(server, pacer, tmp_path):
    path = scenario(tmp_path, 'return { tasks = { {1, function(u) u:get("/delay/200") end} } }')
    report, run = run_json(pacer, "-t1", "-R", "40", "-d", "2s", "--max-users", "2", "--timeout", "500ms",
                           "--scenario", path, server.url)
    s = report["scenario"]
    assert s["users_started"] == 2, run
    # Two users finish 10 tasks/s of the 40 due: the rest wait, and past --timeout are given up.
    assert report["errors"]["unsent"] > 20, run
    assert s["tasks"][0]["count"] <= 2 * 2 / 0.2 + 2, run
    # A task's duration counts from its scheduled time: waiting for a user shows.
    assert s["tasks"][0]["duration"]["p99_ns"] / 1e9 > 0.4, run


@pytest.mark.tsan
def test_merged_shards_add_up_their_tasks_names_and_check_errors(server, pacer, tmp_path):
    """pacer merge of a scenario's shards: the Tasks table, the requests by name and
    the check errors are the whole test's (docs/distributed.md)."""
    script = fast_shop(tmp_path, '"not-the-token"')  # every order fails its check
    files = []
    for i in range(2):
        path = tmp_path / f"shard{i}.json"
        run = pacer("-t1", "-u", "4", "-d", "1s", "--shard", f"{i}/2", "--scenario", script, "--format", "json",
                    "-o", str(path), server.url, timeout=60)
        assert run.rc in (0, 3), run
        files.append(path)
    shards = [json.loads(p.read_text())["scenario"] for p in files]
    run = pacer("merge", "--format", "json", *map(str, files), timeout=60)
    assert run.rc == 0, run
    merged = json.loads(run.stdout)
    jsonschema.validate(merged, SCHEMA)
    s = merged["scenario"]
    for i, task in enumerate(s["tasks"]):
        assert task["count"] == sum(sh["tasks"][i]["count"] for sh in shards), (task, shards)
        assert task["failures"] == sum(sh["tasks"][i]["failures"] for sh in shards)
        assert task["duration"]["max_ns"] >= max(sh["tasks"][i]["duration"]["max_ns"] for sh in shards)
    orders = sum(names({"scenario": sh})["order"]["requests"] for sh in shards)
    assert orders > 0 and names(merged)["order"]["requests"] == orders
    assert s["errors"]["check"] == orders == sum(sh["errors"]["check"] for sh in shards)
    assert s["users_started"] == 4 and s["user_limit"] == 4
    total = sum(n["requests"] for n in s["names"])
    assert total == merged["counts"]["responses"] == server.wait_for("requests_answered", total)
    text = pacer("merge", *map(str, files), timeout=60)
    assert "Tasks (from the scheduled start to the end):" in text.stdout, text


SEVERAL_USERS = """
local browse = pacer.taskset{
  on_start = function(u) u:get("/api/products", nil, "enter") end,
  tasks = {
    {3, function(u) u:get("/api/products", nil, "list") end, "list", tags = {"browse"}},
    {1, function(u) u:get("/status/204", nil, "leave"); u:interrupt() end, "leave", tags = {"browse"}},
  },
}
local buyer = {weight = 3, tasks = {{2, browse}, {1, pacer.sequence{tags = {"buy"}, tasks = {
  {1, function(u) u:get("/status/200", nil, "look") end, "look"},
  {1, function(u)
        local r = u:get("/status/404", nil, "expected 404")
        if r.status == 404 then u:success() end
      end, "order"},
}}}}}
local admin = {fixed_count = 1, tasks = {{1, function(u) u:get("/status/202", nil, "health") end, "health", tags = {"admin"}}}}
return {buyer, admin}
"""


@pytest.mark.tsan
def test_several_user_types_task_sets_and_tags_count_what_the_server_saw(server, pacer, tmp_path):
    path = scenario(tmp_path, SEVERAL_USERS)
    report, run = run_json(pacer, "-t2", "-u", "5", "-d", "1s", "--scenario", path, server.url)
    by_name = names(report)
    assert {"enter", "list", "leave", "look", "expected 404", "health"} <= set(by_name), run
    total = sum(n["requests"] for n in by_name.values())
    assert server.wait_for("requests_answered", total) == total, "the server answered exactly the named requests"
    by_path = server.stats()["requests_by_name"]
    assert by_path.get("GET /status/202") == by_name["health"]["requests"] > 0, by_path
    assert by_path.get("GET /status/404") == by_name["expected 404"]["requests"] > 0, by_path
    assert by_path.get("GET /api/products") == by_name["enter"]["requests"] + by_name["list"]["requests"], by_path
    tasks = {t["name"]: t for t in report["scenario"]["tasks"]}
    assert tasks["user1: order"]["failures"] == 0, "u:success() took the expected 404"
    # ...and so did the run's counts: the 404s are no status errors, in the run's,
    # the name's and the intervals' figures, while their status code stays counted.
    assert report["errors"]["status"] == 0, report["errors"]
    assert report["status_codes"]["404"] == by_name["expected 404"]["requests"], report["status_codes"]
    e404 = next(e for e in report["endpoints"] if e["name"] == "expected 404")
    assert e404["errors"]["status"] == 0 and e404["non_2xx_3xx"] == by_name["expected 404"]["requests"], e404
    assert tasks["user2: health"]["count"] == by_name["health"]["requests"]
    assert report["scenario"]["errors"]["script"] == 0, run

    # --tags buy: only the sequence's tasks run (the admin and the browsing set have none left).
    before = server.stats()
    report, run = run_json(pacer, "-t1", "-u", "2", "-d", "0.5s", "--tags", "buy", "--scenario", path, server.url)
    by_name = names(report)
    assert set(by_name) == {"look", "expected 404"}, run
    total = sum(n["requests"] for n in by_name.values())
    server.wait_for("requests_answered", before["requests_answered"] + total)
    now = server.stats()["requests_by_name"]
    was = before["requests_by_name"]
    assert now.get("GET /status/200", 0) - was.get("GET /status/200", 0) == by_name["look"]["requests"], now
    assert now.get("GET /status/202") == was.get("GET /status/202"), "no admin ran"


@pytest.mark.tsan
def test_on_test_start_and_on_test_stop_run_once_around_the_run(server, pacer, tmp_path):
    log = tmp_path / "hooks.log"
    text = f"""
    local log = "{log}"
    return {{{{tasks = {{{{1, function(u) u:get("/api/products") end}}}}}},
            on_test_start = function()
              local f = io.open(log, "a"); f:write("start\\n"); f:close()
              started = true
            end,
            on_test_stop = function()
              local f = io.open(log, "a"); f:write(started and "stop after start\\n" or "stop alone\\n"); f:close()
            end}}
    """
    report, run = run_json(pacer, "-t2", "-u", "4", "-d", "0.5s", "--scenario", scenario(tmp_path, text), server.url)
    assert report["counts"]["responses"] > 0, run
    assert log.read_text() == "start\nstop after start\n", "once per run (not per worker), in one state"

