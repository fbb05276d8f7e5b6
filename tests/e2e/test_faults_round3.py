"""Hostile input, round three (issue 32): scenario headers go through the rule -H and
--targets follow; output files are never replaced when read-only, a full disk fails the
run naming the option, and one file under two spellings is refused; terminal escapes from
a server or a script print as '?'; Lua memory is capped; CSV cells never start a formula;
two Host headers are refused; report files are capped; references resolve as RFC 3986
says; an endless compressed body ends as a decode error at the cap.

Every run is bounded in wall time (and, where the fault was memory, in peak RSS), sends
only to 127.0.0.1, and every server is stopped whatever happens."""

from __future__ import annotations

import base64
import csv
import json
import os
import signal
import socket
import struct
import subprocess
import time
import zlib
from pathlib import Path

import pytest

from conftest import PACER_BIN, parse_report
from hostile import answer_each_request, read_request_head, rss_factor, run_measured

MAX_RSS_KB = 300_000 * rss_factor()  # a healthy run is far below; the faults reached GBs


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# ------------------------------------------------ item 1: one rule for every header


SMUGGLER = r"""
local user = {}
user.tasks = {
  {1, function(u) u:post("/echo", "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n", {["Content-Length"] = "0"}) end, "cl"},
  {1, function(u) u:post("/echo", "x", {["Transfer-Encoding"] = "chunked"}) end, "te"},
  {1, function(u) u:get("/nul", {["X-A"] = "a\0b"}) end, "nul"},
  {1, function(u) u:get("/hosts", {Host = "a", host = "b"}) end, "hosts"},
  {1, function(u) u:get("/fine", {["X-Fine"] = "yes"}) end, "fine"},
}
return user
"""


def test_a_scenario_header_table_cannot_smuggle_a_request(recording_server, pacer, tmp_path):
    path = write(tmp_path, "smuggle.lua", SMUGGLER)
    run = pacer("--format", "json", "-t1", "-u", "2", "-d", "1s", "--scenario", path, recording_server.url,
                timeout=30)
    assert run.rc in (0, 1), run
    report = json.loads(run.stdout)
    seen = recording_server.wait_for_requests(1)
    assert recording_server.problems == []
    targets = {r.target for r in seen}
    assert targets == {b"/fine"}, targets  # nothing smuggled, nothing refused reached the wire
    assert all(r.header_values(b"X-Fine") == [b"yes"] for r in seen)
    tasks = {t["name"]: t for t in report["scenario"]["tasks"]}
    for name in ("cl", "te", "nul", "hosts"):
        assert tasks[name]["count"] > 0 and tasks[name]["failures"] == tasks[name]["count"], tasks[name]
    assert tasks["fine"]["failures"] == 0
    texts = " | ".join(m["text"] for m in report["scenario"]["first_messages"])
    assert "'Content-Length: 0' contradicts the body, which is" in texts, texts
    assert "'Transfer-Encoding: chunked' contradicts the framing" in texts, texts
    assert "header 'X-A': a control character" in texts, texts
    assert "a second Host header" in texts, texts


@pytest.mark.tsan
def test_two_host_headers_on_the_command_line_or_in_a_target_are_refused(recording_server, pacer, tmp_path):
    run = pacer("-n", "1", "-H", "Host: a", "-H", "host: b", recording_server.url, timeout=30)
    assert run.rc == 2, run
    assert "pacer: -H: a second Host header ('host: b')" in run.stderr, run
    targets = write(tmp_path, "t.jsonl", '{"url": "/x", "header": {"Host": ["a", "b"]}}\n')
    run = pacer("-n", "1", "--targets", targets, recording_server.url, timeout=30)
    assert run.rc == 2, run
    assert "t.jsonl:1: a second Host header ('Host: b')" in run.stderr, run
    assert recording_server.requests == []


