"""Connection failures: a refused port, connects that hang, and a server that goes away
in the middle of a run."""

import re
import socket
import subprocess
import time

import pytest

from conftest import PACER_BIN, parse_report


@pytest.mark.tsan
def test_a_refused_port_exits_1_and_names_the_address(free_port, pacer):
    address = f"127.0.0.1:{free_port}"
    run = pacer("-d", "1s", f"http://{address}/", timeout=30)

    assert run.rc == 1, run
    assert address in run.stderr, run
    assert "refused" in run.stderr.lower(), run


@pytest.fixture
def accept_queue_with_one_place():
    """The URL of a listening socket that never accepts, its accept queue one short of full.

    With backlog 1 Linux queues two connections and then drops every SYN, so a connect
    beyond them waits (the kernel alone retries for about two minutes). One place is
    taken here; pacer's start-up check takes the other, and its workers' connects hang.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        with socket.create_connection(listener.getsockname(), timeout=5):
            yield f"http://127.0.0.1:{listener.getsockname()[1]}/"


@pytest.mark.parametrize("limit", [["-d", "2s"], ["-n", "5", "-d", "2s"]], ids=["duration", "requests"])
def test_connects_that_hang_past_the_timeout_are_connect_errors_and_the_run_ends_on_time(
    accept_queue_with_one_place, pacer, limit
):
    started = time.monotonic()
    run = pacer("-t", "1", "-c", "3", "--timeout", "300ms", *limit, accept_queue_with_one_place, timeout=60)
    took = time.monotonic() - started
    report = run.report

    assert run.rc == 1, run  # not one request succeeded
    # Two connections' connects time out every 300 ms plus a backoff, for 2 s.
    assert report.errors["connect"] >= 4, run
    assert report.first_error == "connect: timed out after 300ms (--timeout)", run
    # The duration plus at most one --timeout of drain, with room for a slow machine.
    assert took < 10, f"took {took:.1f}s\n{run}"


@pytest.mark.tsan
def test_a_server_that_stops_mid_run_gives_connect_errors_and_keeps_the_successes(server, pacer_bin):
    client = subprocess.Popen(
        [PACER_BIN, "-d", "3s", "--disable-keepalive", server.url],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        answered = server.wait_for("requests_answered", 101, timeout=10)
        assert answered > 100, f"the server answered only {answered} requests in 10 s"
        assert server.stop() == 0, server.final_output
        out, err = client.communicate(timeout=30)
    finally:
        if client.poll() is None:
            client.kill()
            client.communicate()
    stdout, stderr = out.decode(errors="replace"), err.decode(errors="replace")
    context = f"exit {client.returncode}\n--- stdout:\n{stdout}--- stderr:\n{stderr}"
    report = parse_report(stdout)

    assert client.returncode == 0, context  # some requests succeeded
    assert report.errors["connect"] > 0, context
    assert report.requests >= answered, context
    assert report.status_codes == {200: report.requests}, context
    # The server's last words give its final count; the client saw every one of those replies.
    m = re.search(r"(\d+) requests answered", server.final_output)
    assert m, server.final_output
    assert int(m.group(1)) == report.requests, f"server: {server.final_output}\n{context}"
