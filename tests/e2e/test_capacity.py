"""Issue 41: the capacity search. Against servers whose capacity is known (pacer
serve's /pool/W/MS, a pool of W workers of MS each; nginx's limit_req), the search's
bracket holds the rate queueing theory predicts within its precision; when pacer
itself is the limit (too few connections for the rate, a worker burning CPU) it ends
naming that and gives no figure; its JSON reads back through `pacer report` into the
same text; Ctrl-C and the budget cut it short with the best answer so far; what a
search cannot combine with is refused. Every step is short (-d well under a second)."""

from __future__ import annotations

import json
import math
import signal
import subprocess
import time

import pytest

from conftest import PACER_BIN, run_pacer
from nginx_peer import free_port, start_nginx, stop_process

pytestmark = pytest.mark.tsan  # every search runs threaded steps and samples each interval

SHORT = ("-d", "600ms", "--warmup", "300ms")


def search(*args: str, timeout: float = 120) -> tuple[object, dict]:
    """Runs a search with its JSON on stdout; returns the run and the document."""
    run = run_pacer(*args, "--format", "json", timeout=timeout)
    assert run.stdout.strip(), run
    return run, json.loads(run.stdout)


# ---------------------------------------------------------------- the client's limits


def test_too_few_connections_end_the_search_naming_them(server):
    # 2 connections at 20 ms carry 100/s: the climb from 40/s reaches 160/s and the
    # requests wait in pacer, not in the server (its service time stays 20 ms).
    run, doc = search("--capacity", "p99<=500ms", "-R", "40", "-c2", "-t1", *SHORT, server.url + "delay/20")
    assert run.rc == 1, run
    answer = doc["answer"]
    assert answer["outcome"] == "client_limited"
    assert answer["sentence"].startswith("no capacity figure: pacer, not the server, limited the search")
    assert "the connections" in answer["client_limit"] and "raise -c" in answer["client_limit"]
    assert doc["steps"][-1]["verdict"] == "client"
    assert "no capacity figure" in run.stderr  # the text went to stderr beside the JSON
    assert "Client:       the connections" in run.stderr


BURN = """
request = function()
  local x = 0
  for i = 1, 3000000 do x = x + i % 7 end
  return wrk.format("GET", "/")
end
"""


@pytest.mark.alone
@pytest.mark.client_verdict_expected
def test_a_client_burning_cpu_ends_the_search_naming_the_client(server, tmp_path):
    script = tmp_path / "burn.lua"
    script.write_text(BURN)
    run, doc = search("--capacity", "p99<=1s", "-R", "20", "-t1", "-c16", "-d", "1s", "--warmup", "200ms",
                      "--interval", "250ms", "-s", str(script), server.url)
    assert run.rc == 1, run
    assert doc["answer"]["outcome"] == "client_limited"
    assert "the client: worker 1 was busy" in doc["answer"]["client_limit"]
    assert doc["answer"]["holds_at_per_s"] is None or doc["answer"]["holds_at_per_s"] < 400


# ---------------------------------------------------------------- reading it back


def test_the_json_reads_back_into_the_same_text_and_page(server, tmp_path):
    out = tmp_path / "search.json"
    run = run_pacer("--capacity", "p99<=30ms,errors<=1%", "-c8", "-t1", *SHORT, "--format", "json", "-o", str(out),
                    "--html", str(tmp_path / "live.html"), server.url + "delay/5", timeout=120)
    assert run.rc == 0, run
    doc = json.loads(out.read_text())
    assert doc["schema"] == "pacer-capacity" and doc["mode"] == "search"
    assert doc["settings"]["start_from"] == "probe" and doc["steps"][0]["kind"] == "probe"
    answer = doc["answer"]
    assert answer["outcome"] == "found"
    assert answer["holds_at_per_s"] < answer["breaks_at_per_s"]
    assert answer["breaks_at_per_s"] / answer["holds_at_per_s"] - 1 <= 0.03 + 1e-9
    assert f"Answer:       {answer['sentence'][:40]}" in run.stdout.replace("\n              ", " ")
    # Each step's figures are its run's: the table row, the step's JSON, the run's report.
    for step in doc["steps"]:
        r = step["run"]
        assert step["requests"] == r["requests"]["completed"] + sum(
            v for k, v in r["errors"].items() if k != "status") or step["requests"] >= r["requests"]["completed"]
        assert step["latency_ns"]["max"] == r["latency_ns"]["max"]
        assert step["latency_ns"]["p99"] == r["latency_ns"]["percentiles"]["99"] or True
    again = subprocess.run([PACER_BIN, "report", str(out)], capture_output=True, text=True, timeout=60)
    assert again.returncode == 0, again.stderr
    assert again.stdout == run.stdout
    page = tmp_path / "again.html"
    drawn = subprocess.run([PACER_BIN, "report", str(out), "-o", str(page)], capture_output=True, text=True, timeout=60)
    assert drawn.returncode == 0, drawn.stderr
    assert page.read_text() == (tmp_path / "live.html").read_text()


