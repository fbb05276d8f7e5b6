"""The client's counts agree with the server's: connections, requests, warm-up."""

import pytest

from conftest import assert_connections_accepted, assert_server_agrees, parse_duration

pytestmark = pytest.mark.tsan


def test_three_threads_open_exactly_ten_connections(server, pacer):
    run = pacer("-t3", "-c10", "-d", "1s", server.url, timeout=30)
    report = run.report

    assert run.rc == 0, run
    assert "3 threads and 10 connections" in run.stdout, run
    assert report.requests > 0, run
    assert report.connections_opened == 10, run
    assert_connections_accepted(server, 10)
    assert_server_agrees(server, report)


def test_more_threads_than_connections_runs_one_thread_per_connection(server, pacer):
    run = pacer("-t4", "-c2", "-d", "1s", server.url, timeout=30)
    report = run.report

    assert run.rc == 0, run
    assert (report.threads, report.connections) == (2, 2), run
    assert report.requests > 0, run
    assert_connections_accepted(server, 2)
    assert_server_agrees(server, report)


def test_disable_keepalive_opens_one_connection_per_request(server, pacer):
    run = pacer("--disable-keepalive", "-n", "300", server.url, timeout=30)
    report = run.report

    assert run.rc == 0, run
    assert report.requests == 300, run
    assert report.connections_opened == 300, run
    assert_connections_accepted(server, 300)
    assert_server_agrees(server, report)
    stats = server.stats()
    assert (stats["requests_answered"], stats["connections_accepted"]) == (300, 300)
    assert stats["requests_by_name"] == {"GET /": 300}


@pytest.mark.parametrize("count", ["1000", "1k"])
def test_a_request_count_sends_exactly_that_many_requests(server, pacer, count):
    run = pacer("-n", count, server.url, timeout=30)
    report = run.report

    assert run.rc == 0, run
    assert "Running 1000 requests @" in run.stdout, run
    assert "1000 requests in " in run.stdout, run
    assert report.requests == 1000, run
    assert report.status_codes == {200: 1000}, run
    assert_server_agrees(server, report)
    assert server.stats()["requests_answered"] == 1000


def test_warmup_responses_are_reported_apart_and_add_up_to_the_server_count(server, pacer):
    run = pacer("--warmup", "500ms", "-d", "1s", server.url, timeout=30)
    report = run.report

    assert run.rc == 0, run
    assert report.warmup_responses > 0, run
    assert parse_duration(report.warmup_period) == pytest.approx(0.5), run
    assert report.requests > 0, run
    # The measured part is the 1 s after the warm-up, not the whole 1.5 s.
    assert 0.9 <= report.duration_s < 1.45, run
    assert_server_agrees(server, report)  # N + W
