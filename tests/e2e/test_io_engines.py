"""The I/O engines (--io auto|uring|epoll, PACER_IO, PACER_IO_URING_DISABLE): which
engine ran is in the version line and the report; `--io uring` where io_uring cannot
run exits 1 with the reason and before any output, `--io auto` falls back to epoll
and says so; and both engines count the same exact work (-n) the same way over
plain HTTP/1.1, large bodies, pipelining, timeouts, reconnects and HTTPS, with the
server agreeing. (scripts/test.sh runs the e2e suite once per engine; these tests run both
engines themselves.)
Every server is started here and stopped at teardown; every run is bounded."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from conftest import PACER_BIN

DISABLED_REASON = "io_uring is disabled by PACER_IO_URING_DISABLE"


def env_with(**values: str) -> dict[str, str]:
    """The test's environment without the engine switches the suite may run under, plus `values`."""
    env = {k: v for k, v in os.environ.items() if k not in ("PACER_IO", "PACER_IO_URING_DISABLE")}
    env.update(values)
    return env


def version_line(**values: str) -> str:
    done = subprocess.run([PACER_BIN, "--version"], capture_output=True, timeout=30, env=env_with(**values))
    assert done.returncode == 0, done.stderr
    return done.stdout.decode().splitlines()[0]  # the version and engine; libraries follow


def uring_available() -> bool:
    return version_line().endswith("[io_uring]")


needs_uring = pytest.mark.skipif(not uring_available(), reason="io_uring cannot run here (see pacer --version)")


def json_run(pacer, *args: str, rc: int = 0, **env: str) -> dict:
    run = pacer(*args, "--format", "json", timeout=60, env=env_with(**env))
    assert run.rc == rc, run
    return json.loads(run.stdout)


def test_the_version_line_names_the_engine_a_run_would_use():
    assert version_line(PACER_IO="epoll").endswith("[epoll]")
    fallback = version_line(PACER_IO_URING_DISABLE="1")
    assert fallback.startswith("pacer ") and fallback.endswith("]"), fallback
    assert f"[epoll; io_uring unavailable: {DISABLED_REASON}" in fallback, fallback


def test_io_uring_where_it_cannot_run_exits_1_with_the_reason_before_any_load(server, pacer):
    run = pacer("--io", "uring", "-n", "10", "-c", "1", "-t", "1", server.url, env=env_with(PACER_IO_URING_DISABLE="1"))
    assert run.rc == 1, run
    assert f"pacer: --io uring: {DISABLED_REASON}" in run.stderr, run
    assert run.stdout == "", run  # not even the header
    assert server.stats()["requests_answered"] == 0


def test_auto_falls_back_to_epoll_and_the_report_says_why(server, pacer):
    report = json_run(pacer, "--io", "auto", "-n", "50", "-c", "2", "-t", "1", server.url, PACER_IO_URING_DISABLE="1")
    assert report["config"]["io_engine"] == "epoll"
    assert report["config"]["io_fallback"].startswith(f"io_uring unavailable: {DISABLED_REASON}")
    assert report["counts"]["responses"] == 50
    text = pacer("-n", "20", "-c", "1", "-t", "1", server.url, timeout=60, env=env_with(PACER_IO_URING_DISABLE="1"))
    assert text.rc == 0, text
    assert f"  I/O on epoll (io_uring unavailable: {DISABLED_REASON} (a test switch))\n" in text.stdout, text


def test_the_report_names_the_engine_that_ran(server, pacer):
    report = json_run(pacer, "--io", "epoll", "-n", "20", "-c", "1", "-t", "1", server.url)
    assert report["config"]["io_engine"] == "epoll"
    assert "io_fallback" not in report["config"]
    if uring_available():
        report = json_run(pacer, "-n", "20", "-c", "1", "-t", "1", server.url)
        assert report["config"]["io_engine"] == "io_uring"
        assert "io_fallback" not in report["config"]
        # PACER_IO decides what auto means.
        report = json_run(pacer, "-n", "20", "-c", "1", "-t", "1", server.url, PACER_IO="epoll")
        assert report["config"]["io_engine"] == "epoll"


