"""--proxy end to end (issue 33) through real proxies started on loopback by the
tests: squid and tinyproxy (tests/e2e/proxies.py; skipped only when the binary is
missing). Plain http:// is forwarded (absolute-form targets, so the proxy's access
log counts pacer's requests); https:// goes through a CONNECT tunnel with the
target's certificate checked; HTTP/2 through the tunnel against nginx; squid's
basic auth (right credentials, wrong ones -> 407); the environment's variables
with curl's rules. Every proxy and server is stopped whatever happens."""

from __future__ import annotations

import json
import os
import socket
import threading

import pytest

from conftest import PACER_BIN
from nginx_peer import free_port, start_nginx, stop_process
from proxies import SQUID, TINYPROXY, Squid, Tinyproxy, have
from test_http2 import _wait_for_count
from test_tls import make_cert

needs_squid = pytest.mark.skipif(not have(SQUID), reason="squid is not installed (scripts/setup.sh test)")
needs_tinyproxy = pytest.mark.skipif(not have(TINYPROXY), reason="tinyproxy is not installed (scripts/setup.sh test)")


@pytest.fixture(scope="module")
def squid():
    """One squid for the module (it takes about 2 s to stop): tests count its log lines from where they start."""
    p = Squid()
    yield p
    p.stop()


@pytest.fixture
def squid_auth():
    p = Squid({"alice": "s3cret"})
    yield p
    p.stop()


@pytest.fixture
def tinyproxy():
    p = Tinyproxy()
    yield p
    p.stop()


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without any proxy variable, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update(extra)
    return env


def json_report(run) -> dict:
    assert run.rc == 0, run
    return json.loads(run.stdout)


def wait_for_log(count_lines, expected: int) -> int:
    """The proxy writes its log line after the response: poll (bounded, test_http2's helper)."""
    return _wait_for_count(count_lines, expected)


def squid_requests(proxy: Squid, method: str = "GET", since: int = 0) -> int:
    """Requests of `method` in squid's access log, past the first `since` lines."""
    return sum(1 for line in proxy.log_lines()[since:] if f" {method} " in line)


@pytest.mark.tsan
@needs_squid
def test_plain_http_through_squid_is_forwarded_and_its_log_counts_every_request(squid, server, pacer):
    before = len(squid.log_lines())
    run = pacer("-x", squid.url, "-n", "300", "-c", "4", "-t", "2", "--format", "json", server.url, env=clean_env())
    r = json_report(run)
    assert r["counts"]["responses"] == 300 and r["errors"]["proxy"] == 0, r["errors"]
    assert r["connection_path"]["proxy"] == {"url": squid.url, "source": "--proxy", "mode": "forward"}
    assert wait_for_log(lambda: squid_requests(squid, since=before), 300) == 300
    assert server.stats()["requests_answered"] == 300
    # Forwarded requests carry the absolute form (squid logs the URL it fetched).
    assert all(f"GET {server.url}" in line for line in squid.log_lines()[before:] if " GET " in line)


@pytest.mark.tsan
@needs_tinyproxy
def test_plain_http_through_tinyproxy_from_http_proxy_in_the_environment(tinyproxy, server, pacer):
    # tinyproxy closes each client connection after one response without saying
    # so (no "Connection: close"): one request per connection, as it wants.
    run = pacer("--disable-keepalive", "-n", "200", "-c", "4", "-t", "2", "--format", "json", server.url,
                env=clean_env(http_proxy=tinyproxy.url))
    r = json_report(run)
    assert r["counts"]["responses"] == 200, r["errors"]
    assert r["connection_path"]["proxy"]["source"] == "http_proxy"
    requests = lambda: sum(1 for line in tinyproxy.log_lines() if "Request (file descriptor" in line)
    assert wait_for_log(requests, 200) == 200
    assert server.stats()["requests_answered"] == 200


