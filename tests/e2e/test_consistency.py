"""One quantity, one value, wherever it is printed (issue 13, "Proof").

For each run in CASES, pacer writes its text report (stdout), its JSON report (-o),
its time series (--timeseries) and its plain progress lines (stderr, --plain), all
from one run against `pacer serve`. The test reads every rate and count each of them
prints and checks that the same quantity has the same value everywhere (within the
rounding of what is printed) and agrees with the server's own counters (/stats).

Scenarios (closed and open, with failed checks) and targets with a never-answering
endpoint, with the HTML read through Chromium: test_consistency_scenarios.py.

Adding a case: append a Case to CASES (server options, pacer options). Shard runs
are SHARD_CASES: two shards run at once against one server, each shard's outputs are
checked like a single run's, and `pacer merge` of the two is checked against their
sums and the server.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import re
import signal
import subprocess
import time
from datetime import datetime

import pytest

from conftest import COUNTER_SETTLE_S, PACER_BIN, parse_duration, parse_report
from progress import drain_blocks, interval_blocks, progress_lines_too_wide
from request_log_check import check_request_log

pytestmark = pytest.mark.tsan


@dataclasses.dataclass
class Case:
    name: str
    pacer_args: tuple[str, ...]
    server_args: tuple[str, ...] = ()
    open_model: bool = False
    path: str = ""  # appended to the server's URL
    evidence: bool = False  # --server-pid of the server and --server-metrics of its /stats


CASES = [
    Case("closed", ("-t2", "-c8", "-d", "3s"), evidence=True),
    Case("open", ("-t2", "-c8", "-R", "600", "-d", "3s"), open_model=True),
    Case("stages", ("-t2", "-c8", "--stages", "1s:300,1s:300,1s:0"), open_model=True),
    Case("freeze-open", ("-t2", "-c20", "-R", "300", "-d", "4s"), ("--freeze-at", "1s", "--freeze-for", "1s"),
         open_model=True),
    Case("freeze-closed", ("-t2", "-c8", "-d", "4s"), ("--freeze-at", "1s", "--freeze-for", "1s")),
    # -d not a multiple of --interval: a short last line; a warm-up before it.
    Case("open-warmup-partial", ("-t1", "-c4", "-R", "200", "-d", "2.5s", "--warmup", "500ms"), open_model=True),
    # Too few connections (2 x 20 ms ~ 100/s for a 200/s target): the backlog
    # grows and arrivals are given up as unsent; every output counts them alike.
    Case("open-unsent", ("-t1", "-c2", "-R", "200", "-d", "3s", "--timeout", "500ms"), open_model=True,
         path="delay/20"),
    # A server that closes every connection after one keep-alive response (issue 43):
    # the requests that meet the close are sent again; the Keep-alive line and the
    # counts agree, and the server answered each request once.
    Case("keepalive-closed", ("-t2", "-c4", "-d", "1s"), path="hangup"),
]

ERROR_CLASSES = ("connect", "read", "write", "timeout", "parse", "status")


def close(a: float, b: float, tolerance: float, what: str) -> None:
    assert abs(a - b) <= tolerance, f"{what}: {a} vs {b} (tolerance {tolerance})"


def text_field(text: str, pattern: str) -> re.Match:
    m = re.search(pattern, text, re.M)
    assert m, f"no match for {pattern!r} in:\n{text}"
    return m


def unwrapped(text: str) -> str:
    """pacer's own report lines wrap under a 14-column label: join them again."""
    return re.sub(r"\n {14}(?=\S)", " ", text)


def check_counts(text, doc, rows, report) -> None:
    counts = doc["counts"]
    assert report.requests == counts["responses"] == sum(r["completed"] for r in rows)
    assert counts["requests_sent"] == sum(r["sent"] for r in rows)
    assert doc["latency"]["count"] == sum(r["latency_ns"]["count"] for r in rows)
    for name in sorted(set(ERROR_CLASSES) | set(report.errors)):  # the text's Errors line names every class it has
        assert report.errors[name] == doc["errors"][name] == sum(r["errors"][name] for r in rows), name
    assert report.status_codes == {int(k): v for k, v in doc["status_codes"].items()}
    # The intervals carry status codes and bytes too (/metrics is live from them).
    by_code: dict[int, int] = {}
    for r in rows:
        for code, n in r["status_codes"].items():
            by_code[int(code)] = by_code.get(int(code), 0) + n
    assert by_code == report.status_codes, (by_code, report.status_codes)
    assert sum(r["bytes_read"] for r in rows) == counts["bytes_read"]
    assert sum(r["bytes_written"] for r in rows) == counts["bytes_written"]
    if report.socket_errors is not None:  # wrk's line, same counts
        for name, value in report.socket_errors.items():
            assert value == doc["errors"][name], name
    check_ab_fields(text, doc)
    check_endpoint_intervals(doc, rows)


