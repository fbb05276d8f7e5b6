"""The page of a capacity search (issue 41: a "pacer-capacity" document, drawn by
web/capacity.js) and of the comparison of two, written by `pacer report` and opened in
headless Chromium (tests/e2e/browser.py): no console error, no request but the page
itself, every chart drawn, the headline, the steps' table and each step's histogram
equal to the JSON's, the outcomes said in words. The documents are made of real runs
(capacity_fixture.py) until the search writes them itself. Screenshots are kept under
build/<preset>/e2e-artifacts/.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from browser import CHROMIUM, Browser
from browser import chart_state as browser_chart_state
from capacity_fixture import capacity_document
from conftest import PACER_BIN, PacerServer, run_pacer

ARTIFACTS = Path(PACER_BIN).resolve().parent / "e2e-artifacts"

# The documents' verdicts come from real runs' latencies (capacity_fixture.py): on a
# loaded machine a step at 150/s can pass 20 ms, so the file runs alone.
pytestmark = [pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK), reason=f"{CHROMIUM} missing: scripts/setup.sh"),
              pytest.mark.alone]

# Two connections over a 5 ms answer carry ~380/s, over 4 ms ~470/s: each search's last
# rates pass its server's limit. (None: the probe, a closed loop.)
BASELINE_PLAN = [(None, 1), (150, 1), (300, 1), (360, 2), (400, 1), (440, 1)]
CANDIDATE_PLAN = [(150, 1), (300, 1), (400, 1), (460, 2), (520, 1)]


@pytest.fixture(scope="module")
def searches(tmp_path_factory):
    """Two searches' documents and their pages: out/base.json, cand.json, base.html, compare.html."""
    out = tmp_path_factory.mktemp("capacity")
    server = PacerServer()
    try:
        base = capacity_document(PACER_BIN, server.url + "delay/5", BASELINE_PLAN, out, server.proc.pid)
        cand = capacity_document(PACER_BIN, server.url + "delay/4", CANDIDATE_PLAN, out, server.proc.pid)
    finally:
        server.stop()
    (out / "base.json").write_text(json.dumps(base, indent=1))
    (out / "cand.json").write_text(json.dumps(cand, indent=1))
    for args in ((str(out / "base.json"), "-o", str(out / "base.html")),
                 ("--compare", str(out / "base.json"), str(out / "cand.json"), "-o", str(out / "compare.html"))):
        run = run_pacer("report", *args)
        assert run.rc == 0, run
    # pacer report reads a search back into its typed result and renders it again:
    # each step's figures derived from its run anew, the sentences in its own words.
    # What the search decided comes back as the file gave it.
    drawn = embedded_json(out / "base.html")
    drawn_cand = embedded_json(out / "compare.html")["candidate"]["doc"]
    for given, again in ((base, drawn), (cand, drawn_cand)):
        for key in ("outcome", "holds_at_per_s", "breaks_at_per_s", "cut_short"):
            assert again["answer"][key] == given["answer"][key], key
        assert [(s["verdict"], s["target_rate_per_s"], s["repeat"], s["repeats"]) for s in again["steps"]] == \
               [(s["verdict"], s["target_rate_per_s"], s["repeat"], s["repeats"]) for s in given["steps"]]
        for s_again, s_given in zip(again["steps"], given["steps"]):
            assert s_again["latency_ns"] == s_given["latency_ns"]
            assert s_again["run"] == s_given["run"] or s_again["run"]["counts"] == s_given["run"]["counts"]
    return out, drawn, drawn_cand


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with Browser(tmp_path_factory.mktemp("chromium-profile")) as b:
        yield b


def embedded_json(html_path: Path) -> dict:
    m = re.search(r'<script type="application/json" id="pacer-data">(.*?)</script>', html_path.read_text(), re.S)
    assert m, "no pacer-data element in the page"
    return json.loads(m.group(1))


def open_page(browser: Browser, path: Path, shot_name: str | None):
    page = browser.open(path.resolve().as_uri())
    page.wait_for("document.documentElement.dataset.ready === 'true' || !!document.documentElement.dataset.error")
    assert page.evaluate("document.documentElement.dataset.error || ''") == ""
    assert page.console_errors == []
    assert page.requests == [path.resolve().as_uri()]  # no CDN, no font, no other host
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    if shot_name:
        page.screenshot(ARTIFACTS / shot_name)
    return page


