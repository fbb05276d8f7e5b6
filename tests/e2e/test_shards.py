"""--shard and --start-at, as a user runs them (merging is in test_merge.py)."""

import json
import time


def test_shards_split_connections_and_requests(server, pacer):
    total = 0
    for i in range(3):
        run = pacer("-t1", "-c10", "-n", "1000", "--shard", f"{i}/3", "--format", "json", server.url, timeout=30)
        assert run.rc == 0, run
        doc = json.loads(run.stdout)
        assert doc["config"]["shard"] == {"index": i, "count": 3}
        assert doc["config"]["connections"] == (4 if i == 0 else 3)
        total += doc["counts"]["responses"]
    assert total == 1000
    assert server.wait_for("requests_answered", 1000) == 1000
    assert server.stats()["connections_accepted"] == 10


def test_start_at_waits_for_the_wall_clock(server, pacer):
    start_at = time.time() + 1.5
    began = time.monotonic()
    run = pacer("-t1", "-c2", "-n", "50", "--start-at", f"{start_at:.3f}", server.url, timeout=30)
    assert run.rc == 0, run
    assert time.monotonic() - began >= 1.4, run


def test_start_at_in_the_past_is_refused(server, pacer):
    run = pacer("-n", "5", "--start-at", "2020-01-01T00:00:00Z", server.url, timeout=30)
    assert run.rc == 2, run
    assert "--start-at: 2020-01-01T00:00:00Z is in the past" in run.stderr, run
