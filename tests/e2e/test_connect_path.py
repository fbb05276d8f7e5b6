"""The connect path's other options (issue 33): --user (basic authentication on
every request, scenarios included), --bind (source addresses round-robin; ports
running out is its own error class, shown in a network namespace with a small
ephemeral range), and the TLS knobs (--tls-min/--tls-max, --ciphers,
--tls13-ciphers, --no-sni) against nginx. Every server is stopped whatever
happens; every run takes about a second."""

from __future__ import annotations

import base64
import collections
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import PACER_BIN, RecordingServer
from nginx_peer import free_port, start_nginx, stop_process
from test_tls import make_cert


def basic(user: str, password: str) -> bytes:
    return b"Basic " + base64.b64encode(f"{user}:{password}".encode())


def test_user_sends_basic_auth_unless_the_request_has_its_own(recording_server, pacer, tmp_path):
    run = pacer("--user", "alice:pa:ss", "-n", "3", "-c", "1", "-t", "1", recording_server.url)
    assert run.rc == 0, run
    got = recording_server.wait_for_requests(3)
    assert [r.header_values(b"Authorization") for r in got] == [[basic("alice", "pa:ss")]] * 3
    # A -H Authorization wins over --user (one header, never two).
    run = pacer("--user", "alice:x", "-H", "Authorization: Bearer t", "-n", "2", "-c", "1", "-t", "1",
                recording_server.url)
    assert run.rc == 0, run
    got = recording_server.wait_for_requests(5)[3:]
    assert [r.header_values(b"Authorization") for r in got] == [[b"Bearer t"]] * 2


def test_user_reaches_scenario_requests_that_set_no_authorization(recording_server, pacer, tmp_path):
    path = tmp_path / "s.lua"
    path.write_text("""
return { tasks = { {1, function(u)
  u:get("/plain")
  u:get("/own", {Authorization = "Bearer mine"})
end} } }
""")
    run = pacer("--user", "bob:pw", "-u", "1", "-t", "1", "-d", "300ms", "--scenario", str(path), recording_server.url)
    assert run.rc == 0, run
    got = recording_server.wait_for_requests(2)
    by_path = collections.defaultdict(set)
    for r in got:
        by_path[r.target].update(r.header_values(b"Authorization"))
    assert by_path[b"/plain"] == {basic("bob", "pw")}, by_path
    assert by_path[b"/own"] == {b"Bearer mine"}, by_path


class PeerServer(RecordingServer):
    """RecordingServer that also keeps each connection's source address."""

    def __init__(self):
        self.peers: list[str] = []
        super().__init__()

    def _serve(self, conn, stop):
        with self._lock:
            self.peers.append(conn.getpeername()[0])
        super()._serve(conn, stop)


@pytest.mark.tsan
def test_bind_spreads_connections_over_a_range_round_robin(pacer):
    server = PeerServer()
    try:
        run = pacer("-B", "127.0.0.2-127.0.0.5", "-c", "8", "-t", "2", "-n", "100", "--format", "json", server.url)
        report = json.loads(run.stdout)
        assert run.rc == 0 and report["counts"]["responses"] == 100, run
        assert report["connection_path"]["bind_addresses"] == 4
        server.wait_for_requests(100)
        assert collections.Counter(server.peers) == {f"127.0.0.{i}": 2 for i in range(2, 6)}, server.peers
    finally:
        server.close()


@pytest.mark.tsan
def test_bind_of_another_family_than_the_target_is_bad_input(pacer):
    run = pacer("-B", "::1", "-d", "1s", "http://127.0.0.1:9/")
    assert run.rc == 2 and "--bind gives IPv6 source addresses" in run.stderr, run
    run = pacer("--bind", "127.0.0.9-127.0.0.2", "-d", "1s", "http://127.0.0.1:9/")
    assert run.rc == 2 and "runs backwards" in run.stderr, run


