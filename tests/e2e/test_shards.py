"""--shard and --start-at, as a user runs them (merging is in test_merge.py)."""

import json
import re
import time

import pytest

from progress import interval_blocks


@pytest.mark.tsan
def test_shards_split_connections_and_requests(server, pacer):
    total = 0
    for i in range(3):
        run = pacer("-t1", "-c10", "-n", "1000", "--shard", f"{i}/3", "--format", "json", server.url, timeout=30)
        assert run.rc == 0, run
        doc = json.loads(run.stdout)
        assert doc["config"]["shard"]["index"] == i and doc["config"]["shard"]["count"] == 3
        assert doc["config"]["shard"]["whole_test"] == {"connections": 10, "requests": 1000}
        assert doc["config"]["connections"] == (4 if i == 0 else 3)
        total += doc["counts"]["responses"]
    assert total == 1000
    assert server.wait_for("requests_answered", 1000) == 1000
    assert server.stats()["connections_accepted"] == 10


def test_start_at_waits_for_the_wall_clock_and_counts_every_connection_the_server_saw(start_server, pacer, tmp_path):
    """The start-up probe is closed before a wait over a second (the server might drop
    it idle): the server saw it, so "connections opened" counts it (issue 31, item 13)."""
    server = start_server()
    start_at = time.time() + 1.5
    began = time.monotonic()
    out = tmp_path / "r.json"
    run = pacer("-t1", "-c2", "-n", "50", "--start-at", f"{start_at:.3f}", "--format", "json", "-o", str(out),
                server.url, timeout=30)
    assert run.rc == 0, run
    assert time.monotonic() - began >= 1.4, run
    connects = json.loads(out.read_text())["counts"]["connects"]
    assert connects == 3, connects  # -c2 and the probe
    assert server.wait_for("connections_accepted", connects) == connects
    assert re.search(r"\(3 connections opened", run.stdout), run.stdout


@pytest.mark.tsan
def test_start_at_in_the_past_is_refused(server, pacer):
    run = pacer("-n", "5", "--start-at", "2020-01-01T00:00:00Z", server.url, timeout=30)
    assert run.rc == 2, run
    assert "--start-at: 2020-01-01T00:00:00Z is in the past" in run.stderr, run


@pytest.mark.tsan
def test_a_shard_judges_itself_against_its_own_share_everywhere(server, pacer, tmp_path):
    """--shard 0/3 of -R 600 -c30: the report, the JSON, the progress lines and the
    time series all give the shard's 200/s and 10 connections, and say so."""
    series = tmp_path / "series.ndjson"
    out = tmp_path / "shard0.json"
    run = pacer("--shard", "0/3", "-t1", "-c30", "-R", "600", "-d2s", "--plain", "--timeseries", str(series),
                "--format", "json", "-o", str(out), server.url, timeout=30)
    assert run.rc == 0, run
    text = run.stdout.replace("\n" + " " * 14, " ")  # the report's wrapping read as spaces
    assert "Load model:   open, constant 200 requests/s (uniform arrivals), 10 connections." in text, run
    assert "shard 0 of 3: 200 of 600 requests/s, 10 of 30 connections." in text, run
    m = re.search(r"Rate:\s+target ([\d.]+)/s, sent [\d.]+/s \(([\d.]+)% of target\)", text)
    assert m, run
    assert 190 <= float(m.group(1)) <= 210, run
    assert float(m.group(2)) >= 90, run
    doc = json.loads(out.read_text())
    assert doc["config"]["rate_per_s"] == 200
    assert doc["config"]["connections"] == 10
    assert doc["config"]["shard"]["whole_test"]["rate_per_s"] == 600
    assert doc["config"]["shard"]["whole_test"]["connections"] == 30
    progress = interval_blocks(run.stderr)  # the run's intervals (the drain's block has no target)
    assert progress, run
    for m in progress:
        line = m.group(0)
        assert " shard 0 of 3: " in line, line
        target = float(re.search(r"target ([\d.]+)/s", line).group(1))
        assert 190 <= target <= 210, line
    rows = [json.loads(line) for line in series.read_text().splitlines()]
    assert rows
    for row in rows[:-1]:
        assert row["shard"] == {"index": 0, "count": 3}
        assert 190 <= row["target_rate_per_s"] <= 210, row


@pytest.mark.tsan
@pytest.mark.parametrize(
    "start_at, reason",
    [
        ("2027-02-30T00:00:00Z", "is not a valid time: February 2027 has 28 days"),
        ("2028-04-31T12:00:00Z", "April 2028 has 30 days"),
        ("2030-01-01T24:00:00Z", "hour 24 is outside 00-23"),
        ("2030-01-01T12:61:00Z", "minute 61 is outside 00-59"),
        ("9999-12-31T23:59:59Z", "days ahead; a start may be at most 7 days ahead"),
        ("99999999999999999999", "days ahead; a start may be at most 7 days ahead"),
    ],
)
def test_start_at_that_cannot_be_is_refused_with_the_reason(server, pacer, start_at, reason):
    run = pacer("-n", "5", "--start-at", start_at, server.url, timeout=30)
    assert run.rc == 2, run
    assert reason in run.stderr, run
    assert "in the past" not in run.stderr, run
