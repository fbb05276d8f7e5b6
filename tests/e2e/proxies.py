"""squid and tinyproxy as peers for the proxy tests (test_proxy.py): each started
in the foreground on 127.0.0.1 with a private temporary configuration, waited for
until its port accepts, and always stopped (SIGTERM, then SIGKILL) by stop().
A test skips when the binary is missing (scripts/setup.sh's test profile
installs both; CI has them)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from nginx_peer import free_port, stop_process

SQUID = shutil.which("squid") or "/usr/sbin/squid"
TINYPROXY = shutil.which("tinyproxy") or "/usr/bin/tinyproxy"
BASIC_NCSA_AUTH = "/usr/lib/squid/basic_ncsa_auth"
START_TIMEOUT_S = 15.0


def _wait_listening(proc: subprocess.Popen, port: int, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"proxy exited with {proc.returncode}: {log.read_text() if log.exists() else ''}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    stop_process(proc)
    raise RuntimeError(f"proxy did not listen on {port} within {START_TIMEOUT_S}s")


class Proxy:
    url: str
    dir: Path
    proc: subprocess.Popen

    def stop(self) -> None:
        stop_process(self.proc)
        shutil.rmtree(self.dir, ignore_errors=True)


class Squid(Proxy):
    """squid 5 without a cache; with `users` ({name: password}), basic auth through
    basic_ncsa_auth and an htpasswd file made by `openssl passwd -apr1`."""

    def __init__(self, users: dict[str, str] | None = None):
        self.dir = Path(tempfile.mkdtemp(prefix="pacer_squid_"))
        os.chmod(self.dir, 0o777)  # squid started as root works as the 'proxy' user
        self.port = free_port()
        access = "http_access allow loopback"
        if users:
            lines = []
            for name, password in users.items():
                hashed = subprocess.run(["openssl", "passwd", "-apr1", password], capture_output=True, text=True,
                                        check=True, timeout=10).stdout.strip()
                lines.append(f"{name}:{hashed}\n")
            (self.dir / "htpasswd").write_text("".join(lines))
            os.chmod(self.dir / "htpasswd", 0o644)
            access = (f"auth_param basic program {BASIC_NCSA_AUTH} {self.dir}/htpasswd\n"
                      "auth_param basic children 2\nauth_param basic realm pacer\n"
                      "acl authed proxy_auth REQUIRED\nhttp_access allow authed")
        (self.dir / "squid.conf").write_text(f"""
http_port 127.0.0.1:{self.port}
visible_hostname pacer-test
pid_filename {self.dir}/squid.pid
access_log stdio:{self.dir}/access.log squid
cache_log {self.dir}/cache.log
cache_store_log none
cache deny all
cache_mem 8 MB
coredump_dir {self.dir}
shutdown_lifetime 0 seconds
dns_nameservers 127.0.0.1
acl loopback src 127.0.0.0/8
{access}
http_access deny all
""")
        self.proc = subprocess.Popen([SQUID, "-N", "-f", str(self.dir / "squid.conf")], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=open(self.dir / "stderr.log", "wb"))
        _wait_listening(self.proc, self.port, self.dir / "cache.log")
        self.url = f"http://127.0.0.1:{self.port}"

    def log_lines(self) -> list[str]:
        path = self.dir / "access.log"
        return path.read_text().splitlines() if path.exists() else []


class Tinyproxy(Proxy):
    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="pacer_tinyproxy_"))
        os.chmod(self.dir, 0o777)
        self.port = free_port()
        (self.dir / "tinyproxy.conf").write_text(f"""
User nobody
Group nogroup
Port {self.port}
Listen 127.0.0.1
Timeout 60
LogFile "{self.dir}/tinyproxy.log"
LogLevel Connect
PidFile "{self.dir}/tinyproxy.pid"
MaxClients 200
Allow 127.0.0.1
DisableViaHeader Yes
""")
        self.proc = subprocess.Popen([TINYPROXY, "-d", "-c", str(self.dir / "tinyproxy.conf")],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=open(self.dir / "stderr.log", "wb"))
        _wait_listening(self.proc, self.port, self.dir / "stderr.log")
        self.url = f"http://127.0.0.1:{self.port}"

    def log_lines(self) -> list[str]:
        path = self.dir / "tinyproxy.log"
        return path.read_text().splitlines() if path.exists() else []


def have(binary: str) -> bool:
    return os.path.isfile(binary) and os.access(binary, os.X_OK)
