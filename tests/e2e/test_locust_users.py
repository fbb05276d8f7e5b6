"""Locust parity, round two (issue 42): users leave at the stage's spawn rate as
they come, a shape run without -d keeps its whole time series, and a stage, a
shape function or POST /users says which user types run. Counted at the server
(each user puts its id in the path, each type its own path), so the figures are
the server's, not pacer's. Every run is bounded (the shape's end, -d, a timeout)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from user_clock import UserClock
from webview import WebRun, request

pytestmark = [pytest.mark.tsan]

TYPES = """
local a = {name = "A", wait = 0.05, tasks = {{1, function(u) u:get("/a?u=" .. u.id) end, "a"}}}
local b = {name = "B", wait = 0.05, tasks = {{1, function(u) u:get("/b?u=" .. u.id) end, "b"}}}
"""


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "shape.lua"
    path.write_text(text)
    return str(path)


@pytest.mark.alone
def test_a_ramp_down_leaves_at_the_spawn_rate_and_the_shape_keeps_its_whole_time_series(pacer, hostile_server, tmp_path):
    clock = UserClock(hostile_server)
    # 12 users, then 4 at 4/s: the 8 leave over 2 s. The shape is 11 s long,
    # longer than -d's default of 10 s, and no -d is given: the shape's own end
    # is the run's, and so is the end of its time series.
    script = write(tmp_path, """
local user = {wait = 0.05, tasks = {{1, function(u) u:get("/t?u=" .. u.id) end, "tick"}}}
return {user, shape = {{duration = 2, users = 12, spawn_rate = 100}, {duration = 9, users = 4, spawn_rate = 4}}}
""")
    series = tmp_path / "series.ndjson"
    run = pacer("-t1", "--scenario", script, "--max-users", "12", "--timeseries", str(series), "--interval", "1s",
                "--format", "json", "-o", str(tmp_path / "r.json"), clock.url, timeout=60)
    assert run.rc == 0, run
    report = json.loads((tmp_path / "r.json").read_text())
    drop = [c for c in report["load_changes"] if c["users_to"] == 4 and not c["ended"]]
    assert len(drop) == 1 and drop[0]["spawn_rate_per_s"] == 4, report["load_changes"]
    assert "users 12 -> 4 (4/s), by the shape" in " ".join(run.stdout.split()), run.stdout
    points = [json.loads(line) for line in series.read_text().splitlines()]
    # Eleven one-second rows, none of them the drain; a drain row, if any, is the last and short.
    whole = [p for p in points if not p["drain"]]
    assert len(whole) == 11, [(p["start_s"], p["duration_s"], p["drain"]) for p in points]
    assert all(p["duration_s"] == pytest.approx(1.0, abs=0.01) for p in whole), whole
    assert all(p["duration_s"] < 0.5 for p in points if p["drain"]), points
    users = {round(p["start_s"] + p["duration_s"]): p["users"] for p in whole}
    # The drop begins at 2 s; a user leaves every 0.25 s: about 7 are left at 3 s, 4 from 4 s on.
    assert 5 <= users[3] <= 10, users
    assert users[5] == 4 and users[11] == 4, users
    # At the server: between 2.3 s and 2.7 s more than 4 users and fewer than 12 still sent.
    with clock._lock:
        first = clock.seen[0][0]
    assert 4 < len(clock.users_between(first, 2.35, 2.65)) < 12, clock.users_between(first, 2.35, 2.65)
    assert len(clock.users_between(first, 4.5, 10.5)) == 4


@pytest.mark.alone
def test_stages_and_a_shape_function_say_which_user_types_run(pacer, hostile_server, tmp_path):
    clock = UserClock(hostile_server)
    # A only (Locust's user_classes), then 2 of A and 3 of B, then B alone; the
    # function's stages are read at its second ticks.
    script = write(tmp_path, TYPES + """
return {a, b, shape = {{duration = 1, users = 2, types = {"A"}}, {duration = 2, users = {A = 2, B = 3}},
                      {duration = 1, users = {B = 1}}}}
""")
    run = pacer("-t2", "--scenario", script, "--max-users", "6", "--format", "json", clock.url, timeout=60)
    assert run.rc == 0, run
    report = json.loads(run.stdout)
    with clock._lock:
        first = clock.seen[0][0]
    assert len(clock.users_on("/a", first, 0.2, 0.9)) == 2 and not clock.users_on("/b", first, 0, 0.9)
    assert len(clock.users_on("/a", first, 1.4, 2.8)) == 2 and len(clock.users_on("/b", first, 1.4, 2.8)) == 3
    assert not clock.users_on("/a", first, 3.4, 3.9) and len(clock.users_on("/b", first, 3.4, 3.9)) == 1
    changes = [(c["users_to"], c["users_by_type"]) for c in report["load_changes"] if not c["ended"]]
    assert changes == [(5, {"A": 2, "B": 3}), (1, {"B": 1})], report["load_changes"]

    # A function returns the count, the spawn rate and Locust's user_classes.
    clock2 = UserClock(hostile_server)
    script = write(tmp_path, TYPES + """
