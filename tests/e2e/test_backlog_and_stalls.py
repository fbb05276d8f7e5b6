"""Numbers that must not mislead when pacer itself is the limit, or the server stalls.

1. An open-model run with too few connections: arrivals wait in pacer's backlog and
   those that wait past --timeout are never sent. They are `unsent`, never server
   timeouts, and the report says what capped the rate by Little's law: -c
   connections at a mean service time S carry at most about c / S requests/s.
2. A server freeze: the few responses that complete during it are fast, so the last
   interval's p99 drops. The age of the oldest request still in flight shows the
   stall instead, in the progress lines and the time series, in the closed loop too.
"""

from __future__ import annotations

import pytest
import json
import math
import re

from conftest import assert_server_agrees, parse_duration
from progress import progress_blocks


def paragraph(text: str, label: str) -> str | None:
    """The report paragraph that starts with `label` (e.g. 'Bottleneck:'), its
    continuation lines (indented under the label) joined into one line."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(label):
            words = [line[len(label):].strip()]
            for more in lines[i + 1:]:
                if not more.startswith(" " * 14) or not more.strip():
                    break
                words.append(more.strip())
            return " ".join(words)
    return None


def test_arrivals_that_never_found_a_connection_are_unsent_not_server_timeouts(server, pacer, tmp_path):
    # 10 connections x 50 ms carry about 200 requests/s; 1000/s are asked for.
    out = tmp_path / "report.json"
    run = pacer("-t1", "-c10", "-R", "1000", "-d3s", "--format", "json", "-o", str(out),
                server.url + "delay/50", timeout=60)
    assert run.rc == 0, run
    report = run.report
    # The server answered everything it was sent, and pacer says exactly that.
    assert_server_agrees(server, report)
    assert report.errors["timeout"] == 0, run
    assert report.errors["unsent"] >= 1500, run  # ~2000 of the 3000 arrivals
    assert report.timeouts_text is None, run     # no "Timeouts:" paragraph
    unsent = paragraph(run.stdout, "Unsent:")
    assert unsent is not None and unsent.startswith(f"{report.errors['unsent']} requests waited in pacer's backlog"), run

    doc = json.loads(out.read_text())
    assert doc["errors"]["unsent"] == report.errors["unsent"]
    assert doc["errors"]["timeout"] == 0
    # Every arrival was sent and answered, or given up unsent.
    assert doc["counts"]["requests_sent"] == doc["counts"]["responses"] == report.requests
    assert doc["counts"]["scheduled"] == doc["counts"]["responses"] + doc["errors"]["unsent"], doc["counts"]

    # What capped the rate, with arithmetic that holds together.
    bottleneck = paragraph(run.stdout, "Bottleneck:")
    assert bottleneck is not None, run
    m = re.search(r"the connections\. By Little's law, (\d+) connections / (\S+) mean service time = about "
                  r"(\d+) requests/s could be sent; the target was (\d+)/s: raise -c to at least ~(\d+)\.", bottleneck)
    assert m, bottleneck
    connections, service_s = int(m.group(1)), parse_duration(m.group(2))
    capacity, target, needed = int(m.group(3)), int(m.group(4)), int(m.group(5))
    assert connections == 10 and target == 1000, bottleneck
    assert 0.050 <= service_s <= 0.100, bottleneck  # the server's 50 ms, plus loopback
    assert abs(capacity - connections / service_s) <= 1, bottleneck
    assert 100 <= capacity <= 200, bottleneck
    assert needed == math.ceil(target * service_s - 1e-9) or abs(needed - target * service_s) <= 1, bottleneck
    # ... and it is what the run actually sent: ~capacity per second over the 3 s.
    sent_during_the_run = doc["counts"]["requests_sent"]
    assert 0.8 * capacity * 3 <= sent_during_the_run <= 1.2 * capacity * 5, (capacity, sent_during_the_run)

    # While it happened, the progress lines (stderr: stdout is not a terminal) said
    # the same, before the end of the run.
    lines = progress_blocks(run.stderr)
    during = [l for l in lines if re.match(r"\[\s*[12]\.0s / 3\.0s\]", l)]
    assert during, run.stderr
    assert all(" bottleneck: 10 conns / " in l and "raise -c to ~" in l for l in during), run.stderr
    assert any("unsent" in l for l in lines), run.stderr
    assert not any("timeout" in l for l in lines), run.stderr


@pytest.mark.tsan
def test_a_server_freeze_shows_as_the_age_of_the_oldest_request_in_flight(start_server, pacer, tmp_path):
    freeze_s = 1.5
    server = start_server("--freeze-at", "1s", "--freeze-for", f"{freeze_s}s")
    series = tmp_path / "series.ndjson"
    run = pacer("-t1", "-c4", "-d4s", "--interval", "250ms", "--timeseries", str(series), server.url, timeout=60)
    assert run.rc == 0, run
    assert run.report.errors.get("timeout", 0) == 0, run  # the freeze is shorter than --timeout

    rows = [json.loads(l) for l in series.read_text().splitlines()]
    stalled = [r for r in rows if r["in_flight_over_interval"] > 0]
    assert stalled, rows
    # The oldest request's age grows through the freeze, interval after interval...
    oldest = [r["oldest_in_flight_ns"] / 1e9 for r in stalled]
    assert max(oldest) >= 0.65 * freeze_s, oldest
    assert sum(1 for a, b in zip(oldest, oldest[1:]) if b > a) >= 2, oldest
    worst = max(stalled, key=lambda r: r["oldest_in_flight_ns"])
    # ... every connection's request is stuck, and the interval's p99 (of the few
    # responses that made it, if any) is far below what the stall is.
    assert worst["in_flight"] == 4 and worst["in_flight_over_interval"] == 4, worst
    p99 = worst["latency_ns"].get("p99", 0)
    assert p99 < 0.5 * worst["oldest_in_flight_ns"], worst

    # The plain progress lines show the same while it happens.
    ages = []
    for line in progress_blocks(run.stderr):
        m = re.search(r"in flight (\d+) \(oldest (\S+?)(?:, (\d+) older than 250ms)?\)", line)
        if m and m.group(3):
            ages.append(parse_duration(m.group(2)))
    assert ages and max(ages) >= 0.65 * freeze_s, run.stderr