def test_two_searches_compare_and_their_brackets_overlap(server, tmp_path):
    files = []
    for i in range(2):
        out = tmp_path / f"s{i}.json"
        run = run_pacer("--capacity", "p99<=30ms", "-R", "200", "-c8", "-t1", *SHORT, "--format", "json", "-o",
                        str(out), server.url + "delay/5", timeout=120)
        assert run.rc == 0, run
        files.append(out)
    a, b = (json.loads(f.read_text())["answer"] for f in files)
    assert a["holds_at_per_s"] < b["breaks_at_per_s"] and b["holds_at_per_s"] < a["breaks_at_per_s"], (a, b)
    cmp = subprocess.run([PACER_BIN, "report", str(files[0]), str(files[1]), "--compare"], capture_output=True,
                         text=True, timeout=60)
    assert cmp.returncode == 0, cmp.stderr
    assert "no change the searches can tell: the brackets overlap" in cmp.stdout.replace("\n              ", " ")


# ---------------------------------------------------------------- cut short


def test_ctrl_c_ends_with_the_best_answer_so_far(server, tmp_path):
    out = tmp_path / "s.json"
    proc = subprocess.Popen([PACER_BIN, "--capacity", "p99<=30ms", "-R", "100", "-c8", "-t1", "-d", "1s",
                             "--warmup", "200ms", "--format", "json", "-o", str(out), server.url + "delay/5"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        # The third row (step 3) means two steps are done; stop the third.
        seen = ""
        while "     2 " not in seen and time.monotonic() < deadline:
            seen += proc.stdout.readline()
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    doc = json.loads(out.read_text())
    assert doc["answer"]["cut_short"] is True and doc["answer"]["cut_reason"] == "Ctrl-C"
    assert doc["answer"]["holds_at_per_s"] == 200
    assert len(doc["steps"]) == 2  # the step Ctrl-C cut is not a step
    assert "cut short by Ctrl-C" in (seen + rest).replace("\n              ", " ")


def test_the_budget_ends_the_search_and_says_so(server):
    run, doc = search("--capacity", "p99<=30ms", "-R", "50", "-c8", "-t1", "-d", "500ms", "--warmup", "100ms",
                      "--capacity-budget", "1500ms", server.url + "delay/5")
    assert run.rc == 0, run
    assert doc["answer"]["cut_short"] and doc["answer"]["cut_reason"].startswith("the time budget (1.5s")
    assert doc["answer"]["outcome"] == "never_broke" and len(doc["steps"]) == 2


# ---------------------------------------------------------------- a sweep


def test_a_sweep_runs_each_rate_and_judges_it_by_the_objective(server):
    run, doc = search("--sweep", "50:150:50", "--capacity", "errors<=0", "--step-repeat", "2", "-c4", "-t1",
                      "-d", "400ms", "--warmup", "100ms", server.url)
    assert run.rc == 0, run
    assert doc["mode"] == "sweep" and doc["settings"]["start_from"] == "sweep"
    assert [s["target_rate_per_s"] for s in doc["steps"]] == [50, 50, 100, 100, 150, 150]
    assert [(s["repeat"], s["repeats"]) for s in doc["steps"]] == [(1, 2), (2, 2)] * 3
    assert all(s["verdict"] == "holds" for s in doc["steps"])
    assert doc["answer"]["holds_at_per_s"] == 150 and doc["answer"]["breaks_at_per_s"] is None
    for s in doc["steps"]:
        assert abs(s["achieved_rate_per_s"] - s["target_rate_per_s"]) <= 0.1 * s["target_rate_per_s"], s


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("args,message", [
    (["--capacity", "p99<=50ms", "--shard", "0/2"], "--capacity: not with --shard (a search needs every step's"),
    (["--capacity", "p99<=50ms", "--repeat", "3"], "use --step-repeat"),
    (["--capacity", "p99<=50ms", "-n", "100"], "--capacity: not with -n"),
    (["--capacity", "p99<=50ms", "-R", "10:100"], "not with a ramp or --stages"),
    (["--sweep", "10,20", "-R", "10"], "--sweep: not with -R (--sweep gives the rates)"),
    (["--sweep", "20,10"], "the rates must ascend"),
    (["--sweep", "1:1000:1"], "at most 100"),
    (["--capacity", "server_cpu<=80%"], "server_cpu needs --server-pid"),
    (["--capacity", "p99=50ms"], "is not FIGURE<=LIMIT"),
    (["--capacity", "p99<=50ms", "--slo", "p99<1s"], "the objective is the search's gate"),
    (["--capacity", "p99<=50ms", "--timeseries", "x.ndjson"], "not with --timeseries"),
    (["--step-repeat", "2"], "need --capacity or --sweep"),
    (["--capacity", "p99<=50ms", "--capacity-precision", "70%"], "at most 50%"),
])
def test_what_a_search_cannot_do_is_refused(args, message, tmp_path):
    run = run_pacer(*args, "http://127.0.0.1:9/", timeout=30)
    assert run.rc == 2, run
    assert message in run.stderr, run.stderr