@pytest.mark.tsan
def test_a_script_building_a_framing_header_is_refused(recording_server, pacer, tmp_path):
    script = write(tmp_path, "s.lua", 'wrk.headers["Transfer-Encoding"] = "chunked"\n')
    run = pacer("-n", "1", "-s", script, recording_server.url, timeout=30)
    assert run.rc == 2, run
    assert "wrk.format: 'Transfer-Encoding: chunked' contradicts the framing" in run.stderr, run
    assert recording_server.requests == []


# ---------------------------------------------------------- item 2: output files


@pytest.mark.tsan
def test_a_read_only_output_is_never_replaced(recording_server, pacer, tmp_path):
    for flag in ("-o", "--hdr", "--html", "--timeseries"):
        target = tmp_path / f"kept{flag.strip('-')}"
        target.write_text("precious\n")
        target.chmod(0o444)
        before = os.stat(target)
        run = pacer("-n", "2", flag, str(target), recording_server.url, timeout=30)
        assert run.rc == 2, run
        assert f"pacer: {flag}: cannot write '{target}': the file is read-only" in run.stderr, run
        after = os.stat(target)
        assert (after.st_ino, after.st_mode, target.read_text()) == (before.st_ino, before.st_mode, "precious\n")
    assert recording_server.requests == []


@pytest.mark.tsan
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("flag", ["-o", "--hdr", "--timeseries", "--html"])
def test_a_full_disk_on_any_output_fails_the_run_naming_the_option(recording_server, pacer, flag):
    run = pacer("-n", "2", flag, "/dev/full", recording_server.url, timeout=30)
    assert run.rc == 1, run
    assert f"pacer: {flag}: cannot write" in run.stderr and "No space left on device" in run.stderr, run


@pytest.mark.tsan
def test_one_file_named_twice_through_other_spellings_is_refused(recording_server, pacer, tmp_path):
    (tmp_path / "d").mkdir()
    os.symlink(tmp_path / "d", tmp_path / "link")
    t = str(tmp_path)
    spellings = [
        (f"{t}/out", f"{t}/./out"),
        (f"{t}/d/../y", f"{t}/y"),
        (f"{t}/link/z", f"{t}/d/z"),
    ]
    for first, second in spellings:
        run = pacer("-n", "1", "-o", first, "--hdr", second, recording_server.url, timeout=30)
        assert run.rc == 2, (first, second, run)
        assert f"--hdr: '{second}' is the file -o writes too" in run.stderr, run
    assert recording_server.requests == []


# ---------------------------------------------------- item 3: terminal escapes


ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x9b31m"


def test_escapes_from_a_server_or_a_script_print_as_harmless_text(recording_server, pacer, tmp_path):
    path = write(tmp_path, "esc.lua", f"""
local user = {{}}
user.tasks = {{
  {{1, function(u) u:get("/a"); u:fail("body: {ESCAPES}") end, "fail"}},
  {{1, function(u) u:get("/b"); error("boom {ESCAPES}") end, "err"}},
}}
return user
""")
    run = pacer("-t1", "-u", "1", "-d", "1s", "--scenario", path, recording_server.url, timeout=30)
    assert run.rc in (0, 1), run
    for text in (run.stdout, run.stderr):
        assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text, repr(text)
    assert "body: ?]0;pwned??[2J?31m" in run.stdout, run.stdout
    assert "boom ?]0;pwned??[2J?31m" in run.stdout, run.stdout


@pytest.mark.tsan
def test_a_nul_in_a_target_does_not_cut_the_message_short(pacer, tmp_path):
    targets = tmp_path / "t.txt"
    targets.write_bytes(b"GET /a\0b\x1b[2Jc-and-the-rest\n")
    run = pacer("-n", "1", "--targets", str(targets), "http://127.0.0.1:1/", timeout=30)
    assert run.rc == 2, run
    assert "'/a?b?[2Jc-and-the-rest' is not a URL" in run.stderr, repr(run.stderr)