NETNS_SCRIPT = """
set -e
ip link set lo up
sysctl -qw net.ipv4.ip_local_port_range="40000 40039"
"$PACER" serve --listen 127.0.0.1:8080 -t 1 > serve.out &
serve=$!
trap 'kill $serve 2>/dev/null; wait $serve 2>/dev/null || true' EXIT
for i in $(seq 100); do grep -q listening serve.out 2>/dev/null && break; sleep 0.02; done
# Each run leaves its ports in TIME_WAIT: each uses addresses of its own.
"$PACER" -B 127.0.0.2-127.0.0.3 -c 60 -t 2 -d 1s --format json -o two.json http://127.0.0.1:8080/ || true
"$PACER" -B 127.0.0.4 -c 60 -t 2 -d 1s --format json -o one.json http://127.0.0.1:8080/ || true
"$PACER" -B 127.0.0.4 -c 1 -t 1 -d 1s http://127.0.0.1:8080/ 2> again.err || true
"""


def test_ports_running_out_is_its_own_class_with_the_arithmetic(tmp_path):
    # A network namespace of its own (the test's), where the ephemeral range can
    # be 40 ports without touching the host's: 60 connections need two addresses.
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        pytest.skip("unshare or ip is missing")
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True, timeout=10)
    if probe.returncode != 0:
        pytest.skip(f"cannot create a network namespace here: {probe.stderr.decode().strip()}")
    done = subprocess.run(["unshare", "-n", "sh", "-c", NETNS_SCRIPT], cwd=tmp_path, capture_output=True, timeout=60,
                          env={"PACER": PACER_BIN, "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"})
    assert done.returncode == 0, done.stderr.decode()
    one = json.loads((tmp_path / "one.json").read_text())
    two = json.loads((tmp_path / "two.json").read_text())
    assert one["errors"]["ports"] > 0 and one["errors"]["connect"] == 0, one["errors"]
    assert "40 ports per source address" in one["first_error"], one["first_error"]
    assert "x 1 source address = 40 connections" in one["first_error"] and "--bind" in one["first_error"]
    assert two["errors"]["ports"] == 0 and two["errors"]["connect"] == 0, two["errors"]
    assert two["counts"]["connects"] == 60 and two["counts"]["responses"] > 0, two["counts"]
    # A start-up whose probe finds no port says the arithmetic too.
    again = (tmp_path / "again.err").read_text()
    assert "Cannot assign requested address" in again and "40 ports per source address" in again, again
    # The client's own figures say it beside the run (issue 28): the ports in use from one
    # source address to the server reach the range, and the verdict has the arithmetic.
    client = one["client"]
    assert client["port_range"] == 40, client
    peak = next(p for p in client["peak_ports"] if p["local"] == "127.0.0.4")
    assert peak == {"local": "127.0.0.4", "remote": "127.0.0.1:8080", "in_use": 40}, client["peak_ports"]
    verdict = next(v for v in client["verdicts"] if v.startswith("the client's ephemeral ports"))
    assert "40 of the 40 in the range were in use from 127.0.0.4 to 127.0.0.1:8080" in verdict, verdict
    # 30 of 40 per address: below the 80 % line (a verdict that the suite's own load
    # queued the worker for a CPU may stand: it is true and not this test's).
    assert not any("ephemeral ports" in v for v in two["client"]["verdicts"]), two["client"]


@pytest.fixture
def tls_nginx(tmp_path):
    """nginx on https://localhost:PORT: TLS 1.2 and 1.3; the default server (no SNI)
    has a certificate for other.test, the localhost server one for localhost."""
    local = make_cert(tmp_path / "local", "localhost")
    other = make_cert(tmp_path / "other", "other.test")
    bundle = tmp_path / "bundle.pem"
    bundle.write_text((local / "cert.pem").read_text() + (other / "cert.pem").read_text())
    port = free_port()
    d = tmp_path / "nginx"
    d.mkdir()
    proc = start_nginx(d, port, "$ssl_protocol $status", f"""
  server {{
    listen 127.0.0.1:{port} ssl default_server;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_certificate {other / 'cert.pem'}; ssl_certificate_key {other / 'key.pem'};
    location / {{ return 200 "other\\n"; }}
  }}
  server {{
    listen 127.0.0.1:{port} ssl;
    server_name localhost;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_certificate {local / 'cert.pem'}; ssl_certificate_key {local / 'key.pem'};
    location / {{ return 200 "local\\n"; }}
  }}""")
    yield f"https://localhost:{port}/", bundle, d
    stop_process(proc)


