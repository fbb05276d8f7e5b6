"""Issue 28: evidence beside the numbers. The client's own health (a worker busy
for the run is named, the figures blamed on pacer; fds near the limit get the
arithmetic), the server's side (--server-pid from /proc, --server-metrics from a
Prometheus endpoint, a target that goes away), --repeat and a noise-aware
report --compare. Every run is a second or two; every server is stopped."""

from __future__ import annotations

import http.server
import json
import shutil
import statistics
import subprocess
import threading
import time
from pathlib import Path

import pytest

from conftest import run_pacer
from hostile import sanitizer
from nginx_peer import free_port, start_nginx, stop_process

pytestmark = pytest.mark.alone

# request() burns tens of milliseconds of CPU: the worker, not the server, sets the
# pace. With 16 connections the other 15 requests have all that time to be answered,
# so the worker never waits for the network, even on a crowded machine.
BURN = """
request = function()
  local x = 0
  for i = 1, 15000000 do x = x + i % 7 end
  return wrk.format("GET", "/")
end
"""


@pytest.mark.tsan
@pytest.mark.client_verdict_expected
def test_a_worker_burning_cpu_is_named_and_the_json_says_saturated(server, tmp_path):
    script = tmp_path / "burn.lua"
    script.write_text(BURN)
    out = tmp_path / "r.json"
    run = run_pacer("-t1", "-c16", "-d1500ms", "--interval", "500ms", "-s", str(script), "-o", str(out),
                    "--format", "json", server.url)
    assert run.rc == 0, run
    doc = json.loads(out.read_text())
    client = doc["client"]
    assert client["saturated"] is True
    busy = client["workers"][0]["busy"]
    assert busy >= 0.9
    verdict = client["verdicts"][0]
    assert verdict.startswith(f"the client: worker 1 was busy {round(busy * 100)} % of the run"), verdict
    assert "Use more threads (-t)" in verdict
    # The same sentence in the text report (stdout) and the progress lines name the worker.
    assert "Bottleneck:   the client: worker 1 was busy" in run.stdout
    assert "bottleneck: the client: worker 1 busy" in run.stderr


def test_the_same_script_at_a_rate_one_thread_carries_has_no_verdict(server, tmp_path):
    script = tmp_path / "burn.lua"
    script.write_text(BURN)
    run = run_pacer("-t1", "-c4", "-R", "1", "-d2s", "-s", str(script), "--format", "json", server.url)
    assert run.rc == 0, run
    client = json.loads(run.stdout)["client"]
    assert client["saturated"] is False and client["verdicts"] == []
    assert client["workers"][0]["busy"] < 0.9


@pytest.fixture
def nginx(tmp_path):
    port = free_port()
    proc = start_nginx(tmp_path, port, "$status", f"server {{ listen 127.0.0.1:{port}; location / {{ return 200 'ok'; }} }}")
    try:
        yield port, proc
    finally:
        stop_process(proc)


def nginx_worker(master: int) -> int:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
        if children:
            return int(children[0])
        time.sleep(0.02)
    raise AssertionError("nginx started no worker")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    import os
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.tsan
@pytest.mark.skipif(sanitizer() is not None, reason="an instrumented pacer is slower than nginx: then it is the bottleneck")
def test_an_ordinary_closed_loop_against_nginx_blames_no_one(nginx):
    port, _ = nginx
    run = run_pacer("-t2", "-c10", "-d1s", "--interval", "250ms", "--format", "json", f"http://127.0.0.1:{port}/")
    assert run.rc == 0, run
    client = json.loads(run.stdout)["client"]
    assert client["saturated"] is False and client["verdicts"] == [], (client["workers"], client["verdicts"])
    assert len(client["workers"]) == 2 and client["peak_open_fds"] >= 10 and client["fd_limit"] > 0


@pytest.mark.tsan
def test_server_pid_follows_nginx_workers_cpu_through_a_ramp(nginx, tmp_path):
    port, proc = nginx
    worker = nginx_worker(proc.pid)
    before = cpu_seconds(worker)
    series = tmp_path / "series.ndjson"
    run = run_pacer("-t2", "-c20", "--stages", "1s:200,1s:6000", "--interval", "500ms", "--server-pid", str(worker),
                    "--timeseries", str(series), "--format", "json", f"http://127.0.0.1:{port}/")
    after = cpu_seconds(worker)
    assert run.rc == 0, run
    rows = [json.loads(line) for line in series.read_text().splitlines()]
    cpu = [r["server"]["pids"][0]["cpu_user_s"] + r["server"]["pids"][0]["cpu_system_s"] for r in rows]
    assert all(r["server"]["pids"][0]["error"] is None and r["server"]["pids"][0]["threads"] >= 1 for r in rows)
    # The rate rises thirtyfold: the server's CPU in the last second is well above the first's.
    assert sum(cpu[-2:]) > 2 * sum(cpu[:2]), cpu
    total = json.loads(run.stdout)["server"]["pids"][0]
    ours = total["cpu_user_s"] + total["cpu_system_s"]
    assert ours == pytest.approx(sum(cpu), abs=1e-6)
    # /proc's difference over the whole invocation; the clock ticks are 10 ms.
    assert abs(ours - (after - before)) <= max(0.02 * (after - before), 0.02), (ours, after - before)


