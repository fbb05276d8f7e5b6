"""One quantity, one value, wherever it is printed: scenarios and endpoints (issue 31).

test_consistency.py's rule extended to the newer features: a scenario (closed and
open model) whose checks fail, and a targets run with an endpoint that never
answers. One run each writes every output at once (text on stdout, --plain progress
on stderr, JSON, NDJSON, CSV and HTML); the HTML is read through Chromium after its
tables are drawn. The figures checked: failed checks (a failure everywhere), the
failed requests counted once, the endpoints (none that nobody requested), the tasks,
an endpoint's lower-bound percentiles, and the server's own count of requests.
Each run lasts about a second.
"""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from browser import CHROMIUM, Browser
from request_log_check import check_request_log
from conftest import COUNTER_SETTLE_S
from progress import progress_lines_too_wide
from test_consistency import check_widths, close, unwrapped

# Every task fails its check: "home" on a 200, "missing" on a 404 (one failed request, two reasons).
FAILING = """
local user = {}
user.tasks = {
  {1, function(u) u:get("/", nil, "GET /home"); u:fail("always") end, "home"},
  {1, function(u) local r = u:get("/status/404", nil, "GET /missing")
                  if r.status ~= 200 then u:fail("not 200") end end, "missing"},
}
user.wait = pacer.constant(0.02)
return user
"""


def run_all_outputs(pacer, tmp_path: Path, *args: str):
    out = {k: tmp_path / f"r.{k}" for k in ("json", "ndjson", "html")}
    run = pacer(*args, "--plain", "--interval", "500ms", "--timeseries", str(out["ndjson"]), "--csv",
                str(tmp_path / "r"), "--html", str(out["html"]), "--format", "json", "-o", str(out["json"]),
                "--log-requests", str(tmp_path / "requests.ndjson"), timeout=60)
    check_widths(run.stdout)  # issue 31: every line of the report and of the progress fits 80 columns
    assert not progress_lines_too_wide(run.stderr), run.stderr
    doc = json.loads(out["json"].read_text()) if out["json"].exists() else None
    rows = [json.loads(line) for line in out["ndjson"].read_text().splitlines()] if doc else []
    csvs = {k: list(csv.DictReader(open(tmp_path / f"r_{k}.csv"))) for k in ("stats", "failures", "history")} \
        if doc else {}
    return run, doc, rows, csvs, out["html"]


def text_errors(text: str) -> dict[str, int]:
    line = re.search(r"^Errors:\s+(.*)$", unwrapped(text), re.M).group(1)
    return {k: int(v) for k, v in re.findall(r"(\w+) (\d+)", line)}


def text_endpoints(text: str) -> dict[str, dict]:
    """The Endpoints table: name -> requests, errors, p99 text, error classes."""
    block = text.split("\nEndpoints:", 1)[1]
    out: dict[str, dict] = {}
    name = None
    for line in block.splitlines()[2:]:
        if re.match(r"^  \S", line):
            name = line.strip()
        elif name and (m := re.match(r"^\s+(\d+)\s+[0-9.]+\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$", line)):
            out[name] = {"requests": int(m.group(1)), "errors": int(m.group(2)), "p99": m.group(6), "classes": {}}
        elif name and "errors:" in line:
            out[name]["classes"] = {k: int(v) for k, v in re.findall(r"(\w+) (\d+)", line.split("errors:")[1])}
    return out


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """One Chromium for the module (None without one: the HTML checks are skipped)."""
    if not os.access(CHROMIUM, os.X_OK):
        yield None
        return
    with Browser(tmp_path_factory.mktemp("chromium-profile")) as b:
        yield b


def html_figures(html: Path, browser) -> dict:
    """What the HTML page shows once drawn: headline errors, errors by class, endpoints, tasks."""
    page = browser.open(html.as_uri())
    page.wait_for("document.documentElement.dataset.ready === 'true'")
    return page.evaluate("""(() => {
          const rows = (sel) => Array.from(document.querySelectorAll(sel + ' tbody tr'))
            .map((tr) => Array.from(tr.cells).map((td) => td.textContent.trim()));
          const byClass = Array.from(document.querySelectorAll('#tables table')).map((t) => rows('#' + (t.id ||
            (t.id = 'x' + Math.random().toString(36).slice(2)))));
          return {errors: document.querySelector('[data-figure="errors"]').dataset.value,
                  scenario: (document.querySelector('[data-field="scenario"]') || {}).textContent || null,
                  tables: byClass, endpoints: rows('#endpoints-table'), tasks: rows('#tasks-table')};
        })()""")