return {a, b, shape = function(t)
  if t < 1 then return 3, 0, {"B"} end
  if t < 2 then return {A = 1} end
  return nil
end}
""")
    run = pacer("-t2", "--scenario", script, "--max-users", "4", "--format", "json", clock2.url, timeout=60)
    assert run.rc == 0, run
    with clock2._lock:
        first = clock2.seen[0][0]
    assert len(clock2.users_on("/b", first, 0.2, 0.9)) == 3 and not clock2.users_on("/a", first, 0, 0.9)
    assert len(clock2.users_on("/a", first, 1.4, 1.9)) == 1 and not clock2.users_on("/b", first, 1.4, 1.9)


@pytest.mark.parametrize(
    "stage, message",
    [
        ('{duration = 1, users = 2, types = {"C"}}', "shape[1].types: no user type is named 'C'"),
        ("{duration = 1, users = {A = 1.5}}", "shape[1].users.A must be a whole number >= 0"),
        ('{duration = 1, users = {A = 1}, types = {"A"}}', "give users per type ({A = n, ...}) or types, not both"),
    ],
)
def test_a_stage_naming_types_badly_exits_2(pacer, tmp_path, stage, message):
    script = write(tmp_path, TYPES + f"return {{a, b, shape = {{{stage}}}}}\n")
    run = pacer("--scenario", script, "http://127.0.0.1:1/", timeout=30)
    assert run.rc == 2, run
    assert message in run.stderr, run.stderr


def test_a_shape_function_naming_an_unknown_type_ends_the_run_with_the_reason(pacer, hostile_server, tmp_path):
    clock = UserClock(hostile_server)
    script = write(tmp_path, TYPES + """
return {a, b, shape = function(t) if t < 1 then return 1 end return 2, 0, {"Nobody"} end}
""")
    run = pacer("-t1", "--scenario", script, "-d", "10s", clock.url, timeout=30)
    assert run.rc == 1, run
    assert "no user type is named 'Nobody' (the types: A, B)" in run.stderr, run.stderr


def test_post_users_gives_counts_per_type_that_the_server_sees(hostile_server, tmp_path):
    clock = UserClock(hostile_server)
    script = write(tmp_path, TYPES + "return {a, b}\n")
    with WebRun("-t2", "--scenario", script, "-u", "2", "--max-users", "6", "-d", "4s", "--web", "127.0.0.1:0",
                "--format", "json", clock.url) as web:
        deadline = time.monotonic() + 10
        while request(web.port, "GET", "/users")[0] == 404 and time.monotonic() < deadline:
            time.sleep(0.02)
        status, _, body = request(web.port, "POST", "/users?users=A:1,B:3")
        assert status == 202, body
        asked = time.monotonic()
        status, _, body = request(web.port, "POST", "/users?users=2&types=C")
        assert status == 409 and b"no user type is named 'C'" in body, body
        status, _, body = request(web.port, "POST", "/users?users=A:x")
        assert status == 400 and b"a count per type" in body, body
        assert web.wait(30) == 0, web.stderr
    report = json.loads(web.stdout)
    assert [(c["users_to"], c["users_by_type"]) for c in report["load_changes"]] == [(4, {"A": 1, "B": 3})]
    assert len(clock.users_on("/a", asked, 0.8, 2.5)) == 1 and len(clock.users_on("/b", asked, 0.8, 2.5)) == 3


EVENTS = """
-- Locust's examples/events.py, ported: a per-request listener adds up every
-- response's body length; on_test_stop writes what all users counted.
local user = {wait = 0.01, tasks = {
  {3, function(u) u:get("/bytes/100", nil, "hundred") end},
  {1, function(u)
    local r = u:get("/bytes/37", nil, "odd")
    if u.id % 2 == 0 then u:fail("even users fail it") end
  end},
}}
return {user,
  on_request = function(r, u)
    pacer.totals.bytes = (pacer.totals.bytes or 0) + r.bytes
    pacer.totals.requests = (pacer.totals.requests or 0) + 1
    if r.error then pacer.totals.failed = (pacer.totals.failed or 0) + 1 end
    if r.name == "odd" and r.error and r.error ~= "even users fail it" then error("odd error: " .. r.error) end
    if not (r.latency_ms >= 0 and r.method == "GET" and r.status == 200) then error("bad event") end
  end,
  on_test_stop = function()
    local f = io.open(pacer.args[1], "w")
    f:write(string.format("%d %d %d", pacer.totals.bytes or -1, pacer.totals.requests or -1, pacer.totals.failed or 0))
    f:close()
  end,
}
"""


@pytest.mark.parametrize("threads", ["1", "2"])
def test_a_per_request_listeners_totals_reach_on_test_stop_and_equal_the_servers(pacer, server, tmp_path, threads):
    script = write(tmp_path, EVENTS)
    out = tmp_path / "totals.txt"
    run = pacer(f"-t{threads}", "--scenario", script, "-u", "4", "-d", "0.5s", "--format", "json",
                "-o", str(tmp_path / "r.json"), server.url, str(out), timeout=60)
    assert run.rc == 0, run
    report = json.loads((tmp_path / "r.json").read_text())
    by_name = server.stats()["requests_by_name"]
    hundred, odd = by_name.get("GET /bytes/100", 0), by_name.get("GET /bytes/37", 0)
    assert hundred > 0 and odd > 0, by_name
    # Every request the server answered has its event: the bytes are the server's.
    written_bytes, written_requests, written_failed = map(int, out.read_text().split())
    assert written_bytes == 100 * hundred + 37 * odd, (written_bytes, by_name)
    assert written_requests == hundred + odd
    totals = report["scenario"]["totals"]
    assert totals == {"bytes": written_bytes, "failed": written_failed, "requests": written_requests}, totals
    # The failed ones are the checks the report counts: u:fail's, as the per-request log has them.
    assert written_failed == report["scenario"]["errors"]["check"] > 0, report["scenario"]["errors"]
    assert report["scenario"]["errors"]["script"] == 0, report["scenario"]["first_messages"]
    line = f"Totals:       bytes {written_bytes}, failed {written_failed}, requests {written_requests}"
    assert line in run.stdout, run.stdout
    assert line in pacer("report", str(tmp_path / "r.json"), timeout=30).stdout, "pacer report reads them back"


def test_a_listener_that_fails_is_a_script_error_named_on_request(pacer, server, tmp_path):
    script = write(tmp_path, """
