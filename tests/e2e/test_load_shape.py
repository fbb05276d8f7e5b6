"""A scenario's user count changing while it runs (issue 27): a load shape in the
file (stages, or a function asked every second) and the web view's POST /users.
The users each server sees are counted from the requests themselves (each user
puts its id in the path), so the figures are the server's, not pacer's. Every
run is bounded (the shape's own end or -d, and a subprocess timeout)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from user_clock import UserClock
from webview import WebRun, request

pytestmark = [pytest.mark.alone, pytest.mark.tsan]


USER = """
local user = {wait = 0.05, tasks = {{1, function(u) u:get("/t?u=" .. u.id) end, "tick"}}}
"""


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "shape.lua"
    path.write_text(text)
    return str(path)


def test_a_shape_of_stages_is_followed_at_the_server_and_ends_the_run(pacer, hostile_server, tmp_path):
    clock = UserClock(hostile_server)
    script = write(tmp_path, USER + """
return {user, shape = {{duration = 1.5, users = 3}, {duration = 1.5, users = 8}, {duration = 1.5, users = 2}}}
""")
    series = tmp_path / "series.ndjson"
    t0 = time.monotonic()
    run = pacer("-t2", "--scenario", script, "--max-users", "10", "--timeseries", str(series), "--interval", "500ms",
                "--format", "json", clock.url, timeout=60)
    assert run.rc == 0, run
    report = json.loads(run.stdout)
    # No -d: the shape's end ends the run, after its 4.5 s.
    assert 4.4 <= report["duration_s"] < 6.5, report["duration_s"]
    changes = [(c["users_from"], c["users_to"], c["ended"], c["by"]) for c in report["load_changes"]]
    assert changes == [(3, 8, False, "shape"), (8, 2, False, "shape"), (2, 2, True, "shape")], changes
    # At the server, well inside each stage (the first request starts the clock):
    # exactly the users the stage asks for, by id.
    with clock._lock:
        first = clock.seen[0][0]
    assert first - t0 < 3
    assert clock.users_between(first, 0.3, 1.3) == {0, 1, 2}
    assert clock.users_between(first, 1.9, 2.8) == set(range(8))
    assert clock.users_between(first, 3.4, 4.3) == {0, 1}
    # Stopped users are no errors, and every request the server saw was counted as
    # sent; a stopped user's request still in flight is dropped (docs/scenarios.md:
    # sent, neither a response nor an error), at most one per user stopped (6 at the
    # drop to 2, 2 at the end).
    assert sum(report["errors"].values()) == 0, report["errors"]
    assert report["counts"]["requests_sent"] == len(clock.seen), (report["counts"], len(clock.seen))
    assert 0 <= len(clock.seen) - report["counts"]["responses"] <= 8, (report["counts"], len(clock.seen))
    # The time series carries the users running at each interval's end.
    users = [json.loads(line)["users"] for line in series.read_text().splitlines()]
    assert users[1] == 3 and 8 in users and users[-2] == 2, users


def test_a_shape_function_drives_the_count_and_nil_ends_the_run(pacer, hostile_server, tmp_path):
    clock = UserClock(hostile_server)
    script = write(tmp_path, USER + """
