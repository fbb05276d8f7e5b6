"""The fault suite, server side: hostile servers that pacer already handles, each run
asserting the exact count in every class (with -n N: N requests, each counted once, in
the right class), a wall time bounded by what the run should take plus a margin, and a
bounded peak RSS.

Servers come from hostile.py: garbage instead of HTTP, a slowloris, heads near and
past the 256 KiB cap, resets half-way through a response, answers that arrive before
the request has been sent, interim 1xx responses, bodiless 204/304/HEAD framing, and a
server killed and restarted on the same port in the middle of a run.
"""

from __future__ import annotations

import re

import random
import threading
import time

import pytest

from conftest import Report, parse_duration, parse_report
from hostile import (
    HostileServer,
    MeasuredRun,
    Tally,
    answer_after,
    answer_before_the_body,
    answer_each_request,
    cpu_factor,
    garbage,
    read_request_head,
    reset_after,
    rss_factor,
    run_measured,
    trickle,
)

# Added to what each run should take: start-up, a loaded machine, a sanitizer build.
MARGIN_S = 5.0
# Peak RSS of any run here. A run against a well-behaved server takes 12 MB (55 MB
# under TSan, whose shadow memory is counted in its RSS: the bounds scale with it).
MAX_RSS_MB = 150
# What a hostile run may take above a run of the same shape against a server that
# answers at once, besides what it needs for its own inputs: far less than the
# responses it reads, so a run that kept them would not pass.
SLACK_MB = 24

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


@pytest.fixture(scope="module")
def baseline_rss_kb(pacer_bin) -> int:
    """Peak RSS of a short run against a server that answers at once."""
    with HostileServer(answer_each_request(OK)) as srv:
        run = run_measured("-t1", "-c4", "-n", "100", srv.url, timeout=60)
    assert run.rc == 0, str(run)
    return run.peak_rss_kb


def measured(*args: str, expected_s: float, baseline_kb: int, needs_mb: int = 0) -> tuple[MeasuredRun, Report]:
    """Runs pacer and checks its time and memory bounds: `expected_s`, what the run
    should take, plus MARGIN_S; the baseline plus SLACK_MB and `needs_mb` (what its
    inputs take), and MAX_RSS_MB, scaled for a sanitizer build."""
    run = run_measured(*args, timeout=expected_s + 4 * MARGIN_S)
    assert_bounded(run, expected_s, baseline_kb, needs_mb)
    return run, parse_report(run.stdout)


def assert_bounded(run: MeasuredRun, expected_s: float, baseline_kb: int, needs_mb: int = 0) -> None:
    assert run.wall_s < expected_s + MARGIN_S, f"took {run.wall_s:.2f}s, expected about {expected_s}s\n{run}"
    limit_kb = min(baseline_kb + (SLACK_MB + needs_mb) * 1024 * rss_factor(), MAX_RSS_MB * 1024 * rss_factor())
    assert 0 < run.peak_rss_kb < limit_kb, f"peak RSS {run.peak_rss_kb} KB, limit {limit_kb} KB\n{run}"


def assert_counts(run: MeasuredRun, report: Report, statuses: dict[int, int], **errors: int) -> None:
    """Every error class is as given (0 unless named), and so is every status code."""
    assert report.status_codes == statuses, str(run)
    assert report.requests == sum(statuses.values()), str(run)
    counted = {name: n for name, n in report.errors.items() if n}
    assert counted == {name: n for name, n in errors.items() if n}, str(run)


# ------------------------------------------------------------------------- garbage

GARBAGE = {
    "binary": bytes(random.Random(14).randrange(256) for _ in range(4096)),
    "text": b"this is not HTTP at all\r\n\r\n",
    "http-ish": b"HTTP/1.1 2OO OK\r\nContent-Length: 2\r\n\r\nok",
    "bad-header": b"HTTP/1.1 200 OK\r\nno colon here\r\nContent-Length: 2\r\n\r\nok",
    "bad-length": b"HTTP/1.1 200 OK\r\nContent-Length: two\r\n\r\nok",
    "bad-chunk": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nok\r\n0\r\n\r\n",
}


