"""The report as a user sees it: `pacer demo`, and output piped to a file."""

import pytest
import os
import re
import subprocess

from conftest import PACER_BIN, assert_server_agrees, parse_report

pytestmark = pytest.mark.tsan


def test_demo_runs_a_benchmark_against_its_own_server(pacer):
    run = pacer("demo", "-d", "1s", timeout=30)
    report = run.report

    assert run.rc == 0, run
    assert "Requests/sec:" in run.stdout, run
    assert report.requests > 0, run
    assert report.requests_per_sec > 0, run
    assert report.status_codes == {200: report.requests}, run
    # The demo's closing line reads the in-process server's counter right after the
    # report; it may not yet include the last reply, but never exceeds what the client saw.
    m = re.search(r"The server answered (\d+) requests", run.stdout)
    assert m, run
    assert 0 < int(m.group(1)) <= report.requests, run


def test_a_run_piped_to_a_file_has_no_escape_sequences(server, pacer_bin, tmp_path):
    out_path, err_path = tmp_path / "out.txt", tmp_path / "err.txt"
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR",)}
    env.update(TERM="xterm-256color", COLORTERM="truecolor")
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.run(
            [PACER_BIN, "-d", "1s", "--latency", server.url],
            stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env, timeout=30,
        )
    stdout, stderr = out_path.read_bytes(), err_path.read_bytes()

    assert proc.returncode == 0, (stdout, stderr)
    assert b"\x1b" not in stdout, stdout
    assert b"\x1b" not in stderr, stderr
    assert b"\r" not in stdout, stdout  # no progress line redrawn in place
    report = parse_report(stdout.decode())
    assert report.requests > 0
    assert_server_agrees(server, report)