return {user, shape = function(t)
  if t < 1 then return 1 end
  if t < 2.5 then return 4, 100 end
  return nil
end}
""")
    run = pacer("--scenario", script, "-u", "1", "--max-users", "4", "--format", "json", clock.url, timeout=60)
    assert run.rc == 0, run
    report = json.loads(run.stdout)
    assert [(c["users_to"], c["ended"]) for c in report["load_changes"]] == [(4, False), (4, True)]
    assert report["load_changes"][0]["spawn_rate_per_s"] == 100
    assert 2.9 <= report["duration_s"] < 4.5
    assert {u for _, u in clock.seen} == {0, 1, 2, 3}


def test_a_shape_past_max_users_is_clamped_and_says_so(pacer, hostile_server, tmp_path):
    clock = UserClock(hostile_server)
    script = write(tmp_path, USER + "return {user, shape = {{duration = 1, users = 1}, {duration = 1.2, users = 50}}}\n")
    run = pacer("--scenario", script, "--max-users", "3", clock.url, timeout=60)
    assert run.rc == 0, run
    text = " ".join(run.stdout.split())
    assert "Running load-shaped test (its shape ends it)" in text, text
    assert "1 virtual user at first, up to 3 (--max-users)" in text, text
    assert "Load: at 1.0 s: users 1 -> 3, by the shape (50 asked, 3 at most (--max-users))" in text, text
    assert "the shape ended the run" in text, text
    assert {u for _, u in clock.seen} == {0, 1, 2}


@pytest.mark.parametrize(
    "shape, message",
    [
        ("{{duration = 0, users = 1}}", "shape[1].duration must be a positive number of seconds"),
        ("{{duration = 1, users = 1.5}}", "shape[1].users must be a whole number >= 0"),
        ("{{duration = 1, user = 1}}", "unknown field 'user'"),
        ("'steps'", "shape must be a function(t) returning users"),
    ],
)
def test_bad_stages_exit_2_naming_the_field(pacer, tmp_path, shape, message):
    script = write(tmp_path, USER + f"return {{user, shape = {shape}}}\n")
    run = pacer("--scenario", script, "http://127.0.0.1:1/", timeout=30)
    assert run.rc == 2, run
    assert message in run.stderr, run.stderr


@pytest.mark.parametrize(
    "body, message",
    [
        ("error('boom')", "shape: at 1.0 s: "),
        ("return 'many'", "it returned a string"),
        ("while true do end", "more than 1 s"),
    ],
)
def test_a_shape_that_fails_later_ends_the_run_with_its_error(pacer, hostile_server, tmp_path, body, message):
    clock = UserClock(hostile_server)
    script = write(tmp_path, USER + f"return {{user, shape = function(t) if t < 0.5 then return 1 end {body} end}}\n")
    run = pacer("--scenario", script, "-d", "10s", clock.url, timeout=30)
    assert run.rc == 1, run
    assert message in run.stderr, run.stderr


def test_post_users_changes_the_count_the_server_sees(hostile_server, tmp_path):
    clock = UserClock(hostile_server)
    script = write(tmp_path, USER + "return user\n")
    with WebRun("--scenario", script, "-u", "2", "--max-users", "6", "-d", "4s", "--web", "127.0.0.1:0",
                "--format", "json", clock.url) as web:
        # The view is up before the run: the count can be changed once the run has started.
        deadline = time.monotonic() + 10
        while (status := request(web.port, "GET", "/users")[0]) == 404 and time.monotonic() < deadline:
            time.sleep(0.02)
        status, _, body = request(web.port, "GET", "/users")
        assert status == 200, body
        assert json.loads(body)["users"] == 2 and json.loads(body)["max_users"] == 6
        time.sleep(0.1)  # not synchronisation: only so that the first users are seen before the change
        asked = time.monotonic()
        status, _, body = request(web.port, "POST", "/users?users=5&spawn_rate=0")
        assert status == 202, body
        state = json.loads(body)
        assert state["users"] == 5 and state["changes"][-1]["by"] == "web"
        status, _, body = request(web.port, "POST", "/users?users=7")
        assert status == 409 and b"ceiling of 6" in body, body
        status, _, body = request(web.port, "POST", "/users?users=-1")
        assert status == 400, body
        assert web.wait(30) == 0, web.stderr
    report = json.loads(web.stdout)
    assert [(c["users_from"], c["users_to"], c["by"]) for c in report["load_changes"]] == [(2, 5, "web")]
    assert clock.users_between(asked, 1.0, 3.0) == set(range(5))


def test_post_users_is_refused_where_there_is_no_count_to_change(server, tmp_path):
    with WebRun("-d", "2s", "--web", "127.0.0.1:0", server.url + "/") as web:
        status, _, body = request(web.port, "POST", "/users?users=5")
        assert status == 404 and b"closed-model scenario" in body, body
        web.wait(30)


def test_the_live_pages_users_form_changes_the_count_the_server_sees(hostile_server, tmp_path):
    from browser import Browser

    clock = UserClock(hostile_server)
    script = write(tmp_path, USER + "return user\n")
    with WebRun("--scenario", script, "-u", "1", "--max-users", "4", "-d", "6s", "--interval", "300ms", "--plain",
                "--web", "127.0.0.1:0", "--format", "json", clock.url) as web:
        with Browser(tmp_path / "profile") as browser:
            page = browser.open(web.url)
            # The form shows once the run has started and has a count to change.
            page.wait_for("!document.getElementById('lv-users').hidden")
            assert page.evaluate("document.getElementById('lv-users-count').value") == "1"
            page.evaluate("document.getElementById('lv-users-count').value = '4';"
                          "document.getElementById('lv-users-rate').value = '0';"
                          "document.getElementById('lv-users-apply').click()")
            page.wait_for("document.documentElement.dataset.usersAsked === '4'")
            asked = time.monotonic()
            assert page.console_errors == []
        assert web.wait(30) == 0, web.stderr
    report = json.loads(web.stdout)
    assert [(c["users_from"], c["users_to"], c["by"]) for c in report["load_changes"]] == [(1, 4, "web")]
    assert clock.users_between(asked, 1.0, 2.5) == {0, 1, 2, 3}


# ------------------------------------------------------------- the open model's rate


def requests_between(clock: UserClock, t0: float, a: float, b: float) -> int:
    with clock._lock:
        return sum(1 for t, _ in clock.seen if t0 + a <= t < t0 + b)


def test_post_rate_changes_the_rate_the_server_sees(hostile_server):
    clock = UserClock(hostile_server)
    with WebRun("-t2", "-c4", "-R", "100", "-d", "3s", "--web", "127.0.0.1:0", "--format", "json",
                clock.url + "/r") as web:
        deadline = time.monotonic() + 10
        while request(web.port, "GET", "/rate")[0] == 404 and time.monotonic() < deadline:
            time.sleep(0.02)
        status, _, body = request(web.port, "GET", "/rate")
        assert status == 200 and json.loads(body)["rate_per_s"] == 100, body
        assert request(web.port, "POST", "/users?users=3")[0] == 404  # its load is a rate, not users
        assert request(web.port, "POST", "/rate?rate=-5")[0] == 400
        assert request(web.port, "POST", "/rate?rate=1e300")[0] == 400
        time.sleep(0.5)  # not synchronisation: some of the first rate before the change
        asked = time.monotonic()
        status, _, body = request(web.port, "POST", "/rate?rate=600")
        assert status == 202, body
        assert json.loads(body)["changes"][-1]["rate_to_per_s"] == 600
        assert web.wait(30) == 0, web.stderr
    report = json.loads(web.stdout)
    [change] = report["load_changes"]
    assert (change["rate_from_per_s"], change["rate_to_per_s"], change["by"]) == (100, 600, "web"), change
    # The server sees the new rate from the change on (a second well inside it).
    seen = requests_between(clock, asked, 0.5, 1.5)
    assert 480 <= seen <= 720, seen
    # The target is the schedule's: 100/s until the change, 600/s after it.
    at = change["at_s"]
    expected = (100 * at + 600 * (report["duration_s"] - at)) / report["duration_s"]
    assert report["rates"]["target_per_s"] == pytest.approx(expected, rel=0.03), (report["rates"], at)
    assert report["counts"]["scheduled"] == pytest.approx(expected * report["duration_s"], rel=0.03)
    assert report["counts"]["responses"] == len(clock.seen)


def test_post_rate_is_refused_where_the_load_is_users(server, tmp_path):
    script = write(tmp_path, USER + "return user\n")
    with WebRun("--scenario", script, "-u", "1", "-d", "2s", "--web", "127.0.0.1:0", server.url + "/") as web:
        deadline = time.monotonic() + 10
        while request(web.port, "GET", "/users")[0] == 404 and time.monotonic() < deadline:
            time.sleep(0.02)
        status, _, body = request(web.port, "POST", "/rate?rate=5")
        assert status == 404 and b"open-model" in body, body
        web.wait(30)


def test_an_open_model_shape_of_rates_is_followed_at_the_server(pacer, hostile_server, tmp_path):
    clock = UserClock(hostile_server)
    script = write(tmp_path, USER.replace("wait = 0.05", "wait = 0") + """
