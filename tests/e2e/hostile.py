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
import functools
import os
import re
import socket
import struct
import subprocess
import threading
import time
from typing import Callable

from conftest import PACER_BIN, Run

Behaviour = Callable[[socket.socket, threading.Event], None]


class HostileServer:
    """Accepts on 127.0.0.1:`port` (0: any free port) and runs `behaviour` for every
    connection."""

    def __init__(self, behaviour: Behaviour, backlog: int = 128, port: int = 0):
        self.behaviour = behaviour
        self.accepted = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._conns: list[socket.socket] = []
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", port))
        self._sock.listen(backlog)
        self._sock.settimeout(0.05)
        self.port = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        self._threads: list[threading.Thread] = []
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
                t = threading.Thread(target=self._serve, args=(conn,), daemon=True)
                self._threads.append(t)
            t.start()

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
        try:
            # Stops listening at once (a connect from now on is refused) and wakes
            # the accept loop; close() alone would wait for the loop's poll to end.
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._thread.join(timeout=5)
        self._sock.close()
        with self._lock:
            for c in self._conns:
                try:
                    c.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def kill(self) -> None:
        """Goes away as a killed process does: stops listening, then closes every
        connection, and waits for the behaviours to return (so their counts are
        final). A new HostileServer may then listen on the same port."""
        self.close()
        with self._lock:
            threads = list(self._threads)
        for t in threads:
            t.join(timeout=5)

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


class Tally:
    """Thread-safe counts of what a behaviour did (answers sent in full, requests
    dropped...), for tests that compare them with pacer's report."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[str, int] = {}

    def add(self, name: str, by: int = 1) -> None:
        with self._lock:
            self._counts[name] = self._counts.get(name, 0) + by

    def __getitem__(self, name: str) -> int:
        with self._lock:
            return self._counts.get(name, 0)

    def __repr__(self) -> str:
        with self._lock:
            return f"Tally({self._counts})"


def garbage(data: bytes) -> Behaviour:
    """Answers every request with `data`, which is not HTTP."""
    return answer_each_request(data)


def trickle(response: bytes, interval_s: float) -> Behaviour:
    """Slowloris: answers each request one byte every `interval_s` seconds."""

    def behaviour(conn: socket.socket, stop: threading.Event) -> None:
        buf = bytearray()
        while read_request_head(conn, stop, buf) is not None:
            for i in range(len(response)):
                if stop.wait(interval_s):
                    return
                conn.sendall(response[i : i + 1])

    return behaviour


def reset_after(response: bytes, sent_bytes: int) -> Behaviour:
    """After the first request's head, sends the first `sent_bytes` of `response`
    and then resets the connection (SO_LINGER 0: an RST, not a FIN)."""

    def behaviour(conn: socket.socket, stop: threading.Event) -> None:
        buf = bytearray()
        if read_request_head(conn, stop, buf) is None:
            return
        conn.sendall(response[:sent_bytes])
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    return behaviour


def answer_before_the_body(response: bytes, tally: Tally) -> Behaviour:
    """An early response: answers each request as soon as its head has arrived, then
    reads the rest of its body (Content-Length), so the answer reaches the client while
    it is still sending. tally["early"] counts answers sent while some of the body had
    not arrived yet."""

    def behaviour(conn: socket.socket, stop: threading.Event) -> None:
        buf = bytearray()
        while (head := read_request_head(conn, stop, buf)) is not None:
            m = re.search(rb"(?im)^content-length:\s*(\d+)", head)
            left = int(m.group(1)) if m else 0
            if len(buf) < left:
                tally.add("early")
            conn.sendall(response)
            left -= min(left, len(buf))
            del buf[:]
            while left > 0 and not stop.is_set():
                try:
                    chunk = conn.recv(min(left, 1 << 20))
                except socket.timeout:
                    continue
                if not chunk:
                    return
                left -= len(chunk)

    return behaviour


def answer_after(response: bytes, delay_s: float, tally: Tally) -> Behaviour:
    """Answers each request `delay_s` after its head arrived. tally["answered"] counts
    answers sent in full, tally["dropped"] requests read but never answered (the
    server was killed meanwhile)."""

    def behaviour(conn: socket.socket, stop: threading.Event) -> None:
        buf = bytearray()
        while read_request_head(conn, stop, buf) is not None:
            if stop.wait(delay_s):
                tally.add("dropped")
                return
            try:
                conn.sendall(response)
            except OSError:
                tally.add("dropped")
                raise
            tally.add("answered")

    return behaviour


# -------------------------------------------------------------------- measuring pacer


@functools.lru_cache(maxsize=None)
def sanitizer() -> str | None:
    """"tsan" or "asan" when PACER_BIN is a sanitizer build (named by the runtime it
    links), else None: memory and CPU bounds scale with the sanitizer's overhead."""
    with open(PACER_BIN, "rb") as f:
        binary = f.read()
    for name in ("tsan", "asan"):
        if f"lib{name}.so".encode() in binary:
            return name
    return None


# How much more memory and CPU time a run takes under each sanitizer (TSan shadows
# every byte touched with 4 more; ASan adds redzones and a quarantine), measured here.
RSS_FACTOR = {"tsan": 5, "asan": 3}
CPU_FACTOR = {"tsan": 15, "asan": 3}


def rss_factor() -> int:
    return RSS_FACTOR.get(sanitizer() or "", 1)


def cpu_factor() -> int:
    return CPU_FACTOR.get(sanitizer() or "", 1)


@dataclasses.dataclass
class MeasuredRun(Run):
    wall_s: float = 0.0
    peak_rss_kb: int = 0


def _peak_rss_kb(pid: int) -> int:
    """VmHWM of a live process (its peak RSS since its last exec), 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run_measured(*args: str, timeout: float = 60.0, input: bytes | None = None) -> MeasuredRun:
    """Runs pacer like conftest.run_pacer and also returns its wall time and peak RSS.

    The RSS is pacer's own, so concurrent tests do not disturb it: wait4()'s ru_maxrss
    of this one child when that is above this Python's peak (the kernel folds the peak
    of the memory the child was spawned from into it), otherwise the child's VmHWM,
    polled while it runs."""
    started = time.monotonic()
    spawned_from_kb = _peak_rss_kb(os.getpid())
    proc = subprocess.Popen(
        [PACER_BIN, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    spawned_from_kb = max(spawned_from_kb, _peak_rss_kb(os.getpid()))
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
    polled_kb = 0
    while True:
        polled_kb = max(polled_kb, _peak_rss_kb(proc.pid))
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
        peak_rss_kb=usage.ru_maxrss if usage.ru_maxrss > spawned_from_kb else max(polled_kb, 1),
    )


__all__ = [
    "HostileServer",
    "MeasuredRun",
    "Tally",
    "after_request_send_forever",
    "answer_after",
    "answer_before_the_body",
    "answer_each_request",
    "cpu_factor",
    "garbage",
    "read_request_head",
    "reset_after",
    "rss_factor",
    "run_measured",
    "sanitizer",
    "silent",
    "trickle",
]
