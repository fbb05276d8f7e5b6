"""Shared fixtures and helpers for pacer's end-to-end tests.

The tests run the built binary as a user would: against `pacer serve` started as a
subprocess on 127.0.0.1:0, or against a small recording HTTP server written here.
Everything is bounded in time (every subprocess call has a timeout) and talks only to
127.0.0.1.

PACER_BIN names the binary; when unset, build/debug/pacer in this repository is used.
"""

from __future__ import annotations

import dataclasses
import http.client
import json
import os
import re
import selectors
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACER_BIN = os.environ.get("PACER_BIN") or str(REPO / "build" / "debug" / "pacer")

# How long to wait for a server-side counter to catch up with what the client saw:
# the server counts a reply once the kernel accepted its last byte, which can be a
# moment after the client read it.
COUNTER_SETTLE_S = 2.0


pytest_plugins = ["suite_rules"]  # the rules every test is held to, and the markers (suite_rules.py)


# --------------------------------------------------------------------------- units


_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_SIZE_UNITS = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4}


def parse_duration(text: str) -> float:
    """'94.64ms' -> 0.09464 (seconds). A leading '>=' (lower bound) is ignored."""
    m = re.fullmatch(r"(?:>=)?\s*([0-9]+(?:\.[0-9]+)?)\s*(ns|us|µs|ms|s|m|h)", text.strip())
    if not m:
        raise ValueError(f"not a duration: {text!r}")
    return float(m.group(1)) * _DURATION_UNITS[m.group(2)]


def parse_size(text: str) -> float:
    """'1.61MB' -> bytes (wrk's units are powers of 1024)."""
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)\s*(B|KB|MB|GB|TB)", text.strip())
    if not m:
        raise ValueError(f"not a size: {text!r}")
    return float(m.group(1)) * _SIZE_UNITS[m.group(2)]


# ------------------------------------------------------------------ report parser


# One value in a Thread Stats row: '>=2.00s', '592.79us', '8.49k', '92.43%', or '-'.
_STAT_VALUE = re.compile(r">=[0-9.]+[a-zµ]*|[0-9.]+[a-zA-Zµ%]*|-")


@dataclasses.dataclass
class StatsRow:
    """A 'Latency' or 'Req/Sec' row of wrk's Thread Stats table, values as printed."""

    line: str
    avg: str
    stdev: str
    max: str
    within_stdev: str

    @property
    def values(self) -> list[str]:
        return [self.avg, self.stdev, self.max, self.within_stdev]


@dataclasses.dataclass
class Report:
    """pacer's text report (wrk's layout plus pacer's own lines)."""

    text: str
    target: str = ""  # "5s test" or "1000 requests"
    url: str = ""
    threads: int | None = None
    connections: int | None = None
    latency: StatsRow | None = None
    req_sec: StatsRow | None = None
    distribution: dict[str, str] = dataclasses.field(default_factory=dict)
    requests: int = 0  # "N requests in T, B read"
    duration_s: float = 0.0
    bytes_read: float = 0.0
    socket_errors: dict[str, int] | None = None  # wrk's line, only when errors happened
    non_2xx_3xx: int | None = None
    requests_per_sec: float = 0.0
    transfer_per_sec: str = ""
    errors: dict[str, int] = dataclasses.field(default_factory=dict)  # "Errors:" line
    status_codes: dict[int, int] = dataclasses.field(default_factory=dict)
    connect_line: str | None = None
    connections_opened: int | None = None
    timeouts_text: str | None = None
    timeouts_count: int | None = None
    warmup_responses: int = 0
    warmup_period: str | None = None
    failed: str | None = None
    first_error: str | None = None


def _stats_row(line: str, label: str) -> StatsRow:
    rest = line.split(label, 1)[1]
    values = _STAT_VALUE.findall(rest)
    if len(values) != 4:
        raise ValueError(f"expected 4 values in the {label} row: {line!r}")
    return StatsRow(line, *values)


