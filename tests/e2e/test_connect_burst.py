"""The connect burst (issue 31, item 15): ten thousand connections at once against
nginx, on both I/O engines, with no error.

nginx (one worker, the default listen backlog of 511) drops the SYNs that find its
accept queue full; the kernel resends them after 1 s, and by then nginx, serving the
connections that got in, accepts about one connection per pass over them (tens a
second), so those late connections' first requests waited in its queue past
--timeout. Two changes removed it: io_uring connects with connect(2), one socket at
a time, as epoll and wrk do (a batch of connect operations sent every SYN in one
burst); and the closed loop's connections start together (engine/conn/start_gate.h):
none sends until all have connected, and a SYN left unanswered is dialled again at
once, while nginx has nothing to do but accept. Measured on a 2-core machine over
interleaved rounds of -c10000 -d4s: before (io_uring already on connect(2)), pacer
lost requests to timeouts in 6 of 20 rounds; after, in none of 70 runs on either
engine, though nginx's queue overflowed in 18 of them (each dropped SYN was dialled
again: counts.redials equalled nginx's ListenOverflows); wrk overflowed it in 3 of
35 rounds and reports no error either way (the closing note of issue 31).

With more threads each worker used to start on its own once its connections were
in, and its load kept nginx from accepting the other workers' connections: at -t2
and -t4, 10 to 5,840 errors in every one of 14 rounds. The workers now start
together (StartBarrier). Over 23 runs each, on both engines: at -t2 one run had 4
timeouts, at -t4 four runs had 2 to 77; wrk lost 20 to 81 requests to timeouts in
every one of its 14 rounds. What is left is, most likely, handshakes whose last ACK
nginx dropped (its queue full): the client sees them open and cannot tell; they get
in with their first request, once the load has begun, and wait in nginx's queue
(the request log shows one block of a worker's connections whose first requests all
timed out). CI runs -t1 with no error allowed and -t2 with under 1 %.

Under a sanitizer pacer is several times slower: 300 connections, and no error
bar (its connects can outlast --timeout after the kernel completed them).
"""

from __future__ import annotations

import contextlib
import csv
import json
import re
import resource
import socket
import subprocess
import threading
import time
import urllib.request

import pytest

from conftest import parse_duration
from hostile import answer_each_request, sanitizer
from nginx_peer import NGINX, START_TIMEOUT_S, free_port, stop_process

pytestmark = pytest.mark.alone

FULL = sanitizer() is None


def connections_for_this_machine() -> int:
    if not FULL:
        return 300
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    limit = hard if hard != resource.RLIM_INFINITY else 1 << 20
    return min(10000, limit - 500)  # pacer's other fds (the engine, the report files) and nginx's