@pytest.mark.tsan
def test_a_nul_or_line_break_in_an_argument_never_reaches_the_message_raw(pacer):
    run = pacer("-n", "1", "-m", "GET\r\nX-Evil: 1", "http://127.0.0.1:1/", timeout=30)
    assert run.rc == 2, run
    assert "\r" not in run.stderr and run.stderr.count("\n") == 1, repr(run.stderr)
    assert "GET??X-Evil: 1" in run.stderr, run


# ---------------------------------------------------- item 4: the Lua memory cap


def test_a_task_that_allocates_without_end_fails_at_the_memory_cap(recording_server, tmp_path):
    path = write(tmp_path, "hog.lua", """
local user = {}
user.tasks = {{1, function(u)
  local t = {}
  for i = 1, 1e9 do t[i] = string.rep("x", 1000) .. i end
end, "hog"}}
return user
""")
    run = run_measured("-t1", "-u", "1", "-d", "2s", "--lua-memory", "32M", "--scenario", path,
                       recording_server.url, timeout=30)
    assert run.rc in (0, 1), run
    assert "not enough memory: the Lua memory cap (32 MiB, --lua-memory) is reached" in run.stdout, run
    assert run.peak_rss_kb < MAX_RSS_KB, run.peak_rss_kb
    assert run.wall_s < 10, run


ENDLESS_TASK = """
return { tasks = { {1, function(u) u:get('/'); while true do end end, 'spin'} } }
"""


@pytest.mark.tsan
@pytest.mark.parametrize("threads", ["1", "2"])
def test_a_task_that_never_yields_ends_at_the_duration_with_the_partial_report(recording_server, tmp_path, threads):
    # LuaJIT runs the compiled loop without calling hooks: the controller's
    # watchdog ends the run without the stuck worker(s), one grace after -d.
    path = write(tmp_path, "spin.lua", ENDLESS_TASK)
    run = run_measured("-t", threads, "-u", threads, "-d", "1s", "--format", "json", "--scenario", path,
                       recording_server.url, timeout=30)
    assert run.rc == 1, run
    assert run.wall_s < 1 + 2 + 2, run  # -d, the watchdog's grace and a poll, start-up
    report = json.loads(run.stdout)
    assert "the scenario's task 'spin'" in report["stuck_worker"], report["stuck_worker"]
    assert report["interrupted"] is True
    assert "the scenario's task 'spin'" in run.stderr, run


@pytest.mark.tsan
def test_a_task_that_never_yields_ends_at_the_first_sigterm(recording_server, tmp_path):
    path = write(tmp_path, "spin.lua", ENDLESS_TASK)
    proc = subprocess.Popen([PACER_BIN, "-t1", "-u1", "-d", "60s", "--scenario", path, recording_server.url],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        time.sleep(1.0)  # it is inside the endless task long before: the first request is answered at once
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=10)
        assert proc.returncode == 143, (out, err)
        assert time.monotonic() - sent < 4, "the watchdog's grace after the signal, and a poll"
        assert b"Stuck:" in out and b"'spin'" in out, out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_script_request_that_never_returns_ends_at_the_duration(recording_server, tmp_path):
    path = write(tmp_path, "spin_request.lua", "function request() while true do end end\n")
    run = run_measured("-t1", "-c1", "-d", "1s", "-s", path, recording_server.url, timeout=30)
    assert run.rc == 1, run
    assert run.wall_s < 1 + 2 + 2, run
    assert "the script's request()" in run.stdout, run


# ----------------------------------------------------- item 6: CSV formula injection