@needs_squid
def test_upper_case_http_proxy_is_ignored_and_no_proxy_bypasses(squid, server, pacer):
    before = len(squid.log_lines())
    # As curl: HTTP_PROXY (settable by a request header under CGI) is not read.
    ignored = json_report(pacer("-n", "20", "-c", "1", "-t", "1", "--format", "json", server.url,
                                env=clean_env(HTTP_PROXY=squid.url)))
    assert ignored["connection_path"]["proxy"] is None
    bypassed = json_report(pacer("-n", "20", "-c", "1", "-t", "1", "--format", "json", server.url,
                                 env=clean_env(http_proxy=squid.url, NO_PROXY="example.com, 127.0.0.0/8")))
    assert bypassed["connection_path"]["proxy"] is None
    assert server.stats()["requests_answered"] == 40
    assert squid_requests(squid, since=before) == 0
    # --proxy '' turns the environment off; --noproxy '' turns NO_PROXY off.
    off = json_report(pacer("--proxy", "", "-n", "5", "-c", "1", "-t", "1", "--format", "json", server.url,
                            env=clean_env(http_proxy=squid.url)))
    assert off["connection_path"]["proxy"] is None
    on = json_report(pacer("--noproxy", "", "-n", "5", "-c", "1", "-t", "1", "--format", "json", server.url,
                           env=clean_env(http_proxy=squid.url, NO_PROXY="*")))
    assert on["connection_path"]["proxy"]["source"] == "http_proxy"
    assert wait_for_log(lambda: squid_requests(squid, since=before), 5) == 5


@pytest.fixture
def tls_target(start_server, tmp_path):
    certs = make_cert(tmp_path / "certs")
    return start_server("--tls", str(certs / "cert.pem"), str(certs / "key.pem")), certs


@pytest.mark.tsan
@needs_squid
def test_https_through_a_connect_tunnel_checks_the_targets_certificate(squid, tls_target, pacer):
    server, certs = tls_target
    url = f"https://127.0.0.1:{server.port}/"
    before = len(squid.log_lines())
    run = pacer("-x", squid.url, "--cacert", str(certs / "cert.pem"), "-n", "200", "-c", "4", "-t", "2",
                "--format", "json", url, env=clean_env())
    r = json_report(run)
    assert r["counts"]["responses"] == 200 and r["errors"]["tls"] == 0
    assert r["connection_path"]["proxy"]["mode"] == "connect"
    # Every connection went through its own tunnel, then its own TLS handshake.
    assert r["tunnel_time"]["count"] == r["counts"]["connects"] == r["counts"]["tls_handshakes"] == 4
    assert r["connection_path"]["tls"]["protocol"] in ("TLSv1.2", "TLSv1.3")
    assert wait_for_log(lambda: squid_requests(squid, "CONNECT", since=before), 4) == 4
    # Without --cacert the target's self-signed certificate fails: the check is the target's, not the proxy's.
    refused = pacer("-x", squid.url, "-n", "10", "-c", "1", "-t", "1", url, env=clean_env())
    assert refused.rc == 1 and "certificate verify failed" in refused.stderr, refused


@needs_squid
def test_text_report_says_proxy_and_tunnel(squid, tls_target, pacer):
    server, certs = tls_target
    run = pacer("-x", squid.url, "-k", "-n", "50", "-c", "2", "-t", "1", f"https://127.0.0.1:{server.port}/",
                env=clean_env())
    assert run.rc == 0, run
    assert f"Proxy:        {squid.url} (from --proxy), CONNECT tunnel" in run.stdout, run
    tunnel = [line for line in run.stdout.splitlines() if line.startswith("Tunnel:")]
    assert len(tunnel) == 1 and tunnel[0].endswith("(2 tunnels)"), run
    assert "TLS:" in run.stdout and "proxy 0" in run.stdout, run


@needs_squid
def test_http2_through_the_tunnel(squid, tmp_path, pacer):
    certs = make_cert(tmp_path / "certs")
    port = free_port()
    d = tmp_path / "nginx"
    d.mkdir()
    proc = start_nginx(d, port, "$server_protocol $status", f"""server {{
    listen 127.0.0.1:{port} ssl http2;
    ssl_certificate {certs / 'cert.pem'}; ssl_certificate_key {certs / 'key.pem'};
    location / {{ return 200 "hello\\n"; }}
  }}""")
    try:
        run = pacer("-x", squid.url, "--http2", "--streams", "4", "--cacert", str(certs / "cert.pem"), "-n", "200",
                    "-c", "2", "-t", "1", "--format", "json", f"https://127.0.0.1:{port}/", env=clean_env())
        r = json_report(run)
        assert r["counts"]["responses"] == 200, r["errors"]
        assert r["connection_path"]["tls"]["alpn"] == "h2"
        lines = wait_for_log(lambda: len((d / "access.log").read_text().splitlines()), 200)
        assert lines == 200
        assert set((d / "access.log").read_text().splitlines()) == {"HTTP/2.0 200"}
    finally:
        stop_process(proc)