@pytest.fixture
def nginx(tmp_path):
    """nginx with one worker (as in the issue), the default listen backlog (511),
    room for the connections, no access log, and stub_status for its accept count.
    Room means more than the connections: once fewer than 1/16 of its
    worker_connections are free, nginx closes idle keep-alive connections to make
    room ("worker_connections are not enough, reusing connections"), and a
    request sent on one just then fails as "connection closed before the response"."""
    port = free_port()
    connections = connections_for_this_machine()
    d = tmp_path / "nginx"
    d.mkdir()
    (d / "nginx.conf").write_text(f"""
daemon off;
worker_processes 1;
worker_rlimit_nofile {connections + 1000};
pid {d}/nginx.pid;
error_log {d}/error.log;
events {{ worker_connections {connections + connections // 8 + 500}; }}
http {{
  access_log off;
  client_body_temp_path {d}/body; proxy_temp_path {d}/proxy; fastcgi_temp_path {d}/fastcgi;
  uwsgi_temp_path {d}/uwsgi; scgi_temp_path {d}/scgi;
  keepalive_requests 1000000;
  server {{
    listen 127.0.0.1:{port};
    location = /status {{ stub_status; }}
    location / {{ return 200 "ok\\n"; }}
  }}
}}
""")
    proc = subprocess.Popen([NGINX, "-p", str(d), "-c", str(d / "nginx.conf"), "-e", str(d / "error.log")],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            assert proc.poll() is None, (d / "error.log").read_text()
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                assert time.monotonic() < deadline, "nginx did not start"
                time.sleep(0.02)
        yield port, connections
    finally:
        stop_process(proc)


def accepted(port: int) -> int:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/status", timeout=5) as r:
        text = r.read().decode()
    return int(re.search(r"^\s*(\d+) \d+ \d+\s*$", text, re.M).group(1))


# With several workers each one's connections wait for every worker's (StartBarrier):
# before, the first worker's load kept nginx from accepting the others' connections.
@pytest.mark.tsan
@pytest.mark.parametrize("io,threads", [("uring", 1), ("epoll", 1), ("uring", 2)])
def test_thousands_of_connections_at_once_open_without_an_error(nginx, pacer, tmp_path, io, threads):
    port, connections = nginx
    before = accepted(port)
    out = tmp_path / "r.json"
    duration = "5s" if FULL else "2s"
    run = pacer(f"-t{threads}", f"-c{connections}", "-d", duration, "--io", io, "--format", "json", "-o", str(out),
                f"http://127.0.0.1:{port}/", timeout=120)
    assert run.rc == 0, run
    doc = json.loads(out.read_text())
    if FULL and threads == 1:  # the bar
        errors = {k: v for k, v in doc["errors"].items() if v}
        assert not errors, errors
        assert doc["counts"]["connects"] == connections, doc["counts"]
    elif FULL:
        # Several workers: now and then a few timeouts are left (4, once in 23 runs
        # at -t2; see the docstring), where workers starting on their own lost 10
        # to 3,136 requests, most often hundreds.
        lost = sum(doc["errors"].values())
        assert lost < connections // 100, doc["errors"]
        assert connections <= doc["counts"]["connects"] <= connections + lost, doc["counts"]
    # Every connection the server accepted is one the report counts (the probe is
    # the first of them; the two /status requests bracket the run).
    assert accepted(port) - before - 1 == doc["counts"]["connects"], doc["counts"]
    # Still opening when the measurement began? The report says so (from 100 ms on), and the JSON.
    ramp = doc["connections_ramp_s"]
    text = " ".join(line.strip() for line in run.stdout.splitlines())
    said = "connections were still being opened" in text
    assert said == (ramp is not None and ramp >= 0.1), (ramp, run.stdout)
    if ramp is not None and ramp < doc["duration_s"]:
        assert ramp > 0 and doc["counts"]["connects"] >= connections, doc
        if said:
            m = re.search(r"first opened (\S+) into the measured time", text)
            assert m and abs(parse_duration(m.group(1)) - ramp) <= 0.01, (m, ramp)
    elif ramp is not None:
        assert "when the run ended: not every one" in text, text


@contextlib.contextmanager
def late_acceptor(backlog: int, hold_off_s: float):
    """A server listening with `backlog` that accepts pacer's start-up probe, then
    nothing for hold_off_s (its queue full, the kernel drops further SYNs), then
    every connection, answering each request with 200. Yields (port, accept times)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(backlog)
    port = listener.getsockname()[1]
    stop = threading.Event()
    accepts: list[float] = []
    answer = answer_each_request(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")

    def serve(conn: socket.socket) -> None:
        with conn:
            try:
                answer(conn, stop)
            except OSError:
                pass

    def accept_one() -> bool:
        try:
            conn, _ = listener.accept()
        except (socket.timeout, OSError):
            return False
        accepts.append(time.monotonic())
        threading.Thread(target=serve, args=(conn,), daemon=True).start()
        return True

    def accept_late() -> None:
        listener.settimeout(0.1)
        while not stop.is_set() and not accept_one():  # the probe
            pass
        if stop.wait(hold_off_s):  # the server's busy start: nothing accepted, the queue stays full
            return
        while not stop.is_set():
            accept_one()

    acceptor = threading.Thread(target=accept_late, daemon=True)
    acceptor.start()
    try:
        yield port, accepts
    finally:
        stop.set()
        acceptor.join(timeout=5)
        listener.close()


def first_sends_by_connection(log) -> dict[str, dict]:
    first: dict[str, dict] = {}
    with open(log, newline="") as f:
        for row in csv.DictReader(f):
            c = row["connection"]
            if c not in first or int(row["send_unix_us"]) < int(first[c]["send_unix_us"]):
                first[c] = row
    return first


def test_connects_that_waited_for_a_resent_syn_are_named(pacer, tmp_path):
    """A server whose accept queue is full drops SYNs, and the kernel resends one
    only after 1 s: the report says how many connects waited for that, the same
    from the live run and from its JSON (`pacer merge` reads the connect
    histogram back), and it is the number of connections whose connect took that
    long in the request log.

    The server listens with backlog 0 (one queued connection), accepts pacer's
    start-up probe, then nothing for 1.5 s: of the run's other connections one
    waits in the queue and the rest have their SYNs dropped, and pacer's own
    redials (below) end with the start's hold at 1.5 s, so the last SYN is the
    kernel's to resend."""
    with late_acceptor(0, 1.5) as (port, accepts):
        out, log = tmp_path / "r.json", tmp_path / "log.csv"
        run = pacer("-t1", "-c4", "-d4s", "--timeout", "10s", "--format", "json", "-o", str(out),
                    "--log-requests", str(log), f"http://127.0.0.1:{port}/", timeout=60)
        merged = pacer("merge", str(out), timeout=30)
    assert run.rc == 0 and merged.rc == 0, (run, merged)
    pattern = r"(\d+) connects? took 1s or more, waiting for the kernel to resend a SYN the server dropped"
    live = re.search(pattern, " ".join(run.stdout.split()))
    again = re.search(pattern, " ".join(merged.stdout.split()))
    assert live and again and live.group(1) == again.group(1), (run.stdout, merged.stdout)
    with open(log, newline="") as f:
        slow = [r for r in csv.DictReader(f) if r.get("connect_ns") and int(r["connect_ns"]) >= 990_000_000]
    assert int(live.group(1)) == len(slow) >= 1, (slow, run.stdout)
    assert len(accepts) == 4, accepts  # every connection got in, late
    errors = json.loads(out.read_text())["errors"]
    assert not any(errors.values()), errors  # --timeout 10s: the resent SYNs were answered in time


def test_a_dropped_syn_is_dialled_again_at_once_and_the_connections_start_together(pacer, tmp_path):
    """The closed loop's start (engine/conn/start_gate.h): no connection sends until
    every one has connected, and a connect whose SYN goes unanswered while the
    others were (4 times the probe's connect, 20 ms at least) is dialled again from
    a fresh socket, doubling the wait each time, instead of waiting a second for the
    kernel's resend. The server (backlog 1) accepts nothing for 0.3 s after the
    probe: before the fix the dropped SYNs took 1 s or more to connect and the
    connections that got in began at once; now every connect is done well within
    1 s, the report, its JSON and `pacer merge` give the same count of redials, and
    the connections' first requests go out together, after the last connect."""
    with late_acceptor(1, 0.3) as (port, accepts):
        out, log = tmp_path / "r.json", tmp_path / "log.csv"
        run = pacer("-t1", "-c6", "-d2s", "--format", "json", "-o", str(out), "--log-requests", str(log),
                    f"http://127.0.0.1:{port}/", timeout=60)
        merged = pacer("merge", str(out), timeout=30)
    assert run.rc == 0 and merged.rc == 0, (run, merged)
    doc = json.loads(out.read_text())
    assert not any(doc["errors"].values()), doc["errors"]
    assert doc["counts"]["connects"] == 6 == len(accepts), (doc["counts"], accepts)
    pattern = r"(\d+) connects? (?:was|were) dialled again at the start"
    live = re.search(pattern, " ".join(run.stdout.split()))
    again = re.search(pattern, " ".join(merged.stdout.split()))
    assert live and again, (run.stdout, merged.stdout)
    assert int(live.group(1)) == int(again.group(1)) == doc["counts"]["redials"] >= 1, (run.stdout, doc["counts"])
    first = first_sends_by_connection(log)
    assert len(first) == 6, first.keys()
    connects = [int(r["connect_ns"]) for r in first.values()]
    assert max(connects) < 900_000_000, connects  # no connect waited for the kernel's resend
    assert max(connects) - min(connects) >= 200_000_000, connects  # some waited out the server's 0.3 s
    sends = [int(r["send_unix_us"]) for r in first.values()]
    # Together: the spread of the first sends is far below the spread of the connect times.
    assert (max(sends) - min(sends)) * 1000 < (max(connects) - min(connects)) / 4, (sends, connects)
