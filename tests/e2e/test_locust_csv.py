"""--csv PREFIX --csv-format locust (issue 27) beside Locust 2.12 itself (Debian's
python3-locust): both run the same two-task scenario against the same `pacer serve`;
the header rows of the four files are identical byte for byte, a reader written for
Locust's files reads pacer's unchanged, and pacer's figures equal its JSON report.
Each run is a second or two (-d / -t, and a subprocess timeout)."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
from datetime import datetime
from pathlib import Path

import pytest

pytestmark = [pytest.mark.no_sanitizer, pytest.mark.tsan]

FILES = ("_stats.csv", "_stats_history.csv", "_failures.csv", "_exceptions.csv")

LOCUSTFILE = """
from locust import HttpUser, task, constant

class Shop(HttpUser):
    wait_time = constant(0.01)

    @task(3)
    def products(self):
        self.client.get("/api/products")

    @task(1)
    def missing(self):
        self.client.get("/status/404")
"""

SCENARIO = """
return {wait = pacer.constant(0.01), tasks = {
  {3, function(u) u:get("/api/products") end},
  {1, function(u) u:get("/status/404") end},
}}
"""


def read_locust_stats(prefix: Path) -> dict[tuple[str, str], dict]:
    """A reader as one writes it for Locust's files: csv.DictReader, Locust's column names and types."""
    rows = {}
    with open(f"{prefix}_stats.csv", newline="") as f:
        for row in csv.DictReader(f):
            rows[(row["Type"], row["Name"])] = {
                "requests": int(row["Request Count"]),
                "failures": int(row["Failure Count"]),
                "median": float(row["Median Response Time"]),
                "average": float(row["Average Response Time"]),
                "max": float(row["Max Response Time"]),
                "rps": float(row["Requests/s"]),
                "content_size": float(row["Average Content Size"]),
                "p99": None if row["99%"] == "N/A" else int(row["99%"]),
            }
    with open(f"{prefix}_stats_history.csv", newline="") as f:
        history = [r for r in csv.DictReader(f) if r["Name"] == "Aggregated"]
    for r in history:
        int(r["Timestamp"]), int(r["User Count"]), float(r["Requests/s"]), int(r["Total Request Count"])
    # Locust's first row is written as the run starts: no users, no requests, N/A percentiles.
    first = history[0]
    assert (first["User Count"], first["Requests/s"], first["50%"], first["Total Request Count"],
            first["Total Average Content Size"]) == ("0", "0.000000", "N/A", "0", "0"), first
    # Then a row per second: none repeated (the start's row shares its second with a first interval shorter than one).
    timestamps = [int(r["Timestamp"]) for r in history]
    assert timestamps == sorted(timestamps) and len(set(timestamps[1:])) == len(timestamps) - 1, timestamps
    with open(f"{prefix}_failures.csv", newline="") as f:
        failures = {(r["Method"], r["Name"]): int(r["Occurrences"]) for r in csv.DictReader(f)}
    rows[("", "Aggregated")]["history_rows"] = len(history)
    rows[("", "Aggregated")]["history_total"] = int(history[-1]["Total Request Count"])
    rows[("", "Aggregated")]["failures_listed"] = sum(failures.values())
    return rows


def end_seconds(report: dict) -> set[int]:
    """The Unix seconds the report's intervals ended in: Locust's history has a row for each."""
    starts = [datetime.fromisoformat(p["start_time"].replace("Z", "+00:00")).timestamp() for p in report["timeseries"]]
    return {int(start + p["duration_s"]) for start, p in zip(starts, report["timeseries"])}


@pytest.mark.skipif(shutil.which("locust") is None, reason="python3-locust is not installed (scripts/setup.sh)")
def test_locusts_and_pacers_csv_files_read_alike(server, pacer, tmp_path):
    locustfile = tmp_path / "locustfile.py"
    locustfile.write_text(LOCUSTFILE)
    locust = subprocess.run(
        # 4 s: beside other tests, Locust's users made no request in a 2 s run once.
        ["locust", "-f", str(locustfile), "--headless", "-u", "2", "-r", "100", "-t", "4s", "--host", server.url.rstrip("/"),
         "--csv", str(tmp_path / "locust"), "--only-summary", "--loglevel", "ERROR", "--exit-code-on-error", "0"],
        capture_output=True, timeout=60, cwd=tmp_path, stdin=subprocess.DEVNULL,
    )
    assert locust.returncode == 0, locust.stderr.decode()[-2000:]

    scenario = tmp_path / "shop.lua"
    scenario.write_text(SCENARIO)
    run = pacer("--scenario", str(scenario), "-u", "2", "-d", "1s", "--format", "json", "--csv", str(tmp_path / "pacer"),
                "--csv-format", "locust", "--csv-full-history", server.url, timeout=30)
    assert run.rc == 0, run
    report = json.loads(run.stdout)

    for suffix in FILES:
        with open(f"{tmp_path / 'locust'}{suffix}", "rb") as f:
            locust_header = f.readline()
        with open(f"{tmp_path / 'pacer'}{suffix}", "rb") as f:
            pacer_header = f.readline()
        assert pacer_header == locust_header, suffix

    theirs = read_locust_stats(tmp_path / "locust")
    ours = read_locust_stats(tmp_path / "pacer")
    assert set(ours) == set(theirs) == {("GET", "/api/products"), ("GET", "/status/404"), ("", "Aggregated")}

    total = ours[("", "Aggregated")]
    errors = report["errors"]
    assert total["requests"] == report["counts"]["responses"] + sum(v for k, v in errors.items() if k != "status")
    assert total["failures"] == sum(errors.values()) == total["failures_listed"]
    assert total["requests"] == ours[("GET", "/api/products")]["requests"] + ours[("GET", "/status/404")]["requests"]
    assert ours[("GET", "/status/404")]["failures"] == ours[("GET", "/status/404")]["requests"] > 0
    assert ours[("GET", "/api/products")]["failures"] == 0
    assert total["max"] * 1e6 == pytest.approx(report["latency"]["max_ns"], rel=1e-9)
    assert total["rps"] == pytest.approx(total["requests"] / report["duration_s"], rel=1e-9)
    # A row at the start, then one per second the intervals ended in; the last one's total is the run's.
    ends = end_seconds(report)
    assert total["history_rows"] == 1 + len(ends)
    assert total["history_total"] == total["requests"]
    # The same server's bodies: the mean body length is Locust's.
    assert ours[("GET", "/api/products")]["content_size"] == theirs[("GET", "/api/products")]["content_size"] > 0
    endpoints = {e["name"]: e for e in report["endpoints"]}
    assert ours[("GET", "/api/products")]["requests"] == endpoints["GET /api/products"]["responses"]
    # Locust's rounding: whole milliseconds below 100 ms, so a loopback p99 is a small whole number.
    assert ours[("", "Aggregated")]["p99"] == int(ours[("", "Aggregated")]["p99"])

    # pacer report draws the same files from the JSON report.
    (tmp_path / "run.json").write_text(run.stdout)
    drawn = pacer("report", str(tmp_path / "run.json"), "--csv", str(tmp_path / "drawn"), "--csv-format", "locust",
                  "--csv-full-history", timeout=30)
    assert drawn.rc == 0, drawn
    for suffix in FILES:
        assert (tmp_path / f"drawn{suffix}").read_bytes() == (tmp_path / f"pacer{suffix}").read_bytes(), suffix

    with open(tmp_path / "pacer_stats_history.csv", newline="") as f:
        named = [r for r in csv.DictReader(f) if r["Name"] == "/api/products"]
    assert len(named) == len(ends), "--csv-full-history: a row per name per row of the history (but the first)"
    assert int(named[-1]["Total Request Count"]) == ours[("GET", "/api/products")]["requests"]
    # Each name's latency per interval (issue 27): its own percentiles wherever it had requests, and
    # totals whose median and max are the stats file's (the intervals' histograms add up to the run's;
    # the max within the histogram's 3 significant digits, since a stored histogram keeps its bucket).
    with_requests = [r for r in named if float(r["Requests/s"]) > 0]
    assert with_requests and all(r["99%"] != "N/A" and int(r["50%"]) <= int(r["99%"]) for r in with_requests)
    products = ours[("GET", "/api/products")]
    assert float(named[-1]["Total Median Response Time"]) == pytest.approx(products["median"], rel=1e-3, abs=1e-9)
    assert float(named[-1]["Total Max Response Time"]) == pytest.approx(products["max"], rel=1e-3)


def test_csv_format_needs_csv_and_full_history_needs_locusts_format(pacer):
    run = pacer("--csv-format", "locust", "http://127.0.0.1:9/", timeout=20)
    assert run.rc == 2 and "--csv-format: only with --csv PREFIX" in run.stderr, run
    run = pacer("--csv", "/tmp/x", "--csv-full-history", "http://127.0.0.1:9/", timeout=20)
    assert run.rc == 2 and "--csv-full-history: only with --csv-format locust" in run.stderr, run
    run = pacer("--csv", "/tmp/x", "--csv-format", "jmeter", "http://127.0.0.1:9/", timeout=20)
    assert run.rc == 2 and "expected pacer or locust" in run.stderr, run


def test_full_history_counts_a_name_whose_errors_are_of_both_kinds(server, pacer, tmp_path):
    """One name's requests end in a status error (/status/500) and without a response
    (/never, --timeout): Locust counts both as requests and as failures. Each interval
    says how many of its errors had no response (`failed`), so every history row has
    its count where it printed N/A, and the last row's totals are the stats file's."""
    targets = tmp_path / "targets.jsonl"
    targets.write_text("".join(json.dumps({"url": server.url.rstrip("/") + path, "name": "mixed"}) + "\n"
                               for path in ("/status/500", "/never")))
    prefix = tmp_path / "pacer"
    run = pacer("-t1", "-c4", "-d2s", "--timeout", "300ms", "--interval", "500ms", "--targets", str(targets),
                "--csv", str(prefix), "--csv-format", "locust", "--csv-full-history", "--format", "json",
                timeout=30)
    report = json.loads(run.stdout)
    (mixed,) = [e for e in report["endpoints"] if e["name"] == "mixed"]
    assert mixed["errors"]["status"] > 0 and mixed["errors"]["timeout"] > 0, mixed
    ours = read_locust_stats(prefix)
    with open(f"{prefix}_stats_history.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["Name"] == "mixed"]
    assert rows and all(r["Requests/s"] != "N/A" and r["Total Request Count"] != "N/A" for r in rows), rows
    (stats,) = [v for (kind, name), v in ours.items() if name == "mixed"]
    assert int(rows[-1]["Total Request Count"]) == stats["requests"] == mixed["responses"] + mixed["errors"]["timeout"]
    assert int(rows[-1]["Total Failure Count"]) == stats["failures"]


def test_every_stats_row_agrees_with_the_json_report_and_has_its_mean_body_length(server, pacer, tmp_path):
    """Average Content Size is a name's body bytes over its requests (Locust's mean
    content length); each row of the stats file, read by Python's csv module, is its
    endpoint's in the JSON report; the history starts with Locust's row at t=0 and
    repeats no second, its last total the run's."""
    script = tmp_path / "bytes.lua"
    script.write_text("""
return {tasks = {{1, function(u)
  u:get("/bytes/100")
  u:get("/bytes/300")
  u:get("/bytes/300")
end}}}
""")
    prefix = tmp_path / "pacer"
    run = pacer("-t1", "-u", "2", "-d", "0.5s", "--scenario", str(script), "--format", "json", "--csv", str(prefix),
                "--csv-format", "locust", server.url, timeout=30)
    assert run.rc == 0, run
    report = json.loads(run.stdout)
    ours = read_locust_stats(prefix)
    endpoints = {tuple(e["name"].split(" ", 1)): e for e in report["endpoints"]}
    assert set(ours) == set(endpoints) | {("", "Aggregated")}
    for key, e in endpoints.items():
        row = ours[key]
        assert row["requests"] == e["responses"] + sum(v for k, v in e["errors"].items() if k != "status"), key
        assert row["failures"] == e["failed"], key
        assert row["max"] * 1e6 == pytest.approx(e["latency"]["max_ns"], rel=1e-9), key
        assert row["content_size"] == pytest.approx(e["body_bytes"] / row["requests"], rel=1e-12), key
    assert ours[("GET", "/bytes/100")]["content_size"] == 100.0
    assert ours[("GET", "/bytes/300")]["content_size"] == 300.0
    total = ours[("", "Aggregated")]
    assert total["content_size"] == pytest.approx(sum(e["body_bytes"] for e in endpoints.values()) / total["requests"])
    assert total["history_rows"] == 1 + len(end_seconds(report))
    assert total["history_total"] == total["requests"]
