"""Lua scripts (-s): every example in examples/ against `pacer serve`, wrk's
hooks end to end, and the error cases (syntax error and setup errors exit 2 with
file:line; a run-time error stops the run with exit 1; os.exit in done() sets
the exit code). Every run is bounded (-d or -n, and a subprocess timeout)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import REPO, assert_server_agrees, parse_duration

EXAMPLES = REPO / "examples"


def script(tmp_path: Path, text: str, name: str = "script.lua") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# ------------------------------------------------------------------- examples


def test_every_example_has_a_test_here():
    tested = {"post_json", "random_paths", "auth_token", "status_count", "csv_report", "login_sequence"}
    assert {p.stem for p in EXAMPLES.glob("*.lua")} == tested


def test_post_json_sends_the_json_body_to_echo(server, pacer):
    run = pacer("-t1", "-c2", "-n", "200", "-s", str(EXAMPLES / "post_json.lua"), server.url + "echo", timeout=30)
    assert run.rc == 0, run
    report = run.report
    assert report.requests == 200, run
    assert report.status_codes == {200: 200}, run
    assert_server_agrees(server, report)


def test_post_json_puts_method_body_and_content_type_on_the_wire(recording_server, pacer):
    run = pacer("-t1", "-c1", "-n", "3", "-s", str(EXAMPLES / "post_json.lua"), recording_server.url + "api",
                timeout=30)
    assert run.rc == 0, run
    body = b'{"name":"pacer","items":[1,2,3]}'
    for req in recording_server.wait_for_requests(3):
        assert req.method == b"POST" and req.target == b"/api"
        assert req.header_values(b"Content-Type") == [b"application/json"]
        assert req.header_values(b"Content-Length") == [str(len(body)).encode()]
        assert req.body == body


@pytest.mark.tsan
def test_random_paths_spreads_requests_over_the_paths(server, pacer):
    run = pacer("-t2", "-c4", "-n", "500", "-s", str(EXAMPLES / "random_paths.lua"), server.url, timeout=30)
    assert run.rc == 0, run
    assert run.report.requests >= 500, run
    assert run.report.status_codes == {200: run.report.requests}, run
    assert_server_agrees(server, run.report)


@pytest.mark.tsan
def test_auth_token_logs_in_once_per_thread_then_is_authorized(server, pacer):
    run = pacer("-t2", "-c4", "-d", "1s", "-s", str(EXAMPLES / "auth_token.lua"), server.url, timeout=30)
    assert run.rc == 0, run
    assert run.report.status_codes.get(401, 0) == 0, run
    assert run.report.requests > 10, run


def test_status_count_prints_the_counts_after_the_report(server, pacer):
    run = pacer("-t1", "-c1", "-n", "100", "-s", str(EXAMPLES / "status_count.lua"), server.url + "fail/10", timeout=30)
    assert run.rc == 0, run
    after_report = run.stdout.split("status counts:\n", 1)
    assert len(after_report) == 2, run
    assert "Requests/sec" in after_report[0], "done() prints after the report"
    assert after_report[1] == "  200: 90\n  500: 10\n", run


@pytest.mark.tsan
def test_csv_report_appends_a_row_per_run_to_the_named_file(server, pacer, tmp_path):
    csv = tmp_path / "results.csv"
    for _ in range(2):
        run = pacer("-t2", "-c2", "-n", "100", "-s", str(EXAMPLES / "csv_report.lua"), server.url, "--", str(csv),
                    timeout=30)
        assert run.rc == 0, run
    lines = csv.read_text().splitlines()
    assert lines[0].startswith("time,requests,requests_per_s,mean_us"), lines
    assert len(lines) == 3, lines
    fields = lines[1].split(",")
    assert int(fields[1]) >= 100 and float(fields[3]) > 0, lines


def test_csv_report_without_a_file_writes_to_stdout(server, pacer):
    run = pacer("-t1", "-c1", "-n", "50", "-s", str(EXAMPLES / "csv_report.lua"), server.url, timeout=30)
    assert run.rc == 0, run
    assert "\ntime,requests,requests_per_s" in run.stdout, run


@pytest.mark.tsan
def test_login_sequence_logs_in_once_per_connection(server, pacer):
    run = pacer("-t2", "-c4", "-n", "400", "-s", str(EXAMPLES / "login_sequence.lua"), server.url, timeout=30)
    assert run.rc == 0, run
    assert run.report.status_codes == {200: run.report.requests}, run
    assert f"login sequence: {run.report.requests} responses 200, 0 responses 401" in run.stdout, run
    assert_server_agrees(server, run.report)


# ---------------------------------------------------------------- the API end to end


def test_script_arguments_reach_init(server, pacer, tmp_path):
    s = script(tmp_path, """