class Metrics(http.server.BaseHTTPRequestHandler):
    count = 0

    def do_GET(self):  # noqa: N802
        Metrics.count += 1
        body = (f"# TYPE app_requests_total counter\napp_requests_total {Metrics.count * 10}\n"
                f"# TYPE app_queue gauge\napp_queue 7\nother_metric 1\n").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.mark.tsan
def test_server_metrics_rates_counters_and_marks_a_target_that_goes_away(server, tmp_path):
    httpd = http.server.HTTPServer(("127.0.0.1", 0), Metrics)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    stopped = threading.Event()

    def stop_after_three_scrapes():
        while Metrics.count < 4 and not stopped.wait(0.01):
            pass
        httpd.shutdown()
        httpd.server_close()

    killer = threading.Thread(target=stop_after_three_scrapes, daemon=True)
    killer.start()
    series = tmp_path / "s.ndjson"
    try:
        run = run_pacer("-t1", "-c2", "-d2s", "--interval", "250ms", "--timeseries", str(series),
                        "--server-metrics", f"http://127.0.0.1:{httpd.server_port}/metrics",
                        "--server-metric", "app_.*", "--format", "json", server.url)
    finally:
        stopped.set()
        killer.join(5)
        httpd.shutdown()
    assert run.rc == 0, run  # the run goes on
    rows = [json.loads(line)["server"]["metrics"][0] for line in series.read_text().splitlines()]
    good = [r for r in rows if r["error"] is None]
    bad = [r for r in rows if r["error"] is not None]
    assert good and bad and rows.index(bad[0]) > rows.index(good[0])
    for r in good:
        kinds = {s["series"]: (s["kind"], s["value"]) for s in r["series"]}
        assert set(kinds) == {"app_requests_total", "app_queue"}  # other_metric was not chosen
        assert kinds["app_queue"] == ("gauge", 7)
        assert kinds["app_requests_total"][0] == "rate_per_s"
        assert kinds["app_requests_total"][1] > 0  # 10 per scrape, over about 250 ms
    assert all(r["series"] == [] for r in bad)  # marked, never zeros
    doc = json.loads(run.stdout)
    assert doc["server"]["failed_scrapes"] == len(bad) and doc["server"]["scrapes"] == len(rows)


NODE_EXPORTER = shutil.which("prometheus-node-exporter")


