"""Open-model load against a server that stalls: coordinated omission, measured.

Theory used below. A run of D seconds at a constant rate in which the server stops
answering for S seconds (and then recovers quickly): a request scheduled t seconds
into the stall waits S - t for it to end, and the open model keeps scheduling during
the stall, so a fraction S/D of all requests is late, their extra latency spread
uniformly over [0, S]. The p-th percentile of the whole run (p above 1 - S/D) is
then  S * (1 - (1 - p) * D / S):
    D = 10 s, S = 1 s:  p99 = 0.9 s,  p99.9 = 0.99 s,  max = S = 1 s.
A closed loop hides this: its few connections each wait once, so only about -c
requests are slow and the high percentiles barely move.
"""

import json
import re

import pytest

from conftest import assert_server_agrees, parse_duration

pytestmark = pytest.mark.alone

D_S = 10.0
STALL_S = 1.0


def theoretical_percentile(p: float, duration_s: float = D_S, stall_s: float = STALL_S) -> float:
    return stall_s * (1.0 - (1.0 - p) * duration_s / stall_s)


@pytest.mark.tsan
def test_server_stall_shows_in_open_model_percentiles_as_theory_predicts(start_server, pacer):
    server = start_server("--freeze-at", "4s", "--freeze-for", "1s")
    run = pacer("-t2", "-c50", "-R", "2000", "-d", "10s", "--latency", server.url, timeout=60)
    report = run.report
    assert run.rc == 0, run
    p99 = parse_duration(report.distribution["99%"])
    p999 = parse_duration(report.distribution["99.9%"])
    top = parse_duration(report.distribution["100%"])
    assert abs(p99 - theoretical_percentile(0.99)) <= 0.05 * theoretical_percentile(0.99), run
    assert abs(p999 - theoretical_percentile(0.999)) <= 0.05 * theoretical_percentile(0.999), run
    assert abs(top - STALL_S) <= 0.05 * STALL_S, run
    assert report.requests == 20000, run
    assert_server_agrees(server, report)


@pytest.mark.tsan
def test_closed_loop_hides_the_same_stall(start_server, pacer):
    server = start_server("--freeze-at", "4s", "--freeze-for", "1s")
    run = pacer("-t2", "-c50", "-d", "10s", "--latency", server.url, timeout=60)
    report = run.report
    assert run.rc == 0, run
    # Only the ~50 requests caught by the stall are slow: far below 1% of the run.
    assert parse_duration(report.distribution["99%"]) < 0.25 * theoretical_percentile(0.99), run
    assert parse_duration(report.distribution["100%"]) >= 0.9 * STALL_S, run
    assert_server_agrees(server, report)


@pytest.mark.tsan
def test_stall_longer_than_the_timeout_still_shows_as_censored_latency(start_server, pacer):
    server = start_server("--freeze-at", "1s", "--freeze-for", "3s")
    run = pacer("-t2", "-c50", "-R", "1000", "-d", "6s", "--latency", server.url, timeout=60)
    report = run.report
    # The ~50 requests in flight when the server froze are cancelled at the 2 s
    # timeout (server timeouts); the arrivals queued behind them that waited in
    # pacer's backlog past 2 s are `unsent`. Both are kept as censored samples,
    # and the rest wait out the stall and complete. Either way the tail shows it.
    assert report.errors["timeout"] > 0, run
    assert report.errors["unsent"] > 0, run
    assert report.timeouts_count == report.errors["timeout"], run
    assert "in the latency" in report.timeouts_text, run
    assert parse_duration(report.distribution["99%"]) >= 2.0, run
    # A figure that reads zero, not one that ends in zeros ("120.00us" is a figure).
    assert not re.search(r"(?<![\d.])0\.00us", run.stdout), run


@pytest.mark.tsan
def test_server_counts_match_the_target_rate(start_server, pacer):
    for rate in (1000, 20000):
        server = start_server()
        run = pacer("-t2", "-c50", "-R", str(rate), "-d", "5s", server.url, timeout=60)
        report = run.report
        assert run.rc == 0, run
        answered = server.wait_for("requests_answered", rate * 5)
        assert abs(answered - rate * 5) <= 0.01 * rate * 5, (rate, answered, run)
        assert_server_agrees(server, report)


@pytest.mark.parametrize("io", ["epoll", "uring"])
def test_spin_sends_the_same_schedule_and_says_so(start_server, pacer, tmp_path, io):
    """--spin polls instead of sleeping: the same arrivals at the server, in both models,
    and the report says it ran so (config.spin; absent without it)."""
    server = start_server()
    out = tmp_path / "spin.json"
    run = pacer("--io", io, "--spin", "-t1", "-c10", "-R", "500", "-d", "2s", "--format", "json", "-o", str(out),
                server.url, timeout=60)
    assert run.rc == 0, run
    report = json.loads(out.read_text())
    assert report["config"]["spin"] is True, report["config"]
    assert abs(server.wait_for("requests_answered", 1000) - 1000) <= 10, run
    closed = pacer("--io", io, "--spin", "-t1", "-c2", "-n", "300", "--format", "json", "-o", str(out), server.url,
                   timeout=60)
    assert closed.rc == 0 and json.loads(out.read_text())["counts"]["responses"] == 300, closed
    plain = pacer("--io", io, "-t1", "-c2", "-n", "10", "--format", "json", "-o", str(out), server.url, timeout=60)
    assert plain.rc == 0 and "spin" not in json.loads(out.read_text())["config"], plain


def test_requests_the_drain_sends_are_counted_apart_from_the_runs_rate(server, pacer):
    """Two connections at 10 ms a response carry 200/s of the 400/s asked: the
    backlog holds arrivals due before -d's end, which the drain sends after it.
    They are sent (the server answers them) but not the run's sending rate."""
    run = pacer("-t1", "-c2", "-R", "400", "-d", "1s", "--format", "json", server.url + "delay/10", timeout=60)
    assert run.rc in (0, 3), run
    doc = json.loads(run.stdout)
    c = doc["counts"]
    drained = c["sent_while_draining"]
    assert 0 < drained <= c["requests_sent"], c
    window_s = 1.0  # the schedule's window: -d
    assert doc["rates"]["sent_per_s"] == pytest.approx((c["requests_sent"] - drained) / window_s, rel=0.01), doc["rates"]
    text = pacer("-t1", "-c2", "-R", "400", "-d", "1s", server.url + "delay/10", timeout=60)
    assert "more sent while draining" in text.stdout, text.stdout