local user = {wait = 0.01, tasks = {{1, function(u) u:get("/") end}}}
return {user, on_request = function(r) error("listener broke") end}
""")
    run = pacer("-t1", "--scenario", script, "-u", "1", "-n", "3", "--format", "json", server.url, timeout=30)
    report = json.loads(run.stdout)
    assert report["scenario"]["errors"]["script"] >= 2, report["scenario"]
    assert any("listener broke" in m["text"] and m["where"] == "on_request" for m in report["scenario"]["first_messages"])


class NamingServer:
    """Answers every request with a JSON body and a header that name it: item k
    (k = 0, 1, 2, ... over all requests) is named named-(k % 2); counts them."""

    def __init__(self, hostile_server):
        import threading

        from hostile import read_request_head

        self.counts = {"named-0": 0, "named-1": 0}
        self._lock = threading.Lock()
        self._next = 0

        def behaviour(conn, stop):
            buf = bytearray()
            while read_request_head(conn, stop, buf) is not None:
                with self._lock:
                    name = f"named-{self._next % 2}"
                    self._next += 1
                    self.counts[name] += 1
                body = json.dumps({"item": {"name": name}}).encode()
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Name: " + name.encode() +
                             b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)

        self.server = hostile_server(behaviour)
        self.url = self.server.url


@pytest.mark.parametrize("source", ['pacer.name_from{json = "/item/name"}', 'pacer.name_from{header = "x-name"}'])
def test_a_request_named_by_its_response_gets_a_row_per_name_in_every_output(pacer, hostile_server, tmp_path, source):
    srv = NamingServer(hostile_server)
    script = write(tmp_path, f"""
local user = {{wait = 0.01, tasks = {{{{1, function(u) u:get("/api/items/next", nil, {source}) end}}}}}}
return user
""")
    run = pacer("-t1", "--scenario", script, "-u", "2", "-n", "40", "--format", "json", "-o", str(tmp_path / "r.json"),
                "--log-requests", str(tmp_path / "log.csv"), "--csv", str(tmp_path / "locust"), "--csv-format", "locust",
                srv.url, timeout=30)
    assert run.rc == 0, run
    report = json.loads((tmp_path / "r.json").read_text())
    rows = {e["name"]: e["responses"] for e in report["endpoints"]}
    assert rows == srv.counts, (rows, srv.counts)  # no "GET /api/items/next" row: every response named its request
    import csv
    with open(tmp_path / "log.csv", newline="") as f:
        logged = [r["name"] for r in csv.DictReader(f)]
    assert {n: logged.count(n) for n in set(logged)} == srv.counts, logged
    with open(tmp_path / "locust_stats.csv", newline="") as f:
        stats = {r["Name"]: int(r["Request Count"]) for r in csv.DictReader(f) if r["Name"] != "Aggregated"}
    assert stats == srv.counts, stats
    assert "named-0" in run.stdout and "named-1" in run.stdout


def test_a_response_without_the_value_keeps_the_calls_default_name_and_a_bad_pointer_is_refused(pacer, server, tmp_path):
    script = write(tmp_path, """
local user = {wait = 0.01, tasks = {{1, function(u) u:get("/", nil, pacer.name_from{json = "/name"}) end}}}
return user
""")
    run = pacer("-t1", "--scenario", script, "-u", "1", "-n", "5", "--format", "json", server.url, timeout=30)
    assert run.rc == 0, run
    assert [e["name"] for e in json.loads(run.stdout)["endpoints"]] == ["GET /"]
    bad = write(tmp_path, """
local user = {tasks = {{1, function(u) u:get("/", nil, pacer.name_from{json = "name"}) end}}}
return user
""")
    run = pacer("-t1", "--scenario", bad, "-u", "1", "-d", "0.3s", "--format", "json", server.url, timeout=30)
    assert "a JSON pointer is empty or starts with '/'" in run.stdout + run.stderr, run