@needs_squid
def test_squid_basic_auth_right_and_wrong_credentials(squid_auth, server, tls_target, pacer):
    tls_server, certs = tls_target
    https = f"https://127.0.0.1:{tls_server.port}/"
    host_port = squid_auth.url.removeprefix("http://")
    good = pacer("-x", f"http://alice:s3cret@{host_port}", "-k", "-n", "40", "-c", "2", "-t", "1", "--format", "json",
                 https, env=clean_env())
    assert json_report(good)["counts"]["responses"] == 40
    good_flag = pacer("-x", squid_auth.url, "--proxy-user", "alice:s3cret", "-n", "40", "-c", "2", "-t", "1",
                      "--format", "json", server.url, env=clean_env())
    assert json_report(good_flag)["status_codes"] == {"200": 40}
    # Wrong credentials: the tunnel is refused at start-up (exit 1, the proxy's status)...
    wrong = pacer("-x", squid_auth.url, "--proxy-user", "alice:nope", "-k", "-n", "10", "-c", "1", "-t", "1", https,
                  env=clean_env())
    assert wrong.rc == 1 and "407" in wrong.stderr and "--proxy-user" in wrong.stderr, wrong
    # ...and a forwarded request gets the proxy's 407 as its answer.
    forwarded = pacer("-x", squid_auth.url, "-n", "10", "-c", "1", "-t", "1", "--format", "json", server.url,
                      env=clean_env())
    assert json.loads(forwarded.stdout)["status_codes"] == {"407": 10}, forwarded


