"""Issue 33, ab's report fields and the HTTP/2 and HTTP/3 wire views (docs/output.md,
"ab's fields", "Tracing exchanges", "Per-request log"): the bytes sent equal what
nginx counted ($request_length), the Server header and the document length are the
server's, length mismatches are counted exactly; --trace shows HTTP/2's and HTTP/3's
pseudo-headers; --log-requests fills HTTP/3's bytes in and out. Every server is
started here on loopback and stopped whatever happens; each run lasts under a second."""

from __future__ import annotations

import csv
import json
import re
import shutil
import tempfile
from pathlib import Path

import pytest

from nginx_peer import free_port, start_nginx, stop_process
from quic_servers import CaddyServer, SilentTcp, make_private_ca, write_bodies

DOC = "hello, ab\n"  # nginx's /doc body (10 bytes)

# Each request's query is 0, 1 or 2 bytes long in turn (one Lua state per thread: -t1
# sends exactly 100 of each in 300 requests), and nginx's /echo answers the query:
# three body lengths under one request name.
ALTERNATING = """
local n = 0
request = function()
  n = n + 1
  return wrk.format(nil, "/echo?" .. string.rep("a", n % 3))
end
"""


@pytest.fixture
def nginx():
    d = Path(tempfile.mkdtemp(prefix="pacer_nginx_ab_"))
    port, port2, inner = free_port(), free_port(), free_port()
    # /read proxies to a server of its own (not logged): nginx reads a request's body
    # before it proxies it, and counts it in $request_length; `return` discards it unread.
    locations = f"""location /doc {{ return 200 "{DOC.strip()}\\n"; }}
    location /echo {{ return 200 "$args"; }}
    location /read {{ proxy_pass http://127.0.0.1:{inner}/doc; }}"""
    proc = start_nginx(d, port, "$request_length", f"""server {{ listen 127.0.0.1:{port}; {locations} }}
  server {{ listen 127.0.0.1:{port2} http2; {locations} }}
  server {{ listen 127.0.0.1:{inner}; access_log off; location / {{ return 200 "{DOC.strip()}\\n"; }} }}""")

    class Peer:
        url = f"http://127.0.0.1:{port}"
        h2_url = f"http://127.0.0.1:{port2}"

        @staticmethod
        def request_lengths() -> list[int]:
            log = d / "access.log"
            return [int(x) for x in log.read_text().split()] if log.exists() else []

    try:
        yield Peer
    finally:
        stop_process(proc)
        shutil.rmtree(d, ignore_errors=True)


def json_run(pacer, tmp_path, *args):
    out = tmp_path / "r.json"
    run = pacer("--format", "json", "-o", str(out), *args, timeout=60)
    assert run.rc == 0, run
    return run, json.loads(out.read_text())


@pytest.mark.tsan
def test_bytes_sent_equal_nginxs_request_lengths_and_the_server_header_is_nginxs(pacer, nginx, tmp_path):
    # (GET: nginx's `return` discards a request body unread, and leaves it out of $request_length.)
    run, doc = json_run(pacer, tmp_path, "-t2", "-c4", "-n", "400", "-H", "X-Pad: " + "x" * 100, nginx.url + "/doc")
    counts, first = doc["counts"], doc["first_response"]
    assert counts["responses"] == 400 and doc["status_codes"] == {"200": 400}, run
    lengths = nginx.request_lengths()
    assert len(lengths) == 400 and sum(lengths) == counts["bytes_written"], (len(lengths), sum(lengths), counts)
    assert re.fullmatch(r"nginx(/[0-9.]+)?", first["server"]), first
    assert first["document_bytes"] == len(DOC) and first["document_name"] == "GET /doc", first
    assert counts["length_mismatches"] == 0 and doc["errors"]["status"] == 0


def test_bytes_sent_count_post_heads_and_bodies_as_abs_total_body_sent(pacer, nginx, tmp_path):
    """Issue 43 (11): ab 2.3's "Total body sent" counts every byte written, heads and
    bodies (docs/output.md, "ab's fields"); nginx's $request_length counts a body only
    when it reads it: proxied, it equals Sent; discarded by `return`, it is the heads."""
    body = tmp_path / "body"
    body.write_bytes(b"b" * 308)
    for path, bodies_logged in (("/read", True), ("/doc", False)):
        before = len(nginx.request_lengths())
        run, doc = json_run(pacer, tmp_path, "-t1", "-c2", "-n", "100", "-b", "@" + str(body),
                            nginx.url + path)
        counts = doc["counts"]
        assert doc["status_codes"] == {"200": 100}, (path, run)
        lengths = nginx.request_lengths()[before:]
        assert len(lengths) == 100 and len(set(lengths)) == 1, (path, lengths)
        # Every request is its head and its 308-byte body, and Sent is all of them.
        head = lengths[0] - (308 if bodies_logged else 0)
        assert head > 40 and counts["bytes_written"] == 100 * (head + 308), (path, head, counts)
        assert sum(lengths) == counts["bytes_written"] - (0 if bodies_logged else 100 * 308), (path, counts)
        m = re.search(r"^Sent:\s+\S+ \((\d+) bytes: request heads and bodies\)", run.stdout, re.M)
        assert m is None or int(m[1]) == counts["bytes_written"], run.stdout