def chart_state(page) -> list[dict]:
    charts = browser_chart_state(page)
    for c in charts:
        assert c["inked"] > 1000 and c["hasData"], c
    return charts


def text(page, selector: str) -> str:
    return page.evaluate(f"document.querySelector({json.dumps(selector)}).textContent")


def figure(page, selector: str) -> str:
    return page.evaluate(f"document.querySelector({json.dumps(selector)}).dataset.value")


def curve_steps(doc: dict) -> list[dict]:
    return sorted((s for s in doc["steps"] if s["kind"] == "step"), key=lambda s: (s["target_rate_per_s"], s["index"]))


# Each cell of the steps' table: its text and (numeric cells) its raw value.
TABLE_CELLS = """Array.from(document.querySelector('table.cap-steps').tBodies[0].rows).map(r =>
  Array.from(r.cells).map(c => [c.textContent, c.dataset.value ?? null]))"""
COLUMNS = ["#", "kind", "target", "achieved", "p50", "p90", "p99", "max", "requests", "errors", "error rate",
           "server CPU", "verdict", "run", "why"]
VERDICT_WORDS = {"holds": "holds", "breaks": "breaks", "client": "client-limited", "measured": "measured"}


def assert_row_is_the_step(row: list, step: dict) -> None:
    columns = COLUMNS if len(row) == len(COLUMNS) else [c for c in COLUMNS if c != "server CPU"]  # none measured
    cell = dict(zip(columns, row))
    assert int(cell["#"][1]) == step["index"]
    assert cell["kind"][0] == step["kind"]
    if step["kind"] == "probe":
        assert cell["target"] == ["–", None]
    else:
        assert float(cell["target"][1]) == step["target_rate_per_s"]
    assert float(cell["achieved"][1]) == pytest.approx(step["achieved_rate_per_s"], rel=1e-12)
    for k in ("p50", "p90", "p99", "max"):
        assert int(cell[k][1]) == step["latency_ns"][k], k
    assert int(cell["requests"][1]) == step["requests"] and int(cell["errors"][1]) == step["errors"]
    assert float(cell["error rate"][1]) == step["error_rate"]
    if step["server_cpu"] is None:
        assert cell.get("server CPU", [None, None])[1] in (None, "")
    else:
        assert float(cell["server CPU"][1]) == pytest.approx(step["server_cpu"], rel=1e-12)
    assert cell["verdict"][0] == VERDICT_WORDS[step["verdict"]]
    assert cell["run"][0] == f"{step['repeat']}/{step['repeats']}"
    if step["broken_by"]:
        assert cell["why"][0] == step["broken_by"]


# Each step's run histogram, decoded in the page: its percentiles must be the step's figures.
STEP_PERCENTILES = """(async () => {
  const doc = JSON.parse(document.getElementById('pacer-data').textContent);
  const out = [];
  for (const s of doc.steps) {
    const h = await PacerCharts.decodeHistogram(s.run.latency.histogram);
    h.max = s.run.latency.max_ns; h.min = s.run.latency.min_ns;
    out.push({p50: h.valueAtPercentile(50), p90: h.valueAtPercentile(90), p99: h.valueAtPercentile(99),
              max: h.valueAtPercentile(100)});
  }
  return JSON.stringify(out);
})()"""


def hover_legend(browser: Browser, page, chart: int, rate_per_s: float, y_css: float) -> list[str]:
    """The legend's rows with the mouse over the chart at this achieved rate."""
    u = f"PacerCharts.charts[{chart}].uplot"
    box = json.loads(page.evaluate(f"JSON.stringify({u}.over.getBoundingClientRect())"))
    x = box["left"] + page.evaluate(f"{u}.valToPos({rate_per_s}, 'x')")
    browser.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": box["top"] + y_css}, session=page.session)
    time.sleep(0.2)
    return page.evaluate(f"Array.from({u}.root.querySelectorAll('.u-legend .u-series')).map(e => e.textContent)")


