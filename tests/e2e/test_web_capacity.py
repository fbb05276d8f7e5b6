"""A capacity search (and a sweep) on the live web view (--web with --capacity or
--sweep, issue 41): one page for every step. /search.json and the stream's "search"
events say the steps so far and the one running (its rate is the one the terminal
then prints for it), each step's intervals stream as a run's do, and the end is the
search's own JSON (what -o writes). In Chromium, the panel lists the steps as they
end and the page then draws the capacity page with no console error. Screenshots
are kept under test-artifacts/ beside the pacer binary."""

import json
import re
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest

from browser import Browser
from conftest import PACER_BIN
from webview import EventStream, WebRun, request

ARTIFACTS = Path(PACER_BIN).resolve().parent / "test-artifacts"
STEP = ["--warmup", "0.2s", "-c", "20", "--interval", "100ms", "--plain"]
# A short search: a probe, a climb until p99 breaks (or the 20 connections limit
# pacer), a coarse bisection; a step runs once.
SEARCH = ["--capacity", "p99<=20ms", "--step-repeat", "1", "--capacity-precision", "25%", "--capacity-budget", "15s"]
# A terminal row: "     3     3368     3312.3   6.89ms ..." (the probe's target is "probe").
ROW = re.compile(r"^\s+(\d+)\s+(probe|\d+)\s+\d+\.\d\s", re.M)
EXIT_OF_OUTCOME = {"found": 0, "never_broke": 0, "client_limited": 1, "no_rate_held": 3}


def without_runs(steps):
    return [{k: v for k, v in s.items() if k != "run"} for s in steps]


def watch_search(run, limit_s=30.0):
    """/search.json, fetched until the search has finished: every document seen."""
    seen = []
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        status, fields, body = request(run.port, "GET", "/search.json")
        if status == 404 and not seen:  # asked before the view knew it follows a search
            continue
        assert status == 200, body
        doc = json.loads(body)
        assert fields["x-pacer-run"] in ("running", "finished")
        seen.append(doc)
        if doc["state"] == "finished":
            return seen
        time.sleep(0.03)
    raise AssertionError(f"the search did not finish in {limit_s}s: {run.stderr}")


def end_linger(run, limit_s=15.0):
    """POST /stop once pacer lingers (its exit code decided, its files written): a
    Stop before that would stop the search."""
    deadline = time.monotonic() + limit_s
    while not any("serving the final report" in line for line in run.stderr_lines):
        assert time.monotonic() < deadline, run.stderr
        time.sleep(0.02)
    status, _, _ = request(run.port, "POST", "/stop", {"Content-Length": "0"})
    assert status == 202


@pytest.mark.tsan
def test_search_progress_streams_each_step_and_ends_as_the_searchs_json(server, tmp_path):
    out = tmp_path / "search.json"
    with WebRun(*SEARCH, *STEP, "-d", "0.5s", "--format", "json", "-o", str(out), "--web", "127.0.0.1:0",
                "--web-linger", "30s", server.url + "pool/2/10") as run:  # 200/s: a light search
        stream = EventStream(run.port)
        seen = watch_search(run)
        assert stream.wait_closed(10), "the event stream did not end with the search"
        status, fields, report = request(run.port, "GET", "/report.json")
        end_linger(run)
        code = run.wait(30)
    result = json.loads(out.read_text())
    final = seen[-1]
    # The last state is the search's JSON, and so are /report.json's and the end event's.
    assert final["schema"] == "pacer-capacity-progress" and final["running"] is None
    assert final["result"] == result
    assert final["steps"] == without_runs(result["steps"])
    assert (status, fields["x-pacer-run"]) == (200, "finished")
    assert json.loads(report) == result
    assert stream.end == result
    assert code == EXIT_OF_OUTCOME[result["answer"]["outcome"]], (code, result["answer"], run.stderr)
    assert len(result["steps"]) >= 2 and result["steps"][0]["kind"] == "probe"

    # During the search: the steps only grow, each document's steps are the final ones
    # so far, and a running step is the next one, at the rate the terminal then printed.
    printed = dict(ROW.findall(run.stdout))
    assert sorted(map(int, printed)) == [s["index"] for s in result["steps"]], run.stdout
    counts = [len(d["steps"]) for d in seen]
    assert counts == sorted(counts) and counts[-1] == len(result["steps"])
    running = [d for d in seen if d["running"] is not None]
    assert len({d["running"]["index"] for d in running}) >= 2, "too few fetches saw a step running"
    for d in seen:
        assert d["steps"] == final["steps"][:len(d["steps"])]
        assert d["state"] == ("finished" if d is final else "running")
    for d in running:
        r = d["running"]
        assert r["index"] == len(d["steps"]) + 1
        want = "probe" if r["target_rate_per_s"] == 0 else f"{r['target_rate_per_s']:.0f}"
        assert printed[str(r["index"])] == want
        assert r["target_rate_per_s"] == result["steps"][r["index"] - 1]["target_rate_per_s"]

    # The stream: a "search" event as each step starts and ends, in order, and each
    # step's intervals after its start, at its rate (the probe's: none).
    names = [name for name, _ in stream.events]
    assert names[-1] == "end" and names.count("end") == 1
    step_of_interval, current = [], None
    for name, doc in stream.events[:-1]:
        if name == "search":
            current = doc["running"]
        else:
            assert name == "message" and current is not None, "an interval outside any step"
            step_of_interval.append(current["index"])
            if not doc["drain"]:  # the drain after -d's end has no target
                want = current["target_rate_per_s"] or None  # the probe's: a closed loop's
                assert doc["target_rate_per_s"] == (want and pytest.approx(want))
    started = [doc["running"]["index"] for name, doc in stream.events if name == "search" and doc["running"]]
    assert started == [s["index"] for s in result["steps"]]
    assert sorted(set(step_of_interval)) == started  # every step streamed its intervals


