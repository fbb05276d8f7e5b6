"""--trace N (docs/output.md, "Tracing exchanges"): exactly N exchanges on stderr as
curl -v shows them, across workers, and the run's figures unchanged (-n runs)."""

from __future__ import annotations

import pytest
import json
import re


@pytest.mark.tsan
def test_trace_3_shows_three_exchanges_and_the_figures_are_a_plain_runs(server, pacer):
    traced = pacer("-t2", "-c4", "-n", "200", "--trace", "3", "--format", "json", server.url, timeout=60)
    assert traced.rc == 0, traced
    starts = re.findall(r"^\* exchange (\d+): worker \d+, connection \d+", traced.stderr, re.M)
    assert sorted(starts) == ["1", "2", "3"], traced.stderr
    assert len(re.findall(r"^> GET / HTTP/1\.1$", traced.stderr, re.M)) == 3
    assert len(re.findall(r"^< HTTP/1\.1 200 OK$", traced.stderr, re.M)) == 3
    assert len(re.findall(r"^hello, pacer$", traced.stderr, re.M)) == 3
    assert len(re.findall(r"^\* exchange \d: status 200 in [0-9.]+ ms$", traced.stderr, re.M)) == 3
    plain = pacer("-t2", "-c4", "-n", "200", "--format", "json", server.url, timeout=60)
    a, b = json.loads(traced.stdout), json.loads(plain.stdout)
    assert a["counts"] == b["counts"] and a["status_codes"] == b["status_codes"] and a["errors"] == b["errors"]


def test_a_long_body_is_cut_at_1_kib(server, pacer):
    run = pacer("-c1", "-n", "2", "--trace", "1", server.url + "bytes/5000", timeout=60)
    assert run.rc == 0, run
    assert "* (body cut: the first 1024 bytes shown)" in run.stderr, run.stderr