@pytest.mark.tsan
@pytest.mark.skipif(NODE_EXPORTER is None, reason="prometheus-node-exporter is not installed (scripts/setup.sh test)")
def test_server_metrics_scrapes_node_exporter_into_every_row(server, tmp_path):
    port = free_port()
    proc = subprocess.Popen([NODE_EXPORTER, f"--web.listen-address=127.0.0.1:{port}", "--collector.disable-defaults",
                             "--collector.cpu", "--collector.loadavg"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        import socket
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "node exporter did not listen"
                time.sleep(0.05)
        series = tmp_path / "s.ndjson"
        run = run_pacer("-t1", "-c2", "-d1s", "--interval", "250ms", "--timeseries", str(series),
                        "--server-metrics", f"http://127.0.0.1:{port}/metrics",
                        "--server-metric", "node_cpu_seconds_total|node_load1", server.url)
        assert run.rc == 0, run
        rows = [json.loads(line)["server"]["metrics"][0] for line in series.read_text().splitlines()]
        assert rows
        for r in rows:
            assert r["error"] is None
            names = {s["series"].split("{")[0]: s["kind"] for s in r["series"]}
            assert names == {"node_cpu_seconds_total": "rate_per_s", "node_load1": "gauge"}
    finally:
        stop_process(proc)


@pytest.mark.tsan
@pytest.mark.client_verdict_expected
def test_fds_near_the_limit_get_the_arithmetic(server):
    # -c200 -t1 needs 200 + 4 + 32 = 236 descriptors (cli/fd_limit.cc); at that limit
    # the connections hold over 80 % of it.
    run = run_pacer("-t1", "-c200", "-d1s", "--interval", "250ms", "--format", "json", server.url, nofile=236)
    assert run.rc == 0, run
    doc = json.loads(run.stdout)["client"]
    assert doc["fd_limit"] == 236 and doc["peak_open_fds"] >= 200
    fd_lines = [v for v in doc["verdicts"] if "file descriptors" in v]
    assert fd_lines == [f"the client's file descriptors: {doc['peak_open_fds']} of the limit of 236 were open "
                        f"({round(doc['peak_open_fds'] * 100 / 236)} %); each connection holds one. Raise the limit "
                        f"(ulimit -n, LimitNOFILE=) or lower -c."]
    # Above the hard limit: refused before the run, with the count it needs.
    refused = run_pacer("-t1", "-c300", "-d1s", server.url, nofile=236)
    assert refused.rc == 2 and "-c 300 needs about 336 open files but the hard limit is 236" in refused.stderr


@pytest.mark.tsan
def test_repeat_reports_each_run_and_their_median(server, tmp_path):
    out = tmp_path / "runs.json"
    run = run_pacer("--repeat", "3", "-t1", "-c2", "-d400ms", "--format", "json", "-o", str(out), server.url)
    assert run.rc == 0, run
    assert run.stdout.count("Run ") >= 3 and "Repeat:       3 runs" in run.stdout
    doc = json.loads(out.read_text())
    assert doc["schema"] == "pacer-repeat" and len(doc["runs"]) == 3
    rates = [r["rates"]["completed_per_s"] for r in doc["runs"]]
    s = doc["summary"]["rps"]
    assert s["values"] == pytest.approx(rates)
    assert s["median"] == pytest.approx(statistics.median(rates))
    assert s["min"] == pytest.approx(min(rates)) and s["max"] == pytest.approx(max(rates))
    p99 = [r["latency"]["percentiles_ns"]["99"] for r in doc["runs"]]
    assert doc["summary"]["p99"]["median"] == pytest.approx(statistics.median(p99))


@pytest.mark.tsan
def test_compare_says_not_significant_against_itself_and_significant_with_2ms_more(server, tmp_path):
    def runs(path, name):
        out = tmp_path / name
        r = run_pacer("--repeat", "3", "-t1", "-c2", "-d400ms", "--format", "json", "-o", str(out), server.url + path)
        assert r.rc == 0, r
        return str(out)

    base, same, slow = runs("", "base.json"), runs("", "same.json"), runs("delay/2", "slow.json")
    # A build against itself: every figure judged over the runs (whether a change is
    # significant is random here; the statistic is tested deterministically in
    # tests/html/compare_noise_test.cc, and 10 of 10 tries are in the report).
    itself = run_pacer("report", base, same, "--compare", "--max-regression", "p50=1000%")
    assert itself.rc == 0, itself
    noise = itself.stdout.split("Beyond the noise?\n")[1].split("\n\n")[0].splitlines()
    rows = [l for l in noise if l.startswith("  latency") or l.startswith("  requests/s")]
    assert len(rows) == 7 and all("significan" in l and "unknown" not in l for l in rows), itself.stdout
    # The same file on both sides: no change, within the spread.
    same_file = run_pacer("report", base, base, "--compare", "--max-regression", "p99=0%")
    assert same_file.rc == 0 and "run-to-run spread" in same_file.stdout, same_file
    slower = run_pacer("report", base, slow, "--compare", "--max-regression", "p50=10%")
    assert slower.rc == 3, slower
    noise = slower.stdout.split("Beyond the noise?\n")[1]
    line = next(l for l in noise.splitlines() if "latency p50" in l)
    assert "3 runs each, every new run slower than every old one: significant" in line
    assert "regression beyond --max-regression: p50 (bound 10%)" in slower.stderr


def test_a_side_of_single_runs_made_interleaved_is_judged_over_its_runs(server, tmp_path):
    """A side may be single runs, A1.json,A2.json,...: run alternately with the other side's,
    so that a machine whose speed drifts moves both sides alike."""
    sides = {"a": [], "b": []}
    for k in range(3):
        for side, path in (("a", ""), ("b", "delay/2")):
            out = tmp_path / f"{side}{k}.json"
            r = run_pacer("-t1", "-c2", "-d300ms", "--format", "json", "-o", str(out), server.url + path)
            assert r.rc == 0, r
            sides[side].append(str(out))
    a, b = ",".join(sides["a"]), ",".join(sides["b"])
    slower = run_pacer("report", a, b, "--compare", "--max-regression", "p50=10%")
    assert slower.rc == 3, slower
    line = next(l for l in slower.stdout.splitlines() if l.startswith("  latency p50") and "runs each" in l)
    assert "3 runs each, every new run slower than every old one: significant" in line, slower.stdout
    # The same runs on both sides: no change.
    same = run_pacer("report", a, a, "--compare", "--max-regression", "p50=0%")
    assert same.rc == 0 and "run-to-run spread" in same.stdout, same
    # A list with a file that is not there, or an empty name: exit 2, naming it.
    missing = run_pacer("report", a + "," + str(tmp_path / "nope.json"), b, "--compare")
    assert missing.rc == 2 and "nope.json" in missing.stderr, missing
    empty = run_pacer("report", sides["a"][0] + ",," + sides["a"][1], b, "--compare")
    assert empty.rc == 2 and "an empty file name in the list" in empty.stderr, empty


def test_the_suites_false_alarm_check_tells_a_backed_verdict_from_an_unbacked_one(tmp_path):
    """The autouse check every e2e test runs (conftest.no_client_verdict): a saturated
    verdict must be backed by the worker's thread CPU and CPU queueing."""
    from suite_rules import unbacked_verdict as _unbacked_verdict

    def doc(cpu_share, runnable_s, saturated=True):
        return json.dumps({"client": {"saturated": saturated, "verdicts": ["the client: worker 1 ..."],
                                      "workers": [{"busy": 0.97, "cpu_share": cpu_share, "runnable_s": runnable_s,
                                                   "wall_s": 2.0}]}})

    assert _unbacked_verdict([], doc(0.95, 0.0)) is None           # ran flat out: the truth
    assert _unbacked_verdict([], doc(0.30, 1.2)) is None           # queued for a CPU most of the run
    assert "no worker's thread CPU" in _unbacked_verdict([], doc(0.30, 0.2))
    assert _unbacked_verdict([], doc(0.10, 0.0, saturated=False)) is None
    out = tmp_path / "r.json"
    out.write_text(doc(0.2, 0.0))                                  # the -o file of a --format json run
    assert _unbacked_verdict(["--format", "json", "-o", str(out)], "text report") is not None
    assert _unbacked_verdict([], "a text report") is None          # no JSON at hand: not judged


def _pinned(cpu: int, *argv: str) -> subprocess.Popen:
    return subprocess.Popen(["taskset", "-c", str(cpu), *argv], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


LIGHT_BURN = BURN.replace("15000000", "100000")  # about a millisecond of CPU per request


@pytest.mark.client_verdict_expected
@pytest.mark.skipif(len(__import__("os").sched_getaffinity(0)) < 2, reason="needs two CPUs to pin apart")
def test_a_worker_queued_behind_a_cpu_hog_is_named_whatever_its_busy_share(tmp_path):
    # Issue 43 (2): pacer pinned to one CPU with three busy loops; the server on the
    # other. The worker waits for its CPU most of the run while its busy share stays
    # below the 90 % verdict: the figures measure pacer's machine, and the report says so.
    import os
    from conftest import PACER_BIN
    cpus = sorted(os.sched_getaffinity(0))
    server_cpu, pacer_cpu = cpus[0], cpus[-1]
    port = free_port()
    srv = _pinned(server_cpu, PACER_BIN, "serve", "--listen", f"127.0.0.1:{port}", "-t", "1")
    hogs = []
    script = tmp_path / "burn.lua"
    script.write_text(LIGHT_BURN)
    try:
        _wait_port(port)
        url = f"http://127.0.0.1:{port}/"
        # On this machine as it is (no hog of ours): a light open-model run is not named.
        idle = subprocess.run(["taskset", "-c", str(pacer_cpu), PACER_BIN, "-t1", "-c2", "-R", "50", "-d1s", "-s",
                               str(script), "--format", "json", url], capture_output=True, text=True, timeout=30)
        assert idle.returncode == 0, idle.stderr
        quiet = json.loads(idle.stdout)["client"]
        assert not any("waited for a CPU" in v for v in quiet["verdicts"]), quiet
        hogs = [_pinned(pacer_cpu, "python3", "-c", "while True: pass") for _ in range(3)]
        run = subprocess.run(["taskset", "-c", str(pacer_cpu), PACER_BIN, "-t1", "-c2", "-d2s", "-s", str(script),
                              "--format", "json", url], capture_output=True, text=True, timeout=30)
    finally:
        for p in hogs + [srv]:
            stop_process(p)
    assert run.returncode == 0, run.stderr
    client = json.loads(run.stdout)["client"]
    w = client["workers"][0]
    queued = w["runnable_s"] / w["wall_s"]
    assert queued >= 0.25, client  # the setting this test is about
    assert client["saturated"] is True, client
    if w["busy"] < 0.9:  # the case the issue filed: below the busy verdict, named for its CPU queue
        expected = (f"the client: worker 1 waited for a CPU {round(queued * 100)} % of the run "
                    f"(busy {round(w['busy'] * 100)} %)")
    else:
        expected = f"the client: worker 1 was busy {round(w['busy'] * 100)} % of the run (queued for a CPU"
    assert any(v.startswith(expected) for v in client["verdicts"]), (expected, client["verdicts"])


def _wait_port(port: int) -> None:
    import socket
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing listens on {port}")
