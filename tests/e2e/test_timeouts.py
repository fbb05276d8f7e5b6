"""Timeouts: counted as errors, kept in the latency figures as lower bounds (never 0 µs)."""

import re

import pytest

from conftest import assert_server_agrees, parse_duration


def assert_lower_bound_of_at_least(value: str, seconds: float) -> None:
    assert value.startswith(">="), f"{value!r} is not marked as a lower bound"
    assert parse_duration(value) >= seconds, f"{value!r} is below {seconds}s"


def assert_no_zero_latency(run):
    """wrk's headline bug: a latency of 0 us for requests that never got an answer."""
    row = next(line.split() for line in run.stdout.splitlines() if line.strip().startswith("Latency "))
    avg, max_ = row[1], row[3]
    assert avg != "0.00us" and max_ != "0.00us", run
    for line in run.stdout.splitlines():
        percentile = re.match(r"\s+\d+(?:\.\d+)?%\s+(\S+)$", line)
        assert percentile is None or percentile.group(1) != "0.00us", (line, run)


def test_a_slow_endpoint_reports_timeouts_as_lower_bounds_not_zero_latency(server, pacer):
    # wrk's headline bug: every request times out and wrk prints a latency of 0 µs.
    run = pacer("-t1", "-c4", "-d", "5s", "--latency", server.url + "delay/3000", timeout=40)
    report = run.report

    assert run.rc == 1, run  # not one request succeeded
    assert report.failed is not None, run
    assert report.requests == 0, run
    assert report.status_codes == {}, run
    assert report.errors["timeout"] > 0, run
    assert report.timeouts_count == report.errors["timeout"], run
    # Every latency figure is a lower bound of at least the 2 s default timeout
    # (the stdev may be 0: every timeout can be cut at the same instant).
    assert_no_zero_latency(run)
    assert_lower_bound_of_at_least(report.latency.avg, 1.99)
    assert_lower_bound_of_at_least(report.latency.max, 1.99)
    assert set(report.distribution) >= {"50%", "90%", "99%", "100%"}, run
    for percentile, value in report.distribution.items():
        assert_lower_bound_of_at_least(value, 1.99)
    # The server never finished a reply the client gave up on.
    assert_server_agrees(server, report)


@pytest.mark.tsan
def test_a_server_that_never_answers_gives_timeouts_and_exit_1(server, pacer):
    run = pacer("-d", "3s", "--timeout", "500ms", server.url + "never", timeout=30)
    report = run.report

    assert run.rc == 1, run
    assert report.requests == 0, run
    # Each of the 10 connections times out every 500 ms for 3 s; allow for a slow machine.
    assert report.errors["timeout"] >= 10, run
    assert report.timeouts_count == report.errors["timeout"], run
    assert report.socket_errors is not None and report.socket_errors["timeout"] == report.errors["timeout"], run
    assert_no_zero_latency(run)
    assert_lower_bound_of_at_least(report.latency.avg, 0.499)
    assert server.wait_for("requests_answered", 0) == 0
    assert_server_agrees(server, report)


def test_lower_bound_latencies_stay_separated_from_the_neighbouring_column(server, pacer):
    run = pacer("-t1", "-c2", "-d", "1s", "--timeout", "500ms", "--latency", server.url + "never", timeout=30)
    report = run.report
    assert run.rc == 1, run

    # wrk's layout: "Latency" then 4 whitespace-separated values.
    assert len(report.latency.line.split()) == 5, report.latency.line
    # and each distribution line is "<percentile>%" then its value.
    lines = run.stdout.splitlines()
    start = next(i for i, l in enumerate(lines) if l.strip() == "Latency Distribution")
    for line in lines[start + 1 : start + 8]:
        assert len(line.split()) == 2, repr(line)
