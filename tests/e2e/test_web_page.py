"""The live page (--web) in headless Chromium (tests/e2e/browser.py): during a run it
draws the four charts and updates them every interval, shows the figures the events
carry, asks nothing of any host but the web view, logs no error; its Stop button ends
the run (exit 130) and the page then draws the final report. Screenshots are kept
under the build folder (test-artifacts/ beside the pacer binary)."""

import pytest
import json
import time
from pathlib import Path
from urllib.parse import urlparse

from browser import Browser
from conftest import PACER_BIN
from webview import WebRun

pytestmark = [pytest.mark.no_sanitizer, pytest.mark.tsan]

ARTIFACTS = Path(PACER_BIN).resolve().parent / "test-artifacts"
LOAD = ["-t1", "-c2", "-R", "300", "--plain", "--interval", "300ms"]

# Pixels drawn (non-transparent) in each chart's canvas.
DRAWN = """[...document.querySelectorAll('#lv-charts canvas')].map((c) => {
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 3; i < d.length; i += 4) if (d[i]) n++;
  return n;
})"""
POINTS = "PacerCharts.charts.filter((c) => c.kind === 'time').map((c) => c.points)"
FIGURE = "Number(document.querySelector('[data-figure=\"{}\"]').dataset.value)"


def only_the_view_was_asked(page, port):
    for url in page.requests:
        parsed = urlparse(url)
        if parsed.scheme in ("data", "blob"):
            continue
        assert (parsed.scheme, parsed.netloc) == ("http", f"127.0.0.1:{port}"), url


def test_live_page_draws_updates_and_stops_the_run(server, tmp_path):
    ARTIFACTS.mkdir(exist_ok=True)
    out = tmp_path / "report.json"
    with WebRun(*LOAD, "-d", "60s", "--format", "json", "-o", str(out), "--web", "127.0.0.1:0", server.url) as run:
        with Browser(tmp_path / "profile") as browser:
            page = browser.open(run.url)
            page.wait_for("Number(document.documentElement.dataset.intervals || 0) >= 2")
            assert page.evaluate("document.documentElement.dataset.state") == "running"
            first = page.evaluate(POINTS)
            assert len(first) == 4 and min(first) >= 2, first
            page.wait_for(f"Number(document.documentElement.dataset.intervals) >= {max(first) + 2}")
            later = page.evaluate(POINTS)
            assert all(b > a for a, b in zip(first, later)), (first, later)  # every chart moved on
            drawn = page.evaluate(DRAWN)
            assert len(drawn) == 4 and min(drawn) > 500, drawn
            assert page.evaluate("document.getElementById('lv-target').textContent").find(server.url) >= 0
            page.screenshot(ARTIFACTS / "live-view.png")

            page.evaluate("document.getElementById('lv-stop').click()")
            assert run.wait(30) == 130, run.stderr
            page.wait_for("document.documentElement.dataset.final === 'ready'")
            assert page.evaluate("document.documentElement.dataset.state") == "ended"
            final = json.loads(out.read_text())
            assert final["interrupted"] is True
            # The figures on the page are the run's: the responses summed from the
            # events equal the final report's, and the final report is drawn.
            assert page.evaluate(FIGURE.format("requests")) == final["counts"]["responses"]
            assert page.evaluate("document.querySelectorAll('#pacer-report [data-figure]').length") > 0
            # ...with the run over time drawn from the page's intervals: every chart has data.
            final_drawn = page.evaluate(DRAWN.replace("#lv-charts", "#pacer-report"))
            assert len(final_drawn) >= 5 and min(final_drawn) > 500, final_drawn
            time.sleep(0.2)  # let the final charts paint before the picture
            page.screenshot(ARTIFACTS / "live-view-final.png")
            assert page.console_errors == []
            only_the_view_was_asked(page, run.port)


def test_live_page_with_a_token_on_a_non_loopback_bind(server, tmp_path):
    with WebRun(*LOAD, "-d", "60s", "--web", "0.0.0.0:0", "--web-token", "page-token-123", server.url) as run:
        url = f"http://127.0.0.1:{run.port}/?token=page-token-123"
        with Browser(tmp_path / "profile") as browser:
            page = browser.open(url)
            page.wait_for("Number(document.documentElement.dataset.intervals || 0) >= 2")
            drawn = page.evaluate(DRAWN)
            assert len(drawn) == 4 and min(drawn) > 500, drawn
            page.evaluate("document.getElementById('lv-stop').click()")
            assert run.wait(30) == 130, run.stderr
            page.wait_for("document.documentElement.dataset.final === 'ready'")
            assert page.console_errors == []  # no 401 on a script or the events
            only_the_view_was_asked(page, run.port)
