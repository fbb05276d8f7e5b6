"""A real Prometheus (Debian's `prometheus` package) for the Prometheus export tests:
started on 127.0.0.1 with a temporary configuration and data directory, the
remote-write receiver on, a short scrape interval; queried through its HTTP API;
stopped (SIGTERM, then SIGKILL) whatever happens."""

from __future__ import annotations

import json
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
PROMTOOL = shutil.which("promtool") or "/usr/bin/promtool"
SCRAPE_INTERVAL = "250ms"
START_TIMEOUT_S = 30.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Prometheus:
    """prometheus scraping 127.0.0.1:scrape_port (a pacer --web view, when one runs)."""

    def __init__(self, scrape_port: int):
        assert shutil.which(PROMETHEUS) or Path(PROMETHEUS).exists(), \
            "prometheus is not installed (scripts/setup.sh installs Debian's prometheus package)"
        self.dir = Path(tempfile.mkdtemp(prefix="pacer-prometheus-"))
        self.port = free_port()
        self.scrape_port = scrape_port
        config = self.dir / "prometheus.yml"
        config.write_text(
            "global:\n"
            f"  scrape_interval: {SCRAPE_INTERVAL}\n"
            f"  scrape_timeout: {SCRAPE_INTERVAL}\n"
            "scrape_configs:\n"
            "  - job_name: pacer\n"
            "    static_configs:\n"
            f"      - targets: ['127.0.0.1:{scrape_port}']\n")
        self.log = open(self.dir / "prometheus.log", "wb")
        self.proc = subprocess.Popen(
            [PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={self.dir / 'data'}",
             f"--web.listen-address=127.0.0.1:{self.port}", "--web.enable-remote-write-receiver",
             "--log.level=warn"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT)
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise

    @property
    def remote_write_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v1/write"

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"prometheus exited: {self.log_text()}"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/-/ready", timeout=1) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, socket.timeout):
                pass
            time.sleep(0.1)
        raise AssertionError(f"prometheus not ready within {START_TIMEOUT_S}s: {self.log_text()}")

    def wait_for_target(self) -> None:
        """Until the scrape target is known (Prometheus hands new targets to its
        scrapers at most every 5 s, so the first scrape can come that late)."""
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self.api("/api/v1/targets")["activeTargets"]:
            assert time.monotonic() < deadline, f"no scrape target after {START_TIMEOUT_S}s: {self.log_text()}"
            time.sleep(0.1)

    def log_text(self) -> str:
        self.log.flush()
        return (self.dir / "prometheus.log").read_text(errors="replace")[-4000:]

    def api(self, path: str, **params: str) -> dict:
        url = f"http://127.0.0.1:{self.port}{path}?{urllib.parse.urlencode(params)}"
        try:
            with urllib.request.urlopen(url, timeout=10) as r:
                doc = json.load(r)
        except urllib.error.HTTPError as e:
            raise AssertionError(f"{path} {params}: HTTP {e.code}: {e.read()!r}") from None
        assert doc["status"] == "success", doc
        return doc["data"]

    def query(self, expr: str, at: float | None = None) -> list[dict]:
        """An instant query's vector: [{"metric": {...}, "value": [t, "v"]}, ...]."""
        params = {"query": expr}
        if at is not None:
            params["time"] = f"{at:.3f}"
        data = self.api("/api/v1/query", **params)
        assert data["resultType"] == "vector", data
        return data["result"]

    def value(self, expr: str, at: float | None = None) -> float:
        result = self.query(expr, at)
        assert len(result) == 1, f"{expr}: {result}"
        return float(result[0]["value"][1])

    def wait_for(self, expr: str, timeout: float = 10.0) -> list[dict]:
        """Polls an instant query until it returns something (or the time is up)."""
        deadline = time.monotonic() + timeout
        while True:
            result = self.query(expr)
            if result or time.monotonic() >= deadline:
                return result
            time.sleep(0.1)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)
