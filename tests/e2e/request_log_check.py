"""Reading a --log-requests file (docs/output.md, "Per-request log") and checking it
against the run's JSON report: one row per request sent and ended, the recorded
rows' responses and error classes equal the report's counts, and their latencies
rebuild the report's percentiles within the histogram's precision."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

# Classes of requests that were sent (unsent, deadline and backlog arrivals never were;
# connect and tls failures belong to no request).
SENT_ERROR_CLASSES = ("read", "write", "timeout", "parse", "stream_reset", "goaway", "redirect", "decode", "quic")


def read_rows(path: Path) -> list[dict]:
    text = path.read_text()
    if path.suffix in (".ndjson", ".jsonl"):
        return [json.loads(line) for line in text.splitlines()]
    rows = list(csv.DictReader(text.splitlines()))
    for r in rows:
        for k in ("due_unix_us", "send_unix_us", "latency_ns", "bytes_in", "bytes_out", "connection", "worker"):
            r[k] = int(r[k])
        for k in ("ttfb_ns", "connect_ns", "status"):
            r[k] = int(r[k]) if r[k] else None
        r["error"] = r["error"] or None
        r["recorded"] = r["recorded"] == "1"
    return rows


def percentile(sorted_values: list[int], p: float) -> int:
    """HdrHistogram's: the smallest value with at least p% of the samples at or below it."""
    rank = max(1, math.ceil(p / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


def check_request_log(path: Path, doc: dict) -> list[dict]:
    rows = read_rows(path)
    recorded = [r for r in rows if r["recorded"]]
    responses = [r for r in recorded if r["status"] is not None]
    assert len(responses) == doc["counts"]["responses"], (len(responses), doc["counts"])
    for name in SENT_ERROR_CLASSES:
        logged = sum(1 for r in recorded if r["error"] == name)
        assert logged == doc["errors"].get(name, 0), (name, logged, doc["errors"])
    assert sum(1 for r in responses if r["status"] >= 400) == doc["errors"].get("status", 0)
    for r in rows:
        assert r["send_unix_us"] >= r["due_unix_us"] - 1 and r["latency_ns"] >= 0, r
        assert r["ttfb_ns"] is None or 0 <= r["ttfb_ns"] <= r["latency_ns"], r
    # The latency histogram holds the responses and (censored) the timeouts.
    latencies = sorted([r["latency_ns"] for r in responses] +
                       [r["latency_ns"] for r in recorded if r["error"] == "timeout"])
    if len(latencies) == doc["latency"]["count"] and latencies:
        for key in ("50", "90", "99", "100"):
            exact = doc["latency"]["percentiles_ns"][key]
            rebuilt = percentile(latencies, float(key))
            # 3 significant digits: a histogram bucket is 0.1% wide; a percentile lands on one.
            assert abs(rebuilt - exact) <= 0.002 * exact + 1000, (key, rebuilt, exact)
    return rows
