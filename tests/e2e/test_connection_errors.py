"""Connection failures: a refused port, and a server that goes away in the middle of a run."""

import re
import subprocess

from conftest import PACER_BIN, parse_report


def test_a_refused_port_exits_1_and_names_the_address(free_port, pacer):
    address = f"127.0.0.1:{free_port}"
    run = pacer("-d", "1s", f"http://{address}/", timeout=30)

    assert run.rc == 1, run
    assert address in run.stderr, run
    assert "refused" in run.stderr.lower(), run


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