def parse_report(text: str) -> Report:
    """Parse pacer's text report; raise ValueError naming what is missing or odd."""
    r = Report(text=text)
    # pacer's own lines wrap at 80 columns under their 14-column label: join them.
    lines = re.sub(r"\n {14}(?=\S)", " ", text).splitlines()
    in_distribution = False
    for line in lines:
        s = line.strip()
        if in_distribution:
            # the value may run into the label ("50%>=500.96ms"), so \s* not \s+
            m = re.fullmatch(r"([0-9.]+%)\s*(\S+)", s)
            if m:
                r.distribution[m.group(1)] = m.group(2)
                continue
            in_distribution = False
        if m := re.fullmatch(r"Running (.+?) @ (\S+)", s):
            r.target, r.url = m.group(1), m.group(2)
        elif m := re.fullmatch(r"(\d+) threads and (\d+) connections", s):
            r.threads, r.connections = int(m.group(1)), int(m.group(2))
        elif s.startswith("Latency Distribution"):
            in_distribution = True
        elif s.startswith("Latency ") and r.latency is None:
            r.latency = _stats_row(s, "Latency")
        elif s.startswith("Req/Sec "):
            r.req_sec = _stats_row(s, "Req/Sec")
        elif m := re.fullmatch(r"(\d+) requests? in (\S+), (\S+) read", s):
            r.requests = int(m.group(1))
            r.duration_s = parse_duration(m.group(2))
            r.bytes_read = parse_size(m.group(3))
        elif m := re.fullmatch(
            r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", s
        ):
            r.socket_errors = dict(zip(("connect", "read", "write", "timeout"), map(int, m.groups())))
        elif m := re.fullmatch(r"Non-2xx or 3xx responses: (\d+)", s):
            r.non_2xx_3xx = int(m.group(1))
        elif m := re.fullmatch(r"Requests/sec:\s+([0-9.]+)", s):
            r.requests_per_sec = float(m.group(1))
        elif m := re.fullmatch(r"Transfer/sec:\s+(\S+)", s):
            r.transfer_per_sec = m.group(1)
        elif m := re.fullmatch(r"Errors:\s+(.*)", s):
            r.errors = {k: int(v) for k, v in re.findall(r"([a-z_]+) (\d+)", m.group(1))}
        elif m := re.fullmatch(r"Status codes:\s+(.*)", s):
            r.status_codes = {int(k): int(v) for k, v in re.findall(r"\b(\d{3}) (\d+)", m.group(1))}
        elif m := re.fullmatch(r"Connect:\s+(.*)", s):
            r.connect_line = m.group(1)
            if n := re.search(r"\((\d+) connections? opened\)", s):
                r.connections_opened = int(n.group(1))
        elif m := re.fullmatch(r"Timeouts:\s+(.*)", s):
            r.timeouts_text = m.group(1)
            if n := re.match(r"(\d+) requests?", m.group(1)):
                r.timeouts_count = int(n.group(1))
        elif m := re.fullmatch(r"Warm-up:\s+(\d+) responses during the first (\S+).*", s):
            r.warmup_responses = int(m.group(1))
            r.warmup_period = m.group(2)
        elif m := re.fullmatch(r"Failed:\s+(.*)", s):
            r.failed = m.group(1)
        elif m := re.fullmatch(r"First error:\s+(.*)", s):
            r.first_error = m.group(1)

    missing = [
        name
        for name, present in (
            ("'N requests in T, B read'", re.search(r"^\s*\d+ requests? in ", text, re.M)),
            ("'Requests/sec:'", re.search(r"^Requests/sec:", text, re.M)),
            ("'Errors:'", re.search(r"^Errors:", text, re.M)),
            ("'Status codes:'", re.search(r"^Status codes:", text, re.M)),
        )
        if not present
    ]
    if missing:
        raise ValueError(f"report lacks {', '.join(missing)}:\n{text}")
    return r


# ---------------------------------------------------------------------- running pacer


@dataclasses.dataclass
class Run:
    """The outcome of one pacer invocation."""

    args: list[str]
    rc: int
    stdout: str
    stderr: str

    @property
    def report(self) -> Report:
        try:
            return parse_report(self.stdout)
        except ValueError as e:
            raise AssertionError(f"{e}\n--- stderr:\n{self.stderr}\n--- args: {self.args}") from None

    def __str__(self) -> str:  # shown by pytest when an assertion on a Run fails
        return (
            f"pacer {' '.join(self.args)} -> exit {self.rc}\n"
            f"--- stdout:\n{self.stdout}--- stderr:\n{self.stderr}"
        )