def check_endpoint_intervals(doc, series) -> None:
    """Each endpoint's figures per interval (the NDJSON lines, the JSON's time series) add up to
    its row of the report: responses, errors, those without a response (`failed`), and its
    latency's count; and the names' latencies
    add up to the interval's (the interval's latency is its names' and the unsent arrivals')."""
    unsent = doc["errors"].get("unsent", 0)
    for e in doc["endpoints"]:
        parts = [p["endpoints"].get(e["name"], {}) for p in series]
        assert sum(p.get("completed", 0) for p in parts) == e["responses"], e["name"]
        errors = sum(v for k, v in e["errors"].items() if k not in ("check", "script"))
        assert sum(p.get("errors", 0) for p in parts) == errors, e["name"]
        failed = sum(v for k, v in e["errors"].items() if k not in ("check", "script", "status"))
        assert sum(p.get("failed", 0) for p in parts) == failed, e["name"]
        assert sum(p.get("latency_ns", {}).get("count", 0) for p in parts) == e["latency"]["count"], e["name"]
    for p in series:
        named = sum(v.get("latency_ns", {}).get("count", 0) for v in p["endpoints"].values())
        assert named <= p["latency_ns"]["count"] <= named + unsent, p


def check_ab_fields(text, doc) -> None:
    """Issue 33, ab's fields: the text's Server, Document and Sent lines say what the
    JSON's first_response and counts say (CSV and HTML print no run summary)."""
    text, first, counts = unwrapped(text), doc["first_response"], doc["counts"]
    server = text_field(text, r"^Server:\s+(.*)$")[1]
    assert server == (first["server"] or "(the first response had no Server header)"), (server, first)
    m = text_field(text, r"^Document:\s+(\d+) bytes \(the first 2xx response.*?\), (\d+) length mismatch")
    assert (int(m[1]), int(m[2])) == (first["document_bytes"], counts["length_mismatches"]), (m[0], first, counts)
    m = text_field(text, r"^Sent:\s+\S+ \((\d+) bytes: request heads and bodies\), (\d+) bytes read$")
    assert (int(m[1]), int(m[2])) == (counts["bytes_written"], counts["bytes_read"]), (m[0], counts)
    assert counts["bytes_written"] > 0 and first["document_name"], (counts, first)


def check_server_lines(text, doc) -> None:
    """Issue 43 (4): `Server:` is ab's alone (the Server header, one line); the
    --server-pid processes and the --server-metrics scrapes have lines of their own
    that say what the JSON's `server` says."""
    text = unwrapped(text)
    assert len(re.findall(r"^Server:", text, re.M)) == (doc["first_response"]["server"] is not None), text
    side = doc.get("server") or {"pids": [], "scrapes": 0}
    lines = re.findall(r"^Server pid: +(\d+): CPU ([0-9.]+) s user \+ ([0-9.]+) s system;", text, re.M)
    assert lines == [(str(p["pid"]), f"{p['cpu_user_s']:.2f}", f"{p['cpu_system_s']:.2f}") for p in side["pids"]], \
        (lines, side)
    scrapes = re.findall(r"^Scrapes: +(\d+) of --server-metrics, (\d+) failed", text, re.M)
    assert scrapes == ([(str(side["scrapes"]), str(side["failed_scrapes"]))] if side["scrapes"] else []), \
        (scrapes, side)


def check_durations_and_rates(text, doc, rows, report) -> None:
    measured = doc["duration_s"]
    close(report.duration_s, measured, 0.006, "text 'requests in T' vs JSON duration_s")
    # The lines tile the measured time: contiguous, from 0, adding up to it.
    assert rows[0]["start_s"] == 0
    for a, b in zip(rows, rows[1:]):
        close(a["start_s"] + a["duration_s"], b["start_s"], 1e-6, "contiguous intervals")
    close(sum(r["duration_s"] for r in rows), measured, 1e-3, "sum of interval durations vs JSON duration_s")
    rates = doc["rates"]
    close(report.requests_per_sec, rates["completed_per_s"], 0.006, "Requests/sec vs JSON completed_per_s")
    series_rate = sum(r["completed"] for r in rows) / sum(r["duration_s"] for r in rows)
    close(series_rate, rates["completed_per_s"], 1e-3 * rates["completed_per_s"] + 0.01, "series vs report rate")
    for r in rows:
        close(r["achieved_rate_per_s"], r["completed"] / r["duration_s"], 1e-6, "achieved rate of a line")


