"""Issue 40: every output of one scenario run counts each request's outcome the same
way, read by independent readers (Python's csv and json, the per-request log summed
row by row): the report, pacer's CSV (drawn from the report file), Locust's four CSV
files and the per-request log. The scenario has checks with two messages, u:success()
on a 401, status errors, a check on a failed request and a timeout. Each figure that
differs is named with the two outputs. Runs are a second or two."""

from __future__ import annotations

import collections
import csv
import json
import time
from pathlib import Path

import pytest

from webview import WebRun, request

pytestmark = [pytest.mark.tsan]

SCENARIO = """
return {wait = pacer.constant(0.01),
  on_start = function(u) if u.id == 1 then u:get("/bytes/10", nil, "once") end end,
  tasks = {
  {3, function(u) u:get("/status/200", nil, "checked"); u:fail("always wrong") end},
  {1, function(u) u:get("/status/200", nil, "checked"); u:fail("it's wrong, too") end},
  {2, function(u) local r = u:get("/status/401", nil, "accepted"); if r.status == 401 then u:success() end end},
  {1, function(u) u:get("/status/503", nil, "bad") end},
  {1, function(u) u:get("/status/500", nil, "mixed"); u:fail("on error") end},
  {1, function(u) u:get("/delay/2", nil, "slow") end},
}}
"""


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def agree(figures: dict[str, object], what: str) -> None:
    """All the outputs' values of one figure are equal; the message names them."""
    values = set(map(repr, figures.values()))
    assert len(values) == 1, f"{what} differs: " + ", ".join(f"{k} {v!r}" for k, v in figures.items())


@pytest.fixture(scope="module")
def run(tmp_path_factory, pacer_bin):
    from conftest import PacerServer, run_pacer

    tmp = tmp_path_factory.mktemp("outcomes")
    (tmp / "s.lua").write_text(SCENARIO)
    server = PacerServer()
    try:
        done, drawn = one_run(tmp, server.url, run_pacer)
    finally:
        server.stop()
    assert done.rc == 0, done
    assert drawn.rc == 0, drawn
    return tmp, json.loads((tmp / "run.json").read_text())


def one_run(tmp, url, run_pacer):
    done = run_pacer("-t1", "-u", "3", "-d", "1.5s", "--timeout", "300ms", "--scenario", str(tmp / "s.lua"),
                     "--format", "json", "-o", str(tmp / "run.json"), "--log-requests", str(tmp / "log.csv"),
                     "--csv", str(tmp / "loc"), "--csv-format", "locust", url, timeout=60)
    drawn = run_pacer("report", str(tmp / "run.json"), "--csv", str(tmp / "own"), timeout=30)
    return done, drawn


def test_the_log_classifies_each_request_as_the_report_counts_it(run):
    tmp, report = run
    rows = [r for r in read_csv(tmp / "log.csv") if r["recorded"] == "1"]
    by_error = collections.Counter(r["error"] for r in rows)
    for cls in ("status", "timeout"):
        agree({"report": report["errors"][cls], "log": by_error[cls]}, f"errors.{cls}")
    agree({"report": report["errors"]["check"], "log rows with a check": sum(1 for r in rows if r["check"])},
          "errors.check")
    # A check on a response < 400 is the row's class; on a 500 the status stays and the check is beside it.
    assert {r["error"] for r in rows if r["name"] == "checked"} == {"check"}
    assert {(r["error"], r["check"]) for r in rows if r["name"] == "mixed"} == {("status", "on error")}
    assert {r["check"] for r in rows if r["name"] == "checked"} == {"always wrong", "it's wrong, too"}
    # What the task accepted is no error, in the log as in the report.
    accepted = [r for r in rows if r["name"] == "accepted"]
    assert accepted and all(r["status"] == "401" and r["error"] == "" for r in accepted)
    endpoints = {e["name"]: e for e in report["endpoints"]}
    for name, e in endpoints.items():
        logged = [r for r in rows if r["name"] == name]
        failed = sum(1 for r in logged if r["error"] or r["check"])
        agree({"report endpoints[].failed": e["failed"], "log": failed}, f"{name}: failed requests")
        agree({"report": e["responses"], "log": sum(1 for r in logged if r["status"])}, f"{name}: responses")


