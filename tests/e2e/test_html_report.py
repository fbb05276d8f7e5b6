"""The HTML report (--html, pacer report), its comparison of two runs (--compare,
--max-regression) and the CSV files (--csv), opened in headless Chromium
(tests/e2e/browser.py): no console error, no request but the file itself, every chart
drawn, the page's figures equal to the JSON report's. Screenshots are kept under
build/<preset>/e2e-artifacts/ (PACER_UPDATE_DOCS=1 also refreshes docs/report.png).
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import jsonschema
import pytest

from browser import CHROMIUM, Browser, chart_state
from conftest import PACER_BIN, REPO, run_pacer

ARTIFACTS = Path(PACER_BIN).resolve().parent / "e2e-artifacts"

pytestmark = pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK), reason=f"{CHROMIUM} missing: scripts/setup.sh")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with Browser(tmp_path_factory.mktemp("chromium-profile")) as b:
        yield b


def embedded_json(html_path: Path) -> dict:
    """The data the page draws: the JSON in <script id="pacer-data"> (\\u003c is JSON)."""
    text = html_path.read_text()
    m = re.search(r'<script type="application/json" id="pacer-data">(.*?)</script>', text, re.S)
    assert m, "no pacer-data element in the page"
    return json.loads(m.group(1))


def open_report(browser: Browser, path: Path, shot_name: str):
    page = browser.open(path.resolve().as_uri())
    page.wait_for("document.documentElement.dataset.ready === 'true' || !!document.documentElement.dataset.error")
    assert page.evaluate("document.documentElement.dataset.error || ''") == ""
    assert page.console_errors == []
    # The page asks for nothing but itself: no CDN, no font, no other host.
    assert page.requests == [path.resolve().as_uri()]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(ARTIFACTS / shot_name)
    return page




def figures(page) -> dict[str, str]:
    return dict(page.evaluate(
        "Array.from(document.querySelectorAll('[data-figure]')).map(e => [e.dataset.figure, e.dataset.value || ''])"))


def assert_figures_match(page, doc: dict) -> None:
    shown = figures(page)
    assert int(shown["requests"]) == doc["counts"]["responses"]
    assert float(shown["rps"]) == pytest.approx(doc["rates"]["completed_per_s"], rel=1e-12)
    assert int(shown["errors"]) == sum(doc["errors"].values())
    for name, key in (("p50", "50"), ("p99", "99"), ("max", "100")):
        assert int(shown[name]) == doc["latency"]["percentiles_ns"][key], name
    if doc["rates"]["target_per_s"] is not None:
        assert float(shown["target_rps"]) == pytest.approx(doc["rates"]["target_per_s"], rel=1e-12)
        assert float(shown["sent_rps"]) == pytest.approx(doc["rates"]["sent_per_s"], rel=1e-12)


# The page decodes the V2 histograms itself: its percentiles must be the report's.
DECODED_PERCENTILES = """(async () => {
  const r = JSON.parse(document.getElementById('pacer-data').textContent);
  const h = await PacerCharts.decodeHistogram(r.latency.histogram);
  h.max = r.latency.max_ns; h.min = r.latency.min_ns;
  const out = {total: h.total};
  for (const k of Object.keys(r.latency.percentiles_ns)) out[k] = h.valueAtPercentile(Number(k));
  return JSON.stringify(out);
})()"""


def open_model_run(out: Path, *serve_args: str, slo: str = "p99<10s") -> dict:
    """An open-model run against /fail/10 (10% status 500) with every output at once."""
    server = subprocess.Popen([PACER_BIN, "serve", "--listen", "127.0.0.1:0", "-t", "1", *serve_args],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    try:
        line = server.stdout.readline().decode()
        url = re.search(r"(http://127\.0\.0\.1:\d+/)", line).group(1)
        # Run inside `out` with relative names: the page's header shows a readable command.
        run = subprocess.run([PACER_BIN, "-t1", "-c8", "-d3s", "-R", "300", "--timeout", "400ms", "--interval",
                              "500ms", "--format", "json", "-o", "run.json", "--html", "run.html", "--csv", "run",
                              "--slo", slo, url + "fail/10"], cwd=out, capture_output=True, text=True, timeout=60)
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert run.returncode in (0, 3), (run.stdout, run.stderr)
    return json.loads((out / "run.json").read_text())


@pytest.fixture(scope="module")
def stalled_run(tmp_path_factory):
    """Through a 1 s server freeze: timeouts (censored samples), unsent arrivals."""
    out = tmp_path_factory.mktemp("stalled")
    return out, open_model_run(out, "--freeze-at", "800ms", "--freeze-for", "1s", slo="p99<50ms")


@pytest.fixture(scope="module")
def calm_run(tmp_path_factory):
    """The same run with no freeze: the baseline of the comparison."""
    out = tmp_path_factory.mktemp("calm")
    return out, open_model_run(out)


@pytest.mark.no_sanitizer
def test_html_report_of_a_run_draws_every_chart_and_the_reports_figures(browser, stalled_run):
    out, doc = stalled_run
    assert doc["errors"]["timeout"] > 0 and doc["latency"]["censored_count"] > 0, "the freeze made no timeout"
    assert embedded_json(out / "run.html") == doc  # --html embeds the JSON report itself
    jsonschema.validate(doc, json.loads((REPO / "docs" / "report.schema.json").read_text()))
    page = open_report(browser, out / "run.html", "report.png")
    assert_figures_match(page, doc)
    charts = chart_state(page)
    titles = [c["title"] for c in charts]
    for expected in ("Requests per second", "Latency per interval (log)", "Errors per second, by class",
                     "Connections", "Latency by percentile"):
        assert expected in titles
    for c in charts:
        assert c["inked"] > 1000 and c["hasData"], c
        if c["kind"] == "time":
            assert c["points"] == len(doc["timeseries"]), c
    rps = next(c for c in charts if c["title"] == "Requests per second")
    assert rps["series"] == ["achieved", "target", "sent"]  # the open model's three
    errors = next(c for c in charts if c["title"] == "Errors per second, by class")
    assert "timeout" in errors["series"] and "status ≥ 400 (non-2xx/3xx)" in errors["series"]
    dist = next(c for c in charts if c["title"] == "Latency by percentile")
    assert {"latency", "service time", "queue delay", "latency: censored (lower bound)"} <= set(dist["series"])
    decoded = json.loads(page.evaluate(DECODED_PERCENTILES))
    assert decoded.pop("total") == doc["latency"]["count"]
    assert {k: v for k, v in decoded.items()} == doc["latency"]["percentiles_ns"]
    # The header: the command line and the verdict, naming the breach.
    assert "--html" in page.evaluate("document.querySelector('[data-field=command_line]').textContent")
    assert doc["gates"]["failures"], "the freeze did not break the SLO"
    verdict = page.evaluate("document.querySelector('[data-field=verdict]').textContent")
    assert verdict.startswith("gate failed: ") and doc["gates"]["failures"][0] in verdict
    status_rows = page.evaluate("Array.from(document.querySelectorAll('#tables table')[0].tBodies[0].rows)"
                                ".map(r => [r.cells[0].textContent, r.cells[1].dataset.value])")
    assert {code: int(n) for code, n in status_rows} == doc["status_codes"]


@pytest.mark.no_sanitizer
def test_html_report_prints(browser, stalled_run):
    out, _ = stalled_run
    page = open_report(browser, out / "run.html", "report-print.png")
    page.set_media("print")
    assert page.evaluate("getComputedStyle(document.querySelector('.pc-chart')).breakInside") == "avoid"
    pdf = page.pdf(ARTIFACTS / "report.pdf")
    assert pdf.startswith(b"%PDF") and len(pdf) > 20_000
    if os.environ.get("PACER_UPDATE_DOCS") == "1":
        shutil.copy(ARTIFACTS / "report.png", REPO / "docs" / "report.png")


def test_csv_files_parse_and_add_up_to_the_json_report(stalled_run):
    out, doc = stalled_run
    with open(out / "run_stats.csv", newline="") as f:
        stats = list(csv.DictReader(f))
    assert [r["name"] for r in stats] == [e["name"] for e in doc["endpoints"]] + ["Aggregated"]
    for row, e in zip(stats, doc["endpoints"]):
        assert int(row["failures"]) == sum(e["errors"].values())
        assert round(float(row["p99_ms"]) * 1e6) == e["latency"]["percentiles_ns"]["99"]
    total = stats[-1]
    errors = sum(doc["errors"].values())
    assert int(total["failures"]) == errors
    assert int(total["requests"]) == doc["counts"]["responses"] + errors - doc["errors"]["status"]
    for col, key in (("p50_ms", "50"), ("p99_ms", "99"), ("p100_ms", "100"), ("max_ms", "100")):
        assert round(float(total[col]) * 1e6) == doc["latency"]["percentiles_ns"][key], col
    assert round(float(total["min_ms"]) * 1e6) == doc["latency"]["min_ns"]
    assert float(total["mean_ms"]) * 1e6 == pytest.approx(doc["latency"]["mean_ns"], rel=1e-6)
    with open(out / "run_history.csv", newline="") as f:
        history = list(csv.DictReader(f))
    assert len(history) == len(doc["timeseries"])
    assert sum(int(r["completed"]) for r in history) == doc["counts"]["responses"]
    assert sum(int(r["errors_timeout"]) for r in history) == doc["errors"]["timeout"]
    assert sum(float(r["duration_s"]) for r in history) == pytest.approx(doc["duration_s"], abs=1e-6)
    with open(out / "run_failures.csv", newline="") as f:
        failures = list(csv.DictReader(f))
    aggregated = [r for r in failures if r["name"] == "Aggregated"]
    assert {r["class"]: int(r["count"]) for r in aggregated} == {k: n for k, n in doc["errors"].items() if n}
    assert next(r for r in aggregated if r["class"] == "status")["first_reason"].startswith("HTTP 500 x")
    for e in doc["endpoints"]:
        mine = {r["class"]: int(r["count"]) for r in failures if r["name"] == e["name"]}
        assert mine == {k: n for k, n in e["errors"].items() if n}


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    """Three shards of one run, at once, each keeping its time series."""
    out = tmp_path_factory.mktemp("shards")
    server = subprocess.Popen([PACER_BIN, "serve", "--listen", "127.0.0.1:0", "-t", "1"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    try:
        url = re.search(r"(http://127\.0\.0\.1:\d+/)", server.stdout.readline().decode()).group(1)
        procs = [subprocess.Popen([PACER_BIN, "-t1", "-c3", "-d2s", "-R", "300", "--shard", f"{i}/3", "--interval", "500ms",
                                   "--timeseries", str(out / f"s{i}.ndjson"), "--format", "json",
                                   "-o", str(out / f"s{i}.json"), url],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for i in range(3)]
        for p in procs:
            assert p.wait(timeout=60) == 0
    finally:
        server.terminate()
        server.wait(timeout=10)
    return out, [out / f"s{i}.json" for i in range(3)]


@pytest.mark.no_sanitizer
def test_report_of_three_shards_draws_what_their_merge_draws(browser, shards):
    out, files = shards
    merged = run_pacer("merge", *map(str, files), "--format", "json", "-o", str(out / "merged.json"))
    assert merged.rc == 0, merged
    direct = run_pacer("report", *map(str, files), "-o", str(out / "direct.html"))
    assert direct.rc == 0, direct
    via_merge = run_pacer("report", str(out / "merged.json"), "-o", str(out / "via-merge.html"))
    assert via_merge.rc == 0, via_merge
    merged_doc = json.loads((out / "merged.json").read_text())
    assert len(merged_doc["timeseries"]) >= 4
    jsonschema.validate(merged_doc, json.loads((REPO / "docs" / "report.schema.json").read_text()))
    assert sum(p["completed"] for p in merged_doc["timeseries"]) == merged_doc["counts"]["responses"]
    assert embedded_json(out / "direct.html") == merged_doc
    a = open_report(browser, out / "direct.html", "report-shards.png")
    b = open_report(browser, out / "via-merge.html", "report-merged.png")
    assert figures(a) == figures(b)
    assert_figures_match(a, merged_doc)
    assert [(c["title"], c["points"]) for c in chart_state(a)] == [(c["title"], c["points"]) for c in chart_state(b)]


@pytest.mark.no_sanitizer
def test_compare_of_a_run_with_itself_is_zero_and_exit_0(browser, shards):
    out, files = shards
    run = run_pacer("report", str(files[0]), str(files[0]), "--compare", "--max-regression", "p99=0%,rps=0%",
                    "-o", str(out / "same.html"))
    assert run.rc == 0, run
    changes = re.findall(r"^  (latency p99|requests/s)\s+\S+\s+\S+\s+(\S+)$", run.stdout, re.M)
    assert changes == [("requests/s", "+0.00%"), ("latency p99", "+0.00%")], run.stdout
    page = open_report(browser, out / "same.html", "compare-same.png")
    rows = page.evaluate("Array.from(document.querySelectorAll('tr[data-figure]')).map(r => r.dataset.change)")
    assert rows and all(float(c) == 0 for c in rows)


@pytest.mark.no_sanitizer
def test_compare_with_a_frozen_run_shows_the_regression_and_exits_3(browser, calm_run, stalled_run, tmp_path):
    base_dir, base = calm_run
    cand_dir, cand = stalled_run
    run = run_pacer("report", str(base_dir / "run.json"), str(cand_dir / "run.json"), "--compare",
                    "--max-regression", "p99=10%,rps=50%", "-o", str(tmp_path / "diff.html"))
    assert run.rc == 3, run
    assert "regression beyond --max-regression: p99 (bound 10%)" in run.stderr, run.stderr
    assert re.search(r"--max-regression p99=10%: \+[0-9.]+% \(higher\): REGRESSION", run.stdout), run.stdout
    assert re.search(r"--max-regression rps=50%: [-+][0-9.]+% \(lower\): ok", run.stdout), run.stdout
    page = open_report(browser, tmp_path / "diff.html", "compare-regression.png")
    p99 = page.evaluate("document.querySelector('tr[data-figure=p99]').dataset.change")
    expected = (cand["latency"]["percentiles_ns"]["99"] - base["latency"]["percentiles_ns"]["99"]) / \
        base["latency"]["percentiles_ns"]["99"]
    assert float(p99) == pytest.approx(expected, rel=1e-9) and float(p99) > 0.1
    assert "regression: p99" in page.evaluate("document.querySelector('[data-field=verdict]').textContent")
    charts = chart_state(page)
    assert [c["title"] for c in charts] == ["Latency by percentile", "Requests per second",
                                            "Latency p99 per interval (log)"]
    assert all(c["inked"] > 1000 and c["hasData"] for c in charts), charts
    assert all(c["series"][:2] == ["baseline", "candidate"] for c in charts), charts


@pytest.mark.no_sanitizer
def test_the_client_chart_leaves_out_the_drains_instant(browser, calm_run):
    """Issue 43 (15): the drain's record (microseconds after -d's end) gave a worker that
    never waited in it busy 1.0, and the client chart ended in a spike to 100 %. A share
    over a window too short to measure is null in the series and a gap in the chart."""
    out, doc = calm_run
    ts = doc["timeseries"]
    drain = ts[-1]
    assert drain.get("drain") and drain["duration_s"] < 0.01, drain
    assert [w["busy"] for w in drain["client"]["workers"]] == [None] and drain["client"]["cpu_share"] is None, drain
    assert all(w["busy"] is not None and p["client"]["cpu_share"] is not None
               for p in ts if p["duration_s"] >= 0.01 for w in p["client"]["workers"]), ts
    page = open_report(browser, out / "run.html", "report-calm.png")
    data = json.loads(page.evaluate(
        "JSON.stringify(PacerCharts.charts.find(c => c.title.startsWith('The client')).uplot.data)"))
    shares = data[1:]  # worker 1 busy, process CPU
    assert len(shares) == 2 and all(len(s) == len(ts) for s in shares), data
    assert all(s[-1] is None for s in shares), data  # the drain: a gap, not 100 % (or 0)
    assert all(v is not None for s in shares for v, p in zip(s, ts) if p["duration_s"] >= 0.01), data


@pytest.mark.no_sanitizer
def test_endpoints_table_is_drawn_and_sorts(browser, shards, tmp_path):
    _, files = shards
    doc = json.loads(files[0].read_text())
    # Per-name statistics as the targets work adds them (endpoints[] with V2 histograms).
    def endpoint(name, responses, status_errors):
        e = json.loads(json.dumps(doc["endpoints"][0]))  # the run's own, in the schema's shape
        e.update(name=name, requests_sent=responses + 1, responses=responses, non_2xx_3xx=status_errors,
                 completed_per_s=responses / 2)
        e["errors"] = {k: 0 for k in e["errors"]} | {"status": status_errors}
        e["failed"] = status_errors  # the requests that failed, as the report counts them (issue 31)
        e["status_errors"] = {"500": status_errors} if status_errors else {}  # errors.status by code
        return e
    doc["endpoints"] = [endpoint("GET /a", 10, 1), endpoint("GET /b", 30, 0), endpoint("POST /c", 20, 5)]
    (tmp_path / "ep.json").write_text(json.dumps(doc))
    run = run_pacer("report", str(tmp_path / "ep.json"), "-o", str(tmp_path / "ep.html"), "--csv", str(tmp_path / "ep"))
    assert run.rc == 0, run
    page = open_report(browser, tmp_path / "ep.html", "report-endpoints.png")
    names = "Array.from(document.querySelectorAll('#endpoints-table tbody tr')).map(r => r.cells[0].textContent)"
    assert page.evaluate(names) == ["GET /a", "GET /b", "POST /c"]
    page.evaluate("document.querySelectorAll('#endpoints-table th')[2].click()")  # responses, descending
    assert page.evaluate(names) == ["GET /b", "POST /c", "GET /a"]
    page.evaluate("document.querySelectorAll('#endpoints-table th')[2].click()")  # again: ascending
    assert page.evaluate(names) == ["GET /a", "POST /c", "GET /b"]
    page.evaluate("document.querySelectorAll('#endpoints-table th')[0].click()")  # by name
    assert page.evaluate(names) == ["GET /a", "GET /b", "POST /c"]
    p99 = "Array.from(document.querySelectorAll('#endpoints-table tbody tr')).map(r => r.cells[8].dataset.value)"
    assert page.evaluate(p99) == [str(doc["latency"]["percentiles_ns"]["99"])] * 3
    with open(tmp_path / "ep_stats.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["name"] for r in rows] == ["GET /a", "GET /b", "POST /c", "Aggregated"]
    assert [int(r["failures"]) for r in rows[:3]] == [1, 0, 5]


@pytest.mark.tsan
def test_html_is_written_for_an_interrupted_run(tmp_path, server):
    proc = subprocess.Popen([PACER_BIN, "-t1", "-c2", "-d", "20s", "--html", str(tmp_path / "partial.html"),
                             server.url], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    server.wait_for("requests_answered", 200, timeout=10)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=20)
    assert proc.returncode == 130
    doc = embedded_json(tmp_path / "partial.html")
    assert doc["interrupted"] is True and doc["counts"]["responses"] > 0
    assert sum(p["completed"] for p in doc["timeseries"]) == doc["counts"]["responses"]


@pytest.mark.tsan
@pytest.mark.parametrize("args, message", [
    (["report", "missing.json", "-o", "x.html"], "cannot read 'missing.json'"),
    (["report", "NOTREPORT", "-o", "x.html"], "not a pacer report"),
    (["report", "NOTREPORT", "NOTREPORT", "--compare"], "not a pacer report"),
    (["report", "a.json", "b.json", "--compare", "--max-regression", "p99=10"], "--max-regression: 'p99=10'"),
    (["report", "a.json", "b.json", "--compare", "--max-regression", "p42=1%"], "unknown figure 'p42'"),
    (["report", "a.json", "--compare", "-o", "x.html"], "give two reports"),
    (["report", "a.json", "--max-regression", "p99=1%", "-o", "x.html"], "needs --compare"),
    (["report", "a.json"], "a.json"),
    (["report", "-o", "x.html"], "at least one JSON report"),
    (["--csv", "", "http://127.0.0.1:1/"], "--csv: the prefix is empty"),
])
def test_bad_report_input_exits_2_with_the_reason(tmp_path, args, message):
    (tmp_path / "NOTREPORT").write_text('{"schema": "something-else"}')
    run = subprocess.run([PACER_BIN, *args], cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert message in run.stderr


@pytest.mark.tsan
def test_an_unwritable_html_path_exits_2_before_the_run(tmp_path):
    run = run_pacer("-d1s", "--html", str(tmp_path / "no-such-dir" / "r.html"), "http://127.0.0.1:1/")
    assert run.rc == 2, run
    assert "--html" in run.stderr
    run = run_pacer("-d1s", "--csv", str(tmp_path / "no-such-dir" / "r"), "http://127.0.0.1:1/")
    assert run.rc == 2, run
    assert "--csv" in run.stderr


@pytest.mark.no_sanitizer
def test_a_report_without_time_series_still_draws(browser, server, tmp_path):
    run = run_pacer("-t1", "-c2", "-d1s", "--format", "json", "-o", str(tmp_path / "plain.json"), server.url)
    assert run.rc == 0, run
    doc = json.loads((tmp_path / "plain.json").read_text())
    assert "timeseries" not in doc  # only with --timeseries, --html or --csv
    drawn = run_pacer("report", str(tmp_path / "plain.json"), "-o", str(tmp_path / "plain.html"))
    assert drawn.rc == 0, drawn
    page = open_report(browser, tmp_path / "plain.html", "report-no-series.png")
    assert "No time series" in page.evaluate("document.getElementById('over-time').textContent")
    assert [c["title"] for c in chart_state(page)] == ["Latency by percentile", "Connection setup by percentile"]
    assert_figures_match(page, doc)
    verdict = page.evaluate("document.querySelector('[data-field=verdict]').textContent")
    assert verdict == "completed, no gate failed, no error"


@pytest.mark.no_sanitizer
@pytest.mark.tsan
def test_a_targets_run_draws_each_endpoint(browser, server, tmp_path):
    (tmp_path / "targets.txt").write_text(f"GET {server.url}\nGET {server.url}bytes/100\nGET {server.url}status/404\n")
    run = subprocess.run([PACER_BIN, "-t1", "-c3", "-d2s", "--interval", "500ms", "--targets", "targets.txt",
                          "--format", "json", "-o", "run.json", "--html", "run.html", "--csv", "run", server.url],
                         cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, (run.stdout, run.stderr)
    doc = json.loads((tmp_path / "run.json").read_text())
    assert len(doc["endpoints"]) == 3
    page = open_report(browser, tmp_path / "run.html", "report-targets.png")
    table = page.evaluate("Array.from(document.querySelectorAll('#endpoints-table tbody tr'))"
                          ".map(r => [r.cells[0].textContent, Number(r.cells[2].dataset.value), Number(r.cells[3].dataset.value)])")
    assert table == [[e["name"], e["responses"], e["non_2xx_3xx"]] for e in doc["endpoints"]]
    by_name = next(c for c in chart_state(page) if c["title"] == "Requests per second by endpoint")
    assert sorted(by_name["series"]) == sorted(e["name"] for e in doc["endpoints"])
    assert by_name["inked"] > 1000 and by_name["hasData"]
    with open(tmp_path / "run_stats.csv", newline="") as f:
        rows = {r["name"]: r for r in csv.DictReader(f)}
    for e in doc["endpoints"]:
        assert int(rows[e["name"]]["failures"]) == sum(e["errors"].values())
    assert int(rows["Aggregated"]["failures"]) == sum(doc["errors"].values())