return {user, shape = {{duration = 1.5, rate = 50}, {duration = 1.5, rate = 300}, {duration = 1, rate = 0}}}
""")
    t0 = time.monotonic()
    run = pacer("-t2", "--scenario", script, "-R", "10", "--max-users", "50", "--format", "json", clock.url,
                timeout=60)
    assert run.rc == 0, run
    report = json.loads(run.stdout)
    assert 3.9 <= report["duration_s"] < 5.5, report["duration_s"]
    changes = [(c["rate_from_per_s"], c["rate_to_per_s"], c["ended"]) for c in report["load_changes"]]
    assert changes == [(50, 300, False), (300, 0, False), (0, 0, True)], changes
    # Timed from the first request the server saw (the run's start, within a few ms).
    with clock._lock:
        start = clock.seen[0][0]
    assert start - t0 < 5
    first = report["load_changes"][0]["at_s"]
    assert requests_between(clock, start, 0.2, first - 0.2) <= 60 * first
    # A second well inside the 300/s step (the bound is wide: the server is a Python thread per connection).
    assert 0.55 * 300 <= requests_between(clock, start, first + 0.3, first + 1.3) <= 1.3 * 300
    assert sum(report["errors"].values()) == 0, report["errors"]
    assert report["counts"]["responses"] == len(clock.seen)


@pytest.mark.parametrize(
    "args, shape, message",
    [
        (["-R", "10"], "{{duration = 1, users = 3}}", "in the open model (-R) a stage gives rate"),
        ([], "{{duration = 1, rate = 3}}", "a stage with a rate is the open model: add -R"),
    ],
)
def test_a_stage_of_the_other_model_exits_2(pacer, tmp_path, args, shape, message):
    script = write(tmp_path, USER + f"return {{user, shape = {shape}}}\n")
    run = pacer("--scenario", script, *args, "http://127.0.0.1:1/", timeout=30)
    assert run.rc == 2, run
    assert message in run.stderr, run.stderr


def test_the_live_pages_rate_form_changes_the_rate_the_server_sees(hostile_server, tmp_path):
    from browser import Browser

    clock = UserClock(hostile_server)
    with WebRun("-t1", "-c4", "-R", "50", "-d", "5s", "--interval", "300ms", "--plain", "--web", "127.0.0.1:0",
                "--format", "json", clock.url + "/r") as web:
        with Browser(tmp_path / "profile") as browser:
            page = browser.open(web.url)
            page.wait_for("!document.getElementById('lv-rate').hidden")
            assert page.evaluate("document.getElementById('lv-rate-value').value") == "50"
            page.evaluate("document.getElementById('lv-rate-value').value = '400';"
                          "document.getElementById('lv-rate-apply').click()")
            page.wait_for("document.documentElement.dataset.rateAsked === '400'")
            asked = time.monotonic()
            assert page.console_errors == []
        assert web.wait(30) == 0, web.stderr
    report = json.loads(web.stdout)
    assert [(c["rate_from_per_s"], c["rate_to_per_s"], c["by"]) for c in report["load_changes"]] == [(50, 400, "web")]
    assert 300 <= requests_between(clock, asked, 0.5, 1.5) <= 500


# ----------------------------------------------------------- resetting the statistics


def test_stats_reset_starts_every_figure_again_at_an_interval_boundary(hostile_server, tmp_path):
    clock = UserClock(hostile_server)
    series = tmp_path / "series.ndjson"
    with WebRun("-t2", "-c3", "-d", "3s", "--interval", "500ms", "--plain", "--web", "127.0.0.1:0", "--format", "json",
                "--timeseries", str(series), clock.url + "/r") as web:
        deadline = time.monotonic() + 10
        while not clock.seen and time.monotonic() < deadline:  # the run is going: requests before the reset
            time.sleep(0.02)
        while True:  # the view is up before the run starts; a reset needs a run
            asked = time.monotonic()
            status, _, body = request(web.port, "POST", "/stats/reset")
            if status == 202 or time.monotonic() > deadline:
                break
            assert status in (404, 409), body
            time.sleep(0.02)
        assert status == 202, body
        reset_at = json.loads(body)["reset_at_s"]
        # On the interval grid, at least 100 ms ahead.
        assert reset_at == pytest.approx(round(reset_at * 2) / 2), reset_at
        assert request(web.port, "GET", "/stats/reset")[0] == 405
        assert web.wait(30) == 0, web.stderr
    report = json.loads(web.stdout)
    [change] = report["load_changes"]
    assert change["reset"] is True and change["at_s"] == pytest.approx(reset_at) and change["by"] == "web"
    # The report covers the run from the reset on: its duration, and the intervals from there sum to it.
    assert report["duration_s"] == pytest.approx(3.0 - reset_at, abs=0.1), report["duration_s"]
    points = [json.loads(line) for line in series.read_text().splitlines()]
    marked = [i for i, p in enumerate(points) if p.get("stats_reset")]
    assert len(marked) == 1 and points[marked[0]]["start_s"] == pytest.approx(reset_at), marked
    after = points[marked[0]:]
    assert sum(p["completed"] for p in after) == report["counts"]["responses"]
    assert sum(sum(p["status_codes"].values()) for p in after) == sum(report["status_codes"].values())
    # What the server answered after the reset, and no more than it answered since it was asked for.
    responses = report["counts"]["responses"]
    with clock._lock:
        since_asked = sum(1 for t, _ in clock.seen if t >= asked)
        total = len(clock.seen)
    assert 0 < responses <= since_asked < total, (responses, since_asked, total)


def test_the_live_pages_reset_button_restarts_its_totals(hostile_server, tmp_path):
    from browser import Browser

    clock = UserClock(hostile_server)
    with WebRun("-t1", "-c2", "-d", "3s", "--interval", "300ms", "--plain", "--web", "127.0.0.1:0", "--format", "json",
                clock.url + "/r") as web:
        with Browser(tmp_path / "profile") as browser:
            page = browser.open(web.url)
            page.wait_for("document.documentElement.dataset.state === 'running' && "
                          "Number(document.documentElement.dataset.intervals) >= 2")
            page.evaluate("document.getElementById('lv-reset').click()")
            page.wait_for("document.documentElement.dataset.resetAt !== undefined")
            reset_at = float(page.evaluate("document.documentElement.dataset.resetAt"))
            assert page.console_errors == []
        assert web.wait(30) == 0, web.stderr
    report = json.loads(web.stdout)
    assert [(c["reset"], c["by"]) for c in report["load_changes"]] == [(True, "web")]
    assert report["load_changes"][0]["at_s"] == pytest.approx(reset_at)
    assert report["counts"]["responses"] < len(clock.seen)


@pytest.mark.parametrize("stop_timeout", ["0", "5s"])
def test_stop_timeout_lets_users_end_their_task_when_the_run_ends(pacer, hostile_server, tmp_path, stop_timeout):
    clock = UserClock(hostile_server)
    # A task of three steps over 0.6 s: at -d's end (1 s) each user is inside its second.
    script = write(tmp_path, """
return {wait = 0, tasks = {{1, function(u)
  u:get("/a?u=" .. u.id); u:sleep(0.3); u:get("/b?u=" .. u.id); u:sleep(0.3); u:get("/c?u=" .. u.id)
end, "abc"}}}
""")
    run = pacer("--scenario", script, "-u", "3", "-d", "1s", "--stop-timeout", stop_timeout, "--format", "json",
                clock.url, timeout=60)
    assert run.rc == 0, run
    report = json.loads(run.stdout)
    by_name = {e["name"]: e["responses"] for e in report["endpoints"]}
    [task] = report["scenario"]["tasks"]
    if stop_timeout == "0":  # Locust's default: the tasks are cut at the end, and not counted
        assert by_name["GET /a"] > by_name["GET /c"] == task["count"], (by_name, task)
        assert report["duration_s"] < 1.2
    else:  # every task begun ends, and counts; the run lasts until they did
        assert by_name["GET /a"] == by_name["GET /b"] == by_name["GET /c"] == task["count"] == 6, (by_name, task)
        assert 1.1 < report["duration_s"] < 2.5
    assert sum(report["errors"].values()) == 0
    assert report["counts"]["responses"] == len(clock.seen)