@pytest.mark.parametrize("data", GARBAGE.values(), ids=GARBAGE.keys())
def test_garbage_is_a_parse_error_per_request(hostile_server, pacer_bin, baseline_rss_kb, data):
    srv = hostile_server(garbage(data))
    run, report = measured("-t1", "-c2", "-n", "20", srv.url, expected_s=0.5, baseline_kb=baseline_rss_kb)
    assert run.rc == 1, str(run)  # not one request succeeded
    assert_counts(run, report, {}, parse=20)
    assert report.connections_opened == 20, str(run)  # each parse error closes its connection
    assert report.failed is not None, str(run)


# ----------------------------------------------------------------------- slowloris


def test_a_slowloris_answer_times_out_at_the_timeout(hostile_server, pacer_bin, baseline_rss_kb):
    # One byte every 100 ms: the 40-byte answer would take 4 s; each request is
    # cancelled at --timeout 500ms, so 6 requests on 2 connections take 3 x 0.5 s.
    srv = hostile_server(trickle(OK, 0.1))
    run, report = measured("-t1", "-c2", "-n", "6", "--timeout", "500ms", "--latency", srv.url, expected_s=1.5, baseline_kb=baseline_rss_kb)
    assert run.rc == 1, str(run)
    assert_counts(run, report, {}, timeout=6)
    assert report.timeouts_count == 6, str(run)
    # Censored at the timeout: ">= 500ms", not more than a few wake-ups later.
    longest = report.distribution["100%"]
    assert longest.startswith(">="), str(run)
    assert 0.5 <= parse_duration(longest) < 0.75, str(run)


def test_a_slow_answer_within_the_timeout_counts_with_its_whole_latency(hostile_server, pacer_bin, baseline_rss_kb):
    # One byte every 10 ms: about 0.4 s per answer, within --timeout 3s.
    srv = hostile_server(trickle(OK, 0.01))
    run, report = measured("-t1", "-c2", "-n", "4", "--timeout", "3s", "--latency", srv.url, expected_s=0.8, baseline_kb=baseline_rss_kb)
    assert run.rc == 0, str(run)
    assert_counts(run, report, {200: 4})
    assert parse_duration(report.distribution["50%"]) >= 0.35, str(run)


# ------------------------------------------------------------------ oversized heads

HEAD_CAP = 256 * 1024  # docs/limits.md: a response head (HTTP/1.1)


def test_a_head_just_under_the_cap_is_parsed_without_being_kept(hostile_server, pacer_bin, baseline_rss_kb):
    # 200 answers with a 250 KB header each, 50 MB in all: were the heads kept,
    # memory would pass the bound.
    big = b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * (250 * 1000) + b"\r\nContent-Length: 2\r\n\r\nok"
    assert len(big) < HEAD_CAP
    srv = hostile_server(answer_each_request(big))
    run, report = measured("-t1", "-c2", "-n", "200", srv.url, expected_s=0.6 * cpu_factor(), baseline_kb=baseline_rss_kb)
    assert run.rc == 0, str(run)
    assert_counts(run, report, {200: 200})
    assert report.bytes_read >= 200 * 250 * 1000, str(run)


OVERSIZED = {
    "one-megabyte-field": b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * (1 << 20) + b"\r\nContent-Length: 2\r\n\r\nok",
    "100k-fields": b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-F%d: v\r\n" % i for i in range(100_000))
    + b"Content-Length: 2\r\n\r\nok",
}


@pytest.mark.parametrize("answer", OVERSIZED.values(), ids=OVERSIZED.keys())
def test_a_head_over_the_cap_is_a_parse_error_naming_it(hostile_server, pacer_bin, baseline_rss_kb, answer):
    srv = hostile_server(answer_each_request(answer))
    run, report = measured("-t1", "-c2", "-n", "20", srv.url, expected_s=0.3 * cpu_factor(), baseline_kb=baseline_rss_kb)
    assert run.rc == 1, str(run)
    assert_counts(run, report, {}, parse=20)
    assert report.first_error == "response head longer than 256 KiB (the header-size cap)", str(run)


# ---------------------------------------------------------------- resets mid-answer

BODY = b"x" * 100_000
LONG = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(BODY) + BODY


