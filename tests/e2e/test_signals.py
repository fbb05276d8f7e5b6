"""SIGINT and SIGTERM stop the load; the partial report is still written."""

import pytest
import json
import signal
import subprocess

from conftest import PACER_BIN, parse_report

pytestmark = pytest.mark.tsan


def run_and_signal(server, sig, *extra):
    proc = subprocess.Popen([PACER_BIN, "-t1", "-c2", "-d", "10s", *extra, server.url],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Wait until the load is really running (a condition, not a fixed sleep).
    server.wait_for("requests_answered", 200, timeout=10)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=20)
    return proc.returncode, out.decode(), err.decode()


def test_sigint_prints_the_partial_report_and_exits_130(server):
    rc, out, err = run_and_signal(server, signal.SIGINT)
    assert rc == 130, (out, err)
    report = parse_report(out)
    assert report.requests > 0
    assert "Interrupted:" in out
    assert report.duration_s < 9.0


def test_sigterm_exits_143_and_marks_the_json_report(server):
    rc, out, err = run_and_signal(server, signal.SIGTERM, "--format", "json")
    assert rc == 143, (out, err)
    doc = json.loads(out)
    assert doc["interrupted"] is True
    assert doc["counts"]["responses"] > 0
