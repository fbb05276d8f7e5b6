"""HTTP status codes are counted individually; a run without a success exits 1."""

import pytest
from conftest import assert_server_agrees


@pytest.mark.tsan
def test_a_run_where_every_response_is_500_counts_them_all_and_exits_1(server, pacer):
    run = pacer("-d", "1s", server.url + "status/500", timeout=30)
    report = run.report

    assert run.rc == 1, run  # no request succeeded
    assert report.failed is not None, run
    assert report.requests > 0, run
    assert report.status_codes == {500: report.requests}, run
    assert report.non_2xx_3xx == report.requests, run
    assert report.errors["status"] == report.requests, run
    assert_server_agrees(server, report)


def test_one_failure_in_ten_gives_900_successes_and_100_errors_and_exit_0(server, pacer):
    run = pacer("-c1", "-n", "1000", server.url + "fail/10", timeout=30)
    report = run.report

    assert run.rc == 0, run
    assert report.failed is None, run
    assert report.requests == 1000, run
    assert report.status_codes == {200: 900, 500: 100}, run
    assert report.non_2xx_3xx == 100, run
    assert report.errors["status"] == 100, run
    assert_server_agrees(server, report)


def test_slo_that_holds_exits_zero(server, pacer):
    run = pacer("-t1", "-c2", "-n", "500", "--slo", "p99<1s,max<2s", "--max-error-rate", "1%", server.url, timeout=30)
    assert run.rc == 0, run
    assert "gate failed" not in run.stdout, run


def test_breached_slo_exits_three_naming_the_gate(server, pacer):
    run = pacer("-t1", "-c2", "-n", "20", "--slo", "p50<10ms", server.url + "delay/50", timeout=30)
    assert run.rc == 3, run
    assert "gate failed: p50<10ms (measured " in run.stdout, run


def test_error_rate_gate_exits_three(server, pacer):
    run = pacer("-t1", "-c1", "-n", "100", "--max-error-rate", "5%", server.url + "fail/10", timeout=30)
    assert run.rc == 3, run
    assert "gate failed: max-error-rate 5% (measured 10.00%: 10 errors in 100 requests)" in run.stdout, run


def test_no_success_exits_one_whatever_the_gates_say(server, pacer):
    run = pacer("-t1", "-c1", "-n", "10", "--slo", "p99<1ms", server.url + "status/500", timeout=30)
    assert run.rc == 1, run
