"""The end of a time series (issue 13, items 4 and 5).

The drain after -d (responses still in flight) used to get a line of its own: a
few responses over a fraction of a millisecond, so the series ended in a rate
spike (closed loop) or a target of 0 (open model). It is now folded into the last
full interval, which says how much drain it holds. Every line carries the wall
clock at its start so that series from several machines can be lined up.

Stages: a profile ending at rate 0 has its last arrival before its end, and the
run used to stop there, measuring 1.86 s of a 2 s profile and judging the rate
against 53/s instead of the profile's 50/s.
"""

import datetime
import json
import re

from conftest import assert_server_agrees

PROGRESS = re.compile(r"^\[\s*([0-9.]+)s / ([0-9.]+)s\] ([0-9.]+) req/s", re.M)


def rows_of(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def wall_clock(text: str) -> datetime.datetime:
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", text), text
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)


def test_closed_loop_series_ends_without_a_drain_line_or_a_spike(server, pacer, tmp_path):
    out = tmp_path / "series.ndjson"
    # /delay/5 keeps the rate steady on a shared machine (8 connections, ~1600/s).
    run = pacer("-t2", "-c8", "-d", "3s", "--interval", "1s", "--timeseries", str(out), "--plain",
                server.url + "delay/5", timeout=30)
    assert run.rc == 0, run
    rows = rows_of(out)
    assert len(rows) == 3, rows  # no fourth line for the drain
    last = rows[-1]
    assert 1.0 <= last["duration_s"] < 1.5, last
    assert 0 <= last["drain_s"] < 0.5 and all(r["drain_s"] == 0 for r in rows[:-1]), rows
    assert abs(last["duration_s"] - last["drain_s"] - 1.0) < 1e-6, last
    rates = [r["achieved_rate_per_s"] for r in rows]
    assert max(rates) < 2 * min(rates), rates  # no spike at the end
    assert last["open_connections"] == 8, last  # the run's last state, not the teardown's
    # The rows add up to the report, and their spans to its measured time.
    report = run.report
    assert sum(r["completed"] for r in rows) == report.requests
    assert abs(sum(r["duration_s"] for r in rows) - report.duration_s) <= 0.006, (rows, report.duration_s)
    # The progress lines are the same intervals: as many, with the same rates.
    progress = PROGRESS.findall(run.stderr)
    assert len(progress) == 3, run.stderr
    for (_, _, rate), row in zip(progress, rows):
        assert abs(float(rate) - row["achieved_rate_per_s"]) <= 0.051, (rate, row)
    assert "drain after the end" in run.stderr.splitlines()[-1] or last["drain_s"] == 0, run.stderr
    assert_server_agrees(server, report)


def test_open_model_series_keeps_its_target_to_the_end(server, pacer, tmp_path):
    out = tmp_path / "series.ndjson"
    run = pacer("-t1", "-c8", "-R", "400", "-d", "3s", "--interval", "1s", "--timeseries", str(out), "--plain",
                server.url, timeout=30)
    assert run.rc == 0, run
    rows = rows_of(out)
    assert len(rows) == 3, rows
    for r in rows:
        # The drain sends nothing new, so the last row's target is 400 over its
        # whole span: a hair under 400, never 0.
        assert 400 / 1.5 < r["target_rate_per_s"] <= 400.0 + 1e-6, r
        assert abs(r["target_rate_per_s"] * r["duration_s"] - 400) < 1e-6, r
    assert sum(r["sent"] for r in rows) == 1200


def test_every_row_carries_the_wall_clock_at_its_start(server, pacer, tmp_path):
    out = tmp_path / "series.ndjson"
    before = datetime.datetime.now(datetime.timezone.utc)
    run = pacer("-t1", "-c2", "-d", "2s", "--warmup", "500ms", "--interval", "500ms", "--timeseries", str(out),
                "--format", "json", "-o", str(tmp_path / "r.json"), server.url, timeout=30)
    after = datetime.datetime.now(datetime.timezone.utc)
    assert run.rc == 0, run
    rows = rows_of(out)
    starts = [wall_clock(r["start_time"]) for r in rows]
    assert before <= starts[0] <= after, (before, starts[0], after)
    report_start = datetime.datetime.strptime(json.loads((tmp_path / "r.json").read_text())["start_time"],
                                              "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
    for r, wall in zip(rows, starts):
        # The load started at the report's start_time; recording 500 ms later.
        offset = (wall - report_start).total_seconds()
        assert abs(offset - (0.5 + r["start_s"])) < 0.002, (r, offset)


def test_stages_ending_at_zero_are_measured_over_the_whole_profile(server, pacer, tmp_path):
    out = tmp_path / "r.json"
    run = pacer("-t2", "-c10", "--stages", "1s:100,1s:0", "--format", "json", "-o", str(out), server.url, timeout=30)
    assert run.rc == 0, run
    report = run.report
    assert "Running 2s test" in run.stdout, run
    # 0 -> 100/s over 1 s and back to 0 over 1 s: 100 arrivals in 2 s, 50/s.
    assert report.requests == 100, run
    assert 2.0 <= report.duration_s < 2.2, run
    m = re.search(r"^Rate:\s+target ([0-9.]+)/s, sent ([0-9.]+)/s \(([0-9.]+)% of target\)", run.stdout, re.M)
    assert m, run
    assert abs(float(m.group(1)) - 50.0) < 0.01, run
    assert 99.0 <= float(m.group(3)) <= 100.0, run
    doc = json.loads(out.read_text())
    assert abs(doc["rates"]["target_per_s"] - 50.0) < 1e-6, doc["rates"]
    assert abs(doc["rates"]["target_per_s"] * 2.0 - doc["counts"]["scheduled"]) < 1e-6, doc["counts"]
    assert_server_agrees(server, report)
