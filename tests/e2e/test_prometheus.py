"""Prometheus exports (issue 29, docs/prometheus.md) against a real Prometheus
(prometheus_peer.py, one per module; the stop-halfway test starts its own): the
web view's /metrics scraped and checked by promtool, remote writes from two
shards summed in PromQL against `pacer merge`, a receiver that dies mid-run, and
every PromQL expression of deploy/grafana/pacer-dashboard.json."""

from __future__ import annotations

import json
import subprocess
import threading
import time
import urllib.request

import jsonschema
import pytest

from conftest import PACER_BIN, REPO, run_pacer
from prometheus_peer import PROMTOOL, Prometheus, free_port

pytestmark = pytest.mark.tsan

LOAD = ["-t1", "-c4", "-R", "300", "--plain", "--interval", "500ms"]
DASHBOARD = REPO / "deploy" / "grafana" / "pacer-dashboard.json"
SCHEMA = json.loads((REPO / "docs" / "report.schema.json").read_text())


@pytest.fixture(scope="module")
def prometheus():
    web_port = free_port()  # the scrape target: the runs below bind their --web here
    prom = Prometheus(web_port)
    try:
        prom.wait_for_target()
        yield prom
    finally:
        prom.stop()


def targets_file(tmp_path, server) -> str:
    path = tmp_path / "targets.txt"
    path.write_text(f"GET {server.url}\n\nGET {server.url}fail/7\n")  # two endpoints; every 7th of one is a 500
    return str(path)


def fetch(url: str, accept: str | None = None) -> tuple[str, str]:
    req = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    with urllib.request.urlopen(req, timeout=5) as r:
        return r.headers["Content-Type"], r.read().decode()


def bucket_index(bounds: list[float], seconds: float) -> int:
    """The Prometheus bucket (le) a value falls in: the first bound >= it."""
    return next((i for i, b in enumerate(bounds) if seconds <= b), len(bounds))


def test_scrape_equals_the_json_report_and_promtool_accepts_the_exposition(prometheus, server, tmp_path):
    run_id = "scrape-e2e"
    report_path = tmp_path / "report.json"
    pages: dict[str, tuple[str, str]] = {}
    proc = subprocess.Popen(
        [PACER_BIN, *LOAD, "-d", "2s", "--targets", targets_file(tmp_path, server), "--web",
         f"127.0.0.1:{prometheus.scrape_port}", "--web-linger", "1.5s", "--run-id", run_id, "--format", "json",
         "-o", str(report_path)],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        # While it lingers with its final figures: both formats, as a scraper asks.
        base = f"http://127.0.0.1:{prometheus.scrape_port}/metrics"
        assert prometheus.wait_for(f'pacer_run_finished{{run_id="{run_id}"}} == 1', timeout=20), \
            prometheus.log_text()
        pages["text"] = fetch(base)
        pages["openmetrics"] = fetch(base, "application/openmetrics-text;version=1.0.0,text/plain;q=0.5")
        _, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)
    assert proc.returncode == 0, stderr
    report = json.loads(report_path.read_text())

    content_type, text = pages["text"]
    assert content_type.startswith("text/plain; version=0.0.4")
    check = subprocess.run([PROMTOOL, "check", "metrics"], input=text.encode(), capture_output=True, timeout=30)
    assert check.returncode == 0, check.stdout.decode() + check.stderr.decode()
    content_type, om = pages["openmetrics"]
    assert content_type.startswith("application/openmetrics-text; version=1.0.0")
    assert om.endswith("# EOF\n") and "# TYPE pacer_responses counter\n" in om

    # Scraped series go stale once the view is gone: the last value in the window is the final one.
    def final(expr: str) -> float:
        return prometheus.value(f'last_over_time({expr}{{run_id="{run_id}"}}[5m])')

    assert final("pacer_responses_total") == report["counts"]["responses"]
    assert final("pacer_requests_sent_total") == report["counts"]["requests_sent"]
    assert report["errors"]["status"] > 0
    for error_class, count in report["errors"].items():
        value = prometheus.value(f'last_over_time(pacer_errors_total{{run_id="{run_id}",class="{error_class}"}}[5m])')
        assert value == count, error_class
    assert len(report["endpoints"]) == 2
    for endpoint in report["endpoints"]:
        sel = f'run_id="{run_id}",endpoint="{endpoint["name"]}"'
        assert prometheus.value(f"last_over_time(pacer_endpoint_responses_total{{{sel}}}[5m])") == endpoint["responses"]
        assert prometheus.value(f"last_over_time(pacer_endpoint_latency_seconds_count{{{sel}}}[5m])") == \
            endpoint["latency"]["count"]
    for code, count in report["status_codes"].items():
        value = prometheus.value(f'last_over_time(pacer_responses_by_code_total{{run_id="{run_id}",code="{code}"}}[5m])')
        assert value == count, code
    # The p99 from the buckets: within one bucket of pacer's exact one.
    p99_s = prometheus.value(
        f'histogram_quantile(0.99, sum by (le) (last_over_time(pacer_latency_seconds_bucket{{run_id="{run_id}"}}[5m])))')
    bounds = sorted(float(r["metric"]["le"]) for r in prometheus.query(
        f'last_over_time(pacer_latency_seconds_bucket{{run_id="{run_id}"}}[5m])') if r["metric"]["le"] != "+Inf")
    assert len(bounds) == 24 and bounds[0] == 1e-06 and 60 <= bounds[-1] < 60.1
    exact_s = report["latency"]["percentiles_ns"]["99"] / 1e9
    assert abs(bucket_index(bounds, p99_s) - bucket_index(bounds, exact_s)) <= 1, (p99_s, exact_s)
    assert final("pacer_latency_seconds_count") == report["latency"]["count"]


