"""A saturated server is not advised as too few connections (issue 43, item 14).

Against `pacer serve`'s /pool/W/MS (W workers of MS ms: at most W*1000/MS
requests/s, the rest queue at the server), an open-model run above that rate sees
its service time grow while the completion rate stays flat: the server is
saturated, and more connections would only queue more. The progress lines and the
report say so, and neither advises raising -c. Against a server of fixed service
time with too few connections (/delay/MS), Little's law's advice still stands."""

from __future__ import annotations

import json
import re

import pytest

pytestmark = pytest.mark.alone  # open-model pacing against a server's timing


def test_a_server_whose_queue_grows_is_called_saturated_and_more_connections_are_not_advised(server, pacer, tmp_path):
    out = tmp_path / "r.json"
    # 4 workers x 20 ms: 200 requests/s at most; the target is 240/s on 64 connections.
    run = pacer("-t1", "-c64", "-R", "240", "-d", "4s", "--format", "json", "-o", str(out), server.url + "pool/4/20")
    assert run.rc == 0, run
    doc = json.loads(out.read_text())
    verdicts = doc["client"]["verdicts"]
    saturated = [v for v in verdicts if v.startswith("the server: saturated at about ")]
    assert saturated, (verdicts, run.stdout, run.stderr)
    rate = float(re.match(r"the server: saturated at about (\d+) requests/s", saturated[0])[1])
    assert 0.8 * 200 <= rate <= 1.05 * 200, saturated[0]
    assert doc["client"]["saturated"] is False, doc["client"]  # not the client's fault
    text = " ".join(run.stdout.split())
    assert "Bottleneck: " + saturated[0] in text, run.stdout
    assert "raise -c" not in run.stdout, run.stdout
    # The progress lines: once the server is seen saturated, no line advises more connections.
    seen = run.stderr.find("bottleneck: the server: saturated at ~")
    assert seen >= 0 and "raise -c" not in run.stderr[seen:], run.stderr

    # Too few connections for a fixed service time (2 x 50 ms carry 40/s of a 100/s
    # target): Little's law's advice stands, and no server is called saturated.
    run = pacer("-t1", "-c2", "-R", "100", "-d", "2s", "--timeout", "500ms", server.url + "delay/50")
    assert run.rc == 0, run
    assert re.search(r"raise -c to at least ~[56]\.", " ".join(run.stdout.split())), run.stdout
    assert "saturated" not in run.stdout + run.stderr, (run.stdout, run.stderr)