def check_open_model(text, doc, rows) -> None:
    rates = doc["rates"]
    m = text_field(unwrapped(text), r"^Rate:\s+target ([0-9.]+)/s, sent ([0-9.]+)/s \(([0-9.]+)% of target\), "
                                    r"completed ([0-9.]+)/s")
    close(float(m.group(1)), rates["target_per_s"], 0.006, "text target vs JSON")
    close(float(m.group(2)), rates["sent_per_s"], 0.006, "text sent vs JSON")
    close(float(m.group(3)), 100 * rates["sent_to_target"], 0.051, "text sent % vs JSON")
    close(float(m.group(4)), rates["completed_per_s"], 0.006, "text completed vs JSON")
    # What the schedule asked for: the series' targets integrate to the report's
    # scheduled arrivals (uniform arrivals: the integral, to within one).
    # The drain after -d's end is its own last row, with no target (issue 31), and
    # what it sent is what the report says was sent while draining.
    assert all(r["target_rate_per_s"] is None for r in rows if r["drain"]), rows[-1]
    assert sum(r["sent"] for r in rows if r["drain"]) == doc["counts"]["sent_while_draining"], rows[-1]
    asked = sum(r["target_rate_per_s"] * r["duration_s"] for r in rows if not r["drain"])
    close(sum(r["duration_s"] for r in rows if not r["drain"]), doc["config"]["duration_s"], 1e-6,
          "the run's rows cover -d exactly")
    # The last row of the run has the schedule's own rate (no drain diluting it).
    run_rows = [r for r in rows if not r["drain"]]
    if doc["config"].get("load_model") == "constant":
        close(run_rows[-1]["target_rate_per_s"], rates["target_per_s"], 1e-6, "last interval's target")
    close(asked, doc["counts"]["scheduled"], 1.0 + 1e-6 * asked, "series' target integral vs scheduled")
    window = doc["config"]["duration_s"]
    close(rates["target_per_s"] * window, doc["counts"]["scheduled"], 1.0, "report target x -d vs scheduled")
    # Every scheduled arrival was sent, shed (--deadline), lost to a full backlog or given up unsent.
    e = doc["errors"]
    assert doc["counts"]["scheduled"] == doc["counts"]["requests_sent"] + e["deadline"] + e["backlog"] + \
        e.get("unsent", 0), (doc["counts"], e)


def check_progress(stderr, rows, doc, open_model) -> None:
    assert not progress_lines_too_wide(stderr), stderr  # issue 31: every line fits 80 columns
    run_rows = [r for r in rows if not r["drain"]]
    drain_rows = [r for r in rows if r["drain"]]
    assert len(drain_rows) <= 1 and (not drain_rows or rows[-1]["drain"]), rows
    lines = [m.groups() for m in interval_blocks(stderr)]
    assert len(lines) == len(run_rows), stderr
    warmup = doc["config"]["warmup_s"]
    for (elapsed, total, rate, rest), row in zip(lines, run_rows):
        close(float(elapsed), warmup + row["start_s"] + row["duration_s"], 0.1, "progress clock (tenths, rounded down)")
        close(float(total), warmup + doc["config"]["duration_s"], 0.051, "progress total")
        close(float(rate), row["achieved_rate_per_s"], 0.051, "progress req/s vs series")
        errors = sum(row["errors"][name] for name in row["errors"])
        m = re.search(r", errors (\d+)", rest)
        assert m and int(m.group(1)) == errors, (rest, row["errors"])
        m = re.search(r" (\d+) connections? open", rest)
        assert m and int(m.group(1)) == row["open_connections"], (rest, row)
        if open_model:
            m = re.search(r" target ([0-9.]+)/s, sent ([0-9.]+)/s, lag \S+, backlog (\d+)", rest)
            assert m, rest
            close(float(m.group(1)), row["target_rate_per_s"], 0.051, "progress target vs series")
            close(float(m.group(2)), row["sent"] / row["duration_s"], 0.051, "progress sent vs series")
            assert int(m.group(3)) == row["backlog"], (rest, row)
        assert "drain" not in rest, rest
    # The drain: a block of its own with the drain row's counts, and no target.
    drains = drain_blocks(stderr)
    assert len(drains) == len(drain_rows), stderr
    for m, row in zip(drains, drain_rows):
        close(float(m.group(1)), warmup + row["start_s"] + row["duration_s"], 0.1, "drain's clock")
        assert (int(m.group(4)), int(m.group(5))) == (row["completed"], row["sent"]), (m.group(0), row)
        assert "target" not in m.group(6), m.group(0)


