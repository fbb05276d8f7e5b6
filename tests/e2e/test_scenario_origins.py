"""A scenario's users that request other origins (issue 42, item 6): an absolute URL
of another origin (Locust's examples/multiple_hosts.py, a REST call to another
service) goes to that origin on the user's own connection to it, with its Host
header, its own TLS for https, cookies kept by host, and rows of its own named by
the URL as given; the run's path prefix is not put before it. Counted at each
`pacer serve`'s per-path counts. And a -n run whose tasks send nothing ends (the
give-up rule) instead of running forever. -t1 and -n or a short -d: about a
second each."""

from __future__ import annotations

import csv
import http.client
import json
import socket
import ssl
import time
from pathlib import Path

import pytest

from conftest import PacerServer


def scenario(tmp_path: Path, text: str) -> str:
    path = tmp_path / "scenario.lua"
    path.write_text(text)
    return str(path)


def run_json(pacer, *args: str, codes: tuple[int, ...] = (0,)) -> tuple[dict, object]:
    run = pacer("--format", "json", "-t1", *args, timeout=60)
    assert run.rc in codes, run
    return json.loads(run.stdout), run


def endpoints(report: dict) -> dict[str, dict]:
    return {e["name"]: e for e in report["endpoints"]}


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


TWO_ORIGINS = """
local other = pacer.args[1]
return {tasks = {{1, function(u)
  u:get("/status/200")
  local r = u:get(other .. "echo")
  local host = other:match("^http://([^/]+)/")
  if r.status ~= 200 or not r.body:find("\\r\\nHost: " .. host .. "\\r\\n", 1, true) then
    u:fail("the other origin's Host header: " .. tostring(r.body))
  end
  -- -H's headers go there too, but for the run's Host and Cookie.
  if not r.body:find("\\r\\nX-Run: yes\\r\\n", 1, true) or r.body:find("Cookie", 1, true)
     or r.body:find("run.test", 1, true) then
    u:fail("the other origin's -H headers: " .. tostring(r.body))
  end
  u:get(other .. "status/201?page=" .. u.id)
  u:get(other .. "bytes/7", nil, "seven bytes")
end}}}
"""


def test_a_second_origin_is_counted_right_at_each_server_with_rows_of_its_own(server, pacer, tmp_path):
    other = PacerServer()
    try:
        prefix = tmp_path / "locust"
        report, run = run_json(pacer, "-u", "2", "-n", "40", "--csv", str(prefix), "--csv-format", "locust",
                               "-H", "X-Run: yes", "-H", "Cookie: given=1", "-H", "Host: run.test",
                               "--scenario", scenario(tmp_path, TWO_ORIGINS), server.url + "docs", "--", other.url,
                               )  # the run's own /docs/status/200 is a 404 on pacer serve (a status error)
        rows = endpoints(report)
        origin = other.url.rstrip("/")
        # The run's path prefix goes before its own paths only; the other origin's rows are its URL
        # (the query kept: Locust's files were asked for), or the name given.
        assert set(rows) == {"GET /docs/status/200", f"GET {origin}/echo", f"GET {origin}/status/201?page=0",
                             f"GET {origin}/status/201?page=1", "seven bytes"}, run
        assert sum(e["requests_sent"] for e in rows.values()) == 40, run
        assert report["scenario"]["errors"] == {"check": 0, "script": 0, "check_on_errors": 0}, run
        own = server.stats()
        theirs = other.stats()
        assert own["requests_by_name"] == {"GET /docs/status/200": rows["GET /docs/status/200"]["responses"]}, own
        assert theirs["requests_by_name"] == {
            "GET /echo": rows[f"GET {origin}/echo"]["responses"],
            "GET /status/201": rows[f"GET {origin}/status/201?page=0"]["responses"]
            + rows[f"GET {origin}/status/201?page=1"]["responses"],
            "GET /bytes/7": rows["seven bytes"]["responses"],
        }, theirs
        # Each user has its own connection to the other origin, kept alive.
        assert theirs["connections_accepted"] == 2, theirs
        # Locust's stats file, read as Locust's users read it, says what the JSON says, row by row.
        with open(f"{prefix}_stats.csv", newline="") as f:
            stats = {(row["Type"] + " " + row["Name"]).strip(): row for row in csv.DictReader(f)}
        for name, e in rows.items():
            failures = sum(e["errors"].values())
            row = stats[name]
            assert int(row["Request Count"]) == e["responses"] + failures - e["errors"].get("status", 0), (name, row)
            assert int(row["Failure Count"]) == failures, (name, row)
        assert int(stats["Aggregated"]["Request Count"]) == 40, stats["Aggregated"]
    finally:
        other.stop()


HTTPS_ORIGIN = """
return {tasks = {{1, function(u)
  local r = u:get(pacer.args[1] .. "status/202")
  if r.status ~= 202 then u:fail("https: " .. tostring(r.status) .. " " .. tostring(r.error)) end
end}}}
"""


def https_stats(port: int) -> dict:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=2, context=context)
    try:
        conn.request("GET", "/stats")
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


