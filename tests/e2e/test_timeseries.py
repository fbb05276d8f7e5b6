"""--timeseries: one NDJSON row per --interval whose counts add up to the report's."""

import pytest
import base64
import json

from conftest import parse_report

pytestmark = pytest.mark.tsan


def test_rows_cover_the_run_and_add_up_to_the_report(server, pacer, tmp_path):
    out = tmp_path / "series.ndjson"
    run = pacer("-t2", "-c4", "-R", "1000", "-d", "2s", "--interval", "500ms", "--timeseries", str(out),
                server.url, timeout=30)
    assert run.rc == 0, run
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["interval"] for r in rows] == list(range(len(rows)))
    assert len(rows) == 5, rows  # 2 s / 500 ms, then the drain's own row
    assert sum(r["completed"] for r in rows) == run.report.requests
    assert sum(r["sent"] for r in rows) == 2000
    assert [r["drain"] for r in rows] == [False] * 4 + [True], rows
    for r in rows:
        assert abs(r["start_s"] - 0.5 * r["interval"]) < 1e-9
        if r["drain"]:
            assert r["duration_s"] == r["drain_s"] > 0 and r["target_rate_per_s"] is None, r
        else:  # 500 arrivals asked per row, the last one's too
            assert abs(r["duration_s"] - 0.5) < 1e-9 and r["drain_s"] == 0, r
            assert abs(r["target_rate_per_s"] * r["duration_s"] - 500.0) < 1e-6, r
        assert r["latency_ns"]["count"] == r["completed"]
        if r["completed"]:
            assert r["latency_ns"]["p50"] <= r["latency_ns"]["p99"] <= r["latency_ns"]["max"]
    # How the completions fall into rows depends on the machine (a busy 2-core runner
    # can stall a process for a whole row); that they spread over the run does not.
    assert sum(r["completed"] > 0 for r in rows) >= 2, rows


def test_timeseries_on_stdout_moves_the_report_to_stderr(server, pacer):
    run = pacer("-t1", "-c2", "-d", "1s", "--interval", "250ms", "--timeseries", "-", "--timeseries-histogram",
                server.url, timeout=30)
    assert run.rc == 0, run
    rows = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(rows) >= 4
    assert all(r["target_rate_per_s"] is None for r in rows)  # closed loop
    # HdrHistogram V2 compressed: base64 of a buffer starting with the 0x1c84930x cookie.
    raw = base64.b64decode(rows[0]["histogram"])
    assert raw[:3] == bytes([0x1C, 0x84, 0x93]), raw[:4]
    report = parse_report(run.stderr)
    assert sum(r["completed"] for r in rows) == report.requests


def test_interval_must_be_positive(server, pacer):
    run = pacer("--interval", "0", server.url, timeout=30)
    assert run.rc == 2, run
    assert "--interval" in run.stderr, run