@pytest.mark.no_sanitizer
def test_capacity_page_draws_the_curve_the_steps_and_each_steps_histogram(browser, searches):
    out, base, _ = searches
    assert embedded_json(out / "base.html") == base  # the document as pacer report renders it
    page = open_page(browser, out / "base.html", "capacity.png")
    assert page.evaluate("document.title") == f"pacer: capacity of {base['url']}"
    answer = base["answer"]
    assert answer["outcome"] == "found", answer  # 440/s is past the ~380/s the server carries
    assert text(page, "[data-field=sentence]") == answer["sentence"]
    assert figure(page, "[data-field=outcome]") == "found"
    assert int(figure(page, "[data-figure=holds_at]")) == answer["holds_at_per_s"]
    assert int(figure(page, "[data-figure=breaks_at]")) == answer["breaks_at_per_s"]
    assert int(figure(page, "[data-figure=steps]")) == len(base["steps"]) == 7

    charts = {c["title"]: c for c in chart_state(page)}
    steps = curve_steps(base)
    curve = charts["Latency by achieved rate (log)"]
    assert curve["kind"] == "curve" and curve["series"] == ["step", "p50", "p90", "p99", "max"]
    assert curve["points"] == 4 * len(steps) == 24  # every step but the probe, each figure
    # The server's CPU is drawn when a step measured it (--server-pid or --server-metrics in its run).
    cpu = ["server CPU (of one CPU)"] if any(s["server_cpu"] is not None for s in base["steps"]) else []
    assert charts["Errors and server CPU by achieved rate"]["series"] == ["step", "errors", *cpu]
    each = charts["Latency by percentile, each step"]
    assert each["series"] == [f"#{s['index']} {s['target_rate_per_s']:g}/s" + (f" ({s['repeat']}/{s['repeats']})"
                              if s["repeats"] > 1 else "") for s in steps]

    rows = page.evaluate(TABLE_CELLS)
    assert len(rows) == len(base["steps"])
    for row, step in zip(rows, base["steps"]):
        assert_row_is_the_step(row, step)
    # Sortable: a click on p99 puts the worst step first.
    page.evaluate("Array.from(document.querySelector('table.cap-steps').tHead.rows[0].cells)"
                  ".find(th => th.textContent === 'p99').click()")
    worst = max(base["steps"], key=lambda s: s["latency_ns"]["p99"])
    assert int(page.evaluate(TABLE_CELLS)[0][0][1]) == worst["index"]

    decoded = json.loads(page.evaluate(STEP_PERCENTILES))
    assert decoded == [s["latency_ns"] for s in base["steps"]]

    # Hover: each series' point nearest the cursor, the step named in the legend.
    third = steps[1]
    legend = hover_legend(browser, page, 0, third["achieved_rate_per_s"], 100)
    assert legend[0].startswith(f"step#{third['index']}: {third['target_rate_per_s']:g}/s"), legend
    assert legend[3] == "p99" + page.evaluate(f"PacerCharts.fmtNs({third['latency_ns']['p99']})"), legend
    assert page.console_errors == []


# The page's words for each outcome, from the document changed as the search would write it.
OUTCOMES = """(async () => {
  const doc = JSON.parse(document.getElementById('pacer-data').textContent);
  const last = doc.steps[doc.steps.length - 1];
  const variants = {
    client_limited: (d) => { Object.assign(d.answer, {outcome: 'client_limited', breaks_at_per_s: null,
      client_limit: 'the connections: 2 conns / 5.2ms = 385/s < 440/s; raise -c to ~3'});
      Object.assign(d.steps[d.steps.length - 1], {verdict: 'client', broken_by: '', client_limit: d.answer.client_limit}); },
    no_rate_held: (d) => { Object.assign(d.answer, {outcome: 'no_rate_held', holds_at_per_s: null}); },
    never_broke: (d) => { Object.assign(d.answer, {outcome: 'never_broke', breaks_at_per_s: null, broken_by: ''}); },
    sweep: (d) => { Object.assign(d, {mode: 'sweep', objective: '', terms: []});
      Object.assign(d.answer, {outcome: 'sweep', holds_at_per_s: null, breaks_at_per_s: null});
      for (const s of d.steps) s.verdict = 'measured'; },
    cut_short: (d) => { Object.assign(d.answer, {cut_short: true, cut_reason: 'the time budget (10m)'}); },
  };
  const out = {};
  for (const [name, change] of Object.entries(variants)) {
    const d = structuredClone(doc);
    change(d);
    const el = document.createElement('div');
    document.body.append(el);
    await PacerCapacity.render(el, d);
    out[name] = {outcome: el.querySelector('[data-field=outcome]').textContent,
                 cut: el.querySelector('[data-field=cut_short]')?.textContent ?? null,
                 rows: Array.from(el.querySelectorAll('table.cap-steps tbody tr')).map(r => r.className)};
  }
  return JSON.stringify(out);
})()"""