def test_tls_max_12_negotiates_12_and_says_so(tls_nginx, pacer):
    url, bundle, d = tls_nginx
    run = pacer("--tls-max", "1.2", "--cacert", str(bundle), "-n", "20", "-c", "2", "-t", "1", url)
    assert run.rc == 0, run
    line = [l for l in run.stdout.splitlines() if l.startswith("TLS:")]
    assert len(line) == 1 and line[0].split()[1] == "TLSv1.2,", run
    as_json = pacer("--tls-max", "1.2", "--cacert", str(bundle), "-n", "20", "-c", "2", "-t", "1", "--format", "json", url)
    tls = json.loads(as_json.stdout)["connection_path"]["tls"]
    assert tls["protocol"] == "TLSv1.2" and tls["alpn"] == "http/1.1" and tls["cipher"], tls
    assert tls["handshakes"] == 2
    default = json.loads(pacer("--cacert", str(bundle), "-n", "5", "-c", "1", "-t", "1", "--format", "json", url).stdout)
    assert default["connection_path"]["tls"]["protocol"] == "TLSv1.3"
    logged = (d / "access.log").read_text().splitlines()
    assert logged.count("TLSv1.2 200") == 40 and logged.count("TLSv1.3 200") == 5, logged


def test_tls_min_13_against_a_12_only_server_fails_clearly(tmp_path, pacer):
    certs = make_cert(tmp_path / "c")
    port = free_port()
    d = tmp_path / "nginx"
    d.mkdir()
    proc = start_nginx(d, port, "$status", f"""server {{
    listen 127.0.0.1:{port} ssl;
    ssl_protocols TLSv1.2;
    ssl_certificate {certs / 'cert.pem'}; ssl_certificate_key {certs / 'key.pem'};
    location / {{ return 200; }}
  }}""")
    try:
        run = pacer("--tls-min", "1.3", "-k", "-d", "1s", "-c", "1", "-t", "1", f"https://127.0.0.1:{port}/")
        assert run.rc == 1 and "protocol version" in run.stderr, run
    finally:
        stop_process(proc)


def test_no_sni_gets_the_default_certificate(tls_nginx, pacer):
    url, bundle, _ = tls_nginx
    with_sni = pacer("--cacert", str(bundle), "-n", "5", "-c", "1", "-t", "1", url)
    assert with_sni.rc == 0, with_sni
    # Without SNI nginx answers with its default server's certificate (other.test):
    # checked against the URL's host, it fails.
    without = pacer("--no-sni", "--cacert", str(bundle), "-n", "5", "-c", "1", "-t", "1", url)
    assert without.rc == 1 and "certificate verify failed" in without.stderr, without
    assert "hostname mismatch" in without.stderr, without
    # --sni NAME sends another name; the certificate is still checked against the URL's host.
    other = pacer("--sni", "other.test", "--cacert", str(bundle), "-n", "5", "-c", "1", "-t", "1", url)
    assert other.rc == 1 and "hostname mismatch" in other.stderr, other


@pytest.mark.tsan
@pytest.mark.parametrize("flag,value", [("--ciphers", "NOT-A-CIPHER"), ("--tls13-ciphers", "TLS_AES_128_GCM_SHA256:TLS_NOPE")])
def test_a_cipher_string_openssl_does_not_know_is_bad_input(flag, value, pacer):
    run = pacer(flag, value, "-d", "1s", "https://127.0.0.1:9/")
    assert run.rc == 2 and flag in run.stderr and value.split(":")[-1] in run.stderr, run


@pytest.mark.tsan
def test_tls_version_mistakes_are_bad_arguments(pacer):
    assert pacer("--tls-min", "1.1", "https://127.0.0.1:9/").rc == 2
    run = pacer("--tls-min", "1.3", "--tls-max", "1.2", "https://127.0.0.1:9/")
    assert run.rc == 2 and "no version is left" in run.stderr, run
