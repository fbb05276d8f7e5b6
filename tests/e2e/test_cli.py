"""The command line: wrk's options in both spellings, errors that exit 2 and say why."""

import os
import re
from pathlib import Path

import pytest

from conftest import PACER_BIN, assert_connections_accepted, assert_server_agrees, parse_duration

# (id, arguments with {url} for the server's URL, what stderr must match)
BAD_ARGUMENTS = [
    ("unknown flag", ["--bogus-flag", "{url}"], r"--bogus-flag"),
    ("zero connections", ["-c", "0", "{url}"], r"-c\b.*\b0\b|connections.*\b0\b"),
    ("URL without scheme", ["127.0.0.1:8080/"], r"127\.0\.0\.1:8080/.*scheme|scheme.*127\.0\.0\.1:8080/"),
    ("URL without host", ["http:///path"], r"host"),
    ("unsupported scheme", ["ftp://127.0.0.1/"], r"ftp.*scheme|scheme.*ftp"),
    ("unreadable body file", ["-b", "@/nonexistent/body", "{url}"], r"/nonexistent/body"),
    ("header without colon", ["-H", "NoColonHere", "{url}"], r"NoColonHere.*:|:.*NoColonHere"),
    ("header with CR LF", ["-H", "X-A: b\r\nX-Injected: c", "{url}"], r"\bCR\b|\bLF\b|newline|line break"),
    ("no URL", [], r"URL|url"),
]


@pytest.mark.tsan
@pytest.mark.parametrize("args, message", [(a, m) for _, a, m in BAD_ARGUMENTS], ids=[i for i, _, _ in BAD_ARGUMENTS])
def test_bad_arguments_exit_2_with_a_message_naming_the_fault(server, pacer, args, message):
    run = pacer(*[a.replace("{url}", server.url) for a in args], timeout=10)

    assert run.rc == 2, run
    assert re.search(message, run.stderr, re.I | re.S), run
    assert "Running" not in run.stdout, run
    assert server.stats()["connections_accepted"] == 0


@pytest.mark.tsan
def test_more_connections_than_the_open_file_limit_exits_2_and_says_how_to_raise_it(server, pacer):
    run = pacer("-c", "1000", "-d", "1s", server.url, nofile=256, timeout=10)

    assert run.rc == 2, run
    assert "256" in run.stderr, run  # the limit it hit
    assert "ulimit -n" in run.stderr, run  # how to raise it
    assert server.stats()["connections_accepted"] == 0


@pytest.mark.tsan
@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help_exits_0_and_shows_the_usage(pacer, flag):
    run = pacer(flag, timeout=10)

    assert run.rc == 0, run
    assert "Usage: pacer" in run.stdout, run
    for option in ("--connections", "--duration", "--threads", "--header", "--latency", "--timeout"):
        assert option in run.stdout, option


@pytest.mark.parametrize("flag", ["-v", "--version"])
def test_version_exits_0_and_prints_one_version(pacer, flag):
    run = pacer(flag, timeout=10)

    assert run.rc == 0, run
    # As curl --version: the version and engine, the libraries, the HTTP/3 and TLS modules.
    lines = run.stdout.splitlines()
    assert len(lines) == 4, run
    assert re.fullmatch(r"pacer \d+\.\d+\.\d+\S*( \[[^\]]+\])?", lines[0]), run
    for library in ("nghttp2", "LuaJIT", "zlib", "brotli", "zstd", "liburing"):
        assert re.search(rf"\b{library}/\d+\.\d+", lines[1]), (library, lines[1])
    # The module built beside this binary answers with its own libraries' versions.
    module = Path(PACER_BIN).resolve().parent / "pacer-http3.so"
    assert re.fullmatch(rf"HTTP/3 module: ngtcp2/\d\S* nghttp3/\d\S* GnuTLS/\d\S* \({re.escape(str(module))}\)",
                        lines[2]), run
    tls_module = Path(PACER_BIN).resolve().parent / "pacer-tls.so"
    assert re.fullmatch(rf"TLS module: OpenSSL/\d\S* \({re.escape(str(tls_module))}\)", lines[3]), run


def test_version_says_why_there_is_no_http3_module(pacer, tmp_path):
    run = pacer("--version", env={**os.environ, "PACER_HTTP3_MODULE": str(tmp_path / "none.so")}, timeout=10)

    assert run.rc == 0, run
    assert run.stdout.splitlines()[2].startswith("HTTP/3 module: none, --http3 cannot run (--http3: cannot load"), run
    assert str(tmp_path / "none.so") in run.stdout, run


def test_version_says_why_there_is_no_tls_module(pacer, tmp_path):
    run = pacer("--version", env={**os.environ, "PACER_TLS_MODULE": str(tmp_path / "none.so")}, timeout=10)

    assert run.rc == 0, run
    assert run.stdout.splitlines()[3].startswith("TLS module: none, https cannot run (TLS: cannot load"), run
    assert str(tmp_path / "none.so") in run.stdout, run


@pytest.mark.parametrize(
    "options",
    [
        ["-c10", "-t1", "-d1s"],
        ["-c", "10", "-t", "1", "-d", "1s"],
        ["--connections", "10", "--threads", "1", "--duration", "1s"],
    ],
    ids=["attached", "separated", "long"],
)
def test_short_options_work_attached_and_separated(server, pacer, options):
    run = pacer(*options, server.url, timeout=30)
    report = run.report

    assert run.rc == 0, run
    assert report.target == "1s test", run
    assert (report.threads, report.connections) == (1, 10), run
    assert report.requests > 0, run
    assert 0.9 <= report.duration_s < 3.0, run
    assert_connections_accepted(server, 10)
    assert_server_agrees(server, report)


def test_a_duration_in_milliseconds_runs_that_long(server, pacer):
    run = pacer("-d", "500ms", "-c2", "-t1", server.url, timeout=30)
    report = run.report

    assert run.rc == 0, run
    assert report.target == "500ms test", run
    assert report.requests > 0, run
    assert 0.45 <= report.duration_s < 2.0, run
    assert_server_agrees(server, report)
