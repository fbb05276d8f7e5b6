"""nginx as a peer for the end-to-end tests (HTTP/1.1, h2c, TLS): one private
prefix per server (its config, pid, logs and temp paths under one directory), a
named access-log format, started in the foreground and waited for until its TCP
port accepts, and always stopped (SIGTERM, then SIGKILL) by stop_process()."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Callable

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
START_TIMEOUT_S = 10.0


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_nginx(d: Path, port: int, log_format: str, servers: str, http_lines: str = "",
                ready: Callable[[], bool] = lambda: True) -> subprocess.Popen:
    """nginx with prefix `d`, logging `log_format` per request to d/access.log;
    `servers` (server blocks) and `http_lines` go in its http block. Returns once
    127.0.0.1:port accepts and ready() holds; raises RuntimeError (with the error
    log) if nginx exits or is not ready within START_TIMEOUT_S."""
    (d / "nginx.conf").write_text(f"""
daemon off;
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log;
events {{ worker_connections 1024; }}
http {{
  log_format peer '{log_format}';
  access_log {d}/access.log peer;
  client_body_temp_path {d}/body; proxy_temp_path {d}/proxy; fastcgi_temp_path {d}/fastcgi;
  uwsgi_temp_path {d}/uwsgi; scgi_temp_path {d}/scgi;
  {http_lines}
  {servers}
}}
""")
    proc = subprocess.Popen([NGINX, "-p", str(d), "-c", str(d / "nginx.conf"), "-e", str(d / "error.log")],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log = d / "error.log"
            raise RuntimeError(f"nginx exited with {proc.returncode}: {log.read_text() if log.exists() else ''}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                if ready():
                    return proc
        except OSError:
            pass
        time.sleep(0.02)
    stop_process(proc)
    raise RuntimeError(f"nginx did not listen on {port} within {START_TIMEOUT_S}s")


def stop_process(proc: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL after 10 s; reaps it."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
