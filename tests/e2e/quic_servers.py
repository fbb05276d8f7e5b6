"""HTTP/3 servers for the --http3 end-to-end tests: `gtlsserver` (ngtcp2's GnuTLS
example server, package ngtcp2-server) and Caddy 2.6 (`servers { protocols h1 h2
h3 }`), each started by a test on 127.0.0.1 with a certificate from a private CA
made here with the openssl CLI, and always stopped (SIGTERM, then SIGKILL) when the
test ends. Readiness is the server's UDP port appearing in /proc/net/udp (QUIC
has no connect to poll)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

START_TIMEOUT_S = 15.0


def openssl(*args: str, cwd: Path) -> None:
    done = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, timeout=60)
    assert done.returncode == 0, f"openssl {' '.join(args)}:\n{done.stderr.decode()}"


def make_private_ca(directory: Path, san: str = "DNS:localhost,IP:127.0.0.1", name: str = "server") -> Path:
    """ca.pem (+ ca.key) and {name}.pem / {name}.key signed by it for `san`."""
    directory.mkdir(parents=True, exist_ok=True)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    if not (directory / "ca.pem").exists():
        openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "1", "-subj",
                "/CN=pacer h3 test CA", cwd=directory)
    (directory / f"{name}.ext").write_text(f"subjectAltName={san}\nextendedKeyUsage=serverAuth\n")
    openssl("req", *ec, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN=pacer {name}", cwd=directory)
    openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", f"{name}.pem", "-days", "1", "-extfile", f"{name}.ext", cwd=directory)
    return directory


def free_udp_port() -> int:
    """A UDP port on 127.0.0.1 nothing is bound to (and its TCP twin is free too, for Caddy)."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
            u.bind(("127.0.0.1", 0))
            port = u.getsockname()[1]
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as t:
                t.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue


def udp_bound(port: int) -> bool:
    needle = f":{port:04X} "
    for table in ("/proc/net/udp", "/proc/net/udp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        if any(needle in line.split("00000000:0000")[0] + " " for line in lines):
            return True
    return False


def write_bodies(htdocs: Path) -> Path:
    """Files of 0 B, 100 KB and 5 MB (the bodies the tests fetch)."""
    htdocs.mkdir(parents=True, exist_ok=True)
    (htdocs / "empty").write_bytes(b"")
    (htdocs / "100k").write_bytes(b"x" * 100_000)
    (htdocs / "5m").write_bytes(b"y" * 5_000_000)
    (htdocs / "index.html").write_bytes(b"hello over HTTP/3\n")
    return htdocs


class _Server:
    name = "server"

    def __init__(self, args: list[str], port: int, log: Path, env: dict[str, str] | None = None):
        self.port = port
        self.log = log
        self._log_file = open(log, "wb")
        self.proc = subprocess.Popen(args, stdout=self._log_file, stderr=subprocess.STDOUT, env=env,
                                     start_new_session=True)
        deadline = time.monotonic() + START_TIMEOUT_S
        while not udp_bound(port):
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode}:\n{log.read_text(errors='replace')}")
            if time.monotonic() > deadline:
                self.stop()
                raise TimeoutError(f"{self.name} did not bind UDP port {port} within {START_TIMEOUT_S}s")
            time.sleep(0.05)

    def url(self, path: str = "/", host: str = "127.0.0.1") -> str:
        return f"https://{host}:{self.port}{path}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self._log_file.close()


class GtlsServer(_Server):
    """gtlsserver serving `htdocs`; requests are counted from its log ("http: stream
    0x.. request headers started", one per request; --no-quic-dump and
    --no-http-dump keep the rest of its debug output small)."""

    name = "gtlsserver"

    def __init__(self, directory: Path, certs: Path, htdocs: Path, *extra: str):
        port = free_udp_port()
        args = ["gtlsserver", "--no-quic-dump", "--no-http-dump", *extra, "-d", str(htdocs), "127.0.0.1", str(port),
                str(certs / "server.key"), str(certs / "server.pem")]
        super().__init__(args, port, directory / "gtlsserver.log")

    def requests(self) -> int:
        """Requests whose headers the server received (one ':path' header each)."""
        self._log_file.flush()
        text = self.log.read_text(errors="replace")
        return sum(1 for line in text.splitlines() if line.startswith("http: stream") and "request headers started" in line)


class CaddyServer(_Server):
    """Caddy with HTTP/3 on, a file server over `htdocs` and a JSON access log.

    `hold_port`: /hold/* is proxied to that TCP port (a listener that never answers)."""

    name = "caddy"

    def __init__(self, directory: Path, certs: Path, htdocs: Path, hold_port: int | None = None):
        port = free_udp_port()
        self.access_log = directory / "access.log"
        hold = ""
        if hold_port is not None:
            hold = f"\thandle /hold/* {{\n\t\treverse_proxy 127.0.0.1:{hold_port}\n\t}}\n"
        caddyfile = directory / "Caddyfile"
        caddyfile.write_text(
            "{\n\tadmin off\n\tauto_https off\n\tdefault_sni localhost\n\tservers {\n\t\tprotocols h1 h2 h3\n\t}\n}\n"
            f"https://127.0.0.1:{port}, https://localhost:{port} {{\n"
            f"\ttls {certs / 'server.pem'} {certs / 'server.key'}\n"
            f"\tlog {{\n\t\toutput file {self.access_log}\n\t\tformat json\n\t}}\n"
            f"{hold}"
            f"\thandle {{\n\t\troot * {htdocs}\n\t\tfile_server\n\t}}\n"
            "}\n")
        env = dict(os.environ, HOME=str(directory), XDG_DATA_HOME=str(directory / "data"),
                   XDG_CONFIG_HOME=str(directory / "config"))
        args = ["caddy", "run", "--config", str(caddyfile), "--adapter", "caddyfile"]
        super().__init__(args, port, directory / "caddy.log", env)

    def entries(self) -> list[dict]:
        if not self.access_log.exists():
            return []
        out = []
        for line in self.access_log.read_text(errors="replace").splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
        return out

    def h3_requests(self, status: int | None = None) -> int:
        return sum(1 for e in self.entries()
                   if e.get("request", {}).get("proto") == "HTTP/3.0" and (status is None or e.get("status") == status))


class SilentTcp:
    """A TCP listener that accepts and never answers (Caddy's upstream for a stream
    that gets no response). Closed by stop()."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.port = self.sock.getsockname()[1]
        self._held: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        self.sock.settimeout(0.1)
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
                self._held.append(conn)
            except OSError:
                continue

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        for c in self._held:
            c.close()
        self.sock.close()
