"""The hostile-server harness itself: a canned answer is counted exactly, and a run
against a server that never answers is bounded in time and memory."""

from conftest import parse_report
from hostile import answer_each_request, run_measured, silent


def test_a_canned_answer_is_counted_and_the_run_is_measured(hostile_server, pacer_bin):
    srv = hostile_server(answer_each_request(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
    run = run_measured("-t1", "-c2", "-n", "20", srv.url, timeout=30)
    assert run.rc == 0, run
    assert parse_report(run.stdout).requests == 20, run
    assert 0 < run.peak_rss_kb < 200_000, run.peak_rss_kb
    assert srv.accepted >= 2


def test_a_silent_server_gives_timeouts_within_the_duration(hostile_server, pacer_bin):
    srv = hostile_server(silent)
    run = run_measured("-t1", "-c2", "-d", "1s", "--timeout", "300ms", srv.url, timeout=30)
    assert run.rc == 1, run
    assert parse_report(run.stdout).errors.get("timeout", 0) >= 2, run
    assert run.wall_s < 6, run.wall_s
