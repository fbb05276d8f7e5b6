"""Issue 15's wire features end to end: time to first byte (pacer serve and nginx
over HTTP/1.1 and h2c), --unix-socket (nginx listening on Unix sockets),
--follow-redirects (pacer serve's /redirect, nginx `return 301` chains, a loop,
another origin, method rules) and --compressed (nginx `gzip on`: decoded bytes are
the file's size times the responses). Every peer is started here and stopped at
the end whatever happens; every wait is bounded."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import run_pacer
from nginx_peer import NGINX, free_port, start_nginx, stop_process

BIG_FILE_BYTES = 10_000_000
TEXT_FILE_BYTES = 200_000


def _text(size: int) -> bytes:
    line = b"a compressible line of text for the gzip test, number %06d\n"
    out = bytearray()
    i = 0
    while len(out) < size:
        out += line % i
        i += 1
    return bytes(out[:size])


class Nginx:
    """nginx with a private prefix: TCP ports for HTTP/1.1 and h2c, the same
    server on two Unix sockets, redirect chains, a gzip location and files."""

    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="pacer_wire_nginx_"))
        self.dir.chmod(0o755)  # nginx's workers (nobody when started as root) read the files
        d = self.dir
        self.port = free_port()
        self.h2_port = free_port()
        self.other_port = free_port()
        self.sock = d / "h1.sock"
        self.h2_sock = d / "h2.sock"
        (d / "www").mkdir()
        (d / "www" / "big.bin").write_bytes(os.urandom(BIG_FILE_BYTES))
        (d / "www" / "small.txt").write_bytes(b"small\n")
        (d / "www" / "text.txt").write_bytes(_text(TEXT_FILE_BYTES))
        self.proc = start_nginx(d, self.port, "$request_method $uri $status $content_length", f"""server {{
    listen 127.0.0.1:{self.port};
    listen 127.0.0.1:{self.h2_port} http2;
    listen unix:{self.sock};
    listen unix:{self.h2_sock} http2;
    root {d}/www;
    gzip on; gzip_types text/plain; gzip_min_length 0;
    location = /a {{ return 301 /b; }}
    location = /b {{ return 302 http://127.0.0.1:$server_port/c; }}
    location = /c {{ return 200 "final\\n"; }}
    location = /loop1 {{ return 301 /loop2; }}
    location = /loop2 {{ return 301 /loop1; }}
    location = /away {{ return 301 http://127.0.0.1:{self.other_port}/c; }}
    location = /see-other {{ return 303 /c; }}
    location = /temporary {{ return 307 /c; }}
    location = /moved {{ return 301 /c; }}
    location / {{ }}
  }}""", http_lines="keepalive_requests 1000000;",
                                ready=lambda: self.sock.exists() and self.h2_sock.exists())

    def url(self, path: str, h2: bool = False) -> str:
        return f"http://127.0.0.1:{self.h2_port if h2 else self.port}{path}"

    def log(self, settle_lines: int = 0) -> list[list[str]]:
        """Access-log lines split into fields, once at least `settle_lines` are there (bounded wait)."""
        path = self.dir / "access.log"
        deadline = time.monotonic() + 5.0
        while True:
            lines = path.read_text().splitlines() if path.exists() else []
            if len(lines) >= settle_lines or time.monotonic() >= deadline:
                return [line.split() for line in lines]
            time.sleep(0.02)

    def clear_log(self) -> None:
        (self.dir / "access.log").write_text("")

    def stop(self) -> None:
        stop_process(self.proc)
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="module")
def nginx():
    if not os.path.exists(NGINX):
        pytest.skip("nginx is not installed")
    n = Nginx()
    try:
        yield n
    finally:
        n.stop()


def run_json(*args: str, timeout: float = 60.0) -> tuple[dict, object]:
    r = run_pacer("--format", "json", *args, timeout=timeout)
    assert r.rc in (0, 1), r
    return json.loads(r.stdout), r


# ---- time to first byte ------------------------------------------------------------


def test_ttfb_is_a_fraction_of_the_total_for_a_large_body_and_close_to_it_for_a_small_one(server):
    big, _ = run_json("-t1", "-c2", "-n", "40", server.url + "bytes/10000000")
    small, _ = run_json("-t1", "-c2", "-n", "2000", server.url)
    for report in (big, small):
        assert report["ttfb"]["count"] == report["counts"]["responses"] > 0
        assert report["ttfb"]["percentiles_ns"]["50"] <= report["latency"]["percentiles_ns"]["50"]
    # 10 MB over loopback takes milliseconds; its first byte comes long before its last.
    assert big["ttfb"]["mean_ns"] < 0.5 * big["latency"]["mean_ns"], (big["ttfb"], big["latency"])
    # A small response is one read: first and last byte arrive together.
    assert small["ttfb"]["mean_ns"] >= 0.9 * small["latency"]["mean_ns"], (small["ttfb"], small["latency"])


def test_ttfb_over_http2_and_https_free_h2c_with_a_large_file(nginx):
    # One stream at a time: with two, the second stream's HEADERS can wait behind the
    # first's body, and its first byte then comes late for a reason that is not HTTP/2's
    # TTFB (it failed 1 run in ~10 at 0.502 of the latency with --streams 2).
    report, _ = run_json("--http2", "-t1", "-c1", "--streams", "1", "-n", "20", nginx.url("/big.bin", h2=True))
    assert report["counts"]["responses"] == 20
    assert report["ttfb"]["count"] == 20
    assert report["ttfb"]["mean_ns"] < 0.5 * report["latency"]["mean_ns"], (report["ttfb"], report["latency"])


def test_ttfb_over_tls_ends_at_the_first_record_not_the_last(start_server, tmp_path):
    (tmp_path / "certs").mkdir()
    made = run_pacer("cert", "--out", str(tmp_path / "certs"))
    assert made.rc == 0, made
    srv = start_server("--tls", str(tmp_path / "certs" / "cert.pem"), str(tmp_path / "certs" / "key.pem"))
    report, r = run_json("-k", "-t1", "-c2", "-n", "20", srv.url + "bytes/10000000")
    assert report["counts"]["responses"] == 20, r
    assert report["ttfb"]["count"] == 20
    assert report["ttfb"]["mean_ns"] < 0.5 * report["latency"]["mean_ns"], (report["ttfb"], report["latency"])


def test_the_text_report_shows_ttfb_and_merge_adds_it_up(server, tmp_path):
    r = run_pacer("-t1", "-c1", "-n", "50", "-o", str(tmp_path / "a.json"), "--format", "json", server.url)
    assert r.rc == 0, r
    r2 = run_pacer("-t1", "-c1", "-n", "30", "-o", str(tmp_path / "b.json"), "--format", "json", server.url)
    assert r2.rc == 0, r2
    text = run_pacer("-t1", "-c1", "-n", "10", server.url)
    assert "TTFB:" in text.stdout, text
    merged = run_pacer("merge", "--force", "--format", "json", str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    assert merged.rc == 0, merged
    assert json.loads(merged.stdout)["ttfb"]["count"] == 80
    # A report from before TTFB existed still merges.
    old = json.loads((tmp_path / "a.json").read_text())
    del old["ttfb"]
    (tmp_path / "old.json").write_text(json.dumps(old))
    merged_old = run_pacer("merge", "--force", "--format", "json", str(tmp_path / "old.json"), str(tmp_path / "b.json"))
    assert merged_old.rc == 0, merged_old
    assert json.loads(merged_old.stdout)["ttfb"]["count"] == 30


# ---- --unix-socket -----------------------------------------------------------------


@pytest.mark.parametrize("h2", [False, True], ids=["http1", "h2c"])
def test_unix_socket_reaches_nginx_and_every_request_is_counted_by_both(nginx, h2):
    nginx.clear_log()
    args = ["-t1", "-c4", "-n", "300", "--unix-socket", str(nginx.h2_sock if h2 else nginx.sock)]
    if h2:
        args += ["--http2", "--streams", "4"]
    report, r = run_json(*args, "http://localhost/small.txt")
    assert r.rc == 0, r
    assert report["counts"]["responses"] == 300
    assert report["status_codes"] == {"200": 300}
    assert report["config"]["unix_socket"] == str(nginx.h2_sock if h2 else nginx.sock)
    assert report["ttfb"]["count"] == 300
    lines = nginx.log(300)
    assert len(lines) == 300
    assert all(fields[1] == "/small.txt" and fields[2] == "200" for fields in lines)


def _unix_get(path: Path, target: str) -> bytes:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(str(path))
        s.sendall(f"GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return data.partition(b"\r\n\r\n")[2]


@pytest.mark.tsan
def test_unix_socket_against_pacer_serve_listening_on_one(tmp_path, pacer_bin):
    sock = tmp_path / "serve.sock"
    proc = subprocess.Popen([pacer_bin, "serve", "--listen", f"unix:{sock}", "-t", "1"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        line = proc.stdout.readline().decode()
        assert line.startswith(f"pacer serve: listening on unix:{sock}"), line
        report, r = run_json("-t2", "-c4", "-n", "500", "--unix-socket", str(sock), "http://localhost/bytes/100")
        assert r.rc == 0, r
        assert report["counts"]["responses"] == 500
        stats = json.loads(_unix_get(sock, "/stats"))
        assert (stats["requests_answered"], stats["connections_accepted"]) == (500, 4)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.tsan
def test_unix_socket_that_does_not_exist_fails_at_start_naming_it(tmp_path):
    r = run_pacer("-n", "5", "--unix-socket", str(tmp_path / "none.sock"), "http://localhost/")
    assert r.rc == 1, r
    assert "none.sock" in r.stderr and "No such file" in r.stderr, r


@pytest.mark.tsan
def test_unix_socket_path_too_long_is_a_usage_error():
    r = run_pacer("--unix-socket", "/" + "x" * 200, "http://localhost/")
    assert r.rc == 2, r
    assert "--unix-socket" in r.stderr, r


# ---- --follow-redirects ----------------------------------------------------------------


def test_pacer_serve_redirect_is_followed_and_counted(server):
    report, r = run_json("-t1", "-c2", "-n", "100", "--follow-redirects", "1", server.url + "redirect")
    assert r.rc == 0, r
    assert report["status_codes"] == {"200": 100}
    assert report["counts"]["redirects"] == 100
    assert report["errors"]["redirect"] == 0
    assert server.wait_for("requests_answered", 200) == 200  # each request and its follow-up


def test_without_the_flag_a_redirect_is_an_ordinary_response(nginx):
    report, _ = run_json("-t1", "-c1", "-n", "20", nginx.url("/a"))
    assert report["status_codes"] == {"301": 20}
    assert "redirects" not in report["counts"] and "redirect" not in report["errors"]


@pytest.mark.parametrize("h2", [False, True], ids=["http1", "h2c"])
def test_a_301_302_chain_is_followed_to_the_final_response(nginx, h2):
    nginx.clear_log()
    extra = ["--http2", "--streams", "4"] if h2 else []
    report, r = run_json("-t1", "-c2", "-n", "50", "--follow-redirects", "2", *extra, nginx.url("/a", h2=h2))
    assert r.rc == 0, r
    assert report["status_codes"] == {"200": 50}
    assert report["counts"]["redirects"] == 100
    assert report["counts"]["requests_sent"] == 50
    lines = nginx.log(150)
    assert sorted(f[1] for f in lines) == ["/a"] * 50 + ["/b"] * 50 + ["/c"] * 50
    text = run_pacer("-t1", "-c1", "-n", "5", "--follow-redirects", "2", *extra, nginx.url("/a", h2=h2))
    assert "Redirects:    10 followed" in text.stdout, text


@pytest.mark.parametrize(
    "path, hops, reason",
    [("/a", 1, "more than 1 hops"), ("/loop1", 5, "a loop"), ("/away", 5, "another origin")],
    ids=["too-many-hops", "loop", "other-origin"],
)
@pytest.mark.parametrize("h2", [False, True], ids=["http1", "h2c"])
def test_a_redirect_that_cannot_be_followed_is_a_redirect_error_with_its_reason(nginx, path, hops, reason, h2):
    extra = ["--http2", "--streams", "2"] if h2 else []
    report, r = run_json("-t1", "-c1", "-n", "20", "--follow-redirects", str(hops), *extra, nginx.url(path, h2=h2))
    assert report["errors"]["redirect"] == 20, r
    assert report["counts"]["responses"] == 0
    assert reason in report["first_error"], report["first_error"]
    text = run_pacer("-t1", "-c1", "-n", "3", "--follow-redirects", str(hops), *extra, nginx.url(path, h2=h2))
    assert "redirect 3" in text.stdout.replace("\u00a0", " "), text


@pytest.mark.parametrize(
    "path, method",
    [("/see-other", "GET"), ("/moved", "GET"), ("/temporary", "POST")],
    ids=["303-becomes-get", "301-post-becomes-get", "307-keeps-post"],
)
@pytest.mark.parametrize("h2", [False, True], ids=["http1", "h2c"])
def test_a_post_is_followed_with_rfc_9110s_method_rules(nginx, path, method, h2):
    nginx.clear_log()
    extra = ["--http2"] if h2 else []
    report, r = run_json("-t1", "-c1", "-n", "10", "--follow-redirects", "1", "-b", "x" * 1000,
                         "-H", "Content-Type: text/plain", *extra, nginx.url(path, h2=h2))
    assert report["status_codes"] == {"200": 10}, r
    lines = nginx.log(20)
    finals = [f for f in lines if f[1] == "/c"]
    assert len(finals) == 10
    assert all(f[0] == method for f in finals), finals
    # The body (and its Content-Length) goes along with a kept POST only.
    assert all(f[3] == ("1000" if method == "POST" else "-") for f in finals), finals


@pytest.mark.tsan
def test_follow_redirects_refuses_what_it_cannot_do():
    for extra in (["--pipeline", "2"], ["--disable-keepalive"], []):
        args = ["--follow-redirects", "31" if not extra else "1", *extra, "http://127.0.0.1:1/"]
        r = run_pacer(*args)
        assert r.rc == 2, r
        assert "--follow-redirects" in r.stderr, r


# ---- --compressed ------------------------------------------------------------------------


@pytest.mark.parametrize("h2", [False, True], ids=["http1", "h2c"])
def test_gzip_bodies_decode_to_the_file_size_times_the_responses(nginx, h2):
    args = ["-t1", "-c2", "-n", "40", "--compressed"]
    if h2:
        args += ["--http2", "--streams", "2"]
    report, r = run_json(*args, nginx.url("/text.txt", h2=h2))
    assert r.rc == 0, r
    assert report["counts"]["responses"] == 40
    assert report["errors"]["decode"] == 0
    assert report["counts"]["bytes_decoded"] == TEXT_FILE_BYTES * 40
    # It was compressed on the wire.
    assert report["counts"]["bytes_read"] < TEXT_FILE_BYTES * 40 / 5
    assert report["config"]["compressed"] is True


def test_without_compressed_nothing_is_asked_or_decoded(nginx):
    report, _ = run_json("-t1", "-c1", "-n", "5", nginx.url("/text.txt"))
    assert report["counts"]["bytes_read"] > TEXT_FILE_BYTES * 5
    assert "bytes_decoded" not in report["counts"]


def test_the_text_report_has_a_decoded_line(nginx):
    r = run_pacer("-t1", "-c1", "-n", "5", "--compressed", nginx.url("/text.txt"))
    assert r.rc == 0, r
    assert "Decoded:" in r.stdout and "decode 0" in r.stdout.replace("\u00a0", " "), r


def test_a_body_that_does_not_decode_is_a_decode_error_and_the_connection_carries_on(hostile_server):
    from hostile import answer_each_request

    body = b"\x1f\x8b\x08\x00" + b"this is not deflate data at all" * 4
    head = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(body)
    srv = hostile_server(answer_each_request(head + body))
    report, r = run_json("-t1", "-c1", "-n", "30", "--compressed", srv.url)
    assert report["errors"]["decode"] == 30, r
    assert report["counts"]["responses"] == 0
    assert "decode:" in report["first_error"] and "gzip" in report["first_error"], report["first_error"]
    assert srv.accepted == 1  # a decode error does not close the connection
    assert r.rc == 1  # not one request succeeded


def test_a_location_past_the_cap_is_a_redirect_error_naming_the_cap(hostile_server):
    from hostile import answer_each_request

    response = b"HTTP/1.1 301 Moved\r\nLocation: /" + b"x" * 9000 + b"\r\nContent-Length: 0\r\n\r\n"
    srv = hostile_server(answer_each_request(response))
    report, r = run_json("-t1", "-c1", "-n", "5", "--follow-redirects", "3", srv.url)
    assert report["errors"]["redirect"] == 5, r
    assert "8 KiB" in report["first_error"], report["first_error"]


def test_check_args_says_what_the_wire_options_will_do():
    r = run_pacer("--check-args", "--unix-socket", "/tmp/app.sock", "--follow-redirects", "3", "--compressed",
                  "http://localhost/")
    assert r.rc == 0, r
    assert "Wire:    Unix socket /tmp/app.sock; follows up to 3 redirects; decodes gzip, deflate, br, zstd" in r.stdout, r


def test_each_name_has_its_own_ttfb_and_merge_keeps_it(server, tmp_path):
    targets = tmp_path / "targets.txt"
    targets.write_text("GET /bytes/10000000\n\nGET /\n")
    out = tmp_path / "run.json"
    r = run_pacer("-t1", "-c2", "-n", "200", "--targets", str(targets), "--format", "json", "-o", str(out), server.url,
                  timeout=120)
    assert r.rc == 0, r
    report = json.loads(out.read_text())
    by_name = {e["name"]: e for e in report["endpoints"]}
    big, small = by_name["GET /bytes/10000000"], by_name["GET /"]
    for e in (big, small):
        assert e["ttfb"]["count"] == e["responses"] > 0
    assert big["ttfb"]["mean_ns"] < 0.5 * big["latency"]["mean_ns"], (big["ttfb"], big["latency"])
    assert small["ttfb"]["mean_ns"] >= 0.9 * small["latency"]["mean_ns"], (small["ttfb"], small["latency"])
    assert big["ttfb"]["count"] + small["ttfb"]["count"] == report["ttfb"]["count"]
    merged = run_pacer("merge", "--force", "--format", "json", str(out), str(out))
    assert merged.rc == 0, merged
    merged_names = {e["name"]: e for e in json.loads(merged.stdout)["endpoints"]}
    assert merged_names["GET /"]["ttfb"]["count"] == 2 * small["ttfb"]["count"]
    text = run_pacer("-t1", "-c1", "-n", "20", "--latency", "--targets", str(targets), server.url, timeout=120)
    assert "Latency Distribution (total, first byte)" in text.stdout, text