function init(args)
  if args[1] ~= "alpha" or args[2] ~= "beta" then error("args: " .. tostring(args[1])) end
  wrk.path = "/status/" .. args[3]
end
""")
    run = pacer("-t1", "-c1", "-n", "20", "-s", s, server.url, "--", "alpha", "beta", "203", timeout=30)
    assert run.rc == 0, run
    assert run.report.status_codes == {203: 20}, run


def test_os_exit_in_done_sets_the_exit_code_after_the_report(server, pacer, tmp_path):
    s = script(tmp_path, """
function done(summary, latency, requests)
  io.write("p99 is ", latency:percentile(99), " us\\n")
  if latency:percentile(99) >= 0 then os.exit(4) end
end
""")
    run = pacer("-t1", "-c1", "-n", "50", "-s", s, server.url, timeout=30)
    assert run.rc == 4, run
    assert run.stdout.index("Requests/sec") < run.stdout.index("p99 is "), run


# Prints in every way a wrk script does: at load (once per state), and in done().
PRINTS = """
print("loaded")
function done(summary, latency, requests)
  print("done:", summary.requests, nil)
  io.write("written by io.write\\n")
  io.stdout:write("written to io.stdout\\n")
end
"""
PRINTED_IN_DONE = "done:\t20\tnil\nwritten by io.write\nwritten to io.stdout\n"


def test_script_output_goes_to_stderr_when_stdout_carries_the_json_report(server, pacer, tmp_path):
    run = pacer("-t1", "-c1", "-n", "20", "--format", "json", "-s", script(tmp_path, PRINTS), server.url, timeout=30)
    assert run.rc == 0, run
    doc = json.loads(run.stdout)  # nothing but the report
    assert doc["counts"]["responses"] == 20, run
    assert PRINTED_IN_DONE in run.stderr, run
    assert "loaded\n" in run.stderr, run


def test_script_output_stays_on_stdout_after_the_report_when_the_json_goes_to_a_file(server, pacer, tmp_path):
    out = tmp_path / "report.json"
    run = pacer("-t1", "-c1", "-n", "20", "--format", "json", "-o", str(out), "-s", script(tmp_path, PRINTS),
                server.url, timeout=30)
    assert run.rc == 0, run
    assert json.loads(out.read_text())["counts"]["responses"] == 20
    assert run.stdout.endswith(PRINTED_IN_DONE), run
    assert run.stdout.index("Requests/sec") < run.stdout.index("done:"), run


def test_os_exit_zero_in_done_overrides_a_failed_run(server, pacer, tmp_path):
    s = script(tmp_path, "function done() os.exit(0) end\n")
    run = pacer("-t1", "-c1", "-n", "10", "-s", s, server.url + "status/500", timeout=30)
    assert run.rc == 0, run


def test_pipelined_requests_are_each_counted(server, pacer, tmp_path):
    s = script(tmp_path, """