@pytest.mark.parametrize("sent", [0, 10, len(LONG) // 2, len(LONG) - 1], ids=["nothing", "in-head", "half-body", "last-byte"])
def test_a_reset_before_the_answer_ends_is_a_read_error_per_request(hostile_server, pacer_bin, baseline_rss_kb, sent):
    srv = hostile_server(reset_after(LONG, sent))
    run, report = measured("-t1", "-c2", "-n", "10", srv.url, expected_s=0.5, baseline_kb=baseline_rss_kb)
    assert run.rc == 1, str(run)
    assert_counts(run, report, {}, read=10)
    assert report.connections_opened == 10, str(run)
    assert report.first_error == "read: Connection reset by peer", str(run)


# ------------------------------------------------------------------- early answers


def test_an_answer_before_the_request_body_is_sent_counts_once(hostile_server, pacer_bin, baseline_rss_kb, tmp_path):
    # The server answers each POST as soon as its head arrives, while pacer is still
    # sending its 8 MB body (more than the socket buffers hold), and reads the body
    # after. pacer counts the answer once. (If it reads the answer before it has
    # written the whole body, it also closes the connection, whose state is unknown.)
    body = tmp_path / "body"
    body.write_bytes(b"b" * (8 << 20))
    tally = Tally()
    srv = hostile_server(answer_before_the_body(OK, tally))
    run, report = measured("-t1", "-c2", "-n", "6", "-m", "POST", "-b", f"@{body}", srv.url,
                           expected_s=0.2 * cpu_factor(), baseline_kb=baseline_rss_kb, needs_mb=3 * 8)
    assert run.rc == 0, str(run)
    assert_counts(run, report, {200: 6})
    assert tally["early"] == 6, "every answer left before its body had arrived"


def answer_on_accept(response: bytes):
    """Sends `response` as soon as the connection is accepted (often before the request
    has arrived), then reads the request and closes."""

    def behaviour(conn, stop):
        conn.sendall(response)
        read_request_head(conn, stop, bytearray())

    return behaviour


def test_an_answer_sent_on_accept_is_the_answer_to_the_request(hostile_server, pacer_bin, baseline_rss_kb):
    close = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
    srv = hostile_server(answer_on_accept(close))
    run, report = measured("-t1", "-c2", "-n", "50", srv.url, expected_s=1, baseline_kb=baseline_rss_kb)
    assert run.rc == 0, str(run)
    assert_counts(run, report, {200: 50})
    assert report.connections_opened == 50, str(run)


# -------------------------------------------------------------- interim responses

INTERIM = {
    "100": b"HTTP/1.1 100 Continue\r\n\r\n",
    "100+103": b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n",
    "102x3": b"HTTP/1.1 102 Processing\r\n\r\n" * 3,
}


@pytest.mark.parametrize("interim", INTERIM.values(), ids=INTERIM.keys())
def test_interim_responses_are_not_counted_as_answers(hostile_server, pacer_bin, baseline_rss_kb, interim):
    srv = hostile_server(answer_each_request(interim + OK))
    run, report = measured("-t1", "-c2", "-n", "100", srv.url, expected_s=1, baseline_kb=baseline_rss_kb)
    assert run.rc == 0, str(run)
    assert_counts(run, report, {200: 100})
    assert report.connections_opened == 2, str(run)  # keep-alive throughout


# ------------------------------------------------------------- bodiless framing

BODILESS = {
    "204": b"HTTP/1.1 204 No Content\r\n\r\n",
    "204-length": b"HTTP/1.1 204 No Content\r\nContent-Length: 1234\r\n\r\n",
    "304": b"HTTP/1.1 304 Not Modified\r\n\r\n",
    "304-length": b"HTTP/1.1 304 Not Modified\r\nContent-Length: 1234\r\n\r\n",
    "304-chunked": b"HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n",
}


@pytest.mark.parametrize("answer", BODILESS.values(), ids=BODILESS.keys())
def test_204_and_304_end_at_their_head_whatever_their_length_says(hostile_server, pacer_bin, baseline_rss_kb, answer):
    # Were the length read as a body, the next answer would be swallowed and every
    # request after the first would time out.
    status = int(answer.split(b" ")[1])
    srv = hostile_server(answer_each_request(answer))
    run, report = measured("-t1", "-c2", "-n", "100", "--timeout", "1s", srv.url, expected_s=1, baseline_kb=baseline_rss_kb)
    assert run.rc == 0, str(run)
    assert_counts(run, report, {status: 100})
    assert report.connections_opened == 2, str(run)


@pytest.mark.parametrize(
    "framing", [b"Content-Length: 1000", b"Transfer-Encoding: chunked"], ids=["length", "chunked"]
)
def test_an_answer_to_head_ends_at_its_head(hostile_server, pacer_bin, baseline_rss_kb, framing):
    srv = hostile_server(answer_each_request(b"HTTP/1.1 200 OK\r\n" + framing + b"\r\n\r\n"))
    run, report = measured("-t1", "-c2", "-n", "100", "-m", "HEAD", "--timeout", "1s", srv.url, expected_s=1, baseline_kb=baseline_rss_kb)
    assert run.rc == 0, str(run)
    assert_counts(run, report, {200: 100})
    assert report.connections_opened == 2, str(run)


# ------------------------------------------------------- killed and restarted


def test_a_server_killed_and_restarted_mid_run_loses_only_what_was_in_flight(pacer_bin, baseline_rss_kb):
    # Four connections, 10 ms per answer: 600 requests take 1.5 s. After 100 answers
    # the server goes away (listener and connections closed at once) for 0.5 s, then
    # listens again on the same port.
    before, after = Tally(), Tally()
    first = HostileServer(answer_after(OK, 0.01, before))
    second = None
    outcome: dict[str, object] = {}

    def client() -> None:
        try:
            outcome["run"] = run_measured("-t1", "-c4", "-n", "600", "--timeout", "2s", first.url, timeout=60)
        except BaseException as e:  # reported by the main thread
            outcome["error"] = e

    worker = threading.Thread(target=client)
    worker.start()
    try:
        assert wait_for(lambda: before["answered"] >= 100, 30), "the first server never reached 100 answers"
        first.kill()
        time.sleep(0.5)  # the scenario's downtime, not a synchronisation
        second = HostileServer(answer_after(OK, 0.01, after), port=first.port)
        worker.join(timeout=60)
    finally:
        first.close()
        worker.join(timeout=60)
        if second is not None:
            second.close()
    if "error" in outcome:
        raise outcome["error"]
    run = outcome["run"]
    report = parse_report(run.stdout)
    context = f"server before the kill: {before}, after: {after}\n{run}"

    assert run.rc == 0, context
    # 1.5 s of answers, 0.5 s down, and up to a second of reconnect backoff.
    assert_bounded(run, 1.5 + 0.5 + 1.0, baseline_rss_kb)
    # Every answer sent in full was counted, and nothing else succeeded.
    assert report.requests == before["answered"] + after["answered"], context
    assert report.status_codes == {200: report.requests}, context
    assert before["answered"] >= 100 and after["answered"] > 0, context
    # Each of the 600 requests is counted once: answered, or lost with its connection.
    # Lost are at least those the server had read and dropped, at most one per
    # connection opened (none when pacer had read every answer but not yet sent
    # again): a reconnect that lands in the dying server's listen queue while it is
    # killed loses its one request too, so the bound is the connections opened.
    # A request the dying server had read, on a connection that had answered before,
    # whose close came before any byte of its answer, is sent again on a new
    # connection (issue 43: GET is idempotent), and then answered by the second.
    lost = report.errors["read"] + report.errors["write"]
    m = re.search(r"(\d+) requests? that met the close\s+were sent again", run.stdout)
    resent = int(m.group(1)) if m else 0
    assert report.requests + lost == 600, context
    assert before["dropped"] <= lost + resent, context
    assert lost + resent <= report.connections_opened, context
    assert report.errors["timeout"] == report.errors["parse"] == 0, context
    assert report.errors["connect"] > 0, context  # refused while the server was down


def wait_for(condition, timeout_s: float) -> bool:
    """Polls condition() every 10 ms until it holds or timeout_s has passed."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True