@pytest.mark.tsan
def test_csv_cells_never_start_a_formula(recording_server, pacer, tmp_path):
    targets = write(tmp_path, "t.jsonl", "\n".join(json.dumps({"url": f"/{i}", "name": name}) for i, name in
                                                   enumerate(["=HYPERLINK(\"http://x\")", "+1", "-1", "@SUM(A1)"])))
    run = pacer("-n", "8", "--targets", targets, "--csv", str(tmp_path / "r"), recording_server.url, timeout=30)
    assert run.rc == 0, run
    with open(tmp_path / "r_stats.csv", newline="") as f:
        names = [row[0] for row in csv.reader(f)][1:]
    assert "'=HYPERLINK(\"http://x\")" in names and "'+1" in names and "'-1" in names and "'@SUM(A1)" in names, names
    assert all(n[0] not in "=+-@\t\r" for n in names), names


# ------------------------------------------------------ item 8: unbounded inputs


def test_a_report_over_the_size_cap_is_refused_by_report_and_merge_in_bounded_memory(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as f:  # 1.5 GB, sparse: nothing is written but its length
        f.truncate(1536 * 1024 * 1024)
    for args in (["report", str(big), "-o", str(tmp_path / "r.html")], ["merge", str(big)]):
        run = run_measured(*args, timeout=30)
        assert run.rc == 2, run
        assert "more than the report size cap (256 MiB; --max-report-size)" in run.stderr, run
        assert run.peak_rss_kb < 100_000 * rss_factor(), run.peak_rss_kb
        assert run.wall_s < 5, run


@pytest.mark.tsan
def test_a_timeseries_zlib_bomb_is_refused_by_report_as_by_merge(recording_server, pacer, tmp_path):
    out = tmp_path / "run.json"
    run = pacer("-n", "4", "--html", str(tmp_path / "x.html"), "--format", "json", "-o", str(out),
                recording_server.url, timeout=30)
    assert run.rc == 0, run
    report = json.loads(out.read_text())
    assert report["timeseries"], report
    bomb = zlib.compress(b"\0" * (64 * 1024 * 1024), 9)
    # A V2 compressed histogram header (cookie, length) around a payload that inflates to 64 MiB.
    report["timeseries"][0]["histogram"] = base64.b64encode(struct.pack(">ii", 0x1c849304, len(bomb)) + bomb).decode()
    crafted = tmp_path / "bomb.json"
    crafted.write_text(json.dumps(report))
    for args in (["report", str(crafted), "-o", str(tmp_path / "r.html")], ["merge", str(crafted)]):
        run = run_measured(*args, timeout=30)
        assert run.rc == 2, run
        assert "timeseries[0].histogram" in run.stderr, run
        assert run.peak_rss_kb < MAX_RSS_KB, run.peak_rss_kb


@pytest.mark.tsan
def test_a_target_url_longer_than_the_cap_is_refused(recording_server, pacer, tmp_path):
    targets = write(tmp_path, "t.txt", "GET /" + "a" * 9000 + "\n")
    run = pacer("-n", "1", "--targets", targets, recording_server.url, timeout=30)
    assert run.rc == 2, run
    assert "t.txt:1: the URL is 9001 bytes, more than the URL cap (8192 bytes)" in run.stderr, run
    run = pacer("-n", "1", recording_server.url + "b" * 9000, timeout=30)
    assert run.rc == 2, run
    assert "more than the URL cap (8192 bytes)" in run.stderr, run
    assert recording_server.requests == []


def gzip_bomb_forever(conn, stop):
    """A gzip stream of zeros without end, as chunks: each 1 MiB of zeros is about
    1 KiB on the wire, so the 64 MiB cap is reached after about 64 KiB."""
    buf = bytearray()
    if read_request_head(conn, stop, buf) is None:
        return
    conn.settimeout(1.0)
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n")
    compressor = zlib.compressobj(1, zlib.DEFLATED, 31)
    zeros = bytes(1 << 20)
    while not stop.is_set():
        block = compressor.compress(zeros) + compressor.flush(zlib.Z_SYNC_FLUSH)
        conn.sendall(b"%x\r\n%s\r\n" % (len(block), block))


def test_an_endless_compressed_body_is_a_decode_error_at_the_cap(hostile_server, pacer_bin):
    srv = hostile_server(gzip_bomb_forever)
    run = run_measured("-t1", "-c1", "-n", "1", "--timeout", "20s", "--compressed", srv.url, timeout=30)
    assert run.rc == 1, run
    report = parse_report(run.stdout)
    assert report.errors.get("decode") == 1 and report.errors.get("timeout", 0) == 0, run
    assert "more than 64 MiB (the decoded-size cap)" in report.first_error, run
    assert run.wall_s < 10, run  # at the cap, not at --timeout
    assert run.peak_rss_kb < MAX_RSS_KB, run.peak_rss_kb


# ------------------------------------------------------------ item 9: URLs


@pytest.mark.tsan
def test_target_references_lose_their_dot_segments(recording_server, pacer, tmp_path):
    targets = write(tmp_path, "t.txt", "GET ../../etc/passwd\n\nGET /a/./b/../c\n")
    run = pacer("-n", "2", "--targets", targets, recording_server.url + "dir/page", timeout=30)
    assert run.rc == 0, run
    seen = {r.target for r in recording_server.wait_for_requests(2)}
    assert seen == {b"/etc/passwd", b"/a/c"}, seen


def redirect_to(location: bytes):
    return answer_each_request(b"HTTP/1.1 302 Found\r\nLocation: " + location + b"\r\nContent-Length: 0\r\n\r\n")


def done_only_at_done(conn, stop):
    """200 for exactly /done; a redirect to /a/../done for anything else."""
    buf = bytearray()
    while (head := read_request_head(conn, stop, buf)) is not None:
        target = head.split(b" ")[1]
        if target == b"/done":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        else:
            conn.sendall(b"HTTP/1.1 302 Found\r\nLocation: /a/../done\r\nContent-Length: 0\r\n\r\n")


@pytest.mark.tsan
def test_a_location_with_dot_segments_is_resolved(hostile_server, pacer):
    srv = hostile_server(done_only_at_done)
    run = pacer("-n", "2", "--follow-redirects", "3", srv.url + "x", timeout=30)
    assert run.rc == 0, run  # /x -> /done, not /a/../done (which would redirect again: a loop)
    assert parse_report(run.stdout).status_codes == {200: 2}, run


@pytest.mark.tsan
def test_a_location_with_another_scheme_is_another_origin(hostile_server, pacer):
    srv = hostile_server(redirect_to(b"javascript:alert(1)"))
    run = pacer("-n", "1", "--follow-redirects", "3", srv.url, timeout=30)
    assert run.rc == 1, run
    assert "redirect: to another origin (Location: javascript:alert(1))" in run.stdout, run


@pytest.mark.tsan
def test_the_web_view_refuses_two_origin_headers(server):
    from webview import WebRun

    with WebRun("-t1", "-c1", "-d", "30s", "--web", "127.0.0.1:0", server.url) as run:
        head = (b"POST /stop HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: http://attacker.example\r\n"
                b"Origin: http://127.0.0.1:%d\r\nContent-Length: 0\r\n\r\n" % (run.port, run.port))
        with socket.create_connection(("127.0.0.1", run.port), timeout=5) as conn:
            conn.sendall(head)
            answer = conn.recv(4096)
        assert answer.startswith(b"HTTP/1.1 400"), answer
        assert run.proc.poll() is None  # not stopped
        run.proc.send_signal(signal.SIGINT)
        assert run.wait(20) == 130


# ------------------------------------------------------- item 10: pacer serve auth


@pytest.mark.tsan
def test_pacer_serve_takes_the_bearer_scheme_in_any_case(server, pacer, tmp_path):
    for scheme in ("Bearer", "bearer", "BEARER"):
        run = pacer("-n", "1", "-H", f"Authorization: {scheme} pacer-token-1", server.url + "auth", timeout=30)
        assert run.rc == 0, run
        assert parse_report(run.stdout).status_codes == {200: 1}, (scheme, run)