class RefusingProxy:
    """A fake proxy: answers the first CONNECT (pacer's start-up probe) with 200 and
    then relays nothing but closes; every later CONNECT gets 407."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.connects = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        self.sock.settimeout(0.1)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1)
                try:
                    data = b""
                    while b"\r\n\r\n" not in data:
                        chunk = conn.recv(4096)
                        if not chunk:
                            break
                        data += chunk
                    self.connects += 1
                    if self.connects == 1:
                        conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                        conn.recv(4096)  # the request, then close: the connection reconnects
                    else:
                        conn.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n")
                except OSError:
                    pass

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        self.sock.close()


def test_a_proxy_refusing_during_the_run_is_the_proxy_error_class(pacer, tmp_path):
    proxy = RefusingProxy()
    try:
        # A script's bytes go through a tunnel even on http://.
        script = tmp_path / "s.lua"
        script.write_text("request = function() return wrk.format('GET', '/') end\n")
        run = pacer("-x", proxy.url, "-s", str(script), "-d", "1s", "-c", "1", "-t", "1", "--format", "json",
                    "http://127.0.0.1:9/", env=clean_env())
        r = json.loads(run.stdout)
        assert r["errors"]["proxy"] >= 2 and r["errors"]["read"] <= 1, r["errors"]
        assert "407" in r["first_error"] or r["errors"]["read"] == 1, r["first_error"]
        assert r["connection_path"]["proxy"]["mode"] == "connect"
    finally:
        proxy.close()


@pytest.mark.tsan
def test_http3_through_a_proxy_is_refused_as_bad_input(pacer):
    run = pacer("--http3", "-d", "1s", "https://127.0.0.1:9/", env=clean_env(https_proxy="http://127.0.0.1:9"))
    assert run.rc == 2 and "https_proxy" in run.stderr and "QUIC" in run.stderr, run


@pytest.mark.tsan
def test_a_bad_proxy_url_names_its_variable(pacer):
    run = pacer("-d", "1s", "http://127.0.0.1:9/", env=clean_env(http_proxy="socks5://127.0.0.1:1080"))
    assert run.rc == 2 and "http_proxy" in run.stderr and "socks5" in run.stderr, run


@needs_squid
def test_scenarios_are_forwarded_and_scripts_tunnel_through_squid(squid, server, pacer, tmp_path):
    scenario = tmp_path / "s.lua"
    scenario.write_text('return { tasks = { {1, function(u) u:get("/bytes/10", nil, "ten") end} } }\n')
    before = len(squid.log_lines())
    r = json_report(pacer("-x", squid.url, "-u", "2", "-t", "1", "-d", "500ms", "--format", "json", "--scenario",
                          str(scenario), server.url, env=clean_env()))
    assert r["counts"]["responses"] > 0 and r["errors"]["proxy"] == 0, r["errors"]
    assert r["connection_path"]["proxy"]["mode"] == "forward"
    assert wait_for_log(lambda: squid_requests(squid, since=before), r["counts"]["responses"]) == r["counts"]["responses"]
    # A script's bytes are its own (origin-form): they go through a tunnel.
    script = tmp_path / "w.lua"
    script.write_text("request = function() return wrk.format('GET', '/bytes/5') end\n")
    before = len(squid.log_lines())
    w = json_report(pacer("-x", squid.url, "-s", str(script), "-n", "50", "-c", "2", "-t", "1", "--format", "json",
                          server.url, env=clean_env()))
    assert w["counts"]["responses"] == 50 and w["connection_path"]["proxy"]["mode"] == "connect", w["errors"]
    assert wait_for_log(lambda: squid_requests(squid, "CONNECT", since=before), 2) == 2


@needs_squid
def test_h2c_goes_through_a_tunnel_too(squid, tmp_path, pacer):
    # HTTP/2 by prior knowledge is not something a forwarding proxy speaks: it tunnels.
    port = free_port()
    d = tmp_path / "nginx"
    d.mkdir()
    proc = start_nginx(d, port, "$server_protocol $status", f"""server {{
    listen 127.0.0.1:{port} http2;
    location / {{ return 200 "hello\\n"; }}
  }}""")
    try:
        before = len(squid.log_lines())
        r = json_report(pacer("-x", squid.url, "--http2", "-n", "100", "-c", "2", "-t", "1", "--format", "json",
                              f"http://127.0.0.1:{port}/", env=clean_env()))
        assert r["counts"]["responses"] == 100 and r["connection_path"]["proxy"]["mode"] == "connect", r["errors"]
        assert wait_for_log(lambda: len((d / "access.log").read_text().splitlines()), 100) == 100
        assert set((d / "access.log").read_text().splitlines()) == {"HTTP/2.0 200"}
        # The start-up check's tunnel (closed after its preface) and the two connections'.
        assert wait_for_log(lambda: squid_requests(squid, "CONNECT", since=before), 3) == 3
    finally:
        stop_process(proc)


def test_the_demo_never_goes_through_the_environments_proxy(pacer):
    run = pacer("demo", "-d", "300ms", "-c", "2", "-t", "1", env=clean_env(http_proxy="http://127.0.0.1:1"))
    assert run.rc == 0 and "Proxy:" not in run.stdout, run


@needs_tinyproxy
def test_tinyproxy_closing_every_kept_alive_connection_costs_no_request(tinyproxy, server, pacer, tmp_path):
    # Issue 43 (1): tinyproxy answers HTTP/1.1 without "Connection: close" and closes
    # after each response. A request that met the close before any byte of its
    # response is sent again on a new connection (as curl, Go and ab -k do), and
    # the report says keep-alive is not kept.
    out = tmp_path / "run.json"
    run = pacer("-x", tinyproxy.url, "-t1", "-c4", "-n", "150", "--format", "json", "-o", str(out), server.url,
                env=clean_env())
    assert run.rc == 0, run
    r = json.loads(out.read_text())
    counts = r["counts"]
    assert counts["responses"] == 150 and r["errors"]["read"] == 0, (counts, r["errors"])
    assert counts["keepalive_closed"] >= counts["resent"] > 0, counts
    assert server.wait_for("requests_answered", 150) == 150
    text = " ".join(run.stdout.split())
    assert (f"Keep-alive: the proxy closed {counts['keepalive_closed']} of {counts['connects']} connections after a "
            "response that kept them open: keep-alive is not kept") in text, run.stdout
