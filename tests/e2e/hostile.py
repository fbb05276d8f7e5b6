"""Hostile servers for the fault suite: a loopback TCP listener that hands each accepted
connection to a behaviour, plus the behaviours a load generator meets at its worst.

A behaviour is a function `behaviour(conn: socket.socket, stop: threading.Event)`; it runs
on its own daemon thread per connection and should return when `stop` is set (sends to a
peer that went away raise OSError, which the server swallows). Everything listens on
127.0.0.1 and is stopped by `close()` (or the `hostile_server` fixture) whatever happens.

Also here: `run_measured`, which runs pacer and reports its wall time and peak RSS
(from the kernel's accounting of the waited-for child), so each fault test can assert
bounded time and bounded memory beside the exact counts.
"""

from __future__ import annotations

import dataclasses
import os
import socket
import subprocess
import threading
import time
from typing import Callable

from conftest import PACER_BIN, Run

Behaviour = Callable[[socket.socket, threading.Event], None]


class HostileServer:
    """Accepts on 127.0.0.1:0 and runs `behaviour` for every connection."""

    def __init__(self, behaviour: Behaviour, backlog: int = 128):
        self.behaviour = behaviour
        self.accepted = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._conns: list[socket.socket] = []
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(backlog)
        self._sock.settimeout(0.05)
        self.port = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        self._thread = threading.Thread(target=self._accept_loop, daemon=True)
        self._thread.start()

    def _accept_loop(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except (socket.timeout, OSError):
                continue
            with self._lock:
                self.accepted += 1
                self._conns.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            self.behaviour(conn, self._stop)
        except OSError:
            pass
        finally:
            try:
                conn.close()
            except OSError:
                pass

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._sock.close()
        with self._lock:
            for c in self._conns:
                try:
                    c.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def __enter__(self) -> "HostileServer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# ----------------------------------------------------------------------- behaviours


def read_request_head(conn: socket.socket, stop: threading.Event, buf: bytearray) -> bytes | None:
    """Reads until a blank line; returns the head (without it) and leaves the rest in buf.
    None when the peer closed or the server is stopping."""
    conn.settimeout(0.1)
    while b"\r\n\r\n" not in buf:
        if stop.is_set():
            return None
        try:
            chunk = conn.recv(65536)
        except socket.timeout:
            continue
        if not chunk:
            return None
        buf += chunk
    head, _, rest = bytes(buf).partition(b"\r\n\r\n")
    buf[:] = rest
    return head


def answer_each_request(response: bytes) -> Behaviour:
    """Answers every request on the connection with the same bytes (bodies not expected)."""

    def behaviour(conn: socket.socket, stop: threading.Event) -> None:
        buf = bytearray()
        while read_request_head(conn, stop, buf) is not None:
            conn.sendall(response)

    return behaviour


def after_request_send_forever(first: bytes, chunk: bytes) -> Behaviour:
    """After the first request's head: `first`, then `chunk` repeated at full speed until
    the peer goes away or the server stops (endless headers, endless chunked bodies)."""

    def behaviour(conn: socket.socket, stop: threading.Event) -> None:
        buf = bytearray()
        if read_request_head(conn, stop, buf) is None:
            return
        conn.settimeout(1.0)
        conn.sendall(first)
        block = chunk * max(1, 65536 // max(1, len(chunk)))
        while not stop.is_set():
            conn.sendall(block)

    return behaviour


def silent(conn: socket.socket, stop: threading.Event) -> None:
    """Accepts, reads whatever comes, never answers."""
    conn.settimeout(0.1)
    while not stop.is_set():
        try:
            if not conn.recv(65536):
                return
        except socket.timeout:
            continue


# -------------------------------------------------------------------- measuring pacer


@dataclasses.dataclass
class MeasuredRun(Run):
    wall_s: float = 0.0
    peak_rss_kb: int = 0


def run_measured(*args: str, timeout: float = 60.0, input: bytes | None = None) -> MeasuredRun:
    """Runs pacer like conftest.run_pacer and also returns its wall time and peak RSS.

    The RSS comes from wait4()'s rusage of this one child, so concurrent tests do not
    disturb it."""
    started = time.monotonic()
    proc = subprocess.Popen(
        [PACER_BIN, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    out_chunks: list[bytes] = []
    err_chunks: list[bytes] = []

    def pump(stream, into: list[bytes]) -> None:
        for block in iter(lambda: stream.read(65536), b""):
            into.append(block)

    readers = [
        threading.Thread(target=pump, args=(proc.stdout, out_chunks), daemon=True),
        threading.Thread(target=pump, args=(proc.stderr, err_chunks), daemon=True),
    ]
    for t in readers:
        t.start()
    try:
        if input:
            proc.stdin.write(input)
        proc.stdin.close()
    except BrokenPipeError:
        pass
    deadline = started + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            os.wait4(proc.pid, 0)
            raise AssertionError(f"pacer {' '.join(args)} did not end within {timeout}s")
        time.sleep(0.02)
    wall = time.monotonic() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    for t in readers:
        t.join(timeout=5)
    return MeasuredRun(
        list(args),
        proc.returncode,
        b"".join(out_chunks).decode("utf-8", errors="replace"),
        b"".join(err_chunks).decode("utf-8", errors="replace"),
        wall_s=wall,
        peak_rss_kb=usage.ru_maxrss,
    )


__all__ = [
    "HostileServer",
    "MeasuredRun",
    "after_request_send_forever",
    "answer_each_request",
    "read_request_head",
    "run_measured",
    "silent",
]