def check_widths(text: str) -> None:
    """Issue 31: every line of the text report fits 80 columns (the progress lines are checked above)."""
    wide = [line for line in text.splitlines() if len(line) > 80]
    assert not wide, "\n".join(wide)


def check_server(server, doc, report) -> None:
    counts = doc["counts"]
    expected = counts["responses"] + counts["warmup_responses"]
    answered = server.wait_for("requests_answered", expected, timeout=COUNTER_SETTLE_S)
    assert answered == expected, (answered, counts)
    if doc["errors"]["timeout"] == 0 and doc["errors"]["read"] == 0:
        # Every request sent (warm-up ones too) was answered.
        assert counts["requests_sent"] == counts["responses"], counts


def check_locust_csv(prefix, doc) -> None:
    """--csv-format locust (issue 27): the Aggregated row and the history's totals are the JSON's."""
    with open(f"{prefix}_stats.csv", newline="") as f:
        total = next(r for r in csv.DictReader(f) if r["Name"] == "Aggregated")
    errors = doc["errors"]
    requests = doc["counts"]["responses"] + sum(v for k, v in errors.items() if k not in ("status", "check", "script"))
    assert int(total["Request Count"]) == requests, total
    assert int(total["Failure Count"]) == doc["counts"]["failed"], total  # each failed request once
    if requests:
        close(float(total["Max Response Time"]) * 1e6, doc["latency"]["max_ns"], 1e-3, "Locust's max")
        close(float(total["Requests/s"]), requests / doc["duration_s"], 1e-9, "Locust's Requests/s")
    with open(f"{prefix}_stats_history.csv", newline="") as f:
        history = [r for r in csv.DictReader(f) if r["Name"] == "Aggregated"]
    # Locust's row at the start, then a row per second the intervals ended in (issue 42).
    ends = {int(datetime.fromisoformat(p["start_time"].replace("Z", "+00:00")).timestamp() + p["duration_s"])
            for p in doc["timeseries"]}
    assert len(history) == 1 + len(ends), len(history)
    assert history[0]["Total Request Count"] == "0" and history[0]["50%"] == "N/A", history[0]
    assert int(history[-1]["Total Request Count"]) == sum(
        p["completed"] + sum(v for k, v in p["errors"].items() if k not in ("status", "check", "script"))
        for p in doc["timeseries"])


def check_pacer_csv(pacer, report_path, tmp_path, doc) -> None:
    """Issue 40: pacer's CSV drawn from the report file (the typed report read back) has
    the JSON's figures: per name and in all, its history a row per interval, its
    failures file each class's count."""
    drawn = pacer("report", str(report_path), "--csv", str(tmp_path / "own"), timeout=30)
    assert drawn.rc == 0, drawn
    with open(tmp_path / "own_stats.csv", newline="") as f:
        stats = {r["name"]: r for r in csv.DictReader(f)}
    for e in doc["endpoints"]:
        row = stats[e["name"]]
        assert int(row["failures"]) == e["failed"], (e["name"], row["failures"], e["failed"])
        assert int(row["requests"]) == e["responses"] + sum(v for k, v in e["errors"].items() if k not in ("status", "check")), e
    assert int(stats["Aggregated"]["failures"]) == doc["counts"]["failed"], stats["Aggregated"]
    if doc["counts"]["responses"]:
        # Six decimals of milliseconds: the exact nanosecond.
        close(float(stats["Aggregated"]["max_ms"]) * 1e6, doc["latency"]["max_ns"], 0.5, "pacer csv max")
        close(float(stats["Aggregated"]["min_ms"]) * 1e6, doc["latency"]["min_ns"], 0.5, "pacer csv min")
    with open(tmp_path / "own_history.csv", newline="") as f:
        history = list(csv.DictReader(f))
    assert len(history) == len(doc["timeseries"]), len(history)
    assert sum(int(r["completed"]) for r in history) == sum(p["completed"] for p in doc["timeseries"])
    with open(tmp_path / "own_failures.csv", newline="") as f:
        failures = [r for r in csv.DictReader(f) if r["name"] == "Aggregated"]
    for r in failures:
        assert int(r["count"]) == doc["errors"][r["class"]], (r, doc["errors"])