def run_pacer(
    *args: str,
    timeout: float = 30.0,
    input: bytes | None = None,
    nofile: int | None = None,
    env: dict[str, str] | None = None,
) -> Run:
    """Run pacer with `args`, bounded by `timeout` seconds; capture everything.

    `nofile` runs it with RLIMIT_NOFILE (soft and hard) set to that value.
    """
    preexec = None
    if nofile is not None:
        import resource

        def preexec() -> None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    proc = subprocess.run(
        [PACER_BIN, *args],
        input=input if input is not None else b"",
        capture_output=True,
        timeout=timeout,
        preexec_fn=preexec,
        env=env,
    )
    run = Run(
        list(args),
        proc.returncode,
        proc.stdout.decode("utf-8", errors="replace"),
        proc.stderr.decode("utf-8", errors="replace"),
    )
    return run


@pytest.fixture(scope="session")
def pacer_bin() -> str:
    if not (os.path.isfile(PACER_BIN) and os.access(PACER_BIN, os.X_OK)):
        pytest.fail(f"pacer binary not found at {PACER_BIN} (set PACER_BIN or build the debug preset)")
    return PACER_BIN


@pytest.fixture
def pacer(pacer_bin):
    """run_pacer, once the binary is known to exist."""
    return run_pacer


# ------------------------------------------------------------------ pacer serve


class PacerServer:
    """`pacer serve --listen 127.0.0.1:0 -t 1` as a subprocess."""

    def __init__(self, threads: int = 1, start_timeout: float = 10.0, extra_args: tuple[str, ...] = ()):
        self._stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [PACER_BIN, "serve", "--listen", "127.0.0.1:0", "-t", str(threads), *extra_args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
        )
        self.final_output = ""  # what it printed after the first line (stdout, stderr)
        self.returncode: int | None = None
        try:
            first = self._read_first_line(start_timeout)
            m = re.fullmatch(r"pacer serve: listening on (https?://127\.0\.0\.1:(\d+)/)", first)
            if not m:
                raise RuntimeError(f"unexpected first line from pacer serve: {first!r}")
        except BaseException:
            self.proc.kill()
            self.proc.wait(timeout=10)
            self._stderr.seek(0)
            err = self._stderr.read().decode(errors="replace")
            raise RuntimeError(f"pacer serve did not start; stderr:\n{err}") from None
        self.url = m.group(1)  # ends with '/'
        self.port = int(m.group(2))

    def _read_first_line(self, timeout: float) -> str:
        fd = self.proc.stdout.fileno()
        buf = b""
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in buf:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    raise TimeoutError("no 'listening' line from pacer serve")
                chunk = os.read(fd, 4096)
                if not chunk:
                    raise EOFError("pacer serve closed its stdout")
                buf += chunk
        line, _, rest = buf.partition(b"\n")
        self._rest = rest
        return line.decode()

    def stats(self) -> dict[str, int]:
        """GET /stats: {"requests_answered": N, "connections_accepted": M,
        "requests_by_name": {"GET /path": N, ...}} (requests received per method and path)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
        try:
            conn.request("GET", "/stats")
            resp = conn.getresponse()
            body = resp.read()
            assert resp.status == 200, f"/stats answered {resp.status}: {body!r}"
            return json.loads(body)
        finally:
            conn.close()

    def wait_for(self, key: str, expected: int, timeout: float = COUNTER_SETTLE_S) -> int:
        """Poll /stats until counter `key` reaches `expected` (or passes it), or until
        `timeout` passes; return its last value for the caller to assert on."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.stats()[key]
            if value >= expected or time.monotonic() >= deadline:
                return value
            time.sleep(0.01)

    def stop(self, timeout: float = 10.0) -> int:
        """SIGTERM, then wait; return the exit code. Safe to call twice."""
        if self.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                out, _ = self.proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.communicate(timeout=10)
                self.returncode = self.proc.returncode
                raise AssertionError(f"pacer serve did not stop within {timeout}s of SIGTERM")
            self._stderr.seek(0)
            self.final_output = (self._rest + out + self._stderr.read()).decode(errors="replace")
            self.returncode = self.proc.returncode
            self._stderr.close()
        return self.returncode


