"""The live web view (--web): Server-Sent Events during the run, the report so far,
POST /stop as Ctrl-C, the token on a non-loopback bind, --web-linger, and the
errors before the run. Each run binds port 0 (pacer prints the port it got)."""

import pytest
import json
import signal
import socket
import time

from conftest import run_pacer
from webview import EventStream, WebRun, request, with_token

pytestmark = pytest.mark.tsan

LOAD = ["-t1", "-c2", "-R", "400", "--plain", "--interval", "500ms"]


def test_events_arrive_during_the_run_and_are_the_timeseries_lines(server, tmp_path):
    series = tmp_path / "series.ndjson"
    with WebRun(*LOAD, "-d", "3s", "--timeseries", str(series), "--web", "127.0.0.1:0", server.url) as run:
        events = EventStream(run.port)
        assert events.got_interval.wait(10), run.stderr
        assert run.proc.poll() is None  # the first interval came while the run went on
        first_arrival = events.intervals[0][0]
        assert run.wait(30) == 0, run.stderr
        assert events.wait_closed(10)
    assert events.status == 200 and events.content_type == "text/event-stream"
    lines = [json.loads(line) for line in series.read_text().splitlines()]
    # The same objects, field for field, in the same order: one serializer for both.
    assert [doc for _, doc in events.intervals] == lines
    assert events.ids == list(range(len(lines)))
    assert len(lines) >= 5
    assert events.intervals[-1][0] - first_arrival > 1.0  # they came one by one, not at the end
    assert events.end is not None and events.end["counts"]["responses"] == sum(l["completed"] for l in lines)


def test_report_so_far_grows_during_the_run_with_its_bytes_connects_and_status_codes(server):
    with WebRun(*LOAD, "-d", "20s", "--web", "127.0.0.1:0", server.url) as run:
        events = EventStream(run.port)
        assert events.got_interval.wait(10), run.stderr
        status, fields, body = request(run.port, "GET", "/report.json")
        assert status == 200 and fields["content-type"] == "application/json"
        so_far = json.loads(body)
        assert so_far["config"]["url"] == server.url
        assert fields["x-pacer-run"] == "running"
        counts = so_far["counts"]
        assert counts["responses"] >= events.intervals[0][1]["completed"] > 0
        # Issue 43 (13): what the intervals carry (and /metrics has live) is there, not left out.
        assert so_far["status_codes"] == {"200": counts["responses"]}, so_far["status_codes"]
        assert counts["bytes_read"] > 0 and counts["bytes_written"] > 0 and counts["connects"] >= 2, counts
        assert so_far["rates"]["bytes_read_per_s"] == pytest.approx(counts["bytes_read"] / so_far["duration_s"],
                                                                    rel=1e-3), so_far["rates"]
        run.proc.send_signal(signal.SIGINT)
        assert run.wait(20) == 130


def test_post_stop_ends_the_run_as_ctrl_c_does(server, tmp_path):
    out = tmp_path / "report.json"
    hgrm = tmp_path / "latency.hgrm"
    started = time.monotonic()
    with WebRun(*LOAD, "-d", "60s", "--format", "json", "-o", str(out), "--hdr", str(hgrm),
                "--web", "127.0.0.1:0", server.url) as run:
        events = EventStream(run.port)
        assert events.got_interval.wait(10), run.stderr
        status, _, body = request(run.port, "POST", "/stop", {"Content-Length": "0"})
        assert status == 202 and json.loads(body) == {"stopping": True}
        assert run.wait(20) == 130, run.stderr
        assert events.wait_closed(10)
    assert time.monotonic() - started < 30
    doc = json.loads(out.read_text())
    assert doc["interrupted"] is True
    assert doc["counts"]["responses"] > 0
    assert hgrm.read_text().strip()
    assert events.end == doc  # the page's final report is the file's
    assert "Interrupted" in run.stdout


def test_get_stop_does_not_stop(server, tmp_path):
    out = tmp_path / "report.json"
    with WebRun(*LOAD, "-d", "2s", "--format", "json", "-o", str(out), "--web", "127.0.0.1:0", server.url) as run:
        events = EventStream(run.port)
        assert events.got_interval.wait(10), run.stderr
        status, fields, _ = request(run.port, "GET", "/stop")
        assert status == 405 and fields["allow"] == "POST"
        assert run.wait(20) == 0, run.stderr
    assert json.loads(out.read_text())["interrupted"] is False


