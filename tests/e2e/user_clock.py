"""A tiny HTTP/1.1 server that notes which virtual user sent each request and when
(the users put their id in the path: /t?u=ID), so a test reads a scenario's user
counts at the server, not from pacer's own figures."""

from __future__ import annotations

import re
import threading
import time


class UserClock:
    """A tiny HTTP/1.1 server (raw sockets, one thread per connection): notes when
    each request came and which user sent it (/t?u=ID), answers 200 at once."""

    def __init__(self, hostile_server, status: int = 200):
        self.seen: list[tuple[float, int]] = []
        self.paths: list[tuple[float, int, str]] = []  # (when, user, the request's path)
        self._lock = threading.Lock()
        self._response = f"HTTP/1.1 {status} X\r\nContent-Length: 0\r\n\r\n".encode()
        self.server = hostile_server(self._serve)
        self.url = self.server.url

    def _serve(self, conn, stop) -> None:
        buf = b""
        while not stop.is_set():
            while b"\r\n\r\n" not in buf:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                buf += chunk
            head, _, buf = buf.partition(b"\r\n\r\n")
            line = head.split(b"\r\n", 1)[0]
            m = re.search(rb"[?&]u=(\d+)", line)
            user = int(m.group(1)) if m else -1
            path = line.split(b" ")[1].decode("latin-1") if line.count(b" ") >= 2 else ""
            now = time.monotonic()
            with self._lock:
                self.seen.append((now, user))
                self.paths.append((now, user, path))
            conn.sendall(self._response)

    def users_between(self, t0: float, a: float, b: float) -> set[int]:
        with self._lock:
            return {u for t, u in self.seen if t0 + a <= t < t0 + b}

    def users_on(self, prefix: str, t0: float, a: float, b: float) -> set[int]:
        """The users whose requests to a path starting with prefix came in [t0 + a, t0 + b)."""
        with self._lock:
            return {u for t, u, p in self.paths if t0 + a <= t < t0 + b and p.startswith(prefix)}
