"""The end of a time series (issue 13, items 4 and 5; issue 31, item 5).

The drain after -d (responses still in flight, arrivals still waiting) is a record
of its own, marked "drain": true, with no target: the run's last interval ends at
-d's end, its target the schedule's rate over it (folded in, the drain diluted the
last target to 390.96/s at -R 400). Charts leave the drain's rate out, so the
series never ends in a spike. Every line carries the wall clock at its start so
that series from several machines can be lined up.

Stages: a profile ending at rate 0 has its last arrival before its end, and the
run used to stop there, measuring 1.86 s of a 2 s profile and judging the rate
against 53/s instead of the profile's 50/s.
"""

import pytest
import datetime
import json
import re

from conftest import assert_server_agrees
from progress import drain_blocks, interval_blocks

pytestmark = pytest.mark.tsan


def rows_of(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def wall_clock(text: str) -> datetime.datetime:
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", text), text
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)


def test_closed_loop_series_ends_with_the_drain_on_a_record_of_its_own(server, pacer, tmp_path):
    out = tmp_path / "series.ndjson"
    # /delay/5 keeps the rate steady on a shared machine (8 connections, ~1600/s).
    run = pacer("-t2", "-c8", "-d", "3s", "--interval", "1s", "--timeseries", str(out), "--plain",
                server.url + "delay/5", timeout=30)
    assert run.rc == 0, run
    rows = rows_of(out)
    assert len(rows) == 4, rows  # three seconds, then the drain
    drain = rows[-1]
    assert drain["drain"] and not any(r["drain"] for r in rows[:-1]), rows
    assert all(r["duration_s"] == 1.0 and r["drain_s"] == 0 for r in rows[:-1]), rows
    assert 0 < drain["duration_s"] == drain["drain_s"] < 0.5, drain
    assert abs(drain["start_s"] - 3.0) < 1e-9 and drain["sent"] == 0, drain
    assert drain["target_rate_per_s"] is None, drain
    assert rows[-2]["open_connections"] == 8, rows[-2]  # the run's last state, not the teardown's
    # The rows add up to the report, and their spans to its measured time.
    report = run.report
    assert sum(r["completed"] for r in rows) == report.requests
    assert abs(sum(r["duration_s"] for r in rows) - report.duration_s) <= 0.006, (rows, report.duration_s)
    # The progress lines are the same intervals: as many, with the same rates, and the drain's block.
    progress = interval_blocks(run.stderr)
    assert len(progress) == 3, run.stderr
    for m, row in zip(progress, rows):
        assert abs(float(m.group(3)) - row["achieved_rate_per_s"]) <= 0.051, (m.group(0), row)
    drains = drain_blocks(run.stderr)
    assert len(drains) == 1 and int(drains[0].group(4)) == drain["completed"], run.stderr
    assert_server_agrees(server, report)


def test_open_model_series_keeps_its_target_to_the_end(server, pacer, tmp_path):
    out = tmp_path / "series.ndjson"
    # -d 2.5s at --interval 1s: the end falls inside an interval, which the engine cuts there.
    run = pacer("-t1", "-c8", "-R", "400", "-d", "2.5s", "--interval", "1s", "--timeseries", str(out), "--plain",
                server.url, timeout=30)
    assert run.rc == 0, run
    rows = rows_of(out)
    assert [r["drain"] for r in rows] == [False, False, False, True], rows
    assert [r["duration_s"] for r in rows[:3]] == [1.0, 1.0, 0.5], rows
    for r in rows[:3]:
        # Each of the run's intervals has the schedule's rate, the last one too (not 390.96/s).
        assert abs(r["target_rate_per_s"] - 400.0) < 1e-6, r
    assert rows[3]["target_rate_per_s"] is None and rows[3]["backlog"] is None, rows[3]
    assert sum(r["sent"] for r in rows) == 1000
    # The progress lines say the same: the last interval's target 400/s, then the drain.
    blocks = interval_blocks(run.stderr)
    assert len(blocks) == 3 and all(" target 400.0/s, " in m.group(4) for m in blocks), run.stderr
    assert len(drain_blocks(run.stderr)) == 1, run.stderr


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