def test_non_loopback_bind_without_token_gets_401(server):
    # 0.0.0.0 is every interface, not loopback: reached here through 127.0.0.1.
    with WebRun(*LOAD, "-d", "30s", "--web", "0.0.0.0:0", server.url) as run:
        assert run.token and "generated token" in run.stderr
        for method, path in (("GET", "/"), ("GET", "/events"), ("GET", "/report.json"), ("POST", "/stop")):
            status, fields, _ = request(run.port, method, path)
            assert status == 401, (method, path)
            assert fields["www-authenticate"].startswith("Bearer")
        status, _, _ = request(run.port, "POST", "/stop", {"Authorization": "Bearer wrong-token-123"})
        assert status == 401
        assert run.proc.poll() is None  # none of that stopped it
        assert request(run.port, "GET", with_token("/report.json", run.token))[0] == 200
        status, _, _ = request(run.port, "POST", "/stop", {"Authorization": f"Bearer {run.token}"})
        assert status == 202
        assert run.wait(20) == 130


def test_given_token_is_required_on_loopback_too(server):
    token = "tok-123456789"
    with WebRun(*LOAD, "-d", "30s", "--web", "127.0.0.1:0", "--web-token", token, server.url) as run:
        assert run.token == token
        assert request(run.port, "POST", "/stop")[0] == 401
        assert request(run.port, "POST", with_token("/stop", token))[0] == 202
        assert run.wait(20) == 130


def test_loopback_view_refuses_foreign_host_and_cross_origin_stop(server):
    with WebRun(*LOAD, "-d", "30s", "--web", "127.0.0.1:0", server.url) as run:
        assert request(run.port, "GET", "/", {"Host": "attacker.example"})[0] == 403
        assert request(run.port, "POST", "/stop", {"Origin": "http://attacker.example"})[0] == 403
        assert run.proc.poll() is None
        run.proc.send_signal(signal.SIGINT)
        assert run.wait(20) == 130


def test_linger_serves_the_final_report_until_stopped(server):
    with WebRun(*LOAD, "-d", "1s", "--format", "json", "--web", "127.0.0.1:0", "--web-linger", "60s",
                server.url) as run:
        deadline = time.monotonic() + 20
        while "serving the final report" not in run.stderr and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "serving the final report" in run.stderr
        status, fields, body = request(run.port, "GET", "/report.json")
        final = json.loads(body)
        assert status == 200 and final["status_codes"]  # only the final report has them
        assert fields["x-pacer-run"] == "finished"
        late = EventStream(run.port)  # a page opened now gets the whole run and its end
        assert late.wait_closed(10)
        assert late.end == final and late.intervals
        assert request(run.port, "GET", "/")[0] == 200
        run.proc.send_signal(signal.SIGINT)  # ends the linger; the run's own exit code stays
        assert run.wait(20) == 0, run.stderr
        assert json.loads(run.stdout) == final


def test_linger_ends_by_itself(server):
    started = time.monotonic()
    with WebRun(*LOAD, "-d", "1s", "--web", "127.0.0.1:0", "--web-linger", "1500ms", server.url) as run:
        assert run.wait(30) == 0
    assert 2.5 <= time.monotonic() - started < 20


def test_without_linger_the_process_exits_with_the_run(server):
    started = time.monotonic()
    with WebRun(*LOAD, "-d", "1s", "--web", "127.0.0.1:0", server.url) as run:
        events = EventStream(run.port)
        assert run.wait(30) == 0
        assert events.wait_closed(5) and events.end is not None  # the open page got the end first
    assert time.monotonic() - started < 8


def test_port_in_use_is_exit_2_before_the_run(server):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        run = run_pacer("-d", "5s", "--web", f"127.0.0.1:{port}", server.url, timeout=30)
    assert run.rc == 2, run
    assert f"--web: cannot listen on 127.0.0.1:{port}: Address already in use" in run.stderr
    assert run.stdout == ""
    assert server.stats()["requests_answered"] == 0


def test_bad_web_arguments_are_exit_2(server):
    for args in (["--web=999.1.1.1:80"], ["--web=127.0.0.1:99999"], ["--web-token", "x"],
                 ["--web", "--web-token", "short"], ["--web-linger", "5s"], ["--web", "--web-linger", "soon"]):
        run = run_pacer(*args, "-d", "1s", server.url, timeout=30)
        assert run.rc == 2, run
        assert "--web" in run.stderr
    assert server.stats()["requests_answered"] == 0