@pytest.fixture
def start_server(pacer_bin):
    """Factory: start a fresh `pacer serve`; every one is stopped at teardown."""
    servers: list[PacerServer] = []

    def start(*extra_args: str) -> PacerServer:
        s = PacerServer(extra_args=tuple(extra_args))
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.stop()


@pytest.fixture
def server(start_server) -> PacerServer:
    """A fresh `pacer serve` (all counters at zero) for one test."""
    return start_server()


def assert_server_agrees(server: PacerServer, report: Report, baseline: int = 0) -> None:
    """The client's response count (plus the responses of its warm-up, which are not in
    'N requests in') equals what the server answered since `baseline`."""
    expected = baseline + report.requests + report.warmup_responses
    answered = server.wait_for("requests_answered", expected)
    assert answered - baseline == report.requests + report.warmup_responses, (
        f"server answered {answered - baseline}, client reports {report.requests} responses"
        f" + {report.warmup_responses} during warm-up\n{report.text}"
    )


def assert_connections_accepted(server: PacerServer, expected: int) -> None:
    accepted = server.wait_for("connections_accepted", expected)
    assert accepted == expected, f"server accepted {accepted} connections, expected {expected}"


# ------------------------------------------------------------- recording server


@dataclasses.dataclass
class RecordedRequest:
    method: bytes
    target: bytes
    version: bytes
    headers: list[tuple[bytes, bytes]]  # as received, in order (value without the OWS after ':')
    body: bytes

    def header_values(self, name: bytes) -> list[bytes]:
        return [v for k, v in self.headers if k.lower() == name.lower()]


class RecordingServer:
    """A tiny threaded HTTP/1.1 server on raw sockets: records the exact bytes of each
    request (head and Content-Length body) and answers 200 with an empty body."""

    RESPONSE = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"

    def __init__(self):
        self.requests: list[RecordedRequest] = []
        self.problems: list[str] = []
        from hostile import HostileServer  # hostile.py imports this module

        self._lock = threading.Lock()
        self._server = HostileServer(self._serve)
        self.port = self._server.port
        self.url = self._server.url

    def _serve(self, conn: socket.socket, stop: threading.Event) -> None:
        buf = b""
        try:
            while not stop.is_set():
                while b"\r\n\r\n" not in buf:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    buf += chunk
                head, _, buf = buf.partition(b"\r\n\r\n")
                request_line, *header_lines = head.split(b"\r\n")
                parts = request_line.split(b" ")
                if len(parts) != 3:
                    self._problem(f"bad request line {request_line!r}")
                    return
                headers = []
                for hl in header_lines:
                    name, colon, value = hl.partition(b":")
                    if not colon:
                        self._problem(f"bad header line {hl!r}")
                        return
                    headers.append((name, value.lstrip(b" \t")))
                lengths = [v for k, v in headers if k.lower() == b"content-length"]
                if any(k.lower() == b"transfer-encoding" for k, _ in headers):
                    self._problem("request with Transfer-Encoding (not handled here)")
                    return
                length = int(lengths[0]) if lengths else 0
                while len(buf) < length:
                    chunk = conn.recv(65536)
                    if not chunk:
                        self._problem("connection closed in the middle of a request body")
                        return
                    buf += chunk
                body, buf = buf[:length], buf[length:]
                with self._lock:
                    self.requests.append(RecordedRequest(*parts, headers, body))
                conn.sendall(self.RESPONSE)
        except OSError:
            pass
        finally:
            conn.close()

    def _problem(self, what: str) -> None:
        with self._lock:
            self.problems.append(what)

    def wait_for_requests(self, n: int, timeout: float = COUNTER_SETTLE_S) -> list[RecordedRequest]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if len(self.requests) >= n:
                    break
            time.sleep(0.01)
        with self._lock:
            return list(self.requests)

    def close(self) -> None:
        self._server.close()


@pytest.fixture
def recording_server():
    s = RecordingServer()
    yield s
    s.close()


@pytest.fixture
def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def hostile_server():
    """Factory: hostile.HostileServer(behaviour); every one is closed at teardown."""
    from hostile import HostileServer

    servers: list[HostileServer] = []

    def start(behaviour, backlog: int = 128) -> HostileServer:
        s = HostileServer(behaviour, backlog=backlog)
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.close()
