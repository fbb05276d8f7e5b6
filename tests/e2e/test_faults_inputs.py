"""Hostile servers and bad input, the input side (issue 14 items 4, 5, 8, 12, 13):
what a script's response() is given is capped whatever the server sends, and
Ctrl-C still stops such a run; -b bodies are read up to a cap; -H headers that
would contradict the request's framing are refused; every output path is checked
before the run and written through symlinks, and devices and FIFOs in place.

Every run is bounded in wall time and peak RSS (hostile.run_measured) and every
server is stopped whatever happens."""

from __future__ import annotations

import pytest
import os
import signal
import stat
import subprocess
import threading
import time
from pathlib import Path

from conftest import PACER_BIN, parse_report
from hostile import _peak_rss_kb, rss_factor, after_request_send_forever, run_measured

MAX_RSS_KB = 200_000 * rss_factor()  # (x5 under TSan: its shadow is in RSS) well above a healthy run, far below what the faults reached (GBs)

RESPONSE_SCRIPT = """
seen = 0
response = function(status, headers, body)
  seen = seen + 1
end
"""


def script(tmp_path: Path, text: str = RESPONSE_SCRIPT) -> str:
    path = tmp_path / "response.lua"
    path.write_text(text)
    return str(path)


ENDLESS_HEADERS = after_request_send_forever(b"HTTP/1.1 200 OK\r\n", b"X-Filler: aaaaaaaaaaaaaaaa\r\n")
ENDLESS_HEADER_LINE = after_request_send_forever(b"HTTP/1.1 200 OK\r\nX-Long: ", b"a" * 1024)
ENDLESS_CHUNKS = after_request_send_forever(
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", b"400\r\n" + b"x" * 1024 + b"\r\n"
)


def assert_each_request_is_a_parse_error_naming(run, requests: int, cap: str) -> None:
    assert run.rc == 1, run  # no request succeeded
    report = parse_report(run.stdout)
    assert report.errors.get("parse") == requests, run
    assert report.requests == 0, run
    assert report.first_error is not None and cap in report.first_error, run
    assert run.peak_rss_kb < MAX_RSS_KB, run.peak_rss_kb


# ------------------------------------------------------- item 4: script capture caps


def test_endless_headers_to_a_response_script_stop_at_the_header_count_cap(hostile_server, pacer_bin, tmp_path):
    srv = hostile_server(ENDLESS_HEADERS)
    run = run_measured("-t1", "-c1", "-n", "5", "-s", script(tmp_path), srv.url, timeout=30)
    assert_each_request_is_a_parse_error_naming(run, 5, "more than 100 response headers")
    assert "--max-capture-headers" in parse_report(run.stdout).first_error, run
    assert run.wall_s < 10, run.wall_s


def test_one_endless_header_stops_at_the_header_bytes_cap_and_the_option_raises_it(
    hostile_server, pacer_bin, tmp_path
):
    srv = hostile_server(ENDLESS_HEADER_LINE)
    run = run_measured("-t1", "-c1", "-n", "3", "--max-capture-header-bytes", "1M", "-s", script(tmp_path), srv.url,
                       timeout=30)
    assert_each_request_is_a_parse_error_naming(run, 3, "response headers over 1 MiB")
    assert "--max-capture-header-bytes" in parse_report(run.stdout).first_error, run
    assert run.wall_s < 10, run.wall_s


def test_an_endless_chunked_body_stops_at_the_body_cap(hostile_server, pacer_bin, tmp_path):
    srv = hostile_server(ENDLESS_CHUNKS)
    run = run_measured("-t1", "-c2", "-n", "4", "-s", script(tmp_path), srv.url, timeout=30)
    assert_each_request_is_a_parse_error_naming(run, 4, "response body over 8 MiB")
    assert "--max-capture-body" in parse_report(run.stdout).first_error, run
    assert run.wall_s < 15, run.wall_s