@pytest.mark.tsan
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--io", "kqueue"], "--io: unknown I/O engine 'kqueue' (expected auto, uring or epoll)"),
        (["--io"], "--io"),
    ],
)
def test_a_bad_io_value_exits_2_naming_it(pacer, args, message):
    run = pacer(*args, "-n", "1", "http://127.0.0.1:9/", env=env_with())
    assert run.rc == 2, run
    assert message in run.stderr, run


@pytest.mark.tsan
def test_a_bad_pacer_io_variable_exits_2_naming_it(pacer):
    run = pacer("-n", "1", "http://127.0.0.1:9/", env=env_with(PACER_IO="select"))
    assert run.rc == 2, run
    assert "PACER_IO: unknown I/O engine 'select'" in run.stderr, run


# Exact work on both engines: the same counts, and the server agrees with each.
SAME_WORK = {
    "small": ["-n", "400", "-c", "8", "-t", "2"],
    "large-bodies": ["-n", "60", "-c", "3", "-t", "1", "PATH=/bytes/200000"],
    "chunked": ["-n", "100", "-c", "2", "-t", "1", "PATH=/chunked/50000"],
    "pipelined": ["-n", "400", "-c", "2", "-t", "1", "--pipeline", "8"],
    "statuses": ["-n", "100", "-c", "4", "-t", "1", "PATH=/fail/4"],
    "no-keepalive": ["-n", "60", "-c", "3", "-t", "1", "--disable-keepalive"],
    "server-closes": ["-n", "40", "-c", "2", "-t", "1", "PATH=/close"],  # every request a read error
}


@pytest.mark.tsan
@needs_uring
@pytest.mark.parametrize("case", sorted(SAME_WORK))
def test_both_engines_count_the_same_exact_work(start_server, pacer, case):
    args = [a for a in SAME_WORK[case] if not a.startswith("PATH=")]
    path = next((a[5:] for a in SAME_WORK[case] if a.startswith("PATH=")), "/")
    reports = {}
    for engine in ("epoll", "uring"):
        server = start_server()
        report = json_run(pacer, "--io", engine, *args, server.url.rstrip("/") + path, rc=1 if case == "server-closes" else 0)
        assert report["config"]["io_engine"] == ("io_uring" if engine == "uring" else "epoll")
        answered = server.wait_for("requests_answered", report["counts"]["responses"])
        assert answered >= report["counts"]["responses"], (engine, report["counts"], answered)
        reports[engine] = report
    keys = ("responses", "requests_sent", "bytes_read", "connects")
    epoll, uring = reports["epoll"], reports["uring"]
    assert {k: epoll["counts"][k] for k in keys} == {k: uring["counts"][k] for k in keys}
    assert epoll["status_codes"] == uring["status_codes"]
    assert epoll["errors"] == uring["errors"]


@needs_uring
def test_timeouts_and_their_reconnects_count_alike_on_both_engines(server, pacer):
    # Each request times out after 300 ms on a server that answers after 10 s: one
    # timeout per request, the connection closed (HTTP/1.1 cannot cancel otherwise).
    counts = {}
    for engine in ("epoll", "uring"):
        report = json_run(pacer, "--io", engine, "-n", "4", "-c", "2", "-t", "1", "--timeout", "300ms",
                          server.url + "delay/10000", rc=1)  # 1: not one request succeeded
        counts[engine] = (report["errors"]["timeout"], report["counts"]["responses"])
    assert counts["epoll"] == counts["uring"] == (4, 0), counts


@pytest.mark.tsan
@needs_uring
def test_https_runs_on_both_engines_with_the_same_counts(start_server, pacer, tmp_path):
    done = subprocess.run([PACER_BIN, "cert", "--out", str(tmp_path)], capture_output=True, timeout=30)
    assert done.returncode == 0, done.stderr
    reports = {}
    for engine in ("epoll", "uring"):
        server = start_server("--tls", str(tmp_path / "cert.pem"), str(tmp_path / "key.pem"))
        report = json_run(pacer, "--io", engine, "-k", "-n", "200", "-c", "4", "-t", "2",
                          f"https://127.0.0.1:{server.port}/bytes/30000")
        reports[engine] = report
    for key in ("responses", "bytes_read", "tls_handshakes"):
        assert reports["epoll"]["counts"][key] == reports["uring"]["counts"][key], key
    assert reports["uring"]["counts"]["responses"] == 200
    assert reports["uring"]["errors"] == reports["epoll"]["errors"]