local batch = wrk.format(nil, "/") .. wrk.format(nil, "/bytes/10") .. wrk.format(nil, "/status/202")
function request() return batch end
""")
    run = pacer("-t1", "-c2", "-d", "1s", "-s", s, server.url, timeout=30)
    assert run.rc == 0, run
    codes = run.report.status_codes
    assert codes[202] > 0 and codes[200] == 2 * codes[202], run
    assert_server_agrees(server, run.report)


# ------------------------------------------------------------------ errors


@pytest.mark.tsan
def test_syntax_error_exits_2_with_file_and_line(server, pacer, tmp_path):
    s = script(tmp_path, "wrk.method = 'GET'\nfunction request(\n", name="broken.lua")
    run = pacer("-d", "1s", "-s", s, server.url, timeout=30)
    assert run.rc == 2, run
    assert s in run.stderr and "broken.lua:3:" in run.stderr, run
    assert run.stdout == "", run  # nothing ran


@pytest.mark.tsan
def test_missing_script_exits_2_naming_it(server, pacer, tmp_path):
    run = pacer("-d", "1s", "-s", str(tmp_path / "nope.lua"), server.url, timeout=30)
    assert run.rc == 2, run
    assert "nope.lua" in run.stderr, run


@pytest.mark.tsan
def test_runtime_error_in_setup_exits_2_with_file_and_line(server, pacer, tmp_path):
    s = script(tmp_path, "function setup(thread)\n  thread:set('f', nil .. 1)\nend\n", name="setup_error.lua")
    run = pacer("-d", "1s", "-s", s, server.url, timeout=30)
    assert run.rc == 2, run
    assert "setup_error.lua:2:" in run.stderr and "setup" in run.stderr, run


@pytest.mark.tsan
def test_runtime_error_during_the_run_stops_it_with_exit_1_and_the_detail(server, pacer, tmp_path):
    s = script(tmp_path, """local n = 0
function response(status, headers, body)
  n = n + 1
  if n == 100 then error("response number " .. n .. " was unexpected") end
end
""", name="run_error.lua")
    run = pacer("-t2", "-c2", "-d", "60s", "-s", s, server.url, timeout=30)  # stops long before 60 s
    assert run.rc == 1, run
    assert "run_error.lua:4: response number 100 was unexpected" in run.stderr, run
    assert "response()" in run.stderr, run


def test_runtime_error_in_done_exits_1_with_the_detail(server, pacer, tmp_path):
    s = script(tmp_path, "function done(summary)\n  summary.nope.x = 1\nend\n", name="done_error.lua")
    run = pacer("-t1", "-c1", "-n", "10", "-s", s, server.url, timeout=30)
    assert run.rc == 1, run
    assert "done_error.lua:2:" in run.stderr, run


def test_open_model_takes_each_scheduled_request_from_request(server, pacer, tmp_path):
    s = script(tmp_path, """
local n = 0
function request() n = n + 1; return wrk.format(nil, n % 2 == 0 and "/status/202" or "/status/203") end
function delay() error("delay() is not called in the open model") end
""")
    run = pacer("-t1", "-c4", "-R", "200", "-d", "1s", "-s", s, server.url, timeout=30)
    assert run.rc == 0, run
    codes = run.report.status_codes
    assert 180 <= codes[202] + codes[203] <= 202, run
    assert abs(codes[202] - codes[203]) <= 4, run


def test_delay_paces_each_connection_in_the_closed_loop(server, pacer, tmp_path):
    s = script(tmp_path, "function delay() return 50 end\n")
    run = pacer("-t1", "-c2", "-d", "1s", "-s", s, server.url, timeout=30)
    assert run.rc == 0, run
    # 2 connections, one request per 50 ms each, for 1 s: at most about 40.
    assert 10 <= run.report.requests <= 42, run


# ------------------------------------------------------------ the latency clock


@pytest.mark.client_verdict_expected  # the script keeps the worker busy: pacer rightly blames itself (issue 28)
def test_latency_leaves_out_the_clients_own_stalls(server, pacer, tmp_path):
    # response() keeps the worker busy for 20 ms after every response, so each
    # wake-up spends 20 ms per ready connection before it sends or reads the
    # next one. A request's latency starts when it is sent (the clock is read
    # then, not at the wake-up) and ends when the kernel received its response
    # (the receive stamp, not the later read): the server answers `/` in far less
    # than 10 ms, so p50 stays under it. Taking either end from the wake-up puts
    # the other connection's 20 ms stall into every latency.
    s = script(tmp_path, """
function response(status, headers, body)
  local start = os.clock()
  while os.clock() - start < 0.02 do end
end
""")
    run = pacer("-t1", "-c2", "-d", "1s", "--latency", "-s", s, server.url, timeout=30)
    assert run.rc == 0, run
    assert run.report.requests >= 10, run
    assert parse_duration(run.report.distribution["50%"]) < 0.010, run
    assert_server_agrees(server, run.report)