@pytest.mark.tsan
def test_sigint_stops_a_response_script_run_against_endless_headers_promptly(hostile_server, pacer_bin, tmp_path):
    srv = hostile_server(ENDLESS_HEADERS)
    # wait4()'s ru_maxrss folds in the memory pacer was spawned from (this Python,
    # hundreds of MB late in the suite): pacer's own peak is its VmHWM, polled.
    spawned_from_kb = _peak_rss_kb(os.getpid())
    proc = subprocess.Popen([PACER_BIN, "-t1", "-c2", "-d", "60s", "-s", script(tmp_path), srv.url],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    peak_kb = 0
    out: list[bytes] = []
    reader = threading.Thread(target=lambda: out.append(proc.stdout.read()), daemon=True)
    reader.start()
    try:
        # The load is running once pacer has come back for more connections.
        deadline = time.monotonic() + 20
        while srv.accepted < 6 and time.monotonic() < deadline and proc.poll() is None:
            peak_kb = max(peak_kb, _peak_rss_kb(proc.pid))
            time.sleep(0.01)
        assert srv.accepted >= 6, (srv.accepted, proc.poll())
        signalled = time.monotonic()
        proc.send_signal(signal.SIGINT)
        while (waited := os.wait4(proc.pid, os.WNOHANG))[0] == 0 and time.monotonic() < signalled + 10:
            peak_kb = max(peak_kb, _peak_rss_kb(proc.pid))
            time.sleep(0.01)
        stopped_s = time.monotonic() - signalled
    finally:
        if proc.poll() is None:
            proc.kill()
    assert waited[0] == proc.pid, "pacer did not stop within 10 s of the first SIGINT"
    assert os.waitstatus_to_exitcode(waited[1]) == 130
    assert stopped_s < 3, stopped_s
    if waited[2].ru_maxrss > max(spawned_from_kb, _peak_rss_kb(os.getpid())):
        peak_kb = max(peak_kb, waited[2].ru_maxrss)  # above what it was spawned from: its own
    assert 0 < peak_kb < MAX_RSS_KB, peak_kb
    reader.join(timeout=5)
    report = parse_report(out[0].decode())
    assert report.errors.get("parse", 0) >= 4, out
    assert "--max-capture-headers" in report.first_error, out


# ---------------------------------------------------------------- item 5: body cap


@pytest.mark.tsan
def test_a_body_from_dev_zero_is_refused_at_the_cap(pacer_bin):
    run = run_measured("-b", "@/dev/zero", "-n", "1", "http://127.0.0.1:9/", timeout=30)
    assert run.rc == 2, run
    assert "-b: body file '/dev/zero' goes on past the 64 MiB cap" in run.stderr, run
    assert "--max-request-body" in run.stderr, run
    assert run.wall_s < 10, run.wall_s
    assert run.peak_rss_kb < MAX_RSS_KB, run.peak_rss_kb


@pytest.mark.tsan
def test_an_endless_stdin_body_is_refused_at_the_cap(pacer_bin):
    yes = subprocess.Popen(["yes"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    started = time.monotonic()
    try:
        proc = subprocess.run([PACER_BIN, "-b", "@-", "--max-request-body", "16M", "-n", "1",
                               "http://127.0.0.1:9/"], stdin=yes.stdout, capture_output=True, timeout=30)
    finally:
        yes.kill()
        yes.wait()
    assert proc.returncode == 2, proc
    assert b"-b: standard input (@-) goes on past the 16 MiB cap" in proc.stderr, proc.stderr
    assert time.monotonic() - started < 15


@pytest.mark.tsan
def test_a_body_file_over_the_cap_is_refused_before_it_is_read(pacer_bin, tmp_path):
    big = tmp_path / "big.bin"
    with open(big, "wb") as f:
        f.truncate(3 << 30)  # a 3 GiB sparse file: reading it would take seconds and GBs
    run = run_measured("-b", f"@{big}", "-n", "1", "http://127.0.0.1:9/", timeout=30)
    assert run.rc == 2, run
    assert f"-b: body file '{big}' is {3 << 30} bytes, more than the 64 MiB cap" in run.stderr, run
    assert run.wall_s < 5, run.wall_s
    assert run.peak_rss_kb < MAX_RSS_KB, run.peak_rss_kb


# ------------------------------------------------- item 8: headers against framing


def test_headers_that_contradict_the_framing_are_refused_before_anything_is_sent(server, pacer):
    cases = [
        (["-H", "Content-Length: 5", "-b", "hello-world"], "'Content-Length: 5' contradicts the body"),
        (["-H", "Transfer-Encoding: chunked", "-b", "hello"], "'Transfer-Encoding: chunked' contradicts the framing"),
        (["-H", "Content-Length: 3"], "'Content-Length: 3' on a request without a body"),
        (["--http2", "-H", "Connection: keep-alive"], "'Connection: keep-alive' is a connection-specific header"),
    ]
    for args, message in cases:
        run = pacer("-t1", "-c1", "-n", "3", *args, server.url, timeout=30)
        assert run.rc == 2, run
        assert f"pacer: -H: {message}" in run.stderr, run
    assert server.stats()["requests_answered"] == 0


def test_a_content_length_that_matches_the_body_is_sent_and_answered(server, pacer):
    run = pacer("-t1", "-c1", "-n", "3", "-H", "Content-Length: 11", "-b", "hello-world", server.url + "echo",
                timeout=30)
    assert run.rc == 0, run
    assert parse_report(run.stdout).status_codes == {200: 3}, run


# --------------------------------------------- items 12, 13: output paths and files


@pytest.mark.tsan
def test_an_output_path_that_is_a_directory_fails_before_the_run(server, pacer, tmp_path):
    for flag in ("-o", "--hdr", "--timeseries"):
        run = pacer("-t1", "-c1", "-d", "5s", flag, str(tmp_path), server.url, timeout=30)
        assert run.rc == 2, run
        assert f"pacer: {flag}: cannot write '{tmp_path}': it is a directory" in run.stderr, run
        assert "requests in" not in run.stdout, run
    assert server.stats()["requests_answered"] == 0


@pytest.mark.tsan
def test_outputs_are_written_through_symlinks_which_stay_links(server, pacer, tmp_path):
    (tmp_path / "targets").mkdir()
    for name in ("report.json", "latency.hgrm", "series.ndjson"):
        os.symlink(f"targets/{name}", tmp_path / name)
    run = pacer("-t1", "-c1", "-n", "20", "--format", "json", "-o", str(tmp_path / "report.json"),
                "--hdr", str(tmp_path / "latency.hgrm"), "--timeseries", str(tmp_path / "series.ndjson"),
                server.url, timeout=30)
    assert run.rc == 0, run
    for name in ("report.json", "latency.hgrm", "series.ndjson"):
        assert (tmp_path / name).is_symlink(), name
        assert (tmp_path / "targets" / name).stat().st_size > 0, name
    assert '"responses"' in (tmp_path / "targets" / "report.json").read_text()


def test_a_character_device_behind_a_symlink_is_written_in_place(server, pacer, tmp_path):
    # Never /dev/null itself: a link to it in a temporary directory.
    report_link, hgrm_link = tmp_path / "null", tmp_path / "null2"
    os.symlink("/dev/null", report_link)
    os.symlink("/dev/null", hgrm_link)
    run = pacer("-t1", "-c1", "-n", "10", "-o", str(report_link), "--hdr", str(hgrm_link), server.url, timeout=30)
    assert run.rc == 0, run
    assert report_link.is_symlink() and hgrm_link.is_symlink()
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert not any(p.name.startswith("null.tmp") for p in Path("/dev").iterdir())


def test_a_fifo_is_written_in_place_for_its_reader(server, pacer, tmp_path):
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []

    def read_fifo() -> None:
        with open(fifo, "rb") as f:
            received.append(f.read())

    reader = threading.Thread(target=read_fifo, daemon=True)
    reader.start()
    try:
        run = pacer("-t1", "-c1", "-n", "10", "--format", "json", "-o", str(fifo), server.url, timeout=30)
    finally:
        if reader.is_alive():  # pacer never opened the FIFO: let the reader go
            with open(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK), "wb"):
                pass
        reader.join(timeout=5)
    assert run.rc == 0, run
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert received and b'"responses"' in received[0], received


def test_output_to_a_link_to_standard_output_writes_the_report_there(server, pacer_bin, tmp_path):
    # As -o /dev/stdout does (a link to /proc/self/fd/1), without touching /dev.
    link = tmp_path / "stdout"
    os.symlink("/proc/self/fd/1", link)
    proc = subprocess.run([PACER_BIN, "-t1", "-c1", "-n", "10", "--format", "json", "-o", str(link), server.url],
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    assert proc.returncode == 0, proc
    assert b'"responses"' in proc.stdout, proc.stdout  # the JSON, after the text report
    assert link.is_symlink()


def test_output_to_standard_output_redirected_to_a_file_follows_the_text_report(server, pacer_bin, tmp_path):
    link, out = tmp_path / "stdout", tmp_path / "out.txt"
    os.symlink("/proc/self/fd/1", link)
    with open(out, "wb") as f:
        proc = subprocess.run([PACER_BIN, "-t1", "-c1", "-n", "10", "--format", "json", "-o", str(link), server.url],
                              stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.PIPE, timeout=30)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert "requests in" in text and '"responses"' in text, text
    assert text.index("requests in") < text.index('"responses"'), text
