"""Helpers for the live web view's tests (--web): a pacer run whose web view's URL
is read from stderr, a Server-Sent Events reader and plain requests to the view.
Everything is bounded in time and talks only to the address pacer printed."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import threading
import time
import urllib.parse

from conftest import PACER_BIN

URL_LINE = re.compile(r"pacer: web view at (http://(\S+?):(\d+)/(?:\?token=(\S+))?)(?:\s|$)")


class WebRun:
    """pacer [args] with --web: started at once, its stderr read by a thread; the
    web view's URL, port and token come from its first line. Killed on close."""

    def __init__(self, *args: str, start_timeout: float = 15.0):
        self.args = list(args)
        self.proc = subprocess.Popen([PACER_BIN, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.stderr_lines: list[str] = []
        self._seen_url = threading.Event()
        self._reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._reader.start()
        self.stdout = ""
        if not self._seen_url.wait(start_timeout):
            self.close()
            raise AssertionError(f"no web view URL on stderr: {self.stderr_lines}")
        m = next(URL_LINE.search(line) for line in self.stderr_lines if URL_LINE.search(line))
        self.url, self.host, self.port, self.token = m.group(1), m.group(2), int(m.group(3)), m.group(4)

    def _read_stderr(self) -> None:
        for raw in self.proc.stderr:
            line = raw.decode(errors="replace")
            self.stderr_lines.append(line)
            if URL_LINE.search(line):
                self._seen_url.set()
        self._seen_url.set()

    def _communicate(self, timeout: float) -> bytes:
        # stdout only: stderr is the reader thread's. Two readers of one pipe race
        # (communicate's select sees bytes the thread then takes, and its read
        # blocks while pacer blocks writing the unread stdout: a deadlock).
        stderr, self.proc.stderr = self.proc.stderr, None
        try:
            out, _ = self.proc.communicate(timeout=timeout)
        finally:
            self.proc.stderr = stderr
        return out or b""

    def wait(self, timeout: float) -> int:
        out = self._communicate(timeout)
        self._reader.join(timeout=5)
        self.stdout = out.decode(errors="replace")
        return self.proc.returncode

    @property
    def stderr(self) -> str:
        return "".join(self.stderr_lines)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self._communicate(10)

    def __enter__(self) -> "WebRun":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def request(port: int, method: str, path: str, headers: dict[str, str] | None = None,
            host: str = "127.0.0.1", timeout: float = 5.0) -> tuple[int, dict[str, str], bytes]:
    """One request on its own connection (the view closes after each reply)."""
    with socket.create_connection((host, port), timeout=timeout) as s:
        fields = {"Host": f"{host}:{port}", **(headers or {})}
        head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields.items()) + "\r\n"
        s.sendall(head.encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head_bytes, _, body = data.partition(b"\r\n\r\n")
    lines = head_bytes.decode().split("\r\n")
    status = int(lines[0].split()[1])
    fields_in = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return status, fields_in, body


def with_token(path: str, token: str | None) -> str:
    return path if not token else f"{path}?token={urllib.parse.quote(token)}"


class EventStream:
    """GET /events, read as Server-Sent Events on a thread: `intervals` (the JSON
    objects, in order, with the time each arrived), `end` (the final report) and
    `events` (every event in order as (name, JSON): "message" for an interval,
    "search" for a capacity search's progress, "end")."""

    def __init__(self, port: int, token: str | None = None, host: str = "127.0.0.1"):
        self.intervals: list[tuple[float, dict]] = []
        self.events: list[tuple[str, dict]] = []
        self.ids: list[int] = []
        self.end: dict | None = None
        self.status: int | None = None
        self.content_type = ""
        self._sock = socket.create_connection((host, port), timeout=60)
        self._sock.sendall(f"GET {with_token('/events', token)} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        self.got_interval = threading.Event()
        self.closed = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        buf = b""
        try:
            while b"\r\n\r\n" not in buf and (chunk := self._sock.recv(65536)):
                buf += chunk
            head, _, buf = buf.partition(b"\r\n\r\n")
            lines = head.decode().split("\r\n")
            self.status = int(lines[0].split()[1])
            self.content_type = next((l.split(":", 1)[1].strip() for l in lines[1:]
                                      if l.lower().startswith("content-type:")), "")
            while True:
                while b"\n\n" in buf:
                    block, _, buf = buf.partition(b"\n\n")
                    self._event(block.decode())
                chunk = self._sock.recv(65536)
                if not chunk:
                    break
                buf += chunk
        except OSError:
            pass
        finally:
            self.closed.set()

    def _event(self, block: str) -> None:
        name, data, event_id = "message", [], None
        for line in block.split("\n"):
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)
            elif field == "id":
                event_id = int(value)
        if not data:
            return  # retry:, comments
        doc = json.loads("\n".join(data))
        self.events.append((name, doc))
        if name == "end":
            self.end = doc
        elif name == "message":
            self.intervals.append((time.monotonic(), doc))
            self.ids.append(event_id)
            self.got_interval.set()

    def wait_closed(self, timeout: float) -> bool:
        return self.closed.wait(timeout)

    def close(self) -> None:
        try:
            self._sock.close()
        except OSError:
            pass