def check_scenario_outputs(run, doc, rows, csvs, html, browser, server) -> None:
    errors, scen = doc["errors"], doc["scenario"]
    # A failed check is a failure everywhere: text, JSON (run and endpoints), NDJSON, CSV.
    assert errors["check"] == scen["errors"]["check"] > 0
    assert text_errors(run.stdout)["check"] == errors["check"]
    assert sum(r["errors"].get("check", 0) for r in rows) == errors["check"]
    assert sum(int(r["errors_check"]) for r in csvs["history"]) == errors["check"]
    assert sum(e["errors"]["check"] for e in doc["endpoints"]) == errors["check"]
    # Failed requests, each once (a check on a 404 is one failure): JSON, CSV, error rate.
    failed = doc["counts"]["failed"]
    assert failed == errors["status"] + errors["check"] - scen["errors"]["check_on_errors"]
    close(doc["error_rate"], failed / (doc["counts"]["responses"] + sum(
        v for k, v in errors.items() if k not in ("status", "check", "script"))), 1e-9, "error rate")
    aggregated = next(r for r in csvs["stats"] if r["name"] == "Aggregated")
    assert int(aggregated["failures"]) == failed
    failures_csv = {(r["class"], r["name"]): r for r in csvs["failures"]}
    assert int(failures_csv[("check", "Aggregated")]["count"]) == errors["check"]
    assert failures_csv[("check", "Aggregated")]["first_reason"]
    assert failures_csv[("status", "Aggregated")]["first_reason"].startswith("HTTP 404 x")
    # The endpoints: only what was requested (no "GET /"), alike in text, JSON and CSV.
    names = {e["name"] for e in doc["endpoints"]}
    assert names == {"GET /home", "GET /missing"}, names
    assert {r["name"] for r in csvs["stats"]} - {"Aggregated"} == names
    text_eps = text_endpoints(run.stdout)
    assert set(text_eps) == names
    for e in doc["endpoints"]:
        row = next(r for r in csvs["stats"] if r["name"] == e["name"])
        assert text_eps[e["name"]]["errors"] == e["failed"] == int(row["failures"]), e["name"]
        assert text_eps[e["name"]]["classes"].get("check", 0) == e["errors"]["check"]
        assert text_eps[e["name"]]["requests"] == e["requests_sent"]
    # The server answered every request the reports count.
    answered = server.wait_for("requests_answered", doc["counts"]["responses"], timeout=COUNTER_SETTLE_S)
    assert answered == doc["counts"]["responses"] == doc["counts"]["requests_sent"]
    assert "Requests by name" not in run.stdout  # the Endpoints table says it
    if browser is None:
        return
    page = html_figures(html, browser)
    assert int(page["errors"]) == failed
    assert page["scenario"] and f"{scen['users_started']} virtual users started" in page["scenario"]
    by_class = {r[0]: r for t in page["tables"] for r in t if len(r) == 3}
    assert int(by_class["check"][1].replace(",", "")) == errors["check"] and by_class["check"][2]
    assert by_class["status"][2].startswith("HTTP 404 x")
    assert {r[0] for r in page["endpoints"]} == names
    for r in page["endpoints"]:
        assert int(r[4].replace(",", "")) == next(e["failed"] for e in doc["endpoints"] if e["name"] == r[0])
    assert {(r[0], int(r[1].replace(",", ""))) for r in page["tasks"]} == {(t["name"], t["count"])
                                                                           for t in scen["tasks"]}


@pytest.mark.tsan
def test_a_closed_scenarios_failed_checks_are_failures_in_every_output(start_server, pacer, tmp_path, browser):
    server = start_server()
    script = tmp_path / "fail.lua"
    script.write_text(FAILING)
    run, doc, rows, csvs, html = run_all_outputs(pacer, tmp_path, "--scenario", str(script), "-u", "2", "-t1",
                                                 "-d", "1s", "--max-error-rate", "50%", server.url)
    assert run.rc == 3, run  # the gate counts the checks
    assert "1 thread and 2 virtual users" in run.stdout
    check_scenario_outputs(run, doc, rows, csvs, html, browser, server)
    logged = check_request_log(tmp_path / "requests.ndjson", doc)  # NDJSON, by the extension
    assert {r["name"] for r in logged} == {"GET /home", "GET /missing"}
    if browser is not None:  # the tables are drawn before anything is awaited: a DOM dump has them
        dump = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path}/dd",
                               "--dump-dom", html.as_uri()], capture_output=True, text=True, timeout=60)
        for table in ('id="tasks-table"', 'id="endpoints-table"', "Errors by class"):
            assert table in dump.stdout, table