@pytest.mark.tsan
def test_an_https_origin_from_an_http_run_has_its_own_tls_checked_against_its_host(start_server, server, pacer,
                                                                                     tmp_path):
    from test_tls import make_cert

    certs = make_cert(tmp_path / "certs")
    tls = start_server("--tls", str(certs / "cert.pem"), str(certs / "key.pem"))
    url = f"https://127.0.0.1:{tls.port}/"
    path = scenario(tmp_path, HTTPS_ORIGIN)
    # Two threads: each builds its own TLS context for the origin.
    report, run = run_json(pacer, "-t2", "-u", "4", "-n", "12", "--cacert", str(certs / "cert.pem"), "--scenario",
                           path, server.url, "--", url)
    assert endpoints(report)[f"GET https://127.0.0.1:{tls.port}/status/202"]["responses"] == 12, run
    assert https_stats(tls.port)["requests_by_name"] == {"GET /status/202": 12}
    assert https_stats(tls.port)["connections_accepted"] == 4, "one kept-alive connection per user"
    assert server.stats()["requests_answered"] == 0, "nothing went to the run's own origin"
    assert report["scenario"]["errors"]["check"] == 0, run
    # Without --cacert the certificate is not trusted: each request fails as `tls`, none is sent.
    report, run = run_json(pacer, "-u", "1", "-n", "3", "--scenario", path, server.url, "--", url, codes=(1,))
    (row,) = report["endpoints"]
    assert row["errors"]["tls"] == 3 and row["requests_sent"] == 0, run
    assert https_stats(tls.port)["requests_by_name"] == {"GET /status/202": 12}


COOKIES = """
local own, other = pacer.args[0], pacer.args[1]
return {tasks = {{1, function(u)
  u:get(other .. "session/login")                       -- the other host sets pacer_session
  local mine = u:get("/session/page", nil, "own page")  -- the run's host: not sent
  local theirs = u:get(other .. "session/page", nil, "other page")
  if mine.status ~= 401 then u:fail("the other host's cookie reached the run's host") end
  if theirs.status ~= 200 then u:fail("the cookie did not go back to its host") end
end}}}
"""


def test_a_cookie_goes_back_only_to_the_host_that_set_it(server, pacer, tmp_path):
    other = PacerServer()
    try:
        own_url = f"http://localhost:{server.port}/"  # another host than 127.0.0.1, same machine
        report, run = run_json(pacer, "-u", "1", "-n", "6", "--scenario", scenario(tmp_path, COOKIES), own_url, "--",
                               other.url, codes=(0, 3))
        assert report["scenario"]["errors"]["check"] == 0, run
        rows = endpoints(report)
        assert rows["own page"]["errors"].get("status") == 2 and rows["other page"]["responses"] == 2, run
        assert other.stats()["requests_by_name"] == {"GET /session/login": 2, "GET /session/page": 2}
    finally:
        other.stop()


def test_an_origin_that_refuses_fails_each_request_to_it_and_the_run_ends_on_time(server, pacer, tmp_path):
    text = """
return {tasks = {{1, function(u)
  local r = u:get(pacer.args[1] .. "x")
  if r.error ~= "connect" then error("expected a connect error, got " .. tostring(r.error)) end
  u:get("/status/200")
end}}}
"""
    refused = f"http://127.0.0.1:{closed_port()}/"
    started = time.monotonic()
    prefix = tmp_path / "locust"
    report, run = run_json(pacer, "-u", "2", "-n", "8", "--csv", str(prefix), "--csv-format", "locust", "--scenario",
                           scenario(tmp_path, text), server.url, "--", refused, codes=(0, 3))
    assert time.monotonic() - started < 20, "a refusing origin must not hold the run"
    rows = endpoints(report)
    failed, answered = rows[f"GET {refused}x"], rows["GET /status/200"]
    # -n counts the failed requests too; each user alternates a failure and a response.
    assert failed["errors"]["connect"] + answered["responses"] == 8, run
    assert 0 <= failed["errors"]["connect"] - answered["responses"] <= 2, run
    assert failed["requests_sent"] == 0, run
    assert answered["responses"] == server.stats()["requests_answered"], run
    # Locust's files: the failed requests are requests and failures of their row, and the failures file's.
    with open(f"{prefix}_stats.csv", newline="") as f:
        stats = {row["Name"]: row for row in csv.DictReader(f)}
    assert int(stats[f"{refused}x"]["Request Count"]) == int(stats[f"{refused}x"]["Failure Count"]) \
        == failed["errors"]["connect"], stats
    with open(f"{prefix}_failures.csv", newline="") as f:
        (failure,) = list(csv.DictReader(f))
    assert (failure["Method"], failure["Name"], int(failure["Occurrences"])) == ("GET", f"{refused}x",
                                                                              failed["errors"]["connect"]), failure
    assert report["scenario"]["errors"]["script"] == 0, run


def test_past_sixteen_other_origins_a_request_is_a_script_error_naming_the_cap(server, pacer, tmp_path):
    text = """
return {tasks = {{1, function(u)
  for i = 1, 17 do u:get("http://127.0.0.1:" .. (1 + i) .. "/") end
end}}}
"""
    report, run = run_json(pacer, "-u", "1", "-d", "0.5s", "--scenario", scenario(tmp_path, text), server.url,
                           codes=(1,))
    assert report["scenario"]["errors"]["script"] > 0, run
    messages = [m["text"] for m in report["scenario"]["first_messages"] if m["class"] == "script"]
    assert any("more than 16 other origins" in m for m in messages), messages


def test_a_run_with_n_whose_tasks_send_nothing_ends_by_the_give_up_rule(server, pacer, tmp_path):
    # On main this ran until killed: -n counts requests, and no task ever sent one.
    text = "return {tasks = {{1, function(u) local x = u.id end}}}"
    started = time.monotonic()
    report, run = run_json(pacer, "-u", "3", "-n", "5", "--give-up", "300ms", "--scenario", scenario(tmp_path, text),
                           server.url, codes=(1,))
    assert time.monotonic() - started < 20, run
    assert "no user made a request for 300ms (--give-up), so -n 5 cannot be reached" in report["first_error"], run
    assert report["endpoints"] == [] and server.stats()["requests_answered"] == 0, run