@pytest.mark.no_sanitizer
@pytest.mark.tsan
def test_sweep_panel_lists_the_steps_live_then_the_page_draws_the_sweep(server, tmp_path):
    ARTIFACTS.mkdir(exist_ok=True)
    out = tmp_path / "sweep.json"
    rates = "200,400,600,800,1000,1200"
    with WebRun("--sweep", rates, "--capacity", "p99<=20ms", *STEP, "-d", "0.6s", "--format", "json", "-o", str(out),
                "--web", "127.0.0.1:0", "--web-linger", "30s", server.url + "delay/5") as run:
        with Browser(tmp_path / "profile") as browser:
            page = browser.open(run.url)
            panel = "document.getElementById('lv-search')"
            page.wait_for(f"Number({panel}.dataset.steps || 0) >= 2 && {panel}.dataset.runningIndex !== '' "
                          "&& Number(document.documentElement.dataset.intervals || 0) >= 2")
            assert page.evaluate("document.documentElement.dataset.search") == "sweep"
            live = page.evaluate(f"""(() => {{
                const p = {panel};
                return {{steps: Number(p.dataset.steps), rows: p.querySelectorAll('table.cap-steps tbody tr').length,
                         running: p.querySelector('[data-field=running]').textContent,
                         index: Number(p.dataset.runningIndex), rate: Number(p.dataset.runningRate),
                         charts: document.querySelectorAll('#lv-charts canvas').length}};
            }})()""")
            assert live["rows"] == live["steps"] and live["index"] == live["steps"] + 1, live
            assert live["rate"] == [200, 400, 600, 800, 1000, 1200][live["index"] - 1], live
            assert live["running"].startswith(f"Step {live['index']}: {live['rate']:,}/s"), live
            assert live["charts"] == 4, live  # the running step's intervals, charted as a run's
            page.screenshot(ARTIFACTS / "live-capacity-running.png")

            page.wait_for("document.documentElement.dataset.final === 'ready'", timeout_s=30)
            result = json.loads(out.read_text())
            assert page.evaluate(f"{panel}.hidden") is True
            assert page.evaluate("document.querySelector('#pacer-report [data-field=sentence]').textContent") \
                == result["answer"]["sentence"]
            rows = page.evaluate("document.querySelectorAll('#pacer-report table.cap-steps tbody tr').length")
            assert rows == len(result["steps"]) == 6
            assert page.evaluate("document.documentElement.dataset.state") == "ended"
            time.sleep(0.2)  # let the final charts paint before the picture
            page.screenshot(ARTIFACTS / "live-capacity-final.png")
            assert page.console_errors == []
            for url in page.requests:
                parsed = urlparse(url)
                assert parsed.scheme in ("data", "blob") or parsed.netloc == f"127.0.0.1:{run.port}", url
        end_linger(run)
        assert run.wait(30) == EXIT_OF_OUTCOME.get(result["answer"]["outcome"], 0)