@pytest.mark.tsan
def test_an_open_scenario_counts_tasks_and_users_not_connections(start_server, pacer, tmp_path, browser):
    server = start_server()
    script = tmp_path / "fail.lua"
    script.write_text(FAILING)
    run, doc, rows, csvs, html = run_all_outputs(pacer, tmp_path, "--scenario", str(script), "-R", "40", "-t1",
                                                 "-d", "1s", server.url)
    assert run.rc == 0, run
    assert "10000 connections" not in run.stdout and "up to 10000 virtual users (--max-users)" in run.stdout
    tasks = sum(t["count"] for t in doc["scenario"]["tasks"])
    m = re.search(r"^Rate:\s+target ([0-9.]+) tasks/s, ended ([0-9.]+) tasks/s \(([0-9.]+)% of target\); requests "
                  r"sent ([0-9.]+)/s", unwrapped(run.stdout), re.M)
    assert m, run.stdout
    close(float(m.group(1)), doc["rates"]["target_per_s"], 0.006, "target tasks/s")
    close(float(m.group(2)), tasks / doc["config"]["duration_s"], 0.006, "tasks ended/s")
    close(float(m.group(3)), 100 * doc["rates"]["sent_to_target"], 0.051, "tasks % of target")
    close(float(m.group(4)), doc["rates"]["sent_per_s"], 0.006, "requests sent/s")
    check_scenario_outputs(run, doc, rows, csvs, html, browser, server)


@pytest.mark.tsan
def test_an_endpoint_that_never_answers_has_lower_bounds_everywhere(start_server, pacer, tmp_path, browser):
    server = start_server()
    targets = tmp_path / "targets.txt"
    targets.write_text(f"GET {server.url}\n\nGET {server.url}never\n")
    run, doc, rows, csvs, html = run_all_outputs(pacer, tmp_path, "--targets", str(targets), "-t1", "-c2",
                                                 "--timeout", "300ms", "-d", "1s", "--latency", server.url)
    assert run.rc == 0, run
    never = next(e for e in doc["endpoints"] if e["name"] == "GET /never")
    fine = next(e for e in doc["endpoints"] if e["name"] == "GET /")
    assert never["errors"]["timeout"] > 0 and never["latency"]["censored_count"] == never["latency"]["count"]
    assert never["latency"]["lower_bound_percentiles"] == list(never["latency"]["percentiles_ns"])
    assert fine["latency"]["censored_count"] == 0 and fine["latency"]["lower_bound_percentiles"] == []
    text_eps = text_endpoints(run.stdout)
    assert text_eps["GET /never"]["p99"].startswith(">="), run.stdout
    assert not text_eps["GET /"]["p99"].startswith(">=")
    assert text_eps["GET /never"]["classes"]["timeout"] == never["errors"]["timeout"]
    assert doc["counts"]["failed"] == doc["errors"]["timeout"] == never["failed"]
    answered = server.wait_for("requests_answered", doc["counts"]["responses"], timeout=COUNTER_SETTLE_S)
    assert answered == doc["counts"]["responses"] == fine["responses"]
    if browser is None:
        return
    page = html_figures(html, browser)
    row = next(r for r in page["endpoints"] if r[0] == "GET /never")
    assert row[8].startswith("≥"), row  # p99
    assert int(page["errors"]) == doc["counts"]["failed"]


NEVER = """
local user = {}
user.tasks = {
  {1, function(u) u:get("/", nil, "GET /fine") end, "fine"},
  {1, function(u) u:get("/never", nil, "GET /never") end, "never"},
}
user.wait = pacer.constant(0.02)
return user
"""


def test_a_scenario_name_that_never_answers_has_lower_bounds_in_text_and_json(start_server, pacer, tmp_path):
    """Issue 31, item 4, for a scenario's request names as for targets: the timed-out
    name's row and distribution are lower bounds (>=), its JSON says so, the other's not."""
    server = start_server()
    script = tmp_path / "never.lua"
    script.write_text(NEVER)
    out = tmp_path / "r.json"
    run = pacer("--scenario", str(script), "-u", "2", "-t1", "-d", "1s", "--timeout", "300ms", "--latency",
                "--format", "json", "-o", str(out), server.url, timeout=60)
    assert run.rc == 0, run
    check_widths(run.stdout)
    doc = json.loads(out.read_text())
    never = next(e for e in doc["endpoints"] if e["name"] == "GET /never")
    fine = next(e for e in doc["endpoints"] if e["name"] == "GET /fine")
    assert never["errors"]["timeout"] > 0 and never["latency"]["censored_count"] == never["latency"]["count"]
    assert never["latency"]["lower_bound_percentiles"] == list(never["latency"]["percentiles_ns"])
    assert fine["latency"]["censored_count"] == 0 and fine["latency"]["lower_bound_percentiles"] == []
    assert doc["latency"]["censored_count"] == never["latency"]["censored_count"]
    text_eps = text_endpoints(run.stdout)
    assert text_eps["GET /never"]["p99"].startswith(">="), run.stdout
    assert not text_eps["GET /fine"]["p99"].startswith(">="), run.stdout
    # Its own distribution (--latency) too: every percentile of it is a lower bound.
    m = re.search(r"^  GET /never\n(?:.*\n)*?    Latency Distribution.*\n((?:\s+[0-9.]+%.*\n)+)", run.stdout, re.M)
    assert m, run.stdout
    percentiles = re.findall(r"^\s+[0-9.]+%\s+(\S+)", m.group(1), re.M)
    assert len(percentiles) >= 4 and all(p.startswith(">=") for p in percentiles), m.group(1)