@pytest.mark.no_sanitizer
def test_capacity_page_says_each_outcome_in_words(browser, searches):
    out, base, _ = searches
    page = open_page(browser, out / "base.html", None)
    said = json.loads(page.evaluate(OUTCOMES))
    page.screenshot(ARTIFACTS / "capacity-outcomes.png")  # the page, then each variant under it
    assert said["client_limited"]["outcome"].startswith("the client was the limit, not the server: the connections: 2 conns")
    assert said["client_limited"]["rows"][-1] == "cap-client"
    lowest = int(min(s["target_rate_per_s"] for s in curve_steps(base)))
    assert said["no_rate_held"]["outcome"].startswith(f"no rate held the objective, not even the lowest tried ({lowest}/s)")
    assert said["never_broke"]["outcome"].startswith("the objective held at every rate tried, up to 440/s")
    assert said["sweep"]["outcome"] == "a sweep of 5 rates, measured (no objective)"
    assert said["cut_short"]["cut"] == "cut short by the time budget (10m): the answer is from the 7 steps that ran"
    assert all(v["cut"] is None for k, v in said.items() if k != "cut_short")
    assert page.console_errors == []
    chart_state(page)  # every variant's charts drawn too


@pytest.mark.no_sanitizer
def test_capacity_compare_page_overlays_both_curves_and_the_change_of_holds_at(browser, searches):
    out, base, cand = searches
    a, b = str(out / "base.json"), str(out / "cand.json")
    assert embedded_json(out / "compare.html") == {"schema": "pacer-capacity-compare", "version": 1,
                                                   "baseline": {"file": a, "doc": base},
                                                   "candidate": {"file": b, "doc": cand}}
    page = open_page(browser, out / "compare.html", "capacity-compare.png")
    assert page.evaluate("document.title") == f"pacer: {a} vs {b}"
    for side, doc in (("baseline", base), ("candidate", cand)):
        assert text(page, f"#side-{side} [data-field=sentence]") == doc["answer"]["sentence"]
        assert int(figure(page, f"#side-{side} [data-figure=holds_at]")) == doc["answer"]["holds_at_per_s"]
        assert page.evaluate(f"document.querySelectorAll('#run-{side} table.cap-steps tbody tr').length") == len(doc["steps"])
    hb, hc = base["answer"]["holds_at_per_s"], cand["answer"]["holds_at_per_s"]
    assert float(figure(page, "[data-figure=holds_at_change]")) == pytest.approx((hc - hb) / hb, rel=1e-12)
    charts = chart_state(page)
    overlaid = charts[0]
    assert overlaid["title"].startswith("Latency by achieved rate (log): p99 solid")
    assert overlaid["series"] == ["baseline step", "baseline p99", "baseline p50",
                                  "candidate step", "candidate p99", "candidate p50"]
    assert overlaid["points"] == 2 * (len(curve_steps(base)) + len(curve_steps(cand)))
    # Then each side's own page: its curve, its errors and CPU, its steps' histograms.
    assert len(charts) == 1 + 2 * 3


def test_report_refuses_a_capacity_search_beside_a_run_and_csv_of_one(searches, tmp_path):
    out, base, _ = searches
    run = tmp_path / "run.json"
    run.write_text(json.dumps(base["steps"][1]["run"]))
    mixed = run_pacer("report", "--compare", str(out / "base.json"), str(run), "-o", str(tmp_path / "x.html"))
    assert mixed.rc == 2, mixed
    assert "is a capacity search's report and" in mixed.stderr and not (tmp_path / "x.html").exists()
    csv = run_pacer("report", str(out / "base.json"), "--csv", str(tmp_path / "c"))
    assert csv.rc == 2 and "--csv:" in csv.stderr, csv
    # A step's run is still an ordinary report.
    ok = run_pacer("report", str(run), "-o", str(tmp_path / "run.html"))
    assert ok.rc == 0, ok
