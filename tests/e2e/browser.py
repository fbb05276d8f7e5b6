"""Headless Chromium driven over the DevTools protocol through a pipe
(--remote-debugging-pipe: commands on fd 3, replies and events on fd 4, each a JSON
message ended by NUL), so no WebSocket library and no port are needed.

    with Browser(profile_dir) as browser:
        page = browser.open("file:///tmp/report.html")   # waits for the load event
        page.wait_for("document.documentElement.dataset.ready === 'true'")
        page.evaluate("1 + 1")                            # -> 2 (by value)
        page.screenshot(path)                             # full page, PNG
        page.console_errors, page.requests                 # what the page said and asked for

Everything is bounded in time; the browser is killed on exit whatever happened.
Used by test_html_report.py; the live view's tests can use it too.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import threading
import time
from pathlib import Path

CHROMIUM = os.environ.get("PACER_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio", "--remote-debugging-pipe"]


class BrowserError(Exception):
    pass


class Browser:
    def __init__(self, profile_dir: Path, timeout_s: float = 30.0):
        self.profile_dir = Path(profile_dir)
        self.timeout_s = timeout_s
        self._next_id = 0
        self._replies: dict[int, dict] = {}
        self._events: list[dict] = []
        self._cond = threading.Condition()
        self._proc: subprocess.Popen | None = None
        self._closed = False

    def __enter__(self) -> "Browser":
        self.profile_dir.mkdir(parents=True, exist_ok=True)
        to_browser_r, to_browser_w = os.pipe()
        from_browser_r, from_browser_w = os.pipe()
        # The child sees our pipe ends as fds 3 and 4, as --remote-debugging-pipe wants.
        def child_fds() -> None:
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)
        # preexec_fn runs before the child closes the fds not kept, so 3 and 4 are kept.
        self._log = open(self.profile_dir / "chromium.log", "wb")
        self._proc = subprocess.Popen([CHROMIUM, *FLAGS, f"--user-data-dir={self.profile_dir}", "about:blank"],
                                      pass_fds=(3, 4), preexec_fn=child_fds,
                                      stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._out = os.fdopen(to_browser_w, "wb", buffering=0)
        self._in = os.fdopen(from_browser_r, "rb", buffering=0)
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()
        return self

    def __exit__(self, *exc) -> None:
        self._closed = True
        if self._proc is not None:
            try:
                self.send("Browser.close", timeout_s=5)
            except Exception:
                pass
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(timeout=10)
        for f in (getattr(self, "_out", None), getattr(self, "_in", None), getattr(self, "_log", None)):
            try:
                f and f.close()
            except OSError:
                pass

    def _read_loop(self) -> None:
        buf = b""
        while True:
            try:
                chunk = self._in.read(65536)
            except (OSError, ValueError):
                chunk = b""
            if not chunk:
                with self._cond:
                    self._closed = True
                    self._cond.notify_all()
                return
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                with self._cond:
                    if "id" in msg:
                        self._replies[msg["id"]] = msg
                    else:
                        self._events.append(msg)
                    self._cond.notify_all()

    def send(self, method: str, params: dict | None = None, session: str | None = None,
             timeout_s: float | None = None) -> dict:
        with self._cond:
            self._next_id += 1
            msg_id = self._next_id
        msg = {"id": msg_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self._out.write(json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + (timeout_s or self.timeout_s)
        with self._cond:
            while msg_id not in self._replies:
                left = deadline - time.monotonic()
                if left <= 0 or (self._closed and msg_id not in self._replies):
                    raise BrowserError(f"{method}: no reply (browser {'gone' if self._closed else 'timed out'})")
                self._cond.wait(left)
            reply = self._replies.pop(msg_id)
        if "error" in reply:
            raise BrowserError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def events(self, session: str) -> list[dict]:
        with self._cond:
            return [e for e in self._events if e.get("sessionId") == session]

    def wait_event(self, session: str, method: str, timeout_s: float) -> dict:
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while True:
                for e in self._events:
                    if e.get("sessionId") == session and e.get("method") == method:
                        return e
                left = deadline - time.monotonic()
                if left <= 0:
                    raise BrowserError(f"no {method} within {timeout_s}s")
                self._cond.wait(left)

    def open(self, url: str, width: int = 1200, height: int = 900) -> "Page":
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, session)
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable", session=session)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=session)
        self.send("Page.navigate", {"url": url}, session=session)
        self.wait_event(session, "Page.loadEventFired", self.timeout_s)
        return page


class Page:
    def __init__(self, browser: Browser, session: str):
        self.browser = browser
        self.session = session

    def evaluate(self, expression: str, timeout_s: float | None = None):
        result = self.browser.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                        "awaitPromise": True}, session=self.session,
                                   timeout_s=timeout_s)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout_s: float = 20.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.evaluate(f"!!({expression})"):
                return
            time.sleep(0.05)
        raise BrowserError(f"not true within {timeout_s}s: {expression}")

    @property
    def console_errors(self) -> list[str]:
        out = []
        for e in self.browser.events(self.session):
            p = e.get("params", {})
            if e["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append(" ".join(str(a.get("value", a.get("description"))) for a in p.get("args", [])))
            elif e["method"] == "Runtime.exceptionThrown":
                out.append(json.dumps(p.get("exceptionDetails", {}))[:2000])
            elif e["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append(p["entry"].get("text", ""))
        return out

    @property
    def requests(self) -> list[str]:
        """Every URL the page asked for (the page itself included)."""
        return [e["params"]["request"]["url"] for e in self.browser.events(self.session)
                if e["method"] == "Network.requestWillBeSent"]

    def set_media(self, media: str) -> None:
        self.browser.send("Emulation.setEmulatedMedia", {"media": media}, session=self.session)

    def screenshot(self, path: Path) -> bytes:
        """A PNG of the whole page (not only the viewport)."""
        shot = self.browser.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True},
                                 session=self.session)
        data = base64.b64decode(shot["data"])
        Path(path).write_bytes(data)
        return data

    def pdf(self, path: Path) -> bytes:
        printed = self.browser.send("Page.printToPDF", {"printBackground": True}, session=self.session)
        data = base64.b64decode(printed["data"])
        Path(path).write_bytes(data)
        return data


# Every chart a page drew (PacerCharts.charts): its title, kind, points, series and
# how many of its canvas pixels are inked. Read with chart_state(page).
CHART_STATE = """JSON.stringify(PacerCharts.charts.map(c => {
  const canvas = c.uplot.root.querySelector('canvas');
  const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  let inked = 0;
  for (let i = 3; i < pixels.length; i += 4) if (pixels[i]) inked++;
  return {title: c.title, kind: c.kind, points: c.points, inked,
          hasData: c.uplot.data.slice(1).some(col => col.some(v => v != null)),
          series: c.uplot.series.slice(1).map(s => s.label)};
}))"""


def chart_state(page) -> list[dict]:
    return json.loads(page.evaluate(CHART_STATE))