def test_locusts_files_count_each_failure_as_locust_does(run):
    tmp, report = run
    stats = {r["Name"]: r for r in read_csv(tmp / "loc_stats.csv")}
    endpoints = {e["name"]: e for e in report["endpoints"]}
    for name, e in endpoints.items():
        agree({"report": e["failed"], "locust stats": int(stats[name]["Failure Count"])}, f"{name}: failures")
    agree({"report counts.failed": report["counts"]["failed"], "locust Aggregated": int(stats["Aggregated"]["Failure Count"])},
          "failures")
    assert int(stats["checked"]["Failure Count"]) == int(stats["checked"]["Request Count"]) > 0  # item 1
    assert int(stats["accepted"]["Failure Count"]) == 0
    # The failures file: Locust's errors, each failed request once, adding up to each name's Failure Count.
    failures = read_csv(tmp / "loc_failures.csv")
    per_name = collections.Counter()
    for f in failures:
        per_name[f["Name"]] += int(f["Occurrences"])
    for name, row in stats.items():
        if name != "Aggregated":
            agree({"stats": int(row["Failure Count"]), "failures file": per_name[name]}, f"{name}: failures listed")
    errors = {(f["Name"], f["Error"]) for f in failures}
    assert ("checked", "CatchResponseError('always wrong')") in errors, errors
    assert ("checked", 'CatchResponseError("it\'s wrong, too")') in errors, errors
    assert ("mixed", "CatchResponseError('on error')") in errors, errors
    assert ("bad", "HTTPError('503 Server Error: Service Unavailable for url: bad')") in errors, errors
    assert not any(name == "accepted" for name, _ in errors)
    # An average is never above the max nor below the min, a one-request row's included (item 6).
    assert int(stats["once"]["Request Count"]) == 1
    for name, row in stats.items():
        low, mean, high = (float(row[k]) for k in ("Min Response Time", "Average Response Time", "Max Response Time"))
        assert low <= mean <= high, (name, low, mean, high)
        if name in endpoints:
            assert high * 1e6 == pytest.approx(endpoints[name]["latency"]["max_ns"], rel=1e-9), name


def test_pacers_csv_from_the_report_file_agrees_and_leaves_accepted_statuses_out(run):
    tmp, report = run
    stats = {r["name"]: r for r in read_csv(tmp / "own_stats.csv")}
    for e in report["endpoints"]:
        agree({"report": e["failed"], "pacer csv": int(stats[e["name"]]["failures"])}, f"{e['name']}: failures")
    agree({"report": report["counts"]["failed"], "pacer csv": int(stats["Aggregated"]["failures"])}, "failures")
    failures = read_csv(tmp / "own_failures.csv")
    status = {f["name"]: f for f in failures if f["class"] == "status"}
    assert "accepted" not in status, status  # item 4: the 401s the task accepted are no failure
    assert status["bad"]["first_reason"] == f"HTTP 503 x{status['bad']['count']}", status["bad"]
    assert status["mixed"]["first_reason"] == f"HTTP 500 x{status['mixed']['count']}", status["mixed"]
    codes = report["status_codes"]
    assert status["Aggregated"]["first_reason"] == f"HTTP 500 x{codes['500']}, 503 x{codes['503']}", status
    # Each name's check row names its own first message (it was empty, item 4).
    checks = {f["name"]: f for f in failures if f["class"] == "check"}
    assert checks["checked"]["first_reason"].startswith("checked: "), checks
    agree({"report": report["errors"]["check"], "pacer csv": int(checks["Aggregated"]["count"])}, "errors.check")


def test_a_stats_reset_keeps_the_users_started(server, tmp_path):
    script = tmp_path / "s.lua"
    script.write_text('return {wait = pacer.constant(0.02), tasks = {{1, function(u) u:get("/") end}}}')
    series = tmp_path / "series.ndjson"
    with WebRun("-t1", "-u", "3", "-d", "2s", "--interval", "500ms", "--plain", "--web", "127.0.0.1:0", "--format",
                "json", "--timeseries", str(series), "--scenario", str(script), server.url) as web:
        deadline = time.monotonic() + 10
        while True:  # the view is up before the run starts; a reset needs a run
            status, _, body = request(web.port, "POST", "/stats/reset")
            if status == 202 or time.monotonic() > deadline:
                break
            time.sleep(0.02)
        assert status == 202, body
        assert web.wait(30) == 0, web.stderr
    report = json.loads(web.stdout)
    points = [json.loads(line) for line in series.read_text().splitlines()]
    assert max(p["users"] for p in points) == 3
    agree({"report scenario.users_started": report["scenario"]["users_started"], "time series users": 3},
          "users started")