def check_client(stdout, doc, rows) -> None:
    """Issue 28: the client's health is the same in the JSON report, the series and the text."""
    client = doc["client"]
    assert len(client["workers"]) == doc["config"]["threads"], client
    assert all(len(r["client"]["workers"]) == len(client["workers"]) for r in rows), rows[0]["client"]
    # The run's peaks are the intervals' largest samples.
    assert client["peak_open_fds"] == max(r["client"]["open_fds"] for r in rows)
    assert client["peak_rss_bytes"] == max(r["client"]["rss_bytes"] for r in rows)
    assert client["fd_limit"] == rows[-1]["client"]["fd_limit"]
    # Each verdict is the text's Bottleneck paragraph, word for word.
    text = " ".join(stdout.split())
    for v in client["verdicts"]:
        assert "Bottleneck: " + v in text, (v, stdout)
    assert client["saturated"] == any(v.startswith("the client:") for v in client["verdicts"])


def check_keepalive(pacer, stdout, doc, rows, report_path, expected: bool) -> None:
    """Issue 43: the connections the peer closed after a kept-alive response and the
    requests sent again, in the text's Keep-alive line, the JSON, and the text of
    `pacer report` on that JSON. A request that meets the close after -d's end is not
    sent again (the drain sends nothing): it fails as read, in the drain's line only."""
    counts = doc["counts"]
    pattern = (r"^Keep-alive:\s+the server closed (\d+) of (\d+) connections after a response that kept"
               r"(?: them| it) open(?:: keep-alive is not kept)?(?:; (\d+) requests? that met the close)?")
    live = re.search(pattern, unwrapped(stdout), re.M)
    if not expected:
        assert counts["keepalive_closed"] == counts["resent"] == 0 and live is None, (counts, stdout)
        return
    assert live, stdout
    again = pacer("report", str(report_path))
    assert again.rc == 0, again
    replayed = re.search(pattern, unwrapped(again.stdout), re.M)
    assert replayed and replayed.groups() == live.groups(), (live, replayed)
    assert (int(live[1]), int(live[2]), int(live[3] or 0)) == (
        counts["keepalive_closed"], counts["connects"], counts["resent"]), (live[0], counts)
    assert counts["keepalive_closed"] > 0 and counts["resent"] > 0, counts
    drain_reads = sum(r["errors"]["read"] for r in rows if r["drain"])
    assert doc["errors"]["read"] == drain_reads <= doc["config"]["connections"], (doc["errors"], rows[-1])


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_output_agrees_with_the_others_and_with_the_server(case, start_server, pacer, tmp_path):
    server = start_server(*case.server_args)
    report_path = tmp_path / "r.json"
    series_path = tmp_path / "series.ndjson"
    evidence = ("--server-pid", str(server.proc.pid), "--server-metrics", server.url + "stats") if case.evidence \
        else ()
    run = pacer(*case.pacer_args, *evidence, "--plain", "--interval", "1s", "--timeseries", str(series_path), "--format", "json",
                "-o", str(report_path), "--latency", "--csv", str(tmp_path / "locust"), "--csv-format", "locust",
                "--log-requests", str(tmp_path / "requests.csv"), server.url + case.path, timeout=60)
    assert run.rc == 0, run
    report = run.report
    doc = json.loads(report_path.read_text())
    rows = [json.loads(line) for line in series_path.read_text().splitlines()]
    assert rows, run
    check_counts(run.stdout, doc, rows, report)
    check_durations_and_rates(run.stdout, doc, rows, report)
    if case.open_model:
        check_open_model(run.stdout, doc, rows)
    check_progress(run.stderr, rows, doc, case.open_model)
    check_widths(run.stdout)
    check_server(server, doc, report)
    check_locust_csv(tmp_path / "locust", doc)
    check_pacer_csv(pacer, report_path, tmp_path, doc)
    check_request_log(tmp_path / "requests.csv", doc)  # one row per request; they rebuild the percentiles
    check_client(run.stdout, doc, rows)
    check_server_lines(run.stdout, doc)
    if case.evidence:
        assert doc["server"]["pids"] and doc["server"]["scrapes"] > 0, doc["server"]
    check_keepalive(pacer, run.stdout, doc, rows, report_path, expected=case.path == "hangup")
    # Latency: the text's distribution is the JSON's, rounded as printed.
    for label, key in (("50%", "50"), ("99%", "99"), ("100%", "100")):
        printed = parse_duration(report.distribution[label])
        exact = doc["latency"]["percentiles_ns"][key] / 1e9
        close(printed, exact, 0.006 * exact + 1e-8, f"latency {label}")


SHARD_CASES = [
    Case("closed-shards", ("-t1", "-c8", "-d", "3s")),
    Case("open-shards", ("-t1", "-c8", "-R", "600", "-d", "3s"), open_model=True),
]