@pytest.mark.tsan
def test_length_mismatches_count_every_response_of_another_length_and_are_not_errors(pacer, nginx, tmp_path):
    script = tmp_path / "alternate.lua"
    script.write_text(ALTERNATING)
    run, doc = json_run(pacer, tmp_path, "-t1", "-c2", "-n", "300", "-s", str(script), nginx.url + "/")
    first, counts = doc["first_response"], doc["counts"]
    # Whichever length came first, the other two lengths' 200 responses differ from it.
    assert first["document_bytes"] in (0, 1, 2) and first["document_name"] == "GET /echo", first
    assert counts["responses"] == 300 and counts["length_mismatches"] == 200, counts
    assert doc["error_rate"] == 0 and sum(doc["errors"].values()) == 0, doc["errors"]  # figures, not errors
    # Without the script: one length, no mismatch.
    run, doc = json_run(pacer, tmp_path, "-t2", "-c2", "-n", "100", nginx.url + "/echo?abc")
    assert doc["first_response"]["document_bytes"] == 3 and doc["counts"]["length_mismatches"] == 0, doc


def test_http2_trace_shows_the_pseudo_headers_and_the_report_has_abs_fields(pacer, nginx, tmp_path):
    run, doc = json_run(pacer, tmp_path, "--http2", "--streams", "4", "-t1", "-c2", "-n", "100", "--trace", "2",
                        nginx.h2_url + "/doc")
    err = run.stderr
    port = nginx.h2_url.rsplit(":", 1)[1]
    assert len(re.findall(r"^\* exchange \d: worker \d+, connection \d+ \(.*\), HTTP/2 stream$", err, re.M)) == 2, err
    for line in ("> :method: GET", "> :scheme: http", f"> :authority: 127.0.0.1:{port}", "> :path: /doc",
                 "< :status: 200", f"* (response body: {len(DOC)} bytes, not shown)"):
        assert err.count(line + "\n") == 2, (line, err)
    assert len(re.findall(r"^< server: nginx", err, re.M)) == 2, err
    assert "HTTP/1.1" not in err and "not decoded" not in err, err
    first = doc["first_response"]
    assert first["server"].startswith("nginx") and first["document_bytes"] == len(DOC), first
    assert doc["counts"]["length_mismatches"] == 0 and doc["counts"]["bytes_written"] > 0, doc["counts"]


@pytest.fixture
def caddy(tmp_path):
    certs = make_private_ca(tmp_path / "certs")
    hold = SilentTcp()
    server = CaddyServer(tmp_path, certs, write_bodies(tmp_path / "htdocs"), hold_port=hold.port)
    try:
        yield server, certs
    finally:
        server.stop()
        hold.stop()


def test_http3_request_log_has_bytes_and_trace_shows_pseudo_headers(pacer, tmp_path, caddy):
    server, certs = caddy
    log = tmp_path / "requests.csv"
    run, doc = json_run(pacer, tmp_path, "--http3", "--cacert", str(certs / "ca.pem"), "-t1", "-c1", "-n", "40",
                        "--trace", "1", "--log-requests", str(log), server.url("/index.html"))
    rows = list(csv.DictReader(log.open()))
    assert len(rows) == 40 and all(r["status"] == "200" for r in rows), rows[:3]
    # One request at a time on one connection: each row has its exchange's datagrams,
    # the body (18 bytes) and headers at least; together what the report read and
    # wrote, less the handshake's and the close's datagrams (before and after the rows).
    assert all(int(r["bytes_in"]) > 18 and int(r["bytes_out"]) > 0 for r in rows), rows
    bytes_in, bytes_out = sum(int(r["bytes_in"]) for r in rows), sum(int(r["bytes_out"]) for r in rows)
    counts = doc["counts"]
    assert 0.5 * counts["bytes_read"] <= bytes_in <= counts["bytes_read"], (bytes_in, counts)
    assert 0.5 * counts["bytes_written"] <= bytes_out <= counts["bytes_written"], (bytes_out, counts)
    err = run.stderr
    assert re.search(r"^\* exchange 1: .*, HTTP/3 stream$", err, re.M), err
    for line in ("> :method: GET", "> :scheme: https", "> :path: /index.html", "< :status: 200",
                 "* (response body: 18 bytes, not shown)"):
        assert line + "\n" in err, (line, err)
    first = doc["first_response"]
    assert first["server"] == "Caddy" and first["document_bytes"] == 18, first
