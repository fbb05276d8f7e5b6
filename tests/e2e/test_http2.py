"""HTTP/2 (--http2, --streams) against nghttpd and nginx, and HTTP/1.1 pipelining
(--pipeline) against pacer serve: every request the client counts, the server
counted too. The peers are started here on free ports and killed at the end; every
wait is bounded. Tests over TLS are skipped while pacer refuses https:// URLs."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import assert_connections_accepted, assert_server_agrees
from nginx_peer import free_port, start_nginx, stop_process

NGHTTPD = shutil.which("nghttpd") or "/usr/sbin/nghttpd"
OPENSSL = shutil.which("openssl") or "/usr/bin/openssl"
START_TIMEOUT_S = 10.0
COUNT_SETTLE_S = 5.0


def _wait_for_port(port: int, proc: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError(f"{what} did not listen on {port} within {START_TIMEOUT_S}s")


def _wait_for_count(count, expected: int) -> int:
    """Poll count() until it reaches expected or COUNT_SETTLE_S passes; return it."""
    deadline = time.monotonic() + COUNT_SETTLE_S
    while True:
        value = count()
        if value >= expected or time.monotonic() >= deadline:
            return value
        time.sleep(0.02)


def _make_cert(directory: Path) -> tuple[Path, Path]:
    key, cert = directory / "key.pem", directory / "cert.pem"
    subprocess.run(
        [OPENSSL, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
         "-days", "1", "-subj", "/CN=127.0.0.1"],
        check=True, capture_output=True, timeout=60,
    )
    return key, cert


class Nghttpd:
    """nghttpd serving a one-file directory; counts the requests it received from
    its -v frame log (one ':path' header per request)."""

    def __init__(self, tls: bool):
        self.dir = Path(tempfile.mkdtemp(prefix="pacer_nghttpd_"))
        (self.dir / "www").mkdir()
        (self.dir / "www" / "index.html").write_text("hello\n")
        self.port = free_port()
        self.log_path = self.dir / "frames.log"
        args = [NGHTTPD, "-v", "-d", str(self.dir / "www"), str(self.port)]
        if tls:
            key, cert = _make_cert(self.dir)
            args += [str(key), str(cert)]
        else:
            args.insert(1, "--no-tls")
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT)
        _wait_for_port(self.port, self.proc, "nghttpd")
        scheme = "https" if tls else "http"
        self.url = f"{scheme}://127.0.0.1:{self.port}/index.html"

    def requests(self) -> int:
        self._log.flush()
        return len(re.findall(rb"recv \(stream_id=\d+\) :path: ", self.log_path.read_bytes()))

    def stop(self) -> None:
        stop_process(self.proc)
        self._log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class Nginx:
    """nginx with a private configuration and prefix; counts requests from its access log."""

    def __init__(self, tls: bool, http2: bool = True):
        self.dir = Path(tempfile.mkdtemp(prefix="pacer_nginx_"))
        self.port = free_port()
        listen = f"127.0.0.1:{self.port}"
        tls_lines = ""
        if tls:
            key, cert = _make_cert(self.dir)
            listen += " ssl"
            tls_lines = f"ssl_certificate {cert}; ssl_certificate_key {key};"
        if http2:
            listen += " http2"
        self.proc = start_nginx(self.dir, self.port, "$server_protocol $status", f"""server {{
    listen {listen};
    {tls_lines}
    location / {{ return 200 "hello\\n"; }}
  }}""")
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}/"

    def log_lines(self) -> list[str]:
        path = self.dir / "access.log"
        return path.read_text().splitlines() if path.exists() else []

    def requests(self) -> int:
        return len(self.log_lines())

    def stop(self) -> None:
        stop_process(self.proc)
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def peers():
    started = []

    def start(kind, **kwargs):
        peer = kind(**kwargs)
        started.append(peer)
        return peer

    yield start
    for peer in started:
        peer.stop()


def _assert_clean(run, expected_requests: int | None = None, http2: bool = False):
    assert run.rc == 0, run
    report = run.report
    if http2:
        assert "stream_reset" in report.errors and "goaway" in report.errors, run
    assert sum(report.errors.values()) == 0, run
    if expected_requests is not None:
        assert report.requests == expected_requests, run
    return report


# ------------------------------------------------------------------- h2c (cleartext)


@pytest.mark.tsan
@pytest.mark.parametrize("streams", [1, 10])
def test_h2c_against_nghttpd_counts_what_the_server_counts(peers, pacer, streams):
    server = peers(Nghttpd, tls=False)
    run = pacer("--http2", "--streams", str(streams), "-t2", "-c4", "-n", "2000", server.url, timeout=60)
    report = _assert_clean(run, 2000, http2=True)
    assert f"HTTP/2 with {streams} stream" in run.stdout, run
    assert report.connections_opened == 4, run
    assert _wait_for_count(server.requests, 2000) == 2000


@pytest.mark.tsan
@pytest.mark.parametrize("streams", [1, 10])
def test_h2c_against_nginx_counts_what_the_server_counts(peers, pacer, streams):
    server = peers(Nginx, tls=False)
    run = pacer("--http2", "--streams", str(streams), "-t2", "-c4", "-d", "1s", server.url, timeout=60)
    report = _assert_clean(run, http2=True)
    assert report.requests > 0, run
    assert _wait_for_count(server.requests, report.requests) == report.requests
    assert set(server.log_lines()) == {"HTTP/2.0 200"}


def test_h2c_reconnects_after_nginx_ends_a_connection_with_goaway(peers, pacer):
    # nginx answers 1000 requests per connection (keepalive_requests), then sends
    # GOAWAY: a graceful end, not an error; the client reconnects and goes on.
    server = peers(Nginx, tls=False)
    run = pacer("--http2", "--streams", "10", "-t1", "-c2", "-n", "5000", server.url, timeout=60)
    report = _assert_clean(run, 5000, http2=True)
    assert report.connections_opened >= 5, run
    assert _wait_for_count(server.requests, 5000) == 5000


def test_h2c_open_model_survives_nginx_goaways_without_losing_requests(peers, pacer):
    # 3000 requests over 2 connections: nginx ends each after 1000 with a GOAWAY.
    server = peers(Nginx, tls=False)
    run = pacer("--http2", "--streams", "4", "-t1", "-c2", "-R", "1500", "-d", "2s", server.url, timeout=60)
    report = _assert_clean(run, http2=True)
    assert abs(report.requests - 3000) <= 30, run
    assert report.connections_opened >= 3, run
    assert _wait_for_count(server.requests, report.requests) == report.requests


def test_h2c_open_model_sends_the_rate_over_streams(peers, pacer):
    server = peers(Nghttpd, tls=False)
    run = pacer("--http2", "--streams", "8", "-t1", "-c2", "-R", "1000", "-d", "2s", server.url, timeout=60)
    report = _assert_clean(run, http2=True)
    assert abs(report.requests - 2000) <= 20, run
    assert _wait_for_count(server.requests, report.requests) == report.requests


@pytest.mark.tsan
def test_streams_without_http2_is_refused(pacer):
    run = pacer("--streams", "4", "http://127.0.0.1:9/", timeout=30)
    assert run.rc == 2, run
    assert "--streams" in run.stderr and "--http2" in run.stderr, run


# ------------------------------------------------------------ HTTP/2 over TLS (ALPN)


@pytest.mark.tsan
@pytest.mark.parametrize("streams", [1, 10])
def test_h2_over_tls_against_nghttpd_counts_what_the_server_counts(peers, pacer, streams):
    server = peers(Nghttpd, tls=True)
    run = pacer("--http2", "-k", "--streams", str(streams), "-t2", "-c4", "-n", "2000", server.url, timeout=60)
    _assert_clean(run, 2000, http2=True)
    assert _wait_for_count(server.requests, 2000) == 2000


@pytest.mark.tsan
@pytest.mark.parametrize("streams", [1, 10])
def test_h2_over_tls_against_nginx_counts_what_the_server_counts(peers, pacer, streams):
    server = peers(Nginx, tls=True)
    run = pacer("--http2", "-k", "--streams", str(streams), "-t2", "-c4", "-d", "1s", server.url, timeout=60)
    report = _assert_clean(run, http2=True)
    assert _wait_for_count(server.requests, report.requests) == report.requests
    assert set(server.log_lines()) == {"HTTP/2.0 200"}


@pytest.mark.tsan
def test_http2_fails_clearly_when_the_server_declines_h2_in_alpn(peers, pacer):
    server = peers(Nginx, tls=True, http2=False)
    run = pacer("--http2", "-k", "-n", "10", server.url, timeout=60)
    assert run.rc == 1, run
    assert "did not negotiate h2" in run.stdout + run.stderr, run


# ------------------------------------------------------------ HTTP/1.1 pipelining


@pytest.mark.tsan
def test_pipelining_against_pacer_serve_counts_what_the_server_counts(server, pacer):
    run = pacer("--pipeline", "8", "-t2", "-c4", "-n", "5000", server.url, timeout=60)
    report = _assert_clean(run, 5000)
    assert "HTTP/1.1 pipelined 8 deep" in run.stdout, run
    assert_connections_accepted(server, 4)
    assert_server_agrees(server, report)


def test_pipelining_for_a_duration_keeps_counts_exact(server, pacer):
    run = pacer("--pipeline", "16", "-t1", "-c2", "-d", "1s", server.url + "bytes/2000", timeout=60)
    report = _assert_clean(run)
    assert report.requests > 0, run
    assert_server_agrees(server, report)