def test_two_shards_pushed_sum_to_pacer_merge_and_the_dashboard_queries_return_data(prometheus, server, tmp_path):
    run_id = "rw-e2e"
    reports = [tmp_path / f"shard{i}.json" for i in range(2)]
    procs = [subprocess.Popen(
        [PACER_BIN, *LOAD, "-d", "2s", "--shard", f"{i}/2", "--targets", targets_file(tmp_path, server),
         "--prometheus-remote-write", prometheus.remote_write_url, "--run-id", run_id,
         "--prometheus-label", "team=e2e", "--format", "json", "-o", str(reports[i])],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for i in range(2)]
    try:
        outcomes = [p.communicate(timeout=40) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate(timeout=10)
    ended = time.time()
    for p, (_, err) in zip(procs, outcomes):
        assert p.returncode == 0, err.decode()
    merged = run_pacer("merge", "--format", "json", *map(str, reports))
    assert merged.rc == 0, merged
    merge = json.loads(merged.stdout)
    for path in reports:
        pushed = json.loads(path.read_text())["prometheus_remote_write"]
        assert pushed["sent"] == pushed["pushes"] >= 5 and pushed["dropped"] == pushed["failed"] == 0, pushed

    sel = f'run_id="{run_id}"'
    per_shard = prometheus.query(f"pacer_responses_total{{{sel}}}")
    assert sorted(r["metric"]["shard"] for r in per_shard) == ["0", "1"]
    assert all(r["metric"]["team"] == "e2e" for r in per_shard)
    assert prometheus.value(f"sum without (shard) (pacer_responses_total{{{sel}}})") == merge["counts"]["responses"]
    assert prometheus.value(f"sum(pacer_requests_sent_total{{{sel}}})") == merge["counts"]["requests_sent"]
    assert prometheus.value(f'sum(pacer_errors_total{{{sel},class="status"}})') == merge["errors"]["status"]
    assert prometheus.value(f"sum(pacer_latency_seconds_count{{{sel}}})") == merge["latency"]["count"]

    # The dashboard: valid JSON, every expression parses and returns data for this run.
    dashboard = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for panel in dashboard["panels"] for t in panel["targets"]]
    assert len(exprs) >= 10
    for expr in exprs:
        concrete = expr.replace("$run_id", run_id).replace("$__rate_interval", "5s")
        assert prometheus.query(concrete, at=ended), f"no data: {concrete}"


def test_a_receiver_stopped_halfway_leaves_the_figures_alone_and_drops_are_reported(server, tmp_path):
    prom = Prometheus(free_port())
    try:
        run_id = "halfway-e2e"
        report_path = tmp_path / "report.json"
        proc = subprocess.Popen(
            [PACER_BIN, "-t1", "-c4", "-R", "300", "--plain", "--interval", "100ms", "-d", "3s", server.url,
             "--prometheus-remote-write", prom.remote_write_url, "--run-id", run_id, "--prometheus-timeout", "500ms",
             "--format", "json", "-o", str(report_path)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            assert prom.wait_for(f'pacer_requests_sent_total{{run_id="{run_id}"}}', timeout=10), prom.log_text()
            prom.stop()  # halfway: the rest of the pushes meet a closed port
            _, stderr = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate(timeout=10)
    finally:
        prom.stop()
    assert proc.returncode == 0, stderr.decode()
    report = json.loads(report_path.read_text())
    jsonschema.validate(report, SCHEMA)
    pushed = report["prometheus_remote_write"]
    assert pushed["sent"] >= 1
    assert pushed["dropped"] > 0, pushed  # the queue filled while the receiver was gone
    assert pushed["sent"] + pushed["dropped"] + pushed["failed"] == pushed["pushes"], pushed
    assert "warning: Prometheus remote write:" in stderr.decode() and "dropped (queue full)" in stderr.decode()
    # The load did not notice: the schedule was kept and every figure adds up.
    counts = report["counts"]
    assert counts["requests_sent"] >= 0.95 * counts["scheduled"]
    assert counts["responses"] == report["latency"]["count"]
    assert report["errors"]["unsent"] == 0 and report["errors"]["timeout"] == 0


def test_status_codes_bytes_ttfb_and_connects_move_while_the_run_goes(server):
    """The intervals carry them (issue 29): a scrape during the run, before the
    final report, already has every one of them."""
    import re

    from webview import WebRun, request

    with WebRun("-t1", "-c2", "-d", "4s", "--interval", "200ms", "--web", "127.0.0.1:0", server.url) as web:
        deadline = time.monotonic() + 10
        text = ""
        while time.monotonic() < deadline:
            status, _, body = request(web.port, "GET", "/metrics")
            text = body.decode()
            if status == 200 and re.search(r"^pacer_ttfb_seconds_count\{[^}]*\} [1-9]", text, re.M):
                break
            time.sleep(0.05)

        def value(pattern: str) -> float:
            m = re.search(pattern + r"\{[^}]*\} (\S+)$", text, re.M)
            assert m, (pattern, text[:2000])
            return float(m.group(1))

        assert value("pacer_run_finished") == 0, "scraped during the run"
        assert value("pacer_ttfb_seconds_count") > 0
        assert value("pacer_connect_seconds_count") >= 1
        assert value("pacer_received_bytes_total") > 0
        assert value("pacer_sent_bytes_total") > 0
        assert re.search(r'^pacer_responses_by_code_total\{[^}]*code="200"[^}]*\} [1-9]', text, re.M), text[:2000]
        # Each endpoint's latency histogram moves with the intervals too: its count is its responses so far.
        endpoint = re.search(r'^pacer_endpoint_latency_seconds_count\{[^}]*endpoint="GET /"[^}]*\} (\S+)$', text, re.M)
        assert endpoint, text[:3000]
        responses = re.search(r'^pacer_endpoint_responses_total\{[^}]*endpoint="GET /"[^}]*\} (\S+)$', text, re.M)
        assert responses and float(endpoint.group(1)) == float(responses.group(1)) > 0
        ttfb = re.search(r'^pacer_endpoint_ttfb_seconds_count\{[^}]*endpoint="GET /"[^}]*\} (\S+)$', text, re.M)
        assert ttfb and float(ttfb.group(1)) == float(responses.group(1)), text[:3000]
        web.close()