def run_outputs(pacer_bin, args: tuple[str, ...], tmp_path, tag: str):
    """Starts one pacer with every output on; returns (process, report path, series path)."""
    report_path = tmp_path / f"{tag}.json"
    series_path = tmp_path / f"{tag}.ndjson"
    proc = subprocess.Popen([pacer_bin, *args, "--plain", "--interval", "1s", "--timeseries", str(series_path),
                             "--format", "json", "-o", str(report_path), "--latency"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc, report_path, series_path


@pytest.mark.parametrize("case", SHARD_CASES, ids=[c.name for c in SHARD_CASES])
def test_shards_and_their_merge_agree_with_each_other_and_with_the_server(case, start_server, pacer_bin, tmp_path):
    """Two shards at once against one server: each shard's outputs agree with each
    other and are about the shard (its target is its share); `pacer merge` of the two
    gives the shards' sums in its text and JSON alike, and the server's count."""
    server = start_server(*case.server_args)
    procs = [run_outputs(pacer_bin, (*case.pacer_args, "--shard", f"{i}/2", server.url + case.path), tmp_path,
                         f"shard{i}") for i in range(2)]
    docs = []
    for proc, report_path, series_path in procs:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, f"{proc.args}\n{out}\n{err}"
        report = parse_report(out)
        doc = json.loads(report_path.read_text())
        rows = [json.loads(line) for line in series_path.read_text().splitlines()]
        check_counts(out, doc, rows, report)
        check_durations_and_rates(out, doc, rows, report)
        if case.open_model:
            check_open_model(out, doc, rows)
            whole = float(case.pacer_args[case.pacer_args.index("-R") + 1])
            close(doc["rates"]["target_per_s"], whole / 2, 0.01, "a shard's target is its share")
        check_progress(err, rows, doc, case.open_model)
        assert doc["config"]["connections"] == 4, doc["config"]
        docs.append(doc)

    merged = subprocess.run([pacer_bin, "merge", "--format", "json", *(str(p[1]) for p in procs)],
                            capture_output=True, text=True, timeout=60)
    assert merged.returncode == 0, merged.stderr
    mdoc = json.loads(merged.stdout)
    text = subprocess.run([pacer_bin, "merge", "--latency", *(str(p[1]) for p in procs)],
                          capture_output=True, text=True, timeout=60)
    assert text.returncode == 0, text.stderr
    mreport = parse_report(text.stdout)
    for key in ("responses", "requests_sent", "warmup_responses", "bytes_written", "length_mismatches"):
        assert mdoc["counts"][key] == sum(d["counts"][key] for d in docs), key
    for name in ERROR_CLASSES:
        assert mdoc["errors"][name] == sum(d["errors"][name] for d in docs) == mreport.errors.get(name, 0), name
    assert mreport.requests == mdoc["counts"]["responses"]
    close(mreport.requests_per_sec, mdoc["rates"]["completed_per_s"], 0.006, "merged text vs JSON req/s")
    if case.open_model:
        close(mdoc["rates"]["target_per_s"], sum(d["rates"]["target_per_s"] for d in docs), 0.01,
              "merged target is the shards' sum")
        m = text_field(unwrapped(text.stdout), r"^Rate:\s+target ([0-9.]+)/s, sent ([0-9.]+)/s")
        close(float(m.group(1)), mdoc["rates"]["target_per_s"], 0.006, "merged text target vs JSON")
        close(float(m.group(2)), mdoc["rates"]["sent_per_s"], 0.006, "merged text sent vs JSON")
    check_server(server, mdoc, mreport)
    check_endpoint_intervals(mdoc, mdoc["timeseries"])  # the merged series' endpoints, histograms merged
    check_ab_fields(text.stdout, mdoc)  # the merge's ab fields: the first shard's, counts summed
    assert mdoc["first_response"]["document_bytes"] == docs[0]["first_response"]["document_bytes"]
    assert mdoc["first_response"]["document_lengths_differ"] is False


def metric_values(page: str, name: str) -> dict[str, float]:
    """A /metrics page's samples of `name`: {labels text: value}."""
    return {m.group(1): float(m.group(2))
            for m in re.finditer(rf"^{name}(\{{[^}}]*\}}) (\S+)$", page, re.M)}


def test_prometheus_metrics_and_push_figures_agree_with_the_reports(start_server, free_port, tmp_path):
    """--web's /metrics (final values, while lingering) against the JSON report and the
    time series; the remote-write figures (to a port nothing listens on) in the text
    report, the JSON report and the stderr warning."""
    from webview import WebRun, request  # the web view's helpers (tests/e2e/webview.py)

    server = start_server()
    report_path, series_path = tmp_path / "r.json", tmp_path / "series.ndjson"
    with WebRun("-t1", "-c4", "-R", "300", "-d", "1500ms", "--plain", "--interval", "500ms", "--timeseries",
                str(series_path), "--format", "json", "-o", str(report_path), "--web", "127.0.0.1:0",
                "--web-linger", "5s", "--prometheus-remote-write", f"http://127.0.0.1:{free_port}/api/v1/write",
                "--prometheus-timeout", "300ms", "--run-id", "consistency", server.url + "fail/9") as run:
        deadline = time.monotonic() + 30
        while True:
            status, _, body = request(run.port, "GET", "/metrics")
            page = body.decode()
            if status == 200 and 'pacer_run_finished{run_id="consistency"} 1\n' in page:
                break
            assert time.monotonic() < deadline, page
            time.sleep(0.1)
        while "serving the final report" not in run.stderr:  # lingering: a Ctrl-C now ends the linger
            assert time.monotonic() < deadline, run.stderr
            time.sleep(0.05)
        run.proc.send_signal(signal.SIGINT)
        run.wait(30)
    doc = json.loads(report_path.read_text())
    rows = [json.loads(line) for line in series_path.read_text().splitlines()]
    label = '{run_id="consistency"}'
    assert metric_values(page, "pacer_responses_total")[label] == doc["counts"]["responses"] == \
        sum(r["completed"] for r in rows)
    assert metric_values(page, "pacer_requests_sent_total")[label] == doc["counts"]["requests_sent"]
    assert metric_values(page, "pacer_latency_seconds_count")[label] == doc["latency"]["count"]
    assert metric_values(page, "pacer_sent_bytes_total")[label] == doc["counts"]["bytes_written"] == \
        sum(r["bytes_written"] for r in rows)
    assert metric_values(page, "pacer_received_bytes_total")[label] == doc["counts"]["bytes_read"]
    for e in doc["endpoints"]:  # each endpoint's histograms, summed from the intervals, are its row's
        at = f'{{run_id="consistency",endpoint="{e["name"]}"}}'
        assert metric_values(page, "pacer_endpoint_latency_seconds_count")[at] == e["latency"]["count"], e["name"]
        assert metric_values(page, "pacer_endpoint_ttfb_seconds_count")[at] == e["ttfb"]["count"], e["name"]
    errors = metric_values(page, "pacer_errors_total")
    assert doc["errors"]["status"] > 0
    for error_class, count in doc["errors"].items():
        assert errors[f'{{run_id="consistency",class="{error_class}"}}'] == count, error_class
    codes = metric_values(page, "pacer_responses_by_code_total")
    for code, count in doc["status_codes"].items():
        assert codes[f'{{run_id="consistency",code="{code}",class="{code[0]}xx"}}'] == count, code
    pushed = doc["prometheus_remote_write"]
    assert pushed["sent"] == 0 and pushed["pushes"] == pushed["dropped"] + pushed["failed"] > 0, pushed
    line = (rf"Prometheus remote write: {pushed['pushes']} pushes, 0 sent(, {pushed['retries']} retries)?; warning: "
            rf"{pushed['dropped']} dropped \(queue full\), {pushed['failed']} failed")
    assert re.search(line, run.stdout), run.stdout
    assert re.search("pacer: warning: " + line, run.stderr), run.stderr


def test_connection_path_figures_agree_in_text_json_and_series(start_server, pacer, tmp_path):
    """Issue 33: through a proxy's CONNECT tunnel (squid; without it, direct) and from
    two --bind addresses, the text's Proxy/Tunnel/Source/TLS lines and Errors (proxy,
    ports) say what the JSON and the time series say."""
    from proxies import SQUID, Squid, have
    from test_tls import make_cert

    certs = make_cert(tmp_path / "certs")
    server = start_server("--tls", str(certs / "cert.pem"), str(certs / "key.pem"))
    squid = Squid() if have(SQUID) else None
    try:
        proxy_args = ("-x", squid.url) if squid else ()
        series_path = tmp_path / "series.ndjson"
        run = pacer(*proxy_args, "--cacert", str(certs / "cert.pem"), "-B", "127.0.0.2-127.0.0.3", "-t2", "-c4",
                    "-d", "1s", "--interval", "500ms", "--timeseries", str(series_path), "--format", "json", "-o",
                    str(tmp_path / "r.json"), f"https://127.0.0.1:{server.port}/", timeout=60)
        assert run.rc == 0, run
        doc = json.loads((tmp_path / "r.json").read_text())
        rows = [json.loads(line) for line in series_path.read_text().splitlines()]
        report = run.report
        text = unwrapped(run.stdout)
        check_counts(run.stdout, doc, rows, report)
        assert report.errors["ports"] == doc["errors"]["ports"] == 0
        path = doc["connection_path"]
        tls = path["tls"]
        m = text_field(text, r"^TLS:\s+(\S+), (\S+), ALPN (\S+), (\d+) of (\d+) resumed$")
        assert (m[1], m[2], m[3]) == (tls["protocol"], tls["cipher"], tls["alpn"])
        assert (int(m[4]), int(m[5])) == (tls["resumed"], tls["handshakes"]) == (doc["counts"]["tls_resumed"],
                                                                                   doc["counts"]["tls_handshakes"])
        assert int(text_field(text, r"^Source:\s+(\d+) local addresses \(--bind\)$")[1]) == path["bind_addresses"] == 2
        if squid:
            assert report.errors["proxy"] == doc["errors"]["proxy"] == 0
            assert text_field(text, r"^Proxy:\s+(\S+) \(from --proxy\), CONNECT tunnel$")[1] == path["proxy"]["url"]
            tunnels = int(text_field(text, r"^Tunnel:\s+.*\((\d+) tunnels\)$")[1])
            assert tunnels == doc["tunnel_time"]["count"] == doc["counts"]["connects"] == 4
            for label, key in (("avg", "mean_ns"), ("max", "max_ns")):
                printed = parse_duration(text_field(text, rf"^Tunnel:.*?{label} ([0-9.]+\w+)")[1])
                exact = doc["tunnel_time"][key] / 1e9
                close(printed, exact, 0.006 * exact + 1e-8, f"tunnel {label}")
    finally:
        if squid:
            squid.stop()


def test_a_capacity_sweep_agrees_in_its_table_json_page_and_each_steps_run(start_server, pacer, tmp_path):
    """Issue 41: a sweep's figures, one step per row: the text table, the search's JSON,
    each step's own run report inside it, the page's embedded document and `pacer
    report`'s text; and every response the steps recorded is one the server answered."""
    server = start_server()
    out, page = tmp_path / "sweep.json", tmp_path / "sweep.html"
    run = pacer("--sweep", "100,200", "--capacity", "p99<=1s,errors<=1%", "-c4", "-t2", "-d", "500ms", "--warmup",
                "200ms", "--format", "json", "-o", str(out), "--html", str(page), server.url)
    assert run.rc == 0, run
    doc = json.loads(out.read_text())
    rows = [line.split() for line in run.stdout.splitlines() if re.match(r"^\s+\d+\s+\d+\s+\d+\.\d", line)]
    assert len(rows) == len(doc["steps"]) == 2
    recorded = 0
    for row, step in zip(rows, doc["steps"]):
        r = step["run"]
        assert int(row[0]) == step["index"] and float(row[1]) == step["target_rate_per_s"] == r["config"]["rate_per_s"]
        assert r["rates"]["target_per_s"] == pytest.approx(step["target_rate_per_s"], rel=1e-9)
        assert float(row[2]) == pytest.approx(step["achieved_rate_per_s"], abs=0.05)
        assert step["achieved_rate_per_s"] == pytest.approx(r["rates"]["completed_per_s"], rel=1e-9)
        for cell, key, q in zip(row[3:7], ("p50", "p90", "p99", "max"), ("50", "90", "99", "100")):
            assert step["latency_ns"][key] == r["latency"]["percentiles_ns"][q]
            assert parse_duration(cell) == pytest.approx(step["latency_ns"][key] / 1e9, rel=0.01, abs=1e-5)
        assert float(row[7].rstrip("%")) == pytest.approx(step["error_rate"] * 100, abs=0.005)
        assert step["error_rate"] == r["error_rate"] and step["requests"] >= r["counts"]["responses"]
        assert row[8] == step["verdict"]
        recorded += r["counts"]["responses"] + r["counts"]["warmup_responses"]
    m = re.search(r'<script type="application/json" id="pacer-data">(.*?)</script>', page.read_text(), re.S)
    assert m and json.loads(m.group(1)) == doc
    again = subprocess.run([PACER_BIN, "report", str(out)],
                           capture_output=True, text=True, timeout=60)
    assert again.returncode == 0 and again.stdout == run.stdout, again.stderr
    assert server.wait_for("requests_answered", recorded) == recorded
